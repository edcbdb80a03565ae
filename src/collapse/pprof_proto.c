/* Binary pprof -> profile (collapse/pprof_proto.h). Two passes over the
 * message: the first notes where every sample, location, function, mapping
 * and string is (they may come in any order), the second resolves ids and
 * pushes the stacks. */
#include "collapse/pprof_proto.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "base/protobuf.h"
#include "collapse/common.h"
#include "profile/frame_sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	PROFILE_LAST_FIELD = 14,
};

struct slice {
	const char *s;
	size_t n;
};

struct readers {
	struct pb_reader *v;
	size_t n, alloc;
};

struct pprof {
	const struct collapse_source *src;
	struct slice *strings;
	size_t nstrings, strings_alloc;
	uint64_t *type_names; /* sample_type[i].type, a string index */
	uint64_t *type_units; /* sample_type[i].unit, idem */
	size_t ntypes, types_alloc;
	uint64_t default_type;
	struct readers samples, locations, functions, mappings;
	struct hashmap function_ids, mapping_ids; /* id -> index */
	sym_t *function_syms, *mapping_syms;       /* by index */
	uint32_t *mapping_modules;                 /* by index: frame_sites module, 0 none */
	struct pprof_mapping *mapping_geo;         /* by index: start, offset, runtime */
	struct hashmap location_ids;               /* id -> index */
	sym_t *loc_syms;                           /* every location's frames, root first */
	size_t nloc_syms, loc_syms_alloc;
	size_t *loc_first, *loc_count;             /* by location index */
};

static int bad(const struct pprof *pp, size_t at, const char *what)
{
	return error("%s: byte %zu of the profile: %s", pp->src->name, at, what);
}

/* The wire type each Profile field must have (0: unknown field, skipped). */
static int profile_field_wire(uint32_t number)
{
	switch (number) {
	case 1: case 2: case 3: case 4: case 5: case 6: case 11: return PB_LEN;
	case 7: case 8: case 9: case 10: case 12: case 14: return PB_VARINT;
	case 13: return -1; /* repeated int64: packed or not */
	default: return 0;
	}
}

static bool wire_ok(uint32_t number, enum pb_wire wire)
{
	int want = profile_field_wire(number);
	return want == 0 || (want == -1 ? wire == PB_VARINT || wire == PB_LEN : (int)wire == want);
}

static void add_reader(struct readers *r, const struct pb_reader *sub)
{
	VEC_GROW(r->v, r->n + 1, r->alloc);
	r->v[r->n++] = *sub;
}

static int read_value_type(struct pprof *pp, struct pb_reader r)
{
	struct pb_field f;
	const char *why;
	size_t at;
	int k;
	uint64_t type = 0, unit = 0;
	while ((k = pb_next(&r, &f, &why, &at)) > 0) {
		if (f.number == 1 && f.wire == PB_VARINT)
			type = f.value;
		else if (f.number == 2 && f.wire == PB_VARINT)
			unit = f.value;
	}
	if (k < 0)
		return bad(pp, at, why);
	size_t alloc = pp->types_alloc;
	VEC_GROW(pp->type_names, pp->ntypes + 1, pp->types_alloc);
	VEC_GROW(pp->type_units, pp->ntypes + 1, alloc);
	pp->type_units[pp->ntypes] = unit;
	pp->type_names[pp->ntypes++] = type;
	return 0;
}

static int first_pass(struct pprof *pp, const uint8_t *data, size_t len)
{
	struct pb_reader r = { data, 0, len };
	struct pb_field f;
	const char *why;
	size_t at;
	int k;
	while ((k = pb_next(&r, &f, &why, &at)) > 0) {
		if (!wire_ok(f.number, f.wire))
			return bad(pp, f.offset, "a Profile field with the wrong wire type (not a pprof profile?)");
		switch (f.number) {
		case PROFILE_SAMPLE_TYPE:
			if (read_value_type(pp, f.sub))
				return -1;
			break;
		case PROFILE_SAMPLE: add_reader(&pp->samples, &f.sub); break;
		case PROFILE_MAPPING: add_reader(&pp->mappings, &f.sub); break;
		case PROFILE_LOCATION: add_reader(&pp->locations, &f.sub); break;
		case PROFILE_FUNCTION: add_reader(&pp->functions, &f.sub); break;
		case PROFILE_STRING_TABLE:
			VEC_GROW(pp->strings, pp->nstrings + 1, pp->strings_alloc);
			pp->strings[pp->nstrings++] = (struct slice){ (const char *)data + f.sub.pos,
								      f.sub.end - f.sub.pos };
			break;
		case PROFILE_DEFAULT_SAMPLE_TYPE: pp->default_type = f.value; break;
		default: break;
		}
	}
	if (k < 0)
		return bad(pp, at, why);
	if (!pp->nstrings || pp->strings[0].n)
		return bad(pp, 0, "string_table[0] is not the empty string (not a pprof profile?)");
	return 0;
}

static int string_at(const struct pprof *pp, uint64_t index, size_t at, struct slice *out)
{
	if (index >= pp->nstrings)
		return bad(pp, at, "string index past the end of string_table");
	*out = pp->strings[index];
	return 0;
}

/* A frame name as folded text can hold it: ';' separates frames and a line
 * break ends a line, so they become ':' and ' '. */
static sym_t frame_sym(struct profile *p, struct slice s, char **buf, size_t *alloc)
{
	if (!memchr(s.s, ';', s.n) && !memchr(s.s, '\n', s.n) && !memchr(s.s, '\r', s.n))
		return profile_sym(p, s.s, s.n);
	VEC_GROW(*buf, s.n, *alloc);
	for (size_t i = 0; i < s.n; i++)
		(*buf)[i] = s.s[i] == ';' ? ':' : s.s[i] == '\n' || s.s[i] == '\r' ? ' ' : s.s[i];
	return profile_sym(p, *buf, s.n);
}

/* id (field 1) of a Function, Mapping or Location, and the string fields
 * that name it: name/system_name (Function 2, 3) or filename (Mapping 5). */
static int index_ids(struct pprof *pp, struct profile *p, const struct readers *rs,
		     struct hashmap *ids, sym_t **syms, uint32_t name_field, uint32_t alt_field,
		     bool mapping_file, char **buf, size_t *alloc)
{
	if (syms)
		*syms = xcalloc(rs->n + 1, sizeof(**syms));
	for (size_t i = 0; i < rs->n; i++) {
		struct pb_reader r = rs->v[i];
		struct pb_field f;
		const char *why;
		size_t at, start = r.pos;
		int k;
		uint64_t id = 0, name = 0, alt = 0;
		while ((k = pb_next(&r, &f, &why, &at)) > 0) {
			if (f.wire != PB_VARINT)
				continue;
			if (f.number == 1)
				id = f.value;
			else if (f.number == name_field)
				name = f.value;
			else if (f.number == alt_field)
				alt = f.value;
		}
		if (k < 0)
			return bad(pp, at, why);
		if (!id)
			return bad(pp, start, "an entry with id 0");
		bool inserted;
		uint32_t *slot = hashmap_upsert(ids, id, (uint32_t)i, &inserted);
		if (!inserted)
			return bad(pp, start, "a duplicate id");
		(void)slot;
		if (!syms)
			continue;
		struct slice s;
		if (string_at(pp, name ? name : alt, start, &s))
			return -1;
		if (!mapping_file && name && alt && alt != name) {
			/* An interpreted function scorch wrote (render/pprof.c): its
			 * folded name "NAME (file)" is the system name: that again. */
			struct slice sys = { "", 0 };
			if (string_at(pp, alt, start, &sys))
				return -1;
			if (sys.n > s.n + 3 && !memcmp(sys.s, s.s, s.n) && sys.s[s.n] == ' ' && sys.s[s.n + 1] == '(' &&
			    sys.s[sys.n - 1] == ')')
				s = sys;
		}
		if (mapping_file && s.n) {
			/* "[basename]" of a mapping's file, perf's name for an unknown symbol in it */
			const char *slash = memrchr(s.s, '/', s.n);
			if (slash) {
				s.n -= (size_t)(slash + 1 - s.s);
				s.s = slash + 1;
			}
			VEC_GROW(*buf, s.n + 2, *alloc);
			(*buf)[0] = '[';
			memcpy(*buf + 1, s.s, s.n);
			(*buf)[s.n + 1] = ']';
			s = (struct slice){ *buf, s.n + 2 };
			(*syms)[i] = profile_sym(p, s.s, s.n);
		} else {
			(*syms)[i] = s.n ? frame_sym(p, s, buf, alloc) : 0;
			if (!s.n)
				(*syms)[i] = UINT32_MAX; /* no name */
		}
	}
	return 0;
}

struct pprof_mapping {
	uint64_t start, offset;
	bool runtime; /* addresses kept as they are (kernel, or "already adjusted") */
};

/* A build-id as bytes: pprof writes it as text, usually hex (perf's, GNU's);
 * other text (Go's own build ids) gives none. Returns the length. */
static size_t build_id_bytes(struct slice s, uint8_t id[FRAME_BUILD_ID_MAX])
{
	if (!s.n || s.n % 2 || s.n > 2 * FRAME_BUILD_ID_MAX)
		return 0;
	for (size_t i = 0; i < s.n; i++) {
		char c = s.s[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (v < 0)
			return 0;
		if (i % 2)
			id[i / 2] = (uint8_t)(id[i / 2] << 4 | v);
		else
			id[i / 2] = (uint8_t)v;
	}
	return s.n / 2;
}

/* Mapping: 1 id, 2 memory_start, 3 memory_limit, 4 file_offset, 5 filename,
 * 6 build_id. Each file's mapping becomes a frame_sites module (so a pprof
 * written from this profile keeps it); its locations' addresses become
 * file offsets (address - start + offset), except for the kernel ("[...]")
 * and pprof's "already adjusted" mapping (start and offset 0, limit 0 or
 * all ones), which keep them. */
static int index_mapping_sites(struct pprof *pp, struct profile *p)
{
	pp->mapping_modules = xcalloc(pp->mappings.n + 1, sizeof(*pp->mapping_modules));
	pp->mapping_geo = xcalloc(pp->mappings.n + 1, sizeof(*pp->mapping_geo));
	for (size_t i = 0; i < pp->mappings.n; i++) {
		struct pb_reader r = pp->mappings.v[i];
		struct pb_field f;
		const char *why;
		size_t at, start = r.pos;
		int k;
		uint64_t v[7] = { 0 };
		while ((k = pb_next(&r, &f, &why, &at)) > 0)
			if (f.wire == PB_VARINT && f.number >= 2 && f.number <= 6)
				v[f.number] = f.value;
		if (k < 0)
			return bad(pp, at, why);
		struct slice file = { "", 0 }, id_text = { "", 0 };
		if (string_at(pp, v[5], start, &file) || string_at(pp, v[6], start, &id_text))
			return -1;
		if (!file.n)
			continue;
		uint8_t id[FRAME_BUILD_ID_MAX];
		size_t id_len = build_id_bytes(id_text, id);
		bool runtime = file.s[0] == '[' || (!v[2] && !v[4] && (!v[3] || v[3] == UINT64_MAX));
		pp->mapping_geo[i] = (struct pprof_mapping){ v[2], v[4], runtime };
		pp->mapping_modules[i] = frame_sites_module(p, file.s, file.n, id, id_len, runtime);
	}
	return 0;
}

/* Location: 1 id, 2 mapping_id, 3 address, 4 line { 1 function_id }. Its
 * frames, root first: the lines are innermost first, so the last line
 * comes first. */
static int resolve_location(struct pprof *pp, struct profile *p, size_t li, sym_t unknown)
{
	struct pb_reader r = pp->locations.v[li];
	struct pb_field f;
	const char *why;
	size_t at, start = r.pos, first = pp->nloc_syms;
	uint64_t mapping = 0, address = 0;
	int k;
	while ((k = pb_next(&r, &f, &why, &at)) > 0) {
		if (f.number == 2 && f.wire == PB_VARINT) {
			mapping = f.value;
		} else if (f.number == 3 && f.wire == PB_VARINT) {
			address = f.value;
		} else if (f.number == 4 && f.wire == PB_LEN) {
			struct pb_reader lr = f.sub;
			struct pb_field lf;
			uint64_t fn = 0;
			while ((k = pb_next(&lr, &lf, &why, &at)) > 0)
				if (lf.number == 1 && lf.wire == PB_VARINT)
					fn = lf.value;
			if (k < 0)
				return bad(pp, at, why);
			uint32_t fi;
			if (!fn || !hashmap_get(&pp->function_ids, fn, &fi))
				return bad(pp, f.offset, "a line names a function id that does not exist");
			if (pp->function_syms[fi] == UINT32_MAX)
				continue;
			VEC_GROW(pp->loc_syms, pp->nloc_syms + 1, pp->loc_syms_alloc);
			pp->loc_syms[pp->nloc_syms++] = pp->function_syms[fi];
		}
	}
	if (k < 0)
		return bad(pp, at, why);
	size_t n = pp->nloc_syms - first;
	uint32_t mi = UINT32_MAX;
	if (mapping && !hashmap_get(&pp->mapping_ids, mapping, &mi))
		return bad(pp, start, "a location names a mapping id that does not exist");
	if (!n) {
		sym_t s = unknown;
		if (mi != UINT32_MAX && pp->mapping_syms[mi] != UINT32_MAX)
			s = pp->mapping_syms[mi];
		VEC_GROW(pp->loc_syms, pp->nloc_syms + 1, pp->loc_syms_alloc);
		pp->loc_syms[pp->nloc_syms++] = s;
		n = 1;
	}
	if (mi != UINT32_MAX && pp->mapping_modules[mi] && address) {
		const struct pprof_mapping *g = &pp->mapping_geo[mi];
		uint64_t a = g->runtime ? address : address - g->start + g->offset;
		for (size_t i = first; i < first + n; i++)
			frame_sites_note(p, pp->loc_syms[i], pp->mapping_modules[mi], a);
	}
	/* innermost first -> root first */
	for (size_t i = 0; i < n / 2; i++) {
		sym_t t = pp->loc_syms[first + i];
		pp->loc_syms[first + i] = pp->loc_syms[first + n - 1 - i];
		pp->loc_syms[first + n - 1 - i] = t;
	}
	pp->loc_first[li] = first;
	pp->loc_count[li] = n;
	return 0;
}

/* Which value counts: --sample-index NAME or N, else the default type,
 * else the last. */
static int choose_index(const struct pprof *pp, const char *want, size_t *index)
{
	if (!pp->ntypes)
		return error("%s: the profile has no sample types", pp->src->name);
	if (want) {
		char *end;
		unsigned long v = strtoul(want, &end, 10);
		if (*want && !*end) {
			if (v >= pp->ntypes)
				return error("%s: --sample-index %s: the profile has %zu sample types",
					     pp->src->name, want, pp->ntypes);
			*index = v;
			return 0;
		}
		for (size_t i = 0; i < pp->ntypes; i++) {
			struct slice s = pp->type_names[i] < pp->nstrings ? pp->strings[pp->type_names[i]]
									 : (struct slice){ "", 0 };
			if (s.n == strlen(want) && !memcmp(s.s, want, s.n)) {
				*index = i;
				return 0;
			}
		}
		error("%s: --sample-index %s: no such sample type; the profile has:", pp->src->name, want);
		for (size_t i = 0; i < pp->ntypes; i++) {
			struct slice s = pp->type_names[i] < pp->nstrings ? pp->strings[pp->type_names[i]]
									 : (struct slice){ "", 0 };
			fprintf(stderr, "  %zu %.*s\n", i, (int)s.n, s.s);
		}
		return -1;
	}
	*index = pp->ntypes - 1;
	for (size_t i = 0; pp->default_type && i < pp->ntypes; i++)
		if (pp->type_names[i] == pp->default_type)
			*index = i;
	return 0;
}

static bool slice_is(struct slice s, const char *str)
{
	return s.n == strlen(str) && !memcmp(s.s, str, s.n);
}

/* What sample type i counts, in the words scorch's graphs and pprof
 * writer use (graph_opts.count_unit): "ns" for nanoseconds, "us" for
 * microseconds, "bytes", and
 * for counts "samples", "objects" (alloc_objects, inuse_objects),
 * "contentions", else "events". */
static const char *count_unit(const struct pprof *pp, size_t i)
{
	struct slice none = { "", 0 };
	struct slice type = pp->type_names[i] < pp->nstrings ? pp->strings[pp->type_names[i]] : none;
	struct slice unit = pp->type_units[i] < pp->nstrings ? pp->strings[pp->type_units[i]] : none;
	if (slice_is(unit, "nanoseconds"))
		return "ns";
	if (slice_is(unit, "microseconds"))
		return "us";
	if (slice_is(unit, "bytes"))
		return "bytes";
	if (slice_is(type, "samples") || slice_is(type, "sample"))
		return "samples";
	if (type.n > 8 && !memcmp(type.s + type.n - 8, "_objects", 8))
		return "objects";
	if (slice_is(type, "contentions"))
		return "contentions";
	return "events";
}

/* Sample: 1 location_id (packed or not), 2 value (packed or not). */
static int add_sample(struct pprof *pp, struct profile *p, struct pb_reader r, size_t index,
		      struct cx_stack *st, size_t *skipped)
{
	struct pb_field f;
	const char *why;
	size_t at, start = r.pos, nvalues = 0;
	int64_t value = 0;
	int k;
	st->n = 0;
	while ((k = pb_next(&r, &f, &why, &at)) > 0) {
		if (f.number != 1 && f.number != 2)
			continue;
		/* one varint, or packed: a run of them */
		bool packed = f.wire == PB_LEN;
		struct pb_reader vals = packed ? f.sub : (struct pb_reader){ NULL, 0, 1 };
		uint64_t v = f.value;
		if (!packed && f.wire != PB_VARINT)
			return bad(pp, f.offset, "a sample field with the wrong wire type");
		while (vals.pos < vals.end) {
			if (!packed)
				vals.pos++;
			else if (pb_read_varint(&vals, &v, &at))
				return bad(pp, at, "a truncated packed varint");
			if (f.number == 2) {
				if (nvalues++ == index)
					value = (int64_t)v;
				continue;
			}
			uint32_t li;
			if (!hashmap_get(&pp->location_ids, v, &li))
				return bad(pp, f.offset, "a sample names a location id that does not exist");
			/* leaf first in the sample; each location's frames root first,
			 * pushed reversed so that the whole stack reverses at the end */
			for (size_t i = pp->loc_count[li]; i-- > 0;)
				cx_stack_push(st, pp->loc_syms[pp->loc_first[li] + i]);
		}
	}
	if (k < 0)
		return bad(pp, at, why);
	if (nvalues != pp->ntypes)
		return bad(pp, start, "a sample whose number of values differs from the sample types");
	if (value <= 0) {
		*skipped += value < 0;
		return 0;
	}
	profile_count(p, cx_stack_commit_reversed(p, st), (double)value);
	return 0;
}

static void release(struct pprof *pp)
{
	free(pp->strings);
	free(pp->type_names);
	free(pp->type_units);
	free(pp->samples.v);
	free(pp->locations.v);
	free(pp->functions.v);
	free(pp->mappings.v);
	hashmap_release(&pp->function_ids);
	hashmap_release(&pp->mapping_ids);
	hashmap_release(&pp->location_ids);
	free(pp->function_syms);
	free(pp->mapping_syms);
	free(pp->mapping_modules);
	free(pp->mapping_geo);
	free(pp->loc_syms);
	free(pp->loc_first);
	free(pp->loc_count);
}

int pprof_proto_parse(struct profile *p, const struct collapse_source *src,
		      const struct collapse_opts *opts)
{
	struct pprof pp;
	memset(&pp, 0, sizeof(pp));
	pp.src = src;
	hashmap_init(&pp.function_ids);
	hashmap_init(&pp.mapping_ids);
	hashmap_init(&pp.location_ids);
	char *buf = NULL;
	size_t alloc = 0, index = 0, skipped = 0;
	struct cx_stack st = { 0 };
	int ret = -1;
	if (first_pass(&pp, (const uint8_t *)src->data, src->len) ||
	    choose_index(&pp, opts->sample_index, &index) ||
	    index_ids(&pp, p, &pp.functions, &pp.function_ids, &pp.function_syms, 2, 3, false, &buf, &alloc) ||
	    index_ids(&pp, p, &pp.mappings, &pp.mapping_ids, &pp.mapping_syms, 5, 5, true, &buf, &alloc) ||
	    index_ids(&pp, p, &pp.locations, &pp.location_ids, NULL, 0, 0, false, &buf, &alloc) ||
	    index_mapping_sites(&pp, p))
		goto out;
	pp.loc_first = xcalloc(pp.locations.n + 1, sizeof(*pp.loc_first));
	pp.loc_count = xcalloc(pp.locations.n + 1, sizeof(*pp.loc_count));
	sym_t unknown = profile_sym(p, "[unknown]", 9);
	for (size_t i = 0; i < pp.locations.n; i++)
		if (resolve_location(&pp, p, i, unknown))
			goto out;
	for (size_t i = 0; i < pp.samples.n; i++)
		if (add_sample(&pp, p, pp.samples.v[i], index, &st, &skipped))
			goto out;
	if (skipped)
		warn("%s: %zu samples with negative values skipped", src->name, skipped);
	if (opts->unit)
		*opts->unit = count_unit(&pp, index);
	ret = 0;
out:
	cx_stack_release(&st);
	free(buf);
	release(&pp);
	return ret;
}

int pprof_proto_probe(const char *head, size_t n)
{
	struct pb_reader r = { (const uint8_t *)head, 0, n };
	struct pb_field f;
	const char *why;
	size_t at;
	int k, fields = 0;
	bool types = false;
	while ((k = pb_next(&r, &f, &why, &at)) > 0) {
		if (f.number > PROFILE_LAST_FIELD || !wire_ok(f.number, f.wire))
			return 0;
		if (f.number == PROFILE_SAMPLE_TYPE) {
			/* ValueType: varint fields only */
			struct pb_reader v = f.sub;
			struct pb_field vf;
			int vk;
			while ((vk = pb_next(&v, &vf, &why, &at)) > 0)
				if (vf.wire != PB_VARINT)
					return 0;
			if (vk < 0)
				return 0;
			types = true;
		}
		fields++;
	}
	/* The head may end inside a field (a length past its end): two good
	 * fields before that are enough. */
	return fields >= 2 && types ? 95 : 0;
}
