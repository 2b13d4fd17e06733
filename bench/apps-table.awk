# bench/apps-table.awk - the tables of bench/apps.sh from its all.tsv (POSIX awk).
#   awk -v apps="kv fio" -v arms="none senpai ..." -v plotdir=DIR -f bench/apps-table.awk all.tsv
# Input lines (tab-separated), tagged with run r, application p and arm a:
#   S r p a t_s inst current swap zswap psi_some_us refaults io_rbytes zswpin pgmajfault pgsteal
#   K r p a t_s inst stream n secs rps p50_ms p99_ms p999_ms chunk_busy_s      (kv chunks)
#   F r p a inst metric value                                                  (app summary)
#   A r p a status agent_cpu_s seconds
#   H r p a load_before load_after                                             (host loadavg)
# Instance a is managed by the arm, b by nothing. saved(t) = a's memory.current at t = 0 - at t.
# Pages back (docs/pages-back.md, with io.stat): per sample interval max(io.stat rbytes / 4 KiB +
# zswpin, workingset_refault_anon + _file, pgmajfault), summed. Paired ratios (kv): per chunk
# a/b, their geometric mean over every chunk of every run of the arm, with a 95 % t interval on
# the logs. Values over runs are medians; an arm with no good run prints FAILED. Writes
# DIR/plot-<p>-*.tsv.
BEGIN {
	FS = "\t"
	M = 1048576
	PG = 4096
	nap = split(apps, P, " ")
	na = split(arms, A, " ")
}
$1 == "A" {
	k = $3 SUBSEP $4
	status[k, $2] = $5; cpu[k, $2] = $6; secs[k, $2] = $7
	if (!((k, $2) in seenrun)) { seenrun[k, $2] = 1; runs[k] = runs[k] " " $2 }
	next
}
$1 == "H" { load[$3, $4, $2] = $5 " -> " $6; next }
$1 == "S" {
	r = $2; k = $3 SUBSEP $4; t = $5 + 0; i = $6
	if (!((k, r, i) in cur0)) {
		cur0[k, r, i] = $7; psi0[k, r, i] = $10; rf0[k, r, i] = $11; steal0[k, r, i] = $15
		pio[k, r, i] = $12; pz[k, r, i] = $13; prf[k, r, i] = $11; pmf[k, r, i] = $14
		back[k, r, i] = 0; drift[k, r, i] = 0
	}
	d_io = int(($12 - pio[k, r, i] + PG - 1) / PG); d_z = $13 - pz[k, r, i]; d_rf = $11 - prf[k, r, i]
	d_mf = $14 - pmf[k, r, i]
	if (d_io < 0) d_io = 0
	if (d_z < 0) d_z = 0
	if (d_rf < 0) d_rf = 0
	if (d_mf < 0) d_mf = 0
	d_b = (d_io + d_z > d_rf) ? d_io + d_z : d_rf
	back[k, r, i] += (d_mf > d_b) ? d_mf : d_b
	pio[k, r, i] = $12; pz[k, r, i] = $13; prf[k, r, i] = $11; pmf[k, r, i] = $14
	saved = (cur0[k, r, i] - $7) / M
	dd = saved < 0 ? -saved : saved
	if (dd > drift[k, r, i]) drift[k, r, i] = dd
	# saved at 60 and 150 s: the first sample at or after each
	if (t >= 60 && !((k, r, i, 60) in at)) at[k, r, i, 60] = saved
	if (t >= 150 && !((k, r, i, 150) in at)) at[k, r, i, 150] = saved
	last_t[k, r, i] = t; last_sv[k, r, i] = saved; last_cur[k, r, i] = $7
	last_psi[k, r, i] = $10; last_rf[k, r, i] = $11; last_steal[k, r, i] = $15
	if (i == "a") {
		series = (r == 1 ? $4 : $4 " r" r)
		printf "%s\t%s\t%.1f\n", series, t, saved >>(plotdir "/plot-" $3 "-saved.tsv")
		printf "%s\t%s\t%d\n", series, t, back[k, r, i] >>(plotdir "/plot-" $3 "-back.tsv")
	}
	next
}
$1 == "K" {
	r = $2; k = $3 SUBSEP $4; t = $5; i = $6; s = $7
	if ($10 == "-" || $10 + 0 <= 0) next
	kk = k SUBSEP r SUBSEP t SUBSEP s
	kr[kk, i] = $10; k50[kk, i] = $11; k99[kk, i] = $12; k999[kk, i] = $13
	if (!((kk) in kseen)) { kseen[kk] = 1; nkc[k]++; KC[k, nkc[k]] = kk; KT[k, nkc[k]] = t; KR[k, nkc[k]] = r; KS[k, nkc[k]] = s }
	busy[k, ++nbusy[k]] = $14
	next
}
$1 == "F" { f[$3, $4, $2, $5, $6] = $7; next }

function sortv(v, n,   i, j, x) {
	for (i = 2; i <= n; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
		v[j + 1] = x
	}
}
function median(v, n) {
	if (n == 0) return "-"
	sortv(v, n)
	return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# t quantile (97.5 %) for df degrees of freedom.
function tq(df) {
	if (df <= 1) return 12.71
	if (df == 2) return 4.30
	if (df == 3) return 3.18
	if (df == 4) return 2.78
	if (df <= 6) return 2.50
	if (df <= 9) return 2.30
	if (df <= 14) return 2.16
	if (df <= 20) return 2.09
	if (df <= 30) return 2.05
	return 2.00
}
# gm(v, n): "g [lo, hi]" the geometric mean of ratios v[1..n] with a 95 % t interval.
function gm(v, n,   i, s, ss, m, sd, h) {
	if (n == 0) return "-"
	for (i = 1; i <= n; i++) s += log(v[i])
	m = s / n
	if (n < 2) return sprintf("%.3f", exp(m))
	for (i = 1; i <= n; i++) ss += (log(v[i]) - m) ^ 2
	sd = sqrt(ss / (n - 1))
	h = tq(n - 1) * sd / sqrt(n)
	return sprintf("%.3f [%.3f, %.3f]", exp(m), exp(m - h), exp(m + h))
}
function fmt(x, d) { return x == "-" || x == "" ? "-" : sprintf("%." d "f", x) }
# mr(name, k, i, ...): the median over good runs of arm k of the per-run array name at instance i.
function good(k, r) { return status[k, r] == "ok" }

END {
	for (pi = 1; pi <= nap; pi++) {
		p = P[pi]
		hdr = 0
		for (ai = 1; ai <= na; ai++) {
			a = A[ai]; k = p SUBSEP a
			if (!(k in runs)) continue
			if (!hdr) {
				print "### " p ": memory (instance a managed; b unmanaged, its drift and pgsteal must stay ~0)"
				print ""
				print "| arm | runs | a at start | saved 60 s | saved 150 s | saved at end | PSI some a | pages back a (per min, % of a) | refaults a | b drift | b pgsteal | agent CPU | host load before -> after |"
				print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
				hdr = 1
			}
			n = split(substr(runs[k], 2), R, " ")
			ng = 0; nf = 0; loads = ""
			delete v0; delete v60; delete v150; delete vend; delete vpsi; delete vback; delete vbr; delete vrf
			delete vdr; delete vst; delete vcpu
			for (j = 1; j <= n; j++) {
				r = R[j]
				loads = loads (loads == "" ? "" : "; ") ((p, a, r) in load ? load[p, a, r] : "?")
				if (!good(k, r) || !((k, r, "a") in cur0)) { nf++; continue }
				ng++
				v0[ng] = cur0[k, r, "a"] / M
				v60[ng] = ((k, r, "a", 60) in at) ? at[k, r, "a", 60] : 0
				v150[ng] = ((k, r, "a", 150) in at) ? at[k, r, "a", 150] : last_sv[k, r, "a"]
				vend[ng] = last_sv[k, r, "a"]
				el = last_t[k, r, "a"] > 0 ? last_t[k, r, "a"] : 1
				vpsi[ng] = (last_psi[k, r, "a"] - psi0[k, r, "a"]) / (el * 1e6) * 100
				vback[ng] = back[k, r, "a"]
				vbr[ng] = back[k, r, "a"] / (el / 60) / (last_cur[k, r, "a"] / PG) * 100
				vrf[ng] = last_rf[k, r, "a"] - rf0[k, r, "a"]
				vdr[ng] = drift[k, r, "b"]
				vst[ng] = last_steal[k, r, "b"] - steal0[k, r, "b"]
				vcpu[ng] = cpu[k, r]
			}
			if (ng == 0) {
				printf "| %s | 0 of %d | FAILED (%s) | | | | | | | | | | %s |\n", a, n, status[k, R[1]], loads
				continue
			}
			printf "| %s | %d%s | %.0f MiB | %.0f MiB | %.0f MiB | %.0f MiB | %.3f %% | %.0f (%.3f %%) | %.0f | %.1f MiB | %.0f | %s s | %s |\n",
				a, ng, nf ? " (" nf " failed)" : "", median(v0, ng), median(v60, ng), median(v150, ng), median(vend, ng),
				median(vpsi, ng), median(vback, ng), median(vbr, ng), median(vrf, ng), median(vdr, ng), median(vst, ng),
				fmt(median(vcpu, ng), 1), loads
		}
		if (!hdr) continue
		print ""
		if (p ~ /^kv/) {
			print "### " p ": redis-benchmark's own numbers (ms; per instance the median over 5 s chunks of each chunk's percentile)"
			print ""
			print "| arm | chunks | busy s/chunk | hot rps a/b | hot p99 a/b | all p99 a/b | all p99.9 a/b | a hot p50/p99/p99.9 | b hot p50/p99/p99.9 | a all p50/p99/p99.9 | b all p50/p99/p99.9 |"
			print "|---|---|---|---|---|---|---|---|---|---|---|"
			for (ai = 1; ai <= na; ai++) {
				a = A[ai]; k = p SUBSEP a
				if (!(k in nkc)) continue
				delete rr; delete hr; delete ar; delete ar9; nrr = nhr = nar = nar9 = 0
				delete m1; delete m2; delete m3; delete m4; delete m5; delete m6; delete m7; delete m8; delete m9; delete m10; delete m11; delete m12
				n1 = n2 = 0
				for (c = 1; c <= nkc[k]; c++) {
					kk = KC[k, c]
					if (!((kk, "a") in kr) || !((kk, "b") in kr)) continue
					if (KS[k, c] == "hot") {
						rr[++nrr] = kr[kk, "a"] / kr[kk, "b"]
						if (k99[kk, "b"] > 0) hr[++nhr] = k99[kk, "a"] / k99[kk, "b"]
						n1++
						m1[n1] = k50[kk, "a"]; m2[n1] = k99[kk, "a"]; m3[n1] = k999[kk, "a"]
						m4[n1] = k50[kk, "b"]; m5[n1] = k99[kk, "b"]; m6[n1] = k999[kk, "b"]
					} else {
						if (k99[kk, "b"] > 0) ar[++nar] = k99[kk, "a"] / k99[kk, "b"]
						if (k999[kk, "b"] > 0 && k999[kk, "a"] != "-") ar9[++nar9] = k999[kk, "a"] / k999[kk, "b"]
						n2++
						m7[n2] = k50[kk, "a"]; m8[n2] = k99[kk, "a"]; m9[n2] = k999[kk, "a"]
						m10[n2] = k50[kk, "b"]; m11[n2] = k99[kk, "b"]; m12[n2] = k999[kk, "b"]
						if (KR[k, c] == 1 && k99[kk, "b"] > 0)
							printf "%s\t%s\t%.3f\n", a, KT[k, c], k99[kk, "a"] / k99[kk, "b"] >>(plotdir "/plot-kv-p99.tsv")
					}
				}
				delete bz; for (c = 1; c <= nbusy[k]; c++) bz[c] = busy[k, c]
				printf "| %s | %d | %.2f | %s | %s | %s | %s | %.3f/%.3f/%.3f | %.3f/%.3f/%.3f | %.3f/%.3f/%.3f | %.3f/%.3f/%.3f |\n",
					a, n1, median(bz, nbusy[k]), gm(rr, nrr), gm(hr, nhr), gm(ar, nar), gm(ar9, nar9),
					median(m1, n1), median(m2, n1), median(m3, n1), median(m4, n1), median(m5, n1), median(m6, n1),
					median(m7, n2), median(m8, n2), median(m9, n2), median(m10, n2), median(m11, n2), median(m12, n2)
			}
			print ""
		}
		if (p == "fio" || p == "db") {
			if (p == "fio") {
				print "### fio: fio's own numbers (read IOPS, completion latency in us over the whole run; median over runs)"
				print ""
				print "| arm | runs | IOPS a / b | a p50/p99/p99.9 | b p50/p99/p99.9 | p99 a/b | p99.9 a/b | mean a/b | a: pages back per 1,000 reads |"
			} else {
				print "### db: pgbench's own numbers (transactions/s; latency in us from each transaction's scheduled start, over the whole run; median over runs)"
				print ""
				print "| arm | runs | TPS a / b | a p50/p99/p99.9 | b p50/p99/p99.9 | p99 a/b | p99.9 a/b | mean a/b | a: pages back per 1,000 transactions |"
			}
			print "|---|---|---|---|---|---|---|---|---|"
			for (ai = 1; ai <= na; ai++) {
				a = A[ai]; k = p SUBSEP a
				if (!(k in runs)) continue
				n = split(substr(runs[k], 2), R, " ")
				ng = 0
				delete x1; delete x2; delete x3; delete x4; delete x5; delete x6; delete x7; delete x8; delete x9; delete x10; delete x11
				for (j = 1; j <= n; j++) {
					r = R[j]
					if (!good(k, r) || !((p, a, r, "a", "p99_us") in f) || !((p, a, r, "b", "p99_us") in f)) continue
					ng++
					x1[ng] = f[p, a, r, "a", "iops"]; x2[ng] = f[p, a, r, "b", "iops"]
					x3[ng] = f[p, a, r, "a", "p50_us"]; x4[ng] = f[p, a, r, "a", "p99_us"]; x5[ng] = f[p, a, r, "a", "p999_us"]
					x6[ng] = f[p, a, r, "b", "p50_us"]; x7[ng] = f[p, a, r, "b", "p99_us"]; x8[ng] = f[p, a, r, "b", "p999_us"]
					x9[ng] = f[p, a, r, "a", "clat_mean_us"]; x10[ng] = f[p, a, r, "b", "clat_mean_us"]
					# reads: fio's rate times the measured seconds (it keeps its rate)
					rd = x1[ng] * secs[k, r]
					x11[ng] = rd > 0 ? 1000 * back[k, r, "a"] / rd : 0
				}
				if (ng == 0) { printf "| %s | 0 | FAILED | | | | | | |\n", a; continue }
				ma = median(x9, ng); mb = median(x10, ng)
				p99a = median(x4, ng); p99b = median(x7, ng); p9a = median(x5, ng); p9b = median(x8, ng)
				printf "| %s | %d | %.0f / %.0f | %.1f/%.1f/%.1f | %.1f/%.1f/%.1f | %.2f | %.2f | %.2f | %.2f |\n",
					a, ng, median(x1, ng), median(x2, ng), median(x3, ng), p99a, p9a,
					median(x6, ng), p99b, p9b, (p99b > 0 ? p99a / p99b : 0), (p9b > 0 ? p9a / p9b : 0), (mb > 0 ? ma / mb : 0),
					median(x11, ng)
			}
			print ""
		}
	}
}
