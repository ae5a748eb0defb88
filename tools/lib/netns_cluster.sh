# tools/lib/netns_cluster.sh: a private Slurm cluster on this machine where
# every node is a separate host to Slurm, PMIx and MPI (sourced, not run).
#
# Built on tests/integration/lib/cluster.sh (its users, port block, munged,
# pid bookkeeping, job_* / wait_for_* helpers and checks), with this
# difference: slurmctld and each slurmd run in their own network namespace
# (ip netns), each with its own address on a private /24 and its own
# hostname (UTS namespace). The namespaces are joined by veth pairs to a
# bridge that lives in a namespace of its own, so no interface or address is
# ever added to the machine's own network namespace and nothing is routed
# anywhere else. MPI traffic between ranks on different nodes crosses those
# veth links (Open MPI's tcp transport); ranks on one node use shared memory.
#
# Why namespaces: several slurmd of one host share Slurm's PMIx client
# directory (spmix_appdir_UID_JOB.STEP under TmpFS, or PMIxCliTmpDirBase),
# so one srun --mpi=pmix step across two of them fails with "File exists".
# Each node here has its own SlurmdSpoolDir (%n) and TmpFS (%n; Slurm expands
# %n there for PMIx), which keeps Slurm's files apart; that alone is not
# enough (seen: Open MPI then crashes in its first collective, both "nodes"
# being the same host to it). The namespaces make addresses, hostnames and
# Open MPI's view of locality those of separate hosts (doc/demo.md).
#
# Use:
#   . tools/lib/netns_cluster.sh
#   netns_init                       # skips (77) when namespaces can't be made
#   cluster_use_plugin; cluster_nodeox_conf_article
#   netns_add_node a1 gpu=a100:4 weight=1
#   netns_start
#   id=$(cluster_sbatch ...)         # as $CLUSTER_USER, inside the head namespace
#   ...                              # scontrol/squeue/sinfo/scancel/srun run in
#                                    # the head namespace; others: netns_exec "$NETNS_HEAD" CMD
#   netns_finish                     # (or just exit: the EXIT trap cleans up)
#
# Cleanup, on success, failure or signal: cancel jobs, stop every daemon by
# its pid, kill leftover processes of this cluster, remove the users, the run
# directory and every namespace made (which removes the veths and the
# bridge). A watchdog does the same when the shell dies without its trap.
#
# Processes enter a namespace with `nsenter --net`, not `ip netns exec`: the
# latter remounts /sys for the namespace, which hides /sys/fs/cgroup, and
# slurmd 22.05 will not start without its cgroup filesystem. So no mount is
# made at all; `ip netns add` mounts the namespace's handle under
# /run/netns, and `ip netns del` removes it.

: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
. "$top_srcdir/tests/integration/lib/cluster.sh"

NETNS_PREFIX=            # nxd<port>-: every namespace name starts with it
NETNS_SUBNET=            # 10.254.K: the /24 of this cluster
NETNS_MADE=()            # namespaces created, in order
NETNS_HEAD=              # namespace of slurmctld and of the clients
NETNS_NODE_WEIGHT=()     # "NAME|WEIGHT"
NETNS_WATCHER=

# netns_skip_unless_possible: skip (77) unless ip(8) can make a namespace
# with a veth pair here (root, CAP_NET_ADMIN, /run/netns writable).
netns_skip_unless_possible()
{
	local probe=nxprobe$$
	command -v ip >/dev/null 2>&1 || cluster_skip "ip (iproute2) not found"
	command -v unshare >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 ||
		cluster_skip "unshare or nsenter (util-linux) not found"
	ip netns add "$probe" 2>/dev/null ||
		cluster_skip "cannot make a network namespace (ip netns add: needs root and CAP_SYS_ADMIN)"
	if ! ip -n "$probe" link add nxp0 type veth peer name nxp1 2>/dev/null; then
		ip netns del "$probe" 2>/dev/null
		cluster_skip "cannot make a veth pair inside a network namespace"
	fi
	ip netns del "$probe" 2>/dev/null
}

# netns_init: cluster_init (users, run directory, port block), then check
# that namespaces work, pick the names and the /24, and replace the EXIT
# trap so the namespaces go too.
netns_init()
{
	cluster_init
	netns_skip_unless_possible
	NETNS_PREFIX=nxd${CLUSTER_PORT}-
	# 10.254.K.0/24, K from the port block: clusters running at once differ
	# (they could not see each other anyway: nothing is routed)
	NETNS_SUBNET=10.254.$(((CLUSTER_PORT - CLUSTER_PORT_FIRST) / CLUSTER_PORT_BLOCK % 250))
	NETNS_HEAD=${NETNS_PREFIX}head
	NETNS_MADE=(); NETNS_NODE_WEIGHT=()
	trap 'cluster_on_exit netns_stop' EXIT
	netns_watch
}

# netns_add_node NAME [weight=W] [cluster_add_node's key=value...]: a node;
# weight is Slurm's node Weight= (lower is used first; default 1).
netns_add_node()
{
	local name=$1 kv weight=1 rest=()
	shift
	for kv in "$@"; do
		case $kv in
		weight=*) weight=${kv#weight=} ;;
		*) rest+=("$kv") ;;
		esac
	done
	cluster_add_node "$name" "${rest[@]}"
	NETNS_NODE_WEIGHT+=("$name|$weight")
}

# netns_addr INDEX: the address of host INDEX (1 = head, nodes from 11).
netns_addr()
{
	echo "$NETNS_SUBNET.$1"
}

# netns_make NAME ADDR: a namespace NAME with lo up and eth0 = ADDR/24,
# joined to the bridge (in ${NETNS_PREFIX}sw) by a veth pair.
netns_make()
{
	local ns=$1 addr=$2 i=${#NETNS_MADE[@]}
	ip netns add "$ns" || cluster_fail "ip netns add $ns failed"
	NETNS_MADE+=("$ns")
	ip -n "$ns" link set lo up || cluster_fail "lo up in $ns failed"
	ip -n "${NETNS_PREFIX}sw" link add "v$i" type veth peer name eth0 netns "$ns" ||
		cluster_fail "veth pair for $ns failed"
	ip -n "${NETNS_PREFIX}sw" link set "v$i" master br0 up || cluster_fail "bridge port for $ns failed"
	ip -n "$ns" addr add "$addr/24" dev eth0 || cluster_fail "address $addr in $ns failed"
	ip -n "$ns" link set eth0 up || cluster_fail "eth0 up in $ns failed"
}

# netns_write_conf: cluster.sh's configuration, then per-node addresses,
# hostnames, weights, TmpFS and the controller's address rewritten for the
# namespaces.
netns_write_conf()
{
	local d=$CLUSTER_DIR n name i=11 w e
	cluster_write_conf_plain
	local sedargs=(-e "s|^SlurmctldHost=.*|SlurmctldHost=head($(netns_addr 1))|")
	for n in "${CLUSTER_NODES[@]}"; do
		name=${n%%|*}; w=1
		for e in "${NETNS_NODE_WEIGHT[@]}"; do [ "${e%%|*}" = "$name" ] && w=${e#*|}; done
		sedargs+=(-e "s|^NodeName=$name NodeHostname=[^ ]* NodeAddr=[^ ]* |NodeName=$name NodeHostname=$name NodeAddr=$(netns_addr $i) Weight=$w |")
		mkdir -p "$d/tmp/$name"
		chmod 1777 "$d/tmp/$name"
		i=$((i + 1))
	done
	sed -i "${sedargs[@]}" "$d/slurm.conf"
	# each node its own TmpFS: Slurm's mpi/pmix puts a step's client
	# directory there (%n expanded per node)
	echo "TmpFS=$d/tmp/%n" >> "$d/slurm.conf"
}

# netns_exec NS CMD...: run CMD in namespace NS.
netns_exec()
{
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" "$@"
}

# The Slurm clients (and nodeox) always talk to this cluster's slurmctld from
# its head namespace; cluster.sh's helpers call them by these names.
scontrol() { netns_exec "$NETNS_HEAD" scontrol "$@"; }
sbatch() { netns_exec "$NETNS_HEAD" sbatch "$@"; }
squeue() { netns_exec "$NETNS_HEAD" squeue "$@"; }
sinfo() { netns_exec "$NETNS_HEAD" sinfo "$@"; }
scancel() { netns_exec "$NETNS_HEAD" scancel "$@"; }
srun() { netns_exec "$NETNS_HEAD" srun "$@"; }

# cluster_as USER CMD...: as cluster.sh's, inside the head namespace.
cluster_as()
{
	local u=$1
	shift
	if [ "$u" = root ]; then netns_exec "$NETNS_HEAD" "$@"; return; fi
	netns_exec "$NETNS_HEAD" runuser -u "$u" -- \
		env SLURM_CONF="$SLURM_CONF" NODEOX_IT_DIR="$NODEOX_IT_DIR" "$@"
}

# cluster.sh's cluster_start writes the configuration (cluster_write_conf),
# starts munged, slurmctld and the slurmd (cluster_spawn) and waits for them;
# here those two are wrapped: the configuration gets the namespaces'
# addresses, and each daemon is started in its namespace. cluster.sh's
# own cluster_write_conf stays available as cluster_write_conf_plain.
eval "$(declare -f cluster_write_conf | sed '1s/^cluster_write_conf /cluster_write_conf_plain /')"
eval "$(declare -f cluster_spawn | sed '1s/^cluster_spawn /cluster_spawn_plain /')"
cluster_write_conf() { netns_write_conf; }

# cluster_spawn NAME CMD...: as cluster.sh's, but slurmctld runs in the head
# namespace with hostname "head" (slurmctld accepts only the SlurmctldHost
# it runs on) and slurmd-NODE in NODE's namespace with hostname NODE;
# nsenter and unshare exec their command, so the pid recorded is the
# daemon's. munged stays in the machine's namespace: its socket is a file,
# reachable from every namespace.
cluster_spawn()
{
	local name=$1 ns= host=
	shift
	case $name in
	slurmctld) ns=$NETNS_HEAD host=head ;;
	slurmd-*) ns=$NETNS_PREFIX${name#slurmd-} host=${name#slurmd-} ;;
	esac
	if [ -z "$ns" ]; then cluster_spawn_plain "$name" "$@"; return; fi
	cluster_spawn_plain "$name" nsenter --net="/run/netns/$ns" unshare --uts \
		sh -c 'hostname "$1" && shift && exec "$@"' sh "$host" "$@"
}

# netns_start: make the bridge and one namespace per host, then
# cluster_start (configuration, munged, slurmctld, slurmd, wait until idle).
netns_start()
{
	local n name i=11
	[ ${#CLUSTER_NODES[@]} -gt 0 ] || cluster_fail "netns_start: no node added"
	ip netns add "${NETNS_PREFIX}sw" || cluster_fail "ip netns add ${NETNS_PREFIX}sw failed"
	NETNS_MADE+=("${NETNS_PREFIX}sw")
	ip -n "${NETNS_PREFIX}sw" link add br0 type bridge || cluster_fail "bridge failed"
	ip -n "${NETNS_PREFIX}sw" link set br0 up
	netns_make "$NETNS_HEAD" "$(netns_addr 1)"
	for n in "${CLUSTER_NODES[@]}"; do
		name=${n%%|*}
		netns_make "$NETNS_PREFIX$name" "$(netns_addr $i)"
		i=$((i + 1))
	done
	cluster_start
	cluster_log "nodes are network namespaces ${NETNS_PREFIX}*, addresses $NETNS_SUBNET.0/24"
}

# netns_teardown: remove every namespace this cluster made (after the
# daemons are gone; a namespace still holding a process lives on unnamed
# until it exits, and that process is killed by cluster_stop's sweep).
netns_teardown()
{
	local ns
	for ns in "${NETNS_MADE[@]}"; do ip netns del "$ns" 2>/dev/null; done
	NETNS_MADE=()
}

# netns_watch: a watchdog that, should the shell die without its EXIT trap
# (SIGKILL), kills what is left of the cluster and removes its namespaces by
# their prefix. cluster.sh's own watchdog sweeps the processes too.
netns_watch()
{
	netns_watchdog "$$" &
	NETNS_WATCHER=$!
}

# netns_watchdog PARENT: the body of netns_watch's watchdog.
netns_watchdog()
{
	local ns
	cluster_watchdog_wait "$1"
	sleep 2
	cluster_sweep
	for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
		case $ns in "$NETNS_PREFIX"*) ip netns del "$ns" ;; esac
	done
	[ -z "$CLUSTER_USER" ] || userdel "$CLUSTER_USER"
	[ -z "$CLUSTER_USER2" ] || userdel "$CLUSTER_USER2"
	exit 0
}

# netns_stop: cluster_stop (jobs, daemons, sweep, users, run directory),
# then the namespaces. Safe to call twice.
netns_stop()
{
	if [ -n "$NETNS_WATCHER" ]; then
		kill -KILL "$NETNS_WATCHER" 2>/dev/null
		wait "$NETNS_WATCHER" 2>/dev/null
		NETNS_WATCHER=
	fi
	cluster_stop
	netns_teardown
}

# netns_finish: like cluster_finish (counts, exit status), namespaces removed.
netns_finish()
{
	cluster_finish
}
