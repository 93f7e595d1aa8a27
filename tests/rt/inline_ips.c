// SPDX-License-Identifier: MIT
/*
 * Code addresses of inline sites (tests/cli/test_inline.sh): each array and
 * direction below is read or written from one source line only, so every
 * access to it must carry that line's one code address, inside the right
 * function, however the records name it (a fixed ip slot, the last-two
 * history, or an ip delta).
 *   two():   one load line and one store line, unrolled by the compiler
 *            (they must still share two code addresses);
 *   three(): three lines in a loop, more than the two slots hold;
 *   far():   random jumps over 32 MiB (ACCESS_FAR records) from two lines;
 *   wide():  three lines 20 KB of code apart: ip deltas too long for a
 *            two-byte varint.
 */
#include <stdio.h>

#define N 10000
#define BIG (1u << 22)

long a1[N], b1[N], a2[N], b2[N], c2[N], a3[N], b3[N], c3[N], big[BIG];

__attribute__((noinline)) void two(void)
{
#pragma clang loop vectorize(disable) unroll_count(4)
	for (int i = 0; i < N; i++) {
		long v = a1[i];
		b1[i] = v + i;
	}
}

__attribute__((noinline)) void three(void)
{
#pragma clang loop vectorize(disable) unroll(disable)
	for (int i = 0; i < N; i++) {
		long x = a2[i];
		long y = b2[N - 1 - i];
		c2[i] = x * y + 1;
	}
}

__attribute__((noinline)) void far(void)
{
	unsigned long r = 12345;
#pragma clang loop vectorize(disable) unroll(disable)
	for (int i = 0; i < N; i++) {
		r = r * 6364136223846793005ul + 1442695040888963407ul;
		unsigned long k = (r >> 20) & (BIG - 1);
		long v = big[k];
		big[k] = v + 1;
	}
}

/* 20,000 bytes of code, jumped over */
#define SKIP_CODE __asm__ volatile("jmp 1f\n.skip 20000, 0x90\n1:")

__attribute__((noinline)) void wide(void)
{
#pragma clang loop vectorize(disable) unroll(disable)
	for (int i = 0; i < N; i++) {
		long x = a3[i];
		SKIP_CODE;
		long y = b3[i];
		SKIP_CODE;
		c3[i] = x + y;
	}
}

int main(void)
{
	two();
	three();
	far();
	wide();
	two();
	printf("%ld %ld %ld\n", b1[N - 1], c2[0], big[7]);
	return 0;
}
