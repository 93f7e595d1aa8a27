// SPDX-License-Identifier: MIT
/*
 * ELF images of a replayed process: each MODULE event registers the image with
 * the process's symbolizer and turns its static variables and sections into
 * objects, live from the moment the image was loaded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "common/mp_path.h"
#include "sym/sym.h"

struct statics_ctx {
	struct an_state *st;
	struct an_proc *p;
	const char *module;
};

static int on_static(void *arg, const struct sym_data *d)
{
	struct statics_ctx *sc = arg;
	char label[512];
	if (d->size == 0)
		return 0;
	switch (d->kind) {
	case SYM_DATA_OBJECT: {
		snprintf(label, sizeof(label), "static %s (%s %s)", d->name, sc->module, d->section ? d->section : "");
		uint32_t cls = an_class_by_label(sc->st, AN_KIND_STATIC, label);
		an_class_add_instance(sc->st, cls, d->size, UINT32_MAX);
		an_objmap_insert(&sc->p->map, AN_LAYER_OBJECT, d->addr, d->addr + d->size, cls);
		break;
	}
	case SYM_DATA_SECTION: {
		snprintf(label, sizeof(label), "section %s %s", sc->module, d->name);
		uint32_t cls = an_class_by_label(sc->st, AN_KIND_SECTION, label);
		an_class_add_instance(sc->st, cls, d->size, UINT32_MAX);
		an_objmap_insert(&sc->p->map, AN_LAYER_MAP, d->addr, d->addr + d->size, cls);
		break;
	}
	default:
		/* TLS variables: placed per thread by an_tls_block */
		break;
	}
	return 0;
}

static void register_module(struct an_state *st, struct an_proc *p, const struct an_module *m)
{
	if (st->sym_mu)
		pthread_mutex_lock(st->sym_mu);
	if (!p->sym)
		p->sym = sym_ctx_new();
	int err = p->sym ? sym_ctx_add_module(p->sym, m->path, m->bias, m->lo, m->hi) : -ENOMEM;
	if (st->sym_mu)
		pthread_mutex_unlock(st->sym_mu);
	if (!p->sym) {
		st->oom = 1;
		return;
	}
	if (err && err != -EEXIST)
		an_warn(st, "cannot read symbols of %s (%s): its code and statics stay unnamed", m->path,
			strerror(-err));
}

void an_module_loaded(struct an_state *st, struct an_proc *p, uint64_t time, const char *path, uint64_t bias,
		      uint64_t lo, uint64_t hi)
{
	struct an_module m = { .path = strdup(path), .bias = bias, .lo = lo, .hi = hi, .time = time };
	if (!m.path || mp_vec_push(&p->modules, m)) {
		free(m.path);
		st->oom = 1;
		return;
	}
	register_module(st, p, &m);
	struct statics_ctx sc = { st, p, mp_base_name(path) };
	sym_elf_data_objects(path, bias, on_static, &sc);
}

void an_sym_load_ahead(struct an_state *st, uint32_t pi)
{
	struct an_proc *p = &st->procs.v[pi];
	p->sym_loading = 1;
	if (p->sym && st->sym_loads < 2) {
		st->sym_loads++;
		if (st->sym_mu)
			pthread_mutex_lock(st->sym_mu);
		sym_ctx_load_async(p->sym);
		if (st->sym_mu)
			pthread_mutex_unlock(st->sym_mu);
	}
}

void an_proc_inherit_modules(struct an_state *st, struct an_proc *child, const struct an_proc *parent)
{
	for (size_t i = 0; i < parent->modules.n; i++) {
		const struct an_module *pm = &parent->modules.v[i];
		struct an_module m = { .bias = pm->bias, .lo = pm->lo, .hi = pm->hi, .time = pm->time };
		m.path = strdup(pm->path);
		if (!m.path || mp_vec_push(&child->modules, m)) {
			free(m.path);
			st->oom = 1;
			return;
		}
		register_module(st, child, &m);
	}
}

static int on_tls(void *arg, const struct sym_data *d)
{
	struct an_module *m = arg;
	if (d->kind != SYM_DATA_TLS || d->size == 0)
		return 0;
	struct an_tls_var v = { .name = strdup(d->name), .offset = d->addr, .size = d->size };
	if (!v.name || mp_vec_push(&m->tls, v)) {
		free(v.name);
		return -ENOMEM;
	}
	return 0;
}

/* A thread's TLS block of one module: its thread-local variables become
 * objects of that thread (one instance per thread, one row per variable). */
void an_tls_block(struct an_state *st, struct an_proc *p, uint32_t thread, uint64_t bias, uint64_t addr,
		  uint64_t size)
{
	struct an_module *m = NULL;
	for (size_t i = 0; i < p->modules.n; i++)
		if (p->modules.v[i].bias == bias) {
			m = &p->modules.v[i];
			break;
		}
	if (!m)
		return;
	if (!m->tls_loaded) {
		m->tls_loaded = 1;
		/* TLS symbols are offsets in the block: no bias */
		if (sym_elf_data_objects(m->path, 0, on_tls, m) == -ENOMEM)
			st->oom = 1;
	}
	char label[512];
	for (size_t i = 0; i < m->tls.n; i++) {
		const struct an_tls_var *v = &m->tls.v[i];
		if (v->offset + v->size > size)
			continue;
		snprintf(label, sizeof(label), "tls %s (%s)", v->name, mp_base_name(m->path));
		uint32_t cls = an_class_by_label(st, AN_KIND_TLS, label);
		an_class_add_instance(st, cls, v->size, thread);
		an_objmap_insert(&p->map, AN_LAYER_OBJECT, addr + v->offset, addr + v->offset + v->size, cls);
	}
}

/* The C library's and the loader's, whose loads and stores the inst source
 * sees as ranges where they matter (libc's mem and str calls) or not at
 * all but at start-up; glibc's stubs of libraries it has merged; the
 * runtime's own and the kernel's. */
static int seen_enough(const char *base)
{
	static const char *const names[] = { "libc.so", "ld-linux", "ld64.so", "libmemprism", "linux-vdso",
					     "libpthread.so", "libdl.so", "librt.so", "libutil.so" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(base, names[i], strlen(names[i])))
			return 1;
	return 0;
}

/* 1 if lib is there for the runtime alone (its zstd, say): the runtime
 * needs it and no other module of the process does. */
static int runtime_only(const struct an_proc *p, const char *lib)
{
	int runtime = 0;
	for (size_t j = 0; j < p->modules.n && !runtime; j++)
		if (!strncmp(mp_base_name(p->modules.v[j].path), "libmemprism", 11))
			runtime = sym_module_needs(p->modules.v[j].path, lib) == 1;
	for (size_t j = 0; j < p->modules.n && runtime; j++)
		if (strncmp(mp_base_name(p->modules.v[j].path), "libmemprism", 11) &&
		    sym_module_needs(p->modules.v[j].path, lib) == 1)
			return 0;
	return runtime;
}

int an_module_runtimes(const struct an_proc *p, const char *base)
{
	return !strncmp(base, "libmemprism", 11) || runtime_only(p, base);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int an_unseen_modules(struct an_state *st, struct an_result *r)
{
	if (strcmp(r->source, "inst") != 0)
		return 0; /* (the other sources do not depend on how code was built) */
	MP_VEC(char *) names = { 0 };
	MP_VEC(const char *) looked = { 0 }; /* paths read already */
	int err = 0;
	for (size_t i = 0; i < st->procs.n && !err; i++) {
		const struct an_proc *p = &st->procs.v[i];
		for (size_t j = 0; j < p->modules.n && !err; j++) {
			const char *path = p->modules.v[j].path, *base = mp_base_name(path);
			size_t k = 0;
			while (k < looked.n && strcmp(looked.v[k], path))
				k++;
			if (k < looked.n || seen_enough(base))
				continue;
			if ((err = mp_vec_push(&looked, path)) != 0)
				break;
			/* (a file gone or unreadable since: not said either way) */
			if (sym_module_instrumented(path) != 0 || runtime_only(p, base))
				continue;
			char *n = strdup(base);
			if (!n || mp_vec_push(&names, n)) {
				free(n);
				err = -ENOMEM;
			}
		}
	}
	mp_vec_free(&looked);
	if (err) {
		for (size_t i = 0; i < names.n; i++)
			free(names.v[i]);
		mp_vec_free(&names);
		return err;
	}
	/* sorted, each name once (one library in several processes) */
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(*names.v), by_name);
	size_t n = 0;
	for (size_t i = 0; i < names.n; i++) {
		if (n && !strcmp(names.v[n - 1], names.v[i]))
			free(names.v[i]);
		else
			names.v[n++] = names.v[i];
	}
	r->unseen_modules = names.v;
	r->nunseen_modules = n;
	return 0;
}
