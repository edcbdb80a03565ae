/* perf map files: perf's line rules (strtoull fields, so "0x" and blanks;
 * the last byte of each line dropped; names of three bytes or more), the
 * checks on opening (no links, regular files, the owner) and re-reading a
 * map that grew or was rewritten. */
#include "harness.h"
#include "symbolize/perfmap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *name_at(struct symtab *t, uint64_t addr)
{
	struct symbol *s = symtab_find(t, addr);
	return s ? symtab_name(t, s) : "(none)";
}

TEST(perfmap_lines_as_perf_reads_them)
{
	static const char text[] =
		"0x00007f4d44ec7620 0x0000000000000358 long Hot.f(long)\n" /* HotSpot */
		"7f80df7c5900 2b0 JS:*hot [eval]:1:13\n"                    /* V8 */
		"  1000 10 blank before\n"                                  /* strtoull skips blanks */
		"2000 10 ab\n"                                              /* too short a name: skipped */
		"3000 10 abc\n"
		"zz 10 not a number\n"                                      /* start 0: kept, as perf */
		"4000 0 zero sized\n"
		"5000 10 unterminated";                                     /* last byte dropped */
	struct symtab t;
	symtab_init(&t);
	CHECK(perfmap_parse(&t, text, sizeof(text) - 1) == 7);
	CHECK_STR(name_at(&t, 0x7f4d44ec7620), "long Hot.f(long)");
	CHECK_STR(name_at(&t, 0x7f4d44ec7977), "long Hot.f(long)");
	CHECK_STR(name_at(&t, 0x7f4d44ec7978), "(none)");
	CHECK_STR(name_at(&t, 0x7f80df7c5a00), "JS:*hot [eval]:1:13");
	CHECK_STR(name_at(&t, 0x1005), "blank before");
	CHECK_STR(name_at(&t, 0x2005), "(none)");
	CHECK_STR(name_at(&t, 0x3005), "abc");
	CHECK_STR(name_at(&t, 0x4000), "zero sized"); /* no fix-up: its start only */
	CHECK_STR(name_at(&t, 0x4001), "(none)");
	CHECK_STR(name_at(&t, 0x5001), "unterminate");
	symtab_release(&t);
}

static char *scratch(const char *name)
{
	const char *dir = getenv("TMPDIR");
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/%s", dir && *dir ? dir : "/tmp", name);
	unlink(path);
	return path;
}

static void write_file(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(perfmap_open_refuses_links_other_owners_and_non_files)
{
	char *map = scratch("perfmap-owner.map"), *link = scratch("perfmap-link.map");
	write_file(map, "1000 10 named\n", "w");
	enum perfmap_refusal why;
	struct stat st;
	uid_t me = geteuid();
	int fd = perfmap_open(map, me, false, &why, &st);
	CHECK(fd >= 0 && why == PERFMAP_OPENED);
	if (fd >= 0)
		close(fd);
	CHECK(symlink(map, link) == 0);
	CHECK(perfmap_open(link, me, false, &why, &st) < 0 && why == PERFMAP_LINK);
	CHECK(perfmap_open(link, me, true, &why, &st) < 0 && why == PERFMAP_LINK); /* even forced */
	char *dir = scratch("perfmap-dir.map");
	CHECK(mkdir(dir, 0700) == 0);
	CHECK(perfmap_open(dir, me, false, &why, &st) < 0 && why == PERFMAP_NOT_REG);
	char *fifo = scratch("perfmap-fifo.map");
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(perfmap_open(fifo, me, false, &why, &st) < 0 && why == PERFMAP_NOT_REG); /* no hang */
	CHECK(perfmap_open(map, me, false, &why, &st) >= 0 || why != PERFMAP_OWNER);
	if (me == 0 && chown(map, 65534, 65534) == 0) {
		/* root reading a map another user owns, for a process of a third */
		CHECK(perfmap_open(map, 1234, false, &why, &st) < 0 && why == PERFMAP_OWNER);
		fd = perfmap_open(map, 65534, false, &why, &st); /* the process's own user */
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		fd = perfmap_open(map, 1234, true, &why, &st); /* --force */
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
	}
	char *none = scratch("perfmap-none.map");
	CHECK(perfmap_open(none, me, false, &why, &st) < 0 && why == PERFMAP_ABSENT);
	free(none);
	unlink(link);
	unlink(map);
	rmdir(dir);
	unlink(fifo);
	free(map);
	free(link);
	free(dir);
	free(fifo);
}

TEST(perfmap_refresh_reads_what_grew_or_was_rewritten)
{
	char *map = scratch("perfmap-grow.map");
	struct symtab t;
	symtab_init(&t);
	struct perfmap_state st = { .owner = geteuid() };
	CHECK(perfmap_refresh(&t, map, &st, 0) < 0 && st.refusal == PERFMAP_ABSENT); /* not yet written */
	write_file(map, "1000 10 first\n", "w");
	CHECK(perfmap_refresh(&t, map, &st, 0) == 1);
	CHECK(perfmap_refresh(&t, map, &st, 0) == 0); /* unchanged */
	const char *first = name_at(&t, 0x1000);
	CHECK_STR(first, "first");
	write_file(map, "2000 10 appended\n", "a");
	CHECK(perfmap_refresh(&t, map, &st, 0) == 1); /* the new line only */
	CHECK_STR(name_at(&t, 0x2004), "appended");
	CHECK(first == name_at(&t, 0x1000)); /* names given out stay where they were */
	write_file(map, "3000 10 rewritten\n", "w"); /* truncated, as HotSpot's dump */
	CHECK(perfmap_refresh(&t, map, &st, 0) == 1);
	CHECK_STR(name_at(&t, 0x3000), "rewritten");
	CHECK_STR(name_at(&t, 0x1000), "first"); /* code named by an older dump keeps its name */
	write_file(map, "4000 10 soon\n", "a");
	CHECK(perfmap_refresh(&t, map, &st, 60ll * 1000000000) == 0); /* looked just now */
	symtab_release(&t);
	unlink(map);
	free(map);
}
