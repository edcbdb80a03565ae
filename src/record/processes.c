/* The collector's process table (recorder_impl.h): threads' names and
 * processes' maps as the backends' comm, fork, exit and mmap events (or
 * the first sample of a process) tell them, and the runtimes that look at
 * every process met (runtime.h); what exited is forgotten (recorder_reap),
 * so that the table follows the live processes. recorder.c's stacks read
 * it. */
#include "record/recorder.h"

#include "addrspace/procmaps.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "record/recorder_impl.h"
#include "record/runtime.h"
#include "record/symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Whether a process that forked or exec'ed is one -p or -t asked for
 * (always, for -a and a command). The BPF backend's side band sees every
 * process of the machine under -p and -t, while only the targets are
 * sampled: the runtimes must not look at the others (they gave notices
 * naming unrelated interpreters). */
static bool fresh_is_target(const struct record_opts *o, uint32_t pid)
{
	if (!o || (!o->nr_pids && !o->nr_tids))
		return true;
	for (size_t i = 0; i < o->nr_pids; i++)
		if ((uint32_t)o->pids[i] == pid)
			return true;
	for (size_t i = 0; i < o->nr_tids; i++)
		if ((uint32_t)o->tids[i] == pid)
			return true;
	return false;
}

/* A process met (fresh: just forked or exec'ed): the runtimes look at it
 * (runtime.h). */
void recorder_meet(struct recorder *r, uint32_t pid, bool fresh)
{
	if (!pid)
		return;
	symbols_note_process(r->user_syms, pid, fresh);
	if (!r->runtimes || (fresh && !fresh_is_target(r->opts, pid)))
		return;
	struct runtime_process proc = { pid, r->maps.proc_root, &r->maps };
	runtime_set_meet(r->runtimes, &proc, fresh);
}

uint32_t recorder_intern_comm(struct recorder *r, const char *comm)
{
	size_t n = strnlen(comm, 16);
	return strpool_intern(&r->comms, comm, n);
}

void recorder_comm(struct recorder *r, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	bool inserted;
	uint32_t id = recorder_intern_comm(r, comm);
	*hashmap_upsert(&r->comm_by_tid, tid, id, &inserted) = id;
	if (exec) {
		procmaps_exec(&r->maps, pid);
		recorder_meet(r, pid, true);
	}
}

void recorder_fork(struct recorder *r, uint32_t ppid, uint32_t ptid, uint32_t pid, uint32_t tid)
{
	/* A new thread or process starts with its creator's name (read now
	 * if not known yet: with -p, threads that existed before sampling
	 * are named lazily, and a vfork child that never execs would be
	 * ":TID" once its creator is gone)... */
	if (ptid) {
		uint32_t id = recorder_comm_of(r, ppid, ptid);
		bool inserted;
		*hashmap_upsert(&r->comm_by_tid, tid, id, &inserted) = id;
	}
	if (ppid == pid)
		return;
	/* ...and a new process with its parent's maps: know those first. */
	if (ppid)
		procmaps_read(&r->maps, ppid);
	procmaps_fork(&r->maps, ppid, pid);
	recorder_meet(r, pid, true); /* a new process, whatever had its pid before */
}

/* ---- what exited: its state dropped once no sample of it can still
 * come (recorder_reap). Its stacks stay: they hold image refs
 * (images.h), which outlive the processes. ---- */

void recorder_exit(struct recorder *r, uint32_t pid, uint32_t tid)
{
	if (pid == tid) {
		runtime_set_exit(r->runtimes, pid);
		bool inserted;
		hashmap_upsert(&r->exiting, pid, 1, &inserted);
	}
	VEC_GROW(r->gone, r->nr_gone + 2, r->alloc_gone);
	r->gone[r->nr_gone++] = pid;
	r->gone[r->nr_gone++] = tid;
}

bool recorder_exiting(const struct recorder *r, uint32_t pid)
{
	uint32_t one;
	return hashmap_get(&r->exiting, pid, &one);
}

static void forget_process(struct recorder *r, uint32_t pid)
{
	uint32_t at;
	procmaps_forget(&r->maps, pid);
	runtime_set_forget(r->runtimes, pid);
	symbols_forget_process(r->user_syms, pid);
	if (hashmap_get(&r->looked, pid, &at)) {
		hashmap_remove(&r->looked, pid);
		VEC_GROW(r->free_look, r->nr_free_look + 1, r->alloc_free_look);
		r->free_look[r->nr_free_look++] = at;
	}
	hashmap_remove(&r->exiting, pid);
	r->reaped++;
}

void recorder_reap(struct recorder *r)
{
	/* What exited before the last call goes now: one call's delay for
	 * whatever of theirs is read late (the BPF backend's time cells,
	 * read a quarter of a second after they end). */
	for (size_t i = 0; i + 1 < r->reap_from; i += 2) {
		uint32_t pid = r->gone[i], tid = r->gone[i + 1];
		hashmap_remove(&r->comm_by_tid, tid);
		if (pid == tid && pid)
			forget_process(r, pid);
	}
	if (r->reap_from) /* (r->gone is NULL until a first exit: memmove's arguments must not be) */
		memmove(r->gone, r->gone + r->reap_from, (r->nr_gone - r->reap_from) * sizeof(*r->gone));
	r->nr_gone -= r->reap_from;
	r->reap_from = r->nr_gone;
}

void recorder_held(const struct recorder *r, struct recorder_held *h)
{
	h->spaces = (uint32_t)r->maps.by_pid.nr;
	h->mappings = procmaps_live(&r->maps);
	h->images = r->images.nr - r->images.nr_free;
	h->stacks = r->nr_stacks;
	h->threads = (uint32_t)r->comm_by_tid.nr;
	h->reaped = r->reaped;
}

void recorder_mmap(struct recorder *r, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   const char *path)
{
	procmaps_add(&r->maps, pid, start, len, pgoff, path);
}

bool recorder_runtimes_active(const struct recorder *r)
{
	return runtime_set_any(r->runtimes);
}

bool recorder_runtime_owns(const struct recorder *r, uint32_t pid)
{
	return runtime_set_owner(r->runtimes, pid) != 0;
}

size_t recorder_runtimes_owned(struct recorder *r, uint32_t *pids, size_t max)
{
	return runtime_set_take_owned(r->runtimes, pids, max);
}

size_t recorder_runtime_params(struct recorder *r, uint32_t pid, void *buf, size_t cap)
{
	return runtime_set_bpf_params(r->runtimes, pid, buf, cap);
}

size_t recorder_runtime_payload_now(struct recorder *r, const struct record_sample *s, void *buf, size_t cap)
{
	struct runtime_sample smp = {
		.pid = s->pid, .tid = s->tid, .time = s->time, .regs_abi = s->regs_abi, .regs_mask = s->regs_mask,
		.regs = s->regs, .stack = s->stack, .stack_len = s->stack_len,
	};
	return runtime_set_payload_now(r->runtimes, &smp, buf, cap);
}

/* A hash of the file pid runs (/proc/PID/exe), 0 when unreadable. */
static uint64_t exe_hash(const struct recorder *r, uint32_t pid)
{
	char link[4200], target[4096];
	snprintf(link, sizeof(link), "%s/%" PRIu32 "/exe", r->maps.proc_root, pid);
	ssize_t n = readlink(link, target, sizeof(target));
	return n > 0 ? hash_bytes(target, (size_t)n) | 1 : 0;
}

void recorder_runtime_recheck(struct recorder *r, uint32_t pid)
{
	if (!r->runtimes || !pid || runtime_set_owner(r->runtimes, pid))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	bool inserted;
	uint32_t *at = hashmap_upsert(&r->looked, pid, (uint32_t)r->nr_look, &inserted);
	if (inserted && r->nr_free_look) {
		*at = r->free_look[--r->nr_free_look];
		r->look[*at] = (struct looked){ 0, 0 };
	} else if (inserted) {
		VEC_GROW(r->look, r->nr_look + 1, r->alloc_look);
		r->look[r->nr_look++] = (struct looked){ 0, 0 };
	}
	struct looked *l = &r->look[*at];
	uint64_t exe = exe_hash(r, pid);
	if (!inserted && exe == l->exe && now - l->ns < 1000000000u)
		return;
	*l = (struct looked){ exe, now };
	/* (the maps are left to the time-ordered records: a runtime reads
	 * the process's own /proc files) */
	struct runtime_process proc = { pid, r->maps.proc_root, &r->maps };
	runtime_set_meet(r->runtimes, &proc, true);
}

bool recorder_knows(const struct recorder *r, uint32_t pid)
{
	return procmaps_was_read(&r->maps, pid);
}

void recorder_seen(struct recorder *r, uint32_t pid)
{
	if (pid)
		procmaps_read(&r->maps, pid);
	recorder_meet(r, pid, false);
}

void recorder_refresh(struct recorder *r, uint32_t pid)
{
	if (pid)
		procmaps_reread(&r->maps, pid);
}

/* The comm of a thread first seen in a sample (perf does not report the
 * names of tasks that existed before it started). */
uint32_t recorder_comm_of(struct recorder *r, uint32_t pid, uint32_t tid)
{
	uint32_t id;
	if (hashmap_get(&r->comm_by_tid, tid, &id))
		return id;
	char path[4200], buf[64] = "";
	if (!tid) {
		strcpy(buf, "swapper");
	} else {
		snprintf(path, sizeof(path), "%s/%" PRIu32 "/task/%" PRIu32 "/comm", r->maps.proc_root, pid, tid);
		record_read_line(path, buf, sizeof(buf));
		if (!buf[0])
			snprintf(buf, sizeof(buf), ":%" PRIu32, tid);
	}
	id = recorder_intern_comm(r, buf);
	bool inserted;
	*hashmap_upsert(&r->comm_by_tid, tid, id, &inserted) = id;
	return id;
}
