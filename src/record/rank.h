/* SPDX-License-Identifier: MIT */
/*
 * Ranks: which process of a parallel job this is, from the variables the
 * cluster's own launcher sets (Open MPI's mpirun, MPICH's and Intel MPI's
 * Hydra through PMI, Slurm's srun), and the data file's name with the rank
 * in it. memprism has no launcher of its own: every rank runs its own
 * `memprism record`, and each writes its own file.
 */
#ifndef MP_RANK_H
#define MP_RANK_H

#include <stddef.h>

struct mp_rank {
	int rank; /* -1: not started by a parallel launcher */
	int size; /* processes in the job, 0 unknown */
	const char *var; /* the variable the rank came from, NULL with none */
	/* the job (launch) the rank belongs to, so that files of two runs are
	 * not taken for one: PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid, or
	 * SLURM_JOB_ID.SLURM_STEP_ID; "" when the launcher names none */
	char job[128];
};

/*
 * Reads the launcher's rank variables, first found wins:
 * OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH, Intel MPI), PMIX_RANK
 * (PMIx launchers), SLURM_PROCID (srun). 0 and *out filled (rank -1 when
 * none is set), or -EINVAL when one is set but is not a number from 0 to
 * 2^31 - 1 (out->var names it). out->job is filled with the rank.
 */
int mp_rank_detect(struct mp_rank *out);

/*
 * The data file's name from a pattern: %r the rank, %h the host name, %p
 * the launcher's pid, %% a percent sign. Without a rank (-1) %r is an
 * error. A rank and a pattern without %r: ".rankN" is appended, so ranks
 * never write into one file. 0 and out filled, -EINVAL for another %
 * sequence or %r without a rank, -ENAMETOOLONG when out is too small.
 */
int mp_output_expand(const char *pattern, const struct mp_rank *rk, char *out, size_t cap);

#endif
