/* The recording's clock, phases, poll timeouts and stop check
 * (record-private): what every backend's loop asks, so that no backend
 * calls up into the driver (run.c). */
#ifndef SCORCH_RECORD_SESSION_H
#define SCORCH_RECORD_SESSION_H

#include "record/record.h"
#include "record/target.h"

#include <stdbool.h>
#include <stdint.h>

double record_now(void);     /* CLOCK_MONOTONIC, seconds */
double record_cpu_now(void); /* CPU time of the process */
/* CLOCK_MONOTONIC in ns: the clock of perf's rings (use_clockid) and of
 * bpf_ktime_get_ns, that is, of struct record_sample.time. */
uint64_t record_now_ns(void);
/* CLOCK_REALTIME less CLOCK_MONOTONIC now, in ns: added to a sample's
 * time, nanoseconds since the epoch (read it once per recording: the
 * realtime clock may be stepped while it runs). */
int64_t record_realtime_offset_ns(void);
/* A backend's poll timeout: ms, or less so that -d ends on time. */
int record_poll_ms(const struct record_opts *opts, double start, int ms);
/* Has sampling ended (stop flag, duration, command exit, targets gone)?
 * Says why in stats->ended, and marks the end of sampling in
 * stats->phases (what follows is finishing time, see record_phase). */
bool record_should_stop(const struct record_opts *opts, struct record_target *t, double start,
			struct record_stats *stats);

/* When the loops that drain rings and maps give way (record_bound_over).
 * While sampling: at -d's deadline, or once a stop signal came, so that
 * the loop gets to record_should_stop on time (what is left waits for the
 * end). After it (record_bound_finish): RECORD_FINISH_DRAIN_S after
 * sampling ended, or at a stop signal beyond those that ended it (a
 * second Ctrl-C): what is left of the rings then is counted as lost
 * (record_stats.unread). The in-kernel counts are the profile itself,
 * read in a few batch calls without unwinding: their last read is whole
 * (bpf_stacks.h), and only a second signal cuts the BPF spills'. */
#define RECORD_FINISH_DRAIN_S 1.0
struct record_bound {
	const volatile sig_atomic_t *stop;
	double deadline;      /* CLOCK_MONOTONIC s: -d's end, then the end of draining; 0: none */
	bool finishing;       /* sampling has ended */
	sig_atomic_t signals; /* finishing: the stop signals that ended sampling */
	bool over;            /* finishing: sticky once true */
};
void record_bound_start(struct record_bound *b, const struct record_opts *opts, double start);
void record_bound_finish(struct record_bound *b, const struct record_stats *stats);
/* Should a drain loop stop now (b NULL: never)? */
bool record_bound_over(struct record_bound *b);
/* Finishing, has a second signal come (b NULL: no)? */
bool record_bound_signalled(const struct record_bound *b);

/* Progress line on stderr (progress.c). */
void record_progress(const struct record_opts *opts, double elapsed, uint64_t samples, uint64_t lost);
void record_progress_end(const struct record_opts *opts);

#endif
