// SPDX-License-Identifier: MIT
/*
 * SQLite export: the result tables and the attributed stream itself, so
 * users can ask their own questions in SQL. Accesses are written as the
 * replay makes them with the replay's class numbers (resolved to object
 * ids only when the replay ends), so the `accesses` view joins them to the
 * `replay_classes` map. Schema: docs/report-formats.md.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/an_bins.h"
#include "analysis/an_pattern.h"
#include "common/mp_error.h"
#include "common/vec.h"
#include "export/ex_int.h"
#include "export/export.h"
#include "trace/trace_format.h"

static const char schema[] =
	"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	"CREATE TABLE run(key TEXT PRIMARY KEY, value);"
	"CREATE TABLE objects(id INTEGER PRIMARY KEY, label TEXT, kind TEXT, site TEXT, accesses INTEGER,"
	" loads INTEGER, stores INTEGER, bytes_loaded INTEGER, bytes_stored INTEGER, size INTEGER,"
	" instances INTEGER, max_size INTEGER, threads INTEGER, pattern TEXT, stride INTEGER,"
	" pattern_share REAL);"
	"CREATE TABLE stacks(object_id INTEGER, depth INTEGER, function TEXT, file TEXT, line INTEGER,"
	" module TEXT, inlined INTEGER);"
	"CREATE TABLE threads(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, name TEXT, accesses INTEGER,"
	" loads INTEGER, stores INTEGER, allocations INTEGER);"
	"CREATE TABLE functions(id INTEGER PRIMARY KEY, name TEXT, module TEXT, accesses INTEGER, loads INTEGER,"
	" stores INTEGER);"
	"CREATE TABLE allocations(id INTEGER PRIMARY KEY, thread_id INTEGER, object_id INTEGER, kind TEXT,"
	" addr INTEGER, size INTEGER, time INTEGER, epoch INTEGER);"
	"CREATE TABLE frees(thread_id INTEGER, addr INTEGER, time INTEGER, epoch INTEGER);"
	"CREATE TABLE regions(id INTEGER PRIMARY KEY, thread_id INTEGER, name TEXT, begin_time INTEGER,"
	" end_time INTEGER, begin_epoch INTEGER, end_epoch INTEGER);"
	"CREATE TABLE replay_classes(replay INTEGER PRIMARY KEY, object_id INTEGER);";

static const char schema_accesses[] =
	"CREATE TABLE access_log(seq INTEGER PRIMARY KEY, thread_id INTEGER, replay_class INTEGER, addr INTEGER,"
	" size INTEGER, ip INTEGER, time INTEGER, cpu INTEGER, write INTEGER, counted INTEGER);"
	"CREATE VIEW accesses AS SELECT a.seq, a.thread_id, r.object_id, a.addr, a.size, a.ip, a.time, a.cpu,"
	" a.write, a.counted FROM access_log a JOIN replay_classes r ON r.replay = a.replay_class;";

static const char schema_bins[] =
	"CREATE TABLE access_bins(object_id INTEGER, time_bin INTEGER, addr_bin INTEGER, loads INTEGER,"
	" stores INTEGER, dram_loads INTEGER);"
	"CREATE TABLE bin_axes(object_id INTEGER PRIMARY KEY, addr_lo INTEGER, addr_hi INTEGER, addr_bins INTEGER,"
	" time_lo INTEGER, time_hi INTEGER, time_bins INTEGER, addr_span INTEGER);"
	"CREATE TABLE bin_segments(object_id INTEGER, addr_lo INTEGER, addr_hi INTEGER, axis_offset INTEGER);";

struct alloc_rec {
	uint32_t thread, cls;
	int mmap;
	uint64_t addr, size, time, epoch;
};

struct open_region {
	uint32_t thread;
	char name[128];
	uint64_t time, epoch;
};

struct sq {
	sqlite3 *db;
	sqlite3_stmt *access, *freed, *region;
	MP_VEC(struct alloc_rec) allocs;
	MP_VEC(struct open_region) open;
	struct an_patterns *pats;
	struct an_pattern *pat; /* per class, from the patterns after the replay */
	struct an_bins *bins;
	const struct ex_opts *o;
	uint64_t seq;
	int rc; /* first SQLite error */
	int oom;
};

static void step(struct sq *q, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && q->rc == SQLITE_OK)
		q->rc = rc;
	sqlite3_reset(st);
}

static void on_access(void *arg, const struct an_access *a)
{
	struct sq *q = arg;
	an_patterns_on_access(q->pats, a);
	if (q->bins) {
		an_bins_scan_access(q->bins, a);
		return;
	}
	if (!a->counted || q->rc != SQLITE_OK)
		return;
	sqlite3_stmt *s = q->access;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)q->seq++);
	sqlite3_bind_int64(s, 2, a->thread);
	sqlite3_bind_int64(s, 3, a->cls);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)a->addr);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)a->size);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)a->ip);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)a->time);
	sqlite3_bind_int64(s, 8, a->cpu);
	sqlite3_bind_int(s, 9, a->write);
	sqlite3_bind_int(s, 10, a->counted);
	step(q, s);
}

static void on_event(void *arg, const struct an_event *e)
{
	struct sq *q = arg;
	if (q->bins)
		an_bins_scan_event(q->bins, e);
	switch (e->type) {
	case MP_EV_ALLOC:
	case MP_EV_MMAP: {
		if (e->nf < 4)
			break;
		struct alloc_rec r = { e->thread, e->cls, e->type == MP_EV_MMAP, e->f[2], e->f[3], e->time, e->epoch };
		if (mp_vec_push(&q->allocs, r))
			q->oom = 1;
		break;
	}
	case MP_EV_FREE:
		if (e->nf < 3 || q->rc != SQLITE_OK)
			break;
		sqlite3_bind_int64(q->freed, 1, e->thread);
		sqlite3_bind_int64(q->freed, 2, (sqlite3_int64)e->f[2]);
		sqlite3_bind_int64(q->freed, 3, (sqlite3_int64)e->time);
		sqlite3_bind_int64(q->freed, 4, (sqlite3_int64)e->epoch);
		step(q, q->freed);
		break;
	case MP_EV_REGION_BEGIN: {
		struct open_region r = { .thread = e->thread, .time = e->time, .epoch = e->epoch };
		size_t n = e->str_len < sizeof(r.name) - 1 ? e->str_len : sizeof(r.name) - 1;
		memcpy(r.name, e->str, n);
		if (mp_vec_push(&q->open, r))
			q->oom = 1;
		break;
	}
	case MP_EV_REGION_END:
		/* the innermost open instance of that name in that thread */
		for (size_t i = q->open.n; i-- > 0;) {
			struct open_region *r = &q->open.v[i];
			if (r->thread != e->thread || strlen(r->name) != e->str_len ||
			    memcmp(r->name, e->str, e->str_len) != 0)
				continue;
			sqlite3_bind_int64(q->region, 1, r->thread);
			sqlite3_bind_text(q->region, 2, r->name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(q->region, 3, (sqlite3_int64)r->time);
			sqlite3_bind_int64(q->region, 4, (sqlite3_int64)e->time);
			sqlite3_bind_int64(q->region, 5, (sqlite3_int64)r->epoch);
			sqlite3_bind_int64(q->region, 6, (sqlite3_int64)e->epoch);
			step(q, q->region);
			q->open.v[i] = q->open.v[--q->open.n];
			break;
		}
		break;
	default:
		break;
	}
}

static int exec(struct sq *q, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "sqlite: %s", msg ? msg : sqlite3_errmsg(q->db));
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

static int prepare(struct sq *q, const char *sql, sqlite3_stmt **st, char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(q->db, sql, -1, st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "sqlite: %s", sqlite3_errmsg(q->db));
		return -EIO;
	}
	return 0;
}

static uint32_t object_of(const struct an_result *r, uint32_t replay)
{
	return replay < r->nclass_map ? r->class_map[replay] : UINT32_MAX;
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *t)
{
	if (t)
		sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* The result tables, after the replay. */
static int write_tables(struct sq *q, const struct an_result *r, const struct an_pattern *pat, const char *data,
			char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int e;
	if ((e = prepare(q, "INSERT INTO run VALUES(?,?)", &s, err, errlen)))
		return e;
	const char *keys[] = { "data", "command", "source", "mem_origin", "machine" };
	const char *vals[] = { data, r->cmdline, strcmp(r->source, "valgrind") == 0 ? "valgrind" : "inst",
			       r->mem_origin == AN_MEM_MODELLED	  ? "modelled"
			       : r->mem_origin == AN_MEM_MEASURED ? "measured"
								  : "none",
			       r->machine };
	for (int i = 0; i < 5; i++) {
		sqlite3_bind_text(s, 1, keys[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, vals[i], -1, SQLITE_STATIC);
		step(q, s);
	}
	const char *nkeys[] = { "accesses", "loads", "stores", "outside_roi", "exit_status", "allocations" };
	int64_t nvals[] = { (int64_t)(r->total.loads + r->total.stores),
			    (int64_t)r->total.loads,
			    (int64_t)r->total.stores,
			    (int64_t)r->accesses_outside_roi,
			    r->run_status,
			    (int64_t)r->allocations };
	for (int i = 0; i < 6; i++) {
		sqlite3_bind_text(s, 1, nkeys[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, nvals[i]);
		step(q, s);
	}
	sqlite3_finalize(s);
	if ((e = prepare(q, "INSERT INTO objects VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &s, err, errlen)))
		return e;
	sqlite3_stmt *fs = NULL;
	if ((e = prepare(q, "INSERT INTO stacks VALUES(?,?,?,?,?,?,?)", &fs, err, errlen))) {
		sqlite3_finalize(s);
		return e;
	}
	for (size_t i = 0; i < r->nclasses; i++) {
		const struct an_class *c = &r->classes[i];
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i);
		bind_text_or_null(s, 2, c->label);
		sqlite3_bind_text(s, 3, an_kind_name(c->kind), -1, SQLITE_STATIC);
		bind_text_or_null(s, 4, c->site);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)(c->c.loads + c->c.stores));
		sqlite3_bind_int64(s, 6, (sqlite3_int64)c->c.loads);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)c->c.stores);
		sqlite3_bind_int64(s, 8, (sqlite3_int64)c->c.bytes_loaded);
		sqlite3_bind_int64(s, 9, (sqlite3_int64)c->c.bytes_stored);
		sqlite3_bind_int64(s, 10, (sqlite3_int64)c->bytes_allocated);
		sqlite3_bind_int64(s, 11, (sqlite3_int64)c->instances);
		sqlite3_bind_int64(s, 12, (sqlite3_int64)c->max_size);
		sqlite3_bind_int64(s, 13, (sqlite3_int64)c->nthreads);
		sqlite3_bind_text(s, 14, an_pat_name(pat[i].kind), -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 15, pat[i].stride);
		sqlite3_bind_double(s, 16, pat[i].share);
		step(q, s);
		for (int k = 0; k < c->nstack; k++) {
			const struct an_frame *f = &c->stack[k];
			sqlite3_bind_int64(fs, 1, (sqlite3_int64)i);
			sqlite3_bind_int(fs, 2, k - c->site_frame); /* (library frames below the site: < 0) */
			bind_text_or_null(fs, 3, f->function);
			bind_text_or_null(fs, 4, f->file);
			sqlite3_bind_int(fs, 5, f->line);
			bind_text_or_null(fs, 6, f->module);
			sqlite3_bind_int(fs, 7, f->inlined);
			step(q, fs);
		}
	}
	sqlite3_finalize(s);
	sqlite3_finalize(fs);
	if ((e = prepare(q, "INSERT INTO threads VALUES(?,?,?,?,?,?,?,?)", &s, err, errlen)))
		return e;
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct an_thread *t = &r->threads[i];
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i);
		sqlite3_bind_int64(s, 2, t->pid);
		sqlite3_bind_int64(s, 3, t->tid);
		sqlite3_bind_text(s, 4, t->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)(t->c.loads + t->c.stores));
		sqlite3_bind_int64(s, 6, (sqlite3_int64)t->c.loads);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)t->c.stores);
		sqlite3_bind_int64(s, 8, (sqlite3_int64)t->allocations);
		step(q, s);
	}
	sqlite3_finalize(s);
	if ((e = prepare(q, "INSERT INTO functions VALUES(?,?,?,?,?,?)", &s, err, errlen)))
		return e;
	for (size_t i = 0; i < r->nfunctions; i++) {
		const struct an_function *f = &r->functions[i];
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i);
		bind_text_or_null(s, 2, f->name);
		bind_text_or_null(s, 3, f->module);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)(f->c.loads + f->c.stores));
		sqlite3_bind_int64(s, 5, (sqlite3_int64)f->c.loads);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)f->c.stores);
		step(q, s);
	}
	sqlite3_finalize(s);
	if ((e = prepare(q, "INSERT INTO allocations VALUES(?,?,?,?,?,?,?,?)", &s, err, errlen)))
		return e;
	for (size_t i = 0; i < q->allocs.n; i++) {
		const struct alloc_rec *a = &q->allocs.v[i];
		uint32_t obj = object_of(r, a->cls);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i);
		sqlite3_bind_int64(s, 2, a->thread);
		if (obj == UINT32_MAX)
			sqlite3_bind_null(s, 3);
		else
			sqlite3_bind_int64(s, 3, obj);
		sqlite3_bind_text(s, 4, a->mmap ? "mmap" : "heap", -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)a->addr);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)a->size);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)a->time);
		sqlite3_bind_int64(s, 8, (sqlite3_int64)a->epoch);
		step(q, s);
	}
	sqlite3_finalize(s);
	if ((e = prepare(q, "INSERT INTO replay_classes VALUES(?,?)", &s, err, errlen)))
		return e;
	for (size_t i = 0; i < r->nclass_map; i++) {
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i);
		sqlite3_bind_int64(s, 2, r->class_map[i]);
		step(q, s);
	}
	sqlite3_finalize(s);
	/* regions still open at the end of the trace */
	for (size_t i = 0; i < q->open.n; i++) {
		const struct open_region *o = &q->open.v[i];
		sqlite3_bind_int64(q->region, 1, o->thread);
		sqlite3_bind_text(q->region, 2, o->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(q->region, 3, (sqlite3_int64)o->time);
		sqlite3_bind_null(q->region, 4);
		sqlite3_bind_int64(q->region, 5, (sqlite3_int64)o->epoch);
		sqlite3_bind_null(q->region, 6);
		step(q, q->region);
	}
	return 0;
}

static int write_bins(struct sq *q, const struct an_bins *b, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL, *ax = NULL, *sg = NULL;
	int e;
	if ((e = prepare(q, "INSERT INTO access_bins VALUES(?,?,?,?,?,?)", &s, err, errlen)))
		return e;
	if ((e = prepare(q, "INSERT INTO bin_axes VALUES(?,?,?,?,?,?,?,?)", &ax, err, errlen)) ||
	    (e = prepare(q, "INSERT INTO bin_segments VALUES(?,?,?,?)", &sg, err, errlen))) {
		sqlite3_finalize(s);
		sqlite3_finalize(ax);
		return e;
	}
	uint64_t t0, t1;
	an_bins_time(b, &t0, &t1);
	for (size_t g = 0; g < an_bins_ngrids(b); g++) {
		const struct an_grid *gr = an_bins_grid(b, g);
		sqlite3_bind_int64(ax, 1, gr->cls);
		sqlite3_bind_int64(ax, 2, (sqlite3_int64)gr->lo);
		sqlite3_bind_int64(ax, 3, (sqlite3_int64)gr->hi);
		sqlite3_bind_int(ax, 4, AN_BINS_A);
		sqlite3_bind_int64(ax, 5, (sqlite3_int64)t0);
		sqlite3_bind_int64(ax, 6, (sqlite3_int64)t1);
		sqlite3_bind_int(ax, 7, AN_BINS_T);
		sqlite3_bind_int64(ax, 8, (sqlite3_int64)gr->span);
		step(q, ax);
		for (size_t k = 0; k < gr->nseg; k++) {
			sqlite3_bind_int64(sg, 1, gr->cls);
			sqlite3_bind_int64(sg, 2, (sqlite3_int64)gr->seg[k].lo);
			sqlite3_bind_int64(sg, 3, (sqlite3_int64)gr->seg[k].hi);
			sqlite3_bind_int64(sg, 4, (sqlite3_int64)gr->seg[k].off);
			step(q, sg);
		}
		for (size_t c = 0; c < (size_t)AN_BINS_T * AN_BINS_A; c++) {
			if (!gr->loads[c] && !gr->stores[c])
				continue;
			sqlite3_bind_int64(s, 1, gr->cls);
			sqlite3_bind_int64(s, 2, (sqlite3_int64)(c / AN_BINS_A));
			sqlite3_bind_int64(s, 3, (sqlite3_int64)(c % AN_BINS_A));
			sqlite3_bind_int64(s, 4, gr->loads[c]);
			sqlite3_bind_int64(s, 5, gr->stores[c]);
			if (gr->dram)
				sqlite3_bind_int64(s, 6, gr->dram[c]);
			else
				sqlite3_bind_null(s, 6);
			step(q, s);
		}
	}
	sqlite3_finalize(s);
	sqlite3_finalize(ax);
	sqlite3_finalize(sg);
	return 0;
}

#define EX_BINS_OBJECTS 64

/* After the replay: the caller hears of its result (a damaged file), the
 * patterns become one per object, and the grids, binned, are planned for
 * the second replay. */
static int sq_plan(void *arg, const struct an_result *res)
{
	struct sq *q = arg;
	int e = 0;
	if (q->o->on_result)
		q->o->on_result(q->o->result_arg, res);
	if (q->oom || (e = an_patterns_error(q->pats)) || (e = an_patterns_by_class(q->pats, res, &q->pat)))
		return e ? e : -ENOMEM;
	return q->bins ? an_bins_plan(q->bins, res, EX_BINS_OBJECTS) : 0;
}

static void sq_fill_access(void *arg, const struct an_access *a)
{
	an_bins_fill_access(((struct sq *)arg)->bins, a);
}

static int sq_fill_error(void *arg)
{
	return an_bins_error(((struct sq *)arg)->bins);
}

int ex_sqlite_write(const char *path, const struct ex_opts *o, char *err, size_t errlen)
{
	struct sq q = { .rc = SQLITE_OK, .o = o };
	struct an_opts ao = ex_an_opts(o);
	struct an_result *res = NULL;
	enum an_pass stage;
	int e = 0;
	err[0] = 0;
	q.pats = an_patterns_new();
	if (o->binned)
		q.bins = an_bins_new();
	if (!q.pats || (o->binned && !q.bins)) {
		e = -ENOMEM;
		goto out;
	}
	if (unlink(path) != 0 && errno != ENOENT) {
		e = -errno;
		snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
		goto out;
	}
	if (sqlite3_open(path, &q.db) != SQLITE_OK) {
		snprintf(err, errlen, "cannot create %s: %s", path, q.db ? sqlite3_errmsg(q.db) : "out of memory");
		e = -EIO;
		goto out;
	}
	if ((e = exec(&q, schema, err, errlen)) ||
	    (e = exec(&q, o->binned ? schema_bins : schema_accesses, err, errlen)) ||
	    (e = exec(&q, "BEGIN", err, errlen)))
		goto out;
	if ((!o->binned &&
	     (e = prepare(&q, "INSERT INTO access_log VALUES(?,?,?,?,?,?,?,?,?,?)", &q.access, err, errlen))) ||
	    (e = prepare(&q, "INSERT INTO frees VALUES(?,?,?,?)", &q.freed, err, errlen)) ||
	    (e = prepare(&q,
			 "INSERT INTO regions(thread_id,name,begin_time,end_time,begin_epoch,end_epoch) "
			 "VALUES(?,?,?,?,?,?)",
			 &q.region, err, errlen)))
		goto out;
	ao.on_access = on_access;
	ao.on_event = on_event;
	ao.hook_arg = &q;
	/* binned: a second replay fills the grids the first one sized */
	struct an_two_pass tp = { .plan = sq_plan, .arg = &q };
	if (o->binned)
		tp = (struct an_two_pass){ .on_access = sq_fill_access, .plan = sq_plan, .error = sq_fill_error, .arg = &q };
	if ((e = an_run_two_pass(o->data_path, &ao, &tp, &res, &stage))) {
		if (stage == AN_PASS_FIRST)
			snprintf(err, errlen, "cannot read %s: %s", o->data_path, mp_strerror(e));
		goto out;
	}
	if (o->binned && (e = write_bins(&q, q.bins, err, errlen)))
		goto out;
	if ((e = write_tables(&q, res, q.pat, o->data_path, err, errlen)))
		goto out;
	if (q.rc != SQLITE_OK) {
		snprintf(err, errlen, "sqlite: %s", sqlite3_errstr(q.rc));
		e = -EIO;
		goto out;
	}
	e = exec(&q, "COMMIT", err, errlen);
out:
	if (e && !err[0])
		snprintf(err, errlen, "%s", mp_strerror(e));
	sqlite3_finalize(q.access);
	sqlite3_finalize(q.freed);
	sqlite3_finalize(q.region);
	if (q.db && sqlite3_close(q.db) != SQLITE_OK && !e) {
		snprintf(err, errlen, "sqlite: cannot close %s", path);
		e = -EIO;
	}
	mp_vec_free(&q.allocs);
	mp_vec_free(&q.open);
	an_patterns_free(q.pats);
	an_bins_free(q.bins);
	an_result_free(res);
	free(q.pat);
	return e;
}
