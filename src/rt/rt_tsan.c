// SPDX-License-Identifier: MIT
/*
 * gcc builds (`memprism gcc`): gcc has no sanitizer-coverage loads and
 * stores, but its ThreadSanitizer instrumentation (-fsanitize=thread at
 * compile time) calls __tsan_readN and __tsan_writeN before every load and
 * store, __tsan_read_range/__tsan_write_range for block copies, and
 * __tsan_atomic* in place of every atomic operation. The runtime defines
 * that ABI itself (libtsan is never linked: `memprism gcc` puts a linker
 * script named libtsan.so first on the library path, record/cc_driver.c):
 * each call records the access as the sanitizer-coverage callbacks do, and
 * the atomics do what they stand for, sequentially consistent whatever
 * order was asked (a stronger order is always a correct one).
 */
#include <pthread.h>
#include <stdint.h>

#include "rt/rt_int.h"

#define RA() __builtin_return_address(0)

RT_EXPORT void __tsan_init(void)
{
}

/* --param=tsan-instrument-func-entry-exit=0 (memprism gcc) drops these;
 * objects built otherwise still link */
RT_EXPORT void __tsan_func_entry(void *pc)
{
	(void)pc;
}

RT_EXPORT void __tsan_func_exit(void)
{
}

#define TSAN_RW(n, code)                                                                               \
	RT_EXPORT void __tsan_read##n(void *a) { rt_access(a, code, 0, RA()); }                        \
	RT_EXPORT void __tsan_write##n(void *a) { rt_access(a, (code) | MP_ACC_WRITE, 0, RA()); }      \
	RT_EXPORT void __tsan_unaligned_read##n(void *a) { rt_access(a, code, 0, RA()); }              \
	RT_EXPORT void __tsan_unaligned_write##n(void *a) { rt_access(a, (code) | MP_ACC_WRITE, 0, RA()); } \
	RT_EXPORT void __tsan_volatile_read##n(void *a) { rt_access(a, code, 0, RA()); }               \
	RT_EXPORT void __tsan_volatile_write##n(void *a) { rt_access(a, (code) | MP_ACC_WRITE, 0, RA()); }

TSAN_RW(1, 0)
TSAN_RW(2, 1)
TSAN_RW(4, 2)
TSAN_RW(8, 3)
TSAN_RW(16, 4)

/*
 * Where the gcc plugin's inline path (src/pass/mp_gcc_plugin.cpp) hands an
 * access over: what its straight path does not write (another ip than the
 * one in the site's slot, the epoch changed, a full buffer, a burst's end).
 * code carries RT_CODE_SLOT1 as the LLVM pass's sites do, and ip is the
 * site's own code address: the general path puts it into the site's slot,
 * so the site's next access takes the straight path again (the callbacks'
 * last-two history would put every ip in slot 0).
 */
RT_EXPORT void __memprism_gcc_access(void *addr, unsigned code, void *ip)
{
	if (rt_hot_record((struct rt_hot *)&rt_self, addr, code, ip, 1, 0)) {
		if (RT_UNLIKELY(rt_passive) && !rt_self.buf && !rt_tool_accesses) {
			rt_passive_scratch(&rt_self); /* (a process that records nothing) */
			return;
		}
		rt_access_handover(addr, code, 0, ip);
	}
}

/* A long range (4 KiB or more) makes its chunk not plain (rt_access.c, range_done). */
static inline void range(void *a, unsigned long n, unsigned code, void *ip)
{
	if (!n)
		return;
	rt_access(a, code | MP_SIZE_RANGE, n, ip);
	if (n >= 4096)
		rt_self.chunk_plain = 0;
}

RT_EXPORT void __tsan_read_range(void *a, unsigned long n)
{
	range(a, n, 0, RA());
}

RT_EXPORT void __tsan_write_range(void *a, unsigned long n)
{
	range(a, n, MP_ACC_WRITE, RA());
}

/* C++: the vtable pointer's stores and loads in constructors and calls */
RT_EXPORT void __tsan_vptr_update(void **p, void *v)
{
	(void)v;
	rt_access(p, 3 | MP_ACC_WRITE, 0, RA());
}

RT_EXPORT void __tsan_vptr_read(void **p)
{
	rt_access(p, 3, 0, RA());
}

/* Atomics: a load is a load, a store a store, a read-modify-write both. */
#define SC __ATOMIC_SEQ_CST
#define TSAN_ATOMIC(n, T, code)                                                                              \
	RT_EXPORT T __tsan_atomic##n##_load(const volatile T *a, int mo)                                     \
	{                                                                                                    \
		(void)mo;                                                                                    \
		rt_access((void *)a, code, 0, RA());                                                         \
		return __atomic_load_n(a, SC);                                                               \
	}                                                                                                    \
	RT_EXPORT void __tsan_atomic##n##_store(volatile T *a, T v, int mo)                                  \
	{                                                                                                    \
		(void)mo;                                                                                    \
		rt_access((void *)a, (code) | MP_ACC_WRITE, 0, RA());                                        \
		__atomic_store_n(a, v, SC);                                                                  \
	}                                                                                                    \
	TSAN_RMW(n, T, code, exchange, __atomic_exchange_n)                                                  \
	TSAN_RMW(n, T, code, fetch_add, __atomic_fetch_add)                                                  \
	TSAN_RMW(n, T, code, fetch_sub, __atomic_fetch_sub)                                                  \
	TSAN_RMW(n, T, code, fetch_and, __atomic_fetch_and)                                                  \
	TSAN_RMW(n, T, code, fetch_or, __atomic_fetch_or)                                                    \
	TSAN_RMW(n, T, code, fetch_xor, __atomic_fetch_xor)                                                  \
	TSAN_RMW(n, T, code, fetch_nand, __atomic_fetch_nand)                                                \
	RT_EXPORT int __tsan_atomic##n##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo)  \
	{                                                                                                    \
		(void)mo, (void)fmo;                                                                         \
		rt_access((void *)a, code, 0, RA());                                                         \
		rt_access((void *)a, (code) | MP_ACC_WRITE, 0, RA());                                        \
		return __atomic_compare_exchange_n(a, c, v, 0, SC, SC);                                      \
	}                                                                                                    \
	RT_EXPORT int __tsan_atomic##n##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo)    \
	{                                                                                                    \
		(void)mo, (void)fmo;                                                                         \
		rt_access((void *)a, code, 0, RA());                                                         \
		rt_access((void *)a, (code) | MP_ACC_WRITE, 0, RA());                                        \
		return __atomic_compare_exchange_n(a, c, v, 1, SC, SC);                                      \
	}                                                                                                    \
	RT_EXPORT T __tsan_atomic##n##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)        \
	{                                                                                                    \
		(void)mo, (void)fmo;                                                                         \
		rt_access((void *)a, code, 0, RA());                                                         \
		rt_access((void *)a, (code) | MP_ACC_WRITE, 0, RA());                                        \
		__atomic_compare_exchange_n(a, &c, v, 0, SC, SC);                                            \
		return c;                                                                                    \
	}

#define TSAN_RMW(n, T, code, op, builtin)                                           \
	RT_EXPORT T __tsan_atomic##n##_##op(volatile T *a, T v, int mo)              \
	{                                                                           \
		(void)mo;                                                           \
		rt_access((void *)a, code, 0, RA());                                \
		rt_access((void *)a, (code) | MP_ACC_WRITE, 0, RA());               \
		return builtin(a, v, SC);                                           \
	}

TSAN_ATOMIC(8, uint8_t, 0)
TSAN_ATOMIC(16, uint16_t, 1)
TSAN_ATOMIC(32, uint32_t, 2)
TSAN_ATOMIC(64, uint64_t, 3)

RT_EXPORT void __tsan_atomic_thread_fence(int mo)
{
	(void)mo;
	__atomic_thread_fence(SC);
}

RT_EXPORT void __tsan_atomic_signal_fence(int mo)
{
	(void)mo;
	__atomic_signal_fence(SC);
}
