/* SPDX-License-Identifier: MIT */
/*
 * Machine descriptions for the memory-system model: cache and TLB geometry,
 * paging-structure caches, latencies. A machine comes from a preset (the
 * papers' machines), from the text of a machine file, or from what this
 * host's CPU reports (struct mp_host_cpu, read by src/host; checked for
 * plausibility: hypervisors report odd values). Pure data and parsing: no
 * simulation here, and no I/O (the CLI reads machine files and asks
 * src/host).
 */
#ifndef MP_MACHINE_H
#define MP_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/mp_hostcpu.h"

enum mp_repl { MP_REPL_LRU, MP_REPL_PLRU };
/* How a cache relates to the levels above it (nearer the core). */
enum mp_inclusion {
	MP_INCL_NINE, /* neither inclusive nor exclusive: fills on a miss, evicts
			 freely */
	MP_INCL_INCLUSIVE, /* holds all lines of the levels above: its evictions
			      back-invalidate them */
	MP_INCL_EXCLUSIVE, /* victim cache: filled only by evictions from above, a hit
			      moves the line up */
};

struct mp_cache_geom {
	uint64_t size; /* bytes */
	unsigned ways;
	unsigned repl; /* enum mp_repl */
	unsigned inclusion; /* enum mp_inclusion (L2: towards L1; LLC: towards L1+L2) */
	unsigned latency; /* load-to-use cycles on a hit */
};

struct mp_tlb_geom {
	unsigned entries; /* 0: not present */
	unsigned ways; /* entries for fully associative */
};

enum { MP_PAGE_4K, MP_PAGE_2M, MP_PAGE_1G, MP_PAGE_SIZES };

struct mp_machine {
	char name[64];
	char desc[160];
	unsigned sockets, cores; /* cores per socket; each socket has its own LLC */
	unsigned line; /* cache line bytes, the same at every level */
	struct mp_cache_geom l1d, l2, llc;
	struct mp_tlb_geom dtlb[MP_PAGE_SIZES]; /* first-level DTLB arrays by page size */
	struct mp_tlb_geom stlb; /* second-level (unified) TLB */
	unsigned stlb_sizes; /* bit MP_PAGE_*: page sizes the STLB holds */
	unsigned stlb_latency; /* extra cycles of an STLB hit */
	unsigned psc_pml4, psc_pdpt, psc_pde; /* paging-structure cache entries (fully assoc.) */
	unsigned dram_latency; /* cycles */
	char notes[512]; /* where the values came from (host: what was guessed and
			    why) */
};

/* Names of the built-in presets, NULL-terminated. */
const char *const *mp_machine_presets(void);

/* Fills m from a preset name; -ENOENT if unknown. */
int mp_machine_preset(const char *name, struct mp_machine *m);

/* Fills m from what this host's CPU reports (h, from mp_host_cpu_read:
 * sysfs cache info, else cpuid leaf 4; TLBs from cpuid leaf 0x18, else
 * 0x80000005-6); values missing or implausible (a hypervisor's) are taken
 * from a default and m->notes says which. Always succeeds. */
void mp_machine_host(struct mp_machine *m, const struct mp_host_cpu *h);

/* The TLBs AMD's cpuid leaves 0x80000005 and 0x80000006 (eax..edx)
 * describe, into m (mp_machine_host's AMD part, apart for tests with
 * recorded leaves); 1 if they describe a data TLB. An STLB not plausibly
 * bigger than the L1 DTLB is the generic default's, with a note. */
int mp_machine_amd_tlbs(struct mp_machine *m, const uint32_t l5[4], const uint32_t l6[4]);

/* Inclusion as cpuid says (mp_machine_host's part, apart for tests): each
 * of l2_inclusive / l3_inclusive is the cache's "inclusive of lower
 * levels" bit, or -1 when not reported; zen: an AMD Zen with an L3, whose
 * L3 is a victim cache (filled by L2's evictions): exclusive, whatever its
 * bit says (0). Inclusive means inclusive; 0, neither (nine). */
void mp_machine_inclusion(struct mp_machine *m, int zen, int l2_inclusive, int l3_inclusive);

/* Parses the text of a machine file ("key = value" lines, '#' comments;
 * see docs/model.md); name is the file's (m's name unless the text gives
 * one, and what messages start with). On error returns -MP_ERR_USAGE and
 * writes a message naming the line into err. Starts from a generic
 * default, so a file may give only what differs. */
int mp_machine_parse(const char *text, const char *name, struct mp_machine *m, char *err, size_t errlen);

/* Checks consistency (powers of two where the model needs them, ways that
 * divide the size...); 0 or -MP_ERR_USAGE with a message. */
int mp_machine_check(const struct mp_machine *m, char *err, size_t errlen);

/* --sample-sets n: a power of two that divides the set count of L1D, L2 and
 * the LLC (so that each cache's set index decides whether a line is in the
 * sample; mp_model_sample_sets). 0, or -EINVAL with the reason in err. */
int mp_machine_sample_sets_ok(const struct mp_machine *m, unsigned n, char *err, size_t errlen);

/* Writes the machine as a machine file (the format mp_machine_parse reads). */
int mp_machine_format(const struct mp_machine *m, char *buf, size_t len);

#endif
