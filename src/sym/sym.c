// SPDX-License-Identifier: MIT
/*
 * sym: symbolization of code addresses with elfutils libdwfl (static-data
 * extraction with libelf is in sym_data.c).
 *
 * A sym_ctx is one address space: its sorted module table (the ranges the
 * caller saw mapped, each with its load bias) and a cache from code address
 * to its resolved frames. The ELF files behind the modules are read once
 * per analysis process, whatever number of ctxs map them: each file has a
 * Dwfl of its own at the file's addresses, and its own cache from file
 * address to frames. The report asks for the same few thousand addresses
 * millions of times, so after the first DWARF walk a lookup is one hash
 * probe and a copy.
 *
 * Strings handed out point into libdw's own data (symbol and string tables,
 * line tables, .debug_str), which lives until the last ctx that maps the
 * file is freed; only demangled names are copied, into the file's arena.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sym/sym.h"
#include "sym/sym_int.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- arena: everything a ctx hands out, freed at once ------------------ */

/* Chunks grow from the first to the most: a ctx of a short process holds
 * a few paths (a shell's 5,000 ctxs, 64 KiB each, took 330 MB). */
#define ARENA_FIRST 1024
#define ARENA_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	max_align_t data[]; /* max_align_t so every allocation is aligned */
};

struct arena {
	struct arena_chunk *head;
};

static void *arena_alloc(struct arena *a, size_t n)
{
	const size_t align = sizeof(max_align_t);

	n = (n + align - 1) & ~(align - 1);
	if (!a->head || a->head->cap - a->head->used < n) {
		const size_t grow = a->head && a->head->cap < ARENA_CHUNK ? 2 * a->head->cap : ARENA_FIRST;
		const size_t next = a->head && a->head->cap >= ARENA_CHUNK ? ARENA_CHUNK : grow;
		const size_t cap = n > next ? n : next;
		struct arena_chunk *c = malloc(sizeof(*c) + cap);

		if (!c)
			return NULL;
		c->next = a->head;
		c->used = 0;
		c->cap = cap;
		a->head = c;
	}
	void *p = (char *)a->head->data + a->head->used;
	a->head->used += n;
	return p;
}

static char *arena_strdup(struct arena *a, const char *s)
{
	const size_t n = strlen(s) + 1;
	char *d = arena_alloc(a, n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static void arena_fini(struct arena *a)
{
	struct arena_chunk *c = a->head;

	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
}

/* ---- u64 -> pointer hash map (open addressing, linear probing) ---------- */

/* Kept local rather than using src/common so that sym links only libdw/libelf;
 * it needs nothing but get and put. A NULL value marks an empty slot. */
struct u64map {
	uint64_t *keys;
	void **vals;
	size_t mask; /* capacity - 1; capacity is a power of two or 0 */
	size_t len;
};

static size_t u64_hash(uint64_t k)
{
	/* splitmix64 finalizer: code addresses share low and high bits. */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 31;
	return (size_t)k;
}

static void *u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->vals)
		return NULL;
	for (size_t i = u64_hash(key) & m->mask;; i = (i + 1) & m->mask) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static void u64map_insert_slot(uint64_t *keys, void **vals, size_t mask,
			       uint64_t key, void *val)
{
	size_t i = u64_hash(key) & mask;

	while (vals[i] && keys[i] != key)
		i = (i + 1) & mask;
	keys[i] = key;
	vals[i] = val;
}

/* Insert or replace; val must not be NULL. Returns 0 or -ENOMEM. */
static int u64map_put(struct u64map *m, uint64_t key, void *val)
{
	if (!m->vals || (m->len + 1) * 2 > m->mask + 1) {
		const size_t cap = m->vals ? (m->mask + 1) * 2 : 256;
		uint64_t *keys = malloc(cap * sizeof(*keys));
		void **vals = calloc(cap, sizeof(*vals));

		if (!keys || !vals) {
			free(keys);
			free(vals);
			return -ENOMEM;
		}
		for (size_t i = 0; m->vals && i <= m->mask; i++)
			if (m->vals[i])
				u64map_insert_slot(keys, vals, cap - 1, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		m->keys = keys;
		m->vals = vals;
		m->mask = cap - 1;
	}
	if (!u64map_get(m, key))
		m->len++;
	u64map_insert_slot(m->keys, m->vals, m->mask, key, val);
	return 0;
}

static void u64map_fini(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- C++ demangling ------------------------------------------------------ */

/*
 * __cxa_demangle lives in libstdc++. Linking it would drag a C++ runtime into
 * every C tool that uses sym, so we look it up at run time instead: first in
 * the process (present if anything already loaded libstdc++), else by
 * dlopen'ing libstdc++.so.6 once. The handle is never closed: libstdc++
 * registers exit handlers and cannot be unloaded safely. Without it, names
 * stay mangled.
 */
typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn cxa_demangle;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;

static void demangle_init(void)
{
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");

	if (!f) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		if (h)
			f = dlsym(h, "__cxa_demangle");
	}
	/* POSIX guarantees object and function pointers convert via dlsym. */
	memcpy(&cxa_demangle, &f, sizeof(f));
}

char *sym_demangle(const char *name)
{
	int status = -1;
	char *d;

	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	pthread_once(&demangle_once, demangle_init);
	if (!cxa_demangle)
		return NULL;
	d = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}

/* ---- context ------------------------------------------------------------- */

/* One address range of a compile unit, in the file's addresses. */
struct cu_range {
	uint64_t lo, hi;
	Dwarf_Addr bias;
	Dwarf_Die cu;
};

/*
 * One ELF file as libdwfl reads it, at the file's own addresses (load bias
 * 0), shared by every ctx that maps it: a shell's thousands of processes
 * map the same dozen files, and a Dwfl of each per process held about a
 * megabyte and a descriptor each (a report of 1,500 short processes took
 * 7 GB and ran out of descriptors). Files are told apart by path and by
 * what stat(2) says of them, so a file replaced at its path is a new one.
 */
struct sym_file {
	struct sym_file *next; /* in the registry */
	unsigned refs;         /* modules of ctxs that hold it (the registry's lock) */
	char *path;            /* as first registered */
	const char *base;      /* basename, points into path */
	struct sym_file_id id;
	pthread_mutex_t mu; /* everything below */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint64_t lo, hi; /* the file's address range */
	bool loaded;     /* its DWARF and symbols read ahead (or tried) */
	bool cus_built;  /* cus below computed (see cu_by_ranges) */
	struct cu_range *cus; /* malloc'd, sorted by lo */
	size_t ncus;
	struct u64map cache;     /* file address -> struct sym_resolved * */
	struct u64map demangled; /* (uintptr_t)mangled -> arena string, "" if not demanglable */
	struct u64map abspaths;  /* (uintptr_t)relative name -> struct abs_path list */
	struct arena arena;
};

/* A file address's frames, made once per file. */
struct sym_resolved {
	int n;
	struct sym_frame *frames; /* the file's arena; bias 0 */
};

struct sym_module {
	uint64_t lo, hi; /* [lo,hi) as mapped */
	uint64_t bias;
	const char *path; /* arena */
	const char *base; /* basename, points into path */
	struct sym_file *file; /* NULL if the file could not be loaded */
	int err;          /* result sym_ctx_add_module returned for it */
};

/* Cached result of one address. n == 0 (in no module) is only valid while
 * gen matches ctx->gen: a later sym_ctx_add_module may cover the address.
 * Positive results never go stale because modules cannot overlap. */
struct sym_entry {
	int n;
	unsigned gen;
	uint64_t bias; /* the module's: the frames' bias */
	const struct sym_frame *frames; /* a file's arena or the ctx's */
};

struct sym_ctx {
	pthread_t loader; /* sym_ctx_load_async's thread, while loading */
	bool loading;
	size_t nload; /* modules it loads: mods[0..nload) */
	struct sym_module *mods; /* sorted by lo, non-overlapping */
	size_t nmods, capmods;
	unsigned gen;
	struct u64map cache;     /* addr -> struct sym_entry * */
	struct arena arena;
};

/* Offline reporting: the files are given to us, debuginfo is found through
 * .gnu_debuglink / build-id under the default path (and debuginfod if the
 * user set DEBUGINFOD_URLS), compressed DWARF through its plain copy in the
 * cache (sym_cache.c). Static: Dwfl keeps a pointer to it. */
static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = sym_cache_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* The files every ctx of this process shares. */
static struct {
	pthread_mutex_t mu;
	struct sym_file *head;
} files = { PTHREAD_MUTEX_INITIALIZER, NULL };

static bool is_elf_file(int fd)
{
	unsigned char magic[SELFMAG];

	return pread(fd, magic, SELFMAG, 0) == SELFMAG && memcmp(magic, ELFMAG, SELFMAG) == 0;
}

static void file_free(struct sym_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl); /* closes the fd the module owns */
	pthread_mutex_destroy(&f->mu);
	free(f->cus);
	u64map_fini(&f->cache);
	u64map_fini(&f->demangled);
	u64map_fini(&f->abspaths);
	arena_fini(&f->arena);
	free(f->path);
	free(f);
}

/* The file at path, read by libdwfl once, with a reference the caller puts
 * back (file_put). 0, or a negative errno: open(2)'s, -ENOEXEC if it is not
 * a loadable ELF file, -ENOMEM. */
static int file_get(const char *path, struct sym_file **out)
{
	struct stat sb;
	struct sym_file *f;
	int fd = -1, err = 0;

	pthread_mutex_lock(&files.mu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		err = -errno;
		goto out;
	}
	const struct sym_file_id id = sym_file_id_of(&sb);
	for (f = files.head; f; f = f->next)
		if (sym_file_id_eq(&f->id, &id) && strcmp(f->path, path) == 0) {
			f->refs++;
			*out = f;
			goto out;
		}
	/* libdwfl's own error codes are private; check the magic ourselves so
	 * a non-ELF file gets a precise errno. */
	if (!is_elf_file(fd)) {
		err = -ENOEXEC;
		goto out;
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path)) || !(f->dwfl = dwfl_begin(&offline_callbacks))) {
		if (f)
			free(f->path);
		free(f);
		err = -ENOMEM;
		goto out;
	}
	pthread_mutex_init(&f->mu, NULL);
	const char *slash = strrchr(f->path, '/');
	f->base = slash ? slash + 1 : f->path;
	f->id = id;
	/* Base 0 with add_p_vaddr: DWARF and symbol addresses come out as the
	 * file's own; each ctx adds its module's bias. */
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_elf(f->dwfl, path, path, fd, 0, true);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		file_free(f);
		err = -ENOEXEC;
		goto out;
	}
	fd = -1; /* the Dwfl's now */
	Dwarf_Addr start, end;
	dwfl_module_info(f->mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
	f->lo = start;
	f->hi = end;
	f->refs = 1;
	f->next = files.head;
	files.head = f;
	*out = f;
out:
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&files.mu);
	return err;
}

static void file_put(struct sym_file *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&files.mu);
	if (--f->refs == 0) {
		struct sym_file **pp = &files.head;
		while (*pp != f)
			pp = &(*pp)->next;
		*pp = f->next;
		file_free(f);
	}
	pthread_mutex_unlock(&files.mu);
}

struct sym_ctx *sym_ctx_new(void)
{
	return calloc(1, sizeof(struct sym_ctx));
}

/* ---- loading ahead ------------------------------------------------------- */

static bool elf_has_dwarf(Elf *elf)
{
	size_t shstrndx;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
			if (name && strcmp(name, ".debug_info") == 0)
				return true;
		}
	return false;
}

/* The debug file of build-id id under the default build-id path, into
 * path (room for 64 + 2 * 64): whether it is there. */
static bool build_id_file(const unsigned char *id, int n, char *path)
{
	if (n < 2 || n > 64)
		return false;
	char *p = path + sprintf(path, "/usr/lib/debug/.build-id/%02x/", id[0]);
	strcpy(sym_build_id_hex(p, id + 1, n - 1), ".debug");
	return access(path, R_OK) == 0;
}

/* Whether mod's DWARF is at hand: in its own file, under the default
 * build-id path, or in the cache. Loading ahead leaves the others alone: their first search
 * loads libdebuginfod and its dozens of libraries (~25 ms), for modules no
 * lookup may ever land in. */
static bool debuginfo_local(Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	if (elf_has_dwarf(dwfl_module_getelf(mod, &bias)) || sym_cache_has(mod))
		return true;
	const unsigned char *id;
	GElf_Addr at;
	char path[64 + 2 * 64];
	int n = dwfl_module_build_id(mod, &id, &at);
	return build_id_file(id, n, path);
}

int sym_debug_info_of(const char *path, char *where, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	char file[64 + 2 * 64];
	int n = elf ? (int)dwelf_elf_gnu_build_id(elf, &id) : 0;
	if (elf_has_dwarf(elf)) {
		snprintf(where, len, "%s", path);
		found = 1;
	} else if (build_id_file(id, n, file)) {
		snprintf(where, len, "%s", file);
		found = 2;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* (each file once, whichever ctx comes first; the others' lookups in it
 * wait on its lock meanwhile) */
static void *load_modules(void *arg)
{
	struct sym_ctx *ctx = arg;

	for (size_t i = 0; i < ctx->nload; i++) {
		struct sym_file *f = ctx->mods[i].file;
		Dwarf_Addr bias;

		if (!f)
			continue;
		pthread_mutex_lock(&f->mu);
		if (!f->loaded) {
			f->loaded = true;
			if (debuginfo_local(f->mod)) {
				dwfl_module_getdwarf(f->mod, &bias);
				dwfl_module_getsymtab(f->mod);
			}
		}
		pthread_mutex_unlock(&f->mu);
	}
	return NULL;
}

/* Called first by everything that touches the module table. */
static void load_wait(struct sym_ctx *ctx)
{
	if (ctx->loading) {
		pthread_join(ctx->loader, NULL);
		ctx->loading = false;
	}
}

void sym_ctx_load_async(struct sym_ctx *ctx)
{
	if (!ctx)
		return;
	load_wait(ctx);
	ctx->nload = ctx->nmods;
	ctx->loading = ctx->nload && pthread_create(&ctx->loader, NULL, load_modules, ctx) == 0;
}

void sym_ctx_free(struct sym_ctx *ctx)
{
	if (!ctx)
		return;
	load_wait(ctx);
	for (size_t i = 0; i < ctx->nmods; i++)
		file_put(ctx->mods[i].file);
	free(ctx->mods);
	u64map_fini(&ctx->cache);
	arena_fini(&ctx->arena);
	free(ctx);
}

/* Index of the module containing addr, or -1. */
static ptrdiff_t find_module(const struct sym_ctx *ctx, uint64_t addr)
{
	size_t lo = 0, hi = ctx->nmods;

	/* First module with lo > addr; the candidate is the one before it. */
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;

		if (ctx->mods[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= ctx->mods[lo - 1].hi)
		return -1;
	return (ptrdiff_t)lo - 1;
}

/* Position where [lo,hi) goes, or -EEXIST if it overlaps a module. */
static ptrdiff_t insert_pos(const struct sym_ctx *ctx, uint64_t lo, uint64_t hi)
{
	size_t i = 0;

	while (i < ctx->nmods && ctx->mods[i].lo < lo)
		i++;
	if (i > 0 && ctx->mods[i - 1].hi > lo)
		return -EEXIST;
	if (i < ctx->nmods && ctx->mods[i].lo < hi)
		return -EEXIST;
	return (ptrdiff_t)i;
}

static int insert_module(struct sym_ctx *ctx, const struct sym_module *m)
{
	const ptrdiff_t pos = insert_pos(ctx, m->lo, m->hi);

	if (pos < 0)
		return (int)pos;
	if (ctx->nmods == ctx->capmods) {
		const size_t cap = ctx->capmods ? ctx->capmods * 2 : 16;
		struct sym_module *mods = realloc(ctx->mods, cap * sizeof(*mods));

		if (!mods)
			return -ENOMEM;
		ctx->mods = mods;
		ctx->capmods = cap;
	}
	memmove(&ctx->mods[pos + 1], &ctx->mods[pos],
		(ctx->nmods - (size_t)pos) * sizeof(*ctx->mods));
	ctx->mods[pos] = *m;
	ctx->nmods++;
	ctx->gen++; /* addresses cached as "in no module" may be in this one */
	return 0;
}

int sym_ctx_add_module(struct sym_ctx *ctx, const char *path, uint64_t bias,
		       uint64_t lo, uint64_t hi)
{
	struct sym_module m = { .lo = lo, .hi = hi, .bias = bias };
	const char *slash;
	int err;

	if (!ctx || !path)
		return -EINVAL;
	load_wait(ctx);

	/* Registering the same path and bias again is answered from the table. */
	for (size_t i = 0; i < ctx->nmods; i++) {
		const struct sym_module *o = &ctx->mods[i];

		if (o->bias == bias && strcmp(o->path, path) == 0)
			return hi <= lo || (o->lo == lo && o->hi == hi) ? o->err : -EEXIST;
	}
	if (hi > lo && insert_pos(ctx, lo, hi) < 0)
		return -EEXIST;

	m.path = arena_strdup(&ctx->arena, path);
	if (!m.path)
		return -ENOMEM;
	slash = strrchr(m.path, '/');
	m.base = slash ? slash + 1 : m.path;

	err = file_get(path, &m.file);
	if (err)
		goto failed;
	if (hi <= lo) {
		m.lo = m.file->lo + bias;
		m.hi = m.file->hi + bias;
	}
	err = insert_module(ctx, &m);
	if (err) /* an overlap found only now (range from the file) */
		file_put(m.file);
	return err;

failed:
	/* Remember the range anyway so lookups can still name the module. */
	m.err = err;
	m.file = NULL;
	if (hi > lo && insert_module(ctx, &m) == -ENOMEM)
		return -ENOMEM;
	return err;
}

/* ---- lookup -------------------------------------------------------------- */

/* Demangled form of a name owned by libdw, or the name itself. Cached by
 * the string's address: libdw hands out the same pointer for the same
 * symbol, and demangling thousands of frames would otherwise dominate. */
static const char *pretty_name(struct sym_file *sf, const char *name)
{
	const char *cached;
	char *d;

	if (!name || name[0] != '_' || name[1] != 'Z')
		return name;
	cached = u64map_get(&sf->demangled, (uintptr_t)name);
	if (cached)
		return cached[0] ? cached : name;
	d = sym_demangle(name);
	cached = arena_strdup(&sf->arena, d ? d : "");
	free(d);
	if (!cached)
		return name; /* out of memory: mangled is still correct */
	/* A failed put only costs a later re-demangle. */
	(void)u64map_put(&sf->demangled, (uintptr_t)name, (void *)cached);
	return cached[0] ? cached : name;
}

/* A relative source path made absolute against the CU's DW_AT_comp_dir.
 * libdw joins a DWARF 5 file name with its directory entry, but when that
 * entry is itself relative ("src/sym") the result still is. Names and
 * comp dirs are strings in .debug_line_str / .debug_str, so the pointer pair
 * identifies the join; the same name pointer can meet several comp dirs,
 * hence a short list per name. */
struct abs_path {
	const char *dir;
	const char *path; /* arena */
	struct abs_path *next;
};

static const char *absolute_path(struct sym_file *sf, const char *dir, const char *name)
{
	const char *const key = name;
	struct abs_path *head, *p;
	size_t dlen, nlen;
	char *s;

	if (!name || name[0] == '/' || !dir || dir[0] != '/')
		return name;
	head = u64map_get(&sf->abspaths, (uintptr_t)key);
	for (p = head; p; p = p->next)
		if (p->dir == dir)
			return p->path;
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	dlen = strlen(dir);
	nlen = strlen(name);
	p = arena_alloc(&sf->arena, sizeof(*p));
	s = arena_alloc(&sf->arena, dlen + 1 + nlen + 1);
	if (!p || !s)
		return name; /* out of memory: relative is still useful */
	memcpy(s, dir, dlen);
	s[dlen] = '/';
	memcpy(s + dlen + 1, name, nlen + 1);
	p->dir = dir;
	p->path = s;
	p->next = head;
	/* A failed put only costs a later re-join. */
	(void)u64map_put(&sf->abspaths, (uintptr_t)key, p);
	return s;
}

/* Name of a subprogram / inlined-subroutine DIE: demangled linkage name
 * (qualified, with parameters for C++), else DW_AT_name, which
 * dwarf_diename follows through DW_AT_abstract_origin / specification. */
static const char *die_function_name(struct sym_file *sf, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *linkage, *name;

	linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!linkage)
		linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (linkage) {
		const char *p = pretty_name(sf, linkage);

		if (p != linkage)
			return p;
	}
	name = dwarf_diename(die);
	return name ? name : linkage;
}

static int cu_range_cmp(const void *pa, const void *pb)
{
	const struct cu_range *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/*
 * The compile unit holding addr when dwfl_module_addrdie found none.
 * libdw (<= 0.190) maps addresses to CUs only through .debug_aranges, which
 * clang and rustc do not emit by default, and which is incomplete when only
 * some objects came from gcc. So on the first miss we collect every CU's
 * DW_AT_low_pc/high_pc/ranges once per module, then binary-search them.
 * Returns NULL if no CU covers addr (or out of memory: no line info is a
 * degraded answer, not a wrong one).
 */
static Dwarf_Die *cu_by_ranges(struct sym_file *m, uint64_t addr, Dwarf_Addr *bias)
{
	if (!m->cus_built) {
		Dwarf_Die *cu = NULL;
		Dwarf_Addr b;
		size_t cap = 0;

		m->cus_built = true;
		while ((cu = dwfl_module_nextcu(m->mod, cu, &b)) != NULL) {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
				if (end <= start)
					continue;
				if (m->ncus == cap) {
					const size_t ncap = cap ? cap * 2 : 64;
					struct cu_range *r = realloc(m->cus, ncap * sizeof(*r));

					if (!r)
						goto built;
					m->cus = r;
					cap = ncap;
				}
				m->cus[m->ncus++] = (struct cu_range){
					.lo = start + b, .hi = end + b, .bias = b, .cu = *cu,
				};
			}
		}
built:
		if (m->ncus) /* qsort(NULL, 0) is undefined: a module without CU ranges */
			qsort(m->cus, m->ncus, sizeof(*m->cus), cu_range_cmp);
	}

	/* Last range starting at or below addr; ranges of distinct CUs do
	 * not overlap in a linked image, so checking that one suffices. */
	size_t lo = 0, hi = m->ncus;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;

		if (m->cus[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= m->cus[lo - 1].hi)
		return NULL;
	*bias = m->cus[lo - 1].bias;
	return &m->cus[lo - 1].cu;
}

/* DW_AT_call_file / DW_AT_call_line of an inlined-subroutine DIE. */
static void call_site(struct sym_file *sf, Dwarf_Die *die, const char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &v) == 0
	    && dwarf_diecu(die, &cu, NULL, NULL)
	    && dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 && v < nfiles) {
		*file = dwarf_filesrc(files, v, NULL, NULL);
		if (*file && strcmp(*file, "???") == 0) /* libdw's "no file" entry */
			*file = NULL;
		*file = absolute_path(sf, dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr)),
				      *file);
	}
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &v) == 0)
		*line = v > INT_MAX ? 0 : (int)v;
}

static bool is_function_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine
	       || tag == DW_TAG_entry_point;
}

/* The symbol table's name for the function at addr, or NULL. Asked only
 * where the debug info names none: libdwfl reads the whole table at each
 * call, tens of thousands of symbols in a large program. */
static const char *symbol_name(Dwfl_Module *mod, uint64_t addr)
{
	GElf_Off off;
	GElf_Sym sym;
	return mod ? dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL) : NULL;
}

/*
 * Resolve the file address addr of sf into its arena frames, following
 * eu-addr2line -i:
 * dwarf_getscopes finds the innermost scope at the PC, but past an inlined
 * instance it continues into the abstract origin's scopes (for variable
 * lookup), so the physical nesting is re-read with dwarf_getscopes_die. Each
 * inlined_subroutine on that chain is one frame; its DW_AT_call_file/line is
 * the position in the next frame. The innermost frame's position is the line
 * table's. Returns the frame count or -ENOMEM.
 */
static int resolve(struct sym_file *sf, uint64_t addr, struct sym_frame **out)
{
	Dwfl_Module *mod = sf->mod;
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int nchain = 0, n = 0, ret;
	const char *file = NULL;
	int line = 0;
	struct sym_frame *f;

	if (mod) {
		Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
		Dwarf_Addr bias;
		Dwarf_Die *cudie;

		if (l) {
			file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
			file = absolute_path(sf, dwfl_line_comp_dir(l), file);
		}
		cudie = dwfl_module_addrdie(mod, addr, &bias);
		if (!cudie)
			cudie = cu_by_ranges(sf, addr, &bias);
		if (!file && cudie) {
			/* dwfl_module_getsrc has the same .debug_aranges blind spot. */
			Dwarf_Line *dl = dwarf_getsrc_die(cudie, addr - bias);
			Dwarf_Attribute attr;

			if (dl && (file = dwarf_linesrc(dl, NULL, NULL)) != NULL) {
				if (dwarf_lineno(dl, &line) != 0)
					line = 0;
				file = absolute_path(sf, dwarf_formstring(dwarf_attr(
							cudie, DW_AT_comp_dir, &attr)), file);
			}
		}
		if (cudie && dwarf_getscopes(cudie, addr - bias, &scopes) > 0)
			nchain = dwarf_getscopes_die(&scopes[0], &chain);
		if (nchain < 0)
			nchain = 0;
	}

	/* Upper bound: every function DIE on the chain, plus a fallback frame. */
	int cap = 1;
	for (int i = 0; i < nchain; i++)
		cap += is_function_tag(dwarf_tag(&chain[i]));
	f = arena_alloc(&sf->arena, (size_t)cap * sizeof(*f));
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}

	for (int i = 0; i < nchain; i++) {
		const int tag = dwarf_tag(&chain[i]);

		if (!is_function_tag(tag))
			continue;
		f[n] = (struct sym_frame){
			.function = die_function_name(sf, &chain[i]),
			.file = file,
			.line = line,
			.module = sf->base,
			.module_path = sf->path,
			.inlined = tag == DW_TAG_inlined_subroutine,
		};
		if (!f[n].inlined) {
			if (!f[n].function)
				f[n].function = pretty_name(sf, symbol_name(mod, addr));
			n++;
			break;
		}
		call_site(sf, &chain[i], &file, &line);
		n++;
	}
	/* No DWARF, or a chain that ended without its real function. */
	if (n == 0 || f[n - 1].inlined) {
		f[n++] = (struct sym_frame){
			.function = pretty_name(sf, symbol_name(mod, addr)),
			.file = file,
			.line = line,
			.module = sf->base,
			.module_path = sf->path,
		};
	}
	*out = f;
	ret = n;
out:
	free(scopes);
	free(chain);
	return ret;
}

/* The frames of the file address addr of sf, resolved once per file:
 * their count, or -ENOMEM. */
static int file_lookup(struct sym_file *sf, uint64_t addr, const struct sym_frame **out)
{
	struct sym_resolved *r;
	int ret = 0;

	pthread_mutex_lock(&sf->mu);
	r = u64map_get(&sf->cache, addr);
	if (!r) {
		struct sym_frame *frames;
		const int n = resolve(sf, addr, &frames);

		r = n < 0 ? NULL : arena_alloc(&sf->arena, sizeof(*r));
		if (!r || u64map_put(&sf->cache, addr, r) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		r->n = n;
		r->frames = frames;
	}
	*out = r->frames;
	ret = r->n;
out:
	pthread_mutex_unlock(&sf->mu);
	return ret;
}

/* The one frame of a module whose file could not be read: its name. */
static int unread_module(struct sym_ctx *ctx, const struct sym_module *m, const struct sym_frame **out)
{
	struct sym_frame *f = arena_alloc(&ctx->arena, sizeof(*f));

	if (!f)
		return -ENOMEM;
	*f = (struct sym_frame){ .module = m->base, .module_path = m->path };
	*out = f;
	return 1;
}

int sym_ctx_lookup(struct sym_ctx *ctx, uint64_t addr, struct sym_frame *out, int max)
{
	struct sym_entry *e;

	if (!ctx || (max > 0 && !out))
		return -EINVAL;
	load_wait(ctx);

	e = u64map_get(&ctx->cache, addr);
	if (!e || (e->n == 0 && e->gen != ctx->gen)) {
		const ptrdiff_t mi = find_module(ctx, addr);
		const struct sym_frame *frames = NULL;
		int n = 0;

		if (mi >= 0) {
			const struct sym_module *m = &ctx->mods[mi];

			n = m->file ? file_lookup(m->file, addr - m->bias, &frames) : unread_module(ctx, m, &frames);
			if (n < 0)
				return n;
		}
		if (!e) {
			e = arena_alloc(&ctx->arena, sizeof(*e));
			if (!e || u64map_put(&ctx->cache, addr, e) < 0)
				return -ENOMEM;
		}
		e->n = n;
		e->gen = ctx->gen;
		e->bias = mi >= 0 ? ctx->mods[mi].bias : 0;
		e->frames = frames;
	}

	const int n = e->n < max ? e->n : (max > 0 ? max : 0);
	for (int i = 0; i < n; i++) {
		out[i] = e->frames[i];
		out[i].bias = e->bias;
	}
	return n;
}
