// SPDX-License-Identifier: MIT
/*
 * Sampled accesses: page faults (record --source faults) and PMU samples
 * (record --source pmu), attributed to objects (see an_samples.h). The
 * inst source's CPU-time samples, which are no accesses, are handed to
 * an_cputime.c before the replay.
 *
 * Samples carry CLOCK_MONOTONIC time but no epoch. The replay merges a
 * process's streams in epoch order and calls an_samples_until before each
 * event with the event's time: samples earlier than it (against the running
 * maximum of event times, so the order stays monotonic) are applied to the
 * object map as it stands then. ALLOC and FREE times may repeat an earlier
 * clock reading (the runtime reads the clock every 8th allocation event),
 * which only ever makes an event look earlier: an allocation is then never
 * placed after a touch of its block; a fault within a few allocation events
 * before a free of the same block may be placed after the free.
 */
#include "analysis/an_samples.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_datasrc.h"
#include "common/mp_error.h"
#include "common/varint.h"

struct an_sample {
	uint64_t time, addr, ip;
	uint64_t data_src, weight, period, phys;
	uint32_t pid, tid, cpu, proc;
	uint32_t ev;
	uint8_t is_fault, major;
};

struct an_sdef {
	unsigned kind;
	uint64_t period;
};

struct an_smp {
	MP_VEC(struct an_sample) v;
	MP_VEC(struct an_sdef) defs; /* by event index */
	size_t *lo, *hi, *next; /* per process: its samples [lo, hi), next to apply */
	uint64_t *tmax; /* per process: latest event time seen by the replay */
	uint64_t *epoch; /* per process: the replay's epoch before that event (for NUMA runs) */
	uint8_t *started; /* per process: past its start-up events */
	MP_VEC(struct an_touch) pages;
	MP_VEC(uint32_t) page_proc; /* process of each page (pid alone is reused by exec) */
	struct mp_hashmap page_index;
	MP_VEC(int) cpu_node;
	uint64_t page_size;
	uint64_t lost;
	int warned, over;
};

static struct an_smp *smp_get(struct an_state *st)
{
	if (!st->smp) {
		st->smp = calloc(1, sizeof(*st->smp));
		if (!st->smp) {
			st->oom = 1;
			return NULL;
		}
		mp_hashmap_init(&st->smp->page_index);
		st->smp->page_size = 4096;
		char buf[4096];
		const char *v = trace_reader_meta(st->reader, "page_size", buf, sizeof(buf));
		if (v) {
			uint64_t ps = strtoull(v, NULL, 10);
			if (ps >= 1024 && ps <= (1u << 30) && !(ps & (ps - 1)))
				st->smp->page_size = ps;
		}
		v = trace_reader_meta(st->reader, "cpu_nodes", buf, sizeof(buf));
		for (const char *p = v; p && *p;) {
			char *end;
			long n = strtol(p, &end, 10);
			if (end == p || mp_vec_push(&st->smp->cpu_node, (int)n))
				break;
			p = *end == ',' ? end + 1 : end;
			if (*end != ',')
				break;
		}
	}
	return st->smp;
}

void an_samples_chunk(struct an_state *st, const struct trace_chunk *c)
{
	struct an_smp *m = smp_get(st);
	if (!m)
		return;
	struct trace_dec d;
	struct trace_rec r;
	int k;
	trace_dec_init(&d, c->data, c->len);
	while ((k = trace_dec_next(&d, &r)) == 1) {
		if (r.cls != MP_REC_EVENT)
			continue;
		const uint64_t *f = r.f;
		struct an_sample s = { 0 };
		switch (r.event) {
		case MP_EV_FAULT:
			s = (struct an_sample){ .time = f[0], .cpu = (uint32_t)f[1], .pid = (uint32_t)f[2],
						.tid = (uint32_t)f[3], .addr = f[4], .ip = f[5], .is_fault = 1,
						.major = !!(f[6] & MP_FAULT_MAJOR), .period = 1 };
			break;
		case MP_EV_SAMPLE:
			s = (struct an_sample){ .time = f[0], .cpu = (uint32_t)f[1], .pid = (uint32_t)f[2],
						.tid = (uint32_t)f[3], .addr = f[4], .ip = f[5], .ev = (uint32_t)f[6],
						.period = f[7], .data_src = f[8], .weight = f[9],
						.phys = f[10] };
			break;
		case MP_EV_LOST:
			m->lost += f[2];
			continue;
		case MP_EV_SAMPLE_DEF: {
			if (f[1] >= 64)
				continue; /* a session opens a handful of events */
			while (m->defs.n <= f[1])
				if (mp_vec_push(&m->defs, ((struct an_sdef){ 0 }))) {
					st->oom = 1;
					return;
				}
			m->defs.v[f[1]] = (struct an_sdef){ .kind = (unsigned)f[2], .period = f[5] };
			continue;
		}
		default:
			continue;
		}
		if (m->v.n >= an_bound(st, AN_SAMPLES_FLOOR, AN_SAMPLES_PER_KIB)) {
			/* (a few bytes of zstd frame make a million samples) */
			st->res->damaged |= AN_DAMAGE_PARTIAL;
			if (!m->over++)
				an_warn(st,
					"more than %llu samples, more than a file of %llu bytes can hold (a damaged "
					"file?): the rest are left out",
					(unsigned long long)m->v.n, (unsigned long long)st->file_bytes);
			return;
		}
		if (mp_vec_push(&m->v, s)) {
			st->oom = 1;
			return;
		}
	}
	if (k < 0 && !m->warned) {
		m->warned = 1;
		an_warn(st, "a samples chunk has a malformed record; the rest of that chunk is skipped");
	}
}

static int by_proc_time(const void *a, const void *b)
{
	const struct an_sample *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

uint32_t an_samples_proc(const struct an_state *st, uint32_t pid, uint64_t time)
{
	uint32_t best = UINT32_MAX, first = UINT32_MAX;
	for (size_t i = 0; i < st->procs.n; i++) {
		const struct an_proc *p = &st->procs.v[i];
		if (p->pid != pid)
			continue;
		if (first == UINT32_MAX || p->start_time < st->procs.v[first].start_time)
			first = (uint32_t)i;
		if (p->start_time <= time && (best == UINT32_MAX || p->start_time >= st->procs.v[best].start_time))
			best = (uint32_t)i;
	}
	return best != UINT32_MAX ? best : first;
}

/* The inst source's CPU-time samples are no accesses: they go to
 * an_cputime.c, the rest stay. When the recording's events were all
 * CPU time (its SAMPLE_DEFs say so), its lost records are theirs, and
 * nothing is left here: the replay then runs as without samples. 0 or
 * -ENOMEM. */
static int cpu_apart(struct an_state *st, struct an_smp *m)
{
	int cpu_only = m->defs.n > 0;
	for (size_t i = 0; i < m->defs.n; i++) {
		cpu_only &= m->defs.v[i].kind == MP_SK_CPU_TIME;
		if (m->defs.v[i].kind == MP_SK_CPU_TIME && an_cpu_def(st, m->defs.v[i].period, 0))
			return -ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < m->v.n; i++) {
		const struct an_sample *s = &m->v.v[i];
		const struct an_sdef *d = !s->is_fault && s->ev < m->defs.n ? &m->defs.v[s->ev] : NULL;
		if (!d || d->kind != MP_SK_CPU_TIME)
			m->v.v[k++] = *s;
		else if (an_cpu_take(st, s->pid, s->time, s->ip, s->period ? s->period : d->period))
			return -ENOMEM;
	}
	m->v.n = k;
	if (cpu_only && !k) {
		if (an_cpu_def(st, 0, m->lost))
			return -ENOMEM;
		an_samples_free(st);
	}
	return 0;
}

int an_samples_assign(struct an_state *st)
{
	if (st->smp && cpu_apart(st, st->smp))
		return -ENOMEM;
	struct an_smp *m = st->smp;
	if (!m)
		return 0;
	st->res->samples_lost = m->lost;
	size_t np = st->procs.n ? st->procs.n : 1;
	m->lo = calloc(np, sizeof(size_t));
	m->hi = calloc(np, sizeof(size_t));
	m->next = calloc(np, sizeof(size_t));
	m->tmax = calloc(np, sizeof(uint64_t));
	m->epoch = calloc(np, sizeof(uint64_t));
	m->started = calloc(np, 1);
	if (!m->lo || !m->hi || !m->next || !m->tmax || !m->epoch || !m->started)
		return -ENOMEM;
	/* a pid's images are few: a linear scan per distinct pid, cached */
	uint32_t last_pid = 0, last_proc = UINT32_MAX;
	uint64_t last_time = 0;
	for (size_t i = 0; i < m->v.n; i++) {
		struct an_sample *s = &m->v.v[i];
		if (!(s->pid == last_pid && s->time == last_time && last_proc != UINT32_MAX)) {
			last_proc = an_samples_proc(st, s->pid, s->time);
			last_pid = s->pid;
			last_time = s->time;
		}
		s->proc = last_proc;
	}
	if (m->v.n) /* qsort must not get the NULL of an empty vector */
		qsort(m->v.v, m->v.n, sizeof(*m->v.v), by_proc_time);
	size_t i = 0;
	while (i < m->v.n) {
		uint32_t p = m->v.v[i].proc;
		size_t j = i;
		while (j < m->v.n && m->v.v[j].proc == p)
			j++;
		if (p == UINT32_MAX)
			st->res->samples_unplaced += j - i;
		else
			m->lo[p] = m->next[p] = i, m->hi[p] = j;
		i = j;
	}
	if (st->res->samples_unplaced)
		an_warn(st, "%llu samples came from processes without memprism's runtime (static binaries?): "
			    "not attributed",
			(unsigned long long)st->res->samples_unplaced);
	return 0;
}

static struct an_ip *ip_get(struct an_state *st, uint32_t proc, uint64_t ip)
{
	uint32_t i = an_ip_get(st, proc, UINT32_MAX, ip);
	return i == UINT32_MAX ? NULL : &st->ips.v[i];
}

static void fault_add(struct an_faults *f, const struct an_sample *s, int first)
{
	f->faults++;
	f->major += s->major;
	f->pages += (uint64_t)first;
}

/* 1 if (proc, page, row) is touched for the first time; records the page. */
static int page_first(struct an_state *st, struct an_smp *m, const struct an_sample *s, uint32_t cls,
		      uint32_t thread)
{
	uint64_t page = s->addr & ~(m->page_size - 1);
	uint64_t key = mp_hash64(page ^ mp_hash64(((uint64_t)s->proc << 32) | cls)) | 1;
	for (;;) {
		uint64_t *v = mp_hashmap_get(&m->page_index, key);
		if (!v)
			break;
		struct an_touch *pg = &m->pages.v[*v];
		if (pg->addr == page && pg->cls == cls && m->page_proc.v[*v] == s->proc) {
			pg->faults++;
			return 0;
		}
		key = mp_hash64(key) | 1; /* a collision: probe on */
	}
	int node = s->cpu < m->cpu_node.n ? m->cpu_node.v[s->cpu] : 0;
	struct an_touch pg = { .addr = page, .pid = s->pid, .tid = s->tid, .cpu = s->cpu, .node = node,
			      .cls = cls, .thread = thread, .time = s->time, .ip = s->ip, .faults = 1 };
	if (mp_vec_push(&m->pages, pg) || mp_vec_push(&m->page_proc, s->proc) ||
	    mp_hashmap_put(&m->page_index, key, m->pages.n - 1)) {
		st->oom = 1;
		return 0;
	}
	return 1;
}

static void mem_add(struct an_mem *a, const struct mp_outcome *o)
{
	uint64_t w = o->weight;
	a->refs += w;
	a->level[o->level < MP_LVL_COUNT ? o->level : 0] += w;
	a->tlb[o->tlb < MP_TLB_COUNT ? o->tlb : 0] += w;
	if (o->tlb == MP_TLB_WALK)
		a->walks += w;
	if (o->remote)
		a->remote += w;
	if (o->latency) {
		a->latency_sum += (uint64_t)o->latency * w;
		a->latency_n += w;
		unsigned b = 0;
		while (b + 1 < AN_LAT_BUCKETS && (2u << b) <= o->latency)
			b++;
		a->latency_hist[b] += w;
	}
}

static void apply(struct an_state *st, uint32_t pi, const struct an_sample *s)
{
	struct an_proc *p = &st->procs.v[pi];
	struct an_smp *m = st->smp;
	if (st->opts->roi && p->roi_depth == 0) {
		st->res->samples_outside_roi++;
		return;
	}
	uint64_t lo, hi;
	struct an_obj *o = an_objmap_find_safe(&p->map, s->addr, &lo, &hi);
	uint32_t cls = o ? o->cls : st->unknown_cls;
	uint32_t th = an_thread_get(st, s->pid, s->tid);
	struct an_ip *ip = ip_get(st, pi, s->ip);
	if (st->oom || !ip)
		return;
	struct an_class *c = &st->classes.v[cls];
	an_class_add_thread(c, th);
	if (s->is_fault) {
		int first = page_first(st, m, s, cls, th);
		fault_add(&c->faults, s, first);
		fault_add(&st->threads.v[th].faults, s, first);
		fault_add(&ip->faults, s, first);
		fault_add(&st->res->faults, s, first);
		return;
	}
	struct mp_outcome out;
	unsigned kind = s->ev < m->defs.n ? m->defs.v[s->ev].kind : 0;
	/* period 0 in a sample: the event's fixed period (its SAMPLE_DEF) */
	uint64_t period = s->period ? s->period : s->ev < m->defs.n ? m->defs.v[s->ev].period : 1;
	mp_outcome_from_sample(kind, s->data_src, s->weight, period, &out);
	mem_add(&c->mem, &out);
	mem_add(&st->threads.v[th].mem, &out);
	mem_add(&ip->mem, &out);
	mem_add(&st->res->mem_total, &out);
	st->res->mem_origin = AN_MEM_MEASURED;
	st->res->samples++;
	if (st->numa) {
		int store = kind == MP_SK_PEBS_STORE || kind == MP_SK_PEBS_STLB_STORE ||
			    mp_data_src_op(s->data_src) == 2;
		struct an_numa_sample ns = { .thread = th, .cls = cls, .cpu = s->cpu, .write = store,
					     .time = s->time, .epoch = m->epoch[pi], .addr = s->addr,
					     .phys = s->phys, .out = &out };
		an_numa_sample(st, &ns);
	}
}

void an_samples_until(struct an_state *st, uint32_t pi, uint64_t t, unsigned event, uint64_t epoch)
{
	struct an_smp *m = st->smp;
	if (!m || !m->next)
		return;
	if (epoch > m->epoch[pi])
		m->epoch[pi] = epoch;
	if (!m->started[pi]) {
		/* Faults before and while the runtime starts (the dynamic loader,
		 * relocations) wait for the start-up description (the mappings
		 * present at start, modules, TLS blocks): those objects existed
		 * then too. */
		if (event == MP_EV_MAP_INITIAL || event == MP_EV_MODULE || event == MP_EV_TLS_BLOCK ||
		    event == MP_EV_THREAD_START || event == MP_EV_THREAD_NAME) {
			if (t > m->tmax[pi])
				m->tmax[pi] = t;
			return;
		}
		m->started[pi] = 1;
	}
	if (t != UINT64_MAX) {
		if (t > m->tmax[pi])
			m->tmax[pi] = t;
		t = m->tmax[pi];
	}
	while (m->next[pi] < m->hi[pi] && (m->v.v[m->next[pi]].time < t || t == UINT64_MAX)) {
		apply(st, pi, &m->v.v[m->next[pi]]);
		m->next[pi]++;
	}
}

void an_samples_merge_class(struct an_class *into, const struct an_class *from)
{
	into->faults.faults += from->faults.faults;
	into->faults.major += from->faults.major;
	into->faults.pages += from->faults.pages;
}

void an_samples_merge_ip(struct an_function *into, const struct an_ip *from)
{
	into->faults.faults += from->faults.faults;
	into->faults.major += from->faults.major;
	into->faults.pages += from->faults.pages;
}

int an_samples_finish(struct an_state *st, struct an_result *r, const uint32_t *remap)
{
	struct an_smp *m = st->smp;
	if (!m)
		return 0;
	for (size_t i = 0; i < m->pages.n; i++) {
		struct an_touch *pg = &m->pages.v[i];
		pg->cls = pg->cls < st->classes.n && remap ? remap[pg->cls] : 0;
	}
	r->touches = m->pages.v;
	r->ntouches = m->pages.n;
	m->pages.v = NULL;
	m->pages.n = m->pages.cap = 0;
	if (r->samples_lost)
		an_warn(st, "%llu samples were lost (the kernel's rings were full): figures are lower bounds",
			(unsigned long long)r->samples_lost);
	return 0;
}

void an_samples_free(struct an_state *st)
{
	struct an_smp *m = st->smp;
	if (!m)
		return;
	mp_vec_free(&m->v);
	mp_vec_free(&m->defs);
	free(m->lo);
	free(m->hi);
	free(m->next);
	free(m->tmax);
	free(m->epoch);
	free(m->started);
	mp_vec_free(&m->pages);
	mp_vec_free(&m->page_proc);
	mp_hashmap_fini(&m->page_index);
	mp_vec_free(&m->cpu_node);
	free(m);
	st->smp = NULL;
}
