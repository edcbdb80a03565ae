/* The naming step of record: each distinct raw stack of the collector
 * (recorder_impl.h) becomes a profile node, once, its frames named as
 * stackcollapse-perf.pl names what perf script prints; then the counts.
 * User frames of new stacks are named while sampling runs (their files'
 * symbols read then), so that little is left when it ends. */
#include "record/naming.h"

#include "addrspace/procmaps.h"
#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "profile/frame_rules.h"
#include "profile/frame_sites.h"
#include "profile/time_ranges.h"
#include "record/recorder_impl.h"
#include "record/runtime.h"
#include "record/symbols.h"
#include "symbolize/symbolize.h" /* struct sym_inline */

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

bool naming_preload_user(struct recorder *r, uint32_t pid, uint64_t ref, bool dwarf)
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
	char *native;                /* push_user: a stack's native user frame names */
	size_t native_alloc;
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

/* The root of a stack: [CPU N;]comm[-PID[/TID]]. */
static node_t push_process(struct builder *b, const struct rstack *s)
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
	return node;
}

/* --wakers, as offwaketime draws it: a "--" frame, the waker's stack from
 * its leaf (where it woke the thread) down, and its name on top (with
 * --colors chain: the waker's frames _[w]). w: the waker's frames. */
static node_t push_waker(struct builder *b, node_t node, const struct rstack *s, const uint64_t *w)
{
	struct profile *p = b->p;
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
	return profile_push_str(p, node, waker, strlen(waker));
}

/* emit() of a runtime's merge hook: the next user frame. */
struct merged {
	struct builder *b;
	node_t node;
};

static void emit_frame(void *arg, const char *name, size_t len)
{
	struct merged *m = arg;
	m->node = profile_push_str(m->b->p, m->node, name, len);
}

/* The user frames, root first (the nu leaf-most of them): as named, or as
 * the stack's runtime merges them with its own (runtime.h). */
static node_t push_user(struct builder *b, node_t node, const struct rstack *s, const uint64_t *f, uint32_t nu)
{
	if (!s->nr_tokens) {
		for (uint32_t i = nu; i-- > 0;)
			node = push_seq(b, node, user_frame(b, s->pid, f[i], i < s->nr_dwarf));
		return node;
	}
	/* The native names, copied (the profile's names move as it grows). */
	size_t len = 0, n = 0;
	for (uint32_t i = nu; i-- > 0;) {
		struct frame_seq fs = user_frame(b, s->pid, f[i], i < s->nr_dwarf);
		for (uint32_t j = 0; j < fs.count; j++) {
			const char *name = strpool_str(&b->p->names, b->seq[fs.first + j]);
			size_t nlen = strlen(name) + 1;
			VEC_GROW(b->native, len + nlen, b->native_alloc);
			memcpy(b->native + len, name, nlen);
			len += nlen;
			n++;
		}
	}
	const char **names = xcalloc(n ? n : 1, sizeof(*names));
	for (size_t i = 0, at = 0; i < n; i++, at += strlen(b->native + at) + 1)
		names[i] = b->native + at;
	struct runtime_stack rs = { names, (uint32_t)n, f + rstack_frames(s) - s->nr_tokens, s->nr_tokens, s->reached };
	struct merged m = { b, node };
	runtime_set_merge(b->r->runtimes, s->runtime, &rs, emit_frame, &m);
	free(names);
	return m.node;
}

static node_t build_stack(struct builder *b, struct rstack *s)
{
	const struct record_opts *o = b->r->opts;
	struct profile *p = b->p;
	node_t node = push_process(b, s);

	/* A stack that reached the depth limit lost its root end (the kernel
	 * walks from the leaf): the marker stands where the cut is, under
	 * the process name, so that such stacks never pass for complete. */
	const uint64_t *f = rstack_frames(s) ? b->r->frames + s->frames : NULL;
	/* --max-stack N caps the whole stack, kernel and user, at its N
	 * leaf-most frames, with one marker for both cuts. */
	uint32_t nu = s->nr_user, nk = s->nr_kernel;
	bool user_cut = s->flags & STACK_USER_TRUNCATED, kernel_cut = s->flags & STACK_KERNEL_TRUNCATED;
	if (o->max_stack && (user_cut || kernel_cut || nu + nk > o->max_stack)) {
		if (nk > o->max_stack)
			nk = o->max_stack;
		if (nu > o->max_stack - nk)
			nu = o->max_stack - nk;
		user_cut = true;
		kernel_cut = false;
	}
	if (user_cut)
		node = profile_push_str(p, node, "[truncated]", 11);
	if (s->flags & STACK_USER_MISSING)
		node = profile_push_str(p, node, "[Missed User Stack]", 19);
	if (nu) {
		/* A chain that ends anywhere but at a thread's start broke
		 * there: say so with an [unknown] caller. */
		struct frame_seq outer = user_frame(b, s->pid, f[nu - 1], nu <= s->nr_dwarf);
		const char *name = outer.count ? strpool_str(&p->names, b->seq[outer.first]) : "";
		s->has_user = true;
		if ((s->flags & STACK_USER_COMPLETE) || thread_start(name))
			s->reached = true;
		else if (strcmp(name, "[unknown]") && !user_cut)
			node = profile_push_str(p, node, "[unknown]", 9);
	}
	node = push_user(b, node, s, f, nu);
	if (kernel_cut)
		node = profile_push_str(p, node, "[truncated]", 11);
	if (s->flags & STACK_KERNEL_MISSING)
		node = profile_push_str(p, node, "[Missed Kernel Stack]", 21);
	for (uint32_t i = nk; i-- > 0;)
		node = push_seq(b, node, kernel_frame(b, f[s->nr_user + i]));
	if (o->wall) { /* where the time went (see record.h) */
		if (s->flags & STACK_RUNNABLE)
			node = profile_push_str(p, node, "[runnable]", 10);
		else if (s->flags & STACK_OFF_CPU)
			node = profile_push_str(p, node, "[off-cpu]", 9);
		else
			node = profile_push_str(p, node, "[on-cpu]", 8);
	}
	if (s->flags & STACK_WAKER)
		node = push_waker(b, node, s, f + s->nr_user + s->nr_kernel);
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

void naming_builder_free(struct builder *b)
{
	if (!b)
		return;
	hashmap_release(&b->user_cache);
	hashmap_release(&b->kernel_cache);
	free(b->seqs);
	free(b->seq);
	frame_parts_release(&b->parts);
	free(b->line);
	free(b->native);
	free(b);
}

void naming_build_early(struct recorder *r, struct profile *p, struct symbols *kernel_syms,
			const atomic_bool *kernel_ready)
{
	/* Off-CPU stacks get a node only if their time rounds to 1 us or
	 * more, known at the end (see record.h). */
	if (r->opts->off_cpu || r->opts->wakers)
		return;
	r->builder = builder_new(r, p, kernel_syms);
	r->kernel_ready = kernel_ready;
	naming_build_ready(r);
}

/* The stacks that came in since the last call, unless they wait for the
 * end (JIT code) or the kernel's symbols are still loading. */
void naming_build_ready(struct recorder *r)
{
	if (!r->builder || (r->kernel_ready && !atomic_load_explicit(r->kernel_ready, memory_order_acquire)))
		return;
	for (; r->nr_examined < r->nr_stacks; r->nr_examined++) {
		struct rstack *s = &r->stacks[r->nr_examined];
		if (!s->later)
			s->leaf = build_stack(r->builder, s);
	}
}

/* Samples are stamped with CLOCK_MONOTONIC (both backends): its offset to
 * the epoch, taken now. */
static void set_epoch(struct profile *p)
{
	struct timespec real, mono;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	time_cells_set_epoch(p, ((int64_t)real.tv_sec - (int64_t)mono.tv_sec) * 1000000000 +
					(real.tv_nsec - mono.tv_nsec));
}

/* The samples' times (recorder.keep_time), from stacks to their leaves. */
static void add_times(struct recorder *r, struct profile *p)
{
	node_t *leaf = xreallocarray(NULL, r->nr_stacks ? r->nr_stacks : 1, sizeof(*leaf));
	for (uint32_t i = 0; i < r->nr_stacks; i++)
		leaf[i] = r->stacks[i].leaf ? r->stacks[i].leaf : TIME_NODE_DROPPED;
	time_cells_merge(p, r->times, leaf);
	free(leaf);
	set_epoch(p);
}

/* --time: the samples (events, one each) in the ranges, resolved against
 * the first and last sample; in time order, and into the time table
 * when it is kept. Ranges that cannot be resolved count nothing and say
 * why (the command's usage error). */
static void count_in_ranges(struct recorder *r, struct profile *p)
{
	struct time_ranges *t = r->opts->time_ranges;
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < r->nr_events; i++) {
		uint64_t w = r->events[i].time;
		if (w && w < first)
			first = w;
		if (w > last)
			last = w;
	}
	if (first > last) {
		snprintf(t->why, sizeof(t->why), "no sample has a time");
		t->bad = true;
		return;
	}
	if (time_ranges_resolve(t, first, last, t->why, sizeof(t->why))) {
		t->bad = true;
		return;
	}
	qsort(r->events, r->nr_events, sizeof(r->events[0]), cmp_event);
	p->keep_events = r->opts->keep_order;
	if (r->times)
		profile_keep_time(p);
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct order_event *e = &r->events[i];
		node_t leaf = r->stacks[e->stack].leaf;
		if (!e->time || !time_ranges_keep(t, e->time) || !leaf)
			continue;
		if (p->time)
			profile_count_at(p, leaf, 1, e->time);
		else
			profile_count(p, leaf, 1);
	}
	if (p->time)
		set_epoch(p);
}

/* Every stack not built yet, then the counts. */
void naming_build_all(struct recorder *r, struct profile *p, struct symbols *kernel_syms)
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
	if (r->opts->time_ranges) {
		count_in_ranges(r, p);
	} else if (r->opts->keep_order && r->nr_events) {
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
	if (r->times && !r->untimed && !r->opts->time_ranges)
		add_times(r, p);
	for (uint32_t i = 0; i < r->nr_stacks; i++) {
		const struct rstack *s = &r->stacks[i];
		if (s->leaf && s->has_user) {
			r->user_samples += s->count;
			r->reached += s->reached ? s->count : 0;
		}
	}
	naming_builder_free(b);
}
