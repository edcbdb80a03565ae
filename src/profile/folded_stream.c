#include "profile/folded_stream.h"

#include "base/alloc.h"
#include "base/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CHUNK = 8 << 20, PARALLEL_MIN = 1 << 20 };

struct stream {
	int fd;
	const char *name;
	bool seekable; /* pread from pos up to end */
	off_t pos, end;
	bool eof;
	char *buf;
	size_t have, cap;
};

/* Top the buffer up to its capacity (or EOF / the range end). */
static int stream_fill(struct stream *s)
{
	while (s->have < s->cap && !s->eof) {
		size_t want = s->cap - s->have;
		ssize_t r;
		if (s->seekable) {
			if (s->pos >= s->end) {
				s->eof = true;
				break;
			}
			if ((off_t)want > s->end - s->pos)
				want = (size_t)(s->end - s->pos);
			r = pread(s->fd, s->buf + s->have, want, s->pos);
		} else {
			r = read(s->fd, s->buf + s->have, want);
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return error("cannot read '%s': %s", s->name, strerror(errno));
		}
		if (r == 0)
			s->eof = true;
		s->have += (size_t)r;
		s->pos += r;
	}
	return 0;
}

/* Feed every line of the stream to r. */
static int stream_feed(struct stream *s, struct folded_reader *r)
{
	for (;;) {
		if (stream_fill(s))
			return -1;
		size_t upto = s->have;
		if (!s->eof) {
			const char *nl = memrchr(s->buf, '\n', s->have);
			if (!nl) {
				/* A line longer than the buffer: grow it. */
				s->cap *= 2;
				s->buf = xrealloc(s->buf, s->cap);
				continue;
			}
			upto = (size_t)(nl - s->buf) + 1;
		}
		int ret = folded_reader_feed(r, s->buf, upto);
		if (ret || s->eof)
			return ret;
		memmove(s->buf, s->buf + upto, s->have - upto);
		s->have -= upto;
	}
}

struct job {
	struct stream s;
	struct profile *p;
	struct folded_reader r;
	int ret;
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	j->ret = stream_feed(&j->s, &j->r);
	return NULL;
}

static struct stream range(int fd, const char *name, off_t from, off_t to)
{
	return (struct stream){ .fd = fd, .name = name, .seekable = true, .pos = from, .end = to,
				.buf = xmalloc(CHUNK), .cap = CHUNK };
}

/* The offset just after the first newline at or after `at` (or size). */
static off_t line_boundary(int fd, off_t at, off_t size)
{
	char b[4096];
	while (at < size) {
		ssize_t r = pread(fd, b, sizeof(b), at);
		if (r <= 0)
			return size;
		const char *nl = memchr(b, '\n', (size_t)r);
		if (nl)
			return at + (nl - b) + 1;
		at += r;
	}
	return size;
}

static int read_parallel(struct profile *p, int fd, const char *name, off_t start, off_t size,
			 const struct folded_opts *opts)
{
	off_t split = line_boundary(fd, start + (size - start) / 2, size);
	struct job a = { .s = range(fd, name, start, split), .p = p };
	struct profile pb;
	profile_init(&pb);
	pb.keep_events = p->keep_events;
	struct job b = { .s = range(fd, name, split, size), .p = &pb };
	folded_reader_init(&a.r, p, name, opts);
	/* The second half does not know its line numbers yet: it stays quiet
	 * and, if it met malformed lines, is scanned again below to report
	 * them with the right numbers. */
	struct folded_opts quiet = opts ? *opts : (struct folded_opts){ 0 };
	quiet.max_warnings = -1;
	folded_reader_init(&b.r, &pb, name, &quiet);
	pthread_t tid;
	bool threaded = pthread_create(&tid, NULL, job_run, &b) == 0;
	if (!threaded)
		job_run(&b);
	job_run(&a);
	if (threaded)
		pthread_join(tid, NULL);
	int ret = a.ret ? a.ret : b.ret;
	size_t b_ignored = b.r.stats.ignored;
	if (!ret && b_ignored) {
		struct profile scratch;
		profile_init(&scratch);
		struct folded_reader again;
		folded_reader_init(&again, &scratch, name, opts);
		again.lineno = a.r.lineno;
		again.stats.ignored = a.r.stats.ignored;
		struct stream s = range(fd, name, split, size);
		ret = stream_feed(&s, &again);
		free(s.buf);
		folded_reader_finish(&again, NULL);
		profile_release(&scratch);
		a.r.opts.max_warnings = -1; /* the rescan printed the summary */
	}
	folded_reader_finish(&a.r, NULL);
	folded_reader_finish(&b.r, NULL);
	if (!ret)
		profile_merge(p, &pb);
	profile_release(&pb);
	free(a.s.buf);
	free(b.s.buf);
	return ret;
}

int folded_read_fd(struct profile *p, int fd, const char *name, char *head, size_t head_len,
		   const struct folded_opts *opts, int threads)
{
	struct stat st;
	off_t cur = lseek(fd, 0, SEEK_CUR);
	if (threads > 1 && cur >= (off_t)head_len && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_size - cur >= PARALLEL_MIN) {
		free(head);
		return read_parallel(p, fd, name, cur - (off_t)head_len, st.st_size, opts);
	}
	struct stream s = { .fd = fd, .name = name, .buf = head, .have = head_len,
			    .cap = head_len > CHUNK ? head_len : CHUNK };
	s.buf = xrealloc(s.buf, s.cap);
	struct folded_reader r;
	folded_reader_init(&r, p, name, opts);
	int ret = stream_feed(&s, &r);
	folded_reader_finish(&r, NULL);
	free(s.buf);
	return ret;
}
