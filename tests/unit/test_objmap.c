// SPDX-License-Identifier: MIT
/* The live-object map: layer priority (blocks carved from a pool over it
 * too), overlap replacement, punching holes, and a randomized comparison
 * against a brute-force model (inserts, punches and frees), with and
 * without the shadow of small blocks; rising addresses filling the tree's
 * nodes, and the lookahead's hints; the shadow's names; a map loaded
 * whole. */
#include <stdlib.h>
#include <string.h>

#include "analysis/an_objmap.h"
#include "check.h"

static int cls_at(struct an_objmap *m, uint64_t a)
{
	uint64_t lo, hi;
	struct an_obj *o = an_objmap_find_safe(m, a, &lo, &hi);
	return o ? (int)o->cls : -1;
}

static void test_basic(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	an_objmap_insert(&m, AN_LAYER_BASE, 0x1000, 0x10000, 1); /* a mapping */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0x2000, 0x3000, 2); /* a heap block in it */
	CHECK_EQ(cls_at(&m, 0x1000), 1);
	CHECK_EQ(cls_at(&m, 0x2000), 2);
	CHECK_EQ(cls_at(&m, 0x2fff), 2);
	CHECK_EQ(cls_at(&m, 0x3000), 1);
	CHECK_EQ(cls_at(&m, 0x10000), -1);
	an_objmap_insert(&m, AN_LAYER_NAMED, 0x2800, 0x2900, 3); /* user-named part */
	CHECK_EQ(cls_at(&m, 0x2800), 3);
	CHECK_EQ(cls_at(&m, 0x27ff), 2);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 0x2000), 2);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 0x2000), -1);
	CHECK_EQ(cls_at(&m, 0x2000), 1);
	/* a new object over part of an old one of the same layer takes that
	 * part; the rest of the old one stays (MAP_FIXED over a mapping) */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0x4000, 0x5000, 4);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0x4800, 0x4900, 5);
	CHECK_EQ(cls_at(&m, 0x4000), 4);
	CHECK_EQ(cls_at(&m, 0x4800), 5);
	CHECK_EQ(cls_at(&m, 0x4900), 4);
	/* munmap of the middle of a mapping leaves both ends */
	an_objmap_punch(&m, AN_LAYER_BASE, 0x6000, 0x7000);
	CHECK_EQ(cls_at(&m, 0x5fff), 1);
	CHECK_EQ(cls_at(&m, 0x6000), -1);
	CHECK_EQ(cls_at(&m, 0x7000), 1);
	CHECK_EQ(cls_at(&m, 0xffff), 1);
	an_objmap_fini(&m);
}

/* Random inserts and punches against a model: insert = punch + add, and
 * punch trims objects to what lies outside the hole, so per layer the map
 * behaves like painting cells. 4096 cells per layer. */
static void test_random(int shadow)
{
	enum { N = 4096 };
	static int model[AN_LAYERS][N];
	memset(model, -1, sizeof(model));
	struct an_objmap m;
	an_objmap_init(&m);
	if (shadow)
		m.shadow_from = 0; /* (blocks of 1 to 64 bytes: granules shared all over) */
	struct kept {
		struct an_obj *o;
		uint32_t cls;
		uint64_t gen, lo, hi;
	} kept[4] = { { 0 } };
	unsigned held = 0;
	srand(12345);
	for (int step = 0; step < 20000; step++) {
		int layer = rand() % AN_LAYERS, op = rand() % 10;
		uint64_t lo = (uint64_t)(rand() % N), len = 1 + (uint64_t)(rand() % 64);
		uint64_t hi = lo + len > N ? N : lo + len;
		int paint = -1;
		if (op == 9) {
			/* a free: the object starting exactly at lo, if one does
			 * (pieces of one object are never adjacent) */
			int id = model[layer][lo];
			int starts = id != -1 && (lo == 0 || model[layer][lo - 1] != id);
			CHECK_EQ(an_objmap_remove_at(&m, layer, lo), starts ? id : -1);
			hi = lo;
			while (starts && hi < N && model[layer][hi] == id)
				hi++;
		} else if (op < 6) {
			an_objmap_insert(&m, layer, lo, hi, (uint32_t)step);
			paint = step;
		} else {
			an_objmap_punch(&m, layer, lo, hi);
		}
		for (uint64_t a = lo; a < hi; a++)
			model[layer][a] = paint;
		/* lookups kept across changes (the replay's stream_lookup): one
		 * an_objmap_unchanged says still holds resolves as it did */
		for (int k = 0; k < 4; k++) {
			if (!kept[k].o || !an_objmap_unchanged(&m, kept[k].gen, kept[k].lo, kept[k].hi))
				continue;
			uint64_t a = kept[k].lo + (uint64_t)rand() % (kept[k].hi - kept[k].lo), l2, h2;
			CHECK(an_objmap_find_safe(&m, a, &l2, &h2) == kept[k].o);
			CHECK_EQ(kept[k].o->cls, kept[k].cls);
			held++;
		}
		/* the lookup cache's safe range: every address in it resolves to
		 * the same object */
		uint64_t probe = (uint64_t)(rand() % N), slo = 0, shi = 0;
		struct an_obj *o = an_objmap_find_safe(&m, probe, &slo, &shi);
		if (o)
			kept[step % 4] = (struct kept){ o, o->cls, m.gen, slo, shi };
		if (o) {
			CHECK(slo <= probe && probe < shi);
			for (uint64_t a = slo; a < shi && a < N; a++)
				if (cls_at(&m, a) != (int)o->cls) {
					CHECK_EQ(cls_at(&m, a), o->cls);
					break;
				}
		}
		if (step % 97 == 0) {
			for (uint64_t a = 0; a < N; a++) {
				int want = -1;
				for (int l = 0; l < AN_LAYERS && want == -1; l++)
					want = model[l][a];
				CHECK_EQ(cls_at(&m, a), want);
			}
		}
	}
	CHECK(held > 1000); /* (lookups did outlive changes elsewhere) */
	an_objmap_fini(&m);
}

/* Which changes a kept lookup outlives: those away from its range, up to
 * AN_OBJMAP_LOG of them. */
static void test_unchanged(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 100, 200, 1);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 300, 400, 2);
	uint64_t lo, hi;
	CHECK(an_objmap_find_safe(&m, 150, &lo, &hi) != NULL);
	uint64_t gen = m.gen;
	CHECK(an_objmap_unchanged(&m, gen, lo, hi));
	an_objmap_remove_at(&m, AN_LAYER_OBJECT, 300); /* a free elsewhere */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 500, 600, 3); /* a malloc elsewhere */
	CHECK(an_objmap_unchanged(&m, gen, lo, hi));
	an_objmap_remove_at(&m, AN_LAYER_OBJECT, 100); /* its own free */
	CHECK(!an_objmap_unchanged(&m, gen, lo, hi));
	/* a named region over part of it, a punch that trims it */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 100, 200, 1);
	CHECK(an_objmap_find_safe(&m, 150, &lo, &hi) != NULL);
	gen = m.gen;
	an_objmap_insert(&m, AN_LAYER_NAMED, 190, 195, 4);
	CHECK(!an_objmap_unchanged(&m, gen, lo, hi));
	CHECK(an_objmap_find_safe(&m, 150, &lo, &hi) != NULL);
	gen = m.gen;
	an_objmap_punch(&m, AN_LAYER_OBJECT, 180, 250);
	CHECK(!an_objmap_unchanged(&m, gen, lo, hi));
	/* more changes than the log keeps, however far away */
	CHECK(an_objmap_find_safe(&m, 150, &lo, &hi) != NULL);
	gen = m.gen;
	for (uint64_t i = 0; i <= AN_OBJMAP_LOG; i++)
		an_objmap_insert(&m, AN_LAYER_OBJECT, 1000 + 10 * i, 1005 + 10 * i, 5);
	CHECK(!an_objmap_unchanged(&m, gen, lo, hi));
	an_objmap_fini(&m);
}

/* Each's visit: objects in start order, none overlapping in a layer. */
struct walk {
	size_t n;
	int layer;
	uint64_t last_hi;
	int ok;
};

static void walk_one(void *arg, const struct an_obj *o)
{
	struct walk *w = arg;
	if (o->layer != w->layer) {
		w->layer = o->layer;
		w->last_hi = 0;
	}
	if (o->lo < w->last_hi || o->hi <= o->lo || !o->alive)
		w->ok = 0;
	w->last_hi = o->hi;
	w->n++;
}

/* A layer of a hundred thousand small objects (trees several levels deep),
 * then most of them freed in random order (nodes emptying on every level)
 * and new ones added among the rest, against a cell model. */
static void test_deep(void)
{
	enum { N = 1 << 19 };
	static int model[N];
	for (size_t i = 0; i < N; i++)
		model[i] = -1;
	struct an_objmap m;
	an_objmap_init(&m);
	srand(777);
	size_t objects = 0;
	for (int phase = 0; phase < 3; phase++) {
		for (int step = 0; step < 300000; step++) {
			uint64_t lo = (uint64_t)rand() % N, len = 1 + (uint64_t)(rand() % 3);
			uint64_t hi = lo + len > N ? N : lo + len;
			int id = phase * 1000000 + step, op = rand() % 10;
			/* phase 1 mostly frees; 0 and 2 mostly add */
			int free_it = phase == 1 ? op < 9 : op == 0;
			if (free_it) {
				int was = model[lo];
				int starts = was != -1 && (lo == 0 || model[lo - 1] != was);
				CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, lo), starts ? was : -1);
				hi = lo;
				while (starts && hi < N && model[hi] == was)
					hi++;
				id = -1;
			} else {
				an_objmap_insert(&m, AN_LAYER_OBJECT, lo, hi, (uint32_t)id);
			}
			for (uint64_t a = lo; a < hi; a++)
				model[a] = id;
			uint64_t probe = (uint64_t)rand() % N;
			if (cls_at(&m, probe) != model[probe]) {
				CHECK_EQ(cls_at(&m, probe), model[probe]);
				break;
			}
		}
		objects = 0;
		for (uint64_t a = 0; a < N; a++) {
			if (model[a] != -1 && (a == 0 || model[a - 1] != model[a]))
				objects++;
			if (cls_at(&m, a) != model[a]) {
				CHECK_EQ(cls_at(&m, a), model[a]);
				break;
			}
		}
		struct walk w = { .layer = -1, .ok = 1 };
		an_objmap_each(&m, walk_one, &w);
		CHECK(w.ok);
		CHECK_EQ(w.n, objects);
		CHECK_EQ(m.live, objects);
		if (phase)
			continue;
		/* Whole runs of leaves empty, so inner nodes lose their first
		 * children; the next phases insert and search below what their
		 * first remaining separator was. */
		static const uint64_t sweep[][2] = { { 0, N / 3 }, { N / 2, N / 2 + N / 6 } };
		for (int s = 0; s < 2; s++) {
			for (uint64_t a = sweep[s][0]; a < sweep[s][1]; a++) {
				int was = model[a];
				if (was == -1 || (a && model[a - 1] == was))
					continue;
				CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, a), was);
				for (uint64_t b = a; b < N && model[b] == was; b++)
					model[b] = -1;
			}
			CHECK_EQ(cls_at(&m, sweep[s][0] + 3), -1);
		}
	}
	CHECK(objects > 100000); /* (the last phase left a deep tree) */
	an_objmap_fini(&m);
}

/* An allocator's pattern: most changes land next to the last one (a
 * malloc reusing what a free just gave back, blocks carved in address
 * order), so the same leaves fill, split and empty again and again (runs
 * of frees in address order, both ways), against a cell model. */
static void test_local(int shadow)
{
	enum { N = 1 << 16 };
	static int model[N];
	for (size_t i = 0; i < N; i++)
		model[i] = -1;
	struct an_objmap m;
	an_objmap_init(&m);
	if (shadow)
		m.shadow_from = 0;
	srand(4242);
	uint64_t at = N / 2;
	int bad = 0;
	for (int step = 0; step < 200000 && !bad; step++) {
		int op = rand() % 16;
		if (op == 0) {
			at = (uint64_t)rand() % N; /* elsewhere */
		} else if (op < 3) {
			/* a run of frees from here, up or down */
			int down = op == 2;
			for (int k = 0; k < 40; k++) {
				/* the next block start within 16 cells */
				uint64_t a = at % N;
				int was = -1;
				for (int d = 0; d < 16; d++, a = (down ? a - 1 : a + 1) % N)
					if (model[a] != -1 && (a == 0 || model[a - 1] != model[a])) {
						was = model[a];
						break;
					}
				if (was == -1)
					break;
				CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, a), was);
				for (uint64_t b = a; b < N && model[b] == was; b++)
					model[b] = -1;
				at = down ? a - 1 : a + 1;
			}
		} else if (op < 7) {
			/* a free near here */
			uint64_t a = (at + (uint64_t)(rand() % 33) - 16) % N;
			int was = model[a];
			int starts = was != -1 && (a == 0 || model[a - 1] != was);
			CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, a), starts ? was : -1);
			for (uint64_t b = a; starts && b < N && model[b] == was; b++)
				model[b] = -1;
		} else {
			/* a block next to the last one, ahead of it or in a gap */
			uint64_t lo = (at + (uint64_t)(rand() % 9)) % N, hi = lo + 1 + (uint64_t)(rand() % 4);
			if (hi > N)
				hi = N;
			an_objmap_insert(&m, AN_LAYER_OBJECT, lo, hi, (uint32_t)step);
			for (uint64_t a = lo; a < hi; a++)
				model[a] = step;
			at = hi;
		}
		for (int k = 0; k < 4 && !bad; k++) {
			uint64_t probe = (at + (uint64_t)(rand() % 64) - 32) % N;
			if (cls_at(&m, probe) != model[probe]) {
				CHECK_EQ(cls_at(&m, probe), model[probe]);
				bad = 1;
			}
		}
	}
	for (uint64_t a = 0; a < N && !bad; a++)
		if (cls_at(&m, a) != model[a]) {
			CHECK_EQ(cls_at(&m, a), model[a]);
			bad = 1;
		}
	CHECK(m.live > 1000); /* (trees of several levels, not one leaf) */
	an_objmap_fini(&m);
}

/* A node whose first child empties hands that child's range to the next
 * one: addresses below the next one's first key still find their way down
 * (a node that kept the old separator would crash the descent). */
static void test_first_child(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	for (uint64_t i = 0; i < 100; i++) /* a root over several leaves */
		an_objmap_insert(&m, AN_LAYER_OBJECT, i * 10, i * 10 + 5, (uint32_t)i);
	for (uint64_t i = 0; i < 40; i++) /* the first leaves, and more */
		CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, i * 10), (int64_t)i);
	for (uint64_t a = 0; a < 400; a++)
		CHECK_EQ(cls_at(&m, a), -1);
	CHECK_EQ(cls_at(&m, 400), 40);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 20, 25, 7);
	CHECK_EQ(cls_at(&m, 21), 7);
	CHECK_EQ(cls_at(&m, 25), -1);
	an_objmap_fini(&m);
}

/* Blocks that wait aside (no lookup since their malloc): an allocator's
 * mallocs and frees with a lookup only now and then, against a cell model;
 * most frees take back a block that never reached the tree, and more go
 * by than wait at once (the holes close up, or everything joins). */
static void test_wait(void)
{
	enum { N = 1 << 16, SLOTS = 160 };
	static int model[N];
	for (size_t i = 0; i < N; i++)
		model[i] = -1;
	struct an_objmap m;
	an_objmap_init(&m);
	srand(99);
	struct {
		uint64_t lo, hi;
		int id;
	} slot[SLOTS] = { { 0, 0, -1 } };
	for (int k = 0; k < SLOTS; k++)
		slot[k].id = -1;
	uint64_t next = 0;
	size_t waited_max = 0;
	for (int step = 0; step < 200000; step++) {
		int k = rand() % SLOTS;
		if (slot[k].id >= 0) {
			CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, slot[k].lo), slot[k].id);
			for (uint64_t a = slot[k].lo; a < slot[k].hi; a++)
				model[a] = -1;
			slot[k].id = -1;
		}
		/* a bump allocator over a ring: the new block starts where
		 * the last ended, if that is free */
		uint64_t len = 1 + (uint64_t)(rand() % 40), lo = next % N;
		if (lo + len > N)
			lo = 0;
		int clear = 1;
		for (uint64_t a = lo; a < lo + len; a++)
			clear &= model[a] == -1;
		if (clear) {
			an_objmap_insert(&m, AN_LAYER_OBJECT, lo, lo + len, (uint32_t)step);
			for (uint64_t a = lo; a < lo + len; a++)
				model[a] = step;
			slot[k].lo = lo;
			slot[k].hi = lo + len;
			slot[k].id = step;
		}
		next = lo + len;
		if (m.wait_live > waited_max)
			waited_max = m.wait_live;
		/* a lookup now and then: bursts of them, long gaps without */
		if ((step / 1000) % 8 == 0 || step % 997 == 0) {
			uint64_t a = (uint64_t)rand() % N;
			if (cls_at(&m, a) != model[a]) {
				CHECK_EQ(cls_at(&m, a), model[a]);
				break;
			}
			CHECK_EQ(m.wait_live, 0);
		}
	}
	/* (most blocks did wait: more than half the room, so that it filled
	 * with them and they all joined, as well as with holes) */
	CHECK(waited_max > AN_OBJMAP_WAIT / 2);
	for (uint64_t a = 0; a < N; a++)
		if (cls_at(&m, a) != model[a]) {
			CHECK_EQ(cls_at(&m, a), model[a]);
			break;
		}
	an_objmap_fini(&m);
}

/* Waiting blocks that overlap (a free not seen) join in the order they
 * came, each ending what it overlaps, as on the spot. */
static void test_wait_overlap(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	an_objmap_insert(&m, AN_LAYER_BASE, 0, 10000, 9);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 1000, 2000, 1); /* in the tree */
	CHECK_EQ(cls_at(&m, 1500), 1);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 3000, 4000, 2); /* waits */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 1500, 1600, 3); /* splits 1 */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 3500, 4500, 4); /* ends 2's tail */
	CHECK_EQ(m.wait_live, 3);
	/* a MAP object is not on top while an OBJECT one waits */
	CHECK(!an_objmap_on_top(&m, an_objmap_at(&m, AN_LAYER_BASE, 0)));
	CHECK_EQ(m.wait_live, 0); /* (an_objmap_at joined them) */
	CHECK_EQ(cls_at(&m, 1499), 1);
	CHECK_EQ(cls_at(&m, 1500), 3);
	CHECK_EQ(cls_at(&m, 1600), 1); /* 1's tail, an object of its own */
	CHECK_EQ(cls_at(&m, 3499), 2);
	CHECK_EQ(cls_at(&m, 3500), 4);
	CHECK_EQ(cls_at(&m, 4400), 4);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 1600), 1);
	CHECK_EQ(cls_at(&m, 1700), 9);
	/* one at a waiting one's start ends it on the spot: the free that
	 * follows is the new one's, and the old one's tail stays */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 6000, 6100, 5);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 6000, 6050, 6);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 6000), 6);
	CHECK_EQ(cls_at(&m, 6000), 9);
	CHECK_EQ(cls_at(&m, 6050), 5);
	/* a block in the tree whose free was not seen, its memory given
	 * again: the new block ends it on the spot even when freed before
	 * it joins (a lookup in between would have seen it do so) */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 8000, 8100, 10);
	CHECK_EQ(cls_at(&m, 8000), 10);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 8000, 8050, 11);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 8200, 8300, 12); /* waits on */
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 8000), 11);
	CHECK_EQ(cls_at(&m, 8000), 9);
	CHECK_EQ(cls_at(&m, 8050), 10);
	CHECK_EQ(cls_at(&m, 8200), 12);
	/* what differs from the spot (an_objmap.c, wait_aside): a free of a
	 * waiting block a later one overlaps takes it whole */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 7000, 7100, 7);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 7050, 7200, 8);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 7000), 7);
	CHECK_EQ(cls_at(&m, 7000), 9);
	CHECK_EQ(cls_at(&m, 7050), 8);
	an_objmap_fini(&m);
}

/* A kept lookup far from a waiting block that splits its object: the
 * piece it lies in is a new object, so the lookup no longer holds. */
static void test_wait_split(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0, 1000, 1);
	an_objmap_insert(&m, AN_LAYER_NAMED, 100, 200, 2);
	uint64_t lo, hi;
	struct an_obj *o = an_objmap_find_safe(&m, 500, &lo, &hi);
	CHECK(o && o->cls == 1 && lo == 200 && hi == 1000);
	uint64_t gen = m.gen;
	an_objmap_insert(&m, AN_LAYER_OBJECT, 300, 310, 3); /* waits */
	CHECK(!an_objmap_unchanged(&m, gen, 800, 1000));
	o = an_objmap_find_safe(&m, 900, &lo, &hi);
	CHECK(o && o->cls == 1 && lo == 310 && hi == 1000);
	an_objmap_fini(&m);
}

/* The free range of the tree a taken-back block was found in holds only
 * while the tree stays as it was: an object since put there is seen. */
static void test_wait_gap(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0, 10, 1);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 1000, 1010, 2);
	CHECK_EQ(cls_at(&m, 5), 1);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 100, 110, 3);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 100), 3); /* finds [10, 1000) free */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 120, 130, 4);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 120), 4); /* (the same range) */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 200, 300, 5);
	CHECK_EQ(cls_at(&m, 250), 5); /* 5 is in the tree now */
	an_objmap_insert(&m, AN_LAYER_OBJECT, 200, 250, 6); /* its free not seen */
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, 200), 6);
	CHECK_EQ(cls_at(&m, 200), -1);
	CHECK_EQ(cls_at(&m, 250), 5);
	an_objmap_fini(&m);
}

/* A block carved from a pool lies over it for its lifetime; the pool keeps
 * the rest, and the whole again when the block ends. */
static void test_carved(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0x1000, 0x2000, 1); /* the pool */
	CHECK(an_objmap_layer_empty(&m, AN_LAYER_CARVED));
	an_objmap_insert(&m, AN_LAYER_CARVED, 0x1000, 0x1040, 2); /* at the pool's start */
	an_objmap_insert(&m, AN_LAYER_CARVED, 0x1100, 0x1140, 3);
	CHECK(!an_objmap_layer_empty(&m, AN_LAYER_CARVED));
	CHECK_EQ(cls_at(&m, 0x1000), 2);
	CHECK_EQ(cls_at(&m, 0x1040), 1);
	CHECK_EQ(cls_at(&m, 0x1120), 3);
	CHECK_EQ(cls_at(&m, 0x1140), 1);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_CARVED, 0x1100), 3);
	CHECK_EQ(cls_at(&m, 0x1120), 1);
	/* the pool's end takes what was carved from it (an_replay.c) */
	uint64_t hi = 0;
	CHECK_EQ(an_objmap_take_at(&m, AN_LAYER_OBJECT, 0x1000, &hi), 1);
	CHECK_EQ(hi, 0x2000);
	CHECK_EQ(cls_at(&m, 0x1000), 2);
	an_objmap_punch(&m, AN_LAYER_CARVED, 0x1000, hi);
	CHECK_EQ(cls_at(&m, 0x1000), -1);
	CHECK(an_objmap_layer_empty(&m, AN_LAYER_CARVED));
	an_objmap_fini(&m);
}

/* Blocks allocated in turn come at rising addresses: each goes at the end
 * of a full leaf, which stays full. 32^3 of them fill a tree of three
 * levels exactly (halving full nodes would take four, at twice the nodes).
 * One more needs a fourth. Every one is then found, and the lookahead's
 * hints walk down to it (three steps of pointer slots and nodes, the last
 * the leaf's object) and stop at a change of the tree's shape. */
static void test_rising(void)
{
	enum { N = 32 * 32 * 32 };
	struct an_objmap m;
	an_objmap_init(&m);
	m.shadow_from = SIZE_MAX; /* (the tree's hints: no shadow) */
	for (uint64_t i = 0; i < N; i++)
		an_objmap_insert(&m, AN_LAYER_OBJECT, 0x10000 + 64 * i, 0x10000 + 64 * i + 48, (uint32_t)i);
	an_objmap_join(&m);
	CHECK_EQ(m.height[AN_LAYER_OBJECT], 3);
	int wrong = 0;
	for (uint64_t i = 0; i < N && !wrong; i++)
		wrong = cls_at(&m, 0x10000 + 64 * i + 47) != (int)i || cls_at(&m, 0x10000 + 64 * i + 48) != -1;
	CHECK_EQ(wrong, 0);

	struct an_objmap_hint h;
	uint64_t a = 0x10000 + 64 * 12345 + 7;
	an_objmap_hint_begin(&m, a, &h);
	CHECK(h.node != NULL);
	CHECK_EQ(h.below, 1); /* (the root is read at once: the level below's keys are asked for) */
	int steps = 0;
	while (h.node && steps < 10) {
		an_objmap_hint_step(&m, a, &h);
		steps++;
	}
	CHECK_EQ(steps, 3); /* the slot, the leaf, the object */
	an_objmap_hint_begin(&m, a, &h);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0x10000 + 64 * N, 0x10000 + 64 * N + 8, N);
	an_objmap_join(&m);
	CHECK_EQ(m.height[AN_LAYER_OBJECT], 4);
	an_objmap_hint_step(&m, a, &h);
	CHECK(h.node == NULL);
	CHECK_EQ(cls_at(&m, 0x10000 + 64 * N), N);

	/* no object starts at the last address: the nodes' padding is there */
	an_objmap_insert(&m, AN_LAYER_BASE, UINT64_MAX, UINT64_MAX, 7);
	CHECK_EQ(cls_at(&m, UINT64_MAX - 1), 7);
	CHECK_EQ(cls_at(&m, UINT64_MAX - 2), -1);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_BASE, UINT64_MAX - 1), 7);

	/* full nodes (rising starts fill them) searched at and past their
	 * last key: all 32 keys count and nothing after them, though the
	 * node's pointers, which follow its keys, lie below these addresses */
	const uint64_t top = 0xfff0000000000000ull;
	for (uint64_t i = 0; i < 96; i++)
		an_objmap_insert(&m, AN_LAYER_MAP, top + 64 * i, top + 64 * i + 32, 100 + (uint32_t)i);
	for (uint64_t i = 0; i < 96; i++) {
		CHECK_EQ(cls_at(&m, top + 64 * i), 100 + (int)i);
		CHECK_EQ(cls_at(&m, top + 64 * i + 31), 100 + (int)i);
		CHECK_EQ(cls_at(&m, top + 64 * i + 32), -1);
	}
	an_objmap_fini(&m);
}

/* The shadow alone: a put names every granule a range overlaps, across a
 * leaf's edge; a clear takes back only its own value; no granules from
 * 2^47 up. */
static void test_shadow_values(void)
{
	struct an_shadow sh;
	an_shadow_init(&sh);
	const uint64_t edge = 1ull << AN_SHADOW_LEAF;
	CHECK_EQ(an_shadow_put(&sh, edge - 20, edge + 1, 7), 0);
	CHECK_EQ(sh.leaves, 2);
	CHECK_EQ(an_shadow_get(&sh, edge - 33), 0);
	CHECK_EQ(an_shadow_get(&sh, edge - 32), 7); /* (the granule of edge - 20) */
	CHECK_EQ(an_shadow_get(&sh, edge - 1), 7);
	CHECK_EQ(an_shadow_get(&sh, edge + 15), 7);
	CHECK_EQ(an_shadow_get(&sh, edge + 16), 0);
	CHECK_EQ(an_shadow_put(&sh, edge + 8, edge + 24, 9), 0); /* shares edge's granule */
	CHECK_EQ(an_shadow_get(&sh, edge), 9);
	an_shadow_clear(&sh, edge - 20, edge + 1, 7);
	CHECK_EQ(an_shadow_get(&sh, edge - 32), 0);
	CHECK_EQ(an_shadow_get(&sh, edge - 1), 0);
	CHECK_EQ(an_shadow_get(&sh, edge), 9); /* (not 7's any more: kept) */
	CHECK_EQ(an_shadow_get(&sh, edge + 16), 9);
	CHECK_EQ(an_shadow_put(&sh, 1ull << 47, (1ull << 47) + 64, 5), 0);
	CHECK_EQ(an_shadow_get(&sh, 1ull << 47), 0);
	CHECK(an_shadow_slot(&sh, 3 * edge) == NULL);
	CHECK_EQ(sh.leaves, 2);
	/* a lone leaf keeps small pages; a leaf made next to one before is
	 * a huge page's, whose values start at its 2 MiB boundary */
	CHECK_EQ(sh.huge, 1);
	CHECK_EQ(((uintptr_t)an_shadow_slot(&sh, edge) & ((2u << 20) - 1)), 0);
	CHECK_EQ(an_shadow_put(&sh, 6 * edge, 6 * edge + 16, 4), 0);
	CHECK_EQ(an_shadow_put(&sh, 5 * edge - 16, 5 * edge, 3), 0);
	CHECK_EQ(sh.leaves, 4);
	CHECK_EQ(sh.huge, 1);
	CHECK_EQ(an_shadow_put(&sh, 5 * edge + 32, 5 * edge + 48, 2), 0); /* (between the two) */
	CHECK_EQ(sh.leaves, 5);
	CHECK_EQ(sh.huge, 2);
	CHECK_EQ(((uintptr_t)an_shadow_slot(&sh, 5 * edge) & ((2u << 20) - 1)), 0);
	CHECK_EQ(an_shadow_get(&sh, 5 * edge + 40), 2);
	CHECK_EQ(an_shadow_get(&sh, 5 * edge - 1), 3);
	CHECK_EQ(an_shadow_get(&sh, 6 * edge), 4);
	CHECK_EQ(an_shadow_get(&sh, 5 * edge), 0);
	an_shadow_fini(&sh);
}

/* The class at a and the safe range of the lookup. */
static int cls_safe(struct an_objmap *m, uint64_t a, uint64_t *lo, uint64_t *hi)
{
	struct an_obj *o = an_objmap_find_safe(m, a, lo, hi);
	return o ? (int)o->cls : -1;
}

/* The object map's shadow: which blocks it names, and lookups through it
 * answering as the tree does at granule edges, in granules two blocks
 * share, over the size bound, after frees and overlapping inserts, and
 * under higher layers. */
static void test_shadow(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	m.shadow_from = 0;
	const uint64_t B = 0x7f0000100000ull; /* (a heap's addresses, high in a leaf) */
	an_objmap_insert(&m, AN_LAYER_BASE, B, B + 0x100000, 1);
	an_objmap_insert(&m, AN_LAYER_OBJECT, B, B + 32, 2);
	/* waiting aside: named at the join, which a lookup makes */
	CHECK_EQ(an_shadow_get(&m.shadow, B), 0);
	uint64_t lo, hi;
	CHECK_EQ(cls_safe(&m, B + 31, &lo, &hi), 2);
	CHECK_EQ(lo, B);
	CHECK_EQ(hi, B + 32);
	uint32_t n2 = an_shadow_get(&m.shadow, B);
	CHECK(n2 != 0);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 16), n2);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 32), 0);
	CHECK_EQ(cls_at(&m, B + 32), 1);
	CHECK_EQ(cls_at(&m, B - 1), -1);

	/* unaligned blocks sharing granule B + 0x110: the later names it, and
	 * a lookup of the other there goes to the tree */
	an_objmap_insert(&m, AN_LAYER_OBJECT, B + 0x108, B + 0x118, 3);
	an_objmap_insert(&m, AN_LAYER_OBJECT, B + 0x118, B + 0x128, 4);
	an_objmap_join(&m);
	uint32_t n3 = an_shadow_get(&m.shadow, B + 0x100), n4 = an_shadow_get(&m.shadow, B + 0x120);
	CHECK(n3 && n4 && n3 != n4);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x110), n4);
	CHECK_EQ(cls_at(&m, B + 0x107), 1);
	CHECK_EQ(cls_at(&m, B + 0x108), 3);
	CHECK_EQ(cls_at(&m, B + 0x117), 3);
	CHECK_EQ(cls_at(&m, B + 0x118), 4);
	CHECK_EQ(cls_at(&m, B + 0x127), 4);
	CHECK_EQ(cls_at(&m, B + 0x128), 1);
	/* its free takes back its names, not the other's */
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, B + 0x118), 4);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x110), 0);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x120), 0);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x100), n3);
	CHECK_EQ(cls_at(&m, B + 0x117), 3);
	CHECK_EQ(cls_at(&m, B + 0x118), 1);

	/* at the size bound named, over it not: found in the tree */
	an_objmap_insert(&m, AN_LAYER_OBJECT, B + 0x1000, B + 0x1000 + AN_OBJMAP_SHADOW_MAX, 5);
	an_objmap_insert(&m, AN_LAYER_OBJECT, B + 0x3000, B + 0x3000 + AN_OBJMAP_SHADOW_MAX + 1, 6);
	an_objmap_join(&m);
	CHECK(an_shadow_get(&m.shadow, B + 0x1000 + AN_OBJMAP_SHADOW_MAX - 1) != 0);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x3000), 0);
	CHECK_EQ(cls_safe(&m, B + 0x3000 + AN_OBJMAP_SHADOW_MAX, &lo, &hi), 6);
	CHECK_EQ(lo, B + 0x3000);
	CHECK_EQ(hi, B + 0x3000 + AN_OBJMAP_SHADOW_MAX + 1);
	CHECK_EQ(cls_at(&m, B + 0x3000 + AN_OBJMAP_SHADOW_MAX + 1), 1);

	/* an insert over part of an older block ends that part: the older
	 * one's head keeps its name, its tail is a new object of its own */
	an_objmap_insert(&m, AN_LAYER_OBJECT, B + 0x8000, B + 0x8040, 7);
	an_objmap_join(&m);
	uint32_t n7 = an_shadow_get(&m.shadow, B + 0x8000);
	an_objmap_insert(&m, AN_LAYER_OBJECT, B + 0x8018, B + 0x8028, 8);
	an_objmap_join(&m);
	uint32_t n8 = an_shadow_get(&m.shadow, B + 0x8020), tail = an_shadow_get(&m.shadow, B + 0x8030);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x8000), n7);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x8010), n8); /* (shared: the later's) */
	CHECK(n8 && tail && n8 != n7 && tail != n7 && tail != n8);
	CHECK_EQ(cls_safe(&m, B + 0x8017, &lo, &hi), 7);
	CHECK_EQ(lo, B + 0x8000);
	CHECK_EQ(hi, B + 0x8018);
	CHECK_EQ(cls_at(&m, B + 0x8018), 8);
	CHECK_EQ(cls_at(&m, B + 0x8027), 8);
	CHECK_EQ(cls_safe(&m, B + 0x8028, &lo, &hi), 7);
	CHECK_EQ(lo, B + 0x8028);
	CHECK_EQ(hi, B + 0x8040);
	/* and one over the whole of it ends it: no name of it is left */
	an_objmap_insert(&m, AN_LAYER_OBJECT, B + 0x7ff0, B + 0x8050, 9);
	an_objmap_join(&m);
	uint32_t n9 = an_shadow_get(&m.shadow, B + 0x7ff0);
	for (uint64_t a = B + 0x7ff0; a < B + 0x8050; a += 16)
		CHECK_EQ(an_shadow_get(&m.shadow, a), n9);
	CHECK_EQ(cls_at(&m, B + 0x8020), 9);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, B + 0x8000), -1);
	CHECK_EQ(an_objmap_remove_at(&m, AN_LAYER_OBJECT, B + 0x7ff0), 9);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x8020), 0);

	/* a munmap over part of a block trims it (its name stays where it
	 * still lies); a named region and a carved block over a block: the
	 * safe ranges end at them */
	an_objmap_punch(&m, AN_LAYER_OBJECT, B + 0x10, B + 0x20);
	CHECK_EQ(an_shadow_get(&m.shadow, B), n2);
	CHECK_EQ(an_shadow_get(&m.shadow, B + 0x10), 0);
	CHECK_EQ(cls_at(&m, B + 0xf), 2);
	CHECK_EQ(cls_at(&m, B + 0x10), 1);
	an_objmap_insert(&m, AN_LAYER_NAMED, B + 0x104, B + 0x10c, 10);
	an_objmap_insert(&m, AN_LAYER_CARVED, B + 0x112, B + 0x114, 11);
	CHECK_EQ(cls_safe(&m, B + 0x10c, &lo, &hi), 3);
	CHECK_EQ(lo, B + 0x10c);
	CHECK_EQ(hi, B + 0x112);
	CHECK_EQ(cls_at(&m, B + 0x10b), 10);
	CHECK_EQ(cls_at(&m, B + 0x112), 11);
	CHECK_EQ(cls_safe(&m, B + 0x114, &lo, &hi), 3);
	CHECK_EQ(lo, B + 0x114);
	CHECK_EQ(hi, B + 0x118);
	CHECK(!an_objmap_on_top(&m, an_objmap_find_safe(&m, B + 0x114, &lo, &hi)));

	/* a hint: the granule's slot, then the object named there; where no
	 * leaf is, the tree's way down */
	const uint32_t *slot = an_objmap_hint_slot(&m, B + 0x100);
	CHECK(slot == an_shadow_slot(&m.shadow, B + 0x100));
	CHECK_EQ(*slot, n3);
	CHECK(an_objmap_named(&m, *slot) == an_objmap_find_safe(&m, B + 0x10c, &lo, &hi));
	CHECK(an_objmap_named(&m, 0) == NULL);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0x1000, 0x1010, 12); /* (a leaf of its own) */
	an_objmap_join(&m);
	CHECK_EQ(m.shadow.leaves, 2);
	CHECK(an_objmap_hint_slot(&m, 0x40000000) == NULL);
	an_objmap_fini(&m);
}

/* The shadow begins at a lookup that finds shadow_from objects live:
 * every small block then in the tree gets its names. */
static void test_shadow_late(void)
{
	struct an_objmap m;
	an_objmap_init(&m);
	m.shadow_from = 100;
	for (uint64_t i = 0; i < 99; i++)
		an_objmap_insert(&m, AN_LAYER_OBJECT, 0x100000 + 48 * i, 0x100000 + 48 * i + 32, (uint32_t)i);
	CHECK_EQ(cls_at(&m, 0x100000), 0);
	CHECK(!m.shadow_on);
	an_objmap_insert(&m, AN_LAYER_OBJECT, 0x200000, 0x200000 + 8, 99);
	CHECK_EQ(cls_at(&m, 0x100000 + 48 * 98 + 31), 98);
	CHECK(m.shadow_on);
	int named = 0;
	for (uint64_t i = 0; i < 99; i++)
		named += an_shadow_get(&m.shadow, 0x100000 + 48 * i) != 0 &&
			 an_shadow_get(&m.shadow, 0x100000 + 48 * i + 16) != 0 &&
			 an_shadow_get(&m.shadow, 0x100000 + 48 * i + 32) == 0;
	CHECK_EQ(named, 99);
	CHECK(an_shadow_get(&m.shadow, 0x200000) != 0);
	an_objmap_fini(&m);
}

/* A map loaded whole (an_objmap_load: a forked child's) answers as one
 * made by inserts, at every tree height the counts give (one leaf, full,
 * one past; a level more), and goes on changing as that one does; a layer
 * not empty, or a list out of order, goes in by inserts. With the shadow
 * on before the load, its small blocks are named too. */
static void test_load(int shadow)
{
	static const size_t counts[] = { 1, 31, 32, 33, 1024, 1025, 33000 };
	for (size_t t = 0; t < sizeof(counts) / sizeof(counts[0]); t++) {
		const size_t n = counts[t];
		struct an_objmap_item *v = calloc(2 * n + 2, sizeof(*v));
		CHECK(v != NULL);
		srand((unsigned)(7 + t));
		size_t k = 0;
		uint64_t at = 1;
		for (int layer = AN_LAYER_CARVED; layer <= AN_LAYER_MAP; layer += AN_LAYER_MAP - AN_LAYER_CARVED)
			for (size_t i = 0; i < n; i++) {
				at += (uint64_t)(rand() % 3);
				uint64_t len = 1 + (uint64_t)(rand() % 24);
				v[k] = (struct an_objmap_item){ at, at + len, (uint32_t)(k + 1), (uint8_t)layer };
				k++;
				at += len;
			}
		const uint64_t end = at + 8;
		struct an_objmap a, b;
		an_objmap_init(&a);
		an_objmap_init(&b);
		if (shadow) {
			a.shadow_from = b.shadow_from = 0;
			uint64_t lo, hi;
			an_objmap_find_safe(&a, 0, &lo, &hi); /* (turns the shadow on) */
		}
		/* a layer with an object already: that one goes by inserts */
		an_objmap_insert(&a, AN_LAYER_OBJECT, end, end + 4, 999999);
		an_objmap_insert(&b, AN_LAYER_OBJECT, end, end + 4, 999999);
		v[k++] = (struct an_objmap_item){ end + 8, end + 16, 888888, AN_LAYER_OBJECT };
		CHECK_EQ(an_objmap_load(&a, v, k), 0);
		for (size_t i = 0; i < k; i++)
			an_objmap_insert(&b, v[i].layer, v[i].lo, v[i].hi, v[i].cls);
		CHECK_EQ(a.live, b.live);
		CHECK_EQ(a.live, k + 1);
		for (int step = 0; step < 3; step++) {
			size_t bad = 0;
			for (uint64_t x = 0; x < end + 20; x += end > 100000 ? 7 : 1)
				bad += cls_at(&a, x) != cls_at(&b, x);
			CHECK_EQ(bad, 0);
			/* then the same changes to both */
			for (int c = 0; c < 2000; c++) {
				uint64_t lo = (uint64_t)rand() % end, hi = lo + 1 + (uint64_t)(rand() % 40);
				int layer = rand() % AN_LAYERS, op = rand() % 3;
				if (op == 0) {
					an_objmap_insert(&a, layer, lo, hi, (uint32_t)(1000000 + c));
					an_objmap_insert(&b, layer, lo, hi, (uint32_t)(1000000 + c));
				} else if (op == 1) {
					const size_t i = (size_t)rand() % k;
					CHECK_EQ(an_objmap_remove_at(&a, v[i].layer, v[i].lo),
						 an_objmap_remove_at(&b, v[i].layer, v[i].lo));
				} else {
					an_objmap_punch(&a, layer, lo, hi);
					an_objmap_punch(&b, layer, lo, hi);
				}
			}
		}
		an_objmap_fini(&a);
		an_objmap_fini(&b);
		/* out of order: inserted one by one, the later cutting its
		 * range out of the earlier */
		struct an_objmap_item w[] = { { 100, 200, 1, AN_LAYER_OBJECT }, { 150, 160, 2, AN_LAYER_OBJECT } };
		an_objmap_init(&a);
		CHECK_EQ(an_objmap_load(&a, w, 2), 0);
		CHECK_EQ(cls_at(&a, 120), 1);
		CHECK_EQ(cls_at(&a, 155), 2);
		CHECK_EQ(cls_at(&a, 170), 1);
		CHECK_EQ(cls_at(&a, 200), -1);
		an_objmap_fini(&a);
		free(v);
	}
}

int main(void)
{
	test_load(0);
	test_load(1);
	test_rising();
	test_carved();
	test_wait_gap();
	test_wait();
	test_wait_overlap();
	test_wait_split();
	test_first_child();
	test_local(0);
	test_local(1);
	test_basic();
	test_deep();
	test_unchanged();
	test_random(0);
	test_random(1);
	test_shadow_values();
	test_shadow();
	test_shadow_late();
	return check_done("test_objmap");
}
