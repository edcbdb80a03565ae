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
 * tools or the corpus are missing. */
static size_t corpus_addresses(char *exe, size_t exe_size, unsigned long long **out)
{
	const char *corpus = getenv("CORPUS");
	const char *tmp = getenv("TMPDIR");
	*out = NULL;
	if (!corpus || system("command -v addr2line xz tar >/dev/null 2>&1"))
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

TEST(inline_addr2line_as_a_fresh_addr2line_on_cxx)
{
	char exe[4096];
	unsigned long long *addrs;
	size_t n = corpus_addresses(exe, sizeof(exe), &addrs);
	if (!n) {
		free(addrs);
		SKIP("no corpus, addr2line, xz or tar");
	}
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
	char exe[4096];
	unsigned long long *addrs;
	size_t n = corpus_addresses(exe, sizeof(exe), &addrs);
	if (!n) {
		free(addrs);
		SKIP("no corpus, addr2line, xz or tar");
	}
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
#endif
