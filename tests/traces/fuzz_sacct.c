/*
 * fuzz_sacct.c: libFuzzer target for the sacct parsers of nodeox-sacct-import
 * (sim/sacct_import.c). The first line of the input is a header, the rest are
 * data lines; each also goes through the time, time-limit and TRES parsers.
 * Built and run by `make fuzz-sacct` (part of `make fuzz`).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sacct_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *line, *next;
	char err[SACCT_ERR_MAX];
	sacct_header_t h;
	sacct_gpus_t g;
	sacct_job_t job;
	int64_t secs;
	time_t t;
	int have_header = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		sacct_parse_timelimit(line, &secs);
		sacct_parse_time(line, &t);
		sacct_parse_tres_gpus(line, &g, err, sizeof(err));
		if (!have_header) {
			char *copy = strdup(line);

			if (copy && sacct_parse_header(copy, &h, err, sizeof(err)) == 0)
				have_header = 1;
			free(copy);
			continue;
		}
		if (sacct_parse_line(&h, line, &job, err, sizeof(err)) == SACCT_LINE_JOB)
			sacct_job_clear(&job);
	}
	free(buf);
	return 0;
}
