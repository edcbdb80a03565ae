/* HotSpot's interpreted frames named by their methods, in record's
 * runtime table (after `jit`, which names compiled code from perf maps
 * and owns no process). A JVM (a `java` executable, or libjvm.so mapped)
 * is owned; once its vmStructs are read (src/runtime/hotspot_jvm.h),
 * each sample's user frames inside the template interpreter's code get a
 * token each, leaf first: the id of the method's name read from the
 * frame's Method* slot (frame pointer - 24, read from the sample's stack
 * copy: what the frame held at the sample), 0 when it cannot be read or
 * fails validation (hotspot_method.h). merge() puts the names in place
 * of the `Interpreter` frames the perf map gives them, matched from the
 * root; a stack whose count of `Interpreter` frames is not the count of
 * tokens keeps its native names. Names are cached per process, Method*
 * -> name, checked against the Method's ConstMethod* on every use. */
#include "record/runtime.h"

#include "addrspace/procmaps.h"
#include "addrspace/unwind.h"
#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "profile/frame_rules.h"
#include "runtime/hotspot_jvm.h"
#include "runtime/hotspot_method.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	MAX_CACHED = 16384, /* Method*s remembered per process; then the cache starts over */
	FIND_TRIES = 40,    /* looks for a launcher's libjvm.so, one per FIND_EVERY samples */
	FIND_EVERY = 16,
	MAX_FRAMES = 1024,  /* interpreted frames read per sample (RUNTIME_MAX_TOKENS) */
};

struct jvm_run {
	bool quiet, annotate_jit;
	struct strpool names;          /* id 0: "" (no name) */
	uint32_t jvms, refused;
	struct hashmap counted;        /* pids counted in jvms or refused (a JVM is met again at its exec) */
	struct pending {               /* JVMs refused on a try, to be noted unless read later */
		uint32_t pid;
		const char *why;
		char path[sizeof(((struct hotspot_jvm *)0)->path)];
	} *pending;
	size_t nr_pending, alloc_pending;
	uint64_t frames, named;        /* interpreted frames met, and named */
	uint64_t uncopied;             /* of those, in samples without a stack copy (--call-graph fp) */
	struct frame_parts parts;
	char *line;
	size_t line_alloc;
	char name[HOTSPOT_NAME_CAP];
	uint64_t methods[MAX_FRAMES], addrs[MAX_FRAMES], cms[MAX_FRAMES]; /* one sample's */
};

struct cached {
	uint64_t const_method;
	uint32_t id;                   /* 0: refused */
};

struct jvm_proc {
	struct hotspot_jvm j;
	const char *proc_root;         /* the runtime_process's (it lives as long as the run) */
	enum hotspot_found found;
	const char *why;               /* the last refusal's reason, or NULL */
	size_t pending_at;             /* its entry in run->pending + 1 */
	uint32_t samples, tries;
	struct hashmap by_method;      /* Method* -> index into cache + 1 */
	struct cached *cache;
	size_t nr_cache, alloc_cache;
};

static void *jvm_open(const struct record_opts *opts)
{
	if (opts->kernel_only)
		return NULL;
	struct jvm_run *run = xcalloc(1, sizeof(*run));
	run->quiet = opts->quiet;
	run->annotate_jit = opts->annotate_jit;
	strpool_init(&run->names);
	strpool_intern(&run->names, "", 0);
	hashmap_init(&run->counted);
	return run;
}

/* A java launcher (it maps libjvm.so later), by its executable's name. */
static bool java_executable(const struct runtime_process *proc)
{
	char path[4096], exe[4096];
	snprintf(path, sizeof(path), "%s/%u/exe", proc->proc_root ? proc->proc_root : "/proc", proc->pid);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	const char *base = strrchr(exe, '/');
	return !strcmp(base ? base + 1 : exe, "java");
}

/* One notice and one count for a JVM scorch cannot read. */
static void note_refused(struct jvm_run *run, uint32_t pid, const char *path, const char *why)
{
	bool inserted;
	hashmap_upsert(&run->counted, pid, 1, &inserted);
	if (!inserted)
		return;
	run->refused++;
	if (!run->quiet)
		fprintf(stderr,
			"scorch: notice: java %" PRIu32 " (%s): its interpreted frames are not named (%s): they stay "
			"Interpreter\n",
			pid, path, why);
}

/* Look for the JVM's tables. A refusal is tried again (a launcher's
 * libjvm.so can be met mapped but not yet relocated) up to FIND_TRIES
 * times; one never followed by a read is noted at the end (summary). */
static void look(struct jvm_run *run, struct jvm_proc *p, uint32_t pid, const char *proc_root)
{
	const char *why = NULL;
	p->tries++;
	p->found = hotspot_jvm_find(&p->j, pid, proc_root, &why);
	if (p->found == HOTSPOT_REFUSED) {
		p->why = why ? why : "unknown";
		if (p->tries < FIND_TRIES)
			p->found = HOTSPOT_NONE;
		if (!p->pending_at) {
			VEC_GROW(run->pending, run->nr_pending + 1, run->alloc_pending);
			p->pending_at = ++run->nr_pending;
		}
		struct pending *one = &run->pending[p->pending_at - 1];
		one->pid = pid;
		one->why = p->why;
		memcpy(one->path, p->j.path, sizeof(one->path));
		return;
	}
	bool inserted;
	if (p->found == HOTSPOT_FOUND && (hashmap_upsert(&run->counted, pid, 1, &inserted), inserted))
		run->jvms++;
}

/* Does the model of proc's mappings (as read so far) hold a libjvm.so?
 * (No syscall: detect runs for every process met, and again each second
 * for sampled ones no runtime owns.) */
static bool maps_libjvm(const struct runtime_process *proc)
{
	const struct procmaps *pm = proc->maps;
	uint32_t space = pm ? procmaps_space_of(pm, proc->pid) : UINT32_MAX;
	if (space == UINT32_MAX)
		return false;
	uint32_t max = procmaps_space_pieces_max(pm, space);
	struct map_piece *pieces = xcalloc(max ? max : 1, sizeof(*pieces));
	uint32_t n = procmaps_space_pieces(pm, space, pieces);
	bool found = false;
	for (uint32_t i = 0; i < n && !found; i++) {
		const char *path = strpool_str(&pm->paths, pm->maps[pieces[i].id].path);
		size_t len = strlen(path);
		found = len >= 10 && !strcmp(path + len - 10, "/libjvm.so");
	}
	free(pieces);
	return found;
}

static void *jvm_detect(void *arg, const struct runtime_process *proc)
{
	struct jvm_run *run = arg;
	if (!run || (!java_executable(proc) && !maps_libjvm(proc)))
		return NULL;
	struct jvm_proc *p = xcalloc(1, sizeof(*p));
	p->proc_root = proc->proc_root;
	look(run, p, proc->pid, proc->proc_root);
	hashmap_init(&p->by_method);
	return p;
}

/* The name id of method (0: refused), read once and cached; cm: its
 * ConstMethod* as read now (0: unreadable). */
static uint32_t method_id(struct jvm_run *run, struct jvm_proc *p, uint64_t method, uint64_t cm)
{
	uint32_t at;
	bool cached = hashmap_get(&p->by_method, method, &at);
	if (!hotspot_plausible(cm))
		/* the process is gone (its last samples are read after it
		 * exits): the name the Method* had when it was read, if it was */
		return cached ? p->cache[at - 1].id : 0;
	if (cached && p->cache[at - 1].const_method == cm)
		return p->cache[at - 1].id;
	uint32_t id = 0;
	if (hotspot_method_name(hotspot_read_process, &p->j.pid, &p->j.layout, method, run->name,
				sizeof(run->name))) {
		/* the names the perf map's lines get: argument lists dropped, _[j] with --annotate-jit */
		struct frame_opts fo = { .jit = run->annotate_jit, .java = true };
		struct frame_fields fr = { .symbol = run->name, .module = "/tmp/perf-1.map" };
		run->parts.len = run->parts.nr = 0;
		if (frame_names_of(&fr, &fo, &run->parts, &run->line, &run->line_alloc) && run->parts.nr == 1) {
			struct frame_slice s = frame_part(&run->parts, 0);
			id = strpool_intern(&run->names, s.s, s.n);
		}
	}
	if (p->nr_cache == MAX_CACHED) { /* bounded: start over */
		hashmap_release(&p->by_method);
		hashmap_init(&p->by_method);
		p->nr_cache = 0;
	}
	VEC_GROW(p->cache, p->nr_cache + 1, p->alloc_cache);
	p->cache[p->nr_cache] = (struct cached){ cm, id };
	bool inserted;
	*hashmap_upsert(&p->by_method, method, 0, &inserted) = (uint32_t)++p->nr_cache;
	return id;
}

static uint32_t jvm_sample(void *arg, void *state, const struct runtime_sample *smp, uint64_t *tokens,
			   uint32_t cap)
{
	struct jvm_run *run = arg;
	struct jvm_proc *p = state;
	if (p->found == HOTSPOT_NONE && p->tries < FIND_TRIES && ++p->samples % FIND_EVERY == 0)
		look(run, p, smp->pid, p->proc_root);
	if (p->found != HOTSPOT_FOUND || !hotspot_jvm_interpreter(&p->j))
		return 0;
	struct unwind_stack us = { smp->regs_abi, smp->regs_mask, smp->regs, smp->stack, smp->stack_len,
				   smp->stack_holes };
	/* the interpreted frames' Method*s from the copy (0: none), then all
	 * their ConstMethod*s in one read of the process */
	uint32_t n = 0, k = 0;
	for (uint32_t i = 0; i < smp->nr_user && n < cap && n < MAX_FRAMES; i++) {
		uint64_t at = i ? smp->user[i] - 1 : smp->user[i];
		if (at < p->j.interp_lo || at >= p->j.interp_hi)
			continue;
		uint64_t fp = smp->user_fp ? smp->user_fp[i] : 0, method = 0;
		if (!(fp > HOTSPOT_FRAME_METHOD_OFFSET &&
		      unwind_stack_word(&us, fp - HOTSPOT_FRAME_METHOD_OFFSET, &method) && hotspot_plausible(method)))
			method = 0;
		run->methods[n] = method;
		if (method)
			run->addrs[k++] = method + p->j.layout.method_const_method;
		n++;
	}
	hotspot_read_words(p->j.pid, run->addrs, run->cms, k);
	bool any = false;
	for (uint32_t j = 0, c = 0; j < n; j++) {
		uint32_t id = 0;
		if (run->methods[j])
			id = method_id(run, p, run->methods[j], run->cms[c++]);
		tokens[j] = id;
		any |= id != 0;
		run->named += id != 0;
	}
	run->frames += n;
	run->uncopied += smp->user_fp ? 0 : n;
	return any ? n : 0;
}

static void jvm_exit(void *arg, void *state, uint32_t pid)
{
	struct jvm_proc *p = state;
	(void)arg;
	(void)pid;
	hashmap_release(&p->by_method);
	free(p->cache);
	free(p);
}

static bool interpreter_frame(const char *name, bool annotated)
{
	return !strcmp(name, annotated ? "Interpreter_[j]" : "Interpreter");
}

static void jvm_merge(void *arg, const struct runtime_stack *st,
		      void (*emit)(void *arg, const char *name, size_t len), void *emit_arg)
{
	const struct jvm_run *run = arg;
	uint32_t count = 0;
	for (uint32_t i = 0; i < st->nr_native; i++)
		count += interpreter_frame(st->native[i], run->annotate_jit);
	uint32_t k = st->nr_tokens; /* tokens are leaf first: the root's is the last */
	for (uint32_t i = 0; i < st->nr_native; i++) {
		const char *name = st->native[i];
		if (count == st->nr_tokens && interpreter_frame(name, run->annotate_jit) && st->tokens[--k])
			name = strpool_str(&run->names, (uint32_t)st->tokens[k]);
		emit(emit_arg, name, strlen(name));
	}
}

static void jvm_summary(void *arg, char *buf, size_t cap)
{
	struct jvm_run *run = arg;
	if (cap)
		buf[0] = 0;
	for (size_t i = 0; run && i < run->nr_pending; i++) /* (one notice each: counted once) */
		note_refused(run, run->pending[i].pid, run->pending[i].path, run->pending[i].why);
	if (run)
		run->nr_pending = 0;
	if (!run || !cap || (!run->jvms && !run->refused))
		return;
	const char *refused = run->refused ? " (some JVMs not read: see the notices)" : "";
	if (!run->frames) { /* all compiled, or sampled too briefly: no share to give */
		snprintf(buf, cap, "Java: %" PRIu32 " JVM%s read, no interpreted frame in the samples%s",
			 run->jvms, run->jvms == 1 ? "" : "s", refused);
		return;
	}
	int len = snprintf(buf, cap, "Java: %" PRIu32 " JVM%s read, %.1f%% of %" PRIu64
			   " interpreted frames named by their method%s",
			   run->jvms, run->jvms == 1 ? "" : "s",
			   100.0 * (double)run->named / (double)run->frames, run->frames, refused);
	if (run->uncopied && len > 0 && (size_t)len < cap)
		snprintf(buf + len, cap - (size_t)len,
			 " (%.1f%% in samples without a stack copy, --call-graph fp: they stay Interpreter)",
			 100.0 * (double)run->uncopied / (double)run->frames);
}

static void jvm_close(void *arg)
{
	struct jvm_run *run = arg;
	if (!run)
		return;
	strpool_release(&run->names);
	hashmap_release(&run->counted);
	free(run->pending);
	frame_parts_release(&run->parts);
	free(run->line);
	free(run);
}

const struct record_runtime record_runtime_jvm = {
	.name = "jvm",
	.open = jvm_open,
	.detect = jvm_detect,
	.sample = jvm_sample,
	.exit = jvm_exit,
	.merge = jvm_merge,
	.summary = jvm_summary,
	.close = jvm_close,
};
