/* SPDX-License-Identifier: MIT */
/*
 * NUMA locality over the replay (an_numa.c): threads and pages placed on a
 * topology (simulated with --numa, or the recorded host's), every attributed
 * access labelled with the node it came from and the node that holds its
 * page, aggregated per object and thread, as a node x node matrix and as
 * each object's timeline of which threads used it; then MemProf's patterns
 * found per object with the evidence and the fix.
 */
#ifndef MP_AN_NUMA_H
#define MP_AN_NUMA_H

#include <stddef.h>
#include <stdint.h>

#include "model/topology.h"

/* Where threads run when no affinity call says. */
enum an_numa_threads {
	AN_NUMA_T_DEFAULT, /* simulated: spread; host: recorded */
	AN_NUMA_T_SPREAD, /* round-robin over nodes in creation order (per process) */
	AN_NUMA_T_COMPACT, /* fill a node's CPUs before the next node */
	AN_NUMA_T_RECORDED, /* the node of the CPU the thread was recorded on */
};

/* Where pages go when no memory-policy call says. */
enum an_numa_pages {
	AN_NUMA_P_FIRST_TOUCH, /* the node of the thread that touched it first */
	AN_NUMA_P_INTERLEAVE, /* round-robin over the nodes of nodemask by page */
	AN_NUMA_P_BIND, /* the first node of nodemask */
};

struct an_numa_opts {
	const struct mp_topo *topo; /* NULL: the trace's (numa_sim, else the host's) */
	enum an_numa_threads threads;
	enum an_numa_pages pages;
	uint64_t nodemask; /* interleave/bind nodes; 0: all */
	int ignore_calls; /* don't honour recorded affinity and policy calls */
};

/* One thread's use of an object. */
struct an_numa_use {
	uint32_t thread; /* an_result.threads index */
	unsigned node; /* the node it ran on (at its first access to the object) */
	uint64_t accesses, remote, writes;
	uint64_t first_time, last_time; /* ns, CLOCK_MONOTONIC */
	uint64_t lo, hi; /* lowest and highest address it touched (hi exclusive) */
};

/* A run of accesses to one object by one thread, between other threads'
 * (the object's timeline, MemProf's Object Event Flow condensed). */
struct an_numa_episode {
	uint32_t thread;
	unsigned node;
	uint64_t first_time, last_time;
	uint64_t first_epoch, last_epoch;
	uint64_t accesses, remote, writes;
};

#define AN_NUMA_MAX_EPISODES 256 /* kept per object; later runs extend the count only */

struct an_numa_obj {
	uint32_t cls; /* an_result.classes index */
	uint64_t accesses, remote, writes;
	uint64_t *from; /* [nodes] accesses by threads on each node (owns the block of all three) */
	uint64_t *at; /* [nodes] accesses to pages on each node */
	uint64_t *rat; /* [nodes] remote accesses to pages on each node */
	struct an_numa_use *uses;
	size_t nuses;
	struct an_numa_episode *episodes;
	size_t nepisodes; /* kept */
	uint64_t runs; /* all runs, kept or not */
	uint64_t handoffs; /* a run that began at a later epoch than the previous run ended */
	uint64_t overlaps; /* a run at the same epoch as the previous one: threads ran together */
	uint64_t shared_pages; /* pages holding bytes of more than one thread's part */
	int64_t first_thread; /* thread of the first access (-1 none) */
	int home; /* node of the object's first placed page (-1 none) */
};

enum an_numa_pattern {
	AN_NP_PRIVATE_SHARED_PAGES, /* per-thread parts of one object share pages */
	AN_NP_CONCURRENT_READ, /* read-mostly, read remotely by threads at once */
	AN_NP_CONCURRENT_WRITE, /* written, used remotely by threads at once */
	AN_NP_ALTERNATE, /* threads on different nodes take turns */
	AN_NP_REMOTE_AFTER_ALLOC, /* made on one node, then used from another */
	AN_NP_SATURATED_NODE, /* many objects' remote traffic goes to one node */
	AN_NP_COUNT
};
const char *an_numa_pattern_name(enum an_numa_pattern p);

struct an_numa_finding {
	enum an_numa_pattern pattern;
	uint32_t obj; /* an_numa_result.objs index (saturated node: the largest contributor) */
	unsigned node; /* the node in question: home of the object, or the saturated one */
	unsigned to_node; /* remote after allocation: the consumers' node */
	uint64_t count; /* the pattern's own figure: handoffs, shared pages, objects... */
	double share; /* remote share of the object's (or node's) accesses */
};

struct an_numa_thread {
	unsigned node;
	int pinned; /* placed by an affinity call */
	uint64_t accesses, remote;
};

struct an_numa_result {
	struct mp_topo topo; /* the topology used (owns its memory blocks) */
	const char *thread_policy, *page_policy; /* what placed threads and pages */
	/* 1: the locality figures (accesses, remote, matrix, threads, objects,
	 * findings) are PMU samples scaled by their period, local or remote as
	 * their data source says (measured); 0: replayed accesses placed by the
	 * model (modelled) */
	int measured;
	/* 1: a trace recorded in bursts, each thread's counts scaled by its own
	 * factor (as report's); 0: the counts are the accesses seen */
	int scaled;
	uint64_t accesses, remote; /* counted accesses with a placement (measured: estimated) */
	uint64_t *matrix; /* [from * nodes + to] accesses (measured: to is the node that served them) */
	uint64_t *elsewhere; /* [from] measured remote accesses whose serving node is unknown */
	uint64_t modelled_accesses, modelled_remote; /* the model's figures, also when measured won */
	uint64_t samples; /* PMU samples counted in the measured figures */
	uint64_t samples_unknown; /* PMU samples whose data source names no level: left out */
	uint64_t samples_simulated; /* PMU samples left out: they measured the host, not the simulated machine */
	uint64_t calls_affinity, calls_policy; /* recorded calls honoured */
	uint64_t pages; /* pages placed */
	uint64_t *pages_on; /* [nodes] pages placed on each node */
	uint64_t start_time; /* the earliest time seen, for relative times */
	struct an_numa_thread *threads; /* [an_result.nthreads] */
	size_t nthreads;
	struct an_numa_obj *objs; /* objects with accesses, most remote first */
	size_t nobjs;
	struct an_numa_finding *findings;
	size_t nfindings;
};

void an_numa_result_free(struct an_numa_result *n);

#endif
