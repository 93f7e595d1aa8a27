// SPDX-License-Identifier: MIT
/*
 * From replay state to the result tables: classes labelled by their
 * allocation sites (an_sites.c) that end up with the same label are merged,
 * code addresses become functions, and burst sampling's estimates are
 * made. an_run (an_run.c) calls these in turn.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "analysis/an_numa.h"
#include "analysis/an_samples.h"
#include "sym/sym.h"

const char *an_kind_name(enum an_kind k)
{
	static const char *const names[AN_KIND_COUNT] = {
		[AN_KIND_HEAP] = "heap",	 [AN_KIND_STATIC] = "static",	   [AN_KIND_STACK] = "stack",
		[AN_KIND_TLS] = "tls",
		[AN_KIND_MMAP_ANON] = "mmap",	 [AN_KIND_MMAP_FILE] = "file",	   [AN_KIND_SECTION] = "section",
		[AN_KIND_NAMED] = "named",	 [AN_KIND_GROUP] = "group",	   [AN_KIND_MAPPING] = "mapping",
		[AN_KIND_UNKNOWN] = "unknown",
	};
	return (unsigned)k < AN_KIND_COUNT ? names[k] : "?";
}

int an_result_classes(struct an_state *st, struct an_result *r, uint32_t *remap)
{
	struct mp_hashmap seen;
	mp_hashmap_init(&seen);
	r->classes = calloc(st->classes.n ? st->classes.n : 1, sizeof(*r->classes));
	if (!r->classes)
		return -ENOMEM;
	for (size_t i = 0; i < st->classes.n; i++) {
		struct an_class *c = &st->classes.v[i];
		if (!c->label)
			c->label = strdup("?");
		uint64_t h = mp_hash_str(c->label, c->kind);
		uint64_t *v = mp_hashmap_get(&seen, h);
		if (!v) {
			remap[i] = (uint32_t)r->nclasses;
			r->classes[r->nclasses] = *c;
			if (mp_hashmap_put(&seen, h, r->nclasses)) {
				mp_hashmap_fini(&seen);
				return -ENOMEM;
			}
			r->nclasses++;
			memset(c, 0, sizeof(*c));
			continue;
		}
		remap[i] = (uint32_t)*v;
		struct an_class *d = &r->classes[*v];
		an_counts_add(&d->c, &c->c);
		an_mem_add(&d->mem, &c->mem);
		an_samples_merge_class(d, c);
		d->instances += c->instances;
		d->bytes_allocated += c->bytes_allocated;
		if (c->max_size > d->max_size)
			d->max_size = c->max_size;
		d->users = c->users > d->users ? c->users : d->users;
		d->top_user = c->top_user > d->top_user ? c->top_user : d->top_user;
		d->carved |= c->carved;
		for (size_t t = 0; t < c->nthreads; t++)
			an_class_add_thread(d, c->threads[t]);
		an_class_free_fields(c);
		memset(c, 0, sizeof(*c));
	}
	mp_hashmap_fini(&seen);
	return 0;
}

/* The row of `name` in module in rows (*n of them), found by byname or
 * added; -1 when out of memory. */
static long row_of(struct mp_hashmap *byname, struct an_function *rows, size_t *n, const char *name,
		   const char *module)
{
	uint64_t h = mp_hash_str(name, mp_hash_str(module, 0));
	uint64_t *v = mp_hashmap_get(byname, h);
	if (v)
		return (long)*v;
	struct an_function *f = &rows[*n];
	f->name = strdup(name);
	f->module = strdup(module);
	if (!f->name || !f->module || mp_hashmap_put(byname, h, *n)) {
		free(f->name);
		free(f->module);
		*f = (struct an_function){ 0 };
		return -1;
	}
	return (long)(*n)++;
}

static void row_add(struct an_function *f, const struct an_ip *ip)
{
	an_counts_add(&f->c, &ip->c);
	an_mem_add(&f->mem, &ip->mem);
	an_samples_merge_ip(f, ip);
}

/* Code addresses -> functions and source lines (innermost, inlined
 * functions included). */
int an_result_functions(struct an_state *st, struct an_result *r, uint32_t **line_of)
{
	struct mp_hashmap byname, byline;
	mp_hashmap_init(&byname);
	mp_hashmap_init(&byline);
	r->functions = calloc(st->ips.n ? st->ips.n : 1, sizeof(*r->functions));
	r->lines = calloc(st->ips.n ? st->ips.n : 1, sizeof(*r->lines));
	*line_of = calloc(st->ips.n ? st->ips.n : 1, sizeof(**line_of));
	int err = 0;
	if (!r->functions || !r->lines || !*line_of)
		err = -ENOMEM;
	for (size_t i = 0; i < st->ips.n && !err; i++) {
		struct an_ip *ip = &st->ips.v[i];
		struct an_proc *p = &st->procs.v[ip->proc];
		struct sym_frame sf[8];
		int n = p->sym ? sym_ctx_lookup(p->sym, ip->ip - 1, sf, 8) : 0;
		char name[600];
		if (n > 0 && sf[0].function)
			snprintf(name, sizeof(name), "%s", sf[0].function);
		else if (n > 0 && sf[0].module)
			snprintf(name, sizeof(name), "?? (%s)", sf[0].module);
		else if (ip->ip == 0)
			snprintf(name, sizeof(name), "??");
		else if (ip->ip >= 0xffff800000000000ull)
			snprintf(name, sizeof(name), "[kernel]"); /* a fault taken in a system call */
		else
			snprintf(name, sizeof(name), "0x%llx", (unsigned long long)ip->ip);
		const char *module = n > 0 && sf[0].module ? sf[0].module : "?";
		long f = row_of(&byname, r->functions, &r->nfunctions, name, module);
		char line[700];
		if (n > 0 && sf[0].file && sf[0].line > 0) {
			const char *base = strrchr(sf[0].file, '/');
			snprintf(line, sizeof(line), "%s:%d %s", base ? base + 1 : sf[0].file, sf[0].line, name);
		} else {
			snprintf(line, sizeof(line), "%s", name);
		}
		long l = f < 0 ? -1 : row_of(&byline, r->lines, &r->nlines, line, module);
		if (l < 0) {
			err = -ENOMEM;
			break;
		}
		if (n > 0 && sf[0].file && sf[0].line > 0 && !r->lines[l].file) {
			r->lines[l].line = sf[0].line;
			if (!(r->lines[l].file = strdup(sf[0].file))) {
				err = -ENOMEM;
				break;
			}
		}
		(*line_of)[i] = (uint32_t)l;
		row_add(&r->functions[f], ip);
		row_add(&r->lines[l], ip);
	}
	mp_hashmap_fini(&byname);
	mp_hashmap_fini(&byline);
	return err;
}

/* Each source line's objects, from the replay's (class, code address)
 * tallies (st->pairs): how many, and the one with the most accesses.
 * line_of: code address -> line row; remap: replay class -> classes index. */
int an_result_line_objects(struct an_state *st, struct an_result *r, const uint32_t *line_of,
			   const uint32_t *remap)
{
	struct mp_hashmap per; /* line << 32 | classes index -> accesses */
	mp_hashmap_init(&per);
	const struct mp_hashmap *m = &st->pairs;
	for (size_t i = 0; i < m->cap; i++) {
		uint64_t key = m->keys[i];
		if (!key)
			continue;
		uint32_t cls = (uint32_t)(key >> 32), ipi = (uint32_t)key - 1;
		if (cls >= st->classes.n || ipi >= st->ips.n)
			continue;
		uint64_t k = (uint64_t)line_of[ipi] << 32 | remap[cls], *v = mp_hashmap_get(&per, k + 1);
		if (v)
			*v += m->vals[i];
		else if (mp_hashmap_put(&per, k + 1, m->vals[i])) {
			mp_hashmap_fini(&per);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < per.cap; i++) {
		if (!per.keys[i])
			continue;
		uint64_t k = per.keys[i] - 1, n = per.vals[i];
		uint32_t l = (uint32_t)(k >> 32), c = (uint32_t)k;
		if (l >= r->nlines || c >= r->nclasses)
			continue;
		struct an_function *f = &r->lines[l];
		f->objects++;
		if (n > f->top_object_accesses ||
		    (n == f->top_object_accesses && f->top_object && strcmp(r->classes[c].label, f->top_object) < 0)) {
			char *label = strdup(r->classes[c].label);
			if (!label) {
				mp_hashmap_fini(&per);
				return -ENOMEM;
			}
			free(f->top_object);
			f->top_object = label;
			f->top_object_accesses = n;
		}
	}
	mp_hashmap_fini(&per);
	return 0;
}

void an_result_free(struct an_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nclasses; i++)
		an_class_free_fields(&r->classes[i]);
	free(r->classes);
	free(r->threads);
	for (size_t i = 0; i < r->nlines; i++) {
		free(r->lines[i].name);
		free(r->lines[i].module);
		free(r->lines[i].file);
		free(r->lines[i].top_object);
	}
	free(r->lines);
	for (size_t i = 0; i < r->nfunctions; i++) {
		free(r->functions[i].name);
		free(r->functions[i].module);
	}
	free(r->functions);
	for (size_t i = 0; i < r->nprocs; i++)
		free(r->procs[i].exe);
	free(r->procs);
	free(r->pages);
	free(r->check_walks);
	an_tlog_free(r->tlog);
	free(r->class_map);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->touches);
	for (size_t i = 0; i < r->nunseen_modules; i++)
		free(r->unseen_modules[i]);
	free(r->unseen_modules);
	free(r->unseen_cpu);
	an_numa_result_free(r->numa);
	free(r);
}
