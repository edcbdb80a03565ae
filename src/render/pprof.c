/* pprof output (render/pprof.h): profile.proto written by hand with
 * base/protobuf (a few dozen lines) rather than protobuf-c, which would
 * add a code generator and a runtime library for five message types. */
#include "render/pprof.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/protobuf.h"
#include "profile/frame_sites.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

/* The string table starts with "" and these, then the function names. */
enum { STR_TYPE0 = 1, STR_UNIT0, STR_TYPE1, STR_UNIT1, STR_COMMENT, STR_FIXED };

/* The sample types: what the counts are (o->count_unit), and a second
 * value for CPU time when the sampling period is known, or the "after"
 * column of a differential profile. Returns how many (1 or 2). */
static int sample_types(const char *str[STR_FIXED], const struct profile *p, const struct pprof_opts *o)
{
	const char *unit = o->count_unit ? o->count_unit : "samples";
	str[0] = "";
	str[STR_COMMENT] = "written by scorch";
	str[STR_TYPE0] = unit;
	str[STR_UNIT0] = "count";
	str[STR_TYPE1] = str[STR_UNIT1] = "";
	if (!strcmp(unit, "ns")) {
		str[STR_TYPE0] = "cpu";
		str[STR_UNIT0] = "nanoseconds";
	} else if (!strcmp(unit, "us")) { /* record --off-cpu, --wall */
		str[STR_TYPE0] = "time";
		str[STR_UNIT0] = "microseconds";
	} else if (!strcmp(unit, "bytes")) {
		str[STR_TYPE0] = "space";
		str[STR_UNIT0] = "bytes";
	}
	if (p->differential) {
		str[STR_TYPE1] = str[STR_TYPE0];
		str[STR_UNIT1] = str[STR_UNIT0];
		str[STR_TYPE0] = "before";
		return 2;
	}
	if (o->period_ns > 0 && !strcmp(unit, "samples")) {
		str[STR_TYPE1] = "cpu";
		str[STR_UNIT1] = "nanoseconds";
		return 2;
	}
	return 1;
}

static void put_value_type(struct pb_buf *b, struct pb_buf *tmp, uint32_t field, uint64_t type,
			   uint64_t unit)
{
	pb_buf_clear(tmp);
	pb_put_uint(tmp, VALUE_TYPE_TYPE, type);
	pb_put_uint(tmp, VALUE_TYPE_UNIT, unit);
	pb_put_message(b, field, tmp);
}

static int64_t to_int(double c, bool *fractional)
{
	double r = nearbyint(c);
	if (r != c)
		*fractional = true;
	if (!(r < 9.2e18 && r > -9.2e18))
		return r > 0 ? INT64_MAX : INT64_MIN;
	return (int64_t)r;
}

/* What flags a count pprof cannot hold as it is. */
struct lossy {
	bool fractional, clamped;
};

/* Node n's count in a column as a pprof value (int64). */
static int64_t value(const struct profile *p, node_t n, int column, struct lossy *lossy)
{
	if (p->fractional)
		return to_int(p->nodes[n].self[column].d, &lossy->fractional);
	uint64_t u = p->nodes[n].self[column].u;
	if (u > INT64_MAX) {
		lossy->clamped = true;
		return INT64_MAX;
	}
	return (int64_t)u;
}

static void put_samples(struct pb_buf *b, const struct profile *p, const uint32_t *func_of_sym,
			double period_ns, struct lossy *lossy)
{
	struct pb_buf sample = { 0 }, packed = { 0 };
	for (node_t n = 1; n < p->nr; n++) {
		if (!profile_has_self(p, n))
			continue;
		pb_buf_clear(&sample);
		pb_buf_clear(&packed);
		for (node_t m = n; m != PROFILE_ROOT; m = p->nodes[m].parent)
			pb_put_varint(&packed, func_of_sym[p->nodes[m].name]);
		pb_put_message(&sample, SAMPLE_LOCATION_ID, &packed);
		pb_buf_clear(&packed);
		int64_t count = value(p, n, 0, lossy);
		if (p->differential) {
			pb_put_varint(&packed, (uint64_t)count);
			pb_put_varint(&packed, (uint64_t)value(p, n, 1, lossy));
		} else {
			pb_put_varint(&packed, (uint64_t)count);
			if (period_ns > 0) {
				bool ignored = false; /* the count was already checked */
				pb_put_varint(&packed, (uint64_t)to_int(profile_self(p, n, 0) * period_ns, &ignored));
			}
		}
		pb_put_message(&sample, SAMPLE_VALUE, &packed);
		pb_put_message(b, PROFILE_SAMPLE, &sample);
	}
	pb_buf_release(&sample);
	pb_buf_release(&packed);
}

/* Function and Location ids: 1.. in order of first use by a node; the
 * name's string index is STR_FIXED - 1 + its id. Returns the count. */
static uint32_t number_functions(const struct profile *p, uint32_t *func_of_sym, sym_t *sym_of_func)
{
	uint32_t n = 0;
	for (node_t i = 1; i < p->nr; i++) {
		sym_t s = p->nodes[i].name;
		if (!func_of_sym[s]) {
			func_of_sym[s] = ++n;
			sym_of_func[n] = s;
		}
	}
	return n;
}

/* Mappings: one per module that a function's site names, ids 1.. in
 * order of first use; mapping_of_module[m] is m's id. Returns the count. */
static uint32_t number_mappings(const struct profile *p, const sym_t *sym_of_func, uint32_t nfuncs,
				uint32_t *mapping_of_module, uint32_t *module_of_mapping)
{
	uint32_t n = 0;
	for (uint32_t f = 1; f <= nfuncs; f++) {
		const struct frame_site *site = frame_sites_get(p, sym_of_func[f]);
		if (site && !mapping_of_module[site->module]) {
			mapping_of_module[site->module] = ++n;
			module_of_mapping[n] = site->module;
		}
	}
	return n;
}

/* A module's Mapping. Addresses of files are file offsets (frame_sites.h),
 * so the mapping is the identity over the file's offsets: memory_start =
 * file_offset, and runtime - start + file_offset gives the offset back
 * for any symboliser (pprof maps it to the ELF address through the
 * program headers). Runtime addresses (kernel, JIT) get the mapping
 * pprof reads as "addresses already adjusted": start 0, limit 2^64-1. */
static void put_mapping(struct pb_buf *b, struct pb_buf *tmp, uint32_t id, const struct frame_module *m,
			uint64_t file_str, uint64_t build_id_str)
{
	uint64_t start = 0, limit = UINT64_MAX;
	if (!m->runtime && m->lo <= m->hi) {
		start = m->lo & ~(uint64_t)0xfff;
		limit = m->hi > UINT64_MAX - 0xfff ? UINT64_MAX : (m->hi + 0xfff) & ~(uint64_t)0xfff;
	}
	pb_buf_clear(tmp);
	pb_put_uint(tmp, MAPPING_ID, id);
	pb_put_uint(tmp, MAPPING_MEMORY_START, start);
	pb_put_uint(tmp, MAPPING_MEMORY_LIMIT, limit);
	pb_put_uint(tmp, MAPPING_FILE_OFFSET, m->runtime ? 0 : start);
	pb_put_uint(tmp, MAPPING_FILENAME, file_str);
	pb_put_uint(tmp, MAPPING_BUILD_ID, build_id_str);
	pb_put_uint(tmp, MAPPING_HAS_FUNCTIONS, 1);
	pb_put_message(b, PROFILE_MAPPING, tmp);
}

static void put_hex_string(struct pb_buf *b, const uint8_t *id, size_t n)
{
	char hex[2 * FRAME_BUILD_ID_MAX];
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	pb_put_string(b, PROFILE_STRING_TABLE, hex, 2 * n);
}

/* Mappings and their strings (after the function names, from index
 * first_str). Returns the next string index. */
static uint64_t put_mappings(struct pb_buf *b, struct pb_buf *strings, const struct profile *p,
			     const uint32_t *module_of_mapping, uint32_t nmappings, uint64_t first_str)
{
	struct pb_buf tmp = { 0 };
	uint64_t next = first_str;
	for (uint32_t i = 1; i <= nmappings; i++) {
		const struct frame_module *m = frame_sites_module_of(p, module_of_mapping[i]);
		uint64_t file_str = next++, id_str = m->build_id_len ? next++ : 0;
		put_mapping(b, &tmp, i, m, file_str, id_str);
		pb_put_string(strings, PROFILE_STRING_TABLE, m->file, m->file_len);
		if (m->build_id_len)
			put_hex_string(strings, m->build_id, m->build_id_len);
	}
	pb_buf_release(&tmp);
	return next;
}

/* The names and files of interpreted frames' sources (frame_sites.h), all
 * of them, after the mappings' strings: text id i is string
 * first_source_str + i - 1. */
static void put_source_strings(struct pb_buf *strings, const struct profile *p)
{
	if (!p->sites)
		return;
	for (uint32_t i = 1; i < p->sites->sources_text.nr; i++) {
		size_t len;
		const char *text = frame_sites_text(p, i, &len);
		pb_put_string(strings, PROFILE_STRING_TABLE, text, len);
	}
}

/* Function f: named by its frame name; a frame with a source (an
 * interpreted function) by its function, with the frame name as its
 * system name, its file and first line. */
static void put_function(struct pb_buf *b, struct pb_buf *tmp, const struct profile *p, uint32_t f, sym_t sym,
			 uint64_t first_source_str)
{
	const struct frame_source *src = frame_sites_source(p, sym);
	pb_buf_clear(tmp);
	pb_put_uint(tmp, FUNCTION_ID, f);
	if (src) {
		pb_put_uint(tmp, FUNCTION_NAME, first_source_str + src->function - 1);
		pb_put_uint(tmp, FUNCTION_SYSTEM_NAME, STR_FIXED - 1 + f);
		if (src->file)
			pb_put_uint(tmp, FUNCTION_FILENAME, first_source_str + src->file - 1);
		if (src->line > 0)
			pb_put_uint(tmp, FUNCTION_START_LINE, (uint64_t)src->line);
	} else {
		pb_put_uint(tmp, FUNCTION_NAME, STR_FIXED - 1 + f);
	}
	pb_put_message(b, PROFILE_FUNCTION, tmp);
}

static void encode(struct pb_buf *b, const struct profile *p, const struct pprof_opts *o)
{
	struct pb_buf tmp = { 0 }, line = { 0 }, strings = { 0 };
	uint32_t nsyms = p->names.nr;
	uint32_t *func_of_sym = xcalloc(nsyms + 1, sizeof(*func_of_sym));
	sym_t *sym_of_func = xcalloc(nsyms + 1, sizeof(*sym_of_func));
	uint32_t nfuncs = number_functions(p, func_of_sym, sym_of_func);
	uint32_t nmodules = p->sites ? p->sites->nr_modules : 0;
	uint32_t *mapping_of_module = xcalloc(nmodules + 1, sizeof(*mapping_of_module));
	uint32_t *module_of_mapping = xcalloc(nmodules + 1, sizeof(*module_of_mapping));
	uint32_t nmappings = number_mappings(p, sym_of_func, nfuncs, mapping_of_module, module_of_mapping);
	struct lossy lossy = { false, false };
	const char *str[STR_FIXED];
	int ntypes = sample_types(str, p, o);
	/* The CPU-time column (not for differential profiles). */
	double period_ns = ntypes == 2 && !p->differential ? o->period_ns : 0;

	put_value_type(b, &tmp, PROFILE_SAMPLE_TYPE, STR_TYPE0, STR_UNIT0);
	if (ntypes == 2)
		put_value_type(b, &tmp, PROFILE_SAMPLE_TYPE, STR_TYPE1, STR_UNIT1);
	put_samples(b, p, func_of_sym, period_ns, &lossy);
	for (int i = 0; i < STR_FIXED; i++)
		pb_put_string(&strings, PROFILE_STRING_TABLE, str[i], strlen(str[i]));
	for (uint32_t f = 1; f <= nfuncs; f++)
		pb_put_string(&strings, PROFILE_STRING_TABLE, strpool_str(&p->names, sym_of_func[f]),
			      strpool_len(&p->names, sym_of_func[f]));
	uint64_t first_source_str =
		put_mappings(b, &strings, p, module_of_mapping, nmappings, (uint64_t)STR_FIXED + nfuncs);
	put_source_strings(&strings, p);
	for (uint32_t f = 1; f <= nfuncs; f++) {
		const struct frame_site *site = frame_sites_get(p, sym_of_func[f]);
		const struct frame_source *src = frame_sites_source(p, sym_of_func[f]);
		pb_buf_clear(&line);
		pb_put_uint(&line, LINE_FUNCTION_ID, f);
		if (src && src->line > 0) /* a frame is a function, whatever line ran: its first */
			pb_put_uint(&line, LINE_LINE, (uint64_t)src->line);
		pb_buf_clear(&tmp);
		pb_put_uint(&tmp, LOCATION_ID, f);
		if (site) {
			pb_put_uint(&tmp, LOCATION_MAPPING_ID, mapping_of_module[site->module]);
			pb_put_uint(&tmp, LOCATION_ADDRESS, site->address);
		}
		pb_put_message(&tmp, LOCATION_LINE, &line);
		pb_put_message(b, PROFILE_LOCATION, &tmp);
	}
	for (uint32_t f = 1; f <= nfuncs; f++)
		put_function(b, &tmp, p, f, sym_of_func[f], first_source_str);
	pb_put_bytes(b, strings.data, strings.len);
	if (o->time_ns > 0)
		pb_put_uint(b, PROFILE_TIME_NANOS, (uint64_t)o->time_ns);
	if (o->duration_ns > 0)
		pb_put_uint(b, PROFILE_DURATION_NANOS, (uint64_t)o->duration_ns);
	if (period_ns > 0) {
		put_value_type(b, &tmp, PROFILE_PERIOD_TYPE, STR_TYPE1, STR_UNIT1);
		pb_put_uint(b, PROFILE_PERIOD, (uint64_t)llround(period_ns));
	}
	pb_put_uint(b, PROFILE_COMMENT, STR_COMMENT);
	pb_put_uint(b, PROFILE_DEFAULT_SAMPLE_TYPE, ntypes == 2 && p->differential ? STR_TYPE1 : STR_TYPE0);
	if (lossy.fractional)
		warn("pprof: counts rounded to whole numbers (pprof values are integers)");
	if (lossy.clamped)
		warn("pprof: counts above %" PRId64 " written as that (pprof values are int64)", INT64_MAX);
	free(func_of_sym);
	free(sym_of_func);
	free(mapping_of_module);
	free(module_of_mapping);
	pb_buf_release(&tmp);
	pb_buf_release(&line);
	pb_buf_release(&strings);
}

#ifdef HAVE_ZLIB
static void write_gzip(struct out *out, const uint8_t *data, size_t len)
{
	z_stream z = { 0 };
	/* 15 + 16: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		BUG("deflateInit2 failed");
	unsigned char chunk[64 * 1024];
	z.next_in = (unsigned char *)data;
	int rc;
	do {
		size_t step = len > UINT32_MAX ? UINT32_MAX : len;
		z.avail_in = (uInt)step;
		len -= step;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			rc = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			out_write(out, chunk, sizeof(chunk) - z.avail_out);
		} while (z.avail_out == 0);
	} while (len);
	if (rc != Z_STREAM_END)
		BUG("deflate did not finish");
	deflateEnd(&z);
}
#endif

void pprof_write(struct out *out, const struct profile *p, const struct pprof_opts *o)
{
	struct pb_buf b = { 0 };
	encode(&b, p, o);
#ifdef HAVE_ZLIB
	write_gzip(out, b.data, b.len);
#else
	out_write(out, b.data, b.len);
#endif
	pb_buf_release(&b);
}
