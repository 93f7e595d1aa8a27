// SPDX-License-Identifier: MIT
/* memprism: the command table and dispatch. Help is generated from the table. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/mp_error.h"
#include "mp_config.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "cc", cmd_cc, "compile and link C with access instrumentation (drop-in for cc)" },
	{ "c++", cmd_cxx, "compile and link C++ with access instrumentation (drop-in for c++)" },
	{ "gcc", cmd_gcc, "the same with gcc (its ThreadSanitizer calls), for gcc-only builds" },
	{ "g++", cmd_gxx, "the same with g++" },
	{ "record", cmd_record, "run a program and record its objects and accesses" },
	{ "report", cmd_report, "show accesses per object, site, kind, thread or function" },
	{ "tlb", cmd_tlb, "where TLB misses and page walks concentrate, by page and object (modelled)" },
	{ "numa", cmd_numa, "NUMA locality: remote accesses per object and thread, node matrix, patterns, fixes" },
	{ "whatif", cmd_whatif, "the trace under two model configurations (machine, huge pages), per object" },
	{ "memtrace", cmd_memtrace, "every modelled DRAM request with its object: the ORMBP paper's trace" },
	{ "fold", cmd_fold, "fold the instances of a region into one: objects and addresses over its phase" },
	{ "export", cmd_export, "write an SQLite database or a Paraver trace of the attributed accesses" },
	{ "dump", cmd_dump, "print the raw chunks, events and accesses of a data file" },
	{ "doctor", cmd_doctor, "say what this machine can measure (PMU, page faults, privileges)" },
};

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("memprism: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_parse_limit(const char *arg, size_t *out)
{
	char *end;
	errno = 0;
	long n = strtol(arg, &end, 10);
	if (!*arg || *end || n < 0 || errno) {
		cli_error("--limit wants a number >= 0, not '%s'", arg);
		return 2;
	}
	*out = (size_t)n;
	return 0;
}

int cli_data_path(int argc, char **argv, int optind, const char **path)
{
	if (argc - optind > 1) {
		cli_error("one data file at a time (got '%s' and '%s')", argv[optind], argv[optind + 1]);
		return 2;
	}
	*path = optind < argc ? argv[optind] : "memprism.data";
	return 0;
}

void cli_data_error(int err, const char *path, int named, const char *record_hint)
{
	if (err == -ENOENT && !named)
		cli_error("no memprism.data here: record one first with `%s`", record_hint);
	else
		cli_error("cannot read %s: %s", path, mp_strerror(err));
}

int cli_damage(const struct an_result *res, const char *path, int warnings_shown)
{
	if (!res->damaged)
		return 0;
	if (!warnings_shown)
		for (size_t i = 0; i < res->nwarnings; i++)
			cli_error("warning: %s", res->warnings[i]);
	if (res->damaged & AN_DAMAGE_UNTRUSTED) {
		cli_error("warning: %s is damaged: its chunks are not those of a recording, and its figures cannot "
			  "be trusted (the warnings say why)",
			  path);
		return 1;
	}
	cli_error("warning: %s is damaged or truncated; the report covers what could be read (the warnings say "
		  "what was not)",
		  path);
	return 0;
}

int cli_finish_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("error writing the output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: memprism COMMAND [OPTIONS] [ARGS]\n\n"
		     "memprism %s: object-relative memory profiler. Which data structures does your\n"
		     "program access, how much, from which threads and code?\n\ncommands:\n",
		MP_VERSION);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n`memprism COMMAND --help` describes each command. A session:\n"
		     "  memprism cc -O2 -g app.c -o app\n"
		     "  memprism record -- ./app args\n"
		     "  memprism report\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return cli_finish_stdout();
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("memprism %s\n", MP_VERSION);
		return cli_finish_stdout();
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	cli_error("unknown command '%s' (try `memprism --help`)", cmd);
	return 2;
}
