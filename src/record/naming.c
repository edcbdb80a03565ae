/* The naming step of record: each distinct raw stack of the collector
 * (recorder_impl.h) becomes a profile node, once, its frames named as
 * stackcollapse-perf.pl names what perf script prints (naming_frames.c);
 * then the counts (naming_counts.c). */
#include "record/naming.h"
#include "record/naming_impl.h"

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "profile/frame_rules.h"
#include "profile/frame_sites.h"
#include "record/recorder_impl.h"
#include "record/runtime.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		struct frame_seq fs = naming_kernel_frame(b, w[s->nr_waker_user + i]);
		node = push_seq_reversed(b, node, fs);
		irq = fs.count && irq_entry(strpool_str(&p->names, b->seq[fs.first]));
	}
	/* From an interrupt, what it interrupted did not wake anyone. */
	for (uint32_t i = 0; i < s->nr_waker_user && !irq; i++)
		node = push_seq_reversed(b, node, naming_user_frame(b, s->waker_pid, w[i], false));
	const char *waker = irq ? "[interrupt]" : strpool_str(&b->r->comms, s->waker_comm);
	return profile_push_str(p, node, waker, strlen(waker));
}

/* Append fs's names to the stack's names (builder.names). */
static void add_names(struct builder *b, struct frame_seq fs)
{
	VEC_GROW(b->names, b->nr_names + fs.count, b->names_alloc);
	for (uint32_t i = 0; i < fs.count; i++)
		b->names[b->nr_names++] = b->seq[fs.first + i];
}

/* emit() of a runtime's merge hook: the next user frame (for pprof, with
 * its place in the source when it is the runtime's own). */
struct merged {
	struct builder *b;
	uint32_t owner;
};

static void emit_frame(void *arg, const char *name, size_t len)
{
	struct merged *m = arg;
	struct builder *b = m->b;
	struct profile *p = b->p;
	sym_t sym = profile_sym(p, name, len);
	VEC_GROW(b->names, b->nr_names + 1, b->names_alloc);
	b->names[b->nr_names++] = sym;
	struct runtime_source src;
	if (b->r->opts->sites && !frame_sites_source(p, sym) &&
	    runtime_set_source(b->r->runtimes, m->owner, name, len, &src))
		frame_sites_note_source(p, sym, src.function, strlen(src.function), src.file, strlen(src.file),
					src.line);
}

/* The user frames' names, root first, into builder.names: as named, or
 * as the stack's runtime merges them with its own (runtime.h). */
static void user_names(struct builder *b, const struct rstack *s, const uint64_t *f)
{
	uint32_t nu = s->nr_user;
	if (!s->nr_tokens) {
		for (uint32_t i = nu; i-- > 0;)
			add_names(b, naming_user_frame(b, s->pid, f[i], i < s->nr_dwarf));
		return;
	}
	/* The native names, copied (the profile's names move as it grows). */
	size_t len = 0, n = 0;
	for (uint32_t i = nu; i-- > 0;) {
		struct frame_seq fs = naming_user_frame(b, s->pid, f[i], i < s->nr_dwarf);
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
	struct merged m = { b, s->runtime };
	runtime_set_merge(b->r->runtimes, s->runtime, &rs, emit_frame, &m);
	free(names);
}

/* Whether s's user part reaches a thread's start (s->reached), from its
 * outermost native frame; true when a chain that ends anywhere else
 * should get an [unknown] caller (it broke there). */
static bool user_broken(struct builder *b, struct rstack *s, const uint64_t *f)
{
	uint32_t nu = s->nr_user;
	if (!nu)
		return false;
	struct frame_seq outer = naming_user_frame(b, s->pid, f[nu - 1], nu <= s->nr_dwarf);
	const char *name = outer.count ? strpool_str(&b->p->names, b->seq[outer.first]) : "";
	s->has_user = true;
	if ((s->flags & STACK_USER_COMPLETE) || thread_start(name)) {
		s->reached = true;
		return false;
	}
	return strcmp(name, "[unknown]") != 0;
}

static node_t push_names(struct builder *b, node_t node, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		node = profile_push(b->p, node, b->names[i]);
	return node;
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
	bool broken = user_broken(b, s, f);
	/* The names below the process name, root first: the user part's
	 * (inlined functions expanded, a runtime's frames merged), then the
	 * kernel part's. */
	b->nr_names = 0;
	user_names(b, s, f);
	size_t nr_user = b->nr_names;
	for (uint32_t i = s->nr_kernel; i-- > 0;)
		add_names(b, naming_kernel_frame(b, f[s->nr_user + i]));
	size_t nr_kernel = b->nr_names - nr_user;
	/* --max-stack N caps the whole stack, kernel and user, at the N
	 * leaf-most of these names (frames as drawn, not addresses: one
	 * address can stand for several inlined functions), with one marker
	 * for both cuts. */
	size_t user_from = 0, kernel_from = nr_user;
	bool user_cut = s->flags & STACK_USER_TRUNCATED, kernel_cut = s->flags & STACK_KERNEL_TRUNCATED;
	if (o->max_stack && (user_cut || kernel_cut || b->nr_names > o->max_stack)) {
		size_t keep_kernel = nr_kernel < o->max_stack ? nr_kernel : o->max_stack;
		size_t keep_user = nr_user < o->max_stack - keep_kernel ? nr_user : o->max_stack - keep_kernel;
		user_from = nr_user - keep_user;
		kernel_from = b->nr_names - keep_kernel;
		if (!keep_user)
			s->has_user = s->reached = false;
		user_cut = true;
		kernel_cut = false;
	}
	if (user_cut)
		node = profile_push_str(p, node, "[truncated]", 11);
	if (s->flags & STACK_USER_MISSING)
		node = profile_push_str(p, node, "[Missed User Stack]", 19);
	if (broken && !user_cut)
		node = profile_push_str(p, node, "[unknown]", 9);
	node = push_names(b, node, user_from, nr_user);
	if (kernel_cut)
		node = profile_push_str(p, node, "[truncated]", 11);
	if (s->flags & STACK_KERNEL_MISSING)
		node = profile_push_str(p, node, "[Missed Kernel Stack]", 21);
	node = push_names(b, node, kernel_from, b->nr_names);
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
	free(b->names);
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

struct profile *naming_early_profile(const struct recorder *r)
{
	if (!r->builder || (r->kernel_ready && !atomic_load_explicit(r->kernel_ready, memory_order_acquire)))
		return NULL;
	return r->builder->p;
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
	naming_count(r, p);
	naming_builder_free(b);
}

