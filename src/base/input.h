/* Whole-input loading: mmap for large regular files, read() otherwise, "-"
 * for stdin. gzip, xz and zstd input is decompressed by magic when scorch
 * was built with zlib, liblzma or libzstd. */
#ifndef SCORCH_BASE_INPUT_H
#define SCORCH_BASE_INPUT_H

#include <stdbool.h>
#include <stddef.h>

struct input {
	const char *data;
	size_t len;
	const char *name; /* path as given, or "<stdin>"; owned */
	void *map;        /* mmap base when mapped */
	size_t map_len;
	char *heap;       /* malloc'd buffer when read or decompressed */
};

/* Load path ("-" or NULL for stdin). Returns 0, or -1 with an error printed. */
int input_load(struct input *in, const char *path);
/* Borrow an existing buffer (for tests and fuzzing); release is a no-op on it. */
void input_from_memory(struct input *in, const char *name, const char *data, size_t len);
void input_release(struct input *in);

/* Append the rest of fd to *buf, which holds *len bytes in *alloc (grown
 * as needed; NULL and 0 to start empty). Returns 0 at end of input, or -1
 * with an error naming `name` (*buf stays the caller's to free). */
int input_read_rest(int fd, const char *name, char **buf, size_t *len, size_t *alloc);
/* The rest of fd in a new buffer (room for `expect` bytes first, 0 for a
 * small file), its length in *len; NULL when it cannot be read (the error
 * printed, naming `name`). fd stays the caller's to close. */
char *input_read_fd(int fd, const char *name, size_t expect, size_t *len);

/* Whether data starts with a gzip, xz or zstd magic. */
bool input_compressed(const char *data, size_t len);

/* Decompress a buffer that starts with a gzip, xz or zstd magic. Returns 1 if
 * it was compressed and *out and *out_len now hold the bytes (malloc'd), 0 if not
 * compressed, -1 on error (printed, naming `name`). */
int input_decompress(const char *name, const char *data, size_t len, char **out, size_t *out_len);

#endif
