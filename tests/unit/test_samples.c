// SPDX-License-Identifier: MIT
/* PMU samples through the whole analysis, without hardware: a constructed
 * data file (one process, one heap block live from t=2000 to t=5000, PEBS
 * load samples before, during and after, a lost record) must give the block
 * exactly the samples of its lifetime, each scaled by its own period (the
 * event's, or the one the sample reports, as --period-jitter makes), with the
 * levels, remote share, TLB outcome and latency their data_src says, and
 * label the figures measured. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "check.h"
#include "report/report.h"
#include "trace_build.h"

static uint8_t *sample_p(uint8_t *p, uint64_t time, uint64_t addr, uint64_t data_src, uint64_t lat, uint64_t period)
{
	p = tb_ev(p, MP_EV_SAMPLE, 0, time);
	uint64_t f[] = { 1 /* cpu */, 100, 100, addr, 0x401000, 0 /* event */, period, data_src, lat, 0 };
	p = tb_fields(p, f, sizeof(f) / sizeof(f[0]));
	return mp_put_uv(p, 0); /* empty callchain */
}
static uint8_t *sample(uint8_t *p, uint64_t time, uint64_t addr, uint64_t data_src, uint64_t lat)
{
	return sample_p(p, time, addr, data_src, lat, 0); /* period 0: the def's */
}

int main(int argc, char **argv)
{
	const char *meta = "source=pmu\ncmdline=constructed\n";
	tb_begin(meta);
	/* PROCESS: pid 100, started at t=1000 */
	uint8_t buf[4096], *p = tb_process(buf, 100, 1000, "/bin", 0);
	tb_chunk(MP_CHUNK_PROCESS, 100, 100, 0xabc, buf, (size_t)(p - buf));

	/* STREAM: alloc 0x10000..0x11000 at t=2000 (epoch 1), free at t=5000 (epoch 2) */
	p = tb_stream_start(buf, 1000, 0);
	p = tb_ev(p, MP_EV_ALLOC, 1, 2000);
	uint64_t alloc[] = { 0, mp_zigzag(0x10000), 0x1000, 0, 0, 0 };
	p = tb_fields(p, alloc, 6);
	p = tb_ev(p, MP_EV_FREE, 1, 5000);
	p = mp_put_uv(p, 0);
	p = mp_put_uv(p, 0); /* addr delta 0: the same block */
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));

	/* SAMPLES: the definition (PEBS loads, period 100), then samples */
	uint64_t l1 = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, L1) | PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L1);
	uint64_t rdram = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(REMOTE, REMOTE) |
			 PERF_MEM_S(HOPS, 2) | PERF_MEM_S(TLB, MISS) | PERF_MEM_S(TLB, WK);
	p = tb_ev(buf, MP_EV_SAMPLE_DEF, 0, 900);
	uint64_t def[] = { 0, MP_SK_PEBS_LOAD, 4, 0x1cd, 100 };
	p = tb_str(tb_fields(p, def, 5), "mem-loads");
	p = sample(p, 1500, 0x10010, l1, 5); /* before the block exists: unknown */
	p = sample(p, 3000, 0x10010, l1, 5); /* in the block */
	p = sample(p, 3500, 0x10800, rdram, 300); /* in the block: remote DRAM, walk */
	p = sample_p(p, 4000, 0x10ff8, l1, 6, 150); /* in the block, a jittered period of its own */
	p = sample(p, 6000, 0x10010, l1, 5); /* after the free: unknown */
	p = tb_ev(p, MP_EV_LOST, 0, 6500);
	p = mp_put_uv(p, 1);
	p = mp_put_uv(p, 3);
	tb_chunk(MP_CHUNK_SAMPLES, 99, 0, 0, buf, (size_t)(p - buf));
	tb_run_end(7000);

	/* `test_samples FILE` keeps the constructed file (the fuzz corpus seed) */
	char path[] = "/tmp/mp-samples-XXXXXX";
	struct an_result *r = NULL;
	CHECK_EQ(tb_analyse(path, NULL, argc > 1 ? argv[1] : NULL, &r), 0);
	if (!r)
		return check_done("test_samples");
	CHECK(strcmp(r->source, "pmu") == 0);
	CHECK_EQ(r->mem_origin, AN_MEM_MEASURED);
	CHECK_EQ(r->samples, 5);
	CHECK_EQ(r->samples_lost, 3);
	CHECK_EQ(r->mem_total.refs, 550);
	const struct an_class *blk = NULL, *unk = NULL;
	for (size_t i = 0; i < r->nclasses; i++) {
		if (r->classes[i].kind == AN_KIND_HEAP)
			blk = &r->classes[i];
		if (r->classes[i].kind == AN_KIND_UNKNOWN)
			unk = &r->classes[i];
	}
	CHECK(blk != NULL && unk != NULL);
	if (blk && unk) {
		CHECK_EQ(blk->mem.refs, 350);
		CHECK_EQ(blk->mem.level[MP_LVL_L1], 250);
		CHECK_EQ(blk->mem.level[MP_LVL_REMOTE_DRAM], 100);
		CHECK_EQ(blk->mem.remote, 100);
		CHECK_EQ(blk->mem.tlb[MP_TLB_WALK], 100);
		CHECK_EQ(blk->mem.tlb[MP_TLB_L1_HIT], 250);
		CHECK_EQ(blk->mem.walks, 100);
		CHECK_EQ(blk->mem.latency_n, 350);
		CHECK_EQ(blk->mem.latency_sum, 100 * (5 + 300) + 150 * 6);
		CHECK_EQ(blk->mem.latency_hist[2], 250); /* 5 and 6 cycles: [4, 8) */
		CHECK_EQ(blk->mem.latency_hist[8], 100); /* 300 cycles: [256, 512) */
		CHECK_EQ(unk->mem.refs, 200);
		CHECK_EQ(blk->nthreads, 1);
	}
	CHECK_EQ(r->nthreads, 1);
	CHECK_EQ(r->threads[0].mem.refs, 550);
	/* the report shows the measured shares, row by row */
	char *text = NULL;
	size_t tlen = 0;
	FILE *mf = open_memstream(&text, &tlen);
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_CSV };
	CHECK_EQ(rp_render(mf, r, &ro), 0);
	fclose(mf);
	CHECK(strstr(text, "object,kind,est_accesses,l1,lfb,l2,l3,local_dram,remote_dram,remote_cache,remote,walks,"
			   "mean_latency,latency_p50,latency_p90,latency_p99\n") == text);
	/* two modes, 5-6 and 300 cycles: the quantiles show both (bucket tops) */
	CHECK(strstr(text, "\"heap\",350,250,0,0,0,0,100,0,100,100,89.7,7,511,511\n") != NULL);
	CHECK(strstr(text, "\"unknown\",200,200,0,0,0,0,0,0,0,0,5.0,7,7,7\n") != NULL);
	free(text);
	ro.by = RP_BY_PAGE;
	CHECK_EQ(rp_render(stdout, r, &ro), -EINVAL);
	an_result_free(r);
	return check_done("test_samples");
}
