// SPDX-License-Identifier: MIT
/* The merge of several data files (analysis/an_merge.h) on hand-built
 * traces of a job of 3 ranks, each on a simulated 2x4 machine of its own.
 * Rank r allocates one 8 KiB block (at an address of its own, as ASLR
 * gives) from the same (unknown) site; thread 100 (node 0) writes w(r) =
 * r + 1 words of its first page, which places the page on node 0;
 * thread 101, pinned to CPU 4 (node 1), reads k(r) = 2r + 1 of them, all
 * remote. The merged heap row must be one row whose figures are the sums,
 * its spread the per-rank accesses' min, median and max, the NUMA view's
 * figures the sums, each rank's threads its own; files of another
 * program, a rank twice and ranks of two runs are told; an unreadable
 * file is left out, named, and the rest merged; several jobs merge the
 * same. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/an_merge.h"
#include "analysis/an_numa.h"
#include "check.h"
#include "trace_build.h"

static uint64_t last_addr;

static uint8_t *thread_start(uint8_t *p, uint64_t epoch_delta, uint64_t time, uint64_t tid, uint64_t creator)
{
	p = tb_ev(p, MP_EV_THREAD_START, epoch_delta, time);
	uint64_t f[] = { 0, tid, creator, 0, 0 };
	return tb_str(tb_fields(p, f, 5), "");
}

static uint8_t *access8(uint8_t *p, uint64_t addr, int write)
{
	*p++ = MP_TAG(MP_REC_ACCESS, 3u | (write ? MP_ACC_WRITE : 0)); /* 8 bytes */
	p = mp_put_uv(p, mp_zigzag((int64_t)(addr - last_addr)));
	last_addr = addr;
	return p;
}

/* Rank rank's file (rank < 0: no rank lines), of program prog and job job, into path. */
static int write_rank(char *path, int rank, const char *prog, const char *job)
{
	char meta[512];
	int n = snprintf(meta, sizeof(meta), "source=inst\nprogram=%s\nhost=h%d\nnuma_sim=2x4\ncmdline=constructed\n",
			 prog, rank);
	if (rank >= 0)
		snprintf(meta + n, sizeof(meta) - (size_t)n, "rank=%d\nrank_size=3\nrank_var=PMI_RANK\nrank_job=%s\n",
			 rank, job);
	tb_begin(meta);
	uint32_t pid = 100;
	uint8_t buf[4096], *p = tb_process(buf, pid, 500, prog, MP_PROC_INSTRUMENTED);
	tb_chunk(MP_CHUNK_PROCESS, pid, pid, 0xabc, buf, (size_t)(p - buf));
	uint64_t base = 0x10000 + 0x100000 * (uint64_t)(rank < 0 ? 7 : rank); /* (ASLR) */
	unsigned w = (unsigned)(rank < 0 ? 0 : rank) + 1, k = 2 * w - 1;
	last_addr = 0;
	p = tb_stream_start(buf, 1000, 0);
	p = thread_start(p, 1, 1000, 100, 0);
	p = tb_ev(p, MP_EV_ALLOC, 1, 2000);
	uint64_t alloc[] = { 0, mp_zigzag((int64_t)base), 0x2000, 0, 0, 0 };
	p = tb_fields(p, alloc, 6);
	for (unsigned i = 0; i < w; i++)
		p = access8(p, base + 8 * (uint64_t)i, 1);
	tb_chunk(MP_CHUNK_STREAM, pid, 100, 0xabc, buf, (size_t)(p - buf));
	last_addr = 0;
	p = tb_stream_start(buf, 3000, 1);
	p = thread_start(p, 3, 3000, 101, 100);
	p = tb_ev(p, MP_EV_AFFINITY, 1, 3100);
	p = mp_put_uv(p, 1);
	p = mp_put_uv(p, 101);
	p = mp_put_uv(p, 1);
	*p++ = 0x10; /* CPU 4: node 1 */
	for (unsigned i = 0; i < k; i++)
		p = access8(p, base + 8 * (uint64_t)(i % w), 0);
	tb_chunk(MP_CHUNK_STREAM, pid, 101, 0xabc, buf, (size_t)(p - buf));
	tb_run_end(9000);
	return tb_write(path);
}

static long heap_row(const struct an_result *r)
{
	long k = -1;
	for (size_t i = 0; i < r->nclasses; i++)
		if (r->classes[i].kind == AN_KIND_HEAP) {
			if (k >= 0)
				return -2; /* two heap rows: split */
			k = (long)i;
		}
	return k;
}

static const struct an_merge *merged(const char *const *paths, size_t n, unsigned jobs, struct an_merge **m)
{
	*m = NULL;
	if (an_merge_open(paths, n, m, NULL) != 0)
		return NULL;
	an_merge_set_jobs(*m, jobs);
	static const struct an_opts none;
	int err = an_merge_run(*m, &none, NULL, NULL);
	CHECK_EQ(err, 0);
	return err ? NULL : *m;
}

int main(void)
{
	char p0[] = "/tmp/mp-merge-XXXXXX", p1[] = "/tmp/mp-merge-XXXXXX", p2[] = "/tmp/mp-merge-XXXXXX";
	char other[] = "/tmp/mp-merge-XXXXXX", again[] = "/tmp/mp-merge-XXXXXX", job2[] = "/tmp/mp-merge-XXXXXX";
	/* given out of rank order: the merge puts them in rank order */
	CHECK_EQ(write_rank(p2, 2, "/bin/app", "77"), 0);
	CHECK_EQ(write_rank(p0, 0, "/bin/app", "77"), 0);
	CHECK_EQ(write_rank(p1, 1, "/usr/local/bin/app", "77"), 0); /* (the same program: base names) */
	CHECK_EQ(write_rank(other, -1, "/bin/other", ""), 0);
	CHECK_EQ(write_rank(again, 1, "/bin/app", "77"), 0);
	CHECK_EQ(write_rank(job2, 1, "/bin/app", "78"), 0);

	const char *three[] = { p2, p0, p1 };
	struct an_merge *m;
	if (merged(three, 3, 1, &m)) {
		CHECK_EQ(an_merge_nparts(m), 3);
		for (size_t i = 0; i < 3; i++)
			CHECK_EQ(an_merge_part(m, i)->rank, i);
		size_t a, b;
		CHECK_EQ(an_merge_mismatch(m, &a, &b), 0);
		CHECK_EQ(an_merge_duplicate(m, &a, &b), 0);
		CHECK_EQ(an_merge_runs_differ(m, &a, &b), 0);
		const struct an_result *r = an_merge_result(m);
		long h = heap_row(r);
		CHECK(h >= 0);
		if (h >= 0) {
			const struct an_class *c = &r->classes[h];
			/* stores: w = 1 + 2 + 3; loads: k = 1 + 3 + 5 */
			CHECK_EQ(c->c.stores, 6);
			CHECK_EQ(c->c.loads, 9);
			CHECK_EQ(c->c.bytes_stored, 48);
			CHECK_EQ(c->c.bytes_loaded, 72);
			CHECK_EQ(c->instances, 3);
			CHECK_EQ(c->bytes_allocated, 3 * 0x2000);
			/* per rank w + k = 2, 5, 8 */
			struct an_spread s;
			an_merge_spread(m, (size_t)h, &s);
			CHECK_EQ(s.n, 3);
			CHECK_EQ(s.min, 2);
			CHECK_EQ(s.median2, 10);
			CHECK_EQ(s.max, 8);
			CHECK_EQ(s.top, 2);
			for (size_t i = 0; i < 3; i++)
				CHECK_EQ(an_merge_part_accesses(m, (size_t)h, i), 3 * i + 2);
		}
		CHECK_EQ(r->total.stores, 6);
		CHECK_EQ(r->total.loads, 9);
		CHECK_EQ(r->nprocs, 3);
		CHECK_EQ(r->nthreads, 6);
		/* NUMA: each rank on its own 2x4 machine; every load remote */
		CHECK(r->numa != NULL);
		if (r->numa) {
			const struct an_numa_result *n = r->numa;
			CHECK_EQ(n->topo.nodes, 2);
			CHECK_EQ(n->accesses, 15);
			CHECK_EQ(n->remote, 9);
			CHECK_EQ(n->matrix[0 * 2 + 0], 6);
			CHECK_EQ(n->matrix[1 * 2 + 0], 9);
			CHECK_EQ(n->matrix[1 * 2 + 1], 0);
			CHECK_EQ(n->nthreads, 6);
			CHECK_EQ(n->nobjs, 1);
			if (n->nobjs == 1) {
				CHECK_EQ(n->objs[0].cls, h);
				CHECK_EQ(n->objs[0].accesses, 15);
				CHECK_EQ(n->objs[0].remote, 9);
				CHECK_EQ(n->objs[0].writes, 6);
				CHECK_EQ(n->objs[0].nuses, 6);
				CHECK_EQ(n->objs[0].home, 0);
			}
			/* each rank's reader: its own k remote, at its own index */
			for (size_t i = 0; i < 3 && n->nthreads == 6; i++) {
				CHECK_EQ(n->threads[2 * i + 1].node, 1);
				CHECK_EQ(n->threads[2 * i + 1].remote, 2 * i + 1);
			}
			for (size_t i = 0; i < 3; i++) {
				CHECK_EQ(an_merge_part(m, i)->numa_accesses, 3 * i + 2);
				CHECK_EQ(an_merge_part(m, i)->numa_remote, 2 * i + 1);
			}
		}
		/* several jobs: the same merge */
		struct an_merge *m2;
		if (merged(three, 3, 2, &m2)) {
			const struct an_result *r2 = an_merge_result(m2);
			CHECK_EQ(r2->nclasses, r->nclasses);
			long h2 = heap_row(r2);
			CHECK_EQ(h2, h);
			if (h2 >= 0 && h >= 0)
				CHECK_EQ(r2->classes[h2].c.loads, r->classes[h].c.loads);
			CHECK(r2->numa && r2->numa->remote == 9);
		}
		an_merge_free(m2);
	}
	an_merge_free(m);

	/* files of another program, a rank twice, ranks of two runs */
	size_t a = 9, b = 9;
	const char *mix[] = { p0, other };
	CHECK_EQ(an_merge_open(mix, 2, &m, NULL), 0);
	if (m) {
		CHECK_EQ(an_merge_mismatch(m, &a, &b), 1);
		CHECK_EQ(a, 0);
		CHECK_EQ(b, 1);
		CHECK(!strcmp(an_merge_part(m, b)->program, "other"));
	}
	an_merge_free(m);
	const char *dup[] = { p0, p1, again };
	CHECK_EQ(an_merge_open(dup, 3, &m, NULL), 0);
	if (m) {
		CHECK_EQ(an_merge_duplicate(m, &a, &b), 1);
		CHECK_EQ(an_merge_part(m, a)->rank, 1);
		CHECK_EQ(an_merge_part(m, b)->rank, 1);
	}
	an_merge_free(m);
	const char *runs[] = { p0, job2 };
	CHECK_EQ(an_merge_open(runs, 2, &m, NULL), 0);
	if (m)
		CHECK_EQ(an_merge_runs_differ(m, &a, &b), 1);
	an_merge_free(m);

	/* a rank's file missing: named, left out of the spread, the rest merged */
	const char *gap[] = { p0, "/nonexistent/mp-merge-rank1", p2 };
	if (merged(gap, 3, 1, &m)) {
		const struct an_result *r = an_merge_result(m);
		CHECK_EQ(an_merge_part(m, 2)->err, -ENOENT); /* (no rank: after the ranked ones) */
		long h = heap_row(r);
		CHECK(h >= 0);
		if (h >= 0) {
			CHECK_EQ(r->classes[h].c.stores, 4);
			CHECK_EQ(r->classes[h].c.loads, 6);
			struct an_spread s;
			an_merge_spread(m, (size_t)h, &s);
			CHECK_EQ(s.n, 2);
			CHECK_EQ(s.min, 2);
			CHECK_EQ(s.median2, 10);
			CHECK_EQ(s.max, 8);
		}
		int named = 0, rank1 = 0;
		for (size_t i = 0; i < r->nwarnings; i++) {
			named |= strstr(r->warnings[i], "/nonexistent/mp-merge-rank1 was not read") != NULL;
			rank1 |= strstr(r->warnings[i], "rank 1 of 3: no readable data file") != NULL;
		}
		CHECK(named);
		CHECK(rank1);
	}
	an_merge_free(m);

	unlink(p0);
	unlink(p1);
	unlink(p2);
	unlink(other);
	unlink(again);
	unlink(job2);
	return check_done("test_merge");
}
