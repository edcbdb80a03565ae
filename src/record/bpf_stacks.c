/* Reading the eBPF programs' stacks and counts back into samples: stack
 * ids resolved through the maps that hold them (profile.bpf.c's size
 * classes, which offcpu.bpf.c shares), or through a cache read
 * from the maps in batches. Built only with libbpf (HAVE_LIBBPF). */
#include "record/bpf_stacks.h"
#include "record/bpf_map_each.h"
#include "record/bpf_stack_cache.h"
#include "record/bpf_python.h"

#include "base/alloc.h"
#include "base/hash.h"
#include "record/session.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

uint32_t bpf_stack_depth(const uint64_t *ips, uint32_t frames)
{
	uint32_t n = 0;
	while (n < frames && ips[n])
		n++;
	return n;
}

struct cache_load {
	struct bpf_stack_cache *c;
	uint32_t frames;
};

static void cache_load_one(void *arg, const void *key, const void *value)
{
	struct cache_load *l = arg;
	uint32_t id;
	memcpy(&id, key, sizeof(id));
	const uint64_t *ips = value; /* (the batch buffer: 8-byte aligned values) */
	bpf_stack_cache_put(l->c, id, ips, bpf_stack_depth(ips, l->frames));
}

int bpf_stack_cache_load(struct bpf_stack_cache *c, int fd, uint32_t frames)
{
	struct cache_load l = { c, frames };
	return bpf_map_each(fd, false, cache_load_one, &l);
}

/* The frames of stack id `id` (from the cache, else from the map
 * fds[class] into ips, PROFILE_MAX_DEPTH of room), or NULL when there
 * are none; *missing when the stack was lost (collision, full map, or
 * gone from the map). A cache that fills is copied from into ips: its
 * frames move when it grows, as the next stack read may make it. */
static const uint64_t *read_stack(const struct bpf_stacks *from, int32_t id, uint64_t *ips, uint32_t *nr,
				  bool *missing, bool *truncated, uint32_t limit)
{
	if (id < 0) {
		*missing = id == -EEXIST || id == -ENOMEM;
		return NULL;
	}
	const uint64_t *got = from->cache ? bpf_stack_cache_get(from->cache, (uint32_t)id, nr) : NULL;
	if (got && from->fill) {
		memcpy(ips, got, *nr * sizeof(uint64_t));
		got = ips;
	}
	if (!got) {
		uint32_t key = (uint32_t)id, class = key >> PROFILE_CLASS_SHIFT;
		memset(ips, 0, PROFILE_MAX_DEPTH * sizeof(uint64_t));
		if (class >= PROFILE_CLASSES || bpf_map_lookup_elem(from->fds[class], &key, ips)) {
			*missing = true;
			return NULL;
		}
		*nr = bpf_stack_depth(ips, PROFILE_MAX_DEPTH);
		got = ips;
		if (from->cache && from->fill)
			bpf_stack_cache_put(from->cache, key, ips, *nr);
	}
	*truncated = *nr >= limit;
	return got;
}

void bpf_stacks_key_sample(const struct bpf_stacks *from, const struct profile_key *key, uint64_t count,
			   struct record_sample *s, char comm[PROFILE_COMM_LEN + 1], uint64_t *user, uint64_t *kernel,
			   struct record_stats *stats, uint32_t limit)
{
	memset(s, 0, sizeof(*s));
	memcpy(comm, key->comm, PROFILE_COMM_LEN);
	comm[PROFILE_COMM_LEN] = 0;
	s->pid = key->pid;
	s->tid = key->tid;
	s->cpu = key->cpu;
	s->weight = count;
	if (key->cell && from->time_cell_ns)
		s->time = from->time_base + (uint64_t)(key->cell - 1) * from->time_cell_ns;
	s->comm = key->pid || key->tid ? comm : "swapper";
	if (key->user_stack == -EEXIST || key->kernel_stack == -EEXIST)
		stats->collisions += count;
	if (key->user_stack == -ENOMEM || key->kernel_stack == -ENOMEM)
		stats->map_full += count;
	s->kernel = read_stack(from, key->kernel_stack, kernel, &s->nr_kernel, &s->kernel_missing,
			       &s->kernel_truncated, limit);
	s->user = read_stack(from, key->user_stack, user, &s->nr_user, &s->user_missing, &s->user_truncated, limit);
	if (from->python)
		bpf_python_sample(from->python, key->python_stack, s);
}

void bpf_counts_seen_init(struct bpf_counts_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	hashmap_init(&seen->by_hash);
}

void bpf_counts_seen_release(struct bpf_counts_seen *seen)
{
	hashmap_release(&seen->by_hash);
	free(seen->v);
}

static uint64_t key_hash(const struct profile_key *key)
{
	return hash_bytes(key, sizeof(*key));
}

/* The count key had at the last read (0: new). */
static uint64_t seen_count(const struct bpf_counts_seen *seen, const struct profile_key *key)
{
	uint32_t at;
	for (uint64_t probe = key_hash(key); hashmap_get(&seen->by_hash, probe, &at); probe = hash_u64(probe))
		if (!memcmp(&seen->v[at].key, key, sizeof(*key)))
			return seen->v[at].count;
	return 0;
}

static void seen_put(struct bpf_counts_seen *seen, const struct profile_key *key, uint64_t count)
{
	for (uint64_t probe = key_hash(key);; probe = hash_u64(probe)) {
		bool inserted;
		hashmap_upsert(&seen->by_hash, probe, (uint32_t)seen->nr, &inserted);
		if (inserted)
			break;
	}
	VEC_GROW(seen->v, seen->nr + 1, seen->alloc);
	seen->v[seen->nr++] = (struct bpf_seen_count){ *key, count };
}

struct drain {
	const struct bpf_stacks *from;
	struct recorder *r;
	struct record_stats *stats;
	uint32_t limit;
	uint64_t user[PROFILE_MAX_DEPTH], kernel[PROFILE_MAX_DEPTH];
	char comm[PROFILE_COMM_LEN + 1];
	const struct bpf_counts_seen *seen; /* the last read's, or NULL */
	struct bpf_counts_seen next;        /* this read's */
	struct profile_key *gone;           /* keys to delete after the read */
	size_t nr_gone, alloc_gone;
};

static void drain_one(void *arg, const void *key_bytes, const void *value)
{
	struct drain *d = arg;
	struct profile_key key;
	uint64_t count;
	memcpy(&key, key_bytes, sizeof(key));
	memcpy(&count, value, sizeof(count));
	if (d->seen) {
		uint64_t was = seen_count(d->seen, &key);
		if (record_bound_over(d->from->bound) && !d->from->bound->finishing) {
			seen_put(&d->next, &key, was); /* (handed over at the next read) */
			return;
		}
		if (key.pid && recorder_exiting(d->r, key.pid)) {
			VEC_GROW(d->gone, d->nr_gone + 1, d->alloc_gone);
			d->gone[d->nr_gone++] = key;
		} else {
			seen_put(&d->next, &key, count);
		}
		count = count >= was ? count - was : count; /* (less: deleted and counted anew) */
	}
	if (!count)
		return;
	struct record_sample s;
	bpf_stacks_key_sample(d->from, &key, count, &s, d->comm, d->user, d->kernel, d->stats, d->limit);
	d->stats->in_kernel += count;
	recorder_sample(d->r, &s);
}

int bpf_stacks_drain(const struct bpf_stacks *from, int counts_fd, struct recorder *r, struct record_stats *stats,
		     uint32_t limit, struct bpf_counts_seen *seen)
{
	struct drain *d = xcalloc(1, sizeof(*d));
	d->from = from;
	d->r = r;
	d->stats = stats;
	d->limit = limit;
	d->seen = seen;
	if (seen)
		bpf_counts_seen_init(&d->next);
	int ret = bpf_map_each(counts_fd, false, drain_one, d);
	/* An exited process counts no more (a new one with its pid would
	 * lose what it counted between the read and this). */
	for (size_t i = 0; i < d->nr_gone; i++)
		bpf_map_delete_elem(counts_fd, &d->gone[i]);
	free(d->gone);
	if (seen) {
		if (ret) { /* a read cut short: keep what the rest had */
			for (size_t i = 0; i < seen->nr; i++)
				if (!seen_count(&d->next, &seen->v[i].key))
					seen_put(&d->next, &seen->v[i].key, seen->v[i].count);
		}
		bpf_counts_seen_release(seen);
		*seen = d->next;
	}
	free(d);
	return ret;
}

/* The keys of cells that are over, with their counts. */
struct cells_over {
	uint32_t before;
	struct profile_key *keys;
	uint64_t *counts;
	size_t nr, alloc;
};

static void collect_over(void *arg, const void *key_bytes, const void *value)
{
	struct cells_over *c = arg;
	struct profile_key key;
	memcpy(&key, key_bytes, sizeof(key));
	if (!key.cell || key.cell >= c->before)
		return;
	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 256;
		c->keys = xreallocarray(c->keys, c->alloc, sizeof(*c->keys));
		c->counts = xreallocarray(c->counts, c->alloc, sizeof(*c->counts));
	}
	c->keys[c->nr] = key;
	memcpy(&c->counts[c->nr], value, sizeof(uint64_t));
	c->nr++;
}

int bpf_stacks_drain_before(const struct bpf_stacks *from, int counts_fd, uint32_t cell, struct recorder *r,
			    struct record_stats *stats, uint32_t limit, struct hashmap *pids)
{
	struct cells_over c = { .before = cell };
	/* No program adds to these keys any more: read, then deleted, they
	 * are final. A key that cannot be deleted is left for a later
	 * drain, not passed on (it would be counted twice). */
	if (bpf_map_each(counts_fd, false, collect_over, &c)) {
		free(c.keys);
		free(c.counts);
		return -1;
	}
	uint32_t deleted = (uint32_t)c.nr;
	if (c.nr && bpf_map_delete_batch(counts_fd, c.keys, &deleted, NULL))
		deleted = deleted <= c.nr ? deleted : 0; /* (the first `deleted` went) */
	struct drain *d = xcalloc(1, sizeof(*d));
	*d = (struct drain){ .from = from, .r = r, .stats = stats, .limit = limit };
	for (size_t i = 0; i < c.nr; i++) {
		if (i >= deleted && bpf_map_delete_elem(counts_fd, &c.keys[i]))
			continue;
		bool inserted;
		hashmap_upsert(pids, c.keys[i].pid, 0, &inserted);
		drain_one(d, &c.keys[i], &c.counts[i]);
	}
	free(d);
	free(c.keys);
	free(c.counts);
	return 0;
}

/* ---- pids in map keys ---- */

struct pid_scan {
	struct recorder *r;
	const size_t *pid_at;
	size_t nr_pid_at;
	bool refresh;
	struct hashmap done;
};

static void scan_key(void *arg, const void *key, const void *value)
{
	struct pid_scan *ps = arg;
	(void)value;
	for (size_t i = 0; i < ps->nr_pid_at; i++) {
		uint32_t pid;
		bool inserted;
		memcpy(&pid, (const char *)key + ps->pid_at[i], sizeof(pid));
		if (!pid)
			continue;
		hashmap_upsert(&ps->done, pid, 0, &inserted);
		if (!inserted)
			continue;
		if (ps->refresh)
			recorder_refresh(ps->r, pid);
		else if (!recorder_knows(ps->r, pid))
			recorder_seen(ps->r, pid);
	}
}

void bpf_scan_key_pids(int fd, const size_t *pid_at, size_t nr_pid_at, struct recorder *r, bool refresh,
		       bool take)
{
	struct pid_scan ps = { r, pid_at, nr_pid_at, refresh, { 0 } };
	hashmap_init(&ps.done);
	bpf_map_each(fd, take, scan_key, &ps);
	hashmap_release(&ps.done);
}

void bpf_scan_pids(int fd, struct recorder *r, bool refresh)
{
	size_t pid_at = offsetof(struct profile_key, pid);
	bpf_scan_key_pids(fd, &pid_at, 1, r, refresh, false);
}
