// SPDX-License-Identifier: MIT
/* `memprism cc` / `memprism c++`: run clang with instrumentation added;
 * `memprism gcc` / `memprism g++`: gcc with its ThreadSanitizer calls. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/mp_env.h"
#include "common/mp_error.h"
#include "record/record.h"

/* The compiler's options are all the command takes: no option table, a
 * help page only. */
#define CC_ABOUT(compiler)                                                                                             \
	"Compiles and links like " compiler ", adding memprism's access instrumentation, frame\n"                  \
	"pointers for allocation stacks, -I for <memprism.h>, and memprism's runtime\n"                             \
	"when linking. The program runs normally when not recorded. Use it as\n"                                    \
	"CC=\"memprism cc\".\n\n"                                                                                    \
	"Instrumentation: inline (memprism's LLVM pass plugin puts the recording code\n"                             \
	"at every load and store; the default where it was built) or sancov (clang\n"                               \
	"-fsanitize-coverage=trace-loads,trace-stores: a callback per access).\n"                                    \
	"Add -Rpass=memprism to see, per loop, how inline instrumentation\n"                                          \
	"treated it.\n\n"                                                                                             \
	"environment (docs/environment.md):\n"                                                                       \
	"  " MP_ENV_INSTRUMENT "=inline|sancov   choose the instrumentation\n"                                      \
	"  " MP_ENV_INLINE_SITES "=N   at most N access sites of a source file get the\n"                          \
	"                               inline path, the rest call the runtime\n"                                  \
	"                               (default 5000; 0: every site a call)\n"                                     \
	"  " MP_ENV_CC " / " MP_ENV_CXX "   the clang to use (default: clang-16, then\n"                           \
	"                               others; implies sancov)\n"

static int cmd_cc(int argc, char **argv);
static int cmd_cxx(int argc, char **argv);

const struct cli_cmd cli_cmd_cc = {
	.name = "cc",
	.run = cmd_cc,
	.summary = "compile and link C with access instrumentation (drop-in for cc)",
	.usage = "[COMPILER ARGS]",
	.about = CC_ABOUT("clang"),
	.examples = (const struct cli_example[]){
		{ "memprism cc -O2 -g app.c -o app",
		  "compile and link with inline access instrumentation" },
		{ "make CC=\"memprism cc\"",
		  "a project's build, instrumented" },
		{ "MEMPRISM_INSTRUMENT=sancov memprism cc -O2 -g app.c -o app",
		  "sanitizer-coverage callbacks instead of the pass plugin" },
		{ 0 },
	},
	.see_also = "memprism-record(1), memprism-gcc(1), clang(1)",
};

const struct cli_cmd cli_cmd_cxx = {
	.name = "c++",
	.run = cmd_cxx,
	.summary = "compile and link C++ with access instrumentation (drop-in for c++)",
	.usage = "[COMPILER ARGS]",
	.about = CC_ABOUT("clang++"),
	.examples = (const struct cli_example[]){
		{ "memprism c++ -O2 -g app.cc -o app",
		  "compile and link with inline access instrumentation" },
		{ "make CXX=\"memprism c++\"",
		  "a project's build, instrumented" },
		{ "MEMPRISM_INSTRUMENT=sancov memprism c++ -O2 -g app.cc -o app",
		  "sanitizer-coverage callbacks instead of the pass plugin" },
		{ 0 },
	},
	.see_also = "memprism-record(1), memprism-gcc(1), clang(1)",
};

/* A build for another word size (-m32, -mx32, -m16): the runtime the
 * build links and the data file's programs are x86-64's. 1 (said) or 0. */
static int other_word_size(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-m32") || !strcmp(argv[i], "-mx32") || !strcmp(argv[i], "-m16")) {
			cli_error("%s: memprism's runtime, which an instrumented program links and loads, is built for "
				  "64-bit x86-64 programs only: build without %s to record the program",
				  argv[i], argv[i]);
			return 1;
		}
	return 0;
}

/* A statically linked program (-static, -static-pie): it has no dynamic
 * loader to preload memprism's runtime, which the instrumented code calls
 * and which records allocations; the link would fail on the runtime
 * (`cannot find -lmemprism-rt`). 1 (said) or 0. */
static int static_link(int argc, char **argv)
{
	const char *flag = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
		    !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
			return 0; /* (no link) */
		if (!strcmp(a, "-static") || !strcmp(a, "-static-pie"))
			flag = a;
	}
	if (!flag)
		return 0;
	cli_error("%s: memprism's runtime is a shared library that the dynamic loader preloads into the program "
		  "(the instrumented code calls it, and it records allocations), and a static program has no "
		  "dynamic loader: link without %s (libraries of your own may stay static: -Wl,-Bstatic -lfoo "
		  "-Wl,-Bdynamic)",
		  flag, flag);
	return 1;
}

static int run_cc(int argc, char **argv, int cxx)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_help(stdout, cxx ? &cli_cmd_cxx : &cli_cmd_cc);
		return cli_finish_stdout();
	}
	if (other_word_size(argc, argv) || static_link(argc, argv))
		return 2;
	struct mp_paths paths;
	int err = mp_paths_find(&paths);
	if (err) {
		cli_error("%s (is memprism installed completely?)", mp_strerror(err));
		return 2;
	}
	/* checked here: inside clang the plugin could only fail the build */
	const char *sites = getenv(MP_ENV_INLINE_SITES);
	if (sites && *sites) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(sites, &end, 10);
		if (*end || errno || sites[0] == '-' || n > UINT_MAX) {
			cli_error(MP_ENV_INLINE_SITES "=%s: wants a number of access sites (0 or more)", sites);
			return 2;
		}
	}
	char **av = mp_cc_argv(&paths, cxx, argc - 1, argv + 1);
	if (!av && errno == EINVAL) {
		const char *want = getenv(MP_ENV_INSTRUMENT);
		if (!strcmp(want, "inline"))
			cli_error(MP_ENV_INSTRUMENT "=inline: the pass plugin is not available (memprism was built "
				  "without LLVM 16 development files, or " MP_ENV_CC "/" MP_ENV_CXX " names another "
				  "compiler); use " MP_ENV_INSTRUMENT "=sancov");
		else
			cli_error(MP_ENV_INSTRUMENT "=%s: unknown instrumentation (inline or sancov)", want);
		return 2;
	}
	if (!av) {
		cli_error("out of memory");
		return 2;
	}
	execvp(av[0], av);
	cli_error("cannot run %s: %s (install clang, e.g. `apt-get install clang-16`, or set %s)", av[0],
		  strerror(errno), cxx ? MP_ENV_CXX : MP_ENV_CC);
	free(av);
	return 127;
}

static int cmd_cc(int argc, char **argv)
{
	return run_cc(argc, argv, 0);
}

static int cmd_cxx(int argc, char **argv)
{
	return run_cc(argc, argv, 1);
}

#define GCC_ABOUT(compiler)                                                                                            \
	"Compiles and links like " compiler ", for projects that build only with gcc: gcc's\n"                    \
	"ThreadSanitizer instrumentation (-fsanitize=thread, at compile time only:\n"                                 \
	"libtsan is never linked) marks every load and store, -I for <memprism.h>,\n"                                \
	"and memprism's runtime when linking. The program runs normally when not\n"                                  \
	"recorded. Use it as CC=\"memprism gcc\".\n\n"                                                              \
	"Instrumentation: inline (memprism's GCC plugin puts the recording code at\n"                                \
	"every load and store; the default where it was built) or sancov (a call\n"                                  \
	"into the runtime per access).\n\n"                                                                          \
	"environment (docs/environment.md):\n"                                                                       \
	"  " MP_ENV_INSTRUMENT "=inline|sancov   choose the instrumentation\n"                                      \
	"  " MP_ENV_INLINE_SITES "=N   at most N access sites of a source file get the\n"                          \
	"                               inline path, the rest call the runtime\n"                                  \
	"                               (default 5000; 0: every site a call)\n"                                     \
	"  " MP_ENV_GCC " / " MP_ENV_GXX "   the gcc to use (default: gcc, g++; another\n"                        \
	"                               implies sancov)\n"

static int cmd_gcc(int argc, char **argv);
static int cmd_gxx(int argc, char **argv);

const struct cli_cmd cli_cmd_gcc = {
	.name = "gcc",
	.run = cmd_gcc,
	.summary = "the same with gcc (its ThreadSanitizer instrumentation), for gcc-only builds",
	.usage = "[COMPILER ARGS]",
	.about = GCC_ABOUT("gcc"),
	.examples = (const struct cli_example[]){
		{ "memprism gcc -O2 -g app.c -o app",
		  "compile and link with inline access instrumentation (gcc)" },
		{ "MEMPRISM_INSTRUMENT=sancov memprism gcc -O2 -g app.c -o app",
		  "a call into memprism's runtime per access instead of the plugin" },
		{ 0 },
	},
	.see_also = "memprism-record(1), memprism-cc(1), gcc(1)",
};

const struct cli_cmd cli_cmd_gxx = {
	.name = "g++",
	.run = cmd_gxx,
	.summary = "the same with g++",
	.usage = "[COMPILER ARGS]",
	.about = GCC_ABOUT("g++"),
	.examples = (const struct cli_example[]){
		{ "memprism g++ -O2 -g app.cc -o app",
		  "compile and link C++ with inline access instrumentation (g++)" },
		{ 0 },
	},
	.see_also = "memprism-record(1), memprism-cc(1), gcc(1)",
};

static int run_gcc(int argc, char **argv, int cxx)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_help(stdout, cxx ? &cli_cmd_gxx : &cli_cmd_gcc);
		return cli_finish_stdout();
	}
	if (other_word_size(argc, argv) || static_link(argc, argv))
		return 2;
	struct mp_paths paths;
	int err = mp_paths_find(&paths);
	if (err) {
		cli_error("%s (is memprism installed completely?)", mp_strerror(err));
		return 2;
	}
	char **av = mp_gcc_argv(&paths, cxx, argc - 1, argv + 1);
	if (!av && errno == EINVAL) {
		const char *want = getenv(MP_ENV_INSTRUMENT);
		if (!strcmp(want, "inline"))
			cli_error(MP_ENV_INSTRUMENT "=inline: the gcc plugin is not available (memprism was built "
				  "without gcc's plugin headers, e.g. gcc-12-plugin-dev, or " MP_ENV_GCC "/" MP_ENV_GXX
				  " names another compiler); use " MP_ENV_INSTRUMENT "=sancov");
		else
			cli_error(MP_ENV_INSTRUMENT "=%s: unknown instrumentation (inline or sancov)", want);
		return 2;
	}
	if (!av) {
		cli_error("out of memory");
		return 2;
	}
	execvp(av[0], av);
	cli_error("cannot run %s: %s (install gcc, e.g. `apt-get install build-essential`, or set %s)", av[0],
		  strerror(errno), cxx ? MP_ENV_GXX : MP_ENV_GCC);
	free(av);
	return 127;
}

static int cmd_gcc(int argc, char **argv)
{
	return run_gcc(argc, argv, 0);
}

static int cmd_gxx(int argc, char **argv)
{
	return run_gcc(argc, argv, 1);
}
