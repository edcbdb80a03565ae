/* The inline engine's per-unit scope index (inline_scopes.c) against
 * libdw's own walks (dwarf_getscopes + dwarf_getscopes_die per address,
 * the engine before the index): the same records for every address of the
 * line tables of real binaries, in both of the engine's modes (a fresh
 * addr2line per address, and one long-running addr2line asked in order,
 * whose answers depend on what it was asked before):
 *   - this test binary (C, -O2: inlined static functions, lexical blocks);
 *   - the C++ workload of the corpus (tmpl: templates, lambdas, inlined
 *     functions without linkage names), when CORPUS is set, 600 of its
 *     3,712 addresses (libdw's walks of its units are slow);
 *   - files named in INLINE_SCOPES_FILES (space-separated: Debian's libc
 *     with libc6-dbg, a Python built with DWARF, ...), every
 *     INLINE_SCOPES_MAX addresses at most (default 4000; 0: all of them).
 * Addresses: each line-table row's, and the byte before it (callers are
 * asked at return address - 1). */
#include "harness.h"

#ifdef HAVE_ELFUTILS
#include "base/alloc.h"
#include "name_lines.h"
#include "symbolize/inline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The line-table addresses of the DWARF in path (or in its debug file
 * under /usr/lib/debug/.build-id), and each one's byte before, sorted and
 * distinct. */
static size_t line_addresses(const char *path, uint64_t **out)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	int dfd = -1;
	if (!dw) {
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		const void *id;
		ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
		if (n > 1 && n <= 64) {
			char hex[130], dbg[300];
			for (ssize_t i = 0; i < n; i++)
				snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
			snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
			dfd = open(dbg, O_RDONLY | O_CLOEXEC);
			dw = dfd >= 0 ? dwarf_begin(dfd, DWARF_C_READ) : NULL;
		}
		if (elf)
			elf_end(elf);
	}
	size_t n = 0, alloc = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dw && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nl;
		if (dwarf_offdie(dw, off + hsize, &cu) && !dwarf_getsrclines(&cu, &lines, &nl)) {
			for (size_t i = 0; i < nl; i++) {
				Dwarf_Addr a;
				if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) || !a)
					continue;
				VEC_GROW(*out, n + 2, alloc);
				(*out)[n++] = a;
				(*out)[n++] = a - 1;
			}
		}
		off = next;
	}
	if (dw)
		dwarf_end(dw);
	if (dfd >= 0)
		close(dfd);
	close(fd);
	if (n > 1)
		qsort(*out, n, sizeof(**out), u64_cmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || (*out)[k - 1] != (*out)[i])
			(*out)[k++] = (*out)[i];
	return k;
}

/* Both engines on up to max of path's addresses (evenly spread; 0: all):
 * how many addresses differ (the first ones reported), -1 without any. */
static long compare_file(struct unit_test *t_, const char *path, size_t max, size_t *asked)
{
	uint64_t *addrs;
	size_t n = line_addresses(path, &addrs);
	*asked = 0;
	if (!n) {
		free(addrs);
		return -1;
	}
	size_t step = max && n > max ? n / max : 1;
	struct inline_resolver *fast = inline_resolver_new(false), *ref = inline_resolver_new(false);
	inline_resolver_use_libdw_walks(ref);
	long differ = 0;
	struct names a = { 0 }, b = { 0 };
	for (size_t i = 0; i < n; i += step) {
		(*asked)++;
		char *x = inline_addr2line(fast, path, addrs[i]), *y = inline_addr2line(ref, path, addrs[i]);
		a.len = b.len = 0;
		int na = inline_chain(fast, path, addrs[i], add_name, &a);
		int nb = inline_chain(ref, path, addrs[i], add_name, &b);
		bool same = !strcmp(x, y) && na == nb && (!na || !strcmp(a.s, b.s));
		if (!same && ++differ <= 3)
			unit_fail(t_, __FILE__, __LINE__, "%s %llx: index '%s' [%s] libdw '%s' [%s]", path,
				  (unsigned long long)addrs[i], x, na ? a.s : "", y, nb ? b.s : "");
		free(x);
		free(y);
	}
	free(a.s);
	free(b.s);
	inline_resolver_free(fast);
	inline_resolver_free(ref);
	free(addrs);
	return differ;
}

TEST(inline_scopes_index_answers_as_libdw_walks)
{
	size_t asked;
	long d = compare_file(t_, "/proc/self/exe", 3000, &asked);
	REQUIRE(d >= 0); /* the unit binary is built with -g: it has DWARF */
	CHECK(asked > 1000);
	CHECK(d == 0);
}

TEST(inline_scopes_index_answers_as_libdw_walks_on_cxx)
{
	/* tests/lib.sh's default when run alone from the repository root */
	const char *corpus = getenv("CORPUS") ? getenv("CORPUS") : "tests/data/corpus";
	const char *tmp = getenv("TMPDIR");
	REQUIRE(!system("command -v xz tar >/dev/null 2>&1")); /* scripts/setup installs xz-utils */
	char exe[4096], cmd[8400];
	snprintf(exe, sizeof(exe), "%s/unit-inline-scopes-tmpl", tmp && *tmp ? tmp : "/tmp");
	snprintf(cmd, sizeof(cmd), "tar -xJOf '%s/workloads/binaries.tar.xz' tmpl >'%s' 2>/dev/null", corpus, exe);
	REQUIRE(!system(cmd));
	size_t asked;
	long d = compare_file(t_, exe, 600, &asked);
	unlink(exe);
	CHECK(asked >= 600);
	CHECK(d == 0);
}

TEST(inline_scopes_index_answers_as_libdw_walks_on_named_files)
{
	const char *files = getenv("INLINE_SCOPES_FILES");
	if (!files || !*files)
		SKIP("INLINE_SCOPES_FILES not set");
	const char *m = getenv("INLINE_SCOPES_MAX");
	size_t max = m ? strtoull(m, NULL, 10) : 4000;
	char *list = xstrdup(files), *save = NULL;
	for (char *f = strtok_r(list, " ", &save); f; f = strtok_r(NULL, " ", &save)) {
		size_t asked;
		long d = compare_file(t_, f, max, &asked);
		fprintf(stderr, "# %s: %zu addresses, %ld differ\n", f, asked, d);
		CHECK(d == 0);
	}
	free(list);
}
#endif
