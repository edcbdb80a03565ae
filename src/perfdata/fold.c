/* perf.data -> folded stacks (see fold.h): the replay (replay.h) delivers
 * each sample after the address-space records before it; its frames are
 * resolved as perf script resolves them (sample_frames.h) and named by
 * stackcollapse-perf.pl's rules (profile/frame_rules.h). Caches make the
 * rules run once per distinct symbol and thread, and a callchain seen
 * before fold straight to its leaf (callchains: fold_chain.c). */
#include "perfdata/fold.h"
#include "perfdata/fold_threads.h"
#include "perfdata/folder.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hash.h"
#include "perfdata/perfdata.h"
#include "profile/frame_sites.h"
#include "profile/time_cells.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The folded frames of a resolved frame: appends their symbols to
 * seq_syms and returns the start index and count (count 0: the frame is
 * dropped). */
static void fold_frame(struct folder *f, const struct resolved_frame *r, bool java, uint32_t *first,
		       uint32_t *count)
{
	struct frame_fields fields = { .symbol = r->name, .offset = r->offset, .module = r->dso, .pc = r->addr };
	struct frame_opts fo = { .kernel = f->o->kernel, .jit = f->o->jit, .addrs = f->o->addrs, .java = java };
	*first = (uint32_t)f->nr_seq_syms;
	*count = 0;
	f->parts.len = f->parts.nr = 0;
	if (!frame_names_of(&fields, &fo, &f->parts, &f->line, &f->line_alloc))
		return;
	for (size_t i = 0; i < f->parts.nr; i++) {
		struct frame_slice part = frame_part(&f->parts, i);
		VEC_GROW(f->seq_syms, f->nr_seq_syms + 1, f->seq_syms_alloc);
		f->seq_syms[f->nr_seq_syms++] = profile_sym(f->p, part.s, part.n);
		(*count)++;
	}
}

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

/* The folded symbols of a resolved frame: seq_syms[*first .. + *count). */
void frame_syms(struct folder *f, const struct resolved_frame *r, bool java, uint32_t *first, uint32_t *count)
{
	/* Symbol names and module names are owned by the symbolizer at fixed
	 * addresses: the pointer plus a tag identifies the names, unless the
	 * [unknown <PC>] shows the address, or the module holds " (" (the
	 * script then reads the offset into the name). */
	uint64_t key = r->name ? (uint64_t)(uintptr_t)r->name * 4 + (r->inlined ? 2 : 0)
			       : (uint64_t)(uintptr_t)r->dso * 4 + 1;
	bool cacheable = !(f->o->addrs && !r->name) && !java;
	uint32_t packed;
	if (cacheable && hashmap_get(&f->frame_cache, key, &packed)) {
		*first = packed >> 4;
		*count = packed & 15;
		return;
	}
	fold_frame(f, r, java, first, count);
	if (cacheable && *count < 16 && *first < (1u << 28) && !strstr(r->dso, " (")) {
		bool ins;
		*hashmap_upsert(&f->frame_cache, key, *first << 4 | *count, &ins) = *first << 4 | *count;
	}
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

/* Whether the sample is of the event kept: the first event seen unless one
 * was given. */
static bool keep_event(struct folder *f, const struct pd_sample *s)
{
	const char *ev = s->attr->name;
	if (s->attr == f->kept_attr)
		return true;
	if (!f->filter) {
		f->filter = ev;
		f->filter_defaulted = true;
	}
	if (!strcmp(ev, f->filter)) {
		f->kept_attr = s->attr;
		return true;
	}
	if (f->filter_defaulted && !f->filter_noted && !f->o->quiet) {
		fprintf(stderr, "Filtering for events of type: %s\n", ev);
		f->filter_noted = true;
	}
	f->st->skipped_event++;
	return false;
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

static void warn_unopened(void *arg, const char *dso, const char *file, int err)
{
	(void)arg;
	if (file && strcmp(file, dso))
		warn("cannot open %s for the symbols of %s: %s%s", file, dso, strerror(err),
		     err == EMFILE || err == ENFILE ? " (raise the limit: ulimit -n)" : "");
	else
		warn("cannot open %s for its symbols: %s%s", dso, strerror(err),
		     err == EMFILE || err == ENFILE ? " (raise the limit: ulimit -n)" : "");
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

static void fold_sample(void *arg, const struct pd_sample *s)
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
	if (in_ranges(o, s) && keep_event(f, s))
		fold_kept(f, s, comm);
}

/* ---- the whole file ---------------------------------------------------------- */

/* The build-ids of pd from the from-th on (the header's, then those the
 * record stream brought: the first one of a path counts). */
static void add_build_ids(struct symbolizer *sym, const struct perf_data *pd, size_t from)
{
	for (size_t i = from; i < pd->nr_build_ids; i++)
		sym_add_build_id(sym, pd->build_ids[i].filename, pd->build_ids[i].id, pd->build_ids[i].id_len);
}

/* How the symbol tables are read ahead: for report -j's fold threads
 * (sym_preload_start), or at -j1 on one thread, the kernel's or the
 * files' first (sym_preload_kernel). */
enum preload_kind { PRELOAD_FOR_FOLD_THREADS, PRELOAD_KERNEL_FIRST, PRELOAD_FILES_FIRST };

/* The preload of `kind` for the kernel and the user-space files of the
 * header's build-id table (perf lists those that had samples; modules are
 * not resolved). */
static struct sym_preload *preload_header_files(struct symbolizer *sym, const struct perf_data *pd,
						enum preload_kind kind)
{
	const char **paths = xreallocarray(NULL, pd->nr_build_ids + 1, sizeof(*paths));
	size_t n = 0;
	for (size_t i = 0; i < pd->nr_build_ids; i++) {
		uint16_t mode = pd->build_ids[i].misc & PD_CPUMODE_MASK;
		const char *name = pd->build_ids[i].filename;
		if ((mode != PD_CPUMODE_KERNEL && mode != PD_CPUMODE_GUEST_KERNEL) ||
		    !strcmp(name, "[kernel.kallsyms]"))
			paths[n++] = name;
	}
	struct sym_preload *p = kind == PRELOAD_FOR_FOLD_THREADS
					? sym_preload_start(sym, paths, n)
					: sym_preload_kernel(sym, paths, n, kind == PRELOAD_FILES_FIRST);
	free(paths);
	return p;
}

/* -j1: whether the replay may go on without the kernel's symbols
 * (fold_callchain holds the samples that need them) as far as the options
 * say; the records must also bring no build-id (that could be the
 * kernel's), known once they are read. */
static bool kernel_may_come_late(const struct report_opts *o)
{
	return !o->script && !o->sites && !o->time && !o->inline_addr2line &&
	       o->kernel_test != KERNEL_TEST_AT_ONCE;
}

static int longest_event_name(const struct perf_data *pd)
{
	int w = 0;
	for (size_t i = 0; i < pd->nr_attrs; i++) {
		int l = (int)strlen(pd->attrs[i].name);
		if (l > w)
			w = l;
	}
	return w;
}

struct folder *folder_new(const struct report_opts *o, const struct perf_data *pd, struct profile *p,
			  struct report_stats *st, struct symbolizer *sym, struct sym_reader *reader,
			  enum fold_pushes_mode pushes)
{
	/* sized for SAMPLE_FRAMES_MAX frames: on the heap */
	struct folder *f = xcalloc(1, sizeof(*f));
	*f = (struct folder){ .o = o, .p = p, .st = st, .filter = o->event_filter, .sym = sym,
			      .look = { .sym = sym, .reader = reader }, .unit_seq = UINT64_MAX };
	f->script = (struct script_text){ .with_pid = o->script_pid, .name_width = longest_event_name(pd) };
	hashmap_init(&f->frame_cache);
	hashmap_init(&f->pname_cache);
	hashmap_init(&f->chain_cache);
	f->ip_cache = xmalloc(IP_SLOTS * sizeof(*f->ip_cache));
	for (size_t i = 0; i < IP_SLOTS; i++)
		f->ip_cache[i].count = UINT32_MAX;
	f->file_cache = xcalloc(FILE_SLOTS, sizeof(*f->file_cache));
	f->unknown_run[1] = UINT32_MAX;
	f->runs = xmalloc(SAMPLE_FRAMES_MAX * sizeof(*f->runs));
	f->ips = xmalloc(SAMPLE_FRAMES_MAX * sizeof(*f->ips));
	if (o->inline_addr2line)
		f->inlines = inline_frames_new();
	f->pushes = fold_pushes_new(p, pushes);
	return f;
}

void folder_free(struct folder *f)
{
	if (!f)
		return;
	fold_pushes_free(f->pushes);
	inline_frames_free(f->inlines);
	script_text_release(&f->script);
	hashmap_release(&f->frame_cache);
	hashmap_release(&f->pname_cache);
	hashmap_release(&f->chain_cache);
	free(f->chains);
	frame_parts_release(&f->parts);
	free(f->line);
	free(f->seq_syms);
	free(f->pnames);
	free(f->ip_cache);
	free(f->file_cache);
	for (size_t i = 0; f->memos && i < CHAIN_MEMOS; i++)
		free(f->memos[i].ips);
	free(f->memos);
	free(f->runs);
	free(f->ips);
	free(f->held);
	free(f->held_ips);
	sym_preload_stop(f->kernel_wait);
	free(f->runs_made);
	free(f);
}

bool folder_keep_event(struct folder *f, const struct pd_sample *s)
{
	return keep_event(f, s);
}

const char *folder_event(const struct folder *f)
{
	return f->filter;
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

const struct profile_run *folder_runs(const struct folder *f, size_t *nr)
{
	*nr = f->nr_runs_made;
	return f->runs_made;
}

void folder_add_stats(const struct folder *f, struct report_stats *st, uint64_t *unit_seq)
{
	if (f->st != st) {
		st->folded += f->st->folded;
		st->skipped_event += f->st->skipped_event;
	}
	st->unwound += f->frames.unwound;
	st->unwind_failed += f->frames.unwind_failed;
	if (f->st->count_unit && f->unit_seq < *unit_seq) {
		*unit_seq = f->unit_seq;
		st->count_unit = f->st->count_unit;
	}
}

/* Threads that fold (report_opts.threads), or 1 where the output needs
 * the samples one by one in order: perf script's text, stackcollapse-perf's
 * --inline (one engine's memory), pprof sites, sample times. */
static int fold_threads(const struct report_opts *o)
{
	if (o->script || o->inline_addr2line || o->sites || o->time || o->threads < 1)
		return 1;
	return o->threads;
}

static long usable_cpus(void)
{
	cpu_set_t set;
	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
}

/* Where report -j1's trie pushes go (fold_pushes.h): to a thread of
 * their own when it pays, if its samples may fold straight from their
 * callchains and the process may run on two CPUs or more. */
static enum fold_pushes_mode pushes_mode(const struct report_opts *o)
{
	if (o->pushes_test == PUSHES_TEST_HERE || o->script || o->sites || o->time || o->inline_addr2line)
		return PUSHES_HERE;
	if (o->pushes_test == PUSHES_TEST_THREAD)
		return PUSHES_ON_A_THREAD;
	return usable_cpus() >= 2 ? PUSHES_MAY_THREAD : PUSHES_HERE;
}

int report_fold(const char *path, const void *buf, size_t len, const struct report_opts *o,
		struct profile *p, struct report_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (o->time)
		profile_keep_time(p);
	struct perf_data pd;
	if (perf_data_open(&pd, path, buf, len) < 0)
		return -1;
	if (pd.damaged) {
		st->damaged = true;
		if (!o->keep_going) {
			perf_data_close(&pd);
			return -1;
		}
	}
	/* Symbol tables read while the records are (file mode: the header's
	   build-ids are all there now): the kernel's and those of the files
	   the header says had samples. report -j reads them on a thread of
	   their own; at -j1 one thread reads the kernel's and the files',
	   which the calling thread joins in on once it has sorted the
	   records (sym_preload_finish, sym_preload_files): the files first
	   when the replay may go on without the kernel's symbols, else the
	   kernel's first (the first kernel sample needs them as soon as the
	   records are sorted) */
	int threads = fold_threads(o);
	struct symbolizer *sym = NULL;
	struct sym_preload *preload = NULL;
	size_t header_ids = pd.nr_build_ids;
	if (!pd.pipe) {
		sym = symbolizer_new(&o->sym);
		add_build_ids(sym, &pd, 0);
		enum preload_kind kind = PRELOAD_FOR_FOLD_THREADS;
		if (threads == 1)
			kind = kernel_may_come_late(o) ? PRELOAD_FILES_FIRST : PRELOAD_KERNEL_FIRST;
		preload = preload_header_files(sym, &pd, kind);
	}
	struct replay r = { .pd = &pd };
	int ret = replay_collect(&r);
	st->records = r.records;
	if (ret < 0) {
		st->damaged = true;
		if (!o->keep_going) {
			sym_preload_stop(preload);
			symbolizer_free(sym);
			replay_release(&r);
			perf_data_close(&pd);
			return -1;
		}
		warn("%s: --keep-going: using the %" PRIu64 " records read before the damage", pd.path,
		     st->records);
	}
	/* -j1 with a CPU to spare: the heap the replay is about to take is
	   faulted in there (alloc_heap_fault_in). It takes ~1.1 KB per
	   process (an address space, a thread, names, hash entries: 38 MB
	   for ~33k processes on bench/report.sh churn and on sys300k); three
	   quarters of that, so that little is faulted in for nothing. On
	   churn the main thread's share of samples zeroing huge pages went
	   from 6-31% to 1-10% (six runs each) and its wall 155.1 -> 150.5
	   ms (median of 31 alternating runs), peak RSS the same. */
	if (threads == 1 && usable_cpus() >= 2)
		alloc_heap_fault_in(o->heap, (size_t)(r.forks < SIZE_MAX / 800 ? r.forks * 800 : SIZE_MAX));
	st->sort_moves = replay_sort_by_time(&r);
	/* -j1: the replay need not wait for the kernel's symbols when its
	   samples fold straight from their callchains (fold_callchain) and
	   the records brought no build-id (that could be the kernel's) */
	struct sym_preload *kernel_wait = NULL;
	if (sym) {
		if (threads == 1) {
			if (kernel_may_come_late(o) && pd.nr_build_ids == header_ids)
				kernel_wait = sym_preload_files(preload);
			else
				sym_preload_finish(preload); /* sym is ours again */
			preload = NULL;
		}
		add_build_ids(sym, &pd, header_ids);
	} else {
		sym = symbolizer_new(&o->sym);
		add_build_ids(sym, &pd, 0);
		if (threads > 1)
			preload = preload_header_files(sym, &pd, PRELOAD_FOR_FOLD_THREADS);
	}
	const char *filter;
	struct folder *f = NULL;
	struct report_opts again = *o;
	if (threads > 1) {
		filter = fold_threads_run(&r, sym, o, &pd, p, st, threads);
		if (p->fractional && profile_total(p, 0) >= 0x1p53) {
			/* Sums of doubles this large are rounded, and how
			   depends on the order they were added in: fold again
			   on one thread (notes were printed the first time). */
			sym_preload_stop(preload);
			preload = NULL;
			symbolizer_free(sym);
			sym = symbolizer_new(&o->sym);
			add_build_ids(sym, &pd, 0);
			profile_release(p);
			profile_init(p);
			st->folded = st->skipped_event = st->unwound = st->unwind_failed = 0;
			st->count_unit = NULL;
			r.samples = 0;
			again.quiet = true;
			pd.damage_reported = true;
			threads = 1;
		}
	}
	if (threads == 1) {
		f = folder_new(&again, &pd, p, st, sym, NULL, pushes_mode(o));
		f->kernel_wait = kernel_wait;
		kernel_wait = NULL;
		f->replay = &r;
		/* a process name per sampled thread: at most one per FORK
		   record, and those already there (each growth rehashes) */
		if (r.forks < SIZE_MAX / 64) {
			hashmap_reserve(&f->pname_cache, (size_t)r.forks);
			VEC_RESERVE(f->pnames, (size_t)r.forks, f->pnames_alloc);
		}
		r.defer_kernel_map = defer_kernel_map;
		r.hook_arg = f;
		replay_run(&r, sym, fold_sample, f);
		kernel_catch_up(f);
		fold_pushes_sync(f->pushes); /* p is whole */
		st->pushes_threaded = fold_pushes_threaded(f->pushes);
		uint64_t unit_seq = UINT64_MAX;
		folder_add_stats(f, st, &unit_seq);
		filter = f->filter;
	}
	st->samples = r.samples;
	if (r.damaged)
		st->damaged = true;
	ret = st->damaged && !o->keep_going ? -1 : 0;
	st->unopened = sym_unopened(sym, warn_unopened, NULL);
	if (st->unopened && !ret && !o->keep_going)
		ret = error("%s: %" PRIu64 " file%s wanted for symbols could not be opened (above): their "
			    "frames would be named by file only; --keep-going draws them so", path,
			    st->unopened, st->unopened == 1 ? "" : "s");
	/* For a graph's title (pipe mode delivers these during the walk). */
	snprintf(st->hostname, sizeof(st->hostname), "%s", pd.hostname);
	snprintf(st->cmdline, sizeof(st->cmdline), "%s", pd.cmdline);
	snprintf(st->event, sizeof(st->event), "%s", filter ? filter : "");
	folder_free(f);
	sym_preload_stop(kernel_wait);
	sym_preload_stop(preload);
	symbolizer_free(sym);
	replay_release(&r);
	perf_data_close(&pd);
	return ret;
}
