#include "render/nameattr.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/input.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool attr_name_ok(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || strchr("_:.-", s[i])))
			return false;
	/* Event handlers would run script. */
	return !(n > 2 && (s[0] == 'o' || s[0] == 'O') && (s[1] == 'n' || s[1] == 'N'));
}

static void add_attr(struct attr **v, size_t *nr, const char *k, size_t kn, const char *val, size_t vn)
{
	for (size_t i = 0; i < *nr; i++) {
		if (strlen((*v)[i].key) == kn && !memcmp((*v)[i].key, k, kn)) {
			free((*v)[i].value);
			(*v)[i].value = xmemdup0(val, vn);
			return;
		}
	}
	*v = xreallocarray(*v, *nr + 1, sizeof(**v));
	(*v)[*nr] = (struct attr){ xmemdup0(k, kn), xmemdup0(val, vn) };
	(*nr)++;
}

/* name="v" name='v' name=v, separated by whitespace. */
static int parse_extra(const char *path, size_t line, const char *s, size_t n, struct attr **v,
		       size_t *nr)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (i == n)
			break;
		size_t k = i;
		while (i < n && s[i] != '=' && !isspace((unsigned char)s[i]))
			i++;
		size_t kn = i - k;
		const char *val = "";
		size_t vn = 0;
		if (i < n && s[i] == '=') {
			i++;
			if (i < n && (s[i] == '"' || s[i] == '\'')) {
				char q = s[i++];
				const char *e = memchr(s + i, q, n - i);
				if (!e)
					return error_at(path, line, "unterminated quote in attribute list");
				val = s + i;
				vn = (size_t)(e - val);
				i = (size_t)(e - s) + 1;
			} else {
				val = s + i;
				while (i < n && !isspace((unsigned char)s[i]))
					i++;
				vn = (size_t)(s + i - val);
			}
		}
		if (!attr_name_ok(s + k, kn)) {
			warn_at(path, line, "ignoring attribute '%.*s'", (int)kn, s + k);
			continue;
		}
		add_attr(v, nr, s + k, kn, val, vn);
	}
	return 0;
}

static void set_str(char **dst, const char *s, size_t n)
{
	free(*dst);
	*dst = xmemdup0(s, n);
}

int nameattr_load(struct nameattr *na, const char *path)
{
	memset(na, 0, sizeof(*na));
	strpool_init(&na->names);
	struct input in;
	if (input_load(&in, path))
		return -1;
	const char *p = in.data, *end = in.data + in.len;
	size_t lineno = 0;
	int ret = 0;
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		lineno++;
		size_t n = (size_t)(le - p);
		if (n && p[n - 1] == '\r')
			n--;
		const char *line = p;
		p = nl ? nl + 1 : end;
		if (!n)
			continue;
		const char *tab = memchr(line, '\t', n);
		if (!tab) {
			ret = error_at(path, lineno, "expected NAME<TAB>key=value...");
			break;
		}
		uint32_t id = strpool_intern(&na->names, line, (size_t)(tab - line));
		VEC_GROW_ZEROED(na->entries, (size_t)id + 1, na->alloc);
		struct nameattr_entry *e = &na->entries[id];
		const char *f = tab + 1, *lend = line + n;
		while (f <= lend && !ret) {
			const char *ft = memchr(f, '\t', (size_t)(lend - f));
			const char *fe = ft ? ft : lend;
			const char *eq = memchr(f, '=', (size_t)(fe - f));
			if (fe > f && !eq) {
				warn_at(path, lineno, "invalid attribute '%.*s'", (int)(fe - f), f);
			} else if (eq) {
				size_t kn = (size_t)(eq - f), vn = (size_t)(fe - eq - 1);
				const char *v = eq + 1;
#define KEY(s) (kn == sizeof(s) - 1 && !memcmp(f, s, kn))
				if (KEY("title")) {
					set_str(&e->title, v, vn);
				} else if (KEY("href")) {
					while (vn && isspace((unsigned char)*v))
						v++, vn--;
					if (vn >= 11 && !strncasecmp(v, "javascript:", 11))
						warn_at(path, lineno, "ignoring javascript: link");
					else
						set_str(&e->href, v, vn);
				} else if (KEY("target")) {
					set_str(&e->target, v, vn);
				} else if (KEY("id") || KEY("class")) {
					add_attr(&e->g_attrs, &e->g_nr, f, kn, v, vn);
				} else if (KEY("g_extra")) {
					ret = parse_extra(path, lineno, v, vn, &e->g_attrs, &e->g_nr);
				} else if (KEY("a_extra")) {
					ret = parse_extra(path, lineno, v, vn, &e->a_attrs, &e->a_nr);
				} else {
					warn_at(path, lineno, "invalid attribute '%.*s'", (int)kn, f);
				}
#undef KEY
			}
			if (!ft)
				break;
			f = ft + 1;
		}
	}
	input_release(&in);
	return ret;
}

const struct nameattr_entry *nameattr_find(const struct nameattr *na, const char *name, size_t n)
{
	uint32_t id = strpool_find(&na->names, name, n);
	if (id == UINT32_MAX || id >= na->alloc)
		return NULL;
	return &na->entries[id];
}

static void free_attrs(struct attr *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

void nameattr_release(struct nameattr *na)
{
	for (size_t i = 0; i < na->alloc; i++) {
		struct nameattr_entry *e = &na->entries[i];
		free(e->title);
		free(e->href);
		free(e->target);
		free_attrs(e->g_attrs, e->g_nr);
		free_attrs(e->a_attrs, e->a_nr);
	}
	free(na->entries);
	strpool_release(&na->names);
	memset(na, 0, sizeof(*na));
}
