/* --time on the command line (cmd/time_arg.h). */
#include "cmd/time_arg.h"

#include "base/alloc.h"
#include "cmd/usage.h"

struct time_ranges *time_arg_parse(const char *cmd, const char *arg)
{
	struct time_ranges *t = xmalloc(sizeof(*t));
	char why[200];
	if (time_ranges_parse(t, arg, why, sizeof(why)))
		usage_error(cmd, "--time %s: %s", arg, why);
	return t;
}

void time_arg_resolve(const char *cmd, struct time_ranges *t, uint64_t first, uint64_t last)
{
	char why[320];
	if (time_ranges_resolve(t, first, last, why, sizeof(why)))
		usage_error(cmd, "--time %s: %s", t->text, why);
}

void time_arg_check(const char *cmd, const struct time_ranges *t)
{
	if (t && t->bad)
		usage_error(cmd, "--time %s: %s", t->text, t->why);
}
