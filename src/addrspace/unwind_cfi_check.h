/* A check of a file's call-frame information before libdw executes it:
 * every register its instructions name must be a small number.
 *
 * libdw keeps one rule per register up to the highest one an FDE's
 * instructions name, so a single DW_CFA_offset_extended of register
 * 2^28 in a file a sampled process maps makes each frame found there
 * a 2 GB allocation, written through (and kept: unwind_tables.c keeps
 * frames). x86-64 code names registers below 64 (rax..r15 and the return
 * address are 0..16, the vector and x87 registers follow); CFI naming
 * others is not used. The instructions are decoded the way DWARF 5 6.4.2
 * lays them out (the CIE's augmentation says how FDE addresses are
 * encoded); an operation the decoder does not know ends its entry, as it
 * ends libdw's execution. */
#ifndef SCORCH_ADDRSPACE_UNWIND_CFI_CHECK_H
#define SCORCH_ADDRSPACE_UNWIND_CFI_CHECK_H

#include <libelf.h>
#include <stdbool.h>

enum { CFI_MAX_REGISTER = 127 };

/* Whether the section (".eh_frame" with eh_frame, else ".debug_frame") of
 * elf names no register above CFI_MAX_REGISTER. False also when the
 * section is absent or its entries cannot be walked. */
bool cfi_registers_bounded(Elf *elf, bool eh_frame);

#endif
