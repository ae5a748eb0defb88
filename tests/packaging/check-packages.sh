#!/usr/bin/env bash
# tests/packaging/check-packages.sh SRCDIR OUTDIR: the whole package check:
# build the .debs from a clean copy of SRCDIR and lint them (build-debs.sh),
# then install, use and purge them in a clean Debian 12 root (test_debs.sh).
# Exit 0 pass, 1 fail, 77 skip (not root, or a packaging tool missing: the
# reason is the last line). Run by `make check-packages` and by tools/test.
set -u
exec </dev/null
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${1:?usage: check-packages.sh SRCDIR OUTDIR}
out=${2:?usage: check-packages.sh SRCDIR OUTDIR}
[ "$(id -u)" = 0 ] || { echo "SKIP: the package test installs into a Debian root and starts Slurm daemons: needs root"; exit 77; }
for p in dpkg-buildpackage dh lintian debootstrap unshare git; do
	command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
		{ echo "SKIP: $p not found (Debian packages dpkg-dev debhelper lintian debootstrap util-linux git; tools/setup installs them)"; exit 77; }
done
t0=$SECONDS
"$here/build-debs.sh" "$src" "$out" || exit 1
t1=$SECONDS
"$here/test_debs.sh" "$out"; rc=$?
echo "check-packages: build + lintian $((t1 - t0)) s, install test $((SECONDS - t1)) s, total $((SECONDS - t0)) s"
exit $rc
