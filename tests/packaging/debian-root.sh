# tests/packaging/debian-root.sh: a clean Debian root for the package tests
# (sourced, not run). debian_root_cached SUITE prints the path of a pristine
# `debootstrap --variant=minbase SUITE` root, made once from the Debian
# archive this machine's apt already uses and cached in
# ${NODEOX_CACHE:-/var/cache/nodeox}/root-SUITE-minbase; a second call (or a
# concurrent one, which waits on a lock) reuses it. The cached root is never
# changed: tests mount it read-only as the lower layer of an overlay.

# debian_root_mirror: print the first Debian archive URI of this machine's
# apt sources (deb822 or one-line format).
debian_root_mirror()
{
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }' "$f"
	done | head -n 1 | grep . && return 0
	sed -n 's|^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*/debian/\{0,1\}\) .*|\2|p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1 | grep .
}

# debian_root_cached SUITE: make (once) and print the cached minbase root.
debian_root_cached()
{
	local suite=$1 cache=${NODEOX_CACHE:-/var/cache/nodeox} dir mirror tmp fd
	dir=$cache/root-$suite-minbase
	mkdir -p "$cache" || return 1
	exec {fd}>>"$dir.lock" || return 1
	flock "$fd"
	if [ ! -f "$dir/.complete" ]; then
		mirror=$(debian_root_mirror) ||
			{ echo "debian_root_cached: no Debian archive in this machine's apt sources" >&2; exec {fd}>&-; return 1; }
		tmp=$dir.tmp
		rm -rf "$tmp" "$dir"
		echo "debian-root: debootstrap --variant=minbase $suite from $mirror into $dir" >&2
		if ! debootstrap --variant=minbase "$suite" "$tmp" "$mirror" > "$dir.log" 2>&1; then
			tail -n 20 "$dir.log" >&2
			echo "debian_root_cached: debootstrap failed (log: $dir.log)" >&2
			rm -rf "$tmp"; exec {fd}>&-; return 1
		fi
		touch "$tmp/.complete"
		mv "$tmp" "$dir"
	fi
	exec {fd}>&-
	echo "$dir"
}
