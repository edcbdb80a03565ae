/* Whole-number option values (count_arg.h). */
#include "cmd/count_arg.h"

#include <errno.h>
#include <stdlib.h>

bool count_arg(const char *arg, long min, long max, long *v)
{
	char *end;
	errno = 0;
	long n = strtol(arg, &end, 10);
	if (end == arg || *end || errno || n < min || n > max)
		return false;
	*v = n;
	return true;
}
