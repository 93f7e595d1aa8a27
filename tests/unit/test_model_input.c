// SPDX-License-Identifier: MIT
/* The model's side of bad input, on hand-built traces: an access longer
 * than any call can be (a damaged length: 4 TiB is 2^36 lines, hours a
 * line at a time) is counted but not modelled, and the result says the
 * file is damaged and why; the accesses around it are modelled as usual.
 * Likewise a skip longer than the trace's bursts skip: its count, scaled,
 * had every figure overflow. And bursts dropped at replay pass over the
 * chunks whose headers count accesses only, undecoded, with the result a
 * replay that decodes them gets. And a range out of a transparent huge
 * page into a page with no recorded frame: that page is a 4 KiB one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "check.h"
#include "common/mp_memlevel.h"
#include "model/machine.h"
#include "trace_build.h"

static uint8_t *access_at(uint8_t *p, uint64_t *last, uint64_t addr, uint64_t size)
{
	int range = size > 8;
	*p++ = MP_TAG(MP_REC_ACCESS, (range ? MP_SIZE_RANGE : 3u) | MP_ACC_WRITE);
	p = mp_put_uv(p, mp_zigzag((int64_t)(addr - *last)));
	if (range)
		p = mp_put_uv(p, size);
	*last = addr;
	return p;
}

static uint8_t *dropped(uint8_t *p, uint64_t n)
{
	*p++ = MP_TAG(MP_REC_DROPPED, 0);
	return mp_put_uv(p, n);
}

/* Ends the file with a stream chunk of the records from buf to p and
 * analyses it with Nehalem's model: the result, or NULL if that failed. */
static struct an_result *finish_on_nehalem(const uint8_t *buf, const uint8_t *p)
{
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));
	tb_run_end(2000);
	char path[] = "/tmp/mp-model-input-XXXXXX";
	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("nehalem-e5504", &mm), 0);
	struct an_opts o = { .machine = &mm };
	struct an_result *r = NULL;
	CHECK_EQ(tb_analyse(path, &o, NULL, &r), 0);
	return r;
}

/* A trace recorded in bursts of 10 accesses with skips of 90: three
 * bursts; the second skip is a damaged count (2^63), the third one skip
 * the runtime broke off in two (an event came): 90 + 45 + 45 skipped. */
static void test_skip_count(void)
{
	tb_begin("source=inst\ncmdline=constructed\nsample_bursts=10,90\n");
	uint8_t buf[4096], *p = tb_process(buf, 100, 500, "/app", MP_PROC_INSTRUMENTED);
	tb_chunk(MP_CHUNK_PROCESS, 100, 100, 0xabc, buf, (size_t)(p - buf));
	uint64_t last = 0;
	p = tb_stream_start(buf, 1000, 0);
	for (int b = 0; b < 4; b++) {
		for (int i = 0; i < 10; i++)
			p = access_at(p, &last, 0x10000 + 64 * (uint64_t)i, 8);
		if (b == 0)
			p = dropped(p, 90);
		if (b == 1)
			p = dropped(p, 1ull << 63);
		if (b == 2)
			p = dropped(dropped(p, 45), 45);
	}
	struct an_result *r = finish_on_nehalem(buf, p);
	if (!r)
		return;
	CHECK_EQ(r->skipped_accesses, 180);
	CHECK_EQ(r->total.stores, 40 + 180); /* (the estimate: 40 x 220 / 40) */
	CHECK_EQ(r->mem_total.refs, 220);
	CHECK(r->damaged);
	int said = 0;
	for (size_t i = 0; i < r->nwarnings; i++)
		said |= strstr(r->warnings[i], "a skip of 9223372036854775808 accesses, over the trace's 90") != NULL;
	CHECK(said);
	an_result_free(r);
}

/* One thread, seven chunks: an ALLOC and 30 accesses; 25, 25, 25, 35
 * and 25 accesses; a FREE and 10 accesses. Replayed in bursts of 10 with
 * skips of 60, the bursts take accesses 1-10, 71-80 (chunk 2's 16th to
 * 25th) and 141-150 (chunk 5's first ten). The skips pass whole over
 * chunk 1 (25 of the first skip's 40 left) and chunk 3 (25 of 60), not
 * over chunk 4, whose 35 are all the skip has left (it must end on its
 * last access). So chunk 3 may be garbage when its header counts it:
 * the result is that of the file that holds real accesses there and
 * counts nothing, which a replay must decode through. */
static int write_chunked(char *path, int counted)
{
	tb_begin("source=inst\ncmdline=constructed\n");
	uint8_t buf[4096], *p = tb_process(buf, 100, 500, "/app", MP_PROC_INSTRUMENTED);
	tb_chunk(MP_CHUNK_PROCESS, 100, 100, 0xabc, buf, (size_t)(p - buf));
	uint64_t a = 0x100000;
	for (uint32_t c = 0; c < 7; c++) {
		uint64_t last = 0;
		int n = c == 0 ? 30 : c == 6 ? 10 : c == 4 ? 35 : 25;
		p = tb_stream_start(buf, 1000 + c, 0);
		if (c == 0 || c == 6) {
			/* ALLOC: epoch, time, id (0: none), addr, size, stack, sub, group;
			 * FREE: epoch, time, id, addr */
			p = tb_ev(p, c ? MP_EV_FREE : MP_EV_ALLOC, 1, 1000 + c);
			uint64_t f[] = { 0, mp_zigzag(0x100000), 0x10000, 0, 0, 0 };
			p = tb_fields(p, f, c ? 2 : 6);
		}
		for (int i = 0; i < n; i++, a += 64)
			p = access_at(p, &last, a, 8);
		if (c == 3 && counted)
			memset(buf + 8, 0xc1, (size_t)(p - buf) - 8); /* (not records) */
		uint32_t plain = c && c < 6 && counted ? MP_CHUNK_PLAIN | (uint32_t)n : 0;
		tb_chunk_counted(MP_CHUNK_STREAM, 100, 100, 0xabc, c, plain, buf, (size_t)(p - buf));
	}
	tb_run_end(2000);
	return tb_write(path);
}

static void test_skip_chunks(void)
{
	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("nehalem-e5504", &mm), 0);
	struct an_result *r[2] = { NULL, NULL };
	for (int counted = 0; counted < 2; counted++) {
		char path[] = "/tmp/mp-model-input-XXXXXX";
		CHECK_EQ(write_chunked(path, counted), 0);
		struct an_opts o = { .machine = &mm, .burst_on = 10, .burst_off = 60 };
		CHECK_EQ(an_run(path, &o, &r[counted]), 0);
		unlink(path);
	}
	if (!r[0] || !r[1])
		return;
	for (int i = 0; i < 2; i++) {
		CHECK(!r[i]->damaged);
		CHECK_EQ(r[i]->skipped_accesses, 175 - 30);
		CHECK_EQ(r[i]->total.stores, 175); /* (30 x 175 / 30) */
		CHECK_EQ(r[i]->allocations, 1);
		CHECK_EQ(r[i]->frees, 1);
	}
	CHECK_EQ(r[1]->mem_total.refs, r[0]->mem_total.refs);
	CHECK_EQ(r[1]->mem_total.dram_reads, r[0]->mem_total.dram_reads);
	CHECK_EQ(r[1]->mem_total.walks, r[0]->mem_total.walks);
	CHECK_EQ(r[1]->nclasses, r[0]->nclasses);
	for (size_t i = 0; i < r[0]->nclasses && i < r[1]->nclasses; i++)
		CHECK_EQ(r[1]->classes[i].c.stores, r[0]->classes[i].c.stores);
	an_result_free(r[0]);
	an_result_free(r[1]);
}

/* A store of two pages, from the last 4 KiB of a transparent huge page
 * (frames recorded at 0x200000-0x3fffff) into the page after it, which has
 * no recorded frame; then a word of that page. The second page is
 * translated as a 4 KiB page (where its size is the one it was mapped in,
 * unknown, 4 KiB): one walk for each page, and the word hits the DTLB
 * entry its page left. Modelled in the first page's 2 MiB, the second page
 * would leave a 2 MiB entry, which the word's 4 KiB translation misses:
 * a third walk. */
static void test_thp_then_unmapped(void)
{
	tb_begin("source=inst\ncmdline=constructed\n");
	uint8_t buf[4096], *p = tb_process(buf, 100, 500, "/app", MP_PROC_INSTRUMENTED);
	tb_chunk(MP_CHUNK_PROCESS, 100, 100, 0xabc, buf, (size_t)(p - buf));
	/* pid, time, runs; first page (delta), pages, first frame, flags */
	uint64_t pm[] = { 100, 900, 1, mp_zigzag(0x200), 512, 0x8000, MP_PAGEMAP_THP };
	p = tb_fields(buf, pm, 7);
	tb_chunk(MP_CHUNK_PAGEMAP, 100, 100, 0xabc, buf, (size_t)(p - buf));
	uint64_t last = 0;
	p = tb_stream_start(buf, 1000, 0);
	p = access_at(p, &last, 0x3ff000, 8192);
	p = access_at(p, &last, 0x400040, 8);
	struct an_result *r = finish_on_nehalem(buf, p);
	if (!r)
		return;
	CHECK(!r->damaged);
	CHECK_EQ(r->mem_total.refs, 2 * 64 + 1);
	CHECK_EQ(r->mem_total.walks, 2);
	an_result_free(r);
}

int main(void)
{
	test_skip_count();
	test_skip_chunks();
	test_thp_then_unmapped();
	tb_begin("source=inst\ncmdline=constructed\n");
	uint8_t buf[4096], *p = tb_process(buf, 100, 500, "/app", MP_PROC_INSTRUMENTED);
	tb_chunk(MP_CHUNK_PROCESS, 100, 100, 0xabc, buf, (size_t)(p - buf));
	uint64_t last = 0;
	p = tb_stream_start(buf, 1000, 0);
	p = access_at(p, &last, 0x10000, 8);
	p = access_at(p, &last, 0x20000, 1ull << 42);
	p = access_at(p, &last, 0x10040, 8);
	p = access_at(p, &last, 0x30000, 4096); /* a memset of a page: 64 lines */
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));
	tb_run_end(2000);
	char path[] = "/tmp/mp-model-input-XXXXXX", path2[] = "/tmp/mp-model-input-XXXXXX";
	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("nehalem-e5504", &mm), 0);
	struct an_opts o = { .machine = &mm };
	struct an_result *r = NULL;
	CHECK_EQ(tb_analyse(path, &o, NULL, &r), 0);
	if (!r)
		return check_done("test_model_input");
	CHECK_EQ(r->total.stores, 4);
	CHECK_EQ(r->mem_total.refs, 1 + 1 + 64); /* the three modelled accesses' lines */
	CHECK_EQ(r->mem_total.level[MP_LVL_LOCAL_DRAM], 1 + 1 + 64);
	CHECK(r->damaged);
	int said = 0;
	for (size_t i = 0; i < r->nwarnings; i++)
		said |= strstr(r->warnings[i], "access of 4398046511104 bytes at 0x20000") != NULL;
	CHECK(said);
	an_result_free(r);
	/* a limit of its own (the fuzz target's 16 MiB): here 64 bytes, and
	 * the page's memset is left out too (the first warning says so) */
	o.max_model_range = 64;
	r = NULL;
	CHECK_EQ(tb_write(path2), 0);
	CHECK_EQ(an_run(path2, &o, &r), 0);
	unlink(path2);
	if (r) {
		CHECK_EQ(r->mem_total.refs, 2);
		CHECK(r->nwarnings > 0 && strstr(r->warnings[0], "access of 4398046511104 bytes") &&
		      strstr(r->warnings[0], "over the 64 bytes"));
		an_result_free(r);
	}
	return check_done("test_model_input");
}
