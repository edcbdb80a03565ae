/* record --every: the interval loop (cmd/record_every.h). */
#include "cmd/record_every.h"
#include "cmd/record_describe.h"
#include "cmd/record_stop.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "store/when.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_EVERY = 0x400, OPT_HOST, OPT_LABEL, OPT_TO };

/* Blocks from this many bytes on are mapped on their own (see
 * record_every_run). */
enum { EVERY_MMAP_FROM = 1 << 20 };

const struct option record_every_options[] = {
	{ "every", optional_argument, NULL, OPT_EVERY },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "to", required_argument, NULL, OPT_TO },
	SINK_ARGS_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

#define DEFAULT_EVERY_NS (10ull * 1000000000ull)

bool record_every_take(struct record_every *e, int c, const char *arg, char **argv)
{
	switch (c) {
	case OPT_EVERY:
		/* --every alone means 10 s; --every 30s reads the next word when it is a duration */
		if (!arg && argv[optind] && !when_duration(argv[optind], &e->every_ns))
			optind++;
		else if (!arg)
			e->every_ns = DEFAULT_EVERY_NS;
		else if (when_duration(arg, &e->every_ns))
			usage_error("record", "--every: a duration such as 10s or 1m, not '%s'", arg);
		if (e->every_ns < 1000000000ull || e->every_ns > 86400ull * 1000000000ull)
			usage_error("record", "--every: from 1s to 1d");
		return true;
	case OPT_HOST: e->host = arg; return true;
	case OPT_LABEL: sink_args_add_label(&e->sinks, "record", arg); return true;
	case OPT_TO: sink_args_add_to(&e->sinks, arg); return true;
	}
	return sink_args_take(&e->sinks, "record", c, arg);
}

void record_every_check(struct record_every *e, struct record_args *a)
{
	bool store_opts = e->sinks.nr_to || e->host || e->sinks.nr_labels || e->sinks.opts.keep_ns ||
			  e->sinks.opts.max_bytes || e->sinks.opts.spool_dir || e->sinks.opts.spool_bytes;
	if (!e->every_ns) {
		if (store_opts)
			usage_error("record", "--to, --host, --label and the store options go with --every");
		return;
	}
	if (!e->sinks.nr_to)
		usage_error("record", "--every needs --to STORE (a directory, clickhouse://HOST:PORT/DB, "
				      "pyroscope://HOST:PORT)");
	if (a->o.command)
		usage_error("record", "--every records -a, -p or -t: a command would start again each interval");
	if (a->output)
		usage_error("record", "--every writes to the stores (--to), not -o");
	if (a->o.keep_order)
		usage_error("record", "--every stores aggregates: not with --flamechart");
	/* Off-CPU time is summed per stack until its blocks end: cut by a
	 * whole recording per interval (perf: its events open in about
	 * 0.1 s; bpf would load its programs again at each cut). */
	if (a->o.off_cpu && a->o.backend == RECORD_BACKEND_AUTO)
		a->o.backend = RECORD_BACKEND_PERF;
	if (!e->host) {
		if (gethostname(e->hostname, sizeof(e->hostname) - 1) || !e->hostname[0])
			usage_error("record", "no host name here: give --host NAME");
		e->host = e->hostname;
	}
}

/* One interval to the stores. */
static int put(struct record_every *e, const struct record_opts *o, const struct record_stats *st,
	       const struct profile *p, uint64_t start, uint64_t end)
{
	struct store_meta m = {
		.host = e->host,
		.start_ns = start,
		.end_ns = end > start ? end : start + 1,
		.event = o->event == RECORD_EVENT_COUNTED ? o->counted.name : st->event,
		.rate_hz = o->off_cpu || o->event == RECORD_EVENT_COUNTED ? 0 : o->freq,
		.unit = o->off_cpu ? "us" : NULL,
		.labels = e->sinks.labels,
		.nr_labels = e->sinks.nr_labels,
	};
	return sink_args_put(&e->sinks, p, &m);
}

/* ---- on-CPU samples: one recording, cut by the collector ---- */

struct cutting {
	struct record_every *e;
	const struct record_opts *o;
	const struct record_stats *st; /* filled as the recording runs (its event) */
	int failed, intervals;
	uint64_t samples;
};

static void on_interval(void *arg, struct profile *p, const struct record_interval *iv)
{
	struct cutting *c = arg;
	c->failed += put(c->e, c->o, c->st, p, iv->start_ns, iv->end_ns) != 0;
	c->intervals++;
	c->samples += iv->samples;
}

static int run_cut(struct record_every *e, struct record_args *a)
{
	struct record_opts o = a->o;
	struct record_stats st;
	struct profile p;
	struct cutting c = { e, &o, &st, 0, 0, 0 };
	o.every_ns = e->every_ns;
	o.on_interval = on_interval;
	o.interval_arg = &c;
	o.cut_stats = getenv("SCORCH_CUT_STATS") != NULL;
	profile_init(&p);
	struct record_stop rs;
	int ret = record_until_stopped(&o, &p, &st, &rs);
	record_stop_end(&rs); /* (no command with --every) */
	if (!ret) { /* the last one, from the last cut to the end */
		c.failed += put(e, &o, &st, &p, st.interval_start_ns, st.end_ns) != 0;
		c.intervals++;
		c.samples += st.samples - c.samples;
	}
	profile_release(&p);
	int rc = sink_args_close(&e->sinks);
	fprintf(stderr, "scorch: %d intervals of %s recorded (%" PRIu64 " samples)%s\n", c.intervals, e->host,
		c.samples, ret ? ", then recording failed" : "");
	return ret || c.failed ? 1 : rc;
}

/* ---- off-CPU time: a recording per interval ---- */

/* The next multiple of every after t (ns since the epoch). */
static uint64_t next_cut(uint64_t t, uint64_t every)
{
	return (t / every + 1) * every;
}

/* One interval: sampled until about `cut`, then stored. *setup is the
 * collector's start-up time, measured, for the next interval's aim.
 * It ends at the deadline (-d) if that comes first. 1 when sampling
 * ended for good (a signal, -d, the targets), -1 on an error, 0 to go on. */
static int one_interval(struct record_every *e, struct record_args *a, uint64_t cut, double *setup,
			uint64_t deadline, int *failed)
{
	struct record_opts o = a->o;
	uint64_t called = when_now();
	if (deadline && deadline < cut)
		cut = deadline;
	double want = cut > called ? (double)(cut - called) / 1e9 - *setup : 0;
	o.duration = want < 0.1 ? 0.1 : want;
	struct profile p;
	struct record_stats st;
	profile_init(&p);
	struct record_stop rs;
	int ret = record_until_stopped(&o, &p, &st, &rs);
	record_stop_end(&rs); /* (no command with --every) */
	uint64_t returned = when_now();
	if (ret) {
		profile_release(&p);
		return -1;
	}
	double post = st.phases.last_wall - st.phases.stopped_wall;
	uint64_t end = returned - (uint64_t)llround((post > 0 ? post : 0) * 1e9);
	uint64_t start = end - (uint64_t)llround(st.seconds * 1e9);
	*setup = start > called ? (double)(start - called) / 1e9 : 0;
	if (put(e, &o, &st, &p, start, end))
		(*failed)++;
	profile_release(&p);
	bool over = record_stopped() || st.ended != RECORD_END_DURATION || (deadline && cut >= deadline);
	return over ? 1 : 0;
}

int record_every_run(struct record_every *e, struct record_args *a)
{
	a->o.leave_memory = false; /* each interval frees what it grew */
#ifdef __GLIBC__
	/* Big blocks that come and go with each interval (zstd's workspace
	 * for the day's stack table, several MB at each put; tables rehashed
	 * into new ones) are mapped and unmapped each time. glibc's default
	 * raises this threshold to the largest block freed so far and then
	 * takes such blocks from the heap, where they stay resident and free
	 * (bench/NOTES.md). */
	mallopt(M_MMAP_THRESHOLD, EVERY_MMAP_FROM);
#endif
	alloc_big_blocks_on_small_pages();
	a->o.progress = false;
	a->o.quiet = true; /* the notices would repeat every interval */
	if (sink_args_open(&e->sinks))
		return 1;
	if (!a->o.off_cpu)
		return run_cut(e, a);
	/* a signal between two intervals (while one is stored) stops the
	 * loop too, after that interval */
	struct stop_signals saved;
	stop_signals_catch(&saved);
	double setup = 0;
	uint64_t now = when_now(), cut = next_cut(now, e->every_ns);
	uint64_t deadline = a->o.duration ? now + (uint64_t)llround(a->o.duration * 1e9) : 0;
	int failed = 0, ret = 0, intervals = 0;
	while (!ret) {
		ret = one_interval(e, a, cut, &setup, deadline, &failed);
		intervals += ret >= 0;
		/* the next multiple after this cut, even when this interval
		 * ended a little before it; skipped multiples are not made up */
		cut = next_cut(cut > when_now() ? cut : when_now(), e->every_ns);
	}
	int rc = sink_args_close(&e->sinks);
	stop_signals_restore(&saved);
	fprintf(stderr, "scorch: %d intervals of %s recorded%s\n", intervals, e->host,
		ret < 0 ? ", then recording failed" : "");
	return ret < 0 || failed ? 1 : rc;
}

void record_every_release(struct record_every *e)
{
	sink_args_release(&e->sinks);
}
