/* The span of a perf.data file's sample times (perfdata/sample_span.h). */
#include "perfdata/sample_span.h"

#include "perfdata/perfdata.h"

struct span {
	uint64_t first, last;
};

static int note(const struct pd_record *r, void *arg)
{
	struct span *s = arg;
	if (r->type != PD_RECORD_SAMPLE || r->time == UINT64_MAX)
		return 0;
	if (r->time < s->first)
		s->first = r->time;
	if (r->time > s->last)
		s->last = r->time;
	return 0;
}

int perf_data_sample_span(const char *path, const void *buf, size_t len, struct perf_data_span *span)
{
	struct perf_data pd;
	if (perf_data_open(&pd, path, buf, len) < 0)
		return -1;
	struct span s = { UINT64_MAX, 0 };
	/* damage: the records before it count, as report reads them */
	perf_data_walk(&pd, note, &s);
	*span = (struct perf_data_span){ s.first, s.last, pd.epoch_known, pd.epoch_offset };
	perf_data_close(&pd);
	return s.first <= s.last;
}
