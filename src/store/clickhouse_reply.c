/* Reading the stacks query's RowBinary reply (store/clickhouse_reply.h). */
#include "store/clickhouse_reply.h"
#include "store/rowbinary.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "profile/time_cells.h"

#include <stdlib.h>
#include <string.h>

/* A name from the server into p: a line break or NUL would end a folded
 * line early, so those bytes become '?' (every other byte is kept, and
 * each writer escapes it for its format). */
static node_t push_name(struct profile *p, node_t at, const char *s, size_t n, char **buf, size_t *alloc)
{
	if (memchr(s, '\n', n) || memchr(s, '\r', n) || memchr(s, 0, n)) {
		VEC_GROW(*buf, n, *alloc);
		for (size_t i = 0; i < n; i++)
			(*buf)[i] = s[i] == '\n' || s[i] == '\r' || !s[i] ? '?' : s[i];
		s = *buf;
	}
	return profile_push_str(p, at, s, n);
}

/* The rows (host, frames, count) into p. */
int ch_reply_stacks(const char *name, const char *data, size_t len, bool group_by_host, struct profile *p)
{
	struct rb_reader in = { (const unsigned char *)data, (const unsigned char *)data + len, false };
	char *buf = NULL;
	size_t alloc = 0;
	while (in.p < in.end && !in.bad) {
		size_t n;
		const char *host = rb_read_str(&in, &n);
		node_t at = group_by_host && !in.bad ? push_name(p, PROFILE_ROOT, host, n, &buf, &alloc) : PROFILE_ROOT;
		uint64_t depth = rb_read_leb(&in);
		for (uint64_t d = 0; d < depth && !in.bad; d++) {
			const char *f = rb_read_str(&in, &n);
			if (!in.bad)
				at = push_name(p, at, f, n, &buf, &alloc);
		}
		uint64_t c = rb_read_u64(&in);
		if (!in.bad && at != PROFILE_ROOT && c)
			profile_count_whole(p, at, c);
	}
	free(buf);
	if (in.bad)
		return error("%s: a malformed reply at byte %zu of %zu", name,
			     (size_t)(in.p - (const unsigned char *)data), len);
	return 0;
}


/* Each stack's frames in the frames reply: hash -> offset of its array. */
static int index_frames(const char *name, const char *data, size_t len, struct hashmap *at)
{
	struct rb_reader in = { (const unsigned char *)data, (const unsigned char *)data + len, false };
	while (in.p < in.end && !in.bad) {
		uint64_t hash = rb_read_u64(&in);
		size_t off = (size_t)(in.p - (const unsigned char *)data);
		uint64_t depth = rb_read_leb(&in);
		for (uint64_t d = 0; d < depth && !in.bad; d++) {
			size_t n;
			rb_read_str(&in, &n);
		}
		if (!in.bad && off < UINT32_MAX) {
			bool inserted;
			hashmap_upsert(at, hash, (uint32_t)off, &inserted);
		}
	}
	if (in.bad)
		return error("%s: a malformed reply (the stacks' frames) at byte %zu of %zu", name,
			     (size_t)(in.p - (const unsigned char *)data), len);
	return 0;
}

/* The leaves already built, per host's root. */
struct host_leaves {
	node_t host;
	struct hashmap leaf; /* stack hash -> leaf */
};

struct timed {
	struct profile *p;
	const char *frames;
	size_t frames_len;
	struct hashmap frames_at;
	struct hashmap host_index; /* host root -> index in hosts */
	struct host_leaves *hosts;
	size_t nr_hosts, hosts_alloc;
	char *buf;
	size_t alloc;
};

static struct hashmap *leaves_of(struct timed *t, node_t host)
{
	bool inserted;
	uint32_t *i = hashmap_upsert(&t->host_index, host, (uint32_t)t->nr_hosts, &inserted);
	if (inserted) {
		VEC_GROW(t->hosts, t->nr_hosts + 1, t->hosts_alloc);
		t->hosts[t->nr_hosts].host = host;
		hashmap_init(&t->hosts[t->nr_hosts].leaf);
		t->nr_hosts++;
	}
	return &t->hosts[*i].leaf;
}

/* The leaf of stack `hash` under host, built from the frames reply once;
 * PROFILE_ROOT when the frames reply has no such stack. */
static node_t leaf_of(struct timed *t, node_t host, uint64_t hash)
{
	struct hashmap *leaves = leaves_of(t, host);
	uint32_t leaf, off;
	if (hashmap_get(leaves, hash, &leaf))
		return leaf;
	if (!hashmap_get(&t->frames_at, hash, &off))
		return PROFILE_ROOT;
	struct rb_reader in = { (const unsigned char *)t->frames + off, (const unsigned char *)t->frames + t->frames_len,
				false };
	node_t at = host;
	uint64_t depth = rb_read_leb(&in);
	for (uint64_t d = 0; d < depth && !in.bad; d++) {
		size_t n;
		const char *f = rb_read_str(&in, &n);
		if (!in.bad)
			at = push_name(t->p, at, f, n, &t->buf, &t->alloc);
	}
	bool inserted;
	hashmap_upsert(leaves_of(t, host), hash, at, &inserted);
	return at;
}

int ch_reply_timed(const char *name, const char *cells, size_t cells_len, const char *frames, size_t frames_len,
		   bool group_by_host, struct profile *p)
{
	struct timed t = { .p = p, .frames = frames, .frames_len = frames_len };
	hashmap_init(&t.frames_at);
	hashmap_init(&t.host_index);
	int ret = index_frames(name, frames, frames_len, &t.frames_at);
	profile_keep_time(p);
	struct rb_reader in = { (const unsigned char *)cells, (const unsigned char *)cells + cells_len, false };
	while (!ret && in.p < in.end && !in.bad) {
		size_t n;
		const char *host = rb_read_str(&in, &n);
		uint64_t bucket = rb_read_u64(&in), hash = rb_read_u64(&in), c = rb_read_u64(&in);
		if (in.bad)
			break;
		node_t under = group_by_host ? push_name(p, PROFILE_ROOT, host, n, &t.buf, &t.alloc) : PROFILE_ROOT;
		node_t leaf = leaf_of(&t, under, hash);
		if (leaf == PROFILE_ROOT || !c)
			continue;
		profile_count_whole(p, leaf, c);
		if (c < 0x8000000000000000ull)
			time_cells_add(p, leaf, bucket, c);
		else
			p->time->overflow = true; /* a count no table could sum */
	}
	if (!ret && in.bad)
		ret = error("%s: a malformed reply (the counts per time) at byte %zu of %zu", name,
			    (size_t)(in.p - (const unsigned char *)cells), cells_len);
	for (size_t i = 0; i < t.nr_hosts; i++)
		hashmap_release(&t.hosts[i].leaf);
	free(t.hosts);
	hashmap_release(&t.host_index);
	hashmap_release(&t.frames_at);
	free(t.buf);
	return ret;
}
