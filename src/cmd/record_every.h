/* scorch record --every DURATION: one profile per interval, cut at the
 * wall clock's multiples of DURATION, each handed to the stores --to
 * names with its host, times, event, rate and labels (store/store.h).
 *
 * On-CPU samples: one recording, which the collector cuts at each
 * multiple (record_opts.every_ns, recorder_cut.c), on either backend (BPF
 * by default): one interval ends where the next begins, nothing goes
 * unsampled between them; what grows with time (stacks, counts) is
 * dropped at each cut, what follows the processes and files (maps of the
 * live processes, symbols, unwind tables) is kept. Off-CPU time (--off-cpu,
 * --wall), summed per stack until each block ends, is cut by a whole
 * record_run per interval (perf backend by default: its events open in
 * about 0.1 s, a gap in which nothing is sampled; each interval's start
 * and end are the times it actually sampled). Targets: -a, -p, -t (a
 * command would be started again for each interval: refused). */
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
