/* SPDX-License-Identifier: MIT */
/*
 * What this machine's CPU says about its caches and TLBs, as plain data:
 * src/host reads it (sysfs, cpuid), src/model turns it into a machine to
 * simulate (mp_machine_host), so the model stays pure computation and the
 * reading stays in one place. The type lives here because both sides use
 * it and neither may include the other.
 */
#ifndef MP_HOSTCPU_H
#define MP_HOSTCPU_H

#include <stdint.h>

struct mp_host_cache {
	unsigned level; /* 1, 2, 3... */
	int data; /* a data or unified cache (not instruction-only) */
	unsigned line, ways; /* 0: not reported */
	uint64_t size; /* bytes */
};

#define MP_HOST_CACHES 8
#define MP_HOST_TLB_LEAVES 16

struct mp_host_cpu {
	/* cpu0's caches: sysfs's cache directories, else cpuid leaf 4 */
	struct mp_host_cache caches[MP_HOST_CACHES];
	unsigned ncaches;
	const char *cache_source; /* "sysfs" or "cpuid" (static); NULL when neither said anything */
	/* the "inclusive of the levels nearer the core" bit of L2 and L3 in
	 * cpuid's deterministic cache leaf (4 on Intel, 0x8000001d on AMD):
	 * 0 or 1, -1 when not reported */
	int l2_inclusive, l3_inclusive;
	int zen; /* an AMD family 0x17 or later with an L3: its L3 is a victim cache */
	/* TLBs, as cpuid's registers (eax, ebx, ecx, edx): the subleaves of
	 * Intel's leaf 0x18, or AMD's leaves 0x80000005 and 0x80000006 */
	uint32_t tlb_leaf18[MP_HOST_TLB_LEAVES][4];
	unsigned ntlb_leaf18; /* 0: leaf 0x18 not there */
	int amd_tlb_leaves; /* amd_l5 and amd_l6 were read (the CPU has those leaves) */
	uint32_t amd_l5[4], amd_l6[4];
	int hypervisor; /* cpuid leaf 1's hypervisor bit (0 where there is no cpuid) */
	unsigned cpus; /* CPUs online, 0 unknown */
};

#endif
