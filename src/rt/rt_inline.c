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

/* code: size code | MP_ACC_WRITE, as the sanitizer-coverage callbacks pass
 * it; len only for MP_SIZE_RANGE. */
RT_EXPORT void __memprism_inl_access(void *addr, unsigned code, uint64_t len)
{
	rt_access_inline(addr, code, len, here());
}
