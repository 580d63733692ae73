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
# ARCHIVE_SECONDS, ARCHIVE_THINK, ARCHIVE_STORE_URL). Reports go
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

for s in "${@:-human idle stress cluster chaos}"; do
  for t in $s; do "$t"; done
done
