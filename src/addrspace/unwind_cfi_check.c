/* The register check of call-frame information (see unwind_cfi_check.h). */
#include "addrspace/unwind_cfi_check.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static void skip(struct cursor *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		c->p = c->end;
	} else {
		c->p += n;
	}
}

/* An encoded pointer (DW_EH_PE_*: the low four bits give its size). */
static void skip_pointer(struct cursor *c, uint8_t encoding)
{
	if (encoding == DW_EH_PE_omit)
		return;
	switch (encoding & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		skip(c, 8);
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		skip(c, 2);
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		skip(c, 4);
		break;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		uleb(c);
		break;
	default:
		c->bad = true;
	}
}

static bool reg_ok(struct cursor *c)
{
	uint64_t r = uleb(c);
	return !c->bad && r <= CFI_MAX_REGISTER;
}

/* Walk one instruction stream; false when it names a register past the
 * bound. The walk stops at the first operation it does not know. */
static bool instructions_ok(const uint8_t *p, const uint8_t *end, uint8_t fde_encoding)
{
	struct cursor c = { p, end, false };
	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
		case DW_CFA_restore:
			continue; /* register or delta in the low six bits */
		case DW_CFA_offset:
			uleb(&c);
			continue;
		default:
			break;
		}
		switch (op) {
		case DW_CFA_nop:
		case DW_CFA_remember_state:
		case DW_CFA_restore_state:
			break;
		case DW_CFA_set_loc:
			skip_pointer(&c, fde_encoding);
			break;
		case DW_CFA_advance_loc1:
			skip(&c, 1);
			break;
		case DW_CFA_advance_loc2:
			skip(&c, 2);
			break;
		case DW_CFA_advance_loc4:
			skip(&c, 4);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_offset_extended_sf:
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
		case DW_CFA_GNU_negative_offset_extended:
			if (!reg_ok(&c))
				return false;
			uleb(&c); /* an sleb's bytes end the same way */
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			if (!reg_ok(&c))
				return false;
			break;
		case DW_CFA_register:
			if (!reg_ok(&c) || !reg_ok(&c))
				return false;
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
		case DW_CFA_GNU_args_size:
			uleb(&c);
			break;
		case DW_CFA_def_cfa_expression:
			skip(&c, uleb(&c));
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			if (!reg_ok(&c))
				return false;
			skip(&c, uleb(&c));
			break;
		default:
			return true; /* libdw refuses it too: nothing after it runs */
		}
	}
	return true;
}

/* The FDE pointer encoding a CIE's augmentation gives ('R'), absptr when
 * none does (as libdw assumes). */
static uint8_t fde_encoding_of(const Dwarf_CIE *cie)
{
	const char *aug = cie->augmentation;
	if (!aug || aug[0] != 'z' || !cie->augmentation_data)
		return DW_EH_PE_absptr;
	struct cursor c = { cie->augmentation_data, cie->augmentation_data + cie->augmentation_data_size, false };
	for (const char *a = aug + 1; *a && !c.bad && c.p < c.end; a++) {
		switch (*a) {
		case 'R':
			return *c.p;
		case 'L':
			skip(&c, 1);
			break;
		case 'P': {
			uint8_t enc = *c.p++;
			skip_pointer(&c, enc);
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return DW_EH_PE_absptr;
		}
	}
	return DW_EH_PE_absptr;
}

/* A CIE read once more at an FDE's CIE pointer. */
static bool cie_at(const unsigned char *ident, Elf_Data *data, bool eh_frame, Dwarf_Off off, Dwarf_CIE *out)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	if (dwarf_next_cfi(ident, data, eh_frame, off, &next, &e) || e.CIE_id != LIBDW_CIE_ID)
		return false;
	*out = e.cie;
	return true;
}

static Elf_Scn *section(Elf *elf, const char *want, Elf_Data **data, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want)) {
			*data = elf_getdata(scn, NULL);
			return *data && (*data)->d_buf ? scn : NULL;
		}
	}
	return NULL;
}

/* The entry at off (a CIE, or an FDE and its CIE). */
static bool entry_ok(const unsigned char *ident, Elf_Data *data, bool eh_frame, Dwarf_Off off)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	if (dwarf_next_cfi(ident, data, eh_frame, off, &next, &e))
		return true; /* nothing libdw could run */
	if (e.CIE_id == LIBDW_CIE_ID)
		return instructions_ok(e.cie.initial_instructions, e.cie.initial_instructions_end,
				       fde_encoding_of(&e.cie));
	Dwarf_CIE cie;
	if (!cie_at(ident, data, eh_frame, e.fde.CIE_pointer, &cie))
		return true; /* libdw finds no CIE either: the FDE is not used */
	uint8_t enc = eh_frame ? fde_encoding_of(&cie) : DW_EH_PE_absptr;
	if (!instructions_ok(cie.initial_instructions, cie.initial_instructions_end, enc))
		return false;
	struct cursor c = { e.fde.start, e.fde.end, false };
	skip_pointer(&c, enc);        /* initial location */
	skip_pointer(&c, enc & 0x0f); /* address range (not pc-relative) */
	if (cie.augmentation && cie.augmentation[0] == 'z')
		skip(&c, uleb(&c));
	else
		skip(&c, cie.fde_augmentation_data_size);
	return c.bad || instructions_ok(c.p, c.end, enc);
}

static int64_t sdata4(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The FDEs .eh_frame_hdr's search table points at, which libdw reaches
 * without walking the entries before them (only the table encoding it
 * reads: datarel sdata4 pairs; version 1). */
static bool table_ok(Elf *elf, const unsigned char *ident, Elf_Data *frame, const GElf_Shdr *frame_sh)
{
	Elf_Data *hdr;
	GElf_Shdr hsh;
	if (!section(elf, ".eh_frame_hdr", &hdr, &hsh) || hdr->d_size < 4)
		return true;
	const uint8_t *p = hdr->d_buf, *end = p + hdr->d_size;
	uint8_t version = p[0], ptr_enc = p[1], count_enc = p[2], table_enc = p[3];
	if (version != 1 || table_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    count_enc != (DW_EH_PE_udata4) || (ptr_enc & 0x0f) != DW_EH_PE_sdata4 || end - p < 12)
		return true;
	uint64_t frame_vaddr = (ptr_enc & 0x70) == DW_EH_PE_pcrel ? hsh.sh_addr + 4 + (uint64_t)sdata4(p + 4)
								  : (uint64_t)sdata4(p + 4);
	uint32_t count;
	memcpy(&count, p + 8, 4);
	p += 12;
	for (uint32_t i = 0; i < count && end - p >= 8; i++, p += 8) {
		uint64_t fde = hsh.sh_addr + (uint64_t)sdata4(p + 4);
		/* the offset from where the header says .eh_frame is, and
		 * from where its section header says */
		Dwarf_Off a = fde - frame_vaddr, b = fde - frame_sh->sh_addr;
		if ((a < frame->d_size && !entry_ok(ident, frame, true, a)) ||
		    (b != a && b < frame->d_size && !entry_ok(ident, frame, true, b)))
			return false;
	}
	return true;
}

bool cfi_registers_bounded(Elf *elf, bool eh_frame)
{
	Elf_Data *data;
	GElf_Shdr sh;
	size_t nident;
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, &nident);
	if (!ident || nident < EI_NIDENT || !section(elf, eh_frame ? ".eh_frame" : ".debug_frame", &data, &sh))
		return false;
	/* every entry a walk from the start meets (libdw's own search when
	 * there is no table), up to one that cannot be read */
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	while (!dwarf_next_cfi(ident, data, eh_frame, off, &next, &e) && next > off) {
		if (!entry_ok(ident, data, eh_frame, off))
			return false;
		off = next;
	}
	return !eh_frame || table_ok(elf, ident, data, &sh);
}
