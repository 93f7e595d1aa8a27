// SPDX-License-Identifier: MIT
/*
 * Access recording: the sanitizer-coverage callbacks that `memprism cc`
 * instrumentation calls before every load and store, and interposed libc
 * memory/string functions recorded as ranged accesses (their bodies are not
 * instrumented, and large struct copies become memcpy calls).
 * docs/instrumentation.md says what is and is not covered, and why this ABI.
 */
#include <string.h>

#include "rt/rt_int.h"

#define RA() __builtin_return_address(0)

#define SANCOV(n, code)                                                             \
	RT_EXPORT void __sanitizer_cov_load##n(void *addr) { rt_access(addr, code, 0, RA()); } \
	RT_EXPORT void __sanitizer_cov_store##n(void *addr)                                \
	{                                                                                  \
		rt_access(addr, (code) | MP_ACC_WRITE, 0, RA());                           \
	}

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
	if (n && !rt_self.guard)
		rt_access((void *)p, MP_SIZE_RANGE, n, ip);
}

static inline void range_store(const void *p, size_t n, void *ip)
{
	if (n && !rt_self.guard)
		rt_access((void *)p, MP_SIZE_RANGE | MP_ACC_WRITE, n, ip);
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
