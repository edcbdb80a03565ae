/* Exported symbols by name, with libelf (elf_exports.h). */
#include "runtime/elf_exports.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_ELFUTILS
#include <gelf.h>
#include <libelf.h>

static size_t name_index(const char *const *names, size_t n, const char *name)
{
	size_t i = 0;
	while (i < n && strcmp(names[i], name))
		i++;
	return i;
}

int elf_exports_read(const char *path, const char *const *names, size_t n, uint64_t *values,
		     struct elf_exports *info)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh)) {
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	*info = (struct elf_exports){ .bias_base = UINT64_MAX, .dyn = eh.e_type == ET_DYN };
	memset(values, 0, n * sizeof(*values));
	size_t nph = 0;
	if (!elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_offset == 0)
				info->bias_base = ph.p_vaddr & ~(uint64_t)4095;
		}
	int found = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t nsym = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < nsym; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(e, sh.sh_link, sym.st_name)))
				continue;
			size_t k = name_index(names, n, name);
			if (k < n && !values[k]) {
				values[k] = sym.st_value;
				found++;
			}
		}
	}
	elf_end(e);
	close(fd);
	return found;
}
#else
int elf_exports_read(const char *path, const char *const *names, size_t n, uint64_t *values,
		     struct elf_exports *info)
{
	(void)path, (void)names, (void)n, (void)values, (void)info;
	return -1;
}
#endif
