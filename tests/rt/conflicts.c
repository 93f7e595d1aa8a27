// SPDX-License-Identifier: MIT
/*
 * Cache-set conflicts (report --model, "what to change"): a matrix of R
 * rows of C doubles (default 256 x 1024: rows of 8 KiB) summed column by
 * column in region "columns". With rows a multiple of 4 KiB apart, a
 * column's lines all fall in one set of a 64-set L1, whose 8 ways cannot
 * keep a column's lines for the next 7 columns: every access misses. With
 * P extra doubles per row (third argument: 8 makes rows one line longer),
 * the lines spread over every set and a line comes into L1 once.
 * Usage: conflicts [R rows] [C columns] [P padding doubles]
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	size_t rows = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	size_t cols = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
	size_t pad = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
	size_t stride = cols + pad;
	volatile double *m = aligned_alloc(4096, (rows * stride * sizeof(double) + 4095) & ~(size_t)4095);
	if (!m || rows == 0 || cols == 0) {
		fprintf(stderr, "conflicts: bad size or no memory\n");
		return 1;
	}
	for (size_t i = 0; i < rows * stride; i++)
		m[i] = (double)(i % 7);
	double sum = 0;
	memprism_region_begin("columns");
	for (size_t j = 0; j < cols; j++)
		for (size_t i = 0; i < rows; i++)
			sum += m[i * stride + j];
	memprism_region_end("columns");
	printf("conflicts: %zu x %zu (+%zu), sum %.0f\n", rows, cols, pad, sum);
	return 0;
}
