// SPDX-License-Identifier: MIT
/*
 * The host's NUMA topology as the trace header's meta text: SLIT distances
 * between nodes (/sys/devices/system/node/nodeN/distance) and the physical
 * memory blocks of each node (nodeN/memoryM links, block size from
 * /sys/devices/system/memory/block_size_bytes), so the analysis can tell the
 * node of a recorded physical frame. The CPU-to-node map is `cpu_nodes`
 * (launch.c). A simulated topology (record --numa) is written as numa_sim.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

static int read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)cap, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

/* "NODE:a-b,NODE:c,..." for one node's memory blocks, appended at buf+n. */
static size_t node_blocks(char *buf, size_t n, size_t cap, int node, int *first)
{
	char path[64];
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	DIR *d = opendir(path);
	if (!d)
		return n;
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
				break;
			b = nbuf;
			bcap = nc;
		}
		b[nb++] = v;
	}
	closedir(d);
	if (nb)
		qsort(b, nb, sizeof(*b), cmp_ul);
	for (size_t i = 0; i < nb && n < cap;) {
		size_t j = i;
		while (j + 1 < nb && b[j + 1] == b[j] + 1)
			j++;
		n += (size_t)snprintf(buf + n, cap - n, "%s%d:%lu-%lu", *first ? "" : ",", node, b[i], b[j]);
		*first = 0;
		i = j + 1;
	}
	free(b);
	return n < cap ? n : cap;
}

size_t mp_numa_meta(char *buf, size_t cap, const char *sim)
{
	size_t n = 0;
	if (sim && *sim)
		n += (size_t)snprintf(buf + n, cap - n, "numa_sim=%s\n", sim);
	int nodes = 0;
	char line[1024], path[96];
	for (; nodes < 64; nodes++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", nodes);
		if (read_line(path, line, sizeof(line)))
			break;
		if (n < cap)
			n += (size_t)snprintf(buf + n, cap - n, "%s", nodes ? "," : "numa_distance=");
		for (char *p = line; *p && n < cap; p++)
			n += (size_t)snprintf(buf + n, cap - n, "%c", *p == ' ' ? ',' : *p);
	}
	if (nodes && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "\n");
	if (nodes && n < cap && read_line("/sys/devices/system/memory/block_size_bytes", line, sizeof(line)) == 0) {
		unsigned long long bs = strtoull(line, NULL, 16);
		if (bs) {
			size_t start = n;
			int first = 1;
			n += (size_t)snprintf(buf + n, cap - n, "numa_mem=%llu;", bs);
			for (int k = 0; k < nodes && n < cap; k++)
				n = node_blocks(buf, n, cap, k, &first);
			if (n + 1 < cap)
				n += (size_t)snprintf(buf + n, cap - n, "\n");
			else
				n = start; /* too long for the header: leave it out */
		}
	}
	return n < cap ? n : cap;
}
