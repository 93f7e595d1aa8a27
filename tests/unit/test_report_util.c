// SPDX-License-Identifier: MIT
/* The report's JSON strings: a trace's strings are bytes (paths, thread
 * names, command lines, perhaps damaged); what JSON gets of them must be
 * UTF-8, with well-formed sequences kept and every other byte U+FFFD. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/rp_int.h"

static void expect(const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	rp_json_str(f, in);
	fclose(f);
	CHECK(strcmp(buf, want) == 0);
	if (strcmp(buf, want))
		fprintf(stderr, "  in %s: got %s, want %s\n", in ? in : "(null)", buf, want);
	free(buf);
}

int main(void)
{
	expect(NULL, "null");
	expect("plain /usr/bin/app", "\"plain /usr/bin/app\"");
	expect("q\"b\\\n", "\"q\\\"b\\\\\\u000a\"");
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* a lone continuation byte, a cut sequence, an overlong '/', a
	 * surrogate, past U+10FFFF, and bytes no UTF-8 has */
	expect("a\x80z", "\"a\\ufffdz\"");
	expect("a\xe2\x82", "\"a\\ufffd\\ufffd\"");
	expect("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	expect("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	expect("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	expect("\xff\xfe", "\"\\ufffd\\ufffd\"");
	return check_done("test_report_util");
}
