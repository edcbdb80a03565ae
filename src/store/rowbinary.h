/* ClickHouse's RowBinary format, both ways: UInt16/32/64 little-endian,
 * String and Array counts as LEB128 (what INSERT ... FORMAT RowBinary
 * reads and SELECT ... FORMAT RowBinary writes, in 18.16 and current
 * releases alike). Bytes are bytes: no escaping is needed, none happens. */
#ifndef SCORCH_STORE_ROWBINARY_H
#define SCORCH_STORE_ROWBINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_buf {
	char *data;
	size_t len, alloc;
};

void rb_u16(struct rb_buf *b, uint16_t v);
void rb_u32(struct rb_buf *b, uint32_t v);
void rb_u64(struct rb_buf *b, uint64_t v);
void rb_leb(struct rb_buf *b, uint64_t v);
void rb_str(struct rb_buf *b, const char *s, size_t n);
void rb_bytes(struct rb_buf *b, const void *p, size_t n); /* as they are, no length */
void rb_release(struct rb_buf *b);

/* Reading a reply: every read checks the bounds; a short or malformed
 * reply sets bad (then every read gives 0/empty). */
struct rb_reader {
	const unsigned char *p, *end;
	bool bad;
};

uint64_t rb_read_u64(struct rb_reader *r);
uint64_t rb_read_leb(struct rb_reader *r);
/* A String: pointer into the reply, its length in *n. */
const char *rb_read_str(struct rb_reader *r, size_t *n);

#endif
