# bench/peers-table.awk - the tables of bench/peers.sh from its all.tsv (POSIX awk).
#   awk -v arms="none senpai ..." -v plotdir=DIR -f bench/peers-table.awk all.tsv
# Input lines (tab-separated), tagged with the run number r:
#   S r arm t_s cgroup current swap zswap psi_some_us refaults     (a sample, every 5 s)
#   W r arm cgroup cold_bytes ops_per_s p99_us majflt                (the workload's summary)
#   A r arm status agent_cpu_s seconds                               (status ok or failed:why)
# saved(t) = memory.current at t = 0 (every workload ready) - memory.current at t. Values over runs
# are medians; the spread table gives min/median/max. Failed runs are left out and counted; an arm
# with no good run prints FAILED, never zeroes. Writes DIR/saved-<arm>.dat for the plot.
BEGIN {
	FS = "\t"
	M = 1048576
	FLOOR = 100 * M # limit_min_bytes / min_bytes of every arm that has a floor
	nt = split("60 150 300", T, " ")
	na = split(arms, A, " ")
}
$1 == "A" {
	r = $2; a = $3
	status[a, r] = $4; cpu[a, r] = $5
	if (!((a, r) in seenrun)) { seenrun[a, r] = 1; runs[a] = runs[a] " " r }
	next
}
$1 == "S" {
	r = $2; a = $3; t = $4 + 0; c = $5
	if (!(c in cgseen)) { cgseen[c] = 1; CG[++ncg] = c }
	if (!((a, r, c) in cur0)) { cur0[a, r, c] = $6; psi0[a, r, c] = $9; rf0[a, r, c] = $10 }
	saved = (cur0[a, r, c] - $6) / M
	ns[a, r, c]++
	st[a, r, c, ns[a, r, c]] = t; sv[a, r, c, ns[a, r, c]] = saved
	last_t[a, r, c] = t; last_sv[a, r, c] = saved; last_swap[a, r, c] = $7
	last_psi[a, r, c] = $9; last_rf[a, r, c] = $10
	b = int(t / 5 + 0.5) * 5
	if (!((a, b) in bucketseen)) { bucketseen[a, b] = 1; nb[a]++; B[a, nb[a]] = b }
	bk[a, b, r, c] = saved
	next
}
$1 == "W" {
	r = $2; a = $3; c = $4
	cold[c] = $5; ops[a, r, c] = $6; p99[a, r, c] = $7
	next
}

# med(v, n): median of v[1..n] (sorts v).
function sortv(v, n,   i, j, x) {
	for (i = 2; i <= n; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
		v[j + 1] = x
	}
}
function med(v, n) {
	if (n == 0) return "-"
	sortv(v, n)
	return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function spread(v, n, fmt,   m) {
	if (n == 0) return "-"
	m = med(v, n)
	if (fmt == "%.0f") return r0(v[1]) "/" r0(m) "/" r0(v[n])
	return sprintf(fmt "/" fmt "/" fmt, v[1], m, v[n])
}
# saved_at(a, r, c, T): saved MiB at the sample nearest T (within 3 s), or "" if there is none.
function saved_at(a, r, c, TT,   i, best, bd, d) {
	best = ""; bd = 3.01
	for (i = 1; i <= ns[a, r, c]; i++) {
		d = st[a, r, c, i] - TT; if (d < 0) d = -d
		if (d < bd) { bd = d; best = sv[a, r, c, i] }
	}
	return best
}
# t90(a, r, c): first sample time with saved >= 90 % of the final savings ("" if nothing saved).
function t90(a, r, c,   i, f) {
	f = last_sv[a, r, c]
	if (f <= 1) return ""
	for (i = 1; i <= ns[a, r, c]; i++) if (sv[a, r, c, i] >= 0.9 * f) return st[a, r, c, i]
	return ""
}
# goodruns(a): the runs of arm a whose status is ok, into GR[1..n]; returns n.
function goodruns(a,   k, n, rr, i) {
	n = split(runs[a], rr, " ")
	k = 0
	for (i = 1; i <= n; i++) if (status[a, rr[i]] == "ok") GR[++k] = rr[i]
	return k
}
# r0(x): x rounded to an integer, without a "-0" for small negative values (noise).
function r0(x,   t) { t = sprintf("%.0f", x); return t == "-0" ? "0" : t }
function fmtpct(x, base) { return base > 0 ? r0(100 * x / base) "%" : "-" }

END {
	# Baseline (none arm) ops/s and p99 per workload, medians over its good runs.
	ngn = goodruns("none")
	for (ci = 1; ci <= ncg; ci++) {
		c = CG[ci]
		n = 0; for (i = 1; i <= ngn; i++) v[++n] = ops["none", GR[i], c]; base_ops[c] = med(v, n)
		n = 0; for (i = 1; i <= ngn; i++) v[++n] = p99["none", GR[i], c]; base_p99[c] = med(v, n)
	}

	printf "Saved MiB (%% of the cold set) at 60/150/300 s and at the end, medians over good runs; limit = min(cold, start - 100M floor)\n"
	hdr = sprintf("%-18s %-9s %5s %5s %11s %11s %11s %11s %6s %7s %9s %7s %12s %14s", "arm", "workload", "cold",
		"limit", "saved@60", "saved@150", "saved@300", "saved@end", "t90 s", "PSI %", "refaults", "swap", "ops/s vs none",
		"p99 us (none)")
	print hdr
	for (ai = 1; ai <= na; ai++) {
		a = A[ai]
		ng = goodruns(a)
		nr = split(runs[a], tmp, " ")
		if (ng == 0) {
			why = ""
			for (i = 1; i <= nr; i++) why = why " " status[a, tmp[i]]
			printf "%-18s FAILED:%s\n", a, why
			continue
		}
		for (ci = 1; ci <= ncg; ci++) {
			c = CG[ci]
			n = 0; for (i = 1; i <= ng; i++) v[++n] = cur0[a, GR[i], c]; start = med(v, n)
			lim = start - FLOOR; if (lim > cold[c]) lim = cold[c]; if (lim < 0) lim = 0
			line = sprintf("%-18s %-9s %5.0f %5.0f", a, c, cold[c] / M, lim / M)
			for (k = 1; k <= nt; k++) {
				n = 0
				for (i = 1; i <= ng; i++) { x = saved_at(a, GR[i], c, T[k]); if (x != "") v[++n] = x }
				x = med(v, n)
				line = line sprintf(" %11s", x == "-" ? "-" : sprintf("%s (%s)", r0(x), fmtpct(x * M, cold[c])))
				tot[a, k] += (x == "-" ? 0 : x); if (x == "-") totmiss[a, k] = 1
			}
			n = 0; for (i = 1; i <= ng; i++) v[++n] = last_sv[a, GR[i], c]
			x = med(v, n); tot[a, nt + 1] += x
			line = line sprintf(" %11s", sprintf("%s (%s)", r0(x), fmtpct(x * M, cold[c])))
			n = 0; for (i = 1; i <= ng; i++) { x = t90(a, GR[i], c); if (x != "") v[++n] = x }
			x = med(v, n); line = line sprintf(" %6s", x == "-" ? "-" : sprintf("%.0f", x))
			n = 0
			for (i = 1; i <= ng; i++) {
				r = GR[i]
				v[++n] = last_t[a, r, c] > 0 ? (last_psi[a, r, c] - psi0[a, r, c]) / (last_t[a, r, c] * 1e6) * 100 : 0
			}
			line = line sprintf(" %7.2f", med(v, n))
			n = 0; for (i = 1; i <= ng; i++) { r = GR[i]; v[++n] = last_rf[a, r, c] - rf0[a, r, c] }
			line = line sprintf(" %9d", med(v, n))
			n = 0; for (i = 1; i <= ng; i++) v[++n] = last_swap[a, GR[i], c] / M
			line = line sprintf(" %7.0f", med(v, n))
			n = 0; for (i = 1; i <= ng; i++) if (ops[a, GR[i], c] != "-") v[++n] = ops[a, GR[i], c]
			o = med(v, n)
			if (o == "-") x = "-"
			else if (base_ops[c] != "-" && base_ops[c] > 0) x = sprintf("%.0f %+.1f%%", o, 100 * (o - base_ops[c]) / base_ops[c])
			else x = sprintf("%.0f", o)
			line = line sprintf(" %12s", x)
			n = 0; for (i = 1; i <= ng; i++) if (p99[a, GR[i], c] != "-") v[++n] = p99[a, GR[i], c]
			p = med(v, n)
			if (p == "-") x = "-"
			else if (base_p99[c] == "-") x = sprintf("%.0f (-)", p)
			else x = sprintf("%.0f (%.0f)", p, base_p99[c])
			line = line sprintf(" %14s", x)
			print line
			totcold[a] += cold[c]; totlim[a] += lim
		}
		line = sprintf("%-18s %-9s %5.0f %5.0f", a, "total", totcold[a] / M, totlim[a] / M)
		for (k = 1; k <= nt + 1; k++)
			line = line sprintf(" %11s", totmiss[a, k] ? "-" : sprintf("%s (%s)", r0(tot[a, k]), fmtpct(tot[a, k] * M, totcold[a])))
		n = 0; for (i = 1; i <= ng; i++) if (cpu[a, GR[i]] != "-") v[++n] = cpu[a, GR[i]]
		line = line sprintf("   agent CPU %s s (%d of %d runs good)", med(v, n), ng, nr)
		print line
	}

	print ""
	print "Spread over good runs (min/median/max)"
	printf "%-18s %-9s %20s %20s %22s %18s\n", "arm", "workload", "saved at end MiB", "PSI some %", "p99 us", "agent CPU s"
	for (ai = 1; ai <= na; ai++) {
		a = A[ai]
		ng = goodruns(a)
		if (ng == 0) continue
		n = 0; for (i = 1; i <= ng; i++) if (cpu[a, GR[i]] != "-") v[++n] = cpu[a, GR[i]]
		cpus = spread(v, n, "%.1f")
		for (ci = 1; ci <= ncg; ci++) {
			c = CG[ci]
			n = 0; for (i = 1; i <= ng; i++) v[++n] = last_sv[a, GR[i], c]; s1 = spread(v, n, "%.0f")
			n = 0
			for (i = 1; i <= ng; i++) {
				r = GR[i]
				v[++n] = last_t[a, r, c] > 0 ? (last_psi[a, r, c] - psi0[a, r, c]) / (last_t[a, r, c] * 1e6) * 100 : 0
			}
			s2 = spread(v, n, "%.2f")
			n = 0; for (i = 1; i <= ng; i++) if (p99[a, GR[i], c] != "-") v[++n] = p99[a, GR[i], c]
			s3 = spread(v, n, "%.0f")
			printf "%-18s %-9s %20s %20s %22s %18s\n", a, c, s1, s2, s3, ci == 1 ? cpus : ""
		}
	}

	# Plot data: per arm, per 5 s bucket, the median over good runs of the total and per-workload savings.
	for (ai = 1; ai <= na; ai++) {
		a = A[ai]
		ng = goodruns(a)
		if (ng == 0) continue
		f = plotdir "/saved-" a ".dat"
		printf "# t_s total" > f
		for (ci = 1; ci <= ncg; ci++) printf " %s", CG[ci] > f
		printf "\n" > f
		for (j = 1; j <= nb[a]; j++) {
			b = B[a, j]
			out = ""; n = 0
			for (i = 1; i <= ng; i++) {
				s = 0; ok = 1
				for (ci = 1; ci <= ncg; ci++) { if (!((a, b, GR[i], CG[ci]) in bk)) ok = 0; s += bk[a, b, GR[i], CG[ci]] }
				if (ok) v[++n] = s
			}
			if (n == 0) continue
			out = sprintf("%d %.1f", b, med(v, n))
			for (ci = 1; ci <= ncg; ci++) {
				n = 0
				for (i = 1; i <= ng; i++) if ((a, b, GR[i], CG[ci]) in bk) v[++n] = bk[a, b, GR[i], CG[ci]]
				out = out sprintf(" %.1f", med(v, n))
			}
			print out > f
		}
		close(f)
	}
}
