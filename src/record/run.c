/* scorch record's driver (record_run, record.h): the target, the
 * collector and the kernel's symbols made ready, one backend from the
 * table run, a command still running sent SIGTERM, then the profile
 * built; the command's end (its grace period, SIGKILL) is left to the
 * caller, after the output is written, unless a runtime asks that its
 * exit come first (runtime.h: await_exit). */
#include "record/record.h"

#include "base/error.h"
#include "record/backend.h"
#include "record/host.h"
#include "record/recorder.h"
#include "record/session.h"
#include "record/symbols.h"
#include "record/target.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>


/* The kernel's symbol table is read while sampling runs, so that it is
 * ready when sampling ends (reading /proc/kallsyms is most of the
 * finishing time otherwise). */
struct kernel_loader {
	struct symbols *syms;
	atomic_bool ready;
};

static void *preload_kernel(void *arg)
{
	struct kernel_loader *kl = arg;
	const char *module;
	symbols_kernel(kl->syms, 0, &module);
	atomic_store_explicit(&kl->ready, true, memory_order_release);
	return NULL;
}

/* The backend to run, from --backend: BPF where it loads (perf after a
 * notice when it cannot), else what was asked for. */
static int run_backends(const struct record_opts *opts, struct recorder *r, struct record_target *t,
			struct record_stats *stats)
{
	int ret = RECORD_UNAVAILABLE;
	if (opts->backend != RECORD_BACKEND_PERF) {
		ret = record_backend_bpf.run(opts, r, t, stats);
		if (ret == RECORD_UNAVAILABLE && opts->backend == RECORD_BACKEND_BPF)
			ret = RECORD_ERROR;
	}
	if (ret == RECORD_UNAVAILABLE && opts->wakers) /* sched_waking's stacks: a BPF program's only */
		ret = error("--wakers needs the BPF backend");
	if (ret == RECORD_UNAVAILABLE)
		ret = record_backend_perf.run(opts, r, t, stats);
	return ret;
}

/* Sampling has ended: a command still running gets SIGTERM, and is
 * waited for now only when a runtime needs its exit before naming. A
 * stop signal after the one that ended sampling (if one did) stops the
 * waiting (a second Ctrl-C). */
static void stop_command(const struct record_opts *opts, struct recorder *r, struct record_target *t,
			 struct record_stats *stats, struct record_command *c)
{
	bool await = recorder_sampling_ended(r); /* runtimes' last look, before a command is stopped */
	record_phase(&stats->phases, "runtimes' last look");
	*c = (struct record_command){ .stop = opts->stop, .signals = stats->ended == RECORD_END_STOP };
	target_terminate(t, c);
	record_phase(&stats->phases, "command sent SIGTERM");
	if (await && c->pid > 0) {
		target_await(c);
		record_phase(&stats->phases, "command's exit awaited");
	}
}

int record_run(const struct record_opts *opts, struct profile *out, struct record_stats *stats,
	       struct record_command *left)
{
	struct record_target t = { .go_fd = -1, .exec_err_fd = -1, .child_fd = -1 };
	struct record_command command;

	memset(stats, 0, sizeof(*stats));
	stats->command_status = -1;
	if (left)
		*left = (struct record_command){ 0 };
	unsigned kernel_max = record_kernel_max_stack();
	/* Only the kernel's frame-pointer walk has the kernel's limit: DWARF
	 * unwinding (auto, dwarf) goes on from the stack copy. */
	if (opts->unwind == RECORD_UNWIND_FP && opts->max_stack > kernel_max)
		return error("--max-stack %u: the kernel records at most %u frames per stack "
			     "(kernel.perf_event_max_stack); raise it first, as root: "
			     "sysctl kernel.perf_event_max_stack=%u",
			     opts->max_stack, kernel_max, opts->max_stack);
	if (opts->command && target_spawn(&t, opts->command, opts->command_stdout_to_stderr))
		return RECORD_ERROR;
	target_watch(&t, opts);
	struct recorder *r = recorder_new(opts, NULL);
	struct symbols *kernel_syms = symbols_new();
	struct kernel_loader kl = { .syms = kernel_syms };
	pthread_t loader;
	bool loading = !opts->user_only && !pthread_create(&loader, NULL, preload_kernel, &kl);
	if (!loading)
		atomic_init(&kl.ready, true); /* loaded on first use, in this thread */
	recorder_build_early(r, out, kernel_syms, &kl.ready);

	stats->unwind_note = recorder_unwind_note(r);
	int ret = run_backends(opts, r, &t, stats);
	if (stats->phases.stopped_wall > 0) /* (--every: the last interval's end) */
		stats->end_ns = (uint64_t)((int64_t)llround(stats->phases.stopped_wall * 1e9) + record_realtime_offset_ns());
	stop_command(opts, r, &t, stats, &command);
	target_release(&t);
	if (loading)
		pthread_join(loader, NULL);
	record_phase(&stats->phases, "kernel symbols loaded");
	if (ret == 0) {
		recorder_finish(r, out, kernel_syms, stats);
		record_phase(&stats->phases, "profile built");
	}
	if (!opts->leave_memory) {
		symbols_free(kernel_syms);
		recorder_free(r);
		record_phase(&stats->phases, "recorder released");
	}
	if (left)
		*left = command;
	else
		record_command_end(&command);
	return ret;
}
