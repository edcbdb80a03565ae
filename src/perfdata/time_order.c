/* replay_sort_by_time (see replay.h): perf's ordered-events queue
 * delivers records in time order, equal times in file order. */
#include "perfdata/replay.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

uint64_t replay_sort_by_time(struct replay *r)
{
	struct replay_entry *ents = r->ents;
	size_t nr = r->nr;
	/* Records without a time (UINT64_MAX here) would be delivered at once:
	 * give them the time of the record before them. */
	uint64_t last = 0;
	for (size_t i = 0; i < nr; i++) {
		if (ents[i].time == UINT64_MAX)
			ents[i].time = last;
		else
			last = ents[i].time;
	}
	/* A stable LSD radix sort on the time (bytes that never differ
	 * skipped) does it in a few linear passes: with per-CPU buffers
	 * interleaved, half the records of a system-wide capture can be out
	 * of order, too many for a comparison sort. */
	uint64_t out_of_order = 0;
	uint64_t all_or = 0, all_and = UINT64_MAX;
	for (size_t i = 0; i < nr; i++) {
		if (i && ents[i].time < ents[i - 1].time)
			out_of_order++;
		all_or |= ents[i].time;
		all_and &= ents[i].time;
	}
	if (!out_of_order)
		return 0;
	uint64_t differ = all_or ^ all_and;
	struct replay_entry *tmp = xmalloc(nr * sizeof(*tmp));
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
	return out_of_order;
}
