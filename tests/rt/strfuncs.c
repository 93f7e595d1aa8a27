// SPDX-License-Identifier: MIT
/* Interposed string functions record the bytes their definitions touch, as
 * one ranged access per call. Built with -fno-builtin so the calls stay calls.
 * Expected bytes are worked out next to each call. */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char *a = malloc(64); /* @A */
	char *b = malloc(16); /* @B */
	if (!a || !b)
		return 1;
	strcpy(a, "hello"); /* outside the region */
	memprism_region_begin("work");
	strncpy(b, a, 16); /* a: 6 loaded; b: 16 stored */
	strcat(b, "xy"); /* b: 5 loaded, 3 stored at b+5 */
	int c = strncmp(a, b, 3); /* a, b: 3 loaded each */
	char *x = strchr(b, 'x'); /* b: 6 loaded (up to the match) */
	void *z = memchr(a, 'z', 10); /* a: 10 loaded (no match) */
	size_t n = strnlen(a, 64); /* a: 6 loaded */
	char *d = strdup(a); /* @D a: 6 loaded; d: 6 stored */
	char *e = strndup(b, 4); /* @E b: 4 loaded; e: 5 stored */
	memprism_region_end("work");
	printf("%d %td %p %zu %s %s\n", c, x - b, z, n, d, e);
	free(d);
	free(e);
	free(a);
	free(b);
	return 0;
}
