/* The stackcollapse frame options shared by collapse, report and record
 * (frame_opts.h). */
#include "cmd/frame_opts.h"
#include "cmd/count_arg.h"
#include "cmd/option_table.h"
#include "cmd/usage.h"

enum { OPT_PID = FRAME_OPT_FIRST, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS };

static const struct option frame_options[] = {
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "threads", required_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

struct option *frame_options_with(const struct option *own, const char *const *skip)
{
	return option_table_join(own, frame_options, skip);
}

void frame_args_set(struct frame_args *f, const char *cmd, int code, const char *arg)
{
	long v;
	switch (code) {
	case OPT_PID: f->pid = true; break;
	case OPT_TID: f->tid = true; break;
	case OPT_KERNEL: f->kernel = true; break;
	case OPT_JIT: f->jit = true; break;
	case OPT_ALL: f->kernel = f->jit = true; break;
	case OPT_ADDRS: f->addrs = true; break;
	case 'j':
		if (!count_arg(arg, 0, 1024, &v))
			usage_error(cmd, f->threads_error, arg);
		f->threads = (int)v;
		break;
	}
}
