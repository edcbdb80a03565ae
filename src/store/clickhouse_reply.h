/* The reply to the ClickHouse source's stacks query: rows of (host
 * String, frames Array(String) root first, count UInt64) in RowBinary.
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

#endif
