/* SPDX-License-Identifier: MIT */
/*
 * The host, probed in one place: the CPU's caches and TLBs (cpu0's sysfs
 * cache directories, cpuid), the signs of a hypervisor, NUMA nodes with
 * their distances and memory blocks, transparent huge pages, and whether
 * this process sees physical frame numbers in its pagemap. Everyone else
 * takes these facts as data: the model builds `--model host` from
 * mp_host_cpu (mp_machine_host, src/model), the probe behind `memprism
 * doctor` and `record` judges the sources with them (src/record/probe.c),
 * the launcher writes the NUMA facts into the trace's meta
 * (src/record/numa_host.c).
 *
 * Library code: reads files and cpuid, prints nothing, never fails (what
 * cannot be learned is marked so). The runtime reads the online nodes
 * itself (src/rt/rt_numa.c): it runs inside the program, without stdio or
 * any library of ours.
 */
#ifndef MP_HOST_H
#define MP_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "common/mp_hostcpu.h"

/* The first line of a small file (sysfs, procfs), without its newline,
 * into buf (NUL-terminated, cut at cap - 1 bytes). 0 or -errno. */
int mp_host_read_line(const char *path, char *buf, size_t cap);

/* This CPU's caches, TLB leaves, hypervisor bit and online CPUs. Fills
 * everything; what the host does not report is 0, -1 or NULL as
 * mp_host_cpu says. */
void mp_host_cpu_read(struct mp_host_cpu *c);

/* The signs of a virtual machine. */
struct mp_host_hv {
	int cpuid; /* CPUID.1:ECX bit 31 (x86): 0 or 1; -1 where there is no cpuid */
	char vendor[16]; /* CPUID leaf 0x40000000's signature, e.g. "KVMKVMKVM"; "" if none */
	int cpuinfo; /* "hypervisor" among /proc/cpuinfo's flags */
	char sysfs[32]; /* /sys/hypervisor/type, "" if absent */
};
void mp_host_hypervisor(struct mp_host_hv *hv);

/* This process's own pagemap entry for a page it just wrote: 1 the PFN
 * shows, 0 it reads as zero (the kernel shows it to CAP_SYS_ADMIN only),
 * or -errno when the entry cannot be read. */
int mp_host_pagemap_pfn(void);

/* The transparent-huge-page mode in force (always, madvise, never) into
 * buf; "" when sysfs does not say. */
void mp_host_thp(char *buf, size_t cap);

/* NUMA nodes under /sys/devices/system/node; 0 unknown. */
int mp_host_numa_nodes(void);
/* Node `node`'s SLIT distances to every node, as sysfs writes them ("10 21");
 * 0, or -errno when the node has none (past the last node). */
int mp_host_node_distances(int node, char *buf, size_t cap);
/* The bytes of one physical memory block (memory hotplug's unit); 0 when
 * sysfs does not say. */
uint64_t mp_host_memory_block_size(void);
/* The numbers of node `node`'s memory blocks, ascending, in *blocks (OUT:
 * malloc'd, the caller frees; NULL when there are none). Returns how many. */
size_t mp_host_node_memory_blocks(int node, unsigned long **blocks);

#endif
