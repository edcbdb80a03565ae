/* Reading HotSpot's vmStructs tables (hotspot_structs.h). */
#include "runtime/hotspot_structs.h"

#include <stddef.h>
#include <string.h>

enum { CHUNK_ENTRIES = 32 };

/* One field or size the naming needs. */
struct wanted {
	const char *type, *field; /* field NULL: the type's size */
	size_t at;                /* offsetof(struct hotspot_layout, ...) */
	bool is_static;           /* a static's address (a uint64_t in the layout) */
	bool found;
};

#define FIELD(t, f, m) { t, f, offsetof(struct hotspot_layout, m), false, false }

static void wanted_list(struct wanted *w, size_t *n)
{
	static const struct wanted all[] = {
		FIELD("Method", "_constMethod", method_const_method),
		FIELD("ConstMethod", "_constants", const_method_constants),
		FIELD("ConstMethod", "_name_index", const_method_name_index),
		FIELD("ConstMethod", "_signature_index", const_method_signature_index),
		FIELD("ConstMethod", "_method_idnum", const_method_idnum),
		FIELD("ConstantPool", "_pool_holder", pool_holder),
		FIELD("ConstantPool", "_length", pool_length),
		FIELD("ConstantPool", "_tags", pool_tags),
		FIELD("ConstantPool", NULL, pool_size),
		FIELD("Klass", "_name", klass_name),
		FIELD("InstanceKlass", "_methods", klass_methods),
		FIELD("Array<int>", "_length", array_length),
		FIELD("Array<u1>", "_data", array_u1_data),
		FIELD("Array<Method*>", "_data", array_ptr_data),
		FIELD("Symbol", "_length", symbol_length),
		FIELD("Symbol", "_body", symbol_body),
		{ "AbstractInterpreter", "_code", offsetof(struct hotspot_layout, interpreter_code), true, false },
		FIELD("StubQueue", "_stub_buffer", queue_buffer),
		FIELD("StubQueue", "_buffer_limit", queue_limit),
	};
	*n = sizeof(all) / sizeof(all[0]);
	memcpy(w, all, sizeof(all));
}

enum { MAX_WANTED = 24 };

/* A NUL-terminated string of at most HOTSPOT_MAX_NAME - 1 bytes at addr
 * into buf (HOTSPOT_MAX_NAME bytes); false when unreadable or longer. */
static bool read_name(hotspot_read_fn read, void *arg, uint64_t addr, char *buf)
{
	if (!addr)
		return false;
	if (!read(arg, addr, buf, HOTSPOT_MAX_NAME)) {
		/* near the end of a mapping: in small pieces, up to the NUL */
		size_t got = 0;
		while (got < HOTSPOT_MAX_NAME && read(arg, addr + got, buf + got, 8) &&
		       !memchr(buf + got, 0, 8))
			got += 8;
		if (got >= HOTSPOT_MAX_NAME || !read(arg, addr + got, buf + got, 8))
			return false;
	}
	return memchr(buf, 0, HOTSPOT_MAX_NAME) != NULL;
}

static bool fits(uint64_t field, size_t len, uint64_t stride)
{
	return field <= stride && len <= stride - field;
}

static uint64_t u64_at(const uint8_t *e, uint64_t at)
{
	uint64_t v;
	memcpy(&v, e + at, sizeof(v));
	return v;
}

/* Note one entry's value in the layout if it is wanted. */
static void note(struct wanted *w, size_t nw, struct hotspot_layout *out, const char *type, const char *field,
		 bool is_static, uint64_t value)
{
	for (size_t i = 0; i < nw; i++) {
		if (w[i].found || strcmp(w[i].type, type) || !w[i].field != !field ||
		    (field && strcmp(w[i].field, field)) || w[i].is_static != is_static)
			continue;
		if (is_static) {
			memcpy((char *)out + w[i].at, &value, sizeof(value));
		} else {
			if (value > HOTSPOT_MAX_OFFSET)
				return; /* left unfound: refused below */
			uint32_t v = (uint32_t)value;
			memcpy((char *)out + w[i].at, &v, sizeof(v));
		}
		w[i].found = true;
		return;
	}
}

/* Walk one table: fields (types == false) or types. */
static bool walk(hotspot_read_fn read, void *arg, const struct hotspot_exports *ex, bool types, struct wanted *w,
		 size_t nw, struct hotspot_layout *out)
{
	uint64_t base = types ? ex->types : ex->structs, stride = types ? ex->t_stride : ex->s_stride;
	uint64_t tn = types ? ex->t_type_name : ex->s_type_name;
	if (!base || stride < 8 || stride > HOTSPOT_MAX_STRIDE || stride % 4 || !fits(tn, 8, stride))
		return false;
	if (types ? !fits(ex->t_size, 8, stride)
		  : !fits(ex->s_field_name, 8, stride) || !fits(ex->s_is_static, 4, stride) ||
			    !fits(ex->s_offset, 8, stride) || !fits(ex->s_address, 8, stride))
		return false;
	uint8_t chunk[CHUNK_ENTRIES * HOTSPOT_MAX_STRIDE];
	char type[HOTSPOT_MAX_NAME], field[HOTSPOT_MAX_NAME];
	uint64_t type_at = 0; /* the address type[] was read from */
	uint64_t first = 0, have = 0; /* chunk holds entries [first, first + have) */
	for (uint64_t i = 0; i < HOTSPOT_MAX_ENTRIES; i++) {
		if (i >= first + have) {
			first = i;
			have = CHUNK_ENTRIES;
			if (!read(arg, base + i * stride, chunk, CHUNK_ENTRIES * stride)) {
				have = 1; /* the last entries, at a mapping's end */
				if (!read(arg, base + i * stride, chunk, stride))
					return false;
			}
		}
		const uint8_t *e = chunk + (i - first) * stride;
		uint64_t name = u64_at(e, tn);
		if (!name)
			return true; /* the end */
		if (name != type_at) {
			type_at = 0;
			if (!read_name(read, arg, name, type))
				continue;
			type_at = name;
		}
		if (types) {
			note(w, nw, out, type, NULL, false, u64_at(e, ex->t_size));
			continue;
		}
		if (!read_name(read, arg, u64_at(e, ex->s_field_name), field))
			continue;
		int32_t is_static;
		memcpy(&is_static, e + ex->s_is_static, sizeof(is_static));
		note(w, nw, out, type, field, is_static != 0,
		     u64_at(e, is_static ? ex->s_address : ex->s_offset));
	}
	return false; /* no end within the bound */
}

bool hotspot_structs_read(hotspot_read_fn read, void *arg, const struct hotspot_exports *ex,
			  struct hotspot_layout *out, const char **why)
{
	struct wanted w[MAX_WANTED];
	size_t nw;
	wanted_list(w, &nw);
	memset(out, 0, sizeof(*out));
	if (!walk(read, arg, ex, false, w, nw, out) || !walk(read, arg, ex, true, w, nw, out)) {
		*why = "its vmStructs tables could not be read";
		return false;
	}
	for (size_t i = 0; i < nw; i++)
		if (!w[i].found) {
			*why = "its vmStructs tables lack a field scorch needs";
			return false;
		}
	if (out->pool_size < 8 || out->pool_size > HOTSPOT_MAX_OFFSET || !out->interpreter_code) {
		*why = "its vmStructs tables give an implausible layout";
		return false;
	}
	return true;
}
