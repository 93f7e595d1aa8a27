// SPDX-License-Identifier: MIT
/*
 * The machine probe (see probe.h); the host's facts (hypervisor, pagemap,
 * huge pages, NUMA) come from src/host. Each probe asks the kernel the way the
 * real source will: the faults probe opens a sampling page-fault event per
 * CPU with inherit and maps its ring, because that is what fails on some
 * kernels (a per-task inherited event cannot be mmapped), not a bare open.
 */
#include "record/probe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/mp_env.h"
#include "host/host.h"
#include "record/record.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

static const char *const source_names[MP_SOURCE_COUNT] = { "inst", "pmu", "faults", "valgrind" };

int mp_source_parse(const char *name)
{
	for (int i = 0; i < MP_SOURCE_COUNT; i++)
		if (strcmp(name, source_names[i]) == 0)
			return i;
	return -1;
}

const char *mp_source_name(enum mp_source s)
{
	return (unsigned)s < MP_SOURCE_COUNT ? source_names[s] : "?";
}

const char *mp_errno_name(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EBUSY: return "EBUSY";
	case ENOMEM: return "ENOMEM";
	case E2BIG: return "E2BIG";
	case ESRCH: return "ESRCH";
	default: {
		static __thread char buf[24];
		snprintf(buf, sizeof(buf), "errno %d", e);
		return buf;
	}
	}
}

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void probe_hw(struct mp_probe *p)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = perf_open(&a, 0, -1);
	if (fd < 0) {
		p->hw_errno = errno;
		return;
	}
	p->hw_errno = 0;
	close((int)fd);
}

/* Opens a as the launcher does, on our own pid on CPU 0 (a CPU number is
 * what makes an inherited event mappable), and maps its ring: 0, or errno
 * and *step the call that failed. */
static int probe_ring(struct perf_event_attr *a, const char **step)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	a->inherit = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	*step = "perf_event_open";
	long fd = perf_open(a, getpid(), 0);
	if (fd < 0)
		return errno;
	int err = 0;
	size_t len = (size_t)(1 + 1) * (size_t)sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (m == MAP_FAILED) {
		*step = "mmap";
		err = errno;
	} else {
		munmap(m, len);
	}
	close((int)fd);
	return err;
}

/* The faults source's set-up, and the inst source's CPU-time sampling
 * (cpu-clock, user mode). */
static void probe_sw(struct mp_probe *p)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	p->sw_errno = probe_ring(&a, &p->sw_step);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	p->cpu_errno = probe_ring(&a, &p->cpu_step);
}

/* "name=value name=value" of a directory of one-line files. */
static void list_dir(const char *dir, char *out, size_t cap, char sep)
{
	out[0] = 0;
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t o = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && o + 1 < cap) {
		if (e->d_name[0] == '.')
			continue;
		char path[512], val[96];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (mp_host_read_line(path, val, sizeof(val)))
			val[0] = 0;
		int n = snprintf(out + o, cap - o, "%s%s%c%s", o ? " " : "", e->d_name, sep, val);
		if (n < 0 || (size_t)n >= cap - o) {
			out[o] = 0;
			break;
		}
		o += (size_t)n;
	}
	closedir(d);
}

static void probe_pmus(struct mp_probe *p)
{
	static const char *const names[MP_PMU_COUNT] = { "cpu", "cpu_core", "cpu_atom", "ibs_op", "arm_spe_0" };
	for (int i = 0; i < MP_PMU_COUNT; i++) {
		struct mp_probe_pmu *m = &p->pmus[i];
		char path[256], buf[64];
		m->name = names[i];
		m->type = -1;
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s", names[i]);
		m->present = access(path, F_OK) == 0;
		if (!m->present)
			continue;
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/type", names[i]);
		if (mp_host_read_line(path, buf, sizeof(buf)) == 0)
			m->type = atoi(buf);
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/caps", names[i]);
		list_dir(path, m->caps, sizeof(m->caps), '=');
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/format", names[i]);
		list_dir(path, m->format, sizeof(m->format), ':');
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/events/mem-loads", names[i]);
		m->mem_events = access(path, F_OK) == 0;
	}
}

static void probe_hypervisor(struct mp_probe *p)
{
	struct mp_host_hv hv;
	mp_host_hypervisor(&hv);
	p->hv_cpuid = hv.cpuid;
	memcpy(p->hv_vendor, hv.vendor, sizeof(p->hv_vendor));
	p->hv_cpuinfo = hv.cpuinfo;
	memcpy(p->hv_sysfs, hv.sysfs, sizeof(p->hv_sysfs));
}

static void probe_privileges(struct mp_probe *p)
{
	char buf[64];
	p->paranoid = -100;
	if (mp_host_read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) == 0)
		p->paranoid = atoi(buf);
	p->root = geteuid() == 0;
	FILE *f = fopen("/proc/self/status", "re");
	if (f) {
		char line[256];
		while (fgets(line, sizeof(line), f)) {
			unsigned long long caps;
			if (sscanf(line, "CapEff: %llx", &caps) == 1) {
				p->cap_sys_admin = !!(caps & (1ull << 21));
				p->cap_perfmon = !!(caps & (1ull << 38));
			}
		}
		fclose(f);
	}
}

/* The clang `memprism cc` would pick, and its major version from
 * `clang --version` ("... clang version 16.0.6 ..."). */
static void probe_cc(struct mp_probe *p)
{
	static const char *const c[] = { "clang-16", "clang-17", "clang-18", "clang-15", "clang-14", "clang" };
	const char *env = getenv(MP_ENV_CC);
	p->cc[0] = 0;
	p->cc_major = 0;
	if (env && *env) {
		if (mp_find_program(env, p->cc, sizeof(p->cc)))
			p->cc[0] = 0;
	} else {
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]) && !p->cc[0]; i++)
			if (mp_find_program(c[i], p->cc, sizeof(p->cc)))
				p->cc[0] = 0;
	}
	if (!p->cc[0])
		return;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		execl(p->cc, p->cc, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char out[512];
	size_t o = 0;
	ssize_t n;
	while (o + 1 < sizeof(out) && ((n = read(fds[0], out + o, sizeof(out) - 1 - o)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			o += (size_t)n;
	out[o] = 0;
	close(fds[0]);
	int st;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	const char *v = strstr(out, "clang version ");
	if (v)
		p->cc_major = atoi(v + 14);
}

void mp_probe_run(struct mp_probe *p)
{
	mp_probe_for(p, MP_SOURCE_COUNT);
}

void mp_probe_for(struct mp_probe *p, enum mp_source source)
{
	int all = source == MP_SOURCE_COUNT;
	memset(p, 0, sizeof(*p));
	p->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(p->machine, sizeof(p->machine), "%.31s", u.machine);
	if (all || source == MP_SOURCE_VALGRIND)
		mp_vg_probe(&p->vg);
	if (!all && source == MP_SOURCE_VALGRIND)
		return;
	probe_hw(p);
	probe_sw(p);
	probe_pmus(p);
	probe_hypervisor(p);
	probe_privileges(p);
	p->pagemap_pfn = mp_host_pagemap_pfn();
	mp_host_thp(p->thp, sizeof(p->thp));
	p->numa_nodes = mp_host_numa_nodes();
	if (all || source == MP_SOURCE_INST)
		probe_cc(p);
}

const char *mp_probe_pmu_flavour(const struct mp_probe *p)
{
	if (p->hw_errno == 0 && ((p->pmus[MP_PMU_CPU].present && p->pmus[MP_PMU_CPU].mem_events) ||
				 (p->pmus[MP_PMU_CPU_CORE].present && p->pmus[MP_PMU_CPU_CORE].mem_events)))
		return "Intel PEBS";
	if (p->pmus[MP_PMU_IBS_OP].present && p->pmus[MP_PMU_IBS_OP].type >= 0)
		return "AMD IBS";
	if (p->pmus[MP_PMU_ARM_SPE].present && p->pmus[MP_PMU_ARM_SPE].type >= 0)
		return "Arm SPE";
	return NULL;
}

int mp_probe_spe(const struct mp_probe *p, char *why, size_t why_len)
{
	const struct mp_probe_pmu *m = &p->pmus[MP_PMU_ARM_SPE];
	if (m->present && m->type >= 0) {
		snprintf(why, why_len, "%s, type %d: records through the AUX area", m->name, m->type);
		return 1;
	}
	if (strncmp(p->machine, "aarch64", 7) != 0 && strncmp(p->machine, "arm", 3) != 0)
		snprintf(why, why_len, "absent: SPE is an Arm feature and this is a%s %s machine",
			 p->machine[0] == 'x' ? "n" : "", p->machine[0] ? p->machine : "non-Arm");
	else if (m->present)
		snprintf(why, why_len, "absent: %s has no readable type", m->name);
	else
		snprintf(why, why_len, "absent: no arm_spe PMU (a CPU without FEAT_SPE, a kernel without "
				       "CONFIG_ARM_SPE_PMU, firmware that does not describe it, or a VM)");
	return 0;
}

static int in_vm(const struct mp_probe *p)
{
	return p->hv_cpuid == 1 || p->hv_cpuinfo || p->hv_sysfs[0];
}

static const char *vm_name(const struct mp_probe *p)
{
	if (p->hv_vendor[0])
		return p->hv_vendor;
	if (p->hv_sysfs[0])
		return p->hv_sysfs;
	return "unknown hypervisor";
}

/* May this user open the events of a source that needs perf_event_paranoid
 * at most `level` without a capability? Per-task events that exclude the
 * kernel need 2 or lower (paranoid 3, Debian's, forbids them), events that
 * count in the kernel too need 1; per-task events bound to a CPU (how
 * memprism opens them) need no CPU-wide permission, which would be 0. */
static int perf_allowed(const struct mp_probe *p, int level)
{
	if (p->root || p->cap_perfmon || p->cap_sys_admin)
		return 1;
	if (p->paranoid == -100)
		return 0;
	return p->paranoid <= level;
}

/* The next step when perf refused what needs paranoid `level` (what: the
 * source's reason for it), by what the setting is now. */
static void paranoid_next(const struct mp_probe *p, int level, const char *what, char *next, size_t next_len)
{
	if (p->paranoid == -100)
		snprintf(next, next_len, "perf_event_paranoid is unreadable here; %s needs it at %d or lower: sysctl "
					 "kernel.perf_event_paranoid=%d, or run as root, or setcap cap_perfmon+ep on "
					 "memprism",
			 what, level, level);
	else if (p->paranoid > level)
		snprintf(next, next_len, "perf_event_paranoid is %d; %s needs %d or lower: sysctl "
					 "kernel.perf_event_paranoid=%d, or run as root, or setcap cap_perfmon+ep on "
					 "memprism",
			 p->paranoid, what, level, level);
	else
		snprintf(next, next_len, "perf_event_paranoid is %d, which allows it: something else refuses (a "
					 "security module, a container's seccomp filter); run as root, or setcap "
					 "cap_perfmon+ep on memprism",
			 p->paranoid);
}

/* What the pmu flavour's events need: IBS cannot exclude the kernel. */
static int pmu_level(const char *flavour)
{
	return strcmp(flavour, "AMD IBS") == 0 ? 1 : 2;
}

int mp_probe_source(const struct mp_probe *p, enum mp_source s, char *why, size_t why_len, char *next,
		    size_t next_len)
{
	switch (s) {
	case MP_SOURCE_INST:
		if (!p->cc[0]) {
			snprintf(why, why_len, "no clang found for `memprism cc` (sanitizer-coverage trace-loads/stores "
					       "is a clang feature)");
			snprintf(next, next_len, "install clang (Debian: apt-get install clang-16), or set " MP_ENV_CC " "
						 "to a clang binary");
			return 0;
		}
		if (p->cc_major && p->cc_major < 14) {
			snprintf(why, why_len, "%s is clang %d; trace-loads/trace-stores need clang 14 or newer", p->cc,
				 p->cc_major);
			snprintf(next, next_len, "install a newer clang (Debian: apt-get install clang-16)");
			return 0;
		}
		snprintf(why, why_len, "%s (clang %d) instruments every load and store; no PMU or privilege needed",
			 p->cc, p->cc_major);
		snprintf(next, next_len, "memprism cc -O2 -g app.c -o app && memprism record -- ./app");
		return 1;
	case MP_SOURCE_FAULTS:
		if (p->sw_errno) {
			snprintf(why, why_len, "software page-fault sampling fails: %s returned %s (%s)", p->sw_step,
				 mp_errno_name(p->sw_errno), strerror(p->sw_errno));
			if (p->sw_errno == EACCES || p->sw_errno == EPERM)
				paranoid_next(p, 1,
					      "page-fault sampling, which counts the faults the kernel takes for the "
					      "program too,",
					      next, next_len);
			else
				snprintf(next, next_len, "a kernel with CONFIG_PERF_EVENTS is needed; meanwhile use "
							 "--source inst");
			return 0;
		}
		snprintf(why, why_len, "software page-fault events with addresses work (one per CPU, inherited); "
				       "first touch of every page");
		snprintf(next, next_len, "memprism record --source faults -- ./app (any binary)");
		return 1;
	case MP_SOURCE_PMU: {
		const char *fl = mp_probe_pmu_flavour(p);
		if (fl && !perf_allowed(p, pmu_level(fl))) {
			snprintf(why, why_len, "%s is present but perf_event_paranoid is %d and memprism has neither "
					       "root, CAP_PERFMON nor CAP_SYS_ADMIN",
				 fl, p->paranoid);
			paranoid_next(p, pmu_level(fl),
				      pmu_level(fl) == 1 ? "IBS, which cannot leave the kernel out," : "sampling the program",
				      next, next_len);
			return 0;
		}
		if (fl) {
			snprintf(why, why_len, "%s sampling available%s", fl,
				 p->root || p->cap_sys_admin ? " (with physical addresses: root)" : "");
			snprintf(next, next_len, "memprism record --source pmu -- ./app");
			return 1;
		}
		int any_cpu = p->pmus[MP_PMU_CPU].present || p->pmus[MP_PMU_CPU_CORE].present;
		char spe[256];
		mp_probe_spe(p, spe, sizeof(spe));
		if (any_cpu && p->hw_errno == 0) {
			snprintf(why, why_len, "a core PMU is present but it has no memory-sampling events (no "
					       "events/mem-loads: not PEBS-capable), there is no ibs_op, and Arm SPE is %s",
				 spe);
			snprintf(next, next_len, "use a machine with Intel PEBS, AMD IBS or Arm SPE; meanwhile use "
						 "--source faults or inst");
			return 0;
		}
		if (in_vm(p))
			snprintf(why, why_len, "no hardware PMU: perf_event_open(cycles) fails with %s and "
					       "/sys/bus/event_source/devices has no cpu, ibs_op or arm_spe_0; this is "
					       "a virtual machine (%s) that does not pass the PMU through; Arm SPE is %s",
				 p->hw_errno ? mp_errno_name(p->hw_errno) : "success", vm_name(p), spe);
		else
			snprintf(why, why_len, "no hardware PMU: perf_event_open(cycles) fails with %s and "
					       "/sys/bus/event_source/devices has no cpu, ibs_op or arm_spe_0; Arm SPE is %s",
				 p->hw_errno ? mp_errno_name(p->hw_errno) : "success", spe);
		snprintf(next, next_len, "run on bare metal or a VM with PMU passthrough (KVM: -cpu host,pmu=on; "
					 "VMware: virtualize CPU performance counters); meanwhile use --source faults "
					 "or inst");
		return 0;
	}
	case MP_SOURCE_VALGRIND:
		return mp_vg_verdict(&p->vg, why, why_len, next, next_len);
	default:
		snprintf(why, why_len, "unknown source");
		next[0] = 0;
		return 0;
	}
}
