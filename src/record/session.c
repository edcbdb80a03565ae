/* The recording's clock, phases, poll timeouts and stop check
 * (session.h), shared by the backends' loops and the driver. */
#include "record/session.h"

#include <string.h>
#include <time.h>

double record_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void mark_stopped(struct record_phases *ph)
{
	ph->stopped_wall = ph->last_wall = record_now();
	ph->stopped_cpu = ph->last_cpu = record_cpu_now();
}

void record_phase(struct record_phases *ph, const char *what)
{
	if (!ph->stopped_wall)
		return; /* sampling has not ended */
	double wall = record_now(), cpu = record_cpu_now();
	struct record_phase *at = ph->nr ? &ph->at[ph->nr - 1] : NULL;
	if (!at || (strcmp(at->what, what) && ph->nr < RECORD_MAX_PHASES)) {
		at = &ph->at[ph->nr++];
		*at = (struct record_phase){ what, 0, 0 };
	}
	at->wall += wall - ph->last_wall;
	at->cpu += cpu - ph->last_cpu;
	ph->last_wall = wall;
	ph->last_cpu = cpu;
}

double record_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t record_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t record_realtime_offset_ns(void)
{
	struct timespec mono, real;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	return ((int64_t)real.tv_sec - (int64_t)mono.tv_sec) * 1000000000 + (real.tv_nsec - mono.tv_nsec);
}

/* Shared by the backends' loops: has sampling ended? */
static bool sampling_ended(const struct record_opts *opts, struct record_target *t, double start,
			   struct record_stats *stats)
{
	int status;
	if (opts->stop && *opts->stop) {
		stats->ended = RECORD_END_STOP;
		return true;
	}
	if (opts->duration > 0 && record_now() - start >= opts->duration) {
		stats->ended = RECORD_END_DURATION;
		return true;
	}
	if (target_exited(t, &status)) {
		stats->command_status = status;
		stats->command_cpu = t->child_cpu;
		stats->ended = RECORD_END_COMMAND;
		return true;
	}
	if (target_gone(t)) {
		stats->ended = RECORD_END_TARGETS;
		return true;
	}
	return false;
}

int record_poll_ms(const struct record_opts *opts, double start, int ms)
{
	if (opts->duration > 0) {
		double left = (start + opts->duration - record_now()) * 1e3;
		if (left < ms)
			return left > 0 ? (int)left + 1 : 0;
	}
	return ms;
}

bool record_should_stop(const struct record_opts *opts, struct record_target *t, double start,
			struct record_stats *stats)
{
	if (!sampling_ended(opts, t, start, stats))
		return false;
	mark_stopped(&stats->phases); /* what follows is finishing time */
	return true;
}


void record_bound_start(struct record_bound *b, const struct record_opts *opts, double start)
{
	*b = (struct record_bound){ .stop = opts->stop, .deadline = opts->duration > 0 ? start + opts->duration : 0 };
}

void record_bound_finish(struct record_bound *b, const struct record_stats *stats)
{
	b->finishing = true;
	b->signals = stats->ended == RECORD_END_STOP;
	b->deadline = record_now() + RECORD_FINISH_DRAIN_S;
	b->over = false;
}

bool record_bound_signalled(const struct record_bound *b)
{
	return b && b->finishing && b->stop && *b->stop > b->signals;
}

bool record_bound_over(struct record_bound *b)
{
	if (!b)
		return false;
	if (!b->finishing)
		return (b->stop && *b->stop) || (b->deadline > 0 && record_now() >= b->deadline);
	if (!b->over)
		b->over = record_bound_signalled(b) || record_now() >= b->deadline;
	return b->over;
}
