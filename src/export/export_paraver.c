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
#include "common/mp_error.h"
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

static int write_files(struct prv *p, const struct an_result *r, const char *prefix, char *err, size_t errlen)
{
	FILE *prv = open_out(prefix, ".prv", err, errlen), *pcf = NULL, *row = NULL;
	int e = 0;
	if (!prv)
		return -errno;
	/* task = process, thread = its threads in order of appearance */
	uint32_t *task = calloc(r->nthreads + 1, sizeof(*task)), *tnum = calloc(r->nthreads + 1, sizeof(*tnum));
	uint32_t *per = calloc(r->nprocs + 1, sizeof(*per));
	if (!task || !tnum || !per) {
		e = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->nthreads; i++) {
		size_t k = 0;
		while (k < r->nprocs && r->procs[k].pid != r->threads[i].pid)
			k++;
		if (k == r->nprocs)
			k = 0;
		task[i] = (uint32_t)k + 1;
		tnum[i] = ++per[k];
	}
	uint64_t t0 = p->records ? p->t0 : 0, ftime = p->records ? p->t1 - p->t0 + 1 : 1;
	unsigned ncpu = p->max_cpu + 1;
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	size_t ntasks = r->nprocs ? r->nprocs : 1;
	fprintf(prv, "#Paraver (%02d/%02d/%02d at %02d:%02d):%llu_ns:1(%u):1:%zu(", tm.tm_mday, tm.tm_mon + 1,
		tm.tm_year % 100, tm.tm_hour, tm.tm_min, (unsigned long long)ftime, ncpu, ntasks);
	for (size_t k = 0; k < ntasks; k++)
		fprintf(prv, "%s%u:1", k ? "," : "", per[k] ? per[k] : 1);
	fprintf(prv, ")\n");
	for (size_t i = 0; i < p->nth; i++)
		if (p->th[i].tmp) {
			rewind(p->th[i].tmp);
			next(&p->th[i]);
		}
	for (;;) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < p->nth; i++)
			if (p->th[i].have && (best == SIZE_MAX || p->th[i].head.time < p->th[best].head.time))
				best = i;
		if (best == SIZE_MAX)
			break;
		const struct prv_rec *x = &p->th[best].head;
		unsigned long long t = (unsigned long long)(x->time - t0);
		fprintf(prv, "2:%u:1:%u:%u:%llu:", x->cpu + 1u, task[best], tnum[best], t);
		if (x->kind <= 2) {
			uint32_t obj = x->cls < r->nclass_map ? r->class_map[x->cls] : 0;
			fprintf(prv, "%d:%u:%d:%llu:%d:%u\n", PRV_OBJECT, obj + 1, PRV_ADDRESS,
				(unsigned long long)x->addr, PRV_ACCESS, x->kind);
		} else {
			fprintf(prv, "%d:%u\n", PRV_REGION, x->kind == 3 ? x->cls + 1 : 0);
		}
		next(&p->th[best]);
	}
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
	for (size_t i = 0; i < r->nclasses; i++) {
		fprintf(pcf, "%zu      ", i + 1);
		label(pcf, r->classes[i].label);
		fputc('\n', pcf);
	}
	fprintf(pcf,
		"\n\nEVENT_TYPE\n0    %d    Address\n\n\nEVENT_TYPE\n0    %d    Access\nVALUES\n1      load\n"
		"2      store\n\n\nEVENT_TYPE\n0    %d    Region (memprism.h)\nVALUES\n0      end\n",
		PRV_ADDRESS, PRV_ACCESS, PRV_REGION);
	for (size_t i = 0; i < p->nregions; i++)
		fprintf(pcf, "%zu      %s\n", i + 1, p->regions[i]);
	fprintf(pcf, "\n");
	fprintf(row, "LEVEL CPU SIZE %u\n", ncpu);
	for (unsigned c = 0; c < ncpu; c++)
		fprintf(row, "CPU %u\n", c);
	fprintf(row, "\nLEVEL NODE SIZE 1\nnode\n\nLEVEL THREAD SIZE %zu\n", r->nthreads);
	for (size_t k = 0; k < ntasks; k++)
		for (size_t i = 0; i < r->nthreads; i++)
			if (task[i] == k + 1) {
				fprintf(row, "THREAD 1.%u.%u %u", task[i], tnum[i], r->threads[i].tid);
				if (r->threads[i].name[0])
					fprintf(row, " %s", r->threads[i].name);
				fputc('\n', row);
			}
out:
	free(task);
	free(tnum);
	free(per);
	e = close_out(prv, e);
	e = close_out(pcf, e);
	e = close_out(row, e);
	if (e && !err[0])
		snprintf(err, errlen, "cannot write %s.*: %s", prefix, mp_strerror(e));
	return e;
}

int ex_paraver_write(const char *prefix, const struct ex_opts *o, char *err, size_t errlen)
{
	struct prv p = { .t0 = UINT64_MAX, .o = o };
	struct an_result *res = NULL;
	enum an_pass stage;
	int e;
	err[0] = 0;
	if (!(p.bins = an_bins_new())) {
		e = -ENOMEM;
		goto out;
	}
	struct an_opts ao = { .roi = o->roi,
			      .wrappers = o->wrappers,
			      .nwrappers = o->nwrappers,
			      .not_wrappers = o->not_wrappers,
			      .nnot_wrappers = o->nnot_wrappers,
			      .lib_sites = o->lib_sites,
			      .context = o->context,
			      .on_access = scan_access,
			      .on_event = scan_event,
			      .hook_arg = &p };
	const struct an_two_pass tp = {
		.on_access = fill_access, .on_event = fill_event, .plan = plan, .error = fill_error, .arg = &p
	};
	if ((e = an_run_two_pass(o->data_path, &ao, &tp, &res, &stage))) {
		if (stage == AN_PASS_FIRST)
			snprintf(err, errlen, "cannot read %s: %s", o->data_path, mp_strerror(e));
		goto out;
	}
	e = write_files(&p, res, prefix, err, errlen);
out:
	if (e && !err[0])
		snprintf(err, errlen, "%s", mp_strerror(e));
	for (size_t i = 0; i < p.nth; i++)
		if (p.th[i].tmp)
			fclose(p.th[i].tmp);
	free(p.th);
	for (size_t i = 0; i < p.nregions; i++)
		free(p.regions[i]);
	free(p.regions);
	an_bins_free(p.bins);
	an_result_free(res);
	return e;
}
