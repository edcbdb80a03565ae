/* Buffered output with a sticky error. out_open_file() writes to a temporary
 * file beside the target and out_commit() renames it into place, so a failed
 * run never truncates what the user already had. */
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
	char *path;     /* final path, NULL for stdout/null */
	char *tmp_path; /* temporary file being written */
	char *mem;      /* memory sink (out_open_mem), grows */
	size_t mem_len, mem_alloc;
	char buf[OUT_BUF_SIZE];
};

/* "-" or NULL means stdout. Returns NULL (error printed) if the temporary
 * file cannot be created. */
struct out *out_open(const char *path);
struct out *out_open_null(void);
/* Collect output in memory; take it with out_mem_detach(). */
struct out *out_open_mem(void);
char *out_mem_detach(struct out *o, size_t *len);

void out_flush(struct out *o);
void out_write(struct out *o, const void *p, size_t n);
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
