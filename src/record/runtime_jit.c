/* JIT runtimes (Java/HotSpot, Node.js/V8) in record's runtime table: an
 * adapter over src/runtime/runtime_watch.h. Their frames are native code
 * in anonymous memory, named from perf maps by the symbolizer, so this
 * runtime owns no process and emits no tokens: detect() hands each process
 * to the watch's thread (which looks at it there, and again for a few
 * seconds: a JVM maps libjvm.so after its launcher starts) and returns
 * NULL; sampling_end() has the watch dump each live JVM's map one last
 * time before a command is stopped; await_exit() asks record to see a
 * JVM's exit before naming (it may write its map as it exits, and the
 * maps the dumps made go once it is gone); perfmaps() hands over every line the
 * dumps gave; summary() says what the watch noted (flags missing, attach
 * failures) and removes the maps its dumps made for JVMs now gone. */
#include "record/runtime.h"

#include "runtime/runtime_watch.h"

#include <stdio.h>
#include <string.h>

static void *jit_open(const struct record_opts *opts)
{
	if (opts->kernel_only)
		return NULL;
	return runtime_watch_new(&(struct runtime_watch_opts){ .force = opts->force });
}

static void *jit_detect(void *run, const struct runtime_process *proc)
{
	/* met first, or exec'ed: looked at (again) on the watch's thread */
	runtime_watch_exec(run, proc->pid);
	return NULL;
}

static void jit_sampling_end(void *run)
{
	runtime_watch_finish(run);
}

static bool jit_await_exit(void *run)
{
	return runtime_watch_jvm_alive(run);
}

struct perfmap_hand {
	struct runtime_watch *w;
	void (*add)(void *arg, uint32_t pid, const char *text, size_t len);
	void *arg;
};

static void hand_one(uint32_t pid, void *arg)
{
	struct perfmap_hand *h = arg;
	size_t len;
	const char *text = runtime_watch_perfmap_text(h->w, pid, &len);
	if (text)
		h->add(h->arg, pid, text, len);
}

static void jit_perfmaps(void *run, void (*add)(void *arg, uint32_t pid, const char *text, size_t len),
			 void *arg)
{
	runtime_watch_finish(run); /* (without sampling_end: a test's recorder) */
	struct perfmap_hand h = { run, add, arg };
	runtime_watch_each_jvm(run, hand_one, &h);
}

static void jit_summary(void *run, char *buf, size_t cap)
{
	/* after naming: the maps are read */
	runtime_watch_remove_maps(run);
	const char *notes = runtime_watch_notes(run);
	size_t n = strlen(notes);
	while (n && notes[n - 1] == '\n')
		n--;
	if (cap)
		snprintf(buf, cap, "%.*s", (int)n, notes);
}

static void jit_close(void *run)
{
	runtime_watch_free(run);
}

const struct record_runtime record_runtime_jit = {
	.name = "jit",
	.open = jit_open,
	.detect = jit_detect,
	.sampling_end = jit_sampling_end,
	.await_exit = jit_await_exit,
	.perfmaps = jit_perfmaps,
	.summary = jit_summary,
	.close = jit_close,
};
