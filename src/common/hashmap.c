// SPDX-License-Identifier: MIT
/* Linear-probing hash map (see hashmap.h); grows at 50% load. */
#include "common/hashmap.h"

#include <errno.h>
#include <stdlib.h>

void mp_hashmap_init(struct mp_hashmap *m)
{
	m->keys = m->vals = NULL;
	m->cap = m->n = 0;
}

void mp_hashmap_fini(struct mp_hashmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	mp_hashmap_init(m);
}

uint64_t *mp_hashmap_get(const struct mp_hashmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = mp_hash64(key) & mask;; i = (i + 1) & mask) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static int rehash(struct mp_hashmap *m, size_t ncap)
{
	uint64_t *keys = calloc(ncap, sizeof(*keys));
	uint64_t *vals = calloc(ncap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->keys[j])
			continue;
		size_t i = mp_hash64(m->keys[j]) & (ncap - 1);
		while (keys[i])
			i = (i + 1) & (ncap - 1);
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
	return 0;
}

int mp_hashmap_put(struct mp_hashmap *m, uint64_t key, uint64_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		int err = rehash(m, m->cap ? m->cap * 2 : 64);
		if (err)
			return err;
	}
	size_t mask = m->cap - 1;
	size_t i = mp_hash64(key) & mask;
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & mask;
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}
