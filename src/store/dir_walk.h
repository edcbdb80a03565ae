/* Walking the directory store: every index entry of every host and day
 * (dir_index.h), for the source's queries and the sink's rotation. */
#ifndef SCORCH_STORE_DIR_WALK_H
#define SCORCH_STORE_DIR_WALK_H

#include "store/dir_index.h"

/* Called for each entry; day_dir is "ROOT/HOST/DAY". Return non-zero to
 * stop the walk (dir_walk returns that value). */
typedef int (*dir_walk_fn)(void *ctx, const char *day_dir, const struct dir_entry *e);

/* Days outside [first_day, last_day] ("YYYY-MM-DD", NULL: no bound) are
 * not read. Unreadable parts are reported with their path and skipped;
 * returns 0, the callback's non-zero value, or -1 when root itself cannot
 * be read. */
int dir_walk(const char *root, const char *first_day, const char *last_day, dir_walk_fn fn, void *ctx);

/* Read a whole small file (an index) into a NUL-terminated buffer. NULL with
 * errno set. */
char *dir_read_file(const char *path, size_t *len);

#endif
