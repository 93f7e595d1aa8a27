// SPDX-License-Identifier: MIT
/*
 * ELF images of a replayed process: each MODULE event registers the image with
 * the process's symbolizer and turns its static variables and sections into
 * objects, live from the moment the image was loaded.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/an_int.h"
#include "sym/sym.h"

void an_warn(struct an_state *st, const char *fmt, ...)
{
	if (st->warnings.n >= 100)
		return; /* enough to tell the story */
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char *s = strdup(buf);
	if (!s || mp_vec_push(&st->warnings, s))
		free(s);
}

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
		sc->st->classes.v[cls].instances++;
		sc->st->classes.v[cls].bytes_allocated += d->size;
		if (d->size > sc->st->classes.v[cls].max_size)
			sc->st->classes.v[cls].max_size = d->size;
		an_objmap_insert(&sc->p->map, AN_LAYER_OBJECT, d->addr, d->addr + d->size, cls);
		break;
	}
	case SYM_DATA_SECTION: {
		snprintf(label, sizeof(label), "section %s %s", sc->module, d->name);
		uint32_t cls = an_class_by_label(sc->st, AN_KIND_SECTION, label);
		sc->st->classes.v[cls].instances++;
		sc->st->classes.v[cls].bytes_allocated += d->size;
		if (d->size > sc->st->classes.v[cls].max_size)
			sc->st->classes.v[cls].max_size = d->size;
		an_objmap_insert(&sc->p->map, AN_LAYER_MAP, d->addr, d->addr + d->size, cls);
		break;
	}
	default:
		/* TLS variables live in each thread's TLS block, whose address the
		 * runtime does not record yet: accesses land in the thread's stack
		 * mapping instead. */
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

void an_proc_inherit_modules(struct an_state *st, struct an_proc *child, const struct an_proc *parent)
{
	for (size_t i = 0; i < parent->modules.n; i++) {
		const struct an_module *pm = &parent->modules.v[i];
		struct an_module m = *pm;
		m.path = strdup(pm->path);
		if (!m.path || mp_vec_push(&child->modules, m)) {
			free(m.path);
			st->oom = 1;
			return;
		}
		register_module(st, child, &m);
	}
}
