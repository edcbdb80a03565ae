/* Without libcurl: the server stores say so when named. */
#include "store/store.h"

#include "base/error.h"

static int no_sink(struct sink *s, const char *url, const struct sink_opts *o)
{
	(void)s;
	(void)o;
	return error("%s: this scorch was built without libcurl, which server stores need", url);
}

static int no_source(struct source *s, const char *url)
{
	(void)s;
	return error("%s: this scorch was built without libcurl, which server stores need", url);
}

static int no_put(struct sink *s, const struct profile *p, const struct store_meta *m)
{
	(void)s;
	(void)p;
	(void)m;
	return -1;
}

static void no_close(struct sink *s)
{
	(void)s;
}

static int no_query(struct source *s, const struct store_query *q, struct profile *p, struct store_found *f)
{
	(void)s;
	(void)q;
	(void)p;
	(void)f;
	return -1;
}

static void no_src_close(struct source *s)
{
	(void)s;
}

const struct sink_ops clickhouse_sink_ops = { "clickhouse", no_sink, no_put, no_close };
const struct sink_ops pyroscope_sink_ops = { "pyroscope", no_sink, no_put, no_close };
const struct source_ops clickhouse_source_ops = { "clickhouse", no_source, no_query, no_src_close };
