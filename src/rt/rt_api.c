// SPDX-License-Identifier: MIT
/*
 * The memprism.h user API: regions of interest, named objects, allocation
 * groups, and the blocks of the program's own allocators.
 */
#include <memprism.h>

#include "rt/rt_int.h"
#include "rt/rt_proc.h"

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

/* The program's own allocator hands out [addr, addr + size): an ALLOC
 * event of function MALLOCLIKE with the caller's stack (memprism.h's
 * inline wrapper is inlined: the caller is the allocator). No usable size
 * to look at: --min-size goes by size. */
RT_EXPORT void mp_malloclike(const void *addr, size_t size)
{
	struct rt_thread *t = &rt_self;
	if (!rt_recording || t->guard || !addr)
		return;
	if (rt_proc.min_size && size < rt_proc.min_size && !t->group)
		return;
	t->guard++;
	uint64_t stack = rt_stack_id(t, __builtin_frame_address(0), __builtin_return_address(0)), e;
	uint8_t *p = rt_event_begin(t, MP_EV_ALLOC, &e);
	if (p) {
		p = mp_put_uv(p, t->last_cpu);
		p = rt_put_ev_addr(t, p, (uint64_t)addr);
		p = mp_put_uv(p, size);
		p = mp_put_uv(p, stack);
		p = mp_put_uv(p, MP_FN_MALLOCLIKE);
		p = mp_put_uv(p, t->group);
		rt_event_end(t, p);
	}
	rt_guard_leave(t);
}

/* ... and takes it back: before the allocator may give it out again, as a
 * free is recorded before the real free. */
RT_EXPORT void mp_freelike(const void *addr)
{
	struct rt_thread *t = &rt_self;
	if (!rt_recording || t->guard || !addr)
		return;
	t->guard++;
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_ALLOC, &e);
	if (p) {
		p = mp_put_uv(p, t->last_cpu);
		p = rt_put_ev_addr(t, p, (uint64_t)addr);
		p = mp_put_uv(p, 0);
		p = mp_put_uv(p, 0);
		p = mp_put_uv(p, MP_FN_FREELIKE);
		p = mp_put_uv(p, 0);
		rt_event_end(t, p);
	}
	rt_guard_leave(t);
}
