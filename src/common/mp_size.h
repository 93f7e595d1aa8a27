/* SPDX-License-Identifier: MIT */
/*
 * Byte sizes as people and sysfs write them: "32K", "8M", "1G" (a K, M or
 * G, with an optional i and B: KiB, MB ...), or plain bytes. One parser
 * for the host's cache sizes and the model's machine files.
 */
#ifndef MP_SIZE_H
#define MP_SIZE_H

#include <stdint.h>

/* 0 and *out, or -1 when v is no size (or too large for 64 bits). */
int mp_parse_size(const char *v, uint64_t *out);

#endif
