/* perf script text, folded as stackcollapse-perf.pl folds it.
 *
 * The script is a state machine over lines (flamegraph-pl.md 3.2): an event
 * line names the process and the period, frame lines are prepended to the
 * stack, a blank line emits "pname;stack" += period and clears the state.
 * Every line's class is independent of the state (except with --srcline,
 * which reads the line after a frame as its source line), and the state is
 * empty after a blank line. So the input is cut into chunks just after blank
 * lines and each chunk is folded into its own profile in its own thread;
 * the profiles are merged in chunk order. The one piece of state that
 * crosses samples, the default event filter (the first event name in the
 * input), is found by a pre-scan before the chunks start.
 *
 * Hot path: a sample is "event line + block of frame lines + blank line".
 * The block's bytes are fingerprinted and looked up in a per-chunk cache of
 * blocks already folded, which gives the frames without parsing a line; a
 * second cache maps (process node, block) to the leaf node. Only the first
 * occurrence of a block goes through the line-by-line state machine.
 *
 * A block is identified by its length and a 128-bit fingerprint of its
 * bytes, not by comparing the bytes: keeping (or re-reading) the first
 * occurrence of every distinct block made the resident memory grow with the
 * input (measured: 306 MB for the 1.15 GB bench input, 595 MB with two
 * threads), where the fingerprint keeps it to the stacks. Two different
 * blocks of equal length would need equal 128-bit fingerprints to be
 * confused. */
#include "collapse/perf_script.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "collapse/perf_cache.h"
#include "collapse/perf_line.h"
#ifdef HAVE_ELFUTILS
#include "symbolize/inline.h"
#endif

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum {
	MAX_REPORTED = 10,                  /* bad lines printed one by one */
	MIN_CHUNK = 4 << 20,                /* smaller inputs are not split */
	DROP_WINDOW = 8 << 20,              /* parsed bytes released per madvise */
};

/* The default event filter, shared by all chunks. In sequential mode
 * (--srcline, --inline) it is set by the first event line, as the script
 * does; otherwise by the pre-scan. */
struct perf_filter {
	const char *name;
	size_t len;
	bool set;       /* name is the filter */
	bool defaulted; /* chosen from the input, not --event-filter */
};

struct perf_cfg {
	const struct collapse_opts *opts;
	bool pid, tid;
	bool fast;       /* block cache usable */
	bool sequential; /* one thread, filter set on the fly */
	struct perf_tidy_opts tidy;
	struct perf_filter *filter;
#ifdef HAVE_ELFUTILS
	struct inline_resolver *resolver;
#endif
};

/* One contiguous input buffer: a file, or files joined when a sample runs
 * from one into the next. `segs` name the files in it, for messages. */
struct perf_seg {
	const char *name;
	size_t off;
};

struct perf_buf {
	const char *data;
	size_t len;
	bool mapped;
	struct perf_seg *segs;
	size_t nsegs;
	char *owned;
};

struct chunk {
	const struct perf_cfg *cfg;
	const struct perf_buf *buf;
	const char *begin, *end;
	struct profile *p;
	bool own_profile;

	/* The script's state. */
	bool have_pname;
	bool in_dropped;  /* after an event line the filter skipped */
	bool orphan_seen; /* a frame line outside any sample was reported */
	struct perf_parts pname; /* one part */
	double period;
	bool java;
	struct perf_parts frames; /* parts in line order */
	size_t *groups;           /* first part of each frame line */
	size_t ngroups, groups_alloc;

	/* Caches (perf_cache.h). */
	struct perf_blocks blocks;
	struct perf_lines lines;
	struct perf_seqs seqs;
	struct hashmap pnames;    /* sym of the pname -> its node */
	struct hashmap leaves;    /* pname node << 32 | seq -> leaf */
	char *last_pname;         /* the previous sample's process name ... */
	size_t last_pname_len, last_pname_alloc;
	node_t last_pnode;        /* ... and its node */
	bool have_last_pname;
	sym_t *lsyms;             /* frames of the block being folded, line order */
	size_t nlsyms, lsyms_alloc;
	uint32_t *lstarts;        /* where each line's frames start in lsyms */
	size_t nlstarts, lstarts_alloc;
	sym_t *syms;              /* frames of the sample being emitted */
	size_t nsyms, syms_alloc;
	struct perf_parts scratch;

	bool rec_simple; /* the range folded by the general path held only
			  * frame and comment lines */

	/* Diagnostics, reported by the driver in input order. */
	size_t bad;
	const char *bad_at[MAX_REPORTED];
	size_t bad_len[MAX_REPORTED];
	bool bad_orphan[MAX_REPORTED];
	const char *dropped; /* first event skipped by the default filter */
	size_t dropped_len;
	bool failed;
	const char *drop_from; /* first byte not yet released */
	const char *bscan_from, *bscan_res; /* last find_blank() and its answer */
	bool bscan_valid;
	/* The next sample, scanned ahead so that its cache slot is being
	 * fetched while the current one is counted. */
	const char *peek_at;
	struct sample_scan {
		const char *nl, *blank;
		struct perf_fp fp;
		bool java;
		bool ok;
	} peek;
};

/* ---- the state machine (the general path) ---- */

static void clear_sample(struct chunk *c)
{
	c->have_pname = false;
	c->in_dropped = false;
	c->orphan_seen = false;
	c->frames.len = 0;
	c->frames.nr = 0;
	c->ngroups = 0;
}

static void push_split(struct chunk *c, const char *s, size_t n)
{
	/* The script joins frames with ';' into one key; a name holding ';'
	 * (a process name, --inline or --srcline text) is several levels. */
	for (;;) {
		const char *semi = memchr(s, ';', n);
		size_t k = semi ? (size_t)(semi - s) : n;
		VEC_GROW(c->syms, c->nsyms + 1, c->syms_alloc);
		c->syms[c->nsyms++] = profile_sym(c->p, s, k);
		if (!semi)
			return;
		s = semi + 1;
		n -= k + 1;
	}
}

static node_t pname_node(struct chunk *c, const char *s, size_t n)
{
	sym_t sym = profile_sym(c->p, s, n);
	bool inserted;
	uint32_t *slot = hashmap_upsert(&c->pnames, sym, 0, &inserted);
	if (!inserted)
		return *slot;
	node_t node = PROFILE_ROOT;
	if (!memchr(s, ';', n)) {
		node = profile_push(c->p, node, sym);
	} else {
		size_t mark = c->nsyms;
		push_split(c, s, n);
		for (size_t i = mark; i < c->nsyms; i++)
			node = profile_push(c->p, node, c->syms[i]);
		c->nsyms = mark;
	}
	slot = hashmap_upsert(&c->pnames, sym, node, &inserted);
	*slot = node;
	return node;
}

static void emit(struct chunk *c)
{
	c->nsyms = 0;
	for (size_t g = c->ngroups; g-- > 0;) {
		size_t last = g + 1 < c->ngroups ? c->groups[g + 1] : c->frames.nr;
		for (size_t k = c->groups[g]; k < last; k++) {
			struct perf_slice part = perf_part(&c->frames, k);
			push_split(c, part.s, part.n);
		}
	}
	struct perf_slice pn = perf_part(&c->pname, 0);
	node_t pnode = pname_node(c, pn.s, pn.n);
	node_t node = pnode;
	for (size_t i = 0; i < c->nsyms; i++)
		node = profile_push(c->p, node, c->syms[i]);
	profile_count(c->p, node, c->period);
}

static void report_bad(struct chunk *c, const char *line, size_t n, bool orphan)
{
	if (c->bad < MAX_REPORTED) {
		c->bad_orphan[c->bad] = orphan;
		c->bad_at[c->bad] = line;
		c->bad_len[c->bad] = n;
	}
	c->bad++;
	c->rec_simple = false;
	if (c->cfg->opts->strict)
		c->failed = true;
}

static bool filter_drops(struct chunk *c, const struct perf_event_line *ev)
{
	struct perf_filter *f = c->cfg->filter;
	if (!ev->has_event)
		return false;
	if (!f->set) {
		/* Sequential mode only: the first event seen becomes the filter. */
		f->name = ev->event.s;
		f->len = ev->event.n;
		f->set = true;
		f->defaulted = true;
		return false;
	}
	if (ev->event.n == f->len && !memcmp(ev->event.s, f->name, f->len))
		return false;
	if (!c->dropped) {
		c->dropped = ev->event.s;
		c->dropped_len = ev->event.n;
	}
	return true;
}

static void start_sample(struct chunk *c, const struct perf_event_line *ev)
{
	c->period = perf_period(ev);
	c->pname.len = 0;
	c->pname.nr = 0;
	perf_pname(ev, c->cfg->pid, c->cfg->tid, &c->pname);
	c->java = c->pname.len >= 4 && !memcmp(c->pname.buf, "java", 4);
	c->have_pname = true;
}

struct cursor {
	const char *p, *end;
};

static bool next_line(struct cursor *cur, const char **line, size_t *n)
{
	if (cur->p >= cur->end)
		return false;
	const char *s = cur->p;
	const char *nl = memchr(s, '\n', (size_t)(cur->end - s));
	*line = s;
	*n = nl ? (size_t)(nl - s) : (size_t)(cur->end - s);
	cur->p = nl ? nl + 1 : cur->end;
	return true;
}

static void frame_line(struct chunk *c, const struct perf_frame_line *fr, struct cursor *cur)
{
	const struct collapse_opts *o = c->cfg->opts;
	size_t first = c->frames.nr;
#ifdef HAVE_ELFUTILS
	if (o->inline_frames && perf_inline_applies(fr->module.s, fr->module.n)) {
		const char *r = inline_resolve(c->cfg->resolver, fr->pc.s, fr->pc.n, fr->rawfunc.s,
					       fr->rawfunc.n, fr->module.s, fr->module.n);
		if (r && *r && strcmp(r, "??") && strcmp(r, "??:??:0")) {
			perf_parts_push(&c->frames, r, strlen(r));
			goto added;
		}
	}
#endif
	struct perf_tidy_opts t = c->cfg->tidy;
	t.java = c->java;
	if (!o->srcline) {
		if (!perf_frame_names(fr, &t, &c->frames))
			return;
	} else {
		/* Each part reads the next input line as its source line, up
		 * to the first part that was an [unknown] symbol. */
		struct perf_parts *sp = &c->scratch;
		sp->len = sp->nr = 0;
		if (!perf_frame_names(fr, &t, sp))
			return;
		for (size_t i = 0; i < sp->nr; i++) {
			struct perf_slice part = perf_part(sp, i);
			perf_parts_push(&c->frames, part.s, part.n);
			if (i < sp->first_unknown) {
				const char *sl = "";
				size_t sn = 0;
				if (cur)
					next_line(cur, &sl, &sn);
				perf_append_srcline(&c->frames, sl, sn);
			}
		}
	}
#ifdef HAVE_ELFUTILS
added:
#endif
	if (c->frames.nr == first)
		return;
	/* The line's parts go in front of the stack: record the group. */
	VEC_GROW(c->groups, c->ngroups + 1, c->groups_alloc);
	c->groups[c->ngroups++] = first;
}

static void process_line(struct chunk *c, const char *line, size_t n, struct cursor *cur)
{
	if (n && line[0] == '#')
		return;
	if (n == 0) {
		if (c->have_pname)
			emit(c);
		clear_sample(c);
		return;
	}
	struct perf_event_line ev;
	if (perf_match_event_line(line, n, &ev)) {
		c->rec_simple = false;
		if (filter_drops(c, &ev)) {
			c->in_dropped = true;
			return;
		}
		start_sample(c, &ev);
		return;
	}
	struct perf_frame_line fr;
	if (perf_match_frame_line(line, n, &fr)) {
		if (!c->have_pname) {
			/* The script skips it silently. Frames of a filtered
			 * event are expected; others have lost their event line
			 * (report the first of each run). */
			if (!c->in_dropped && !c->orphan_seen) {
				c->orphan_seen = true;
				report_bad(c, line, n, true);
			}
			return;
		}
		frame_line(c, &fr, cur);
		return;
	}
	report_bad(c, line, n, false);
}

/* ---- the fast path ---- */

/* The first "\n\n" at or after p (p[0] and p[1] both newlines), or NULL. */
static const char *find_blank(const char *p, const char *end)
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

static void process_range(struct chunk *c, const char *from, const char *to)
{
	struct cursor cur = { from, to };
	const char *line;
	size_t n;
	while (!c->failed && next_line(&cur, &line, &n))
		process_line(c, line, n, &cur);
}

/* The process node of the current sample: consecutive samples of one
 * thread share it, so the previous answer is checked first. */
static node_t current_pnode(struct chunk *c)
{
	struct perf_slice pn = perf_part(&c->pname, 0);
	if (c->have_last_pname && pn.n == c->last_pname_len && !memcmp(pn.s, c->last_pname, pn.n))
		return c->last_pnode;
	node_t node = pname_node(c, pn.s, pn.n);
	VEC_GROW(c->last_pname, pn.n + 1, c->last_pname_alloc);
	memcpy(c->last_pname, pn.s, pn.n);
	c->last_pname_len = pn.n;
	c->last_pnode = node;
	c->have_last_pname = true;
	return node;
}

static node_t leaf_for(struct chunk *c, node_t pnode, uint32_t seq)
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

/* Count the sample (period c->period, process c->pname) on block b. */
static void count_on_block(struct chunk *c, struct perf_block *b)
{
	node_t pnode = current_pnode(c);
	if (b->leaf != PERF_NONE && b->pnode == pnode) {
		b->acc += c->period;
		return;
	}
	if (b->leaf != PERF_NONE)
		profile_count(c->p, b->leaf, b->acc);
	b->pnode = pnode;
	b->leaf = leaf_for(c, pnode, b->seq);
	b->acc = c->period;
}

/* The frames of one frame line, from the line cache or parsed. Returns
 * false when the line is not a frame line. The cache key is what the
 * frames depend on: the symbol without its +0x offset, the module, the
 * Java flag, and with --addrs the address; so the many lines that differ
 * only in address and offset share one entry. */
static bool line_syms(struct chunk *c, const char *line, size_t n)
{
	struct perf_frame_line fr;
	if (!perf_match_frame_line(line, n, &fr))
		return false;
	size_t rn = perf_strip_offset(fr.rawfunc.s, fr.rawfunc.n);
	struct perf_fp a = c->cfg->tidy.addrs
				   ? perf_fingerprint(fr.pc.s, (size_t)(fr.module.s + fr.module.n - fr.pc.s), c->java)
				   : perf_fingerprint(fr.rawfunc.s, rn, c->java);
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
	struct perf_tidy_opts t = c->cfg->tidy;
	t.java = c->java;
	struct perf_parts *sp = &c->scratch;
	sp->len = sp->nr = 0;
	size_t mark = c->nsyms;
	if (perf_frame_names(&fr, &t, sp)) {
		for (size_t i = 0; i < sp->nr; i++) {
			struct perf_slice part = perf_part(sp, i);
			push_split(c, part.s, part.n);
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
static uint32_t fold_block(struct chunk *c, const char *bs, const char *be)
{
	c->nlsyms = 0;
	c->nlstarts = 0;
	c->nsyms = 0;
	struct cursor cur = { bs, be };
	const char *line;
	size_t n;
	while (next_line(&cur, &line, &n)) {
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
static const char *blank_and_fp(struct chunk *c, const char *nl, bool java, struct perf_fp *fp)
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
static bool scan_sample(struct chunk *c, const char *p, struct sample_scan *s)
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
static const char *try_fast(struct chunk *c, const char *p)
{
	struct sample_scan s;
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
	struct perf_block *b = perf_blocks_find(&c->blocks, fp, (uint32_t)bn, java);
	if (b && dropped) {
		if (!c->dropped) {
			c->dropped = ev.event.s;
			c->dropped_len = ev.event.n;
		}
		return next;
	}
	if (!dropped) {
		start_sample(c, &ev);
		c->have_pname = false;
		if (!b || b->seq == PERF_NONE) {
			uint32_t seq = fold_block(c, bs, be);
			if (seq != PERF_NONE) {
				if (!b)
					b = perf_blocks_add(&c->blocks, fp, (uint32_t)bn, java);
				if (!b) {
					/* Table full: count without caching the block. */
					profile_count(c->p, leaf_for(c, current_pnode(c), seq), c->period);
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
	process_line(c, p, (size_t)(nl - p), NULL);
	c->rec_simple = true;
	process_range(c, bs, next);
	if (dropped && !b && c->rec_simple && !c->failed)
		perf_blocks_add(&c->blocks, fp, (uint32_t)bn, java);
	return next;
}

/* Pages behind p are not read again, except the few that messages point
 * into (bad lines, event names): those are read back from the file. */
static void drop_parsed(struct chunk *c, const char *p)
{
	if (!c->buf->mapped || p - c->drop_from < DROP_WINDOW)
		return;
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)c->drop_from + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	uintptr_t to = (uintptr_t)p & ~((uintptr_t)pg - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
	c->drop_from = p;
}

static void *run_chunk(void *arg)
{
	struct chunk *c = arg;
	const char *p = c->begin;
	struct cursor cur = { p, c->end };
	c->drop_from = p;
	while (p < c->end && !c->failed) {
		if (c->cfg->fast && !c->have_pname) {
			const char *q = try_fast(c, p);
			if (q) {
				p = q;
				drop_parsed(c, p);
				continue;
			}
		}
		cur.p = p;
		const char *line;
		size_t n;
		next_line(&cur, &line, &n);
		process_line(c, line, n, &cur);
		p = cur.p;
		drop_parsed(c, p);
	}
	perf_blocks_flush(&c->blocks, c->p);
	return NULL;
}

static void chunk_init(struct chunk *c, const struct perf_cfg *cfg, const struct perf_buf *b,
		       const char *begin, const char *end, struct profile *p)
{
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->buf = b;
	c->begin = begin;
	c->end = end;
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
}

static void chunk_release(struct chunk *c)
{
	if (c->own_profile) {
		profile_release(c->p);
		free(c->p);
	}
	perf_parts_release(&c->pname);
	perf_parts_release(&c->frames);
	perf_parts_release(&c->scratch);
	free(c->groups);
	perf_blocks_release(&c->blocks);
	perf_lines_release(&c->lines);
	perf_seqs_release(&c->seqs);
	hashmap_release(&c->pnames);
	hashmap_release(&c->leaves);
	free(c->last_pname);
	free(c->lsyms);
	free(c->lstarts);
	free(c->syms);
}

/* ---- the driver ---- */

static void where(const struct perf_buf *b, const char *at, const char **name, size_t *line)
{
	size_t off = (size_t)(at - b->data);
	size_t s = 0;
	while (s + 1 < b->nsegs && b->segs[s + 1].off <= off)
		s++;
	*name = b->segs[s].name;
	size_t nl = 1;
	const char *p = b->data + b->segs[s].off;
	while (p < at) {
		const char *q = memchr(p, '\n', (size_t)(at - p));
		if (!q)
			break;
		nl++;
		p = q + 1;
	}
	*line = nl;
}

static void first_event(const struct perf_buf *bufs, size_t nb, struct perf_filter *f)
{
	for (size_t i = 0; i < nb && !f->set; i++) {
		struct cursor cur = { bufs[i].data, bufs[i].data + bufs[i].len };
		const char *line;
		size_t n;
		while (next_line(&cur, &line, &n)) {
			struct perf_event_line ev;
			if (!n || line[0] == '#' || perf_is_space(line[0]))
				continue;
			if (perf_match_event_line(line, n, &ev) && ev.has_event) {
				f->name = ev.event.s;
				f->len = ev.event.n;
				f->set = true;
				f->defaulted = true;
				return;
			}
		}
	}
}

static bool ends_clean(const struct perf_input *in)
{
	return in->len == 0 || (in->len >= 2 && in->data[in->len - 1] == '\n' &&
				in->data[in->len - 2] == '\n');
}

/* Cut [data, data+len) into up to `want` chunks at blank lines. */
static size_t cut(const char *data, size_t len, size_t want, const char **starts)
{
	size_t nr = 0;
	starts[nr++] = data;
	const char *end = data + len;
	for (size_t k = 1; k < want; k++) {
		const char *target = data + len / want * k;
		if (target <= starts[nr - 1])
			continue;
		const char *b = find_blank(target - 1, end);
		if (!b || b + 2 >= end)
			break;
		starts[nr++] = b + 2;
	}
	return nr;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)(n > 64 ? 64 : n) : 1;
}

static int report(struct chunk *chunks, size_t nc, const struct perf_cfg *cfg)
{
	const struct collapse_opts *o = cfg->opts;
	size_t total = 0, shown = 0;
	for (size_t i = 0; i < nc; i++) {
		struct chunk *c = &chunks[i];
		for (size_t k = 0; k < c->bad && k < MAX_REPORTED; k++) {
			const char *name;
			size_t line;
			where(c->buf, c->bad_at[k], &name, &line);
			int len = (int)(c->bad_len[k] > 80 ? 80 : c->bad_len[k]);
			const char *what = c->bad_orphan[k] ? "stack frame without an event line before it"
							    : "unrecognized perf script line";
			if (o->strict)
				return error_at(name, line, "%s: '%.*s'", what, len, c->bad_at[k]);
			if (shown < MAX_REPORTED) {
				warn_at(name, line, "skipped %s: '%.*s'", what, len, c->bad_at[k]);
				shown++;
			}
		}
		total += c->bad;
	}
	if (total > shown)
		warn("%zu more unrecognized perf script lines skipped (%zu in all)", total - shown, total);
	struct perf_filter *f = cfg->filter;
	if (f->defaulted) {
		for (size_t i = 0; i < nc; i++) {
			if (chunks[i].dropped) {
				warn("several event types: keeping only the first seen, '%.*s', and "
				     "skipping others such as '%.*s' (choose with --event-filter)",
				     (int)f->len, f->name, (int)chunks[i].dropped_len,
				     chunks[i].dropped);
				break;
			}
		}
	}
	return 0;
}

struct job {
	struct chunk *chunks;
	size_t nc;
	size_t next; /* guarded by lock */
	pthread_mutex_t lock;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		size_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->nc)
			return NULL;
		run_chunk(&j->chunks[i]);
	}
}

int perf_collapse(struct profile *p, const struct perf_input *in, size_t n,
		  const struct collapse_opts *opts)
{
	if (opts->inline_frames || opts->context) {
#ifndef HAVE_ELFUTILS
		return error("--inline and --context need scorch built with elfutils (libdw)");
#endif
	}
	struct perf_filter filter = { 0 };
	if (opts->event_filter && *opts->event_filter) {
		filter.name = opts->event_filter;
		filter.len = strlen(opts->event_filter);
		filter.set = true;
	}
	struct perf_cfg cfg = {
		.opts = opts,
		.pid = opts->pid,
		.tid = opts->tid,
		.sequential = opts->srcline || opts->inline_frames,
		.tidy = { .kernel = opts->kernel || opts->all, .jit = opts->jit || opts->all,
			  .addrs = opts->addrs },
		.filter = &filter,
	};
	cfg.fast = !cfg.sequential;

	/* Buffers: each file on its own when every file before the last ends
	 * after a blank line (the state is then empty at each boundary), else
	 * all files joined into one. */
	/* --srcline may read a blank line as a source line, even across a file
	 * boundary: then only a joined buffer is exact. */
	bool clean = !(cfg.sequential && n > 1);
	for (size_t i = 0; i + 1 < n; i++)
		clean &= ends_clean(&in[i]);
	size_t nb = clean ? n : 1;
	struct perf_buf *bufs = xcalloc(nb ? nb : 1, sizeof(*bufs));
	if (clean) {
		for (size_t i = 0; i < n; i++) {
			bufs[i].data = in[i].data;
			bufs[i].len = in[i].len;
			bufs[i].mapped = in[i].mapped;
			bufs[i].segs = xmalloc(sizeof(*bufs[i].segs));
			bufs[i].segs[0] = (struct perf_seg){ in[i].name, 0 };
			bufs[i].nsegs = 1;
		}
	} else {
		size_t total = 0;
		for (size_t i = 0; i < n; i++)
			total += in[i].len + 1;
		char *d = xmalloc(total ? total : 1);
		size_t off = 0;
		bufs[0].segs = xmalloc(n * sizeof(*bufs[0].segs));
		for (size_t i = 0; i < n; i++) {
			bufs[0].segs[i] = (struct perf_seg){ in[i].name, off };
			memcpy(d + off, in[i].data, in[i].len);
			off += in[i].len;
			/* Perl's <> returns a last line without '\n' as a line. */
			if (in[i].len && in[i].data[in[i].len - 1] != '\n')
				d[off++] = '\n';
		}
		bufs[0].data = bufs[0].owned = d;
		bufs[0].len = off;
		bufs[0].nsegs = n;
	}

	int threads = opts->threads > 0 ? opts->threads : online_cpus();
	if (cfg.sequential)
		threads = 1;
	if (!cfg.sequential && !filter.set)
		first_event(bufs, nb, &filter);
#ifdef HAVE_ELFUTILS
	if (opts->inline_frames)
		cfg.resolver = inline_resolver_new(opts->context);
#endif

	size_t total = 0;
	for (size_t i = 0; i < nb; i++)
		total += bufs[i].len;
	/* Chunks: each buffer cut in proportion to its share of the input. */
	size_t nc = 0, alloc = 0;
	struct chunk *chunks = NULL;
	for (size_t i = 0; i < nb; i++) {
		size_t want = 1;
		/* Small inputs are not worth a thread, unless a thread count was
		 * asked for (which also lets tests split small inputs). */
		if (threads > 1 && total && (bufs[i].len >= MIN_CHUNK || opts->threads > 0))
			want = (size_t)((double)bufs[i].len / (double)total * threads + 0.5);
		if (want < 1)
			want = 1;
		if (want > (size_t)threads)
			want = (size_t)threads;
		const char **starts = xmalloc(want * sizeof(*starts));
		size_t k = cut(bufs[i].data, bufs[i].len, want, starts);
		VEC_GROW(chunks, nc + k, alloc);
		for (size_t j = 0; j < k; j++) {
			const char *e = j + 1 < k ? starts[j + 1] : bufs[i].data + bufs[i].len;
			chunk_init(&chunks[nc], &cfg, &bufs[i], starts[j], e, nc == 0 ? p : NULL);
			nc++;
		}
		free(starts);
	}

	if (nc > 1 && threads > 1) {
		struct job job = { .chunks = chunks, .nc = nc };
		pthread_mutex_init(&job.lock, NULL);
		size_t nt = (size_t)threads < nc ? (size_t)threads : nc;
		pthread_t *tids = xmalloc(nt * sizeof(*tids));
		size_t started = 0;
		for (size_t t = 1; t < nt; t++)
			if (pthread_create(&tids[started], NULL, worker, &job) == 0)
				started++;
		worker(&job);
		for (size_t t = 0; t < started; t++)
			pthread_join(tids[t], NULL);
		free(tids);
		pthread_mutex_destroy(&job.lock);
	} else {
		for (size_t i = 0; i < nc; i++)
			run_chunk(&chunks[i]);
	}

	int ret = report(chunks, nc, &cfg);
	for (size_t i = 0; i < nc; i++) {
		if (ret == 0 && chunks[i].own_profile)
			profile_merge(p, chunks[i].p);
		chunk_release(&chunks[i]);
	}
	free(chunks);
#ifdef HAVE_ELFUTILS
	if (cfg.resolver)
		inline_resolver_free(cfg.resolver);
#endif
	for (size_t i = 0; i < nb; i++) {
		free(bufs[i].segs);
		free(bufs[i].owned);
	}
	free(bufs);
	return ret;
}

/* ---- detection and the format entry ---- */

int perf_probe(const char *head, size_t n)
{
	/* Skip comments and blank lines; the first other line must be an event
	 * line, and what follows a frame line, a blank line or the end. */
	struct cursor cur = { head, head + n };
	const char *line;
	size_t len;
	while (next_line(&cur, &line, &len)) {
		if (len == 0 || line[0] == '#')
			continue;
		/* Some perf versions right-align the comm: the script cannot
		 * read those event lines, but the text is still perf's. */
		while (len && (line[0] == ' ' || line[0] == '\t')) {
			line++;
			len--;
		}
		struct perf_event_line ev;
		if (!perf_match_event_line(line, len, &ev))
			return 0;
		int score = ev.has_event ? 70 : 40;
		if (!next_line(&cur, &line, &len))
			return score;
		struct perf_frame_line fr;
		if (len == 0 || perf_match_frame_line(line, len, &fr))
			return ev.has_event ? 95 : 80;
		return score - 20;
	}
	return 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct perf_input in = { src->name, src->data, src->len, false };
	return perf_collapse(p, &in, 1, opts);
}

const struct collapse_format collapse_format_perf = {
	.name = "perf",
	.description = "perf script text (stackcollapse-perf.pl)",
	.probe = perf_probe,
	.parse = parse,
};
