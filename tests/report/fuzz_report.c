/*
 * fuzz_report.c: fuzz target of `nodeox report`'s input: any bytes as a sacct
 * history (sim/sacct_history.c, bad lines skipped as the command does), then
 * every figure (cli/report_stats.c) and every output, to /dev/null. Run by
 * libFuzzer, or replayed in make check by tests/fuzz/fuzz_replay.c over
 * tests/report/fuzz_corpus.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null_out;
	sacct_history_opts_t o = { .prog = "fuzz", .skip_bad = 1 };
	sacct_history_t h;
	report_t r;
	FILE *in;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	if (!size || !null_out)
		return 0;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	memset(&r, 0, sizeof(r));
	if (sacct_history_read(in, "fuzz", &o, &h) == 0 && report_build(&h, NULL, &r) == 0) {
		report_write_text(null_out, &r, &h);
		report_write_json(null_out, &r, &h);
		report_write_prom(null_out, &r);
	}
	fclose(in);
	report_free(&r);
	sacct_history_free(&h);
	return 0;
}
