/* perf.data -> folded stacks: replays the file's records in time order
 * through the symbolizer (as `perf script` does) and folds every sample
 * with stackcollapse-perf.pl's rules applied to the lines perf script would
 * print, so the result equals `perf script | stackcollapse-perf.pl [opts]`. */
#ifndef SCORCH_PERFDATA_FOLD_H
#define SCORCH_PERFDATA_FOLD_H

#include "base/alloc.h"
#include "base/out.h"
#include "profile/profile.h"
#include "profile/time_ranges.h"
#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct report_opts {
	bool pid, tid;            /* root frame comm-PID / comm-PID/TID */
	bool kernel, jit;         /* _[k] / _[j] annotations */
	bool addrs;               /* [unknown <PC>] */
	bool script_pid;          /* fold as if perf script printed "pid/tid" (-F +pid) */
	const char *event_filter; /* NULL: the first event seen */
	bool keep_going;          /* on damage: keep what was read before it */
	bool no_inline;           /* no inline frames for DWARF-unwound frames */
	bool inline_addr2line;    /* stackcollapse-perf.pl --inline: addr2line -i -f -s -C
				     per frame of a file-backed module */
	bool quiet;               /* no "Filtering for events" note */
	bool per_cpu;             /* a "CPU N" root frame above the process name */
	int max_stack;            /* 0: 127 like perf script */
	bool sites;               /* note each frame name's module, build-id and address
				     (profile/frame_sites.h), for pprof output */
	const struct time_ranges *ranges; /* --time: only samples in these (resolved), or NULL;
				     needs time */
	bool time;                /* keep each sample's time (profile/time_cells.h): the
				     samples fold one by one, in order, on one thread */
	struct out *script;       /* also write perf script's default text here */
	int threads;              /* threads that fold (0 or 1: this one);
				     --script, --inline and sites fold on one */
	struct sym_options sym;
	const struct heap_ahead *heap; /* the caller's heap grown ahead (base/alloc.h), or NULL */
};

struct report_stats {
	uint64_t records, samples, folded, skipped_event, unwound, unwind_failed;
	uint64_t sort_moves; /* records that were out of time order */
	uint64_t held_for_kernel; /* -j1: samples folded once the kernel's symbols
				     were read (fold.c, kernel_catch_up) */
	bool pushes_threaded;     /* -j1: the trie's pushes went to a thread
				     (fold_pushes.h) */
	char hostname[256];     /* where it was recorded (perf.data HOSTNAME), or "" */
	char cmdline[512];      /* how (perf's command line, CMDLINE), or "" */
	char event[64];         /* the event folded, or "" */
	const char *count_unit; /* what the counts are: "samples", "ns" (cpu-clock and
				   task-clock periods), "cycles", "instructions" or
				   "events"; NULL before the first folded sample */
	bool damaged;
	uint64_t unopened; /* files wanted for symbols that could not be opened
			      (each named in a warning; an error without keep_going) */
};

/* Fold perf.data buf[0..len) (named path in messages) into p. Returns 0, or
 * -1 after printing an error (with keep_going: only when nothing usable
 * was read; the damage is reported in st->damaged and as a warning). */
int report_fold(const char *path, const void *buf, size_t len, const struct report_opts *o,
		struct profile *p, struct report_stats *st);

#endif
