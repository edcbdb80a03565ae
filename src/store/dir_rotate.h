/* Rotation of the directory store: intervals older than --keep, and the
 * oldest intervals while the tree is over --max-size, are removed (their
 * files, their index lines, then a day's stack table with its last
 * interval, and empty day and host directories). The
 * sink keeps a running total and the oldest end time, so the tree is only
 * walked when something is due. One writer per tree: a second recorder
 * appending to an index while it is rewritten here could lose its line. */
#ifndef SCORCH_STORE_DIR_ROTATE_H
#define SCORCH_STORE_DIR_ROTATE_H

#include <stdint.h>

struct dir_rotate {
	const char *root;
	uint64_t keep_ns, max_bytes;
	uint64_t total_bytes, oldest_end_ns; /* of what the tree holds (UINT64_MAX: none) */
	uint64_t removed;                    /* intervals rotated away */
};

/* Walk root once for its size and oldest interval (when a bound is set). 0
 * or -1 (error printed). */
int dir_rotate_init(struct dir_rotate *r, const char *root, uint64_t keep_ns, uint64_t max_bytes);
/* An interval of size bytes ending at end_ns was added; rotate if due.
 * --keep removes what ended more than keep_ns before now_ns: the sink
 * passes the older of its own clock (the wall clock at its start,
 * advanced on the monotonic clock) and end_ns, so that a step of the wall
 * clock ages nothing (doc/fleet.md). */
int dir_rotate_added(struct dir_rotate *r, uint64_t size, uint64_t end_ns, uint64_t now_ns);

#endif
