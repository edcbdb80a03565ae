/* ClickHouse over HTTP: URL, credentials, statements, schema
 * (store/clickhouse_conn.h). The schema uses only what ClickHouse 18.16
 * (Debian's) and current releases share: MergeTree with a custom
 * partition key, ReplacingMergeTree, Array(String); no Map, TTL, CODEC,
 * DateTime64 or LowCardinality. */
#include "store/clickhouse_conn.h"

#include "base/alloc.h"
#include "base/error.h"
#include "store/dir_walk.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sql_add(struct sql *q, const char *text)
{
	size_t n = strlen(text);
	VEC_GROW(q->s, q->len + n + 1, q->alloc);
	memcpy(q->s + q->len, text, n + 1);
	q->len += n;
}

void sql_addf(struct sql *q, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sql_add(q, buf);
}

void sql_str(struct sql *q, const char *s, size_t n)
{
	VEC_GROW(q->s, q->len + 4 * n + 3, q->alloc);
	char *o = q->s + q->len;
	*o++ = '\'';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' || c == '\'') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += sprintf(o, "\\x%02X", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '\'';
	*o = 0;
	q->len = (size_t)(o - q->s);
}

char *sql_ident(const char *name)
{
	size_t n = strlen(name);
	char *out = xmalloc(2 * n + 3), *o = out;
	*o++ = '`';
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '`' || name[i] == '\\')
			*o++ = '\\';
		*o++ = name[i];
	}
	*o++ = '`';
	*o = 0;
	return out;
}

/* The first line of the file (malloc'd), or NULL with an error. */
static char *read_secret(const char *path)
{
	size_t len;
	char *s = dir_read_file(path, &len);
	if (!s) {
		error("%s: cannot read the ClickHouse password: %s", path, strerror(errno));
		return NULL;
	}
	s[strcspn(s, "\r\n")] = 0;
	return s;
}

/* An empty variable counts as unset. */
static const char *env2(const char *a, const char *b)
{
	const char *v = getenv(a);
	if (!v || !*v)
		v = getenv(b);
	return v && *v ? v : NULL;
}

static int credentials(struct ch_conn *c)
{
	const char *user = env2("SCORCH_CLICKHOUSE_USER", "CLICKHOUSE_USER");
	const char *pw = env2("SCORCH_CLICKHOUSE_PASSWORD", "CLICKHOUSE_PASSWORD");
	const char *pw_file = getenv("SCORCH_CLICKHOUSE_PASSWORD_FILE");
	char *secret = NULL;
	if (pw_file && !pw) {
		if (!(secret = read_secret(pw_file)))
			return -1;
		pw = secret;
	}
	if (!user || !*user)
		user = "default";
	if (strpbrk(user, "\r\n") || (pw && strpbrk(pw, "\r\n"))) {
		free(secret);
		return error("%s: the ClickHouse user or password holds a line break", c->url);
	}
	c->hdr_user = xmalloc(strlen(user) + 32);
	sprintf(c->hdr_user, "X-ClickHouse-User: %s", user);
	pw = pw ? pw : "";
	c->hdr_key = xmalloc(strlen(pw) + 32);
	sprintf(c->hdr_key, "X-ClickHouse-Key: %s", pw);
	free(secret);
	return 0;
}

int ch_open(struct ch_conn *c, const char *url)
{
	*c = (struct ch_conn){ 0 };
	c->url = xstrdup(url);
	const char *p = url + strlen("clickhouse://");
	size_t hostlen = strcspn(p, "/?#");
	const char *at = memchr(p, '@', hostlen);
	if (at) {
		error("%s: no user or password in the URL: they would show in the process list; use "
		      "SCORCH_CLICKHOUSE_USER and SCORCH_CLICKHOUSE_PASSWORD(_FILE)", url);
		goto fail;
	}
	if (!hostlen) {
		error("%s: no server named (clickhouse://HOST:PORT/DB)", url);
		goto fail;
	}
	char *hostport = xmemdup0(p, hostlen);
	const char *colon = strrchr(hostport, ':');
	bool bracket = hostport[0] == '[';
	bool has_port = colon && (!bracket || colon > strchr(hostport, ']'));
	c->base = xmalloc(hostlen + 32);
	sprintf(c->base, "http://%s%s/", hostport, has_port ? "" : ":8123");
	free(hostport);
	const char *db = p + hostlen;
	if (*db == '/')
		db++;
	size_t dblen = strcspn(db, "?#");
	c->db = dblen ? xmemdup0(db, dblen) : xstrdup("default");
	c->qdb = sql_ident(c->db);
	if (credentials(c))
		goto fail;
	if (!(c->http = http_new())) {
		error("%s: libcurl could not start", url);
		goto fail;
	}
	return 0;
fail:
	ch_close(c);
	return -1;
}

void ch_close(struct ch_conn *c)
{
	http_free(c->http);
	free(c->url);
	free(c->base);
	free(c->db);
	free(c->qdb);
	free(c->hdr_user);
	free(c->hdr_key);
	*c = (struct ch_conn){ 0 };
}

enum ch_result ch_exec(struct ch_conn *c, const char *sql, const void *body, size_t len, struct http_reply *r,
		       bool quiet_down)
{
	const char *hdrs[] = { c->hdr_user, c->hdr_key, NULL };
	char *url;
	if (body) {
		char *q = http_escape(sql, strlen(sql));
		url = xmalloc(strlen(c->base) + strlen(q) + 16);
		sprintf(url, "%s?query=%s", c->base, q);
		free(q);
	} else {
		url = xstrdup(c->base);
		body = sql;
		len = strlen(sql);
	}
	int sent = http_post(c->http, url, hdrs, body, len, r);
	free(url);
	if (sent) {
		if (!quiet_down)
			error("%s: server not reachable: %s", c->url, r->error);
		http_reply_release(r);
		return CH_DOWN;
	}
	if (r->status != 200) {
		char msg[400];
		http_printable(r->body, r->len, msg, 300);
		error("%s: the server refused (HTTP %ld): %s", c->url, r->status, msg);
		http_reply_release(r);
		return CH_ERROR;
	}
	return CH_OK;
}

/* The tables of doc/fleet.md. The stacks are sorted by their frames, so
 * that stacks which share their root end are stored side by side and
 * compress together (a stack's hash says what its frames are: the key
 * still names each stack once). Tables made before, ORDER BY hash, are
 * read and written alike. */
static const char *const schema[] = {
	"CREATE DATABASE IF NOT EXISTS %s",
	"CREATE TABLE IF NOT EXISTS %s.scorch_stacks (hash UInt64, frames Array(String)) "
	"ENGINE = ReplacingMergeTree() ORDER BY (frames, hash)",
	"CREATE TABLE IF NOT EXISTS %s.scorch_samples (day Date, host String, start_ns UInt64, end_ns UInt64, "
	"event String, rate UInt32, unit String, labels Array(String), stack UInt64, count UInt64) "
	"ENGINE = MergeTree() PARTITION BY toYYYYMM(day) ORDER BY (host, start_ns, stack)",
};

enum ch_result ch_ensure_schema(struct ch_conn *c, bool quiet_down)
{
	if (c->schema_ok)
		return CH_OK;
	for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
		char *sql = xmalloc(strlen(schema[i]) + strlen(c->qdb) + 1);
		sprintf(sql, schema[i], c->qdb);
		struct http_reply r;
		enum ch_result res = ch_exec(c, sql, NULL, 0, &r, quiet_down);
		free(sql);
		if (res)
			return res;
		http_reply_release(&r);
	}
	c->schema_ok = true;
	return CH_OK;
}
