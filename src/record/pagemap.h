/* SPDX-License-Identifier: MIT */
/*
 * Virtual-to-physical translations over time: the launcher reads
 * /proc/PID/pagemap of the recorded process and its descendants now and
 * then, and appends what changed since its last look as PAGEMAP chunks (the
 * page-table trace of the ORMBP paper). Frame numbers need root (CAP_SYS_ADMIN);
 * without it the kernel reports 0 and scanning stops. Transparent huge pages
 * are recognised from /proc/kpageflags.
 */
#ifndef MP_PAGEMAP_H
#define MP_PAGEMAP_H

#include <stdint.h>
#include <sys/types.h>

struct mp_pagemap;

/* New scanner writing chunks to fd (the data file, O_APPEND) for the tree
 * of processes rooted at pid. NULL and errno on ENOMEM. */
struct mp_pagemap *mp_pagemap_new(int fd, pid_t pid);
void mp_pagemap_free(struct mp_pagemap *pm);

/* One look at every process of the tree. 0, -EPERM when frame numbers are
 * hidden (not root: stop calling), or another negative errno. */
int mp_pagemap_scan(struct mp_pagemap *pm);

/* The tree is rooted at the caller from now on, the caller itself left
 * out: the program ended, and the processes it left running were
 * reparented to the launcher (a child subreaper). */
void mp_pagemap_adopted(struct mp_pagemap *pm);

/* Up to cap children of every thread of pid appended to list[*n..]
 * (/proc/PID/task/TID/children: needs CONFIG_PROC_CHILDREN; none without). */
void mp_proc_children(pid_t pid, pid_t *list, unsigned *n, unsigned cap);

/* Pages seen with a frame so far, and scans made. */
uint64_t mp_pagemap_pages(const struct mp_pagemap *pm);
unsigned mp_pagemap_scans(const struct mp_pagemap *pm);

#endif
