/* Stores as inputs of merge and diff (cmd/load_store.h). */
#include "cmd/load_store.h"

#include "base/alloc.h"
#include "base/error.h"
#include "store/store.h"
#include "store/when.h"

#include <stdlib.h>
#include <string.h>

bool load_is_store(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return false;
	if (!strncmp(path, "clickhouse://", 13) || !strncmp(path, "file://", 7))
		return true;
	return store_is_source(path);
}

/* The units a store may say, as static strings (the query's copy goes
 * with its source). */
static const char *static_unit(const char *u)
{
	static const char *const known[] = { "ns", "us", "bytes", "objects", "cycles", "instructions", NULL };
	for (int i = 0; u && known[i]; i++)
		if (!strcmp(u, known[i]))
			return known[i];
	return "samples";
}

/* from=, to=, host=, label= (repeatable), group=host after the '?'. */
static int parse_query(char *q, const char *path, struct store_query *sq, const char ***labels, size_t *nr,
		       size_t *alloc)
{
	uint64_t now = when_now();
	for (char *kv; (kv = strsep(&q, "&"));) {
		if (!*kv)
			continue;
		char *eq = strchr(kv, '=');
		if (!eq)
			return error("%s: '%s' is not KEY=VALUE", path, kv);
		*eq = 0;
		const char *v = eq + 1;
		int bad = 0;
		if (!strcmp(kv, "from"))
			bad = when_time(v, now, &sq->from_ns);
		else if (!strcmp(kv, "to"))
			bad = when_time(v, now, &sq->to_ns);
		else if (!strcmp(kv, "host"))
			sq->host_pattern = v;
		else if (!strcmp(kv, "group") && !strcmp(v, "host"))
			sq->group_by_host = true;
		else if (!strcmp(kv, "label") && strchr(v, '=')) {
			VEC_GROW(*labels, *nr + 1, *alloc);
			(*labels)[(*nr)++] = v;
		} else
			return error("%s: unknown '%s' (from, to, host, label, group=host)", path, kv);
		if (bad)
			return error("%s: %s: not a time: '%s'", path, kv, v);
	}
	return 0;
}

int load_store(struct profile *p, const char *path, const char **unit)
{
	char *url = xstrdup(path), *q = strchr(url, '?');
	uint64_t now = when_now();
	struct store_query sq = { .from_ns = now - 3600ull * 1000000000ull, .to_ns = now };
	const char **labels = NULL;
	size_t nr = 0, alloc = 0;
	int ret = 0;
	if (q) {
		*q++ = 0;
		ret = parse_query(q, path, &sq, &labels, &nr, &alloc);
	}
	sq.labels = labels;
	sq.nr_labels = nr;
	if (!ret && sq.from_ns >= sq.to_ns)
		ret = error("%s: from must come before to", path);
	struct source *src = ret ? NULL : source_open(url);
	struct store_found found;
	if (!ret && !src)
		ret = -1;
	if (!ret)
		ret = source_query(src, &sq, p, &found);
	if (!ret && !found.intervals)
		warn("%s: no intervals in the range", path);
	if (!ret && unit)
		*unit = static_unit(found.unit);
	source_close(src);
	free(labels);
	free(url);
	return ret;
}
