// SPDX-License-Identifier: MIT
/*
 * `memprism cc`: a drop-in compiler. Picks clang (both instrumentations are
 * clang features; gcc has no equivalent, see docs/instrumentation.md), adds
 * the access instrumentation and frame pointers when compiling, and the
 * runtime (with an rpath) when linking. Inline instrumentation (our pass
 * plugin) is the default where it was built; sanitizer-coverage callbacks
 * are the fallback, with the sanitizer link runtime kept out so our
 * callbacks are the ones that bind.
 *
 * `memprism gcc`: for projects that build only with gcc. gcc's
 * ThreadSanitizer instrumentation (-fsanitize=thread) calls a function
 * before every load and store; memprism's runtime defines those functions
 * (rt_tsan.c). gcc has no -fno-sanitize-link-runtime: when it links with
 * -fsanitize=thread it asks for -ltsan, which a linker script of that name
 * in lib/memprism/gcc-tsan, first on the library path, answers with
 * nothing, so libtsan's runtime never loads. Where memprism's GCC plugin
 * was built, it replaces those calls by the runtime's inline access path
 * (src/pass/mp_gcc_plugin.cpp), as the LLVM pass plugin does for clang.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mp_env.h"
#include "mp_config.h"
#include "record/record.h"

static const char *pick_compiler(int cxx)
{
	const char *env = getenv(cxx ? MP_ENV_CXX : MP_ENV_CC);
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

/* Whether the command line links (not -c, -S, -E, -M, -MM or
 * -fsyntax-only, and some input given: `memprism cc --version` does not). */
static int links(int argc, char *const *argv)
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
	return argc > 0 && inputs > 0 && link;
}

/* MEMPRISM_INSTRUMENT's choice for a compiler whose plugin was built (built)
 * into libdir as plugin_name, needing extra (or NULL) beside it: "inline"
 * (*plugin its path), calls (the other way's name), or NULL for an unknown
 * value or inline asked where it cannot be had. A compiler named in the
 * environment (compiler_env) cannot load the plugin. */
static const char *instrumentation(const struct mp_paths *paths, int built, const char *compiler_env,
				   const char *plugin_name, const char *extra, const char *calls, char *plugin,
				   size_t len)
{
	const char *want = getenv(MP_ENV_INSTRUMENT);
	if (want && !strcmp(want, "sancov"))
		return calls;
	int asked = want && !strcmp(want, "inline");
	if (want && *want && !asked)
		return NULL;
	int can = built && !(compiler_env && *compiler_env);
	if (can) {
		char x[4200];
		snprintf(plugin, len, "%s/%s", paths->libdir, plugin_name);
		snprintf(x, sizeof(x), "%s/%s", paths->libdir, extra ? extra : plugin_name);
		can = !access(plugin, R_OK) && !access(x, R_OK);
	}
	return can ? "inline" : asked ? NULL : calls;
}

const char *mp_cc_instrumentation(const struct mp_paths *paths, int cxx, char *plugin, size_t len)
{
	/* the plugin loads only into the clang of its own LLVM: a compiler
	 * chosen through the environment gets the callbacks */
	return instrumentation(paths, MP_PASS_TOOLS[0], getenv(cxx ? MP_ENV_CXX : MP_ENV_CC), MP_PASS_NAME,
			       MP_INLINE_BC_NAME, "sancov", plugin, len);
}

char **mp_cc_argv(const struct mp_paths *paths, int cxx, int argc, char *const *argv)
{
	const int link = links(argc, argv);
	static char inc[4200], libdir[4200], rpath[4200], plugin[4200], pass_flag[4300], compiler[4200];
	snprintf(inc, sizeof(inc), "-I%s", paths->include);
	snprintf(libdir, sizeof(libdir), "-L%s", paths->libdir);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", paths->libdir);
	const char *how = mp_cc_instrumentation(paths, cxx, plugin, sizeof(plugin));
	if (!how) {
		errno = EINVAL;
		return NULL;
	}
	int inl = !strcmp(how, "inline");
	if (inl) {
		snprintf(compiler, sizeof(compiler), "%s/%s", MP_PASS_TOOLS, cxx ? "clang++" : "clang");
		snprintf(pass_flag, sizeof(pass_flag), "-fpass-plugin=%s", plugin);
	}
	const char *pre[] = {
		inl ? compiler : pick_compiler(cxx),
		inl ? pass_flag : "-fsanitize-coverage=edge,trace-loads,trace-stores",
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

const char *mp_gcc_instrumentation(const struct mp_paths *paths, int cxx, char *plugin, size_t len)
{
	/* the plugin loads only into the gcc it was built for: a compiler
	 * chosen through the environment gets the calls */
	return instrumentation(paths, MP_GCC_PLUGIN_BUILT, getenv(cxx ? MP_ENV_GXX : MP_ENV_GCC), MP_GCC_PLUGIN_NAME,
			       NULL, "calls", plugin, len);
}

/* The instrumented compiler: compiling and linking share the flags, since
 * `memprism gcc app.c -o app` does both in one step. */
char **mp_gcc_argv(const struct mp_paths *paths, int cxx, int argc, char *const *argv)
{
	const int link = links(argc, argv);
	static char inc[4200], libdir[4200], shim[4300], rpath[4200], plugin[4200], plugin_flag[4300];
	const char *how = mp_gcc_instrumentation(paths, cxx, plugin, sizeof(plugin));
	if (!how) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(plugin_flag, sizeof(plugin_flag), "-fplugin=%s", plugin);
	snprintf(inc, sizeof(inc), "-I%s", paths->include);
	snprintf(libdir, sizeof(libdir), "-L%s", paths->libdir);
	snprintf(shim, sizeof(shim), "-L%s/gcc-tsan", paths->libdir);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", paths->libdir);
	const char *env = getenv(cxx ? MP_ENV_GXX : MP_ENV_GCC);
	const char *pre[] = {
		env && *env ? env : cxx ? "g++" : "gcc",
		"-fsanitize=thread",
		/* function entry and exit: no use to us, a call each */
		"--param=tsan-instrument-func-entry-exit=0",
		inc,
		/* the inline access path (src/pass/mp_gcc_plugin.cpp) */
		!strcmp(how, "inline") ? plugin_flag : NULL,
	};
	const char *post[] = { shim, libdir, rpath, "-Wl,--no-as-needed", "-lmemprism-rt", "-Wl,--as-needed", "-lpthread" };
	size_t npre = sizeof(pre) / sizeof(pre[0]), npost = link ? sizeof(post) / sizeof(post[0]) : 0;
	char **out = calloc(npre + (size_t)argc + npost + 1, sizeof(*out));
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < npre; i++)
		if (pre[i])
			out[k++] = (char *)pre[i];
	for (int i = 0; i < argc; i++)
		out[k++] = argv[i];
	for (size_t i = 0; i < npost; i++)
		out[k++] = (char *)post[i];
	out[k] = NULL;
	return out;
}
