/*
 * speed_record.h: the speed record a job leaves in its Comment (issue 46):
 * what each GPU type measured for it, written by the runtime at the end of
 * a job under Slurm (runtime/rt_speedrec.c) and read back from sacct's
 * Comment by libnodeox_sacct (nodeox-sacct-import, `nodeox speeds`). One
 * codec (common/speed_record.c) for both sides.
 *
 * The record is one blank-free word appended to the user's comment:
 *   nodeox-speeds:v1:w=bert-ft;g=a100:412.5:4:64;g=l40s:1006:2:64
 * w= the workload (absent when the job has none); each g= one GPU type:
 * TYPE:STEP_MS:RANKS:BATCH, the median over the type's ranks of each rank's
 * median step time (ms) over the rounds after warm-up, how many ranks ran
 * on it and their batch per step (0: not known). Names are percent-encoded
 * (every byte but letters, digits and . _ - @ as %XX), so the record holds
 * no blank, '|', ',', ';' or ':' of its own. At most SPEEDREC_MAX bytes,
 * SPEEDREC_TYPES types. Keys a reader does not know are skipped (v1 may
 * gain keys); a record of a later version (v2...) is reported as such.
 */
#ifndef NODEOX_COMMON_SPEED_RECORD_H
#define NODEOX_COMMON_SPEED_RECORD_H

#include <stddef.h>

#define SPEEDREC_MARK "nodeox-speeds:v" /* a record is a word starting so */
#define SPEEDREC_VERSION 1
#define SPEEDREC_MAX 512     /* bytes of one record, mark included */
#define SPEEDREC_TYPES 8     /* GPU types in one record */
#define SPEEDREC_NAME_MAX 64 /* decoded workload or type name, NUL included */
#define SPEEDREC_MS_MAX 1e9  /* a step time is in (0, 1e9] ms; written from 0.001 */
#define SPEEDREC_COUNT_MAX 1000000000L

typedef struct {
	char type[SPEEDREC_NAME_MAX];
	double step_ms; /* > 0 */
	long ranks;     /* >= 1 */
	long batch;     /* >= 0, 0: not known */
} speedrec_type_t;

typedef struct {
	char workload[SPEEDREC_NAME_MAX]; /* "" = none */
	int ntypes;
	speedrec_type_t t[SPEEDREC_TYPES];
} speedrec_t;

/* Write r as a record (no leading blank) into dst. Returns its length, or
 * -1 (dst "") when r is invalid (no type, a name empty or too long, a
 * number out of range, a type twice) or it does not fit in cap or in
 * SPEEDREC_MAX. */
int speedrec_format(const speedrec_t *r, char *dst, size_t cap);

/* Parse one record word (len bytes at s, starting with SPEEDREC_MARK).
 * Returns 1 and fills r; 2 for a later version (r empty); -1 with err
 * ("what is wrong") when malformed. */
int speedrec_parse(const char *s, size_t len, speedrec_t *r, char *err, size_t errlen);

/* The last record word in a comment (NULL: none). Returns 0 when there is
 * none, else speedrec_parse's answer for it. */
int speedrec_find(const char *comment, speedrec_t *r, char *err, size_t errlen);

/* The comment to store: comment with every record word (and the blank
 * before it) taken out, then " " and record ("" comment: record alone).
 * The user's text is otherwise kept byte for byte. Returns the length, or
 * -1 (dst "") when it does not fit in cap. */
int speedrec_compose(const char *comment, const char *record, char *dst, size_t cap);

#endif
