/* SPDX-License-Identifier: MIT */
/*
 * PMU event encodings from libpfm4, for events the kernel's sysfs does not
 * describe (STLB-miss loads and stores). A file of its own: libpfm4's
 * perf_event.h and <linux/perf_event.h> cannot be included together.
 */
#ifndef MP_PFM_EVENTS_H
#define MP_PFM_EVENTS_H

#include <stdint.h>

/* The first of names (NULL-terminated, "EVENT:UMASK") libpfm4 knows for
 * this machine's core PMU (LIBPFM_FORCE_PMU may name another model): 0,
 * cfg = perf_event_attr config, config1, config2, *used = the name;
 * -ENOENT if none is known here, -ENODEV if libpfm4 cannot start. */
int mp_pfm_encode(const char *const *names, uint64_t cfg[3], const char **used);

#endif
