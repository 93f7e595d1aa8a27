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
 * Region "prenamed": a 1 KiB block is named in [256, 512), freed, and the
 * next malloc of its size gets its address back (glibc's tcache is LIFO);
 * the name outlives the block. One store to every int of the new block
 * (@BLK2), in address order. Expected: named before 64 stores, heap @BLK2
 * 192 stores (a block is primed into its thread's lookups at its malloc
 * only when nothing named covers it).
 *
 * Volatile pointers throughout: one source access, one recorded access.
 */
#include <memprism.h>
#include <stdint.h>
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
	free((void *)blk);

	char *old = malloc(1024);
	if (!old)
		return 1;
	memprism_object_name(old + 256, 256, "before");
	volatile uintptr_t was = (uintptr_t)old; /* (a freed pointer's value is not to be read) */
	free(old);
	volatile int *blk2 = malloc(1024); /* @BLK2 */
	if ((uintptr_t)blk2 != was) {
		printf("the block's address did not come back\n");
		return 1;
	}
	memprism_region_begin("prenamed");
	for (int i = 0; i < 256; i++)
		blk2[i] = i;
	memprism_region_end("prenamed");
	free((void *)blk2);
	printf("checksum %ld\n", sum);
	return 0;
}
