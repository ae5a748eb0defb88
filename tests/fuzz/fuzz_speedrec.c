/*
 * fuzz_speedrec.c: libFuzzer target for the speed record a job's Comment
 * carries (common/speed_record.c), text any user who can update the job may
 * have written. The input is a comment: a record found in it must be
 * written back by the writer as a record that reads as the same; a refusal
 * must be one printable line. The comment composed with a fresh record must
 * keep every other word of the input in order, hold the fresh record as its
 * last, and compose to itself again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/speed_record.h"
#include "tests/fuzz/fuzz_check.h"

static int same(const speedrec_t *a, const speedrec_t *b)
{
	if (strcmp(a->workload, b->workload) || a->ntypes != b->ntypes)
		return 0;
	for (int i = 0; i < a->ntypes; i++)
		if (strcmp(a->t[i].type, b->t[i].type) || a->t[i].ranks != b->t[i].ranks ||
		    a->t[i].batch != b->t[i].batch ||
		    !(a->t[i].step_ms > b->t[i].step_ms - 0.0006 &&
		      a->t[i].step_ms < b->t[i].step_ms + 0.0006))
			return 0;
	return 1;
}

/* The words of s that are not records, joined by one blank. */
static void other_words(const char *s, char *dst)
{
	size_t n = 0, ml = strlen(SPEEDREC_MARK);

	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		const char *w = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			s++;
		size_t wl = (size_t)(s - w);
		if (!wl || (wl >= ml && !memcmp(w, SPEEDREC_MARK, ml)))
			continue;
		if (n)
			dst[n++] = ' ';
		memcpy(dst + n, w, wl);
		n += wl;
	}
	dst[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *out = malloc(size + SPEEDREC_MAX + 2),
	     *again = malloc(size + SPEEDREC_MAX + 2);
	char *w1 = malloc(size + SPEEDREC_MAX + 2), *w2 = malloc(size + SPEEDREC_MAX + 2);
	char err[160], rec[SPEEDREC_MAX + 1];
	speedrec_t r, back, fresh = { .workload = "w x", .ntypes = 1 };
	int rc, n;

	memcpy(text, data, size);
	text[size] = '\0';
	rc = speedrec_find(text, &r, err, sizeof(err));
	if (rc == 1) {
		if (speedrec_format(&r, rec, sizeof(rec)) < 0) {
			/* only a step time below what the writer writes is refused */
			int small = 0;
			for (int i = 0; i < r.ntypes; i++)
				small |= r.t[i].step_ms < 0.001;
			if (!small)
				abort();
		} else if (speedrec_parse(rec, strlen(rec), &back, err, sizeof(err)) != 1 ||
			   !same(&r, &back)) {
			abort();
		}
	} else if (rc == -1) {
		fuzz_check_line(err, sizeof(err));
		if (!err[0])
			abort();
	} else if (rc != 0 && rc != 2) {
		abort();
	}
	strcpy(fresh.t[0].type, "a100");
	fresh.t[0].step_ms = 12.5;
	fresh.t[0].ranks = 2;
	if (speedrec_format(&fresh, rec, sizeof(rec)) < 0)
		abort();
	n = speedrec_compose(text, rec, out, size + SPEEDREC_MAX + 2);
	if (n < 0 || (size_t)n != strlen(out) || speedrec_find(out, &back, err, sizeof(err)) != 1 ||
	    !same(&fresh, &back))
		abort();
	if (strlen(out) < strlen(rec) || strcmp(out + strlen(out) - strlen(rec), rec))
		abort();
	other_words(text, w1);
	out[strlen(out) - strlen(rec)] = '\0';
	other_words(out, w2);
	if (strcmp(w1, w2))
		abort();
	n = speedrec_compose(text, rec, out, size + SPEEDREC_MAX + 2);
	if (speedrec_compose(out, rec, again, size + SPEEDREC_MAX + 2) != n || strcmp(out, again))
		abort();
	free(text);
	free(out);
	free(again);
	free(w1);
	free(w2);
	return 0;
}
