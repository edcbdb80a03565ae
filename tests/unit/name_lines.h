/* Function names collected as lines, one per call: the callback of
 * inline_chain for the unit tests of the inline engine (test_inline_dw.c,
 * test_inline_scopes.c). */
#ifndef SCORCH_TESTS_NAME_LINES_H
#define SCORCH_TESTS_NAME_LINES_H

#include "base/alloc.h"

#include <string.h>

struct names {
	char *s;
	size_t len, alloc;
};

static inline void add_name(const char *func, void *arg)
{
	struct names *b = arg;
	size_t l = strlen(func);
	VEC_GROW(b->s, b->len + l + 2, b->alloc);
	memcpy(b->s + b->len, func, l);
	b->len += l;
	b->s[b->len++] = '\n';
	b->s[b->len] = '\0';
}

#endif
