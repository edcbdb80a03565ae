#include "collapse/json.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

struct parser {
	struct json_doc *doc;
	const char *name, *start, *p, *end;
	int depth;
};

static int fail(struct parser *ps, const char *what)
{
	size_t line = 1;
	const char *ls = ps->start;
	for (const char *q = ps->start; q < ps->p && q < ps->end; q++)
		if (*q == '\n') {
			line++;
			ls = q + 1;
		}
	return error_at(ps->name, line, "column %zu (byte %zu): invalid JSON: %s",
			(size_t)(ps->p - ls) + 1, (size_t)(ps->p - ps->start), what);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static json_id new_value(struct parser *ps, enum json_type t)
{
	struct json_doc *d = ps->doc;
	if (d->n >= UINT32_MAX - 1)
		return 0;
	VEC_GROW(d->v, d->n + 1, d->alloc);
	memset(&d->v[d->n], 0, sizeof(d->v[0]));
	d->v[d->n].type = t;
	return (json_id)d->n++;
}

static int hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* At the opening quote: decode into the arena. */
static int parse_string(struct parser *ps, const char **out, uint32_t *out_len)
{
	const char *s = ++ps->p;
	bool escapes = false;
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;
		if (c < 0x20)
			return fail(ps, "control character in string");
		if (c == '\\') {
			escapes = true;
			ps->p++;
			if (ps->p >= ps->end)
				break;
		}
		ps->p++;
	}
	if (ps->p >= ps->end)
		return fail(ps, "unterminated string");
	size_t raw = (size_t)(ps->p - s);
	if (raw > UINT32_MAX)
		return fail(ps, "string too long");
	ps->p++; /* closing quote */
	if (!escapes) {
		*out = arena_memdup0(&ps->doc->arena, s, raw);
		*out_len = (uint32_t)raw;
		return 0;
	}
	/* Decoded text is never longer than the escaped text. */
	char *o = arena_alloc(&ps->doc->arena, raw + 1, 1);
	size_t n = 0;
	for (const char *q = s; q < s + raw;) {
		if (*q != '\\') {
			o[n++] = *q++;
			continue;
		}
		q++;
		char e = *q++;
		switch (e) {
		case '"': o[n++] = '"'; break;
		case '\\': o[n++] = '\\'; break;
		case '/': o[n++] = '/'; break;
		case 'b': o[n++] = '\b'; break;
		case 'f': o[n++] = '\f'; break;
		case 'n': o[n++] = '\n'; break;
		case 'r': o[n++] = '\r'; break;
		case 't': o[n++] = '\t'; break;
		case 'u': {
			unsigned cp;
			if (s + raw - q < 4 || hex4(q, &cp)) {
				ps->p = q;
				return fail(ps, "bad \\u escape");
			}
			q += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && s + raw - q >= 6 && q[0] == '\\' && q[1] == 'u') {
				unsigned lo;
				if (!hex4(q + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					q += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd; /* lone surrogate */
			/* "\uXXXX" is 6 bytes; its UTF-8 at most 4 (a pair, 12 -> 4). */
			n += put_utf8(o + n, cp);
			break;
		}
		default:
			ps->p = q - 1;
			return fail(ps, "bad escape in string");
		}
	}
	o[n] = '\0';
	*out = o;
	*out_len = (uint32_t)n;
	return 0;
}

static int parse_number(struct parser *ps, json_id id)
{
	const char *s = ps->p, *q = s, *e = ps->end;
	if (q < e && *q == '-')
		q++;
	if (q < e && *q == '0') {
		q++;
	} else if (q < e && *q >= '1' && *q <= '9') {
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	} else {
		return fail(ps, "bad number");
	}
	if (q < e && *q == '.') {
		q++;
		if (q >= e || *q < '0' || *q > '9') {
			ps->p = q;
			return fail(ps, "digits expected after '.'");
		}
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < e && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < e && (*q == '+' || *q == '-'))
			q++;
		if (q >= e || *q < '0' || *q > '9') {
			ps->p = q;
			return fail(ps, "digits expected in exponent");
		}
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	}
	char *text = arena_memdup0(&ps->doc->arena, s, (size_t)(q - s));
	struct json_value *v = &ps->doc->v[id];
	v->str = text;
	v->len = (uint32_t)(q - s);
	v->num = strtod(text, NULL);
	ps->p = q;
	return 0;
}

static int parse_value(struct parser *ps, json_id *out);

static int parse_container(struct parser *ps, json_id id, bool object)
{
	char close = object ? '}' : ']';
	ps->p++;
	if (++ps->depth > JSON_MAX_DEPTH)
		return fail(ps, "nested too deeply");
	skip_ws(ps);
	json_id last = 0;
	uint32_t count = 0;
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		uint32_t key_len = 0;
		skip_ws(ps);
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "member name expected");
			if (parse_string(ps, &key, &key_len))
				return -1;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "':' expected");
			ps->p++;
		}
		json_id child;
		if (parse_value(ps, &child))
			return -1;
		struct json_value *c = &ps->doc->v[child];
		c->key = key;
		c->key_len = key_len;
		if (last)
			ps->doc->v[last].next = child;
		else
			ps->doc->v[id].first = child;
		last = child;
		count++;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			break;
		}
		return fail(ps, object ? "',' or '}' expected" : "',' or ']' expected");
	}
	ps->doc->v[id].count = count;
	ps->depth--;
	return 0;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return false;
	ps->p += n;
	return true;
}

static int parse_value(struct parser *ps, json_id *out)
{
	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "value expected, found end of input");
	json_id id;
	switch (*ps->p) {
	case '{':
	case '[':
		id = new_value(ps, *ps->p == '{' ? JSON_OBJECT : JSON_ARRAY);
		if (!id)
			return fail(ps, "too many values");
		*out = id;
		return parse_container(ps, id, ps->doc->v[id].type == JSON_OBJECT);
	case '"': {
		const char *s;
		uint32_t n;
		id = new_value(ps, JSON_STRING);
		if (!id)
			return fail(ps, "too many values");
		if (parse_string(ps, &s, &n))
			return -1;
		ps->doc->v[id].str = s;
		ps->doc->v[id].len = n;
		*out = id;
		return 0;
	}
	case 't':
	case 'f':
	case 'n': {
		enum json_type t = *ps->p == 't' ? JSON_TRUE : *ps->p == 'f' ? JSON_FALSE : JSON_NULL;
		if (!literal(ps, t == JSON_TRUE ? "true" : t == JSON_FALSE ? "false" : "null"))
			return fail(ps, "unknown literal");
		id = new_value(ps, t);
		if (!id)
			return fail(ps, "too many values");
		*out = id;
		return 0;
	}
	default:
		id = new_value(ps, JSON_NUMBER);
		if (!id)
			return fail(ps, "too many values");
		*out = id;
		return parse_number(ps, id);
	}
}

int json_parse(struct json_doc *doc, const char *name, const char *data, size_t len)
{
	memset(doc, 0, sizeof(*doc));
	arena_init(&doc->arena);
	VEC_GROW(doc->v, 1, doc->alloc);
	memset(&doc->v[0], 0, sizeof(doc->v[0]));
	doc->n = 1;
	struct parser ps = { doc, name ? name : "<stdin>", data, data, data + len, 0 };
	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		ps.p += 3;
	if (parse_value(&ps, &doc->root))
		return -1;
	skip_ws(&ps);
	if (ps.p != ps.end)
		return fail(&ps, "text after the top-level value");
	return 0;
}

void json_release(struct json_doc *doc)
{
	free(doc->v);
	arena_release(&doc->arena);
	memset(doc, 0, sizeof(*doc));
}

json_id json_get(const struct json_doc *d, json_id obj, const char *key)
{
	if (!obj || d->v[obj].type != JSON_OBJECT)
		return 0;
	size_t kl = strlen(key);
	json_id hit = 0;
	for (json_id c = d->v[obj].first; c; c = d->v[c].next)
		if (d->v[c].key_len == kl && !memcmp(d->v[c].key, key, kl))
			hit = c;
	return hit;
}

bool json_is(const struct json_doc *d, json_id id, enum json_type t)
{
	return id && d->v[id].type == t;
}

bool json_number(const struct json_doc *d, json_id id, double *out)
{
	if (!id)
		return false;
	const struct json_value *v = &d->v[id];
	if (v->type == JSON_NUMBER) {
		*out = v->num;
		return true;
	}
	if (v->type == JSON_STRING && v->len) {
		char *end;
		double x = strtod(v->str, &end);
		if (*end == '\0') {
			*out = x;
			return true;
		}
	}
	return false;
}
