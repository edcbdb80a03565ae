/* report --inline (see inline_frames.h), through addr2line. */
#include "perfdata/inline_frames.h"

#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "profile/frame_rules.h"
#include "symbolize/a2l.h"

#include <stdlib.h>
#include <string.h>

struct inline_entry {
	const char *dso;
	uint64_t pc;
	uint32_t first, count; /* into syms; count 0: keep the frame */
};

struct inline_frames {
	struct hashmap a2l_by_dso; /* dso pointer -> index into a2ls */
	struct a2l **a2ls;
	size_t nr_a2ls, a2ls_alloc;
	struct hashmap cache; /* hash of (dso, pc) -> index into ents */
	struct inline_entry *ents;
	size_t nr_ents, ents_alloc;
	uint32_t *syms;
	size_t nr_syms, syms_alloc;
	char **names; /* one query's names, innermost first */
	size_t nr_names, names_alloc;
};

struct inline_frames *inline_frames_new(void)
{
	struct inline_frames *x = xcalloc(1, sizeof(*x));
	hashmap_init(&x->a2l_by_dso);
	hashmap_init(&x->cache);
	return x;
}

void inline_frames_free(struct inline_frames *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nr_a2ls; i++)
		a2l_close(x->a2ls[i]);
	free(x->a2ls);
	hashmap_release(&x->a2l_by_dso);
	hashmap_release(&x->cache);
	free(x->ents);
	free(x->syms);
	free(x->names);
	free(x);
}

static void collect_name(const char *name, void *arg)
{
	struct inline_frames *x = arg;
	VEC_GROW(x->names, x->nr_names + 1, x->names_alloc);
	x->names[x->nr_names++] = xstrdup(name);
}

bool inline_frames_of(struct inline_frames *x, struct profile *p, const char *dso, uint64_t pc,
		      const uint32_t **syms, uint32_t *count)
{
	uint64_t key = hash_mix((uint64_t)(uintptr_t)dso ^ 0x5851f42d4c957f2dull, pc + 1);
	uint32_t idx;
	if (hashmap_get(&x->cache, key, &idx) && x->ents[idx].dso == dso && x->ents[idx].pc == pc) {
		*syms = x->syms + x->ents[idx].first;
		*count = x->ents[idx].count;
		return *count > 0;
	}
	bool ins;
	uint32_t *slot = hashmap_upsert(&x->a2l_by_dso, (uint64_t)(uintptr_t)dso, (uint32_t)x->nr_a2ls, &ins);
	if (ins) {
		VEC_GROW(x->a2ls, x->nr_a2ls + 1, x->a2ls_alloc);
		x->a2ls[x->nr_a2ls++] = a2l_open(dso, true);
	}
	struct a2l *a = x->a2ls[*slot];
	x->nr_names = 0;
	int n = a ? a2l_query(a, pc, collect_name, x) : 0;
	uint32_t first = (uint32_t)x->nr_syms, cnt = 0;
	/* the script's test: a result that is empty, "??" or "??:??:0" keeps
	 * the frame */
	bool use = n > 1 || (n == 1 && frame_inline_usable(x->names[0], strlen(x->names[0])));
	for (size_t i = x->nr_names; use && i-- > 0;) {
		VEC_GROW(x->syms, x->nr_syms + 1, x->syms_alloc);
		x->syms[x->nr_syms++] = profile_sym(p, x->names[i], strlen(x->names[i]));
		cnt++;
	}
	for (size_t i = 0; i < x->nr_names; i++)
		free(x->names[i]);
	x->nr_names = 0;
	VEC_GROW(x->ents, x->nr_ents + 1, x->ents_alloc);
	x->ents[x->nr_ents] = (struct inline_entry){ dso, pc, first, cnt };
	*hashmap_upsert(&x->cache, key, (uint32_t)x->nr_ents, &ins) = (uint32_t)x->nr_ents;
	x->nr_ents++;
	*syms = x->syms + first;
	*count = cnt;
	return cnt > 0;
}
