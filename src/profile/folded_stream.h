/* Folded stacks from a file descriptor, streamed in chunks so memory
 * follows the distinct stacks rather than the input size. With 2 threads a
 * reader thread scans the next chunk (lines, counts, hashes) while the
 * caller applies the previous one to the profile. */
#ifndef SCORCH_PROFILE_FOLDED_STREAM_H
#define SCORCH_PROFILE_FOLDED_STREAM_H

#include "profile/folded.h"

#include <stddef.h>

/* Parse all of fd into p. `head` holds the first `head_len` bytes already
 * read from fd (for detection); it is consumed (freed). threads <= 1 keeps
 * to one thread. Works on pipes. Returns 0, or -1 after printing an error. */
int folded_read_fd(struct profile *p, int fd, const char *name, char *head, size_t head_len,
		   const struct folded_opts *opts, int threads);

/* The same for a whole file mapped in memory (no copy): data[0..len) must
 * be a page-aligned private file mapping, whose pages are released
 * (MADV_DONTNEED) as they are parsed. */
int folded_read_mapped(struct profile *p, const char *name, const char *data, size_t len,
		       const struct folded_opts *opts);

#endif
