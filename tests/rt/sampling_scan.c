/* test_sampling: a 4 MiB array (65,536 lines) read and written a line at
 * a time, pass after pass: a footprint the LLC holds, filled once in a
 * full run (65,536 DRAM reads) however many passes. Bursts see each line
 * in a few of them, some in one only. Args: MiB, passes. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	size_t n = (size_t)(argc > 1 ? atoi(argv[1]) : 4) << 20;
	int passes = argc > 2 ? atoi(argv[2]) : 40;
	volatile char *a = malloc(n);
	if (!a)
		return 1;
	long sum = 0;
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < n; i += 64) {
			sum += a[i];
			a[i] = (char)p;
		}
	printf("%ld\n", sum);
	free((void *)a);
	return 0;
}
