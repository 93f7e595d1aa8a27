// SPDX-License-Identifier: MIT
/*
 * Object lifecycle hooks: the malloc family, C++ operator new,
 * mmap/munmap/mremap and System V shared memory (shmat/shmdt). Each records an event (with the global epoch, time, CPU
 * and, for allocations, a call stack) in the calling thread's stream.
 *
 * Frees are recorded before the real free, allocations after the real
 * allocation: so no other thread can be handed the same address between the
 * two, and the reader's time-aware attribution sees lifetimes in order.
 *
 * Call stacks come from the modules' unwind tables with a per-thread cache
 * of rules (rt_unwind.c): right through libraries built without frame
 * pointers, at a few ns a frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include "rt/rt_int.h"
#include "rt/rt_proc.h"

/* --- bootstrap pool: allocations made while dlsym resolves the real functions */
static _Alignas(64) char rt_pool[256 << 10];
static size_t rt_pool_used;
static int rt_resolving;

static void *pool_alloc(size_t n, size_t align)
{
	size_t off = (__atomic_load_n(&rt_pool_used, __ATOMIC_RELAXED) + align - 1) & ~(align - 1);
	if (off + n > sizeof(rt_pool))
		return NULL;
	rt_pool_used = off + n;
	return rt_pool + off; /* static storage: already zero */
}

static int in_pool(const void *p)
{
	return (const char *)p >= rt_pool && (const char *)p < rt_pool + sizeof(rt_pool);
}

static int ensure_real(void)
{
	if (RT_LIKELY(rt_real.free != NULL))
		return 1;
	if (rt_resolving)
		return 0;
	rt_resolving = 1;
	rt_resolve();
	rt_resolving = 0;
	return rt_real.free != NULL;
}

/* --- call stacks */

uint64_t rt_unwind_gen;

/* The runtime's own code: a signal handler's stack ends where it called it. */
static int in_runtime(uint64_t ip)
{
	static uint64_t lo, hi;
	if (!hi) {
		struct dl_find_object dlfo;
		if (_dl_find_object((void *)&in_runtime, &dlfo) != 0)
			return 0;
		lo = (uint64_t)dlfo.dlfo_map_start;
		hi = (uint64_t)dlfo.dlfo_map_end;
	}
	return ip >= lo && ip < hi;
}

/* The caller's frames from the hook's frame fp: the runtime keeps frame
 * pointers, so the caller's rsp after the return is fp + 16 and its rbp
 * was saved at fp. */
static int stack_walk(struct rt_thread *t, void *fp, void *ret, uint64_t *frames, int max)
{
	uint64_t f = (uint64_t)fp, gen = __atomic_load_n(&rt_unwind_gen, __ATOMIC_ACQUIRE);
	if (RT_UNLIKELY(t->unwind_gen != gen)) {
		rt_real.memset(t->unwind_cache, 0, RT_UNWIND_CACHE * sizeof(*t->unwind_cache));
		t->unwind_gen = gen;
	}
	if (f < t->stack_lo || f + 16 > t->stack_hi || (f & 7)) {
		frames[0] = (uint64_t)ret;
		return 1;
	}
	int n = rt_unwind(t->unwind_cache, (uint64_t)ret, f + 16, *(const uint64_t *)f, t->stack_lo, t->stack_hi,
			  frames, max);
	if (RT_UNLIKELY(t->context))
		for (int i = 1; i < n; i++)
			if (in_runtime(frames[i]))
				return i;
	return n;
}

uint64_t rt_stack_id(struct rt_thread *t, void *fp, void *ret)
{
	if (RT_UNLIKELY(!t->stack_cache))
		return 0; /* a signal handler with no stream (RT_LOST) */
	uint64_t frames[RT_STACK_MAX];
	int n = stack_walk(t, fp, ret, frames, rt_proc.stack_depth);
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++) {
		h ^= frames[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h |= 1;
	struct rt_stack_slot *s = &t->stack_cache[h & (RT_STACK_CACHE - 1)];
	if (s->hash == h)
		return s->id;
	uint64_t id = ++t->stack_next;
	s->hash = h;
	s->id = id;
	/* STACK_DEF needs no new epoch: it defines, it does not change the heap. */
	rt_skip_suspend(t);
	if (rt_buf_full(t))
		rt_flush(t);
	uint8_t *p = t->p;
	*p++ = MP_TAG(MP_REC_EVENT, MP_EV_STACK_DEF);
	p = mp_put_uv(p, 0); /* epoch delta: unchanged */
	p = mp_put_uv(p, id);
	p = mp_put_uv(p, (uint64_t)n);
	for (int i = 0; i < n; i++)
		p = mp_put_uv(p, frames[i]);
	rt_event_end(t, p);
	return id;
}

/* operator new records the site of its caller, then lets libstdc++'s new
 * call malloc; malloc uses the site left here instead of its own. */
static __thread void *rt_site_fp __attribute__((tls_model("initial-exec")));
static __thread void *rt_site_ret __attribute__((tls_model("initial-exec")));

/* record --min-size: blocks smaller than this (by usable size, which is known
 * at free time too) are not objects; grouped ones still are. */
static inline int below_min_size(const void *ptr)
{
	return rt_proc.min_size && malloc_usable_size((void *)ptr) < rt_proc.min_size;
}

static void ev_alloc(struct rt_thread *t, void *ptr, size_t size, unsigned fn, void *fp, void *ret)
{
	if (below_min_size(ptr) && !t->group) {
		rt_site_ret = NULL;
		/* Untracked blocks count as the [heap] mapping: report its growth
		 * (brk, invisible to our hooks) before the program gets the block. */
		uint64_t a = (uint64_t)ptr, end = a + malloc_usable_size(ptr);
		if (a >= rt_proc.heap_lo && end > __atomic_load_n(&rt_proc.heap_hi, __ATOMIC_RELAXED)) {
			uint64_t top = (uint64_t)sbrk(0);
			if (end <= top && rt_proc.heap_lo) {
				__atomic_store_n(&rt_proc.heap_hi, top, __ATOMIC_RELAXED);
				uint64_t e;
				uint8_t *p = rt_event_begin(t, MP_EV_MAP_INITIAL, &e);
				if (p) {
					p = mp_put_uv(p, rt_proc.heap_lo);
					p = mp_put_uv(p, top - rt_proc.heap_lo);
					p = mp_put_uv(p, PROT_READ | PROT_WRITE);
					p = rt_put_str(p, "[heap]", 6);
					rt_event_end(t, p);
				}
			}
		}
		return;
	}
	if (rt_site_ret) {
		fp = rt_site_fp;
		ret = rt_site_ret;
		fn = MP_FN_NEW;
		rt_site_ret = NULL;
	}
	uint64_t stack = rt_stack_id(t, fp, ret);
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_ALLOC, &e);
	if (!p)
		return;
	p = mp_put_uv(p, t->last_cpu);
	p = rt_put_ev_addr(t, p, (uint64_t)ptr);
	p = mp_put_uv(p, size);
	p = mp_put_uv(p, stack);
	p = mp_put_uv(p, fn);
	p = mp_put_uv(p, t->group);
	rt_event_end(t, p);
}

static void ev_free(struct rt_thread *t, void *ptr)
{
	if (below_min_size(ptr))
		return;
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_FREE, &e);
	if (!p)
		return;
	p = mp_put_uv(p, t->last_cpu);
	p = rt_put_ev_addr(t, p, (uint64_t)ptr);
	rt_event_end(t, p);
}

#define HOOK_ENTER(t) struct rt_thread *t = &rt_self; int rec_ = rt_recording && !t->guard; if (rec_) t->guard++
#define HOOK_LEAVE(t) if (rec_) rt_guard_leave(t)

/* malloc on behalf of an interposed function (strdup): the site is its caller. */
void *rt_malloc_at(size_t n, void *fp, void *ret)
{
	if (RT_UNLIKELY(!ensure_real()))
		return pool_alloc(n, 16);
	HOOK_ENTER(t);
	void *p = rt_real.malloc(n);
	if (rec_ && p)
		ev_alloc(t, p, n, MP_FN_MALLOC, fp, ret);
	HOOK_LEAVE(t);
	return p;
}

RT_EXPORT void *malloc(size_t n)
{
	if (RT_UNLIKELY(!ensure_real()))
		return pool_alloc(n, 16);
	HOOK_ENTER(t);
	void *p = rt_real.malloc(n);
	if (rec_ && p)
		ev_alloc(t, p, n, MP_FN_MALLOC, __builtin_frame_address(0), __builtin_return_address(0));
	HOOK_LEAVE(t);
	return p;
}

RT_EXPORT void *calloc(size_t n, size_t m)
{
	if (RT_UNLIKELY(!rt_real.calloc)) {
		size_t total;
		if (__builtin_mul_overflow(n, m, &total))
			return NULL;
		if (!ensure_real() || !rt_real.calloc)
			return pool_alloc(total, 16);
	}
	HOOK_ENTER(t);
	void *p = rt_real.calloc(n, m);
	if (rec_ && p)
		ev_alloc(t, p, n * m, MP_FN_CALLOC, __builtin_frame_address(0), __builtin_return_address(0));
	HOOK_LEAVE(t);
	return p;
}

RT_EXPORT void free(void *ptr)
{
	if (!ptr || in_pool(ptr))
		return;
	if (RT_UNLIKELY(!ensure_real()))
		return;
	HOOK_ENTER(t);
	if (rec_) {
		ev_free(t, ptr);
		if (RT_UNLIKELY(rt_pagemap_enabled)) {
			size_t n = malloc_usable_size(ptr);
			if (n >= RT_PAGEMAP_MIN)
				rt_pagemap_range(ptr, n); /* libc unmaps big blocks */
		}
	}
	rt_real.free(ptr);
	HOOK_LEAVE(t);
}

static void *do_realloc(void *ptr, size_t n, void *fp, void *ret)
{
	if (in_pool(ptr)) {
		/* moving out of the bootstrap pool: copy what can be copied */
		void *q = malloc(n);
		if (q) {
			size_t avail = (size_t)(rt_pool + sizeof(rt_pool) - (char *)ptr);
			memmove(q, ptr, n < avail ? n : avail);
		}
		return q;
	}
	if (RT_UNLIKELY(!ensure_real()))
		return NULL;
	HOOK_ENTER(t);
	size_t old = 0;
	if (rec_ && ptr) {
		old = malloc_usable_size(ptr);
		ev_free(t, ptr);
	}
	void *p = rt_real.realloc(ptr, n);
	if (rec_) {
		if (p)
			ev_alloc(t, p, n, MP_FN_REALLOC, fp, ret);
		else if (ptr && n)
			ev_alloc(t, ptr, old, MP_FN_REALLOC, fp, ret); /* failed: still alive */
	}
	HOOK_LEAVE(t);
	return p;
}

RT_EXPORT void *realloc(void *ptr, size_t n)
{
	return do_realloc(ptr, n, __builtin_frame_address(0), __builtin_return_address(0));
}

RT_EXPORT void *reallocarray(void *ptr, size_t n, size_t m)
{
	size_t total;
	if (__builtin_mul_overflow(n, m, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return do_realloc(ptr, total, __builtin_frame_address(0), __builtin_return_address(0));
}

RT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (RT_UNLIKELY(!ensure_real()))
		return ENOMEM;
	HOOK_ENTER(t);
	int r = rt_real.posix_memalign(out, align, n);
	if (rec_ && r == 0)
		ev_alloc(t, *out, n, MP_FN_MEMALIGN, __builtin_frame_address(0), __builtin_return_address(0));
	HOOK_LEAVE(t);
	return r;
}

#define ALIGNED_HOOK(name, args, call, size)                                                   \
	RT_EXPORT void *name args                                                              \
	{                                                                                      \
		if (RT_UNLIKELY(!ensure_real()))                                               \
			return NULL;                                                           \
		HOOK_ENTER(t);                                                                 \
		void *p = rt_real.call;                                                        \
		if (rec_ && p)                                                                 \
			ev_alloc(t, p, size, MP_FN_MEMALIGN, __builtin_frame_address(0),       \
				 __builtin_return_address(0));                                 \
		HOOK_LEAVE(t);                                                                 \
		return p;                                                                      \
	}

ALIGNED_HOOK(aligned_alloc, (size_t a, size_t n), aligned_alloc(a, n), n)
ALIGNED_HOOK(memalign, (size_t a, size_t n), memalign(a, n), n)
ALIGNED_HOOK(valloc, (size_t n), valloc(n), n)
ALIGNED_HOOK(pvalloc, (size_t n), pvalloc(n), malloc_usable_size(p))

/* C++: libstdc++'s operator new calls malloc through the PLT; only the call
 * site must come from here (libstdc++ has no frame pointers). Resolved lazily:
 * plain C programs never load libstdc++. */
#define NEW_HOOK(sym)                                                                  \
	RT_EXPORT void *sym(size_t n)                                                  \
	{                                                                              \
		static void *(*real)(size_t);                                          \
		if (!real)                                                             \
			real = (void *(*)(size_t))dlsym(RTLD_NEXT, #sym);              \
		if (rt_recording && !rt_self.guard) {                                  \
			rt_site_fp = __builtin_frame_address(0);                       \
			rt_site_ret = __builtin_return_address(0);                     \
		}                                                                      \
		void *p = real(n);                                                     \
		rt_site_ret = NULL;                                                    \
		return p;                                                              \
	}
NEW_HOOK(_Znwm)
NEW_HOOK(_Znam)

/* --- mappings */

/* A mapping with its allocation stack: MMAP event (path "" for anonymous
 * memory). */
static void ev_map(struct rt_thread *t, void *addr, size_t len, int prot, int flags, off_t off, const char *path,
		   void *fp, void *ret)
{
	uint64_t stack = rt_stack_id(t, fp, ret);
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_MMAP, &e);
	if (!p)
		return;
	p = mp_put_uv(p, rt_cpu());
	p = mp_put_uv(p, (uint64_t)addr);
	p = mp_put_uv(p, len);
	p = mp_put_uv(p, (uint64_t)prot);
	p = mp_put_uv(p, (uint64_t)(unsigned)flags);
	p = mp_put_uv(p, (uint64_t)off);
	p = mp_put_uv(p, stack);
	p = rt_put_str(p, path, 255);
	rt_event_end(t, p);
}

static void ev_mmap(struct rt_thread *t, void *addr, size_t len, int prot, int flags, int fd, off_t off,
		    void *fp, void *ret)
{
	char path[256];
	path[0] = 0;
	if (fd >= 0 && !(flags & MAP_ANONYMOUS)) {
		char link[48] = "/proc/self/fd/", digits[16];
		int nd = 0, l = 14;
		for (unsigned v = (unsigned)fd; nd == 0 || v; v /= 10)
			digits[nd++] = (char)('0' + v % 10);
		while (nd)
			link[l++] = digits[--nd];
		link[l] = 0;
		ssize_t n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = 0;
	}
	ev_map(t, addr, len, prot, flags, off, path, fp, ret);
}

RT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	rt_resolve();
	HOOK_ENTER(t);
	void *p = rt_real.mmap(addr, len, prot, flags, fd, off);
	if (rec_ && p != MAP_FAILED)
		ev_mmap(t, p, len, prot, flags, fd, off, __builtin_frame_address(0), __builtin_return_address(0));
	HOOK_LEAVE(t);
	return p;
}
RT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

RT_EXPORT int munmap(void *addr, size_t len)
{
	rt_resolve();
	HOOK_ENTER(t);
	if (rec_) {
		uint64_t e;
		uint8_t *p = rt_event_begin(t, MP_EV_MUNMAP, &e);
		if (p) {
			p = mp_put_uv(p, rt_cpu());
			p = mp_put_uv(p, (uint64_t)addr);
			p = mp_put_uv(p, len);
			rt_event_end(t, p);
		}
		rt_pagemap_range(addr, len);
	}
	int r = rt_real.munmap(addr, len);
	HOOK_LEAVE(t);
	return r;
}

RT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	rt_resolve();
	void *want = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	HOOK_ENTER(t);
	void *p = rt_real.mremap(old, old_len, new_len, flags, want);
	if (rec_ && p != MAP_FAILED) {
		uint64_t e;
		uint8_t *q = rt_event_begin(t, MP_EV_MREMAP, &e);
		if (q) {
			q = mp_put_uv(q, rt_cpu());
			q = mp_put_uv(q, (uint64_t)old);
			q = mp_put_uv(q, old_len);
			q = mp_put_uv(q, (uint64_t)p);
			q = mp_put_uv(q, new_len);
			rt_event_end(t, q);
		}
	}
	HOOK_LEAVE(t);
	return p;
}

/* --- System V shared memory: shmat maps a segment as a shared mapping of
 * a file named as /proc/PID/maps names it, /SYSV<key>, the same in every
 * run for a fixed key (IPC_PRIVATE's is 0). shmdt names no length: the
 * attachments are kept here (a few at once in real programs; past the
 * table's room a detach is not recorded). */

#define RT_SHM_MAX 64
static struct {
	uint64_t addr, len;
} rt_shm[RT_SHM_MAX];
static int rt_shm_lock;

static void shm_lock(void)
{
	while (__atomic_exchange_n(&rt_shm_lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void shm_unlock(void)
{
	__atomic_store_n(&rt_shm_lock, 0, __ATOMIC_RELEASE);
}

RT_EXPORT void *shmat(int id, const void *want, int flags)
{
	rt_resolve();
	HOOK_ENTER(t);
	void *p = rt_real.shmat(id, want, flags);
	struct shmid_ds ds;
	if (rec_ && p != (void *)-1 && shmctl(id, IPC_STAT, &ds) == 0) {
		uint64_t page = (uint64_t)getpagesize(), len = ((uint64_t)ds.shm_segsz + page - 1) & ~(page - 1);
		char path[16] = "/SYSV";
		unsigned key = (unsigned)ds.shm_perm.__key;
		for (int i = 0; i < 8; i++)
			path[5 + i] = "0123456789abcdef"[(key >> (28 - 4 * i)) & 15];
		path[13] = 0;
		int prot = PROT_READ | (flags & SHM_RDONLY ? 0 : PROT_WRITE) | (flags & SHM_EXEC ? PROT_EXEC : 0);
		ev_map(t, p, len, prot, MAP_SHARED, 0, path, __builtin_frame_address(0), __builtin_return_address(0));
		shm_lock();
		for (int i = 0; i < RT_SHM_MAX; i++)
			if (!rt_shm[i].addr) {
				rt_shm[i].addr = (uint64_t)p;
				rt_shm[i].len = len;
				break;
			}
		shm_unlock();
	}
	HOOK_LEAVE(t);
	return p;
}

RT_EXPORT int shmdt(const void *addr)
{
	rt_resolve();
	HOOK_ENTER(t);
	uint64_t len = 0;
	shm_lock();
	for (int i = 0; i < RT_SHM_MAX; i++)
		if (rt_shm[i].addr == (uint64_t)addr) {
			len = rt_shm[i].len;
			rt_shm[i].addr = 0;
			break;
		}
	shm_unlock();
	if (rec_ && len) {
		uint64_t e;
		uint8_t *p = rt_event_begin(t, MP_EV_MUNMAP, &e);
		if (p) {
			p = mp_put_uv(p, rt_cpu());
			p = mp_put_uv(p, (uint64_t)addr);
			p = mp_put_uv(p, len);
			rt_event_end(t, p);
		}
		rt_pagemap_range((void *)addr, len);
	}
	int r = rt_real.shmdt(addr);
	HOOK_LEAVE(t);
	return r;
}
