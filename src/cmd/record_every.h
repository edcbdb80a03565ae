/* scorch record --every DURATION: one profile per interval, cut at the
 * wall clock's multiples of DURATION, each handed to the stores --to
 * names with its host, times, event, rate and labels (store/store.h).
 *
 * Each interval is a whole record_run: everything the collector grows
 * (stack tables, process state, symbol caches) is freed at each cut, so
 * memory stays flat however long it runs. The price is the collector's
 * set-up between two intervals (opening the perf events, reading the
 * kernel's symbols), a gap in which nothing is sampled; each interval's
 * start and end are the times
 * it actually sampled. The perf backend is the default here: its events
 * open in about 0.1 s, where bpf loads its program again at each cut
 * (about 1 s). Targets: -a, -p, -t (a command would be started again
 * for each interval: refused). */
#ifndef SCORCH_CMD_RECORD_EVERY_H
#define SCORCH_CMD_RECORD_EVERY_H

#include "cmd/record_args.h"
#include "cmd/sink_args.h"

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct record_every {
	uint64_t every_ns;   /* 0: not asked */
	const char *host;    /* --host, or NULL: the host name */
	struct sink_args sinks;
	char hostname[256];
};

/* The options it adds to record's table (ended by a zero entry). */
extern const struct option record_every_options[];
/* One of them (a bad value: usage error); false when c is not one. */
bool record_every_take(struct record_every *e, int c, const char *arg, char **argv);
/* After all options: the combinations (usage errors exit). */
void record_every_check(struct record_every *e, struct record_args *a);
/* Record interval after interval until stopped (or -d, or the targets
 * exit). The exit code. */
int record_every_run(struct record_every *e, struct record_args *a);
void record_every_release(struct record_every *e);

#endif
