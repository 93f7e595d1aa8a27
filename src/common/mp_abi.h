/* SPDX-License-Identifier: MIT */
/*
 * How to tell that an ELF module was built by `memprism cc`, from its
 * dynamic symbols: callback builds call the sanitizer-coverage load
 * callbacks, inline builds refer to the version of the inline ABI they were
 * built for (MP_ABI_INLINE_MARK: src/pass/mp_pass.cpp puts it in every
 * module, the runtime defines it in rt_access.c), gcc builds (`memprism
 * gcc`) call ThreadSanitizer's access functions (src/rt/rt_tsan.c). The
 * runtime looks, and src/sym (sym_elf_abi) for the launcher and the
 * report.
 */
#ifndef MP_ABI_H
#define MP_ABI_H

#define MP_ABI_SANCOV_MARK "__sanitizer_cov_load"
#define MP_ABI_INLINE_PREFIX "__memprism_inline_abi_" /* + the version */
#define MP_ABI_INLINE_MARK MP_ABI_INLINE_PREFIX "3"
#define MP_ABI_TSAN_MARK "__tsan_read" /* (every gcc build that loads reads through it) */

#endif
