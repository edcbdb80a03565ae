/* The directory store's stack table: every frame name and every stack of
 * one host's day, written once, to which that day's interval files refer
 * by number (store/dir_counts.h), so that an interval costs its counts,
 * not its names again.
 *
 *   DIR/HOST/YYYY-MM-DD/stacks.zst
 *
 * The file is a sequence of zstd frames, one appended (with one write) by
 * each put that met something new; the frames' decompressed bytes, read in
 * order, are the records. Each frame is compressed against the last
 * DIR_TABLE_WINDOW bytes of the records before it (zstd's "prefix", a
 * dictionary that is the history: new stacks repeat the names and shapes
 * of older ones), so a frame is read after those before it (`zstd -d`
 * alone does not read the file), and says its decompressed size:
 *
 *   "SCSTACK1"                      once, at the start of the first frame
 *   0x01 LEB(len) BYTES             a name: the next name number (0, 1, ...)
 *   0x02 LEB(id - parent) LEB(name) a stack: the next stack number (1, 2, ...),
 *                                   its parent stack (0: the root) followed
 *                                   by the frame of that name
 *
 * (LEB: unsigned LEB128.) A stack's parent is numbered before it, so a
 * stack is its chain of parents, root first. A record never spans frames.
 * What is read is untrusted: a number out of range or a frame that does
 * not decompress is an error naming the file and offset (a line break or
 * NUL in a name is read as '?');
 * a last frame cut short (a writer that died mid-write) is ignored by
 * readers and cut off by the next writer. The same stack may appear twice
 * (two writers, or a writer that forgot the numbers to bound its memory):
 * both numbers name the same stack. */
#ifndef SCORCH_STORE_DIR_TABLE_H
#define SCORCH_STORE_DIR_TABLE_H

#include "base/hashmap.h"
#include "base/strpool.h"
#include "store/rowbinary.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIR_TABLE_NAME "stacks.zst"
#define DIR_TABLE_MAGIC "SCSTACK1"
#define DIR_TABLE_WINDOW (1u << 20)
#define DIR_TABLE_WINDOW_LOG 21          /* zstd's window: the history and a frame */
#define DIR_TABLE_FRAME_MAX (256u << 20) /* a frame's records, at most */

struct dir_table {
	/* A reader keeps names and stacks by number; a writer only what it
	 * needs to find a name's or a stack's number. */
	bool writer;
	struct strpool pool;  /* names' bytes */
	uint32_t nr_names, nr_stacks; /* stacks including the root, 0 */
	/* reader: name number -> id in pool; stack -> parent, name number */
	uint32_t *name_sym, names_alloc;
	uint32_t *parent, *name, stacks_alloc;
	/* writer: pool id -> name number, (parent, name) -> stack */
	uint32_t *number_of_sym;
	uint32_t number_of_sym_alloc;
	struct hashmap stack_of;
	/* bytes of the file read so far (whole frames), and what waits to
	 * be appended */
	uint64_t file_len;
	struct rb_buf pending;
	struct rb_buf history; /* the records read or written, the last DIR_TABLE_WINDOW at least */
};

void dir_table_init(struct dir_table *t, bool writer);
void dir_table_release(struct dir_table *t);
/* A writer forgets what it found (to bound its memory): what it meets
 * next gets new numbers, as the same stack twice may. */
void dir_table_forget(struct dir_table *t);
/* The bytes a writer holds to find numbers: its map of stacks, its names
 * and their numbers. */
size_t dir_table_writer_bytes(const struct dir_table *t);

/* Parse the file's bytes [t->file_len, len) of data (the whole file's
 * bytes) into t. A cut-short last frame stops the reading (t->file_len
 * stays before it). 0, or -1 with an error naming path and offset. */
int dir_table_read(struct dir_table *t, const char *path, const char *data, size_t len);

/* The number of a writer's name, or of stack (parent, name), added to
 * pending when new. */
uint32_t dir_table_name(struct dir_table *t, const char *s, size_t n);
uint32_t dir_table_stack(struct dir_table *t, uint32_t parent, uint32_t name);

/* The name of stack id (1 <= id < nr_stacks). */
static inline const char *dir_table_frame(const struct dir_table *t, uint32_t id, uint32_t *len)
{
	uint32_t sym = t->name_sym[t->name[id]];
	*len = strpool_len(&t->pool, sym);
	return strpool_str(&t->pool, sym);
}

/* The pending records as one zstd frame (malloc'd, *len bytes), NULL when
 * nothing is pending; pending is then empty and file_len counts it. */
char *dir_table_take_frame(struct dir_table *t, size_t *len);

#endif
