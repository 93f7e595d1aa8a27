// SPDX-License-Identifier: MIT
/*
 * The CPU's own account of its caches and TLBs (host.h): cpu0's cache
 * directories in sysfs, else cpuid's deterministic cache leaf; the
 * inclusion bits and TLB leaves as cpuid gives them. Only reading here:
 * what the figures mean for the model, and which of them are plausible, is
 * the model's business (mp_machine_host).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "common/mp_size.h"
#include "host/host.h"

/* Up to MP_HOST_CACHES caches of cpu0 from sysfs; returns how many. */
static unsigned sysfs_caches(struct mp_host_cache *hc)
{
	unsigned n = 0;
	for (int i = 0; i < MP_HOST_CACHES; i++) {
		char p[128], v[64];
		struct mp_host_cache c = { 0 };
		uint64_t size;
#define RD(name)                                                                                                       \
	(snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%d/" name, i),                                \
	 mp_host_read_line(p, v, sizeof(v)))
		if (RD("level"))
			break;
		c.level = (unsigned)atoi(v);
		if (RD("type"))
			continue;
		c.data = strcmp(v, "Instruction") != 0;
		if (RD("size") || mp_parse_size(v, &size))
			continue;
		c.size = size;
		if (!RD("ways_of_associativity"))
			c.ways = (unsigned)atoi(v);
		if (!RD("coherency_line_size"))
			c.line = (unsigned)atoi(v);
#undef RD
		hc[n++] = c;
	}
	return n;
}

#if defined(__x86_64__) || defined(__i386__)
static unsigned cpuid_caches(struct mp_host_cache *hc)
{
	unsigned n = 0, a, b, c, d;
	if (!__get_cpuid(0, &a, &b, &c, &d) || a < 4)
		return 0;
	for (unsigned i = 0; i < MP_HOST_CACHES; i++) {
		__cpuid_count(4, i, a, b, c, d);
		unsigned type = a & 31;
		if (!type)
			break;
		struct mp_host_cache h = { .level = (a >> 5) & 7, .data = type != 2 };
		h.ways = (b >> 22) + 1;
		h.line = (b & 0xfff) + 1;
		h.size = (uint64_t)h.ways * (((b >> 12) & 0x3ff) + 1) * h.line * ((uint64_t)c + 1);
		hc[n++] = h;
	}
	return n;
}

/* L2's and L3's inclusion bits from cpuid's deterministic cache leaf (4 on
 * Intel, 0x8000001d on AMD; edx bit 1: the cache holds what the levels
 * nearer the core hold). */
static void cpuid_inclusion(struct mp_host_cpu *h)
{
	unsigned a = 0, b = 0, c = 0, d = 0, max = 0;
	if (!__get_cpuid(0, &max, &b, &c, &d))
		return;
	int amd = b == 0x68747541u; /* "Auth"enticAMD */
	unsigned leaf = 4, top = max;
	if (amd) {
		__get_cpuid(0x80000000, &top, &b, &c, &d);
		leaf = 0x8000001d;
	}
	if (top < leaf)
		return;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	unsigned family = (a >> 8) & 15;
	if (family == 15)
		family += (a >> 20) & 255;
	int incl[4] = { -1, -1, -1, -1 };
	for (unsigned i = 0; i < 8; i++) {
		__cpuid_count(leaf, i, a, b, c, d);
		unsigned type = a & 31, level = (a >> 5) & 7;
		if (!type)
			break;
		if (type != 2 && level < 4) /* data or unified */
			incl[level] = (d >> 1) & 1;
	}
	h->l2_inclusive = incl[2];
	h->l3_inclusive = incl[3];
	/* Zen (family 0x17 on): L3 is filled by L2's evictions, a victim cache */
	h->zen = amd && family >= 0x17 && incl[3] >= 0;
}

/* The TLB leaves: Intel's 0x18 (every subleaf), AMD's 0x80000005/6. */
static void cpuid_tlbs(struct mp_host_cpu *h)
{
	unsigned a, b, c, d, max;
	if (!__get_cpuid(0, &max, &b, &c, &d))
		return;
	if (max >= 0x18) {
		__cpuid_count(0x18, 0, a, b, c, d);
		unsigned nsub = a;
		for (unsigned i = 0; i <= nsub && i < MP_HOST_TLB_LEAVES; i++) {
			__cpuid_count(0x18, i, a, b, c, d);
			uint32_t *r = h->tlb_leaf18[h->ntlb_leaf18++];
			r[0] = a, r[1] = b, r[2] = c, r[3] = d;
		}
	}
	__get_cpuid(0x80000000, &max, &b, &c, &d);
	if (max >= 0x80000006) {
		__get_cpuid(0x80000005, &h->amd_l5[0], &h->amd_l5[1], &h->amd_l5[2], &h->amd_l5[3]);
		__get_cpuid(0x80000006, &h->amd_l6[0], &h->amd_l6[1], &h->amd_l6[2], &h->amd_l6[3]);
		h->amd_tlb_leaves = 1;
	}
}
#endif

void mp_host_cpu_read(struct mp_host_cpu *h)
{
	memset(h, 0, sizeof(*h));
	h->l2_inclusive = h->l3_inclusive = -1;
	h->ncaches = sysfs_caches(h->caches);
	if (h->ncaches)
		h->cache_source = "sysfs";
#if defined(__x86_64__) || defined(__i386__)
	if (!h->ncaches && (h->ncaches = cpuid_caches(h->caches)))
		h->cache_source = "cpuid";
	cpuid_inclusion(h);
	cpuid_tlbs(h);
	unsigned a, b, c, d;
	if (__get_cpuid(1, &a, &b, &c, &d))
		h->hypervisor = (c >> 31) & 1;
#endif
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	h->cpus = cpus > 0 ? (unsigned)cpus : 0;
}
