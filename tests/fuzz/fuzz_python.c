/* Fuzz target for the decoders of bytes read from a CPython process
 * (runtime/python_decode.c, runtime/python_layouts.c): a location table,
 * a str object's head and characters, and a _Py_DebugOffsets block, all
 * from one input. The first byte picks the layout (3.11, 3.12, 3.13, 3.8,
 * 3.10: the line table's format with it). */
#include "runtime/python_decode.h"
#include "runtime/python_layouts.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	static const uint32_t versions[] = { 0x030b02f0, 0x030c01f0, 0x030d00f0, 0x030812f0, 0x030a0df0 };
	struct python_offsets o;
	if (!python_layout_of(versions[data[0] % 5], &o))
		return 0;
	uint32_t instr;
	memcpy(&instr, data + 1, 4);
	const uint8_t *rest = data + 5;
	size_t n = size - 5;
	/* every instruction index up to the table's length, and the given one */
	for (uint32_t i = 0; i < 64 && i <= n; i++)
		(void)python_line(o.line_table, rest, n, 1, i);
	(void)python_line(o.line_table, rest, n, (int)(instr >> 8), instr & 0xffff);
	struct python_str s;
	if (python_str_parse(rest, n, &o, &s) && s.data <= n) {
		char out[64];
		size_t w = python_str_utf8(&s, rest + s.data, n - s.data, out, sizeof(out));
		if (w >= sizeof(out) || out[w] != 0)
			__builtin_trap();
	}
	struct python_offsets d;
	(void)python_layout_from_debug(rest, n, &d);
	return 0;
}
