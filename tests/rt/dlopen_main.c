// SPDX-License-Identifier: MIT
/*
 * dlopen: statics of an image loaded at run time become objects. dlopens the
 * library named by argv[1] (tests/rt/dlopen_lib.c) with RTLD_NOW, and inside
 * region "work" calls lib_touch(N) and lib_sum():
 *   lib_table: N stores, 512 loads
 * The library stays loaded (no dlclose). Prints "checksum SUM".
 */
#include <dlfcn.h>
#include <memprism.h>
#include <stdio.h>

#define N 1500

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s LIB\n", argv[0]);
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	void (*touch)(int) = (void (*)(int))dlsym(h, "lib_touch");
	long (*sum)(void) = (long (*)(void))dlsym(h, "lib_sum");
	if (!touch || !sum) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 1;
	}
	memprism_region_begin("work");
	touch(N);
	long s = sum();
	memprism_region_end("work");
	printf("checksum %ld\n", s);
	return 0;
}
