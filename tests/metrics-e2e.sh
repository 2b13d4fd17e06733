#!/usr/bin/env bash
# The metrics end to end, on the host (part of `make check-unit`): the real daemon
# ($RECLAIMD, default ./reclaimd) runs --dry-run on a fake cgroup tree (the recorded files of a
# real 6.12 cgroup, tests/fixtures/real-6.12, copied into a temporary directory on tmpfs when
# /dev/shm is one), with metrics.textfile and metrics.listen set. Checks:
#   - the textfile and GET /metrics both pass `promtool check metrics` (Debian: prometheus);
#   - GET and HEAD of /metrics answer 200 with the exposition's content type (HEAD: no body on
#     the wire), of / a landing page linking to /metrics; POST, PUT, DELETE and OPTIONS there
#     answer 405 with "Allow: GET, HEAD"; other paths 404;
#   - every _total series of a later scrape is >= the same series of an earlier one;
#   - a textfile directory that does not exist gets one warning over several ticks, no crash,
#     and the file appears once the directory does (with one "written again" line);
#   - SIGHUP applies a new textfile path and a new listen address; onto a port in use, it says
#     so and serves the old address again;
#   - a second daemon on the same address exits 1 naming the address and the errno;
#   - with pod-shaped cgroups (kubelet's systemd driver: a Guaranteed, a Burstable and a
#     BestEffort pod, one with a containerd scope): series by QoS class, per-pod series labelled
#     pod_uid and qos only and capped by max_pod_series, no container id in any label, and the
#     QoS counters never go back when a pod goes away.
# No timing assertion: waits are bounded polls for a condition (10 s each, far above the
# 0.5 s interval). Prints "metrics-e2e: N passed, N failed, N skipped".
# The fixture tree cannot drive jobs (memory.reclaim and PSI triggers need the kernel; with
# --dry-run nothing is written), so request outcomes and reclaimed bytes stay 0 here; the VM
# scenario test-reclaim checks reclaimed bytes on the real kernel.
# The tree is not a cgroup2 mount and the files are the test's: --allow-unsafe-paths.
set -u
cd "$(dirname "$0")/.."
RECLAIMD=${RECLAIMD:-./reclaimd}
FIX=tests/fixtures/real-6.12
TEST_NAME=metrics-e2e TEST_FAIL=FAIL:
. tests/lib.sh

base=/dev/shm
[ "$(stat -f -c %T "$base" 2>/dev/null)" = tmpfs ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
T=$(mktemp -d "$base/reclaimd-metrics.XXXXXX") || { echo "metrics-e2e: 0 passed, 1 failed, 0 skipped"; exit 1; }
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

# The fake tree: the root's recorded files, and three managed cgroups, one with a quote and a
# backslash in its name (escaped in the per-cgroup series); and three pods as kubelet's systemd
# driver lays them out (the BestEffort one with a containerd container), managed at the pod level.
mkdir -p "$T/cg/work.slice"
cp "$FIX"/sys/fs/cgroup/* "$T/cg/" 2>/dev/null
cp "$FIX"/sys/fs/cgroup/fixture/* "$T/cg/work.slice/"
for c in a b 'Odd"name\x'; do
	mkdir -p "$T/cg/work.slice/$c"
	cp "$FIX"/sys/fs/cgroup/fixture/* "$T/cg/work.slice/$c/"
done
UID_G=11111111-0000-4000-8000-000000000001
UID_B=22222222-0000-4000-8000-000000000002
UID_E=33333333-0000-4000-8000-000000000003
CID=$(printf 'c%.0s' $(seq 64))
KP=kubepods.slice
POD_G=$KP/kubepods-pod${UID_G//-/_}.slice
POD_B=$KP/kubepods-burstable.slice/kubepods-burstable-pod${UID_B//-/_}.slice
POD_E=$KP/kubepods-besteffort.slice/kubepods-besteffort-pod${UID_E//-/_}.slice
for c in "$KP" "$KP/kubepods-burstable.slice" "$KP/kubepods-besteffort.slice" "$POD_G" "$POD_B" \
	 "$POD_E" "$POD_E/cri-containerd-$CID.scope"; do
	mkdir -p "$T/cg/$c"
	cp "$FIX"/sys/fs/cgroup/fixture/* "$T/cg/$c/"
done

# A free port: the kernel picks one for a listener we close at once; the daemon may still lose
# it to another process in between, so it is retried a few times with a new one.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + RANDOM % 30000))
}

# Six managed cgroups: the three pods (first in path order) and work.slice's three.
write_config() { # FILE TEXTFILE PORT PER_CGROUP_AND_POD
	cat >"$1" <<EOF
{
  "interval": 0.5,
  "metrics": { "textfile": "$2", "listen": "127.0.0.1:$3", "per_cgroup": $4,
               "max_cgroup_series": 5, "per_pod": $4, "max_pod_series": 2 },
  "rules": [ { "match": "work.slice/*", "min_bytes": "1M" },
             { "match": "kubepods.slice/**", "qos": ["guaranteed", "burstable", "besteffort"],
               "min_bytes": "1M" } ]
}
EOF
}

# GET PATH [METHOD] -> body on stdout, "HTTP-STATUS CONTENT-TYPE" in $T/http, the headers in
# $T/headers (HEAD through curl -I, which reads no body).
http() { # PORT PATH [METHOD]
	local method=${3:-GET}
	if command -v curl >/dev/null; then
		if [ "$method" = HEAD ]; then
			curl -s -I -o /dev/null -D "$T/headers" "http://127.0.0.1:$1$2" || return 1
			: >"$T/body"
		else
			curl -s -X "$method" -o "$T/body" -D "$T/headers" "http://127.0.0.1:$1$2" || return 1
		fi
	else
		exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
		printf '%s %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$method" "$2" >&3
		cat <&3 >"$T/raw"
		exec 3<&-
		sed -n '1,/^\r$/p' "$T/raw" >"$T/headers"
		sed '1,/^\r$/d' "$T/raw" >"$T/body"
	fi
	printf '%s %s\n' "$(sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$T/headers")" \
		"$(sed -n 's/^[Cc]ontent-[Tt]ype: *\(.*\)\r$/\1/p' "$T/headers")" >"$T/http"
	cat "$T/body"
}

# header NAME -> the value of the header NAME in $T/headers (the last response's).
header() {
	sed -n "s/^$1: *\(.*\)\r\$/\1/Ip" "$T/headers" | head -n 1
}

# raw_bytes PORT METHOD PATH -> how many bytes follow the response's header section, the request
# made over bash's /dev/tcp in HTTP/1.0 (the server closes the connection after it), so bytes a
# client for HEAD would ignore are counted too.
raw_bytes() {
	exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
	printf '%s %s HTTP/1.0\r\nHost: localhost\r\n\r\n' "$2" "$3" >&3
	cat <&3 >"$T/raw"
	exec 3<&-
	sed '1,/^\r$/d' "$T/raw" | wc -c
}

# Waits (at most 10 s) for COMMAND to succeed.
wait_for() {
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

value_of() { # FILE SERIES -> its value
	awk -v s="$2" '$1 == s { print $2 }' "$1"
}

ticks_over() { # FILE N: the file's tick count is above N
	local v
	v=$(value_of "$1" reclaimd_tick_duration_seconds_count 2>/dev/null)
	[ -n "$v" ] && [ "$v" -gt "$2" ]
}

start_daemon() { # CONFIG LOG -> pid in $daemon
	"$RECLAIMD" --allow-unsafe-paths -c "$1" --cgroup-root "$T/cg" --proc-root "$FIX/proc" --sys-root "$FIX/sys" \
		--dry-run --log-stderr >"$2" 2>&1 &
	daemon=$!
	pids+=("$daemon")
}

promtool_ok() { # FILE
	local out
	out=$(promtool check metrics <"$1" 2>&1)
	local rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    promtool: /' >&2
	return $rc
}

# ---- the daemon with both outputs -------------------------------------------------------------
mkdir -p "$T/prom"
for attempt in 1 2 3; do
	port=$(free_port)
	write_config "$T/c.json" "$T/prom/reclaimd.prom" "$port" true
	start_daemon "$T/c.json" "$T/log"
	wait_for test -s "$T/prom/reclaimd.prom" && break
	grep -q "Address already in use" "$T/log" || break
done
check "the textfile appears" test -s "$T/prom/reclaimd.prom"
check "the daemon is running" kill -0 "$daemon"
if [ "$failed" -gt 0 ]; then
	echo "--- daemon log (last 20 lines)" >&2
	tail -n 20 "$T/log" >&2
	summary
fi
wait_for ticks_over "$T/prom/reclaimd.prom" 2
cp "$T/prom/reclaimd.prom" "$T/scrape1.prom"

http "$port" /metrics >"$T/http1.prom"
check "GET /metrics answers 200 with the exposition type" \
	grep -q '^200 text/plain; version=0.0.4' "$T/http"
check "GET /metrics has reclaimd_build_info" grep -q '^reclaimd_build_info{version="' "$T/http1.prom"
check "the per-cgroup series escape the quote and backslash" \
	grep -qF 'cgroup="work.slice/Odd\"name\\x"' "$T/prom/reclaimd.prom"
check "past max_cgroup_series the rest is counted" \
	grep -q '^reclaimd_cgroup_series_capped 1$' "$T/prom/reclaimd.prom"
check "the cap is warned about once" test "$(grep -c 'max_cgroup_series' "$T/log")" -eq 1
check "decisions are counted by rule (index and glob) and reason" \
	grep -q '^reclaimd_decisions_total{rule="0",match="work.slice/\*",reason="reclaim"} [1-9]' "$T/prom/reclaimd.prom"
check "the pod rule's selectors are in reclaimd_rule_info" \
	grep -q '^reclaimd_rule_info{rule="1",match="kubepods.slice/\*\*",policy="psi",qos="guaranteed,burstable,besteffort",runtime="",level="pod"} 1$' "$T/prom/reclaimd.prom"

# ---- pods: by QoS class, per pod, capped --------------------------------------------------------
P=$T/prom/reclaimd.prom
for q in guaranteed burstable besteffort; do
	check "one managed cgroup of QoS class $q" grep -q "^reclaimd_qos_cgroups{qos=\"$q\"} 1$" "$P"
	check "decisions of QoS class $q are counted" \
		grep -q "^reclaimd_qos_decisions_total{qos=\"$q\",reason=\"reclaim\"} [1-9]" "$P"
done
check "cgroups not in a pod are QoS class none" grep -q '^reclaimd_qos_cgroups{qos="none"} 3$' "$P"
check "memory.current by QoS class (the pod, not its container again)" \
	test "$(value_of "$P" 'reclaimd_qos_memory_current_bytes{qos="besteffort"}')" = \
	     "$(cat "$T/cg/$POD_E/memory.current")"
check "per pod: max_pod_series pods have series" \
	test "$(grep -c '^reclaimd_pod_reclaimed_bytes_total{' "$P")" -eq 2
check "per pod: labels pod_uid and qos only" \
	test "$(grep -cE '^reclaimd_pod_[a-z_]*\{pod_uid="[0-9a-f-]{36}",qos="(guaranteed|burstable|besteffort)"\} [0-9]+$' "$P")" -eq 4
check "per pod: the one past the cap is counted" grep -q '^reclaimd_pod_series_capped 1$' "$P"
check "per pod: the cap is warned about once" test "$(grep -c 'max_pod_series' "$T/log")" -eq 1
check "no container id in any series" bash -c "! grep -q '$CID' '$P'"
http "$port" /other >/dev/null
check "GET /other answers 404" grep -q '^404' "$T/http"
http "$port" /other POST >/dev/null
check "POST /other answers 404" grep -q '^404' "$T/http"

# The landing page, HEAD and the methods refused.
http "$port" / >"$T/landing.html"
check "GET / answers 200 with an HTML page" grep -q '^200 text/html; charset=utf-8$' "$T/http"
check "GET / links to /metrics" grep -q '<a href="/metrics">' "$T/landing.html"
check "GET / names reclaimd" grep -q '<title>reclaimd</title>' "$T/landing.html"
check "GET / gives the version" \
	grep -q "version $(sed -n 's/^#define RECLAIMD_VERSION "\(.*\)"/\1/p' include/reclaimd/version.h)\\." "$T/landing.html"
landing_len=$(header Content-Length)
check "GET /: Content-Length is the page's ($landing_len)" \
	test "$landing_len" = "$(wc -c <"$T/landing.html")"
http "$port" / HEAD >/dev/null
check "HEAD / answers 200 with GET's Content-Type" grep -q '^200 text/html; charset=utf-8$' "$T/http"
check "HEAD /: GET's Content-Length ($(header Content-Length))" test "$(header Content-Length)" = "$landing_len"
check "HEAD /: no body on the wire" test "$(raw_bytes "$port" HEAD /)" -eq 0
http "$port" /metrics >/dev/null
get_type=$(sed -n '1s/^[0-9]* //p' "$T/http")
http "$port" /metrics HEAD >/dev/null
check "HEAD /metrics answers 200" grep -q '^200 ' "$T/http"
check "HEAD /metrics: GET's Content-Type ($get_type)" test "$(sed -n '1s/^[0-9]* //p' "$T/http")" = "$get_type"
check "HEAD /metrics: a Content-Length, the page's size ($(header Content-Length))" \
	test "$(header Content-Length)" -gt 1000
check "HEAD /metrics: no body on the wire" test "$(raw_bytes "$port" HEAD /metrics)" -eq 0
check "GET /metrics over HTTP/1.0 has a body (raw_bytes counts it)" \
	test "$(raw_bytes "$port" GET /metrics)" -gt 1000
for m in POST PUT DELETE OPTIONS; do
	http "$port" /metrics "$m" >/dev/null
	check "$m /metrics answers 405" grep -q '^405 ' "$T/http"
	check "$m /metrics: Allow: GET, HEAD ($(header Allow))" test "$(header Allow)" = "GET, HEAD"
done
http "$port" / POST >/dev/null
check "POST / answers 405 with Allow: GET, HEAD" \
	bash -c "grep -q '^405 ' '$T/http' && grep -qi '^Allow: GET, HEAD' '$T/headers'"

if command -v promtool >/dev/null; then
	check "promtool check metrics: the textfile" promtool_ok "$T/scrape1.prom"
	check "promtool check metrics: GET /metrics" promtool_ok "$T/http1.prom"
else
	skip "promtool not installed (Debian package prometheus): exposition not checked by it"
fi

# Counters never go backwards from one scrape to a later one, though a pod goes away between
# them (its QoS class's totals stay; the pod past the cap takes the free series).
rm -rf "${T:?}/cg/$POD_G"
n1=$(value_of "$T/scrape1.prom" reclaimd_tick_duration_seconds_count)
# Two whole ticks after the removal (the first scrape is older: the checks in between can take
# longer than two ticks on a loaded machine, and the removal would not be seen yet).
n0=$(value_of "$T/prom/reclaimd.prom" reclaimd_tick_duration_seconds_count)
wait_for ticks_over "$T/prom/reclaimd.prom" "$((n0 + 2))"
http "$port" /metrics >"$T/http2.prom"
check "a later scrape saw more ticks" ticks_over "$T/http2.prom" "$n1"
backwards=$(awk 'FNR == NR { if ($1 ~ /_total({|$)/) v[$1] = $2; next }
		 $1 in v && $2 + 0 < v[$1] + 0 { print $1, v[$1], "->", $2 }' \
		"$T/scrape1.prom" "$T/http2.prom")
check "no counter went backwards${backwards:+: $backwards}" test -z "$backwards"
check "both scrapes have the same counter series" test \
	"$(grep -c '^[a-z_]*_total' "$T/scrape1.prom")" -eq "$(grep -c '^[a-z_]*_total' "$T/http2.prom")"
check "a pod gone: its QoS class manages no cgroup" \
	grep -q '^reclaimd_qos_cgroups{qos="guaranteed"} 0$' "$T/http2.prom"
check "a pod gone: its series are gone, none capped" \
	bash -c "! grep -q 'pod_uid=\"$UID_G\"' '$T/http2.prom' && grep -q '^reclaimd_pod_series_capped 0$' '$T/http2.prom'"

# ---- a second daemon on the same address -----------------------------------------------------
"$RECLAIMD" --allow-unsafe-paths -c "$T/c.json" --cgroup-root "$T/cg" --proc-root "$FIX/proc" --sys-root "$FIX/sys" \
	--dry-run --log-stderr >"$T/log2" 2>&1 &
p2=$!
pids+=("$p2")
wait "$p2"
rc=$?
check "a port in use: exit 1 (was $rc)" test "$rc" -eq 1
check "a port in use: the error names the address and errno" \
	grep -q "metrics.listen 127.0.0.1:$port: cannot serve /metrics there: Address already in use" "$T/log2"

# ---- reload: another port, and a textfile in a directory that is not there yet ------------------
port2=$(free_port)
write_config "$T/c.json" "$T/later/reclaimd.prom" "$port2" false
kill -HUP "$daemon"
wait_for grep -q "metrics.textfile $T/later/reclaimd.prom: cannot write it: No such file or directory" "$T/log"
# Five more ticks, seen through HTTP on the new port, each one failing to write the textfile.
http_ticks_over() { http "$1" /metrics >"$T/h" && ticks_over "$T/h" "$2"; }
check "reload: the server moved to the new port" wait_for http_ticks_over "$port2" 0
n=$(value_of "$T/h" reclaimd_tick_duration_seconds_count)
check "ticks go on after the reload" wait_for http_ticks_over "$port2" "$((n + 5))"
check "reload: the old port no longer answers" bash -c "! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null"
check "an unwritable textfile directory: one warning over several ticks" \
	test "$(grep -c 'cannot write it' "$T/log")" -eq 1
check "an unwritable textfile directory: still running" kill -0 "$daemon"
http "$port2" /metrics >"$T/http3.prom"
check "an unwritable textfile directory: HTTP goes on" grep -q '^200' "$T/http"
check "reload: per_cgroup off drops the cgroup series" \
	bash -c "! grep -q '^reclaimd_cgroup_' '$T/http3.prom'"
check "reload: per_pod off drops the pod series, the QoS series stay" \
	bash -c "! grep -q '^reclaimd_pod_' '$T/http3.prom' && grep -q '^reclaimd_qos_cgroups{qos=\"besteffort\"} 1$' '$T/http3.prom'"
mkdir "$T/later"
check "the textfile appears once its directory does" wait_for test -s "$T/later/reclaimd.prom"
check "and that is said once" wait_for grep -q "metrics.textfile $T/later/reclaimd.prom: written again" "$T/log"
check "no temporary file is left behind" test -z "$(ls "$T/later" | grep -v '^reclaimd.prom$')"
if command -v promtool >/dev/null; then
	check "promtool check metrics: the textfile after reload" promtool_ok "$T/later/reclaimd.prom"
fi

# ---- reload onto a port another daemon holds: an error, and the old address served again ------
port3=$(free_port)
mkdir -p "$T/blocker"
write_config "$T/blocker.json" "$T/blocker/reclaimd.prom" "$port3" false
main=$daemon
start_daemon "$T/blocker.json" "$T/log3"
blocker=$daemon
daemon=$main
if wait_for http_ticks_over "$port3" 0; then
	write_config "$T/c.json" "$T/later/reclaimd.prom" "$port3" false
	kill -HUP "$daemon"
	check "reload onto a port in use: the error names it and says what is served" \
		wait_for grep -q "metrics.listen 127.0.0.1:$port3: cannot serve /metrics there: Address already in use; still serving on 127.0.0.1:$port2" "$T/log"
	check "reload onto a port in use: the old port answers again" wait_for http_ticks_over "$port2" 0
else
	bad "the second daemon on port $port3 did not start: $(tail -n 3 "$T/log3")"
fi
kill -TERM "$blocker"
wait "$blocker"

kill -TERM "$daemon"
wait "$daemon"
rc=$?
check "SIGTERM: exit 0 (was $rc)" test "$rc" -eq 0
check "no crash or sanitizer report in the log" \
	bash -c "! grep -qE 'ERROR: [A-Za-z]*Sanitizer|runtime error|Segmentation' '$T/log'"
[ "$failed" -gt 0 ] && { echo "--- daemon log (last 20 lines)"; tail -n 20 "$T/log"; } >&2

summary
