/* The fast path of the perf script collapser and the chunk loop: a sample
 * whose frame block was seen before is counted from the caches of
 * perf_cache.h without parsing its lines (see perf_script.c). */
#include "collapse/perf_chunk.h"

#include "base/alloc.h"
#include "base/hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The first "\n\n" at or after p (p[0] and p[1] both newlines), or NULL. */
const char *perf_find_blank(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
	while (end - p >= 17) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_and_si128(_mm_cmpeq_epi8(a, nl), _mm_cmpeq_epi8(b, nl)));
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	for (; end - p >= 2; p++)
		if (p[0] == '\n' && p[1] == '\n')
			return p;
	return NULL;
}

/* The process node of the current sample: consecutive samples of one
 * thread share it, so the previous answer is checked first. */
static node_t current_pnode(struct perf_chunk *c)
{
	struct frame_slice pn = frame_part(&c->pname, 0);
	if (c->have_last_pname && pn.n == c->last_pname_len && !memcmp(pn.s, c->last_pname, pn.n))
		return c->last_pnode;
	node_t node = perf_pname_node(c, pn.s, pn.n);
	VEC_GROW(c->last_pname, pn.n + 1, c->last_pname_alloc);
	memcpy(c->last_pname, pn.s, pn.n);
	c->last_pname_len = pn.n;
	c->last_pnode = node;
	c->have_last_pname = true;
	return node;
}

static node_t leaf_for(struct perf_chunk *c, node_t pnode, uint32_t seq)
{
	uint64_t key = (uint64_t)pnode << 32 | seq;
	uint32_t v;
	if (hashmap_get(&c->leaves, key, &v))
		return v;
	uint32_t n;
	const sym_t *syms = perf_seq(&c->seqs, seq, &n);
	node_t node = pnode;
	for (uint32_t i = 0; i < n; i++)
		node = profile_push(c->p, node, syms[i]);
	bool inserted;
	uint32_t *slot = hashmap_upsert(&c->leaves, key, node, &inserted);
	*slot = node;
	return node;
}

/* Periods summed before they are counted: saturated past 2^64 - 1, and
 * the profile marked as overflowed (its reader reports it). */
static void acc_add(struct perf_chunk *c, uint64_t *acc, uint64_t period)
{
	if (__builtin_add_overflow(*acc, period, acc)) {
		*acc = UINT64_MAX;
		c->p->overflow = true;
	}
}

/* Count the sample (period c->period, process c->pname) on block b: the
 * periods of consecutive samples of one process add up in the block, and
 * go to their leaf when another process comes (or at the end). */
static void count_on_block(struct perf_chunk *c, struct perf_block *b)
{
	node_t pnode = current_pnode(c);
	if (c->p->keep_events) {
		/* A flame chart: every sample is an event, in input order. */
		profile_count_whole(c->p, leaf_for(c, pnode, b->seq), c->period);
		return;
	}
	if (b->pnode == pnode) {
		acc_add(c, &b->acc, c->period);
		return;
	}
	if (b->pnode != PERF_NONE)
		profile_count_whole(c->p, leaf_for(c, b->pnode, b->seq), b->acc);
	b->pnode = pnode;
	b->acc = c->period;
}

/* ---- shared first parses (perf_chunk.h) ---- */

static bool owned_elsewhere(const struct perf_chunk *c, struct perf_fp fp)
{
	uint32_t owners = c->cfg->owners;
	return owners > 1 && (uint32_t)((fp.check >> 32) % owners) != c->index;
}

static uint32_t owner_of(const struct perf_chunk *c, struct perf_fp fp)
{
	return (uint32_t)((fp.check >> 32) % c->cfg->owners);
}

/* The index of the current sample's process name among those sent. */
static uint32_t pname_sent(struct perf_chunk *c)
{
	node_t pnode = current_pnode(c);
	if (c->have_last_out && c->last_out_node == pnode)
		return c->last_out_pname;
	uint32_t idx;
	if (!hashmap_get(&c->pname_out, pnode, &idx)) {
		struct frame_slice pn = frame_part(&c->pname, 0);
		VEC_GROW(c->pnames_out, c->npnames_out + 1, c->pnames_out_alloc);
		char *copy = xmalloc(pn.n + 1);
		memcpy(copy, pn.s, pn.n);
		copy[pn.n] = '\0';
		c->pnames_out[c->npnames_out] = (struct perf_text){ copy, pn.n };
		idx = (uint32_t)c->npnames_out++;
		bool inserted;
		*hashmap_upsert(&c->pname_out, pnode, idx, &inserted) = idx;
	}
	c->last_out_node = pnode;
	c->last_out_pname = idx;
	c->have_last_out = true;
	return idx;
}

static void send_pending(struct perf_chunk *c, struct perf_block *b, struct perf_fp fp)
{
	struct perf_outbox *o = &c->outbox[owner_of(c, fp)];
	VEC_GROW(o->counts, o->ncounts + 1, o->counts_alloc);
	o->counts[o->ncounts++] = (struct perf_foreign_count){ b->seq & ~PERF_FOREIGN, b->pnode, b->acc };
	b->pnode = PERF_NONE;
	b->acc = 0;
}

/* Make b (just found or added, not parsed here) a block another chunk
 * parses: its outbox record names one copy of its bytes. (Past 2^31
 * records, b stays a block this chunk parses.) */
static void make_foreign(struct perf_chunk *c, struct perf_block *b, struct perf_fp fp,
			 const char *bs, uint32_t len, bool java)
{
	struct perf_outbox *o = &c->outbox[owner_of(c, fp)];
	if (o->nblocks >= PERF_FOREIGN - 1)
		return;
	VEC_GROW(o->blocks, o->nblocks + 1, o->blocks_alloc);
	o->blocks[o->nblocks] = (struct perf_foreign_block){ fp, len, java, bs };
	b->seq = PERF_FOREIGN | (uint32_t)o->nblocks++;
	b->pnode = PERF_NONE;
	b->acc = 0;
}

/* Count the sample on a block another chunk parses. */
static void count_foreign(struct perf_chunk *c, struct perf_block *b, struct perf_fp fp)
{
	uint32_t pname = pname_sent(c);
	if (b->pnode == pname) {
		acc_add(c, &b->acc, c->period);
		return;
	}
	if (b->pnode != PERF_NONE)
		send_pending(c, b, fp);
	b->pnode = pname;
	b->acc = c->period;
}

/* At the chunk's end: count or send every pending count. */
static void flush_pending(struct perf_chunk *c)
{
	struct perf_blocks *t = &c->blocks;
	for (size_t i = 0; i <= t->mask; i++) {
		struct perf_block *b = &t->slots[i];
		if (!perf_block_used(b) || b->pnode == PERF_NONE)
			continue;
		if (perf_block_foreign(b)) {
			send_pending(c, b, (struct perf_fp){ b->key, b->check });
		} else {
			profile_count_whole(c->p, leaf_for(c, b->pnode, b->seq), b->acc);
			b->pnode = PERF_NONE;
			b->acc = 0;
		}
	}
}

/* The frames of one frame line, from the line cache or parsed. Returns
 * false when the line is not a frame line. The cache key is what the
 * frames depend on: the symbol without its +0x offset, the module, the
 * Java flag, and with --addrs the address; so the many lines that differ
 * only in address and offset share one entry. */
static bool line_syms(struct perf_chunk *c, const char *line, size_t n)
{
	/* The script tries the event-line regex first: a line that starts
	 * with a non-blank byte and has " DIGITS " after its first two bytes
	 * is an event line, even when it also looks like a frame. */
	struct perf_event_line ev;
	if (n && !frame_is_space(line[0]) && perf_match_event_line(line, n, &ev))
		return false;
	struct frame_text fr;
	if (!perf_match_frame_line(line, n, &fr))
		return false;
	size_t rn = frame_strip_offset(fr.symbol.s, fr.symbol.n);
	struct perf_fp a = c->cfg->tidy.addrs
				   ? perf_fingerprint(fr.pc.s, (size_t)(fr.module.s + fr.module.n - fr.pc.s), c->java)
				   : perf_fingerprint(fr.symbol.s, rn, c->java);
	struct perf_fp m = perf_fingerprint(fr.module.s, fr.module.n, false);
	struct perf_fp fp = { hash_mix(a.key ^ 0x9e3779b97f4a7c15ull, m.key ^ a.check),
			      hash_mix(a.check ^ 0xc2b2ae3d27d4eb4full, m.check ^ a.key) };
	const sym_t *syms;
	uint32_t ns;
	if (perf_lines_get(&c->lines, fp, &syms, &ns)) {
		VEC_GROW(c->lsyms, c->nlsyms + ns, c->lsyms_alloc);
		if (ns)
			memcpy(c->lsyms + c->nlsyms, syms, ns * sizeof(*syms));
		c->nlsyms += ns;
		return true;
	}
	struct frame_opts t = c->cfg->tidy;
	t.java = c->java;
	struct frame_parts *sp = &c->scratch;
	sp->len = sp->nr = 0;
	size_t mark = c->nsyms;
	if (frame_names(&fr, &t, sp)) {
		for (size_t i = 0; i < sp->nr; i++) {
			struct frame_slice part = frame_part(sp, i);
			perf_push_split(c, part.s, part.n);
		}
	}
	uint32_t got = (uint32_t)(c->nsyms - mark);
	perf_lines_add(&c->lines, fp, got ? c->syms + mark : NULL, got);
	VEC_GROW(c->lsyms, c->nlsyms + got, c->lsyms_alloc);
	if (got)
		memcpy(c->lsyms + c->nlsyms, c->syms + mark, got * sizeof(*c->syms));
	c->nlsyms += got;
	c->nsyms = mark;
	return true;
}

/* Fold a block of frame lines (and comments) into a frame sequence, root
 * first: lines in reverse order, each line's frames in written order.
 * Returns PERF_NONE when some line is neither, leaving it to the general
 * path. */
static uint32_t fold_block(struct perf_chunk *c, const char *bs, const char *be)
{
	c->nlsyms = 0;
	c->nlstarts = 0;
	c->nsyms = 0;
	struct perf_cursor cur = { bs, be };
	const char *line;
	size_t n;
	while (perf_next_line(&cur, &line, &n)) {
		if (n && line[0] == '#')
			continue;
		VEC_GROW(c->lstarts, c->nlstarts + 1, c->lstarts_alloc);
		c->lstarts[c->nlstarts++] = (uint32_t)c->nlsyms;
		if (!line_syms(c, line, n))
			return PERF_NONE;
	}
	c->nsyms = 0;
	VEC_GROW(c->syms, c->nlsyms, c->syms_alloc);
	for (size_t l = c->nlstarts; l-- > 0;) {
		size_t from = c->lstarts[l];
		size_t to = l + 1 < c->nlstarts ? c->lstarts[l + 1] : c->nlsyms;
		if (to > from)
			memcpy(c->syms + c->nsyms, c->lsyms + from, (to - from) * sizeof(*c->syms));
		c->nsyms += to - from;
	}
	return perf_seqs_intern(&c->seqs, c->syms, (uint32_t)c->nsyms);
}

/* Find the blank line ending the block after the event line that ends at
 * nl (the first "\n\n" at or after nl) and fingerprint the block on the
 * way, in one pass over its bytes. */
static const char *blank_and_fp(struct perf_chunk *c, const char *nl, bool java, struct perf_fp *fp)
{
	const char *end = c->end;
	if (c->bscan_valid && nl >= c->bscan_from && (!c->bscan_res || c->bscan_res >= nl)) {
		/* Answer known (or known absent) from an earlier scan. */
		const char *b = c->bscan_res;
		if (b)
			*fp = perf_fingerprint(nl + 1, (size_t)(b + 1 - (nl + 1)), java);
		return b;
	}
	const char *bs = nl + 1, *p = bs, *found = NULL;
	struct perf_fp_state st = perf_fp_begin(java);
	if (bs < end && *bs == '\n') {
		found = nl;
	} else {
#ifdef __SSE2__
		const __m128i lf = _mm_set1_epi8('\n');
		/* 32 bytes a step while no blank line is in sight: the even and
		 * odd words go to their lanes directly (perf_fp_word's parity
		 * rule, as st.n stays a multiple of 32 here). */
		uint64_t e0 = st.h[0], e1 = st.h[1], o0 = st.h[2], o1 = st.h[3];
		while (end - p >= 33) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
			__m128i b1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 17));
			__m128i pa = _mm_and_si128(_mm_cmpeq_epi8(a, lf), _mm_cmpeq_epi8(a1, lf));
			__m128i pb = _mm_and_si128(_mm_cmpeq_epi8(b, lf), _mm_cmpeq_epi8(b1, lf));
			if (_mm_movemask_epi8(_mm_or_si128(pa, pb)))
				break;
			uint64_t x, y;
			memcpy(&x, p, 8);
			memcpy(&y, p + 8, 8);
			e0 = hash_mix(x ^ 0xa4093822299f31d0ull, y ^ e0);
			e1 = hash_mix(y ^ 0x082efa98ec4e6c89ull, x ^ e1 ^ 0x452821e638d01377ull);
			memcpy(&x, p + 16, 8);
			memcpy(&y, p + 24, 8);
			o0 = hash_mix(x ^ 0xa4093822299f31d0ull, y ^ o0);
			o1 = hash_mix(y ^ 0x082efa98ec4e6c89ull, x ^ o1 ^ 0x452821e638d01377ull);
			p += 32;
			st.n += 32;
		}
		st.h[0] = e0;
		st.h[1] = e1;
		st.h[2] = o0;
		st.h[3] = o1;
		while (end - p >= 17) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
			unsigned m = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(a, lf), _mm_cmpeq_epi8(b, lf)));
			if (m) {
				found = p + __builtin_ctz(m);
				break;
			}
			perf_fp_word(&st, p);
			p += 16;
		}
#endif
		if (!found) {
			for (const char *q = p; end - q >= 2; q++)
				if (q[0] == '\n' && q[1] == '\n') {
					found = q;
					break;
				}
		}
	}
	c->bscan_from = nl;
	c->bscan_res = found;
	c->bscan_valid = true;
	if (!found)
		return NULL;
	/* The block is [bs, found + 1): words from p on, then the tail. */
	const char *be = found + 1;
	while (be - p >= 16) {
		perf_fp_word(&st, p);
		p += 16;
	}
	*fp = perf_fp_end(&st, p, (size_t)(be - p));
	return found;
}

/* Locate the sample starting at p: event line end, blank line, block
 * fingerprint. False when p does not start a complete sample. */
static bool scan_sample(struct perf_chunk *c, const char *p, struct perf_sample_scan *s)
{
	const char *end = c->end;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	s->ok = false;
	if (!nl || nl == p || p[0] == '#')
		return false;
	/* The process name starts with "java" exactly when the line does
	 * (a comm is at least the bytes before the first blank). */
	s->java = nl - p >= 4 && !memcmp(p, "java", 4);
	s->blank = blank_and_fp(c, nl, s->java, &s->fp);
	if (!s->blank || (size_t)(s->blank - nl) > UINT32_MAX)
		return false;
	s->nl = nl;
	s->ok = true;
	return true;
}

/* At a sample start (empty state): fold "event line, frames, blank line"
 * from the caches when possible. Returns where to continue, or NULL to
 * take the general path for this line. */
static const char *try_fast(struct perf_chunk *c, const char *p)
{
	struct perf_sample_scan s;
	if (c->peek_at == p)
		s = c->peek;
	else
		scan_sample(c, p, &s);
	c->peek_at = NULL;
	if (!s.ok)
		return NULL;
	const char *nl = s.nl;
	struct perf_event_line ev;
	if (!perf_match_event_line(p, (size_t)(nl - p), &ev))
		return NULL;
	const char *bs = nl + 1, *be = s.blank + 1, *next = s.blank + 2;
	size_t bn = (size_t)(be - bs);
	bool java = s.java;
	struct perf_fp fp = s.fp;
	const struct perf_filter *f = c->cfg->filter;
	bool dropped = ev.has_event && f->set &&
		       !(ev.event.n == f->len && !memcmp(ev.event.s, f->name, f->len));
	/* Look ahead one sample and start fetching its slot. */
	if (next < c->end && scan_sample(c, next, &c->peek)) {
		c->peek_at = next;
		perf_blocks_prefetch(&c->blocks, c->peek.fp);
	}
	struct perf_block *b = perf_blocks_find(&c->blocks, fp);
	if (b && dropped) {
		if (!c->diag->dropped) {
			c->diag->dropped = ev.event.s;
			c->diag->dropped_len = ev.event.n;
		}
		return next;
	}
	if (!dropped) {
		perf_start_sample(c, &ev);
		c->have_pname = false;
		if ((!b || b->seq == PERF_NONE) && owned_elsewhere(c, fp)) {
			if (!b)
				b = perf_blocks_add(&c->blocks, fp);
			if (b)
				make_foreign(c, b, fp, bs, (uint32_t)bn, java);
		}
		if (b && perf_block_foreign(b)) {
			count_foreign(c, b, fp);
			return next;
		}
		if (!b || b->seq == PERF_NONE) {
			uint32_t seq = fold_block(c, bs, be);
			if (seq != PERF_NONE) {
				if (!b)
					b = perf_blocks_add(&c->blocks, fp);
				if (!b) {
					/* Table full: count without caching the block. */
					profile_count_whole(c->p, leaf_for(c, current_pnode(c), seq), c->period);
					return next;
				}
				b->seq = seq;
			}
		}
		if (b && b->seq != PERF_NONE) {
			count_on_block(c, b);
			return next;
		}
	}
	/* A filtered sample whose block is new, or a block with other lines
	 * than frames: the general path, line by line. A filtered block of
	 * only frame lines is remembered so that its next filtered copy is
	 * skipped at once. */
	c->rec_simple = true;
	perf_process_line(c, p, (size_t)(nl - p), NULL);
	c->rec_simple = true;
	perf_process_range(c, bs, next);
	if (dropped && !b && c->rec_simple && !c->diag->failed)
		perf_blocks_add(&c->blocks, fp);
	return next;
}

/* Pages behind p are not read again, except the few that messages point
 * into (bad lines, event names) and the blocks other chunks parse: those
 * are read back from the file. Only whole pages of the piece go, at every
 * DROP_WINDOW bytes and at its end (all: the piece's end). */
static void drop_parsed(struct perf_chunk *c, const char *p, bool all)
{
	if (!c->buf->mapped || (!all && p - c->drop_from < DROP_WINDOW))
		return;
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)c->drop_from + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	uintptr_t to = (uintptr_t)p & ~((uintptr_t)pg - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
	c->drop_from = p;
}

void perf_run_piece(struct perf_chunk *c, struct perf_piece *piece)
{
	c->buf = piece->buf;
	c->begin = piece->begin;
	c->end = piece->end;
	c->diag = &piece->diag;
	c->bscan_valid = false;
	c->peek_at = NULL;
	perf_clear_sample(c);
	const char *p = c->begin;
	struct perf_cursor cur = { p, c->end };
	c->drop_from = p;
	while (p < c->end && !c->diag->failed) {
		if (c->cfg->fast && !c->have_pname) {
			const char *q = try_fast(c, p);
			if (q) {
				p = q;
				drop_parsed(c, p, false);
				continue;
			}
		}
		cur.p = p;
		const char *line;
		size_t n;
		if (!perf_next_line(&cur, &line, &n))
			break;
		perf_process_line(c, line, n, &cur);
		p = cur.p;
		drop_parsed(c, p, false);
	}
	drop_parsed(c, p, true);
}

void perf_end_chunk(struct perf_chunk *c)
{
	flush_pending(c);
}

int perf_take_foreign(struct perf_chunk *owner, const struct perf_chunk *from)
{
	const struct perf_outbox *o = &from->outbox[owner->index];
	uint32_t *seqs = xreallocarray(NULL, o->nblocks ? o->nblocks : 1, sizeof(*seqs));
	int ret = 0;
	for (size_t i = 0; i < o->nblocks && !ret; i++) {
		const struct perf_foreign_block *r = &o->blocks[i];
		struct perf_block *b = perf_blocks_find(&owner->blocks, r->fp);
		if (b && b->seq != PERF_NONE && !perf_block_foreign(b)) {
			seqs[i] = b->seq;
			continue;
		}
		/* Never met here: parse it now, as where it was met. */
		owner->java = r->java;
		seqs[i] = fold_block(owner, r->bs, r->bs + r->len);
		if (seqs[i] == PERF_NONE) {
			ret = -1;
			break;
		}
		if (!b)
			b = perf_blocks_add(&owner->blocks, r->fp);
		if (b && !perf_block_foreign(b))
			b->seq = seqs[i];
	}
	/* The sender's process names, as nodes here (made when first used). */
	node_t *pnodes = xreallocarray(NULL, from->npnames_out ? from->npnames_out : 1, sizeof(*pnodes));
	for (size_t i = 0; i < from->npnames_out; i++)
		pnodes[i] = PERF_NONE;
	for (size_t i = 0; i < o->ncounts && !ret; i++) {
		const struct perf_foreign_count *k = &o->counts[i];
		if (pnodes[k->pname] == PERF_NONE) {
			const struct perf_text *t = &from->pnames_out[k->pname];
			pnodes[k->pname] = perf_pname_node(owner, t->s, t->n);
		}
		profile_count_whole(owner->p, leaf_for(owner, pnodes[k->pname], seqs[k->block]), k->acc);
	}
	free(pnodes);
	free(seqs);
	return ret;
}

void perf_chunk_init(struct perf_chunk *c, const struct perf_cfg *cfg, struct profile *p)
{
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	if (p) {
		c->p = p;
	} else {
		c->p = xmalloc(sizeof(*c->p));
		profile_init(c->p);
		c->own_profile = true;
	}
	perf_blocks_init(&c->blocks);
	perf_lines_init(&c->lines);
	perf_seqs_init(&c->seqs);
	hashmap_init(&c->pnames);
	hashmap_init(&c->leaves);
	hashmap_init(&c->pname_out);
	if (cfg->owners > 1)
		c->outbox = xcalloc(cfg->owners, sizeof(*c->outbox));
}

void perf_chunk_release(struct perf_chunk *c)
{
	if (c->own_profile) {
		profile_release(c->p);
		free(c->p);
	}
	frame_parts_release(&c->pname);
	frame_parts_release(&c->frames);
	frame_parts_release(&c->scratch);
	free(c->groups);
	perf_blocks_release(&c->blocks);
	perf_lines_release(&c->lines);
	perf_seqs_release(&c->seqs);
	hashmap_release(&c->pnames);
	hashmap_release(&c->leaves);
	for (uint32_t i = 0; c->outbox && i < c->cfg->owners; i++) {
		free(c->outbox[i].blocks);
		free(c->outbox[i].counts);
	}
	free(c->outbox);
	hashmap_release(&c->pname_out);
	for (size_t i = 0; i < c->npnames_out; i++)
		free(c->pnames_out[i].s);
	free(c->pnames_out);
	free(c->last_pname);
	free(c->lsyms);
	free(c->lstarts);
	free(c->syms);
}

