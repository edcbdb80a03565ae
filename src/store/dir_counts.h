/* The directory store's interval file: an interval's counts by the
 * numbers of its stacks in the day's stack table (store/dir_table.h).
 *
 *   DIR/HOST/YYYY-MM-DD/START-END.zst
 *
 * One zstd frame whose bytes are "SCCOUNT1", LEB(n), then n pairs
 * LEB(stack - previous stack) LEB(count): stacks in increasing order
 * (the first pair's previous stack is 0, so every difference is at least
 * 1), counts whole and above 0. What is read is untrusted: anything else
 * is an error naming the file and offset. */
#ifndef SCORCH_STORE_DIR_COUNTS_H
#define SCORCH_STORE_DIR_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define DIR_COUNTS_MAGIC "SCCOUNT1"
#define DIR_COUNTS_SUFFIX ".zst"

struct dir_count {
	uint32_t stack;
	uint64_t count;
};

/* The file's bytes for n counts (sorted here; malloc'd, *len bytes), NULL
 * after an error. */
char *dir_counts_encode(struct dir_count *c, size_t n, size_t *len);

/* Parse the decompressed bytes of path: the counts in *c (malloc'd, *n of
 * them), each stack below nr_stacks. 0, or -1 with an error. */
int dir_counts_decode(const char *path, const char *data, size_t len, uint32_t nr_stacks, struct dir_count **c,
		      size_t *n);

struct dir_table;
struct profile;
/* The counts of an interval file's decompressed bytes (path's) into p,
 * named by t, a reader's table (store/dir_source.c). 0, or -1 with an
 * error. */
int dir_counts_add(struct profile *p, const struct dir_table *t, const char *path, const char *data, size_t len);

#endif
