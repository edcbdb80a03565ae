/* Frame colours, as flamegraph.pl picks them: a palette chooses a hue
 * family from the frame name, and three values v1..v3 in [0,1) choose the
 * shade. By default the values come from Perl's drand48 seeded with the sum
 * of the name's code points (deterministic, like flamegraph.pl since 2023);
 * --hash uses the name hash weighted to the first characters; --random uses
 * a randomly seeded generator. Differential frames use a red/blue scale.
 * --cp keeps colours stable across runs in ./palette.map. */
#ifndef SCORCH_RENDER_PALETTE_H
#define SCORCH_RENDER_PALETTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rgb {
	uint8_t r, g, b;
};

enum palette_id {
	PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_JAVA, PAL_JS, PAL_PERL,
	PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE,
	PAL_WALL, /* ours (record --wall): hot, but its leaf frames [on-cpu]
		     red, [off-cpu] io's blue, [runnable] purple */
	PAL_PYTHON, /* ours (record, when it met a runtime): hot, but the
		       runtimes' frames (Python "func (file.py)", Java methods,
		       V8's "JS:...") green and _[k] orange */
	PAL_UNKNOWN, /* flamegraph.pl draws every frame black */
};

enum palette_seed { SEED_NAME, SEED_HASH, SEED_RANDOM };

/* Palette by name; PAL_UNKNOWN when it is not one of ours. */
enum palette_id palette_find(const char *name);
const char *palette_name(enum palette_id id);
/* All names, space separated (for --help and errors). */
extern const char palette_names[];

/* Background gradient for --bgcolors (NULL/"" = the palette's default):
 * returns false for an unknown value. */
bool palette_background(const char *bgcolors, enum palette_id pal, char top[8], char bottom[8]);

struct palette_rng {
	uint64_t state; /* for SEED_RANDOM */
};
void palette_rng_seed(struct palette_rng *r, uint64_t seed);

/* The colour of a frame name (annotation suffix included). */
struct rgb palette_color(enum palette_id pal, enum palette_seed seed, struct palette_rng *rng,
			 const char *name, size_t n);

/* Differential red (growth) / blue (reduction) / white. */
struct rgb palette_diff(double delta, double maxdelta);

/* Exposed for tests. */
double palette_perl_rand_first(uint32_t seed);
double palette_namehash(const uint32_t *cps, size_t n);

/* --cp: name -> colour map, loaded from and saved to a palette.map file
 * ("NAME->rgb(R,G,B)" per line, sorted by name on save). */
struct palette_map;
struct palette_map *palette_map_new(void);
/* Load `path` if it exists; returns 0, or -1 on a read error (printed).
 * Malformed lines are counted in *ignored. */
int palette_map_load(struct palette_map *m, const char *path, size_t *ignored);
/* Cached colour for name, or compute it with `fn` and remember it. */
bool palette_map_get(struct palette_map *m, const char *name, size_t n, struct rgb *c);
void palette_map_put(struct palette_map *m, const char *name, size_t n, struct rgb c);
int palette_map_save(struct palette_map *m, const char *path);
void palette_map_free(struct palette_map *m);

/* Whether a frame name is a runtime's own code as record names it (the
 * python palette's green): Python "qualname (file.py)", a Java method
 * ("void K.run"), HotSpot's "Interpreter", V8's "JS:...". */
bool palette_runtime_frame(const char *s, size_t n);

#endif
