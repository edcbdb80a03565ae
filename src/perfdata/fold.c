/* perf.data -> folded stacks (see fold.h).
 *
 * Two halves: the replay (records sorted by time, as perf's ordered-events
 * queue delivers them, feeding COMM/FORK/MMAP into the symbolizer and
 * resolving each sample's callchain the way thread__resolve_callchain
 * does), and the folding, which applies stackcollapse-perf.pl's regular
 * expressions to the header and frame lines perf script would print. The
 * regexes are emulated by hand (memchr-style scans); a per-symbol cache
 * makes the frame rules run once per distinct symbol, not once per frame. */
#include "perfdata/fold.h"
#include "perfdata/perfdata.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/hash.h"
#include "profile/frame_rules.h"
#include "symbolize/a2l.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_MAX_STACK = 127, MAX_FRAMES = 1024 };

struct entry {
	uint64_t time;
	uint64_t pos;
	uint32_t seq;
	uint8_t in_dbuf;
};

struct resolved {
	const char *name, *dso;
	uint64_t ip, offset;
	uint64_t addr; /* as perf script prints it: dso-relative in a map */
	bool inlined;  /* an inlined function: printed "NAME+0xOFF (inlined)" */
};

struct pname_entry;

/* stackcollapse-perf.pl --inline: addr2line results per (module, pc) */
struct inl_entry {
	const char *dso;
	uint64_t pc;
	uint32_t first, count; /* into seq_syms; count 0: use the frame */
};

struct chain_entry {
	uint64_t check; /* second, independent hash of the key */
	node_t leaf;
};

struct folder {
	const struct report_opts *o;
	struct perf_data *pd;
	struct symbolizer *sym;
	struct profile *p;
	struct report_stats *st;
	struct entry *ents;
	size_t nr, alloc;
	const char *filter; /* event being kept */
	bool filter_defaulted, filter_noted;
	struct hashmap frame_cache; /* symbol/dso pointer -> index into seqs */
	uint32_t *seq_syms;         /* folded frames, several per perf frame */
	size_t nr_seq_syms, seq_syms_alloc;
	struct hashmap pname_cache; /* hash of (comm, pid, tid) -> index into pnames */
	struct pname_entry *pnames;
	size_t nr_pnames, pnames_alloc;
	char *buf;
	size_t buf_alloc;
	uint64_t ips[MAX_FRAMES];
	struct resolved res[MAX_FRAMES];
	/* whole-callchain cache: same chain, thread name and address-space
	 * version -> the same trie leaf */
	int name_width; /* longest event name */
	struct hashmap chain_cache;
	struct chain_entry *chains;
	size_t nr_chains, chains_alloc;
	/* --inline */
	struct hashmap a2l_by_dso; /* dso pointer -> index into a2ls */
	struct a2l **a2ls;
	size_t nr_a2ls, a2ls_alloc;
	struct hashmap inl_cache;  /* hash of (dso, pc) -> index into inls */
	struct inl_entry *inls;
	size_t nr_inls, inls_alloc;
	char **inl_names;          /* one query's names, innermost first */
	struct frame_parts parts;  /* names of one frame or process */
	char *line;                /* scratch for frame_text_of */
	size_t line_alloc;
	size_t nr_inl_names, inl_names_alloc;
};

/* ---- header lines ------------------------------------------------------------ */

static size_t fmt_int(char *out, int64_t v, int width, bool left)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%" PRId64, v);
	size_t k = 0;
	if (!left)
		for (int i = n; i < width; i++)
			out[k++] = ' ';
	memcpy(out + k, tmp, (size_t)n);
	k += (size_t)n;
	if (left)
		for (int i = n; i < width; i++)
			out[k++] = ' ';
	return k;
}

static void grow_buf(struct folder *f, size_t need)
{
	if (need > f->buf_alloc) {
		f->buf_alloc = need * 2;
		f->buf = xrealloc(f->buf, f->buf_alloc);
	}
}

/* The part of perf script's header that precedes the time: "COMM TID " or
 * "COMM PID/TID ". */
static size_t header_prefix(struct folder *f, const char *comm, int32_t pid, int32_t tid)
{
	size_t cl = strlen(comm);
	grow_buf(f, cl + 64);
	char *b = f->buf;
	memcpy(b, comm, cl);
	size_t k = cl;
	b[k++] = ' ';
	if (f->o->script_pid) {
		k += fmt_int(b + k, pid, 5, false);
		b[k++] = '/';
		k += fmt_int(b + k, tid, 5, true);
	} else {
		k += fmt_int(b + k, tid, 5, false);
	}
	b[k++] = ' ';
	return k;
}

/* The whole header line as perf script prints it. */
static size_t header_line(struct folder *f, const char *comm, const struct pd_sample *s)
{
	size_t k = header_prefix(f, comm, s->pid, s->tid);
	const char *ev = s->attr->name;
	grow_buf(f, k + strlen(ev) + (size_t)f->name_width + 128);
	char *b = f->buf;
	if (s->attr->sample_type & PD_SAMPLE_CPU)
		k += (size_t)sprintf(b + k, "[%03" PRIu32 "] ", s->cpu);
	if (s->attr->sample_type & PD_SAMPLE_TIME)
		k += (size_t)sprintf(b + k, "%5" PRIu64 ".%06" PRIu64 ": ", s->time / 1000000000,
				     s->time % 1000000000 / 1000);
	if (s->attr->sample_type & PD_SAMPLE_PERIOD)
		k += (size_t)sprintf(b + k, "%10" PRIu64 " ", s->period);
	/* perf pads event names to the longest one in the file */
	k += (size_t)sprintf(b + k, "%*s: ", f->name_width, ev);
	return k;
}

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

struct pname_entry {
	const char *comm;
	int32_t pid, tid;
	uint32_t sym;
};

/* Process name for a sample, or UINT32_MAX when the header would not be
 * recognized (the sample is then dropped, as the script drops it). When
 * the header regex matches inside "COMM TID " the result depends on the
 * thread only and is cached; otherwise the whole line decides. */
static uint32_t sample_pname(struct folder *f, const char *comm, const struct pd_sample *s)
{
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
	size_t k = header_line(f, comm, s);
	return header_pname(f, f->buf, k);
}

/* ---- frames ------------------------------------------------------------------ */

/* The folded frames of the frame perf script prints as "PC RAW (DSO)":
 * appends their symbols to seq_syms and returns the start index and count
 * (count 0: the frame is dropped). */
static void fold_frame(struct folder *f, const char *raw, const char *dso, const char *pc, bool java,
		       uint32_t *first, uint32_t *count)
{
	struct frame_text fr = frame_text_of(raw, dso, pc, &f->line, &f->line_alloc);
	struct frame_opts fo = { .kernel = f->o->kernel, .jit = f->o->jit, .addrs = f->o->addrs, .java = java };
	*first = (uint32_t)f->nr_seq_syms;
	*count = 0;
	f->parts.len = f->parts.nr = 0;
	if (!frame_names(&fr, &fo, &f->parts))
		return;
	for (size_t i = 0; i < f->parts.nr; i++) {
		struct frame_slice part = frame_part(&f->parts, i);
		VEC_GROW(f->seq_syms, f->nr_seq_syms + 1, f->seq_syms_alloc);
		f->seq_syms[f->nr_seq_syms++] = profile_sym(f->p, part.s, part.n);
		(*count)++;
	}
}

/* ---- samples ------------------------------------------------------------------ */


/* perf script's default text for one sample (header, frames, blank line). */
static void write_script(struct folder *f, const char *comm, const struct pd_sample *s,
			 const struct resolved *res, size_t nfr)
{
	struct out *o = f->o->script;
	size_t k = header_line(f, comm, s);
	out_write(o, f->buf, k);
	out_putc(o, '\n');
	for (size_t i = 0; i < nfr; i++) {
		if (res[i].name)
			out_printf(o, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", res[i].addr, res[i].name,
				   res[i].offset, res[i].dso);
		else
			out_printf(o, "\t%16" PRIx64 " [unknown] (%s)\n", res[i].addr, res[i].dso);
	}
	out_putc(o, '\n');
}

static void collect_inl_name(const char *name, void *arg)
{
	struct folder *f = arg;
	VEC_GROW(f->inl_names, f->nr_inl_names + 1, f->inl_names_alloc);
	f->inl_names[f->nr_inl_names++] = xstrdup(name);
}

/* The frames addr2line -i -f -s -C gives for pc in module, outermost
 * first, as folded symbols; false when the script would keep the frame. */
static bool inline_frames(struct folder *f, const char *dso, uint64_t pc, uint32_t *first,
			  uint32_t *count)
{
	uint64_t key = hash_mix((uint64_t)(uintptr_t)dso ^ 0x5851f42d4c957f2dull, pc + 1);
	uint32_t idx;
	if (hashmap_get(&f->inl_cache, key, &idx) && f->inls[idx].dso == dso && f->inls[idx].pc == pc) {
		*first = f->inls[idx].first;
		*count = f->inls[idx].count;
		return *count > 0;
	}
	uint32_t ai;
	bool ins;
	uint32_t *slot = hashmap_upsert(&f->a2l_by_dso, (uint64_t)(uintptr_t)dso, (uint32_t)f->nr_a2ls, &ins);
	if (ins) {
		VEC_GROW(f->a2ls, f->nr_a2ls + 1, f->a2ls_alloc);
		f->a2ls[f->nr_a2ls++] = a2l_open(dso, true);
	}
	ai = *slot;
	f->nr_inl_names = 0;
	int n = f->a2ls[ai] ? a2l_query(f->a2ls[ai], pc, collect_inl_name, f) : 0;
	*first = (uint32_t)f->nr_seq_syms;
	*count = 0;
	/* the script's test: a result that is empty, "??" or "??:??:0" keeps
	 * the frame */
	bool use = n > 1 || (n == 1 && frame_inline_usable(f->inl_names[0], strlen(f->inl_names[0])));
	for (size_t i = f->nr_inl_names; use && i-- > 0;) {
		VEC_GROW(f->seq_syms, f->nr_seq_syms + 1, f->seq_syms_alloc);
		f->seq_syms[f->nr_seq_syms++] = profile_sym(f->p, f->inl_names[i], strlen(f->inl_names[i]));
		(*count)++;
	}
	for (size_t i = 0; i < f->nr_inl_names; i++)
		free(f->inl_names[i]);
	f->nr_inl_names = 0;
	VEC_GROW(f->inls, f->nr_inls + 1, f->inls_alloc);
	f->inls[f->nr_inls] = (struct inl_entry){ dso, pc, *first, *count };
	*hashmap_upsert(&f->inl_cache, key, (uint32_t)f->nr_inls, &ins) = (uint32_t)f->nr_inls;
	f->nr_inls++;
	return *count > 0;
}

/* Resolve a sample's frames, leaf first, as thread__resolve_callchain
 * (and the DWARF unwinder with inline expansion) would; returns the count. */
static size_t resolve_sample(struct folder *f, const struct pd_sample *s)
{
	const struct report_opts *o = f->o;
	size_t nfr = 0;
	int max_stack = o->max_stack > 0 ? o->max_stack : DEFAULT_MAX_STACK;
	struct resolved *res = f->res;
	size_t res_cap = MAX_FRAMES;
	if (s->callchain) {
		bool kernel = false, hv = false, valid = true;
		int entries = 0;
		for (uint64_t i = 0; i < s->nr_callchain && entries < max_stack; i++) {
			uint64_t ip = pd_u64(s->callchain + 8 * i);
			if (ip >= PD_CONTEXT_MAX) {
				if (ip == PD_CONTEXT_KERNEL)
					kernel = true, hv = false;
				else if (ip == PD_CONTEXT_USER)
					kernel = false, hv = false;
				else if (ip == PD_CONTEXT_HV)
					hv = true; /* perf has no maps for it */
				else {
					valid = false; /* perf drops the chain */
					break;
				}
				continue;
			}
			entries++;
			if (nfr >= res_cap)
				break;
			struct sym_frame fr = { .dso = "[unknown]", .dso_addr = ip };
			if (!hv)
				sym_lookup(f->sym, s->pid, s->tid, ip, kernel, &fr);
			res[nfr].name = fr.name;
			res[nfr].dso = fr.dso;
			res[nfr].ip = ip;
			res[nfr].offset = fr.offset;
			res[nfr].addr = fr.dso_addr;
			res[nfr].inlined = false;
			nfr++;
		}
		if (!valid)
			nfr = 0;
	} else {
		struct sym_frame fr;
		bool kernel = (s->misc & PD_CPUMODE_MASK) == PD_CPUMODE_KERNEL;
		sym_lookup(f->sym, s->pid, s->tid, s->ip, kernel, &fr);
		res[0].name = fr.name;
		res[0].dso = fr.dso;
		res[0].ip = s->ip;
		res[0].offset = fr.offset;
		res[0].addr = fr.dso_addr;
		res[0].inlined = false;
		nfr = 1;
	}
	if (s->regs && s->stack && s->stack_size && (s->attr->sample_type & PD_SAMPLE_STACK_USER)) {
		struct sym_user_regs regs = { .abi = s->regs_abi, .mask = s->attr->sample_regs_user };
		uint64_t rv[64];
		uint32_t nr = s->nr_regs < 64 ? s->nr_regs : 64;
		for (uint32_t i = 0; i < nr; i++)
			rv[i] = pd_u64(s->regs + 8 * i);
		regs.regs = rv;
		int n = sym_unwind_user(f->sym, s->pid, s->tid, &regs, s->stack, (size_t)s->stack_size,
					f->ips, max_stack, NULL);
		if (n > 0)
			f->st->unwound++;
		else
			f->st->unwind_failed++;
		for (int i = 0; i < n && nfr < res_cap; i++) {
			struct sym_frame fr;
			sym_lookup(f->sym, s->pid, s->tid, f->ips[i], false, &fr);
			/* perf expands inlined functions of these frames (only these) */
			const struct sym_inline *chain;
			int nc = o->no_inline ? 0 : sym_inline_chain(f->sym, s->pid, s->tid, f->ips[i], &chain);
			for (int k = 0; k < nc && nfr < res_cap; k++) {
				res[nfr].name = chain[k].name;
				res[nfr].dso = chain[k].inlined ? "inlined" : fr.dso;
				res[nfr].inlined = chain[k].inlined;
				res[nfr].ip = f->ips[i];
				res[nfr].offset = fr.offset;
				res[nfr].addr = fr.dso_addr;
				nfr++;
			}
			if (nc > 0)
				continue;
			res[nfr].name = fr.name;
			res[nfr].dso = fr.dso;
			res[nfr].inlined = false;
			res[nfr].ip = f->ips[i];
			res[nfr].offset = fr.offset;
			res[nfr].addr = fr.dso_addr;
			nfr++;
		}
	}

	return nfr;
}

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

static void fold_sample(struct folder *f, const struct pd_sample *s)
{
	const struct report_opts *o = f->o;
	const char *comm = sym_thread_comm(f->sym, s->pid, s->tid);
	size_t nfr = 0;
	struct resolved *res = f->res;
	if (o->script) {
		nfr = resolve_sample(f, s);
		write_script(f, comm, s, res, nfr);
	}
	/* event filter: the first event seen unless one was given */
	const char *ev = s->attr->name;
	if (!f->filter) {
		f->filter = ev;
		f->filter_defaulted = true;
	}
	if (strcmp(ev, f->filter)) {
		if (f->filter_defaulted && !f->filter_noted && !o->quiet) {
			fprintf(stderr, "Filtering for events of type: %s\n", ev);
			f->filter_noted = true;
		}
		f->st->skipped_event++;
		return;
	}
	uint32_t pname = sample_pname(f, comm, s);
	if (pname == UINT32_MAX)
		return;
	const char *pn = strpool_str(&f->p->names, pname);
	bool java = frame_pname_is_java(pn, strlen(pn));
	uint64_t period = s->period ? s->period : 1;
	if (!(s->attr->sample_type & PD_SAMPLE_PERIOD))
		period = 1;
	if (!f->st->count_unit)
		f->st->count_unit = count_unit(s->attr);

	/* A callchain seen before for the same process name and the same
	 * version of the thread's address space folds to the same leaf. Two
	 * independent 64-bit hashes of the key make a false hit implausible. */
	bool dwarf = s->regs && s->stack && s->stack_size;
	bool cacheable = !o->script && s->callchain && !dwarf && !o->inline_addr2line;
	uint64_t h1 = 0, h2 = 0;
	if (cacheable) {
		uint64_t version = sym_space_version(f->sym, s->pid, s->tid);
		if (o->per_cpu) /* the leaf is under the sample's CPU frame */
			version ^= ((uint64_t)s->cpu + 1) << 40;
		uint64_t seed = hash_mix(version ^ 0x243f6a8885a308d3ull,
					 ((uint64_t)pname << 32 | (uint32_t)s->nr_callchain) + 1) ^
				(uint64_t)(uintptr_t)s->attr;
		h1 = hash_bytes(s->callchain, (size_t)s->nr_callchain * 8) ^ hash_u64(seed);
		h2 = seed * 0x9e3779b97f4a7c15ull + 1;
		for (uint64_t i = 0; i < s->nr_callchain; i++) {
			h2 ^= pd_u64(s->callchain + 8 * i);
			h2 = (h2 << 29 | h2 >> 35) * 0xbf58476d1ce4e5b9ull;
		}
		uint32_t idx;
		if (hashmap_get(&f->chain_cache, h1, &idx) && f->chains[idx].check == h2) {
			profile_count(f->p, f->chains[idx].leaf, (double)period);
			f->st->folded++;
			return;
		}
	}
	if (!o->script)
		nfr = resolve_sample(f, s);

	/* Fold root-first: [CPU N,] comm, then frames from the outermost caller. */
	node_t node = PROFILE_ROOT;
	if (o->per_cpu) {
		char cpu[24] = "CPU ?";
		if (s->attr->sample_type & PD_SAMPLE_CPU)
			snprintf(cpu, sizeof(cpu), "CPU %" PRIu32, s->cpu);
		node = profile_push_str(f->p, node, cpu, strlen(cpu));
	}
	node = profile_push(f->p, node, pname);
	for (size_t i = nfr; i-- > 0;) {
		/* symbol names and dso names are owned by the symbolizer at fixed
		 * addresses: the pointer plus a tag identifies the frame text */
		uint64_t key = res[i].name ? (uint64_t)(uintptr_t)res[i].name * 4 + (res[i].inlined ? 2 : 0)
					   : (uint64_t)(uintptr_t)res[i].dso * 4 + 1;
		uint32_t first, count;
		uint32_t packed;
		if (o->inline_addr2line && frame_inline_applies(res[i].dso, strlen(res[i].dso)) &&
		    inline_frames(f, res[i].dso, res[i].addr, &first, &count)) {
			for (uint32_t k = 0; k < count; k++)
				node = profile_push(f->p, node, f->seq_syms[first + k]);
			continue;
		}
		bool frame_cacheable = !(o->addrs && !res[i].name);
		char pc[20] = "";
		if (o->addrs && !res[i].name)
			snprintf(pc, sizeof(pc), "%" PRIx64, res[i].addr);
		if (frame_cacheable && !java && hashmap_get(&f->frame_cache, key, &packed)) {
			first = packed >> 4;
			count = packed & 15;
		} else {
			fold_frame(f, res[i].name ? res[i].name : "[unknown]", res[i].dso, pc, java, &first,
				   &count);
			if (frame_cacheable && !java && count < 16 && first < (1u << 28)) {
				bool ins;
				*hashmap_upsert(&f->frame_cache, key, first << 4 | count, &ins) =
					first << 4 | count;
			}
		}
		for (uint32_t k = 0; k < count; k++)
			node = profile_push(f->p, node, f->seq_syms[first + k]);
	}
	if (cacheable) {
		VEC_GROW(f->chains, f->nr_chains + 1, f->chains_alloc);
		f->chains[f->nr_chains] = (struct chain_entry){ h2, node };
		bool ins;
		*hashmap_upsert(&f->chain_cache, h1, (uint32_t)f->nr_chains, &ins) = (uint32_t)f->nr_chains;
		f->nr_chains++;
	}
	profile_count(f->p, node, (double)period);
	f->st->folded++;
}

/* ---- replay ------------------------------------------------------------------ */

static int collect(const struct pd_record *r, void *arg)
{
	struct folder *f = arg;
	f->st->records++;
	switch (r->type) {
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
	case PD_RECORD_COMM:
	case PD_RECORD_FORK:
	case PD_RECORD_EXIT:
	case PD_RECORD_SAMPLE:
		break;
	default:
		return 0; /* everything else (and unknown types) is skipped */
	}
	VEC_GROW(f->ents, f->nr + 1, f->alloc);
	struct entry *e = &f->ents[f->nr];
	e->time = r->time;
	e->pos = r->pos;
	e->seq = (uint32_t)f->nr;
	e->in_dbuf = r->in_dbuf;
	f->nr++;
	return 0;
}

static void sort_entries(struct folder *f)
{
	/* perf queues records with a timestamp and delivers them in time order;
	 * records without one (time = UINT64_MAX here) would be delivered at
	 * once: give them the time of the record before them. */
	uint64_t last = 0;
	for (size_t i = 0; i < f->nr; i++) {
		if (f->ents[i].time == UINT64_MAX)
			f->ents[i].time = last;
		else
			last = f->ents[i].time;
	}
	/* perf delivers records in time order (its ordered-events queue);
	 * equal times keep file order. A stable LSD radix sort on the time
	 * (bytes that never differ skipped) does it in a few linear passes:
	 * with per-CPU buffers interleaved, half the records of a system-wide
	 * capture can be out of order, too many for a comparison sort. */
	size_t out_of_order = 0;
	uint64_t all_or = 0, all_and = UINT64_MAX;
	for (size_t i = 0; i < f->nr; i++) {
		if (i && f->ents[i].time < f->ents[i - 1].time)
			out_of_order++;
		all_or |= f->ents[i].time;
		all_and &= f->ents[i].time;
	}
	f->st->sort_moves = out_of_order;
	if (!out_of_order)
		return;
	uint64_t differ = all_or ^ all_and;
	struct entry *tmp = xmalloc(f->nr * sizeof(*tmp));
	struct entry *src = f->ents, *dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!(differ >> shift & 0xff))
			continue;
		size_t count[257] = { 0 };
		for (size_t i = 0; i < f->nr; i++)
			count[(src[i].time >> shift & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < f->nr; i++)
			dst[count[src[i].time >> shift & 0xff]++] = src[i];
		struct entry *t = src;
		src = dst;
		dst = t;
	}
	if (src != f->ents)
		memcpy(f->ents, src, f->nr * sizeof(*src));
	free(tmp);
}

static void replay_record(struct folder *f, const struct entry *e)
{
	const uint8_t *d = pd_record_bytes(f->pd, e->in_dbuf, e->pos);
	struct pd_record r = { .type = pd_u32(d), .misc = pd_u16(d + 4), .size = pd_u16(d + 6),
			       .data = d, .offset = e->pos, .in_dbuf = e->in_dbuf, .pos = e->pos,
			       .time = e->time };
	const uint8_t *p = d + 8;
	size_t n = r.size - 8u;
	switch (r.type) {
	case PD_RECORD_COMM:
		if (n >= 8) {
			const char *c = (const char *)p + 8;
			sym_comm(f->sym, (int32_t)pd_u32(p), (int32_t)pd_u32(p + 4), c, strnlen(c, n - 8),
				 r.misc & (1u << 13));
		}
		break;
	case PD_RECORD_FORK:
		if (n >= 16)
			sym_fork(f->sym, (int32_t)pd_u32(p), (int32_t)pd_u32(p + 4), (int32_t)pd_u32(p + 8),
				 (int32_t)pd_u32(p + 12));
		break;
	case PD_RECORD_EXIT:
		if (n >= 16)
			sym_exit(f->sym, (int32_t)pd_u32(p), (int32_t)pd_u32(p + 8));
		break;
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2: {
		size_t fixed = r.type == PD_RECORD_MMAP ? 32 : 32 + 24 + 8;
		if (n <= fixed)
			break;
		struct sym_mmap m = { 0 };
		m.pid = (int32_t)pd_u32(p);
		m.tid = (int32_t)pd_u32(p + 4);
		m.start = pd_u64(p + 8);
		m.len = pd_u64(p + 16);
		m.pgoff = pd_u64(p + 24);
		uint32_t cpumode = r.misc & PD_CPUMODE_MASK;
		m.kernel = cpumode == PD_CPUMODE_KERNEL || cpumode == PD_CPUMODE_GUEST_KERNEL;
		if (r.type == PD_RECORD_MMAP2) {
			if (r.misc & (1u << 14)) { /* MMAP_BUILD_ID */
				m.build_id_len = p[32] <= 20 ? p[32] : 20;
				m.build_id = p + 36;
			} else {
				m.maj = pd_u32(p + 32);
				m.min = pd_u32(p + 36);
				m.ino = pd_u64(p + 40);
				m.ino_generation = pd_u64(p + 48);
			}
			m.prot = pd_u32(p + 56);
			m.flags = pd_u32(p + 60);
		} else {
			m.prot = (r.misc & (1u << 13)) ? 1 /* PROT_READ: data */ : 4 /* PROT_EXEC */;
		}
		const char *fn = (const char *)p + fixed;
		size_t fl = strnlen(fn, n - fixed);
		char *name = xmemdup0(fn, fl);
		m.filename = name;
		sym_mmap(f->sym, &m);
		free(name);
		break;
	}
	case PD_RECORD_SAMPLE: {
		struct pd_sample s;
		f->st->samples++;
		if (pd_parse_sample(f->pd, &r, &s) < 0) {
			f->st->damaged = true;
			break;
		}
		fold_sample(f, &s);
		break;
	}
	default:
		break;
	}
}

int report_fold(const char *path, const void *buf, size_t len, const struct report_opts *o,
		struct profile *p, struct report_stats *st)
{
	memset(st, 0, sizeof(*st));
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
	struct folder f = { .o = o, .pd = &pd, .p = p, .st = st, .filter = o->event_filter };
	hashmap_init(&f.frame_cache);
	hashmap_init(&f.pname_cache);
	hashmap_init(&f.chain_cache);
	hashmap_init(&f.a2l_by_dso);
	hashmap_init(&f.inl_cache);
	int ret = perf_data_walk(&pd, collect, &f);
	if (ret < 0) {
		st->damaged = true;
		if (!o->keep_going)
			goto out;
		warn("%s: --keep-going: using the %" PRIu64 " records read before the damage", pd.path,
		     st->records);
	}
	ret = 0;
	f.sym = symbolizer_new(&o->sym);
	for (size_t i = 0; i < pd.nr_attrs; i++) {
		int l = (int)strlen(pd.attrs[i].name);
		if (l > f.name_width)
			f.name_width = l;
	}
	for (size_t i = 0; i < pd.nr_build_ids; i++)
		sym_add_build_id(f.sym, pd.build_ids[i].filename, pd.build_ids[i].id, pd.build_ids[i].id_len);
	sort_entries(&f);
	for (size_t i = 0; i < f.nr; i++)
		replay_record(&f, &f.ents[i]);
	if (st->damaged && !o->keep_going)
		ret = -1;
	/* For a graph's title (pipe mode delivers these during the walk). */
	snprintf(st->hostname, sizeof(st->hostname), "%s", pd.hostname);
	snprintf(st->cmdline, sizeof(st->cmdline), "%s", pd.cmdline);
	snprintf(st->event, sizeof(st->event), "%s", f.filter ? f.filter : "");
out:
	symbolizer_free(f.sym);
	hashmap_release(&f.frame_cache);
	hashmap_release(&f.pname_cache);
	hashmap_release(&f.chain_cache);
	free(f.chains);
	for (size_t i = 0; i < f.nr_a2ls; i++)
		a2l_close(f.a2ls[i]);
	free(f.a2ls);
	hashmap_release(&f.a2l_by_dso);
	hashmap_release(&f.inl_cache);
	free(f.inls);
	free(f.inl_names);
	frame_parts_release(&f.parts);
	free(f.line);
	free(f.ents);
	free(f.seq_syms);
	free(f.pnames);
	free(f.buf);
	perf_data_close(&pd);
	return ret;
}
