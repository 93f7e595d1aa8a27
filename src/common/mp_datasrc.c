// SPDX-License-Identifier: MIT
/* perf_mem_data_src -> struct mp_outcome (see mp_datasrc.h). */
#include "common/mp_datasrc.h"

#include <linux/perf_event.h>
#include <string.h>

/* Field extraction by the kernel's shifts (the union's bitfields are
 * endian-dependent; shifts are not). */
#define DS(v, name, bits) ((unsigned)(((v) >> PERF_MEM_##name##_SHIFT) & ((1u << (bits)) - 1)))

static uint8_t level_num(unsigned num, int remote)
{
	switch (num) {
	case PERF_MEM_LVLNUM_L1: return remote ? MP_LVL_REMOTE_CACHE : MP_LVL_L1;
	case PERF_MEM_LVLNUM_L2: return remote ? MP_LVL_REMOTE_CACHE : MP_LVL_L2;
	case PERF_MEM_LVLNUM_L3:
	case PERF_MEM_LVLNUM_L4: /* eDRAM / memory-side cache: beyond L3, before DRAM: fold into LLC */
	case PERF_MEM_LVLNUM_ANY_CACHE: return remote ? MP_LVL_REMOTE_CACHE : MP_LVL_L3;
	case PERF_MEM_LVLNUM_LFB: return MP_LVL_LFB;
	case PERF_MEM_LVLNUM_RAM: return remote ? MP_LVL_REMOTE_DRAM : MP_LVL_LOCAL_DRAM;
	case PERF_MEM_LVLNUM_PMEM:
	case PERF_MEM_LVLNUM_CXL: return MP_LVL_PMEM; /* far, non-DDR memory */
	case PERF_MEM_LVLNUM_IO: return MP_LVL_IO;
	default: return MP_LVL_UNKNOWN;
	}
}

/* Legacy mem_lvl: a hit at one level. A miss alone says where it was not. */
static uint8_t level_legacy(unsigned lvl, int *remote)
{
	if (!(lvl & PERF_MEM_LVL_HIT) || (lvl & PERF_MEM_LVL_NA))
		return MP_LVL_UNKNOWN;
	if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) {
		*remote = 1;
		return MP_LVL_REMOTE_CACHE;
	}
	if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) {
		*remote = 1;
		return MP_LVL_REMOTE_DRAM;
	}
	if (lvl & PERF_MEM_LVL_LOC_RAM)
		return MP_LVL_LOCAL_DRAM;
	if (lvl & PERF_MEM_LVL_IO)
		return MP_LVL_IO;
	if (lvl & PERF_MEM_LVL_UNC)
		return MP_LVL_UNCACHED;
	if (lvl & PERF_MEM_LVL_L3)
		return MP_LVL_L3;
	if (lvl & PERF_MEM_LVL_L2)
		return MP_LVL_L2;
	if (lvl & PERF_MEM_LVL_LFB)
		return MP_LVL_LFB;
	if (lvl & PERF_MEM_LVL_L1)
		return MP_LVL_L1;
	return MP_LVL_UNKNOWN;
}

void mp_outcome_from_data_src(uint64_t v, uint64_t weight, uint64_t period, struct mp_outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->weight = period ? period : 1;
	o->latency = (uint32_t)weight;
	unsigned lvl = DS(v, LVL, 14), num = DS(v, LVLNUM, 4), rem = DS(v, REMOTE, 1);
	unsigned snoop = DS(v, SNOOP, 5), snoopx = DS(v, SNOOPX, 2), lock = DS(v, LOCK, 2);
	unsigned tlb = DS(v, TLB, 7), hops = DS(v, HOPS, 3);
	int remote = rem & PERF_MEM_REMOTE_REMOTE;
	/* hop 0: another core of the same node, not another NUMA node */
	if (remote && hops == PERF_MEM_HOPS_0)
		remote = 0;
	if (num && num != PERF_MEM_LVLNUM_NA)
		o->level = level_num(num, remote);
	else
		o->level = level_legacy(lvl, &remote);
	o->remote = (uint8_t)(remote != 0);

	if (snoop & PERF_MEM_SNOOP_HITM)
		o->snoop = MP_SNOOP_HITM;
	else if ((snoop & PERF_MEM_SNOOP_HIT) || (snoopx & (PERF_MEM_SNOOPX_FWD | PERF_MEM_SNOOPX_PEER)))
		o->snoop = MP_SNOOP_HIT;
	else if (snoop & PERF_MEM_SNOOP_MISS)
		o->snoop = MP_SNOOP_MISS;
	else if (snoop & PERF_MEM_SNOOP_NONE)
		o->snoop = MP_SNOOP_NONE;

	o->locked = (lock & PERF_MEM_LOCK_LOCKED) ? 1 : 0;

	if (tlb && !(tlb & PERF_MEM_TLB_NA)) {
		if (tlb & PERF_MEM_TLB_HIT) {
			/* "L1 | L2 | HIT" (Intel: some DTLB level hit) counts as a first-level hit */
			o->tlb = (tlb & PERF_MEM_TLB_L2) && !(tlb & PERF_MEM_TLB_L1) ? MP_TLB_L2_HIT : MP_TLB_L1_HIT;
		} else if (tlb & PERF_MEM_TLB_MISS) {
			/* a miss of the STLB, or one resolved by the walker or the OS */
			if (tlb & (PERF_MEM_TLB_L2 | PERF_MEM_TLB_WK | PERF_MEM_TLB_OS))
				o->tlb = MP_TLB_WALK;
		}
	}
}

void mp_outcome_from_sample(unsigned kind, uint64_t data_src, uint64_t weight, uint64_t period,
			    struct mp_outcome *out)
{
	mp_outcome_from_data_src(data_src, weight, period, out);
	/* MP_SK_PEBS_STLB_LOAD / _STORE (5, 6): the event itself selects STLB misses */
	if ((kind == 5 || kind == 6) && out->tlb == MP_TLB_UNKNOWN)
		out->tlb = MP_TLB_WALK;
}

int mp_data_src_op(uint64_t v)
{
	unsigned op = DS(v, OP, 5);
	if (op & PERF_MEM_OP_LOAD)
		return 1;
	if (op & PERF_MEM_OP_STORE)
		return 2;
	return 0;
}
