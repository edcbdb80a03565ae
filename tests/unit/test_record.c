/* record's collector fed with perf ring-buffer records: process names from
 * COMM (and inherited on FORK), maps from MMAP2 (inherited on FORK, dropped
 * on exec), callchains split at the context markers, aggregation, lost
 * counts. Files that do not exist keep symbol lookup out of it: their
 * frames are named [basename], as stackcollapse-perf names them. */
#include "harness.h"
#include "perf_records.h"

#include "base/out.h"
#include "profile/folded.h"
#include "record/record.h"
#include "record/recorder.h"
#include "record/symbols.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

static void comm(struct buf *b, uint32_t pid, uint32_t tid, const char *name, bool exec)
{
	size_t at = begin(b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	u32(b, pid);
	u32(b, tid);
	put(b, name, strlen(name) + 1);
	end(b, at);
}

static void mmap2(struct buf *b, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff, const char *path)
{
	size_t at = begin(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	u32(b, pid);
	u32(b, pid);
	u64(b, addr);
	u64(b, len);
	u64(b, pgoff);
	u32(b, 8), u32(b, 1), u64(b, 1234), u64(b, 0); /* maj min ino ino_generation */
	u32(b, 5), u32(b, 2);                           /* prot flags */
	put(b, path, strlen(path) + 1);
	end(b, at);
}

static void sample(struct buf *b, uint32_t pid, uint32_t tid, uint32_t cpu, const uint64_t *chain, int n)
{
	size_t at = begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(b, 0);          /* ip */
	u32(b, pid);
	u32(b, tid);
	u64(b, 1000 + b->n); /* time */
	u32(b, cpu);
	u32(b, 0);
	u64(b, 10101010);   /* period */
	u64(b, (uint64_t)n);
	for (int i = 0; i < n; i++)
		u64(b, chain[i]);
	end(b, at);
}

static void fork_rec(struct buf *b, uint32_t pid, uint32_t ppid)
{
	size_t at = begin(b, PERF_RECORD_FORK, 0);
	u32(b, pid), u32(b, ppid), u32(b, pid), u32(b, ppid);
	u64(b, 1);
	end(b, at);
}

static void exit_rec(struct buf *b, uint32_t pid, uint32_t ppid)
{
	size_t at = begin(b, PERF_RECORD_EXIT, 0);
	u32(b, pid), u32(b, ppid), u32(b, pid), u32(b, ppid);
	u64(b, 1);
	end(b, at);
}

static void lost(struct buf *b, uint64_t n)
{
	size_t at = begin(b, PERF_RECORD_LOST, 0);
	u64(b, 1);
	u64(b, n);
	end(b, at);
}

static char *run(struct buf *b, const struct record_opts *opts, uint64_t *lost_out)
{
	struct recorder *r = recorder_new(opts, "/nonexistent-proc");
	struct perf_parser ps = { .r = r };
	perf_parse_records(&ps, b->b, b->n);
	*lost_out = ps.lost;
	perf_parser_release(&ps);
	return recorder_folded_text(r);
}

#define USER ((uint64_t)PERF_CONTEXT_USER)

static void session(struct buf *b)
{
	const uint64_t burn[] = { USER, 0x400010, 0x7f0000000100, 0x400020 };
	const uint64_t child[] = { USER, 0x400030, 0x12345 };
	const uint64_t other[] = { USER, 0x400030 };
	comm(b, 100, 100, "burn", true);
	mmap2(b, 100, 0x400000, 0x1000, 0, "/nonexistent/bin/burn");
	mmap2(b, 100, 0x7f0000000000, 0x200000, 0x1000, "/nonexistent/lib/libc.so.6");
	sample(b, 100, 100, 0, burn, 4);
	fork_rec(b, 102, 100);
	sample(b, 102, 102, 1, child, 3);
	comm(b, 102, 102, "other thing", true);
	mmap2(b, 102, 0x400000, 0x1000, 0, "/nonexistent/bin/other");
	sample(b, 102, 102, 1, other, 2);
	sample(b, 100, 100, 1, burn, 4);
	lost(b, 3);
}

TEST(record_perf_records_to_folded)
{
	struct buf b = { .n = 0 };
	struct record_opts opts = { .freq = 99 };
	uint64_t nlost;
	session(&b);
	char *s = run(&b, &opts, &nlost);
	/* No stack reaches a thread's start ([burn] is no name): each says
	 * where it broke with an [unknown] caller. */
	CHECK_STR(s, "burn;[unknown];[burn] 1\n"
		     "burn;[unknown];[burn];[libc.so.6];[burn] 2\n"
		     "other_thing;[unknown];[other] 1\n");
	CHECK_EQ_U64(nlost, 3);
	free(s);
}

/* record_run builds stacks as they come in: a stack counted again after
 * its node was made, stacks through JIT code (left for the end) and
 * kernel frames give the same profile as building everything at the end. */
static void early_session(struct buf *b)
{
	const uint64_t jit[] = { USER, 0x7e0000000040, 0x400020 };
	const uint64_t kern[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010, USER, 0x400010 };
	session(b);
	mmap2(b, 100, 0x7e0000000000, 0x10000, 0, "//anon");
	sample(b, 100, 100, 0, jit, 3);
	sample(b, 100, 100, 0, kern, 4);
	sample(b, 100, 100, 1, jit, 3);
	sample(b, 102, 102, 1, (const uint64_t[]){ USER, 0x400030 }, 2);
}

TEST(record_build_early_same_profile)
{
	struct buf b = { .n = 0 };
	struct record_opts opts = { .freq = 99 };
	uint64_t nlost;
	early_session(&b);
	char *late = run(&b, &opts, &nlost);

	struct recorder *r = recorder_new(&opts, "/nonexistent-proc");
	struct symbols *kernel = symbols_new();
	struct profile p;
	profile_init(&p);
	recorder_build_early(r, &p, kernel, NULL);
	struct perf_parser ps = { .r = r };
	perf_parse_records(&ps, b.b, b.n);
	perf_parser_release(&ps);
	recorder_build(r, &p);
	struct out *o = out_open_mem();
	folded_write(&p, o);
	size_t len;
	char *early = out_mem_detach(o, &len);
	CHECK_STR(early, late);
	CHECK(strstr(early, "other_thing;[unknown];[other] 2\n") != NULL);
	CHECK(strstr(early, "burn;[unknown];[burn];[perf-100.map] 2\n") != NULL);
	free(early);
	free(late);
	profile_release(&p);
	recorder_free(r);
	symbols_free(kernel);
}

TEST(record_per_cpu_and_tid_roots)
{
	struct buf b = { .n = 0 };
	struct record_opts opts = { .freq = 99, .per_cpu = true, .annotate_tid = true };
	uint64_t nlost;
	session(&b);
	char *s = run(&b, &opts, &nlost);
	CHECK_STR(s, "CPU 0;burn-100/100;[unknown];[burn];[libc.so.6];[burn] 1\n"
		     "CPU 1;burn-100/100;[unknown];[burn];[libc.so.6];[burn] 1\n"
		     "CPU 1;burn-102/102;[unknown];[burn] 1\n"
		     "CPU 1;other_thing-102/102;[unknown];[other] 1\n");
	free(s);
}

TEST(record_malformed_records_stop_parsing)
{
	struct buf b = { .n = 0 };
	struct record_opts opts = { .freq = 99 };
	uint64_t nlost;
	const uint64_t chain[] = { USER, 0x400010 };
	comm(&b, 7, 7, "x", false);
	sample(&b, 7, 7, 0, chain, 2);
	sample(&b, 7, 7, 0, chain, 0); /* no callchain at all: the name alone */
	/* A sample claiming more callchain entries than it holds is dropped. */
	size_t at = b.n;
	sample(&b, 7, 7, 0, chain, 2);
	memcpy(b.b + at + 8 + 40, &(uint64_t){ 1000 }, 8);
	/* A header with a size below its own: parsing stops there. */
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 4 };
	put(&b, &h, sizeof(h));
	sample(&b, 7, 7, 0, chain, 2);
	char *s = run(&b, &opts, &nlost);
	CHECK_STR(s, "x 1\nx;[unknown] 1\n");
	free(s);
}

/* Process churn: thousands of short-lived processes, each running the
 * same two files at addresses of its own (as address randomisation puts
 * them), each sampled twice, then exiting, with the collector reaped as a
 * backend reaps it (after each round of records: a process goes at the
 * second reap after its exit). Properties: their
 * samples are one stack (the same code), and what the collector holds
 * stays bounded by what is alive and the files run, not by how many
 * processes came and went. */
TEST(record_churn_state_stays_flat)
{
	enum { PROCS = 5000 };
	struct record_opts opts = { .freq = 99 };
	struct recorder *r = recorder_new(&opts, "/nonexistent-proc");
	struct buf b = { .n = 0 };
	struct recorder_held held, half = { 0 };
	uint32_t most_spaces = 0, most_mappings = 0;
	uint64_t x = 2463534242u;
	for (uint32_t i = 0; i < PROCS; i++) {
		uint32_t pid = 1000 + i % 30000;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t exe = 0x550000000000 + (x % 0x100000) * 0x1000;
		uint64_t libc = 0x7f0000000000 + ((x >> 24) % 0x100000) * 0x1000;
		b.n = 0;
		fork_rec(&b, pid, 1);
		comm(&b, pid, pid, "sort", true);
		mmap2(&b, pid, exe, 0x2000, 0, "/nonexistent/bin/sort");
		mmap2(&b, pid, libc, 0x200000, 0x1000, "/nonexistent/lib/libc.so.6");
		const uint64_t chain[] = { USER, exe + 0x10, libc + 0x100, exe + 0x20 };
		sample(&b, pid, pid, i % 2, chain, 4);
		sample(&b, pid, pid, i % 2, chain, 4);
		exit_rec(&b, pid, 1);
		struct perf_parser ps = { .r = r };
		perf_parse_records(&ps, b.b, b.n);
		perf_parser_release(&ps);
		recorder_held(r, &held);
		most_spaces = held.spaces > most_spaces ? held.spaces : most_spaces;
		most_mappings = held.mappings > most_mappings ? held.mappings : most_mappings;
		recorder_reap(r);
		if (i == PROCS / 2)
			recorder_held(r, &half);
	}
	recorder_reap(r); /* (a process is forgotten at the second reap after its exit) */
	recorder_held(r, &held);
	CHECK_EQ_U64(held.stacks, 1);
	CHECK_EQ_U64(held.images, 2);
	CHECK_EQ_U64(held.reaped, PROCS);
	CHECK(held.spaces <= 1 && held.mappings == 0 && held.threads <= 1);
	CHECK(most_spaces <= 3 && most_mappings <= 4);
	CHECK_EQ_U64(half.stacks, held.stacks);
	char *s = recorder_folded_text(r);
	CHECK_STR(s, "sort;[unknown];[sort];[libc.so.6];[sort] 10000\n");
	free(s);
}
