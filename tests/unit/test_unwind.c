// SPDX-License-Identifier: MIT
/* The runtime's unwinder (src/rt/rt_unwind.c) against glibc's backtrace(),
 * which unwinds by the same tables through libgcc: the same return
 * addresses, frame for frame, through callers without frame pointers
 * (unwind_chain.c) and through libc's qsort; the same again from the cache;
 * a cut at max frames and at the stack's upper bound; an ip in no object. */
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "rt/rt_unwind.h"

int chain(int x);
int sort_and_grab(void);

static struct rt_unwind_slot cache[RT_UNWIND_CACHE];
static uint64_t lo, hi;
static uint64_t ours[64];
static void *theirs[64];
static int nours, ntheirs, max_frames = 64;
static uint64_t cut_hi;

/* Called from the chains: unwinds from its caller's state after the return
 * (built, as the whole tree, with frame pointers: rsp = fp + 16, rbp saved
 * at fp). */
__attribute__((noinline)) int grab(void)
{
	uint64_t *fp = __builtin_frame_address(0);
	uint64_t ret = (uint64_t)__builtin_return_address(0);
	nours = rt_unwind(cache, ret, (uint64_t)(fp + 2), fp[0], lo, cut_hi ? cut_hi : hi, ours, max_frames);
	ntheirs = backtrace(theirs, 64) - 1; /* theirs[0] is in grab itself */
	return nours;
}

static int same_as_backtrace(void)
{
	if (nours != ntheirs)
		return 0;
	for (int i = 0; i < nours; i++)
		if (ours[i] != (uint64_t)theirs[i + 1])
			return 0;
	return 1;
}

int main(void)
{
	pthread_attr_t a;
	void *addr;
	size_t sz;
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &sz);
	pthread_attr_destroy(&a);
	lo = (uint64_t)addr;
	hi = lo + sz;

	/* c3, c2, chain, main, __libc_start_call_main, __libc_start_main, _start */
	chain(1);
	CHECK(same_as_backtrace());
	CHECK_EQ(nours, 7);
	chain(2); /* from the cache */
	CHECK(same_as_backtrace());
	uint64_t first[64];
	memcpy(first, ours, sizeof(first));

	/* through qsort: cmp, msort_with_tmp (libc, several), qsort, ... */
	sort_and_grab();
	CHECK(same_as_backtrace());
	CHECK(nours > 7);

	/* at most 3 frames */
	max_frames = 3;
	chain(3);
	CHECK_EQ(nours, 3);
	CHECK(!memcmp(ours, first, 3 * sizeof(uint64_t)));
	max_frames = 64;

	/* the stack's upper bound below main's frame: nothing is read above
	 * it, so the walk ends inside the chain (whose return addresses are
	 * those of every call; main's differs from call to call) */
	uint64_t here = (uint64_t)__builtin_frame_address(0);
	cut_hi = here - 64;
	chain(4);
	CHECK(nours >= 1 && nours < 7);
	CHECK(!memcmp(ours, first, (size_t)(nours < 3 ? nours : 3) * sizeof(uint64_t)));
	cut_hi = 0;

	/* an ip in no loaded object: itself, and nothing read */
	uint64_t f[4];
	CHECK_EQ(rt_unwind(cache, 0x1000, lo + 64, 0, lo, hi, f, 4), 1);
	CHECK_EQ(f[0], 0x1000);
	return check_done("test_unwind");
}
