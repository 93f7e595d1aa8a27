// SPDX-License-Identifier: MIT
/*
 * memprism's LLVM pass plugin: inline access instrumentation for
 * `memprism cc` (clang -fpass-plugin=memprism-pass.so).
 *
 * Why C++ in a C project: LLVM's pass-plugin interface exists only in C++
 * (the C API cannot add passes to clang's pipeline). This file is the one
 * place that needs it and stays small; the code that runs in the profiled
 * program is C (src/rt/rt_inline.c).
 *
 * What it does, at the end of the optimization pipeline (where
 * sanitizer-coverage would run, so the code it sees is the code that runs,
 * vectorized and all): before every load, store, atomic read-modify-write,
 * compare-exchange and small inline memcpy/memset it inserts a call to the
 * runtime's access path (rt_inline.c, whose bitcode rt_inline.bc is
 * installed next to this plugin; MEMPRISM_INLINE_BC names another, for
 * experiments), links that bitcode into the module and inlines it.
 *   - Loops that call nothing keep the thread's recording state in a local
 *     copy, which SROA puts in registers.
 *   - Sites of one block on one source line share a code address.
 *   - Sites outside loops in big functions, and those beyond a module's
 *     inline bound, call the runtime instead (in preserve_most).
 *   - Functions with loops get an uninstrumented copy for runs that are not
 *     recorded.
 * Compared with the sanitizer-coverage callbacks this removes a call and a
 * return per access and the spills around them, and it sees what those
 * callbacks cannot: vectors wider than 16 bytes, atomic read-modify-writes,
 * inline struct copies. docs/instrumentation.md has the measurements.
 */
#include <dlfcn.h>

#include <climits>
#include <map>
#include <string>
#include <tuple>

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "common/mp_abi.h"
#include "common/mp_env.h"

using namespace llvm;

namespace
{

// Must match src/trace/trace_format.h (checked by tests/cli/test_inline.sh
// through the recorded sizes).
constexpr unsigned kWrite = 0x08u;
constexpr unsigned kSlot1 = 0x20u; // RT_CODE_SLOT1 (rt_int.h): the site's ip is in slot 1
constexpr unsigned kRange = 7u;
constexpr const char *kPassName = "memprism"; // -Rpass=memprism shows its remarks
constexpr const char *kAccessFn = "__memprism_inl_access";
constexpr const char *kLoopAccessFn = "__memprism_inl_access_loop"; // rt_inline.c
constexpr const char *kEnterFn = "__memprism_inl_enter";
constexpr const char *kLeaveFn = "__memprism_inl_leave";
constexpr const char *kPublishFn = "__memprism_inl_publish";
constexpr const char *kEpochCheckFn = "__memprism_inl_epoch_check";
constexpr const char *kLoopNoSyncFn = "__memprism_inl_access_loop_nosync";
constexpr uint64_t kHotSize = 64; // RT_HOT_SIZE, src/rt/rt_int.h
constexpr const char *kColdFn = "__memprism_access_cold"; // rt_access.c
// Sites inlined: those in loops, and every site of a function this small
// (after inlining, a small function is likely a helper called from a loop).
// The rest call the runtime: inlined, a site costs the back end its blocks
// and the object ~900 bytes, a call under 100 (limitModuleSites).
constexpr unsigned kInlineAllMaxSites = 16;
// Every instrumented module refers to this runtime symbol: it marks the
// module as built by `memprism cc` (the launcher looks for it), and a runtime
// without this version of the inline ABI fails at load time, not silently.
constexpr const char *kAbiMark = MP_ABI_INLINE_MARK;
constexpr const char *kRecordingVar = "__memprism_recording"; // rt_recording (src/rt/rt_int.h)
// Constant-length memcpy/memmove/memset intrinsics up to this size are
// recorded here, as one ranged access. Longer ones are made calls to libc's
// function that the back end may not expand (nobuiltin), which the runtime
// interposes and records: left to the back end, one of up to 16 vector
// stores (memset up to 256 bytes at SSE2's 16, 512 with AVX) was expanded
// inline and recorded by nobody. Only the recorded copy of a function
// pays the call; its passive copy keeps the intrinsic.
constexpr uint64_t kInlineMemMax = 64;

// Size code of an access of `bytes` bytes: 0..6 for 1..64 bytes, else a
// ranged access with an explicit length.
unsigned sizeCode(uint64_t bytes)
{
	switch (bytes) {
	case 1:
		return 0;
	case 2:
		return 1;
	case 4:
		return 2;
	case 8:
		return 3;
	case 16:
		return 4;
	case 32:
		return 5;
	case 64:
		return 6;
	default:
		return kRange;
	}
}

// rt_inline.bc lives next to this plugin, in the build tree and when installed.
std::string inlineBitcodePath()
{
	if (const char *env = getenv(MP_ENV_INLINE_BC))
		return env;
	Dl_info info;
	if (!dladdr(reinterpret_cast<void *>(&inlineBitcodePath), &info) || !info.dli_fname)
		return "rt_inline.bc";
	std::string self = info.dli_fname;
	size_t slash = self.rfind('/');
	return (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/rt_inline.bc";
}

constexpr const char *kPassiveSuffix = ".memprism_passive";

bool skipFunction(const Function &F)
{
	if (F.isDeclaration() || F.getName().startswith("__memprism_") || F.getName().startswith("__sanitizer_") ||
	    F.getName().endswith(kPassiveSuffix))
		return true;
	// the attributes sanitizer-coverage honours: no_sanitize("coverage") and
	// __attribute__((disable_sanitizer_instrumentation))
	return F.hasFnAttribute(Attribute::NoSanitizeCoverage) ||
	       F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation) || F.hasFnAttribute(Attribute::Naked);
}

// A memcpy/memmove/memset the back end will expand without a call: the
// always-inline variants, or a small constant length.
bool inlineMemIntrinsic(const Instruction &I)
{
	auto *M = dyn_cast<MemIntrinsic>(&I);
	if (!M)
		return false;
	if (isa<MemCpyInlineInst>(M) || isa<MemSetInlineInst>(M))
		return true;
	auto *len = dyn_cast<ConstantInt>(M->getLength());
	return len && len->getZExtValue() <= kInlineMemMax;
}

// A constant-length memcpy/memmove/memset above kInlineMemMax, which the
// back end might expand inline unrecorded: it becomes a call to libc.
bool longConstMemIntrinsic(const Instruction &I)
{
	auto *M = dyn_cast<MemIntrinsic>(&I);
	if (!M || M->isVolatile() || isa<MemCpyInlineInst>(M) || isa<MemSetInlineInst>(M))
		return false;
	auto *len = dyn_cast<ConstantInt>(M->getLength());
	return len && len->getZExtValue() > kInlineMemMax;
}

// That call, in place of the intrinsic: libc's function by name, marked
// nobuiltin so neither the optimizer (InstCombine, or link-time
// optimization) nor the back end turns it back into inline stores.
void callLibcInstead(MemIntrinsic *MI)
{
	Module &M = *MI->getModule();
	LLVMContext &C = M.getContext();
	const DataLayout &DL = M.getDataLayout();
	Type *ptrTy = PointerType::get(C, 0), *sizeTy = DL.getIntPtrType(C);
	IRBuilder<> B(MI);
	Value *len = B.CreateZExtOrTrunc(MI->getLength(), sizeTy);
	CallInst *call;
	if (auto *S = dyn_cast<MemSetInst>(MI)) {
		FunctionCallee f = M.getOrInsertFunction("memset", ptrTy, ptrTy, B.getInt32Ty(), sizeTy);
		call = B.CreateCall(f, { S->getDest(), B.CreateZExt(S->getValue(), B.getInt32Ty()), len });
	} else {
		auto *T = cast<MemTransferInst>(MI);
		FunctionCallee f = M.getOrInsertFunction(isa<MemMoveInst>(T) ? "memmove" : "memcpy", ptrTy, ptrTy,
							 ptrTy, sizeTy);
		call = B.CreateCall(f, { T->getDest(), T->getSource(), len });
	}
	call->addFnAttr(Attribute::NoBuiltin);
	call->setDebugLoc(MI->getDebugLoc());
	MI->eraseFromParent();
}

/*
 * Passive copies. A program built by `memprism cc` but not being recorded
 * should run at native speed; the inline check per access (two loads and a
 * branch) still made a tight loop 4x slower. So functions with a loop, or
 * with many accesses, get an uninstrumented copy, and their entry goes
 * there (a tail jump) while the runtime is not recording: one load and a
 * branch per call. Recording starts in the runtime's constructor, before
 * the program's own code runs.
 */
constexpr unsigned kVersionMinAccesses = 8;

bool worthVersioning(Function &F, unsigned accesses)
{
	if (F.isVarArg() || F.hasFnAttribute(Attribute::Naked) || F.hasFnAttribute(Attribute::OptimizeNone))
		return false;
	for (BasicBlock &BB : F)
		if (BB.hasAddressTaken())
			return false; // computed goto: blockaddress constants name these blocks
	if (accesses >= kVersionMinAccesses)
		return true;
	for (scc_iterator<Function *> I = scc_begin(&F); !I.isAtEnd(); ++I)
		if (I.hasCycle())
			return true;
	return false;
}

Function *makePassiveCopy(Function &F)
{
	ValueToValueMapTy vmap;
	Function *copy = CloneFunction(&F, vmap);
	copy->setName(F.getName() + kPassiveSuffix);
	copy->setLinkage(GlobalValue::InternalLinkage);
	copy->setVisibility(GlobalValue::DefaultVisibility);
	copy->setDLLStorageClass(GlobalValue::DefaultStorageClass);
	copy->setComdat(nullptr);
	copy->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
	// Under link-time optimization the optimizer runs again: inlined back
	// into its one caller, the copy's tail would be merged with the
	// instrumented one's, and a merged call's debug location is line 0.
	copy->addFnAttr(Attribute::NoInline);
	return copy;
}

// Entry of F, once instrumented: while the runtime is not recording, jump to
// the passive copy. Static allocas move up into the new entry block so they
// stay static.
void dispatchToPassive(Function &F, Function *passive, GlobalVariable *recording)
{
	LLVMContext &C = F.getContext();
	BasicBlock *old = &F.getEntryBlock();
	SmallVector<AllocaInst *, 16> statics; // found while `old` is still the entry block
	for (Instruction &I : *old)
		if (auto *A = dyn_cast<AllocaInst>(&I); A && A->isStaticAlloca())
			statics.push_back(A);
	BasicBlock *check = BasicBlock::Create(C, "memprism.check", &F, old);
	BasicBlock *idle = BasicBlock::Create(C, "memprism.passive", &F, old);
	for (AllocaInst *A : statics)
		A->moveBefore(*check, check->end());
	DebugLoc loc;
	if (DISubprogram *SP = F.getSubprogram())
		loc = DILocation::get(C, SP->getLine(), 0, SP);
	IRBuilder<> B(check);
	B.SetCurrentDebugLocation(loc);
	Value *on = B.CreateICmpNE(B.CreateLoad(recording->getValueType(), recording), B.getInt32(0));
	B.CreateCondBr(on, old, idle);
	IRBuilder<> P(idle);
	P.SetCurrentDebugLocation(loc);
	SmallVector<Value *, 8> args;
	for (Argument &A : F.args())
		args.push_back(&A);
	CallInst *call = P.CreateCall(passive, args);
	call->setCallingConv(F.getCallingConv());
	// the same ABI as the function's own callers used: byval copies, sret,
	// zero/sign extension of narrow arguments
	call->setAttributes(F.getAttributes());
	// A tail call where the back end can make it one (a jump); a plain call
	// where it cannot (byval or sret arguments in memory): musttail would
	// fail there rather than fall back.
	call->setTailCallKind(CallInst::TCK_Tail);
	if (F.getReturnType()->isVoidTy())
		P.CreateRetVoid();
	else
		P.CreateRet(call);
}

/*
 * Loops that call nothing (no call but intrinsics that stay calls to
 * nothing memprism watches) keep the thread's hot recording state in a
 * local copy: taken in the preheader, written back in every exit block and
 * before every return inside the loop. After inlining, SROA turns the copy
 * into registers, so consecutive accesses stop passing the buffer cursor
 * and the delta bases through memory. A call (the program's, or an
 * interposed memcpy) could record into the thread's buffer behind the
 * copy's back: such loops keep the plain path.
 */
struct HotLoop {
	Loop *loop;
	AllocaInst *copy = nullptr;
	bool checkPerIteration = false; // loopSyncFree: the epoch is checked at each header
};

bool loopCallsNothing(const Loop &L)
{
	for (BasicBlock *BB : L.blocks())
		for (Instruction &I : *BB) {
			auto *CB = dyn_cast<CallBase>(&I);
			if (!CB)
				continue;
			auto *II = dyn_cast<IntrinsicInst>(CB);
			if (!II)
				return false;
			if (isa<MemIntrinsic>(II) && !inlineMemIntrinsic(*II))
				return false; // becomes a call to the interposed memcpy/memset
		}
	return true;
}

/*
 * A hot loop whose accesses may check the epoch (another thread's
 * allocation events, rt_inline.c) once per iteration instead of each time:
 * none of its instructions synchronizes with another thread (atomic,
 * volatile, fence, or an intrinsic that touches memory other than a plain
 * memcpy/memset), and every cycle of its blocks passes a header of a loop of
 * the nest, where the check goes (an irreducible cycle has no header).
 */
bool loopSyncFree(const Loop &L)
{
	for (BasicBlock *BB : L.blocks())
		for (Instruction &I : *BB) {
			if (auto *Ld = dyn_cast<LoadInst>(&I)) {
				if (!Ld->isSimple())
					return false;
			} else if (auto *St = dyn_cast<StoreInst>(&I)) {
				if (!St->isSimple())
					return false;
			} else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
				if (MI->isVolatile())
					return false;
			} else if (I.isAtomic() || isa<FenceInst>(I) ||
				   (isa<CallBase>(I) && I.mayReadOrWriteMemory())) {
				return false;
			}
		}
	SmallPtrSet<const BasicBlock *, 16> headers;
	for (const Loop *sub : L.getLoopsInPreorder())
		headers.insert(sub->getHeader());
	// depth-first search for a cycle among the other blocks
	DenseMap<const BasicBlock *, int> state; // 1 on the path, 2 done
	SmallVector<std::pair<const BasicBlock *, const_succ_iterator>, 16> stack;
	for (const BasicBlock *root : L.blocks()) {
		if (headers.count(root) || state.count(root))
			continue;
		state[root] = 1;
		stack.push_back({ root, succ_begin(root) });
		while (!stack.empty()) {
			auto &[bb, it] = stack.back();
			if (it == succ_end(bb)) {
				state[bb] = 2;
				stack.pop_back();
				continue;
			}
			const BasicBlock *next = *it++;
			if (!L.contains(next) || headers.count(next))
				continue;
			auto st = state.find(next);
			if (st == state.end()) {
				state[next] = 1;
				stack.push_back({ next, succ_begin(next) });
			} else if (st->second == 1) {
				return false;
			}
		}
	}
	return true;
}

// The outermost loops of L's nest (L included) that qualify.
void findHotLoops(Loop *L, SmallVectorImpl<HotLoop> &out)
{
	if (L->getLoopPreheader() && L->hasDedicatedExits() && loopCallsNothing(*L)) {
		out.push_back({ L, nullptr, loopSyncFree(*L) });
		return;
	}
	for (Loop *sub : *L)
		findHotLoops(sub, out);
}

/*
 * A function whose loops hold more sites than this (an interpreter's
 * dispatch loop, a parser's state machine) keeps inline only the sites of
 * its call-free loops, whole loops at a time, while their sites fit the
 * budget; its other loop sites call the runtime. Inlined, each site adds
 * blocks and live ranges to one huge function, and register allocation
 * time grows faster than the function.
 */
constexpr unsigned kInlineLoopMaxSites = 256;

// The call-free loops among the sites `work` that keep their sites inline
// within `budget` (lowered by theirs), whole loops, innermost first.
DenseSet<unsigned> keepDeepestLoops(ArrayRef<Instruction *> work, ArrayRef<HotLoop> hot,
				    const DenseMap<Instruction *, unsigned> &inHot, unsigned &budget)
{
	DenseMap<unsigned, unsigned> perHot;
	for (Instruction *I : work)
		if (auto h = inHot.find(I); h != inHot.end())
			perHot[h->second]++;
	SmallVector<unsigned, 64> order;
	for (auto &[h, n] : perHot)
		order.push_back(h);
	llvm::sort(order, [&](unsigned a, unsigned b) {
		unsigned da = hot[a].loop->getLoopDepth(), db = hot[b].loop->getLoopDepth();
		return da != db ? da > db : a < b;
	});
	DenseSet<unsigned> keep;
	for (unsigned h : order)
		if (perHot[h] <= budget) {
			budget -= perHot[h];
			keep.insert(h);
		}
	return keep;
}

void limitLoopSites(ArrayRef<Instruction *> work, size_t first, LoopInfo &LI, ArrayRef<HotLoop> hot,
		    DenseSet<Instruction *> &cold, DenseMap<Instruction *, unsigned> &inHot)
{
	unsigned budget = kInlineLoopMaxSites, inLoops = 0;
	for (size_t k = first; k < work.size(); k++)
		if (LI.getLoopFor(work[k]->getParent()))
			inLoops++;
	if (inLoops <= budget)
		return;
	DenseSet<unsigned> keep = keepDeepestLoops(work.drop_front(first), hot, inHot, budget);
	for (size_t k = first; k < work.size(); k++) {
		if (!LI.getLoopFor(work[k]->getParent()))
			continue;
		auto h = inHot.find(work[k]);
		if (h != inHot.end() && keep.count(h->second))
			continue;
		if (h != inHot.end())
			inHot.erase(h);
		cold.insert(work[k]);
	}
}

/*
 * A module whose sites would inline more than this many keeps that many
 * inlined and makes the rest calls, as AddressSanitizer makes every access
 * of a function of over 7,000 a call: the deepest call-free loops first
 * (whole loops), then the sites of small functions, then the other loop
 * sites, in program order. Such a module's inlined sites also write only
 * the records of an ip in its slot themselves (rt_inline.c's _straight
 * entries); the general encoder, with its varint loop, goes to the
 * runtime. An inlined
 * site costs the back end its blocks and the object ~900 bytes (code, line
 * table, locations), ~500 straight, a call under 100. A 270k-line
 * single-file library (SQLite) has ~21,000 sites the rules above would
 * inline, which took compile time to 3.7x a plain build's and object size
 * to 4x; an ordinary source file has far fewer and keeps them all, whole.
 * MEMPRISM_INLINE_SITES sets another bound (0: every site a call).
 */
constexpr unsigned kModuleInlineSites = 5000;

unsigned moduleInlineSites()
{
	const char *env = getenv(MP_ENV_INLINE_SITES);
	char *end;
	unsigned long n = env && *env ? strtoul(env, &end, 10) : 0;
	return env && *env && !*end && n <= UINT_MAX ? (unsigned)n : kModuleInlineSites;
}

void limitModuleSites(ArrayRef<Instruction *> work, ArrayRef<HotLoop> hot, DenseSet<Instruction *> &cold,
		      DenseMap<Instruction *, unsigned> &inHot, const DenseSet<Instruction *> &inSmall,
		      unsigned budget)
{
	size_t inlined = work.size() - cold.size();
	if (inlined <= budget)
		return;
	DenseSet<unsigned> keep = keepDeepestLoops(work, hot, inHot, budget);
	for (Instruction *I : work) {
		if (cold.count(I) || inHot.count(I) || !inSmall.count(I))
			continue;
		if (budget)
			budget--;
		else
			cold.insert(I);
	}
	for (Instruction *I : work) {
		if (cold.count(I))
			continue;
		if (auto h = inHot.find(I); h != inHot.end()) {
			if (!keep.count(h->second)) {
				inHot.erase(h);
				cold.insert(I);
			}
		} else if (!inSmall.count(I)) {
			if (budget)
				budget--;
			else
				cold.insert(I);
		}
	}
}

/*
 * The sites call the runtime's preserve_most entries (rt_access.c) through
 * a local stub per module that jumps on through the GOT. Through the GOT:
 * the entry is bound at load time, because the dynamic linker's lazy-binding
 * stub keeps only the C convention's argument registers. Through a stub:
 * a call straight through the GOT is an indirect call, and the debug info
 * describes every indirect call (DW_TAG_call_site with its parameters:
 * 250,000 of them in SQLite's amalgamation, an object 30% larger),
 * where a direct call to a function without debug info gets none; the
 * direct call is also a byte shorter and needs no relocation.
 */
void callRuntimeLocally(Module &M)
{
	SmallVector<Function *, 4> entries;
	for (Function &F : M)
		if (F.isDeclaration() && F.getCallingConv() == CallingConv::PreserveMost &&
		    F.getName().startswith("__memprism_"))
			entries.push_back(&F);
	for (Function *F : entries) {
		F->addFnAttr(Attribute::NonLazyBind);
		Function *stub = Function::Create(F->getFunctionType(), GlobalValue::InternalLinkage,
						  F->getName() + ".local", M);
		stub->setCallingConv(CallingConv::PreserveMost);
		stub->addFnAttr(Attribute::NoInline);
		stub->addFnAttr(Attribute::NoUnwind);
		F->replaceUsesWithIf(stub, [&](Use &U) {
			auto *CB = dyn_cast<CallBase>(U.getUser());
			return CB && CB->isCallee(&U);
		});
		IRBuilder<> B(BasicBlock::Create(M.getContext(), "", stub));
		SmallVector<Value *, 4> args;
		for (Argument &A : stub->args())
			args.push_back(&A);
		CallInst *jump = B.CreateCall(F, args);
		jump->setCallingConv(CallingConv::PreserveMost);
		jump->setTailCallKind(CallInst::TCK_MustTail);
		B.CreateRetVoid();
	}
}

struct MemprismInstrument : PassInfoMixin<MemprismInstrument> {
	PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM)
	{
		FunctionAnalysisManager &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
		SmallVector<Instruction *, 256> work;
		SmallVector<MemIntrinsic *, 32> toLibc; // long constant mem* intrinsics, made calls
		DenseSet<Instruction *> cold; // sites that call the runtime instead of inlining
		SmallVector<HotLoop, 32> hot;
		DenseMap<Instruction *, unsigned> inHot; // site -> index in hot
		DenseSet<Instruction *> inSmall; // sites of functions of at most kInlineAllMaxSites
		SmallVector<std::pair<Function *, Function *>, 32> versioned; // (function, passive copy)
		SmallVector<Function *, 64> funcs;
		for (Function &F : M)
			if (!skipFunction(F))
				funcs.push_back(&F);
		for (Function *F : funcs) {
			size_t before = work.size();
			for (Instruction &I : instructions(*F)) {
				if (I.hasMetadata(LLVMContext::MD_nosanitize))
					continue;
				if (isa<LoadInst>(I) || isa<StoreInst>(I) || isa<AtomicRMWInst>(I) ||
				    isa<AtomicCmpXchgInst>(I) || inlineMemIntrinsic(I))
					work.push_back(&I);
				else if (longConstMemIntrinsic(I))
					toLibc.push_back(cast<MemIntrinsic>(&I));
			}
			unsigned sites = (unsigned)(work.size() - before);
			if (sites) {
				LoopInfo &LI = FAM.getResult<LoopAnalysis>(*F);
				DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(*F);
				size_t first = hot.size();
				// late passes leave loops without preheaders or dedicated exits;
				// give them back (a few empty blocks) so the state copy has a
				// place to be taken and written back
				for (Loop *L : LI)
					simplifyLoop(L, &DT, &LI, nullptr, nullptr, nullptr, false);
				for (Loop *L : LI)
					findHotLoops(L, hot);
				for (size_t k = before; k < work.size(); k++) {
					Loop *L = LI.getLoopFor(work[k]->getParent());
					if (!L && sites > kInlineAllMaxSites)
						cold.insert(work[k]);
					else if (sites <= kInlineAllMaxSites)
						inSmall.insert(work[k]);
					for (size_t h = first; L && h < hot.size(); h++)
						if (hot[h].loop->contains(L))
							inHot[work[k]] = (unsigned)h;
				}
				limitLoopSites(work, before, LI, hot, cold, inHot);
			}
			if (sites && worthVersioning(*F, sites))
				versioned.push_back({ F, makePassiveCopy(*F) });
		}
		if (work.empty())
			return PreservedAnalyses::all();
		unsigned budget = moduleInlineSites();
		size_t wanted = work.size() - cold.size();
		limitModuleSites(work, hot, cold, inHot, inSmall, budget);
		// over the bound, the _straight entries (rt_inline.c)
		std::string variant = wanted > budget ? "_straight" : "";
		if (wanted > budget) {
			OptimizationRemarkEmitter ORE(funcs.front(), nullptr);
			ORE.emit(OptimizationRemarkAnalysis(kPassName, "ModuleBudget", funcs.front())
				 << "module of " << std::to_string(work.size()) << " access sites, "
				 << std::to_string(wanted) << " to inline: "
				 << std::to_string(work.size() - cold.size()) << " inlined (at most "
				 << std::to_string(budget) << ", " MP_ENV_INLINE_SITES "), "
				 << std::to_string(cold.size()) << " call the runtime");
		}

		LLVMContext &C = M.getContext();
		const DataLayout &DL = M.getDataLayout();
		Type *ptrTy = PointerType::get(C, 0);
		Type *i32 = Type::getInt32Ty(C), *i64 = Type::getInt64Ty(C);
		FunctionCallee access = M.getOrInsertFunction(kAccessFn + variant, Type::getVoidTy(C), ptrTy, i32, i64, ptrTy);
		FunctionCallee coldAccess = M.getOrInsertFunction(kColdFn, Type::getVoidTy(C), ptrTy, i32, i64);
		// The runtime's entries keep every register but r11 on x86-64
		// (rt_access.c): a call costs its argument moves, no spills.
		Triple T(M.getTargetTriple());
		CallingConv::ID coldConv = T.getArch() == Triple::x86_64 ? CallingConv::PreserveMost : CallingConv::C;
		if (auto *fn = dyn_cast<Function>(coldAccess.getCallee()))
			fn->setCallingConv(coldConv);
		FunctionCallee loopAccess =
			M.getOrInsertFunction(kLoopAccessFn + variant, Type::getVoidTy(C), ptrTy, ptrTy, i32, i64, ptrTy);
		FunctionCallee enter = M.getOrInsertFunction(kEnterFn, Type::getVoidTy(C), ptrTy);
		FunctionCallee leave = M.getOrInsertFunction(kLeaveFn, Type::getVoidTy(C), ptrTy);
		FunctionCallee publish = M.getOrInsertFunction(kPublishFn, Type::getVoidTy(C), ptrTy);
		FunctionCallee epochCheck = M.getOrInsertFunction(kEpochCheckFn, Type::getVoidTy(C), ptrTy);
		FunctionCallee loopNoSync =
			M.getOrInsertFunction(kLoopNoSyncFn + variant, Type::getVoidTy(C), ptrTy, ptrTy, i32, i64, ptrTy);
		// the hot loops that got a site: their copy of the state, and the way in and out
		auto hotCopy = [&](unsigned h) {
			HotLoop &HL = hot[h];
			if (HL.copy)
				return HL.copy;
			Function *F = HL.loop->getHeader()->getParent();
			IRBuilder<> A(&*F->getEntryBlock().getFirstInsertionPt());
			HL.copy = A.CreateAlloca(ArrayType::get(Type::getInt8Ty(C), kHotSize), nullptr, "memprism.hot");
			HL.copy->setAlignment(Align(8));
			DebugLoc loc;
			if (DISubprogram *SP = F->getSubprogram())
				loc = DILocation::get(C, SP->getLine(), 0, SP);
			IRBuilder<> B(HL.loop->getLoopPreheader()->getTerminator());
			B.CreateCall(enter, { HL.copy })->setDebugLoc(loc);
			IRBuilder<>(&*HL.loop->getHeader()->getFirstInsertionPt())
				.CreateCall(publish, { HL.copy })
				->setDebugLoc(loc);
			if (HL.checkPerIteration)
				for (Loop *sub : HL.loop->getLoopsInPreorder())
					IRBuilder<>(&*sub->getHeader()->getFirstInsertionPt())
						.CreateCall(epochCheck, { HL.copy })
						->setDebugLoc(loc);
			// what was done, for `-Rpass=memprism` (tests/cli/test_inline.sh)
			OptimizationRemarkEmitter ORE(F, nullptr);
			ORE.emit(OptimizationRemark(kPassName, "HotLoop", HL.loop->getStartLoc(), HL.loop->getHeader())
				 << "recording state kept in registers; epoch checked "
				 << (HL.checkPerIteration ? "once per iteration" : "at every access"));
			SmallVector<BasicBlock *, 8> exits;
			HL.loop->getExitBlocks(exits);
			SmallPtrSet<BasicBlock *, 8> done;
			for (BasicBlock *E : exits)
				if (done.insert(E).second)
					IRBuilder<>(&*E->getFirstInsertionPt())
						.CreateCall(leave, { HL.copy })
						->setDebugLoc(loc);
			for (BasicBlock *BB : HL.loop->blocks())
				if (isa<ReturnInst>(BB->getTerminator()))
					IRBuilder<>(BB->getTerminator())
						.CreateCall(leave, { HL.copy })
						->setDebugLoc(loc);
			return HL.copy;
		};
		/*
		 * Code addresses. Each inlined site needs one, taken by a lea of the
		 * instruction pointer placed at the site with the site's debug
		 * location. Sites of one basic block on the same source line (same
		 * scope, same inlining) share the first one's, also when other
		 * lines' sites come between (an unrolled `v = a[i]; b[i] = v;`): the
		 * reports resolve code addresses to lines, so nothing is lost, and
		 * the loop's records keep to two code addresses.
		 *
		 * Ip slots (trace_format.h): each code address gets one of the
		 * record format's two, alternating in program order, so the two
		 * lines of a loop that loads and stores each find their ip where
		 * they left it and write a constant tag. A shared "last two" history
		 * has to compare twice and swap on every access: 10 instructions of
		 * the ~35 a random access's record costs with it.
		 */
		InlineAsm *takeIp = nullptr;
		if (T.getArch() == Triple::x86_64)
			takeIp = InlineAsm::get(FunctionType::get(ptrTy, false), "lea 0(%rip), $0",
						"=r,~{dirflag},~{fpsr},~{flags}", true);
		else if (T.getArch() == Triple::aarch64)
			takeIp = InlineAsm::get(FunctionType::get(ptrTy, false), "adr $0, .", "=r", true);
		using IpKey = std::tuple<const BasicBlock *, unsigned, const MDNode *, const MDNode *>;
		std::map<IpKey, Value *> ipOf;
		DenseMap<Value *, unsigned> ipSlot;
		unsigned nextSlot = 0;
		auto siteIp = [&](Instruction *I) {
			const DebugLoc &loc = I->getDebugLoc();
			IpKey key(I->getParent(), loc ? loc.getLine() : 0, loc ? loc.getScope() : nullptr,
				  loc ? loc.getInlinedAt() : nullptr);
			Value *&ip = ipOf[key];
			if (!ip) {
				ip = IRBuilder<>(I).CreateCall(takeIp);
				ipSlot[ip] = nextSlot;
				nextSlot ^= 1;
			}
			return ip;
		};
		auto emitBytes = [&](Instruction *I, Value *ptr, uint64_t bytes, unsigned write) {
			if (ptr->getType()->getPointerAddressSpace() != 0 || bytes == 0)
				return; // %fs/%gs-relative and other address spaces: not plain memory
			unsigned code = sizeCode(bytes);
			IRBuilder<> B(I); // takes I's debug location: the site symbolizes to I's line
			Value *args[] = { B.CreatePointerCast(ptr, ptrTy), ConstantInt::get(i32, code | write),
					  ConstantInt::get(i64, code == kRange ? bytes : 0) };
			if (cold.count(I) || !takeIp) {
				// the runtime takes the return address
				B.CreateCall(coldAccess, args)->setCallingConv(coldConv);
				return;
			}
			auto h = inHot.find(I);
			AllocaInst *copy = h != inHot.end() ? hotCopy(h->second) : nullptr;
			Value *ip = siteIp(I);
			B.SetInsertPoint(I); // hotCopy and siteIp may have added code before I
			if (ipSlot.lookup(ip))
				args[1] = ConstantInt::get(i32, code | write | kSlot1);
			if (copy)
				B.CreateCall(hot[h->second].checkPerIteration ? loopNoSync : loopAccess,
					     { copy, args[0], args[1], args[2], ip });
			else
				B.CreateCall(access, { args[0], args[1], args[2], ip });
		};
		auto emit = [&](Instruction *I, Value *ptr, Type *ty, unsigned write) {
			TypeSize ts = DL.getTypeStoreSize(ty);
			if (!ts.isScalable())
				emitBytes(I, ptr, ts.getFixedValue(), write);
		};
		for (Instruction *I : work) {
			if (auto *L = dyn_cast<LoadInst>(I)) {
				emit(I, L->getPointerOperand(), L->getType(), 0);
			} else if (auto *S = dyn_cast<StoreInst>(I)) {
				emit(I, S->getPointerOperand(), S->getValueOperand()->getType(), kWrite);
			} else if (auto *R = dyn_cast<AtomicRMWInst>(I)) {
				// a read-modify-write reads and writes: one load and one store, as
				// the ORMBP counts treat `a[i] += x`
				emit(I, R->getPointerOperand(), R->getValOperand()->getType(), 0);
				emit(I, R->getPointerOperand(), R->getValOperand()->getType(), kWrite);
			} else if (auto *X = dyn_cast<AtomicCmpXchgInst>(I)) {
				// recorded as a load and a store whether or not the exchange
				// happens: the locked instruction owns the line either way
				emit(I, X->getPointerOperand(), X->getNewValOperand()->getType(), 0);
				emit(I, X->getPointerOperand(), X->getNewValOperand()->getType(), kWrite);
			} else if (auto *T = dyn_cast<MemTransferInst>(I)) {
				// like the interposed memcpy: one ranged load, one ranged store
				uint64_t n = cast<ConstantInt>(T->getLength())->getZExtValue();
				emitBytes(I, T->getSource(), n, 0);
				emitBytes(I, T->getDest(), n, kWrite);
			} else if (auto *S = dyn_cast<MemSetInst>(I)) {
				emitBytes(I, S->getDest(), cast<ConstantInt>(S->getLength())->getZExtValue(), kWrite);
			}
		}

		for (MemIntrinsic *MI : toLibc)
			callLibcInstead(MI);

		auto *mark = cast<GlobalVariable>(M.getOrInsertGlobal(kAbiMark, i32));
		auto *ref = new GlobalVariable(M, ptrTy, true, GlobalValue::PrivateLinkage, mark, "memprism.abi");
		appendToCompilerUsed(M, { ref });
		if (!versioned.empty()) {
			auto *recording = cast<GlobalVariable>(M.getOrInsertGlobal(kRecordingVar, i32));
			for (auto &[F, passive] : versioned)
				dispatchToPassive(*F, passive, recording);
		}

		std::string path = inlineBitcodePath();
		SMDiagnostic err;
		std::unique_ptr<Module> inl = parseIRFile(path, err, C);
		if (!inl) {
			C.emitError("memprism: cannot read the inline access path " + path + ": " +
				    err.getMessage().str() +
				    " (reinstall memprism, or set " MP_ENV_INSTRUMENT "=sancov)");
			return PreservedAnalyses::none();
		}
		inl->setDataLayout(DL);
		inl->setTargetTriple(M.getTargetTriple());
		if (Linker::linkModules(M, std::move(inl), Linker::Flags::LinkOnlyNeeded)) {
			C.emitError("memprism: cannot link the inline access path " + path);
			return PreservedAnalyses::none();
		}
		callRuntimeLocally(M);
		// Make the linked definitions private to this module and inlinable into
		// code built for any CPU (the bitcode was built for the baseline one).
		for (Function &F : M) {
			if (!F.getName().startswith("__memprism_inl_") || F.isDeclaration())
				continue;
			F.setLinkage(GlobalValue::InternalLinkage);
			F.removeFnAttr(Attribute::NoInline);
			F.removeFnAttr(Attribute::OptimizeNone);
			F.addFnAttr(Attribute::AlwaysInline);
			F.removeFnAttr("target-cpu");
			F.removeFnAttr("target-features");
			F.removeFnAttr("tune-cpu");
		}
		return PreservedAnalyses::none();
	}
};

void addPasses(ModulePassManager &MPM, OptimizationLevel level)
{
	MPM.addPass(MemprismInstrument());
	MPM.addPass(AlwaysInlinerPass());
	if (level != OptimizationLevel::O0) {
		// fold the constant size codes into the inlined copies
		FunctionPassManager FPM;
		FPM.addPass(SROAPass(SROAOptions::ModifyCFG)); // hot loops' state copies into registers
		FPM.addPass(InstCombinePass());
		FPM.addPass(SimplifyCFGPass());
		MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
	}
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
	return { LLVM_PLUGIN_API_VERSION, kPassName, "0.1", [](PassBuilder &PB) {
			PB.registerOptimizerLastEPCallback(
				[](ModulePassManager &MPM, OptimizationLevel level) { addPasses(MPM, level); });
		} };
}
