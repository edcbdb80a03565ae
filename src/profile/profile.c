#include "profile/profile.h"

#include "base/alloc.h"
#include "profile/frame_sites.h"
#include "profile/time_cells.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	strpool_init(&p->names);
	VEC_GROW(p->kid_slots, 1, p->kid_slots_alloc);
	p->kid_slots_nr = 1;
	VEC_GROW(p->nodes, 1, p->alloc);
	/* The root has an empty name so that sym 0 is "". */
	p->nodes[0] = (struct node){ .parent = 0, .name = profile_sym(p, "", 0), .depth = 0 };
	p->nr = 1;
}

void profile_release(struct profile *p)
{
	strpool_release(&p->names);
	free(p->kid_slots);
	free(p->nodes);
	free(p->events);
	frame_sites_free(p->sites);
	time_cells_free(p->time);
	memset(p, 0, sizeof(*p));
}

static node_t new_node(struct profile *p, node_t parent, sym_t name)
{
	if (p->nr > NODE_MAX) {
		/* 2^31 nodes: 64 GiB of them, out of memory in practice */
		alloc_fail("more than 2^31 - 1 stack frames");
	}
	VEC_GROW(p->nodes, (size_t)p->nr + 1, p->alloc);
	node_t id = p->nr++;
	p->nodes[id] = (struct node){
		.parent = parent,
		.name = name,
		.depth = p->nodes[parent].depth + 1,
	};
	return id;
}

/* A table of 2^log2cap empty slots; returns its header's index. */
static uint32_t table_new(struct profile *p, uint32_t log2cap)
{
	uint32_t cap = 1u << log2cap, t = p->kid_free[log2cap];
	if (t) {
		p->kid_free[log2cap] = p->kid_slots[t].name;
	} else {
		if (p->kid_slots_nr > UINT32_MAX - 1 - cap) {
			alloc_fail("child tables over 2^32 slots");
		}
		t = p->kid_slots_nr;
		VEC_GROW(p->kid_slots, (size_t)t + 1 + cap, p->kid_slots_alloc);
		p->kid_slots_nr = t + 1 + cap;
	}
	memset(&p->kid_slots[t + 1], 0, cap * sizeof(struct kid_slot));
	p->kid_slots[t] = (struct kid_slot){ 0, log2cap };
	return t;
}

/* Add name -> child to table t (absent from it); returns the table, which
 * moves when it grows. */
static uint32_t table_add(struct profile *p, uint32_t t, sym_t name, node_t child)
{
	uint32_t nr = p->kid_slots[t].name, log2cap = p->kid_slots[t].child;
	if ((nr + 1) * 4 > (3u << log2cap)) {
		uint32_t bigger = table_new(p, log2cap + 1);
		for (uint32_t i = 0; i < 1u << log2cap; i++) {
			struct kid_slot s = p->kid_slots[t + 1 + i];
			if (s.child)
				*profile_kid_slot(p, bigger, s.name) = s;
		}
		p->kid_slots[bigger].name = nr;
		p->kid_slots[t].name = p->kid_free[log2cap];
		p->kid_free[log2cap] = t;
		t = bigger;
	}
	*profile_kid_slot(p, t, name) = (struct kid_slot){ name, child };
	p->kid_slots[t].name = nr + 1;
	return t;
}

node_t profile_push_new(struct profile *p, node_t parent, sym_t name)
{
	node_t kids = p->nodes[parent].kids;
	if (kids == NODE_KIDS_NONE) {
		node_t id = new_node(p, parent, name);
		p->nodes[parent].kids = id;
		return id;
	}
	uint32_t t;
	if (!(kids & NODE_KIDS_TABLE)) {
		/* A second child: from now on the node has a table. */
		t = table_new(p, 2);
		t = table_add(p, t, p->nodes[kids].name, kids);
	} else {
		t = kids & ~NODE_KIDS_TABLE;
	}
	node_t id = new_node(p, parent, name);
	t = table_add(p, t, name, id);
	p->nodes[parent].kids = NODE_KIDS_TABLE | t;
	return id;
}

void profile_make_fractional(struct profile *p)
{
	if (p->fractional)
		return;
	for (node_t i = 0; i < p->nr; i++)
		for (int k = 0; k < 2; k++)
			p->nodes[i].self[k].d = (double)p->nodes[i].self[k].u;
	for (size_t i = 0; i < p->events_nr; i++)
		for (int k = 0; k < 2; k++)
			p->events[i].count[k].d = (double)p->events[i].count[k].u;
	p->fractional = true;
}

/* An event of counts already added (so the profile's kind is theirs). */
static void keep_event(struct profile *p, node_t leaf, double c0, double c1)
{
	VEC_GROW(p->events, p->events_nr + 1, p->events_alloc);
	struct profile_event *e = &p->events[p->events_nr++];
	e->leaf = leaf;
	if (p->fractional) {
		e->count[0].d = c0;
		e->count[1].d = c1;
	} else {
		e->count[0].u = (uint64_t)c0;
		e->count[1].u = (uint64_t)c1;
	}
}

static void keep_event_whole(struct profile *p, node_t leaf, uint64_t c0, uint64_t c1)
{
	if (p->fractional) {
		keep_event(p, leaf, (double)c0, (double)c1);
		return;
	}
	VEC_GROW(p->events, p->events_nr + 1, p->events_alloc);
	p->events[p->events_nr++] = (struct profile_event){ leaf, { { c0 }, { c1 } } };
}

static bool is_whole(double c);

void profile_copy_event(struct profile *dst, node_t leaf, const struct profile *src, const struct profile_event *e)
{
	if (!src->fractional) {
		keep_event_whole(dst, leaf, e->count[0].u, e->count[1].u);
		return;
	}
	double c0 = e->count[0].d, c1 = e->count[1].d;
	if (!dst->fractional && !(is_whole(c0) && is_whole(c1)))
		profile_make_fractional(dst); /* halves that made whole nodes */
	keep_event(dst, leaf, c0, c1);
}

/* Add whole counts to a node, or false (nothing added) on overflow. */
static bool add_whole(union count *self, uint64_t c0, uint64_t c1)
{
	uint64_t s0, s1;
	if (__builtin_add_overflow(self[0].u, c0, &s0) || __builtin_add_overflow(self[1].u, c1, &s1))
		return false;
	self[0].u = s0;
	self[1].u = s1;
	return true;
}

static bool is_whole(double c)
{
	return c >= 0 && c < 0x1p64 && c == floor(c);
}

void profile_add(struct profile *p, node_t leaf, double c0, double c1)
{
	union count *self = p->nodes[leaf].self;
	if (p->fractional || !is_whole(c0) || !is_whole(c1) ||
	    !add_whole(self, (uint64_t)c0, (uint64_t)c1)) {
		profile_make_fractional(p);
		self[0].d += c0;
		self[1].d += c1;
	}
	if (p->keep_events)
		keep_event(p, leaf, c0, c1);
}

bool profile_add_whole(struct profile *p, node_t leaf, uint64_t c0, uint64_t c1)
{
	union count *self = p->nodes[leaf].self;
	if (p->fractional) {
		self[0].d += (double)c0;
		self[1].d += (double)c1;
	} else if (!add_whole(self, c0, c1)) {
		return false;
	}
	if (p->keep_events)
		keep_event_whole(p, leaf, c0, c1);
	return true;
}

bool profile_add_node(struct profile *dst, node_t leaf, const struct profile *src, node_t n)
{
	if (src->fractional) {
		profile_add(dst, leaf, profile_self(src, n, 0), profile_self(src, n, 1));
		return true;
	}
	return profile_add_whole(dst, leaf, src->nodes[n].self[0].u, src->nodes[n].self[1].u);
}

bool profile_add_column(struct profile *dst, node_t leaf, int col, const struct profile *src, node_t n,
			int src_col)
{
	union count *to = &dst->nodes[leaf].self[col];
	if (src->fractional)
		profile_make_fractional(dst);
	if (dst->fractional) {
		to->d += profile_self(src, n, src_col);
		return true;
	}
	uint64_t sum;
	if (__builtin_add_overflow(to->u, src->nodes[n].self[src_col].u, &sum))
		return false;
	to->u = sum;
	return true;
}

bool profile_merge(struct profile *dst, const struct profile *src)
{
	return profile_merge_under(dst, src, PROFILE_ROOT);
}

bool profile_merge_under(struct profile *dst, const struct profile *src, node_t under)
{
	node_t *map = xreallocarray(NULL, src->nr, sizeof(*map));
	map[0] = under;
	for (node_t i = 1; i < src->nr; i++) {
		const struct node *n = &src->nodes[i];
		sym_t name = profile_sym(dst, strpool_str(&src->names, n->name),
					 strpool_len(&src->names, n->name));
		map[i] = profile_push(dst, map[n->parent], name);
	}
	bool ok = true;
	if (src->fractional)
		profile_make_fractional(dst);
	for (node_t i = 0; i < src->nr && ok; i++) {
		union count *to = dst->nodes[map[i]].self;
		if (dst->fractional) {
			to[0].d += profile_self(src, i, 0);
			to[1].d += profile_self(src, i, 1);
		} else {
			ok = add_whole(to, src->nodes[i].self[0].u, src->nodes[i].self[1].u);
		}
	}
	if (dst->keep_events) {
		for (size_t i = 0; i < src->events_nr; i++)
			profile_copy_event(dst, map[src->events[i].leaf], src, &src->events[i]);
	}
	dst->differential |= src->differential;
	dst->overflow |= src->overflow;
	frame_sites_copy(dst, src);
	time_cells_copy(dst, src, map);
	free(map);
	return ok;
}

double *profile_totals(const struct profile *p, int column)
{
	double *t = xreallocarray(NULL, p->nr, sizeof(*t));
	uint64_t sum;
	if (!p->fractional && profile_total_whole(p, column, &sum)) {
		/* Exact sums (none passes the total), rounded once. */
		uint64_t *w = xreallocarray(NULL, p->nr, sizeof(*w));
		for (node_t i = 0; i < p->nr; i++)
			w[i] = p->nodes[i].self[column].u;
		for (node_t i = p->nr - 1; i > 0; i--)
			w[p->nodes[i].parent] += w[i];
		for (node_t i = 0; i < p->nr; i++)
			t[i] = (double)w[i];
		free(w);
		return t;
	}
	for (node_t i = 0; i < p->nr; i++)
		t[i] = profile_self(p, i, column);
	for (node_t i = p->nr - 1; i > 0; i--)
		t[p->nodes[i].parent] += t[i];
	return t;
}

double profile_total(const struct profile *p, int column)
{
	uint64_t whole;
	if (!p->fractional && profile_total_whole(p, column, &whole))
		return (double)whole;
	double sum = 0;
	for (node_t i = 0; i < p->nr; i++)
		sum += profile_self(p, i, column);
	return sum;
}

bool profile_total_whole(const struct profile *p, int column, uint64_t *sum)
{
	uint64_t s = 0;
	if (p->fractional)
		return false;
	for (node_t i = 0; i < p->nr; i++)
		if (__builtin_add_overflow(s, p->nodes[i].self[column].u, &s))
			return false;
	*sum = s;
	return true;
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
