/* The symbolizer's per-sample lookups: sym_lookup_in answers as sym_lookup
 * does, and sym_lookup_stamp, under which report caches folded frames,
 * changes whenever an answer could (an mmap into the space, a kernel map
 * or the kernel's symbols loading), is shared by a process's threads and,
 * for kernel addresses, by every process, and no user stamp ever equals a
 * kernel one. A JIT map and a kallsyms file written here give the
 * symbols. */
#include "harness.h"

#include "symbolize/symbolize.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct fixture {
	char kallsyms[64], jit[64];
	int32_t pid; /* its JIT map is /tmp/perf-PID.map */
	struct symbolizer *s;
};

static int fixture_open(struct fixture *fx)
{
	fx->pid = 1000000000 + (int32_t)(getpid() % 100000000);
	snprintf(fx->kallsyms, sizeof(fx->kallsyms), "/tmp/scorch-unit-%d.kallsyms", (int)getpid());
	snprintf(fx->jit, sizeof(fx->jit), "/tmp/perf-%d.map", (int)fx->pid);
	if (unit_write_file(fx->kallsyms, "ffffffff81000000 T _text\n"
				     "ffffffff81000100 T kfunc_a\n"
				     "ffffffff81000200 T kfunc_b\n"
				     "ffffffff81000300 T _etext\n") < 0 ||
	    unit_write_file(fx->jit, "10000 100 jit_one\n10100 100 jit_two\n") < 0)
		return -1;
	struct sym_options o = { .kallsyms = fx->kallsyms };
	fx->s = symbolizer_new(&o);
	return 0;
}

static void fixture_close(struct fixture *fx)
{
	symbolizer_free(fx->s);
	unlink(fx->kallsyms);
	unlink(fx->jit);
}

static void map_jit(struct symbolizer *s, int32_t pid, int32_t tid, uint64_t start, uint64_t len)
{
	struct sym_mmap m = { .pid = pid, .tid = tid, .start = start, .len = len, .prot = PROT_EXEC,
			      .filename = "//anon" };
	sym_mmap(s, &m);
}

static void map_kernel(struct symbolizer *s)
{
	struct sym_mmap m = { .pid = -1, .tid = 0, .kernel = true, .start = 0xffffffff81000000ull,
			      .len = 0x1000000, .pgoff = 0xffffffff81000000ull,
			      .filename = "[kernel.kallsyms]_text" };
	sym_mmap(s, &m);
}

static bool same_frame(const struct sym_frame *a, const struct sym_frame *b)
{
	return a->name == b->name && a->dso == b->dso && a->offset == b->offset && a->dso_addr == b->dso_addr &&
	       a->have_map == b->have_map;
}

TEST(symbolize_lookup_in_answers_as_lookup)
{
	struct fixture fx;
	REQUIRE(fixture_open(&fx) == 0);
	struct symbolizer *s = fx.s;
	map_kernel(s);
	map_jit(s, fx.pid, fx.pid, 0x10000, 0x1000);
	uint32_t space;
	const char *comm = sym_sample_thread(s, fx.pid, fx.pid, &space);
	char want[24];
	snprintf(want, sizeof(want), ":%d", (int)fx.pid);
	CHECK_STR(comm, want); /* made on first use, named as perf names it */
	const uint64_t user[] = { 0x10000, 0x10050, 0x10100, 0x101ff, 0x10200, 0x20000, 0 };
	const uint64_t kern[] = { 0xffffffff81000100ull, 0xffffffff81000250ull, 0xffffffff80000000ull };
	int named = 0;
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++) {
			struct sym_frame a, b;
			int ra = sym_lookup(s, fx.pid, fx.pid, user[i], false, &a);
			int rb = sym_lookup_in(s, space, user[i], false, &b);
			CHECK_EQ_U64(ra, rb);
			CHECK(same_frame(&a, &b));
			named += ra == 0;
		}
		for (size_t i = 0; i < sizeof(kern) / sizeof(kern[0]); i++) {
			struct sym_frame a, b;
			int rb = sym_lookup_in(s, space, kern[i], true, &b);
			int ra = sym_lookup(s, fx.pid, fx.pid, kern[i], true, &a);
			CHECK_EQ_U64(ra, rb);
			CHECK(same_frame(&a, &b));
			named += ra == 0;
		}
	}
	CHECK_EQ_U64(named, 2 * (4 + 2)); /* the fixture's symbols are read */
	struct sym_frame f;
	REQUIRE(sym_lookup_in(s, space, 0x10150, false, &f) == 0);
	CHECK_STR(f.name, "jit_two");
	CHECK_EQ_U64(f.offset, 0x50);
	REQUIRE(sym_lookup_in(s, space, 0xffffffff81000210ull, true, &f) == 0);
	CHECK_STR(f.name, "kfunc_b");
	CHECK_STR(f.dso, "[kernel.kallsyms]");
	fixture_close(&fx);
}

TEST(symbolize_stamps_change_with_answers)
{
	struct fixture fx;
	REQUIRE(fixture_open(&fx) == 0);
	struct symbolizer *s = fx.s;
	int32_t p = fx.pid, q = fx.pid + 1;
	uint32_t idle, sp, sp_thread, sq;
	sym_sample_thread(s, 0, 0, &idle); /* perf's swapper: the first space */
	sym_fork(s, p, 0, p, 0);
	sym_fork(s, p, p, p + 2, p); /* a thread of p */
	sym_fork(s, q, 0, q, 0);
	sym_sample_thread(s, p, p, &sp);
	sym_sample_thread(s, p, p + 2, &sp_thread);
	sym_sample_thread(s, q, q, &sq);
	CHECK_EQ_U64(sp, sp_thread);
	CHECK(sp != sq);

	uint64_t up = sym_lookup_stamp(s, sp, false), uq = sym_lookup_stamp(s, sq, false);
	uint64_t k = sym_lookup_stamp(s, sp, true);
	CHECK(up != uq);
	CHECK_EQ_U64(sym_lookup_stamp(s, sq, true), k); /* the kernel's, whoever asks */
	/* no user stamp meets a kernel stamp, whatever the generations */
	for (int i = 0; i < 4; i++) {
		uint64_t kn = sym_lookup_stamp(s, idle, true);
		CHECK(sym_lookup_stamp(s, idle, false) != kn);
		CHECK(sym_lookup_stamp(s, sp, false) != kn);
		CHECK(sym_lookup_stamp(s, sq, false) != kn);
		map_kernel(s);
		CHECK(sym_lookup_stamp(s, idle, true) != kn);
	}
	up = sym_lookup_stamp(s, sp, false);
	uq = sym_lookup_stamp(s, sq, false);
	k = sym_lookup_stamp(s, sp, true);

	/* an mmap changes its space's stamp only */
	struct sym_frame before, after;
	sym_lookup_in(s, sp, 0x10050, false, &before);
	CHECK(!before.name);
	map_jit(s, p, p + 2, 0x10000, 0x1000);
	CHECK(sym_lookup_stamp(s, sp, false) != up);
	CHECK_EQ_U64(sym_lookup_stamp(s, sq, false), uq);
	CHECK_EQ_U64(sym_lookup_stamp(s, sp, true), k);
	sym_lookup_in(s, sp, 0x10050, false, &after);
	CHECK_STR(after.name, "jit_one");
	up = sym_lookup_stamp(s, sp, false);

	/* a lookup that loads the kernel's symbols changes the kernel's stamp
	   (the map then spans the symbols), later ones do not; user stamps stay */
	sym_lookup_in(s, sq, 0xffffffff81000100ull, true, &after);
	CHECK_STR(after.name, "kfunc_a");
	uint64_t k2 = sym_lookup_stamp(s, sq, true);
	CHECK(k2 != k);
	sym_lookup_in(s, sp, 0xffffffff81000200ull, true, &after);
	CHECK_EQ_U64(sym_lookup_stamp(s, sp, true), k2);
	CHECK_EQ_U64(sym_lookup_stamp(s, sp, false), up);
	CHECK_EQ_U64(sym_lookup_stamp(s, sq, false), uq);
	fixture_close(&fx);
}

/* What each kind of mapping name makes (perf's map__new): memory without a
 * file is looked up by address (executable: in the process's JIT map),
 * [vdso] by offset from its start, a file by file offset. */
TEST(symbolize_mmap_names)
{
	struct fixture fx;
	REQUIRE(fixture_open(&fx) == 0);
	struct symbolizer *s = fx.s;
	int32_t p = fx.pid;
	static const struct {
		const char *name;
		uint32_t prot;
		const char *dso; /* NULL: the JIT map */
		bool by_address;
	} cases[] = {
		{ "//anon", PROT_EXEC, NULL, true },
		{ "/dev/zero (deleted)", PROT_EXEC, NULL, true },
		{ "/anon_hugepage", PROT_EXEC, NULL, true },
		{ "/SYSV00000000", PROT_EXEC, NULL, true },
		{ "[stack]", PROT_EXEC, NULL, true },
		{ "[heap]", PROT_EXEC, NULL, true },
		{ "//anon", PROT_READ, "//anon", true },
		{ "/SYSV0000abcd", PROT_READ, "/SYSV0000abcd", true },
		{ "[stack:42]", PROT_READ, "[stack:42]", true },
		{ "[heap]", PROT_READ, "[heap]", true },
		{ "[vdso]", PROT_EXEC, "[vdso]", false },
		/* files, though they begin as those names do */
		{ "/dev/zer", PROT_EXEC, "/dev/zer", false },
		{ "/anon", PROT_EXEC, "/anon", false },
		{ "/Sys/x", PROT_EXEC, "/Sys/x", false },
		{ "/a/b", PROT_EXEC, "/a/b", false },
		{ "[heapx]", PROT_EXEC, "[heapx]", false },
		{ "/x/[heap]", PROT_EXEC, "/x/[heap]", false },
	};
	char jit[64];
	snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", (int)p);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t start = 0x100000 * (i + 1), pgoff = 0x30000;
		struct sym_mmap m = { .pid = p, .tid = p, .start = start, .len = 0x10000, .pgoff = pgoff,
				      .prot = cases[i].prot, .filename = cases[i].name };
		sym_mmap(s, &m);
		uint32_t space;
		sym_sample_thread(s, p, p, &space);
		struct sym_frame f;
		sym_lookup_in(s, space, start + 0x123, false, &f);
		CHECK_STR(f.dso, cases[i].dso ? cases[i].dso : jit);
		uint64_t want = cases[i].by_address ? start + 0x123
			      : !strcmp(cases[i].name, "[vdso]") ? 0x123 : pgoff + 0x123;
		if (f.dso_addr != want)
			unit_fail(t_, __FILE__, __LINE__, "%s: dso_addr %llx, not %llx", cases[i].name,
				  (unsigned long long)f.dso_addr, (unsigned long long)want);
	}
	/* MAP_HUGETLB memory is anonymous whatever its name */
	struct sym_mmap h = { .pid = p, .tid = p, .start = 0x7000000, .len = 0x10000, .pgoff = 0x30000,
			      .prot = PROT_EXEC, .flags = 0x40000, .filename = "/some/file" };
	sym_mmap(s, &h);
	uint32_t space;
	sym_sample_thread(s, p, p, &space);
	struct sym_frame f;
	sym_lookup_in(s, space, 0x7000010, false, &f);
	CHECK_STR(f.dso, jit);
	fixture_close(&fx);
}

/* A thread is named ":TID" until a COMM names it; a forked thread takes
 * its parent's name only when the parent was named. */
TEST(symbolize_thread_names)
{
	struct fixture fx;
	REQUIRE(fixture_open(&fx) == 0);
	struct symbolizer *s = fx.s;
	uint32_t space;
	sym_fork(s, 500, 1, 500, 1);
	sym_fork(s, 500, 500, 501, 500);
	CHECK_STR(sym_thread_comm(s, 500, 501), ":501");
	CHECK_STR(sym_sample_thread(s, 500, 500, &space), ":500");
	sym_comm(s, 500, 500, "worker", 6, false);
	CHECK_STR(sym_thread_comm(s, 500, 500), "worker");
	CHECK_STR(sym_thread_comm(s, 500, 501), ":501");
	sym_fork(s, 500, 500, 502, 500);
	CHECK_STR(sym_sample_thread(s, 500, 502, &space), "worker");
	sym_fork(s, 600, 500, 600, 501); /* from the unnamed thread */
	CHECK_STR(sym_thread_comm(s, 600, 600), ":600");
	CHECK(sym_thread_comm(s, 700, -1)[0] == ':');
	CHECK_STR(sym_thread_comm(s, 1, 1), ":1");
	CHECK_STR(sym_thread_comm(s, 0, 0), "swapper");
	/* the same name is the same pointer (callers cache on it), whichever
	   record gave it */
	sym_comm(s, 800, 800, "worker", 6, false);
	CHECK(sym_thread_comm(s, 800, 800) == sym_thread_comm(s, 500, 500));
	CHECK(sym_thread_comm(s, 500, 501) == sym_thread_comm(s, 500, 501));
	fixture_close(&fx);
}

/* This process's executable mappings of files, into space pid of s as
 * their MMAP records would put them; returns how many. */
static int map_own_files(struct symbolizer *s, int32_t pid)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8], path[4000] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %3999s", &start, &end, perms, &pgoff, path) < 4 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		struct sym_mmap m = { .pid = pid, .tid = pid, .start = start, .len = end - start, .pgoff = pgoff,
				      .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .filename = path };
		sym_mmap(s, &m);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

__attribute__((noinline)) static int unit_own_function(int x)
{
	return x * 3 + 1;
}

/* With a byte budget for the files' symbol tables smaller than one file's,
 * every lookup in another file drops the last one's tables: lookups that
 * alternate between the unit binary and libc read each file again each
 * time, and answer as a symbolizer without a budget does. */
TEST(symbolize_symbols_budget_drops_and_rereads)
{
	int32_t pid = (int32_t)getpid();
	struct sym_options bounded = { .kallsyms = "/dev/null", .no_debuginfod = true, .symbols_budget = 1 };
	struct sym_options open = { .kallsyms = "/dev/null", .no_debuginfod = true };
	struct symbolizer *b = symbolizer_new(&bounded), *u = symbolizer_new(&open);
	REQUIRE(map_own_files(b, pid) >= 2);
	REQUIRE(map_own_files(u, pid) >= 2);
	const uint64_t addrs[] = { (uint64_t)(uintptr_t)unit_own_function, (uint64_t)(uintptr_t)getpid,
				   (uint64_t)(uintptr_t)unit_own_function + 4, (uint64_t)(uintptr_t)fopen };
	int named = 0;
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
			struct sym_frame fb, fu;
			int rb = sym_lookup(b, pid, pid, addrs[i], false, &fb);
			int ru = sym_lookup(u, pid, pid, addrs[i], false, &fu);
			CHECK_EQ_U64(rb, ru);
			if (!rb && !ru) {
				CHECK_STR(fb.name, fu.name);
				CHECK_EQ_U64(fb.offset, fu.offset);
				named++;
			}
			CHECK_STR(fb.dso, fu.dso);
		}
	}
	CHECK_EQ_U64(named, 3 * 4);
	size_t bytes, ubytes;
	uint64_t dropped, udropped;
	sym_symbols_held(b, &bytes, &dropped);
	sym_symbols_held(u, &ubytes, &udropped);
	CHECK(dropped >= 3 * 4 - 1); /* each lookup after the first changes file */
	CHECK(bytes > 0);            /* the file in use stays, whatever it holds */
	CHECK_EQ_U64(ubytes, 0);     /* no budget: not counted */
	CHECK_EQ_U64(udropped, 0);
	struct sym_frame f;
	REQUIRE(sym_lookup(b, pid, pid, (uint64_t)(uintptr_t)unit_own_function, false, &f) == 0);
	CHECK_STR(f.name, "unit_own_function");
	symbolizer_free(b);
	symbolizer_free(u);
}
