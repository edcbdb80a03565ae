/* Fuzz target: the DWARF unwinder that record and report run on sampled
 * stacks (addrspace/unwind.c, unwind_tables.c, unwind_expr.c): an ELF
 * file's program headers and call-frame information (.eh_frame, else
 * .debug_frame, parsed by libdw), the rules found for a pc, and the
 * expressions in them evaluated against registers and a stack copy,
 * both of which a sampled process controls.
 *
 * Input: a header (image length, pc's file offset, holes, which registers
 * the sample has, each register as an offset from sp), the ELF image, then
 * the stack copy. The image is mapped twice (at pgoff 0, and at 0x1000 as a
 * second segment would be). The stack's bytes are also read as DWARF
 * operations for the evaluator on its own. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef HAVE_ELFUTILS
#include "addrspace/procmaps.h"
#include "addrspace/unwind.h"
#include "addrspace/unwind_expr.h"

enum { NR_REGS = 24, HEADER = 4 + 4 + 4 + 4 + 2 * NR_REGS };

static const uint64_t text_at = 0x400000, lib_at = 0x7f0000000000, sp_at = 0x7ffc00000000;

struct image {
	const uint8_t *bytes;
	size_t len;
};

static bool image_of(void *arg, const struct mapping *m, struct unwind_source *src)
{
	const struct image *im = arg;
	(void)m;
	*src = (struct unwind_source){ .key = 1, .path = "fuzz", .image = im->bytes, .image_len = im->len };
	return true;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void eval_ops(const uint8_t *b, size_t n, const struct unwind_regs *r, const struct unwind_memory *m)
{
	Dwarf_Op ops[64];
	size_t nops = 0;
	for (size_t i = 0; i + 4 <= n && nops < 64; i += 4, nops++) {
		int16_t num;
		memcpy(&num, b + i + 1, 2);
		ops[nops] = (Dwarf_Op){ .atom = b[i], .number = (uint64_t)(int64_t)num, .number2 = b[i + 3],
					.offset = i };
	}
	uint64_t v;
	bool is_value;
	(void)unwind_eval(ops, nops, r, m, sp_at + 16, true, &v, &is_value);
	(void)unwind_eval(ops, nops, r, m, 0, false, &v, &is_value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < HEADER)
		return 0;
	size_t image_len = u32_at(data);
	uint32_t pc_off = u32_at(data + 4), holes = u32_at(data + 8), mask = u32_at(data + 12);
	if (image_len > size - HEADER)
		image_len = size - HEADER;
	uint64_t regs[NR_REGS];
	size_t nr = 0;
	for (int i = 0; i < NR_REGS; i++) {
		if (!(mask >> i & 1))
			continue;
		uint16_t d;
		memcpy(&d, data + 16 + 2 * i, 2);
		regs[nr++] = i == 8 ? (pc_off & 1 ? lib_at : text_at) + (pc_off >> 1) : sp_at + d;
	}
	/* exact copies, so that reads past either end are caught */
	struct image im = { malloc(image_len ? image_len : 1), image_len };
	memcpy((void *)im.bytes, data + HEADER, image_len);
	size_t stack_len = size - HEADER - image_len;
	uint8_t *stack = malloc(stack_len ? stack_len : 1);
	memcpy(stack, data + HEADER + image_len, stack_len);

	struct procmaps pm;
	procmaps_init(&pm);
	uint32_t space = procmaps_space_new(&pm);
	procmaps_space_add(&pm, space, 1, text_at, text_at + (1u << 24), 0, "fuzz", 4, 0);
	procmaps_space_add(&pm, space, 1, lib_at, lib_at + (1u << 24), 0x1000, "fuzz", 4, 0);
	struct unwinder *u = unwinder_new();
	struct unwind_stack s = { .regs_abi = 2, .regs_mask = mask & ((1u << NR_REGS) - 1), .regs = regs,
				  .stack = stack, .stack_len = stack_len, .stack_holes = holes };
	uint64_t ips[128];
	bool complete;
	int n = unwind_user_stack(u, &pm, space, &s, image_of, &im, ips, 128, &complete);
	if (n < 0 || n > 128)
		__builtin_trap();
	unwinder_free(u);
	procmaps_release(&pm);

	struct unwind_regs r = { .have = mask & ((1u << UNWIND_NR_REGS) - 1) };
	for (int i = 0; i < UNWIND_NR_REGS; i++)
		r.reg[i] = sp_at + (uint64_t)i * 8;
	struct unwind_memory mem = { stack, sp_at, stack_len, holes };
	eval_ops(stack, stack_len < 256 ? stack_len : 256, &r, &mem);

	free((void *)im.bytes);
	free(stack);
	return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	__builtin_trap(); /* this build has no DWARF unwinder to fuzz (no elfutils) */
}
#endif
