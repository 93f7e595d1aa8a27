// SPDX-License-Identifier: MIT
/*
 * NUMA placement calls: CPU affinity (sched_setaffinity,
 * pthread_setaffinity_np, pthread_attr_setaffinity_np) and memory policy
 * (set_mempolicy, mbind, move_pages; libnuma's numa_alloc_onnode,
 * _interleaved and _local reach mbind). Each is recorded with what the
 * program asked for, so the analysis can place threads and pages on the
 * machine the program was written for.
 *
 * Simulated topology (memprism record --numa 4x8 sets MEMPRISM_NUMA): the
 * program names CPUs and nodes this host may lack. Its calls must still
 * succeed, so CPUs are mapped onto the CPUs the process may use (CPU c onto
 * the (c mod n)-th of them) and nodes onto the host's online nodes; a policy
 * call the host refuses anyway returns success: the model applies it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/mp_env.h"
#include "rt/rt_int.h"
#include "rt/rt_numa.h"
#include "rt/rt_proc.h"

#define MASK_MAX 128 /* bytes of CPU mask recorded: 1024 CPUs */

static int sim = -1; /* MEMPRISM_NUMA set: -1 not looked yet */
static int host_cpus[1024], nhost_cpus; /* CPUs this process may use at start */
static int host_nodes[64], nhost_nodes; /* the host's online nodes */

/* Parses a sysfs range list ("0-3,8") into out; returns the count. */
static int parse_list(const char *s, int *out, int max)
{
	int n = 0;
	while (*s && *s != '\n' && n < max) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long v = a; v <= b && n < max; v++)
			out[n++] = (int)v;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

static int simulated(void)
{
	if (RT_LIKELY(sim >= 0))
		return sim;
	const char *e = secure_getenv(MP_ENV_NUMA);
	int on = e && *e;
	if (on) {
		cpu_set_t cs;
		CPU_ZERO(&cs);
		if (sched_getaffinity(0, sizeof(cs), &cs) == 0)
			for (int c = 0; c < CPU_SETSIZE && nhost_cpus < 1024; c++)
				if (CPU_ISSET(c, &cs))
					host_cpus[nhost_cpus++] = c;
		if (!nhost_cpus)
			host_cpus[nhost_cpus++] = 0;
		char buf[256];
		size_t n = rt_read_file("/sys/devices/system/node/online", buf, sizeof(buf) - 1);
		buf[n] = 0;
		nhost_nodes = n ? parse_list(buf, host_nodes, 64) : 0;
		if (!nhost_nodes)
			host_nodes[nhost_nodes++] = 0;
	}
	__atomic_store_n(&sim, on, __ATOMIC_RELEASE);
	return on;
}

/* The program's CPU mask mapped onto the CPUs this process may use. */
static void map_cpus(const cpu_set_t *in, size_t size, cpu_set_t *out)
{
	CPU_ZERO(out);
	for (size_t c = 0; c < size * 8 && c < CPU_SETSIZE; c++)
		if (CPU_ISSET_S(c, size, in))
			CPU_SET(host_cpus[c % (size_t)nhost_cpus], out);
}

/* A node mask of maxnode bits mapped onto the host's nodes (one word). */
static unsigned long map_nodes(const unsigned long *mask, unsigned long maxnode)
{
	unsigned long out = 0;
	for (unsigned long n = 0; mask && n < maxnode && n < 1024; n++)
		if (mask[n / (8 * sizeof(long))] >> (n % (8 * sizeof(long))) & 1)
			out |= 1ul << host_nodes[n % (unsigned long)nhost_nodes];
	return out;
}

/* The first 64 nodes of a node mask, as recorded. */
static uint64_t node_word(const unsigned long *mask, unsigned long maxnode)
{
	uint64_t w = 0;
	for (unsigned long n = 0; mask && n < maxnode && n < 64; n++)
		if (mask[n / (8 * sizeof(long))] >> (n % (8 * sizeof(long))) & 1)
			w |= 1ull << n;
	return w;
}

static uint8_t *put_mask(uint8_t *p, const void *mask, size_t size)
{
	const uint8_t *m = mask;
	size_t n = size < MASK_MAX ? size : MASK_MAX;
	while (n && !m[n - 1])
		n--;
	p = mp_put_uv(p, n);
	for (size_t i = 0; i < n; i++)
		*p++ = m[i];
	return p;
}

void rt_numa_affinity_event(struct rt_thread *t, pid_t tid, const void *mask, size_t size)
{
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_AFFINITY, &e);
	if (!p)
		return;
	p = mp_put_uv(p, rt_cpu());
	p = mp_put_uv(p, (uint64_t)tid);
	p = put_mask(p, mask, size);
	rt_event_end(t, p);
}

/* pthread_t -> tid of the threads started through our pthread_create, for
 * pthread_setaffinity_np on another thread. Open addressing; a reused
 * pthread_t overwrites its slot. */
#define TID_SLOTS 4096
static unsigned long tid_key[TID_SLOTS];
static pid_t tid_val[TID_SLOTS];

void rt_numa_thread_started(unsigned long self, pid_t tid)
{
	size_t h = (size_t)((self * 0x9e3779b97f4a7c15ull) >> 52) % TID_SLOTS;
	for (size_t i = 0; i < TID_SLOTS; i++, h = (h + 1) % TID_SLOTS) {
		unsigned long k = __atomic_load_n(&tid_key[h], __ATOMIC_ACQUIRE);
		/* a lost race for an empty slot leaves the winner's key in k */
		int took = k == 0 &&
			   __atomic_compare_exchange_n(&tid_key[h], &k, self, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		if (took || k == self) {
			__atomic_store_n(&tid_val[h], tid, __ATOMIC_RELEASE);
			return;
		}
	}
}

static pid_t tid_of(pthread_t th)
{
	if (pthread_equal(th, pthread_self()))
		return rt_self.tid ? rt_self.tid : gettid();
	unsigned long self = (unsigned long)th;
	size_t h = (size_t)((self * 0x9e3779b97f4a7c15ull) >> 52) % TID_SLOTS;
	for (size_t i = 0; i < TID_SLOTS; i++, h = (h + 1) % TID_SLOTS) {
		unsigned long k = __atomic_load_n(&tid_key[h], __ATOMIC_ACQUIRE);
		if (k == self)
			return __atomic_load_n(&tid_val[h], __ATOMIC_ACQUIRE);
		if (k == 0)
			break;
	}
	return 0;
}

/* pthread_attr_setaffinity_np: the mask asked for, by attribute, until a
 * thread is created with it. A small table under a spin lock. */
#define ATTR_SLOTS 64
static struct {
	const void *attr;
	uint16_t len;
	uint8_t mask[MASK_MAX];
} attr_aff[ATTR_SLOTS];
static int attr_lock;

static void lock(void)
{
	while (__atomic_exchange_n(&attr_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void unlock(void)
{
	__atomic_store_n(&attr_lock, 0, __ATOMIC_RELEASE);
}

size_t rt_numa_attr_mask(const void *attr, uint8_t *mask, size_t cap)
{
	size_t n = 0;
	if (!attr)
		return 0;
	lock();
	for (int i = 0; i < ATTR_SLOTS; i++)
		if (attr_aff[i].attr == attr) {
			n = attr_aff[i].len < cap ? attr_aff[i].len : cap;
			for (size_t k = 0; k < n; k++)
				mask[k] = attr_aff[i].mask[k];
			break;
		}
	unlock();
	return n;
}

/* Every hook holds the thread's guard throughout: the mask copies and the
 * libc calls below (memset, memcpy) must not be recorded as the program's. */
#define ENTER(t)                                                                                                       \
	struct rt_thread *t = &rt_self;                                                                                \
	int rec_ = rt_recording && !t->guard;                                                                          \
	t->guard++
#define LEAVE(t) rt_guard_leave(t)

RT_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	static int (*real)(pid_t, size_t, const cpu_set_t *);
	if (!real)
		real = (int (*)(pid_t, size_t, const cpu_set_t *))dlsym(RTLD_NEXT, "sched_setaffinity");
	ENTER(t);
	if (rec_)
		rt_numa_affinity_event(t, pid ? pid : (t->tid ? t->tid : gettid()), mask, size);
	int r;
	if (simulated()) {
		cpu_set_t m;
		map_cpus(mask, size, &m);
		r = real(pid, sizeof(m), &m);
	} else {
		r = real(pid, size, mask);
	}
	LEAVE(t);
	return r;
}

RT_EXPORT int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *mask)
{
	static int (*real)(pthread_t, size_t, const cpu_set_t *);
	if (!real)
		real = (int (*)(pthread_t, size_t, const cpu_set_t *))dlsym(RTLD_NEXT, "pthread_setaffinity_np");
	ENTER(t);
	if (rec_) {
		pid_t tid = tid_of(th);
		if (tid)
			rt_numa_affinity_event(t, tid, mask, size);
	}
	int r;
	if (simulated()) {
		cpu_set_t m;
		map_cpus(mask, size, &m);
		r = real(th, sizeof(m), &m);
	} else {
		r = real(th, size, mask);
	}
	LEAVE(t);
	return r;
}

RT_EXPORT int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t size, const cpu_set_t *mask)
{
	static int (*real)(pthread_attr_t *, size_t, const cpu_set_t *);
	if (!real)
		real = (int (*)(pthread_attr_t *, size_t, const cpu_set_t *))dlsym(RTLD_NEXT,
										   "pthread_attr_setaffinity_np");
	ENTER(t);
	(void)rec_; /* recorded by the thread created with attr, when it starts */
	{ /* glibc declares attr and mask non-null */
		lock();
		int slot = -1;
		for (int i = 0; i < ATTR_SLOTS && slot < 0; i++)
			if (attr_aff[i].attr == attr)
				slot = i;
		for (int i = 0; i < ATTR_SLOTS && slot < 0; i++)
			if (!attr_aff[i].attr)
				slot = i;
		if (slot < 0)
			slot = (int)(((uintptr_t)attr >> 4) % ATTR_SLOTS); /* full: evict one */
		size_t n = size < MASK_MAX ? size : MASK_MAX;
		attr_aff[slot].attr = attr;
		attr_aff[slot].len = (uint16_t)n;
		for (size_t k = 0; k < n; k++)
			attr_aff[slot].mask[k] = ((const uint8_t *)mask)[k];
		unlock();
	}
	int r;
	if (simulated()) {
		cpu_set_t m;
		map_cpus(mask, size, &m);
		r = real(attr, sizeof(m), &m);
	} else {
		r = real(attr, size, mask);
	}
	LEAVE(t);
	return r;
}

/* The memory-policy calls are libnuma's (numaif.h); a program that calls
 * them without libnuma links against these, so the syscall is the fallback. */
RT_EXPORT long set_mempolicy(int mode, const unsigned long *nmask, unsigned long maxnode)
{
	ENTER(t);
	if (rec_) {
		uint64_t e;
		uint8_t *p = rt_event_begin(t, MP_EV_MEMPOLICY, &e);
		if (p) {
			p = mp_put_uv(p, rt_cpu());
			p = mp_put_uv(p, (uint64_t)(unsigned)mode);
			p = mp_put_uv(p, node_word(nmask, maxnode ? maxnode - 1 : 0));
			rt_event_end(t, p);
		}
	}
	long r;
	if (simulated() && nmask) {
		unsigned long m = map_nodes(nmask, maxnode ? maxnode - 1 : 0);
		r = syscall(SYS_set_mempolicy, mode, &m, 8 * sizeof(m) + 1);
		if (r < 0) /* refused by the host: the model applies it */
			r = 0;
	} else {
		r = syscall(SYS_set_mempolicy, mode, nmask, maxnode);
	}
	LEAVE(t);
	return r;
}

RT_EXPORT long mbind(void *addr, unsigned long len, int mode, const unsigned long *nmask, unsigned long maxnode,
		     unsigned flags)
{
	ENTER(t);
	if (rec_) {
		uint64_t e;
		uint8_t *p = rt_event_begin(t, MP_EV_MBIND, &e);
		if (p) {
			p = mp_put_uv(p, rt_cpu());
			p = mp_put_uv(p, (uint64_t)addr);
			p = mp_put_uv(p, len);
			p = mp_put_uv(p, (uint64_t)(unsigned)mode);
			p = mp_put_uv(p, node_word(nmask, maxnode ? maxnode - 1 : 0));
			p = mp_put_uv(p, flags);
			rt_event_end(t, p);
		}
	}
	long r;
	if (simulated() && nmask) {
		unsigned long m = map_nodes(nmask, maxnode ? maxnode - 1 : 0);
		r = syscall(SYS_mbind, addr, len, mode, &m, 8 * sizeof(m) + 1, flags);
		if (r < 0)
			r = 0;
	} else {
		r = syscall(SYS_mbind, addr, len, mode, nmask, maxnode, flags);
	}
	LEAVE(t);
	return r;
}

#define MOVE_BATCH 32 /* pages per event (fits the buffer's slack) and per mapped call */

RT_EXPORT long move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status, int flags)
{
	ENTER(t);
	if (rec_ && nodes && pages) {
		for (unsigned long i = 0; i < count; i += MOVE_BATCH) {
			unsigned long n = count - i < MOVE_BATCH ? count - i : MOVE_BATCH;
			uint64_t e;
			uint8_t *p = rt_event_begin(t, MP_EV_MOVE_PAGES, &e);
			if (!p)
				break;
			p = mp_put_uv(p, rt_cpu());
			p = mp_put_uv(p, (uint64_t)(unsigned)pid);
			p = mp_put_uv(p, n);
			/* the list as a string: its length first, then the pairs */
			uint8_t tmp[MOVE_BATCH * 15], *q = tmp;
			uint64_t prev = 0;
			for (unsigned long k = i; k < i + n; k++) {
				q = mp_put_uv(q, mp_zigzag((int64_t)((uint64_t)pages[k] - prev)));
				q = mp_put_uv(q, (uint64_t)(unsigned)nodes[k]);
				prev = (uint64_t)pages[k];
			}
			p = mp_put_uv(p, (uint64_t)(q - tmp));
			for (uint8_t *c = tmp; c < q; c++)
				*p++ = *c;
			rt_event_end(t, p);
		}
	}
	if (simulated() && nodes) {
		/* map each node in batches: no allocation here */
		long ret = 0;
		for (unsigned long i = 0; i < count; i += MOVE_BATCH) {
			unsigned long n = count - i < MOVE_BATCH ? count - i : MOVE_BATCH;
			int mapped[MOVE_BATCH];
			for (unsigned long k = 0; k < n; k++)
				mapped[k] = host_nodes[(unsigned)nodes[i + k] % (unsigned)nhost_nodes];
			long r = syscall(SYS_move_pages, pid, n, pages + i, mapped, status ? status + i : NULL, flags);
			if (r < 0 && status) /* refused by the host: say the pages are where asked */
				for (unsigned long k = 0; k < n; k++)
					status[i + k] = nodes[i + k];
			if (r > 0)
				ret += r;
		}
		LEAVE(t);
		return ret;
	}
	long r = syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
	LEAVE(t);
	return r;
}
