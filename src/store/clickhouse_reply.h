/* The replies to the ClickHouse source's stacks queries: rows of (host
 * String, frames Array(String) root first, count UInt64) in RowBinary, or
 * with time asked the counts per bucket and the frames apart.
 * Untrusted bytes, whoever wrote the rows: every length is checked. Apart
 * from libcurl, so that the fuzz target reaches it. */
#ifndef SCORCH_STORE_CLICKHOUSE_REPLY_H
#define SCORCH_STORE_CLICKHOUSE_REPLY_H

#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>

/* Add the rows to p (under a root per host when group_by_host). 0, or -1
 * with an error naming name and the byte offset. */
int ch_reply_stacks(const char *name, const char *data, size_t len, bool group_by_host, struct profile *p);

/* The replies of the query with time (the heat map): `cells`, rows of
 * (host String, bucket UInt64, stack UInt64, count UInt64), and `frames`,
 * rows of (hash UInt64, frames Array(String) root first). Each cell row's
 * count goes to its stack's leaf (under its host's root when grouping)
 * and into p's time table at its bucket (ns since the epoch). A stack the
 * frames reply lacks is left out, as the join of ch_reply_stacks's query
 * leaves it. 0, or -1 with an error naming name, the reply and the byte. */
int ch_reply_timed(const char *name, const char *cells, size_t cells_len, const char *frames, size_t frames_len,
		   bool group_by_host, struct profile *p);

#endif
