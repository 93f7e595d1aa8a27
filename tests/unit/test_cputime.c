// SPDX-License-Identifier: MIT
/* The inst source's CPU-time samples through the whole analysis: a
 * constructed data file (one process with libz loaded at t=1500 over a
 * range that libm takes at t=4000, memprism's runtime, and this process's
 * libc at a place of its own; cpu-clock samples in each, in no module, and
 * of a pid that ran no runtime; a lost record) must tally each sample to
 * the module loaded over its address at its time, count the runtime's and
 * the unplaced apart, tell libc's memcpy from its qsort, take none of them
 * for an access, and say it in the report's unseen lines. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "check.h"
#include "report/report.h"
#include "trace_build.h"

#define RANGE_A 0x70000000ull /* libz, then libm */
#define RUNTIME 0x90000000ull
#define LIBC 0xa0000000ull

struct lib {
	const char *want;
	char path[4096];
	uintptr_t base;
};

static int find_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct lib *l = arg;
	const char *slash = strrchr(info->dlpi_name, '/');
	if (slash && !strncmp(slash + 1, l->want, strlen(l->want))) {
		snprintf(l->path, sizeof(l->path), "%s", info->dlpi_name);
		l->base = info->dlpi_addr;
		return 1;
	}
	return 0;
}

static uint8_t *module(uint8_t *p, uint64_t time, uint64_t lo, const char *path)
{
	p = tb_ev(p, MP_EV_MODULE, 1, time);
	uint64_t f[] = { lo, lo, lo + 0x4000000 };
	return tb_str(tb_fields(p, f, 3), path);
}

static uint8_t *cpu_sample(uint8_t *p, uint64_t time, uint64_t pid, uint64_t ip)
{
	p = tb_ev(p, MP_EV_SAMPLE, 0, time);
	uint64_t f[] = { 1 /* cpu */, pid, pid, 0 /* addr */, ip, 0 /* event */, 1000000, 0, 0, 0 };
	p = tb_fields(p, f, sizeof(f) / sizeof(f[0]));
	return mp_put_uv(p, 0); /* empty callchain */
}

int main(int argc, char **argv)
{
	struct lib z = { .want = "libz.so" }, m = { .want = "libm.so" }, c = { .want = "libc.so" };
	CHECK(dlopen("libz.so.1", RTLD_NOW) != NULL);
	CHECK(dlopen("libm.so.6", RTLD_NOW) != NULL);
	dl_iterate_phdr(find_lib, &z);
	dl_iterate_phdr(find_lib, &m);
	dl_iterate_phdr(find_lib, &c);
	CHECK(z.path[0] && m.path[0] && c.path[0]);
	/* (memcpy resolves to one of its implementations: seen; qsort is not.
	 * libc's own, not a sanitizer's interceptors of them) */
	void *libc = dlopen(c.path, RTLD_NOW | RTLD_NOLOAD);
	CHECK(libc != NULL);
	uintptr_t cpy = (uintptr_t)dlsym(libc, "memcpy") + 4, srt = (uintptr_t)dlsym(libc, "qsort") + 4;
	CHECK(cpy > c.base && srt > c.base);

	tb_begin("source=inst\ncmdline=constructed\n");
	uint8_t buf[8192], *p = tb_process(buf, 100, 1000, "/bin/constructed", 0);
	tb_chunk(MP_CHUNK_PROCESS, 100, 100, 0xabc, buf, (size_t)(p - buf));
	p = tb_stream_start(buf, 1000, 0);
	p = module(p, 1200, RUNTIME, "/nonexistent/libmemprism-rt.so");
	p = module(p, 1300, LIBC, c.path);
	p = module(p, 1500, RANGE_A, z.path);
	p = module(p, 4000, RANGE_A, m.path); /* (libz dlclose'd: libm in its place) */
	tb_chunk(MP_CHUNK_STREAM, 100, 100, 0xabc, buf, (size_t)(p - buf));

	p = tb_ev(buf, MP_EV_SAMPLE_DEF, 0, 900);
	uint64_t def[] = { 0, MP_SK_CPU_TIME, 1 /* PERF_TYPE_SOFTWARE */, 0, 1000000 };
	p = tb_str(tb_fields(p, def, 5), "cpu-clock user");
	for (int i = 0; i < 4; i++)
		p = cpu_sample(p, 3000 + i, 100, RANGE_A + 0x1000); /* libz */
	for (int i = 0; i < 2; i++)
		p = cpu_sample(p, 5000 + i, 100, RANGE_A + 0x1000); /* libm */
	for (int i = 0; i < 3; i++)
		p = cpu_sample(p, 3100 + i, 100, 0x400000); /* no module: the program's all the same */
	for (int i = 0; i < 2; i++)
		p = cpu_sample(p, 3200 + i, 100, RUNTIME + 0x100); /* the runtime */
	p = cpu_sample(p, 3300, 200, RANGE_A + 0x1000); /* a process without the runtime */
	for (int i = 0; i < 2; i++)
		p = cpu_sample(p, 3400 + i, 100, LIBC + (cpy - c.base)); /* memcpy: seen as ranges */
	p = cpu_sample(p, 3500, 100, LIBC + (srt - c.base)); /* qsort: libc's own */
	p = tb_ev(p, MP_EV_LOST, 0, 6500);
	p = mp_put_uv(p, 1);
	p = mp_put_uv(p, 5);
	tb_chunk(MP_CHUNK_SAMPLES, 99, 0, 0, buf, (size_t)(p - buf));
	tb_run_end(7000);

	/* `test_cputime FILE` keeps the constructed file (the fuzz corpus seed) */
	char path[] = "/tmp/mp-cputime-XXXXXX";
	struct an_result *r = NULL;
	CHECK_EQ(tb_analyse(path, NULL, argc > 1 ? argv[1] : NULL, &r), 0);
	if (!r)
		return check_done("test_cputime");
	/* no access, measured or counted */
	CHECK_EQ(r->mem_origin, AN_MEM_NONE);
	CHECK_EQ(r->samples, 0);
	CHECK_EQ(r->samples_lost, 0);
	CHECK_EQ(r->samples_unplaced, 0);
	CHECK_EQ(r->faults.faults, 0);
	CHECK_EQ(r->total.loads + r->total.stores, 0);
	CHECK_EQ(r->ntouches, 0);
	/* the time */
	CHECK_EQ(r->cpu_period_ns, 1000000);
	CHECK_EQ(r->cpu_samples, 4 + 2 + 3 + 2 + 1);
	CHECK_EQ(r->cpu_runtime_samples, 2);
	CHECK_EQ(r->cpu_unplaced, 1);
	CHECK_EQ(r->cpu_lost, 5);
	CHECK_EQ(r->nunseen_modules, 2);
	CHECK(r->unseen_cpu != NULL);
	if (r->nunseen_modules == 2 && r->unseen_cpu) {
		CHECK(!strncmp(r->unseen_modules[0], "libm.so", 7));
		CHECK_EQ(r->unseen_cpu[0], 2);
		CHECK(!strncmp(r->unseen_modules[1], "libz.so", 7));
		CHECK_EQ(r->unseen_cpu[1], 4);
	}
	CHECK_EQ(r->libc_unseen, 1);
	CHECK(strstr(r->libc_unseen_fns[0].name, "qsort") != NULL);
	CHECK_EQ(r->libc_unseen_fns[0].samples, 1);
	CHECK_EQ(r->libc_unseen_fns[1].samples, 0);

	/* the report's lines: most time first; libc's own at 1 in 12 (8%) */
	char *text = NULL;
	size_t tlen = 0;
	FILE *mf = open_memstream(&text, &tlen);
	struct rp_opts ro = { .by = RP_BY_OBJECT, .format = RP_TEXT };
	CHECK_EQ(rp_render(mf, r, &ro), 0);
	fclose(mf);
	char want[512];
	snprintf(want, sizeof(want),
		 "unseen:    loads and stores inside %s (33%% of the program's CPU time in 4 samples), %s (17%% in "
		 "2), not built by memprism cc: `record --source valgrind` sees them\n",
		 r->nunseen_modules == 2 ? r->unseen_modules[1] : "?", r->nunseen_modules == 2 ? r->unseen_modules[0] : "?");
	CHECK(strstr(text, want) != NULL);
	snprintf(want, sizeof(want),
		 "unseen:    the C library's own loads and stores beyond mem*/str* calls (8%% of the program's CPU "
		 "time in 1 sample: %s 8%%): `record --source valgrind` sees them\n",
		 r->libc_unseen_fns[0].name);
	CHECK(strstr(text, want) != NULL);
	if (!strstr(text, want))
		fputs(text, stderr);
	free(text);
	an_result_free(r);
	return check_done("test_cputime");
}
