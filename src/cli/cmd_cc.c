// SPDX-License-Identifier: MIT
/* `memprism cc` / `memprism c++`: run clang with instrumentation added;
 * `memprism gcc` / `memprism g++`: gcc with its ThreadSanitizer calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/mp_error.h"
#include "record/record.h"

static int run_cc(int argc, char **argv, int cxx)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: memprism %s [COMPILER ARGS]\n\n"
		       "Compiles and links like %s, adding memprism's access instrumentation, frame\n"
		       "pointers for allocation stacks, -I for <memprism.h>, and memprism's runtime\n"
		       "when linking. The program runs normally when not recorded. Use it as\n"
		       "CC=\"memprism cc\".\n\n"
		       "Instrumentation: inline (memprism's LLVM pass plugin puts the recording code\n"
		       "at every load and store; the default where it was built) or sancov (clang\n"
		       "-fsanitize-coverage=trace-loads,trace-stores: a callback per access).\n"
		       "Add -Rpass=memprism to see, per loop, how inline instrumentation\n"
		       "treated it.\n\n"
		       "environment:\n"
		       "  MEMPRISM_INSTRUMENT=inline|sancov   choose the instrumentation\n"
		       "  MEMPRISM_CC / MEMPRISM_CXX   the clang to use (default: clang-16, then\n"
		       "                               others; implies sancov)\n",
		       cxx ? "c++" : "cc", cxx ? "clang++" : "clang");
		return cli_finish_stdout();
	}
	struct mp_paths paths;
	int err = mp_paths_find(&paths);
	if (err) {
		cli_error("%s (is memprism installed completely?)", mp_strerror(err));
		return 2;
	}
	char **av = mp_cc_argv(&paths, cxx, argc - 1, argv + 1);
	if (!av && errno == EINVAL) {
		const char *want = getenv("MEMPRISM_INSTRUMENT");
		if (!strcmp(want, "inline"))
			cli_error("MEMPRISM_INSTRUMENT=inline: the pass plugin is not available (memprism was built "
				  "without LLVM 16 development files, or MEMPRISM_CC/MEMPRISM_CXX names another "
				  "compiler); use MEMPRISM_INSTRUMENT=sancov");
		else
			cli_error("MEMPRISM_INSTRUMENT=%s: unknown instrumentation (inline or sancov)", want);
		return 2;
	}
	if (!av) {
		cli_error("out of memory");
		return 2;
	}
	execvp(av[0], av);
	cli_error("cannot run %s: %s (install clang, e.g. `apt-get install clang-16`, or set %s)", av[0],
		  strerror(errno), cxx ? "MEMPRISM_CXX" : "MEMPRISM_CC");
	free(av);
	return 127;
}

int cmd_cc(int argc, char **argv)
{
	return run_cc(argc, argv, 0);
}

int cmd_cxx(int argc, char **argv)
{
	return run_cc(argc, argv, 1);
}

static int run_gcc(int argc, char **argv, int cxx)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: memprism %s [COMPILER ARGS]\n\n"
		       "Compiles and links like %s, for projects that build only with gcc: gcc's\n"
		       "ThreadSanitizer instrumentation (-fsanitize=thread, at compile time only:\n"
		       "libtsan is never linked) calls memprism's runtime before every load and\n"
		       "store, -I for <memprism.h>, and memprism's runtime when linking. The\n"
		       "program runs normally when not recorded. Use it as CC=\"memprism gcc\".\n"
		       "A call per access: `memprism cc` (clang, inline) records faster.\n\n"
		       "environment:\n"
		       "  MEMPRISM_GCC / MEMPRISM_GXX   the gcc to use (default: gcc, g++)\n",
		       cxx ? "g++" : "gcc", cxx ? "g++" : "gcc");
		return cli_finish_stdout();
	}
	struct mp_paths paths;
	int err = mp_paths_find(&paths);
	if (err) {
		cli_error("%s (is memprism installed completely?)", mp_strerror(err));
		return 2;
	}
	char **av = mp_gcc_argv(&paths, cxx, argc - 1, argv + 1);
	if (!av) {
		cli_error("out of memory");
		return 2;
	}
	execvp(av[0], av);
	cli_error("cannot run %s: %s (install gcc, e.g. `apt-get install build-essential`, or set %s)", av[0],
		  strerror(errno), cxx ? "MEMPRISM_GXX" : "MEMPRISM_GCC");
	free(av);
	return 127;
}

int cmd_gcc(int argc, char **argv)
{
	return run_gcc(argc, argv, 0);
}

int cmd_gxx(int argc, char **argv)
{
	return run_gcc(argc, argv, 1);
}
