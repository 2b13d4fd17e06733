#!/usr/bin/env bash
# status-socket.sh - the status socket and reclaimctl against a real reclaimd, on the host:
# the agent runs with --dry-run on a generated cgroupfs tree (bench/gen_cgroupfs, the recorded
# files of a real 6.12 cgroup) in a temporary directory, its status socket there too
# (tests/lib.sh's fake_agent), and
# reclaimctl's commands, its exit codes and the bad-input cases are checked against it.
# Tick lateness under the abuse is measured (from the agent's own Status) and printed.
#
# Run by `make check-unit` (through tests/run-unit.sh); BUILD names the build directory
# (default build/gcc). Ends with "status-socket: N passed, N failed, N skipped"; exits non-zero
# when a check failed. Needs root (SO_PEERCRED: only root may reload); otherwise it is skipped.
# Assertions are on bounded behaviour with wide margins (answers within seconds), never on
# tight timing: the numbers measured are printed, not asserted.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=$BUILD/reclaimd
CTL=$BUILD/reclaimctl
PROBE=$BUILD/tests/status_probe
GEN=$BUILD/tests/gen_cgroupfs
TEMPLATE=tests/fixtures/real-6.12/sys/fs/cgroup/fixture
NAME=status-socket

. tests/lib.sh   # fake_agent; the counters below are this script's own
passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() { # DESCRIPTION COMMAND...: passes when the command succeeds
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
finish() {
	echo "$NAME: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit $?
}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP $NAME: needs root (the socket lets root reload; SO_PEERCRED cannot be faked)"
	skipped=1
	finish
fi
for f in "$AGENT" "$CTL" "$PROBE" "$GEN"; do
	[ -x "$f" ] || { bad "$f is not built (make check-unit builds it)"; finish; }
done

N=40

# bench/overhead.sh's rules for the generated shape; interval 0.5 s (the shortest allowed).
write_config() { # EXTRA (a JSON member, with its comma)
	cat >"$CFG" <<EOF
{
  "interval": 0.5,
  "log_level": "info",
  "mglru_aging": false,
  "status": { "socket": "$SOCK" $1 },
  "rules": [
    { "match": "init.scope", "policy": "none" },
    { "match": "system.slice/systemd-*", "policy": "none" },
    { "match": "system.slice/*.service" },
    { "match": "kubepods.slice/**/*.scope", "min_bytes": "64M" },
    { "match": "user.slice/**", "psi_some_target_pct": 0.25, "probe_max": 0.3 }
  ]
}
EOF
}

ctl() { "$CTL" --socket "$SOCK" "$@"; }
# A number from the agent's Status (a key anywhere in the compact JSON).
status_num() { # KEY
	"$PROBE" "$SOCK" call io.reclaimd.Status | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" | head -n 1
}
not_grep() { ! grep -q "$@"; }
run() { # OUT-FILE COMMAND...: runs it, stdout+stderr to OUT-FILE, returns its status
	local out=$1
	shift
	"$@" >"$out" 2>&1
}

# ---- start --------------------------------------------------------------------------------
# Before the agent starts: its configuration, and a stale socket file in the way, which the
# agent removes.
configure() {
	write_config ""
	"$PROBE" "$SOCK" stale
	run "$T/o" ctl status
	check "a stale socket file: exit 3" [ $? -eq 3 ]
	check "a stale socket file: says so" grep -q "stale socket" "$T/o"
}
# The tree is a directory, not a cgroup2 mount: fake_agent passes --allow-unsafe-paths.
fake_agent reclaimd-status "$N" configure
[ $? -eq 1 ] && finish
n_managed=$(wc -l <"$T/managed")
# Decisions need two ticks.
sleep 1
check "the agent runs" kill -0 "$AGENT_PID"
check "socket mode 0600 (root only)" [ "$(stat -c %a "$SOCK")" = 600 ]

# ---- the commands -----------------------------------------------------------------------
# The log names a managed cgroup's rule by index too (rules may share a glob, like "**").
check "log: managed by rule, with its index" \
	grep -q 'system.slice/svc0.service: managed by rule "system.slice/\*.service" (rules\[2\], policy psi)' "$LOG"
run "$T/status" ctl status
check "status: exit 0" [ $? -eq 0 ]
check "status: managed cgroups" grep -q "totals:  $n_managed managed cgroups" "$T/status"
check "status: node table" grep -q "^NODE  WORKERS ALLOWED" "$T/status"
check "status: config file" grep -q "config:  $CFG" "$T/status"
for k in "memory:" "ticks:" "swap:" "zswap:" "zram:" "tiers:" "MGLRU:" "reclaim:" "socket:"; do
	check "status: $k" grep -q "^$k" "$T/status"
done
check "status: kernel features" grep -q "^kernel:  present:" "$T/status"
# The feature table: every feature in the Status reply, and one log line per absent one.
"$PROBE" "$SOCK" call io.reclaimd.Status >"$T/features.json" 2>&1
n_feat=$(grep -o '"how":"[a-z ]*"' "$T/features.json" | wc -l)
n_absent=$(grep -o '"state":"absent"' "$T/features.json" | wc -l)
check "status: 11 kernel features ($n_feat)" [ "$n_feat" -eq 11 ]
check "features: one line per absent one ($n_absent)" \
	[ "$(grep -c 'kernel feature .* is absent' "$LOG")" -eq "$n_absent" ]
check "features: dry run writes no probe (swappiness from the release)" \
	not_grep -q '"swappiness":{[^}]*"how":"probed"' "$T/features.json"
# memory.reclaim bounding follows the release: this host's kernel decides which line it is.
case $(uname -r) in
5.* | 6.[0-5].* | 6.[0-5]-*)
	check "status: reclaim: bounded on a pre-6.6 kernel" \
		grep -q '^reclaim: memory.reclaim writes of at most 64 pages .*(kernel-below-6.6)' "$T/status"
	check "status: memory_reclaim reason" grep -q '"reason":"kernel-below-6.6"' "$T/features.json" ;;
*)
	check "status: reclaim: not bounded" \
		grep -q '^reclaim: memory.reclaim writes not bounded' "$T/status"
	check "status: memory_reclaim not bounded" \
		grep -q '"memory_reclaim":{"bounded":false' "$T/features.json" ;;
esac
run "$T/o" ctl --json status
check "status --json: exit 0" [ $? -eq 0 ]
check "status --json: protocol" grep -q '"protocol": 1' "$T/o"
check "status --json: uptime" grep -q '"uptime_s":' "$T/o"
check "status: held_back per controller, none held" \
	grep -q '"held_back":{"zswap":{"changes":0,"failing":false,"last_error":null},"zram":{"changes":0,"failing":false,"last_error":null},"swap":{"changes":0,"failing":false,"last_error":null}}' "$T/features.json"
check "status: no state: line while nothing is held back" sh -c "! grep -q '^state:' '$T/status'"

run "$T/cgroups" ctl cgroups
check "cgroups: exit 0" [ $? -eq 0 ]
check "cgroups: one row per managed cgroup" [ "$(grep -c ' psi ' "$T/cgroups")" -eq "$n_managed" ]
check "cgroups: decisions made" grep -qE ' (reclaim|at-floor) ' "$T/cgroups"
run "$T/o" ctl -j cgroups
check "cgroups --json: rows" [ "$(grep -c '"cgroup":' "$T/o")" -eq "$n_managed" ]

one=$(grep '^kubepods' "$T/managed" | head -n 1)
run "$T/explain" ctl explain "$one"
check "explain: exit 0" [ $? -eq 0 ]
for k in "rule:      rules\[3\]" "decision:" "floor:" "law:       p = memory PSI" \
	"request = reclaimable" "limits:" "job:"; do
	check "explain: $k" grep -q "$k" "$T/explain"
done
run "$T/o" ctl --json explain "/$one/"
check "explain --json, path with slashes: exit 0" [ $? -eq 0 ]
check "explain --json: floor term" grep -q '"applied":' "$T/o"

# The pages-back signal (include/reclaimd/pages_back.h) from the cgroup's files: 1000 pages read
# on one device (io.stat), 200 loaded from zswap, 900 major faults and 3 refaults over one
# interval are 1200 pages back, the faults and refaults being among the reads. The files are
# rewritten in place (the agent keeps memory.stat open); the tick that reads them shows it.
cgdir=$T/tree/$one
awk '$1 == "zswpin" { $2 += 200 } $1 == "pgmajfault" { $2 += 900 }
	$1 == "workingset_refault_anon" { $2 += 3 } { print }' "$cgdir/memory.stat" >"$T/stat.new"
awk '$1 == "253:0" { sub(/rbytes=[0-9]+/, "rbytes=" (substr($2, 8) + 4096000)) } { print }' \
	"$cgdir/io.stat" >"$T/io.new"
if grep -q "^253:0 " "$cgdir/io.stat" && ! cmp -s "$T/io.new" "$cgdir/io.stat"; then
	cat "$T/stat.new" >"$cgdir/memory.stat"
	cat "$T/io.new" >"$cgdir/io.stat"
	got=
	for _ in $(seq 50); do
		ctl --json explain "$one" >"$T/o" 2>&1
		if grep -q '"pages": 1200,' "$T/o"; then
			got=1
			break
		fi
		sleep 0.1
	done
	check "explain --json: pages back 1200 from io.stat + zswpin" [ -n "$got" ]
	for k in '"io_read_pages": 1000,' '"zswpin_pages": 200,' '"pgmajfault": 900,' \
		'"refault_anon_pages": 3,' '"has_io_stat": true'; do
		check "explain --json: pages_back $k" grep -q "$k" "$T/o"
	done
	run "$T/explain" ctl explain "$one"
	check "explain: back: line" grep -q '^back: .* pages/s read back' "$T/explain"
else
	bad "pages back: the template's io.stat has no 253:0 line to grow"
fi
run "$T/o" ctl explain no/such.scope
check "explain unknown cgroup: exit 6" [ $? -eq 6 ]
check "explain unknown cgroup: says so" grep -q 'no cgroup "no/such.scope"' "$T/o"
run "$T/o" ctl explain init.scope
check "explain an excluded cgroup: exit 6" [ $? -eq 6 ]
check "explain an excluded cgroup: policy none" grep -q 'init.scope is not managed: rules\[0\] "init.scope", the first rule that matches it, gives it policy none' "$T/o"
run "$T/o" ctl explain ""
check "explain the root: exit 6" [ $? -eq 6 ]
check "explain the root: never managed" grep -q "root cgroup, which is never managed" "$T/o"
run "$T/o" ctl explain system.slice
check "explain a grouping cgroup: exit 6" [ $? -eq 6 ]
check "explain a grouping cgroup: why" grep -q "not managed" "$T/o"

run "$T/top" ctl top -n 2 -d 0.3
check "top -n 2: exit 0" [ $? -eq 0 ]
check "top -n 2: two frames" [ "$(grep -c '^reclaimd .* up ' "$T/top")" -eq 2 ]
run "$T/o" ctl top --json --iterations 3 --delay 0.2
check "top --json -n 3: three lines" [ "$(wc -l <"$T/o")" -eq 3 ]

run "$T/o" ctl reload
check "reload: exit 0" [ $? -eq 0 ]
check "reload: says so" grep -q "configuration reloaded from $CFG" "$T/o"
# status.socket and max_workers_per_node apply at restart only: a reload that changes them says
# so, and one that changes them back to what is in use does not.
cp "$CFG" "$T/good.json"
sed -e "s#\"socket\": \"$SOCK\"#\"socket\": \"$T/other.sock\"#" \
	-e 's#"interval": 0.5,#"interval": 0.5, "max_workers_per_node": 1,#' "$T/good.json" >"$CFG"
run "$T/o" ctl reload
check "reload to another socket: restart only" grep -q "status.socket changed: it takes effect only at restart" "$T/o"
check "reload to other workers: restart only" grep -q "max_workers_per_node changed" "$T/o"
check "reload to another socket: Status names the socket in use" \
	grep -q "\"status_socket\":\"$SOCK\"" <("$PROBE" "$SOCK" call io.reclaimd.Status)
cp "$T/good.json" "$CFG"
run "$T/o" ctl reload
check "reload back to the socket in use: nothing for a restart" not_grep "changed: it takes effect" "$T/o"
printf '{\n  "interval": 0.5,\n  "rules": [ { "match": "a" } ]\n  "x": 1\n}\n' >"$CFG"
run "$T/o" ctl reload
check "reload of a bad file: exit 7" [ $? -eq 7 ]
check "reload of a bad file: file:line:column" grep -q "configuration rejected.*$CFG:4:[0-9]*:" "$T/o"
run "$T/o" ctl --json reload
check "reload --json of a bad file: the error" grep -q '"line": 4' "$T/o"
cp "$T/good.json" "$CFG"
check "after a rejected reload: still managing" [ "$(status_num managed_cgroups)" = "$n_managed" ]
check "after a rejected reload: counted" [ "$(status_num reloads_rejected)" = 2 ]

# A pod-level rule takes a pod as a whole: explain of a container inside it says so, not "no rule
# matches it" (the pod's rule is what keeps it unmanaged).
sed 's#^    { "match": "kubepods.slice/\*\*/\*.scope"#    { "match": "**", "qos": ["guaranteed", "burstable", "besteffort"] },\n&#' \
	"$T/good.json" >"$CFG"
ctl reload >/dev/null 2>&1
for _ in $(seq 30); do
	run "$T/o" ctl explain "$one"
	grep -q "at the pod level" "$T/o" && break
	sleep 0.1
done
run "$T/o" ctl explain "$one"
check "explain a container of a pod taken at the pod level: exit 6" [ $? -eq 6 ]
check "explain a container of a pod taken at the pod level: why" \
	grep -q "is not managed: rules\[3\] \"\*\*\" takes its pod kubepods.slice/.*\.slice at the pod level: nothing inside the pod matches a rule" "$T/o"
cp "$T/good.json" "$CFG"
ctl reload >/dev/null 2>&1
for _ in $(seq 30); do
	[ "$(status_num managed_cgroups)" = "$n_managed" ] && ctl explain "$one" >/dev/null 2>&1 && break
	sleep 0.1
done
check "reload back from the pod-level rule: managing as before" \
	[ "$(status_num managed_cgroups)" = "$n_managed" ]

# ---- reclaimctl's own errors --------------------------------------------------------------
run "$T/o" "$CTL" --socket "$T/nothing.sock" status
check "no socket: exit 3" [ $? -eq 3 ]
check "no socket: not running" grep -q "reclaimd is not running: no socket" "$T/o"
run "$T/o" ctl frobnicate
check "unknown command: exit 2" [ $? -eq 2 ]
run "$T/o" ctl top -n 0
check "top -n 0: exit 2" [ $? -eq 2 ]
run "$T/o" "$CTL" --help
check "--help: exit codes listed" grep -q "^  7  reload: the configuration was rejected" "$T/o"
run "$T/o" "$CTL" --version
check "--version" grep -q "^reclaimctl [0-9]" "$T/o"
# A daemon of another version: another protocol, or an unknown method.
FAKE=$T/fake.sock
# fake_start REPLY [cut]: status_probe as a fake agent on $FAKE answering one request with REPLY,
# in the background (pid in fake_pid); returns once it listens (it prints "ready" to fake.out,
# removed first so that the "ready" of the one before does not count). It is killed after 20 s
# without a request, so a failed check cannot hang the test at its `wait`.
fake_start() {
	rm -f "$T/fake.out"
	timeout 20 "$PROBE" "$FAKE" serve-once "$@" >"$T/fake.out" &
	fake_pid=$!
	for _ in $(seq 200); do grep -q ready "$T/fake.out" 2>/dev/null && return; sleep 0.05; done
}
fake_start '{"parameters":{"version":"9.0.0","protocol":99}}'
run "$T/o" "$CTL" --socket "$FAKE" status
check "another protocol: exit 5" [ $? -eq 5 ]
check "another protocol: says so" grep -q "reclaimd 9.0.0 speaks status protocol 99" "$T/o"
wait "$fake_pid"
fake_start '{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"io.reclaimd.Cgroups"}}'
run "$T/o" "$CTL" --socket "$FAKE" cgroups
check "an unknown method: exit 5" [ $? -eq 5 ]
check "an unknown method: another version" grep -q "another version" "$T/o"
wait "$fake_pid"

# An error reply without the parameters the standard reply has: no "(null)" in the message.
fake_start '{"error":"io.reclaimd.NoSuchCgroup","parameters":{}}'
run "$T/o" "$CTL" --socket "$FAKE" explain x
check "an error without its parameters: exit 6" [ $? -eq 6 ]
check "an error without its parameters: no (null)" not_grep -F "(null)" "$T/o"
wait "$fake_pid"
# A daemon that dies in the middle of its answer: exit 8, and not "without an answer".
fake_start '{"parameters":{"version":"0.1.0","proto' cut
run "$T/o" "$CTL" --socket "$FAKE" status
check "an answer cut short: exit 8" [ $? -eq 8 ]
check "an answer cut short: says so" grep -q "in the middle of its answer" "$T/o"
wait "$fake_pid"
# Something that is not a socket at the path: not called a stale socket.
touch "$T/plain"
run "$T/o" "$CTL" --socket "$T/plain" status
check "a regular file at the socket path: exit 3" [ $? -eq 3 ]
check "a regular file at the socket path: not a socket" grep -q "$T/plain is not a socket" "$T/o"

# ---- access ------------------------------------------------------------------------------
if command -v setpriv >/dev/null; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	# The directory is the caller's (mktemp: 0700): nobody cannot even reach the socket.
	run "$T/o" as_nobody "$CTL" --socket "$SOCK" status
	check "nobody, socket out of reach: exit 4" [ $? -eq 4 ]
	check "nobody: access denied" grep -q "access denied" "$T/o"
	chmod 755 "$T" "$T/run"
	run "$T/o" as_nobody "$CTL" --socket "$SOCK" status
	check "nobody, root-only socket: exit 4" [ $? -eq 4 ]
	# The read group: nobody's group may read, not reload.
	group=$(getent group 65534 | cut -d: -f1)
	write_config ", \"read_group\": \"$group\""
	run "$T/o" ctl reload
	check "reload with a read group: exit 0" [ $? -eq 0 ]
	check "read group: socket mode 0660" [ "$(stat -c %a "$SOCK")" = 660 ]
	run "$T/o" as_nobody "$CTL" --socket "$SOCK" status
	check "read group: status as nobody, exit 0" [ $? -eq 0 ]
	run "$T/o" setpriv --reuid=65534 --regid=1 --groups=65534 "$CTL" --socket "$SOCK" cgroups
	check "read group as a supplementary group: exit 0" [ $? -eq 0 ]
	# More supplementary groups than the agent's first SO_PEERGROUPS buffer holds (64).
	many=$(seq -s, 1000 1099),65534
	run "$T/o" setpriv --reuid=65534 --regid=1 --groups="$many" "$CTL" --socket "$SOCK" status
	check "read group among 101 supplementary groups: exit 0" [ $? -eq 0 ]
	run "$T/o" as_nobody "$CTL" --socket "$SOCK" reload
	check "read group: reload as nobody, exit 4" [ $? -eq 4 ]
	check "read group: reload needs root" grep -q "access denied: io.reclaimd.Reload needs root" "$T/o"
	write_config ", \"read_group\": \"no-such-group-reclaimd\""
	run "$T/o" ctl reload
	check "a read group that does not exist: exit 7" [ $? -eq 7 ]
	check "a read group that does not exist: says so" grep -q 'status.read_group: group "no-such-group-reclaimd" does not exist' "$T/o"
	write_config ""
	ctl reload >/dev/null 2>&1
	chmod 700 "$T"
else
	echo "SKIP access checks: no setpriv"
	skipped=$((skipped + 1))
fi

# ---- varlink -----------------------------------------------------------------------------
run "$T/o" "$PROBE" "$SOCK" call org.varlink.service.GetInfo
check "GetInfo: interfaces" grep -q '"interfaces":\["org.varlink.service","io.reclaimd"\]' "$T/o"
run "$T/o" "$PROBE" "$SOCK" call org.varlink.service.GetInterfaceDescription '{"interface":"io.reclaimd"}'
check "GetInterfaceDescription: the IDL" grep -q 'interface io.reclaimd' "$T/o"
run "$T/o" "$PROBE" "$SOCK" call io.reclaimd.Frobnicate
check "an unknown method: MethodNotFound" grep -q '"error":"org.varlink.service.MethodNotFound"' "$T/o"
if command -v varlinkctl >/dev/null; then
	run "$T/o" varlinkctl call "unix:$SOCK" io.reclaimd.Status '{}'
	check "varlinkctl call io.reclaimd.Status" grep -q '"protocol"' "$T/o"
	run "$T/o" varlinkctl introspect "unix:$SOCK" io.reclaimd
	check "varlinkctl introspect io.reclaimd" grep -q 'method Explain' "$T/o"
else
	echo "SKIP varlinkctl: not installed here (systemd 255 or later has it)"
	skipped=$((skipped + 1))
fi

# A oneway call, then a call in the same write: the second is answered at once.
run "$T/o" "$PROBE" "$SOCK" pipe 1 '{"method":"org.varlink.service.GetInfo","oneway":true}' \
	'{"method":"org.varlink.service.GetInfo"}'
check "a call pipelined after a oneway one: answered" grep -q "^pipe0_error=none" "$T/o"
check "a call pipelined after a oneway one: within 1 s" \
	awk -v ms="$(sed -n 's/^pipe_ms=//p' "$T/o")" 'BEGIN { exit !(ms < 1000) }'

# Names that are bytes, not UTF-8, and long non-ASCII paths (JSON wants UTF-8; a reason cut in
# the middle of a character is not UTF-8 either).
svc=$(grep '^system.slice/' "$T/managed" | head -n 1)
bad=$(printf 'system.slice/bad\377\376.service')
e=$(printf '\303\251%.0s' $(seq 100))
long="user.slice/$e/$e/${e}x.scope"
for c in "$bad" "user.slice/$e" "user.slice/$e/$e" "$long"; do
	mkdir -p "$T/tree/$c" && cp "$T/tree/$svc"/* "$T/tree/$c/"
done
sleep 1.5
run "$T/o" ctl cgroups
check "a cgroup named with bytes that are not UTF-8: a row of its own" grep -q 'bad.*\.service$' "$T/o"
check "a cgroup named with bytes that are not UTF-8: every row there" \
	[ "$(grep -c ' psi ' "$T/o")" -eq $((n_managed + 2)) ]
run "$T/o" ctl explain "$long"
check "explain a long non-ASCII path: exit 0" [ $? -eq 0 ]
check "explain a long non-ASCII path: the rule" grep -q 'rules\[4\] "user.slice/\*\*"' "$T/o"
run "$T/o" ctl explain "$(printf 'a%.0s' $(seq 5000))"
check "explain a path longer than PATH_MAX: exit 6" [ $? -eq 6 ]
run "$T/o" ctl explain "$long$(printf '/%.0s' $(seq 5000))"
check "explain a known path, then 5000 slashes: exit 0" [ $? -eq 0 ]
rm -rf "$T/tree/$bad" "$T/tree/user.slice/$e"

# ---- bad input, and the tick under it ---------------------------------------------------
ticks0=$(status_num count)
t0=$(date +%s.%N)
run "$T/garbage" "$PROBE" "$SOCK" garbage
for i in 0 1 2 3 4 5 6; do
	check "garbage $i: InvalidRequest" grep -q "^garbage${i}_error=io.reclaimd.InvalidRequest" "$T/garbage"
	check "garbage $i: connection closed" grep -q "^garbage${i}_closed=1" "$T/garbage"
done
run "$T/huge" "$PROBE" "$SOCK" huge
check "1 MiB request: RequestTooLarge" grep -q "^huge_error=io.reclaimd.RequestTooLarge" "$T/huge"
check "1 MiB request: closed" grep -q "^huge_closed=1" "$T/huge"
run "$T/slow" "$PROBE" "$SOCK" slow
slow_s=$(sed -n 's/^slow_closed_after_s=//p' "$T/slow")
check "one byte every 0.5 s: closed within 2-8 s ($slow_s s)" \
	awk -v s="$slow_s" 'BEGIN { exit !(s >= 2 && s <= 8) }'
"$PROBE" "$SOCK" noread >"$T/noread" 2>&1 &
noread_pid=$!
sleep 0.2
run "$T/flood" "$PROBE" "$SOCK" flood 1000 4
wait "$noread_pid"
t1=$(date +%s.%N)
check "a client that never reads: disconnected" grep -q "^noread_closed=1" "$T/noread"
connected=$(sed -n 's/^flood_connected=//p' "$T/flood")
calls=$(sed -n 's/^flood_status_calls=//p' "$T/flood")
answered=$(sed -n 's/^flood_status_answered=//p' "$T/flood")
check "1000 connections: Status answered during the flood ($answered of $calls)" \
	[ "${answered:-0}" -ge 1 -a "${answered:-0}" -ge $((calls / 2)) ]
ticks1=$(status_num count)
late_recent=$(status_num late_recent_max_us)
late_max=$(status_num late_max_us)
run_max=$(status_num run_max_us)
check "the agent is alive after the abuse" kill -0 "$AGENT_PID"
expected=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) / 0.5 }')
check "ticks went on: $((ticks1 - ticks0)) in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s (about $expected due)" \
	[ $((ticks1 - ticks0)) -ge $((expected / 2)) ]
check "tick lateness over the last 32 ticks under 1 s (${late_recent} us)" [ "${late_recent:-9999999}" -lt 1000000 ]
check "bad requests counted" [ "$(status_num bad_requests)" -ge 8 ]
check "slow clients timed out" [ "$(status_num timeouts)" -ge 1 ]
run "$T/o" ctl status
check "status after the abuse: exit 0" [ $? -eq 0 ]
echo "measured: flood of 1000 connections for 4 s ($connected connected at the first try," \
	"$(sed -n 's/^flood_connected_total=//p' "$T/flood") in all, retrying those the backlog refused)," \
	"plus garbage, a 1 MiB request, a slow sender and a client that never reads:"
echo "measured:   $(grep -E '^flood_status_(answered|max_ms|mean_ms)=' "$T/flood" | tr '\n' ' ')"
echo "measured:   ticks $((ticks1 - ticks0)) (interval 0.5 s), lateness max over the last 32" \
	"ticks ${late_recent} us, max since start ${late_max} us, longest tick ${run_max} us" \
	"(lateness includes sd-event's 10 ms timer accuracy)"
echo "measured:   socket: $(ctl status | sed -n 's/^socket:  //p')"

# ---- stop ---------------------------------------------------------------------------------
kill -TERM "$AGENT_PID"
wait "$AGENT_PID"
check "SIGTERM: exit 0" [ $? -eq 0 ]
AGENT_PID=
check "stop: socket removed" [ ! -e "$SOCK" ]
run "$T/o" ctl status
check "after the stop: exit 3" [ $? -eq 3 ]
check "the agent logged the socket" grep -q "status socket at $SOCK" "$LOG"
finish
