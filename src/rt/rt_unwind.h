/* SPDX-License-Identifier: MIT */
/* Call stacks by the modules' unwind tables, with a per-thread cache of
 * rules (rt_unwind.c). Depends on nothing else of the runtime, so a unit
 * test can build it alone. */
#ifndef MP_RT_UNWIND_H
#define MP_RT_UNWIND_H

#include <stdint.h>

#define RT_UNWIND_CFA_RBP 1u /* CFA = rbp + cfa_off (else rsp + cfa_off) */
#define RT_UNWIND_RBP_SAVED 2u /* the caller's rbp at CFA + rbp_off (else unchanged) */
#define RT_UNWIND_RBP_LOST 4u /* the caller's rbp is not known */
#define RT_UNWIND_LAST 8u /* the outermost frame: no caller */

struct rt_unwind_rule {
	int32_t cfa_off;
	int16_t rbp_off;
	uint16_t flags; /* RT_UNWIND_* */
};

struct rt_unwind_slot {
	uint64_t ip; /* the return address the rule is for; 0: empty */
	struct rt_unwind_rule rule;
};

#define RT_UNWIND_CACHE_LOG2 11
#define RT_UNWIND_CACHE (1u << RT_UNWIND_CACHE_LOG2) /* slots per thread */

/*
 * The return addresses of the call stack whose innermost frame returns to
 * ip, with the stack pointer sp and rbp as they are after that return.
 * Reads only [lo, hi), the thread's stack. cache: RT_UNWIND_CACHE slots,
 * zeroed before first use, filled as rules are found. Returns how many of
 * max frames (OUT) were found; frames[0] is ip.
 */
int rt_unwind(struct rt_unwind_slot *cache, uint64_t ip, uint64_t sp, uint64_t bp, uint64_t lo, uint64_t hi,
	      uint64_t *frames, int max);

#endif
