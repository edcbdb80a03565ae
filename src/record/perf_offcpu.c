/* record --off-cpu on the perf backend: blocked intervals from the
 * sched_switch tracepoint's samples (switch-out: the stack, prev_state
 * and time) and the kernel's context-switch records (switch-in), handed
 * over in time order across CPUs by perf_ring.c. See record.h for the
 * profile it gives. */
#include "record/perf_offcpu.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "record/host.h"
#include "record/tracefs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sched_switch's report bits for prev_state: S and D, and the preempted
 * flag (TASK_REPORT_MAX, "R+"); 0 is a runnable task that yielded. Both
 * runnable kinds count (as [runnable]) with --wall only. */
#define STATE_PREEMPTED 0x100u
_Static_assert(RECORD_OFFCPU_STATES_ALL == 3, "OFFCPU_SWITCH_FILTER keeps S and D");

/* One thread seen switching out. */
struct blocked {
	uint64_t since;   /* switch-out time, ns */
	uint32_t stack;   /* recorder stack index */
	bool pending;     /* switched out, not yet back */
};

struct offcpu {
	const struct record_opts *opts;
	struct recorder *r;
	struct offcpu_format fmt;
	struct hashmap slot_of;   /* tid -> index into threads */
	struct blocked *threads;
	uint32_t nr_threads, alloc_threads;
	uint64_t min_ns, max_ns;  /* 0: no bound */
	struct offcpu_counts counts;
};

/* "field:long prev_state;\toffset:32;\tsize:8;\tsigned:1;" -> offset and
 * size of a field named name; 0 when the line is another field. */
static int field_of(const char *line, const char *name, uint32_t *offset, uint32_t *size)
{
	const char *f = strstr(line, "field:");
	const char *semi = f ? strchr(f, ';') : NULL;
	if (!semi)
		return 0;
	/* The name is the last word before ';' (after the type; arrays end in [N]). */
	const char *end = semi;
	const char *bracket = memchr(f, '[', (size_t)(semi - f));
	if (bracket)
		end = bracket;
	const char *start = end;
	while (start > f && start[-1] != ' ' && start[-1] != '\t')
		start--;
	if ((size_t)(end - start) != strlen(name) || strncmp(start, name, (size_t)(end - start)))
		return 0;
	const char *o = strstr(semi, "offset:"), *s = strstr(semi, "size:");
	if (!o || !s)
		return -1;
	*offset = (uint32_t)strtoul(o + 7, NULL, 10);
	*size = (uint32_t)strtoul(s + 5, NULL, 10);
	return 1;
}

int offcpu_format_read(struct offcpu_format *f)
{
	memset(f, 0, sizeof(*f));
	char path[256];
	FILE *in = tracefs_open("events/sched/sched_switch/format", path, sizeof(path));
	if (!in)
		return error("--off-cpu: cannot read the sched_switch tracepoint's format %s: %s (tracefs needs "
			     "root)", path, strerror(errno));
	char line[512];
	uint32_t size_pid = 0, size_next = 0;
	bool have_id = false;
	while (fgets(line, sizeof(line), in)) {
		if (!strncmp(line, "ID: ", 4)) {
			f->id = strtoull(line + 4, NULL, 10);
			have_id = true;
		}
		field_of(line, "prev_pid", &f->prev_pid, &size_pid);
		field_of(line, "prev_state", &f->prev_state, &f->prev_state_size);
		field_of(line, "next_pid", &f->next_pid, &size_next);
	}
	fclose(in);
	if (!have_id || size_pid != 4 || size_next != 4 ||
	    (f->prev_state_size != 4 && f->prev_state_size != 8))
		return error("%s: not the sched_switch format scorch knows (prev_pid, prev_state, "
			     "next_pid)", path);
	f->min_size = f->prev_state + f->prev_state_size;
	if (f->prev_pid + 4 > f->min_size)
		f->min_size = f->prev_pid + 4;
	if (f->next_pid + 4 > f->min_size)
		f->min_size = f->next_pid + 4;
	return 0;
}

struct offcpu *offcpu_new(const struct record_opts *o, struct recorder *r, const struct offcpu_format *fmt)
{
	struct offcpu *oc = xcalloc(1, sizeof(*oc));
	oc->opts = o;
	oc->r = r;
	oc->fmt = *fmt;
	hashmap_init(&oc->slot_of);
	oc->min_ns = o->min_block_us * 1000;
	oc->max_ns = o->max_block_us * 1000;
	return oc;
}

void offcpu_free(struct offcpu *oc)
{
	if (!oc)
		return;
	hashmap_release(&oc->slot_of);
	free(oc->threads);
	free(oc);
}

static struct blocked *thread_of(struct offcpu *oc, uint32_t tid)
{
	bool inserted;
	uint32_t *slot = hashmap_upsert(&oc->slot_of, tid, oc->nr_threads, &inserted);
	if (!inserted)
		return &oc->threads[*slot];
	VEC_GROW(oc->threads, oc->nr_threads + 1, oc->alloc_threads);
	struct blocked *b = &oc->threads[oc->nr_threads++];
	memset(b, 0, sizeof(*b));
	return b;
}

/* A finished block of dur ns: counted when the filters let it through. */
static void block_end(struct offcpu *oc, struct blocked *b, uint64_t dur)
{
	b->pending = false;
	if ((oc->min_ns && dur < oc->min_ns) || (oc->max_ns && dur > oc->max_ns)) {
		oc->counts.filtered++;
		return;
	}
	recorder_count(oc->r, b->stack, 1, dur);
}

static uint64_t raw_u64(const uint8_t *raw, uint32_t off, uint32_t size)
{
	if (size == 4) {
		uint32_t v;
		memcpy(&v, raw + off, 4);
		return v;
	}
	uint64_t v;
	memcpy(&v, raw + off, 8);
	return v;
}

bool offcpu_is_switch(const struct offcpu *oc, const void *raw, size_t raw_len)
{
	uint16_t type;
	if (raw_len < oc->fmt.min_size || raw_len < 2)
		return false;
	memcpy(&type, raw, 2); /* common_type: the tracepoint's id */
	return type == (uint16_t)oc->fmt.id;
}

void offcpu_switch_out(struct offcpu *oc, struct record_sample *s, const void *raw, size_t raw_len)
{
	const uint8_t *p = raw;
	if (!offcpu_is_switch(oc, raw, raw_len))
		return;
	uint32_t prev = (uint32_t)raw_u64(p, oc->fmt.prev_pid, 4);
	uint64_t state = raw_u64(p, oc->fmt.prev_state, oc->fmt.prev_state_size);
	if (!prev || prev != s->tid)
		return; /* the idle task; or not the task the sample names */
	struct blocked *b = thread_of(oc, prev);
	if (b->pending) {
		/* Switched out twice: the switch-in between was lost. */
		b->pending = false;
		oc->counts.lost_end++;
	}
	bool runnable = state & STATE_PREEMPTED || !state;
	if (runnable ? !oc->opts->wall : !(state & RECORD_OFFCPU_STATES_ALL))
		return; /* runnable (preempted, yielded) without --wall, or not a sleep state */
	if ((!runnable && !(state & oc->opts->off_cpu_states)) ||
	    !record_cpu_wanted(oc->opts, (int)s->cpu)) {
		oc->counts.filtered++;
		return;
	}
	s->off_cpu = true;
	s->runnable = runnable;
	/* Unwound and interned now, while the process and its maps live. */
	uint32_t stack = recorder_stack(oc->r, s);
	b->stack = stack;
	b->since = s->time;
	b->pending = true;
}

void offcpu_on_cpu(struct offcpu *oc, const struct record_sample *s)
{
	if (oc->opts->wall && s->pid && record_cpu_wanted(oc->opts, (int)s->cpu))
		recorder_sample(oc->r, s);
}

void offcpu_switch_in(struct offcpu *oc, uint32_t tid, uint64_t time)
{
	uint32_t slot;
	if (!tid || !hashmap_get(&oc->slot_of, tid, &slot))
		return;
	struct blocked *b = &oc->threads[slot];
	if (!b->pending)
		return;
	block_end(oc, b, time > b->since ? time - b->since : 0);
}

void offcpu_finish(struct offcpu *oc, uint64_t end, struct offcpu_counts *counts)
{
	for (uint32_t i = 0; i < oc->nr_threads; i++) {
		struct blocked *b = &oc->threads[i];
		if (!b->pending)
			continue;
		oc->counts.open++;
		block_end(oc, b, end > b->since ? end - b->since : 0);
	}
	*counts = oc->counts;
}
