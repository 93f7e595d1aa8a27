// SPDX-License-Identifier: MIT
/*
 * Option tables (cli_opt.h): getopt_long's arrays, the help page and the
 * option list generated from a command's table, the messages for options
 * that are wrong, and the one vocabulary of --by and --format.
 */
#include <ctype.h>
#include <string.h>

#include "cli/cli.h"

const struct cli_opt cli_opts_help[] = {
	CLI_OPT("help", 'h', NULL, "this help"),
	CLI_END,
};

const struct cli_opt cli_opts_quiet_help[] = {
	CLI_OPT("quiet", 'q', NULL, "no notes and no progress on stderr (errors still)"),
	CLI_TABLE(cli_opts_help),
	CLI_END,
};

int cli_opt_is_end(const struct cli_opt *o)
{
	return !o->name && !o->help && !o->table;
}

int cli_opt_short_key(int key)
{
	return key > 0 && key < 0x80 && isalnum(key);
}

static void collect(struct cli_parse *p, const struct cli_opt *t, size_t *n, size_t *ns)
{
	for (; !cli_opt_is_end(t); t++) {
		if (t->table) {
			collect(p, t->table, n, ns);
			continue;
		}
		if (!t->name)
			continue;
		size_t i = 0;
		while (i < *n && strcmp(p->longopts[i].name, t->name))
			i++;
		if (i == *n && *n < CLI_MAX_OPTS)
			p->longopts[(*n)++] = (struct option){ t->name, t->arg ? required_argument : no_argument, NULL,
							       t->key };
		if (cli_opt_short_key(t->key) && !strchr(p->shortopts, t->key) && *ns + 3 < sizeof(p->shortopts)) {
			p->shortopts[(*ns)++] = (char)t->key;
			if (t->arg)
				p->shortopts[(*ns)++] = ':';
			p->shortopts[*ns] = 0;
		}
	}
}

void cli_parse_init(struct cli_parse *p, const struct cli_cmd *cmd, int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	size_t n = 0, ns = 0;
	/* '+': options end at the first operand; ':': a missing argument is
	 * told apart from an unknown option */
	if (cmd->stop_at_operand)
		p->shortopts[ns++] = '+';
	p->shortopts[ns++] = ':';
	if (cmd->opts)
		collect(p, cmd->opts, &n, &ns);
	optind = 1;
	opterr = 0; /* (the messages below say it the same way for every command) */
}

/* The row of key, for what its argument is called. */
static const struct cli_opt *row_of(const struct cli_opt *t, int key)
{
	for (; t && !cli_opt_is_end(t); t++) {
		const struct cli_opt *r = t->table ? row_of(t->table, key) : t->name && t->key == key ? t : NULL;
		if (r)
			return r;
	}
	return NULL;
}

/* --NAME[=...] as given: the long options it names, whole or as a prefix. */
static size_t long_matches(const struct cli_parse *p, const char *text, const struct option **match)
{
	size_t len = strcspn(text + 2, "="), n = 0;
	*match = NULL;
	for (const struct option *o = p->longopts; o->name; o++) {
		if (strncmp(o->name, text + 2, len))
			continue;
		if (strlen(o->name) == len) { /* whole: the one meant */
			*match = o;
			return 1;
		}
		if (!n++)
			*match = o;
	}
	return n;
}

static int bad_option(struct cli_parse *p, int c)
{
	const char *cmd = p->cmd->name, *text = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";
	const struct option *lo = NULL;
	int is_long = !strncmp(text, "--", 2) && text[2];
	size_t nmatch = is_long ? long_matches(p, text, &lo) : 0;
	if (is_long && optopt && (!lo || lo->val != optopt))
		is_long = 0; /* (a short option's error, after a long option with its argument) */
	p->status = 2;
	if (c == ':') {
		const struct cli_opt *r = row_of(p->cmd->opts, optopt);
		if (r && is_long)
			cli_error("%s: --%s wants an argument: %s", cmd, r->name, r->arg);
		else if (r)
			cli_error("%s: -%c (--%s) wants an argument: %s", cmd, optopt, r->name, r->arg);
		else
			cli_error("%s: %s wants an argument", cmd, text);
		return CLI_EXIT;
	}
	if (!is_long) {
		cli_error("%s: unknown option '-%c' (`memprism %s --help` lists the options)", cmd, optopt, cmd);
		return CLI_EXIT;
	}
	if (nmatch == 1 && lo && strchr(text, '=')) {
		cli_error("%s: --%s takes no argument (got '%s')", cmd, lo->name, text);
		return CLI_EXIT;
	}
	if (nmatch > 1) {
		char list[512];
		size_t at = 0, len = strcspn(text + 2, "=");
		list[0] = 0;
		for (const struct option *o = p->longopts; o->name && at < sizeof(list); o++)
			if (!strncmp(o->name, text + 2, len))
				at += (size_t)snprintf(list + at, sizeof(list) - at, "%s--%s", at ? ", " : "", o->name);
		cli_error("%s: '%.*s' is ambiguous: it starts %s", cmd, (int)(len + 2), text, list);
		return CLI_EXIT;
	}
	cli_error("%s: unknown option '%.*s' (`memprism %s --help` lists the options)", cmd,
		  (int)(2 + strcspn(text + 2, "=")), text, cmd);
	return CLI_EXIT;
}

int cli_parse_next(struct cli_parse *p)
{
	for (;;) {
		int c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts, NULL);
		if (c == 'h') {
			cli_help(stdout, p->cmd);
			p->status = cli_finish_stdout();
			return CLI_EXIT;
		}
		if (c == 'q') {
			cli_quiet = 1;
			continue;
		}
		if (c == 'j') { /* (the merge's: cli_merge.c) */
			if (cli_parse_jobs(optarg)) {
				p->status = 2;
				return CLI_EXIT;
			}
			continue;
		}
		if (c == '?' || c == ':')
			return bad_option(p, c);
		return c;
	}
}

/* The rows of t, options in two columns: "  -b, --by VIEW" and the help
 * from column col on (on the next line when the option is wider). */
static void print_rows(FILE *out, const struct cli_opt *t, unsigned col)
{
	for (; !cli_opt_is_end(t); t++) {
		if (t->table) {
			print_rows(out, t->table, col);
			continue;
		}
		if (!t->name) {
			fprintf(out, "%s\n", t->help);
			continue;
		}
		int n = cli_opt_short_key(t->key) ? fprintf(out, "  -%c, --%s", t->key, t->name) : fprintf(out, "      --%s", t->name);
		if (t->arg)
			n += fprintf(out, " %s", t->arg);
		if (n + 1 > (int)col) {
			fputc('\n', out);
			n = 0;
		}
		fprintf(out, "%*s", (int)col - n, "");
		for (const char *h = t->help; *h; h++) {
			fputc(*h, out);
			if (*h == '\n')
				fprintf(out, "%*s", (int)col, "");
		}
		if (t->help_more)
			t->help_more(out);
		fputc('\n', out);
	}
}

void cli_help(FILE *out, const struct cli_cmd *cmd)
{
	fprintf(out, "usage: memprism %s %s\n\n%s", cmd->name, cmd->usage, cmd->about);
	if (cmd->opts) {
		fprintf(out, "\noptions:\n");
		print_rows(out, cmd->opts, cmd->column ? cmd->column : 27);
	}
	if (!cmd->examples)
		return;
	fprintf(out, "\nexamples:\n");
	for (const struct cli_example *e = cmd->examples; e->line; e++) {
		fprintf(out, "  %s\n      ", e->line);
		for (const char *w = e->what; *w; w++) {
			fputc(*w, out);
			if (*w == '\n')
				fputs("      ", out);
		}
		fputc('\n', out);
	}
}

void cli_list_opts(FILE *out, const struct cli_cmd *cmd)
{
	struct cli_parse p;
	cli_parse_init(&p, cmd, 0, NULL);
	for (const struct option *o = p.longopts; o->name; o++)
		fprintf(out, "--%s%s\n", o->name, o->has_arg ? "=" : "");
}

void cli_list_shorts(FILE *out, const struct cli_cmd *cmd)
{
	struct cli_parse p;
	cli_parse_init(&p, cmd, 0, NULL);
	for (const struct option *o = p.longopts; o->name; o++)
		if (cli_opt_short_key(o->val))
			fprintf(out, "-%c --%s%s\n", o->val, o->name, o->has_arg ? "=" : "");
}

/* --- --by and --format ------------------------------------------------- */

static const char *const views[] = { "object", "site",   "kind",     "thread", "function",
				     "page",   "matrix", "timeline", "finding", "rank", "process", "line" };
static const char *const formats[] = { "text", "csv", "json", "html", "bin" };

/* "a, b or c" of the names in mask, into buf. */
static const char *names_of(char *buf, size_t cap, const char *const *names, size_t n, unsigned mask, const char *last)
{
	size_t at = 0, left = 0;
	for (size_t i = 0; i < n; i++)
		left += (mask >> i) & 1;
	buf[0] = 0;
	for (size_t i = 0; i < n && at < cap; i++)
		if ((mask >> i) & 1) {
			left--;
			at += (size_t)snprintf(buf + at, cap - at, "%s%s", at ? (left ? ", " : last) : "", names[i]);
		}
	return buf;
}

int cli_parse_by(const char *cmd, const char *arg, unsigned mask, enum cli_view *out)
{
	size_t len = strlen(arg);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		size_t vl = strlen(views[i]);
		/* the plural is the same view ("sites") */
		if (((mask >> i) & 1) && !strncmp(arg, views[i], vl) && (len == vl || (len == vl + 1 && arg[vl] == 's'))) {
			*out = (enum cli_view)i;
			return 0;
		}
	}
	char list[256];
	cli_error("%s: --by wants %s (got '%s')", cmd, names_of(list, sizeof(list), views, sizeof(views) / sizeof(views[0]), mask, " or "), arg);
	return 2;
}

int cli_parse_format(const char *cmd, const char *arg, unsigned mask, enum cli_format *out)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (((mask >> i) & 1) && !strcmp(arg, formats[i])) {
			*out = (enum cli_format)i;
			return 0;
		}
	char list[128];
	cli_error("%s: --format wants %s (got '%s')", cmd, names_of(list, sizeof(list), formats, 5, mask, " or "), arg);
	return 2;
}

/* --- the words an argument may be (completion) ---------------------------- */

static void print_masked(FILE *out, const char *const *names, size_t n, unsigned mask)
{
	for (size_t i = 0; i < n; i++)
		if ((mask >> i) & 1)
			fprintf(out, "%s\n", names[i]);
}

void cli_list_values(FILE *out, const struct cli_cmd *cmd, const char *opt)
{
	/* (options of one name mean the same in every command: --threads and
	 * --page-policy are numa's, --source record's) */
	static const struct {
		const char *opt;
		const char *words;
	} fixed[] = {
		{ "source", "inst faults pmu valgrind" },
		{ "thread-map", "recorded spread" },
		{ "threads", "spread compact recorded" },
		{ "pages", "4K 2M 1G" },
		{ "page-size", "4K 2M 1G" },
		{ "page-policy", "first-touch interleave bind:" },
	};
	if (!strcmp(opt, "by")) {
		print_masked(out, views, sizeof(views) / sizeof(views[0]), cmd->views);
		return;
	}
	if (!strcmp(opt, "format")) {
		print_masked(out, formats, sizeof(formats) / sizeof(formats[0]), cmd->formats);
		return;
	}
	if (!strcmp(opt, "model") || !strcmp(opt, "vs-model")) {
		fprintf(out, "host\n");
		for (const char *const *p = mp_machine_presets(); *p; p++)
			fprintf(out, "%s\n", *p);
		return;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(opt, fixed[i].opt))
			for (const char *w = fixed[i].words; *w;) {
				size_t len = strcspn(w, " ");
				fprintf(out, "%.*s\n", (int)len, w);
				w += len + (w[len] == ' ');
			}
}
