/* Fuzz target: reading a JVM's vmStructs tables and naming a Method*
 * from them (runtime/hotspot_structs.c, runtime/hotspot_method.c), every
 * byte of which the profiled process controls.
 *
 * The "process" is the input: its memory bytes sit at address BASE, read
 * through a reader over them (an address outside reads nothing, as a wild
 * pointer would). Input: bytes 0-1 the structs table's offset from BASE,
 * 2-3 the types table's, 4-12 the entries' layout (the field entry's type
 * name, field name, is-static, offset and address fields and its stride;
 * the type entry's name and size fields and its stride), 13-14 the
 * Method*'s offset, then the memory. A table that does not read is
 * replaced by OpenJDK 17's layout, so that the method walk is fuzzed
 * either way. Seeds: tests/fuzz/make-seeds-jvm.py. */
#include "runtime/hotspot_method.h"
#include "runtime/hotspot_structs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE 0x10000000ull
enum { HEADER = 15 };

struct memory {
	const uint8_t *bytes;
	size_t len;
};

static bool read_memory(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct memory *m = arg;
	if (addr < BASE || addr - BASE > m->len || len > m->len - (addr - BASE))
		return false;
	memcpy(buf, m->bytes + (addr - BASE), len);
	return true;
}

static uint16_t u16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < HEADER)
		return 0;
	struct memory m = { data + HEADER, size - HEADER };
	struct hotspot_exports ex = {
		.structs = BASE + u16_at(data), .types = BASE + u16_at(data + 2),
		.s_type_name = data[4], .s_field_name = data[5], .s_is_static = data[6], .s_offset = data[7],
		.s_address = data[8], .s_stride = data[9],
		.t_type_name = data[10], .t_size = data[11], .t_stride = data[12],
	};
	struct hotspot_layout l;
	const char *why = NULL;
	if (!hotspot_structs_read(read_memory, &m, &ex, &l, &why)) {
		if (!why)
			__builtin_trap(); /* a refusal says why */
		l = (struct hotspot_layout){ 8, 8, 34, 36, 38, 24, 60, 8, 72, 24, 408, 0, 4, 8, 4, 6,
					     BASE + 8, 8, 20 };
	}
	uint64_t lo, hi;
	if (hotspot_interpreter_range(read_memory, &m, &l, &lo, &hi) && hi <= lo)
		__builtin_trap();
	char *name = malloc(HOTSPOT_NAME_CAP);
	uint64_t method = BASE + u16_at(data + 13);
	if (hotspot_method_name(read_memory, &m, &l, method, name, HOTSPOT_NAME_CAP) &&
	    (!memchr(name, 0, HOTSPOT_NAME_CAP) || !strchr(name, ' ') || !strchr(name, '(')))
		__builtin_trap(); /* a name is "ret Class.method(args)", terminated */
	free(name);
	return 0;
}
