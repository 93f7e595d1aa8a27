// SPDX-License-Identifier: MIT
/*
 * Static objects: a global int table[1000] (.bss), a file-static
 * double vec[512] (.bss) and a const lookup table in .rodata. Every access to
 * them inside region "work" goes through a volatile pointer, so each source
 * access is exactly one load or store:
 *   table: 1000 stores, then 2 x 1000 loads         -> 2000 loads, 1000 stores
 *   vec:   512 stores, then 256 loads (even slots)  ->  256 loads,  512 stores
 *   lut:   300 loads (index i % 256)                ->  300 loads,    0 stores
 * Loop counters and the checksum live in registers; the checksum is printed.
 */
#include <memprism.h>
#include <stdio.h>

int table[1000];
static double vec[512];
static const unsigned char lut[256] = {
#define R16(b) b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12, b + 13, b + 14, b + 15
	R16(1), R16(17), R16(33), R16(49), R16(65), R16(81), R16(97), R16(113),
	R16(129), R16(145), R16(161), R16(177), R16(193), R16(209), R16(225), 241, 242, 243, 244, 245, 246, 247, 248,
	249, 250, 251, 252, 253, 254, 255, 0,
};

int main(void)
{
	volatile int *t = table;
	volatile double *v = vec;
	const volatile unsigned char *l = lut;
	long sum = 0;
	double dsum = 0;

	memprism_region_begin("work");
	for (int i = 0; i < 1000; i++)
		t[i] = i;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 1000; i++)
			sum += t[i];
	for (int i = 0; i < 512; i++)
		v[i] = i * 0.5;
	for (int i = 0; i < 512; i += 2)
		dsum += v[i];
	for (int i = 0; i < 300; i++)
		sum += l[i % 256];
	memprism_region_end("work");

	printf("checksum %ld %.1f\n", sum, dsum);
	return 0;
}
