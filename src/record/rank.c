// SPDX-License-Identifier: MIT
/* Ranks of a parallel job and the data file's name pattern (rank.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/rank.h"

/* The launchers' rank and size variables, in the order they are trusted:
 * Open MPI also sets PMIX_RANK, an srun-started MPICH job PMI_RANK and
 * SLURM_PROCID (equal). */
static const struct {
	const char *rank, *size;
} vars[] = {
	{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
	{ "PMI_RANK", "PMI_SIZE" },
	{ "PMIX_RANK", NULL },
	{ "SLURM_PROCID", "SLURM_NTASKS" },
};

/* 0..INT_MAX from a decimal string, else -1. */
static long parse_count(const char *s)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno || v > INT_MAX)
		return -1;
	return v;
}

int mp_rank_detect(struct mp_rank *out)
{
	*out = (struct mp_rank){ .rank = -1 };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i].rank);
		if (!v)
			continue;
		out->var = vars[i].rank;
		long r = parse_count(v);
		if (r < 0)
			return -EINVAL;
		out->rank = (int)r;
		long n = vars[i].size ? parse_count(getenv(vars[i].size)) : -1;
		out->size = n > 0 ? (int)n : 0;
		const char *ns = getenv("PMIX_NAMESPACE"), *jobid = getenv("OMPI_MCA_ess_base_jobid");
		const char *sj = getenv("SLURM_JOB_ID"), *ss = getenv("SLURM_STEP_ID");
		if (ns && *ns)
			snprintf(out->job, sizeof(out->job), "%s", ns);
		else if (jobid && *jobid)
			snprintf(out->job, sizeof(out->job), "%s", jobid);
		else if (sj && *sj)
			snprintf(out->job, sizeof(out->job), "%s.%s", sj, ss ? ss : "");
		return 0;
	}
	return 0;
}

int mp_output_expand(const char *pattern, const struct mp_rank *rk, char *out, size_t cap)
{
	size_t n = 0;
	int have_rank = 0;
	char host[256];
#define PUT(...)                                                                                                     \
	do {                                                                                                         \
		int w_ = snprintf(out + n, cap - n, __VA_ARGS__);                                                    \
		if (w_ < 0 || (size_t)w_ >= cap - n)                                                                 \
			return -ENAMETOOLONG;                                                                        \
		n += (size_t)w_;                                                                                     \
	} while (0)
	if (!cap)
		return -ENAMETOOLONG;
	out[0] = 0;
	for (const char *p = pattern; *p; p++) {
		if (*p != '%') {
			PUT("%c", *p);
			continue;
		}
		switch (*++p) {
		case '%':
			PUT("%%");
			break;
		case 'r':
			if (rk->rank < 0)
				return -EINVAL;
			PUT("%d", rk->rank);
			have_rank = 1;
			break;
		case 'p':
			PUT("%ld", (long)getpid());
			break;
		case 'h':
			if (gethostname(host, sizeof(host)) != 0)
				snprintf(host, sizeof(host), "localhost");
			host[sizeof(host) - 1] = 0;
			PUT("%s", host);
			break;
		default: /* (a trailing % too) */
			return -EINVAL;
		}
	}
	if (rk->rank >= 0 && !have_rank)
		PUT(".rank%d", rk->rank);
#undef PUT
	return 0;
}
