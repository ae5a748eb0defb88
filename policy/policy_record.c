/*
 * policy_record.c: the reader of job_submit/nodeox's AdminComment record
 * (policy.h), beside its writer, decide_admin_comment in
 * policy_decide.c, so the format lives in one library. Read by
 * nodeox-sacct-import (the original request of a rewritten job) and by the
 * plugin itself (what it changed, when an update replaces its constraint).
 * The format, nodeox.conf(5) ADMIN COMMENT RECORD:
 *
 *   [admin's text; ]nodeox: changed v=1 KEY=VALUE KEY=VALUE ...[; more]
 *
 * Words are split at single blanks, a record ends at ';' or the end of the
 * comment, values are percent-encoded. Unknown keys are skipped (keys are
 * only ever added within a version). Records written before v=1 ("nodeox:
 * changed tres_per_node=gres:gpu:a100:4->gres:gpu:4 ... time_limit=60->120")
 * are read for their type, count and time limit; they did not record the tag.
 * The comment is user-influenced text of any length: nothing here is
 * unbounded, nothing is guessed, a malformed record is an error.
 */
#include "policy/policy_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>


static const char *const form_names[NODEOX_NFORMS] = { "job", "node", "task", "socket" };

const char *nodeox_form_name(nodeox_form_t f)
{
	return f >= 0 && f < NODEOX_NFORMS ? form_names[f] : "?";
}

int nodeox_record_decode(const char *src, size_t n, char *dst, size_t cap)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		char c = src[i];

		if (c == '%') {
			int hi, lo;

			if (i + 2 >= n)
				return -1;
			hi = nodeox_util_hex_digit(src[i + 1]);
			lo = nodeox_util_hex_digit(src[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return -1;
			c = (char)(hi * 16 + lo);
			i += 2;
		}
		if (o + 1 >= cap)
			return -1;
		dst[o++] = c;
	}
	if (!cap)
		return -1;
	dst[o] = '\0';
	return 0;
}

/* Is every '%' in v[0..n) followed by two hex digits (and not %00)? */
static int record_escapes_ok(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i] != '%')
			continue;
		if (i + 2 >= n || nodeox_util_hex_digit(v[i + 1]) < 0 || nodeox_util_hex_digit(v[i + 2]) < 0 ||
		    (v[i + 1] == '0' && v[i + 2] == '0'))
			return 0;
		i += 2;
	}
	return 1;
}

/* A count: digits only, at most 18 of them (the policy writes what it parsed,
 * up to 2^53). Returns it, or -1. */
static int64_t record_count(const char *s, size_t n)
{
	int64_t v = 0;
	size_t i;

	if (!n || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* gpus=FORM:N[,FORM:N...] */
static int record_gpus(const char *v, size_t n, nodeox_record_t *rec)
{
	size_t off = 0;
	int f;

	for (f = 0; f < NODEOX_NFORMS; f++)
		rec->count[f] = -1;
	while (off < n) {
		const char *item = v + off, *comma = memchr(item, ',', n - off);
		size_t len = comma ? (size_t)(comma - item) : n - off;
		const char *colon = memchr(item, ':', len);

		if (!colon)
			return -1;
		for (f = 0; f < NODEOX_NFORMS; f++)
			if ((size_t)(colon - item) == strlen(form_names[f]) &&
			    !memcmp(item, form_names[f], (size_t)(colon - item)))
				break;
		if (f == NODEOX_NFORMS || rec->count[f] >= 0)
			return -1;
		/* 0 is what the policy saw in "gpu:a100:0": recorded as is */
		rec->count[f] = record_count(colon + 1, len - (size_t)(colon + 1 - item));
		if (rec->count[f] < 0)
			return -1;
		off += len + 1;
	}
	return n ? 0 : -1;
}

/* A recorded type fits rec->type wherever the policy's name check passes. */
_Static_assert(NODEOX_RECORD_TYPE_MAX >= NODEOX_NAME_MAX, "a type name must fit nodeox_record_t.type");

/* A legacy record's tres_per_X=FROM: the type and count of its first typed
 * GPU entry ("gres:gpu:a100:4", "gres/gpu:a100=4"), read by policy_tres.c. */
static int record_legacy_tres(const char *from, size_t n, nodeox_form_t f, nodeox_record_t *rec)
{
	char buf[NODEOX_STR_MAX];
	nodeox_tres_gpu_t e[NODEOX_TRES_MAX_GPU];
	int k, i;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, from, n);
	buf[n] = '\0';
	k = nodeox_tres_scan(buf, e, NODEOX_TRES_MAX_GPU);
	for (i = 0; i < k && i < NODEOX_TRES_MAX_GPU; i++) {
		if (!nodeox_util_name_ok(buf + e[i].type_off, e[i].type_len))
			continue; /* "gpu:4": untyped */
		if (e[i].problem != NODEOX_TRES_OK)
			return -1;
		rec->count[f] = (int64_t)e[i].count;
		memcpy(rec->type, buf + e[i].type_off, e[i].type_len);
		rec->type[e[i].type_len] = '\0';
		return 0;
	}
	return -1;
}

/* Split "FROM->TO"; the arrow is the first "->" (values encode '>'). */
static int record_arrow(const char *v, size_t n, size_t *from_len)
{
	const char *a;

	for (a = v; a + 1 < v + n; a++)
		if (a[0] == '-' && a[1] == '>') {
			*from_len = (size_t)(a - v);
			return 0;
		}
	return -1;
}

/* Read one record: s[0..n) after the mark. Returns 0, 2 (unknown version), -1. */
static int record_read(const char *s, size_t n, nodeox_record_t *rec, nodeox_record_t *keep_tl, char *err,
		       size_t errlen)
{
	size_t off = 0;
	int f, words = 0;

	memset(rec, 0, sizeof(*rec));
	rec->time_limit_min = -1;
	rec->time_limit_to_min = -1;
	for (f = 0; f < NODEOX_NFORMS; f++)
		rec->count[f] = -1;
	rec->legacy = 1;
	while (off < n) {
		const char *w = s + off, *sp = memchr(w, ' ', n - off), *eq;
		size_t len = sp ? (size_t)(sp - w) : n - off, klen, vlen, from_len;
		const char *v;

		off += len + 1;
		if (!len) {
			if (!sp || off >= n)
				break; /* trailing blank before ';' */
			snprintf(err, errlen, "nodeox record: two blanks in a row");
			return -1;
		}
		eq = memchr(w, '=', len);
		if (!eq) {
			snprintf(err, errlen, "nodeox record: word '%.*s' is not KEY=VALUE",
				 (int)(len > 40 ? 40 : len), w);
			return -1;
		}
		klen = (size_t)(eq - w);
		v = eq + 1;
		vlen = len - klen - 1;
#define KEY(k) (klen == sizeof(k) - 1 && !memcmp(w, k, klen))
		if (words++ == 0 && KEY("v")) {
			int64_t ver = record_count(v, vlen);

			if (ver < 1) {
				snprintf(err, errlen, "nodeox record: bad version 'v=%.*s'",
					 (int)(vlen > 20 ? 20 : vlen), v);
				return -1;
			}
			rec->version = (int)ver;
			rec->legacy = 0;
			if (ver != 1)
				return 2;
			continue;
		}
		if (KEY("type") && !rec->legacy) {
			if (!nodeox_util_name_ok(v, vlen)) {
				snprintf(err, errlen, "nodeox record: bad type= value");
				return -1;
			}
			memcpy(rec->type, v, vlen);
			rec->type[vlen] = '\0';
		} else if (KEY("gpus") && !rec->legacy) {
			if (record_gpus(v, vlen, rec) < 0) {
				snprintf(err, errlen,
					 "nodeox record: bad gpus= value '%.*s' (expected "
					 "FORM:COUNT[,FORM:COUNT])",
					 (int)(vlen > 40 ? 40 : vlen), v);
				return -1;
			}
		} else if (KEY("tag") && !rec->legacy) {
			if (nodeox_record_decode(v, vlen, rec->tag, sizeof(rec->tag)) < 0 ||
			    strncmp(rec->tag, "nodeox:flex", 11) || strpbrk(rec->tag, " \t\r\n|;")) {
				snprintf(err, errlen, "nodeox record: bad tag= value");
				return -1;
			}
		} else if (KEY("time_limit")) {
			int64_t m, to;

			if (record_arrow(v, vlen, &from_len) < 0 || (m = record_count(v, from_len)) < 0 ||
			    (to = record_count(v + from_len + 2, vlen - from_len - 2)) < 0) {
				snprintf(err, errlen,
					 "nodeox record: bad time_limit= value '%.*s' "
					 "(expected MINUTES->MINUTES)",
					 (int)(vlen > 40 ? 40 : vlen), v);
				return -1;
			}
			rec->time_limit_min = m;
			rec->time_limit_to_min = to;
		} else if (KEY("features") && !rec->legacy) {
			if (record_arrow(v, vlen, &from_len) < 0 ||
			    nodeox_record_decode(v + from_len + 2, vlen - from_len - 2, rec->features_to,
						 sizeof(rec->features_to)) < 0) {
				snprintf(err, errlen, "nodeox record: bad features= value");
				return -1;
			}
		} else if (KEY("cut")) {
			rec->cut = 1;
		} else if (klen > 8 && !memcmp(w, "tres_per_", 9) && rec->legacy) {
			for (f = 0; f < NODEOX_NFORMS; f++)
				if (klen == 9 + strlen(form_names[f]) &&
				    !memcmp(w + 9, form_names[f], klen - 9))
					break;
			if (f < NODEOX_NFORMS && record_arrow(v, vlen, &from_len) == 0)
				(void)record_legacy_tres(v, from_len, (nodeox_form_t)f, rec);
		}
		if (!rec->legacy && !record_escapes_ok(v, vlen)) {
			snprintf(err, errlen,
				 "nodeox record: bad %%XX escape in %.*s=", (int)(klen > 20 ? 20 : klen), w);
			return -1;
		}
#undef KEY
	}
	if (rec->time_limit_min < 0 && keep_tl) {
		rec->time_limit_min = keep_tl->time_limit_min;
		rec->time_limit_to_min = keep_tl->time_limit_to_min;
	}
	if (rec->legacy) {
		rec->version = 0;
		if (!rec->type[0]) {
			snprintf(err, errlen,
				 "nodeox record (written before v=1): no typed "
				 "tres_per_*=FROM->TO word");
			return -1;
		}
		snprintf(rec->tag, sizeof(rec->tag), "nodeox:flex");
		return 0;
	}
	if (!rec->type[0] && !rec->cut) {
		snprintf(err, errlen, "nodeox record: no type=");
		return -1;
	}
	return 0;
}

bool nodeox_record_present(const char *admin_comment)
{
	return admin_comment && strstr(admin_comment, NODEOX_RECORD_MARK) != NULL;
}

int nodeox_record_parse(const char *admin_comment, nodeox_record_t *rec, char *err, size_t errlen)
{
	const char *p = admin_comment;
	nodeox_record_t cur, last_tl;
	int found = 0;

	memset(rec, 0, sizeof(*rec));
	memset(&last_tl, 0, sizeof(last_tl));
	last_tl.time_limit_min = -1;
	last_tl.time_limit_to_min = -1;
	err[0] = '\0';
	while (p && (p = strstr(p, NODEOX_RECORD_MARK))) {
		const char *body = p + sizeof(NODEOX_RECORD_MARK) - 1, *end;
		int rc;

		/* the mark starts the comment or follows "; " (the glue's separator) */
		if (p != admin_comment && (p - admin_comment < 2 || p[-1] != ' ' || p[-2] != ';')) {
			p = body;
			continue;
		}
		if (*body != ' ' && *body != ';' && *body != '\0') {
			p = body;
			continue;
		}
		end = strchr(body, ';');
		if (!end)
			end = body + strlen(body);
		if (*body == ' ')
			body++;
		rc = record_read(body, (size_t)(end - body), &cur, &last_tl, err, errlen);
		if (rc < 0)
			return -1;
		if (rc == 2) {
			memset(rec, 0, sizeof(*rec));
			rec->version = cur.version;
			return 2;
		}
		if (cur.time_limit_min >= 0) {
			last_tl.time_limit_min = cur.time_limit_min;
			last_tl.time_limit_to_min = cur.time_limit_to_min;
		}
		*rec = cur;
		found = 1;
		p = end;
	}
	return found;
}
