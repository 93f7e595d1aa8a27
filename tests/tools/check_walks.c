// SPDX-License-Identifier: MIT
/*
 * The page-walk what-ifs of a data file made both ways: from the model
 * run's logged translations (an_opts.log_translations,
 * an_result_check_walks) and by a replay of the trace with the checks
 * (an_opts.walk_checks), which must agree exactly. The CLI tests run it on
 * recordings of several processes, regions and page sizes.
 *
 *   check_walks FILE MACHINE [-j JOBS] [-r REGION] [-p PATTERN=SHIFT]... PATTERN=SHIFT...
 *
 * MACHINE is a preset or a machine file; -p adds a --pages rule to the run; each check is a
 * pattern and a page shift (12, 21, 30). Prints "PATTERN LOG REPLAY" per
 * check; exits 0 if every pair agrees, 1 if one does not, 2 on an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "common/mp_error.h"
#include "model/machine.h"

#define MAX_RULES 16

static int rule_of(char *arg, struct an_page_rule *r)
{
	char *eq = strrchr(arg, '=');
	if (!eq)
		return -1;
	*eq = 0;
	r->pattern = arg;
	r->shift = (unsigned)atoi(eq + 1);
	return 0;
}

/* A preset's machine, or a machine file's (memprism's --model takes both). */
static int machine_of(const char *spec, struct mp_machine *m)
{
	static char text[65536], why[256] = "";
	if (!mp_machine_preset(spec, m))
		return 0;
	FILE *f = fopen(spec, "r");
	if (f) {
		text[fread(text, 1, sizeof(text) - 1, f)] = 0;
		fclose(f);
		if (!mp_machine_parse(text, spec, m, why, sizeof(why)))
			return 0;
	}
	fprintf(stderr, "check_walks: no machine %s %s\n", spec, why);
	return -1;
}

int main(int argc, char **argv)
{
	struct an_opts o = { 0 };
	struct an_page_rule pages[MAX_RULES], checks[MAX_RULES];
	size_t npages = 0, n = 0;
	int c;
	while ((c = getopt(argc, argv, "j:r:p:")) != -1) {
		if (c == 'j')
			o.jobs = (unsigned)atoi(optarg);
		else if (c == 'r')
			o.roi = optarg;
		else if (c == 'p' && npages < MAX_RULES && !rule_of(optarg, &pages[npages]))
			npages++;
		else
			return 2;
	}
	if (argc - optind < 3)
		return 2;
	const char *path = argv[optind];
	static struct mp_machine m;
	if (machine_of(argv[optind + 1], &m))
		return 2;
	for (int i = optind + 2; i < argc && n < MAX_RULES; i++)
		if (rule_of(argv[i], &checks[n++]))
			return 2;
	o.machine = &m;
	o.page_rules = pages;
	o.npage_rules = npages;
	o.log_translations = 1;
	struct an_result *logged = NULL, *replayed = NULL;
	uint64_t walks[MAX_RULES];
	int err = an_run(path, &o, &logged);
	if (!err)
		err = an_result_check_walks(logged, &m, checks, n, o.jobs, walks);
	if (err) {
		fprintf(stderr, "check_walks: %s: from the log: %s\n", path, mp_strerror(err));
		return 2;
	}
	struct an_opts r = o;
	r.log_translations = 0;
	r.walks_only = 1;
	r.walk_checks = checks;
	r.nwalk_checks = n;
	if ((err = an_run(path, &r, &replayed)) || !replayed->check_walks) {
		fprintf(stderr, "check_walks: %s: by a replay: %s\n", path, err ? mp_strerror(err) : "no checks");
		return 2;
	}
	int same = 1;
	for (size_t i = 0; i < n; i++) {
		printf("%s %llu %llu\n", checks[i].pattern, (unsigned long long)walks[i],
		       (unsigned long long)replayed->check_walks[i]);
		same &= walks[i] == replayed->check_walks[i];
	}
	an_result_free(logged);
	an_result_free(replayed);
	return same ? 0 : 1;
}
