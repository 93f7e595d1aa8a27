/* SPDX-License-Identifier: MIT */
/*
 * The ring in shared memory through which memprism's Valgrind tool hands
 * its STREAM chunks to the launcher (record --source valgrind), instead of
 * appending them to the data file itself: the launcher compresses them on
 * the core Valgrind leaves idle and writes only the compressed copy, so
 * the raw chunks (about two bytes an access) never reach the file system,
 * the tool spends no time in write(2), and what a killed Valgrind handed
 * over is still there for the launcher. Shared by the launcher (MIT,
 * src/record/vg_ring.c) and the tool (GPL-2.0-or-later, src/vgtool):
 * numbers and plain structs only, so both sides agree on them.
 *
 * The launcher creates it (a memfd) and names it to every Valgrind it
 * starts (the tool's --memprism-ring=/proc/PID/fd/N; a fork child keeps
 * its parent's mapping, an exec'd image opens it again). Producers are
 * the tool's processes, one thread at a time each; the consumer is the
 * launcher. A producer claims a FREE slot (compare-and-swap to FILLING),
 * takes the next ticket, copies a whole chunk in and marks it READY; the
 * launcher takes READY slots in ticket order, so each thread's chunks
 * reach the file in their order, frees them and bumps `freed` (a futex a
 * producer with no free slot waits on).
 */
#ifndef MP_VGRING_H
#define MP_VGRING_H

#include <stdint.h>

#define MP_VGRING_MAGIC 0x474e495247564d50ull /* "PMVGRING" */
#define MP_VGRING_VERSION 1
#define MP_VGRING_SLOT_BYTES ((1u << 20) + 4096) /* a chunk of the tool's, whole */
#define MP_VGRING_SLOTS 24 /* default; MEMPRISM_VG_RING chooses (0: no ring) */
#define MP_VGRING_MAX_SLOTS 256

/* CLOSED: the launcher is done with the ring (record ends, or stopped
 * waiting for processes left running): a producer that finds a closed
 * slot writes the file itself from then on. */
enum mp_vgring_state { MP_VGRING_FREE = 0, MP_VGRING_FILLING = 1, MP_VGRING_READY = 2, MP_VGRING_CLOSED = 3 };

struct mp_vgring_slot {
	uint32_t state; /* enum mp_vgring_state */
	uint32_t len; /* chunk bytes, set before READY */
	uint64_t ticket; /* the order the launcher takes it in, set before READY */
};

/* At offset 0 of the shared memory; slot i's bytes at data_off + i *
 * slot_bytes. */
struct mp_vgring {
	uint64_t magic; /* MP_VGRING_MAGIC */
	uint32_t version; /* MP_VGRING_VERSION */
	uint32_t nslots;
	uint32_t slot_bytes;
	uint32_t launcher_pid; /* a producer waiting on a full ring gives up when it is gone */
	uint64_t data_off;
	uint64_t ticket; /* the next ticket a producer takes */
	uint32_t freed; /* futex: bumped (and woken) by the launcher when it frees slots */
	uint32_t pad;
	struct mp_vgring_slot slot[MP_VGRING_MAX_SLOTS];
};

#endif
