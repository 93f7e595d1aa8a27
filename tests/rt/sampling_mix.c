/* test_sampling_mix: footprints that fool an estimate from bursts.
 *   phases BIG SMALL PB PS  a BIG KiB array read and written a line at a
 *                           time PB passes, then a SMALL KiB one PS passes
 *   mtscan T KIB PASSES     the main thread writes a KIB KiB array, then T
 *                           threads each read and write their share of it
 *   prodcons KIB ITEMS      a producer writes 64-byte items into a ring of
 *                           KIB KiB, a consumer reads them
 *   filemap KIB PASSES      a KIB KiB file, mapped shared, read a line at a
 *                           time PASSES times
 *   libc [MIB]              qsort over MIB MiB of ints (default 16), memcpy
 *                           of 2 MIB MiB four times, strlen of MIB / 2 MiB
 *                           four times: the traffic is in libc's ranges,
 *                           each one access; the comparisons' loads are
 *                           the rest */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long sink;

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void scan(size_t kib, int passes)
{
	size_t n = kib << 10;
	volatile char *a = malloc(n);
	if (!a)
		exit(1);
	long s = 0;
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < n; i += 64) {
			s += a[i];
			a[i] = (char)p;
		}
	sink += s;
	free((void *)a);
}

struct part {
	volatile char *a;
	size_t lo, hi;
	int passes;
};

static void *scan_part(void *v)
{
	struct part *t = v;
	long s = 0;
	for (int p = 0; p < t->passes; p++)
		for (size_t i = t->lo; i < t->hi; i += 64) {
			s += t->a[i];
			t->a[i] = (char)p;
		}
	__atomic_fetch_add(&sink, s, __ATOMIC_RELAXED);
	return NULL;
}

struct ring {
	volatile unsigned long *buf;
	size_t n;
	volatile size_t head, tail;
	long items;
};

static void *produce(void *v)
{
	struct ring *r = v;
	for (long k = 0; k < r->items; k++) {
		while (r->head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >= r->n)
			;
		for (int w = 0; w < 8; w++)
			r->buf[(r->head % r->n) * 8 + w] = (unsigned long)(k + w);
		__atomic_fetch_add(&r->head, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *consume(void *v)
{
	struct ring *r = v;
	long s = 0;
	for (long k = 0; k < r->items; k++) {
		while (r->tail == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
			;
		for (int w = 0; w < 8; w++)
			s += (long)r->buf[(r->tail % r->n) * 8 + w];
		__atomic_fetch_add(&r->tail, 1, __ATOMIC_RELEASE);
	}
	__atomic_fetch_add(&sink, s, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "phases")) {
		scan((size_t)atol(argv[2]), atoi(argv[4]));
		scan((size_t)atol(argv[3]), atoi(argv[5]));
	} else if (argc == 5 && !strcmp(argv[1], "mtscan")) {
		int nt = atoi(argv[2]);
		size_t n = (size_t)atol(argv[3]) << 10;
		volatile char *a = malloc(n);
		if (!a || nt < 1 || nt > 16)
			return 1;
		for (size_t i = 0; i < n; i += 64)
			a[i] = 1;
		pthread_t th[16];
		struct part pt[16];
		for (int i = 0; i < nt; i++) {
			pt[i] = (struct part){ a, n / (size_t)nt * (size_t)i, n / (size_t)nt * (size_t)(i + 1),
					       atoi(argv[4]) };
			pthread_create(&th[i], NULL, scan_part, &pt[i]);
		}
		for (int i = 0; i < nt; i++)
			pthread_join(th[i], NULL);
	} else if (argc == 4 && !strcmp(argv[1], "prodcons")) {
		struct ring r = { .n = ((size_t)atol(argv[2]) << 10) / 64, .items = atol(argv[3]) };
		r.buf = malloc(r.n * 64);
		if (!r.buf || !r.n)
			return 1;
		pthread_t a, b;
		pthread_create(&a, NULL, produce, &r);
		pthread_create(&b, NULL, consume, &r);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
	} else if (argc == 4 && !strcmp(argv[1], "filemap")) {
		size_t n = (size_t)atol(argv[2]) << 10;
		char path[] = "/tmp/sampling_mix-XXXXXX";
		int fd = mkstemp(path);
		if (fd < 0 || ftruncate(fd, (off_t)n))
			return 1;
		unlink(path);
		volatile char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return 1;
		long s = 0;
		for (int p = 0; p < atoi(argv[3]); p++)
			for (size_t i = 0; i < n; i += 64)
				s += m[i];
		sink += s;
	} else if ((argc == 2 || argc == 3) && !strcmp(argv[1], "libc")) {
		size_t mib = argc == 3 ? (size_t)atol(argv[2]) : 16;
		size_t n = mib << 18, big = mib << 21, slen = mib << 19;
		int *v = malloc(n * sizeof(int));
		char *src = malloc(big), *dst = malloc(big), *str = malloc(slen);
		if (!mib || !v || !src || !dst || !str)
			return 1;
		unsigned long x = 99;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v[i] = (int)x;
		}
		qsort(v, n, sizeof(int), by_int);
		memset(src, 1, big);
		for (int k = 0; k < 4; k++) {
			memcpy(dst, src, big);
			src[k] = 2;
		}
		memset(str, 'a', slen - 1);
		str[slen - 1] = 0;
		for (int k = 0; k < 4; k++)
			sink += (long)strlen(str + k);
		sink += v[n / 2] + dst[100];
	} else {
		fprintf(stderr, "usage: sampling_mix phases BIG SMALL PB PS | mtscan T KIB PASSES | prodcons KIB ITEMS |\n"
				"       filemap KIB PASSES | libc [MIB]\n");
		return 2;
	}
	printf("%ld\n", sink);
	return 0;
}
