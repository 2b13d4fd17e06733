# table.awk - turns the raw records of bench/overhead.sh and bench/vm-overhead.sh into tables.
# POSIX/busybox awk (it also runs in the test VM).
#
# Input: lines "rec where=W n=N kind=K key=value ..."; other lines are ignored. Several records
# of the same where/n/kind (repeated runs) are reduced to their median, key by key.
# kind: agent-cold (one --once run: CPU at the end of its only tick, whole-process user/sys,
#       peak RSS), agent-warm (CPU per tick after the first, peak RSS), agent-live (warm, but
#       not --dry-run: PSI triggers installed), floor-open / -hot / -hot1 / -used / -walk
#       (bench/floor modes), vm-mem (kernel-side numbers).
# "title where=W TEXT" lines name a section.
# Medians are shown. The main figure, the "ratio" column, is agent CPU / the hot1 floor (bench/floor
# --mode hot1: the agent's own I/O strategy, so the ratio is what the agent adds on top of reading
# its files); the "open" floor is in the details. The goal lines also compare the fastest warm tick
# with the fastest hot1 pass (min over all runs), which the machine's drift disturbs least.
# Variables: interval_s (default 6), goal_ratio (1.2), goal_pct (0.5, at 1,000 cgroups),
# goal_rss_mib (16, at 10,000 cgroups).

function median(list,    n, a, i, j, t) {
	n = split(list, a, ",")
	for (i = 2; i <= n; i++) {
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	if (n == 0)
		return ""
	if (n % 2)
		return a[(n + 1) / 2] + 0
	return (a[n / 2] + a[n / 2 + 1]) / 2
}

function get(w, n, k, key) {
	if (!((w SUBSEP n SUBSEP k SUBSEP key) in vals))
		return ""
	return median(vals[w, n, k, key])
}

# The smallest of the values (the run least disturbed by the machine).
function getmin(w, n, k, key,    c, a, i, m) {
	if (!((w SUBSEP n SUBSEP k SUBSEP key) in vals))
		return ""
	c = split(vals[w, n, k, key], a, ",")
	m = a[1] + 0
	for (i = 2; i <= c; i++)
		if (a[i] + 0 < m)
			m = a[i] + 0
	return m
}

function ms(us) { return us == "" ? "-" : sprintf("%.1f", us / 1000) }

function row(w, n, tick, kind,    a, f, rss, ratio, rss_s, em) {
	a = get(w, n, kind, "cpu_us")
	em = get(w, n, kind, "emfile")
	if (a == "" && em == "")
		return
	f = get(w, n, "floor-hot1", "cpu_us")
	rss = get(w, n, kind, "rss_kib")
	ratio = "-"
	if (a != "" && f > 0)
		ratio = sprintf("%.2fx", a / f)
	rss_s = "-"
	if (rss != "")
		rss_s = sprintf("%.1f", rss / 1024)
	if (a == "") {
		printf "| %7s | %-11s | %9s | %10s | %6s | %8s | %8s | %9s |\n", n, tick, "n/a", ms(f),
			"-", "-", rss_s, "-"
	} else {
		printf "| %7s | %-11s | %9s | %10s | %6s | %8s | %8s | %9s |\n", n, tick, ms(a), ms(f),
			ratio, sprintf("%.1f", a / n), rss_s,
			sprintf("%.2f %%", a / (interval_s * 1e6) * 100)
	}
	if (em != "" && em > 0)
		emfile_note[w, n] = sprintf("n=%s: the agent ran out of file descriptors (EMFILE; open files limit %s): %s cgroups skipped in its tick, and no sd_notify STATUS could be sent, so only the --once run (whole process) was measured", n, get(w, n, kind, "nofile"), em)
}

BEGIN {
	if (interval_s == "") interval_s = 6
	if (goal_ratio == "") goal_ratio = 1.2
	if (goal_pct == "") goal_pct = 0.5
	if (goal_rss_mib == "") goal_rss_mib = 16
}

$1 == "title" {
	t = $0
	sub(/^title where=[^ ]* /, "", t)
	title[substr($2, 7)] = t
}

$1 == "rec" {
	w = n = k = ""
	for (i = 2; i <= NF; i++) {
		eq = index($i, "=")
		key = substr($i, 1, eq - 1)
		val = substr($i, eq + 1)
		if (key == "where") w = val
		else if (key == "n") n = val
		else if (key == "kind") k = val
		else rec[key] = val
	}
	if (!((w) in seen_w)) { seen_w[w] = 1; order_w[++nw] = w }
	if (!((w SUBSEP n) in seen_n)) { seen_n[w, n] = 1; order_n[w, ++nn[w]] = n }
	for (key in rec) {
		# (mawk creates the element on the left before testing `in` on the right: test first)
		if ((w SUBSEP n SUBSEP k SUBSEP key) in vals)
			vals[w, n, k, key] = vals[w, n, k, key] "," rec[key]
		else
			vals[w, n, k, key] = rec[key]
		delete rec[key]
	}
	if (k == "note") notes[w] = notes[w] " " $0
}

END {
	for (iw = 1; iw <= nw; iw++) {
		w = order_w[iw]
		printf "\n%s\n", title[w] != "" ? title[w] : w
		print "| cgroups | tick        | agent CPU | hot1 floor | ratio  |  µs per  | agent    | % of one  |"
		print "|         |             | ms/tick   | ms/pass    | /hot1  |  cgroup  | peak RSS | core, 6 s |"
		print "|         |             |           |            |        |          | MiB      | interval  |"
		print "|---------|-------------|-----------|------------|--------|----------|----------|-----------|"
		for (j = 1; j <= nn[w]; j++) {
			n = order_n[w, j]
			row(w, n, "cold (once)", "agent-cold")
			row(w, n, "warm", "agent-warm")
			row(w, n, "warm, live", "agent-live")
		}

		print ""
		print "Details (medians; CPU in ms per tick or pass):"
		print "| cgroups | floor open | floor hot | floor hot1 | floor used | listing | once user/sys | warm user/sys | warm (rusage diff) | warm min..max |"
		print "|         |            |           |            |            | (walk)  | (whole run)   |               |                    | (min: fastest |"
		print "|         |            |           |            |            |         |               |               |                    |  tick of all) |"
		print "|---------|------------|-----------|------------|------------|---------|---------------|---------------|--------------------|---------------|"
		for (j = 1; j <= nn[w]; j++) {
			n = order_n[w, j]
			cu = get(w, n, "agent-cold", "user_us"); cs = get(w, n, "agent-cold", "sys_us")
			wu = get(w, n, "agent-warm", "user_us"); ws = get(w, n, "agent-warm", "sys_us")
			printf "| %7s | %10s | %9s | %10s | %10s | %7s | %13s | %13s | %18s | %13s |\n", n,
				ms(get(w, n, "floor-open", "cpu_us")), ms(get(w, n, "floor-hot", "cpu_us")),
				ms(get(w, n, "floor-hot1", "cpu_us")), ms(get(w, n, "floor-used", "cpu_us")),
				ms(get(w, n, "floor-walk", "cpu_us")),
				cu == "" ? "-" : ms(cu) "/" ms(cs), wu == "" ? "-" : ms(wu) "/" ms(ws),
				ms(get(w, n, "agent-warm", "diff_us")),
				get(w, n, "agent-warm", "min_us") == "" ? "-" : ms(getmin(w, n, "agent-warm", "min_us")) ".." ms(get(w, n, "agent-warm", "max_us"))
		}
		for (j = 1; j <= nn[w]; j++) {
			n = order_n[w, j]
			if ((w SUBSEP n) in emfile_note)
				print emfile_note[w, n]
			for (m = 1; m <= 3; m++) {
				mode = m == 1 ? "hot" : m == 2 ? "hot1" : "used"
				fb = get(w, n, "floor-" mode, "hot_fallback")
				if (fb != "" && fb > 0)
					printf "n=%s: floor %s kept fewer files open than it wanted (open-files limit): %s hot files read as in \"open\"\n", n, mode, fb
				fb = get(w, n, "floor-" mode, "errors")
				if (fb != "" && fb > 0)
					printf "n=%s: floor %s: %s failed opens per pass\n", n, mode, fb
			}
			if (get(w, n, "vm-mem", "psimon_threads") != "")
				printf "n=%s, live mode: %s psimon kthreads (KernelStack +%.1f MiB), agent cgroup memory.current %.1f MiB (kernel %.1f MiB) vs %.1f MiB (kernel %.1f MiB) in dry run, psimon CPU %.2f ms per second\n",
					n, get(w, n, "vm-mem", "psimon_threads"), get(w, n, "vm-mem", "kernel_stack_kib") / 1024,
					get(w, n, "agent-live", "cg_current") / 1048576, get(w, n, "agent-live", "cg_kernel") / 1048576,
					get(w, n, "agent-warm", "cg_current") / 1048576, get(w, n, "agent-warm", "cg_kernel") / 1048576,
					get(w, n, "vm-mem", "psimon_cpu_ms_per_s")
		}
	}
	# The VM emulates the CPU (no KVM): the same fake tree measured on the host and in the VM
	# gives the slowdown, and VM kernfs times divided by it estimate native ones (rough: the
	# kernel work on kernfs is not the work on tmpfs).
	if (("host-tmpfs" in seen_w) && ("vm-tmpfs" in seen_w)) {
		for (j = 1; j <= nn["vm-tmpfs"]; j++) {
			n = order_n["vm-tmpfs", j]
			hf = get("host-tmpfs", n, "floor-open", "cpu_us"); vf = get("vm-tmpfs", n, "floor-open", "cpu_us")
			ha = get("host-tmpfs", n, "agent-warm", "cpu_us"); va = get("vm-tmpfs", n, "agent-warm", "cpu_us")
			if (hf == "" || vf == "" || ha == "" || va == "")
				continue
			sf = vf / hf; sa = va / ha
			if (sf > sa) { t = sf; sf = sa; sa = t }
			printf "\nEmulation slowdown (the same %s-cgroup fake tree on tmpfs, VM / host): floor %.1fx, agent warm tick %.1fx\n", n, vf / hf, va / ha
			print "Real kernel (VM kernfs) divided by it, a rough range for native times (how much the"
			print "emulation slows a piece of work depends on its mix of user code and kernel code):"
			print "| cgroups | agent warm ms/tick | floor ms/pass | agent, % of one core at 6 s |"
			print "|---------|--------------------|---------------|-----------------------------|"
			for (jj = 1; jj <= nn["vm-kernfs"]; jj++) {
				m = order_n["vm-kernfs", jj]
				a = get("vm-kernfs", m, "agent-warm", "cpu_us"); f = get("vm-kernfs", m, "floor-open", "cpu_us")
				if (a == "" || f == "")
					continue
				printf "| %7s | %18s | %13s | %27s |\n", m,
					sprintf("%.0f..%.0f", a / sa / 1000, a / sf / 1000),
					sprintf("%.0f..%.0f", f / sa / 1000, f / sf / 1000),
					sprintf("%.2f..%.2f %%", a / sa / (interval_s * 1e6) * 100, a / sf / (interval_s * 1e6) * 100)
			}
			break
		}
	}

	printf "\nGoals: warm tick <= %.1fx the hot1 floor (1,000 and 10,000 cgroups); <= %s %% of one core at 1,000 cgroups with a %s s interval; peak RSS <= %s MiB at 10,000 cgroups.\n",
		goal_ratio, goal_pct, interval_s, goal_rss_mib
	for (iw = 1; iw <= nw; iw++) {
		w = order_w[iw]
		for (j = 1; j <= nn[w]; j++) {
			n = order_n[w, j]
			a = get(w, n, "agent-warm", "cpu_us"); f = get(w, n, "floor-hot1", "cpu_us")
			if (a == "" || f == "")
				continue
			verdict = "OVER " goal_ratio "x"
			if (a / f <= goal_ratio)
				verdict = "met"
			printf "  %-11s n=%-6s warm tick / hot1 = %.2fx (%s)", w, n, a / f, verdict
			am = getmin(w, n, "agent-warm", "min_us"); fm = getmin(w, n, "floor-hot1", "min_us")
			if (am != "" && fm > 0)
				printf "; fastest tick / fastest pass = %.2fx", am / fm
			fo = get(w, n, "floor-open", "cpu_us")
			if (fo > 0)
				printf "; / open floor = %.2fx", a / fo
			if (n + 0 == 1000) {
				pct = a / (interval_s * 1e6) * 100
				verdict = "NOT met"
				if (pct <= goal_pct)
					verdict = "met"
				printf "; %.2f %% of one core (<= %s %%: %s)", pct, goal_pct, verdict
			}
			rss = get(w, n, "agent-warm", "rss_kib")
			if (n + 0 == 10000 && rss != "") {
				verdict = "NOT met"
				if (rss / 1024 <= goal_rss_mib)
					verdict = "met"
				printf "; peak RSS %.1f MiB (<= %s MiB: %s)", rss / 1024, goal_rss_mib, verdict
			}
			printf "\n"
		}
	}
}
