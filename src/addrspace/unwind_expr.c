/* CFI expression evaluation (see unwind_expr.h). The operations are those
 * compilers and libdw put in call-frame rules: registers plus offsets,
 * constants, arithmetic and comparisons (the PLT's CFA rule), memory reads
 * from the stack copy, branches. */
#include "addrspace/unwind_expr.h"

#include <dwarf.h>
#include <string.h>

enum { STACK_MAX = 32, STEPS_MAX = 256 };

bool unwind_read(const struct unwind_memory *m, uint64_t addr, uint64_t *out)
{
	if (m->len < 8 || addr < m->start || addr - m->start > m->len - 8)
		return false;
	uint64_t first = (addr >> 12) - (m->start >> 12), last = ((addr + 7) >> 12) - (m->start >> 12);
	if ((first < 32 && m->holes >> first & 1) || (last < 32 && m->holes >> last & 1))
		return false;
	memcpy(out, m->bytes + (addr - m->start), 8);
	return true;
}

static bool reg_of(const struct unwind_regs *r, uint64_t regno, uint64_t *out)
{
	if (regno >= UNWIND_NR_REGS || !(r->have >> regno & 1))
		return false;
	*out = r->reg[regno];
	return true;
}

/* The index of the operation at byte offset target, for skip and bra. */
static bool op_at(const Dwarf_Op *ops, size_t nops, uint64_t target, size_t *at)
{
	for (size_t i = 0; i < nops; i++)
		if (ops[i].offset == target) {
			*at = i;
			return true;
		}
	return false;
}

bool unwind_eval(const Dwarf_Op *ops, size_t nops, const struct unwind_regs *r, const struct unwind_memory *m,
		 uint64_t cfa, bool have_cfa, uint64_t *out, bool *is_value)
{
	uint64_t st[STACK_MAX], a, b;
	size_t sp = 0, steps = 0;
	*is_value = false;
#define PUSH(v) do { uint64_t push_ = (v); if (sp == STACK_MAX) return false; st[sp++] = push_; } while (0)
#define POP(v) do { if (!sp) return false; (v) = st[--sp]; } while (0)
	for (size_t i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t atom = op->atom;
		if (++steps > STEPS_MAX)
			return false; /* a branch loop */
		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			PUSH((uint64_t)(atom - DW_OP_lit0));
			continue;
		}
		if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			if (!reg_of(r, atom - DW_OP_breg0, &a))
				return false;
			PUSH(a + op->number);
			continue;
		}
		if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
			/* In a register: its value is the answer. */
			if (!reg_of(r, atom - DW_OP_reg0, &a))
				return false;
			PUSH(a);
			*is_value = true;
			continue;
		}
		switch (atom) {
		case DW_OP_bregx:
			if (!reg_of(r, op->number, &a))
				return false;
			PUSH(a + op->number2);
			break;
		case DW_OP_regx:
			if (!reg_of(r, op->number, &a))
				return false;
			PUSH(a);
			*is_value = true;
			break;
		case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u:
		case DW_OP_const8s: case DW_OP_constu: case DW_OP_consts:
			PUSH(op->number); /* libdw gives signed operands sign-extended */
			break;
		case DW_OP_call_frame_cfa:
			if (!have_cfa)
				return false;
			PUSH(cfa);
			break;
		case DW_OP_dup:
			if (!sp)
				return false;
			PUSH(st[sp - 1]);
			break;
		case DW_OP_drop:
			POP(a);
			break;
		case DW_OP_over:
			if (sp < 2)
				return false;
			PUSH(st[sp - 2]);
			break;
		case DW_OP_pick:
			if (op->number >= sp)
				return false;
			PUSH(st[sp - 1 - op->number]);
			break;
		case DW_OP_swap:
			if (sp < 2)
				return false;
			a = st[sp - 1], st[sp - 1] = st[sp - 2], st[sp - 2] = a;
			break;
		case DW_OP_rot:
			if (sp < 3)
				return false;
			a = st[sp - 1], st[sp - 1] = st[sp - 2], st[sp - 2] = st[sp - 3], st[sp - 3] = a;
			break;
		case DW_OP_deref:
			POP(a);
			if (!unwind_read(m, a, &b))
				return false;
			PUSH(b);
			break;
		case DW_OP_deref_size:
			POP(a);
			if (op->number < 1 || op->number > 8 || !unwind_read(m, a, &b))
				return false; /* (a short read at the copy's very end fails too) */
			if (op->number < 8)
				b &= (1ull << (8 * op->number)) - 1;
			PUSH(b);
			break;
		case DW_OP_plus_uconst:
			POP(a);
			PUSH(a + op->number);
			break;
		case DW_OP_neg: POP(a); PUSH(-a); break;
		case DW_OP_not: POP(a); PUSH(~a); break;
		case DW_OP_abs: POP(a); PUSH((int64_t)a < 0 ? -a : a); break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and: case DW_OP_or:
		case DW_OP_xor: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_div:
		case DW_OP_mod: case DW_OP_lt: case DW_OP_le: case DW_OP_gt: case DW_OP_ge:
		case DW_OP_eq: case DW_OP_ne: {
			POP(b);
			POP(a);
			int64_t sa = (int64_t)a, sb = (int64_t)b;
			uint64_t v;
			switch (atom) {
			case DW_OP_plus: v = a + b; break;
			case DW_OP_minus: v = a - b; break;
			case DW_OP_mul: v = a * b; break;
			case DW_OP_and: v = a & b; break;
			case DW_OP_or: v = a | b; break;
			case DW_OP_xor: v = a ^ b; break;
			case DW_OP_shl: v = b < 64 ? a << b : 0; break;
			case DW_OP_shr: v = b < 64 ? a >> b : 0; break;
			case DW_OP_shra: v = (uint64_t)(b < 64 ? sa >> b : sa >> 63); break;
			case DW_OP_div:
				if (!b || (sa == INT64_MIN && sb == -1))
					return false;
				v = (uint64_t)(sa / sb);
				break;
			case DW_OP_mod:
				if (!b)
					return false;
				v = a % b;
				break;
			case DW_OP_lt: v = sa < sb; break;
			case DW_OP_le: v = sa <= sb; break;
			case DW_OP_gt: v = sa > sb; break;
			case DW_OP_ge: v = sa >= sb; break;
			case DW_OP_eq: v = sa == sb; break;
			default: v = sa != sb; break;
			}
			PUSH(v);
			break;
		}
		case DW_OP_bra:
			POP(a);
			if (!a)
				break;
			/* fall through */
		case DW_OP_skip: {
			/* The 2-byte displacement counts from the next operation. */
			uint64_t target = op->offset + 3 + (uint64_t)(int64_t)(int16_t)op->number;
			size_t at;
			if (op_at(ops, nops, target, &at)) {
				i = at - 1;
				break;
			}
			if (target <= ops[nops - 1].offset)
				return false; /* into the middle of an operation */
			i = nops - 1; /* past the last operation: the end */
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			*is_value = true;
			i = nops - 1;
			break;
		default:
			return false;
		}
	}
#undef PUSH
#undef POP
	if (!sp)
		return false;
	*out = st[sp - 1];
	return true;
}
