/* --time START,END: which samples a command keeps, spelt as perf report's
 * --time is, resolved against the recording's first and last sample.
 *
 * A spec is ranges separated by spaces or commas:
 *   START,END        seconds (perf's "seconds.nanoseconds"); either side
 *                    may be empty (from the start, to the end). A time
 *                    below half the first sample's timestamp is seconds
 *                    since that sample; others are perf's own timestamps
 *                    (from boot, as perf script prints them), or, when
 *                    the source maps its clock to the epoch
 *                    (time_ranges_set_epoch), seconds since the epoch
 *                    when above half the first sample's epoch time;
 *   A%/N             the N-th slice of A% of the recording (10%/2: the
 *                    second tenth);
 *   A%-B%            from A% to B% of the recording.
 * Several ranges keep a sample in any of them; ends are included, as in
 * perf. Times are nanoseconds of the source's clock (time_cells.h). */
#ifndef SCORCH_PROFILE_TIME_RANGES_H
#define SCORCH_PROFILE_TIME_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIME_RANGES_MAX 16

enum time_bound_kind {
	TIME_OPEN,    /* no bound: the recording's start or end */
	TIME_SECONDS, /* ns: absolute, or since the first sample (resolve decides) */
	TIME_PERCENT, /* of the recording, in millionths */
};

struct time_bound {
	enum time_bound_kind kind;
	uint64_t value;
};

struct time_range {
	uint64_t start, end; /* inclusive */
};

struct time_ranges {
	const char *text; /* the spec as given, for messages */
	size_t n;
	struct time_bound from[TIME_RANGES_MAX], to[TIME_RANGES_MAX];
	bool resolved;
	bool epoch_known;     /* epoch ns = source ns + epoch_offset */
	int64_t epoch_offset;
	bool bad;        /* a reader could not resolve it: why says why */
	char why[200];
	struct time_range r[TIME_RANGES_MAX];
};

/* Parse text into t. Returns 0, or -1 with why in err. */
int time_ranges_parse(struct time_ranges *t, const char *text, char *err, size_t errlen);

/* The source's clock maps to the epoch (epoch ns = source ns + offset):
 * absolute times may then be given as seconds since the epoch too. */
void time_ranges_set_epoch(struct time_ranges *t, int64_t offset);

/* Resolve the bounds against the recording's first and last sample (source
 * clock ns). Returns 0, or -1 with why in err (an end before its start, a
 * range outside the recording). */
int time_ranges_resolve(struct time_ranges *t, uint64_t first, uint64_t last, char *err, size_t errlen);

static inline bool time_ranges_keep(const struct time_ranges *t, uint64_t when)
{
	for (size_t i = 0; i < t->n; i++)
		if (when >= t->r[i].start && when <= t->r[i].end)
			return true;
	return false;
}

/* perf's "seconds.fraction" timestamp at s[0..n) as ns; false when it is
 * not one (digits, an optional '.' and up to 9 more digits). */
bool time_parse_seconds(const char *s, size_t n, uint64_t *ns);

#endif
