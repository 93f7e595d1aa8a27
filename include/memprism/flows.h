/* SPDX-License-Identifier: MIT */
/*
 * memprism's flow API: the Thread Event Flows and Object Event Flows of a
 * recording (MemProf, section 3.2), for writing your own questions
 * in C. mp_flows_open analyses a memprism.data file (attributing every access
 * to its object and, with a NUMA topology, placing threads and pages) and
 * keeps the accesses as flow events; then iterate the threads, the objects,
 * and each one's flow in time order.
 *
 * A flow event is a run of consecutive accesses by one thread to one object
 * with the same direction and nodes, in replay order (docs/attribution.md):
 * a loop over an array is one event with a count, not a million. Times are
 * CLOCK_MONOTONIC ns of the thread's latest recorded event or chunk stamp
 * (coarse: docs/numa.md).
 *
 * Installed, link with `pkg-config --cflags --libs memprism-flows`
 * (libmemprism-flows.so); in the build tree, link the CMake target
 * memprism-flows (as examples/CMakeLists.txt does).
 * Functions return 0 or a negative errno-style code (mp_flows_strerror);
 * nothing prints.
 */
#ifndef MEMPRISM_FLOWS_H
#define MEMPRISM_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MP_FLOWS_API __attribute__((visibility("default")))

struct mp_flows; /* opaque: mp_flows_open / mp_flows_close */

struct mp_flows_opts {
	const char *numa; /* "4x8": simulate that machine; NULL: the one the trace recorded, if any */
	const char *roi; /* keep only accesses while this region was open; NULL: all */
	size_t max_events; /* flow events kept (0: 4,194,304); later accesses only count */
};

struct mp_flow_thread {
	uint32_t pid, tid;
	const char *name;
	int node; /* NUMA node it was placed on; -1 without a topology */
	int pinned; /* placed by an affinity call */
	uint64_t accesses, remote;
};

struct mp_flow_object {
	const char *label; /* as `memprism report` prints it */
	const char *kind; /* heap, static, stack, mmap, ... */
	const char *site; /* allocation site "function (file:line)", or the label */
	uint64_t bytes; /* allocated over all instances */
	uint64_t max_size, instances;
	int64_t alloc_thread; /* thread index that allocated the first instance, -1 unknown */
	int home; /* NUMA node of its first placed page; -1 none */
	uint64_t accesses, remote, writes;
};

struct mp_flow_event {
	uint64_t first_time, last_time; /* ns */
	uint64_t epoch; /* replay epoch of the first access */
	uint32_t thread; /* mp_flows_thread index */
	uint32_t object; /* mp_flows_object index */
	int from_node, to_node; /* the thread's node, the page's node; -1 without a topology */
	int write;
	uint64_t count; /* accesses in the run */
	uint64_t lo, hi; /* lowest address touched, highest + 1 */
	uint64_t ip; /* code address of the first access */
};

/* Iterates one flow: fill with mp_flows_thread_flow/object_flow, then call
 * mp_flow_next until it returns NULL. */
struct mp_flow_iter {
	const struct mp_flows *flows;
	const uint32_t *index;
	size_t n, next;
};

/* Analyses the data file at path. 0 and *out (close with mp_flows_close),
 * or a negative error: -ENOENT, -ENOMEM, a bad opts->numa (-EINVAL), or the
 * file's (see mp_flows_strerror). */
MP_FLOWS_API int mp_flows_open(const char *path, const struct mp_flows_opts *opts, struct mp_flows **out);
/* Frees everything; accepts NULL. */
MP_FLOWS_API void mp_flows_close(struct mp_flows *f);
/* A message for an error code of this API. */
MP_FLOWS_API const char *mp_flows_strerror(int err);

/* 1 when more accesses were made than opts->max_events events could keep. */
MP_FLOWS_API int mp_flows_truncated(const struct mp_flows *f);
/* NUMA nodes of the topology used, 0 without one. */
MP_FLOWS_API unsigned mp_flows_nodes(const struct mp_flows *f);

MP_FLOWS_API size_t mp_flows_thread_count(const struct mp_flows *f);
MP_FLOWS_API const struct mp_flow_thread *mp_flows_thread(const struct mp_flows *f, size_t i);
MP_FLOWS_API size_t mp_flows_object_count(const struct mp_flows *f);
MP_FLOWS_API const struct mp_flow_object *mp_flows_object(const struct mp_flows *f, size_t i);

/* The Thread Event Flow of thread i / the Object Event Flow of object i,
 * in replay order. An index out of range gives an empty flow. */
MP_FLOWS_API void mp_flows_thread_flow(const struct mp_flows *f, size_t i, struct mp_flow_iter *it);
MP_FLOWS_API void mp_flows_object_flow(const struct mp_flows *f, size_t i, struct mp_flow_iter *it);
/* The next event of the flow, NULL at its end. */
MP_FLOWS_API const struct mp_flow_event *mp_flow_next(struct mp_flow_iter *it);

#ifdef __cplusplus
}
#endif

#endif
