#!/usr/bin/env bash
# tests/packaging/build-debs.sh SRCDIR OUTDIR: builds nodeox's binary packages
# as an admin or a build machine would, from a clean copy of the source tree
# (the files git tracks, plus new files git does not ignore: no build output
# of the working tree gets in; in a root lane's build directory, which is no
# git checkout, the list of those files tools/root.sh's root_sync wrote
# there, .nodeox-synced), with `dpkg-buildpackage -us -uc -b`, then runs
# lintian on them. The .debs, the .changes, build.log and lintian.log land in
# OUTDIR. Fails when the build fails or lintian reports an error (E:).
# Environment: NODEOX_SLURM_SOURCE (see debian/README.source), NODEOX_JOBS
# (parallel jobs, default 2), DEB_BUILD_OPTIONS / DEB_BUILD_PROFILES as usual
# (e.g. nocheck; pkg.nodeox.cuda adds nodeox-runtime-cuda).
set -euo pipefail
exec </dev/null
src=$(cd "${1:?usage: build-debs.sh SRCDIR OUTDIR}" && pwd)
mkdir -p "${2:?usage: build-debs.sh SRCDIR OUTDIR}"
out=$(cd "$2" && pwd)
say() { echo "[$(date +%H:%M:%S)] $*"; }
for p in dpkg-buildpackage dh lintian git; do
	command -v "$p" >/dev/null 2>&1 ||
		{ echo "build-debs: $p not found (Debian packages dpkg-dev debhelper lintian git)" >&2; exit 1; }
done
# sources: NUL-separated paths, relative to $src
sources()
{
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$src" && { git ls-files -z; git ls-files -z --others --exclude-standard; })
	else
		tr '\n' '\0' < "$src/.nodeox-synced"
	fi
}
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || [ -f "$src/.nodeox-synced" ] ||
	{ echo "build-debs: $src is neither a git checkout nor a root lane's copy (.nodeox-synced): cannot tell sources from build outputs" >&2; exit 1; }

t0=$SECONDS
work=$out/src
rm -rf "$work" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$work/nodeox"
(cd "$src" && sources |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -cf - -T -) | tar -xf - -C "$work/nodeox"
say "building packages in $work/nodeox (log: $out/build.log)"
if ! (cd "$work/nodeox" && nice dpkg-buildpackage -us -uc -b -j"${NODEOX_JOBS:-2}") > "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log"
	echo "build-debs: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
fi
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
rm -rf "$work"
say "built in $((SECONDS - t0)) s: $(cd "$out" && ls *.deb | tr '\n' ' ')"
t1=$SECONDS
lintian --fail-on error "$out"/nodeox_*.changes > "$out/lintian.log" 2>&1; rc=$?
cat "$out/lintian.log"
say "lintian: $(grep -c '^E:' "$out/lintian.log") errors, $(grep -c '^W:' "$out/lintian.log") warnings ($((SECONDS - t1)) s)"
[ "$rc" = 0 ] || { echo "build-debs: lintian reports errors" >&2; exit 1; }
