// SPDX-License-Identifier: MIT
/*
 * Page-walk what-ifs made instead of the model (an_opts.walk_checks):
 * check i is the run with its rule ahead of the --pages rules, and all it
 * reports is how many page walks that run's counted references make.
 * Which references walk depends on the TLBs alone (the walk's loads go
 * through the caches, but no cache decides whether a translation is
 * found), so each check is a model of its own that only translates
 * (mp_model_translate), fed every page each access touches in the page
 * size its rules give. A model run skips a reference only when it is its
 * core's previous line again (out.again), whose page is that core's most
 * recent DTLB entry in any page size: a translation there changes
 * nothing, so translating it in a check is exact too.
 *
 * The serial replay renews the checks' machines at each process's start
 * (an_model_proc_begin), so each process's walks are its own: a file's
 * processes replayed at once (an_procs.c) each check on machines of
 * their own, and their walks add up (an_model_checks_fold).
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/an_model_int.h"

struct anm_check {
	struct mp_model *m;
	MP_VEC(uint8_t) cls_shift; /* class -> page shift (AS_MAPPED too), 0 not decided yet */
	uint64_t walks;
};

/* A machine for check c: translations only, so its data caches are kept
 * for as few sets as the run's model keeps (memory only: they are never
 * used). */
static struct mp_model *check_machine(const struct an_state *st, const struct an_model *am)
{
	struct mp_model *m = mp_model_new(st->opts->machine);
	char err[160];
	if (m && am->sample_sets > 1 && mp_model_sample_sets(m, (unsigned)am->sample_sets, err, sizeof(err))) {
		mp_model_free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

int anm_checks_init(struct an_state *st, struct an_model *am)
{
	const struct an_opts *o = st->opts;
	if (!o->nwalk_checks || st->parts_on)
		return 0;
	am->checks = calloc(o->nwalk_checks, sizeof(*am->checks));
	if (!am->checks)
		return -ENOMEM;
	am->nchecks = o->nwalk_checks;
	/* (the run's model is not fed: its sets are not worth hinting) */
	am->hint_sets = 0;
	for (size_t i = 0; i < am->nchecks; i++)
		if (!(am->checks[i].m = check_machine(st, am)))
			return -errno;
	return 0;
}

int anm_checks_renew(struct an_state *st, struct an_model *am)
{
	for (size_t i = 0; i < am->nchecks; i++) {
		struct mp_model *m = check_machine(st, am);
		if (!m)
			return -errno;
		mp_model_free(am->checks[i].m);
		am->checks[i].m = m;
	}
	am->checks_fed = 0;
	return 0;
}

void anm_checks_fini(struct an_model *am)
{
	for (size_t i = 0; i < am->nchecks; i++) {
		mp_model_free(am->checks[i].m);
		mp_vec_free(&am->checks[i].cls_shift);
	}
	free(am->checks);
	am->checks = NULL;
	am->nchecks = 0;
}

/* The page size of cls in check i: its rule's if the rule matches the
 * class, else the run's (cshift: the rules after it decide alike). */
static unsigned check_shift(struct an_state *st, struct anm_check *c, const struct an_page_rule *rule, uint32_t cls,
			    unsigned cshift)
{
	if (cls < c->cls_shift.n && c->cls_shift.v[cls])
		return c->cls_shift.v[cls];
	while (c->cls_shift.n <= cls)
		if (mp_vec_push(&c->cls_shift, 0)) {
			st->oom = 1;
			return cshift;
		}
	uint8_t s = an_sites_may_match(st, cls, rule->pattern) ? (uint8_t)rule->shift : (uint8_t)cshift;
	c->cls_shift.v[cls] = s;
	return s;
}

/* A translation of the page of addr for each check, the class's page
 * shift cshift as anm_class_shift gave it; *shift: the size its page was
 * mapped in (for AS_MAPPED), 0 until looked up. Returns the page's shift
 * for the caller's next check. */
static int checks_translate(struct an_state *st, struct an_model *am, struct an_stream *s, uint32_t cls,
			    unsigned core, uint64_t addr, unsigned cshift, unsigned *shift, int counted)
{
	am->checks_fed = 1;
	int missed = 0;
	for (size_t i = 0; i < am->nchecks; i++) {
		struct anm_check *c = &am->checks[i];
		unsigned cs = check_shift(st, c, &st->opts->walk_checks[i], cls, cshift);
		/* (AS_MAPPED here is the run's too: the size the page was
		 * mapped in, looked up only then: the object a check puts in
		 * other pages, most of a check's accesses, needs none) */
		if (cs == AS_MAPPED && !*shift) {
			*shift = 12;
			if (st->phys)
				anm_phys_of(st, s, addr, cshift, shift);
		}
		struct mp_model_out o;
		mp_model_translate(c->m, core, s->proc, addr, cs == AS_MAPPED ? *shift : cs, &o);
		c->walks += counted && o.tlb == MP_TLB_WALK;
		missed |= o.tlb != MP_TLB_L1_HIT;
	}
	return missed;
}

void anm_checks_only(struct an_state *st, struct an_model *am, struct an_stream *s, uint32_t cls,
		     const struct trace_rec *r, int counted)
{
	if (r->size > am->range_max)
		return; /* (not modelled either: range_over) */
	const unsigned core = stream_core(st, am, s);
	const unsigned cshift =
		cls < am->cls_shift.n && am->cls_shift.v[cls] ? am->cls_shift.v[cls] : anm_class_shift(st, am, cls);
	const uint64_t size = r->size ? r->size : 1;
	const uint64_t last = r->addr + size - 1 < r->addr ? UINT64_MAX : r->addr + size - 1;
	/* (the model's lines in one 4 KiB page go in one call, whose first
	 * line alone translates: model_access) */
	for (uint64_t a = r->addr & ~(am->line - 1);; a = (a | 4095) + 1) {
		unsigned shift = cshift == AS_MAPPED ? 0 : cshift;
		if (checks_translate(st, am, s, cls, core, a, cshift, &shift, counted) &&
		    st->res->phys_pages >= AN_AHEAD_PAGES) {
			/* pages that miss the DTLB, over a table of translations
			 * larger than the host's caches: the lookahead fetches
			 * their slots ahead, as for the model (line_missed) */
			const uint64_t pg = a >> (shift ? shift : 12);
			if (pg - s->miss_page + 1 > 2)
				s->ahead_on = AN_AHEAD_KEEP;
			s->miss_page = pg;
		}
		if ((a | 4095) >= last)
			break;
	}
}

void an_model_checks_fold(struct an_state *f, const struct an_state *st)
{
	struct an_model *fm = f->model;
	const struct an_model *am = st->model;
	if (!fm || !am)
		return;
	/* (every state has the file's checks: the same options) */
	for (size_t i = 0; i < fm->nchecks && i < am->nchecks; i++)
		fm->checks[i].walks += am->checks[i].walks;
}

int anm_checks_result(struct an_state *st, const struct an_model *am)
{
	if (!am->nchecks)
		return 0;
	struct an_result *r = st->res;
	r->check_walks = calloc(am->nchecks, sizeof(*r->check_walks));
	if (!r->check_walks)
		return -ENOMEM;
	for (size_t i = 0; i < am->nchecks; i++)
		r->check_walks[i] = am->checks[i].walks;
	return 0;
}
