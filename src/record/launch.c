// SPDX-License-Identifier: MIT
/*
 * The launcher: creates memprism.data with its header, runs the program with
 * the runtime preloaded (LD_PRELOAD + MEMPRISM_OUT), waits, and appends the
 * run's end (exit status). The runtime inside the program and in every child
 * and exec'd image appends its own chunks to the same file.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/mp_error.h"
#include "common/varint.h"
#include "common/mp_env.h"
#include "common/mp_vgring.h"
#include "host/host.h"
#include "record/compact.h"
#include "record/live.h"
#include "record/pagemap.h"
#include "record/perf_src.h"
#include "record/record.h"
#include "record/vg_ring.h"
#include "sym/sym.h"
#include "trace/trace_format.h"
#include "trace/trace_writer.h"

/* Would exec of st's file run in secure-execution mode (AT_SECURE) for this
 * user? The kernel decides so when the exec changes the effective ids or
 * raises capabilities; set-ID bits and file capabilities do nothing on a
 * nosuid mount or under no_new_privs. */
static enum mp_secure_exec secure_exec(const char *path, const struct stat *st)
{
	struct statvfs vfs;
	if ((statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		return MP_SECURE_NONE;
	if ((st->st_mode & S_ISUID) && st->st_uid != getuid())
		return MP_SECURE_SETUID;
	if ((st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getgid())
		return MP_SECURE_SETGID;
	/* root keeps every capability anyway: no secure exec for it */
	if (getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		return MP_SECURE_CAPS;
	return MP_SECURE_NONE;
}

/* The runtime's own ELF class and machine: what a program must be built
 * for to load it. */
#if defined(__x86_64__)
#define RT_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define RT_ELF_MACHINE EM_AARCH64
#elif defined(__i386__)
#define RT_ELF_MACHINE EM_386
#endif
#define RT_ELF_CLASS (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)

/* What an ELF program of another class or machine than the runtime's is,
 * in words, into buf; "" when it is the runtime's. */
static void foreign_elf(Elf *e, char *buf, size_t cap)
{
	buf[0] = 0;
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh))
		return;
	const int cls = eh.e_ident[EI_CLASS];
#ifdef RT_ELF_MACHINE
	if (cls == (int)RT_ELF_CLASS && eh.e_machine == RT_ELF_MACHINE)
		return;
#else
	if (cls == (int)RT_ELF_CLASS)
		return;
#endif
	const char *bits = cls == ELFCLASS32 ? "32-bit " : cls == ELFCLASS64 ? "64-bit " : "";
	const char *m = eh.e_machine == EM_386	   ? "x86 (i386)"
			: eh.e_machine == EM_X86_64 ? (cls == ELFCLASS32 ? "x86-64 x32" : "x86-64")
			: eh.e_machine == EM_ARM    ? "Arm"
			: eh.e_machine == EM_AARCH64 ? "AArch64"
			: eh.e_machine == EM_RISCV  ? "RISC-V"
			: eh.e_machine == EM_PPC64  ? "POWER"
			: eh.e_machine == EM_S390   ? "s390x"
						     : NULL;
	if (m)
		snprintf(buf, cap, "a %s%s program", bits, m);
	else
		snprintf(buf, cap, "a %sprogram for ELF machine %u", bits, (unsigned)eh.e_machine);
}

int mp_program_inspect(const char *path, struct mp_program_info *info)
{
	memset(info, 0, sizeof(*info));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int err = -MP_ERR_FORMAT;
	if (!e || elf_kind(e) != ELF_K_ELF)
		goto out;
	err = 0;
	foreign_elf(e, info->foreign, sizeof(info->foreign));
	/* (Linux ignores set-ID bits on scripts: ELF files only) */
	struct stat st;
	if (fstat(fd, &st) == 0) {
		info->secure = secure_exec(path, &st);
		info->uid = st.st_uid;
		info->gid = st.st_gid;
	}
	/* no PT_INTERP: no dynamic loader, so nothing reads LD_PRELOAD */
	size_t nph = 0;
	info->is_static = 1;
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
				info->is_static = 0;
		}
	info->instrumented = sym_elf_abi(e);
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* "page_size=4096\ncpu_nodes=0,0,1,1\n": the NUMA node of each CPU, so the
 * analysis can say on which node a first touch placed a page. */
static size_t cpu_nodes_meta(char *buf, size_t cap)
{
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	size_t n = (size_t)snprintf(buf, cap, "page_size=%ld\ncpu_nodes=", sysconf(_SC_PAGESIZE));
	for (int c = 0; c < ncpus && n < cap; c++) {
		int node = -1;
		for (int k = 0; k < 1024 && node < 0; k++) {
			char path[96];
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", c, k);
			if (access(path, F_OK) == 0)
				node = k;
		}
		n += (size_t)snprintf(buf + n, cap - n, "%s%d", c ? "," : "", node < 0 ? 0 : node);
	}
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "\n");
	return n < cap ? n : cap;
}

/* Argument a as a shell reads it back, into buf (cap > 0; cut to fit, NUL
 * kept): as it is when every byte is plain, else in single quotes, or in
 * $'...' where a control byte (a newline in `sh -c` or `python3 -c`
 * text) would end the header's line. Returns the bytes written. */
static size_t quote_arg(char *buf, size_t cap, const char *a)
{
	int plain = *a != 0, ctl = 0;
	for (const unsigned char *p = (const unsigned char *)a; *p; p++) {
		ctl |= *p < 0x20 || *p == 0x7f;
		plain &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			 strchr("_@%+=:,./-", *p) != NULL;
	}
	size_t n = 0;
	/* (snprintf says how long it would have been: n stops at cap - 1) */
#define PUT(...)                                                                         \
	do {                                                                             \
		if (n + 1 < cap) {                                                       \
			size_t w_ = (size_t)snprintf(buf + n, cap - n, __VA_ARGS__);     \
			n = n + w_ < cap ? n + w_ : cap - 1;                             \
		}                                                                        \
	} while (0)
	if (plain) {
		PUT("%s", a);
		return n;
	}
	PUT("%s", ctl ? "$'" : "'");
	for (const unsigned char *p = (const unsigned char *)a; *p; p++) {
		if (!ctl && *p == '\'')
			PUT("'\\''");
		else if (!ctl)
			PUT("%c", *p);
		else if (*p == '\n')
			PUT("\\n");
		else if (*p == '\t')
			PUT("\\t");
		else if (*p == '\\' || *p == '\'')
			PUT("\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			PUT("\\x%02x", *p);
		else
			PUT("%c", *p);
	}
	PUT("'");
#undef PUT
	return n;
}

/* The header's meta text: what a report shows about the run. */
static size_t build_meta(char *buf, size_t cap, const struct mp_record_opts *o, const char *prog)
{
	char *const *argv = o->argv;
	struct utsname u;
	uname(&u);
	size_t n = (size_t)snprintf(buf, cap, "source=%s\nprogram=%s\nhost=%s\nkernel=%s %s\nmachine=%s\nclock=CLOCK_MONOTONIC\n",
				    mp_source_name(o->source), prog, u.nodename, u.sysname, u.release, u.machine);
	/* the CPU-to-node map serves first-touch placement (sampled sources)
	 * and the NUMA analysis (every source) */
	if (n < cap)
		n += cpu_nodes_meta(buf + n, cap - n);
	if (n < cap)
		n += mp_numa_meta(buf + n, cap - n, o->numa);
	if (o->min_size && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "min_size=%llu\n", o->min_size);
	if (o->rank_var && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "rank=%d\nrank_size=%d\nrank_var=%s\n", o->rank,
				      o->rank_size, o->rank_var);
	if (o->rank_var && o->rank_job && o->rank_job[0] && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "rank_job=%s\n", o->rank_job);
	/* what the sampled sources kept: readers can say children were left out */
	if ((o->source == MP_SOURCE_FAULTS || o->source == MP_SOURCE_PMU) && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "sample_children=%d\n", o->children ? 1 : 0);
	if (o->source == MP_SOURCE_PMU && o->pmu.jitter_pct && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "period_jitter=%u\n", o->pmu.jitter_pct);
	if (o->burst_on && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "sample_bursts=%llu,%llu\n", o->burst_on, o->burst_off);
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "cmdline=");
	/* (cut where the header has no room left, and " ..." says so) */
	const size_t room = cap > 8 ? cap - 6 : cap;
	for (int i = 0; argv[i] && n + 1 < room; i++) {
		if (i)
			buf[n++] = ' ';
		n += quote_arg(buf + n, room - n, argv[i]);
	}
	if (n + 1 >= room && n < cap)
		n += (size_t)snprintf(buf + n, cap - n, " ...");
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "\n");
	return n < cap ? n : cap - 1;
}

/* What lstat finds at path: 1 a regular file, 0 nothing; anything else is
 * -MP_ERR_NOT_REGULAR, with the path and its mode kept for the CLI's words. */
static int output_kind(const char *path, struct stat *st, struct mp_record_opts *o)
{
	if (lstat(path, st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st->st_mode))
		return 1;
	snprintf(o->conflict_path, sizeof(o->conflict_path), "%s", path);
	o->conflict_mode = (unsigned)st->st_mode;
	return -MP_ERR_NOT_REGULAR;
}

/*
 * The data file is only ever a new regular file. An existing regular file
 * is kept as PATH.old (replacing a regular PATH.old); a device, directory,
 * FIFO, socket or symlink at PATH or PATH.old is refused and left where it
 * is (as root, moving /dev/null aside would break the machine). The rename
 * is checked afterwards (the inode moved must be the one looked at, or it
 * goes back), and the file is created with O_EXCL | O_NOFOLLOW, so nothing
 * swapped in meanwhile is written through.
 */
static int create_output(const char *path, struct mp_record_opts *o, const char *prog)
{
	struct stat st, st_old;
	int have = output_kind(path, &st, o);
	if (have < 0)
		return have;
	if (have) {
		char old[PATH_MAX];
		if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
			return -ENAMETOOLONG;
		int e = output_kind(old, &st_old, o);
		if (e < 0)
			return e;
		if (rename(path, old) != 0)
			return -errno;
		if (lstat(old, &st_old) != 0 || st_old.st_dev != st.st_dev || st_old.st_ino != st.st_ino) {
			/* replaced between the look and the rename: put it back */
			renameat2(AT_FDCWD, old, AT_FDCWD, path, RENAME_NOREPLACE);
			return -EAGAIN;
		}
	}
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = -errno;
		/* EEXIST, ELOOP: something appeared at the path since the look */
		if ((e == -EEXIST || e == -ELOOP) && output_kind(path, &st, o) == -MP_ERR_NOT_REGULAR)
			e = -MP_ERR_NOT_REGULAR;
		return e;
	}
	char meta[8192];
	size_t ml = build_meta(meta, sizeof(meta), o, prog);
	struct mp_file_header h;
	trace_file_header_init(&h, ml, meta, now_ns(CLOCK_MONOTONIC), now_ns(CLOCK_REALTIME));
	int err = trace_write_all(fd, &h, sizeof(h));
	if (!err)
		err = trace_write_all(fd, meta, ml);
	if (err) {
		close(fd);
		unlink(path);
		return err;
	}
	return fd;
}

/* record --source valgrind: glibc's string functions without rep-prefixed
 * copies and fills (mp_record_run says why) */
#define MP_VG_TUNABLES                                                                                       \
	"glibc.cpu.x86_rep_stosb_threshold=0x7fffffffffffffff:glibc.cpu.x86_rep_movsb_threshold=0x7fffffffffffffff"

static int setenv_preload(const char *rt)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[8192];
	if (old && *old)
		snprintf(buf, sizeof(buf), "%s:%s", rt, old);
	else
		snprintf(buf, sizeof(buf), "%s", rt);
	return setenv("LD_PRELOAD", buf, 1);
}

/*
 * Signals while the program runs. Set up before the fork, undone at the end:
 * - SIGINT, SIGQUIT ignored: a terminal's ^C or ^\ goes to its whole
 *   foreground process group, so the program gets it as it would without
 *   memprism, and the launcher outlives it to write the run's end.
 * - SIGTERM and SIGHUP (unless the launcher was started with them ignored,
 *   as nohup does: the program inherits that) and SIGCHLD blocked and read
 *   from a signalfd by the wait loop, which passes TERM and HUP on to the
 *   program, waits for it to end as it chooses, and closes the trace.
 * - The child asks for SIGKILL when the launcher dies (PR_SET_PDEATHSIG):
 *   a launcher killed outright leaves no program running into a trace
 *   nobody will close.
 */
struct launch_sigs {
	struct sigaction old_int, old_quit, old_pipe;
	sigset_t old_mask, waitset;
	int fd; /* signalfd of waitset */
	int was_reaper; /* PR_GET_CHILD_SUBREAPER before */
};

static int launch_sigs_init(struct launch_sigs *ls)
{
	/* (with the signals, the launcher's other state while the program
	 * runs:) orphans of the program's tree come to the launcher, which
	 * waits for them (wait_program), so a daemon's chunks are in the file
	 * when it returns, and SIGCHLD tells of their ends too */
	ls->was_reaper = 0;
	prctl(PR_GET_CHILD_SUBREAPER, &ls->was_reaper, 0, 0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	sigemptyset(&ls->waitset);
	sigaddset(&ls->waitset, SIGCHLD);
	static const int fwd[] = { SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++) {
		struct sigaction sa;
		if (sigaction(fwd[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(&ls->waitset, fwd[i]);
	}
	/* ^C and ^\ blocked too until the child has its own dispositions back */
	sigset_t block = ls->waitset;
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &ls->old_mask);
	ls->fd = signalfd(-1, &ls->waitset, SFD_CLOEXEC | SFD_NONBLOCK);
	if (ls->fd < 0) {
		int e = -errno;
		sigprocmask(SIG_SETMASK, &ls->old_mask, NULL);
		prctl(PR_SET_CHILD_SUBREAPER, ls->was_reaper, 0, 0, 0);
		return e;
	}
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigaction(SIGINT, &ign, &ls->old_int);
	sigaction(SIGQUIT, &ign, &ls->old_quit);
	/* the go pipe's reader may be gone (a child killed early): EPIPE, not death */
	sigaction(SIGPIPE, &ign, &ls->old_pipe);
	return 0;
}

/* In the child, before exec: the caller's dispositions and mask back. */
static void launch_sigs_child(const struct launch_sigs *ls, pid_t launcher)
{
	sigaction(SIGINT, &ls->old_int, NULL);
	sigaction(SIGQUIT, &ls->old_quit, NULL);
	sigaction(SIGPIPE, &ls->old_pipe, NULL);
	/* PDEATHSIG fires when the thread that forked exits: here the
	 * launcher's only thread, which lives as long as the launcher. The
	 * kernel clears it for a set-user-ID or capability exec, and the
	 * program's own children do not inherit it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != launcher)
		_exit(127); /* the launcher died before the prctl */
	sigprocmask(SIG_SETMASK, &ls->old_mask, NULL);
}

/* In the launcher after the fork: ^C and ^\ ignored, not held. */
static void launch_sigs_parent(const struct launch_sigs *ls)
{
	sigset_t m = ls->old_mask;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&ls->waitset, sig) == 1)
			sigaddset(&m, sig);
	sigdelset(&m, SIGINT);
	sigdelset(&m, SIGQUIT);
	sigprocmask(SIG_SETMASK, &m, NULL);
}

/* The processes the launcher adopted (the program ended before them):
 * its own children. Returns how many, the first cap of them in pids. */
static unsigned adopted(pid_t *pids, unsigned cap)
{
	pid_t all[256];
	unsigned n = 0;
	mp_proc_children(getpid(), all, &n, 256);
	for (unsigned i = 0; i < n && i < cap; i++)
		pids[i] = all[i];
	return n;
}

/* Reads what arrived; TERM and HUP go on to pid when it is not reaped yet,
 * else to the processes it left running (pid 0: swallowed, the run is
 * over). Returns 1 if SIGINT came (only asked for while the launcher waits
 * for what the program left running: ^C stops that wait). */
static int launch_sigs_forward(const struct launch_sigs *ls, pid_t pid, int reaped, struct mp_record_opts *o)
{
	struct signalfd_siginfo si;
	int stop = 0;
	while (read(ls->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGINT)
			stop = 1;
		if (si.ssi_signo == SIGCHLD || si.ssi_signo == SIGINT || !pid)
			continue;
		if (reaped) {
			pid_t left[256];
			unsigned n = adopted(left, 256);
			for (unsigned i = 0; i < n && i < 256; i++)
				kill(left[i], (int)si.ssi_signo);
		} else {
			kill(pid, (int)si.ssi_signo);
		}
		o->forwarded_signal = (int)si.ssi_signo;
	}
	return stop;
}

/* The program ended and processes it started still run: ^C, ignored so
 * far (it is the program's), now stops the launcher's wait for them. */
static void launch_sigs_linger(struct launch_sigs *ls)
{
	sigaddset(&ls->waitset, SIGINT);
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGINT);
	/* (a blocked signal is never discarded as ignored: it waits for the
	 * signalfd) */
	sigprocmask(SIG_BLOCK, &m, NULL);
	signalfd(ls->fd, &ls->waitset, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void launch_sigs_restore(struct launch_sigs *ls)
{
	launch_sigs_forward(ls, 0, 0, NULL); /* after the program's end: nobody to tell */
	close(ls->fd);
	sigaction(SIGINT, &ls->old_int, NULL);
	sigaction(SIGQUIT, &ls->old_quit, NULL);
	sigaction(SIGPIPE, &ls->old_pipe, NULL);
	sigprocmask(SIG_SETMASK, &ls->old_mask, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, ls->was_reaper, 0, 0, 0);
}

/* --source valgrind: the copy of the data file with the tool's raw chunks
 * compressed (compact.h), begun; NULL if not (o->compact_err says why). */
static struct mp_compact *compact_begin(struct mp_record_opts *o)
{
	struct mp_compact *cp = NULL;
	if (o->source != MP_SOURCE_VALGRIND)
		return NULL;
	const char *lv = getenv(MP_ENV_ZSTD_LEVEL);
	o->compact_err = mp_compact_open(o->output, lv && *lv ? atoi(lv) : 1, &cp);
	return cp;
}

/* A step of the copy while the program runs: 1 if more is waiting. A
 * failed copy leaves the file raw, with what the ring put in the copy
 * appended to it. */
static int compact_more(struct mp_record_opts *o, struct mp_compact **cp, int fd)
{
	if (!*cp)
		return 0;
	int r = mp_compact_step(*cp, 32u << 20);
	if (r >= 0)
		return r;
	o->compact_err = r;
	mp_compact_abort_into(*cp, fd);
	*cp = NULL;
	return 0;
}

static int put_copy(void *arg, const uint8_t *chunk, size_t len)
{
	return mp_compact_put(arg, chunk, len);
}

static int put_file(void *arg, const uint8_t *chunk, size_t len)
{
	return trace_write_all(*(const int *)arg, chunk, len);
}

/* The chunks the Valgrind tool made ready in the ring: into the copy, or
 * (no copy, or a copy that failed) appended to the file. final: every
 * producer is gone or left alone: all of them, and the ring closed. */
static void ring_drain(struct mp_record_opts *o, struct mp_vg_ring *ring, struct mp_compact **cp, int fd, int final)
{
	if (!ring)
		return;
	uint64_t bytes = 0;
	int err = *cp ? mp_vg_ring_drain(ring, final, put_copy, *cp, &bytes) : 0;
	if (err) {
		o->compact_err = err;
		mp_compact_abort_into(*cp, fd);
		*cp = NULL;
	}
	if (!*cp && (err = mp_vg_ring_drain(ring, final, put_file, &fd, &bytes)) != 0 && !o->ring_err)
		o->ring_err = err;
}

/* The buffers of processes that are gone (all: of every process), into
 * the file (live.h); a failed write is the file's (its header marked).
 * Once a write failed (a full disk) the recording stopped there: the
 * regions are freed, nothing more appended. */
static void live_collect(struct mp_record_opts *o, struct mp_live_arena *live, int fd, int all)
{
	int err = mp_live_collect(live, live && trace_file_write_errno(fd) ? -1 : fd, all, &o->live_chunks);
	if (err && !o->live_err) {
		o->live_err = err;
		trace_file_mark_failed(fd, -err);
	}
}

/* Waits for the program, then for the processes it left running, which
 * the launcher (a child subreaper) adopted when their parents ended: the
 * run is over when it has no child left (or ^C stopped that second wait).
 * Meanwhile: passes signals on (launch_sigs), drains the sampling source's
 * rings (woken by a ring passing its watermark) and looks at the
 * program's page tables now and then: soon after it starts, so short runs
 * get a look too, then at doubling intervals up to 250 ms, and never more
 * than a 20th of the time; under Valgrind, copies the data file as it
 * grows with the tool's chunks compressed (*cp). SIGCHLD on the signalfd
 * (or the 100 ms poll) notices a process's end. */
static void wait_program(struct mp_record_opts *o, int fd, pid_t pid, int *st, struct mp_perf_session *sess,
			 struct launch_sigs *ls, struct mp_compact **cp, struct mp_vg_ring *ring,
			 struct mp_live_arena *live)
{
	struct mp_pagemap *pm = o->no_pagemap || o->pagemap_err ? NULL : mp_pagemap_new(fd, pid);
	*cp = compact_begin(o);
	int fds[1024];
	struct pollfd pfd[1025];
	int nfds = sess ? mp_perf_session_fds(sess, fds, 1024) : 0;
	for (int i = 0; i < nfds; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	pfd[nfds] = (struct pollfd){ .fd = ls->fd, .events = POLLIN };
	long interval_us = 4000;
	uint64_t next_look = 0, stop_at = 0, next_collect = 0;
	int reaped = 0, lingering = 0;
	for (;;) {
		int ws, ended = 0;
		pid_t w;
		while ((w = waitpid(-1, &ws, WNOHANG)) > 0) {
			ended = 1;
			if (w == pid) {
				*st = ws;
				reaped = 1;
			}
		}
		const int none_left = w < 0 && errno == ECHILD;
		/* what a process that ended had not written (it was killed), and
		 * the regions of processes that exited, whose parents reaped them */
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		if (ended || now >= next_collect) {
			live_collect(o, live, fd, 0);
			next_collect = now + 100000000ull;
		}
		if (none_left) {
			if (!reaped)
				*st = 0; /* the program is not our child: cannot happen */
			break;
		}
		if (reaped && !lingering) {
			/* what it left running writes on into the file: wait */
			lingering = 1;
			pid_t left[8];
			unsigned n = adopted(left, 8);
			int pids[8];
			for (unsigned i = 0; i < 8; i++)
				pids[i] = i < n ? (int)left[i] : 0;
			launch_sigs_linger(ls);
			mp_pagemap_adopted(pm);
			if (o->on_linger)
				o->on_linger(o->linger_arg, *st, n, pids);
		}
		if (stop_at && now >= stop_at) {
			/* ^C: whoever shares the terminal got it too and had a
			 * moment to end; the rest runs on (how many, if the
			 * kernel lists a process's children) */
			pid_t left[8];
			o->left_running = adopted(left, 8);
			o->stopped_waiting = 1;
			for (unsigned i = 0; i < 8; i++)
				o->left_pids[i] = i < o->left_running ? (int)left[i] : 0;
			break;
		}
		if (pm && now >= next_look) {
			int e = mp_pagemap_scan(pm);
			if (e) {
				o->pagemap_err = e;
				o->pagemap_pages = mp_pagemap_pages(pm);
				o->pagemap_scans = mp_pagemap_scans(pm);
				mp_pagemap_free(pm);
				pm = NULL;
			}
			uint64_t after = now_ns(CLOCK_MONOTONIC);
			long took_us = (long)((after - now) / 1000);
			if (interval_us < 250000)
				interval_us = interval_us * 2 < 250000 ? interval_us * 2 : 250000;
			if (interval_us < 20 * took_us)
				interval_us = 20 * took_us;
			next_look = after + (uint64_t)interval_us * 1000;
			now = after;
		}
		long wait_us = 100000;
		if (pm && next_look > now && (long)((next_look - now) / 1000) < wait_us)
			wait_us = (long)((next_look - now) / 1000);
		if (stop_at) {
			long left_us = stop_at > now ? (long)((stop_at - now) / 1000) : 0;
			wait_us = left_us < wait_us ? left_us : wait_us;
		}
		if (compact_more(o, cp, fd))
			wait_us = 0; /* (the idle core's work: a look at the rest first) */
		ring_drain(o, ring, cp, fd, 0);
		if (ring && wait_us > 5000)
			wait_us = 5000; /* (the tool fills a slot in some 30 ms) */
		/* after a write error the rings are left alone (latched, reported
		 * at close), but signals still reach the program */
		int n = poll(pfd + (sess ? 0 : nfds), (nfds_t)(sess ? nfds + 1 : 1), (int)((wait_us + 999) / 1000));
		if (n > 0 && (pfd[nfds].revents & POLLIN) && launch_sigs_forward(ls, pid, reaped, o) && !stop_at)
			stop_at = now_ns(CLOCK_MONOTONIC) + 500000000ull;
		if (n < 0 && errno != EINTR) { /* cannot happen; no busy loop if it does */
			struct timespec ts = { wait_us / 1000000, (wait_us % 1000000) * 1000 };
			nanosleep(&ts, NULL);
		}
		if (sess && mp_perf_session_drain(sess))
			sess = NULL;
	}
	ring_drain(o, ring, cp, fd, 1);
	live_collect(o, live, fd, !o->stopped_waiting);
	if (pm) {
		o->pagemap_pages = mp_pagemap_pages(pm);
		o->pagemap_scans = mp_pagemap_scans(pm);
	}
	mp_pagemap_free(pm);
}

/* Whether the page tables are looked at (the launcher's looks, and the
 * runtime's last one at exit): frames hidden from this user are known
 * before the run, so a program that ends before the first look is told
 * about as one that does not. */
static void pagemap_env(struct mp_record_opts *o)
{
	if (!o->no_pagemap && mp_host_pagemap_pfn() == 0)
		o->pagemap_err = -EPERM;
	if (o->no_pagemap || o->pagemap_err)
		unsetenv(MP_ENV_PAGEMAP);
	else
		setenv(MP_ENV_PAGEMAP, "1", 1);
}

/* The run's end after the program's: its RUN_END, the marks of a failed
 * write, and the compressed copy put in the file's place. 0 or -errno
 * (*file_error left at 1 then). */
static int end_file(struct mp_record_opts *o, int fd, pid_t pid, int st, int sample_err, struct launch_sigs *ls,
		    struct mp_compact *cp, int *file_error)
{
	int err;
	uint8_t payload[32], *p = payload, chunk[256];
	p = mp_put_uv(p, (uint64_t)(WIFEXITED(st) ? WEXITSTATUS(st) : 0x100 + WTERMSIG(st)));
	p = mp_put_uv(p, now_ns(CLOCK_MONOTONIC));
	struct mp_chunk_header h = { .type = MP_CHUNK_RUN_END, .pid = (uint32_t)pid };
	size_t n = trace_chunk_build(&h, payload, (size_t)(p - payload), chunk, NULL, 0);
	err = trace_write_all(fd, chunk, n);
	if (!err)
		err = sample_err;
	/* the launcher's own appends failing (RUN_END, samples, page tables)
	 * mark the file as the runtime's do; then whoever failed first is
	 * what the file says */
	int pe = o->pagemap_err;
	int werr = err ? err : pe == -ENOSPC || pe == -EDQUOT || pe == -EFBIG ? pe : 0;
	if (werr)
		trace_file_mark_failed(fd, -werr);
	if (cp && o->stopped_waiting) {
		/* processes of the program still append to this file: a copy
		 * put in its place would lose what they write. What the ring
		 * put in the copy goes to the file. */
		int e = mp_compact_abort_into(cp, fd);
		if (e && !o->ring_err)
			o->ring_err = e;
		cp = NULL;
		o->compact_err = -EBUSY;
	}
	o->write_errno = trace_file_write_errno(fd);
	if (close(fd) != 0 && !err)
		err = -errno;
	if (cp) { /* (a failed copy leaves the raw file: the record is whole) */
		o->compact_err = mp_compact_finish(cp, &o->raw_bytes, &o->stored_bytes);
		if (o->compact_err)
			o->raw_bytes = o->stored_bytes = 0;
	}
	launch_sigs_restore(ls);
	if (!err)
		*file_error = 0;
	return err;
}

/* The run's perf events into specs (up to 8; buf names them): the
 * sampled source's, or the inst source's CPU-time samples. How many (0:
 * none), or a negative error. */
static int run_specs(const struct mp_record_opts *o, struct mp_perf_spec *specs, char *buf, size_t len)
{
	if (o->source == MP_SOURCE_FAULTS || o->source == MP_SOURCE_PMU)
		return mp_perf_specs(o->source, o->probe, &o->pmu, specs, 8, buf, len);
	if (o->source != MP_SOURCE_INST || o->no_cpu_time)
		return 0; /* (valgrind sees every instruction: nothing to weigh) */
	mp_perf_cpu_spec(specs, MP_CPU_PERIOD_NS);
	return 1;
}

/* Opens the events on the child, which waits on go before its exec, and
 * lets it go on (closing go). The CPU-time samples are extra to the run:
 * perf refusing them (perf_event_paranoid, a container) leaves the run
 * without them and o->cpu_time_err saying why, never stops it; and they
 * keep the children's samples, whose objects the runtime records too.
 * 0, or the sampled source's error (the child not let go). */
static int start_session(struct mp_record_opts *o, pid_t pid, const struct mp_perf_spec *specs, int nspecs, int fd,
			 int go, struct mp_perf_session **sess)
{
	const int cpu = specs[0].kind == MP_SK_CPU_TIME;
	/* (CPU time: a sample of 48 bytes a ms of a thread's time; 32 pages
	 * hold seconds of it between the launcher's drains) */
	const struct mp_perf_session_opts so = { .ring_pages = o->ring_pages ? o->ring_pages : cpu ? 32 : 128,
						 .children = cpu || o->children,
						 .jitter_pct = cpu ? 0 : o->pmu.jitter_pct };
	int err = mp_perf_session_open(pid, specs, nspecs, &so, fd, sess);
	if (err && cpu) {
		o->cpu_time_err = err;
		*sess = NULL;
		err = 0;
	}
	if (!err && write(go, "g", 1) != 1)
		err = -errno;
	close(go);
	return err;
}

/* --source valgrind: the program runs under memprism's Valgrind tool,
 * which records the accesses (the runtime, told so, records none);
 * LD_PRELOAD passes through Valgrind to the program. The tool hands its
 * chunks over through a ring (vg_ring.h) unless MEMPRISM_VG_RING is 0 or
 * the ring cannot be made: then it appends them to the file itself. */
static int vg_prepare(struct mp_record_opts *o, const char *prog, char ***vg_argv, struct mp_vg_ring **ring)
{
	const char *rs = getenv(MP_ENV_VG_RING);
	long slots = rs && *rs ? strtol(rs, NULL, 10) : MP_VGRING_SLOTS;
	*ring = NULL;
	if (slots > 0 && mp_vg_ring_open(slots < MP_VGRING_MAX_SLOTS ? (unsigned)slots : MP_VGRING_MAX_SLOTS, ring))
		*ring = NULL;
	*vg_argv = mp_vg_argv(&o->probe->vg, prog, o->argv, *ring ? mp_vg_ring_path(*ring) : NULL);
	if (!*vg_argv) {
		mp_vg_ring_close(*ring);
		return -ENOMEM;
	}
	setenv(MP_ENV_SOURCE, "valgrind", 1);
	setenv("VALGRIND_LIB", o->probe->vg.tooldir, 1);
	/* glibc's memset and memcpy use rep stosb / rep movsb above a few
	 * KiB; Valgrind runs those one byte an iteration, through the tool's
	 * helper each time (a 64 MiB memset took a second). Told never to,
	 * they use their vector loops: the same bytes, 32 a store. The
	 * program's own settings come after, and win. */
	const char *tun = getenv("GLIBC_TUNABLES");
	char tb[8192];
	snprintf(tb, sizeof(tb), "%s%s%s", MP_VG_TUNABLES, tun && *tun ? ":" : "", tun ? tun : "");
	setenv("GLIBC_TUNABLES", tb, 1);
	return 0;
}

/* The runtime's settings, in the environment the program inherits (so
 * do its children and exec'd images). */
static void runtime_env(const struct mp_record_opts *o, const char *abs_out)
{
	setenv(MP_ENV_OUT, abs_out, 1);
	if (o->stack_depth > 0) {
		char d[16];
		snprintf(d, sizeof(d), "%d", o->stack_depth);
		setenv(MP_ENV_STACK_DEPTH, d, 1);
	}
	if (o->min_size) {
		char b[32];
		snprintf(b, sizeof(b), "%llu", o->min_size);
		setenv(MP_ENV_MIN_SIZE, b, 1);
	} else {
		unsetenv(MP_ENV_MIN_SIZE);
	}
	if (o->burst_on) {
		char b[64];
		snprintf(b, sizeof(b), "%llu,%llu", o->burst_on, o->burst_off);
		setenv(MP_ENV_SAMPLE_BURSTS, b, 1);
	} else {
		unsetenv(MP_ENV_SAMPLE_BURSTS);
	}
	if (o->numa) /* the runtime maps the program's CPUs and nodes onto the host's */
		setenv(MP_ENV_NUMA, o->numa, 1);
	else
		unsetenv(MP_ENV_NUMA);
}

static int record_run(struct mp_record_opts *o, const struct mp_paths *paths, int *status, int *file_error,
		      struct mp_live_arena *live)
{
	char prog[PATH_MAX], abs_out[PATH_MAX];
	*file_error = 0;
	int err = mp_find_program(o->argv[0], prog, sizeof(prog));
	if (err)
		return err;
	*file_error = 1;
	int fd = create_output(o->output, o, prog);
	if (fd < 0)
		return fd;
	if (!realpath(o->output, abs_out)) {
		err = -errno;
		close(fd);
		return err;
	}
	*file_error = 0;
	if (o->on_start)
		o->on_start(o->start_arg);
	runtime_env(o, abs_out);
	pagemap_env(o);
	int sampled = o->source == MP_SOURCE_FAULTS || o->source == MP_SOURCE_PMU;
	if (sampled)
		setenv(MP_ENV_EXACT_TIMES, "1", 1);
	else
		unsetenv(MP_ENV_EXACT_TIMES);
	setenv_preload(paths->runtime);
	/* --source valgrind: the program runs under memprism's Valgrind tool,
	 * which records the accesses (the runtime, told so, records none);
	 * LD_PRELOAD passes through Valgrind to the program */
	char **vg_argv = NULL;
	struct mp_vg_ring *ring = NULL;
	if (o->source == MP_SOURCE_VALGRIND) {
		if ((err = vg_prepare(o, prog, &vg_argv, &ring)) != 0) {
			close(fd);
			return err;
		}
	} else {
		unsetenv(MP_ENV_SOURCE);
	}

	/* Sampling sources, and the inst source's CPU time: the events are
	 * opened on the child before it execs (it waits on go[0]);
	 * enable_on_exec starts them with the program. */
	struct mp_perf_spec specs[8];
	char spec_buf[2048];
	int nspecs = run_specs(o, specs, spec_buf, sizeof(spec_buf));
	if (nspecs < 0) {
		free(vg_argv);
		mp_vg_ring_close(ring);
		close(fd);
		unlink(o->output);
		*file_error = 2;
		return nspecs;
	}
	int pipefd[2], go[2] = { -1, -1 }, sample_err = 0;
	if (pipe2(pipefd, O_CLOEXEC) != 0 || (nspecs && pipe2(go, O_CLOEXEC) != 0)) {
		err = -errno;
		free(vg_argv);
		mp_vg_ring_close(ring);
		close(fd);
		return err;
	}
	struct launch_sigs ls;
	if ((err = launch_sigs_init(&ls)) != 0) {
		free(vg_argv);
		mp_vg_ring_close(ring);
		close(fd);
		return err;
	}
	pid_t launcher = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		err = -errno;
		free(vg_argv);
		mp_vg_ring_close(ring);
		launch_sigs_restore(&ls);
		close(fd);
		return err;
	}
	if (pid == 0) {
		launch_sigs_child(&ls, launcher);
		close(pipefd[0]);
		if (nspecs) {
			char c;
			close(go[1]);
			/* one byte: events are open; EOF: the launcher gave up */
			if (read(go[0], &c, 1) != 1)
				_exit(127);
		}
		if (vg_argv)
			execv(vg_argv[0], vg_argv);
		else
			execv(prog, o->argv);
		int e = errno;
		ssize_t w = write(pipefd[1], &e, sizeof(e));
		(void)w;
		_exit(127);
	}
	launch_sigs_parent(&ls);
	free(vg_argv);
	close(pipefd[1]);
	struct mp_perf_session *sess = NULL;
	if (nspecs) {
		close(go[0]);
		if ((err = start_session(o, pid, specs, nspecs, fd, go[1], &sess)) != 0) {
			int st;
			mp_perf_session_close(sess, NULL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			close(pipefd[0]);
			close(fd);
			unlink(o->output);
			launch_sigs_restore(&ls);
			*file_error = 2;
			return err;
		}
	}
	int exec_errno = 0;
	ssize_t r;
	do
		r = read(pipefd[0], &exec_errno, sizeof(exec_errno));
	while (r < 0 && errno == EINTR);
	close(pipefd[0]);
	int st = 0;
	struct mp_compact *cp;
	wait_program(o, fd, pid, &st, sess, &ls, &cp, ring, live);
	if (sess)
		sample_err = mp_perf_session_close(sess, o->stats);
	unsetenv(MP_ENV_OUT);
	if (r == (ssize_t)sizeof(exec_errno) && exec_errno) {
		mp_compact_abort(cp);
		mp_vg_ring_close(ring);
		launch_sigs_restore(&ls);
		close(fd);
		return -exec_errno;
	}
	*status = st;
	*file_error = 1;
	err = end_file(o, fd, pid, st, sample_err, &ls, cp, file_error);
	mp_vg_ring_close(ring);
	return err;
}

int mp_record_run(struct mp_record_opts *o, const struct mp_paths *paths, int *status, int *file_error)
{
	/* the threads' buffers in memory shared with the runtime: what a
	 * process killed before it wrote them is appended (live.h). Without
	 * it (no memfd) they are private, as they were. */
	struct mp_live_arena *live = NULL;
	if (mp_live_open(&live) == 0)
		setenv(MP_ENV_LIVE, mp_live_path(live), 1);
	else
		unsetenv(MP_ENV_LIVE);
	int err = record_run(o, paths, status, file_error, live);
	unsetenv(MP_ENV_LIVE);
	mp_live_close(live);
	return err;
}
