// SPDX-License-Identifier: MIT
/*
 * Signals: the program's handlers record in contexts of their own, a
 * handler left by longjmp gives its thread's state back, vfork becomes fork,
 * and a fatal signal saves the trace before it kills.
 *
 * A handler interrupts its thread anywhere: between the load of the record
 * cursor and its store, or inside a loop that keeps the cursor and the delta
 * bases in registers (rt_inline.c). Records it wrote into the thread's
 * buffer would be overwritten by the interrupted code, and would break its
 * delta chain. So every handler the program sets is entered through
 * rt_sig_entry, which swaps the thread's recording state (the head of
 * struct rt_thread, which instrumented code reaches as __memprism_self) for
 * that of the handlers at this nesting depth, runs the handler, and swaps
 * back byte for byte: the interrupted code finds its state as it left it.
 * The handlers of each depth are a stream of their own in the data file
 * (MP_TID_CONTEXT_SHIFT), whose accesses and events the analysis counts to
 * the thread. The entry runs with every signal blocked (the kernel's mask
 * for it), the handler with the mask it would have had without us.
 *
 * A signal that arrives while the thread is inside the runtime (its guard
 * set, perhaps holding one of the runtime's locks) waits until the runtime
 * is done (rt_guard_leave), as ThreadSanitizer's runtime makes signals
 * wait; its handler then gets a context of our making (getcontext), not the
 * one the signal interrupted. A fault (a synchronous signal) cannot wait and
 * runs at once.
 *
 * A handler left by longjmp never returns to its entry: the longjmp family
 * is interposed, finds from the target's stack pointer which handlers it
 * leaves, and puts back the states they interrupted. The interrupted code
 * may have been a loop whose copy of the state lived in registers; the
 * thread's cursor is published once an iteration, so the records of the
 * iteration the signal broke into are given up and the stream goes on in a
 * new chunk (the delta bases after them are not known). The END chunk
 * counts such longjmps, and the report says so.
 */
#undef _FORTIFY_SOURCE /* setjmp.h would rename our longjmp to __longjmp_chk */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "rt/rt_int.h"
#include "rt/rt_proc.h"

/* What the program set for each signal, as its sigaction reports it. */
struct rt_sig_disp {
	void *_Atomic fn; /* the handler, SIG_DFL or SIG_IGN */
	int flags; /* the program's sa_flags */
	sigset_t mask; /* the program's sa_mask */
};
static struct rt_sig_disp rt_disp[NSIG];
static int rt_sig_active; /* recording was set up: handlers go through rt_sig_entry */

static const int rt_fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT, SIGQUIT };

static int is_fatal(int sig)
{
	for (size_t i = 0; i < sizeof(rt_fatal_signals) / sizeof(rt_fatal_signals[0]); i++)
		if (rt_fatal_signals[i] == sig)
			return 1;
	return 0;
}

/* A fault of the instruction that was running: it cannot wait. */
static int synchronous(int sig, const siginfo_t *info)
{
	return info && info->si_code > 0 &&
	       (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS);
}

static void *handler_of(const struct sigaction *a)
{
	return a->sa_flags & SA_SIGINFO ? (void *)a->sa_sigaction : (void *)a->sa_handler;
}

static void block_all(sigset_t *before)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, before);
}

/* --- fatal signals ------------------------------------------------------ */

/* Saves what the dying process recorded, then lets the signal do what it
 * would have done. It stands in for SIG_DFL of the fatal signals (where
 * the program set nothing else), so the trace is whole after a crash. */
static void rt_on_fatal(int sig)
{
	int saved = errno;
	rt_self.guard++;
	if (rt_recording && !rt_proc.finished) {
		rt_proc.finished = 1;
		rt_recording = 0;
		rt_flush_all(1);
		rt_write_end_chunk(0x100u + (unsigned)sig);
	}
	errno = saved;
	struct sigaction dfl;
	rt_real.memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	rt_real.sigaction(sig, &dfl, NULL);
	raise(sig); /* pending until we return; then the default action runs */
}

static void rt_sig_entry(int sig, siginfo_t *info, void *uc);

/* OUT: k, what the kernel is given for the program's act. */
static void kernel_action(int sig, const struct sigaction *act, struct sigaction *k)
{
	rt_real.memcpy(k, act, sizeof(*k));
	void *fn = handler_of(act);
	if (fn == (void *)SIG_IGN)
		return;
	if (fn == (void *)SIG_DFL) {
		if (is_fatal(sig)) {
			k->sa_handler = rt_on_fatal;
			k->sa_flags = SA_RESETHAND;
			sigemptyset(&k->sa_mask);
		}
		return;
	}
	/* The entry swaps states with every signal blocked. SA_RESETHAND it
	 * does itself, so that a fatal signal finds rt_on_fatal after it. */
	k->sa_sigaction = rt_sig_entry;
	k->sa_flags = (act->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
	sigfillset(&k->sa_mask);
}

/* The program's sigaction, and what the other interposers below go through. */
static int set_action(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!__atomic_load_n(&rt_sig_active, __ATOMIC_ACQUIRE) || sig <= 0 || sig >= NSIG || sig == SIGKILL ||
	    sig == SIGSTOP)
		return rt_real.sigaction(sig, act, old);
	struct rt_thread *t = &rt_self;
	t->guard++; /* (struct copies may be memcpy calls: not the program's accesses) */
	struct rt_sig_disp *d = &rt_disp[sig], prev;
	rt_real.memcpy(&prev, d, sizeof(prev));
	struct sigaction k, got;
	if (act) {
		kernel_action(sig, act, &k);
		d->flags = act->sa_flags;
		rt_real.memcpy(&d->mask, &act->sa_mask, sizeof(d->mask));
		atomic_store_explicit(&d->fn, handler_of(act), memory_order_release);
	}
	int r = rt_real.sigaction(sig, act ? &k : NULL, &got);
	if (r != 0 && act)
		rt_real.memcpy(d, &prev, sizeof(prev));
	if (r == 0 && old) {
		rt_real.memcpy(old, &got, sizeof(*old));
		void *kfn = handler_of(&got);
		if (kfn == (void *)rt_sig_entry) {
			/* what the program set, not our entry */
			if (prev.flags & SA_SIGINFO)
				old->sa_sigaction = (void (*)(int, siginfo_t *, void *))prev.fn;
			else
				old->sa_handler = (void (*)(int))prev.fn;
			old->sa_flags = prev.flags;
			rt_real.memcpy(&old->sa_mask, &prev.mask, sizeof(prev.mask));
		} else if (kfn == (void *)rt_on_fatal) {
			old->sa_handler = SIG_DFL;
			old->sa_flags = 0;
			sigemptyset(&old->sa_mask);
		}
	}
	rt_guard_leave(t);
	return r;
}

/* SA_RESETHAND: the handler runs once, then the default is back. */
static void reset_to_default(int sig)
{
	struct sigaction dfl, k;
	rt_real.memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	struct rt_sig_disp *d = &rt_disp[sig];
	d->flags = 0;
	sigemptyset(&d->mask);
	atomic_store_explicit(&d->fn, (void *)SIG_DFL, memory_order_release);
	kernel_action(sig, &dfl, &k);
	rt_real.sigaction(sig, &k, NULL);
}

/* --- recording contexts --------------------------------------------------- */

/* The thread enters context d: its state goes to *saved (the entry's
 * stack), context d's comes in. Every signal is blocked. */
static void swap_in(struct rt_thread *saved, int d, uintptr_t sp)
{
	struct rt_thread *t = &rt_self;
	struct rt_sig_state *s = &t->sig;
	rt_real.memcpy(saved, t, RT_SWAP_BYTES);
	struct rt_thread *c = NULL;
	if (d <= RT_SIG_DEPTH) {
		s->saved[d] = saved;
		s->sp[d] = sp;
		if (!s->ctx[d])
			s->ctx[d] = rt_context_new(d);
		c = s->ctx[d];
	}
	if (c) {
		c->tid = saved->tid ? saved->tid : gettid();
		c->stack_lo = saved->stack_lo;
		c->stack_hi = saved->stack_hi;
		c->group = saved->group;
		rt_real.memcpy(t, c, RT_SWAP_BYTES);
	} else {
		/* no stream for this depth (too deep, or no memory): a state
		 * that records nothing and counts what it misses */
		rt_real.memset(t, 0, RT_SWAP_BYTES);
		t->state = RT_LOST;
		t->context = d;
		t->tid = saved->tid;
		t->burst_end = UINT64_MAX;
	}
	s->depth = d;
}

/* The thread leaves context d for the state it interrupted. */
static void swap_out(int d, const struct rt_thread *saved)
{
	struct rt_thread *t = &rt_self;
	struct rt_sig_state *s = &t->sig;
	if (t->state == RT_LOST)
		__atomic_add_fetch(&rt_proc.dropped, t->naccess, __ATOMIC_RELAXED);
	else if (d <= RT_SIG_DEPTH && s->ctx[d])
		rt_real.memcpy(s->ctx[d], t, RT_SWAP_BYTES);
	rt_real.memcpy(t, saved, RT_SWAP_BYTES);
	s->depth = d - 1;
}

/* Runs the handler. In a context of its own (swapped), the stack walks of
 * its allocations read no further than this frame: its stack is the
 * handler's frames, on the thread's stack or its alternate signal stack. */
static __attribute__((noinline)) void call_handler(void *fn, int flags, int sig, siginfo_t *info, void *uc,
						   int swapped)
{
	if (swapped && rt_self.state == RT_REGISTERED) {
		struct rt_thread *t = &rt_self;
		uint64_t here = (uint64_t)__builtin_frame_address(0);
		if (here < t->stack_lo || here >= t->stack_hi) {
			stack_t ss;
			t->stack_lo = t->stack_hi = 0;
			if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK))
				t->stack_lo = (uint64_t)ss.ss_sp;
		}
		if (t->stack_lo)
			t->stack_hi = here;
	}
	if (flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))fn)(sig, info, uc);
	else
		((void (*)(int))fn)(sig);
}

/* Runs the program's handler in a context of its own. Called with every
 * signal blocked; the handler gets the mask the kernel would have given it:
 * before's, its own sa_mask, and the signal unless SA_NODEFER. */
static void run_handler(int sig, siginfo_t *info, void *uc, void *fn, int flags, const sigset_t *before)
{
	struct rt_thread *t = &rt_self, saved;
	int d = t->sig.depth + 1;
	int swap = rt_recording && t->state != RT_EXITED;
	if (swap)
		swap_in(&saved, d, (uintptr_t)__builtin_frame_address(0));
	sigset_t m;
	rt_real.memcpy(&m, before, sizeof(m));
	const sigset_t *hm = &rt_disp[sig].mask;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(hm, s) == 1)
			sigaddset(&m, s);
	if (!(flags & SA_NODEFER))
		sigaddset(&m, sig);
	pthread_sigmask(SIG_SETMASK, &m, NULL);
	call_handler(fn, flags, sig, info, uc, swap);
	block_all(NULL);
	/* (a handler that forked left its child in context 0 already) */
	if (swap && t->sig.depth == d)
		swap_out(d, &saved);
}

static void rt_sig_entry(int sig, siginfo_t *info, void *uc)
{
	int err = errno;
	struct rt_sig_disp *d = &rt_disp[sig];
	void *fn = atomic_load_explicit(&d->fn, memory_order_acquire);
	int flags = d->flags;
	if (fn == (void *)SIG_IGN)
		goto out;
	if (fn == (void *)SIG_DFL) {
		/* the program set the default while this one was on its way */
		if (is_fatal(sig))
			rt_on_fatal(sig);
		else
			raise(sig); /* blocked now: the default action runs on return */
		goto out;
	}
	if (flags & SA_RESETHAND)
		reset_to_default(sig);
	struct rt_thread *t = &rt_self;
	if (t->guard > 0 && !synchronous(sig, info)) {
		/* inside the runtime: the handler runs when it is done */
		struct rt_sig_state *s = &t->sig;
		for (int i = 0; i < s->npending; i++)
			if (s->pending[i].sig == sig && sig < SIGRTMIN)
				goto out; /* a standard signal pending once, as in the kernel */
		if (s->npending < RT_SIG_PENDING) {
			s->pending[s->npending].sig = sig;
			rt_real.memcpy(&s->pending[s->npending].info, info, sizeof(*info));
			__atomic_store_n(&s->npending, s->npending + 1, __ATOMIC_RELEASE);
		}
		goto out;
	}
	errno = err;
	run_handler(sig, info, uc, fn, flags, &((ucontext_t *)uc)->uc_sigmask);
	return;
out:
	errno = err;
}

void rt_sig_deliver_pending(void)
{
	struct rt_thread *t = &rt_self;
	int err = errno;
	sigset_t before;
	block_all(&before);
	while (t->sig.npending && t->guard == 0) {
		struct rt_sig_state *s = &t->sig;
		struct rt_sig_pending p;
		rt_real.memcpy(&p, &s->pending[0], sizeof(p));
		rt_real.memmove(&s->pending[0], &s->pending[1], (size_t)(s->npending - 1) * sizeof(p));
		s->npending--;
		struct rt_sig_disp *d = &rt_disp[p.sig];
		void *fn = atomic_load_explicit(&d->fn, memory_order_acquire);
		if (fn == (void *)SIG_IGN)
			continue;
		if (fn == (void *)SIG_DFL) {
			raise(p.sig); /* blocked: the default (or rt_on_fatal) acts once the mask is back */
			continue;
		}
		ucontext_t uc;
		getcontext(&uc);
		rt_real.memcpy(&uc.uc_sigmask, &before, sizeof(before));
		errno = err;
		run_handler(p.sig, &p.info, &uc, fn, d->flags, &before);
	}
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	errno = err;
}

/* Back to the thread's own context (exit, exec, fork from a handler). */
static void unwind_all(void)
{
	struct rt_sig_state *s = &rt_self.sig;
	while (s->depth > 0) {
		if (s->depth > RT_SIG_DEPTH) {
			s->depth = RT_SIG_DEPTH; /* (states past the tracked depths are out of reach) */
			continue;
		}
		swap_out(s->depth, s->saved[s->depth]);
	}
}

void rt_sig_unwind(void)
{
	if (!rt_self.sig.depth)
		return;
	sigset_t before;
	block_all(&before);
	unwind_all();
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

void rt_sig_each_context(struct rt_thread *t, void (*fn)(struct rt_thread *))
{
	/* context d: in t itself while it runs; interrupted, in saved[d + 1];
	 * else in ctx[d] */
	struct rt_sig_state *s = &t->sig;
	for (int d = 0; d <= RT_SIG_DEPTH; d++) {
		struct rt_thread *c;
		if (d == s->depth)
			continue;
		if (d < s->depth)
			c = d < RT_SIG_DEPTH ? s->saved[d + 1] : NULL;
		else
			c = s->ctx[d];
		if (c)
			fn(c);
	}
}

static int context_has_records(const struct rt_thread *c)
{
	return c->buf && (!c->chunk_plain || c->naccess != c->chunk_base || c->skip_p);
}

void rt_sig_thread_exit(void)
{
	struct rt_sig_state *s = &rt_self.sig;
	for (int d = 1; d <= RT_SIG_DEPTH; d++) {
		struct rt_thread *c = s->ctx[d];
		if (!c)
			continue;
		if (context_has_records(c)) {
			rt_burst_flush_skipped(c);
			rt_flush(c);
		}
		rt_context_free(c);
		s->ctx[d] = NULL;
	}
}

void rt_sig_flush_contexts(void)
{
	struct rt_sig_state *s = &rt_self.sig;
	for (int d = 1; d <= RT_SIG_DEPTH; d++)
		if (s->ctx[d] && context_has_records(s->ctx[d]))
			rt_flush(s->ctx[d]);
}

void rt_sig_after_fork(void)
{
	/* the child of a handler's fork goes on in its thread's own stream */
	unwind_all();
	struct rt_sig_state *s = &rt_self.sig;
	s->npending = 0; /* the parent's to deliver */
	for (int d = 1; d <= RT_SIG_DEPTH; d++)
		if (s->ctx[d])
			rt_context_reset(s->ctx[d]); /* their records are the parent's */
}

/* --- longjmp out of handlers ---------------------------------------------- */

/* The stack pointer a jmp_buf returns to, or 0 where its layout is unknown
 * (then a longjmp is taken to leave every handler, which is what a longjmp
 * in a handler nearly always does). */
static uintptr_t jmp_target_sp(const void *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	/* glibc keeps rsp in __jmpbuf[6], mangled with the thread's pointer
	 * guard (%fs:0x30): rol(sp ^ guard, 17) */
	uintptr_t v = ((const uintptr_t *)env)[6], guard;
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	return ((v >> 17) | (v << 47)) ^ guard;
#else
	(void)env;
	return 0;
#endif
}

static void before_jump(const void *env)
{
	struct rt_thread *t = &rt_self;
	if (RT_LIKELY(!t->sig.depth))
		return;
	uintptr_t target = jmp_target_sp(env), here = (uintptr_t)__builtin_frame_address(0);
	sigset_t before;
	block_all(&before);
	struct rt_sig_state *s = &t->sig;
	int left = 0;
	/* context d's frames lie between here and its entry's frame */
	while (s->depth > 0 && s->depth <= RT_SIG_DEPTH && !(target >= here && target < s->sp[s->depth])) {
		swap_out(s->depth, s->saved[s->depth]);
		left++;
	}
	if (left && rt_recording && t->buf && t->state == RT_REGISTERED) {
		/* the state put back may lag its records: go on in a new chunk */
		t->chunk_plain = 0;
		t->guard++;
		rt_flush(t);
		t->guard--;
		__atomic_add_fetch(&rt_proc.handler_jumps, 1, __ATOMIC_RELAXED);
	}
	pthread_sigmask(SIG_SETMASK, &before, NULL);
}

#define RT_JUMP(name)                                                                 \
	RT_EXPORT __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val) \
	{                                                                             \
		before_jump(env);                                                     \
		rt_real.name(env, val);                                               \
		__builtin_unreachable();                                              \
	}
void __longjmp_chk(struct __jmp_buf_tag env[1], int val) __attribute__((noreturn));
RT_JUMP(longjmp)
RT_JUMP(_longjmp)
RT_JUMP(siglongjmp)
RT_JUMP(__longjmp_chk)

/* --- the program's calls ---------------------------------------------------- */

RT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (RT_UNLIKELY(!rt_real.sigaction))
		rt_resolve();
	return set_action(sig, act, old);
}
RT_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return sigaction(sig, act, old);
}

static sighandler_t set_handler(int sig, sighandler_t h, int flags, int mask_self)
{
	if (RT_UNLIKELY(!rt_real.sigaction))
		rt_resolve();
	struct sigaction a, o;
	rt_real.memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	a.sa_flags = flags;
	sigemptyset(&a.sa_mask);
	if (mask_self && sig > 0 && sig < NSIG)
		sigaddset(&a.sa_mask, sig);
	if (set_action(sig, &a, &o) != 0)
		return SIG_ERR;
	return o.sa_handler;
}

/* glibc's signal, bsd_signal and ssignal: BSD semantics */
RT_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, 1);
}
RT_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, 1);
}
RT_EXPORT sighandler_t ssignal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, 1);
}

/* System V: reset on delivery, not blocked while it runs */
RT_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}
RT_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, 0);
}

RT_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	sigset_t one, old;
	sigemptyset(&one);
	if (sigaddset(&one, sig) != 0)
		return SIG_ERR;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &one, &old) != 0)
			return SIG_ERR;
		if (sigismember(&old, sig) == 1)
			return SIG_HOLD;
		struct sigaction o;
		if (sigaction(sig, NULL, &o) != 0)
			return SIG_ERR;
		return o.sa_handler;
	}
	sighandler_t prev = set_handler(sig, disp, 0, 0);
	if (prev == SIG_ERR || sigprocmask(SIG_UNBLOCK, &one, &old) != 0)
		return SIG_ERR;
	return sigismember(&old, sig) == 1 ? SIG_HOLD : prev;
}

/* --- vfork ------------------------------------------------------------------ */

/*
 * A vfork child borrows its parent's memory, and with it the runtime's:
 * the thread state, the buffers, the writer's queue. While recording,
 * vfork is fork (as under Valgrind): the child records as any fork child.
 * vfork returns twice in one stack frame, so no C function can wrap the
 * real one: an assembly entry jumps to it when not recording.
 */
__attribute__((visibility("hidden"))) pid_t rt_vfork_fork(void);
__attribute__((visibility("hidden"))) void *rt_vfork_real;

pid_t rt_vfork_fork(void)
{
	return fork();
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	".globl __vfork\n"
	".type __vfork, @function\n"
	"vfork:\n"
	"__vfork:\n"
	"	movq __memprism_recording@GOTPCREL(%rip), %rax\n"
	"	cmpl $0, (%rax)\n"
	"	jne rt_vfork_fork\n"
	"	movq rt_vfork_real(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	je rt_vfork_fork\n"
	"	jmp *%rax\n"
	".size vfork, .-vfork\n"
	".size __vfork, .-__vfork\n");
#else
RT_EXPORT pid_t vfork(void)
{
	return fork();
}
#endif

/* --- set-up ------------------------------------------------------------------ */

void rt_sig_init(void)
{
	rt_vfork_real = (void *)rt_real.vfork;
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old, k;
		if (sig == SIGKILL || sig == SIGSTOP || rt_real.sigaction(sig, NULL, &old) != 0)
			continue;
		void *fn = handler_of(&old);
		if (fn == (void *)SIG_IGN || (fn == (void *)SIG_DFL && !is_fatal(sig)))
			continue;
		/* a handler set before us (another constructor), or a fatal
		 * signal's default: from now on through rt_sig_entry/rt_on_fatal */
		struct rt_sig_disp *d = &rt_disp[sig];
		d->flags = old.sa_flags;
		rt_real.memcpy(&d->mask, &old.sa_mask, sizeof(d->mask));
		atomic_store_explicit(&d->fn, fn, memory_order_release);
		kernel_action(sig, &old, &k);
		rt_real.sigaction(sig, &k, NULL);
	}
	__atomic_store_n(&rt_sig_active, 1, __ATOMIC_RELEASE);
}
