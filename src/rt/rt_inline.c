// SPDX-License-Identifier: MIT
/*
 * The access path that inline instrumentation puts at every load and store.
 * Not part of libmemprism-rt.so: it is compiled to LLVM bitcode, and the
 * memprism pass plugin (src/pass/) links it into each instrumented module
 * and inlines it there, so a recorded access costs a few instructions
 * instead of a call, and a program that is not being recorded pays one
 * compare. It reaches the runtime's state through the symbols rt_int.h
 * exports as __memprism_*.
 */
#include "rt/rt_int.h"

/* The code address of this access: the instruction after the lea, in the
 * inlined copy (each site has its own). Symbolized as ip - 1, it lands on
 * the lea, which carries the access's debug location. */
static inline __attribute__((always_inline)) void *here(void)
{
	void *ip;
#if defined(__x86_64__)
	__asm__ volatile("lea 0(%%rip), %0" : "=r"(ip));
#elif defined(__aarch64__)
	__asm__ volatile("adr %0, ." : "=r"(ip));
	ip = (char *)ip + 4;
#else
	ip = __builtin_return_address(0);
#endif
	return ip;
}

static inline struct rt_hot *self_hot(void)
{
	return (struct rt_hot *)&rt_self; /* its head (rt_int.h asserts the layout) */
}

/* code: size code | MP_ACC_WRITE, as the sanitizer-coverage callbacks pass
 * it; len only for MP_SIZE_RANGE. */
RT_EXPORT void __memprism_inl_access(void *addr, unsigned code, uint64_t len)
{
	void *ip = here();
	if (RT_UNLIKELY(rt_hot_record(self_hot(), addr, code, ip)))
		rt_access_out(addr, code, len, ip);
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

RT_EXPORT void __memprism_inl_access_loop(struct rt_hot *h, void *addr, unsigned code, uint64_t len)
{
	void *ip = here();
	if (RT_LIKELY(!rt_hot_record(h, addr, code, ip)))
		return;
	__memprism_inl_leave(h);
	rt_access_out(addr, code, len, ip);
	__memprism_inl_enter(h);
}
