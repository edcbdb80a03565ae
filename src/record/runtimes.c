/* The runtime table and the set of runtime states the collector keeps
 * (runtime.h: the contract a runtime codes against). */
#include "record/runtime.h"

#include "base/alloc.h"
#include "base/hashmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runtimes, in the order detect() is asked (the first match owns a
 * process). Add one: an extern line here and an entry before the NULL
 * (README.md). */
extern const struct record_runtime record_runtime_jit;
extern const struct record_runtime record_runtime_jvm;
extern const struct record_runtime record_runtime_python;

static const struct record_runtime *const runtimes[] = {
	&record_runtime_python,
	&record_runtime_jit, /* owns no process: before jvm, which owns JVMs */
	&record_runtime_jvm,
	NULL, /* the end (and C has no empty initializer) */
};
static const size_t nr_runtimes = sizeof(runtimes) / sizeof(runtimes[0]) - 1;

/* A process a runtime owns. */
struct owned {
	uint32_t pid;
	uint32_t owner; /* index + 1 into table; 0: released (exited) */
	void *state;
};

struct runtime_set {
	const struct record_runtime *const *table;
	size_t nr;
	void **run;            /* open()'s state, per entry */
	struct hashmap by_pid; /* pid -> index into procs + 1; 0: met, not owned */
	struct owned *procs;
	size_t nr_procs, alloc_procs;
	uint32_t *free_procs;  /* entries of forgotten processes, for reuse */
	size_t nr_free_procs, alloc_free_procs;
	uint32_t *fresh;       /* pids owned since runtime_set_take_owned last ran */
	size_t nr_fresh, alloc_fresh;
	bool any;              /* a process was owned */
};

struct runtime_set *runtime_set_open(const struct record_opts *opts, const struct record_runtime *const *table,
				     size_t nr)
{
	if (!table) {
		table = runtimes;
		nr = nr_runtimes;
	}
	if (!nr)
		return NULL;
	struct runtime_set *set = xcalloc(1, sizeof(*set));
	set->table = table;
	set->nr = nr;
	set->run = xcalloc(nr, sizeof(set->run[0]));
	for (size_t i = 0; i < nr; i++)
		set->run[i] = table[i]->open ? table[i]->open(opts) : NULL;
	hashmap_init(&set->by_pid);
	return set;
}

static struct owned *owned_of(const struct runtime_set *set, uint32_t pid)
{
	uint32_t at;
	if (!set || !hashmap_get(&set->by_pid, pid, &at) || !at || !set->procs[at - 1].owner)
		return NULL;
	return &set->procs[at - 1];
}

static void release(struct runtime_set *set, struct owned *o)
{
	const struct record_runtime *rt = set->table[o->owner - 1];
	if (rt->exit)
		rt->exit(set->run[o->owner - 1], o->state, o->pid);
	o->owner = 0;
	o->state = NULL;
}

void runtime_set_meet(struct runtime_set *set, const struct runtime_process *proc, bool fresh)
{
	if (!set)
		return;
	bool inserted;
	uint32_t *slot = hashmap_upsert(&set->by_pid, proc->pid, 0, &inserted);
	if (!inserted && !fresh)
		return;
	if (*slot && set->procs[*slot - 1].owner)
		release(set, &set->procs[*slot - 1]);
	for (size_t i = 0; i < set->nr; i++) {
		const struct record_runtime *rt = set->table[i];
		void *state = rt->detect ? rt->detect(set->run[i], proc) : NULL;
		if (!state)
			continue;
		if (!*slot && set->nr_free_procs) {
			*slot = set->free_procs[--set->nr_free_procs] + 1;
		} else if (!*slot) {
			VEC_GROW(set->procs, set->nr_procs + 1, set->alloc_procs);
			*slot = (uint32_t)++set->nr_procs;
		}
		set->procs[*slot - 1] = (struct owned){ proc->pid, (uint32_t)i + 1, state };
		set->any = true;
		VEC_GROW(set->fresh, set->nr_fresh + 1, set->alloc_fresh);
		set->fresh[set->nr_fresh++] = proc->pid;
		return;
	}
}

uint32_t runtime_set_owner(const struct runtime_set *set, uint32_t pid)
{
	const struct owned *o = owned_of(set, pid);
	return o ? o->owner : 0;
}

uint32_t runtime_set_sample(struct runtime_set *set, const struct runtime_sample *smp, uint64_t *tokens,
			    uint32_t cap)
{
	struct owned *o = owned_of(set, smp->pid);
	const struct record_runtime *rt = o ? set->table[o->owner - 1] : NULL;
	if (!rt || !rt->sample || !rt->merge) /* tokens no merge would name */
		return 0;
	uint32_t n = rt->sample(set->run[o->owner - 1], o->state, smp, tokens, cap);
	return n < cap ? n : cap;
}

size_t runtime_set_bpf_params(struct runtime_set *set, uint32_t pid, void *buf, size_t cap)
{
	struct owned *o = owned_of(set, pid);
	const struct record_runtime *rt = o ? set->table[o->owner - 1] : NULL;
	if (!rt || !rt->bpf_params)
		return 0;
	size_t n = rt->bpf_params(set->run[o->owner - 1], o->state, buf, cap);
	return n < cap ? n : cap;
}

size_t runtime_set_payload_now(struct runtime_set *set, const struct runtime_sample *smp, void *buf, size_t cap)
{
	struct owned *o = owned_of(set, smp->pid);
	const struct record_runtime *rt = o ? set->table[o->owner - 1] : NULL;
	if (!rt || !rt->payload_now)
		return 0;
	size_t n = rt->payload_now(set->run[o->owner - 1], o->state, smp, buf, cap);
	return n < cap ? n : cap;
}

size_t runtime_set_take_owned(struct runtime_set *set, uint32_t *pids, size_t max)
{
	size_t n = 0;
	while (set && n < max && set->nr_fresh)
		pids[n++] = set->fresh[--set->nr_fresh];
	return n;
}

bool runtime_set_any(const struct runtime_set *set)
{
	return set && set->any;
}

void runtime_set_exit(struct runtime_set *set, uint32_t pid)
{
	struct owned *o = owned_of(set, pid);
	if (o)
		release(set, o);
}

void runtime_set_forget(struct runtime_set *set, uint32_t pid)
{
	uint32_t at;
	if (!set || !hashmap_get(&set->by_pid, pid, &at))
		return;
	if (at && set->procs[at - 1].owner)
		release(set, &set->procs[at - 1]);
	hashmap_remove(&set->by_pid, pid);
	if (at) { /* its entry, for the next process a runtime owns */
		VEC_GROW(set->free_procs, set->nr_free_procs + 1, set->alloc_free_procs);
		set->free_procs[set->nr_free_procs++] = at - 1;
	}
}

void runtime_set_end(struct runtime_set *set)
{
	for (size_t i = 0; set && i < set->nr_procs; i++)
		if (set->procs[i].owner)
			release(set, &set->procs[i]);
}

void runtime_set_sampling_end(struct runtime_set *set)
{
	for (size_t i = 0; set && i < set->nr; i++)
		if (set->table[i]->sampling_end)
			set->table[i]->sampling_end(set->run[i]);
}

bool runtime_set_await_exit(struct runtime_set *set)
{
	bool any = false;
	for (size_t i = 0; set && i < set->nr; i++)
		if (set->table[i]->await_exit && set->table[i]->await_exit(set->run[i]))
			any = true;
	return any;
}

void runtime_set_perfmaps(struct runtime_set *set, void (*add)(void *arg, uint32_t pid, const char *text, size_t len),
			  void *arg)
{
	for (size_t i = 0; set && i < set->nr; i++)
		if (set->table[i]->perfmaps)
			set->table[i]->perfmaps(set->run[i], add, arg);
}

void runtime_set_merge(struct runtime_set *set, uint32_t owner, const struct runtime_stack *stack,
		       void (*emit)(void *arg, const char *name, size_t len), void *arg)
{
	if (!set || !owner || owner > set->nr || !set->table[owner - 1]->merge)
		return;
	set->table[owner - 1]->merge(set->run[owner - 1], stack, emit, arg);
}

bool runtime_set_source(struct runtime_set *set, uint32_t owner, const char *name, size_t len,
			struct runtime_source *out)
{
	if (!set || !owner || owner > set->nr || !set->table[owner - 1]->source)
		return false;
	return set->table[owner - 1]->source(set->run[owner - 1], name, len, out);
}

void runtime_set_summary(struct runtime_set *set, char *buf, size_t cap)
{
	size_t len = 0;
	if (cap)
		buf[0] = 0;
	for (size_t i = 0; set && i < set->nr && len + 1 < cap; i++) {
		const struct record_runtime *rt = set->table[i];
		char line[512] = "";
		if (rt->summary)
			rt->summary(set->run[i], line, sizeof(line));
		if (line[0])
			len += (size_t)snprintf(buf + len, cap - len, "%s\n", line);
	}
}

void runtime_set_close(struct runtime_set *set)
{
	if (!set)
		return;
	runtime_set_end(set);
	for (size_t i = 0; i < set->nr; i++)
		if (set->table[i]->close)
			set->table[i]->close(set->run[i]);
	free(set->run);
	free(set->procs);
	free(set->fresh);
	free(set->free_procs);
	hashmap_release(&set->by_pid);
	free(set);
}
