/* record --off-cpu on the eBPF backend: offcpu.bpf.c on sched_switch sums
 * the time each stack spends blocked, in the kernel; this file loads it,
 * sets its filters and, after detaching, turns its sums into off-CPU
 * samples (record.h's contract). bpf_backend.c's loop drives it, alone or beside
 * the on-CPU sampler (--wall). Built only with libbpf. */
#include "record/bpf_offcpu.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "gen/offcpu.skel.h"
#include "record/backend.h"
#include "record/host.h"
#include "record/offcpu_abi.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert(OFFCPU_STATE_S == RECORD_OFFCPU_SLEEPING && OFFCPU_STATE_D == RECORD_OFFCPU_UNINTERRUPTIBLE,
	       "the program's state bits are --state's");

/* A user stack copied at a switch-out, waiting for its end record. With
 * --wakers, the end's struct offcpu_waker is appended to it. */
struct pending_copy {
	uint32_t tid;
	size_t len;
	struct profile_ustack *u; /* len bytes (and room for the waker) */
};

struct bpf_offcpu {
	struct offcpu_bpf *skel;
	int ncpu;
	uint64_t end_ns; /* CLOCK_MONOTONIC at detach: open blocks count to it */
	struct hashmap pending_at; /* tid -> index in pending */
	struct pending_copy *pending;
	size_t nr_pending, alloc_pending;
	uint64_t orphan_ends; /* end records without their copy: blocks lost */
	bool wakers;
	struct bpf_stacks stacks; /* profile.bpf.c's class maps, shared */
	uint32_t limit;
	/* A waker's sample (bpf_offcpu_waker): its frames, and its lost
	 * stacks, added to the run's at the end. */
	uint64_t waker_user[PROFILE_MAX_DEPTH], waker_kernel[PROFILE_MAX_DEPTH];
	char waker_comm[PROFILE_COMM_LEN + 1];
	struct record_stats waker_stats;
};

int bpf_offcpu_open(const struct record_opts *o, const struct record_target *t, const int class_fds[PROFILE_CLASSES],
		    uint32_t depth, int ring_fd, bool copy_stack, struct bpf_offcpu **out)
{
	struct bpf_offcpu *oc = calloc(1, sizeof(*oc));
	if (!oc)
		return error("out of memory");
	oc->ncpu = libbpf_num_possible_cpus();
	if (oc->ncpu <= 0)
		oc->ncpu = record_nr_cpus();
	hashmap_init(&oc->pending_at);
	oc->skel = offcpu_bpf__open();
	if (!oc->skel) {
		int e = errno;
		free(oc);
		return record_bpf_unavailable(o, "cannot open the off-CPU BPF object: %s", strerror(e));
	}
	struct offcpu_bpf__rodata *ro = oc->skel->rodata;
	ro->want_user = !o->kernel_only;
	ro->want_kernel = !o->user_only;
	ro->per_tid = o->annotate_tid;
	ro->per_cpu = o->per_cpu;
	ro->filter_pid = t->child > 0 || o->nr_pids > 0;
	ro->filter_tid = t->child <= 0 && !o->nr_pids && o->nr_tids > 0;
	ro->states = (o->off_cpu_states ? o->off_cpu_states : RECORD_OFFCPU_STATES_ALL) |
		     (o->wall ? OFFCPU_STATE_R : 0); /* --wall: waits for a CPU too */
	ro->min_ns = o->min_block_us * 1000;
	ro->max_ns = o->max_block_us * 1000;
	ro->wakers = o->wakers;
#ifdef SCORCH_TEST_HOOKS /* the test-hooks build (Makefile), tests/record/t730 */
	const char *unseen = getenv("SCORCH_TEST_UNSEEN_SWITCH_IN");
	ro->test_unseen_every = unseen ? (uint32_t)strtoul(unseen, NULL, 10) : 0;
#endif
	oc->wakers = o->wakers;
	memcpy(oc->stacks.fds, class_fds, sizeof(oc->stacks.fds));
	ro->max_depth = depth;
	oc->limit = PROFILE_MAX_DEPTH;
	ro->copy_stack = copy_stack;
	ro->copy_fp = o->unwind == RECORD_UNWIND_AUTO;
	unsigned size = record_stack_size(o);
	ro->stack_size = size < PROFILE_USTACK_MAX ? size : PROFILE_USTACK_MAX;
	bpf_map__set_max_entries(oc->skel->maps.ustack_buf, copy_stack ? (uint32_t)oc->ncpu : 1);
	/* One set of stack maps and one ring for both programs: stack ids
	 * and copies read the same way whichever program took them. */
	if (bpf_map__reuse_fd(oc->skel->maps.stacks_0, class_fds[0]) ||
	    bpf_map__reuse_fd(oc->skel->maps.stacks_1, class_fds[1]) ||
	    bpf_map__reuse_fd(oc->skel->maps.stacks_2, class_fds[2]) ||
	    bpf_map__reuse_fd(oc->skel->maps.ustacks, ring_fd)) {
		int e = errno;
		bpf_offcpu_close(oc);
		return error("cannot share the BPF maps with the off-CPU program: %s", strerror(e));
	}
	if (offcpu_bpf__load(oc->skel)) {
		int e = errno;
		bpf_offcpu_close(oc);
		if (e == EPERM || e == EACCES)
			return record_bpf_unavailable(o, "loading it is not permitted: needs root, or CAP_BPF "
						      "and CAP_PERFMON (setcap cap_bpf,cap_perfmon+ep)");
		return record_bpf_unavailable(o, "cannot load the off-CPU program (sched_switch with BTF, "
					      "Linux 5.5 or later): %s", strerror(e));
	}
	*out = oc;
	return 0;
}

/* Targets: -p processes (and what they fork), -t threads, the command
 * (from its exec: its wait for the go-ahead is scorch's, not its own);
 * nothing means every task but the idle ones. */
int bpf_offcpu_attach(struct bpf_offcpu *oc, const struct record_opts *o, const struct record_target *t)
{
	uint8_t one = 1;
	int pids = bpf_map__fd(oc->skel->maps.pids), tids = bpf_map__fd(oc->skel->maps.tids);
	if (t->child > 0) {
		uint32_t pid = (uint32_t)t->child;
		bpf_map_update_elem(bpf_map__fd(oc->skel->maps.exec_pids), &pid, &one, BPF_ANY);
	}
	for (size_t i = 0; i < o->nr_pids && t->child <= 0; i++) {
		uint32_t pid = (uint32_t)o->pids[i];
		bpf_map_update_elem(pids, &pid, &one, BPF_ANY);
	}
	for (size_t i = 0; i < o->nr_tids && t->child <= 0 && !o->nr_pids; i++) {
		uint32_t tid = (uint32_t)o->tids[i];
		bpf_map_update_elem(tids, &tid, &one, BPF_ANY);
	}
	if (offcpu_bpf__attach(oc->skel)) {
		int e = errno;
		return error("cannot attach the off-CPU BPF program to sched_switch: %s", strerror(e));
	}
	return 0;
}

void bpf_offcpu_scan_pids(struct bpf_offcpu *oc, struct recorder *r, bool refresh)
{
	bpf_scan_pids(bpf_map__fd(oc->skel->maps.counts), r, refresh);
	bpf_scan_pids(bpf_map__fd(oc->skel->maps.runnable_counts), r, refresh);
	if (oc->wakers) {
		const size_t pid_at[] = { offsetof(struct offcpu_wake_key, key.pid),
					  offsetof(struct offcpu_wake_key, waker.pid) };
		bpf_scan_key_pids(bpf_map__fd(oc->skel->maps.wake_counts), pid_at, 2, r, refresh, false);
	}
}

void bpf_offcpu_detach(struct bpf_offcpu *oc)
{
	offcpu_bpf__detach(oc->skel);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns's clock */
	oc->end_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t stat_sum(struct bpf_offcpu *oc, uint32_t idx)
{
	uint64_t *vals = calloc((size_t)oc->ncpu, sizeof(uint64_t)), sum = 0;
	if (vals && !bpf_map_lookup_elem(bpf_map__fd(oc->skel->maps.stats), &idx, vals))
		for (int i = 0; i < oc->ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

const void *bpf_offcpu_ring_record(struct bpf_offcpu *oc, const void *data, size_t *size)
{
	if (*size == sizeof(struct offcpu_end)) {
		struct offcpu_end end;
		uint32_t at;
		memcpy(&end, data, sizeof(end));
		if (!hashmap_get(&oc->pending_at, end.tid, &at) || !oc->pending[at].u ||
		    oc->pending[at].u->time != end.time) {
			oc->orphan_ends++; /* (a refused copy sends no end: never here) */
			return NULL;
		}
		struct pending_copy *pc = &oc->pending[at];
		pc->u->off_cpu_ns = end.ns;
		*size = pc->len;
		if (oc->wakers) {
			memcpy((char *)pc->u + pc->len, &end.waker, sizeof(end.waker));
			*size += sizeof(end.waker);
		}
		return pc->u;
	}
	const struct profile_ustack *u = data;
	if (*size < PROFILE_USTACK_HEAD || !u->off_cpu)
		return data; /* an on-CPU sample's */
	bool inserted;
	uint32_t *at = hashmap_upsert(&oc->pending_at, u->tid, (uint32_t)oc->nr_pending, &inserted);
	if (inserted) {
		VEC_GROW(oc->pending, oc->nr_pending + 1, oc->alloc_pending);
		oc->pending[oc->nr_pending++] = (struct pending_copy){ u->tid, 0, NULL };
	}
	/* The thread's previous copy, if any, lost its end (min/max). */
	struct pending_copy *pc = &oc->pending[*at];
	pc->u = xrealloc(pc->u, *size + sizeof(struct offcpu_waker));
	memcpy(pc->u, data, *size);
	pc->len = *size;
	return NULL;
}

/* The waker w as a sample (its frames in oc's buffers, valid until the
 * next call). */
static const struct record_sample *waker_sample(struct bpf_offcpu *oc, const struct offcpu_waker *w,
						struct record_sample *s)
{
	struct profile_key k = { w->pid, w->tid, 0, w->user_stack, w->kernel_stack, { 0 }, 0, 0 };
	memcpy(k.comm, w->comm, sizeof(k.comm));
	bpf_stacks_key_sample(&oc->stacks, &k, 1, s, oc->waker_comm, oc->waker_user, oc->waker_kernel,
			      &oc->waker_stats, oc->limit);
	if (!w->pid && !w->tid)
		s->comm = oc->waker_comm; /* the idle task's own name (swapper/N) */
	return s;
}

const struct record_sample *bpf_offcpu_waker(struct bpf_offcpu *oc, const struct profile_ustack *u, size_t size,
					     struct record_sample *s)
{
	size_t at = PROFILE_USTACK_HEAD + u->stack_len;
	if (!oc || !oc->wakers || !u->off_cpu || size < at + sizeof(struct offcpu_waker))
		return NULL;
	struct offcpu_waker w;
	memcpy(&w, (const char *)u + at, sizeof(w));
	return waker_sample(oc, &w, s);
}

/* A key's frames, read into the caller's buffers. */
struct key_frames {
	uint64_t user[PROFILE_MAX_DEPTH], kernel[PROFILE_MAX_DEPTH];
	char comm[PROFILE_COMM_LEN + 1];
};

/* --wakers: the blocked time per (stack, waker). */
static void drain_wakes(struct bpf_offcpu *oc, struct recorder *r, struct record_stats *stats, uint32_t limit)
{
	int wakes = bpf_map__fd(oc->skel->maps.wake_counts);
	struct key_frames kf;
	struct offcpu_wake_key wk, wnext;
	struct record_sample s, ws;
	const void *prev = NULL;
	while (!bpf_map_get_next_key(wakes, prev, &wnext)) {
		struct offcpu_sum sum;
		wk = wnext;
		prev = &wk;
		if (bpf_map_lookup_elem(wakes, &wk, &sum) || !sum.blocks)
			continue;
		bpf_stacks_key_sample(&oc->stacks, &wk.key, sum.blocks, &s, kf.comm, kf.user, kf.kernel, stats, limit);
		s.off_cpu = true;
		s.ns = sum.ns;
		if (wk.waker.user_stack != PROFILE_NO_STACK || wk.waker.kernel_stack != PROFILE_NO_STACK)
			s.waker = waker_sample(oc, &wk.waker, &ws);
		recorder_sample(r, &s);
	}
}

/* The blocked time per stack (runnable: --wall's waits for a CPU). */
static void drain_sums(struct bpf_offcpu *oc, int map, bool runnable, struct recorder *r,
		       struct record_stats *stats, uint32_t limit)
{
	struct key_frames kf;
	struct record_sample s;
	struct profile_key key, next;
	const void *prev = NULL;
	while (!bpf_map_get_next_key(map, prev, &next)) {
		struct offcpu_sum sum;
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(map, &key, &sum) || !sum.blocks)
			continue;
		bpf_stacks_key_sample(&oc->stacks, &key, sum.blocks, &s, kf.comm, kf.user, kf.kernel, stats, limit);
		s.off_cpu = true;
		s.runnable = runnable;
		s.ns = sum.ns;
		recorder_sample(r, &s);
	}
}

/* Threads still switched out: blocked from their switch-out to the end
 * (the minimum applies; the maximum is for finished blocks). Those whose
 * stack was copied go to copied(). */
static void drain_open(struct bpf_offcpu *oc, struct recorder *r, struct record_stats *stats, uint32_t limit,
		       void (*copied)(void *arg, const void *data, size_t len), void *arg)
{
	int start = bpf_map__fd(oc->skel->maps.start);
	struct key_frames kf;
	struct record_sample s;
	uint32_t tid, next_tid;
	const void *prev = NULL;
	while (!bpf_map_get_next_key(start, prev, &next_tid)) {
		struct offcpu_start st;
		tid = next_tid;
		prev = &tid;
		if (bpf_map_lookup_elem(start, &tid, &st) || st.time > oc->end_ns)
			continue;
		uint64_t ns = oc->end_ns - st.time;
		if (ns < oc->skel->rodata->min_ns) {
			stats->offcpu_filtered++;
			continue;
		}
		stats->offcpu_open++;
		uint32_t at;
		if (st.copied && hashmap_get(&oc->pending_at, tid, &at) && oc->pending[at].u &&
		    oc->pending[at].u->time == st.time) {
			oc->pending[at].u->off_cpu_ns = ns;
			copied(arg, oc->pending[at].u, oc->pending[at].len);
			continue;
		}
		bpf_stacks_key_sample(&oc->stacks, &st.key, 1, &s, kf.comm, kf.user, kf.kernel, stats, limit);
		s.off_cpu = true;
		s.runnable = st.runnable;
		s.ns = ns;
		recorder_sample(r, &s);
	}
}

void bpf_offcpu_drain(struct bpf_offcpu *oc, struct recorder *r, struct record_stats *stats, uint32_t limit,
		      void (*copied)(void *arg, const void *data, size_t len), void *arg)
{
	oc->limit = limit;
	if (oc->wakers)
		drain_wakes(oc, r, stats, limit);
	drain_sums(oc, bpf_map__fd(oc->skel->maps.counts), false, r, stats, limit);
	drain_sums(oc, bpf_map__fd(oc->skel->maps.runnable_counts), true, r, stats, limit);
	drain_open(oc, r, stats, limit, copied, arg);
	stats->offcpu_filtered += stat_sum(oc, OFFCPU_STAT_FILTERED);
	stats->lost += stat_sum(oc, OFFCPU_STAT_COUNTS_FULL) + stat_sum(oc, OFFCPU_STAT_START_FULL) + oc->orphan_ends;
	stats->copy_full += stat_sum(oc, OFFCPU_STAT_COPY_FULL) + stat_sum(oc, OFFCPU_STAT_END_FULL);
	stats->offcpu_unseen_in += stat_sum(oc, OFFCPU_STAT_IN_UNSEEN);
	stats->collisions += oc->waker_stats.collisions;
	stats->map_full += oc->waker_stats.map_full;
}

void bpf_offcpu_close(struct bpf_offcpu *oc)
{
	if (!oc)
		return;
	offcpu_bpf__destroy(oc->skel);
	for (size_t i = 0; i < oc->nr_pending; i++)
		free(oc->pending[i].u);
	free(oc->pending);
	hashmap_release(&oc->pending_at);
	free(oc);
}
