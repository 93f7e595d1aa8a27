/* SPDX-License-Identifier: MIT */
/* The memprism command line: one cmd_<name>.c per command, dispatched from
 * the table in main.c. Only this folder talks to the user. */
#ifndef MP_CLI_H
#define MP_CLI_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_cc(int argc, char **argv);
int cmd_cxx(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

/* "memprism: ..." on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Flushes stdout and reports a write error (full disk, closed pipe): 0 or 1. */
int cli_finish_stdout(void);

#endif
