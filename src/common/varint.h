/* SPDX-License-Identifier: MIT */
/*
 * LEB128 varints and zigzag: the integer encoding of trace records. Header-only
 * because the runtime's access callbacks inline the encoder on their hot path.
 */
#ifndef MP_VARINT_H
#define MP_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define MP_VARINT_MAX 10 /* bytes for a 64-bit value */

static inline uint64_t mp_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t mp_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Writes v at p (room for MP_VARINT_MAX bytes assumed); returns the end. */
static inline uint8_t *mp_put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Reads a varint from [*pp, end). Returns 0 and advances *pp, or -1 if the
 * input ends or the value overflows 64 bits (corrupt data). */
static inline int mp_get_uv(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p >= end)
			return -1;
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift == 63 && b > 1)
				return -1;
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return -1;
}

#endif
