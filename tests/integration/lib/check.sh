# tests/integration/lib/check.sh: assertions for shell tests (sourced by
# cluster.sh): each check prints "ok   WHAT" or "FAIL WHAT: got ..., expected
# ...", counts, and lets the test go on so one run reports every failure;
# cluster_finish turns the counts into the exit status.

CLUSTER_FAILURES=0
CLUSTER_CHECKS=0

# check_eq ACTUAL EXPECTED WHAT: count a check; on mismatch print WHAT with
# both values and count a failure (the test goes on).
check_eq()
{
	CLUSTER_CHECKS=$((CLUSTER_CHECKS + 1))
	if [ "$1" = "$2" ]; then
		echo "ok   $3"
	else
		echo "FAIL $3: got '$1', expected '$2'"
		CLUSTER_FAILURES=$((CLUSTER_FAILURES + 1))
	fi
}

# check_match ACTUAL REGEX WHAT: like check_eq with an extended regex (a
# multi-line ACTUAL passes when any line matches).
check_match()
{
	CLUSTER_CHECKS=$((CLUSTER_CHECKS + 1))
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		echo "ok   $3"
	else
		echo "FAIL $3: got '$1', expected to match /$2/"
		CLUSTER_FAILURES=$((CLUSTER_FAILURES + 1))
	fi
}

# check_true WHAT CMD...: count a check that passes when CMD succeeds.
check_true()
{
	local what=$1
	shift
	CLUSTER_CHECKS=$((CLUSTER_CHECKS + 1))
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what"
		CLUSTER_FAILURES=$((CLUSTER_FAILURES + 1))
	fi
}
