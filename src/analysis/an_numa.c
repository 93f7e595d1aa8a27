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

#include "analysis/an_numa_int.h"
#include "common/mp_error.h"
#include "common/varint.h"


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

int an_numa_topo_copy(struct mp_topo *dst, const struct mp_topo *src)
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

/* n's tables and counts by node, for its topology: 0 or -ENOMEM. */
static int tables_alloc(struct an_numa *n)
{
	size_t nn = (size_t)n->topo.nodes;
	n->model.matrix = calloc(nn * nn, sizeof(uint64_t));
	n->meas.matrix = calloc(nn * nn, sizeof(uint64_t));
	n->model.elsewhere = calloc(nn, sizeof(uint64_t));
	n->meas.elsewhere = calloc(nn, sizeof(uint64_t));
	n->pages_on = calloc(nn, sizeof(uint64_t));
	if (!n->model.matrix || !n->meas.matrix || !n->model.elsewhere || !n->meas.elsewhere || !n->pages_on)
		return -ENOMEM;
	return 0;
}

static void numa_free(struct an_numa *n)
{
	tables_fini(&n->model);
	tables_fini(&n->meas);
	mp_vec_free(&n->threads);
	mp_vec_free(&n->started);
	mp_vec_free(&n->binds);
	mp_hashmap_fini(&n->pages);
	mp_topo_fini(&n->topo);
	free(n->pages_on);
	free(n);
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
		err = an_numa_topo_copy(&n->topo, o->topo);
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
	if (!err)
		err = tables_alloc(n);
	if (err) {
		numa_free(n);
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

int an_numa_init_like(struct an_state *st, const struct an_state *like)
{
	const struct an_numa *l = like->numa;
	if (!l)
		return 0;
	struct an_numa *n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->o = l->o; /* (as an_numa_init settled them) */
	n->host_frames = l->host_frames;
	n->model.start_time = n->meas.start_time = UINT64_MAX;
	mp_hashmap_init(&n->pages);
	int err = an_numa_topo_copy(&n->topo, &l->topo);
	if (!err)
		err = tables_alloc(n);
	if (err) {
		numa_free(n);
		return err;
	}
	st->numa = n;
	return 0;
}

void an_numa_fini(struct an_state *st)
{
	if (!st->numa)
		return;
	numa_free(st->numa);
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

/* --- processes replayed apart (an_procs.c) ------------------------------ */

int an_numa_wants_frames(const struct an_state *st)
{
	return st->numa && st->numa->host_frames;
}

int an_numa_frames(const struct an_state *st)
{
	return an_numa_wants_frames(st) && st->phys;
}

uint64_t an_numa_pages_held(const struct an_state *st)
{
	return st->numa ? st->numa->pages.n : 0;
}

int an_numa_pages_fit(const struct an_state *st, uint64_t n)
{
	return !st->numa || n <= an_bound(st, AN_PLACED_FLOOR, AN_PLACED_PER_KIB);
}

/* Object o of a process's state into w, the file's, after the processes
 * before it: its runs go on w's timeline where the serial replay puts
 * them, after w's (the first starts a run of its own: no two processes
 * have a thread in common, an_procs.c), the episodes up to w's cap. */
static void obj_fold(struct an_state *f, struct nobj *w, const struct nobj *o, unsigned nodes, const uint32_t *tmap)
{
	w->accesses += o->accesses;
	w->remote += o->remote;
	w->writes += o->writes;
	for (unsigned k = 0; k < 3 * nodes; k++)
		w->from[k] += o->from[k];
	if (w->first_thread < 0 && o->first_thread >= 0) {
		w->first_thread = tmap[o->first_thread];
		w->home = o->home; /* (the later processes' threads are not w's first) */
	}
	for (size_t i = 0; i < o->uses.n; i++) {
		struct an_numa_use u = o->uses.v[i];
		u.thread = tmap[u.thread];
		if (mp_vec_push(&w->uses, u)) {
			f->oom = 1;
			return;
		}
	}
	if (!o->runs)
		return;
	if (w->in_run && o->eps.n) {
		if (o->eps.v[0].first_epoch > w->cur_last_epoch)
			w->handoffs++;
		else
			w->overlaps++;
	}
	w->runs += o->runs;
	w->handoffs += o->handoffs;
	w->overlaps += o->overlaps;
	/* (each of o's episodes whole: the serial replay's count of runs is
	 * past the cap from the first it does not keep) */
	for (size_t k = 0; k < o->eps.n && w->eps.n < AN_NUMA_MAX_EPISODES; k++) {
		struct an_numa_episode e = o->eps.v[k];
		e.thread = tmap[e.thread];
		if (mp_vec_push(&w->eps, e)) {
			f->oom = 1;
			return;
		}
	}
	w->in_run = 1;
	w->cur_thread = tmap[o->cur_thread];
	w->cur_last_epoch = o->cur_last_epoch;
}

static void tables_fold(struct an_state *f, struct an_numa *n, struct ntables *d, const struct ntables *s,
			const uint32_t *cmap, const uint32_t *tmap)
{
	const unsigned nn = n->topo.nodes;
	if (s->start_time < d->start_time)
		d->start_time = s->start_time;
	d->hits += s->hits;
	d->accesses += s->accesses;
	d->remote += s->remote;
	for (size_t k = 0; k < (size_t)nn * nn; k++)
		d->matrix[k] += s->matrix[k];
	for (unsigned k = 0; k < nn; k++)
		d->elsewhere[k] += s->elsewhere[k];
	for (size_t i = 0; i < s->threads.n; i++) {
		const struct ntally *c = &s->threads.v[i];
		struct ntally *t = tally_st(f, d, tmap[i]);
		if (!t)
			return;
		t->accesses += c->accesses;
		t->remote += c->remote;
		if (c->seen) {
			t->node = c->node;
			t->seen = 1;
		}
	}
	for (size_t i = 0; i < s->objs.n && !f->oom; i++) {
		const struct nobj *o = &s->objs.v[i];
		struct nobj *w = o->used ? obj_st(f, n, d, cmap[i]) : NULL;
		if (w)
			obj_fold(f, w, o, nn, tmap);
	}
}

int an_numa_fold(struct an_state *f, const struct an_state *st, const uint32_t *cmap, const uint32_t *tmap)
{
	struct an_numa *d = f->numa;
	const struct an_numa *s = st->numa;
	if (!d || !s)
		return 0;
	/* each thread's placement, under the file's index */
	for (size_t i = 0; i < s->threads.n; i++) {
		struct nthread *t = thread_st(f, d, tmap[i]);
		if (!t)
			return -ENOMEM;
		*t = s->threads.v[i];
	}
	d->calls_affinity += s->calls_affinity;
	d->calls_policy += s->calls_policy;
	d->npages += s->npages;
	for (unsigned k = 0; k < d->topo.nodes; k++)
		d->pages_on[k] += s->pages_on[k];
	d->samples_unknown += s->samples_unknown;
	d->samples_simulated += s->samples_simulated;
	tables_fold(f, d, &d->model, &s->model, cmap, tmap);
	tables_fold(f, d, &d->meas, &s->meas, cmap, tmap);
	return f->oom ? -ENOMEM : 0;
}
