#include "base/input.h"

#include "base/alloc.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

enum { MMAP_THRESHOLD = 64 * 1024 };

void input_from_memory(struct input *in, const char *name, const char *data, size_t len)
{
	memset(in, 0, sizeof(*in));
	in->name = xstrdup(name ? name : "<memory>");
	in->data = data;
	in->len = len;
}

void input_release(struct input *in)
{
	if (in->map)
		munmap(in->map, in->map_len);
	free(in->heap);
	free((char *)in->name);
	memset(in, 0, sizeof(*in));
}

char *input_read_fd(int fd, const char *name, size_t expect, size_t *len)
{
	char *buf = expect ? xmalloc(expect) : NULL;
	size_t alloc = expect;
	*len = 0;
	if (input_read_rest(fd, name, &buf, len, &alloc)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int input_read_rest(int fd, const char *name, char **buf, size_t *len, size_t *alloc)
{
	for (;;) {
		if (*len == *alloc) {
			*alloc = *alloc ? *alloc * 2 : 1 << 16;
			*buf = xrealloc(*buf, *alloc);
		}
		ssize_t r = read(fd, *buf + *len, *alloc - *len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return error("cannot read '%s': %s", name, strerror(errno));
		}
		if (r == 0)
			return 0;
		*len += (size_t)r;
	}
}

static bool has_prefix(const char *data, size_t len, const char *magic, size_t n)
{
	return len >= n && !memcmp(data, magic, n);
}

#define GZIP_MAGIC "\x1f\x8b", 2
#define XZ_MAGIC "\xfd" "7zXZ\0", 6
#define ZSTD_MAGIC "\x28\xb5\x2f\xfd", 4

bool input_compressed(const char *data, size_t len)
{
	return has_prefix(data, len, GZIP_MAGIC) || has_prefix(data, len, XZ_MAGIC) ||
	       has_prefix(data, len, ZSTD_MAGIC);
}

#ifdef HAVE_ZLIB
static int gunzip(const char *name, const char *data, size_t len, char **out, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return error("'%s': cannot start gzip decoder", name);
	size_t alloc = len * 4 + 4096, n = 0;
	char *b = xmalloc(alloc);
	const unsigned char *src = (const unsigned char *)data;
	size_t left = len;
	int ret;
	for (;;) {
		if (n == alloc) {
			alloc *= 2;
			b = xrealloc(b, alloc);
		}
		unsigned in_chunk = left > UINT32_MAX ? UINT32_MAX : (unsigned)left;
		z.next_in = (unsigned char *)src;
		z.avail_in = in_chunk;
		size_t room = alloc - n;
		z.next_out = (unsigned char *)b + n;
		z.avail_out = room > UINT32_MAX ? UINT32_MAX : (unsigned)room;
		unsigned out_before = z.avail_out;
		ret = inflate(&z, Z_NO_FLUSH);
		src += in_chunk - z.avail_in;
		left -= in_chunk - z.avail_in;
		n += out_before - z.avail_out;
		if (ret == Z_STREAM_END) {
			/* Concatenated gzip members are valid gzip. */
			if (left >= 2 && src[0] == 0x1f && src[1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			break;
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			inflateEnd(&z);
			free(b);
			return error("'%s': corrupt gzip data near compressed byte %zu", name, len - left);
		}
		if (ret == Z_BUF_ERROR && left == 0) {
			inflateEnd(&z);
			free(b);
			return error("'%s': truncated gzip data", name);
		}
	}
	inflateEnd(&z);
	*out = b;
	*out_len = n;
	return 1;
}
#endif

#ifdef HAVE_LZMA
static int unxz(const char *name, const char *data, size_t len, char **out, size_t *out_len)
{
	lzma_stream z = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return error("'%s': cannot start xz decoder", name);
	size_t alloc = len * 6 + 4096, n = 0;
	char *b = xmalloc(alloc);
	z.next_in = (const uint8_t *)data;
	z.avail_in = len;
	for (;;) {
		if (n == alloc) {
			alloc *= 2;
			b = xrealloc(b, alloc);
		}
		z.next_out = (uint8_t *)b + n;
		z.avail_out = alloc - n;
		size_t before = z.avail_out;
		lzma_ret r = lzma_code(&z, z.avail_in ? LZMA_RUN : LZMA_FINISH);
		n += before - z.avail_out;
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			lzma_end(&z);
			free(b);
			return error("'%s': corrupt or truncated xz data near compressed byte %zu", name,
				     len - z.avail_in);
		}
	}
	lzma_end(&z);
	*out = b;
	*out_len = n;
	return 1;
}
#endif

#ifdef HAVE_ZSTD
static int unzstd(const char *name, const char *data, size_t len, char **out, size_t *out_len)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	if (!z)
		return error("'%s': cannot start zstd decoder", name);
	size_t alloc = len * 6 + 4096, n = 0;
	char *b = xmalloc(alloc);
	ZSTD_inBuffer src = { data, len, 0 };
	size_t last = 1;
	while (src.pos < src.size) {
		if (n == alloc) {
			alloc *= 2;
			b = xrealloc(b, alloc);
		}
		ZSTD_outBuffer dst = { b + n, alloc - n, 0 };
		last = ZSTD_decompressStream(z, &dst, &src);
		n += dst.pos;
		if (ZSTD_isError(last)) {
			ZSTD_freeDStream(z);
			free(b);
			return error("'%s': corrupt zstd data near compressed byte %zu: %s", name, src.pos,
				     ZSTD_getErrorName(last));
		}
		if (dst.pos == 0 && src.pos == src.size)
			break;
	}
	/* Flush whatever the decoder still holds. */
	while (last != 0) {
		if (n == alloc) {
			alloc *= 2;
			b = xrealloc(b, alloc);
		}
		ZSTD_outBuffer dst = { b + n, alloc - n, 0 };
		last = ZSTD_decompressStream(z, &dst, &src);
		if (ZSTD_isError(last) || dst.pos == 0)
			break;
		n += dst.pos;
	}
	ZSTD_freeDStream(z);
	if (last != 0) {
		free(b);
		return error("'%s': truncated zstd data", name);
	}
	*out = b;
	*out_len = n;
	return 1;
}
#endif

int input_decompress(const char *name, const char *data, size_t len, char **out, size_t *out_len)
{
	(void)out; /* unused when built without any of the libraries */
	(void)out_len;
	if (has_prefix(data, len, GZIP_MAGIC)) {
#ifdef HAVE_ZLIB
		return gunzip(name, data, len, out, out_len);
#else
		return error("'%s' is gzip-compressed but scorch was built without zlib "
			     "(install zlib1g-dev and rebuild)", name);
#endif
	}
	if (has_prefix(data, len, XZ_MAGIC)) {
#ifdef HAVE_LZMA
		return unxz(name, data, len, out, out_len);
#else
		return error("'%s' is xz-compressed but scorch was built without liblzma "
			     "(install liblzma-dev and rebuild)", name);
#endif
	}
	if (has_prefix(data, len, ZSTD_MAGIC)) {
#ifdef HAVE_ZSTD
		return unzstd(name, data, len, out, out_len);
#else
		return error("'%s' is zstd-compressed but scorch was built without libzstd "
			     "(install libzstd-dev and rebuild)", name);
#endif
	}
	return 0;
}

int input_load(struct input *in, const char *path)
{
	memset(in, 0, sizeof(*in));
	bool is_stdin = !path || !strcmp(path, "-");
	in->name = xstrdup(is_stdin ? "<stdin>" : path);
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error("cannot open '%s': %s", path, strerror(errno));
		input_release(in);
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		error("'%s' is a directory", in->name);
		if (!is_stdin)
			close(fd);
		input_release(in);
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= MMAP_THRESHOLD) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			in->map = m;
			in->map_len = (size_t)st.st_size;
			in->data = m;
			in->len = (size_t)st.st_size;
		}
	}
	if (!in->data) {
		if (!(in->heap = input_read_fd(fd, in->name, 0, &in->len))) {
			if (!is_stdin)
				close(fd);
			input_release(in);
			return -1;
		}
		in->data = in->heap;
	}
	if (!is_stdin)
		close(fd);

	char *plain;
	size_t plain_len;
	int z = input_decompress(in->name, in->data, in->len, &plain, &plain_len);
	if (z < 0) {
		input_release(in);
		return -1;
	}
	if (z > 0) {
		if (in->map) {
			munmap(in->map, in->map_len);
			in->map = NULL;
		}
		free(in->heap);
		in->heap = plain;
		in->data = plain;
		in->len = plain_len;
	}
	return 0;
}
