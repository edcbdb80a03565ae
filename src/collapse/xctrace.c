/* Xcode Instruments Time Profiler tables exported as XML (inferno's
 * collapse-xctrace):
 *
 *   xctrace export --input x.trace \
 *     --xpath '/trace-toc/run[1]/data/table[@schema="time-profile"]'
 *
 *   <trace-query-result><node ...><row> ... <backtrace id="10">
 *     <frame id="11" name="leaf" addr="0x..."><binary .../></frame>
 *     <frame ref="13"/> ...
 *   </backtrace></row> <row> ... <backtrace ref="10"/></row> ...
 *
 * Each row counts one for its backtrace (frames leaf first; "ref"
 * attributes point back at an earlier backtrace or frame by id). Frame names
 * get inferno's repair of half-demangled Rust symbols. The XML must be well
 * formed as far as this reader checks it (matching tags, quoted attributes,
 * known entities); ids must not repeat and refs must point back. A small
 * reader of our own: the export uses a tiny subset of XML (no namespaces,
 * no DTD), and the collapser needs byte offsets for its messages. */
#include "collapse/common.h"

#include "base/alloc.h"

#include <stdlib.h>

enum tag { T_OTHER, T_TQR, T_NODE, T_ROW, T_BACKTRACE, T_FRAME };

struct attr {
	const char *name, *value; /* value raw (entities not decoded) */
	size_t nlen, vlen;
};

struct xml {
	const char *name, *start, *p, *end;
	struct cx_diag *diag;
};

static size_t line_of(const struct xml *x, const char *at)
{
	size_t line = 1;
	for (const char *q = x->start; q < at; q++)
		line += *q == '\n';
	return line;
}

static int xfail(struct xml *x, const char *at, const char *what)
{
	return cx_fatal(x->diag, line_of(x, at), "invalid xctrace XML (byte %zu): %s",
			(size_t)(at - x->start), what);
}

static bool name_char(char c)
{
	return c == '-' || c == '_' || c == ':' || c == '.' || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (unsigned char)c >= 0x80;
}

/* Decode entities of an attribute value into b. */
static int unescape(struct xml *x, const char *s, size_t n, struct cx_buf *b)
{
	b->n = 0;
	cx_buf_add(b, "", 0);
	for (size_t i = 0; i < n;) {
		if (s[i] != '&') {
			size_t j = i;
			while (j < n && s[j] != '&')
				j++;
			cx_buf_add(b, s + i, j - i);
			i = j;
			continue;
		}
		const char *semi = memchr(s + i, ';', n - i);
		if (!semi)
			return xfail(x, s + i, "'&' without ';'");
		const char *e = s + i + 1;
		size_t el = (size_t)(semi - e);
		if (el == 3 && !memcmp(e, "amp", 3))
			cx_buf_addc(b, '&');
		else if (el == 2 && !memcmp(e, "lt", 2))
			cx_buf_addc(b, '<');
		else if (el == 2 && !memcmp(e, "gt", 2))
			cx_buf_addc(b, '>');
		else if (el == 4 && !memcmp(e, "quot", 4))
			cx_buf_addc(b, '"');
		else if (el == 4 && !memcmp(e, "apos", 4))
			cx_buf_addc(b, '\'');
		else if (el >= 2 && e[0] == '#') {
			unsigned long cp = 0;
			bool hex = e[1] == 'x';
			size_t k = hex ? 2 : 1;
			if (k >= el)
				return xfail(x, s + i, "bad character reference");
			for (; k < el; k++) {
				char c = e[k];
				int d = c >= '0' && c <= '9' ? c - '0'
					: hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
					: hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
				if (d < 0 || cp > 0x10ffff)
					return xfail(x, s + i, "bad character reference");
				cp = cp * (hex ? 16 : 10) + (unsigned long)d;
			}
			if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
				return xfail(x, s + i, "bad character reference");
			char u[4];
			size_t ul;
			if (cp < 0x80) {
				u[0] = (char)cp;
				ul = 1;
			} else if (cp < 0x800) {
				u[0] = (char)(0xc0 | (cp >> 6));
				u[1] = (char)(0x80 | (cp & 0x3f));
				ul = 2;
			} else if (cp < 0x10000) {
				u[0] = (char)(0xe0 | (cp >> 12));
				u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u[2] = (char)(0x80 | (cp & 0x3f));
				ul = 3;
			} else {
				u[0] = (char)(0xf0 | (cp >> 18));
				u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
				u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u[3] = (char)(0x80 | (cp & 0x3f));
				ul = 4;
			}
			cx_buf_add(b, u, ul);
		} else {
			return xfail(x, s + i, "unknown entity");
		}
		i = (size_t)(semi - s) + 1;
	}
	return 0;
}

static const struct attr *find_attr(const struct attr *a, size_t n, const char *name)
{
	size_t l = strlen(name);
	for (size_t i = 0; i < n; i++)
		if (a[i].nlen == l && !memcmp(a[i].name, name, l))
			return &a[i];
	return NULL;
}

static bool attr_u64(const struct attr *a, size_t n, const char *name, uint64_t *v)
{
	const struct attr *at = find_attr(a, n, name);
	if (!at)
		return false;
	const char *s = at->value;
	size_t l = at->vlen;
	if (l && s[0] == '+') {
		s++;
		l--;
	}
	return cx_parse_u64(s, l, v);
}

static enum tag tag_of(const char *s, size_t n)
{
	static const struct {
		const char *name;
		enum tag tag;
	} tags[] = { { "trace-query-result", T_TQR }, { "node", T_NODE }, { "row", T_ROW },
		     { "backtrace", T_BACKTRACE }, { "frame", T_FRAME } };
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (strlen(tags[i].name) == n && !memcmp(tags[i].name, s, n))
			return tags[i].tag;
	return T_OTHER;
}

/* ---- the collapser's state: ids -> backtraces and frames ---- */

struct bt {
	uint32_t first, n; /* frames in bt_frames */
	double rows;
};

struct state {
	struct profile *p;
	/* frames */
	uint64_t *frame_ids;
	sym_t *frame_syms;
	size_t nframes, falloc;
	struct hashmap frame_index; /* id -> index + 1 */
	/* backtraces */
	struct bt *bts;
	size_t nbts, balloc;
	struct hashmap bt_index; /* id -> index + 1 */
	uint32_t *bt_frames;     /* frame indexes */
	size_t nbf, bfalloc;
	/* the open elements we track */
	enum tag stack[8];
	size_t depth;
	uint32_t cur_bt;   /* index + 1 of the open backtrace */
	uint32_t row_bt;   /* index + 1 of the current row's backtrace */
	uint64_t cur_frame_id;
	sym_t cur_frame_sym;
	struct cx_buf name, fixed;
};

static uint32_t map_get(struct hashmap *m, uint64_t id)
{
	uint32_t v;
	return hashmap_get(m, id, &v) ? v : 0;
}

static int add_frame(struct xml *x, struct state *st, const char *at, uint64_t id, sym_t sym)
{
	bool inserted;
	uint32_t *slot = hashmap_upsert(&st->frame_index, id, (uint32_t)st->nframes + 1, &inserted);
	if (!inserted)
		return xfail(x, at, "repeated frame id");
	(void)slot;
	VEC_GROW(st->frame_ids, st->nframes + 1, st->falloc);
	st->frame_syms = xreallocarray(st->frame_syms, st->falloc, sizeof(*st->frame_syms));
	st->frame_ids[st->nframes] = id;
	st->frame_syms[st->nframes] = sym;
	st->nframes++;
	return 0;
}

static int new_bt(struct xml *x, struct state *st, const char *at, uint64_t id, uint32_t *out)
{
	bool inserted;
	hashmap_upsert(&st->bt_index, id, (uint32_t)st->nbts + 1, &inserted);
	if (!inserted)
		return xfail(x, at, "repeated backtrace id");
	VEC_GROW(st->bts, st->nbts + 1, st->balloc);
	st->bts[st->nbts] = (struct bt){ (uint32_t)st->nbf, 0, 0 };
	*out = (uint32_t)++st->nbts;
	return 0;
}

static int frame_name(struct xml *x, struct state *st, const struct attr *a, size_t na,
		      const char *at, sym_t *sym)
{
	const struct attr *nm = find_attr(a, na, "name");
	if (!nm)
		return xfail(x, at, "frame without a name");
	if (unescape(x, nm->value, nm->vlen, &st->name))
		return -1;
	st->fixed.n = 0;
	if (cx_fix_rust_symbol(st->name.s, st->name.n, &st->fixed))
		*sym = profile_sym(st->p, st->fixed.s ? st->fixed.s : "", st->fixed.n);
	else
		*sym = profile_sym(st->p, st->name.s, st->name.n);
	return 0;
}

static void bt_push_frame(struct state *st, uint32_t frame_index)
{
	VEC_GROW(st->bt_frames, st->nbf + 1, st->bfalloc);
	st->bt_frames[st->nbf++] = frame_index;
	st->bts[st->cur_bt - 1].n++;
}

/* A start or empty tag. */
static int on_open(struct xml *x, struct state *st, const char *at, enum tag t, bool empty,
		   const struct attr *a, size_t na, bool *tracked)
{
	enum tag top = st->depth ? st->stack[st->depth - 1] : T_OTHER;
	*tracked = false;
	if (empty) {
		uint64_t id;
		if (top == T_ROW && t == T_BACKTRACE) {
			if (attr_u64(a, na, "ref", &id)) {
				uint32_t b = map_get(&st->bt_index, id);
				if (!b)
					return xfail(x, at, "backtrace ref to an unknown id");
				st->row_bt = b;
			} else if (attr_u64(a, na, "id", &id)) {
				uint32_t b;
				if (new_bt(x, st, at, id, &b))
					return -1;
				st->row_bt = b;
			} else {
				return xfail(x, at, "backtrace without id or ref");
			}
		} else if (top == T_BACKTRACE && t == T_FRAME) {
			if (attr_u64(a, na, "ref", &id)) {
				uint32_t f = map_get(&st->frame_index, id);
				if (!f)
					return xfail(x, at, "frame ref to an unknown id");
				bt_push_frame(st, f - 1);
			} else if (attr_u64(a, na, "id", &id)) {
				sym_t sym;
				if (frame_name(x, st, a, na, at, &sym) || add_frame(x, st, at, id, sym))
					return -1;
				bt_push_frame(st, (uint32_t)st->nframes - 1);
			} else {
				return xfail(x, at, "frame without id or ref");
			}
		}
		return 0;
	}
	bool push = false;
	if (!st->depth)
		push = t == T_TQR;
	else if ((top == T_TQR && t == T_NODE) || (top == T_NODE && t == T_ROW))
		push = true;
	else if (top == T_ROW && t == T_BACKTRACE) {
		uint64_t id;
		uint32_t b;
		if (!attr_u64(a, na, "id", &id))
			return xfail(x, at, "backtrace without a numeric id");
		if (new_bt(x, st, at, id, &b))
			return -1;
		st->cur_bt = b;
		push = true;
	} else if (top == T_BACKTRACE && t == T_FRAME) {
		if (!attr_u64(a, na, "id", &st->cur_frame_id))
			return xfail(x, at, "frame without a numeric id");
		if (frame_name(x, st, a, na, at, &st->cur_frame_sym))
			return -1;
		push = true;
	}
	if (push) {
		if (st->depth == sizeof(st->stack) / sizeof(st->stack[0]))
			return xfail(x, at, "nested too deeply");
		st->stack[st->depth++] = t;
		if (t == T_ROW)
			st->row_bt = 0;
		*tracked = true;
	}
	return 0;
}

static int on_close(struct xml *x, struct state *st, const char *at, enum tag t, bool *done)
{
	if (t == T_OTHER)
		return 0;
	if (!st->depth || st->stack[st->depth - 1] != t)
		return xfail(x, at, "unpaired tag");
	st->depth--;
	switch (t) {
	case T_TQR:
		*done = true;
		break;
	case T_ROW:
		if (st->row_bt)
			st->bts[st->row_bt - 1].rows++;
		break;
	case T_BACKTRACE:
		st->row_bt = st->cur_bt;
		st->cur_bt = 0;
		break;
	case T_FRAME:
		if (add_frame(x, st, at, st->cur_frame_id, st->cur_frame_sym))
			return -1;
		bt_push_frame(st, (uint32_t)st->nframes - 1);
		break;
	default:
		break;
	}
	return 0;
}

/* Skip past `what`; false at end of input. */
static bool skip_past(struct xml *x, const char *what)
{
	size_t l = strlen(what);
	for (const char *q = x->p; q + l <= x->end; q++)
		if (!memcmp(q, what, l)) {
			x->p = q + l;
			return true;
		}
	return false;
}

static int walk(struct xml *x, struct state *st)
{
	struct attr attrs[32];
	/* Names of all open elements, to check that end tags match. */
	const char **open = NULL;
	size_t *open_len = NULL, nopen = 0, oalloc = 0, lalloc = 0;
	bool done = false;
	int ret = 0;
	while (!ret && !done) {
		const char *lt = memchr(x->p, '<', (size_t)(x->end - x->p));
		if (!lt) {
			ret = xfail(x, x->end, "unexpected end of input (no </trace-query-result>)");
			break;
		}
		x->p = lt;
		const char *at = lt;
		if (x->end - x->p >= 4 && !memcmp(x->p, "<!--", 4)) {
			if (!skip_past(x, "-->"))
				ret = xfail(x, at, "unterminated comment");
			continue;
		}
		if (x->end - x->p >= 9 && !memcmp(x->p, "<![CDATA[", 9)) {
			if (!skip_past(x, "]]>"))
				ret = xfail(x, at, "unterminated CDATA");
			continue;
		}
		if (x->end - x->p >= 2 && (x->p[1] == '?' || x->p[1] == '!')) {
			if (!skip_past(x, ">"))
				ret = xfail(x, at, "unterminated declaration");
			continue;
		}
		bool closing = x->end - x->p >= 2 && x->p[1] == '/';
		x->p += closing ? 2 : 1;
		const char *nm = x->p;
		while (x->p < x->end && name_char(*x->p))
			x->p++;
		size_t nl = (size_t)(x->p - nm);
		if (!nl) {
			ret = xfail(x, at, "tag name expected after '<'");
			break;
		}
		enum tag t = tag_of(nm, nl);
		if (closing) {
			while (x->p < x->end && cx_is_space(*x->p))
				x->p++;
			if (x->p >= x->end || *x->p != '>') {
				ret = xfail(x, at, "'>' expected");
				break;
			}
			x->p++;
			if (!nopen || open_len[nopen - 1] != nl || memcmp(open[nopen - 1], nm, nl)) {
				ret = xfail(x, at, "end tag does not match the open element");
				break;
			}
			nopen--;
			ret = on_close(x, st, at, t, &done);
			continue;
		}
		size_t na = 0;
		bool empty = false;
		for (;;) {
			while (x->p < x->end && cx_is_space(*x->p))
				x->p++;
			if (x->p >= x->end) {
				ret = xfail(x, at, "unterminated tag");
				break;
			}
			if (*x->p == '>') {
				x->p++;
				break;
			}
			if (*x->p == '/' && x->p + 1 < x->end && x->p[1] == '>') {
				x->p += 2;
				empty = true;
				break;
			}
			const char *an = x->p;
			while (x->p < x->end && name_char(*x->p))
				x->p++;
			size_t anl = (size_t)(x->p - an);
			while (x->p < x->end && cx_is_space(*x->p))
				x->p++;
			if (!anl || x->p >= x->end || *x->p != '=') {
				ret = xfail(x, x->p, "attribute expected");
				break;
			}
			x->p++;
			while (x->p < x->end && cx_is_space(*x->p))
				x->p++;
			if (x->p >= x->end || (*x->p != '"' && *x->p != '\'')) {
				ret = xfail(x, x->p, "quoted attribute value expected");
				break;
			}
			char q = *x->p++;
			const char *v = x->p;
			const char *ve = memchr(v, q, (size_t)(x->end - v));
			if (!ve || memchr(v, '<', (size_t)(ve - v))) {
				ret = xfail(x, v, "unterminated attribute value");
				break;
			}
			x->p = ve + 1;
			if (na < sizeof(attrs) / sizeof(attrs[0]))
				attrs[na++] = (struct attr){ an, v, anl, (size_t)(ve - v) };
		}
		if (ret)
			break;
		if (!empty) {
			VEC_GROW(open, nopen + 1, oalloc);
			VEC_GROW(open_len, nopen + 1, lalloc);
			open[nopen] = nm;
			open_len[nopen++] = nl;
		}
		bool tracked;
		ret = on_open(x, st, at, t, empty, attrs, na, &tracked);
	}
	free(open);
	free(open_len);
	return ret;
}

static int probe(const char *head, size_t n)
{
	static const char decl[] = "<?xml version=\"1.0\"";
	static const char root[] = "<trace-query-result";
	bool xml = false, tqr = false;
	for (size_t i = 0; i < n; i++) {
		if (head[i] != '<')
			continue;
		if (n - i >= sizeof(decl) - 1 && !memcmp(head + i, decl, sizeof(decl) - 1))
			xml = true;
		if (n - i >= sizeof(root) - 1 && !memcmp(head + i, root, sizeof(root) - 1))
			tqr = true;
		if (xml && tqr)
			return 95;
	}
	return 0;
}

static int parse(struct profile *p, const struct collapse_source *src,
		 const struct collapse_opts *opts)
{
	struct cx_diag d;
	cx_diag_init(&d, src, opts);
	struct xml x = { d.name, src->data, src->data, src->data + src->len, &d };
	struct state st = { .p = p };
	hashmap_init(&st.frame_index);
	hashmap_init(&st.bt_index);
	int ret = walk(&x, &st);
	if (!ret) {
		struct cx_stack stack = { 0 };
		for (size_t b = 0; b < st.nbts; b++) {
			if (!st.bts[b].rows)
				continue;
			stack.n = 0;
			for (uint32_t k = 0; k < st.bts[b].n; k++)
				cx_stack_push(&stack, st.frame_syms[st.bt_frames[st.bts[b].first + k]]);
			profile_count(p, cx_stack_commit_reversed(p, &stack), st.bts[b].rows);
		}
		cx_stack_release(&stack);
	}
	free(st.frame_ids);
	free(st.frame_syms);
	free(st.bts);
	free(st.bt_frames);
	hashmap_release(&st.frame_index);
	hashmap_release(&st.bt_index);
	cx_buf_release(&st.name);
	cx_buf_release(&st.fixed);
	return ret;
}

const struct collapse_format collapse_format_xctrace = {
	.name = "xctrace",
	.description = "Xcode Instruments time profile exported as XML (xctrace export)",
	.probe = probe,
	.parse = parse,
};
