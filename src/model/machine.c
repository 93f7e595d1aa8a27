// SPDX-License-Identifier: MIT
/*
 * Machines: presets for the papers' machines, the text of a "key = value"
 * machine file, and the host from what its CPU reports (sysfs cache info or
 * cpuid; TLBs from cpuid leaf 0x18 or AMD's 0x80000005/6), which src/host
 * reads and hands over as struct mp_host_cpu: nothing here reads a file or
 * runs cpuid. Geometry the host does not report, or reports implausibly (a
 * hypervisor passes its host's figures, or none), comes from a default and
 * is listed in notes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mp_error.h"
#include "common/mp_size.h"
#include "model/machine.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

/* A generic recent x86 server core: the base of files and of the host. */
static const struct mp_machine generic = {
	.name = "generic",
	.desc = "generic x86-64 server core (Skylake-SP-like geometry)",
	.sockets = 1,
	.cores = 1,
	.line = 64,
	.l1d = { 32 * KiB, 8, MP_REPL_PLRU, MP_INCL_NINE, 5 },
	.l2 = { 1 * MiB, 16, MP_REPL_PLRU, MP_INCL_NINE, 14 },
	.llc = { 2 * MiB, 16, MP_REPL_LRU, MP_INCL_NINE, 50 },
	.dtlb = { { 64, 4 }, { 32, 4 }, { 4, 4 } },
	.stlb = { 1536, 12 },
	.stlb_sizes = 1u << MP_PAGE_4K | 1u << MP_PAGE_2M,
	.stlb_latency = 9,
	.psc_pml4 = 2,
	.psc_pdpt = 4,
	.psc_pde = 32,
	.dram_latency = 250,
};

/* The machines of the papers memprism is built from (docs/design.md),
 * from their text and the vendors' optimization manuals. Paging-structure
 * cache sizes are not documented by either vendor: 2 / 4 / 32 entries as
 * measured in the literature. */
static const struct mp_machine presets[] = {
	{
		.name = "nehalem-e5504",
		.desc = "2x Intel Xeon E5504 (Nehalem-EP), the machine of the ORMBP paper "
			"(Object-Relative Memory Behavior Profiling)",
		.sockets = 2,
		.cores = 4,
		.line = 64,
		.l1d = { 32 * KiB, 8, MP_REPL_PLRU, MP_INCL_NINE, 4 },
		.l2 = { 256 * KiB, 8, MP_REPL_PLRU, MP_INCL_NINE, 10 },
		.llc = { 4 * MiB, 16, MP_REPL_LRU, MP_INCL_INCLUSIVE, 38 },
		.dtlb = { { 64, 4 }, { 32, 4 }, { 0, 0 } },
		.stlb = { 512, 4 },
		.stlb_sizes = 1u << MP_PAGE_4K,
		.stlb_latency = 7,
		.psc_pml4 = 2,
		.psc_pdpt = 4,
		.psc_pde = 32,
		.dram_latency = 190,
	},
	{
		.name = "ivybridge-e5-2620v2",
		.desc = "2x Intel Xeon E5-2620 v2 (Ivy Bridge-EP), platform A of the PTAT "
			"paper (Page Table Access Tracing)",
		.sockets = 2,
		.cores = 6,
		.line = 64,
		.l1d = { 32 * KiB, 8, MP_REPL_PLRU, MP_INCL_NINE, 4 },
		.l2 = { 256 * KiB, 8, MP_REPL_PLRU, MP_INCL_NINE, 12 },
		.llc = { 15 * MiB, 20, MP_REPL_LRU, MP_INCL_INCLUSIVE, 30 },
		.dtlb = { { 64, 4 }, { 32, 4 }, { 4, 4 } },
		.stlb = { 512, 4 },
		.stlb_sizes = 1u << MP_PAGE_4K,
		.stlb_latency = 7,
		.psc_pml4 = 2,
		.psc_pdpt = 4,
		.psc_pde = 32,
		.dram_latency = 200,
	},
	{
		.name = "haswell-e5-2680v3",
		.desc = "2x Intel Xeon E5-2680 v3 (Haswell-EP), the machine of \"Understanding "
			"Memory Access Patterns Using the BSC Performance Tools\"",
		.sockets = 2,
		.cores = 12,
		.line = 64,
		.l1d = { 32 * KiB, 8, MP_REPL_PLRU, MP_INCL_NINE, 4 },
		.l2 = { 256 * KiB, 8, MP_REPL_PLRU, MP_INCL_NINE, 12 },
		.llc = { 30 * MiB, 20, MP_REPL_LRU, MP_INCL_INCLUSIVE, 36 },
		.dtlb = { { 64, 4 }, { 32, 4 }, { 4, 4 } },
		.stlb = { 1024, 8 },
		.stlb_sizes = 1u << MP_PAGE_4K | 1u << MP_PAGE_2M,
		.stlb_latency = 9,
		.psc_pml4 = 2,
		.psc_pdpt = 4,
		.psc_pde = 32,
		.dram_latency = 220,
	},
	{
		/* Magny-Cours: each die is a NUMA node of 6 cores with its own
		 * 6 MiB L3, 1 MiB of which HT Assist takes for its probe filter.
		 * L1/L2 are exclusive on K10 and the L3 is a victim cache; the
		 * model has exclusive LLCs but treats L2 as non-inclusive of L1.
		 * The 48-entry L1 DTLB is fully associative for all page sizes;
		 * of the L2 TLB's 4K/2M/1G arrays the model keeps the 4K one. */
		.name = "opteron-6174",
		.desc = "4x AMD Opteron 6174 (Magny-Cours, 8 dies), machine C of \"MemProf: "
			"A Memory Profiler for NUMA Multicore Systems\"",
		.sockets = 8,
		.cores = 6,
		.line = 64,
		.l1d = { 64 * KiB, 2, MP_REPL_LRU, MP_INCL_NINE, 3 },
		.l2 = { 512 * KiB, 16, MP_REPL_PLRU, MP_INCL_NINE, 15 },
		.llc = { 5 * MiB, 40, MP_REPL_LRU, MP_INCL_EXCLUSIVE, 45 },
		.dtlb = { { 48, 48 }, { 0, 0 }, { 0, 0 } },
		.stlb = { 512, 4 },
		.stlb_sizes = 1u << MP_PAGE_4K,
		.stlb_latency = 5,
		.psc_pml4 = 2,
		.psc_pdpt = 4,
		.psc_pde = 24,
		.dram_latency = 230,
	},
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *const *mp_machine_presets(void)
{
	static const char *names[NPRESETS + 1];
	for (size_t i = 0; i < NPRESETS; i++)
		names[i] = presets[i].name;
	return names;
}

int mp_machine_preset(const char *name, struct mp_machine *m)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0) {
			*m = presets[i];
			return 0;
		}
	return -ENOENT;
}

/* --- checks -----------------------------------------------------------------
 */

static int check_cache(const char *what, const struct mp_cache_geom *g, unsigned line, char *err, size_t n)
{
	if (!g->ways || !g->size || g->size % ((uint64_t)g->ways * line)) {
		snprintf(err, n, "%s: size %llu is not a multiple of ways (%u) x line (%u)", what,
			 (unsigned long long)g->size, g->ways, line);
		return -MP_ERR_USAGE;
	}
	if (g->repl == MP_REPL_PLRU && (g->ways > 32 || (g->ways & (g->ways - 1)))) {
		snprintf(err, n, "%s: tree-PLRU needs a power-of-two number of ways up to 32 (got %u)", what, g->ways);
		return -MP_ERR_USAGE;
	}
	if (g->size / line > (1ull << 32)) {
		snprintf(err, n, "%s: too large to simulate", what);
		return -MP_ERR_USAGE;
	}
	return 0;
}

static int check_tlb(const char *what, const struct mp_tlb_geom *g, char *err, size_t n)
{
	if (g->entries && (!g->ways || g->entries % g->ways)) {
		snprintf(err, n, "%s: %u entries are not a multiple of %u ways", what, g->entries, g->ways);
		return -MP_ERR_USAGE;
	}
	return 0;
}

int mp_machine_check(const struct mp_machine *m, char *err, size_t n)
{
	if (!m->sockets || !m->cores || m->sockets * m->cores > 4096) {
		snprintf(err, n, "sockets x cores must be between 1 and 4096");
		return -MP_ERR_USAGE;
	}
	if (m->line < 8 || m->line > 4096 || (m->line & (m->line - 1))) {
		snprintf(err, n, "line: %u is not a power of two between 8 and 4096", m->line);
		return -MP_ERR_USAGE;
	}
	int e;
	if ((e = check_cache("l1d", &m->l1d, m->line, err, n)) || (e = check_cache("l2", &m->l2, m->line, err, n)) ||
	    (e = check_cache("llc", &m->llc, m->line, err, n)))
		return e;
	if (!m->dtlb[MP_PAGE_4K].entries) {
		snprintf(err, n, "dtlb4k: a first-level DTLB for 4 KiB pages is required");
		return -MP_ERR_USAGE;
	}
	if ((e = check_tlb("dtlb4k", &m->dtlb[0], err, n)) || (e = check_tlb("dtlb2m", &m->dtlb[1], err, n)) ||
	    (e = check_tlb("dtlb1g", &m->dtlb[2], err, n)) || (e = check_tlb("stlb", &m->stlb, err, n)))
		return e;
	return 0;
}

/* --- machine files
 * ------------------------------------------------------------ */

enum field_type { F_STR, F_UINT, F_SIZE, F_REPL, F_INCL, F_PAGESIZES };

struct field {
	const char *key;
	size_t off;
	enum field_type type;
};

#define FIELD(k, member, t)                                                                                            \
	{                                                                                                              \
		k, offsetof(struct mp_machine, member), t                                                              \
	}

static const struct field fields[] = {
	FIELD("name", name, F_STR),
	FIELD("description", desc, F_STR),
	FIELD("sockets", sockets, F_UINT),
	FIELD("cores", cores, F_UINT),
	FIELD("line", line, F_UINT),
	FIELD("l1d.size", l1d.size, F_SIZE),
	FIELD("l1d.ways", l1d.ways, F_UINT),
	FIELD("l1d.replacement", l1d.repl, F_REPL),
	FIELD("l1d.latency", l1d.latency, F_UINT),
	FIELD("l2.size", l2.size, F_SIZE),
	FIELD("l2.ways", l2.ways, F_UINT),
	FIELD("l2.replacement", l2.repl, F_REPL),
	FIELD("l2.inclusion", l2.inclusion, F_INCL),
	FIELD("l2.latency", l2.latency, F_UINT),
	FIELD("llc.size", llc.size, F_SIZE),
	FIELD("llc.ways", llc.ways, F_UINT),
	FIELD("llc.replacement", llc.repl, F_REPL),
	FIELD("llc.inclusion", llc.inclusion, F_INCL),
	FIELD("llc.latency", llc.latency, F_UINT),
	FIELD("dtlb4k.entries", dtlb[MP_PAGE_4K].entries, F_UINT),
	FIELD("dtlb4k.ways", dtlb[MP_PAGE_4K].ways, F_UINT),
	FIELD("dtlb2m.entries", dtlb[MP_PAGE_2M].entries, F_UINT),
	FIELD("dtlb2m.ways", dtlb[MP_PAGE_2M].ways, F_UINT),
	FIELD("dtlb1g.entries", dtlb[MP_PAGE_1G].entries, F_UINT),
	FIELD("dtlb1g.ways", dtlb[MP_PAGE_1G].ways, F_UINT),
	FIELD("stlb.entries", stlb.entries, F_UINT),
	FIELD("stlb.ways", stlb.ways, F_UINT),
	FIELD("stlb.pages", stlb_sizes, F_PAGESIZES),
	FIELD("stlb.latency", stlb_latency, F_UINT),
	FIELD("psc.pml4", psc_pml4, F_UINT),
	FIELD("psc.pdpt", psc_pdpt, F_UINT),
	FIELD("psc.pde", psc_pde, F_UINT),
	FIELD("dram.latency", dram_latency, F_UINT),
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static const char *const repl_names[] = { "lru", "plru" };
static const char *const incl_names[] = { "nine", "inclusive", "exclusive" };
static const char *const page_names[] = { "4k", "2m", "1g" };

static int lookup(const char *const *names, size_t n, const char *v)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(names[i], v) == 0)
			return (int)i;
	return -1;
}

static int set_field(struct mp_machine *m, const struct field *f, const char *v)
{
	char *base = (char *)m + f->off;
	uint64_t n;
	int i;
	switch (f->type) {
	case F_STR:
		snprintf(base, f->off == offsetof(struct mp_machine, name) ? sizeof(m->name) : sizeof(m->desc), "%s",
			 v);
		return 0;
	case F_UINT:
		if (mp_parse_size(v, &n) || n > 1u << 30)
			return -1;
		*(unsigned *)base = (unsigned)n;
		return 0;
	case F_SIZE:
		if (mp_parse_size(v, &n))
			return -1;
		*(uint64_t *)base = n;
		return 0;
	case F_REPL:
		if ((i = lookup(repl_names, 2, v)) < 0)
			return -1;
		*(unsigned *)base = (unsigned)i;
		return 0;
	case F_INCL:
		if ((i = lookup(incl_names, 3, v)) < 0)
			return -1;
		*(unsigned *)base = (unsigned)i;
		return 0;
	case F_PAGESIZES: {
		unsigned bits = 0;
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", v);
		for (char *save, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
			if ((i = lookup(page_names, 3, t)) < 0)
				return -1;
			bits |= 1u << i;
		}
		*(unsigned *)base = bits;
		return 0;
	}
	}
	return -1;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int mp_machine_parse(const char *text, const char *name, struct mp_machine *m, char *err, size_t errlen)
{
	*m = generic;
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->desc, sizeof(m->desc), "machine file %s", name);
	char line[512];
	int lineno = 0, rc = 0;
	for (const char *at = text; *at && !rc;) {
		/* one line at a time, as a line of at most 511 bytes (longer ones
		 * go on as the next) */
		size_t len = strcspn(at, "\n");
		size_t take = len < sizeof(line) - 1 ? len : sizeof(line) - 1;
		memcpy(line, at, take);
		line[take] = 0;
		at += take;
		if (take == len && *at == '\n')
			at++;
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *s = trim(line);
		if (!*s)
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected \"key = value\"", name, lineno);
			rc = -MP_ERR_USAGE;
			break;
		}
		*eq = 0;
		char *k = trim(s), *v = trim(eq + 1);
		const struct field *fd = NULL;
		for (size_t i = 0; i < NFIELDS; i++)
			if (strcmp(fields[i].key, k) == 0)
				fd = &fields[i];
		if (!fd) {
			snprintf(err, errlen, "%s:%d: unknown key \"%s\"", name, lineno, k);
			rc = -MP_ERR_USAGE;
			break;
		}
		if (set_field(m, fd, v)) {
			snprintf(err, errlen, "%s:%d: bad value \"%s\" for %s", name, lineno, v, k);
			rc = -MP_ERR_USAGE;
			break;
		}
	}
	if (!rc)
		rc = mp_machine_check(m, err, errlen);
	return rc;
}

static int put(char *buf, size_t len, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, *at < len ? len - *at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
	return n;
}

int mp_machine_format(const struct mp_machine *m, char *buf, size_t len)
{
	size_t at = 0;
	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];
		const char *base = (const char *)m + f->off;
		unsigned u = f->type == F_STR || f->type == F_SIZE ? 0 : *(const unsigned *)base;
		switch (f->type) {
		case F_STR:
			put(buf, len, &at, "%s = %s\n", f->key, base);
			break;
		case F_UINT:
			put(buf, len, &at, "%s = %u\n", f->key, u);
			break;
		case F_SIZE: {
			uint64_t s = *(const uint64_t *)base;
			if (s % MiB == 0)
				put(buf, len, &at, "%s = %lluM\n", f->key, (unsigned long long)(s / MiB));
			else if (s % KiB == 0)
				put(buf, len, &at, "%s = %lluK\n", f->key, (unsigned long long)(s / KiB));
			else
				put(buf, len, &at, "%s = %llu\n", f->key, (unsigned long long)s);
			break;
		}
		case F_REPL:
			put(buf, len, &at, "%s = %s\n", f->key, repl_names[u < 2 ? u : 0]);
			break;
		case F_INCL:
			put(buf, len, &at, "%s = %s\n", f->key, incl_names[u < 3 ? u : 0]);
			break;
		case F_PAGESIZES: {
			put(buf, len, &at, "%s =", f->key);
			const char *sep = " ";
			for (int p = 0; p < 3; p++)
				if (u & (1u << p)) {
					put(buf, len, &at, "%s%s", sep, page_names[p]);
					sep = ",";
				}
			put(buf, len, &at, "\n");
			break;
		}
		}
	}
	return at < len ? 0 : -ENOSPC;
}

/* --- host
 * ----------------------------------------------------------------------- */

static void note(struct mp_machine *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct mp_machine *m, const char *fmt, ...)
{
	size_t at = strlen(m->notes);
	if (at + 2 >= sizeof(m->notes))
		return;
	if (at)
		m->notes[at++] = ';', m->notes[at++] = ' ', m->notes[at] = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->notes + at, sizeof(m->notes) - at, fmt, ap);
	va_end(ap);
}

void mp_machine_inclusion(struct mp_machine *m, int zen, int l2_inclusive, int l3_inclusive)
{
	if (l2_inclusive >= 0)
		m->l2.inclusion = l2_inclusive ? MP_INCL_INCLUSIVE : MP_INCL_NINE;
	if (zen)
		m->llc.inclusion = MP_INCL_EXCLUSIVE;
	else if (l3_inclusive >= 0)
		m->llc.inclusion = l3_inclusive ? MP_INCL_INCLUSIVE : MP_INCL_NINE;
}

/* AMD's associativity codes of leaf 0x80000006 (APM vol. 3, "L2/L3 cache
 * and TLB associativity field encoding"): ways, 0 for fully associative
 * (or a reserved code). Leaf 0x80000005 gives way counts, 0xff fully. */
static unsigned amd_l2_ways(unsigned code)
{
	static const unsigned ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };
	return ways[code & 15];
}

/* An STLB is the bigger second level: every x86-64 one holds 8 or more
 * times its L1 DTLB's 4 KiB entries. One not twice as big is a made-up
 * figure (a hypervisor's, such as 128 entries beside a 96-entry DTLB):
 * the default stands in for it. */
static void stlb_plausible(struct mp_machine *m)
{
	unsigned l1 = m->dtlb[MP_PAGE_4K].entries;
	if (m->stlb.entries && m->stlb.entries < 2 * l1) {
		note(m, "STLB reported as %u entries %u-way beside a %u-entry L1 DTLB, implausible: default %u %u-way",
		     m->stlb.entries, m->stlb.ways, l1, generic.stlb.entries, generic.stlb.ways);
		m->stlb = generic.stlb;
		m->stlb_sizes = generic.stlb_sizes;
	}
}

int mp_machine_amd_tlbs(struct mp_machine *m, const uint32_t l5[4], const uint32_t l6[4])
{
	/* 0x80000005 ebx: 4K L1 DTLB, [31:24] ways, [23:16] entries; eax: 2M/4M */
	unsigned e4 = (l5[1] >> 16) & 0xff, e2 = (l5[0] >> 16) & 0xff;
	if (!e4)
		return 0;
	m->dtlb[MP_PAGE_4K] = (struct mp_tlb_geom){ e4, (l5[1] >> 24) == 0xff ? e4 : (l5[1] >> 24) };
	m->dtlb[MP_PAGE_2M] = (struct mp_tlb_geom){ e2, (l5[0] >> 24) == 0xff ? e2 : (l5[0] >> 24) };
	/* 0x80000006 ebx: 4K L2 DTLB, [31:28] ways code, [27:16] entries;
	 * eax: its 2M/4M entries, when it holds those too */
	unsigned l2e = (l6[1] >> 16) & 0xfff, w = amd_l2_ways(l6[1] >> 28);
	if (l2e) {
		m->stlb = (struct mp_tlb_geom){ l2e, w && w <= l2e ? w : l2e };
		m->stlb_sizes = 1u << MP_PAGE_4K;
		if ((l6[0] >> 16) & 0xfff)
			m->stlb_sizes |= 1u << MP_PAGE_2M;
	}
	for (int p = 0; p < 3; p++) /* a way count that does not divide: fully associative */
		if (m->dtlb[p].entries && m->dtlb[p].entries % m->dtlb[p].ways)
			m->dtlb[p].ways = m->dtlb[p].entries;
	if (m->stlb.entries % m->stlb.ways)
		m->stlb.ways = m->stlb.entries;
	stlb_plausible(m);
	return 1;
}

/* TLBs from cpuid leaf 0x18's subleaves (Intel), else AMD's 0x80000005/6.
 * 1 if found. */
static int host_tlbs(struct mp_machine *m, const struct mp_host_cpu *h)
{
	int found = 0;
	for (unsigned i = 0; i < h->ntlb_leaf18; i++) {
		uint32_t b = h->tlb_leaf18[i][1], c = h->tlb_leaf18[i][2], d = h->tlb_leaf18[i][3];
		unsigned type = d & 31; /* 1 data, 3 unified */
		unsigned level = (d >> 5) & 7;
		unsigned ways = b >> 16, sets = c;
		if ((type != 1 && type != 3) || !ways || !sets)
			continue;
		if ((d >> 8) & 1) /* fully associative: ways holds the entries */
			ways = ways * sets, sets = 1;
		struct mp_tlb_geom g = { ways * sets, ways };
		if (level == 1) {
			for (int p = 0; p < 3; p++)
				if (b & (1u << p) && !(p == 0 && b & 2 && !(b & 1)))
					m->dtlb[p] = g;
		} else {
			m->stlb = g;
			m->stlb_sizes = b & 7;
		}
		found = 1;
	}
	if (found)
		stlb_plausible(m);
	if (!found && h->amd_tlb_leaves)
		found = mp_machine_amd_tlbs(m, h->amd_l5, h->amd_l6);
	return found;
}

static void host_cache_use(struct mp_machine *m, const char *what, struct mp_cache_geom *g, const struct mp_host_cache *h,
			   uint64_t lo, uint64_t hi)
{
	if (!h) {
		note(m, "%s not reported: default %lluK %u-way", what, (unsigned long long)(g->size / KiB), g->ways);
		return;
	}
	if (h->size < lo || h->size > hi || !h->ways || h->size % ((uint64_t)h->ways * m->line)) {
		note(m, "%s reported as %lluK %u-way, implausible: default %lluK %u-way", what,
		     (unsigned long long)(h->size / KiB), h->ways, (unsigned long long)(g->size / KiB), g->ways);
		return;
	}
	g->size = h->size;
	g->ways = h->ways;
	if (g->repl == MP_REPL_PLRU && (g->ways > 32 || (g->ways & (g->ways - 1))))
		g->repl = MP_REPL_LRU;
}

void mp_machine_host(struct mp_machine *m, const struct mp_host_cpu *h)
{
	*m = generic;
	snprintf(m->name, sizeof(m->name), "host");
	m->notes[0] = 0;
	const struct mp_host_cache *hc = h->caches;
	unsigned n = h->ncaches < MP_HOST_CACHES ? h->ncaches : MP_HOST_CACHES;
	const struct mp_host_cache *l1 = NULL, *l2 = NULL, *l3 = NULL;
	for (unsigned i = 0; i < n; i++) {
		if (!hc[i].data)
			continue;
		if (hc[i].line == 64 || hc[i].line == 128)
			m->line = hc[i].line;
		if (hc[i].level == 1)
			l1 = &hc[i];
		else if (hc[i].level == 2)
			l2 = &hc[i];
		else if (hc[i].level >= 3)
			l3 = &hc[i];
	}
	m->cores = h->cpus > 0 && h->cpus <= 4096 ? h->cpus : 1;
	host_cache_use(m, "L1D", &m->l1d, l1, 4 * KiB, 512 * KiB);
	host_cache_use(m, "L2", &m->l2, l2, 64 * KiB, 32 * MiB);
	/* No L3: the L2 is the last level; model an LLC the size of all L2s. */
	host_cache_use(m, "LLC", &m->llc, l3, 256 * KiB, 128 * MiB);
	mp_machine_inclusion(m, h->zen, h->l2_inclusive, h->l3_inclusive);
	if (!host_tlbs(m, h))
		note(m, "TLB geometry not reported (cpuid 0x18/0x80000005): default DTLB "
			"64+32+4, STLB 1536 12-way");
	if (h->hypervisor)
		note(m, "running under a hypervisor: cache figures describe the host's "
			"caches, shared with other guests");
	snprintf(m->desc, sizeof(m->desc), "this host (%d CPUs; caches from %s)", (int)m->cores,
		 n && h->cache_source ? h->cache_source : "defaults");
	char err[128];
	if (mp_machine_check(m, err, sizeof(err))) {
		note(m, "host geometry rejected (%s): generic defaults used", err);
		char notes[sizeof(m->notes)];
		memcpy(notes, m->notes, sizeof(notes));
		*m = generic;
		snprintf(m->name, sizeof(m->name), "host");
		memcpy(m->notes, notes, sizeof(notes));
	}
}

int mp_machine_sample_sets_ok(const struct mp_machine *m, unsigned n, char *err, size_t errlen)
{
	if (n == 0 || (n & (n - 1))) {
		snprintf(err, errlen, "%u is not a power of two", n);
		return -EINVAL;
	}
	const struct {
		const char *name;
		const struct mp_cache_geom *g;
	} lv[] = { { "L1D", &m->l1d }, { "L2", &m->l2 }, { "LLC", &m->llc } };
	for (size_t i = 0; i < sizeof(lv) / sizeof(lv[0]); i++) {
		uint64_t sets = lv[i].g->size / m->line / lv[i].g->ways;
		if (sets % n) {
			snprintf(err, errlen, "the %s of %s has %llu sets, not a multiple of %u; pick a smaller power of two",
				 lv[i].name, m->name, (unsigned long long)sets, n);
			return -EINVAL;
		}
	}
	return 0;
}
