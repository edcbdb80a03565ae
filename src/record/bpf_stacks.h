/* Reading the BPF programs' maps back (record-private, libbpf only):
 * hash maps in batches, stacks by id (with a cache), counts keys as
 * samples, the pids in map keys. Shared by bpf_profile.c, bpf_offcpu.c
 * and bpf_backend.c. */
#ifndef SCORCH_RECORD_BPF_STACKS_H
#define SCORCH_RECORD_BPF_STACKS_H

#include "base/hashmap.h"
#include "record/bpf_map_each.h"
#include "record/bpf_stack_cache.h"
#include "record/profile_abi.h"
#include "record/recorder.h"
#include "record/target.h"

/* Capture the maps of the processes in a counts hash keyed
 * by struct profile_key: new pids only, or every live one again when
 * refreshing (keys repeat a pid: one read per scan). */
void bpf_scan_pids(int counts_fd, struct recorder *r, bool refresh);
/* The same for any hash whose keys hold pids at the offsets pid_at;
 * take: the entries are taken out of the map as they are read. */
void bpf_scan_key_pids(int fd, const size_t *pid_at, size_t nr_pid_at, struct recorder *r, bool refresh,
		       bool take);
/* Every stack of a hash map of u32 stack ids to `frames` zero-filled
 * frames, read in batches, under its id; 0, or -1 when the kernel refused. */
int bpf_stack_cache_load(struct bpf_stack_cache *c, int fd, uint32_t frames);
/* Frames before the first zero, at most `frames`. */
uint32_t bpf_stack_depth(const uint64_t *ips, uint32_t frames);

/* Where stack ids are resolved: the cache first when there is one, else
 * the map fds[id >> PROFILE_CLASS_SHIFT] (and into the cache when fill:
 * a reader that drains the counts more than once). Keys with a time cell
 * (profile_key.cell) are samples at time_base + (cell - 1) * time_cell_ns. */
struct bpf_python;
struct bpf_stacks {
	int fds[PROFILE_CLASSES];
	struct bpf_stack_cache *cache;
	bool fill;
	struct bpf_python *python; /* the runtime frames of on-CPU keys (bpf_python.h), or NULL */
	uint64_t time_base, time_cell_ns;
	/* When the counts' hand-over gives way (session.h; NULL: never):
	 * while sampling, a read with seen passes over the keys left once
	 * the bound is over (read next time: seen keeps their last count).
	 * The final read is whole: the counts are the profile, and reading
	 * them is a few batch calls and no unwinding. */
	struct record_bound *bound;
};
/* The sample a counts key stands for, its frames read into user[] and
 * kernel[] (PROFILE_MAX_DEPTH each) unless cached, comm into comm[]; a
 * stack lost to a collision or a full map is marked and counted (count
 * samples) in stats. */
void bpf_stacks_key_sample(const struct bpf_stacks *from, const struct profile_key *key, uint64_t count,
			   struct record_sample *s, char comm[PROFILE_COMM_LEN + 1], uint64_t *user, uint64_t *kernel,
			   struct record_stats *stats, uint32_t limit);
/* A counts hash read while the programs count on: what each key held
 * when last read, so that each read hands over what came since. */
struct bpf_counts_seen {
	struct hashmap by_hash; /* hash of the key -> index in v (probing on clash) */
	struct bpf_seen_count {
		struct profile_key key;
		uint64_t count;
	} *v;
	size_t nr, alloc;
};
void bpf_counts_seen_init(struct bpf_counts_seen *seen);
void bpf_counts_seen_release(struct bpf_counts_seen *seen);
/* Every key of a counts hash (struct profile_key -> u64 samples), read in
 * batches, to the recorder (stats->in_kernel adds them up); 0, or -1
 * when the kernel refused a batch read. With seen, only what each key
 * gained since the last read; the keys of processes that exited
 * (recorder_exiting) are deleted once read, so that the map and seen
 * follow the live processes. */
int bpf_stacks_drain(const struct bpf_stacks *from, int counts_fd, struct recorder *r, struct record_stats *stats,
		     uint32_t limit, struct bpf_counts_seen *seen);
/* While the program counts: the keys of cells below `cell` (cells over,
 * that no sample adds to any more) taken out of the counts hash and to
 * the recorder, their pids noted in `pids` (keys: pid). 0, or -1 when
 * the kernel refused a batch read (the keys then stay for later). */
int bpf_stacks_drain_before(const struct bpf_stacks *from, int counts_fd, uint32_t cell, struct recorder *r,
			    struct record_stats *stats, uint32_t limit, struct hashmap *pids);

#endif
