// SPDX-License-Identifier: MIT
/* The address space's shadow at 16-byte granules (an_shadow.h). A leaf is
 * mapped, not allocated: its pages cost memory only once a value is put
 * there, so a lone leaf (a thread's arena with a few blocks) costs a page
 * or two, not 2 MiB. A leaf next to one made before, though, is a heap
 * past 8 MiB of small blocks, whose values lookups read at random: it
 * goes on a transparent huge page, as the object map's chunks do, else
 * nearly every granule read misses the host's TLB (smallobj's report: 4%
 * of its time). */
#include "analysis/an_shadow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define END (1ull << 47) /* no granules from here up */
#define LEAF_VALUES (1u << (AN_SHADOW_LEAF - AN_SHADOW_GRAIN))
#define LEAF_BYTES ((size_t)LEAF_VALUES * sizeof(uint32_t))

void an_shadow_init(struct an_shadow *sh)
{
	memset(sh, 0, sizeof(*sh));
}

void an_shadow_fini(struct an_shadow *sh)
{
	if (!sh || !sh->top)
		return;
	for (size_t t = 0; t < (1u << AN_SHADOW_TOP); t++) {
		uint32_t **mid = sh->top[t];
		if (!mid)
			continue;
		for (size_t i = 0; i < (1u << AN_SHADOW_MID); i++)
			if (mid[i])
				munmap(mid[i], LEAF_BYTES);
		free(mid);
	}
	free(sh->top);
	memset(sh, 0, sizeof(*sh));
}

static uint32_t *leaf_of(const struct an_shadow *sh, uint64_t addr);

/* A leaf's values, zero: 2 MiB mapped, on a huge page of their own if
 * huge (a hint: without THP, 4 KiB pages); MAP_FAILED on ENOMEM. */
static void *leaf_map(int huge)
{
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	if (!huge)
		return mmap(NULL, LEAF_BYTES, prot, flags, -1, 0);
	/* twice the size, and the aligned middle kept: a huge page needs
	 * 2 MiB of mapping aligned to 2 MiB */
	char *v = mmap(NULL, 2 * LEAF_BYTES, prot, flags, -1, 0);
	if (v == MAP_FAILED)
		return v;
	char *a = (char *)(((uintptr_t)v + LEAF_BYTES - 1) & ~(uintptr_t)(LEAF_BYTES - 1));
	if (a > v)
		munmap(v, (size_t)(a - v));
	if (a < v + LEAF_BYTES)
		munmap(a + LEAF_BYTES, (size_t)(v + LEAF_BYTES - a));
	madvise(a, LEAF_BYTES, MADV_HUGEPAGE);
	return a;
}

/* The leaf of addr (< END), made if absent; NULL on ENOMEM. */
static uint32_t *leaf_make(struct an_shadow *sh, uint64_t addr)
{
	if (!sh->top && !(sh->top = calloc(1u << AN_SHADOW_TOP, sizeof(*sh->top))))
		return NULL;
	uint32_t ***mid = &sh->top[addr >> (AN_SHADOW_LEAF + AN_SHADOW_MID)];
	if (!*mid && !(*mid = calloc(1u << AN_SHADOW_MID, sizeof(**mid))))
		return NULL;
	uint32_t **leaf = &(*mid)[(addr >> AN_SHADOW_LEAF) & ((1u << AN_SHADOW_MID) - 1)];
	if (!*leaf) {
		const uint64_t span = 1ull << AN_SHADOW_LEAF;
		const int huge = (addr >= span && leaf_of(sh, addr - span)) || (addr + span < END && leaf_of(sh, addr + span));
		void *v = leaf_map(huge);
		if (v == MAP_FAILED)
			return NULL;
		sh->huge += huge;
		*leaf = v;
		sh->leaves++;
	}
	return *leaf;
}

/* The leaf of addr (< END), or NULL. */
static uint32_t *leaf_of(const struct an_shadow *sh, uint64_t addr)
{
	uint32_t **mid = sh->top ? sh->top[addr >> (AN_SHADOW_LEAF + AN_SHADOW_MID)] : NULL;
	return mid ? mid[(addr >> AN_SHADOW_LEAF) & ((1u << AN_SHADOW_MID) - 1)] : NULL;
}

/* Calls fn on the values of the granules [lo, hi) overlaps (lo < hi <= END)
 * leaf by leaf, where leaves are. */
static void each_run(struct an_shadow *sh, uint64_t lo, uint64_t hi, uint32_t v,
		     void (*fn)(uint32_t *s, size_t n, uint32_t v))
{
	for (uint64_t a = lo, next; a < hi; a = next) {
		next = (a | ((1ull << AN_SHADOW_LEAF) - 1)) + 1;
		next = next < hi ? next : hi;
		uint32_t *leaf = leaf_of(sh, a);
		if (!leaf)
			continue;
		size_t g = (a >> AN_SHADOW_GRAIN) & (LEAF_VALUES - 1);
		fn(leaf + g, (size_t)((next - 1) >> AN_SHADOW_GRAIN) - (size_t)(a >> AN_SHADOW_GRAIN) + 1, v);
	}
}

static void run_put(uint32_t *s, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		s[i] = v;
}

static void run_clear(uint32_t *s, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == v)
			s[i] = 0;
}

int an_shadow_put(struct an_shadow *sh, uint64_t lo, uint64_t hi, uint32_t v)
{
	if (lo >= END || hi <= lo)
		return 0;
	hi = hi < END ? hi : END;
	/* the leaves first: a failure changes no value */
	for (uint64_t a = lo; a < hi; a = (a | ((1ull << AN_SHADOW_LEAF) - 1)) + 1)
		if (!leaf_make(sh, a))
			return -1;
	each_run(sh, lo, hi, v, run_put);
	return 0;
}

void an_shadow_clear(struct an_shadow *sh, uint64_t lo, uint64_t hi, uint32_t v)
{
	if (lo >= END || hi <= lo)
		return;
	each_run(sh, lo, hi < END ? hi : END, v, run_clear);
}
