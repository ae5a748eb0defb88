/*
 * fuzz_sacct.c: libFuzzer target for the sacct parsers of nodeox-sacct-import
 * (sim/sacct/sacct_import.c, policy/policy_record.c). The first line of the
 * input is a header, the rest are data lines; each line also goes through the
 * time, time-limit, TRES and AdminComment record parsers. An optional first
 * line "#delimiter=S" sets the field delimiter (sacct --delimiter).
 * Built and run by `make fuzz-sacct` (part of `make fuzz`); `make check`
 * replays the seed corpus tests/traces/fuzz_corpus through it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sacct/sacct_import.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *line, *next, *delim = NULL;
	char err[SACCT_ERR_MAX];
	sacct_header_t h;
	sacct_gpus_t g;
	sacct_job_t job;
	nodeox_record_t rec;
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
		if (!have_header && !delim && !strncmp(line, "#delimiter=", 11) && line[11]) {
			delim = line + 11;
			continue;
		}
		sacct_parse_timelimit(line, &secs);
		sacct_parse_time(line, &t);
		sacct_parse_tres_gpus(line, &g, err, sizeof(err));
		if (nodeox_record_parse(line, &rec, err, sizeof(err)) == 1 &&
		    (!rec.type[0] && !rec.cut && !rec.legacy))
			abort(); /* a record is returned only with its type */
		if (!have_header) {
			char *copy = strdup(line);

			if (copy && sacct_parse_header(copy, delim, &h, err, sizeof(err)) == 0)
				have_header = 1;
			free(copy);
			continue;
		}
		if (sacct_parse_line(&h, line, &job, err, sizeof(err)) == SACCT_LINE_JOB) {
			if (job.gpus <= 0 || job.run_time < 0)
				abort();
			sacct_job_clear(&job);
		}
	}
	free(buf);
	return 0;
}
