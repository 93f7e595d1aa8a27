// SPDX-License-Identifier: MIT
/* NUMA workload (tests/cli/test_numa.sh) on a simulated 4x8 machine: the
 * memory-policy calls, through libnuma, from the main thread (node 0):
 * - A: numa_alloc_onnode(64 KiB, 2): 8,192 stores, all remote (node 2);
 * - B: numa_alloc_interleaved_subset(64 KiB, nodes 0-3): its 16 pages go
 *   round-robin to nodes 0-3, so 6,144 of 8,192 stores are remote;
 * - C: malloc(256 KiB) under set_mempolicy(MPOL_BIND, node 1): 32,768
 *   stores, all remote;
 * - D: numa_alloc_onnode(16 KiB, 0): 2,048 local stores, then move_pages of
 *   its 4 pages to node 3 and 2,048 remote loads.
 * Nodes 1-3 do not exist on the host: the calls must succeed anyway. */
#include <numa.h>
#include <numaif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define KIB 1024

static void fill(volatile uint64_t *p, size_t words)
{
	for (size_t i = 0; i < words; i++)
		p[i] = i;
}

int main(void)
{
	volatile uint64_t *a = numa_alloc_onnode(64 * KIB, 2); /* @A */
	if (!a)
		return 1;
	fill(a, 64 * KIB / 8);

	struct bitmask *nodes = numa_bitmask_alloc(64);
	for (unsigned n = 0; n < 4; n++)
		numa_bitmask_setbit(nodes, n);
	volatile uint64_t *b = numa_alloc_interleaved_subset(64 * KIB, nodes); /* @B */
	if (!b)
		return 2;
	fill(b, 64 * KIB / 8);

	unsigned long one = 1ul << 1;
	if (set_mempolicy(MPOL_BIND, &one, 64))
		return 3;
	volatile uint64_t *c = malloc(256 * KIB); /* @C */
	fill(c, 256 * KIB / 8);
	if (set_mempolicy(MPOL_DEFAULT, NULL, 0))
		return 4;

	volatile uint64_t *d = numa_alloc_onnode(16 * KIB, 0); /* @D */
	if (!d)
		return 5;
	fill(d, 16 * KIB / 8);
	void *pages[4];
	int to[4], status[4];
	for (int i = 0; i < 4; i++) {
		pages[i] = (char *)d + i * 4096;
		to[i] = 3;
	}
	if (move_pages(0, 4, pages, to, status, MPOL_MF_MOVE) < 0)
		return 6;
	uint64_t s = 0;
	for (size_t i = 0; i < 16 * KIB / 8; i++)
		s += d[i];
	printf("%llu\n", (unsigned long long)s);
	numa_bitmask_free(nodes);
	return 0;
}
