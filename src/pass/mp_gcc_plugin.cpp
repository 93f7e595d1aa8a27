// SPDX-License-Identifier: MIT
/*
 * memprism's GCC plugin: inline access instrumentation for `memprism gcc`
 * (gcc -fsanitize=thread -fplugin=memprism-gcc.so).
 *
 * gcc's ThreadSanitizer pass puts a call to __tsan_readN/__tsan_writeN
 * before every load and store; memprism's runtime defines them
 * (src/rt/rt_tsan.c), at the price of a call through the PLT and a general
 * encoder per access. This pass runs right after gcc's ("tsan" at -O1 and
 * up, "tsan0" at -O0) and replaces each fixed-size call by the straight
 * path of the runtime's inline access path (rt_hot_record in
 * src/rt/rt_int.h, check_epoch and straight set): the site's code address
 * in its ip slot, a near delta (a 2- or 3-byte ACCESS_SLOT record) or a far
 * one (ACCESS_FAR), written into the thread's buffer in place. Anything
 * else -- another ip in the slot, a changed epoch, a full buffer, a
 * burst's end -- calls __memprism_gcc_access (rt_tsan.c), which takes the
 * site's code address so the slot ends up holding it.
 *   - Code addresses: a `lea 0(%rip)` at the site, carrying its location
 *     (symbolized as ip - 1, it lands on the lea); sites of one block on one
 *     source line share one; their ip slots alternate, as the LLVM pass's.
 *   - Loops that call nothing keep the thread's hot state in local
 *     variables (registers), taken in the preheader and written back on
 *     every exit; the thread's cursor catches up at each iteration. In such
 *     a loop without volatile accesses, the epoch is checked once per
 *     iteration rather than per access (rt_inline.c says why that orders
 *     the accesses as well).
 *   - Range calls, atomics and vptr calls stay calls, as do the sites
 *     outside loops of functions with many sites and the sites over the
 *     module's bound (MEMPRISM_INLINE_SITES).
 *   - Passive copies (a pass before gcc's): functions with a loop or many
 *     accesses also get an uninstrumented copy, which their entry calls
 *     while the runtime is not recording (below, copy_function).
 * The thread's state is reached through the runtime's exported TLS
 * __memprism_self at the offsets of mp_gcc_layout.h, which the build
 * generates from rt_int.h (src/rt/rt_gcc_layout.c).
 *
 * Licence: this file is MIT like the rest of memprism. GCC loads only
 * plugins that declare `plugin_is_GPL_compatible`: GCC is GPL-3.0-or-later,
 * and a plugin runs inside the compiler and uses its internals, so the
 * combination (the plugin loaded into cc1) must be distributable under the
 * GPL, which an MIT-licensed plugin is (MIT is GPL-compatible). Programs
 * compiled with it are not affected: the GCC Runtime Library Exception
 * covers the compilation process, and the code the plugin writes into them
 * is memprism's own. See LICENSE.
 *
 * Why C++: GCC's plugin headers are C++; this is the one place that needs it.
 */
#include "gcc-plugin.h"
#include "plugin-version.h"

// GCC's internal headers, in the order its own passes include them
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "ssa.h"
#include "cgraph.h"
#include "context.h"
#include "diagnostic-core.h"
#include "stringpool.h"
#include "gimple-iterator.h"
#include "cfghooks.h"
#include "cfgloop.h"
#include "tree-cfg.h"
#include "tree-into-ssa.h"
#include "stor-layout.h"
#include "builtins.h"
#include "ggc.h"
#include "attribs.h"
#include "asan.h"
#include "calls.h"
#include "tree-dfa.h"
#include "tree-inline.h"
#include "except.h"

#include <map>
#include <tuple>
#include <vector>

#include "common/mp_abi.h"
#include "common/mp_env.h"
#include "mp_gcc_layout.h"

int plugin_is_GPL_compatible;

namespace
{

constexpr unsigned kInlineAllMaxSites = 16; // as the LLVM pass: a small function inlines every site
constexpr unsigned kModuleInlineSites = 5000; // MEMPRISM_INLINE_SITES' default
constexpr unsigned kVersionMinAccesses = 8; // as the LLVM pass: or a loop
#define MP_GCC_RECORDING_VAR "__memprism_recording" // rt_recording (src/rt/rt_int.h)

// The runtime's symbols, made once per translation unit; GC roots below.
tree self_decl, epoch_decl, slow_fn, recording_decl;

const struct ggc_root_tab roots[] = {
	{ &recording_decl, 1, sizeof(recording_decl), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &self_decl, 1, sizeof(self_decl), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &epoch_decl, 1, sizeof(epoch_decl), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &slow_fn, 1, sizeof(slow_fn), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB,
};

unsigned module_budget = kModuleInlineSites;
unsigned next_slot; // ip slots alternate per code address, module-wide

tree u64()
{
	return long_long_unsigned_type_node;
}

void make_decls()
{
	if (self_decl)
		return;
	// extern __thread char __memprism_self[RT_HOT_SIZE], initial-exec
	tree ty = build_array_type_nelts(unsigned_char_type_node, MP_GCC_HOT_SIZE);
	self_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier("__memprism_self"), ty);
	TREE_PUBLIC(self_decl) = 1;
	DECL_EXTERNAL(self_decl) = 1;
	TREE_ADDRESSABLE(self_decl) = 1;
	DECL_ARTIFICIAL(self_decl) = 1;
	set_decl_tls_model(self_decl, TLS_MODEL_INITIAL_EXEC);
	// extern volatile uint64_t __memprism_epoch (read relaxed: a volatile load)
	tree vty = build_qualified_type(u64(), TYPE_QUAL_VOLATILE);
	epoch_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier("__memprism_epoch"), vty);
	TREE_PUBLIC(epoch_decl) = 1;
	DECL_EXTERNAL(epoch_decl) = 1;
	TREE_THIS_VOLATILE(epoch_decl) = 1;
	TREE_SIDE_EFFECTS(epoch_decl) = 1;
	DECL_ARTIFICIAL(epoch_decl) = 1;
	varpool_node::get_create(epoch_decl);
	// void __memprism_gcc_access(void *addr, unsigned code, void *ip)
	tree fty = build_function_type_list(void_type_node, ptr_type_node, unsigned_type_node, ptr_type_node,
					    NULL_TREE);
	slow_fn = build_fn_decl("__memprism_gcc_access", fty);
	// it neither throws nor returns into this unit's code by a longjmp (no
	// abnormal edges in a function that calls setjmp)
	TREE_NOTHROW(slow_fn) = 1;
	DECL_ATTRIBUTES(slow_fn) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
	DECL_ARTIFICIAL(slow_fn) = 1;
	// extern int __memprism_recording (the runtime's rt_recording)
	recording_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(MP_GCC_RECORDING_VAR), integer_type_node);
	TREE_PUBLIC(recording_decl) = 1;
	DECL_EXTERNAL(recording_decl) = 1;
	DECL_ARTIFICIAL(recording_decl) = 1;
	varpool_node::get_create(recording_decl);
}

// A field of the thread's state: MEM[&__memprism_self + off], alias set 0.
tree tls_field(unsigned off)
{
	tree cptr = build_pointer_type(char_type_node);
	tree ref = build2(MEM_REF, u64(), build_fold_addr_expr(self_decl), build_int_cst(cptr, off));
	// volatile: read and written where the code says, never merged
	// (vectorized, the copy of a loop went to vector registers)
	TREE_THIS_VOLATILE(ref) = 1;
	TREE_SIDE_EFFECTS(ref) = 1;
	return ref;
}

// The hot state: the thread's (loaded around each site) or a loop's copy.
struct State {
	tree p, lim, last_addr, last_ip, prev_ip, epoch, naccess, burst_end;
};

State new_state()
{
	State s;
	s.p = create_tmp_reg(u64(), "mp_p");
	s.lim = create_tmp_reg(u64(), "mp_lim");
	s.last_addr = create_tmp_reg(u64(), "mp_last_addr");
	s.last_ip = create_tmp_reg(u64(), "mp_last_ip");
	s.prev_ip = create_tmp_reg(u64(), "mp_prev_ip");
	s.epoch = create_tmp_reg(u64(), "mp_epoch");
	s.naccess = create_tmp_reg(u64(), "mp_naccess");
	s.burst_end = create_tmp_reg(u64(), "mp_burst_end");
	return s;
}

void add(gimple_seq *seq, gimple *g, location_t loc)
{
	gimple_set_location(g, loc);
	gimple_seq_add_stmt(seq, g);
}

tree tmp(const char *name)
{
	return create_tmp_reg(u64(), name);
}

tree binop(gimple_seq *seq, location_t loc, tree_code code, tree a, tree b, tree type = NULL_TREE)
{
	tree r = create_tmp_reg(type ? type : u64(), "mp_t");
	add(seq, gimple_build_assign(r, code, a, b), loc);
	return r;
}

tree cmp(gimple_seq *seq, location_t loc, tree_code code, tree a, tree b)
{
	return binop(seq, loc, code, a, b, boolean_type_node);
}

tree cst(unsigned long long v)
{
	return build_int_cst(u64(), v);
}

void load_state(gimple_seq *seq, const State &s, location_t loc)
{
	add(seq, gimple_build_assign(s.p, tls_field(MP_GCC_HOT_P)), loc);
	add(seq, gimple_build_assign(s.lim, tls_field(MP_GCC_HOT_LIM)), loc);
	add(seq, gimple_build_assign(s.last_addr, tls_field(MP_GCC_HOT_LAST_ADDR)), loc);
	add(seq, gimple_build_assign(s.last_ip, tls_field(MP_GCC_HOT_LAST_IP)), loc);
	add(seq, gimple_build_assign(s.prev_ip, tls_field(MP_GCC_HOT_PREV_IP)), loc);
	add(seq, gimple_build_assign(s.epoch, tls_field(MP_GCC_HOT_EPOCH)), loc);
	add(seq, gimple_build_assign(s.naccess, tls_field(MP_GCC_HOT_NACCESS)), loc);
	add(seq, gimple_build_assign(s.burst_end, tls_field(MP_GCC_HOT_BURST_END)), loc);
}

// The records before the cursor that covers them (rt_flush_all reads the
// cursor and takes what is below it): a compiler barrier, as on x86 a
// plain store is a release once nothing sinks below it.
void release_fence(gimple_seq *seq, location_t loc)
{
	tree fn = builtin_decl_explicit(BUILT_IN_ATOMIC_SIGNAL_FENCE);
	add(seq, gimple_build_call(fn, 1, build_int_cst(integer_type_node, 3 /* __ATOMIC_RELEASE */)), loc);
}

void store_cursor(gimple_seq *seq, tree p, location_t loc)
{
	release_fence(seq, loc);
	add(seq, gimple_build_assign(tls_field(MP_GCC_HOT_P), p), loc);
}

// A loop's copy back into the thread's state (__memprism_inl_leave).
void leave_state(gimple_seq *seq, const State &s, location_t loc)
{
	add(seq, gimple_build_assign(tls_field(MP_GCC_HOT_LAST_ADDR), s.last_addr), loc);
	add(seq, gimple_build_assign(tls_field(MP_GCC_HOT_LAST_IP), s.last_ip), loc);
	add(seq, gimple_build_assign(tls_field(MP_GCC_HOT_PREV_IP), s.prev_ip), loc);
	add(seq, gimple_build_assign(tls_field(MP_GCC_HOT_NACCESS), s.naccess), loc);
	store_cursor(seq, s.p, loc);
}

struct Site {
	gcall *call;
	unsigned code; // size code | MP_ACC_WRITE
	int hot = -1; // index of its hot loop, or -1
	bool inl = false;
};

// A fixed-size access call of gcc's ThreadSanitizer: its size code and
// write bit, or -1.
int site_code(gimple *g)
{
	if (!is_gimple_call(g) || !gimple_call_builtin_p(g, BUILT_IN_NORMAL))
		return -1;
	switch (DECL_FUNCTION_CODE(gimple_call_fndecl(g))) {
	case BUILT_IN_TSAN_READ1:
	case BUILT_IN_TSAN_VOLATILE_READ1:
		return 0;
	case BUILT_IN_TSAN_READ2:
	case BUILT_IN_TSAN_VOLATILE_READ2:
		return 1;
	case BUILT_IN_TSAN_READ4:
	case BUILT_IN_TSAN_VOLATILE_READ4:
		return 2;
	case BUILT_IN_TSAN_READ8:
	case BUILT_IN_TSAN_VOLATILE_READ8:
		return 3;
	case BUILT_IN_TSAN_READ16:
	case BUILT_IN_TSAN_VOLATILE_READ16:
		return 4;
	case BUILT_IN_TSAN_WRITE1:
	case BUILT_IN_TSAN_VOLATILE_WRITE1:
		return 0 | MP_GCC_ACC_WRITE;
	case BUILT_IN_TSAN_WRITE2:
	case BUILT_IN_TSAN_VOLATILE_WRITE2:
		return 1 | MP_GCC_ACC_WRITE;
	case BUILT_IN_TSAN_WRITE4:
	case BUILT_IN_TSAN_VOLATILE_WRITE4:
		return 2 | MP_GCC_ACC_WRITE;
	case BUILT_IN_TSAN_WRITE8:
	case BUILT_IN_TSAN_VOLATILE_WRITE8:
		return 3 | MP_GCC_ACC_WRITE;
	case BUILT_IN_TSAN_WRITE16:
	case BUILT_IN_TSAN_VOLATILE_WRITE16:
		return 4 | MP_GCC_ACC_WRITE;
	default:
		return -1;
	}
}

/*
 * Loops whose only calls are the access calls made inline here keep the
 * hot state in a copy. sync_free: nothing in it orders against another
 * thread (no volatile access: the atomics are calls), and no irreducible
 * cycle escapes the headers where the epoch is checked.
 */
struct HotLoop {
	class loop *loop;
	bool sync_free;
	unsigned sites = 0;
	State s;
};

bool loop_calls_nothing(class loop *L, bool *sync_free)
{
	basic_block *body = get_loop_body(L);
	bool ok = true;
	*sync_free = true;
	for (unsigned i = 0; ok && i < L->num_nodes; i++) {
		basic_block bb = body[i];
		if (bb->flags & BB_IRREDUCIBLE_LOOP)
			*sync_free = false;
		edge e;
		edge_iterator ei;
		FOR_EACH_EDGE(e, ei, bb->succs)
			if (e->flags & (EDGE_ABNORMAL | EDGE_EH))
				ok = false;
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); ok && !gsi_end_p(gsi); gsi_next(&gsi)) {
			gimple *g = gsi_stmt(gsi);
			if (is_gimple_call(g) && site_code(g) < 0)
				ok = false;
			else if (gimple_code(g) == GIMPLE_ASM)
				ok = false;
			else if (gimple_has_volatile_ops(g))
				*sync_free = false;
		}
	}
	free(body);
	return ok;
}

void find_hot_loops(class loop *L, std::vector<HotLoop> &out)
{
	for (; L; L = L->next) {
		bool sync_free;
		// a preheader (one edge in besides the latch's) to take the copy in
		bool simple = EDGE_COUNT(L->header->preds) == 2 && L->latch && single_succ_p(loop_preheader_edge(L)->src);
		if (simple && loop_calls_nothing(L, &sync_free)) {
			bool exits_ok = true;
			for (edge e : get_loop_exit_edges(L))
				if (e->flags & (EDGE_ABNORMAL | EDGE_EH))
					exits_ok = false;
			if (exits_ok) {
				out.push_back({ L, sync_free, 0, State() });
				continue;
			}
		}
		find_hot_loops(L->inner, out);
	}
}

int hot_index(const std::vector<HotLoop> &hot, basic_block bb)
{
	for (size_t h = 0; h < hot.size(); h++)
		if (flow_bb_inside_loop_p(hot[h].loop, bb))
			return (int)h;
	return -1;
}

// The copy's way in (preheader), out (every exit edge), and at each header
// of the nest: the thread's cursor catches up with the copy's, and where
// the loop is sync-free, the epoch is checked (a change sends the next
// access down the slow path: the copy's limit is what every access checks).
void prepare_hot_loop(HotLoop &H, location_t loc)
{
	H.s = new_state();
	gimple_seq in = NULL;
	load_state(&in, H.s, loc);
	gsi_insert_seq_on_edge_immediate(loop_preheader_edge(H.loop), in);
	for (edge e : get_loop_exit_edges(H.loop)) {
		gimple_seq out = NULL;
		leave_state(&out, H.s, loc);
		gsi_insert_seq_on_edge_immediate(e, out);
	}
	std::vector<class loop *> nest{ H.loop };
	for (size_t i = 0; i < nest.size(); i++)
		for (class loop *sub = nest[i]->inner; sub; sub = sub->next)
			nest.push_back(sub);
	for (class loop *L : nest) {
		gimple_seq top = NULL;
		if (L == H.loop)
			store_cursor(&top, H.s.p, loc);
		if (H.sync_free) {
			tree e = tmp("mp_e");
			add(&top, gimple_build_assign(e, epoch_decl), loc);
			tree changed = cmp(&top, loc, NE_EXPR, e, H.s.epoch);
			add(&top, gimple_build_assign(H.s.lim, COND_EXPR, changed, cst(0), H.s.lim), loc);
		}
		if (top) {
			gimple_stmt_iterator gsi = gsi_after_labels(L->header);
			gsi_insert_seq_before(&gsi, top, GSI_SAME_STMT);
		}
	}
}

// A new empty block after `after`, in the loop of `home`.
basic_block new_bb(basic_block after, basic_block home, profile_count count)
{
	basic_block bb = create_empty_bb(after);
	if (current_loops)
		add_bb_to_loop(bb, home->loop_father);
	bb->count = count;
	return bb;
}

// seq at the end of bb (before nothing: bb has no control statement yet).
void append(basic_block bb, gimple_seq seq)
{
	gimple_stmt_iterator gsi = gsi_last_bb(bb);
	gsi_insert_seq_after(&gsi, seq, GSI_NEW_STMT);
}

// bb ends with `if (a CODE b) goto t; else goto f;`, t with probability p.
void branch(basic_block bb, tree_code code, tree a, tree b, basic_block t, basic_block f, profile_probability p,
	    location_t loc)
{
	gcond *cond = gimple_build_cond(code, a, b, NULL_TREE, NULL_TREE);
	gimple_set_location(cond, loc);
	gimple_stmt_iterator gsi = gsi_last_bb(bb);
	gsi_insert_after(&gsi, cond, GSI_NEW_STMT);
	edge et = make_edge(bb, t, EDGE_TRUE_VALUE), ef = make_edge(bb, f, EDGE_FALSE_VALUE);
	et->probability = p;
	ef->probability = p.invert();
}

void jump(basic_block bb, basic_block to)
{
	make_single_succ_edge(bb, to, EDGE_FALLTHRU);
}

// One record: w's low `bytes` bytes at p (a store of store_bytes, the
// bytes past the record within the buffer's slack), p advanced.
gimple_seq put_record(const State &s, tree w, unsigned store_bytes, unsigned bytes, location_t loc)
{
	gimple_seq seq = NULL;
	tree ty = store_bytes == 2 ? short_unsigned_type_node : store_bytes == 4 ? unsigned_type_node : u64();
	tree val = w;
	if (ty != u64()) {
		val = create_tmp_reg(ty, "mp_w");
		add(&seq, gimple_build_assign(val, NOP_EXPR, w), loc);
	}
	tree cptr = build_pointer_type(char_type_node);
	tree pp = create_tmp_reg(cptr, "mp_pp");
	add(&seq, gimple_build_assign(pp, NOP_EXPR, s.p), loc);
	add(&seq, gimple_build_assign(build2(MEM_REF, build_aligned_type(ty, BITS_PER_UNIT), pp, build_int_cst(cptr, 0)), val),
	    loc);
	add(&seq, gimple_build_assign(s.p, PLUS_EXPR, s.p, cst(bytes)), loc);
	return seq;
}

/*
 * One site: the straight path of rt_hot_record over state s (a loop's copy,
 * or the thread's own loaded here), the call for anything else:
 *   bb:   z = zigzag(addr - last_addr); n = naccess + 1
 *         p >= lim, n == burst_end, ip not in its slot[, epoch changed]: slow
 *   z < 0x80: a 2-byte record; z < 2^14: 3 bytes; z < 2^48: ACCESS_FAR
 *         (7 bytes); else slow
 *   upd:  the state advanced
 *   slow: [the copy written back] the call [the copy taken again]
 *   join: the rest of bb
 */
void inline_site(const Site &site, State *hot, bool check_epoch, tree ip, unsigned slot)
{
	gcall *call = site.call;
	location_t loc = gimple_location(call);
	tree addr = gimple_call_arg(call, 0);
	State s = hot ? *hot : new_state();
	gimple_seq pre = NULL;
	if (!hot)
		load_state(&pre, s, loc);
	tree a = tmp("mp_a");
	add(&pre, gimple_build_assign(a, NOP_EXPR, addr), loc);
	tree d = binop(&pre, loc, MINUS_EXPR, a, s.last_addr);
	tree ds = create_tmp_reg(long_long_integer_type_node, "mp_ds");
	add(&pre, gimple_build_assign(ds, NOP_EXPR, d), loc);
	tree sign = binop(&pre, loc, RSHIFT_EXPR, ds, build_int_cst(integer_type_node, 63),
			  long_long_integer_type_node);
	tree signu = tmp("mp_sign");
	add(&pre, gimple_build_assign(signu, NOP_EXPR, sign), loc);
	tree z = binop(&pre, loc, BIT_XOR_EXPR, binop(&pre, loc, LSHIFT_EXPR, d, build_int_cst(integer_type_node, 1)),
		       signu);
	tree n = binop(&pre, loc, PLUS_EXPR, s.naccess, cst(1));
	tree e = NULL_TREE;
	if (check_epoch) {
		e = tmp("mp_e");
		add(&pre, gimple_build_assign(e, epoch_decl), loc);
	}

	// bb ends before the call; the call goes; the rest is the join
	basic_block bb = gimple_bb(call);
	gimple_stmt_iterator gsi = gsi_for_stmt(call);
	gsi_insert_seq_before(&gsi, pre, GSI_SAME_STMT);
	gsi = gsi_for_stmt(call);
	gsi_prev(&gsi);
	gimple *last = gsi_stmt(gsi);
	gsi = gsi_for_stmt(call);
	unlink_stmt_vdef(call);
	gsi_remove(&gsi, true);
	release_defs(call);
	edge rest = split_block(bb, last);
	basic_block join = rest->dest;
	remove_edge(rest);

	profile_count hotc = bb->count, coldc = bb->count.apply_probability(profile_probability::very_unlikely());
	profile_probability rare = profile_probability::very_unlikely();
	basic_block slow = new_bb(bb, bb, coldc);
	basic_block c2 = new_bb(slow, bb, hotc), c3 = new_bb(c2, bb, hotc);
	basic_block c4 = check_epoch ? new_bb(c3, bb, hotc) : NULL;
	basic_block near1 = new_bb(c4 ? c4 : c3, bb, hotc), rec2 = new_bb(near1, bb, hotc);
	basic_block near2 = new_bb(rec2, bb, coldc), rec3 = new_bb(near2, bb, coldc);
	basic_block far = new_bb(rec3, bb, coldc), rec7 = new_bb(far, bb, coldc);
	basic_block upd = new_bb(rec7, bb, hotc);

	branch(bb, GE_EXPR, s.p, s.lim, slow, c2, rare, loc);
	branch(c2, EQ_EXPR, n, s.burst_end, slow, c3, rare, loc);
	branch(c3, NE_EXPR, ip, slot ? s.prev_ip : s.last_ip, slow, c4 ? c4 : near1, rare, loc);
	if (c4)
		branch(c4, NE_EXPR, e, s.epoch, slow, near1, rare, loc);

	// the record by the size of z, in one store each
	unsigned low = site.code | (slot ? MP_GCC_ACC_SLOT1 : 0);
	gimple_seq f = NULL;
	tree zs8 = binop(&f, loc, LSHIFT_EXPR, z, build_int_cst(integer_type_node, 8));
	append(near1, f);
	branch(near1, LT_EXPR, z, cst(0x80), rec2, near2, profile_probability::very_likely(), loc);
	f = NULL;
	tree w1 = binop(&f, loc, BIT_IOR_EXPR, zs8, cst(MP_GCC_TAG_SLOT | low));
	gimple_seq_add_seq(&f, put_record(s, w1, 2, 2, loc));
	append(rec2, f);
	jump(rec2, upd);
	branch(near2, LT_EXPR, z, cst(1u << 14), rec3, far, profile_probability::even(), loc);
	f = NULL;
	tree lo = binop(&f, loc, BIT_IOR_EXPR, binop(&f, loc, BIT_AND_EXPR, z, cst(0x7f)), cst(0x80));
	tree hi = binop(&f, loc, RSHIFT_EXPR, z, build_int_cst(integer_type_node, 7));
	tree w2 = binop(&f, loc, BIT_IOR_EXPR,
			binop(&f, loc, BIT_IOR_EXPR, binop(&f, loc, LSHIFT_EXPR, lo, build_int_cst(integer_type_node, 8)),
			      binop(&f, loc, LSHIFT_EXPR, hi, build_int_cst(integer_type_node, 16))),
			cst(MP_GCC_TAG_SLOT | low));
	gimple_seq_add_seq(&f, put_record(s, w2, 4, 3, loc));
	append(rec3, f);
	jump(rec3, upd);
	// a far jump: the bound is checked here only, where near records have
	// none to pay
	f = NULL;
	tree zfar = binop(&f, loc, RSHIFT_EXPR, z, build_int_cst(integer_type_node, 8 * MP_GCC_FAR_BYTES));
	append(far, f);
	branch(far, NE_EXPR, zfar, cst(0), slow, rec7, rare, loc);
	f = NULL;
	tree w3 = binop(&f, loc, BIT_IOR_EXPR, zs8, cst(MP_GCC_TAG_FAR | low));
	gimple_seq_add_seq(&f, put_record(s, w3, 8, 1 + MP_GCC_FAR_BYTES, loc));
	append(rec7, f);
	jump(rec7, upd);

	f = NULL;
	add(&f, gimple_build_assign(s.last_addr, a), loc);
	add(&f, gimple_build_assign(s.naccess, n), loc);
	if (!hot) {
		add(&f, gimple_build_assign(tls_field(MP_GCC_HOT_LAST_ADDR), s.last_addr), loc);
		add(&f, gimple_build_assign(tls_field(MP_GCC_HOT_NACCESS), s.naccess), loc);
		store_cursor(&f, s.p, loc);
	}
	append(upd, f);
	jump(upd, join);

	// the runtime's general path, with the site's code address
	gimple_seq sl = NULL;
	if (hot)
		leave_state(&sl, s, loc);
	tree ipp = create_tmp_reg(ptr_type_node, "mp_ipp");
	add(&sl, gimple_build_assign(ipp, NOP_EXPR, ip), loc);
	unsigned code = site.code | (slot ? MP_GCC_CODE_SLOT1 : 0);
	add(&sl, gimple_build_call(slow_fn, 3, addr, build_int_cst(unsigned_type_node, code), ipp), loc);
	if (hot)
		load_state(&sl, s, loc);
	append(slow, sl);
	jump(slow, join);
}

// A code address at `before`: lea of the next instruction, at the site's line.
tree take_ip(gimple *before)
{
	tree ip = tmp("mp_ip");
	vec<tree, va_gc> *outputs = NULL;
	tree constraint = build_tree_list(NULL_TREE, build_string(3, "=r"));
	vec_safe_push(outputs, build_tree_list(constraint, ip));
	gasm *g = gimple_build_asm_vec("lea 0(%%rip), %0", NULL, outputs, NULL, NULL);
	gimple_asm_set_volatile(g, true);
	gimple_set_location(g, gimple_location(before));
	gimple_stmt_iterator gsi = gsi_for_stmt(before);
	gsi_insert_before(&gsi, g, GSI_SAME_STMT);
	return ip;
}

unsigned module_inline_sites()
{
	const char *env = getenv(MP_ENV_INLINE_SITES);
	char *end;
	unsigned long n = env && *env ? strtoul(env, &end, 10) : 0;
	return env && *env && !*end && n <= UINT_MAX ? (unsigned)n : kModuleInlineSites;
}

unsigned instrument_function(function *fn)
{
	std::vector<Site> sites;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fn)
	for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
		int code = site_code(gsi_stmt(gsi));
		if (code >= 0 && gimple_call_num_args(gsi_stmt(gsi)) == 1)
			sites.push_back({ as_a<gcall *>(gsi_stmt(gsi)), (unsigned)code });
	}
	if (sites.empty())
		return 0;
	make_decls();
	bool loops = optimize && current_loops;
	if (loops)
		loop_optimizer_init(LOOPS_NORMAL | LOOPS_HAVE_RECORDED_EXITS);
	std::vector<HotLoop> hot;
	if (loops)
		find_hot_loops(current_loops->tree_root->inner, hot);
	for (Site &s : sites) {
		s.hot = hot_index(hot, gimple_bb(s.call));
		if (s.hot >= 0)
			hot[s.hot].sites++;
	}
	// which sites inline: whole hot loops while the module's bound allows,
	// then the other loop sites, and every site of a small function
	for (HotLoop &H : hot)
		if (H.sites > module_budget)
			H.sites = 0; // its sites stay calls: the loop is not call-free
		else
			module_budget -= H.sites;
	for (Site &s : sites) {
		if (s.hot >= 0) {
			s.inl = hot[s.hot].sites > 0;
			if (!s.inl)
				s.hot = -1;
			continue;
		}
		bool in_loop = loops && gimple_bb(s.call)->loop_father != current_loops->tree_root;
		if ((in_loop || sites.size() <= kInlineAllMaxSites) && module_budget > 0) {
			s.inl = true;
			module_budget--;
		}
	}
	location_t floc = DECL_SOURCE_LOCATION(fn->decl);
	for (HotLoop &H : hot)
		if (H.sites)
			prepare_hot_loop(H, floc);
	// code addresses: one per (block, line, scope) -- decided before any
	// block is split
	using Key = std::tuple<int, int, tree>;
	std::map<Key, std::pair<tree, unsigned>> ips;
	std::vector<std::pair<tree, unsigned>> site_ip(sites.size());
	for (size_t i = 0; i < sites.size(); i++) {
		if (!sites[i].inl)
			continue;
		location_t loc = gimple_location(sites[i].call);
		Key k(gimple_bb(sites[i].call)->index, LOCATION_LINE(loc), LOCATION_BLOCK(loc));
		auto it = ips.find(k);
		if (it == ips.end()) {
			it = ips.emplace(k, std::make_pair(take_ip(sites[i].call), next_slot)).first;
			next_slot ^= 1;
		}
		site_ip[i] = it->second;
	}
	free_dominance_info(CDI_DOMINATORS);
	unsigned done = 0;
	for (size_t i = 0; i < sites.size(); i++) {
		if (!sites[i].inl)
			continue;
		HotLoop *H = sites[i].hot >= 0 ? &hot[sites[i].hot] : nullptr;
		inline_site(sites[i], H ? &H->s : nullptr, !(H && H->sync_free), site_ip[i].first, site_ip[i].second);
		done++;
	}
	if (loops)
		loop_optimizer_finalize();
	if (done) {
		mark_virtual_operands_for_renaming(fn);
		calculate_dominance_info(CDI_DOMINATORS);
		update_ssa(TODO_update_ssa);
	}
	return 0;
}

/*
 * Passive copies, as the LLVM pass makes them: a program built by
 * `memprism gcc` but not being recorded should run at native speed. Before
 * gcc's ThreadSanitizer pass, a function with a loop or many accesses gets
 * a copy of its body (a local function gcc compiles after the unit's
 * others) that the sanitizer leaves alone (no_sanitize); after it, the
 * instrumented function's entry calls the copy and returns its result
 * while the runtime is not recording: one load and a branch per call.
 * Functions whose arguments or result the copy could not take as they are
 * (variadic, aggregate results, a static chain, setjmp, non-local labels)
 * or with exception regions (C++ cleanups, which gcc cannot copy at this
 * point) keep one body.
 */
std::map<tree, tree> passive_copies; // function -> its copy (decls the call graph keeps)

bool worth_versioning(function *fn)
{
	tree decl = fn->decl;
	if (stdarg_p(TREE_TYPE(decl)) || DECL_STATIC_CHAIN(decl) || fn->calls_setjmp || fn->has_nonlocal_label ||
	    fn->has_forced_label_in_static || (fn->eh && fn->eh->region_tree) || !tree_versionable_function_p(decl))
		return false; /* (exception regions: gcc cannot copy them this late) */
	tree rt = TREE_TYPE(TREE_TYPE(decl));
	if (!VOID_TYPE_P(rt) && (!is_gimple_reg_type(rt) || aggregate_value_p(DECL_RESULT(decl), decl)))
		return false;
	for (tree a = DECL_ARGUMENTS(decl); a; a = DECL_CHAIN(a))
		if (!is_gimple_reg_type(TREE_TYPE(a)) || TREE_ADDRESSABLE(a))
			return false;
	if (loops_for_fn(fn) && number_of_loops(fn) > 1)
		return true;
	unsigned n = 0;
	basic_block bb;
	FOR_EACH_BB_FN(bb, fn)
	for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
		gimple *g = gsi_stmt(gsi);
		n += gimple_assign_load_p(g) || gimple_store_p(g);
		if (n >= kVersionMinAccesses)
			return true;
	}
	return false;
}

unsigned copy_function(function *fn)
{
	if (!optimize || !worth_versioning(fn))
		return 0;
	cgraph_node *node = cgraph_node::get(fn->decl);
	if (!node)
		return 0;
	// (the passes since the call graph was built made calls it lacks: the
	// copy takes its calls' edges from it)
	cgraph_edge::rebuild_edges();
	cgraph_node *copy = node->create_version_clone_with_body(vNULL, NULL, NULL, NULL, NULL, "memprism_passive");
	if (!copy)
		return 0;
	tree d = copy->decl;
	DECL_ATTRIBUTES(d) = tree_cons(get_identifier("no_sanitize"), build_int_cst(unsigned_type_node, SANITIZE_THREAD),
				       DECL_ATTRIBUTES(d));
	DECL_UNINLINABLE(d) = 1;
	cgraph_node::add_new_function(d, true);
	passive_copies[fn->decl] = d;
	return 0;
}

// The instrumented function's new entry: while the runtime is not
// recording, the copy's result.
void dispatch_to_copy(function *fn, tree copy)
{
	make_decls();
	location_t loc = DECL_SOURCE_LOCATION(fn->decl);
	edge e = single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fn));
	basic_block check = split_edge(e);
	basic_block idle = create_empty_bb(check);
	if (current_loops) {
		add_bb_to_loop(idle, current_loops->tree_root);
	}
	gimple_seq seq = NULL;
	tree on = create_tmp_reg(integer_type_node, "mp_recording");
	add(&seq, gimple_build_assign(on, recording_decl), loc);
	add(&seq, gimple_build_cond(NE_EXPR, on, integer_zero_node, NULL_TREE, NULL_TREE), loc);
	gimple_stmt_iterator gc = gsi_last_bb(check);
	gsi_insert_seq_after(&gc, seq, GSI_NEW_STMT);
	edge to_body = single_succ_edge(check);
	to_body->flags = (to_body->flags & ~EDGE_FALLTHRU) | EDGE_TRUE_VALUE;
	edge to_idle = make_edge(check, idle, EDGE_FALSE_VALUE);
	to_idle->probability = profile_probability::unlikely();
	to_body->probability = to_idle->probability.invert();
	auto_vec<tree> args;
	for (tree a = DECL_ARGUMENTS(fn->decl); a; a = DECL_CHAIN(a))
		args.safe_push(get_or_create_ssa_default_def(fn, a));
	gcall *call = gimple_build_call_vec(copy, args);
	gimple_set_location(call, loc);
	tree rt = TREE_TYPE(TREE_TYPE(fn->decl));
	tree r = NULL_TREE;
	if (!VOID_TYPE_P(rt)) {
		r = create_tmp_reg(rt, "mp_passive_ret");
		gimple_call_set_lhs(call, r);
	}
	gimple_call_set_tail(call, true);
	gimple_stmt_iterator gi = gsi_start_bb(idle);
	gsi_insert_after(&gi, call, GSI_NEW_STMT);
	greturn *ret = gimple_build_return(r);
	gimple_set_location(ret, loc);
	gsi_insert_after(&gi, ret, GSI_NEW_STMT);
	make_edge(idle, EXIT_BLOCK_PTR_FOR_FN(fn), 0);
	cgraph_node *node = cgraph_node::get(fn->decl), *callee = cgraph_node::get(copy);
	if (node && callee)
		node->create_edge(callee, call, idle->count);
	free_dominance_info(CDI_DOMINATORS);
	mark_virtual_operands_for_renaming(fn);
	update_ssa(TODO_update_ssa);
}

unsigned instrument_and_dispatch(function *fn)
{
	unsigned r = instrument_function(fn);
	auto it = passive_copies.find(fn->decl);
	if (it != passive_copies.end())
		dispatch_to_copy(fn, it->second);
	return r;
}

// Both passes: the copies' before gcc's tsan, the instrumentation after it.
// Neither runs in a passive copy (no_sanitize thread).
struct mp_gcc_pass : gimple_opt_pass {
	unsigned (*run)(function *);
	mp_gcc_pass(const pass_data &data, unsigned (*fn)(function *), gcc::context *ctx)
		: gimple_opt_pass(data, ctx), run(fn)
	{
	}
	opt_pass *clone() override
	{
		return new mp_gcc_pass(*static_cast<const pass_data *>(this), run, m_ctxt); // (a fresh pass, as gcc's own clone theirs)
	}
	bool gate(function *) override
	{
		return sanitize_flags_p(SANITIZE_THREAD);
	}
	unsigned execute(function *fn) override
	{
		return run(fn);
	}
};

const pass_data mp_copy_pass_data = {
	GIMPLE_PASS, "memprism-passive", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};
const pass_data mp_pass_data = {
	GIMPLE_PASS, "memprism", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

void add_pass(const char *plugin, const pass_data &data, unsigned (*run)(function *), const char *ref,
	      pass_positioning_ops pos)
{
	struct register_pass_info pass;
	pass.pass = new mp_gcc_pass(data, run, g);
	pass.reference_pass_name = ref;
	pass.ref_pass_instance_number = 0; // every instance
	pass.pos_op = pos;
	register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
}

// Every instrumented object refers to the inline ABI's version mark (the
// launcher and the report recognize a memprism build by it; a runtime of
// another version fails at load time): a pointer to it, kept.
void add_abi_mark(void *, void *)
{
	static const char text[] = "\t.pushsection .data.rel.ro.memprism_abi,\"aw\"\n"
				   "\t.balign 8\n"
				   "\t.quad " MP_ABI_INLINE_MARK "\n"
				   "\t.popsection";
	symtab->finalize_toplevel_asm(build_string(sizeof(text) - 1, text));
}

} // namespace

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
	// Another gcc (its internals differ): stay out of its way, and the
	// ThreadSanitizer calls, which the runtime serves as well, remain.
	if (strcmp(version->basever, gcc_version.basever)) {
		warning(0, "memprism: this plugin was built for gcc %s, not %s: accesses are recorded through calls",
			gcc_version.basever, version->basever);
		return 0;
	}
	module_budget = module_inline_sites();
	register_callback(info->base_name, PLUGIN_START_UNIT, add_abi_mark, NULL);
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL, (void *)roots);
	add_pass(info->base_name, mp_copy_pass_data, copy_function, "tsan", PASS_POS_INSERT_BEFORE);
	add_pass(info->base_name, mp_pass_data, instrument_and_dispatch, "tsan", PASS_POS_INSERT_AFTER);
	add_pass(info->base_name, mp_pass_data, instrument_and_dispatch, "tsan0", PASS_POS_INSERT_AFTER);
	return 0;
}
