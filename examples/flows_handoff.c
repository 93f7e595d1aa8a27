// SPDX-License-Identifier: MIT
/*
 * Example of the flow API (include/memprism/flows.h), after MemProf's
 * Figure 3 script: for every object, the average time between an
 * access by one thread and the next access by a different thread, from its
 * Object Event Flow. Short times mean threads share the object closely;
 * with a NUMA topology, hand-overs between nodes are counted apart.
 *
 *   flows_handoff [--numa NODESxCPUS] [FILE]      (FILE: memprism.data)
 */
#include <memprism/flows.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct mp_flows_opts o = { 0 };
	const char *path = "memprism.data";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--numa") && i + 1 < argc)
			o.numa = argv[++i];
		else
			path = argv[i];
	}
	struct mp_flows *f;
	int err = mp_flows_open(path, &o, &f);
	if (err) {
		fprintf(stderr, "flows_handoff: %s: %s\n", path, mp_flows_strerror(err));
		return 1;
	}
	printf("%12s %12s %16s  %s\n", "hand-overs", "cross-node", "avg gap (ns)", "object");
	for (size_t i = 0; i < mp_flows_object_count(f); i++) {
		struct mp_flow_iter it;
		const struct mp_flow_event *e, *prev = NULL;
		unsigned long long handoffs = 0, cross = 0;
		double gaps = 0;
		mp_flows_object_flow(f, i, &it);
		while ((e = mp_flow_next(&it))) {
			if (prev && prev->thread != e->thread) {
				handoffs++;
				cross += e->from_node != prev->from_node;
				gaps += e->first_time >= prev->last_time ? (double)(e->first_time - prev->last_time)
									 : 0;
			}
			prev = e;
		}
		if (handoffs)
			printf("%12llu %12llu %16.0f  %s\n", handoffs, cross, gaps / (double)handoffs,
			       mp_flows_object(f, i)->label);
	}
	if (mp_flows_truncated(f))
		fprintf(stderr, "flows_handoff: flows truncated (raise max_events)\n");
	mp_flows_close(f);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
