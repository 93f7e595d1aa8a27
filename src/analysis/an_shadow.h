/* SPDX-License-Identifier: MIT */
/*
 * A shadow of the address space at 16-byte granules: a 32-bit value for
 * each granule (0: none), in leaves of 8 MiB of address space (2 MiB of
 * values, whose pages take memory once written) made when a value first
 * goes there, under a two-level directory. The object map (an_objmap.c) names its small heap
 * blocks here, so that a lookup among millions of them is one or two host
 * misses, which the replay's lookahead can prefetch in one step, rather
 * than a walk down a tree.
 *
 * Addresses from 2^47 up have no granules: a put there does nothing and a
 * get finds 0.
 */
#ifndef MP_AN_SHADOW_H
#define MP_AN_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#define AN_SHADOW_GRAIN 4 /* log2 of a granule's bytes */
#define AN_SHADOW_LEAF 23 /* log2 of a leaf's bytes of address space */
#define AN_SHADOW_MID 12 /* log2 of leaves under a directory entry */
#define AN_SHADOW_TOP (47 - AN_SHADOW_LEAF - AN_SHADOW_MID) /* log2 of directory entries */

struct an_shadow {
	uint32_t ***top; /* [1 << AN_SHADOW_TOP] of [1 << AN_SHADOW_MID] leaves, NULL: none yet */
	size_t leaves; /* leaves made: 8 MiB of address space each */
	size_t huge; /* of them, on a huge page (next to another when made) */
};

void an_shadow_init(struct an_shadow *sh);
void an_shadow_fini(struct an_shadow *sh);

/* Every granule [lo, hi) overlaps gets v (!= 0). 0, or -1 on ENOMEM with
 * nothing changed. */
int an_shadow_put(struct an_shadow *sh, uint64_t lo, uint64_t hi, uint32_t v);
/* Every granule [lo, hi) overlaps whose value is v gets 0. */
void an_shadow_clear(struct an_shadow *sh, uint64_t lo, uint64_t hi, uint32_t v);

/* The value slot of addr's granule, or NULL where no leaf is (its value
 * is 0). */
static inline const uint32_t *an_shadow_slot(const struct an_shadow *sh, uint64_t addr)
{
	if (addr >> 47 || !sh->top)
		return NULL;
	uint32_t **mid = sh->top[addr >> (AN_SHADOW_LEAF + AN_SHADOW_MID)];
	if (!mid)
		return NULL;
	const uint32_t *leaf = mid[(addr >> AN_SHADOW_LEAF) & ((1u << AN_SHADOW_MID) - 1)];
	if (!leaf)
		return NULL;
	return &leaf[(addr >> AN_SHADOW_GRAIN) & ((1u << (AN_SHADOW_LEAF - AN_SHADOW_GRAIN)) - 1)];
}

/* The value of addr's granule. */
static inline uint32_t an_shadow_get(const struct an_shadow *sh, uint64_t addr)
{
	const uint32_t *v = an_shadow_slot(sh, addr);
	return v ? *v : 0;
}

#endif
