/* SPDX-License-Identifier: MIT */
/*
 * Access-pattern classification (the ORMBP paper's regular/irregular separation):
 * how one thread walks one object — sequential forward or backward, strided
 * with a dominant stride, random, or a mix — with the evidence behind the
 * verdict. A stream keeps a fixed-size summary of its address deltas
 * (Space-Saving heavy hitters), so classifying costs O(1) memory per
 * (object, thread) pair whatever the trace length.
 */
#ifndef MP_AN_PATTERN_H
#define MP_AN_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

enum an_pat_kind {
	AN_PAT_FEW, /* too few accesses to say (fewer than AN_PAT_MIN) */
	AN_PAT_SAME, /* (almost) every access to the address of the previous one */
	AN_PAT_FORWARD, /* one dominant delta in (0, 64]: next element or line */
	AN_PAT_BACKWARD, /* one dominant delta in [-64, 0) */
	AN_PAT_STRIDED, /* one dominant delta beyond a cache line */
	AN_PAT_RANDOM, /* no small set of deltas explains the stream */
	AN_PAT_MIXED, /* a few deltas explain it, none alone (phases, interleaving) */
	AN_PAT_COUNT
};

#define AN_PAT_MIN 8 /* accesses needed to classify */
#define AN_PAT_SLOTS 8 /* deltas the summary tracks */
#define AN_PAT_SEQ_MAX 64 /* |delta| up to one cache line is sequential */
#define AN_PAT_REGULAR 0.6 /* share of the dominant delta that makes a stream regular */
#define AN_PAT_TOP 4 /* deltas that may explain a mixed stream together */

/* "forward", "backward", ... */
const char *an_pat_name(enum an_pat_kind k);

/* One stream's summary: initialise with an_pat_stream_init (caller's storage). */
struct an_pat_stream {
	uint64_t last; /* previous address */
	uint64_t accesses, deltas; /* deltas = accesses - 1 (per stream) */
	uint64_t zero, fwd, bwd; /* deltas = 0, > 0, < 0 */
	struct an_pat_slot {
		int64_t delta;
		uint64_t count; /* upper bound of the delta's occurrences */
		uint64_t err; /* count - err is a lower bound */
	} slot[AN_PAT_SLOTS];
	/* byte i: slot i's delta hashed (an_pat_tag), so that a search past
	 * the hot slots compares one word, not eight deltas */
	uint64_t tags;
	unsigned nslots, hot, hot2; /* slots used; slot of the last hit, of the one before */
	/* once all slots are used: the least count, and a bit for every slot
	 * that had it (a slot counted since may still have its bit; none
	 * set: not known) */
	uint64_t mincount;
	unsigned minmask;
};

/* A delta's byte in an_pat_stream.tags: the top of a multiplicative hash. */
static inline unsigned an_pat_tag(int64_t d)
{
	return (unsigned)(((uint64_t)d * 0x9e3779b97f4a7c15ull) >> 56);
}

/* The first slot whose tag is d's (AN_PAT_SLOTS: none); deltas are
 * unique among the slots, and tags mostly too. The bytes where the tags
 * equal d's are x's zero bytes: their high bits, exactly (no carry from
 * one byte into the next). */
static inline unsigned an_pat_tag_slot(const struct an_pat_stream *s, int64_t d)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, x = s->tags ^ (an_pat_tag(d) * 0x0101010101010101ull);
	const uint64_t z = ~(((x & lo7) + lo7) | x | lo7);
	return z ? (unsigned)__builtin_ctzll(z) >> 3 : AN_PAT_SLOTS;
}

/* The verdict and its evidence. Shares are fractions (0-1) of the non-zero
 * deltas, using the summary's lower bounds: never overstated. */
struct an_pattern {
	enum an_pat_kind kind;
	int64_t stride; /* dominant non-zero delta in bytes (signed); 0 if none */
	double share; /* of non-zero deltas equal to stride */
	double top_share; /* of non-zero deltas among the AN_PAT_TOP most frequent */
	double forward, backward; /* of non-zero deltas going up / down */
	double reuse; /* of all deltas that are 0 (same address again) */
	uint64_t accesses, streams;
};

void an_pat_stream_init(struct an_pat_stream *s);
/* Counts n more occurrences of delta d (error e) in the summary: the
 * search of an_pat_stream_add when neither hot slot holds d. */
void an_pat_slot_add(struct an_pat_stream *s, int64_t d, uint64_t n, uint64_t e);

/* Adds the next access of the stream (its first byte's address). Inline:
 * the replay calls it for every access, and a loop's deltas are almost
 * always in one of the two hot slots. */
static inline void an_pat_stream_add(struct an_pat_stream *s, uint64_t addr)
{
	if (s->accesses++ == 0) {
		s->last = addr;
		return;
	}
	int64_t d = (int64_t)(addr - s->last);
	s->last = addr;
	s->deltas++;
	if (d == 0)
		s->zero++;
	else if (d > 0)
		s->fwd++;
	else
		s->bwd++;
	if (s->hot < s->nslots && s->slot[s->hot].delta == d) {
		s->slot[s->hot].count++;
		return;
	}
	/* a loop's load and store of one element alternate two deltas */
	if (s->hot2 < s->nslots && s->slot[s->hot2].delta == d) {
		s->slot[s->hot2].count++;
		unsigned h = s->hot;
		s->hot = s->hot2;
		s->hot2 = h;
		return;
	}
	/* a walk among small blocks cycles through a few more (a node's
	 * fields, the next node): the slot whose tag is d's, as slot_search
	 * finds it, without the calls (smallobj's report: 18M of its 35M
	 * accesses) */
	const unsigned i = an_pat_tag_slot(s, d);
	if (i < s->nslots && s->slot[i].delta == d) {
		s->slot[i].count++;
		s->hot2 = s->hot;
		s->hot = i;
		return;
	}
	an_pat_slot_add(s, d, 1, 0);
}

/* A run of accesses added to one summary with its two hot slots held by
 * the caller (in registers, in a loop): a loop's accesses then cost a
 * compare and an increment each. an_pat_run_begin, an_pat_run_add per
 * access, an_pat_run_end before anything else reads or adds to the summary;
 * the summary ends up exactly as an_pat_stream_add per access leaves it.
 * Deltas are unique among the slots, so whichever of the two a delta hits,
 * hot is its slot afterwards and hot2 the other: the run only notes which. */
struct an_pat_run {
	struct an_pat_stream *s;
	uint64_t last; /* previous address */
	int64_t da, db; /* the deltas of slots a and b */
	uint64_t na, nb; /* their occurrences not yet in the summary */
	unsigned a, b; /* the two hot slots */
	int b_hot; /* the last delta was b's: b is hot, a hot2 */
	int on; /* 0: no two distinct hot slots, adds go to an_pat_stream_add */
};

static inline void an_pat_run_begin(struct an_pat_run *w, struct an_pat_stream *s)
{
	w->s = s;
	w->na = w->nb = 0;
	w->on = s->accesses && s->hot < s->nslots && s->hot2 < s->nslots && s->hot != s->hot2;
	if (!w->on)
		return;
	w->last = s->last;
	w->a = s->hot;
	w->b = s->hot2;
	w->b_hot = 0;
	w->da = s->slot[w->a].delta;
	w->db = s->slot[w->b].delta;
}

static inline void an_pat_count_sign(struct an_pat_stream *s, int64_t d, uint64_t n)
{
	if (d == 0)
		s->zero += n;
	else if (d > 0)
		s->fwd += n;
	else
		s->bwd += n;
}

static inline void an_pat_run_end(struct an_pat_run *w)
{
	/* (nothing added since an_pat_run_begin: the summary is as it was) */
	if (!w->on || !(w->na | w->nb))
		return;
	struct an_pat_stream *s = w->s;
	s->accesses += w->na + w->nb;
	s->deltas += w->na + w->nb;
	an_pat_count_sign(s, w->da, w->na);
	an_pat_count_sign(s, w->db, w->nb);
	s->slot[w->a].count += w->na;
	s->slot[w->b].count += w->nb;
	s->hot = w->b_hot ? w->b : w->a;
	s->hot2 = w->b_hot ? w->a : w->b;
	s->last = w->last;
	w->na = w->nb = 0;
}

/* an_pat_run_add of an address whose delta is in neither hot slot (or of
 * any address while the run is off): out of line, a random stream's path. */
void an_pat_run_miss(struct an_pat_run *w, uint64_t addr);

static inline __attribute__((always_inline)) void an_pat_run_add(struct an_pat_run *w, uint64_t addr)
{
	if (w->on) {
		int64_t d = (int64_t)(addr - w->last);
		if (d == w->da) {
			w->last = addr;
			w->na++;
			w->b_hot = 0;
			return;
		}
		if (d == w->db) {
			w->last = addr;
			w->nb++;
			w->b_hot = 1;
			return;
		}
	}
	an_pat_run_miss(w, addr);
}

/* Adds b's deltas to a (two threads' streams of one object make the
 * object's summary). Counts of deltas that fall out of a's slots are lost
 * to the lower bounds. */
void an_pat_stream_merge(struct an_pat_stream *a, const struct an_pat_stream *b);
/* Classifies s into *out (OUT). */
void an_pat_classify(const struct an_pat_stream *s, struct an_pattern *out);
/* "forward +64", "strided +4096", "random" into buf; returns buf. */
const char *an_pat_format(char *buf, size_t cap, const struct an_pattern *p);

/* Collector of every (object, thread) stream of a replay: pass
 * an_patterns_on_access as an_opts.on_access (or call it from your own
 * hook) with the collector as argument. Only counted accesses (inside
 * --roi) enter. */
struct an_patterns;
/* NULL and errno = ENOMEM on failure; free with an_patterns_free. */
struct an_patterns *an_patterns_new(void);
void an_patterns_free(struct an_patterns *p); /* accepts NULL */
void an_patterns_on_access(void *arg, const struct an_access *a);
/* The summary of (cls, thread)'s stream, made on first use (in the order
 * an_patterns_on_access would make it); it stays at its address until
 * an_patterns_free, so a caller may keep it across accesses. NULL on ENOMEM
 * (an_patterns_error says so). The replay feeds a collector given as
 * an_opts.patterns through this, without a hook call per access. */
struct an_pat_stream *an_patterns_get(struct an_patterns *p, uint32_t cls, uint32_t thread);
/* Appends from's summaries to p, in from's order, their classes and
 * threads through cls_map and thread_map (a replay's indices to
 * another's: an_procs.c). 0; 1 if one of them is already in p (left
 * half done: a summary cannot be continued by another); -ENOMEM. */
int an_patterns_adopt(struct an_patterns *p, const struct an_patterns *from, const uint32_t *cls_map,
		      const uint32_t *thread_map);
/* 0, or -ENOMEM if an allocation failed while collecting. */
int an_patterns_error(const struct an_patterns *p);
/* One pattern per r->classes entry (threads merged), in *out (OUT: caller
 * frees). 0 or -ENOMEM. r is the result of the replay that fed p. */
int an_patterns_by_class(const struct an_patterns *p, const struct an_result *r, struct an_pattern **out);
/* The i-th (object, thread) stream, i < an_patterns_nstreams: its classes
 * index (via r->class_map), its an_result.threads index and pattern. */
size_t an_patterns_nstreams(const struct an_patterns *p);
void an_patterns_stream(const struct an_patterns *p, const struct an_result *r, size_t i, uint32_t *cls,
			uint32_t *thread, struct an_pattern *out);

#endif
