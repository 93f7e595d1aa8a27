// SPDX-License-Identifier: MIT
/*
 * sym_cache: plain copies of compressed separate debug files, by build-id.
 *
 * Debian's -dbg packages ship DWARF in compressed sections, and libdw
 * (elfutils <= 0.190) inflates every one of them when it opens the file:
 * ~38 ms of CPU for libc6-dbg in every report that names a libc frame,
 * a third of a small report's time. The first report writes a copy of the
 * file with its sections inflated (libelf's elf_compress, what
 * `eu-elfcompress -t none` does) under the cache directory, named by the
 * build-id; later reports open that copy, which libdw maps as is. perf's
 * ~/.debug build-id cache does the same kind of thing.
 *
 * The directory is $MEMPRISM_CACHE_DIR, else $XDG_CACHE_HOME/memprism, else
 * ~/.cache/memprism; an empty MEMPRISM_CACHE_DIR turns the cache off. Any
 * failure (no home, read-only disk, a damaged copy) falls back to the
 * original file: the cache only ever saves time. Its copies stay within
 * $MEMPRISM_CACHE_MAX MiB (default 1024): writing one removes the least
 * recently used others (a copy's modification time is its last use).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common/mp_env.h"
#include "sym/sym.h"
#include "sym/sym_int.h"

#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

/* Compressed debug sections smaller than this are inflated faster than a
 * copy is written and read back: not worth the disk. */
#define SYM_CACHE_MIN_BYTES (256u << 10)
#define SYM_CACHE_MAX_MIB 1024 /* MEMPRISM_CACHE_MAX's default */

int sym_cache_dir(char *buf, size_t len)
{
	const char *env = getenv(MP_ENV_CACHE_DIR), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (env)
		n = env[0] ? snprintf(buf, len, "%s/debug", env) : -1;
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/memprism/debug", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.cache/memprism/debug", home);
	else
		n = -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The cache file of a build-id: 0, or -1 when there is no cache. */
static int cache_path(char *buf, size_t len, const unsigned char *id, int idlen)
{
	if (idlen < 2 || idlen > 64 || sym_cache_dir(buf, len) != 0)
		return -1;
	size_t n = strlen(buf);
	if (n + 2 * (size_t)idlen + 8 > len)
		return -1;
	buf[n++] = '/';
	strcpy(sym_build_id_hex(buf + n, id, idlen), ".debug");
	return 0;
}

/* mkdir -p of path's directory. */
static int make_parents(const char *path)
{
	char dir[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof(dir))
		return -1;
	memcpy(dir, path, n + 1);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return -1;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(dir, 0755) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(dir, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* The bytes of elf's compressed sections, and whether it has DWARF. */
static uint64_t compressed_bytes(Elf *elf, int *has_info)
{
	size_t shstrndx;
	uint64_t n = 0;
	*has_info = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return 0;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".debug_info") == 0)
			*has_info = 1;
		if (sh.sh_flags & SHF_COMPRESSED)
			n += sh.sh_size;
	}
	return n;
}

/* Whether fd is a plain copy of the debug file of build-id id. */
static int copy_valid(int fd, const unsigned char *id, int idlen)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	const void *got;
	int has_info = 0;
	int ok = dwelf_elf_gnu_build_id(elf, &got) == idlen && memcmp(got, id, (size_t)idlen) == 0 &&
		 compressed_bytes(elf, &has_info) == 0 && has_info;
	elf_end(elf);
	return ok;
}

/* Writes the inflated copy of the debug file open at fd to path (through a
 * temporary file renamed into place: readers never see half a copy). */
static int write_copy(int fd, const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;
	if (fstat(fd, &st) != 0 || make_parents(path) != 0 ||
	    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -1;
	/* (exclusive and no symlink followed: a cache directory others can
	 * write to must not make us truncate their files; one left by a
	 * crash of a process with our pid goes first) */
	const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int out = open(tmp, flags, 0644);
	if (out < 0 && errno == EEXIST && unlink(tmp) == 0)
		out = open(tmp, flags, 0644);
	if (out < 0)
		return -1;
	int ok = 1;
	for (off_t off = 0; ok && off < st.st_size;) {
		ssize_t n = sendfile(out, fd, &off, (size_t)(st.st_size - off));
		ok = n > 0;
	}
	Elf *elf = ok ? elf_begin(out, ELF_C_RDWR, NULL) : NULL;
	if (elf) {
		for (Elf_Scn *scn = NULL; ok && (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			ok = gelf_getshdr(scn, &sh) &&
			     (!(sh.sh_flags & SHF_COMPRESSED) || elf_compress(scn, 0, 0) >= 0);
		}
		ok = ok && elf_update(elf, ELF_C_WRITE) >= 0;
		elf_end(elf);
	} else {
		ok = 0;
	}
	ok = close(out) == 0 && ok && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	return ok ? 0 : -1;
}

/* Opens the cached copy at path if it is one of build-id id (a damaged one
 * is removed, to be written again), and marks it used now. */
static int open_copy(const char *path, const unsigned char *id, int idlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (copy_valid(fd, id, idlen)) {
		(void)futimens(fd, NULL); /* (another user's cache may not let us) */
		return fd;
	}
	close(fd);
	unlink(path);
	return -1;
}

struct cache_file {
	char name[NAME_MAX + 1];
	struct timespec used;
	uint64_t bytes;
};

static int by_use(const void *a, const void *b)
{
	const struct timespec *x = &((const struct cache_file *)a)->used, *y = &((const struct cache_file *)b)->used;
	return x->tv_sec != y->tv_sec	  ? (x->tv_sec < y->tv_sec ? -1 : 1)
	       : x->tv_nsec != y->tv_nsec ? (x->tv_nsec < y->tv_nsec ? -1 : 1)
					  : 0;
}

uint64_t sym_cache_max(int *bad)
{
	const char *env = getenv(MP_ENV_CACHE_MAX);
	char *end;
	unsigned long long mib = env && *env ? strtoull(env, &end, 10) : SYM_CACHE_MAX_MIB;
	*bad = env && *env && (*end || mib > (1ull << 40) || *env == '-');
	if (*bad)
		mib = SYM_CACHE_MAX_MIB;
	return (uint64_t)mib << 20;
}

/* The bound on the copies' bytes. */
static uint64_t cache_max(void)
{
	int bad;
	return sym_cache_max(&bad);
}

/* Removes the least recently used copies of the cache directory dir until
 * the rest fit its bound; `keep`, the copy just written, stays. */
static void cache_prune(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct cache_file *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		size_t len = strlen(e->d_name);
		if (len <= 6 || len > NAME_MAX || strcmp(e->d_name + len - 6, ".debug") != 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		total += (uint64_t)st.st_size;
		if (strcmp(e->d_name, keep) == 0)
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct cache_file *nv = realloc(v, nc * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			cap = nc;
		}
		memcpy(v[n].name, e->d_name, len + 1);
		v[n].used = st.st_mtim;
		v[n].bytes = (uint64_t)st.st_size;
		n++;
	}
	const uint64_t max = cache_max();
	if (total > max) {
		qsort(v, n, sizeof(*v), by_use);
		for (size_t i = 0; i < n && total > max; i++)
			if (unlinkat(dirfd(d), v[i].name, 0) == 0)
				total -= v[i].bytes;
	}
	free(v);
	closedir(d);
}

int sym_cache_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			     char **debuginfo_file_name)
{
	const unsigned char *id;
	GElf_Addr at;
	char path[PATH_MAX];
	int idlen = dwfl_module_build_id(mod, &id, &at);
	int have_path = idlen > 0 && cache_path(path, sizeof(path), id, idlen) == 0;
	if (have_path) {
		int fd = open_copy(path, id, idlen);
		if (fd >= 0) {
			char *name = strdup(path);
			if (name) {
				free(*debuginfo_file_name);
				*debuginfo_file_name = name;
				return fd;
			}
			close(fd);
		}
	}
	int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
					      debuginfo_file_name);
	if (fd < 0 || !have_path)
		return fd;
	/* worth a copy? (the file found must be the build-id's: a debuglink
	 * match by name and CRC alone says nothing of the cache's key) */
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *got;
	int has_info = 0;
	int worth = elf && dwelf_elf_gnu_build_id(elf, &got) == idlen && memcmp(got, id, (size_t)idlen) == 0 &&
		    compressed_bytes(elf, &has_info) >= SYM_CACHE_MIN_BYTES && has_info;
	if (elf)
		elf_end(elf);
	if (!worth || write_copy(fd, path) != 0)
		return fd;
	char *slash = strrchr(path, '/');
	*slash = '\0';
	cache_prune(path, slash + 1);
	*slash = '/';
	int copy = open_copy(path, id, idlen);
	char *name = copy >= 0 ? strdup(path) : NULL;
	if (!name) {
		if (copy >= 0)
			close(copy);
		return fd;
	}
	close(fd);
	free(*debuginfo_file_name);
	*debuginfo_file_name = name;
	return copy;
}

bool sym_cache_has(Dwfl_Module *mod)
{
	const unsigned char *id;
	GElf_Addr at;
	char path[PATH_MAX];
	int idlen = dwfl_module_build_id(mod, &id, &at);
	return idlen > 0 && cache_path(path, sizeof(path), id, idlen) == 0 && access(path, R_OK) == 0;
}

int sym_cache_usage(char *dir, size_t len, unsigned long *files, uint64_t *bytes)
{
	*files = 0;
	*bytes = 0;
	if (sym_cache_dir(dir, len) != 0)
		return -1;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		size_t n = strlen(e->d_name);
		if (n > 6 && strcmp(e->d_name + n - 6, ".debug") == 0 && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
		    S_ISREG(st.st_mode)) {
			(*files)++;
			*bytes += (uint64_t)st.st_size;
		}
	}
	closedir(d);
	return 0;
}
