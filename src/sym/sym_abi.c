// SPDX-License-Identifier: MIT
/* Whether an ELF module was built by `memprism cc` or `memprism gcc`: the
 * marks of common/mp_abi.h among its dynamic symbols; and the libraries
 * it needs (sym.h). */
#include "sym/sym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "common/mp_abi.h"

int sym_elf_abi(struct Elf *e)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s))
				break;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name)
				continue;
			if (!strncmp(name, MP_ABI_SANCOV_MARK, strlen(MP_ABI_SANCOV_MARK)) ||
			    !strncmp(name, MP_ABI_TSAN_MARK, strlen(MP_ABI_TSAN_MARK)))
				return 1;
			if (!strncmp(name, MP_ABI_INLINE_PREFIX, strlen(MP_ABI_INLINE_PREFIX)))
				return strcmp(name, MP_ABI_INLINE_MARK) ? 2 : 1;
		}
		return 0;
	}
	return 0;
}

int sym_module_instrumented(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int r = e && elf_kind(e) == ELF_K_ELF ? sym_elf_abi(e) : -ENOEXEC;
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

int sym_module_needs(const char *path, const char *lib)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int r = e && elf_kind(e) == ELF_K_ELF ? 0 : -ENOEXEC;
	Elf_Scn *scn = NULL;
	while (!r && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < n && !r; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			const char *name = dyn.d_tag == DT_NEEDED ? elf_strptr(e, sh.sh_link, dyn.d_un.d_val) : NULL;
			r = name && !strcmp(name, lib);
		}
		break;
	}
	if (e)
		elf_end(e);
	close(fd);
	return r;
}
