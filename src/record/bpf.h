/* Between the eBPF backend's loader (bpf.c) and its off-CPU part
 * (bpf_offcpu.c). Built only with libbpf. */
#ifndef SCORCH_RECORD_BPF_H
#define SCORCH_RECORD_BPF_H

#include "base/hashmap.h"
#include "record/profile_abi.h"
#include "record/recorder.h"
#include "record/target.h"

/* bpf_stacks.c: capture the maps of the processes in a counts hash keyed
 * by struct profile_key: new pids only, or every live one again when
 * refreshing (keys repeat a pid: one read per scan). */
void bpf_scan_pids(int counts_fd, struct recorder *r, bool refresh);
/* The same for any hash whose keys hold pids at the offsets pid_at;
 * take: the entries are taken out of the map as they are read. */
void bpf_scan_key_pids(int fd, const size_t *pid_at, size_t nr_pid_at, struct recorder *r, bool refresh,
		       bool take);
/* bpf_stacks.c: maps read back. fn(arg, key, value) for every entry of
 * a hash map, read in batches (a few system calls for thousands of
 * entries), taken out of the map with `take`; 0, or -1 when the kernel
 * refused (entries seen until then were passed). */
int bpf_map_each(int fd, bool take, void (*fn)(void *arg, const void *key, const void *value), void *arg);

/* Stacks read back from the maps. A cache of stacks by a
 * 64-bit key (the caller's: a stack id, or a map and an id), each its
 * frame count then its frames. */
struct bpf_stack_cache {
	struct hashmap at; /* key -> index of the count in frames */
	uint64_t *frames;
	size_t nr, alloc;
};
void bpf_stack_cache_init(struct bpf_stack_cache *c);
void bpf_stack_cache_release(struct bpf_stack_cache *c);
/* The frames under key (*nr of them), NULL when absent; valid until the
 * next put. */
const uint64_t *bpf_stack_cache_get(const struct bpf_stack_cache *c, uint64_t key, uint32_t *nr);
const uint64_t *bpf_stack_cache_put(struct bpf_stack_cache *c, uint64_t key, const uint64_t *ips, uint32_t nr);
/* Every stack of a hash map of u32 stack ids to `frames` zero-filled
 * frames, read in batches, under its id; 0, or -1 when the kernel refused. */
int bpf_stack_cache_load(struct bpf_stack_cache *c, int fd, uint32_t frames);
/* Frames before the first zero, at most `frames`. */
uint32_t bpf_stack_depth(const uint64_t *ips, uint32_t frames);

/* Where stack ids are resolved: the cache first when there is one, else
 * the map fds[id >> PROFILE_CLASS_SHIFT]. */
struct bpf_stacks {
	int fds[PROFILE_CLASSES];
	const struct bpf_stack_cache *cache;
};
/* The sample a counts key stands for, its frames read into user[] and
 * kernel[] (PROFILE_MAX_DEPTH each) unless cached, comm into comm[]; a
 * stack lost to a collision or a full map is marked and counted (count
 * samples) in stats. */
void bpf_stacks_key_sample(const struct bpf_stacks *from, const struct profile_key *key, uint64_t count,
			   struct record_sample *s, char comm[PROFILE_COMM_LEN + 1], uint64_t *user, uint64_t *kernel,
			   struct record_stats *stats, uint32_t limit);
/* Every key of a counts hash (struct profile_key -> u64 samples), read in
 * batches, to the recorder (stats->in_kernel adds them up); 0, or -1
 * when the kernel refused a batch read. */
int bpf_stacks_drain(const struct bpf_stacks *from, int counts_fd, struct recorder *r, struct record_stats *stats,
		     uint32_t limit);

/* --off-cpu: offcpu.bpf.c on sched_switch, beside (--wall) or instead of
 * profile.bpf.c's sampling. Each returns 0, or -1 after an error;
 * bpf_offcpu_open returns -2 when the program cannot load here (BPF
 * unavailable: the driver falls back to perf). */
struct bpf_offcpu;
/* The program shares profile.bpf.c's stack maps (class_fds) and
 * user-stack ring; depth: frames kept per stack (--max-stack);
 * copy_stack: DWARF, user stacks copied out at switch-out. */
int bpf_offcpu_open(const struct record_opts *o, const struct record_target *t, const int class_fds[PROFILE_CLASSES],
		    uint32_t depth, int ring_fd, bool copy_stack, struct bpf_offcpu **out);
/* Target filters and attachment, before the command is released. */
int bpf_offcpu_attach(struct bpf_offcpu *oc, const struct record_opts *o, const struct record_target *t);
/* bpf_scan_pids over its counts (and blocked and waking pids). */
void bpf_offcpu_scan_pids(struct bpf_offcpu *oc, struct recorder *r, bool refresh);
/* Detach (the end of sampling: threads still switched out count to now). */
void bpf_offcpu_detach(struct bpf_offcpu *oc);
/* A record from the shared ring: an on-CPU sample's copy (returned as
 * is), a blocked thread's copy (kept: NULL), or the end of its block (the
 * copy, off_cpu_ns set, *size its length; NULL when its copy is unknown). */
const void *bpf_offcpu_ring_record(struct bpf_offcpu *oc, const void *data, size_t *size);
/* --wakers: the waker a completed copy (size bytes, from
 * bpf_offcpu_ring_record) carries, as a sample in s; else NULL. */
const struct record_sample *bpf_offcpu_waker(struct bpf_offcpu *oc, const struct profile_ustack *u, size_t size,
					     struct record_sample *s);
/* The blocked time, per stack, to the recorder; statistics to stats.
 * Threads still blocked whose stack was copied go to copied(). */
void bpf_offcpu_drain(struct bpf_offcpu *oc, struct recorder *r, struct record_stats *stats, uint32_t limit,
		      void (*copied)(void *arg, const void *data, size_t len), void *arg);
void bpf_offcpu_close(struct bpf_offcpu *oc);

#endif
