/* Whole-number option values (-j, -F, -c, --max-stack, ...), read one way
 * by every command. */
#ifndef SCORCH_CMD_COUNT_ARG_H
#define SCORCH_CMD_COUNT_ARG_H

#include <stdbool.h>

/* Whether arg is a whole number in min..max (decimal, as strtol reads it:
 * leading blanks and a sign allowed, nothing after the digits); *v is it. */
bool count_arg(const char *arg, long min, long max, long *v);

#endif
