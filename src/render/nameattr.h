/* --nameattr FILE: extra SVG attributes per function name. Each line is
 * NAME<TAB>key=value<TAB>...; keys title (tooltip), id, class, href, target,
 * g_extra and a_extra (lists of name="value" pairs). Values are escaped on
 * output; event-handler attributes (on*) and javascript: links are dropped,
 * so the file cannot inject markup or script. */
#ifndef SCORCH_RENDER_NAMEATTR_H
#define SCORCH_RENDER_NAMEATTR_H

#include "base/strpool.h"

#include <stdbool.h>
#include <stddef.h>

struct attr {
	char *key, *value;
};

struct nameattr_entry {
	char *title, *href, *target; /* NULL when absent */
	struct attr *g_attrs;        /* id, class, g_extra pairs, in order */
	size_t g_nr;
	struct attr *a_attrs;        /* a_extra pairs */
	size_t a_nr;
};

struct nameattr {
	struct strpool names;
	struct nameattr_entry *entries; /* by name id */
	size_t alloc;
};

/* Returns 0, or -1 with an error naming the file and line. */
int nameattr_load(struct nameattr *na, const char *path);
const struct nameattr_entry *nameattr_find(const struct nameattr *na, const char *name, size_t n);
void nameattr_release(struct nameattr *na);

#endif
