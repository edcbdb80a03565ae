/* Callchains folded straight to the trie (fold_chain.h): each address's
 * folded symbols found once per lookup stamp, and, at report -j1, the
 * samples held while the kernel's symbols are read. */
#include "perfdata/fold_chain.h"

#include "base/alloc.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

/* What the lookup of a callchain address depends on besides the address,
 * as a value that changes when its answer could (a folder looks up either
 * always in views or always live: the two kinds are not told apart). */
static uint64_t entry_stamp(const struct folder *f, bool kernel)
{
	const struct sym_snapshot *v = f->look.snap;
	if (v)
		return kernel ? (uint64_t)(uintptr_t)v->kernel : (uint64_t)(uintptr_t)v->space;
	return sym_lookup_stamp(f->sym, f->space, kernel);
}

/* The folded symbols of callchain address ip (hv: of the hypervisor, which
 * has no maps) into run: first, count. A user address's are those of its
 * file and the address in the file, kept per those (file_cache): the
 * processes of one program, each with its own address space (and, with
 * ASLR, its own addresses), find them again without the symbol lookup. */
static __attribute__((noinline)) void fold_entry(struct folder *f, uint64_t ip, bool kernel, bool hv,
						 uint32_t run[2])
{
	struct sym_frame sf = { .dso = "[unknown]", .dso_addr = ip };
	struct dso *file = NULL;
	struct file_slot *slot = NULL;
	if (hv)
		; /* no lookup */
	else if (f->look.snap)
		sym_snapshot_lookup(f->look.reader, f->look.snap, ip, kernel, &sf);
	else if (kernel)
		sym_lookup_in(f->sym, f->space, ip, true, &sf);
	else if ((file = sym_map_in(f->sym, f->space, ip, &sf))) {
		slot = &f->file_cache[(hash_u64((uint64_t)(uintptr_t)file ^ hash_u64(sf.dso_addr)) >> 20) &
				      (FILE_SLOTS - 1)];
		if (slot->file == file && slot->addr == sf.dso_addr) {
			run[0] = slot->first;
			run[1] = slot->count;
			return;
		}
		sym_symbol_in(f->sym, file, &sf);
	}
	/* In no map (stack words read as return addresses where there are no
	   frame pointers, a third of sys300k's lookups): without --addrs
	   every such address folds the same. */
	bool unknown = !sf.have_map && !f->o->addrs;
	if (unknown && f->unknown_run[1] != UINT32_MAX) {
		run[0] = f->unknown_run[0];
		run[1] = f->unknown_run[1];
		return;
	}
	struct resolved_frame r = { .name = sf.name, .dso = sf.dso, .ip = ip, .offset = sf.offset,
				    .addr = sf.dso_addr };
	frame_syms(f, &r, false, &run[0], &run[1]);
	if (unknown)
		memcpy(f->unknown_run, run, sizeof(f->unknown_run));
	if (slot)
		*slot = (struct file_slot){ file, sf.dso_addr, run[0], run[1] };
}

/* The folded symbols of the callchain addresses ips[0..n) into runs: each
 * address's found once per stamp (the same entries, markers and depth as
 * sample_frames_resolve). The stamps of user addresses stay during a
 * sample (no lookup changes maps); a kernel lookup may load the kernel's
 * symbols, which changes the kernel's. */
static void fold_ips(struct folder *f, const struct chain_ip *ips, size_t n, uint32_t (*runs)[2])
{
	uint64_t user_stamp = entry_stamp(f, false), kernel_stamp = entry_stamp(f, true);
	struct ip_slot *cache = f->ip_cache;
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = ips[i].ip;
		bool kernel = ips[i].kernel, hv = ips[i].hv;
		uint64_t stamp = kernel ? kernel_stamp : user_stamp;
		struct ip_slot *slot = &cache[(hash_u64(ip ^ stamp) >> 24) & (IP_SLOTS - 1)];
		if (!hv && slot->ip == ip && slot->stamp == stamp && slot->count != UINT32_MAX) {
			runs[i][0] = slot->first;
			runs[i][1] = slot->count;
			continue;
		}
		fold_entry(f, ip, kernel, hv, runs[i]);
		if (kernel)
			kernel_stamp = entry_stamp(f, true);
		if (!hv && (kernel ? kernel_stamp : user_stamp) == stamp)
			*slot = (struct ip_slot){ ip, stamp, runs[i][0], runs[i][1] };
	}
}

/* ---- a thread's last chain, again --------------------------------------------------- */

static bool same_ip(const struct chain_ip *a, const struct chain_ip *b)
{
	return a->ip == b->ip && a->kernel == b->kernel && a->hv == b->hv;
}

/* The callchain addresses ips[0..n) (leaf first) folded and pushed below
 * node for thread tid. The outer addresses it shares with the thread's
 * last chain, below the same node and with the same lookup stamps, lead
 * to the nodes they led to then: the same lookups give the same frames,
 * and the trie keeps its nodes. Only the others are looked up and pushed. */
static void fold_push(struct folder *f, const struct pd_sample *s, const char *comm, sym_t cpu, sym_t pname,
		      const struct chain_ip *ips, size_t n, bool hold, uint64_t period)
{
	if (!f->memos)
		f->memos = xcalloc(CHAIN_MEMOS, sizeof(*f->memos));
	int32_t tid = s->tid;
	uint32_t slot = chain_memo_slot(tid);
	struct chain_memo *m = &f->memos[slot];
	uint64_t user_stamp = entry_stamp(f, false), kernel_stamp = entry_stamp(f, true);
	size_t shared = 0;
	if (m->n && m->tid == tid && m->cpu == cpu && m->pname == pname && m->user_stamp == user_stamp &&
	    m->kernel_stamp == kernel_stamp)
		while (shared < n && shared < m->n && same_ip(&ips[n - 1 - shared], &m->ips[shared]))
			shared++;
	size_t rest = n - shared;
	fold_ips(f, ips, rest, f->runs);
	uint64_t kernel_after = entry_stamp(f, true);
	if (shared && kernel_after != kernel_stamp) {
		/* a lookup loaded the kernel's symbols: the shared addresses
		   are looked up again, after it, as the leaf-first order does */
		shared = 0;
		rest = n;
		fold_ips(f, ips, n, f->runs);
		kernel_after = entry_stamp(f, true);
	}
	if (m->alloc < n) {
		m->alloc = (uint32_t)n;
		m->ips = xreallocarray(m->ips, n, sizeof(*m->ips));
	}
	*m = (struct chain_memo){ tid, s->pid, comm, cpu, pname, user_stamp, kernel_after, (uint32_t)n, m->alloc, m->ips };
	for (size_t i = rest; i-- > 0;)
		m->ips[n - 1 - i] = ips[i];
	fold_pushes_chain(f->pushes, cpu, pname, slot, (uint32_t)shared, (const uint32_t(*)[2])f->runs, rest,
			  f->seq_syms, hold, period);
}

/* ---- the kernel's symbols, while they are read ------------------------------------ */

/* At report's default -j1 a thread reads /proc/kallsyms (mostly the kernel
 * formatting it) while the calling thread reads the header's files. The
 * replay does not wait for it:
 * a sample whose kernel frames are its leaf end (what perf's callchains
 * are: kernel entries, then user ones) has its other frames folded (the
 * node they lead to is kept by fold_pushes as a held node) and its place
 * in the replay kept, and the kernel MMAP records met before the first
 * such sample are kept too (the replay's defer_kernel_map). When the
 * thread is done, or before anything that needs the kernel's map (another
 * kind of sample, a later kernel MMAP record, the end), the records are
 * applied and the samples read again, their kernel addresses looked up
 * and folded, in their order. Nothing else reads the kernel's map: a
 * user-space lookup depends on the process's maps only, and the first
 * lookup that loads the kernel's symbols is the same one either way, so
 * every frame is the same. Only the order in which the profile meets
 * names and makes nodes changes: the writers do not depend on it
 * (folded lines and pprof are sorted, speedscope and the HTML viewer
 * number names by the sorted stacks and by name). tests/unit's
 * test_report_fold.c compares both ways on a real capture. */
struct held_sample { /* the held node of the same number (fold_pushes) */
	size_t entry;    /* the sample's in the replay, read and walked again at
			    the catch-up (a copy of its kernel addresses, ~10 MB
			    on a capture of process churn, cost more in page
			    faults than parsing it twice) */
	uint64_t period;
};

/* The callchain addresses of s, leaf first, into ips (n of them; the
 * first *kernel_end up to the last kernel entry). Returns what the walk
 * ended with: < 0 when perf drops the chain. Inlined into both callers:
 * as a call it kept its counts in memory. */
static inline __attribute__((always_inline)) int chain_ips(const struct folder *f, const struct pd_sample *s,
							    struct chain_ip *ips, size_t *n, size_t *kernel_end)
{
	struct callchain_walk w;
	callchain_walk_start(&w, s, f->o->max_stack);
	uint64_t ip;
	int got;
	*n = *kernel_end = 0;
	while ((got = callchain_walk_next(&w, &ip)) > 0 && *n < SAMPLE_FRAMES_MAX) {
		ips[(*n)++] = (struct chain_ip){ ip, w.kernel, w.hv };
		if (w.kernel && !w.hv)
			*kernel_end = *n;
	}
	return got;
}

bool kernel_ready(struct folder *f)
{
	return !f->kernel_late_test && sym_preload_kernel_ready(f->kernel_wait);
}

/* Wait for the kernel's symbols and fold the samples held for them. */
void kernel_catch_up(struct folder *f)
{
	if (!f->kernel_wait)
		return;
	sym_preload_finish(f->kernel_wait);
	f->kernel_wait = NULL;
	replay_apply_deferred(f->replay, f->sym);
	if (f->nr_held && !f->held_ips)
		f->held_ips = xmalloc(SAMPLE_FRAMES_MAX * sizeof(*f->held_ips));
	for (size_t i = 0; i < f->nr_held; i++) {
		const struct held_sample *h = &f->held[i];
		struct pd_sample s;
		size_t n, kernel_end;
		if (replay_sample_at(f->replay, h->entry, &s) < 0)
			continue; /* (it was parsed when held: the same bytes again) */
		bool dropped = chain_ips(f, &s, f->held_ips, &n, &kernel_end) < 0; /* looked up, not pushed */
		fold_ips(f, f->held_ips, kernel_end, f->runs);
		fold_pushes_held(f->pushes, (uint32_t)i, (const uint32_t(*)[2])f->runs, dropped ? 0 : kernel_end,
				 f->seq_syms, h->period);
	}
	f->st->held_for_kernel = f->nr_held;
	free(f->held);
	free(f->held_ips);
	f->held = NULL;
	f->held_ips = NULL;
	f->nr_held = f->held_alloc = 0;
}

/* The replay's hook before a kernel MMAP record: kept for the catch-up
 * while no sample is held (the kernel's symbols are what the thread is
 * reading, and no lookup before the catch-up needs the kernel's map);
 * else the held samples are folded first. */
bool defer_kernel_map(void *arg)
{
	struct folder *f = arg;
	if (f->kernel_wait && !f->nr_held)
		return true;
	kernel_catch_up(f);
	return false;
}

/* ---- callchains -------------------------------------------------------------------- */

/* The sample's addresses, then their folded symbols (fold_chain.h). */
void fold_callchain(struct folder *f, const struct pd_sample *s, const char *comm, sym_t cpu, sym_t pname,
		    uint64_t period)
{
	struct chain_ip *ips = f->ips;
	size_t n, kernel_end; /* ips[0..kernel_end): up to the last kernel entry */
	int got = chain_ips(f, s, ips, &n, &kernel_end);
	/* held while the kernel's symbols are read, if its kernel entries
	   are its leaf end */
	bool hold = f->kernel_wait && kernel_end;
	for (size_t i = 0; hold && i < kernel_end; i++)
		hold = ips[i].kernel && !ips[i].hv;
	if (f->kernel_wait && kernel_end && !hold)
		kernel_catch_up(f);
	if (got < 0) { /* perf drops the chain: looked up, not pushed */
		size_t from = hold ? kernel_end : 0;
		fold_ips(f, ips + from, n - from, f->runs);
		fold_pushes_chain(f->pushes, cpu, pname, PUSHES_NO_MEMO, 0, NULL, 0, NULL, hold, period);
	} else if (hold)
		fold_push(f, s, comm, cpu, pname, ips + kernel_end, n - kernel_end, true, period);
	else
		fold_push(f, s, comm, cpu, pname, ips, n, false, period);
	if (hold) {
		VEC_GROW(f->held, f->nr_held + 1, f->held_alloc);
		f->held[f->nr_held++] = (struct held_sample){ f->replay->at, period };
	}
}
