/* perf.data's file header and its sections (their tables: header.c). */
#include "perfdata/perfdata.h"
#include "perfdata/internal.h"

#include "base/alloc.h"
#include "base/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HEADER_SIZE = 104, PIPE_HEADER_SIZE = 16 };

static bool section_ok(const struct perf_data *pd, uint64_t off, uint64_t size)
{
	return off <= pd->len && size <= pd->len - off;
}

static int parse_features(struct perf_data *pd)
{
	uint64_t base = pd->data_offset + pd->data_size;
	size_t k = 0;
	for (unsigned bit = 0; bit < 256; bit++) {
		if (!(pd->features[bit / 64] >> (bit % 64) & 1))
			continue;
		uint64_t so = base + 16 * (uint64_t)k++;
		/* Damage here leaves the samples readable: report it, mark the
		 * file damaged (the caller decides), and stop reading features. */
		if (!section_ok(pd, so, 16)) {
			pd->damaged = true;
			pd_damage(pd, so, "feature section table runs past the end of the file (truncated?)");
			return 0;
		}
		uint64_t off = pd_u64(pd->buf + so), size = pd_u64(pd->buf + so + 8);
		if (!section_ok(pd, off, size)) {
			pd->damaged = true;
			pd_damage(pd, so, "feature section points past the end of the file (truncated?)");
			return 0;
		}
		if (pd_feature(pd, bit, pd->buf + off, size, off) < 0) {
			pd->damaged = true;
			return 0;
		}
	}
	return 0;
}

static int parse_file_header(struct perf_data *pd)
{
	const uint8_t *b = pd->buf;
	if (pd->len < HEADER_SIZE)
		return pd_damage(pd, pd->len, "file header truncated (expected 104 bytes)");
	uint64_t hsize = pd_u64(b + 8), attr_size = pd_u64(b + 16);
	if (hsize < HEADER_SIZE)
		return pd_damage(pd, 8, "header size below 104");
	uint64_t aoff = pd_u64(b + 24), asize = pd_u64(b + 32);
	pd->data_offset = pd_u64(b + 40);
	pd->data_size = pd_u64(b + 48);
	for (int i = 0; i < 4; i++)
		pd->features[i] = pd_u64(b + 72 + 8 * i);
	if (attr_size < PD_ATTR_MIN_SIZE + 16 || attr_size > 4096)
		return pd_damage(pd, 16, "implausible attribute entry size");
	if (!section_ok(pd, aoff, asize))
		return pd_damage(pd, 24, "attribute section points past the end of the file");
	if (pd->data_offset > pd->len)
		return pd_damage(pd, 40, "data section starts past the end of the file");
	bool truncated = !section_ok(pd, pd->data_offset, pd->data_size);
	if (truncated) {
		/* A cut file: read the records that are there (the walk reports
		 * where the data ends); the feature sections are gone. */
		pd->data_expected = pd->data_size;
		pd->data_size = pd->len - pd->data_offset;
	}
	size_t nr = (size_t)(asize / attr_size);
	for (size_t i = 0; i < nr; i++) {
		uint64_t eo = aoff + i * attr_size;
		const uint8_t *e = b + eo;
		if (pd_add_attr(pd, e, (size_t)(attr_size - 16), eo) < 0)
			return -1;
		uint64_t ioff = pd_u64(e + attr_size - 16), isize = pd_u64(e + attr_size - 8);
		if (!section_ok(pd, ioff, isize))
			return pd_damage(pd, eo + attr_size - 16, "attribute ids point past the end of the file");
		for (uint64_t k = 0; k + 8 <= isize; k += 8)
			pd_attr_add_id(pd, i, pd_u64(b + ioff + k));
	}
	if (!nr)
		return pd_damage(pd, 24, "no event attributes");
	return truncated ? 0 : parse_features(pd);
}

int perf_data_open(struct perf_data *pd, const char *path, const void *buf, size_t len)
{
	memset(pd, 0, sizeof(*pd));
	pd->time_pos_sample = -2; /* not known: each sample's attribute says */
	hashmap_init(&pd->id_map);
	pd->path = path ? path : "<stdin>";
	pd->buf = buf;
	pd->len = len;
	int bad = 0;
	if (len < PIPE_HEADER_SIZE)
		bad = pd_damage(pd, len, "too short for a perf.data header (expected the \"PERFILE2\" magic)");
	else if (!memcmp(buf, "2ELIFREP", 8))
		bad = error("%s: perf.data of the other byte order is not supported", pd->path);
	else if (!memcmp(buf, "PERFFILE", 8))
		bad = error("%s: perf.data version 1 is not supported", pd->path);
	else if (memcmp(buf, "PERFILE2", 8))
		bad = pd_damage(pd, 0, "not a perf.data file (expected the \"PERFILE2\" magic)");
	if (bad) {
		perf_data_close(pd);
		return -1;
	}
	uint64_t hsize = pd_u64(pd->buf + 8);
	if (hsize == PIPE_HEADER_SIZE) {
		pd->pipe = true;
		pd->data_offset = PIPE_HEADER_SIZE;
		pd->data_size = len - PIPE_HEADER_SIZE;
		return 0; /* attrs arrive as records */
	}
	if (parse_file_header(pd) < 0) {
		perf_data_close(pd);
		return -1;
	}
	pd_finish_attrs(pd);
	return 0;
}

void perf_data_close(struct perf_data *pd)
{
	for (size_t i = 0; i < pd->nr_attrs; i++) {
		free(pd->attrs[i].name);
		free(pd->attrs[i].ids);
	}
	free(pd->attrs);
	for (size_t i = 0; i < pd->nr_build_ids; i++)
		free(pd->build_ids[i].filename);
	free(pd->build_ids);
	pd_zstd_free(pd);
	hashmap_release(&pd->id_map);
	free(pd->dbuf);
	memset(pd, 0, sizeof(*pd));
}
