// SPDX-License-Identifier: MIT
/*
 * The pagemap scanner (see pagemap.h). Each look reads /proc/PID/maps, then
 * pagemap for every mapping in large batches, and compares each page's
 * frame with the last look (a hash map per process); new and changed pages are
 * collapsed into runs (consecutive pages on consecutive frames with the same
 * flags) and written as one PAGEMAP chunk per process and look.
 */
#include "record/pagemap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/hashmap.h"
#include "common/varint.h"
#include "trace/trace_format.h"
#include "trace/trace_writer.h"

#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)
#define KPF_HUGE 17
#define KPF_THP 22
#define BATCH 4096 /* pagemap entries per read */
#define MAX_PROCS 256

struct proc_view {
	pid_t pid;
	struct mp_hashmap last; /* vpage -> pfn << 2 | flags, +1 (0 is "absent" in the map) */
	int gone;
};

struct mp_pagemap {
	int fd, kpageflags;
	pid_t root;
	struct proc_view procs[MAX_PROCS];
	unsigned nprocs, scans;
	uint64_t pages;
	uint8_t *buf; /* chunk payload being built */
	size_t len, cap;
	uint64_t run_vpage, run_n, run_pfn, run_flags, prev_vpage;
	uint64_t nruns;
	uint64_t entries[BATCH];
};

struct mp_pagemap *mp_pagemap_new(int fd, pid_t pid)
{
	struct mp_pagemap *pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	pm->fd = fd;
	pm->root = pid;
	pm->kpageflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	return pm;
}

void mp_pagemap_free(struct mp_pagemap *pm)
{
	if (!pm)
		return;
	for (unsigned i = 0; i < pm->nprocs; i++)
		mp_hashmap_fini(&pm->procs[i].last);
	if (pm->kpageflags >= 0)
		close(pm->kpageflags);
	free(pm->buf);
	free(pm);
}

uint64_t mp_pagemap_pages(const struct mp_pagemap *pm)
{
	return pm->pages;
}

unsigned mp_pagemap_scans(const struct mp_pagemap *pm)
{
	return pm->scans;
}

static int room(struct mp_pagemap *pm, size_t n)
{
	if (pm->len + n <= pm->cap)
		return 0;
	size_t cap = pm->cap ? pm->cap * 2 : 65536;
	while (cap < pm->len + n)
		cap *= 2;
	uint8_t *b = realloc(pm->buf, cap);
	if (!b)
		return -ENOMEM;
	pm->buf = b;
	pm->cap = cap;
	return 0;
}

static int run_end(struct mp_pagemap *pm)
{
	if (!pm->run_n)
		return 0;
	if (room(pm, 40))
		return -ENOMEM;
	uint8_t *p = pm->buf + pm->len;
	p = mp_put_uv(p, mp_zigzag((int64_t)(pm->run_vpage - pm->prev_vpage)));
	p = mp_put_uv(p, pm->run_n);
	p = mp_put_uv(p, pm->run_pfn);
	p = mp_put_uv(p, pm->run_flags);
	pm->len = (size_t)(p - pm->buf);
	pm->prev_vpage = pm->run_vpage;
	pm->nruns++;
	pm->run_n = 0;
	return 0;
}

/* Adds page vpage -> pfn (0: gone) to the chunk being built. */
static int add_page(struct mp_pagemap *pm, uint64_t vpage, uint64_t pfn, uint64_t flags)
{
	if (pm->run_n && vpage == pm->run_vpage + pm->run_n && flags == pm->run_flags &&
	    (pfn ? pfn == pm->run_pfn + pm->run_n : pm->run_pfn == 0))
		pm->run_n++;
	else {
		if (run_end(pm))
			return -ENOMEM;
		pm->run_vpage = vpage;
		pm->run_pfn = pfn;
		pm->run_flags = flags;
		pm->run_n = 1;
	}
	return 0;
}

static uint64_t page_flags(struct mp_pagemap *pm, uint64_t pfn)
{
	uint64_t kf = 0;
	if (pm->kpageflags < 0 || pread(pm->kpageflags, &kf, sizeof(kf), (off_t)(pfn * 8)) != sizeof(kf))
		return 0;
	return (kf >> KPF_THP & 1 ? MP_PAGEMAP_THP : 0) | (kf >> KPF_HUGE & 1 ? MP_PAGEMAP_HUGETLB : 0);
}

static struct proc_view *view_of(struct mp_pagemap *pm, pid_t pid)
{
	for (unsigned i = 0; i < pm->nprocs; i++)
		if (pm->procs[i].pid == pid)
			return &pm->procs[i];
	if (pm->nprocs == MAX_PROCS)
		return NULL;
	struct proc_view *v = &pm->procs[pm->nprocs++];
	v->pid = pid;
	mp_hashmap_init(&v->last);
	return v;
}

static int write_chunk(struct mp_pagemap *pm, pid_t pid, uint64_t time)
{
	if (run_end(pm))
		return -ENOMEM;
	if (!pm->nruns)
		return 0;
	/* payload: uv pid, uv time, uv runs, then the runs */
	uint8_t head[32], *p = head;
	p = mp_put_uv(p, (uint64_t)pid);
	p = mp_put_uv(p, time);
	p = mp_put_uv(p, pm->nruns);
	size_t hl = (size_t)(p - head);
	uint8_t *payload = malloc(hl + pm->len);
	uint8_t *out = payload ? malloc(trace_chunk_bound(hl + pm->len)) : NULL;
	if (!out) {
		free(payload);
		return -ENOMEM;
	}
	memcpy(payload, head, hl);
	memcpy(payload + hl, pm->buf, pm->len);
	struct mp_chunk_header h = { .type = MP_CHUNK_PAGEMAP, .pid = (uint32_t)pid };
	size_t n = trace_chunk_build(&h, payload, hl + pm->len, out, NULL, 0);
	int err = 0;
	for (size_t off = 0; off < n;) {
		ssize_t w = write(pm->fd, out + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = -errno;
			break;
		}
		off += (size_t)w;
	}
	free(payload);
	free(out);
	return err;
}

static int scan_proc(struct mp_pagemap *pm, pid_t pid, int *saw_frames, int *saw_present)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *maps = fopen(path, "re");
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	int pmfd = open(path, O_RDONLY | O_CLOEXEC);
	if (!maps || pmfd < 0) {
		if (maps)
			fclose(maps);
		if (pmfd >= 0)
			close(pmfd);
		return -ESRCH; /* gone */
	}
	struct proc_view *v = view_of(pm, pid);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	pm->len = 0;
	pm->nruns = 0;
	pm->run_n = 0;
	pm->prev_vpage = 0;
	char line[512];
	int err = 0;
	while (!err && v && fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			continue;
		if (strstr(line, "[vsyscall]") || strstr(line, "[vvar]"))
			continue;
		uint64_t thp_left = 0, thp_flags = 0;
		for (uint64_t vp = lo >> 12; vp < hi >> 12 && !err;) {
			uint64_t n = (hi >> 12) - vp;
			if (n > BATCH)
				n = BATCH;
			ssize_t got = pread(pmfd, pm->entries, n * 8, (off_t)(vp * 8));
			if (got <= 0)
				break;
			n = (uint64_t)got / 8;
			for (uint64_t i = 0; i < n; i++) {
				uint64_t e = pm->entries[i];
				uint64_t pfn = e & PM_PRESENT ? e & PM_PFN_MASK : 0;
				if (e & PM_PRESENT)
					*saw_present = 1;
				if (pfn)
					*saw_frames = 1;
				/* Only frames seen are written: a page that went away is
				 * not. A look is not atomic, and a block freed while it
				 * runs would read as gone at the look's start, before
				 * accesses it really served. */
				if (!pfn) {
					thp_left = 0;
					continue;
				}
				uint64_t *old = mp_hashmap_get(&v->last, (vp + i) | (1ull << 63));
				/* kpageflags once per 2 MiB-aligned head, not per page */
				if (!thp_left && ((vp + i) & 511) == 0 && (pfn & 511) == 0) {
					thp_flags = page_flags(pm, pfn);
					thp_left = thp_flags ? 512 : 0;
				}
				uint64_t flags = thp_left ? thp_flags : 0;
				if (thp_left)
					thp_left--;
				uint64_t val = (pfn << 4 | flags) + 1;
				if (old && *old == val)
					continue;
				if (!old)
					pm->pages++;
				if (mp_hashmap_put(&v->last, (vp + i) | (1ull << 63), val) ||
				    add_page(pm, vp + i, pfn, flags)) {
					err = -ENOMEM;
					break;
				}
			}
			vp += n;
		}
	}
	fclose(maps);
	close(pmfd);
	if (!err && v)
		err = write_chunk(pm, pid, now);
	return err;
}

void mp_proc_children(pid_t pid, pid_t *list, unsigned *n, unsigned cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char cp[320];
		snprintf(cp, sizeof(cp), "/proc/%d/task/%s/children", (int)pid, de->d_name);
		FILE *f = fopen(cp, "re");
		if (!f)
			continue;
		int c;
		while (*n < cap && fscanf(f, "%d", &c) == 1)
			list[(*n)++] = c;
		fclose(f);
	}
	closedir(d);
}

void mp_pagemap_adopted(struct mp_pagemap *pm)
{
	if (pm)
		pm->root = 0;
}

int mp_pagemap_scan(struct mp_pagemap *pm)
{
	pid_t list[MAX_PROCS];
	unsigned n = 0;
	if (pm->root)
		list[n++] = pm->root;
	else
		mp_proc_children(getpid(), list, &n, MAX_PROCS);
	for (unsigned i = 0; i < n; i++)
		mp_proc_children(list[i], list, &n, MAX_PROCS);
	int saw_frames = 0, saw_present = 0, err = 0;
	for (unsigned i = 0; i < n; i++) {
		int e = scan_proc(pm, list[i], &saw_frames, &saw_present);
		if (e && e != -ESRCH && !err)
			err = e;
	}
	pm->scans++;
	if (!err && saw_present && !saw_frames)
		return -EPERM; /* the kernel hides frame numbers from us */
	return err;
}
