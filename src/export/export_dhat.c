// SPDX-License-Identifier: MIT
/*
 * DHAT export: the heap rows of the object view as DHAT's JSON file
 * (format version 2, described in dhat/dh_main.c of Valgrind's sources), so
 * the recording opens in the dh_view.html that Valgrind ships. One program
 * point per heap row (an allocation stack): its blocks and bytes, the bytes
 * read and written (as the report counts them: DHAT counts bytes too), the
 * blocks' lifetimes, the most bytes live at once, the bytes live at the
 * moment the heap was largest (t-gmax) and at the end. Times are ns from
 * the first event of the recording (tu "ns", Mtu "ms").
 *
 * Lifetimes come from the replay's ALLOC and FREE events: a block lives
 * from its allocation to its free, or to the end of the recording. The
 * snapshot at t-gmax is DHAT's own trick: a new maximum of the live bytes
 * marks the per-row figures stale, and the next free (or the end), which
 * would lower it, copies them first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_jobs.h"
#include "common/hashmap.h"
#include "common/mp_error.h"
#include "common/vec.h"
#include "export/ex_int.h"
#include "export/export.h"
#include "trace/trace_format.h"

/* A program point is short-lived (dh_view's "short-lived" metrics) when its
 * blocks live 1 µs or less on average. */
#define DH_SHORT_NS 1000

struct dh_block {
	uint32_t rcls; /* replay class */
	int live;
	uint64_t size, t;
};

/* A replay class's figures (rows merged from several replay classes sum
 * them: their maximum is then an upper bound). */
struct dh_cls {
	uint64_t curr_b, curr_bk, max_b, max_bk, g_b, g_bk, tl;
};

struct dh {
	MP_VEC(struct dh_block) blocks;
	MP_VEC(struct dh_cls) cls;
	struct mp_hashmap live; /* process and address -> blocks index + 1 (0: freed) */
	uint64_t t0, tend, curr, gmax, tg;
	int have_t0, stale, oom;
};

static uint64_t block_key(uint32_t proc, uint64_t addr)
{
	/* (user addresses fit in 48 bits; addr 0 is never a block) */
	return (addr & 0xffffffffffffULL) | (uint64_t)proc << 48;
}

static void snapshot(struct dh *d)
{
	for (size_t i = 0; i < d->cls.n; i++) {
		d->cls.v[i].g_b = d->cls.v[i].curr_b;
		d->cls.v[i].g_bk = d->cls.v[i].curr_bk;
	}
	d->stale = 0;
}

static void on_event(void *arg, const struct an_event *e)
{
	struct dh *d = arg;
	if (!d->have_t0 || e->time < d->t0) {
		d->t0 = e->time;
		d->have_t0 = 1;
	}
	if (e->time > d->tend)
		d->tend = e->time;
	if (e->type == MP_EV_ALLOC && e->nf >= 4 && e->cls != UINT32_MAX && e->f[2]) {
		struct dh_block b = { .rcls = e->cls, .live = 1, .size = e->f[3], .t = e->time };
		while (d->cls.n <= e->cls)
			if (mp_vec_push(&d->cls, (struct dh_cls){ 0 })) {
				d->oom = 1;
				return;
			}
		if (mp_vec_push(&d->blocks, b) ||
		    mp_hashmap_put(&d->live, block_key(e->proc, e->f[2]), d->blocks.n)) {
			d->oom = 1;
			return;
		}
		struct dh_cls *c = &d->cls.v[e->cls];
		c->curr_b += b.size;
		c->curr_bk++;
		if (c->curr_b > c->max_b)
			c->max_b = c->curr_b;
		if (c->curr_bk > c->max_bk)
			c->max_bk = c->curr_bk;
		d->curr += b.size;
		if (d->curr > d->gmax) {
			d->gmax = d->curr;
			d->tg = e->time;
			d->stale = 1;
		}
	} else if (e->type == MP_EV_FREE && e->nf >= 3 && e->f[2]) {
		uint64_t key = block_key(e->proc, e->f[2]);
		uint64_t *v = mp_hashmap_get(&d->live, key);
		if (!v || !*v)
			return; /* a block of no row (another process's, or untracked) */
		struct dh_block *b = &d->blocks.v[*v - 1];
		*v = 0;
		if (d->stale)
			snapshot(d); /* the heap is at its largest until now */
		struct dh_cls *c = &d->cls.v[b->rcls];
		c->tl += e->time > b->t ? e->time - b->t : 0;
		c->curr_b -= b->size;
		c->curr_bk--;
		d->curr -= b->size;
		b->live = 0;
	}
}

/* --- the JSON ------------------------------------------------------------- */

static void put_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The frame table: each frame's text once, index 0 "[root]". */
struct dh_frames {
	MP_VEC(char *) text;
	struct mp_hashmap index; /* hash of the text (probed) -> index + 1 */
};

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ? h : 1;
}

/* The index of text in the table, added if new; -1 when out of memory. */
static long frame_index(struct dh_frames *ft, const char *text)
{
	for (uint64_t h = text_hash(text);; h = h + 1 ? h + 1 : 1) {
		uint64_t *v = mp_hashmap_get(&ft->index, h);
		if (!v)
			break;
		if (!strcmp(ft->text.v[*v - 1], text))
			return (long)*v - 1;
	}
	char *copy = strdup(text);
	if (!copy || mp_vec_push(&ft->text, copy)) {
		free(copy);
		return -1;
	}
	uint64_t h = text_hash(text);
	while (mp_hashmap_get(&ft->index, h))
		h = h + 1 ? h + 1 : 1;
	if (mp_hashmap_put(&ft->index, h, ft->text.n))
		return -1;
	return (long)ft->text.n - 1;
}

/* DHAT's frame text: "0xADDR: FUNCTION (FILE:LINE)" or "(in MODULE)". */
static void frame_text(char *buf, size_t cap, const struct an_frame *fr)
{
	const char *fn = fr->function ? fr->function : "???";
	if (fr->file && fr->line > 0)
		snprintf(buf, cap, "0x%" PRIx64 ": %s (%s:%d)", fr->addr, fn, fr->file, fr->line);
	else if (fr->module)
		snprintf(buf, cap, "0x%" PRIx64 ": %s (in %s)", fr->addr, fn, fr->module);
	else
		snprintf(buf, cap, "0x%" PRIx64 ": %s", fr->addr, fn);
}

/* A program point: a heap row's figures and frames. */
struct dh_pp {
	uint64_t tb, tbk, tl, mb, mbk, gb, gbk, eb, ebk, rb, wb;
	long *fs;
	int nfs;
};

static int same_frames(const struct dh_pp *a, const struct dh_pp *b)
{
	return a->nfs == b->nfs && !memcmp(a->fs, b->fs, (size_t)a->nfs * sizeof(*a->fs));
}

static void pp_add(struct dh_pp *q, const struct dh_pp *p)
{
	q->tb += p->tb, q->tbk += p->tbk, q->tl += p->tl, q->mb += p->mb, q->mbk += p->mbk;
	q->gb += p->gb, q->gbk += p->gbk, q->eb += p->eb, q->ebk += p->ebk, q->rb += p->rb, q->wb += p->wb;
}

/* One file's program points: its heap rows' figures, rows of one frame
 * sequence merged (dh_view takes each sequence once), their frames in ft. */
static int build_pps(struct dh *d, const struct an_result *res, struct dh_frames *ft, struct dh_pp **out, size_t *nout)
{
	struct dh_pp *pps = calloc(res->nclasses ? res->nclasses : 1, sizeof(*pps));
	size_t npp = 0;
	int e = 0;
	*out = pps;
	*nout = 0;
	if (!pps)
		return -ENOMEM;
	/* the replay classes' figures, summed into their rows */
	struct dh_cls *row = calloc(res->nclasses ? res->nclasses : 1, sizeof(*row));
	if (!row)
		return -ENOMEM;
	for (size_t i = 0; i < d->cls.n && i < res->nclass_map; i++) {
		uint32_t k = res->class_map[i];
		if (k >= res->nclasses)
			continue;
		const struct dh_cls *c = &d->cls.v[i];
		row[k].curr_b += c->curr_b;
		row[k].curr_bk += c->curr_bk;
		row[k].max_b += c->max_b;
		row[k].max_bk += c->max_bk;
		row[k].g_b += c->g_b;
		row[k].g_bk += c->g_bk;
		row[k].tl += c->tl;
	}
	for (size_t k = 0; k < res->nclasses; k++) {
		const struct an_class *c = &res->classes[k];
		if (c->kind != AN_KIND_HEAP || !c->instances)
			continue;
		struct dh_pp pp = { .tb = c->bytes_allocated, .tbk = c->instances, .tl = row[k].tl,
				    .mb = row[k].max_b, .mbk = row[k].max_bk, .gb = row[k].g_b, .gbk = row[k].g_bk,
				    .eb = row[k].curr_b, .ebk = row[k].curr_bk, .rb = c->c.bytes_loaded,
				    .wb = c->c.bytes_stored };
		pp.fs = calloc(c->nstack > 0 ? (size_t)c->nstack : 1, sizeof(*pp.fs));
		if (!pp.fs) {
			e = -ENOMEM;
			break;
		}
		for (int j = 0; j < c->nstack; j++) {
			char text[1024];
			frame_text(text, sizeof(text), &c->stack[j]);
			if ((pp.fs[pp.nfs++] = frame_index(ft, text)) < 0) {
				free(pp.fs);
				e = -ENOMEM;
				goto rows_done;
			}
		}
		/* (dh_view takes each frame sequence once: rows of one stack merge) */
		size_t m = 0;
		while (m < npp && !same_frames(&pps[m], &pp))
			m++;
		if (m == npp) {
			pps[npp++] = pp;
			continue;
		}
		pp_add(&pps[m], &pp);
		free(pp.fs);
	}
rows_done:
	free(row);
	*nout = npp;
	return e;
}

/* The JSON of program points pps over frame table ft. */
static void emit(FILE *f, const char *cmd, uint32_t pid, uint64_t te, uint64_t tg, const struct dh_pp *pps, size_t npp,
		 const struct dh_frames *ft)
{
	fprintf(f, "{\"dhatFileVersion\":2\n,\"mode\":\"heap\",\"verb\":\"Allocated\"\n,\"bklt\":true,\"bkacc\":true\n"
		   ",\"tu\":\"ns\",\"Mtu\":\"ms\"\n,\"tuth\":%d\n,\"cmd\":",
		DH_SHORT_NS);
	put_json_string(f, cmd);
	fprintf(f, "\n,\"pid\":%" PRIu32 "\n,\"te\":%" PRIu64 "\n,\"tg\":%" PRIu64 "\n,\"pps\":\n [", pid, te, tg);
	for (size_t i = 0; i < npp; i++) {
		const struct dh_pp *p = &pps[i];
		fprintf(f,
			"%s{\"tb\":%" PRIu64 ",\"tbk\":%" PRIu64 "\n  ,\"tl\":%" PRIu64 "\n  ,\"mb\":%" PRIu64
			",\"mbk\":%" PRIu64 "\n  ,\"gb\":%" PRIu64 ",\"gbk\":%" PRIu64 "\n  ,\"eb\":%" PRIu64
			",\"ebk\":%" PRIu64 "\n  ,\"rb\":%" PRIu64 ",\"wb\":%" PRIu64 "\n  ,\"fs\":[",
			i ? "\n ," : "", p->tb, p->tbk, p->tl, p->mb, p->mbk, p->gb, p->gbk, p->eb, p->ebk, p->rb, p->wb);
		for (int j = 0; j < p->nfs; j++)
			fprintf(f, "%s%ld", j ? "," : "", p->fs[j]);
		fputs("]\n  }", f);
	}
	fputs("\n ]\n,\"ftbl\":\n [", f);
	for (size_t i = 0; i < ft->text.n; i++) {
		fputs(i ? "\n ," : "", f);
		put_json_string(f, ft->text.v[i]);
	}
	fputs("\n ]\n}\n", f);
}

static void pps_free(struct dh_pp *pps, size_t npp)
{
	for (size_t i = 0; pps && i < npp; i++)
		free(pps[i].fs);
	free(pps);
}

static void frames_fini(struct dh_frames *ft)
{
	for (size_t i = 0; i < ft->text.n; i++)
		free(ft->text.v[i]);
	mp_vec_free(&ft->text);
	mp_hashmap_fini(&ft->index);
}

static int write_json(FILE *f, struct dh *d, const struct an_result *res)
{
	struct dh_frames ft = { 0 };
	struct dh_pp *pps = NULL;
	size_t npp = 0;
	int e = 0;
	mp_hashmap_init(&ft.index);
	if (frame_index(&ft, "[root]") != 0)
		e = -ENOMEM;
	if (!e)
		e = build_pps(d, res, &ft, &pps, &npp);
	if (!e)
		emit(f, res->cmdline, res->nprocs ? res->procs[0].pid : 0, d->tend > d->t0 ? d->tend - d->t0 : 1,
		     d->tg > d->t0 ? d->tg - d->t0 : 0, pps, npp, &ft);
	pps_free(pps, npp);
	frames_fini(&ft);
	return e;
}

static void dh_fini(struct dh *d)
{
	mp_vec_free(&d->blocks);
	mp_vec_free(&d->cls);
	mp_hashmap_fini(&d->live);
}

/* Replays data into d and *res (the caller frees both): 0, or an_run's
 * error (OUT: *stage 0) or -ENOMEM. */
static int replay(const char *data, const struct ex_opts *o, struct dh *d, struct an_result **res)
{
	memset(d, 0, sizeof(*d));
	mp_hashmap_init(&d->live);
	struct an_opts ao = ex_an_opts(o);
	ao.on_event = on_event;
	ao.hook_arg = d;
	return an_run(data, &ao, res);
}

/* After the replay: blocks never freed live to the end; the heap never
 * shrank after its last maximum: the snapshot is now. */
static int finish(struct dh *d)
{
	if (d->oom)
		return -ENOMEM;
	for (size_t i = 0; i < d->blocks.n; i++)
		if (d->blocks.v[i].live)
			d->cls.v[d->blocks.v[i].rcls].tl += d->tend - d->blocks.v[i].t;
	if (d->stale)
		snapshot(d);
	return 0;
}

/* Writes the file with write (JSON into f), checking every step; "-" is
 * standard output. */
static int write_out(const char *path, int (*write)(FILE *f, void *arg), void *arg, char *err, size_t errlen)
{
	const int out = !strcmp(path, "-");
	FILE *f = out ? stdout : fopen(path, "w");
	if (!f) {
		int e = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return e;
	}
	int e = write(f, arg);
	if (!e && (fflush(f) || ferror(f)))
		e = errno ? -errno : -EIO;
	if (!out && fclose(f) && !e)
		e = errno ? -errno : -EIO;
	if (e && !err[0])
		snprintf(err, errlen, "%s: %s", out ? "standard output" : path, mp_strerror(e));
	return e;
}

struct one {
	struct dh *d;
	const struct an_result *res;
};

static int write_one(FILE *f, void *arg)
{
	struct one *x = arg;
	return write_json(f, x->d, x->res);
}

int ex_dhat_write(const char *path, const struct ex_opts *o, char *err, size_t errlen)
{
	struct dh d;
	struct an_result *res = NULL;
	err[0] = 0;
	int e = replay(o->data_path, o, &d, &res);
	if (e) {
		snprintf(err, errlen, "cannot read %s: %s", o->data_path, mp_strerror(e));
		goto out;
	}
	if (o->on_result)
		o->on_result(o->result_arg, res);
	if ((e = finish(&d)))
		goto out;
	struct one x = { &d, res };
	e = write_out(path, write_one, &x, err, errlen);
out:
	if (e && !err[0])
		snprintf(err, errlen, "%s", mp_strerror(e));
	dh_fini(&d);
	an_result_free(res);
	return e;
}

/* --- several files ---------------------------------------------------------- */

/* The merged program points: each keyed by its frames' text without their
 * addresses (function, file and line: each process loads the program
 * elsewhere), its frames the first file's. */
struct dh_merged {
	struct dh_frames ft;
	struct dh_pp *pps;
	char **keys;
	size_t npp, cap;
	char cmd[sizeof(((struct an_result *)0)->cmdline)];
	uint32_t pid;
	uint64_t te, tg, gmax;
	int have;
};

/* "0x4011d6: work (app.c:26)" -> "work (app.c:26)" */
static const char *sans_address(const char *text)
{
	const char *s = strstr(text, ": ");
	return text[0] == '0' && text[1] == 'x' && s ? s + 2 : text;
}

static int merge_pps(struct dh_merged *m, const struct dh_frames *ft, const struct dh_pp *pps, size_t npp)
{
	for (size_t i = 0; i < npp; i++) {
		const struct dh_pp *p = &pps[i];
		size_t len = 1;
		for (int j = 0; j < p->nfs; j++)
			len += strlen(sans_address(ft->text.v[p->fs[j]])) + 1;
		char *key = malloc(len), *k = key;
		if (!key)
			return -ENOMEM;
		for (int j = 0; j < p->nfs; j++)
			k += sprintf(k, "%s\n", sans_address(ft->text.v[p->fs[j]]));
		*k = 0;
		size_t at = 0;
		while (at < m->npp && strcmp(m->keys[at], key))
			at++;
		if (at < m->npp) {
			pp_add(&m->pps[at], p);
			free(key);
			continue;
		}
		if (m->npp == m->cap) {
			size_t nc = m->cap ? 2 * m->cap : 16;
			struct dh_pp *np = realloc(m->pps, nc * sizeof(*np));
			if (np)
				m->pps = np;
			char **nk = np ? realloc(m->keys, nc * sizeof(*nk)) : NULL;
			if (!nk) {
				free(key);
				return -ENOMEM;
			}
			m->keys = nk;
			m->cap = nc;
		}
		struct dh_pp q = *p;
		q.fs = calloc(p->nfs > 0 ? (size_t)p->nfs : 1, sizeof(*q.fs));
		if (!q.fs) {
			free(key);
			return -ENOMEM;
		}
		for (int j = 0; j < p->nfs; j++)
			if ((q.fs[j] = frame_index(&m->ft, ft->text.v[p->fs[j]])) < 0) {
				free(q.fs);
				free(key);
				return -ENOMEM;
			}
		m->keys[m->npp] = key;
		m->pps[m->npp++] = q;
	}
	return 0;
}

/* Folds one file's replay into m. */
static int merge_file(struct dh_merged *m, struct dh *d, const struct an_result *res)
{
	struct dh_frames ft = { 0 };
	struct dh_pp *pps = NULL;
	size_t npp = 0;
	mp_hashmap_init(&ft.index);
	int e = frame_index(&ft, "[root]") != 0 ? -ENOMEM : 0;
	if (!e)
		e = build_pps(d, res, &ft, &pps, &npp);
	if (!e)
		e = merge_pps(m, &ft, pps, npp);
	if (!e) {
		uint64_t te = d->tend > d->t0 ? d->tend - d->t0 : 1;
		if (!m->have) {
			snprintf(m->cmd, sizeof(m->cmd), "%s", res->cmdline);
			m->pid = res->nprocs ? res->procs[0].pid : 0;
			m->have = 1;
		}
		if (te > m->te)
			m->te = te;
		if (d->gmax > m->gmax) { /* the largest process heap's peak, in its own time */
			m->gmax = d->gmax;
			m->tg = d->tg > d->t0 ? d->tg - d->t0 : 0;
		}
	}
	pps_free(pps, npp);
	frames_fini(&ft);
	return e;
}

static int write_merged(FILE *f, void *arg)
{
	struct dh_merged *m = arg;
	emit(f, m->cmd, m->pid, m->te ? m->te : 1, m->tg, m->pps, m->npp, &m->ft);
	return 0;
}

/* One file's replay (an_jobs.h's work), finished: what merge_file takes. */
struct dh_file {
	struct dh d;
	struct an_result *res;
	int rerr, ferr; /* the replay's error, finish's */
};

struct dh_work {
	const struct ex_opts *o;
	const char *const *files;
};

static void *file_work(void *arg, size_t i)
{
	const struct dh_work *w = arg;
	struct dh_file *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->rerr = replay(w->files[i], w->o, &x->d, &x->res);
	if (!x->rerr)
		x->ferr = finish(&x->d);
	return x;
}

static void file_drop(void *arg, void *p)
{
	struct dh_file *x = p;
	(void)arg;
	if (!x)
		return;
	dh_fini(&x->d);
	an_result_free(x->res);
	free(x);
}

/* The files are replayed o->jobs at once (each its own struct dh: the hook
 * sees one file's events), and folded in the files' order: the program
 * points, their frames and the figures are those of one file after the
 * other. A file's processes are replayed one after another (the hook's
 * heap maximum is taken over the file's events in the order the serial
 * replay meets them: an_par_wanted refuses hooks). */
int ex_dhat_write_many(const char *path, const struct ex_opts *o, const char *const *files, size_t n, char *err,
		       size_t errlen)
{
	struct dh_merged m = { 0 };
	size_t read = 0;
	int e = 0;
	err[0] = 0;
	mp_hashmap_init(&m.ft.index);
	if (frame_index(&m.ft, "[root]") != 0)
		e = -ENOMEM;
	struct dh_work w = { o, files };
	struct an_jobs *jobs = e ? NULL : an_jobs_new(n, o->jobs, file_work, file_drop, &w);
	if (!e && !jobs)
		e = -ENOMEM;
	for (size_t i = 0; i < n && !e; i++) {
		struct dh_file *x = an_jobs_take(jobs, i);
		if (!x) {
			e = -ENOMEM;
			break;
		}
		const int r = x->rerr;
		if (o->on_file)
			o->on_file(o->result_arg, files[i], r ? NULL : x->res, r);
		if (r == -ENOMEM)
			e = r;
		if (!r && !(e = x->ferr))
			e = merge_file(&m, &x->d, x->res);
		read += !r;
		file_drop(NULL, x);
		an_jobs_done(jobs, i);
	}
	an_jobs_free(jobs);
	if (!e && !read) {
		e = -ENODATA;
		snprintf(err, errlen, "none of the %zu data files could be read", n);
	}
	if (!e)
		e = write_out(path, write_merged, &m, err, errlen);
	if (e && !err[0])
		snprintf(err, errlen, "%s", mp_strerror(e));
	pps_free(m.pps, m.npp);
	for (size_t i = 0; i < m.npp; i++)
		free(m.keys[i]);
	free(m.keys);
	frames_fini(&m.ft);
	return e;
}
