/* replay_sort_by_time: perf's delivery order (time, then file order),
 * against a comparison sort, for nearly ordered and shuffled inputs. */
#include "harness.h"
#include "perfdata/replay.h"

#include <stdlib.h>

static int by_time_then_seq(const void *pa, const void *pb)
{
	const struct replay_entry *a = pa, *b = pb;
	if (a->time != b->time)
		return (a->time > b->time) - (a->time < b->time);
	return (a->where > b->where) - (a->where < b->where);
}

/* n records with many equal times, as `cpus` buffers each in time order
 * written in turn, a chunk of each per round (cpus 1: in order); then
 * `swaps` pairs exchanged, `untimed` without a time. */
static void check_order(struct unit_test *t_, size_t n, unsigned cpus, size_t swaps, size_t untimed,
			unsigned seed)
{
	struct replay_entry *e = calloc(n, sizeof(*e)), *want = calloc(n, sizeof(*want));
	uint64_t time[8] = { 0 };
	for (size_t i = 0; i < n;) {
		for (unsigned c = 0; c < cpus && i < n; c++) {
			seed = seed * 1103515245u + 12345u;
			size_t chunk = 1 + (seed >> 16) % 60;
			for (size_t k = 0; k < chunk && i < n; k++, i++) {
				seed = seed * 1103515245u + 12345u;
				time[c] += (seed >> 16) % 3;
				e[i].time = 1000 + time[c];
			}
		}
	}
	for (size_t k = 0; k < swaps; k++) {
		seed = seed * 1103515245u + 12345u;
		size_t a = (seed >> 8) % n;
		seed = seed * 1103515245u + 12345u;
		size_t b = (seed >> 8) % n;
		uint64_t tt = e[a].time;
		e[a].time = e[b].time;
		e[b].time = tt;
	}
	for (size_t k = 0; k < untimed; k++) {
		seed = seed * 1103515245u + 12345u;
		e[(seed >> 8) % n].time = UINT64_MAX;
	}
	/* expected: untimed records take the time before them, then a
	 * stable sort; out of order: records earlier than the one before */
	uint64_t last = 0, disorder = 0;
	for (size_t i = 0; i < n; i++) {
		e[i].where = (uint64_t)i << 4 | (i & 1); /* in file order here */
		want[i] = e[i];
		if (want[i].time == UINT64_MAX)
			want[i].time = last;
		if (i && want[i].time < want[i - 1].time)
			disorder++;
		last = want[i].time;
	}
	qsort(want, n, sizeof(*want), by_time_then_seq);
	struct replay r = { .ents = e, .nr = n, .alloc = n };
	CHECK_EQ_U64(replay_sort_by_time(&r), disorder);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += e[i].time != want[i].time || e[i].where != want[i].where;
	CHECK_EQ_U64(bad, 0);
	free(e);
	free(want);
}

TEST(replay_sort_by_time_as_a_stable_sort)
{
	check_order(t_, 1, 1, 0, 0, 1);
	check_order(t_, 1000, 1, 0, 0, 2);      /* already in order */
	check_order(t_, 1000, 1, 0, 30, 3);     /* untimed records only */
	check_order(t_, 20000, 2, 0, 0, 4);     /* interleaved buffers: runs merged */
	check_order(t_, 20000, 4, 0, 40, 5);
	check_order(t_, 20000, 1, 5, 0, 6);     /* far moves: radix after some merges */
	check_order(t_, 20000, 2, 3, 0, 7);
	check_order(t_, 20000, 1, 20000, 9, 8); /* shuffled */
	for (unsigned s = 10; s < 80; s++)
		check_order(t_, 50 + s * 37, 1 + s % 5, s % 4 == 0 ? s % 7 : 0, s % 3, s);
}
