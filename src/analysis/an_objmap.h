/* SPDX-License-Identifier: MIT */
/*
 * The live objects of one address space at the current point of the replay,
 * in priority layers (user-named > heap/static/stack > mmaps/sections >
 * start-up mappings). Within a layer ranges never overlap: inserting a range
 * ends whatever it overlaps (a block the program freed without us seeing it,
 * a MAP_FIXED over an old mapping). Each layer is a B+tree keyed by start.
 */
#ifndef MP_AN_OBJMAP_H
#define MP_AN_OBJMAP_H

#include <stddef.h>
#include <stdint.h>

enum { AN_LAYER_NAMED, AN_LAYER_OBJECT, AN_LAYER_MAP, AN_LAYER_BASE, AN_LAYERS };

struct an_obj {
	uint64_t lo, hi;
	uint32_t cls; /* an_class index */
	uint8_t layer;
	uint8_t alive;
	union {
		/* live: burst sampling, the cores (bit core % 64) whose bursts
		 * touched it, its pages in their bounds (an_model_span) */
		uint64_t spanned;
		struct an_obj *next_free; /* freed: on the map's free list */
	};
};

struct an_bnode; /* a node of a layer's tree (an_objmap.c) */

#define AN_OBJMAP_LOG 4 /* changes remembered by range (a power of two) */

struct an_objmap {
	struct an_bnode *root[AN_LAYERS];
	uint64_t gen; /* bumps on every change: caches of lookups compare it */
	/* the address ranges the last AN_OBJMAP_LOG changes touched: change
	 * number g's at g % AN_OBJMAP_LOG */
	uint64_t log_lo[AN_OBJMAP_LOG], log_hi[AN_OBJMAP_LOG];
	struct an_obj *free_list;
	struct an_obj **slabs;
	size_t nslabs, slab_used;
	struct an_bnode *spare; /* free nodes, kept so an insert cannot fail half-way */
	size_t nspare;
	size_t live;
};

void an_objmap_init(struct an_objmap *m);
void an_objmap_fini(struct an_objmap *m);

/* Adds [lo,hi) with class cls in layer, ending whatever of the layer it
 * overlaps. NULL on ENOMEM. */
struct an_obj *an_objmap_insert(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi, uint32_t cls);
/* Ends the object of layer starting exactly at lo; returns its class or -1. */
int64_t an_objmap_remove_at(struct an_objmap *m, int layer, uint64_t lo);
/* Removes [lo,hi) from a layer: objects inside go, objects straddling an edge
 * are trimmed (munmap of part of a mapping). */
void an_objmap_punch(struct an_objmap *m, int layer, uint64_t lo, uint64_t hi);
/* Highest-priority live object containing addr, or NULL; safe_lo, safe_hi
 * get the part of it around addr that no higher-priority object covers, so a
 * lookup cache may answer for any address in [*safe_lo, *safe_hi). */
struct an_obj *an_objmap_find_safe(const struct an_objmap *m, uint64_t addr, uint64_t *safe_lo,
				   uint64_t *safe_hi);
/* A lookup made at change number gen whose answer held for [lo, hi) holds
 * still: no change since touched that range (and the object it found is
 * the same node, live). A malloc or free elsewhere keeps a cached stack
 * lookup, which the change number alone would drop. */
static inline int an_objmap_unchanged(const struct an_objmap *m, uint64_t gen, uint64_t lo, uint64_t hi)
{
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

/* Object of layer starting at lo, or NULL. */
struct an_obj *an_objmap_at(const struct an_objmap *m, int layer, uint64_t lo);
/* Calls fn for every live object (fork: the child inherits them). */
void an_objmap_each(const struct an_objmap *m, void (*fn)(void *arg, const struct an_obj *o), void *arg);

#endif
