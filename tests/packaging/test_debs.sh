#!/usr/bin/env bash
# tests/packaging/test_debs.sh DEBDIR: installs the built nodeox .debs into a
# clean Debian root of this machine's release (Debian 12 here; the packages
# are built for its Slurm) and checks the path from install to first rewrite:
#   1. a pristine `debootstrap --variant=minbase SUITE` root (cached, see
#      debian-root.sh) becomes the read-only lower layer of an overlay on a
#      tmpfs, in a private mount + pid namespace: every mount (overlay, /proc,
#      /sys, /sys/fs/cgroup, /dev, /dev/pts, /dev/shm) is undone on exit, by the
#      EXIT trap and, whatever happens, by the namespace's end;
#   2. the admin writes /etc/slurm/nodeox.conf, then apt installs the .debs
#      from DEBDIR with their dependencies (slurmctld, slurmd, munge ...) from
#      the Debian archive, so the packages' Depends are tested too;
#   3. in-root.sh, inside the root and in its own network namespace, starts
#      munged, slurmctld (JobSubmitPlugins=nodeox, Slurm's default PluginDir)
#      and one slurmd with fake GPUs from the installed files only, submits
#      jobs as an unprivileged user, checks the rewrite, runs `nodeox why`,
#      nodeox-sim and nodeox-run from /usr/bin;
#   4. the packages are purged: nothing of nodeox may be left in the root
#      except the admin's nodeox.conf, unchanged.
# Exit 0 pass, 1 fail, 77 skip (not root, or a tool missing).
# NODEOX_PKGTEST_KEEP=1 keeps the run directory (logs) in /var/tmp;
# NODEOX_PKGTEST_SUITE overrides the release (default: this machine's
# VERSION_CODENAME, bookworm when /etc/os-release does not say).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/debian-root.sh"

skip() { echo "SKIP: $*"; exit 77; }
say()  { echo "[$(date +%H:%M:%S)] $*"; }

# ---------------------------------------------------------------- inside the namespace
# test_debs.sh --inside RUN LOWER DEBDIR: pid 1 of a private pid + mount
# namespace (started below with unshare).
if [ "${1:-}" = --inside ]; then
	run=$2 lower=$3 debdir=$4 suite=$5
	root=$run/root cache=${NODEOX_CACHE:-/var/cache/nodeox}
	mounts=()
	umount_all()
	{
		local i
		for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
			umount -l "${mounts[$i]}" 2>/dev/null || echo "could not unmount ${mounts[$i]}" >&2
		done
		mounts=()
	}
	trap umount_all EXIT
	mnt()   # mnt TARGET ARGS...: mount ARGS on TARGET and remember it
	{
		local t=$1
		shift
		mkdir -p "$t" && mount "$@" "$t" || { echo "FAIL: mount $* $t" >&2; exit 1; }
		mounts+=("$t")
	}
	mnt "$run/layer" -t tmpfs -o size=2g,mode=755 tmpfs
	mkdir -p "$run/layer/upper" "$run/layer/work"
	mnt "$root" -t overlay -o "lowerdir=$lower,upperdir=$run/layer/upper,workdir=$run/layer/work" overlay
	mnt "$root/proc" -t proc proc
	mnt "$root/sys" --bind /sys
	mnt "$root/sys/fs/cgroup" --rbind /sys/fs/cgroup
	mnt "$root/dev" --bind /dev
	mnt "$root/dev/pts" --bind /dev/pts
	mnt "$root/dev/shm" --bind /dev/shm
	mnt "$root/srv/pkgtest/debs" --bind "$debdir"
	mount -o remount,bind,ro "$root/srv/pkgtest/debs"
	# apt's downloads and lists are kept between runs (the root stays clean:
	# it is thrown away with the overlay).
	mkdir -p "$cache/apt-$suite/archives/partial" "$cache/apt-$suite/lists/partial"
	mnt "$root/var/cache/apt/archives" --bind "$cache/apt-$suite/archives"
	mnt "$root/var/lib/apt/lists" --bind "$cache/apt-$suite/lists"

	# The machine's apt sources when the root is of its release (the root gets
	# the same Slurm as the build, updates included), else debootstrap's; the
	# name service; no service starts at package install.
	if [ "$suite" = "$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")" ]; then
		rm -f "$root/etc/apt/sources.list"
		cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null ||
			cp /etc/apt/sources.list "$root/etc/apt/sources.list"
	fi
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	cp "$here/in-root.sh" "$root/srv/pkgtest/in-root.sh"

	# 2. The admin's own policy, written before anything of nodeox is installed.
	mkdir -p "$root/etc/slurm"
	cat > "$root/etc/slurm/nodeox.conf" <<-'CONF'
	# the admin's own nodeox.conf (tests/packaging/test_debs.sh)
	Mode=enforce
	GpuType=a100 Feature=a100 Memory=80G Speed=1.0
	GpuType=l40s Feature=l40s Memory=48G Speed=0.6
	Group=train Types=a100,l40s
	ScaleTimeLimit=yes
	PreferRequested=no
	Broaden=always
	CONF
	sum_conf=$(sha256sum < "$root/etc/slurm/nodeox.conf")

	debs=()
	for p in nodeox-plugin nodeox-tools nodeox-runtime python3-nodeox; do
		f=$(ls "$debdir"/${p}_*.deb 2>/dev/null | tail -n 1)
		[ -n "$f" ] || { echo "FAIL: no ${p}_*.deb in $debdir"; exit 1; }
		debs+=("/srv/pkgtest/debs/${f##*/}")
	done
	# slurmd and the clients are the test's, not dependencies of nodeox-plugin
	# (which belongs on the slurmctld host only).
	say "installing ${debs[*]##*/} and their dependencies, slurmd, slurm-client into the root"
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
	# root_apt ARGS...: apt-get in the root, one at a time on this machine
	# (the download cache is shared between runs).
	root_apt()
	{
		flock "$cache/apt-$suite.lock" chroot "$root" apt-get "$@" >> "$run/apt.log" 2>&1
	}
	{ root_apt update -q &&
		root_apt install -y -q --no-install-recommends "${debs[@]}" slurmd slurm-client; } ||
		{ tail -n 30 "$run/apt.log"; echo "FAIL: apt-get install of the .debs (log: $run/apt.log)"; exit 1; }
	say "installed: $(chroot "$root" dpkg-query -W -f='${Package}=${Version} ' 'nodeox-*' python3-nodeox slurmctld slurmd munge)"
	fail=0
	[ "$(sha256sum < "$root/etc/slurm/nodeox.conf")" = "$sum_conf" ] ||
		{ echo "FAIL: installing the packages changed the admin's nodeox.conf"; fail=1; }

	# 3. Daemons and clients, from the installed files only, in a network
	# namespace of their own (lo only: no port is shared with anything else
	# on this machine) and a host name of their own.
	# Slurm resolves with AI_ADDRCONFIG, which ignores loopback addresses: a
	# veth pair with a private address gives the namespace one that counts.
	unshare --net --uts -- sh -c 'ip link set lo up &&
		ip link add nxpkg0 type veth peer name nxpkg1 &&
		ip addr add 10.254.0.1/24 dev nxpkg0 && ip link set nxpkg0 up && ip link set nxpkg1 up &&
		hostname pkgtest &&
		exec chroot "$1" /bin/bash /srv/pkgtest/in-root.sh' sh "$root" || fail=1

	# 4. Purge: only the admin's nodeox.conf may remain.
	say "purging the nodeox packages"
	root_apt purge -y -q 'nodeox-*' python3-nodeox ||
		{ tail -n 20 "$run/apt.log"; echo "FAIL: apt-get purge"; fail=1; }
	left=$(chroot "$root" dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' 'nodeox-*' python3-nodeox 2>/dev/null |
		awk '$2 != "un"')
	[ -z "$left" ] || { echo "FAIL: packages still known to dpkg after purge: $left"; fail=1; }
	left=$(cd "$root" && find . -xdev -path ./srv/pkgtest -prune -o -path ./proc -prune -o \
		-iname '*nodeox*' -print | sort)
	if [ "$left" = ./etc/slurm/nodeox.conf ]; then
		echo "ok: after purge only the admin's /etc/slurm/nodeox.conf is left"
	else
		echo "FAIL: after purge, files of nodeox left besides the admin's nodeox.conf:"
		echo "$left"
		fail=1
	fi
	if [ "$(sha256sum < "$root/etc/slurm/nodeox.conf" 2>/dev/null)" = "$sum_conf" ]; then
		echo "ok: the admin's nodeox.conf is unchanged after install, use and purge"
	else
		echo "FAIL: the admin's nodeox.conf changed or vanished"; fail=1
	fi
	exit $fail
fi

# ---------------------------------------------------------------- outside
debdir=${1:-${NODEOX_DEB_DIR:-}}
[ -n "$debdir" ] || { echo "usage: $0 DEBDIR (directory with the built nodeox .debs)" >&2; exit 2; }
debdir=$(cd "$debdir" && pwd) || exit 1
[ "$(id -u)" = 0 ] || skip "installs packages into a Debian root and starts Slurm daemons: needs root"
for p in debootstrap unshare chroot mount flock ip sha256sum; do
	command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || [ -x "/sbin/$p" ] ||
		skip "$p not found (Debian packages debootstrap util-linux iproute2 coreutils)"
done
PATH=$PATH:/usr/sbin:/sbin
t0=$SECONDS
suite=${NODEOX_PKGTEST_SUITE:-$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-bookworm}")}
lower=$(debian_root_cached "$suite") || { echo "FAIL: no clean Debian root ($suite)"; exit 1; }
say "clean root: $lower ($((SECONDS - t0)) s)"
run=$(mktemp -d /var/tmp/nodeox-pkgtest.XXXXXX) || exit 1
[ "${NODEOX_PKGTEST_KEEP:-0}" = 1 ] || trap 'rm -rf "$run"' EXIT
# --kill-child: if this script dies, the namespace's pid 1 dies, and with it
# every process and every mount in the namespace.
timeout --kill-after=10 "${NODEOX_PKGTEST_TIMEOUT:-900}" \
	unshare --mount --pid --fork --kill-child --propagation private -- \
	bash "$here/test_debs.sh" --inside "$run" "$lower" "$debdir" "$suite"
rc=$?
if findmnt -rn -o TARGET | grep -qF "$run/"; then
	echo "FAIL: mounts under $run left after the test:"; findmnt -rn -o TARGET | grep -F "$run/"
	rc=1
else
	echo "ok: no mount of the test is left"
fi
say "package test: $((SECONDS - t0)) s, exit $rc"
[ "$rc" = 0 ] && echo PASS || echo FAIL
exit $rc
