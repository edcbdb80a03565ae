/* Which of the Python frames read now were running at a sample taken
 * earlier (the perf backend reads them when it reads the sample, ms
 * later): the sample's user registers and stack copy hold the pointers
 * the evaluator was using then. An evaluator activation keeps the frame
 * it runs (3.11+: the _PyInterpreterFrame; 3.8-3.10: the frame object)
 * and, 3.11+, its instruction pointer into the code object's bytecode in
 * a register, its own stack frame, or the callee-saved slots of the C
 * functions it called. A frame read now whose address is not among those
 * words (with 3.11+ a word inside its bytecode too) was not running
 * then, or not as the leaf of its run: it began after the sample, or
 * replaced the one that ran (a call at the same depth reuses the address
 * of the frame before it).
 *
 * 3.8-3.10 keep every activation's frame object in the C stack, but a
 * code object's frame object is reused from call to call (its "zombie"),
 * and dead slots of the stack copy keep addresses of frames that
 * returned: one frame found there proves little. So a frame object
 * counts as running then only with the frames that called it, up to
 * CALLERS_CHECKED of them, found there too (a call that diverged
 * further out than that from the sample's is not seen). */
#include "runtime/python.h"

#include "base/alloc.h"

#include <string.h>

enum {
	MAX_CHECKED = 64,     /* frames looked at from the leaf: the sample's leaf is among the newest */
	CALLERS_CHECKED = 8,  /* 3.8-3.10: callers of a frame object found with it */
	WORD_SLOTS = 8192,    /* the words' hash set: a 16 KiB stack copy is 2,048 words */
};

/* The sample's words as a set, for the frame objects' many lookups. */
struct word_set {
	uint64_t slot[WORD_SLOTS]; /* 0: empty (a null word proves nothing) */
};

static size_t slot_of(uint64_t w)
{
	return (size_t)((w * 0x9e3779b97f4a7c15ull) >> 51) & (WORD_SLOTS - 1);
}

static void set_add(struct word_set *s, uint64_t w)
{
	if (!w)
		return;
	for (size_t i = slot_of(w), probes = 0; probes < WORD_SLOTS; i = (i + 1) & (WORD_SLOTS - 1), probes++) {
		if (s->slot[i] == w)
			return;
		if (!s->slot[i]) {
			s->slot[i] = w;
			return;
		}
	}
}

static bool set_has(const struct word_set *s, uint64_t w)
{
	if (!w)
		return false;
	for (size_t i = slot_of(w), probes = 0; probes < WORD_SLOTS; i = (i + 1) & (WORD_SLOTS - 1), probes++) {
		if (s->slot[i] == w)
			return true;
		if (!s->slot[i])
			return false;
	}
	return false;
}

/* 3.8-3.10: the first frame found with its callers (up to
 * CALLERS_CHECKED, or the chain's end). */
static int first_frame_object(struct python_proc *p, const uint64_t *addrs, int n, const uint64_t *regs,
			      size_t nregs, const uint8_t *stack, size_t stack_len)
{
	if (!p->words)
		p->words = xmalloc(sizeof(struct word_set));
	struct word_set *set = p->words;
	memset(set, 0, sizeof(*set));
	for (size_t i = 0; i < nregs; i++)
		set_add(set, regs[i]);
	for (size_t at = 0; at + 8 <= stack_len && at / 8 < WORD_SLOTS / 2; at += 8) {
		uint64_t w;
		memcpy(&w, stack + at, 8);
		set_add(set, w);
	}
	for (int k = 0; k < n && k < MAX_CHECKED; k++) {
		int j = k;
		while (j < n && j - k <= CALLERS_CHECKED && set_has(set, addrs[j]))
			j++;
		if (j == n || j - k > CALLERS_CHECKED)
			return k;
	}
	return n;
}

/* Does one of the sample's words lie in [lo, hi)? */
static bool any_word_in(const uint64_t *regs, size_t nregs, const uint8_t *stack, size_t stack_len, uint64_t lo,
			uint64_t hi)
{
	for (size_t i = 0; i < nregs; i++)
		if (regs[i] >= lo && regs[i] < hi)
			return true;
	for (size_t at = 0; at + 8 <= stack_len; at += 8) {
		uint64_t w;
		memcpy(&w, stack + at, 8);
		if (w >= lo && w < hi)
			return true;
	}
	return false;
}

int python_first_at_sample(struct python_proc *p, const uint64_t *frames, const uint64_t *addrs, int n,
			   const uint64_t *regs, size_t nregs, const uint8_t *stack, size_t stack_len)
{
	const struct python_offsets *o = &p->off;
	if (o->frame_kind == PYTHON_FRAMES_OBJECTS)
		return first_frame_object(p, addrs, n, regs, nregs, stack, stack_len);
	for (int k = 0; k < n && k < MAX_CHECKED; k++) {
		if (!any_word_in(regs, nregs, stack, stack_len, addrs[k], addrs[k] + 1))
			continue;
		python_note_frame(p, frames[k]);
		uint32_t units = python_code_units(p, frames[k]);
		uint64_t code = PYTHON_FRAME_CODE(frames[k]), lo = code + o->code_adaptive;
		/* next_instr may point just past the last instruction */
		if (units && any_word_in(regs, nregs, stack, stack_len, lo, lo + 2 * (uint64_t)units + 2))
			return k;
	}
	return n;
}
