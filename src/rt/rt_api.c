// SPDX-License-Identifier: MIT
/* The memprism.h user API: regions of interest, named objects, allocation groups. */
#include <memprism.h>

#include "rt/rt_int.h"

static void region_event(unsigned type, const char *name)
{
	struct rt_thread *t = &rt_self;
	if (!rt_recording || t->guard)
		return;
	t->guard++;
	uint64_t e;
	uint8_t *p = rt_event_begin(t, type, &e);
	if (p) {
		p = mp_put_uv(p, rt_cpu());
		p = rt_put_str(p, name ? name : "", 200);
		rt_event_end(t, p);
	}
	rt_guard_leave(t);
}

RT_EXPORT void mp_region_begin(const char *name)
{
	region_event(MP_EV_REGION_BEGIN, name);
}

RT_EXPORT void mp_region_end(const char *name)
{
	region_event(MP_EV_REGION_END, name);
}

RT_EXPORT void mp_object_name(const void *addr, size_t len, const char *name)
{
	struct rt_thread *t = &rt_self;
	if (!rt_recording || t->guard || !len)
		return;
	t->guard++;
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_NAME_RANGE, &e);
	if (p) {
		p = mp_put_uv(p, (uint64_t)addr);
		p = mp_put_uv(p, len);
		p = rt_put_str(p, name ? name : "", 200);
		rt_event_end(t, p);
	}
	rt_guard_leave(t);
}

static _Atomic uint64_t rt_next_group = 1;

RT_EXPORT void mp_group_begin(const char *name)
{
	struct rt_thread *t = &rt_self;
	if (!rt_recording || t->guard)
		return;
	t->guard++;
	uint64_t id = atomic_fetch_add(&rt_next_group, 1), e;
	uint8_t *p = rt_event_begin(t, MP_EV_GROUP_DEF, &e);
	if (p) {
		p = mp_put_uv(p, id);
		p = rt_put_str(p, name ? name : "", 200);
		rt_event_end(t, p);
		t->group = id;
	}
	rt_guard_leave(t);
}

RT_EXPORT void mp_group_end(void)
{
	rt_self.group = 0;
}
