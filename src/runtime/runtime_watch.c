/* The runtime watch (runtime_watch.h): detection on its own thread, JVM
 * perf-map dumps, notes. */
#include "runtime/runtime_watch.h"

#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "runtime/hotspot_attach.h"
#include "runtime/proc_text.h"
#include "symbolize/perfmap.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum proc_kind { PROC_UNKNOWN, PROC_OTHER, PROC_JVM, PROC_NODE };

/* How many times an undecided process is looked at (about once a second),
 * and a JVM without a SIGQUIT handler is asked again before giving up. */
enum { MAX_LOOKS = 4, MAX_NOT_YET = 10, MAX_FAILURES = 3 };

struct watched {
	uint32_t pid;
	enum proc_kind kind;
	int looks;
	int64_t next_ns;       /* next look or dump */
	bool attach_failed;
	int not_yet;           /* attempts that found no SIGQUIT handler yet */
	int failures;          /* other failed attempts */
	char why[256];         /* the last one's reason */
	bool made_map;         /* its perf map did not exist before the first dump */
	char map_path[96];
	unsigned dumps;
	char *text;            /* JVM: every dump's lines, once each */
	size_t text_len, text_alloc;
	struct hashmap lines;  /* hash of a line -> 1 */
};

struct runtime_watch {
	struct runtime_watch_opts o;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	uint32_t *queue;       /* pids handed in, under lock */
	size_t nr_queue, queue_alloc;
	struct hashmap queued; /* pid -> 1, under lock */
	/* the thread's own (read by the caller after the join) */
	struct watched *procs;
	size_t nr_procs, procs_alloc;
	char *notes;
	size_t notes_len, notes_alloc;
	bool said_fp, said_node_prof, said_node_interp;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void note(struct runtime_watch *w, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t l = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	VEC_GROW(w->notes, w->notes_len + l + 2, w->notes_alloc);
	memcpy(w->notes + w->notes_len, line, l);
	w->notes_len += l;
	w->notes[w->notes_len++] = '\n';
	w->notes[w->notes_len] = 0;
}

/* ---- a JVM's dumps ------------------------------------------------------ */

/* Keep each line of a dump not kept before. */
static void keep_lines(struct watched *p, const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
		bool inserted;
		hashmap_upsert(&p->lines, hash_bytes(s, n), 1, &inserted);
		if (inserted) {
			VEC_GROW(p->text, p->text_len + n + 2, p->text_alloc);
			memcpy(p->text + p->text_len, s, n);
			p->text_len += n;
			if (s[n - 1] != '\n')
				p->text[p->text_len++] = '\n';
			p->text[p->text_len] = 0;
		}
		s += n;
	}
}

/* One dump; returns the milliseconds until the next. */
static int dump_jvm(struct runtime_watch *w, struct watched *p)
{
	char why[256];
	pid_t ns = hotspot_nspid((pid_t)p->pid);
	char *path = p->map_path;
	if (ns == (pid_t)p->pid)
		snprintf(path, sizeof(p->map_path), "/tmp/perf-%d.map", (int)ns);
	else
		snprintf(path, sizeof(p->map_path), "/proc/%u/root/tmp/perf-%d.map", (unsigned)p->pid, (int)ns);
	struct stat st;
	if (!p->dumps && lstat(path, &st))
		p->made_map = true;
	int status = hotspot_jcmd((pid_t)p->pid, "Compiler.perfmap", w->o.attach_ms, NULL, 0, why, sizeof(why));
	if (status != 0) {
		snprintf(p->why, sizeof(p->why), "%s", status > 0 ? "Compiler.perfmap failed" : why);
		if (!proc_alive(p->pid))
			return w->o.interval_ms; /* exited: its last dump stands */
		if (status == HOTSPOT_NOT_YET && ++p->not_yet < MAX_NOT_YET)
			return 200; /* starting: asked again soon */
		if (status != HOTSPOT_NOT_YET && ++p->failures < MAX_FAILURES)
			return w->o.interval_ms; /* a busy JVM may start its listener late */
		p->attach_failed = true;
		if (status > 0)
			snprintf(why, sizeof(why), "Compiler.perfmap answered status %d", status);
		note(w, "java %u: its JIT code is not named: %s", (unsigned)p->pid, why);
		return w->o.interval_ms;
	}
	size_t len;
	char *buf = proc_read_perfmap(path, p->pid, w->o.force, &len);
	if (buf) {
		keep_lines(p, buf, len);
		p->dumps++;
		free(buf);
	}
	return w->o.interval_ms;
}

/* A JVM that gave no dump by the end (it exited first, or its listener
 * was still starting: a JVM that runs a second or two on a loaded
 * machine): said, unless it wrote a map of its own (DumpPerfMapAtExit). */
static void never_dumped(struct runtime_watch *w, struct watched *p)
{
	char path[96];
	pid_t ns = hotspot_nspid((pid_t)p->pid);
	bool alive = proc_alive(p->pid);
	if (!alive || ns == (pid_t)p->pid)
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", (unsigned)p->pid);
	else
		snprintf(path, sizeof(path), "/proc/%u/root/tmp/perf-%d.map", (unsigned)p->pid, (int)ns);
	struct stat st;
	if (!lstat(path, &st))
		return;
	p->attach_failed = true;
	note(w, "java %u: its JIT code is not named: it %s before it answered the attach request%s%s%s",
	     (unsigned)p->pid, alive ? "was still starting up" : "exited", p->why[0] ? " (the last try: " : "", p->why,
	     p->why[0] ? ")" : "");
}

/* ---- detection ---------------------------------------------------------- */

static void met_jvm(struct runtime_watch *w, struct watched *p)
{
	p->kind = PROC_JVM;
	hashmap_init(&p->lines);
	if (!w->said_fp && !proc_has_option(p->pid, "-XX:+PreserveFramePointer",
					    (const char *const[]){ "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS",
								   "_JAVA_OPTIONS", NULL })) {
		w->said_fp = true;
		note(w, "java %u: compiled Java frames lose their callers: start the JVM with "
			"-XX:+PreserveFramePointer for whole stacks", (unsigned)p->pid);
	}
}

static void met_node(struct runtime_watch *w, struct watched *p)
{
	static const char *const env[] = { "NODE_OPTIONS", NULL };
	p->kind = PROC_NODE;
	bool prof = proc_has_option(p->pid, "--perf-basic-prof", env) ||
		    proc_has_option(p->pid, "--perf-prof", env);
	bool interp = proc_has_option(p->pid, "--interpreted-frames-native-stack", env);
	if (!prof && !w->said_node_prof) {
		w->said_node_prof = w->said_node_interp = true;
		note(w, "node %u: JavaScript frames are not named: start node with --perf-basic-prof "
			"--interpreted-frames-native-stack (or set them in NODE_OPTIONS)", (unsigned)p->pid);
	} else if (prof && !interp && !w->said_node_interp) {
		w->said_node_interp = true;
		note(w, "node %u: interpreted JavaScript frames are not named: add "
			"--interpreted-frames-native-stack to --perf-basic-prof", (unsigned)p->pid);
	}
}

static void look(struct runtime_watch *w, struct watched *p)
{
	p->looks++;

	switch (proc_runtime_kind(p->pid)) {
	case PROC_RUNTIME_GONE:
		p->kind = PROC_OTHER;
		break;
	case PROC_RUNTIME_JVM:
		met_jvm(w, p);
		break;
	case PROC_RUNTIME_NODE:
		met_node(w, p);
		break;
	case PROC_RUNTIME_NONE:
		if (p->looks >= MAX_LOOKS)
			p->kind = PROC_OTHER;
		break;
	}
}

static void tick(struct runtime_watch *w, bool last)
{
	int64_t now = now_ns();
	for (size_t i = 0; i < w->nr_procs; i++) {
		struct watched *p = &w->procs[i];
		if (p->kind == PROC_UNKNOWN && (last || now >= p->next_ns)) {
			look(w, p);
			p->next_ns = now + (int64_t)w->o.interval_ms * 1000000;
			if (p->kind == PROC_JVM)
				p->next_ns = now; /* its first dump now */
		}
		if (p->kind == PROC_JVM && !p->attach_failed && (last || now >= p->next_ns) && proc_alive(p->pid)) {
			int next_ms = dump_jvm(w, p);
			p->next_ns = now_ns() + (int64_t)next_ms * 1000000;
		}
		if (last && p->kind == PROC_JVM && !p->attach_failed && !p->dumps)
			never_dumped(w, p);
	}
}

/* Move the handed-in pids to the thread's list (lock held). Processes
 * found to be no runtime (or gone) leave it: under process churn it
 * would hold every process ever started, and each pid handed in walks
 * it. */
static void take_queue(struct runtime_watch *w)
{
	size_t keep = 0;
	for (size_t k = 0; k < w->nr_procs; k++) {
		if (w->procs[k].kind == PROC_OTHER)
			hashmap_remove(&w->queued, w->procs[k].pid); /* (a new process with its pid: met afresh) */
		else
			w->procs[keep++] = w->procs[k];
	}
	w->nr_procs = keep;
	for (size_t i = 0; i < w->nr_queue; i++) {
		struct watched *known = NULL;
		for (size_t k = 0; k < w->nr_procs && !known; k++)
			known = w->procs[k].pid == w->queue[i] ? &w->procs[k] : NULL;
		if (known) { /* an exec: looked at again, unless a runtime already */
			if (known->kind == PROC_OTHER || known->kind == PROC_UNKNOWN)
				*known = (struct watched){ .pid = known->pid };
			continue;
		}
		VEC_GROW(w->procs, w->nr_procs + 1, w->procs_alloc);
		w->procs[w->nr_procs++] = (struct watched){ .pid = w->queue[i] };
	}
	w->nr_queue = 0;
}

static void *watch_main(void *arg)
{
	struct runtime_watch *w = arg;
	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		take_queue(w);
		pthread_mutex_unlock(&w->lock);
		tick(w, false);
		pthread_mutex_lock(&w->lock);
		if (w->stop || w->nr_queue)
			continue;
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 200 * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&w->wake, &w->lock, &until);
	}
	take_queue(w);
	pthread_mutex_unlock(&w->lock);
	tick(w, true);
	return NULL;
}

struct runtime_watch *runtime_watch_new(const struct runtime_watch_opts *o)
{
	struct runtime_watch *w = xcalloc(1, sizeof(*w));
	w->o = *o;
	if (w->o.interval_ms <= 0)
		w->o.interval_ms = 1000;
	if (w->o.attach_ms <= 0)
		w->o.attach_ms = 5000;
	hashmap_init(&w->queued);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	if (pthread_create(&w->thread, NULL, watch_main, w)) {
		hashmap_release(&w->queued);
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->wake);
		free(w);
		return NULL;
	}
	return w;
}

static void hand_in(struct runtime_watch *w, uint32_t pid, bool again)
{
	if (!w || !pid)
		return;
	pthread_mutex_lock(&w->lock);
	bool inserted;
	hashmap_upsert(&w->queued, pid, 1, &inserted);
	if ((inserted || again) && !w->stop) {
		VEC_GROW(w->queue, w->nr_queue + 1, w->queue_alloc);
		w->queue[w->nr_queue++] = pid;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
}

void runtime_watch_process(struct runtime_watch *w, uint32_t pid)
{
	hand_in(w, pid, false);
}

void runtime_watch_exec(struct runtime_watch *w, uint32_t pid)
{
	hand_in(w, pid, true);
}

void runtime_watch_finish(struct runtime_watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	bool running = !w->stop;
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	if (running)
		pthread_join(w->thread, NULL);
}

bool runtime_watch_jvm_alive(struct runtime_watch *w)
{
	for (size_t i = 0; w && i < w->nr_procs; i++)
		if (w->procs[i].kind == PROC_JVM && proc_alive(w->procs[i].pid))
			return true;
	return false;
}

const char *runtime_watch_perfmap_text(struct runtime_watch *w, uint32_t pid, size_t *len)
{
	for (size_t i = 0; w && i < w->nr_procs; i++)
		if (w->procs[i].pid == pid && w->procs[i].text_len) {
			*len = w->procs[i].text_len;
			return w->procs[i].text;
		}
	return NULL;
}

void runtime_watch_each_jvm(struct runtime_watch *w, void (*fn)(uint32_t pid, void *arg), void *arg)
{
	for (size_t i = 0; w && i < w->nr_procs; i++)
		if (w->procs[i].kind == PROC_JVM && w->procs[i].text_len)
			fn(w->procs[i].pid, arg);
}

void runtime_watch_remove_maps(struct runtime_watch *w)
{
	for (size_t i = 0; w && i < w->nr_procs; i++) {
		struct watched *p = &w->procs[i];
		if (p->kind == PROC_JVM && p->made_map && !proc_alive(p->pid)) {
			unlink(p->map_path);
			p->made_map = false;
		}
	}
}

const char *runtime_watch_notes(struct runtime_watch *w)
{
	return w && w->notes ? w->notes : "";
}

void runtime_watch_free(struct runtime_watch *w)
{
	if (!w)
		return;
	runtime_watch_finish(w);
	for (size_t i = 0; i < w->nr_procs; i++) {
		free(w->procs[i].text);
		if (w->procs[i].kind == PROC_JVM)
			hashmap_release(&w->procs[i].lines);
	}
	free(w->procs);
	free(w->queue);
	free(w->notes);
	hashmap_release(&w->queued);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	free(w);
}
