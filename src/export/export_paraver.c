// SPDX-License-Identifier: MIT
/*
 * Paraver export (the BSC tools paper's Paraver): PREFIX.prv holds one event record
 * per counted access — object, address, load/store — and region begin/end
 * events, on the thread that made them, at the access's interpolated time
 * (an_bins: the trace stamps only every 1 MiB chunk); PREFIX.pcf names the
 * event types and the objects; PREFIX.row names the threads and CPUs.
 * Paraver wants records sorted by time: each thread's records go to a
 * temporary file in thread order (already sorted) and are merged at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/an_bins.h"
#include "analysis/an_jobs.h"
#include "common/hashmap.h"
#include "common/mp_error.h"
#include "export/ex_int.h"
#include "export/export.h"
#include "trace/trace_format.h"

/* Paraver event types (user range) */
#define PRV_OBJECT 32000001 /* value: object id + 1 */
#define PRV_ADDRESS 32000002 /* value: virtual address */
#define PRV_ACCESS 32000003 /* 1 load, 2 store */
#define PRV_REGION 32000004 /* value: region id + 1 at begin, 0 at end */

struct prv_rec {
	uint64_t time, addr;
	uint32_t cls; /* replay class; region: region id */
	uint16_t cpu;
	uint8_t kind; /* 1 load, 2 store, 3 region begin, 4 region end */
	uint8_t pad;
};

struct prv_thread {
	FILE *tmp;
	struct prv_rec head;
	int have;
	uint64_t n;
};

struct prv {
	struct an_bins *bins;
	struct prv_thread *th;
	size_t nth;
	char **regions;
	size_t nregions;
	uint64_t t0, t1, records;
	unsigned max_cpu;
	int err;
	const struct ex_opts *o;
};

static struct prv_thread *thread(struct prv *p, uint32_t t)
{
	if (t >= p->nth) {
		size_t n = (size_t)t + 1;
		struct prv_thread *v = realloc(p->th, n * sizeof(*v));
		if (!v) {
			p->err = -ENOMEM;
			return NULL;
		}
		memset(v + p->nth, 0, (n - p->nth) * sizeof(*v));
		p->th = v;
		p->nth = n;
	}
	struct prv_thread *th = &p->th[t];
	if (!th->tmp && !(th->tmp = tmpfile())) {
		p->err = -errno;
		return NULL;
	}
	return th;
}

static void put(struct prv *p, uint32_t t, const struct prv_rec *r)
{
	struct prv_thread *th = p->err ? NULL : thread(p, t);
	if (!th)
		return;
	if (fwrite(r, sizeof(*r), 1, th->tmp) != 1) {
		p->err = -EIO;
		return;
	}
	th->n++;
	p->records++;
	if (r->time < p->t0)
		p->t0 = r->time;
	if (r->time > p->t1)
		p->t1 = r->time;
	if (r->cpu > p->max_cpu)
		p->max_cpu = r->cpu;
}

static void scan_access(void *arg, const struct an_access *a)
{
	an_bins_scan_access(((struct prv *)arg)->bins, a);
}

static void scan_event(void *arg, const struct an_event *e)
{
	an_bins_scan_event(((struct prv *)arg)->bins, e);
}

static void fill_access(void *arg, const struct an_access *a)
{
	struct prv *p = arg;
	uint64_t t = an_bins_time_of(p->bins, a, 0);
	if (!a->counted)
		return;
	struct prv_rec r = {
		.time = t, .addr = a->addr, .cls = a->cls, .cpu = (uint16_t)a->cpu, .kind = a->write ? 2 : 1
	};
	put(p, a->thread, &r);
}

/* Between the replays: the caller hears of the result (a damaged file),
 * and the time grid that interpolates each access's time is planned. */
static int plan(void *arg, const struct an_result *res)
{
	struct prv *p = arg;
	if (p->o->on_result)
		p->o->on_result(p->o->result_arg, res);
	return an_bins_plan(p->bins, res, 0);
}

static int fill_error(void *arg)
{
	struct prv *p = arg;
	return p->err ? p->err : an_bins_error(p->bins);
}

static uint32_t region_id(struct prv *p, const char *s, size_t n)
{
	for (size_t i = 0; i < p->nregions; i++)
		if (strlen(p->regions[i]) == n && memcmp(p->regions[i], s, n) == 0)
			return (uint32_t)i;
	char **v = realloc(p->regions, (p->nregions + 1) * sizeof(*v));
	char *d = malloc(n + 1);
	if (!v || !d) {
		free(d);
		if (v)
			p->regions = v;
		p->err = -ENOMEM;
		return 0;
	}
	memcpy(d, s, n);
	d[n] = 0;
	p->regions = v;
	p->regions[p->nregions] = d;
	return (uint32_t)p->nregions++;
}

static void fill_event(void *arg, const struct an_event *e)
{
	struct prv *p = arg;
	if (e->type != MP_EV_REGION_BEGIN && e->type != MP_EV_REGION_END)
		return;
	struct prv_rec r = { .time = e->time,
			     .cls = region_id(p, e->str, e->str_len),
			     .cpu = (uint16_t)e->cpu,
			     .kind = e->type == MP_EV_REGION_BEGIN ? 3 : 4 };
	put(p, e->thread, &r);
}

static int next(struct prv_thread *th)
{
	th->have = th->tmp && fread(&th->head, sizeof(th->head), 1, th->tmp) == 1;
	return th->have;
}

/* Paraver labels end at the line: no newlines inside. */
static void label(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static FILE *open_out(const char *prefix, const char *ext, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s%s", prefix, ext);
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, int e)
{
	if (!f)
		return e;
	if ((ferror(f) | fclose(f)) && !e)
		e = -EIO;
	return e;
}

/* One data file's part of the export: its replay's records (p), its
 * result, and where its objects, regions, tasks and CPUs go in the files
 * written (one file: where they were). */
struct part {
	struct prv p;
	struct an_result *res;
	uint32_t *obj; /* result class -> object id in the .pcf (0-based) */
	uint32_t *region; /* p's region -> region id in the .pcf */
	uint32_t *task, *tnum; /* thread -> task (1-based), its number in the task */
	uint32_t *per; /* threads of each of its tasks */
	size_t ntasks, task_base;
	unsigned cpu_base, ncpu;
	const char *node; /* the .row's name of its node */
	char node_buf[200];
};

/* The object and region names of the .pcf: several files' merged by key
 * (thousands of rows per file: found by hash, not by a scan). */
struct names {
	char **v;
	uint32_t *next; /* the next index with the same hash + 1, 0 none */
	size_t n, cap;
	struct mp_hashmap first; /* hash -> index + 1 of the first with it */
};

static long name_id(struct names *nm, const char *s, int merge)
{
	s = s ? s : "";
	uint64_t h = mp_hash_str(s, 0), *head = merge ? mp_hashmap_get(&nm->first, h) : NULL;
	uint32_t next = head ? (uint32_t)*head : 0;
	for (uint32_t i = next; i; i = nm->next[i - 1])
		if (!strcmp(nm->v[i - 1], s))
			return (long)i - 1;
	if (nm->n == nm->cap) {
		size_t nc = nm->cap ? 2 * nm->cap : 64;
		char **v = realloc(nm->v, nc * sizeof(*v));
		if (v)
			nm->v = v;
		uint32_t *nx = v ? realloc(nm->next, nc * sizeof(*nx)) : NULL;
		if (!nx)
			return -1;
		nm->next = nx;
		nm->cap = nc;
	}
	if (!(nm->v[nm->n] = strdup(s)) || (merge && mp_hashmap_put(&nm->first, h, nm->n + 1)))
		return -1;
	nm->next[nm->n] = next;
	return (long)nm->n++;
}

static void names_fini(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	free(nm->next);
	mp_hashmap_fini(&nm->first);
}

/* An object's key across files: its label, but for stacks, whose labels
 * name a pid or tid (as the merged report's rows). */
static const char *object_key(const struct an_class *c)
{
	if (c->kind == AN_KIND_STACK && c->label)
		return strncmp(c->label, "main thread stack", 17) == 0 ? "main thread stacks" : "thread stacks";
	return c->label;
}

/* Part q's places: its tasks (processes; threads in order of appearance),
 * objects and regions in the names, CPUs after the previous parts'. */
static int place(struct part *q, size_t n, struct names *objs, struct names *regions, size_t *tasks, unsigned *cpus)
{
	const struct an_result *r = q->res;
	q->task = calloc(r->nthreads + 1, sizeof(*q->task));
	q->tnum = calloc(r->nthreads + 1, sizeof(*q->tnum));
	q->per = calloc(r->nprocs + 1, sizeof(*q->per));
	q->obj = calloc(r->nclasses + 1, sizeof(*q->obj));
	q->region = calloc(q->p.nregions + 1, sizeof(*q->region));
	if (!q->task || !q->tnum || !q->per || !q->obj || !q->region)
		return -ENOMEM;
	for (size_t i = 0; i < r->nthreads; i++) {
		size_t k = 0;
		while (k < r->nprocs && r->procs[k].pid != r->threads[i].pid)
			k++;
		if (k == r->nprocs)
			k = 0;
		q->task[i] = (uint32_t)(*tasks + k + 1);
		q->tnum[i] = ++q->per[k];
	}
	q->task_base = *tasks;
	q->ntasks = r->nprocs ? r->nprocs : 1;
	*tasks += q->ntasks;
	q->ncpu = q->p.max_cpu + 1;
	q->cpu_base = *cpus;
	*cpus += q->ncpu;
	for (size_t i = 0; i < r->nclasses; i++) {
		long id = name_id(objs, n > 1 ? object_key(&r->classes[i]) : r->classes[i].label, n > 1);
		if (id < 0)
			return -ENOMEM;
		q->obj[i] = (uint32_t)id;
	}
	for (size_t i = 0; i < q->p.nregions; i++) {
		long id = name_id(regions, q->p.regions[i], n > 1);
		if (id < 0)
			return -ENOMEM;
		q->region[i] = (uint32_t)id;
	}
	return 0;
}

static void part_fini(struct part *q)
{
	for (size_t i = 0; i < q->p.nth; i++)
		if (q->p.th[i].tmp)
			fclose(q->p.th[i].tmp);
	free(q->p.th);
	for (size_t i = 0; i < q->p.nregions; i++)
		free(q->p.regions[i]);
	free(q->p.regions);
	an_bins_free(q->p.bins);
	an_result_free(q->res);
	free(q->obj);
	free(q->region);
	free(q->task);
	free(q->tnum);
	free(q->per);
}

/* The .prv's records: every part's threads merged by time, each part's
 * times from its own first record (one clock per process). */
static void write_records(FILE *prv, struct part *parts, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < parts[k].p.nth; i++)
			if (parts[k].p.th[i].tmp) {
				rewind(parts[k].p.th[i].tmp);
				next(&parts[k].p.th[i]);
			}
	for (;;) {
		size_t bk = SIZE_MAX, best = SIZE_MAX;
		uint64_t bt = 0;
		for (size_t k = 0; k < n; k++) {
			const struct prv *p = &parts[k].p;
			uint64_t t0 = p->records ? p->t0 : 0;
			for (size_t i = 0; i < p->nth; i++)
				if (p->th[i].have && (best == SIZE_MAX || p->th[i].head.time - t0 < bt)) {
					bk = k;
					best = i;
					bt = p->th[i].head.time - t0;
				}
		}
		if (best == SIZE_MAX)
			break;
		struct part *q = &parts[bk];
		const struct an_result *r = q->res;
		const struct prv_rec *x = &q->p.th[best].head;
		fprintf(prv, "2:%u:1:%u:%u:%llu:", q->cpu_base + x->cpu + 1u, q->task[best], q->tnum[best],
			(unsigned long long)bt);
		if (x->kind <= 2) {
			uint32_t obj = x->cls < r->nclass_map ? r->class_map[x->cls] : 0;
			fprintf(prv, "%d:%u:%d:%llu:%d:%u\n", PRV_OBJECT, (obj < r->nclasses ? q->obj[obj] : obj) + 1,
				PRV_ADDRESS, (unsigned long long)x->addr, PRV_ACCESS, x->kind);
		} else {
			fprintf(prv, "%d:%u\n", PRV_REGION,
				x->kind == 3 ? (x->cls < q->p.nregions ? q->region[x->cls] : x->cls) + 1 : 0);
		}
		next(&q->p.th[best]);
	}
}

static int write_files(struct part *parts, size_t n, const char *prefix, char *err, size_t errlen)
{
	FILE *prv = open_out(prefix, ".prv", err, errlen), *pcf = NULL, *row = NULL;
	struct names objs = { 0 }, regions = { 0 };
	int e = 0;
	if (!prv)
		return -errno;
	size_t ntasks = 0, nthreads = 0;
	unsigned ncpu = 0;
	uint64_t ftime = 1;
	for (size_t k = 0; k < n && !e; k++) {
		e = place(&parts[k], n, &objs, &regions, &ntasks, &ncpu);
		const struct prv *p = &parts[k].p;
		if (p->records && p->t1 - p->t0 + 1 > ftime)
			ftime = p->t1 - p->t0 + 1;
		nthreads += parts[k].res->nthreads;
	}
	if (e)
		goto out;
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	/* a node per file (its own CPUs), a task per process */
	fprintf(prv, "#Paraver (%02d/%02d/%02d at %02d:%02d):%llu_ns:%zu(", tm.tm_mday, tm.tm_mon + 1, tm.tm_year % 100,
		tm.tm_hour, tm.tm_min, (unsigned long long)ftime, n);
	for (size_t k = 0; k < n; k++)
		fprintf(prv, "%s%u", k ? "," : "", parts[k].ncpu);
	fprintf(prv, "):1:%zu(", ntasks);
	for (size_t k = 0; k < n; k++)
		for (size_t t = 0; t < parts[k].ntasks; t++)
			fprintf(prv, "%s%u:%zu", k || t ? "," : "", parts[k].per[t] ? parts[k].per[t] : 1, k + 1);
	fprintf(prv, ")\n");
	write_records(prv, parts, n);
	if (!(pcf = open_out(prefix, ".pcf", err, errlen)) || !(row = open_out(prefix, ".row", err, errlen))) {
		e = -EIO;
		goto out;
	}
	fprintf(pcf,
		"DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n"
		"LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n"
		"NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n"
		"EVENT_TYPE\n0    %d    Object (memprism)\nVALUES\n0      none\n",
		PRV_OBJECT);
	for (size_t i = 0; i < objs.n; i++) {
		fprintf(pcf, "%zu      ", i + 1);
		label(pcf, objs.v[i]);
		fputc('\n', pcf);
	}
	fprintf(pcf,
		"\n\nEVENT_TYPE\n0    %d    Address\n\n\nEVENT_TYPE\n0    %d    Access\nVALUES\n1      load\n"
		"2      store\n\n\nEVENT_TYPE\n0    %d    Region (memprism.h)\nVALUES\n0      end\n",
		PRV_ADDRESS, PRV_ACCESS, PRV_REGION);
	for (size_t i = 0; i < regions.n; i++)
		fprintf(pcf, "%zu      %s\n", i + 1, regions.v[i]);
	fprintf(pcf, "\n");
	fprintf(row, "LEVEL CPU SIZE %u\n", ncpu);
	for (size_t k = 0; k < n; k++)
		for (unsigned c = 0; c < parts[k].ncpu; c++) {
			if (n > 1)
				fprintf(row, "CPU %s.%u\n", parts[k].node, c);
			else
				fprintf(row, "CPU %u\n", c);
		}
	fprintf(row, "\nLEVEL NODE SIZE %zu\n", n);
	for (size_t k = 0; k < n; k++)
		fprintf(row, "%s\n", n > 1 ? parts[k].node : "node");
	fprintf(row, "\nLEVEL THREAD SIZE %zu\n", nthreads);
	for (size_t k = 0; k < n; k++) {
		const struct part *q = &parts[k];
		const struct an_result *r = q->res;
		for (size_t t = 0; t < q->ntasks; t++)
			for (size_t i = 0; i < r->nthreads; i++)
				if (q->task[i] == q->task_base + t + 1) {
					fprintf(row, "THREAD 1.%u.%u %u", q->task[i], q->tnum[i], r->threads[i].tid);
					if (r->threads[i].name[0])
						fprintf(row, " %s", r->threads[i].name);
					fputc('\n', row);
				}
	}
out:
	names_fini(&objs);
	names_fini(&regions);
	e = close_out(prv, e);
	e = close_out(pcf, e);
	e = close_out(row, e);
	if (e && !err[0])
		snprintf(err, errlen, "cannot write %s.*: %s", prefix, mp_strerror(e));
	return e;
}

/* Replays data twice into q: 0, or the error with *stage. */
static int replay(struct part *q, const char *data, const struct ex_opts *o, enum an_pass *stage)
{
	memset(q, 0, sizeof(*q));
	q->p = (struct prv){ .t0 = UINT64_MAX, .o = o };
	*stage = AN_PASS_FIRST;
	if (!(q->p.bins = an_bins_new()))
		return -ENOMEM;
	struct an_opts ao = ex_an_opts(o);
	ao.on_access = scan_access;
	ao.on_event = scan_event;
	ao.hook_arg = &q->p;
	const struct an_two_pass tp = {
		.on_access = fill_access, .on_event = fill_event, .plan = plan, .error = fill_error, .arg = &q->p
	};
	return an_run_two_pass(data, &ao, &tp, &q->res, stage);
}

int ex_paraver_write(const char *prefix, const struct ex_opts *o, char *err, size_t errlen)
{
	struct part q;
	enum an_pass stage;
	err[0] = 0;
	int e = replay(&q, o->data_path, o, &stage);
	if (e && stage == AN_PASS_FIRST)
		snprintf(err, errlen, "cannot read %s: %s", o->data_path, mp_strerror(e));
	if (!e)
		e = write_files(&q, 1, prefix, err, errlen);
	if (e && !err[0])
		snprintf(err, errlen, "%s", mp_strerror(e));
	part_fini(&q);
	return e;
}

/* One file's replays (an_jobs.h's work): its part, or the error and the
 * stage it came at. */
struct prv_file {
	struct part q;
	enum an_pass stage;
	int err;
};

struct prv_work {
	const struct ex_opts *one;
	const char *const *files;
};

static void *file_work(void *arg, size_t i)
{
	const struct prv_work *w = arg;
	struct prv_file *x = calloc(1, sizeof(*x));
	if (x)
		x->err = replay(&x->q, w->files[i], w->one, &x->stage);
	return x;
}

static void file_drop(void *arg, void *p)
{
	struct prv_file *x = p;
	(void)arg;
	if (x)
		part_fini(&x->q);
	free(x);
}

/* The files are replayed o->jobs at once (each into a part of its own:
 * the hooks see one file's accesses) and taken in the files' order, as
 * one after the other: the same trace files. A file's processes are
 * replayed one after another: the hooks place every access of the file
 * on one time grid, in the order the serial replay meets them
 * (an_par_wanted refuses hooks). Every file's part is held (its result,
 * not its records: those wait in temporary files) until the trace is
 * written. */
int ex_paraver_write_many(const char *prefix, const struct ex_opts *o, const char *const *files,
			  const char *const *nodes, size_t n, char *err, size_t errlen)
{
	struct part *parts = calloc(n ? n : 1, sizeof(*parts));
	struct ex_opts one = *o;
	size_t read = 0;
	int e = 0;
	err[0] = 0;
	if (!parts)
		return -ENOMEM;
	one.on_result = NULL; /* (on_file says each) */
	struct prv_work w = { &one, files };
	struct an_jobs *jobs = an_jobs_new(n, o->jobs, file_work, file_drop, &w);
	if (!jobs)
		e = -ENOMEM;
	for (size_t i = 0; i < n && !e; i++) {
		struct prv_file *x = an_jobs_take(jobs, i);
		if (!x) {
			e = -ENOMEM;
			break;
		}
		int r = x->err;
		if (o->on_file)
			o->on_file(o->result_arg, files[i], r ? NULL : x->q.res, r);
		if (r && (x->stage != AN_PASS_FIRST || r == -ENOMEM)) {
			e = r; /* (not the file's fault: the export stops) */
			snprintf(err, errlen, "%s: %s", files[i], mp_strerror(r));
		}
		if (r) {
			file_drop(NULL, x);
			an_jobs_done(jobs, i);
			continue;
		}
		struct part *q = &parts[read++];
		*q = x->q; /* (its own now: x goes without part_fini) */
		free(x);
		snprintf(q->node_buf, sizeof(q->node_buf), "%s", nodes ? nodes[i] : files[i]);
		q->node = q->node_buf;
		q->p.o = o;
		an_jobs_done(jobs, i);
	}
	an_jobs_free(jobs);
	if (!e && !read) {
		e = -ENODATA;
		snprintf(err, errlen, "none of the %zu data files could be read", n);
	}
	if (!e)
		e = write_files(parts, read, prefix, err, errlen);
	if (e && !err[0])
		snprintf(err, errlen, "%s", mp_strerror(e));
	for (size_t i = 0; i < read; i++)
		part_fini(&parts[i]);
	free(parts);
	return e;
}
