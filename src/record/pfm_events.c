// SPDX-License-Identifier: MIT
/* libpfm4 event encodings (pfm_events.h). */
#include "record/pfm_events.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <string.h>

int mp_pfm_encode(const char *const *names, uint64_t cfg[3], const char **used)
{
	static int ready; /* 1 initialized, -1 failed */
	if (!ready)
		ready = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	if (ready < 0)
		return -ENODEV;
	for (; *names; names++) {
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		pfm_perf_encode_arg_t arg;
		memset(&arg, 0, sizeof(arg));
		arg.attr = &attr;
		arg.size = sizeof(arg);
		if (pfm_get_os_event_encoding(*names, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
			continue;
		cfg[0] = attr.config;
		cfg[1] = attr.config1;
		cfg[2] = attr.config2;
		*used = *names;
		return 0;
	}
	return -ENOENT;
}
