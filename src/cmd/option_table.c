/* getopt_long tables joined (option_table.h). */
#include "cmd/option_table.h"

#include "base/alloc.h"

#include <stdbool.h>
#include <string.h>

static bool listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

struct option *option_table_join(const struct option *own, const struct option *shared,
				 const char *const *skip)
{
	size_t n_own = 0, n_shared = 0;
	while (own[n_own].name)
		n_own++;
	while (shared[n_shared].name)
		n_shared++;
	struct option *t = xreallocarray(NULL, n_own + n_shared + 1, sizeof(*t));
	size_t n = 0;
	for (size_t i = 0; i < n_own; i++)
		t[n++] = own[i];
	for (size_t i = 0; i < n_shared; i++)
		if (!listed(skip, shared[i].name))
			t[n++] = shared[i];
	t[n] = (struct option){ NULL, 0, NULL, 0 };
	return t;
}
