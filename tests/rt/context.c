// SPDX-License-Identifier: MIT
/* A generic constructor (not a wrapper: two allocations, the object built
 * before it is handed back) called from two places, for a small table and
 * a big one: a row per caller, each with exactly its caller's stores. */
#include <stdio.h>
#include <stdlib.h>

struct dict {
	long *table;
	size_t n;
};

__attribute__((noinline)) static struct dict *dict_create(size_t n)
{
	struct dict *d = malloc(sizeof(*d)); /* @struct */
	d->table = calloc(n, sizeof(long)); /* @table */
	d->n = n;
	return d;
}

__attribute__((noinline)) static void fill(struct dict *d)
{
	for (size_t i = 0; i < d->n; i++)
		d->table[i] = (long)i;
}

int main(int argc, char **argv)
{
	size_t big = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	struct dict *config = dict_create(16); /* @config */
	struct dict *keys = dict_create(big); /* @keys */
	fill(config);
	fill(keys);
	printf("%ld\n", config->table[15] + keys->table[big - 1]);
	return 0;
}
