/* Threads, address spaces and DSOs: perf's machine/thread/maps model (see
 * symbolize.h), reduced to what symbol lookup needs. */
#include "symbolize/symbolize.h"
#include "symbolize/internal.h"

#include "addrspace/unwind.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "symbolize/demangle.h"
#include "symbolize/kallsyms.h"
#ifdef HAVE_ELFUTILS
#include "symbolize/debuginfod_client.h"
#include "symbolize/elf_symbols.h"
#include "symbolize/inline.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *intern(struct symbolizer *s, const char *str, size_t n)
{
	return strpool_str(&s->strs, strpool_intern(&s->strs, str, n));
}

struct symbolizer *symbolizer_new(const struct sym_options *opts)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));
	if (opts)
		s->opts = *opts;
	strpool_init(&s->strs);
	hashmap_init(&s->tid_map);
	hashmap_init(&s->dso_map);
	hashmap_init(&s->dso_id_map);
	hashmap_init(&s->build_id_map);
	hashmap_init(&s->perfmap_owner);
#ifdef HAVE_ELFUTILS
	if (!s->opts.no_debuginfod)
		s->debuginfod = debuginfo_client_new(s->opts.debuginfod_notices);
#endif
	procmaps_init(&s->maps);
	if (s->opts.debug_home) {
		s->debug_home = xstrdup(s->opts.debug_home);
	} else {
		const char *home = getenv("HOME");
		if (home && *home) {
			size_t l = strlen(home);
			s->debug_home = xmalloc(l + 8);
			memcpy(s->debug_home, home, l);
			memcpy(s->debug_home + l, "/.debug", 8);
		}
	}
	s->kernel_dso = UINT32_MAX;
	s->last_thread = UINT32_MAX;
	s->cache = xcalloc(LOOKUP_SLOTS, sizeof(*s->cache));
	/* perf registers the idle task as "swapper" (pid 0, tid 0). */
	sym_comm(s, 0, 0, "swapper", 7, false);
	return s;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	unwinder_free(s->unwinder); /* user_stack.c made it */
	for (size_t i = 0; i < s->nr_dsos; i++) {
		struct dso *d = s->dsos[i];
		symtab_release(&d->syms);
		free(d->runtime_path);
		free(d->symsrc_path);
		free(d->unopened_path);
		hashmap_release(&d->inline_cache);
		free(d->chain_items);
		strpool_release(&d->chain_names);
		free(d->image);
		free(d->jit);
		pthread_mutex_destroy(&d->lock);
		free(d);
	}
	free(s->dsos);
	procmaps_release(&s->maps);
	free(s->threads);
	free(s->map_paths);
	free(s->bids);
	free(s->cache);
	hashmap_release(&s->perfmap_owner);
#ifdef HAVE_ELFUTILS
	debuginfo_client_free(s->debuginfod);
#endif
#ifdef HAVE_ELFUTILS
	inline_resolver_free(s->inline_dw);
#endif
	free(s->debug_home);
	hashmap_release(&s->tid_map);
	hashmap_release(&s->dso_map);
	hashmap_release(&s->dso_id_map);
	hashmap_release(&s->build_id_map);
	strpool_release(&s->strs);
	free(s);
}

void sym_add_build_id(struct symbolizer *s, const char *path, const uint8_t *id, size_t id_len)
{
	if (!id_len)
		return;
	uint32_t key = strpool_intern(&s->strs, path, strlen(path));
	bool ins;
	hashmap_upsert(&s->build_id_map, key, (uint32_t)s->nr_bids, &ins);
	if (!ins)
		return; /* first one wins */
	VEC_GROW(s->bids, s->nr_bids + 1, s->bids_alloc);
	memcpy(s->bids[s->nr_bids].id, id, id_len > 20 ? 20 : id_len);
	s->bids[s->nr_bids].len = (uint8_t)(id_len > 20 ? 20 : id_len);
	s->nr_bids++;
}

static size_t lookup_build_id(struct symbolizer *s, const char *path, uint8_t id[20])
{
	uint32_t key = strpool_find(&s->strs, path, strlen(path));
	uint32_t idx;
	if (key == UINT32_MAX || !hashmap_get(&s->build_id_map, key, &idx))
		return 0;
	memcpy(id, s->bids[idx].id, s->bids[idx].len);
	return s->bids[idx].len;
}

size_t sym_dso_build_id(struct symbolizer *s, const char *dso, bool running_kernel, uint8_t id[20])
{
	uint32_t key = strpool_find(&s->strs, dso, strlen(dso)), idx;
	if (key != UINT32_MAX && hashmap_get(&s->dso_map, key, &idx) && s->dsos[idx]->build_id_len) {
		memcpy(id, s->dsos[idx]->build_id, s->dsos[idx]->build_id_len);
		return s->dsos[idx]->build_id_len;
	}
	size_t n = lookup_build_id(s, dso, id);
	if (n)
		return n;
	if (!strcmp(dso, "[kernel.kallsyms]"))
		return running_kernel ? kernel_build_id(id) : 0;
#ifdef HAVE_ELFUTILS
	if (dso[0] == '/' && strncmp(dso, "/tmp/perf-", 10)) {
		char path[4096];
		if (s->opts.symfs)
			snprintf(path, sizeof(path), "%s%s", s->opts.symfs, dso);
		return elf_file_build_id(s->opts.symfs ? path : dso, id);
	}
#endif
	return 0;
}

/* ---- threads ------------------------------------------------------------- */

static uint32_t find_thread(struct symbolizer *s, int32_t tid)
{
	uint32_t idx;
	if (hashmap_get(&s->tid_map, (uint32_t)tid, &idx))
		return idx;
	return UINT32_MAX;
}

static uint32_t create_thread(struct symbolizer *s, int32_t pid, int32_t tid);

static uint32_t findnew_thread(struct symbolizer *s, int32_t pid, int32_t tid)
{
	if (s->last_thread != UINT32_MAX && s->last_tid == tid && s->last_pid == pid)
		return s->last_thread;
	uint32_t idx = find_thread(s, tid);
	if (idx != UINT32_MAX) {
		struct thread *th = &s->threads[idx];
		if (th->pid == -1 && pid != -1 && pid != th->pid) {
			/* perf's machine__update_thread_pid: join the leader's maps. */
			th->pid = pid;
			if (pid != tid) {
				uint32_t leader = findnew_thread(s, pid, pid);
				s->threads[idx].as = s->threads[leader].as;
			}
		}
		s->last_pid = pid;
		s->last_tid = tid;
		s->last_thread = idx;
		return idx;
	}
	return create_thread(s, pid, tid);
}

static uint32_t create_thread(struct symbolizer *s, int32_t pid, int32_t tid)
{
	uint32_t as;
	if (pid == -1 || pid == tid) {
		as = procmaps_space_new(&s->maps);
	} else {
		uint32_t leader = findnew_thread(s, pid, pid);
		as = s->threads[leader].as;
	}
	s->last_thread = UINT32_MAX; /* the tid may now map elsewhere */
	VEC_GROW(s->threads, s->nr_threads + 1, s->threads_alloc);
	uint32_t idx = (uint32_t)s->nr_threads++;
	struct thread *th = &s->threads[idx];
	th->pid = pid;
	th->tid = tid;
	th->comm = NULL; /* ":TID", made when asked (most threads never are) */
	th->comm_set = false;
	th->as = as;
	bool ins;
	*hashmap_upsert(&s->tid_map, (uint32_t)tid, idx, &ins) = idx;
	return idx;
}

void sym_comm(struct symbolizer *s, int32_t pid, int32_t tid, const char *comm, size_t comm_len,
	      bool exec)
{
	(void)exec; /* perf keeps the maps on exec; new mmaps replace them */
	uint32_t t = findnew_thread(s, pid, tid);
	s->threads[t].comm = intern(s, comm, comm_len);
	s->threads[t].comm_set = true;
}

void sym_fork(struct symbolizer *s, int32_t pid, int32_t ppid, int32_t tid, int32_t ptid)
{
	uint32_t parent = findnew_thread(s, ppid, ptid);
	/* An existing thread with this tid is replaced (tid reuse). */
	uint32_t child = create_thread(s, pid, tid);
	struct thread *p = &s->threads[parent], *c = &s->threads[child];
	if (p->comm_set) {
		c->comm = p->comm;
		c->comm_set = true;
	}
	if (c->pid == p->pid || c->as == p->as)
		return;
	procmaps_space_copy(&s->maps, c->as, p->as); /* c->as is new: a copy */
}

void sym_exit(struct symbolizer *s, int32_t pid, int32_t tid)
{
	(void)s; /* perf only marks the thread dead; it keeps resolving */
	(void)pid;
	(void)tid;
}

/* Thread t's comm: the one set, else perf's ":TID". */
static const char *thread_comm(struct symbolizer *s, uint32_t t)
{
	struct thread *th = &s->threads[t];
	if (!th->comm) {
		char comm[16];
		int n = snprintf(comm, sizeof(comm), ":%" PRId32, th->tid);
		th->comm = intern(s, comm, (size_t)n);
	}
	return th->comm;
}

const char *sym_thread_comm(struct symbolizer *s, int32_t pid, int32_t tid)
{
	return thread_comm(s, findnew_thread(s, pid, tid));
}

const char *sym_sample_thread(struct symbolizer *s, int32_t pid, int32_t tid, uint32_t *space)
{
	uint32_t t = findnew_thread(s, pid, tid); /* may move s->threads */
	*space = s->threads[t].as;
	return thread_comm(s, t);
}

/* ---- DSOs ------------------------------------------------------------------ */

static uint32_t new_dso(struct symbolizer *s, uint32_t key, enum dso_kind kind, bool header_id)
{
	VEC_GROW(s->dsos, s->nr_dsos + 1, s->dsos_alloc);
	struct dso *d = xcalloc(1, sizeof(*d)); /* at a fixed address: fold threads keep it */
	s->dsos[s->nr_dsos] = d;
	pthread_mutex_init(&d->lock, NULL);
	d->name = strpool_str(&s->strs, key);
	d->kind = kind;
	symtab_init(&d->syms);
	hashmap_init(&d->inline_cache);
	strpool_init(&d->chain_names);
	if (header_id)
		d->build_id_len = (uint8_t)lookup_build_id(s, d->name, d->build_id);
	return (uint32_t)s->nr_dsos++;
}

/* The first DSO named by interned string key (made of kind when new). */
static uint32_t findnew_dso_key(struct symbolizer *s, uint32_t key, enum dso_kind kind)
{
	bool ins;
	uint32_t *v = hashmap_upsert(&s->dso_map, key, (uint32_t)s->nr_dsos, &ins);
	if (!ins)
		return *v;
	return new_dso(s, key, kind, true);
}

static uint32_t findnew_dso(struct symbolizer *s, const char *name, enum dso_kind kind)
{
	return findnew_dso_key(s, strpool_intern(&s->strs, name, strlen(name)), kind);
}

/* perf tells DSOs apart by path and file identity (dev, inode, inode
 * generation; a generation of 0, as in MMAP2 records synthesized from
 * /proc at record start, matches any). The DSO that carries the header's
 * build-id for a path has no identity until a kernel MMAP2 gives it one;
 * a file with another identity at that path (a binary rebuilt during the
 * capture) is a DSO of its own, without the recorded build-id, read as it
 * is on disk. This reproduces what perf script prints for such captures. */
static uint32_t findnew_dso_id(struct symbolizer *s, uint32_t key, const struct sym_mmap *m)
{
	uint32_t first = findnew_dso_key(s, key, DSO_FILE);
	if (!m->maj && !m->min && !m->ino && !m->ino_generation)
		return first;
	uint64_t idkey = hash_mix(((uint64_t)key << 32 | m->maj) + 1, hash_u64(m->ino ^ ((uint64_t)m->min << 48)));
	uint32_t idx;
	if (hashmap_get(&s->dso_id_map, idkey, &idx)) {
		struct dso *d = s->dsos[idx];
		if (d->maj == m->maj && d->min == m->min && d->ino == m->ino &&
		    (!d->ino_generation || !m->ino_generation || d->ino_generation == m->ino_generation))
			return idx;
	}
	struct dso *f = s->dsos[first];
	bool f_empty = !f->maj && !f->min && !f->ino && !f->ino_generation;
	if (f_empty && !m->ino_generation)
		return first; /* synthesized: matches, gives no identity */
	idx = f_empty ? first : new_dso(s, key, DSO_FILE, false);
	struct dso *d = s->dsos[idx];
	d->maj = m->maj;
	d->min = m->min;
	d->ino = m->ino;
	d->ino_generation = m->ino_generation;
	bool ins;
	*hashmap_upsert(&s->dso_id_map, idkey, idx, &ins) = idx;
	return idx;
}

/* The vdso of this process: perf script uses its own, checked by build-id. */
static void load_vdso(struct symbolizer *s, struct dso *d)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	FILE *f = fopen("/proc/self/maps", "r");
	uint64_t start = 0, end = 0;
	if (f) {
		char line[512];
		while (fgets(line, sizeof(line), f)) {
			if (!strstr(line, "[vdso]"))
				continue;
			if (sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) != 2)
				start = end = 0;
			break;
		}
		fclose(f);
	}
	(void)s;
	if (!base || start != base || end <= start)
		return;
	d->image_len = (size_t)(end - start);
	d->image = xmalloc(d->image_len);
	memcpy(d->image, (const void *)(uintptr_t)start, d->image_len);
}

void sym_perfmap_owner(struct symbolizer *s, int32_t pid, uint32_t uid)
{
	bool inserted;
	*hashmap_upsert(&s->perfmap_owner, (uint32_t)pid, uid + 1, &inserted) = uid + 1;
}

void sym_perfmap_owner_gone(struct symbolizer *s, int32_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/tmp/perf-%" PRId32 ".map", pid);
	if (lstat(path, &st) && errno == ENOENT)
		hashmap_remove(&s->perfmap_owner, (uint32_t)pid);
}

/* A missed lookup in a perf map looks at the file again at most this
 * often: a JIT appends to it, or rewrites it, while the samples are read. */
enum { PERFMAP_RECHECK_NS = 100 * 1000 * 1000 };

/* Read d's perf map (first time: as perf, once; later: what changed). */
static int refresh_jit(struct symbolizer *s, struct dso *d, int64_t interval_ns)
{
	if (!d->jit) {
		d->jit = xcalloc(1, sizeof(*d->jit));
		int32_t pid = 0;
		uint32_t uid = 0;
		d->jit->owner = geteuid();
		if (sscanf(d->name, "/tmp/perf-%" SCNd32 ".map", &pid) == 1 &&
		    hashmap_get(&s->perfmap_owner, (uint32_t)pid, &uid) && uid)
			d->jit->owner = (uid_t)(uid - 1);
		d->jit->force = s->opts.perfmap_force;
	}
	int got = perfmap_refresh(&d->syms, d->name, d->jit, interval_ns);
	char why[128];
	struct stat st = { .st_uid = 0 };
	if (got < 0 && s->opts.perfmap_warn && !d->jit->warned && d->jit->refusal != PERFMAP_ABSENT) {
		struct stat sb;
		if (!lstat(d->name, &sb))
			st = sb;
		const char *text = perfmap_refusal_text(d->jit->refusal, why, sizeof(why), d->jit->owner, &st);
		if (text) {
			d->jit->warned = true;
			fprintf(stderr, "scorch: warning: %s: %s: ignored%s\n", d->name, text,
				d->jit->refusal == PERFMAP_OWNER ? " (--force reads it)" : "");
		}
	}
	return got;
}

static void load_dso(struct symbolizer *s, struct dso *d)
{
	d->loaded = true;
	switch (d->kind) {
	case DSO_JIT:
		refresh_jit(s, d, 0);
		return;
	case DSO_NOSYMS:
	case DSO_KERNEL:
	case DSO_MODULE:
		return;
	case DSO_VDSO:
		load_vdso(s, d);
		if (!d->image)
			return;
		break;
	case DSO_FILE:
		break;
	}
#ifdef HAVE_ELFUTILS
	struct elf_load_req req = {
		.path = d->name,
		.symfs = s->opts.symfs,
		.build_id = d->build_id_len ? d->build_id : NULL,
		.build_id_len = d->build_id_len,
		.debug_home = s->debug_home,
		.demangle = !s->opts.no_demangle,
		.image = d->image,
		.image_len = d->image_len,
		.debuginfod = d->kind == DSO_FILE ? s->debuginfod : NULL,
	};
	struct elf_load_info info;
	int got = elf_load_symbols(&d->syms, &req, &info);
	d->open_errno = info.open_errno;
	free(d->unopened_path); /* (read before, its tables dropped for the budget) */
	d->unopened_path = info.unopened_path;
	d->runtime_path = info.runtime_path;
	d->symsrc_path = info.symsrc_path;
	d->text_offset = info.text_offset;
	if (got < 0 && d->image) {
		/* not the recorded vdso (another kernel): unusable for unwinding */
		free(d->image);
		d->image = NULL;
	}
	if (got < 0 && d->kind == DSO_VDSO &&
	    d->build_id_len && s->debug_home) {
		/* A vdso of another kernel: perf's build-id cache copy. */
		char path[4096], hex[41];
		for (size_t i = 0; i < d->build_id_len; i++)
			sprintf(hex + 2 * i, "%02x", d->build_id[i]);
		snprintf(path, sizeof(path), "%s/[vdso]/%s/vdso", s->debug_home, hex);
		struct elf_load_req r2 = req;
		r2.image = NULL;
		r2.path = path;
		r2.symfs = NULL;
		free(d->image);
		d->image = NULL;
		if (elf_load_symbols(&d->syms, &r2, &info) >= 0) {
			d->runtime_path = info.runtime_path;
			d->symsrc_path = info.symsrc_path;
			d->text_offset = info.text_offset;
		}
		free(info.unopened_path); /* a cache copy: the vdso's own is what counts */
	}
#endif
}

/* ---- the budget of the files' tables (sym_options.symbols_budget) ---- */

static size_t chain_bytes(const struct dso *d)
{
	return d->chain_items_alloc * sizeof(*d->chain_items) + hashmap_bytes(&d->inline_cache) +
	       strpool_bytes(&d->chain_names);
}

static void lru_unlink(struct symbolizer *s, struct dso *d)
{
	if (d->newer)
		d->newer->older = d->older;
	else
		s->newest = d->older;
	if (d->older)
		d->older->newer = d->newer;
	else
		s->oldest = d->newer;
	d->newer = d->older = NULL;
}

static void lru_push(struct symbolizer *s, struct dso *d)
{
	d->older = s->newest;
	d->newer = NULL;
	if (s->newest)
		s->newest->newer = d;
	s->newest = d;
	if (!s->oldest)
		s->oldest = d;
}

/* d's tables go: read again at its next lookup, as at its first. */
static void dso_evict(struct symbolizer *s, struct dso *d)
{
	lru_unlink(s, d);
	d->in_lru = false;
	s->symbols_bytes -= d->bytes;
	d->bytes = 0;
	symtab_release(&d->syms);
	symtab_init(&d->syms);
	hashmap_release(&d->inline_cache);
	hashmap_init(&d->inline_cache);
	free(d->chain_items);
	d->chain_items = NULL;
	d->nr_chain_items = d->chain_items_alloc = 0;
	strpool_release(&d->chain_names);
	strpool_init(&d->chain_names);
	free(d->runtime_path);
	free(d->symsrc_path);
	d->runtime_path = d->symsrc_path = NULL;
	d->loaded = false;
	s->symbols_evicted++;
	s->epoch++; /* the lookup cache's names of it are gone */
}

/* d was just used: the newest, its bytes counted again, and the oldest
 * files' tables dropped while over the budget (never d's). */
static void dso_used(struct symbolizer *s, struct dso *d)
{
	if (!s->opts.symbols_budget || s->threaded || d->kind != DSO_FILE || !d->loaded)
		return;
	if (!d->in_lru) {
		d->in_lru = true;
		lru_push(s, d);
	} else if (s->newest != d) {
		lru_unlink(s, d);
		lru_push(s, d);
	}
	size_t now = symtab_bytes(&d->syms) + chain_bytes(d);
	s->symbols_bytes += now - d->bytes;
	d->bytes = now;
	while (s->symbols_bytes > s->opts.symbols_budget && s->oldest && s->oldest != d)
		dso_evict(s, s->oldest);
}

void sym_symbols_held(const struct symbolizer *s, size_t *bytes, uint64_t *evicted)
{
	*bytes = s->symbols_bytes;
	*evicted = s->symbols_evicted;
}

static void dso_lock(struct symbolizer *s, struct dso *d)
{
	if (s->threaded)
		pthread_mutex_lock(&d->lock);
}

static void dso_unlock(struct symbolizer *s, struct dso *d)
{
	if (s->threaded)
		pthread_mutex_unlock(&d->lock);
}

size_t sym_unopened(struct symbolizer *s, void (*fn)(void *arg, const char *dso, const char *path, int err),
		    void *arg)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nr_dsos; i++) {
		struct dso *d = s->dsos[i];
		dso_lock(s, d);
		int err = d->loaded ? d->open_errno : 0;
		dso_unlock(s, d);
		if (!err)
			continue;
		n++;
		if (fn)
			fn(arg, d->name, d->unopened_path, err);
	}
	return n;
}

void sym_perfmap_extra(struct symbolizer *s, int32_t pid, const char *text, size_t len)
{
	char jit[64];
	snprintf(jit, sizeof(jit), "/tmp/perf-%" PRId32 ".map", pid);
	uint32_t idx = findnew_dso(s, jit, DSO_JIT); /* may move s->dsos */
	struct dso *d = s->dsos[idx];
	dso_lock(s, d);
	perfmap_parse(&d->syms, text, len);
	dso_unlock(s, d);
}

void sym_perfmap_release(struct symbolizer *s, int32_t pid)
{
	char jit[64];
	uint32_t idx;
	int n = snprintf(jit, sizeof(jit), "/tmp/perf-%" PRId32 ".map", pid);
	uint32_t key = strpool_find(&s->strs, jit, (size_t)n);
	hashmap_remove(&s->perfmap_owner, (uint32_t)pid);
	if (key == UINT32_MAX || !hashmap_get(&s->dso_map, key, &idx) || s->dsos[idx]->kind != DSO_JIT)
		return;
	struct dso *d = s->dsos[idx];
	dso_lock(s, d);
	symtab_release(&d->syms);
	symtab_init(&d->syms);
	free(d->jit);
	d->jit = NULL;
	d->loaded = false;
	dso_unlock(s, d);
	s->epoch++; /* the lookup cache's names of it are gone */
}

struct dso *sym_file_dso(struct symbolizer *s, const char *path)
{
	uint32_t idx = findnew_dso(s, path, DSO_FILE); /* may move s->dsos */
	return s->dsos[idx];
}

void sym_dso_prepare(struct symbolizer *s, struct dso *d)
{
	dso_lock(s, d);
	if (!d->loaded)
		load_dso(s, d);
	uint64_t lo, hi;
	symtab_bounds(&d->syms, &lo, &hi); /* sorts it for lookups */
	dso_unlock(s, d);
	dso_used(s, d);
}

struct dso *sym_dso_loaded(struct symbolizer *s, uint32_t idx)
{
	struct dso *d = s->dsos[idx];
	dso_lock(s, d);
	if (!d->loaded)
		load_dso(s, d);
	dso_unlock(s, d);
	dso_used(s, d);
	return d;
}

/* ---- maps ------------------------------------------------------------------- */

void sym_reserve(struct symbolizer *s, uint64_t mmaps, uint64_t forks)
{
	procmaps_reserve(&s->maps, mmaps, forks);
	VEC_RESERVE(s->threads, s->nr_threads + forks, s->threads_alloc);
	if (forks < SIZE_MAX / 16 - s->nr_threads)
		hashmap_reserve(&s->tid_map, s->nr_threads + (size_t)forks);
}

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

void sym_mmap(struct symbolizer *s, const struct sym_mmap *m)
{
	const char *fn = m->filename;
	size_t nr_before = s->nr_dsos;
	if (m->kernel || m->pid == -1) {
		if (starts(fn, "[kernel.kallsyms]") || starts(fn, "[guest.kernel.kallsyms")) {
			s->kmap_start = m->start;
			s->kmap_end = m->start + m->len;
			if (s->kmap_end < s->kmap_start || !m->len)
				s->kmap_end = UINT64_MAX;
			s->kref = m->pgoff;
			s->have_kmap = true;
			s->kgen++;
			if (s->kernel_dso == UINT32_MAX)
				s->kernel_dso = findnew_dso(s, "[kernel.kallsyms]", DSO_KERNEL);
		}
		return; /* modules: not resolved (none on the machines we target) */
	}
	uint32_t t = findnew_thread(s, m->pid, m->tid);
	uint32_t asi = s->threads[t].as;
	/* perf's names of memory without a file (only those begin "//",
	   "/d", "/a", "/S" or "[") */
	bool anon = m->flags & 0x40000 /* MAP_HUGETLB */, vdso = false, no_dso = false;
	if (fn[0] == '/' && (fn[1] == '/' || fn[1] == 'd' || fn[1] == 'a' || fn[1] == 'S')) {
		anon |= !strcmp(fn, "//anon") || starts(fn, "/dev/zero") || starts(fn, "/anon_hugepage");
		no_dso = starts(fn, "/SYSV");
	} else if (fn[0] == '[') {
		vdso = !strcmp(fn, "[vdso]");
		no_dso = starts(fn, "[stack") || !strcmp(fn, "[heap]");
	}
	uint64_t pgoff = m->pgoff;
	uint32_t dso;
	if (m->start + m->len <= m->start)
		return;
	size_t fn_len = strlen(fn);
	uint32_t key = strpool_intern(&s->strs, fn, fn_len);
	char jit[64];
	if ((anon || no_dso) && (m->prot & PROT_EXEC)) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%" PRId32 ".map", m->pid);
		dso = findnew_dso(s, jit, DSO_JIT);
	} else if (vdso) {
		pgoff = 0;
		dso = findnew_dso_key(s, key, DSO_VDSO);
	} else if (anon || no_dso) {
		dso = findnew_dso_key(s, key, DSO_NOSYMS);
	} else {
		dso = findnew_dso_id(s, key, m);
		struct dso *d = s->dsos[dso];
		if (m->build_id_len && !d->build_id_len) {
			/* Lookups of earlier samples load it without (report -j:
			   they run first) */
			if (s->quiesce && dso < nr_before)
				s->quiesce(s->quiesce_arg);
			size_t l = m->build_id_len > 20 ? 20 : m->build_id_len;
			memcpy(d->build_id, m->build_id, l);
			d->build_id_len = (uint8_t)l;
		}
	}
	/* A new map replaces the parts of older ones it overlaps, as perf's
	 * maps__fixup_overlappings does (procmaps.h). */
	VEC_GROW_ZEROED(s->map_paths, (size_t)key + 1, s->map_paths_alloc);
	if (!s->map_paths[key])
		s->map_paths[key] = procmaps_path(&s->maps, fn, fn_len) + 1;
	procmaps_space_add_path(&s->maps, asi, (uint32_t)m->pid, m->start, m->start + m->len, pgoff,
				s->map_paths[key] - 1, dso | (anon || no_dso ? MAP_IDENTITY : 0));
}

/* ---- kernel ------------------------------------------------------------------ */

static void hexstr(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* The kernel's symbols into d, once: the kallsyms the options or the
 * header's build-id name (read ahead by symbolize/preload.c, or on the
 * first lookup that needs them). Called with d's lock. */
static void read_kallsyms(struct symbolizer *s, struct dso *d)
{
	if (d->kallsyms_read)
		return;
	d->kallsyms_read = true;
	const char *path = s->opts.kallsyms;
	char buf[4096];
	if (!path) {
		/* perf's choice: /proc/kallsyms when the recorded kernel runs,
		 * else the copy in the build-id cache. Where the recorded
		 * kernel runs, the copy perf record made in this boot is read
		 * instead: the kernel's own symbols (report resolves no
		 * module's) are listed the same, which the lines up to its
		 * first text symbol show, and a file reads faster than the
		 * kernel formats /proc/kallsyms. */
		path = "/proc/kallsyms";
		if (d->build_id_len) {
			uint8_t run[20];
			size_t rl = kernel_build_id(run);
			char hex[41];
			hexstr(hex, d->build_id, d->build_id_len);
			snprintf(buf, sizeof(buf), "%s/[kernel.kallsyms]/%s/kallsyms", s->debug_home ? s->debug_home : "",
				 hex);
			if (rl != d->build_id_len || memcmp(run, d->build_id, rl) || kallsyms_same_layout(buf, path))
				path = buf;
		}
	}
	d->kallsyms_ok = kallsyms_load(&d->syms, path, &d->ktext) >= 0;
	uint64_t lo, hi;
	if (d->kallsyms_ok)
		symtab_bounds(&d->syms, &lo, &hi); /* sorts it for lookups */
}

void sym_kernel_prepare(struct symbolizer *s, struct dso *d)
{
	dso_lock(s, d);
	read_kallsyms(s, d);
	dso_unlock(s, d);
}

struct dso *sym_kernel_dso(struct symbolizer *s)
{
	uint32_t idx = findnew_dso(s, "[kernel.kallsyms]", DSO_KERNEL); /* may move s->dsos */
	return s->dsos[idx];
}

static void load_kernel(struct symbolizer *s, struct dso *d)
{
	d->loaded = true;
	dso_lock(s, d);
	read_kallsyms(s, d);
	uint64_t lo, hi;
	bool bounds = d->kallsyms_ok && symtab_bounds(&d->syms, &lo, &hi);
	dso_unlock(s, d);
	if (!d->kallsyms_ok)
		return;
	uint64_t text = d->ktext;
	if (text && s->kref)
		s->kdelta = (int64_t)(text - s->kref);
	/* perf's map__fixup_start/end after loading: the kernel map then spans
	 * every kallsyms symbol (init text, data), not just the recorded range. */
	s->kgen++;
	if (bounds) {
		s->kmap_start = lo - (uint64_t)s->kdelta;
		s->kmap_end = hi - (uint64_t)s->kdelta;
	}
}

/* ---- lookup -------------------------------------------------------------------- */

uint64_t sym_space_version(struct symbolizer *s, int32_t pid, int32_t tid)
{
	uint32_t t = findnew_thread(s, pid, tid); /* may move s->threads */
	uint32_t as = s->threads[t].as;
	return sym_version_of(as, procmaps_space_gen(&s->maps, as), s->kgen);
}

uint32_t sym_thread_space(struct symbolizer *s, int32_t pid, int32_t tid)
{
	uint32_t t = findnew_thread(s, pid, tid); /* may move s->threads */
	return s->threads[t].as;
}

static const struct mapping *find_map(struct symbolizer *s, int32_t pid, int32_t tid, uint64_t ip)
{
	uint32_t t = findnew_thread(s, pid, tid);
	return procmaps_space_find(&s->maps, s->threads[t].as, ip);
}

int sym_dso_symbol(struct symbolizer *s, struct dso *d, uint64_t a, bool load, struct sym_frame *f)
{
	dso_lock(s, d);
	if (load && !d->loaded)
		load_dso(s, d);
	struct symbol *sy = symtab_find(&d->syms, a);
	if (!sy && d->kind == DSO_JIT && refresh_jit(s, d, PERFMAP_RECHECK_NS) > 0)
		sy = symtab_find(&d->syms, a);
	if (sy) {
		f->name = symtab_name(&d->syms, sy);
		f->offset = a - sy->start;
	}
	dso_unlock(s, d);
	dso_used(s, d);
	return sy ? 0 : 1;
}

uint64_t sym_lookup_stamp(const struct symbolizer *s, uint32_t space, bool is_kernel)
{
	if (is_kernel)
		return s->kgen;
	return ((uint64_t)space + 1) << 32 | procmaps_space_gen(&s->maps, space); /* above any kgen */
}

int sym_lookup_in(struct symbolizer *s, uint32_t as, uint64_t ip, bool is_kernel, struct sym_frame *f)
{
	if (is_kernel) {
		sym_frame_unknown(f, ip);
		if (s->kernel_dso == UINT32_MAX) {
			s->kernel_dso = findnew_dso(s, "[kernel.kallsyms]", DSO_KERNEL);
			s->kmap_start = 0;
			s->kmap_end = UINT64_MAX;
		}
		if (ip < s->kmap_start || ip >= s->kmap_end)
			return 1;
		struct dso *d = s->dsos[s->kernel_dso];
		if (!d->loaded) {
			load_kernel(s, d);
			if (ip < s->kmap_start || ip >= s->kmap_end)
				return 1;
		}
		f->dso = d->name;
		f->have_map = true;
		uint64_t a = ip + (uint64_t)s->kdelta;
		return sym_dso_symbol(s, d, a, false, f);
	}
	struct dso *d = sym_map_in(s, as, ip, f);
	return d ? sym_symbol_in(s, d, f) : 1;
}

struct dso *sym_map_in(struct symbolizer *s, uint32_t as, uint64_t ip, struct sym_frame *f)
{
	sym_frame_unknown(f, ip);
	const struct mapping *m = procmaps_space_find(&s->maps, as, ip);
	if (!m)
		return NULL;
	struct dso *d = s->dsos[map_dso(m)];
	f->dso = d->name;
	f->dso_addr = map_identity(m) ? ip : ip - m->start + m->pgoff;
	f->have_map = true;
	return d;
}

int sym_symbol_in(struct symbolizer *s, struct dso *d, struct sym_frame *f)
{
	return sym_dso_symbol(s, d, f->dso_addr, true, f);
}

int sym_lookup(struct symbolizer *s, int32_t pid, int32_t tid, uint64_t ip, bool is_kernel,
	       struct sym_frame *f)
{
	uint32_t as = UINT32_MAX, gen = s->kgen;
	if (!is_kernel) {
		uint32_t t = findnew_thread(s, pid, tid); /* may move s->threads */
		as = s->threads[t].as;
		gen = procmaps_space_gen(&s->maps, as);
	}
	struct lookup_slot *c = &s->cache[(hash_u64(ip ^ ((uint64_t)as << 40)) >> 20) & (LOOKUP_SLOTS - 1)];
	if (c->valid && c->ip == ip && c->as == as && c->gen == gen && c->epoch == s->epoch) {
		f->name = c->name;
		f->dso = c->dso;
		f->offset = c->offset;
		f->dso_addr = c->dso_addr;
		f->have_map = c->have_map;
		if (c->owner && c->owner->in_lru && s->newest != c->owner) { /* used: the newest */
			lru_unlink(s, c->owner);
			lru_push(s, c->owner);
		}
		return c->ret;
	}
	struct dso *owner = NULL;
	int ret;
	if (is_kernel) {
		ret = sym_lookup_in(s, as, ip, true, f);
	} else {
		owner = sym_map_in(s, as, ip, f);
		ret = owner ? sym_symbol_in(s, owner, f) : 1;
	}
	if (is_kernel)
		gen = s->kgen; /* loading kallsyms may have moved the map */
	else
		gen = procmaps_space_gen(&s->maps, as);
	*c = (struct lookup_slot){ .ip = ip, .as = as, .gen = gen, .epoch = s->epoch, .name = f->name, .dso = f->dso,
				   .offset = f->offset, .dso_addr = f->dso_addr, .valid = 1,
				   .have_map = f->have_map, .ret = (uint8_t)ret, .owner = owner };
	return ret;
}

static void chain_push(struct dso *d, const char *name, bool inlined)
{
	VEC_GROW(d->chain_items, d->nr_chain_items + 1, d->chain_items_alloc);
	d->chain_items[d->nr_chain_items++] = (struct sym_inline){ name, inlined };
}

#ifdef HAVE_ELFUTILS
struct chain_build {
	struct dso *d;
	const char *base; /* the frame's own symbol name */
	bool no_demangle;
};

static void chain_add(const char *func, void *arg)
{
	struct chain_build *b = arg;
	struct dso *d = b->d;
	char *dm = b->no_demangle ? NULL : demangle(func, strlen(func));
	const char *name = dm ? dm : func;
	if (!strcmp(name, b->base)) /* perf reuses the real symbol */
		chain_push(d, b->base, false);
	else
		chain_push(d, strpool_str(&d->chain_names, strpool_intern(&d->chain_names, name, strlen(name))), true);
	free(dm);
}
#endif

int sym_inline_chain(struct symbolizer *s, int32_t pid, int32_t tid, uint64_t ip,
		     const struct sym_inline **out)
{
	*out = NULL;
	struct sym_frame f;
	if (sym_lookup(s, pid, tid, ip, false, &f) || !f.name)
		return 0;
	const struct mapping *m = find_map(s, pid, tid, ip);
	if (!m)
		return 0;
	struct dso *d = sym_dso_loaded(s, map_dso(m));
	if (d->kind != DSO_FILE)
		return 0;
	uint64_t addr = f.dso_addr + d->text_offset;
	uint32_t first;
	if (!hashmap_get(&d->inline_cache, addr, &first)) {
		first = (uint32_t)d->nr_chain_items;
#ifdef HAVE_ELFUTILS
		/* perf runs addr2line on the file it read symbols from */
		const char *path = d->symsrc_path ? d->symsrc_path : d->name;
		if (path[0] != '[' && strncmp(path, "/tmp/perf-", 10)) {
			struct chain_build b = { d, f.name, s->opts.no_demangle };
			if (!s->inline_dw) {
				s->inline_dw = inline_resolver_new(false);
				inline_resolver_limit(s->inline_dw, s->opts.inline_max_open);
			}
			inline_chain(s->inline_dw, path, addr, chain_add, &b);
		}
#endif
		chain_push(d, NULL, false); /* its end */
		bool ins;
		*hashmap_upsert(&d->inline_cache, addr, first, &ins) = first;
		dso_used(s, d); /* (counts what the chain added) */
	}
	*out = d->chain_items + first;
	int n = 0;
	while ((*out)[n].name)
		n++;
	return n;
}
