/* Folded stacks from a file descriptor, streamed in chunks so memory
 * follows the distinct stacks rather than the input size. A large regular
 * file is split in two at a line boundary and parsed by two threads into
 * separate profiles that are then merged (the machine's 2 cores; the
 * profile model is not shared between threads). */
#ifndef SCORCH_PROFILE_FOLDED_STREAM_H
#define SCORCH_PROFILE_FOLDED_STREAM_H

#include "profile/folded.h"

#include <stddef.h>

/* Parse all of fd into p. `head` holds the first `head_len` bytes already
 * read from fd (for detection); it is consumed (freed). threads <= 1 keeps
 * to one thread. Returns 0, or -1 after printing an error. */
int folded_read_fd(struct profile *p, int fd, const char *name, char *head, size_t head_len,
		   const struct folded_opts *opts, int threads);

#endif
