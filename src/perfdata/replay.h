/* The replay of a perf.data file as `perf script` sees it: the records the
 * address spaces and samples need (COMM, FORK, EXIT, MMAP, MMAP2, SAMPLE),
 * delivered in time order the way perf's ordered-events queue delivers
 * them. COMM/FORK/EXIT/MMAP feed the symbolizer; each sample goes to a
 * callback. */
#ifndef SCORCH_PERFDATA_REPLAY_H
#define SCORCH_PERFDATA_REPLAY_H

#include "perfdata/perfdata.h"
#include "symbolize/symbolize.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* When one record happened, and where it is: its offset << 1 | whether
 * the offset is in the decompressed data (16 bytes: the records of a
 * capture are collected, then moved by the sort). */
struct replay_entry {
	uint64_t time;
	uint64_t where;
};

struct replay {
	struct perf_data *pd;
	struct replay_entry *ents;
	size_t nr, alloc;
	uint64_t records; /* records walked (all types) */
	uint64_t mmaps, forks; /* MMAP/MMAP2 and FORK records kept */
	uint64_t samples; /* samples delivered or found damaged */
	size_t at;        /* during replay_run: the entry being delivered */
	bool damaged;     /* a sample that could not be parsed */
	/* If set, called before a kernel MMAP record (one that changes only
	   the kernel's map) is applied: when it returns true, the record is
	   kept for replay_apply_deferred instead. */
	bool (*defer_kernel_map)(void *arg);
	void *hook_arg;
	size_t *deferred; /* entries of the kernel MMAP records kept */
	size_t nr_deferred, deferred_alloc;
};

/* Walk pd and keep the records the replay needs. Returns 0, or -1 after
 * printing an error (what was read before the damage is kept). */
int replay_collect(struct replay *r);

/* Put the records in time order (stable; records without a time take the
 * time of the record before them). Returns how many were out of order. */
uint64_t replay_sort_by_time(struct replay *r);

/* Deliver the records in their order: address-space changes to sym,
 * samples to on_sample(arg, sample). */
void replay_run(struct replay *r, struct symbolizer *sym,
		void (*on_sample)(void *arg, const struct pd_sample *s), void *arg);

/* Apply the kernel MMAP records kept by defer_kernel_map, in order. */
void replay_apply_deferred(struct replay *r, struct symbolizer *sym);

/* The sample of entry i again, once replay_run delivered it (the records
 * stay where they are until the replay is released; other threads may
 * call this). Returns 0, or -1 when it is damaged. */
int replay_sample_at(const struct replay *r, size_t i, struct pd_sample *s);

void replay_release(struct replay *r);

#endif
