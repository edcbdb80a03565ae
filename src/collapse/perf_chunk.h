/* Internal to the perf script collapser (perf_script.c, perf_state.c,
 * perf_fast.c): the configuration shared by the threads, a piece of input
 * with its messages, one thread's state and caches (a "chunk": every piece
 * a thread folds goes into its caches and profile), and the functions
 * between the files. */
#ifndef SCORCH_COLLAPSE_PERF_CHUNK_H
#define SCORCH_COLLAPSE_PERF_CHUNK_H

#include "base/hashmap.h"
#include "collapse/collapse.h"
#include "collapse/perf_cache.h"
#include "collapse/perf_line.h"
#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct inline_resolver;

enum {
	MAX_REPORTED = 10,                  /* bad lines printed one by one */
	MIN_CHUNK = 4 << 20,                /* smaller inputs are not split */
	DROP_WINDOW = 8 << 20,              /* parsed bytes released per madvise */
	PIECE_MAX = 8 << 20,                /* pieces a thread takes at a time ... */
	PIECES_PER_THREAD = 8,              /* ... at least this many per thread */
};

/* The default event filter, shared by all chunks. In sequential mode
 * (--srcline, --inline) it is set by the first event line, as the script
 * does; otherwise by the pre-scan. */
struct perf_filter {
	const char *name;
	size_t len;
	bool set;       /* name is the filter */
	bool defaulted; /* chosen from the input, not --event-filter */
};

struct perf_cfg {
	const struct collapse_opts *opts;
	bool pid, tid;
	bool fast;       /* block cache usable */
	uint32_t owners; /* chunks sharing first parses (below); 0: each its own */
	bool sequential; /* one thread, filter set on the fly */
	struct frame_opts tidy;
	struct perf_filter *filter;
	struct inline_resolver *resolver; /* --inline (elfutils builds) */
};

/* One contiguous input buffer: a file, or files joined when a sample runs
 * from one into the next. `segs` name the files in it, for messages. */
struct perf_seg {
	const char *name;
	size_t off;
};

struct perf_buf {
	const char *data;
	size_t len;
	bool mapped;
	struct perf_seg *segs;
	size_t nsegs;
	char *owned;
};

/* Shared first parses. Every chunk sees most distinct blocks of a long
 * capture, and parsing a block the first time costs more than counting it
 * ever after; so with cfg.owners chunks, a block belongs to one chunk (by
 * fingerprint). The owner parses it when it meets it; another chunk only
 * counts it, by process name, into an outbox for the owner, which adds
 * those counts once every chunk has run (perf_take_foreign), parsing then
 * the blocks it never met itself. The folded sums are the same (counts are
 * whole numbers). A block that is not all frame lines would need the line
 * by line path at its place in the input (messages in input order): then
 * perf_take_foreign fails and the caller runs the chunks again unshared. */
/* block.seq = PERF_FOREIGN | record (perf_cache.h): another chunk parses
 * it; record is its outbox record, and block.pnode the pending count's
 * process name (in pnames_out), PERF_NONE when none is pending. */

struct perf_foreign_block {
	struct perf_fp fp;
	uint32_t len;
	bool java;
	const char *bs; /* one copy of its bytes */
};

struct perf_foreign_count {
	uint32_t block; /* in the outbox's blocks */
	uint32_t pname; /* in the sender's pnames_out */
	uint64_t acc;
};

struct perf_outbox {
	struct perf_foreign_block *blocks;
	size_t nblocks, blocks_alloc;
	struct perf_foreign_count *counts;
	size_t ncounts, counts_alloc;
};

struct perf_text {
	char *s;
	size_t n;
};

/* What a piece reports, in input order once all ran. */
struct perf_diag {
	size_t bad;
	const char *bad_at[MAX_REPORTED];
	size_t bad_len[MAX_REPORTED];
	bool bad_orphan[MAX_REPORTED];
	const char *dropped; /* first event skipped by the default filter */
	size_t dropped_len;
	bool failed;
};

/* A piece of one buffer, cut just after a blank line (the script's state
 * is empty there). The threads take pieces in input order, each the next
 * one when it is done with its own, so that they end together. */
struct perf_piece {
	const struct perf_buf *buf;
	const char *begin, *end;
	struct perf_diag diag;
};

/* Where a sample's parts are: event line end, blank line, block
 * fingerprint (perf_fast.c). */
struct perf_sample_scan {
	const char *nl, *blank;
	struct perf_fp fp;
	bool java;
	bool ok;
};

struct perf_chunk {
	_Alignas(64) const struct perf_cfg *cfg; /* a cache line of its own: see perf_collapse */
	const struct perf_buf *buf; /* the piece being folded */
	const char *begin, *end;
	struct perf_diag *diag;
	struct profile *p;
	bool own_profile;

	/* The script's state. */
	bool have_pname;
	bool in_dropped;  /* after an event line the filter skipped */
	bool orphan_seen; /* a frame line outside any sample was reported */
	struct frame_parts pname; /* one part */
	uint64_t period;
	bool have_time;           /* the sample's timestamp, when the profile keeps
				     time (profile/time_cells.h) */
	uint64_t time;
	bool java;
	struct frame_parts frames; /* parts in line order */
	size_t *groups;           /* first part of each frame line */
	size_t ngroups, groups_alloc;

	/* Caches (perf_cache.h). */
	struct perf_blocks blocks;
	struct perf_lines lines;
	struct perf_seqs seqs;
	struct hashmap pnames;    /* sym of the pname -> its node */
	struct hashmap leaves;    /* pname node << 32 | seq -> leaf */
	char *last_pname;         /* the previous sample's process name ... */
	size_t last_pname_len, last_pname_alloc;
	node_t last_pnode;        /* ... and its node */
	bool have_last_pname;
	sym_t *lsyms;             /* frames of the block being folded, line order */
	size_t nlsyms, lsyms_alloc;
	uint32_t *lstarts;        /* where each line's frames start in lsyms */
	size_t nlstarts, lstarts_alloc;
	sym_t *syms;              /* frames of the sample being emitted */
	size_t nsyms, syms_alloc;
	struct frame_parts scratch;

	bool rec_simple; /* the range folded by the general path held only
			  * frame and comment lines */

	/* Shared first parses (cfg->owners > 1). */
	uint32_t index;              /* this chunk's number */
	struct perf_outbox *outbox;  /* by owner */
	struct hashmap pname_out;    /* process node -> index in pnames_out */
	struct perf_text *pnames_out;
	size_t npnames_out, pnames_out_alloc;
	node_t last_out_node;        /* the last process node sent ... */
	uint32_t last_out_pname;     /* ... and its index */
	bool have_last_out;

	const char *drop_from; /* first byte not yet released */
	const char *bscan_from, *bscan_res; /* last perf_find_blank() and its answer */
	bool bscan_valid;
	/* The next sample, scanned ahead so that its cache slot is being
	 * fetched while the current one is counted. */
	const char *peek_at;
	struct perf_sample_scan peek;
};

struct perf_cursor {
	const char *p, *end;
};

static inline bool perf_next_line(struct perf_cursor *cur, const char **line, size_t *n)
{
	if (cur->p >= cur->end)
		return false;
	const char *s = cur->p;
	const char *nl = memchr(s, '\n', (size_t)(cur->end - s));
	*line = s;
	*n = nl ? (size_t)(nl - s) : (size_t)(cur->end - s);
	cur->p = nl ? nl + 1 : cur->end;
	return true;
}

/* perf_state.c: the script's line-by-line state machine. */
void perf_push_split(struct perf_chunk *c, const char *s, size_t n);
node_t perf_pname_node(struct perf_chunk *c, const char *s, size_t n);
void perf_start_sample(struct perf_chunk *c, const struct perf_event_line *ev);
/* One line; cur (may be NULL when the line is an event line) is where
 * --srcline reads the source line that follows a frame. */
void perf_process_line(struct perf_chunk *c, const char *line, size_t n, struct perf_cursor *cur);
void perf_process_range(struct perf_chunk *c, const char *from, const char *to);
void perf_clear_sample(struct perf_chunk *c);

/* perf_fast.c: the cached path and the chunk loop. */
const char *perf_find_blank(const char *p, const char *end);
void perf_chunk_init(struct perf_chunk *c, const struct perf_cfg *cfg, struct profile *p);
void perf_chunk_release(struct perf_chunk *c);
/* Fold one piece into the chunk; then, after its last piece, end it. */
void perf_run_piece(struct perf_chunk *c, struct perf_piece *piece);
void perf_end_chunk(struct perf_chunk *c);
/* Add the counts chunk `from` sent to owner, once both have run. Returns
 * 0, or -1 when one of their blocks needs the line by line path. */
int perf_take_foreign(struct perf_chunk *owner, const struct perf_chunk *from);

#endif
