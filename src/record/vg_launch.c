// SPDX-License-Identifier: MIT
/*
 * record --source valgrind, on the launcher's side: finding Valgrind and
 * memprism's Valgrind tool (src/vgtool, built against the valgrind
 * package into lib/memprism/valgrind), the probe's verdict `memprism
 * doctor` and `record` share, a trial run for the doctor, and the command
 * line the launcher runs: `valgrind --tool=memprism -q --trace-children=yes
 * PROGRAM ARGS` with VALGRIND_LIB naming the tool's directory. The user
 * never writes it. Library code: prints nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/mp_env.h"
#include "mp_config.h"
#include "record/record.h"

extern char **environ;

/* Runs argv (env: extra "NAME=value" entries on top of ours, NULL-ended),
 * its stdout and stderr into out (NUL-terminated, cut at len), killed after
 * timeout_ms. Returns its wait status, or -errno. */
static int run_capture(char *const argv[], char *const env_add[], char *out, size_t len, int timeout_ms)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -errno;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	while (env_add && env_add[k])
		k++;
	char **env = calloc(n + k + 1, sizeof(*env));
	if (!env) {
		posix_spawn_file_actions_destroy(&fa);
		close(pfd[0]);
		close(pfd[1]);
		return -ENOMEM;
	}
	size_t m = 0;
	for (size_t i = 0; i < k; i++)
		env[m++] = env_add[i];
	for (size_t i = 0; i < n; i++) {
		/* (the added ones replace ours of the same name) */
		int dup = 0;
		for (size_t j = 0; j < k && !dup; j++) {
			const char *eq = strchr(env_add[j], '=');
			size_t nl = eq ? (size_t)(eq - env_add[j]) + 1 : 0;
			dup = nl && strncmp(environ[i], env_add[j], nl) == 0;
		}
		/* the runtime is not for this run */
		if (!dup && strncmp(environ[i], "LD_PRELOAD=", 11) != 0 && strncmp(environ[i], MP_ENV_OUT "=", sizeof(MP_ENV_OUT)) != 0)
			env[m++] = environ[i];
	}
	pid_t pid;
	int err = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(pfd[1]);
	if (err) {
		close(pfd[0]);
		return -err;
	}
	size_t got = 0;
	/* (waits in poll, not in fixed sleeps: `valgrind --version` is done
	 * in a few milliseconds, and record waits for it before the program
	 * starts) */
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		char sink[256];
		ssize_t r = got + 1 < len ? read(pfd[0], out + got, len - 1 - got) : read(pfd[0], sink, sizeof(sink));
		if (r > 0) {
			if (got + 1 < len)
				got += (size_t)r; /* (when full: drained and dropped) */
			continue;
		}
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			break;
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long waited = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (waited >= timeout_ms) {
			kill(pid, SIGKILL);
			break;
		}
		struct pollfd pf = { pfd[0], POLLIN, 0 };
		poll(&pf, 1, (int)(timeout_ms - waited));
	}
	close(pfd[0]);
	out[got < len ? got : len - 1] = 0;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return st;
}

void mp_vg_probe(struct mp_vg_probe *v)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->built_for, sizeof(v->built_for), "%s", MP_VALGRIND_VERSION);
	struct mp_paths paths;
	if (MP_VALGRIND_VERSION[0] && mp_paths_find(&paths) == 0) {
		char tool[4200];
		snprintf(tool, sizeof(tool), "%s/%s", paths.vgtool, MP_VALGRIND_TOOL);
		if (access(tool, X_OK) == 0)
			snprintf(v->tooldir, sizeof(v->tooldir), "%s", paths.vgtool);
	}
	if (mp_find_program("valgrind", v->valgrind, sizeof(v->valgrind)) != 0) {
		v->valgrind[0] = 0;
		return;
	}
	char *const argv[] = { v->valgrind, "--version", NULL };
	char out[256];
	if (run_capture(argv, NULL, out, sizeof(out), 5000) >= 0) {
		out[strcspn(out, "\n")] = 0;
		snprintf(v->version, sizeof(v->version), "%.63s", out);
	}
}

/* "valgrind-3.19.0" -> "3.19.0" */
static const char *bare_version(const char *v)
{
	return strncmp(v, "valgrind-", 9) == 0 ? v + 9 : v;
}

int mp_vg_verdict(const struct mp_vg_probe *v, char *why, size_t why_len, char *next, size_t next_len)
{
	if (!v->built_for[0]) {
		snprintf(why, why_len, "memprism was built without its Valgrind tool (the valgrind package was "
				       "missing, or -DMEMPRISM_VALGRIND=OFF)");
		snprintf(next, next_len, "apt-get install valgrind, then rebuild memprism; meanwhile use --source inst "
					 "with a `memprism cc` build");
		return 0;
	}
	if (!v->valgrind[0]) {
		snprintf(why, why_len, "valgrind is not installed (not on PATH)");
		snprintf(next, next_len, "apt-get install valgrind");
		return 0;
	}
	if (!v->tooldir[0]) {
		snprintf(why, why_len, "memprism's Valgrind tool (%s) is missing beside the runtime, in "
				       "lib/memprism/valgrind",
			 MP_VALGRIND_TOOL);
		snprintf(next, next_len, "reinstall memprism (cmake --install), or rebuild it");
		return 0;
	}
	if (v->version[0] && strcmp(bare_version(v->version), v->built_for) != 0) {
		snprintf(why, why_len, "memprism's Valgrind tool was built against Valgrind %s, but %s is %s: the "
				       "tool carries its own core, and the core's preload from the installed one "
				       "must match it",
			 v->built_for, v->valgrind, v->version);
		snprintf(next, next_len, "rebuild memprism against the installed valgrind package");
		return 0;
	}
	snprintf(why, why_len, "%s with memprism's tool: every load and store of any dynamically linked program "
			       "and all its libraries, threads run one at a time (slow: tens of times native)",
		 v->version[0] ? v->version : v->valgrind);
	snprintf(next, next_len, "memprism record --source valgrind -- ./app (any binary, no rebuild)");
	return 1;
}

int mp_vg_trial(const struct mp_vg_probe *v, char *out, size_t len)
{
	char lib[4200];
	snprintf(lib, sizeof(lib), "VALGRIND_LIB=%s", v->tooldir);
	char *const env[] = { lib, NULL };
	char *const argv[] = { (char *)v->valgrind, "--tool=memprism", "-q", "/bin/true", NULL };
	int st = run_capture(argv, env, out, len, 60000);
	if (st < 0)
		return st;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

char **mp_vg_argv(const struct mp_vg_probe *v, const char *prog, char *const *argv, const char *ring)
{
	size_t n = 0;
	while (argv[n])
		n++;
	/* (one allocation: the ring's option lies after the vector) */
	static const char opt[] = "--memprism-ring=";
	size_t olen = ring ? sizeof(opt) + strlen(ring) : 0;
	char **a = calloc(1, (n + 7) * sizeof(*a) + olen);
	if (!a)
		return NULL;
	char *ring_opt = NULL;
	if (ring) {
		ring_opt = (char *)(a + n + 7);
		snprintf(ring_opt, olen, "%s%s", opt, ring);
	}
	size_t k = 0;
	a[k++] = (char *)v->valgrind;
	a[k++] = "--tool=memprism";
	a[k++] = "-q"; /* the program's output, not Valgrind's banner */
	a[k++] = "--trace-children=yes"; /* fork children and exec'd images, as the runtime records them */
	if (ring_opt)
		a[k++] = ring_opt; /* (the tool's own option: every child's Valgrind gets it too) */
	a[k++] = (char *)prog;
	for (size_t i = 1; i < n; i++)
		a[k++] = argv[i];
	a[k] = NULL;
	return a;
}
