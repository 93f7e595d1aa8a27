/* SPDX-License-Identifier: MIT */
/*
 * Growable arrays for the analysis side (not the runtime: it has no malloc).
 * MP_VEC(T) declares {T *v; size_t n, cap;}; mp_vec_push returns 0 or -ENOMEM.
 */
#ifndef MP_VEC_H
#define MP_VEC_H

#include <errno.h>
#include <stdlib.h>

#define MP_VEC(T)                \
	struct {                 \
		T *v;            \
		size_t n, cap;   \
	}

int mp_vec_grow(void **v, size_t *cap, size_t need, size_t elem);
/* The same for an array of *cap elements (not a MP_VEC): room for need,
 * the new elements zeroed. 0 or -ENOMEM (*v as it was). */
int mp_vec_grow_zeroed(void **v, size_t *cap, size_t need, size_t elem);

#define mp_vec_reserve(vec, need) \
	((need) <= (vec)->cap ? 0 : mp_vec_grow((void **)&(vec)->v, &(vec)->cap, (need), sizeof(*(vec)->v)))
#define mp_vec_push(vec, val) \
	(mp_vec_reserve((vec), (vec)->n + 1) ? -ENOMEM : ((vec)->v[(vec)->n++] = (val), 0))
#define mp_vec_free(vec) (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)

#endif
