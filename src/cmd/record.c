/* scorch record: sample stacks and write folded stacks or a flame graph.
 * Options are read and checked first (cmd/record_args.c); then run()
 * records, writes, and says what it recorded (cmd/record_describe.c). */
#include "cmd/cmd.h"
#include "cmd/graph_opts.h"
#include "cmd/record_args.h"
#include "cmd/record_describe.h"
#include "cmd/record_every.h"
#include "cmd/record_stop.h"
#include "cmd/time_arg.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/out.h"
#include "profile/folded.h"
#include "record/record.h"
#include "render/palette.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Whether any frame is a runtime's (a node's JS frames come from its perf
 * map, with no runtime line in the summary). */
static bool has_runtime_frames(const struct profile *p)
{
	for (uint32_t id = 0; id < p->names.nr; id++)
		if (palette_runtime_frame(strpool_str(&p->names, id), strpool_len(&p->names, id)))
			return true;
	return false;
}

/* The graph of p: its unit, period and times, and unless --title and
 * --subtitle say, what, where, when and how it was recorded. */
static int write_graph(struct record_args *a, struct profile *p, const struct record_stats *st,
		       const char *title, time_t started, const struct timespec *wall_start)
{
	struct record_opts *o = &a->o;
	struct graph_opts *g = &a->g;
	char mode_title[300], subtitle[512];
	const char *given_title = g->svg.title, *given_subtitle = g->svg.subtitle;
	/* Each sample counts 1, whatever the event: say so. */
	if (g->svg.countname == a->default_countname)
		g->svg.countname = o->off_cpu ? "us" : o->event == RECORD_EVENT_COUNTED ? o->counted.countname : "samples";
	if (o->event != RECORD_EVENT_COUNTED && !o->off_cpu)
		g->period_ns = 1e9 / o->freq;
	if (o->off_cpu) /* pprof and speedscope say microseconds too */
		g->count_unit = "us";
	g->time_ns = (int64_t)wall_start->tv_sec * 1000000000 + wall_start->tv_nsec;
	g->duration_ns = (int64_t)(st->seconds * 1e9);
	if (!g->svg.title) {
		/* A flame chart or icicle graph still says so first. */
		const char *mode = g->svg.flamechart ? "Flame Chart" : g->svg.inverted ? "Icicle Graph" : NULL;
		if (o->off_cpu)
			mode = o->wall	  ? (g->svg.inverted ? "Wall-Clock Time (icicle)" : "Wall-Clock Time")
			       : o->wakers ? (g->svg.inverted ? "Off-Wake Time (icicle)" : "Off-Wake Time")
					  : (g->svg.inverted ? "Off-CPU Time (icicle)" : "Off-CPU Time");
		if (mode)
			snprintf(mode_title, sizeof(mode_title), "%s \xc2\xb7 %s", mode, title);
		g->svg.title = mode ? mode_title : title;
	}
	/* Runtime frames drawn apart from native ones, unless --colors says. */
	enum palette_id given_palette = g->svg.palette;
	if (!g->colors && (st->runtimes[0] || has_runtime_frames(p)))
		g->svg.palette = PAL_PYTHON;
	if (!g->svg.subtitle) {
		describe_run(o, st, started, subtitle, sizeof(subtitle));
		g->svg.subtitle = subtitle;
	}
	int rc = graph_exit_code(graph_render(p, g, a->graph, a->output));
	/* What was given again, rather than pointers into this frame. */
	g->svg.title = given_title;
	g->svg.subtitle = given_subtitle;
	g->svg.palette = given_palette;
	return rc;
}

/* The exit code of a command that ended on its own: its status, or 128+N
 * when signal N killed it; -1 when there was no command or scorch ended it
 * (-d, Ctrl-C). */
static int command_exit_code(const struct record_stats *st)
{
	if (st->ended != RECORD_END_COMMAND || st->command_status < 0)
		return -1;
	if (WIFEXITED(st->command_status))
		return WEXITSTATUS(st->command_status);
	if (WIFSIGNALED(st->command_status))
		return 128 + WTERMSIG(st->command_status);
	return -1;
}

/* SCORCH_PHASES=1: where the time after sampling went (a bench aid). */
static void print_phases(const struct record_phases *ph, const struct record_stats *st)
{
	fprintf(stderr, "scorch: phase %" PRIu64 " of %" PRIu64 " distinct stacks built after sampling\n",
		st->built_late, st->unique);
	fprintf(stderr, "scorch: phase sampling ended at %.6f s (CLOCK_MONOTONIC)\n", ph->stopped_wall);
	for (int i = 0; i < ph->nr; i++)
		fprintf(stderr, "scorch: phase %-22s %7.3f s wall %7.3f s CPU\n", ph->at[i].what, ph->at[i].wall,
			ph->at[i].cpu);
	fprintf(stderr, "scorch: phase %-22s %7.3f s wall %7.3f s CPU\n", "(total)",
		ph->last_wall - ph->stopped_wall, ph->last_cpu - ph->stopped_cpu);
}

/* Record, write the output, say what was recorded. The exit code: see
 * record_usage's "Exit status". */
static int run(struct record_args *a)
{
	struct record_opts *o = &a->o;
	if (o->all_cpus && !o->duration && !isatty(STDIN_FILENO) && !o->quiet)
		fprintf(stderr, "scorch: sampling the whole system until Ctrl-C (or use -d SECONDS)\n");
	if (a->g.given && !a->graph && !o->quiet)
		warn("flame graph options apply to graph output only (-o FILE.svg or FILE.html)");
	o->progress = !a->no_progress && !o->quiet && isatty(STDERR_FILENO);
	/* The profile on stdout: the command's stdout goes to our stderr, so
	 * that `scorch record -- cmd > out.folded` holds only stacks. */
	o->command_stdout_to_stderr = !a->output || !strcmp(a->output, "-");
	o->sites = a->graph == GRAPH_FORMAT_PPROF; /* Mappings with build-ids */
	o->keep_time = a->graph == GRAPH_FORMAT_HTML; /* the heat map */
	o->leave_memory = !FREE_AT_EXIT; /* we exit after the output */

	/* Open the output first: a bad path fails before minutes of sampling
	 * (for a graph this only checks that it can be created: it is written
	 * at the end, and opening a FIFO now would make its reader see EOF). */
	struct out *out = a->graph ? NULL : out_open(a->output);
	if (a->graph ? out_check(a->output) != 0 : !out)
		return 1;

	struct profile p;
	struct record_stats st;
	profile_init(&p);
	char title[256];
	describe_target(o, title, sizeof(title));
	time_t started = time(NULL);
	struct timespec wall_start;
	clock_gettime(CLOCK_REALTIME, &wall_start);
	/* A command still running has had SIGTERM: the output first, then
	 * the rest of its grace period (record_stop_end). */
	struct record_stop rs;
	int ret = record_until_stopped(o, &p, &st, &rs);
	if (!ret && o->time_ranges && o->time_ranges->bad) {
		if (out)
			out_abort(out);
		record_stop_end(&rs);
		time_arg_check("record", o->time_ranges); /* exits */
	}
	if (!ret && st.unwind_note && !o->quiet)
		fprintf(stderr, "scorch: %s\n", st.unwind_note);

	int rc;
	if (ret) {
		if (out)
			out_abort(out);
		rc = ret == RECORD_NOT_FOUND ? 127 : ret == RECORD_NOT_EXECUTABLE ? 126 : 1;
	} else if (!st.samples) {
		/* Nothing to draw: no output, whatever its format. */
		if (out)
			out_abort(out);
		explain_no_samples(o, &st);
		rc = 1;
	} else if (a->graph) {
		rc = write_graph(a, &p, &st, title, started, &wall_start);
	} else {
		folded_write(&p, out);
		rc = out_commit(out) ? 1 : 0;
	}
	/* From the end of sampling to the output closed. */
	record_phase(&st.phases, "output written");
	const struct record_phases *ph = &st.phases;
	if (!ret) {
		print_summary(o, &st, ph->last_wall - ph->stopped_wall, ph->last_cpu - ph->stopped_cpu);
		print_command_status(o, &st);
		/* The command's own failure is the status, unless scorch failed
		 * to write the profile. With no samples and a command that
		 * succeeded, the status stays 1. */
		int command_rc = command_exit_code(&st);
		if (command_rc > 0 && (rc == 0 || !st.samples))
			rc = command_rc;
	}
	record_stop_end(&rs);
	if (FREE_AT_EXIT)
		profile_release(&p);
	record_phase(&st.phases, "profile released");
	if (!ret && getenv("SCORCH_PHASES"))
		print_phases(&st.phases, &st);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a;
	struct record_every every = { 0 };
	record_args_init(&a);
	a.every = &every;
	int rc = record_args_parse(argc, argv, &a);
	if (!rc)
		rc = every.every_ns ? record_every_run(&every, &a) : run(&a);
	record_args_release(&a);
	record_every_release(&every);
	return rc < 0 ? 0 : rc;
}
