/* record's runtime table (record/runtime.h) with a runtime made for the
 * test: detection when a process is first met, tokens per sample that
 * make stacks distinct, the merge at naming time, exit at the process's
 * EXIT record (not a thread's) or at the end, the summary lines. */
#include "harness.h"
#include "perf_records.h"

#include "record/recorder.h"
#include "record/runtime.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the test runtime saw. */
struct seen {
	int opened, detects, owned, exits, closed;
	uint32_t exited_pid;
};
static struct seen seen;

static void *fake_open(const struct record_opts *opts)
{
	(void)opts;
	seen.opened++;
	return &seen;
}

/* Owns pid 42 only; its state is the pid, allocated. */
static void *fake_detect(void *run, const struct runtime_process *proc)
{
	(void)run;
	seen.detects++;
	if (proc->pid != 42)
		return NULL;
	seen.owned++;
	uint32_t *state = malloc(sizeof(*state));
	*state = proc->pid;
	return state;
}

/* One token: the sample's time, odd or even. */
static uint32_t fake_sample(void *run, void *proc, const struct runtime_sample *smp, uint64_t *tokens,
			    uint32_t cap)
{
	(void)run;
	if (*(uint32_t *)proc != smp->pid || !cap)
		return 0;
	tokens[0] = smp->time % 2;
	return 1;
}

static void fake_exit(void *run, void *proc, uint32_t pid)
{
	(void)run;
	seen.exits++;
	seen.exited_pid = pid;
	free(proc);
}

/* The native frames but the leaf, then the runtime's frame. */
static void fake_merge(void *run, const struct runtime_stack *st, void (*emit)(void *, const char *, size_t),
		       void *arg)
{
	(void)run;
	for (uint32_t i = 0; i + 1 < st->nr_native; i++)
		emit(arg, st->native[i], strlen(st->native[i]));
	char name[32];
	int n = snprintf(name, sizeof(name), "py:%s", st->nr_tokens && st->tokens[0] ? "odd" : "even");
	emit(arg, name, (size_t)n);
}

static void fake_summary(void *run, char *buf, size_t cap)
{
	(void)run;
	snprintf(buf, cap, "fake: %d process%s", seen.owned, seen.owned == 1 ? "" : "es");
}

static void fake_close(void *run)
{
	(void)run;
	seen.closed++;
}

static const struct record_runtime fake = {
	.name = "fake", .open = fake_open, .detect = fake_detect, .sample = fake_sample, .exit = fake_exit,
	.merge = fake_merge, .summary = fake_summary, .close = fake_close,
};
static const struct record_runtime *const fake_table[] = { &fake };

static void rec_comm(struct buf *b, uint32_t pid, const char *name)
{
	size_t at = begin(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	u32(b, pid), u32(b, pid);
	put(b, name, strlen(name) + 1);
	end(b, at);
}

static void rec_mmap2(struct buf *b, uint32_t pid, const char *path)
{
	size_t at = begin(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	u32(b, pid), u32(b, pid);
	u64(b, 0x400000), u64(b, 0x1000), u64(b, 0);
	u32(b, 8), u32(b, 1), u64(b, 1234), u64(b, 0);
	u32(b, 5), u32(b, 2);
	put(b, path, strlen(path) + 1);
	end(b, at);
}

static void rec_sample(struct buf *b, uint32_t pid, uint64_t time)
{
	size_t at = begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	u64(b, 0);
	u32(b, pid), u32(b, pid);
	u64(b, time);
	u32(b, 0), u32(b, 0);
	u64(b, 1); /* period */
	u64(b, 3), u64(b, (uint64_t)PERF_CONTEXT_USER), u64(b, 0x400010), u64(b, 0x400020);
	end(b, at);
}

static void rec_exit(struct buf *b, uint32_t pid, uint32_t tid)
{
	size_t at = begin(b, PERF_RECORD_EXIT, 0);
	u32(b, pid), u32(b, 1), u32(b, tid), u32(b, 1);
	u64(b, 1);
	end(b, at);
}

TEST(runtime_tokens_and_merge_name_a_stack)
{
	memset(&seen, 0, sizeof(seen));
	struct buf b = { .n = 0 };
	rec_comm(&b, 42, "fakepy");
	rec_mmap2(&b, 42, "/nonexistent/bin/fakepy");
	rec_comm(&b, 43, "other");
	rec_mmap2(&b, 43, "/nonexistent/bin/other");
	rec_sample(&b, 42, 1000);
	rec_sample(&b, 42, 1001);
	rec_sample(&b, 42, 1002);
	rec_sample(&b, 43, 1003);
	rec_exit(&b, 42, 44); /* a thread of 42: not the process's exit */
	CHECK_EQ_U64(b.n < sizeof(b.b), 1);

	struct record_opts opts = { .freq = 99 };
	struct recorder *r = recorder_new(&opts, "/nonexistent-proc");
	recorder_use_runtimes(r, fake_table, 1);
	struct perf_parser ps = { .r = r };
	perf_parse_records(&ps, b.b, b.n);
	CHECK_EQ_U64(seen.opened, 1);
	CHECK_EQ_U64(seen.detects, 2); /* 42 and 43, once each */
	CHECK_EQ_U64(seen.exits, 0);
	struct buf e = { .n = 0 };
	rec_exit(&e, 42, 42);
	perf_parse_records(&ps, e.b, e.n);
	perf_parser_release(&ps);
	CHECK_EQ_U64(seen.exits, 1);
	CHECK_EQ_U64(seen.exited_pid, 42);
	char *s = recorder_folded_text(r); /* frees r */
	CHECK_STR(s, "fakepy;[unknown];[fakepy];py:even 2\n"
		     "fakepy;[unknown];[fakepy];py:odd 1\n"
		     "other;[unknown];[other];[other] 1\n");
	CHECK_EQ_U64(seen.exits, 1);
	CHECK_EQ_U64(seen.closed, 1);
	free(s);
}

/* A runtime that adds frames: the native ones, then three of its own. */
static void tall_merge(void *run, const struct runtime_stack *st, void (*emit)(void *, const char *, size_t),
		       void *arg)
{
	(void)run;
	for (uint32_t i = 0; i < st->nr_native; i++)
		emit(arg, st->native[i], strlen(st->native[i]));
	emit(arg, "py:a", 4);
	emit(arg, "py:b", 4);
	emit(arg, "py:c", 4);
}

static const struct record_runtime tall = {
	.name = "tall", .open = fake_open, .detect = fake_detect, .sample = fake_sample, .exit = fake_exit,
	.merge = tall_merge, .close = fake_close,
};
static const struct record_runtime *const tall_table[] = { &tall };

/* --max-stack counts the frames as drawn, after the runtime's merge: two
 * native addresses become five frames, cut to the N leaf-most with one
 * marker; a stack of N frames (process 43's two) is whole. */
static char *tall_folded(unsigned max_stack)
{
	memset(&seen, 0, sizeof(seen));
	struct buf b = { .n = 0 };
	rec_comm(&b, 42, "fakepy");
	rec_mmap2(&b, 42, "/nonexistent/bin/fakepy");
	rec_comm(&b, 43, "other");
	rec_mmap2(&b, 43, "/nonexistent/bin/other");
	rec_sample(&b, 42, 1000);
	rec_sample(&b, 42, 1001);
	rec_sample(&b, 43, 1003);
	struct record_opts opts = { .freq = 99, .max_stack = max_stack };
	struct recorder *r = recorder_new(&opts, "/nonexistent-proc");
	recorder_use_runtimes(r, tall_table, 1);
	struct perf_parser ps = { .r = r };
	perf_parse_records(&ps, b.b, b.n);
	perf_parser_release(&ps);
	return recorder_folded_text(r); /* frees r (opts is only read while it lives) */
}

TEST(runtime_merged_frames_count_toward_max_stack)
{
	char *s = tall_folded(2);
	CHECK_STR(s, "fakepy;[truncated];py:b;py:c 2\n"
		     "other;[unknown];[other];[other] 1\n");
	free(s);
	s = tall_folded(4);
	CHECK_STR(s, "fakepy;[truncated];[fakepy];py:a;py:b;py:c 2\n"
		     "other;[unknown];[other];[other] 1\n");
	free(s);
	s = tall_folded(0);
	CHECK_STR(s, "fakepy;[unknown];[fakepy];[fakepy];py:a;py:b;py:c 2\n"
		     "other;[unknown];[other];[other] 1\n");
	free(s);
}

TEST(runtime_set_exec_end_and_summary)
{
	memset(&seen, 0, sizeof(seen));
	struct record_opts opts = { .freq = 99 };
	struct runtime_set *set = runtime_set_open(&opts, fake_table, 1);
	REQUIRE(set != NULL);
	struct runtime_process p42 = { 42, "/proc", NULL }, p7 = { 7, "/proc", NULL };
	runtime_set_meet(set, &p42, false);
	runtime_set_meet(set, &p42, false);
	runtime_set_meet(set, &p7, false);
	CHECK_EQ_U64(seen.detects, 2);
	CHECK_EQ_U64(runtime_set_owner(set, 42), 1);
	CHECK_EQ_U64(runtime_set_owner(set, 7), 0);
	runtime_set_meet(set, &p42, true); /* exec: the old state goes, detect again */
	CHECK_EQ_U64(seen.exits, 1);
	CHECK_EQ_U64(seen.detects, 3);
	runtime_set_end(set);
	CHECK_EQ_U64(seen.exits, 2);
	CHECK_EQ_U64(runtime_set_owner(set, 42), 0);
	char line[64];
	runtime_set_summary(set, line, sizeof(line));
	CHECK_STR(line, "fake: 2 processes\n");
	runtime_set_close(set);
	CHECK_EQ_U64(seen.exits, 2);
	CHECK_EQ_U64(seen.closed, 1);
	/* An empty table: no set, and every call takes NULL. (runtimes.c's
	 * own table is not empty: it has the JIT runtimes.) */
	CHECK(runtime_set_open(&opts, fake_table, 0) == NULL);
	runtime_set_meet(NULL, &p42, false);
	runtime_set_summary(NULL, line, sizeof(line));
	CHECK_STR(line, "");
	runtime_set_close(NULL);
}
