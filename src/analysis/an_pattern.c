// SPDX-License-Identifier: MIT
/*
 * Access-pattern classification: a Space-Saving summary of each stream's
 * address deltas, and the rules that turn it into forward / backward /
 * strided / random / mixed. The rules use lower bounds of the delta counts,
 * so a verdict of "regular" is never the summary's overestimate talking.
 */
#include "analysis/an_pattern.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "common/vec.h"

const char *an_pat_name(enum an_pat_kind k)
{
	static const char *const n[AN_PAT_COUNT] = {
		[AN_PAT_FEW] = "few",		[AN_PAT_SAME] = "same",	      [AN_PAT_FORWARD] = "forward",
		[AN_PAT_BACKWARD] = "backward", [AN_PAT_STRIDED] = "strided", [AN_PAT_RANDOM] = "random",
		[AN_PAT_MIXED] = "mixed",
	};
	return (unsigned)k < AN_PAT_COUNT ? n[k] : "?";
}

void an_pat_stream_init(struct an_pat_stream *s)
{
	memset(s, 0, sizeof(*s));
}

/* Space-Saving, past the two hot slots (the caller found d in neither): d's
 * slot, or else a free one, or else the least counted (the first of equals),
 * which d takes over with its count as error, so that count - err stays a
 * lower bound and count an upper bound of d's true frequency. A random
 * stream's every new delta comes here. d's slot is looked for among the
 * slots whose tag byte is d's, found in one word (a byte-wise compare of
 * the tags): mostly none or one, where eight compares of deltas were
 * smallobj's report's tenth. The least counted is an unrolled branch-free
 * search (a compare and a conditional move per slot), which a loop with an
 * early exit and a running minimum was not. */
static void slot_search(struct an_pat_stream *s, int64_t d, uint64_t n, uint64_t e)
{
	_Static_assert(AN_PAT_SLOTS == 8, "a tag byte per slot in one 64-bit word");
	s->hot2 = s->hot;
	const unsigned ns = s->nslots;
	const uint64_t tag = an_pat_tag(d);
	/* the bytes where the tags equal d's are x's zero bytes: their high
	 * bits, exactly (no carry from one byte into the next) */
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, x = s->tags ^ (tag * 0x0101010101010101ull);
	uint64_t z = ~(((x & lo7) + lo7) | x | lo7);
	z &= ns < AN_PAT_SLOTS ? (1ull << (8 * ns)) - 1 : ~0ull; /* (slots in use) */
	for (; z; z &= z - 1) {
		/* deltas are unique among the slots: one hit at most */
		unsigned i = (unsigned)__builtin_ctzll(z) >> 3;
		if (s->slot[i].delta == d) {
			s->slot[i].count += n;
			s->slot[i].err += e;
			s->hot = i;
			return;
		}
	}
	if (ns < AN_PAT_SLOTS) {
		s->slot[ns] = (struct an_pat_slot){ d, n, e };
		s->tags |= tag << (8 * ns);
		s->hot = s->nslots++;
		return;
	}
	/* The least counted, the first of equals: counts only grow, and the
	 * one replaced grows past the least, so the slots that had the least
	 * count and still have it are the least, and the lowest of them is
	 * the first (a random stream's new deltas take them in turn: the
	 * search runs once per round of them) */
	unsigned m;
	for (;;) {
		if (!s->minmask) {
			uint64_t base = s->slot[0].count;
#pragma GCC unroll 8
			for (unsigned i = 1; i < AN_PAT_SLOTS; i++)
				base = s->slot[i].count < base ? s->slot[i].count : base;
			unsigned mask = 0;
#pragma GCC unroll 8
			for (unsigned i = 0; i < AN_PAT_SLOTS; i++)
				mask |= (unsigned)(s->slot[i].count == base) << i;
			s->mincount = base;
			s->minmask = mask;
		}
		m = (unsigned)__builtin_ctz(s->minmask);
		s->minmask &= s->minmask - 1;
		if (s->slot[m].count == s->mincount)
			break;
	}
	const uint64_t base = s->mincount;
	s->slot[m] = (struct an_pat_slot){ d, base + n, base + e };
	s->tags = (s->tags & ~(0xffull << (8 * m))) | tag << (8 * m);
	s->hot = m;
}

void an_pat_slot_add(struct an_pat_stream *s, int64_t d, uint64_t n, uint64_t e)
{
	if (s->hot < s->nslots && s->slot[s->hot].delta == d) {
		s->slot[s->hot].count += n;
		s->slot[s->hot].err += e;
		return;
	}
	/* a loop's load and store of one element alternate two deltas */
	if (s->hot2 < s->nslots && s->slot[s->hot2].delta == d) {
		s->slot[s->hot2].count += n;
		s->slot[s->hot2].err += e;
		unsigned h = s->hot;
		s->hot = s->hot2;
		s->hot2 = h;
		return;
	}
	slot_search(s, d, n, e);
}

void an_pat_run_miss(struct an_pat_run *w, uint64_t addr)
{
	struct an_pat_stream *s = w->s;
	if (!w->on) {
		an_pat_stream_add(s, addr);
		an_pat_run_begin(w, s);
		return;
	}
	/* what an_pat_stream_add does after an_pat_run_end, knowing that the
	 * delta is in neither hot slot (the run's two) */
	an_pat_run_end(w);
	int64_t d = (int64_t)(addr - s->last);
	s->last = addr;
	s->accesses++;
	s->deltas++;
	an_pat_count_sign(s, d, 1);
	slot_search(s, d, 1, 0);
	an_pat_run_begin(w, s);
}

void an_pat_stream_merge(struct an_pat_stream *a, const struct an_pat_stream *b)
{
	a->accesses += b->accesses;
	a->deltas += b->deltas;
	a->zero += b->zero;
	a->fwd += b->fwd;
	a->bwd += b->bwd;
	for (unsigned i = 0; i < b->nslots; i++)
		an_pat_slot_add(a, b->slot[i].delta, b->slot[i].count, b->slot[i].err);
}

static int by_lower_bound(const void *x, const void *y)
{
	const struct an_pat_slot *a = x, *b = y;
	uint64_t la = a->count - a->err, lb = b->count - b->err;
	if (la != lb)
		return la < lb ? 1 : -1;
	return a->delta < b->delta ? -1 : a->delta > b->delta;
}

void an_pat_classify(const struct an_pat_stream *s, struct an_pattern *out)
{
	memset(out, 0, sizeof(*out));
	out->accesses = s->accesses;
	out->streams = 1;
	if (s->accesses < AN_PAT_MIN) {
		out->kind = AN_PAT_FEW;
		return;
	}
	uint64_t nz = s->deltas - s->zero;
	out->reuse = s->deltas ? (double)s->zero / (double)s->deltas : 0.0;
	/* mostly the same address again (a counter, a scalar in a loop) */
	if (nz == 0 || (double)s->zero >= 0.9 * (double)s->deltas) {
		out->kind = AN_PAT_SAME;
		return;
	}
	struct an_pat_slot sl[AN_PAT_SLOTS];
	unsigned n = 0;
	for (unsigned i = 0; i < s->nslots; i++)
		if (s->slot[i].delta != 0) /* re-reading an address doesn't move the walk */
			sl[n++] = s->slot[i];
	qsort(sl, n, sizeof(sl[0]), by_lower_bound);
	uint64_t top = 0;
	for (unsigned i = 0; i < n && i < AN_PAT_TOP; i++)
		top += sl[i].count - sl[i].err;
	out->forward = (double)s->fwd / (double)nz;
	out->backward = (double)s->bwd / (double)nz;
	out->top_share = (double)top / (double)nz;
	if (n) {
		out->stride = sl[0].delta;
		out->share = (double)(sl[0].count - sl[0].err) / (double)nz;
	}
	if (n && out->share >= AN_PAT_REGULAR) {
		int64_t d = out->stride;
		if (d > AN_PAT_SEQ_MAX || d < -AN_PAT_SEQ_MAX)
			out->kind = AN_PAT_STRIDED;
		else
			out->kind = d > 0 ? AN_PAT_FORWARD : AN_PAT_BACKWARD;
	} else if (out->top_share >= AN_PAT_REGULAR) {
		out->kind = AN_PAT_MIXED;
	} else {
		out->kind = AN_PAT_RANDOM;
	}
}

const char *an_pat_format(char *buf, size_t cap, const struct an_pattern *p)
{
	if (p->accesses == 0) {
		snprintf(buf, cap, "-");
		return buf;
	}
	switch (p->kind) {
	case AN_PAT_FORWARD:
	case AN_PAT_BACKWARD:
	case AN_PAT_STRIDED:
		snprintf(buf, cap, "%s %+lld", an_pat_name(p->kind), (long long)p->stride);
		break;
	default:
		snprintf(buf, cap, "%s", an_pat_name(p->kind));
		break;
	}
	return buf;
}

/* --- the collector ------------------------------------------------------ */

struct pat_entry {
	uint32_t cls, thread; /* replay class, an_result.threads index */
	struct an_pat_stream s;
};

struct an_patterns {
	struct mp_hashmap index; /* (cls << 32 | thread) + 1 -> entries index */
	/* each entry on its own: the replay keeps pointers to the summaries */
	MP_VEC(struct pat_entry *) entries;
	uint64_t last_key; /* the stream hit last: loops stay on one object */
	struct an_pat_stream *last;
	int oom;
};

struct an_patterns *an_patterns_new(void)
{
	struct an_patterns *p = calloc(1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	mp_hashmap_init(&p->index);
	return p;
}

void an_patterns_free(struct an_patterns *p)
{
	if (!p)
		return;
	mp_hashmap_fini(&p->index);
	for (size_t i = 0; i < p->entries.n; i++)
		free(p->entries.v[i]);
	mp_vec_free(&p->entries);
	free(p);
}

/* The summary of a new entry for key; NULL and p->oom on ENOMEM. Out of
 * line: the hot path is a hash lookup or less. */
static __attribute__((noinline)) struct an_pat_stream *new_stream(struct an_patterns *p, uint64_t key, uint32_t cls,
								  uint32_t thread)
{
	struct pat_entry *e = malloc(sizeof(*e));
	if (!e || mp_vec_push(&p->entries, e)) {
		free(e);
		p->oom = 1;
		return NULL;
	}
	e->cls = cls;
	e->thread = thread;
	an_pat_stream_init(&e->s);
	if (mp_hashmap_put(&p->index, key, p->entries.n - 1)) {
		p->oom = 1;
		return NULL;
	}
	return &e->s;
}

struct an_pat_stream *an_patterns_get(struct an_patterns *p, uint32_t cls, uint32_t thread)
{
	if (p->oom)
		return NULL;
	/* replay classes stay far below 2^31: the key is never 0 */
	uint64_t key = ((uint64_t)cls << 32 | thread) + 1;
	if (key != p->last_key) {
		uint64_t *v = mp_hashmap_get(&p->index, key);
		struct an_pat_stream *s = v ? &p->entries.v[*v]->s : new_stream(p, key, cls, thread);
		if (!s)
			return NULL;
		p->last_key = key;
		p->last = s;
	}
	return p->last;
}

void an_patterns_on_access(void *arg, const struct an_access *a)
{
	struct an_pat_stream *s;
	if (a->counted && (s = an_patterns_get(arg, a->cls, a->thread)))
		an_pat_stream_add(s, a->addr);
}

int an_patterns_adopt(struct an_patterns *p, const struct an_patterns *from, const uint32_t *cls_map,
		      const uint32_t *thread_map)
{
	for (size_t i = 0; i < from->entries.n && !p->oom; i++) {
		const struct pat_entry *e = from->entries.v[i];
		const uint32_t cls = cls_map[e->cls], thread = thread_map[e->thread];
		const uint64_t key = ((uint64_t)cls << 32 | thread) + 1;
		if (mp_hashmap_get(&p->index, key))
			return 1;
		struct an_pat_stream *s = new_stream(p, key, cls, thread);
		if (s)
			*s = e->s;
	}
	p->last_key = 0;
	return p->oom ? -ENOMEM : 0;
}

int an_patterns_error(const struct an_patterns *p)
{
	return p->oom ? -ENOMEM : 0;
}

static uint32_t result_class(const struct an_result *r, uint32_t cls)
{
	return cls < r->nclass_map ? r->class_map[cls] : UINT32_MAX;
}

int an_patterns_by_class(const struct an_patterns *p, const struct an_result *r, struct an_pattern **out)
{
	struct an_pat_stream *merged = calloc(r->nclasses ? r->nclasses : 1, sizeof(*merged));
	uint64_t *streams = calloc(r->nclasses ? r->nclasses : 1, sizeof(*streams));
	struct an_pattern *pat = calloc(r->nclasses ? r->nclasses : 1, sizeof(*pat));
	if (!merged || !streams || !pat) {
		free(merged);
		free(streams);
		free(pat);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->entries.n; i++) {
		uint32_t c = result_class(r, p->entries.v[i]->cls);
		if (c >= r->nclasses)
			continue;
		an_pat_stream_merge(&merged[c], &p->entries.v[i]->s);
		streams[c]++;
	}
	for (size_t c = 0; c < r->nclasses; c++) {
		an_pat_classify(&merged[c], &pat[c]);
		pat[c].streams = streams[c];
	}
	free(merged);
	free(streams);
	*out = pat;
	return 0;
}

size_t an_patterns_nstreams(const struct an_patterns *p)
{
	return p->entries.n;
}

void an_patterns_stream(const struct an_patterns *p, const struct an_result *r, size_t i, uint32_t *cls,
			uint32_t *thread, struct an_pattern *out)
{
	const struct pat_entry *e = p->entries.v[i];
	*cls = result_class(r, e->cls);
	*thread = e->thread;
	an_pat_classify(&e->s, out);
}
