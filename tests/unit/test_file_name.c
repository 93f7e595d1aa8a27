// SPDX-License-Identifier: MIT
/* A mapped file's name as it stays from run to run (an_file_name): the
 * random part of a temporary file's name masked, every other name kept. */
#include <string.h>

#include "analysis/an_int.h"
#include "check.h"

static int same(const char *path, const char *want)
{
	char out[600];
	an_file_name(out, sizeof(out), path);
	if (strcmp(out, want) != 0) {
		fprintf(stderr, "an_file_name(\"%s\") = \"%s\", not \"%s\"\n", path, out, want);
		return 0;
	}
	return 1;
}

int main(void)
{
	/* mkstemp's six, whatever they are, in a file deleted while mapped */
	CHECK(same("/work/s/arr-p1l3qq (deleted)", "/work/s/arr-XXXXXX (deleted)"));
	CHECK(same("/work/s/idx-THFZJV (deleted)", "/work/s/idx-XXXXXX (deleted)"));
	CHECK(same("/work/s/abcdef (deleted)", "/work/s/XXXXXX (deleted)"));
	/* or under a temporary directory */
	CHECK(same("/tmp/arr-Ab12cd", "/tmp/arr-XXXXXX"));
	CHECK(same("/dev/shm/seg-000123", "/dev/shm/seg-XXXXXX"));
	CHECK(same("/var/tmp/q/run4Z9xk2", "/var/tmp/q/runXXXXXX"));
	/* mkstemps: before a suffix, when they do not look like a word */
	CHECK(same("/tmp/out-a1B2c3.dat", "/tmp/out-XXXXXX.dat"));
	CHECK(same("/tmp/data.txt", "/tmp/data.txt"));
	CHECK(same("/tmp/report.txt", "/tmp/report.txt"));
	/* O_TMPFILE */
	CHECK(same("/tmp/#1234567 (deleted)", "/tmp/#N (deleted)"));
	/* names that stay: not temporary, or no six letters and digits at the end */
	CHECK(same("/home/u/data/graph-Ab12cd", "/home/u/data/graph-Ab12cd"));
	CHECK(same("/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)", "/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)"));
	CHECK(same("/tmp/a.b", "/tmp/a.b"));
	CHECK(same("/SYSV00000000", "/SYSV00000000"));
	return check_done("test_file_name");
}
