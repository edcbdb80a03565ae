/* profile.bpf.c's user side (record-private, libbpf only): the on-CPU
 * sampler of the BPF backend. The program counts stacks in the kernel
 * (counts, keyed by struct profile_key), sends samples whole when a map is
 * full (spills) and user-stack copies for DWARF (ustacks ring). */
#ifndef SCORCH_RECORD_BPF_PROFILE_H
#define SCORCH_RECORD_BPF_PROFILE_H

#include "record/profile_abi.h"
#include "record/recorder.h"
#include "record/target.h"

#include <stdbool.h>
#include <stdint.h>

struct bpf_profile;
/* Open, configure from o and load it; copy: user stacks copied out
 * (DWARF); depth: frames kept per stack. 0, or RECORD_UNAVAILABLE after
 * record_bpf_unavailable when it cannot load here. */
int bpf_profile_open(const struct record_opts *o, const struct record_target *t, bool copy, uint32_t depth,
		     struct bpf_profile **out);
/* The -p/-t filters, each target checked first (recorder_seen for -p). */
int bpf_profile_filter(struct bpf_profile *b, const struct record_opts *o, const struct record_target *t,
		       struct recorder *r);
/* One sampling event per CPU, with the program attached; *event: its
 * name for stats. 0, or -1 after a message. */
int bpf_profile_attach(struct bpf_profile *b, const struct record_opts *o, const struct record_target *t,
		       const char **event);
void bpf_profile_enable(struct bpf_profile *b);
/* Detach and close the events (nothing changes the maps after). */
void bpf_profile_detach(struct bpf_profile *b);
/* A per-CPU statistic (PROFILE_STAT_*) summed over the CPUs. */
uint64_t bpf_profile_stat(struct bpf_profile *b, uint32_t idx);
/* Read the maps of processes counted since the last call, unless read
 * already (the program notes their pids in new_pids: cheaper than walking
 * the counts, which grow to one key per distinct stack). */
void bpf_profile_scan_new_pids(struct bpf_profile *b, struct recorder *r);
/* The stack maps (shared with offcpu.bpf.c), the ring of stack copies,
 * the spill buffer, the counts. */
void bpf_profile_class_fds(const struct bpf_profile *b, int fds[PROFILE_CLASSES]);
int bpf_profile_ring_fd(const struct bpf_profile *b);
int bpf_profile_spill_fd(const struct bpf_profile *b);
int bpf_profile_counts_fd(const struct bpf_profile *b);
/* The counts to the recorder, once sampling is over: what they gained
 * since bpf_profile_drain_new last read them (everything, if it never
 * did). */
struct bpf_python;
struct record_bound;
void bpf_profile_drain(struct bpf_profile *b, struct recorder *r, struct record_stats *stats, uint32_t limit,
		       struct bpf_python *python);
/* Time asked (keep_time, keep_order, time_ranges): the counts are per
 * (time cell, stack), and the cells that are over are taken to the
 * recorder while sampling (bpf_profile_drain_over, every few hundred ms),
 * so that the kernel's counts stay bounded however long the recording.
 * bpf_profile_refresh_drained: the maps of the processes those keys
 * named, read again at the end (libraries loaded late), as the counts'
 * own pids are. */
bool bpf_profile_timed(const struct bpf_profile *b);
void bpf_profile_drain_over(struct bpf_profile *b, struct recorder *r, struct record_stats *stats, uint32_t limit,
			    struct bpf_python *python);
void bpf_profile_refresh_drained(struct bpf_profile *b, struct recorder *r);
/* While sampling: what the counts gained since the last read, to the
 * recorder; the keys of exited processes (recorder_exiting) are deleted
 * once read. Once bound is over (-d, Ctrl-C: session.h) the keys left
 * are passed over, for the final read. */
void bpf_profile_drain_new(struct bpf_profile *b, struct recorder *r, struct record_stats *stats, uint32_t limit,
			   struct bpf_python *python, struct record_bound *bound);
/* The maps of the CPython walk (python.bpf.h): py_procs, py_stacks, py_seen. */
void bpf_profile_python_fds(const struct bpf_profile *b, int *procs, int *stacks, int *seen);
void bpf_profile_close(struct bpf_profile *b);

#endif
