/* PNG output (render/png.h). Coordinates are the SVG's, in pixels. */
#include "render/png.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/numfmt.h"
#include "base/tempfile.h"
#include "render/escape.h"

#include <cairo.h>
#include <dlfcn.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cairo and pango are loaded when a PNG is drawn, not linked: linking them
 * loads some 35 libraries and runs their constructors at every start,
 * which every other run would pay for nothing. Every function used is listed
 * here, and the names below stand for the loaded pointers. */
#define PNG_LIB_FUNCS(X)                                                                          \
	X(cairo_arc) X(cairo_close_path) X(cairo_create) X(cairo_destroy) X(cairo_fill)          \
	X(cairo_image_surface_create) X(cairo_move_to) X(cairo_new_sub_path) X(cairo_paint)      \
	X(cairo_pattern_add_color_stop_rgb) X(cairo_pattern_create_linear)                       \
	X(cairo_pattern_destroy) X(cairo_set_source) X(cairo_set_source_rgb)                     \
	X(cairo_set_source_rgba) X(cairo_status_to_string) X(cairo_surface_destroy)              \
	X(cairo_surface_flush) X(cairo_surface_write_to_png_stream) X(g_object_unref)            \
	X(pango_cairo_create_layout) X(pango_cairo_show_layout) X(pango_font_description_free)   \
	X(pango_font_description_new) X(pango_font_description_set_absolute_size)                \
	X(pango_font_description_set_family) X(pango_layout_get_baseline)                       \
	X(pango_layout_get_pixel_size) X(pango_layout_set_font_description)                      \
	X(pango_layout_set_text)

/* The sonames of Debian's libpangocairo-1.0-0 (which needs pango, cairo and
 * gobject: their functions are found through it). */
#define PNG_LIB "libpangocairo-1.0.so.0"

static struct png_lib {
#define PNG_LIB_FIELD(f) __typeof__(f) *f;
	PNG_LIB_FUNCS(PNG_LIB_FIELD)
#undef PNG_LIB_FIELD
} png_lib; /* filled once, by png_lib_load; the process keeps the library */

static int png_lib_load(void)
{
	if (png_lib.cairo_arc)
		return 0;
	void *h = dlopen(PNG_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return error("PNG output needs cairo and pango: cannot load %s (%s; Debian: "
			     "libcairo2 libpangocairo-1.0-0)", PNG_LIB, dlerror());
	struct png_lib l;
#define PNG_LIB_SYM(f)                                                                            \
	if (!(*(void **)&l.f = dlsym(h, #f)))                                                      \
		return error("PNG output: %s has no %s", PNG_LIB, #f);
	PNG_LIB_FUNCS(PNG_LIB_SYM)
#undef PNG_LIB_SYM
	png_lib = l;
	return 0;
}

#define cairo_arc png_lib.cairo_arc
#define cairo_close_path png_lib.cairo_close_path
#define cairo_create png_lib.cairo_create
#define cairo_destroy png_lib.cairo_destroy
#define cairo_fill png_lib.cairo_fill
#define cairo_image_surface_create png_lib.cairo_image_surface_create
#define cairo_move_to png_lib.cairo_move_to
#define cairo_new_sub_path png_lib.cairo_new_sub_path
#define cairo_paint png_lib.cairo_paint
#define cairo_pattern_add_color_stop_rgb png_lib.cairo_pattern_add_color_stop_rgb
#define cairo_pattern_create_linear png_lib.cairo_pattern_create_linear
#define cairo_pattern_destroy png_lib.cairo_pattern_destroy
#define cairo_set_source png_lib.cairo_set_source
#define cairo_set_source_rgb png_lib.cairo_set_source_rgb
#define cairo_set_source_rgba png_lib.cairo_set_source_rgba
#define cairo_status_to_string png_lib.cairo_status_to_string
#define cairo_surface_destroy png_lib.cairo_surface_destroy
#define cairo_surface_flush png_lib.cairo_surface_flush
#define cairo_surface_write_to_png_stream png_lib.cairo_surface_write_to_png_stream
#define g_object_unref png_lib.g_object_unref
#define pango_cairo_create_layout png_lib.pango_cairo_create_layout
#define pango_cairo_show_layout png_lib.pango_cairo_show_layout
#define pango_font_description_free png_lib.pango_font_description_free
#define pango_font_description_new png_lib.pango_font_description_new
#define pango_font_description_set_absolute_size png_lib.pango_font_description_set_absolute_size
#define pango_font_description_set_family png_lib.pango_font_description_set_family
#define pango_layout_get_baseline png_lib.pango_layout_get_baseline
#define pango_layout_get_pixel_size png_lib.pango_layout_get_pixel_size
#define pango_layout_set_font_description png_lib.pango_layout_set_font_description
#define pango_layout_set_text png_lib.pango_layout_set_text

static cairo_status_t write_out(void *closure, const unsigned char *data, unsigned int len)
{
	out_write(closure, data, len);
	return CAIRO_STATUS_SUCCESS;
}

static void set_hex(cairo_t *cr, cairo_pattern_t *pat, double offset, const char *hex)
{
	unsigned v = (unsigned)strtoul(hex[0] == '#' ? hex + 1 : hex, NULL, 16);
	double r = (v >> 16 & 255) / 255.0, g = (v >> 8 & 255) / 255.0, b = (v & 255) / 255.0;
	if (pat)
		cairo_pattern_add_color_stop_rgb(pat, offset, r, g, b);
	else
		cairo_set_source_rgb(cr, r, g, b);
}

/* Text as pango takes it: valid UTF-8 (what the SVG escaper would turn
 * into U+FFFD is U+FFFD here too), with the label's "..". */
static void put_text(PangoLayout *pl, struct svg_label lb, char **buf, size_t *alloc)
{
	size_t n = 0;
	VEC_GROW(*buf, lb.len * 3 + 8, *alloc);
	char *b = *buf;
	if (lb.dots < 0)
		b[n++] = '.', b[n++] = '.';
	for (size_t i = 0; i < lb.len;) {
		uint32_t raw, c = utf8_decode(lb.text, lb.len, &i, &raw);
		if (c < 0x80) {
			b[n++] = (char)c;
		} else if (c < 0x800) {
			b[n++] = (char)(0xc0 | c >> 6);
			b[n++] = (char)(0x80 | (c & 63));
		} else if (c < 0x10000) {
			b[n++] = (char)(0xe0 | c >> 12);
			b[n++] = (char)(0x80 | (c >> 6 & 63));
			b[n++] = (char)(0x80 | (c & 63));
		} else {
			VEC_GROW(*buf, n + 4 + (lb.len - i) * 3 + 8, *alloc);
			b = *buf;
			b[n++] = (char)(0xf0 | c >> 18);
			b[n++] = (char)(0x80 | (c >> 12 & 63));
			b[n++] = (char)(0x80 | (c >> 6 & 63));
			b[n++] = (char)(0x80 | (c & 63));
		}
	}
	if (lb.dots > 0)
		b[n++] = '.', b[n++] = '.';
	pango_layout_set_text(pl, b, (int)n);
}

/* Text with its baseline at y, starting at x (anchor 0), centred on x
 * (anchor 1). */
static void show(cairo_t *cr, PangoLayout *pl, double x, double y, int anchor)
{
	int w, h;
	pango_layout_get_pixel_size(pl, &w, &h);
	double base = pango_layout_get_baseline(pl) / (double)PANGO_SCALE;
	cairo_move_to(cr, anchor ? x - w / 2.0 : x, y - base);
	pango_cairo_show_layout(cr, pl);
}

static PangoFontDescription *font(const struct svg_opts *s, double px)
{
	PangoFontDescription *fd = pango_font_description_new();
	/* the SVG's font list is CSS ("Verdana", "a, b"): pango takes a comma list */
	char *family = xstrdup(s->fonttype);
	size_t k = 0;
	for (size_t i = 0; family[i]; i++)
		if (family[i] != '"' && family[i] != '\'')
			family[k++] = family[i];
	family[k] = '\0';
	pango_font_description_set_family(fd, family);
	free(family);
	pango_font_description_set_absolute_size(fd, px * PANGO_SCALE);
	return fd;
}

static void rounded_rect(cairo_t *cr, double x, double y, double w, double h, double r)
{
	if (r > w / 2)
		r = w / 2;
	if (r > h / 2)
		r = h / 2;
	cairo_new_sub_path(cr);
	cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
	cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
	cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
	cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
	cairo_close_path(cr);
}

/* GLib (under pango and fontconfig) stops the process when it runs out of
 * memory: g_error, then a breakpoint trap (SIGTRAP) or abort; fontconfig's
 * loader thread (pango starts it) dereferences what malloc did not give.
 * While a PNG is drawn, those end scorch as an error instead: the
 * libraries' messages are on stderr already; ours says what failed, and
 * the temporary output goes. A fault on the main thread (scorch's own code
 * among the library calls) still dies of its signal, as a bug should. */
static void library_stopped(int sig)
{
	static const char msg[] = "scorch: png: the cairo/pango libraries stopped (out of memory?): "
				  "no PNG written\n";
	if ((sig == SIGSEGV || sig == SIGBUS) && gettid() == getpid()) {
		tempfile_remove_all();
		signal(sig, SIG_DFL); /* the faulting instruction runs again, and dies */
		return;
	}
	ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)ignored;
	tempfile_remove_all();
	_exit(1);
}

static const int library_signals[] = { SIGTRAP, SIGABRT, SIGSEGV, SIGBUS };

static void catch_library_stops(struct sigaction *old)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = library_stopped;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(library_signals) / sizeof(library_signals[0]); i++)
		sigaction(library_signals[i], &sa, &old[i]);
}

static void restore_library_stops(const struct sigaction *old)
{
	for (size_t i = 0; i < sizeof(library_signals) / sizeof(library_signals[0]); i++)
		sigaction(library_signals[i], &old[i], NULL);
}

static int draw(struct out *out, const struct profile *p, const struct layout *l, struct svg_opts *s);

int png_write(struct out *out, const struct profile *p, const struct layout *l, struct svg_opts *s)
{
	struct sigaction old[sizeof(library_signals) / sizeof(library_signals[0])];
	catch_library_stops(old);
	int ret = draw(out, p, l, s);
	restore_library_stops(old);
	return ret;
}

static int draw(struct out *out, const struct profile *p, const struct layout *l, struct svg_opts *s)
{
	struct svg_geometry g = svg_geometry(l, s);
	double height = ceil(g.imageheight);
	if (s->width > 32767 || height > 32767)
		return error("png: a %d x %.0f image is larger than cairo draws (32767 px a side); "
			     "use a smaller --width or --height, or SVG", s->width, height);
	if (png_lib_load())
		return -1;
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, s->width, (int)height);
	cairo_t *cr = cairo_create(surface);

	cairo_pattern_t *bg = cairo_pattern_create_linear(0, 0, 0, g.imageheight);
	set_hex(cr, bg, 0.05, s->bg_top);
	set_hex(cr, bg, 0.95, s->bg_bottom);
	cairo_set_source(cr, bg);
	cairo_paint(cr);
	cairo_pattern_destroy(bg);

	PangoLayout *pl = pango_cairo_create_layout(cr);
	PangoFontDescription *big = font(s, s->fontsize + 5), *normal = font(s, s->fontsize);
	double mid = (double)(s->width / 2);
	cairo_set_source_rgb(cr, 0, 0, 0);
	char *buf = NULL;
	size_t alloc = 0;
	const char *title = svg_title(s);
	pango_layout_set_font_description(pl, big);
	put_text(pl, (struct svg_label){ title, strlen(title), 0 }, &buf, &alloc);
	show(cr, pl, mid, g.fs * 2, 1);
	pango_layout_set_font_description(pl, normal);
	if (s->subtitle && *s->subtitle) {
		put_text(pl, (struct svg_label){ s->subtitle, strlen(s->subtitle), 0 }, &buf, &alloc);
		show(cr, pl, mid, g.fs * 4, 1);
	}
	/* "Search" and "ic" at 0.1 opacity, as the SVG shows them */
	cairo_set_source_rgba(cr, 0, 0, 0, 0.1);
	pango_layout_set_text(pl, "Search", -1);
	show(cr, pl, s->width - 110, g.fs * 2, 0);
	pango_layout_set_text(pl, "ic", -1);
	show(cr, pl, s->width - 26, g.fs * 2, 0);

	for (size_t i = 0; i < l->nr; i++) {
		const struct frame *f = &l->frames[i];
		struct svg_box b = svg_frame_box(f, &g, s);
		double x1 = numfmt_round(b.x1, 1), x2 = numfmt_round(b.x2, 1);
		struct rgb c = svg_frame_fill(p, l, f, s);
		cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
		rounded_rect(cr, x1, b.y1, x2 - x1, b.y2 - b.y1, 2);
		cairo_fill(cr);
		struct svg_label lb = svg_label(p, f, b.x2 - b.x1, s);
		if (!lb.len)
			continue;
		cairo_set_source_rgb(cr, 0, 0, 0);
		put_text(pl, lb, &buf, &alloc);
		show(cr, pl, b.x1 + 3, 3 + (b.y1 + b.y2) / 2, 0);
	}
	free(buf);
	pango_font_description_free(big);
	pango_font_description_free(normal);
	g_object_unref(pl);
	cairo_destroy(cr);
	cairo_surface_flush(surface);
	cairo_status_t st = cairo_surface_write_to_png_stream(surface, write_out, out);
	cairo_surface_destroy(surface);
	if (st != CAIRO_STATUS_SUCCESS)
		return error("png: %s", cairo_status_to_string(st));
	return 0;
}
