// SPDX-License-Identifier: MIT
/*
 * Per-thread record buffers and the path from a full buffer to the data file.
 *
 * Each thread encodes its records into its own 1 MiB buffer (no lock on the
 * hot path). A full buffer becomes one chunk: compressed with one of a small
 * pool of static zstd contexts (a context is ~570 KiB, too much per thread
 * for programs with thousands of threads) and appended with a single write(2)
 * on the O_APPEND descriptor, so chunks of concurrent threads and processes
 * never interleave and a killed program leaves only whole chunks.
 *
 * Compression and writing happen on a writer thread: a thread whose buffer
 * is full queues it and goes on in its second buffer. It waits only if that
 * one is still queued, so a thread's chunks reach the file in order and the
 * memory held is bounded. Exit, exec, fork and fatal signals drain the queue
 * before they write anything themselves.
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "common/mp_env.h"
#include "rt/rt_int.h"
#include "rt/rt_live.h"
#include "rt/rt_proc.h"
#include "trace/trace_writer.h"

#define RT_ZSLOTS 4
#define RT_ZLEVEL 1
static int rt_zlevel = RT_ZLEVEL;

struct rt_zslot {
	pthread_mutex_t lock;
	ZSTD_CCtx *cctx;
	uint8_t *out; /* trace_chunk_bound(RT_BUF_SIZE + RT_BUF_SLACK) bytes */
};

static struct rt_zslot rt_zslots[RT_ZSLOTS];
static size_t rt_out_cap;
static pthread_mutex_t rt_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_thread *rt_registry;

#define RT_QUEUE 64

enum { RT_JOB_QUEUED, RT_JOB_WRITING, RT_JOB_DONE };

struct rt_job {
	uint8_t *buf;
	size_t len;
	uint32_t tid, seq, accesses;
	int *busy; /* cleared once written */
	struct mp_live_buf *live; /* the buffer's state for the launcher (EMPTY once written), or NULL */
	/* RT_JOB_*: whoever moves it from QUEUED to WRITING writes it, the
	 * writer thread or a fatal signal's flush (queue_finish_in_signal) */
	int state;
};

static pthread_mutex_t rt_q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rt_q_work = PTHREAD_COND_INITIALIZER, rt_q_done = PTHREAD_COND_INITIALIZER;
static struct rt_job rt_q[RT_QUEUE];
static unsigned rt_q_head, rt_q_tail; /* jobs: [head, tail) */
static int rt_writer_state; /* 0 none, 1 running, -1 could not start: write synchronously */

static void queue_drain(int in_signal);


static void *rt_map(size_t len)
{
	void *p = rt_real.mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int rt_bufs_init(void)
{
	const char *lv = secure_getenv(MP_ENV_ZSTD_LEVEL);
	if (lv && *lv)
		rt_zlevel = atoi(lv);
	size_t wks = ZSTD_estimateCCtxSize(rt_zlevel > 1 ? rt_zlevel : 1);
	rt_out_cap = trace_chunk_bound(RT_BUF_SIZE + RT_BUF_SLACK);
	for (int i = 0; i < RT_ZSLOTS; i++) {
		struct rt_zslot *z = &rt_zslots[i];
		pthread_mutex_init(&z->lock, NULL);
		void *w = rt_map(wks);
		z->out = rt_map(rt_out_cap);
		if (!w || !z->out)
			return -1;
		z->cctx = ZSTD_initStaticCCtx(w, wks);
		if (!z->cctx)
			return -1;
	}
	return 0;
}

void rt_bufs_lock_all(void)
{
	/* fork: the child gets no writer thread; let it find nothing queued */
	queue_drain(0);
	pthread_mutex_lock(&rt_q_lock);
	pthread_mutex_lock(&rt_registry_lock);
	for (int i = 0; i < RT_ZSLOTS; i++)
		pthread_mutex_lock(&rt_zslots[i].lock);
}

void rt_bufs_unlock_all(void)
{
	for (int i = RT_ZSLOTS - 1; i >= 0; i--)
		pthread_mutex_unlock(&rt_zslots[i].lock);
	pthread_mutex_unlock(&rt_registry_lock);
	pthread_mutex_unlock(&rt_q_lock);
}

void rt_bufs_reinit_locks(void)
{
	pthread_mutex_init(&rt_q_lock, NULL);
	pthread_cond_init(&rt_q_work, NULL);
	pthread_cond_init(&rt_q_done, NULL);
	rt_q_head = rt_q_tail = 0;
	rt_writer_state = 0; /* the writer thread stayed in the parent */
	pthread_mutex_init(&rt_registry_lock, NULL);
	for (int i = 0; i < RT_ZSLOTS; i++)
		pthread_mutex_init(&rt_zslots[i].lock, NULL);
}

/* --- the data file's descriptor -------------------------------------------
 * The program owns the descriptor table: it may close every descriptor
 * (close_range(3, ~0), closefrom, a loop over them, as daemons and
 * process spawners do) and open its own files, which then take the
 * lowest numbers, ours among them. A chunk written by number would then
 * go into the program's own file. The data file is kept at a number high in
 * the table, and before each write its descriptor is checked to be the
 * file it was (device and inode); if it is not, the file is opened again
 * by its path (absolute: record gives it), and the number the program
 * took is left to the program. */
static char out_path[PATH_MAX];
static dev_t out_dev;
static ino_t out_ino;

static int out_is_ours(int fd)
{
	struct stat sb;
	return fd >= 0 && fstat(fd, &sb) == 0 && sb.st_dev == out_dev && sb.st_ino == out_ino;
}

/* fd moved to a number high in the table (below the soft limit, where a
 * program's next open does not look first); fd itself if none is free. */
static int out_move_high(int fd)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 64)
		return fd;
	long floor = rl.rlim_cur > 1024 ? 1000 : (long)rl.rlim_cur - 16;
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, (int)floor);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

static int out_reopen(void)
{
	int fd = open(out_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && !out_is_ours(fd)) {
		close(fd); /* (another file at the path now) */
		return -1;
	}
	return fd >= 0 ? out_move_high(fd) : -1;
}

int rt_out_open(const char *path)
{
	size_t n = strlen(path);
	if (n >= sizeof(out_path))
		return -1;
	memcpy(out_path, path, n + 1);
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0) {
		if (fd >= 0)
			close(fd);
		rt_proc.fd = -1;
		return -1;
	}
	out_dev = sb.st_dev;
	out_ino = sb.st_ino;
	rt_proc.fd = out_move_high(fd);
	return 0;
}

/* The data file's descriptor, opened again if the program closed it or
 * put another file at its number; -1 if it cannot be. (Lock-free: a
 * signal handler's flush may come here.) */
static int out_fd(void)
{
	int fd = __atomic_load_n(&rt_proc.fd, __ATOMIC_ACQUIRE);
	if (fd < 0 || out_is_ours(fd))
		return fd;
	int n = out_reopen();
	if (n < 0)
		return -1;
	if (!__atomic_compare_exchange_n(&rt_proc.fd, &fd, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(n); /* (another thread opened it first) */
		return out_is_ours(fd) ? fd : -1;
	}
	return n;
}

/* The first failed append: its reason goes into the file's header, in
 * place (trace_file_mark_failed: no space needed), so a report can say the
 * disk filled up rather than "killed?"; then recording stops. */
static void write_failed(int err)
{
	static int once;
	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		return;
	int fd = out_fd();
	if (fd >= 0)
		trace_file_mark_failed(fd, err);
	rt_fail(err == ENOSPC   ? "cannot write the data file: no space left on the device (disk full)"
		: err == EDQUOT ? "cannot write the data file: disk quota exceeded"
		: err == EFBIG	? "cannot write the data file: file too large"
		: err == EIO	? "cannot write the data file: I/O error"
				: "cannot write the data file");
}

/* In a signal handler (crash) a slot may be held by the interrupted code:
 * only trylock there. */
static struct rt_zslot *slot_acquire(uint32_t hint, int may_block)
{
	for (int i = 0; i < RT_ZSLOTS; i++) {
		struct rt_zslot *z = &rt_zslots[(hint + (uint32_t)i) % RT_ZSLOTS];
		if (pthread_mutex_trylock(&z->lock) == 0)
			return z;
	}
	if (!may_block)
		return NULL;
	struct rt_zslot *z = &rt_zslots[hint % RT_ZSLOTS];
	pthread_mutex_lock(&z->lock);
	return z;
}

static void write_chunk(uint16_t type, uint32_t tid, uint32_t seq, uint32_t accesses, const void *payload,
			size_t len, int may_block)
{
	if (rt_proc.fd < 0 || len > RT_BUF_SIZE + RT_BUF_SLACK)
		return;
	struct rt_zslot *z = slot_acquire(tid, may_block);
	if (!z)
		return;
	struct mp_chunk_header h;
	memset(&h, 0, sizeof(h));
	h.type = type;
	h.pid = (uint32_t)getpid();
	h.tid = tid;
	h.proc_id = rt_proc.id;
	h.seq = seq;
	h.accesses = accesses;
	/* under Valgrind (record --source valgrind) compression would run on
	 * the simulated CPU, one thread at a time with the program: raw */
	size_t n = trace_chunk_build(&h, payload, len, z->out, rt_tool_accesses ? NULL : z->cctx, rt_zlevel);
	const int fd = out_fd();
	int err = fd < 0 ? EBADF : -trace_write_all(fd, z->out, n);
	pthread_mutex_unlock(&z->lock);
	if (err)
		write_failed(err);
	else
		__atomic_add_fetch(&rt_proc.chunks, 1, __ATOMIC_RELAXED);
}

void rt_write_chunk(uint16_t type, uint32_t tid, uint32_t seq, const void *payload, size_t len)
{
	rt_self.guard++;
	write_chunk(type, tid, seq, 0, payload, len, 1);
	rt_guard_leave(&rt_self);
}

static inline uint64_t ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	return 0; /* (RT_FLUSH_TICKS: x86-64 only) */
#endif
}

/* A chunk starts with the stream's epoch and time so it decodes on its own. */
static void chunk_start(struct rt_thread *t)
{
	uint8_t *p = t->buf;
	*p++ = MP_TAG(MP_REC_EPOCH, 0);
	p = mp_put_uv(p, t->epoch);
	*p++ = MP_TAG(MP_REC_TIME, 0);
	t->last_time = rt_now();
	t->last_cpu = rt_cpu();
	p = mp_put_uv(p, t->last_time);
	p = mp_put_uv(p, t->last_cpu);
	t->p = t->chunk_head = p;
	t->chunk_tsc = ticks();
	t->flush_due = 0;
	t->last_addr = t->last_ip = t->prev_ip = t->last_ev_addr = 0;
	t->chunk_base = t->naccess;
	t->chunk_plain = 1;
	rt_live_begin(t);
}

/* The chunk's header field `accesses` (trace_format.h): its access count
 * where it holds nothing else. (naccess is the thread's own: the loops'
 * copies of it are written back before anything flushes.) */
static uint32_t chunk_accesses(const struct rt_thread *t)
{
	uint64_t n = t->naccess - t->chunk_base;
	return t->chunk_plain && n <= MP_CHUNK_COUNT_MAX ? MP_CHUNK_PLAIN | (uint32_t)n : 0;
}

#define RT_SCRATCH_SIZE (64u << 10) /* sampling: where skipped accesses are written, never read */
#define RT_MAP_SIZE                                                                                   \
	(2 * (RT_BUF_SIZE + RT_BUF_SLACK) + RT_STACK_CACHE * sizeof(struct rt_stack_slot) +                  \
	 RT_UNWIND_CACHE * sizeof(struct rt_unwind_slot) + RT_SCRATCH_SIZE +                                  \
	 RT_BUF_SLACK)

/* t's buffers in m: nbufs of them, then the stack cache and the scratch area */
static void buffers_init(struct rt_thread *t, uint8_t *m, int nbufs)
{
	t->bufs[0] = m;
	t->bufs[1] = nbufs > 1 ? m + RT_BUF_SIZE + RT_BUF_SLACK : m;
	t->cur = 0;
	t->buf = m;
	t->stack_cache = (struct rt_stack_slot *)(m + (size_t)nbufs * (RT_BUF_SIZE + RT_BUF_SLACK));
	t->unwind_cache = (struct rt_unwind_slot *)(t->stack_cache + RT_STACK_CACHE);
	t->unwind_gen = __atomic_load_n(&rt_unwind_gen, __ATOMIC_ACQUIRE);
	t->scratch = (uint8_t *)(t->unwind_cache + RT_UNWIND_CACHE);
	t->skip_p = NULL;
	t->epoch = atomic_load(&rt_epoch);
	chunk_start(t);
	t->lim = RT_ACCESS_LIM(t);
	t->burst_end = rt_proc.burst_on ? t->naccess + rt_proc.burst_on : UINT64_MAX;
}

int rt_thread_setup(struct rt_thread *t)
{
	if (t->buf)
		return 0;
	if (t->state == RT_LOST)
		return -1;
	if (!t->tid)
		t->tid = gettid();
	_Static_assert(RT_MAP_SIZE <= MP_LIVE_REGION_BYTES, "a thread's mapping fits a shared region");
	uint8_t *m = rt_live_claim(t, RT_MAP_SIZE);
	if (!m)
		m = rt_map(RT_MAP_SIZE);
	if (!m)
		return -1;
	t->busy[0] = t->busy[1] = 0;
	buffers_init(t, m, 2);
	pthread_mutex_lock(&rt_registry_lock);
	t->next = rt_registry;
	rt_registry = t;
	t->state = RT_REGISTERED;
	pthread_mutex_unlock(&rt_registry_lock);
	return 0;
}

#define RT_CONTEXT_HEAD ((sizeof(struct rt_thread) + 63) & ~(size_t)63)
#define RT_CONTEXT_SIZE (RT_CONTEXT_HEAD + RT_MAP_SIZE - (RT_BUF_SIZE + RT_BUF_SLACK))

struct rt_thread *rt_context_new(int context)
{
	uint8_t *m = rt_map(RT_CONTEXT_SIZE); /* (mmap is async-signal-safe) */
	if (!m)
		return NULL;
	struct rt_thread *c = (struct rt_thread *)m;
	c->context = context;
	c->state = RT_REGISTERED; /* (in no registry: its thread's flushes find it) */
	buffers_init(c, m + RT_CONTEXT_HEAD, 1);
	return c;
}

void rt_context_free(struct rt_thread *c)
{
	if (c)
		rt_real.munmap(c, RT_CONTEXT_SIZE);
}

void rt_context_reset(struct rt_thread *c)
{
	c->seq = 0;
	c->naccess = c->naccess_flushed = 0;
	c->stack_next = 0;
	c->skip_p = NULL;
	c->skip_left = 0;
	c->guard = 0;
	rt_real.memset(c->stack_cache, 0, RT_STACK_CACHE * sizeof(*c->stack_cache));
	c->epoch = atomic_load(&rt_epoch);
	chunk_start(c);
	c->lim = RT_ACCESS_LIM(c);
	c->burst_end = rt_proc.burst_on ? rt_proc.burst_on : UINT64_MAX;
}

/* accesses: the header's count (chunk_accesses), 0 when not known */
static void flush_locked(struct rt_thread *t, uint8_t *end, uint32_t accesses, int may_block)
{
	size_t len = (size_t)(end - t->buf);
	uint32_t tid = ((uint32_t)t->tid & MP_TID_MASK) | (uint32_t)t->context << MP_TID_CONTEXT_SHIFT;
	write_chunk(MP_CHUNK_STREAM, tid, t->seq++, accesses, t->buf, len, may_block);
	if (t->live)
		rt_live_written(&t->live->buf[t->cur]);
}

/* --- the writer thread ------------------------------------------------- */

static void *writer_main(void *arg)
{
	(void)arg;
	rt_self.guard++; /* never record the writer itself */
	rt_vg_ignore_thread(); /* (nor may a Valgrind tool) */
	pthread_mutex_lock(&rt_q_lock);
	for (;;) {
		while (rt_q_head == rt_q_tail)
			pthread_cond_wait(&rt_q_work, &rt_q_lock);
		struct rt_job *jp = &rt_q[rt_q_head % RT_QUEUE], j = *jp;
		int queued = RT_JOB_QUEUED;
		int mine = __atomic_compare_exchange_n(&jp->state, &queued, RT_JOB_WRITING, 0, __ATOMIC_ACQ_REL,
						       __ATOMIC_ACQUIRE);
		pthread_mutex_unlock(&rt_q_lock);
		if (mine) {
			write_chunk(MP_CHUNK_STREAM, j.tid, j.seq, j.accesses, j.buf, j.len, 1);
			rt_live_written(j.live);
			__atomic_store_n(&jp->state, RT_JOB_DONE, __ATOMIC_RELEASE);
		}
		pthread_mutex_lock(&rt_q_lock);
		__atomic_store_n(j.busy, 0, __ATOMIC_RELEASE);
		rt_q_head++;
		pthread_cond_broadcast(&rt_q_done);
	}
	return NULL;
}

/* Called with rt_q_lock held. */
static void writer_start(void)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the writer inherits: no signals */
	pthread_t th;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	rt_writer_state = rt_real.pthread_create(&th, &a, writer_main, NULL) == 0 ? 1 : -1;
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * A fatal signal: every queued chunk must reach the file, in each thread's
 * order, before the process dies. The interrupted code may hold the
 * queue's lock (no condition variable is safe here anyway) and the writer
 * thread may be far behind on a loaded machine: wait for the job it is
 * writing, and write those it has not taken ourselves, in queue order.
 * Bounded: a writer stuck for seconds is given up.
 */
static void queue_finish_in_signal(void)
{
	unsigned head = __atomic_load_n(&rt_q_head, __ATOMIC_ACQUIRE), tail = __atomic_load_n(&rt_q_tail, __ATOMIC_ACQUIRE);
	uint64_t deadline = rt_now() + 3000000000ull;
	for (unsigned i = head; i != tail; i++) {
		struct rt_job *jp = &rt_q[i % RT_QUEUE];
		int queued = RT_JOB_QUEUED;
		if (__atomic_compare_exchange_n(&jp->state, &queued, RT_JOB_WRITING, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			write_chunk(MP_CHUNK_STREAM, jp->tid, jp->seq, jp->accesses, jp->buf, jp->len, 0);
			rt_live_written(jp->live);
			__atomic_store_n(&jp->state, RT_JOB_DONE, __ATOMIC_RELEASE);
			continue;
		}
		while (__atomic_load_n(&jp->state, __ATOMIC_ACQUIRE) != RT_JOB_DONE && rt_now() < deadline) {
			struct timespec ts = { 0, 100000 };
			nanosleep(&ts, NULL);
		}
	}
}

/* Waits until everything queued is written (in a signal handler: see
 * queue_finish_in_signal). */
static void queue_drain(int in_signal)
{
	if (rt_writer_state != 1)
		return;
	if (in_signal) {
		queue_finish_in_signal();
		return;
	}
	pthread_mutex_lock(&rt_q_lock);
	while (rt_q_head != rt_q_tail)
		pthread_cond_wait(&rt_q_done, &rt_q_lock);
	pthread_mutex_unlock(&rt_q_lock);
}

void rt_queue_drain(void)
{
	queue_drain(0);
}

/* Hands the current buffer to the writer and switches to the other one
 * (waiting until it is free). Returns 0, or -1 to write synchronously. */
static int queue_current(struct rt_thread *t, size_t len)
{
	pthread_mutex_lock(&rt_q_lock);
	if (rt_writer_state == 0)
		writer_start();
	if (rt_writer_state != 1) {
		pthread_mutex_unlock(&rt_q_lock);
		return -1;
	}
	int other = 1 - t->cur;
	while (__atomic_load_n(&t->busy[other], __ATOMIC_ACQUIRE) || rt_q_tail - rt_q_head >= RT_QUEUE)
		pthread_cond_wait(&rt_q_done, &rt_q_lock);
	t->busy[t->cur] = 1;
	const uint32_t accesses = chunk_accesses(t);
	rt_q[rt_q_tail % RT_QUEUE] = (struct rt_job){ t->buf,	   len,			      (uint32_t)t->tid,
						      t->seq++,	   accesses,		      &t->busy[t->cur],
						      rt_live_queue(t, len, accesses), RT_JOB_QUEUED };
	/* until buf is the other buffer, a fatal signal's flush must not
	 * write this one again (flush_final) */
	__atomic_store_n(&t->queued, t->buf, __ATOMIC_RELEASE);
	__atomic_store_n(&rt_q_tail, rt_q_tail + 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&rt_q_work);
	pthread_mutex_unlock(&rt_q_lock);
	t->cur = other;
	t->buf = t->bufs[other];
	if (t->lim)
		t->lim = t->buf + RT_BUF_SIZE; /* (NULL while sampling skips) */
	__atomic_store_n(&t->queued, NULL, __ATOMIC_RELEASE);
	return 0;
}

void rt_flush(struct rt_thread *t)
{
	if (!t->buf || rt_proc.finished)
		return;
	int skipping = t->skip_p != NULL; /* (before exec): the real cursor is flushed */
	rt_skip_suspend(t);
	t->guard++;
	__atomic_add_fetch(&rt_proc.accesses, t->naccess - t->naccess_flushed, __ATOMIC_RELAXED);
	t->naccess_flushed = t->naccess;
	/* a signal handlers' context writes its own chunks (rt_context_new);
	 * so does every thread under Valgrind, where chunks go out raw: the
	 * writer thread, there to compress beside the program, would have
	 * nothing to do but wait for Valgrind to run it (it may not before a
	 * kill) */
	if (t->context || rt_tool_accesses || queue_current(t, (size_t)(t->p - t->buf)) != 0)
		flush_locked(t, t->p, chunk_accesses(t), 1);
	chunk_start(t);
	if (t == &rt_self)
		rt_guard_leave(t);
	else
		t->guard--;
	if (skipping)
		rt_skip_resume(t);
}

void rt_flush_records(struct rt_thread *t)
{
	/* (while sampling skips, the real cursor waits in skip_p) */
	if (t->buf && (t->skip_p ? t->skip_p : t->p) != t->chunk_head)
		rt_flush(t);
}

/*
 * Sampling skips a thread's accesses by letting the access path go on
 * writing them, at full speed, into a scratch area nobody reads, instead of
 * sending each one out of line (a hot loop's copy of the state runs on
 * unchanged). naccess goes on counting: the skip ends when it reaches
 * burst_end. The real cursor and the delta bases the reader knows wait in
 * skip_*; the epoch too, so that the first access after the skip writes the
 * epoch record again if it changed meanwhile.
 */
static void skip_start(struct rt_thread *t, uint64_t n)
{
	t->skip_left = 0;
	t->skip_p = t->p;
	t->skip_base = t->naccess;
	t->skip_addr = t->last_addr;
	t->skip_ip = t->last_ip;
	t->skip_prev = t->prev_ip;
	t->skip_epoch = t->epoch;
	t->burst_end = t->naccess + n;
	t->lim = t->scratch + RT_SCRATCH_SIZE;
	__atomic_store_n(&t->p, t->scratch, __ATOMIC_RELEASE);
}

void rt_burst_pause(struct rt_thread *t)
{
	if (t->skip_p) {
		/* that was the last access to skip: record from the next one */
		rt_skip_suspend(t);
		t->skip_left = 0;
		t->burst_end = t->naccess + rt_proc.burst_on;
	} else if (rt_proc.burst_off) {
		skip_start(t, rt_proc.burst_off);
	}
}

/* Tells the reader how many accesses this thread skipped. */
static void note_skipped(struct rt_thread *t, uint64_t n)
{
	if (rt_buf_full(t))
		rt_flush(t);
	uint8_t *p = t->p;
	*p++ = MP_TAG(MP_REC_DROPPED, 0);
	p = mp_put_uv(p, n);
	t->chunk_plain = 0;
	__atomic_store_n(&t->p, p, __ATOMIC_RELEASE);
}

void rt_skip_suspend(struct rt_thread *t)
{
	if (!t->skip_p)
		return;
	uint64_t done = t->naccess - t->skip_base;
	t->skip_left = t->burst_end - t->naccess;
	t->naccess = t->skip_base;
	t->burst_end = UINT64_MAX;
	t->last_addr = t->skip_addr;
	t->last_ip = t->skip_ip;
	t->prev_ip = t->skip_prev;
	t->epoch = t->skip_epoch;
	t->lim = t->buf + RT_BUF_SIZE;
	uint8_t *p = t->skip_p;
	t->skip_p = NULL;
	__atomic_store_n(&t->p, p, __ATOMIC_RELEASE);
	if (done)
		note_skipped(t, done);
}

void rt_skip_resume(struct rt_thread *t)
{
	if (t->skip_left && t->buf && !t->skip_p)
		skip_start(t, t->skip_left);
}

void rt_burst_flush_skipped(struct rt_thread *t)
{
	rt_skip_suspend(t);
	t->skip_left = 0;
}

/*
 * A process that records nothing: the inline access paths of code built
 * by `memprism gcc` in functions without a passive copy (small ones, and
 * those gcc cannot copy: docs/instrumentation.md) would call out at every
 * access, finding no buffer; they
 * write their records into this area instead, at the straight path's
 * speed, and call out once per RT_PASSIVE_SIZE bytes, to start over
 * (rt_tsan.c). It is written by every thread at once and never read: its
 * bytes mean nothing. (Not under Valgrind, where the tool would take those
 * stores for the program's; not for the callbacks, whose way out when not
 * recording is one compare.)
 */
#define RT_PASSIVE_SIZE (64u << 10)
static uint8_t rt_passive_area[RT_PASSIVE_SIZE + RT_BUF_SLACK];

void rt_passive_scratch(struct rt_thread *t)
{
	t->p = rt_passive_area;
	t->lim = rt_passive_area + RT_PASSIVE_SIZE;
	t->burst_end = UINT64_MAX;
	t->epoch = atomic_load_explicit(&rt_epoch, memory_order_relaxed); /* (else every access would write one) */
}

void rt_access_slow(void *addr, unsigned code, uint64_t len, void *ip)
{
	struct rt_thread *t = &rt_self;
	if (!rt_recording || t->guard || t->state == RT_EXITED || rt_tool_accesses)
		return; /* not recording, inside a hook, after the thread's exit, or a tool records accesses */
	if (RT_UNLIKELY(t->state == RT_LOST)) {
		t->naccess++; /* a handler with no stream: counted, not recorded */
		return;
	}
	if (t->skip_p) {
		/* skipping, the scratch area full: start it over */
		__atomic_store_n(&t->p, t->scratch, __ATOMIC_RELEASE);
	} else if (!t->buf) {
		t->guard++;
		int err = rt_thread_setup(t);
		rt_guard_leave(t);
		if (err) {
			rt_fail("no memory for a thread's trace buffer");
			return;
		}
	} else {
		rt_flush(t);
	}
	if (t->p < t->lim)
		rt_encode(t, t->p, (uint64_t)addr, code, len, (uint64_t)ip);
}

/* What t holds at exit or crash: its thread may still run and append;
 * take what it has committed (t->p is stored after the record's bytes). */
static void flush_final(struct rt_thread *t, int mine)
{
	if (!t->buf || __atomic_load_n(&t->queued, __ATOMIC_ACQUIRE) == t->buf)
		return; /* (queued: the writer's, or queue_finish_in_signal's) */
	uint8_t *end = __atomic_load_n(&t->p, __ATOMIC_ACQUIRE);
	uint64_t n = __atomic_load_n(&t->naccess, __ATOMIC_RELAXED);
	if (end < t->buf || end > t->buf + RT_BUF_SIZE + RT_BUF_SLACK) {
		/* skipping (sampling): the real cursor and count wait aside */
		end = t->skip_p;
		n = t->skip_base;
		if (!end)
			return;
	}
	__atomic_add_fetch(&rt_proc.accesses, n - t->naccess_flushed, __ATOMIC_RELAXED);
	t->naccess_flushed = n;
	if (end > t->buf)
		flush_locked(t, end, 0, mine); /* (others may still run: no count) */
}

static void flush_final_other(struct rt_thread *t)
{
	flush_final(t, 0);
}

static void flush_final_mine(struct rt_thread *t)
{
	flush_final(t, 1);
}

void rt_flush_all(int in_signal)
{
	/* Exit or crash. Nothing is flushed after this (rt_proc.finished).
	 * Queued buffers hold earlier records: they go first. Each thread's
	 * signal handlers have streams of their own (rt_signal.c). */
	queue_drain(in_signal);
	int locked = pthread_mutex_trylock(&rt_registry_lock) == 0;
	for (struct rt_thread *t = rt_registry; t; t = t->next) {
		flush_final(t, t == &rt_self);
		rt_sig_each_context(t, t == &rt_self ? flush_final_mine : flush_final_other);
	}
	if (locked)
		pthread_mutex_unlock(&rt_registry_lock);
}

void rt_thread_unregister(struct rt_thread *t)
{
	if (t->state != RT_REGISTERED)
		return;
	rt_flush(t);
	/* the buffers are unmapped below: wait until the writer is done with them */
	if (rt_writer_state == 1) {
		pthread_mutex_lock(&rt_q_lock);
		while (__atomic_load_n(&t->busy[0], __ATOMIC_ACQUIRE) || __atomic_load_n(&t->busy[1], __ATOMIC_ACQUIRE))
			pthread_cond_wait(&rt_q_done, &rt_q_lock);
		pthread_mutex_unlock(&rt_q_lock);
	}
	pthread_mutex_lock(&rt_registry_lock);
	for (struct rt_thread **pp = &rt_registry; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	t->state = RT_EXITED;
	pthread_mutex_unlock(&rt_registry_lock);
	uint8_t *b = t->bufs[0];
	t->skip_left = 0;
	t->skip_p = NULL;
	t->lim = NULL;
	t->p = NULL;
	t->buf = NULL;
	if (t->live)
		rt_live_free(t, b, RT_MAP_SIZE);
	else
		rt_real.munmap(b, RT_MAP_SIZE);
}

void rt_bufs_retire(void)
{
	int locked = pthread_mutex_trylock(&rt_registry_lock) == 0;
	for (struct rt_thread *t = rt_registry; t; t = t->next)
		rt_live_retire(t);
	if (locked)
		pthread_mutex_unlock(&rt_registry_lock);
}

void rt_bufs_after_fork(struct rt_thread *self)
{
	/* Only the forking thread exists in the child; the buffers of the others
	 * are the parent's to write. Our own unflushed records are the
	 * parent's too: start afresh. */
	rt_registry = NULL;
	if (self->buf) {
		self->next = NULL;
		rt_registry = self;
		self->tid = gettid();
		if (rt_live_renew(self, self->bufs[0], RT_MAP_SIZE) != 0)
			rt_fail("no memory for the trace buffer of a fork child");
		self->seq = 0;
		self->naccess = self->naccess_flushed = 0;
		self->burst_end = rt_proc.burst_on ? rt_proc.burst_on : UINT64_MAX;
		self->skip_p = NULL; /* a skip in progress is the parent's */
		self->skip_left = 0;
		self->lim = RT_ACCESS_LIM(self);
		self->stack_next = 0;
		self->busy[0] = self->busy[1] = 0;
		memset(self->stack_cache, 0, RT_STACK_CACHE * sizeof(*self->stack_cache));
		chunk_start(self);
	}
}

uint8_t *rt_event_begin(struct rt_thread *t, unsigned type, uint64_t *epoch_out)
{
	if (RT_UNLIKELY(t->state == RT_LOST)) {
		t->naccess++; /* (an event of a handler with no stream: counted with its accesses) */
		return NULL;
	}
	if (!t->buf && rt_thread_setup(t) != 0) {
		rt_fail("no memory for a thread's trace buffer");
		return NULL;
	}
	rt_skip_suspend(t);
	if (rt_buf_full(t))
		rt_flush(t);
	/* A clock read costs ~30 ns in a VM, as much as the rest of an
	 * allocation event: ALLOC and FREE read it every RT_CLOCK_EVERY-th
	 * time and reuse the last reading (and CPU) otherwise, so their times
	 * are exact to within a few events; all other events read it, and so
	 * do they when samples must be placed among them by time. */
	uint64_t e = rt_next_epoch(), now = t->last_time;
	if ((type != MP_EV_ALLOC && type != MP_EV_FREE) || rt_proc.exact_times ||
	    (++t->clock_skip & (rt_tool_accesses ? RT_VG_CLOCK_EVERY - 1 : RT_CLOCK_EVERY - 1)) == 0) {
		now = rt_now();
		t->last_cpu = rt_cpu();
	}
	*epoch_out = e;
	uint8_t *p = t->p;
	*p++ = MP_TAG(MP_REC_EVENT, type);
	/* epoch and time as deltas: an allocation-heavy program writes
	 * millions of events, and their size is what it pays for */
	p = mp_put_uv(p, e - t->epoch);
	p = mp_put_uv(p, mp_zigzag((int64_t)(now - t->last_time)));
	t->epoch = e;
	t->last_time = now;
	return p;
}

uint8_t *rt_put_ev_addr(struct rt_thread *t, uint8_t *p, uint64_t addr)
{
	p = mp_put_uv(p, mp_zigzag((int64_t)(addr - t->last_ev_addr)));
	t->last_ev_addr = addr;
	return p;
}

void rt_event_end(struct rt_thread *t, uint8_t *p)
{
	t->chunk_plain = 0; /* (every event ends here, STACK_DEF too) */
	__atomic_store_n(&t->p, p, __ATOMIC_RELEASE);
	rt_live_commit(t, p);
	rt_skip_resume(t);
	if (RT_UNLIKELY(ticks() - t->chunk_tsc > RT_FLUSH_TICKS) && !t->context) {
		if (t->guard)
			t->flush_due = 1; /* (the hook's other events with it) */
		else
			rt_flush(t);
	}
}

void rt_guard_left(struct rt_thread *t)
{
	if (t->flush_due) {
		t->flush_due = 0;
		rt_flush(t);
	}
	if (__atomic_load_n(&t->sig.npending, __ATOMIC_RELAXED))
		rt_sig_deliver_pending();
}

uint8_t *rt_put_str(uint8_t *p, const char *s, size_t max)
{
	size_t n = 0;
	if (s)
		while (n < max && s[n])
			n++;
	p = mp_put_uv(p, n);
	for (size_t i = 0; i < n; i++)
		*p++ = (uint8_t)s[i];
	return p;
}
