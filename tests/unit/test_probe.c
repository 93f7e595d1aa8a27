// SPDX-License-Identifier: MIT
/* The machine probe against what this machine really answers: each fact is
 * re-derived here by asking the kernel directly, so the test holds on a VM
 * without a PMU (this project's CI) and on bare metal alike, and the source
 * verdicts are checked to follow from the facts. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "record/probe.h"

static int direct_hw_errno(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

static int file_int(const char *path, int dflt)
{
	FILE *f = fopen(path, "r");
	int v = dflt;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

int main(void)
{
	struct mp_probe p;
	char why[512], next[512];
	mp_probe_run(&p);

	CHECK_EQ(p.hw_errno, direct_hw_errno());
	CHECK_EQ(p.paranoid, file_int("/proc/sys/kernel/perf_event_paranoid", -100));
	CHECK_EQ(p.root, geteuid() == 0);
	CHECK_EQ(p.ncpus, sysconf(_SC_NPROCESSORS_CONF));
	static const char *const dirs[MP_PMU_COUNT] = { "cpu", "cpu_core", "cpu_atom", "ibs_op", "arm_spe_0" };
	for (int i = 0; i < MP_PMU_COUNT; i++) {
		char path[256];
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", dirs[i]);
		CHECK(strcmp(p.pmus[i].name, dirs[i]) == 0);
		CHECK_EQ(p.pmus[i].present, access(path, F_OK) == 0);
		if (p.pmus[i].present) {
			snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", dirs[i]);
			CHECK_EQ(p.pmus[i].type, file_int(path, -1));
		}
	}
	/* software events always exist on a perf-enabled kernel; root may use them */
	if (geteuid() == 0)
		CHECK_EQ(p.sw_errno, 0);
	CHECK_EQ(mp_probe_source(&p, MP_SOURCE_FAULTS, why, sizeof(why), next, sizeof(next)), p.sw_errno == 0);
	/* root sees its own PFNs in /proc/self/pagemap */
	if (geteuid() == 0)
		CHECK_EQ(p.pagemap_pfn, 1);

	int pmu_ok = mp_probe_source(&p, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next));
	CHECK_EQ(pmu_ok, mp_probe_pmu_flavour(&p) != NULL);
	int any = 0;
	for (int i = 0; i < MP_PMU_COUNT; i++)
		any |= p.pmus[i].present;
	if (!any) {
		/* No PMU at all (a VM without passthrough): no hardware event opens,
		 * with the errno the kernel gives for an unknown PMU type, and the
		 * verdict names it. */
		CHECK(p.hw_errno == ENOENT || p.hw_errno == EOPNOTSUPP || p.hw_errno == ENODEV);
		CHECK_EQ(pmu_ok, 0);
		CHECK(strstr(why, mp_errno_name(p.hw_errno)) != NULL);
		CHECK(strstr(why, "no hardware PMU") != NULL);
		CHECK(strstr(next, "--source faults") != NULL);
		if (p.hv_cpuid == 1)
			CHECK(strstr(why, "virtual machine") != NULL);
	}
	/* record probes only what its source needs: the same verdict and
	 * words as the whole probe, and nothing of the others (no clang run
	 * for the valgrind source) */
	for (int s = 0; s < MP_SOURCE_COUNT; s++) {
		struct mp_probe q;
		char why_all[512], next_all[512];
		mp_probe_for(&q, (enum mp_source)s);
		int all = mp_probe_source(&p, (enum mp_source)s, why_all, sizeof(why_all), next_all, sizeof(next_all));
		CHECK_EQ(mp_probe_source(&q, (enum mp_source)s, why, sizeof(why), next, sizeof(next)), all);
		CHECK(strcmp(why, why_all) == 0 && strcmp(next, next_all) == 0);
		CHECK_EQ(q.cc[0] != 0, s == MP_SOURCE_INST && p.cc[0] != 0);
		CHECK_EQ(q.vg.valgrind[0] != 0, s == MP_SOURCE_VALGRIND && p.vg.valgrind[0] != 0);
		CHECK_EQ(q.ncpus, p.ncpus);
	}
	CHECK(strcmp(mp_errno_name(ENOENT), "ENOENT") == 0);
	CHECK(strcmp(mp_errno_name(12345), "errno 12345") == 0);
	CHECK_EQ(mp_source_parse("pmu"), MP_SOURCE_PMU);
	CHECK_EQ(mp_source_parse("faults"), MP_SOURCE_FAULTS);
	CHECK_EQ(mp_source_parse("inst"), MP_SOURCE_INST);
	CHECK_EQ(mp_source_parse("ibs"), -1);

	/* a constructed machine: the verdicts follow the facts */
	struct mp_probe f;
	memset(&f, 0, sizeof(f));
	f.pmus[MP_PMU_IBS_OP] = (struct mp_probe_pmu){ .name = "ibs_op", .present = 1, .type = 11 };
	f.paranoid = 2;
	CHECK_EQ(mp_probe_source(&f, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next)), 0);
	CHECK(strstr(why, "perf_event_paranoid is 2") != NULL);
	f.root = 1;
	CHECK_EQ(mp_probe_source(&f, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next)), 1);
	CHECK(strstr(why, "AMD IBS") != NULL);
	/* Arm SPE on its own: why it is absent depends on the machine */
	struct utsname u;
	CHECK_EQ(uname(&u), 0);
	CHECK(strcmp(p.machine, u.machine) == 0);
	int spe_here = mp_probe_spe(&p, why, sizeof(why));
	CHECK_EQ(spe_here, p.pmus[MP_PMU_ARM_SPE].present && p.pmus[MP_PMU_ARM_SPE].type >= 0);
	if (!spe_here && strcmp(u.machine, "x86_64") == 0) {
		CHECK(strstr(why, "SPE is an Arm feature and this is an x86_64 machine") != NULL);
		CHECK_EQ(mp_probe_source(&p, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next)), 0);
		CHECK(strstr(why, "Arm SPE is absent") != NULL);
	}
	struct mp_probe a;
	memset(&a, 0, sizeof(a));
	snprintf(a.machine, sizeof(a.machine), "aarch64");
	a.pmus[MP_PMU_ARM_SPE] = (struct mp_probe_pmu){ .name = "arm_spe_0", .type = -1 };
	CHECK_EQ(mp_probe_spe(&a, why, sizeof(why)), 0);
	CHECK(strstr(why, "FEAT_SPE") != NULL && strstr(why, "CONFIG_ARM_SPE_PMU") != NULL);
	a.pmus[MP_PMU_ARM_SPE].present = 1;
	a.pmus[MP_PMU_ARM_SPE].type = 10;
	a.root = 1;
	CHECK_EQ(mp_probe_spe(&a, why, sizeof(why)), 1);
	CHECK(strstr(why, "arm_spe_0, type 10") != NULL);
	CHECK_EQ(mp_probe_source(&a, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next)), 1);
	CHECK(strstr(why, "Arm SPE sampling available") != NULL);
	f.sw_errno = EACCES;
	f.sw_step = "perf_event_open";
	CHECK_EQ(mp_probe_source(&f, MP_SOURCE_FAULTS, why, sizeof(why), next, sizeof(next)), 0);
	CHECK(strstr(why, "EACCES") != NULL);

	/* the next step names the level each source needs, never the current
	 * one: faults count kernel-side faults (1), IBS cannot exclude the
	 * kernel (1), PEBS and SPE sample the program's user code only (2) */
	struct mp_probe u2;
	memset(&u2, 0, sizeof(u2));
	u2.paranoid = 2;
	u2.sw_errno = EACCES;
	u2.sw_step = "perf_event_open";
	CHECK_EQ(mp_probe_source(&u2, MP_SOURCE_FAULTS, why, sizeof(why), next, sizeof(next)), 0);
	CHECK(strstr(next, "perf_event_paranoid is 2; page-fault sampling, which counts the faults the kernel "
			   "takes for the program too, needs 1 or lower: sysctl kernel.perf_event_paranoid=1,") == next);
	u2.paranoid = 1; /* allowed, and still refused: not the sysctl */
	CHECK_EQ(mp_probe_source(&u2, MP_SOURCE_FAULTS, why, sizeof(why), next, sizeof(next)), 0);
	CHECK(strstr(next, "perf_event_paranoid is 1, which allows it: something else refuses") == next);
	CHECK(strstr(next, "sysctl") == NULL);
	u2.paranoid = 2;
	u2.root = 0;
	u2.pmus[MP_PMU_IBS_OP] = (struct mp_probe_pmu){ .name = "ibs_op", .present = 1, .type = 11 };
	CHECK_EQ(mp_probe_source(&u2, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next)), 0);
	CHECK(strstr(next, "perf_event_paranoid is 2; IBS, which cannot leave the kernel out, needs 1 or lower: "
			   "sysctl kernel.perf_event_paranoid=1,") == next);
	u2.paranoid = 1;
	CHECK_EQ(mp_probe_source(&u2, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next)), 1);
	memset(&u2.pmus[MP_PMU_IBS_OP], 0, sizeof(u2.pmus[MP_PMU_IBS_OP]));
	u2.pmus[MP_PMU_CPU] = (struct mp_probe_pmu){ .name = "cpu", .present = 1, .type = 4, .mem_events = 1 };
	u2.paranoid = 2;
	CHECK_EQ(mp_probe_source(&u2, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next)), 1);
	CHECK(strstr(why, "Intel PEBS") != NULL);
	u2.paranoid = 3;
	CHECK_EQ(mp_probe_source(&u2, MP_SOURCE_PMU, why, sizeof(why), next, sizeof(next)), 0);
	CHECK(strstr(next, "perf_event_paranoid is 3; sampling the program needs 2 or lower: sysctl "
			   "kernel.perf_event_paranoid=2,") == next);
	return check_done("test_probe");
}
