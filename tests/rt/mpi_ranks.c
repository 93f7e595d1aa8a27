// SPDX-License-Identifier: MIT
/*
 * mpi_ranks: an MPI program whose every rank does exactly known work on
 * arrays it allocates at one site. Rank r (of any number) allocates
 * N(r) = 1000 * (r + 1) ints at @A, stores each once, then loads each
 * r + 2 times, all through a volatile pointer:
 *   @A of rank r: 1 instance of 4 * N(r) bytes, N(r) stores,
 *                 (r + 2) * N(r) loads
 * and stores r + 1 times to a static, whatever the load address (ASLR):
 *   @H (hits): r + 1 stores
 * Then an MPI_Allreduce of the ranks' sums (MPI's own memory is not
 * instrumented: it is not built by `memprism cc`). Rank 0 prints
 * "ranks SIZE sum TOTAL".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int hits[16]; /* @H */

static long work(int rank)
{
	for (int k = 0; k <= rank; k++)
		hits[k % 16] = k;
	long n = 1000L * (rank + 1);
	volatile int *a = malloc((size_t)n * sizeof(int)); /* @A */
	if (!a)
		return -1;
	for (long i = 0; i < n; i++)
		a[i] = (int)i;
	long sum = 0;
	for (int k = 0; k < rank + 2; k++)
		for (long i = 0; i < n; i++)
			sum += a[i];
	free((void *)a);
	return sum;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long mine = work(rank), total = 0;
	MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("ranks %d sum %ld\n", size, total);
	MPI_Finalize();
	return mine < 0;
}
