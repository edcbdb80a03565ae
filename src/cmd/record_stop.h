/* record's stop signals: INT, TERM and HUP end sampling (the output is
 * still written), for one recording (cmd/record.c) or interval after
 * interval (cmd/record_every.c). */
#ifndef SCORCH_CMD_RECORD_STOP_H
#define SCORCH_CMD_RECORD_STOP_H

#include "profile/profile.h"
#include "record/record.h"

#include <signal.h>
#include <stdbool.h>

/* INT, TERM and HUP caught (they stop sampling, see record_stopped), and
 * the previous actions back. */
struct stop_signals {
	struct sigaction old[3];
};
void stop_signals_catch(struct stop_signals *s);
void stop_signals_restore(struct stop_signals *s);
/* record_run with Ctrl-C, SIGTERM and SIGHUP stopping it. */
int record_until_stopped(struct record_opts *o, struct profile *p, struct record_stats *st);
/* Whether a stop signal came (it stays set). */
bool record_stopped(void);

#endif
