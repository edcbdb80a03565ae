/* A ClickHouse server over its HTTP interface: the URL
 * clickhouse://HOST[:PORT][/DB] (port 8123, database "default" when not
 * given), credentials from the environment or a file (never the command
 * line or the URL), statements sent with their names quoted and their
 * strings escaped, and the schema created on first contact.
 *
 * Credentials: SCORCH_CLICKHOUSE_USER (else CLICKHOUSE_USER, else
 * "default"), SCORCH_CLICKHOUSE_PASSWORD (else CLICKHOUSE_PASSWORD), or the
 * first line of the file SCORCH_CLICKHOUSE_PASSWORD_FILE names. They go in
 * the X-ClickHouse-User and X-ClickHouse-Key headers. */
#ifndef SCORCH_STORE_CLICKHOUSE_CONN_H
#define SCORCH_STORE_CLICKHOUSE_CONN_H

#include "store/http.h"

#include <stdbool.h>
#include <stddef.h>

struct ch_conn {
	char *url;        /* as given, for messages */
	char *base;       /* http://HOST:PORT/ */
	char *db;         /* database name (unquoted) */
	char *qdb;        /* the same quoted as an identifier: `db` */
	char *hdr_user, *hdr_key; /* "X-ClickHouse-User: ...", "X-ClickHouse-Key: ..." */
	struct http *http;
	bool schema_ok;   /* the tables exist (created or checked) */
};

/* Parse url, read the credentials. 0, or -1 with an error naming url. */
int ch_open(struct ch_conn *c, const char *url);
void ch_close(struct ch_conn *c);

/* Results of ch_exec. */
enum ch_result {
	CH_OK = 0,
	CH_DOWN = -1,   /* no reply: unreachable, refused, timed out */
	CH_ERROR = -2,  /* the server replied with an error (printed) */
};

/* Run sql; with body (INSERT ... FORMAT RowBinary), sql goes in the URL's
 * query parameter and body is the data, else sql is the body. The reply
 * in *r (release with http_reply_release) when CH_OK. CH_DOWN and
 * CH_ERROR print a message unless quiet (CH_DOWN only). */
enum ch_result ch_exec(struct ch_conn *c, const char *sql, const void *body, size_t len, struct http_reply *r,
		       bool quiet_down);
/* The database and tables, IF NOT EXISTS (doc/fleet.md lists them). */
enum ch_result ch_ensure_schema(struct ch_conn *c, bool quiet_down);

/* SQL text building: a string literal '...' with \ and ' escaped (and
 * control bytes as \xHH) appended to a growing buffer; an identifier in
 * backquotes. */
struct sql {
	char *s;
	size_t len, alloc;
};
void sql_add(struct sql *q, const char *text);
void sql_addf(struct sql *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sql_str(struct sql *q, const char *s, size_t n);
char *sql_ident(const char *name);

#endif
