#include "base/numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t pow10_u64[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };

/* |v| * 10^decimals rounded to an integer as printf rounds it (the exact
 * binary value, ties to even). False when |v| is not below 2^53 / 10^d
 * (then the caller lets snprintf do it). */
static bool scaled_round(double v, int decimals, uint64_t *out)
{
	double a = fabs(v);
	if (!(a < 9007199254740992.0 / (double)pow10_u64[decimals]))
		return false; /* also NaN */
	if (a == 0) {
		*out = 0;
		return true;
	}
	uint64_t bits;
	memcpy(&bits, &a, sizeof(bits));
	int exponent = (int)(bits >> 52 & 0x7ff);
	uint64_t mant = bits & ((1ull << 52) - 1);
	if (exponent)
		mant |= 1ull << 52;
	/* a = mant / 2^shift; a < 2^53 makes shift >= 0 */
	int shift = exponent ? 1075 - exponent : 1074;
	unsigned __int128 q = (unsigned __int128)mant * pow10_u64[decimals];
	if (shift == 0) {
		*out = (uint64_t)q; /* an integer already */
		return true;
	}
	if (shift > 127) {
		*out = 0; /* q < 2^74: far below one half */
		return true;
	}
	uint64_t r = (uint64_t)(q >> shift);
	unsigned __int128 rem = q & (((unsigned __int128)1 << shift) - 1);
	unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
	if (rem > half || (rem == half && (r & 1)))
		r++;
	*out = r;
	return true;
}

/* Decimal digits of v, right-aligned to end at *end (exclusive); returns
 * the first. At least `min` digits (zero-padded). */
static char *put_digits(char *end, uint64_t v, int min)
{
	char *p = end;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
		min--;
	} while (v || min > 0);
	return p;
}

size_t numfmt_u64(char *buf, uint64_t v)
{
	char tmp[24], *end = tmp + sizeof(tmp), *d = put_digits(end, v, 1);
	size_t n = (size_t)(end - d);
	memcpy(buf, d, n);
	return n;
}

size_t numfmt_fixed(char *buf, double v, int decimals)
{
	uint64_t r;
	if (decimals == 0 && !signbit(v) && v < 0x1p53 && v == (double)(uint64_t)v) {
		/* a whole number (counts): its digits */
		size_t n = numfmt_u64(buf, (uint64_t)v);
		buf[n] = '\0';
		return n;
	}
	if (decimals < 0 || decimals > NUMFMT_MAX_DECIMALS || !scaled_round(v, decimals, &r))
		return (size_t)snprintf(buf, NUMFMT_BUF, "%.*f", decimals, v);
	char tmp[32], *end = tmp + sizeof(tmp);
	uint64_t p = pow10_u64[decimals];
	char *s = end;
	if (decimals) {
		s = put_digits(end, r % p, decimals);
		*--s = '.';
	}
	s = put_digits(s, r / p, 1);
	if (signbit(v))
		*--s = '-';
	size_t n = (size_t)(end - s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return n;
}

double numfmt_round(double v, int decimals)
{
	uint64_t r;
	if (decimals < 0 || decimals > NUMFMT_MAX_DECIMALS || !scaled_round(v, decimals, &r)) {
		char b[NUMFMT_BUF];
		snprintf(b, sizeof(b), "%.*f", decimals, v);
		return strtod(b, NULL);
	}
	/* r < 2^53 is exact, so the division rounds once: strtod's result. */
	double d = (double)r / (double)pow10_u64[decimals];
	return signbit(v) ? -d : d;
}

size_t numfmt_g15(char *buf, double v)
{
	/* Fast path: multiples of 1/8 below 10^11 (pixel coordinates: whole
	 * and half pixels). Their decimal expansion is exact and has at most
	 * 14 significant digits, so %.15g prints it without an exponent and
	 * without trailing zeros. */
	double t = v * 8;
	if (!(fabs(v) < 1e11) || t != trunc(t) || (v == 0 && signbit(v)))
		return (size_t)snprintf(buf, NUMFMT_BUF, "%.15g", v);
	uint64_t n = (uint64_t)fabs(t);
	char tmp[32], *end = tmp + sizeof(tmp);
	char *s = end;
	unsigned frac = (unsigned)(n % 8) * 125; /* thousandths */
	if (frac) {
		int digits = 3;
		while (frac % 10 == 0) {
			frac /= 10;
			digits--;
		}
		s = put_digits(end, frac, digits);
		*--s = '.';
	}
	s = put_digits(s, n / 8, 1);
	if (v < 0)
		*--s = '-';
	size_t len = (size_t)(end - s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	return len;
}

size_t numfmt_grouped(char *buf, size_t cap, unsigned long long v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%llu", v);
	size_t k = 0;
	if (!cap)
		return 0;
	for (int i = 0; i < n && k + 2 < cap; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = 0;
	return k;
}
