/* Fuzz target: the DWARF reader behind --inline and report's inline
 * expansion (symbolize/inline_dw.c, inline_scopes.c): a recorded binary's
 * units, their DIE trees, address ranges, names through abstract origins
 * and specifications, the line table, and the symbol-table fallback.
 *
 * Input: four u32 addresses, then the ELF file (written to a private
 * directory, as a recorded binary is read from disk). Each address is
 * asked of a resolver that uses the per-unit scope index and of one that
 * uses libdw's own walks: their answers must be the same (inline_scopes.h
 * promises libdw's answers), and neither may crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef HAVE_ELFUTILS
#include "symbolize/inline.h"
#include "private_dir.h"

enum { NR_ADDRS = 4, HEADER = 4 * NR_ADDRS };

static const char *file_path(void)
{
	static char path[96];
	if (!path[0])
		snprintf(path, sizeof(path), "%s/dso", private_dir("dwarf"));
	return path;
}

static void count_frame(const char *func, void *arg)
{
	(void)func;
	++*(int *)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < HEADER)
		return 0;
	const char *path = file_path();
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (fwrite(data + HEADER, 1, size - HEADER, f) != size - HEADER)
		abort();
	fclose(f);
	struct inline_resolver *indexed = inline_resolver_new(false), *walked = inline_resolver_new(false);
	inline_resolver_use_libdw_walks(walked);
	struct inline_resolver *context = inline_resolver_new(true);
	for (int i = 0; i < NR_ADDRS; i++) {
		uint32_t a;
		memcpy(&a, data + 4 * i, 4);
		char *x = inline_addr2line(indexed, path, a);
		char *y = inline_addr2line(walked, path, a);
		if (strcmp(x, y))
			__builtin_trap(); /* the index answered otherwise than libdw */
		free(x);
		free(y);
		int n = 0;
		(void)inline_chain(indexed, path, a, count_frame, &n);
		free(inline_resolve_frame(context, a, i & 1 ? "main" : NULL, a & 0xff, path));
	}
	inline_resolver_free(indexed);
	inline_resolver_free(walked);
	inline_resolver_free(context);
	return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	__builtin_trap(); /* this build has no DWARF reader to fuzz (no elfutils) */
}
#endif
