/* Pushes and counts of report's fold, as messages (see fold_pushes.h).
 *
 * A message is 32-bit words: a header (what, flags), its operands, the
 * runs of folded symbols outermost first (each its count, then its
 * symbols), and the period (two words). They go through a word_ring, or,
 * when one is larger than half the ring (a symbol of thousands of "->"
 * parts), are applied by the sender after the ring is drained. */
#include "perfdata/fold_pushes.h"

#include "base/alloc.h"
#include "base/word_ring.h"

#include <stdlib.h>
#include <unistd.h>

enum { RING_LOG2 = 18 }; /* 1 MiB: a producer ahead by a few thousand samples */

/* A thread is worth its cost when chains push many symbols (short-lived
 * processes), not when they share most nodes with the thread's last chain
 * (long-lived threads: well under one symbol pushed per chain). The pushes start
 * on the sender's thread and move to their own at the end of the first
 * window of WINDOW_CHAINS chains after which the chains sent so far
 * pushed THREAD_SYMS_PER_CHAIN symbols each or more. */
enum { WINDOW_CHAINS = 8192, THREAD_SYMS_PER_CHAIN = 1 };

enum { MSG_CHAIN = 1, MSG_HELD = 2, MSG_KIND = 0xff, FLAG_HOLD = 1 << 8 };

/* The nodes a memo slot's last chain led to, outermost first. */
struct memo_nodes {
	node_t *nodes;
	uint32_t alloc;
};

struct fold_pushes {
	struct profile *p;
	struct word_ring ring;
	/* the applier's */
	struct memo_nodes *memos;
	uint32_t nr_memos;
	node_t *held;
	size_t nr_held, held_alloc;
	/* the sender's: a message too large for the ring */
	uint32_t *big;
	size_t nr_big, big_alloc;
	bool to_big;
	bool may_thread;          /* not on a thread yet, and may go */
	uint64_t chains, syms;    /* chains sent so far, symbols they push */
	bool was_threaded;
};

/* ---- applying --------------------------------------------------------------------- */

/* Words of a message: from the ring, or from an array (mask all ones). */
struct cursor {
	const uint32_t *words;
	size_t mask, *pos;
};

static inline uint32_t next(struct cursor *c)
{
	return c->words[(*c->pos)++ & c->mask];
}

static uint64_t next_u64(struct cursor *c)
{
	uint64_t lo = next(c);
	return lo | (uint64_t)next(c) << 32;
}

/* The runs of a chain's symbols, outermost first: from a message's words
 * (each its count, then its symbols), or, applied as they are sent, from
 * the sender's runs[left - 1] down to runs[0] (no encoding: the words
 * would only be decoded again). */
struct run_source {
	struct cursor *c;
	const uint32_t (*runs)[2];
	const uint32_t *syms;
	size_t left;
};

/* Push the source's next run below node. */
static node_t push_run(struct profile *p, struct run_source *src, node_t node)
{
	if (src->c) {
		for (uint32_t k = next(src->c); k > 0; k--)
			node = profile_push(p, node, next(src->c));
		return node;
	}
	const uint32_t *run = src->runs[--src->left];
	for (const uint32_t *sym = src->syms + run[0], *end = sym + run[1]; sym < end; sym++)
		node = profile_push(p, node, *sym);
	return node;
}

static node_t *memo_nodes(struct fold_pushes *q, uint32_t memo, size_t n)
{
	if (memo >= q->nr_memos) {
		uint32_t nr = memo + 1 > 2 * q->nr_memos ? memo + 1 : 2 * q->nr_memos;
		q->memos = xreallocarray(q->memos, nr, sizeof(*q->memos));
		for (uint32_t i = q->nr_memos; i < nr; i++)
			q->memos[i] = (struct memo_nodes){ 0 };
		q->nr_memos = nr;
	}
	struct memo_nodes *m = &q->memos[memo];
	if (m->alloc < n) {
		m->alloc = (uint32_t)(n > 2 * (size_t)m->alloc ? n : 2 * (size_t)m->alloc);
		m->nodes = xreallocarray(m->nodes, m->alloc, sizeof(*m->nodes));
	}
	return m->nodes;
}

/* A chain's pushes below [cpu,] pname (see fold_pushes_chain): its leaf. */
static node_t chain_leaf(struct fold_pushes *q, sym_t cpu, sym_t pname, uint32_t memo, uint32_t shared,
			 uint32_t rest, struct run_source *src)
{
	struct profile *p = q->p;
	node_t at = PROFILE_ROOT;
	if (cpu != PUSHES_NO_CPU)
		at = profile_push(p, at, cpu);
	at = profile_push(p, at, pname);
	if (memo == PUSHES_NO_MEMO) {
		while (rest-- > 0)
			at = push_run(p, src, at);
		return at;
	}
	node_t *nodes = memo_nodes(q, memo, (size_t)shared + rest);
	if (shared)
		at = nodes[shared - 1];
	for (uint32_t i = 0; i < rest; i++)
		nodes[shared + i] = at = push_run(p, src, at);
	return at;
}

/* A chain's leaf: kept as the next held node, or counted. */
static void chain_end(struct fold_pushes *q, node_t leaf, bool hold, uint64_t period)
{
	if (hold) {
		VEC_GROW(q->held, q->nr_held + 1, q->held_alloc);
		q->held[q->nr_held++] = leaf;
		return;
	}
	profile_count_whole(q->p, leaf, period);
}

/* Below held node `held`, the source's n runs: the leaf. */
static node_t held_leaf(struct fold_pushes *q, uint32_t held, uint32_t n, struct run_source *src)
{
	node_t at = q->held[held];
	for (uint32_t i = 0; i < n; i++)
		at = push_run(q->p, src, at);
	return at;
}

static void apply_chain(struct fold_pushes *q, struct cursor *c, uint32_t head)
{
	sym_t cpu = next(c), pname = next(c);
	uint32_t memo = next(c), shared = next(c), rest = next(c);
	struct run_source src = { .c = c };
	node_t leaf = chain_leaf(q, cpu, pname, memo, shared, rest, &src);
	bool hold = head & FLAG_HOLD;
	chain_end(q, leaf, hold, hold ? 0 : next_u64(c));
}

static void apply_held(struct fold_pushes *q, struct cursor *c)
{
	uint32_t held = next(c), n = next(c);
	struct run_source src = { .c = c };
	node_t leaf = held_leaf(q, held, n, &src);
	profile_count_whole(q->p, leaf, next_u64(c));
}

static void apply(struct fold_pushes *q, struct cursor *c)
{
	uint32_t head = next(c);
	if ((head & MSG_KIND) == MSG_CHAIN)
		apply_chain(q, c, head);
	else
		apply_held(q, c);
}

static void apply_from_ring(void *arg, struct word_ring *r)
{
	struct cursor c = { r->words, r->mask, &r->take };
	apply(arg, &c);
}

/* ---- sending ---------------------------------------------------------------------- */

/* Start a message of n words: into the ring, or when that is more than
 * half of it, into q->big. */
static void begin(struct fold_pushes *q, size_t n)
{
	q->to_big = n > (q->ring.mask + 1) / 2;
	if (q->to_big) {
		q->nr_big = 0;
		VEC_GROW(q->big, n, q->big_alloc);
	} else
		word_ring_reserve(&q->ring, n);
}

static inline void put(struct fold_pushes *q, uint32_t w)
{
	if (q->to_big)
		q->big[q->nr_big++] = w;
	else
		word_ring_put(&q->ring, w);
}

static void put_u64(struct fold_pushes *q, uint64_t v)
{
	put(q, (uint32_t)v);
	put(q, (uint32_t)(v >> 32));
}

static void end(struct fold_pushes *q)
{
	if (!q->to_big) {
		word_ring_commit(&q->ring);
		return;
	}
	word_ring_sync(&q->ring); /* the ring's messages first */
	size_t pos = 0;
	struct cursor c = { q->big, SIZE_MAX, &pos };
	apply(q, &c);
}

/* After a chain applied as sent that pushed syms symbols, while the
 * pushes may go to a thread: they go when the chains pushed enough (see
 * above). */
static void note_pushes(struct fold_pushes *q, size_t syms)
{
	q->syms += syms;
	if (++q->chains % WINDOW_CHAINS)
		return;
	if (q->syms >= THREAD_SYMS_PER_CHAIN * q->chains) {
		q->may_thread = false;
		word_ring_stop(&q->ring); /* every message is applied */
		word_ring_start(&q->ring, RING_LOG2, true, apply_from_ring, q);
		q->was_threaded |= q->ring.threaded;
	}
}

/* Words of runs[0..n): a count each and their symbols. */
static size_t runs_words(const uint32_t (*runs)[2], size_t n)
{
	size_t w = n;
	for (size_t i = 0; i < n; i++)
		w += runs[i][1];
	return w;
}

/* runs[n - 1] down to runs[0]. */
static void put_runs(struct fold_pushes *q, const uint32_t (*runs)[2], size_t n, const uint32_t *syms)
{
	for (size_t i = n; i-- > 0;) {
		const uint32_t *sym = syms + runs[i][0], *stop = sym + runs[i][1];
		put(q, runs[i][1]);
		for (; sym < stop; sym++)
			put(q, *sym);
	}
}

void fold_pushes_chain(struct fold_pushes *q, sym_t cpu, sym_t pname, uint32_t memo, uint32_t shared,
		       const uint32_t (*runs)[2], size_t rest, const uint32_t *syms, bool hold, uint64_t period)
{
	if (!q->ring.threaded) {
		struct run_source src = { .runs = runs, .syms = syms, .left = rest };
		chain_end(q, chain_leaf(q, cpu, pname, memo, shared, (uint32_t)rest, &src), hold, period);
		if (q->may_thread)
			note_pushes(q, runs_words(runs, rest) - rest);
		return;
	}
	size_t words = runs_words(runs, rest);
	begin(q, 6 + words + (hold ? 0 : 2));
	put(q, MSG_CHAIN | (hold ? FLAG_HOLD : 0));
	put(q, cpu);
	put(q, pname);
	put(q, memo);
	put(q, shared);
	put(q, (uint32_t)rest);
	put_runs(q, runs, rest, syms);
	if (!hold)
		put_u64(q, period);
	end(q);
}

void fold_pushes_held(struct fold_pushes *q, uint32_t held, const uint32_t (*runs)[2], size_t n,
		      const uint32_t *syms, uint64_t period)
{
	if (!q->ring.threaded) {
		struct run_source src = { .runs = runs, .syms = syms, .left = n };
		profile_count_whole(q->p, held_leaf(q, held, (uint32_t)n, &src), period);
		if (q->may_thread)
			note_pushes(q, runs_words(runs, n) - n);
		return;
	}
	size_t words = runs_words(runs, n);
	begin(q, 3 + words + 2);
	put(q, MSG_HELD);
	put(q, held);
	put(q, (uint32_t)n);
	put_runs(q, runs, n, syms);
	put_u64(q, period);
	end(q);
}

/* ---- the whole -------------------------------------------------------------------- */

struct fold_pushes *fold_pushes_new(struct profile *p, enum fold_pushes_mode mode)
{
	struct fold_pushes *q = xcalloc(1, sizeof(*q));
	q->p = p;
	q->may_thread = mode == PUSHES_MAY_THREAD;
	word_ring_start(&q->ring, RING_LOG2, mode == PUSHES_ON_A_THREAD, apply_from_ring, q);
	q->was_threaded = q->ring.threaded;
	return q;
}

bool fold_pushes_threaded(const struct fold_pushes *q)
{
	return q->was_threaded;
}

void fold_pushes_sync(struct fold_pushes *q)
{
	word_ring_sync(&q->ring);
}

void fold_pushes_unthread(struct fold_pushes *q)
{
	q->may_thread = false;
	if (!q->ring.threaded)
		return;
	word_ring_stop(&q->ring);
	word_ring_start(&q->ring, RING_LOG2, false, apply_from_ring, q);
}

void fold_pushes_free(struct fold_pushes *q)
{
	if (!q)
		return;
	word_ring_stop(&q->ring);
	for (uint32_t i = 0; i < q->nr_memos; i++)
		free(q->memos[i].nodes);
	free(q->memos);
	free(q->held);
	free(q->big);
	free(q);
}
