// SPDX-License-Identifier: MIT
/*
 * Mappings as objects. Usage: mmap_file PATH
 *  - PATH is created as a 1 MiB file (ftruncate: no access recorded), mapped
 *    read-only (@FILE), and one byte of each 4096-byte page is read: 256
 *    loads on the row "file main (mmap_file.c:<line of @FILE>) <absolute
 *    PATH>".
 *  - a 1 MiB anonymous private mapping (line marked @ANON) is written every
 *    64 bytes (16384 8-byte stores), then read every 4096 bytes (256 loads):
 *    row "mmap main (mmap_file.c:<line of @ANON>)".
 *  - after both are unmapped, a second 1 MiB anonymous mapping (@ANON2) gets
 *    100 stores. The kernel often hands out an address just freed (the
 *    program prints which): the stores still belong to the @ANON2 row only.
 * All accesses go through volatile pointers: one source access, one recorded
 * access.
 */
#include <fcntl.h>
#include <memprism.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE (1u << 20)

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mmap_file PATH\n");
		return 2;
	}
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, SIZE) != 0) {
		perror(argv[1]);
		return 1;
	}
	memprism_region_begin("work");
	const volatile char *f = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0); /* @FILE */
	volatile long *a = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* @ANON */
	if (f == MAP_FAILED || a == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	long sum = 0;
	for (unsigned off = 0; off < SIZE; off += 4096)
		sum += f[off];
	for (unsigned i = 0; i < SIZE / 8; i += 8)
		a[i] = i;
	for (unsigned i = 0; i < SIZE / 8; i += 512)
		sum += a[i];
	munmap((void *)f, SIZE);
	munmap((void *)a, SIZE);
	volatile long *b = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* @ANON2 */
	if (b == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (unsigned i = 0; i < 100; i++)
		b[i * 16] = i;
	munmap((void *)b, SIZE);
	memprism_region_end("work");
	close(fd);
	const void *vb = (const void *)b;
	printf("anon2 %s\n", vb == (const void *)a   ? "reuses the @ANON address"
			     : vb == (const void *)f ? "reuses the file mapping's address"
						     : "got a new address");
	printf("checksum %ld\n", sum);
	return 0;
}
