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

/* Writes v (< 2^49) as a varint of exactly 7 bytes, padded with
 * continuation bits; readers accept it like any other. Random accesses have
 * address deltas whose length flips between 4 and 5 bytes, and the loop of
 * mp_put_uv then mispredicts its exit on every other access. */
static inline uint8_t *mp_put_uv7(uint8_t *p, uint64_t v)
{
	p[0] = (uint8_t)(v | 0x80);
	p[1] = (uint8_t)((v >> 7) | 0x80);
	p[2] = (uint8_t)((v >> 14) | 0x80);
	p[3] = (uint8_t)((v >> 21) | 0x80);
	p[4] = (uint8_t)((v >> 28) | 0x80);
	p[5] = (uint8_t)((v >> 35) | 0x80);
	p[6] = (uint8_t)(v >> 42);
	return p + 7;
}

/* Writes v (< 2^14) as a one- or two-byte varint without a loop (the
 * inline access path's nearby addresses). */
static inline __attribute__((always_inline)) uint8_t *mp_put_uv14(uint8_t *p, uint64_t v)
{
	if (v < 0x80) {
		*p = (uint8_t)v;
		return p + 1;
	}
	p[0] = (uint8_t)(v | 0x80);
	p[1] = (uint8_t)(v >> 7);
	return p + 2;
}

/* v (< 2^49) as mp_put_uv7 writes it: seven bytes of a little-endian word. */
static inline __attribute__((always_inline)) uint64_t mp_uv7w_bits(uint64_t v)
{
	return (v & 0x7f) | ((v << 1) & 0x7f00) | ((v << 2) & 0x7f0000) | ((v << 3) & 0x7f000000) |
	       ((v << 4) & 0x7f00000000ull) | ((v << 5) & 0x7f0000000000ull) | ((v << 6) & 0x7f000000000000ull) |
	       0x808080808080ull;
}

/* Writes v (< 2^49) as mp_put_uv7 does, built in a register and stored at
 * once (8 bytes: room assumed; little-endian hosts): the inline access
 * path's far jumps. */
static inline __attribute__((always_inline)) uint8_t *mp_put_uv7w(uint8_t *p, uint64_t v)
{
	uint64_t w = mp_uv7w_bits(v);
	__builtin_memcpy(p, &w, 8);
	return p + 7;
}

/* Reads a varint from [*pp, end). Returns 0 and advances *pp, or -1 if the
 * input ends or the value overflows 64 bits (corrupt data). */
static inline int mp_get_uv(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	if (p < end && *p < 0x80) {
		/* one byte: most of an event's fields */
		*pp = p + 1;
		*out = *p;
		return 0;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - p >= 8) {
		/* Ending within 8 bytes (56 bits: a trace's address deltas and
		 * times), without a loop: the byte-by-byte loop's exit, at a
		 * length that varies from record to record, mispredicts. */
		uint64_t w;
		__builtin_memcpy(&w, p, 8);
		const uint64_t stop = ~w & 0x8080808080808080ull; /* bytes that end it */
		if (stop) {
			/* the groups up to the first ending byte, 7 bits from each
			 * byte packed by pairs, fours and the eight */
			uint64_t x = w & (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full;
			x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
			x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
			x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
			*pp = p + (__builtin_ctzll(stop) >> 3) + 1;
			*out = x;
			return 0;
		}
	}
#endif
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
