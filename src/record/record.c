/* Backend-neutral part of scorch record: the collector the backends feed
 * (raw stacks, aggregated by content), the common stop condition, and the
 * step that symbolizes each distinct stack once into the profile (while
 * sampling runs, or at the end), then counts. */
#include "record/record.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "profile/frame_rules.h"
#include "profile/frame_sites.h"
#include "addrspace/procmaps.h"
#include "record/symbols.h"
#include "symbolize/symbolize.h" /* struct sym_inline */
#include "addrspace/unwind.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
	STACK_USER_MISSING = 1,
	STACK_KERNEL_MISSING = 2,
	STACK_USER_TRUNCATED = 4,
	STACK_KERNEL_TRUNCATED = 8,
	STACK_USER_COMPLETE = 16,
	STACK_OFF_CPU = 32,          /* --wall: time switched out, not a sample */
	STACK_WAKER = 64,            /* --wakers: the waker's frames follow */
	STACK_RUNNABLE = 128,        /* --wall: switched out runnable, waiting for a CPU */
};

/* One distinct raw stack. Frames live in recorder.frames: the user part
 * (procmaps refs, leaf first) then the kernel part (addresses, leaf
 * first); callers' return addresses are already moved back by one byte so
 * they land inside the calling function. */
struct rstack {
	uint64_t hash;
	uint64_t count;
	uint64_t ns;                 /* --off-cpu/--wall: time this stack stands for */
	uint32_t pid, tid, cpu, comm;
	uint32_t nr_user, nr_kernel;
	uint32_t nr_dwarf;           /* leading user frames unwound with DWARF */
	/* --wakers: who woke the thread; its user part, then its kernel
	 * part, follow the thread's frames (leaf first too). */
	uint32_t waker_pid, waker_comm, nr_waker_user, nr_waker_kernel;
	size_t frames;
	uint32_t flags;
	node_t leaf;                 /* its profile node once built, else 0 */
	bool later;                  /* goes through code named at the end (JIT) */
	bool has_user, reached;      /* set when built: a user part, reaching a thread's start */
};

static uint32_t rstack_frames(const struct rstack *s)
{
	return s->nr_user + s->nr_kernel + s->nr_waker_user + s->nr_waker_kernel;
}

struct order_event {
	uint64_t time;
	uint32_t stack;
	uint32_t seq;
};

struct recorder {
	const struct record_opts *opts;
	struct procmaps maps;
	struct strpool comms;
	struct hashmap comm_by_tid; /* tid -> comms id */
	struct rstack *stacks;
	uint32_t nr_stacks, alloc_stacks;
	struct hashmap by_hash;     /* hash -> stacks index (probing on clash) */
	uint64_t *frames;
	size_t nr_frames, alloc_frames;
	uint64_t *scratch;          /* one sample's frames */
	size_t alloc_scratch;
	struct order_event *events; /* keep_order only */
	size_t nr_events, alloc_events;
	uint64_t samples;
	uint64_t blocks, block_ns;  /* the off-CPU part of samples, and its time */
	uint64_t waits, wait_ns;    /* --wall: the runnable part of samples, and its time */
	struct unwinder *unwinder; /* NULL: frame pointers only */
	/* User frames are named from here; each file's symbols are read the
	 * first time one of its addresses enters a new stack, while sampling
	 * runs, so that little is left to do when it ends. */
	struct symbols *user_syms;
	struct hashmap named;       /* user ref -> index in names, or NAMED_LATER */
	struct user_name {
		const char *name, *module; /* owned by user_syms */
		uint32_t inlines, nr_inlines; /* a DWARF frame's expansion, in inlines */
	} *names;
	size_t nr_names, alloc_names;
	struct sym_inline *inlines; /* names owned by user_syms, innermost first */
	size_t nr_inlines, alloc_inlines;
	uint64_t *unwound;          /* one sample's DWARF-unwound frames */
	size_t nr_unwound_alloc;
	uint64_t nr_unwound;        /* samples unwound with DWARF */
	uint64_t user_samples, reached; /* set by build_profile */
	/* Stacks become profile nodes while sampling runs, as they come in
	 * (recorder_build_early), once the kernel's symbols are loaded; those
	 * through JIT code wait for the end, when its names are known. */
	struct builder *builder;    /* NULL: everything is built at the end */
	const atomic_bool *kernel_ready;
	uint32_t nr_examined;       /* stacks built early or left for the end */
	uint32_t nr_built_late;     /* stacks built after sampling ended */
};

/* Frames a DWARF unwind gives at most without --max-stack: the stack copy
 * is the real bound (a 16 KiB copy holds a few hundred frames); the
 * kernel's frame-pointer walk stops at 127. */
enum { UNWIND_MAX_FRAMES = 1024 };

double record_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void mark_stopped(struct record_phases *ph)
{
	ph->stopped_wall = ph->last_wall = record_now();
	ph->stopped_cpu = ph->last_cpu = record_cpu_now();
}

void record_phase(struct record_phases *ph, const char *what)
{
	if (!ph->stopped_wall)
		return; /* sampling has not ended */
	double wall = record_now(), cpu = record_cpu_now();
	struct record_phase *at = ph->nr ? &ph->at[ph->nr - 1] : NULL;
	if (!at || (strcmp(at->what, what) && ph->nr < RECORD_MAX_PHASES)) {
		at = &ph->at[ph->nr++];
		*at = (struct record_phase){ what, 0, 0 };
	}
	at->wall += wall - ph->last_wall;
	at->cpu += cpu - ph->last_cpu;
	ph->last_wall = wall;
	ph->last_cpu = cpu;
}

double record_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void recorder_init(struct recorder *r, const struct record_opts *opts)
{
	memset(r, 0, sizeof(*r));
	r->opts = opts;
	procmaps_init(&r->maps);
	strpool_init(&r->comms);
	hashmap_init(&r->comm_by_tid);
	hashmap_init(&r->by_hash);
	if (opts->unwind != RECORD_UNWIND_FP && !opts->kernel_only)
		r->unwinder = unwinder_new();
	r->user_syms = symbols_new();
	hashmap_init(&r->named);
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
static void builder_free(struct builder *b);

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
	strpool_release(&r->comms);
	hashmap_release(&r->comm_by_tid);
	hashmap_release(&r->by_hash);
	free(r->stacks);
	free(r->frames);
	free(r->scratch);
	free(r->events);
	free(r->unwound);
	free(r->inlines);
	unwinder_free(r->unwinder);
	symbols_free(r->user_syms);
	hashmap_release(&r->named);
	free(r->names);
	builder_free(r->builder);
}

static uint32_t intern_comm(struct recorder *r, const char *comm)
{
	size_t n = strnlen(comm, 16);
	return strpool_intern(&r->comms, comm, n);
}

void recorder_comm(struct recorder *r, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	bool inserted;
	uint32_t id = intern_comm(r, comm);
	*hashmap_upsert(&r->comm_by_tid, tid, id, &inserted) = id;
	if (exec)
		procmaps_exec(&r->maps, pid);
}

static void build_profile(struct recorder *r, struct profile *p, struct symbols *kernel_syms);
static void build_ready(struct recorder *r);
static uint32_t comm_of(struct recorder *r, uint32_t pid, uint32_t tid);

/* The symbolizer's view of the mapping a user ref fell in. */
static const struct symbols_map *user_map(const struct recorder *r, const struct mapping *m, uint32_t pid,
					  uint64_t ref, struct symbols_map *sm)
{
	*sm = (struct symbols_map){ (uint32_t)((ref >> PROCMAPS_REF_SHIFT) - 1), m->pid ? m->pid : pid, m->start,
				    m->end, m->pgoff, strpool_str(&r->maps.paths, m->path),
				    m->start + procmaps_ref_offset(ref) };
	return sm;
}

/* A user frame of a new stack: read its file's symbols now, while
 * sampling (JIT maps are read at the end: they grow as code is made). */
enum { NAMED_LATER = UINT32_MAX - 1 };

/* The key of a DWARF-unwound frame in the named and user_cache maps:
 * perf expands the inlined functions of those frames only (refs use
 * bits 0-62). */
#define DWARF_FRAME_KEY (1ull << 63)

/* A DWARF-unwound frame's inlined functions, as report expands them:
 * copied into r->inlines (the symbolizer's array moves); none with
 * --no-inline. */
static void note_inlines(struct recorder *r, const struct symbols_map *sm, struct user_name *un)
{
	if (r->opts->no_inline)
		return;
	const struct sym_inline *chain;
	int n = symbols_user_inlines(r->user_syms, sm, sm->addr, &chain);
	un->inlines = (uint32_t)r->nr_inlines;
	un->nr_inlines = n > 0 ? (uint32_t)n : 0;
	VEC_GROW(r->inlines, r->nr_inlines + un->nr_inlines, r->alloc_inlines);
	for (uint32_t i = 0; i < un->nr_inlines; i++)
		r->inlines[r->nr_inlines++] = chain[i];
}

static bool preload_user(struct recorder *r, uint32_t pid, uint64_t ref, bool dwarf) /* false: named at the end */
{
	const struct mapping *m = procmaps_ref_mapping(&r->maps, ref);
	bool inserted;
	if (!m)
		return true;
	uint32_t *slot = hashmap_upsert(&r->named, dwarf ? ref | DWARF_FRAME_KEY : ref, NAMED_LATER, &inserted);
	if (!inserted)
		return *slot != NAMED_LATER;
	struct symbols_map sm;
	struct user_name un = { 0 };
	if (!symbols_user_preload(r->user_syms, user_map(r, m, pid, ref, &sm), &un.name, &un.module))
		return false;
	if (dwarf)
		note_inlines(r, &sm, &un);
	VEC_GROW(r->names, r->nr_names + 1, r->alloc_names);
	r->names[r->nr_names] = un;
	*slot = (uint32_t)r->nr_names++;
	return true;
}

uint64_t recorder_samples(const struct recorder *r)
{
	return r->samples;
}

void recorder_fork(struct recorder *r, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid)
{
	/* A new thread or process starts with its creator's name (read now
	 * if not known yet: with -p, threads that existed before sampling
	 * are named lazily, and a vfork child that never execs would be
	 * ":TID" once its creator is gone)... */
	if (ptid) {
		uint32_t id = comm_of(r, ppid, ptid);
		bool inserted;
		*hashmap_upsert(&r->comm_by_tid, tid, id, &inserted) = id;
	}
	if (ppid == pid)
		return;
	/* ...and a new process with its parent's maps: know those first. */
	if (ppid)
		procmaps_read(&r->maps, ppid);
	procmaps_fork(&r->maps, ppid, pid);
}

void recorder_build(struct recorder *r, struct profile *p)
{
	struct symbols *syms = symbols_new();
	build_profile(r, p, syms);
	symbols_free(syms);
}

void recorder_mmap(struct recorder *r, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   const char *path)
{
	procmaps_add(&r->maps, pid, start, len, pgoff, path);
}

bool recorder_knows(const struct recorder *r, uint32_t pid)
{
	return procmaps_was_read(&r->maps, pid);
}

void recorder_seen(struct recorder *r, uint32_t pid)
{
	if (pid)
		procmaps_read(&r->maps, pid);
}

void recorder_refresh(struct recorder *r, uint32_t pid)
{
	if (pid)
		procmaps_reread(&r->maps, pid);
}

unsigned record_kernel_max_stack(void)
{
	char buf[32];
	record_read_line("/proc/sys/kernel/perf_event_max_stack", buf, sizeof(buf));
	long v = strtol(buf, NULL, 10);
	return v > 0 ? (unsigned)v : 127; /* the kernel's default */
}

unsigned record_max_stack(const struct record_opts *o)
{
	unsigned kernel_max = record_kernel_max_stack();
	return o->max_stack && o->max_stack < kernel_max ? o->max_stack : kernel_max;
}

void record_read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)cap, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/* The comm of a thread first seen in a sample (perf does not report the
 * names of tasks that existed before it started). */
static uint32_t comm_of(struct recorder *r, uint32_t pid, uint32_t tid)
{
	uint32_t id;
	if (hashmap_get(&r->comm_by_tid, tid, &id))
		return id;
	char path[4200], buf[64] = "";
	if (!tid) {
		strcpy(buf, "swapper");
	} else {
		snprintf(path, sizeof(path), "%s/%" PRIu32 "/task/%" PRIu32 "/comm", r->maps.proc_root, pid, tid);
		record_read_line(path, buf, sizeof(buf));
		if (!buf[0])
			snprintf(buf, sizeof(buf), ":%" PRIu32, tid);
	}
	id = intern_comm(r, buf);
	bool inserted;
	*hashmap_upsert(&r->comm_by_tid, tid, id, &inserted) = id;
	return id;
}

static bool same_stack(const struct recorder *r, const struct rstack *s, const struct rstack *k,
		       const uint64_t *frames)
{
	return s->pid == k->pid && s->tid == k->tid && s->cpu == k->cpu && s->comm == k->comm &&
	       s->nr_user == k->nr_user && s->nr_kernel == k->nr_kernel && s->nr_dwarf == k->nr_dwarf &&
	       s->flags == k->flags &&
	       s->waker_pid == k->waker_pid && s->waker_comm == k->waker_comm &&
	       s->nr_waker_user == k->nr_waker_user && s->nr_waker_kernel == k->nr_waker_kernel &&
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

uint32_t recorder_stack(struct recorder *r, const struct record_sample *smp)
{
	const struct record_opts *o = r->opts;
	struct rstack k = { 0 };
	const uint64_t *user = smp->user;
	uint32_t nr_user = o->kernel_only ? 0 : smp->nr_user;
	bool complete = false, user_truncated = smp->user_truncated;
	uint32_t nr_dwarf = 0;
	if ((nr_user || smp->regs_abi) && smp->pid && !procmaps_was_read(&r->maps, smp->pid))
		procmaps_read(&r->maps, smp->pid);
	if (r->unwinder && smp->regs_abi && smp->pid && !o->kernel_only) {
		/* --max-stack, else deeper than the kernel's frame-pointer walk:
		 * the stack copy is the real bound. */
		uint32_t limit = o->max_stack ? o->max_stack : UNWIND_MAX_FRAMES;
		VEC_GROW(r->unwound, limit, r->nr_unwound_alloc);
		struct unwind_stack us = { smp->regs_abi, smp->regs_mask, smp->regs, smp->stack, smp->stack_len,
					   smp->stack_holes };
		int n = unwind_user_stack(r->unwinder, &r->maps, procmaps_space_of(&r->maps, smp->pid), &us,
					  mapped_file, &r->maps, r->unwound, (int)limit, &complete);
		if (n > 0) {
			r->nr_unwound++;
			nr_user = complete ? (uint32_t)n
					   : join_chains(r->unwound, (uint32_t)n, smp->user, smp->nr_user, limit);
			user = r->unwound;
			nr_dwarf = (uint32_t)n;
			user_truncated = !complete && (nr_user >= limit || (nr_user > (uint32_t)n && smp->user_truncated));
		}
	}
	uint32_t nr_kernel = o->user_only ? 0 : smp->nr_kernel;
	uint32_t n = nr_user + nr_kernel;

	k.tid = o->annotate_tid ? smp->tid : 0;
	k.pid = o->annotate_pid || o->annotate_tid ? smp->pid : 0;
	k.cpu = o->per_cpu ? smp->cpu : 0;
	k.comm = smp->comm ? intern_comm(r, smp->comm) : comm_of(r, smp->pid, smp->tid);
	k.nr_user = nr_user;
	k.nr_kernel = nr_kernel;
	k.nr_dwarf = nr_dwarf < nr_user ? nr_dwarf : nr_user;
	k.flags = (smp->user_missing && !o->kernel_only ? STACK_USER_MISSING : 0) |
		  (smp->kernel_missing && !o->user_only ? STACK_KERNEL_MISSING : 0) |
		  (user_truncated && !o->kernel_only ? STACK_USER_TRUNCATED : 0) |
		  (smp->kernel_truncated && !o->user_only ? STACK_KERNEL_TRUNCATED : 0) |
		  (complete && nr_user ? STACK_USER_COMPLETE : 0) |
		  (smp->off_cpu ? STACK_OFF_CPU : 0) | (smp->off_cpu && smp->runnable ? STACK_RUNNABLE : 0);
	const struct record_sample *w = o->wakers ? smp->waker : NULL;
	if (w) {
		k.flags |= STACK_WAKER;
		k.waker_pid = o->annotate_pid || o->annotate_tid ? w->pid : 0;
		k.waker_comm = w->comm ? intern_comm(r, w->comm) : comm_of(r, w->pid, w->tid);
		k.nr_waker_user = o->kernel_only ? 0 : w->nr_user;
		k.nr_waker_kernel = o->user_only ? 0 : w->nr_kernel;
	}
	n += k.nr_waker_user + k.nr_waker_kernel;

	/* never NULL, even for a stack with no frames: wf below is an offset from it */
	VEC_GROW(r->scratch, n ? n : 1, r->alloc_scratch);
	for (uint32_t i = 0; i < nr_user; i++) {
		uint64_t a = user[i];
		r->scratch[i] = procmaps_ref(&r->maps, smp->pid, i && a ? a - 1 : a);
	}
	for (uint32_t i = 0; i < nr_kernel; i++) {
		uint64_t a = smp->kernel[i];
		r->scratch[nr_user + i] = i && a ? a - 1 : a;
	}
	if (k.nr_waker_user && !procmaps_was_read(&r->maps, w->pid))
		procmaps_read(&r->maps, w->pid);
	uint64_t *wf = r->scratch + nr_user + nr_kernel;
	for (uint32_t i = 0; i < k.nr_waker_user; i++) {
		uint64_t a = w->user[i];
		wf[i] = procmaps_ref(&r->maps, w->pid, i && a ? a - 1 : a);
	}
	for (uint32_t i = 0; i < k.nr_waker_kernel; i++) {
		uint64_t a = w->kernel[i];
		wf[k.nr_waker_user + i] = i && a ? a - 1 : a;
	}

	uint64_t h = n ? hash_bytes(r->scratch, n * sizeof(uint64_t)) : 0;
	h = hash_mix(h ^ ((uint64_t)k.pid << 32 | k.tid),
		     hash_u64((uint64_t)k.cpu << 32 | k.comm) ^ k.flags ^ (uint64_t)k.nr_dwarf << 32);
	if (w)
		h = hash_mix(h, (uint64_t)k.waker_pid << 32 | k.waker_comm);
	k.hash = h;
	uint32_t idx = UINT32_MAX;
	for (uint64_t probe = h;; probe = hash_u64(probe)) {
		bool inserted;
		uint32_t *slot = hashmap_upsert(&r->by_hash, probe, r->nr_stacks, &inserted);
		if (inserted) {
			if (n) { /* an empty stack (no frames at all) has no storage */
				VEC_GROW(r->frames, r->nr_frames + n, r->alloc_frames);
				memcpy(r->frames + r->nr_frames, r->scratch, n * sizeof(uint64_t));
			}
			k.frames = r->nr_frames;
			r->nr_frames += n;
			VEC_GROW(r->stacks, r->nr_stacks + 1, r->alloc_stacks);
			idx = r->nr_stacks++;
			for (uint32_t i = 0; i < nr_user; i++)
				k.later |= !preload_user(r, smp->pid, r->scratch[i], i < k.nr_dwarf);
			r->stacks[idx] = k;
			build_ready(r);
			break;
		}
		if (same_stack(r, &r->stacks[*slot], &k, r->scratch)) {
			idx = *slot;
			break;
		}
	}
	return idx;
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
	uint32_t idx = recorder_stack(r, smp);
	recorder_count(r, idx, smp->weight, smp->ns);
	if (r->opts->keep_order) {
		VEC_GROW(r->events, r->nr_events + 1, r->alloc_events);
		r->events[r->nr_events] = (struct order_event){ smp->time, idx, (uint32_t)r->nr_events };
		r->nr_events++;
	}
}

/* ---- building the profile -------------------------------------------- */

/* Frames are named by profile/frame_rules, as stackcollapse-perf.pl names
 * the frame perf script would print for the same address ("SYMBOL
 * (MODULE)"), so a recording folds as `perf record` + `perf script |
 * stackcollapse-perf.pl` would. One address can give several names (the
 * script splits "->") or none (a symbol starting with '('). */
struct frame_seq {
	uint32_t first, count; /* into builder.seq */
};

struct builder {
	struct recorder *r;
	struct profile *p;
	struct symbols *kernel_syms;
	struct hashmap user_cache;   /* ref -> index into seqs */
	struct hashmap kernel_cache; /* addr -> index into seqs */
	struct frame_seq *seqs;
	size_t nr_seqs, seqs_alloc;
	sym_t *seq;                  /* the names of all seqs */
	size_t nr_seq, seq_alloc;
	struct frame_parts parts;
	char *line;                  /* scratch for frame_names_of */
	size_t line_alloc;
	bool java;                   /* the stack's process name starts with "java" */
};

/* Append the names of the frame perf script prints as "SYMBOL (MODULE)"
 * to b->seq; returns how many. */
static uint32_t append_names(struct builder *b, const char *symbol, const char *module)
{
	const struct record_opts *o = b->r->opts;
	struct frame_opts fo = { .kernel = o->annotate_kernel, .jit = o->annotate_jit, .java = b->java };
	struct frame_fields fr = { .symbol = symbol, .module = module };
	b->parts.len = b->parts.nr = 0;
	if (!frame_names_of(&fr, &fo, &b->parts, &b->line, &b->line_alloc))
		return 0;
	for (size_t i = 0; i < b->parts.nr; i++) {
		struct frame_slice part = frame_part(&b->parts, i);
		VEC_GROW(b->seq, b->nr_seq + 1, b->seq_alloc);
		b->seq[b->nr_seq++] = profile_sym(b->p, part.s, part.n);
	}
	return (uint32_t)b->parts.nr;
}

/* Remember fs under key in cache (not for Java processes, whose names
 * differ). */
static void cache_seq(struct builder *b, struct hashmap *cache, uint64_t key, struct frame_seq fs)
{
	if (!b->java) {
		VEC_GROW(b->seqs, b->nr_seqs + 1, b->seqs_alloc);
		b->seqs[b->nr_seqs] = fs;
		bool inserted;
		*hashmap_upsert(cache, key, (uint32_t)b->nr_seqs, &inserted) = (uint32_t)b->nr_seqs;
		b->nr_seqs++;
	}
}

/* The names of the frame perf script prints as "SYMBOL (MODULE)", cached
 * under key in cache. */
static struct frame_seq frame_seq_of(struct builder *b, struct hashmap *cache, uint64_t key,
				     const char *symbol, const char *module)
{
	uint32_t idx;
	if (!b->java && hashmap_get(cache, key, &idx))
		return b->seqs[idx];
	struct frame_seq fs = { (uint32_t)b->nr_seq, 0 };
	fs.count = append_names(b, symbol, module);
	cache_seq(b, cache, key, fs);
	return fs;
}

/* A DWARF-unwound frame whose inlined functions perf expands: one frame
 * per function, outermost first, each named as perf script prints it
 * ("FUNC (inlined)" for the inlined ones). The names of the frame's own
 * symbol are *own. */
static struct frame_seq inlined_seq_of(struct builder *b, uint64_t key, const struct user_name *un,
				       struct frame_seq *own)
{
	uint32_t idx;
	if (!b->java && hashmap_get(&b->user_cache, key, &idx)) {
		*own = b->seqs[idx + 1];
		return b->seqs[idx];
	}
	struct frame_seq fs = { (uint32_t)b->nr_seq, 0 };
	*own = (struct frame_seq){ fs.first, 0 };
	for (uint32_t i = un->nr_inlines; i-- > 0;) {
		const struct sym_inline *it = &b->r->inlines[un->inlines + i];
		uint32_t first = (uint32_t)b->nr_seq;
		uint32_t n = append_names(b, it->name, it->inlined ? "inlined" : un->module);
		if (!it->inlined)
			*own = (struct frame_seq){ first, n };
		fs.count += n;
	}
	if (!b->java) {
		cache_seq(b, &b->user_cache, key, fs);
		VEC_GROW(b->seqs, b->nr_seqs + 1, b->seqs_alloc);
		b->seqs[b->nr_seqs++] = *own; /* right after fs's entry */
	}
	return fs;
}


/* dwarf: the frame was unwound with DWARF (its inlined functions are
 * expanded, as perf and report do for such frames). */
static struct frame_seq user_frame(struct builder *b, uint32_t pid, uint64_t ref, bool dwarf)
{
	struct recorder *r = b->r;
	const struct mapping *m = procmaps_ref_mapping(&r->maps, ref);
	uint64_t key = dwarf ? ref | DWARF_FRAME_KEY : ref;
	struct user_name un = { NULL, "[unknown]", 0, 0 };
	uint32_t at;
	if (m && hashmap_get(&r->named, key, &at) && at != NAMED_LATER) {
		un = r->names[at]; /* named while sampling */
	} else if (m) {
		struct symbols_map sm;
		user_map(r, m, pid, ref, &sm);
		un.name = symbols_user(r->user_syms, &sm, sm.addr, &un.module);
		if (dwarf)
			note_inlines(r, &sm, &un);
	}
	struct frame_seq own, fs;
	if (un.nr_inlines)
		fs = inlined_seq_of(b, key, &un, &own);
	else
		own = fs = frame_seq_of(b, &b->user_cache, key, un.name ? un.name : "[unknown]", un.module);
	if (r->opts->sites && m) {
		/* file offset in the module, or the address for JIT code */
		uint64_t off = procmaps_ref_offset(ref);
		uint64_t addr = frame_sites_runtime_module(un.module) ? m->start + off : m->pgoff + off;
		frame_sites_note_dso(b->p, un.module, addr, b->seq + own.first, own.count, symbols_build_id,
				     r->user_syms);
	}
	return fs;
}

static struct frame_seq kernel_frame(struct builder *b, uint64_t addr)
{
	const char *module;
	const char *name = symbols_kernel(b->kernel_syms, addr, &module);
	struct frame_seq fs = frame_seq_of(b, &b->kernel_cache, addr, name ? name : "[unknown]", module);
	if (b->r->opts->sites)
		frame_sites_note_dso(b->p, module, addr, b->seq + fs.first, fs.count, symbols_build_id,
				     b->kernel_syms);
	return fs;
}

static node_t push_seq(struct builder *b, node_t node, struct frame_seq fs)
{
	for (uint32_t i = 0; i < fs.count; i++)
		node = profile_push(b->p, node, b->seq[fs.first + i]);
	return node;
}

/* A kernel frame where an interrupt entered (x86-64, arm64): a waker's
 * frames below it belong to whatever the interrupt stopped. */
static bool irq_entry(const char *name)
{
	return !strncmp(name, "asm_sysvec_", 11) || !strncmp(name, "asm_common_interrupt", 20) ||
	       !strncmp(name, "el1h_64_irq", 11) || !strncmp(name, "el0t_64_irq", 11);
}

/* The same names, callee first (a waker's stack is drawn upside down). */
static node_t push_seq_reversed(struct builder *b, node_t node, struct frame_seq fs)
{
	for (uint32_t i = fs.count; i-- > 0;)
		node = profile_push(b->p, node, b->seq[fs.first + i]);
	return node;
}

/* Where a complete user stack ends: the program's entry and libc's start
 * code, or a thread's (glibc's start_thread under clone3/clone). main
 * counts too: some unwinders stop there by design. */
static bool thread_start(const char *name)
{
	static const char *const starts[] = {
		"main", "_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
		"start_thread", "clone3", "__clone3", "clone", "__clone", "__GI___clone3",
	};
	size_t n = strcspn(name, "@"); /* __libc_start_main@@GLIBC_2.34 */
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (strlen(starts[i]) == n && !strncmp(name, starts[i], n))
			return true;
	return false;
}

static node_t build_stack(struct builder *b, struct rstack *s)
{
	const struct record_opts *o = b->r->opts;
	struct profile *p = b->p;
	node_t node = PROFILE_ROOT;
	char root[96];
	int n;

	if (o->per_cpu) {
		n = snprintf(root, sizeof(root), "CPU %" PRIu32, s->cpu);
		node = profile_push_str(p, node, root, (size_t)n);
	}
	/* The process name as the script reads it from perf script -F +pid's
	 * header "COMM PID/TID"; a comm the header regex cannot split (e.g.
	 * one byte long) keeps the plain form. */
	const char *comm = strpool_str(&b->r->comms, s->comm);
	/* Without --annotate-tid stacks are not kept per thread (tid 0 here):
	 * the header then names the process's main thread, so that the tid
	 * is not read as absent and the pid shown as "?". */
	uint32_t tid = o->annotate_tid ? s->tid : s->pid;
	b->parts.len = b->parts.nr = 0;
	if (!frame_thread_pname(comm, s->pid, tid, true, o->annotate_pid, o->annotate_tid, &b->parts)) {
		char pid[16], tids[16];
		struct frame_slice c = { comm, strlen(comm) };
		struct frame_slice ps = { pid, (size_t)snprintf(pid, sizeof(pid), "%" PRIu32, s->pid) };
		struct frame_slice ts = { tids, (size_t)snprintf(tids, sizeof(tids), "%" PRIu32, tid) };
		frame_pname(c, ps, ts, o->annotate_pid, o->annotate_tid, &b->parts);
	}
	node = profile_push_str(p, node, b->parts.buf, b->parts.len);
	b->java = frame_pname_is_java(b->parts.buf, b->parts.len);

	/* A stack that reached the depth limit lost its root end (the kernel
	 * walks from the leaf): the marker stands where the cut is, under
	 * the process name, so that such stacks never pass for complete. */
	const uint64_t *f = rstack_frames(s) ? b->r->frames + s->frames : NULL;
	if (s->flags & STACK_USER_TRUNCATED)
		node = profile_push_str(p, node, "[truncated]", 11);
	if (s->flags & STACK_USER_MISSING)
		node = profile_push_str(p, node, "[Missed User Stack]", 19);
	if (s->nr_user) {
		/* A chain that ends anywhere but at a thread's start broke
		 * there: say so with an [unknown] caller. */
		struct frame_seq outer = user_frame(b, s->pid, f[s->nr_user - 1], s->nr_user <= s->nr_dwarf);
		const char *name = outer.count ? strpool_str(&p->names, b->seq[outer.first]) : "";
		s->has_user = true;
		if ((s->flags & STACK_USER_COMPLETE) || thread_start(name))
			s->reached = true;
		else if (strcmp(name, "[unknown]") && !(s->flags & STACK_USER_TRUNCATED))
			node = profile_push_str(p, node, "[unknown]", 9);
	}
	for (uint32_t i = s->nr_user; i-- > 0;)
		node = push_seq(b, node, user_frame(b, s->pid, f[i], i < s->nr_dwarf));
	if (s->flags & STACK_KERNEL_TRUNCATED)
		node = profile_push_str(p, node, "[truncated]", 11);
	if (s->flags & STACK_KERNEL_MISSING)
		node = profile_push_str(p, node, "[Missed Kernel Stack]", 21);
	for (uint32_t i = s->nr_kernel; i-- > 0;)
		node = push_seq(b, node, kernel_frame(b, f[s->nr_user + i]));
	if (o->wall) { /* where the time went (see record.h) */
		if (s->flags & STACK_RUNNABLE)
			node = profile_push_str(p, node, "[runnable]", 10);
		else if (s->flags & STACK_OFF_CPU)
			node = profile_push_str(p, node, "[off-cpu]", 9);
		else
			node = profile_push_str(p, node, "[on-cpu]", 8);
	}
	if (s->flags & STACK_WAKER) {
		/* --wakers, as offwaketime draws it: a "--" frame, the waker's
		 * stack from its leaf (where it woke the thread) down, and its
		 * name on top (with --colors chain: the waker's frames _[w]). */
		const uint64_t *w = f + s->nr_user + s->nr_kernel;
		bool irq = false;
		node = profile_push_str(p, node, "--", 2);
		for (uint32_t i = 0; i < s->nr_waker_kernel && !irq; i++) {
			struct frame_seq fs = kernel_frame(b, w[s->nr_waker_user + i]);
			node = push_seq_reversed(b, node, fs);
			irq = fs.count && irq_entry(strpool_str(&p->names, b->seq[fs.first]));
		}
		/* From an interrupt, what it interrupted did not wake anyone. */
		for (uint32_t i = 0; i < s->nr_waker_user && !irq; i++)
			node = push_seq_reversed(b, node, user_frame(b, s->waker_pid, w[i], false));
		const char *waker = irq ? "[interrupt]" : strpool_str(&b->r->comms, s->waker_comm);
		node = profile_push_str(p, node, waker, strlen(waker));
	}
	return node;
}

static int cmp_event(const void *a, const void *b)
{
	const struct order_event *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct builder *builder_new(struct recorder *r, struct profile *p, struct symbols *kernel_syms)
{
	struct builder *b = xcalloc(1, sizeof(*b));
	*b = (struct builder){ .r = r, .p = p, .kernel_syms = kernel_syms };
	hashmap_init(&b->user_cache);
	hashmap_init(&b->kernel_cache);
	return b;
}

static void builder_free(struct builder *b)
{
	if (!b)
		return;
	hashmap_release(&b->user_cache);
	hashmap_release(&b->kernel_cache);
	free(b->seqs);
	free(b->seq);
	frame_parts_release(&b->parts);
	free(b->line);
	free(b);
}

void recorder_build_early(struct recorder *r, struct profile *p, struct symbols *kernel_syms,
			  const atomic_bool *kernel_ready)
{
	/* Off-CPU stacks get a node only if their time rounds to 1 us or
	 * more, known at the end (see record.h). */
	if (r->opts->off_cpu || r->opts->wakers)
		return;
	r->builder = builder_new(r, p, kernel_syms);
	r->kernel_ready = kernel_ready;
	build_ready(r);
}

/* The stacks that came in since the last call, unless they wait for the
 * end (JIT code) or the kernel's symbols are still loading. */
static void build_ready(struct recorder *r)
{
	if (!r->builder || (r->kernel_ready && !atomic_load_explicit(r->kernel_ready, memory_order_acquire)))
		return;
	for (; r->nr_examined < r->nr_stacks; r->nr_examined++) {
		struct rstack *s = &r->stacks[r->nr_examined];
		if (!s->later)
			s->leaf = build_stack(r->builder, s);
	}
}

/* Every stack not built yet, then the counts. */
static void build_profile(struct recorder *r, struct profile *p, struct symbols *kernel_syms)
{
	struct builder *b = r->builder ? r->builder : builder_new(r, p, kernel_syms);
	r->builder = NULL;
	for (uint32_t i = 0; i < r->nr_stacks; i++) {
		struct rstack *s = &r->stacks[i];
		/* A stack of under 0.5 us off-CPU gets no node (see record.h). */
		if (s->leaf || (r->opts->off_cpu && (s->ns + 500) / 1000 == 0))
			continue;
		s->leaf = build_stack(b, s);
		r->nr_built_late++;
	}
	if (r->opts->keep_order && r->nr_events) {
		/* Rings are per CPU: merge them by time. */
		qsort(r->events, r->nr_events, sizeof(r->events[0]), cmp_event);
		p->keep_events = true;
		for (size_t i = 0; i < r->nr_events; i++)
			profile_count(p, r->stacks[r->events[i].stack].leaf, 1);
	} else if (r->opts->off_cpu) {
		/* Microseconds, rounded once per stack (see record.h). */
		for (uint32_t i = 0; i < r->nr_stacks; i++) {
			uint64_t us = (r->stacks[i].ns + 500) / 1000;
			if (us)
				profile_count(p, r->stacks[i].leaf, (double)us);
		}
	} else {
		for (uint32_t i = 0; i < r->nr_stacks; i++)
			profile_count(p, r->stacks[i].leaf, (double)r->stacks[i].count);
	}
	for (uint32_t i = 0; i < r->nr_stacks; i++) {
		const struct rstack *s = &r->stacks[i];
		if (s->leaf && s->has_user) {
			r->user_samples += s->count;
			r->reached += s->reached ? s->count : 0;
		}
	}
	builder_free(b);
}

/* The kernel's symbol table is read while sampling runs, so that it is
 * ready when sampling ends (reading /proc/kallsyms is most of the
 * finishing time otherwise). */
struct kernel_loader {
	struct symbols *syms;
	atomic_bool ready;
};

static void *preload_kernel(void *arg)
{
	struct kernel_loader *kl = arg;
	const char *module;
	symbols_kernel(kl->syms, 0, &module);
	atomic_store_explicit(&kl->ready, true, memory_order_release);
	return NULL;
}

/* ---- the run ---------------------------------------------------------- */

int record_run(const struct record_opts *opts, struct profile *out, struct record_stats *stats)
{
	struct recorder r;
	struct record_target t = { .go_fd = -1, .exec_err_fd = -1, .child_fd = -1 };
	int ret;

	memset(stats, 0, sizeof(*stats));
	stats->command_status = -1;
	unsigned kernel_max = record_kernel_max_stack();
	/* Only the kernel's frame-pointer walk has the kernel's limit: DWARF
	 * unwinding (auto, dwarf) goes on from the stack copy. */
	if (opts->unwind == RECORD_UNWIND_FP && opts->max_stack > kernel_max)
		return error("--max-stack %u: the kernel records at most %u frames per stack "
			     "(kernel.perf_event_max_stack); raise it first, as root: "
			     "sysctl kernel.perf_event_max_stack=%u",
			     opts->max_stack, kernel_max, opts->max_stack);
	if (opts->command && target_spawn(&t, opts->command, opts->command_stdout_to_stderr))
		return RECORD_ERROR;
	target_watch(&t, opts);
	recorder_init(&r, opts);
	struct symbols *kernel_syms = symbols_new();
	struct kernel_loader kl = { .syms = kernel_syms };
	pthread_t loader;
	bool loading = !opts->user_only && !pthread_create(&loader, NULL, preload_kernel, &kl);
	if (!loading)
		atomic_init(&kl.ready, true); /* loaded on first use, in this thread */
	recorder_build_early(&r, out, kernel_syms, &kl.ready);

	stats->unwind_note = recorder_unwind_note(&r);
	enum record_backend be = opts->backend;
	ret = -2;
	if (be != RECORD_BACKEND_PERF) {
		ret = record_bpf_backend(opts, &r, &t, stats);
		if (ret == -2 && be == RECORD_BACKEND_BPF)
			ret = RECORD_ERROR;
	}
	if (ret == -2 && opts->wakers) /* sched_waking's stacks: a BPF program's only */
		ret = error("--wakers needs the BPF backend");
	if (ret == -2)
		ret = record_perf_backend(opts, &r, &t, stats);
	target_kill(&t);
	target_release(&t);
	record_phase(&stats->phases, "target released");
	if (loading)
		pthread_join(loader, NULL);
	record_phase(&stats->phases, "kernel symbols loaded");
	if (ret == 0) {
		build_profile(&r, out, kernel_syms);
		record_phase(&stats->phases, "profile built");
		stats->samples = r.samples;
		stats->offcpu_blocks = r.blocks;
		stats->offcpu_seconds = (double)r.block_ns / 1e9;
		stats->offcpu_waits = r.waits;
		stats->offcpu_wait_seconds = (double)r.wait_ns / 1e9;
		stats->unique = r.nr_stacks;
		stats->built_late = r.nr_built_late;
		stats->user_samples = r.user_samples;
		stats->reached = r.reached;
		stats->unwound = r.nr_unwound;
	}
	if (!opts->leave_memory) {
		symbols_free(kernel_syms);
		recorder_release(&r);
		record_phase(&stats->phases, "recorder released");
	}
	return ret;
}

int record_bpf_unavailable(const struct record_opts *opts, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (opts->backend == RECORD_BACKEND_BPF)
		error("BPF unavailable: %s", why);
	else if (!opts->quiet)
		fprintf(stderr, "scorch: BPF backend unavailable (%s); using perf_event ring buffers\n", why);
	return -2;
}

#ifndef HAVE_LIBBPF
int record_bpf_backend(const struct record_opts *opts, struct recorder *r, struct record_target *t,
		       struct record_stats *stats)
{
	(void)r;
	(void)t;
	(void)stats;
	return record_bpf_unavailable(opts, "scorch was built without libbpf");
}
#endif

/* Shared by the backends' loops: has sampling ended? */
static bool sampling_ended(const struct record_opts *opts, struct record_target *t, double start,
			   struct record_stats *stats)
{
	int status;
	if (opts->stop && *opts->stop) {
		stats->ended = RECORD_END_STOP;
		return true;
	}
	if (opts->duration > 0 && record_now() - start >= opts->duration) {
		stats->ended = RECORD_END_DURATION;
		return true;
	}
	if (target_exited(t, &status)) {
		stats->command_status = status;
		stats->command_cpu = t->child_cpu;
		stats->ended = RECORD_END_COMMAND;
		return true;
	}
	if (target_gone(t)) {
		stats->ended = RECORD_END_TARGETS;
		return true;
	}
	return false;
}

int record_poll_ms(const struct record_opts *opts, double start, int ms)
{
	if (opts->duration > 0) {
		double left = (start + opts->duration - record_now()) * 1e3;
		if (left < ms)
			return left > 0 ? (int)left + 1 : 0;
	}
	return ms;
}

bool record_should_stop(const struct record_opts *opts, struct record_target *t, double start,
			struct record_stats *stats)
{
	if (!sampling_ended(opts, t, start, stats))
		return false;
	mark_stopped(&stats->phases); /* what follows is finishing time */
	return true;
}
