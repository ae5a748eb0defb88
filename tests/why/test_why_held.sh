#!/bin/sh
# tests/why/test_why_held.sh: `nodeox why` on held jobs, and on jobs that are
# not pending. An unprivileged user submits a job held (sbatch -H): the first
# blocker is held_user, no expected start, and the user's own `scontrol
# release` starts it. A second job of the user is held by root (JobHeldAdmin):
# the blocker is held_admin, the user's release is refused, root's starts it.
# Then one line and exit 3 for the running job, 4 once it has ended.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
why_user_add
cluster_add_node a1 gpu=a100:4
cluster_start

held=$(why_user_sbatch -H --gres=gpu:a100:1 --wrap "sleep 300") || cluster_fail "held job rejected"
wait_for_reason "$held" JobHeldUser 20 || cluster_fail "job $held not held by its user"
why_run "$held"
why_check_reason "$held"
check_eq "$(jq_py 'kinds()[0]')" held_user "first blocker: held by the user"
check_match "$(jq_py 'blk("held_user")["detail"]')" "scontrol release $held" "... says how to release it"
check_eq "$(jq_py 'j["expected_start"]')" null "no expected start while held"
check_eq "$(jq_py 'j["never_runs"]')" false "it could run"
check_eq "$(jq_py 'j["could_start_now"]')" true "the GPUs are there (GPU view after)"
check_match "$("$WHY_BIN" why "$held")" "^  - held_user: held by its user" "text: the hold comes first"
# The user can see it too (nodeox why is a plain client).
out=$(why_as_user "$WHY_BIN" why --json "$held") || cluster_fail "nodeox why as $WHY_USER failed"
check_match "$out" '"kind": "held_user"' "the user's own nodeox why says held_user"
why_as_user scontrol release "$held" || cluster_fail "the user cannot release the job"
check_true "released by its user, the job starts" wait_for_state "$held" RUNNING 20

# Held by an administrator: only an administrator releases it. Submitted
# held (-H) so that the idle cluster cannot start it before root's hold,
# which then makes it an administrator's hold.
job=$(why_user_sbatch -H -t 5 --wrap "sleep 300") || cluster_fail "job rejected"
scontrol hold "$job" || cluster_fail "root cannot hold $job"
wait_for_reason "$job" JobHeldAdmin 20 || cluster_fail "job $job not held by the admin"
why_run "$job"
check_eq "$(jq_py 'kinds()[0]')" held_admin "first blocker: held by an administrator"
check_match "$(jq_py 'blk("held_admin")["detail"]')" "its user cannot" "... which the user cannot release"
check_eq "$(jq_py 'blk("held_admin")["values"]["job"]')" 0 "priority 0 compared"
if why_as_user scontrol release "$job" 2>/dev/null; then rc=0; else rc=1; fi
check_eq "$rc" 1 "the user's release is refused"
check_eq "$(job_state "$job")" PENDING "... and the job still waits"
scontrol release "$job" || cluster_fail "root cannot release $job"
check_true "released by root, the job starts" wait_for_state "$job" RUNNING 20

# Not pending: one line, exit 3 running, 4 ended.
why_run_rc 3 "$job"
check_match "$WHY_TEXT" "^Job $job is not pending: RUNNING on a1 since " "running: one line"
check_eq "$(printf '%s\n' "$WHY_TEXT" | wc -l)" 1 "... only one"
check_eq "$(jq_py 'j["state"]')" RUNNING "JSON: state RUNNING"
check_eq "$(jq_py 'j["blockers"]')" "" "JSON: no blockers"
scancel "$job"
wait_for_state "$job" CANCELLED 20 || cluster_fail "job $job not cancelled"
why_run_rc 4 "$job"
check_match "$WHY_TEXT" "^Job $job is not pending: it ended CANCELLED at " "ended: one line"
check_eq "$(jq_py 'j["pending"]')" false "JSON: not pending"
cluster_finish
