// SPDX-License-Identifier: MIT
/*
 * Rows that look like a program's own allocator: one heap block (or a
 * few) that the program carves into small objects itself, a pool, an
 * arena, a slab or a free list. All their objects' accesses land in the
 * one row, which says nothing of what is inside. What gives one away in the
 * result: a block that much of the program's code uses, none of it for
 * most of the accesses (an array is mostly the business of the loop that
 * walks it), among the busiest rows. The note says how to annotate the
 * allocator (memprism.h: memprism_malloclike / memprism_freelike).
 */
#include <stdio.h>

#include "report/report.h"
#include "report/rp_int.h"

#define POOL_MAX_BLOCKS 4 /* a pool, or one per thread of a few */
#define POOL_MIN_SIZE 4096 /* bytes of its largest block */
#define POOL_MIN_SHARE 0.05 /* of all counted accesses */
#define POOL_MIN_USERS 6 /* functions whose code accessed it */
#define POOL_TOP_SHARE 0.5 /* the busiest of them made at most this share */

static uint64_t accesses(const struct an_counts *c)
{
	return c->loads + c->stores;
}

int rp_pool_like(const struct an_result *r, const struct an_class *c)
{
	uint64_t n = accesses(&c->c), total = accesses(&r->total);
	return c->kind == AN_KIND_HEAP && !c->carved && c->instances && c->instances <= POOL_MAX_BLOCKS &&
	       c->max_size >= POOL_MIN_SIZE && total && (double)n >= POOL_MIN_SHARE * (double)total &&
	       c->users >= POOL_MIN_USERS && (double)c->top_user <= POOL_TOP_SHARE * (double)n;
}

void rp_pool_note(char *buf, size_t cap, const struct an_result *r, const struct an_class *c)
{
	char size[32];
	uint64_t total = accesses(&r->total);
	snprintf(buf, cap,
		 "%s may be a pool: %s %s of %s holds %.0f%% of all accesses, made by the code of %u functions, "
		 "the busiest of them %.0f%%. If the program carves it into objects of its own (a "
		 "pool, arena, slab or free list), call memprism_malloclike(addr, size) and "
		 "memprism_freelike(addr) (memprism.h) where its allocator hands a block out and takes it "
		 "back: each object then has a row and a site of its own",
		 c->label, c->instances == 1 ? "one" : "a few", c->instances == 1 ? "block" : "blocks",
		 rp_human(size, sizeof(size), c->max_size), 100.0 * (double)accesses(&c->c) / (double)total,
		 c->users, accesses(&c->c) ? 100.0 * (double)c->top_user / (double)accesses(&c->c) : 0.0);
}
