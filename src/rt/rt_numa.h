/* SPDX-License-Identifier: MIT */
/* NUMA placement hooks of the runtime (rt_numa.c), as rt_thread.c uses them. */
#ifndef MP_RT_NUMA_H
#define MP_RT_NUMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rt_thread;

/* Records an AFFINITY event: thread tid asked for the CPUs in mask. */
void rt_numa_affinity_event(struct rt_thread *t, pid_t tid, const void *mask, size_t size);
/* A thread started: its pthread_t, for pthread_setaffinity_np from others. */
void rt_numa_thread_started(unsigned long self, pid_t tid);
/* The CPU mask pthread_attr_setaffinity_np put on attr, copied into mask
 * (at most cap bytes); 0 if none. */
size_t rt_numa_attr_mask(const void *attr, uint8_t *mask, size_t cap);

#endif
