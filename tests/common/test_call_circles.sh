#!/bin/sh
# tests/common/test_call_circles.sh: no two source files of the built tree
# call each other, directly or through others (tools/call-circles over every
# object file make built; tests/ left out). First shown able to fail: two
# files that call each other, compiled here, are reported as a circle.
set -eu
w=$(mktemp -d "${TMPDIR:-/tmp}/circles.XXXXXX")
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/a"
printf 'int b_f(int);\nint a_f(int x) { return x ? b_f(x - 1) : 0; }\n' >"$w/a/a_one.c"
printf 'int a_f(int);\nint b_f(int x) { return x ? a_f(x - 1) : 1; }\n' >"$w/a/b_two.c"
(cd "$w/a" && ${CC:-cc} -c a_one.c b_two.c)
if python3 "$top_srcdir/tools/call-circles" "$w" >"$w/out" 2>&1; then
	cat "$w/out"; echo "FAIL: call-circles found no circle between a_one.c and b_two.c"; exit 1
fi
grep -q 'a_one' "$w/out" && grep -q 'b_two' "$w/out" ||
	{ cat "$w/out"; echo "FAIL: the circle reported does not name a_one.c and b_two.c"; exit 1; }
python3 "$top_srcdir/tools/call-circles" "$top_builddir" || { echo "FAIL: circles of calls in the tree (above)"; exit 1; }
