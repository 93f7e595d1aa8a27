/* SPDX-License-Identifier: MIT */
/*
 * What this machine can measure: a probe of the perf_event interface, the
 * PMUs the kernel exposes, privileges, paging and NUMA facts, and a compiler
 * for `memprism cc`. `memprism doctor` prints it; `memprism record` asks it
 * before starting a program so that an impossible source fails early, with
 * the same words. Library code: fills structs and caller buffers, prints
 * nothing.
 */
#ifndef MP_PROBE_H
#define MP_PROBE_H

#include <stddef.h>

enum mp_source { MP_SOURCE_INST, MP_SOURCE_PMU, MP_SOURCE_FAULTS, MP_SOURCE_VALGRIND, MP_SOURCE_COUNT };

/* "inst", "pmu", "faults", "valgrind"; -1 for anything else. */
int mp_source_parse(const char *name);
const char *mp_source_name(enum mp_source s);

/* The hardware-sampling PMUs memprism knows, by their sysfs names. */
enum mp_probe_pmu_id {
	MP_PMU_CPU, /* Intel/AMD core PMU (PEBS events live here on Intel) */
	MP_PMU_CPU_CORE, /* Intel hybrid: performance cores */
	MP_PMU_CPU_ATOM, /* Intel hybrid: efficiency cores */
	MP_PMU_IBS_OP, /* AMD Instruction-Based Sampling, op side */
	MP_PMU_ARM_SPE, /* Arm Statistical Profiling Extension */
	MP_PMU_COUNT
};

struct mp_probe_pmu {
	const char *name; /* sysfs directory name under /sys/bus/event_source/devices */
	int present;
	int type; /* perf_event_attr.type from its `type` file, -1 if unreadable */
	char caps[256]; /* caps/ file names and values, "name=value ...", or "" */
	char format[512]; /* format/ entries, "name:bits ...", or "" */
	int mem_events; /* Intel: events/mem-loads (or mem-stores) describes PEBS memory sampling */
};

/* record --source valgrind (vg_launch.c): Valgrind and memprism's tool. */
struct mp_vg_probe {
	char valgrind[4096]; /* the valgrind command on PATH, "" if none */
	char version[64]; /* what it says with --version ("valgrind-3.19.0"), "" if nothing */
	char tooldir[4096]; /* the directory of memprism's tool (VALGRIND_LIB), "" if missing */
	char built_for[32]; /* the Valgrind the tool was built against, "" if memprism was built without it */
};
void mp_vg_probe(struct mp_vg_probe *v);
/* The valgrind source's verdict, as mp_probe_source gives it. */
int mp_vg_verdict(const struct mp_vg_probe *v, char *why, size_t why_len, char *next, size_t next_len);
/* Runs /bin/true under the tool (the doctor's proof that it runs): 0, or
 * -ECHILD with what Valgrind said in out, or another -errno. */
int mp_vg_trial(const struct mp_vg_probe *v, char *out, size_t len);
/* The launcher's command: valgrind, its options, prog (the program's
 * path) and argv[1..]; ring (or NULL): the path of the ring the tool
 * hands its chunks over in (vg_ring.h). One malloc'd block (free the
 * vector only), NULL + errno. */
char **mp_vg_argv(const struct mp_vg_probe *v, const char *prog, char *const *argv, const char *ring);

struct mp_probe {
	/* perf_event_open of PERF_TYPE_HARDWARE cycles on ourselves: 0 or errno */
	int hw_errno;
	/* software page-fault sampling the way `--source faults` does it (one
	 * event per CPU, inherit, mmap'd ring): 0 or errno */
	int sw_errno;
	const char *sw_step; /* which step failed: "perf_event_open" or "mmap" */
	/* the inst source's CPU-time sampling the way record does it
	 * (cpu-clock, user mode, per CPU, inherit, mmap'd ring): 0 or errno */
	int cpu_errno;
	const char *cpu_step;
	struct mp_probe_pmu pmus[MP_PMU_COUNT];
	/* virtualization */
	int hv_cpuid; /* CPUID.1:ECX bit 31 (x86), -1 elsewhere */
	char hv_vendor[16]; /* CPUID leaf 0x40000000 signature, e.g. "KVMKVMKVM" */
	int hv_cpuinfo; /* "hypervisor" among /proc/cpuinfo flags */
	char hv_sysfs[32]; /* /sys/hypervisor/type, "" if absent */
	/* privileges */
	int paranoid; /* /proc/sys/kernel/perf_event_paranoid, -100 if unreadable */
	int root; /* effective uid 0 */
	int cap_perfmon, cap_sys_admin; /* in the effective capability set */
	/* our own /proc/self/pagemap entry for a touched page: 1 PFN shown,
	 * 0 PFN hidden (zero: not privileged), or -errno */
	int pagemap_pfn;
	char thp[32]; /* transparent_hugepage/enabled choice: always, madvise, never, or "" */
	int numa_nodes; /* node directories in /sys/devices/system/node, 0 unknown */
	char machine[32]; /* uname machine: x86_64, aarch64, ... */
	int ncpus; /* configured CPUs */
	char cc[256]; /* clang used by `memprism cc`, or "" */
	int cc_major; /* its major version, 0 unknown */
	struct mp_vg_probe vg; /* record --source valgrind */
};

/* Runs every probe; never fails (what cannot be learned is marked so). */
void mp_probe_run(struct mp_probe *p);
/* Only the probes source's verdict (mp_probe_source) and recording need:
 * record starts sooner (`clang --version` alone takes 25 ms, and the
 * valgrind source needs nothing but the valgrind probe). MP_SOURCE_COUNT:
 * all of them, as mp_probe_run. */
void mp_probe_for(struct mp_probe *p, enum mp_source source);

/* Which PMU sampling flavour the probe found: "Intel PEBS", "AMD IBS",
 * "Arm SPE", or NULL when none can work. */
const char *mp_probe_pmu_flavour(const struct mp_probe *p);

/*
 * Arm SPE on its own (the pmu verdict names only the flavour that works):
 * 1 present, 0 absent; why gets one line: the PMU and its type, or why it
 * is absent on this machine (an x86 machine has none; an Arm one lacks the
 * CPU feature, the driver or the firmware description).
 */
int mp_probe_spe(const struct mp_probe *p, char *why, size_t why_len);

/*
 * The verdict on one source: 1 works, 0 does not. why and next get one
 * line each (no newline): the reason, and what the user can do next.
 * Both doctor and record print these, so the words are the same.
 */
int mp_probe_source(const struct mp_probe *p, enum mp_source s, char *why, size_t why_len, char *next,
		    size_t next_len);

/* "ENOENT" for 2 and so on (the errno names the kernel's docs use), or
 * "errno N". */
const char *mp_errno_name(int e);

#endif
