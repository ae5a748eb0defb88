# tools/root.sh: the Debian roots in which nodeox is built and tested against
# another Slurm than the host's, one per test lane (sourced by
# tools/setup-root and tools/test, not run):
#   debian13  Debian 13 (trixie), Debian's Slurm 24.11
#   forky     the 26.05 lane: SchedMD's Slurm 26.05.3 built from source
#             (tools/slurm-build, into /usr/local) in a Debian forky root;
#             Debian's own 26.05.5 is not installed there (see below)
#
#   root_select LANE sets, for LANE, ROOT_LANE, ROOT_DIR (the root:
#                    $NODEOX_CACHE/LANE, made by debootstrap), ROOT_SUITE (the
#                    Debian suite), ROOT_TITLE ("Debian 13"), ROOT_SLURM
#                    (the Slurm release expected there) and ROOT_SLURM_BUILD
#                    (the SchedMD release built from source in the root, or
#                    empty where Debian's packages are used); false, saying
#                    so, for an unknown LANE. The functions below act on the
#                    root selected last.
#   root_build_dir   where this source tree is copied and built inside the
#                    root (/build/<path of the tree, / as _>), so several
#                    trees share one root without sharing a build
#   root_run CMD...  runs CMD (as root, clean environment) inside the root,
#                    with /proc, /sys, /sys/fs/cgroup, /dev, /dev/pts and /tmp
#                    bound in (slurmd and MPI need them; the shared /tmp keeps
#                    the integration tests' port locks common with the host).
#                    The mounts live in a private mount namespace made for
#                    this one command: nothing is mounted on the host, and
#                    they vanish with the command however it ends (signal,
#                    kill -9 included); a trap also unmounts them in order.
#   root_sync        copies the tree (tracked and untracked, not ignored,
#                    files) into root_build_dir, keeping modification times
#                    so make rebuilds only what changed, and removes there the
#                    files an earlier sync brought that the tree has lost.

: "${NODEOX_CACHE:=/var/cache/nodeox}"
ROOT_LANES="debian13 forky forky-deb"
# The root lanes tools/setup prepares and tools/test runs unless
# NODEOX_LANES names others. The forky lane builds SchedMD's 26.05.3 in a
# Debian forky root and runs everything against it: building Slurm adds
# about 13 min to a first setup (in the background, beside the host lane)
# and the lane about 12 min of tests. The forky-deb lane runs Debian's own
# Slurm 26.05.5 (what forky and sid ship): the archive serves no 26.05.5
# source, so the plugin is built against SchedMD's 26.05.3 with 26.05.5's
# job record layout (tools/slurm-layout: one 8-byte field more, measured in
# Debian's libslurmfull.so and checked there at every setup), and the lane
# runs the tests that start Slurm (the plugin in Debian's slurmctld with
# sbatch, nodeox why, the sacct round trip) and make check-valgrind: the
# rest of the suite does not depend on the Slurm release and runs in the
# forky lane on the same Debian.
ROOT_LANES_DEFAULT="debian13 forky forky-deb"
ROOT_LANE= ROOT_DIR= ROOT_SUITE= ROOT_TITLE= ROOT_SLURM= ROOT_SLURM_BUILD=

# root_select LANE: make LANE's root the one the functions below act on.
root_select()
{
	case $1 in
	debian13) ROOT_SUITE=trixie ROOT_TITLE="Debian 13" ROOT_SLURM=24.11 ROOT_SLURM_BUILD= ;;
	forky)    ROOT_SUITE=forky ROOT_TITLE="Debian forky" ROOT_SLURM=26.05 ROOT_SLURM_BUILD=26.05.3 ;;
	forky-deb) ROOT_SUITE=forky ROOT_TITLE="Debian forky (Debian's Slurm)" ROOT_SLURM=26.05 ROOT_SLURM_BUILD= ;;
	*) echo "root.sh: no root lane '$1' (lanes: $ROOT_LANES)" >&2; return 1 ;;
	esac
	ROOT_LANE=$1
	ROOT_DIR=$NODEOX_CACHE/$1
}

# root_build_dir [TREE]: the build directory of TREE (default: $top) as seen
# inside the root.
root_build_dir()
{
	local tree=${1:-$top}
	echo "/build/$(echo "$tree" | tr '/' '_' | sed 's/^_//')"
}

# root_source_mark VERSION: the file, as seen inside the root, that names the
# configured Slurm source a lane of Debian's Slurm VERSION builds against
# (written by tools/setup-root; SchedMD's source may be an earlier micro
# release).
root_source_mark()
{
	echo "/var/cache/nodeox/slurm-source-$1"
}

# root_ready: true when the root has been made and its packages installed.
root_ready()
{
	[ -f "$ROOT_DIR/.nodeox-packages" ]
}

root_run()
{
	unshare --mount --propagation private /bin/bash -c '
		r=$1; shift
		mounted=()
		cleanup() {
			local i
			for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
				umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" 2>/dev/null
			done
		}
		trap cleanup EXIT
		trap "exit 130" INT
		trap "exit 143" TERM HUP
		bind() { mount "$@" && mounted+=("${!#}"); }
		bind -t proc proc "$r/proc" || exit 1
		bind --bind /sys "$r/sys" || exit 1
		if [ -d /sys/fs/cgroup ] && mountpoint -q /sys/fs/cgroup; then
			bind --bind /sys/fs/cgroup "$r/sys/fs/cgroup" || exit 1
		fi
		bind --bind /dev "$r/dev" || exit 1
		bind --bind /dev/pts "$r/dev/pts" || exit 1
		bind --bind /tmp "$r/tmp" || exit 1
		chroot "$r" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive ${CI:+CI=$CI} \
			${NODEOX_JOBS:+NODEOX_JOBS=$NODEOX_JOBS} "$@"
	' root_run "$ROOT_DIR" "$@"
}

root_sync()
{
	local dest
	dest=$ROOT_DIR$(root_build_dir)
	mkdir -p "$dest" || return 1
	# files an earlier sync brought that the tree no longer has (a deleted
	# recorded run would otherwise stay and be read: CI's debian13 lane on
	# 7f68c20 read three removed multinode-when-faster runs); build outputs,
	# never in the list, stay. A directory with no list (made before
	# there was one, or a list by the old name .nodeox-sync, written by a
	# sync that could not know what came before it: CI's debian13 lane on
	# 6e3469d still read those three runs) is emptied once: the next make
	# rebuilds everything.
	if [ ! -f "$dest/.nodeox-synced" ] && [ -n "$(ls -A "$dest")" ]; then
		find "$dest" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + || return 1
	fi
	(cd "$top" && git ls-files -co --exclude-standard) | LC_ALL=C sort > "$dest/.nodeox-synced.new" || return 1
	if [ -f "$dest/.nodeox-synced" ]; then
		LC_ALL=C comm -23 "$dest/.nodeox-synced" "$dest/.nodeox-synced.new" |
			while IFS= read -r f; do rm -f -- "$dest/$f"; done
	fi
	mv "$dest/.nodeox-synced.new" "$dest/.nodeox-synced" || return 1
	(cd "$top" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) |
		tar -xf - -C "$dest"
}
