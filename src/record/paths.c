// SPDX-License-Identifier: MIT
/* Locating memprism's runtime and header, and programs on PATH. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mp_env.h"
#include "common/mp_error.h"
#include "mp_config.h"
#include "record/record.h"

int mp_paths_find(struct mp_paths *out)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0; /* .../bin */
	const char *env = getenv(MP_ENV_RUNTIME);
	if (env && *env) {
		snprintf(out->runtime, sizeof(out->runtime), "%s", env);
	} else {
		snprintf(out->runtime, sizeof(out->runtime), "%.3000s/../%s/memprism/%s", exe, MP_INSTALL_LIBDIR,
			 MP_RT_NAME);
		if (access(out->runtime, R_OK) != 0)
			snprintf(out->runtime, sizeof(out->runtime), "%.3000s/../lib/memprism/%s", exe, MP_RT_NAME);
	}
	char real[PATH_MAX];
	if (!realpath(out->runtime, real) || access(real, R_OK) != 0)
		return -MP_ERR_NO_RUNTIME;
	snprintf(out->runtime, sizeof(out->runtime), "%s", real);
	snprintf(out->libdir, sizeof(out->libdir), "%s", real);
	slash = strrchr(out->libdir, '/');
	if (slash)
		*slash = 0;
	snprintf(out->vgtool, sizeof(out->vgtool), "%.4000s/valgrind", out->libdir);
	char hdr[4200];
	snprintf(hdr, sizeof(hdr), "%.3000s/../include/memprism.h", exe);
	if (access(hdr, R_OK) == 0 && realpath(hdr, real)) {
		slash = strrchr(real, '/');
		*slash = 0;
		snprintf(out->include, sizeof(out->include), "%s", real);
	} else {
		snprintf(out->include, sizeof(out->include), "%s", MP_SOURCE_INCLUDE_DIR);
	}
	return 0;
}

static int usable(const char *path)
{
	if (access(path, X_OK) == 0)
		return 0;
	return -errno;
}

int mp_find_program(const char *name, char *out, size_t len)
{
	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if ((size_t)snprintf(out, len, "%s", name) >= len)
			return -ENAMETOOLONG;
		return usable(out);
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int err = -ENOENT;
	while (*path) {
		const char *c = strchr(path, ':');
		size_t dl = c ? (size_t)(c - path) : strlen(path);
		if ((size_t)snprintf(out, len, "%.*s%s%s", (int)dl, path, dl ? "/" : "", name) < len) {
			int e = usable(out);
			if (e == 0)
				return 0;
			if (e == -EACCES)
				err = e;
		}
		path += dl + (c ? 1 : 0);
		if (!c)
			break;
	}
	return err;
}
