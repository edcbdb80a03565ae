/* The tables perf.data's header describes (internal.h): attributes and
 * their ids, event descriptions, build-ids, the feature sections' strings,
 * as the file header and pipe mode's header records bring them, and the
 * damage message. Below both readers (reader.c: the file header; records.c:
 * the record stream). */
#include "perfdata/internal.h"
#include "perfdata/perfdata.h"

#include "base/alloc.h"
#include "base/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_CLOCK_DATA = 29 };

int pd_damage(const struct perf_data *pd, uint64_t off, const char *what)
{
	if (pd->damage_reported)
		return -1;
	return error("%s: byte %" PRIu64 ": %s", pd->path, off, what);
}

/* Decode a perf_event_attr of n bytes (older/newer sizes tolerated). */
void pd_decode_attr(struct pd_attr *a, const uint8_t *p, size_t n)
{
	memset(a, 0, sizeof(*a));
	a->type = pd_u32(p);
	a->config = pd_u64(p + 8);
	a->sample_type = pd_u64(p + 24);
	a->read_format = pd_u64(p + 32);
	a->flags = pd_u64(p + 40);
	if (n >= 80)
		a->branch_sample_type = pd_u64(p + 72);
	if (n >= 96) {
		a->sample_regs_user = pd_u64(p + 80);
		a->sample_stack_user = pd_u32(p + 88);
	}
}

static void add_id(struct pd_attr *a, uint64_t id)
{
	a->ids = xreallocarray(a->ids, a->nr_ids + 1, sizeof(*a->ids));
	a->ids[a->nr_ids++] = id;
}

/* perf's names for the common events, used when the file names none. */
static char *derive_name(const struct pd_attr *a)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references",
					  "cache-misses", "branches", "branch-misses",
					  "bus-cycles", "stalled-cycles-frontend",
					  "stalled-cycles-backend", "ref-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults",
					  "context-switches", "cpu-migrations",
					  "minor-faults", "major-faults", "alignment-faults",
					  "emulation-faults", "dummy", "bpf-output", "cgroup-switches" };
	char buf[64];
	if (a->type == 0 && a->config < sizeof(hw) / sizeof(hw[0]))
		return xstrdup(hw[a->config]);
	if (a->type == 1 && a->config < sizeof(sw) / sizeof(sw[0]))
		return xstrdup(sw[a->config]);
	snprintf(buf, sizeof(buf), "unknown-%" PRIu32 ":%" PRIx64, a->type, a->config);
	return xstrdup(buf);
}

/* Where an attribute's samples have their time (u64 index), or -1. */
static int time_pos(uint64_t st)
{
	if (!(st & PD_SAMPLE_TIME))
		return -1;
	return !!(st & PD_SAMPLE_IDENTIFIER) + !!(st & PD_SAMPLE_IP) + !!(st & PD_SAMPLE_TID);
}

/* Positions of the sample id, used to find a record's attribute, and of
 * the time when all attributes agree (a sample's time is then read
 * without finding its attribute); the size of other records' sample_id
 * trailer. */
static void compute_id_pos(struct perf_data *pd)
{
	pd->id_pos_sample = pd->id_pos_trailer = pd->trailer_words = -1;
	pd->time_pos_sample = -1;
	if (!pd->nr_attrs)
		return;
	uint64_t st = pd->attrs[0].sample_type;
	if (pd->attrs[0].flags >> 18 & 1) /* sample_id_all */
		pd->trailer_words = !!(st & PD_SAMPLE_TID) + !!(st & PD_SAMPLE_TIME) + !!(st & PD_SAMPLE_ID) +
				    !!(st & PD_SAMPLE_STREAM_ID) + !!(st & PD_SAMPLE_CPU) +
				    !!(st & PD_SAMPLE_IDENTIFIER);
	pd->time_pos_sample = time_pos(st);
	for (size_t i = 1; i < pd->nr_attrs; i++)
		if (time_pos(pd->attrs[i].sample_type) != pd->time_pos_sample)
			pd->time_pos_sample = -2;
	if (st & PD_SAMPLE_IDENTIFIER) {
		pd->id_pos_sample = 0;
		pd->id_pos_trailer = 1;
		return;
	}
	if (!(st & PD_SAMPLE_ID))
		return;
	int k = 0;
	if (st & PD_SAMPLE_IP)
		k++;
	if (st & PD_SAMPLE_TID)
		k++;
	if (st & PD_SAMPLE_TIME)
		k++;
	if (st & PD_SAMPLE_ADDR)
		k++;
	pd->id_pos_sample = k;
	int t = 1;
	if (st & PD_SAMPLE_CPU)
		t++;
	if (st & PD_SAMPLE_STREAM_ID)
		t++;
	pd->id_pos_trailer = t;
}

void pd_finish_attrs(struct perf_data *pd)
{
	hashmap_release(&pd->id_map);
	hashmap_init(&pd->id_map);
	for (size_t i = 0; i < pd->nr_attrs; i++) {
		if (!pd->attrs[i].name)
			pd->attrs[i].name = derive_name(&pd->attrs[i]);
		for (size_t k = 0; k < pd->attrs[i].nr_ids; k++) {
			bool ins;
			hashmap_upsert(&pd->id_map, pd->attrs[i].ids[k], (uint32_t)i, &ins);
		}
	}
	compute_id_pos(pd);
}

int pd_add_attr(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off)
{
	if (n < PD_ATTR_MIN_SIZE)
		return pd_damage(pd, off, "attribute too small (expected at least 64 bytes)");
	pd->attrs = xreallocarray(pd->attrs, pd->nr_attrs + 1, sizeof(*pd->attrs));
	pd_decode_attr(&pd->attrs[pd->nr_attrs], p, n);
	pd->nr_attrs++;
	return 0;
}

void pd_attr_add_id(struct perf_data *pd, size_t idx, uint64_t id)
{
	add_id(&pd->attrs[idx], id);
}

/* A perf string {u32 len; char s[len]} at *p (bounded by end). */
static const char *read_string(const uint8_t **p, const uint8_t *end, size_t *slen)
{
	if (end - *p < 4)
		return NULL;
	uint32_t n = pd_u32(*p);
	if ((size_t)(end - *p - 4) < n)
		return NULL;
	const char *s = (const char *)*p + 4;
	*p += 4 + (size_t)n;
	*slen = strnlen(s, n);
	return s;
}

int pd_parse_event_desc(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off)
{
	const uint8_t *end = p + n;
	if (n < 8)
		return pd_damage(pd, off, "EVENT_DESC feature too small");
	uint32_t nr = pd_u32(p), asz = pd_u32(p + 4);
	p += 8;
	if (asz < PD_ATTR_MIN_SIZE)
		return pd_damage(pd, off, "EVENT_DESC attribute size below 64");
	for (uint32_t i = 0; i < nr; i++) {
		if ((size_t)(end - p) < (size_t)asz + 4)
			return pd_damage(pd, off + (uint64_t)(p - (end - n)), "truncated EVENT_DESC entry");
		p += asz;
		uint32_t nids = pd_u32(p);
		p += 4;
		size_t slen;
		const char *name = read_string(&p, end, &slen);
		if (!name || (size_t)(end - p) / 8 < nids)
			return pd_damage(pd, off + (uint64_t)(p - (end - n)), "truncated EVENT_DESC name or ids");
		/* Match by id, else by position. */
		size_t target = i < pd->nr_attrs ? i : SIZE_MAX;
		if (nids) {
			uint64_t id0 = pd_u64(p);
			for (size_t a = 0; a < pd->nr_attrs; a++)
				for (size_t k = 0; k < pd->attrs[a].nr_ids; k++)
					if (pd->attrs[a].ids[k] == id0)
						target = a;
		}
		if (target != SIZE_MAX && !pd->attrs[target].name)
			pd->attrs[target].name = xmemdup0(name, slen);
		p += (size_t)nids * 8;
	}
	return 0;
}

/* One build_id_event: header, pid, build_id[24], filename. */
int pd_add_build_id(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off)
{
	if (n < 8 + 4 + 24)
		return pd_damage(pd, off, "build-id entry too small");
	VEC_GROW(pd->build_ids, pd->nr_build_ids + 1, pd->build_ids_alloc);
	struct pd_build_id *b = &pd->build_ids[pd->nr_build_ids];
	b->misc = pd_u16(p + 4);
	b->pid = (int32_t)pd_u32(p + 8);
	memcpy(b->id, p + 12, 20);
	b->id_len = 20;
	if (b->misc & (1u << 15)) { /* PERF_RECORD_MISC_BUILD_ID_SIZE */
		uint8_t l = p[12 + 20];
		b->id_len = l <= 20 ? l : 20;
	}
	b->filename_len = strnlen((const char *)p + 36, n - 36);
	b->filename = xmemdup0(p + 36, b->filename_len);
	pd->nr_build_ids++;
	return 0;
}

static int parse_build_ids(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off)
{
	size_t pos = 0;
	while (n - pos >= 8) {
		uint16_t sz = pd_u16(p + pos + 6);
		if (sz < 8 || sz > n - pos)
			return pd_damage(pd, off + pos, "bad build-id entry size");
		if (pd_add_build_id(pd, p + pos, sz, off + pos) < 0)
			return -1;
		pos += sz;
	}
	return 0;
}

/* perf's header string at p[*pos..n): u32 length, then that many bytes
 * (NUL-padded). Appends it to out (cap bytes, holding *len), after a space
 * when out is not empty. False when it does not fit in the section. These
 * are informational (graph titles): a bad one is skipped, not damage. */
static bool header_string(const uint8_t *p, size_t n, size_t *pos, char *out, size_t cap, size_t *len)
{
	if (n - *pos < 4)
		return false;
	uint32_t l = pd_u32(p + *pos);
	if (l > n - *pos - 4)
		return false;
	const char *s = (const char *)p + *pos + 4;
	size_t sl = strnlen(s, l);
	*pos += 4 + (size_t)l;
	if (*len && *len + 1 < cap)
		out[(*len)++] = ' ';
	for (size_t i = 0; i < sl && *len + 1 < cap; i++)
		out[(*len)++] = s[i];
	out[*len] = 0;
	return true;
}

/* CLOCK_DATA (perf record -k CLOCKID): {u32 version, u32 clockid, u64
 * wall-clock ns, u64 clockid ns}, the two clocks read together when the
 * recording began; samples are stamped with that clock, so the difference
 * maps their times to the epoch. Without it (perf's default clock, which
 * perf 6.1 writes no reference for) times stay relative. */
static int parse_clock_data(struct perf_data *pd, const uint8_t *p, size_t n, uint64_t off)
{
	if (n < 24)
		return pd_damage(pd, off, "CLOCK_DATA feature too small (24 bytes expected)");
	uint32_t version = pd_u32(p);
	uint64_t wall = pd_u64(p + 8), clock = pd_u64(p + 16);
	if (version < 1 || !wall || wall > INT64_MAX || clock > INT64_MAX)
		return 0; /* no reference given: times stay relative */
	pd->epoch_known = true;
	pd->clockid = pd_u32(p + 4);
	/* CLOCK_REALTIME is the epoch: its two readings differ only by the
	 * time between them, which would move a --time bound by that much
	 * against perf's (which compares the stamps as they are). */
	pd->epoch_offset = pd->clockid == CLOCK_REALTIME ? 0 : (int64_t)wall - (int64_t)clock;
	return 0;
}

int pd_feature(struct perf_data *pd, uint64_t feat, const uint8_t *p, size_t n, uint64_t off)
{
	size_t pos = 0, len = 0;
	switch (feat) {
	case FEAT_HOSTNAME:
		pd->hostname[0] = 0;
		header_string(p, n, &pos, pd->hostname, sizeof(pd->hostname), &len);
		return 0;
	case FEAT_CMDLINE: {
		pd->cmdline[0] = 0;
		if (n < 4)
			return 0;
		uint32_t nr = pd_u32(p);
		pos = 4;
		for (uint32_t i = 0; i < nr && header_string(p, n, &pos, pd->cmdline, sizeof(pd->cmdline), &len); i++)
			;
		return 0;
	}
	case FEAT_BUILD_ID:
		return parse_build_ids(pd, p, n, off);
	case FEAT_EVENT_DESC:
		return pd_parse_event_desc(pd, p, n, off);
	case FEAT_CLOCK_DATA:
		return parse_clock_data(pd, p, n, off);
	default:
		return 0; /* unknown or unused features are ignored */
	}
}
