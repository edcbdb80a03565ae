/* scorch: the command table and global flags; nothing else. */
#include "cmd/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef SCORCH_VERSION
#define SCORCH_VERSION "0.0.0"
#endif

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help; /* one line for `scorch help` */
};

static const struct cmd commands[] = {
	{ "flamegraph", cmd_flamegraph, flamegraph_usage, "render folded stacks (or any supported input) as an SVG flame graph" },
	{ "collapse", cmd_collapse, collapse_usage, "convert profiler text output to folded stacks" },
	{ "diff", cmd_diff, diff_usage, "compare two profiles of any format (difffolded.pl output)" },
	{ "merge", cmd_merge, merge_usage, "sum profiles of any format into one, with a root frame per input" },
	{ "query", cmd_query, query_usage, "stacks of any hosts and time range of a store (directory, ClickHouse)" },
	{ "store", cmd_store, store_usage, "put a profile into stores as one interval of a host" },
	{ "report", cmd_report, report_usage, "read perf.data directly: folded stacks or a flame graph" },
	{ "record", cmd_record, record_usage, "sample stacks (perf_event or eBPF) and write a flame graph" },
};

/* The two commands that only print, for `scorch help help|version`. */
static const char help_usage[] =
	"usage: scorch help [COMMAND]\n\n"
	"Without COMMAND, list the commands; with one, print its options (as\n"
	"'scorch COMMAND --help' does). The manual pages say the same: man scorch,\n"
	"man scorch-COMMAND.\n";
static const char version_usage[] =
	"usage: scorch version\n"
	"       scorch --version (or -V)\n\n"
	"Print the release and, for a build from a git checkout, the commit built\n"
	"(git describe), then the optional features compiled in (zlib, xz, zstd,\n"
	"elfutils, libbpf).\n";

static const struct cmd *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_overview(FILE *f)
{
	fprintf(f, "usage: scorch COMMAND [OPTIONS] [ARGS]\n\n"
		   "scorch turns stack samples into flame graphs.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "  %-11s %s\n", "help", "show help for a command");
	fprintf(f, "  %-11s %s\n", "version", "print the version and compiled-in features");
	fprintf(f, "\nRun 'scorch help COMMAND' or 'scorch COMMAND --help' for its options.\n");
}

static int finish_stdout(int ret)
{
	/* Turn a failed write to stdout (ENOSPC, EPIPE, EIO) into exit 1. */
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "scorch: cannot write to stdout: %s\n", strerror(errno));
		return ret ? ret : 1;
	}
	return ret;
}

static int version(void)
{
	printf("scorch %s\nfeatures: %s\n", SCORCH_VERSION, scorch_features());
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "-V") || !strcmp(name, "version"))
		return finish_stdout(version());
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		print_overview(stdout);
		return finish_stdout(0);
	}
	if (!strcmp(name, "help")) {
		if (argc < 3) {
			print_overview(stdout);
			return finish_stdout(0);
		}
		const struct cmd *c = find_command(argv[2]);
		const char *usage = c ? c->usage : NULL;
		if (!strcmp(argv[2], "help"))
			usage = help_usage;
		else if (!strcmp(argv[2], "version"))
			usage = version_usage;
		if (!usage) {
			fprintf(stderr, "scorch: unknown command '%s'\n", argv[2]);
			return 2;
		}
		fputs(usage, stdout);
		return finish_stdout(0);
	}
	const struct cmd *c = find_command(name);
	if (!c) {
		fprintf(stderr, "scorch: unknown command '%s' (see 'scorch help')\n", name);
		return 2;
	}
	return finish_stdout(c->fn(argc - 1, argv + 1));
}
