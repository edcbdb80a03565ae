/* report's fold of kernel callchains (src/perfdata/fold.c) on a capture
 * written here in perf's pipe format: the folded stacks must be what perf
 * script shows for each sample (perf script | scorch collapse perf gives
 * the expected text below), although report answers most frames from
 * caches of earlier answers (per address and address-space generation, per
 * symbol, one for every address in no map). The samples are laid out to
 * catch a cache that answers for the wrong process, the wrong map
 * generation or the wrong walk context: two processes whose JIT maps give
 * other names at the same addresses, interleaved with a thread of the
 * first; the same kernel path under both; a stack that changes only in its
 * kernel part, then only at its root; an mmap between two samples of one
 * stack; the same entries read as kernel and as hypervisor addresses; an
 * unknown context marker (perf drops the chain); --max-stack (perf keeps
 * the leaf-most entries). */
#include "harness.h"

#include "base/input.h"
#include "base/out.h"
#include "perfdata/fold.h"
#include "perfdata/fold_pushes.h"
#include "perfdata/fold_testing.h"
#include "profile/folded.h"
#include "profile/profile.h"
#include "render/speedscope.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { REC_MMAP = 1, REC_COMM = 3, REC_FORK = 7, REC_SAMPLE = 9, REC_HEADER_ATTR = 64 };
enum { MISC_KERNEL = 1, MISC_USER = 2 };
enum { ST_IP = 1u << 0, ST_TID = 1u << 1, ST_TIME = 1u << 2, ST_CALLCHAIN = 1u << 5, ST_PERIOD = 1u << 8 };
#define CTX_HV ((uint64_t)-32)
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)
#define CTX_BAD ((uint64_t)-4000) /* no context perf knows */

struct capture {
	uint8_t *b;
	size_t n, alloc;
	uint64_t time;
};

static void put(struct capture *c, const void *p, size_t n)
{
	if (c->n + n > c->alloc) {
		c->alloc = (c->n + n) * 2;
		c->b = realloc(c->b, c->alloc);
	}
	memcpy(c->b + c->n, p, n);
	c->n += n;
}

static void put_u16(struct capture *c, uint16_t v) { put(c, &v, 2); }
static void put_u32(struct capture *c, uint32_t v) { put(c, &v, 4); }
static void put_u64(struct capture *c, uint64_t v) { put(c, &v, 8); }

static size_t rec_begin(struct capture *c, uint32_t type, uint16_t misc)
{
	size_t at = c->n;
	put_u32(c, type);
	put_u16(c, misc);
	put_u16(c, 0); /* size, set by rec_end */
	return at;
}

/* The sample_id_all trailer of a record other than a sample. */
static void put_id(struct capture *c, int32_t pid, int32_t tid)
{
	put_u32(c, (uint32_t)pid);
	put_u32(c, (uint32_t)tid);
	put_u64(c, c->time++);
}

static void rec_end(struct capture *c, size_t at)
{
	while ((c->n - at) % 8)
		put(c, "", 1);
	uint16_t size = (uint16_t)(c->n - at);
	memcpy(c->b + at + 6, &size, 2);
}

static void put_name(struct capture *c, const char *s)
{
	put(c, s, strlen(s) + 1);
}

static void capture_start(struct capture *c)
{
	*c = (struct capture){ .time = 1000 };
	put(c, "PERFILE2", 8);
	put_u64(c, 16); /* a pipe header */
	size_t at = rec_begin(c, REC_HEADER_ATTR, 0);
	uint8_t attr[112] = { 0 };
	uint32_t type = 1, size = sizeof(attr); /* software cpu-clock */
	uint64_t sample_type = ST_IP | ST_TID | ST_TIME | ST_CALLCHAIN | ST_PERIOD;
	uint64_t flags = 1u << 18; /* sample_id_all: other records carry pid, tid, time */
	memcpy(attr, &type, 4);
	memcpy(attr + 4, &size, 4);
	memcpy(attr + 24, &sample_type, 8);
	memcpy(attr + 40, &flags, 8);
	put(c, attr, sizeof(attr));
	put_u64(c, 1); /* its id */
	rec_end(c, at);
}

static void comm(struct capture *c, int32_t pid, int32_t tid, const char *name)
{
	size_t at = rec_begin(c, REC_COMM, 0);
	put_u32(c, (uint32_t)pid);
	put_u32(c, (uint32_t)tid);
	put_name(c, name);
	while ((c->n - at) % 8)
		put(c, "", 1);
	put_id(c, pid, tid);
	rec_end(c, at);
}

static void fork_thread(struct capture *c, int32_t pid, int32_t tid)
{
	size_t at = rec_begin(c, REC_FORK, 0);
	put_u32(c, (uint32_t)pid);
	put_u32(c, (uint32_t)pid);
	put_u32(c, (uint32_t)tid);
	put_u32(c, (uint32_t)pid);
	put_u64(c, c->time++);
	put_id(c, pid, tid);
	rec_end(c, at);
}

static void mmap_rec(struct capture *c, int32_t pid, uint16_t misc, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *file)
{
	size_t at = rec_begin(c, REC_MMAP, misc);
	put_u32(c, (uint32_t)pid);
	put_u32(c, (uint32_t)pid);
	put_u64(c, start);
	put_u64(c, len);
	put_u64(c, pgoff);
	put_name(c, file);
	while ((c->n - at) % 8)
		put(c, "", 1);
	put_id(c, pid, pid);
	rec_end(c, at);
}

/* A sample of (pid, tid) with the kernel-provided callchain chain[0..n). */
static void sample(struct capture *c, int32_t pid, int32_t tid, const uint64_t *chain, size_t n)
{
	uint64_t ip = 0;
	for (size_t i = 0; i < n && !ip; i++)
		if (chain[i] < (uint64_t)-4095)
			ip = chain[i];
	size_t at = rec_begin(c, REC_SAMPLE, ip >= 0xffffffff80000000ull ? MISC_KERNEL : MISC_USER);
	put_u64(c, ip);
	put_u32(c, (uint32_t)pid);
	put_u32(c, (uint32_t)tid);
	put_u64(c, c->time++);
	put_u64(c, 1); /* period */
	put_u64(c, n);
	for (size_t i = 0; i < n; i++)
		put_u64(c, chain[i]);
	rec_end(c, at);
}

#define SAMPLE(c, pid, tid, ...) \
	sample(c, pid, tid, (const uint64_t[]){ __VA_ARGS__ }, sizeof((uint64_t[]){ __VA_ARGS__ }) / 8)

/* report's folded text of capture c with max_stack (0: perf's 127). */
static char *fold_text(const struct capture *c, const char *kallsyms, int max_stack)
{
	struct report_opts o = { .max_stack = max_stack, .quiet = true, .threads = 1 };
	o.sym.kallsyms = kallsyms;
	struct profile p;
	profile_init(&p);
	struct report_stats st;
	char *s = NULL;
	if (report_fold("capture", c->b, c->n, &o, &p, &st) == 0) {
		struct out *out = out_open_mem();
		folded_write(&p, out);
		size_t len;
		s = out_mem_detach(out, &len);
	}
	profile_release(&p);
	return s;
}

/* Addresses: both JIT maps at 0x10000 (entries 0x100 long), a late one at
 * 0x30000; the kernel's text at 0xffffffff81000000. */
enum { LEAF = 0x10010, MID = 0x10110, ROOT = 0x10210, LATE = 0x30010 };
#define KFUNC_A 0xffffffff81000110ull
#define KFUNC_B 0xffffffff81000220ull

TEST(report_fold_caches_answer_per_process_map_and_context)
{
	int32_t a = 1000000000 + (int32_t)(getpid() % 100000000), b = a + 7, a2 = a + 1;
	char kallsyms[64], jit_a[64], jit_b[64];
	snprintf(kallsyms, sizeof(kallsyms), "/tmp/scorch-unit-fold-%d.kallsyms", (int)getpid());
	snprintf(jit_a, sizeof(jit_a), "/tmp/perf-%d.map", (int)a);
	snprintf(jit_b, sizeof(jit_b), "/tmp/perf-%d.map", (int)b);
	REQUIRE(unit_write_file(kallsyms, "ffffffff81000000 T _text\n"
				     "ffffffff81000100 T kfunc_a\n"
				     "ffffffff81000200 T kfunc_b\n"
				     "ffffffff81000300 T _etext\n") == 0);
	REQUIRE(unit_write_file(jit_a, "10000 100 a_leaf\n10100 100 a_mid\n10200 100 a_root\n30000 100 a_late\n") == 0);
	REQUIRE(unit_write_file(jit_b, "10000 100 b_leaf\n10100 100 b_mid\n10200 100 b_root\n") == 0);

	struct capture c;
	capture_start(&c);
	mmap_rec(&c, -1, MISC_KERNEL, 0xffffffff81000000ull, 0x1000000, 0xffffffff81000000ull,
		 "[kernel.kallsyms]_text");
	comm(&c, a, a, "alpha");
	comm(&c, b, b, "beta");
	mmap_rec(&c, a, MISC_USER, 0x10000, 0x1000, 0, "//anon");
	mmap_rec(&c, b, MISC_USER, 0x10000, 0x1000, 0, "//anon");
	fork_thread(&c, a, a2);
	/* the same addresses in two processes, and in a thread of the first */
	SAMPLE(&c, a, a, CTX_USER, LEAF, MID, ROOT);
	SAMPLE(&c, b, b, CTX_USER, LEAF, MID, ROOT);
	SAMPLE(&c, a, a2, CTX_USER, LEAF, MID, ROOT);
	/* one kernel path under both */
	SAMPLE(&c, a, a, CTX_KERNEL, KFUNC_B, KFUNC_A, CTX_USER, LEAF, MID, ROOT);
	SAMPLE(&c, b, b, CTX_KERNEL, KFUNC_B, KFUNC_A, CTX_USER, LEAF, MID, ROOT);
	/* only the kernel part changes; then only the root */
	SAMPLE(&c, b, b, CTX_KERNEL, KFUNC_A, CTX_USER, LEAF, MID, ROOT);
	SAMPLE(&c, a, a, CTX_USER, LEAF, MID, LATE);
	/* a map arrives at the root's address: the same stack names it now */
	mmap_rec(&c, a, MISC_USER, 0x30000, 0x1000, 0, "//anon");
	SAMPLE(&c, a, a, CTX_USER, LEAF, MID, LATE);
	SAMPLE(&c, a, a2, CTX_USER, LEAF, MID, LATE);
	SAMPLE(&c, b, b, CTX_USER, LEAF, MID, LATE);
	/* the same entries read as kernel addresses (no such kernel symbols),
	   as the hypervisor's, and after a marker perf does not know */
	SAMPLE(&c, b, b, CTX_KERNEL, MID, ROOT);
	SAMPLE(&c, b, b, CTX_HV, MID, CTX_USER, LEAF, MID, ROOT);
	SAMPLE(&c, a, a, CTX_USER, LEAF, CTX_BAD, MID, ROOT);
	SAMPLE(&c, a, a, CTX_USER, LEAF, MID, ROOT);

	char *all = fold_text(&c, kallsyms, 0);
	CHECK_STR(all, "alpha 1\n"
		       "alpha;[unknown];a_mid;a_leaf 1\n"
		       "alpha;a_late;a_mid;a_leaf 2\n"
		       "alpha;a_root;a_mid;a_leaf 3\n"
		       "alpha;a_root;a_mid;a_leaf;kfunc_a;kfunc_b 1\n"
		       "beta;[unknown];[unknown] 1\n"
		       "beta;[unknown];b_mid;b_leaf 1\n"
		       "beta;b_root;b_mid;b_leaf 1\n"
		       "beta;b_root;b_mid;b_leaf;[unknown] 1\n"
		       "beta;b_root;b_mid;b_leaf;kfunc_a 1\n"
		       "beta;b_root;b_mid;b_leaf;kfunc_a;kfunc_b 1\n");
	/* perf keeps the two leaf-most entries (markers do not count) */
	char *two = fold_text(&c, kallsyms, 2);
	CHECK_STR(two, "alpha 1\n"
		       "alpha;a_mid;a_leaf 6\n"
		       "alpha;kfunc_a;kfunc_b 1\n"
		       "beta;[unknown];[unknown] 1\n"
		       "beta;b_leaf;[unknown] 1\n"
		       "beta;b_leaf;kfunc_a 1\n"
		       "beta;b_mid;b_leaf 2\n"
		       "beta;kfunc_a;kfunc_b 1\n");
	free(all);
	free(two);
	free(c.b);
	unlink(kallsyms);
	unlink(jit_a);
	unlink(jit_b);
}

/* ---- the kernel's symbols read late ------------------------------------------------ */

/* A corpus file, decompressed by magic as scorch reads its inputs
 * (base/input.h), NUL-terminated; NULL when it cannot be read or is still
 * compressed (a build without liblzma). */
static char *corpus_read(const char *path, size_t *len)
{
	struct input in;
	if (input_load(&in, path) < 0)
		return NULL;
	char *b = NULL;
	if (!input_compressed(in.data, in.len) && (b = malloc(in.len + 1))) {
		memcpy(b, in.data, in.len);
		b[in.len] = 0;
		*len = in.len;
	}
	input_release(&in);
	return b;
}

/* A real capture with kernel frames (tests/data/corpus/c-kernel.data) and
 * the kallsyms of its machine, and the path (/tmp, named by tag and this
 * process) a test writes that kallsyms to. Returns false (freeing what
 * was read) when either is missing. */
static bool kernel_fixture(const char *tag, char kallsyms[64], char **ktext, char **data, size_t *len)
{
	size_t klen;
	snprintf(kallsyms, 64, "/tmp/scorch-unit-%s-%d.kallsyms", tag, (int)getpid());
	*ktext = corpus_read("tests/data/corpus/workloads/kallsyms-6ecd6ec2.xz", &klen);
	*data = corpus_read("tests/data/corpus/c-kernel.data.xz", len);
	if (*ktext && *data)
		return true;
	free(*ktext);
	free(*data);
	return false;
}

/* report's folded text and speedscope file of a capture, kernel frames
 * folded as `test` says (fold_testing.h). */
static void fold_late(const char *data, size_t len, const char *kallsyms, enum kernel_test test,
		      char **folded, char **speedscope, uint64_t *held)
{
	struct report_opts o = { .quiet = true, .threads = 1 };
	struct fold_testing t = { .kernel = test };
	o.sym.kallsyms = kallsyms;
	o.sym.debug_home = "/nonexistent/scorch-unit";
	struct profile p;
	profile_init(&p);
	struct report_stats st = { 0 };
	*folded = *speedscope = NULL;
	if (report_fold_testing("c-kernel.data", data, len, &o, &t, &p, &st) == 0) {
		size_t n;
		struct out *out = out_open_mem();
		folded_write(&p, out);
		*folded = out_mem_detach(out, &n);
		out = out_open_mem();
		speedscope_write(out, &p, NULL);
		*speedscope = out_mem_detach(out, &n);
	}
	*held = st.held_for_kernel;
	profile_release(&p);
}

/* kallsyms text with every address moved by delta (a kernel relocated
 * since the capture: report then places its symbols by the capture's
 * kernel MMAP record, which the late fold must apply first too). */
static char *kallsyms_moved(const char *text, uint64_t delta)
{
	struct out *out = out_open_mem();
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		end = end ? end + 1 : line + strlen(line);
		char *rest;
		unsigned long long addr = strtoull(line, &rest, 16);
		out_printf(out, "%016llx%.*s", addr + delta, (int)(end - rest), rest);
		line = end;
	}
	size_t n;
	return out_mem_detach(out, &n);
}

/* At -j1 the replay starts before the thread reading the kernel's symbols
 * is done: samples whose kernel frames are their leaf end wait for them
 * (fold.c, kernel_catch_up), and so do the kernel MMAP records. Folding
 * them late must give the files of folding them at once, on a real
 * capture (tests/data/corpus) with the kallsyms of its machine, as it was
 * and relocated. */
TEST(report_fold_kernel_symbols_read_late_fold_the_same)
{
	char kallsyms[64], *ktext, *data;
	size_t len;
	REQUIRE(kernel_fixture("late", kallsyms, &ktext, &data, &len));
	for (int moved = 0; moved < 2; moved++) {
		char *text = moved ? kallsyms_moved(ktext, 0x3000000) : ktext;
		REQUIRE(unit_write_file(kallsyms, text) == 0);
		if (moved)
			free(text);
		char *folded_now, *ss_now, *folded_late, *ss_late;
		uint64_t held_now, held_late;
		fold_late(data, len, kallsyms, KERNEL_TEST_AT_ONCE, &folded_now, &ss_now, &held_now);
		fold_late(data, len, kallsyms, KERNEL_TEST_LATE, &folded_late, &ss_late, &held_late);
		unlink(kallsyms); /* read: nothing is left in /tmp if a REQUIRE returns */
		REQUIRE(folded_now && folded_late);
		CHECK_EQ_U64(held_now, 0);
		CHECK(held_late > 10000); /* of its 24,440 samples: those with kernel frames */
		CHECK(strstr(folded_now, ";entry_SYSCALL_64_after_hwframe;") != NULL); /* kernel names */
		CHECK_STR(folded_late, folded_now);
		CHECK_STR(ss_late, ss_now);
		free(folded_now);
		free(folded_late);
		free(ss_now);
		free(ss_late);
	}
	free(ktext);
	free(data);
}

/* report's profile of a capture at -j1, its trie pushes where `where`
 * says (fold_testing.h), kernel symbols late. */
static bool fold_pushes_way(const char *data, size_t len, const char *kallsyms, enum pushes_test where,
			    struct profile *p, uint64_t *held, bool *threaded)
{
	struct report_opts o = { .quiet = true, .threads = 1 };
	struct fold_testing t = { .kernel = KERNEL_TEST_LATE, .pushes = where };
	o.sym.kallsyms = kallsyms;
	o.sym.debug_home = "/nonexistent/scorch-unit";
	profile_init(p);
	struct report_stats st = { 0 };
	bool ok = report_fold_testing("c-kernel.data", data, len, &o, &t, p, &st) == 0;
	*held = st.held_for_kernel;
	*threaded = st.pushes_threaded;
	return ok;
}

/* At -j1 with two CPUs the trie's pushes and counts may go to a thread of
 * their own (perfdata/fold_pushes.c), held samples included: the profile
 * must be the one made on one thread, node for node in the same order
 * (names, parents, counts), on a real capture; here the thread takes them
 * from the first sample. */
TEST(report_fold_pushes_on_a_thread_make_the_same_nodes)
{
	char kallsyms[64], *ktext, *data;
	size_t len;
	REQUIRE(kernel_fixture("pushes", kallsyms, &ktext, &data, &len));
	REQUIRE(unit_write_file(kallsyms, ktext) == 0);
	struct profile here, there;
	uint64_t held_here, held_there;
	bool threaded_here, threaded_there;
	bool ok_here = fold_pushes_way(data, len, kallsyms, PUSHES_TEST_HERE, &here, &held_here, &threaded_here);
	bool ok_there =
		fold_pushes_way(data, len, kallsyms, PUSHES_TEST_THREAD, &there, &held_there, &threaded_there);
	unlink(kallsyms);
	CHECK(ok_here && ok_there);
	CHECK(!threaded_here);
	CHECK(threaded_there);
	CHECK(held_there > 10000); /* held samples went through the thread too */
	CHECK_EQ_U64(held_here, held_there);
	CHECK(here.nr > 1000);
	CHECK_EQ_U64(here.nr, there.nr);
	uint32_t differ = 0;
	for (node_t i = 1; i < here.nr && i < there.nr; i++) {
		const struct node *a = &here.nodes[i], *b = &there.nodes[i];
		differ += a->parent != b->parent || profile_self(&here, i, 0) != profile_self(&there, i, 0) ||
			  strcmp(profile_name(&here, i), profile_name(&there, i)) != 0;
	}
	CHECK_EQ_U64(differ, 0);
	CHECK(profile_total(&here, 0) > 0 && profile_total(&here, 0) == profile_total(&there, 0));
	profile_release(&here);
	profile_release(&there);
	free(ktext);
	free(data);
}

/* Send n chains pushing k symbols each (fresh names below one process
 * name, nothing kept for the next chain). */
static void send_chains(struct fold_pushes *q, struct profile *p, uint32_t n, uint32_t k)
{
	sym_t pname = profile_sym(p, "proc", 4);
	uint32_t syms[4], runs[4][2];
	for (uint32_t i = 0; i < k; i++) {
		char name[16];
		int len = snprintf(name, sizeof(name), "f%u", i);
		syms[i] = profile_sym(p, name, (size_t)len);
		runs[i][0] = i;
		runs[i][1] = 1;
	}
	for (uint32_t c = 0; c < n; c++)
		fold_pushes_chain(q, PUSHES_NO_CPU, pname, PUSHES_NO_MEMO, 0, (const uint32_t(*)[2])runs, k, syms,
				  false, 1);
}

/* PUSHES_MAY_THREAD: the pushes move to a thread at the end of a window of
 * 8192 chains when the chains so far pushed a symbol each or more (churn),
 * and stay on the sender's thread when they push fewer (long-lived
 * threads, whose chains share most nodes with their last); the counts
 * arrive either way. */
TEST(fold_pushes_go_to_a_thread_when_chains_push_enough)
{
	for (uint32_t k = 0; k < 3; k += 2) {
		struct profile p;
		profile_init(&p);
		struct fold_pushes *q = fold_pushes_new(&p, PUSHES_MAY_THREAD);
		send_chains(q, &p, 8191, k);
		CHECK(!fold_pushes_threaded(q));
		send_chains(q, &p, 1, k);
		CHECK_EQ_U64(fold_pushes_threaded(q), k >= 1);
		send_chains(q, &p, 3 * 8192, k);
		CHECK_EQ_U64(fold_pushes_threaded(q), k >= 1);
		fold_pushes_sync(q);
		CHECK_EQ_U64((uint64_t)profile_total(&p, 0), 4 * 8192);
		CHECK_EQ_U64(p.nr, 2 + k); /* root, proc, f0..f(k-1) */
		fold_pushes_free(q);
		profile_release(&p);
	}
}

/* A chain whose message would take more than half the ring (a frame of
 * thousands of "->" parts can make one) is applied by the sender after
 * the ring drains, in its place among the others: on a thread, the
 * counts and nodes are those of applying everything as sent. */
TEST(fold_pushes_apply_a_chain_larger_than_the_ring_in_order)
{
	enum { BIG = 200000 }; /* symbols: more than half of the ring's 256K words */
	uint32_t *syms = malloc(BIG * sizeof(*syms));
	uint32_t(*runs)[2] = malloc(BIG * sizeof(*runs));
	REQUIRE(syms && runs);
	struct profile p[2];
	for (int threaded = 0; threaded < 2; threaded++) {
		profile_init(&p[threaded]);
		struct fold_pushes *q = fold_pushes_new(&p[threaded], threaded ? PUSHES_ON_A_THREAD : PUSHES_HERE);
		sym_t pname = profile_sym(&p[threaded], "proc", 4);
		for (uint32_t i = 0; i < BIG; i++) {
			char name[16];
			int len = snprintf(name, sizeof(name), "s%u", i % 1000);
			syms[i] = profile_sym(&p[threaded], name, (size_t)len);
		}
		for (int round = 0; round < 3; round++) {
			/* small chains, one big chain of one run, small chains */
			uint32_t one[1][2] = { { 0, 3 } };
			fold_pushes_chain(q, PUSHES_NO_CPU, pname, 7, 0, (const uint32_t(*)[2])one, 1, syms, false, 1);
			uint32_t big[1][2] = { { 0, BIG } };
			fold_pushes_chain(q, PUSHES_NO_CPU, pname, 7, 0, (const uint32_t(*)[2])big, 1, syms, false, 2);
			for (uint32_t i = 0; i < 1000; i++) {
				runs[i][0] = i;
				runs[i][1] = 1;
			}
			fold_pushes_chain(q, PUSHES_NO_CPU, pname, 7, 1, (const uint32_t(*)[2])runs, 1000, syms,
					  false, 3);
		}
		CHECK_EQ_U64(fold_pushes_threaded(q), threaded);
		fold_pushes_free(q);
	}
	CHECK_EQ_U64(p[0].nr, p[1].nr);
	CHECK(p[1].nr > BIG);
	CHECK_EQ_U64((uint64_t)profile_total(&p[1], 0), 3 * (1 + 2 + 3));
	uint32_t differ = 0;
	for (node_t i = 1; i < p[0].nr && i < p[1].nr; i++)
		differ += p[0].nodes[i].parent != p[1].nodes[i].parent || p[0].nodes[i].name != p[1].nodes[i].name ||
			  profile_self(&p[0], i, 0) != profile_self(&p[1], i, 0);
	CHECK_EQ_U64(differ, 0);
	profile_release(&p[0]);
	profile_release(&p[1]);
	free(syms);
	free(runs);
}
