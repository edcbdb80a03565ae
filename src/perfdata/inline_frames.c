/* report --inline (see inline_frames.h): the libdw engine `collapse perf
 * --inline` uses (symbolize/inline.h), asked with the frame's fields. */
#include "perfdata/inline_frames.h"

#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "profile/frame_rules.h"
#ifdef HAVE_ELFUTILS
#include "symbolize/inline.h"
#endif

#include <stdlib.h>
#include <string.h>

struct inline_entry {
	const char *dso;
	uint64_t pc;
	uint32_t first, count; /* into syms; count 0: keep the frame */
};

struct inline_frames {
#ifdef HAVE_ELFUTILS
	struct inline_resolver *resolver;
#endif
	struct hashmap cache; /* hash of (dso, pc) -> index into ents */
	struct inline_entry *ents;
	size_t nr_ents, ents_alloc;
	uint32_t *syms;
	size_t nr_syms, syms_alloc;
};

struct inline_frames *inline_frames_new(void)
{
	struct inline_frames *x = xcalloc(1, sizeof(*x));
#ifdef HAVE_ELFUTILS
	x->resolver = inline_resolver_new(false);
#endif
	hashmap_init(&x->cache);
	return x;
}

void inline_frames_free(struct inline_frames *x)
{
	if (!x)
		return;
#ifdef HAVE_ELFUTILS
	inline_resolver_free(x->resolver);
#endif
	hashmap_release(&x->cache);
	free(x->ents);
	free(x->syms);
	free(x);
}

/* The script's answer for the frame ("" when unknown or without libdw). */
static char *answer(struct inline_frames *x, const char *symbol, uint64_t offset, const char *dso, uint64_t pc)
{
#ifdef HAVE_ELFUTILS
	return inline_resolve_frame(x->resolver, pc, symbol, offset, dso);
#else
	(void)x, (void)symbol, (void)offset, (void)dso, (void)pc;
	return xstrdup("");
#endif
}

bool inline_frames_of(struct inline_frames *x, struct profile *p, const char *symbol, uint64_t offset,
		      const char *dso, uint64_t pc, const uint32_t **syms, uint32_t *count)
{
	uint64_t key = hash_mix((uint64_t)(uintptr_t)dso ^ 0x5851f42d4c957f2dull, pc + 1);
	uint32_t idx;
	if (hashmap_get(&x->cache, key, &idx) && x->ents[idx].dso == dso && x->ents[idx].pc == pc) {
		*syms = x->syms + x->ents[idx].first;
		*count = x->ents[idx].count;
		return *count > 0;
	}
	char *a = answer(x, symbol, offset, dso, pc);
	uint32_t first = (uint32_t)x->nr_syms, cnt = 0;
	/* the script's test: an answer that is empty, "??" or "??:??:0" keeps
	 * the frame; otherwise its frames, joined with ';', replace it */
	if (frame_inline_usable(a, strlen(a))) {
		for (const char *s = a;;) {
			const char *semi = strchr(s, ';');
			size_t n = semi ? (size_t)(semi - s) : strlen(s);
			VEC_GROW(x->syms, x->nr_syms + 1, x->syms_alloc);
			x->syms[x->nr_syms++] = profile_sym(p, s, n);
			cnt++;
			if (!semi)
				break;
			s = semi + 1;
		}
	}
	free(a);
	VEC_GROW(x->ents, x->nr_ents + 1, x->ents_alloc);
	x->ents[x->nr_ents] = (struct inline_entry){ dso, pc, first, cnt };
	bool ins;
	*hashmap_upsert(&x->cache, key, (uint32_t)x->nr_ents, &ins) = (uint32_t)x->nr_ents;
	x->nr_ents++;
	*syms = x->syms + first;
	*count = cnt;
	return cnt > 0;
}
