// SPDX-License-Identifier: MIT
/*
 * Call stacks of allocations, through code with and without frame pointers.
 *
 * Debian builds its libraries without frame pointers, and so does gcc -O
 * by default: a frame-pointer walk that enters such code reads whatever
 * the register holds as the next frame, and invents callers or loses them.
 * This unwinder follows the modules' unwind tables (.eh_frame, found
 * through .eh_frame_hdr by _dl_find_object, which glibc made for
 * unwinders: lock-free and async-signal-safe) and keeps, per thread, the
 * rule it found for each return address: where the canonical frame address
 * (CFA) is, from rsp or rbp, and where rbp was saved. A cached step is a
 * probe and three loads, as cheap as a frame-pointer step; libunwind's
 * cached unw_backtrace took ~14 ns a frame here (100 ns for an allocation's
 * 7 frames), which alone would make allocation tracking of an
 * allocation-heavy program 1.6x slower than it is; hence a small
 * interpreter of our own for the common rules (x86-64 only). A rule it
 * cannot follow (a CFA expression, a CFA in another register, a signal
 * frame) ends the stack there: a stack is cut short, never invented, and
 * every address in it is a return address inside a loaded object that has
 * unwind information for it.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "rt/rt_unwind.h"

#if defined(__x86_64__)

enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };
enum { SAVED_SAME, SAVED_AT, SAVED_UNKNOWN };

/* A row of the unwind table, as far as we follow it. */
struct row {
	int cfa_reg; /* REG_RSP or REG_RBP; anything else is not followed */
	int64_t cfa_off;
	int rbp_how; /* SAVED_* */
	int64_t rbp_off; /* SAVED_AT: rbp at CFA + rbp_off */
	int ra_how; /* SAVED_AT (at CFA + ra_off) or SAVED_UNKNOWN: the end of the stack, or not followed */
	int64_t ra_off;
};

static int get_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; *pp < end && shift < 64; shift += 7) {
		uint8_t b = *(*pp)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

static int get_sleb(const uint8_t **pp, const uint8_t *end, int64_t *out)
{
	uint64_t v = 0;
	int shift = 0;
	uint8_t b = 0x80;
	while (*pp < end && shift < 64 && (b & 0x80)) {
		b = *(*pp)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	if (b & 0x80)
		return -1;
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	*out = (int64_t)v;
	return 0;
}

static uint64_t load(const uint8_t *p, int n)
{
	uint64_t v = 0;
	memcpy(&v, p, (size_t)n); /* (little-endian) */
	return v;
}

/* A DW_EH_PE-encoded pointer at *pp. datarel: the .eh_frame_hdr's start. */
static int get_encoded(const uint8_t **pp, const uint8_t *end, uint8_t enc, uint64_t datarel, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v;
	if (enc == 0xff)
		return -1; /* omitted */
	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		if (end - p < 8)
			return -1;
		v = load(p, 8);
		*pp = p + 8;
		break;
	case 0x02: /* udata2 */
		if (end - p < 2)
			return -1;
		v = load(p, 2);
		*pp = p + 2;
		break;
	case 0x0a: /* sdata2 */
		if (end - p < 2)
			return -1;
		v = (uint64_t)(int64_t)(int16_t)load(p, 2);
		*pp = p + 2;
		break;
	case 0x03: /* udata4 */
		if (end - p < 4)
			return -1;
		v = load(p, 4);
		*pp = p + 4;
		break;
	case 0x0b: /* sdata4 */
		if (end - p < 4)
			return -1;
		v = (uint64_t)(int64_t)(int32_t)load(p, 4);
		*pp = p + 4;
		break;
	case 0x01: /* uleb128 */
		if (get_uleb(pp, end, &v))
			return -1;
		break;
	case 0x09: { /* sleb128 */
		int64_t s;
		if (get_sleb(pp, end, &s))
			return -1;
		v = (uint64_t)s;
		break;
	}
	default:
		return -1;
	}
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10: /* pcrel */
		v += (uint64_t)(uintptr_t)p;
		break;
	case 0x30: /* datarel */
		v += datarel;
		break;
	default:
		return -1; /* textrel, funcrel, aligned: not in x86-64 .eh_frame */
	}
	if (enc & 0x80)
		return -1; /* indirect: only personality routines use it */
	*out = v;
	return 0;
}

/* The FDE covering pc in the .eh_frame_hdr at hdr (a binary search of its
 * sorted table); NULL if none. */
static const uint8_t *find_fde(const uint8_t *hdr, uint64_t pc)
{
	if (hdr[0] != 1)
		return NULL;
	uint8_t ptr_enc = hdr[1], count_enc = hdr[2], table_enc = hdr[3];
	const uint8_t *p = hdr + 4, *end = hdr + 4 + 16;
	uint64_t eh_frame, count, base = (uint64_t)(uintptr_t)hdr;
	if (get_encoded(&p, end, ptr_enc, base, &eh_frame) || get_encoded(&p, end, count_enc, base, &count))
		return NULL;
	/* the table is binary-searchable only with fixed-size entries; every
	 * linker writes datarel sdata4 */
	if (table_enc != 0x3b || count == 0 || count > (1u << 28))
		return NULL;
	const int32_t *table = (const int32_t *)p;
	uint64_t lo = 0, hi = count;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (base + (uint64_t)(int64_t)table[2 * mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (base + (uint64_t)(int64_t)table[2 * lo] > pc)
		return NULL;
	return (const uint8_t *)(uintptr_t)(base + (uint64_t)(int64_t)table[2 * lo + 1]);
}

/* A CIE or FDE: its contents [*start, *end); -1 for a terminator or an
 * implausible length. */
static int entry_bounds(const uint8_t *e, const uint8_t **start, const uint8_t **end)
{
	uint64_t len = load(e, 4);
	if (len == 0 || len == 0xffffffffu || len > (64u << 20))
		return -1; /* (64-bit lengths do not occur in .eh_frame) */
	*start = e + 4;
	*end = e + 4 + len;
	return 0;
}

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	int has_z, signal;
	const uint8_t *insns, *end;
};

static int parse_cie(const uint8_t *e, struct cie *c)
{
	const uint8_t *p, *end;
	if (entry_bounds(e, &p, &end) || end - p < 6 || load(p, 4) != 0)
		return -1;
	p += 4;
	uint8_t version = *p++;
	const char *aug = (const char *)p;
	while (p < end && *p)
		p++;
	if (p >= end)
		return -1;
	p++;
	memset(c, 0, sizeof(*c));
	c->fde_enc = 0; /* absptr unless 'R' says otherwise */
	int64_t da;
	uint64_t ra;
	if (get_uleb(&p, end, &c->code_align) || get_sleb(&p, end, &da))
		return -1;
	c->data_align = da;
	if (version == 1) {
		if (p >= end)
			return -1;
		ra = *p++;
	} else if (get_uleb(&p, end, &ra)) {
		return -1;
	}
	if (ra != REG_RA)
		return -1;
	if (aug[0] == 'z') {
		uint64_t alen;
		if (get_uleb(&p, end, &alen) || alen > (uint64_t)(end - p))
			return -1;
		const uint8_t *adata = p, *aend = p + alen;
		c->has_z = 1;
		for (const char *a = aug + 1; *a; a++) {
			if (*a == 'R') {
				if (adata >= aend)
					return -1;
				c->fde_enc = *adata++;
			} else if (*a == 'L') {
				adata++;
			} else if (*a == 'P') {
				uint64_t ignored;
				if (adata >= aend)
					return -1;
				uint8_t penc = *adata++;
				if ((penc & 0x80) ? get_encoded(&adata, aend, penc & 0x7f, 0, &ignored)
						  : get_encoded(&adata, aend, penc, 0, &ignored))
					return -1;
			} else if (*a == 'S') {
				c->signal = 1;
			} else {
				break; /* unknown: the length says how much to skip */
			}
		}
		p = aend;
	} else if (aug[0]) {
		return -1; /* an augmentation we cannot skip */
	}
	c->insns = p;
	c->end = end;
	return 0;
}

#define REMEMBER_MAX 8

/* A rule we do not follow for reg: rbp unknown from here, or no return
 * address to follow. */
static void not_followed(struct row *r, uint64_t reg)
{
	if (reg == REG_RBP)
		r->rbp_how = SAVED_UNKNOWN;
	else if (reg == REG_RA)
		r->ra_how = SAVED_UNKNOWN;
}

/* Runs CFA instructions [p, end) for pc, from loc, over *r; init: the
 * CIE's initial row (for DW_CFA_restore). Stops at the first advance past
 * pc. */
static int run_cfa(const uint8_t *p, const uint8_t *end, const struct cie *c, uint64_t loc, uint64_t pc,
		   struct row *r, const struct row *init)
{
	struct row stack[REMEMBER_MAX];
	int depth = 0;
	while (p < end) {
		uint8_t op = *p++;
		uint64_t reg, u, delta = 0;
		int64_t s;
		int advance = 0;
		switch (op >> 6) {
		case 1: /* advance_loc */
			delta = op & 0x3f;
			advance = 1;
			break;
		case 2: /* offset */
			reg = op & 0x3f;
			if (get_uleb(&p, end, &u))
				return -1;
			s = (int64_t)u * c->data_align;
			goto set_offset;
		case 3: /* restore */
			reg = op & 0x3f;
			goto restore;
		default:
			break;
		}
		if (op >> 6 == 0) {
			switch (op) {
			case 0x00: /* nop */
				break;
			case 0x01: /* set_loc */
				if (get_encoded(&p, end, c->fde_enc, 0, &u))
					return -1;
				if (u > pc)
					return 0;
				loc = u;
				break;
			case 0x02: /* advance_loc1 */
				if (p + 1 > end)
					return -1;
				delta = load(p, 1);
				p += 1;
				advance = 1;
				break;
			case 0x03: /* advance_loc2 */
				if (p + 2 > end)
					return -1;
				delta = load(p, 2);
				p += 2;
				advance = 1;
				break;
			case 0x04: /* advance_loc4 */
				if (p + 4 > end)
					return -1;
				delta = load(p, 4);
				p += 4;
				advance = 1;
				break;
			case 0x05: /* offset_extended */
				if (get_uleb(&p, end, &reg) || get_uleb(&p, end, &u))
					return -1;
				s = (int64_t)u * c->data_align;
				goto set_offset;
			case 0x11: /* offset_extended_sf */
				if (get_uleb(&p, end, &reg) || get_sleb(&p, end, &s))
					return -1;
				s *= c->data_align;
				goto set_offset;
			case 0x06: /* restore_extended */
				if (get_uleb(&p, end, &reg))
					return -1;
				goto restore;
			case 0x07: /* undefined */
			case 0x08: /* same_value */
				if (get_uleb(&p, end, &reg))
					return -1;
				if (reg == REG_RBP)
					r->rbp_how = op == 0x08 ? SAVED_SAME : SAVED_UNKNOWN;
				else if (reg == REG_RA)
					r->ra_how = SAVED_UNKNOWN; /* undefined: the outermost frame */
				break;
			case 0x09: /* register */
				if (get_uleb(&p, end, &reg) || get_uleb(&p, end, &u))
					return -1;
				not_followed(r, reg);
				break;
			case 0x0a: /* remember_state */
				if (depth == REMEMBER_MAX)
					return -1;
				stack[depth++] = *r;
				break;
			case 0x0b: /* restore_state */
				if (depth == 0)
					return -1;
				{
					/* the CFA rule is not part of the remembered state in
					 * DWARF 2, but GCC's and LLVM's unwinders restore it
					 * with the registers, as the compilers expect */
					*r = stack[--depth];
				}
				break;
			case 0x0c: /* def_cfa */
				if (get_uleb(&p, end, &reg) || get_uleb(&p, end, &u))
					return -1;
				r->cfa_reg = (int)reg;
				r->cfa_off = (int64_t)u;
				break;
			case 0x12: /* def_cfa_sf */
				if (get_uleb(&p, end, &reg) || get_sleb(&p, end, &s))
					return -1;
				r->cfa_reg = (int)reg;
				r->cfa_off = s * c->data_align;
				break;
			case 0x0d: /* def_cfa_register */
				if (get_uleb(&p, end, &reg))
					return -1;
				r->cfa_reg = (int)reg;
				break;
			case 0x0e: /* def_cfa_offset */
				if (get_uleb(&p, end, &u))
					return -1;
				r->cfa_off = (int64_t)u;
				break;
			case 0x13: /* def_cfa_offset_sf */
				if (get_sleb(&p, end, &s))
					return -1;
				r->cfa_off = s * c->data_align;
				break;
			case 0x0f: /* def_cfa_expression */
				if (get_uleb(&p, end, &u) || u > (uint64_t)(end - p))
					return -1;
				p += u;
				r->cfa_reg = -1; /* not followed */
				break;
			case 0x10: /* expression */
			case 0x16: /* val_expression */
				if (get_uleb(&p, end, &reg) || get_uleb(&p, end, &u) || u > (uint64_t)(end - p))
					return -1;
				p += u;
				not_followed(r, reg);
				break;
			case 0x14: /* val_offset */
				if (get_uleb(&p, end, &reg) || get_uleb(&p, end, &u))
					return -1;
				not_followed(r, reg);
				break;
			case 0x15: /* val_offset_sf */
				if (get_uleb(&p, end, &reg) || get_sleb(&p, end, &s))
					return -1;
				not_followed(r, reg);
				break;
			case 0x2e: /* GNU_args_size */
				if (get_uleb(&p, end, &u))
					return -1;
				break;
			case 0x2f: /* GNU_negative_offset_extended */
				if (get_uleb(&p, end, &reg) || get_uleb(&p, end, &u))
					return -1;
				s = -(int64_t)u * c->data_align;
				goto set_offset;
			default:
				return -1;
			}
		}
		if (advance) {
			loc += delta * c->code_align;
			if (loc > pc)
				return 0;
		}
		continue;
	set_offset:
		if (reg == REG_RBP) {
			r->rbp_how = SAVED_AT;
			r->rbp_off = s;
		} else if (reg == REG_RA) {
			r->ra_how = SAVED_AT;
			r->ra_off = s;
		}
		continue;
	restore:
		if (!init)
			return -1; /* (not in a CIE's own instructions) */
		if (reg == REG_RBP) {
			r->rbp_how = init->rbp_how;
			r->rbp_off = init->rbp_off;
		} else if (reg == REG_RA) {
			r->ra_how = init->ra_how;
			r->ra_off = init->ra_off;
		}
	}
	return 0;
}

/* The rule for the frame whose return address is ip (its call is at
 * ip - 1). 0, or -1 with no rule: not in a loaded object, no unwind
 * information, or a rule we do not follow. */
static int rule_find(uint64_t ip, struct rt_unwind_rule *out)
{
	uint64_t pc = ip - 1;
	struct dl_find_object dlfo;
	if (_dl_find_object((void *)(uintptr_t)pc, &dlfo) != 0 || !dlfo.dlfo_eh_frame)
		return -1;
	const uint8_t *fde = find_fde(dlfo.dlfo_eh_frame, pc);
	const uint8_t *p, *end;
	if (!fde || entry_bounds(fde, &p, &end) || end - p < 4)
		return -1;
	uint32_t cie_off = (uint32_t)load(p, 4);
	if (cie_off == 0 || cie_off > (uint64_t)(p - (const uint8_t *)dlfo.dlfo_map_start))
		return -1;
	struct cie c;
	if (parse_cie(p - cie_off, &c) || c.signal)
		return -1;
	p += 4;
	uint64_t begin, range;
	if (get_encoded(&p, end, c.fde_enc, 0, &begin) || get_encoded(&p, end, c.fde_enc & 0x0f, 0, &range))
		return -1;
	if (pc < begin || pc - begin >= range)
		return -1;
	if (c.has_z) {
		uint64_t alen;
		if (get_uleb(&p, end, &alen) || alen > (uint64_t)(end - p))
			return -1;
		p += alen;
	}
	struct row init = { .cfa_reg = -1, .rbp_how = SAVED_SAME, .ra_how = SAVED_UNKNOWN }, r;
	if (run_cfa(c.insns, c.end, &c, begin, UINT64_MAX, &init, NULL))
		return -1;
	r = init;
	if (run_cfa(p, end, &c, begin, pc, &r, &init))
		return -1;
	if ((r.cfa_reg != REG_RSP && r.cfa_reg != REG_RBP) || r.cfa_off < 8 || r.cfa_off > (1 << 20))
		return -1;
	if (r.ra_how == SAVED_AT && r.ra_off != -8)
		return -1; /* (the return address is always at CFA - 8 on x86-64) */
	memset(out, 0, sizeof(*out));
	out->cfa_off = (int32_t)r.cfa_off;
	out->flags = (r.cfa_reg == REG_RBP ? RT_UNWIND_CFA_RBP : 0) | (r.ra_how == SAVED_AT ? 0 : RT_UNWIND_LAST);
	if (r.rbp_how == SAVED_AT) {
		if (r.rbp_off < -(1 << 15) || r.rbp_off >= 0)
			return -1;
		out->flags |= RT_UNWIND_RBP_SAVED;
		out->rbp_off = (int16_t)r.rbp_off;
	} else if (r.rbp_how == SAVED_UNKNOWN) {
		out->flags |= RT_UNWIND_RBP_LOST;
	}
	return 0;
}

static inline struct rt_unwind_slot *slot_of(struct rt_unwind_slot *cache, uint64_t ip)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull;
	return &cache[h >> (64 - RT_UNWIND_CACHE_LOG2)];
}

int rt_unwind(struct rt_unwind_slot *cache, uint64_t ip, uint64_t sp, uint64_t bp, uint64_t lo, uint64_t hi,
	      uint64_t *frames, int max)
{
	int n = 0, bp_known = 1;
	if (max <= 0)
		return 0;
	frames[n++] = ip;
	while (n < max) {
		struct rt_unwind_slot *s = slot_of(cache, ip);
		if (s->ip != ip) {
			struct rt_unwind_rule r;
			if (rule_find(ip, &r) != 0) {
				/* no rule: ip ends the stack, if it is code at all */
				struct dl_find_object dlfo;
				if (n > 1 && _dl_find_object((void *)(uintptr_t)(ip - 1), &dlfo) != 0)
					n--;
				break;
			}
			s->rule = r;
			s->ip = ip;
		}
		const struct rt_unwind_rule *r = &s->rule;
		if (r->flags & RT_UNWIND_LAST)
			break;
		if ((r->flags & RT_UNWIND_CFA_RBP) && !bp_known)
			break;
		uint64_t cfa = ((r->flags & RT_UNWIND_CFA_RBP) ? bp : sp) + (uint64_t)(int64_t)r->cfa_off;
		/* every read inside this thread's stack, upwards */
		if (cfa <= sp || cfa > hi || cfa - 8 < lo || (cfa & 7))
			break;
		uint64_t next = ((const uint64_t *)(uintptr_t)cfa)[-1];
		if (r->flags & RT_UNWIND_RBP_SAVED) {
			uint64_t at = cfa + (uint64_t)(int64_t)r->rbp_off;
			if (at < lo || at + 8 > hi)
				break;
			bp = *(const uint64_t *)(uintptr_t)at;
		} else if (r->flags & RT_UNWIND_RBP_LOST) {
			bp_known = 0;
		}
		if (next < 4096)
			break;
		sp = cfa;
		ip = next;
		frames[n++] = ip;
	}
	/* the last frame is not checked by a rule lookup when max cut it */
	if (n == max && n > 1) {
		struct rt_unwind_slot *s = slot_of(cache, ip);
		struct dl_find_object dlfo;
		if (s->ip != ip && _dl_find_object((void *)(uintptr_t)(ip - 1), &dlfo) != 0)
			n--;
	}
	return n;
}

#else /* not x86-64: the first frame only */

int rt_unwind(struct rt_unwind_slot *cache, uint64_t ip, uint64_t sp, uint64_t bp, uint64_t lo, uint64_t hi,
	      uint64_t *frames, int max)
{
	(void)cache, (void)sp, (void)bp, (void)lo, (void)hi;
	if (max <= 0)
		return 0;
	frames[0] = ip;
	return 1;
}

#endif
