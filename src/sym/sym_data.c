// SPDX-License-Identifier: MIT
/*
 * sym_data: the static storage of an ELF file, for attributing data
 * addresses to named objects. Reads .symtab (else .dynsym) and the section
 * headers with libelf; independent of the symbolization ctx in sym.c, since
 * the analysis wants data objects of files it may never symbolize code in.
 * Each file's objects are read once per process and kept (a shell's
 * thousands of processes each map libc and the shell: every one read
 * their symbol tables again).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sym/sym.h"
#include "sym/sym_int.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct data_cand {
	uint64_t addr, size;
	const char *name;
	const char *section;
	enum sym_data_kind kind;
	int rank;   /* 0 GLOBAL/UNIQUE, 1 WEAK, 2 LOCAL */
	size_t idx; /* symbol-table order breaks ties */
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct data_cand *a = pa, *b = pb;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int bind_rank(int bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static const char *section_name(Elf *elf, size_t shstrndx, size_t ndx)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_getscn(elf, ndx);

	if (!scn || !gelf_getshdr(scn, &shdr))
		return NULL;
	return elf_strptr(elf, shstrndx, shdr.sh_name);
}

static int emit(sym_data_cb cb, void *arg, const struct data_cand *c)
{
	char *dem = sym_demangle(c->name);
	const struct sym_data d = {
		.name = dem ? dem : c->name,
		.addr = c->addr,
		.size = c->size,
		.kind = c->kind,
		.section = c->section,
	};
	const int rc = cb(arg, &d);

	free(dem);
	return rc;
}

/* The walk of the file itself, each object at its address plus bias. */
static int walk(const char *path, uint64_t bias, sym_data_cb cb, void *arg)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL, *symscn = NULL, *dynscn = NULL, *xscn = NULL;
	Elf_Data *symdata, *xdata = NULL;
	GElf_Shdr shdr, symshdr;
	struct data_cand *cands = NULL;
	size_t shstrndx, nsyms, ncands = 0;
	int fd, ret = 0;

	if (!path || !cb)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		ret = -EIO;
		goto out;
	}

	/* Sections first; remember the symbol tables on the way. */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &shdr)) {
			ret = -EIO;
			goto out;
		}
		if (shdr.sh_type == SHT_SYMTAB)
			symscn = scn;
		else if (shdr.sh_type == SHT_DYNSYM)
			dynscn = scn;
		if (!(shdr.sh_flags & SHF_ALLOC) || shdr.sh_type == SHT_NULL)
			continue;
		const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);
		const struct data_cand c = {
			.name = name ? name : "",
			.section = name ? name : "",
			.addr = shdr.sh_addr + bias,
			.size = shdr.sh_size,
			.kind = SYM_DATA_SECTION,
		};
		ret = emit(cb, arg, &c);
		if (ret)
			goto out;
	}

	if (!symscn)
		symscn = dynscn; /* stripped: exported objects only */
	if (!symscn || !gelf_getshdr(symscn, &symshdr) || symshdr.sh_entsize == 0)
		goto out;
	symdata = elf_getdata(symscn, NULL);
	if (!symdata) {
		ret = -EIO;
		goto out;
	}
	/* Section indices >= SHN_LORESERVE live in the SHT_SYMTAB_SHNDX section
	 * linked to this table. */
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB_SHNDX
		    && shdr.sh_link == elf_ndxscn(symscn))
			xscn = scn;
	}
	if (xscn)
		xdata = elf_getdata(xscn, NULL);

	nsyms = symshdr.sh_size / symshdr.sh_entsize;
	cands = malloc((nsyms ? nsyms : 1) * sizeof(*cands));
	if (!cands) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		Elf32_Word xndx = 0;
		size_t ndx;

		if (!gelf_getsymshndx(symdata, xdata, (int)i, &sym, &xndx))
			continue;
		const int type = GELF_ST_TYPE(sym.st_info);
		if (!(type == STT_OBJECT && sym.st_size > 0) && type != STT_TLS)
			continue;
		if (sym.st_shndx == SHN_XINDEX)
			ndx = xndx;
		else if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue; /* undefined, absolute or common: no storage here */
		else
			ndx = sym.st_shndx;
		const char *name = elf_strptr(elf, symshdr.sh_link, sym.st_name);
		if (!name || !name[0])
			continue;
		const char *sec = section_name(elf, shstrndx, ndx);
		cands[ncands++] = (struct data_cand){
			.name = name,
			.section = sec ? sec : "",
			/* TLS st_value is already the offset in the TLS block. */
			.addr = type == STT_TLS ? sym.st_value : sym.st_value + bias,
			.size = sym.st_size,
			.kind = type == STT_TLS ? SYM_DATA_TLS : SYM_DATA_OBJECT,
			.rank = bind_rank(GELF_ST_BIND(sym.st_info)),
			.idx = i,
		};
	}

	qsort(cands, ncands, sizeof(*cands), cand_cmp);
	for (size_t i = 0; i < ncands; i++) {
		const struct data_cand *c = &cands[i];

		if (i > 0 && c->kind == c[-1].kind && c->addr == c[-1].addr
		    && c->size == c[-1].size)
			continue; /* alias of the better-ranked name just emitted */
		ret = emit(cb, arg, c);
		if (ret)
			goto out;
	}
out:
	free(cands);
	elf_end(elf);
	close(fd);
	return ret;
}

/* A file's objects as its walk gave them at bias 0, kept for the
 * process's lifetime: strings and the list never change once made. */
struct data_item {
	char *name, *section;
	uint64_t addr, size;
	enum sym_data_kind kind;
};

struct data_file {
	struct data_file *next;
	char *path;
	struct sym_file_id id;
	struct data_item *v;
	size_t n, cap;
};

static struct {
	pthread_mutex_t mu;
	struct data_file *head;
} data_files = { PTHREAD_MUTEX_INITIALIZER, NULL };

static int keep_item(void *arg, const struct sym_data *d)
{
	struct data_file *f = arg;
	if (f->n == f->cap) {
		const size_t cap = f->cap ? 2 * f->cap : 64;
		struct data_item *v = realloc(f->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		f->v = v;
		f->cap = cap;
	}
	struct data_item *it = &f->v[f->n];
	*it = (struct data_item){ strdup(d->name), strdup(d->section ? d->section : ""), d->addr, d->size, d->kind };
	if (!it->name || !it->section) {
		free(it->name);
		free(it->section);
		return -ENOMEM;
	}
	f->n++;
	return 0;
}

static void data_file_free(struct data_file *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].section);
	}
	free(f->v);
	free(f->path);
	free(f);
}

/* The kept objects of the file at path (read now if new), or NULL with
 * *err set. */
static const struct data_file *data_file_get(const char *path, int *err)
{
	struct stat sb;
	struct data_file *f;
	if (stat(path, &sb) != 0) {
		*err = -errno;
		return NULL;
	}
	const struct sym_file_id id = sym_file_id_of(&sb);
	pthread_mutex_lock(&data_files.mu);
	for (f = data_files.head; f; f = f->next)
		if (sym_file_id_eq(&f->id, &id) && !strcmp(f->path, path))
			goto out;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		f = NULL;
		*err = -ENOMEM;
		goto out;
	}
	f->id = id;
	*err = walk(path, 0, keep_item, f);
	if (*err) {
		data_file_free(f);
		f = NULL;
		goto out;
	}
	f->next = data_files.head;
	data_files.head = f;
out:
	pthread_mutex_unlock(&data_files.mu);
	return f;
}

int sym_elf_data_objects(const char *path, uint64_t bias, sym_data_cb cb, void *arg)
{
	int err = 0;
	if (!path || !cb)
		return -EINVAL;
	const struct data_file *f = data_file_get(path, &err);
	if (!f)
		return walk(path, bias, cb, arg); /* (what it gives of a damaged file, and its error) */
	for (size_t i = 0; i < f->n; i++) {
		const struct data_item *it = &f->v[i];
		/* (a TLS variable's address is its offset in the block: no bias) */
		const struct sym_data d = { it->name, it->kind == SYM_DATA_TLS ? it->addr : it->addr + bias,
					    it->size, it->kind, it->section };
		const int rc = cb(arg, &d);
		if (rc)
			return rc;
	}
	return 0;
}
