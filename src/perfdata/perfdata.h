/* perf.data reader: file and pipe mode, attributes, the feature sections
 * scorch uses (build-ids, event descriptions, compression), and the record
 * stream (zstd-compressed records decompressed transparently).
 *
 * Format: tools/perf/Documentation/perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h. Every offset and size is checked before
 * use; a damaged file gives an error naming the byte offset and what was
 * expected. Files written on a machine of the other byte order are refused.
 *
 * The reader never copies the input: records point into it, or into the
 * decompression buffer for compressed records. */
#ifndef SCORCH_PERFDATA_PERFDATA_H
#define SCORCH_PERFDATA_PERFDATA_H

#include "base/hashmap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Unaligned-safe little helpers for reading the native-endian file. */
static inline uint64_t pd_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}
static inline uint32_t pd_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static inline uint16_t pd_u16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

/* Record types we interpret (the rest are skipped). */
enum {
	PD_RECORD_MMAP = 1,
	PD_RECORD_LOST = 2,
	PD_RECORD_COMM = 3,
	PD_RECORD_EXIT = 4,
	PD_RECORD_FORK = 7,
	PD_RECORD_SAMPLE = 9,
	PD_RECORD_MMAP2 = 10,
	PD_RECORD_KSYMBOL = 17,
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
	PD_RECORD_EVENT_UPDATE = 78,
	PD_RECORD_HEADER_FEATURE = 80,
	PD_RECORD_COMPRESSED = 81,
	PD_RECORD_COMPRESSED2 = 83,
};

/* sample_type bits */
enum {
	PD_SAMPLE_IP = 1u << 0,
	PD_SAMPLE_TID = 1u << 1,
	PD_SAMPLE_TIME = 1u << 2,
	PD_SAMPLE_ADDR = 1u << 3,
	PD_SAMPLE_READ = 1u << 4,
	PD_SAMPLE_CALLCHAIN = 1u << 5,
	PD_SAMPLE_ID = 1u << 6,
	PD_SAMPLE_CPU = 1u << 7,
	PD_SAMPLE_PERIOD = 1u << 8,
	PD_SAMPLE_STREAM_ID = 1u << 9,
	PD_SAMPLE_RAW = 1u << 10,
	PD_SAMPLE_BRANCH_STACK = 1u << 11,
	PD_SAMPLE_REGS_USER = 1u << 12,
	PD_SAMPLE_STACK_USER = 1u << 13,
	PD_SAMPLE_WEIGHT = 1u << 14,
	PD_SAMPLE_DATA_SRC = 1u << 15,
	PD_SAMPLE_IDENTIFIER = 1u << 16,
	PD_SAMPLE_TRANSACTION = 1u << 17,
	PD_SAMPLE_REGS_INTR = 1u << 18,
	PD_SAMPLE_PHYS_ADDR = 1u << 19,
	PD_SAMPLE_AUX = 1u << 20,
	PD_SAMPLE_CGROUP = 1u << 21,
	PD_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
	PD_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
	PD_SAMPLE_WEIGHT_STRUCT = 1u << 24,
};

#define PD_CONTEXT_MAX ((uint64_t)-4095)
#define PD_CONTEXT_HV ((uint64_t)-32)
#define PD_CONTEXT_KERNEL ((uint64_t)-128)
#define PD_CONTEXT_USER ((uint64_t)-512)
#define PD_CONTEXT_GUEST ((uint64_t)-2048)
#define PD_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PD_CONTEXT_GUEST_USER ((uint64_t)-2560)

enum { PD_CPUMODE_MASK = 7, PD_CPUMODE_KERNEL = 1, PD_CPUMODE_USER = 2,
       PD_CPUMODE_HV = 3, PD_CPUMODE_GUEST_KERNEL = 4, PD_CPUMODE_GUEST_USER = 5 };

struct pd_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags; /* the bitfield word: bit 18 sample_id_all, ... */
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	uint64_t branch_sample_type;
	char *name; /* from EVENT_DESC / EVENT_UPDATE, else derived */
	uint64_t *ids;
	size_t nr_ids;
};

struct pd_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t id[20];
	uint8_t id_len;
	char *filename; /* owned copy */
	size_t filename_len;
};

struct pd_sample {
	uint64_t ip, time, addr, id, stream_id, period;
	int32_t pid, tid;
	uint32_t cpu;
	uint16_t misc;
	const struct pd_attr *attr;
	uint64_t nr_callchain;
	const uint8_t *callchain; /* nr_callchain u64 values, unaligned */
	uint64_t regs_abi;
	const uint8_t *regs;      /* popcount(sample_regs_user) u64 values */
	uint32_t nr_regs;
	const uint8_t *stack;
	uint64_t stack_size;      /* bytes valid (dyn_size when given) */
};

/* A record of the stream, with where it came from for messages. */
struct pd_record {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	const uint8_t *data; /* whole record, header included */
	uint64_t offset;     /* file offset (for compressed: of the container) */
	bool in_dbuf;        /* data lives in the decompression buffer */
	uint64_t pos;        /* offset of data in the file or in that buffer */
	uint64_t time;       /* from the sample / sample_id trailer, or UINT64_MAX */
};

struct perf_data {
	const char *path;
	const uint8_t *buf;
	size_t len;
	bool pipe;
	struct pd_attr *attrs;
	size_t nr_attrs;
	uint64_t data_offset, data_size;
	uint64_t features[4];
	char hostname[256];  /* HOSTNAME feature, "" if absent */
	char cmdline[512];   /* CMDLINE feature: perf's argv joined by spaces, "" if absent */
	/* CLOCK_DATA feature (perf record -k): epoch ns = sample time +
	 * epoch_offset, samples being stamped with clockid. */
	bool epoch_known;
	uint32_t clockid;
	int64_t epoch_offset;
	struct pd_build_id *build_ids;
	size_t nr_build_ids, build_ids_alloc;
	struct hashmap id_map; /* sample id -> attr index */
	int id_pos_sample;  /* u64 index of the id in a SAMPLE body, or -1 */
	int id_pos_trailer; /* u64 index counted from the end of other records, or -1 */
	int trailer_words;  /* u64s of other records' sample_id trailer (the first
			       attribute's, with sample_id_all), or -1: none */
	int time_pos_sample; /* u64 index of the time in a SAMPLE body under every attribute,
				-1 when none has it, -2 when they differ */
	/* decompression */
	void *zstd;          /* ZSTD_DStream */
	uint8_t *dbuf;       /* decompressed record bytes */
	size_t dbuf_len, dbuf_alloc, dbuf_done;
	/* damage seen by the record walk (error already printed) */
	bool damaged;
	bool damage_reported; /* a second walk of the records: pd_damage prints nothing */
	uint64_t data_expected; /* data size the header promised, when the file is shorter */
};

/* Parse the header, attributes and features of buf[0..len) (not copied;
 * must outlive pd). Returns 0, or -1 after printing an error. Damaged
 * feature sections are reported but not fatal: pd->damaged is then set. */
int perf_data_open(struct perf_data *pd, const char *path, const void *buf, size_t len);
void perf_data_close(struct perf_data *pd);

/* Walk every record in file order, decompressing compressed ones; calls
 * fn for each (compressed containers themselves are not passed). Records
 * of types >= 64 that carry header information (pipe-mode attrs, features,
 * build-ids, event updates) are interpreted before fn sees them. Returns 0,
 * 1 when fn asked to stop (returned non-zero), or -1 on damage (error with
 * the byte offset printed; records before the damage were delivered). */
int perf_data_walk(struct perf_data *pd, int (*fn)(const struct pd_record *r, void *arg),
		   void *arg);

/* The record's bytes again, after the walk (valid until close). */
static inline const uint8_t *pd_record_bytes(const struct perf_data *pd, bool in_dbuf, uint64_t pos)
{
	return (in_dbuf ? pd->dbuf : pd->buf) + pos;
}

/* The attribute a record belongs to (by sample id; the first when there is
 * only one or the id is unknown). */
const struct pd_attr *pd_record_attr(const struct perf_data *pd, const struct pd_record *r);

/* Parse a SAMPLE record. Returns 0, or -1 after printing an error naming
 * the offset. */
int pd_parse_sample(const struct perf_data *pd, const struct pd_record *r, struct pd_sample *s);

/* The sample_id trailer of a non-sample record (pid/tid/time). Returns
 * false when there is none. */
bool pd_record_id_trailer(const struct perf_data *pd, const struct pd_record *r,
			  int32_t *pid, int32_t *tid, uint64_t *time);

#endif
