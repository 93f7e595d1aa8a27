// SPDX-License-Identifier: MIT
/* A heap buffer that the program fills and zlib (a library memprism cc
 * did not build) reads: compress() of 64 KiB, argv[1] times (default
 * once), so that zlib takes most of the program's CPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

int main(int argc, char **argv)
{
	enum { N = 1 << 16 };
	unsigned char *in = malloc(N); /* @IN */
	unsigned char *out = malloc(compressBound(N));
	if (!in || !out)
		return 1;
	for (int i = 0; i < N; i++)
		in[i] = (unsigned char)(i / 7);
	long times = argc > 1 ? atol(argv[1]) : 1;
	uLongf n = 0;
	for (long k = 0; k < times; k++) {
		n = compressBound(N);
		if (compress(out, &n, in, N) != Z_OK)
			return 1;
	}
	printf("compressed %d bytes into %lu\n", N, (unsigned long)n);
	return 0;
}
