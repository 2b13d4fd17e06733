#!/bin/sh
# vm-options: --node-mem 1024M --data-size 2G
# Real applications under their own load generators (bench/apps.sh, issue 28): one arm and one
# application per VM boot. Two identical instances of the application run side by side: "a" in
# system.slice/<app>-a.service, which every arm manages, and "b" in unmanaged.slice/<app>-b.service,
# which no arm touches (reclaimd's rule is system.slice/*.service, Senpai is given only "a", DAMON's
# scheme filters out every memcg but "a"). Both are loaded at the same moment with the same load;
# the instances' processes are pinned to vCPU 0, the load generators to vCPU 1 (cgroup loadgen,
# which no rule matches). The paired ratio a/b of throughput and latency is the application's cost
# of the arm (docs/comparison.md "Real applications").
#
#   APPS_ARM      none | senpai | damon-sysfs | reclaimd-defaults | reclaimd-ageonly
#   APPS_APP      kv (redis-server 7.0 + redis-benchmark) | kv-move (kv whose hot set moves) |
#                 kv-scan (kv with a periodic full read) | fio (fio 3.33 reading page cache) |
#                 db (PostgreSQL 15 + pgbench)
#   APPS_SECONDS  measured seconds after both instances are loaded and warm (default 150)
#   APPS_SAMPLE_S memory sampling interval (default 5)
#
# kv: each instance is a redis-server on a unix socket holding APPS_KV_KEYS keys (default 300000)
#   of APPS_KV_VALUE bytes (default 1000; about 330 MiB), written in a shuffled key order (as a
#   cache fills in request order; APPS_KV_FILL=seq writes key 0 first). redis-benchmark has no
#   skewed key choice, so skew is made with two streams at once: every APPS_KV_CHUNK_S seconds
#   (default 5) one redis-benchmark reads APPS_KV_HOT_N keys (default 1600) chosen uniformly from
#   the hot first APPS_KV_HOT_PCT % of the keys (default 10), and another APPS_KV_ALL_N keys
#   (default 400) from all of them, each with one client: 82 % of the reads go to 10 % of the
#   keys. Both instances' four processes start together; a chunk is closed-loop within itself,
#   then idle until the next chunk starts, so the average load is the chunk's, not the
#   saturation rate (chunk_busy_s in kv-chunks.tsv).
# kv-move: kv, plus APPS_KV_HOT_PCT % more keys ("mov:..."), written after the others and read by
#   nothing until APPS_KV_MOVE_AT seconds (default half the run); from then on the hot stream
#   reads them instead of the first keys, which the all-keys stream still reads. The new hot
#   set was idle (and cold to every arm) until it moved.
# kv-scan: kv, plus every APPS_KV_SCAN_S seconds (default 60, the first after that long) one
#   full read of every key of both instances at once (redis-cli --pipe with a GET per key, in
#   loadgen on vCPU 1), as a backup or a batch job does; kv-scans.tsv has when and how long.
# fio: each instance reads its own APPS_FIO_SIZE file (default 300M, on ext2 /data, written and
#   read once in its cgroup first so it is all in its page cache) with psync 4 KiB reads,
#   random_distribution=zipf:APPS_FIO_ZIPF (default 1.1) at rate_iops APPS_FIO_IOPS (default
#   2000), invalidate=0, one fio job per instance for the whole run; latency percentiles from
#   fio's JSON (clat).
# db: each instance is a PostgreSQL 15 server (run as user pg, its data on ext2 /data, a unix
#   socket only, shared_buffers APPS_DB_SHARED_BUFFERS, default 64MB, so most of the database is
#   page cache, as on a server that leaves most of its memory to the kernel) holding pgbench's
#   tables at scale APPS_DB_SCALE (default 16: 1.6 M accounts, about 250 MiB with their index),
#   built by pgbench -i; the server's backends write them, so the database and its WAL are in the
#   instance's page cache; pg_prewarm then fills shared_buffers. The load: pgbench with 2 clients per instance (in loadgen), each
#   transaction one SELECT of pgbench_accounts by primary key, the key Zipfian over all accounts
#   (random_zipfian, parameter APPS_DB_ZIPF, default 1.1) and scattered over the table by
#   permute() with one seed for both instances, so popular rows are spread over the heap and the
#   index as in a table filled in arrival order; at a fixed APPS_DB_RATE transactions/s (default
#   100; each instance served at most 172 a second in a smoke run, both on vCPU 0), with pgbench's per-transaction log for the latency percentiles (measured from each
#   transaction's scheduled start, so a server that falls behind shows it).
# reclaimd-ageonly: reclaimd with min_bytes 1T: it ages each managed memcg through lru_gen every
#   half cold age and evicts nothing (the floor is above memory.current). The cost of aging alone.
#
# Results:
#   samples.tsv   arm t_s inst current swap zswap psi_some_us refaults io_rbytes zswpin
#                 pgmajfault pgsteal                           (t_s from the start; inst a or b)
#   kv-chunks.tsv t_s inst stream n secs rps p50_ms p99_ms p999_ms chunk_busy_s
#   fio-a.json, fio-b.json (fio's JSON), pgbench-a.txt, pgbench-b.txt (pgbench's summary),
#   db-size.txt, app.tsv (the run's application summary per instance)
#   agent.tsv     arm status agent_cpu_s seconds app
#   lru_gen-start.txt, lru_gen-end.txt, agent.log, damon-stats.txt
set -eu
# shellcheck source=/dev/null
. "$VMTEST_LIB"

ARM=${APPS_ARM:-none}
APP=${APPS_APP:-kv}
SECONDS_RUN=${APPS_SECONDS:-150}
SAMPLE_S=${APPS_SAMPLE_S:-5}
KV_KEYS=${APPS_KV_KEYS:-300000}
KV_VALUE=${APPS_KV_VALUE:-1000}
KV_FILL=${APPS_KV_FILL:-shuffled}
KV_HOT_PCT=${APPS_KV_HOT_PCT:-10}
KV_CHUNK_S=${APPS_KV_CHUNK_S:-5}
KV_HOT_N=${APPS_KV_HOT_N:-1600}
KV_ALL_N=${APPS_KV_ALL_N:-400}
KV_MOVE_AT=${APPS_KV_MOVE_AT:-}
KV_SCAN_S=${APPS_KV_SCAN_S:-60}
KIND=${APP%%-*} # kv-move and kv-scan are kv with one more behaviour
FIO_SIZE=${APPS_FIO_SIZE:-300M}
FIO_ZIPF=${APPS_FIO_ZIPF:-1.1}
FIO_IOPS=${APPS_FIO_IOPS:-2000}
DB_SCALE=${APPS_DB_SCALE:-16}
DB_ZIPF=${APPS_DB_ZIPF:-1.1}
DB_RATE=${APPS_DB_RATE:-100}
DB_SB=${APPS_DB_SHARED_BUFFERS:-64MB}
PG_BIN=/usr/lib/postgresql/15/bin
# DAMON_RECLAIM's scheme as in tests/vm/scenarios/peers.sh (PEERS_DAMON_* defaults there).
DAMON_MIN_AGE_US=${APPS_DAMON_MIN_AGE_US:-20000000}
DAMON_AGGR_US=100000

SRV_CPU=0
GEN_CPU=1
SL=$CGROOT/system.slice
UL=$CGROOT/unmanaged.slice

cpu_s() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
alive() { [ -e "/proc/$1/stat" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat")" != Z ]; }
some_total() { sed -n 's/^some .*total=\([0-9]*\)$/\1/p' "$1/memory.pressure"; }
stat0() { _v=$(memstat "$1" "$2"); echo "${_v:-0}"; }
io_rbytes() { awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^rbytes=/) { sub(/^rbytes=/, "", $i); s += $i } } END { printf "%d\n", s }' "$1/io.stat" 2>/dev/null || echo 0; }

for d in "$SL" "$UL"; do
	mkdir -p "$d"
	echo "+memory +io" >"$d/cgroup.subtree_control"
done
CGA=$SL/$APP-a.service
CGB=$UL/$APP-b.service
mkdir -p "$CGA" "$CGB" "$CGROOT/loadgen" "$CGROOT/peer-agent"
# The scenario's own shell (sampling, chunk scheduling) stays out of the instances' cgroups.

# ---- the application ------------------------------------------------------------------------
kv_start() { # INST CGROUP
	mkdir -p "/tmp/kv-$1"
	cg_run "$2" taskset -c "$SRV_CPU" redis-server --port 0 --unixsocket "/tmp/kv-$1.sock" \
		--unixsocketperm 700 --save '' --appendonly no --dir "/tmp/kv-$1" --daemonize no \
		--logfile "$RESULTS/redis-$1.log"
	eval "pid_$1=\$!"
}
# kv_fill INST SEED PREFIX COUNT ORDER: COUNT SETs of PREFIX:%012d (0 .. COUNT-1) through
# redis-cli --pipe (RESP), in key order (ORDER seq) or shuffled; values cycle through 64 random
# printable strings drawn from SEED, so a page of values compresses about as much as text.
kv_fill() {
	if [ "$5" = seq ]; then seq 0 $(($4 - 1)); else seq 0 $(($4 - 1)) | shuf; fi |
		awk -v len="$KV_VALUE" -v seed="$2" -v prefix="$3" 'BEGIN {
			srand(seed)
			a = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
			for (v = 0; v < 64; v++) { s = ""; for (i = 0; i < len; i++) s = s substr(a, int(rand() * 64) + 1, 1); val[v] = s }
		}
		{ printf "*3\r\n$3\r\nSET\r\n$16\r\n%s:%012d\r\n$%d\r\n%s\r\n", prefix, $1, len, val[NR % 64] }' |
		redis-cli -s "/tmp/kv-$1.sock" --pipe >>"$RESULTS/kv-fill-$1.log" 2>&1
}
# kv_fill_both SEED PREFIX COUNT ORDER: kv_fill of both instances at once; exits on a failure.
kv_fill_both() {
	kv_fill a "$@" &
	_fa=$!
	kv_fill b "$@" &
	_fb=$!
	wait $_fa || { echo "apps: fill a of $2: keys failed"; exit 1; }
	wait $_fb || { echo "apps: fill b of $2: keys failed"; exit 1; }
}
# kv_scan T: one full read of every key of both instances at once; appends to kv-scans.tsv.
kv_scan() {
	_s0=$(uptime_s)
	_spids=
	for i in a b; do
		(echo 0 >"$CGROOT/loadgen/cgroup.procs" &&
			seq 0 $((KV_KEYS - 1)) | awk '{ printf "*2\r\n$3\r\nGET\r\n$16\r\nkey:%012d\r\n", $1 }' |
			taskset -c "$GEN_CPU" redis-cli -s "/tmp/kv-$i.sock" --pipe >"/tmp/kv-scan-$i.out" 2>&1) &
		_spids="$_spids $!"
	done
	for p in $_spids; do wait "$p" || true; done
	printf '%s\t%s\n' "$1" "$(fsub "$(uptime_s)" "$_s0")" >>"$RESULTS/kv-scans.tsv"
}

# kv_bench INST STREAM N RANGE OUT [PREFIX]: one redis-benchmark on vCPU GEN_CPU in loadgen,
# reading PREFIX:<random below RANGE> (PREFIX "key" unless given).
kv_bench() {
	(echo 0 >"$CGROOT/loadgen/cgroup.procs" &&
		exec taskset -c "$GEN_CPU" redis-benchmark -s "/tmp/kv-$1.sock" -c 1 -n "$3" -r "$4" \
			--precision 3 get "${6:-key}:__rand_int__") >"$5" 2>&1
}
# kv_parse FILE: "n secs rps p50_ms p99_ms p999_ms" of one redis-benchmark output; p50 and p99
# from its latency summary, p99.9 the first line of its percentile distribution at >= 99.9 %.
kv_parse() {
	tr '\r' '\n' <"$1" | awk '
		/requests completed in/ { n = $1; secs = $(NF - 1) }
		/throughput summary:/ { rps = $3 }
		/^Latency by percentile distribution:/ { inpct = 1; next }
		inpct && /^[0-9.]+% <=/ { p = $1; sub(/%/, "", p); if (p + 0 >= 99.9 && p999 == "") p999 = $3; next }
		inpct { inpct = 0 }
		/latency summary/ { ls = 1; next }
		ls == 1 { ls = 2; next }
		ls == 2 { p50 = $3; p99 = $5; ls = 0 }
		END { printf "%s %s %s %s %s %s\n", n == "" ? "-" : n, secs == "" ? "-" : secs, rps == "" ? "-" : rps,
			p50 == "" ? "-" : p50, p99 == "" ? "-" : p99, p999 == "" ? "-" : p999 }'
}
# kv_chunk T: one chunk, both instances, both streams at once; appends to kv-chunks.tsv.
kv_chunk() {
	_c0=$(uptime_s)
	_pids=
	_hot=key
	[ "$APP" = kv-move ] && [ "${1%.*}" -ge "$KV_MOVE_AT" ] && _hot=mov
	for i in a b; do
		kv_bench "$i" hot "$KV_HOT_N" "$KV_HOT_KEYS" "/tmp/kv-$i-hot.out" "$_hot" &
		_pids="$_pids $!"
		kv_bench "$i" all "$KV_ALL_N" "$KV_KEYS" "/tmp/kv-$i-all.out" &
		_pids="$_pids $!"
	done
	for p in $_pids; do wait "$p" || true; done
	_busy=$(fsub "$(uptime_s)" "$_c0")
	for i in a b; do
		for s in hot all; do
			printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$i" "$s" "$(kv_parse "/tmp/kv-$i-$s.out" | tr ' ' '\t')" \
				"$_busy" >>"$RESULTS/kv-chunks.tsv"
		done
	done
}

# fio_job INST LINES...: instance INST's job file on stdout, one option a line after the common ones.
fio_job() {
	_i=$1
	shift
	printf '[%s-%s]\nfilename=/data/fio-%s.dat\nsize=%s\nbs=4k\nioengine=psync\ninvalidate=0\n' \
		"$APP" "$_i" "$_i" "$FIO_SIZE"
	for _l in "$@"; do echo "$_l"; done
}
# fio_prepare INST CGROUP: writes the file from /dev/urandom and reads it once, both in the
# instance's cgroup, so all of it is in that cgroup's page cache (fio's own layout left none of
# it cached, and busybox cat's sendfile to /dev/null read nothing back).
fio_prepare() {
	_mib=$(($(echo "$FIO_SIZE" | sed 's/[mM]$//')))
	(echo 0 >"$2/cgroup.procs" && exec dd if=/dev/urandom of="/data/fio-$1.dat" bs=1M count="$_mib") \
		>"$RESULTS/fio-create-$1.log" 2>&1
	sync
	(echo 0 >"$2/cgroup.procs" && exec dd if="/data/fio-$1.dat" of=/dev/null bs=1M) >>"$RESULTS/fio-create-$1.log" 2>&1
	echo "apps: fio $1: $(($(cat "$2/memory.current") / 1048576)) MiB in its cgroup after the layout"
}
fio_start() { # INST CGROUP
	fio_job "$1" rw=randread "random_distribution=zipf:$FIO_ZIPF" norandommap "rate_iops=$FIO_IOPS" \
		time_based "runtime=$((SECONDS_RUN + 10))" percentile_list=50:99:99.9 >"/tmp/fio-$1.fio"
	cp "/tmp/fio-$1.fio" "$RESULTS/fio-$1.fio"
	cg_run "$2" taskset -c "$SRV_CPU" fio --output-format=json --output="$RESULTS/fio-$1.json" "/tmp/fio-$1.fio"
	eval "pid_$1=\$!"
}

# db_init INST CGROUP: initdb and the server's settings, run in the instance's cgroup as pg.
db_init() {
	mkdir -p "/data/pg-$1" "/tmp/pg-$1"
	chown pg:pg "/data/pg-$1" "/tmp/pg-$1"
	chmod 700 "/data/pg-$1"
	(echo 0 >"$2/cgroup.procs" && exec su -s /bin/sh pg -c \
		"$PG_BIN/initdb -D /data/pg-$1 --no-locale -E UTF8 -A trust -U pg") >"$RESULTS/initdb-$1.log" 2>&1 ||
		{ echo "apps: initdb $1 failed"; tail -n 20 "$RESULTS/initdb-$1.log"; exit 1; }
	printf "listen_addresses = ''\nunix_socket_directories = '/tmp/pg-%s'\nshared_buffers = %s\nmax_wal_size = 256MB\njit = off\n" \
		"$1" "$DB_SB" >>"/data/pg-$1/postgresql.conf"
}
db_start() { # INST CGROUP
	cg_run "$2" taskset -c "$SRV_CPU" su -s /bin/sh pg -c "exec $PG_BIN/postgres -D /data/pg-$1" \
		>>"$RESULTS/postgres-$1.log" 2>&1
	eval "pid_$1=\$!"
}
# db_sql INST SQL: one statement through psql, from loadgen; its output on stdout.
db_sql() {
	(echo 0 >"$CGROOT/loadgen/cgroup.procs" && exec psql -X -A -t -h "/tmp/pg-$1" -U pg -d postgres -c "$2")
}
# db_bench INST SECONDS OUT: pgbench's Zipfian primary-key reads of instance INST for SECONDS at
# DB_RATE, pinned to vCPU 1 in loadgen; its summary in OUT, its per-transaction log in
# /tmp/db-INST.log.* (the previous one removed first).
db_bench() {
	rm -f "/tmp/db-$1.log".*
	(echo 0 >"$CGROOT/loadgen/cgroup.procs" &&
		exec taskset -c "$GEN_CPU" pgbench -n -f /tmp/db.sql -c 2 -j 1 -R "$DB_RATE" -T "$2" \
			--random-seed=7 -l --log-prefix="/tmp/db-$1.log" -h "/tmp/pg-$1" -U pg postgres) \
		>"$3" 2>&1
}

case $KIND in
db)
	for x in "$PG_BIN/postgres" "$PG_BIN/initdb" pgbench psql su; do
		command -v "$x" >/dev/null || { echo "apps: no $x in the guest (--exe)"; exit 2; }
	done
	[ -d /data ] || { echo "apps: no /data"; exit 2; }
	grep -q '^pg:' /etc/passwd 2>/dev/null || echo 'pg:x:70:70:PostgreSQL:/tmp:/bin/sh' >>/etc/passwd
	grep -q '^pg:' /etc/group 2>/dev/null || echo 'pg:x:70:' >>/etc/group
	[ -d /dev/shm ] || { mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /dev/shm; }
	t=$(uptime_s)
	for i in a b; do
		if [ "$i" = a ]; then cg=$CGA; else cg=$CGB; fi
		db_init "$i" "$cg"
		db_start "$i" "$cg"
	done
	for i in a b; do
		wait_for_file "/tmp/pg-$i/.s.PGSQL.5432" 120 ||
			{ echo "apps: postgres $i did not start"; tail -n 20 "$RESULTS/postgres-$i.log"; exit 1; }
	done
	for i in a b; do
		(echo 0 >"$CGROOT/loadgen/cgroup.procs" &&
			exec pgbench -i -q -s "$DB_SCALE" -h "/tmp/pg-$i" -U pg postgres) >"$RESULTS/pgbench-init-$i.log" 2>&1 &
		eval "init_$i=\$!"
	done
	wait "$init_a" || { echo "apps: pgbench -i a failed"; tail -n 5 "$RESULTS/pgbench-init-a.log"; exit 1; }
	wait "$init_b" || { echo "apps: pgbench -i b failed"; tail -n 5 "$RESULTS/pgbench-init-b.log"; exit 1; }
	# shared_buffers filled from the table's index and heap (pg_prewarm), so the server's
	# shared memory is all allocated before the run and memory.current measures reclaim only.
	for i in a b; do
		db_sql "$i" "CREATE EXTENSION pg_prewarm" >/dev/null &&
			db_sql "$i" "SELECT pg_prewarm('pgbench_accounts_pkey') + pg_prewarm('pgbench_accounts')" \
				>"$RESULTS/prewarm-$i.txt" || { echo "apps: pg_prewarm $i failed"; exit 1; }
		db_sql "$i" CHECKPOINT >/dev/null || { echo "apps: CHECKPOINT $i failed"; exit 1; }
		echo "$i $(db_sql "$i" "SELECT pg_database_size('postgres')")" >>"$RESULTS/db-size.txt"
	done
	echo "apps: db: 2 x scale $DB_SCALE in $(fsub "$(uptime_s)" "$t") s; bytes: $(tr '\n' ' ' <"$RESULTS/db-size.txt")"
	n=$((DB_SCALE * 100000))
	printf '\\set r random_zipfian(1, %d, %s)\n\\set aid 1 + permute(:r - 1, %d)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n' \
		"$n" "$DB_ZIPF" "$n" >/tmp/db.sql
	cp /tmp/db.sql "$RESULTS/db.sql"
	# A warm-up of 10 s, not counted.
	db_bench a 10 "$RESULTS/pgbench-warm-a.txt" &
	warm_a=$!
	db_bench b 10 "$RESULTS/pgbench-warm-b.txt" || echo "apps: warm-up b failed (pgbench-warm-b.txt)"
	wait "$warm_a" || echo "apps: warm-up a failed (pgbench-warm-a.txt)"
	for i in a b; do
		if [ "$i" = a ]; then cg=$CGA; else cg=$CGB; fi
		echo "apps: db $i: $(($(cat "$cg/memory.current") / 1048576)) MiB in its cgroup after the warm-up"
	done
	;;
kv)
	[ -n "$KV_MOVE_AT" ] || KV_MOVE_AT=$((SECONDS_RUN / 2))
	for x in redis-server redis-benchmark redis-cli; do
		command -v "$x" >/dev/null || { echo "apps: no $x in the guest (--exe)"; exit 2; }
	done
	KV_HOT_KEYS=$((KV_KEYS * KV_HOT_PCT / 100))
	kv_start a "$CGA"
	kv_start b "$CGB"
	for i in a b; do
		wait_for_file "/tmp/kv-$i.sock" 60 || { echo "apps: redis $i did not start"; exit 1; }
	done
	t=$(uptime_s)
	kv_fill_both 1 key "$KV_KEYS" "$KV_FILL"
	if [ "$APP" = kv-move ]; then
		kv_fill_both 2 mov "$KV_HOT_KEYS" seq
		echo "apps: kv-move: the hot stream moves to $KV_HOT_KEYS mov: keys at $KV_MOVE_AT s"
	fi
	echo "apps: filled 2 x $KV_KEYS keys in $(fsub "$(uptime_s)" "$t") s"
	tail -n 2 "$RESULTS/kv-fill-a.log"
	for i in a b; do
		redis-cli -s "/tmp/kv-$i.sock" info memory | tr -d '\r' | grep -E '^used_memory(_rss)?:' |
			sed "s/^/$i /" >>"$RESULTS/kv-info.txt"
	done
	# One warm-up chunk, not counted.
	printf 't_s\tinst\tstream\tn\tsecs\trps\tp50_ms\tp99_ms\tp999_ms\tchunk_busy_s\n' >"$RESULTS/kv-chunks.tsv"
	kv_chunk -1
	printf 't_s\tinst\tstream\tn\tsecs\trps\tp50_ms\tp99_ms\tp999_ms\tchunk_busy_s\n' >"$RESULTS/kv-chunks.tsv"
	;;
fio)
	command -v fio >/dev/null || { echo "apps: no fio in the guest (--exe)"; exit 2; }
	[ -d /data ] || { echo "apps: no /data"; exit 2; }
	fio_prepare a "$CGA"
	fio_prepare b "$CGB"
	;;
*)
	echo "apps: unknown APPS_APP $APP"
	exit 2
	;;
esac
grep -E '^(MemTotal|MemFree|MemAvailable|SwapTotal|SwapFree):' /proc/meminfo >"$RESULTS/meminfo-start.txt"
cat /sys/kernel/debug/lru_gen >"$RESULTS/lru_gen-start.txt" 2>/dev/null || true

# ---- the arm --------------------------------------------------------------------------------
status=ok
agent_pid=
case $ARM in
none) ;;
senpai)
	cat >/tmp/oomd.json <<EOF
{ "rulesets": [ { "name": "senpai", "silence-logs": "engine",
    "detectors": [ [ "always", { "name": "continue", "args": {} } ] ],
    "actions": [ { "name": "senpai", "args": {
        "cgroup": "system.slice/$APP-a.service",
        "limit_min_bytes": "104857600", "interval": "6", "immediate_backoff": "true",
        "io_pressure_pct": "1.0", "memory_high_timeout_ms": "20" } } ] } ] }
EOF
	cp /tmp/oomd.json "$RESULTS/oomd.json"
	(echo 0 >"$CGROOT/peer-agent/cgroup.procs" &&
		exec oomd --config /tmp/oomd.json --interval 1 --cgroup-fs /sys/fs/cgroup) >"$RESULTS/agent.log" 2>&1 &
	agent_pid=$!
	;;
damon-sysfs)
	# DAMON_RECLAIM's scheme (tests/vm/scenarios/peers.sh) on all System RAM, with one memcg
	# filter that leaves every page outside instance a alone (matching=N: pages not in it are
	# filtered out).
	A=/sys/kernel/mm/damon/admin/kdamonds
	if [ ! -d "$A" ]; then
		status="failed:no-damon-sysfs"
	else
		ram=$(grep ' : System RAM$' /proc/iomem | grep -v '^ ' | while IFS='- ' read -r _s _e _; do
			echo "$((0x$_e - 0x$_s + 1)) $((0x$_s)) $((0x$_e + 1))"
		done | sort -n | tail -1)
		read -r _ ram_start ram_end <<EOF
${ram:-0 0 0}
EOF
		echo 1 >"$A/nr_kdamonds"
		K=$A/0
		echo 1 >"$K/contexts/nr_contexts"
		C=$K/contexts/0
		echo paddr >"$C/operations"
		echo 5000 >"$C/monitoring_attrs/intervals/sample_us"
		echo "$DAMON_AGGR_US" >"$C/monitoring_attrs/intervals/aggr_us"
		echo 1000000 >"$C/monitoring_attrs/intervals/update_us"
		echo 10 >"$C/monitoring_attrs/nr_regions/min"
		echo 1000 >"$C/monitoring_attrs/nr_regions/max"
		echo 1 >"$C/targets/nr_targets"
		echo 1 >"$C/targets/0/regions/nr_regions"
		echo "$ram_start" >"$C/targets/0/regions/0/start"
		echo "$ram_end" >"$C/targets/0/regions/0/end"
		echo 1 >"$C/schemes/nr_schemes"
		S=$C/schemes/0
		echo pageout >"$S/action"
		echo 4096 >"$S/access_pattern/sz/min"
		echo 18446744073709551615 >"$S/access_pattern/sz/max"
		echo 0 >"$S/access_pattern/nr_accesses/min"
		echo 0 >"$S/access_pattern/nr_accesses/max"
		echo $((DAMON_MIN_AGE_US / DAMON_AGGR_US)) >"$S/access_pattern/age/min"
		echo 4294967295 >"$S/access_pattern/age/max"
		echo 0 >"$S/quotas/ms"
		echo 134217728 >"$S/quotas/bytes"
		echo 1000 >"$S/quotas/reset_interval_ms"
		echo free_mem_rate >"$S/watermarks/metric"
		echo 5000000 >"$S/watermarks/interval_us"
		echo 1000 >"$S/watermarks/high"
		echo 999 >"$S/watermarks/mid"
		echo 0 >"$S/watermarks/low"
		echo 1 >"$S/filters/nr_filters"
		echo memcg >"$S/filters/0/type"
		echo "/system.slice/$APP-a.service" >"$S/filters/0/memcg_path"
		echo N >"$S/filters/0/matching"
		echo on >"$K/state" || status="failed:damon-sysfs-on"
		sleep 2
		agent_pid=$(cat "$K/pid")
		[ "$agent_pid" -gt 0 ] 2>/dev/null || { status="failed:no-kdamond"; agent_pid=; }
	fi
	;;
reclaimd-defaults)
	echo '{"rules":[{"match":"system.slice/*.service"}]}' >/tmp/agent.json
	agent_start /tmp/agent.json "$RESULTS/agent.log"
	agent_pid=$AGENT_PID
	;;
reclaimd-ageonly)
	echo '{"rules":[{"match":"system.slice/*.service","min_bytes":"1T"}]}' >/tmp/agent.json
	agent_start /tmp/agent.json "$RESULTS/agent.log"
	agent_pid=$AGENT_PID
	;;
*)
	echo "apps: unknown arm $ARM"
	exit 2
	;;
esac
[ -f /tmp/agent.json ] && cp /tmp/agent.json "$RESULTS/agent.json"

# ---- the run --------------------------------------------------------------------------------
printf 'arm\tt_s\tinst\tcurrent\tswap\tzswap\tpsi_some_us\trefaults\tio_rbytes\tzswpin\tpgmajfault\tpgsteal\n' \
	>"$RESULTS/samples.tsv"
sample() { # T
	for i in a b; do
		if [ "$i" = a ]; then cg=$CGA; else cg=$CGB; fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ARM" "$1" "$i" "$(cat "$cg/memory.current")" \
			"$(cat "$cg/memory.swap.current")" "$(cat "$cg/memory.zswap.current")" "$(some_total "$cg")" \
			"$(($(stat0 "$cg" workingset_refault_anon) + $(stat0 "$cg" workingset_refault_file)))" \
			"$(io_rbytes "$cg")" "$(stat0 "$cg" zswpin)" "$(stat0 "$cg" pgmajfault)" "$(stat0 "$cg" pgsteal)" \
			>>"$RESULTS/samples.tsv"
	done
}
# sleep_until T0 N: sleeps to T0 + N seconds (uptime), at once when past.
sleep_until() {
	sleep "$(awk -v t0="$1" -v n="$2" -v now="$(uptime_s)" 'BEGIN { d = t0 + n - now; printf "%.2f", (d > 0 ? d : 0) }')"
}
since() { awk -v t0="$1" -v now="$(uptime_s)" 'BEGIN { printf "%.1f", now - t0 }'; }

echo "apps: $APP ready; arm $ARM for $SECONDS_RUN s"
t0=$(uptime_s)
[ "$KIND" = fio ] && { fio_start a "$CGA"; fio_start b "$CGB"; }
if [ "$KIND" = db ]; then
	db_bench a "$SECONDS_RUN" "$RESULTS/pgbench-a.txt" &
	bench_a=$!
	db_bench b "$SECONDS_RUN" "$RESULTS/pgbench-b.txt" &
	bench_b=$!
fi
# every STEP END FN: runs "FN T" at t0 + STEP, t0 + 2 STEP, ... up to t0 + END (T: the seconds
# since t0 when it starts).
every() {
	_next=$1
	while [ "$_next" -le "$2" ]; do
		sleep_until "$t0" "$_next"
		"$3" "$(since "$t0")"
		_next=$((_next + $1))
	done
}
sample 0
every "$SAMPLE_S" "$SECONDS_RUN" sample &
sampler_pid=$!
if [ "$APP" = kv-scan ]; then
	printf 't_s\tsecs\n' >"$RESULTS/kv-scans.tsv"
	every "$KV_SCAN_S" $((SECONDS_RUN - 1)) kv_scan &
	scanner_pid=$!
fi
if [ "$KIND" = kv ]; then
	k=0
	while [ $((k * KV_CHUNK_S)) -lt "$SECONDS_RUN" ]; do
		sleep_until "$t0" $((k * KV_CHUNK_S))
		kv_chunk "$(since "$t0")"
		k=$((k + 1))
	done
fi
wait "$sampler_pid" || true
[ -z "${scanner_pid:-}" ] || wait "$scanner_pid" || true
elapsed=$(since "$t0")
if [ -n "$agent_pid" ] && [ "$status" = ok ] && ! alive "$agent_pid"; then
	status=failed:agent-exited
fi

agent_cpu=
if [ -n "$agent_pid" ] && alive "$agent_pid"; then
	agent_cpu=$(cpu_s "$agent_pid")
fi
cat /sys/kernel/debug/lru_gen >"$RESULTS/lru_gen-end.txt" 2>/dev/null || true
case $ARM in
damon-sysfs)
	echo update_schemes_stats >"$K/state" 2>/dev/null || true
	sv() { cat "$S/stats/$1" 2>/dev/null || echo -; }
	echo "tried=$(sv nr_tried) tried_bytes=$(sv sz_tried) applied=$(sv nr_applied) applied_bytes=$(sv sz_applied) quota_exceeds=$(sv qt_exceeds)" \
		| tee "$RESULTS/damon-stats.txt"
	echo off >"$K/state" || true
	;;
senpai) kill -TERM "$agent_pid" 2>/dev/null || true ;;
reclaimd-*) agent_stop >/dev/null ;;
esac
[ "$ARM" = none ] && agent_cpu=0
[ -n "$agent_cpu" ] || [ "$status" != ok ] || status="failed:agent-gone"

# The application's own summary per instance: app.tsv inst metric value.
printf 'inst\tmetric\tvalue\n' >"$RESULTS/app.tsv"
if [ "$KIND" = fio ]; then
	for i in a b; do
		eval "p=\$pid_$i"
		# fio ends on its own after SECONDS_RUN + 10 s; the run is measured to its end.
		_n=0
		while alive "$p" && [ "$_n" -lt 300 ]; do sleep 0.2; _n=$((_n + 1)); done
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
		# fio's JSON: read.iops, read.clat_ns.percentile."50.000000" ... (one job).
		tr -d ' \n' <"$RESULTS/fio-$i.json" | awk -v i="$i" '{
			s = $0
			r = index(s, "\"read\":{"); s = substr(s, r)
			m = match(s, /"iops":[0-9.e+]+/); iops = substr(s, RSTART + 7, RLENGTH - 7)
			c = index(s, "\"clat_ns\":{"); cs = substr(s, c)
			m = match(cs, /"mean":[0-9.e+]+/); mean = substr(cs, RSTART + 7, RLENGTH - 7)
			split("50.000000 99.000000 99.900000", P, " ")
			for (k = 1; k <= 3; k++) {
				m = match(cs, "\"" P[k] "\":[0-9]+")
				v[k] = m ? substr(cs, RSTART + length(P[k]) + 3, RLENGTH - length(P[k]) - 3) : "-"
			}
			printf "%s\tiops\t%s\n%s\tclat_mean_us\t%.1f\n", i, iops, i, mean / 1000
			printf "%s\tp50_us\t%.1f\n%s\tp99_us\t%.1f\n%s\tp999_us\t%.1f\n", i, v[1] / 1000, i, v[2] / 1000, i, v[3] / 1000
		}' >>"$RESULTS/app.tsv" || echo "apps: no fio JSON for $i"
	done
elif [ "$KIND" = db ]; then
	for i in a b; do
		eval "p=\$bench_$i"
		wait "$p" || echo "apps: pgbench $i: exit status $?"
		# pgbench's per-transaction log: client tx_no latency_us script_no epoch_s epoch_us lag_us
		tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$RESULTS/pgbench-$i.txt" | head -1)
		cat "/tmp/db-$i.log".* | awk '{ print $3 }' | sort -n | awk -v i="$i" -v tps="${tps:-0}" '
			{ v[NR] = $1; s += $1 }
			function q(p,   k) { k = int(p * NR + 0.999999); if (k < 1) k = 1; if (k > NR) k = NR; return v[k] }
			END {
				if (NR == 0) exit 1
				printf "%s\tiops\t%s\n%s\tclat_mean_us\t%.1f\n", i, tps, i, s / NR
				printf "%s\tp50_us\t%d\n%s\tp99_us\t%d\n%s\tp999_us\t%d\n", i, q(0.5), i, q(0.99), i, q(0.999)
				printf "%s\ttransactions\t%d\n", i, NR
			}' >>"$RESULTS/app.tsv" || echo "apps: no pgbench log for $i"
		eval "kill -INT \$pid_$i" 2>/dev/null || true
	done
else
	for i in a b; do
		redis-cli -s "/tmp/kv-$i.sock" info memory | tr -d '\r' | grep -E '^used_memory(_rss)?:' |
			sed "s/^/$i-end /" >>"$RESULTS/kv-info.txt" || true
		eval "kill -TERM \$pid_$i" 2>/dev/null || true
	done
fi
printf 'arm\tstatus\tagent_cpu_s\tseconds\tapp\n%s\t%s\t%s\t%s\t%s\n' "$ARM" "$status" "${agent_cpu:--}" \
	"$elapsed" "$APP" >"$RESULTS/agent.tsv"
cat "$RESULTS/agent.tsv" "$RESULTS/app.tsv"
