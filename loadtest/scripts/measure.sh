#!/usr/bin/env bash
# Reproduces the figures of loadtest/RESULTS.md on this machine:
#   cargo build --release -p tabula-server -p tabula-loadtest
#   loadtest/scripts/measure.sh [scenario ...]
# Scenarios: human, idle, stress, cluster, chaos (default: all),
# instructions (callgrind's count per action; needs valgrind), soak
# (node memory over minutes of games finishing and starting), floor
# (the socket stack alone, tabula-ws-floor: its actions per core and
# memory per idle pair of sockets, what a node cannot go below), and archive
# (the archiver keeping up with finished games; ARCHIVE_MATCHES,
# ARCHIVE_SECONDS, ARCHIVE_THINK, ARCHIVE_STORE_URL), and capacity (the
# unit costs of docs/capacity.md: node CPU per action and per game's life,
# memory per match, Redis operations, bytes and memory, PostgreSQL rows,
# bytes and WAL per game, on 1, 2 and 3 nodes and on a 3-primary Redis
# Cluster; then the model for 10k, 100k and 1M matches; CAPACITY_MONITOR=S
# adds S seconds of each Redis's MONITOR per run, summed by key pattern in
# loadtest/results/hotkeys-<run>.txt), and replicas (one node on a Redis
# primary with a replica, redis.min_replicas_acked off and 1 in turn: node
# and primary CPU per action and the latency; REPLICAS_*). Reports go
# to loadtest/results/<scenario>-<n>.json; one summary line per run on
# stdout. Needs redis-server for the cluster scenarios (our own instance on
# a free port; a Redis already running is not touched).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release}
OUT=loadtest/results
mkdir -p "$OUT"
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

LOAD_QUOTAS=(TABULA__QUOTAS__ADDRESS_ROOMS_PER_MINUTE=10000000 TABULA__QUOTAS__ADDRESS_ROOMS_BURST=10000000
  TABULA__QUOTAS__PLAYER_ROOMS_PER_MINUTE=10000000 TABULA__QUOTAS__PLAYER_ROOMS_BURST=10000000
  TABULA__QUOTAS__MAX_ROOMS=1000000 TABULA__SERVER__MAX_SOCKETS_PER_ADDRESS=10000000)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_node PORT [extra env...]: a node in the background; echoes its pid.
start_node() {
  local port=$1; shift
  # The harness makes every room from one address: room quotas and the room
  # cap raised past anything a run makes.
  env TABULA__SERVER__LISTEN=${LISTEN_IP:-127.0.0.1}:$port TABULA__SERVER__RATE_PER_SEC=1000 \
      TABULA__SERVER__RATE_BURST=1000 TABULA__BOTS__DELAY_MS=0 RUST_LOG=warn "${LOAD_QUOTAS[@]}" "$@" \
      "$BIN/tabula-server" >"$OUT/node-$port.log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do
    curl -sf "127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  PIDS+=("$pid")
  echo "$pid"
}

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
cpu_s() { awk '{print ($14+$15)/100}' "/proc/$1/stat"; }
cpu_cs() { awk '{print $14+$15}' "/proc/$1/stat"; }

summary() {
  python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
a = r["action"]
print(f'{r["config"]["matches"]:>6} matches  sockets {r["max_sockets"]:>6}  '
      f'p50 {a["p50_ms"]:.1f} p99 {a["p99_ms"]:.1f} p99.9 {a["p999_ms"]:.1f} max {a["max_ms"]:.1f} ms  '
      f'actions/s {r["actions_per_s"]:.0f}  games {r["games"]}  errors {r["errors_total"]} {r["errors"]}  '
      f'harness {r["harness"]["cpu_cores_used"] or 0:.2f} cores')
EOF
}

human() {
  for n in ${HUMAN_MATCHES:-1000 2500 5000 9900}; do
    local port; port=$(free_port)
    # On loopback one destination address has 28,232 ephemeral ports
    # (net.ipv4.ip_local_port_range) for 20,000 sockets plus the TIME_WAIT
    # of every room-creation request: past ~15,000 sockets connects stall
    # for seconds. Three destination addresses of the same node (it listens
    # on all of them) give each its own port space, as a load balancer's
    # several addresses would.
    local pid; pid=$(LISTEN_IP=0.0.0.0 start_node "$port")
    local c0; c0=$(cpu_s "$pid")
    "$BIN/tabula-load" --url "127.0.0.1:$port" --url "127.0.0.2:$port" --url "127.0.0.3:$port" \
      --matches "$n" --ramp-up 20s --duration 40s \
      --think 500ms..3s --progress 0 --report "$OUT/human-$n.json" >/dev/null || true
    local c1; c1=$(cpu_s "$pid")
    echo "human $(summary "$OUT/human-$n.json")  server cpu $(python3 -c "print(round(($c1-$c0)/60,2))") cores  rss $(( $(rss_kib "$pid") / 1024 )) MiB"
    kill -9 "$pid"
  done
}

idle() {
  local n=${IDLE_MATCHES:-5000}
  local port; port=$(free_port)
  local pid; pid=$(start_node "$port" TABULA__ROOMS__GRACE_MS=600000)
  sleep 1
  local r0; r0=$(rss_kib "$pid")
  # Rooms alone (no sockets).
  python3 - "$port" "$n" <<'EOF'
import http.client, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(n):
    c.request("POST", "/api/rooms", body='{"game":"long_nardy"}', headers={"Content-Type": "application/json"})
    c.getresponse().read()
EOF
  sleep 1
  local r1; r1=$(rss_kib "$pid")
  echo "idle rooms: $n rooms, $(( (r1 - r0) * 1024 / n )) bytes per room (rss $r0 → $r1 KiB)"
  # Seated matches: both sockets joined, nobody acts (the first action
  # would come after 10 minutes of think time).
  "$BIN/tabula-load" --url "127.0.0.1:$port" --matches "$n" --ramp-up 10s --duration 10s \
    --think 600s --progress 0 --report "$OUT/idle-$n.json" >/dev/null &
  local lpid=$!
  sleep 18
  local r2; r2=$(rss_kib "$pid")
  wait "$lpid" || true
  echo "idle seated matches: $n matches ($((2 * n)) sockets), $(( (r2 - r1) * 1024 / n )) bytes per seated match incl. its room and 2 sockets (rss $r1 → $r2 KiB)"
  kill -9 "$pid"
}

stress() {
  local port; port=$(free_port)
  local pid; pid=$(start_node "$port")
  local c0; c0=$(cpu_s "$pid")
  "$BIN/tabula-load" --url "127.0.0.1:$port" --matches "${STRESS_MATCHES:-200}" --ramp-up 2s \
    --duration 30s --think 0 --progress 0 --report "$OUT/stress.json" >/dev/null || true
  local c1; c1=$(cpu_s "$pid")
  local answered; answered=$(python3 -c "import json; print(json.load(open('$OUT/stress.json'))['actions_answered'])")
  echo "stress $(summary "$OUT/stress.json")  server cpu $(python3 -c "print(round($c1-$c0,1))") s = $(python3 -c "print(round(($c1-$c0)*1000/$answered*1000,1))") ms per 1000 actions, $(python3 -c "print(round($answered/($c1-$c0)))") actions per server core-second"
  kill -9 "$pid"
}

# The socket stack alone (tabula-ws-floor: actix-web + actix-ws, mimalloc,
# no rooms, no rules, no JSON) under the stress shape: actions per server
# core-second answered from the socket's own task and through a room actor
# per pair (FLOOR_ROOMS arbiters, the node's default 2), and the memory of
# FLOOR_IDLE_PAIRS idle pairs of sockets. What a node does beyond these
# figures is ours. The tool's default sizes are a stressed long nardy
# action's (~650 payload bytes on loopback, /proc/net/dev during `stress`).
floor() {
  local pairs=${STRESS_MATCHES:-200}
  for rooms in 0 "${FLOOR_ROOMS:-2}"; do
    local port; port=$(free_port)
    "$BIN/tabula-ws-floor" serve --listen "127.0.0.1:$port" --rooms "$rooms" >"$OUT/floor-$port.log" 2>&1 &
    local pid=$!; PIDS+=("$pid"); sleep 1
    local c0; c0=$(cpu_cs "$pid")
    local r; r=$("$BIN/tabula-ws-floor" drive --url "127.0.0.1:$port" --pairs "$pairs" --seconds 30)
    local c1; c1=$(cpu_cs "$pid")
    python3 - "$r" "$((c1 - c0))" "$rooms" <<'EOF'
import json, sys
r, cs, rooms = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
how = f"through a room actor per pair on {rooms} arbiters" if rooms else "from each socket's own task"
print(f'floor, answered {how}: {r["pairs"]} pairs, {r["actions_per_s"]:.0f} actions/s, server cpu {cs / 100:.1f} s = '
      f'{cs * 10 / r["actions"] * 1000:.1f} ms per 1000 actions, {r["actions"] / (cs / 100):.0f} actions per server core-second')
EOF
    kill -9 "$pid"
  done
  local n=${FLOOR_IDLE_PAIRS:-3000}
  for rooms in 0 "${FLOOR_ROOMS:-2}"; do
    local port; port=$(free_port)
    "$BIN/tabula-ws-floor" serve --listen "127.0.0.1:$port" --rooms "$rooms" >"$OUT/floor-$port.log" 2>&1 &
    local pid=$!; PIDS+=("$pid"); sleep 1
    local r0; r0=$(rss_kib "$pid")
    local held; held=$(mktemp)
    "$BIN/tabula-ws-floor" drive --url "127.0.0.1:$port" --pairs "$n" --seconds 60 --idle >"$held" &
    local dpid=$!
    for _ in $(seq 600); do grep -q holding "$held" && break; sleep 0.1; done
    sleep 5
    local r1; r1=$(rss_kib "$pid")
    kill "$dpid" 2>/dev/null || true; wait "$dpid" 2>/dev/null || true
    local how="each socket's own task"; [ "$rooms" = 0 ] || how="a room actor per pair"
    echo "floor, idle, $how: $n pairs ($((2 * n)) sockets, one frame each way, then silence), $(( (r1 - r0) * 1024 / n )) bytes per pair of sockets (rss $r0 → $r1 KiB)"
    rm -f "$held"
    kill -9 "$pid"
  done
  rm -f "$OUT"/floor-*.log
}

# Node memory while matches keep finishing and new ones start in their
# place: RSS every 30 s, and the rooms the node holds at the end. Fast think
# time so that games end within the run. SOAK_ENV: extra node settings
# (e.g. TABULA__ROOMS__FORGET_AFTER_MS=60000).
soak() {
  local n=${SOAK_MATCHES:-1000} secs=${SOAK_SECONDS:-240}
  local port; port=$(free_port)
  # shellcheck disable=SC2086
  local pid; pid=$(start_node "$port" ${SOAK_ENV:-})
  "$BIN/tabula-load" --url "127.0.0.1:$port" --matches "$n" --ramp-up 10s \
    --duration "$((secs - 10))s" --think 20ms..120ms --progress 0 \
    --report "$OUT/soak-$n.json" >/dev/null &
  local lpid=$! samples=""
  for _ in $(seq $((secs / 30))); do
    sleep 30
    samples="$samples $(( $(rss_kib "$pid") / 1024 ))"
  done
  wait "$lpid" || true
  local rooms; rooms=$(curl -s "127.0.0.1:$port/metrics" | awk '/^tabula_rooms\{/ {s += $2} END {print s}')
  echo "soak $(summary "$OUT/soak-$n.json")  rss every 30 s (MiB):$samples  rooms held at the end $rooms"
  kill -9 "$pid"
}

# metric NAME PORT: the sum of a metric's series on the node at PORT.
metric() {
  curl -s "127.0.0.1:$2/metrics" | awk -v m="$1" '$1 == m || index($1, m "{") == 1 {s += $2} END {print s + 0}'
}

# The archiver against the harness's finished games (issue 24): a node with
# its durable store (a fresh SQLite file, or ARCHIVE_STORE_URL, e.g. a
# postgres:// URL) under soak-style churn, then the same run without a store
# (TABULA__STORE__URL=""), same matches and pace: games finished and
# archived per second, the archive queue's largest backlog and lag in 1 s
# samples, how long it takes to empty after the load, and what the store
# costs the node (CPU, p99).
archive() {
  local n=${ARCHIVE_MATCHES:-1000} secs=${ARCHIVE_SECONDS:-120} think=${ARCHIVE_THINK:-20ms..120ms}
  local dir; dir=$(mktemp -d)
  local url=${ARCHIVE_STORE_URL:-sqlite://$dir/tabula.db?mode=rwc}
  local mode
  for mode in store none; do
    local port; port=$(free_port)
    local store_url=$url; [ "$mode" = none ] && store_url=""
    local pid; pid=$(start_node "$port" TABULA__STORE__URL="$store_url")
    if [ "$mode" = store ]; then
      for _ in $(seq 100); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "127.0.0.1:$port/api/leaderboards/backgammon")" = 200 ] && break
        sleep 0.1
      done
    fi
    local a0; a0=$(metric tabula_archived_total "$port")
    local c0; c0=$(cpu_s "$pid")
    "$BIN/tabula-load" --url "127.0.0.1:$port" --matches "$n" --ramp-up 10s \
      --duration "$((secs - 10))s" --think "$think" --progress 0 \
      --report "$OUT/archive-$mode-$n.json" >/dev/null &
    local lpid=$! max_backlog=0 max_lag=0 b l
    while kill -0 "$lpid" 2>/dev/null; do
      sleep 1
      b=$(metric tabula_archive_backlog_games "$port")
      l=$(metric tabula_archive_lag_seconds "$port")
      max_backlog=$(python3 -c "print(max($max_backlog, $b))")
      max_lag=$(python3 -c "print(max($max_lag, $l))")
    done
    wait "$lpid" || true
    local c1; c1=$(cpu_s "$pid")
    local t_end; t_end=$(date +%s.%N)
    local drained="-"
    if [ "$mode" = store ]; then
      for _ in $(seq 600); do
        [ "$(metric tabula_archive_backlog_games "$port")" = 0 ] && break
        sleep 0.1
      done
      drained=$(python3 -c "print(round($(date +%s.%N) - $t_end, 1))")
    fi
    sleep 1
    local a1; a1=$(metric tabula_archived_total "$port")
    local errs; errs=$(metric tabula_store_errors_total "$port")
    python3 - "$OUT/archive-$mode-$n.json" "$mode" "$(python3 -c "print(int($a1 - $a0))")" \
      "$max_backlog" "$max_lag" "$drained" "$errs" "$c0" "$c1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
mode, archived, backlog, lag, drained, errs, c0, c1 = sys.argv[2:]
secs = r["elapsed_s"]
a = r["action"]
line = (f'archive {mode}: {r["config"]["matches"]} matches, {r["games"]} games in {secs:.0f} s '
        f'({r["games"] / secs:.1f}/s), p99 {a["p99_ms"]:.1f} ms, actions/s {r["actions_per_s"]:.0f}, '
        f'errors {r["errors_total"]}, node cpu {(float(c1) - float(c0)) / secs:.2f} cores')
if mode == "store":
    line += (f'; archived {archived} ({int(archived) / secs:.1f}/s), backlog max {backlog}, '
             f'lag max {lag} s, empty {drained} s after the load, store errors {errs}')
print(line)
PY
    kill -9 "$pid"
  done
  rm -rf "$dir"
}

# CPU instructions the node executes per action (user space), counted by
# callgrind: unlike CPU time on a shared 2-vCPU VM, whose run-to-run spread
# is ±10 % and drifts by the hour, the count repeats to ~2 %, so it is the
# A/B measure for changes to the per-action path (`BIN=<dir>` for the other
# build). Kernel work (the socket syscalls, ~25 % of the node's CPU under
# stress) is not counted. Not in the default set: it needs valgrind.
instructions() {
  local port; port=$(free_port)
  env TABULA__SERVER__LISTEN=127.0.0.1:$port TABULA__SERVER__RATE_PER_SEC=1000 \
      TABULA__SERVER__RATE_BURST=1000 TABULA__BOTS__DELAY_MS=0 RUST_LOG=warn "${LOAD_QUOTAS[@]}" \
      valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
      "$BIN/tabula-server" >"$OUT/node-$port.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 300); do
    curl -sf "127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.2
  done
  # LOAD_ARGS: more harness flags (`--turns`: whole turns instead of steps).
  # shellcheck disable=SC2086
  "$BIN/tabula-load" --url "127.0.0.1:$port" --matches 20 --ramp-up 1s --duration 20s \
    --think 0 --progress 0 --report "$OUT/instructions.json" ${LOAD_ARGS:-} >/dev/null || true
  # Dice turns played: one accepted roll each.
  local turns; turns=$(curl -s "127.0.0.1:$port/metrics" \
    | awk '/^tabula_commands_total\{outcome="accepted",type="rollDice"\}/ {print $2}')
  # SIGINT: the node drains and exits, and callgrind writes its counts.
  kill -INT "$pid"
  wait "$pid" || true
  python3 - "$OUT/instructions.json" "$OUT/callgrind.out" "${turns:-0}" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ir = next(int(l.split()[1]) for l in open(sys.argv[2]) if l.startswith("summary:"))
n = r["actions_answered"]
turns = int(float(sys.argv[3]))
print(f'instructions: {n} actions, {turns} turns, {ir} instructions, {ir // max(n, 1)} per action, '
      f'{ir // max(turns, 1)} per turn (startup included, ~9 M), errors {r["errors_total"]}')
EOF
  [ -n "${KEEP_CALLGRIND:-}" ] || rm -f "$OUT/callgrind.out"
}

start_redis() {
  REDIS_PORT=$(free_port)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
  REDIS_PID=$!
  PIDS+=("$REDIS_PID")
  for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
}

cluster_nodes() {
  P1=$(free_port); P2=$(free_port)
  local common=(TABULA__CLUSTER__BACKPLANE=redis TABULA__REDIS__URL=redis://127.0.0.1:$REDIS_PORT
    TABULA__REDIS__PREFIX=load$$ TABULA__AUTH__SESSION_SECRET=load-test-secret-0123456789abcdef
    TABULA__REDIS__LEASE_MS=${LEASE_MS:-3000} TABULA__REDIS__TIMEOUT_MS=${REDIS_TIMEOUT_MS:-1000})
  N1=$(start_node "$P1" "${common[@]}" TABULA__CLUSTER__NODE_ID=load-n1)
  N2=$(start_node "$P2" "${common[@]}" TABULA__CLUSTER__NODE_ID=load-n2)
}

cluster() {
  start_redis
  LISTEN_IP=0.0.0.0 cluster_nodes
  local n=${CLUSTER_MATCHES:-2500}
  # CLUSTER_AFFINITY=1: both sockets of a match on its room's node (an
  # affinity-aware load balancer); default: on different nodes.
  local aff=() name=cluster-$n
  if [ -n "${CLUSTER_AFFINITY:-}" ]; then aff=(--affinity); name=cluster-affinity-$n; fi
  local c0; c0=$(( $(cpu_cs "$N1") + $(cpu_cs "$N2") ))
  local r0; r0=$(cpu_cs "$REDIS_PID")
  # Two destination addresses per node (see human()); consecutive URLs are
  # different nodes, so the two sockets of a match are on different nodes.
  # Past ~9,900 matches one harness process runs out of open files: the
  # matches are spread over CLUSTER_PROCS processes.
  "$BIN/tabula-load" --url "127.0.0.1:$P1" --url "127.0.0.2:$P2" --url "127.0.0.3:$P1" \
    --url "127.0.0.4:$P2" --matches "$n" --procs "${CLUSTER_PROCS:-1}" "${aff[@]}" \
    --ramp-up "${CLUSTER_RAMP:-20s}" --duration "${CLUSTER_DURATION:-40s}" --think 500ms..3s \
    --progress "${PROGRESS:-0}" --report "$OUT/$name.json" >/dev/null || true
  local c1; c1=$(( $(cpu_cs "$N1") + $(cpu_cs "$N2") ))
  local r1; r1=$(cpu_cs "$REDIS_PID")
  local secs; secs=$(python3 -c "import json; print(json.load(open('$OUT/$name.json'))['elapsed_s'])")
  echo "$name $(summary "$OUT/$name.json")  nodes cpu $(python3 -c "print(round(($c1-$c0)/100/$secs,2))") cores  redis cpu $(python3 -c "print(round(($r1-$r0)/100/$secs,2))") cores  rss $(( $(rss_kib "$N1") / 1024 )) + $(( $(rss_kib "$N2") / 1024 )) MiB"
  kill -9 "$N1" "$N2"
}

chaos() {
  local n=${CHAOS_MATCHES:-500}
  for kind in kill drain; do
    start_redis
    LEASE_MS=1000 REDIS_TIMEOUT_MS=300 cluster_nodes
    local sig=-9; [ "$kind" = drain ] && sig=-TERM
    "$BIN/tabula-load" --url "127.0.0.1:$P1" --url "127.0.0.1:$P2" --matches "$n" --ramp-up 5s \
      --game backgammon --duration 40s --think 20ms..200ms --progress 0 --chaos-at 15s \
      --chaos-cmd "kill $sig $N2" --report "$OUT/chaos-$kind.json" >/dev/null || true
    python3 - "$OUT/chaos-$kind.json" "$kind" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["chaos_pauses_ms"]
print(f'chaos {sys.argv[2]}: {r["config"]["matches"]} matches, affected {p["matches"]}, pause median {p["median"] or 0:.0f} ms max {p["max"] or 0:.0f} ms, '
      f'records verified {r["verified_games"]}, lost or duplicated {r["lost_or_duplicated"]}, errors {r["errors"]}, '
      f'p99 {r["action"]["p99_ms"]:.1f} ms')
EOF
    kill -9 "$N1" "$N2" 2>/dev/null || true
  done
}

# --- capacity (docs/capacity.md) -------------------------------------------
# Each run: fresh Redis (one server, or a 3-primary Cluster), a fresh
# PostgreSQL database, NODES nodes on the Redis backplane with that store,
# and the harness; before and after it, what each process used. One JSON
# line per run in $OUT/capacity-runs.jsonl; loadtest/scripts/capacity.py
# turns them into unit costs and the model.
CAP_PG=${CAPACITY_PG:-postgres://postgres@127.0.0.1:5432}
CAP_DB=tabula_capacity

redis_info() { # PORT: total command calls, net bytes in+out, used memory
  redis-cli -p "$1" info all | tr -d '\r' | awk -F'[:=,]' '
    /^cmdstat_/ {calls += $3}
    /^total_net_input_bytes/ {nin = $2} /^total_net_output_bytes/ {nout = $2}
    /^used_memory:/ {mem = $2}
    END {printf "%d %d %d\n", calls, nin + nout, mem}'
}

pg_snapshot() { # rows written per table, database size, WAL records/bytes/syncs
  psql "$CAP_PG/$CAP_DB" -qtA -F' ' -c "
    select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0),
           pg_database_size(current_database()),
           (select wal_records from pg_stat_wal), (select wal_bytes from pg_stat_wal),
           (select wal_sync from pg_stat_wal),
           coalesce((select string_agg(relname || '=' || (n_tup_ins + n_tup_upd + n_tup_del), ',' order by relname)
                     from pg_stat_user_tables where n_tup_ins + n_tup_upd + n_tup_del > 0), '-')
    from pg_stat_user_tables"
}

# cap_run LABEL NODES MODE REDIS [ROUTE]: MODE play (whole games), life
# (each seat resigns at its first game action: a room's life with three
# actions) or idle (seated matches, nobody acts); REDIS single or cluster;
# ROUTE affinity (both sockets of a match on its room's node, as a load
# balancer with room affinity sends them; the default) or routed (on
# different nodes: one socket's commands cross the backplane).
cap_run() {
  local label=$1 nodes=$2 mode=$3 redis=$4 route=${5:-affinity}
  local n=${CAPACITY_MATCHES:-200} secs=${CAPACITY_SECONDS:-40}
  psql "$CAP_PG/postgres" -qtA -c "drop database if exists $CAP_DB" -c "create database $CAP_DB" >/dev/null
  local rports=() rpids=() backend=()
  if [ "$redis" = cluster ]; then
    local addrs=()
    for _ in 1 2 3; do
      # A Cluster server also listens on its port + 10000 (the bus): both free.
      local p; p=$(python3 -c '
import random, socket
while True:
    p = random.randrange(20000, 30000)
    try:
        for q in (p, p + 10000):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
        print(p); break
    except OSError:
        pass')
      local d; d=$(mktemp -d)
      redis-server --port "$p" --bind 127.0.0.1 --save "" --appendonly no --cluster-enabled yes \
        --cluster-config-file "$d/nodes.conf" --dir "$d" >/dev/null 2>&1 &
      rpids+=($!); PIDS+=($!); rports+=("$p"); addrs+=("127.0.0.1:$p")
    done
    for p in "${rports[@]}"; do
      for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
    done
    redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >/dev/null
    for p in "${rports[@]}"; do
      for _ in $(seq 100); do redis-cli -p "$p" cluster info | grep -q cluster_state:ok && break; sleep 0.1; done
    done
    local urls; urls=$(printf 'redis://%s,' "${addrs[@]}"); urls=${urls%,}
    backend=(TABULA__REDIS__CLUSTER=true TABULA__REDIS__URLS="$urls")
  else
    start_redis
    rports=("$REDIS_PORT"); rpids=("$REDIS_PID")
    backend=(TABULA__REDIS__URL=redis://127.0.0.1:$REDIS_PORT)
  fi
  local ports=() pids=() urls=()
  for i in $(seq "$nodes"); do
    local p; p=$(free_port)
    local pid; pid=$(LISTEN_IP=0.0.0.0 start_node "$p" TABULA__CLUSTER__BACKPLANE=redis "${backend[@]}" \
      TABULA__REDIS__PREFIX=cap$$ TABULA__AUTH__SESSION_SECRET=load-test-secret-0123456789abcdef \
      TABULA__CLUSTER__NODE_ID="cap-n$i" TABULA__STORE__URL="$CAP_PG/$CAP_DB" TABULA__ROOMS__GRACE_MS=600000)
    ports+=("$p"); pids+=("$pid")
    # Two addresses per node (see human()).
    urls+=(--url "127.0.0.$((2 * i - 1)):$p" --url "127.0.0.$((2 * i)):$p")
  done
  for _ in $(seq 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "127.0.0.1:${ports[0]}/api/leaderboards/backgammon")" = 200 ] && break
    sleep 0.1
  done
  sleep 1
  # The nodes' and Redis's CPU with no load (beats, leases, sweeps, the
  # archive's polls), over 5 s: subtracted from the run's, so that what is
  # left is what the load cost.
  local idle0=0 ridle0=0 idle1=0 ridle1=0
  for pid in "${pids[@]}"; do idle0=$((idle0 + $(cpu_cs "$pid"))); done
  for pid in "${rpids[@]}"; do ridle0=$((ridle0 + $(cpu_cs "$pid"))); done
  sleep 5
  for pid in "${pids[@]}"; do idle1=$((idle1 + $(cpu_cs "$pid"))); done
  for pid in "${rpids[@]}"; do ridle1=$((ridle1 + $(cpu_cs "$pid"))); done
  local cpu0=0 rss0=0 rcpu0=0 t0; t0=$(date +%s.%N)
  for pid in "${pids[@]}"; do cpu0=$((cpu0 + $(cpu_cs "$pid"))); rss0=$((rss0 + $(rss_kib "$pid"))); done
  for pid in "${rpids[@]}"; do rcpu0=$((rcpu0 + $(cpu_cs "$pid"))); done
  local rinfo0=() ; for p in "${rports[@]}"; do rinfo0+=("$(redis_info "$p")"); done
  local pg0; pg0=$(pg_snapshot)
  local a0=0; for p in "${ports[@]}"; do a0=$(python3 -c "print($a0 + $(metric tabula_archived_total "$p"))"); done
  local args=(--matches "$n" --ramp-up 5s --duration "${secs}s" --progress 0 --report "$OUT/capacity-$label.json")
  [ "$route" = affinity ] && args+=(--affinity)
  case $mode in
    play) args+=(--think "${CAPACITY_THINK:-20ms..120ms}") ;;
    life) args+=(--think "${CAPACITY_THINK:-20ms..120ms}" --resign-after 0) ;;
    idle) args+=(--think 600s) ;;
  esac
  "$BIN/tabula-load" "${urls[@]}" "${args[@]}" >/dev/null &
  local lpid=$! peak_rss=0 peak_rmem=0 peak_rooms=0
  # CAPACITY_MONITOR=S: S seconds of each Redis's MONITOR, 10 s into the
  # load (it slows Redis: not for the figures), then its calls by key
  # pattern (loadtest/scripts/hotkeys.py): which keys make a shard hot.
  if [ -n "${CAPACITY_MONITOR:-}" ]; then
    (
      trap - EXIT # the script's cleanup is not this subshell's
      sleep 10
      local mons=() logs=()
      for p in "${rports[@]}"; do
        redis-cli -p "$p" monitor >"$OUT/monitor-$label-$p.log" 2>/dev/null &
        mons+=($!); logs+=("$OUT/monitor-$label-$p.log")
      done
      sleep "$CAPACITY_MONITOR"
      kill "${mons[@]}" 2>/dev/null
      wait "${mons[@]}" 2>/dev/null
      python3 loadtest/scripts/hotkeys.py "${logs[@]}" >"$OUT/hotkeys-$label.txt"
    ) &
  fi
  while kill -0 "$lpid" 2>/dev/null; do
    sleep 1
    local r=0 m=0 rooms=0
    for pid in "${pids[@]}"; do r=$((r + $(rss_kib "$pid" 2>/dev/null || echo 0))); done
    for p in "${rports[@]}"; do m=$((m + $(redis_info "$p" | cut -d' ' -f3))); done
    for p in "${ports[@]}"; do rooms=$(python3 -c "print(int($rooms + $(metric 'tabula_rooms' "$p")))"); done
    [ "$r" -gt "$peak_rss" ] && peak_rss=$r
    [ "$m" -gt "$peak_rmem" ] && peak_rmem=$m
    [ "$rooms" -gt "$peak_rooms" ] && peak_rooms=$rooms
  done
  wait "$lpid" || true
  # The archive drains, then PostgreSQL's statistics settle.
  for _ in $(seq 600); do
    [ "$(metric tabula_archive_backlog_games "${ports[0]}")" = 0 ] && break
    sleep 0.1
  done
  sleep 2
  local cpu1=0 rcpu1=0 t1; t1=$(date +%s.%N)
  for pid in "${pids[@]}"; do cpu1=$((cpu1 + $(cpu_cs "$pid"))); done
  for pid in "${rpids[@]}"; do rcpu1=$((rcpu1 + $(cpu_cs "$pid"))); done
  local rinfo1=() ; for p in "${rports[@]}"; do rinfo1+=("$(redis_info "$p")"); done
  local pg1; pg1=$(pg_snapshot)
  local a1=0; for p in "${ports[@]}"; do a1=$(python3 -c "print($a1 + $(metric tabula_archived_total "$p"))"); done
  python3 - "$OUT/capacity-$label.json" "$label" "$nodes" "$mode" "$redis" "$route" "$((cpu1 - cpu0))" \
    "$((rcpu1 - rcpu0))" "$rss0" "$peak_rss" "$peak_rmem" "$peak_rooms" "$a0" "$a1" "$pg0" "$pg1" \
    "$(IFS=';'; echo "${rinfo0[*]}")" "$(IFS=';'; echo "${rinfo1[*]}")" \
    "$(python3 -c "print(($idle1 - $idle0) / 500 * ($t1 - $t0))")" \
    "$(python3 -c "print(($ridle1 - $ridle0) / 500 * ($t1 - $t0))")" >>"$OUT/capacity-runs.jsonl" <<'PY'
import json, sys
(report, label, nodes, mode, redis, route, cpu, rcpu, rss0, peak_rss, peak_rmem, rooms, a0, a1, pg0, pg1,
 ri0, ri1, idle, ridle) = sys.argv[1:]
r = json.load(open(report))
def shards(s):
    return [list(map(int, x.split())) for x in s.split(";")]
ri0, ri1 = shards(ri0), shards(ri1)
p0, p1 = pg0.split(" "), pg1.split(" ")
tables0 = dict(t.split("=") for t in p0[5].split(",") if "=" in t)
tables1 = dict(t.split("=") for t in p1[5].split(",") if "=" in t)
print(json.dumps({
    "label": label, "nodes": int(nodes), "mode": mode, "redis": redis, "route": route,
    "matches": r["config"]["matches"], "elapsed_s": r["elapsed_s"],
    "actions": r["actions_answered"], "games": r["games"], "errors": r["errors_total"],
    "p99_ms": r["action"]["p99_ms"],
    "archived": int(float(a1) - float(a0)),
    # Net of the background (the no-load rate over the run's span).
    "node_cpu_s": max(int(cpu) / 100 - float(idle), 0), "redis_cpu_s": max(int(rcpu) / 100 - float(ridle), 0),
    "node_cpu_s_raw": int(cpu) / 100, "redis_cpu_s_raw": int(rcpu) / 100,
    "node_background_cpu_s": float(idle), "redis_background_cpu_s": float(ridle),
    "node_rss_kib_before": int(rss0), "node_rss_kib_peak": int(peak_rss),
    "redis_mem_peak": int(peak_rmem), "redis_mem_before": sum(x[2] for x in ri0),
    "rooms_peak": int(rooms),
    "redis_calls": [b[0] - a[0] for a, b in zip(ri0, ri1)],
    "redis_bytes": [b[1] - a[1] for a, b in zip(ri0, ri1)],
    "pg_rows": int(p1[0]) - int(p0[0]), "pg_bytes": int(p1[1]) - int(p0[1]),
    "pg_wal_records": int(p1[2]) - int(p0[2]), "pg_wal_bytes": int(float(p1[3]) - float(p0[3])),
    "pg_wal_syncs": int(p1[4]) - int(p0[4]),
    "pg_rows_by_table": {t: int(v) - int(tables0.get(t, 0)) for t, v in tables1.items()},
}))
PY
  tail -1 "$OUT/capacity-runs.jsonl" | python3 -c "import json,sys; r=json.load(sys.stdin); print(f'capacity {r[\"label\"]}: {r[\"actions\"]} actions, {r[\"games\"]} games ({r[\"archived\"]} archived), node cpu {r[\"node_cpu_s\"]:.1f} s, redis cpu {r[\"redis_cpu_s\"]:.1f} s, redis calls {sum(r[\"redis_calls\"])}, errors {r[\"errors\"]}')"
  kill -9 "${pids[@]}" "${rpids[@]}" 2>/dev/null || true
  wait "${pids[@]}" "${rpids[@]}" 2>/dev/null || true
  sleep 1
}

capacity() {
  : >"$OUT/capacity-runs.jsonl"
  for nodes in 1 2 3; do
    cap_run "play-$nodes" "$nodes" play single
    cap_run "life-$nodes" "$nodes" life single
  done
  cap_run play-3-routed 3 play single routed
  cap_run idle-1 1 idle single
  capacity_cluster
}

# Replica acknowledgements end to end (issue 47, part 1): one node on a
# Redis primary with one replica, `redis.min_replicas_acked` off and 1 in
# turn (REPLICAS_ROUNDS rounds, each setting on a fresh primary and
# replica), under the stress shape (REPLICAS_MATCHES matches at zero think
# time: CPU per action at saturation) and a paced one (REPLICAS_PACED
# matches thinking 500ms..3s: the latency a player sees). Node and primary
# CPU per action from /proc; the store off, so only the writes differ.
replicas() {
  local rounds=${REPLICAS_ROUNDS:-2}
  for round in $(seq "$rounds"); do
    for acks in 0 1; do
      for shape in stress paced; do
        local pport rport; pport=$(free_port); rport=$(free_port)
        # The replica's initial sync writes an RDB file into its --dir.
        local rdir; rdir=$(mktemp -d)
        redis-server --port "$pport" --bind 127.0.0.1 --save "" --appendonly no --dir "$rdir" >/dev/null 2>&1 &
        local ppid=$!; PIDS+=("$ppid")
        redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no --dir "$rdir" \
          --replicaof 127.0.0.1 "$pport" >/dev/null 2>&1 &
        local rpid=$!; PIDS+=("$rpid")
        for _ in $(seq 100); do
          redis-cli -p "$pport" info replication 2>/dev/null | grep -q 'slave0:.*state=online' && break
          sleep 0.1
        done
        local port; port=$(free_port)
        local pid; pid=$(start_node "$port" TABULA__CLUSTER__BACKPLANE=redis \
          TABULA__REDIS__URL=redis://127.0.0.1:$pport TABULA__REDIS__PREFIX=rep$$ \
          TABULA__REDIS__MIN_REPLICAS_ACKED=$acks TABULA__STORE__URL= \
          TABULA__AUTH__SESSION_SECRET=load-test-secret-0123456789abcdef)
        local c0 r0; c0=$(cpu_cs "$pid"); r0=$(cpu_cs "$ppid")
        local name=replicas-$acks-$shape-$round
        if [ "$shape" = stress ]; then
          "$BIN/tabula-load" --url "127.0.0.1:$port" --matches "${REPLICAS_MATCHES:-200}" --ramp-up 2s \
            --duration 30s --think 0 --progress 0 --report "$OUT/$name.json" >/dev/null || true
        else
          "$BIN/tabula-load" --url "127.0.0.1:$port" --matches "${REPLICAS_PACED:-1000}" --ramp-up 10s \
            --duration 30s --think 500ms..3s --progress 0 --report "$OUT/$name.json" >/dev/null || true
        fi
        local c1 r1; c1=$(cpu_cs "$pid"); r1=$(cpu_cs "$ppid")
        python3 - "$OUT/$name.json" "$acks" "$shape" "$((c1 - c0))" "$((r1 - r0))" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
acks, shape, node_cs, redis_cs = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
a, n = r["action"], max(r["actions_answered"], 1)
print(f'replicas min_replicas_acked={acks} {shape}: {r["config"]["matches"]} matches, {r["actions_per_s"]:.0f} actions/s, '
      f'p50 {a["p50_ms"]:.2f} p99 {a["p99_ms"]:.2f} max {a["max_ms"]:.1f} ms, errors {r["errors_total"]}; '
      f'node {node_cs * 10000 / n:.1f} us/action ({n / max(node_cs / 100, 0.01):.0f} per core-second), '
      f'primary {redis_cs * 10000 / n:.1f} us/action')
PY
        kill -9 "$pid" "$ppid" "$rpid" 2>/dev/null || true
        wait "$ppid" "$rpid" 2>/dev/null || true
        rm -rf "$rdir"
      done
    done
  done
}

# The Redis Cluster run alone, added to the last `capacity` runs.
capacity_cluster() {
  cap_run cluster-play-3 3 play cluster routed
  python3 loadtest/scripts/capacity.py "$OUT/capacity-runs.jsonl"
}

for s in "${@:-human idle stress cluster chaos}"; do
  for t in $s; do "$t"; done
done
