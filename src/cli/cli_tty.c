// SPDX-License-Identifier: MIT
/* The terminal: how wide, whether colours are welcome, progress on stderr
 * while a long analysis runs (only where a person watches: a TTY), and the
 * --quiet switch that silences notes and progress. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

int cli_quiet;
static int progress_shown;

static int dumb(void)
{
	const char *t = getenv("TERM");
	return !t || !*t || strcmp(t, "dumb") == 0;
}

unsigned cli_term_width(void)
{
	if (!isatty(STDOUT_FILENO))
		return 0; /* a file or a pipe: whole lines */
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	long n = c ? strtol(c, NULL, 10) : 0;
	return n >= 40 && n < 10000 ? (unsigned)n : 0;
}

int cli_use_color(void)
{
	return isatty(STDOUT_FILENO) && !dumb() && !getenv("NO_COLOR");
}

void cli_note(const char *fmt, ...)
{
	if (cli_quiet)
		return;
	cli_progress_end();
	va_list ap;
	va_start(ap, fmt);
	fputs("memprism: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* the current line's first call: when, and how far it was then (the
 * rate since counts only what came after) */
static struct timespec progress_start;
static uint64_t progress_done0;
static int progress_started;

static double seconds_since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

const char *cli_eta_text(char *buf, size_t cap, double elapsed, uint64_t done, uint64_t total)
{
	/* (the first second's rate is mostly start-up: symbols, first pages) */
	if (elapsed < 1.0 || !done || done >= total) {
		snprintf(buf, cap, "%s", "");
		return buf;
	}
	double left = elapsed * (double)(total - done) / (double)done;
	if (left < 90)
		snprintf(buf, cap, ", ~%.0f s left", left < 1 ? 1 : left);
	else if (left < 5400)
		snprintf(buf, cap, ", ~%.0f min left", left / 60);
	else
		snprintf(buf, cap, ", ~%.1f h left", left / 3600);
	return buf;
}

void cli_progress(void *arg, uint64_t done, uint64_t total)
{
	static struct timespec last;
	const char *what = arg;
	if (cli_quiet || !isatty(STDERR_FILENO) || !total)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!progress_started) {
		progress_start = now;
		progress_done0 = done;
		progress_started = 1;
	}
	if (progress_shown && (now.tv_sec - last.tv_sec) * 1000000000L + (now.tv_nsec - last.tv_nsec) < 200000000L)
		return;
	last = now;
	double p = 100.0 * (double)done / (double)total;
	char eta[48] = "";
	if (done >= progress_done0 && total > done)
		cli_eta_text(eta, sizeof(eta), seconds_since(&progress_start, &now), done - progress_done0,
			     total - progress_done0);
	/* (the line may get shorter: the rest of it goes) */
	fprintf(stderr, "\rmemprism: %s %3.0f%%%s\033[K", what ? what : "reading", p > 100 ? 100 : p, eta);
	progress_shown = 1;
}

void cli_progress_end(void)
{
	if (progress_shown)
		fputs("\r\033[K", stderr); /* the line goes away */
	progress_shown = 0;
	progress_started = 0;
}
