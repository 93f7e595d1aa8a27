/* SPDX-License-Identifier: MIT */
/*
 * sym_int: declarations shared by the files of src/sym only; other modules
 * use sym.h.
 */
#ifndef MEMPRISM_SYM_INT_H
#define MEMPRISM_SYM_INT_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Demangle an Itanium C++ name through a run-time lookup of __cxa_demangle
 * (see sym.c for why it is not linked). Returns a malloc'd string the caller
 * frees, or NULL if `name` is not mangled, cannot be demangled, or no
 * demangler is available. Thread-safe. */
char *sym_demangle(const char *name);

/* The Dwfl find_debuginfo callback (sym_cache.c): a module's separate debug
 * file as dwfl_standard_find_debuginfo finds it, or, when that file's DWARF
 * is compressed, a plain copy of it kept in the cache by build-id (written
 * on first use). */
int sym_cache_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			     char **debuginfo_file_name);

/* The build-id id (n bytes) in hex at out, NUL-ended; the end. */
static inline char *sym_build_id_hex(char *out, const unsigned char *id, int n)
{
	static const char digit[] = "0123456789abcdef";
	for (int i = 0; i < n; i++) {
		*out++ = digit[id[i] >> 4];
		*out++ = digit[id[i] & 15];
	}
	*out = '\0';
	return out;
}

/* A file as stat(2) saw it at its path: sym.c's and sym_data.c's files
 * read once per process are told apart by it, so a file replaced at its
 * path is read again. */
struct sym_file_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

static inline struct sym_file_id sym_file_id_of(const struct stat *sb)
{
	return (struct sym_file_id){ sb->st_dev, sb->st_ino, sb->st_size, sb->st_mtim };
}

static inline bool sym_file_id_eq(const struct sym_file_id *a, const struct sym_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* Whether the cache holds mod's debug file. */
bool sym_cache_has(Dwfl_Module *mod);

#endif /* MEMPRISM_SYM_INT_H */
