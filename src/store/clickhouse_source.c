/* The ClickHouse source: a query's range summed by the server (GROUP BY
 * stack, and host when grouping), joined with the stacks table, read back
 * as RowBinary; with time asked, summed per time bucket too, the frames
 * read apart (once per stack, not once per bucket). Host names, labels and frames from the server are data,
 * whoever wrote the rows: they go into the profile as bytes, and every
 * writer escapes them for its format. */
#include "store/clickhouse_conn.h"
#include "store/clickhouse_reply.h"
#include "store/rowbinary.h"
#include "store/store.h"

#include "base/alloc.h"
#include "base/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ch_source {
	struct ch_conn c;
	char unit[64];
};

static int ch_src_open(struct source *s, const char *url)
{
	struct ch_source *k = xcalloc(1, sizeof(*k));
	if (ch_open(&k->c, url)) {
		free(k);
		return -1;
	}
	s->state = k;
	return 0;
}

/* The host pattern (* and ?) as an anchored RE2 expression for match(). */
static void host_regex(struct sql *q, const char *pat)
{
	struct sql re = { 0 };
	sql_add(&re, "^(?s)");
	for (const char *p = pat; *p; p++) {
		char one[3] = { *p, 0, 0 };
		if (*p == '*')
			sql_add(&re, ".*");
		else if (*p == '?')
			sql_add(&re, ".");
		else if (strchr("\\^$.|+()[]{}", *p)) {
			one[0] = '\\';
			one[1] = *p;
			sql_add(&re, one);
		} else
			sql_add(&re, one);
	}
	sql_add(&re, "$");
	sql_str(q, re.s, re.len);
	free(re.s);
}

/* WHERE ... of the range, hosts and labels. */
static void where(struct sql *q, const struct store_query *sq)
{
	sql_addf(q, " WHERE start_ns < %" PRIu64 " AND end_ns > %" PRIu64, sq->to_ns, sq->from_ns);
	if (sq->host_pattern) {
		sql_add(q, " AND match(host, ");
		host_regex(q, sq->host_pattern);
		sql_add(q, ")");
	}
	for (size_t i = 0; i < sq->nr_labels; i++) {
		sql_add(q, " AND has(labels, ");
		sql_str(q, sq->labels[i], strlen(sq->labels[i]));
		sql_add(q, ")");
	}
}

static char *stacks_sql(const struct ch_conn *c, const struct store_query *sq)
{
	struct sql q = { 0 };
	const char *by = sq->group_by_host ? "host, " : "";
	sql_addf(&q, "SELECT %s, frames, c FROM (SELECT %sstack, sum(count) AS c FROM ", sq->group_by_host ? "host" : "''",
		 by);
	sql_add(&q, c->qdb);
	sql_add(&q, ".scorch_samples");
	where(&q, sq);
	sql_addf(&q, " GROUP BY %sstack) ANY INNER JOIN (SELECT hash AS stack, any(frames) AS frames FROM ", by);
	sql_add(&q, c->qdb);
	sql_add(&q, ".scorch_stacks WHERE hash IN (SELECT stack FROM ");
	sql_add(&q, c->qdb);
	sql_add(&q, ".scorch_samples");
	where(&q, sq);
	sql_add(&q, ") GROUP BY hash) USING stack FORMAT RowBinary");
	return q.s;
}

/* With time: the counts per (host,) bucket and stack, summed in the
 * server (one row per bucket and stack, not per interval and host) ... */
static char *cells_sql(const struct ch_conn *c, const struct store_query *sq)
{
	struct sql q = { 0 };
	sql_addf(&q, "SELECT %s, intDiv(start_ns, %" PRIu64 ") * %" PRIu64 " AS t, stack, sum(count) FROM ",
		 sq->group_by_host ? "host" : "''", sq->time_bucket_ns, sq->time_bucket_ns);
	sql_add(&q, c->qdb);
	sql_add(&q, ".scorch_samples");
	where(&q, sq);
	sql_addf(&q, " GROUP BY %st, stack FORMAT RowBinary", sq->group_by_host ? "host, " : "");
	return q.s;
}

/* ... and each of their stacks' frames once, read after the counts (a
 * writer inserts a stack before the rows that name it). */
static char *frames_sql(const struct ch_conn *c, const struct store_query *sq)
{
	struct sql q = { 0 };
	sql_add(&q, "SELECT hash, any(frames) FROM ");
	sql_add(&q, c->qdb);
	sql_add(&q, ".scorch_stacks WHERE hash IN (SELECT stack FROM ");
	sql_add(&q, c->qdb);
	sql_add(&q, ".scorch_samples");
	where(&q, sq);
	sql_add(&q, ") GROUP BY hash FORMAT RowBinary");
	return q.s;
}

static int query_timed(struct ch_source *k, const struct store_query *sq, struct profile *p)
{
	struct http_reply cells, frames;
	char *sql = cells_sql(&k->c, sq);
	enum ch_result res = ch_exec(&k->c, sql, NULL, 0, &cells, false);
	free(sql);
	if (res)
		return -1;
	sql = frames_sql(&k->c, sq);
	res = ch_exec(&k->c, sql, NULL, 0, &frames, false);
	free(sql);
	if (res) {
		http_reply_release(&cells);
		return -1;
	}
	int ret = ch_reply_timed(k->c.url, cells.body, cells.len, frames.body, frames.len, sq->group_by_host, p);
	http_reply_release(&cells);
	http_reply_release(&frames);
	return ret;
}

static char *found_sql(const struct ch_conn *c, const struct store_query *sq)
{
	struct sql q = { 0 };
	sql_add(&q, "SELECT uniqExact(host, start_ns), any(unit) FROM ");
	sql_add(&q, c->qdb);
	sql_add(&q, ".scorch_samples");
	where(&q, sq);
	sql_add(&q, " FORMAT RowBinary");
	return q.s;
}

static int ch_src_query(struct source *s, const struct store_query *sq, struct profile *p,
			struct store_found *found)
{
	struct ch_source *k = s->state;
	struct http_reply r;
	char *sql = found_sql(&k->c, sq);
	enum ch_result res = ch_exec(&k->c, sql, NULL, 0, &r, false);
	free(sql);
	if (res)
		return -1;
	struct rb_reader in = { (const unsigned char *)r.body, (const unsigned char *)r.body + r.len, false };
	found->intervals = rb_read_u64(&in);
	size_t n;
	const char *unit = rb_read_str(&in, &n);
	if (!in.bad && n && n < sizeof(k->unit) && memcmp(unit, "samples", n) && !memchr(unit, 0, n)) {
		memcpy(k->unit, unit, n);
		k->unit[n] = 0;
		found->unit = k->unit;
	}
	bool bad = in.bad;
	http_reply_release(&r);
	if (bad)
		return error("%s: a malformed reply to the count of intervals", k->c.url);
	if (!found->intervals)
		return 0;
	if (sq->time_bucket_ns)
		return query_timed(k, sq, p);
	sql = stacks_sql(&k->c, sq);
	res = ch_exec(&k->c, sql, NULL, 0, &r, false);
	free(sql);
	if (res)
		return -1;
	int ret = ch_reply_stacks(k->c.url, r.body, r.len, sq->group_by_host, p);
	http_reply_release(&r);
	return ret;
}

static void ch_src_close(struct source *s)
{
	struct ch_source *k = s->state;
	ch_close(&k->c);
	free(k);
}

const struct source_ops clickhouse_source_ops = { "clickhouse", ch_src_open, ch_src_query, ch_src_close };
