// SPDX-License-Identifier: MIT
/* memprism: the command table and dispatch. The commands' list is generated
 * from the table, each command's help from its option table (cli_opt.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli/cli.h"
#include "common/mp_error.h"
#include "mp_config.h"

/* `memprism --help` lists them in this order; each names its function,
 * its one-line summary and its option table (cmd_<name>.c). */
static const struct cli_cmd *const commands[] = {
	&cli_cmd_cc,	 &cli_cmd_cxx,	  &cli_cmd_gcc,	     &cli_cmd_gxx,  &cli_cmd_record,
	&cli_cmd_report, &cli_cmd_annotate, &cli_cmd_tlb,	  &cli_cmd_numa,     &cli_cmd_whatif, &cli_cmd_diff, &cli_cmd_memtrace,
	&cli_cmd_fold,	 &cli_cmd_export, &cli_cmd_dump,     &cli_cmd_doctor,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cli_cmd *command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("memprism: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_parse_count(const char *opt, const char *arg, size_t max, size_t *out)
{
	char *end;
	errno = 0;
	long n = strtol(arg, &end, 10);
	if (!*arg || *end || n < 0 || errno || (size_t)n > max) {
		if (max == SIZE_MAX)
			cli_error("%s wants a number >= 0, not '%s'", opt, arg);
		else
			cli_error("%s wants a number from 0 to %zu (got '%s')", opt, max, arg);
		return 2;
	}
	*out = (size_t)n;
	return 0;
}

int cli_parse_limit(const char *arg, size_t *out)
{
	return cli_parse_count("--limit", arg, SIZE_MAX, out);
}

int cli_data_path(int argc, char **argv, int optind, const char **path)
{
	if (argc - optind > 1) {
		cli_error("one data file at a time (got '%s' and '%s'; report, tlb, whatif, numa, diff and export "
			  "--dhat or --paraver merge several)",
			  argv[optind], argv[optind + 1]);
		return 2;
	}
	*path = optind < argc ? argv[optind] : "memprism.data";
	return 0;
}

void cli_data_error(int err, const char *path, int named, const char *record_hint)
{
	if (err == -ENOENT && !named)
		cli_error("no memprism.data here: record one first with `%s`", record_hint);
	else if (err == -ENOENT && !strcmp(path, "-"))
		cli_error("cannot read '-': data files are read by name, not from standard input (they are mapped "
			  "whole): save the data to a file and name it");
	else if (err == -MP_ERR_NOT_REGULAR)
		cli_error("cannot read %s: it is not a regular file (a pipe or a device), and data files are mapped "
			  "whole: save the data to a file and name it",
			  path);
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

void cli_files_max(void)
{
	/* The analysis holds a file's debug information open for each of its
	 * processes' images (libdw reads it as needed): a shell script's few
	 * hundred commands pass the usual soft limit of 1,024 descriptors,
	 * past which their symbols would be lost. The soft limit goes up to
	 * the hard one, as systemd's documentation asks of programs that need
	 * many. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\n`memprism COMMAND --help` (or `man memprism-COMMAND`) describes each command;\n"
		     "`memprism --list-opts COMMAND` lists its long options, one a line. A session:\n"
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
	/* (for completion and the man pages' generation; not in the help) */
	if (!strcmp(cmd, "--list-commands")) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			printf("%s\n", commands[i]->name);
		return cli_finish_stdout();
	}
	if (!strcmp(cmd, "--list-shorts")) {
		const struct cli_cmd *c = argc == 3 ? command(argv[2]) : NULL;
		if (!c) {
			cli_error("--list-shorts wants one command");
			return 2;
		}
		cli_list_shorts(stdout, c);
		return cli_finish_stdout();
	}
	if (!strcmp(cmd, "--list-values")) {
		const struct cli_cmd *c = argc == 4 ? command(argv[2]) : NULL;
		if (!c) {
			cli_error("--list-values wants a command and one of its options (--list-values report by)");
			return 2;
		}
		cli_list_values(stdout, c, argv[3][0] == '-' && argv[3][1] == '-' ? argv[3] + 2 : argv[3]);
		return cli_finish_stdout();
	}
	if (!strcmp(cmd, "--man")) {
		const struct cli_cmd *c = argc == 3 ? command(argv[2]) : NULL;
		if (argc > 3 || (argc == 3 && !c)) {
			cli_error("--man wants no command (memprism(1)) or one (memprism-COMMAND(1))");
			return 2;
		}
		if (c)
			cli_man_page(stdout, c);
		else
			cli_man_overview(stdout, commands, NCOMMANDS);
		return cli_finish_stdout();
	}
	if (!strcmp(cmd, "--list-opts")) {
		const struct cli_cmd *c = argc == 3 ? command(argv[2]) : NULL;
		if (!c) {
			cli_error("--list-opts wants one command (try `memprism --help`)");
			return 2;
		}
		cli_list_opts(stdout, c);
		return cli_finish_stdout();
	}
	const struct cli_cmd *c = command(cmd);
	/* (record and the compilers leave the limits of the programs they
	 * start as the user set them) */
	if (c && c != &cli_cmd_record && c != &cli_cmd_cc && c != &cli_cmd_cxx && c != &cli_cmd_gcc &&
	    c != &cli_cmd_gxx)
		cli_files_max();
	if (c)
		return c->run(argc - 1, argv + 1);
	cli_error("unknown command '%s' (try `memprism --help`)", cmd);
	return 2;
}
