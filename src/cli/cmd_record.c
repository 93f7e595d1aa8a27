// SPDX-License-Identifier: MIT
/* `memprism record [OPTIONS] -- PROGRAM [ARGS]` */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/mp_env.h"
#include "common/mp_error.h"
#include "common/mp_vgring.h"
#include "model/topology.h"
#include "record/probe.h"
#include "record/rank.h"
#include "record/record.h"

/* The pids as " (pid 12, 13, ...)" into buf. */
static void pids_text(char *buf, size_t cap, unsigned n, const int *pids)
{
	size_t k = (size_t)snprintf(buf, cap, " (pid");
	for (unsigned i = 0; i < n && i < 8 && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s %d", i ? "," : "", pids[i]);
	if (k < cap)
		snprintf(buf + k, cap - k, "%s)", n > 8 ? ", ..." : "");
}

/* mp_record_opts.on_linger: the program ended, what it started runs on. */
static void say_linger(void *arg, int status, unsigned n, const int *pids)
{
	const struct mp_record_opts *ro = arg;
	char ps[128] = "", how[64];
	if (n)
		pids_text(ps, sizeof(ps), n, pids);
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "was killed by signal %d", WTERMSIG(status));
	else
		snprintf(how, sizeof(how), "exited (status %d)", WEXITSTATUS(status));
	cli_error("note: %s %s; waiting for the %s it left running%s, which %s into %s too (^C stops "
		  "waiting)",
		  ro->argv[0], how, n == 1 ? "process" : "processes", ps, n == 1 ? "records" : "record", ro->output);
}

enum {
	K_STACK_DEPTH = CLI_K_CMD,
	K_SAMPLE_BURSTS,
	K_MIN_SIZE,
	K_PERIOD,
	K_LDLAT,
	K_NO_PAGEMAP,
	K_NUMA,
	K_PERIOD_JITTER,
	K_CHILDREN,
	K_NO_CPU_TIME,
};

static int run(int argc, char **argv);

static const struct cli_opt opts[] = {
	CLI_OPT("output", 'o', "FILE",
	  "data file (default memprism.data): a new regular file; an\n"
	  "existing regular file is kept as FILE.old. A directory,\n"
	  "device, FIFO, socket or symlink at FILE or FILE.old is\n"
	  "refused (status 2) and left as it is. In FILE, %r is\n"
	  "the rank, %h the host, %p record's pid, %% a percent.\n"
	  "Under mpirun or srun (OMPI_COMM_WORLD_RANK, PMI_RANK,\n"
	  "PMIX_RANK or SLURM_PROCID set) each rank writes its own\n"
	  "file: memprism.rank%r.data by default, FILE.rankN for a\n"
	  "FILE without %r (docs/mpi.md)"),
	CLI_OPT("source", 's', "SOURCE",
	  "where accesses come from:\n"
	  "  inst    every load/store of a `memprism cc` build (default)\n"
	  "  faults  page faults of any binary: first touch of every\n"
	  "          page, by object, thread, CPU and node\n"
	  "  pmu     hardware sampling (PEBS, IBS, SPE)\n"
	  "  valgrind every load/store of any binary and all its\n"
	  "          libraries, under memprism's Valgrind tool\n"
	  "          (no rebuild; tens of times slower)\n"
	  "faults, pmu and valgrind are checked first with the probe\n"
	  "of `memprism doctor` and refused when they cannot work"),
	CLI_OPT("period", K_PERIOD, "N",
	  "pmu: one sample every N events (default: 10007 PEBS,\n"
	  "100000 IBS ops, 10000 SPE ops)"),
	CLI_OPT("period-jitter", K_PERIOD_JITTER, "PCT",
	  "pmu: vary the period pseudo-randomly by up to +-PCT%\n"
	  "(1-100), so loops cannot stay in step with the\n"
	  "sampler; each sample counts with its own period.\n"
	  "PEBS/IBS: a new period after every drain of a ring\n"
	  "(the kernel changes it for the program's first\n"
	  "thread; threads and children take the one current\n"
	  "when they start). SPE: the hardware's jitter bit"),
	CLI_OPT("children", K_CHILDREN, NULL,
	  "pmu, faults: also keep samples of the program's child\n"
	  "processes (default: the program's own threads only;\n"
	  "exec keeps the pid, so exec'd images count as its own)"),
	CLI_OPT("ldlat", K_LDLAT, "CYCLES",
	  "pmu: sample loads slower than CYCLES (Intel, default\n"
	  "30), operations slower than CYCLES (SPE min_latency)"),
	CLI_OPT("call-graph", 'g', NULL, "pmu: record user call chains with every sample"),
	CLI_OPT("stack-depth", K_STACK_DEPTH, "N", "frames kept per allocation stack (1-64, default 16)"),
	CLI_OPT("min-size", K_MIN_SIZE, "BYTES",
	  "track only heap blocks of at least BYTES (smaller ones\n"
	  "count as the heap mapping); cuts events for programs\n"
	  "made of many tiny allocations (memprism.h groups them)"),
	CLI_OPT("sample-bursts", K_SAMPLE_BURSTS, "ON,OFF",
	  "bounded mode for long runs: each thread records ON\n"
	  "accesses, skips OFF, and so on; reports then show\n"
	  "estimates (recorded x (ON+OFF)/ON)"),
	CLI_OPT("numa", K_NUMA, "NODESxCPUS",
	  "simulate a NUMA machine, e.g. 4x8 (4 nodes of 8 CPUs):\n"
	  "the program's affinity and memory-policy calls name its\n"
	  "CPUs and nodes and still succeed here; reports place\n"
	  "threads and pages on it (docs/numa.md)"),
	CLI_OPT("no-pagemap", K_NO_PAGEMAP, NULL,
	  "don't record virtual->physical translations (by default\n"
	  "the launcher reads /proc/PID/pagemap now and then: needs\n"
	  "root; the model then indexes caches physically)"),
	CLI_OPT("no-cpu-time", K_NO_CPU_TIME, NULL,
	  "inst: don't sample where the program's CPU time goes (by\n"
	  "default a cpu-clock sample every 4 ms of a thread's user\n"
	  "time, so report can say how much of it was spent in\n"
	  "libraries memprism cc did not build, whose loads and\n"
	  "stores the inst source does not see)"),
	CLI_OPT("quiet", 'q', NULL, "no summary on stderr"),
	CLI_TABLE(cli_opts_model),
	CLI_TABLE(cli_opts_help),
	CLI_END,
};

const struct cli_cmd cli_cmd_record = {
	.name = "record",
	.run = run,
	.summary = "run a program and record its objects and accesses",
	.usage = "[OPTIONS] [--] PROGRAM [ARGS...]",
	.about = "Runs PROGRAM with memprism's runtime and writes what it did to a data file:\n"
		 "every allocation, free, mapping, thread and loaded image (with call stacks),\n"
		 "and every load and store if PROGRAM was built with `memprism cc`. Children\n"
		 "and exec'd programs are recorded into the same file; record returns when\n"
		 "every process PROGRAM started has ended (daemons too: ^C stops that wait).\n"
		 "The exit status is PROGRAM's (128+N if it died of signal N). SIGTERM and\n"
		 "SIGHUP to record are passed on to PROGRAM, or to what it left running (^C\n"
		 "reaches it directly); if record is killed outright, PROGRAM gets SIGKILL.\n"
		 "A static PROGRAM, or a set-user-ID, set-group-ID or file-capability one\n"
		 "that gives you privileges, cannot be recorded: record warns and runs it.\n"
		 "Under mpirun or srun, put record after the launcher (mpirun -np 4 memprism\n"
		 "record -- ./app): each rank writes its own file, rank and host in its header,\n"
		 "and `memprism report` takes them together (docs/mpi.md).\n"
		 "With --model MACHINE, once PROGRAM and what it started have ended, record\n"
		 "models the trace and prints what `memprism report --model MACHINE FILE` prints,\n"
		 "on standard error (PROGRAM's standard output stays its own); the file stays\n"
		 "for other views. The exit status is still PROGRAM's, or 1 if it exited 0 and\n"
		 "the model failed.\n",
	.opts = opts,
	.column = 24,
	.stop_at_operand = 1, /* the program's options are its own */
	.examples = (const struct cli_example[]){
		{ "memprism record -- ./app args",
		  "record ./app (built with memprism cc) into memprism.data" },
		{ "memprism record -o run1.data --min-size 4096 -- ./app",
		  "into run1.data, tracking only heap blocks of 4 KiB and more" },
		{ "memprism record --sample-bursts 1000000,9000000 -- ./app",
		  "a bounded trace for a long run: 1M accesses of every 10M per thread" },
		{ "memprism record --model host -- ./app",
		  "record ./app, then show its modelled cache, TLB and DRAM figures per object" },
		{ "memprism record --source valgrind -- ./vendor-binary",
		  "any binary, no rebuild: every load and store under memprism's Valgrind tool" },
		{ "memprism record --source faults -- ./app",
		  "any binary: the first touch of every page" },
		{ "memprism record --numa 4x8 -- ./app",
		  "simulate 4 NUMA nodes of 8 CPUs (then memprism numa)" },
		{ 0 },
	},
	.see_also = "memprism-cc(1), memprism-report(1), memprism-doctor(1), valgrind(1)",
};

/* -o named something that is not a regular file, or its .old is not one:
 * say what is there and what to do; nothing was moved. */
static void output_refused(const struct mp_record_opts *ro)
{
	unsigned m = ro->conflict_mode & S_IFMT;
	const char *what = m == S_IFDIR	   ? "a directory"
			   : m == S_IFCHR  ? "a character device"
			   : m == S_IFBLK  ? "a block device"
			   : m == S_IFIFO  ? "a FIFO (named pipe)"
			   : m == S_IFSOCK ? "a socket"
			   : m == S_IFLNK  ? "a symbolic link"
					   : "not a regular file";
	const char *path = ro->conflict_path;
	if (strcmp(path, ro->output) != 0) {
		cli_error("cannot record to %s: %s, where the existing %s would be kept, is %s; nothing was moved. "
			  "Move %s away, or name another file with -o",
			  ro->output, path, ro->output, what, path);
		return;
	}
	if (m == S_IFLNK) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = 0;
		cli_error("cannot record to %s: it is a symbolic link (to %s), and -o does not follow links; nothing "
			  "was moved. Name the file itself, or remove the link",
			  path, n > 0 ? target : "?");
	} else if (m == S_IFDIR) {
		cli_error("cannot record to %s: it is a directory, and -o writes only regular files; nothing was "
			  "moved. Name a file, e.g. -o %s%smemprism.data",
			  path, path, path[strlen(path) - 1] == '/' ? "" : "/");
	} else {
		cli_error("cannot record to %s: it is %s, and -o writes only regular files (every recorded "
			  "process appends to it, reports read it back); nothing was moved. Name a new or regular file",
			  path, what);
	}
}

/* The programs memprism's runtime loads into, in words */
#if defined(__x86_64__)
#define MP_HOST_ARCH_WORDS "64-bit x86-64"
#elif defined(__aarch64__)
#define MP_HOST_ARCH_WORDS "64-bit AArch64"
#else
#define MP_HOST_ARCH_WORDS "this machine's"
#endif

/* The preloaded runtime cannot work in the program: one line on why and
 * what to do instead. A warning, not an error: the run goes on, as perf
 * record's would, recording what it can. */
static void say_unrecordable(const char *name, const struct mp_program_info *pi, enum mp_source src)
{
	const char *lost = src == MP_SOURCE_INST || src == MP_SOURCE_VALGRIND
				   ? "nothing of it is recorded (the trace holds the run's end only)"
			   : src == MP_SOURCE_FAULTS
				   ? "its objects are not recorded, and its page faults cannot be put on any"
				   : "its objects are not recorded, and its samples cannot be put on any";
	if (pi->foreign[0]) {
		cli_error("warning: %s is %s, and memprism's runtime loads into %s programs only, so %s. Record "
			  "a %s build of it",
			  name, pi->foreign, MP_HOST_ARCH_WORDS, lost, MP_HOST_ARCH_WORDS);
		return;
	}
	if (pi->is_static) {
		cli_error("warning: %s is statically linked: memprism's runtime is preloaded by the dynamic loader, "
			  "which a static program does not use, so %s. Link it dynamically to record it (`memprism "
			  "cc` does)",
			  name, lost);
		return;
	}
	static const char secure[] = "so it runs for you in secure-execution mode, where memprism's runtime is not "
				     "preloaded and ignores " MP_ENV_OUT;
	if (pi->secure == MP_SECURE_CAPS) {
		cli_error("warning: %s has file capabilities (getcap shows them), %s: %s. Record a copy (cp drops "
			  "them), or run memprism as root",
			  name, secure, lost);
	} else if (pi->secure == MP_SECURE_SETGID) {
		const struct group *g = getgrgid(pi->gid);
		char id[64];
		if (g)
			snprintf(id, sizeof(id), "%s", g->gr_name);
		else
			snprintf(id, sizeof(id), "gid %u", pi->gid);
		cli_error("warning: %s is set-group-ID (group %s), %s: %s. Record a copy without the bit (cp drops "
			  "it), or run memprism with %s as its real group",
			  name, id, secure, lost, id);
	} else {
		const struct passwd *pw = getpwuid(pi->uid);
		char id[64];
		if (pw)
			snprintf(id, sizeof(id), "%s", pw->pw_name);
		else
			snprintf(id, sizeof(id), "uid %u", pi->uid);
		cli_error("warning: %s is set-user-ID (owner %s), %s: %s. Record a copy without the bit (cp drops "
			  "it), or run memprism as %s",
			  name, id, secure, lost, id);
	}
}

/* Under a launcher, with no -o: the file is named by rank (say_done says so) */
static const char default_ranked[] = "memprism.rank%r.data";
static int named_by_rank;

/* A numeric MEMPRISM_* variable that record or its runtime reads: unset,
 * empty or a number in [lo, hi] (1); else said, not taken as 0 or cut
 * to the range (0). */
static int env_number_ok(const char *name, long lo, long hi)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 1;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!*end && !errno && n >= lo && n <= hi)
		return 1;
	cli_error("%s wants a number from %ld to %ld, not '%s' (unset it for the default)", name, lo, hi, v);
	return 0;
}

/* The numeric variables record and its runtime read (docs/environment.md). */
static int env_ok(const struct mp_record_opts *ro)
{
	return env_number_ok(MP_ENV_ZSTD_LEVEL, 1, 19) &&
	       (ro->source != MP_SOURCE_VALGRIND || env_number_ok(MP_ENV_VG_RING, 0, MP_VGRING_MAX_SLOTS));
}

/* --model and the other model options (cli_opts_model): checked before
 * the program runs, and given to report after it (model_after): the ones
 * cli_model keeps as given (args), and --model-threads. */
static struct cli_model run_model; /* large: not on the stack */

/* Options that apply to some sources, or only with another: -1 if they
 * agree, else 2 (said). */
static int options_agree(const struct mp_record_opts *ro)
{
	if (ro->pmu.jitter_pct && ro->source != MP_SOURCE_PMU) {
		/* faults samples every fault (period 1): nothing to vary */
		cli_error("--period-jitter applies to --source pmu only (%s)",
			  ro->source == MP_SOURCE_FAULTS ? "faults samples every page fault: its period is 1"
							: "inst records every access");
		return 2;
	}
	if (ro->children && (ro->source == MP_SOURCE_INST || ro->source == MP_SOURCE_VALGRIND)) {
		cli_error("--children applies to --source pmu and faults (%s records children always)",
			  mp_source_name(ro->source));
		return 2;
	}
	if (ro->no_cpu_time && ro->source != MP_SOURCE_INST) {
		cli_error("--no-cpu-time applies to --source inst (%s samples no CPU time)", mp_source_name(ro->source));
		return 2;
	}
	if (ro->burst_on && ro->source == MP_SOURCE_VALGRIND) {
		cli_error("--sample-bursts applies to --source inst (valgrind records every access)");
		return 2;
	}
	struct an_opts ao = { 0 };
	if (!run_model.have && (run_model.nargs || run_model.threads)) {
		cli_error("--pages, --thread-map and --model-threads go with --model MACHINE (the model of the run, "
			  "made when it ends)");
		return 2;
	}
	if (cli_model_apply(&run_model, &ao, 0))
		return 2;
	if (run_model.have && (ro->source == MP_SOURCE_FAULTS || ro->source == MP_SOURCE_PMU)) {
		cli_error("--model models every access, which --source inst and valgrind record (%s records %s)",
			  mp_source_name(ro->source), ro->source == MP_SOURCE_FAULTS ? "page faults" : "samples");
		return 2;
	}
	return -1;
}

/* The options into *ro (topo: --numa's machine, which ro->numa points
 * into); -1 to go on, else the exit status (--help: 0; bad usage: 2). */
static int parse(int argc, char **argv, struct mp_record_opts *ro, struct mp_topo *topo)
{
	char terr[256];
	static char output[PATH_MAX]; /* -o's pattern expanded */
	struct cli_parse p;
	int c;
	cli_parse_init(&p, &cli_cmd_record, argc, argv);
	while ((c = cli_parse_next(&p)) != -1) {
		switch (c) {
		case CLI_EXIT:
			return p.status;
		case 'o':
			ro->output = optarg;
			break;
		case K_NO_PAGEMAP:
			ro->no_pagemap = 1;
			break;
		case K_NO_CPU_TIME:
			ro->no_cpu_time = 1;
			break;
		case K_NUMA:
			if (mp_topo_sim(optarg, topo, terr, sizeof(terr))) {
				cli_error("%s", terr);
				return 2;
			}
			ro->numa = topo->spec;
			break;
		case 's': {
			int src = mp_source_parse(optarg);
			if (src < 0) {
				cli_error("unknown source '%s' (inst, pmu, faults or valgrind)", optarg);
				return 2;
			}
			ro->source = (enum mp_source)src;
			break;
		}
		case K_STACK_DEPTH: {
			char *end;
			long d = strtol(optarg, &end, 10);
			if (*end || d < 1 || d > 64) {
				cli_error("--stack-depth wants a number from 1 to 64, not '%s'", optarg);
				return 2;
			}
			ro->stack_depth = (int)d;
			break;
		}
		case K_SAMPLE_BURSTS: {
			uint64_t on, off;
			if (cli_parse_bursts(optarg, &on, &off))
				return 2;
			ro->burst_on = on;
			ro->burst_off = off;
			break;
		}
		case K_MIN_SIZE: {
			char *end;
			ro->min_size = strtoull(optarg, &end, 10);
			if (*end || optarg[0] == '-' || !optarg[0]) {
				cli_error("--min-size wants a number of bytes, not '%s'", optarg);
				return 2;
			}
			break;
		}
		case K_PERIOD:
		case K_LDLAT: {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*end || !v || optarg[0] == '-' || (c == K_LDLAT && v > 65535)) {
				cli_error("--%s wants a number > 0%s, not '%s'", c == K_PERIOD ? "period" : "ldlat",
					  c == K_LDLAT ? " (cycles, at most 65535)" : "", optarg);
				return 2;
			}
			if (c == K_PERIOD)
				ro->pmu.period = v;
			else
				ro->pmu.ldlat = (unsigned)v;
			break;
		}
		case K_PERIOD_JITTER: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !optarg[0] || optarg[0] == '-' || v < 1 || v > 100) {
				cli_error("--period-jitter wants a percentage from 1 to 100, not '%s'", optarg);
				return 2;
			}
			ro->pmu.jitter_pct = (unsigned)v;
			break;
		}
		case K_CHILDREN:
			ro->children = 1;
			break;
		case 'g':
			ro->pmu.callchain = 1;
			break;
		default:
			if (cli_model_option(&run_model, c, optarg))
				return 2;
		}
	}
	if (optind >= argc) {
		cli_error("no program given: memprism record [OPTIONS] -- PROGRAM [ARGS]");
		return 2;
	}
	ro->argv = argv + optind;
	static struct mp_rank rk; /* (ro keeps pointers into it) */
	if (mp_rank_detect(&rk)) {
		cli_error("cannot tell this process's rank: %s is '%s', not a number (unset it, or fix the "
			  "launcher's environment)",
			  rk.var, getenv(rk.var));
		return 2;
	}
		const char *pattern = ro->output ? ro->output : rk.var ? default_ranked : "memprism.data";
	named_by_rank = pattern == default_ranked;
	int xerr = mp_output_expand(pattern, &rk, output, sizeof(output));
	if (xerr == -EINVAL) {
		cli_error("-o %s: %s", pattern,
			  rk.var ? "% is followed by r (rank), h (host), p (pid) or % in a file name pattern"
				 : "%r needs a rank, and no launcher set one (OMPI_COMM_WORLD_RANK, PMI_RANK, "
				   "PMIX_RANK, SLURM_PROCID); otherwise % is followed by h (host), p (pid) or %");
		return 2;
	}
	if (xerr) {
		cli_error("-o %s: the file name is too long", pattern);
		return 2;
	}
	ro->output = output;
	ro->rank = rk.rank;
	ro->rank_size = rk.size;
	ro->rank_var = rk.var;
	ro->rank_job = rk.job;
	return options_agree(ro);
}

/* The program to record, as check_run found it (say_program) */
static struct {
	int known;
	struct mp_program_info info;
} program;

/* Before anything runs: the source can work here (the probe of `memprism
 * doctor`), memprism's parts are found (*paths), the program is one that
 * can be run and recorded (or what is not recorded is said). -1 to go
 * on, else the exit status. */
static int check_run(const struct mp_record_opts *ro, struct mp_probe *probe, struct mp_paths *paths)
{
	if (ro->output && !strcmp(ro->output, "-")) {
		/* (every process appends its chunks to the file; the launcher
		 * reads it back) */
		cli_error("cannot record to '-': -o writes only regular files (every recorded process appends to it, "
			  "reports read it back), not standard output. Name a new or regular file");
		return 2;
	}
	if (ro->source != MP_SOURCE_INST) {
		/* the same probe and words as `memprism doctor`, before anything runs */
		char why[512], next[512];
		mp_probe_for(probe, ro->source);
		if (!mp_probe_source(probe, ro->source, why, sizeof(why), next, sizeof(next))) {
			if (ro->source == MP_SOURCE_VALGRIND) { /* (one line: what is missing, what to install) */
				cli_error("--source valgrind cannot work on this machine: %s: %s", why, next);
				return 2;
			}
			cli_error("--source %s cannot work on this machine: %s", mp_source_name(ro->source), why);
			cli_error("next: %s", next);
			return 2;
		}
	}
	int err = mp_paths_find(paths);
	if (err) {
		cli_error("%s (is memprism installed completely?)", mp_strerror(err));
		return 2;
	}
	char prog[PATH_MAX];
	err = mp_find_program(ro->argv[0], prog, sizeof(prog));
	if (err) {
		cli_error("cannot run '%s': %s", ro->argv[0],
			  err == -ENOENT ? "no such program (not a path, and not found on PATH)" : mp_strerror(err));
		return 127;
	}
	struct stat sb;
	if (stat(prog, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		cli_error("cannot run '%s': it is a directory", ro->argv[0]);
		return 126;
	}
	struct mp_program_info pi;
	int inspect_err = mp_program_inspect(prog, &pi);
	if (!inspect_err && pi.instrumented == 2) {
		cli_error("cannot run '%s': it was built by another version of `memprism cc`, whose inline "
			  "instrumentation this runtime does not take. Rebuild it with this `memprism cc`.",
			  ro->argv[0]);
		return 2;
	}
	if (!inspect_err && pi.foreign[0] && ro->source == MP_SOURCE_VALGRIND) {
		cli_error("cannot record '%s' with --source valgrind: it is %s, and memprism's Valgrind tool runs "
			  "%s programs only",
			  ro->argv[0], pi.foreign, MP_HOST_ARCH_WORDS);
		return 2;
	}
	if (!inspect_err) {
		program.known = 1;
		program.info = pi;
	}
	return -1;
}

/* What record says of the program it runs, once the data file is made
 * (mp_record_opts.on_start): not before, so that a file it cannot make
 * is the one thing said. */
static void say_program(void *arg)
{
	const struct mp_record_opts *ro = arg;
	const struct mp_program_info *pi = &program.info;
	if (!program.known)
		return;
	if (pi->foreign[0] || pi->is_static || pi->secure)
		say_unrecordable(ro->argv[0], pi, ro->source);
	else if (!pi->instrumented && !cli_quiet && ro->source == MP_SOURCE_INST)
		cli_error("note: %s was not built with `memprism cc`: its allocations are recorded, its "
			  "accesses are not. Rebuild with `memprism cc` (or CC=\"memprism cc\" make) to see "
			  "accesses per object.",
			  ro->argv[0]);
}

/* What mp_record_run's outcome err (file_error: 1 the data file, 2 the
 * source; status: the program's, -1 if it did not run) means, said; -1
 * when the recording stands (the program ran, and at most the run's end
 * could not be written), else the exit status. */
static int record_outcome(const struct mp_record_opts *ro, int err, int file_error, int status)
{
	if (err == -MP_ERR_NOT_REGULAR) {
		output_refused(ro);
		return 2;
	}
	if (err == -EAGAIN && file_error == 1) {
		cli_error("cannot record to %s: it was replaced while memprism moved it to %s.old (put back); try "
			  "again",
			  ro->output, ro->output);
		return 2;
	}
	if (ro->write_errno)
		cli_error("warning: the recording stopped early: writing %s failed: %s%s; the trace holds what was "
			  "written before",
			  ro->output, strerror(ro->write_errno),
			  ro->write_errno == ENOSPC ? " (the disk is full)" : "");
	if (err && file_error && status != -1) {
		/* the program ran; only the run's end could not be appended */
		if (-err != ro->write_errno)
			cli_error("warning: cannot finish %s: %s", ro->output, mp_strerror(err));
		return -1;
	}
	if (err && file_error == 2 && err == -ERANGE) {
		/* mp_perf_parse_event: a value wider than its format/ field */
		cli_error("cannot start --source pmu: --ldlat %u does not fit this PMU's field (Arm SPE "
			  "min_latency: at most 4095)",
			  ro->pmu.ldlat);
		return 2;
	}
	if (err && file_error == 2) {
		cli_error("cannot start --source %s: %s (see `memprism doctor`)", mp_source_name(ro->source),
			  mp_strerror(err));
		return 2;
	}
	if (err && file_error) {
		cli_error("cannot record to %s: %s", ro->output, mp_strerror(err));
		return 2;
	}
	if (err) {
		cli_error("cannot run '%s': %s", ro->argv[0], mp_strerror(err));
		return err == -ENOENT ? 127 : err == -EACCES || err == -ENOEXEC ? 126 : 2;
	}
	return -1;
}

/* After the run: processes still recording, and (unless -q) what was
 * recorded, into which file. */
static void say_done(const struct mp_record_opts *ro, const struct mp_perf_stats *stats, int status)
{
	if (ro->stopped_waiting && ro->left_running) {
		/* (even with -q: the file is not complete yet) */
		char ps[128];
		pids_text(ps, sizeof(ps), ro->left_running, ro->left_pids);
		cli_error("warning: stopped waiting: %u %s that %s started %s still running%s and %s into %s: "
			  "the trace is complete when %s",
			  ro->left_running, ro->left_running == 1 ? "process" : "processes", ro->argv[0],
			  ro->left_running == 1 ? "is" : "are", ps, ro->left_running == 1 ? "records" : "record",
			  ro->output, ro->left_running == 1 ? "it ends" : "they end");
	} else if (ro->stopped_waiting) {
		cli_error("warning: stopped waiting: processes that %s started are still running and record into "
			  "%s: the trace is complete when they end",
			  ro->argv[0], ro->output);
	}
	if (!cli_quiet) {
		struct stat st;
		long long size = stat(ro->output, &st) == 0 ? (long long)st.st_size : -1;
		if (ro->forwarded_signal)
			cli_error("got SIG%s: passed it on to %s", sigabbrev_np(ro->forwarded_signal),
				  ro->argv[0]);
		if (WIFSIGNALED(status))
			cli_error("%s was killed by signal %d; the trace holds what it recorded until then",
				  ro->argv[0], WTERMSIG(status));
		if (ro->pagemap_err == -EPERM)
			cli_error("note: physical addresses not recorded: /proc/PID/pagemap hides frame numbers "
				  "from non-root users (the model will index caches virtually)");
		else if (ro->pagemap_err && -ro->pagemap_err != ro->write_errno)
			cli_error("note: physical addresses recorded only in part: %s", mp_strerror(ro->pagemap_err));
		else if (!ro->no_pagemap)
			fprintf(stderr, "memprism: physical addresses of %llu pages (%u looks at the page tables)\n",
				ro->pagemap_pages, ro->pagemap_scans);
		if (ro->source == MP_SOURCE_FAULTS)
			fprintf(stderr, "memprism: %llu page faults sampled%s", (unsigned long long)stats->faults,
				stats->lost ? "" : "\n");
		else if (ro->source == MP_SOURCE_PMU)
			fprintf(stderr, "memprism: %llu samples%s", (unsigned long long)stats->samples,
				stats->lost ? "" : "\n");
		if (stats->lost && ro->source == MP_SOURCE_INST)
			fprintf(stderr, "memprism: %llu CPU-time samples lost (the rings filled up faster than memprism "
					"drained them)\n",
				(unsigned long long)stats->lost);
		else if (stats->lost)
			fprintf(stderr, ", %llu lost (the rings filled up faster than memprism drained them)\n",
				(unsigned long long)stats->lost);
		if (ro->cpu_time_err)
			cli_error("note: CPU time not sampled (perf_event_open cpu-clock: %s): report cannot say how much "
				  "of it libraries not built by memprism cc took (`memprism doctor` says why)",
				  mp_strerror(ro->cpu_time_err));
		if (stats->other_procs)
			fprintf(stderr, "memprism: %llu %s of child processes left out (--children keeps them)\n",
				(unsigned long long)stats->other_procs,
				ro->source == MP_SOURCE_FAULTS ? "page faults" : "samples");
		if (stats->period_changes)
			fprintf(stderr, "memprism: sampling periods re-drawn %llu times (--period-jitter)\n",
				(unsigned long long)stats->period_changes);
		if (stats->aux_truncated)
			fprintf(stderr,
				"memprism: the SPE buffer filled %llu times: records were lost (raise --period)\n",
				(unsigned long long)stats->aux_truncated);
		if (ro->raw_bytes)
			fprintf(stderr, "memprism: the Valgrind tool's raw chunks compressed: %.1f MB of trace in %.1f MB\n",
				ro->raw_bytes / 1e6, ro->stored_bytes / 1e6);
		else if (ro->compact_err == -EBUSY)
			cli_error("note: the trace stays uncompressed: processes of %s still write to it", ro->argv[0]);
		else if (ro->compact_err)
			cli_error("note: the trace stays uncompressed (%s)", mp_strerror(ro->compact_err));
		if (ro->ring_err)
			cli_error("writing the Valgrind tool's chunks into %s failed (%s): accesses are missing from "
				  "the trace",
				  ro->output, mp_strerror(ro->ring_err));
		if (ro->live_chunks)
			fprintf(stderr, "memprism: kept %llu unwritten %s of killed processes (each thread's records up "
					"to its last event)\n",
				(unsigned long long)ro->live_chunks, ro->live_chunks == 1 ? "buffer" : "buffers");
		if (ro->live_err)
			cli_error("writing what killed processes had not written into %s failed (%s)", ro->output,
				  mp_strerror(ro->live_err));
		if (ro->rank_var && named_by_rank) /* (every rank says it: the job's files) */
			fprintf(stderr, "memprism: rank %d wrote %s (%lld bytes); see every rank with `memprism report "
					"memprism.rank*.data`\n",
				ro->rank, ro->output, size);
		else
			fprintf(stderr, "memprism: wrote %s (%lld bytes); see it with `memprism report%s%s`\n",
				ro->output, size, strcmp(ro->output, "memprism.data") ? " " : "",
				strcmp(ro->output, "memprism.data") ? ro->output : "");
	}
}

/* --model: report's run on the file just written, its output on standard
 * error (PROGRAM's standard output stays its own, as perf stat's and
 * Valgrind's summaries leave it). Report's exit status. */
static int model_after(const struct mp_record_opts *ro)
{
	if (ro->stopped_waiting) {
		cli_error("not modelled: processes %s started still record into %s; model it when they have ended "
			  "(memprism report --model ... %s)",
			  ro->argv[0], ro->output, ro->output);
		return 1;
	}
	const char *argv[sizeof(run_model.args) / sizeof(run_model.args[0]) + 6] = { "report" };
	int argc = 1;
	for (size_t i = 0; i < run_model.nargs; i++)
		argv[argc++] = run_model.args[i];
	char threads[16];
	if (run_model.threads) {
		snprintf(threads, sizeof(threads), "%u", run_model.threads);
		argv[argc++] = "--model-threads";
		argv[argc++] = threads;
	}
	argv[argc++] = "--";
	argv[argc++] = ro->output;
	argv[argc] = NULL;
	cli_files_max(); /* (as for report: the program has ended) */
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		cli_error("cannot model %s: %s", ro->output, strerror(errno));
		if (saved >= 0)
			close(saved);
		return 1;
	}
	int rc = cli_cmd_report.run(argc, (char **)argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return rc;
}

static int run(int argc, char **argv)
{
	struct mp_topo topo;
	struct mp_record_opts ro = { .output = NULL }; /* (parse names it) */
	int ret = parse(argc, argv, &ro, &topo);
	if (ret >= 0)
		return ret;
	if (!env_ok(&ro))
		return 2;
	struct mp_probe probe;
	struct mp_perf_stats stats = { 0 };
	struct mp_paths paths;
	ro.probe = &probe;
	ro.stats = &stats;
	if ((ret = check_run(&ro, &probe, &paths)) >= 0)
		return ret;
	int status = -1, file_error = 0;
	ro.on_linger = cli_quiet ? NULL : say_linger;
	ro.linger_arg = &ro;
	ro.on_start = say_program;
	ro.start_arg = &ro;
	int err = mp_record_run(&ro, &paths, &status, &file_error);
	if ((ret = record_outcome(&ro, err, file_error, status)) >= 0)
		return ret;
	say_done(&ro, &stats, status);
	ret = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	if (run_model.have && model_after(&ro) && !ret)
		ret = 1;
	return ret;
}
