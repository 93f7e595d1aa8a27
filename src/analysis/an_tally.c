// SPDX-License-Identifier: MIT
/*
 * Tallies of a row (object, code address, thread, page): the model's
 * figures (struct an_mem), added up as rows merge (its access counts:
 * an_counts_add, an_int.h).
 */
#include "analysis/an_int.h"

void an_mem_add(struct an_mem *a, const struct an_mem *b)
{
	a->refs += b->refs;
	for (int i = 0; i < MP_LVL_COUNT; i++)
		a->level[i] += b->level[i];
	for (int i = 0; i < MP_TLB_COUNT; i++)
		a->tlb[i] += b->tlb[i];
	a->dram_reads += b->dram_reads;
	a->dram_writes += b->dram_writes;
	a->store_fills += b->store_fills;
	a->walks += b->walks;
	a->walk_refs += b->walk_refs;
	a->walk_dram += b->walk_dram;
	a->remote += b->remote;
	a->latency_sum += b->latency_sum;
	a->latency_n += b->latency_n;
	for (int i = 0; i < AN_LAT_BUCKETS; i++)
		a->latency_hist[i] += b->latency_hist[i];
	a->miss_modelled += b->miss_modelled;
	a->miss_unmodelled += b->miss_unmodelled;
	a->miss_latency_sum += b->miss_latency_sum;
	for (int i = 0; i < AN_LAT_BUCKETS; i++)
		a->miss_latency_hist[i] += b->miss_latency_hist[i];
}

