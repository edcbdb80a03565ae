#include "profile/folded_stream.h"

#include "base/alloc.h"
#include "base/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CHUNK = 1 << 20 }; /* a read buffer that stays in the caches */

struct stream {
	int fd;
	const char *name;
	bool eof;
	char *buf;
	size_t have, cap;
};

/* Top the buffer up to its capacity (or EOF). */
static int stream_fill(struct stream *s)
{
	while (s->have < s->cap && !s->eof) {
		ssize_t r = read(s->fd, s->buf + s->have, s->cap - s->have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return error("cannot read '%s': %s", s->name, strerror(errno));
		}
		if (r == 0)
			s->eof = true;
		s->have += (size_t)r;
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

/* --threads=2: a pipeline. A reader thread reads pieces of whole lines and
 * scans them (line splitting, counts, warnings with line
 * numbers) while this thread applies the previous piece to the profile
 * (cache lookups, trie). Two pieces alternate; order is preserved, so the
 * result, the messages and flame-chart events are those of one thread. */
struct piece {
	char *buf;
	size_t have, cap;
	size_t upto; /* bytes of whole lines */
	struct folded_lines lines;
	bool ready, last;
};

struct pipeline {
	int fd;
	const char *name;
	struct folded_reader *r;
	struct piece piece[2];
	char *carry; /* partial line left after a piece */
	size_t carry_len, carry_cap;
	int ret;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static int read_more(struct pipeline *pl, struct piece *pc, bool *eof)
{
	while (pc->have < pc->cap) {
		ssize_t n = read(pl->fd, pc->buf + pc->have, pc->cap - pc->have);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return error("cannot read '%s': %s", pl->name, strerror(errno));
		}
		if (n == 0) {
			*eof = true;
			break;
		}
		pc->have += (size_t)n;
	}
	return 0;
}

static void *producer(void *arg)
{
	struct pipeline *pl = arg;
	bool eof = false;
	for (int k = 0;; k ^= 1) {
		struct piece *pc = &pl->piece[k];
		pthread_mutex_lock(&pl->mu);
		while (pc->ready)
			pthread_cond_wait(&pl->cv, &pl->mu);
		pthread_mutex_unlock(&pl->mu);
		if (pc->cap < pl->carry_len * 2) {
			pc->cap = pl->carry_len * 2;
			pc->buf = xrealloc(pc->buf, pc->cap);
		}
		memcpy(pc->buf, pl->carry, pl->carry_len);
		pc->have = pl->carry_len;
		int ret = 0;
		for (;;) {
			if (!eof)
				ret = read_more(pl, pc, &eof);
			if (ret || eof) {
				pc->upto = pc->have;
				break;
			}
			const char *nl = memrchr(pc->buf, '\n', pc->have);
			if (nl) {
				pc->upto = (size_t)(nl - pc->buf) + 1;
				break;
			}
			pc->cap *= 2; /* a line longer than the piece */
			pc->buf = xrealloc(pc->buf, pc->cap);
		}
		pl->carry_len = pc->have - pc->upto;
		VEC_GROW(pl->carry, pl->carry_len, pl->carry_cap);
		memcpy(pl->carry, pc->buf + pc->upto, pl->carry_len);
		pc->lines.nr = 0;
		pc->lines.differential = false;
		if (!ret)
			ret = folded_reader_scan(pl->r, pc->buf, pc->upto, &pc->lines);
		pthread_mutex_lock(&pl->mu);
		if (ret)
			pl->ret = ret;
		pc->last = eof || ret;
		pc->ready = true;
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
		if (pc->last)
			return NULL;
	}
}

static int read_pipelined(int fd, const char *name, char *head, size_t head_len,
			  struct folded_reader *r)
{
	struct pipeline pl = { .fd = fd, .name = name, .r = r, .carry = head,
			       .carry_len = head_len, .carry_cap = head_len };
	for (int k = 0; k < 2; k++) {
		pl.piece[k].cap = CHUNK;
		pl.piece[k].buf = xmalloc(CHUNK);
	}
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pthread_t tid;
	if (pthread_create(&tid, NULL, producer, &pl)) {
		/* No thread: the caller reads in this one (head untouched). */
		for (int k = 0; k < 2; k++)
			free(pl.piece[k].buf);
		pthread_mutex_destroy(&pl.mu);
		pthread_cond_destroy(&pl.cv);
		return -2; /* caller falls back to one thread */
	}
	int applied = 0;
	for (int k = 0;; k ^= 1) {
		struct piece *pc = &pl.piece[k];
		pthread_mutex_lock(&pl.mu);
		while (!pc->ready)
			pthread_cond_wait(&pl.cv, &pl.mu);
		pthread_mutex_unlock(&pl.mu);
		if (!applied)
			applied = folded_reader_apply(r, &pc->lines); /* after an error, drain */
		bool last = pc->last;
		pthread_mutex_lock(&pl.mu);
		pc->ready = false;
		pthread_cond_broadcast(&pl.cv);
		pthread_mutex_unlock(&pl.mu);
		if (last)
			break;
	}
	pthread_join(tid, NULL);
	for (int k = 0; k < 2; k++) {
		free(pl.piece[k].buf);
		free(pl.piece[k].lines.v);
	}
	free(pl.carry);
	pthread_mutex_destroy(&pl.mu);
	pthread_cond_destroy(&pl.cv);
	return applied ? applied : pl.ret;
}

int folded_read_fd(struct profile *p, int fd, const char *name, char *head, size_t head_len,
		   const struct folded_opts *opts, int threads)
{
	struct folded_reader r;
	folded_reader_init(&r, p, name, opts);
	int ret = -2;
	if (threads > 1)
		ret = read_pipelined(fd, name, head, head_len, &r);
	if (ret == -2) {
		struct stream s = { .fd = fd, .name = name, .buf = head, .have = head_len,
				    .cap = head_len > CHUNK ? head_len : CHUNK };
		s.buf = xrealloc(s.buf, s.cap);
		ret = stream_feed(&s, &r);
		free(s.buf);
	}
	folded_reader_finish(&r, NULL);
	return ret;
}

int folded_read_mapped(struct profile *p, const char *name, const char *data, size_t len,
		       const struct folded_opts *opts)
{
	/* Windows of whole lines; the pages of each are released once fed
	 * (the reader keeps what it needs), so the resident memory stays
	 * that of the profile. */
	enum { WINDOW = 8 << 20 };
	long page = sysconf(_SC_PAGESIZE);
	struct folded_reader r;
	folded_reader_init(&r, p, name, opts);
	size_t at = 0, dropped = 0;
	int ret = 0;
	while (at < len && !ret) {
		size_t upto = len;
		if (len - at > WINDOW) {
			const char *nl = memrchr(data + at, '\n', WINDOW);
			if (!nl)
				nl = memchr(data + at + WINDOW, '\n', len - at - WINDOW);
			if (nl)
				upto = (size_t)(nl - data) + 1;
		}
		ret = folded_reader_feed(&r, data + at, upto - at);
		at = upto;
		size_t drop = page > 0 ? at / (size_t)page * (size_t)page : 0;
		if (drop > dropped) {
			madvise((char *)(uintptr_t)data + dropped, drop - dropped, MADV_DONTNEED);
			dropped = drop;
		}
	}
	folded_reader_finish(&r, NULL);
	return ret;
}
