/* SPDX-License-Identifier: MIT */
/*
 * How to tell that an ELF module was built by `memprism cc`, from its
 * dynamic symbols: callback builds call the sanitizer-coverage load
 * callbacks, inline builds reach the runtime's slow path (src/rt/rt_int.h
 * exports it under this name). The launcher and the runtime both look.
 */
#ifndef MP_ABI_H
#define MP_ABI_H

#define MP_ABI_SANCOV_MARK "__sanitizer_cov_load"
#define MP_ABI_INLINE_MARK "__memprism_access_slow"

#endif
