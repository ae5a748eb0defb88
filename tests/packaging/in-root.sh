#!/bin/bash
# tests/packaging/in-root.sh: run by test_debs.sh inside the Debian root where
# the nodeox .debs were just installed (own network namespace, host name
# pkgtest). Uses installed files only: starts munged, slurmctld with
# JobSubmitPlugins=nodeox (Slurm's default PluginDir) and one slurmd with 2
# a100 and 2 l40s fake GPUs; as an unprivileged user submits a filler, an
# untagged and a tagged job; checks that only the tagged one is rewritten
# (and starts on the l40s), that `nodeox why` explains the waiting one with
# the admin's /etc/slurm/nodeox.conf, and that nodeox-sim, nodeox-sacct-import
# and nodeox-run run from /usr/bin. Stops every daemon it started, by pid.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
t=/srv/pkgtest
checks=0 failures=0
pids=()
ok()   { checks=$((checks + 1)); echo "ok: $*"; }
bad()  { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }
check_eq()    { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3: got '$1', wanted '$2'"; fi; }
check_match() { if [[ $1 =~ $2 ]]; then ok "$3"; else bad "$3: '$1' does not match /$2/"; fi; }
die()  { echo "FAIL: $*"; dump_logs; exit 1; }
say()  { echo "[$(date +%H:%M:%S)] $*"; }

dump_logs()
{
	local f
	for f in /var/log/slurm/*.log /var/log/munge/munged.log; do
		[ -s "$f" ] && { echo "----- tail of $f"; tail -n 25 "$f"; }
	done
}
stop_all()
{
	local i pid
	scancel --quiet --user=pkguser 2>/dev/null
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		pid=${pids[$i]}
		kill -TERM "$pid" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$pid" 2>/dev/null
	done
	pids=()
}
trap stop_all EXIT

# field JOBID KEY: one field of `scontrol -o show job` (values may hold spaces).
field()
{
	scontrol -o show job "$1" 2>/dev/null | head -n 1 | awk -v want="$2" '
	{ key = ""; val = ""
	  for (i = 1; i <= NF; i++) {
	    if (match($i, /^[A-Z][A-Za-z0-9_:\/]*=/)) {
	      if (key == want) break
	      key = substr($i, 1, RLENGTH - 1); val = substr($i, RLENGTH + 1)
	    } else val = val " " $i
	  }
	  if (key == want) print val }'
}
# wait_state JOBID STATE [TIMEOUT]
wait_state()
{
	local end=$((SECONDS + ${3:-30}))
	while [ $SECONDS -le $end ]; do
		[ "$(field "$1" JobState)" = "$2" ] && return 0
		sleep 0.3
	done
	echo "  job $1: $(field "$1" JobState) (reason $(field "$1" Reason)), wanted $2"
	return 1
}
as_user() { runuser -u pkguser -- "$@"; }

# ---------------------------------------------------------------- the version lock
# nodeox-plugin must name the upstream version of the slurmctld it runs in.
ctld=$(dpkg-query -W -f='${Version}' slurmctld); ctld=${ctld%-*}
# Slurm 23.11 and later spell a job's GPU TRES gres/gpu:..., 22.05 gres:gpu:...
vnum=$(( 10#$(echo "$ctld" | cut -d. -f1) * 100 + 10#$(echo "$ctld" | cut -d. -f2) ))
[ "$vnum" -ge 2311 ] && gp=gres/gpu || gp=gres:gpu
check_match "$(dpkg-query -W -f='${Depends}' nodeox-plugin)" "slurmctld \\(>= ${ctld//./\\.}\\), slurmctld \\(<< " \
	"nodeox-plugin depends on slurmctld $ctld exactly (any Debian revision)"

# ---------------------------------------------------------------- configuration (the admin's part)
printf '127.0.0.1 localhost\n127.0.0.1 pkgtest\n' > /etc/hosts
slurmuser=root
id slurm >/dev/null 2>&1 && slurmuser=slurm
mkdir -p /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm /run/slurm "$t/dev" "$t/work"
chown "$slurmuser" /var/lib/slurm/slurmctld /var/log/slurm
chmod 1777 "$t/work"
for i in 0 1 2 3; do mknod "$t/dev/nvidia$i" c 1 3 || die "mknod fake GPU $i"; done
cat > /etc/slurm/slurm.conf <<CONF
# slurm.conf of the package test (tests/packaging/in-root.sh)
ClusterName=pkgtest
SlurmctldHost=pkgtest(127.0.0.1)
SlurmUser=$slurmuser
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
JobSubmitPlugins=nodeox
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=500
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
ReturnToService=2
GresTypes=gpu
NodeName=n1 NodeHostname=pkgtest NodeAddr=127.0.0.1 CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 Gres=gpu:a100:2,gpu:l40s:2 Feature=a100,l40s State=UNKNOWN
PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
# Slurm 23.02 and later initialise a cgroup plugin that fails in a chroot
# (seen with 24.11); 22.05 knows no CgroupPlugin=disabled.
[ "${ctld%%.*}" -lt 23 ] || printf 'CgroupPlugin=disabled\n' > /etc/slurm/cgroup.conf
cat > /etc/slurm/gres.conf <<CONF
AutoDetect=off
NodeName=n1 Name=gpu Type=a100 File=$t/dev/nvidia[0-1]
NodeName=n1 Name=gpu Type=l40s File=$t/dev/nvidia[2-3]
CONF
useradd -M -N -d "$t/work" -s /bin/sh pkguser || die "useradd pkguser"

# ---------------------------------------------------------------- daemons
[ -f /etc/munge/munge.key ] || {
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
	chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
mkdir -p /run/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
runuser -u munge -- munged || die "munged did not start"
pids+=("$(cat /run/munge/munged.pid)")
munge -n | unmunge >/dev/null || die "munge does not answer"

slurmctld -D -i > /var/log/slurm/slurmctld.out 2>&1 &
pids+=($!)
for i in $(seq 100); do
	scontrol ping 2>/dev/null | grep -q "is UP" && break
	kill -0 "${pids[-1]}" 2>/dev/null || die "slurmctld exited at start"
	sleep 0.2
done
scontrol ping | grep -q "is UP" || die "slurmctld not answering"
grep -q "job_submit/nodeox" /var/log/slurm/slurmctld.log &&
	ok "slurmctld loaded job_submit/nodeox from its default PluginDir" ||
	bad "no job_submit/nodeox line in slurmctld.log"
slurmd -D > /var/log/slurm/slurmd.out 2>&1 &
pids+=($!)
for i in $(seq 150); do
	[ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && break
	kill -0 "${pids[-1]}" 2>/dev/null || die "slurmd exited at start"
	sleep 0.2
done
[ "$(sinfo -h -N -o %t)" = idle ] || die "n1 not idle: $(sinfo -h -N -o '%N %t %E')"
say "cluster up: $(sinfo -h -N -o '%N:%t:%G')"

# ---------------------------------------------------------------- jobs
cd "$t/work" || die "no work dir"
j1=$(as_user sbatch --parsable --gres=gpu:a100:2 --wrap "sleep 300" 2>&1)
wait_state "$j1" RUNNING && ok "filler (2 a100) runs" || bad "filler $j1 does not run"
j2=$(as_user sbatch --parsable -t 60 --gres=gpu:a100:2 --wrap "sleep 300" 2>"$t/j2.err")
check_eq "$(cat "$t/j2.err")" "" "untagged job: sbatch says nothing"
check_eq "$(field "$j2" TresPerNode)" "$gp:a100:2" "untagged job keeps its typed request"
check_eq "$(field "$j2" Features)" "(null)" "untagged job gets no constraint"
j3=$(as_user sbatch --parsable -t 60 --gres=gpu:a100:2 --comment=nodeox:flex --wrap "sleep 300" 2>"$t/j3.err")
check_match "$(cat "$t/j3.err")" '^sbatch: nodeox: .*a100' "tagged job: the plugin's one line to the user"
check_eq "$(field "$j3" TresPerNode)" "$gp:2" "tagged job: GPU request untyped"
check_eq "$(field "$j3" Features)" "a100|l40s" "tagged job: constraint a100|l40s"
check_eq "$(field "$j3" TimeLimit)" 01:40:00 "tagged job: 60 min scaled by 1.0/0.6"
check_match "$(field "$j3" AdminComment)" "$gp:a100:2" "admin comment records the original request"
wait_state "$j3" RUNNING && ok "tagged job starts" || bad "tagged job $j3 does not start"
# scontrol -d: the GPUs the job holds, with their indices in gres.conf
check_match "$(scontrol -d show job "$j3" | grep -o 'GRES=[^ ]*IDX[^ ]*')" \
	'^GRES=(gpu:a100:0\(IDX:\),)?gpu:l40s:2\(IDX:2-3\)$' "tagged job got the two idle l40s"
check_eq "$(field "$j2" JobState)" PENDING "untagged job still waits"

# ---------------------------------------------------------------- installed tools
why=$(as_user nodeox why "$j2" 2>&1); rc=$?
echo "$why" | sed 's/^/  | /'
check_eq "$rc" 0 "nodeox why exits 0"
check_match "$why" "Job $j2: PENDING" "nodeox why names the waiting job"
check_match "$why" 'With nodeox \(/etc/slurm/nodeox.conf\)' "nodeox why reads the admin's nodeox.conf"
check_match "$why" 'REWRITE' "nodeox why says what tagging would do"
# two replicas: the installed binary forks its workers too, at a quarter of
# the default 8 runs' time on the week trace
sim=$(nodeox-sim --replicas 2 /usr/share/nodeox/traces/week.csv 2>&1); rc=$?
echo "$sim" | tail -n 6 | sed 's/^/  | /'
check_eq "$rc" 0 "nodeox-sim on the installed week trace exits 0"
check_match "$sim" 'GPU utilisation' "nodeox-sim reports on the installed default cluster"
check_match "$sim" 'median of 2 replicas' "nodeox-sim reports the replicas' medians"
nodeox-sacct-import --help > "$t/sacct.out" 2>&1 && ok "nodeox-sacct-import --help exits 0" ||
	bad "nodeox-sacct-import --help: $(head -n 3 "$t/sacct.out")"
nodeox-run --help > "$t/run.out" 2>&1 && ok "nodeox-run (MPI) --help exits 0" ||
	bad "nodeox-run --help: $(head -n 3 "$t/run.out")"
# python3-nodeox without its recommended python3-torch: the C engine's
# extension loads in Debian's python3 (nodeox.torch itself needs torch)
py=$(python3 -c 'import nodeox._engine as e; print(e.__file__)' 2>&1) &&
	ok "python3-nodeox: nodeox._engine loads ($py)" || bad "python3 -c 'import nodeox._engine': $py"
for f in /usr/share/man/man5/nodeox.conf.5.gz /usr/share/man/man1/nodeox.1.gz \
	/usr/share/man/man1/nodeox-sim.1.gz /usr/share/man/man1/nodeox-sacct-import.1.gz \
	/usr/share/man/man1/nodeox-run.1.gz /usr/share/doc/nodeox-plugin/examples/nodeox.conf \
	/usr/share/nodeox/traces/cluster/slurm.conf; do
	[ -s "$f" ] && ok "installed $f" || bad "missing $f"
done

stop_all
[ "$failures" = 0 ] || dump_logs
echo "in-root: $((checks - failures))/$checks checks passed"
[ "$failures" = 0 ]
