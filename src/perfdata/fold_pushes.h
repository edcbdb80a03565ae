/* The trie's side of report's fold of callchains (fold_chain.c): the
 * pushes of a sample's folded symbols and the count at its leaf, applied
 * in the order sent: as they are sent, or, at report -j1 once chains push
 * enough symbols for it to pay (captures of short-lived processes), as
 * messages on a thread of their own. The folding thread then never
 * touches the trie's nodes, only the profile's names: a trie lookup per
 * frame, a third of the fold's time on such captures, goes to the other
 * core. Outputs do not change: the nodes are made in the same order.
 *
 * The folder keeps a thread's last callchain addresses (struct
 * chain_memo, folder.h); the nodes they led to are kept here, under the
 * same memo slot, so a chain shares its outer nodes by count. */
#ifndef SCORCH_PERFDATA_FOLD_PUSHES_H
#define SCORCH_PERFDATA_FOLD_PUSHES_H

#include "profile/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PUSHES_NO_CPU ((sym_t)UINT32_MAX)   /* no "CPU N" frame above the process name */
#define PUSHES_NO_MEMO ((uint32_t)UINT32_MAX) /* a chain not kept for the next one */

struct fold_pushes;

/* Where the pushes are applied: as they are sent; on a thread of their
 * own once chains push enough symbols for it to pay; on a thread from the
 * first (tests). Without a thread (pthread_create failed) as sent. */
enum fold_pushes_mode { PUSHES_HERE, PUSHES_MAY_THREAD, PUSHES_ON_A_THREAD };

struct fold_pushes *fold_pushes_new(struct profile *p, enum fold_pushes_mode mode);
/* Whether the pushes went to a thread of their own at some point. */
bool fold_pushes_threaded(const struct fold_pushes *q);
/* Apply every message sent; then free. */
void fold_pushes_free(struct fold_pushes *q);

/* Wait until every message sent is applied: until the next one, the
 * caller may use p's nodes itself. */
void fold_pushes_sync(struct fold_pushes *q);

/* From now on apply messages as they are sent, for good (for a capture
 * whose samples mostly fold on the caller's side, which would sync at
 * each). */
void fold_pushes_unthread(struct fold_pushes *q);

/* A callchain below [cpu,] pname: the folded symbols of its addresses
 * after the first `shared` (outermost first) of memo slot `memo`'s last
 * chain, syms[runs[i][0] .. + runs[i][1]) for i from rest - 1 down to 0
 * (the leaf's). The slot then keeps the chain's nodes (PUSHES_NO_MEMO:
 * nothing kept, shared 0). The leaf is counted `period`, or when hold,
 * kept as the next held node (for fold_pushes_held). */
void fold_pushes_chain(struct fold_pushes *q, sym_t cpu, sym_t pname, uint32_t memo, uint32_t shared,
		       const uint32_t (*runs)[2], size_t rest, const uint32_t *syms, bool hold, uint64_t period);

/* Below held node number `held` (0 for the first chain sent with hold),
 * the folded symbols of runs[n - 1] down to runs[0] pushed; the leaf
 * counted period. */
void fold_pushes_held(struct fold_pushes *q, uint32_t held, const uint32_t (*runs)[2], size_t n,
		      const uint32_t *syms, uint64_t period);

#endif
