/*
 * fuzz_speeds_history.c: fuzz target of `nodeox speeds`' input: any bytes as
 * a sacct history or trace (sim/sacct/sacct_history.c, bad lines skipped as the
 * command does, speed records read from the Comment), the entries built
 * (cli/speeds_build.c) and the table written. What is written must be a
 * table the plugin's reader takes (nodeox_speeds_parse_string), holding
 * exactly the kept entries, each speed finite and in range. Run by
 * libFuzzer (make fuzz-speeds), or replayed in make check by
 * tests/fuzz/fuzz_replay.c over tests/speeds/fuzz_corpus.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/speeds.h"
#include "sim/sacct/sacct_history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const speeds_opts_t opts[2] = { { .min_jobs = 1, .max_spread = 1000 },
					       { .min_jobs = 3, .max_spread = 0.5 } };
	sacct_history_opts_t o = { .prog = "fuzz", .skip_bad = 1 };
	sacct_history_t h;
	FILE *in;

	if (!size)
		return 0;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	if (sacct_history_read(in, "fuzz", &o, &h) == 0) {
		for (int k = 0; k < 2; k++) {
			speeds_result_t r;
			nodeox_speeds_t *t = NULL;
			char *text = NULL, err[512];
			size_t len = 0;
			FILE *f;

			if (speeds_build(h.jobs, h.njobs, &opts[k], &r) < 0)
				continue;
			for (size_t i = 0; i < r.nrows; i++)
				if (r.rows[i].verdict == SPEEDS_KEPT &&
				    !(r.rows[i].e.speed > 0 && r.rows[i].e.speed <= NODEOX_SPEEDS_SPEED_MAX &&
				      r.rows[i].e.spread >= 0 && r.rows[i].e.jobs >= 1))
					abort();
			if (!(f = open_memstream(&text, &len)))
				abort();
			if (speeds_write(f, &r, "2026-12-05T00:00:00Z", "fuzz", "fuzz") < 0)
				abort();
			fclose(f);
			if (nodeox_speeds_parse_string(text, "fuzz.speeds", &t, err, sizeof(err)) < 0) {
				fprintf(stderr, "written table refused: %s\n%s", err, text);
				abort();
			}
			if (nodeox_speeds_count(t) != r.nkept)
				abort();
			nodeox_speeds_free(t);
			free(text);
			speeds_result_free(&r);
		}
	}
	fclose(in);
	sacct_history_free(&h);
	return 0;
}
