// SPDX-License-Identifier: MIT
/*
 * NUMA placement and locality over the replay (docs/numa.md).
 *
 * Threads: an affinity call recorded by the runtime (sched_setaffinity,
 * pthread_setaffinity_np, pthread_attr_setaffinity_np) puts a thread on the
 * node of the first CPU it asked for; otherwise a simulated machine spreads
 * threads round-robin over the nodes in creation order (or fills node after
 * node: compact), and the host's topology uses the CPU each thread was
 * recorded on.
 *
 * Pages: the first access in replay order places a page (first touch) on
 * the accessing thread's node, unless a recorded policy says otherwise: an
 * mbind range (newest first), then the thread's set_mempolicy, then the
 * --numa-pages option; move_pages moves placed pages. On the host, a page
 * whose physical frame was recorded is on the node holding the frame.
 *
 * Per object the replay keeps who used it (per thread: counts, times,
 * address range) and its timeline of runs (consecutive accesses by one
 * thread): a run that starts at a later epoch than the previous one ended is
 * a hand-off (threads took turns), one at the same epoch an overlap (the
 * threads ran together; the replay serialises them, docs/model.md). The
 * patterns of MemProf are read from these at the end.
 */
#include "analysis/an_numa.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "common/mp_error.h"
#include "common/varint.h"

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

/* Linux's MPOL_* modes (numaif.h), without its flag bits. */
enum { POL_DEFAULT = 0, POL_PREFERRED = 1, POL_BIND = 2, POL_INTERLEAVE = 3, POL_LOCAL = 4 };
#define POL_MODE(m) ((m)&0xffu)
#define MPOL_MF_MOVE_ALL_BITS (1u << 1 | 1u << 2) /* MPOL_MF_MOVE | MPOL_MF_MOVE_ALL */

const char *an_numa_pattern_name(enum an_numa_pattern p)
{
	static const char *const n[AN_NP_COUNT] = {
		[AN_NP_PRIVATE_SHARED_PAGES] = "thread-private parts share pages",
		[AN_NP_CONCURRENT_READ] = "concurrent remote reads",
		[AN_NP_CONCURRENT_WRITE] = "concurrent remote accesses",
		[AN_NP_ALTERNATE] = "alternate remote accesses",
		[AN_NP_REMOTE_AFTER_ALLOC] = "remote usage after allocation",
		[AN_NP_SATURATED_NODE] = "saturated node",
	};
	return p < AN_NP_COUNT ? n[p] : "?";
}

static int topo_copy(struct mp_topo *dst, const struct mp_topo *src)
{
	*dst = *src;
	dst->block_node = NULL;
	if (src->nblocks) {
		dst->block_node = malloc(src->nblocks);
		if (!dst->block_node)
			return -ENOMEM;
		memcpy(dst->block_node, src->block_node, src->nblocks);
	}
	return 0;
}

static void obj_free(struct nobj *o)
{
	free(o->from);
	mp_vec_free(&o->uses);
	mp_vec_free(&o->use_nodes);
	mp_vec_free(&o->eps);
}

static void tables_fini(struct ntables *t)
{
	for (size_t i = 0; i < t->objs.n; i++)
		obj_free(&t->objs.v[i]);
	mp_vec_free(&t->objs);
	for (size_t i = 0; i < t->threads.n; i++)
		free(t->threads.v[i].matrix);
	mp_vec_free(&t->threads);
	free(t->matrix);
	free(t->elsewhere);
}

/* PMU samples of a multi-node host measured locality: worth the NUMA
 * tables in every report, unasked. */
static int pmu_on_numa_host(const struct an_state *st)
{
	char src[16], cpus[8192];
	if (!trace_reader_meta(st->reader, "source", src, sizeof(src)) || strcmp(src, "pmu") ||
	    !trace_reader_meta(st->reader, "cpu_nodes", cpus, sizeof(cpus)))
		return 0;
	for (const char *p = cpus; *p; p++)
		if (*p >= '1' && *p <= '9' && (p == cpus || p[-1] == ','))
			return 1; /* a CPU on a node other than 0 */
	return 0;
}

int an_numa_init(struct an_state *st)
{
	char spec[64];
	const struct an_numa_opts *o = st->opts->numa;
	int have_sim = trace_reader_meta(st->reader, "numa_sim", spec, sizeof(spec)) != NULL;
	if (!o && !have_sim && !pmu_on_numa_host(st))
		return 0;
	struct an_numa *n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	if (o)
		n->o = *o;
	int err = 0;
	if (o && o->topo) {
		err = topo_copy(&n->topo, o->topo);
	} else if (have_sim) {
		char msg[128];
		err = mp_topo_sim(spec, &n->topo, msg, sizeof(msg));
		if (err)
			an_warn(st, "the data file's simulated topology '%s' is unreadable", spec);
	} else {
		char cpus[8192], dist[8192];
		char *mem = malloc(65536);
		if (!mem) {
			free(n);
			return -ENOMEM;
		}
		err = mp_topo_host(trace_reader_meta(st->reader, "cpu_nodes", cpus, sizeof(cpus)),
				   trace_reader_meta(st->reader, "numa_distance", dist, sizeof(dist)),
				   trace_reader_meta(st->reader, "numa_mem", mem, 65536), &n->topo);
		free(mem);
		if (err == -MP_ERR_USAGE) {
			an_warn(st, "the recorded host topology is unreadable: one node assumed");
			err = mp_topo_host(NULL, NULL, NULL, &n->topo);
		}
	}
	if (!err) {
		size_t nn = (size_t)n->topo.nodes;
		n->model.matrix = calloc(nn * nn, sizeof(uint64_t));
		n->meas.matrix = calloc(nn * nn, sizeof(uint64_t));
		n->model.elsewhere = calloc(nn, sizeof(uint64_t));
		n->meas.elsewhere = calloc(nn, sizeof(uint64_t));
		n->pages_on = calloc(nn, sizeof(uint64_t));
		if (!n->model.matrix || !n->meas.matrix || !n->model.elsewhere || !n->meas.elsewhere || !n->pages_on)
			err = -ENOMEM;
	}
	if (err) {
		mp_topo_fini(&n->topo);
		tables_fini(&n->model);
		tables_fini(&n->meas);
		free(n->pages_on);
		free(n);
		return err == -MP_ERR_USAGE ? 0 : err;
	}
	if (n->o.threads == AN_NUMA_T_DEFAULT)
		n->o.threads = n->topo.simulated ? AN_NUMA_T_SPREAD : AN_NUMA_T_RECORDED;
	n->o.nodemask &= n->topo.nodes >= 64 ? ~0ull : (1ull << n->topo.nodes) - 1;
	if (!n->o.nodemask)
		n->o.nodemask = n->topo.nodes >= 64 ? ~0ull : (1ull << n->topo.nodes) - 1;
	n->host_frames = !n->topo.simulated && n->topo.mem_block;
	n->model.start_time = n->meas.start_time = UINT64_MAX;
	mp_hashmap_init(&n->pages);
	st->numa = n;
	return 0;
}

void an_numa_fini(struct an_state *st)
{
	struct an_numa *n = st->numa;
	if (!n)
		return;
	tables_fini(&n->model);
	tables_fini(&n->meas);
	mp_vec_free(&n->threads);
	mp_vec_free(&n->started);
	mp_vec_free(&n->binds);
	mp_hashmap_fini(&n->pages);
	mp_topo_fini(&n->topo);
	free(n->pages_on);
	free(n);
	st->numa = NULL;
}

/* --- threads ------------------------------------------------------------ */

static struct nthread *thread_st(struct an_state *st, struct an_numa *n, uint32_t t)
{
	while (n->threads.n <= t) {
		struct nthread z = { 0 };
		if (mp_vec_push(&n->threads, z)) {
			st->oom = 1;
			return NULL;
		}
	}
	return &n->threads.v[t];
}

/* Default placement of a new thread of process proc. */
static void place_thread(struct an_state *st, struct an_numa *n, struct an_stream *s, struct nthread *t)
{
	while (n->started.n <= s->proc)
		if (mp_vec_push(&n->started, 0u)) {
			st->oom = 1;
			return;
		}
	unsigned k = n->started.v[s->proc]++;
	unsigned per = n->topo.cpus / n->topo.nodes;
	switch (n->o.threads) {
	case AN_NUMA_T_COMPACT:
		t->node = (k / (per ? per : 1)) % n->topo.nodes;
		break;
	case AN_NUMA_T_RECORDED:
		t->node = mp_topo_cpu_node(&n->topo, s->cpu);
		break;
	default:
		t->node = k % n->topo.nodes;
		break;
	}
	t->placed = 1;
}

static unsigned first_bit(uint64_t m)
{
	return m ? (unsigned)__builtin_ctzll(m) : 0;
}

/* --- pages -------------------------------------------------------------- */

static uint64_t page_key(uint32_t proc, uint64_t page)
{
	return ((uint64_t)(proc + 1) << 40) ^ page;
}

/* The k-th set bit of mask, k taken modulo their count. */
static unsigned nth_node(uint64_t mask, uint64_t k)
{
	unsigned cnt = (unsigned)__builtin_popcountll(mask);
	if (!cnt)
		return 0;
	k %= cnt;
	for (unsigned i = 0; i < 64; i++)
		if (mask >> i & 1 && k-- == 0)
			return i;
	return 0;
}

/* A node for a new page under a policy; tnode is the toucher's node. */
static unsigned policy_node(const struct an_numa *n, unsigned mode, uint64_t mask, uint64_t page, unsigned tnode)
{
	mask &= n->topo.nodes >= 64 ? ~0ull : (1ull << n->topo.nodes) - 1;
	switch (POL_MODE(mode)) {
	case POL_INTERLEAVE:
		return mask ? nth_node(mask, page) : tnode;
	case POL_BIND:
		/* the local node if allowed, else the lowest allowed */
		return !mask || mask >> tnode & 1 ? tnode : first_bit(mask);
	case POL_PREFERRED:
		return mask ? first_bit(mask) : tnode;
	default:
		return tnode;
	}
}

/* 1 if another page may be placed; 0 past the file's bound (said once):
 * a chunk of one record repeated, each a page further, placed 20 M pages
 * of a 4 MB file. */
static int pages_room(struct an_state *st, struct an_numa *n)
{
	if (n->pages.n < an_bound(st, AN_PLACED_FLOOR, AN_PLACED_PER_KIB))
		return 1;
	st->res->damaged |= AN_DAMAGE_PARTIAL;
	if (!n->pages_warned++)
		an_warn(st,
			"more than %zu pages placed, more than a file of %llu bytes can hold (a damaged file?): "
			"the later pages are placed again at each access",
			n->pages.n, (unsigned long long)st->file_bytes);
	return 0;
}

static unsigned place_page(struct an_state *st, struct an_numa *n, struct an_stream *s, const struct nthread *t,
			   uint64_t addr)
{
	uint64_t page = addr >> PAGE_SHIFT;
	if (n->host_frames && st->phys) {
		uint64_t pa;
		uint32_t fl;
		if (an_phys_lookup(st, st->procs.v[s->proc].pid, addr, s->dec.time, &pa, &fl)) {
			int node = mp_topo_paddr_node(&n->topo, pa);
			if (node >= 0 && (unsigned)node < n->topo.nodes)
				return (unsigned)node; /* where the frame is: not cached, frames move */
		}
	}
	uint64_t key = page_key(s->proc, page);
	uint64_t *v = mp_hashmap_get(&n->pages, key);
	if (v && *v)
		return (unsigned)(*v - 1);
	unsigned node = t->node;
	int decided = 0;
	if (!n->o.ignore_calls) {
		for (size_t i = n->binds.n; i-- > 0;) {
			const struct nbind *b = &n->binds.v[i];
			if (b->proc == s->proc && addr >= b->lo && addr < b->hi) {
				/* interleave counts pages from the start of the range */
				node = policy_node(n, b->mode, b->mask, page - (b->lo >> PAGE_SHIFT), t->node);
				decided = 1;
				break;
			}
		}
		if (!decided && t->mode) {
			node = policy_node(n, t->mode, t->mask, page, t->node);
			decided = 1;
		}
	}
	if (!decided && n->o.pages != AN_NUMA_P_FIRST_TOUCH)
		node = policy_node(n, n->o.pages == AN_NUMA_P_BIND ? POL_BIND : POL_INTERLEAVE, n->o.nodemask, page,
				   n->o.pages == AN_NUMA_P_BIND ? first_bit(n->o.nodemask) : t->node);
	if (!pages_room(st, n))
		return node;
	if (mp_hashmap_put(&n->pages, key, node + 1)) {
		st->oom = 1;
		return node;
	}
	n->npages++;
	n->pages_on[node]++;
	return node;
}

/* Pages of [lo, hi) of process proc are placed nowhere any more (unmapped,
 * or handed out afresh by the allocator). */
static void forget_pages(struct an_numa *n, uint32_t proc, uint64_t lo, uint64_t hi)
{
	if (!n->pages.n || hi <= lo || hi - lo > (64ull << 30))
		return;
	for (uint64_t p = lo >> PAGE_SHIFT; p < (hi + (1u << PAGE_SHIFT) - 1) >> PAGE_SHIFT; p++) {
		uint64_t *v = mp_hashmap_get(&n->pages, page_key(proc, p));
		if (v && *v) {
			n->pages_on[*v - 1]--;
			n->npages--;
			*v = 0;
		}
	}
	n->gen++;
}

/* --- events ------------------------------------------------------------- */

static unsigned mask_node(const struct an_numa *n, const struct trace_rec *r)
{
	for (size_t i = 0; i < r->str_len; i++) {
		unsigned char b = (unsigned char)r->str[i];
		if (b)
			return mp_topo_cpu_node(&n->topo, (unsigned)(i * 8 + (unsigned)__builtin_ctz(b)));
	}
	return 0;
}

static void move_pages_event(struct an_state *st, struct an_numa *n, struct an_stream *s, const struct trace_rec *r)
{
	const uint8_t *p = (const uint8_t *)r->str, *end = p + r->str_len;
	uint64_t addr = 0;
	for (uint64_t i = 0; i < r->f[3] && p < end; i++) {
		uint64_t z, node;
		if (mp_get_uv(&p, end, &z) || mp_get_uv(&p, end, &node))
			break;
		addr += (uint64_t)mp_unzigzag(z);
		if (node >= n->topo.nodes)
			continue;
		uint64_t key = page_key(s->proc, addr >> PAGE_SHIFT);
		uint64_t *v = mp_hashmap_get(&n->pages, key);
		if (!v && !pages_room(st, n))
			break;
		if (v && *v) {
			n->pages_on[*v - 1]--;
			n->npages--;
		}
		if (mp_hashmap_put(&n->pages, key, node + 1)) {
			st->oom = 1;
			return;
		}
		n->pages_on[node]++;
		n->npages++;
	}
	n->gen++;
}

void an_numa_event(struct an_state *st, struct an_stream *s, const struct trace_rec *r)
{
	struct an_numa *n = st->numa;
	const uint64_t *f = r->f;
	struct nthread *t;
	switch (r->event) {
	case MP_EV_THREAD_START:
		t = thread_st(st, n, s->thread);
		if (t && !t->placed)
			place_thread(st, n, s, t);
		break;
	case MP_EV_AFFINITY: {
		if (n->o.ignore_calls || !r->str_len)
			break;
		uint32_t th = an_thread_get(st, st->procs.v[s->proc].pid, (uint32_t)f[2]);
		t = thread_st(st, n, th);
		if (!t)
			break;
		t->node = mask_node(n, r);
		t->placed = t->pinned = 1;
		t->gen = ~0ull; /* its cached page node was looked up for another node */
		n->calls_affinity++;
		break;
	}
	case MP_EV_MEMPOLICY:
		if (n->o.ignore_calls)
			break;
		t = thread_st(st, n, s->thread);
		if (t) {
			t->mode = (unsigned)POL_MODE(f[2]) == POL_LOCAL ? POL_DEFAULT : (unsigned)POL_MODE(f[2]);
			t->mask = f[3];
		}
		n->calls_policy++;
		break;
	case MP_EV_MBIND: {
		if (n->o.ignore_calls)
			break;
		struct nbind b = {
			.proc = s->proc, .lo = f[2], .hi = f[2] + f[3], .mode = (unsigned)POL_MODE(f[4]), .mask = f[5]
		};
		if (b.mode == POL_LOCAL)
			b.mode = POL_DEFAULT;
		if (mp_vec_push(&n->binds, b))
			st->oom = 1;
		if (f[6] & MPOL_MF_MOVE_ALL_BITS) /* placed pages move to fit the policy */
			forget_pages(n, s->proc, b.lo, b.hi);
		n->calls_policy++;
		break;
	}
	case MP_EV_MOVE_PAGES:
		if (n->o.ignore_calls || (f[2] && f[2] != st->procs.v[s->proc].pid))
			break;
		move_pages_event(st, n, s, r);
		n->calls_policy++;
		break;
	case MP_EV_MUNMAP:
		forget_pages(n, s->proc, f[2], f[2] + f[3]);
		/* a range policy ends with its mapping */
		for (size_t i = 0; i < n->binds.n; i++) {
			struct nbind *b = &n->binds.v[i];
			if (b->proc == s->proc && b->lo >= f[2] && b->hi <= f[2] + f[3])
				b->hi = b->lo;
		}
		break;
	case MP_EV_ALLOC:
		/* (a block carved from a pool: its pages stay where they are) */
		if (f[3] >= BIG_BLOCK && f[5] < MP_FN_MALLOCLIKE)
			forget_pages(n, s->proc, f[2], f[2] + f[3]);
		break;
	default:
		break;
	}
}

/* --- accesses ----------------------------------------------------------- */

static struct nobj *obj_st(struct an_state *st, struct an_numa *n, struct ntables *tb, uint32_t cls)
{
	while (tb->objs.n <= cls) {
		struct nobj z = { 0 };
		if (mp_vec_push(&tb->objs, z)) {
			st->oom = 1;
			return NULL;
		}
	}
	struct nobj *o = &tb->objs.v[cls];
	if (!o->used) {
		o->from = calloc(3 * (size_t)n->topo.nodes, sizeof(uint64_t));
		if (!o->from) {
			st->oom = 1;
			return NULL;
		}
		o->at = o->from + n->topo.nodes;
		o->rat = o->at + n->topo.nodes;
		o->used = 1;
		o->first_thread = -1;
		o->home = -1;
	}
	return o;
}

/* The thread's node and the node of addr's page (placing it on first touch). */
static int nodes_of(struct an_state *st, struct an_numa *n, struct an_stream *s, uint64_t addr, unsigned *from,
		    unsigned *to, struct nthread **tp)
{
	struct nthread *t = thread_st(st, n, s->thread);
	if (!t)
		return 0;
	if (!t->placed)
		place_thread(st, n, s, t);
	if (n->o.threads == AN_NUMA_T_RECORDED && !n->topo.simulated)
		t->node = mp_topo_cpu_node(&n->topo, s->cpu); /* real runs: where it ran */
	uint64_t page = addr >> PAGE_SHIFT;
	if (t->gen != n->gen || t->last_page != page || n->host_frames) {
		t->last_node = place_page(st, n, s, t, addr);
		t->last_page = page;
		t->gen = n->gen;
	}
	*from = t->node;
	*to = t->last_node;
	*tp = t;
	return 1;
}

void an_numa_last(const struct an_state *st, int *from, int *to)
{
	*from = st->numa->last_from;
	*to = st->numa->last_to;
}

unsigned an_numa_latency(const struct an_state *st, unsigned from, unsigned to, unsigned local)
{
	return mp_topo_latency(&st->numa->topo, from, to, local);
}

int an_numa_nodes(struct an_state *st, struct an_stream *s, uint64_t addr, unsigned *from, unsigned *to)
{
	struct nthread *t;
	return st->numa && nodes_of(st, st->numa, s, addr, from, to, &t);
}

static struct an_numa_use *use_of(struct an_state *st, struct nobj *o, uint32_t thread, unsigned node, uint64_t time)
{
	if (o->last_use < o->uses.n && o->uses.v[o->last_use].thread == thread)
		return &o->uses.v[o->last_use];
	for (size_t i = 0; i < o->uses.n; i++)
		if (o->uses.v[i].thread == thread) {
			o->last_use = i;
			return &o->uses.v[i];
		}
	struct an_numa_use u = { .thread = thread, .node = node, .first_time = time, .lo = UINT64_MAX };
	if (mp_vec_push(&o->uses, u)) {
		st->oom = 1;
		return NULL;
	}
	if (st->parts_on) /* burst sampling: the use's own node counts (tally) */
		for (unsigned k = 0; k < 3 * st->numa->topo.nodes; k++)
			if (mp_vec_push(&o->use_nodes, 0)) {
				st->oom = 1;
				o->uses.n--;
				return NULL;
			}
	o->last_use = o->uses.n - 1;
	return &o->uses.v[o->last_use];
}

/* One access (or one sample standing for weight of them) for the tables. */
struct nhit {
	uint32_t thread, cls;
	unsigned from;
	int to; /* -1: remote, the serving node unknown */
	int remote, write;
	uint64_t weight, time, epoch, addr, size;
};

static struct ntally *tally_st(struct an_state *st, struct ntables *tb, uint32_t thread)
{
	while (tb->threads.n <= thread) {
		struct ntally z = { 0 };
		if (mp_vec_push(&tb->threads, z)) {
			st->oom = 1;
			return NULL;
		}
	}
	return &tb->threads.v[thread];
}

/* Counts h per object, thread, node pair, and extends the object's users
 * and its timeline of runs. */
static void tally(struct an_state *st, struct an_numa *n, struct ntables *tb, const struct nhit *h)
{
	struct nobj *o = obj_st(st, n, tb, h->cls);
	struct ntally *t = tally_st(st, tb, h->thread);
	if (!o || !t)
		return;
	uint64_t w = h->weight, rw = h->remote ? w : 0, ww = h->write ? w : 0;
	if (h->time < tb->start_time)
		tb->start_time = h->time;
	tb->hits++;
	tb->accesses += w;
	tb->remote += rw;
	if (h->to >= 0)
		tb->matrix[h->from * n->topo.nodes + (unsigned)h->to] += w;
	else
		tb->elsewhere[h->from] += w;
	t->accesses += w;
	t->remote += rw;
	t->node = h->from;
	t->seen = 1;
	const int apart = st->parts_on && tb == &n->model;
	if (apart) {
		unsigned nn = n->topo.nodes;
		if (!t->matrix && !(t->matrix = calloc((size_t)nn * (nn + 1), sizeof(uint64_t)))) {
			st->oom = 1;
			return;
		}
		if (h->to >= 0)
			t->matrix[h->from * nn + (unsigned)h->to] += w;
		else
			t->matrix[nn * nn + h->from] += w;
	}
	o->accesses += w;
	o->remote += rw;
	o->writes += ww;
	o->from[h->from] += w;
	if (h->to >= 0) {
		o->at[h->to] += w;
		o->rat[h->to] += rw;
	}
	if (o->first_thread < 0)
		o->first_thread = h->thread;
	if (o->home < 0 && (int64_t)h->thread == o->first_thread)
		o->home = h->to; /* measured: the first sample from its node says */
	struct an_numa_use *u = use_of(st, o, h->thread, h->from, h->time);
	if (!u)
		return;
	if (apart && o->use_nodes.n == 3 * n->topo.nodes * o->uses.n) {
		uint64_t *un = &o->use_nodes.v[3 * n->topo.nodes * (size_t)(u - o->uses.v)];
		un[h->from] += w;
		if (h->to >= 0) {
			un[n->topo.nodes + (unsigned)h->to] += w;
			un[2 * n->topo.nodes + (unsigned)h->to] += rw;
		}
	}
	u->accesses += w;
	u->remote += rw;
	u->writes += ww;
	u->last_time = h->time;
	uint64_t size = h->size ? h->size : 1;
	if (h->addr < u->lo)
		u->lo = h->addr;
	if (h->addr + size > u->hi)
		u->hi = h->addr + size;
	/* the timeline: a new run when another thread takes over */
	if (!o->in_run || o->cur_thread != h->thread) {
		if (o->in_run) {
			if (h->epoch > o->cur_last_epoch)
				o->handoffs++;
			else
				o->overlaps++;
		}
		o->in_run = 1;
		o->cur_thread = h->thread;
		o->runs++;
		if (o->eps.n < AN_NUMA_MAX_EPISODES) {
			struct an_numa_episode e = {
				.thread = h->thread, .node = h->from, .first_time = h->time, .first_epoch = h->epoch
			};
			if (mp_vec_push(&o->eps, e))
				st->oom = 1;
		}
	}
	o->cur_last_epoch = h->epoch;
	if (o->runs <= AN_NUMA_MAX_EPISODES && o->eps.n) {
		struct an_numa_episode *e = &o->eps.v[o->eps.n - 1];
		e->last_time = h->time;
		e->last_epoch = h->epoch;
		e->accesses += w;
		e->remote += rw;
		e->writes += ww;
	}
}

void an_numa_access(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r, int counted)
{
	struct an_numa *n = st->numa;
	unsigned from, to;
	struct nthread *t;
	n->last_from = n->last_to = -1;
	if (!nodes_of(st, n, s, r->addr, &from, &to, &t))
		return;
	n->last_from = (int)from;
	n->last_to = (int)to;
	if (r->size > 1 && ((r->addr ^ (r->addr + r->size - 1)) >> PAGE_SHIFT)) {
		/* a ranged access (memset, memcpy) touches every page it spans:
		 * first touch places them all (up to 1 GiB of them) */
		uint64_t last = r->addr + (r->size < (1ull << 30) ? r->size : 1ull << 30) - 1;
		for (uint64_t a = (r->addr | ((1u << PAGE_SHIFT) - 1)) + 1; a <= last && a > r->addr;
		     a += 1u << PAGE_SHIFT)
			place_page(st, n, s, t, a);
		t->gen = ~0ull;
	}
	if (!counted)
		return;
	struct nhit h = { .thread = s->thread,
			  .cls = cls,
			  .from = from,
			  .to = (int)to,
			  .remote = from != to,
			  .write = r->write,
			  .weight = 1,
			  .time = s->dec.time,
			  .epoch = s->epoch,
			  .addr = r->addr,
			  .size = r->size };
	tally(st, n, &n->model, &h);
}

void an_numa_sample(struct an_state *st, const struct an_numa_sample *smp)
{
	struct an_numa *n = st->numa;
	if (!n)
		return;
	if (n->topo.simulated) {
		/* the data source describes the host, not the machine simulated */
		n->samples_simulated++;
		return;
	}
	const struct mp_outcome *out = smp->out;
	if (out->level == MP_LVL_UNKNOWN) {
		n->samples_unknown++;
		return;
	}
	unsigned from = mp_topo_cpu_node(&n->topo, smp->cpu);
	int to = (int)from;
	if (out->remote) {
		/* the data came from another node: which one, the frame says
		 * (when recorded), or there is only one other */
		int pn = smp->phys && n->topo.mem_block ? mp_topo_paddr_node(&n->topo, smp->phys) : -1;
		to = pn >= 0 && (unsigned)pn != from ? pn : n->topo.nodes == 2 ? (int)(1 - from) : -1;
	}
	struct nhit h = { .thread = smp->thread,
			  .cls = smp->cls,
			  .from = from,
			  .to = to,
			  .remote = out->remote,
			  .write = smp->write,
			  .weight = out->weight,
			  .time = smp->time,
			  .epoch = smp->epoch,
			  .addr = smp->addr,
			  .size = 1 };
	tally(st, n, &n->meas, &h);
}

/* --- the result: objects merged into report rows, then the patterns ------ */

void an_numa_result_free(struct an_numa_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nobjs; i++) {
		free(r->objs[i].from);
		free(r->objs[i].uses);
		free(r->objs[i].episodes);
	}
	free(r->objs);
	free(r->threads);
	free(r->findings);
	free(r->matrix);
	free(r->elsewhere);
	free(r->pages_on);
	mp_topo_fini(&r->topo);
	free(r);
}

/* Adds state object src into result object d (both with nodes-sized arrays). */
static int obj_merge(struct an_numa_obj *d, struct nobj *src, unsigned nodes)
{
	d->accesses += src->accesses;
	d->remote += src->remote;
	d->writes += src->writes;
	for (unsigned k = 0; k < 3 * nodes; k++)
		d->from[k] += src->from[k];
	d->runs += src->runs;
	d->handoffs += src->handoffs;
	d->overlaps += src->overlaps;
	if (d->first_thread < 0) {
		d->first_thread = src->first_thread;
		d->home = src->home;
	}
	for (size_t i = 0; i < src->uses.n; i++) {
		const struct an_numa_use *u = &src->uses.v[i];
		size_t j = 0;
		while (j < d->nuses && d->uses[j].thread != u->thread)
			j++;
		if (j == d->nuses) {
			void *nu = realloc(d->uses, (d->nuses + 1) * sizeof(*d->uses));
			if (!nu)
				return -ENOMEM;
			d->uses = nu;
			d->uses[d->nuses++] = *u;
			continue;
		}
		struct an_numa_use *w = &d->uses[j];
		w->accesses += u->accesses;
		w->remote += u->remote;
		w->writes += u->writes;
		w->first_time = u->first_time < w->first_time ? u->first_time : w->first_time;
		w->last_time = u->last_time > w->last_time ? u->last_time : w->last_time;
		w->lo = u->lo < w->lo ? u->lo : w->lo;
		w->hi = u->hi > w->hi ? u->hi : w->hi;
	}
	if (src->eps.n) {
		void *ne = realloc(d->episodes, (d->nepisodes + src->eps.n) * sizeof(*d->episodes));
		if (!ne)
			return -ENOMEM;
		d->episodes = ne;
		memcpy(d->episodes + d->nepisodes, src->eps.v, src->eps.n * sizeof(*d->episodes));
		d->nepisodes += src->eps.n;
	}
	return 0;
}

static int cmp_episode(const void *a, const void *b)
{
	const struct an_numa_episode *x = a, *y = b;
	if (x->first_epoch != y->first_epoch)
		return x->first_epoch < y->first_epoch ? -1 : 1;
	return x->first_time < y->first_time ? -1 : x->first_time > y->first_time;
}

static int cmp_use_lo(const void *a, const void *b)
{
	const struct an_numa_use *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct an_numa_obj *x = a, *y = b;
	if (x->remote != y->remote)
		return x->remote > y->remote ? -1 : 1;
	if (x->accesses != y->accesses)
		return x->accesses > y->accesses ? -1 : 1;
	return x->cls < y->cls ? -1 : x->cls > y->cls;
}

#define MIN_REMOTE 64 /* an object with fewer remote accesses has no finding */

/* Thread-private parts: the threads other than the first one (which made and
 * filled the object) each touch an address range no other touches. Returns
 * the number of such threads (0: not private) and the pages two parts share. */
static size_t private_parts(const struct an_numa_obj *o, uint64_t *shared)
{
	struct an_numa_use parts[64];
	size_t np = 0;
	for (size_t i = 0; i < o->nuses; i++)
		if ((int64_t)o->uses[i].thread != o->first_thread && np < 64)
			parts[np++] = o->uses[i];
	if (np < 2 || np != o->nuses - (o->first_thread >= 0 ? 1 : 0))
		return 0;
	qsort(parts, np, sizeof(parts[0]), cmp_use_lo);
	*shared = 0;
	uint64_t last_shared = UINT64_MAX;
	for (size_t i = 0; i + 1 < np; i++) {
		if (parts[i].hi > parts[i + 1].lo)
			return 0;
		uint64_t page = (parts[i].hi - 1) >> PAGE_SHIFT;
		if (page == parts[i + 1].lo >> PAGE_SHIFT && page != last_shared) {
			(*shared)++;
			last_shared = page;
		}
	}
	return np;
}

static int add_finding(struct an_numa_result *r, size_t *cap, struct an_numa_finding f)
{
	if (r->nfindings == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		void *nf = realloc(r->findings, nc * sizeof(*r->findings));
		if (!nf)
			return -ENOMEM;
		r->findings = nf;
		*cap = nc;
	}
	r->findings[r->nfindings++] = f;
	return 0;
}

/* MemProf's patterns (its section 4), one per object, most specific
 * first, then the nodes that draw most of the remote traffic. */
static int find_patterns(struct an_numa_result *r)
{
	size_t cap = 0;
	unsigned nodes = r->topo.nodes;
	for (size_t i = 0; i < r->nobjs; i++) {
		const struct an_numa_obj *o = &r->objs[i];
		if (o->remote < MIN_REMOTE || o->remote * 10 < o->accesses)
			continue;
		struct an_numa_finding f = { .obj = (uint32_t)i,
					     .node = o->home < 0 ? 0 : (unsigned)o->home,
					     .share = (double)o->remote / (double)o->accesses };
		uint64_t used_nodes = 0, later_nodes = 0, later_acc = 0, later_writes = 0;
		uint64_t remote_from[MP_TOPO_MAX_NODES] = { 0 };
		for (size_t k = 0; k < o->nuses; k++) {
			used_nodes |= 1ull << o->uses[k].node;
			remote_from[o->uses[k].node] += o->uses[k].remote;
			if ((int64_t)o->uses[k].thread != o->first_thread) {
				later_nodes |= 1ull << o->uses[k].node; /* users, not the maker */
				later_acc += o->uses[k].accesses;
				later_writes += o->uses[k].writes;
			}
		}
		uint64_t shared = 0;
		if (private_parts(o, &shared)) {
			f.pattern = AN_NP_PRIVATE_SHARED_PAGES;
			f.count = shared;
		} else if (__builtin_popcountll(later_nodes) >= 2 && o->overlaps && o->overlaps >= o->handoffs) {
			/* read-mostly once made: at most 1 write in 20 by the users */
			f.pattern = later_writes * 20 <= later_acc ? AN_NP_CONCURRENT_READ : AN_NP_CONCURRENT_WRITE;
			f.count = (uint64_t)__builtin_popcountll(later_nodes);
		} else if (__builtin_popcountll(used_nodes) >= 2 && o->handoffs >= 3) {
			f.pattern = AN_NP_ALTERNATE;
			f.count = o->handoffs;
		} else {
			unsigned d = 0;
			for (unsigned k = 1; k < nodes; k++)
				if (remote_from[k] > remote_from[d])
					d = k;
			if (o->home < 0 || d == (unsigned)o->home || remote_from[d] * 2 < o->accesses)
				continue;
			f.pattern = AN_NP_REMOTE_AFTER_ALLOC;
			f.to_node = d;
			f.count = remote_from[d];
		}
		if (add_finding(r, &cap, f))
			return -ENOMEM;
	}
	/* saturated node: most remote traffic converges on one node, from
	 * several objects (with two nodes, all remote traffic converges) */
	if (nodes < 3 || !r->remote)
		return 0;
	for (unsigned k = 0; k < nodes; k++) {
		uint64_t in = 0;
		for (unsigned j = 0; j < nodes; j++)
			if (j != k)
				in += r->matrix[j * nodes + k];
		if (in * 2 < r->remote || in < MIN_REMOTE)
			continue;
		uint64_t contributors = 0, best = 0;
		size_t bi = 0;
		for (size_t i = 0; i < r->nobjs; i++) {
			uint64_t v = r->objs[i].rat[k];
			if (v * 10 >= in)
				contributors++;
			if (v > best) {
				best = v;
				bi = i;
			}
		}
		if (contributors < 2)
			continue;
		struct an_numa_finding f = { .pattern = AN_NP_SATURATED_NODE,
					     .obj = (uint32_t)bi,
					     .node = k,
					     .count = contributors,
					     .share = (double)in / (double)r->remote };
		if (add_finding(r, &cap, f))
			return -ENOMEM;
	}
	return 0;
}

/* Burst sampling: the tables counted the recorded accesses; each thread's
 * part (its tally and matrix, its uses of objects and its runs on their
 * timelines, kept apart by tally) is scaled by its own factor, set by
 * an_bursts_apply, and the matrix, totals and objects' figures become the
 * sums of the scaled parts, as report's rows do. */
static void scale_by_thread(struct an_state *st, struct an_numa *n, struct ntables *tb)
{
	const unsigned nn = n->topo.nodes;
	const size_t cells = (size_t)nn * (nn + 1);
#define FACTOR(t) ((t) < st->threads.n ? st->threads.v[t].sample_factor : 1.0)
	memset(tb->matrix, 0, (size_t)nn * nn * sizeof(uint64_t));
	memset(tb->elsewhere, 0, nn * sizeof(uint64_t));
	tb->accesses = tb->remote = 0;
	for (size_t i = 0; i < tb->threads.n; i++) {
		struct ntally *t = &tb->threads.v[i];
		const double f = FACTOR(i);
		t->accesses = an_scaled(t->accesses, f);
		t->remote = an_scaled(t->remote, f);
		tb->accesses += t->accesses;
		tb->remote += t->remote;
		for (size_t k = 0; t->matrix && k < cells; k++) {
			uint64_t v = an_scaled(t->matrix[k], f);
			if (k < (size_t)nn * nn)
				tb->matrix[k] += v;
			else
				tb->elsewhere[k - (size_t)nn * nn] += v;
		}
	}
	for (size_t i = 0; i < tb->objs.n; i++) {
		struct nobj *o = &tb->objs.v[i];
		if (!o->used || o->use_nodes.n != 3 * (size_t)nn * o->uses.n)
			continue;
		o->accesses = o->remote = o->writes = 0;
		memset(o->from, 0, 3 * (size_t)nn * sizeof(uint64_t));
		for (size_t j = 0; j < o->uses.n; j++) {
			struct an_numa_use *u = &o->uses.v[j];
			const double f = FACTOR(u->thread);
			u->accesses = an_scaled(u->accesses, f);
			u->remote = an_scaled(u->remote, f);
			u->writes = an_scaled(u->writes, f);
			o->accesses += u->accesses;
			o->remote += u->remote;
			o->writes += u->writes;
			const uint64_t *un = &o->use_nodes.v[3 * (size_t)nn * j];
			for (size_t k = 0; k < 3 * (size_t)nn; k++)
				o->from[k] += an_scaled(un[k], f);
		}
		for (size_t j = 0; j < o->eps.n; j++) {
			struct an_numa_episode *e = &o->eps.v[j];
			const double f = FACTOR(e->thread);
			e->accesses = an_scaled(e->accesses, f);
			e->remote = an_scaled(e->remote, f);
			e->writes = an_scaled(e->writes, f);
		}
	}
#undef FACTOR
}

int an_numa_finish(struct an_state *st, struct an_result *res, const uint32_t *remap)
{
	struct an_numa *n = st->numa;
	if (!n)
		return 0;
	struct an_numa_result *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	int err = topo_copy(&r->topo, &n->topo);
	unsigned nodes = n->topo.nodes;
	static const char *const tp[] = { "spread", "spread", "compact", "recorded CPU" };
	static const char *const pp[] = { "first touch", "interleave", "bind" };
	/* measured wins: with samples whose data source told local or
	 * remote, every locality figure is theirs */
	struct ntables *tb = n->meas.accesses ? &n->meas : &n->model;
	r->measured = tb == &n->meas;
	if (st->parts_on && !r->measured && tb->matrix && tb->elsewhere) {
		scale_by_thread(st, n, tb);
		r->scaled = 1;
	}
	r->thread_policy = tp[n->o.threads];
	r->page_policy = pp[n->o.pages];
	r->accesses = tb->accesses;
	r->remote = tb->remote;
	r->modelled_accesses = n->model.accesses;
	r->modelled_remote = n->model.remote;
	r->samples = n->meas.hits;
	r->samples_unknown = n->samples_unknown;
	r->samples_simulated = n->samples_simulated;
	r->calls_affinity = n->calls_affinity;
	r->calls_policy = n->calls_policy;
	r->pages = n->npages;
	r->start_time = tb->start_time == UINT64_MAX ? 0 : tb->start_time;
	r->matrix = tb->matrix;
	r->elsewhere = tb->elsewhere;
	r->pages_on = n->pages_on;
	tb->matrix = tb->elsewhere = n->pages_on = NULL;
	/* the result's thread table is handed over after this: count the state's */
	r->nthreads = st->threads.n;
	r->threads = calloc(r->nthreads ? r->nthreads : 1, sizeof(*r->threads));
	struct an_numa_obj *objs = calloc(res->nclasses ? res->nclasses : 1, sizeof(*objs));
	if (err || !r->threads || !objs) {
		free(objs);
		an_numa_result_free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct nthread *t = i < n->threads.n ? &n->threads.v[i] : NULL;
		const struct ntally *c = i < tb->threads.n ? &tb->threads.v[i] : NULL;
		struct an_numa_thread *d = &r->threads[i];
		d->node = t ? t->node : 0;
		d->pinned = t ? t->pinned : 0;
		if (c) {
			d->accesses = c->accesses;
			d->remote = c->remote;
			if (r->measured && c->seen)
				d->node = c->node; /* where it was sampled last */
		}
	}
	for (size_t i = 0; i < res->nclasses; i++) {
		objs[i].cls = (uint32_t)i;
		objs[i].first_thread = -1;
		objs[i].home = -1;
	}
	for (size_t i = 0; i < tb->objs.n && !err; i++) {
		struct nobj *o = &tb->objs.v[i];
		if (!o->used || !o->accesses || !remap)
			continue;
		struct an_numa_obj *d = &objs[remap[i]];
		if (!d->from) {
			d->from = calloc(3 * (size_t)nodes, sizeof(uint64_t));
			if (!d->from) {
				err = -ENOMEM;
				break;
			}
			d->at = d->from + nodes;
			d->rat = d->at + nodes;
		}
		err = obj_merge(d, o, nodes);
	}
	/* keep the objects with accesses, most remote first */
	size_t k = 0;
	for (size_t i = 0; i < res->nclasses; i++) {
		if (!objs[i].from) {
			free(objs[i].uses);
			free(objs[i].episodes);
			continue;
		}
		struct an_numa_obj *o = &objs[i];
		if (o->nepisodes > 1)
			qsort(o->episodes, o->nepisodes, sizeof(*o->episodes), cmp_episode);
		private_parts(o, &o->shared_pages);
		objs[k++] = *o;
	}
	r->objs = objs;
	r->nobjs = k;
	if (k > 1)
		qsort(r->objs, k, sizeof(*r->objs), cmp_obj);
	if (!err)
		err = find_patterns(r);
	if (err) {
		an_numa_result_free(r);
		return err;
	}
	res->numa = r;
	return 0;
}
