/* Naming a Method* (hotspot_method.h). */
#include "runtime/hotspot_method.h"

#include <stdio.h>
#include <string.h>

enum { JVM_CONSTANT_UTF8 = 1, MAX_POOL = 65536, MAX_QUEUE = 64 << 20 };

struct reader {
	hotspot_read_fn read;
	void *arg;
	const struct hotspot_layout *l;
};

static bool rd_u64(const struct reader *r, uint64_t addr, uint64_t *v)
{
	return addr && r->read(r->arg, addr, v, sizeof(*v));
}

static bool rd_u32(const struct reader *r, uint64_t addr, uint32_t *v)
{
	return addr && r->read(r->arg, addr, v, sizeof(*v));
}

static bool rd_u16(const struct reader *r, uint64_t addr, uint16_t *v)
{
	return addr && r->read(r->arg, addr, v, sizeof(*v));
}

#define plausible hotspot_plausible

bool hotspot_interpreter_range(hotspot_read_fn read, void *arg, const struct hotspot_layout *l, uint64_t *lo,
			       uint64_t *hi)
{
	struct reader r = { read, arg, l };
	uint64_t queue, buffer;
	uint32_t limit;
	if (!rd_u64(&r, l->interpreter_code, &queue) || !plausible(queue) ||
	    !rd_u64(&r, queue + l->queue_buffer, &buffer) || !rd_u32(&r, queue + l->queue_limit, &limit) ||
	    !buffer || !limit || limit > MAX_QUEUE || buffer > UINT64_MAX - limit)
		return false;
	*lo = buffer;
	*hi = buffer + limit;
	return true;
}

bool hotspot_const_method(hotspot_read_fn read, void *arg, const struct hotspot_layout *l, uint64_t method,
			  uint64_t *const_method)
{
	struct reader r = { read, arg, l };
	return plausible(method) && rd_u64(&r, method + l->method_const_method, const_method) &&
	       plausible(*const_method);
}

/* The Symbol of pool slot index: tagged Utf8, its text into buf (cap >
 * HOTSPOT_MAX_SYMBOL), NUL-terminated, no NUL or control byte in it. */
static bool pool_symbol(const struct reader *r, uint64_t pool, uint64_t tags, uint32_t pool_len, uint16_t index,
			char *buf, size_t *len)
{
	uint8_t tag;
	uint64_t sym;
	uint16_t n;
	if (!index || index >= pool_len || !r->read(r->arg, tags + r->l->array_u1_data + index, &tag, 1) ||
	    tag != JVM_CONSTANT_UTF8 || !rd_u64(r, pool + r->l->pool_size + 8ull * index, &sym) || !plausible(sym) ||
	    !rd_u16(r, sym + r->l->symbol_length, &n) || !n || n > HOTSPOT_MAX_SYMBOL ||
	    !r->read(r->arg, sym + r->l->symbol_body, buf, n))
		return false;
	for (uint16_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return false;
	buf[n] = 0;
	*len = n;
	return true;
}

/* Does holder list method among its methods? */
static bool holder_has(const struct reader *r, uint64_t holder, uint64_t method, uint16_t idnum)
{
	uint64_t methods, at;
	uint32_t n;
	if (!rd_u64(r, holder + r->l->klass_methods, &methods) || !plausible(methods) ||
	    !rd_u32(r, methods + r->l->array_length, &n) || !n || n > MAX_POOL)
		return false;
	uint64_t data = methods + r->l->array_ptr_data;
	if (idnum < n && rd_u64(r, data + 8ull * idnum, &at) && at == method)
		return true; /* methods are numbered as the array holds them, until a class is redefined */
	uint64_t chunk[256];
	for (uint32_t i = 0; i < n && i < HOTSPOT_MAX_METHODS; i += 256) {
		uint32_t k = n - i < 256 ? n - i : 256;
		if (!r->read(r->arg, data + 8ull * i, chunk, 8ull * k))
			return false;
		for (uint32_t j = 0; j < k; j++)
			if (chunk[j] == method)
				return true;
	}
	return false;
}

struct out {
	char *buf;
	size_t len, cap;
	bool full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full || n >= o->cap - o->len) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = 0;
}

/* A class's internal name (java/lang/String) as Java writes it. */
static void put_class(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(o, s[i] == '/' ? "." : s + i, 1);
}

/* One field type of a descriptor at *at (advanced past it); false when
 * it does not parse. */
static bool put_type(struct out *o, const char *d, size_t n, size_t *at)
{
	static const char codes[] = "BCDFIJSZV";
	static const char *const names[] = { "byte", "char", "double", "float", "int", "long", "short", "boolean",
					     "void" };
	size_t dims = 0;
	while (*at < n && d[*at] == '[' && dims < 255)
		dims++, (*at)++;
	if (*at >= n)
		return false;
	const char *c = strchr(codes, d[*at]);
	if (d[*at] == 'L') {
		const char *end = memchr(d + *at, ';', n - *at);
		if (!end || end == d + *at + 1)
			return false;
		put_class(o, d + *at + 1, (size_t)(end - d - *at - 1));
		*at = (size_t)(end - d) + 1;
	} else if (c && *c && (*c != 'V' || !dims)) {
		put(o, names[c - codes], strlen(names[c - codes]));
		(*at)++;
	} else {
		return false;
	}
	while (dims--)
		put(o, "[]", 2);
	return true;
}

/* "ret Class.name(args)" from the three Symbols. */
static bool format_name(struct out *o, const char *klass, size_t kn, const char *name, size_t nn, const char *sig,
			size_t sn)
{
	const char *ret = sig[0] == '(' ? memchr(sig, ')', sn) : NULL;
	if (!ret)
		return false;
	size_t at = (size_t)(ret - sig) + 1;
	if (!put_type(o, sig, sn, &at) || at != sn)
		return false;
	put(o, " ", 1);
	put_class(o, klass, kn);
	put(o, ".", 1);
	put(o, name, nn);
	put(o, "(", 1);
	at = 1;
	for (bool first = true; at < sn && sig[at] != ')'; first = false) {
		if (!first)
			put(o, ", ", 2);
		if (!put_type(o, sig, sn, &at) || sig[at - 1] == 'V')
			return false;
	}
	put(o, ")", 1);
	return !o->full;
}

bool hotspot_method_name(hotspot_read_fn read, void *arg, const struct hotspot_layout *l, uint64_t method,
			 char *buf, size_t cap)
{
	struct reader r = { read, arg, l };
	uint64_t cm, pool, holder, tags, klass_sym;
	uint16_t name_index, sig_index, idnum, kn16;
	uint32_t pool_len, tags_len;
	if (cap < HOTSPOT_NAME_CAP || !hotspot_const_method(read, arg, l, method, &cm) ||
	    !rd_u64(&r, cm + l->const_method_constants, &pool) || !plausible(pool) ||
	    !rd_u16(&r, cm + l->const_method_name_index, &name_index) ||
	    !rd_u16(&r, cm + l->const_method_signature_index, &sig_index) ||
	    !rd_u16(&r, cm + l->const_method_idnum, &idnum) || !rd_u64(&r, pool + l->pool_holder, &holder) ||
	    !plausible(holder) || !rd_u32(&r, pool + l->pool_length, &pool_len) || !pool_len || pool_len > MAX_POOL ||
	    !rd_u64(&r, pool + l->pool_tags, &tags) || !plausible(tags) ||
	    !rd_u32(&r, tags + l->array_length, &tags_len) || tags_len != pool_len)
		return false;
	char name[HOTSPOT_MAX_SYMBOL + 1], sig[HOTSPOT_MAX_SYMBOL + 1], klass[HOTSPOT_MAX_SYMBOL + 1];
	size_t nn, sn, kn;
	if (!pool_symbol(&r, pool, tags, pool_len, name_index, name, &nn) ||
	    !pool_symbol(&r, pool, tags, pool_len, sig_index, sig, &sn) || !holder_has(&r, holder, method, idnum) ||
	    !rd_u64(&r, holder + l->klass_name, &klass_sym) || !plausible(klass_sym) ||
	    !rd_u16(&r, klass_sym + l->symbol_length, &kn16) || !kn16 || kn16 > HOTSPOT_MAX_SYMBOL ||
	    !read(arg, klass_sym + l->symbol_body, klass, kn16))
		return false;
	kn = kn16;
	for (size_t i = 0; i < kn; i++)
		if ((unsigned char)klass[i] < 0x20 || klass[i] == 0x7f)
			return false;
	struct out o = { buf, 0, cap, false };
	buf[0] = 0;
	return format_name(&o, klass, kn, name, nn, sig, sn);
}
