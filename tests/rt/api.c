// SPDX-License-Identifier: MIT
/*
 * The <memprism.h> API, with exact counts (volatile pointers throughout).
 *
 * Region "work" is opened twice. First span:
 *   - blk: 1024 ints at @BLK; ints [256, 512) are named "middle" with
 *     memprism_object_name. One store to every int, then 100 loads of ints
 *     [0, 100):  named middle: 256 stores; heap @BLK: 768 stores + 100 loads.
 *   - 1000 nodes of 16 bytes malloc'd at @NODE between
 *     memprism_group_begin("nodes") and memprism_group_end() (allocated
 *     before the region; the pointer array is a static). Two long stores
 *     and one long load per node: row "group nodes", instances 1000,
 *     2000 stores + 1000 loads. No @NODE heap row.
 *   - a malloc at @AFTER, after group_end: an ordinary heap row.
 *   - x (@X, 64 ints): 50 stores.
 * Between the spans: 70 stores to x (outside the region).
 * Second span: 30 stores to x, 5 stores to the @AFTER block.
 * So with --roi work: x has 80 stores; without: 150.
 */
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES 1000

struct node {
	long key, val;
};

static struct node *nodes[NODES];

int main(void)
{
	volatile int *blk = malloc(1024 * sizeof(int)); /* @BLK */
	volatile int *x = malloc(64 * sizeof(int)); /* @X */
	if (!blk || !x)
		return 1;
	memprism_object_name((const void *)(blk + 256), 256 * sizeof(int), "middle");
	memprism_group_begin("nodes");
	for (int i = 0; i < NODES; i++) {
		nodes[i] = malloc(sizeof(struct node)); /* @NODE */
		if (!nodes[i])
			return 1;
	}
	memprism_group_end();
	volatile int *after = malloc(16 * sizeof(int)); /* @AFTER */
	if (!after)
		return 1;
	long sum = 0;

	memprism_region_begin("work");
	for (int i = 0; i < 1024; i++)
		blk[i] = i;
	for (int i = 0; i < 100; i++)
		sum += blk[i];
	for (int i = 0; i < NODES; i++) {
		volatile struct node *n = nodes[i];
		n->key = i;
		n->val = 2 * i;
		sum += n->val;
	}
	for (int i = 0; i < 16; i++)
		after[i] = i;
	for (int i = 0; i < 50; i++)
		x[i] = i;
	memprism_region_end("work");

	for (int i = 0; i < 70; i++)
		x[i % 64] = i;

	memprism_region_begin("work");
	for (int i = 0; i < 30; i++)
		x[i] = -i;
	for (int i = 0; i < 5; i++)
		after[i] = -i;
	memprism_region_end("work");

	printf("checksum %ld\n", sum);
	return 0;
}
