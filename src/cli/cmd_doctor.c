// SPDX-License-Identifier: MIT
/* `memprism doctor`: what this machine can measure, and for what it cannot,
 * why and what to do next. The facts come from the probe (src/record/probe.c),
 * the same one `memprism record` consults. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/mp_env.h"
#include "common/mp_error.h"
#include "model/machine.h"
#include "record/probe.h"
#include "record/record.h"
#include "sym/sym.h"

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("machine", 'M', NULL,
	  "print only the host model, as a machine file (the notes on\n"
	  "what it had to guess as # comments): edit it and give it to\n"
	  "--model FILE"),
	CLI_TABLE(cli_opts_help),
	CLI_END,
};

const struct cli_cmd cli_cmd_doctor = {
	.name = "doctor",
	.run = run,
	.summary = "say what this machine can measure (PMU, page faults, privileges)",
	.usage = "[OPTIONS]",
	.about = "Probes this machine and says which sources work: inst (programs built with\n"
		 "`memprism cc`), pmu (hardware sampling: Intel PEBS, AMD IBS, Arm SPE) and\n"
		 "faults (page-fault sampling), with the reason and the next step for each,\n"
		 "and which caches and TLBs `--model host` models.\n"
		 "Exit status 0 when the probe ran, whatever it found.\n",
	.opts = opts,
	.column = 18,
	.examples = (const struct cli_example[]){
		{ "memprism doctor",
		  "which sources work here (inst, faults, pmu, valgrind), and why not" },
		{ 0 },
	},
	.see_also = "memprism-record(1)",
};

/* dl_iterate_phdr: this process's libc, whose file the programs run use. */
static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	const char *slash = strrchr(info->dlpi_name, '/');
	if (slash && strncmp(slash + 1, "libc.so", 7) == 0) {
		snprintf(arg, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

static const char *yesno(int v)
{
	return v ? "yes" : "no";
}

/* The software events: the faults source's, and the inst source's
 * CPU-time samples (without them, report cannot say how much of the
 * program's time went to libraries memprism cc did not build). */
static void software_events(const struct mp_probe *p)
{
	printf("  software events:   %s", p->sw_errno ? "no" : "yes (page faults with addresses, per CPU, inherited)");
	if (p->sw_errno)
		printf(" (%s: %s, %s)", p->sw_step, mp_errno_name(p->sw_errno), strerror(p->sw_errno));
	printf("\n");
	if (!p->cpu_errno) {
		printf("  CPU-time sampling: yes (cpu-clock, user mode: report says how much of the program's time "
		       "the libraries memprism cc did not build took)\n");
		return;
	}
	printf("  CPU-time sampling: no (cpu-clock, user mode, %s: %s, %s; record --source inst runs without it", p->cpu_step,
	       mp_errno_name(p->cpu_errno), strerror(p->cpu_errno));
	if ((p->cpu_errno == EACCES || p->cpu_errno == EPERM) && p->paranoid > 2)
		printf("; kernel.perf_event_paranoid is %d, it needs 2 or lower", p->paranoid);
	printf(")\n");
}

/* Which compilers memprism cc and memprism gcc run, and how they instrument. */
/* One compiler's instrumentation (how: "inline", another choice, or NULL
 * when none can work): what it is, and why it is not inline. */
static void say_instrumentation(const char *label, const char *how, const char *plugin, const char *inl,
				const char *calls, const char *env_cc, const char *no_plugin)
{
	if (!how)
		printf("  %s none (runtime not found, or " MP_ENV_INSTRUMENT " asks for what is not there)\n", label);
	else if (!strcmp(how, "inline"))
		printf("  %s %s (%s)\n", label, inl, plugin);
	else if (getenv(MP_ENV_INSTRUMENT))
		printf("  %s %s (" MP_ENV_INSTRUMENT "=sancov)\n", label, calls);
	else if (getenv(env_cc))
		printf("  %s %s (%s names another compiler)\n", label, calls, env_cc);
	else
		printf("  %s %s (%s)\n", label, calls, no_plugin);
}

static void compilers(const struct mp_probe *p)
{
	printf("compiler\n");
	if (p->cc[0])
		printf("  memprism cc uses: %s (clang %d)\n", p->cc, p->cc_major);
	else
		printf("  memprism cc uses: none found\n");
	struct mp_paths paths;
	char plugin[4200];
	const char *how = mp_paths_find(&paths) ? NULL : mp_cc_instrumentation(&paths, 0, plugin, sizeof(plugin));
	say_instrumentation("instrumentation: ", how, plugin, "inline, by memprism's pass plugin",
			    "sanitizer-coverage callbacks", MP_ENV_CC,
			    "no pass plugin: memprism was built without llvm-16-dev");
	const char *ghow = how ? mp_gcc_instrumentation(&paths, 0, plugin, sizeof(plugin)) : NULL;
	say_instrumentation("memprism gcc:     ", ghow, plugin, "inline, by memprism's GCC plugin",
			    "a call into the runtime per access", MP_ENV_GCC,
			    "no GCC plugin: memprism was built without gcc's plugin headers");
}

static int run(int argc, char **argv)
{
	struct cli_parse cp;
	int c, machine_only = 0;
	cli_parse_init(&cp, &cli_cmd_doctor, argc, argv);
	while ((c = cli_parse_next(&cp)) != -1) {
		if (c == CLI_EXIT)
			return cp.status;
		if (c == 'M')
			machine_only = 1;
	}
	if (optind < argc) {
		cli_error("doctor takes no arguments (got '%s')", argv[optind]);
		return 2;
	}
	struct mp_machine host;
	cli_machine_host(&host);
	if (machine_only) {
		char text[4096];
		if (mp_machine_format(&host, text, sizeof(text))) {
			cli_error("the host machine does not fit its buffer");
			return 1;
		}
		printf("# memprism doctor --machine: what --model host models on this machine\n");
		if (host.notes[0])
			printf("# notes: %s\n", host.notes);
		fputs(text, stdout);
		return cli_finish_stdout();
	}
	struct mp_probe p;
	mp_probe_run(&p);

	printf("machine\n");
	if (p.hw_errno)
		printf("  hardware PMU:      no (perf_event_open cycles: %s, %s)\n", mp_errno_name(p.hw_errno),
		       strerror(p.hw_errno));
	else
		printf("  hardware PMU:      yes (perf_event_open cycles works)\n");
	for (int i = 0; i < MP_PMU_COUNT; i++) {
		const struct mp_probe_pmu *m = &p.pmus[i];
		if (!m->present) {
			printf("  pmu %-14s absent\n", m->name);
			continue;
		}
		printf("  pmu %-14s present, type %d%s\n", m->name, m->type, m->mem_events ? ", memory events" : "");
		if (m->caps[0])
			printf("    caps:   %s\n", m->caps);
		if (m->format[0])
			printf("    format: %s\n", m->format);
	}
	char spe[256];
	int spe_ok = mp_probe_spe(&p, spe, sizeof(spe));
	printf("  Arm SPE:           %s (%s)\n", spe_ok ? "yes" : "no", spe);
	software_events(&p);
	printf("  virtual machine:   %s", yesno(p.hv_cpuid == 1 || p.hv_cpuinfo || p.hv_sysfs[0]));
	printf(" (cpuid hypervisor bit: %s", p.hv_cpuid < 0 ? "n/a" : yesno(p.hv_cpuid));
	if (p.hv_vendor[0])
		printf(", vendor %s", p.hv_vendor);
	printf("; cpuinfo flag: %s; /sys/hypervisor: %s)\n", yesno(p.hv_cpuinfo),
	       p.hv_sysfs[0] ? p.hv_sysfs : "absent");
	printf("privileges\n");
	if (p.paranoid == -100)
		printf("  perf_event_paranoid: unreadable\n");
	else
		printf("  perf_event_paranoid: %d\n", p.paranoid);
	printf("  root: %s, CAP_PERFMON: %s, CAP_SYS_ADMIN: %s\n", yesno(p.root), yesno(p.cap_perfmon),
	       yesno(p.cap_sys_admin));
	printf("  physical addresses: %s\n",
	       p.root || p.cap_sys_admin ? "yes (PERF_SAMPLE_PHYS_ADDR needs root)" : "no (needs root)");
	if (p.pagemap_pfn < 0)
		printf("  pagemap PFNs:      no (/proc/self/pagemap: %s)\n", strerror(-p.pagemap_pfn));
	else
		printf("  pagemap PFNs:      %s\n", p.pagemap_pfn ? "yes (own pagemap entry shows a PFN)"
								  : "no (PFN reads as 0: needs CAP_SYS_ADMIN)");
	printf("memory\n");
	printf("  transparent huge pages: %s\n", p.thp[0] ? p.thp : "unknown (no sysfs entry)");
	printf("  NUMA nodes: %d, CPUs: %d\n", p.numa_nodes, p.ncpus);
	compilers(&p);
	printf("model\n");
	printf("  --model host:      L1D %lluK %u-way, L2 %lluK %u-way, LLC %lluK %u-way (%s); DTLB %u, STLB %u "
	       "%u-way\n",
	       (unsigned long long)(host.l1d.size >> 10), host.l1d.ways, (unsigned long long)(host.l2.size >> 10),
	       host.l2.ways, (unsigned long long)(host.llc.size >> 10), host.llc.ways,
	       host.llc.inclusion == MP_INCL_INCLUSIVE	 ? "inclusive"
	       : host.llc.inclusion == MP_INCL_EXCLUSIVE ? "exclusive"
							 : "non-inclusive",
	       host.dtlb[MP_PAGE_4K].entries, host.stlb.entries, host.stlb.ways);
	printf("  host notes:        %s\n", host.notes[0] ? host.notes : "none: every value as reported");
	printf("  as a machine file: memprism doctor --machine > my.machine (every value, to edit for --model "
	       "FILE)\n");
	printf("symbols\n");
	char libc[4096] = "", where[4096];
	dl_iterate_phdr(find_libc, libc);
	int dbg = libc[0] ? sym_debug_info_of(libc, where, sizeof(where)) : -1;
	if (dbg > 0)
		printf("  libc debug info:   yes (%s)\n", where);
	else
		printf("  libc debug info:   no (%s has no DWARF and no file under /usr/lib/debug: allocation sites "
		       "and code inside libc go by function name only; apt-get install libc6-dbg adds file:line)\n",
		       libc[0] ? libc : "libc");
	char cdir[4096];
	unsigned long cfiles;
	uint64_t cbytes;
	if (sym_cache_usage(cdir, sizeof(cdir), &cfiles, &cbytes) != 0)
		printf("  debug cache:       off (" MP_ENV_CACHE_DIR " is empty, or no home directory)\n");
	else {
		int bad;
		uint64_t max = sym_cache_max(&bad);
		printf("  debug cache:       %s (%lu inflated debug file%s, %.1f of %llu MiB; remove them any time)\n",
		       cdir, cfiles, cfiles == 1 ? "" : "s", (double)cbytes / (1 << 20),
		       (unsigned long long)(max >> 20));
		if (bad)
			printf("  debug cache bound: " MP_ENV_CACHE_MAX "='%s' is not a number of MiB: %llu MiB used\n",
			       getenv(MP_ENV_CACHE_MAX), (unsigned long long)(max >> 20));
	}
	printf("sources\n");
	for (int s = 0; s < MP_SOURCE_COUNT; s++) {
		char why[8192], next[8192];
		int ok = mp_probe_source(&p, (enum mp_source)s, why, sizeof(why), next, sizeof(next));
		char out[1024];
		int terr;
		if (ok && s == MP_SOURCE_VALGRIND && (terr = mp_vg_trial(&p.vg, out, sizeof(out))) != 0) {
			/* everything is in place, and yet: what Valgrind said */
			out[strcspn(out, "\n")] = 0;
			ok = 0;
			snprintf(why, sizeof(why), "%.2000s could not run /bin/true under memprism's tool: %.1000s", p.vg.valgrind,
				 terr == -ECHILD ? (out[0] ? out : "it failed without a word") : mp_strerror(terr));
			snprintf(next, sizeof(next), "run it by hand: VALGRIND_LIB=%.3000s %.3000s --tool=memprism /bin/true",
				 p.vg.tooldir, p.vg.valgrind);
		}
		printf("  %-7s %s: %s\n", mp_source_name((enum mp_source)s), ok ? "works" : "does not work", why);
		printf("  %-7s next: %s\n", "", next);
	}
	return cli_finish_stdout();
}
