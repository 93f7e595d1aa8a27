/* SPDX-License-Identifier: MIT */
/*
 * The launcher's end of the ring through which memprism's Valgrind tool
 * hands over its chunks (common/mp_vgring.h says why and how). Library
 * code: prints nothing.
 */
#ifndef MP_RECORD_VG_RING_H
#define MP_RECORD_VG_RING_H

#include <stddef.h>
#include <stdint.h>

struct mp_vg_ring;

/* A ring of nslots slots (1..MP_VGRING_MAX_SLOTS) in a memfd of this
 * process's. 0 and *out, or -errno. */
int mp_vg_ring_open(unsigned nslots, struct mp_vg_ring **out);

/* The path a tool opens it by (/proc/PID/fd/N: valid while this process
 * lives). */
const char *mp_vg_ring_path(const struct mp_vg_ring *r);

/* Where drained chunks go: 0, or -errno (the drain stops there). */
typedef int (*mp_vg_ring_put)(void *arg, const uint8_t *chunk, size_t len);

/* Hands the chunks the tool has made ready to put, in the order the tool
 * made them (each thread's in its order), and frees their slots. With
 * final set no producer is left: every ready chunk goes, past the tickets
 * a killed producer took and never made ready; and slots are closed, so a
 * producer still running (after record stopped waiting) finds none and
 * writes the file itself. Bytes handed over are added to *bytes. 0 or the
 * put's error (the chunk stays in the ring). */
int mp_vg_ring_drain(struct mp_vg_ring *r, int final, mp_vg_ring_put put, void *arg, uint64_t *bytes);

void mp_vg_ring_close(struct mp_vg_ring *r); /* NULL: nothing */

#endif
