/* The folder: what report's fold on one thread keeps (process names,
 * frames, the event kept, the callchain caches, the samples held while the
 * kernel's symbols are read), with its API (folder.c). Above it, in this
 * order: fold_chain.c (callchains straight to the trie), fold_sample.c (a
 * sample), fold_threads.c (report -j), fold.c (report_fold). */
#ifndef SCORCH_PERFDATA_FOLDER_H
#define SCORCH_PERFDATA_FOLDER_H

#include "base/hashmap.h"
#include "perfdata/fold.h"
#include "perfdata/fold_pushes.h"
#include "perfdata/inline_frames.h"
#include "perfdata/replay.h"
#include "perfdata/sample_frames.h"
#include "perfdata/script_text.h"
#include "profile/frame_rules.h"
#include "profile/merge_stamped.h"
#include "profile/profile.h"
#include "symbolize/preload.h"
#include "symbolize/snapshot.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pname_entry {
	const char *comm;
	int32_t pid, tid;
	uint32_t sym;
};

struct chain_entry {
	uint64_t check; /* second, independent hash of the key */
	node_t leaf;
};

/* The folded symbols of one callchain address (seq_syms[first .. first +
 * count)) while its lookup answers the same (stamp: entry_stamp). */
struct ip_slot {
	uint64_t ip, stamp; /* count UINT32_MAX: empty */
	uint32_t first, count;
};

/* 384 KiB of slots, which stay in a core's L2: captures of short-lived
 * processes miss anyway (a new address space each) and pay for a larger
 * table's misses; smaller ones miss more than they gain. */
enum { IP_SLOTS = 1 << 14 };

/* The folded symbols of a user file's address (seq_syms[first .. first +
 * count)), for fold_entry; file NULL: empty. */
struct file_slot {
	const struct dso *file;
	uint64_t addr;
	uint32_t first, count;
};

enum { FILE_SLOTS = 1 << 14 };

/* A callchain address and its context (fold_callchain). */
struct chain_ip {
	uint64_t ip;
	bool kernel, hv;
};

struct held_sample;

/* The last callchain one thread folded (fold_chain.c's fold_push): its
 * addresses root first, below which process name (and CPU), under which
 * lookup stamps. A thread's next sample usually shares its outer frames
 * (main, the loop it runs); those are found again by comparing addresses,
 * without their lookups or trie steps (the nodes they led to are kept by
 * fold_pushes, under the memo's slot). */
struct chain_memo {
	int32_t tid, pid;
	const char *comm;                  /* the thread's, when it alone named
					      pname (else NULL) */
	sym_t cpu, pname;                  /* the chain went below these */
	uint64_t user_stamp, kernel_stamp; /* entry_stamp when it was folded */
	uint32_t n, alloc;                 /* n 0: nothing to reuse */
	struct chain_ip *ips;
};

enum { CHAIN_MEMOS = 256 }; /* direct-mapped by tid */

static inline uint32_t chain_memo_slot(int32_t tid)
{
	return ((uint32_t)tid * 0x9e3779b1u) >> 24 & (CHAIN_MEMOS - 1);
}

struct folder {
	const struct report_opts *o;
	struct symbolizer *sym;
	struct frame_lookup look; /* where this thread's lookups go */
	uint32_t space;           /* the sample's address space (look.snap NULL) */
	struct profile *p;         /* its names; its nodes through pushes (after a
				      fold_pushes_sync, also directly) */
	struct fold_pushes *pushes;
	uint32_t slow_samples;     /* folded on this side: fold_kept */
	struct report_stats *st;
	const char *filter; /* event being kept */
	const struct pd_attr *kept_attr; /* the last attribute found to be of it */
	bool filter_defaulted, filter_noted;
	struct sample_frames frames;
	struct script_text script;
	struct inline_frames *inlines; /* --inline */
	struct hashmap frame_cache;    /* symbol/dso pointer -> index into seq_syms */
	uint32_t *seq_syms;            /* folded frames, several per perf frame */
	size_t nr_seq_syms, seq_syms_alloc;
	struct hashmap pname_cache; /* hash of (comm, pid, tid) -> index into pnames */
	struct pname_entry *pnames;
	size_t nr_pnames, pnames_alloc;
	/* whole-callchain cache: same chain, thread name and address-space
	 * version -> the same trie leaf */
	struct hashmap chain_cache;
	struct chain_entry *chains;
	size_t nr_chains, chains_alloc;
	struct ip_slot *ip_cache;  /* IP_SLOTS, direct-mapped */
	struct file_slot *file_cache; /* FILE_SLOTS, direct-mapped, live lookups only */
	struct chain_memo *memos;  /* CHAIN_MEMOS, or NULL until the first */
	uint32_t unknown_run[2];   /* an address in no map (fold_entry);
				      count UINT32_MAX: not made yet */
	uint32_t (*runs)[2];       /* a sample's frames: first, count */
	struct chain_ip *ips;      /* a sample's addresses (fold_callchain) */
	/* while the kernel's symbols are read (kernel_catch_up) */
	struct sym_preload *kernel_wait; /* NULL: read */
	bool kernel_late_test;           /* tests: not read until a record needs them
					    (fold_testing.h) */
	struct replay *replay;           /* its kernel MMAP records kept meanwhile */
	struct held_sample *held;
	size_t nr_held, held_alloc;
	struct chain_ip *held_ips; /* a held sample's addresses, at the catch-up */
	struct frame_parts parts; /* names of one frame or process */
	char *line;               /* scratch for frame_names_of */
	size_t line_alloc;
	/* report -j: what each sample created (struct profile_run), and the
	 * sample that set st->count_unit */
	struct profile_run *runs_made;
	size_t nr_runs_made, runs_made_alloc;
	uint64_t unit_seq;
};

/* One thread's folding state: its caches, and the profile p it folds into
 * (stats into st). reader NULL: lookups go to sym as it is now.
 * pushes: where its trie pushes go (fold_pushes.h); unless PUSHES_HERE, p
 * is whole only after fold_pushes_sync or folder_free. */
struct folder *folder_new(const struct report_opts *o, const struct perf_data *pd, struct profile *p,
			  struct report_stats *st, struct symbolizer *sym, struct sym_reader *reader,
			  enum fold_pushes_mode pushes);
void folder_free(struct folder *f);

/* Whether s is of the event folded (the first one seen unless
 * --event-filter); notes and counts the others (in f's stats). */
bool folder_keep_event(struct folder *f, const struct pd_sample *s);
/* The event folded, or NULL before the first sample. */
const char *folder_event(const struct folder *f);

/* What each sample folded by folder_fold created, for profile_merge_stamped. */
const struct profile_run *folder_runs(const struct folder *f, size_t *nr);

/* Add f's counts to st (folded and skipped only when f has stats of its
 * own), and its count unit when f folded a sample before *unit_seq. */
void folder_add_stats(const struct folder *f, struct report_stats *st, uint64_t *unit_seq);

/* The folded symbols of a resolved frame: seq_syms[*first .. + *count). */
void frame_syms(struct folder *f, const struct resolved_frame *r, bool java, uint32_t *first, uint32_t *count);

#endif
