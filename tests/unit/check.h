/* SPDX-License-Identifier: MIT */
/* Tiny CHECK macro for unit tests: report the failed expression and count. */
#ifndef MP_TEST_CHECK_H
#define MP_TEST_CHECK_H
#include <stdio.h>
static int check_failures, check_count;
#define CHECK(cond)                                                                      \
	do {                                                                             \
		check_count++;                                                           \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                                \
		}                                                                        \
	} while (0)
#define CHECK_EQ(a, b)                                                                                  \
	do {                                                                                            \
		check_count++;                                                                          \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);          \
		if (a_ != b_) {                                                                         \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %llu, %s = %llu\n", __FILE__, __LINE__, \
				#a, a_, #b, b_);                                                        \
			check_failures++;                                                               \
		}                                                                                       \
	} while (0)
static inline int check_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}
#endif
