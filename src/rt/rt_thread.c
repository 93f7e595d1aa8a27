// SPDX-License-Identifier: MIT
/*
 * Threads, exec and dlopen: thread start (tid, creator, stack range) and
 * exit (with its final name), flushing before exec replaces the image, and
 * new ELF images brought in by dlopen (their statics become objects).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt/rt_int.h"
#include "rt/rt_numa.h"
#include "rt/rt_proc.h"

struct rt_start {
	void *(*fn)(void *);
	void *arg;
	pid_t creator;
	size_t aff_len; /* pthread_attr_setaffinity_np's mask on the attribute */
	uint8_t aff[128];
};

static pthread_key_t rt_key;
static pthread_once_t rt_key_once = PTHREAD_ONCE_INIT;

static void emit_thread_name(struct rt_thread *t)
{
	char path[64] = "/proc/self/task/", digits[16], name[64];
	int nd = 0, l = 16;
	for (unsigned v = (unsigned)t->tid; nd == 0 || v; v /= 10)
		digits[nd++] = (char)('0' + v % 10);
	while (nd)
		path[l++] = digits[--nd];
	const char *tail = "/comm";
	while (*tail)
		path[l++] = *tail++;
	path[l] = 0;
	size_t n = rt_read_file(path, name, sizeof(name));
	while (n && (name[n - 1] == '\n'))
		name[--n] = 0;
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_THREAD_NAME, &e);
	if (!p)
		return;
	p = rt_put_str(p, name, 63);
	rt_event_end(t, p);
}

void rt_thread_exit_events(struct rt_thread *t)
{
	rt_burst_flush_skipped(t);
	emit_thread_name(t);
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_THREAD_EXIT, &e);
	if (!p)
		return;
	p = mp_put_uv(p, rt_cpu());
	rt_event_end(t, p);
}

static void thread_dtor(void *v)
{
	struct rt_thread *t = &rt_self;
	(void)v;
	if (!rt_recording)
		return;
	rt_sig_unwind(); /* (pthread_exit from a signal handler) */
	if (t->state != RT_REGISTERED)
		return;
	t->guard++;
	rt_thread_exit_events(t);
	rt_thread_unregister(t);
	rt_sig_thread_exit(); /* after: no handler makes a context for an exited thread */
	rt_guard_leave(t);
}

static void make_key(void)
{
	pthread_key_create(&rt_key, thread_dtor);
}

void rt_thread_start_event(struct rt_thread *t, pid_t creator)
{
	uint64_t e;
	uint8_t *p = rt_event_begin(t, MP_EV_THREAD_START, &e);
	if (!p)
		return;
	p = mp_put_uv(p, rt_cpu());
	p = mp_put_uv(p, (uint64_t)t->tid);
	p = mp_put_uv(p, (uint64_t)creator);
	p = mp_put_uv(p, t->stack_lo);
	p = mp_put_uv(p, t->stack_hi);
	p = rt_put_str(p, "", 0);
	rt_event_end(t, p);
}

void rt_thread_main_init(struct rt_thread *t)
{
	t->tid = gettid();
	pthread_once(&rt_key_once, make_key);
}

static void *trampoline(void *v)
{
	/* field by field: a whole-struct copy (the mask makes it large) would be
	 * a memcpy call, recorded as this thread's access before the guard */
	struct rt_start *sp = v;
	struct rt_start s;
	s.fn = sp->fn;
	s.arg = sp->arg;
	s.creator = sp->creator;
	struct rt_thread *t = &rt_self;
	if (rt_recording) {
		t->guard++;
		t->tid = gettid();
		pthread_attr_t a;
		if (pthread_getattr_np(pthread_self(), &a) == 0) {
			void *addr;
			size_t sz;
			if (pthread_attr_getstack(&a, &addr, &sz) == 0) {
				t->stack_lo = (uint64_t)addr;
				t->stack_hi = (uint64_t)addr + sz;
			}
			pthread_attr_destroy(&a);
		}
		if (rt_thread_setup(t) == 0) {
			pthread_setspecific(rt_key, t);
			rt_thread_start_event(t, s.creator);
			rt_emit_tls_blocks(t);
			rt_numa_thread_started((unsigned long)pthread_self(), t->tid);
			if (sp->aff_len) /* created with an affinity attribute */
				rt_numa_affinity_event(t, t->tid, sp->aff, sp->aff_len);
		} else {
			rt_fail("no memory for a thread's trace buffer");
		}
		rt_guard_leave(t);
	}
	t->guard++;
	rt_real.free(v);
	rt_guard_leave(t);
	return s.fn(s.arg);
}

RT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	rt_resolve();
	/* from now on epochs need an atomic increment (the new thread's first
	 * instruction comes after this store: pthread_create synchronizes) */
	__atomic_store_n(&rt_multithreaded, 1, __ATOMIC_SEQ_CST);
	if (!rt_recording)
		return rt_real.pthread_create(th, attr, fn, arg);
	rt_self.guard++;
	struct rt_start *s = rt_real.malloc(sizeof(*s));
	rt_guard_leave(&rt_self);
	if (!s)
		return rt_real.pthread_create(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->creator = rt_self.tid ? rt_self.tid : gettid();
	rt_self.guard++; /* the mask copy may be a memcpy call */
	s->aff_len = rt_numa_attr_mask(attr, s->aff, sizeof(s->aff));
	rt_guard_leave(&rt_self);
	/* What this thread recorded so far goes out before the new thread
	 * runs: a thread that allocates, starts workers and waits for them
	 * otherwise holds its allocations until it ends, and a program killed
	 * meanwhile without a flush (SIGKILL, the OOM killer) would leave its
	 * workers' accesses to objects nobody recorded. */
	if (!rt_self.context)
		rt_flush_records(&rt_self);
	int r = rt_real.pthread_create(th, attr, trampoline, s);
	if (r != 0)
		rt_real.free(s);
	return r;
}

/* A thread that waits for another sends what it recorded out first: the
 * blocks it allocated for that thread since it started it, which a
 * program killed meanwhile would otherwise leave unrecorded. */
RT_EXPORT int pthread_join(pthread_t th, void **ret)
{
	rt_resolve();
	if (rt_recording && !rt_self.guard && !rt_self.context && !rt_self.chunk_plain)
		rt_flush_records(&rt_self);
	return rt_real.pthread_join(th, ret);
}

/* exec replaces the image: what this thread recorded must reach the file
 * first. The new image records afresh (MEMPRISM_OUT is in its environment). */
static void before_exec(void)
{
	if (!rt_recording)
		return;
	rt_sig_unwind(); /* (exec from a signal handler) */
	rt_self.guard++;
	rt_flush(&rt_self);
	rt_sig_flush_contexts();
	rt_queue_drain(); /* the writer thread does not survive exec */
	/* If exec fails the process records on, and a later END supersedes this. */
	rt_write_end_chunk(MP_END_EXEC);
	rt_bufs_retire();
	rt_guard_leave(&rt_self);
}

/* --- the environment an exec keeps -----------------------------------------
 * A program may exec another with an environment of its own making (env -i,
 * a sandbox's clean one, execle with a list): without LD_PRELOAD and
 * MEMPRISM_OUT the new image would run unrecorded, and nothing would say so. Every
 * MEMPRISM_* variable of the recorded process, and the runtime's entry of
 * LD_PRELOAD, go into the new image's environment where it lacks them; the
 * rest is the program's. Kept in static memory from the start (a program
 * may overwrite its first environment's strings, as setproctitle does). */
#define EXEC_ENV_BYTES 8192
#define EXEC_ENV_VARS 32
static char exec_env_buf[EXEC_ENV_BYTES];
static const char *exec_vars[EXEC_ENV_VARS]; /* "MEMPRISM_...=..." */
static size_t nexec_vars;
static char exec_rt_path[PATH_MAX]; /* the runtime's shared object */

void rt_exec_env_init(void)
{
	size_t used = 0;
	extern char **environ;
	for (char **e = environ; e && *e && nexec_vars < EXEC_ENV_VARS; e++) {
		size_t n = strlen(*e) + 1;
		if (strncmp(*e, "MEMPRISM_", 9) != 0 || used + n > sizeof(exec_env_buf))
			continue;
		memcpy(exec_env_buf + used, *e, n);
		exec_vars[nexec_vars++] = exec_env_buf + used;
		used += n;
	}
	Dl_info info;
	if (dladdr((void *)rt_exec_env_init, &info) && info.dli_fname && strlen(info.dli_fname) < PATH_MAX)
		snprintf(exec_rt_path, sizeof(exec_rt_path), "%s", info.dli_fname);
}

/* Whether envp has a variable of name (the "NAME=" of s); its entry. */
static const char *env_has(char *const *envp, const char *s)
{
	const size_t n = (size_t)(strchr(s, '=') - s) + 1;
	for (char *const *e = envp; e && *e; e++)
		if (!strncmp(*e, s, n))
			return *e;
	return NULL;
}

/* envp with what recording needs added, in pages of its own (*room, to
 * give back by exec_env_free if the exec fails: mmap, not malloc, which an
 * exec after fork in a threaded program may not call), or envp itself when
 * it lacks nothing or that fails. */
struct exec_room {
	void *p;
	size_t len;
};

static char *const *exec_envp_(char *const *envp, struct exec_room *room)
{
	room->p = NULL;
	if (!rt_recording || !exec_rt_path[0])
		return envp;
	size_t n = 0;
	while (envp && envp[n])
		n++;
	const char *pl = env_has(envp, "LD_PRELOAD=");
	int missing = !pl || !strstr(pl + 11, exec_rt_path);
	for (size_t i = 0; i < nexec_vars && !missing; i++)
		missing = !env_has(envp, exec_vars[i]);
	if (!missing)
		return envp;
	const size_t pl_len = 11 + strlen(exec_rt_path) + 1 + (pl ? strlen(pl + 11) : 0) + 1;
	room->len = (n + nexec_vars + 2) * sizeof(char *) + pl_len;
	room->p = rt_real.mmap(NULL, room->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (room->p == MAP_FAILED) {
		room->p = NULL;
		return envp;
	}
	char **out = room->p, *preload = (char *)(out + n + nexec_vars + 2);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (envp[i] != pl)
			out[k++] = envp[i];
	for (size_t i = 0; i < nexec_vars; i++)
		if (!env_has(envp, exec_vars[i]))
			out[k++] = (char *)exec_vars[i];
	if (pl && strstr(pl + 11, exec_rt_path)) {
		out[k++] = (char *)pl;
	} else {
		snprintf(preload, pl_len, "LD_PRELOAD=%s%s%s", exec_rt_path, pl && pl[11] ? ":" : "", pl ? pl + 11 : "");
		out[k++] = preload;
	}
	out[k] = NULL;
	return out;
}

static void exec_env_free(struct exec_room *room)
{
	if (room->p)
		munmap(room->p, room->len);
}

/* (the runtime's own string calls, guarded: not the program's accesses) */
static char *const *exec_envp(char *const *envp, struct exec_room *room)
{
	rt_self.guard++;
	char *const *e = exec_envp_(envp, room);
	rt_guard_leave(&rt_self);
	return e;
}

/* The path a program execs itself by. Under Valgrind (record --source
 * valgrind) /proc/self/exe is Valgrind's tool, which the Valgrind that
 * runs the new image cannot load as a program ("mmap(0x58000000, 4096)
 * failed in UME"): the exec would fail where the program runs itself
 * again, a re-exec or a helper process by the same binary. The path
 * becomes the program's own, which Valgrind gives for that link. */
static const char *exec_path_(const char *path, char buf[PATH_MAX])
{
	if (!rt_tool_accesses || !path || strncmp(path, "/proc/", 6) != 0)
		return path;
	char own[64];
	snprintf(own, sizeof(own), "/proc/%d/exe", (int)getpid());
	if (strcmp(path, "/proc/self/exe") != 0 && strcmp(path, "/proc/thread-self/exe") != 0 &&
	    strcmp(path, own) != 0)
		return path;
	ssize_t n = readlink(path, buf, PATH_MAX - 1);
	if (n <= 0 || n >= PATH_MAX - 1)
		return path;
	buf[n] = 0;
	return buf;
}

static const char *exec_path(const char *path, char buf[PATH_MAX])
{
	rt_self.guard++;
	const char *p = exec_path_(path, buf);
	rt_guard_leave(&rt_self);
	return p;
}

RT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	rt_resolve();
	char buf[PATH_MAX];
	struct exec_room room;
	path = exec_path(path, buf);
	envp = exec_envp(envp, &room);
	before_exec();
	int r = rt_real.execve(path, argv, envp);
	exec_env_free(&room);
	return r;
}

/* execv and execvp are execve and execvpe with the environment's
 * variables, which the runtime may add to (exec_envp) */
RT_EXPORT int execv(const char *path, char *const argv[])
{
	extern char **environ;
	return execve(path, argv, environ);
}

static int (*real_execvpe)(const char *, char *const[], char *const[]);

RT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!real_execvpe)
		real_execvpe = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execvpe");
	char buf[PATH_MAX];
	struct exec_room room;
	file = exec_path(file, buf);
	envp = exec_envp(envp, &room);
	before_exec();
	int r = real_execvpe(file, argv, envp);
	exec_env_free(&room);
	return r;
}

RT_EXPORT int execvp(const char *file, char *const argv[])
{
	extern char **environ;
	return execvpe(file, argv, environ);
}

RT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	static int (*real)(int, char *const[], char *const[]);
	if (!real)
		real = (int (*)(int, char *const[], char *const[]))dlsym(RTLD_NEXT, "fexecve");
	struct exec_room room;
	envp = exec_envp(envp, &room);
	before_exec();
	int r = real(fd, argv, envp);
	exec_env_free(&room);
	return r;
}

/* posix_spawn and posix_spawnp exec in a child glibc makes without fork
 * (its execve is libc's own, past the runtime's): the environment they
 * are given is completed here, in the parent. (The child's image records
 * through LD_PRELOAD as any exec'd one.) */
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
			char *const[], char *const[]);

static int spawn_with(spawn_fn *real, const char *name, pid_t *pid, const char *path,
		      const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr, char *const argv[],
		      char *const envp[])
{
	if (!*real)
		*real = (spawn_fn)dlsym(RTLD_NEXT, name);
	struct exec_room room;
	int r = (*real)(pid, path, fa, attr, argv, exec_envp(envp, &room));
	exec_env_free(&room);
	return r;
}

RT_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static spawn_fn real;
	return spawn_with(&real, "posix_spawn", pid, path, fa, attr, argv, envp);
}

RT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static spawn_fn real;
	return spawn_with(&real, "posix_spawnp", pid, file, fa, attr, argv, envp);
}

/* The list forms. glibc's execl* call its execve inside libc, past the
 * interposed one, and the image's records were lost; they gather their
 * arguments and go through the vector forms above instead. */
#define RT_EXEC_ARGS_MAX 4096

static int exec_list(const char *path, const char *arg, va_list ap, int search, int with_env)
{
	/* n: the arguments up to the NULL that ends them, arg included */
	va_list count;
	va_copy(count, ap);
	size_t n = 0;
	for (const char *a = arg; a; a = va_arg(count, const char *))
		if (++n >= RT_EXEC_ARGS_MAX) {
			va_end(count);
			errno = E2BIG;
			return -1;
		}
	va_end(count);
	char *argv[n + 1];
	for (size_t i = 0; i < n; i++)
		argv[i] = i ? va_arg(ap, char *) : (char *)arg;
	argv[n] = NULL;
	if (with_env) {
		if (n)
			(void)va_arg(ap, char *); /* (the NULL, when it was not arg) */
		char *const *envp = va_arg(ap, char *const *);
		return execve(path, argv, envp);
	}
	return search ? execvp(path, argv) : execv(path, argv);
}

RT_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_list(path, arg, ap, 0, 0);
	va_end(ap);
	return r;
}

RT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_list(file, arg, ap, 1, 0);
	va_end(ap);
	return r;
}

RT_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int r = exec_list(path, arg, ap, 0, 1);
	va_end(ap);
	return r;
}

RT_EXPORT void *dlopen(const char *file, int mode)
{
	rt_resolve();
	void *h = rt_real.dlopen(file, mode);
	if (h && rt_recording && !rt_self.guard) {
		rt_self.guard++;
		rt_emit_modules(&rt_self);
		rt_guard_leave(&rt_self);
	}
	return h;
}

RT_EXPORT int dlclose(void *handle)
{
	static int (*real)(void *);
	if (!real)
		real = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	int r = real(handle);
	if (r == 0)
		__atomic_add_fetch(&rt_unwind_gen, 1, __ATOMIC_RELEASE);
	if (r == 0 && rt_recording && !rt_self.guard) {
		rt_self.guard++;
		rt_emit_unloads(&rt_self);
		rt_guard_leave(&rt_self);
	}
	return r;
}
