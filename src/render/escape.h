/* Untrusted names become text, never markup. Every byte string from the
 * input passes through here on its way into SVG (XML) or JSON:
 *  - invalid UTF-8 bytes, C0 control characters other than TAB, and the
 *    non-characters U+FFFE/U+FFFF (not allowed in XML 1.0) become U+FFFD;
 *  - XML: & < > always escaped, " escaped when ESC_QUOT is given (titles,
 *    attribute values), ' left alone (we quote attributes with ");
 *  - JSON: " \ and controls escaped, and < > & written as \u003c \u003e
 *    \u0026 so a string can never close a CDATA section or a <script>. */
#ifndef SCORCH_RENDER_ESCAPE_H
#define SCORCH_RENDER_ESCAPE_H

#include "base/out.h"

#include <stddef.h>
#include <stdint.h>

#define UTF8_REPLACEMENT 0xFFFDu

/* Decode one code point at s[*i] (n bytes total), advancing *i. Invalid or
 * disallowed input yields UTF8_REPLACEMENT and consumes one byte; *raw gets
 * the original byte value then (or the code point otherwise). */
uint32_t utf8_decode(const char *s, size_t n, size_t *i, uint32_t *raw);

/* Number of characters (code points after replacement) in s[0..n). */
size_t utf8_chars(const char *s, size_t n);

/* Byte offset just after the first `chars` characters of s[0..n). */
size_t utf8_offset(const char *s, size_t n, size_t chars);

enum { ESC_QUOT = 1 };

/* Write s[0..n) as XML character data / attribute content. */
void xml_escape(struct out *o, const char *s, size_t n, unsigned flags);
static inline void xml_escape_str(struct out *o, const char *s, unsigned flags)
{
	xml_escape(o, s, strlen(s), flags);
}

/* Write s[0..n) as a JSON string literal, quotes included. */
void json_string(struct out *o, const char *s, size_t n);

#endif
