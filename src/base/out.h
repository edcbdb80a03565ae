/* Buffered output with a sticky error. A file named by -o is only changed
 * when the run succeeds (out_commit); until then the output goes to a
 * temporary file, removed by out_abort or by a fatal signal (base/tempfile.h).
 * What out_open does with PATH:
 *  - symbolic links are followed: the file they lead to is written and the
 *    links stay links (a dangling link gets its target created);
 *  - a regular file is replaced atomically by a temporary written beside
 *    it and renamed over it, given the old file's mode, owner and group
 *    first (extended attributes and ACLs are not copied);
 *  - a regular file with several hard links, or whose owner cannot be kept
 *    (not root), or beside which no temporary can be created, is rewritten
 *    in place at commit from a temporary file: every link sees the new
 *    content, nothing is touched before commit, but the rewrite is not
 *    atomic;
 *  - anything else (character or block device, FIFO) is opened and
 *    written directly, never renamed over; a socket and a directory are
 *    errors.
 * Every message names PATH as given, never the temporary file. */
#ifndef SCORCH_BASE_OUT_H
#define SCORCH_BASE_OUT_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { OUT_BUF_SIZE = 256 * 1024 };

struct out {
	int fd;         /* -1 for a null sink */
	int err;        /* first errno seen, 0 if none */
	size_t n;
	char *path;     /* as the user gave it (for messages), NULL for stdout/null */
	char *target;   /* path with symbolic links followed: what is replaced */
	char *tmp_path; /* temporary file being written, NULL when writing directly */
	int tmp_slot;   /* its base/tempfile.h slot, or -1 */
	int rewrite_fd; /* the target kept open to be rewritten in place, or -1 */
	char *mem;      /* memory sink (out_open_mem), grows */
	size_t mem_len, mem_alloc;
	char buf[OUT_BUF_SIZE];
};

/* "-" or NULL means stdout. Returns NULL (error printed) if PATH cannot be
 * written. */
struct out *out_open(const char *path);
/* Whether out_open(path) would succeed, without creating or opening
 * anything that cannot be undone (a FIFO is not opened). 0 or -1 (error
 * printed). */
int out_check(const char *path);
struct out *out_open_null(void);
/* Collect output in memory; take it with out_mem_detach(). */
struct out *out_open_mem(void);
char *out_mem_detach(struct out *o, size_t *len);

void out_flush(struct out *o);
/* out_write when p[0..n) does not fit in the buffer's free space. */
void out_write_slow(struct out *o, const void *p, size_t n);

/* Inline: the writers make many small writes (a constant string's copy
 * is then a few moves). */
static inline void out_write(struct out *o, const void *p, size_t n)
{
	if (n <= OUT_BUF_SIZE - o->n) {
		memcpy(o->buf + o->n, p, n);
		o->n += n;
		return;
	}
	out_write_slow(o, p, n);
}

void out_printf(struct out *o, const char *fmt, ...) PRINTF_LIKE(2, 3);
void out_u64(struct out *o, uint64_t v);

static inline void out_putc(struct out *o, char c)
{
	if (o->n == OUT_BUF_SIZE)
		out_flush(o);
	o->buf[o->n++] = c;
}

static inline void out_puts(struct out *o, const char *s)
{
	out_write(o, s, strlen(s));
}

/* Flush, and for a file rename the temporary into place. Returns 0 or -1
 * (error printed). Frees o. */
int out_commit(struct out *o);
/* Discard: remove the temporary file, keep the old target. Frees o. */
void out_abort(struct out *o);

#endif
