/* addrspace/unwind_fp.c: the frame pointers of a chain's frames, from
 * what the DWARF walk knew on along the frame-pointer chain in a stack
 * copy (each step held to the return address the chain has there), and
 * words of the copy (none outside it, none in a page it lacks). */
#include "harness.h"

#include "addrspace/unwind.h"

#include <string.h>

enum { SP = 0x7ffd0000, WORDS = 1024 };

/* A copy from SP: frames at SP+0x100, +0x200, +0x300 linked by saved rbp,
 * each with its return address above it. */
static void build(uint64_t *words)
{
	memset(words, 0, WORDS * 8);
	const uint64_t fp[] = { SP + 0x100, SP + 0x200, SP + 0x300 }, ret[] = { 0x1111, 0x2222, 0x3333 };
	for (int i = 0; i < 3; i++) {
		words[(fp[i] - SP) / 8] = i < 2 ? fp[i + 1] : SP + 0x5000; /* the last one's caller: outside */
		words[(fp[i] - SP) / 8 + 1] = ret[i];
	}
}

TEST(unwind_frame_pointers_follow_the_chain)
{
	static uint64_t words[WORDS];
	build(words);
	/* perf_regs: bp (bit 6) and sp (bit 7) */
	uint64_t regs[2] = { SP + 0x100, SP };
	struct unwind_stack s = { 2, 1ull << 6 | 1ull << 7, regs, (const uint8_t *)words, sizeof(words), 0 };
	uint64_t ips[5] = { 0x9999, 0x1111, 0x2222, 0x3333, 0x4444 }, fps[5];
	unwind_frame_pointers(&s, ips, 5, fps, 0);
	CHECK_EQ_U64(fps[0], SP + 0x100);
	CHECK_EQ_U64(fps[1], SP + 0x200);
	CHECK_EQ_U64(fps[2], SP + 0x300);
	CHECK_EQ_U64(fps[3], SP + 0x5000); /* read from frame 2's, inside the copy */
	CHECK_EQ_U64(fps[4], 0);           /* its own slot is outside the copy: unknown */

	/* from a DWARF walk that knew the first two; a return address the
	 * chain does not have ends it */
	uint64_t other[5] = { 0x9999, 0x1111, 0x2222, 0x7777, 0x4444 };
	fps[0] = 0;
	fps[1] = SP + 0x200;
	unwind_frame_pointers(&s, other, 5, fps, 2);
	CHECK_EQ_U64(fps[0], 0);
	CHECK_EQ_U64(fps[1], SP + 0x200);
	CHECK_EQ_U64(fps[2], SP + 0x300);
	CHECK_EQ_U64(fps[3], 0);
	CHECK_EQ_U64(fps[4], 0);

	uint64_t w;
	CHECK(unwind_stack_word(&s, SP + 0x108, &w) && w == 0x1111);
	CHECK(!unwind_stack_word(&s, SP - 8, &w));
	CHECK(!unwind_stack_word(&s, SP + sizeof(words) - 4, &w));
	s.stack_holes = 1; /* the first page is not in the copy */
	CHECK(!unwind_stack_word(&s, SP + 0x108, &w));
}
