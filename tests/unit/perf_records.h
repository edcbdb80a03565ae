/* Building perf ring-buffer records byte by byte, for the unit tests of
 * record's parser (test_record.c, test_offcpu.c). */
#ifndef SCORCH_TESTS_PERF_RECORDS_H
#define SCORCH_TESTS_PERF_RECORDS_H

#include "base/out.h"
#include "profile/folded.h"
#include "profile/profile.h"
#include "record/perf_parse.h"
#include "record/record.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct buf {
	unsigned char b[8192];
	size_t n;
};

static inline void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static inline void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static inline void u64(struct buf *b, uint64_t v) { put(b, &v, 8); }

/* Start a record; end() pads to 8 bytes and fills in the size. */
static inline size_t begin(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->n;
	struct perf_event_header h = { type, misc, 0 };
	put(b, &h, sizeof(h));
	return at;
}

static inline void end(struct buf *b, size_t at)
{
	while ((b->n - at) % 8)
		b->b[b->n++] = 0;
	struct perf_event_header h;
	memcpy(&h, b->b + at, sizeof(h));
	h.size = (uint16_t)(b->n - at);
	memcpy(b->b + at, &h, sizeof(h));
}

/* What a recorder collected, built and written as folded text; frees r. */
static inline char *recorder_folded_text(struct recorder *r)
{
	struct profile p;
	profile_init(&p);
	recorder_build(r, &p);
	struct out *o = out_open_mem();
	folded_write(&p, o);
	size_t len;
	char *s = out_mem_detach(o, &len); /* frees o */
	profile_release(&p);
	recorder_free(r);
	return s;
}

#endif
