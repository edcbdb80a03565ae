/* See python_decode.h. */
#include "runtime/python_decode.h"

#include <string.h>

/* An unsigned varint of the location table: 6-bit chunks, least
 * significant first, bit 6 set when another chunk follows. */
static bool read_varint(const uint8_t *t, size_t n, size_t *i, uint32_t *out)
{
	uint32_t v = 0;
	for (unsigned shift = 0; shift < 32; shift += 6) {
		if (*i >= n)
			return false;
		uint8_t b = t[(*i)++];
		v |= (uint32_t)(b & 63) << shift;
		if (!(b & 64)) {
			*out = v;
			return true;
		}
	}
	return false;
}

static bool read_svarint(const uint8_t *t, size_t n, size_t *i, int32_t *out)
{
	uint32_t v;
	if (!read_varint(t, n, i, &v))
		return false;
	*out = (v & 1) ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
	return true;
}

int python_line_of(const uint8_t *table, size_t n, int firstlineno, uint32_t instr)
{
	int64_t line = firstlineno;
	uint64_t addr = 0;
	size_t i = 0;
	while (i < n) {
		uint8_t b = table[i++];
		if (!(b & 0x80))
			return -1; /* not at an entry's first byte: malformed */
		unsigned code = (b >> 3) & 15, len = (b & 7) + 1u;
		int32_t delta = 0;
		uint32_t skip;
		if (code <= 9) {
			i += 1; /* the column byte */
		} else if (code <= 12) {
			delta = (int32_t)code - 10;
			i += 2; /* start and end columns */
		} else if (code == 13) {
			if (!read_svarint(table, n, &i, &delta))
				return -1;
		} else if (code == 14) {
			if (!read_svarint(table, n, &i, &delta) || !read_varint(table, n, &i, &skip) ||
			    !read_varint(table, n, &i, &skip) || !read_varint(table, n, &i, &skip))
				return -1;
		}
		if (i > n)
			return -1;
		if (code != 15)
			line += delta;
		if (line < -(1ll << 31) || line > (1ll << 31) - 1)
			return -1;
		if (instr < addr + len)
			return code == 15 || line < 0 ? -1 : (int)line;
		addr += len;
	}
	return -1;
}

int python_line_of_lnotab(const uint8_t *table, size_t n, int firstlineno, uint32_t instr)
{
	uint64_t want = (uint64_t)instr * 2, addr = 0;
	int64_t line = firstlineno;
	for (size_t i = 0; i + 1 < n; i += 2) {
		addr += table[i];
		if (addr > want)
			break;
		line += (int8_t)table[i + 1];
		if (line < -(1ll << 31) || line > (1ll << 31) - 1)
			return -1;
	}
	return line < 0 ? -1 : (int)line;
}

int python_line_of_310(const uint8_t *table, size_t n, int firstlineno, uint32_t instr)
{
	uint64_t want = (uint64_t)instr * 2, end = 0;
	int64_t line = firstlineno;
	for (size_t i = 0; i + 1 < n; i += 2) {
		uint64_t start = end;
		int8_t delta = (int8_t)table[i + 1];
		end += table[i];
		if (delta != -128)
			line += delta;
		if (line < -(1ll << 31) || line > (1ll << 31) - 1)
			return -1;
		if (want >= start && want < end)
			return delta == -128 || line < 0 ? -1 : (int)line;
	}
	return -1;
}

int python_line(uint32_t format, const uint8_t *table, size_t n, int firstlineno, uint32_t instr)
{
	switch (format) {
	case PYTHON_LINES_LOCATIONS:
		return python_line_of(table, n, firstlineno, instr);
	case PYTHON_LINES_310:
		return python_line_of_310(table, n, firstlineno, instr);
	case PYTHON_LINES_LNOTAB:
		return python_line_of_lnotab(table, n, firstlineno, instr);
	}
	return -1;
}

bool python_str_parse(const uint8_t *head, size_t n, const struct python_offsets *o, struct python_str *out)
{
	if (n < o->unicode_compact_size || o->unicode_state + 4 > n || o->unicode_length + 8 > n)
		return false;
	uint32_t state;
	int64_t length;
	memcpy(&state, head + o->unicode_state, 4);
	memcpy(&length, head + o->unicode_length, 8);
	/* state: interned (2 bits), kind (3), compact (1), ascii (1), ready (1 until 3.12) */
	unsigned kind = (state >> 2) & 7;
	bool compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	if (!compact || length < 0 || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1))
		return false;
	*out = (struct python_str){
		.data = ascii ? o->unicode_ascii_size : o->unicode_compact_size,
		.length = (size_t)length,
		.kind = kind,
		.ascii = ascii,
	};
	return true;
}

static size_t put_utf8(uint32_t c, char *p)
{
	if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x80) {
		p[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		p[0] = (char)(0xc0 | c >> 6);
		p[1] = (char)(0x80 | (c & 63));
		return 2;
	}
	if (c < 0x10000) {
		p[0] = (char)(0xe0 | c >> 12);
		p[1] = (char)(0x80 | ((c >> 6) & 63));
		p[2] = (char)(0x80 | (c & 63));
		return 3;
	}
	p[0] = (char)(0xf0 | c >> 18);
	p[1] = (char)(0x80 | ((c >> 12) & 63));
	p[2] = (char)(0x80 | ((c >> 6) & 63));
	p[3] = (char)(0x80 | (c & 63));
	return 4;
}

size_t python_str_utf8(const struct python_str *s, const uint8_t *raw, size_t nraw, char *out, size_t cap)
{
	size_t w = 0;
	if (!cap)
		return 0;
	for (size_t i = 0; i < s->length && (i + 1) * s->kind <= nraw; i++) {
		uint32_t c = 0;
		if (s->kind == 1) {
			c = raw[i];
		} else if (s->kind == 2) {
			uint16_t v;
			memcpy(&v, raw + i * 2, 2);
			c = v;
		} else {
			memcpy(&c, raw + i * 4, 4);
		}
		char buf[4];
		size_t k = put_utf8(c, buf);
		if (w + k + 1 > cap)
			break;
		memcpy(out + w, buf, k);
		w += k;
	}
	out[w] = 0;
	return w;
}
