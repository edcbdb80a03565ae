/* The BPF backend's side band (perf_sideband.h): one dummy software event
 * per CPU (no samples) with the process-tracking records on, so that the
 * BPF backend, which aggregates samples in the kernel, still learns every
 * mapping, name and fork while the processes live, even those that exit
 * between two of its scans. */
#include "record/perf_sideband.h"

#include "base/alloc.h"
#include "record/perf_attr.h"
#include "record/perf_ring.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct perf_sideband {
	struct perf_rings rs;
	struct perf_parser parser;
};

enum { SIDEBAND_PAGES = 16 };

static void sideband_attr(struct perf_event_attr *attr, const struct record_target *t)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	/* Timed records, on the samples' clock, merged with them. */
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->mmap = attr->mmap2 = attr->comm = attr->comm_exec = attr->task = 1;
	attr->inherit = t->child > 0;
	attr->enable_on_exec = t->child > 0;
	attr->disabled = t->child > 0;
	attr->watermark = 1;
	attr->wakeup_watermark = (uint32_t)(SIDEBAND_PAGES * sysconf(_SC_PAGESIZE) / 2);
}

struct perf_sideband *perf_sideband_open(const struct record_opts *o, struct recorder *r,
					 const struct record_target *t)
{
	(void)o;
	struct perf_sideband *sb = xcalloc(1, sizeof(*sb));
	int ncpu = record_nr_cpus();
	sb->parser.r = r;
	perf_rings_init(&sb->rs, ncpu, &sb->parser);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr attr;
		sideband_attr(&attr, t);
		sb->parser.sample_type = attr.sample_type;
		int fd = record_perf_open(&attr, t->child > 0 ? t->child : -1, cpu, -1, 0);
		if (fd < 0)
			continue; /* offline CPU, or not permitted: scans still work */
		perf_rings_add_fd(&sb->rs, fd);
		perf_rings_map(&sb->rs, fd, cpu, SIDEBAND_PAGES); /* (a ring it cannot map: no records) */
	}
	return sb;
}

void perf_sideband_on_push(struct perf_sideband *sb, void (*fn)(void *arg, const void *data, size_t len),
			   void *arg)
{
	sb->rs.foreign = fn;
	sb->rs.foreign_arg = arg;
}

void perf_sideband_push(struct perf_sideband *sb, uint64_t time, const void *data, size_t len)
{
	perf_rings_push(&sb->rs, time, data, len);
}

void perf_sideband_drain(struct perf_sideband *sb)
{
	perf_rings_drain(&sb->rs, false);
}

uint64_t perf_sideband_horizon(const struct perf_sideband *sb)
{
	return sb ? sb->rs.horizon : 0;
}

void perf_sideband_bound(struct perf_sideband *sb, struct record_bound *bound)
{
	sb->rs.bound = bound;
}

uint64_t perf_sideband_close(struct perf_sideband *sb)
{
	if (!sb)
		return 0;
	perf_rings_drain(&sb->rs, true);
	uint64_t unread = sb->rs.unread;
	perf_rings_release(&sb->rs);
	perf_parser_release(&sb->parser);
	free(sb);
	return unread;
}
