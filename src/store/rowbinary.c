/* RowBinary encoding and decoding (store/rowbinary.h). */
#include "store/rowbinary.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static void put(struct rb_buf *b, const void *p, size_t n)
{
	VEC_GROW(b->data, b->len + n, b->alloc);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_le(struct rb_buf *b, uint64_t v, int bytes)
{
	unsigned char tmp[8];
	for (int i = 0; i < bytes; i++)
		tmp[i] = (unsigned char)(v >> (8 * i));
	put(b, tmp, (size_t)bytes);
}

void rb_bytes(struct rb_buf *b, const void *p, size_t n) { put(b, p, n); }

void rb_u16(struct rb_buf *b, uint16_t v) { put_le(b, v, 2); }
void rb_u32(struct rb_buf *b, uint32_t v) { put_le(b, v, 4); }
void rb_u64(struct rb_buf *b, uint64_t v) { put_le(b, v, 8); }

void rb_leb(struct rb_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	do {
		tmp[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	put(b, tmp, n);
}

void rb_str(struct rb_buf *b, const char *s, size_t n)
{
	rb_leb(b, n);
	put(b, s, n);
}

void rb_release(struct rb_buf *b)
{
	free(b->data);
	*b = (struct rb_buf){ 0 };
}

uint64_t rb_read_u64(struct rb_reader *r)
{
	if (r->bad || r->end - r->p < 8) {
		r->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | r->p[i];
	r->p += 8;
	return v;
}

uint64_t rb_read_leb(struct rb_reader *r)
{
	uint64_t v = 0;
	for (int shift = 0; !r->bad; shift += 7) {
		if (r->p == r->end || shift > 63) {
			r->bad = true;
			break;
		}
		unsigned char c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	return 0;
}

const char *rb_read_str(struct rb_reader *r, size_t *n)
{
	uint64_t len = rb_read_leb(r);
	if (r->bad || len > (uint64_t)(r->end - r->p)) {
		r->bad = true;
		*n = 0;
		return "";
	}
	const char *s = (const char *)r->p;
	r->p += len;
	*n = (size_t)len;
	return s;
}
