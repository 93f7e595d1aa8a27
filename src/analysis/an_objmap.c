// SPDX-License-Identifier: MIT
/* Layered interval map of live objects (see an_objmap.h). Treaps: simple,
 * O(log n) expected, and no rebalancing code to get wrong. */
#include "analysis/an_objmap.h"

#include <stdlib.h>
#include <string.h>

#define SLAB 4096

void an_objmap_init(struct an_objmap *m)
{
	memset(m, 0, sizeof(*m));
	m->rng = 0x2545f491u;
	m->slab_used = SLAB;
}

void an_objmap_fini(struct an_objmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nslabs; i++)
		free(m->slabs[i]);
	free(m->slabs);
	memset(m, 0, sizeof(*m));
}

static struct an_obj *obj_new(struct an_objmap *m)
{
	struct an_obj *o = m->free_list;
	if (o) {
		m->free_list = o->left;
		return o;
	}
	if (m->slab_used == SLAB) {
		struct an_obj **ns = realloc(m->slabs, (m->nslabs + 1) * sizeof(*ns));
		if (!ns)
			return NULL;
		m->slabs = ns;
		ns[m->nslabs] = malloc(SLAB * sizeof(struct an_obj));
		if (!ns[m->nslabs])
			return NULL;
		m->nslabs++;
		m->slab_used = 0;
	}
	return &m->slabs[m->nslabs - 1][m->slab_used++];
}

static void obj_release(struct an_objmap *m, struct an_obj *o)
{
	o->alive = 0;
	o->left = m->free_list;
	m->free_list = o;
	m->live--;
}

/* A change to [lo, hi): the next change number, and its range logged
 * (an_objmap_unchanged). */
static void changed(struct an_objmap *m, uint64_t lo, uint64_t hi)
{
	m->gen++;
	m->log_lo[m->gen % AN_OBJMAP_LOG] = lo;
	m->log_hi[m->gen % AN_OBJMAP_LOG] = hi;
}

/* split t into keys < key (l) and >= key (r) */
static void split(struct an_obj *t, uint64_t key, struct an_obj **l, struct an_obj **r)
{
	if (!t) {
		*l = *r = NULL;
	} else if (t->lo < key) {
		split(t->right, key, &t->right, r);
		*l = t;
	} else {
		split(t->left, key, l, &t->left);
		*r = t;
	}
}

static struct an_obj *merge(struct an_obj *a, struct an_obj *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->prio > b->prio) {
		a->right = merge(a->right, b);
		return a;
	}
	b->left = merge(a, b->left);
	return b;
}

static struct an_obj *floor_node(struct an_obj *t, uint64_t addr)
{
	struct an_obj *best = NULL;
	while (t) {
		if (t->lo <= addr) {
			best = t;
			t = t->right;
		} else {
			t = t->left;
		}
	}
	return best;
}

/* Detach every node with lo in [a, b) from the layer; returns them as a treap. */
static struct an_obj *cut(struct an_obj **root, uint64_t a, uint64_t b)
{
	struct an_obj *l, *mid, *r;
	split(*root, a, &l, &mid);
	split(mid, b, &mid, &r);
	*root = merge(l, r);
	return mid;
}

static void release_all(struct an_objmap *m, struct an_obj *t)
{
	if (!t)
		return;
	release_all(m, t->left);
	release_all(m, t->right);
	obj_release(m, t);
}

/* Smallest start >= addr in a layer, or UINT64_MAX. */
static uint64_t ceil_start(const struct an_obj *t, uint64_t addr)
{
	uint64_t best = UINT64_MAX;
	while (t) {
		if (t->lo >= addr) {
			best = t->lo;
			t = t->left;
		} else {
			t = t->right;
		}
	}
	return best;
}

/* o (its start not in the layer) goes where its priority puts it, and the
 * subtree it lands on is split around it: one walk down and a split of a
 * small subtree, where a split of the whole layer and two merges walked
 * three paths (allocheavy's plain report: split and merge 21% of it) */
static void insert_node(struct an_objmap *m, int layer, struct an_obj *o)
{
	struct an_obj **t = &m->root[layer];
	while (*t && (*t)->prio > o->prio)
		t = o->lo < (*t)->lo ? &(*t)->left : &(*t)->right;
	split(*t, o->lo, &o->left, &o->right);
	*t = o;
	m->live++;
}

void an_objmap_punch(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return;
	/* the range the change touches: [lo, hi) and whole objects cut */
	uint64_t alo = lo, ahi = hi;
	/* an object starting before lo that reaches past it: trim or split */
	struct an_obj *f = floor_node(m->root[layer], lo ? lo - 1 : 0);
	if (f && f->lo < lo && f->hi > lo) {
		uint64_t old_hi = f->hi;
		alo = f->lo;
		ahi = old_hi > ahi ? old_hi : ahi;
		f->hi = lo;
		if (old_hi > hi) {
			struct an_obj *tail = obj_new(m);
			if (tail) {
				*tail = *f;
				tail->lo = hi;
				tail->hi = old_hi;
				tail->left = tail->right = NULL;
				m->rng = m->rng * 1103515245u + 12345u;
				tail->prio = m->rng;
				insert_node(m, layer, tail);
			}
		}
	}
	if (ceil_start(m->root[layer], lo) >= hi) {
		changed(m, alo, ahi);
		return; /* nothing starts inside: the common case of a new block */
	}
	struct an_obj *gone = cut(&m->root[layer], lo, hi);
	/* the last one removed may reach past hi: keep its tail */
	struct an_obj *last = gone;
	while (last && last->right)
		last = last->right;
	changed(m, alo, last && last->hi > ahi ? last->hi : ahi);
	if (last && last->hi > hi) {
		struct an_obj *tail = obj_new(m);
		if (tail) {
			*tail = *last;
			tail->lo = hi;
			tail->left = tail->right = NULL;
			m->rng = m->rng * 1103515245u + 12345u;
			tail->prio = m->rng;
			insert_node(m, layer, tail);
		}
	}
	release_all(m, gone);
}

struct an_obj *an_objmap_insert(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi, uint32_t cls)
{
	if (hi <= lo)
		hi = lo + 1;
	an_objmap_punch(m, layer, lo, hi);
	struct an_obj *o = obj_new(m);
	if (!o)
		return NULL;
	m->rng = m->rng * 1103515245u + 12345u;
	*o = (struct an_obj){ .lo = lo, .hi = hi, .cls = cls, .layer = (uint8_t)layer, .alive = 1, .prio = m->rng };
	insert_node(m, layer, o);
	changed(m, lo, hi);
	return o;
}

int64_t an_objmap_remove_at(struct an_objmap *m, int layer, uint64_t lo)
{
	/* down to the node, which its two subtrees merged replace */
	struct an_obj **t = &m->root[layer];
	while (*t && (*t)->lo != lo)
		t = lo < (*t)->lo ? &(*t)->left : &(*t)->right;
	struct an_obj *f = *t;
	if (!f)
		return -1;
	uint32_t cls = f->cls;
	changed(m, f->lo, f->hi);
	*t = merge(f->left, f->right);
	obj_release(m, f);
	return cls;
}

struct an_obj *an_objmap_at(const struct an_objmap *m, int layer, uint64_t lo)
{
	struct an_obj *f = floor_node(m->root[layer], lo);
	return f && f->lo == lo ? f : NULL;
}

/* Smallest start > addr in a layer, or UINT64_MAX. */
static uint64_t next_start(struct an_obj *t, uint64_t addr)
{
	uint64_t best = UINT64_MAX;
	while (t) {
		if (t->lo > addr) {
			best = t->lo;
			t = t->left;
		} else {
			t = t->right;
		}
	}
	return best;
}

struct an_obj *an_objmap_find_safe(const struct an_objmap *m, uint64_t addr, uint64_t *safe_lo,
				   uint64_t *safe_hi)
{
	for (int l = 0; l < AN_LAYERS; l++) {
		struct an_obj *f = floor_node(m->root[l], addr);
		if (!f || addr >= f->hi)
			continue;
		uint64_t lo = f->lo, hi = f->hi;
		for (int h = 0; h < l; h++) {
			/* addr is in no object of layer h: clip to the gap around it */
			struct an_obj *below = floor_node(m->root[h], addr);
			if (below && below->hi > lo)
				lo = below->hi;
			uint64_t next = next_start(m->root[h], addr);
			if (next < hi)
				hi = next;
		}
		*safe_lo = lo;
		*safe_hi = hi;
		return f;
	}
	return NULL;
}

static void each(struct an_obj *t, void (*fn)(void *, const struct an_obj *), void *arg)
{
	if (!t)
		return;
	each(t->left, fn, arg);
	fn(arg, t);
	each(t->right, fn, arg);
}

void an_objmap_each(const struct an_objmap *m, void (*fn)(void *arg, const struct an_obj *o), void *arg)
{
	for (int l = 0; l < AN_LAYERS; l++)
		each(m->root[l], fn, arg);
}
