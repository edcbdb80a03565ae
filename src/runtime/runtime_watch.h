/* Runtimes met while recording: JVMs (HotSpot) and Node.js processes.
 *
 * record hands each process it sees to the watch (runtime_watch_process,
 * cheap: the work is done on the watch's own thread). The watch tells
 * what runs there from the process's own files (/proc/PID/exe, maps,
 * cmdline, environ):
 *   - a JVM (libjvm.so mapped): its JIT's code is named by HotSpot's own
 *     perf map, asked for through the attach protocol (hotspot_attach.h,
 *     "Compiler.perfmap") when it is met, every second while it runs (code
 *     is compiled all along), and once more when sampling ends; what every
 *     dump named is kept (a later dump leaves out code freed since), and
 *     handed to the symbolizer with the final file. Without
 *     -XX:+PreserveFramePointer compiled frames lose their callers: said
 *     once.
 *   - Node.js (the executable is node or nodejs): V8 writes a perf map
 *     only when started with --perf-basic-prof, and names interpreted
 *     functions only with --interpreted-frames-native-stack: when either
 *     is missing (command line or NODE_OPTIONS), one notice says which.
 * A process is looked at again for a few seconds after it is first seen
 * (a JVM maps libjvm.so after its launcher starts; a shell execs). */
#ifndef SCORCH_RUNTIME_RUNTIME_WATCH_H
#define SCORCH_RUNTIME_RUNTIME_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runtime_watch;

struct runtime_watch_opts {
	bool force;       /* read perf maps whoever owns them (--force) */
	int interval_ms;  /* between JVM dumps (default 1000) */
	int attach_ms;    /* bound on one attach (default 5000) */
};

/* Starts the watch's thread; NULL when it cannot run. */
struct runtime_watch *runtime_watch_new(const struct runtime_watch_opts *o);
/* A process seen in a sample (first time; more calls are harmless). */
void runtime_watch_process(struct runtime_watch *w, uint32_t pid);
/* Process pid called exec: looked at again (a launcher becomes a JVM). */
void runtime_watch_exec(struct runtime_watch *w, uint32_t pid);
/* Sampling ended: a last dump of every JVM still running, then the
 * thread stops. Call before the target is killed. */
void runtime_watch_finish(struct runtime_watch *w);
/* After runtime_watch_finish: is a JVM it met still running? */
bool runtime_watch_jvm_alive(struct runtime_watch *w);

/* The perf-map lines every dump of JVM pid gave (deduplicated, in the
 * order first seen), NULL when none; valid until runtime_watch_free. */
const char *runtime_watch_perfmap_text(struct runtime_watch *w, uint32_t pid, size_t *len);
/* Calls fn(pid, arg) for each JVM that has such text. */
void runtime_watch_each_jvm(struct runtime_watch *w, void (*fn)(uint32_t pid, void *arg), void *arg);

/* Remove the perf maps the dumps made of JVMs that have exited (a map
 * that was there before record asked stays): call once their names are
 * read. */
void runtime_watch_remove_maps(struct runtime_watch *w);

/* What to say in the summary (runtimes met, missing flags): one line per
 * note, "" when none; valid until runtime_watch_free. */
const char *runtime_watch_notes(struct runtime_watch *w);

void runtime_watch_free(struct runtime_watch *w);

#endif
