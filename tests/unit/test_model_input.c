// SPDX-License-Identifier: MIT
/* The model's side of bad input, on hand-built traces: an access longer
 * than any call can be (a damaged length: 4 TiB is 2^36 lines, hours a
 * line at a time) is counted but not modelled, and the result says the
 * file is damaged and why; the accesses around it are modelled as usual.
 * Likewise a skip longer than the trace's bursts skip: its count, scaled,
 * had every figure overflow. */
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
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));
	tb_run_end(2000);
	char path[] = "/tmp/mp-model-input-XXXXXX";
	CHECK_EQ(tb_write(path), 0);
	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("nehalem-e5504", &mm), 0);
	struct an_opts o = { .machine = &mm };
	struct an_result *r = NULL;
	CHECK_EQ(an_run(path, &o, &r), 0);
	unlink(path);
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

int main(void)
{
	test_skip_count();
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
	CHECK_EQ(tb_write(path), 0);

	struct mp_machine mm;
	CHECK_EQ(mp_machine_preset("nehalem-e5504", &mm), 0);
	struct an_opts o = { .machine = &mm };
	struct an_result *r = NULL;
	CHECK_EQ(an_run(path, &o, &r), 0);
	unlink(path);
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
