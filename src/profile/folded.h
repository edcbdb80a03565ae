/* Folded stacks, the lingua franca: "frame;frame;frame COUNT" per line, or
 * the differential form "STACK BEFORE AFTER". */
#ifndef SCORCH_PROFILE_FOLDED_H
#define SCORCH_PROFILE_FOLDED_H

#include "base/out.h"
#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>

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

/* Parse the number at the end of line[0..*n): on success shrink *n to the
 * text before the separating whitespace and return true. */
bool folded_take_count(const char *line, size_t *n, double *count);

/* Write each stack with a non-zero count as one line, sorted byte-wise by
 * stack (the stackcollapse scripts' `sort keys`). Differential profiles get
 * both columns. */
void folded_write(const struct profile *p, struct out *o);

/* Format a count as the classic tools print numbers: integers plainly,
 * fractions with up to 15 significant digits. */
void folded_write_count(struct out *o, double v);

#endif
