// SPDX-License-Identifier: MIT
/*
 * Page-walk what-ifs asked after a model run (an_result_check_walks): each
 * check replays the run's log of translations (an_model_checks.c writes
 * it) on TLBs of its own, its rule giving the classes it matches their
 * pages' size; checks on threads of their own (an_jobs.h), sharing the
 * log alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_jobs.h"
#include "analysis/an_model_int.h"
#include "common/varint.h"

/* What a check's rule makes of each of a log's classes: its page shift, 0
 * where it does not match (the run's then). */
static void rule_shifts(const struct an_tlog *l, const struct an_page_rule *rule, uint8_t *shift)
{
	const int contexts = strstr(rule->pattern, " <- ") != NULL;
	for (size_t c = 0; c + 1 < l->cls.n; c++) {
		shift[c] = 0;
		if (!l->text.v)
			continue; /* (no class has a label) */
		for (const char *t = l->text.v + l->cls.v[c], *end = l->text.v + l->cls.v[c + 1]; t < end;
		     t += strlen(t + 1) + 2)
			if ((!t[0] || contexts) && strstr(t + 1, rule->pattern)) {
				shift[c] = (uint8_t)rule->shift;
				break;
			}
	}
}

/* The walks of a check over log l, added to *walks. */
static int tlog_walks(const struct an_tlog *l, const struct mp_machine *mach, const struct an_page_rule *check,
		      uint64_t *walks)
{
	const size_t ncls = l->cls.n ? l->cls.n - 1 : 0;
	uint8_t *shifts = calloc(ncls + 1, 1);
	uint64_t *base = calloc(ncls + 1, sizeof(*base)); /* each class's last page */
	struct mp_model *m = mp_model_new_translating(mach);
	int err = !m ? -errno : shifts && base ? 0 : -ENOMEM;
	if (!err)
		rule_shifts(l, check, shifts);
	static const unsigned size_shift[3] = { 12, 21, 30 };
	const uint8_t *p = l->b.v, *end = p ? p + l->b.n : p; /* (an empty log has none) */
	uint64_t cls = 0, core = 0, space = 0;
	uint32_t mru[TLOG_MRU] = { 0 };
	int fed = 0;
	while (!err && p < end) {
		const uint8_t b0 = *p++;
		if (b0 == TLOG_PROC) {
			/* a process begins: a machine of its own (if the last was fed) */
			if (fed) {
				mp_model_free(m);
				if (!(m = mp_model_new_translating(mach)))
					err = -errno;
			}
			fed = 0;
			continue;
		}
		if (b0 == TLOG_CHANGE) {
			const unsigned ch = p < end ? *p++ : 0;
			if (((ch & 1) && mp_get_uv(&p, end, &cls)) || ((ch & 2) && mp_get_uv(&p, end, &core)) ||
			    ((ch & 4) && mp_get_uv(&p, end, &space)) || cls >= ncls)
				err = -EIO;
			if (ch & 1) /* (a new class to the front: the last one goes) */
				tlog_mru_front(mru, TLOG_MRU - 1, (uint32_t)cls);
			continue;
		}
		if ((b0 & TLOG_ESC) == TLOG_ESC) {
			err = -EIO;
			break;
		}
		const unsigned j = (b0 >> 3) & (TLOG_MRU - 1); /* (the class by its place, to the front) */
		tlog_mru_front(mru, j, mru[j]);
		cls = mru[0];
		uint64_t zz = (b0 >> 5) & 3, hi = 0;
		if ((b0 & 0x80) && mp_get_uv(&p, end, &hi))
			err = -EIO;
		if (err)
			break;
		const uint64_t page = base[cls] += (uint64_t)mp_unzigzag(zz | hi << 2);
		const unsigned shift = size_shift[(b0 >> 1) & 3];
		struct mp_model_out o;
		mp_model_translate(m, (unsigned)core, (uint32_t)space, page << 12, shifts[cls] ? shifts[cls] : shift, &o);
		*walks += (b0 & 1) && o.tlb == MP_TLB_WALK;
		fed = 1;
	}
	mp_model_free(m);
	free(shifts);
	free(base);
	return err;
}

/* Check i over every log (an_jobs' work). */
struct check_job {
	const struct an_result *r;
	const struct mp_machine *mach;
	const struct an_page_rule *checks;
	uint64_t *walks;
	int *errs;
};

static void *check_one(void *arg, size_t i)
{
	const struct check_job *j = arg;
	for (const struct an_tlog *l = j->r->tlog; l && !j->errs[i]; l = l->next)
		j->errs[i] = tlog_walks(l, j->mach, &j->checks[i], &j->walks[i]);
	return NULL;
}

int an_result_check_walks(const struct an_result *r, const struct mp_machine *mach,
			  const struct an_page_rule *checks, size_t n, unsigned jobs, uint64_t *walks)
{
	if (!r->tlog || r->tlog_dropped)
		return -ENOENT;
	for (size_t i = 0; i < n; i++)
		if (checks[i].shift != 12 && checks[i].shift != 21 && checks[i].shift != 30)
			return -ENOENT; /* (the size a page was mapped in is not logged) */
	memset(walks, 0, n * sizeof(*walks));
	/* each check on a thread of its own: they share the log alone */
	int *errs = calloc(n + 1, sizeof(*errs)), err = 0;
	struct check_job job = { r, mach, checks, walks, errs };
	struct an_jobs *js = errs ? an_jobs_new(n, jobs, check_one, NULL, &job) : NULL;
	if (!js) {
		free(errs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		an_jobs_take(js, i);
		an_jobs_done(js, i);
		err = err ? err : errs[i];
	}
	an_jobs_free(js);
	free(errs);
	return err;
}
