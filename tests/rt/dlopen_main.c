// SPDX-License-Identifier: MIT
/*
 * dlopen: statics of an image loaded at run time become objects. dlopens the
 * library named by argv[1] (tests/rt/dlopen_lib.c) with RTLD_NOW, and inside
 * region "work" calls lib_touch(N) and lib_sum():
 *   lib_table: N stores, 512 loads
 * The library stays loaded (no dlclose). Prints "checksum SUM".
 * With a second argument "reload": then dlclose, dlopen again and, inside
 * region "work" once more, lib_touch(M): lib_table gets N + M stores over
 * its two lifetimes, and the unload shows in the trace.
 */
#include <dlfcn.h>
#include <memprism.h>
#include <stdio.h>

#define N 1500
#define M 250

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
	if (argc > 2 && argv[2][0] == 'r') {
		dlclose(h);
		h = dlopen(argv[1], RTLD_NOW);
		touch = h ? (void (*)(int))dlsym(h, "lib_touch") : NULL;
		if (!touch) {
			fprintf(stderr, "reload: %s\n", dlerror());
			return 1;
		}
		memprism_region_begin("work");
		touch(M);
		memprism_region_end("work");
	}
	printf("checksum %ld\n", s);
	return 0;
}
