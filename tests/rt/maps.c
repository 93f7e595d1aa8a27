// SPDX-License-Identifier: MIT
/*
 * Mapped memory with sites. Usage: maps DIR. Inside region "work", through
 * volatile pointers:
 *  - two temporary files, DIR/arr-XXXXXX and DIR/idx-XXXXXX (mkstemp),
 *    deleted at once and grown to 1 MiB, each mapped shared at a site of
 *    its own: @F1 gets 256 stores (one a page), @F2 128 loads;
 *  - two anonymous private mappings of 1 MiB: @A1 gets 100 stores, then
 *    grows to 2 MiB by mremap (it may move) and gets 10 stores past its
 *    old end, on the same row; @A2 gets 50 stores;
 *  - a System V shared memory segment (IPC_PRIVATE, 64 KiB) attached at
 *    @SHM gets 16 stores, then is detached and removed.
 * The files' names differ in every run; their rows, "file SITE
 * DIR/arr-XXXXXX (deleted)", do not.
 */
#define _GNU_SOURCE
#include <memprism.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#define SIZE (1u << 20)

static int temp_file(const char *dir, const char *stem)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s-XXXXXX", dir, stem);
	int fd = mkstemp(path);
	if (fd < 0 || unlink(path) != 0 || ftruncate(fd, SIZE) != 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: maps DIR\n");
		return 2;
	}
	int fa = temp_file(argv[1], "arr"), fi = temp_file(argv[1], "idx");
	long sum = 0;
	memprism_region_begin("work");
	volatile char *f1 = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fa, 0); /* @F1 */
	volatile char *f2 = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fi, 0); /* @F2 */
	volatile long *a1 = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* @A1 */
	volatile long *a2 = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* @A2 */
	if (f1 == MAP_FAILED || f2 == MAP_FAILED || a1 == MAP_FAILED || a2 == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (unsigned off = 0; off < SIZE; off += 4096)
		f1[off] = 1;
	for (unsigned off = 0; off < SIZE; off += 8192)
		sum += f2[off];
	for (int i = 0; i < 100; i++)
		a1[i * 64] = i;
	a1 = mremap((void *)a1, SIZE, 2 * SIZE, MREMAP_MAYMOVE);
	if (a1 == MAP_FAILED) {
		perror("mremap");
		return 1;
	}
	for (int i = 0; i < 10; i++)
		a1[SIZE / 8 + i * 64] = i;
	for (int i = 0; i < 50; i++)
		a2[i * 64] = i;
	int id = shmget(IPC_PRIVATE, 64 << 10, IPC_CREAT | 0600);
	volatile int *shm = id < 0 ? (void *)-1 : shmat(id, NULL, 0); /* @SHM */
	if (shm == (void *)-1) {
		perror("shm");
		return 1;
	}
	for (int i = 0; i < 16; i++)
		shm[i * 1024] = i;
	shmdt((void *)shm);
	shmctl(id, IPC_RMID, NULL);
	munmap((void *)f1, SIZE);
	munmap((void *)f2, SIZE);
	munmap((void *)a1, 2 * SIZE);
	munmap((void *)a2, SIZE);
	memprism_region_end("work");
	printf("checksum %ld\n", sum);
	return 0;
}
