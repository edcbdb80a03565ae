#include "render/escape.h"

static void put_cp(struct out *o, uint32_t cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	out_write(o, b, n);
}

uint32_t utf8_decode(const char *str, size_t n, size_t *i, uint32_t *raw)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t k = *i;
	unsigned c = s[k];
	uint32_t cp, min;
	size_t len;
	if (c < 0x80) {
		*i = k + 1;
		if (raw)
			*raw = c;
		if (c < 0x20 && c != '\t')
			return UTF8_REPLACEMENT;
		return c;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2, cp = c & 0x1F, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, cp = c & 0x0F, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, cp = c & 0x07, min = 0x10000;
	} else {
		goto bad;
	}
	if (k + len > n)
		goto bad;
	for (size_t j = 1; j < len; j++) {
		if ((s[k + j] & 0xC0) != 0x80)
			goto bad;
		cp = cp << 6 | (s[k + j] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		goto bad;
	*i = k + len;
	if (raw)
		*raw = cp;
	if (cp == 0xFFFE || cp == 0xFFFF)
		return UTF8_REPLACEMENT;
	return cp;
bad:
	*i = k + 1;
	if (raw)
		*raw = c;
	return UTF8_REPLACEMENT;
}

size_t utf8_chars(const char *s, size_t n)
{
	size_t i = 0, chars = 0;
	while (i < n) {
		if ((unsigned char)s[i] < 0x80)
			i++;
		else
			utf8_decode(s, n, &i, NULL);
		chars++;
	}
	return chars;
}

size_t utf8_offset(const char *s, size_t n, size_t chars)
{
	size_t i = 0;
	while (i < n && chars) {
		if ((unsigned char)s[i] < 0x80)
			i++;
		else
			utf8_decode(s, n, &i, NULL);
		chars--;
	}
	return i;
}

void xml_escape(struct out *o, const char *s, size_t n, unsigned flags)
{
	size_t i = 0, run = 0; /* run: start of pending plain bytes */
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) {
			size_t start = i;
			uint32_t raw;
			uint32_t cp = utf8_decode(s, n, &i, &raw);
			if (cp == UTF8_REPLACEMENT && raw != UTF8_REPLACEMENT) {
				out_write(o, s + run, start - run);
				put_cp(o, cp);
				run = i;
			}
			continue;
		}
		const char *rep = NULL;
		if (c == '&')
			rep = "&amp;";
		else if (c == '<')
			rep = "&lt;";
		else if (c == '>')
			rep = "&gt;";
		else if (c == '"' && (flags & ESC_QUOT))
			rep = "&quot;";
		if (!rep && (c >= 0x20 || c == '\t')) {
			i++;
			continue;
		}
		out_write(o, s + run, i - run);
		if (rep)
			out_puts(o, rep);
		else
			put_cp(o, UTF8_REPLACEMENT);
		i++;
		run = i;
	}
	out_write(o, s + run, n - run);
}

void json_string(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	out_putc(o, '"');
	size_t i = 0;
	while (i < n) {
		size_t start = i;
		uint32_t raw;
		uint32_t cp = utf8_decode(s, n, &i, &raw);
		if (cp == '\t') {
			out_puts(o, "\\t");
		} else if (cp == '"' || cp == '\\') {
			out_putc(o, '\\');
			out_putc(o, (char)cp);
		} else if (cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029) {
			char u[6] = { '\\', 'u', hex[cp >> 12 & 15], hex[cp >> 8 & 15],
				      hex[cp >> 4 & 15], hex[cp & 15] };
			out_write(o, u, 6);
		} else if (cp == UTF8_REPLACEMENT && raw != UTF8_REPLACEMENT) {
			out_puts(o, "\\ufffd");
		} else {
			out_write(o, s + start, i - start);
		}
	}
	out_putc(o, '"');
}
