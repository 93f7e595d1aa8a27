/* SPDX-License-Identifier: MIT */
/*
 * NUMA topology for the model: nodes, which node each CPU belongs to, and
 * the distance between nodes (ACPI SLIT units: 10 local). Either simulated
 * (`--numa 4x8`: 4 nodes of 8 CPUs, CPUs numbered node by node, distance 10
 * local and 20 remote) or read from the recorded host (the launcher writes
 * sysfs's view into the trace meta; see docs/numa.md). Pure: parsing and
 * lookups, no I/O.
 */
#ifndef MP_TOPOLOGY_H
#define MP_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#define MP_TOPO_MAX_NODES 64
#define MP_TOPO_MAX_CPUS 1024
#define MP_TOPO_LOCAL 10 /* SLIT distance of a node to itself */

struct mp_topo {
	unsigned nodes; /* >= 1 */
	unsigned cpus; /* >= nodes */
	int simulated; /* from --numa, not the recorded host */
	uint8_t cpu_node[MP_TOPO_MAX_CPUS];
	uint8_t distance[MP_TOPO_MAX_NODES][MP_TOPO_MAX_NODES];
	/* host only: node of each physical memory block (frame -> node) */
	uint64_t mem_block; /* bytes per block, 0: unknown */
	uint8_t *block_node; /* nblocks entries, 255 unknown; owned (mp_topo_fini) */
	size_t nblocks;
	char spec[32]; /* "4x8" (simulated) or "host" */
};

/* Parses NODESxCPUS ("4x8": 4 nodes of 8 CPUs each) into t. 0, or
 * -MP_ERR_USAGE with a message in err. */
int mp_topo_sim(const char *spec, struct mp_topo *t, char *err, size_t errlen);

/* Builds the host topology from the recorded meta values: cpu_nodes ("0,0,1,1":
 * the node of each CPU), distances ("10,21,21,10": row by row, may be NULL:
 * 10 local, 20 remote), mem ("BLOCKSIZE;NODE:FIRST-LAST,...": memory blocks of
 * each node, may be NULL). 0 or -MP_ERR_USAGE. */
int mp_topo_host(const char *cpu_nodes, const char *distances, const char *mem, struct mp_topo *t);

void mp_topo_fini(struct mp_topo *t);

/* The node of CPU cpu (taken modulo the CPU count). */
static inline unsigned mp_topo_cpu_node(const struct mp_topo *t, unsigned cpu)
{
	return t->cpu_node[cpu % t->cpus];
}

/* The first CPU of node (for placing a thread on it). */
unsigned mp_topo_node_cpu(const struct mp_topo *t, unsigned node);

/* The node of a physical address by the host's memory blocks; -1 unknown. */
int mp_topo_paddr_node(const struct mp_topo *t, uint64_t paddr);

/* DRAM latency from node `from` to memory on node `to`: the local latency
 * scaled by the SLIT distance (distance 20 doubles it). */
static inline unsigned mp_topo_latency(const struct mp_topo *t, unsigned from, unsigned to, unsigned local)
{
	return (unsigned)((uint64_t)local * t->distance[from][to] / MP_TOPO_LOCAL);
}

#endif
