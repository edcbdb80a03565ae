/* Debug files by build-id from debuginfod servers, through elfutils'
 * libdebuginfod (loaded with dlopen: scorch runs without it), as perf and
 * gdb ask them: the servers of DEBUGINFOD_URLS, the library's cache
 * (DEBUGINFOD_CACHE_PATH, default ~/.cache/debuginfod_client, which also
 * remembers misses), its DEBUGINFOD_TIMEOUT and other variables.
 *
 * Never a hang: each query is also cut at a deadline (DEBUGINFOD_TIMEOUT
 * seconds when set, else DEBUGINFO_DEFAULT_TIMEOUT) through the library's
 * progress callback, and the first query that fails for another reason
 * than "not there" (server down, slow, unreachable) turns the client off
 * for the rest of the run with one notice: a dead server costs its time
 * once. Safe to call from several threads (one query at a time). */
#ifndef SCORCH_SYMBOLIZE_DEBUGINFOD_CLIENT_H
#define SCORCH_SYMBOLIZE_DEBUGINFOD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

enum { DEBUGINFO_DEFAULT_TIMEOUT = 10 };

struct debuginfo_client;

/* NULL when there is nothing to ask: DEBUGINFOD_URLS unset or empty, or
 * libdebuginfod.so.1 not installed. notices: say on stderr when the
 * servers fail. */
struct debuginfo_client *debuginfo_client_new(bool notices);
void debuginfo_client_free(struct debuginfo_client *c);

/* The path of the debug file (in the cache) of the build-id given in hex,
 * malloc'd, or NULL (not found, or the client is off). for_path names the
 * binary in the notice. */
char *debuginfo_client_find(struct debuginfo_client *c, const char *build_id_hex, const char *for_path);

#endif
