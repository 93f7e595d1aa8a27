// SPDX-License-Identifier: MIT
/*
 * A 2 MiB-aligned block of N MiB asked to live in transparent huge pages
 * (madvise), written once, then read one byte per 4 KiB page inside region
 * "scan". Prints how much of it the kernel backed with huge pages
 * (AnonHugePages of its mapping in /proc/self/smaps), so a test can tell
 * whether THP was available.
 * Usage: thp [MiB, default 16]
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16, len = mib << 20;
	char *raw = mmap(NULL, len + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED || len == 0)
		return 1;
	char *block = (char *)(((unsigned long)raw + (2u << 20) - 1) & ~((2ul << 20) - 1));
	madvise(block, len, MADV_HUGEPAGE);
	memset(block, 1, len);
	long sum = 0;
	memprism_region_begin("scan");
	for (size_t p = 0; p < len; p += 4096)
		sum += ((volatile char *)block)[p];
	memprism_region_end("scan");
	/* how much of the block is in huge pages */
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	unsigned long lo = 0, hi = 0, huge_kb = 0;
	int in = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && strchr(line, ' ') && line[strcspn(line, " ")] == ' ' &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = a <= (unsigned long)block && (unsigned long)block < b;
			lo = a;
			hi = b;
			continue;
		}
		unsigned long kb;
		if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			huge_kb = kb;
	}
	if (f)
		fclose(f);
	(void)lo;
	(void)hi;
	printf("thp: %zu MiB, %lu KiB in huge pages, sum %ld\n", mib, huge_kb, sum);
	return 0;
}
