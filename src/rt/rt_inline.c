// SPDX-License-Identifier: MIT
/*
 * The access path that inline instrumentation puts at every load and store.
 * Not part of libmemprism-rt.so: it is compiled to LLVM bitcode, and the
 * memprism pass plugin (src/pass/) links it into each instrumented module
 * and inlines it there, so a recorded access costs a few instructions
 * instead of a call (a program that is not being recorded runs the
 * uninstrumented copies the pass makes of its loops). It reaches the runtime's state through the symbols rt_int.h
 * exports as __memprism_*.
 */
#include "rt/rt_int.h"

/*
 * The thread's own state, to be read afresh. The compiler believes that
 * malloc touches no memory the program can see, and that memcpy touches
 * only its arguments; here both are memprism's hooks, which record into
 * this state. The empty asm with a memory clobber keeps the passes that run
 * after inlining from reusing a value of the state read or written before
 * such a call.
 */
static inline struct rt_hot *self_hot(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct rt_hot *)&rt_self; /* its head (rt_int.h asserts the layout) */
}

/* code: size code | MP_ACC_WRITE, as the sanitizer-coverage callbacks pass
 * it; len only for MP_SIZE_RANGE. ip: the code address the pass took for
 * the site (a lea of the instruction pointer, carrying the access's debug
 * location; symbolized as ip - 1, it lands on the lea). */
static inline __attribute__((always_inline)) void record_access(void *addr, unsigned code, uint64_t len, void *ip,
								 int straight)
{
	if (RT_UNLIKELY(rt_hot_record(self_hot(), addr, code, ip, 1, straight)))
		rt_access_out(addr, code, len, ip);
}

RT_EXPORT void __memprism_inl_access(void *addr, unsigned code, uint64_t len, void *ip)
{
	record_access(addr, code, len, ip, 0);
}

/* The _straight entries: the sites of a module with more sites than it
 * inlines (src/pass, limitModuleSites) write only the records of an ip in
 * its slot; the general encoder is the runtime's. */
RT_EXPORT void __memprism_inl_access_straight(void *addr, unsigned code, uint64_t len, void *ip)
{
	record_access(addr, code, len, ip, 1);
}

/*
 * Loops: the pass gives a loop without calls a copy of the hot state (h, a
 * local the optimizer keeps in registers), taken on entry and written back
 * on every way out, so consecutive accesses do not pass the cursor and the
 * delta bases through memory. Whatever leaves the fast path writes the copy
 * back first and takes a fresh one after.
 */
RT_EXPORT void __memprism_inl_enter(struct rt_hot *h)
{
	*h = *self_hot();
}

RT_EXPORT void __memprism_inl_leave(struct rt_hot *h)
{
	struct rt_hot *t = self_hot();
	t->last_addr = h->last_addr;
	t->last_ip = h->last_ip;
	t->prev_ip = h->prev_ip;
	t->naccess = h->naccess;
	__atomic_store_n(&t->p, h->p, __ATOMIC_RELEASE);
}

/* At the top of each iteration: the thread's cursor catches up with the
 * copy's, so that a crash inside a long loop (rt_flush_all at a fatal
 * signal takes the records up to the thread's cursor) loses at most the
 * records of the iteration it happened in. */
RT_EXPORT void __memprism_inl_publish(struct rt_hot *h)
{
	struct rt_hot *t = (struct rt_hot *)&rt_self;
	__atomic_signal_fence(__ATOMIC_RELEASE);
	t->p = h->p;
}

static inline __attribute__((always_inline)) void record_access_loop(struct rt_hot *h, void *addr, unsigned code,
							     uint64_t len, void *ip, int check_epoch, int straight)
{
	if (RT_LIKELY(!rt_hot_record(h, addr, code, ip, check_epoch, straight)))
		return;
	__memprism_inl_leave(h);
	rt_access_out_c(addr, code, len, ip);
	__memprism_inl_enter(h);
}

RT_EXPORT void __memprism_inl_access_loop(struct rt_hot *h, void *addr, unsigned code, uint64_t len, void *ip)
{
	record_access_loop(h, addr, code, len, ip, 1, 0);
}

RT_EXPORT void __memprism_inl_access_loop_straight(struct rt_hot *h, void *addr, unsigned code, uint64_t len,
						   void *ip)
{
	record_access_loop(h, addr, code, len, ip, 1, 1);
}

/*
 * Loops that do no atomic, volatile or fenced access: the pass checks the
 * epoch (another thread's allocation event) at the top of every iteration
 * of every loop of the nest instead of at each access. Such a loop cannot
 * see what another thread did after the check without a data race, so its
 * accesses order against other threads' events as well as per-access
 * checks would. A changed epoch sends the next access down the slow path,
 * which writes the epoch record: the copy's limit is what every access
 * checks, and _enter takes the real one back.
 */
RT_EXPORT void __memprism_inl_epoch_check(struct rt_hot *h)
{
	if (RT_UNLIKELY(atomic_load_explicit(&rt_epoch, memory_order_relaxed) != h->epoch))
		h->lim = NULL;
}

RT_EXPORT void __memprism_inl_access_loop_nosync(struct rt_hot *h, void *addr, unsigned code, uint64_t len,
						 void *ip)
{
	record_access_loop(h, addr, code, len, ip, 0, 0);
}

RT_EXPORT void __memprism_inl_access_loop_nosync_straight(struct rt_hot *h, void *addr, unsigned code,
							  uint64_t len, void *ip)
{
	record_access_loop(h, addr, code, len, ip, 0, 1);
}
