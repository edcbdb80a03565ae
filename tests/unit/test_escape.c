/* Unit tests for render/escape: XML and JSON escaping of untrusted bytes. */
#include "harness.h"

#include "base/out.h"
#include "render/escape.h"

#include <stdlib.h>

static char *xml(const char *s, size_t n, unsigned flags)
{
	struct out *o = out_open_mem();
	xml_escape(o, s, n, flags);
	return out_mem_detach(o, NULL);
}

static char *json(const char *s, size_t n)
{
	struct out *o = out_open_mem();
	json_string(o, s, n);
	return out_mem_detach(o, NULL);
}

#define XML(s, flags, want)                              \
	do {                                             \
		char *got_ = xml(s, sizeof(s) - 1, flags); \
		CHECK_STR(got_, want);                   \
		free(got_);                              \
	} while (0)

#define JSON(s, want)                              \
	do {                                       \
		char *got_ = json(s, sizeof(s) - 1); \
		CHECK_STR(got_, want);             \
		free(got_);                        \
	} while (0)

TEST(xml_escapes_markup)
{
	XML("a<b>&c\"d'e", 0, "a&lt;b&gt;&amp;c\"d'e");
	XML("a<b>&c\"d'e", ESC_QUOT, "a&lt;b&gt;&amp;c&quot;d'e");
	XML("]]>", 0, "]]&gt;");
	XML("plain", 0, "plain");
	XML("", 0, "");
}

TEST(xml_replaces_controls_and_bad_utf8)
{
	XML("a\tb", 0, "a\tb");                       /* TAB is allowed */
	XML("a\x01" "b\x1b[0m", 0, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD[0m");
	XML("caf\xC3\xA9", 0, "caf\xC3\xA9");         /* valid UTF-8 kept */
	XML("\xF0\x9F\x94\xA5", 0, "\xF0\x9F\x94\xA5"); /* 4-byte kept */
	XML("x\xFFy", 0, "x\xEF\xBF\xBDy");           /* invalid byte */
	XML("\xC0\xAF", 0, "\xEF\xBF\xBD\xEF\xBF\xBD"); /* overlong */
	XML("\xED\xA0\x80", 0, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); /* surrogate */
	XML("\xEF\xBF\xBE", 0, "\xEF\xBF\xBD");       /* U+FFFE not an XML char */
	XML("\xEF\xBF\xBD", 0, "\xEF\xBF\xBD");       /* a real U+FFFD stays */
	XML("ab\xE2\x82", 0, "ab\xEF\xBF\xBD\xEF\xBF\xBD"); /* truncated sequence */
}

TEST(xml_embedded_nul)
{
	const char s[] = { 'a', 0, 'b' };
	char *got = xml(s, 3, 0);
	CHECK_STR(got, "a\xEF\xBF\xBD" "b");
	free(got);
}

TEST(utf8_counting)
{
	CHECK_EQ_U64(utf8_chars("abc", 3), 3);
	CHECK_EQ_U64(utf8_chars("caf\xC3\xA9", 5), 4);
	CHECK_EQ_U64(utf8_chars("x\xFFy", 3), 3);
	CHECK_EQ_U64(utf8_offset("caf\xC3\xA9!", 6, 4), 5);
	CHECK_EQ_U64(utf8_offset("caf\xC3\xA9!", 6, 3), 3);
	CHECK_EQ_U64(utf8_offset("ab", 2, 10), 2);
}

TEST(json_strings_cannot_close_script_or_cdata)
{
	JSON("plain", "\"plain\"");
	JSON("a\"b\\c", "\"a\\\"b\\\\c\"");
	JSON("</script>]]>&", "\"\\u003c/script\\u003e]]\\u003e\\u0026\"");
	JSON("t\tx\x01", "\"t\\tx\\ufffd\"");
	JSON("bad\xFF", "\"bad\\ufffd\"");
	JSON("\xE2\x80\xA8", "\"\\u2028\"");
	JSON("caf\xC3\xA9", "\"caf\xC3\xA9\"");
}
