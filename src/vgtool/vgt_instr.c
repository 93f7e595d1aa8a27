/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Instrumentation: each guest memory access of a superblock is recorded
 * just before it, with its address, its size and direction and its
 * instruction's code address: plain loads (WrTmp of a
 * Load), stores, guarded loads and stores (called only when the guard
 * holds), compare-and-swaps and LL/SC (a load and a store, whether or not
 * the exchange happens, as the inline instrumentation records atomics),
 * and the memory effects of dirty helpers (x87 and SSE state saves,
 * CPUID's none). Sizes 1 to 64 bytes that are powers of two have a size
 * code; any other (an x87 10-byte load, an FXSAVE's 512) is a range.
 *
 * An access of a size code, with no guard, is written inline into the
 * running thread's log (vgt_int.h: two stores and the cursor's), after
 * one check per instrumented stretch of the superblock (vgt_raw_sync when
 * a batch is logged or the runtime's code ran); ranges, guarded accesses
 * and rep instructions call a helper (vgt_access and its kin), which
 * encodes the log first.
 *
 * A rep-prefixed string instruction (rep movs/stos/cmps/scas/lods: glibc's
 * memset and memcpy use them for large sizes) is one ranged access per
 * operand for its whole execution, as the runtime records a memset call:
 * Valgrind runs it one iteration at a time, each iteration's access
 * extends the range (vgt_access_rep).
 *
 * Code addresses: sites of one superblock on the same source line share
 * the first one's, as the inline instrumentation's do: the reports resolve
 * code addresses to lines and functions, and a loop whose line spans a
 * load and a store at two instructions otherwise spends a byte per record
 * naming them.
 *
 * The code of memprism's runtime (libmemprism-rt.so) is not instrumented
 * at all: its hooks are not the program's. What the runtime calls in libc
 * with its guard set is skipped at run time instead (vgt_stream.c).
 *
 * Copyright (C) memprism's authors. GPL-2.0-or-later: see vgt_int.h.
 */
#include "vgt_int.h"

#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"

#include "mp_config.h" /* MP_RT_NAME */

/* --- the runtime's code ------------------------------------------------- */

/* Address ranges of the last mapping found to hold the runtime's code and
 * of the last one found not to: a superblock's instructions almost always
 * lie in one mapping, so the segment lookup runs about once per block. */
static Addr rt_lo, rt_hi, other_lo, other_hi;

static Bool ends_with(const HChar *s, const HChar *tail)
{
	SizeT n = VG_(strlen)(s), m = VG_(strlen)(tail);
	return n >= m && VG_(strcmp)(s + n - m, tail) == 0;
}

static Bool in_runtime(Addr a)
{
	if (a >= rt_lo && a < rt_hi)
		return True;
	if (a >= other_lo && a < other_hi)
		return False;
	NSegment const *s = VG_(am_find_nsegment)(a);
	if (!s)
		return False;
	const HChar *name = VG_(am_get_filename)(s);
	if (name && ends_with(name, "/" MP_RT_NAME)) {
		rt_lo = s->start;
		rt_hi = s->end + 1;
		return True;
	}
	other_lo = s->start;
	other_hi = s->end + 1;
	return False;
}

void vgt_instr_forget(Addr a, SizeT len)
{
	if (a < rt_hi && a + len > rt_lo)
		rt_lo = rt_hi = 0;
	if (a < other_hi && a + len > other_lo)
		other_lo = other_hi = 0;
}

/* --- calls -------------------------------------------------------------- */

static unsigned size_code(Int size)
{
	switch (size) {
	case 1: return 0;
	case 2: return 1;
	case 4: return 2;
	case 8: return 3;
	case 16: return 4;
	case 32: return 5;
	case 64: return 6;
	default: return MP_SIZE_RANGE;
	}
}

/* Is the instruction at a (len bytes) a rep-prefixed string instruction? */
static Bool is_rep_string(Addr a, UInt len)
{
	const UChar *b = (const UChar *)a;
	Bool rep = False;
	for (UInt i = 0; i < len; i++) {
		UChar c = b[i];
		if (c == 0xf3 || c == 0xf2)
			rep = True;
		else if (c == 0x66 || c == 0x67 || c == 0x2e || c == 0x36 || c == 0x3e || c == 0x26 || c == 0x64 ||
			 c == 0x65 || (c >= 0x40 && c <= 0x4f))
			continue; /* other prefixes, REX */
		else
			return rep && c >= 0xa4 && c <= 0xaf && c != 0xa8 && c != 0xa9; /* (a8, a9: test) */
	}
	return False;
}

/* The instruction being instrumented: its code address as recorded, and,
 * for a rep string instruction, how many of its accesses came so far. */
struct site {
	Addr ip;
	Bool rep;
	Bool rep_start; /* this iteration starts an execution */
	int nacc;
};

/* The superblock being made, for the inline log's code. */
struct out {
	IRSB *sb;
	Int room; /* entries the superblock may log at most (0: no inline code) */
	Bool synced; /* vgt_raw_sync's check made for this stretch */
	Bool cur_known; /* cur holds the log's cursor */
	IRTemp cur; /* Ity_I64 */
	IRTemp step; /* Ity_I64: sizeof(struct vgt_raw), or 0 under the runtime's guard */
};

static IRTemp assign(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return t;
}

static IRExpr *at(const volatile void *p)
{
	return mkIRExpr_HWord((HWord)p);
}

static IRTemp load(IRSB *sb, IRType ty, IRExpr *addr)
{
	return assign(sb, ty, IRExpr_Load(Iend_LE, ty, addr));
}

static IRExpr *add64(IRTemp t, ULong k)
{
	return IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t), IRExpr_Const(IRConst_U64(k)));
}

/* The test at the start of an instrumented stretch: vgt_raw_sync when the
 * superblock's accesses would pass the log's limit (cleared when a sync is
 * due); then the cursor's step. */
static void raw_sync(struct out *o)
{
	IRSB *sb = o->sb;
	IRTemp cur = load(sb, Ity_I64, at(&vgt_raw_cur));
	IRTemp lim = load(sb, Ity_I64, at(&vgt_raw_lim));
	IRTemp need = assign(sb, Ity_I64, add64(cur, (ULong)o->room * sizeof(struct vgt_raw)));
	IRTemp go = assign(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(lim), IRExpr_RdTmp(need)));
	IRDirty *di = unsafeIRDirty_0_N(0, "vgt_raw_sync", VG_(fnptr_to_fnentry)(vgt_raw_sync), mkIRExprVec_0());
	di->guard = IRExpr_RdTmp(go);
	/* (it moves the cursor: no load of it may be taken across) */
	di->mFx = Ifx_Modify;
	di->mAddr = at(&vgt_raw_cur);
	di->mSize = sizeof(vgt_raw_cur);
	addStmtToIRSB(sb, IRStmt_Dirty(di));
	o->step = load(sb, Ity_I64, at(&vgt_raw_step));
	o->synced = True;
	o->cur_known = False;
}

/* The runtime's code runs from here: a sync is due before the next
 * instrumented access. */
static void raw_unsync(struct out *o)
{
	addStmtToIRSB(o->sb, IRStmt_Store(Iend_LE, at(&vgt_raw_lim), IRExpr_Const(IRConst_U64(0))));
	o->synced = False;
}

/* One access into the log: its entry, then the cursor moved on by step. */
static void raw_log(struct out *o, IRExpr *addr, ULong packed)
{
	IRSB *sb = o->sb;
	if (!o->synced)
		raw_sync(o);
	if (!o->cur_known) {
		o->cur = load(sb, Ity_I64, at(&vgt_raw_cur));
		o->cur_known = True;
	}
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(o->cur), addr));
	IRTemp second = assign(sb, Ity_I64, add64(o->cur, offsetof(struct vgt_raw, packed)));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, IRExpr_RdTmp(second), IRExpr_Const(IRConst_U64(packed))));
	IRTemp next = assign(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(o->cur), IRExpr_RdTmp(o->step)));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, at(&vgt_raw_cur), IRExpr_RdTmp(next)));
	o->cur = next;
}

/* Records one access of size bytes at addr (an atom), before the statement
 * that makes it; guard (an Ity_I1 atom or NULL) as the access's. */
static void add_access(struct out *o, IRExpr *addr, Int size, Bool write, struct site *s, IRExpr *guard)
{
	if (size <= 0)
		return;
	unsigned code = size_code(size) | (write ? MP_ACC_WRITE : 0);
	ULong packed = (ULong)s->ip | (ULong)code << VGT_IP_BITS;
	IRDirty *di;
	if (s->rep && (code & 7) <= 3 && s->nacc < 2) {
		/* (movs and cmps make two accesses an iteration: a range each) */
		void *fn = s->nacc ? (void *)vgt_access_rep1
			   : s->rep_start ? (void *)vgt_access_rep_start : (void *)vgt_access_rep0;
		di = unsafeIRDirty_0_N(0, s->nacc++ ? "vgt_access_rep1" : "vgt_access_rep0", VG_(fnptr_to_fnentry)(fn),
				       mkIRExprVec_2(addr, mkIRExpr_HWord(packed)));
	} else if ((code & 7) == MP_SIZE_RANGE)
		di = unsafeIRDirty_0_N(0, "vgt_access_range", VG_(fnptr_to_fnentry)(vgt_access_range),
				       mkIRExprVec_3(addr, mkIRExpr_HWord(packed), mkIRExpr_HWord((HWord)size)));
	else if (!guard && o->room) {
		raw_log(o, addr, packed);
		return;
	} else
		di = unsafeIRDirty_0_N(0, "vgt_access", VG_(fnptr_to_fnentry)(vgt_access),
				       mkIRExprVec_2(addr, mkIRExpr_HWord(packed)));
	if (guard)
		di->guard = guard;
	/* (the helpers encode the log first: the cursor moves) */
	di->mFx = Ifx_Modify;
	di->mAddr = at(&vgt_raw_cur);
	di->mSize = sizeof(vgt_raw_cur);
	addStmtToIRSB(o->sb, IRStmt_Dirty(di));
	o->cur_known = False;
}

/* How many accesses the superblock's statements from i on may make, at
 * most (add_access's calls, whatever the instructions' code). */
static Int accesses_at_most(const IRSB *in, Int i)
{
	Int n = 0;
	for (; i < in->stmts_used; i++) {
		const IRStmt *st = in->stmts[i];
		if (!st)
			continue;
		switch (st->tag) {
		case Ist_WrTmp:
			n += st->Ist.WrTmp.data->tag == Iex_Load;
			break;
		case Ist_Store:
		case Ist_StoreG:
		case Ist_LoadG:
		case Ist_LLSC:
			n++;
			break;
		case Ist_CAS:
		case Ist_Dirty:
			n += 2;
			break;
		default:
			break;
		}
	}
	return n;
}

IRSB *vgt_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		     const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy, IRType hWordTy)
{
	(void)closure, (void)layout, (void)vge, (void)archinfo_host;
	if (gWordTy != hWordTy)
		return in; /* (not on amd64) */
	IRSB *out = deepCopyIRSBExceptStmts(in);
	IRTypeEnv *tyenv = in->tyenv;
	Int i = 0;
	for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(out, in->stmts[i]);
	Int most = accesses_at_most(in, i);
	struct out o = { out, most <= VGT_RAW_SB_MAX ? most : 0, False, False, IRTemp_INVALID, IRTemp_INVALID };
	Bool skip = True, runtime_before = False;
	/* The code address recorded is the end of the instruction, as a
	 * return address is the end of a call: readers symbolize ip - 1 (the
	 * other writers' addresses lie just past the access's code), which
	 * then lands inside the instruction whichever its length. */
	struct site site = { 0, False, False, 0 };
	Addr prev = 0; /* the instruction before in this superblock */
	/* the lines of this superblock's instructions so far, and their ips */
	struct {
		const HChar *file;
		UInt line;
		Addr ip;
	} lines[16];
	int nlines = 0;
	DiEpoch ep = VG_(current_DiEpoch)();
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		if (!st || st->tag == Ist_NoOp)
			continue;
		switch (st->tag) {
		case Ist_IMark: {
			Addr a = (Addr)st->Ist.IMark.addr;
			skip = in_runtime(a);
			site = (struct site){ a + st->Ist.IMark.len, False, False, 0 };
			Addr before = prev;
			prev = a;
			if (skip) {
				/* (the runtime's code may move the epoch, set or clear the guard) */
				if (!runtime_before)
					raw_unsync(&o);
				runtime_before = True;
				break;
			}
			runtime_before = False;
			site.rep = is_rep_string(a, st->Ist.IMark.len);
			/* Valgrind runs a rep instruction's later iterations in a
			 * superblock that starts at it (it jumps back to itself):
			 * reached from the instruction before it in the block, this
			 * is the first iteration of a new execution, even one that
			 * continues the last one's range */
			site.rep_start = site.rep && before && before != a;
			const HChar *file, *dir;
			UInt line;
			/* (a rep instruction's iterations run in superblocks of their
			 * own: its ranges are told apart by its own address) */
			if (site.rep || !VG_(get_filename_linenum)(ep, a, &file, &dir, &line) || !line)
				break;
			int k = 0;
			while (k < nlines && !(lines[k].line == line &&
					       (lines[k].file == file || VG_(strcmp)(lines[k].file, file) == 0)))
				k++;
			if (k < nlines)
				site.ip = lines[k].ip;
			else if (nlines < (int)(sizeof(lines) / sizeof(lines[0])))
				lines[nlines++] = (typeof(lines[0])){ file, line, site.ip };
			break;
		}
		case Ist_WrTmp: {
			IRExpr *e = st->Ist.WrTmp.data;
			if (!skip && e->tag == Iex_Load)
				add_access(&o, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), False, &site, NULL);
			break;
		}
		case Ist_Store:
			if (!skip)
				add_access(&o, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)),
					   True, &site, NULL);
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;
			if (!skip)
				add_access(&o, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), True, &site, sg->guard);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType loaded = Ity_INVALID, wide = Ity_INVALID;
			typeOfIRLoadGOp(lg->cvt, &wide, &loaded);
			if (!skip && loaded != Ity_INVALID)
				add_access(&o, lg->addr, sizeofIRType(loaded), False, &site, lg->guard);
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
			if (!skip) {
				add_access(&o, cas->addr, size, False, &site, NULL);
				add_access(&o, cas->addr, size, True, &site, NULL);
			}
			break;
		}
		case Ist_LLSC:
			if (!skip) {
				if (st->Ist.LLSC.storedata == NULL)
					add_access(&o, st->Ist.LLSC.addr,
						   sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)), False, &site, NULL);
				else
					add_access(&o, st->Ist.LLSC.addr,
						   sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)), True, &site, NULL);
			}
			break;
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;
			if (!skip && d->mFx != Ifx_None && d->mAddr) {
				/* the helper's own guard applies to its effects too */
				IRExpr *g = d->guard && !(d->guard->tag == Iex_Const) ? d->guard : NULL;
				if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
					add_access(&o, d->mAddr, d->mSize, False, &site, g);
				if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
					add_access(&o, d->mAddr, d->mSize, True, &site, g);
			}
			break;
		}
		default:
			break;
		}
		addStmtToIRSB(out, st);
	}
	return out;
}
