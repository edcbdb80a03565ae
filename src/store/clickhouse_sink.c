/* The ClickHouse sink: each interval as two batched RowBinary inserts,
 * its new stacks into scorch_stacks (once per stack: a hash of the frames
 * names it) and one row per stack into scorch_samples; when the server
 * is down (or refuses), the interval waits in the spool (store/spool.h)
 * and goes, oldest first, once the server answers again. */
#include "store/clickhouse_conn.h"
#include "store/dir_index.h"
#include "store/rowbinary.h"
#include "store/spool.h"
#include "store/stack_hash.h"
#include "store/store.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hashmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Stacks known to be in the server; forgotten past this many (they are
 * sent again, which the table's GROUP BY hash absorbs) so memory stays
 * bounded over days. */
enum { SENT_STACKS_MAX = 1 << 20, SPOOL_DEFAULT = 64 << 20 };

struct ch_sink {
	struct ch_conn c;
	struct spool spool;
	struct hashmap sent;
	bool down_reported;
};

static char *default_spool(const struct ch_conn *c)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *where = dir_host_name(c->base + strlen("http://")), *db = dir_host_name(c->db), *dir;
	if (xdg && *xdg) {
		dir = xmalloc(strlen(xdg) + strlen(where) + strlen(db) + 32);
		sprintf(dir, "%s/scorch/spool/%s%s", xdg, where, db);
	} else if (home && *home) {
		dir = xmalloc(strlen(home) + strlen(where) + strlen(db) + 32);
		sprintf(dir, "%s/.cache/scorch/spool/%s%s", home, where, db);
	} else {
		dir = xmalloc(strlen(where) + strlen(db) + 64);
		sprintf(dir, "/var/tmp/scorch-spool-%u/%s%s", (unsigned)getuid(), where, db);
	}
	free(where);
	free(db);
	return dir;
}

static int ch_sink_open(struct sink *s, const char *url, const struct sink_opts *o)
{
	struct ch_sink *k = xcalloc(1, sizeof(*k));
	if (ch_open(&k->c, url)) {
		free(k);
		return -1;
	}
	char *dir = o->spool_dir ? xstrdup(o->spool_dir) : default_spool(&k->c);
	int ret = spool_open(&k->spool, dir, o->spool_bytes ? o->spool_bytes : SPOOL_DEFAULT);
	free(dir);
	enum ch_result res = ret ? CH_ERROR : ch_ensure_schema(&k->c, true);
	if (res == CH_DOWN) {
		warn("%s: server not reachable yet: intervals wait in %s until it answers", url, k->spool.dir);
		k->down_reported = true;
	}
	if (ret || res == CH_ERROR) {
		if (!ret)
			spool_close(&k->spool);
		ch_close(&k->c);
		free(k);
		return -1;
	}
	hashmap_init(&k->sent);
	s->state = k;
	return 0;
}

/* The interval as the two insert bodies: new stacks, and samples. */
static void encode(struct ch_sink *k, const struct profile *p, const struct store_meta *m, struct rb_buf *stacks,
		   struct rb_buf *samples, uint64_t **new_hashes, size_t *nr_new)
{
	uint64_t *h = stack_hashes(p);
	const char **frames = NULL;
	size_t *lens = NULL, alloc = 0, alloc_l = 0, new_alloc = 0;
	uint16_t day = (uint16_t)(m->start_ns / 1000000000ull / 86400);
	const char *event = m->event ? m->event : "", *unit = m->unit ? m->unit : "samples";
	*nr_new = 0;
	for (node_t i = 1; i < p->nr; i++) {
		double c = profile_self(p, i, 0);
		if (!(c > 0))
			continue;
		uint32_t v;
		if (!hashmap_get(&k->sent, h[i], &v)) {
			size_t depth = p->nodes[i].depth;
			VEC_GROW(frames, depth, alloc);
			VEC_GROW(lens, depth, alloc_l);
			for (node_t n = i; n != PROFILE_ROOT; n = p->nodes[n].parent) {
				frames[p->nodes[n].depth - 1] = profile_name(p, n);
				lens[p->nodes[n].depth - 1] = profile_name_len(p, n);
			}
			rb_u64(stacks, h[i]);
			rb_leb(stacks, depth);
			for (size_t d = 0; d < depth; d++)
				rb_str(stacks, frames[d], lens[d]);
			VEC_GROW(*new_hashes, *nr_new + 1, new_alloc);
			(*new_hashes)[(*nr_new)++] = h[i];
		}
		rb_u16(samples, day);
		rb_str(samples, m->host, strlen(m->host));
		rb_u64(samples, m->start_ns);
		rb_u64(samples, m->end_ns);
		rb_str(samples, event, strlen(event));
		rb_u32(samples, m->rate_hz);
		rb_str(samples, unit, strlen(unit));
		rb_leb(samples, m->nr_labels);
		for (size_t l = 0; l < m->nr_labels; l++)
			rb_str(samples, m->labels[l], strlen(m->labels[l]));
		rb_u64(samples, h[i]);
		rb_u64(samples, p->fractional ? (uint64_t)llround(c) : p->nodes[i].self[0].u);
	}
	free(frames);
	free(lens);
	free(h);
}

/* Both inserts of one interval. */
static enum ch_result send_bodies(struct ch_sink *k, const char *const data[2], const size_t len[2], bool quiet)
{
	static const char *const table[2] = { "scorch_stacks", "scorch_samples" };
	enum ch_result res = ch_ensure_schema(&k->c, quiet);
	for (int i = 0; !res && i < 2; i++) {
		if (!len[i])
			continue;
		char sql[160];
		snprintf(sql, sizeof(sql), "INSERT INTO %s.%s FORMAT RowBinary", k->c.qdb, table[i]);
		struct http_reply r;
		res = ch_exec(&k->c, sql, data[i], len[i], &r, quiet);
		if (!res)
			http_reply_release(&r);
	}
	return res;
}

/* Whether the server already holds a spooled interval's samples: an
 * insert whose reply was lost (the server went down while answering) may
 * have landed. One INSERT of an interval is one block, written whole or
 * not at all, so one row of (host, start_ns) means all of it. CH_OK and
 * *there, or the failure. */
static enum ch_result already_there(struct ch_sink *k, const char *samples, size_t len, bool *there)
{
	struct rb_reader in = { (const unsigned char *)samples, (const unsigned char *)samples + len, false };
	*there = false;
	if (!len)
		return CH_OK;
	size_t n;
	in.p += in.end - in.p >= 2 ? 2 : 0; /* the day */
	const char *host = rb_read_str(&in, &n);
	uint64_t start = rb_read_u64(&in);
	if (in.bad)
		return CH_OK; /* not ours to judge: sent, and the server says */
	struct sql q = { 0 };
	sql_add(&q, "SELECT count() FROM ");
	sql_add(&q, k->c.qdb);
	sql_add(&q, ".scorch_samples WHERE host = ");
	sql_str(&q, host, n);
	sql_addf(&q, " AND start_ns = %llu FORMAT RowBinary", (unsigned long long)start);
	struct http_reply r;
	enum ch_result res = ch_ensure_schema(&k->c, true);
	if (!res)
		res = ch_exec(&k->c, q.s, NULL, 0, &r, true);
	free(q.s);
	if (res)
		return res;
	struct rb_reader reply = { (const unsigned char *)r.body, (const unsigned char *)r.body + r.len, false };
	*there = rb_read_u64(&reply) > 0 && !reply.bad;
	http_reply_release(&r);
	return CH_OK;
}

/* Send what waits, oldest first, until the spool is empty or the server
 * fails. CH_OK when the spool is empty. */
static enum ch_result flush_spool(struct sink *s)
{
	struct ch_sink *k = s->state;
	struct spool_entry e;
	int got;
	while ((got = spool_oldest(&k->spool, &e)) != 0) {
		if (got < 0)
			continue;
		bool there;
		enum ch_result res = already_there(k, e.data[1], e.len[1], &there);
		if (!res && !there)
			res = send_bodies(k, (const char *const *)e.data, e.len, true);
		if (res) {
			spool_entry_release(&e);
			return res;
		}
		spool_done(&k->spool, &e);
		spool_entry_release(&e);
		s->stats.sent++;
	}
	return CH_OK;
}

static void remember(struct ch_sink *k, const uint64_t *hashes, size_t n)
{
	if (k->sent.nr + n > SENT_STACKS_MAX) {
		hashmap_release(&k->sent);
		hashmap_init(&k->sent);
	}
	bool inserted;
	for (size_t i = 0; i < n; i++)
		hashmap_upsert(&k->sent, hashes[i], 0, &inserted);
}

static int ch_sink_put(struct sink *s, const struct profile *p, const struct store_meta *m)
{
	struct ch_sink *k = s->state;
	struct rb_buf stacks = { 0 }, samples = { 0 };
	uint64_t *hashes = NULL;
	size_t nr_new;
	encode(k, p, m, &stacks, &samples, &hashes, &nr_new);
	const char *data[2] = { stacks.data, samples.data };
	size_t len[2] = { stacks.len, samples.len };
	enum ch_result res = k->spool.entries ? flush_spool(s) : CH_OK;
	if (!res)
		res = send_bodies(k, data, len, true);
	int ret = 0;
	if (!res) {
		s->stats.sent++;
		remember(k, hashes, nr_new);
		k->down_reported = false;
	} else {
		if (res == CH_DOWN && !k->down_reported) {
			warn("%s: server not reachable: intervals wait in %s", k->c.url, k->spool.dir);
			k->down_reported = true;
		}
		uint64_t before = k->spool.dropped;
		if (spool_add(&k->spool, data, len))
			s->stats.dropped++; /* said, and counted once: not also failed */
		if (k->spool.dropped > before)
			warn("%s: spool full: %llu oldest intervals dropped so far", k->c.url,
			     (unsigned long long)k->spool.dropped);
	}
	rb_release(&stacks);
	rb_release(&samples);
	free(hashes);
	return ret;
}

static void ch_sink_close(struct sink *s)
{
	struct ch_sink *k = s->state;
	if (k->spool.entries)
		flush_spool(s);
	s->stats.spooled = k->spool.entries;
	s->stats.dropped += k->spool.dropped;
	if (k->spool.entries)
		warn("%s: %llu intervals still wait in %s: the next run sends them", k->c.url,
		     (unsigned long long)k->spool.entries, k->spool.dir);
	spool_close(&k->spool);
	hashmap_release(&k->sent);
	ch_close(&k->c);
	free(k);
}

const struct sink_ops clickhouse_sink_ops = { "clickhouse", ch_sink_open, ch_sink_put, ch_sink_close };
