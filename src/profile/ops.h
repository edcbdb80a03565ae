/* Whole-profile transformations that build a new profile from an old one:
 * stack filters (--include/--exclude), stack reversal (for inputs that are
 * not folded text, where folded_parse cannot reverse while reading), and
 * flamegraph.pl's "chain" preprocessing. Counts, the differential flag and
 * flame-chart events carry over. */
#ifndef SCORCH_PROFILE_OPS_H
#define SCORCH_PROFILE_OPS_H

#include "profile/profile.h"

#include <regex.h>
#include <stdbool.h>

struct stack_filter {
	regex_t *include; /* keep only stacks matching (NULL: all) */
	regex_t *exclude; /* then drop stacks matching (NULL: none) */
};

/* Compile a POSIX extended regex; returns 0, or -1 with an error printed
 * naming the option. */
int stack_filter_compile(regex_t *re, const char *pattern, const char *option);

/* Keep the stacks whose folded text "a;b;c" (root first, as drawn) matches
 * the filter. dst must be freshly initialised. */
void profile_filter(struct profile *dst, const struct profile *src, const struct stack_filter *f);

/* Every stack reversed (leaf becomes root). */
void profile_reverse(struct profile *dst, const struct profile *src);

/* flamegraph.pl --colors=chain: frames after the first "--" frame get the
 * waker annotation "_[w]", and a stack with no "--" frame in its middle
 * gets a "--" leaf appended. */
void profile_chain(struct profile *dst, const struct profile *src);

#endif
