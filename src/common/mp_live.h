/* SPDX-License-Identifier: MIT */
/*
 * The runtime's record buffers in memory the launcher shares, so that what
 * a killed process (SIGKILL, the OOM killer) had recorded but not yet
 * written still reaches the data file. Shared by the launcher
 * (src/record/live.c) and the runtime (src/rt/rt_live.c): numbers and
 * plain structs only.
 *
 * The launcher creates it (a memfd, sparse: pages exist once touched) and
 * names it to the runtime (MEMPRISM_LIVE=/proc/PID/fd/N). A thread claims
 * a FREE region (compare-and-swap of `owner` to OWNED with its pid) and
 * maps it as its two buffers and caches; for each buffer it says which
 * chunk it holds (seq) and how many of its bytes are committed (len: up to
 * the end of the last event, set as each event ends), and whether the
 * buffer is filling or queued for the writer; a buffer once written is
 * EMPTY. A thread that ends frees its region; a process that exits or
 * execs retires its regions (other threads may still write for a moment),
 * which the image after an exec frees, and the launcher frees those of a
 * process that is gone, after it appended what their buffers still held.
 */
#ifndef MP_LIVE_H
#define MP_LIVE_H

#include <stdint.h>

#define MP_LIVE_MAGIC 0x455649524d454d50ull /* "PMEMRIVE" */
#define MP_LIVE_VERSION 1
#define MP_LIVE_REGIONS 4096 /* threads at once, over all processes; more use private buffers */
#define MP_LIVE_REGION_BYTES (4u << 20) /* a thread's mapping, whole (rt_buf.c, RT_MAP_SIZE) */

/* `owner`: state << 32 | pid */
enum mp_live_owner { MP_LIVE_FREE = 0, MP_LIVE_OWNED = 1, MP_LIVE_RETIRED = 2 };
enum mp_live_buf_state { MP_LIVE_EMPTY = 0, MP_LIVE_FILLING = 1, MP_LIVE_QUEUED = 2 };

struct mp_live_buf {
	uint32_t state; /* enum mp_live_buf_state */
	uint32_t seq; /* the chunk's */
	uint32_t off; /* its bytes' offset in the region */
	uint32_t len; /* bytes committed (0: none worth a chunk) */
	uint32_t accesses; /* the chunk header's (QUEUED), 0 if not known */
	uint32_t pad;
};

struct mp_live_region {
	uint64_t owner; /* enum mp_live_owner << 32 | pid */
	uint64_t proc_id; /* the chunk header's */
	uint32_t tid; /* the chunk header's */
	uint32_t pad;
	struct mp_live_buf buf[2];
};

/* At offset 0 of the shared memory; region i's bytes at data_off + i *
 * region_bytes. */
struct mp_live {
	uint64_t magic; /* MP_LIVE_MAGIC, set last */
	uint32_t version; /* MP_LIVE_VERSION */
	uint32_t nregions;
	uint64_t region_bytes;
	uint64_t data_off;
	uint32_t used; /* regions ever claimed: [0, used) (may pass nregions) */
	uint32_t pad;
	struct mp_live_region region[MP_LIVE_REGIONS];
};

#define MP_LIVE_DATA_OFF (((uint64_t)sizeof(struct mp_live) + 0x1fffff) & ~(uint64_t)0x1fffff)

static inline uint64_t mp_live_owner(enum mp_live_owner state, uint32_t pid)
{
	return (uint64_t)state << 32 | pid;
}

#endif
