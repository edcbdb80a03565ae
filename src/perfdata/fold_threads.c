/* report -j (see fold_threads.h). The replay stays on the calling thread:
 * it applies COMM/FORK/EXIT/MMAP records in time order as before and, for
 * each sample, notes the thread's name and takes a frozen view of its
 * address space and of the kernel map (symbolize/snapshot.h). Fold
 * threads read the sample again from the file and fold it against that
 * view, each into a profile of its own with caches of its own; at the end
 * the profiles are merged by sample order (profile/merge_stamped.h), so
 * the result is the one-thread profile, entry for entry.
 *
 * Who folds what: all the samples of one process go to one thread (its
 * address-space views, lookups and names then stay in that thread's
 * caches), a new process to the thread given the fewest samples so far;
 * the calling thread, which also replays, folds its share after the
 * replay. Fold threads follow the replay as it notes their samples.
 *
 * A few samples are folded by the replay itself, against the symbolizer as
 * it is at the sample, into a profile of their own: DWARF samples (the
 * unwinder and the inline engine are not shared, and the engine remembers
 * between queries as addr2line does) and a sample whose lookups would load
 * the kernel's symbols (that moves the kernel map during the sample).
 * Before a change that lookups of samples already noted must not see (a
 * build-id given to a DSO they may load), the replay waits until they are
 * folded (quiesce). */
#include "perfdata/fold_threads.h"

#include "base/alloc.h"
#include "base/hashmap.h"
#include "perfdata/fold_sample.h"
#include "perfdata/folder.h"
#include "perfdata/sample_frames.h"
#include "profile/merge_stamped.h"
#include "symbolize/snapshot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A sample noted by the replay for a fold thread. */
struct item {
	uint32_t entry; /* in the replay (also its stamp) */
	const char *comm;
	struct sym_snapshot snap;
};

enum { BLOCK = 4096,   /* items per block of a lane */
       PUBLISH = 64,   /* items the replay notes before a lane's thread sees them */
       TAKE = 256 };   /* items a lane's thread takes at a time */

/* A profile and the folder that fills it. */
struct part {
	struct profile p;
	struct report_stats st;
	struct sym_reader *reader;
	struct folder *f;
};

struct crew;

/* The samples of some processes, folded by one thread, in order. Blocks
 * never move: the replay appends while the thread reads. */
struct lane {
	struct crew *c;
	struct item **blocks;
	size_t nr;        /* noted (the replay's) */
	size_t published; /* readable by the lane's thread (under mu) */
	size_t next;      /* taken by the lane's thread (under mu) */
	size_t folded;    /* folded by it (under mu) */
	size_t end;       /* its thread folds up to here; the rest is a tail */
	uint64_t cost;    /* samples given to it */
	struct part part;
	pthread_t thread;
};

/* Items [from, to) of a lane that another thread folds, into a profile of
 * its own (the stamps must increase within one): cut off the end of a
 * lane with more left than its share when the replay is done. */
struct tail {
	struct lane *l;
	size_t from, to;
	struct part part;
	bool taken;
};

struct crew {
	const struct report_opts *o;
	const struct replay *r;
	struct symbolizer *sym;
	struct sym_snapshots *snaps;
	pthread_mutex_t mu;
	pthread_cond_t more;  /* items published, or done */
	pthread_cond_t moved; /* a lane's thread folded items */
	bool done;
	struct part live;    /* samples folded against the symbolizer as it is */
	bool kernel_loaded;  /* no lookup loads it any more */
	struct lane *lanes;  /* lanes[0]: the calling thread's */
	int nr_lanes;
	struct hashmap lane_of; /* pid -> lane */
	int32_t last_pid;       /* and the last one asked */
	struct lane *last_lane;
	uint64_t noted;
	const struct perf_data *pd;
	struct tail *tails;
	size_t nr_tails;
};

static void part_init(struct part *pt, const struct crew *c, const struct perf_data *pd, bool live)
{
	profile_init(&pt->p);
	memset(&pt->st, 0, sizeof(pt->st));
	pt->reader = live ? NULL : sym_reader_new(c->sym);
	pt->f = folder_new(c->o, pd, &pt->p, &pt->st, c->sym, pt->reader, PUSHES_HERE);
}

static void part_release(struct part *pt)
{
	folder_free(pt->f);
	sym_reader_free(pt->reader);
	profile_release(&pt->p);
}

static const struct item *lane_item(const struct lane *l, size_t i)
{
	return &l->blocks[i / BLOCK][i % BLOCK];
}

static void fold_items(const struct lane *l, struct part *pt, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct item *it = lane_item(l, i);
		struct pd_sample s;
		if (replay_sample_at(l->c->r, it->entry, &s) == 0) /* parsed once already */
			folder_fold(pt->f, &s, it->comm, &it->snap, it->entry);
	}
}

/* Fold l's items as the replay publishes them, up to its end. Called and
 * returns with mu held. */
static void fold_lane(struct crew *c, struct lane *l)
{
	for (;;) {
		while (l->next >= l->published && !c->done)
			pthread_cond_wait(&c->more, &c->mu);
		size_t from = l->next, to = l->published < l->end ? l->published : l->end;
		if (from >= to)
			return; /* done, and cut */
		if (to - from > TAKE)
			to = from + TAKE;
		l->next = to;
		pthread_mutex_unlock(&c->mu);
		fold_items(l, &l->part, from, to);
		pthread_mutex_lock(&c->mu);
		l->folded = to;
		pthread_cond_broadcast(&c->moved);
	}
}

/* Then the tails nobody took. Called and returns with mu held. */
static void fold_tails(struct crew *c)
{
	for (size_t i = 0; i < c->nr_tails; i++) {
		struct tail *t = &c->tails[i];
		if (t->taken)
			continue;
		t->taken = true;
		pthread_mutex_unlock(&c->mu);
		part_init(&t->part, c, c->pd, false);
		fold_items(t->l, &t->part, t->from, t->to);
		pthread_mutex_lock(&c->mu);
	}
}

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct crew *c = l->c;
	pthread_mutex_lock(&c->mu);
	fold_lane(c, l);
	fold_tails(c);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static void publish(struct crew *c, struct lane *l)
{
	pthread_mutex_lock(&c->mu);
	l->published = l->nr;
	pthread_cond_broadcast(&c->more);
	pthread_mutex_unlock(&c->mu);
}

/* Every sample noted so far is folded when this returns. */
static void quiesce(void *arg)
{
	struct crew *c = arg;
	for (int i = 1; i < c->nr_lanes; i++)
		publish(c, &c->lanes[i]);
	struct lane *mine = &c->lanes[0];
	fold_items(mine, &mine->part, mine->next, mine->nr);
	mine->next = mine->folded = mine->nr;
	pthread_mutex_lock(&c->mu);
	for (int i = 1; i < c->nr_lanes; i++)
		while (c->lanes[i].folded < c->lanes[i].published)
			pthread_cond_wait(&c->moved, &c->mu);
	pthread_mutex_unlock(&c->mu);
}

/* When the replay is done: each thread's share of what is left to fold,
 * and the end of any lane with more than its share cut off as a tail for
 * the threads that finish first (when worth a profile of its own). Called
 * with mu held. */
static void cut_tails(struct crew *c)
{
	size_t left = 0;
	for (int i = 0; i < c->nr_lanes; i++)
		left += c->lanes[i].nr - c->lanes[i].next;
	size_t share = left / (size_t)c->nr_lanes, enough = left / 20 + 1000;
	c->tails = xcalloc((size_t)c->nr_lanes, sizeof(*c->tails));
	for (int i = 0; i < c->nr_lanes; i++) {
		struct lane *l = &c->lanes[i];
		if (l->nr - l->next > share + enough) {
			l->end = l->next + share;
			c->tails[c->nr_tails++] = (struct tail){ .l = l, .from = l->end, .to = l->nr };
		}
	}
}

/* The lane of a sample's process: all of a process's samples go to one
 * thread (its lookups and names then stay in that thread's caches); a new
 * process goes to the lane given the fewest samples, the calling thread's
 * counting the replay's work too (the ends of lanes are evened out when
 * the replay is done: cut_tails). */
static struct lane *lane_for(struct crew *c, int32_t pid)
{
	if (c->last_lane && pid == c->last_pid)
		return c->last_lane; /* samples of one process come in runs */
	bool ins;
	uint32_t *v = hashmap_upsert(&c->lane_of, (uint32_t)pid, 0, &ins);
	if (ins) {
		uint32_t best = 0;
		uint64_t best_cost = c->lanes[0].cost + c->noted / 4;
		for (int i = 1; i < c->nr_lanes; i++)
			if (c->lanes[i].cost < best_cost) {
				best = (uint32_t)i;
				best_cost = c->lanes[i].cost;
			}
		*v = best;
	}
	c->last_pid = pid;
	c->last_lane = &c->lanes[*v];
	return c->last_lane;
}

/* Whether a lookup of the sample would load the kernel's symbols (the
 * lookups fold.c makes, in its order: see sample_frames_resolve). */
static bool loads_kernel(struct crew *c, const struct pd_sample *s)
{
	if (c->kernel_loaded)
		return false;
	if (!s->callchain) {
		bool kernel = (s->misc & PD_CPUMODE_MASK) == PD_CPUMODE_KERNEL;
		return kernel && sym_kernel_lookup_loads(c->sym, s->ip);
	}
	struct callchain_walk w;
	callchain_walk_start(&w, s, c->o->max_stack);
	uint64_t ip;
	for (size_t n = 0; n < SAMPLE_FRAMES_MAX && callchain_walk_next(&w, &ip) > 0; n++)
		if (w.kernel && !w.hv && sym_kernel_lookup_loads(c->sym, ip))
			return true;
	return false;
}

static void note_sample(void *arg, const struct pd_sample *s)
{
	struct crew *c = arg;
	uint32_t entry = (uint32_t)c->r->at;
	const char *comm = sym_thread_comm(c->sym, s->pid, s->tid);
	if (!folder_keep_event(c->live.f, s))
		return;
	bool dwarf = s->regs && s->stack && s->stack_size;
	if (dwarf || loads_kernel(c, s)) {
		folder_fold(c->live.f, s, comm, NULL, entry);
		c->kernel_loaded = sym_kernel_loaded(c->sym);
		return;
	}
	struct lane *l = lane_for(c, s->pid);
	if (l->nr % BLOCK == 0)
		l->blocks[l->nr / BLOCK] = xmalloc(BLOCK * sizeof(struct item));
	struct item *it = &l->blocks[l->nr / BLOCK][l->nr % BLOCK];
	it->entry = entry;
	it->comm = comm;
	sym_snapshot_take(c->snaps, s->pid, s->tid, &it->snap);
	l->nr++;
	l->cost++;
	c->noted++;
	if (l != &c->lanes[0] && l->nr - l->published >= PUBLISH)
		publish(c, l);
}

const char *fold_threads_run(struct replay *r, struct symbolizer *sym, const struct report_opts *o,
			     const struct perf_data *pd, struct profile *p, struct report_stats *st, int threads)
{
	struct crew *c = xcalloc(1, sizeof(*c));
	c->o = o;
	c->r = r;
	c->sym = sym;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->more, NULL);
	pthread_cond_init(&c->moved, NULL);
	hashmap_init(&c->lane_of);
	c->snaps = sym_snapshots_new(sym, quiesce, c);
	part_init(&c->live, c, pd, true);
	c->pd = pd;
	c->lanes = xcalloc((size_t)threads, sizeof(*c->lanes));
	size_t nr_blocks = r->nr / BLOCK + 1;
	for (int i = 0; i < threads; i++) {
		struct lane *l = &c->lanes[c->nr_lanes];
		l->c = c;
		l->blocks = xcalloc(nr_blocks, sizeof(*l->blocks));
		l->end = SIZE_MAX;
		part_init(&l->part, c, pd, false);
		if (i && pthread_create(&l->thread, NULL, lane_main, l)) {
			part_release(&l->part);
			free(l->blocks);
			break; /* fewer threads: the same result */
		}
		c->nr_lanes++;
	}
	replay_run(r, sym, note_sample, c);
	pthread_mutex_lock(&c->mu);
	c->lanes[0].published = c->lanes[0].nr;
	for (int i = 1; i < c->nr_lanes; i++)
		c->lanes[i].published = c->lanes[i].nr;
	cut_tails(c);
	c->done = true;
	pthread_cond_broadcast(&c->more);
	fold_lane(c, &c->lanes[0]);
	fold_tails(c);
	pthread_mutex_unlock(&c->mu);
	for (int i = 1; i < c->nr_lanes; i++)
		pthread_join(c->lanes[i].thread, NULL);

	/* One profile, as one thread would have built it. */
	size_t nparts = 1 + (size_t)c->nr_lanes + c->nr_tails;
	struct part **parts = xcalloc(nparts, sizeof(*parts));
	parts[0] = &c->live;
	for (int i = 0; i < c->nr_lanes; i++)
		parts[1 + i] = &c->lanes[i].part;
	for (size_t i = 0; i < c->nr_tails; i++)
		parts[1 + (size_t)c->nr_lanes + i] = &c->tails[i].part;
	struct profile_stamped *in = xcalloc(nparts, sizeof(*in));
	uint64_t unit_seq = UINT64_MAX;
	for (size_t i = 0; i < nparts; i++) {
		in[i].p = &parts[i]->p;
		in[i].runs = folder_runs(parts[i]->f, &in[i].nr_runs);
		folder_add_stats(parts[i]->f, st, &unit_seq);
	}
	if (!profile_merge_stamped(p, in, nparts))
		p->overflow = true;
	const char *event = folder_event(c->live.f);

	for (size_t i = 0; i < nparts; i++)
		part_release(parts[i]);
	for (int i = 0; i < c->nr_lanes; i++) {
		for (size_t b = 0; b < nr_blocks; b++)
			free(c->lanes[i].blocks[b]);
		free(c->lanes[i].blocks);
	}
	free(parts);
	free(in);
	free(c->tails);
	free(c->lanes);
	hashmap_release(&c->lane_of);
	sym_snapshots_free(c->snaps);
	pthread_cond_destroy(&c->moved);
	pthread_cond_destroy(&c->more);
	pthread_mutex_destroy(&c->mu);
	free(c);
	return event;
}
