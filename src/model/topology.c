// SPDX-License-Identifier: MIT
/* NUMA topologies: a simulated NODESxCPUS machine, or the recorded host's
 * (CPU-to-node map, SLIT distances, memory blocks per node). */
#include "model/topology.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_error.h"

static void default_distances(struct mp_topo *t)
{
	for (unsigned a = 0; a < MP_TOPO_MAX_NODES; a++)
		for (unsigned b = 0; b < MP_TOPO_MAX_NODES; b++)
			t->distance[a][b] = a == b ? MP_TOPO_LOCAL : 2 * MP_TOPO_LOCAL;
}

int mp_topo_sim(const char *spec, struct mp_topo *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	char *end;
	unsigned long nodes = strtoul(spec, &end, 10), cpus = 0;
	if (end != spec && (*end == 'x' || *end == 'X')) {
		const char *c = end + 1;
		cpus = strtoul(c, &end, 10);
		if (end == c)
			cpus = 0;
	}
	if (!nodes || !cpus || *end || spec[0] == '-') {
		snprintf(err, errlen, "--numa wants NODESxCPUS, e.g. 4x8 (4 nodes of 8 CPUs), not '%s'", spec);
		return -MP_ERR_USAGE;
	}
	if (nodes > MP_TOPO_MAX_NODES || nodes * cpus > MP_TOPO_MAX_CPUS) {
		snprintf(err, errlen, "--numa %s: at most %d nodes and %d CPUs in all", spec, MP_TOPO_MAX_NODES,
			 MP_TOPO_MAX_CPUS);
		return -MP_ERR_USAGE;
	}
	t->nodes = (unsigned)nodes;
	t->cpus = (unsigned)(nodes * cpus);
	t->simulated = 1;
	for (unsigned c = 0; c < t->cpus; c++)
		t->cpu_node[c] = (uint8_t)(c / cpus);
	default_distances(t);
	snprintf(t->spec, sizeof(t->spec), "%lux%lu", nodes, cpus);
	return 0;
}

/* Memory blocks: "134217728;0:0-15,1:16-31". */
static int parse_mem(const char *mem, struct mp_topo *t)
{
	char *end;
	uint64_t bs = strtoull(mem, &end, 10);
	if (!bs || *end != ';')
		return -MP_ERR_USAGE;
	const char *p = end + 1;
	while (*p) {
		unsigned long node = strtoul(p, &end, 10), a, b;
		if (*end != ':' || node >= MP_TOPO_MAX_NODES)
			return -MP_ERR_USAGE;
		a = strtoul(end + 1, &end, 10);
		b = a;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		if (b < a || b > (1ul << 24))
			return -MP_ERR_USAGE;
		if (b >= t->nblocks) {
			uint8_t *n = realloc(t->block_node, b + 1);
			if (!n)
				return -ENOMEM;
			memset(n + t->nblocks, 255, b + 1 - t->nblocks);
			t->block_node = n;
			t->nblocks = b + 1;
		}
		for (unsigned long k = a; k <= b; k++)
			t->block_node[k] = (uint8_t)node;
		if (*end != ',' && *end)
			return -MP_ERR_USAGE;
		p = *end ? end + 1 : end;
	}
	t->mem_block = bs;
	return 0;
}

int mp_topo_host(const char *cpu_nodes, const char *distances, const char *mem, struct mp_topo *t)
{
	memset(t, 0, sizeof(*t));
	default_distances(t);
	const char *p = cpu_nodes;
	while (p && *p && t->cpus < MP_TOPO_MAX_CPUS) {
		char *end;
		unsigned long n = strtoul(p, &end, 10);
		if (end == p || n >= MP_TOPO_MAX_NODES)
			return -MP_ERR_USAGE;
		t->cpu_node[t->cpus++] = (uint8_t)n;
		if (n + 1 > t->nodes)
			t->nodes = (unsigned)n + 1;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -MP_ERR_USAGE;
	}
	if (!t->cpus) {
		t->cpus = t->nodes = 1;
		t->cpu_node[0] = 0;
	}
	if (distances && *distances) {
		unsigned k = 0;
		p = distances;
		while (*p && k < t->nodes * t->nodes) {
			char *end;
			unsigned long d = strtoul(p, &end, 10);
			if (end == p || d > 255)
				return -MP_ERR_USAGE;
			t->distance[k / t->nodes][k % t->nodes] = (uint8_t)d;
			k++;
			p = *end == ',' ? end + 1 : end;
		}
	}
	snprintf(t->spec, sizeof(t->spec), "host");
	if (mem && *mem) {
		int e = parse_mem(mem, t);
		if (e) {
			mp_topo_fini(t);
			return e;
		}
	}
	return 0;
}

void mp_topo_fini(struct mp_topo *t)
{
	if (!t)
		return;
	free(t->block_node);
	t->block_node = NULL;
	t->nblocks = 0;
}

unsigned mp_topo_node_cpu(const struct mp_topo *t, unsigned node)
{
	for (unsigned c = 0; c < t->cpus; c++)
		if (t->cpu_node[c] == node)
			return c;
	return 0;
}

int mp_topo_paddr_node(const struct mp_topo *t, uint64_t paddr)
{
	if (!t->mem_block)
		return -1;
	uint64_t b = paddr / t->mem_block;
	if (b >= t->nblocks || t->block_node[b] == 255)
		return -1;
	return t->block_node[b];
}
