// SPDX-License-Identifier: MIT
/*
 * The host beyond the CPU's caches (host.h): the one reader of small
 * sysfs and procfs files, a hypervisor's signs, the pagemap's frame
 * numbers, transparent huge pages, NUMA nodes, their distances and their
 * memory blocks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "host/host.h"

int mp_host_read_line(const char *path, char *buf, size_t cap)
{
	if (cap)
		buf[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* (one read: sysfs and procfs hand a small file over whole) */
	ssize_t n = cap ? read(fd, buf, cap - 1) : 0;
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

void mp_host_hypervisor(struct mp_host_hv *hv)
{
	memset(hv, 0, sizeof(*hv));
	hv->cpuid = -1;
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (__get_cpuid(1, &a, &b, &c, &d)) {
		hv->cpuid = !!(c & (1u << 31));
		if (hv->cpuid) {
			/* leaf 0x40000000 is only defined with the hypervisor bit */
			__cpuid(0x40000000, a, b, c, d);
			memcpy(hv->vendor, &b, 4);
			memcpy(hv->vendor + 4, &c, 4);
			memcpy(hv->vendor + 8, &d, 4);
			hv->vendor[12] = 0;
		}
	}
#endif
	if (mp_host_read_line("/sys/hypervisor/type", hv->sysfs, sizeof(hv->sysfs)))
		hv->sysfs[0] = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (f) {
		char line[4096];
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "flags", 5) != 0)
				continue;
			hv->cpuinfo = strstr(line, " hypervisor") != NULL;
			break;
		}
		fclose(f);
	}
}

int mp_host_pagemap_pfn(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	volatile char *page = mmap(NULL, (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -errno;
	page[0] = 1;
	int rc, fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
	} else {
		uint64_t e = 0;
		off_t off = (off_t)((uintptr_t)page / (uintptr_t)psz * sizeof(e));
		ssize_t n = pread(fd, &e, sizeof(e), off);
		if (n != (ssize_t)sizeof(e))
			rc = n < 0 ? -errno : -EIO;
		else
			rc = (e >> 63) && (e & ((1ull << 55) - 1)) != 0; /* present, and a frame number shown */
		close(fd);
	}
	munmap((void *)page, (size_t)psz);
	return rc;
}

void mp_host_thp(char *out, size_t cap)
{
	char buf[128];
	if (cap)
		out[0] = 0;
	if (mp_host_read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)))
		return;
	/* "always [madvise] never": the bracketed word is in force */
	char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;
	if (l && r)
		snprintf(out, cap, "%.*s", (int)(r - l - 1), l + 1);
}

int mp_host_numa_nodes(void)
{
	DIR *d = opendir("/sys/devices/system/node");
	int nodes = 0;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] && (strtol(e->d_name + 4, &end, 10), !*end))
			nodes++;
	}
	closedir(d);
	return nodes;
}

int mp_host_node_distances(int node, char *buf, size_t cap)
{
	char path[96];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", node);
	return mp_host_read_line(path, buf, cap);
}

uint64_t mp_host_memory_block_size(void)
{
	char line[64];
	if (mp_host_read_line("/sys/devices/system/memory/block_size_bytes", line, sizeof(line)))
		return 0;
	return strtoull(line, NULL, 16); /* (sysfs writes it in hex, without 0x) */
}

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

size_t mp_host_node_memory_blocks(int node, unsigned long **blocks)
{
	char path[64];
	*blocks = NULL;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	unsigned long *b = NULL;
	size_t nb = 0, bcap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "memory", 6) || e->d_name[6] < '0' || e->d_name[6] > '9')
			continue;
		unsigned long v = strtoul(e->d_name + 6, &end, 10);
		if (*end)
			continue;
		if (nb == bcap) {
			size_t nc = bcap ? bcap * 2 : 256;
			unsigned long *nbuf = realloc(b, nc * sizeof(*b));
			if (!nbuf)
				break; /* (what was found so far) */
			b = nbuf;
			bcap = nc;
		}
		b[nb++] = v;
	}
	closedir(d);
	if (nb)
		qsort(b, nb, sizeof(*b), cmp_ul);
	*blocks = b;
	return nb;
}
