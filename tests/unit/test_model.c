// SPDX-License-Identifier: MIT
/* The memory-system model on cases small enough to compute by hand: LRU and
 * tree-PLRU victims, write-back write-allocate traffic, hit levels,
 * inclusive / non-inclusive / exclusive LLCs, coherence between cores, the PTAT
 * paper's sequential-page verification, and machine files. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "common/mp_bigmem.h"
#include "common/mp_memlevel.h"
#include "host/host.h"
#include "model/model.h"
#include "model/model_int.h"

static void test_lru_plru(void)
{
	struct model_cache c;
	struct model_victim v;
	int ev;
	/* LRU, one set of 2: A B, use A, C evicts B */
	CHECK_EQ(model_cache_init(&c, 2, 2, MP_REPL_LRU, 1), 0);
	model_cache_insert(&c, 10, 0, 0, &v, &ev);
	CHECK_EQ(ev, 0);
	model_cache_insert(&c, 11, 0, 0, &v, &ev);
	model_cache_touch(&c, (uint64_t)model_cache_find(&c, 10));
	model_cache_insert(&c, 12, 0, 0, &v, &ev);
	CHECK_EQ(ev, 1);
	CHECK_EQ(v.key, 11);
	CHECK(model_cache_find(&c, 10) >= 0);
	model_cache_fini(&c);

	/* One set of 4: A B C D, use A, insert E. LRU evicts B (least recently
	 * used); tree-PLRU evicts C: using A points the root at the right half,
	 * and inserting D last pointed that half's node at C. */
	unsigned repl[2] = { MP_REPL_LRU, MP_REPL_PLRU };
	uint64_t expect[2] = { 21, 22 };
	for (int r = 0; r < 2; r++) {
		CHECK_EQ(model_cache_init(&c, 4, 4, repl[r], 1), 0);
		for (uint64_t k = 20; k < 24; k++)
			model_cache_insert(&c, k, 0, 0, &v, &ev);
		model_cache_touch(&c, (uint64_t)model_cache_find(&c, 20));
		/* (the prediction the replay's hints use) */
		uint64_t predicted = model_cache_idx(&c, 0, mc_victim_way(&c, model_cache_block(&c, 0)));
		CHECK_EQ(model_cache_key(&c, predicted), expect[r]);
		model_cache_insert(&c, 24, 0, 0, &v, &ev);
		CHECK_EQ(ev, 1);
		CHECK_EQ(v.key, expect[r]);
		model_cache_fini(&c);
	}
	/* One set of 8 (the victim from a table of the tree's words) and of
	 * 16 (a walk down the tree), filled in way order, then the first key
	 * used again: the root points at the right half, and each node below
	 * at the half its last use (the fill's) left, down to the half's
	 * first way: the key ways/2 after the first. */
	for (unsigned ways = 8; ways <= 16; ways *= 2) {
		CHECK_EQ(model_cache_init(&c, ways, ways, MP_REPL_PLRU, 1), 0);
		for (uint64_t k = 40; k < 40 + ways; k++)
			model_cache_insert(&c, k, 0, 0, &v, &ev);
		model_cache_touch(&c, (uint64_t)model_cache_find(&c, 40));
		model_cache_insert(&c, 40 + ways, 0, 0, &v, &ev);
		CHECK_EQ(ev, 1);
		CHECK_EQ(v.key, 40 + ways / 2);
		/* and next the left half's: the first key's use pointed its
		 * node at its right quarter, whose first way goes */
		model_cache_insert(&c, 41 + ways, 0, 0, &v, &ev);
		CHECK_EQ(v.key, 40 + ways / 4);
		model_cache_fini(&c);
	}
	/* PLRU needs power-of-two ways */
	CHECK(model_cache_init(&c, 12, 12, MP_REPL_PLRU, 0) < 0);
	/* sets: key modulo sets (3 sets of 2) */
	CHECK_EQ(model_cache_init(&c, 6, 2, MP_REPL_LRU, 0), 0);
	CHECK_EQ(c.sets, 3);
	CHECK_EQ(model_cache_set(&c, 7), 1);
	model_cache_fini(&c);
	/* keeping every 4th of 12 sets of 2 (set sampling): keys that are
	 * multiples of 4 land in sets 0, 4, 8, stored as 0, 1, 2; each keeps
	 * its two ways apart from the others */
	CHECK_EQ(model_cache_init(&c, 24, 2, MP_REPL_LRU, 0), 0);
	CHECK_EQ(model_cache_keep_every(&c, 8), -EINVAL); /* 12 sets are not a multiple of 8 */
	CHECK_EQ(model_cache_keep_every(&c, 3), -EINVAL);
	CHECK_EQ(model_cache_keep_every(&c, 4), 0);
	CHECK_EQ(c.sets, 3);
	CHECK_EQ(model_cache_set(&c, 20), 2); /* 20 % 12 = 8 */
	CHECK_EQ(model_cache_set(&c, 28), 1); /* 28 % 12 = 4 */
	for (uint64_t k = 0; k < 6; k++) /* 0 12 24 | 4 16 28 */
		model_cache_insert(&c, k % 3 * 12 + k / 3 * 4, 0, 0, &v, &ev);
	/* set 0 kept 12 and 24 (0 went), set 4 kept 16 and 28 (4 went) */
	CHECK(model_cache_find(&c, 0) < 0 && model_cache_find(&c, 4) < 0);
	CHECK(model_cache_find(&c, 12) >= 0 && model_cache_find(&c, 24) >= 0);
	CHECK(model_cache_find(&c, 16) >= 0 && model_cache_find(&c, 28) >= 0);
	CHECK_EQ(model_cache_nidx(&c), 3u << c.wshift);
	model_cache_fini(&c);

	/* A key's place (mc_at) found by its lookup serves the insert after
	 * it though the set changed in between: a full set of 4 (LRU order
	 * 33 32 31 30), 34 missing; 31 goes (a back-invalidation); 34 takes
	 * 31's empty way and evicts nothing, though 30 is the LRU victim. */
	for (int r = 0; r < 2; r++) {
		CHECK_EQ(model_cache_init(&c, 4, 4, repl[r], 1), 0);
		for (uint64_t k = 30; k < 34; k++)
			model_cache_insert(&c, k, 0, 0, &v, &ev);
		const struct mc_at at = mc_at(&c, 34);
		CHECK_EQ(mc_find_at(&c, &at, 34), -1);
		int64_t gone = model_cache_find(&c, 31);
		CHECK(gone >= 0);
		model_cache_drop(&c, (uint64_t)gone);
		CHECK_EQ(mc_insert_at(&c, &at, 34, 7, MC_DIRTY, &v, &ev), (uint64_t)gone);
		CHECK_EQ(ev, 0);
		CHECK_EQ(model_cache_find(&c, 34), gone);
		CHECK_EQ(*mc_owner(&c, (uint64_t)gone), 7);
		CHECK_EQ(*mc_flags(&c, (uint64_t)gone), MC_DIRTY);
		/* and next, with no empty way, the policy's victim: LRU's the
		 * oldest, 30; PLRU's 32 (34's use of way 1 pointed the root
		 * right, where 33's use of way 3 had pointed node 3 at way 2) */
		model_cache_insert(&c, 35, 0, 0, &v, &ev);
		CHECK_EQ(ev, 1);
		CHECK_EQ(v.key, r ? 32 : 30);
		model_cache_fini(&c);
	}
}

/* A set of a cache whose set count is not a power of two comes from a
 * multiplication (mc_mod), not a division: the same as key % sets for
 * keys at the edges (0, around multiples of the count, the top of the
 * range, the model's key bits) and pseudo-random ones, for counts of
 * Intel's LLCs (12288, 24576 sets), an STLB of 1536 entries in 12 ways,
 * small odd ones and the largest. */
static void test_set_mod(void)
{
	static const uint32_t counts[] = { 3, 5, 7, 128 * 3, 12288, 24576, 1000003, 0xfffffffbu, 0xffffffffu };
	struct model_cache c;
	int bad = 0;
	for (size_t n = 0; n < sizeof(counts) / sizeof(counts[0]); n++) {
		const uint64_t d = counts[n];
		memset(&c, 0, sizeof(c));
		c.all_sets = (uint32_t)d;
		c.mod_m = ~(unsigned __int128)0 / d + 1; /* (as model_cache_init makes it) */
		const uint64_t top = UINT64_MAX / d * d; /* the last multiple */
		for (uint64_t k = 0; k < 1000; k++) {
			bad += mc_mod(&c, k) != k % d;
			bad += mc_mod(&c, UINT64_MAX - k) != (UINT64_MAX - k) % d;
			bad += mc_mod(&c, top - 500 + k) != (top - 500 + k) % d;
			bad += mc_mod(&c, d * k + d - 1) != (d * k + d - 1) % d;
		}
		bad += mc_mod(&c, 3ull << 61) != (3ull << 61) % d; /* (the model's key bits) */
		uint64_t x = 0x9e3779b97f4a7c15ull;
		for (int i = 0; i < 100000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			bad += mc_mod(&c, x) != x % d;
			bad += mc_mod(&c, x >> (i & 63)) != (x >> (i & 63)) % d;
		}
	}
	CHECK_EQ(bad, 0);
	/* and the model's caches use it: 3 sets of 2, key 7 in set 1 */
	CHECK_EQ(model_cache_init(&c, 6, 2, MP_REPL_LRU, 0), 0);
	CHECK(!c.pow2);
	CHECK_EQ(model_cache_set(&c, UINT64_MAX), UINT64_MAX % 3);
	model_cache_fini(&c);
}

/* True LRU against a list kept in recency order, on random inserts, uses
 * and drops: 8 and 16 ways keep the order in nibbles of one word, 12 too
 * (fewer nibbles than the word holds), 20 use stamps. Victims must be the
 * lowest empty way, else the least recently used key, every time. */
static void test_lru_reference(void)
{
	const unsigned ways[] = { 1, 2, 8, 12, 16, 20 };
	uint64_t rng = 88172645463325252ull;
	for (size_t t = 0; t < sizeof(ways) / sizeof(ways[0]); t++) {
		unsigned n = ways[t];
		struct model_cache c;
		CHECK_EQ(model_cache_init(&c, 2 * n, n, MP_REPL_LRU, 1), 0);
		uint64_t ref[32]; /* set 0's keys, most recent first */
		unsigned nref = 0, bad = 0;
		for (unsigned step = 0; step < 20000; step++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			uint64_t key = (rng >> 8) % (3 * n) * 2; /* even: set 0 of 2 */
			int64_t i = model_cache_find(&c, key);
			unsigned at = 0;
			while (at < nref && ref[at] != key)
				at++;
			if ((i >= 0) != (at < nref)) {
				bad++;
				break;
			}
			if (i >= 0 && (rng & 7) == 0) { /* drop it */
				model_cache_drop(&c, (uint64_t)i);
				memmove(ref + at, ref + at + 1, (nref - at - 1) * sizeof(ref[0]));
				nref--;
				continue;
			}
			if (i >= 0) {
				model_cache_touch(&c, (uint64_t)i);
				memmove(ref + 1, ref, at * sizeof(ref[0]));
				ref[0] = key;
				continue;
			}
			struct model_victim v;
			int ev;
			/* the way mc_victim_way predicts is the way taken */
			uint64_t want = model_cache_idx(&c, 0, mc_victim_way(&c, model_cache_block(&c, 0)));
			if (model_cache_insert(&c, key, 0, 0, &v, &ev) != want) {
				bad++;
				break;
			}
			if (ev != (nref == n) || (ev && v.key != ref[n - 1])) {
				bad++;
				break;
			}
			if (nref == n)
				nref--;
			memmove(ref + 1, ref, nref * sizeof(ref[0]));
			ref[0] = key;
			nref++;
		}
		CHECK_EQ(bad, 0);
		model_cache_fini(&c);
	}
	/* an empty way goes before the oldest key, the lowest empty first */
	struct model_cache c;
	struct model_victim v;
	int ev;
	CHECK_EQ(model_cache_init(&c, 4, 4, MP_REPL_LRU, 0), 0);
	for (uint64_t k = 0; k < 4; k++)
		model_cache_insert(&c, k, 0, 0, &v, &ev);
	model_cache_drop(&c, (uint64_t)model_cache_find(&c, 2));
	model_cache_drop(&c, (uint64_t)model_cache_find(&c, 1));
	CHECK_EQ(model_cache_insert(&c, 9, 0, 0, &v, &ev), 1);
	CHECK_EQ(ev, 0);
	CHECK_EQ(model_cache_insert(&c, 10, 0, 0, &v, &ev), 2);
	CHECK_EQ(ev, 0);
	model_cache_insert(&c, 11, 0, 0, &v, &ev);
	CHECK_EQ(ev, 1);
	CHECK_EQ(v.key, 0);
	model_cache_fini(&c);
}

/* A machine with one-set caches: L1 2 lines, L2 4, LLC 8. */
static struct mp_machine tiny(unsigned incl, unsigned cores)
{
	struct mp_machine m;
	memset(&m, 0, sizeof(m));
	strcpy(m.name, "tiny");
	m.sockets = 1;
	m.cores = cores;
	m.line = 64;
	m.l1d = (struct mp_cache_geom){ 128, 2, MP_REPL_LRU, MP_INCL_NINE, 4 };
	m.l2 = (struct mp_cache_geom){ 256, 4, MP_REPL_LRU, MP_INCL_NINE, 10 };
	m.llc = (struct mp_cache_geom){ 512, 8, MP_REPL_LRU, incl, 40 };
	m.dtlb[MP_PAGE_4K] = (struct mp_tlb_geom){ 4, 4 };
	m.dram_latency = 200;
	return m;
}

struct wb_log {
	unsigned n;
	uint32_t owners[64];
};

static void on_wb(void *arg, uint32_t owner, uint64_t line, int physical)
{
	struct wb_log *l = arg;
	(void)line;
	(void)physical;
	if (l->n < 64)
		l->owners[l->n] = owner;
	l->n++;
}

static unsigned ref(struct mp_model *m, unsigned core, uint64_t line, int write)
{
	struct mp_model_out o;
	mp_model_access(m, core, 0, line * 64 + 8, 0, write, 12, (uint32_t)line, &o);
	return o.level;
}

static void test_writeback(void)
{
	struct mp_machine mm = tiny(MP_INCL_NINE, 1);
	struct mp_model *m = mp_model_new(&mm);
	CHECK(m != NULL);
	struct wb_log log = { 0 };
	mp_model_set_writeback(m, on_wb, &log);
	/* 16 stores to 16 lines: each misses everywhere (a DRAM read: write
	 * allocate). A dirty line reaches DRAM when it leaves the 8-line LLC:
	 * lines 0..7 do while lines 8..15 come in. */
	unsigned dram = 0;
	for (uint64_t l = 0; l < 16; l++)
		dram += ref(m, 0, l, 1) == MP_LVL_LOCAL_DRAM;
	CHECK_EQ(dram, 16);
	CHECK_EQ(log.n, 8);
	for (unsigned i = 0; i < 8 && i < log.n; i++)
		CHECK_EQ(log.owners[i], i); /* written back in eviction order, owned by their writer */
	mp_model_flush(m);
	CHECK_EQ(log.n, 16);
	/* loads only: no writes ever */
	log.n = 0;
	for (uint64_t l = 100; l < 132; l++)
		ref(m, 0, l, 0);
	mp_model_flush(m);
	CHECK_EQ(log.n, 0);
	/* several stores to one line: one writeback */
	for (int i = 0; i < 5; i++)
		ref(m, 0, 7, 1);
	mp_model_flush(m);
	CHECK_EQ(log.n, 1);
	mp_model_free(m);
}

static void test_levels(void)
{
	struct mp_machine mm = tiny(MP_INCL_NINE, 1);
	struct mp_model *m = mp_model_new(&mm);
	CHECK_EQ(ref(m, 0, 0, 0), MP_LVL_LOCAL_DRAM);
	CHECK_EQ(ref(m, 0, 0, 0), MP_LVL_L1);
	ref(m, 0, 1, 0);
	ref(m, 0, 2, 0); /* L1 (2 lines) drops 0; L2 keeps it */
	CHECK_EQ(ref(m, 0, 0, 0), MP_LVL_L2);
	/* L2 (4, LRU) now 1 2 0 in use order; 3..7 push 0 out of L2 at 6 */
	for (uint64_t l = 3; l < 8; l++)
		ref(m, 0, l, 0);
	CHECK_EQ(ref(m, 0, 0, 0), MP_LVL_L3);
	CHECK_EQ(ref(m, 0, 100, 0), MP_LVL_LOCAL_DRAM);
	mp_model_free(m);
}

/* Set sampling (mp_model_sample_sets): with caches of two sets and n = 2,
 * even lines are modelled in full; odd lines go through L1 only, and an L1
 * miss of one is UNKNOWN, adds no cycles and never writes back. */
static void test_sample_sets(void)
{
	struct mp_machine mm = tiny(MP_INCL_NINE, 1);
	mm.l1d.size = 256; /* two sets of two lines */
	mm.l2.size = 512; /* two of four */
	mm.llc.size = 1024; /* two of eight */
	struct mp_model *m = mp_model_new(&mm);
	CHECK(m != NULL);
	char err[160];
	CHECK_EQ(mp_model_sample_sets(m, 3, err, sizeof(err)), -EINVAL); /* not a power of two */
	CHECK_EQ(mp_model_sample_sets(m, 4, err, sizeof(err)), -EINVAL); /* 2 sets are not a multiple of 4 */
	CHECK(strstr(err, "L1D of tiny has 2 sets") != NULL);
	uint64_t full = mp_model_set_bytes(m);
	CHECK_EQ(mp_model_sample_sets(m, 2, err, sizeof(err)), 0);
	/* L2 and the LLC keep the sample's sets alone: one of two */
	CHECK_EQ(mp_model_set_bytes(m), full / 2);
	struct wb_log log = { 0 };
	mp_model_set_writeback(m, on_wb, &log);
	CHECK_EQ(ref(m, 0, 0, 0), MP_LVL_LOCAL_DRAM); /* even: in full */
	CHECK_EQ(ref(m, 0, 0, 0), MP_LVL_L1);
	struct mp_model_out o; /* (the page is in the DTLB now: no walk) */
	mp_model_access(m, 0, 0, 1 * 64, 0, 0, 12, 1, &o);
	CHECK_EQ(o.level, MP_LVL_UNKNOWN); /* odd: outside the sample */
	CHECK_EQ(o.latency, 0);
	CHECK_EQ(ref(m, 0, 1, 0), MP_LVL_L1); /* L1 is modelled for it */
	/* odd stores leave L1 dirty with nowhere to go: no DRAM write */
	for (uint64_t l = 3; l < 16; l += 2)
		CHECK_EQ(ref(m, 0, l, 1), MP_LVL_UNKNOWN);
	CHECK_EQ(log.n, 0);
	/* even stores: 0 2 4 .. 18 through two sets' L1 (2), L2 (4) and LLC
	 * (8) of the even set; 10 lines, the two oldest (0, 2) go to DRAM */
	for (uint64_t l = 0; l < 20; l += 2)
		ref(m, 0, l, 1);
	CHECK_EQ(log.n, 2);
	CHECK_EQ(log.owners[0], 0);
	CHECK_EQ(log.owners[1], 2);
	/* a line the L2 held is an L2 hit again for even lines only */
	CHECK_EQ(ref(m, 0, 14, 0), MP_LVL_L2);
	/* a clean (--roi boundaries) writes the even dirty lines back, not
	 * the odd ones L1 holds dirty (15 and 13: nowhere below to go) */
	mp_model_clean(m);
	CHECK_EQ(log.n, 2 + 8);
	for (unsigned i = 2; i < log.n && i < 64; i++)
		CHECK_EQ(log.owners[i] & 1, 0);
	mp_model_free(m);
}

/* A hash of every DRAM write in order (owner, line, physical). */
struct wb_hash {
	uint64_t h, n;
};

static void on_wb_hash(void *arg, uint32_t owner, uint64_t line, int physical)
{
	struct wb_hash *w = arg;
	w->h = (w->h ^ owner ^ line * 31 ^ (uint64_t)physical << 60) * 0x100000001b3ull;
	w->n++;
}

/* mp_model_access_lines against one mp_model_access per line: the same
 * levels, the same first-line outcome (TLB, walks, latency), the same DRAM
 * writes in the same order, and the same state after (a last pass of
 * single lines over everything gives the same answers) -- on the tiny
 * machine's two cores, under set sampling, and on the presets. */
static void lines_case(const struct mp_machine *mm, unsigned sample, unsigned seed)
{
	struct mp_model *a = mp_model_new(mm), *b = mp_model_new(mm);
	CHECK(a != NULL && b != NULL);
	if (!a || !b)
		return;
	char err[160];
	if (sample) {
		CHECK_EQ(mp_model_sample_sets(a, sample, err, sizeof(err)), 0);
		CHECK_EQ(mp_model_sample_sets(b, sample, err, sizeof(err)), 0);
	}
	struct wb_hash wa, wb;
	memset(&wa, 0, sizeof(wa));
	memset(&wb, 0, sizeof(wb));
	mp_model_set_writeback(a, on_wb_hash, &wa);
	mp_model_set_writeback(b, on_wb_hash, &wb);
	uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1);
	unsigned bad = 0, ncores = mp_model_ncores(a);
	for (int i = 0; i < 3000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		unsigned core = (unsigned)(x % ncores);
		int write = (x >> 8) & 1;
		uint64_t page = (x >> 12) % 48; /* 48 pages: caches and TLBs overflow */
		unsigned first = (unsigned)(x >> 20) % 64;
		unsigned n = 1 + (unsigned)(x >> 28) % (64 - first);
		uint64_t addr = page << 12 | (uint64_t)first << 6 | ((x >> 40) & 63);
		uint64_t paddr = (x >> 50) & 1 ? (1 + (page * 7 + 3) % 64) << 12 | (addr & 4095) : 0;
		unsigned shift = (x >> 52) & 1 ? 21 : 12;
		uint32_t owner = (uint32_t)(x >> 54) & 7;
		struct mp_model_out oa, ob;
		uint8_t lv[MP_MODEL_LINES_MAX];
		mp_model_access_lines(b, core, 1, addr, paddr, n, write, shift, owner, 0, &ob, lv);
		for (unsigned k = 0; k < n; k++) {
			uint64_t off = (uint64_t)k << 6;
			mp_model_access(a, core, 1, (addr & ~63ull) + off, paddr ? (paddr & ~63ull) + off : 0, write, shift,
					owner, &oa);
			if (k == 0)
				bad += oa.level != ob.level || oa.tlb != ob.tlb || oa.walk_refs != ob.walk_refs ||
				       oa.walk_dram != ob.walk_dram || oa.latency != ob.latency ||
				       (n == 1 && oa.again != ob.again);
			else
				bad += oa.tlb != MP_TLB_L1_HIT || oa.walk_refs || oa.latency != mp_model_latency(b, lv[k]);
			bad += oa.level != lv[k];
		}
		bad += wa.n != wb.n || wa.h != wb.h;
	}
	for (uint64_t page = 0; page < 48; page++)
		for (unsigned k = 0; k < 64; k += 5) {
			struct mp_model_out oa, ob;
			mp_model_access(a, 0, 1, page << 12 | k << 6, 0, 0, 12, 0, &oa);
			mp_model_access(b, 0, 1, page << 12 | k << 6, 0, 0, 12, 0, &ob);
			bad += oa.level != ob.level || oa.tlb != ob.tlb || oa.latency != ob.latency;
		}
	CHECK_EQ(bad, 0);
	CHECK(wa.n > 0);
	mp_model_flush(a);
	mp_model_flush(b);
	CHECK(wa.n == wb.n && wa.h == wb.h); /* the same dirty lines were left */
	mp_model_free(a);
	mp_model_free(b);
}

static void test_access_lines(void)
{
	struct mp_machine mm = tiny(MP_INCL_NINE, 2);
	lines_case(&mm, 0, 1);
	mm.l1d.size = 256; /* two sets each, as in test_sample_sets */
	mm.l2.size = 512;
	mm.llc.size = 1024;
	lines_case(&mm, 2, 2);
	mm = tiny(MP_INCL_INCLUSIVE, 2);
	lines_case(&mm, 0, 3);
	mm = tiny(MP_INCL_EXCLUSIVE, 2);
	lines_case(&mm, 0, 4);
	const char *const *p = mp_machine_presets();
	for (unsigned i = 0; p[i]; i++) {
		CHECK_EQ(mp_machine_preset(p[i], &mm), 0);
		/* (smaller, so that 48 pages overflow L2 and the LLC) */
		mm.l2.size /= 16;
		mm.l2.size -= mm.l2.size % ((uint64_t)mm.l2.ways * mm.line);
		mm.llc.size /= 128;
		mm.llc.size -= mm.llc.size % ((uint64_t)mm.llc.ways * mm.line);
		lines_case(&mm, 0, 10 + i);
	}
}

/* One page of a range by core, on model a in full and on model b with
 * skip; the levels of b's lines it did not skip must be a's. Returns the
 * lines b skipped. */
static unsigned skip_page(struct mp_model *a, struct mp_model *b, unsigned core, uint64_t page, int write, int skip,
			  unsigned *bad)
{
	struct mp_model_out oa, ob;
	uint8_t la[MP_MODEL_LINES_MAX], lb[MP_MODEL_LINES_MAX];
	mp_model_access_lines(a, core, 1, page << 12, 0, 64, write, 12, 7, 0, &oa, la);
	unsigned n = mp_model_access_lines(b, core, 1, page << 12, 0, 64, write, 12, 7, skip, &ob, lb);
	unsigned seen = 0;
	for (unsigned i = 0; i < 64; i++) {
		if (lb[i] == MP_MODEL_SKIPPED) {
			seen++;
			*bad += (i & 15) == 0; /* lines in the sample are modelled */
		} else {
			*bad += la[i] != lb[i];
		}
	}
	*bad += seen != n;
	return n;
}

/* Set sampling's skipped lines in long ranges (MP_MODEL_SKIPPED): which
 * machines may skip, what is skipped, the pages another core's L1 holds,
 * and L1 after the range's tail against a model that skipped nothing. */
static void test_range_skip(void)
{
	struct mp_machine mm;
	char err[160];
	CHECK_EQ(mp_machine_preset("haswell-e5-2680v3", &mm), 0); /* L1 32 KiB, 8 ways, 64 sets */
	mm.cores = 2;
	/* LRU: the last 8 lines of a set are what it holds, whatever it held
	 * (tree-PLRU keeps that only for misses; the walks' hits on their
	 * paging-structure lines make a difference) */
	mm.l1d.repl = MP_REPL_LRU;
	struct mp_model *a = mp_model_new(&mm), *b = mp_model_new(&mm);
	CHECK_EQ(mp_model_range_tail_lines(b), 0); /* no set sampling: nothing to skip */
	CHECK_EQ(mp_model_sample_sets(a, 16, err, sizeof(err)), 0);
	CHECK_EQ(mp_model_sample_sets(b, 16, err, sizeof(err)), 0);
	/* 8 pages of L1, plus one */
	CHECK_EQ(mp_model_range_tail_lines(b), 9 * 64);
	unsigned bad = 0, skipped = 0;
	/* before the range: core 0 reads 16 lines of page 1000, which the
	 * range pushes out of L1; core 1 reads page 12 of the range */
	for (unsigned i = 0; i < 16; i++) {
		struct mp_model_out oa, ob;
		mp_model_access(a, 0, 1, 1000ull << 12 | i << 6, 0, 0, 12, 1, &oa);
		mp_model_access(b, 0, 1, 1000ull << 12 | i << 6, 0, 0, 12, 1, &ob);
		mp_model_access(a, 1, 1, 12ull << 12 | (i * 4) << 6, 0, 0, 12, 1, &oa);
		mp_model_access(b, 1, 1, 12ull << 12 | (i * 4) << 6, 0, 0, 12, 1, &ob);
	}
	/* a store range over pages 0..39 by core 0: 0 and the last 9 in full */
	CHECK_EQ(mp_model_range_begin(b, 0), 0);
	for (uint64_t p = 0; p < 40; p++) {
		int skip = p > 0 && p < 40 - 9;
		if (p == 40 - 9)
			mp_model_range_end(b, 0);
		unsigned n = skip_page(a, b, 0, p, 1, skip, &bad);
		if (p == 12)
			CHECK_EQ(n, 0); /* core 1 held lines of it */
		skipped += n;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(skipped, (30 - 1) * 60);
	/* L1 is as if nothing was skipped: the tail's lines hit (the last 8
	 * pages first, before the probes push them out), the old lines outside
	 * the sample are gone, core 1 lost its copies to the stores */
	for (uint64_t p = 40; p-- > 0;)
		for (unsigned i = 0; i < 64; i += 3) {
			struct mp_model_out oa, ob;
			mp_model_access(a, 0, 1, p << 12 | i << 6, 0, 0, 12, 7, &oa);
			mp_model_access(b, 0, 1, p << 12 | i << 6, 0, 0, 12, 7, &ob);
			bad += oa.level != ob.level;
			if (p >= 40 - 8)
				bad += oa.level != MP_LVL_L1;
		}
	for (unsigned i = 0; i < 16; i++) {
		struct mp_model_out oa, ob;
		mp_model_access(a, 0, 1, 1000ull << 12 | i << 6, 0, 0, 12, 1, &oa);
		mp_model_access(b, 0, 1, 1000ull << 12 | i << 6, 0, 0, 12, 1, &ob);
		bad += oa.level != ob.level || oa.level == MP_LVL_L1;
		mp_model_access(a, 1, 1, 12ull << 12 | (i * 4) << 6, 0, 0, 12, 1, &oa);
		mp_model_access(b, 1, 1, 12ull << 12 | (i * 4) << 6, 0, 0, 12, 1, &ob);
		bad += oa.level != ob.level || oa.level == MP_LVL_L1;
	}
	CHECK_EQ(bad, 0);
	/* fewer skipped pages than L1 has ways: L1 keeps what it holds */
	CHECK_EQ(mp_model_range_begin(b, 0), 0);
	struct mp_model_out o;
	mp_model_access(b, 0, 1, 2000ull << 12 | 1 << 6, 0, 0, 12, 1, &o);
	for (uint64_t p = 3000; p < 3007; p++)
		skip_page(a, b, 0, p, 0, 1, &bad);
	mp_model_range_end(b, 0);
	mp_model_access(b, 0, 1, 2000ull << 12 | 1 << 6, 0, 0, 12, 1, &o);
	CHECK_EQ(o.level, MP_LVL_L1);
	mp_model_free(a);
	mp_model_free(b);
	/* L1 sets spanning more than a page (Opteron: 64 KiB, 2 ways, 512
	 * sets): a page's lines miss most sets, nothing is skipped */
	CHECK_EQ(mp_machine_preset("opteron-6174", &mm), 0);
	b = mp_model_new(&mm);
	CHECK_EQ(mp_model_sample_sets(b, 16, err, sizeof(err)), 0);
	CHECK_EQ(mp_model_range_tail_lines(b), 0);
	mp_model_free(b);
}

static void test_inclusion(void)
{
	/* core 0 holds line 0; core 1 streams lines 1..8 through the 8-line
	 * LLC, which drops line 0 at line 8. Inclusive: core 0 loses it too. */
	for (int incl = 0; incl < 2; incl++) {
		struct mp_machine mm = tiny(incl ? MP_INCL_INCLUSIVE : MP_INCL_NINE, 2);
		struct mp_model *m = mp_model_new(&mm);
		struct wb_log log = { 0 };
		mp_model_set_writeback(m, on_wb, &log);
		ref(m, 0, 0, 1);
		for (uint64_t l = 1; l <= 8; l++)
			ref(m, 1, l, 0);
		/* the back-invalidated dirty copy was written back at once */
		CHECK_EQ(log.n, incl ? 1u : 0u);
		CHECK_EQ(ref(m, 0, 0, 0), incl ? MP_LVL_LOCAL_DRAM : MP_LVL_L1);
		mp_model_flush(m);
		CHECK_EQ(log.n, 1);
		mp_model_free(m);
	}
	/* exclusive LLC: filled by L2 victims only; a hit moves the line up */
	struct mp_machine mm = tiny(MP_INCL_EXCLUSIVE, 1);
	struct mp_model *m = mp_model_new(&mm);
	ref(m, 0, 0, 0);
	for (uint64_t l = 1; l <= 4; l++)
		ref(m, 0, l, 0); /* L2 (4) drops 0 into the LLC */
	CHECK_EQ(ref(m, 0, 0, 0), MP_LVL_L3);
	/* 0 left the LLC for L2; push it out of L1 and L2 again, then it
	 * is back in the LLC (a victim again), not lost */
	for (uint64_t l = 10; l <= 13; l++)
		ref(m, 0, l, 0);
	CHECK_EQ(ref(m, 0, 0, 0), MP_LVL_L3);
	mp_model_free(m);
}

static void test_coherence(void)
{
	struct mp_machine mm = tiny(MP_INCL_NINE, 2);
	struct mp_model *m = mp_model_new(&mm);
	struct wb_log log = { 0 };
	mp_model_set_writeback(m, on_wb, &log);
	unsigned dram = 0;
	dram += ref(m, 0, 5, 1) == MP_LVL_LOCAL_DRAM; /* core 0 writes */
	CHECK_EQ(ref(m, 1, 5, 0), MP_LVL_L3); /* core 1 reads: core 0's data via the LLC */
	CHECK_EQ(ref(m, 1, 5, 1), MP_LVL_L1); /* core 1 writes: core 0's copy goes */
	CHECK_EQ(ref(m, 0, 5, 0), MP_LVL_L3); /* core 0 must come back for it */
	CHECK_EQ(dram, 1);
	mp_model_flush(m);
	CHECK_EQ(log.n, 1); /* one line, one writeback */
	mp_model_free(m);

	/* An exclusive LLC holds no line a core's L2 does: a clean copy in
	 * the other core's caches serves a miss, cache to cache (not a DRAM
	 * read: a thread that moves to the other core finds its lines
	 * there) */
	mm = tiny(MP_INCL_EXCLUSIVE, 2);
	m = mp_model_new(&mm);
	log.n = 0;
	mp_model_set_writeback(m, on_wb, &log);
	CHECK_EQ(ref(m, 0, 5, 0), MP_LVL_LOCAL_DRAM);
	CHECK_EQ(ref(m, 1, 5, 0), MP_LVL_L3); /* core 0's clean copy, shared */
	CHECK_EQ(ref(m, 0, 5, 0), MP_LVL_L1); /* core 0 kept it */
	CHECK_EQ(ref(m, 0, 7, 0), MP_LVL_LOCAL_DRAM);
	CHECK_EQ(ref(m, 1, 7, 1), MP_LVL_L3); /* a store: core 0's copy goes */
	CHECK_EQ(ref(m, 0, 7, 0), MP_LVL_L3); /* core 1's dirty data, via the LLC */
	mp_model_flush(m);
	CHECK_EQ(log.n, 1); /* line 7, once */
	mp_model_free(m);

	/* An inclusive L2 (snoops look there first: without the line there, a
	 * core has none): core 0 writes 5, and 6 and 7 push it from its L1
	 * (the walk's lines went first), dirty, into its L2, which keeps it */
	mm = tiny(MP_INCL_EXCLUSIVE, 2);
	mm.l2.inclusion = MP_INCL_INCLUSIVE;
	m = mp_model_new(&mm);
	log.n = 0;
	mp_model_set_writeback(m, on_wb, &log);
	CHECK_EQ(ref(m, 0, 5, 1), MP_LVL_LOCAL_DRAM);
	CHECK_EQ(ref(m, 0, 6, 0), MP_LVL_LOCAL_DRAM);
	CHECK_EQ(ref(m, 0, 7, 0), MP_LVL_LOCAL_DRAM);
	/* core 1 reads 5: core 0's L2 copy (none in its L1) goes down to the
	 * LLC and serves it */
	CHECK_EQ(ref(m, 1, 5, 0), MP_LVL_L3);
	CHECK_EQ(ref(m, 0, 5, 0), MP_LVL_L2); /* core 0 kept it, clean */
	/* core 1 writes 6, in core 0's L1 and L2: both copies go */
	CHECK_EQ(ref(m, 1, 6, 1), MP_LVL_L3);
	CHECK_EQ(ref(m, 0, 6, 0), MP_LVL_L3); /* core 1's dirty data, via the LLC */
	CHECK_EQ(ref(m, 1, 9, 0), MP_LVL_LOCAL_DRAM); /* no core has 9 */
	mp_model_flush(m);
	CHECK_EQ(log.n, 2); /* 5 and 6, once each */
	mp_model_free(m);
	/* on two sockets (inclusive LLCs): the other socket serves it, a
	 * remote cache */
	mm = tiny(MP_INCL_INCLUSIVE, 1);
	mm.sockets = 2;
	m = mp_model_new(&mm);
	CHECK_EQ(ref(m, 0, 5, 0), MP_LVL_LOCAL_DRAM);
	CHECK_EQ(ref(m, 1, 5, 0), MP_LVL_REMOTE_CACHE);
	CHECK_EQ(ref(m, 1, 5, 0), MP_LVL_L1);
	mp_model_free(m);
}

/* A store after a load of the line, in place (mp_model_store_again): the
 * line is dirty under the store's owner, and a second model making the
 * store through mp_model_access writes back the same lines with the same
 * owners; a store again repeats, a load too. Where another core holds a
 * copy the store is refused (its copy must go: the full path's snoop). */
static void test_store_again(void)
{
	struct mp_machine mm = tiny(MP_INCL_NINE, 2);
	struct mp_model *a = mp_model_new(&mm), *b = mp_model_new(&mm);
	struct wb_log la = { 0 }, lb = { 0 };
	mp_model_set_writeback(a, on_wb, &la);
	mp_model_set_writeback(b, on_wb, &lb);
	struct mp_model_out o;
	int ok = 1;
	for (uint64_t l = 0; l < 24; l++) {
		mp_model_access(a, 0, 0, l * 64, 0, 0, 12, 7, &o);
		ok &= o.again == MP_AGAIN_LOAD; /* a clean line: a store would change it */
		uint64_t seq = *mp_model_seq(a);
		ok &= mp_model_store_again(a, 0, 100 + (uint32_t)l) == 1;
		ok &= *mp_model_seq(a) == seq + 1;
		mp_model_access(b, 0, 0, l * 64, 0, 0, 12, 7, &o);
		mp_model_access(b, 0, 0, l * 64, 0, 1, 12, 100 + (uint32_t)l, &o);
		ok &= o.level == MP_LVL_L1 && o.tlb == MP_TLB_L1_HIT && o.again == (MP_AGAIN_LOAD | MP_AGAIN_STORE);
	}
	CHECK(ok);
	mp_model_flush(a);
	mp_model_flush(b);
	CHECK_EQ(la.n, 24);
	CHECK_EQ(lb.n, 24);
	for (unsigned i = 0; i < 24; i++)
		CHECK_EQ(la.owners[i], lb.owners[i]);
	CHECK_EQ(la.owners[0], 100);
	/* core 1 shares line 3: core 0's store may not be made in place */
	ref(a, 0, 3, 0);
	ref(a, 1, 3, 0);
	ref(a, 0, 3, 0);
	CHECK_EQ(mp_model_store_again(a, 0, 5), 0);
	CHECK_EQ(ref(a, 0, 3, 1), MP_LVL_L1); /* the full path takes core 1's copy */
	CHECK_EQ(ref(a, 1, 3, 0), MP_LVL_L3);
	mp_model_free(a);
	mp_model_free(b);
}

/* The replay's hints (mp_model_prefetch, mp_model_prefetch_victim) change
 * nothing: a model given them before every reference makes the same
 * references, levels and writebacks as one without, over two cores, set
 * sampling and misses at every level. */
/* Two models of mm sampling the same sets, to compare on one stream. */
static void model_pair(const struct mp_machine *mm, unsigned sets, struct mp_model **a, struct mp_model **b)
{
	char err[128];
	*a = mp_model_new(mm);
	*b = mp_model_new(mm);
	CHECK(*a && *b);
	CHECK_EQ(mp_model_sample_sets(*a, sets, err, sizeof(err)), 0);
	CHECK_EQ(mp_model_sample_sets(*b, sets, err, sizeof(err)), 0);
}

static void test_hints(void)
{
	for (unsigned sets = 1; sets <= 2; sets++) {
		struct mp_machine mm = tiny(MP_INCL_EXCLUSIVE, 2);
		mm.l1d = (struct mp_cache_geom){ 256, 2, MP_REPL_LRU, MP_INCL_NINE, 4 };
		mm.l2 = (struct mp_cache_geom){ 512, 4, MP_REPL_PLRU, MP_INCL_NINE, 10 };
		mm.llc = (struct mp_cache_geom){ 2048, 8, MP_REPL_LRU, MP_INCL_EXCLUSIVE, 40 };
		struct mp_model *a, *b;
		model_pair(&mm, sets, &a, &b);
		struct wb_log la = { 0 }, lb = { 0 };
		mp_model_set_writeback(a, on_wb, &la);
		mp_model_set_writeback(b, on_wb, &lb);
		uint64_t rng = 2463534242ull;
		unsigned same = 0, beyond_l2 = 0;
		for (unsigned i = 0; i < 20000; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			unsigned core = (unsigned)(rng >> 60) & 1;
			uint64_t addr = (rng >> 20) % 96 * 64 + ((rng >> 40) & 1) * 0x200000, paddr = addr + 0x10000000;
			int write = (rng >> 50) & 1;
			mp_model_prefetch_victim(b, core, 1, addr, paddr, mp_model_prefetch(b, core, 1, addr, paddr));
			struct mp_model_out oa, ob;
			mp_model_access(a, core, 1, addr, paddr, write, 12, (uint32_t)i, &oa);
			mp_model_access(b, core, 1, addr, paddr, write, 12, (uint32_t)i, &ob);
			same += oa.level == ob.level && oa.tlb == ob.tlb && oa.latency == ob.latency &&
				oa.walk_refs == ob.walk_refs && oa.walk_dram == ob.walk_dram;
			beyond_l2 += oa.level != MP_LVL_L1 && oa.level != MP_LVL_L2;
		}
		CHECK_EQ(same, 20000);
		CHECK(beyond_l2 > 1000);
		CHECK_EQ(*mp_model_seq(a), *mp_model_seq(b));
		mp_model_flush(a);
		mp_model_flush(b);
		CHECK(la.n > 100);
		CHECK_EQ(la.n, lb.n);
		CHECK_EQ(memcmp(la.owners, lb.owners, sizeof(la.owners)), 0);
		mp_model_free(a);
		mp_model_free(b);
	}
}

/* mp_model_flush_turned: at the end of a sampled run, the dirty lines left
 * are written back only where their LLC set has evicted a line. Set 0 of a
 * 2-set LLC (8 ways) gets 12 stored lines, set 1 gets 3: every line of
 * set 0 is written back once in all (4 during the run at least, the rest
 * by the flush), set 1's none, where a plain flush writes them too. */
static void test_flush_turned(void)
{
	struct mp_machine mm = tiny(MP_INCL_NINE, 1);
	mm.llc = (struct mp_cache_geom){ 1024, 8, MP_REPL_LRU, MP_INCL_NINE, 40 };
	for (int turned = 0; turned < 2; turned++) {
		struct mp_model *m = mp_model_new(&mm);
		struct wb_log log = { 0 };
		mp_model_set_writeback(m, on_wb, &log);
		for (uint64_t i = 0; i < 12; i++)
			ref(m, 0, 2 * i, 1); /* (ref: the owner is the line) */
		for (uint64_t i = 0; i < 3; i++)
			ref(m, 0, 2 * i + 1, 1);
		unsigned during = log.n;
		CHECK(during >= 4);
		if (turned)
			mp_model_flush_turned(m);
		else
			mp_model_flush(m);
		unsigned even = 0, odd = 0;
		for (unsigned i = 0; i < log.n; i++)
			even += log.owners[i] % 2 == 0, odd += log.owners[i] % 2;
		CHECK_EQ(even, 12);
		CHECK_EQ(odd, turned ? 0 : 3);
		mp_model_free(m);
	}
}

struct first_log {
	unsigned n;
	uint32_t owners[16];
	unsigned levels[16], skips[16];
	unsigned pn; /* pages: page numbers, TLB levels, skips, owners */
	uint64_t pages[16];
	unsigned ptlb[16], pskips[16];
	uint32_t powners[16];
	unsigned pt, pt_skips; /* paging-structure lines reported, the last one's skips and owner */
	unsigned second; /* lines seen in a second burst, not in use */
	unsigned psecond; /* pages the same */
	uint32_t pt_owner;
};

static void on_first(void *arg, uint32_t owner, unsigned level, unsigned skips, int walk)
{
	struct first_log *l = arg;
	if (walk) {
		l->pt++;
		l->pt_owner = owner;
		l->pt_skips = skips;
		return;
	}
	if (!skips) {
		l->second++; /* seen in a second burst, not in use */
		return;
	}
	if (l->n < 16) {
		l->owners[l->n] = owner;
		l->levels[l->n] = level;
		l->skips[l->n] = skips;
	}
	l->n++;
}

static void on_first_walk(void *arg, uint32_t owner, unsigned tlb, unsigned skips, uint64_t page, unsigned shift)
{
	struct first_log *l = arg;
	if (!skips) {
		l->psecond++; /* seen in a second burst, not in use */
		return;
	}
	if (l->pn < 16) {
		l->powners[l->pn] = owner;
		l->pages[l->pn] = page >> shift;
		l->ptlb[l->pn] = tlb;
		l->pskips[l->pn] = skips;
	}
	l->pn++;
}

/* A reference to line `line` by core 0 for owner `owner`. */
static void oref(struct mp_model *m, uint64_t line, int write, uint32_t owner)
{
	struct mp_model_out o;
	mp_model_access(m, 0, 0, line * 64 + 8, 0, write, 12, owner, &o);
}

/* Owners 10-19 take fills back from the same rows, 20-29 too. */
static int same_tens(void *arg, uint32_t a, uint32_t b)
{
	(void)arg;
	return a / 10 == b / 10;
}

/* A load of the first line of page p (owner p). */
static void page_ref(struct mp_model *m, uint64_t p)
{
	struct mp_model_out o;
	mp_model_access(m, 0, 0, p * 4096, 0, 0, 12, (uint32_t)p, &o);
}

/* A load of the first line of page p (owner p) by core k. */
static void page_ref_on(struct mp_model *m, unsigned k, uint64_t p)
{
	struct mp_model_out o;
	mp_model_access(m, k, 0, p * 4096, 0, 0, 12, (uint32_t)p, &o);
}

struct left_log {
	unsigned n;
	uint32_t owners[8];
	unsigned bursts[8];
	unsigned pages; /* pages left marked */
	uint32_t page_owners[8];
	unsigned page_bursts[8];
	uint64_t page_va[8];
};

static void on_left(void *arg, uint32_t owner, unsigned bursts, const struct mp_model_left_page *page)
{
	struct left_log *l = arg;
	if (page) {
		if (l->pages < 8) {
			l->page_owners[l->pages] = owner;
			l->page_bursts[l->pages] = bursts;
			l->page_va[l->pages] = page->va;
		}
		l->pages++;
		return;
	}
	if (l->n < 8) {
		l->owners[l->n] = owner;
		l->bursts[l->n] = bursts;
	}
	l->n++;
}

/* mp_model_track_first (burst sampling): a line's first fill is reported
 * when the line, referenced again in its burst (not just by the next
 * reference), is found cached by the first reference of the next burst;
 * not when it was not referenced again, not when found only bursts later,
 * not twice, and not for a line filled again after it left every cache.
 * On the tiny machine (L1 2 lines, L2 4, LLC 8; ref's owner is the line). */
static void test_first_touch(void)
{
	struct mp_machine mm = tiny(MP_INCL_NINE, 1);
	struct mp_model *m = mp_model_new(&mm);
	struct first_log log = { 0 };
	CHECK_EQ(mp_model_track_first(m, on_first, on_first_walk, &log), 0);
	mp_model_set_burst(m, 0);
	CHECK_EQ(ref(m, 0, 1, 0), MP_LVL_LOCAL_DRAM);
	ref(m, 0, 2, 0);
	CHECK_EQ(ref(m, 0, 1, 0), MP_LVL_L1); /* 1 is in use */
	ref(m, 0, 3, 0);
	ref(m, 0, 3, 1); /* (the next reference, randacc's store after its load: 3 is not) */
	mp_model_set_burst(m, 1);
	CHECK_EQ(ref(m, 0, 1, 0), MP_LVL_L1);
	CHECK_EQ(log.n, 1); /* 1 outlived the skip in L1 */
	CHECK_EQ(ref(m, 0, 3, 0), MP_LVL_L1);
	CHECK_EQ(ref(m, 0, 2, 0), MP_LVL_L2);
	CHECK_EQ(log.n, 1);
	/* 5 in use, then pushed out of L1 (its marks go to L2's copy) */
	ref(m, 0, 5, 0);
	ref(m, 0, 2, 0);
	CHECK_EQ(ref(m, 0, 5, 0), MP_LVL_L1);
	ref(m, 0, 6, 0);
	ref(m, 0, 7, 0);
	mp_model_set_burst(m, 2);
	CHECK_EQ(ref(m, 0, 5, 0), MP_LVL_L2);
	CHECK_EQ(log.n, 2);
	ref(m, 0, 1, 0); /* (reported once only) */
	/* 8 in use, then pushed out of L1 and L2 into the LLC, where the
	 * next burst finds it */
	ref(m, 0, 8, 0);
	ref(m, 0, 7, 0);
	CHECK_EQ(ref(m, 0, 8, 0), MP_LVL_L1);
	for (uint64_t l = 9; l < 14; l++)
		ref(m, 0, l, 0);
	mp_model_set_burst(m, 3);
	CHECK_EQ(ref(m, 0, 8, 0), MP_LVL_L3);
	CHECK_EQ(log.n, 3);
	/* 50 in use, found two bursts later */
	ref(m, 0, 50, 0);
	ref(m, 0, 8, 0);
	CHECK_EQ(ref(m, 0, 50, 0), MP_LVL_L1);
	mp_model_set_burst(m, 5);
	CHECK_EQ(ref(m, 0, 8, 0), MP_LVL_L1);
	CHECK_EQ(ref(m, 0, 50, 0), MP_LVL_L1);
	CHECK_EQ(log.n, 4);
	/* 20 in use, gone from every cache, filled again and in use: not a
	 * first fill */
	ref(m, 0, 20, 0);
	ref(m, 0, 8, 0);
	ref(m, 0, 20, 0);
	for (uint64_t l = 30; l < 40; l++)
		ref(m, 0, l, 0);
	CHECK_EQ(ref(m, 0, 20, 0), MP_LVL_LOCAL_DRAM);
	ref(m, 0, 30, 0);
	CHECK_EQ(ref(m, 0, 20, 0), MP_LVL_L1);
	mp_model_set_burst(m, 6);
	CHECK_EQ(ref(m, 0, 20, 0), MP_LVL_L1);
	CHECK_EQ(log.n, 4);
	/* the skips count on past the tag's 16 bursts */
	mp_model_set_burst(m, 15);
	ref(m, 0, 60, 0);
	ref(m, 0, 8, 0);
	ref(m, 0, 60, 0);
	mp_model_set_burst(m, 17);
	ref(m, 0, 8, 0);
	CHECK_EQ(ref(m, 0, 60, 0), MP_LVL_L1);
	CHECK_EQ(log.n, 5);
	/* who, where, and how many skips after its burst */
	static const unsigned want[5][3] = { { 1, MP_LVL_L1, 1 },
					     { 5, MP_LVL_L2, 1 },
					     { 8, MP_LVL_L3, 1 },
					     { 50, MP_LVL_L1, 2 },
					     { 60, MP_LVL_L1, 2 } };
	for (unsigned i = 0; i < 5; i++) {
		CHECK_EQ(log.owners[i], want[i][0]);
		CHECK_EQ(log.levels[i], want[i][1]);
		CHECK_EQ(log.skips[i], want[i][2]);
	}
	mp_model_free(m);

	/* A report takes the marks from every copy: 1, in use, goes back to
	 * L2 and up to L1 again in its burst, is reported from L1 in the next
	 * and then found in L2 after one more skip: not reported again (its L2
	 * copy kept the marks once). And a burst's first reference, a repeat
	 * of the last one before the skip, is looked at too. */
	m = mp_model_new(&mm);
	log = (struct first_log){ 0 };
	CHECK_EQ(mp_model_track_first(m, on_first, on_first_walk, &log), 0);
	mp_model_set_burst(m, 0);
	ref(m, 0, 1, 0);
	ref(m, 0, 2, 0);
	CHECK_EQ(ref(m, 0, 1, 0), MP_LVL_L1); /* in use */
	ref(m, 0, 3, 0);
	ref(m, 0, 4, 0);
	CHECK_EQ(ref(m, 0, 1, 0), MP_LVL_L2);
	mp_model_set_burst(m, 1);
	CHECK_EQ(ref(m, 0, 1, 0), MP_LVL_L1);
	CHECK_EQ(log.n, 1);
	ref(m, 0, 5, 0);
	ref(m, 0, 6, 0);
	mp_model_set_burst(m, 2);
	CHECK_EQ(ref(m, 0, 1, 0), MP_LVL_L2);
	CHECK_EQ(log.n, 1);
	ref(m, 0, 20, 0);
	ref(m, 0, 21, 0);
	ref(m, 0, 20, 0);
	mp_model_set_burst(m, 3);
	CHECK_EQ(ref(m, 0, 20, 0), MP_LVL_L1);
	CHECK_EQ(log.n, 2);
	CHECK_EQ(log.owners[1], 20);
	CHECK_EQ(log.skips[1], 1);
	mp_model_free(m);

	/* Pages (mp_model_track_first's walks) on the tiny machine with a
	 * 4-entry DTLB and a 16-entry STLB: page 1 walked, used again in its
	 * burst and found in the DTLB in the next; page 2 walked but not used
	 * again; page 10 used, pushed out of the DTLB and found in the STLB;
	 * none reported twice. */
	mm = tiny(MP_INCL_NINE, 2);
	mm.stlb = (struct mp_tlb_geom){ 16, 4 };
	mm.stlb_sizes = 1u << MP_PAGE_4K;
	m = mp_model_new(&mm);
	struct first_log pl = { 0 };
	CHECK_EQ(mp_model_track_first(m, on_first, on_first_walk, &pl), 0);
	mp_model_set_burst(m, 0);
	page_ref(m, 1);
	page_ref(m, 2);
	page_ref(m, 1);
	page_ref(m, 3);
	mp_model_set_burst(m, 1);
	page_ref(m, 2);
	page_ref(m, 1);
	page_ref(m, 3);
	mp_model_set_burst(m, 2);
	page_ref(m, 1);
	CHECK_EQ(pl.pn, 1);
	page_ref(m, 10);
	page_ref(m, 11);
	page_ref(m, 10);
	for (uint64_t p = 12; p < 16; p++)
		page_ref(m, p);
	mp_model_set_burst(m, 3);
	page_ref(m, 10);
	page_ref(m, 11);
	mp_model_set_burst(m, 4);
	page_ref(m, 10);
	CHECK_EQ(pl.pn, 2);
	CHECK_EQ(pl.pages[0], 1);
	CHECK_EQ(pl.ptlb[0], MP_TLB_L1_HIT);
	CHECK_EQ(pl.pskips[0], 1);
	CHECK_EQ(pl.pages[1], 10);
	CHECK_EQ(pl.ptlb[1], MP_TLB_L2_HIT);
	CHECK_EQ(pl.pskips[1], 1);
	/* page 13, walked by core 0, is new to core 1's TLBs: its first walk
	 * there is one too (a thread that moved walks its pages again, once) */
	page_ref_on(m, 1, 13);
	page_ref_on(m, 1, 20);
	page_ref_on(m, 1, 13);
	mp_model_set_burst(m, 5);
	page_ref_on(m, 1, 20);
	/* found by another owner's reference: the walk's owner is reported,
	 * whose rows counted the walk */
	struct mp_model_out o;
	mp_model_access(m, 1, 0, 13 * 4096 + 64, 0, 0, 12, 99, &o);
	CHECK_EQ(pl.pn, 3); /* (20, not used again in its burst: not in use) */
	CHECK_EQ(pl.pages[2], 13);
	CHECK_EQ(pl.ptlb[2], MP_TLB_L1_HIT);
	CHECK_EQ(pl.pskips[2], 1);
	CHECK_EQ(pl.powners[2], 13);
	mp_model_free(m);

	/* The bursts a data line is seen in, up to three: 2 is seen again in
	 * the next burst, not in use (reported, skips 0), 1 in use (skips 1),
	 * and 1 once more in a third burst; at the end 3 (seen in one burst)
	 * and 2 (two) are left marked, each once whatever its copies, and 1
	 * is not. */
	mm = tiny(MP_INCL_NINE, 1);
	m = mp_model_new(&mm);
	struct first_log bl = { 0 };
	CHECK_EQ(mp_model_track_first(m, on_first, on_first_walk, &bl), 0);
	mp_model_set_burst(m, 0);
	ref(m, 0, 1, 0);
	ref(m, 0, 2, 0);
	ref(m, 0, 1, 0);
	ref(m, 0, 3, 0);
	mp_model_set_burst(m, 1);
	ref(m, 0, 2, 0);
	CHECK_EQ(bl.second, 1);
	CHECK_EQ(bl.n, 0);
	ref(m, 0, 1, 0);
	CHECK_EQ(bl.n, 1);
	CHECK_EQ(bl.skips[0], 1);
	ref(m, 0, 2, 0); /* (its second burst still) */
	mp_model_set_burst(m, 2);
	ref(m, 0, 1, 0);
	CHECK_EQ(bl.n, 1);
	CHECK_EQ(bl.second, 1);
	struct left_log ll = { 0 };
	CHECK_EQ(mp_model_first_left(m, on_left, &ll), 0);
	CHECK_EQ(ll.n, 2);
	unsigned got[4] = { 0 };
	for (unsigned i = 0; i < ll.n && i < 8; i++)
		if (ll.owners[i] < 4)
			got[ll.owners[i]] = ll.bursts[i];
	CHECK_EQ(got[1], 0);
	CHECK_EQ(got[2], 2);
	CHECK_EQ(got[3], 1);
	mp_model_free(m);

	/* A marked line keeps its filler's owner, whose rows counted the
	 * fill: line 1, filled by owner 10 and loaded by 20, is reported as
	 * 10's; line 2, stored to by 20 (rows other than 10's), loses its
	 * marks; line 3, stored to by 11 (10's rows, other code), keeps them
	 * and stays 10's: 10's code address counted the fill. */
	mm = tiny(MP_INCL_NINE, 1);
	m = mp_model_new(&mm);
	struct first_log ol = { 0 };
	CHECK_EQ(mp_model_track_first(m, on_first, on_first_walk, &ol), 0);
	mp_model_track_same(m, same_tens);
	mp_model_set_burst(m, 0);
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t l = 1; l <= 3; l++)
			oref(m, l, 0, 10);
	oref(m, 2, 1, 20);
	oref(m, 3, 1, 11);
	oref(m, 1, 0, 20); /* (from L2: L1's new copy is still 10's) */
	mp_model_set_burst(m, 1);
	oref(m, 1, 0, 20);
	oref(m, 2, 0, 10);
	oref(m, 3, 0, 20);
	CHECK_EQ(ol.n, 2);
	CHECK_EQ(ol.owners[0], 10);
	CHECK_EQ(ol.owners[1], 10);
	mp_model_free(m);

	/* The same for pages (their first walks; the TLB entries keep the
	 * walker, page p's reference has owner p): 2 seen again in the next
	 * burst, not in use, 1 in use and in a third burst; left: 3 in one
	 * burst and 2 in two, at their addresses, and not 1. */
	mm = tiny(MP_INCL_NINE, 1);
	m = mp_model_new(&mm);
	struct first_log pb = { 0 };
	CHECK_EQ(mp_model_track_first(m, on_first, on_first_walk, &pb), 0);
	mp_model_set_burst(m, 0);
	page_ref(m, 1);
	page_ref(m, 2);
	page_ref(m, 1);
	page_ref(m, 3);
	mp_model_set_burst(m, 1);
	page_ref(m, 2);
	CHECK_EQ(pb.psecond, 1);
	CHECK_EQ(pb.pn, 0);
	page_ref(m, 1);
	CHECK_EQ(pb.pn, 1);
	CHECK_EQ(pb.pskips[0], 1);
	page_ref(m, 2);
	mp_model_set_burst(m, 2);
	page_ref(m, 1);
	CHECK_EQ(pb.pn, 1);
	CHECK_EQ(pb.psecond, 1);
	struct left_log pll = { 0 };
	CHECK_EQ(mp_model_first_left(m, on_left, &pll), 0);
	CHECK_EQ(pll.pages, 2);
	unsigned pgot[4] = { 0 };
	for (unsigned i = 0; i < pll.pages && i < 8; i++)
		if (pll.page_owners[i] < 4 && pll.page_va[i] == pll.page_owners[i] * 4096ull)
			pgot[pll.page_owners[i]] = pll.page_bursts[i];
	CHECK_EQ(pgot[1], 0);
	CHECK_EQ(pgot[2], 2);
	CHECK_EQ(pgot[3], 1);
	mp_model_free(m);

	/* A walk's paging-structure lines (the tiny machine has no
	 * paging-structure caches: each walk reads the PML4E, PDPTE, PDE and
	 * PTE lines, shared by pages 0-7): page 1's walk fills them first,
	 * page 2's uses them again in the burst, and page 3's, in the next,
	 * finds them cached: four reports, each a walk's line, to page 1's
	 * walker; the data lines (each page's first, used once) none. */
	mm = tiny(MP_INCL_NINE, 1);
	m = mp_model_new(&mm);
	struct first_log wl = { 0 };
	CHECK_EQ(mp_model_track_first(m, on_first, on_first_walk, &wl), 0);
	mp_model_set_burst(m, 0);
	page_ref(m, 1);
	page_ref(m, 2);
	mp_model_set_burst(m, 1);
	page_ref(m, 3);
	CHECK_EQ(wl.pt, 4);
	CHECK_EQ(wl.pt_owner, 1);
	CHECK_EQ(wl.pt_skips, 1);
	CHECK_EQ(wl.n, 0);
	uint64_t lines, pages;
	mp_model_first_counts(m, &lines, &pages);
	CHECK_EQ(lines, 3); /* (data lines only: the window's rate of fills counts those) */
	mp_model_free(m);

	/* Pages' first walks are marked apart from lines' first fills: a
	 * burst streams 200K lines (one 1 GiB page, one walk), 25K times the
	 * tiny LLC, which sets nearly every bit of the lines' bitmap; 100 new
	 * 4 KiB pages after are 100 first walks all the same (in the lines'
	 * bitmap, ~5 would come out first and the rest as recurring walks). */
	mm = tiny(MP_INCL_NINE, 1);
	m = mp_model_new(&mm);
	struct first_log sl = { 0 };
	CHECK_EQ(mp_model_track_first(m, on_first, on_first_walk, &sl), 0);
	mp_model_set_burst(m, 0);
	struct mp_model_out so;
	for (uint64_t l = 0; l < 200000; l++)
		mp_model_access(m, 0, 0, (1ull << 30) + l * 64, 0, 1, 30, 1, &so);
	mp_model_first_counts(m, &lines, &pages);
	CHECK(lines > 50000); /* (lines collide among themselves: by design) */
	CHECK_EQ(pages, 1);
	for (uint64_t p = 0; p < 100; p++)
		mp_model_access(m, 0, 0, (4ull << 30) + p * 4096, 0, 0, 12, 2, &so);
	mp_model_first_counts(m, &lines, &pages);
	CHECK(pages >= 1 + 95);
	mp_model_free(m);

	/* Tracking changes nothing the model does: two cores, an exclusive
	 * LLC (marks move up and down with the lines), PLRU L2, an STLB, set
	 * sampling or not, bursts of 500 references; the same outcomes and
	 * writebacks with tracking as without, and some lines and pages
	 * reported. */
	for (unsigned sets = 1; sets <= 2; sets++) {
		mm = tiny(MP_INCL_EXCLUSIVE, 2);
		mm.l1d = (struct mp_cache_geom){ 1024, 2, MP_REPL_LRU, MP_INCL_NINE, 4 };
		mm.l2 = (struct mp_cache_geom){ 4096, 4, MP_REPL_PLRU, MP_INCL_INCLUSIVE, 10 };
		mm.llc = (struct mp_cache_geom){ 8192, 8, MP_REPL_LRU, MP_INCL_EXCLUSIVE, 40 };
		mm.stlb = (struct mp_tlb_geom){ 64, 4 }; /* (the 14 pages fit) */
		mm.stlb_sizes = 1u << MP_PAGE_4K;
		struct mp_model *a, *b;
		model_pair(&mm, sets, &a, &b);
		struct first_log fl = { 0 };
		CHECK_EQ(mp_model_track_first(b, on_first, on_first_walk, &fl), 0);
		struct wb_log la = { 0 }, lb = { 0 };
		mp_model_set_writeback(a, on_wb, &la);
		mp_model_set_writeback(b, on_wb, &lb);
		uint64_t rng = 88172645463325252ull;
		unsigned same = 0;
		for (unsigned i = 0; i < 20000; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			if (i % 500 == 0)
				mp_model_set_burst(b, i / 500);
			unsigned core = (rng >> 60) == 0; /* core 1 now and then */
			/* 8 hot lines and 400 others */
			uint64_t line = (rng >> 30) & 1 ? (rng >> 20) % 8 : 8 + (rng >> 20) % 400;
			uint64_t addr = line * 64 + ((rng >> 40) & 1) * 0x200000;
			int write = (rng >> 50) & 1;
			struct mp_model_out oa, ob;
			mp_model_access(a, core, 1, addr, 0, write, 12, (uint32_t)i, &oa);
			mp_model_access(b, core, 1, addr, 0, write, 12, (uint32_t)i, &ob);
			same += oa.level == ob.level && oa.tlb == ob.tlb && oa.latency == ob.latency &&
				oa.walk_refs == ob.walk_refs && oa.walk_dram == ob.walk_dram;
		}
		CHECK_EQ(same, 20000);
		CHECK(fl.n > 0);
		CHECK(fl.pn > 0);
		mp_model_flush(a);
		mp_model_flush(b);
		CHECK_EQ(la.n, lb.n);
		CHECK_EQ(memcmp(la.owners, lb.owners, sizeof(la.owners)), 0);
		mp_model_free(a);
		mp_model_free(b);
	}
}

/* The PTAT paper's verification (its section 5): the first byte of each 4 KiB
 * page of N pages, N >> STLB entries, gives N STLB misses and N walks; in
 * 2 MiB pages N/512. */
static void test_ptat(void)
{
	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("haswell-e5-2680v3", &mm), 0);
	const uint64_t n = 65536, base = 1ull << 30;
	/* (tlb_only: the same with translations alone, mp_model_translate) */
	for (int run = 0; run < 4; run++) {
		const int huge = run & 1, tlb_only = run >> 1;
		struct mp_model *m = mp_model_new(&mm);
		uint64_t walks = 0, refs = 0, stlb_hits = 0;
		for (uint64_t p = 0; p < n; p++) {
			struct mp_model_out o;
			if (tlb_only)
				mp_model_translate(m, 0, 1, base + p * 4096, huge ? 21 : 12, &o);
			else
				mp_model_access(m, 0, 1, base + p * 4096, 0, 0, huge ? 21 : 12, 0, &o);
			walks += o.tlb == MP_TLB_WALK;
			stlb_hits += o.tlb == MP_TLB_L2_HIT;
			refs += o.walk_refs;
		}
		CHECK_EQ(walks, huge ? n / 512 : n);
		CHECK_EQ(stlb_hits, 0);
		if (!huge) {
			/* paging-structure caches: the first walk reads all four
			 * levels, the first page of each further 2 MiB region its PDE
			 * and PTE (the PDPTE is cached), every other page its PTE */
			CHECK_EQ(refs, 4 + 127 * 2 + (n - 128));
		} else {
			/* first walk: PML4E, PDPTE, PDE; then PDE only */
			CHECK_EQ(refs, 3 + (n / 512 - 1));
		}
		mp_model_free(m);
	}
}

/* A model fed translations alone walks where one fed every reference
 * does: two cores, three page sizes, loads and stores at random over
 * more pages than the TLBs hold, a line now and then again (a repeat the
 * full model answers without translating). Outcome by outcome. */
static void test_translate_only(void)
{
	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("haswell-e5-2680v3", &mm), 0);
	struct mp_model *full = mp_model_new(&mm), *tlb = mp_model_new(&mm);
	uint64_t x = 88172645463325252ull, walks = 0, again = 0, differ = 0;
	static const unsigned shifts[3] = { 12, 21, 30 };
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* four 1 GiB regions in 4 KiB, 2 MiB, 1 GiB and 4 KiB pages */
		unsigned core = (unsigned)(x >> 60) & 1;
		uint64_t region = (x >> 20) & 3, addr = (region << 30) + ((x >> 22) & ((1ull << 30) - 1));
		unsigned ps = shifts[region % 3];
		if (i && (x & 7) == 0)
			continue; /* (some references left out of both: gaps) */
		struct mp_model_out a, b;
		mp_model_access(full, core, 1, addr, 0, (int)(x & 1), ps, 0, &a);
		mp_model_translate(tlb, core, 1, addr, ps, &b);
		differ += a.tlb != b.tlb || (a.tlb == MP_TLB_WALK && a.walk_refs != b.walk_refs);
		walks += a.tlb == MP_TLB_WALK;
		/* the same line again by the same core: a repeat in the full model */
		mp_model_access(full, core, 1, addr, 0, 0, ps, 0, &a);
		again += a.again != 0;
		mp_model_translate(tlb, core, 1, addr, ps, &b);
		differ += a.tlb != b.tlb;
	}
	CHECK_EQ(differ, 0);
	CHECK(walks > 10000); /* (the case walks: 2 GiB of 4 KiB pages at random) */
	CHECK(again > 100000);
	mp_model_free(full);
	mp_model_free(tlb);
}

static void test_machine_files(void)
{
	const char *text = "# a test machine\nname = box\ncores = 4\nllc.size = 8M\nllc.ways = 16\n"
			   "llc.inclusion = inclusive\nstlb.pages = 4k, 2m\n";
	struct mp_machine m;
	char err[200];
	CHECK_EQ(mp_machine_parse(text, "box.machine", &m, err, sizeof(err)), 0);
	CHECK(strcmp(m.name, "box") == 0);
	CHECK_EQ(m.cores, 4);
	CHECK_EQ(m.llc.size, 8u << 20);
	CHECK_EQ(m.llc.inclusion, MP_INCL_INCLUSIVE);
	CHECK_EQ(m.stlb_sizes, 3);
	/* format -> parse gives the same machine */
	char buf[4096];
	CHECK_EQ(mp_machine_format(&m, buf, sizeof(buf)), 0);
	struct mp_machine m2;
	CHECK_EQ(mp_machine_parse(buf, "box.machine", &m2, err, sizeof(err)), 0);
	CHECK(memcmp(&m.l1d, &m2.l1d, sizeof(m.l1d)) == 0 && memcmp(&m.llc, &m2.llc, sizeof(m.llc)) == 0);
	CHECK(memcmp(m.dtlb, m2.dtlb, sizeof(m.dtlb)) == 0 && m.stlb_sizes == m2.stlb_sizes);
	/* errors name the file and the line */
	CHECK(mp_machine_parse("cores = 2\nl1d.ways = seven\n", "bad.machine", &m, err, sizeof(err)) < 0);
	CHECK(strstr(err, "bad.machine:2:") != NULL);
	CHECK(mp_machine_parse("l2.replacement = plru\nl2.ways = 12\nl2.size = 768K\n", "bad.machine", &m, err,
			       sizeof(err)) < 0);
	CHECK(strstr(err, "PLRU") != NULL);
	/* no name given: the file's */
	CHECK_EQ(mp_machine_parse("cores = 2", "two.machine", &m, err, sizeof(err)), 0);
	CHECK(strcmp(m.name, "two.machine") == 0);
	CHECK_EQ(m.cores, 2);
	CHECK_EQ(mp_machine_preset("no-such-machine", &m), -ENOENT);
	/* every preset is valid */
	for (const char *const *p = mp_machine_presets(); *p; p++) {
		CHECK_EQ(mp_machine_preset(*p, &m), 0);
		CHECK_EQ(mp_machine_check(&m, err, sizeof(err)), 0);
		struct mp_model *mo = mp_model_new(&m);
		CHECK(mo != NULL);
		mp_model_free(mo);
	}
}

/* The host as its CPU reports it: this host's facts always give a usable
 * machine; facts of a known shape give that machine, with the notes on
 * what was missing or implausible. */
static void test_machine_host(void)
{
	struct mp_machine m;
	char err[128];
	struct mp_host_cpu h;
	mp_host_cpu_read(&h);
	mp_machine_host(&m, &h);
	CHECK_EQ(mp_machine_check(&m, err, sizeof(err)), 0);
	CHECK(strcmp(m.name, "host") == 0);
	/* nothing reported: the generic core, and notes saying so */
	memset(&h, 0, sizeof(h));
	h.l2_inclusive = h.l3_inclusive = -1;
	mp_machine_host(&m, &h);
	CHECK_EQ(mp_machine_check(&m, err, sizeof(err)), 0);
	CHECK_EQ(m.cores, 1);
	CHECK(strstr(m.desc, "caches from defaults") != NULL);
	CHECK(strstr(m.notes, "L1D not reported") != NULL);
	CHECK(strstr(m.notes, "TLB geometry not reported") != NULL);
	/* a Skylake-SP-like report from sysfs, with leaf 0x18's DTLB and STLB
	 * and an inclusive L2, under a hypervisor */
	memset(&h, 0, sizeof(h));
	h.caches[0] = (struct mp_host_cache){ 1, 1, 64, 8, 32 << 10 };
	h.caches[1] = (struct mp_host_cache){ 1, 0, 64, 8, 32 << 10 }; /* instruction: left out */
	h.caches[2] = (struct mp_host_cache){ 2, 1, 64, 16, 2 << 20 };
	h.caches[3] = (struct mp_host_cache){ 3, 1, 64, 16, 32 << 20 };
	h.ncaches = 4;
	h.cache_source = "sysfs";
	h.l2_inclusive = 1;
	h.l3_inclusive = 0;
	/* leaf 0x18: a 64-entry 4-way L1 DTLB for 4K (type 1, level 1), a
	 * 2048-entry 16-way STLB for 4K and 2M (type 3, level 2) */
	h.tlb_leaf18[0][0] = 1; /* one subleaf more */
	h.tlb_leaf18[0][1] = 4u << 16 | 1;
	h.tlb_leaf18[0][2] = 16;
	h.tlb_leaf18[0][3] = 1u << 5 | 1;
	h.tlb_leaf18[1][1] = 16u << 16 | 3;
	h.tlb_leaf18[1][2] = 128;
	h.tlb_leaf18[1][3] = 2u << 5 | 3;
	h.ntlb_leaf18 = 2;
	h.hypervisor = 1;
	h.cpus = 8;
	mp_machine_host(&m, &h);
	CHECK_EQ(mp_machine_check(&m, err, sizeof(err)), 0);
	CHECK_EQ(m.cores, 8);
	CHECK_EQ(m.l1d.size, 32u << 10);
	CHECK_EQ(m.l1d.ways, 8);
	CHECK_EQ(m.l2.size, 2u << 20);
	CHECK_EQ(m.l2.inclusion, MP_INCL_INCLUSIVE);
	CHECK_EQ(m.llc.size, 32u << 20);
	CHECK_EQ(m.llc.ways, 16);
	CHECK_EQ(m.llc.repl, MP_REPL_LRU);
	CHECK_EQ(m.llc.inclusion, MP_INCL_NINE);
	CHECK_EQ(m.dtlb[MP_PAGE_4K].entries, 64);
	CHECK_EQ(m.dtlb[MP_PAGE_4K].ways, 4);
	CHECK_EQ(m.stlb.entries, 2048);
	CHECK_EQ(m.stlb.ways, 16);
	CHECK_EQ(m.stlb_sizes, 1u << MP_PAGE_4K | 1u << MP_PAGE_2M);
	CHECK(strstr(m.desc, "this host (8 CPUs; caches from sysfs)") != NULL);
	CHECK(strstr(m.notes, "running under a hypervisor") != NULL);
	CHECK(strstr(m.notes, "not reported") == NULL);
}

/* AMD's TLB leaves, decoded: a VM's (recorded on this project's EPYC
 * guests: an STLB of 128 entries beside a 96-entry DTLB, which no CPU
 * has) and constructed ones of the shape of a Zen's. */
static void test_amd_tlbs(void)
{
	struct mp_machine m;
	mp_machine_preset("haswell-e5-2680v3", &m); /* (fields the leaves do not set stay) */
	m.notes[0] = 0;
	const uint32_t vm5[4] = { 0xff60ff40, 0xff60ff40, 0x300c0140, 0x20080140 };
	const uint32_t vm6[4] = { 0x40802040, 0x60804040, 0x04008140, 0x0c009140 };
	CHECK_EQ(mp_machine_amd_tlbs(&m, vm5, vm6), 1);
	CHECK_EQ(m.dtlb[MP_PAGE_4K].entries, 96);
	CHECK_EQ(m.dtlb[MP_PAGE_4K].ways, 96); /* 0xff: fully associative */
	CHECK_EQ(m.dtlb[MP_PAGE_2M].entries, 96);
	CHECK_EQ(m.stlb.entries, 1536); /* the default, not the 128 reported */
	CHECK_EQ(m.stlb.ways, 12);
	CHECK(strstr(m.notes, "STLB reported as 128 entries 8-way beside a 96-entry L1 DTLB, implausible") != NULL);
	/* 72-entry DTLB; a 2048-entry STLB, code 8 = 16 ways, holding 2M too */
	m.notes[0] = 0;
	const uint32_t z5[4] = { 0xff48ff40, 0xff48ff40, 0, 0 };
	const uint32_t z6[4] = { 0x88002200, 0x88004200, 0, 0 };
	CHECK_EQ(mp_machine_amd_tlbs(&m, z5, z6), 1);
	CHECK_EQ(m.dtlb[MP_PAGE_4K].entries, 72);
	CHECK_EQ(m.stlb.entries, 2048);
	CHECK_EQ(m.stlb.ways, 16);
	CHECK_EQ(m.stlb_sizes, 1u << MP_PAGE_4K | 1u << MP_PAGE_2M);
	CHECK_EQ(m.notes[0], 0);
	char err[128];
	CHECK_EQ(mp_machine_check(&m, err, sizeof(err)), 0);
	/* code 0xf: fully associative; 4K only */
	const uint32_t f6[4] = { 0, 0xf2000000, 0, 0 };
	CHECK_EQ(mp_machine_amd_tlbs(&m, z5, f6), 1);
	CHECK_EQ(m.stlb.entries, 512);
	CHECK_EQ(m.stlb.ways, 512);
	CHECK_EQ(m.stlb_sizes, 1u << MP_PAGE_4K);
	/* no L1 DTLB reported: nothing */
	const uint32_t none[4] = { 0, 0, 0, 0 };
	CHECK_EQ(mp_machine_amd_tlbs(&m, none, z6), 0);
}

/* Inclusion from cpuid's bits: this project's EPYC guests report L2
 * inclusive (0x8000001d level 2: edx 2) and L3 not (level 3: edx 1), and a
 * Zen's L3 is a victim cache: exclusive. An Intel part says which it has;
 * an unreported level keeps its value. The model takes each. */
static void test_cpuid_inclusion(void)
{
	struct mp_machine m;
	mp_machine_preset("haswell-e5-2680v3", &m);
	mp_machine_inclusion(&m, 1, (2 >> 1) & 1, (1 >> 1) & 1);
	CHECK_EQ(m.l2.inclusion, MP_INCL_INCLUSIVE);
	CHECK_EQ(m.llc.inclusion, MP_INCL_EXCLUSIVE);
	mp_machine_inclusion(&m, 0, 0, 1);
	CHECK_EQ(m.l2.inclusion, MP_INCL_NINE);
	CHECK_EQ(m.llc.inclusion, MP_INCL_INCLUSIVE);
	mp_machine_inclusion(&m, 0, -1, 0);
	CHECK_EQ(m.l2.inclusion, MP_INCL_NINE);
	CHECK_EQ(m.llc.inclusion, MP_INCL_NINE);
	mp_machine_inclusion(&m, 0, 1, -1);
	CHECK_EQ(m.l2.inclusion, MP_INCL_INCLUSIVE);
	CHECK_EQ(m.llc.inclusion, MP_INCL_NINE);
	char err[128];
	CHECK_EQ(mp_machine_check(&m, err, sizeof(err)), 0);
	struct mp_model *mo = mp_model_new(&m);
	CHECK(mo != NULL);
	mp_model_free(mo);
}

/* The cache sets' memory: lines for a small model, 2 MiB pages' alignment
 * for a big one (an LLC of 32 MiB has 8 MiB of sets), all of it usable. */
static void test_big_alloc(void)
{
	uint8_t *p = mp_big_alloc(100);
	CHECK(p && (uintptr_t)p % 64 == 0);
	memset(p, 1, 100);
	free(p);
	p = mp_big_alloc((3u << 20) + 5);
	CHECK(p && (uintptr_t)p % (2u << 20) == 0);
	if (p)
		memset(p, 1, (3u << 20) + 5);
	free(p);
	p = mp_big_alloc(0);
	CHECK(p != NULL);
	free(p);
	CHECK(mp_big_alloc(SIZE_MAX - 10) == NULL);
	struct model_cache c;
	CHECK_EQ(model_cache_init(&c, (32u << 20) / 64, 16, MP_REPL_LRU, 1), 0);
	CHECK((uintptr_t)c.mem % (2u << 20) == 0);
	CHECK_EQ(model_cache_find(&c, 12345), -1);
	CHECK_EQ(model_cache_keep_every(&c, 16), 0);
	CHECK((uintptr_t)c.mem % 64 == 0);
	model_cache_fini(&c);
}

int main(void)
{
	test_big_alloc();
	test_lru_plru();
	test_set_mod();
	test_lru_reference();
	test_writeback();
	test_levels();
	test_sample_sets();
	test_access_lines();
	test_range_skip();
	test_inclusion();
	test_coherence();
	test_store_again();
	test_hints();
	test_flush_turned();
	test_first_touch();
	test_ptat();
	test_translate_only();
	test_machine_files();
	test_machine_host();
	test_amd_tlbs();
	test_cpuid_inclusion();
	return check_done("test_model");
}
