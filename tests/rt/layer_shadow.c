// SPDX-License-Identifier: MIT
/*
 * Objects inside objects: a lookup must return the highest-priority object
 * at the address (user-named > heap/static/stack > mmaps/sections >
 * start-up mappings), whatever the previous access hit.
 *
 * Region "named": a 1024-int heap block (@BLK) whose ints [256, 512) are
 * named "middle"; one store to every int, in address order. Expected: named
 * middle 256 stores, heap @BLK 768 stores.
 *
 * Region "section": one load from a string literal (in .rodata, no symbol of
 * its own: the "section shadow .rodata" row), then one load from each of the
 * 64 bytes of the static const table lut (also in .rodata). Expected: static
 * lut 64 loads, the section 1 load.
 *
 * Volatile pointers throughout: one source access, one recorded access.
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

static const char lut[64] = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01";

int main(void)
{
	volatile int *blk = malloc(1024 * sizeof(int)); /* @BLK */
	if (!blk)
		return 1;
	memprism_object_name((const void *)(blk + 256), 256 * sizeof(int), "middle");
	memprism_region_begin("named");
	for (int i = 0; i < 1024; i++)
		blk[i] = i;
	memprism_region_end("named");

	const volatile char *s = "a string literal";
	const volatile char *l = lut;
	long sum = 0;
	memprism_region_begin("section");
	sum += s[0];
	for (int i = 0; i < 64; i++)
		sum += l[i];
	memprism_region_end("section");
	printf("checksum %ld\n", sum);
	free((void *)blk);
	return 0;
}
