// SPDX-License-Identifier: MIT
/*
 * The NUMA view (`memprism numa`): the topology and placement used, remote
 * ratio overall and per object, site and thread, the node x node access
 * matrix, each object's timeline of the threads and nodes that used it, and
 * the patterns found with their evidence and the call that fixes them
 * (MemProf). Text, CSV one table at a time, or JSON with all of
 * them. Every figure is labelled measured (PMU samples' data source) or
 * modelled (the page placement of the replayed accesses).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_numa.h"
#include "report/rp_int.h"

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static const char *origin(const struct an_numa_result *n)
{
	return n->measured ? "measured" : "modelled";
}

static uint64_t elsewhere_total(const struct an_numa_result *n)
{
	uint64_t e = 0;
	for (unsigned k = 0; k < n->topo.nodes; k++)
		e += n->elsewhere[k];
	return e;
}

static double ms(const struct an_numa_result *n, uint64_t t)
{
	return t >= n->start_time ? (double)(t - n->start_time) / 1e6 : 0.0;
}

static uint32_t tid_of(const struct an_result *r, uint32_t thread)
{
	return thread < r->nthreads ? r->threads[thread].tid : 0;
}

static const char *label_of(const struct an_result *r, const struct an_numa_obj *o)
{
	return o->cls < r->nclasses && r->classes[o->cls].label ? r->classes[o->cls].label : "?";
}

static const char *site_of(const struct an_result *r, const struct an_numa_obj *o)
{
	if (o->cls >= r->nclasses)
		return "?";
	const struct an_class *c = &r->classes[o->cls];
	return c->site ? c->site : c->label ? c->label : "?";
}

/* "1 (tid 1234), 2 (tid 1235)": the threads of an object on other nodes
 * than node, with the most accesses first (up to 4). */
static void threads_text(char *buf, size_t cap, const struct an_result *r, const struct an_numa_obj *o, int skip_node,
			 int only_node)
{
	size_t n = 0;
	int shown = 0;
	buf[0] = 0;
	for (size_t i = 0; i < o->nuses && shown < 4 && n < cap; i++) {
		const struct an_numa_use *u = &o->uses[i];
		if ((skip_node >= 0 && (int)u->node == skip_node) || (only_node >= 0 && (int)u->node != only_node))
			continue;
		n += (size_t)snprintf(buf + n, cap - n, "%s%u (node %u)", shown ? ", " : "", tid_of(r, u->thread),
				      u->node);
		shown++;
	}
	if (!shown)
		snprintf(buf, cap, "none");
}

void rp_numa_finding_text(const struct an_result *r, const struct an_numa_finding *f, char *ev, size_t evcap, char *fix,
			  size_t fixcap)
{
	const struct an_numa_result *n = r->numa;
	const struct an_numa_obj *o = &n->objs[f->obj];
	char a[32], b[32], c[32], th[256];
	uint64_t t0 = UINT64_MAX, t1 = 0, first_tid = o->first_thread >= 0 ? tid_of(r, (uint32_t)o->first_thread) : 0;
	for (size_t i = 0; i < o->nuses; i++)
		if ((int64_t)o->uses[i].thread != o->first_thread) {
			t0 = o->uses[i].first_time < t0 ? o->uses[i].first_time : t0;
			t1 = o->uses[i].last_time > t1 ? o->uses[i].last_time : t1;
		}
	if (t0 == UINT64_MAX)
		t0 = t1 = n->start_time;
	/* measured: where the samples say the data came from, not placement */
	const char *pages = n->measured ? "data served from node" : "pages on node";
	switch (f->pattern) {
	case AN_NP_REMOTE_AFTER_ALLOC:
		threads_text(th, sizeof(th), r, o, -1, (int)f->to_node);
		snprintf(ev, evcap,
			 "first touched by thread %" PRIu64
			 ", its %s %u (%s), then used from node %u by thread %s: %s remote accesses of %s (%.1f%%) "
			 "from +%.3f ms to +%.3f ms",
			 first_tid, pages, f->node,
			 n->measured ? "its first samples' data source"
				     : "first touch or a memory policy put them there",
			 f->to_node, th, rp_grouped(a, sizeof(a), f->count), rp_grouped(b, sizeof(b), o->accesses),
			 100.0 * f->share, ms(n, t0), ms(n, t1));
		snprintf(fix, fixcap,
			 "allocate it on the node that uses it: numa_alloc_onnode(size, %u), or let the user touch it "
			 "first; or migrate it once made: move_pages(0, count, pages, nodes = {%u, ...}, status, "
			 "MPOL_MF_MOVE)",
			 f->to_node, f->to_node);
		break;
	case AN_NP_ALTERNATE:
		threads_text(th, sizeof(th), r, o, -1, -1);
		snprintf(ev, evcap,
			 "threads %s take turns: %s hand-overs between threads on different nodes, %s of %s accesses "
			 "remote (%.1f%%), %s %u, from +%.3f ms to +%.3f ms",
			 th, rp_grouped(a, sizeof(a), f->count), rp_grouped(b, sizeof(b), o->remote),
			 rp_grouped(c, sizeof(c), o->accesses), 100.0 * f->share, pages, f->node, ms(n, t0), ms(n, t1));
		snprintf(fix, fixcap,
			 "pin the threads that take turns to node %u, where its pages are (pthread_setaffinity_np with "
			 "that node's CPUs), or migrate the object with the work at each hand-over: move_pages(0, "
			 "count, pages, nodes = {next user's node}, status, MPOL_MF_MOVE)",
			 f->node);
		break;
	case AN_NP_CONCURRENT_READ:
		threads_text(th, sizeof(th), r, o, (int)f->node, -1);
		snprintf(ev, evcap,
			 "read-mostly, read at the same time from %s nodes (threads %s, ...): %s remote accesses of %s "
			 "(%.1f%%), its %s %u, from +%.3f ms to +%.3f ms",
			 rp_grouped(a, sizeof(a), f->count), th, rp_grouped(b, sizeof(b), o->remote),
			 rp_grouped(c, sizeof(c), o->accesses), 100.0 * f->share, pages, f->node, ms(n, t0), ms(n, t1));
		snprintf(fix, fixcap,
			 "replicate it per node: one copy per node made with numa_alloc_onnode(size, node) and filled "
			 "there, each thread reading its own node's copy (numa_node_of_cpu(sched_getcpu()))");
		break;
	case AN_NP_CONCURRENT_WRITE:
		threads_text(th, sizeof(th), r, o, (int)f->node, -1);
		snprintf(ev, evcap,
			 "written and used at the same time from %s nodes (threads %s, ...): %s remote accesses of %s "
			 "(%.1f%%), its %s %u",
			 rp_grouped(a, sizeof(a), f->count), th, rp_grouped(b, sizeof(b), o->remote),
			 rp_grouped(c, sizeof(c), o->accesses), 100.0 * f->share, pages, f->node);
		snprintf(fix, fixcap,
			 "interleave its pages over the nodes (numa_alloc_interleaved(size), or mbind(addr, len, "
			 "MPOL_INTERLEAVE, nodemask, maxnode, 0) before first touch) so no node serves it alone; or "
			 "co-locate the threads that share it on one node (pthread_setaffinity_np)");
		break;
	case AN_NP_PRIVATE_SHARED_PAGES:
		threads_text(th, sizeof(th), r, o, -1, -1);
		snprintf(
			ev, evcap,
			"each of its users touches its own part (threads %s, ...), but the parts were placed by thread "
			"%" PRIu64
			" on node %u and %s pages hold more than one part: %s remote accesses of %s (%.1f%%)",
			th, first_tid, f->node, rp_grouped(a, sizeof(a), f->count), rp_grouped(b, sizeof(b), o->remote),
			rp_grouped(c, sizeof(c), o->accesses), 100.0 * f->share);
		snprintf(fix, fixcap,
			 "allocate each thread's part locally, from the thread that uses it (malloc or "
			 "numa_alloc_local in the thread, first touch there), page-aligned (posix_memalign(&p, 4096, "
			 "size)) so no two threads' parts share a page");
		break;
	case AN_NP_SATURATED_NODE:
		snprintf(ev, evcap, "%.1f%% of all remote accesses go to node %u, from %s objects (the largest: %s)",
			 100.0 * f->share, f->node, rp_grouped(a, sizeof(a), f->count), label_of(r, o));
		snprintf(fix, fixcap,
			 "spread those objects over their users' nodes (numa_alloc_onnode) or interleave them "
			 "(numa_alloc_interleaved, mbind MPOL_INTERLEAVE) so node %u's memory controller is not the "
			 "bottleneck",
			 f->node);
		break;
	default:
		snprintf(ev, evcap, "?");
		snprintf(fix, fixcap, "?");
	}
}

static const struct an_numa_finding *finding_of(const struct an_numa_result *n, size_t obj)
{
	for (size_t i = 0; i < n->nfindings; i++)
		if (n->findings[i].obj == obj && n->findings[i].pattern != AN_NP_SATURATED_NODE)
			return &n->findings[i];
	return NULL;
}

static unsigned obj_nodes(const struct an_numa_obj *o)
{
	uint64_t m = 0;
	for (size_t i = 0; i < o->nuses; i++)
		m |= 1ull << o->uses[i].node;
	return (unsigned)__builtin_popcountll(m);
}

/* Site rows: objects summed by allocation site. */
struct site_row {
	const char *site;
	uint64_t accesses, remote, writes;
	unsigned objects;
};

static int cmp_site(const void *a, const void *b)
{
	const struct site_row *x = a, *y = b;
	if (x->remote != y->remote)
		return x->remote > y->remote ? -1 : 1;
	return strcmp(x->site, y->site);
}

static struct site_row *sites(const struct an_result *r, size_t *count)
{
	const struct an_numa_result *n = r->numa;
	struct site_row *s = calloc(n->nobjs ? n->nobjs : 1, sizeof(*s));
	size_t k = 0;
	if (!s)
		return NULL;
	for (size_t i = 0; i < n->nobjs; i++) {
		const char *site = site_of(r, &n->objs[i]);
		size_t j = 0;
		while (j < k && strcmp(s[j].site, site))
			j++;
		if (j == k)
			s[k++] = (struct site_row){ .site = site };
		s[j].accesses += n->objs[i].accesses;
		s[j].remote += n->objs[i].remote;
		s[j].writes += n->objs[i].writes;
		s[j].objects++;
	}
	qsort(s, k, sizeof(*s), cmp_site);
	*count = k;
	return s;
}

static void text_header(FILE *out, const struct an_result *r)
{
	const struct an_numa_result *n = r->numa;
	char a[32], b[32], c[32];
	unsigned per = n->topo.cpus / n->topo.nodes;
	if (n->topo.simulated)
		fprintf(out, "topology:  simulated %s: %u nodes of %u CPUs, distance %u local, %u remote\n",
			n->topo.spec, n->topo.nodes, per, n->topo.distance[0][0],
			n->topo.nodes > 1 ? n->topo.distance[0][1] : 0);
	else
		fprintf(out, "topology:  this host as recorded: %u node%s, %u CPUs%s\n", n->topo.nodes,
			n->topo.nodes == 1 ? "" : "s", n->topo.cpus,
			n->topo.nodes == 1 ? " (one node: every access is local; simulate one with --numa 4x8)" : "");
	/* measured without replayed accesses: nothing was placed */
	if (!n->measured || n->modelled_accesses) {
		fprintf(out, "threads:   %s unless pinned; %s affinity call%s honoured\n", n->thread_policy,
			rp_grouped(a, sizeof(a), n->calls_affinity), n->calls_affinity == 1 ? "" : "s");
		fprintf(out, "pages:     %s unless a policy says; %s policy call%s honoured; %s pages placed:",
			n->page_policy, rp_grouped(a, sizeof(a), n->calls_policy), n->calls_policy == 1 ? "" : "s",
			rp_grouped(b, sizeof(b), n->pages));
		for (unsigned k = 0; k < n->topo.nodes && k < 16; k++)
			fprintf(out, " node%u %s", k, rp_grouped(a, sizeof(a), n->pages_on[k]));
		fprintf(out, "\n");
	}
	if (n->measured) {
		fprintf(out,
			"accesses:  %s estimated from %s PMU samples (x their period), %s remote (%.1f%%) "
			"[measured: the samples' data source]\n",
			rp_grouped(a, sizeof(a), n->accesses), rp_grouped(b, sizeof(b), n->samples),
			rp_grouped(c, sizeof(c), n->remote), pct(n->remote, n->accesses));
		if (n->modelled_accesses)
			fprintf(out,
				"modelled:  %s replayed accesses, %s to pages on another node (%.1f%%) [not used]\n",
				rp_grouped(a, sizeof(a), n->modelled_accesses),
				rp_grouped(b, sizeof(b), n->modelled_remote),
				pct(n->modelled_remote, n->modelled_accesses));
	} else {
		fprintf(out, "accesses:  %s, %s remote (%.1f%%) [modelled: page placement]\n",
			rp_grouped(a, sizeof(a), n->accesses), rp_grouped(b, sizeof(b), n->remote),
			pct(n->remote, n->accesses));
	}
	if (r->skipped_accesses && !n->measured)
		fprintf(out, "sampled:   bursts%s: %s accesses %s, %s skipped: %s\n",
			r->bursts_replayed ? " at replay (--sample-bursts)" : "",
			rp_grouped(a, sizeof(a), r->recorded_accesses), r->bursts_replayed ? "replayed" : "recorded",
			rp_grouped(b, sizeof(b), r->skipped_accesses),
			n->scaled ? "the counts below are estimates (each thread's recorded x its own factor)"
				  : "the counts here are the recorded accesses, NOT scaled");
	if (n->samples_unknown)
		fprintf(out, "note:      %s PMU samples left out: their data source names no memory level\n",
			rp_grouped(a, sizeof(a), n->samples_unknown));
	if (n->samples_simulated)
		fprintf(out,
			"note:      %s PMU samples left out: they measured the host, not the simulated machine "
			"(the figures are modelled)\n",
			rp_grouped(a, sizeof(a), n->samples_simulated));
	if (r->mem_origin == AN_MEM_MODELLED) {
		const struct an_mem *m = &r->mem_total;
		uint64_t fills = m->level[MP_LVL_LOCAL_DRAM] + m->level[MP_LVL_REMOTE_DRAM];
		fprintf(out, "DRAM:      %s line fills, %s from a remote node (%.1f%%) [modelled, %s]\n",
			rp_grouped(a, sizeof(a), fills), rp_grouped(b, sizeof(b), m->level[MP_LVL_REMOTE_DRAM]),
			pct(m->level[MP_LVL_REMOTE_DRAM], fills), r->machine);
	}
}

static void text_matrix(FILE *out, const struct an_numa_result *n)
{
	char a[32];
	int unknown = elsewhere_total(n) != 0;
	fprintf(out, "\naccesses by node (rows: the thread's node, columns: %s) [%s]\n%8s",
		n->measured ? "the node that served the data" : "the page's node", origin(n), "");
	for (unsigned k = 0; k < n->topo.nodes; k++)
		fprintf(out, " %12s%-2u", "node", k);
	if (unknown)
		fprintf(out, " %14s", "node unknown");
	fprintf(out, "\n");
	for (unsigned i = 0; i < n->topo.nodes; i++) {
		fprintf(out, "node%-4u", i);
		for (unsigned k = 0; k < n->topo.nodes; k++)
			fprintf(out, " %14s", rp_grouped(a, sizeof(a), n->matrix[i * n->topo.nodes + k]));
		if (unknown)
			fprintf(out, " %14s", rp_grouped(a, sizeof(a), n->elsewhere[i]));
		fprintf(out, "\n");
	}
}

static void text_threads(FILE *out, const struct an_result *r, size_t limit)
{
	const struct an_numa_result *n = r->numa;
	char a[32], b[32];
	fprintf(out, "\nthreads\n%8s %5s %7s %14s %14s %7s  %s\n", "tid", "node", "pinned", "accesses", "remote",
		"remote", "name");
	size_t shown = 0;
	for (size_t i = 0; i < n->nthreads && (!limit || shown < limit); i++) {
		const struct an_numa_thread *t = &n->threads[i];
		if (!t->accesses)
			continue;
		fprintf(out, "%8u %5u %7s %14s %14s %6.1f%%  %s\n", r->threads[i].tid, t->node,
			t->pinned ? "yes" : "no", rp_grouped(a, sizeof(a), t->accesses),
			rp_grouped(b, sizeof(b), t->remote), pct(t->remote, t->accesses), r->threads[i].name);
		shown++;
	}
}

static void text_objects(FILE *out, const struct an_result *r, size_t limit)
{
	const struct an_numa_result *n = r->numa;
	char a[32], b[32];
	fprintf(out, "\nobjects, most remote accesses first\n%14s %14s %7s %7s %5s %5s  %-28s %s\n", "accesses",
		"remote", "remote", "threads", "nodes", "home", "pattern", "object");
	for (size_t i = 0; i < n->nobjs && (!limit || i < limit); i++) {
		const struct an_numa_obj *o = &n->objs[i];
		const struct an_numa_finding *f = finding_of(n, i);
		char home[8];
		snprintf(home, sizeof(home), "%d", o->home);
		fprintf(out, "%14s %14s %6.1f%% %7zu %5u %5s  %-28s %s\n", rp_grouped(a, sizeof(a), o->accesses),
			rp_grouped(b, sizeof(b), o->remote), pct(o->remote, o->accesses), o->nuses, obj_nodes(o),
			o->home < 0 ? "-" : home, f ? an_numa_pattern_name(f->pattern) : "-", label_of(r, o));
	}
}

static void text_sites(FILE *out, const struct an_result *r, size_t limit)
{
	size_t k = 0;
	struct site_row *s = sites(r, &k);
	char a[32], b[32];
	if (!s)
		return;
	fprintf(out, "\nallocation sites (and other objects), most remote accesses first\n%14s %14s %7s %7s  %s\n",
		"accesses", "remote", "remote", "objects", "site");
	for (size_t i = 0; i < k && (!limit || i < limit); i++)
		fprintf(out, "%14s %14s %6.1f%% %7u  %s\n", rp_grouped(a, sizeof(a), s[i].accesses),
			rp_grouped(b, sizeof(b), s[i].remote), pct(s[i].remote, s[i].accesses), s[i].objects,
			s[i].site);
	free(s);
}

static void text_findings(FILE *out, const struct an_result *r)
{
	const struct an_numa_result *n = r->numa;
	char ev[1024], fix[1024];
	fprintf(out, "\nfindings\n");
	if (!n->nfindings)
		fprintf(out,
			"  none: no object has a remote share worth fixing (10%% of its accesses and %d or more)\n",
			64);
	for (size_t i = 0; i < n->nfindings; i++) {
		const struct an_numa_finding *f = &n->findings[i];
		rp_numa_finding_text(r, f, ev, sizeof(ev), fix, sizeof(fix));
		if (f->pattern == AN_NP_SATURATED_NODE)
			fprintf(out, "* %s: node %u\n", an_numa_pattern_name(f->pattern), f->node);
		else
			fprintf(out, "* %s: %s\n", an_numa_pattern_name(f->pattern), label_of(r, &n->objs[f->obj]));
		fprintf(out, "    evidence: %s\n    fix:      %s\n", ev, fix);
	}
}

static void text_timeline(FILE *out, const struct an_result *r, size_t limit)
{
	const struct an_numa_result *n = r->numa;
	char a[32], b[32], c[32], d[32];
	fprintf(out, "\ntimelines: who used each object, run by run (a run: one thread's accesses until another's)\n");
	size_t shown = 0;
	for (size_t i = 0; i < n->nobjs && (!limit || shown < limit); i++) {
		const struct an_numa_obj *o = &n->objs[i];
		if (!o->remote)
			continue;
		shown++;
		fprintf(out, "  %s: %s runs, %s hand-overs, %s overlapping\n", label_of(r, o),
			rp_grouped(a, sizeof(a), o->runs), rp_grouped(b, sizeof(b), o->handoffs),
			rp_grouped(c, sizeof(c), o->overlaps));
		size_t lim = limit ? 2 * limit : o->nepisodes;
		for (size_t k = 0; k < o->nepisodes && k < lim; k++) {
			const struct an_numa_episode *e = &o->episodes[k];
			fprintf(out,
				"    +%10.3f ms .. +%10.3f ms  tid %-8u node %-3u %12s accesses %12s remote %12s "
				"writes\n",
				ms(n, e->first_time), ms(n, e->last_time), tid_of(r, e->thread), e->node,
				rp_grouped(a, sizeof(a), e->accesses), rp_grouped(b, sizeof(b), e->remote),
				rp_grouped(d, sizeof(d), e->writes));
		}
		if (o->nepisodes > lim || o->runs > o->nepisodes)
			fprintf(out, "    ... %s more runs\n",
				rp_grouped(a, sizeof(a), o->runs - (o->nepisodes < lim ? o->nepisodes : lim)));
	}
}

static int render_csv(FILE *out, const struct an_result *r, enum rp_numa_table t)
{
	const struct an_numa_result *n = r->numa;
	char ev[1024], fix[1024];
	switch (t) {
	case RP_NUMA_OBJECTS:
		fprintf(out, "object,kind,accesses,remote,remote_share,writes,threads,nodes,home,pattern%s,origin\n",
			r->mem_origin == AN_MEM_MODELLED ? ",dram_fills,remote_fills,avg_latency" : "");
		for (size_t i = 0; i < n->nobjs; i++) {
			const struct an_numa_obj *o = &n->objs[i];
			const struct an_numa_finding *f = finding_of(n, i);
			rp_csv_str(out, label_of(r, o));
			fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%zu,%u,%d,%s",
				an_kind_name(r->classes[o->cls].kind), o->accesses, o->remote,
				o->accesses ? (double)o->remote / (double)o->accesses : 0.0, o->writes, o->nuses,
				obj_nodes(o), o->home, f ? an_numa_pattern_name(f->pattern) : "");
			if (r->mem_origin == AN_MEM_MODELLED) {
				/* modelled: line fills served by DRAM, and those from another node */
				const struct an_mem *m = &r->classes[o->cls].mem;
				fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.1f",
					m->level[MP_LVL_LOCAL_DRAM] + m->level[MP_LVL_REMOTE_DRAM],
					m->level[MP_LVL_REMOTE_DRAM],
					m->latency_n ? (double)m->latency_sum / (double)m->latency_n : 0.0);
			}
			fprintf(out, ",%s\n", origin(n));
		}
		break;
	case RP_NUMA_SITES: {
		size_t k = 0;
		struct site_row *s = sites(r, &k);
		if (!s)
			return -ENOMEM;
		fprintf(out, "site,accesses,remote,remote_share,writes,objects,origin\n");
		for (size_t i = 0; i < k; i++) {
			rp_csv_str(out, s[i].site);
			fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%u,%s\n", s[i].accesses, s[i].remote,
				s[i].accesses ? (double)s[i].remote / (double)s[i].accesses : 0.0, s[i].writes,
				s[i].objects, origin(n));
		}
		free(s);
		break;
	}
	case RP_NUMA_THREADS:
		fprintf(out, "pid,tid,node,pinned,accesses,remote,remote_share,origin\n");
		for (size_t i = 0; i < n->nthreads; i++) {
			const struct an_numa_thread *th = &n->threads[i];
			if (!th->accesses)
				continue;
			fprintf(out, "%u,%u,%u,%d,%" PRIu64 ",%" PRIu64 ",%.4f,%s\n", r->threads[i].pid,
				r->threads[i].tid, th->node, th->pinned, th->accesses, th->remote,
				th->accesses ? (double)th->remote / (double)th->accesses : 0.0, origin(n));
		}
		break;
	case RP_NUMA_MATRIX:
		fprintf(out, "from_node,to_node,accesses,origin\n");
		for (unsigned i = 0; i < n->topo.nodes; i++) {
			for (unsigned k = 0; k < n->topo.nodes; k++)
				fprintf(out, "%u,%u,%" PRIu64 ",%s\n", i, k, n->matrix[i * n->topo.nodes + k],
					origin(n));
			if (n->elsewhere[i]) /* measured remote, the serving node unknown */
				fprintf(out, "%u,-1,%" PRIu64 ",%s\n", i, n->elsewhere[i], origin(n));
		}
		break;
	case RP_NUMA_TIMELINE:
		fprintf(out, "object,tid,node,first_ms,last_ms,accesses,remote,writes,origin\n");
		for (size_t i = 0; i < n->nobjs; i++)
			for (size_t k = 0; k < n->objs[i].nepisodes; k++) {
				const struct an_numa_episode *e = &n->objs[i].episodes[k];
				rp_csv_str(out, label_of(r, &n->objs[i]));
				fprintf(out, ",%u,%u,%.6f,%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s\n",
					tid_of(r, e->thread), e->node, ms(n, e->first_time), ms(n, e->last_time),
					e->accesses, e->remote, e->writes, origin(n));
			}
		break;
	case RP_NUMA_FINDINGS:
		fprintf(out, "pattern,object,node,to_node,count,share,evidence,fix,origin\n");
		for (size_t i = 0; i < n->nfindings; i++) {
			const struct an_numa_finding *f = &n->findings[i];
			rp_numa_finding_text(r, f, ev, sizeof(ev), fix, sizeof(fix));
			rp_csv_str(out, an_numa_pattern_name(f->pattern));
			fprintf(out, ",");
			rp_csv_str(out, label_of(r, &n->objs[f->obj]));
			fprintf(out, ",%u,%u,%" PRIu64 ",%.4f,", f->node, f->to_node, f->count, f->share);
			rp_csv_str(out, ev);
			fprintf(out, ",");
			rp_csv_str(out, fix);
			fprintf(out, ",%s\n", origin(n));
		}
		break;
	case RP_NUMA_RANKS:
	case RP_NUMA_PROCESSES: /* (rp_render_numa_procs) */
		break;
	}
	return 0;
}

/* The calls a finding's fix names, for programs reading the JSON. */
static const char *finding_api(enum an_numa_pattern p)
{
	switch (p) {
	case AN_NP_REMOTE_AFTER_ALLOC:
		return "\"numa_alloc_onnode\",\"move_pages\"";
	case AN_NP_ALTERNATE:
		return "\"pthread_setaffinity_np\",\"move_pages\"";
	case AN_NP_CONCURRENT_READ:
		return "\"numa_alloc_onnode\",\"numa_node_of_cpu\"";
	case AN_NP_CONCURRENT_WRITE:
		return "\"numa_alloc_interleaved\",\"mbind\",\"pthread_setaffinity_np\"";
	case AN_NP_PRIVATE_SHARED_PAGES:
		return "\"numa_alloc_local\",\"posix_memalign\"";
	case AN_NP_SATURATED_NODE:
		return "\"numa_alloc_onnode\",\"numa_alloc_interleaved\",\"mbind\"";
	default:
		return "";
	}
}

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void json_u64s(FILE *out, const uint64_t *v, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", v[i]);
	fputc(']', out);
}

static void json_objects(FILE *out, const struct an_result *r)
{
	const struct an_numa_result *n = r->numa;
	fprintf(out, ",\n\"objects\":[");
	for (size_t i = 0; i < n->nobjs; i++) {
		const struct an_numa_obj *o = &n->objs[i];
		const struct an_numa_finding *f = finding_of(n, i);
		fprintf(out, "%s\n{\"label\":", i ? "," : "");
		rp_json_str(out, label_of(r, o));
		fprintf(out, ",\"kind\":\"%s\",\"site\":", an_kind_name(r->classes[o->cls].kind));
		rp_json_str(out, site_of(r, o));
		fprintf(out,
			",\"accesses\":%" PRIu64 ",\"remote\":%" PRIu64 ",\"remote_share\":%.4f,\"writes\":%" PRIu64
			",\"threads\":%zu,\"nodes\":%u,\"home\":%d,\"pattern\":",
			o->accesses, o->remote, share(o->remote, o->accesses), o->writes, o->nuses, obj_nodes(o),
			o->home);
		rp_json_str(out, f ? an_numa_pattern_name(f->pattern) : NULL);
		fprintf(out,
			",\"runs\":%" PRIu64 ",\"handoffs\":%" PRIu64 ",\"overlaps\":%" PRIu64
			",\"shared_pages\":%" PRIu64 ",\"by_node\":",
			o->runs, o->handoffs, o->overlaps, o->shared_pages);
		json_u64s(out, o->from, n->topo.nodes);
		fprintf(out, ",\"at_node\":");
		json_u64s(out, o->at, n->topo.nodes);
		fprintf(out, ",\"users\":[");
		for (size_t k = 0; k < o->nuses; k++) {
			const struct an_numa_use *u = &o->uses[k];
			fprintf(out,
				"%s{\"tid\":%u,\"node\":%u,\"accesses\":%" PRIu64 ",\"remote\":%" PRIu64
				",\"writes\":%" PRIu64 ",\"first_ms\":%.6f,\"last_ms\":%.6f}",
				k ? "," : "", tid_of(r, u->thread), u->node, u->accesses, u->remote, u->writes,
				ms(n, u->first_time), ms(n, u->last_time));
		}
		fprintf(out, "],\"timeline\":[");
		for (size_t k = 0; k < o->nepisodes; k++) {
			const struct an_numa_episode *e = &o->episodes[k];
			fprintf(out,
				"%s{\"tid\":%u,\"node\":%u,\"first_ms\":%.6f,\"last_ms\":%.6f,\"first_epoch\":%" PRIu64
				",\"last_epoch\":%" PRIu64 ",\"accesses\":%" PRIu64 ",\"remote\":%" PRIu64
				",\"writes\":%" PRIu64 "}",
				k ? "," : "", tid_of(r, e->thread), e->node, ms(n, e->first_time), ms(n, e->last_time),
				e->first_epoch, e->last_epoch, e->accesses, e->remote, e->writes);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "]");
}

static int render_json(FILE *out, const struct an_result *r, const struct rp_opts *ro)
{
	const struct an_numa_result *n = r->numa;
	unsigned nodes = n->topo.nodes;
	char ev[1024], fix[1024];
	size_t k = 0;
	struct site_row *s = sites(r, &k);
	if (!s)
		return -ENOMEM;
	fprintf(out, "{\"schema\":\"memprism-numa-1\",\"data\":");
	rp_json_str(out, ro->data_path);
	fprintf(out, ",\"command\":");
	rp_json_str(out, r->cmdline);
	fprintf(out, ",\"source\":");
	rp_json_str(out, r->source[0] ? r->source : "inst");
	fprintf(out, ",\"roi\":");
	rp_json_str(out, ro->roi);
	fprintf(out, ",\"origin\":\"%s\",", origin(n));
	/* burst sampling: scaled (each thread's factor) or the recorded counts */
	fprintf(out, "\"sampling\":{\"recorded\":%" PRIu64 ",\"skipped\":%" PRIu64 ",\"scaled\":%s},",
		r->recorded_accesses, r->skipped_accesses, n->scaled ? "true" : "false");
	fprintf(out, "\n\"topology\":{\"spec\":");
	rp_json_str(out, n->topo.spec);
	fprintf(out, ",\"simulated\":%s,\"nodes\":%u,\"cpus\":%u,\"cpu_node\":[", n->topo.simulated ? "true" : "false",
		nodes, n->topo.cpus);
	for (unsigned c = 0; c < n->topo.cpus; c++)
		fprintf(out, "%s%u", c ? "," : "", n->topo.cpu_node[c]);
	fprintf(out, "],\"distance\":[");
	for (unsigned i = 0; i < nodes; i++) {
		fprintf(out, "%s[", i ? "," : "");
		for (unsigned j = 0; j < nodes; j++)
			fprintf(out, "%s%u", j ? "," : "", n->topo.distance[i][j]);
		fprintf(out, "]");
	}
	fprintf(out, "]},\n\"placement\":{\"threads\":");
	rp_json_str(out, n->thread_policy);
	fprintf(out, ",\"pages\":");
	rp_json_str(out, n->page_policy);
	fprintf(out,
		",\"affinity_calls\":%" PRIu64 ",\"policy_calls\":%" PRIu64 ",\"pages_placed\":%" PRIu64
		",\"pages_on\":",
		n->calls_affinity, n->calls_policy, n->pages);
	json_u64s(out, n->pages_on, nodes);
	fprintf(out,
		"},\n\"accesses\":%" PRIu64 ",\"remote\":%" PRIu64 ",\"remote_share\":%.4f,\"samples\":%" PRIu64
		",\"samples_unknown\":%" PRIu64 ",\"samples_simulated\":%" PRIu64 ",\"modelled\":{\"accesses\":%" PRIu64
		",\"remote\":%" PRIu64 "},\"dram\":",
		n->accesses, n->remote, share(n->remote, n->accesses), n->samples, n->samples_unknown,
		n->samples_simulated, n->modelled_accesses, n->modelled_remote);
	if (r->mem_origin == AN_MEM_MODELLED) {
		const struct an_mem *m = &r->mem_total;
		fprintf(out, "{\"fills\":%" PRIu64 ",\"remote_fills\":%" PRIu64 ",\"machine\":",
			m->level[MP_LVL_LOCAL_DRAM] + m->level[MP_LVL_REMOTE_DRAM], m->level[MP_LVL_REMOTE_DRAM]);
		rp_json_str(out, r->machine);
		fprintf(out, "}");
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ",\n\"matrix\":[");
	for (unsigned i = 0; i < nodes; i++) {
		fprintf(out, "%s", i ? "," : "");
		json_u64s(out, n->matrix + (size_t)i * nodes, nodes);
	}
	fprintf(out, "],\"elsewhere\":");
	json_u64s(out, n->elsewhere, nodes);
	fprintf(out, ",\n\"threads\":[");
	int first = 1;
	for (size_t i = 0; i < n->nthreads; i++) {
		const struct an_numa_thread *t = &n->threads[i];
		if (!t->accesses)
			continue;
		fprintf(out, "%s\n{\"pid\":%u,\"tid\":%u,\"name\":", first ? "" : ",", r->threads[i].pid,
			r->threads[i].tid);
		rp_json_str(out, r->threads[i].name);
		fprintf(out,
			",\"node\":%u,\"pinned\":%s,\"accesses\":%" PRIu64 ",\"remote\":%" PRIu64
			",\"remote_share\":%.4f}",
			t->node, t->pinned ? "true" : "false", t->accesses, t->remote, share(t->remote, t->accesses));
		first = 0;
	}
	fprintf(out, "]");
	json_objects(out, r);
	fprintf(out, ",\n\"sites\":[");
	for (size_t i = 0; i < k; i++) {
		fprintf(out, "%s\n{\"site\":", i ? "," : "");
		rp_json_str(out, s[i].site);
		fprintf(out,
			",\"accesses\":%" PRIu64 ",\"remote\":%" PRIu64 ",\"remote_share\":%.4f,\"writes\":%" PRIu64
			",\"objects\":%u}",
			s[i].accesses, s[i].remote, share(s[i].remote, s[i].accesses), s[i].writes, s[i].objects);
	}
	free(s);
	fprintf(out, "],\n\"findings\":[");
	for (size_t i = 0; i < n->nfindings; i++) {
		const struct an_numa_finding *f = &n->findings[i];
		rp_numa_finding_text(r, f, ev, sizeof(ev), fix, sizeof(fix));
		fprintf(out, "%s\n{\"pattern\":", i ? "," : "");
		rp_json_str(out, an_numa_pattern_name(f->pattern));
		fprintf(out, ",\"object\":");
		rp_json_str(out, label_of(r, &n->objs[f->obj]));
		fprintf(out, ",\"node\":%u,\"to_node\":%u,\"count\":%" PRIu64 ",\"share\":%.4f,\"evidence\":", f->node,
			f->to_node, f->count, f->share);
		rp_json_str(out, ev);
		fprintf(out, ",\"fix\":");
		rp_json_str(out, fix);
		fprintf(out, ",\"api\":[%s]}", finding_api(f->pattern));
	}
	fprintf(out, "]");
	int err = rp_numa_ranks_json(out, r, ro);
	fprintf(out, ",\n\"warnings\":[");
	for (size_t i = 0; i < r->nwarnings; i++) {
		fprintf(out, "%s", i ? "," : "");
		rp_json_str(out, r->warnings[i]);
	}
	fprintf(out, "]}\n");
	return err;
}

int rp_render_numa(FILE *out, const struct an_result *r, const struct rp_opts *o, enum rp_numa_table t)
{
	if (!r->numa)
		return -EINVAL;
	const int by_part = t == RP_NUMA_RANKS || t == RP_NUMA_PROCESSES;
	if (o->format == RP_CSV && by_part)
		return rp_render_numa_procs(out, r, o, t == RP_NUMA_PROCESSES);
	if (o->format == RP_CSV)
		return render_csv(out, r, t);
	if (o->format == RP_JSON)
		return render_json(out, r, o);
	text_header(out, r);
	if (o->merge) {
		rp_parts_text(out, o);
		fprintf(out, "times:     each process's own, ms since its first placed access\n");
	}
	int err = 0;
	switch (t) {
	case RP_NUMA_RANKS:
	case RP_NUMA_PROCESSES:
		err = rp_render_numa_procs(out, r, o, t == RP_NUMA_PROCESSES);
		break;
	case RP_NUMA_SITES:
		text_sites(out, r, o->limit);
		break;
	case RP_NUMA_THREADS:
		text_threads(out, r, o->limit);
		break;
	case RP_NUMA_MATRIX:
		text_matrix(out, r->numa);
		break;
	case RP_NUMA_TIMELINE:
		text_timeline(out, r, o->limit);
		break;
	case RP_NUMA_FINDINGS:
		text_findings(out, r);
		break;
	default:
		if (o->merge)
			err = rp_render_numa_procs(out, r, o, 0);
		text_matrix(out, r->numa);
		text_threads(out, r, o->limit);
		text_objects(out, r, o->limit);
		text_findings(out, r);
		break;
	}
	return err;
}
