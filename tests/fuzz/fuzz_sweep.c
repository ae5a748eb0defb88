/*
 * fuzz_sweep.c: libFuzzer target for nodeox-sim --sweep's text handling
 * (sim/run/sweep.c): the SPEC parser and each setting's policy, the base
 * nodeox.conf with the swept keys' items removed and KEY=value added, read
 * by the policy library. Input: the first line is SPEC, the rest the base
 * nodeox.conf. Checks that every value of every setting is found, that an
 * error is one line without control characters (it names the user's own
 * bytes, so bytes above 0x7f may appear), and that no setting crashes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/run/sweep.h"

static void fuzz_sweep_check_err(const char *err, size_t cap)
{
	size_t n = strnlen(err, cap);
	if (n == cap || n == 0)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)err[i] < 0x20)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), err[1024];
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *nl = strchr(buf, '\n');
	const char *base = "";
	if (nl) {
		*nl = '\0';
		base = nl + 1;
	}
	sweep_plan_t *p = NULL;
	if (sweep_spec_parse(buf, &p, err, sizeof(err)) < 0) {
		fuzz_sweep_check_err(err, sizeof(err));
	} else {
		if (p->n < 1 || p->nkeys < 1)
			abort();
		for (int s = 0; s < p->n && s < 4; s++) {
			for (int k = 0; k < p->nkeys; k++)
				if (!sweep_value(p, s, k))
					abort();
			nodeox_conf_t *conf = NULL;
			if (sweep_setting_conf(p, s, base, "fuzz.conf", &conf, err, sizeof(err)) < 0)
				fuzz_sweep_check_err(err, sizeof(err));
			else
				nodeox_conf_free(conf);
		}
	}
	sweep_plan_free(p);
	free(buf);
	return 0;
}
