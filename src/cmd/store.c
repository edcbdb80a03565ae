/* scorch store put: an existing profile (any input scorch reads) into one
 * or more stores as one interval, with its host, time range and labels:
 * how profiles taken elsewhere (or before `record --every`) join a fleet
 * store, and how the stores are tested without a recorder. */
#include "cmd/cmd.h"
#include "cmd/load.h"
#include "cmd/usage.h"

#include "base/alloc.h"
#include "base/error.h"
#include "store/store.h"
#include "cmd/sink_args.h"
#include "store/when.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char store_usage[] =
	"usage: scorch store put --to STORE [OPTIONS] FILE\n"
	"\n"
	"Put a profile (folded stacks, any `scorch collapse` format, perf.data or\n"
	"pprof) into one or more stores as one interval of one host.\n"
	"STORE is a directory (the default store), clickhouse://HOST:PORT/DB or\n"
	"pyroscope://HOST:PORT (see doc/fleet.md).\n"
	"\n"
	"options:\n"
	"      --to STORE      where the interval goes (repeatable)\n"
	"      --host NAME     the host (default: this machine's host name)\n"
	"      --start TIME    when the interval began (now, -10s, 2026-12-02T14:00:00Z,\n"
	"                      @UNIX_SECONDS or ns); default: --end minus 10 s\n"
	"      --end TIME      when it ended (default: now)\n"
	"      --event NAME    what was sampled (cpu-clock, cycles, ...)\n"
	"      --rate HZ       the sampling frequency\n"
	"      --label K=V     a label (repeatable)\n"
	SINK_ARGS_USAGE
	"  -h, --help          this help\n"
	"\n"
	"Exit status: 0 every store holds the interval; 1 an input or a store\n"
	"failed, or the interval waits in a spool or was dropped (the summary line\n"
	"says which); 2 usage error.\n";

enum { OPT_TO = 0x200, OPT_HOST, OPT_START, OPT_END, OPT_EVENT, OPT_RATE, OPT_LABEL };

static const struct option own_opts[] = {
	{ "to", required_argument, NULL, OPT_TO },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "start", required_argument, NULL, OPT_START },
	{ "end", required_argument, NULL, OPT_END },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "label", required_argument, NULL, OPT_LABEL },
	SINK_ARGS_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct args {
	struct sink_args sinks;
	struct store_meta m;
	const char *start, *end, *file;
	char hostname[256];
	bool help;
};

static void parse_args(int argc, char **argv, struct args *a)
{
	int c;
	char *end;
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", own_opts, NULL)) != -1) {
		switch (c) {
		case OPT_TO: sink_args_add_to(&a->sinks, optarg); break;
		case OPT_HOST: a->m.host = optarg; break;
		case OPT_START: a->start = optarg; break;
		case OPT_END: a->end = optarg; break;
		case OPT_EVENT: a->m.event = optarg; break;
		case OPT_RATE:
			a->m.rate_hz = (uint32_t)strtoul(optarg, &end, 10);
			if (*end || !a->m.rate_hz || a->m.rate_hz > 100000)
				usage_error("store", "--rate: 1..100000 Hz, not '%s'", optarg);
			break;
		case OPT_LABEL: sink_args_add_label(&a->sinks, "store", optarg); break;
		case 'h': a->help = true; return;
		default:
			if (sink_args_take(&a->sinks, "store", c, optarg))
				break;
			usage_bad_option("store", c, argv);
		}
	}
	if (!a->sinks.nr_to)
		usage_error("store", "put: --to STORE is needed");
	if (argc - optind != 1)
		usage_error("store", "put: give one FILE");
	a->file = argv[optind];
	uint64_t now = when_now(), ten_s = 10ull * 1000000000ull;
	a->m.end_ns = now;
	if (a->end && when_time(a->end, now, &a->m.end_ns))
		usage_error("store", "--end: not a time: '%s'", a->end);
	a->m.start_ns = a->m.end_ns > ten_s ? a->m.end_ns - ten_s : 0;
	if (a->start && when_time(a->start, now, &a->m.start_ns))
		usage_error("store", "--start: not a time: '%s'", a->start);
	if (a->m.start_ns >= a->m.end_ns)
		usage_error("store", "--start must come before --end");
	if (!a->m.host) {
		if (gethostname(a->hostname, sizeof(a->hostname) - 1))
			usage_error("store", "no host name: give --host");
		a->m.host = a->hostname;
	}
	a->m.labels = a->sinks.labels;
	a->m.nr_labels = a->sinks.nr_labels;
}

int cmd_store(int argc, char **argv)
{
	struct args a = { 0 };
	if (argc < 2 || (strcmp(argv[1], "put") && strcmp(argv[1], "-h") && strcmp(argv[1], "--help")))
		usage_error("store", "the one subcommand is 'put'");
	if (strcmp(argv[1], "put")) {
		fputs(store_usage, stdout);
		return 0;
	}
	parse_args(argc, argv, &a);
	if (a.help) {
		fputs(store_usage, stdout);
		sink_args_release(&a.sinks);
		return 0;
	}
	struct profile p;
	profile_init(&p);
	int rc = load_profile(&p, a.file, NULL, &a.m.unit) ? 1 : 0;
	if (!rc && !strcmp(a.m.unit, "samples"))
		a.m.unit = NULL;
	if (!rc)
		rc = sink_args_put_all(&a.sinks, &p, &a.m);
	profile_release(&p);
	sink_args_release(&a.sinks);
	return rc;
}
