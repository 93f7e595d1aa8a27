// SPDX-License-Identifier: MIT
/*
 * A loop's records repeated byte for byte (an_period.h). A search decodes
 * with a decoder of its own; the period it finds is kept decoded in the
 * caller's memo, which the next search tries first.
 */
#include <string.h>

#include "analysis/an_period.h"
#include "model/model.h"

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
	if (!n || lo_room < 0 || hi_room < 0)
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

/* How many of the periods the records from p0 on may hold (bytes each,
 * the first seen to repeat from `seen` on) keep every access of the memo's
 * shape in the stretch and, for the model, in its line, and repeat. */
static uint64_t periods_run(const struct an_period_memo *m, const struct an_period_in *in, uint64_t base,
			    const uint8_t *p0, const uint8_t *seen, const uint8_t *end)
{
	const uint64_t bytes = m->shape.bytes;
	const int64_t adv = (int64_t)m->shape.last.addr;
	/* every access's start within the stretch */
	const int64_t rel = (int64_t)(base - in->lo), top = clamp62(in->width) - 1;
	uint64_t n = periods_within(rel + m->omin, top - rel - m->omax, adv, (size_t)(end - p0) / bytes);
	/* and, for the model's repeats, every byte within its line */
	if (m->key.rep_on) {
		const int64_t rel2 = (int64_t)(base - in->rep_line), line_top = (int64_t)~m->key.rep_mask;
		n = periods_within(rel2 + m->omin, line_top - rel2 - m->emax, adv, n);
	}
	/* as many as repeat (those up to seen, seen above) */
	if (p0 + n * bytes > seen)
		n = (uint64_t)(repeats_to(seen, p0 + n * bytes, bytes) - p0) / bytes;
	return n;
}

/* Decodes the records from d's position until they repeat (a period seen
 * twice) into memo; 0 if they do not, within AN_PERIOD_RECS, or one of
 * their accesses is not one in's key lets the stretch count. */
static int period_find(const struct trace_dec *d, const struct an_period_in *in, struct an_period_memo *m)
{
	struct trace_dec t = *d;
	const struct an_period_key *k = &in->key;
	const uint8_t *const p0 = d->p;
	const uint64_t base = d->last_addr;
	struct an_period *out = &m->shape;
	out->c1 = out->c2 = (struct an_counts){ 0 };
	out->n1 = out->n2 = out->na = out->nb = 0;
	out->b_last = 0;
	m->valid = 0;
	int64_t omin = INT64_MAX, omax = INT64_MIN, emax = INT64_MIN;
	uint64_t prev = base;
	for (unsigned r = 0; r < AN_PERIOD_RECS; r++) {
		struct trace_acc x;
		if (!trace_dec_acc(&t, &x) || x.range || (x.ip != k->ip && x.ip != k->ip2))
			return 0;
		const int64_t delta = (int64_t)(x.addr - prev);
		prev = x.addr;
		if (k->pat_on) {
			if (delta == k->da)
				out->na++, out->b_last = 0;
			else if (delta == k->db)
				out->nb++, out->b_last = 1;
			else
				return 0;
		}
		const int first = x.ip == k->ip;
		if (k->rep_on && !(x.write ? (k->rep_again & MP_AGAIN_STORE) && (first ? k->fn : k->fn2) == k->rep_fn
					   : (k->rep_again & MP_AGAIN_LOAD)))
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
		if (bytes > AN_PERIOD_BYTES)
			return 0;
		if (t.last_ip != d->last_ip || t.prev_ip != d->prev_ip || (size_t)(t.end - t.p) < bytes ||
		    repeats_to(t.p, t.p + bytes, bytes) != t.p + bytes)
			continue;
		memcpy(m->bytes, p0, bytes);
		m->last_ip = d->last_ip;
		m->prev_ip = d->prev_ip;
		m->key = *k;
		out->n = 1;
		out->bytes = bytes;
		out->last.addr = t.last_addr - base;
		m->omin = omin;
		m->omax = omax;
		m->emax = emax;
		m->valid = 1;
		return 1;
	}
	return 0;
}

int an_period_ahead(const struct trace_dec *d, const struct an_period_in *in, struct an_period_memo *memo,
		    struct an_period *out)
{
	const uint8_t *const p0 = d->p, *seen;
	/* the last period again: the same bytes, read with the same code
	 * addresses and counted by the same rules */
	if (memo->valid && (size_t)(d->end - p0) >= memo->shape.bytes && d->last_ip == memo->last_ip &&
	    d->prev_ip == memo->prev_ip && !memcmp(&memo->key, &in->key, sizeof(in->key)) &&
	    !memcmp(p0, memo->bytes, memo->shape.bytes))
		seen = p0 + memo->shape.bytes;
	else if (period_find(d, in, memo))
		seen = p0 + 2 * memo->shape.bytes;
	else
		return 0;
	uint64_t n = periods_run(memo, in, d->last_addr, p0, seen, d->end);
	const uint64_t each = memo->shape.n1 + memo->shape.n2;
	n = n <= in->most / each ? n : in->most / each;
	if (!n)
		return 0;
	*out = memo->shape;
	out->n = n;
	out->last.addr = d->last_addr + n * memo->shape.last.addr;
	return 1;
}

/* c gains n times p */
static void counts_add_times(struct an_counts *c, const struct an_counts *p, uint64_t n)
{
	c->loads += n * p->loads;
	c->stores += n * p->stores;
	c->bytes_loaded += n * p->bytes_loaded;
	c->bytes_stored += n * p->bytes_stored;
}

void an_period_count(const struct an_period *q, struct an_counts *c1, struct an_counts *c2)
{
	counts_add_times(c1, &q->c1, q->n);
	counts_add_times(c2, &q->c2, q->n);
}
