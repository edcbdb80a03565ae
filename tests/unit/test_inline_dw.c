/* The libdw inline engine against binutils' addr2line itself, on the C++
 * workload of the corpus (tmpl: lambdas, templates, std::function, whose
 * inlined functions often have no linkage name), at every address the
 * e-cxx-dwarf capture's perf script text shows in it:
 *   - inline_addr2line = `addr2line -a ADDR -e tmpl -i -f -s -C`, one
 *     process per address, as stackcollapse-perf.pl runs it (every fourth
 *     address: a process each is slow);
 *   - inline_chain = the function names of one long-running
 *     `addr2line -e tmpl -i -f` asked the addresses in order, as perf 6.1
 *     runs it (binutils names a function without linkage name after its
 *     symbol the first time only, so the order matters). */
#include "harness.h"

#ifdef HAVE_ELFUTILS
#include "base/alloc.h"
#include "name_lines.h"
#include "symbolize/inline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The workload binary and its addresses, in first-seen order; 0 when the
 * tools or the corpus are missing (CORPUS defaults as in tests/lib.sh). */
static size_t corpus_addresses(char *exe, size_t exe_size, unsigned long long **out)
{
	const char *corpus = getenv("CORPUS") ? getenv("CORPUS") : "tests/data/corpus";
	const char *tmp = getenv("TMPDIR");
	*out = NULL;
	if (system("command -v addr2line xz tar >/dev/null 2>&1"))
		return 0;
	snprintf(exe, exe_size, "%s/unit-inline-dw-tmpl", tmp && *tmp ? tmp : "/tmp");
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "tar -xJOf '%s/workloads/binaries.tar.xz' tmpl >'%s' 2>/dev/null", corpus, exe);
	if (system(cmd))
		return 0;
	snprintf(cmd, sizeof(cmd),
		 "xz -dc '%s/e-cxx-dwarf.perf.txt.xz' | awk '/\\(\\/tmp\\/bench\\/w\\/tmpl\\)$|\\(inlined\\)$/"
		 " && !seen[$1]++ { print $1 }'",
		 corpus);
	FILE *p = popen(cmd, "r");
	if (!p)
		return 0;
	size_t n = 0, alloc = 0;
	char line[256];
	while (fgets(line, sizeof(line), p)) {
		VEC_GROW(*out, n + 1, alloc);
		(*out)[n++] = strtoull(line, NULL, 16);
	}
	pclose(p);
	return n;
}

static char *read_all(FILE *f)
{
	size_t n = 0, alloc = 0;
	char *s = NULL, buf[4096];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		VEC_GROW(s, n + got + 1, alloc);
		memcpy(s + n, buf, got);
		n += got;
	}
	VEC_GROW(s, n + 1, alloc);
	s[n] = '\0';
	return s;
}

static void drop_discriminators(char *s)
{
	for (char *d; (d = strstr(s, " (discriminator "));) {
		char *e = strchr(d, ')');
		if (!e)
			break;
		memmove(d, e + 1, strlen(e + 1) + 1);
	}
}

/* exe: the corpus's tmpl binary, addrs[n]: addresses in it; or the test
 * fails (a macro: it returns from the test): the corpus is in the
 * repository and scripts/setup installs binutils and xz-utils. */
#define TMPL_ADDRESSES_OR_FAIL(exe, addrs, n)                                     \
	char exe[4096];                                                               \
	unsigned long long *addrs;                                                    \
	size_t n = corpus_addresses(exe, sizeof(exe), &addrs);                        \
	if (!n) {                                                                     \
		free(addrs);                                                          \
		unit_fail(t_, __FILE__, __LINE__, "no corpus, addr2line, xz or tar"); \
		return;                                                               \
	}

TEST(inline_addr2line_as_a_fresh_addr2line_on_cxx)
{
	TMPL_ADDRESSES_OR_FAIL(exe, addrs, n);
	CHECK(n > 500);
	struct inline_resolver *r = inline_resolver_new(false);
	int differ = 0;
	for (size_t i = 0; i < n; i += 4) {
		char cmd[8300];
		snprintf(cmd, sizeof(cmd), "addr2line -i -f -s -C -e '%s' %llx", exe, addrs[i]);
		FILE *p = popen(cmd, "r");
		REQUIRE(p);
		char *want = read_all(p);
		pclose(p);
		drop_discriminators(want);
		char *mine = inline_addr2line(r, exe, addrs[i]);
		if (strcmp(mine, want) && ++differ <= 3)
			unit_fail(t_, __FILE__, __LINE__, "%llx: ours '%s' addr2line '%s'", addrs[i], mine, want);
		free(mine);
		free(want);
	}
	CHECK(differ == 0);
	inline_resolver_free(r);
	free(addrs);
}

TEST(inline_chain_as_a_long_running_addr2line_on_cxx)
{
	TMPL_ADDRESSES_OR_FAIL(exe, addrs, n);
	/* addr2line's answer: "ADDR" lines (-a) separate the records, every
	 * second line of which is a function name */
	const char *tmp = getenv("TMPDIR");
	char list[4200], cmd[8600];
	snprintf(list, sizeof(list), "%s/unit-inline-dw-addrs", tmp && *tmp ? tmp : "/tmp");
	FILE *f = fopen(list, "w");
	REQUIRE(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%llx\n", addrs[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -e '%s' <'%s'", exe, list);
	FILE *p = popen(cmd, "r");
	REQUIRE(p);
	char *want = read_all(p);
	pclose(p);
	struct inline_resolver *r = inline_resolver_new(false);
	struct names mine = { 0 };
	for (size_t i = 0; i < n; i++) {
		char head[64];
		snprintf(head, sizeof(head), "0x%016llx\n", addrs[i]);
		add_name(head, &mine);
		mine.s[--mine.len] = '\0'; /* head has its newline */
		inline_chain(r, exe, addrs[i], add_name, &mine);
	}
	/* keep the address lines and the function of each record but the
	 * "??" / "??:0" of an unknown address */
	struct names theirs = { 0 };
	char *line = want;
	while (*line) {
		char *nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (!strncmp(line, "0x", 2)) {
			add_name(line, &theirs);
			line = nl + 1;
			continue;
		}
		char *loc = nl + 1, *nl2 = strchr(loc, '\n');
		if (!nl2)
			break;
		*nl2 = '\0';
		if (strcmp(line, "??") || strncmp(loc, "??:", 3))
			add_name(line, &theirs);
		line = nl2 + 1;
	}
	REQUIRE(mine.s && theirs.s);
	CHECK(strstr(theirs.s, "\n_Z") != NULL); /* symbol names for some */
	CHECK(strstr(theirs.s, "\noperator()\n") != NULL); /* DWARF names later */
	if (strcmp(mine.s, theirs.s)) {
		size_t k = 0;
		while (mine.s[k] && mine.s[k] == theirs.s[k])
			k++;
		unit_fail(t_, __FILE__, __LINE__, "first difference at byte %zu: ours '%.120s' addr2line '%.120s'", k,
			  mine.s + k, theirs.s + k);
	}
	free(mine.s);
	free(theirs.s);
	free(want);
	inline_resolver_free(r);
	free(addrs);
}

/* Without DWARF, addr2line names an address after binutils'
 * elf_find_function choice among the symbol table's functions (the engine
 * searches them sorted by section and value, ties in table order): a copy
 * of src without DWARF (objcopy with copy_opts), at each function symbol's
 * value (nm nm_opts), the byte after it and its last byte, against one
 * `addr2line -a -i -f -s -C` (without DWARF a long-running addr2line
 * answers as fresh ones do). Returns how many addresses were compared. */
static size_t symbols_as_addr2line(struct unit_test *t_, const char *src, const char *copy_opts, const char *nm_opts)
{
	const char *tmp = getenv("TMPDIR");
	char exe[4096], list[4200], cmd[8400];
	snprintf(exe, sizeof(exe), "%.4000s/unit-inline-dw-nodwarf", tmp && *tmp ? tmp : "/tmp");
	snprintf(list, sizeof(list), "%s.addrs", exe);
	snprintf(cmd, sizeof(cmd), "objcopy %s '%.4000s' '%.4000s'", copy_opts, src, exe);
	if (system(cmd)) {
		unit_fail(t_, __FILE__, __LINE__, "%s failed", cmd);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "nm %s --defined-only -S '%.4000s'", nm_opts, exe);
	FILE *p = popen(cmd, "r"), *f = fopen(list, "w");
	if (!p || !f) {
		unit_fail(t_, __FILE__, __LINE__, "cannot run nm or write %s", list);
		return 0;
	}
	char line[1024];
	while (fgets(line, sizeof(line), p)) {
		/* "VALUE SIZE TYPE NAME", or "VALUE TYPE NAME" without a size */
		unsigned long long v, sz = 0;
		char type;
		if (sscanf(line, "%llx %llx %c", &v, &sz, &type) != 3 && (sz = 0, sscanf(line, "%llx %c", &v, &type) != 2))
			continue;
		if (!strchr("TtWi", type))
			continue;
		fprintf(f, "%llx\n%llx\n", v, v + 1);
		if (sz > 1)
			fprintf(f, "%llx\n", v + sz - 1);
	}
	pclose(p);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -s -C -e '%.4000s' <'%.4000s'", exe, list);
	p = popen(cmd, "r");
	char *want = p ? read_all(p) : NULL;
	if (p)
		pclose(p);
	if (!want) {
		unit_fail(t_, __FILE__, __LINE__, "cannot run addr2line");
		return 0;
	}
	drop_discriminators(want);
	struct inline_resolver *r = inline_resolver_new(false);
	size_t n = 0;
	int differ = 0;
	/* addr2line's answer: an "0x..." line, then the address's records */
	for (char *at = strstr(want, "0x"); at; n++) {
		char *rec = strchr(at, '\n');
		if (!rec)
			break;
		rec++;
		char *next = strstr(rec, "\n0x");
		size_t len = next ? (size_t)(next + 1 - rec) : strlen(rec);
		unsigned long long addr = strtoull(at, NULL, 16);
		char *mine = inline_addr2line(r, exe, addr);
		if ((strlen(mine) != len || memcmp(mine, rec, len)) && ++differ <= 3)
			unit_fail(t_, __FILE__, __LINE__, "%s %llx: ours '%s' addr2line '%.*s'", src, addr, mine, (int)len,
				  rec);
		free(mine);
		at = next ? next + 1 : NULL;
	}
	inline_resolver_free(r);
	free(want);
	unlink(exe);
	unlink(list);
	return n;
}

/* This test binary (a thousand functions) and, when there, Debian's libc
 * without its debug file (.dynsym: thousands of aliases at equal values,
 * whose ties table order decides). */
TEST(inline_addr2line_symbol_tables_as_addr2line)
{
	if (system("command -v objcopy nm addr2line >/dev/null 2>&1"))
		SKIP("no objcopy, nm or addr2line");
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	REQUIRE(sl > 0);
	self[sl] = '\0';
	CHECK(symbols_as_addr2line(t_, self, "--strip-debug", "") > 2000);
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	if (!access(libc, R_OK))
		CHECK(symbols_as_addr2line(t_, libc,
					   "--strip-debug --remove-section=.gnu_debuglink "
					   "--remove-section=.note.gnu.build-id",
					   "-D") > 2000);
}
#endif

/* inline_resolver_limit(1) on two files (the tmpl binary and a copy of
 * it), asked in turn so that each question closes the other file and
 * opens its own again: every answer is the one a resolver without a
 * limit gives. */
TEST(inline_limit_closes_and_reopens_the_same_answers)
{
	TMPL_ADDRESSES_OR_FAIL(exe, addrs, n);
	const char *tmp = getenv("TMPDIR");
	char copy[4300], cmd[8800];
	snprintf(copy, sizeof(copy), "%s/unit-inline-dw-copy", tmp && *tmp ? tmp : "/tmp");
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", exe, copy);
	REQUIRE(system(cmd) == 0);
	struct inline_resolver *all = inline_resolver_new(false), *one = inline_resolver_new(false);
	inline_resolver_limit(one, 1);
	int differ = 0, asked = 0;
	for (size_t i = 0; i < n; i += 7) {
		char *want = inline_addr2line(all, exe, addrs[i]);
		char *mine = inline_addr2line(one, i % 2 ? copy : exe, addrs[i]);
		asked++;
		if (strcmp(mine, want) && ++differ <= 3)
			unit_fail(t_, __FILE__, __LINE__, "%llx: limited '%s' unlimited '%s'", addrs[i], mine, want);
		free(mine);
		free(want);
	}
	CHECK(asked > 50);
	CHECK(differ == 0);
	inline_resolver_free(all);
	inline_resolver_free(one);
	unlink(copy);
	free(addrs);
}
