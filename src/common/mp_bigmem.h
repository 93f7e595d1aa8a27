/* SPDX-License-Identifier: MIT */
/* Memory for big tables probed at random (the model's cache sets, the
 * analysis's hash tables): in 2 MiB pages where the kernel gives them. */
#ifndef MP_BIGMEM_H
#define MP_BIGMEM_H

#include <stddef.h>

/* len bytes, not zeroed, 64-byte aligned; from 2 MiB up, 2 MiB aligned and
 * transparent huge pages asked for (madvise: THP is often "madvise" only),
 * so a probe costs no host TLB miss and a first touch one fault per 2 MiB
 * instead of 512. NULL on ENOMEM. Free with free(). */
void *mp_big_alloc(size_t len);

#endif
