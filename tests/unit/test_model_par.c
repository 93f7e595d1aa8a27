// SPDX-License-Identifier: MIT
/* The model on several threads against the serial model, reference by
 * reference: random streams of one-line references, runs of lines in a
 * page, repeats of the last line, cleans and cold machines, on machines
 * whose sets split into many classes (tiny caches, so lines conflict and
 * victims chain down), with every inclusion of L2 and the LLC, LRU and
 * PLRU, several cores on two sockets; 1 to 4 workers. Every outcome field
 * and every owner's counted DRAM writes must be the serial model's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/mp_memlevel.h"
#include "model/model.h"
#include "model/model_int.h"
#include "model/model_par.h"

static struct mp_machine small(unsigned l2_incl, unsigned llc_incl, unsigned repl, unsigned sockets)
{
	struct mp_machine m;
	memset(&m, 0, sizeof(m));
	strcpy(m.name, "small");
	m.sockets = sockets;
	m.cores = 2;
	m.line = 64;
	/* L1 4 sets of 2 ways, L2 8 of 4, LLC 16 of 8: four classes of sets */
	m.l1d = (struct mp_cache_geom){ 512, 2, repl, MP_INCL_NINE, 4 };
	m.l2 = (struct mp_cache_geom){ 2048, 4, repl, l2_incl, 10 };
	m.llc = (struct mp_cache_geom){ 8192, 8, repl, llc_incl, 40 };
	m.dtlb[MP_PAGE_4K] = (struct mp_tlb_geom){ 8, 4 };
	m.dtlb[MP_PAGE_2M] = (struct mp_tlb_geom){ 4, 4 };
	m.stlb = (struct mp_tlb_geom){ 32, 4 };
	m.stlb_sizes = 1u << MP_PAGE_4K;
	m.stlb_latency = 7;
	m.psc_pde = 4;
	m.psc_pdpt = 2;
	m.dram_latency = 200;
	return m;
}

#define OWNERS 16

struct wb_count {
	int counted;
	uint64_t n[OWNERS];
};

static void serial_wb(void *arg, uint32_t owner, uint64_t line, int physical)
{
	struct wb_count *c = arg;
	(void)line;
	(void)physical;
	if (c->counted && owner < OWNERS)
		c->n[owner]++;
}

static void par_wb(void *arg, uint32_t owner, uint64_t n)
{
	uint64_t *c = arg;
	if (owner < OWNERS)
		c[owner] += n;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* What one submission was, to check its outcome when it comes back. */
struct sub {
	struct mp_model_out out;
	uint8_t level[MP_MODEL_LINES_MAX];
	unsigned n, nrep;
	uint8_t replv[64 * 4];
};

static int same_out(const struct mp_model_out *a, const struct mp_model_out *b)
{
	return a->level == b->level && a->tlb == b->tlb && a->walk_refs == b->walk_refs &&
	       a->walk_dram == b->walk_dram && a->latency == b->latency;
}

static unsigned checked, mismatched;

static void take(struct mp_model_par *p, struct sub *subs, uint64_t *head, uint64_t tail, int wait)
{
	struct mp_model_out o;
	const uint8_t *lv, *replv;
	unsigned nrep;
	while (*head < tail && mp_model_par_result(p, wait, &o, &lv, &nrep, &replv) > 0) {
		const struct sub *s = &subs[*head % 4096];
		int ok = same_out(&o, &s->out) && nrep == s->nrep && !memcmp(lv, s->level, s->n);
		for (unsigned i = 0; ok && i < nrep; i++)
			ok = replv ? replv[i] == s->replv[i] : (s->replv[i] & 0x7f) == MP_LVL_L1;
		checked++;
		if (!ok && mismatched++ < 5)
			fprintf(stderr, "submission %llu: level %u/%u tlb %u/%u walk %u/%u dram %u/%u lat %u/%u reps %u/%u\n",
				(unsigned long long)*head, o.level, s->out.level, o.tlb, s->out.tlb, o.walk_refs,
				s->out.walk_refs, o.walk_dram, s->out.walk_dram, o.latency, s->out.latency, nrep,
				s->nrep);
		(*head)++;
	}
}

/* n random submissions on machine mm, serial and on `workers` threads. */
static void run_case(const struct mp_machine *mm, unsigned workers, uint64_t seed, unsigned n)
{
	struct mp_model *m = mp_model_new(mm);
	struct mp_model_par *p = mp_model_par_new(mm, workers);
	CHECK(m != NULL);
	CHECK(p != NULL);
	if (!m || !p)
		return;
	struct wb_count sw = { 0 };
	uint64_t pw[OWNERS] = { 0 };
	mp_model_set_writeback(m, serial_wb, &sw);
	struct sub *subs = calloc(4096, sizeof(*subs));
	uint64_t head = 0, tail = 0, s = seed;
	/* the last submission of one line, which repeats may follow */
	int last_ok = 0;
	unsigned last_core = 0, last_space = 0, last_ps = 12;
	uint32_t last_owner = 0;
	uint64_t last_addr = 0;
	int counted = 1;
	checked = mismatched = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t r = rnd(&s);
		unsigned what = (unsigned)(r % 100);
		if (what < 2) {
			/* a region boundary */
			while (mp_model_par_full(p))
				take(p, subs, &head, tail, 1);
			sw.counted = counted;
			mp_model_clean(m);
			mp_model_par_clean(p, counted);
			last_ok = 0;
			counted = (int)(rnd(&s) & 1) | (what == 0);
			continue;
		}
		if (what == 2 && (r >> 8) % 8 == 0) {
			/* a cold machine (a process's own) */
			take(p, subs, &head, tail, 1);
			CHECK(mp_model_par_result(p, 1, &(struct mp_model_out){ 0 }, &(const uint8_t *){ NULL },
						  &(unsigned){ 0 }, &(const uint8_t *){ NULL }) == 0);
			mp_model_free(m);
			m = mp_model_new(mm);
			mp_model_set_writeback(m, serial_wb, &sw);
			CHECK_EQ(mp_model_par_renew(p), 0);
			last_ok = 0;
			continue;
		}
		if (what < 30 && last_ok) {
			/* repeats of the last line: up to 3 runs of up to 64 */
			struct sub *sb = &subs[(tail - 1) % 4096];
			unsigned runs = 1 + (unsigned)(rnd(&s) % 3);
			for (unsigned k = 0; k < runs && last_ok && sb->nrep + 64 <= sizeof(sb->replv); k++) {
				unsigned nr = 1 + (unsigned)(rnd(&s) % 64);
				uint64_t writes = rnd(&s) & rnd(&s);
				/* (half the runs by another owner: a store from another function) */
				const uint32_t ro = rnd(&s) & 1 ? last_owner : (uint32_t)(rnd(&s) % OWNERS);
				for (unsigned j = 0; j < nr; j++) {
					struct mp_model_out o;
					int w = (int)((writes >> j) & 1);
					mp_model_access(m, last_core, last_space, last_addr, 0, w, last_ps, ro, &o);
					/* (a repeat's translation is a DTLB hit: nothing else says so) */
					sb->replv[sb->nrep++] =
						(uint8_t)((o.tlb == MP_TLB_L1_HIT ? o.level : 0x7f) | (w ? 0x80 : 0));
				}
				last_ok = mp_model_par_repeat(p, nr < 64 ? writes & ((1ull << nr) - 1) : writes, nr, ro) == 1;
			}
			continue;
		}
		while (mp_model_par_full(p))
			take(p, subs, &head, tail, 1);
		/* a line among 96 pages in 4 address spaces (2M pages in one) */
		unsigned core = (unsigned)(rnd(&s) % (mm->sockets * mm->cores));
		unsigned space = (unsigned)(rnd(&s) % 4);
		unsigned ps = space == 3 ? 21 : 12;
		uint64_t page = rnd(&s) % 96, line = rnd(&s) % 64;
		uint64_t addr = (space == 3 ? page << 21 | (rnd(&s) % 512) << 12 : page << 12) | line << 6 |
				(rnd(&s) % 64);
		int write = (int)(rnd(&s) % 3 == 0);
		uint32_t owner = (uint32_t)(page % OWNERS);
		unsigned nl = what < 40 ? 1 + (unsigned)(rnd(&s) % (64 - line)) : 1;
		struct sub *sb = &subs[tail % 4096];
		memset(sb, 0, sizeof(*sb));
		sb->n = nl;
		sw.counted = counted;
		mp_model_access_lines(m, core, space, addr, 0, nl, write, ps, owner, 0, &sb->out, sb->level);
		mp_model_par_access(p, core, space, addr, 0, nl, write, ps, owner, counted);
		tail++;
		last_ok = nl == 1;
		last_core = core;
		last_space = space;
		last_ps = ps;
		last_addr = addr;
		last_owner = owner;
		if (tail - head >= 4000)
			take(p, subs, &head, tail, 1);
		else if (i % 64 == 0)
			take(p, subs, &head, tail, 0);
		if (head == tail)
			last_ok = 0; /* (its outcome taken: no repeats may follow) */
	}
	while (head < tail)
		take(p, subs, &head, tail, 1);
	CHECK_EQ(mp_model_par_writebacks(p, par_wb, pw), 0);
	CHECK_EQ(mismatched, 0);
	CHECK_EQ(checked, tail);
	uint64_t total = 0;
	for (unsigned o = 0; o < OWNERS; o++) {
		CHECK_EQ(pw[o], sw.n[o]);
		total += sw.n[o];
	}
	CHECK(total > 0); /* (the case wrote back: the counts were compared) */
	free(subs);
	mp_model_free(m);
	mp_model_par_free(p);
}

/* The worker beside the caller (mp_model_par_beside): one model, made on
 * the caller's thread for a while, lent to the worker for a while, in
 * turns; every outcome and every owner's DRAM writes (the caller's while
 * it holds the model, the worker's while lent) must be those of a serial
 * model fed the same references. */
static void run_beside(const struct mp_machine *mm, uint64_t seed, unsigned n)
{
	struct mp_model *m = mp_model_new(mm), *mine = mp_model_new(mm);
	struct mp_model_par *p = mp_model_par_beside(mm);
	CHECK(m != NULL && mine != NULL && p != NULL);
	if (!m || !mine || !p)
		return;
	struct wb_count sw = { .counted = 1 }, own = { .counted = 1 };
	uint64_t pw[OWNERS] = { 0 };
	mp_model_set_writeback(m, serial_wb, &sw);
	mp_model_set_writeback(mine, serial_wb, &own);
	CHECK_EQ(mp_model_par_renew(p), -EINVAL); /* (the caller's model: the caller renews it) */
	struct sub *subs = calloc(4096, sizeof(*subs));
	uint64_t head = 0, tail = 0, s = seed;
	int lent = 0, last_ok = 0, counted = 1;
	unsigned last_core = 0, last_ps = 12, turns = 0;
	uint32_t last_owner = 0;
	uint64_t last_addr = 0;
	checked = mismatched = 0;
	for (unsigned i = 0; i < n; i++) {
		const unsigned what = (unsigned)(rnd(&s) % 100);
		if (what < 2) {
			/* hand the model over, or back */
			if (lent) {
				while (head < tail)
					take(p, subs, &head, tail, 1);
				CHECK_EQ(mp_model_par_writebacks(p, par_wb, pw), 0);
				mp_model_par_reclaim(p);
				mp_model_set_writeback(mine, serial_wb, &own);
			} else {
				CHECK_EQ(mp_model_par_lend(p, mine), 0);
			}
			lent = !lent;
			last_ok = 0;
			turns++;
			continue;
		}
		if (what < 3) {
			/* a region boundary */
			counted = (int)(rnd(&s) & 1);
			sw.counted = own.counted = counted;
			mp_model_clean(m);
			if (lent) {
				while (mp_model_par_full(p))
					take(p, subs, &head, tail, 1);
				mp_model_par_clean(p, counted);
			} else {
				mp_model_clean(mine);
			}
			last_ok = 0;
			continue;
		}
		if (what < 25 && last_ok && lent) {
			/* repeats of the last line, by its owner or another */
			struct sub *sb = &subs[(tail - 1) % 4096];
			const unsigned nr = 1 + (unsigned)(rnd(&s) % 64);
			const uint64_t writes = rnd(&s) & rnd(&s);
			const uint32_t ro = rnd(&s) & 1 ? last_owner : (uint32_t)(rnd(&s) % OWNERS);
			if (sb->nrep + nr > sizeof(sb->replv))
				continue;
			for (unsigned j = 0; j < nr; j++) {
				struct mp_model_out o;
				const int w = (int)((writes >> j) & 1);
				mp_model_access(m, last_core, 0, last_addr, 0, w, last_ps, ro, &o);
				sb->replv[sb->nrep++] = (uint8_t)((o.tlb == MP_TLB_L1_HIT ? o.level : 0x7f) | (w ? 0x80 : 0));
			}
			last_ok = mp_model_par_repeat(p, nr < 64 ? writes & ((1ull << nr) - 1) : writes, nr, ro) == 1;
			continue;
		}
		const unsigned core = (unsigned)(rnd(&s) % (mm->sockets * mm->cores));
		const uint64_t page = rnd(&s) % 96, line = rnd(&s) % 64;
		const uint64_t addr = page << 12 | line << 6 | (rnd(&s) % 64);
		const int write = (int)(rnd(&s) % 3 == 0);
		const uint32_t owner = (uint32_t)(page % OWNERS);
		const unsigned nl = what < 40 ? 1 + (unsigned)(rnd(&s) % (64 - line)) : 1;
		struct mp_model_out want, got;
		uint8_t lv_want[MP_MODEL_LINES_MAX], lv_got[MP_MODEL_LINES_MAX];
		if (lent) {
			while (mp_model_par_full(p))
				take(p, subs, &head, tail, 1);
			struct sub *sb = &subs[tail % 4096];
			memset(sb, 0, sizeof(*sb));
			sb->n = nl;
			mp_model_access_lines(m, core, 0, addr, 0, nl, write, 12, owner, 0, &sb->out, sb->level);
			mp_model_par_access(p, core, 0, addr, 0, nl, write, 12, owner, counted);
			tail++;
			last_ok = nl == 1;
		} else {
			mp_model_access_lines(m, core, 0, addr, 0, nl, write, 12, owner, 0, &want, lv_want);
			mp_model_access_lines(mine, core, 0, addr, 0, nl, write, 12, owner, 0, &got, lv_got);
			checked++;
			if ((!same_out(&want, &got) || memcmp(lv_want, lv_got, nl)) && mismatched++ < 5)
				fprintf(stderr, "beside, inline reference %u: level %u/%u\n", i, got.level, want.level);
			last_ok = 0;
		}
		last_core = core;
		last_addr = addr;
		last_owner = owner;
		if (tail - head >= 4000)
			take(p, subs, &head, tail, 1);
		if (head == tail)
			last_ok = 0;
	}
	while (head < tail)
		take(p, subs, &head, tail, 1);
	CHECK_EQ(mp_model_par_writebacks(p, par_wb, pw), 0);
	mp_model_par_reclaim(p);
	CHECK_EQ(mismatched, 0);
	CHECK(turns > 10);
	uint64_t total = 0;
	for (unsigned o = 0; o < OWNERS; o++) {
		CHECK_EQ(pw[o] + own.n[o], sw.n[o]);
		total += sw.n[o];
	}
	CHECK(total > 0);
	free(subs);
	mp_model_free(m);
	mp_model_free(mine);
	mp_model_par_free(p);
}

/* model_repeats where the line is no longer in L1 (what the tag check
 * of mp_model_access's `again` guards against): the first repeat is a
 * reference like any other, those after it repeats again; the same
 * levels and state as the serial model's references. */
static void test_repeats_missed(void)
{
	struct mp_machine mm = small(MP_INCL_NINE, MP_INCL_NINE, MP_REPL_LRU, 1);
	struct mp_model *a = mp_model_new(&mm), *b = mp_model_new(&mm);
	struct mp_model_out o;
	uint64_t keys[5];
	const uint64_t addr = 0x5000, key = addr >> 6;
	mp_model_access(a, 0, 0, addr, 0, 0, 12, 1, &o);
	model_front(b, 0, 0, addr, 0, 12, 1, &o, keys);
	CHECK_EQ(keys[o.walk_refs], key);
	for (unsigned k = 0; k < o.walk_refs; k++)
		model_line(b, 0, keys[k], 0, 1);
	CHECK_EQ(model_line(b, 0, key, 0, 1), MP_LVL_LOCAL_DRAM);
	/* the line leaves core 0's L1 in both (it stays in L2) */
	struct mp_model *m2[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		int64_t j = model_cache_find(&m2[i]->core[0].l1, key);
		CHECK(j >= 0);
		model_cache_drop(&m2[i]->core[0].l1, (uint64_t)j);
	}
	/* load, store, load, store by the same owner */
	uint8_t lv[4], want[4];
	for (unsigned i = 0; i < 4; i++) {
		mp_model_access(a, 0, 0, addr, 0, (int)(i & 1), 12, 1, &o);
		CHECK_EQ(o.tlb, MP_TLB_L1_HIT);
		want[i] = (uint8_t)(o.level | (i & 1 ? 0x80 : 0));
	}
	CHECK_EQ(model_repeats(b, 0, key, 0xa, 4, 1, lv), 1);
	CHECK_EQ(want[0], MP_LVL_L2);
	CHECK_EQ(want[1], MP_LVL_L1 | 0x80);
	CHECK(!memcmp(lv, want, 4));
	/* the same state after: the line dirty in L1 under owner 1 */
	for (int i = 0; i < 2; i++) {
		int64_t j = model_cache_find(&m2[i]->core[0].l1, key);
		CHECK(j >= 0 && (*mc_flags(&m2[i]->core[0].l1, (uint64_t)j) & MC_DIRTY));
	}
	mp_model_free(a);
	mp_model_free(b);
}

int main(void)
{
	const unsigned incl[3] = { MP_INCL_INCLUSIVE, MP_INCL_NINE, MP_INCL_EXCLUSIVE };
	unsigned n = getenv("MP_SANITIZED") && atoi(getenv("MP_SANITIZED")) ? 3000 : 8000;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (unsigned l2 = 0; l2 < 2; l2++)
		for (unsigned llc = 0; llc < 3; llc++)
			for (unsigned repl = 0; repl < 2; repl++) {
				struct mp_machine mm = small(incl[l2], incl[llc], repl ? MP_REPL_PLRU : MP_REPL_LRU,
							     1 + (llc + repl) % 2);
				for (unsigned w = 1; w <= 4; w++)
					run_case(&mm, w, seed += 0x1234567, n);
			}
	/* a preset's geometry: 64 classes, of which 3 workers take unequal shares */
	struct mp_machine hw;
	CHECK_EQ(mp_machine_preset("haswell-e5-2680v3", &hw), 0);
	run_case(&hw, 3, 42, n);
	for (unsigned k = 0; k < 4; k++) {
		struct mp_machine mm = small(incl[k % 2], incl[k % 3], k & 1 ? MP_REPL_PLRU : MP_REPL_LRU, 1 + k % 2);
		run_beside(&mm, seed += 0x1234567, n);
	}
	test_repeats_missed();
	/* repeats of a submission whose outcome was taken are refused */
	struct mp_model_par *p = mp_model_par_new(&hw, 2);
	struct mp_model_out o;
	const uint8_t *lv, *replv;
	unsigned nrep;
	mp_model_par_access(p, 0, 0, 0x1000, 0, 1, 0, 12, 1, 1);
	CHECK_EQ(mp_model_par_repeat(p, 1, 1, 1), 1);
	CHECK_EQ(mp_model_par_result(p, 1, &o, &lv, &nrep, &replv), 1);
	CHECK_EQ(nrep, 1);
	CHECK_EQ(mp_model_par_repeat(p, 1, 1, 1), -1);
	CHECK_EQ(mp_model_par_result(p, 1, &o, &lv, &nrep, &replv), 0);
	mp_model_par_free(p);
	/* bad worker counts */
	CHECK(mp_model_par_new(&hw, 0) == NULL);
	CHECK(mp_model_par_new(&hw, MP_MODEL_PAR_MAX + 1) == NULL);
	return check_done("test_model_par");
}
