# sacct_figures.awk: the figures of `nodeox report`, computed again from
# `sacct -a -X -P [-D] --format=...` output by a separate reading (the test
# oracle of tests/report/test_report_*.sh; nothing here is shared with the C
# code). Prints one figure a line:
#   group NAME jobs N
#   group NAME wait|run_time|turnaround mean|median|p95 SECONDS
#   group NAME gpu_hours H
#   hours GROUP RAN H
#   state ASKED RAN STATE N         (REQUEUED: jobs with earlier runs)
#   idle_gpu_hours H
#   cf GROUP jobs N                 (the counterfactual's groups and "all")
#   cf GROUP wait|turnaround_mean_s|p50_s|p95_s SECONDS   (what happened; p95
#                                   linear between order statistics, as nodeox-sim)
# Rows skipped as the report skips them: steps, no GPUs, never started or
# still running, a field count other than the header's, a bad time.
BEGIN { FS = "|" }
function days(y, m, d) {   # days from 1970-01-01 (civil calendar)
	y -= m <= 2; era = int(y / 400); yoe = y - era * 400
	doy = int((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
	doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
	return era * 146097 + doe - 719468
}
function secs(t) {
	if (t !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/) return -1
	return days(substr(t, 1, 4) + 0, substr(t, 6, 2) + 0, substr(t, 9, 2) + 0) * 86400 + \
		substr(t, 12, 2) * 3600 + substr(t, 15, 2) * 60 + substr(t, 18, 2)
}
function gpus(tres, what,   n, a, i, best, bn, k, v) {   # what: "total" or "type"
	n = split(tres, a, ","); best = ""; bn = -1; tot = -1; typed = 0
	for (i = 1; i <= n; i++) {
		if (a[i] !~ /^gres\/gpu[:=]/) continue
		k = a[i]; sub(/=.*/, "", k); v = a[i]; sub(/.*=/, "", v)
		if (k == "gres/gpu") { tot = v + 0; continue }
		sub(/^gres\/gpu:/, "", k); typed += v
		if (v + 0 > bn) { bn = v + 0; best = k }
	}
	if (what == "type") return best
	return tot >= 0 ? tot : (bn >= 0 ? typed : 0)
}
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; ncol = NF; next }
{
	if (NF != ncol) next
	id = $col["JobIDRaw"]
	if (id ~ /\./) next
	rq = $col["ReqTRES"]; al = $col["AllocTRES"]
	if (gpus(rq, "total") <= 0 && gpus(al, "total") <= 0) next
	s = secs($col["Submit"]); b = secs($col["Start"]); e = secs($col["End"])
	if (s < 0 || b < 0 || e < 0 || gpus(al, "total") <= 0) next
	st = $col["State"]; sub(/ .*/, "", st)
	ac = ("AdminComment" in col) ? $col["AdminComment"] : ""; cm = ("Comment" in col) ? $col["Comment"] : ""
	asked = gpus(rq, "type")
	if (ac ~ /nodeox: changed/) {
		grp = "broadened"; tp = ac; sub(/.* type=/, "", tp); sub(/ .*/, "", tp); asked = tp
	} else if (cm !~ /nodeox:flex/) grp = "untagged"
	else if (ac != "" && ac !~ /nodeox dryrun: would change/) grp = "record_lost"
	else grp = "kept"
	if (asked == "") asked = "any"
	ran = gpus(al, "type"); if (ran == "") ran = "unknown"
	if (!(id in first_b) || b < first_b[id]) { first_b[id] = b; first_s[id] = s }
	runs[id]++; gsec[id] += gpus(al, "total") * (e - b)
	if (!(id in last_b) || b >= last_b[id]) {
		last_b[id] = b; last_e[id] = e; G[id] = grp; A[id] = asked; R[id] = ran; S[id] = st
	}
}
function sortn(arr, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
}
function put(g, name, arr, n,   i, sum, med, r) {
	sortn(arr, n); sum = 0
	for (i = 1; i <= n; i++) sum += arr[i]
	med = n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
	r = int(0.95 * n); if (r < 0.95 * n) r++
	printf "group %s %s mean %.3f\ngroup %s %s median %.3f\ngroup %s %s p95 %.3f\n", g, name, sum / n, g, name, med, g, name, arr[r]
}
function cfput(g, name, arr, nn,   i, sum, med, at, lo, p) {
	sortn(arr, nn); sum = 0
	for (i = 1; i <= nn; i++) sum += arr[i]
	med = nn % 2 ? arr[(nn + 1) / 2] : (arr[nn / 2] + arr[nn / 2 + 1]) / 2
	at = 0.95 * (nn - 1); lo = int(at)
	p = lo + 1 < nn ? arr[lo + 1] + (at - lo) * (arr[lo + 2] - arr[lo + 1]) : arr[lo + 1]
	printf "cf %s %s_mean_s %.3f\ncf %s %s_p50_s %.3f\ncf %s %s_p95_s %.3f\n", g, name, sum / nn, g, name, med, g, name, p
}
END {
	for (id in G) {
		g = G[id]; n[g]++
		W[g, n[g]] = first_b[id] - first_s[id]; U[g, n[g]] = last_e[id] - last_b[id]; T[g, n[g]] = last_e[id] - first_s[id]
		h = gsec[id] / 3600; gh[g] += h; hr[g "|" R[id]] += h
		cell[A[id] "|" R[id] "|" S[id]]++
		if (runs[id] > 1) cell[A[id] "|" R[id] "|REQUEUED"]++
		if (g == "broadened" && A[id] != R[id]) idle += h
	}
	split("broadened kept untagged record_lost", gs, " ")
	for (k = 1; k <= 4; k++) {
		g = gs[k]; printf "group %s jobs %d\n", g, n[g]
		if (!n[g]) continue
		for (i = 1; i <= n[g]; i++) { w[i] = W[g, i]; u[i] = U[g, i]; t[i] = T[g, i] }
		put(g, "wait", w, n[g]); put(g, "run_time", u, n[g]); put(g, "turnaround", t, n[g])
		printf "group %s gpu_hours %.6f\n", g, gh[g]
	}
	for (k in hr) { split(k, p, "|"); printf "hours %s %s %.6f\n", p[1], p[2], hr[k] }
	for (k in cell) { split(k, p, "|"); printf "state %s %s %s %d\n", p[1], p[2], p[3], cell[k] }
	printf "idle_gpu_hours %.6f\n", idle
	for (k = 1; k <= 5; k++) {
		g = k <= 4 ? gs[k] : "all"; nn = 0
		for (id in G)
			if (g == "all" || G[id] == g) { nn++; w[nn] = first_b[id] - first_s[id]; t[nn] = last_e[id] - first_s[id] }
		printf "cf %s jobs %d\n", g, nn
		if (nn) { cfput(g, "wait", w, nn); cfput(g, "turnaround", t, nn) }
	}
}
