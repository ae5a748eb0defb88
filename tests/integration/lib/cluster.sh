# tests/integration/lib/cluster.sh: a private Slurm cluster on this machine for
# integration tests (sourced, not run). It starts its own munged (own key and
# socket), one slurmctld and several slurmd (`slurmd -N NAME`, multiple-slurmd)
# on their own ports, with fake GPUs (mknod char devices + gres.conf File=),
# all under one run directory, and stops every daemon it started by the pid
# it recorded, on success, failure or signal.
#
# Typical use in a test script:
#   . "$top_srcdir/tests/integration/lib/cluster.sh"
#   cluster_plan_size 200             # optional, before cluster_init: room for
#                                     #   more than 29 nodes (a larger port block)
#   cluster_init                      # skips (exit 77) when it cannot run here
#   cluster_use_plugin                # optional: load job_submit/nodeox
#   cluster_add_node a1 gpu=a100:4    # optional: default is the article's
#   cluster_start                     #   a1,a2 4x a100; l1,l2 4x l40s
#   id=$(cluster_sbatch --gres=gpu:a100:4 --wrap "sleep 300")   # as $CLUSTER_USER
#   wait_for_state "$id" RUNNING 20
#   check_eq "$(job_field "$id" NodeList)" a1 "job ran on a1"
#   cluster_finish                    # exit status from the checks
#
# Environment knobs:
#   NODEOX_IT_PORT    first port of the cluster's block (default: the first free
#                     block of 32 ports from 16800 on, claimed with flock; a
#                     cluster planned larger claims several blocks in a row)
#   NODEOX_IT_TMPDIR  where the run directory is made (default ${TMPDIR:-/tmp})
#   NODEOX_IT_KEEP=1  keep the run directory (logs, confs) after the test
#   NODEOX_IT_DEBUG   SlurmctldDebug/SlurmdDebug level (default info)
#   NODEOX_IT_SLURMD_DEBUG  SlurmdDebug alone (default NODEOX_IT_DEBUG; error
#                     keeps a few hundred slurmd quiet)
#   CLUSTER_CTLD_WRAP command words put before slurmctld (e.g. valgrind and its
#                     options: tests/integration/check_valgrind.sh)
#
# Users: cluster_init creates two unprivileged local users for the test,
# $CLUSTER_USER (who submits by default: cluster_sbatch) and $CLUSTER_USER2
# (another user, e.g. an attacker), and cluster_stop removes them. Plain
# sbatch/scontrol in a test run as root (an operator); cluster_as USER CMD...
# runs a client as a user. CLUSTER_SUBMIT_USER=root makes cluster_sbatch
# submit as root where a test is about root's own jobs.
#
# Functions are named cluster_* (the cluster), job_* / wait_for_* (one job),
# check_* (assertions that count failures without stopping the test; in
# check.sh, sourced from here).

# Run by hand (not by make check), find the tree from this file's place.
: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir

# check_eq, check_match, check_true and their counters.
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"

# Where Slurm keeps its own plugins; ours are searched after these: lib/slurm
# beside the slurmctld found first where Slurm was built from source (the
# 26.05 lane's, in /usr/local: tools/slurm-build), else Debian's directory.
cluster_slurm_plugindir()
{
	local ctld
	ctld=$(PATH=$PATH:/usr/sbin:/sbin command -v slurmctld 2>/dev/null)
	case $ctld in
	*/sbin/slurmctld)
		if [ -f "${ctld%/sbin/slurmctld}/lib/slurm/select_cons_tres.so" ]; then
			echo "${ctld%/sbin/slurmctld}/lib/slurm"
			return
		fi ;;
	esac
	echo /usr/lib/x86_64-linux-gnu/slurm-wlm
}
CLUSTER_SLURM_PLUGINDIR=${CLUSTER_SLURM_PLUGINDIR:-$(cluster_slurm_plugindir)}
# Ports come in blocks of CLUSTER_PORT_BLOCK from 16800 to 18815, each with
# its lock file; a cluster claims CLUSTER_PORT_SPAN ports, a whole number of
# blocks in a row (one unless cluster_plan_size asked for more): slurmctld's
# port first, one per slurmd, the last two for accounting.sh's database.
CLUSTER_PORT_BLOCK=32
CLUSTER_PORT_FIRST=16800
CLUSTER_PORT_LAST=18815
CLUSTER_PORT_SPAN=$CLUSTER_PORT_BLOCK

CLUSTER_DIR=
CLUSTER_PORT=
CLUSTER_NODES=()          # "NAME|GPUTYPE|NGPU|CPUS|SOCKETS|MEM_MB|FEATURES|GRES"
CLUSTER_PARTITIONS=()     # "NAME|NODES|EXTRA"
CLUSTER_EXTRA_CONF=()     # extra slurm.conf lines
CLUSTER_JOB_SUBMIT=       # JobSubmitPlugins value
CLUSTER_PIDS=()           # "NAME:PID" of every daemon started, in start order
CLUSTER_LOCK_FDS=()       # one flock'ed fd per port block held
CLUSTER_WATCHER=          # pid of the watchdog (cluster_watch)
CLUSTER_STOPPED=0
CLUSTER_USER=              # unprivileged user who submits by default
CLUSTER_USER2=             # a second unprivileged user
CLUSTER_USERS=()          # users made by cluster_user_add, removed at stop
# Hook (added for tests/integration/lib/accounting.sh): a function cluster_start
# calls once munged answers and before slurmctld starts (slurmdbd goes there).
CLUSTER_BEFORE_CTLD=

# cluster_skip MESSAGE: print why the test cannot run here and exit 77 (skip).
cluster_skip()
{
	echo "SKIP: $*"
	exit 77
}

# cluster_log MESSAGE: one progress line on stdout (lands in the test's .log).
cluster_log()
{
	echo "[$(date +%H:%M:%S)] $*"
}

# cluster_init: check that this machine can run a cluster (root, slurmctld,
# slurmd, munged, munge, Slurm clients), skip with 77 otherwise; make the run
# directory, claim a port block, install the cleanup trap, export SLURM_CONF
# for the clients, and reset the topology to empty (cluster_start falls back to
# the default topology when no node was added). After cluster_stop, a script
# may call cluster_init again for a fresh cluster.
cluster_init()
{
	local p
	[ "$(id -u)" = 0 ] || cluster_skip "integration tests start slurmctld/slurmd/munged and need root"
	for p in slurmctld slurmd munged munge sbatch scontrol sinfo squeue scancel; do
		command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
			cluster_skip "$p not found (Debian packages slurmctld slurmd slurm-client munge)"
	done
	PATH=$PATH:/usr/sbin:/sbin
	command -v mknod >/dev/null 2>&1 || cluster_skip "mknod not found"
	cluster_slurm_version
	# slurmd 22.05 always initialises its cgroup plugin, even with
	# proctrack/linuxproc and task/none, and exits without a cgroup filesystem;
	# 23.11+ is told CgroupPlugin=disabled (cluster_write_conf) and needs none.
	[ "$CLUSTER_SLURM_VNUM" -ge 2311 ] || [ -n "$(ls -A /sys/fs/cgroup 2>/dev/null)" ] ||
		cluster_skip "no cgroup filesystem at /sys/fs/cgroup: slurmd $CLUSTER_SLURM_VERSION cannot start without one"
	command -v flock >/dev/null 2>&1 || cluster_skip "flock not found (util-linux)"
	for p in useradd userdel runuser; do
		command -v "$p" >/dev/null 2>&1 ||
			cluster_skip "$p not found (Debian packages passwd, util-linux)"
	done
	[ -f "$CLUSTER_SLURM_PLUGINDIR/select_cons_tres.so" ] ||
		cluster_skip "Slurm plugins not found in $CLUSTER_SLURM_PLUGINDIR (set CLUSTER_SLURM_PLUGINDIR)"

	# Jobs of an outer Slurm allocation must not leak into our clients.
	for p in $(env | sed -n 's/^\(SLURM_[A-Z_0-9]*\)=.*/\1/p'); do unset "$p"; done

	CLUSTER_DIR=$(mktemp -d "${NODEOX_IT_TMPDIR:-${TMPDIR:-/tmp}}/nodeox-it.XXXXXX") ||
		{ echo "cluster_init: cannot make a run directory" >&2; exit 99; }
	chmod 755 "$CLUSTER_DIR"
	if ! mknod "$CLUSTER_DIR/probe" c 1 3 2>/dev/null; then
		rm -rf "$CLUSTER_DIR"
		cluster_skip "cannot mknod fake GPU devices in ${CLUSTER_DIR%/*} (no CAP_MKNOD, or mounted nodev)"
	fi
	rm -f "$CLUSTER_DIR/probe"
	mkdir -p "$CLUSTER_DIR"/{state,spool,log,run,dev}
	trap 'cluster_on_exit' EXIT
	trap 'cluster_log "interrupted"; exit 130' INT
	trap 'cluster_log "terminated"; exit 143' TERM HUP
	# Output cut off (e.g. `test | head`): stop quietly, still cleaning up.
	trap 'exec > /dev/null 2>&1; exit 141' PIPE
	cluster_claim_ports || { echo "cluster_init: no free port block" >&2; exit 99; }
	export SLURM_CONF="$CLUSTER_DIR/slurm.conf"
	# Jobs' slurm-N.out and stray files land in the run directory; every
	# test user may write there.
	mkdir -p "$CLUSTER_DIR/work"
	chmod 1777 "$CLUSTER_DIR/work"
	cd "$CLUSTER_DIR/work" || exit 99
	# Marks every process of this cluster (daemons, steps, jobs) for the sweep.
	export NODEOX_IT_DIR="$CLUSTER_DIR"
	cluster_watch
	CLUSTER_NODES=(); CLUSTER_PARTITIONS=(); CLUSTER_EXTRA_CONF=(); CLUSTER_JOB_SUBMIT=
	CLUSTER_PIDS=(); CLUSTER_STOPPED=0; CLUSTER_USERS=()
	CLUSTER_USER=nxit${CLUSTER_PORT}a CLUSTER_USER2=nxit${CLUSTER_PORT}b
	cluster_user_add "$CLUSTER_USER" && cluster_user_add "$CLUSTER_USER2" || exit 99
	export CLUSTER_USER CLUSTER_USER2
	cluster_log "run directory $CLUSTER_DIR, ports $CLUSTER_PORT-$((CLUSTER_PORT + CLUSTER_PORT_SPAN - 1))"
}

# cluster_slurm_version: set CLUSTER_SLURM_VERSION ("24.11.5", from
# `slurmctld -V`) and CLUSTER_SLURM_VNUM (major*100+minor, 2411): the one
# place where tests learn which Slurm they run against. What differs, and
# where it is handled:
#   cgroup.conf  23.11+ (tested: 24.11) gets CgroupPlugin=disabled: slurmd
#                24.11 otherwise refuses to start on a host or chroot whose
#                /sys/fs/cgroup it does not manage ("Unexpected fs type").
#   GPU TRES     job fields read gres:gpu:... before 23.11, gres/gpu:...
#                after: cluster_tres_gpu prints the running version's prefix.
#   job update   26.05 sometimes answers a partition update with EAGAIN:
#                cluster_update_job tries again there.
cluster_slurm_version()
{
	local v
	v=$(slurmctld -V 2>/dev/null | awk '{ print $2; exit }')
	case $v in
	[0-9]*.[0-9]*) ;;
	*) cluster_skip "cannot tell the Slurm version from 'slurmctld -V' ($v)" ;;
	esac
	CLUSTER_SLURM_VERSION=$v
	v=${v%%-*}
	CLUSTER_SLURM_VNUM=$(( 10#${v%%.*} * 100 + 10#$(echo "$v" | cut -d. -f2) ))
}

# cluster_tres_gpu: print how this Slurm spells the GPU entries of a job's
# TRES fields (TresPerNode=, TresPerJob=, ...): gres:gpu or gres/gpu.
cluster_tres_gpu()
{
	[ "${CLUSTER_SLURM_VNUM:-0}" -ge 2311 ] && echo gres/gpu || echo gres:gpu
}

# cluster_tres SPEC [FIELD]: SPEC, TRES entries spelled as 22.05 writes them
# ("gres:gpu:a100:2,gres:nic:1"), in the running Slurm's spelling (23.11+:
# "gres/gpu:a100:2,gres/nic:1"), for comparing with a job's Tres* fields.
# FIELD TresPerTask: 24.11 writes that field's counts after "="
# ("gres/gpu:a100=1", "gres/gpu=1"), as it does cpu=N in the same field.
cluster_tres()
{
	if [ "${CLUSTER_SLURM_VNUM:-0}" -lt 2311 ]; then
		echo "$1"
	elif [ "${2:-}" = TresPerTask ]; then
		echo "$1" | sed 's#\(^\|,\)gres:#\1gres/#g; s#:\([0-9][0-9]*\)\(,\|$\)#=\1\2#g'
	else
		echo "$1" | sed 's#\(^\|,\)gres:#\1gres/#g'
	fi
}

# cluster_watch: start a watchdog that outlives a test shell killed without
# running its EXIT trap (SIGKILL, a signal not trapped): once the shell is
# gone it kills every process carrying this cluster's NODEOX_IT_DIR and
# removes the run directory (unless NODEOX_IT_KEEP=1). It ignores the
# INT/TERM/HUP sent to the test's process group; cluster_stop ends it.
cluster_watch()
{
	local parent=$$
	cluster_watchdog "$parent" &
	CLUSTER_WATCHER=$!
}

# cluster_watchdog_wait PARENT: a watchdog's start: detached from the
# test's signals, trap, locks and output, it returns once PARENT is gone.
cluster_watchdog_wait()
{
	trap '' INT TERM HUP PIPE
	trap - EXIT
	cluster_close_locks
	unset NODEOX_IT_DIR    # its own sleeps are not the cluster's processes
	exec < /dev/null > /dev/null 2>&1
	while kill -0 "$1" 2>/dev/null; do sleep 1; done
}

# cluster_watchdog PARENT: the body of cluster_watch's watchdog.
cluster_watchdog()
{
	cluster_watchdog_wait "$1"
	cluster_sweep
	[ "${NODEOX_IT_KEEP:-0}" = 1 ] || rm -rf "$CLUSTER_DIR"
	exit 0
}

# cluster_plan_size NODES: (before cluster_init) make room for NODES slurmd:
# the port block grows to as many blocks as slurmctld's port, NODES node
# ports and the two accounting ports need. Without it a cluster has one
# block: at most 29 nodes (31 without accounting.sh).
cluster_plan_size()
{
	local need=$(($1 + 3))
	[ -z "$CLUSTER_DIR" ] || { echo "cluster_plan_size: call it before cluster_init" >&2; exit 99; }
	CLUSTER_PORT_SPAN=$(( (need + CLUSTER_PORT_BLOCK - 1) / CLUSTER_PORT_BLOCK * CLUSTER_PORT_BLOCK ))
	[ "$CLUSTER_PORT_SPAN" -ge "$CLUSTER_PORT_BLOCK" ] || CLUSTER_PORT_SPAN=$CLUSTER_PORT_BLOCK
	[ $((CLUSTER_PORT_FIRST + CLUSTER_PORT_SPAN - 1)) -le "$CLUSTER_PORT_LAST" ] ||
		{ echo "cluster_plan_size: $1 nodes need more than ports $CLUSTER_PORT_FIRST-$CLUSTER_PORT_LAST" >&2; exit 99; }
}

# cluster_claim_ports: set CLUSTER_PORT to the first port of CLUSTER_PORT_SPAN
# ports that no socket listens on, and hold an flock on
# /tmp/nodeox-it-port.BASE.lock of each block of them (BASE: the block's first
# port) for the life of the test, so two tests running at once (make -j check,
# a large replay beside them) never share a port. NODEOX_IT_PORT forces the
# first port.
cluster_claim_ports()
{
	local base busy fd k blocks=$((CLUSTER_PORT_SPAN / CLUSTER_PORT_BLOCK))
	for base in ${NODEOX_IT_PORT:-$(seq "$CLUSTER_PORT_FIRST" "$CLUSTER_PORT_BLOCK" \
			$((CLUSTER_PORT_LAST + 1 - CLUSTER_PORT_SPAN)))}; do
		CLUSTER_LOCK_FDS=()
		for ((k = 0; k < blocks; k++)); do
			exec {fd}>>"/tmp/nodeox-it-port.$((base + k * CLUSTER_PORT_BLOCK)).lock" || break
			if ! flock -n "$fd"; then exec {fd}>&-; break; fi
			CLUSTER_LOCK_FDS+=("$fd")
		done
		if [ ${#CLUSTER_LOCK_FDS[@]} = "$blocks" ]; then
			busy=$(ss -Htln 2>/dev/null | awk -v lo="$base" -v hi=$((base + CLUSTER_PORT_SPAN - 1)) '
				{ n = split($4, a, ":"); p = a[n] + 0; if (p >= lo && p <= hi) print p }')
			if [ -z "$busy" ]; then
				CLUSTER_PORT=$base
				return 0
			fi
		fi
		cluster_close_locks
		CLUSTER_LOCK_FDS=()
	done
	return 1
}

# cluster_close_locks: close the port blocks' lock fds in this shell (the
# first thing every daemon and watchdog does: they must not hold the blocks).
cluster_close_locks()
{
	local fd
	for fd in "${CLUSTER_LOCK_FDS[@]}"; do exec {fd}>&-; done
}

# cluster_add_node NAME [gpu=TYPE:N] [cpus=N] [sockets=N] [mem=MB] [features=F1,F2]
#                  [gres=NAME:COUNT]:
# add a node to the topology. gpu= makes N fake GPUs of gres type TYPE and adds
# TYPE to the node's features (so a constraint can name it); cpus defaults to
# 8, sockets to 2 (1 when cpus is odd), mem (RealMemory, MB) to 16000; gres=
# adds a countable non-GPU gres (no device files), e.g. gres=nic:2.
cluster_add_node()
{
	local name=$1 type= ngpu=0 cpus=8 sockets= mem=16000 features= gres= kv
	shift
	for kv in "$@"; do
		case $kv in
		gpu=*:*) type=${kv#gpu=}; ngpu=${type##*:}; type=${type%%:*} ;;
		cpus=*) cpus=${kv#cpus=} ;;
		sockets=*) sockets=${kv#sockets=} ;;
		mem=*) mem=${kv#mem=} ;;
		features=*) features=${kv#features=} ;;
		gres=*:*) gres=${kv#gres=} ;;
		*) echo "cluster_add_node $name: unknown argument '$kv'" >&2; exit 99 ;;
		esac
	done
	[ -n "$sockets" ] || { [ $((cpus % 2)) = 0 ] && sockets=2 || sockets=1; }
	[ -z "$type" ] || features=${features:+$features,}$type
	CLUSTER_NODES+=("$name|$type|$ngpu|$cpus|$sockets|$mem|$features|$gres")
}

# cluster_add_partition NAME NODES [Key=Value ...]: add a partition (NODES is a
# Slurm host list or ALL); extra words go to the PartitionName= line verbatim,
# e.g. Default=YES MaxTime=60 State=UP. Without any, cluster_start makes one
# partition "gpu" with all nodes, Default=YES.
cluster_add_partition()
{
	local name=$1 nodes=$2
	shift 2
	CLUSTER_PARTITIONS+=("$name|$nodes|$*")
}

# cluster_conf_line LINE: append a line to slurm.conf (e.g. "MaxJobCount=50000").
cluster_conf_line()
{
	CLUSTER_EXTRA_CONF+=("$1")
}

# cluster_plugin_path: print the path of the built job_submit/nodeox plugin.
cluster_plugin_path()
{
	echo "${top_builddir:-.}/plugin/.libs/job_submit_nodeox.so"
}

# cluster_use_plugin: load the built job_submit/nodeox (JobSubmitPlugins=nodeox,
# PluginDir gets $top_builddir/plugin/.libs after Slurm's own directory); skip
# with 77 when it is not built. Write nodeox.conf with cluster_nodeox_conf.
cluster_use_plugin()
{
	local so
	so=$(cluster_plugin_path)
	[ -f "$so" ] || cluster_skip "job_submit/nodeox is not built ($so missing)"
	CLUSTER_JOB_SUBMIT=nodeox
}

# cluster_nodeox_conf: write stdin to nodeox.conf next to slurm.conf (where the
# plugin looks). Works before and after cluster_start (the plugin re-reads a
# changed file); the mtime is bumped past the old one so a quick edit is seen,
# and with slurmctld running it waits out the plugin's look interval (it
# stat()s the file at most once a second), so the next job sees the edit.
cluster_nodeox_conf()
{
	local f="$CLUSTER_DIR/nodeox.conf" old=0
	[ -f "$f" ] && old=$(stat -c %Y "$f")
	cat > "$f.tmp"
	rm -rf "$f" 2>/dev/null # a test may have left a FIFO or a directory there
	mv "$f.tmp" "$f"
	[ "$(stat -c %Y "$f")" -gt "$old" ] || touch -d "@$((old + 1))" "$f"
	cluster_nodeox_conf_settle
}

# cluster_nodeox_conf_settle: with slurmctld running, wait until the plugin
# looks at nodeox.conf again (it does at most once a second).
cluster_nodeox_conf_settle()
{
	cluster_alive slurmctld && sleep 1.2
	return 0
}

# cluster_nodeox_conf_article [KEY=VALUE...]: write the article's nodeox.conf
# (a100: 80G, speed 1.0; l40s: 48G, speed 0.6; one group "train" of both;
# Mode=enforce, ScaleTimeLimit=yes, PreferRequested=no, Broaden=always). Each
# KEY=VALUE replaces the line of that key, or is appended when the key is not
# among those (e.g. Partitions=gpu, MinSpeed=0.7): nodeox.conf allows a key
# only once.
cluster_nodeox_conf_article()
{
	local kv key i
	local lines=("Mode=enforce"
		"GpuType=a100 Feature=a100 Memory=80G Speed=1.0"
		"GpuType=l40s Feature=l40s Memory=48G Speed=0.6"
		"Group=train Types=a100,l40s"
		"ScaleTimeLimit=yes"
		"PreferRequested=no"
		"Broaden=always")
	for kv in "$@"; do
		key=${kv%%=*}
		for i in "${!lines[@]}"; do
			[ "${lines[$i]%%=*}" = "$key" ] && { lines[$i]=$kv; continue 2; }
		done
		lines+=("$kv")
	done
	{
		echo "# nodeox.conf written by tests/integration/lib/cluster.sh"
		printf '%s\n' "${lines[@]}"
	} | cluster_nodeox_conf
}

# cluster_default_topology [ARG...]: the background article's cluster: a1,a2
# with 4x a100 (Feature=a100), l1,l2 with 4x l40s (Feature=l40s), one
# partition "gpu"; ARGs (cluster_add_node's key=value) apply to every node.
cluster_default_topology()
{
	cluster_add_node a1 gpu=a100:4 "$@"
	cluster_add_node a2 gpu=a100:4 "$@"
	cluster_add_node l1 gpu=l40s:4 "$@"
	cluster_add_node l2 gpu=l40s:4 "$@"
}

# cluster_write_conf: write slurm.conf, gres.conf, plugstack.conf and the fake
# GPU device nodes for the current topology into the run directory.
cluster_write_conf()
{
	local d=$CLUSTER_DIR host n name type ngpu cpus sockets mem features i port
	local plugindir=$CLUSTER_SLURM_PLUGINDIR gpuline per s first last cps gres nodegres grestypes=gpu
	host=$(hostname -s)
	# node ports: CLUSTER_PORT+1 on, below the block's two accounting ports
	# where accounting.sh uses them
	[ $((${#CLUSTER_NODES[@]} + (${ACCT_DB_PORT:+2} + 1))) -le "$CLUSTER_PORT_SPAN" ] ||
		cluster_fail "${#CLUSTER_NODES[@]} nodes do not fit in $CLUSTER_PORT_SPAN ports: call cluster_plan_size ${#CLUSTER_NODES[@]} before cluster_init"
	[ -z "$CLUSTER_JOB_SUBMIT" ] || plugindir="$plugindir:$(cd "$(dirname "$(cluster_plugin_path)")" && pwd)"
	{
		echo "# slurm.conf written by tests/integration/lib/cluster.sh"
		echo "ClusterName=nodeoxit"
		echo "SlurmctldHost=$host(127.0.0.1)"
		echo "SlurmctldPort=$CLUSTER_PORT"
		echo "SlurmdPort=$((CLUSTER_PORT + 1))"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "AuthType=auth/munge"
		echo "AuthInfo=socket=$d/munge.sock"
		echo "CredType=cred/munge"
		echo "StateSaveLocation=$d/state"
		echo "SlurmdSpoolDir=$d/spool/%n"
		echo "SlurmctldPidFile=$d/run/slurmctld.pid"
		echo "SlurmdPidFile=$d/run/slurmd-%n.pid"
		echo "SlurmctldLogFile=$d/log/slurmctld.log"
		echo "SlurmdLogFile=$d/log/slurmd-%n.log"
		echo "SlurmctldDebug=${NODEOX_IT_DEBUG:-info}"
		echo "SlurmdDebug=${NODEOX_IT_SLURMD_DEBUG:-${NODEOX_IT_DEBUG:-info}}"
		echo "PluginDir=$plugindir"
		echo "PlugStackConfig=$d/plugstack.conf"
		[ -z "$CLUSTER_JOB_SUBMIT" ] || echo "JobSubmitPlugins=$CLUSTER_JOB_SUBMIT"
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/none"
		echo "SwitchType=switch/none"
		echo "MpiDefault=none"
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_Core_Memory"
		echo "DefMemPerCPU=500"
		echo "SchedulerType=sched/backfill"
		echo "SchedulerParameters=bf_interval=1,sched_interval=2"
		echo "AccountingStorageType=accounting_storage/none"
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "JobCompType=jobcomp/none"
		echo "SlurmdParameters=config_overrides"
		echo "ReturnToService=2"
		for n in "${CLUSTER_NODES[@]}"; do
			gres=${n##*|}
			[ -z "$gres" ] || case ",$grestypes," in *",${gres%%:*},"*) ;; *) grestypes="$grestypes,${gres%%:*}" ;; esac
		done
		echo "GresTypes=$grestypes"
		echo "MailProg=/bin/true"
		echo "KillWait=2"
		echo "MinJobAge=300"
		echo "InactiveLimit=0"
		echo "SlurmdTimeout=300"
		echo "SlurmctldTimeout=300"
		echo "MessageTimeout=10"
		for i in "${CLUSTER_EXTRA_CONF[@]}"; do echo "$i"; done
		port=$((CLUSTER_PORT + 1))
		for n in "${CLUSTER_NODES[@]}"; do
			IFS='|' read -r name type ngpu cpus sockets mem features gres <<< "$n"
			nodegres=${type:+gpu:$type:$ngpu}
			[ -z "$gres" ] || nodegres=${nodegres:+$nodegres,}$gres
			echo "NodeName=$name NodeHostname=$host NodeAddr=127.0.0.1 Port=$port" \
				"CPUs=$cpus Sockets=$sockets CoresPerSocket=$((cpus / sockets)) ThreadsPerCore=1" \
				"RealMemory=$mem${nodegres:+ Gres=$nodegres}${features:+ Feature=$features} State=UNKNOWN"
			port=$((port + 1))
		done
		if [ ${#CLUSTER_PARTITIONS[@]} = 0 ]; then
			echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
		else
			for n in "${CLUSTER_PARTITIONS[@]}"; do
				IFS='|' read -r name features i <<< "$n"
				echo "PartitionName=$name Nodes=$features State=UP $i"
			done
		fi
	} > "$d/slurm.conf"
	: > "$d/plugstack.conf"
	if [ "${CLUSTER_SLURM_VNUM:-0}" -ge 2311 ]; then
		printf '%s\n' "# cgroup.conf written by tests/integration/lib/cluster.sh" \
			"CgroupPlugin=disabled" > "$d/cgroup.conf"
	fi
	{
		echo "# gres.conf written by tests/integration/lib/cluster.sh: fake GPUs"
		echo "AutoDetect=off"
		for n in "${CLUSTER_NODES[@]}"; do
			IFS='|' read -r name type ngpu cpus sockets mem features gres <<< "$n"
			[ -z "$gres" ] || echo "NodeName=$name Name=${gres%%:*} Count=${gres#*:}"
			[ -n "$type" ] && [ "$ngpu" -gt 0 ] || continue
			mkdir -p "$d/dev/$name"
			for ((i = 0; i < ngpu; i++)); do mknod "$d/dev/$name/nvidia$i" c 1 3; done
			gpuline="NodeName=$name Name=gpu Type=$type"
			if [ $((ngpu % sockets)) = 0 ]; then
				# GPUs split evenly over the sockets, each bound to its socket's cores.
				per=$((ngpu / sockets)); cps=$((cpus / sockets))
				for ((s = 0; s < sockets; s++)); do
					first=$((s * per)); last=$((first + per - 1))
					echo "$gpuline File=$d/dev/$name/nvidia[$first-$last] Cores=$((s * cps))-$((s * cps + cps - 1))"
				done
			else
				echo "$gpuline File=$d/dev/$name/nvidia[0-$((ngpu - 1))]"
			fi
		done
	} > "$d/gres.conf"
}

# cluster_spawn NAME CMD...: start CMD in the background (stdin /dev/null,
# output to log/NAME.out, our port locks not inherited) and record NAME:PID.
cluster_spawn()
{
	local name=$1 pid
	shift
	( cluster_close_locks; exec "$@" ) < /dev/null > "$CLUSTER_DIR/log/$name.out" 2>&1 &
	pid=$!
	CLUSTER_PIDS+=("$name:$pid")
}

# cluster_alive NAME: true when the daemon recorded as NAME still runs.
cluster_alive()
{
	local e
	for e in "${CLUSTER_PIDS[@]}"; do
		[ "${e%%:*}" = "$1" ] && kill -0 "${e#*:}" 2>/dev/null && return 0
	done
	return 1
}

# cluster_pid NAME: print the recorded pid of daemon NAME.
cluster_pid()
{
	local e
	for e in "${CLUSTER_PIDS[@]}"; do
		[ "${e%%:*}" = "$1" ] && { echo "${e#*:}"; return 0; }
	done
	return 1
}

# cluster_start: write the configuration (default topology when no node was
# added), start munged, slurmctld and one slurmd per node, and wait until every
# node is idle. Fails the test (exit 1, with the daemons' logs) when the
# cluster does not come up within 60 s.
cluster_start()
{
	local d=$CLUSTER_DIR n name i
	[ -n "$d" ] || { echo "cluster_start: call cluster_init first" >&2; exit 99; }
	[ ${#CLUSTER_NODES[@]} -gt 0 ] || cluster_default_topology
	cluster_write_conf
	[ -f "$d/nodeox.conf" ] || [ -z "$CLUSTER_JOB_SUBMIT" ] || printf 'Mode=enforce\n' | cluster_nodeox_conf

	dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 2>/dev/null
	chmod 600 "$d/munge.key"
	cluster_spawn munged munged -F --force --socket="$d/munge.sock" --key-file="$d/munge.key" \
		--pid-file="$d/run/munged.pid" --log-file="$d/log/munged.log" --seed-file="$d/run/munged.seed"
	for i in $(seq 50); do
		munge -S "$d/munge.sock" -n 2>/dev/null | unmunge -S "$d/munge.sock" >/dev/null 2>&1 && break
		cluster_alive munged || cluster_fail "munged exited at start"
		sleep 0.1
	done
	[ "$i" -lt 50 ] || cluster_fail "munged not answering on $d/munge.sock"
	[ -z "$CLUSTER_BEFORE_CTLD" ] || "$CLUSTER_BEFORE_CTLD"

	# shellcheck disable=SC2086 # the wrapper is words on purpose
	cluster_spawn slurmctld ${CLUSTER_CTLD_WRAP:-} slurmctld -D -c -i -f "$d/slurm.conf"
	n=100; [ -z "${CLUSTER_CTLD_WRAP:-}" ] || n=600   # valgrind starts slowly
	for i in $(seq $n); do
		scontrol ping 2>/dev/null | grep -q "is UP" && break
		cluster_alive slurmctld || cluster_fail "slurmctld exited at start"
		sleep 0.2
	done
	[ "$i" -lt $n ] || cluster_fail "slurmctld not answering on port $CLUSTER_PORT"

	for n in "${CLUSTER_NODES[@]}"; do
		name=${n%%|*}
		mkdir -p "$d/spool/$name"
		cluster_spawn "slurmd-$name" slurmd -D -N "$name" -f "$d/slurm.conf"
	done
	cluster_wait_ready "$(cluster_start_timeout)"
	cluster_log "cluster up: $(sinfo -h -o '%D:%N:%t:%G' | tr '\n' ' ')"
}

# cluster_restart_ctld: stop slurmctld (TERM, by its recorded pid), start it
# again recovering its state (jobs survive), wait until it answers and every
# node is idle or allocated again. For tests of what slurmctld does at start.
cluster_restart_ctld()
{
	local pid i
	pid=$(cluster_pid slurmctld) || cluster_fail "cluster_restart_ctld: slurmctld not started"
	kill -TERM "$pid" 2>/dev/null
	cluster_reap "$pid" 20 || cluster_fail "slurmctld ($pid) did not stop"
	CLUSTER_PIDS=("${CLUSTER_PIDS[@]/slurmctld:$pid}")
	cluster_spawn slurmctld slurmctld -D -f "$CLUSTER_DIR/slurm.conf"
	for i in $(seq 100); do
		scontrol ping 2>/dev/null | grep -q "is UP" && return 0
		cluster_alive slurmctld || cluster_fail "slurmctld exited at restart"
		sleep 0.2
	done
	cluster_fail "slurmctld not answering after restart"
}

# cluster_start_timeout: seconds to allow the nodes to come up: 60, and half
# a second more per node above 50 (160 slurmd took 18 s to register at a
# load average of 7 on the 2-core machine, 53 s at 41).
cluster_start_timeout()
{
	local n=${#CLUSTER_NODES[@]}
	echo $((60 + (n > 50 ? (n - 50) / 2 : 0)))
}

# cluster_wait_ready [TIMEOUT]: wait until every node of the cluster is idle
# (sinfo), at most TIMEOUT seconds (default 30); fail the test otherwise.
cluster_wait_ready()
{
	local timeout=${1:-30} end states e
	end=$((SECONDS + timeout))
	while [ $SECONDS -lt $end ]; do
		states=$(sinfo -h -N -o '%t' 2>/dev/null | sort -u | tr '\n' ' ')
		[ "$states" = "idle " ] && return 0
		for e in "${CLUSTER_PIDS[@]}"; do
			case $e in
			slurmd-*) kill -0 "${e#*:}" 2>/dev/null || cluster_fail "slurmd ${e%:*} exited" ;;
			esac
		done
		sleep 0.3
	done
	cluster_fail "nodes not idle after ${timeout}s: $(sinfo -h -N -o '%N=%t' | tr '\n' ' ')"
}

# cluster_stop: cancel all jobs, stop every recorded daemon (slurmd, slurmctld,
# munged; TERM, then KILL after 10 s), kill any process still carrying this
# cluster's NODEOX_IT_DIR (job steps, jobs), and remove the run directory
# (kept when NODEOX_IT_KEEP=1). Safe to call twice.
cluster_stop()
{
	local i e pid name batch left
	[ "$CLUSTER_STOPPED" = 0 ] || return 0
	CLUSTER_STOPPED=1
	if [ -n "$CLUSTER_WATCHER" ]; then
		kill -KILL "$CLUSTER_WATCHER" 2>/dev/null
		wait "$CLUSTER_WATCHER" 2>/dev/null
		CLUSTER_WATCHER=
	fi
	if cluster_alive slurmctld; then
		scancel --quiet --user="$(id -un)" 2>/dev/null
		for e in "${CLUSTER_USERS[@]}"; do scancel --quiet --user="$e" 2>/dev/null; done
		for i in $(seq 20); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.25
		done
	fi
	# Stop in reverse start order: slurmd first, munged last; the slurmd all
	# at once (a few hundred one by one would take minutes).
	for ((i = ${#CLUSTER_PIDS[@]} - 1; i >= 0; i--)); do
		batch=("${CLUSTER_PIDS[$i]}")
		while [ "$i" -gt 0 ] && [[ ${batch[0]} == slurmd-* && ${CLUSTER_PIDS[$((i - 1))]} == slurmd-* ]]; do
			i=$((i - 1)); batch+=("${CLUSTER_PIDS[$i]}")
		done
		left=()
		for e in "${batch[@]}"; do kill -TERM "${e#*:}" 2>/dev/null && left+=("$e"); done
		for e in "${left[@]}"; do
			name=${e%%:*}; pid=${e#*:}
			cluster_reap "$pid" 10 || { cluster_log "$name ($pid) ignored TERM, killing"; kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
		done
	done
	CLUSTER_PIDS=()
	cluster_sweep
	cluster_users_remove
	cluster_close_locks
	CLUSTER_LOCK_FDS=()
	if [ -n "$CLUSTER_DIR" ] && [ -d "$CLUSTER_DIR" ]; then
		cd / || :
		if [ "${NODEOX_IT_KEEP:-0}" = 1 ]; then
			cluster_log "kept $CLUSTER_DIR"
		else
			rm -rf "$CLUSTER_DIR"
		fi
	fi
}

# cluster_user_add NAME: create an unprivileged local user for this test (no
# home; cluster_init names its users after the cluster's port block, so tests
# running at once never share one). Removed at stop.
cluster_user_add()
{
	local name=$1
	if ! id -u "$name" >/dev/null 2>&1; then
		useradd -M -N -d "$CLUSTER_DIR/work" -s /bin/sh -c "nodeox test user" "$name" \
			>/dev/null 2>&1 || { echo "cluster_user_add: useradd $name failed" >&2; return 1; }
	fi
	CLUSTER_USERS+=("$name")
}

# cluster_users_remove: remove the users cluster_user_add made (their jobs
# and processes are gone by now: cluster_stop cancels and sweeps first).
cluster_users_remove()
{
	local u
	for u in "${CLUSTER_USERS[@]}"; do
		pkill -KILL -u "$u" 2>/dev/null
		userdel "$u" >/dev/null 2>&1 || cluster_log "userdel $u failed"
	done
	CLUSTER_USERS=()
}

# cluster_as USER CMD...: run a Slurm client (or anything) as USER, with this
# cluster's SLURM_CONF. USER root runs it as is.
cluster_as()
{
	local u=$1
	shift
	if [ "$u" = root ]; then "$@"; return; fi
	runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" NODEOX_IT_DIR="$NODEOX_IT_DIR" "$@"
}

# cluster_reap PID TIMEOUT: wait up to TIMEOUT seconds for our child PID to
# exit and collect it; false if it still runs.
cluster_reap()
{
	local pid=$1 end=$((SECONDS + $2))
	while kill -0 "$pid" 2>/dev/null; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
	wait "$pid" 2>/dev/null
	return 0
}

# cluster_sweep: kill (KILL) every process whose environment holds this
# cluster's NODEOX_IT_DIR: job steps and job processes the stopped slurmd left.
cluster_sweep()
{
	local env pid left=
	[ -n "$CLUSTER_DIR" ] || return 0
	# one grep over every environment (a process each would take seconds
	# beside a few hundred slurmd and job steps)
	for env in $(grep -lzxF "NODEOX_IT_DIR=$CLUSTER_DIR" /proc/[0-9]*/environ 2>/dev/null); do
		pid=${env#/proc/}; pid=${pid%/environ}
		[ "$pid" != $$ ] && [ "$pid" != "$BASHPID" ] || continue
		# Only processes we own outright: never our own shell's ancestors.
		left="$left $pid"
	done
	[ -z "$left" ] && return 0
	cluster_log "killing leftover processes:$left"
	kill -KILL $left 2>/dev/null
}

# cluster_on_exit [STOP...]: the EXIT trap: on a failed test print the
# daemons' log tails, then stop with STOP (default cluster_stop; the netns
# cluster and the why tests' test user give their own), keeping the test's
# exit status.
cluster_on_exit()
{
	local rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -n "$CLUSTER_DIR" ]; then
		cluster_dump_logs
	fi
	"${@:-cluster_stop}"
	exit "$rc"
}

# cluster_dump_logs: print the last lines of every daemon log (for failures).
cluster_dump_logs()
{
	local f
	for f in "$CLUSTER_DIR"/log/*; do
		[ -s "$f" ] || continue
		# A daemon's .out repeats its .log; munged has only the .out.
		case $f in *.out) [ -e "${f%.out}.log" ] && continue ;; esac
		echo "----- tail of $f"
		tail -n 25 "$f"
	done
	[ -f "$CLUSTER_DIR/nodeox.conf" ] && { echo "----- nodeox.conf"; cat "$CLUSTER_DIR/nodeox.conf"; }
}

# cluster_fail MESSAGE: the cluster itself failed: print MESSAGE and exit 1
# (the EXIT trap dumps logs and stops the daemons).
cluster_fail()
{
	echo "FAIL: $*" >&2
	exit 1
}

# cluster_sbatch ARGS...: run `sbatch --parsable ARGS` and print the job id;
# sbatch's stderr (the plugin's user message) is kept for cluster_submit_msg
# and copied to the test log. Returns sbatch's exit status; prints nothing
# when the submission was rejected. (Usually called as id=$(cluster_sbatch
# ...), a subshell: hence a file, not a variable, for the message.)
cluster_sbatch()
{
	local out rc
	out=$(cluster_as "${CLUSTER_SUBMIT_USER:-$CLUSTER_USER}" sbatch --parsable "$@" \
		2> "$CLUSTER_DIR/submit.err")
	rc=$?
	[ -s "$CLUSTER_DIR/submit.err" ] && echo "  sbatch $*: $(cat "$CLUSTER_DIR/submit.err")" >&2
	[ $rc = 0 ] && echo "${out%%;*}"
	return $rc
}

# cluster_update_job ARGS...: `scontrol update ARGS` as root (an operator's
# update). slurmctld 26.05.5 answers a job's first partition update a few
# seconds after its start now and then with EAGAIN ("Resource temporarily
# unavailable"), and the same update a second later succeeds (seen in the
# forky lane, a held job and a pending one alike): on 26.05 and later the
# update is tried again, on that answer only, each retry said in the test
# log, for up to 30 s (5 s was not enough for 26.05.3 in a loaded CI run:
# test_why_partlimit's job 1 was refused from 1 s to 7 s after slurmctld
# started). Returns scontrol's last exit status.
cluster_update_job()
{
	local out rc i
	for i in $(seq 1 31); do
		out=$(scontrol update "$@" 2>&1)
		rc=$?
		[ -z "$out" ] || echo "$out" >&2
		[ "$rc" != 0 ] && [ "${CLUSTER_SLURM_VNUM:-0}" -ge 2605 ] && [ "$i" -lt 31 ] &&
			[[ $out == *"Resource temporarily unavailable"* ]] || return $rc
		echo "  scontrol update $*: EAGAIN from slurmctld $CLUSTER_SLURM_VERSION, again in 1 s" >&2
		sleep 1
	done
}

# cluster_filler VAR NODE GRES: an untagged filler job ("sleep 300") pinned
# to NODE and holding GRES there, so that other jobs must go elsewhere; its id
# in VAR, and a check that it runs within 20 seconds. (Not called in a
# subshell: the check is counted here.)
cluster_filler()
{
	local id
	id=$(cluster_sbatch -w "$2" --gres="$3" --wrap "sleep 300")
	printf -v "$1" '%s' "$id"
	check_true "filler $3 on $2 runs" wait_for_state "$id" RUNNING 20
}

# cluster_submit_msg: print what the last cluster_sbatch wrote to stderr.
cluster_submit_msg()
{
	cat "$CLUSTER_DIR/submit.err" 2>/dev/null
}

# job_show JOBID: print `scontrol -o show job JOBID` (one line per component);
# nothing for an empty JOBID.
job_show()
{
	[ -n "$1" ] || return 1    # never all jobs: an empty id is a failed submit
	scontrol -o show job "$1" 2>/dev/null
}

# job_field JOBID FIELD: print the value of FIELD (as scontrol spells it, e.g.
# TresPerNode, Features, AdminComment, JobState, Reason, NodeList, TimeLimit)
# for JOBID; empty when scontrol does not print the field. A value runs up to
# the next " Key=" with an upper-case Key (scontrol's keys all start so), so
# it may contain spaces and lower-case key=value words (as comments do). For a
# het job or array, JOBID should name one component (e.g. 12+1 or 12_3): the
# first line is used.
job_field()
{
	job_show "$1" | head -n 1 | awk -v want="$2" '
	{
		key = ""; val = ""; found = 0
		for (i = 1; i <= NF; i++) {
			if (match($i, /^[A-Z][A-Za-z0-9_:\/]*=/)) {
				if (key == want) { found = 1; break }
				key = substr($i, 1, RLENGTH - 1); val = substr($i, RLENGTH + 1)
			} else {
				val = val " " $i
			}
		}
		if (key == want) print val
	}'
}

# job_state JOBID: print the job's state (PENDING, RUNNING, ...).
job_state()
{
	job_field "$1" JobState
}

# wait_for_state JOBID STATE [TIMEOUT]: wait up to TIMEOUT seconds (default
# 20) until JOBID is in STATE; true when reached, false (with a note) if not.
wait_for_state()
{
	local id=$1 want=$2 end=$((SECONDS + ${3:-20})) st=
	while [ $SECONDS -le $end ]; do
		st=$(job_state "$id")
		[ "$st" = "$want" ] && return 0
		sleep 0.3
	done
	echo "  job $id: state '$st' after ${3:-20}s, wanted $want (reason $(job_field "$id" Reason))" >&2
	return 1
}

# wait_for_reason JOBID REASON [TIMEOUT]: wait until a pending JOBID shows a
# Reason starting with REASON (an extended regex; Slurm appends details, e.g.
# ReqNodeNotAvail,_UnavailableNodes:n1); the scheduler sets it on its first
# pass over the job.
wait_for_reason()
{
	local id=$1 want=$2 end=$((SECONDS + ${3:-20})) r=
	while [ $SECONDS -le $end ]; do
		r=$(job_field "$id" Reason)
		[[ $r =~ ^($want)($|,) ]] && return 0
		sleep 0.3
	done
	echo "  job $id: reason '$r' after ${3:-20}s, wanted $want" >&2
	return 1
}

# wait_for_empty_queue [TIMEOUT]: wait up to TIMEOUT seconds (default 20)
# until squeue lists no job (e.g. after scancel).
wait_for_empty_queue()
{
	local end=$((SECONDS + ${1:-20}))
	while [ $SECONDS -le $end ]; do
		[ -z "$(squeue -h -o %i 2>/dev/null)" ] && return 0
		sleep 0.3
	done
	echo "  queue not empty after ${1:-20}s: $(squeue -h -o '%i:%T' | tr '\n' ' ')" >&2
	return 1
}

# wait_for_queue_size N [TIMEOUT]: wait up to TIMEOUT seconds (default 20)
# until squeue lists exactly N jobs.
wait_for_queue_size()
{
	local end=$((SECONDS + ${2:-20})) n
	while [ $SECONDS -le $end ]; do
		n=$(squeue -h -o %i 2>/dev/null | wc -l)
		[ "$n" = "$1" ] && return 0
		sleep 0.3
	done
	echo "  queue has $n jobs after ${2:-20}s, wanted $1: $(squeue -h -o '%i:%T' | tr '\n' ' ')" >&2
	return 1
}

# cluster_drain NODE [REASON]: drain NODE (scontrol update) and wait until
# sinfo shows it drained or draining.
cluster_drain()
{
	local i
	scontrol update nodename="$1" state=drain reason="${2:-test}" || cluster_fail "cannot drain $1"
	for i in $(seq 50); do
		case $(sinfo -h -n "$1" -o %t) in drain*|drng*) return 0 ;; esac
		sleep 0.2
	done
	cluster_fail "$1 not drained: $(sinfo -h -n "$1" -o %t)"
}

# cluster_ctld_log: print slurmctld's log so far.
cluster_ctld_log()
{
	cat "$CLUSTER_DIR/log/slurmctld.log" 2>/dev/null
}

# cluster_finish: stop the cluster and exit 0 when every check passed, 1
# otherwise (after printing the counts).
cluster_finish()
{
	echo "$((CLUSTER_CHECKS - CLUSTER_FAILURES))/$CLUSTER_CHECKS checks passed"
	[ "$CLUSTER_FAILURES" = 0 ] || exit 1
	exit 0
}
