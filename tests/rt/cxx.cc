// SPDX-License-Identifier: MIT
/*
 * C++ allocations: new int[N] (@ARR), new Node (@NODE, a plain struct, no
 * constructor stores) and delete. operator new is an allocation wrapper: the
 * rows must name main's lines, "heap main (cxx.cc:LINE)". Inside region
 * "work", through volatile pointers:
 *   arr:  1000 int stores, then 1000 int loads      (4000 bytes each way)
 *   node: 3 long stores per pass x 100 passes = 300 stores,
 *         1 long load per pass x 100 passes   = 100 loads
 *   node2 (@NODE2, a second new Node in a loop of 10, linked into a list):
 *         10 instances; walking the list stores value (volatile) and loads
 *         next once per node: 10 stores, 10 loads.
 * Everything is deleted after the region.
 */
#include <memprism.h>
#include <stdio.h>

struct Node {
	long key;
	long value;
	Node *next;
};

int main()
{
	const int N = 1000;
	int *arr = new int[N]; /* @ARR */
	Node *node = new Node; /* @NODE */
	Node *list = nullptr;
	for (int i = 0; i < 10; i++) {
		Node *n = new Node; /* @NODE2 */
		n->next = list;
		list = n;
	}
	volatile int *va = arr;
	volatile long *vk = &node->key, *vv = &node->value;
	Node *volatile *vn = &node->next;
	long sum = 0;

	memprism_region_begin("work");
	for (int i = 0; i < N; i++)
		va[i] = i;
	for (int i = 0; i < N; i++)
		sum += va[i];
	for (int pass = 0; pass < 100; pass++) {
		*vk = pass;
		*vv = pass * 2;
		*vn = nullptr;
		sum += *vv;
	}
	for (Node *n = list; n; n = n->next)
		*(volatile long *)&n->value = 7;
	memprism_region_end("work");

	while (list) {
		Node *n = list->next;
		delete list;
		list = n;
	}
	delete node;
	delete[] arr;
	printf("checksum %ld\n", sum);
	return 0;
}
