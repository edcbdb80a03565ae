/* Sinks and sources by URL scheme; the summary of a sink. */
#include "store/store.h"

#include "base/alloc.h"
#include "base/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool has_scheme(const char *url, const char *scheme)
{
	size_t n = strlen(scheme);
	return !strncmp(url, scheme, n) && !strncmp(url + n, "://", 3);
}

static const struct sink_ops *sink_for(const char *url)
{
	if (has_scheme(url, "clickhouse"))
		return &clickhouse_sink_ops;
	if (has_scheme(url, "pyroscope"))
		return &pyroscope_sink_ops;
	if (strstr(url, "://") && !has_scheme(url, "file"))
		return NULL;
	return &dir_sink_ops;
}

struct sink *sink_open(const char *url, const struct sink_opts *o)
{
	const struct sink_ops *ops = sink_for(url);
	if (!ops) {
		error("%s: not a store scorch knows (a directory, clickhouse://HOST:PORT/DB or "
		      "pyroscope://HOST:PORT)", url);
		return NULL;
	}
	struct sink *s = xcalloc(1, sizeof(*s));
	s->ops = ops;
	s->url = xstrdup(url);
	if (ops->open(s, url, o)) {
		free(s->url);
		free(s);
		return NULL;
	}
	return s;
}

int sink_put(struct sink *s, const struct profile *p, const struct store_meta *m)
{
	int ret = s->ops->put(s, p, m);
	if (ret)
		s->stats.failed++;
	return ret;
}

struct sink_stats sink_close(struct sink *s, bool verbose)
{
	s->ops->close(s);
	struct sink_stats st = s->stats;
	if (verbose || st.spooled || st.dropped || st.failed)
		fprintf(stderr,
			"scorch: %s: %" PRIu64 " intervals sent, %" PRIu64 " left in the spool, %" PRIu64
			" dropped, %" PRIu64 " failed\n",
			s->url, st.sent, st.spooled, st.dropped, st.failed);
	free(s->url);
	free(s);
	return st;
}

bool store_is_source(const char *arg)
{
	if (has_scheme(arg, "clickhouse") || has_scheme(arg, "file"))
		return true;
	struct stat st;
	return stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
}

struct source *source_open(const char *url)
{
	const struct source_ops *ops = NULL;
	if (has_scheme(url, "clickhouse"))
		ops = &clickhouse_source_ops;
	else if (!strstr(url, "://") || has_scheme(url, "file"))
		ops = &dir_source_ops;
	if (!ops) {
		error("%s: not a store scorch can query (a directory or clickhouse://HOST:PORT/DB)", url);
		return NULL;
	}
	struct source *s = xcalloc(1, sizeof(*s));
	s->ops = ops;
	s->url = xstrdup(url);
	if (ops->open(s, url)) {
		free(s->url);
		free(s);
		return NULL;
	}
	return s;
}

int source_query(struct source *s, const struct store_query *q, struct profile *p, struct store_found *found)
{
	*found = (struct store_found){ 0 };
	return s->ops->query(s, q, p, found);
}

void source_close(struct source *s)
{
	if (!s)
		return;
	s->ops->close(s);
	free(s->url);
	free(s);
}
