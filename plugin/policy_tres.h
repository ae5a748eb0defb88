/*
 * policy_tres.h: the one reader of GPU entries in Slurm's TRES and GRES
 * strings (plugin/policy_tres.c), for every part of nodeox: the broadening
 * decision (inside slurmctld), nodeox-sim, `nodeox why` and
 * nodeox-sacct-import. No glib, no allocation, no abort on any input; work is
 * bounded by NODEOX_STR_MAX.
 *
 * Two forms, one grammar for the part after the name (Slurm 22.05's
 * _get_next_gres in src/common/gres.c):
 *   GPU[:TYPE][:COUNT]   "gpu" (one GPU), "gpu:4", "gpu:a100" (one a100),
 *                        "gpu:a100:4"; "gpu:", "gpu::4" and "gpu:a100:" are
 *                        malformed. A lone field is a count when it reads
 *                        as one ("4", "2k"), else a type.
 *   COUNT                digits with Slurm's optional suffix (suffix_mult:
 *                        k, m, g, t, p and kib.. = powers of 1024, kb.. =
 *                        powers of 1000; any case), after what strtoull
 *                        skips (blanks, a '+').
 * - Job TRES (job_desc tres_per_job/node/task/socket, sacct ReqTRES/AllocTRES,
 *   nodeox-sim traces): a comma list; GPU entries are spelled "gres:gpu:..."
 *   (22.05), "gres/gpu:..." or "gres/gpu:TYPE=N" / "gres/gpu=N" (23.11+,
 *   sacct), or bare "gpu:..." (simulator traces). nodeox_tres_scan.
 * - Node GRES (slurmctld's node Gres and GresUsed, slurm.conf Gres=): a comma
 *   list of "gpu:a100:4(S:0-1)", "gpu:a100:2(IDX:0,2)" (commas inside the
 *   parentheses do not split), "gpu:(null):3(IDX:0-2)" for an untyped GPU in
 *   use; no "gres" prefix, no '='. nodeox_tres_scan_node.
 * Other entries (cpu=, mem=, gres/gpumem=, gres:mps:100, ...) are skipped.
 */
#ifndef NODEOX_POLICY_TRES_H
#define NODEOX_POLICY_TRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin/policy.h"   /* NODEOX_STR_MAX */

/* How a GPU entry is spelled, kept when it is rewritten. */
typedef enum {
	NODEOX_TRES_BARE = 0,   /* gpu:a100:4        (simulator traces, node GRES) */
	NODEOX_TRES_COLON,      /* gres:gpu:a100:4   (Slurm 22.05)       */
	NODEOX_TRES_SLASH,      /* gres/gpu:a100:4   (Slurm 23.11+)      */
	NODEOX_TRES_SLASH_EQ,   /* gres/gpu:a100=4   (Slurm 23.11+, sacct) */
} nodeox_tres_form_t;

/* What is wrong with a GPU entry (Slurm would refuse it). */
typedef enum {
	NODEOX_TRES_OK = 0,
	NODEOX_TRES_NO_TYPE,       /* "gpu::4": empty type */
	NODEOX_TRES_NO_COUNT,      /* "gpu:a100:", "gpu:", "gres/gpu=": nothing where the count goes */
	NODEOX_TRES_BAD_COUNT,     /* "gpu:a100:4x": the count is not a number */
	NODEOX_TRES_BIG_COUNT,     /* over NODEOX_TRES_COUNT_MAX */
} nodeox_tres_problem_t;

#define NODEOX_TRES_COUNT_MAX 0xffffffffull  /* larger counts are refused */
#define NODEOX_TRES_MAX_GPU 8    /* gpu entries the decision looks at in one field */

/* One gpu entry of a TRES or GRES string; offsets into that string. */
typedef struct {
	size_t start, end;          /* the whole entry (node: with its "(...)") */
	size_t type_off, type_len;  /* type_len 0: untyped */
	size_t cnt_off, cnt_len;    /* cnt_len 0: no count given (means 1) */
	nodeox_tres_form_t form;
	uint64_t count;             /* parsed count: 1 if none given, 0 if malformed */
	nodeox_tres_problem_t problem;
} nodeox_tres_gpu_t;

/* Find the gpu entries of a job TRES list s (NULL ok). Returns how many there
 * are (the first max of them stored in out, malformed ones included, with
 * their problem set), or -1 if s is NODEOX_STR_MAX bytes or longer. */
int nodeox_tres_scan(const char *s, nodeox_tres_gpu_t *out, int max);
/* The same for a node GRES list ("gpu:a100:4(S:0-1),mps:100"). */
int nodeox_tres_scan_node(const char *s, nodeox_tres_gpu_t *out, int max);
/* A count s[0..n) as Slurm reads one: 0, or -1 (not a number) or -2 (over
 * NODEOX_TRES_COUNT_MAX). */
int nodeox_tres_count_parse(const char *s, size_t n, uint64_t *out);
/* "count is not a number" and the like, for messages; "" for NODEOX_TRES_OK. */
const char *nodeox_tres_problem_text(nodeox_tres_problem_t p);
/* Copy an entry's type into dst (cap bytes, "" if untyped). Returns 0, or -1
 * (dst holds a cut copy) if it does not fit. */
int nodeox_tres_type_copy(const char *s, const nodeox_tres_gpu_t *e, char *dst, size_t cap);
/* Write s with the type removed from each of its n gpu entries into dst.
 * Returns 0, or -1 if dst is too small. */
int nodeox_tres_untype(const char *s, const nodeox_tres_gpu_t *e, int n, char *dst,
		       size_t cap);

#endif
