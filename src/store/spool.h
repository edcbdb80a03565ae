/* A bounded on-disk queue of intervals waiting for a server: one file per
 * interval in DIR (written to a temporary, then renamed, so a crash leaves
 * whole entries), named by when it was spooled so that the oldest goes
 * first. Past the bound the oldest entries are removed and counted. An
 * entry is the interval's request bodies, each a u64 length (LE) and its
 * bytes, after a magic line. Entries left by an earlier run are sent too. */
#ifndef SCORCH_STORE_SPOOL_H
#define SCORCH_STORE_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#define SPOOL_PARTS 2

struct spool {
	char *dir;
	uint64_t max_bytes;
	uint64_t bytes, entries; /* what waits now */
	uint64_t dropped;        /* removed past the bound */
	uint64_t seq;
};

struct spool_entry {
	char *data[SPOOL_PARTS];
	size_t len[SPOOL_PARTS];
	char *path;
};

/* Create dir if needed and count what waits there. 0 or -1 (error printed). */
int spool_open(struct spool *s, const char *dir, uint64_t max_bytes);
void spool_close(struct spool *s);
/* Add an entry (dropping the oldest past the bound). 0, or -1 when it
 * could not be written (error printed; the caller counts it lost). */
int spool_add(struct spool *s, const char *const data[SPOOL_PARTS], const size_t len[SPOOL_PARTS]);
/* The oldest entry: 1 and *e filled, 0 when none, -1 on a damaged entry
 * (reported and removed). */
int spool_oldest(struct spool *s, struct spool_entry *e);
/* The entry was sent: remove it. */
void spool_done(struct spool *s, struct spool_entry *e);
void spool_entry_release(struct spool_entry *e);

#endif
