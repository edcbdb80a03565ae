/* Protocol Buffers wire format (base/protobuf.h). */
#include "base/protobuf.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

void pb_buf_release(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static void reserve(struct pb_buf *b, size_t n)
{
	if (n > SIZE_MAX - b->len)
		alloc_fail("a protobuf message over SIZE_MAX bytes");
	VEC_GROW(b->data, b->len + n, b->alloc);
}

void pb_put_varint(struct pb_buf *b, uint64_t v)
{
	reserve(b, 10);
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t)v;
}

void pb_put_bytes(struct pb_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	pb_put_varint(b, (uint64_t)field << 3 | PB_VARINT);
	pb_put_varint(b, v);
}

void pb_put_string(struct pb_buf *b, uint32_t field, const void *p, size_t n)
{
	pb_put_varint(b, (uint64_t)field << 3 | PB_LEN);
	pb_put_varint(b, n);
	pb_put_bytes(b, p, n);
}

int pb_read_varint(struct pb_reader *r, uint64_t *v, size_t *at)
{
	uint64_t x = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->pos >= r->end) {
			*at = r->pos;
			return -1;
		}
		uint8_t byte = r->data[r->pos++];
		x |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*v = x;
			return 0;
		}
	}
	*at = r->pos;
	return -1;
}

int pb_next(struct pb_reader *r, struct pb_field *f, const char **why, size_t *at)
{
	if (r->pos >= r->end)
		return 0;
	f->offset = r->pos;
	uint64_t tag;
	if (pb_read_varint(r, &tag, at)) {
		*why = "truncated or overlong field tag";
		return -1;
	}
	f->number = (uint32_t)(tag >> 3);
	f->wire = (enum pb_wire)(tag & 7);
	if (tag >> 3 == 0 || tag >> 3 > UINT32_MAX) {
		*why = "invalid field number";
		*at = f->offset;
		return -1;
	}
	switch (f->wire) {
	case PB_VARINT:
		if (pb_read_varint(r, &f->value, at)) {
			*why = "truncated or overlong varint";
			return -1;
		}
		return 1;
	case PB_FIXED64:
	case PB_FIXED32: {
		size_t n = f->wire == PB_FIXED64 ? 8 : 4;
		if (r->end - r->pos < n) {
			*why = "truncated fixed-width field";
			*at = r->pos;
			return -1;
		}
		f->value = 0;
		for (size_t i = 0; i < n; i++)
			f->value |= (uint64_t)r->data[r->pos + i] << (8 * i);
		r->pos += n;
		return 1;
	}
	case PB_LEN: {
		uint64_t n;
		size_t len_at = r->pos;
		if (pb_read_varint(r, &n, at)) {
			*why = "truncated length";
			return -1;
		}
		if (n > r->end - r->pos) {
			*why = "length runs past the end of its message";
			*at = len_at;
			return -1;
		}
		f->sub = (struct pb_reader){ r->data, r->pos, r->pos + (size_t)n };
		r->pos += (size_t)n;
		return 1;
	}
	default:
		*why = "unsupported wire type (groups or invalid)";
		*at = f->offset;
		return -1;
	}
}
