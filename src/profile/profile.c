#include "profile/profile.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	strpool_init(&p->names);
	hashmap_init(&p->edges);
	VEC_GROW(p->nodes, 1, p->alloc);
	/* The root has an empty name so that sym 0 is "". */
	p->nodes[0] = (struct node){ .parent = 0, .name = profile_sym(p, "", 0), .depth = 0 };
	p->nr = 1;
}

void profile_release(struct profile *p)
{
	strpool_release(&p->names);
	hashmap_release(&p->edges);
	free(p->nodes);
	free(p->events);
	memset(p, 0, sizeof(*p));
}

static node_t new_node(struct profile *p, node_t parent, sym_t name)
{
	VEC_GROW(p->nodes, (size_t)p->nr + 1, p->alloc);
	node_t id = p->nr++;
	p->nodes[id] = (struct node){
		.parent = parent,
		.name = name,
		.depth = p->nodes[parent].depth + 1,
	};
	return id;
}

static void add_edge(struct profile *p, node_t parent, sym_t name, node_t child)
{
	bool inserted;
	hashmap_upsert(&p->edges, (uint64_t)parent << 32 | name, child, &inserted);
}

node_t profile_push(struct profile *p, node_t parent, sym_t name)
{
	node_t kids = p->nodes[parent].kids;
	if (kids == NODE_KIDS_NONE) {
		node_t id = new_node(p, parent, name);
		p->nodes[parent].kids = id;
		return id;
	}
	if (kids != NODE_KIDS_MANY) {
		if (p->nodes[kids].name == name)
			return kids;
		/* A second child: from now on both are in the edge map. */
		add_edge(p, parent, p->nodes[kids].name, kids);
		node_t id = new_node(p, parent, name);
		add_edge(p, parent, name, id);
		p->nodes[parent].kids = NODE_KIDS_MANY;
		return id;
	}
	bool inserted;
	uint32_t *slot = hashmap_upsert(&p->edges, (uint64_t)parent << 32 | name, p->nr, &inserted);
	if (!inserted)
		return *slot;
	return new_node(p, parent, name);
}

void profile_add(struct profile *p, node_t leaf, double c0, double c1)
{
	p->nodes[leaf].self[0] += c0;
	p->nodes[leaf].self[1] += c1;
	if (p->keep_events) {
		VEC_GROW(p->events, p->events_nr + 1, p->events_alloc);
		p->events[p->events_nr++] = (struct profile_event){ leaf, { c0, c1 } };
	}
}

void profile_merge(struct profile *dst, const struct profile *src)
{
	node_t *map = xreallocarray(NULL, src->nr, sizeof(*map));
	map[0] = PROFILE_ROOT;
	for (node_t i = 1; i < src->nr; i++) {
		const struct node *n = &src->nodes[i];
		sym_t name = profile_sym(dst, strpool_str(&src->names, n->name),
					 strpool_len(&src->names, n->name));
		map[i] = profile_push(dst, map[n->parent], name);
	}
	for (node_t i = 0; i < src->nr; i++) {
		dst->nodes[map[i]].self[0] += src->nodes[i].self[0];
		dst->nodes[map[i]].self[1] += src->nodes[i].self[1];
	}
	if (dst->keep_events) {
		for (size_t i = 0; i < src->events_nr; i++) {
			VEC_GROW(dst->events, dst->events_nr + 1, dst->events_alloc);
			dst->events[dst->events_nr] = src->events[i];
			dst->events[dst->events_nr].leaf = map[src->events[i].leaf];
			dst->events_nr++;
		}
	}
	dst->differential |= src->differential;
	free(map);
}

double *profile_totals(const struct profile *p, int column)
{
	double *t = xreallocarray(NULL, p->nr, sizeof(*t));
	for (node_t i = 0; i < p->nr; i++)
		t[i] = p->nodes[i].self[column];
	for (node_t i = p->nr - 1; i > 0; i--)
		t[p->nodes[i].parent] += t[i];
	return t;
}

double profile_total(const struct profile *p, int column)
{
	double sum = 0;
	for (node_t i = 0; i < p->nr; i++)
		sum += p->nodes[i].self[column];
	return sum;
}

size_t profile_path(const struct profile *p, node_t n, char **buf, size_t *alloc)
{
	size_t len = 0;
	for (node_t i = n; i != PROFILE_ROOT; i = p->nodes[i].parent)
		len += profile_name_len(p, i) + 1;
	if (len)
		len--;
	VEC_GROW(*buf, len + 1, *alloc);
	char *end = *buf + len;
	*end = '\0';
	for (node_t i = n; i != PROFILE_ROOT; i = p->nodes[i].parent) {
		uint32_t l = profile_name_len(p, i);
		end -= l;
		memcpy(end, profile_name(p, i), l);
		if (end != *buf)
			*--end = ';';
	}
	return len;
}
