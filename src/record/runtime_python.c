/* The CPython runtime (runtime.h's contract) over src/runtime/python.h:
 * a process is owned when it runs a CPython whose layout is known; its
 * samples' Python frames (read by the BPF program at the sample, or now
 * by the perf backend: the payload, packed frames of python_abi.h)
 * become tokens, one per frame: the id of its name ("qualname (file)",
 * interned for the whole run) and the entry bit that ends a run of the
 * evaluator; merge() puts each run in place of the evaluator frame that
 * ran it. */
#include "record/runtime.h"

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strpool.h"
#include "runtime/python.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VERSIONS = 8 };

struct py_run {
	bool quiet;
	struct strpool names;     /* frame names, by token id */
	struct hashmap met;       /* pid -> index into versions + 1 (0: not a CPython) */
	struct py_version {
		uint32_t version, procs;
		bool supported;
	} versions[MAX_VERSIONS];
	size_t nr_versions;
	uint64_t samples, named;  /* of owned processes, and those with Python frames */
	uint64_t *frames;         /* one sample's frames read now */
	uint64_t *addrs;          /* their addresses (perf) */
	uint64_t read_late;       /* perf: samples whose frames were read after the sample */
	uint64_t checked;         /* of those, checked against the sample's registers and stack copy */
	uint64_t dropped, trimmed; /* of those: none of them ran at the sample; newer ones left out */
	struct py_source {        /* by name id: where the first code object of that name is */
		uint32_t function, file; /* ids in names */
		int32_t line;
	} *sources;
	size_t sources_alloc;
};

struct py_proc {
	struct python_proc p;
	struct hashmap token_of;  /* code object address -> name id */
};

static void *py_open(const struct record_opts *opts)
{
	struct py_run *run = xcalloc(1, sizeof(*run));
	run->quiet = opts->quiet;
	strpool_init(&run->names);
	strpool_intern(&run->names, "", 0); /* id 0: no source text */
	hashmap_init(&run->met);
	run->frames = xcalloc(PYTHON_MAX_FRAMES, sizeof(uint64_t));
	run->addrs = xcalloc(PYTHON_MAX_FRAMES, sizeof(uint64_t));
	return run;
}

/* Count pid once, under its version. */
static void note_met(struct py_run *run, const struct python_proc *p, bool supported)
{
	bool inserted;
	uint32_t *slot = hashmap_upsert(&run->met, p->pid, 0, &inserted);
	if (!inserted && *slot && (!supported || run->versions[*slot - 1].supported))
		return;
	if (!inserted && *slot) /* read after all (met again): counted as read */
		run->versions[*slot - 1].procs--;
	size_t i = 0;
	while (i < run->nr_versions && (run->versions[i].version != p->version || run->versions[i].supported != supported))
		i++;
	if (i == run->nr_versions) {
		if (i == MAX_VERSIONS)
			return;
		run->versions[run->nr_versions++] = (struct py_version){ p->version, 0, supported };
	}
	run->versions[i].procs++;
	*slot = (uint32_t)i + 1;
	if (!supported && !run->quiet)
		fprintf(stderr,
			"scorch: notice: process %" PRIu32 " runs CPython %u.%u (%s), whose frames scorch cannot "
			"read (%s): its stacks show the interpreter's native frames only\n",
			p->pid, p->version >> 24, (p->version >> 16) & 0xff, p->path,
			p->why ? p->why : "its memory could not be read");
}

static void *py_detect(void *arg, const struct runtime_process *proc)
{
	struct py_run *run = arg;
	struct py_proc *one = xcalloc(1, sizeof(*one));
	enum python_found f = python_detect(&one->p, proc->pid, proc->proc_root);
	if (f != PYTHON_NONE)
		note_met(run, &one->p, f == PYTHON_SUPPORTED);
	if (f != PYTHON_SUPPORTED) {
		python_proc_release(&one->p);
		free(one);
		return NULL;
	}
	hashmap_init(&one->token_of);
	return one;
}

/* Bytes from a frame's start that hold every field the walk reads. */
static uint32_t head_len(const struct python_offsets *o)
{
	if (o->frame_kind == PYTHON_FRAMES_OBJECTS) {
		uint32_t n = o->frame_instr + 4; /* the int f_lasti */
		n = o->frame_previous + 8 > n ? o->frame_previous + 8 : n;
		n = o->frame_code + 8 > n ? o->frame_code + 8 : n;
		return (n + 7) & ~7u;
	}
	uint32_t fields[] = { o->frame_previous + 8, o->frame_code + 8, o->frame_instr + 8, o->frame_owner + 1,
			      o->frame_is_entry != PYTHON_NO_OFFSET ? o->frame_is_entry + 1 : 0 };
	uint32_t n = 0;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		n = fields[i] > n ? fields[i] : n;
	return (n + 7) & ~7u;
}

static size_t py_bpf_params(void *arg, void *state, void *buf, size_t cap)
{
	const struct py_proc *one = state;
	(void)arg;
	struct python_walk_params v = { one->p.runtime, one->p.off, head_len(&one->p.off) };
	if (cap < sizeof(v) || v.head_len > 120) /* the program reads at most 120 bytes of a frame */
		return 0;
	memcpy(buf, &v, sizeof(v));
	return sizeof(v);
}

/* The token of a packed frame: its name's id (read from the process the
 * first time its code object is met) and its entry bit. */
static uint64_t token_of(struct py_run *run, struct py_proc *one, uint64_t frame)
{
	uint64_t code = PYTHON_FRAME_CODE(frame);
	uint32_t id;
	if (!hashmap_get(&one->token_of, code, &id)) {
		python_note_frame(&one->p, frame);
		const char *name = python_frame_name(&one->p, frame, NULL);
		if (!name)
			name = "[python]"; /* its code object could not be read */
		id = strpool_intern(&run->names, name, strlen(name));
		VEC_GROW_ZEROED(run->sources, (size_t)id + 1, run->sources_alloc);
		const char *function, *file;
		int first;
		python_frame_source(&one->p, frame, &function, &file, &first);
		if (!run->sources[id].function && function[0]) /* the first code object of the name wins */
			run->sources[id] = (struct py_source){
				strpool_intern(&run->names, function, strlen(function)),
				strpool_intern(&run->names, file, strlen(file)), first,
			};
		bool inserted;
		*hashmap_upsert(&one->token_of, code, id, &inserted) = id;
	}
	return (uint64_t)id << 1 | PYTHON_FRAME_ENTRY(frame);
}

static uint32_t py_sample(void *arg, void *state, const struct runtime_sample *smp, uint64_t *tokens, uint32_t cap)
{
	struct py_run *run = arg;
	struct py_proc *one = state;
	const uint64_t *frames = smp->payload;
	size_t n = smp->payload_len / sizeof(uint64_t);
	if (!frames) { /* nobody read them at the sample: now, then */
		int got = python_thread_frames(&one->p, smp->tid, run->frames, NULL, PYTHON_MAX_FRAMES);
		frames = run->frames;
		n = got > 0 ? (size_t)got : 0;
	}
	if (n > cap)
		n = cap;
	for (size_t i = 0; i < n; i++) {
		uint64_t f;
		memcpy(&f, frames + i, sizeof(f)); /* (a payload need not be aligned) */
		tokens[i] = token_of(run, one, f);
	}
	run->samples++;
	run->named += n > 0;
	return (uint32_t)n;
}

/* perf: the frames now, less those the sample's registers and stack do
 * not show running then (python_first_at_sample): frames newer than the
 * sample are dropped from the leaf end, and when none of them ran then
 * (the thread moved on to other code), the sample keeps its native
 * frames only, rather than another moment's Python frames. */
static size_t py_payload_now(void *arg, void *state, const struct runtime_sample *smp, void *buf, size_t cap)
{
	struct py_run *run = arg;
	struct py_proc *one = state;
	int max = (int)(cap / sizeof(uint64_t));
	if (max > PYTHON_MAX_FRAMES)
		max = PYTHON_MAX_FRAMES;
	int n = python_thread_frames(&one->p, smp->tid, buf, run->addrs, max);
	if (n <= 0)
		return 0;
	run->read_late++;
	if (smp->regs_abi && smp->regs && smp->stack_len) {
		run->checked++;
		size_t nregs = (size_t)__builtin_popcountll(smp->regs_mask);
		int k = python_first_at_sample(&one->p, buf, run->addrs, n, smp->regs, nregs, smp->stack, smp->stack_len);
		if (k == n) {
			run->dropped++;
			return 0;
		}
		if (k > 0) {
			memmove(buf, (uint64_t *)buf + k, (size_t)(n - k) * sizeof(uint64_t));
			n -= k;
			run->trimmed++;
		}
	}
	return (size_t)n * sizeof(uint64_t);
}

static void py_exit(void *arg, void *state, uint32_t pid)
{
	struct py_proc *one = state;
	(void)arg;
	(void)pid;
	python_proc_release(&one->p);
	hashmap_release(&one->token_of);
	free(one);
}

struct merge {
	const struct py_run *run;
	const struct runtime_stack *st;
	uint32_t *runs; /* run k is tokens [runs[k], runs[k + 1]) */
	uint32_t nr_runs;
	void (*emit)(void *arg, const char *name, size_t len);
	void *arg;
};

/* Run k, outermost frame first. */
static void emit_run(const struct merge *m, uint32_t k)
{
	for (uint32_t j = m->runs[k + 1]; j-- > m->runs[k];) {
		const char *name = strpool_str(&m->run->names, (uint32_t)(m->st->tokens[j] >> 1));
		m->emit(m->arg, name, strlen(name));
	}
}

static void emit_native(const struct merge *m, uint32_t i)
{
	m->emit(m->arg, m->st->native[i], strlen(m->st->native[i]));
}

/* Each activation of the evaluator (_PyEval_EvalFrameDefault) replaced
 * by the run of Python frames it ran. When the counts differ (a sample
 * as a call enters or leaves the evaluator), a whole native chain is
 * matched from the root: a run left over goes at the leaf end of the user
 * frames, an activation left over keeps its name. A chain that lost its
 * root end is matched from the leaf, and runs left over go at the cut. */
static void py_merge(void *arg, const struct runtime_stack *st, void (*emit)(void *arg, const char *name, size_t len),
		     void *emit_arg)
{
	uint32_t *runs = xcalloc(st->nr_tokens + 1, sizeof(*runs));
	struct merge m = { arg, st, runs, 0, emit, emit_arg };
	for (uint32_t j = 0; j < st->nr_tokens; j++)
		if ((st->tokens[j] & 1) || j + 1 == st->nr_tokens)
			runs[++m.nr_runs] = j + 1;
	if (st->whole) {
		uint32_t k = m.nr_runs;
		for (uint32_t i = 0; i < st->nr_native; i++) {
			if (k && python_is_eval_frame(st->native[i]))
				emit_run(&m, --k);
			else
				emit_native(&m, i);
		}
		while (k)
			emit_run(&m, --k);
	} else {
		uint32_t evals = 0;
		for (uint32_t i = 0; i < st->nr_native; i++)
			evals += python_is_eval_frame(st->native[i]);
		for (uint32_t k = m.nr_runs; k-- > evals;)
			emit_run(&m, k);
		uint32_t k = evals;
		for (uint32_t i = 0; i < st->nr_native; i++) {
			if (python_is_eval_frame(st->native[i]) && --k < m.nr_runs)
				emit_run(&m, k);
			else
				emit_native(&m, i);
		}
	}
	free(runs);
}

static bool py_source(void *arg, const char *name, size_t len, struct runtime_source *out)
{
	const struct py_run *run = arg;
	uint32_t id = strpool_find(&run->names, name, len);
	if (id == UINT32_MAX || id >= run->sources_alloc || !run->sources[id].function)
		return false;
	const struct py_source *s = &run->sources[id];
	*out = (struct runtime_source){ strpool_str(&run->names, s->function), strpool_str(&run->names, s->file),
					s->line > 0 ? s->line : 0 };
	return true;
}

static void py_summary(void *arg, char *buf, size_t cap)
{
	const struct py_run *run = arg;
	size_t len = 0;
	buf[0] = 0;
	for (int supported = 1; supported >= 0; supported--) {
		uint32_t procs = 0;
		for (size_t i = 0; i < run->nr_versions; i++)
			procs += run->versions[i].supported == supported ? run->versions[i].procs : 0;
		if (!procs)
			continue;
		len += (size_t)snprintf(buf + len, cap - len, "%s%" PRIu32 " process%s (CPython", len ? "; " : "Python: ",
					procs, procs == 1 ? "" : "es");
		bool first = true;
		for (size_t i = 0; i < run->nr_versions && len < cap; i++) {
			uint32_t v = run->versions[i].version;
			if (run->versions[i].supported != supported || !run->versions[i].procs)
				continue;
			len += (size_t)snprintf(buf + len, cap - len, "%s %u.%u", first ? "" : ",", v >> 24, (v >> 16) & 0xff);
			if (len < cap && (v & 0xffff)) /* from Py_Version; a file name says no more */
				len += (size_t)snprintf(buf + len, cap - len, ".%u", (v >> 8) & 0xff);
			first = false;
		}
		if (len < cap && !supported)
			len += (size_t)snprintf(buf + len, cap - len, ") not read: native frames only");
		else if (len < cap)
			len += (size_t)snprintf(buf + len, cap - len, "), %.1f%% of their samples with Python frames",
						run->samples ? 100.0 * (double)run->named / (double)run->samples : 0.0);
		if (len < cap && supported && run->checked)
			len += (size_t)snprintf(buf + len, cap - len,
						" (read after the sample: %.1f%% dropped, none of them running then; "
						"%.1f%% with newer calls left out)",
						100.0 * (double)run->dropped / (double)run->read_late,
						100.0 * (double)run->trimmed / (double)run->read_late);
		if (len < cap && supported && run->read_late > run->checked)
			len += (size_t)snprintf(buf + len, cap - len,
						" (%.1f%% read after the sample with no stack copy to check them against)",
						100.0 * (double)(run->read_late - run->checked) / (double)run->read_late);
		if (len >= cap)
			break;
	}
}

static void py_close(void *arg)
{
	struct py_run *run = arg;
	strpool_release(&run->names);
	hashmap_release(&run->met);
	free(run->frames);
	free(run->addrs);
	free(run->sources);
	free(run);
}

const struct record_runtime record_runtime_python = {
	.name = "python",
	.open = py_open,
	.detect = py_detect,
	.bpf_params = py_bpf_params,
	.sample = py_sample,
	.payload_now = py_payload_now,
	.exit = py_exit,
	.merge = py_merge,
	.source = py_source,
	.summary = py_summary,
	.close = py_close,
};
