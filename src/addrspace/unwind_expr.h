/* The DWARF expressions that call-frame information holds (libdw hands
 * them over as Dwarf_Op arrays: dwarf_frame_cfa, dwarf_frame_register),
 * evaluated against one frame's registers and a copy of the stack. */
#ifndef SCORCH_ADDRSPACE_UNWIND_EXPR_H
#define SCORCH_ADDRSPACE_UNWIND_EXPR_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { UNWIND_NR_REGS = 17 }; /* x86-64 DWARF registers: rax..r15, then the return address */

struct unwind_regs {
	uint64_t reg[UNWIND_NR_REGS];
	uint32_t have; /* bit r: reg[r] is known */
};

struct unwind_memory {
	const uint8_t *bytes; /* the stack copy */
	uint64_t start;       /* the address of bytes[0] (the sampled sp) */
	size_t len;
	uint32_t holes;       /* bit i: the i-th page from start's page is not in the copy */
};

/* A word of the stack copy at addr; false when it is not in the copy
 * (outside it, or on a page of it that could not be read). */
bool unwind_read(const struct unwind_memory *m, uint64_t addr, uint64_t *out);

/* Evaluate ops[0..nops) (cfa: DW_OP_call_frame_cfa's value, when
 * have_cfa). *out is the value, or the address of a location when
 * *is_value comes back false (register rules without DW_OP_stack_value:
 * the caller reads the word there). False when the expression cannot be
 * evaluated here (an unknown register, memory outside the copy, an
 * operation CFI does not use). */
bool unwind_eval(const Dwarf_Op *ops, size_t nops, const struct unwind_regs *r, const struct unwind_memory *m,
		 uint64_t cfa, bool have_cfa, uint64_t *out, bool *is_value);

#endif
