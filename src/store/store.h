/* Profile stores for a fleet: where `record --every` and `store put` send
 * one profile per interval (sinks), and where `query` reads them back
 * (sources). A store is named by a URL:
 *
 *   DIR or file://DIR          a directory tree (store/dir_*.c), the default
 *   clickhouse://HOST:PORT/DB  ClickHouse over HTTP (store/clickhouse*.c)
 *   pyroscope://HOST:PORT      Pyroscope's /ingest (store/pyroscope.c; sink only)
 *
 * Every interval carries its metadata (struct store_meta). Times are
 * nanoseconds since the Unix epoch, UTC (the project's one representation
 * of absolute time). */
#ifndef SCORCH_STORE_STORE_H
#define SCORCH_STORE_STORE_H

#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one interval is: who, when, what was counted. Labels are "k=v". */
struct store_meta {
	const char *host;
	uint64_t start_ns, end_ns;
	const char *event;       /* "cpu-clock", "cycles", ... ("" unknown) */
	uint32_t rate_hz;        /* sampling frequency, 0 unknown */
	const char *unit;        /* what the counts are (render/pprof.h), NULL samples */
	const char *const *labels;
	size_t nr_labels;
};

/* What became of the intervals put into a sink, for the summary and the
 * exit status: sent (written), spooled (waiting on disk for a server),
 * dropped (past the spool's bound, or unwritable), failed puts. */
struct sink_stats {
	uint64_t sent, spooled, dropped, failed;
};

/* Sink options that are not part of the URL. */
struct sink_opts {
	uint64_t keep_ns;        /* directory: remove intervals older than this (0: keep all) */
	uint64_t max_bytes;      /* directory: keep the tree under this size (0: no bound) */
	uint64_t spool_bytes;    /* servers: bound of the on-disk spool (0: the default) */
	const char *spool_dir;   /* servers: where the spool lives (NULL: the default) */
};

struct sink;
struct sink_ops {
	const char *scheme; /* "dir", "clickhouse", "pyroscope" */
	/* Set s->state. 0, or -1 with an error naming the URL. */
	int (*open)(struct sink *s, const char *url, const struct sink_opts *o);
	/* Store one interval's profile (column 0 counts). 0 when stored or
	 * kept (spooled) for later, -1 with an error printed when it was
	 * lost. */
	int (*put)(struct sink *s, const struct profile *p, const struct store_meta *m);
	/* Last chance to send what waits; frees the state. */
	void (*close)(struct sink *s);
};

struct sink {
	const struct sink_ops *ops;
	void *state;
	char *url;
	struct sink_stats stats;
};

/* Open the sink a URL names. NULL after an error naming it. */
struct sink *sink_open(const char *url, const struct sink_opts *o);
int sink_put(struct sink *s, const struct profile *p, const struct store_meta *m);
/* Close, print "URL: N sent, N spooled, N dropped" to stderr when anything
 * was not simply sent (or verbose), and return what happened (stats). */
struct sink_stats sink_close(struct sink *s, bool verbose);

/* ---- Sources: reading a range back ---------------------------------- */

struct store_query {
	uint64_t from_ns, to_ns;      /* an interval counts when it overlaps [from, to) */
	const char *host_pattern;     /* shell-style: * and ? (NULL: every host) */
	const char *const *labels;    /* every one of these "k=v" (AND) */
	size_t nr_labels;
	bool group_by_host;           /* a root frame per host */
	/* Time (the HTML heat map): 0, none; else p keeps it (profile.time,
	 * ns since the epoch), each interval's counts at the start of the
	 * bucket its start falls in, floor(start / bucket) * bucket (a
	 * multiple of 20 ms: the stores keep no time finer than an interval,
	 * and a coarser bucket bounds what a long range reads back). */
	uint64_t time_bucket_ns;
};

/* What a query found, besides the stacks. */
struct store_found {
	uint64_t intervals;       /* intervals (host, start) summed */
	const char *unit;         /* what the counts are (static string), NULL samples */
};

struct source;
struct source_ops {
	const char *scheme;
	int (*open)(struct source *s, const char *url);
	/* Add the stacks of q's intervals to p (column 0; under a root per
	 * host when asked). 0, or -1 with an error printed. */
	int (*query)(struct source *s, const struct store_query *q, struct profile *p,
		     struct store_found *found);
	void (*close)(struct source *s);
};

struct source {
	const struct source_ops *ops;
	void *state;
	char *url;
};

/* Whether arg names a store rather than a file (a URL scheme scorch
 * knows, or a directory holding a store). */
bool store_is_source(const char *arg);
struct source *source_open(const char *url);
int source_query(struct source *s, const struct store_query *q, struct profile *p, struct store_found *found);
void source_close(struct source *s);

/* One interval file of a directory store read by itself (merge, diff,
 * flamegraph of DIR/HOST/DAY/START-END.zst): data, its decompressed
 * bytes (starting "SCCOUNT1"), counted into p with the names of the stack
 * table beside path. 0, or -1 with an error. */
int store_dir_interval(struct profile *p, const char *path, const char *data, size_t len);

/* The sink and source tables (store/dir_*.c, clickhouse*.c, pyroscope.c). */
extern const struct sink_ops dir_sink_ops, clickhouse_sink_ops, pyroscope_sink_ops;
extern const struct source_ops dir_source_ops, clickhouse_source_ops;

/* Shell-style host match: '*' any run, '?' one byte, everything else itself. */
bool store_host_match(const char *pattern, const char *host);

#endif
