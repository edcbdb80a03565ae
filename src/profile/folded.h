/* Folded stacks, the lingua franca: "frame;frame;frame COUNT" per line, or
 * the differential form "STACK BEFORE AFTER". */
#ifndef SCORCH_PROFILE_FOLDED_H
#define SCORCH_PROFILE_FOLDED_H

#include "base/out.h"
#include "profile/profile.h"
#include "profile/stackcache.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct folded_opts {
	bool strict;      /* a malformed line is an error, not a warning */
	bool reverse;     /* reverse each stack (leaf becomes root) */
	int max_warnings; /* malformed lines reported one by one: 0 = 10, -1 = none */
};

struct folded_stats {
	size_t lines;   /* non-blank lines seen */
	size_t ignored; /* malformed lines skipped */
};

/* Parse folded text into p. Counts follow flamegraph.pl's rule: digits with
 * an optional fraction, after the last whitespace; when the stack itself
 * then ends in whitespace + number, the line is differential (BEFORE AFTER)
 * and p->differential is set. Single-count lines add the count to both
 * columns. Returns 0, or -1 with --strict on the first malformed line. */
int folded_parse(struct profile *p, const char *name, const char *data, size_t len,
		 const struct folded_opts *opts, struct folded_stats *stats);

/* Streaming form of folded_parse for input read in pieces: feed whole
 * lines (a piece may end without a newline only at the end of input); line
 * numbers continue across pieces. A stack that shares all but a few frames
 * with the line before it (sorted input) reuses that line's nodes; other
 * stacks are first looked up whole in a cache of the stack text
 * (profile/stackcache.h), which pays when stacks repeat out of order. */
enum { FOLDED_BATCH = 16 };

/* A count as read: a whole number (exact) or not (a double, as the
 * classic tools read it); too_big: whole, but past 2^64 - 1. */
struct folded_count {
	bool whole, too_big;
	uint64_t u;
	double d;
};

/* A parsed line waiting for its trie lookup. */
struct folded_pending {
	const char *line;
	size_t len; /* of the stack text */
	struct folded_count c0, c1;
	size_t lineno;
};

/* The lines of one piece of input, parsed (counts, stack text) but
 * not yet applied to the profile: scanning and applying can run in two
 * threads (profile/folded_stream.c). */
struct folded_lines {
	struct folded_pending *v;
	size_t nr, alloc;
	bool differential;
};

struct folded_prev {
	size_t off, n; /* frame bytes in prev_line */
	node_t node;
	sym_t sym;
};

struct folded_reader {
	struct profile *p;
	const char *name;
	struct folded_opts opts;
	struct folded_stats stats;
	size_t lineno;
	struct stackcache cache;
	struct folded_frame *frames;
	size_t frames_alloc;
	struct folded_prev *prev; /* frames of the last stack pushed */
	size_t prev_nf, prev_alloc;
	const char *prev_line; /* the last stack pushed: in the input being
				* applied, or a copy in prev_text */
	size_t prev_len;
	char *prev_text;
	size_t prev_text_alloc;
	struct folded_lines scratch;
	/* Some stack did not sort after the one before it. Until then the
	 * input is sorted collapsed stacks, each once: the stack cache would
	 * only cost (hashing every line, its table's pages), so it is not
	 * used. With --reverse, from the start. */
	bool repeats;
};

void folded_reader_init(struct folded_reader *r, struct profile *p, const char *name,
			const struct folded_opts *opts);
/* Returns 0, or -1 with --strict on a malformed line. */
int folded_reader_feed(struct folded_reader *r, const char *data, size_t len);
/* The two halves of feed: parse lines (warnings, line numbers) into
 * `out` (appending), then look them up and count them, in order. The
 * bytes scanned must stay valid until applied. */
int folded_reader_scan(struct folded_reader *r, const char *data, size_t len, struct folded_lines *out);
/* apply returns 0, or -1 (printed, naming the line) when a whole sum
 * passes 2^64 - 1. */
int folded_reader_apply(struct folded_reader *r, const struct folded_lines *lines);
/* Print the summary of ignored lines, release the cache; *stats if wanted. */
void folded_reader_finish(struct folded_reader *r, struct folded_stats *stats);

/* Parse the number at the end of line[0..*n): on success shrink *n to the
 * text before the separating whitespace and return true. */
bool folded_take_count(const char *line, size_t *n, struct folded_count *count);

/* Add a line's counts at leaf: 0, or -1 with an error naming file and line
 * when a count or a sum passes 2^64 - 1. */
int folded_add(struct profile *p, node_t leaf, const struct folded_count *c0,
	       const struct folded_count *c1, const char *name, size_t lineno);

/* Write each stack with a non-zero count as one line, sorted byte-wise by
 * stack (the stackcollapse scripts' `sort keys`). Differential profiles get
 * both columns. */
void folded_write(const struct profile *p, struct out *o);

/* Format a count as the classic tools print numbers: integers plainly,
 * fractions with up to 15 significant digits. */
void folded_write_count(struct out *o, double v);
/* The count of node n in a column, so: exact unless p is fractional. */
void folded_write_self(struct out *o, const struct profile *p, node_t n, int column);

#endif
