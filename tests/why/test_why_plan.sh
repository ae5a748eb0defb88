#!/bin/sh
# tests/why/test_why_plan.sh: `nodeox why` shows the Broaden=when-faster
# estimate a tagged pending job would be decided on now, and what decides it.
# a1 has 4 a100, l1 4 l40s (Speed 0.6). R1 holds a1 for 10 min, R2 holds l1
# for 3 min; P (untagged, ahead) waits for l1's 4 l40s. An unprivileged
# user's job J, tagged nodeox:flex, asks for 4 a100 for 5 min and waits.
# As asked it starts when R1 ends (no demand ahead for a100); broadened, l1's
# GPUs go to P when R2 ends, so it too starts when R1 ends, on a1, finishing
# no sooner: keep. The section must say: as asked (a100) start = R1's end,
# decided by running job R1; broadened start the same, decided by R1, with P
# ahead wanting 4 l40s (its id and priority); 4 a100 held, 8 GPUs held
# broadened. R1's end is checked against slurmctld's EndTime; with
# job_submit/nodeox built, the plugin kept J as asked too. Cancelling R1
# lets J start on a1, as the estimate said.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
why_user_add
with_plugin=no
if [ -f "$(cluster_plugin_path)" ]; then cluster_use_plugin; with_plugin=yes; fi
cluster_add_node a1 gpu=a100:4
cluster_add_node l1 gpu=l40s:4
cluster_nodeox_conf <<'CONF'
GpuType=a100 Feature=a100 Memory=80G Speed=1.0
GpuType=l40s Feature=l40s Memory=48G Speed=0.6
Group=train Types=a100,l40s
ScaleTimeLimit=yes
Broaden=when-faster
CONF
cluster_start

r1=$(cluster_sbatch --gres=gpu:a100:4 --mem=1000 -t 10 --wrap "sleep 600") || cluster_fail "R1 rejected"
r2=$(cluster_sbatch --gres=gpu:l40s:4 --mem=1000 -t 3 --wrap "sleep 600") || cluster_fail "R2 rejected"
wait_for_state "$r1" RUNNING 20 || cluster_fail "R1 did not start"
wait_for_state "$r2" RUNNING 20 || cluster_fail "R2 did not start"
p=$(cluster_sbatch --gres=gpu:l40s:4 --mem=1000 -t 30 --wrap "sleep 600") || cluster_fail "P rejected"
wait_for_reason "$p" Resources 20 || cluster_fail "P not pending on Resources"
j=$(why_user_sbatch --gres=gpu:a100:4 --mem=1000 -t 5 --comment="nodeox:flex" --wrap "sleep 600") ||
	cluster_fail "J rejected"
why_wait_pending "$j"

why_run "$j"
check_eq "$(job_field "$j" UserId | cut -d'(' -f1)" "$WHY_USER" "J is the unprivileged user's"
check_eq "$(jq_py 'j["flex"]["tagged"]')" true "J is tagged"
check_eq "$(jq_py 'j["flex"]["applied"]')" false "J is not broadened"
check_eq "$(jq_py 'j["flex"]["action"]')" KEEP "the estimate keeps it"
check_eq "$(jq_py 'j["flex"]["estimate"]["type"]')" a100 "as asked: a100"
check_eq "$(jq_py 'j["flex"]["estimate"]["broaden"]')" false "... keep"
# as asked: R1's end decides, nothing ahead wants a100
check_eq "$(jq_py '[r["job_id"] for r in j["flex"]["estimate"]["as_asked"]["running"]]')" "$r1" \
	"as asked: decided by R1"
check_eq "$(jq_py 'j["flex"]["estimate"]["as_asked"]["ahead"]')" "" "as asked: no demand ahead"
check_eq "$(jq_py 'j["flex"]["estimate"]["as_asked"]["held_gpus"]')" 4 "as asked: a1's 4 held"
check_eq "$(jq_py 'j["flex"]["estimate"]["as_asked"]["idle_gpus"]')" 0 "as asked: none idle"
r1_end=$(jq_py 'j["flex"]["estimate"]["as_asked"]["running"][0]["end_s"]')
check_eq "$(jq_py 'j["flex"]["estimate"]["kept_start_s"]')" "$r1_end" "as asked: starts at R1's end"
check_eq "$(jq_py 'j["flex"]["estimate"]["kept_finish_s"]')" "$((r1_end + 300))" "... finishes 5 min later"
# R1's end is slurmctld's EndTime, in seconds from the moment nodeox why --json
# ran (between WHY_T0 and WHY_T1; the clock read here would be seconds late
# under load: CI's run on 7f68c20 saw 597 against 593)
r1_endtime=$(date -d "$(job_field "$r1" EndTime)" +%s)
check_true "R1's end ($r1_end s) is slurmctld's EndTime ($((r1_endtime - WHY_T1))..$((r1_endtime - WHY_T0)) s from the run)" \
	test "$r1_end" -ge $((r1_endtime - WHY_T1 - 2)) -a "$r1_end" -le $((r1_endtime - WHY_T0 + 2))
check_true "R1 ends within its 10 min" test "$r1_end" -gt 0 -a "$r1_end" -le 600
# broadened: l1's GPUs go to P, so R1 decides it too; P is named as ahead
check_eq "$(jq_py '[r["job_id"] for r in j["flex"]["estimate"]["broadened"]["running"]]')" "$r1" \
	"broadened: decided by R1"
check_eq "$(jq_py 'j["flex"]["estimate"]["broadened_start_s"]')" "$r1_end" "broadened: starts at R1's end"
check_eq "$(jq_py '[a["first_job_id"] for a in j["flex"]["estimate"]["broadened"]["ahead"]]')" "$p" \
	"broadened: P ahead"
check_eq "$(jq_py 'j["flex"]["estimate"]["broadened"]["ahead"][0]["type"]')" l40s "... wanting l40s"
check_eq "$(jq_py 'j["flex"]["estimate"]["broadened"]["ahead"][0]["gpus"]')" 4 "... 4 of them"
check_eq "$(jq_py 'j["flex"]["estimate"]["broadened"]["ahead"][0]["first_priority"]')" \
	"$(job_field "$p" Priority)" "... with P's priority"
check_eq "$(jq_py 'j["flex"]["estimate"]["broadened"]["held_gpus"]')" 8 "broadened: 8 held"
check_match "$(jq_py 'j["flex"]["estimate"]["not_modelled"]')" "running jobs ending before their limits" \
	"says what it does not model"

text=$("$WHY_BIN" why "$j")
check_match "$text" "when-faster estimate now" "text: the section"
check_match "$text" "as asked \(a100\): start in [0-9]+ s" "text: as asked, type a100"
check_match "$text" "decided by running job $r1 \(ends in [0-9]+ s\)" "text: R1 decides"
check_match "$text" "reservations of pending jobs ahead: job $p \(priority [0-9]+, 4 l40s GPUs\)" "text: P's reservation ahead"
check_match "$text" "broadened \(a100,l40s\): start in [0-9]+ s" "text: broadened"
check_match "$text" "not modelled: " "text: what it does not model"
# the user's own nodeox why shows the same plan
out=$(why_as_user "$WHY_BIN" why "$j") || cluster_fail "nodeox why as $WHY_USER failed"
check_match "$out" "decided by running job $r1" "the user's nodeox why names R1 too"

if [ $with_plugin = yes ]; then
	check_match "$(job_field "$j" TresPerNode)" "a100:4" "the plugin kept J as asked (a100)"
fi

# Remove what decides it: R1 ends, J starts on a1 as asked.
scancel "$r1"
check_true "R1 gone, J starts" wait_for_state "$j" RUNNING 30
check_eq "$(job_field "$j" NodeList)" a1 "... on a1"
cluster_finish
