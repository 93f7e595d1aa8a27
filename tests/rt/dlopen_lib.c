// SPDX-License-Identifier: MIT
/*
 * Shared library for tests/rt/dlopen_main.c, built with
 * `memprism cc -shared -fPIC` into libdltest.so. lib_table lives in the
 * library's .bss; every access goes through a volatile pointer, so
 * lib_touch(n) is exactly n stores and lib_sum() exactly 512 loads.
 */
static long lib_table[512];

void lib_touch(int n)
{
	volatile long *t = lib_table;
	for (int i = 0; i < n; i++)
		t[i % 512] = i;
}

long lib_sum(void)
{
	const volatile long *t = lib_table;
	long sum = 0;
	for (int i = 0; i < 512; i++)
		sum += t[i];
	return sum;
}
