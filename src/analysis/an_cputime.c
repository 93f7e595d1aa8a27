// SPDX-License-Identifier: MIT
/*
 * Where the program's CPU time went, for the inst source (see
 * an_samples.h). `record` samples the program's user-mode CPU time with
 * cpu-clock (SAMPLE_DEF kind MP_SK_CPU_TIME); a report says how much of
 * it was spent in code whose loads and stores the trace does not hold: the
 * modules an_unseen_modules names, and the C library outside its mem and
 * str functions (the runtime records the program's calls of those as
 * ranges; qsort's own loop, malloc's internals and the rest it does not).
 *
 * The samples never enter the replay: they are not accesses. After it,
 * each is given to its process image (an_samples_proc) and placed in the
 * module that image had loaded over its ip at its time (the latest loaded
 * there by then: a dlclose'd library's range may hold another later).
 * Samples in memprism's runtime, and in the libraries only it needs (its
 * zstd, compressing the trace), are recording's cost, not the program's
 * work, and are counted apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_samples.h"
#include "common/mp_path.h"
#include "sym/sym.h"

struct cpu_sample {
	uint64_t time, ip;
	uint32_t pid;
};

struct an_cpu {
	MP_VEC(struct cpu_sample) v;
	uint64_t period, lost;
};

/* A name and its samples: modules by base name, libc's functions. */
struct tally {
	const char *name; /* borrowed: a module's path or the symbolizer's */
	uint64_t n;
};
typedef MP_VEC(struct tally) tally_vec;

static struct an_cpu *cpu_get(struct an_state *st)
{
	if (!st->cpu)
		st->cpu = calloc(1, sizeof(*st->cpu));
	return st->cpu;
}

int an_cpu_take(struct an_state *st, uint32_t pid, uint64_t time, uint64_t ip, uint64_t period)
{
	struct an_cpu *c = cpu_get(st);
	if (!c || mp_vec_push(&c->v, ((struct cpu_sample){ .time = time, .ip = ip, .pid = pid })))
		return -ENOMEM;
	c->period = period;
	return 0;
}

int an_cpu_def(struct an_state *st, uint64_t period, uint64_t lost)
{
	struct an_cpu *c = cpu_get(st);
	if (!c)
		return -ENOMEM;
	if (period)
		c->period = period;
	c->lost += lost;
	return 0;
}

void an_cpu_free(struct an_state *st)
{
	if (!st->cpu)
		return;
	mp_vec_free(&st->cpu->v);
	free(st->cpu);
	st->cpu = NULL;
}

static int by_pid_time(const void *a, const void *b)
{
	const struct cpu_sample *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The module p had loaded over ip at time t: the latest loaded there by
 * then, else the first ever (a sample before the runtime described the
 * images it started with). NULL: anonymous code (a JIT's). */
static const struct an_module *module_at(const struct an_proc *p, uint64_t ip, uint64_t t)
{
	const struct an_module *best = NULL, *first = NULL;
	for (size_t i = 0; i < p->modules.n; i++) {
		const struct an_module *m = &p->modules.v[i];
		if (ip < m->lo || ip >= m->hi)
			continue;
		if (!first || m->time < first->time)
			first = m;
		if (m->time <= t && (!best || m->time >= best->time))
			best = m;
	}
	return best ? best : first;
}

static int tally_add(tally_vec *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i].name, name)) {
			v->v[i].n++;
			return 0;
		}
	return mp_vec_push(v, ((struct tally){ .name = name, .n = 1 }));
}

/* 1 if fn is one of the C library's functions whose calls the runtime
 * records as ranges (src/rt/rt_access.c), or one of their
 * implementations (__memmove_avx_unaligned_erms, __strlen_avx2): the
 * name without its leading underscores, then the end or '_'. */
static int libc_seen_fn(const char *fn)
{
	static const char *const seen[] = { "memcpy",  "memmove", "memset", "memcmp", "memchr",
					    "strlen",  "strnlen", "strcpy", "strncpy", "strcat",
					    "strcmp",  "strncmp", "strchr", "strdup",  "strndup" };
	while (*fn == '_')
		fn++;
	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++) {
		size_t n = strlen(seen[i]);
		if (!strncmp(fn, seen[i], n) && (fn[n] == 0 || fn[n] == '_'))
			return 1;
	}
	return 0;
}

/* A sample in the C library: outside its seen functions, tallied by
 * function (the outermost frame at ip: inlined code is its caller's). */
static int libc_sample(struct an_proc *p, uint64_t ip, struct an_result *r, tally_vec *fns)
{
	struct sym_frame fr[8];
	int n = p->sym ? sym_ctx_lookup(p->sym, ip, fr, 8) : 0;
	const char *fn = n > 0 && fr[n - 1].function ? fr[n - 1].function : "?";
	if (libc_seen_fn(fn))
		return 0;
	r->libc_unseen++;
	return tally_add(fns, fn);
}

/* The top three of fns into r->libc_unseen_fns, most samples first. */
static void top_fns(const tally_vec *fns, struct an_result *r)
{
	for (size_t k = 0; k < 3; k++) {
		const struct tally *best = NULL;
		for (size_t i = 0; i < fns->n; i++) {
			const struct tally *t = &fns->v[i];
			int taken = 0;
			for (size_t j = 0; j < k; j++)
				taken |= !strcmp(r->libc_unseen_fns[j].name, t->name);
			if (!taken && (!best || t->n > best->n))
				best = t;
		}
		if (!best)
			return;
		snprintf(r->libc_unseen_fns[k].name, sizeof(r->libc_unseen_fns[k].name), "%s", best->name);
		r->libc_unseen_fns[k].samples = best->n;
	}
}

/* Whether each of p's modules is the runtime's (an_module_runtimes),
 * into *flags (p->modules.n bytes, grown as needed). 0 or -ENOMEM. */
static int runtime_flags(const struct an_proc *p, uint8_t **flags, size_t *cap)
{
	if (p->modules.n > *cap) {
		uint8_t *f = realloc(*flags, p->modules.n);
		if (!f)
			return -ENOMEM;
		*flags = f;
		*cap = p->modules.n;
	}
	for (size_t i = 0; i < p->modules.n; i++)
		(*flags)[i] = (uint8_t)an_module_runtimes(p, mp_base_name(p->modules.v[i].path));
	return 0;
}

/* Each sample to its image and module, tallied into mods (by base name)
 * and r's counts. 0 or -ENOMEM. */
static int place_all(struct an_state *st, struct an_cpu *c, struct an_result *r, tally_vec *mods, tally_vec *fns)
{
	uint32_t pid = 0, pi = UINT32_MAX, flags_of = UINT32_MAX;
	uint64_t until = 0; /* the next image of pid starts then */
	uint8_t *runtime = NULL; /* of image flags_of: its modules that are the runtime's */
	size_t cap = 0;
	int err = 0;
	for (size_t i = 0; i < c->v.n && !err; i++) {
		const struct cpu_sample *s = &c->v.v[i];
		if (i == 0 || s->pid != pid || s->time >= until) {
			pid = s->pid;
			pi = an_samples_proc(st, pid, s->time);
			until = UINT64_MAX;
			for (size_t k = 0; k < st->procs.n; k++) {
				const struct an_proc *p = &st->procs.v[k];
				if (p->pid == pid && p->start_time > s->time && p->start_time < until)
					until = p->start_time;
			}
		}
		if (pi == UINT32_MAX) {
			r->cpu_unplaced++;
			continue;
		}
		struct an_proc *p = &st->procs.v[pi];
		if (pi != flags_of && (err = runtime_flags(p, &runtime, &cap)) != 0)
			break;
		flags_of = pi;
		const struct an_module *m = module_at(p, s->ip, s->time);
		if (m && runtime[m - p->modules.v]) {
			r->cpu_runtime_samples++;
			continue;
		}
		r->cpu_samples++;
		if (!m)
			continue;
		const char *base = mp_base_name(m->path);
		if (tally_add(mods, base) || (!strncmp(base, "libc.so", 7) && libc_sample(p, s->ip, r, fns)))
			err = -ENOMEM;
	}
	free(runtime);
	return err;
}

int an_cpu_result(struct an_state *st, struct an_result *r)
{
	struct an_cpu *c = st->cpu;
	if (!c)
		return 0;
	r->cpu_period_ns = c->period;
	r->cpu_lost = c->lost;
	if (c->v.n > 1)
		qsort(c->v.v, c->v.n, sizeof(*c->v.v), by_pid_time);
	tally_vec mods = { 0 }, fns = { 0 };
	int err = place_all(st, c, r, &mods, &fns);
	if (!err && r->nunseen_modules && r->cpu_samples) {
		r->unseen_cpu = calloc(r->nunseen_modules, sizeof(*r->unseen_cpu));
		if (!r->unseen_cpu)
			err = -ENOMEM;
		for (size_t i = 0; !err && i < r->nunseen_modules; i++)
			for (size_t j = 0; j < mods.n; j++)
				if (!strcmp(mods.v[j].name, r->unseen_modules[i]))
					r->unseen_cpu[i] = mods.v[j].n;
	}
	if (!err)
		top_fns(&fns, r);
	if (r->cpu_unplaced)
		an_warn(st, "%llu CPU-time samples came from processes without memprism's runtime: not counted",
			(unsigned long long)r->cpu_unplaced);
	if (r->cpu_lost)
		an_warn(st, "%llu CPU-time samples were lost (the kernel's rings were full): the shares are estimates",
			(unsigned long long)r->cpu_lost);
	mp_vec_free(&mods);
	mp_vec_free(&fns);
	return err;
}
