// SPDX-License-Identifier: MIT
/*
 * Merging several files' results (an_merge.h). Each file is analysed alone
 * (an_run), and its result is folded into the merged one: its rows moved
 * or added to the row of the same key, its threads, processes and pages
 * appended with their indices shifted, and then freed. The merged result
 * is an ordinary an_result, freed by an_result_free.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/an_merge.h"
#include "analysis/an_merge_int.h"
#include "analysis/an_jobs.h"
#include "analysis/an_numa.h"
#include "common/hashmap.h"
#include "common/mp_error.h"
#include "common/mp_path.h"
#include "common/vec.h"
#include "trace/trace_format.h"
#include "trace/trace_reader.h"

struct an_merge {
	struct an_merge_part *parts;
	size_t nparts;
	struct an_result *res;
	size_t classes_cap, threads_cap, functions_cap, lines_cap, procs_cap, pages_cap, touches_cap, warnings_cap;
	/* acc[cls][part]: each merged row's accesses by part */
	uint64_t **acc;
	struct mp_hashmap class_keys, function_keys, line_keys; /* hash -> index + 1 of the first with it */
	uint32_t *class_next, *function_next, *line_next; /* the next index with the same hash + 1, 0 none */
	unsigned jobs; /* parts analysed at once (0, 1: one after the other) */
	struct an_merge_numa numa;
	size_t numa_first, numa_conflict; /* the first part placed, one placed apart from it (SIZE_MAX none) */
};

/* A row's key: its label, but for stacks, whose labels name a pid or tid. */
static const char *class_key(const struct an_class *c)
{
	if (c->kind == AN_KIND_STACK)
		return strncmp(c->label, "main thread stack", 17) == 0 ? "main thread stacks" : "thread stacks";
	return c->label;
}

/* (room for need elements, the new ones zeroed) */
#define grow(pp, cap, need, size) mp_vec_grow_zeroed((void **)(pp), (cap), (need), (size))

/* The header's facts of part p (rank, host, program); err on a bad header. */
static void read_header(struct an_merge_part *p)
{
	struct trace_reader *r = trace_reader_open(p->path);
	if (!r) {
		p->err = -errno;
		return;
	}
	char buf[512];
	if (trace_reader_meta(r, "rank", buf, sizeof(buf)))
		p->rank = atoi(buf);
	if (trace_reader_meta(r, "rank_size", buf, sizeof(buf)))
		p->rank_size = atoi(buf);
	if (!trace_reader_meta(r, "host", p->host, sizeof(p->host)))
		p->host[0] = 0;
	if (!trace_reader_meta(r, "rank_job", p->job, sizeof(p->job)))
		p->job[0] = 0;
	if (trace_reader_meta(r, "program", buf, sizeof(buf))) {
		const char *b = mp_base_name(buf);
		size_t n = strnlen(b, sizeof(p->program) - 1);
		memcpy(p->program, b, n);
		p->program[n] = 0;
	}
	trace_reader_close(r);
}

static int add_part(struct an_merge *m, size_t *cap, const char *path)
{
	if (grow(&m->parts, cap, m->nparts + 1, sizeof(*m->parts)))
		return -ENOMEM;
	struct an_merge_part *p = &m->parts[m->nparts];
	memset(p, 0, sizeof(*p));
	p->rank = -1;
	p->path = strdup(path);
	if (!p->path)
		return -ENOMEM;
	m->nparts++;
	read_header(p);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's data files (MEMPRISM magic), by name, but not .old copies. */
static int add_dir(struct an_merge *m, size_t *cap, const char *dir, size_t *found)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	char **names = NULL;
	size_t n = 0, ncap = 0;
	int err = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || (len > 4 && strcmp(e->d_name + len - 4, ".old") == 0))
			continue;
		char path[4096];
		int here = strcmp(dir, ".") == 0; /* (names as ls shows them) */
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", here ? "" : dir, here ? "" : "/", e->d_name) >=
		    sizeof(path))
			continue;
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		FILE *f = fopen(path, "rb");
		char magic[8];
		int ok = f && fread(magic, 1, 8, f) == 8 && memcmp(magic, MP_FILE_MAGIC, 8) == 0;
		if (f)
			fclose(f);
		if (!ok)
			continue;
		if (grow(&names, &ncap, n + 1, sizeof(*names)) || !(names[n] = strdup(path))) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (!err)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		if (!err)
			err = add_part(m, cap, names[i]);
		free(names[i]);
	}
	free(names);
	*found = n;
	return err;
}

/* Ranked parts first, by rank; the others after them. */
static int by_rank(const void *a, const void *b)
{
	const struct an_merge_part *x = a, *y = b;
	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return 0;
}

int an_merge_open(const char *const *paths, size_t n, struct an_merge **out, const char **bad)
{
	*out = NULL;
	struct an_merge *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	size_t cap = 0;
	int err = 0;
	for (size_t i = 0; i < n && !err; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			size_t found = 0;
			err = add_dir(m, &cap, paths[i], &found);
			if (!err && !found)
				err = -ENODATA;
			if (err && bad)
				*bad = paths[i];
		} else {
			err = add_part(m, &cap, paths[i]);
		}
	}
	if (err) {
		an_merge_free(m);
		return err;
	}
	/* an insertion sort: stable, so files without a rank stay as given */
	for (size_t i = 1; i < m->nparts; i++)
		for (size_t j = i; j > 0 && by_rank(&m->parts[j - 1], &m->parts[j]) > 0; j--) {
			struct an_merge_part t = m->parts[j];
			m->parts[j] = m->parts[j - 1];
			m->parts[j - 1] = t;
		}
	mp_hashmap_init(&m->class_keys);
	mp_hashmap_init(&m->function_keys);
	mp_hashmap_init(&m->line_keys);
	m->numa_first = m->numa_conflict = SIZE_MAX;
	*out = m;
	return 0;
}

void an_merge_free(struct an_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nparts; i++)
		free(m->parts[i].path);
	free(m->parts);
	if (m->acc) {
		for (size_t i = 0; m->res && i < m->res->nclasses; i++)
			free(m->acc[i]);
		free(m->acc);
	}
	an_result_free(m->res);
	mp_hashmap_fini(&m->class_keys);
	mp_hashmap_fini(&m->function_keys);
	mp_hashmap_fini(&m->line_keys);
	free(m->class_next);
	free(m->function_next);
	free(m->line_next);
	an_merge_numa_fini(&m->numa);
	free(m);
}

size_t an_merge_nparts(const struct an_merge *m)
{
	return m->nparts;
}

const struct an_merge_part *an_merge_part(const struct an_merge *m, size_t i)
{
	return i < m->nparts ? &m->parts[i] : NULL;
}

const struct an_result *an_merge_result(const struct an_merge *m)
{
	return m->res;
}

int an_merge_mismatch(const struct an_merge *m, size_t *a, size_t *b)
{
	size_t first = SIZE_MAX;
	for (size_t i = 0; i < m->nparts; i++) {
		if (!m->parts[i].program[0])
			continue;
		if (first == SIZE_MAX) {
			first = i;
		} else if (strcmp(m->parts[i].program, m->parts[first].program) != 0) {
			*a = first;
			*b = i;
			return 1;
		}
	}
	return 0;
}

int an_merge_duplicate(const struct an_merge *m, size_t *a, size_t *b)
{
	for (size_t i = 1; i < m->nparts; i++) /* (sorted by rank) */
		if (m->parts[i].rank >= 0 && m->parts[i].rank == m->parts[i - 1].rank) {
			*a = i - 1;
			*b = i;
			return 1;
		}
	return 0;
}

int an_merge_runs_differ(const struct an_merge *m, size_t *a, size_t *b)
{
	for (size_t i = 0; i < m->nparts; i++)
		for (size_t j = i + 1; j < m->nparts; j++) {
			const struct an_merge_part *x = &m->parts[i], *y = &m->parts[j];
			if (x->rank < 0 || y->rank < 0)
				continue;
			if ((x->job[0] && y->job[0] && strcmp(x->job, y->job) != 0) ||
			    (x->rank_size && y->rank_size && x->rank_size != y->rank_size)) {
				*a = i;
				*b = j;
				return 1;
			}
		}
	return 0;
}

static void counts_add(struct an_counts *a, const struct an_counts *b)
{
	a->loads += b->loads;
	a->stores += b->stores;
	a->bytes_loaded += b->bytes_loaded;
	a->bytes_stored += b->bytes_stored;
}

static void faults_add(struct an_faults *a, const struct an_faults *b)
{
	a->faults += b->faults;
	a->major += b->major;
	a->pages += b->pages;
}

/* The merged row for c (kind and key), or a new one: its index, or -1 on
 * ENOMEM. *fresh says it is new. */
static long class_find(struct an_merge *m, const struct an_class *c, int *fresh)
{
	struct an_result *R = m->res;
	const char *key = class_key(c);
	uint64_t h = mp_hash_str(key, (uint64_t)c->kind);
	uint64_t *v = mp_hashmap_get(&m->class_keys, h);
	uint32_t head = v ? (uint32_t)*v : 0; /* (v does not survive a put) */
	for (uint32_t i = head; i; i = m->class_next[i - 1]) {
		const struct an_class *d = &R->classes[i - 1];
		if (d->kind == c->kind && strcmp(class_key(d), key) == 0) {
			*fresh = 0;
			return (long)i - 1;
		}
	}
	size_t cap = m->classes_cap, k = R->nclasses;
	if (grow(&R->classes, &m->classes_cap, k + 1, sizeof(*R->classes)))
		return -1;
	size_t cap2 = cap;
	if (grow(&m->acc, &cap, k + 1, sizeof(*m->acc)) || grow(&m->class_next, &cap2, k + 1, sizeof(*m->class_next)))
		return -1;
	m->acc[k] = calloc(m->nparts, sizeof(**m->acc));
	if (!m->acc[k] || mp_hashmap_put(&m->class_keys, h, k + 1))
		return -1;
	m->class_next[k] = head;
	R->nclasses++;
	*fresh = 1;
	return (long)k;
}

static int fold_classes(struct an_merge *m, struct an_result *r, size_t part, size_t thread_base, uint32_t *remap)
{
	struct an_result *R = m->res;
	for (size_t i = 0; i < r->nclasses; i++) {
		struct an_class *c = &r->classes[i];
		if (!c->label)
			continue;
		int fresh;
		long k = class_find(m, c, &fresh);
		if (k < 0)
			return -ENOMEM;
		remap[i] = (uint32_t)k;
		for (size_t t = 0; t < c->nthreads; t++)
			c->threads[t] += (uint32_t)thread_base;
		struct an_class *d = &R->classes[k];
		m->acc[k][part] += c->c.loads + c->c.stores;
		if (fresh) {
			/* the row moves over whole: its strings, stack and threads */
			*d = *c;
			if (c->kind == AN_KIND_STACK) {
				char *key = strdup(class_key(c)); /* (before c's label goes) */
				if (!key)
					return -ENOMEM;
				int had_site = d->site != NULL;
				free(d->label);
				free(d->site);
				d->label = key;
				d->site = had_site ? strdup(key) : NULL; /* (the label, as the site of a row without one) */
				if (had_site && !d->site)
					return -ENOMEM;
			}
			memset(c, 0, sizeof(*c));
			continue;
		}
		counts_add(&d->c, &c->c);
		an_mem_add(&d->mem, &c->mem);
		faults_add(&d->faults, &c->faults);
		d->instances += c->instances;
		d->bytes_allocated += c->bytes_allocated;
		if (c->max_size > d->max_size)
			d->max_size = c->max_size;
		if (c->users > d->users)
			d->users = c->users;
		if (c->top_user > d->top_user)
			d->top_user = c->top_user;
		d->carved |= c->carved;
		if (c->nthreads) {
			uint32_t *t = realloc(d->threads, (d->nthreads + c->nthreads) * sizeof(*t));
			if (!t)
				return -ENOMEM;
			memcpy(t + d->nthreads, c->threads, c->nthreads * sizeof(*t));
			d->threads = t;
			d->nthreads += c->nthreads;
			d->threads_cap = d->nthreads;
		}
	}
	return 0;
}

/* One file's functions (or source lines) into the merge's, by name. */
static int fold_rows(struct an_function **rows, size_t *nrows, size_t *rows_cap, uint32_t **next,
		     struct mp_hashmap *keys, struct an_function *from, size_t nfrom)
{
	for (size_t i = 0; i < nfrom; i++) {
		struct an_function *f = &from[i];
		if (!f->name)
			continue;
		uint64_t h = mp_hash_str(f->name, 0);
		uint64_t *v = mp_hashmap_get(keys, h);
		uint32_t head = v ? (uint32_t)*v : 0, j = head; /* (v does not survive a put) */
		while (j && strcmp((*rows)[j - 1].name, f->name) != 0)
			j = (*next)[j - 1];
		if (j) {
			struct an_function *d = &(*rows)[j - 1];
			counts_add(&d->c, &f->c);
			an_mem_add(&d->mem, &f->mem);
			faults_add(&d->faults, &f->faults);
			if (f->top_object_accesses > d->top_object_accesses) { /* (lines: the larger) */
				char *t = d->top_object;
				d->top_object = f->top_object;
				f->top_object = t;
				d->top_object_accesses = f->top_object_accesses;
			}
			d->objects = f->objects > d->objects ? f->objects : d->objects;
			continue;
		}
		size_t k = *nrows, cap = *rows_cap;
		if (grow(rows, rows_cap, k + 1, sizeof(**rows)) || grow(next, &cap, k + 1, sizeof(**next)) ||
		    mp_hashmap_put(keys, h, k + 1))
			return -ENOMEM;
		(*next)[k] = head;
		(*rows)[k] = *f;
		memset(f, 0, sizeof(*f));
		(*nrows)++;
	}
	return 0;
}

static int fold_functions(struct an_merge *m, struct an_result *r)
{
	struct an_result *R = m->res;
	return fold_rows(&R->functions, &R->nfunctions, &m->functions_cap, &m->function_next, &m->function_keys,
			 r->functions, r->nfunctions) ||
			       fold_rows(&R->lines, &R->nlines, &m->lines_cap, &m->line_next, &m->line_keys, r->lines,
					 r->nlines)
		       ? -ENOMEM
		       : 0;
}

static int warn(struct an_merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct an_merge *m, const char *fmt, ...)
{
	struct an_result *R = m->res;
	if (grow(&R->warnings, &m->warnings_cap, R->nwarnings + 1, sizeof(*R->warnings)))
		return -ENOMEM;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&R->warnings[R->nwarnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	R->nwarnings++;
	return 0;
}

/* "rank 3 (path)" or "path", into buf. */
static const char *part_name(char *buf, size_t cap, const struct an_merge_part *p)
{
	if (p->rank >= 0)
		snprintf(buf, cap, "rank %d (%s)", p->rank, p->path);
	else
		snprintf(buf, cap, "%s", p->path);
	return buf;
}

/* The run-wide figures of r added to the merged result's. */
static void fold_scalars(struct an_result *R, const struct an_result *r, int first)
{
	if (first) {
		R->mem_origin = r->mem_origin;
		R->mem_sample_sets = r->mem_sample_sets;
		memcpy(R->machine, r->machine, sizeof(R->machine));
		memcpy(R->cmdline, r->cmdline, sizeof(R->cmdline));
		memcpy(R->source, r->source, sizeof(R->source));
		R->min_size = r->min_size;
		R->run_status = r->run_status;
	} else if (R->run_status <= 0 && r->run_status > 0) {
		R->run_status = r->run_status; /* the first rank that failed */
	}
	counts_add(&R->total, &r->total);
	an_mem_add(&R->mem_total, &r->mem_total);
	R->mem_unsampled_objects += r->mem_unsampled_objects;
	R->mem_unsampled_refs += r->mem_unsampled_refs;
	R->mem_l1_estimated += r->mem_l1_estimated;
	R->accesses_outside_roi += r->accesses_outside_roi;
	R->phys_pages += r->phys_pages;
	R->refs_physical += r->refs_physical;
	R->refs_thp += r->refs_thp;
	R->damaged |= r->damaged;
	if (!R->write_errno)
		R->write_errno = r->write_errno;
	R->trace_bytes += r->trace_bytes;
	R->allocations += r->allocations;
	R->frees += r->frees;
	R->have_roi |= r->have_roi;
	R->recorded_accesses += r->recorded_accesses;
	R->skipped_accesses += r->skipped_accesses;
	R->bursts_replayed |= r->bursts_replayed;
	faults_add(&R->faults, &r->faults);
	R->samples += r->samples;
	R->samples_lost += r->samples_lost;
	R->samples_outside_roi += r->samples_outside_roi;
	R->samples_unplaced += r->samples_unplaced;
	R->sample_factor = R->recorded_accesses
				   ? (double)(R->recorded_accesses + R->skipped_accesses) / (double)R->recorded_accesses
				   : 1.0;
}

/* The C library's functions with most CPU-time samples: the merge's and
 * r's lists summed by name, the top three kept (of the functions each
 * file named: a function below a file's top three is not in its list). */
static void fold_libc_fns(struct an_result *R, const struct an_result *r)
{
	struct an_cpu_fn all[6];
	size_t n = 0;
	for (int side = 0; side < 2; side++)
		for (size_t k = 0; k < 3; k++) {
			const struct an_cpu_fn *f = side ? &r->libc_unseen_fns[k] : &R->libc_unseen_fns[k];
			if (!f->samples)
				continue;
			size_t j = 0;
			while (j < n && strcmp(all[j].name, f->name))
				j++;
			if (j == n)
				all[n++] = *f;
			else
				all[j].samples += f->samples;
		}
	memset(R->libc_unseen_fns, 0, sizeof(R->libc_unseen_fns));
	for (size_t k = 0; k < 3 && n; k++) {
		size_t best = 0; /* most samples, the earlier among equals */
		for (size_t j = 1; j < n; j++)
			if (all[j].samples > all[best].samples)
				best = j;
		R->libc_unseen_fns[k] = all[best];
		all[best] = all[--n];
	}
}

/* What r's run could not see (the inst source's unseen modules and the
 * CPU-time samples behind them) into the merge's: modules by name, kept
 * sorted, their samples summed. 0 or -ENOMEM. */
static int fold_unseen(struct an_result *R, const struct an_result *r)
{
	/* (unseen_cpu is NULL while no file sampled CPU time) */
	if (!R->unseen_cpu && R->nunseen_modules && !(R->unseen_cpu = calloc(R->nunseen_modules, sizeof(uint64_t))))
		return -ENOMEM;
	for (size_t i = 0; i < r->nunseen_modules; i++) {
		size_t j = 0;
		while (j < R->nunseen_modules && strcmp(R->unseen_modules[j], r->unseen_modules[i]) < 0)
			j++;
		if (j == R->nunseen_modules || strcmp(R->unseen_modules[j], r->unseen_modules[i])) {
			char **v = realloc(R->unseen_modules, (R->nunseen_modules + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			R->unseen_modules = v;
			uint64_t *c = realloc(R->unseen_cpu, (R->nunseen_modules + 1) * sizeof(*c));
			if (!c)
				return -ENOMEM;
			R->unseen_cpu = c;
			char *name = strdup(r->unseen_modules[i]);
			if (!name)
				return -ENOMEM;
			memmove(v + j + 1, v + j, (R->nunseen_modules - j) * sizeof(*v));
			memmove(c + j + 1, c + j, (R->nunseen_modules - j) * sizeof(*c));
			v[j] = name;
			c[j] = 0;
			R->nunseen_modules++;
		}
		R->unseen_cpu[j] += r->unseen_cpu ? r->unseen_cpu[i] : 0;
	}
	if (!R->cpu_period_ns)
		R->cpu_period_ns = r->cpu_period_ns; /* (the first file's that sampled) */
	R->cpu_samples += r->cpu_samples;
	R->cpu_runtime_samples += r->cpu_runtime_samples;
	R->cpu_lost += r->cpu_lost;
	R->cpu_unplaced += r->cpu_unplaced;
	R->libc_unseen += r->libc_unseen;
	fold_libc_fns(R, r);
	if (!R->cpu_samples) {
		free(R->unseen_cpu);
		R->unseen_cpu = NULL;
	}
	return 0;
}

/* Folds part's result r into the merge; r's moved parts are cleared, the
 * caller frees the rest. */
static int fold(struct an_merge *m, size_t part, struct an_result *r, int first)
{
	struct an_result *R = m->res;
	struct an_merge_part *p = &m->parts[part];
	size_t thread_base = R->nthreads, proc_base = R->nprocs;
	uint32_t *remap = calloc(r->nclasses ? r->nclasses : 1, sizeof(*remap));
	if (!remap)
		return -ENOMEM;
	int err = fold_classes(m, r, part, thread_base, remap);
	if (!err)
		err = fold_functions(m, r);
	if (!err && (grow(&R->threads, &m->threads_cap, R->nthreads + r->nthreads, sizeof(*R->threads)) ||
		     grow(&R->procs, &m->procs_cap, R->nprocs + r->nprocs, sizeof(*R->procs)) ||
		     grow(&R->pages, &m->pages_cap, R->npages + r->npages, sizeof(*R->pages)) ||
		     grow(&R->touches, &m->touches_cap, R->ntouches + r->ntouches, sizeof(*R->touches))))
		err = -ENOMEM;
	if (err) {
		free(remap);
		return err;
	}
	if (r->nthreads) { /* (a file cut before its first thread's chunk has none: r->threads NULL) */
		memcpy(R->threads + R->nthreads, r->threads, r->nthreads * sizeof(*r->threads));
		R->nthreads += r->nthreads;
	}
	if (r->numa) {
		p->numa_placed = 1;
		p->numa_accesses = r->numa->accesses;
		p->numa_remote = r->numa->remote;
		p->numa_pages = r->numa->pages;
		if (m->numa_first == SIZE_MAX)
			m->numa_first = part;
	}
	err = an_merge_numa_fold(&m->numa, R, r, remap, (uint32_t)thread_base);
	if (err == -EXDEV)
		m->numa_conflict = part;
	if (err) {
		free(remap);
		return err;
	}
	for (size_t i = 0; i < r->nprocs; i++) {
		R->procs[R->nprocs++] = r->procs[i];
		r->procs[i].exe = NULL;
	}
	for (size_t i = 0; i < r->npages; i++) {
		struct an_page pg = r->pages[i];
		pg.proc += (uint32_t)proc_base;
		pg.cls = pg.cls < r->nclasses ? remap[pg.cls] : pg.cls;
		R->pages[R->npages++] = pg;
	}
	for (size_t i = 0; i < r->ntouches; i++) {
		struct an_touch t = r->touches[i];
		t.cls = t.cls < r->nclasses ? remap[t.cls] : t.cls;
		t.thread += (uint32_t)thread_base;
		R->touches[R->ntouches++] = t;
	}
	free(remap);
	fold_scalars(R, r, first);
	err = fold_unseen(R, r);
	char name[4200];
	part_name(name, sizeof(name), p);
	for (size_t i = 0; i < r->nwarnings && !err; i++)
		err = warn(m, "%s: %s", name, r->warnings[i]);
	p->damaged = r->damaged;
	p->nwarnings = r->nwarnings;
	p->total = r->total;
	p->mem_total = r->mem_total;
	p->allocations = r->allocations;
	p->nprocs = r->nprocs;
	p->nthreads = r->nthreads;
	p->pid = r->nprocs ? r->procs[0].pid : 0;
	return err;
}

void an_merge_set_jobs(struct an_merge *m, unsigned jobs)
{
	m->jobs = jobs;
}

/* Part i analysed (an_jobs.h's work): its result, its error in the part. */
struct part_work {
	struct an_merge *m;
	struct an_opts o; /* with several jobs: without progress and hooks, not for several threads */
};

static void *part_work(void *arg, size_t i)
{
	struct part_work *w = arg;
	struct an_merge_part *p = &w->m->parts[i];
	struct an_result *r = NULL;
	if (!p->err)
		p->err = an_run(p->path, &w->o, &r);
	return r;
}

static void part_drop(void *arg, void *res)
{
	(void)arg;
	an_result_free(res);
}

int an_merge_run(struct an_merge *m, const struct an_opts *o,
		 void (*progress)(void *arg, const struct an_merge_part *p, size_t i, size_t n), void *arg)
{
	if (o && o->patterns)
		return -EINVAL;
	an_result_free(m->res);
	m->res = calloc(1, sizeof(*m->res));
	if (!m->res)
		return -ENOMEM;
	m->res->run_status = -1;
	m->res->sample_factor = 1.0;
	an_merge_numa_fini(&m->numa);
	m->numa_first = m->numa_conflict = SIZE_MAX;
	snprintf(m->res->source, sizeof(m->res->source), "inst");
	size_t read = 0;
	int err = 0;
	char name[4200];
	/* several jobs: the parts at once, unless the caller's hooks want one thread */
	static const struct an_opts none;
	struct part_work w = { .m = m, .o = o ? *o : none };
	unsigned jobs = m->jobs > 1 && m->nparts > 1 && !(o && (o->on_access || o->on_event)) ? m->jobs : 1;
	if (jobs > 1) {
		unsigned want = jobs < m->nparts ? jobs : (unsigned)m->nparts;
		w.o.progress = NULL;
		/* (the jobs left over go to each part's processes; the CPUs
		 * are the parts', not their models' by default) */
		w.o.jobs = jobs / want > 1 && w.o.jobs > 1 ? jobs / want : 1;
		if (!w.o.model_threads)
			w.o.model_threads = 1;
	}
	struct an_jobs *pool = an_jobs_new(m->nparts, jobs, part_work, part_drop, &w);
	if (!pool)
		return -ENOMEM;
	for (size_t i = 0; i < m->nparts && !err; i++) {
		struct an_merge_part *p = &m->parts[i];
		if (progress)
			progress(arg, p, i, m->nparts);
		struct an_result *r = an_jobs_take(pool, i);
		if (p->err == -ENOMEM)
			err = -ENOMEM;
		else if (p->err)
			err = warn(m, "%s was not read: %s", part_name(name, sizeof(name), p), mp_strerror(p->err));
		else
			err = fold(m, i, r, read++ == 0);
		an_result_free(r);
		an_jobs_done(pool, i);
	}
	an_jobs_free(pool);
	/* ranks of the job the files say it had, without a file here */
	int size = 0;
	for (size_t i = 0; i < m->nparts; i++)
		if (m->parts[i].rank_size > size)
			size = m->parts[i].rank_size;
	for (int rk = 0; rk < size && !err; rk++) {
		size_t i = 0;
		while (i < m->nparts && m->parts[i].rank != rk)
			i++;
		if (i == m->nparts)
			err = warn(m, "rank %d of %d: no readable data file (its figures are missing)", rk, size);
	}
	int numa = err ? 0 : an_merge_numa_finish(&m->numa, m->res);
	if (numa < 0)
		err = numa;
	else if (numa)
		err = warn(m, "the NUMA figures are left out: some files were placed on a NUMA machine and some "
			      "not (give --numa NODESxCPUS to place them all)");
	if (!err && !read)
		err = -ENODATA;
	return err;
}

int an_merge_numa_conflict(const struct an_merge *m, size_t *a, size_t *b)
{
	if (m->numa_conflict == SIZE_MAX || m->numa_first == SIZE_MAX)
		return 0;
	*a = m->numa_first;
	*b = m->numa_conflict;
	return 1;
}

uint64_t an_merge_part_accesses(const struct an_merge *m, size_t cls, size_t part)
{
	if (!m->res || cls >= m->res->nclasses || part >= m->nparts)
		return 0;
	return m->acc[cls][part];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void an_merge_spread(const struct an_merge *m, size_t cls, struct an_spread *out)
{
	*out = (struct an_spread){ .top = SIZE_MAX };
	if (!m->res || cls >= m->res->nclasses)
		return;
	uint64_t *v = malloc((m->nparts ? m->nparts : 1) * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < m->nparts; i++) {
		if (m->parts[i].err)
			continue;
		uint64_t x = m->acc[cls][i];
		if (out->top == SIZE_MAX || x > m->acc[cls][out->top])
			out->top = i; /* (parts are in rank order: the first is the lowest rank) */
		v[out->n++] = x;
	}
	if (out->n) {
		qsort(v, out->n, sizeof(*v), cmp_u64);
		out->min = v[0];
		out->max = v[out->n - 1];
		out->median2 = out->n % 2 ? 2 * v[out->n / 2] : v[out->n / 2 - 1] + v[out->n / 2];
	}
	free(v);
}
