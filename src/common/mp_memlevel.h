/* SPDX-License-Identifier: MIT */
/*
 * One vocabulary for what the memory system did with an access, whoever
 * says so: a PMU sample (measured: PEBS data source, IBS op bits, SPE
 * records) or the memory-system model (modelled: src/model). Decoders and
 * the model both produce a struct mp_outcome; the analysis aggregates
 * outcomes per object, site, thread and function (struct an_mem) without
 * caring where they came from, and reports label them measured or modelled.
 */
#ifndef MP_MEMLEVEL_H
#define MP_MEMLEVEL_H

#include <stdint.h>

/* Where the data came from (kernel perf_mem_data_src mem_lvl/mem_lvl_num,
 * folded into the levels a report shows). */
enum mp_mem_level {
	MP_LVL_UNKNOWN = 0, /* not recorded, or the source does not say */
	MP_LVL_L1,
	MP_LVL_LFB, /* line fill buffer: a miss to a line already on its way */
	MP_LVL_L2,
	MP_LVL_L3, /* the last-level cache */
	MP_LVL_LOCAL_DRAM,
	MP_LVL_REMOTE_DRAM,
	MP_LVL_REMOTE_CACHE, /* another socket's cache */
	MP_LVL_PMEM,
	MP_LVL_IO,
	MP_LVL_UNCACHED,
	MP_LVL_COUNT
};

/* What the address translation did. */
enum mp_tlb_outcome {
	MP_TLB_UNKNOWN = 0,
	MP_TLB_L1_HIT, /* first-level DTLB */
	MP_TLB_L2_HIT, /* second-level (STLB) */
	MP_TLB_WALK, /* missed every TLB: page walk (hardware walker or OS) */
	MP_TLB_COUNT
};

enum mp_snoop {
	MP_SNOOP_UNKNOWN = 0,
	MP_SNOOP_NONE,
	MP_SNOOP_HIT,
	MP_SNOOP_MISS,
	MP_SNOOP_HITM, /* hit a modified line in another core's cache */
	MP_SNOOP_COUNT
};

/* The normalised outcome of one access (or one sample standing for
 * `weight` accesses). */
struct mp_outcome {
	uint8_t level; /* enum mp_mem_level */
	uint8_t tlb; /* enum mp_tlb_outcome */
	uint8_t snoop; /* enum mp_snoop */
	uint8_t remote; /* 1: served by another NUMA node; 0 local or unknown */
	uint8_t locked; /* 1: a locked (atomic) access */
	uint8_t page_shift; /* page size as log2 (12, 21, 30), 0 unknown */
	uint32_t latency; /* cycles, 0 unknown */
	uint64_t weight; /* accesses this outcome stands for (sampling period), >= 1 */
};

static inline const char *mp_mem_level_name(unsigned l)
{
	static const char *const n[MP_LVL_COUNT] = { "unknown", "L1",  "LFB",	    "L2", "L3",	      "local DRAM",
						     "remote DRAM", "remote cache", "PMEM", "IO", "uncached" };
	return l < MP_LVL_COUNT ? n[l] : "?";
}

static inline const char *mp_tlb_outcome_name(unsigned t)
{
	static const char *const n[MP_TLB_COUNT] = { "unknown", "L1 TLB hit", "STLB hit", "walk" };
	return t < MP_TLB_COUNT ? n[t] : "?";
}

#endif
