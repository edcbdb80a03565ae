/* Decoders for bytes read from a CPython process (untrusted: any bytes
 * give an answer or a refusal, never a read out of bounds): the line
 * table, and the header of a str object. */
#ifndef SCORCH_RUNTIME_PYTHON_DECODE_H
#define SCORCH_RUNTIME_PYTHON_DECODE_H

#include "runtime/python_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The line of code unit index instr, from a 3.11+ location table
 * (co_linetable: Objects/locations.md in CPython) and co_firstlineno;
 * -1 when the table has no line there (or is malformed). */
int python_line_of(const uint8_t *table, size_t n, int firstlineno, uint32_t instr);
/* The same from the byte-pair tables of older versions (CPython's
 * Objects/lnotab_notes.txt): 3.8-3.9's co_lnotab (bytecode bytes, signed
 * line delta; the line changes where the address passes instr's) and
 * 3.10's co_linetable (bytecode bytes, signed line delta, -128: no line;
 * ranges [start, end)). instr counts code units (2 bytes). */
int python_line_of_lnotab(const uint8_t *table, size_t n, int firstlineno, uint32_t instr);
int python_line_of_310(const uint8_t *table, size_t n, int firstlineno, uint32_t instr);
/* By format (python_abi.h's PYTHON_LINES_*). */
int python_line(uint32_t format, const uint8_t *table, size_t n, int firstlineno, uint32_t instr);

/* Where a str's characters are, from its first bytes (at least
 * o->unicode_compact_size of them, n): false for a str this does not
 * read (not compact: a legacy string; a bad kind). */
struct python_str {
	size_t data;    /* offset of the characters from the object */
	size_t length;  /* in characters */
	unsigned kind;  /* bytes per character: 1, 2 or 4 */
	bool ascii;
};
bool python_str_parse(const uint8_t *head, size_t n, const struct python_offsets *o, struct python_str *out);

/* The characters (s's kind, nchars of them from raw, which holds nraw
 * bytes) as UTF-8 into out (cap bytes, NUL-terminated; cut at a whole
 * character when too long). Characters that are not Unicode scalar
 * values become U+FFFD. Returns the bytes written. */
size_t python_str_utf8(const struct python_str *s, const uint8_t *raw, size_t nraw, char *out, size_t cap);

#endif
