/* SPDX-License-Identifier: MIT */
/*
 * Internals of the runtime preloaded into the profiled program
 * (libmemprism-rt.so). Rules for every file here: no libc malloc, no stdio,
 * no abort; a per-thread guard is checked first in every hook; on an internal
 * failure recording stops (rt_fail) and the program goes on.
 */
#ifndef MP_RT_INT_H
#define MP_RT_INT_H

#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/varint.h"
#include "rt/rt_unwind.h"
#include "trace/trace_format.h"

#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RT_EXPORT __attribute__((visibility("default")))

#define RT_BUF_SIZE (1u << 20) /* encoded bytes per chunk */
#define RT_BUF_SLACK 1024 /* room past the limit for one record of any kind */
#define RT_STACK_MAX 64
#define RT_STACK_CACHE 1024
#define RT_CLOCK_EVERY 8 /* allocation events per clock read (power of two) */
/* the same under Valgrind (record --source valgrind), where a clock read
 * and the CPU number are system calls that Valgrind handles (~2 us) */
#define RT_VG_CLOCK_EVERY 256
/* A thread's buffer goes out when full, which a thread that makes few
 * accesses (under Valgrind: none, the tool records them) may not be for
 * the whole run, holding its allocations: an event that finds its chunk
 * started more than this many TSC ticks ago (about half a second) has it
 * sent out when the hook that made it ends (an allocation's mapping and
 * the block together), so that a program killed without a flush (SIGKILL,
 * the OOM killer) loses no event of a thread that makes few, and about
 * half a second of one that makes many. (The TSC, not the clock: a clock
 * read costs as much as an allocation event, and under Valgrind is a
 * system call; rdtsc is an instruction. x86-64 only; elsewhere buffers go
 * out when full.) */
#define RT_FLUSH_TICKS (1ull << 30)
#define RT_SIG_DEPTH 16 /* nesting depths of signal handlers with a stream of their own */
#define RT_SIG_PENDING 8 /* signals waiting for the runtime to be done (rt_signal.c) */

struct rt_thread;

/* A thread's signal handlers (rt_signal.c): which recording context runs,
 * and the ones it interrupted. Context 0 is the thread's own code; context
 * d the handlers running at nesting depth d. */
struct rt_sig_state {
	int depth; /* the context in rt_self */
	int npending; /* signals deferred while the thread was inside the runtime */
	/* [d]: context d's state while it is not the one running (mmapped
	 * with its buffer on first use) */
	struct rt_thread *ctx[RT_SIG_DEPTH + 1];
	/* [d]: the state context d interrupted, on its entry frame's stack,
	 * and that frame's address (a longjmp leaving it, rt_sig_before_jump) */
	struct rt_thread *saved[RT_SIG_DEPTH + 1];
	uintptr_t sp[RT_SIG_DEPTH + 1];
	struct rt_sig_pending {
		int sig;
		siginfo_t info;
	} pending[RT_SIG_PENDING];
};

enum rt_thread_state { RT_NEW, RT_REGISTERED, RT_EXITED, RT_LOST };

/* One thread's recording state, in initial-exec TLS (no allocation, no lock
 * to reach it). The access callbacks touch only the first cache line. */
struct rt_thread {
	uint8_t *p; /* next free byte of the record buffer */
	uint8_t *lim; /* flush when p passes this; NULL: no buffer yet */
	uint64_t last_addr, last_ip, prev_ip; /* delta bases (reset per chunk) */
	uint64_t epoch; /* last global epoch written to this stream */
	uint64_t naccess; /* accesses recorded by this thread */
	uint64_t burst_end; /* sampling: the burst or the skip ends when naccess reaches it (UINT64_MAX: never) */
	int guard; /* >0 while inside a hook: nested calls pass straight through */
	int state; /* enum rt_thread_state; RT_LOST: a context with no buffer, counting what it misses */
	int context; /* 0: the thread's own code; d: its signal handlers at depth d */

	uint8_t *buf; /* the buffer being filled: RT_BUF_SIZE + RT_BUF_SLACK bytes */
	uint8_t *bufs[2]; /* double buffering: one fills while the writer drains the other */
	int cur; /* index of buf in bufs */
	uint32_t seq; /* chunks written */
	uint8_t *queued; /* buf while it is being handed to the writer (rt_buf.c, queue_current) */
	/* the chunk being filled: naccess at its start, and whether it holds
	 * accesses only (no event, no DROPPED record): its header says how
	 * many (mp_chunk_header.accesses) */
	uint64_t chunk_base;
	int chunk_plain;
	uint8_t *chunk_head; /* where its records start (past its EPOCH and TIME) */
	uint64_t chunk_tsc; /* the TSC when it started (RT_FLUSH_TICKS) */
	int flush_due; /* old enough: it goes out when the hook ends (rt_guard_leave) */
	uint64_t last_time, last_ev_addr; /* event delta bases (reset per chunk) */
	unsigned clock_skip, last_cpu; /* allocation events between clock reads; CPU then */
	uint64_t naccess_flushed; /* part of naccess already added to the process total */
	uint64_t skip_left; /* sampling: accesses still to skip while the skip is suspended */
	/* sampling, while skipping: p and lim run over the scratch area, and the
	 * real cursor (skip_p, NULL when not skipping), delta bases and count
	 * wait here (rt_buf.c, skip_start) */
	uint8_t *scratch, *skip_p;
	uint64_t skip_base, skip_addr, skip_ip, skip_prev, skip_epoch;
	pid_t tid;
	uint64_t stack_lo, stack_hi; /* this thread's stack, for frame-pointer walks */
	uint64_t group; /* current mp_group id, 0 if none */
	uint64_t stack_next; /* next stack id (ids are per stream) */
	struct rt_stack_slot {
		uint64_t hash, id;
	} *stack_cache; /* RT_STACK_CACHE slots, mmap'd with buf */
	struct rt_unwind_slot *unwind_cache; /* RT_UNWIND_CACHE slots, mmap'd with buf */
	uint64_t unwind_gen; /* rt_unwind_gen when the cache was last valid */
	/* where the launcher can read its buffers after a kill (rt_live.h);
	 * NULL: they are private (a signal handlers' context's always are) */
	struct mp_live_region *live;

	/* The thread's, whatever context runs: a signal handler's entry swaps
	 * the bytes above (RT_SWAP_BYTES) and never these. */
	int busy[2]; /* bufs[i] of context 0 is queued for the writer thread (atomic) */
	struct rt_sig_state sig;
	struct rt_thread *next; /* registry of live threads */
};
#define RT_SWAP_BYTES offsetof(struct rt_thread, busy)

struct rt_real {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*reallocarray)(void *, size_t, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
	void *(*memcpy)(void *, const void *, size_t);
	void *(*memmove)(void *, const void *, size_t);
	void *(*memset)(void *, int, size_t);
	int (*memcmp)(const void *, const void *, size_t);
	size_t (*strlen)(const char *);
	char *(*strcpy)(char *, const char *);
	int (*strcmp)(const char *, const char *);
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	void (*longjmp)(struct __jmp_buf_tag *, int) __attribute__((noreturn));
	void (*_longjmp)(struct __jmp_buf_tag *, int) __attribute__((noreturn));
	void (*siglongjmp)(struct __jmp_buf_tag *, int) __attribute__((noreturn));
	void (*__longjmp_chk)(struct __jmp_buf_tag *, int) __attribute__((noreturn));
	pid_t (*vfork)(void);
	int (*pthread_create)(void *, const void *, void *(*)(void *), void *);
	int (*pthread_join)(unsigned long, void **);
	int (*pthread_setname_np)(unsigned long, const char *);
	pid_t (*fork)(void);
	int (*execve)(const char *, char *const[], char *const[]);
	void *(*dlopen)(const char *, int);
	void *(*shmat)(int, const void *, int);
	int (*shmdt)(const void *);
};

extern struct rt_real rt_real;
/*
 * The access path's state is also the ABI of inline instrumentation: the
 * memprism pass plugin inlines rt_access (src/rt/rt_inline.c, compiled to
 * bitcode) into every instrumented function, so these few symbols are
 * exported under reserved names and struct rt_thread's head is shared with
 * programs built by `memprism cc` (they bind to the runtime they were built
 * with through its rpath).
 */
#define RT_ABI(name) __asm__("__memprism_" name) RT_EXPORT
extern int rt_recording RT_ABI("recording"); /* set once setup succeeded, cleared by rt_fail */
/* The process records nothing at all (no MEMPRISM_OUT): set by the
 * constructor. Inline access paths then write into a scratch area
 * (rt_passive_scratch) instead of calling out at every access. */
extern int rt_passive;
void rt_passive_scratch(struct rt_thread *t);
extern _Atomic uint64_t rt_epoch RT_ABI("epoch"); /* global logical clock of events */
extern int rt_multithreaded; /* set before the process's second thread starts */

/* Next epoch. A locked read-modify-write drains the store buffer (~20 ns
 * amid the stores of an allocation hook); while the process has one thread
 * a plain increment is just as ordered. */
static inline uint64_t rt_next_epoch(void)
{
	if (__atomic_load_n(&rt_multithreaded, __ATOMIC_RELAXED))
		return atomic_fetch_add(&rt_epoch, 1) + 1;
	uint64_t e = atomic_load_explicit(&rt_epoch, memory_order_relaxed) + 1;
	atomic_store_explicit(&rt_epoch, e, memory_order_relaxed);
	return e;
}
extern __thread struct rt_thread rt_self RT_ABI("self") __attribute__((tls_model("initial-exec")));

/* rt_main.c */
void rt_resolve(void); /* dlsym the real functions (idempotent) */
void rt_fail(const char *why); /* stop recording, say so once */
uint64_t rt_now(void); /* CLOCK_MONOTONIC ns */
unsigned rt_cpu(void);
void rt_say(const char *a, const char *b); /* write(2) a line to stderr */

/* rt_vg.c: record --source valgrind (memprism's Valgrind tool records the
 * accesses; the access paths here record nothing while this is set) */
extern int rt_tool_accesses;
/* The MEMPRISM_* variables and the runtime's path, which an exec's new
 * environment gets where it lacks them (rt_thread.c) */
void rt_exec_env_init(void);
int rt_vg_init(void); /* MEMPRISM_SOURCE: 0 record on, -1 stay passive; tells the tool where guards are */
void rt_vg_process(void); /* tell the tool this process's ids (start-up, fork child) */
void rt_vg_ignore_thread(void); /* the calling thread is the runtime's own */
/* The limit of a buffer's access records: none when the tool records them. */
#define RT_ACCESS_LIM(t) (rt_tool_accesses ? NULL : (t)->buf + RT_BUF_SIZE)

/* rt_signal.c */
void rt_sig_init(void); /* recording is set up: wrap the handlers set so far, catch fatal signals */
void rt_sig_deliver_pending(void); /* run the handlers of signals that came while inside the runtime */
/* Leaving the runtime (the guard drops to 0): a signal that came meanwhile
 * runs its handler now. Every guard++ of rt_self ends here. */
void rt_guard_left(struct rt_thread *t); /* rt_buf.c: the chunk that is due, then pending signals */
static inline void rt_guard_leave(struct rt_thread *t)
{
	if (--t->guard == 0 && RT_UNLIKELY(__atomic_load_n(&t->sig.npending, __ATOMIC_RELAXED) | t->flush_due))
		rt_guard_left(t);
}
void rt_sig_unwind(void); /* from a handler back to the thread's own context (exit, exec) */
/* Calls fn on each of t's contexts but the one in t: to flush them. */
void rt_sig_each_context(struct rt_thread *t, void (*fn)(struct rt_thread *));
void rt_sig_flush_contexts(void); /* the calling thread's handlers' records (before exec) */
void rt_sig_thread_exit(void); /* back to context 0, flush and free the handlers' contexts */
void rt_sig_after_fork(void); /* the child: context 0, no pending signal, the contexts emptied */

/* rt_buf.c */
int rt_thread_setup(struct rt_thread *t); /* buffer + registration; 0 or -1 */
/* A signal handlers' context: its state and buffer in one mapping (written
 * out synchronously, never through the writer's queue, so that a handler
 * takes no lock the thread may hold); NULL when there is no memory. */
struct rt_thread *rt_context_new(int context);
void rt_context_free(struct rt_thread *c);
void rt_context_reset(struct rt_thread *c); /* forget its records (a fork child) */
void rt_flush(struct rt_thread *t);
/* rt_flush if the chunk being filled holds any record */
void rt_flush_records(struct rt_thread *t);
void rt_flush_all(int in_signal); /* at exit or crash: every live thread */
void rt_queue_drain(void); /* wait until the writer thread has written all queued */
void rt_thread_unregister(struct rt_thread *t);
void rt_write_chunk(uint16_t type, uint32_t tid, uint32_t seq, const void *payload, size_t len);
void rt_bufs_after_fork(struct rt_thread *self);
/* Exit or exec: the threads' shared regions are no longer written (rt_live.h). */
void rt_bufs_retire(void);
/* Starts an event record: ensures room, writes tag, a fresh epoch and the
 * time (every event's first field); returns the write pointer. Finish with rt_event_end(t, p). Room: RT_BUF_SLACK minus
 * the strings, which the caller clamps. */
uint8_t *rt_event_begin(struct rt_thread *t, unsigned type, uint64_t *epoch_out);
void rt_event_end(struct rt_thread *t, uint8_t *p);
uint8_t *rt_put_str(uint8_t *p, const char *s, size_t max);
/* ALLOC/FREE addresses: delta from the previous one of the chunk. */
uint8_t *rt_put_ev_addr(struct rt_thread *t, uint8_t *p, uint64_t addr);

/* rt_alloc.c */
/* The allocation stack of the hook whose frame is fp and return address
 * ret: its id in t's stream, defined there on first use. */
uint64_t rt_stack_id(struct rt_thread *t, void *fp, void *ret);
/* Bumped when an object is unloaded: the threads' unwind caches may hold
 * rules for addresses that now belong to another object. */
extern uint64_t rt_unwind_gen;
void *rt_malloc_at(size_t n, void *fp, void *ret); /* site: the given frame */

/* rt_pagemap.c: the final translations at shutdown (MEMPRISM_PAGEMAP=1) */
extern int rt_pagemap_enabled;
void rt_pagemap_final(void);
/* Before memory goes back to the kernel (free of a big block, munmap): its
 * translations, if len >= RT_PAGEMAP_MIN. */
#define RT_PAGEMAP_MIN (256u << 10)
void rt_pagemap_range(const void *addr, size_t len);

/* rt_thread.c */
void rt_thread_main_init(struct rt_thread *t);
void rt_thread_start_event(struct rt_thread *t, pid_t creator);
void rt_thread_exit_events(struct rt_thread *t);

/* Burst sampling (memprism record --sample-bursts): naccess reached
 * burst_end: a burst ends (skipping starts) or a skip ends. */
void rt_burst_pause(struct rt_thread *t) RT_ABI("burst_pause");
/* At thread exit: report the accesses skipped since the last pause. */
void rt_burst_flush_skipped(struct rt_thread *t);
/* Before the runtime writes to a thread's trace itself (an event): a skip in
 * progress puts the real cursor back and notes what it skipped so far;
 * rt_skip_resume (rt_event_end) goes on with the rest. */
void rt_skip_suspend(struct rt_thread *t);
void rt_skip_resume(struct rt_thread *t);

/* Room for an event: the buffer's own end (a skip in progress must be
 * suspended first: its cursor runs over the scratch area). */
static inline int rt_buf_full(const struct rt_thread *t)
{
	return t->p >= t->buf + RT_BUF_SIZE;
}

/* Out of line: no buffer yet (sets one up) or buffer full (flushes), then
 * records the access. Keeps the inlined fast path a leaf function. */
void rt_access_slow(void *addr, unsigned code, uint64_t len, void *ip) RT_ABI("access_slow");

/* Encodes one access at p (room guaranteed by the caller). */
static inline __attribute__((always_inline)) void rt_encode(struct rt_thread *t, uint8_t *p, uint64_t a,
							     unsigned code, uint64_t len, uint64_t i)
{
	uint64_t e = atomic_load_explicit(&rt_epoch, memory_order_relaxed);
	if (RT_UNLIKELY(e != t->epoch)) {
		t->epoch = e;
		*p++ = MP_TAG(MP_REC_EPOCH, 0);
		p = mp_put_uv(p, e);
	}
	uint8_t *tag = p++;
	uint64_t z = mp_zigzag((int64_t)(a - t->last_addr));
	if (RT_LIKELY(z < (1u << 21)) || z >= (1ull << 49))
		p = mp_put_uv(p, z);
	else
		p = mp_put_uv7(p, z); /* far jumps: fixed length, no mispredicted loop exit */
	t->last_addr = a;
	if ((code & 7) == MP_SIZE_RANGE)
		p = mp_put_uv(p, len);
	if (i != t->last_ip) {
		/* Loops alternate between a few instructions: the one before the
		 * last costs no ip bytes at all. */
		if (i == t->prev_ip) {
			code |= MP_TAG(MP_REC_ACCESS_IP2, 0);
		} else {
			code |= MP_ACC_IP;
			p = mp_put_uv(p, mp_zigzag((int64_t)(i - t->last_ip)));
		}
		t->prev_ip = t->last_ip;
		t->last_ip = i;
	}
	*tag = (uint8_t)code;
	__atomic_store_n(&t->p, p, __ATOMIC_RELEASE); /* record complete (rt_flush_all) */
	if (RT_UNLIKELY(++t->naccess == t->burst_end))
		rt_burst_pause(t);
}

/* The access hot path, inlined into the sanitizer-coverage callbacks. When
 * not recording t->lim is NULL: one compare and out. */
static inline __attribute__((always_inline)) void rt_access(void *addr, unsigned code, uint64_t len,
							    void *ip)
{
	struct rt_thread *t = &rt_self;
	uint8_t *p = t->p;
	if (RT_UNLIKELY(p >= t->lim)) {
		if (RT_LIKELY(!rt_recording))
			return;
		rt_access_slow(addr, code, len, ip);
		return;
	}
	rt_encode(t, p, (uint64_t)addr, code, len, (uint64_t)ip);
}

/*
 * The hot part of a thread's state, as the inline access path sees it: the
 * head of struct rt_thread, or a copy the instrumented code keeps in
 * registers across a loop (__memprism_inl_enter / _leave in rt_inline.c).
 */
struct rt_hot {
	uint8_t *p, *lim;
	uint64_t last_addr, last_ip, prev_ip, epoch, naccess, burst_end;
};
#define RT_HOT_SIZE 64 /* src/pass/mp_pass.cpp allocates copies of this size */
/* Set by the pass in an inline site's code (beside the size code and
 * MP_ACC_WRITE): the site's ip lives in ip slot 1 (rt_hot.prev_ip), not 0. */
#define RT_CODE_SLOT1 0x20u
_Static_assert(sizeof(struct rt_hot) == RT_HOT_SIZE, "rt_hot size is part of the inline ABI");
_Static_assert(offsetof(struct rt_thread, p) == offsetof(struct rt_hot, p) &&
		       offsetof(struct rt_thread, lim) == offsetof(struct rt_hot, lim) &&
		       offsetof(struct rt_thread, last_addr) == offsetof(struct rt_hot, last_addr) &&
		       offsetof(struct rt_thread, last_ip) == offsetof(struct rt_hot, last_ip) &&
		       offsetof(struct rt_thread, prev_ip) == offsetof(struct rt_hot, prev_ip) &&
		       offsetof(struct rt_thread, epoch) == offsetof(struct rt_hot, epoch) &&
		       offsetof(struct rt_thread, naccess) == offsetof(struct rt_hot, naccess) &&
		       offsetof(struct rt_thread, burst_end) == offsetof(struct rt_hot, burst_end),
	       "struct rt_thread must start with the fields of struct rt_hot");

/* The whole access path, out of line (rt_access.c): where the inline fast
 * path below hands over. On x86-64 its exported entry keeps every
 * register but r11 (LLVM's preserve_most; the pass calls it so), which the
 * declaration says where the compiler knows the convention (rt_inline.c is
 * built by clang). */
#if defined(__x86_64__)
#define RT_PRESERVE_MOST_ABI 1
#else
#define RT_PRESERVE_MOST_ABI 0
#endif
#if RT_PRESERVE_MOST_ABI && defined(__clang__)
#define RT_PRESERVE_MOST __attribute__((preserve_most))
#else
#define RT_PRESERVE_MOST
#endif
void rt_access_out(void *addr, unsigned code, uint64_t len, void *ip) RT_ABI("access") RT_PRESERVE_MOST;
/* The same in the C convention, for the call-free loops' way out, which
 * writes the loop's copy of the state back and takes it again around the
 * call, so keeping registers gains it little; given preserve_most there,
 * the register allocator laid out the whole loop anew. */
void rt_access_out_c(void *addr, unsigned code, uint64_t len, void *ip) RT_ABI("access_c");
void rt_access_handover(void *addr, unsigned code, uint64_t len, void *ip);

/*
 * The access path that inline instrumentation (src/pass) puts at each of a
 * program's loads and stores, over h: the thread's own state, or a copy held
 * across a loop. It encodes only the common record -- the epoch unchanged, a
 * fixed size, the code address one of the last two or a nearby one -- and
 * returns 0; for anything else it changes nothing and returns 1, and the
 * caller hands the access to rt_access_out, which starts over. Inlining the
 * whole encoder made instrumented code 14x larger than plain code and 11x
 * slower to compile.
 *
 * check_epoch is a constant at each site: 0 where the pass checks the epoch
 * once per loop iteration instead (rt_inline.c, __memprism_inl_epoch_check).
 * straight, a constant too: 1 writes only the records of an ip in its slot
 * and returns 1 for the others, a smaller path for modules with more sites
 * than they inline (src/pass, limitModuleSites).
 *
 * The commonest records -- the code address the one in the site's ip slot
 * (code & RT_CODE_SLOT1; a loop's sites alternate slots), no length -- take
 * a straight path and one store of the whole record with a constant tag
 * (little-endian; bytes written past the record are within RT_BUF_SLACK and
 * overwritten by the next one). Every other record takes the general path,
 * which puts the site's ip into its slot (rt_encode, the callbacks' path,
 * keeps the slots as a last-two history instead).
 */
static inline __attribute__((always_inline)) int rt_hot_record(struct rt_hot *h, void *addr, unsigned code,
								void *ip, int check_epoch, int straight)
{
	uint8_t *p = h->p;
	uint64_t a = (uint64_t)addr, i = (uint64_t)ip;
	uint64_t z = mp_zigzag((int64_t)(a - h->last_addr));
	uint64_t n = h->naccess + 1;
	if (RT_UNLIKELY(p >= h->lim || (code & 7) == MP_SIZE_RANGE || n == h->burst_end ||
			(check_epoch && atomic_load_explicit(&rt_epoch, memory_order_relaxed) != h->epoch)))
		return 1;
	/* The pass gives each site a fixed ip slot (RT_CODE_SLOT1): a hit
	 * names the ip with a constant tag and moves nothing. */
	unsigned slot = code & RT_CODE_SLOT1 ? MP_ACC_SLOT1 : 0;
	code &= ~RT_CODE_SLOT1;
	uint64_t last = h->last_ip;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (RT_LIKELY(i == (slot ? h->prev_ip : last))) {
		if (RT_LIKELY(z < 0x80)) {
			uint32_t w = MP_TAG(MP_REC_ACCESS_SLOT, code | slot) | (uint32_t)z << 8;
			__builtin_memcpy(p, &w, 2);
			p += 2;
		} else if (z < (1u << 14)) {
			uint32_t w = MP_TAG(MP_REC_ACCESS_SLOT, code | slot) | (uint32_t)((z & 0x7f) | 0x80) << 8 |
				     (uint32_t)(z >> 7) << 16;
			__builtin_memcpy(p, &w, 4);
			p += 3;
		} else if (RT_LIKELY(!(z >> (8 * MP_ACC_FAR_BYTES)))) {
			/* a far jump (random access): the tag and the raw delta in
			 * one store. The bound is checked here only, where near
			 * records have none to pay. */
			uint64_t w = z << 8 | MP_TAG(MP_REC_ACCESS_FAR, code | slot);
			__builtin_memcpy(p, &w, 8);
			p += 1 + MP_ACC_FAR_BYTES;
		} else {
			goto general; /* nothing changed yet */
		}
		goto done;
	}
general:
	if (straight)
		return 1;
#endif
	if (RT_UNLIKELY(z >= (1ull << 49)))
		return 1;
	/* The site's slot must end up holding its ip, or the straight path
	 * would never take its next access: a record naming it there
	 * (ACCESS_SLOT), or one putting it there -- slot 0 by the last-two
	 * shift (ACCESS with an ip delta from slot 0), slot 1 in place
	 * (ACCESS_IP2 with an ip delta from slot 1). Any delta: bounding it
	 * sent a far site to the callbacks' encoder, whose last-two history
	 * put it back in slot 0, at every access. */
	uint64_t cur = slot ? h->prev_ip : last;
	unsigned tag = i == cur		? MP_TAG(MP_REC_ACCESS_SLOT, code | slot)
		       : slot ? MP_TAG(MP_REC_ACCESS_IP2, code | MP_ACC_IP)
				: MP_TAG(MP_REC_ACCESS, code | MP_ACC_IP);
	*p = (uint8_t)tag;
	if (RT_LIKELY(z < (1u << 14)))
		p = mp_put_uv14(p + 1, z);
	else
		p = mp_put_uv7w(p + 1, z); /* random access: a far jump */
	if (i != cur) {
		p = mp_put_uv(p, mp_zigzag((int64_t)(i - cur)));
		if (!slot)
			h->prev_ip = last;
		*(slot ? &h->prev_ip : &h->last_ip) = i;
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
done:
#endif
	h->last_addr = a;
	h->naccess = n;
	/* Record complete (rt_flush_all reads the cursor with acquire). Not an
	 * atomic store: SROA keeps a hot loop's copy in registers only if its
	 * accesses are plain. On x86 a plain store is a release once the
	 * compiler is kept from sinking the record's bytes below it. */
#if defined(__x86_64__)
	__atomic_signal_fence(__ATOMIC_RELEASE);
	h->p = p;
#else
	__atomic_store_n(&h->p, p, __ATOMIC_RELEASE);
#endif
	return 0;
}

#endif
