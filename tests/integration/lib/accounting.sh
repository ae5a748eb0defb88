# tests/integration/lib/accounting.sh: Slurm accounting for the private test
# cluster of cluster.sh (sourced, not run): its own MariaDB (Debian's
# mariadb-server: own datadir, socket and port, run as root) and a slurmdbd
# 22.05 the cluster reports to, with AccountingStoreFlags=job_comment and
# typed GPU TRES, so sacct shows what production accounting would. Every
# daemon is started with cluster_spawn, so cluster_stop stops it by its pid
# (slurmdbd before munged, MariaDB last) and the run directory goes with the
# cluster's.
#
# Use:
#   . "$top_srcdir/tests/integration/lib/accounting.sh"
#   accounting_init [TRES]     # cluster_init + database; skips (77) without
#                              #   mariadb-server or slurmdbd
#   cluster_use_plugin ...; cluster_start   # slurmdbd starts inside, before slurmctld
#   accounting_wait_jobs ID... # until sacct shows each job ended
#   accounting_sacct START     # the sacct command of nodeox-sacct-import(1)

. "$(dirname "${BASH_SOURCE[0]}")/cluster.sh"

ACCT_DB_PORT=
ACCT_DBD_PORT=
# The columns nodeox-sacct-import(1) documents, in its order.
ACCT_FORMAT=JobIDRaw,User,Account,Partition,Submit,Start,End,Timelimit,ReqTRES,AllocTRES,NNodes,State,Comment,AdminComment

# accounting_init [TRES]: cluster_init, then make and start the database and
# add the accounting lines to slurm.conf: slurmdbd storage, job comments
# stored, and TRES (default gres/gpu,gres/gpu:a100,gres/gpu:l40s, the default
# topology's types). The last two ports of the cluster's block are the
# database's and slurmdbd's.
accounting_init()
{
	local p
	for p in mariadbd mariadb-install-db mariadb slurmdbd sacct sacctmgr; do
		command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
			cluster_skip "$p not found (Debian packages mariadb-server slurmdbd slurm-client)"
	done
	cluster_init
	ACCT_DB_PORT=$((CLUSTER_PORT + CLUSTER_PORT_SPAN - 2))
	ACCT_DBD_PORT=$((CLUSTER_PORT + CLUSTER_PORT_SPAN - 1))
	cluster_conf_line "AccountingStorageType=accounting_storage/slurmdbd"
	cluster_conf_line "AccountingStorageHost=127.0.0.1"
	cluster_conf_line "AccountingStoragePort=$ACCT_DBD_PORT"
	# Clients and slurmctld reach slurmdbd with this munge socket, not AuthInfo's.
	cluster_conf_line "AccountingStoragePass=$CLUSTER_DIR/munge.sock"
	cluster_conf_line "AccountingStoreFlags=job_comment"
	cluster_conf_line "AccountingStorageTRES=${1:-gres/gpu,gres/gpu:a100,gres/gpu:l40s}"
	CLUSTER_BEFORE_CTLD=accounting_start_dbd
	accounting_start_db
}

# accounting_start_db: a fresh MariaDB datadir, the server on 127.0.0.1 and
# its own socket, and a user for slurmdbd. Small InnoDB files and no fsync per
# commit: this database lives for one test.
accounting_start_db()
{
	local d=$CLUSTER_DIR i
	local opts=(--innodb-log-file-size=4M --innodb-buffer-pool-size=16M
		--innodb-data-file-path=ibdata1:4M:autoextend --skip-log-bin)
	mkdir -p "$d/db"
	mariadb-install-db --no-defaults --datadir="$d/db" --user=root --skip-test-db \
		--auth-root-authentication-method=socket "${opts[@]}" > "$d/log/mariadb-install.log" 2>&1 ||
		{ tail -5 "$d/log/mariadb-install.log"; cluster_fail "mariadb-install-db failed"; }
	cluster_spawn mariadb mariadbd --no-defaults --datadir="$d/db" --user=root \
		--socket="$d/run/mariadb.sock" --port="$ACCT_DB_PORT" --bind-address=127.0.0.1 \
		--pid-file="$d/run/mariadb.pid" --log-error="$d/log/mariadb.log" --skip-name-resolve \
		--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 "${opts[@]}"
	for i in $(seq 100); do
		mariadb -S "$d/run/mariadb.sock" -e "SELECT 1" >/dev/null 2>&1 && break
		cluster_alive mariadb || cluster_fail "mariadbd exited at start"
		sleep 0.2
	done
	[ "$i" -lt 100 ] || cluster_fail "mariadbd not answering on $d/run/mariadb.sock"
	mariadb -S "$d/run/mariadb.sock" -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'nodeox-it';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" ||
		cluster_fail "cannot create the slurm database user"
	cluster_log "MariaDB up on 127.0.0.1:$ACCT_DB_PORT"
}

# accounting_start_dbd: (cluster_start's hook, munged up, slurmctld not yet)
# write slurmdbd.conf next to slurm.conf (slurmdbd finds it through
# SLURM_CONF), start slurmdbd, wait until it answers, and register the cluster.
accounting_start_dbd()
{
	local d=$CLUSTER_DIR i
	{
		echo "# slurmdbd.conf written by tests/integration/lib/accounting.sh"
		echo "AuthType=auth/munge"
		echo "AuthInfo=socket=$d/munge.sock"
		echo "DbdAddr=127.0.0.1"
		echo "DbdHost=$(hostname -s)"
		echo "DbdPort=$ACCT_DBD_PORT"
		echo "SlurmUser=root"
		echo "PidFile=$d/run/slurmdbd.pid"
		echo "LogFile=$d/log/slurmdbd.log"
		echo "DebugLevel=${NODEOX_IT_DEBUG:-info}"
		echo "PluginDir=$CLUSTER_SLURM_PLUGINDIR"
		echo "StorageType=accounting_storage/mysql"
		echo "StorageHost=127.0.0.1"
		echo "StoragePort=$ACCT_DB_PORT"
		echo "StorageUser=slurm"
		echo "StoragePass=nodeox-it"
		echo "StorageLoc=slurm_acct_db"
	} > "$d/slurmdbd.conf"
	chmod 600 "$d/slurmdbd.conf"
	local compat=/opt/libmariadb-bookworm tried_compat=0
	cluster_spawn slurmdbd slurmdbd -D
	for i in $(seq 150); do
		timeout 5 sacctmgr -n -P list cluster >/dev/null 2>&1 && break
		if ! cluster_alive slurmdbd; then
			# Seen with Debian 13's slurmdbd 24.11.5 and its libmariadb3
			# (MariaDB 11.8.9), and with forky's slurmdbd 26.05.5 and
			# the same libmariadb3: the client library refuses slurmdbd's
			# first query, `select @var := concat('');`, with error 5027
			# and slurmdbd exits. Not nodeox's: run it again against
			# Debian 12's client library where tools/setup-root put
			# one, else skip, saying so.
			if grep -q "mysql_query failed: 5027" "$d/log/slurmdbd.log" 2>/dev/null; then
				if [ "$tried_compat" = 0 ] && [ -f "$compat/libmariadb.so.3" ]; then
					tried_compat=1
					cluster_log "slurmdbd $CLUSTER_SLURM_VERSION: this libmariadb refuses its first query (error 5027); running it with the client library in $compat"
					mv "$d/log/slurmdbd.log" "$d/log/slurmdbd-native.log"
					cluster_spawn slurmdbd env LD_LIBRARY_PATH="$compat" slurmdbd -D
					continue
				fi
				cluster_skip "slurmdbd $CLUSTER_SLURM_VERSION exits at start against this MariaDB ($(grep -o 'MySQL server version is: [^ ]*' "$d/log/slurmdbd.log" | head -1 | cut -d' ' -f5)): its client library refuses the first query (error 5027), and no fallback library is in $compat (tools/setup-root)"
			fi
			cluster_fail "slurmdbd exited at start"
		fi
		sleep 0.2
	done
	[ "$i" -lt 150 ] || cluster_fail "slurmdbd not answering on port $ACCT_DBD_PORT"
	sacctmgr -i add cluster nodeoxit > /dev/null || cluster_fail "sacctmgr add cluster failed"
	cluster_log "slurmdbd up on 127.0.0.1:$ACCT_DBD_PORT, cluster nodeoxit registered"
}

# accounting_wait_jobs TIMEOUT ID...: wait until sacct shows every job ID (an
# array's id covers its elements) with an End time and an Eligible time (which
# slurmdbd may store a moment after the end; sacct -S selects jobs by it);
# false (with a note) after TIMEOUT seconds.
accounting_wait_jobs()
{
	local timeout=$1 end=$((SECONDS + $1)) id left out
	shift
	while [ $SECONDS -le $end ]; do
		left=
		for id in "$@"; do
			out=$(sacct -n -X -P -j "$id" -o Eligible,End 2>/dev/null)
			[ -n "$out" ] && ! grep -q 'Unknown' <<< "$out" || left="$left $id"
		done
		[ -z "$left" ] && return 0
		sleep 0.5
	done
	echo "  sacct: jobs not ended (or not eligible) after $timeout s:$left" >&2
	return 1
}

# accounting_sacct START: the sacct command of nodeox-sacct-import(1), all
# users, allocations only, from START (sacct's -S) to now.
accounting_sacct()
{
	sacct -a -X -P -S "$1" -E now --format="$ACCT_FORMAT"
}
