// SPDX-License-Identifier: MIT
/*
 * Example of the flow API (include/memprism/flows.h): read-mostly objects
 * shared by many threads (MemProf's candidates for replication), from each
 * object's flow: the distinct threads and nodes that used it after the
 * thread that allocated it, and the share of writes among their accesses.
 *
 *   flows_shared [--numa NODESxCPUS] [FILE] [MIN_THREADS]   (default 2)
 */
#include <memprism/flows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct mp_flows_opts o = { 0 };
	const char *path = "memprism.data";
	unsigned long min_threads = 2;
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--numa") && i + 1 < argc)
			o.numa = argv[++i];
		else if (npos++ == 0)
			path = argv[i];
		else
			min_threads = strtoul(argv[i], NULL, 10);
	}
	struct mp_flows *f;
	int err = mp_flows_open(path, &o, &f);
	if (err) {
		fprintf(stderr, "flows_shared: %s: %s\n", path, mp_flows_strerror(err));
		return 1;
	}
	size_t nthreads = mp_flows_thread_count(f);
	unsigned char *seen = calloc(nthreads ? nthreads : 1, 1);
	if (!seen)
		return 1;
	printf("%8s %6s %14s %8s  %s\n", "threads", "nodes", "accesses", "writes", "object");
	for (size_t i = 0; i < mp_flows_object_count(f); i++) {
		const struct mp_flow_object *obj = mp_flows_object(f, i);
		struct mp_flow_iter it;
		const struct mp_flow_event *e;
		unsigned long threads = 0;
		unsigned long long acc = 0, wr = 0, nodes = 0;
		memset(seen, 0, nthreads);
		mp_flows_object_flow(f, i, &it);
		while ((e = mp_flow_next(&it))) {
			if ((int64_t)e->thread == obj->alloc_thread)
				continue; /* making it is not sharing it */
			if (!seen[e->thread]) {
				seen[e->thread] = 1;
				threads++;
			}
			if (e->from_node >= 0 && e->from_node < 64)
				nodes |= 1ull << e->from_node;
			acc += e->count;
			wr += e->write ? e->count : 0;
		}
		if (threads >= min_threads && acc && wr * 20 <= acc)
			printf("%8lu %6d %14llu %7.1f%%  %s\n", threads, nodes ? __builtin_popcountll(nodes) : 0, acc,
			       100.0 * (double)wr / (double)acc, obj->label);
	}
	free(seen);
	mp_flows_close(f);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
