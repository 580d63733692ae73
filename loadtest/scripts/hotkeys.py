#!/usr/bin/env python3
"""Which keys a Redis's calls touch, by key pattern: reads `redis-cli
MONITOR` logs (one per server, e.g. one per Cluster shard) and prints,
for each, the calls per pattern, most first.

A pattern is the key with its prefix (the first `:`-part) dropped and
every variable part (a hash tag naming a room, a node or a player, a
number) replaced by `*`; the fixed hash tags (`{archive}`, `{show}`,
`{notices}`) stay, as they are the keys every node shares. A script's
call counts once, under its first key; the commands a script runs
inside Redis are not in MONITOR's log.

    python3 loadtest/scripts/hotkeys.py monitor-*.log
"""

import re
import shlex
import sys
from collections import Counter

FIXED = {"archive", "show", "notices"}
# Commands whose first argument is not a key.
NO_KEY = {"PING", "INFO", "CLUSTER", "CLIENT", "SCRIPT", "HELLO", "SELECT", "AUTH", "READONLY",
          "COMMAND", "MULTI", "EXEC", "WAIT", "PUBLISH", "SPUBLISH"}


def pattern(key):
    parts = key.split(":", 1)
    rest = parts[1] if len(parts) == 2 else key
    rest = re.sub(r"\{([^}]*)\}", lambda m: m.group(0) if m.group(1) in FIXED else "{*}", rest)
    return re.sub(r"\b\d+\b", "*", rest)


def key_of(args):
    cmd = args[0].upper()
    if cmd in ("EVALSHA", "EVAL", "EVALSHA_RO", "EVAL_RO", "FCALL"):
        return pattern(args[3]) if len(args) > 3 and args[2] != "0" else "(script, no key)"
    if cmd in ("PUBLISH", "SPUBLISH"):
        return cmd.lower() + " " + pattern(args[1]) if len(args) > 1 else cmd
    if cmd in NO_KEY or len(args) < 2:
        return cmd.lower()
    return pattern(args[1])


def read(path):
    calls = Counter()
    with open(path, errors="replace") as f:
        for line in f:
            # 1700000000.123456 [0 127.0.0.1:1234] "CMD" "arg" ...
            m = re.match(r"^\d+\.\d+ \[[^\]]*\] (.*)$", line.strip())
            if not m:
                continue
            try:
                args = shlex.split(m.group(1))
            except ValueError:
                continue
            if args:
                calls[(args[0].upper(), key_of(args))] += 1
    return calls


def main(paths):
    totals = []
    for path in paths:
        calls = read(path)
        total = sum(calls.values())
        totals.append(total)
        print(f"{path}: {total} calls")
        for (cmd, key), n in calls.most_common(15):
            print(f"  {n:>8}  {100 * n / max(total, 1):5.1f} %  {cmd:<10} {key}")
    if len(totals) > 1:
        mean = sum(totals) / len(totals)
        print("per server, % of the mean: " + ", ".join(f"{100 * (t - mean) / mean:+.0f}" for t in totals))


if __name__ == "__main__":
    main(sys.argv[1:])
