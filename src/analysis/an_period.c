// SPDX-License-Identifier: MIT
/*
 * A loop's records repeated byte for byte (an_period.h). The search is
 * made rarely (the stretch's loop backs off while it fails), so it decodes
 * with a decoder of its own and keeps nothing between calls.
 */
#include <string.h>

#include "analysis/an_period.h"
#include "model/model.h"

#define PERIOD_BYTES 96 /* the longest period tried */

/* How far from p (at most to end) every byte equals the one `bytes`
 * before it: where the data stops repeating its last `bytes` bytes. */
static const uint8_t *repeats_to(const uint8_t *p, const uint8_t *end, size_t bytes)
{
	for (; end - p >= 8; p += 8) {
		uint64_t x, y;
		memcpy(&x, p, 8);
		memcpy(&y, p - bytes, 8);
		if (x != y)
			break;
	}
	while (p < end && *p == p[-(ptrdiff_t)bytes])
		p++;
	return p;
}

/* Of n periods moving by adv each, how many keep every access in bounds:
 * lo_room and hi_room are how far the first period's lowest access is
 * above the lower bound and its highest below the upper one. */
static uint64_t periods_within(int64_t lo_room, int64_t hi_room, int64_t adv, uint64_t n)
{
	if (lo_room < 0 || hi_room < 0)
		return 0;
	uint64_t most;
	if (adv > 0)
		most = (uint64_t)hi_room / (uint64_t)adv;
	else if (adv < 0)
		most = adv == INT64_MIN ? 0 : (uint64_t)lo_room / (uint64_t)-adv;
	else
		return n;
	return most < n - 1 ? most + 1 : n;
}

/* (bounds beyond 2^62 taken as 2^62: fewer periods, never more) */
static int64_t clamp62(uint64_t v)
{
	return v > (1ull << 62) ? (int64_t)(1ull << 62) : (int64_t)v;
}

int an_period_ahead(const struct trace_dec *d, const struct an_period_in *in, struct an_period *out)
{
	struct trace_dec t = *d;
	const uint8_t *const p0 = d->p;
	const uint64_t base = d->last_addr;
	out->c1 = out->c2 = (struct an_counts){ 0 };
	out->n1 = out->n2 = out->na = out->nb = 0;
	out->b_last = 0;
	/* the period's accesses relative to base: lowest start, highest start, highest last byte */
	int64_t omin = INT64_MAX, omax = INT64_MIN, emax = INT64_MIN;
	uint64_t prev = base;
	for (unsigned r = 0; r < AN_PERIOD_RECS; r++) {
		struct trace_acc x;
		if (!trace_dec_acc(&t, &x) || x.range || (x.ip != in->ip && x.ip != in->ip2))
			return 0;
		const int64_t delta = (int64_t)(x.addr - prev);
		prev = x.addr;
		if (in->pat_on) {
			if (delta == in->da)
				out->na++, out->b_last = 0;
			else if (delta == in->db)
				out->nb++, out->b_last = 1;
			else
				return 0;
		}
		const int first = x.ip == in->ip;
		if (in->rep_on && !(x.write ? (in->rep_again & MP_AGAIN_STORE) && (first ? in->fn : in->fn2) == in->rep_fn
					    : (in->rep_again & MP_AGAIN_LOAD)))
			return 0;
		struct an_counts *c = first ? &out->c1 : &out->c2;
		if (x.write) {
			c->stores++;
			c->bytes_stored += x.size;
		} else {
			c->loads++;
			c->bytes_loaded += x.size;
		}
		*(first ? &out->n1 : &out->n2) += 1;
		const int64_t o = (int64_t)(x.addr - base), e = o + (int64_t)x.size - 1;
		omin = o < omin ? o : omin;
		omax = o > omax ? o : omax;
		emax = e > emax ? e : emax;
		out->last = x;
		/* a period: the decoder's code addresses as they were, and the
		 * same bytes once more after it */
		const size_t bytes = (size_t)(t.p - p0);
		if (bytes > PERIOD_BYTES)
			return 0;
		if (t.last_ip != d->last_ip || t.prev_ip != d->prev_ip || (size_t)(t.end - t.p) < bytes ||
		    repeats_to(t.p, t.p + bytes, bytes) != t.p + bytes)
			continue;
		const int64_t adv = (int64_t)(t.last_addr - base);
		/* every access's start within the stretch */
		const int64_t rel = (int64_t)(base - in->lo), top = clamp62(in->width) - 1;
		uint64_t n = periods_within(rel + omin, top - rel - omax, adv, (size_t)(t.end - p0) / bytes);
		/* and, for the model's repeats, every byte within its line */
		if (in->rep_on) {
			const int64_t rel2 = (int64_t)(base - in->rep_line), line_top = (int64_t)~in->rep_mask;
			n = periods_within(rel2 + omin, line_top - rel2 - emax, adv, n);
		}
		/* as many as repeat (two at least, seen above) */
		if (n > 2)
			n = (uint64_t)(repeats_to(t.p + bytes, p0 + n * bytes, bytes) - p0) / bytes;
		if (!n)
			return 0;
		out->n = n;
		out->bytes = bytes;
		out->advance = (uint64_t)adv;
		out->last.addr = base + n * (uint64_t)adv;
		return 1;
	}
	return 0;
}

void an_period_count(const struct an_period *q, struct an_counts *c1, struct an_counts *c2)
{
	c1->loads += q->n * q->c1.loads;
	c1->stores += q->n * q->c1.stores;
	c1->bytes_loaded += q->n * q->c1.bytes_loaded;
	c1->bytes_stored += q->n * q->c1.bytes_stored;
	c2->loads += q->n * q->c2.loads;
	c2->stores += q->n * q->c2.stores;
	c2->bytes_loaded += q->n * q->c2.bytes_loaded;
	c2->bytes_stored += q->n * q->c2.bytes_stored;
}
