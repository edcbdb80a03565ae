/* Unit tests for profile/time_ranges: perf report --time's spellings,
 * resolved against a recording from 1000.5 s to 1010.5 s (perf clock),
 * and the refusals. Expected bounds are worked out by hand from perf's
 * documentation (man perf-report, --time). */
#include "harness.h"

#include "profile/time_ranges.h"

#include <string.h>

#define S 1000000000ull
#define FIRST (1000 * S + S / 2)
#define LAST (1010 * S + S / 2)

static int parse_resolve(struct time_ranges *t, const char *spec)
{
	char err[200];
	if (time_ranges_parse(t, spec, err, sizeof(err)))
		return -1;
	return time_ranges_resolve(t, FIRST, LAST, err, sizeof(err)) ? -2 : 0;
}

TEST(time_ranges_seconds)
{
	uint64_t ns;
	CHECK(time_parse_seconds("12.5", 4, &ns) && ns == 12 * S + S / 2);
	CHECK(time_parse_seconds("7", 1, &ns) && ns == 7 * S);
	CHECK(time_parse_seconds("1.000000001", 11, &ns) && ns == S + 1);
	CHECK(!time_parse_seconds("1.0000000001", 12, &ns)); /* below a nanosecond */
	CHECK(!time_parse_seconds("", 0, &ns));
	CHECK(!time_parse_seconds("-1", 2, &ns));
	CHECK(!time_parse_seconds("1e3", 3, &ns));
	CHECK(!time_parse_seconds(".5", 2, &ns));
}

TEST(time_ranges_absolute_relative_open)
{
	struct time_ranges t;
	REQUIRE(parse_resolve(&t, "1002.25,1003") == 0);
	CHECK(t.n == 1 && t.r[0].start == 1002 * S + S / 4 && t.r[0].end == 1003 * S);
	REQUIRE(parse_resolve(&t, "2,3.5") == 0); /* below half the first sample's: relative */
	CHECK(t.r[0].start == FIRST + 2 * S && t.r[0].end == FIRST + 3 * S + S / 2);
	REQUIRE(parse_resolve(&t, "1000.25,1001") == 0); /* just before the first: perf's time */
	CHECK(t.r[0].start == 1000 * S + S / 4 && t.r[0].end == 1001 * S);
	REQUIRE(parse_resolve(&t, "2,3.5") == 0);
	CHECK(t.r[0].start == FIRST + 2 * S && t.r[0].end == FIRST + 3 * S + S / 2);
	REQUIRE(parse_resolve(&t, ",1001") == 0);
	CHECK(t.r[0].start == FIRST && t.r[0].end == 1001 * S);
	REQUIRE(parse_resolve(&t, "1009,") == 0);
	CHECK(t.r[0].start == 1009 * S && t.r[0].end == LAST);
	REQUIRE(parse_resolve(&t, "1,2 3,4") == 0); /* perf: ranges by spaces */
	CHECK(t.n == 2 && t.r[1].start == FIRST + 3 * S);
	REQUIRE(parse_resolve(&t, "1,2,3,4") == 0); /* also by commas */
	CHECK(t.n == 2 && t.r[1].end == FIRST + 4 * S);
	CHECK(time_ranges_keep(&t, FIRST + 3 * S)); /* ends included */
	CHECK(time_ranges_keep(&t, FIRST + 2 * S));
	CHECK(!time_ranges_keep(&t, FIRST + 2 * S + 1));
	CHECK(!time_ranges_keep(&t, FIRST));
}

TEST(time_ranges_percent)
{
	struct time_ranges t;
	REQUIRE(parse_resolve(&t, "10%/2") == 0); /* the second tenth */
	CHECK(t.r[0].start == FIRST + 1 * S && t.r[0].end == FIRST + 2 * S);
	REQUIRE(parse_resolve(&t, "0%-10%,30%-40%") == 0);
	CHECK(t.n == 2 && t.r[0].start == FIRST && t.r[0].end == FIRST + S);
	CHECK(t.r[1].start == FIRST + 3 * S && t.r[1].end == FIRST + 4 * S);
	REQUIRE(parse_resolve(&t, "10%/1,10%/2") == 0);
	CHECK(t.n == 2 && t.r[1].start == FIRST + S);
	REQUIRE(parse_resolve(&t, "25.5%-50%") == 0);
	CHECK(t.r[0].start == FIRST + 2 * S + 550000000ull);
}

TEST(time_ranges_refused)
{
	struct time_ranges t;
	CHECK(parse_resolve(&t, "") == -1);
	CHECK(parse_resolve(&t, "abc") == -1);
	CHECK(parse_resolve(&t, "5") == -1);       /* no END */
	CHECK(parse_resolve(&t, "5,3") == -1);     /* ends before it starts */
	CHECK(parse_resolve(&t, "1,2,3") == -1);   /* a range without its END */
	CHECK(parse_resolve(&t, "1,2,") == -1);
	CHECK(parse_resolve(&t, "10%/0") == -1);
	CHECK(parse_resolve(&t, "10%/11") == -1);  /* past 100% */
	CHECK(parse_resolve(&t, "50%-10%") == -1);
	CHECK(parse_resolve(&t, "150%-160%") == -1);
	CHECK(parse_resolve(&t, "10%") == -1);
	CHECK(parse_resolve(&t, "20,30") == -2);   /* relative, after the end */
	CHECK(parse_resolve(&t, "2000,2001") == -2); /* absolute, after the end */
	CHECK(parse_resolve(&t, "1003,1001.5") == -1);
	CHECK(parse_resolve(&t, "1002,1") == -1);  /* refused as written: 1 < 1002 */
	CHECK(parse_resolve(&t, "1,1000.6") == -2); /* relative 1 (1001.5) after 1000.6 */
	char err[200];
	CHECK(time_ranges_parse(&t, "5,3", err, sizeof(err)) == -1 && strstr(err, "ends before"));
}

/* The source maps its clock to the epoch (perf record -k's CLOCK_DATA):
 * the recording 1000.5-1010.5 s of its clock is epoch 1.7e9 + that. */
TEST(time_ranges_epoch)
{
	const int64_t off = 1700000000ll * (int64_t)S;
	struct time_ranges t;
	char err[320];
	REQUIRE(time_ranges_parse(&t, "1700001002.25,1700001003", err, sizeof(err)) == 0);
	time_ranges_set_epoch(&t, off);
	REQUIRE(time_ranges_resolve(&t, FIRST, LAST, err, sizeof(err)) == 0);
	CHECK(t.r[0].start == 1002 * S + S / 4 && t.r[0].end == 1003 * S);
	/* perf's own and relative times still mean what they did */
	REQUIRE(time_ranges_parse(&t, "1002.25,1003 2,3", err, sizeof(err)) == 0);
	time_ranges_set_epoch(&t, off);
	REQUIRE(time_ranges_resolve(&t, FIRST, LAST, err, sizeof(err)) == 0);
	CHECK(t.r[0].start == 1002 * S + S / 4 && t.r[1].start == FIRST + 2 * S);
	/* outside: the message gives the recording's UTC span
	   (1700001000.5 is 2023-11-14 22:30:00.5 UTC) */
	REQUIRE(time_ranges_parse(&t, "1700009000,1700009001", err, sizeof(err)) == 0);
	time_ranges_set_epoch(&t, off);
	CHECK(time_ranges_resolve(&t, FIRST, LAST, err, sizeof(err)) == -1);
	CHECK(strstr(err, "UTC 2023-11-14 22:30:00.500 to 2023-11-14 22:30:10.500") != NULL);
	/* a clock that is the epoch's (-k CLOCK_REALTIME): offset about 0 */
	REQUIRE(time_ranges_parse(&t, "1002.25,1003", err, sizeof(err)) == 0);
	time_ranges_set_epoch(&t, 0);
	REQUIRE(time_ranges_resolve(&t, FIRST, LAST, err, sizeof(err)) == 0);
	CHECK(t.r[0].start == 1002 * S + S / 4);
}
