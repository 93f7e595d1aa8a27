// SPDX-License-Identifier: MIT
/*
 * Access recording: the sanitizer-coverage callbacks that `memprism cc`
 * instrumentation calls before every load and store, and interposed libc
 * memory/string functions recorded as ranged accesses (their bodies are not
 * instrumented, and large struct copies become memcpy calls).
 * docs/instrumentation.md says what is and is not covered, and why this ABI.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/mp_env.h"
#include "rt/rt_int.h"

#define RA() __builtin_return_address(0)

/*
 * The callbacks are IFUNCs: when the process is not being recorded (no
 * MEMPRISM_OUT in the environment it was started with) the dynamic linker
 * binds every call site straight to an empty function, so a memprism-cc
 * build pays a call and a return per access, nothing more. Resolvers run
 * during relocation, possibly before libc is initialized: they read
 * /proc/self/environ with raw system calls.
 */
static long raw_syscall3(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return ret;
#else
	return syscall(nr, a, b, c);
#endif
}

static int env_wants_recording(void)
{
	static int cached = -1; /* resolvers run once per callback: read once */
	if (cached >= 0)
		return cached;
	static const char key[] = MP_ENV_OUT "=";
	const size_t klen = sizeof(key) - 1;
	int fd = (int)raw_syscall3(SYS_openat, AT_FDCWD, (long)"/proc/self/environ", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cached = 1; /* cannot tell: keep the real callbacks */
	/* Scan entry starts; an entry may straddle two reads, so keep the
	 * matched prefix length across them. */
	char buf[4096];
	int found = 0, at_start = 1;
	size_t matched = 0;
	for (;;) {
		long n = raw_syscall3(SYS_read, fd, (long)buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long i = 0; i < n && !found; i++) {
			char c = buf[i];
			if (matched == klen) {
				found = c != 0; /* non-empty value */
				matched = 0;
				at_start = c == 0;
				continue;
			}
			if (at_start || matched) {
				if (c == key[matched]) {
					matched++;
					at_start = 0;
					continue;
				}
				matched = 0;
			}
			at_start = c == 0;
		}
		if (found)
			break;
	}
	raw_syscall3(SYS_close, fd, 0, 0);
	return cached = found;
}

/* Inline instrumentation's version mark (src/common/mp_abi.h): bump the
 * number with any change to what rt_inline.c relies on. */
RT_EXPORT const int __memprism_inline_abi_3 = 3;

/* A long range (4 KiB or more) makes its chunk not plain (mp_chunk_header
 * .accesses): a replay passing over the chunk in a skip would not see it,
 * and the bound of the footprint wants it (an_model_span_range). After
 * the record: its chunk is the one being filled then. */
static inline void range_done(uint64_t len)
{
	if (len >= 4096)
		rt_self.chunk_plain = 0;
}

/* Where the inline fast path (rt_hot_record) hands over, and what the
 * sites that call instead of inlining it call. */
__attribute__((used)) void rt_access_handover(void *addr, unsigned code, uint64_t len, void *ip)
{
	rt_access(addr, code & ~RT_CODE_SLOT1, len, ip);
	if ((code & 7) == MP_SIZE_RANGE)
		range_done(len);
}

void rt_access_out_c(void *addr, unsigned code, uint64_t len, void *ip)
{
	rt_access_handover(addr, code, len, ip);
}

#if RT_PRESERVE_MOST_ABI
/*
 * The instrumented code's two calls into the runtime, in LLVM's
 * preserve_most convention on x86-64: the callee keeps every
 * general-purpose register but r11, so a call at a site costs its
 * argument moves and nothing around it. With the C convention the nine
 * caller-saved registers die at each of tens of thousands of sites: values
 * live across them go to callee-saved registers or the stack, and
 * SQLite's amalgamation built with every site a call had twice the code of
 * this one. Written in assembly because gcc, which builds the runtime, has
 * no such convention: save the eight registers the C convention lets
 * rt_access_handover clobber (vector registers are the caller's to save
 * in both), align the stack, call it.
 *   __memprism_access(addr, code, len, ip): the inline path's way out.
 *   __memprism_access_cold(addr, code, len): a site that is only a call;
 *   its code address is the return address, as for the callbacks.
 */
#define RT_SAVE_AND_CALL(take_ip)                                                            \
	"	.cfi_startproc\n"                                                                 \
	"	push %rax\n	.cfi_adjust_cfa_offset 8\n"                                          \
	"	push %rcx\n	.cfi_adjust_cfa_offset 8\n"                                          \
	"	push %rdx\n	.cfi_adjust_cfa_offset 8\n"                                          \
	"	push %rsi\n	.cfi_adjust_cfa_offset 8\n"                                          \
	"	push %rdi\n	.cfi_adjust_cfa_offset 8\n"                                          \
	"	push %r8\n	.cfi_adjust_cfa_offset 8\n"                                           \
	"	push %r9\n	.cfi_adjust_cfa_offset 8\n"                                           \
	"	push %r10\n	.cfi_adjust_cfa_offset 8\n"                                          \
	"	sub $8, %rsp\n	.cfi_adjust_cfa_offset 8\n" take_ip                              \
	"	call rt_access_handover\n"                                                        \
	"	add $8, %rsp\n	.cfi_adjust_cfa_offset -8\n"                                     \
	"	pop %r10\n	.cfi_adjust_cfa_offset -8\n"                                         \
	"	pop %r9\n	.cfi_adjust_cfa_offset -8\n"                                          \
	"	pop %r8\n	.cfi_adjust_cfa_offset -8\n"                                          \
	"	pop %rdi\n	.cfi_adjust_cfa_offset -8\n"                                         \
	"	pop %rsi\n	.cfi_adjust_cfa_offset -8\n"                                         \
	"	pop %rdx\n	.cfi_adjust_cfa_offset -8\n"                                         \
	"	pop %rcx\n	.cfi_adjust_cfa_offset -8\n"                                         \
	"	pop %rax\n	.cfi_adjust_cfa_offset -8\n"                                         \
	"	ret\n"                                                                            \
	"	.cfi_endproc\n"

__asm__("	.text\n"
	"	.globl __memprism_access\n"
	"	.type __memprism_access, @function\n"
	"__memprism_access:\n" RT_SAVE_AND_CALL("")
	"	.size __memprism_access, .-__memprism_access\n"
	"	.globl __memprism_access_cold\n"
	"	.type __memprism_access_cold, @function\n"
	"__memprism_access_cold:\n" RT_SAVE_AND_CALL("	mov 72(%rsp), %rcx\n") /* the return address */
	"	.size __memprism_access_cold, .-__memprism_access_cold\n");
#else
void rt_access_out(void *addr, unsigned code, uint64_t len, void *ip)
{
	rt_access_handover(addr, code, len, ip);
}

RT_EXPORT void __memprism_access_cold(void *addr, unsigned code, uint64_t len)
{
	rt_access_handover(addr, code, len, RA());
}
#endif

typedef void (*rt_callback)(void *);

static void rt_no_access(void *addr)
{
	(void)addr;
}

#define SANCOV(n, code)                                                                       \
	static void load##n(void *addr) { rt_access(addr, code, 0, RA()); }                     \
	static void store##n(void *addr) { rt_access(addr, (code) | MP_ACC_WRITE, 0, RA()); }   \
	__attribute__((used)) static rt_callback resolve_load##n(void) { return env_wants_recording() ? load##n : rt_no_access; }     \
	__attribute__((used)) static rt_callback resolve_store##n(void) { return env_wants_recording() ? store##n : rt_no_access; }   \
	RT_EXPORT void __sanitizer_cov_load##n(void *addr) __attribute__((ifunc("resolve_load" #n)));   \
	RT_EXPORT void __sanitizer_cov_store##n(void *addr) __attribute__((ifunc("resolve_store" #n)));

SANCOV(1, 0)
SANCOV(2, 1)
SANCOV(4, 2)
SANCOV(8, 3)
SANCOV(16, 4)

/* The runtime's own memcpy calls (guard set) must not land in the buffer
 * it is working on. The sanitizer callbacks need no such check: the runtime
 * is not instrumented. */
static inline void range_load(const void *p, size_t n, void *ip)
{
	if (n && !rt_self.guard && !rt_tool_accesses) {
		rt_access((void *)p, MP_SIZE_RANGE, n, ip);
		range_done(n);
	}
}

static inline void range_store(const void *p, size_t n, void *ip)
{
	if (n && !rt_self.guard && !rt_tool_accesses) {
		rt_access((void *)p, MP_SIZE_RANGE | MP_ACC_WRITE, n, ip);
		range_done(n);
	}
}

/* Before rt_resolve has run (very early start-up) there is no real function
 * yet: plain loops stand in. */
RT_EXPORT void *memcpy(void *dst, const void *src, size_t n)
{
	if (RT_UNLIKELY(!rt_real.memcpy)) {
		for (size_t i = 0; i < n; i++)
			((char *)dst)[i] = ((const char *)src)[i];
		return dst;
	}
	range_load(src, n, RA());
	range_store(dst, n, RA());
	return rt_real.memcpy(dst, src, n);
}

RT_EXPORT void *memmove(void *dst, const void *src, size_t n)
{
	if (RT_UNLIKELY(!rt_real.memmove)) {
		if ((char *)dst < (const char *)src)
			for (size_t i = 0; i < n; i++)
				((char *)dst)[i] = ((const char *)src)[i];
		else
			for (size_t i = n; i-- > 0;)
				((char *)dst)[i] = ((const char *)src)[i];
		return dst;
	}
	range_load(src, n, RA());
	range_store(dst, n, RA());
	return rt_real.memmove(dst, src, n);
}

RT_EXPORT void *memset(void *dst, int c, size_t n)
{
	if (RT_UNLIKELY(!rt_real.memset)) {
		for (size_t i = 0; i < n; i++)
			((char *)dst)[i] = (char)c;
		return dst;
	}
	range_store(dst, n, RA());
	return rt_real.memset(dst, c, n);
}

RT_EXPORT int memcmp(const void *a, const void *b, size_t n)
{
	if (RT_UNLIKELY(!rt_real.memcmp)) {
		for (size_t i = 0; i < n; i++) {
			int d = ((const unsigned char *)a)[i] - ((const unsigned char *)b)[i];
			if (d)
				return d;
		}
		return 0;
	}
	/* memcmp may stop early; recording n bytes is the documented bound */
	range_load(a, n, RA());
	range_load(b, n, RA());
	return rt_real.memcmp(a, b, n);
}

RT_EXPORT size_t strlen(const char *s)
{
	if (RT_UNLIKELY(!rt_real.strlen)) {
		size_t n = 0;
		while (s[n])
			n++;
		return n;
	}
	size_t n = rt_real.strlen(s);
	range_load(s, n + 1, RA());
	return n;
}

RT_EXPORT char *strcpy(char *dst, const char *src)
{
	if (RT_UNLIKELY(!rt_real.strcpy || !rt_real.strlen)) {
		char *d = dst;
		while ((*d++ = *src++))
			;
		return dst;
	}
	size_t n = rt_real.strlen(src) + 1;
	range_load(src, n, RA());
	range_store(dst, n, RA());
	return rt_real.strcpy(dst, src);
}

RT_EXPORT int strcmp(const char *a, const char *b)
{
	if (RT_UNLIKELY(!rt_real.strcmp)) {
		while (*a && *a == *b)
			a++, b++;
		return (unsigned char)*a - (unsigned char)*b;
	}
	int r = rt_real.strcmp(a, b);
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	range_load(a, i + 1, RA());
	range_load(b, i + 1, RA());
	return r;
}

/* --- more of string.h, resolved on first use. Each records the bytes the
 * function reads and writes by its definition (what a plain implementation
 * would touch), computed from its result. */

#define REAL(name)                                                            \
	static __typeof__(&name) real_##name;                                 \
	if (RT_UNLIKELY(!real_##name))                                        \
		real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

static size_t bounded_len(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && s[k])
		k++;
	return k;
}

/* Measuring the bytes touched costs a pass over them: only when recording. */
static inline int measuring(void)
{
	return rt_recording && !rt_self.guard && !rt_tool_accesses;
}

RT_EXPORT char *strncpy(char *dst, const char *src, size_t n)
{
	REAL(strncpy);
	if (measuring()) {
		size_t k = bounded_len(src, n);
		range_load(src, k < n ? k + 1 : n, RA());
		range_store(dst, n, RA());
	}
	if (RT_UNLIKELY(!real_strncpy)) {
		size_t i = 0;
		for (; i < n && src[i]; i++)
			dst[i] = src[i];
		for (; i < n; i++)
			dst[i] = 0;
		return dst;
	}
	return real_strncpy(dst, src, n);
}

RT_EXPORT char *strcat(char *dst, const char *src)
{
	REAL(strcat);
	if (measuring()) {
		size_t ld = bounded_len(dst, SIZE_MAX), ls = bounded_len(src, SIZE_MAX);
		range_load(dst, ld, RA());
		range_load(src, ls + 1, RA());
		range_store(dst + ld, ls + 1, RA());
	}
	if (RT_UNLIKELY(!real_strcat)) {
		char *d = dst + bounded_len(dst, SIZE_MAX);
		while ((*d++ = *src++))
			;
		return dst;
	}
	return real_strcat(dst, src);
}

RT_EXPORT int strncmp(const char *a, const char *b, size_t n)
{
	REAL(strncmp);
	if (measuring() || RT_UNLIKELY(!real_strncmp)) {
		size_t i = 0;
		while (i < n && a[i] && a[i] == b[i])
			i++;
		size_t seen = i < n ? i + 1 : n;
		range_load(a, seen, RA());
		range_load(b, seen, RA());
		if (RT_UNLIKELY(!real_strncmp))
			return i < n ? (unsigned char)a[i] - (unsigned char)b[i] : 0;
	}
	return real_strncmp(a, b, n);
}

RT_EXPORT char *strchr(const char *s, int c)
{
	REAL(strchr);
	char *r;
	if (RT_UNLIKELY(!real_strchr)) {
		const char *q = s;
		while (*q && *q != (char)c)
			q++;
		r = *q == (char)c ? (char *)q : NULL;
	} else {
		r = real_strchr(s, c);
	}
	if (measuring())
		range_load(s, r ? (size_t)(r - s) + 1 : bounded_len(s, SIZE_MAX) + 1, RA());
	return r;
}

RT_EXPORT void *memchr(const void *s, int c, size_t n)
{
	REAL(memchr);
	void *r;
	if (RT_UNLIKELY(!real_memchr)) {
		const unsigned char *q = s;
		size_t i = 0;
		while (i < n && q[i] != (unsigned char)c)
			i++;
		r = i < n ? (void *)(q + i) : NULL;
	} else {
		r = real_memchr(s, c, n);
	}
	if (measuring())
		range_load(s, r ? (size_t)((const char *)r - (const char *)s) + 1 : n, RA());
	return r;
}

RT_EXPORT size_t strnlen(const char *s, size_t n)
{
	size_t k = bounded_len(s, n);
	range_load(s, k < n ? k + 1 : n, RA());
	return k;
}

/* strdup/strndup allocate: the block's site is their caller's. */
RT_EXPORT char *strdup(const char *s)
{
	size_t n = bounded_len(s, SIZE_MAX) + 1;
	char *p = rt_malloc_at(n, __builtin_frame_address(0), RA());
	if (!p)
		return NULL;
	range_load(s, n, RA());
	range_store(p, n, RA());
	for (size_t i = 0; i < n; i++)
		p[i] = s[i];
	return p;
}

RT_EXPORT char *strndup(const char *s, size_t n)
{
	size_t k = bounded_len(s, n);
	char *p = rt_malloc_at(k + 1, __builtin_frame_address(0), RA());
	if (!p)
		return NULL;
	range_load(s, k < n ? k + 1 : n, RA());
	range_store(p, k + 1, RA());
	for (size_t i = 0; i < k; i++)
		p[i] = s[i];
	p[k] = 0;
	return p;
}
