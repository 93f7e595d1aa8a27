// SPDX-License-Identifier: MIT
/*
 * Instrumentation gaps, measured. Each object gets REPS accesses of one kind
 * inside region "work"; test_holes.sh asserts what memprism records today, so
 * a change in coverage shows up as a test change. The asm memory clobbers
 * force every access to really happen (checked with objdump when written).
 *   @VEC   32-byte aligned heap block: REPS 32-byte AVX2 loads (vpaddq from
 *          memory) and REPS 32-byte AVX2 stores (vmovdqa), only when the CPU
 *          has AVX2 (the program prints "avx2 1" or "avx2 0")
 *   @V16   16-byte aligned heap block: REPS 16-byte SSE2 loads and stores,
 *          the size-16 control (sanitizer-coverage has a 16-byte callback)
 *   @ATOM  heap int: REPS __atomic_fetch_add (lock inc)
 *   @SRC / @DST  heap structs of 3 longs: REPS inline copies *dst = *src
 *          (clang: one 8-byte and one 16-byte move each way, no memcpy call)
 *   @CTRL  heap long: REPS plain volatile stores, the control
 */
#include <immintrin.h>
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 1000

struct triple {
	long a, b, c;
};

__attribute__((target("avx2"), noinline)) static long avx2_loop(__m256i *v)
{
	__m256i acc = _mm256_setzero_si256();
	for (int i = 0; i < REPS; i++) {
		acc = _mm256_add_epi64(acc, _mm256_load_si256(v)); /* 32-byte load */
		_mm256_store_si256(v + 1, acc); /* 32-byte store */
		__asm__ volatile("" ::: "memory");
	}
	return _mm256_extract_epi64(acc, 0);
}

__attribute__((noinline)) static long sse2_loop(__m128i *v)
{
	__m128i acc = _mm_setzero_si128();
	for (int i = 0; i < REPS; i++) {
		acc = _mm_add_epi64(acc, _mm_load_si128(v)); /* 16-byte load */
		_mm_store_si128(v + 1, acc); /* 16-byte store */
		__asm__ volatile("" ::: "memory");
	}
	return _mm_cvtsi128_si64(acc);
}

__attribute__((noinline)) static void copy_loop(struct triple *dst, struct triple *src)
{
	for (int i = 0; i < REPS; i++) {
		*dst = *src;
		__asm__ volatile("" ::: "memory");
	}
}

int main(void)
{
	int have_avx2 = __builtin_cpu_supports("avx2");
	__m256i *vec = aligned_alloc(32, 2 * sizeof(__m256i)); /* @VEC */
	__m128i *v16 = aligned_alloc(16, 2 * sizeof(__m128i)); /* @V16 */
	int *atom = malloc(sizeof(int)); /* @ATOM */
	struct triple *src = malloc(sizeof(*src)); /* @SRC */
	struct triple *dst = malloc(sizeof(*dst)); /* @DST */
	volatile long *ctrl = malloc(sizeof(long)); /* @CTRL */
	if (!vec || !v16 || !atom || !src || !dst || !ctrl)
		return 1;
	__builtin_memset(vec, 1, 2 * sizeof(__m256i));
	__builtin_memset(v16, 1, 2 * sizeof(__m128i));
	*atom = 0;
	*src = (struct triple){ 1, 2, 3 };
	long sum = 0;

	memprism_region_begin("work");
	if (have_avx2)
		sum += avx2_loop(vec);
	sum += sse2_loop(v16);
	for (int i = 0; i < REPS; i++)
		__atomic_fetch_add(atom, 1, __ATOMIC_RELAXED);
	copy_loop(dst, src);
	for (int i = 0; i < REPS; i++)
		*ctrl = i;
	memprism_region_end("work");

	printf("avx2 %d\n", have_avx2 ? 1 : 0);
	printf("checksum %ld %d %ld\n", sum, *atom, dst->c);
	return 0;
}
