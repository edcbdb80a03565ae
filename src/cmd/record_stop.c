/* record's stop signals (record_stop.h). */
#include "cmd/record_stop.h"

#include <signal.h>

/* Set by the SIGINT/SIGTERM/SIGHUP handler (a handler reaches no context;
 * base/tempfile.c is the only other such global). */
static volatile sig_atomic_t record_stop;

/* Counts the signals (up to a bound): the first stops sampling, a second
 * stops waiting for the command to exit (record/target.c). */
static void on_signal(int sig)
{
	(void)sig;
	if (record_stop < 100)
		record_stop = record_stop + 1;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

bool record_stopped(void)
{
	return record_stop != 0;
}

void stop_signals_catch(struct stop_signals *s)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(stop_signals[i], &sa, &s->old[i]);
	/* A reader of our stdout going away must not kill us mid-record. */
	signal(SIGPIPE, SIG_IGN);
}

void stop_signals_restore(struct stop_signals *s)
{
	for (int i = 0; i < 3; i++)
		sigaction(stop_signals[i], &s->old[i], NULL);
}

/* record_run with INT, TERM and HUP stopping sampling (the output is
 * still written); the signals stay caught until record_stop_end, so that
 * one more stops the wait for a command that outlives sampling. */
int record_until_stopped(struct record_opts *o, struct profile *p, struct record_stats *st, struct record_stop *rs)
{
	stop_signals_catch(&rs->saved);
	o->stop = &record_stop;
	return record_run(o, p, st, &rs->command);
}

void record_stop_end(struct record_stop *rs)
{
	record_command_end(&rs->command);
	stop_signals_restore(&rs->saved);
}
