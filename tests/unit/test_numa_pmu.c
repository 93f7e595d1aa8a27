// SPDX-License-Identifier: MIT
/* The NUMA view from PMU samples, without hardware: a constructed data file
 * of a 4-node host (CPU k on node k, one 128 MiB memory block per node)
 * with a heap block and an anonymous mapping, and PEBS load samples of
 * period 1000 whose data source says local DRAM, remote DRAM (the frame on
 * node 0), L1 and remote cache (no frame: the serving node unknown). The measured data source must
 * decide local and remote, scaled by the period, labelled measured, and
 * MemProf's patterns must read those flags; a simulated topology must leave
 * the samples out (they measured the host). */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_numa.h"
#include "analysis/analysis.h"
#include "check.h"
#include "report/report.h"
#include "trace_build.h"

/* n samples of thread tid on cpu, 10 ns apart from *t, at addr (+8 each). */
static uint8_t *samples(uint8_t *p, unsigned n, uint64_t *t, unsigned cpu, uint32_t tid, uint64_t addr,
			uint64_t data_src, uint64_t phys)
{
	for (unsigned i = 0; i < n; i++, *t += 10) {
		p = tb_ev(p, MP_EV_SAMPLE, 0, *t);
		/* cpu, pid, tid, addr, ip, event, period (0: the def's), data source,
		 * latency, physical address */
		uint64_t f[] = { cpu, 100, tid, addr + 8 * i, 0x401000, 0, 0, data_src, 200, phys ? phys + 8 * i : 0 };
		p = tb_fields(p, f, sizeof(f) / sizeof(f[0]));
		p = mp_put_uv(p, 0); /* empty callchain */
	}
	return p;
}

static char path[] = "/tmp/mp-numa-pmu-XXXXXX";

static void build(void)
{
	const char *meta = "source=pmu\ncmdline=constructed\ncpu_nodes=0,1,2,3\n"
			   "numa_distance=10,20,20,20,20,10,20,20,20,20,10,20,20,20,20,10\n"
			   "numa_mem=134217728;0:0,1:1,2:2,3:3\n";
	tb_begin(meta);
	uint8_t buf[16384], *p = tb_process(buf, 100, 1000, "/bin", 0);
	tb_chunk(MP_CHUNK_PROCESS, 100, 100, 0xabc, buf, (size_t)(p - buf));

	/* STREAM of the main thread: heap block A = 0x10000 (4 KiB) at t=2000,
	 * mapping B = 0x20000 (4 KiB) at t=2100; both live to the end */
	p = tb_stream_start(buf, 1000, 0);
	p = tb_ev(p, MP_EV_ALLOC, 1, 2000);
	uint64_t a[] = { 0, mp_zigzag(0x10000), 0x1000, 0, 0, 0 };
	p = tb_fields(p, a, 6);
	p = tb_ev(p, MP_EV_MMAP, 1, 2100);
	uint64_t b[] = { 0, 0x20000, 0x1000, 3 /* rw */, 0x22 /* private anonymous */, 0, 0 };
	p = tb_str(tb_fields(p, b, 7), ""); /* no path */
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));

	uint64_t ldram = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, RAM);
	uint64_t rdram =
		PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 2);
	uint64_t l1 = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, L1);
	uint64_t rcache =
		PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, ANY_CACHE) | PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 2);
	uint64_t na = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, NA);
	p = tb_ev(buf, MP_EV_SAMPLE_DEF, 0, 900);
	uint64_t def[] = { 0, MP_SK_PEBS_LOAD, 4, 0x1cd, 1000 };
	p = tb_str(tb_fields(p, def, 5), "mem-loads");
	uint64_t t = 3000;
	/* A: made and used by the main thread on node 0, its frame on node 0 ... */
	p = samples(p, 10, &t, 0, 100, 0x10000, ldram, 0x1000000);
	/* ... then read from node 1: 30 remote DRAM samples */
	p = samples(p, 30, &t, 1, 101, 0x10100, rdram, 0x1000100);
	/* B, from node 2: 5 L1 hits, 5 from another node's cache (which one: no
	 * frame recorded), 3 without a level */
	p = samples(p, 5, &t, 2, 102, 0x20000, l1, 0);
	p = samples(p, 5, &t, 2, 102, 0x20100, rcache, 0);
	p = samples(p, 3, &t, 2, 102, 0x20200, na, 0);
	tb_chunk(MP_CHUNK_SAMPLES, 99, 0, 0, buf, (size_t)(p - buf));
	tb_run_end(9000);
	CHECK_EQ(tb_write(path), 0);
}

static const struct an_numa_obj *obj_at(const struct an_result *r, uint64_t accesses)
{
	for (size_t i = 0; i < r->numa->nobjs; i++)
		if (r->numa->objs[i].accesses == accesses)
			return &r->numa->objs[i];
	return NULL;
}

static uint32_t thread_of(const struct an_result *r, uint32_t tid)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (r->threads[i].tid == tid)
			return (uint32_t)i;
	return UINT32_MAX;
}

/* 1 if view (format, table) of r holds needle; says which one it lacks. */
static int has(const struct an_result *r, enum rp_format fmt, enum rp_numa_table tb, const char *needle)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);
	struct rp_opts ro = { .format = fmt, .data_path = path };
	int ok = mf && rp_render_numa(mf, r, &ro, tb) == 0;
	if (mf)
		fclose(mf);
	ok = ok && strstr(text, needle) != NULL;
	if (!ok)
		fprintf(stderr, "view %d/%d lacks \"%s\"\n", (int)fmt, (int)tb, needle);
	free(text);
	return ok;
}

static void measured(void)
{
	struct an_numa_opts no = { 0 };
	struct an_opts ao = { .numa = &no };
	struct an_result *r = NULL;
	CHECK_EQ(an_run(path, &ao, &r), 0);
	if (!r || !r->numa) {
		CHECK(0);
		an_result_free(r);
		return;
	}
	const struct an_numa_result *n = r->numa;
	CHECK_EQ(n->topo.nodes, 4);
	CHECK_EQ(n->topo.simulated, 0);
	CHECK_EQ(n->measured, 1);
	/* 50 samples with a level, 1000 accesses each; 35 served remotely */
	CHECK_EQ(n->accesses, 50000);
	CHECK_EQ(n->remote, 35000);
	CHECK_EQ(n->modelled_accesses, 0); /* no access records: nothing for the model */
	CHECK_EQ(n->samples_unknown, 3);
	CHECK_EQ(n->matrix[0 * 4 + 0], 10000); /* A by its maker */
	CHECK_EQ(n->matrix[1 * 4 + 0], 30000); /* A from node 1, the frame on node 0 */
	CHECK_EQ(n->matrix[2 * 4 + 2], 5000); /* B's L1 hits */
	CHECK_EQ(n->elsewhere[2], 5000); /* B's remote cache hits: which node, unknown */
	const struct an_numa_obj *A = obj_at(r, 40000), *B = obj_at(r, 10000);
	CHECK(A != NULL && B != NULL);
	CHECK(n->nobjs >= 2 && &n->objs[0] == A); /* most remote first */
	if (A) {
		CHECK_EQ(A->remote, 30000);
		CHECK_EQ(A->home, 0);
		CHECK_EQ(A->nuses, 2);
		CHECK_EQ(A->rat[0], 30000);
		CHECK_EQ(A->runs, 2);
	}
	if (B) {
		CHECK_EQ(B->remote, 5000);
		CHECK_EQ(B->home, 2);
	}
	uint32_t t101 = thread_of(r, 101), t102 = thread_of(r, 102);
	CHECK(t101 < n->nthreads && t102 < n->nthreads);
	if (t101 < n->nthreads && t102 < n->nthreads) {
		CHECK_EQ(n->threads[t101].node, 1);
		CHECK_EQ(n->threads[t101].accesses, 30000);
		CHECK_EQ(n->threads[t101].remote, 30000);
		CHECK_EQ(n->threads[t102].node, 2);
		CHECK_EQ(n->threads[t102].remote, 5000);
	}
	/* the pattern from the measured flags: A made on node 0, used from node 1 */
	CHECK(n->nfindings >= 1);
	if (n->nfindings >= 1) {
		CHECK_EQ(n->findings[0].pattern, AN_NP_REMOTE_AFTER_ALLOC);
		CHECK(n->findings[0].obj < n->nobjs && &n->objs[n->findings[0].obj] == A);
		CHECK_EQ(n->findings[0].node, 0);
		CHECK_EQ(n->findings[0].to_node, 1);
		CHECK_EQ(n->findings[0].count, 30000);
	}
	/* every view says measured */
	static const struct {
		enum rp_format fmt;
		enum rp_numa_table tb;
		const char *needle;
	} want[] = {
		{ RP_TEXT, RP_NUMA_OBJECTS, "[measured:" },
		{ RP_TEXT, RP_NUMA_OBJECTS, "50,000 estimated" },
		{ RP_TEXT, RP_NUMA_OBJECTS, "node unknown" },
		{ RP_CSV, RP_NUMA_OBJECTS, ",origin\n" },
		{ RP_CSV, RP_NUMA_OBJECTS, ",40000,30000,0.7500,0,2,2,0,remote usage after allocation,measured\n" },
		{ RP_CSV, RP_NUMA_FINDINGS, "its data served from node 0" },
		{ RP_CSV, RP_NUMA_FINDINGS, "numa_alloc_onnode(size, 1)" },
		{ RP_CSV, RP_NUMA_MATRIX, "1,0,30000,measured\n" },
		{ RP_CSV, RP_NUMA_MATRIX, "2,-1,5000,measured\n" },
		{ RP_JSON, RP_NUMA_OBJECTS, "\"origin\":\"measured\"" },
		{ RP_JSON, RP_NUMA_OBJECTS, "\"accesses\":50000,\"remote\":35000" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(has(r, want[i].fmt, want[i].tb, want[i].needle));
	an_result_free(r);
}

static void simulated(void)
{
	struct mp_topo topo;
	char err[128];
	CHECK_EQ(mp_topo_sim("4x8", &topo, err, sizeof(err)), 0);
	struct an_numa_opts no = { .topo = &topo };
	struct an_opts ao = { .numa = &no };
	struct an_result *r = NULL;
	CHECK_EQ(an_run(path, &ao, &r), 0);
	CHECK(r && r->numa);
	if (r && r->numa) {
		CHECK_EQ(r->numa->measured, 0);
		CHECK_EQ(r->numa->accesses, 0);
		CHECK_EQ(r->numa->samples_simulated, 53);
		CHECK(has(r, RP_TEXT, RP_NUMA_OBJECTS, "measured the host"));
	}
	an_result_free(r);
	mp_topo_fini(&topo);
}

int main(int argc, char **argv)
{
	build();
	measured();
	simulated();
	/* `test_numa_pmu FILE` keeps the constructed file */
	if (argc > 1)
		CHECK_EQ(rename(path, argv[1]), 0);
	unlink(path);
	return check_done("test_numa_pmu");
}
