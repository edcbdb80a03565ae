/* One sample folded (fold_sample.h): its process name, then its frames,
 * root first, as perf script resolves them (sample_frames.h) and named by
 * stackcollapse-perf.pl's rules (profile/frame_rules.h), or its callchain
 * straight to the trie (fold_chain.h) when nothing needs it frame by
 * frame. */
#include "perfdata/fold_sample.h"

#include "base/alloc.h"
#include "base/hash.h"
#include "perfdata/fold_chain.h"
#include "perfdata/perfdata.h"
#include "profile/frame_sites.h"
#include "profile/time_cells.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- process name ------------------------------------------------------------ */

/* The root frame (process name) the script reads from perf script's header
 * text buf[0..n), or UINT32_MAX when its regex does not match there. */
static uint32_t header_pname(struct folder *f, const char *buf, size_t n)
{
	struct frame_slice comm, first, second;
	if (!frame_match_header(buf, n, &comm, &first, &second))
		return UINT32_MAX;
	if (memchr(comm.s, '\n', comm.n))
		return UINT32_MAX; /* the script reads lines: '.' never crosses one */
	f->parts.len = f->parts.nr = 0;
	frame_pname(comm, first, second, f->o->pid, f->o->tid, &f->parts);
	return profile_sym(f->p, f->parts.buf, f->parts.len);
}

/* Process name for a sample, or UINT32_MAX when the header would not be
 * recognized (the sample is then dropped, as the script drops it). When
 * the header regex matches inside "COMM TID " the result depends on the
 * thread only and is cached; otherwise the whole line decides. */
static uint32_t sample_pname(struct folder *f, const char *comm, const struct pd_sample *s, bool *by_thread)
{
	*by_thread = true;
	uint64_t key = hash_mix((uint64_t)(uintptr_t)comm ^ 0x9e3779b97f4a7c15ull,
				((uint64_t)(uint32_t)s->pid << 32 | (uint32_t)s->tid) + 1);
	uint32_t v;
	if (hashmap_get(&f->pname_cache, key, &v)) {
		const struct pname_entry *pe = &f->pnames[v];
		if (pe->comm == comm && pe->pid == s->pid && pe->tid == s->tid)
			return pe->sym;
	}
	f->parts.len = f->parts.nr = 0;
	if (frame_thread_pname(comm, s->pid, s->tid, f->o->script_pid, f->o->pid, f->o->tid, &f->parts)) {
		uint32_t sym = profile_sym(f->p, f->parts.buf, f->parts.len);
		VEC_GROW(f->pnames, f->nr_pnames + 1, f->pnames_alloc);
		f->pnames[f->nr_pnames] = (struct pname_entry){ comm, s->pid, s->tid, sym };
		bool ins;
		*hashmap_upsert(&f->pname_cache, key, (uint32_t)f->nr_pnames, &ins) = (uint32_t)f->nr_pnames;
		f->nr_pnames++;
		return sym;
	}
	/* Not within "COMM TID ": the whole header line decides (and the
	 * result may differ per sample, so it is not cached). */
	*by_thread = false;
	size_t k = script_header(&f->script, comm, s);
	return header_pname(f, f->script.buf, k);
}

/* ---- frames ------------------------------------------------------------------ */

static size_t dso_build_id(void *sym, const char *dso, uint8_t id[FRAME_BUILD_ID_MAX])
{
	return sym_dso_build_id(sym, dso, false, id);
}

/* report_opts.sites (pprof output): where the frame's names live. */
static void note_sites(struct folder *f, const struct resolved_frame *r, const uint32_t *syms, uint32_t n)
{
	if (f->o->sites && !r->inlined)
		frame_sites_note_dso(f->p, r->dso, r->addr, syms, n, dso_build_id, f->sym);
}

/* Push the folded frames of one resolved frame below node. */
static node_t push_frame(struct folder *f, node_t node, const struct resolved_frame *r, bool java)
{
	if (f->inlines && frame_inline_applies(r->dso, strlen(r->dso))) {
		const uint32_t *syms;
		uint32_t n;
		if (inline_frames_of(f->inlines, f->p, r->name, r->offset, r->dso, r->addr, &syms, &n)) {
			note_sites(f, r, syms, n);
			for (uint32_t k = 0; k < n; k++)
				node = profile_push(f->p, node, syms[k]);
			return node;
		}
	}
	uint32_t first, count;
	frame_syms(f, r, java, &first, &count);
	note_sites(f, r, f->seq_syms + first, count);
	for (uint32_t k = 0; k < count; k++)
		node = profile_push(f->p, node, f->seq_syms[first + k]);
	return node;
}

/* The version of the sample's address space (sym_space_version): a view's
 * does not change during the sample. */
static uint64_t space_version(struct folder *f, const struct pd_sample *s)
{
	return f->look.snap ? f->look.snap->version : sym_space_version(f->sym, s->pid, s->tid);
}

/* ---- samples ------------------------------------------------------------------ */

/* The unit of the counts, which are sums of the samples' periods (as
 * stackcollapse-perf sums them), or 1 per sample without a period. */
static const char *count_unit(const struct pd_attr *a)
{
	enum { TYPE_HARDWARE = 0, TYPE_SOFTWARE = 1, HW_CYCLES = 0, HW_INSTRUCTIONS = 1, SW_CPU_CLOCK = 0,
	       SW_TASK_CLOCK = 1 };
	if (!(a->sample_type & PD_SAMPLE_PERIOD))
		return "samples";
	if (a->type == TYPE_SOFTWARE && (a->config == SW_CPU_CLOCK || a->config == SW_TASK_CLOCK))
		return "ns";
	uint32_t hw = (uint32_t)a->config; /* above: the PMU of a hybrid CPU */
	if (a->type == TYPE_HARDWARE && hw == HW_CYCLES)
		return "cycles";
	if (a->type == TYPE_HARDWARE && hw == HW_INSTRUCTIONS)
		return "instructions";
	return "events";
}

/* The two hashes that identify a kernel callchain under its process name,
 * address-space version, event (and CPU with --per-cpu). */
static void chain_key(struct folder *f, const struct pd_sample *s, uint64_t version, uint32_t pname, uint64_t *h1,
		      uint64_t *h2)
{
	if (f->o->per_cpu) /* the leaf is under the sample's CPU frame (mixed in: a
			      plain XOR let two address spaces' chains meet) */
		version = hash_u64(version ^ hash_u64((uint64_t)s->cpu + 1));
	uint64_t seed = hash_mix(version ^ 0x243f6a8885a308d3ull,
				 ((uint64_t)pname << 32 | (uint32_t)s->nr_callchain) + 1) ^
			(uint64_t)(uintptr_t)s->attr;
	*h1 = hash_bytes(s->callchain, (size_t)s->nr_callchain * 8) ^ hash_u64(seed);
	uint64_t h = seed * 0x9e3779b97f4a7c15ull + 1;
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		h ^= pd_u64(s->callchain + 8 * i);
		h = (h << 29 | h >> 35) * 0xbf58476d1ce4e5b9ull;
	}
	*h2 = h;
}

/* The "CPU N" frame of --per-cpu. */
static sym_t cpu_frame(struct folder *f, const struct pd_sample *s)
{
	char cpu[24] = "CPU ?";
	if (s->attr->sample_type & PD_SAMPLE_CPU)
		snprintf(cpu, sizeof(cpu), "CPU %" PRIu32, s->cpu);
	return profile_sym(f->p, cpu, strlen(cpu));
}

/* Count a sample folded here, with its time when the profile keeps time
 * and the sample has one. */
static void count_sample(struct folder *f, const struct pd_sample *s, node_t leaf, uint64_t period)
{
	profile_count_whole(f->p, leaf, period);
	if (f->p->time && (s->attr->sample_type & PD_SAMPLE_TIME))
		time_cells_add(f->p, leaf, s->time, period);
}

/* When samples folded by fold_kept itself (each waits for the pushes'
 * thread to catch up) are at least this many and more than an eighth of
 * those folded, the pushes stop going to a thread. */
enum { SLOW_SAMPLES_UNTHREAD = 64 };

/* Fold a sample of the event kept, of the thread named comm. */
static void fold_kept(struct folder *f, const struct pd_sample *s, const char *comm)
{
	const struct report_opts *o = f->o;
	struct sample_frames *fr = &f->frames;
	/* The process name: the one the thread's last chain went below when
	 * it is the same thread (comm, pid, tid) and was named by it alone
	 * (such a chain is not Java's); else from the cache of names. */
	const struct chain_memo *m = f->memos ? &f->memos[chain_memo_slot(s->tid)] : NULL;
	uint32_t pname;
	bool java = false, by_thread = true;
	if (m && m->n && m->comm == comm && m->tid == s->tid && m->pid == s->pid) {
		pname = m->pname;
	} else {
		pname = sample_pname(f, comm, s, &by_thread);
		if (pname == UINT32_MAX)
			return;
		java = frame_pname_is_java(strpool_str(&f->p->names, pname), strpool_len(&f->p->names, pname));
	}
	uint64_t period = s->period ? s->period : 1;
	if (!(s->attr->sample_type & PD_SAMPLE_PERIOD))
		period = 1;
	if (!f->st->count_unit)
		f->st->count_unit = count_unit(s->attr);

	/* A callchain folds through the per-address cache (fold_callchain)
	 * when it can. Otherwise, a callchain seen before for the same process
	 * name and the same version of the thread's address space folds to the
	 * same leaf (two independent 64-bit hashes of the key make a false hit
	 * implausible); with the per-address cache that whole-chain cache costs
	 * more than it saves (b-sys-gcc: 52k hits of 275k samples). */
	bool dwarf = s->regs && s->stack && s->stack_size;
	bool cacheable = !o->script && s->callchain && !dwarf && !f->inlines;
	if (cacheable && !o->sites && !o->time && !java) {
		sym_t cpu = PUSHES_NO_CPU;
		if (o->per_cpu)
			cpu = cpu_frame(f, s);
		fold_callchain(f, s, by_thread ? comm : NULL, cpu, pname, period);
		f->st->folded++;
		return;
	}
	/* The rest folds here, with the kernel's symbols and the trie's nodes
	 * (after the samples before it); at -j1 on two cores, where those are
	 * pushed on a thread of their own, a capture with many such samples
	 * stops that (each would wait for the thread). */
	kernel_catch_up(f);
	fold_pushes_sync(f->pushes);
	if (++f->slow_samples >= SLOW_SAMPLES_UNTHREAD && f->slow_samples > f->st->folded / 8)
		fold_pushes_unthread(f->pushes);
	uint64_t h1 = 0, h2 = 0;
	uint64_t version = cacheable ? space_version(f, s) : 0;
	if (cacheable) {
		chain_key(f, s, version, pname, &h1, &h2);
		uint32_t idx;
		if (hashmap_get(&f->chain_cache, h1, &idx) && f->chains[idx].check == h2) {
			count_sample(f, s, f->chains[idx].leaf, period);
			f->st->folded++;
			return;
		}
	}
	if (!o->script)
		sample_frames_resolve(fr, &f->look, s, o->max_stack, o->no_inline);

	/* Fold root-first: [CPU N,] comm, then frames from the outermost caller. */
	node_t node = PROFILE_ROOT;
	if (o->per_cpu)
		node = profile_push(f->p, node, cpu_frame(f, s));
	node = profile_push(f->p, node, pname);
	for (size_t i = fr->nr; i-- > 0;)
		node = push_frame(f, node, &fr->f[i], java);
	if (cacheable) {
		VEC_GROW(f->chains, f->nr_chains + 1, f->chains_alloc);
		f->chains[f->nr_chains] = (struct chain_entry){ h2, node };
		bool ins;
		*hashmap_upsert(&f->chain_cache, h1, (uint32_t)f->nr_chains, &ins) = (uint32_t)f->nr_chains;
		f->nr_chains++;
	}
	count_sample(f, s, node, period);
	f->st->folded++;
}

/* --time: a sample outside the ranges (or without a time) is left out. */
static bool in_ranges(const struct report_opts *o, const struct pd_sample *s)
{
	return !o->ranges || ((s->attr->sample_type & PD_SAMPLE_TIME) && time_ranges_keep(o->ranges, s->time));
}

void fold_sample(void *arg, const struct pd_sample *s)
{
	struct folder *f = arg;
	const struct report_opts *o = f->o;
	const char *comm = sym_sample_thread(f->sym, s->pid, s->tid, &f->space);
	struct sample_frames *fr = &f->frames;
	if (f->kernel_wait && kernel_ready(f))
		kernel_catch_up(f);
	if (o->script) {
		sample_frames_resolve(fr, &f->look, s, o->max_stack, o->no_inline);
		script_write_sample(&f->script, o->script, comm, s, fr->f, fr->nr);
	}
	if (in_ranges(o, s) && folder_keep_event(f, s))
		fold_kept(f, s, comm);
}

void folder_fold(struct folder *f, const struct pd_sample *s, const char *comm, const struct sym_snapshot *snap,
		 uint64_t seq)
{
	uint32_t names = f->p->names.nr, nodes = f->p->nr;
	const char *unit = f->st->count_unit;
	f->look.snap = snap;
	if (!snap)
		sym_sample_thread(f->sym, s->pid, s->tid, &f->space);
	fold_kept(f, s, comm);
	if (!unit && f->st->count_unit)
		f->unit_seq = seq;
	if (f->p->names.nr != names || f->p->nr != nodes) {
		VEC_GROW(f->runs_made, f->nr_runs_made + 1, f->runs_made_alloc);
		f->runs_made[f->nr_runs_made++] = (struct profile_run){ seq, f->p->names.nr, f->p->nr };
	}
}
