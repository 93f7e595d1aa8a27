/* SPDX-License-Identifier: MIT */
/* The NUMA stage's own state (struct an_numa), shared by its two files:
 * an_numa.c places threads and pages and tallies the accesses during the
 * replay; an_numa_result.c turns the tallies into the result's tables
 * and MemProf's patterns after it. */
#ifndef MP_AN_NUMA_INT_H
#define MP_AN_NUMA_INT_H

#include "analysis/an_int.h"
#include "analysis/an_numa.h"

#define BIG_BLOCK (128u << 10) /* glibc serves blocks this large with fresh mmap'd pages */
#define PAGE_SHIFT 12

struct nthread {
	int placed, pinned;
	unsigned node;
	unsigned mode; /* set_mempolicy: MPOL_* (0 default) */
	uint64_t mask;
	/* the last page looked up, valid while gen matches */
	uint64_t last_page, gen;
	unsigned last_node;
};

struct nbind {
	uint32_t proc;
	uint64_t lo, hi;
	unsigned mode;
	uint64_t mask;
};

/* Per replay class; the node arrays live in one block. */
struct nobj {
	int used;
	uint64_t accesses, remote, writes;
	uint64_t *from, *at, *rat; /* [nodes] by source node, page node, page node of remote ones */
	MP_VEC(struct an_numa_use) uses;
	/* burst sampling: uses' own from, at and rat arrays, 3 x nodes per use
	 * (the object's are their scaled sum, scale_by_thread) */
	MP_VEC(uint64_t) use_nodes;
	MP_VEC(struct an_numa_episode) eps;
	uint64_t runs, handoffs, overlaps;
	int64_t first_thread;
	int home;
	uint32_t cur_thread; /* thread of the current run */
	int in_run;
	uint64_t cur_last_epoch;
	size_t last_use;
};

/* Per thread: what it accessed, and (measured) the node it was sampled on. */
struct ntally {
	uint64_t accesses, remote;
	unsigned node;
	int seen;
	uint64_t *matrix; /* burst sampling: its part of the matrix and elsewhere, [nodes * (nodes + 1)] */
};

/* The locality tables: one set for the replayed accesses placed by the
 * model, one for PMU samples whose data source says where the data came
 * from (measured); the result takes the measured set when it has any. */
struct ntables {
	MP_VEC(struct nobj) objs; /* by replay class */
	MP_VEC(struct ntally) threads; /* by an_state.threads index */
	uint64_t *matrix; /* [from * nodes + to] */
	uint64_t *elsewhere; /* [from] remote, the serving node unknown (measured only) */
	uint64_t accesses, remote;
	uint64_t hits; /* accesses or samples counted */
	uint64_t start_time;
};

struct an_numa {
	struct mp_topo topo;
	struct an_numa_opts o;
	MP_VEC(struct nthread) threads;
	MP_VEC(unsigned) started; /* per process: threads started so far */
	MP_VEC(struct nbind) binds;
	struct ntables model, meas;
	uint64_t samples_unknown, samples_simulated; /* PMU samples left out (see an_numa_result) */
	struct mp_hashmap pages; /* (proc, page) -> node + 1 (0: placed nowhere any more) */
	uint64_t gen; /* bumped when placed pages move or go */
	uint64_t *pages_on;
	uint64_t calls_affinity, calls_policy, npages;
	int last_from, last_to; /* of the latest access placed */
	int host_frames; /* host topology with memory blocks and recorded frames */
	int pages_warned; /* past the file's bound on pages placed (an_bound) */
};

/* Copies topology src into dst (its arrays too); 0 or -ENOMEM. */
int an_numa_topo_copy(struct mp_topo *dst, const struct mp_topo *src);

#endif
