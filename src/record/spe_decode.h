/* SPDX-License-Identifier: MIT */
/*
 * Arm SPE (Statistical Profiling Extension) records, as the arm_spe PMU
 * writes them into a perf AUX area: a packet decoder, the translation of a
 * record into the kernel's perf_mem_data_src (so SPE samples reach the same
 * normalised outcome as PEBS and IBS ones: src/common/mp_datasrc.h), and the
 * arm_spe PMU's sysfs description. Pure functions over memory and a sysfs
 * root the caller names, so all of it is tested without SPE hardware.
 *
 * Packet format: Arm ARM, "Statistical Profiling Extension" (chapter D10 of
 * DDI 0487), the same one Linux's tools/perf/util/arm-spe-decoder reads.
 */
#ifndef MP_SPE_DECODE_H
#define MP_SPE_DECODE_H

#include <stddef.h>
#include <stdint.h>

/* Events packet bits (Arm ARM: "Events packet"). */
#define MP_SPE_EV_EXCEPTION (1u << 0)
#define MP_SPE_EV_RETIRED (1u << 1)
#define MP_SPE_EV_L1D_ACCESS (1u << 2)
#define MP_SPE_EV_L1D_REFILL (1u << 3)
#define MP_SPE_EV_TLB_ACCESS (1u << 4)
#define MP_SPE_EV_TLB_WALK (1u << 5)
#define MP_SPE_EV_NOT_TAKEN (1u << 6)
#define MP_SPE_EV_MISPRED (1u << 7)
#define MP_SPE_EV_LLC_ACCESS (1u << 8)
#define MP_SPE_EV_LLC_MISS (1u << 9)
#define MP_SPE_EV_REMOTE_ACCESS (1u << 10)

/* Which packets a record held (struct mp_spe_record.has). */
#define MP_SPE_HAS_PC (1u << 0)
#define MP_SPE_HAS_VADDR (1u << 1)
#define MP_SPE_HAS_PADDR (1u << 2)
#define MP_SPE_HAS_TS (1u << 3)
#define MP_SPE_HAS_CONTEXT (1u << 4)
#define MP_SPE_HAS_DS (1u << 5)
#define MP_SPE_HAS_EVENTS (1u << 6)
#define MP_SPE_HAS_OP (1u << 7)
#define MP_SPE_HAS_TOTAL_LAT (1u << 8)

enum mp_spe_op { MP_SPE_OP_OTHER = 0, MP_SPE_OP_LOAD, MP_SPE_OP_STORE, MP_SPE_OP_BRANCH };

/* One sampled operation. */
struct mp_spe_record {
	unsigned has; /* MP_SPE_HAS_* */
	uint64_t pc; /* instruction address, sign-extended from bit 55 */
	uint8_t pc_el; /* exception level of pc (0 user) */
	uint64_t vaddr; /* data virtual address, tag byte dropped, sign-extended */
	uint64_t paddr; /* data physical address (pa_enable) */
	uint64_t timestamp; /* generic timer count (ts_enable) */
	uint32_t context; /* CONTEXTIDR_EL1: the kernel's pid (tid) with CONFIG_PID_IN_CONTEXTIDR */
	uint16_t data_source; /* implementation defined (Neoverse: see mp_spe_data_src) */
	uint32_t events; /* MP_SPE_EV_* */
	uint8_t op; /* enum mp_spe_op */
	uint8_t op_payload; /* raw Operation Type payload */
	uint16_t total_lat, issue_lat, xlat_lat; /* cycles */
};

/*
 * Decodes the record starting at buf (len bytes). Returns:
 *   1          *rec filled; *used = bytes up to and including its End (or
 *              Timestamp) packet.
 *   0          only padding left (*used = len): nothing more in the buffer.
 *   -ENODATA   the buffer ends inside a record (truncated); *used = the
 *              bytes before it (padding only). The caller drops or keeps them.
 *   -EBADMSG   a byte that starts no packet; *used = its offset + 1, where
 *              decoding may resume (the record around it is lost).
 * Never reads beyond buf + len.
 */
int mp_spe_decode(const uint8_t *buf, size_t len, size_t *used, struct mp_spe_record *rec);

/*
 * The record as a perf_mem_data_src (what the kernel reports for PEBS and
 * IBS), for mp_outcome_from_data_src: op from Operation Type; the level from
 * the Data Source packet when neoverse_ds (the common encoding of Arm's
 * Neoverse cores, as Linux's perf reads it), else from the events (L1D
 * access/refill, LLC access/miss, remote access); TLB from TLB access/walk.
 */
uint64_t mp_spe_data_src(const struct mp_spe_record *r, int neoverse_ds);

/* 1 when the Data Source packets of the CPU with this MIDR_EL1 use the
 * Neoverse encoding (Arm Ltd Neoverse N1, N2, V1, V2: the list Linux's perf
 * keeps), 0 otherwise (the levels then come from the events). */
int mp_spe_neoverse_midr(uint64_t midr);

/* Nanoseconds of a generic-timer interval, with the conversion of the perf
 * mmap page (time_mult, time_shift: perf_event_open(2)). */
uint64_t mp_spe_ticks_ns(uint64_t ticks, uint32_t mult, uint16_t shift);

/* The arm_spe PMU found under sysfs_root (normally
 * /sys/bus/event_source/devices). */
struct mp_spe_pmu {
	char name[32]; /* e.g. "arm_spe_0" */
	int type; /* perf_event_attr.type */
	char format_dir[512]; /* its format/ directory */
	uint64_t min_interval; /* caps/min_interval, 0 unknown */
};

/* 0 and *out filled; -ENOENT when no arm_spe* directory exists, -EIO when
 * its type is unreadable. */
int mp_spe_find(const char *sysfs_root, struct mp_spe_pmu *out);

/* SPE sampling choices, placed into config words through the PMU's format/
 * files (mp_perf_parse_event), never by hand-kept bit positions. */
struct mp_spe_cfg {
	int pa; /* pa_enable: physical addresses (needs root) */
	int jitter; /* jitter: randomise the sampling interval */
	unsigned min_latency; /* min_latency: only operations at least this slow, 0 all */
};

/* Loads and stores with timestamps (ts_enable, load_filter, store_filter)
 * plus cfg. 0, -EINVAL when a term has no format/ file on this PMU, -ERANGE
 * when min_latency does not fit its field. */
int mp_spe_config(const struct mp_spe_pmu *pmu, const struct mp_spe_cfg *cfg, uint64_t *config, uint64_t *config1,
		  uint64_t *config2);

#endif
