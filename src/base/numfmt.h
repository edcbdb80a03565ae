/* printf's "%.Nf" and "%.15g" without printf: the SVG writer formats about
 * ten numbers per frame, and glibc's exact multi-precision path made that
 * half of the run time on mid-sized inputs. Same bytes as glibc's printf in
 * the default rounding mode (exact binary value, ties to even); values
 * outside the fast range are handed to snprintf. */
#ifndef SCORCH_BASE_NUMFMT_H
#define SCORCH_BASE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Enough for "%.*f" of any double with up to NUMFMT_MAX_DECIMALS. */
enum { NUMFMT_BUF = 512, NUMFMT_MAX_DECIMALS = 6 };

/* snprintf(buf, NUMFMT_BUF, "%.*f", decimals, v); decimals 0..6. Returns
 * the length. */
size_t numfmt_fixed(char *buf, double v, int decimals);

/* strtod of what numfmt_fixed writes: v rounded to `decimals` places, as
 * the nearest double. */
double numfmt_round(double v, int decimals);

/* snprintf(buf, NUMFMT_BUF, "%.15g", v): Perl's stringification of a
 * number. Returns the length. */
size_t numfmt_g15(char *buf, double v);

/* v's decimal digits at buf (no NUL): at most 20. Returns the length. */
size_t numfmt_u64(char *buf, uint64_t v);

/* "1,234,567": a count grouped by thousands, as the graphs' tooltips print
 * it. Returns the length (cut to cap - 1). */
size_t numfmt_grouped(char *buf, size_t cap, unsigned long long v);

#endif
