/* record --off-cpu on the perf backend, fed with crafted ring records:
 * sched_switch samples (raw fields at this kernel's offsets) start blocks,
 * context-switch records end them; states, the idle task, lost switch-ins,
 * threads still blocked at the end, --min-block/--max-block and --wall's
 * on-CPU samples. Nothing of the machine is read (/proc is replaced). */
#include "harness.h"
#include "perf_records.h"

#include "base/out.h"
#include "profile/folded.h"
#include "record/perf_offcpu.h"
#include "record/record.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

/* The layout of sched_switch on Linux 6.x (events/sched/sched_switch/format). */
static const struct offcpu_format fmt = { .id = 372, .prev_pid = 24, .prev_state = 32, .prev_state_size = 8,
					  .next_pid = 56, .min_size = 60 };

#define SAMPLE_TYPE                                                                              \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
	 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)
#define MS 1000000ull
#define USER ((uint64_t)PERF_CONTEXT_USER)

static void comm(struct buf *b, uint32_t pid, const char *name)
{
	size_t at = begin(b, PERF_RECORD_COMM, 0);
	u32(b, pid);
	u32(b, pid);
	put(b, name, strlen(name) + 1);
	u64(b, (uint64_t)pid << 32 | pid), u64(b, 0), u64(b, 0); /* trailer: tid time cpu */
	end(b, at);
}

/* A sample of tid at time: sched_switch with prev = tid in state, or
 * (state < 0) a cpu-clock sample, whose raw data is 4 empty bytes. */
static void sample(struct buf *b, uint32_t tid, uint64_t time, long state, uint64_t pc)
{
	size_t at = begin(b, PERF_RECORD_SAMPLE, 0);
	u64(b, pc);
	u32(b, tid), u32(b, tid);
	u64(b, time);
	u32(b, 0), u32(b, 0); /* cpu */
	u64(b, 1);            /* period */
	u64(b, 2), u64(b, USER), u64(b, pc);
	if (state < 0) {
		u32(b, 4), u32(b, 0);
	} else {
		unsigned char raw[68] = { 0 };
		uint16_t id = (uint16_t)fmt.id;
		uint32_t pid = tid;
		uint64_t st = (uint64_t)state;
		memcpy(raw, &id, 2);
		memcpy(raw + fmt.prev_pid, &pid, 4);
		memcpy(raw + fmt.prev_state, &st, 8);
		u32(b, sizeof(raw));
		put(b, raw, sizeof(raw));
	}
	end(b, at);
}

/* A context-switch record: tid switched in (or out) at time. */
static void switch_rec(struct buf *b, uint32_t tid, uint64_t time, bool out)
{
	size_t at = begin(b, PERF_RECORD_SWITCH, out ? PERF_RECORD_MISC_SWITCH_OUT : 0);
	u32(b, tid), u32(b, tid);
	u64(b, time);
	u32(b, 0), u32(b, 0);
	end(b, at);
}

static char *run(struct buf *b, const struct record_opts *opts, struct offcpu_counts *counts)
{
	struct recorder *r = recorder_new(opts, "/nonexistent-proc");
	struct perf_parser ps = { .r = r, .sample_type = SAMPLE_TYPE };
	ps.offcpu = offcpu_new(opts, r, &fmt);
	perf_parse_records(&ps, b->b, b->n);
	offcpu_finish(ps.offcpu, 10 * MS, counts);
	offcpu_free(ps.offcpu);
	perf_parser_release(&ps);
	return recorder_folded_text(r);
}

static void session(struct buf *b)
{
	comm(b, 10, "sleeper");
	comm(b, 11, "preempted");
	comm(b, 12, "lossy");
	comm(b, 13, "open");
	comm(b, 14, "disk");
	/* 4 ms asleep (S), then back. */
	sample(b, 10, 1 * MS, 0x1, 0x1000);
	switch_rec(b, 10, 1 * MS, true);
	/* Preempted (R+), then yielded (R): runnable, never off-CPU. */
	sample(b, 11, 1 * MS, 0x100, 0x1000);
	switch_rec(b, 11, 4 * MS, false);
	sample(b, 11, 5 * MS, 0x0, 0x1000);
	switch_rec(b, 11, 8 * MS, false);
	/* The idle task switching out is never counted. */
	sample(b, 0, 1 * MS, 0x1, 0x1000);
	/* Asleep at 2 ms, but its switch-in was lost: switched out again at
	 * 3 ms (that block dropped), back at 4 ms (1 ms counted). */
	sample(b, 12, 2 * MS, 0x1, 0x2000);
	sample(b, 12, 3 * MS, 0x1, 0x2000);
	switch_rec(b, 12, 4 * MS, false);
	/* 2.5 ms in D. */
	sample(b, 14, 4 * MS, 0x2, 0x3000);
	switch_rec(b, 14, 6 * MS + MS / 2, false);
	switch_rec(b, 10, 5 * MS, false);
	/* Asleep at 6 ms and still when sampling ends at 10 ms: 4 ms. */
	sample(b, 13, 6 * MS, 0x1, 0x1000);
	/* Dying (X) is not off-CPU either. */
	sample(b, 10, 7 * MS, 0x10, 0x1000);
}

TEST(offcpu_blocks_per_stack_in_us)
{
	struct buf b = { .n = 0 };
	struct record_opts opts = { .freq = 99, .off_cpu = true, .off_cpu_states = RECORD_OFFCPU_STATES_ALL };
	struct offcpu_counts c;
	session(&b);
	char *s = run(&b, &opts, &c);
	CHECK_STR(s, "disk;[unknown] 2500\n"
		     "lossy;[unknown] 1000\n"
		     "open;[unknown] 4000\n"
		     "sleeper;[unknown] 4000\n");
	CHECK_EQ_U64(c.lost_end, 1);
	CHECK_EQ_U64(c.open, 1);
	CHECK_EQ_U64(c.filtered, 0);
	free(s);
}

TEST(offcpu_state_and_block_filters)
{
	struct buf b = { .n = 0 };
	struct record_opts opts = { .freq = 99, .off_cpu = true, .off_cpu_states = RECORD_OFFCPU_SLEEPING,
				    .min_block_us = 1500, .max_block_us = 3999 };
	struct offcpu_counts c;
	session(&b);
	char *s = run(&b, &opts, &c);
	/* D left out by --state S; 1 ms under --min-block; 4 ms over
	 * --max-block (the open block too: it ends at the end). */
	CHECK_STR(s, "");
	CHECK_EQ_U64(c.filtered, 4);
	free(s);
	opts.off_cpu_states = RECORD_OFFCPU_UNINTERRUPTIBLE;
	opts.min_block_us = opts.max_block_us = 0;
	b.n = 0;
	session(&b);
	s = run(&b, &opts, &c);
	CHECK_STR(s, "disk;[unknown] 2500\n");
	free(s);
}

TEST(offcpu_wall_marks_on_and_off_cpu)
{
	struct buf b = { .n = 0 };
	struct record_opts opts = { .freq = 1000, .off_cpu = true, .wall = true,
				    .off_cpu_states = RECORD_OFFCPU_STATES_ALL };
	struct offcpu_counts c;
	comm(&b, 10, "w");
	sample(&b, 10, 1 * MS, -1, 0x1000); /* cpu-clock: 1/1000 s */
	sample(&b, 10, 2 * MS, -1, 0x1000);
	sample(&b, 0, 2 * MS, -1, 0x1000);  /* idle: not counted */
	sample(&b, 10, 3 * MS, 0x1, 0x1000);
	switch_rec(&b, 10, 6 * MS, false);
	char *s = run(&b, &opts, &c);
	CHECK_STR(s, "w;[unknown];[off-cpu] 3000\n"
		     "w;[unknown];[on-cpu] 2000\n");
	free(s);
}

/* --wall: switched out runnable (preempted R+, yielded R) until the next
 * switch-in is a third kind, whatever --state; D still follows --state. */
TEST(offcpu_wall_counts_runnable)
{
	struct buf b = { .n = 0 };
	struct record_opts opts = { .freq = 1000, .off_cpu = true, .wall = true,
				    .off_cpu_states = RECORD_OFFCPU_SLEEPING };
	struct offcpu_counts c;
	comm(&b, 10, "w");
	sample(&b, 10, 1 * MS, -1, 0x1000);
	sample(&b, 10, 2 * MS, 0x100, 0x1000); /* preempted: 2 ms */
	switch_rec(&b, 10, 4 * MS, false);
	sample(&b, 10, 5 * MS, 0x0, 0x1000);   /* yielded: 1 ms */
	switch_rec(&b, 10, 6 * MS, false);
	sample(&b, 10, 7 * MS, 0x2, 0x1000);   /* D: not with --state S */
	switch_rec(&b, 10, 9 * MS, false);
	char *s = run(&b, &opts, &c);
	CHECK_STR(s, "w;[unknown];[on-cpu] 1000\n"
		     "w;[unknown];[runnable] 3000\n");
	CHECK_EQ_U64(c.filtered, 1);
	free(s);
	/* Plain --off-cpu: runnable switch-outs count nothing. */
	opts.wall = false;
	opts.off_cpu_states = RECORD_OFFCPU_STATES_ALL;
	b.n = 0;
	comm(&b, 10, "w");
	sample(&b, 10, 2 * MS, 0x100, 0x1000);
	switch_rec(&b, 10, 4 * MS, false);
	sample(&b, 10, 5 * MS, 0x0, 0x1000);
	switch_rec(&b, 10, 6 * MS, false);
	sample(&b, 10, 7 * MS, 0x1, 0x1000);
	switch_rec(&b, 10, 8 * MS, false);
	s = run(&b, &opts, &c);
	CHECK_STR(s, "w;[unknown] 1000\n");
	free(s);
}
