/* Forwarding `scorch flamegraph` options (see graph_forward.h). */
#include "cmd/graph_forward.h"
#include "cmd/cmd.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/out.h"
#include "profile/folded.h"
#include "profile/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* flamegraph options about its own input and output, not the graph: the
 * forwarding command has its own -o and --help, and writes the input. */
static const char *const not_forwarded[] = { "help", "output", "format", "dump-frames", NULL };

static bool listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

struct option *graph_forward_options(const struct option *own, int code, const char *const *skip)
{
	size_t n_own = 0, n_fg = 0;
	while (own[n_own].name)
		n_own++;
	while (flamegraph_long_options[n_fg].name)
		n_fg++;
	struct option *t = xreallocarray(NULL, n_own + n_fg + 1, sizeof(*t));
	size_t n = 0;
	for (size_t i = 0; i < n_own; i++)
		t[n++] = own[i];
	for (size_t i = 0; i < n_fg; i++) {
		const struct option *f = &flamegraph_long_options[i];
		if (listed(not_forwarded, f->name) || listed(skip, f->name))
			continue;
		t[n++] = (struct option){ f->name, f->has_arg, NULL, code };
	}
	t[n] = (struct option){ NULL, 0, NULL, 0 };
	return t;
}

static void push(struct graph_forward *g, char *arg)
{
	VEC_GROW(g->argv, (size_t)g->argc + 2, g->alloc);
	g->argv[g->argc++] = arg;
	g->argv[g->argc] = NULL;
}

void graph_forward_init(struct graph_forward *g)
{
	*g = (struct graph_forward){ 0 };
	push(g, "flamegraph");
}

void graph_forward_release(struct graph_forward *g)
{
	for (int i = 1; i < g->argc; i++)
		free(g->argv[i]);
	free(g->argv);
	g->argv = NULL;
	g->argc = g->alloc = 0;
}

void graph_forward_add(struct graph_forward *g, const char *name, const char *arg)
{
	if (!strcmp(name, "flamechart"))
		g->flamechart = true;
	if (!strcmp(name, "cp"))
		g->cp = true;
	size_t n = strlen(name) + (arg ? strlen(arg) + 1 : 0) + 3;
	char *s = xmalloc(n);
	snprintf(s, n, "--%s%s%s", name, arg ? "=" : "", arg ? arg : "");
	push(g, s);
}

bool graph_forward_any(const struct graph_forward *g)
{
	return g->argc > 1;
}

/* A new empty temporary file in $TMPDIR (or /tmp); its path in path[]. */
static int temp_file(char *path, size_t cap, const char *cmd)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, cap, "%s/scorch-%s-XXXXXX", dir, cmd);
	int fd = mkstemp(path);
	if (fd < 0 && strcmp(dir, "/tmp")) {
		dir = "/tmp";
		snprintf(path, cap, "/tmp/scorch-%s-XXXXXX", cmd);
		fd = mkstemp(path);
	}
	if (fd < 0)
		return error("cannot create a temporary file in %s: %s", dir, strerror(errno));
	close(fd);
	return 0;
}

/* `scorch flamegraph OPTIONS -o output input` (getopt may permute the
 * vector it is given, so each run gets a fresh copy). */
static int run_flamegraph(const struct graph_forward *g, const char *output, const char *input)
{
	char **argv = xreallocarray(NULL, (size_t)g->argc + 4, sizeof(char *));
	int argc = 0;
	for (int i = 0; i < g->argc; i++)
		argv[argc++] = g->argv[i];
	argv[argc++] = "-o";
	argv[argc++] = (char *)output;
	argv[argc++] = (char *)input;
	argv[argc] = NULL;
	int ret = cmd_flamegraph(argc, argv);
	free(argv);
	return ret;
}

int graph_forward_check(const struct graph_forward *g, const char *cmd)
{
	if (g->cp)
		return 0;
	char in[4200], out[4200];
	if (temp_file(in, sizeof(in), cmd))
		return -1;
	if (temp_file(out, sizeof(out), cmd)) {
		unlink(in);
		return -1;
	}
	FILE *f = fopen(in, "w");
	int ret = -1;
	if (f) {
		fputs("check 1\n", f);
		ret = fclose(f) ? -1 : run_flamegraph(g, out, in);
	}
	unlink(in);
	unlink(out);
	return ret;
}

/* Folded lines in sample order for a flame chart: adjacent equal stacks
 * are merged (a flame chart merges them anyway). */
static void write_events(const struct profile *p, struct out *o)
{
	char *buf = NULL;
	size_t alloc = 0;
	for (size_t i = 0; i < p->events_nr;) {
		node_t leaf = p->events[i].leaf;
		double n = 0;
		for (; i < p->events_nr && p->events[i].leaf == leaf; i++)
			n += p->events[i].count[0];
		size_t len = profile_path(p, leaf, &buf, &alloc);
		out_write(o, buf, len);
		out_putc(o, ' ');
		folded_write_count(o, n);
		out_putc(o, '\n');
	}
	free(buf);
}

int graph_forward_svg(const struct graph_forward *g, const struct profile *p, const char *output,
	const char *cmd)
{
	char path[4200];
	if (temp_file(path, sizeof(path), cmd))
		return 1;
	struct out *o = out_open(path);
	if (!o) {
		unlink(path);
		return 1;
	}
	if (g->flamechart)
		write_events(p, o);
	else
		folded_write(p, o);
	if (out_commit(o)) {
		unlink(path);
		return 1;
	}
	int ret = run_flamegraph(g, output, path);
	unlink(path);
	return ret;
}
