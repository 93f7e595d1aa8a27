/* SPDX-License-Identifier: MIT */
/*
 * Access-pattern classification (seed 000's regular/irregular separation):
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
	unsigned nslots, hot, hot2; /* slots used; slot of the last hit, of the one before */
};

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
/* Adds the next access of the stream (its first byte's address). */
void an_pat_stream_add(struct an_pat_stream *s, uint64_t addr);
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
