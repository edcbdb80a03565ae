/* A growing byte buffer and the varints the HTML viewer's data block is
 * made of (render/html.c, html_time.c). */
#ifndef SCORCH_RENDER_VARINT_H
#define SCORCH_RENDER_VARINT_H

#include "base/alloc.h"

#include <stddef.h>
#include <stdint.h>

struct bytes {
	unsigned char *b;
	size_t n, alloc;
};

static inline void put_byte(struct bytes *v, unsigned char c)
{
	VEC_GROW(v->b, v->n + 1, v->alloc);
	v->b[v->n++] = c;
}

/* Little-endian base 128: 7 bits a byte, the high bit set on all but the last. */
static inline void put_varint(struct bytes *v, uint64_t x)
{
	while (x >= 0x80) {
		put_byte(v, (unsigned char)(x | 0x80));
		x >>= 7;
	}
	put_byte(v, (unsigned char)x);
}

static inline void put_zigzag(struct bytes *v, int64_t x)
{
	put_varint(v, x < 0 ? ((uint64_t)(-(x + 1)) << 1) | 1 : (uint64_t)x << 1);
}

#endif
