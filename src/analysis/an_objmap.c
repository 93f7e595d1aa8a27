// SPDX-License-Identifier: MIT
/* Layered interval map of live objects (see an_objmap.h). Each layer is a
 * B+tree keyed by start: a lookup is a few nodes of 32 sorted keys, each
 * searched without a branch. A binary tree of one object a node (a treap)
 * spends its time in mispredicted branches down pointer paths whose keys
 * are random: a third of allocheavy's plain report.
 *
 * Written here rather than taken from a library: the replay needs floor and
 * ceiling by address on a map it changes at every malloc and free, with
 * stable pointers to the objects (lookup caches hold them); Debian's
 * ordered maps (Judy, GLib's sequences and balanced trees) are either
 * pointer-chasing trees again or would copy the objects.
 *
 * Deletion does not rebalance: a node that empties leaves its parent, and
 * a root with one child hands over to it, but a node with few keys stays.
 * Every invariant a search needs still holds, and the height is bounded by
 * the inserts (a level is added only when a full root splits). */
#include "analysis/an_objmap.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_bigmem.h"

#define CHUNK_FIRST (16u << 10) /* a small map (a short child's) stays small */
#define CHUNK_MAX (2u << 20) /* one transparent huge page */
#define BT_CAP 32 /* keys per node: four quarters of eight (bn_upper) */
#define BT_MAXH 24 /* levels: each needs 16x the inserts of the one below */

/* Keys sorted, unused slots UINT64_MAX (no object starts there: its end
 * would be past the last address). A leaf's are its objects' starts.
 * An inner node's key[0] is 0 and key[i] is the least start child i may
 * hold: keys in child i lie in [key[i], key[i + 1]). No node but a root
 * leaf is ever empty. A node is whole cache lines, keys first: a search
 * reads the four lines of keys at once and then one of pointers. */
struct an_bnode {
	uint64_t key[BT_CAP];
	void *ptr[BT_CAP]; /* leaf: struct an_obj *; inner: struct an_bnode * */
	struct an_bnode *prev, *next; /* leaves in key order; the spare list */
	uint32_t n;
	uint8_t leaf;
} __attribute__((aligned(64)));

/* How many keys are <= a: the keys are sorted, so the quarters' last keys
 * (7, 15, 23, 31) that are <= a tell how many whole quarters lie at or
 * below it, and a count over the next quarter's eight keys finishes it
 * (the padding is above every start, so a is capped below it). Twelve
 * compares, not 32: the tree's walks are a fifth of the frees' and the
 * joins' work among a million blocks. Each count's compares are
 * independent, so they overlap, and no branch depends on the keys: a
 * binary search's six steps each waited for the load the step before
 * chose, and were most of a malloc's and a free's cost. Nor is n read: it
 * lies in a line of its own, one more host miss a level when lookups go at
 * random. */
static inline unsigned bn_upper(const struct an_bnode *b, uint64_t a)
{
	_Static_assert(BT_CAP == 32, "four quarters of eight keys");
	a = a < UINT64_MAX ? a : UINT64_MAX - 1;
	unsigned q = (b->key[7] <= a) + (b->key[15] <= a) + (b->key[23] <= a) + (b->key[31] <= a);
	q = q < 3 ? q : 3; /* (all four: the last quarter's count is 8) */
	const uint64_t *k = &b->key[8 * q];
	unsigned c0 = (k[0] <= a) + (k[4] <= a), c1 = (k[1] <= a) + (k[5] <= a);
	unsigned c2 = (k[2] <= a) + (k[6] <= a), c3 = (k[3] <= a) + (k[7] <= a);
	return 8 * q + c0 + c1 + c2 + c3;
}

/* The child of inner node b whose keys' range holds a. */
static inline unsigned bn_child(const struct an_bnode *b, uint64_t a)
{
	return bn_upper(b, a) - 1; /* (key[0] is 0: at least 1) */
}

/* The leaf of the layer's tree whose range holds a (the layer has a root;
 * its height says how far down, so no node's leaf mark is read). */
static const struct an_bnode *bn_leaf_for(const struct an_objmap *m, int layer, uint64_t a)
{
	const struct an_bnode *b = m->root[layer];
	for (unsigned h = m->height[layer]; h > 1; h--)
		b = b->ptr[bn_child(b, a)];
	return b;
}

void an_objmap_init(struct an_objmap *m)
{
	memset(m, 0, sizeof(*m));
	m->obj_carve.grow = m->node_carve.grow = CHUNK_FIRST;
	memset(m->wait_slot, 0xff, sizeof(m->wait_slot));
	an_shadow_init(&m->shadow);
	m->shadow_from = AN_OBJMAP_SHADOW_FROM;
}

void an_objmap_fini(struct an_objmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nchunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	free(m->objchunk);
	an_shadow_fini(&m->shadow);
	memset(m, 0, sizeof(*m));
}

/* size bytes from c's chunk, a new chunk when it is
 * used up, each twice the last up to CHUNK_MAX; NULL on ENOMEM. Freed with
 * the map. */
static void *carve(struct an_objmap *m, struct an_carve *c, size_t size)
{
	if ((size_t)(c->end - c->next) < size) {
		void **v = realloc(m->chunks, (m->nchunks + 1) * sizeof(*v));
		if (!v)
			return NULL;
		m->chunks = v;
		char *p = mp_big_alloc(c->grow);
		if (!p)
			return NULL;
		v[m->nchunks++] = p;
		c->next = p;
		c->end = p + c->grow;
		if (c->grow < CHUNK_MAX)
			c->grow *= 2;
	}
	void *p = c->next;
	c->next += size;
	return p;
}

/* At least n spare nodes: 0, or -1 on ENOMEM. */
static int bn_reserve(struct an_objmap *m, size_t n)
{
	while (m->nspare < n) {
		struct an_bnode *b = carve(m, &m->node_carve, sizeof(*b));
		if (!b)
			return -1;
		b->next = m->spare;
		m->spare = b;
		m->nspare++;
	}
	return 0;
}

/* An empty node from the spares (bn_reserve made sure of one). */
static struct an_bnode *bn_take(struct an_objmap *m, int leaf)
{
	struct an_bnode *b = m->spare;
	m->spare = b->next;
	m->nspare--;
	memset(b->key, 0xff, sizeof(b->key));
	b->prev = b->next = NULL;
	b->n = 0;
	b->leaf = (uint8_t)leaf;
	return b;
}

static void bn_give(struct an_objmap *m, struct an_bnode *b)
{
	b->next = m->spare;
	m->spare = b;
	m->nspare++;
}

/* Puts (key, ptr) at position i of b, which has room. */
static void bn_put(struct an_bnode *b, unsigned i, uint64_t key, void *ptr)
{
	memmove(&b->key[i + 1], &b->key[i], (b->n - i) * sizeof(b->key[0]));
	memmove(&b->ptr[i + 1], &b->ptr[i], (b->n - i) * sizeof(b->ptr[0]));
	b->key[i] = key;
	b->ptr[i] = ptr;
	b->n++;
}

/* Takes out the entry at position i of b. */
static void bn_cut(struct an_bnode *b, unsigned i)
{
	memmove(&b->key[i], &b->key[i + 1], (b->n - i - 1) * sizeof(b->key[0]));
	memmove(&b->ptr[i], &b->ptr[i + 1], (b->n - i - 1) * sizeof(b->ptr[0]));
	b->n--;
	b->key[b->n] = UINT64_MAX;
}

/* New node r goes right after b: leaves are kept in key order. */
static void bn_link_after(struct an_bnode *b, struct an_bnode *r)
{
	if (!b->leaf)
		return;
	r->prev = b;
	r->next = b->next;
	if (b->next)
		b->next->prev = r;
	b->next = r;
}

/* Moves b's upper half to a new right sibling r, which it returns; *sep
 * gets the least key r's range holds. */
static struct an_bnode *bn_split(struct an_objmap *m, struct an_bnode *b, uint64_t *sep)
{
	struct an_bnode *r = bn_take(m, b->leaf);
	const unsigned h = BT_CAP / 2;
	memcpy(r->key, &b->key[h], h * sizeof(b->key[0]));
	memcpy(r->ptr, &b->ptr[h], h * sizeof(b->ptr[0]));
	memset(&b->key[h], 0xff, h * sizeof(b->key[0]));
	r->n = h;
	b->n = h;
	*sep = r->key[0];
	bn_link_after(b, r);
	if (!b->leaf)
		r->key[0] = 0;
	return r;
}

/* --- the shadow of small blocks (an_objmap.h) ----------------------------- */

/* o's name in the shadow, 0: none. */
static uint32_t obj_id(const struct an_objmap *m, const struct an_obj *o)
{
	if (o->chunk == AN_OBJ_UNNAMED)
		return 0;
	return ((uint32_t)o->chunk << 16 | (uint32_t)(o - m->objchunk[o->chunk])) + 1;
}

/* The object named id (!= 0). */
static inline struct an_obj *obj_named(const struct an_objmap *m, uint32_t id)
{
	id--;
	return m->objchunk[id >> 16] + (id & 0xffff);
}

/* o, of AN_LAYER_OBJECT's tree, named in its granules if it is small (on
 * ENOMEM it is not: lookups in it go to the tree). */
static void shadow_add(struct an_objmap *m, const struct an_obj *o)
{
	uint32_t id;
	if (m->shadow_on && o->hi - o->lo <= AN_OBJMAP_SHADOW_MAX && (id = obj_id(m, o)))
		(void)an_shadow_put(&m->shadow, o->lo, o->hi, id);
}

/* o leaves AN_LAYER_OBJECT's tree or its range changes: no granule names
 * it (the ones a block after it named stay). */
static void shadow_del(struct an_objmap *m, const struct an_obj *o)
{
	uint32_t id;
	if (m->shadow_on && o->hi - o->lo <= AN_OBJMAP_SHADOW_MAX && (id = obj_id(m, o)))
		an_shadow_clear(&m->shadow, o->lo, o->hi, id);
}

/* The way down to the leaf whose range holds key: path[0..*h) the inner
 * nodes, at[] the child taken in each. The layer has a root. */
static struct an_bnode *bt_descend(const struct an_objmap *m, int layer, uint64_t key, struct an_bnode **path,
				   unsigned *at, int *h)
{
	struct an_bnode *b = m->root[layer];
	*h = 0;
	for (unsigned lv = m->height[layer]; lv > 1; lv--) {
		path[*h] = b;
		at[*h] = bn_child(b, key);
		b = b->ptr[at[(*h)++]];
	}
	return b;
}

/* Adds object o at position i of leaf b, reached by path/at (bt_descend),
 * splitting full nodes up the path. o's start is no object's of the layer.
 * -1 on ENOMEM, with nothing changed. */
static int bt_insert_at(struct an_objmap *m, int layer, struct an_bnode *b, unsigned i, struct an_bnode **path,
			const unsigned *at, int h, struct an_obj *o)
{
	if (bn_reserve(m, (size_t)h + 2)) /* a split on every level and a new root */
		return -1;
	m->shape++;
	if (layer == AN_LAYER_OBJECT)
		shadow_add(m, o); /* (nothing below fails) */
	uint64_t key = o->lo;
	void *ptr = o;
	for (;;) {
		if (b->n < BT_CAP) {
			bn_put(b, i, key, ptr);
			return 0;
		}
		uint64_t sep;
		struct an_bnode *r;
		if (i == BT_CAP) {
			/* At the end of a full node: b stays full and the new
			 * entry begins a node of its own. Addresses a program
			 * allocates in turn come in rising, and halves would
			 * leave every node half empty: twice the nodes, the
			 * memory and the host misses of every lookup. */
			r = bn_take(m, b->leaf);
			bn_link_after(b, r);
			bn_put(r, 0, key, ptr);
			sep = key;
			if (!b->leaf)
				r->key[0] = 0;
		} else {
			r = bn_split(m, b, &sep);
			/* (at the middle it ends b: r's range begins at sep) */
			if (i > BT_CAP / 2)
				bn_put(r, i - BT_CAP / 2, key, ptr);
			else
				bn_put(b, i, key, ptr);
		}
		/* the new node goes to the parent, after b */
		key = sep;
		ptr = r;
		if (!h) {
			struct an_bnode *root = bn_take(m, 0);
			root->key[0] = 0;
			root->ptr[0] = b;
			root->key[1] = sep;
			root->ptr[1] = r;
			root->n = 2;
			m->root[layer] = root;
			m->height[layer]++;
			return 0;
		}
		b = path[--h];
		i = at[h] + 1;
	}
}

/* Adds object o, whose start no object of the layer has. -1 on ENOMEM,
 * with nothing changed. */
static int bt_insert(struct an_objmap *m, int layer, struct an_obj *o)
{
	struct an_bnode *path[BT_MAXH];
	unsigned at[BT_MAXH];
	int h;
	if (!m->root[layer]) {
		if (bn_reserve(m, 1))
			return -1;
		m->root[layer] = bn_take(m, 1);
		m->height[layer] = 1;
	}
	struct an_bnode *b = bt_descend(m, layer, o->lo, path, at, &h);
	return bt_insert_at(m, layer, b, bn_upper(b, o->lo), path, at, h, o);
}

/* Takes out the object starting exactly at lo; returns it or NULL. */
static struct an_obj *bt_remove(struct an_objmap *m, int layer, uint64_t lo)
{
	struct an_bnode *path[BT_MAXH];
	unsigned at[BT_MAXH];
	int h;
	if (!m->root[layer])
		return NULL;
	struct an_bnode *b = bt_descend(m, layer, lo, path, at, &h);
	unsigned i = bn_upper(b, lo);
	if (!i || b->key[i - 1] != lo)
		return NULL;
	struct an_obj *o = b->ptr[i - 1];
	m->shape++;
	if (layer == AN_LAYER_OBJECT)
		shadow_del(m, o);
	bn_cut(b, i - 1);
	/* an emptied node leaves its parent, which may empty in turn */
	while (!b->n && h) {
		if (b->leaf) {
			if (b->prev)
				b->prev->next = b->next;
			if (b->next)
				b->next->prev = b->prev;
		}
		bn_give(m, b);
		b = path[--h];
		unsigned c = at[h];
		if (c == 0 && b->n > 1) {
			/* child 1 takes child 0's range: key[0] stays 0 */
			b->key[1] = 0;
			bn_cut(b, 0);
		} else {
			bn_cut(b, c);
		}
	}
	/* a root with one child hands over to it */
	struct an_bnode *r = m->root[layer];
	while (!r->leaf && r->n == 1) {
		m->root[layer] = r->ptr[0];
		m->height[layer]--;
		bn_give(m, r);
		r = m->root[layer];
	}
	return o;
}

/* The object before position i of leaf b (the last of the leaf before
 * when i is 0: keys before a leaf's range are all below its own), or NULL. */
static struct an_obj *leaf_before(const struct an_bnode *b, unsigned i)
{
	if (i)
		return b->ptr[i - 1];
	b = b->prev;
	return b ? b->ptr[b->n - 1] : NULL;
}

/* The object at position i of leaf b, or past its end the next leaf's
 * first, or NULL. */
static struct an_obj *leaf_at(const struct an_bnode *b, unsigned i)
{
	if (i < b->n)
		return b->ptr[i];
	b = b->next;
	return b ? b->ptr[0] : NULL;
}

/* The object of the layer with the greatest start <= addr, or NULL. */
static struct an_obj *floor_node(const struct an_objmap *m, int layer, uint64_t addr)
{
	if (!m->root[layer])
		return NULL;
	const struct an_bnode *b = bn_leaf_for(m, layer, addr);
	return leaf_before(b, bn_upper(b, addr));
}

/* The object of the layer with the least start >= addr, or NULL. */
static struct an_obj *ceil_node(const struct an_objmap *m, int layer, uint64_t addr)
{
	if (!m->root[layer])
		return NULL;
	const struct an_bnode *b = bn_leaf_for(m, layer, addr);
	return leaf_at(b, addr ? bn_upper(b, addr - 1) : 0); /* (past the keys < addr) */
}

/* Smallest start >= addr in a layer, or UINT64_MAX. */
static uint64_t ceil_start(const struct an_objmap *m, int layer, uint64_t addr)
{
	const struct an_obj *o = ceil_node(m, layer, addr);
	return o ? o->lo : UINT64_MAX;
}

/* A new object, its chunk set (the caller sets the rest, keeping it). */
static struct an_obj *obj_new(struct an_objmap *m)
{
	struct an_obj *o = m->free_list;
	if (o) {
		m->free_list = o->next_free;
		return o;
	}
	_Static_assert(64 % sizeof(struct an_obj) == 0, "objects tile cache lines");
	_Static_assert(CHUNK_MAX / sizeof(struct an_obj) <= 1u << 16, "an object's number in its chunk is 16 bits");
	struct an_carve *c = &m->obj_carve;
	const int fresh = (size_t)(c->end - c->next) < sizeof(*o);
	if (fresh && m->nobjchunk == m->objchunk_cap) {
		size_t cap = m->objchunk_cap ? 2 * m->objchunk_cap : 16;
		struct an_obj **v = realloc(m->objchunk, cap * sizeof(*v));
		if (!v)
			return NULL;
		m->objchunk = v;
		m->objchunk_cap = cap;
	}
	if (!(o = carve(m, c, sizeof(*o))))
		return NULL;
	if (fresh)
		m->objchunk[m->nobjchunk++] = o;
	o->chunk = m->nobjchunk <= AN_OBJ_UNNAMED ? (uint16_t)(m->nobjchunk - 1) : AN_OBJ_UNNAMED;
	return o;
}

static void obj_release(struct an_objmap *m, struct an_obj *o)
{
	o->alive = 0;
	o->next_free = m->free_list;
	m->free_list = o;
}

/* A new object of the layer: a copy of *like over [lo, hi). */
static void add_piece(struct an_objmap *m, int layer, const struct an_obj *like, uint64_t lo, uint64_t hi)
{
	struct an_obj *o = obj_new(m);
	if (!o)
		return;
	const uint16_t chunk = o->chunk;
	*o = *like;
	o->chunk = chunk;
	o->lo = lo;
	o->hi = hi;
	if (bt_insert(m, layer, o))
		obj_release(m, o);
	else
		m->live++;
}

/* A change to [lo, hi): the next change number, and its range logged
 * (an_objmap_unchanged). */
static void changed(struct an_objmap *m, uint64_t lo, uint64_t hi)
{
	m->gen++;
	m->log_lo[m->gen % AN_OBJMAP_LOG] = lo;
	m->log_hi[m->gen % AN_OBJMAP_LOG] = hi;
}

/* an_objmap_punch on the tree alone, unlogged; returns 1 and the range it
 * touched in *tlo, *thi, or 0 for an empty hole. */
static int punch(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi, uint64_t *tlo, uint64_t *thi)
{
	if (hi <= lo)
		return 0;
	/* the range the change touches: [lo, hi) and whole objects cut */
	uint64_t alo = lo, ahi = hi;
	/* an object starting before lo that reaches past it: trim or split */
	struct an_obj *f = lo ? floor_node(m, layer, lo - 1) : NULL;
	if (f && f->hi > lo) {
		uint64_t old_hi = f->hi;
		alo = f->lo;
		ahi = old_hi > ahi ? old_hi : ahi;
		if (layer == AN_LAYER_OBJECT)
			shadow_del(m, f);
		f->hi = lo;
		if (layer == AN_LAYER_OBJECT)
			shadow_add(m, f);
		m->shape++;
		if (old_hi > hi)
			add_piece(m, layer, f, hi, old_hi);
	}
	/* the objects starting inside go; the last may reach past hi: its
	 * tail stays */
	struct an_obj *o;
	while ((o = ceil_node(m, layer, lo)) && o->lo < hi) {
		bt_remove(m, layer, o->lo);
		m->live--;
		if (o->hi > hi) {
			ahi = o->hi > ahi ? o->hi : ahi;
			add_piece(m, layer, o, hi, o->hi);
		}
		obj_release(m, o);
	}
	*tlo = alo;
	*thi = ahi;
	return 1;
}

/* Puts new object o in its layer's tree, ending what it overlaps there
 * (logged). 0, or -1 on ENOMEM with o in no tree. */
static int bt_add(struct an_objmap *m, struct an_obj *o)
{
	/* Mostly the range is free (a malloc of memory freed before): one way
	 * down finds its neighbours and the place for it, and no punch is
	 * logged (a lookup stays good for the last AN_OBJMAP_LOG changes: a
	 * punch's and an insert's per malloc halved that). */
	struct an_bnode *path[BT_MAXH];
	unsigned at[BT_MAXH];
	int h, layer = o->layer;
	if (m->root[layer] && m->root[layer]->n) {
		struct an_bnode *b = bt_descend(m, layer, o->lo, path, at, &h);
		unsigned i = bn_upper(b, o->lo);
		const struct an_obj *f = leaf_before(b, i), *c = leaf_at(b, i);
		if ((!f || f->hi <= o->lo) && (!c || c->lo >= o->hi))
			return bt_insert_at(m, layer, b, i, path, at, h, o);
	}
	uint64_t tlo, thi;
	if (punch(m, layer, o->lo, o->hi, &tlo, &thi))
		changed(m, tlo, thi);
	return bt_insert(m, layer, o);
}

/* --- objects kept aside (an_objmap.h) ----------------------------------- */

#define WAIT_BITS 9
#define WAIT_SLOTS (1u << WAIT_BITS) /* at most half full */
_Static_assert(WAIT_SLOTS == 2 * AN_OBJMAP_WAIT, "the index has twice the slots of the objects");

static inline unsigned wait_home(uint64_t lo)
{
	return (unsigned)((lo * 0x9e3779b97f4a7c15ull) >> (64 - WAIT_BITS));
}

/* The index slot of the object waiting with start lo, or -1. */
static int wait_find(const struct an_objmap *m, uint64_t lo)
{
	for (unsigned h = wait_home(lo);; h = (h + 1) & (WAIT_SLOTS - 1)) {
		int32_t i = m->wait_slot[h];
		if (i < 0)
			return -1;
		if (m->wait[i]->lo == lo)
			return (int)h;
	}
}

static void wait_index(struct an_objmap *m, uint32_t i)
{
	unsigned h = wait_home(m->wait[i]->lo);
	while (m->wait_slot[h] >= 0)
		h = (h + 1) & (WAIT_SLOTS - 1);
	m->wait_slot[h] = (int32_t)i;
}

/* Empties index slot h; the entries after it in its run move back to where
 * a probe from their home finds them (no tombstones to sweep). */
static void wait_unindex(struct an_objmap *m, unsigned h)
{
	for (unsigned j = (h + 1) & (WAIT_SLOTS - 1);; j = (j + 1) & (WAIT_SLOTS - 1)) {
		int32_t i = m->wait_slot[j];
		if (i < 0)
			break;
		unsigned home = wait_home(m->wait[i]->lo);
		if (((j - home) & (WAIT_SLOTS - 1)) >= ((j - h) & (WAIT_SLOTS - 1))) {
			m->wait_slot[h] = i;
			h = j;
		}
	}
	m->wait_slot[h] = -1;
}

/* Every waiting object goes into the tree, in the order they came: one
 * overlapping another (a free not seen, or replayed late) ends it there,
 * as it would have on the spot. Before anything reads the tree. */
static void wait_join(struct an_objmap *m)
{
	uint32_t n = m->nwait;
	if (!n)
		return;
	if (m->wait_live > WAIT_SLOTS / 16) {
		memset(m->wait_slot, 0xff, sizeof(m->wait_slot));
	} else {
		/* (a lookup in a burst joins one or two: their slots alone;
		 * emptied in any order, a slot's run may break, so each search
		 * goes on past empty slots to its own) */
		for (uint32_t i = 0; i < n; i++) {
			if (!m->wait[i])
				continue;
			unsigned h = wait_home(m->wait[i]->lo);
			while (m->wait_slot[h] != (int32_t)i)
				h = (h + 1) & (WAIT_SLOTS - 1);
			m->wait_slot[h] = -1;
		}
	}
	m->nwait = m->wait_live = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct an_obj *o = m->wait[i];
		if (o && bt_add(m, o)) {
			/* (ENOMEM: gone, and a lookup that held it drops it) */
			m->live--;
			changed(m, o->lo, o->hi);
			obj_release(m, o);
		}
	}
}

/* o, new in AN_LAYER_OBJECT, waits aside (what it overlaps ends at the
 * join: wait_join). 1 if it does, 0 if it must go in the tree now. */
static int wait_aside(struct an_objmap *m, struct an_obj *o)
{
	if (m->nwait == AN_OBJMAP_WAIT) {
		/* full of taken-back holes: close them up, or if most still
		 * wait (nothing has looked up for long), join them */
		if (m->wait_live > AN_OBJMAP_WAIT / 2) {
			wait_join(m);
		} else {
			uint32_t n = 0;
			memset(m->wait_slot, 0xff, sizeof(m->wait_slot));
			for (uint32_t i = 0; i < m->nwait; i++)
				if (m->wait[i]) {
					m->wait[n] = m->wait[i];
					wait_index(m, n++);
				}
			m->nwait = n;
		}
	}
	/* Overlaps are not looked for here (a way down the tree cost a full
	 * trace's malloc 6%, for what the join finds anyway), but for one
	 * with an object waiting at o's start, which then goes first, and
	 * in the tree when o is taken back (an_objmap_remove_at). At the
	 * join, in order, each ends what it overlaps, as on the spot. What
	 * differs: a free, before the join, of an object a waiting one
	 * overlaps takes it whole, where on the spot the part left, or
	 * nothing, would have gone. A free replayed after a malloc another
	 * thread made later in the same epoch ends that way; an allocator
	 * never gives out a live block, so it takes two events missed. */
	if (m->wait_live && wait_find(m, o->lo) >= 0)
		return 0;
	m->wait[m->nwait] = o;
	wait_index(m, m->nwait++);
	m->wait_live++;
	return 1;
}

void an_objmap_join(struct an_objmap *m)
{
	wait_join(m);
}

void an_objmap_punch(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi)
{
	uint64_t tlo, thi;
	wait_join(m);
	if (punch(m, layer, lo, hi, &tlo, &thi))
		changed(m, tlo, thi);
}

struct an_obj *an_objmap_insert(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi, uint32_t cls)
{
	if (lo == UINT64_MAX)
		lo--; /* (a damaged file's: UINT64_MAX is the nodes' padding) */
	if (hi <= lo)
		hi = lo + 1;
	struct an_obj *o = obj_new(m);
	if (!o)
		return NULL;
	*o = (struct an_obj){
		.lo = lo, .hi = hi, .cls = cls, .layer = (uint8_t)layer, .alive = 1, .chunk = o->chunk
	};
	if (layer != AN_LAYER_OBJECT || !wait_aside(m, o)) {
		/* (the tree gets what waits first: o may end some of it) */
		wait_join(m);
		if (bt_add(m, o)) {
			obj_release(m, o);
			return NULL;
		}
	}
	m->live++;
	changed(m, lo, hi);
	return o;
}

/* The nodes and objects of a tree bt_build left half made: back to the
 * spares and the free list. */
static void bt_unbuild(struct an_objmap *m, struct an_bnode *head, struct an_obj *const *objs, uint32_t nobjs)
{
	for (uint32_t k = 0; k < nobjs; k++)
		obj_release(m, objs[k]);
	for (struct an_bnode *b = head; b; b = head) {
		head = b->next;
		for (uint32_t k = 0; k < b->n; k++)
			obj_release(m, b->ptr[k]);
		bn_give(m, b);
	}
}

/* Builds the empty layer's tree of v[0..n) (sorted by start, none
 * overlapping, n > 0): full leaves in turn, as appends in rising order
 * fill them (bt_insert_at), then each level above from the one below. A
 * level is a list through its nodes' next, and an inner node's key[0]
 * holds the least start under it until it has a parent. Objects and
 * nodes are made in the order inserts made them (a leaf's objects, then
 * the leaf): in another, the C library's heap kept more of the freed
 * maps of a shell's thousands of children (+60% peak RSS). 0 or -1 on
 * ENOMEM, with the layer as it was. */
static int bt_build(struct an_objmap *m, int layer, const struct an_objmap_item *v, size_t n)
{
	struct an_bnode *head = NULL, *last = NULL;
	struct an_obj *objs[BT_CAP];
	for (size_t made = 0; made < n;) {
		uint32_t k = 0;
		for (; k < BT_CAP && made < n; k++, made++) {
			struct an_obj *o = objs[k] = obj_new(m);
			if (!o) {
				bt_unbuild(m, head, objs, k);
				return -1;
			}
			*o = (struct an_obj){ .lo = v[made].lo, .hi = v[made].hi, .cls = v[made].cls,
					      .layer = (uint8_t)layer, .alive = 1, .chunk = o->chunk };
		}
		if (bn_reserve(m, 1)) {
			bt_unbuild(m, head, objs, k);
			return -1;
		}
		struct an_bnode *b = bn_take(m, 1);
		for (uint32_t i = 0; i < k; i++) {
			b->key[i] = objs[i]->lo;
			b->ptr[i] = objs[i];
		}
		b->n = k;
		if (last)
			last->next = b;
		else
			head = b;
		b->prev = last;
		last = b;
	}
	/* the levels above: a node's worth at most on each for every 32 below */
	size_t nodes = 0;
	for (const struct an_bnode *b = head; b; b = b->next)
		nodes++;
	size_t above = 0;
	for (size_t c = nodes; c > 1; above += c)
		c = (c + BT_CAP - 1) / BT_CAP;
	if (bn_reserve(m, above)) {
		bt_unbuild(m, head, NULL, 0);
		return -1;
	}
	unsigned height = 1;
	for (; head->next; height++) {
		struct an_bnode *up = NULL, *tail = NULL;
		for (struct an_bnode *c = head; c;) {
			struct an_bnode *p = bn_take(m, 0);
			for (; c && p->n < BT_CAP; p->n++) {
				struct an_bnode *after = c->next;
				p->key[p->n] = c->key[0];
				p->ptr[p->n] = c;
				if (!c->leaf) {
					c->key[0] = 0;
					c->next = NULL;
				}
				c = after;
			}
			if (tail)
				tail->next = p;
			else
				up = p;
			tail = p;
		}
		head = up;
	}
	if (!head->leaf) {
		head->key[0] = 0;
		head->next = NULL;
	}
	m->root[layer] = head;
	m->height[layer] = (uint8_t)height;
	return 0;
}

/* v[0..n) rise by start, none overlapping another, each a range. */
static int sorted_apart(const struct an_objmap_item *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (v[k].hi <= v[k].lo || v[k].lo == UINT64_MAX || (k && v[k].lo < v[k - 1].hi))
			return 0;
	return 1;
}

int an_objmap_load(struct an_objmap *m, const struct an_objmap_item *v, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		const int layer = v[i].layer;
		for (j = i + 1; j < n && v[j].layer == layer; j++)
			;
		if (layer >= AN_LAYERS)
			continue;
		if (m->nwait || !an_objmap_layer_empty(m, layer) || !sorted_apart(v + i, j - i) ||
		    bt_build(m, layer, v + i, j - i)) {
			for (size_t k = i; k < j; k++)
				if (!an_objmap_insert(m, layer, v[k].lo, v[k].hi, v[k].cls))
					return -ENOMEM;
			continue;
		}
		m->live += j - i;
		m->shape++;
		changed(m, v[i].lo, v[j - 1].hi);
		if (layer == AN_LAYER_OBJECT && m->shadow_on)
			for (const struct an_bnode *b = bn_leaf_for(m, layer, 0); b; b = b->next)
				for (uint32_t k = 0; k < b->n; k++)
					shadow_add(m, b->ptr[k]);
	}
	return 0;
}

/* 1 if o, waiting, overlaps an object of AN_LAYER_OBJECT's tree. A free
 * range of the tree found on the way is kept while the tree stays as it
 * was: between a bounded trace's bursts the tree holds the stack, the
 * statics and few blocks, and the heap's frees fall in one range. */
static int tree_overlaps(struct an_objmap *m, const struct an_obj *o)
{
	if (m->gap_shape == m->shape && m->gap_lo <= o->lo && o->hi <= m->gap_hi)
		return 0;
	if (!m->root[o->layer] || !m->root[o->layer]->n)
		return 0;
	const struct an_bnode *b = bn_leaf_for(m, o->layer, o->lo);
	unsigned i = bn_upper(b, o->lo);
	const struct an_obj *f = leaf_before(b, i), *c = leaf_at(b, i);
	if ((f && f->hi > o->lo) || (c && c->lo < o->hi))
		return 1;
	m->gap_lo = f ? f->hi : 0;
	m->gap_hi = c ? c->lo : UINT64_MAX;
	m->gap_shape = m->shape;
	return 0;
}

int an_objmap_layer_empty(const struct an_objmap *m, int layer)
{
	return !m->root[layer] || !m->root[layer]->n;
}

int64_t an_objmap_remove_at(struct an_objmap *m, int layer, uint64_t lo)
{
	return an_objmap_take_at(m, layer, lo, NULL);
}

int64_t an_objmap_take_at(struct an_objmap *m, int layer, uint64_t lo, uint64_t *hi)
{
	struct an_obj *o = NULL;
	if (layer == AN_LAYER_OBJECT && m->wait_live) {
		int h = wait_find(m, lo);
		if (h >= 0 && tree_overlaps(m, m->wait[m->wait_slot[h]])) {
			/* it ended a part of an object of the tree (whose free
			 * was not seen: the allocator gave its memory again) */
			wait_join(m);
		} else if (h >= 0) {
			o = m->wait[m->wait_slot[h]];
			m->wait[m->wait_slot[h]] = NULL;
			wait_unindex(m, (unsigned)h);
			if (!--m->wait_live)
				m->nwait = 0;
		}
	}
	if (!o)
		o = bt_remove(m, layer, lo);
	if (!o)
		return -1;
	uint32_t cls = o->cls;
	if (hi)
		*hi = o->hi;
	m->live--;
	changed(m, o->lo, o->hi);
	obj_release(m, o);
	return cls;
}

struct an_obj *an_objmap_at(struct an_objmap *m, int layer, uint64_t lo)
{
	wait_join(m);
	struct an_obj *f = floor_node(m, layer, lo);
	return f && f->lo == lo ? f : NULL;
}

int an_objmap_on_top(const struct an_objmap *m, const struct an_obj *o)
{
	for (int h = 0; h < o->layer; h++)
		if ((m->root[h] && m->root[h]->n) || (h == AN_LAYER_OBJECT && m->wait_live))
			return 0;
	return 1;
}

/* The shadow, on: every small block of AN_LAYER_OBJECT's tree named. */
static void shadow_start(struct an_objmap *m)
{
	m->shadow_on = 1;
	if (!m->root[AN_LAYER_OBJECT])
		return;
	const struct an_bnode *b = m->root[AN_LAYER_OBJECT];
	while (!b->leaf)
		b = b->ptr[0];
	for (; b; b = b->next)
		for (uint32_t i = 0; i < b->n; i++)
			shadow_add(m, b->ptr[i]);
}

/* floor_node of AN_LAYER_OBJECT, through the shadow when a block there
 * holds addr (then it is the floor: the layer's ranges never overlap). */
static struct an_obj *object_floor(struct an_objmap *m, uint64_t addr)
{
	if (m->shadow_on) {
		uint32_t id = an_shadow_get(&m->shadow, addr);
		if (id) {
			struct an_obj *o = obj_named(m, id);
			if (addr - o->lo < o->hi - o->lo)
				return o;
		}
	} else if (m->live >= m->shadow_from) {
		shadow_start(m);
	}
	return floor_node(m, AN_LAYER_OBJECT, addr);
}

struct an_obj *an_objmap_find_safe(struct an_objmap *m, uint64_t addr, uint64_t *safe_lo, uint64_t *safe_hi)
{
	wait_join(m);
	/* a small block no higher layer has (the layers' loop below says the
	 * same, at twice the cost: most lookups among many blocks end here) */
	_Static_assert(AN_LAYER_OBJECT == 2, "two layers above the blocks");
	if (m->shadow_on && an_objmap_layer_empty(m, AN_LAYER_NAMED) && an_objmap_layer_empty(m, AN_LAYER_CARVED)) {
		uint32_t id = an_shadow_get(&m->shadow, addr);
		if (id) {
			struct an_obj *o = obj_named(m, id);
			if (addr - o->lo < o->hi - o->lo) {
				*safe_lo = o->lo;
				*safe_hi = o->hi;
				return o;
			}
		}
	}
	for (int l = 0; l < AN_LAYERS; l++) {
		/* (most layers of most maps are empty: no way down them) */
		if (an_objmap_layer_empty(m, l))
			continue;
		struct an_obj *f = l == AN_LAYER_OBJECT ? object_floor(m, addr) : floor_node(m, l, addr);
		if (!f || addr >= f->hi)
			continue;
		uint64_t lo = f->lo, hi = f->hi;
		for (int h = 0; h < l; h++) {
			if (an_objmap_layer_empty(m, h))
				continue;
			/* addr is in no object of layer h: clip to the gap around it */
			struct an_obj *below = floor_node(m, h, addr);
			if (below && below->hi > lo)
				lo = below->hi;
			uint64_t next = addr < UINT64_MAX ? ceil_start(m, h, addr + 1) : UINT64_MAX;
			if (next < hi)
				hi = next;
		}
		*safe_lo = lo;
		*safe_hi = hi;
		return f;
	}
	return NULL;
}

static void hint_keys(const struct an_bnode *b)
{
	for (unsigned j = 0; j < BT_CAP; j += 64 / sizeof(b->key[0]))
		__builtin_prefetch(&b->key[j]);
}

void an_objmap_hint_begin(const struct an_objmap *m, uint64_t addr, struct an_objmap_hint *h)
{
	h->node = NULL;
	h->slot = NULL;
	if (an_objmap_layer_empty(m, AN_LAYER_OBJECT))
		return;
	const struct an_bnode *b = m->root[AN_LAYER_OBJECT];
	unsigned below = m->height[AN_LAYER_OBJECT] - 1u;
	for (; below > 1; below--)
		b = b->ptr[bn_child(b, addr)];
	hint_keys(b);
	h->node = b;
	h->shape = m->shape;
	h->below = below;
}

void an_objmap_hint_step(const struct an_objmap *m, uint64_t addr, struct an_objmap_hint *h)
{
	const struct an_bnode *b = h->node;
	if (!b)
		return;
	if (h->shape != m->shape) {
		h->node = NULL;
		return;
	}
	if (!h->below) {
		/* a leaf, fetched whole: its object */
		unsigned i = bn_upper(b, addr);
		if (i) /* (else the object before is the leaf before's) */
			__builtin_prefetch(b->ptr[i - 1]);
		h->node = NULL;
		return;
	}
	if (!h->slot) {
		h->slot = &b->ptr[bn_child(b, addr)];
		__builtin_prefetch(h->slot);
		return;
	}
	const struct an_bnode *c = *h->slot;
	h->slot = NULL;
	hint_keys(c);
	if (!--h->below) /* (and a leaf's pointers: one step less) */
		for (unsigned j = 0; j < BT_CAP; j += 64 / sizeof(c->ptr[0]))
			__builtin_prefetch(&c->ptr[j]);
	h->node = c;
}

void an_objmap_each(struct an_objmap *m, void (*fn)(void *arg, const struct an_obj *o), void *arg)
{
	wait_join(m);
	for (int l = 0; l < AN_LAYERS; l++) {
		if (!m->root[l])
			continue;
		const struct an_bnode *b = m->root[l];
		while (!b->leaf)
			b = b->ptr[0];
		for (; b; b = b->next)
			for (uint32_t i = 0; i < b->n; i++)
				fn(arg, b->ptr[i]);
	}
}
