// SPDX-License-Identifier: MIT
/*
 * The last look at the page tables. The launcher reads /proc/PID/pagemap
 * now and then while the program runs (src/record/pagemap.c), but a
 * process's final translations would be lost with it: at shutdown the
 * runtime writes them itself, as full PAGEMAP chunks (trace_format.h), from
 * /proc/self/pagemap. No malloc and no stdio: buffers are mmap'd, /proc
 * files are read with read(2) and parsed by hand.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/varint.h"
#include "rt/rt_int.h"
#include "rt/rt_proc.h"

#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)
#define BATCH 2048
#define OUT_LIMIT (RT_BUF_SIZE - 64) /* payload per chunk */

int rt_pagemap_enabled;

struct pm_out {
	uint8_t *buf; /* OUT_LIMIT + slack */
	size_t len;
	uint64_t nruns, prev_vpage, time;
	uint64_t run_vpage, run_n, run_pfn, run_flags;
	int kpf;
};

static void chunk_flush(struct pm_out *o)
{
	if (!o->nruns)
		return;
	uint8_t head[32], *p = head;
	p = mp_put_uv(p, (uint64_t)getpid());
	p = mp_put_uv(p, o->time);
	p = mp_put_uv(p, o->nruns);
	size_t hl = (size_t)(p - head);
	/* the header goes in front of the runs: the buffer keeps room for it */
	memcpy(o->buf + 32 - hl, head, hl);
	rt_write_chunk(MP_CHUNK_PAGEMAP, 0, 0, o->buf + 32 - hl, hl + o->len);
	o->len = 0;
	o->nruns = 0;
	o->prev_vpage = 0;
}

static void run_end(struct pm_out *o)
{
	if (!o->run_n)
		return;
	uint8_t *p = o->buf + 32 + o->len;
	p = mp_put_uv(p, mp_zigzag((int64_t)(o->run_vpage - o->prev_vpage)));
	p = mp_put_uv(p, o->run_n);
	p = mp_put_uv(p, o->run_pfn);
	p = mp_put_uv(p, o->run_flags);
	o->len = (size_t)(p - (o->buf + 32));
	o->prev_vpage = o->run_vpage;
	o->nruns++;
	o->run_n = 0;
	if (o->len >= OUT_LIMIT)
		chunk_flush(o);
}

static uint64_t thp_flags(struct pm_out *o, uint64_t pfn)
{
	uint64_t kf = 0;
	if (o->kpf < 0 || pread(o->kpf, &kf, sizeof(kf), (off_t)(pfn * 8)) != sizeof(kf))
		return 0;
	return (kf >> 22 & 1 ? MP_PAGEMAP_THP : 0) | (kf >> 17 & 1 ? MP_PAGEMAP_HUGETLB : 0);
}

static void add(struct pm_out *o, uint64_t vpage, uint64_t pfn, uint64_t flags)
{
	if (o->run_n && vpage == o->run_vpage + o->run_n && pfn == o->run_pfn + o->run_n && flags == o->run_flags) {
		o->run_n++;
		return;
	}
	run_end(o);
	o->run_vpage = vpage;
	o->run_pfn = pfn;
	o->run_flags = flags;
	o->run_n = 1;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Scans one "lo-hi ..." maps line into [lo, hi). */
static int parse_range(const char *s, const char *end, uint64_t *lo, uint64_t *hi)
{
	uint64_t v[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		int d, n = 0;
		while (s < end && (d = hexval(*s)) >= 0) {
			v[k] = v[k] << 4 | (uint64_t)d;
			s++;
			n++;
		}
		if (!n || (k == 0 && (s >= end || *s++ != '-')))
			return -1;
	}
	*lo = v[0];
	*hi = v[1];
	return 0;
}

/* Adds the present pages of [lo, hi) to o; ent holds BATCH entries. */
static void scan_range(struct pm_out *o, int pm, uint64_t *ent, uint64_t lo, uint64_t hi)
{
	uint64_t flags = 0, thp_left = 0;
	for (uint64_t vp = lo >> 12; vp < hi >> 12;) {
		uint64_t k = (hi >> 12) - vp < BATCH ? (hi >> 12) - vp : BATCH;
		ssize_t got = pread(pm, ent, k * 8, (off_t)(vp * 8));
		if (got <= 0)
			break;
		k = (uint64_t)got / 8;
		for (uint64_t i = 0; i < k; i++) {
			uint64_t e = ent[i], pfn = e & PM_PRESENT ? e & PM_PFN_MASK : 0;
			if (!pfn) {
				thp_left = 0;
				continue;
			}
			/* kpageflags once per 2 MiB-aligned head, not per page */
			if (!thp_left && ((vp + i) & 511) == 0 && (pfn & 511) == 0) {
				flags = thp_flags(o, pfn);
				thp_left = flags ? 512 : 0;
			}
			add(o, vp + i, pfn, thp_left ? flags : 0);
			if (thp_left)
				thp_left--;
		}
		vp += k;
	}
}

#define RANGE_MAP (OUT_LIMIT + 128 + BATCH * 8)

void rt_pagemap_range(const void *addr, size_t len)
{
	if (!rt_pagemap_enabled || rt_proc.fd < 0 || len < RT_PAGEMAP_MIN)
		return;
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm < 0)
		return;
	uint8_t *m = rt_real.mmap(NULL, RANGE_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		struct pm_out o = { .buf = m, .time = rt_now() };
		o.kpf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
		uint64_t lo = (uint64_t)addr & ~4095ull, hi = ((uint64_t)addr + len + 4095) & ~4095ull;
		scan_range(&o, pm, (uint64_t *)(m + OUT_LIMIT + 128), lo, hi);
		run_end(&o);
		chunk_flush(&o);
		if (o.kpf >= 0)
			close(o.kpf);
		rt_real.munmap(m, RANGE_MAP);
	}
	close(pm);
}

void rt_pagemap_final(void)
{
	if (!rt_pagemap_enabled || rt_proc.fd < 0)
		return;
	int maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t maps_cap = 1u << 20, bufsz = OUT_LIMIT + 128;
	char *text = maps >= 0 && pm >= 0 ? rt_real.mmap(NULL, maps_cap + bufsz + BATCH * 8, PROT_READ | PROT_WRITE,
							 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
					  : MAP_FAILED;
	if (text == MAP_FAILED)
		goto out;
	/* the mapping list first, whole: reading pagemap must not change it */
	size_t n = 0;
	for (;;) {
		ssize_t r = read(maps, text + n, maps_cap - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == maps_cap - 1)
			break;
	}
	struct pm_out o = { .buf = (uint8_t *)text + maps_cap, .time = rt_now() };
	o.kpf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	uint64_t *ent = (uint64_t *)(text + maps_cap + bufsz);
	for (const char *line = text, *end = text + n; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		uint64_t lo, hi;
		int skip = memmem(line, (size_t)(nl - line), "[vsyscall]", 10) != NULL;
		if (!skip && parse_range(line, nl, &lo, &hi) == 0)
			scan_range(&o, pm, ent, lo, hi);
		line = nl + 1;
	}
	run_end(&o);
	chunk_flush(&o);
	if (o.kpf >= 0)
		close(o.kpf);
	rt_real.munmap(text, maps_cap + bufsz + BATCH * 8);
out:
	if (maps >= 0)
		close(maps);
	if (pm >= 0)
		close(pm);
}
