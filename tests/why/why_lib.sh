# tests/why/why_lib.sh: helpers for the `nodeox why` integration tests: run
# the built command and read its --json output with python3 (no jq needed).
# A test sources this file first (it re-runs the test under bash and brings
# tests/integration/lib/cluster.sh, unless a library that sources it, such as
# accounting.sh, came first), then calls why_init.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
command -v cluster_init >/dev/null 2>&1 || . "$top_srcdir/tests/integration/lib/cluster.sh"

WHY_BIN="${top_builddir:-.}/cli/nodeox"

# why_init [INIT...]: skip (77) unless the command is built and python3 is
# there; then start the cluster with INIT (default cluster_init, which skips
# when not root or the daemons are missing; test_why_qos.sh gives
# accounting_init and its TRES).
why_init()
{
	[ -x "$WHY_BIN" ] || { echo "SKIP: $WHY_BIN not built (needs libslurm)"; exit 77; }
	command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
	WHY_BIN=$(cd "$(dirname "$WHY_BIN")" && pwd)/nodeox
	"${@:-cluster_init}"
	WHY_OUT="$CLUSTER_DIR/why.json"
}

# why_run JOBID [ARGS...]: run `nodeox why --json ARGS JOBID` into $WHY_OUT,
# show the human form in the log too, fail the test if either fails.
why_run()
{
	local id=$1
	shift
	echo "----- nodeox why $* $id"
	"$WHY_BIN" why "$@" "$id" || cluster_fail "nodeox why $id exited $?"
	# the --json run's clock: its times in seconds from now are checked against
	# these (on a loaded machine the checks that follow take seconds)
	WHY_T0=$(date +%s)
	"$WHY_BIN" why --json "$@" "$id" > "$WHY_OUT" || cluster_fail "nodeox why --json $id exited $?"
	WHY_T1=$(date +%s)
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WHY_OUT" ||
		cluster_fail "nodeox why --json $id: not valid JSON: $(cat "$WHY_OUT")"
}

# jq_py EXPR: evaluate a Python expression over the last output, bound to j;
# prints the value (lists joined by ",", booleans as true/false).
# Helpers inside EXPR: gpus(cause[, type]) sums excluded GPUs of a cause,
# nodes(cause[, type]) lists their nodes (sorted, comma-joined),
# detail(cause[, type]) is the detail text of the first such group;
# kinds() lists the blockers' kinds in order, blk(kind) is the first blocker
# of that kind (a dict; {} when none), bjobs(kind) its jobs' ids.
jq_py()
{
	python3 - "$WHY_OUT" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
def _sel(cause, typ=None, ex=None):
    ex = j["excluded"] if ex is None else ex
    return [e for e in ex if e["cause"] == cause and (typ is None or e["type"] == typ)]
def gpus(cause, typ=None, ex=None):
    return sum(e["gpus"] for e in _sel(cause, typ, ex))
def nodes(cause, typ=None, ex=None):
    return ",".join(sorted(n for e in _sel(cause, typ, ex) for n in e["nodes"]))
def detail(cause, typ=None, ex=None):
    return _sel(cause, typ, ex)[0]["detail"]
def kinds():
    return [b["kind"] for b in j.get("blockers", [])]
def blk(kind):
    return next((b for b in j.get("blockers", []) if b["kind"] == kind), {})
def bjobs(kind):
    return [x["job_id"] for x in blk(kind).get("jobs", [])]
def fgpus(cause, typ=None):
    return gpus(cause, typ, j["flex"]["excluded"] or [])
def fnodes(cause, typ=None):
    return nodes(cause, typ, j["flex"]["excluded"] or [])
v = eval(sys.argv[2])
if isinstance(v, bool):
    print("true" if v else "false")
elif isinstance(v, list):
    print(",".join(str(x) for x in v))
elif v is None:
    print("null")
else:
    print(v)
PY
}

# why_check_sum: the idle GPUs split exactly into usable and excluded ones.
why_check_sum()
{
	check_eq "$(jq_py 'j["eligible_gpus"] + sum(e["gpus"] for e in j["excluded"])')" \
		"$(jq_py 'j["idle_gpus"]')" "usable + excluded = idle GPUs"
}

# why_wait_pending JOBID: wait until the scheduler has looked at a pending job
# (its Reason is no longer None); fail the test if it started or never did.
why_wait_pending()
{
	local id=$1 end=$((SECONDS + 20)) r st
	while [ $SECONDS -le $end ]; do
		st=$(job_state "$id"); r=$(job_field "$id" Reason)
		[ "$st" = PENDING ] || cluster_fail "job $id is $st, expected it to wait"
		[ -n "$r" ] && [ "$r" != None ] && return 0
		sleep 0.3
	done
	cluster_fail "job $id: the scheduler gave no reason within 20 s"
}

# why_check_reason JOBID: the reason in the output is the one scontrol shows.
why_check_reason()
{
	check_eq "$(jq_py 'j["reason"]')" "$(job_field "$1" Reason)" "reason as scontrol shows it"
}

# why_check_excluded CAUSE TYPE GPUS NODES DETAIL WHAT: in the GPU view,
# CAUSE excludes GPUS GPUs (of TYPE; "" for any), on NODES (all of CAUSE's
# entries), and its detail matches DETAIL; WHAT names the checks.
why_check_excluded()
{
	local cause=$1 typ=$2
	check_eq "$(jq_py "gpus(\"$cause\"${typ:+, \"$typ\"})")" "$3" "$6"
	check_eq "$(jq_py "nodes(\"$cause\")")" "$4" "$6: on $4"
	check_match "$(jq_py "detail(\"$cause\")")" "$5" "$6: detail"
}

# why_run_rc RC JOBID [ARGS...]: like why_run for a job that is not pending:
# both forms must exit RC; the text (one line) is left in $WHY_TEXT.
why_run_rc()
{
	local want=$1 id=$2 rc
	shift 2
	WHY_TEXT=$("$WHY_BIN" why "$@" "$id"); rc=$?
	echo "----- nodeox why $* $id (exit $rc)"; echo "$WHY_TEXT"
	check_eq "$rc" "$want" "nodeox why $id: exit $want"
	"$WHY_BIN" why --json "$@" "$id" > "$WHY_OUT"; rc=$?
	check_eq "$rc" "$want" "nodeox why --json $id: exit $want"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WHY_OUT" ||
		cluster_fail "nodeox why --json $id: not valid JSON: $(cat "$WHY_OUT")"
}

# why_user_add: create an unprivileged local user for the test (name in
# $WHY_USER, unique per test process, no home, no login) that submits and
# runs jobs; it is removed when the test exits (cluster.sh's EXIT trap with
# why_stop). Call after why_init.
why_user_add()
{
	WHY_USER=nxw$$
	useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$WHY_USER" ||
		cluster_fail "cannot add user $WHY_USER"
	trap 'cluster_on_exit why_stop' EXIT
}

# why_user_del: remove the user of why_user_add (safe to call twice).
why_user_del()
{
	[ -n "$WHY_USER" ] || return 0
	userdel "$WHY_USER" 2>/dev/null
	WHY_USER=
}

# why_stop: the stop of the EXIT trap with a test user (cluster_on_exit
# why_stop): every daemon and job stopped, then the user removed (no process
# of it is left by then).
why_stop()
{
	cluster_stop
	why_user_del
}

# why_as_user CMD ARGS...: run a command as $WHY_USER, keeping the
# environment (SLURM_CONF), from /tmp.
why_as_user()
{
	(cd /tmp && setpriv --reuid="$WHY_USER" --regid="$(id -g "$WHY_USER")" --clear-groups -- "$@")
}

# why_user_sbatch ARGS...: cluster_sbatch as $WHY_USER (output to /dev/null:
# the user cannot write in the run directory).
why_user_sbatch()
{
	local out rc
	out=$(why_as_user sbatch --parsable -o /dev/null -D /tmp "$@" 2> "$CLUSTER_DIR/submit.err")
	rc=$?
	[ -s "$CLUSTER_DIR/submit.err" ] && echo "  sbatch (as $WHY_USER) $*: $(cat "$CLUSTER_DIR/submit.err")" >&2
	[ $rc = 0 ] && echo "${out%%;*}"
	return $rc
}
