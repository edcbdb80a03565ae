/* replay_sort_by_time (see replay.h): perf's ordered-events queue
 * delivers records in time order, equal times in file order. */
#include "perfdata/replay.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Stable LSD radix sort on the time (bytes that never differ skipped): a
 * few linear passes whatever the disorder. */
static void radix_sort_by_time(struct replay_entry *ents, size_t nr)
{
	uint64_t all_or = 0, all_and = UINT64_MAX;
	for (size_t i = 0; i < nr; i++) {
		all_or |= ents[i].time;
		all_and &= ents[i].time;
	}
	uint64_t differ = all_or ^ all_and;
	struct replay_entry *tmp = xmalloc((nr ? nr : 1) * sizeof(*tmp));
	struct replay_entry *src = ents, *dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!(differ >> shift & 0xff))
			continue;
		size_t count[257] = { 0 };
		for (size_t i = 0; i < nr; i++)
			count[(src[i].time >> shift & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < nr; i++)
			dst[count[src[i].time >> shift & 0xff]++] = src[i];
		struct replay_entry *t = src;
		src = dst;
		dst = t;
	}
	if (src != ents)
		memcpy(ents, src, nr * sizeof(*src));
	free(tmp);
}

/* The first index in [lo, hi) whose time is above t (after_equal) or at
 * least t (!after_equal); hi when none. */
static size_t first_later(const struct replay_entry *e, size_t lo, size_t hi, uint64_t t, bool after_equal)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].time < t || (after_equal && e[mid].time == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A file is a series of runs in time order (each CPU's buffer is written
 * in order), and a run overlaps little of what precedes it. Each run is
 * merged into the sorted prefix, moving only the overlap: the prefix's
 * records later than the run's first, the run's records earlier than the
 * prefix's last. Equal times keep file order (the prefix's records come
 * first in the file). False when more than `budget` records would move;
 * ents is then a permutation in which records of equal time are still in
 * file order, so a stable sort still gives perf's order. */
static bool merge_runs(struct replay_entry *e, size_t nr, size_t budget)
{
	struct replay_entry *buf = NULL;
	size_t buf_alloc = 0, moved = 0, s = 1;
	while (s < nr && e[s].time >= e[s - 1].time)
		s++;
	while (s < nr) {
		size_t end = s + 1;
		while (end < nr && e[end].time >= e[end - 1].time)
			end++;
		/* e[s].time < e[s - 1].time: the overlap is [p, s) and [s, q) */
		size_t p = first_later(e, 0, s - 1, e[s].time, true);
		size_t q = first_later(e, s, end, e[s - 1].time, false);
		size_t na = s - p;
		moved += na + (q - s);
		if (moved > budget) {
			free(buf);
			return false;
		}
		VEC_GROW(buf, na, buf_alloc);
		memcpy(buf, e + p, na * sizeof(*buf));
		size_t i = 0, j = s, w = p;
		while (i < na && j < q)
			e[w++] = e[j].time < buf[i].time ? e[j++] : buf[i++];
		memcpy(e + w, buf + i, (na - i) * sizeof(*buf));
		s = end;
	}
	free(buf);
	return true;
}

uint64_t replay_sort_by_time(struct replay *r)
{
	struct replay_entry *ents = r->ents;
	size_t nr = r->nr;
	/* Records without a time (UINT64_MAX here) would be delivered at once:
	 * give them the time of the record before them. */
	uint64_t last = 0, out_of_order = 0;
	for (size_t i = 0; i < nr; i++) {
		if (ents[i].time == UINT64_MAX)
			ents[i].time = last;
		else if (ents[i].time < last)
			out_of_order++;
		last = ents[i].time;
	}
	if (!out_of_order)
		return 0;
	/* With per-CPU buffers interleaved, half the records of a
	 * system-wide capture can be out of place, but each only among its
	 * neighbours; when the runs overlap more than that, radix sort. */
	if (!merge_runs(ents, nr, 2 * nr))
		radix_sort_by_time(ents, nr);
	return out_of_order;
}
