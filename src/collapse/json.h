/* A small, strict JSON reader (RFC 8259) for the Chrome profile formats.
 * The whole document becomes an array of values; children are linked by
 * index. Errors name the file, line and column. Written here rather than
 * taken from a library: the collapsers need only a read-only tree with
 * precise error positions, the grammar is small, and it keeps the binary
 * free of one more shared library (Debian's json-c and jansson both work
 * but add a dependency for ~300 lines of code). */
#ifndef SCORCH_COLLAPSE_JSON_H
#define SCORCH_COLLAPSE_JSON_H

#include "base/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

typedef uint32_t json_id; /* index into json_doc.v; 0 = none (v[0] unused) */

struct json_value {
	enum json_type type;
	uint32_t count;     /* array elements / object members */
	json_id first, next; /* first child; next sibling */
	const char *key;    /* member name when inside an object (NUL-terminated) */
	uint32_t key_len;
	const char *str;    /* decoded string (NUL-terminated), or a number's text */
	uint32_t len;
	double num;
};

struct json_doc {
	struct json_value *v;
	size_t n, alloc;
	struct arena arena;
	json_id root;
};

enum { JSON_MAX_DEPTH = 512 };

/* Parse data into doc (initialised here). Returns 0, or -1 with an error
 * printed as "NAME:LINE: column C: ..."; doc must be released either way. */
int json_parse(struct json_doc *doc, const char *name, const char *data, size_t len);
void json_release(struct json_doc *doc);

static inline const struct json_value *json_at(const struct json_doc *d, json_id id)
{
	return id ? &d->v[id] : NULL;
}

/* Member of an object by name (the last one if repeated), or 0. */
json_id json_get(const struct json_doc *d, json_id obj, const char *key);
/* Type helpers that accept 0 (missing). */
bool json_is(const struct json_doc *d, json_id id, enum json_type t);
/* A number, or a string holding a number; false otherwise. */
bool json_number(const struct json_doc *d, json_id id, double *out);

#endif
