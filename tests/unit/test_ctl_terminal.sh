#!/usr/bin/env bash
# test_ctl_terminal.sh - reclaimctl in a real terminal: a tmux pane of 80x24 and one of 160x30
# (tmux new-session -x -y, send-keys, capture-pane -J, which joins a line the terminal wrapped
# back into one), against the agent on a fake cgroup tree (tests/lib.sh's fake_agent:
# bench/gen_cgroupfs, --dry-run). At each size:
#  - cgroups and top print no line wider than the pane (so nothing wrapped), with their heading;
#  - the long kubepods paths are shortened in the middle (their start, "…", their leaf), and
#    cgroups --full prints them whole;
#  - cgroups shows the QoS class, the pod UID and the container id columns when there is room;
#  - top draws on the alternate screen, keeps its header after several refreshes (the uptime
#    changes, the first line is still the header), fits the pane's height ("... N more"), redraws
#    at the new size when the pane is resized, and gives the screen back on 'q';
#  - explain finds a cgroup by each of the four identifiers: a relative path, an absolute path
#    below the cgroup root, a pod UID and a container id (and the id's prefix cgroups shows).
# Piped, top prints plain reports without a terminal escape. BUILD names the build directory
# (default build/gcc; make check-unit sets it). Ends "test_ctl_terminal.sh: N passed, N failed,
# N skipped". As another user than root, status.read_group is that user's group.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=${RECLAIMD:-$BUILD/reclaimd}
CTL=$(dirname "$AGENT")/reclaimctl
GEN=$BUILD/tests/gen_cgroupfs
TEMPLATE=tests/fixtures/real-6.12/sys/fs/cgroup/fixture

TEST_NAME=test_ctl_terminal.sh
. tests/lib.sh
for f in "$AGENT" "$CTL" "$GEN"; do
	[ -x "$f" ] || { bad "$f is not built (make check-unit builds it)"; summary; }
done
command -v tmux >/dev/null || { skip "no tmux (make deps installs it)"; summary; }

# 40 managed cgroups: more rows than either pane has. Best-effort pods managed whole (the pod
# cgroup), burstable ones container by container.
configure() {
	local group=
	[ "$(id -u)" -ne 0 ] && group=", \"read_group\": \"$(id -gn)\""
	cat >"$CFG" <<EOF
{
  "interval": 0.5,
  "mglru_aging": false,
  "status": { "socket": "$SOCK" $group },
  "rules": [ { "match": "system.slice/*.service" },
             { "match": "kubepods.slice/kubepods-besteffort.slice/*" },
             { "match": "kubepods.slice/kubepods-burstable.slice/*/*.scope" } ]
}
EOF
}
# The tmux server goes first, at exit (fake_agent_cleanup calls this).
fake_agent_on_exit() { [ -n "${TMUX_SOCK:-}" ] && tmux -S "$TMUX_SOCK" kill-server 2>/dev/null; }
fake_agent reclaimd-term 40 configure
[ $? -eq 1 ] && summary
TMUX_SOCK=$T/tmux.sock
CTL_ABS=$(cd "$(dirname "$CTL")" && pwd)/$(basename "$CTL")
for _ in $(seq 100); do
	[ -S "$SOCK" ] && "$CTL" --socket "$SOCK" cgroups 2>/dev/null | grep -q 'reclaim\|at-floor' && break
	sleep 0.1
done

# The identifiers of one burstable container and of one best-effort pod, from the generated tree.
CPATH=$(grep -m1 'kubepods-burstable-pod.*cri-containerd-' "$T/managed")
CID=$(sed 's/.*cri-containerd-\([0-9a-f]*\)\.scope$/\1/' <<<"$CPATH")
PPATH=$(grep -m1 'kubepods-besteffort-pod' "$T/managed" | sed 's|/cri-containerd-.*||')
PUID=$(sed 's/.*kubepods-besteffort-pod\(.*\)\.slice$/\1/; s/_/-/g' <<<"$PPATH")
ROOT_ABS=$(cd "$T/tree" && pwd -P)
check "fixture: a container id" [ ${#CID} -eq 64 ]
check "fixture: a pod UID" [ ${#PUID} -eq 36 ]

tm() { tmux -S "$TMUX_SOCK" "$@"; }
# screen: what the pane shows, each line the terminal wrapped joined back, trailing blanks cut;
# pane: the same with the lines scrolled off the top (its history) before it.
screen() { tm capture-pane -p -J -t t | sed 's/[[:space:]]*$//'; }
pane() { tm capture-pane -p -J -S - -t t | sed 's/[[:space:]]*$//'; }
# wait_for PATTERN [SECONDS]: until the pane shows PATTERN (grep -E); 1 when it never does.
wait_for() {
	local i
	for i in $(seq $((${2:-5} * 10))); do
		pane | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# widest FILE: the widest line of FILE in terminal columns (wc -L counts a character's width);
# widest_out FILE: the same but for the first line (the command line typed, as wide as its
# paths make it) and the end line.
widest() { LC_ALL=C.UTF-8 wc -L <"$1"; }
widest_out() { tail -n +3 "$1" | grep -v '^rc=' | LC_ALL=C.UTF-8 wc -L; }
# start CMD: clears the pane and its history, then types "echo; CMD; echo end<N> rc=$?" in it, N
# counting the commands (no earlier end is taken for this one's). The pane's first line is then
# the command line, the second empty (capture-pane -J would join CMD's first line to a command
# line that ends at the pane's edge), CMD's output from the third on.
n_run=0
start() {
	n_run=$((n_run + 1))
	tm send-keys -t t "clear" Enter
	wait_for '^\$$' 5
	tm clear-history -t t
	tm send-keys -t t "echo; $1; echo end$n_run rc=\$?" Enter
}
# run CMD: start CMD and wait for its end; $T/out has the pane, the end line as "rc=<exit>".
run() {
	start "$1"
	wait_for "^end$n_run rc=[0-9]+\$" 10 || bad "no end of: $1"
	pane | sed "s/^end$n_run rc=/rc=/" >"$T/out"
	[ -n "${KEEP:-}" ] && cp "$T/out" "$T/out.$n_run"
}

for size in 80x24 160x30; do
	W=${size%x*} H=${size#*x}
	# A server of its own for each size: the last one gone first.
	tm kill-server 2>/dev/null
	for _ in $(seq 50); do tm has-session 2>/dev/null || break; sleep 0.1; done
	tm -f /dev/null new-session -d -s t -x "$W" -y "$H" \
		"env -i PATH=/usr/bin:/bin HOME=$T TERM=tmux-256color LANG=C.UTF-8 PS1='$ ' bash --norc --noprofile"
	tm set-option -g -t t status off >/dev/null
	wait_for '^\$$' 5 || bad "$size: no shell prompt in the pane"
	CTLRUN="$CTL_ABS --socket $SOCK"

	# cgroups: every line within the pane, the heading, paths cut in the middle.
	run "$CTLRUN cgroups"
	check "$size cgroups: exit 0" grep -qx 'rc=0' "$T/out"
	check "$size cgroups: no line wider than $W (widest $(widest_out "$T/out"))" \
		[ "$(widest_out "$T/out")" -le "$W" ]
	check "$size cgroups: heading" grep -qE '^RULE +.*CURRENT .*DECISION .*CGROUP$|^ *CURRENT .*DECISION .*CGROUP$' "$T/out"
	check "$size cgroups: the heading is the output's first line" \
		grep -qE 'CURRENT .*CGROUP$' <(sed -n 3p "$T/out")
	# The container's row: its path's start, "…", and the end of its leaf.
	check "$size cgroups: a path shortened in the middle" \
		grep -qE "kubepods\.sl[^ ]*…[0-9a-f]*${CID: -8}\.scope$" "$T/out"
	check "$size cgroups: no kubepods path in full" bash -c "! grep -qF '$CPATH' '$T/out'"
	check "$size cgroups: a short path in full" grep -qE ' system\.slice/svc0\.service$' "$T/out"
	if [ "$W" -ge 160 ]; then
		check "$size cgroups: QoS column" grep -qE ' burstable +.*…' "$T/out"
		check "$size cgroups: pod and container columns" \
			grep -qE "^RULE .* QOS +POD +CONTAINER +CGROUP$" "$T/out"
		check "$size cgroups: the container id's prefix" grep -qE " ${CID:0:12} +kubepods" "$T/out"
	fi
	run "$CTLRUN --full cgroups"
	check "$size cgroups --full: the path in full" grep -qF "$CPATH" "$T/out"
	check "$size cgroups --full: the container id in full" grep -qF " $CID " "$T/out"

	# top: alternate screen, header kept over refreshes, rows fit the height.
	start "$CTLRUN --delay 0.3 top"
	wait_for '^ *CURRENT .*CGROUP$' 5 || bad "$size top: no table"
	sleep 0.2
	screen >"$T/top1"
	sleep 1.5
	screen >"$T/top2"
	check "$size top: on the alternate screen" [ "$(tm display-message -p -t t '#{alternate_on}')" = 1 ]
	for f in top1 top2; do
		check "$size top ($f): the header on the first line" \
			grep -qE '^reclaimd [^ ]+, up [^:]+: [0-9]+ managed cgroups' <(head -n 1 "$T/$f")
		check "$size top ($f): the table heading" grep -qE '^ *CURRENT .*RECLAIM/s .*CGROUP$' "$T/$f"
		check "$size top ($f): no line wider than $W (widest $(widest "$T/$f"))" \
			[ "$(widest "$T/$f")" -le "$W" ]
		check "$size top ($f): within $H lines" [ "$(grep -c '' "$T/$f")" -le "$H" ]
		check "$size top ($f): the rows that did not fit counted" grep -qE '^\.\.\. [0-9]+ more$' "$T/$f"
		check "$size top ($f): paths shortened in the middle" grep -qE 'kubepods\.sl[^ ]*…[^ ]*\.(scope|slice)$' "$T/$f"
	done
	check "$size top: refreshed (the uptime changed)" bash -c "! cmp -s <(head -n 1 '$T/top1') <(head -n 1 '$T/top2')"
	# Resized: the next frame fits the new width.
	tm resize-window -t t -x $((W - 20)) -y "$H"
	sleep 1
	screen >"$T/top3"
	check "$size top resized to $((W - 20)): no line wider (widest $(widest "$T/top3"))" \
		[ "$(widest "$T/top3")" -le $((W - 20)) ]
	check "$size top resized: the header on the first line" grep -q '^reclaimd ' <(head -n 1 "$T/top3")
	tm resize-window -t t -x "$W" -y "$H"
	tm send-keys -t t q
	wait_for "^end$n_run rc=[0-9]+\$" 5 || bad "$size top: 'q' did not end it"
	pane | sed "s/^end$n_run rc=/rc=/" >"$T/out"
	check "$size top: 'q' ends it, exit 0" grep -qx 'rc=0' "$T/out"
	check "$size top: the screen given back" [ "$(tm display-message -p -t t '#{alternate_on}')" = 0 ]

	# explain, by each identifier.
	run "$CTLRUN explain $CPATH"
	check "$size explain by path: exit 0" grep -qx 'rc=0' "$T/out"
	check "$size explain by path: the cgroup" grep -qxF "$CPATH" "$T/out"
	check "$size explain by path: the workload" \
		grep -qF "workload:  container, QoS burstable, pod " "$T/out"
	run "$CTLRUN explain $ROOT_ABS/$CPATH"
	check "$size explain by absolute path: exit 0" grep -qx 'rc=0' "$T/out"
	check "$size explain by absolute path: the cgroup" grep -qxF "$CPATH" "$T/out"
	check "$size explain by absolute path: found so" \
		grep -qxF "found by:  absolute path below the cgroup root" "$T/out"
	run "$CTLRUN explain $PUID"
	check "$size explain by pod UID: exit 0" grep -qx 'rc=0' "$T/out"
	check "$size explain by pod UID: the pod" grep -qxF "$PPATH" "$T/out"
	check "$size explain by pod UID: found so" grep -qxF "found by:  pod UID" "$T/out"
	check "$size explain by pod UID: the workload" \
		grep -qxF "workload:  pod, QoS besteffort, pod $PUID" "$T/out"
	run "$CTLRUN explain $CID"
	check "$size explain by container id: exit 0" grep -qx 'rc=0' "$T/out"
	check "$size explain by container id: the container" grep -qxF "$CPATH" "$T/out"
	check "$size explain by container id: found so" grep -qxF "found by:  container id" "$T/out"
	run "$CTLRUN explain ${CID:0:12}"
	check "$size explain by the id's prefix: the container" grep -qxF "$CPATH" "$T/out"
done

ctl() { "$CTL" --socket "$SOCK" "$@"; }
# Not found: a path outside the root, an unknown id, a prefix too short (exit 6, and why).
ctl explain /nonexistent/system.slice/svc0.service >"$T/o" 2>&1
check "explain outside the root: exit 6" [ $? -eq 6 ]
check "explain outside the root: names the root" grep -qF "not a cgroup below the cgroup root $ROOT_ABS" "$T/o"
ctl explain 0000000000000000 >"$T/o" 2>&1
check "explain an unknown id: exit 6" [ $? -eq 6 ]
check "explain an unknown id: says so" grep -qF "no pod UID or container id begins so" "$T/o"
ctl explain "${CID:0:7}" >"$T/o" 2>&1
check "explain a 7-character prefix: exit 6" [ $? -eq 6 ]
# The JSON rows and explain carry the fields.
ctl --json cgroups >"$T/o"
check "cgroups --json: qos, pod_uid, container_id" \
	grep -qF "\"container_id\": \"$CID\"" "$T/o"
check "cgroups --json: pod_uid" grep -qF "\"pod_uid\": \"$PUID\"" "$T/o"
ctl --json explain "$PUID" >"$T/o"
check "explain --json: matched_by" grep -qF '"matched_by": "pod_uid"' "$T/o"
ctl --json status >"$T/o"
check "status --json: cgroup_root" grep -qF "\"cgroup_root\": \"$ROOT_ABS\"" "$T/o"

# Piped: plain reports, every row, no terminal escape.
ctl --delay 0.2 -n 2 top | cat >"$T/plain"
check "top piped: two reports" [ "$(grep -c '^reclaimd ' "$T/plain")" -eq 2 ]
check "top piped: no escape" bash -c "! LC_ALL=C grep -q $'\e' '$T/plain'"
check "top piped: paths in full" grep -qF "$CPATH" "$T/plain"
summary
