// SPDX-License-Identifier: MIT
/*
 * The host's NUMA topology as the trace header's meta text: SLIT distances
 * between nodes and the physical memory blocks of each node (read by
 * src/host: nodeN/distance, nodeN/memoryM, block_size_bytes), so the
 * analysis can tell the node of a recorded physical frame. The CPU-to-node
 * map is `cpu_nodes` (launch.c). A simulated topology (record --numa) is
 * written as numa_sim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "record/record.h"

/* "NODE:a-b,NODE:c,..." for one node's memory blocks, appended at buf+n. */
static size_t node_blocks(char *buf, size_t n, size_t cap, int node, int *first)
{
	unsigned long *b;
	size_t nb = mp_host_node_memory_blocks(node, &b);
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
	char line[1024];
	for (; nodes < 64; nodes++) {
		if (mp_host_node_distances(nodes, line, sizeof(line)))
			break;
		if (n < cap)
			n += (size_t)snprintf(buf + n, cap - n, "%s", nodes ? "," : "numa_distance=");
		for (char *p = line; *p && n < cap; p++)
			n += (size_t)snprintf(buf + n, cap - n, "%c", *p == ' ' ? ',' : *p);
	}
	if (nodes && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "\n");
	if (nodes && n < cap) {
		unsigned long long bs = mp_host_memory_block_size();
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
