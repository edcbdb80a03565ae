/* The unwind tables' kept rules against libdw's own answer: every address
 * of this test binary's first 16 KiB of .text gets the rules a fresh CFI
 * lookup gives there, and addresses of one row share what is kept. */
#include "harness.h"

#ifdef HAVE_ELFUTILS
#include "addrspace/unwind_tables.h"

#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SPAN = 16 << 10, REGS = 17 };

/* The file offset and address of this binary's .text (its first SPAN
 * bytes at most). */
static bool text_of(Elf *elf, uint64_t *off, uint64_t *vaddr, uint64_t *len)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (n && !strcmp(n, ".text")) {
			*off = sh.sh_offset;
			*vaddr = sh.sh_addr;
			*len = sh.sh_size < SPAN ? sh.sh_size : SPAN;
			return true;
		}
	}
	return false;
}

/* Whether two expressions are the same operations (field by field:
 * Dwarf_Op has padding). */
static bool same_ops(const Dwarf_Op *a, size_t na, const Dwarf_Op *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (a[i].atom != b[i].atom || a[i].number != b[i].number || a[i].number2 != b[i].number2)
			return false;
	return true;
}

/* Whether two rows say the same: range, CFA and every register's rule. */
static bool same_rules(Dwarf_Frame *a, Dwarf_Frame *b)
{
	Dwarf_Addr sa, ea, sb, eb;
	bool siga, sigb;
	if (dwarf_frame_info(a, &sa, &ea, &siga) != dwarf_frame_info(b, &sb, &eb, &sigb) || sa != sb ||
	    ea != eb || siga != sigb)
		return false;
	Dwarf_Op *oa, *ob;
	size_t na, nb;
	if (dwarf_frame_cfa(a, &oa, &na) || dwarf_frame_cfa(b, &ob, &nb) || !same_ops(oa, na, ob, nb))
		return false;
	for (int r = 0; r < REGS; r++) {
		Dwarf_Op mema[3], memb[3];
		int ra = dwarf_frame_register(a, r, mema, &oa, &na);
		int rb = dwarf_frame_register(b, r, memb, &ob, &nb);
		if (ra != rb || (!ra && !same_ops(oa, na, ob, nb)))
			return false;
	}
	return true;
}

TEST(unwind_tables_rules_match_libdw_and_rows_are_shared)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	REQUIRE(n > 0);
	self[n] = '\0';
	elf_version(EV_CURRENT);
	int fd = open(self, O_RDONLY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	REQUIRE(elf);
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	uint64_t off, vaddr, len;
	REQUIRE(cfi && text_of(elf, &off, &vaddr, &len) && len > 1024);

	struct unwind_tables *t = unwind_tables_new();
	struct unwind_source src = { .key = 1, .path = self };
	struct unwind_file *f = unwind_tables_file(t, &src);
	REQUIRE(f);
	struct unwind_tables_held before, after;
	unwind_tables_held(t, &before);
	size_t covered = 0, rows = 0, mismatched = 0;
	Dwarf_Addr row_end = 0;
	for (uint64_t i = 0; i < len; i++) {
		Dwarf_Frame *want = NULL;
		bool has = !dwarf_cfi_addrframe(cfi, vaddr + i, &want);
		Dwarf_Frame *got = unwind_file_frame(t, f, off + i);
		if (has != (got != NULL) || (has && !same_rules(want, got)))
			mismatched++;
		if (has) {
			Dwarf_Addr s, e;
			bool sig;
			dwarf_frame_info(want, &s, &e, &sig);
			covered++;
			rows += s >= row_end || vaddr + i < s; /* a row not seen just before */
			row_end = e;
		}
		free(want);
	}
	/* asked again, the kept answers are the same */
	for (uint64_t i = 0; i < len; i += 7) {
		Dwarf_Frame *want = NULL;
		bool has = !dwarf_cfi_addrframe(cfi, vaddr + i, &want);
		Dwarf_Frame *got = unwind_file_frame(t, f, off + i);
		if (has != (got != NULL) || (has && !same_rules(want, got)))
			mismatched++;
		free(want);
	}
	unwind_tables_held(t, &after);
	CHECK_EQ_U64(mismatched, 0);
	CHECK(covered > len / 2);
	CHECK(rows > 10 && rows < covered / 4); /* rows cover many addresses each */
	/* A row kept per address would cost a few hundred bytes each (libdw's
	 * Dwarf_Frame for x86-64's 17 registers); shared, an address costs
	 * its entry and hash slots and a row its rule once. */
	size_t grew = after.bytes - before.bytes;
	CHECK(grew < covered * 64 + rows * 1024);
	CHECK(grew > covered * 16);
	unwind_tables_free(t);
	dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
}
#endif
