/* perf script text, folded as stackcollapse-perf.pl folds it.
 *
 * The script is a state machine over lines (flamegraph-pl.md 3.2): an event
 * line names the process and the period, frame lines are prepended to the
 * stack, a blank line emits "pname;stack" += period and clears the state.
 * Every line's class is independent of the state (except with --srcline,
 * which reads the line after a frame as its source line), and the state is
 * empty after a blank line. So the input is cut into pieces just after
 * blank lines; each thread folds into its own caches and profile (its
 * chunk) the next piece in input order whenever it is done with one, so
 * that the threads end together; the profiles are summed, and the pieces'
 * messages reported in input order. The one piece of state that crosses
 * samples, the default event filter (the first event name in the input),
 * is found by a pre-scan before the threads start.
 *
 * Hot path: a sample is "event line + block of frame lines + blank line".
 * The block's bytes are fingerprinted and looked up in a per-thread cache
 * of blocks already folded, which gives the frames without parsing a line;
 * a second cache maps (process node, block) to the leaf node. Only the first
 * occurrence of a block goes through the line-by-line state machine.
 *
 * With several chunks, each block's first parse is done by one of them
 * (perf_chunk.h: shared first parses), not by every chunk that meets it.
 *
 * A block is identified by a 128-bit fingerprint of its bytes (its length
 * mixed in), not by comparing the bytes: keeping (or re-reading) the first
 * occurrence of every distinct block made the resident memory grow with the
 * input, where the fingerprint keeps it to the stacks. Two different
 * blocks of equal length would need equal 128-bit fingerprints to be
 * confused. */
#include "collapse/perf_script.h"

#include "base/alloc.h"
#include "base/error.h"
#include "collapse/perf_chunk.h"
#include "collapse/perf_clock.h"
#include "profile/time_cells.h"
#include "profile/time_ranges.h"
#ifdef HAVE_ELFUTILS
#include "symbolize/inline.h"
#endif

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		struct perf_cursor cur = { bufs[i].data, bufs[i].data + bufs[i].len };
		const char *line;
		size_t n;
		while (perf_next_line(&cur, &line, &n)) {
			struct perf_event_line ev;
			if (!n || line[0] == '#' || frame_is_space(line[0]))
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
		const char *b = perf_find_blank(target - 1, end);
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

static int report(const struct perf_piece *pieces, size_t np, const struct perf_cfg *cfg)
{
	const struct collapse_opts *o = cfg->opts;
	size_t total = 0, shown = 0;
	for (size_t i = 0; i < np; i++) {
		const struct perf_diag *d = &pieces[i].diag;
		for (size_t k = 0; k < d->bad && k < MAX_REPORTED; k++) {
			const char *name;
			size_t line;
			where(pieces[i].buf, d->bad_at[k], &name, &line);
			int len = (int)(d->bad_len[k] > 80 ? 80 : d->bad_len[k]);
			const char *what = d->bad_orphan[k] ? "stack frame without an event line before it"
							    : "unrecognized perf script line";
			if (o->strict)
				return error_at(name, line, "%s: '%.*s'", what, len, d->bad_at[k]);
			if (shown < MAX_REPORTED) {
				warn_at(name, line, "skipped %s: '%.*s'", what, len, d->bad_at[k]);
				shown++;
			}
		}
		total += d->bad;
	}
	if (total > shown)
		warn("%zu more unrecognized perf script lines skipped (%zu in all)", total - shown, total);
	struct perf_filter *f = cfg->filter;
	if (f->defaulted) {
		for (size_t i = 0; i < np; i++) {
			const struct perf_diag *d = &pieces[i].diag;
			if (d->dropped) {
				warn("several event types: keeping only the first seen, '%.*s', and "
				     "skipping others such as '%.*s' (choose with --event-filter)",
				     (int)f->len, f->name, (int)d->dropped_len, d->dropped);
				break;
			}
		}
	}
	return 0;
}

/* Run fn(ctx, i) for i in 0..n on up to nt threads (this one included). */
struct job {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t n;
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
		if (i >= j->n)
			return NULL;
		j->fn(j->ctx, i);
	}
}

static void run_parallel(size_t nt, size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
	if (nt < 2 || n < 2) {
		for (size_t i = 0; i < n; i++)
			fn(ctx, i);
		return;
	}
	struct job job = { .fn = fn, .ctx = ctx, .n = n };
	pthread_mutex_init(&job.lock, NULL);
	if (nt > n)
		nt = n;
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
}

/* Chunk i (one per thread) folds pieces taken in input order, the next
 * one whenever it is done with its own, so that the threads end together
 * whatever the pieces cost. */
struct piece_queue {
	struct perf_chunk *chunks;
	const struct perf_cfg *cfg;
	struct profile *p; /* chunk 0's */
	struct perf_piece *pieces;
	size_t np;
	size_t next; /* guarded by lock */
	pthread_mutex_t lock;
};

static void fold_chunk(void *ctx, size_t i)
{
	struct piece_queue *q = ctx;
	struct perf_chunk *c = &q->chunks[i];
	/* Made by its thread: what it allocates comes from that thread's
	 * malloc arena, not from lines another thread writes. */
	perf_chunk_init(c, q->cfg, i == 0 ? q->p : NULL);
	c->index = (uint32_t)i;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		size_t k = q->next++;
		pthread_mutex_unlock(&q->lock);
		if (k >= q->np)
			break;
		perf_run_piece(c, &q->pieces[k]);
	}
	perf_end_chunk(c);
}

/* Phase two of shared parses: chunk i adds what the others sent it. */
struct take_job {
	struct perf_chunk *chunks;
	size_t nc;
	int *failed; /* by chunk */
};

static void take_foreign(void *ctx, size_t i)
{
	struct take_job *t = ctx;
	for (size_t j = 0; j < t->nc && !t->failed[i]; j++)
		if (j != i && perf_take_foreign(&t->chunks[i], &t->chunks[j]))
			t->failed[i] = 1;
}

/* Fold the pieces with nc chunks on as many threads, chunk 0 into p; then
 * the shared first parses' second phase. */
static void run_fold(struct perf_chunk *chunks, size_t nc, struct perf_piece *pieces, size_t np,
		     const struct perf_cfg *cfg, struct profile *p, int *failed)
{
	for (size_t i = 0; i < np; i++)
		memset(&pieces[i].diag, 0, sizeof(pieces[i].diag));
	struct piece_queue q = { .chunks = chunks, .cfg = cfg, .p = p, .pieces = pieces, .np = np };
	pthread_mutex_init(&q.lock, NULL);
	/* Every chunk runs (a thread that cannot start leaves its pieces to
	 * the others), so each is ended and can take what it was sent. */
	run_parallel(nc, nc, fold_chunk, &q);
	pthread_mutex_destroy(&q.lock);
	if (cfg->owners < 2)
		return;
	struct take_job tj = { chunks, nc, failed };
	run_parallel(nc, nc, take_foreign, &tj);
}

/* Fold every piece, the first parse of each block shared between the
 * chunks when cfg->owners (perf_chunk.h); without sharing again if a
 * shared parse cannot be used. p must be empty then. */
/* --time: the first and last sample's times in the input (every event
 * line's, as perf takes its first and last sample), then the ranges
 * against them. Returns 0, or -1 with r->bad set and r->why saying why
 * (the command's usage error). */
static int resolve_ranges(const struct perf_buf *bufs, size_t nb, struct time_ranges *r)
{
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < nb; i++) {
		struct perf_cursor cur = { bufs[i].data, bufs[i].data + bufs[i].len };
		const char *line;
		size_t n;
		while (perf_next_line(&cur, &line, &n)) {
			struct perf_event_line ev;
			uint64_t t;
			if (n && line[0] != '#' && !frame_is_space(line[0]) && perf_match_event_line(line, n, &ev) &&
			    perf_event_time(line, &ev, &t)) {
				if (t < first)
					first = t;
				if (t > last)
					last = t;
			}
		}
	}
	if (first > last) {
		snprintf(r->why, sizeof(r->why), "the input has no sample times");
		r->bad = true;
		return -1;
	}
	if (time_ranges_resolve(r, first, last, r->why, sizeof(r->why))) {
		r->bad = true;
		return -1;
	}
	return 0;
}

static void fold_pieces(struct perf_chunk *chunks, size_t nc, struct perf_piece *pieces, size_t np,
			struct perf_cfg *cfg, struct profile *p)
{
	int *failed = xcalloc(nc, sizeof(*failed));
	run_fold(chunks, nc, pieces, np, cfg, p, failed);
	bool any = false;
	for (size_t i = 0; i < nc; i++)
		any |= failed[i] != 0;
	if (any) {
		for (size_t i = 0; i < nc; i++)
			perf_chunk_release(&chunks[i]);
		bool time = p->time != NULL;
		profile_release(p);
		profile_init(p);
		if (time)
			profile_keep_time(p);
		cfg->owners = 0;
		run_fold(chunks, nc, pieces, np, cfg, p, failed);
	}
	free(failed);
}

int perf_collapse(struct profile *p, const struct perf_input *in, size_t n,
		  const struct collapse_opts *opts)
{
	if (opts->inline_frames || opts->context) {
#ifndef HAVE_ELFUTILS
		return error("--inline and --context need scorch built with elfutils (libdw)");
#endif
	}
	for (size_t i = 0; i < n; i++)
		if (in[i].len >= 8 && !memcmp(in[i].data, "PERFILE2", 8))
			return error("%s: a perf.data file, not perf script text: scorch report reads it "
				     "(or: perf script -i FILE | scorch collapse perf)",
				     in[i].name);
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
		/* time (kept, or --time): each sample with its own, in order */
		.sequential = opts->srcline || opts->inline_frames || p->time || opts->time_ranges,
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

	/* perf script --header of a -k capture: its clock on the epoch (every
	 * input that says must say the same) */
	int64_t epoch = 0;
	bool epoch_known = false;
	for (size_t i = 0; i < n; i++) {
		int64_t e;
		if (!perf_text_epoch(in[i].data, in[i].len, &e))
			continue;
		if (epoch_known && e != epoch) {
			epoch_known = false;
			break;
		}
		epoch = e;
		epoch_known = true;
	}
	if (epoch_known && opts->time_ranges && !opts->time_ranges->resolved)
		time_ranges_set_epoch(opts->time_ranges, epoch);
	if (opts->time_ranges && !opts->time_ranges->resolved && resolve_ranges(bufs, nb, opts->time_ranges)) {
		for (size_t i = 0; i < nb; i++) {
			free(bufs[i].segs);
			free(bufs[i].owned);
		}
		free(bufs);
		return -1;
	}
	int threads = opts->threads > 0 ? opts->threads : online_cpus();
	/* A flame chart's events are the samples in input order: one thread. */
	if (cfg.sequential || p->keep_events)
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
	/* Pieces: each buffer cut into at least PIECES_PER_THREAD per thread
	 * for its share of the input, and pieces of at most PIECE_MAX. */
	size_t np = 0, alloc = 0;
	struct perf_piece *pieces = NULL;
	for (size_t i = 0; i < nb; i++) {
		size_t want = 1;
		/* Small inputs are not worth a thread, unless a thread count was
		 * asked for (which also lets tests split small inputs). */
		if (threads > 1 && total && (bufs[i].len >= MIN_CHUNK || opts->threads > 0)) {
			double share = (double)bufs[i].len / (double)total * threads * PIECES_PER_THREAD;
			want = (size_t)(share + 0.5);
			if (want < bufs[i].len / PIECE_MAX + 1)
				want = bufs[i].len / PIECE_MAX + 1;
		}
		if (want < 1)
			want = 1;
		const char **starts = xmalloc(want * sizeof(*starts));
		size_t k = cut(bufs[i].data, bufs[i].len, want, starts);
		VEC_GROW(pieces, np + k, alloc);
		for (size_t j = 0; j < k; j++) {
			const char *e = j + 1 < k ? starts[j + 1] : bufs[i].data + bufs[i].len;
			pieces[np++] = (struct perf_piece){ .buf = &bufs[i], .begin = starts[j], .end = e };
		}
		free(starts);
	}
	/* One chunk per thread. Shared first parses: chunks running side by
	 * side, counts that sum in any order (no flame-chart events), and an
	 * empty profile to start again from if they cannot be used. */
	size_t nc = threads > 1 ? (size_t)threads : 1;
	if (nc > np)
		nc = np ? np : 1;
	if (nc > 1 && cfg.fast && !p->keep_events && p->nr == 1 && nc <= UINT32_MAX)
		cfg.owners = (uint32_t)nc;
	/* Each chunk on cache lines of its own (perf_chunk is 64-aligned):
	 * packed at 744 bytes, chunk 0's look-ahead (written at every sample)
	 * shared a line with chunk 1's cfg and buf pointers (read at every
	 * sample), a line the two cores would pass back and forth. */
	struct perf_chunk *chunks = aligned_alloc(_Alignof(struct perf_chunk), nc * sizeof(*chunks));
	if (!chunks)
		chunks = xcalloc(nc, sizeof(*chunks)); /* dies */
	fold_pieces(chunks, nc, pieces, np, &cfg, p);

	int ret = report(pieces, np, &cfg);
	for (size_t i = 0; i < nc; i++) {
		if (ret == 0 && chunks[i].own_profile)
			profile_merge(p, chunks[i].p);
		perf_chunk_release(&chunks[i]);
	}
	if (ret == 0 && p->time && epoch_known)
		time_cells_set_epoch(p, epoch);
	free(chunks);
	free(pieces);
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
	struct perf_cursor cur = { head, head + n };
	const char *line;
	size_t len;
	while (perf_next_line(&cur, &line, &len)) {
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
		if (!perf_next_line(&cur, &line, &len))
			return score;
		struct frame_text fr;
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
