/* Fuzz target: folded text -> layout -> SVG (and the frame dump), with the
 * options chosen by the first byte. Checks that nothing from the input
 * opens markup: the SVG has exactly one <script and no CDATA end before it. */
#include "base/out.h"
#include "layout/layout.h"
#include "profile/folded.h"
#include "profile/ops.h"
#include "render/svg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count(const char *s, size_t n, const char *needle)
{
	size_t k = 0, m = strlen(needle);
	for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), needle, m)); p += m)
		k++;
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t flags = size ? data[0] : 0;
	if (size) {
		data++;
		size--;
	}
	struct profile p;
	profile_init(&p);
	p.keep_events = flags & 1;
	struct folded_opts fo = { .max_warnings = -1, .reverse = (flags & 2) != 0 };
	folded_parse(&p, "fuzz", (const char *)data, size, &fo, NULL);
	if (flags & 64) {
		struct profile q;
		profile_init(&q);
		profile_chain(&q, &p);
		profile_release(&p);
		p = q;
	}
	struct layout_opts lo = { .flamechart = flags & 1, .image_width = 300,
				  .minwidth = (flags & 4) ? 0 : 0.1 };
	struct layout l;
	layout_build(&l, &p, &lo);
	struct svg_opts so;
	svg_opts_defaults(&so);
	so.inverted = flags & 8;
	so.negate = flags & 16;
	so.seed = (flags & 32) ? SEED_HASH : SEED_NAME;
	so.palette = (enum palette_id)((flags >> 4) % (PAL_UNKNOWN + 1));
	so.truncate_left = flags & 128;
	palette_background(NULL, so.palette, so.bg_top, so.bg_bottom);
	struct out *o = out_open_mem();
	if (l.total > 0)
		svg_write(o, &p, &l, &so);
	else
		svg_write_error(o, &so, "empty");
	size_t n;
	char *svg = out_mem_detach(o, &n);
	if (l.total > 0 && (count(svg, n, "<script") != 1 || count(svg, n, "]]>") != 1))
		abort();
	free(svg);
	o = out_open_null();
	svg_dump_frames(o, &p, &l, &so);
	out_commit(o);
	layout_release(&l);
	profile_release(&p);
	return 0;
}
