/* record's stop signals: INT, TERM and HUP end sampling (the output is
 * still written; one more ends the wait for the command), for one recording (cmd/record.c) or interval after
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
/* One recording with Ctrl-C, SIGTERM and SIGHUP stopping it: the
 * previous actions (base/tempfile.h's cleanup of an output's temporary
 * file) saved, and the command record_run leaves running. */
struct record_stop {
	struct stop_signals saved;
	struct record_command command;
};
/* record_run with the stop signals caught; call record_stop_end after,
 * once the output is written, whatever record_run returned. */
int record_until_stopped(struct record_opts *o, struct profile *p, struct record_stats *st, struct record_stop *rs);
/* The command ended (record_command_end: the rest of its grace period,
 * then SIGKILL), the previous signal actions back. */
void record_stop_end(struct record_stop *rs);
/* Whether a stop signal came (it stays set). */
bool record_stopped(void);

#endif
