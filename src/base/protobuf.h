/* Protocol Buffers wire format, the small part profile.proto needs:
 * varints and length-delimited fields. A writer into a growing buffer
 * (nested messages are built in their own buffer, then appended as one
 * length-delimited field) and a bounds-checked reader that knows the byte
 * offset of everything it reads, for error messages. No schema, no
 * reflection: the pprof reader and writer name their own field numbers. */
#ifndef SCORCH_BASE_PROTOBUF_H
#define SCORCH_BASE_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_wire { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

struct pb_buf {
	uint8_t *data;
	size_t len, alloc;
};

void pb_buf_release(struct pb_buf *b);
static inline void pb_buf_clear(struct pb_buf *b)
{
	b->len = 0;
}

void pb_put_varint(struct pb_buf *b, uint64_t v);
void pb_put_bytes(struct pb_buf *b, const void *p, size_t n);
/* field = varint (omitted when zero, as proto3 does). */
void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v);
/* field = bytes or string, always written (string_table[0] is ""). */
void pb_put_string(struct pb_buf *b, uint32_t field, const void *p, size_t n);
/* field = an already-encoded message (or packed values) in sub. */
static inline void pb_put_message(struct pb_buf *b, uint32_t field, const struct pb_buf *sub)
{
	pb_put_string(b, field, sub->data, sub->len);
}

/* Reading: one message's bytes, [pos, end), with base = the offset of
 * data[0] in the file for messages. */
struct pb_reader {
	const uint8_t *data;
	size_t pos, end;
};

/* One field as read. For PB_LEN, sub covers its bytes; for the others,
 * value holds the number. */
struct pb_field {
	uint32_t number;
	enum pb_wire wire;
	uint64_t value;
	struct pb_reader sub;
	size_t offset; /* of the field's tag */
};

/* The next field: 1, 0 at the end of the message, or -1 when the bytes are
 * not valid wire format (*why says what, *at its offset). */
int pb_next(struct pb_reader *r, struct pb_field *f, const char **why, size_t *at);
/* One varint from r (packed repeated fields): 0, or -1 with *at set. */
int pb_read_varint(struct pb_reader *r, uint64_t *v, size_t *at);

#endif
