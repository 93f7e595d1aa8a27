// SPDX-License-Identifier: MIT
/*
 * The memory-system model fed by the replay: each attributed access is
 * split into cache-line references and run through src/model as its thread's
 * core would make it; the outcomes (hit level, TLB, walks, latency) add up
 * per object, thread and code address, DRAM writes go to the object that
 * dirtied the line, and every page that missed the first-level DTLB gets a
 * row of its own for the TLB view (PTAT's per-page miss distribution).
 *
 * The model sees every access, inside a --roi region or not (the caches
 * must be warm as they were), and counts only what --roi selects. Dirty
 * lines left in the caches when the program ends were never written to
 * DRAM during the run and are not counted.
 *
 * Each process of the file (a forked child, an exec'd image) runs on a
 * machine of its own, cold when it starts, as an MPI rank on its own node
 * would: its figures are its own, not raised by what the processes
 * replayed before it left in the caches, and its dirty lines left at its
 * end are not counted either. Burst sampling keeps one machine for the
 * file: its footprint estimates (an_model_burst.c) are the file's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_model_int.h"


/* owner_of's way past the stream's cache of owners: the index, or a new
 * owner, into *slot. */
__attribute__((noinline)) uint32_t anm_owner_find(struct an_state *st, struct an_model *am, struct an_stream *s,
						 uint32_t row, uint32_t fn, struct an_own_slot *slot)
{
	if (row == UINT32_MAX)
		return MP_MODEL_NO_OWNER;
	const struct owner want = { row, s->thread, fn };
	uint64_t key = mp_hash64(((uint64_t)s->thread << 32 | row) ^ mp_hash64((uint64_t)fn + 1)) | 1;
	uint64_t *v;
	/* probe on past another owner with the same hash */
	while ((v = mp_hashmap_get(&am->owner_index, key))) {
		const struct owner *o = &am->owners.v[*v];
		if (o->row == row && o->thread == want.thread && o->fn == fn)
			break;
		key = mp_hash64(key) | 1;
	}
	uint32_t idx;
	if (v) {
		idx = (uint32_t)*v;
	} else {
		if (am->owners.n >= MP_MODEL_NO_OWNER || mp_vec_push(&am->owners, want) ||
		    mp_hashmap_put(&am->owner_index, key, am->owners.n - 1)) {
			st->oom = 1;
			return MP_MODEL_NO_OWNER;
		}
		idx = (uint32_t)(am->owners.n - 1);
	}
	*slot = (struct an_own_slot){ row, fn, idx + 1 };
	return idx;
}



/* A DRAM write of a line whose owner (owner_of) last wrote it: charged to
 * that object, thread and code address; under burst sampling the object's
 * row is the writing thread's part, so the write is scaled by that thread's
 * factor, not by that of the thread whose access evicted the line. */
static void on_writeback(void *arg, uint32_t owner, uint64_t line, int physical)
{
	struct an_model *am = arg;
	struct an_state *st = am->st;
	if (owner >= am->owners.n)
		return; /* MP_MODEL_NO_OWNER: a paging-structure line */
	const struct owner *ow = &am->owners.v[owner];
	uint32_t cls = st->parts_on ? st->parts.v[ow->row].cls : ow->row;
	if (st->opts->on_dram && am->cur) {
		struct an_dram d = { .proc = am->cur->proc,
				     .thread = am->cur->thread,
				     .cls = cls,
				     .vaddr = line,
				     .time = am->cur->dec.time,
				     .write = 1,
				     .counted = am->counting };
		if (physical) {
			/* a physical line: its virtual address from the reverse page table */
			uint32_t pid;
			d.paddr = line;
			d.vaddr = 0;
			if (an_phys_reverse(st, line, d.time, &pid, &d.vaddr))
				for (size_t i = 0; i < st->procs.n; i++)
					if (st->procs.v[i].pid == pid)
						d.proc = (uint32_t)i;
		}
		st->opts->on_dram(st->opts->hook_arg, &d);
	}
	if (!am->counting)
		return;
	if (am->left) { /* (only under burst sampling: parts are on) */
		const int turned = mp_model_wb_turned(am->m);
		struct an_burst_tally *t[3];
		anm_owner_tallies(am, owner, t);
		for (int r = 0; r < 3 && t[r]; r++)
			*(turned ? &t[r]->dram_writes_left : &t[r]->dram_writes_left_p) += 1;
		return;
	}
	/* (scaled by an_model_scale_sets when sampling sets) */
	st->threads.v[ow->thread].mem.dram_writes++;
	if (ow->fn)
		st->ips.v[ow->fn - 1].mem.dram_writes++;
	if (st->parts_on) {
		st->parts.v[ow->row].mem.dram_writes++; /* the total is the parts' sum (an_bursts_apply) */
		return;
	}
	st->classes.v[cls].mem.dram_writes++;
	st->res->mem_total.dram_writes++;
}

void anm_own_writebacks(struct an_model *am)
{
	mp_model_set_writeback(am->m, on_writeback, am);
}

/* A machine of its own for the coming process (an_model_proc_begin), set
 * up as an_model_init set up the first: set sampling and the writeback
 * hook. 0 or a negative errno (the old machine stays). */
static int machine_renew(struct an_state *st, struct an_model *am)
{
	struct mp_model *m = mp_model_new(st->opts->machine);
	if (!m)
		return -errno;
	char err[160];
	int e = am->sample_sets > 1 ? mp_model_sample_sets(m, (unsigned)am->sample_sets, err, sizeof(err)) : 0;
	if (e) {
		mp_model_free(m);
		return e;
	}
	mp_model_set_writeback(m, on_writeback, am);
	/* dirty lines left in the old machine are left at its process's end:
	 * never written to DRAM, not counted (as at the end of the run) */
	mp_model_free(am->m);
	am->m = m;
	am->fresh_seq = *mp_model_seq(m);
	st->model_rep.seq = mp_model_seq(m);
	return 0;
}

int an_model_proc_begin(struct an_state *st)
{
	struct an_model *am = st->model;
	/* (burst sampling's estimates are the file's: one machine) */
	if (!am || am->shared)
		return 0;
	anm_tlog_proc(am);
	if (am->nchecks) /* (m is never fed: the checks' machines are the run's) */
		return am->checks_fed ? anm_checks_renew(st, am) : 0;
	if (am->par && !am->beside)
		return anm_par_renew(st, am);
	if (am->beside)
		anm_par_inline(st, am); /* (a cold machine is made here) */
	if (*mp_model_seq(am->m) == am->fresh_seq)
		return 0;
	return machine_renew(st, am);
}

int an_model_init(struct an_state *st)
{
	if (!st->opts->machine)
		return 0;
	struct an_model *am = calloc(1, sizeof(*am));
	if (!am)
		return -ENOMEM;
	am->m = mp_model_new(st->opts->machine);
	if (!am->m) {
		int e = -errno;
		free(am);
		return e;
	}
	am->sample_sets = 1;
	if (st->opts->sample_sets > 1) {
		char err[160];
		int e = mp_model_sample_sets(am->m, st->opts->sample_sets, err, sizeof(err));
		if (e) {
			an_warn(st, "--sample-sets: %s", err);
			mp_model_free(am->m);
			free(am);
			return e;
		}
		am->sample_sets = st->opts->sample_sets;
		st->res->mem_sample_sets = st->opts->sample_sets;
	}
	am->range_tail = mp_model_range_tail_lines(am->m);
	am->range_max = st->opts->max_model_range ? st->opts->max_model_range : AN_MODEL_RANGE_MAX;
	am->hint_sets = mp_model_set_bytes(am->m) >= AN_AHEAD_SET_BYTES;
	am->ncores = mp_model_ncores(am->m);
	am->line = st->opts->machine->line;
	while ((1ull << am->line_shift) < am->line)
		am->line_shift++;
	am->l1_lat = st->opts->machine->l1d.latency;
	for (unsigned i = 0; i < MP_LVL_COUNT; i++)
		am->lat[i] = mp_model_latency(am->m, i);
	am->l1_bucket = am->l1_lat ? 31u - (unsigned)__builtin_clz(am->l1_lat) : 0;
	if (am->l1_bucket >= AN_LAT_BUCKETS)
		am->l1_bucket = AN_LAT_BUCKETS - 1;
	am->rule_hits = calloc(st->opts->npage_rules + 1, sizeof(*am->rule_hits));
	if (!am->rule_hits) {
		mp_model_free(am->m);
		free(am);
		return -ENOMEM;
	}
	am->count_apart = am->sample_sets > 1 || st->parts_on;
	am->rows_max = an_bound(st, AN_PAGE_ROWS_FLOOR, AN_PAGE_ROWS_PER_KIB);
	if (st->parts_on) {
		/* twice the LLC's lines, of which 1 in 2^AN_SEEN_SAMPLE marked,
		 * in a bitmap 16 times that (linear counting stays within ~1%) */
		const struct mp_machine *mm = st->opts->machine;
		uint64_t limit = (2 * (mm->llc.size / mm->line) >> AN_SEEN_SAMPLE) + 1;
		am->seen_log2 = 12;
		while (am->seen_log2 < AN_SEEN_MAX_LOG2 && (1ull << am->seen_log2) < 16 * limit)
			am->seen_log2++;
		am->seen_limit = limit < (1ull << am->seen_log2) / 16 ? limit : (1ull << am->seen_log2) / 16;
		am->seen = an_table_calloc((size_t)1 << (am->seen_log2 - 6), sizeof(uint64_t));
		/* the same for the objects' pages, all marked */
		am->span_limit = 2 * (mm->llc.size >> 12) + 1;
		am->span_log2 = 12;
		while (am->span_log2 < AN_SEEN_MAX_LOG2 && (1ull << am->span_log2) < 16 * am->span_limit)
			am->span_log2++;
		am->span = an_table_calloc((size_t)1 << (am->span_log2 - 6), sizeof(uint64_t));
		if (!am->span)
			am->span_over = 1; /* (no bound: nothing is weighed) */
		const uint64_t entries = mm->stlb.entries ? mm->stlb.entries : mm->dtlb[MP_PAGE_4K].entries;
		am->wspan_limit = entries + 1;
		for (am->wspan_cap = 64; am->wspan_cap < 2 * am->wspan_limit; am->wspan_cap *= 2)
			;
		am->wspan = an_table_calloc(am->wspan_cap, sizeof(*am->wspan));
		am->wspan_core_n = calloc(am->ncores, sizeof(*am->wspan_core_n));
		if (!am->wspan || !am->wspan_core_n) {
			free(am->wspan);
			am->wspan = NULL;
			am->wspan_over = 1;
		}
	}
	/* (not under --roi, where the fill may have been counted and the hit
	 * not, nor with a NUMA placement, which makes fills remote after the
	 * model has called them local) */
	am->burst_on = (double)st->burst_on;
	am->burst_off = (double)st->burst_off;
	am->first_on = st->burst_on && st->burst_off && !st->opts->roi && !st->opts->numa;
	if (am->first_on)
		mp_model_track_same(am->m, anm_same_part);
	if ((st->parts_on && !am->seen) || (am->first_on && mp_model_track_first(am->m, anm_on_first, anm_on_first_walk, am))) {
		free(am->seen);
		free(am->span);
		free(am->wspan);
		mp_model_free(am->m);
		free(am->rule_hits);
		free(am);
		return -ENOMEM;
	}
	mp_hashmap_init(&am->owner_index);
	am->st = st;
	st->model = am;
	int e = anm_checks_init(st, am);
	if (e) {
		an_model_fini(st);
		return e;
	}
	anm_tlog_init(st, am);
	mp_model_set_writeback(am->m, on_writeback, am);
	am->shared = st->parts_on;
	am->fresh_seq = *mp_model_seq(am->m);
	st->model_rep = (struct an_model_rep){ ~(am->line - 1), mp_model_seq(am->m), 0 };
	st->res->mem_origin = AN_MEM_MODELLED;
	return 0;
}

void an_model_fini(struct an_state *st)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	mp_model_par_free(am->par); /* (first: a worker may have m, lent) */
	mp_model_free(am->m);
	free(am->pend);
	anm_checks_fini(am);
	an_tlog_free(am->tlog);
	free(am->rule_hits);
	mp_vec_free(&am->cls_shift);
	mp_vec_free(&am->cls_rule);
	mp_vec_free(&am->owners);
	mp_vec_free(&am->found);
	mp_hashmap_fini(&am->owner_index);
	free(am->seen);
	free(am->span);
	free(am->wspan);
	free(am->wspan_core_n);
	free(am->cls_seen);
	free(am->thread_pages);
	for (int k = 0; k < AN_TALLY_ROWS; k++)
		free(am->tally[k].v);
	free(am->rows);
	free(am);
	st->model = NULL;
}


/* The page size of a class: the first what-if rule whose pattern is in its
 * label, else the --pages default, else AS_MAPPED (4 KiB, or 2 MiB for pages
 * the pagemap recorded in a transparent huge page). Heap classes are
 * labelled here, early, for it. */
unsigned anm_class_shift(struct an_state *st, struct an_model *am, uint32_t cls)
{
	while (am->cls_shift.n <= cls)
		if (mp_vec_push(&am->cls_shift, 0)) {
			st->oom = 1;
			return 12;
		}
	uint8_t s = am->cls_shift.v[cls];
	if (s)
		return s;
	const struct an_opts *o = st->opts;
	s = (uint8_t)(o->page_shift ? o->page_shift : AS_MAPPED);
	for (size_t i = 0; i < o->npage_rules; i++)
		if (an_sites_may_match(st, cls, o->page_rules[i].pattern)) {
			s = (uint8_t)o->page_rules[i].shift;
			am->rule_hits[i]++;
			if (mp_vec_push(&am->cls_rule, ((uint64_t)cls << 16) | (i + 1)))
				st->oom = 1;
			break;
		}
	am->cls_shift.v[cls] = s;
	return s;
}

void an_model_drop_machine(struct an_state *st)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	mp_model_free(am->m);
	am->m = NULL;
}

int an_model_rules_fold(struct an_state *f, const struct an_state *st, const uint32_t *cmap)
{
	struct an_model *fm = f->model;
	const struct an_model *am = st->model;
	if (!fm || !am)
		return 0;
	/* in the order the process's classes met their rules, after the
	 * processes before it, each class once (where the serial replay
	 * decides it): a class's rule follows from what the class is, its
	 * label or its stack's frames, so every state that met it decided
	 * alike (a state symbolizes a stack in its own process's modules, the
	 * serial replay in those of the first process that made it: one
	 * image's, the same at those addresses) */
	for (size_t k = 0; k < am->cls_rule.n; k++) {
		const uint64_t e = am->cls_rule.v[k];
		const uint32_t from = (uint32_t)(e >> 16), cls = cmap[from];
		while (fm->cls_shift.n <= cls)
			if (mp_vec_push(&fm->cls_shift, 0))
				return -ENOMEM;
		if (fm->cls_shift.v[cls])
			continue;
		fm->cls_shift.v[cls] = am->cls_shift.v[from];
		fm->rule_hits[(e & 0xffff) - 1]++;
		if (mp_vec_push(&fm->cls_rule, (uint64_t)cls << 16 | (e & 0xffff)))
			return -ENOMEM;
	}
	return 0;
}

/* mem_count under set sampling. L1 is modelled for every line, so its hits
 * count as in a full run; an L1 miss of a sampled line counts in full and
 * apart (miss_*), one of a line outside the sample only as unmodelled, and
 * an_model_finish scales each row's modelled misses up to all its misses.
 * A walk load outside the sample that misses L1 never reaches DRAM in the
 * model, and walk loads fall evenly in and out of the sample (page tables
 * are dense), so walk_dram is scaled by n here. (Apart from mem_count,
 * whose plain increments a full run keeps: a weighted form cost it 5%.) */
static void mem_count_sampled(struct an_mem *m, const struct mp_model_out *o, uint64_t n)
{
	m->refs++;
	m->tlb[o->tlb]++;
	if (o->tlb == MP_TLB_WALK) {
		m->walks++;
		m->walk_refs += o->walk_refs;
		m->walk_dram += n * o->walk_dram;
	}
	if (o->level == MP_LVL_UNKNOWN) {
		m->miss_unmodelled++;
		return;
	}
	m->level[o->level]++;
	m->dram_reads += o->level == MP_LVL_LOCAL_DRAM || o->level == MP_LVL_REMOTE_DRAM;
	m->remote += o->level == MP_LVL_REMOTE_DRAM || o->level == MP_LVL_REMOTE_CACHE;
	m->latency_sum += o->latency;
	m->latency_n++;
	unsigned b = o->latency ? 31u - (unsigned)__builtin_clz(o->latency) : 0;
	b = b < AN_LAT_BUCKETS ? b : AN_LAT_BUCKETS - 1;
	m->latency_hist[b]++;
	if (o->level != MP_LVL_L1) {
		m->miss_modelled++;
		m->miss_latency_sum += o->latency;
		m->miss_latency_hist[b]++;
	}
}

/* The rows a line reference counts in under set or burst sampling: its
 * object (burst sampling: the object's part of the thread, the total
 * being the parts' sum at the end), thread, the total and its code
 * address. Returns how many. */
static int mem_rows_apart(struct an_state *st, struct an_stream *s, uint32_t cls, struct an_mem *rows[4])
{
	int n = 0;
	rows[n++] = st->parts_on ? &an_part_of(st, s, cls)->mem : &st->classes.v[cls].mem;
	rows[n++] = &st->threads.v[s->thread].mem;
	if (!st->parts_on)
		rows[n++] = &st->res->mem_total;
	if (s->last_fn)
		rows[n++] = &st->ips.v[s->last_fn - 1].mem;
	return n;
}

/* A plain store's line came from DRAM: counted where mem_count_all
 * counted the reference (apart: most references are not one). */
static __attribute__((noinline)) void store_fill_count(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	struct an_mem *rows[4];
	int n = mem_rows_apart(st, s, cls, rows);
	for (int i = 0; i < n; i++)
		rows[i]->store_fills++;
}

/* mem_count_all under set sampling (mem_count_sampled) or burst sampling:
 * apart, so that a full run's path stays as it is. */
static __attribute__((noinline)) void mem_count_apart(struct an_state *st, struct an_stream *s, uint32_t cls,
						      const struct mp_model_out *o)
{
	const uint64_t w = st->model->sample_sets;
	struct an_mem *rows[4];
	int n = mem_rows_apart(st, s, cls, rows);
	for (int i = 0; i < n; i++) {
		if (w > 1)
			mem_count_sampled(rows[i], o, w);
		else
			anm_mem_count(rows[i], o);
	}
}

/* Adds a ranged access's figures, counted apart in *m, to the rows
 * mem_count_all counts in. */
static __attribute__((noinline)) void mem_add_all(struct an_state *st, struct an_stream *s, uint32_t cls,
						  const struct an_mem *m)
{
	struct an_mem *rows[4];
	int n = mem_rows_apart(st, s, cls, rows);
	for (int i = 0; i < n; i++)
		an_mem_add(rows[i], m);
}

/* Per object, thread, total and code address. */
static void mem_count_all(struct an_state *st, struct an_stream *s, uint32_t cls, const struct mp_model_out *o)
{
	if (st->model->count_apart) {
		mem_count_apart(st, s, cls, o);
		return;
	}
	anm_mem_count(&st->classes.v[cls].mem, o);
	anm_mem_count(&st->threads.v[s->thread].mem, o);
	anm_mem_count(&st->res->mem_total, o);
	if (s->last_fn)
		anm_mem_count(&st->ips.v[s->last_fn - 1].mem, o);
}

static void mem_add_l1_hits(struct an_mem *m, uint64_t n, unsigned lat, unsigned bucket)
{
	m->refs += n;
	m->level[MP_LVL_L1] += n;
	m->tlb[MP_TLB_L1_HIT] += n;
	m->latency_sum += n * lat;
	m->latency_n += n;
	m->latency_hist[bucket] += n;
}

/* Set sampling: n L1 misses outside the sample, DTLB hits (what
 * mem_count_sampled counts of one). */
static void mem_add_unmodelled(struct an_mem *m, uint64_t n)
{
	m->refs += n;
	m->tlb[MP_TLB_L1_HIT] += n;
	m->miss_unmodelled += n;
}

void anm_mem_add_fast(struct an_mem *m, const struct an_model *am, uint64_t n, uint64_t unk)
{
	if (n)
		mem_add_l1_hits(m, n, am->l1_lat, am->l1_bucket);
	if (unk)
		mem_add_unmodelled(m, unk);
}

/* Most references of a loop hit L1 and the DTLB (under set sampling,
 * most others miss L1 outside the sample): each is a count added to its
 * class's and code address's (an_model_finish adds them to their rows)
 * and to the stream's, added here to its thread's and the total's. Under
 * burst sampling, the stream's run of one class, added to its part. */
void an_model_flush_fast(struct an_state *st, struct an_stream *s)
{
	uint64_t n = s->fast_n, unk = s->fast_unk;
	if (!n && !unk)
		return;
	s->fast_n = s->fast_unk = 0;
	const struct an_model *am = st->model;
	anm_mem_add_fast(&st->threads.v[s->thread].mem, am, n, unk);
	if (st->parts_on) {
		/* the total is the parts' sum (an_bursts_apply) */
		anm_mem_add_fast(&an_part_of(st, s, s->fast_cls)->mem, am, n, unk);
		return;
	}
	anm_mem_add_fast(&st->res->mem_total, am, n, unk);
}

/* an_model_count_fast for one L1 miss outside the set sample. */
static inline void count_unmodelled(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	an_model_fast_add(st, s, cls, 0, 1);
	if (s->last_fn)
		st->ips.v[s->last_fn - 1].fast_unk++;
}


void an_model_stream_done(struct an_state *st, struct an_stream *s)
{
	if (st->model)
		an_model_flush_fast(st, s);
}

void an_model_finish(struct an_state *st)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	if (am->beside)
		anm_par_inline(st, am);
	else if (am->par)
		anm_par_finish(st, am);
	for (size_t i = 0; i < st->classes.n; i++) {
		struct an_class *c = &st->classes.v[i];
		anm_mem_add_fast(&c->mem, am, c->fast_l1, c->fast_unk);
		c->fast_l1 = c->fast_unk = 0;
	}
	am->llc_filled = mp_model_turned_share(am->m);
	if (anm_checks_result(st, am))
		st->oom = 1;
	anm_tlog_result(st, am);
	if (am->first_on) {
		anm_burst_window(st, am, 1);
		/* (before the flush below takes the lines and their marks) */
		if (mp_model_first_left(am->m, anm_on_left, am))
			am->left_failed = 1; /* (no memory: the lines seen once stay scaled) */
	}
	if (st->parts_on && st->res->skipped_accesses && !st->opts->roi) {
		/* Burst sampling: the dirty lines still cached at the end are
		 * never written back, in a full run as here, but here each
		 * stands for the factor's worth of lines, of which all but one
		 * the skipped accesses would have had written back meanwhile,
		 * where lines come and go (their LLC set has evicted): randacc
		 * with a 32 MiB LLC, ~0.5M lines, the estimate's writes -25%
		 * without them. Where the footprint stays cached, nothing. (Not
		 * under --roi: whose writebacks they would have been is not
		 * known, inside the region or after it.) */
		am->counting = 1;
		am->cur = NULL; /* (no DRAM trace: nothing happened then) */
		am->left = 1;
		/* Which lines come and go: those of sets that have evicted. But
		 * bursts too sparse to fill the LLC (they touched less than it
		 * holds, and fewer than half its sets evicted) make few sets
		 * evict where the program's footprint is beyond the LLC: there
		 * the other sets' lines count too, by the share of the footprint
		 * the LLC cannot hold (dram_writes_left_p, an_fit.evict_p).
		 * randacc's 256 MiB in bursts of 20K in 1M touch 25 MiB, and
		 * the writes came out -88%; all lines counted in full, a 4 MiB
		 * array on a 4 MiB LLC, which the program held, +39,000%. */
		struct an_fit fit;
		an_model_fit(st, &fit);
		if (fit.tracked && !fit.fits && fit.evict_p > 0 && fit.lines <= fit.llc && am->llc_filled < 0.5)
			mp_model_flush_told(am->m);
		else
			mp_model_flush_turned(am->m);
		am->left = 0;
	}
	for (size_t i = 0; i < st->ips.n; i++) {
		anm_mem_add_fast(&st->ips.v[i].mem, am, st->ips.v[i].fast_l1, st->ips.v[i].fast_unk);
		st->ips.v[i].fast_l1 = st->ips.v[i].fast_unk = 0;
	}
}

/* (zero: no slot holds a translation at any time) */
struct an_ph_slot an_ph_none[AN_PH_SLOTS];

const struct an_ph_slot *anm_phys_fill(struct an_state *st, struct an_stream *s, uint64_t a, uint64_t now)
{
	if (s->ph == an_ph_none) {
		struct an_ph_slot *ph = calloc(AN_PH_SLOTS, sizeof(*ph));
		if (!ph) {
			st->oom = 1;
			return NULL;
		}
		s->ph = ph;
	}
	struct an_ph_slot *t = &s->ph[(a >> 12) & (AN_PH_SLOTS - 1)];
	t->vpage = a >> 12;
	t->ok = an_phys_translate(st->phys, st->procs.v[s->proc].pid, a, now, &t->paddr, &t->flags, &t->lo, &t->hi);
	return t;
}


/* The footprint hash of line address a: (line + proc << 48) * AN_SEEN_MUL,
 * (lines are below 2^42), so the next line's is this plus AN_SEEN_MUL. */
static inline uint64_t seen_hash(const struct an_model *am, const struct an_stream *s, uint64_t a)
{
	return ((a >> am->line_shift) ^ (uint64_t)s->proc << 48) * AN_SEEN_MUL;
}

static inline void seen_set(struct an_model *am, uint64_t h)
{
	if (h >> (64 - AN_SEEN_SAMPLE) || !am->seen)
		return;
	h = h >> (64 - AN_SEEN_SAMPLE - am->seen_log2) & ((1ull << am->seen_log2) - 1);
	uint64_t *w = &am->seen[h >> 6], bit = 1ull << (h & 63);
	if (*w & bit)
		return;
	*w |= bit;
	if (++am->seen_marks >= am->seen_limit) {
		free(am->seen);
		am->seen = NULL;
		am->seen_over = 1;
	}
}

/* Line a of class cls missed L1 in a burst: where its object is not in
 * the bound whole, its page, and of a stack the pages from it up to the
 * deepest the bound has (s->span_stack, the page below the lowest). */
static inline void span_touch(struct an_state *st, struct an_model *am, struct an_stream *s, uint32_t cls,
			      uint64_t a)
{
	if ((am->span_over && am->wspan_over) || !am->span || span_whole(st, cls))
		return;
	uint64_t pg = a >> 12;
	if (st->classes.v[cls].kind != AN_KIND_STACK || !s->stack_lo) {
		if (!am->span_over)
			anm_span_set(am, s->proc, pg);
		if (!am->wspan_over) {
			unsigned sh = anm_span_shift(st, am, cls);
			anm_wspan_add(am, s->proc, s->core, sh, a >> sh);
		}
		return;
	}
	uint64_t top = s->span_stack ? s->span_stack : pg + 1;
	for (uint64_t p = pg; p < top && !am->span_over; p++)
		anm_span_set(am, s->proc, p);
	if (pg < top) {
		if (!am->wspan_over)
			anm_wspan_range(am, s->proc, s->core, anm_span_shift(st, am, cls), pg << 12, top << 12);
		s->span_stack = pg;
	}
}

/* Bounded mode: line a missed L1 (its bit in the footprint bitmap). */
static inline void seen_mark(struct an_model *am, const struct an_stream *s, uint64_t a)
{
	am->seen_any = 1;
	seen_set(am, seen_hash(am, s, a));
}

/* The same for the skipped lines of a page (a: its first line's address). */
static void seen_mark_skipped(struct an_model *am, const struct an_stream *s, uint64_t a, uint64_t n, const uint8_t *lv)
{
	am->seen_any = 1;
	uint64_t h = seen_hash(am, s, a);
	for (uint64_t i = 0; i < n; i++, h += AN_SEEN_MUL)
		if (lv[i] == MP_MODEL_SKIPPED)
			seen_set(am, h);
}

/* The first line from i on that a skipping mp_model_access_lines
 * modelled, or n. */
static inline uint64_t next_modelled(const uint8_t *lv, uint64_t i, uint64_t n)
{
	_Static_assert(MP_MODEL_SKIPPED == 0xff, "eight skipped lines are one all-ones word");
	for (uint64_t w; i + 8 <= n; i += 8) {
		memcpy(&w, lv + i, 8);
		if (w != UINT64_MAX)
			break;
	}
	while (i < n && lv[i] == MP_MODEL_SKIPPED)
		i++;
	return i;
}

/* An access longer than the model takes (an_opts.max_model_range): a line
 * at a time, 2^34 lines take hours; a call that long is far likelier a
 * damaged length than a program's. Counted, not modelled; warned once. */
static __attribute__((noinline)) void range_over(struct an_state *st, struct an_model *am, const struct an_stream *s,
						 const struct trace_rec *r, struct mp_outcome *sum)
{
	anm_outcome_init(sum, 12);
	if (!am->range_warned) {
		am->range_warned = 1;
		st->res->damaged |= AN_DAMAGE_PARTIAL;
		an_warn(st,
			"thread %u: an access of %llu bytes at %#llx, over the %llu bytes the model takes in "
			"one (a damaged file?): counted but not modelled",
			s->tid & MP_TID_MASK, (unsigned long long)r->size, (unsigned long long)r->addr,
			(unsigned long long)am->range_max);
	}
}

/* The DRAM requests of one line reference to the on_dram hook: its walk's
 * first (walk_dram of them), then its own fill (dram). */
static __attribute__((noinline)) void dram_hook(struct an_state *st, struct an_stream *s, uint32_t cls, uint64_t a,
						uint64_t paddr, int counted, unsigned walk_dram, int dram)
{
	struct an_dram d = { .proc = s->proc,
			     .thread = s->thread,
			     .cls = cls,
			     .vaddr = a,
			     .paddr = paddr,
			     .time = s->dec.time,
			     .counted = counted };
	d.walk = 1;
	for (unsigned w = 0; w < walk_dram; w++)
		st->opts->on_dram(st->opts->hook_arg, &d);
	d.walk = 0;
	if (dram)
		st->opts->on_dram(st->opts->hook_arg, &d);
}

/* A line reference that did not hit L1 with its translation at hand
 * (model_access): the lookahead armed, NUMA's remote fills, the
 * footprint, the access's outcome, the DRAM hook, and its counts (into
 * range when batch). Inlined: model_access's loop as one. */
static inline __attribute__((always_inline)) void line_missed(struct an_state *st, struct an_model *am,
							      struct an_stream *s, uint32_t cls,
							      const struct trace_rec *r, int counted, int batch,
							      struct mp_model_out *o, uint64_t a, uint64_t paddr,
							      unsigned shift, struct an_mem *range, struct mp_outcome *sum)
{
	am->win_miss++; /* (beside: what anm_par_window judges by) */
	/* a page missed the DTLB: its slots are worth prefetching
	 * ahead when the tables they are in outgrow the host's caches;
	 * so are the model's sets for lines that miss L2, when they do
	 * (for as long as such misses keep coming: a few now and then
	 * are not worth a second decoder). Not for a stream's page or
	 * line, next to the last one that missed (a few lines apart
	 * under set sampling): the second decoder skips hinting
	 * those, the host's prefetcher brings their sets, and it cost
	 * every access all the same (arrays' bounded report: 10% of
	 * its instructions, nothing hinted) */
	if (o->tlb != MP_TLB_L1_HIT &&
	    (st->res->phys_pages >= AN_AHEAD_PAGES || am->nrows >= AN_AHEAD_PAGES)) {
		const uint64_t pg = a >> shift;
		if (pg - s->miss_page + 1 > 2)
			s->ahead_on = AN_AHEAD_KEEP;
		s->miss_page = pg;
	} else if (o->level >= MP_LVL_L3 && am->hint_sets) {
		const uint64_t ln = a >> am->line_shift, near = 2 * am->sample_sets;
		if (ln - s->miss_line + near > 2 * near)
			s->ahead_on = s->ahead_on + AN_AHEAD_CREDIT < AN_AHEAD_KEEP
					      ? s->ahead_on + AN_AHEAD_CREDIT
					      : AN_AHEAD_KEEP;
		s->miss_line = ln;
	}
	unsigned from, to;
	if (o->level == MP_LVL_LOCAL_DRAM && st->numa && an_numa_nodes(st, s, a, &from, &to) &&
	    from != to) {
		/* a NUMA topology says where the page is: a fill from another
		 * node's memory, at the latency its distance gives */
		o->level = MP_LVL_REMOTE_DRAM;
		o->latency += an_numa_latency(st, from, to, st->opts->machine->dram_latency) -
			     st->opts->machine->dram_latency;
	}
	if (am->seen) {
		seen_mark(am, s, a);
		span_touch(st, am, s, cls, a);
	}
	if (o->level > sum->level)
		sum->level = o->level;
	if (o->tlb > sum->tlb)
		sum->tlb = o->tlb;
	sum->latency += o->latency;
	int dram = o->level == MP_LVL_LOCAL_DRAM || o->level == MP_LVL_REMOTE_DRAM;
	am->fills += dram ? am->sample_sets : 0;
	am->walks += o->tlb == MP_TLB_WALK;
	if (st->opts->on_dram && (dram || o->walk_dram))
		dram_hook(st, s, cls, a, paddr, counted, o->walk_dram, dram);
	if (!counted)
		return;
	if (!batch && o->level == MP_LVL_UNKNOWN && o->tlb == MP_TLB_L1_HIT)
		count_unmodelled(st, s, cls); /* (all mem_count_sampled counts of it) */
	else if (!batch) {
		mem_count_all(st, s, cls, o);
		if (dram && r->write && !r->range)
			store_fill_count(st, s, cls);
	} else if (am->sample_sets > 1)
		mem_count_sampled(range, o, am->sample_sets);
	else
		anm_mem_count(range, o);
	if (o->tlb != MP_TLB_L1_HIT && st->opts->page_rows)
		anm_page_count(st, am, s->proc, st->parts_on ? s->thread : 0, a, shift, cls, o);
}

/* Set sampling: the lines of a long range skipped in its middle pages
 * (model_access) hit L1 as often as the modelled lines of those pages
 * did (mid_lines > 0: every page's first line is modelled). */
static inline void lines_skipped(struct an_state *st, const struct an_model *am, struct an_stream *s, uint32_t cls,
				 int counted, uint64_t skipped, uint64_t mid_lines, uint64_t mid_l1, struct an_mem *range,
				 struct mp_outcome *sum)
{
	uint64_t hits = (2 * skipped * mid_l1 + mid_lines) / (2 * mid_lines), misses = skipped - hits;
	if (sum->tlb < MP_TLB_L1_HIT)
		sum->tlb = MP_TLB_L1_HIT;
	if (hits && sum->level < MP_LVL_L1)
		sum->level = MP_LVL_L1;
	sum->latency += (uint32_t)(hits * am->l1_lat);
	if (counted) {
		st->res->mem_l1_estimated += skipped;
		an_model_count_fast(st, s, cls, hits);
		range->refs += misses;
		range->tlb[MP_TLB_L1_HIT] += misses;
		range->miss_unmodelled += misses;
	}
}

/* A long range (model_access): the page two ahead's translation slot and
 * TLB row, which the replay's lookahead (record by record) cannot see
 * coming. */
void anm_range_prefetch(const struct an_state *st, const struct an_model *am, const struct an_stream *s, uint64_t a)
{
	uint64_t ahead = a + 8192;
	if (st->phys)
		an_phys_prefetch(st->phys, st->procs.v[s->proc].pid, ahead);
	if (am->rows_cap)
		__builtin_prefetch(
			&am->rows[row_home(s->proc, ahead >> 12, 12, st->parts_on ? s->thread : 0, am->rows_cap)]);
}

/* A one-line reference the model says a repeat of changes nothing (again:
 * MP_AGAIN_*): kept for an_model_repeat. */
static inline __attribute__((always_inline)) void rep_keep(const struct an_state *st, struct an_stream *s,
							   uint32_t cls, unsigned core, uint8_t again, uint64_t a,
							   uint64_t paddr, unsigned shift, unsigned cshift)
{
	s->rep_a = a;
	s->rep_cls = cls;
	s->rep_fn = s->last_fn;
	s->rep_core = core;
	s->rep_again = again;
	s->rep_seq = *st->model_rep.seq;
	s->rep_shift = (uint8_t)shift;
	s->rep_phys = paddr != 0;
	s->rep_thp = paddr && shift == 21 && cshift == AS_MAPPED;
}

/* model_access of a reference within one line (most of them): its steps
 * for one line, without the range's batch, skipping and page loop, whose
 * state the compiler kept live through every reference (allocheavy's
 * report: a quarter of model_access's instructions). */
static inline __attribute__((always_inline)) void model_line(struct an_state *st, struct an_model *am,
							     struct an_stream *s, uint32_t cls,
							     const struct trace_rec *r, int counted,
							     struct mp_outcome *sum, unsigned core, unsigned cshift,
							     uint64_t a)
{
	unsigned shift = cshift == AS_MAPPED ? 12 : cshift;
	s->rep_again = 0;
	am->counting = counted;
	am->cur = s;
	const uint32_t owner = anm_owner_of(st, am, s, cls);
	anm_outcome_init(sum, shift);
	uint64_t paddr = 0;
	if (st->phys) {
		paddr = anm_phys_of(st, s, a, cshift, &shift);
		sum->page_shift = (uint8_t)shift;
	}
	struct mp_model_out o;
	mp_model_access(am->m, core, s->proc, a, paddr, r->write, shift, owner, &o);
	if (am->tlog)
		anm_tlog_put(st, am, s, cls, core, a, shift, counted);
	if (st->phys && counted) {
		s->refs_physical += paddr != 0;
		s->refs_thp += paddr && shift == 21 && cshift == AS_MAPPED;
	}
	if (o.again)
		rep_keep(st, s, cls, core, o.again, a, paddr, shift, cshift);
	if (o.level == MP_LVL_L1 && o.tlb == MP_TLB_L1_HIT) {
		sum->level = MP_LVL_L1;
		sum->tlb = MP_TLB_L1_HIT;
		sum->latency = o.latency;
		if (counted)
			an_model_count_fast(st, s, cls, 1);
		return;
	}
	line_missed(st, am, s, cls, r, counted, 0, &o, a, paddr, shift, NULL, sum);
}

/* model_access of a range of lines [a, last], last in another line. */
static __attribute__((noinline)) void model_lines(struct an_state *st, struct an_model *am, struct an_stream *s,
						  uint32_t cls, const struct trace_rec *r, int counted,
						  struct mp_outcome *sum, unsigned core, unsigned cshift, uint64_t a,
						  uint64_t last)
{
	const uint64_t line = am->line;
	unsigned shift = cshift == AS_MAPPED ? 12 : cshift;
	uint64_t nlines = ((last - a) >> am->line_shift) + 1;
	if (st->parts_on && counted && nlines >= AN_LONG_RANGE_LINES)
		st->threads.v[s->thread].range_lines += nlines;
	s->rep_again = 0;
	am->counting = counted;
	am->cur = s;
	/* the line's owner, whose DRAM writes come back to on_writeback */
	const uint32_t owner = anm_owner_of(st, am, s, cls);
	anm_outcome_init(sum, shift);
	/* a range (memset, memcpy: up to millions of lines) counts its lines
	 * apart and adds them to its rows once */
	struct an_mem range;
	const int batch = counted;
	if (batch)
		memset(&range, 0, sizeof(range));
	/* set sampling, a long range: its middle pages' lines outside the
	 * sample are skipped (MP_MODEL_SKIPPED) and estimated from the lines
	 * modelled in those pages; its last range_tail lines go in full */
	const int skipping = am->range_tail && nlines >= 4 * am->range_tail && !st->opts->on_dram &&
			     !mp_model_range_begin(am->m, core);
	const uint64_t skip_end = skipping ? nlines - am->range_tail : 0;
	uint64_t skipped = 0, mid_lines = 0, mid_l1 = 0;
	int tail = 0;
	for (uint64_t k = 0; k < nlines;) {
		struct mp_model_out o;
		uint64_t paddr = 0;
		if (st->phys) {
			paddr = anm_phys_of(st, s, a, cshift, &shift);
			if (k == 0)
				sum->page_shift = (uint8_t)shift;
		}
		/* the range's lines in this 4 KiB page go to the model at once */
		uint64_t n = 1;
		uint8_t lv[MP_MODEL_LINES_MAX];
		/* (on_dram: the DRAM reads and writes in the order the lines make them) */
		if (!st->opts->on_dram) {
			n = (((a | 4095) - a) >> am->line_shift) + 1;
			n = n < nlines - k ? n : nlines - k;
			n = n < MP_MODEL_LINES_MAX ? n : MP_MODEL_LINES_MAX;
		}
		if (nlines - k > n + 64 && (am->rows_cap || st->phys))
			anm_range_prefetch(st, am, s, a);
		unsigned skip = 0; /* lines skipped in this page */
		if (skipping && k + n > skip_end && !tail) {
			tail = 1;
			mp_model_range_end(am->m, core);
		}
		if (n == 1)
			mp_model_access(am->m, core, s->proc, a, paddr, r->write, shift, owner, &o);
		else
			skip = mp_model_access_lines(am->m, core, s->proc, a, paddr, (unsigned)n, r->write, shift,
						     owner, skipping && k > 0 && k + n <= skip_end, &o, lv);
		if (am->tlog)
			anm_tlog_put(st, am, s, cls, core, a, shift, counted);
		if (st->phys && counted) {
			s->refs_physical += paddr ? n : 0;
			s->refs_thp += paddr && shift == 21 && cshift == AS_MAPPED ? n : 0;
		}
		if (skip) {
			skipped += skip;
			if (am->seen)
				seen_mark_skipped(am, s, a, n, lv);
		}
		for (uint64_t i = 0; i < n; i++, k++, a += line, paddr += paddr ? line : 0) {
			if (skip) {
				if (lv[i] == MP_MODEL_SKIPPED) {
					/* on to the next modelled line (15 in 16 are skipped) */
					uint64_t d = next_modelled(lv, i, n) - i;
					i += d;
					k += d;
					a += d * line;
					paddr += paddr ? d * line : 0;
					if (i == n)
						break;
				}
				mid_lines++;
				mid_l1 += lv[i] == MP_LVL_L1;
			}
			if (i && lv[i] == MP_LVL_L1) {
				/* (before o is made: a word read of bytes just stored
				 * would wait for them) */
				sum->latency += am->l1_lat;
				if (counted)
					an_model_count_fast(st, s, cls, 1);
				continue;
			}
			if (i && lv[i] == MP_LVL_UNKNOWN) {
				/* set sampling: an L1 miss outside the sample, most
				 * of a long range's lines (what mem_count_sampled and
				 * the footprint below do with it, without the rest) */
				if (sum->tlb < MP_TLB_L1_HIT)
					sum->tlb = MP_TLB_L1_HIT;
				if (am->seen) {
					seen_mark(am, s, a);
					span_touch(st, am, s, cls, a);
				}
				if (counted) {
					range.refs++;
					range.tlb[MP_TLB_L1_HIT]++;
					range.miss_unmodelled++;
				}
				continue;
			}
			if (i)
				o = (struct mp_model_out){ .level = lv[i],
							   .tlb = MP_TLB_L1_HIT,
							   .latency = am->lat[lv[i]] };
			if (o.level == MP_LVL_L1 && o.tlb == MP_TLB_L1_HIT) {
				/* the common case: no DRAM, no NUMA, no page row, and a run
				 * of them is counted at once */
				if (sum->level < MP_LVL_L1)
					sum->level = MP_LVL_L1;
				if (sum->tlb < MP_TLB_L1_HIT)
					sum->tlb = MP_TLB_L1_HIT;
				sum->latency += o.latency;
				if (counted)
					an_model_count_fast(st, s, cls, 1);
				continue;
			}
			line_missed(st, am, s, cls, r, counted, batch, &o, a, paddr, shift, &range, sum);
		}
	}
	if (skipped)
		lines_skipped(st, am, s, cls, counted, skipped, mid_lines, mid_l1, &range, sum);
	if (batch && range.refs)
		mem_add_all(st, s, cls, &range);
}

/* Everything but the stream's repeated reference (an_model_access). */
static __attribute__((noinline)) void model_access(struct an_state *st, struct an_stream *s, uint32_t cls,
						   const struct trace_rec *r, int counted, struct mp_outcome *sum)
{
	struct an_model *am = st->model;
	if (r->size > am->range_max) {
		range_over(st, am, s, r, sum);
		return;
	}
	unsigned core = stream_core(st, am, s);
	if (am->first_on && s->bursts != am->burst) {
		am->burst = s->bursts;
		mp_model_set_burst(am->m, s->bursts);
		anm_burst_window(st, am, 0);
	}
	unsigned cshift =
		cls < am->cls_shift.n && am->cls_shift.v[cls] ? am->cls_shift.v[cls] : anm_class_shift(st, am, cls);
	uint64_t size = r->size ? r->size : 1;
	uint64_t a = r->addr & ~(am->line - 1);
	uint64_t last = r->addr + size - 1 < r->addr ? UINT64_MAX : r->addr + size - 1;
	if (last - a < am->line)
		model_line(st, am, s, cls, r, counted, sum, core, cshift, a);
	else
		model_lines(st, am, s, cls, r, counted, sum, core, cshift, a, last);
}

static int store_again(struct an_state *st, struct an_stream *s, uint32_t cls)
{
	struct an_model *am = st->model;
	/* (the owner model_access would give it: made here if new, as there) */
	const uint32_t owner = anm_owner_of(st, am, s, cls);
	if (!mp_model_store_again(am->m, s->rep_core, owner))
		return 0;
	s->rep_again = MP_AGAIN_LOAD | MP_AGAIN_STORE;
	s->rep_seq = *st->model_rep.seq;
	s->rep_fn = s->last_fn;
	return 1;
}

int an_model_again(struct an_state *st, struct an_stream *s, uint32_t cls, int write, int counted)
{
	if (s->rep_again & AN_AGAIN_THREADS)
		return anm_par_repeat(st, s, write, counted) ? 2 : 0;
	return write && store_again(st, s, cls);
}

void an_model_access(struct an_state *st, struct an_stream *s, uint32_t cls, const struct trace_rec *r, int counted,
		     struct mp_outcome *sum)
{
	if (st->model->nchecks) {
		anm_outcome_init(sum, 12);
		anm_checks_only(st, st->model, s, cls, r, counted);
		return;
	}
	/* (a range joins no run of repeats on the model's threads: a store's
	 * fill from DRAM counts as a store fill only outside one) */
	if ((!st->model_rep.par || !r->range) && an_model_repeat(st, s, cls, r->addr, r->size, r->write, counted)) {
		anm_outcome_init(sum, s->rep_shift);
		sum->level = MP_LVL_L1;
		sum->tlb = MP_TLB_L1_HIT;
		sum->latency = st->model->l1_lat;
		return;
	}
	struct an_model *am = st->model;
	if (!am->par_decided)
		anm_par_decide(st, am);
	if (am->beside && ++am->win_refs >= am->window)
		anm_par_window(st, am);
	if (!anm_model_here(am))
		anm_par_access(st, s, cls, r, counted, sum);
	else
		model_access(st, s, cls, r, counted, sum);
}

void an_model_clean(struct an_state *st, struct an_stream *s, int counted)
{
	struct an_model *am = st->model;
	if (!am)
		return;
	if (!anm_model_here(am)) {
		anm_par_clean(st, am, counted);
		return;
	}
	am->counting = counted;
	am->cur = s;
	mp_model_clean(am->m);
}
