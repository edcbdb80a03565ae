/* The perf.data record stream: walking, decompression, pipe-mode header
 * records, sample and sample_id parsing. */
#include "perfdata/internal.h"
#include "perfdata/perfdata.h"

#include "base/alloc.h"
#include "base/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

enum { EVENT_UPDATE_NAME = 2 };

/* ---- decompression ------------------------------------------------------ */

void pd_zstd_free(struct perf_data *pd)
{
#ifdef HAVE_ZSTD
	if (pd->zstd)
		ZSTD_freeDStream(pd->zstd);
#endif
	pd->zstd = NULL;
}

int pd_decompress(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off)
{
#ifdef HAVE_ZSTD
	if (!pd->zstd) {
		pd->zstd = ZSTD_createDStream();
		if (!pd->zstd)
			return error("%s: cannot create a zstd stream", pd->path);
		ZSTD_initDStream(pd->zstd);
	}
	ZSTD_inBuffer in = { p, n, 0 };
	while (in.pos < in.size) {
		if (pd->dbuf_alloc - pd->dbuf_len < 1 << 16)
			VEC_GROW(pd->dbuf, pd->dbuf_len + (1 << 17), pd->dbuf_alloc);
		ZSTD_outBuffer out = { pd->dbuf + pd->dbuf_len, pd->dbuf_alloc - pd->dbuf_len, 0 };
		size_t r = ZSTD_decompressStream(pd->zstd, &out, &in);
		pd->dbuf_len += out.pos;
		if (ZSTD_isError(r)) {
			char msg[160];
			snprintf(msg, sizeof(msg), "corrupt zstd data in a compressed record (%s)",
				 ZSTD_getErrorName(r));
			return pd_damage(pd, off, msg);
		}
		if (!out.pos && in.pos < in.size && r == 0)
			ZSTD_initDStream(pd->zstd); /* a new frame follows */
	}
	return 0;
#else
	(void)p;
	(void)n;
	return pd_damage(pd, off, "compressed records (perf record -z) need scorch built with zstd");
#endif
}

/* ---- sample_id ------------------------------------------------------------ */

static const struct pd_attr *attr_by_id(const struct perf_data *pd, uint64_t id)
{
	uint32_t idx;
	if (hashmap_get(&pd->id_map, id, &idx))
		return &pd->attrs[idx];
	return &pd->attrs[0];
}

const struct pd_attr *pd_record_attr(const struct perf_data *pd, const struct pd_record *r)
{
	if (!pd->nr_attrs)
		return NULL;
	if (pd->nr_attrs == 1)
		return &pd->attrs[0];
	if (r->type == PD_RECORD_SAMPLE) {
		if (pd->id_pos_sample >= 0 && (size_t)r->size >= 16 + 8 * (size_t)pd->id_pos_sample)
			return attr_by_id(pd, pd_u64(r->data + 8 + 8 * pd->id_pos_sample));
	} else if (pd->id_pos_trailer >= 0 && (size_t)r->size >= 8 + 8 * (size_t)pd->id_pos_trailer) {
		return attr_by_id(pd, pd_u64(r->data + r->size - 8 * pd->id_pos_trailer));
	}
	return &pd->attrs[0];
}

bool pd_record_id_trailer(const struct perf_data *pd, const struct pd_record *r,
			  int32_t *pid, int32_t *tid, uint64_t *time)
{
	if (!pd->nr_attrs || r->type == PD_RECORD_SAMPLE || r->type >= 64 || pd->trailer_words < 0)
		return false;
	uint64_t st = pd->attrs[0].sample_type;
	size_t n = (size_t)pd->trailer_words; /* set with the attributes (pd_finish_attrs) */
	if ((size_t)r->size < 8 + 8 * n)
		return false;
	const uint8_t *p = r->data + r->size - 8 * n;
	*pid = *tid = -1;
	*time = UINT64_MAX;
	if (st & PD_SAMPLE_TID) {
		*pid = (int32_t)pd_u32(p);
		*tid = (int32_t)pd_u32(p + 4);
		p += 8;
	}
	if (st & PD_SAMPLE_TIME)
		*time = pd_u64(p);
	return true;
}

static uint64_t record_time(const struct perf_data *pd, const struct pd_record *r)
{
	if (!pd->nr_attrs)
		return UINT64_MAX;
	if (r->type == PD_RECORD_SAMPLE) {
		size_t k;
		if (pd->time_pos_sample >= 0) {
			k = (size_t)pd->time_pos_sample;
		} else if (pd->time_pos_sample == -1) {
			return UINT64_MAX;
		} else {
			uint64_t st = pd_record_attr(pd, r)->sample_type;
			if (!(st & PD_SAMPLE_TIME))
				return UINT64_MAX;
			k = !!(st & PD_SAMPLE_IDENTIFIER) + !!(st & PD_SAMPLE_IP) + !!(st & PD_SAMPLE_TID);
		}
		if ((size_t)r->size < 16 + 8 * k)
			return UINT64_MAX;
		return pd_u64(r->data + 8 + 8 * k);
	}
	int32_t pid, tid;
	uint64_t t;
	if (pd_record_id_trailer(pd, r, &pid, &tid, &t))
		return t;
	return UINT64_MAX;
}

/* ---- pipe-mode header records -------------------------------------------- */

static int header_record(struct perf_data *pd, const struct pd_record *r)
{
	const uint8_t *p = r->data + 8;
	size_t n = (size_t)r->size - 8;
	switch (r->type) {
	case PD_RECORD_HEADER_ATTR: {
		if (n < 8)
			return pd_damage(pd, r->offset, "HEADER_ATTR record too small");
		uint32_t asz = pd_u32(p + 4);
		if (asz < 64 || asz > n)
			return pd_damage(pd, r->offset, "HEADER_ATTR attribute size out of range");
		if (pd_add_attr(pd, p, asz, r->offset) < 0)
			return -1;
		for (size_t k = asz; k + 8 <= n; k += 8)
			pd_attr_add_id(pd, pd->nr_attrs - 1, pd_u64(p + k));
		pd_finish_attrs(pd);
		return 0;
	}
	case PD_RECORD_EVENT_UPDATE: {
		if (n < 16)
			return 0;
		uint64_t type = pd_u64(p), id = pd_u64(p + 8);
		if (type != EVENT_UPDATE_NAME)
			return 0;
		for (size_t a = 0; a < pd->nr_attrs; a++)
			for (size_t k = 0; k < pd->attrs[a].nr_ids; k++)
				if (pd->attrs[a].ids[k] == id) {
					free(pd->attrs[a].name);
					pd->attrs[a].name = xmemdup0(p + 16, strnlen((const char *)p + 16, n - 16));
					return 0;
				}
		return 0;
	}
	case PD_RECORD_HEADER_FEATURE:
		if (n < 8)
			return pd_damage(pd, r->offset, "HEADER_FEATURE record too small");
		return pd_feature(pd, pd_u64(p), p + 8, n - 8, r->offset + 16);
	case PD_RECORD_HEADER_BUILD_ID:
		return pd_add_build_id(pd, r->data, r->size, r->offset);
	default:
		return 0;
	}
}

/* ---- the walk -------------------------------------------------------------- */

static int deliver(struct perf_data *pd, struct pd_record *r,
		   int (*fn)(const struct pd_record *r, void *arg), void *arg)
{
	if (r->type >= 64 && header_record(pd, r) < 0)
		return -1;
	r->time = record_time(pd, r);
	return fn(r, arg) ? 1 : 0;
}

/* Deliver the complete records now in the decompression buffer. */
static int drain(struct perf_data *pd, uint64_t container_off,
		 int (*fn)(const struct pd_record *r, void *arg), void *arg)
{
	while (pd->dbuf_len - pd->dbuf_done >= 8) {
		const uint8_t *h = pd->dbuf + pd->dbuf_done;
		uint16_t size = pd_u16(h + 6);
		if (size < 8)
			return pd_damage(pd, container_off, "decompressed record with a size below 8");
		if (size > pd->dbuf_len - pd->dbuf_done)
			break; /* continues in the next compressed record */
		struct pd_record r = { .type = pd_u32(h), .misc = pd_u16(h + 4), .size = size,
				       .data = h, .offset = container_off, .in_dbuf = true,
				       .pos = pd->dbuf_done };
		pd->dbuf_done += size;
		if (r.type == PD_RECORD_COMPRESSED || r.type == PD_RECORD_COMPRESSED2)
			return pd_damage(pd, container_off, "compressed record nested in a compressed record");
		int ret = deliver(pd, &r, fn, arg);
		if (ret)
			return ret;
	}
	return 0;
}

int perf_data_walk(struct perf_data *pd, int (*fn)(const struct pd_record *r, void *arg), void *arg)
{
	uint64_t off = pd->data_offset, end = pd->data_offset + pd->data_size;
	char msg[200];
	while (off < end) {
		if (end - off < 8) {
			pd->damaged = true;
			return pd_damage(pd, off, "truncated record header (expected 8 bytes)");
		}
		const uint8_t *h = pd->buf + off;
		struct pd_record r = { .type = pd_u32(h), .misc = pd_u16(h + 4), .size = pd_u16(h + 6),
				       .data = h, .offset = off, .pos = off };
		if (r.size < 8) {
			pd->damaged = true;
			snprintf(msg, sizeof(msg), "record of type %" PRIu32 " has size %u (expected at least 8)",
				 r.type, r.size);
			return pd_damage(pd, off, msg);
		}
		if (r.size > end - off) {
			pd->damaged = true;
			snprintf(msg, sizeof(msg),
				 "record of type %" PRIu32 " needs %u bytes, only %" PRIu64 " left (file truncated?)",
				 r.type, r.size, end - off);
			return pd_damage(pd, off, msg);
		}
		int ret;
		if (r.type == PD_RECORD_COMPRESSED || r.type == PD_RECORD_COMPRESSED2) {
			const uint8_t *p = h + 8;
			size_t n = r.size - 8u;
			if (r.type == PD_RECORD_COMPRESSED2) {
				if (n < 8 || pd_u64(p) > n - 8) {
					pd->damaged = true;
					return pd_damage(pd, off, "COMPRESSED2 record with a bad data size");
				}
				n = (size_t)pd_u64(p);
				p += 8;
			}
			if (pd_decompress(pd, p, n, off) < 0) {
				pd->damaged = true;
				return -1;
			}
			ret = drain(pd, off, fn, arg);
		} else {
			ret = deliver(pd, &r, fn, arg);
		}
		if (ret < 0)
			pd->damaged = true;
		if (ret)
			return ret;
		off += r.size;
	}
	if (pd->dbuf_len != pd->dbuf_done) {
		pd->damaged = true;
		return pd_damage(pd, end, "compressed data ends inside a record");
	}
	if (pd->data_expected) {
		pd->damaged = true;
		snprintf(msg, sizeof(msg),
			 "file ends inside the data section (expected %" PRIu64 " bytes of records from byte %" PRIu64
			 "): truncated",
			 pd->data_expected, pd->data_offset);
		return pd_damage(pd, end, msg);
	}
	if (pd->pipe && !pd->nr_attrs)
		return pd_damage(pd, off, "pipe-mode data without any event attribute");
	return 0;
}

/* ---- samples ----------------------------------------------------------------- */

int pd_parse_sample(const struct perf_data *pd, const struct pd_record *r, struct pd_sample *s)
{
	const uint8_t *p = r->data + 8, *end = r->data + r->size;
	*s = (struct pd_sample){ .pid = -1, .tid = -1, .misc = r->misc, .period = 1 };
	const struct pd_attr *a = pd_record_attr(pd, r);
	if (!a)
		return pd_damage(pd, r->offset, "sample before any event attribute");
	s->attr = a;
	uint64_t st = a->sample_type;
	const char *what = "sample fields";
#define NEED(n)                                                   \
	do {                                                      \
		if ((uint64_t)(end - p) < (uint64_t)(n))          \
			goto truncated;                           \
	} while (0)
#define U64(dst)                  \
	do {                      \
		NEED(8);          \
		(dst) = pd_u64(p); \
		p += 8;           \
	} while (0)
	uint64_t skip;
	if (st & PD_SAMPLE_IDENTIFIER)
		U64(s->id);
	if (st & PD_SAMPLE_IP)
		U64(s->ip);
	if (st & PD_SAMPLE_TID) {
		NEED(8);
		s->pid = (int32_t)pd_u32(p);
		s->tid = (int32_t)pd_u32(p + 4);
		p += 8;
	}
	if (st & PD_SAMPLE_TIME)
		U64(s->time);
	if (st & PD_SAMPLE_ADDR)
		U64(s->addr);
	if (st & PD_SAMPLE_ID)
		U64(s->id);
	if (st & PD_SAMPLE_STREAM_ID)
		U64(s->stream_id);
	if (st & PD_SAMPLE_CPU) {
		NEED(8);
		s->cpu = pd_u32(p);
		p += 8;
	}
	if (st & PD_SAMPLE_PERIOD)
		U64(s->period);
	if (st & PD_SAMPLE_READ) {
		what = "read values";
		uint64_t rf = a->read_format;
		uint64_t per = 1 + !!(rf & (1u << 2)) + !!(rf & (1u << 4));
		uint64_t hdr = !!(rf & 1u) + !!(rf & 2u);
		if (rf & (1u << 3)) { /* PERF_FORMAT_GROUP */
			uint64_t nr;
			U64(nr);
			if (nr > (uint64_t)(end - p) / 8 / per)
				goto truncated;
			skip = (hdr + nr * per) * 8;
		} else {
			skip = (hdr + per) * 8;
		}
		NEED(skip);
		p += skip;
	}
	if (st & PD_SAMPLE_CALLCHAIN) {
		what = "callchain";
		U64(s->nr_callchain);
		if (s->nr_callchain > (uint64_t)(end - p) / 8)
			goto truncated;
		s->callchain = p;
		p += s->nr_callchain * 8;
	}
	if (st & PD_SAMPLE_RAW) {
		what = "raw data";
		NEED(4);
		uint32_t rs = pd_u32(p);
		NEED((uint64_t)rs + 4);
		p += 4 + (uint64_t)rs;
	}
	if (st & PD_SAMPLE_BRANCH_STACK) {
		what = "branch stack";
		uint64_t nr;
		U64(nr);
		if (a->branch_sample_type & (1u << 17)) /* HW_INDEX */
			U64(skip);
		if (nr > (uint64_t)(end - p) / 24)
			goto truncated;
		p += nr * 24;
	}
	if (st & PD_SAMPLE_REGS_USER) {
		what = "user registers";
		U64(s->regs_abi);
		if (s->regs_abi) {
			uint32_t nr = (uint32_t)__builtin_popcountll(a->sample_regs_user);
			NEED((uint64_t)nr * 8);
			s->regs = p;
			s->nr_regs = nr;
			p += (uint64_t)nr * 8;
		}
	}
	if (st & PD_SAMPLE_STACK_USER) {
		what = "user stack";
		uint64_t size;
		U64(size);
		if (size) {
			NEED(size);
			s->stack = p;
			p += size;
			uint64_t dyn;
			U64(dyn);
			s->stack_size = dyn < size ? dyn : size;
		}
	}
	return 0;
truncated: {
	char msg[120];
	snprintf(msg, sizeof(msg), "sample record too short for its %s (size %u)", what, r->size);
	return pd_damage(pd, r->offset, msg);
}
#undef NEED
#undef U64
}
