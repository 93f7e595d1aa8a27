// SPDX-License-Identifier: MIT
/* Page-walk what-ifs from a model run's log of translations
 * (an_result_check_walks), on a hand-built trace whose walks the TLBs'
 * sizes predict: two named tables of 2048 pages (8 MiB) each, 2 MiB
 * aligned, read a word a page, the two interleaved, twice over. On
 * Nehalem (a DTLB of 64 entries for 4 KiB pages and 32 for 2 MiB ones, an
 * STLB of 512 entries for 4 KiB pages alone) 4096 pages going round evict
 * each other from every TLB, LRU: every access walks, 8192 walks. With
 * table A in 2 MiB pages, A's 2048 pages are 4 of those, a walk each the
 * first time and DTLB hits after; B's 2048 pages still miss: 4096 + 4.
 * Both in 2 MiB pages: 8 pages, 8 walks. The checks run on as many
 * threads as asked (ThreadSanitizer runs this test too): every answer the
 * same at 1 and 3 jobs, and the same as the checks the run makes itself
 * (an_opts.walk_checks, a replay of its own). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "check.h"
#include "model/machine.h"
#include "trace_build.h"

#define TABLE_PAGES 2048
#define A_BASE 0x40000000ull
#define B_BASE 0x40800000ull

static uint8_t *name_range(uint8_t *p, uint64_t time, uint64_t addr, uint64_t len, const char *name)
{
	p = tb_ev(p, MP_EV_NAME_RANGE, 1, time);
	uint64_t f[] = { addr, len };
	return tb_str(tb_fields(p, f, 2), name);
}

static uint8_t *load_at(uint8_t *p, uint64_t *last, uint64_t addr)
{
	*p++ = MP_TAG(MP_REC_ACCESS, 3u);
	p = mp_put_uv(p, mp_zigzag((int64_t)(addr - *last)));
	*last = addr;
	return p;
}

static void write_trace(void)
{
	static uint8_t buf[65536];
	uint8_t *p = tb_begin_app(buf);
	p = name_range(p, 1001, A_BASE, TABLE_PAGES * 4096ull, "table_a");
	p = name_range(p, 1002, B_BASE, TABLE_PAGES * 4096ull, "table_b");
	uint64_t last = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t i = 0; i < TABLE_PAGES; i++) {
			p = load_at(p, &last, A_BASE + i * 4096 + 64);
			p = load_at(p, &last, B_BASE + i * 4096 + 64);
		}
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));
	tb_run_end(2000);
}

int main(void)
{
	write_trace();
	char path[] = "/tmp/mp-checks-XXXXXX";
	CHECK_EQ(tb_write(path), 0);
	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("nehalem-e5504", &mm), 0);
	const struct an_page_rule checks[] = { { "table_a", 21 }, { "table_b", 21 }, { "table_", 21 }, { "none", 21 } };
	const size_t n = sizeof(checks) / sizeof(checks[0]);
	const uint64_t want[] = { 4096 + 4, 4096 + 4, 8, 8192 };

	/* the run with its log, and the checks from it */
	struct an_opts o = { .machine = &mm, .log_translations = 1 };
	struct an_result *r = NULL;
	CHECK_EQ(an_run(path, &o, &r), 0);
	if (!r) {
		unlink(path);
		return check_done("test_checks");
	}
	CHECK(!r->damaged);
	CHECK_EQ(r->mem_total.refs, 4 * TABLE_PAGES);
	CHECK_EQ(r->mem_total.walks, 4 * TABLE_PAGES);
	uint64_t walks1[4], walks3[4];
	CHECK_EQ(an_result_check_walks(r, &mm, checks, n, 1, walks1), 0);
	CHECK_EQ(an_result_check_walks(r, &mm, checks, n, 3, walks3), 0);
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ(walks1[i], want[i]);
		CHECK_EQ(walks3[i], walks1[i]);
	}

	/* the checks the run makes itself, replaying the trace */
	struct an_opts oc = { .machine = &mm, .walk_checks = checks, .nwalk_checks = n };
	struct an_result *rc = NULL;
	CHECK_EQ(an_run(path, &oc, &rc), 0);
	for (size_t i = 0; rc && rc->check_walks && i < n; i++)
		CHECK_EQ(rc->check_walks[i], want[i]);
	CHECK(rc && rc->check_walks);
	an_result_free(rc);
	an_result_free(r);
	unlink(path);
	return check_done("test_checks");
}
