#!/usr/bin/env python3
"""Unit costs and the capacity model of docs/capacity.md, from the runs
`loadtest/scripts/measure.sh capacity` wrote (one JSON object per line).

Per action and per game's life: each node count has a `play` run (whole
games: many actions per game) and a `life` run (each game resigned at its
first action: three actions per game). A resource R is split as
R = a * actions + b * games over the two runs (two equations, two
unknowns): `a` is its cost per action, `b` per game's life (create, join,
ready, the end, the archive, leave).

Usage: capacity.py RUNS.jsonl [--model-only]
"""
import json
import math
import sys

# The model's assumptions (docs/capacity.md, "The model").
MATCH_S = 600  # a match lasts about 10 minutes
THINK_S = 1.75  # a human's mean think time (500 ms..3 s): one action per match per 1.75 s
NODE_CORES = 4  # cores per node pod
NODE_UTIL = 0.6  # the share of a node's cores the model plans to use
REDIS_UTIL = 0.6  # the share of a Redis shard's one core the model plans to use
SIZES = (10_000, 100_000, 1_000_000)


def split(play, life, key):
    """(per action, per game) for the resource `key` from a play and a life run."""
    def val(r):
        v = r[key]
        return sum(v) if isinstance(v, list) else v
    a1, g1, r1 = play["actions"], play["games"], val(play)
    a2, g2, r2 = life["actions"], life["games"], val(life)
    det = a1 * g2 - a2 * g1
    if det == 0 or g2 == 0:
        return (float("nan"), float("nan"))
    per_action = (r1 * g2 - r2 * g1) / det
    per_game = (r2 - per_action * a2) / g2
    return per_action, per_game


def main():
    runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    by = {r["label"]: r for r in runs}
    out = {"runs": runs, "costs": {}}
    print("== unit costs (per action / per game's life), by node count, room affinity")
    print(f'{"nodes":>5}  {"node CPU µs/action":>18}  {"node CPU ms/game":>16}  {"Redis calls/action":>18}  '
          f'{"Redis calls/game":>16}  {"Redis bytes/action":>18}  {"Redis bytes/game":>16}  {"actions/node core-s":>19}')
    for n in (1, 2, 3):
        play, life = by.get(f"play-{n}"), by.get(f"life-{n}")
        if not play or not life:
            continue
        cpu_a, cpu_g = split(play, life, "node_cpu_s")
        ops_a, ops_g = split(play, life, "redis_calls")
        byt_a, byt_g = split(play, life, "redis_bytes")
        rcpu_a, rcpu_g = split(play, life, "redis_cpu_s")
        whole = play["actions"] / play["node_cpu_s"] if play["node_cpu_s"] else float("nan")
        out["costs"][n] = {
            "node_cpu_s_per_action": cpu_a, "node_cpu_s_per_game": cpu_g,
            "redis_calls_per_action": ops_a, "redis_calls_per_game": ops_g,
            "redis_bytes_per_action": byt_a, "redis_bytes_per_game": byt_g,
            "redis_cpu_s_per_action": rcpu_a, "redis_cpu_s_per_game": rcpu_g,
            "actions_per_node_core_s": whole,
        }
        print(f"{n:>5}  {cpu_a * 1e6:>18.1f}  {cpu_g * 1e3:>16.2f}  {ops_a:>18.2f}  {ops_g:>16.1f}  "
              f"{byt_a:>18.0f}  {byt_g:>16.0f}  {whole:>19.0f}")
    # CPU per action of whole games (the play runs alone), as nodes are added.
    base = by.get("play-1")
    if base:
        print("\n== CPU per action of whole games as nodes are added (one Redis; goal: within ±15 % of 1 node)")
        ref = base["node_cpu_s"] / base["actions"]
        for n in (1, 2, 3):
            r = by.get(f"play-{n}")
            if r:
                per = r["node_cpu_s"] / r["actions"]
                print(f"  {n} node(s): {per * 1e6:.1f} µs per action ({(per / ref - 1) * 100:+.1f} %), "
                      f"{r['actions']} actions, p99 {r['p99_ms']:.1f} ms, errors {r['errors']}")
        routed = by.get("play-3-routed")
        if routed:
            per = routed["node_cpu_s"] / routed["actions"]
            print(f"  3 nodes, sockets of a match on different nodes (routed): {per * 1e6:.1f} µs per action "
                  f"({(per / ref - 1) * 100:+.1f} % of 1 node)")
            out["routed_node_cpu_s_per_action"] = per
    cl = by.get("cluster-play-3")
    if cl:
        calls = cl["redis_calls"]
        mean = sum(calls) / len(calls)
        spread = [(c / mean - 1) * 100 for c in calls]
        print("\n== 3-primary Redis Cluster, 3 nodes (goal: operations per shard within ±20 % of each other)")
        print(f"  calls per shard: {calls} (mean {mean:.0f}; {', '.join(f'{s:+.1f} %' for s in spread)}); "
              f"{cl['actions']} actions, {sum(calls) / max(cl['actions'], 1):.2f} calls per action")
        out["cluster_shard_calls"] = calls
    idle = by.get("idle-1")
    if idle and base:
        m = idle["matches"]
        idle_b = (idle["node_rss_kib_peak"] - idle["node_rss_kib_before"]) * 1024 / m
        act_b = (base["node_rss_kib_peak"] - base["node_rss_kib_before"]) * 1024 / base["matches"]
        rooms = max(idle["rooms_peak"], 1)
        redis_room = (idle["redis_mem_peak"] - idle["redis_mem_before"]) / rooms
        out["memory"] = {"node_bytes_per_idle_match": idle_b, "node_bytes_per_active_match": act_b,
                         "redis_bytes_per_room": redis_room}
        print("\n== memory")
        print(f"  node: {idle_b / 1024:.1f} KiB per seated idle match (its room and 2 sockets), "
              f"{act_b / 1024:.1f} KiB per active match (peak of the play run)")
        print(f"  Redis: {redis_room / 1024:.2f} KiB per loaded room ({idle['rooms_peak']} rooms)")
    # Per game the harness finished (`archived` counts each node's archiver
    # storing a game, so with several nodes a game can count more than
    # once: the store itself keeps it once).
    pg = [r for r in runs if r["mode"] in ("play", "life") and r["games"] > 0 and r["redis"] == "single"]
    if pg:
        archived = sum(r["games"] for r in pg)
        rows = sum(r["pg_rows"] for r in pg) / archived
        size = sum(r["pg_bytes"] for r in pg) / archived
        wal = sum(r["pg_wal_bytes"] for r in pg) / archived
        walrec = sum(r["pg_wal_records"] for r in pg) / archived
        syncs = sum(r["pg_wal_syncs"] for r in pg) / archived
        tables = {}
        for r in pg:
            for t, v in r["pg_rows_by_table"].items():
                tables[t] = tables.get(t, 0) + v
        out["postgres"] = {"rows_per_game": rows, "bytes_per_game": size, "wal_bytes_per_game": wal,
                           "wal_records_per_game": walrec, "wal_syncs_per_game": syncs}
        print("\n== PostgreSQL per finished game (play and life runs, guests: unrated)")
        print(f"  {rows:.2f} rows written ({', '.join(f'{t} {v / archived:.2f}' for t, v in sorted(tables.items()))}), "
              f"{size / 1024:.2f} KiB of database, {wal / 1024:.2f} KiB of WAL in {walrec:.1f} records, "
              f"{syncs:.3f} WAL syncs (one per archive batch)")
    model(out)
    json.dump(out, open(sys.argv[1].replace("-runs.jsonl", ".json"), "w"), indent=1, default=str)


def model(out):
    c = out["costs"].get(3) or out["costs"].get(1)
    mem, pg = out.get("memory"), out.get("postgres")
    if not c or not mem or not pg:
        return
    cpu_a = out.get("routed_node_cpu_s_per_action", c["node_cpu_s_per_action"])
    print(f"\n== the model (a match of {MATCH_S // 60} min, one action per {THINK_S} s per match, "
          f"{NODE_CORES}-core nodes at {NODE_UTIL:.0%}, Redis shards at {REDIS_UTIL:.0%} of a core)")
    print(f'{"matches":>9}  {"actions/s":>9}  {"games/s":>7}  {"node cores":>10}  {"nodes":>5}  {"node RAM GiB":>12}  '
          f'{"Redis ops/s":>11}  {"shards":>6}  {"Redis GiB":>9}  {"PG rows/s":>9}  {"PG WAL MB/s":>11}  {"PG GB/day":>9}')
    rows = []
    for n in SIZES:
        actions = n / THINK_S
        games = n / MATCH_S
        cores = actions * cpu_a + games * c["node_cpu_s_per_game"]
        nodes = max(2, math.ceil(cores / (NODE_CORES * NODE_UTIL)))
        ram = n * mem["node_bytes_per_active_match"] / 2**30
        ops = actions * c["redis_calls_per_action"] + games * c["redis_calls_per_game"]
        rcpu = actions * c["redis_cpu_s_per_action"] + games * c["redis_cpu_s_per_game"]
        shards = max(1, math.ceil(rcpu / REDIS_UTIL))
        rmem = n * mem["redis_bytes_per_room"] / 2**30
        pg_rows = games * pg["rows_per_game"]
        wal = games * pg["wal_bytes_per_game"] / 1e6
        day = games * 86400 * pg["bytes_per_game"] / 1e9
        rows.append(dict(matches=n, actions_per_s=actions, games_per_s=games, node_cores=cores, nodes=nodes,
                         node_ram_gib=ram, redis_ops_per_s=ops, redis_cores=rcpu, redis_shards=shards,
                         redis_gib=rmem, pg_rows_per_s=pg_rows, pg_wal_mb_per_s=wal, pg_gb_per_day=day))
        print(f"{n:>9}  {actions:>9.0f}  {games:>7.1f}  {cores:>10.1f}  {nodes:>5}  {ram:>12.1f}  "
              f"{ops:>11.0f}  {shards:>6}  {rmem:>9.2f}  {pg_rows:>9.0f}  {wal:>11.2f}  {day:>9.1f}")
    out["model"] = rows


if __name__ == "__main__":
    main()
