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
#include "sym/sym.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

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
	if (!p->sym) {
		p->sym = sym_ctx_new();
		if (!p->sym) {
			st->oom = 1;
			return;
		}
	}
	int err = sym_ctx_add_module(p->sym, m->path, m->bias, m->lo, m->hi);
	if (err && err != -EEXIST)
		an_warn(st, "cannot read symbols of %s (%s): its code and statics stay unnamed", m->path,
			strerror(-err));
}

void an_module_loaded(struct an_state *st, struct an_proc *p, const char *path, uint64_t bias, uint64_t lo,
		      uint64_t hi)
{
	struct an_module m = { .path = strdup(path), .bias = bias, .lo = lo, .hi = hi };
	if (!m.path || mp_vec_push(&p->modules, m)) {
		free(m.path);
		st->oom = 1;
		return;
	}
	register_module(st, p, &m);
	struct statics_ctx sc = { st, p, base_name(path) };
	sym_elf_data_objects(path, bias, on_static, &sc);
}

void an_sym_load_ahead(struct an_state *st, uint32_t pi)
{
	struct an_proc *p = &st->procs.v[pi];
	p->sym_loading = 1;
	if (p->sym && st->sym_loads < 2) {
		st->sym_loads++;
		sym_ctx_load_async(p->sym);
	}
}

void an_proc_inherit_modules(struct an_state *st, struct an_proc *child, const struct an_proc *parent)
{
	for (size_t i = 0; i < parent->modules.n; i++) {
		const struct an_module *pm = &parent->modules.v[i];
		struct an_module m = { .bias = pm->bias, .lo = pm->lo, .hi = pm->hi };
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
		snprintf(label, sizeof(label), "tls %s (%s)", v->name, base_name(m->path));
		uint32_t cls = an_class_by_label(st, AN_KIND_TLS, label);
		an_class_add_instance(st, cls, v->size, thread);
		an_objmap_insert(&p->map, AN_LAYER_OBJECT, addr + v->offset, addr + v->offset + v->size, cls);
	}
}
