#include "profile/ops.h"

#include "base/alloc.h"
#include "base/error.h"
#include "profile/frame_sites.h"
#include "profile/time_cells.h"

#include <stdlib.h>
#include <string.h>

#define UNMAPPED UINT32_MAX
#define DROPPED TIME_NODE_DROPPED

enum op_kind { OP_FILTER, OP_REVERSE, OP_CHAIN };

struct rebuild {
	const struct profile *src;
	struct profile *dst;
	enum op_kind kind;
	const struct stack_filter *filter;
	node_t *map; /* src node -> dst leaf */
	node_t *frames;
	size_t frames_alloc;
	char *path;
	size_t path_alloc;
	char *name;
	size_t name_alloc;
};

/* Root-first frames of the stack ending at leaf; returns their number. */
static size_t frames_of(struct rebuild *r, node_t leaf)
{
	uint32_t d = r->src->nodes[leaf].depth;
	VEC_GROW(r->frames, (size_t)d + 1, r->frames_alloc);
	for (node_t u = leaf; u != PROFILE_ROOT; u = r->src->nodes[u].parent)
		r->frames[--d] = u;
	return r->src->nodes[leaf].depth;
}

static node_t push_src_name(struct rebuild *r, node_t parent, node_t src_node, const char *suffix)
{
	const char *s = profile_name(r->src, src_node);
	size_t n = profile_name_len(r->src, src_node);
	if (!suffix)
		return profile_push_str(r->dst, parent, s, n);
	size_t k = strlen(suffix);
	VEC_GROW(r->name, n + k, r->name_alloc);
	memcpy(r->name, s, n);
	memcpy(r->name + n, suffix, k);
	return profile_push_str(r->dst, parent, r->name, n + k);
}

static bool matches(regex_t *re, const char *s)
{
	return regexec(re, s, 0, NULL, 0) == 0;
}

static node_t map_leaf(struct rebuild *r, node_t leaf)
{
	if (r->map[leaf] != UNMAPPED)
		return r->map[leaf];
	node_t out = PROFILE_ROOT;
	size_t nf = frames_of(r, leaf);
	switch (r->kind) {
	case OP_FILTER: {
		profile_path(r->src, leaf, &r->path, &r->path_alloc);
		const struct stack_filter *f = r->filter;
		if ((f->include && !matches(f->include, r->path)) ||
		    (f->exclude && matches(f->exclude, r->path))) {
			out = DROPPED;
			break;
		}
		for (size_t i = 0; i < nf; i++)
			out = push_src_name(r, out, r->frames[i], NULL);
		break;
	}
	case OP_REVERSE:
		for (size_t i = nf; i-- > 0;)
			out = push_src_name(r, out, r->frames[i], NULL);
		break;
	case OP_CHAIN: {
		/* The separator is a "--" frame with frames on both sides
		 * (flamegraph.pl splits the line on ";--;"). */
		size_t sep = 0;
		for (size_t i = 1; i + 1 < nf && !sep; i++) {
			if (profile_name_len(r->src, r->frames[i]) == 2 &&
			    !memcmp(profile_name(r->src, r->frames[i]), "--", 2))
				sep = i;
		}
		for (size_t i = 0; i < nf; i++)
			out = push_src_name(r, out, r->frames[i], sep && i > sep ? "_[w]" : NULL);
		if (!sep)
			out = profile_push_str(r->dst, out, "--", 2);
		break;
	}
	}
	r->map[leaf] = out;
	return out;
}

static void rebuild(struct rebuild *r)
{
	const struct profile *src = r->src;
	struct profile *dst = r->dst;
	dst->differential = src->differential;
	dst->keep_events = false; /* events are copied below, mapped */
	r->map = xreallocarray(NULL, src->nr, sizeof(*r->map));
	for (node_t i = 0; i < src->nr; i++)
		r->map[i] = UNMAPPED;
	for (node_t i = 0; i < src->nr; i++) {
		if (!profile_has_self(src, i))
			continue;
		node_t to = map_leaf(r, i);
		/* Each kept stack maps to a stack of its own: no sum grows. */
		if (to != DROPPED)
			(void)profile_add_node(dst, to, src, i);
	}
	if (src->keep_events) {
		dst->keep_events = true;
		for (size_t i = 0; i < src->events_nr; i++) {
			const struct profile_event *e = &src->events[i];
			node_t to = map_leaf(r, e->leaf);
			if (to == DROPPED)
				continue;
			profile_copy_event(dst, to, src, e);
		}
	}
	frame_sites_copy(dst, src);
	if (src->time) {
		for (uint32_t i = 0; i < src->time->nr; i++)
			map_leaf(r, src->time->entries[i].node);
		time_cells_copy(dst, src, r->map); /* DROPPED is TIME_NODE_DROPPED */
	}
	free(r->map);
	free(r->frames);
	free(r->path);
	free(r->name);
}

int stack_filter_compile(regex_t *re, const char *pattern, const char *option)
{
	int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];
		regerror(rc, re, msg, sizeof(msg));
		return error("%s '%s': %s", option, pattern, msg);
	}
	return 0;
}

void profile_filter(struct profile *dst, const struct profile *src, const struct stack_filter *f)
{
	struct rebuild r = { .src = src, .dst = dst, .kind = OP_FILTER, .filter = f };
	rebuild(&r);
}

void profile_reverse(struct profile *dst, const struct profile *src)
{
	struct rebuild r = { .src = src, .dst = dst, .kind = OP_REVERSE };
	rebuild(&r);
}

void profile_chain(struct profile *dst, const struct profile *src)
{
	struct rebuild r = { .src = src, .dst = dst, .kind = OP_CHAIN };
	rebuild(&r);
}
