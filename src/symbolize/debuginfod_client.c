/* libdebuginfod through dlopen (debuginfod_client.h). */
#include "symbolize/debuginfod_client.h"

#include "base/alloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The library's entry points (elfutils/debuginfod.h, soname libdebuginfod.so.1). */
typedef struct debuginfod_client lib_client;
typedef int (*progress_fn)(lib_client *, long, long);

struct debuginfo_client {
	void *lib;
	lib_client *(*begin)(void);
	void (*end)(lib_client *);
	int (*find_debuginfo)(lib_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(lib_client *, progress_fn);
	lib_client *client;
	pthread_mutex_t lock;
	bool notices;
	bool off;            /* a server failed: not asked again */
	double timeout;      /* seconds per query */
	double user_timeout; /* DEBUGINFOD_TIMEOUT, 0 when unset */
	double deadline;     /* of the query running (CLOCK_MONOTONIC) */
	bool cancelled;      /* progress cut the query running at the deadline */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The client whose query runs on this thread, for progress. */
static __thread struct debuginfo_client *running;

/* Called by the library while a query runs: non-zero cancels it. */
static int progress(lib_client *lc, long done, long total)
{
	(void)lc;
	(void)done;
	(void)total;
	if (!running || now_s() <= running->deadline)
		return 0;
	running->cancelled = true;
	return 1;
}

struct debuginfo_client *debuginfo_client_new(bool notices)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!urls || !urls[strspn(urls, " \t")])
		return NULL;
	/* Never unloaded (RTLD_NODELETE): libcurl, which it loads, keeps its
	 * TLS libraries' state in globals and registers exit handlers; unloaded
	 * at dlclose, that state leaked (LeakSanitizer) and those handlers
	 * would point into unmapped code. */
	void *lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!lib)
		return NULL;
	struct debuginfo_client *c = xcalloc(1, sizeof(*c));
	c->lib = lib;
	*(void **)&c->begin = dlsym(lib, "debuginfod_begin");
	*(void **)&c->end = dlsym(lib, "debuginfod_end");
	*(void **)&c->find_debuginfo = dlsym(lib, "debuginfod_find_debuginfo");
	*(void **)&c->set_progressfn = dlsym(lib, "debuginfod_set_progressfn");
	if (!c->begin || !c->end || !c->find_debuginfo || !(c->client = c->begin())) {
		dlclose(lib);
		free(c);
		return NULL;
	}
	if (c->set_progressfn)
		c->set_progressfn(c->client, progress);
	const char *t = getenv("DEBUGINFOD_TIMEOUT");
	double user = t ? strtod(t, NULL) : 0;
	/* the library applies DEBUGINFOD_TIMEOUT to a stalled transfer; the
	 * deadline bounds the whole query (a second's slack past it) */
	c->timeout = user > 0 ? user + 1 : DEBUGINFO_DEFAULT_TIMEOUT;
	c->user_timeout = user > 0 ? user : 0;
	c->notices = notices;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void debuginfo_client_free(struct debuginfo_client *c)
{
	if (!c)
		return;
	c->end(c->client);
	dlclose(c->lib);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

char *debuginfo_client_find(struct debuginfo_client *c, const char *build_id_hex, const char *for_path)
{
	if (!c)
		return NULL;
	pthread_mutex_lock(&c->lock);
	char *path = NULL;
	if (!c->off) {
		double start = now_s();
		c->deadline = start + c->timeout;
		c->cancelled = false;
		running = c;
		/* a hex build-id is passed with length 0 */
		int fd = c->find_debuginfo(c->client, (const unsigned char *)build_id_hex, 0, &path);
		running = NULL;
		if (fd >= 0) {
			close(fd);
		} else {
			free(path);
			path = NULL;
			/* ENOENT: no server has it (a cached miss too), unless
			 * the query ran out of time (the library reports its own
			 * timeouts as ENOENT too); anything else is the servers'
			 * failure */
			double took = now_s() - start;
			bool timed_out = c->cancelled || (c->user_timeout && took >= c->user_timeout);
			if (fd != -ENOENT || timed_out) {
				c->off = true;
				if (c->notices)
					fprintf(stderr,
						"scorch: debuginfod: no answer for %s (build-id %s): %s after %.1f s; "
						"not asked again in this run (--no-debuginfod: never)\n",
						for_path, build_id_hex,
						timed_out ? "timed out" : strerror(-fd), took);
			}
		}
	}
	pthread_mutex_unlock(&c->lock);
	return path;
}
