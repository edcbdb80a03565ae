/* Symbol tables read ahead of need (see preload.h). */
#include "symbolize/preload.h"
#include "symbolize/internal.h"

#include "base/alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The largest files first: they take longest to read, and a lookup that
 * needs one waits for it. */
struct sized {
	struct dso *d;
	const char *path;
	off_t size;
};

static int larger_first(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;
	return (x->size < y->size) - (x->size > y->size);
}

static int by_dso(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct sized *)a)->d, y = (uintptr_t)((const struct sized *)b)->d;
	return (x > y) - (x < y);
}

/* v[0..n) with each DSO once (a header's build-id table can name a path
 * twice: two builds of one file); returns the new count. Each DSO must be
 * taken once from the cursor: at -j1 the two threads read without locks. */
static size_t unique_dsos(struct sized *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_dso);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (!kept || v[kept - 1].d != v[i].d)
			v[kept++] = v[i];
	return kept;
}

struct sym_preload {
	struct symbolizer *s;
	struct dso *kernel; /* read first unless files_first */
	struct dso **dsos;  /* made on the calling thread: fixed addresses */
	size_t nr;
	atomic_size_t next; /* dsos[next..] are not taken yet */
	atomic_bool stop;
	atomic_bool kernel_done; /* the thread is past the kernel's symbols */
	/* files_first: the thread takes files before the kernel's symbols,
	   and says under mu (files_cond) when it takes no more */
	bool files_first;
	bool files_done;
	pthread_mutex_t mu;
	pthread_cond_t files_cond;
	bool joined;
	pthread_t thread;
};

/* Read the tables of the dsos not taken yet, one at a time: the thread
 * and (sym_preload_finish) the calling thread share them, each DSO read
 * by one of them. */
static void prepare_dsos(struct sym_preload *p)
{
	while (!atomic_load(&p->stop)) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->nr)
			break;
		sym_dso_prepare(p->s, p->dsos[i]);
	}
}

static void *preload_main(void *arg)
{
	struct sym_preload *p = arg;
	if (p->files_first) {
		prepare_dsos(p);
		pthread_mutex_lock(&p->mu);
		p->files_done = true;
		pthread_cond_signal(&p->files_cond);
		pthread_mutex_unlock(&p->mu);
	}
	if (p->kernel)
		sym_kernel_prepare(p->s, p->kernel);
	/* seq_cst, before the thread takes a file: see sym_preload_files */
	atomic_store(&p->kernel_done, true);
	prepare_dsos(p);
	return NULL;
}

/* A file's path as MMAP records name it (not [kernel.kallsyms], [vdso],
 * a JIT map or an anonymous mapping, whose DSOs are made otherwise). */
static bool file_path(const char *path)
{
	static const char *const not_files[] = { "/tmp/perf-", "/SYSV", "/dev/zero", "/anon_hugepage", "//anon" };
	if (path[0] != '/')
		return false;
	for (size_t i = 0; i < sizeof(not_files) / sizeof(not_files[0]); i++)
		if (!strncmp(path, not_files[i], strlen(not_files[i])))
			return false;
	return true;
}

/* p with the kernel's and the files' DSOs of paths[0..n) (made here, on
 * the calling thread), the largest files first. */
static struct sym_preload *preload_new(struct symbolizer *s, const char *const *paths, size_t n)
{
	struct sym_preload *p = xcalloc(1, sizeof(*p));
	p->s = s;
	p->dsos = xreallocarray(NULL, n ? n : 1, sizeof(*p->dsos));
	struct sized *by_size = xreallocarray(NULL, n ? n : 1, sizeof(*by_size));
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(paths[i], "[kernel.kallsyms]"))
			p->kernel = sym_kernel_dso(s);
		else if (file_path(paths[i]))
			by_size[p->nr++] = (struct sized){ sym_file_dso(s, paths[i]), paths[i], 0 };
	}
	p->nr = unique_dsos(by_size, p->nr);
	for (size_t i = 0; i < p->nr; i++) {
		struct stat st;
		by_size[i].size = stat(by_size[i].path, &st) ? 0 : st.st_size;
	}
	qsort(by_size, p->nr, sizeof(*by_size), larger_first);
	for (size_t i = 0; i < p->nr; i++)
		p->dsos[i] = by_size[i].d;
	free(by_size);
	return p;
}

static void preload_free(struct sym_preload *p)
{
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->files_cond);
	free(p->dsos);
	free(p);
}

static struct sym_preload *start(struct sym_preload *p)
{
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->files_cond, NULL);
	if ((!p->nr && !p->kernel) || pthread_create(&p->thread, NULL, preload_main, p)) {
		preload_free(p);
		return NULL;
	}
	return p;
}

struct sym_preload *sym_preload_start(struct symbolizer *s, const char *const *paths, size_t n)
{
	struct sym_preload *p = preload_new(s, paths, n);
	s->threaded = true;
	return start(p);
}

struct sym_preload *sym_preload_kernel(struct symbolizer *s, const char *const *paths, size_t n, bool files_first)
{
	struct sym_preload *p = preload_new(s, paths, n);
	p->files_first = files_first;
	return start(p);
}

void sym_preload_finish(struct sym_preload *p)
{
	if (!p)
		return;
	prepare_dsos(p);
	sym_preload_stop(p);
}

struct sym_preload *sym_preload_files(struct sym_preload *p)
{
	if (!p)
		return NULL;
	prepare_dsos(p); /* the cursor is now past the end */
	if (p->files_first) {
		/* it may be reading a file it took; then it reads the
		   kernel's symbols only */
		pthread_mutex_lock(&p->mu);
		while (!p->files_done)
			pthread_cond_wait(&p->files_cond, &p->mu);
		pthread_mutex_unlock(&p->mu);
		return p;
	}
	/* The thread stores kernel_done before it takes a file, and every
	   atomic here is sequentially consistent: if it is not done yet, its
	   own take comes after the last one above and finds nothing, so it
	   touches the kernel's DSO only. If it is done, it may be reading a
	   file it took: wait for it. */
	if (atomic_load(&p->kernel_done)) {
		pthread_join(p->thread, NULL);
		p->joined = true;
	}
	return p;
}

bool sym_preload_kernel_ready(struct sym_preload *p)
{
	return atomic_load(&p->kernel_done);
}

void sym_preload_stop(struct sym_preload *p)
{
	if (!p)
		return;
	atomic_store(&p->stop, true);
	if (!p->joined)
		pthread_join(p->thread, NULL);
	preload_free(p);
}
