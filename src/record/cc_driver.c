// SPDX-License-Identifier: MIT
/*
 * `memprism cc`: a drop-in compiler. Picks clang (sanitizer-coverage
 * trace-loads/trace-stores is a clang feature; gcc has no equivalent, see
 * docs/instrumentation.md), adds the access instrumentation and frame pointers
 * when compiling, and the runtime (with an rpath) when linking. The sanitizer
 * link runtime is kept out so our callbacks are the ones that bind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

static const char *pick_compiler(int cxx)
{
	const char *env = getenv(cxx ? "MEMPRISM_CXX" : "MEMPRISM_CC");
	if (env && *env)
		return env;
	static const char *const c[] = { "clang-16", "clang-17", "clang-18", "clang-15", "clang-14", "clang" };
	static const char *const cpp[] = { "clang++-16", "clang++-17", "clang++-18", "clang++-15", "clang++-14",
					   "clang++" };
	char buf[4096];
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *name = cxx ? cpp[i] : c[i];
		if (mp_find_program(name, buf, sizeof(buf)) == 0)
			return name;
	}
	return cxx ? "clang++" : "clang";
}

char **mp_cc_argv(const struct mp_paths *paths, int cxx, int argc, char *const *argv)
{
	int link = 1, inputs = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
		    !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
			link = 0;
		if (a[0] != '-')
			inputs++;
	}
	if (argc == 0 || (inputs == 0 && link))
		link = 0; /* `memprism cc --version` and the like */
	static char inc[4200], libdir[4200], rpath[4200];
	snprintf(inc, sizeof(inc), "-I%s", paths->include);
	snprintf(libdir, sizeof(libdir), "-L%s", paths->libdir);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", paths->libdir);
	const char *pre[] = {
		pick_compiler(cxx),
		"-fsanitize-coverage=edge,trace-loads,trace-stores",
		"-fno-sanitize-link-runtime",
		"-fno-omit-frame-pointer",
		"-mno-omit-leaf-frame-pointer",
		inc,
	};
	const char *post[] = { libdir, rpath, "-Wl,--no-as-needed", "-lmemprism-rt", "-Wl,--as-needed", "-lpthread" };
	size_t npre = sizeof(pre) / sizeof(pre[0]), npost = link ? sizeof(post) / sizeof(post[0]) : 0;
	char **out = calloc(npre + (size_t)argc + npost + 1, sizeof(*out));
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < npre; i++)
		out[k++] = (char *)pre[i];
	for (int i = 0; i < argc; i++)
		out[k++] = argv[i];
	for (size_t i = 0; i < npost; i++)
		out[k++] = (char *)post[i];
	out[k] = NULL;
	return out;
}
