// SPDX-License-Identifier: MIT
/*
 * Blocks that libraries allocate for the program (tests/cli/test_libstacks.sh):
 * zlib's deflate state and buffers, the string asprintf returns, a FILE and
 * its buffer (fopen, then fread on the same line). Debian builds zlib and
 * libc without frame pointers; each block's site must still be the line of
 * main that called the library. Nothing else allocates (no stdio output).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int main(void)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	int z = deflateInit(&zs, 6); /* @DEFLATE */
	char *s = NULL;
	int n = asprintf(&s, "pid %d", (int)getpid()); /* @ASPRINTF */
	char buf[64];
	FILE *f = fopen("/proc/self/stat", "r"); size_t got = f ? fread(buf, 1, sizeof(buf), f) : 0; /* @FOPEN */
	return (z != Z_OK) + (n <= 0) + (got == 0);
}
