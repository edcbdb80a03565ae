/* A store as an input of merge and diff: SOURCE[?from=T&to=T&host=P&label=K=V&group=host],
 * SOURCE a directory store (a path, or file://DIR when a query follows) or
 * clickhouse://HOST:PORT/DB; the range as `scorch query` takes it (default
 * the last hour). */
#ifndef SCORCH_CMD_LOAD_STORE_H
#define SCORCH_CMD_LOAD_STORE_H

#include "profile/profile.h"

#include <stdbool.h>

/* Whether path names a store (a URL scorch queries, or a directory). */
bool load_is_store(const char *path);
/* Its range's stacks into p; *unit (when not NULL) what they count (a
 * static string). 0, or -1 after an error naming it. */
int load_store(struct profile *p, const char *path, const char **unit);

#endif
