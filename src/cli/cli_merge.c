// SPDX-License-Identifier: MIT
/* Several data files in one report (docs/mpi.md): the operands, the checks
 * that they belong together, and the merge's run with its words. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/an_merge.h"
#include "cli/cli.h"
#include "common/mp_error.h"

const struct cli_opt cli_opts_merge[] = {
	CLI_OPT("force", CLI_K_FORCE, NULL,
	  "several data files: merge them even when they record\n"
	  "different programs, or two of them the same rank"),
	CLI_OPT("jobs", 'j', "N",
	  "analyse N data files at once, or N processes of one\n"
	  "file (a program that forks: docs/mpi.md)\n"
	  "(default: one per CPU); the same report, memory for\n"
	  "N analyses"),
	CLI_END,
};

static unsigned jobs; /* --jobs; 0: one per online CPU */

int cli_parse_jobs(const char *arg)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || n < 1 || n > 64) {
		cli_error("--jobs wants a number from 1 to 64 (got '%s')", arg);
		return 2;
	}
	jobs = (unsigned)n;
	return 0;
}

unsigned cli_jobs(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return jobs ? jobs : cpus > 64 ? 64 : cpus > 0 ? (unsigned)cpus : 1;
}

int cli_merge_wanted(int argc, char **argv, int optind)
{
	struct stat st;
	if (argc - optind > 1)
		return 1;
	return optind < argc && stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode);
}

static char progress_what[4300];

static void on_part(void *arg, const struct an_merge_part *p, size_t i, size_t n)
{
	(void)arg;
	cli_progress_end();
	if (p->rank >= 0)
		snprintf(progress_what, sizeof(progress_what), "reading rank %d (%zu of %zu files)", p->rank, i + 1, n);
	else
		snprintf(progress_what, sizeof(progress_what), "reading %s (%zu of %zu files)", p->path, i + 1, n);
}

static const char *name(char *buf, size_t cap, const struct an_merge_part *p)
{
	if (p->rank >= 0)
		snprintf(buf, cap, "%s (rank %d)", p->path, p->rank);
	else
		snprintf(buf, cap, "%s", p->path);
	return buf;
}

/* "job 963444737, 4 ranks" (either part may be unknown) */
static const char *job(char *buf, size_t cap, const struct an_merge_part *p)
{
	size_t n = 0;
	buf[0] = 0;
	if (p->job[0])
		n = (size_t)snprintf(buf, cap, "job %s", p->job);
	if (p->rank_size && n < cap)
		snprintf(buf + n, cap - n, "%s%d ranks", n ? ", " : "", p->rank_size);
	return buf;
}

int cli_merge_open(int argc, char **argv, int optind, int force, struct an_merge **out)
{
	*out = NULL;
	struct an_merge *m = NULL;
	const char *bad = NULL;
	static const char *const fallback[] = { "memprism.data" };
	const char *const *paths = argc > optind ? (const char *const *)argv + optind : fallback;
	int err = an_merge_open(paths, argc > optind ? (size_t)(argc - optind) : 1, &m, &bad);
	if (err == -ENODATA) {
		cli_error("%s holds no memprism data files", bad);
		return 2;
	}
	if (err) {
		cli_error("cannot read %s: %s", bad ? bad : "the data files", mp_strerror(err));
		return err == -ENOMEM ? 1 : 2;
	}
	size_t a, b;
	char na[4200], nb[4200];
	if (!force && an_merge_mismatch(m, &a, &b)) {
		const struct an_merge_part *pa = an_merge_part(m, a), *pb = an_merge_part(m, b);
		cli_error("%s records %s, %s records %s: files of different programs are not merged (--force merges "
			  "them anyway, row by row)",
			  name(na, sizeof(na), pa), pa->program, name(nb, sizeof(nb), pb), pb->program);
		an_merge_free(m);
		return 2;
	}
	if (!force && an_merge_runs_differ(m, &a, &b)) {
		const struct an_merge_part *pa = an_merge_part(m, a), *pb = an_merge_part(m, b);
		char ja[200], jb[200];
		cli_error("%s and %s are of different runs (%s; %s): give one run's files (--force merges them anyway)",
			  name(na, sizeof(na), pa), name(nb, sizeof(nb), pb), job(ja, sizeof(ja), pa),
			  job(jb, sizeof(jb), pb));
		an_merge_free(m);
		return 2;
	}
	if (!force && an_merge_duplicate(m, &a, &b)) {
		cli_error("%s and %s both hold rank %d: files of two runs? Give one run's files (--force merges them "
			  "anyway)",
			  an_merge_part(m, a)->path, an_merge_part(m, b)->path, an_merge_part(m, a)->rank);
		an_merge_free(m);
		return 2;
	}
	*out = m;
	return 0;
}

static int merge_run(int argc, char **argv, int optind, int force, int say, struct an_opts *ao,
		     struct an_merge **out)
{
	*out = NULL;
	struct an_merge *m = NULL;
	int err = cli_merge_open(argc, argv, optind, force, &m);
	if (err)
		return err;
	size_t a, b;
	char na[4200], nb[4200];
	ao->progress = cli_progress;
	ao->progress_arg = progress_what;
	ao->jobs = cli_jobs();
	an_merge_set_jobs(m, ao->jobs);
	err = an_merge_run(m, ao, on_part, NULL);
	cli_progress_end();
	if (err == -ENODATA && an_merge_nparts(m) == 1) { /* (one file: as the commands say it) */
		cli_data_error(an_merge_part(m, 0)->err, an_merge_part(m, 0)->path, argc > optind,
			       "memprism record -- PROGRAM");
		an_merge_free(m);
		return 1;
	}
	if (err == -ENODATA) {
		for (size_t i = 0; i < an_merge_nparts(m); i++)
			cli_error("cannot read %s: %s", name(na, sizeof(na), an_merge_part(m, i)),
				  mp_strerror(an_merge_part(m, i)->err));
		cli_error("none of the %zu data files could be read", an_merge_nparts(m));
		an_merge_free(m);
		return 1;
	}
	if (err == -EXDEV && an_merge_numa_conflict(m, &a, &b)) {
		cli_error("%s and %s were placed on different NUMA machines (or one measured, one modelled): their "
			  "figures do not add up; give --numa NODESxCPUS to place every process on the same machine",
			  name(na, sizeof(na), an_merge_part(m, a)), name(nb, sizeof(nb), an_merge_part(m, b)));
		an_merge_free(m);
		return 2;
	}
	if (err) {
		cli_error("cannot merge the data files: %s", mp_strerror(err));
		an_merge_free(m);
		return 1;
	}
	*out = m;
	if (!say)
		return 0;
	/* what is missing, on stderr whatever the format: the report goes on */
	for (size_t i = 0; i < an_merge_nparts(m); i++) {
		const struct an_merge_part *p = an_merge_part(m, i);
		if (p->err)
			cli_error("warning: %s was not read: %s; the report goes on without it", name(na, sizeof(na), p),
				  mp_strerror(p->err));
		else if (p->damaged)
			cli_error("warning: %s is damaged or truncated; the report covers what could be read of it (its "
				  "warnings say what was not)",
				  name(na, sizeof(na), p));
	}
	const struct an_result *r = an_merge_result(m);
	for (size_t i = 0; i < r->nwarnings; i++)
		if (strncmp(r->warnings[i], "rank ", 5) == 0 && strstr(r->warnings[i], ": no readable data file"))
			cli_error("warning: %s", r->warnings[i]);
	return 0;
}

void cli_merge_say_missing(const struct an_merge *m)
{
	int size = 0;
	for (size_t i = 0; i < an_merge_nparts(m); i++)
		if (an_merge_part(m, i)->rank_size > size)
			size = an_merge_part(m, i)->rank_size;
	for (int rk = 0; rk < size; rk++) {
		size_t i = 0;
		while (i < an_merge_nparts(m) && an_merge_part(m, i)->rank != rk)
			i++;
		if (i == an_merge_nparts(m))
			cli_error("warning: rank %d of %d: no readable data file (its figures are missing)", rk, size);
	}
}

int cli_merge_run(int argc, char **argv, int optind, int force, struct an_opts *ao, struct an_merge **out)
{
	return merge_run(argc, argv, optind, force, 1, ao, out);
}

int cli_merge_again(int argc, char **argv, int optind, struct an_opts *ao, struct an_merge **out)
{
	return merge_run(argc, argv, optind, 1, 0, ao, out);
}
