/* SPDX-License-Identifier: MIT */
/*
 * The live objects of one address space at the current point of the replay,
 * in priority layers (user-named > blocks of the program's own allocators >
 * heap/static/stack > mmaps/sections > start-up mappings). Within a layer ranges never overlap: inserting a range
 * ends whatever it overlaps (a block the program freed without us seeing it,
 * a MAP_FIXED over an old mapping). Each layer is a B+tree keyed by start.
 *
 * Heap blocks join their tree late: one the map's lookups have not needed
 * yet waits aside, and a free before then takes it back without the tree
 * (a bounded trace's mallocs and frees between its bursts, when nothing
 * looks up: most of them). Every lookup sees the tree with them all.
 *
 * Once a lookup finds AN_OBJMAP_SHADOW_FROM objects live, the small blocks
 * of AN_LAYER_OBJECT's tree (up to AN_OBJMAP_SHADOW_MAX bytes) are also
 * named in a shadow of the address space (an_shadow.h), granule by
 * granule: a lookup in one is a read of its granule and of the object it
 * names. The tree keeps every object, and answers whatever the shadow
 * does not (a granule two blocks share names the last).
 */
#ifndef MP_AN_OBJMAP_H
#define MP_AN_OBJMAP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/an_shadow.h"

/* AN_LAYER_CARVED: memprism_malloclike blocks, over the pool (a heap
 * block, a static, a mapping) they were carved from, which keeps the rest */
enum { AN_LAYER_NAMED, AN_LAYER_CARVED, AN_LAYER_OBJECT, AN_LAYER_MAP, AN_LAYER_BASE, AN_LAYERS };

struct an_obj {
	uint64_t lo, hi;
	uint32_t cls; /* an_class index */
	uint8_t layer;
	uint8_t alive;
	/* the map's chunk of objects it was carved from (its name in the
	 * shadow: an_objmap.c, obj_id), AN_OBJ_UNNAMED: past the names */
	uint16_t chunk;
	union {
		/* live: burst sampling, the cores (bit core % 64) whose bursts
		 * touched it, its pages in their bounds (an_model_span) */
		uint64_t spanned;
		struct an_obj *next_free; /* freed: on the map's free list */
	};
};

#define AN_OBJ_UNNAMED 0xffff

struct an_bnode; /* a node of a layer's tree (an_objmap.c) */

#define AN_OBJMAP_WAIT 256 /* objects kept aside at most (a power of two) */

#define AN_OBJMAP_LOG 4 /* changes remembered by range (a power of two) */

/* The shadow: from this many objects live (below, the tree stays in the
 * host's caches), for blocks of at most this many bytes (a put writes a
 * value per 16 bytes). */
#define AN_OBJMAP_SHADOW_FROM 16384
#define AN_OBJMAP_SHADOW_MAX 4096

struct an_objmap {
	struct an_bnode *root[AN_LAYERS];
	uint64_t gen; /* bumps on every change: caches of lookups compare it */
	/* the address ranges the last AN_OBJMAP_LOG changes touched: change
	 * number g's at g % AN_OBJMAP_LOG */
	uint64_t log_lo[AN_OBJMAP_LOG], log_hi[AN_OBJMAP_LOG];
	struct an_obj *free_list;
	/* objects and nodes are carved from chunks that grow to 2 MiB pages
	 * (mp_big_alloc): lookups at random among a million small blocks
	 * otherwise miss the host's TLB at every level of the tree */
	void **chunks;
	size_t nchunks;
	struct an_carve {
		char *next, *end;
		size_t grow; /* bytes of the next chunk */
	} obj_carve, node_carve;
	struct an_bnode *spare; /* free nodes, kept so an insert cannot fail half-way */
	size_t nspare;
	uint8_t height[AN_LAYERS]; /* levels of each layer's tree (0: no root) */
	size_t live;
	/* objects of AN_LAYER_OBJECT inserted since the last lookup, not in
	 * the tree: wait[0..nwait) in insertion order (NULL: taken back), and
	 * an open-addressing index of them by start (wait_slot: index in
	 * wait, -1 empty) */
	uint32_t nwait, wait_live;
	/* bumps on every change to a tree; a free address range of
	 * AN_LAYER_OBJECT's tree as it was at shape gap_shape (the last
	 * taking back of a waiting object found it) */
	uint64_t shape, gap_shape, gap_lo, gap_hi;
	struct an_obj *wait[AN_OBJMAP_WAIT];
	int32_t wait_slot[2 * AN_OBJMAP_WAIT];
	/* the chunks objects are carved from, in order: object n of chunk c
	 * is named (c << 16 | n) + 1 in the shadow */
	struct an_obj **objchunk;
	size_t nobjchunk, objchunk_cap;
	/* AN_LAYER_OBJECT's blocks of the tree up to AN_OBJMAP_SHADOW_MAX
	 * bytes, by name, once shadow_on; a lookup with shadow_from objects
	 * live turns it on (a test may set it lower after init) */
	struct an_shadow shadow;
	int shadow_on;
	size_t shadow_from;
};

void an_objmap_init(struct an_objmap *m);
void an_objmap_fini(struct an_objmap *m);

/* Adds [lo,hi) with class cls in layer, ending whatever of the layer it
 * overlaps. NULL on ENOMEM. */
struct an_obj *an_objmap_insert(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi, uint32_t cls);
/* An object for an_objmap_load. */
struct an_objmap_item {
	uint64_t lo, hi;
	uint32_t cls;
	uint8_t layer;
};
/* Adds v[0..n), sorted by layer and then start, none overlapping another
 * of its layer (a forked child's map, made from its parent's): where the
 * layer is empty and nothing waits aside, its tree is built leaf by leaf
 * without a search; otherwise each is inserted. 0, or -ENOMEM (some of
 * them in). */
int an_objmap_load(struct an_objmap *m, const struct an_objmap_item *v, size_t n);
/* Ends the object of layer starting exactly at lo; returns its class or -1. */
int64_t an_objmap_remove_at(struct an_objmap *m, int layer, uint64_t lo);
/* The same, and *hi gets the end of the object that ended. */
int64_t an_objmap_take_at(struct an_objmap *m, int layer, uint64_t lo, uint64_t *hi);
/* 1 if the layer holds no object (the objects waiting aside are
 * AN_LAYER_OBJECT's, which this does not ask about). */
int an_objmap_layer_empty(const struct an_objmap *m, int layer);
/* Removes [lo,hi) from a layer: objects inside go, objects straddling an edge
 * are trimmed (munmap of part of a mapping). */
void an_objmap_punch(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi);
/* Highest-priority live object containing addr, or NULL; safe_lo, safe_hi
 * get the part of it around addr that no higher-priority object covers, so a
 * lookup cache may answer for any address in [*safe_lo, *safe_hi). */
struct an_obj *an_objmap_find_safe(struct an_objmap *m, uint64_t addr, uint64_t *safe_lo, uint64_t *safe_hi);
/* The objects waiting aside go into the tree (the lookups below do it
 * first themselves). */
void an_objmap_join(struct an_objmap *m);

/* A lookup made at change number gen whose answer held for [lo, hi) holds
 * still: no change since touched that range (and the object it found is
 * the same node, live). A malloc or free elsewhere keeps a cached stack
 * lookup, which the change number alone would drop. */
static inline int an_objmap_unchanged(struct an_objmap *m, uint64_t gen, uint64_t lo, uint64_t hi)
{
	/* (an object waiting may end a part of one far from its own range,
	 * splitting it: the join logs that first) */
	if (m->nwait)
		an_objmap_join(m);
	uint64_t n = m->gen - gen;
	if (n > AN_OBJMAP_LOG)
		return 0;
	for (uint64_t g = gen + 1; g <= m->gen; g++) {
		unsigned i = (unsigned)(g % AN_OBJMAP_LOG);
		if (m->log_lo[i] < hi && lo < m->log_hi[i])
			return 0;
	}
	return 1;
}

/* 1 if no object of a higher-priority layer than o's exists, so that a
 * lookup anywhere in o answers o (what an_objmap_find_safe would say, with
 * all of o safe), without a search. */
int an_objmap_on_top(const struct an_objmap *m, const struct an_obj *o);

/* Host-cache hints for a lookup of addr in AN_LAYER_OBJECT's tree some
 * records from now, in steps a few records apart, each reading what the
 * one before fetched: the keys of a node, then the slot of the pointer
 * they choose, then the keys of the node it points to (the two lowest
 * levels: the ones above stay in the host's caches), then the object.
 * None changes the map. Among a million small blocks a lookup otherwise
 * waits on four or five host misses in turn. A step after a change to the
 * tree's shape does nothing more. */
struct an_objmap_hint {
	const struct an_bnode *node; /* its keys fetched; NULL: done */
	void *const *slot; /* fetched: a step takes it next (else the keys) */
	uint64_t shape; /* the tree's, at the first step */
	unsigned below; /* levels below node */
};
void an_objmap_hint_begin(const struct an_objmap *m, uint64_t addr, struct an_objmap_hint *h);
void an_objmap_hint_step(const struct an_objmap *m, uint64_t addr, struct an_objmap_hint *h);

/* Where the shadow is on, a hint in two steps instead: the slot of addr's
 * granule, to prefetch (NULL: no shadow there, the tree's hints), and some
 * records later the name read from it, whose object an_objmap_named gives
 * to prefetch (a name 0: no small block, NULL). (The caller prefetches: an
 * inline function that did would have no effect GCC sees, and its call
 * would go.) */
static inline const uint32_t *an_objmap_hint_slot(const struct an_objmap *m, uint64_t addr)
{
	return m->shadow_on ? an_shadow_slot(&m->shadow, addr) : NULL;
}
static inline const struct an_obj *an_objmap_named(const struct an_objmap *m, uint32_t id)
{
	if (!id--)
		return NULL;
	return m->objchunk[id >> 16] + (id & 0xffff); /* (an_objmap.c: obj_named) */
}

/* Object of layer starting at lo, or NULL. */
struct an_obj *an_objmap_at(struct an_objmap *m, int layer, uint64_t lo);
/* Calls fn for every live object (fork: the child inherits them). */
void an_objmap_each(struct an_objmap *m, void (*fn)(void *arg, const struct an_obj *o), void *arg);

#endif
