/* SPDX-License-Identifier: MIT */
/*
 * A loop's records repeated byte for byte (an_period.c). A loop over an
 * array writes the same few records again and again: the same tags, the
 * same address deltas, no code address moving. Decoding is the same from
 * any address, so such a period of records is the same accesses each time,
 * shifted by the period's address advance: the replay's stretch
 * (an_replay.c, take_stretch) counts a run of them at once, where each
 * would have done exactly what the one before did.
 */
#ifndef MP_AN_PERIOD_H
#define MP_AN_PERIOD_H

#include <stdint.h>

#include "analysis/analysis.h"
#include "trace/trace_reader.h"

/* What the stretch's loop would test of each access, as it stands before
 * the records ahead: the bounds, and what decides how it counts them (the
 * key a period found is kept under: struct an_period_memo). */
struct an_period_key {
	uint64_t ip, ip2; /* its code addresses (ip2 == ip: one) */
	uint64_t rep_mask;
	int64_t da, db;
	uint32_t fn, fn2; /* their functions (fn2 0: one) */
	/* the pattern summary's run (on: deltas must be one of its two) */
	uint32_t pat_on;
	/* the model's repeats (on: every access must be one of its line) */
	uint32_t rep_on, rep_again /* MP_AGAIN_* */, rep_fn;
};
struct an_period_in {
	uint64_t lo, width; /* the stretch: [lo, lo + width) of one object */
	uint64_t rep_line; /* the model's repeats' line */
	uint64_t most; /* accesses the periods may have at most (a burst's rest) */
	struct an_period_key key;
};

/* A run of n periods of P bytes each: the accesses of one period, counted
 * by code address (1: in->ip, 2: in->ip2), and what the last leaves. */
struct an_period {
	uint64_t n, bytes; /* periods, and the P bytes of each */
	struct an_counts c1, c2;
	uint64_t n1, n2; /* accesses of each code address in a period */
	uint64_t na, nb; /* deltas of the pattern's da and db in a period */
	int b_last; /* the period's last delta was db */
	struct trace_acc last; /* the last period's last access */
};

#define AN_PERIOD_RECS 16 /* accesses a period has at most */
#define AN_PERIOD_BYTES 96 /* bytes a period has at most */

/* The last period found, decoded, for the stretch to find again without
 * decoding it (a loop's model run finds one a line); valid 0: none. */
struct an_period_memo {
	int valid;
	uint8_t bytes[AN_PERIOD_BYTES]; /* its records */
	uint64_t last_ip, prev_ip; /* the decoder's code addresses */
	struct an_period_key key;
	struct an_period shape; /* n 1; last.addr: the period's address advance */
	int64_t omin, omax, emax; /* its accesses' lowest, highest start, highest byte, from the address before */
};

/* Without a model the stretch searches where its decoder enters the first
 * AN_PERIOD_WINDOW bytes of each 256: longer than any record that keeps
 * the code addresses where they are (11 bytes at most), so that every 256
 * bytes of a loop's such records have one begin there. */
#define AN_PERIOD_WINDOW 16
_Static_assert((AN_PERIOD_WINDOW & (AN_PERIOD_WINDOW - 1)) == 0 && AN_PERIOD_WINDOW <= 256, "a mask finds the window");
/* (compared whole: no padding) */
_Static_assert(sizeof(struct an_period_key) == 5 * 8 + 6 * 4, "struct an_period_key has no padding");

/* If the records at d's position begin at least one whole period of
 * access records, each of whose accesses the stretch's loop would count
 * as in says without calling anything (in the stretch, a hot delta of the
 * pattern, a repeat of the model's line), fills *out with as many periods
 * as repeat byte for byte, stay within those bounds and have at most
 * in->most accesses, and returns 1;
 * else 0. A new period is one seen twice; memo's is taken again at once. */
int an_period_ahead(const struct trace_dec *d, const struct an_period_in *in, struct an_period_memo *memo,
		    struct an_period *out);
/* Adds the n periods' accesses to the tallies of their code addresses (c2
 * may be c1: then the stretch has one). */
void an_period_count(const struct an_period *q, struct an_counts *c1, struct an_counts *c2);

#endif
