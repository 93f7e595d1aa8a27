/* SPDX-License-Identifier: MIT */
/*
 * The kernel's memory-sample data source (union perf_mem_data_src, filled
 * for Intel PEBS, AMD IBS and Arm SPE samples alike) decoded into the shared
 * outcome vocabulary of mp_memlevel.h, following the PERF_MEM_* definitions
 * of <linux/perf_event.h>. Pure functions: used by the analysis and tested
 * with values built by the kernel's own macros.
 */
#ifndef MP_DATASRC_H
#define MP_DATASRC_H

#include <stdint.h>

#include "common/mp_memlevel.h"

/*
 * Decodes data_src (PERF_SAMPLE_DATA_SRC) into *out: level (mem_lvl_num
 * when the kernel filled it, else the legacy mem_lvl bits), remote
 * (mem_remote, REM_* levels; hop 0 = same node is local), snoop (mem_snoop
 * and mem_snoopx: HITM > HIT/forward/peer > MISS > NONE), TLB outcome
 * (mem_dtlb), locked (mem_lock). latency is weight's low 32 bits
 * (PERF_SAMPLE_WEIGHT, or WEIGHT_STRUCT var1: the cache latency); weight
 * (the accesses the sample stands for) is period, at least 1.
 */
void mp_outcome_from_data_src(uint64_t data_src, uint64_t weight, uint64_t period, struct mp_outcome *out);

/* Same, knowing the sample's event kind (enum mp_sample_kind of
 * trace_format.h): kinds whose event selects only STLB misses mark the
 * outcome as a walk even when the data source leaves the TLB field empty. */
void mp_outcome_from_sample(unsigned kind, uint64_t data_src, uint64_t weight, uint64_t period,
			    struct mp_outcome *out);

/* mem_op of a data source: 1 load, 2 store, 0 other/unknown. */
int mp_data_src_op(uint64_t data_src);

#endif
