/* The collector of scorch record (recorder.h): what the backends feed.
 * Raw samples are unwound (DWARF, from the stack copy) and aggregated by
 * content into distinct stacks; the process table (names, maps: the
 * backends' comm, fork and mmap events) is processes.c's. naming.c turns
 * the stacks into the profile. */
#include "record/recorder.h"

#include "addrspace/procmaps.h"
#include "addrspace/unwind.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "record/naming.h"
#include "record/recorder_impl.h"
#include "record/runtime.h"
#include "record/symbols.h"

#include <stdlib.h>
#include <string.h>

/* Frames a DWARF unwind gives at most without --max-stack: the stack copy
 * is the real bound (a 16 KiB copy holds a few hundred frames); the
 * kernel's frame-pointer walk stops at 127. */
enum { UNWIND_MAX_FRAMES = 1024 };

static void recorder_init(struct recorder *r, const struct record_opts *opts)
{
	memset(r, 0, sizeof(*r));
	r->opts = opts;
	procmaps_init(&r->maps);
	r->maps.recycle = true; /* frames are kept as image refs (recorder_reap) */
	images_init(&r->images);
	hashmap_init(&r->exiting);
	strpool_init(&r->comms);
	hashmap_init(&r->comm_by_tid);
	hashmap_init(&r->by_hash);
	if (opts->unwind != RECORD_UNWIND_FP && !opts->kernel_only)
		r->unwinder = unwinder_new();
	r->user_syms = symbols_new_user(opts->force, opts->no_debuginfod, !opts->quiet);
	hashmap_init(&r->named);
	strpool_init(&r->name_text);
	r->runtimes = runtime_set_open(opts, NULL, 0);
	if (opts->keep_time && !opts->off_cpu)
		r->times = time_cells_new();
	hashmap_init(&r->looked);
}

const char *recorder_unwind_note(const struct recorder *r)
{
	if (r->opts->unwind == RECORD_UNWIND_FP || r->opts->kernel_only || r->unwinder)
		return NULL;
	return "scorch was built without elfutils (libdw): user stacks are walked with frame "
	       "pointers only, and code built without them loses its callers";
}

bool recorder_unwinds(const struct recorder *r)
{
	return r->unwinder != NULL;
}

struct recorder *recorder_new(const struct record_opts *opts, const char *proc_root)
{
	struct recorder *r = xmalloc(sizeof(*r));
	recorder_init(r, opts);
	if (proc_root)
		r->maps.proc_root = proc_root;
	return r;
}

static void recorder_release(struct recorder *r);

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	recorder_release(r);
	free(r);
}

static void recorder_release(struct recorder *r)
{
	procmaps_release(&r->maps);
	images_release(&r->images);
	free(r->gone);
	hashmap_release(&r->exiting);
	free(r->free_look);
	strpool_release(&r->comms);
	hashmap_release(&r->comm_by_tid);
	hashmap_release(&r->by_hash);
	free(r->stacks);
	free(r->folded_leaves);
	free(r->frames);
	free(r->scratch);
	free(r->tokens);
	free(r->events);
	time_cells_free(r->times);
	free(r->unwound);
	free(r->unwound_fp);
	free(r->inlines);
	unwinder_free(r->unwinder);
	symbols_free(r->user_syms);
	hashmap_release(&r->named);
	free(r->names);
	strpool_release(&r->name_text);
	naming_builder_free(r->builder);
	runtime_set_close(r->runtimes);
	hashmap_release(&r->looked);
	free(r->look);
}

void recorder_use_runtimes(struct recorder *r, const struct record_runtime *const *table, size_t nr)
{
	runtime_set_close(r->runtimes);
	r->runtimes = runtime_set_open(r->opts, table, nr);
}

uint64_t recorder_samples(const struct recorder *r)
{
	return r->samples;
}

void recorder_build(struct recorder *r, struct profile *p)
{
	struct symbols *syms = symbols_new();
	runtime_set_end(r->runtimes);
	naming_build_all(r, p, syms);
	symbols_free(syms);
}

void recorder_build_early(struct recorder *r, struct profile *p, struct symbols *kernel_syms,
			  const atomic_bool *kernel_ready)
{
	r->out = p;
	r->kernel_syms = kernel_syms;
	naming_build_early(r, p, kernel_syms, kernel_ready);
	recorder_intervals_begin(r);
}

bool recorder_sampling_ended(struct recorder *r)
{
	runtime_set_sampling_end(r->runtimes);
	return runtime_set_await_exit(r->runtimes);
}

static void add_perfmap(void *arg, uint32_t pid, const char *text, size_t len)
{
	struct recorder *r = arg;
	symbols_add_perfmap(r->user_syms, pid, text, len);
}

/* The distinct stacks once named: raw stacks that differ only where the
 * names do not (two return addresses in one function) share a leaf. */
static uint64_t count_named(const struct recorder *r, const struct profile *p)
{
	uint8_t *seen = xcalloc(p->nr ? p->nr : 1, 1);
	uint64_t n = 0;
	for (node_t leaf = 0; leaf < p->nr; leaf++) /* (stacks folded while sampling ran) */
		if (recorder_folded_leaf(r, leaf)) {
			seen[leaf] = 1;
			n++;
		}
	for (uint32_t i = 0; i < r->nr_stacks; i++) {
		node_t leaf = r->stacks[i].leaf;
		if (leaf && leaf < p->nr && !seen[leaf]) {
			seen[leaf] = 1;
			n++;
		}
	}
	free(seen);
	return n;
}

void recorder_finish(struct recorder *r, struct profile *p, struct symbols *kernel_syms,
		     struct record_stats *stats)
{
	runtime_set_end(r->runtimes);
	runtime_set_perfmaps(r->runtimes, add_perfmap, r);
	naming_build_all(r, p, kernel_syms);
	runtime_set_summary(r->runtimes, stats->runtimes, sizeof(stats->runtimes));
	stats->samples = r->samples;
	stats->offcpu_blocks = r->blocks;
	stats->offcpu_seconds = (double)r->block_ns / 1e9;
	stats->offcpu_waits = r->waits;
	stats->offcpu_wait_seconds = (double)r->wait_ns / 1e9;
	stats->unique = r->nr_stacks + r->nr_folded;
	stats->named = count_named(r, p);
	stats->built_late = r->nr_built_late;
	stats->user_samples = r->user_samples;
	stats->reached = r->reached;
	stats->unwound = r->nr_unwound;
	stats->interval_start_ns = r->interval_start;
	stats->intervals = r->intervals;
}

static bool same_stack(const struct recorder *r, const struct rstack *s, const struct rstack *k,
		       const uint64_t *frames)
{
	return s->pid == k->pid && s->tid == k->tid && s->cpu == k->cpu && s->comm == k->comm &&
	       s->nr_user == k->nr_user && s->nr_kernel == k->nr_kernel && s->nr_dwarf == k->nr_dwarf &&
	       s->flags == k->flags &&
	       s->waker_pid == k->waker_pid && s->waker_comm == k->waker_comm &&
	       s->nr_waker_user == k->nr_waker_user && s->nr_waker_kernel == k->nr_waker_kernel &&
	       s->runtime == k->runtime && s->nr_tokens == k->nr_tokens &&
	       (!rstack_frames(k) || !memcmp(r->frames + s->frames, frames, rstack_frames(k) * sizeof(uint64_t)));
}

/* A DWARF-unwound stack d (n frames) continued along the frame-pointer
 * chain f where the two meet: code with frame pointers but no CFI (some
 * JIT code), or a stack deeper than the copy, keeps its callers. */
static uint32_t join_chains(uint64_t *d, uint32_t n, const uint64_t *f, uint32_t m, uint32_t cap)
{
	for (uint32_t j = 0; j < m; j++) {
		if (f[j] != d[n - 1])
			continue;
		while (++j < m && n < cap)
			d[n++] = f[j];
		break;
	}
	return n;
}

/* The file a live process maps: the path itself (record reads the files
 * where they are while the processes run). */
static bool mapped_file(void *maps, const struct mapping *m, struct unwind_source *src)
{
	const struct procmaps *pm = maps;
	*src = (struct unwind_source){ .key = m->path, .path = strpool_str(&pm->paths, m->path) };
	return true;
}

/* A sample's user part: its frame-pointer chain, or what DWARF unwinding
 * of its stack copy gives (continued along the chain where they meet). */
struct user_part {
	const uint64_t *frames;
	uint32_t nr, nr_dwarf;
	bool complete, truncated;
};

static void unwind_user(struct recorder *r, const struct record_sample *smp, struct user_part *u)
{
	const struct record_opts *o = r->opts;
	*u = (struct user_part){ smp->user, o->kernel_only ? 0 : smp->nr_user, 0, false, smp->user_truncated };
	if (!r->unwinder || !smp->regs_abi || !smp->pid || o->kernel_only)
		return;
	/* --max-stack, else deeper than the kernel's frame-pointer walk:
	 * the stack copy is the real bound. */
	uint32_t limit = o->max_stack ? o->max_stack : UNWIND_MAX_FRAMES;
	VEC_GROW(r->unwound, limit, r->nr_unwound_alloc);
	VEC_GROW(r->unwound_fp, limit, r->nr_unwound_fp_alloc);
	struct unwind_stack us = { smp->regs_abi, smp->regs_mask, smp->regs, smp->stack, smp->stack_len,
				   smp->stack_holes };
	int n = unwind_user_stack_fp(r->unwinder, &r->maps, procmaps_space_of(&r->maps, smp->pid), &us, mapped_file,
				     &r->maps, r->unwound, r->unwound_fp, (int)limit, &u->complete);
	if (n <= 0)
		return;
	r->nr_unwound++;
	u->nr = u->complete ? (uint32_t)n : join_chains(r->unwound, (uint32_t)n, smp->user, smp->nr_user, limit);
	u->frames = r->unwound;
	u->nr_dwarf = (uint32_t)n;
	u->truncated = !u->complete && (u->nr >= limit || (u->nr > (uint32_t)n && smp->user_truncated));
}

/* The key of s's stack, all but its frames and hash. */
static struct rstack stack_key(struct recorder *r, const struct record_sample *smp, const struct user_part *u,
			       const struct record_sample *w)
{
	const struct record_opts *o = r->opts;
	struct rstack k = { 0 };
	k.tid = o->annotate_tid ? smp->tid : 0;
	k.pid = o->annotate_pid || o->annotate_tid ? smp->pid : 0;
	k.cpu = o->per_cpu ? smp->cpu : 0;
	k.comm = smp->comm ? recorder_intern_comm(r, smp->comm) : recorder_comm_of(r, smp->pid, smp->tid);
	k.nr_user = u->nr;
	k.nr_kernel = o->user_only ? 0 : smp->nr_kernel;
	k.nr_dwarf = u->nr_dwarf < u->nr ? u->nr_dwarf : u->nr;
	k.flags = (smp->user_missing && !o->kernel_only ? STACK_USER_MISSING : 0) |
		  (smp->kernel_missing && !o->user_only ? STACK_KERNEL_MISSING : 0) |
		  (u->truncated && !o->kernel_only ? STACK_USER_TRUNCATED : 0) |
		  (smp->kernel_truncated && !o->user_only ? STACK_KERNEL_TRUNCATED : 0) |
		  (u->complete && u->nr ? STACK_USER_COMPLETE : 0) |
		  (smp->off_cpu ? STACK_OFF_CPU : 0) | (smp->off_cpu && smp->runnable ? STACK_RUNNABLE : 0);
	if (w) {
		k.flags |= STACK_WAKER;
		k.waker_pid = o->annotate_pid || o->annotate_tid ? w->pid : 0;
		k.waker_comm = w->comm ? recorder_intern_comm(r, w->comm) : recorder_comm_of(r, w->pid, w->tid);
		k.nr_waker_user = o->kernel_only ? 0 : w->nr_user;
		k.nr_waker_kernel = o->user_only ? 0 : w->nr_kernel;
	}
	return k;
}

/* Frames into r->scratch as the store keeps them (rstack's comment):
 * callers' return addresses moved back by one byte. */
static void scratch_frames(struct recorder *r, const struct record_sample *smp, const struct user_part *u,
			   const struct record_sample *w, const struct rstack *k)
{
	uint32_t nr_user = k->nr_user, nr_kernel = k->nr_kernel;
	uint32_t n = rstack_frames(k);
	/* never NULL, even for a stack with no frames: wf below is an offset from it */
	VEC_GROW(r->scratch, n ? n : 1, r->alloc_scratch);
	for (uint32_t i = 0; i < nr_user; i++) {
		uint64_t a = u->frames[i];
		r->scratch[i] = images_ref(&r->images, &r->maps, smp->pid, i && a ? a - 1 : a);
	}
	for (uint32_t i = 0; i < nr_kernel; i++) {
		uint64_t a = smp->kernel[i];
		r->scratch[nr_user + i] = i && a ? a - 1 : a;
	}
	if (k->nr_waker_user && !procmaps_was_read(&r->maps, w->pid))
		procmaps_read(&r->maps, w->pid);
	uint64_t *wf = r->scratch + nr_user + nr_kernel;
	for (uint32_t i = 0; i < k->nr_waker_user; i++) {
		uint64_t a = w->user[i];
		wf[i] = images_ref(&r->images, &r->maps, w->pid, i && a ? a - 1 : a);
	}
	for (uint32_t i = 0; i < k->nr_waker_kernel; i++) {
		uint64_t a = w->kernel[i];
		wf[k->nr_waker_user + i] = i && a ? a - 1 : a;
	}
	if (k->nr_tokens)
		memcpy(wf + k->nr_waker_user + k->nr_waker_kernel, r->tokens, k->nr_tokens * sizeof(uint64_t));
}

/* The frame pointer of each of u's frames (0: unknown), for a runtime
 * that reads its frames' slots (runtime.h: runtime_sample.user_fp). */
static const uint64_t *user_fps(struct recorder *r, const struct record_sample *smp, const struct user_part *u)
{
	if (!u->nr || !smp->stack_len)
		return NULL;
	VEC_GROW(r->unwound_fp, u->nr, r->nr_unwound_fp_alloc);
	struct unwind_stack us = { smp->regs_abi, smp->regs_mask, smp->regs, smp->stack, smp->stack_len,
				   smp->stack_holes };
	unwind_frame_pointers(&us, u->frames, u->nr, r->unwound_fp, u->nr_dwarf < u->nr ? u->nr_dwarf : u->nr);
	return r->unwound_fp;
}

/* The tokens of the runtime that owns smp's process, if any, into
 * r->tokens (runtime.h's sample hook). */
static void runtime_tokens(struct recorder *r, const struct record_sample *smp, const struct user_part *u,
			   struct rstack *k)
{
	if (smp->off_cpu) /* no runtime read its frames as it blocked */
		return;
	k->runtime = runtime_set_owner(r->runtimes, smp->pid);
	if (!k->runtime)
		return;
	if (!r->tokens)
		r->tokens = xmalloc(RUNTIME_MAX_TOKENS * sizeof(uint64_t));
	struct runtime_sample rs = { smp->pid, smp->tid, smp->time, u->frames, u->nr, smp->regs_abi, smp->regs_mask,
				     smp->regs, smp->stack, smp->stack_len, smp->payload, smp->payload_len,
				     user_fps(r, smp, u), smp->stack_holes };
	k->nr_tokens = runtime_set_sample(r->runtimes, &rs, r->tokens, RUNTIME_MAX_TOKENS);
	if (!k->nr_tokens)
		k->runtime = 0;
}

/* The index of k (frames in r->scratch), stored now if new. */
static uint32_t intern_stack(struct recorder *r, struct rstack *k, uint32_t pid, bool waker)
{
	uint32_t n = rstack_frames(k);
	uint64_t h = n ? hash_bytes(r->scratch, n * sizeof(uint64_t)) : 0;
	h = hash_mix(h ^ ((uint64_t)k->pid << 32 | k->tid),
		     hash_u64((uint64_t)k->cpu << 32 | k->comm) ^ k->flags ^ (uint64_t)k->nr_dwarf << 32);
	if (waker)
		h = hash_mix(h, (uint64_t)k->waker_pid << 32 | k->waker_comm);
	if (k->runtime)
		h = hash_mix(h, (uint64_t)k->runtime << 32 | k->nr_tokens);
	k->hash = h;
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		bool inserted;
		uint32_t *slot = hashmap_upsert(&r->by_hash, probe, r->nr_stacks, &inserted);
		if (inserted) {
			if (n) { /* an empty stack (no frames at all) has no storage */
				VEC_GROW(r->frames, r->nr_frames + n, r->alloc_frames);
				memcpy(r->frames + r->nr_frames, r->scratch, n * sizeof(uint64_t));
			}
			k->frames = r->nr_frames;
			r->nr_frames += n;
			VEC_GROW(r->stacks, r->nr_stacks + 1, r->alloc_stacks);
			uint32_t idx = r->nr_stacks++;
			for (uint32_t i = 0; i < k->nr_user; i++)
				k->later |= !naming_preload_user(r, pid, r->scratch[i], i < k->nr_dwarf);
			k->later |= k->nr_tokens > 0; /* the runtime names them at the end */
			r->stacks[idx] = *k;
			naming_build_ready(r);
			return idx;
		}
		if (same_stack(r, &r->stacks[*slot], k, r->scratch))
			return *slot;
	}
}

uint32_t recorder_stack(struct recorder *r, const struct record_sample *smp)
{
	const struct record_opts *o = r->opts;
	uint32_t nr_user = o->kernel_only ? 0 : smp->nr_user;
	if ((nr_user || smp->regs_abi) && smp->pid && !procmaps_was_read(&r->maps, smp->pid))
		procmaps_read(&r->maps, smp->pid);
	recorder_meet(r, smp->pid, false);
	struct user_part u;
	unwind_user(r, smp, &u);
	const struct record_sample *w = o->wakers ? smp->waker : NULL;
	struct rstack k = stack_key(r, smp, &u, w);
	runtime_tokens(r, smp, &u, &k);
	scratch_frames(r, smp, &u, w, &k);
	return intern_stack(r, &k, smp->pid, w != NULL);
}

void recorder_count(struct recorder *r, uint32_t stack, uint64_t weight, uint64_t ns)
{
	struct rstack *s = &r->stacks[stack];
	bool off_cpu = s->flags & STACK_OFF_CPU;
	s->count += weight;
	r->samples += weight;
	if (r->opts->off_cpu) /* time: a block's, or an on-CPU sample's period (--wall) */
		s->ns += off_cpu ? ns : weight * (uint64_t)(1e9 / r->opts->freq);
	if (off_cpu && (s->flags & STACK_RUNNABLE)) { /* a wait for a CPU, not a block */
		r->waits += weight;
		r->wait_ns += ns;
	} else if (off_cpu) {
		r->blocks += weight;
		r->block_ns += ns;
	}
}

void recorder_sample(struct recorder *r, const struct record_sample *smp)
{
	if (r->cut_mono && smp->time >= r->cut_mono)
		recorder_advance(r, smp->time); /* (samples come in time order) */
	if (recorder_fold_due(r))
		recorder_fold(r); /* (before the sample's stack: indices change) */
	uint32_t idx = recorder_stack(r, smp);
	recorder_count(r, idx, smp->weight, smp->ns);
	/* One event a sample: a count read back from the BPF backend's
	 * (time cell, stack) keys stands for `weight` samples of that time. */
	for (uint64_t n = 0; (r->opts->keep_order || r->opts->time_ranges) && n < smp->weight; n++) {
		VEC_GROW(r->events, r->nr_events + 1, r->alloc_events);
		r->events[r->nr_events] = (struct order_event){ smp->time, idx, (uint32_t)r->nr_events };
		r->nr_events++;
	}
	if (r->times) {
		if (smp->time)
			time_cells_note(r->times, idx, smp->time, smp->weight);
		else
			r->untimed = true;
	}
}
