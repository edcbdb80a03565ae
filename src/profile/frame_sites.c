/* Frame sites (profile/frame_sites.h). */
#include "profile/frame_sites.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static struct frame_sites *sites_of(struct profile *p)
{
	if (!p->sites) {
		struct frame_sites *s = xcalloc(1, sizeof(*s));
		strpool_init(&s->keys);
		strpool_init(&s->files);
		strpool_intern(&s->keys, "", 0); /* module ids start at 1 */
		strpool_init(&s->sources_text);
		strpool_intern(&s->sources_text, "", 0); /* 0: no text */
		VEC_GROW(s->modules, 1, s->modules_alloc);
		s->nr_modules = 1;
		p->sites = s;
	}
	return p->sites;
}

uint32_t frame_sites_module(struct profile *p, const char *file, size_t n, const uint8_t *id,
			    size_t id_len, bool runtime)
{
	struct frame_sites *s = sites_of(p);
	if (id_len > FRAME_BUILD_ID_MAX)
		id_len = FRAME_BUILD_ID_MAX;
	char stack_key[512];
	char *key = n + 1 + id_len <= sizeof(stack_key) ? stack_key : xmalloc(n + 1 + id_len);
	memcpy(key, file, n);
	key[n] = '\0';
	if (id_len)
		memcpy(key + n + 1, id, id_len);
	uint32_t m = strpool_intern(&s->keys, key, n + 1 + id_len);
	if (key != stack_key)
		free(key);
	if (m < s->nr_modules)
		return m;
	/* a new module: the pool's copy holds the file and the build-id */
	const char *stored = strpool_str(&s->keys, m);
	VEC_GROW(s->modules, (size_t)m + 1, s->modules_alloc);
	s->modules[m] = (struct frame_module){
		.file_len = (uint32_t)n, .build_id_len = (uint8_t)id_len, .file = stored,
		.build_id = (const uint8_t *)stored + n + 1, .runtime = runtime, .lo = UINT64_MAX, .hi = 0,
	};
	s->nr_modules = m + 1;
	uint32_t f = strpool_intern(&s->files, file, n);
	VEC_GROW_ZEROED(s->by_file, (size_t)f + 1, s->by_file_alloc);
	if (!s->by_file[f])
		s->by_file[f] = m;
	return m;
}

uint32_t frame_sites_find_file(const struct profile *p, const char *file, size_t n)
{
	if (!p->sites)
		return 0;
	uint32_t f = strpool_find(&p->sites->files, file, n);
	return f == UINT32_MAX || f >= p->sites->by_file_alloc ? 0 : p->sites->by_file[f];
}

void frame_sites_note(struct profile *p, sym_t name, uint32_t module, uint64_t address)
{
	struct frame_sites *s = sites_of(p);
	if (!module || module >= s->nr_modules)
		return;
	VEC_GROW_ZEROED(s->of_sym, (size_t)name + 1, s->of_sym_alloc);
	if (s->of_sym[name].module)
		return;
	s->of_sym[name] = (struct frame_site){ module, address };
	struct frame_module *m = &s->modules[module];
	if (address < m->lo)
		m->lo = address;
	if (address >= m->hi)
		m->hi = address + 1;
}

void frame_sites_note_source(struct profile *p, sym_t name, const char *function, size_t function_len,
			     const char *file, size_t file_len, int32_t line)
{
	struct frame_sites *s = sites_of(p);
	if (!function_len)
		return;
	VEC_GROW_ZEROED(s->source_of_sym, (size_t)name + 1, s->source_of_sym_alloc);
	if (s->source_of_sym[name].function)
		return;
	s->source_of_sym[name] = (struct frame_source){
		.function = strpool_intern(&s->sources_text, function, function_len),
		.file = file_len ? strpool_intern(&s->sources_text, file, file_len) : 0,
		.line = line > 0 ? line : 0,
	};
}

bool frame_sites_runtime_module(const char *dso)
{
	return (dso[0] == '[' && strcmp(dso, "[vdso]")) || !strncmp(dso, "/tmp/perf-", 10) ||
	       !strncmp(dso, "//", 2);
}

void frame_sites_note_dso(struct profile *p, const char *dso, uint64_t address, const sym_t *names,
			  size_t n, frame_build_id_fn *build_id, void *arg)
{
	size_t i = 0;
	while (i < n && frame_sites_has(p, names[i]))
		i++;
	if (i == n || !strcmp(dso, "[unknown]") || !strcmp(dso, "inlined") || !dso[0])
		return;
	size_t len = strlen(dso);
	uint32_t m = frame_sites_find_file(p, dso, len);
	if (!m) {
		uint8_t id[FRAME_BUILD_ID_MAX];
		size_t id_len = build_id ? build_id(arg, dso, id) : 0;
		m = frame_sites_module(p, dso, len, id, id_len, frame_sites_runtime_module(dso));
	}
	for (; i < n; i++)
		frame_sites_note(p, names[i], m, address);
}

void frame_sites_copy(struct profile *dst, const struct profile *src)
{
	const struct frame_sites *s = src->sites;
	if (!s)
		return;
	uint32_t *module_map = xcalloc(s->nr_modules, sizeof(*module_map));
	uint32_t n = s->of_sym_alloc < src->names.nr ? s->of_sym_alloc : src->names.nr;
	for (sym_t i = 0; i < n; i++) {
		const struct frame_site *site = &s->of_sym[i];
		if (!site->module)
			continue;
		uint32_t to = strpool_find(&dst->names, strpool_str(&src->names, i), strpool_len(&src->names, i));
		if (to == UINT32_MAX)
			continue;
		uint32_t *m = &module_map[site->module];
		if (!*m) {
			const struct frame_module *fm = &s->modules[site->module];
			*m = frame_sites_module(dst, fm->file, fm->file_len, fm->build_id, fm->build_id_len,
						fm->runtime);
		}
		frame_sites_note(dst, to, *m, site->address);
	}
	free(module_map);
	n = s->source_of_sym_alloc < src->names.nr ? s->source_of_sym_alloc : src->names.nr;
	for (sym_t i = 0; i < n; i++) {
		const struct frame_source *fs = &s->source_of_sym[i];
		if (!fs->function)
			continue;
		uint32_t to = strpool_find(&dst->names, strpool_str(&src->names, i), strpool_len(&src->names, i));
		if (to == UINT32_MAX)
			continue;
		size_t flen, filelen;
		const char *function = frame_sites_text(src, fs->function, &flen);
		const char *file = frame_sites_text(src, fs->file, &filelen);
		frame_sites_note_source(dst, to, function, flen, file, filelen, fs->line);
	}
}

void frame_sites_free(struct frame_sites *s)
{
	if (!s)
		return;
	strpool_release(&s->keys);
	strpool_release(&s->files);
	strpool_release(&s->sources_text);
	free(s->source_of_sym);
	free(s->by_file);
	free(s->modules);
	free(s->of_sym);
	free(s);
}
