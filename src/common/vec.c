// SPDX-License-Identifier: MIT
/* Growth policy for MP_VEC arrays: doubling, overflow-checked. */
#include "common/vec.h"

#include <stdint.h>
#include <string.h>

int mp_vec_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	void *nv = realloc(*v, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

int mp_vec_grow_zeroed(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t old = *cap;
	if (need <= old)
		return 0;
	int err = mp_vec_grow(v, cap, need, elem);
	if (!err)
		memset((char *)*v + old * elem, 0, (*cap - old) * elem);
	return err;
}
