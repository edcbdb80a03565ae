/* base/numfmt against the C library's own printf, on values chosen to hit
 * every rounding case: exact ties, just-off ties, powers of two near the
 * fast-path limits, signed zeros, non-finite values and random bit
 * patterns across the exponent range. */
#include "harness.h"

#include "base/numfmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Values worth formatting: edge cases first, then random ones. */
static size_t sample_values(double *v, size_t max)
{
	size_t n = 0;
	const double fixed[] = { 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.25, 0.35, 0.05, 0.125, 1e-300,
				 -1e-300, 4.9e-324, 1e300, -1e300, INFINITY, -INFINITY, NAN,
				 9007199254740992.0, 9007199254740991.0, 4503599627370495.5,
				 900719925474099.1, 90071992547409.95, 1e15, 1e11, 99999999999.875,
				 0.0001, 0.00001, 1234.5678, 1189.9999999, 2079.5, 10.049999999999999 };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) && n < max; i++)
		v[n++] = fixed[i];
	/* Dyadic ties: (2k+1) / 2^j is exactly halfway at j-1 decimals. */
	for (int j = 1; j <= 7; j++)
		for (int k = 0; k < 200 && n < max; k++)
			v[n++] = (2.0 * k + 1) / (double)(1 << j) * (k % 3 ? 1 : -1);
	/* Near-ties: the doubles around k + 0.05, k + 0.005. */
	for (int k = 0; k < 300 && n + 4 < max; k++) {
		double a = k + 0.05, b = k / 10.0 + 0.005;
		v[n++] = a;
		v[n++] = nextafter(a, 0);
		v[n++] = nextafter(b, INFINITY);
		v[n++] = b;
	}
	uint64_t s = 0x9e3779b97f4a7c15ull;
	while (n < max) {
		uint64_t r = next_random(&s);
		/* exponents from about 2^-40 to 2^60, both signs */
		uint64_t exp = 1023 - 40 + r % 100;
		uint64_t bits = (next_random(&s) & ((1ull << 52) - 1)) | exp << 52 | (r >> 63) << 63;
		double d;
		memcpy(&d, &bits, sizeof(d));
		/* and some short decimals, as coordinates usually are */
		if (r % 4 == 0)
			d = (double)(int64_t)(next_random(&s) % 2000000) / 10.0 - 100000;
		v[n++] = d;
	}
	return n;
}

enum { SAMPLES = 200000 };

/* numfmt_fixed is snprintf's "%.*f", and numfmt_round is strtod of that. */
TEST(numfmt_fixed_and_round_match_printf)
{
	double *v = malloc(SAMPLES * sizeof(*v));
	size_t n = sample_values(v, SAMPLES);
	int bad = 0;
	for (size_t i = 0; i < n && bad < 5; i++) {
		for (int d = 0; d <= NUMFMT_MAX_DECIMALS; d++) {
			char want[NUMFMT_BUF], got[NUMFMT_BUF];
			int wn = snprintf(want, sizeof(want), "%.*f", d, v[i]);
			size_t gn = numfmt_fixed(got, v[i], d);
			if ((size_t)wn != gn || strcmp(want, got)) {
				unit_fail(t_, __FILE__, __LINE__, "%%.%df of %a: want %s, got %s", d,
					  v[i], want, got);
				bad++;
			}
			if (isnan(v[i]))
				continue;
			double rw = strtod(want, NULL), rg = numfmt_round(v[i], d);
			if (memcmp(&rw, &rg, sizeof(rw))) {
				unit_fail(t_, __FILE__, __LINE__, "round(%a, %d): want %a, got %a", v[i],
					  d, rw, rg);
				bad++;
			}
		}
	}
	free(v);
}

TEST(numfmt_g15_matches_printf)
{
	double *v = malloc(SAMPLES * sizeof(*v));
	size_t n = sample_values(v, SAMPLES);
	int bad = 0;
	for (size_t i = 0; i < n + 4000 && bad < 5; i++) {
		/* then multiples of 1/8 (the fast path), positive and negative */
		double x = i < n ? v[i] : ((double)i - n - 2000) * 12345.125 / 8;
		char want[NUMFMT_BUF], got[NUMFMT_BUF];
		int wn = snprintf(want, sizeof(want), "%.15g", x);
		size_t gn = numfmt_g15(got, x);
		if ((size_t)wn != gn || strcmp(want, got)) {
			unit_fail(t_, __FILE__, __LINE__, "%%.15g of %a: want %s, got %s", x, want, got);
			bad++;
		}
	}
	free(v);
}

TEST(numfmt_u64_matches_printf)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	int bad = 0;
	for (int i = 0; i < 20000 && bad < 5; i++) {
		/* the edges, then random values of every length */
		uint64_t x = i == 0 ? 0 : i == 1 ? UINT64_MAX : i < 22 ? 1 + (uint64_t)(i - 2) * 9 : next_random(&s) >> (i % 64);
		char want[32], got[32];
		int wn = snprintf(want, sizeof(want), "%" PRIu64, x);
		size_t gn = numfmt_u64(got, x);
		if ((size_t)wn != gn || memcmp(want, got, gn)) {
			got[gn < sizeof(got) ? gn : 0] = '\0';
			unit_fail(t_, __FILE__, __LINE__, "%" PRIu64 ": want %s, got %s", x, want, got);
			bad++;
		}
	}
}
