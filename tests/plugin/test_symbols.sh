#!/bin/sh
# test_symbols.sh: checks the built job_submit/nodeox plugin the way
# slurmctld's plugin loader will: the plugin symbols are exported,
# plugin_type is "job_submit/nodeox", plugin_version equals the installed
# Slurm's SLURM_VERSION_NUMBER (the loader demands an exact match), and every
# undefined symbol is provided by slurmctld, libslurmfull or the C library,
# so dlopen inside slurmctld cannot fail on a missing symbol.
so="$top_builddir/plugin/.libs/job_submit_nodeox.so"
test -f "$so" || { echo "SKIP: $so not built"; exit 77; }
for tool in nm objdump; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
ctld=$(command -v slurmctld || echo /usr/sbin/slurmctld)
test -x "$ctld" || { echo "SKIP: slurmctld not installed"; exit 77; }
full=$(ldd "$ctld" | sed -n 's/.*libslurmfull[^ ]* => \([^ ]*\).*/\1/p')
test -f "$full" || { echo "SKIP: cannot find libslurmfull of $ctld"; exit 77; }
fail=0

defined=$(nm -D --defined-only "$so" | awk '{print $3}')
for s in plugin_name plugin_type plugin_version init fini job_submit job_modify; do
  echo "$defined" | grep -qx "$s" || { echo "FAIL: $so does not export $s"; fail=1; }
done

# Read a symbol's bytes from the .so: address and size from the symbol table.
sym_bytes() {
  line=$(objdump -t "$so" | awk -v s="$1" '$NF == s {print $1, $(NF-1)}')
  set -- $line
  start=$((0x$1)); stop=$((0x$1 + 0x$2))
  objdump -s --start-address=$start --stop-address=$stop "$so" |
    awk '/^ [0-9a-f]+ /{for (i = 2; i <= 5; i++) if ($i ~ /^[0-9a-f]+$/) printf "%s", $i}' |
    cut -c1-$(( (stop - start) * 2 ))
}
want_ver=$(printf '#include <slurm/slurm_version.h>\nSLURM_VERSION_NUMBER\n' | cpp -P | tail -n 1)
want_hex=$(printf '%08x' $((want_ver)) | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/')
got_hex=$(sym_bytes plugin_version)
test "$got_hex" = "$want_hex" || { echo "FAIL: plugin_version bytes $got_hex, want $want_hex ($want_ver)"; fail=1; }
type_hex=$(printf 'job_submit/nodeox' | od -An -tx1 | tr -d ' \n')00
got_type=$(sym_bytes plugin_type)
test "$got_type" = "$type_hex" || { echo "FAIL: plugin_type is not job_submit/nodeox ($got_type)"; fail=1; }

provided=$( (nm -D --defined-only "$ctld"; nm -D --defined-only "$full") | awk '{print $3}' | sort -u)
for s in $(nm -D --undefined-only "$so" | awk '$1 == "U" {print $2}' | grep -v '@'); do
  echo "$provided" | grep -qx "$s" || { echo "FAIL: undefined symbol $s is not provided by slurmctld or libslurmfull"; fail=1; }
done
test $fail = 0 && echo "job_submit_nodeox.so: symbols, plugin_type, plugin_version ($want_ver) OK"
exit $fail
