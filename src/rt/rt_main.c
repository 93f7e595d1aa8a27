// SPDX-License-Identifier: MIT
/*
 * Runtime start-up and shut-down: resolving the real libc functions, opening
 * the data file the launcher created (MEMPRISM_OUT), describing the process
 * (PROCESS chunk, loaded ELF images, mappings present at start), fork and
 * crash handling, and the final flush.
 *
 * A program built with `memprism cc` always links this runtime; without
 * MEMPRISM_OUT in the environment it stays passive and every hook is a
 * pass-through, so the program runs normally when not recorded.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/mp_abi.h"
#include "common/mp_env.h"
#include "rt/rt_int.h"
#include "rt/rt_live.h"
#include "rt/rt_proc.h"

struct rt_real rt_real;
int rt_recording;
int rt_passive;
_Atomic uint64_t rt_epoch = 1;
int rt_multithreaded;
__thread struct rt_thread rt_self __attribute__((tls_model("initial-exec")));

struct rt_proc rt_proc;
static int rt_failed;

uint64_t rt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

unsigned rt_cpu(void)
{
	int c = sched_getcpu(); /* rseq-backed in glibc >= 2.35: a few ns */
	return c < 0 ? 0 : (unsigned)c;
}

static size_t rt_cstrlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

void rt_say(const char *a, const char *b)
{
	/* write(2) directly: stdio may be mid-use by the program. */
	static const char pre[] = "memprism: ";
	ssize_t r = write(2, pre, sizeof(pre) - 1);
	r = write(2, a, rt_cstrlen(a));
	if (b)
		r = write(2, b, rt_cstrlen(b));
	r = write(2, "\n", 1);
	(void)r;
}

void rt_fail(const char *why)
{
	if (__atomic_exchange_n(&rt_failed, 1, __ATOMIC_ACQ_REL))
		return;
	rt_recording = 0;
	rt_say("recording stopped: ", why);
}

/* dlsym itself may call calloc before rt_real.calloc is known: serve those
 * from a static pool that free() recognizes (see rt_alloc.c). */
#define RT_RESOLVE(name) rt_real.name = (__typeof__(rt_real.name))dlsym(RTLD_NEXT, #name)

void rt_resolve(void)
{
	static int done;
	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
	RT_RESOLVE(calloc);
	RT_RESOLVE(malloc);
	RT_RESOLVE(free);
	RT_RESOLVE(realloc);
	RT_RESOLVE(reallocarray);
	RT_RESOLVE(posix_memalign);
	RT_RESOLVE(aligned_alloc);
	RT_RESOLVE(memalign);
	RT_RESOLVE(valloc);
	RT_RESOLVE(pvalloc);
	RT_RESOLVE(mmap);
	RT_RESOLVE(munmap);
	RT_RESOLVE(mremap);
	RT_RESOLVE(memcpy);
	RT_RESOLVE(memmove);
	RT_RESOLVE(memset);
	RT_RESOLVE(memcmp);
	RT_RESOLVE(strlen);
	RT_RESOLVE(strcpy);
	RT_RESOLVE(strcmp);
	RT_RESOLVE(sigaction);
	RT_RESOLVE(longjmp);
	RT_RESOLVE(_longjmp);
	RT_RESOLVE(siglongjmp);
	RT_RESOLVE(__longjmp_chk);
	RT_RESOLVE(vfork);
	RT_RESOLVE(pthread_create);
	RT_RESOLVE(pthread_join);
	RT_RESOLVE(pthread_setname_np);
	RT_RESOLVE(fork);
	RT_RESOLVE(execve);
	RT_RESOLVE(dlopen);
	RT_RESOLVE(shmat);
	RT_RESOLVE(shmdt);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* Reads a whole small /proc file into buf (NUL-terminated); returns length. */
size_t rt_read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	return n;
}

static uint64_t parse_hex(const char **pp)
{
	const char *p = *pp;
	uint64_t v = 0;
	for (;; p++) {
		unsigned c = (unsigned char)*p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (c - 'a' + 10);
		else
			break;
	}
	*pp = p;
	return v;
}

/* Mappings present at start-up, from /proc/self/maps: the main stack, the
 * heap, file mappings. Later ones arrive through the mmap hooks. */
static void rt_emit_initial_maps(struct rt_thread *t)
{
	size_t cap = 4u << 20;
	char *buf = rt_real.mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return;
	size_t n = rt_read_file("/proc/self/maps", buf, cap);
	uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	const char *p = buf, *end = buf + n;
	while (p < end) {
		const char *line = p;
		uint64_t lo = parse_hex(&p);
		p++;
		uint64_t hi = parse_hex(&p);
		while (*p == ' ')
			p++;
		unsigned prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
				(p[2] == 'x' ? PROT_EXEC : 0);
		/* skip perms, offset, dev, inode to the path */
		for (int field = 0; field < 4 && p < end; field++) {
			while (p < end && *p != ' ' && *p != '\n')
				p++;
			while (p < end && *p == ' ')
				p++;
		}
		const char *path = p;
		while (p < end && *p != '\n')
			p++;
		size_t plen = (size_t)(p - path);
		p++;
		if (line >= end || hi <= lo)
			continue;
		if (plen == 6 && memcmp(path, "[heap]", 6) == 0) {
			rt_proc.heap_lo = lo;
			rt_proc.heap_hi = hi;
		}
		/* the main thread's stack: the mapping holding this frame, the
		 * kernel's [stack] (under Valgrind an anonymous mapping, while
		 * [stack] is Valgrind's own) */
		if (sp >= lo && sp < hi && t->stack_hi == 0) {
			struct rlimit rl;
			uint64_t lim = 8u << 20;
			if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
				lim = rl.rlim_cur;
			t->stack_hi = hi;
			t->stack_lo = hi - lim < hi ? hi - lim : 0;
		}
		uint64_t e;
		uint8_t *q = rt_event_begin(t, MP_EV_MAP_INITIAL, &e);
		q = mp_put_uv(q, lo);
		q = mp_put_uv(q, hi - lo);
		q = mp_put_uv(q, prot);
		char tmp[200];
		size_t l = plen < sizeof(tmp) - 1 ? plen : sizeof(tmp) - 1;
		memcpy(tmp, path, l);
		tmp[l] = 0;
		q = rt_put_str(q, tmp, 190);
		rt_event_end(t, q);
	}
	rt_real.munmap(buf, cap);
}

/* Does this ELF image import the sanitizer-coverage access callbacks? Looks
 * for their names in its dynamic string table, already mapped in memory. */
static int rt_module_instrumented(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		const char *strtab = NULL;
		size_t strsz = 0;
		for (; dyn->d_tag != DT_NULL; dyn++) {
			if (dyn->d_tag == DT_STRTAB)
				strtab = (const char *)dyn->d_un.d_ptr;
			else if (dyn->d_tag == DT_STRSZ)
				strsz = dyn->d_un.d_val;
		}
		if (!strtab || !strsz)
			return 0;
		/* glibc relocates DT_STRTAB to a run-time address on x86-64; be
		 * defensive if it did not. */
		if ((uintptr_t)strtab < info->dlpi_addr)
			strtab += info->dlpi_addr;
		/* the inline mark is a whole name: the string table holds it NUL-ended */
		return memmem(strtab, strsz, MP_ABI_SANCOV_MARK, strlen(MP_ABI_SANCOV_MARK)) != NULL ||
		       memmem(strtab, strsz, MP_ABI_INLINE_MARK, sizeof(MP_ABI_INLINE_MARK)) != NULL ||
		       memmem(strtab, strsz, MP_ABI_TSAN_MARK, strlen(MP_ABI_TSAN_MARK)) != NULL;
	}
	return 0;
}

#define RT_MAX_MODULES 1024
static struct rt_seen_module {
	uint64_t key, bias, lo, hi;
	int present; /* scratch for rt_emit_unloads */
} rt_seen_modules[RT_MAX_MODULES];
static int rt_nseen;
static pthread_mutex_t rt_module_lock = PTHREAD_MUTEX_INITIALIZER;

static int module_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct rt_thread *t = arg;
	const char *name = info->dlpi_name;
	char exe[512];
	int is_main = !name || !name[0];
	if (is_main) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return 0;
		exe[n] = 0;
		name = exe;
		if (rt_module_instrumented(info))
			rt_proc.flags |= MP_PROC_INSTRUMENTED;
	} else if (!strchr(name, '/')) {
		return 0; /* the vDSO has no file to read symbols from */
	} else if (name[0] != '/' && realpath(name, exe)) {
		name = exe; /* dlopen("./libx.so"): the report may run elsewhere */
	}
	/* the runtime defines the callbacks; only their users count */
	uint64_t self = (uint64_t)(uintptr_t)&module_cb;
	int is_runtime = self >= info->dlpi_addr && strstr(name, "libmemprism-rt") != NULL;
	if (!is_main && !is_runtime && rt_module_instrumented(info))
		rt_proc.flags |= MP_PROC_INSTRUMENTED;
	uint64_t key = info->dlpi_addr ^ ((uint64_t)info->dlpi_phnum << 56);
	for (int i = 0; i < rt_nseen; i++)
		if (rt_seen_modules[i].key == key)
			return 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (hi <= lo)
		return 0;
	if (rt_nseen < RT_MAX_MODULES)
		rt_seen_modules[rt_nseen++] = (struct rt_seen_module){ key, info->dlpi_addr, lo, hi, 1 };
	uint64_t e;
	uint8_t *q = rt_event_begin(t, MP_EV_MODULE, &e);
	q = mp_put_uv(q, info->dlpi_addr);
	q = mp_put_uv(q, lo);
	q = mp_put_uv(q, hi);
	q = rt_put_str(q, name, 200);
	rt_event_end(t, q);
	return 0;
}

static int tls_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct rt_thread *t = arg;
	if (!info->dlpi_tls_modid || !info->dlpi_tls_data)
		return 0; /* no TLS, or not allocated yet for this thread (lazy) */
	uint64_t memsz = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			memsz = info->dlpi_phdr[i].p_memsz;
	if (!memsz)
		return 0;
	uint64_t e;
	uint8_t *q = rt_event_begin(t, MP_EV_TLS_BLOCK, &e);
	if (!q)
		return 0;
	q = mp_put_uv(q, info->dlpi_addr);
	q = mp_put_uv(q, (uint64_t)info->dlpi_tls_data);
	q = mp_put_uv(q, memsz);
	rt_event_end(t, q);
	return 0;
}

/* The calling thread's TLS blocks (dl_iterate_phdr reports the caller's). */
void rt_emit_tls_blocks(struct rt_thread *t)
{
	dl_iterate_phdr(tls_cb, t);
}

static int present_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)arg;
	uint64_t key = info->dlpi_addr ^ ((uint64_t)info->dlpi_phnum << 56);
	for (int i = 0; i < rt_nseen; i++)
		if (rt_seen_modules[i].key == key)
			rt_seen_modules[i].present = 1;
	return 0;
}

/* After dlclose: a MODULE_UNLOAD for every reported image that is gone. */
void rt_emit_unloads(struct rt_thread *t)
{
	pthread_mutex_lock(&rt_module_lock);
	for (int i = 0; i < rt_nseen; i++)
		rt_seen_modules[i].present = 0;
	dl_iterate_phdr(present_cb, NULL);
	for (int i = 0; i < rt_nseen;) {
		struct rt_seen_module m = rt_seen_modules[i];
		if (m.present) {
			i++;
			continue;
		}
		uint64_t e;
		uint8_t *q = rt_event_begin(t, MP_EV_MODULE_UNLOAD, &e);
		if (q) {
			q = mp_put_uv(q, m.bias);
			q = mp_put_uv(q, m.lo);
			q = mp_put_uv(q, m.hi);
			rt_event_end(t, q);
		}
		rt_seen_modules[i] = rt_seen_modules[--rt_nseen];
	}
	pthread_mutex_unlock(&rt_module_lock);
}

/* Emits a MODULE event for every loaded ELF image not reported yet. */
void rt_emit_modules(struct rt_thread *t)
{
	pthread_mutex_lock(&rt_module_lock);
	dl_iterate_phdr(module_cb, t);
	pthread_mutex_unlock(&rt_module_lock);
}

static void rt_write_process_chunk(uint64_t parent_proc, uint64_t fork_epoch)
{
	static uint8_t payload[8192];
	static char cmd[4096];
	char exe[512];
	uint8_t *p = payload;
	p = mp_put_uv(p, (uint64_t)getpid());
	p = mp_put_uv(p, (uint64_t)getppid());
	p = mp_put_uv(p, parent_proc);
	p = mp_put_uv(p, fork_epoch);
	p = mp_put_uv(p, rt_now());
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	p = rt_put_str(p, exe, sizeof(exe));
	size_t cl = rt_read_file("/proc/self/cmdline", cmd, sizeof(cmd));
	p = mp_put_uv(p, cl);
	memcpy(p, cmd, cl);
	p += cl;
	p = mp_put_uv(p, rt_proc.flags);
	rt_write_chunk(MP_CHUNK_PROCESS, (uint32_t)getpid(), 0, payload, (size_t)(p - payload));
}

void rt_write_end_chunk(uint64_t status)
{
	uint8_t payload[64], *p = payload;
	p = mp_put_uv(p, rt_now());
	p = mp_put_uv(p, __atomic_load_n(&rt_proc.accesses, __ATOMIC_RELAXED));
	p = mp_put_uv(p, __atomic_load_n(&rt_proc.dropped, __ATOMIC_RELAXED));
	p = mp_put_uv(p, __atomic_load_n(&rt_proc.chunks, __ATOMIC_RELAXED));
	p = mp_put_uv(p, status);
	p = mp_put_uv(p, __atomic_load_n(&rt_proc.handler_jumps, __ATOMIC_RELAXED));
	rt_write_chunk(MP_CHUNK_END, (uint32_t)getpid(), 0, payload, (size_t)(p - payload));
}

static uint64_t rt_new_proc_id(void)
{
	uint64_t id = 0;
	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != sizeof(id))
		id = rt_now() ^ ((uint64_t)getpid() << 40);
	return id | 1; /* never 0: 0 means "no parent" */
}

/* The guard is held from prepare to parent/child: a signal handler must not
 * run while this thread holds every lock of the runtime. */
static void rt_atfork_prepare(void)
{
	rt_self.guard++;
	if (rt_recording)
		rt_proc.fork_epoch = rt_next_epoch();
	rt_bufs_lock_all();
}

static void rt_atfork_parent(void)
{
	rt_bufs_unlock_all();
	rt_guard_leave(&rt_self);
}

static void rt_atfork_child(void)
{
	rt_bufs_reinit_locks();
	rt_self.guard--; /* (before a handler's context gives way to the thread's own) */
	if (!rt_recording)
		return;
	rt_sig_after_fork();
	rt_self.guard++;
	uint64_t parent = rt_proc.id;
	rt_proc.id = rt_new_proc_id();
	rt_proc.pid = getpid();
	rt_proc.accesses = rt_proc.dropped = rt_proc.chunks = rt_proc.handler_jumps = 0;
	rt_bufs_after_fork(&rt_self);
	rt_write_process_chunk(parent, rt_proc.fork_epoch);
	/* The forking thread is the child's main thread, on a stack of its
	 * own: a copy of the parent's that the child's accesses go to from
	 * now on, not the parent's stack row. */
	rt_thread_start_event(&rt_self, 0);
	rt_vg_process();
	rt_guard_leave(&rt_self);
}

__attribute__((constructor(101))) static void rt_init(void)
{
	struct rt_thread *t = &rt_self;
	t->guard++;
	/* first: under memprism's Valgrind tool, what follows is left out */
	int vg = rt_vg_init();
	rt_resolve();
	/* A set-user-ID, set-group-ID or capability-raising exec (secure
	 * execution, AT_SECURE) has its invoker's environment: MEMPRISM_OUT
	 * there would make it append to any file its owner may write. Such a
	 * process records nothing; secure_getenv reads NULL for it. */
	const char *out = secure_getenv(MP_ENV_OUT);
	if (!out || !*out) {
		if (getauxval(AT_SECURE) && getenv(MP_ENV_OUT))
			rt_say("not recording: this program runs with privileges its user lacks (set-user-ID, "
			       "set-group-ID or file capabilities), and " MP_ENV_OUT " is not trusted there",
			       NULL);
		rt_passive = 1;
		goto out;
	}
	if (vg != 0)
		goto out;
	rt_exec_env_init();
	const char *depth = secure_getenv(MP_ENV_STACK_DEPTH);
	rt_proc.stack_depth = 16;
	if (depth && *depth) {
		long d = strtol(depth, NULL, 10);
		rt_proc.stack_depth = d < 1 ? 1 : d > RT_STACK_MAX ? RT_STACK_MAX : (int)d;
	}
	const char *pagemap = secure_getenv(MP_ENV_PAGEMAP);
	rt_pagemap_enabled = pagemap && *pagemap == '1';
	const char *min_size = secure_getenv(MP_ENV_MIN_SIZE);
	if (min_size && *min_size)
		rt_proc.min_size = (size_t)strtoull(min_size, NULL, 10);
	/* record --source faults|pmu: samples are placed among events by time,
	 * so allocations and frees must not reuse an earlier clock reading */
	const char *exact = secure_getenv(MP_ENV_EXACT_TIMES);
	rt_proc.exact_times = exact && *exact == '1';
	const char *sample = secure_getenv(MP_ENV_SAMPLE_BURSTS);
	if (sample && *sample) {
		char *end;
		unsigned long long on = strtoull(sample, &end, 10), off = 0;
		if (*end == ',')
			off = strtoull(end + 1, &end, 10);
		if (on && off && !*end) {
			rt_proc.burst_on = on;
			rt_proc.burst_off = off;
		}
	}
	if (rt_out_open(out) != 0) {
		rt_say("cannot open the data file named by " MP_ENV_OUT "; not recording: ", out);
		goto out;
	}
	if (rt_bufs_init() != 0) {
		rt_say("cannot set up trace buffers; not recording", NULL);
		goto out;
	}
	rt_proc.id = rt_new_proc_id();
	rt_proc.pid = getpid();
	rt_live_attach();
	/* threads started before us (not through our pthread_create)? */
	char status[4096];
	size_t sl = rt_read_file("/proc/self/status", status, sizeof(status));
	const char *th = sl ? strstr(status, "\nThreads:") : NULL;
	if (!th || strtol(th + 9, NULL, 10) != 1)
		rt_multithreaded = 1;
	pthread_atfork(rt_atfork_prepare, rt_atfork_parent, rt_atfork_child);
	rt_thread_main_init(t);
	rt_recording = 1;
	if (rt_thread_setup(t) != 0) {
		rt_fail("no memory for the main thread's buffer");
		goto out;
	}
	/* modules first: their scan sets the "instrumented" flag the PROCESS chunk carries */
	rt_emit_initial_maps(t);
	if (!rt_proc.heap_lo) /* no [heap] yet: it will start at the current break */
		rt_proc.heap_lo = rt_proc.heap_hi = (uint64_t)sbrk(0);
	rt_emit_modules(t);
	rt_thread_start_event(t, 0);
	rt_emit_tls_blocks(t);
	rt_write_process_chunk(0, 0);
	rt_vg_process();
	rt_sig_init();
out:
	rt_guard_leave(t);
}

/* The process is ending: record the last events and write every buffer. */
void rt_shutdown(uint64_t status)
{
	if (!rt_recording || rt_proc.finished || getpid() != rt_proc.pid)
		return; /* not set up, done already, or a vfork child borrowing our memory */
	rt_sig_unwind(); /* exit from a signal handler: the thread's own stream ends */
	rt_self.guard++;
	rt_thread_exit_events(&rt_self);
	rt_proc.finished = 1;
	rt_recording = 0;
	rt_flush_all(0);
	if (status < MP_END_EXEC)
		rt_pagemap_final(); /* exec keeps no pages: nothing to translate */
	rt_write_end_chunk(status);
	rt_bufs_retire();
	rt_guard_leave(&rt_self);
}

__attribute__((destructor(101))) static void rt_fini(void)
{
	rt_shutdown(0);
}

/* _exit skips destructors (a forked child's usual way out). */
RT_EXPORT __attribute__((noreturn)) void _exit(int status)
{
	rt_shutdown(0);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

RT_EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	rt_shutdown(0);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
