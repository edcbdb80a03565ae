/* Symbol tables with perf's fix-ups, in a red-black tree whose balancing
 * follows the Linux kernel's lib/rbtree.c step for step (insert: recolor or
 * rotate at parent then grandparent; erase: successor splice, then the
 * four sibling cases). Only the shape matters: perf's symbols__find stops
 * at the first node on the descent that contains the address, so with
 * overlapping symbols the shape decides which name is printed. */
#include "symbolize/symtab.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

void symtab_init(struct symtab *t)
{
	memset(t, 0, sizeof(*t));
	t->root = NIL;
	arena_init(&t->names);
}

void symtab_release(struct symtab *t)
{
	free(t->v);
	free(t->rb);
	arena_release(&t->names);
	memset(t, 0, sizeof(*t));
	t->root = NIL;
}

/* ---- the tree -------------------------------------------------------------- */

static inline bool is_black(const struct symtab *t, uint32_t n)
{
	return n == NIL || t->rb[n].black;
}

static void change_child(struct symtab *t, uint32_t old, uint32_t new, uint32_t parent)
{
	if (parent != NIL) {
		if (t->rb[parent].left == old)
			t->rb[parent].left = new;
		else
			t->rb[parent].right = new;
	} else {
		t->root = new;
	}
}

/* new takes old's place (parent and colour); old becomes new's child with
 * the given colour. */
static void rotate_set_parents(struct symtab *t, uint32_t old, uint32_t new, uint8_t black)
{
	uint32_t parent = t->rb[old].parent;
	t->rb[new].parent = parent;
	t->rb[new].black = t->rb[old].black;
	t->rb[old].parent = new;
	t->rb[old].black = black;
	change_child(t, old, new, parent);
}

static void set_pc(struct symtab *t, uint32_t n, uint32_t parent, uint8_t black)
{
	t->rb[n].parent = parent;
	t->rb[n].black = black;
}

static void insert_color(struct symtab *t, uint32_t node)
{
	uint32_t parent = t->rb[node].parent, gparent, tmp;
	for (;;) {
		if (parent == NIL) {
			set_pc(t, node, NIL, 1);
			break;
		}
		if (t->rb[parent].black)
			break;
		gparent = t->rb[parent].parent;
		tmp = t->rb[gparent].right;
		if (parent != tmp) { /* parent is the left child */
			if (tmp != NIL && !t->rb[tmp].black) {
				set_pc(t, tmp, gparent, 1);
				set_pc(t, parent, gparent, 1);
				node = gparent;
				parent = t->rb[node].parent;
				set_pc(t, node, parent, 0);
				continue;
			}
			tmp = t->rb[parent].right;
			if (node == tmp) {
				tmp = t->rb[node].left;
				t->rb[parent].right = tmp;
				t->rb[node].left = parent;
				if (tmp != NIL)
					set_pc(t, tmp, parent, 1);
				set_pc(t, parent, node, 0);
				parent = node;
				tmp = t->rb[node].right;
			}
			t->rb[gparent].left = tmp;
			t->rb[parent].right = gparent;
			if (tmp != NIL)
				set_pc(t, tmp, gparent, 1);
			rotate_set_parents(t, gparent, parent, 0);
			break;
		} else {
			tmp = t->rb[gparent].left;
			if (tmp != NIL && !t->rb[tmp].black) {
				set_pc(t, tmp, gparent, 1);
				set_pc(t, parent, gparent, 1);
				node = gparent;
				parent = t->rb[node].parent;
				set_pc(t, node, parent, 0);
				continue;
			}
			tmp = t->rb[parent].left;
			if (node == tmp) {
				tmp = t->rb[node].right;
				t->rb[parent].left = tmp;
				t->rb[node].right = parent;
				if (tmp != NIL)
					set_pc(t, tmp, parent, 1);
				set_pc(t, parent, node, 0);
				parent = node;
				tmp = t->rb[node].left;
			}
			t->rb[gparent].right = tmp;
			t->rb[parent].left = gparent;
			if (tmp != NIL)
				set_pc(t, tmp, gparent, 1);
			rotate_set_parents(t, gparent, parent, 0);
			break;
		}
	}
}

static void tree_insert(struct symtab *t, uint32_t n)
{
	uint64_t key = t->v[n].start;
	uint32_t parent = NIL, cur = t->root;
	bool left = false;
	while (cur != NIL) {
		parent = cur;
		left = key < t->v[cur].start;
		cur = left ? t->rb[cur].left : t->rb[cur].right;
	}
	t->rb[n] = (struct rb_links){ parent, NIL, NIL, 0 };
	if (parent == NIL)
		t->root = n;
	else if (left)
		t->rb[parent].left = n;
	else
		t->rb[parent].right = n;
	insert_color(t, n);
	t->live++;
}

static void erase_color(struct symtab *t, uint32_t parent)
{
	uint32_t node = NIL, sibling, tmp1, tmp2;
	for (;;) {
		sibling = t->rb[parent].right;
		if (node != sibling) { /* node is the left child */
			if (!is_black(t, sibling)) {
				tmp1 = t->rb[sibling].left;
				t->rb[parent].right = tmp1;
				t->rb[sibling].left = parent;
				set_pc(t, tmp1, parent, 1);
				rotate_set_parents(t, parent, sibling, 0);
				sibling = tmp1;
			}
			tmp1 = t->rb[sibling].right;
			if (is_black(t, tmp1)) {
				tmp2 = t->rb[sibling].left;
				if (is_black(t, tmp2)) {
					set_pc(t, sibling, parent, 0);
					if (!t->rb[parent].black) {
						t->rb[parent].black = 1;
					} else {
						node = parent;
						parent = t->rb[node].parent;
						if (parent != NIL)
							continue;
					}
					break;
				}
				tmp1 = t->rb[tmp2].right;
				t->rb[sibling].left = tmp1;
				t->rb[tmp2].right = sibling;
				t->rb[parent].right = tmp2;
				if (tmp1 != NIL)
					set_pc(t, tmp1, sibling, 1);
				tmp1 = sibling;
				sibling = tmp2;
			}
			tmp2 = t->rb[sibling].left;
			t->rb[parent].right = tmp2;
			t->rb[sibling].left = parent;
			set_pc(t, tmp1, sibling, 1);
			if (tmp2 != NIL)
				t->rb[tmp2].parent = parent;
			rotate_set_parents(t, parent, sibling, 1);
			break;
		} else {
			sibling = t->rb[parent].left;
			if (!is_black(t, sibling)) {
				tmp1 = t->rb[sibling].right;
				t->rb[parent].left = tmp1;
				t->rb[sibling].right = parent;
				set_pc(t, tmp1, parent, 1);
				rotate_set_parents(t, parent, sibling, 0);
				sibling = tmp1;
			}
			tmp1 = t->rb[sibling].left;
			if (is_black(t, tmp1)) {
				tmp2 = t->rb[sibling].right;
				if (is_black(t, tmp2)) {
					set_pc(t, sibling, parent, 0);
					if (!t->rb[parent].black) {
						t->rb[parent].black = 1;
					} else {
						node = parent;
						parent = t->rb[node].parent;
						if (parent != NIL)
							continue;
					}
					break;
				}
				tmp1 = t->rb[tmp2].left;
				t->rb[sibling].right = tmp1;
				t->rb[tmp2].left = sibling;
				t->rb[parent].left = tmp2;
				if (tmp1 != NIL)
					set_pc(t, tmp1, sibling, 1);
				tmp1 = sibling;
				sibling = tmp2;
			}
			tmp2 = t->rb[sibling].right;
			t->rb[parent].left = tmp2;
			t->rb[sibling].right = parent;
			set_pc(t, tmp1, sibling, 1);
			if (tmp2 != NIL)
				t->rb[tmp2].parent = parent;
			rotate_set_parents(t, parent, sibling, 1);
			break;
		}
	}
}

static void tree_erase(struct symtab *t, uint32_t node)
{
	uint32_t child = t->rb[node].right, tmp = t->rb[node].left, parent, rebalance;
	if (tmp == NIL) {
		parent = t->rb[node].parent;
		uint8_t black = t->rb[node].black;
		change_child(t, node, child, parent);
		if (child != NIL) {
			set_pc(t, child, parent, black);
			rebalance = NIL;
		} else {
			rebalance = black ? parent : NIL;
		}
	} else if (child == NIL) {
		parent = t->rb[node].parent;
		set_pc(t, tmp, parent, t->rb[node].black);
		change_child(t, node, tmp, parent);
		rebalance = NIL;
	} else {
		uint32_t successor = child, child2;
		tmp = t->rb[child].left;
		if (tmp == NIL) {
			parent = successor;
			child2 = t->rb[successor].right;
		} else {
			do {
				parent = successor;
				successor = tmp;
				tmp = t->rb[tmp].left;
			} while (tmp != NIL);
			child2 = t->rb[successor].right;
			t->rb[parent].left = child2;
			t->rb[successor].right = child;
			t->rb[child].parent = successor;
		}
		tmp = t->rb[node].left;
		t->rb[successor].left = tmp;
		t->rb[tmp].parent = successor;
		uint32_t np = t->rb[node].parent;
		uint8_t nblack = t->rb[node].black;
		change_child(t, node, successor, np);
		if (child2 != NIL) {
			set_pc(t, child2, parent, 1);
			rebalance = NIL;
		} else {
			rebalance = t->rb[successor].black ? parent : NIL;
		}
		set_pc(t, successor, np, nblack);
	}
	if (rebalance != NIL)
		erase_color(t, rebalance);
	t->live--;
}

/* ---- symbols ----------------------------------------------------------------- */

void symtab_add(struct symtab *t, uint64_t start, uint64_t size, int bind, const char *name,
		size_t len, size_t base_len, unsigned underscores)
{
	VEC_GROW(t->v, t->nr + 1, t->alloc);
	VEC_GROW(t->rb, t->nr + 1, t->rb_alloc);
	struct symbol *s = &t->v[t->nr];
	s->start = start;
	s->end = start + size;
	s->name = arena_memdup0(&t->names, name, len);
	s->seq = (uint32_t)t->nr;
	s->base_len = base_len > UINT16_MAX ? UINT16_MAX : (uint16_t)base_len;
	s->bind = (uint8_t)bind;
	s->underscores = underscores > 255 ? 255 : (uint8_t)underscores;
	tree_insert(t, (uint32_t)t->nr);
	t->nr++;
}

/* perf's choose_best_symbol: true when a is kept over b. */
static bool keep_first(const struct symbol *a, const struct symbol *b)
{
	bool az = a->end == a->start, bz = b->end == b->start;
	if (bz && !az)
		return true;
	if (az && !bz)
		return false;
	bool aw = a->bind == SYM_BIND_WEAK, bw = b->bind == SYM_BIND_WEAK;
	if (bw && !aw)
		return true;
	if (aw && !bw)
		return false;
	bool ag = a->bind == SYM_BIND_GLOBAL, bg = b->bind == SYM_BIND_GLOBAL;
	if (ag && !bg)
		return true;
	if (bg && !ag)
		return false;
	if (a->underscores != b->underscores)
		return a->underscores < b->underscores;
	if (a->base_len != b->base_len)
		return a->base_len > b->base_len;
	return true;
}

/* In-order node list (sorted by start, ties in insertion order). */
static uint32_t *in_order(const struct symtab *t, size_t *n)
{
	uint32_t *out = xmalloc((t->live ? t->live : 1) * sizeof(*out));
	uint32_t *stack = xmalloc((t->live + 1) * sizeof(*stack));
	size_t k = 0, sp = 0;
	uint32_t cur = t->root;
	while (cur != NIL || sp) {
		while (cur != NIL) {
			stack[sp++] = cur;
			cur = t->rb[cur].left;
		}
		cur = stack[--sp];
		out[k++] = cur;
		cur = t->rb[cur].right;
	}
	free(stack);
	*n = k;
	return out;
}

void symtab_finish(struct symtab *t, bool kallsyms)
{
	size_t n;
	uint32_t *ord = in_order(t, &n);
	if (!n) {
		free(ord);
		return;
	}
	/* fixup_end: zero-sized symbols end where the next begins. */
	for (size_t i = 0; i + 1 < n; i++) {
		struct symbol *prev = &t->v[ord[i]], *curr = &t->v[ord[i + 1]];
		if (prev->end == prev->start) {
			if (kallsyms && (!strchr(prev->name, '[') != !strchr(curr->name, '[')))
				prev->end = ((prev->end + 4096) + 4095) / 4096 * 4096;
			else
				prev->end = curr->start;
		}
	}
	struct symbol *last = &t->v[ord[n - 1]];
	if (last->end == last->start)
		last->end = (last->start + 4095) / 4096 * 4096 + 4096;
	/* fixup_duplicate: one symbol per start, erased in perf's order. */
	size_t curr = 0;
	for (size_t i = 1; i < n; i++) {
		struct symbol *a = &t->v[ord[curr]], *b = &t->v[ord[i]];
		if (a->start != b->start) {
			curr = i;
			continue;
		}
		if (keep_first(a, b)) {
			tree_erase(t, ord[i]);
		} else {
			tree_erase(t, ord[curr]);
			curr = i;
		}
	}
	free(ord);
}

const struct symbol *symtab_find(const struct symtab *t, uint64_t addr)
{
	uint32_t n = t->root;
	while (n != NIL) {
		const struct symbol *s = &t->v[n];
		if (addr < s->start)
			n = t->rb[n].left;
		else if (addr > s->end || (addr == s->end && addr != s->start))
			n = t->rb[n].right;
		else
			return s;
	}
	return NULL;
}

bool symtab_bounds(const struct symtab *t, uint64_t *lo, uint64_t *hi)
{
	if (t->root == NIL)
		return false;
	uint32_t n = t->root;
	while (t->rb[n].left != NIL)
		n = t->rb[n].left;
	*lo = t->v[n].start;
	n = t->root;
	while (t->rb[n].right != NIL)
		n = t->rb[n].right;
	*hi = t->v[n].end;
	return true;
}
