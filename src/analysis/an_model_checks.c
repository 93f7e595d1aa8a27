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
#include <string.h>

#include "common/varint.h"

#include "analysis/an_model_int.h"

struct anm_check {
	struct mp_model *m;
	MP_VEC(uint8_t) cls_shift; /* class -> page shift (AS_MAPPED too), 0 not decided yet */
	uint64_t walks;
};

/* A machine for a check: translations only (no data caches to speak of). */
static struct mp_model *check_machine(const struct an_state *st)
{
	return mp_model_new_translating(st->opts->machine);
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
		if (!(am->checks[i].m = check_machine(st)))
			return -errno;
	return 0;
}

int anm_checks_renew(struct an_state *st, struct an_model *am)
{
	for (size_t i = 0; i < am->nchecks; i++) {
		struct mp_model *m = check_machine(st);
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

void an_model_checks_fold(struct an_state *f, struct an_state *st)
{
	struct an_model *fm = f->model;
	struct an_model *am = st->model;
	if (!fm || !am)
		return;
	anm_tlog_fold(fm, am);
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

/* --- the translation log ---------------------------------------------------
 *
 * The checks need only the run's translations: which core translated
 * which page of which space, in what size, for a reference of which class,
 * counted or not. A model run that may be asked for checks afterwards
 * (an_opts.log_translations) logs them as it makes them, so the checks
 * (an_result_check_walks) read the log instead of replaying the trace:
 * no decoding, no object lookups, no lookahead. A class's rule matches
 * as an_sites_may_match would have it during a replay, so the labels it
 * compares with are kept, as they were at the class's first translation
 * (where a check's replay asks).
 *
 * A translation: a byte (bit 0 counted; bits 1-2 the page size, 12, 21 or
 * 30 bits; bits 3-4 the class, by its place among the last four classes,
 * most recent first (a loop's references go round a few objects' classes:
 * a block, the stack, a global), which it moves to the front; bits 5-6 the
 * low bits of the page's delta from the class's last, zigzagged, and bit
 * 7: its other bits follow as a varint). A random reference within 64 MiB
 * takes three bytes. Bits 1-2 of 3 make an escape, its kind in bits 4-7:
 * TLOG_PROC, a process begins (the checks' machines start afresh), or
 * TLOG_CHANGE, a byte follows whose bits 0-2 say a new class (put at the
 * front), core and space follow as varints.
 */
void an_tlog_free(struct an_tlog *l)
{
	while (l) {
		struct an_tlog *next = l->next;
		mp_vec_free(&l->b);
		mp_vec_free(&l->text);
		mp_vec_free(&l->cls);
		mp_vec_free(&l->of_cls);
		free(l->cls_page);
		free(l);
		l = next;
	}
}

void anm_tlog_init(struct an_state *st, struct an_model *am)
{
	const struct an_opts *o = st->opts;
	/* (burst sampling's checks are replays of their own; a run of
	 * checks logs nothing) */
	if (!o->log_translations || am->nchecks || st->parts_on || o->burst_on)
		return;
	am->tlog = calloc(1, sizeof(*am->tlog));
	if (!am->tlog) {
		am->tlog_dropped = 1;
		return;
	}
	am->tlog->fresh = 1;
	am->tlog->state_cls = UINT32_MAX;
	am->tlog->last_page = UINT64_MAX;
}

/* The log cannot be complete (no memory, too large): none, and the
 * checks replay. */
void anm_tlog_drop(struct an_model *am)
{
	an_tlog_free(am->tlog);
	am->tlog = NULL;
	am->tlog_dropped = 1;
}

void anm_tlog_proc(struct an_model *am)
{
	struct an_tlog *l = am->tlog;
	if (!l || l->fresh)
		return;
	if (mp_vec_push(&l->b, (uint8_t)TLOG_PROC)) {
		anm_tlog_drop(am);
		return;
	}
	l->fresh = 1;
	l->last_page = UINT64_MAX;
	l->state_cls = UINT32_MAX; /* (the next entry through anm_tlog_add, which sets fresh) */
}

struct labels_to {
	struct an_tlog *l;
	int oom;
};

static int label_to(void *arg, const char *label, int context)
{
	struct labels_to *t = arg;
	size_t n = strlen(label) + 1;
	if (mp_vec_reserve(&t->l->text, t->l->text.n + n + 1)) {
		t->oom = 1;
		return 1;
	}
	t->l->text.v[t->l->text.n++] = (char)context;
	memcpy(t->l->text.v + t->l->text.n, label, n);
	t->l->text.n += n;
	return 0;
}

/* The log's class for the state's cls: its labels kept at the first
 * translation. UINT32_MAX: no memory, or the labels past their bound. */
static uint32_t tlog_class(struct an_state *st, struct an_tlog *l, uint32_t cls)
{
	if (cls < l->of_cls.n && l->of_cls.v[cls])
		return l->of_cls.v[cls] - 1;
	if (l->text.n > TLOG_MAX / 4)
		return UINT32_MAX; /* (labels of deep stacks, of many classes: bounded too) */
	if (mp_vec_reserve(&l->of_cls, (size_t)cls + 1) || mp_vec_reserve(&l->cls, l->cls.n + 2))
		return UINT32_MAX;
	uint64_t *pages = realloc(l->cls_page, (l->cls.n + 2) * sizeof(*pages));
	if (!pages)
		return UINT32_MAX;
	l->cls_page = pages;
	while (l->of_cls.n <= cls)
		l->of_cls.v[l->of_cls.n++] = 0;
	if (!l->cls.n)
		l->cls.v[l->cls.n++] = 0;
	struct labels_to t = { l, 0 };
	an_sites_labels(st, cls, 1, label_to, &t);
	if (t.oom)
		return UINT32_MAX;
	const uint32_t id = (uint32_t)l->cls.n - 1;
	l->cls_page[id] = 0;
	l->cls.v[l->cls.n++] = l->text.n;
	l->of_cls.v[cls] = id + 1;
	return id;
}

void anm_tlog_add(struct an_state *st, struct an_model *am, const struct an_stream *s, uint32_t cls, unsigned core,
		  uint64_t addr, unsigned shift, int counted)
{
	struct an_tlog *l = am->tlog;
	const uint32_t space = s->proc;
	if (l->b.cap - l->b.n < 40 && (l->b.n + 40 > TLOG_MAX || mp_vec_reserve(&l->b, l->b.n + 40))) {
		anm_tlog_drop(am);
		return;
	}
	l->room = l->b.cap < TLOG_MAX ? l->b.cap : TLOG_MAX;
	uint8_t *p = l->b.v + l->b.n;
	uint8_t b0 = (uint8_t)((counted ? 1 : 0) | (shift >= 30 ? 4 : shift >= 21 ? 2 : 0));
	if (cls != l->state_cls || core != l->last_core || space != l->last_space) {
		unsigned ch = 0;
		if (cls != l->state_cls) {
			const uint32_t lc = tlog_class(st, l, cls);
			if (lc == UINT32_MAX) {
				anm_tlog_drop(am);
				return;
			}
			l->state_cls = cls;
			const unsigned j = tlog_mru_find(l->mru, lc);
			tlog_mru_front(l->mru, j < TLOG_MRU ? j : TLOG_MRU - 1, lc);
			l->last_cls = lc;
			ch = j == TLOG_MRU; /* (not among them: named) */
			b0 |= (uint8_t)((j & (TLOG_MRU - 1)) << 3);
		}
		ch |= (core != l->last_core) << 1 | (space != l->last_space) << 2;
		if (ch) {
			*p++ = TLOG_CHANGE;
			*p++ = (uint8_t)ch;
			if (ch & 1)
				p = mp_put_uv(p, l->last_cls);
			if (ch & 2)
				p = mp_put_uv(p, l->last_core = core);
			if (ch & 4)
				p = mp_put_uv(p, l->last_space = space);
		}
	}
	uint8_t *q = p + 1;
	const uint64_t page = addr >> 12, zz = mp_zigzag((int64_t)(page - l->cls_page[l->last_cls]));
	l->cls_page[l->last_cls] = page;
	b0 |= (uint8_t)((zz & 3) << 5);
	if (zz >> 2) {
		b0 |= 0x80;
		q = mp_put_uv(q, zz >> 2);
	}
	*p = b0;
	l->b.n = (size_t)(q - l->b.v);
	l->fresh = 0;
	l->last_page = page;
	l->last_shift = shift;
}

/* The logs of list *from put in list *to, *from left empty (the order is
 * no matter: each log's walks add up). */
static void tlog_move(struct an_tlog **to, struct an_tlog **from)
{
	struct an_tlog **end = from;
	while (*end)
		end = &(*end)->next;
	*end = *to;
	*to = *from;
	*from = NULL;
}

void anm_tlog_result(struct an_state *st, struct an_model *am)
{
	struct an_result *r = st->res;
	r->tlog_dropped |= am->tlog_dropped;
	for (struct an_tlog *l = am->tlog; l; l = l->next) {
		/* (only the log's writer needs them) */
		mp_vec_free(&l->of_cls);
		free(l->cls_page);
		l->cls_page = NULL;
	}
	if (r->tlog_dropped) {
		an_tlog_free(am->tlog);
		am->tlog = NULL;
		return;
	}
	tlog_move(&r->tlog, &am->tlog);
}

void anm_tlog_fold(struct an_model *fm, struct an_model *am)
{
	fm->tlog_dropped |= am->tlog_dropped;
	tlog_move(&fm->tlog, &am->tlog);
}

