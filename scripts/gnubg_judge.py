# Paired judgement of backgammon bots by GNU Backgammon: every bot plays
# the same fixed set of decisions, and gnubg judges each pick against the
# best play. Run by `scripts/gnubg-judge`, inside gnubg's embedded Python:
# gnubg -t -q -r -p scripts/gnubg_judge.py
#
# The decisions: positions from gnubg 0-ply self-play (dice from Python's
# generator seeded by SEED), every roll with at least two distinct plays,
# DECISIONS of them. Each play is judged by its cubeless equity for the
# mover after it (gnubg's equity of the position with the opponent on
# roll, negated; backgammons count 3): every play at 0-ply, then the best
# FILTER at 0-ply and each bot's pick again at PLIES (gnubg's move filter).
# A pick's loss is the best judged equity minus its own. gnubg 0-ply's
# own pick is judged alongside as "gnubg-0ply" (the level to beat).
#
# Environment: BOTS ("name=/path/to/tabula,name2=/path2"), DECISIONS,
# SEED, PLIES, FILTER, LEVEL, REPORT (a JSON file: every decision, every
# bot's pick and loss).
import json
import os
import random
import subprocess

import gnubg

DECISIONS = int(os.environ.get("DECISIONS", "500"))
SEED = int(os.environ.get("SEED", "1"))
PLIES = int(os.environ.get("PLIES", "2"))
FILTER = int(os.environ.get("FILTER", "5"))
LEVEL = os.environ.get("LEVEL", "hard")
SOURCE = os.environ.get("SOURCE", "selfplay")
if SOURCE not in ("selfplay", "match"):
    raise SystemExit("SOURCE must be selfplay or match, not %r" % SOURCE)
REPORT = os.environ.get("REPORT")
BOTS = [b.split("=", 1) for b in os.environ["BOTS"].split(",") if b]
TABULA = BOTS[0][1]

gnubg.command("set cube use off")
gnubg.command("new session")
CUBE = gnubg.cubeinfo()
EC0 = gnubg.evalcontext(0, 0, 1, 1, 0)
ECN = gnubg.evalcontext(0, PLIES, 1, 1, 0)

def money(path):
    """gnubg judges money-game equity (gammons counted): the bots play
    for it too (builds from before `tabula bot -o` always did)."""
    help_text = subprocess.run([path, "bot", "--help"], capture_output=True, text=True).stdout
    return ["-o", "scoring=gammons"] if "--option" in help_text else []


procs = {
    name: subprocess.Popen(
        [path, "bot", "--game", "backgammon", "--level", LEVEL, "--seed", str(SEED), "--stdin"]
        + money(path),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    for name, path in BOTS
}


def ask(name, pid, dice):
    p = procs[name]
    p.stdin.write("%s %d,%d\n" % (pid, dice[0], dice[1]))
    p.stdin.flush()
    answer = p.stdout.readline().strip()
    if answer.startswith("error:"):
        raise SystemExit("%s: %s (position %s, dice %s)" % (name, answer, pid, dice))
    return answer


def finals(pid, dice):
    out = subprocess.run([TABULA, "moves", "--game", "backgammon", "--gnubg-id", pid,
                          "--dice", "%d,%d" % dice, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["finals"]


def apply(pid, play):
    """The Position ID after `play` ("24/18 13/7*", bar, off), mover still on roll."""
    opp, me = [list(s) for s in gnubg.positionfromid(pid)]
    for step in play.split():
        a, b = step.replace("*", "").split("/")
        src = 25 if a == "bar" else int(a)
        dst = 0 if b == "off" else int(b)
        me[src - 1] -= 1
        if dst > 0:
            me[dst - 1] += 1
            if opp[24 - dst] == 1:
                opp[24 - dst] = 0
                opp[24] += 1
    return gnubg.positionid((tuple(opp), tuple(me)))


cache = {}


def equity(final, ec, key):
    """The mover's cubeless equity after a play (final: mover still on roll)."""
    k = (final, key)
    if k in cache:
        return cache[k]
    opp, me = gnubg.positionfromid(final)
    if sum(me) == 0:
        # The mover has borne off: a win, a gammon if the other side has
        # borne off none, a backgammon if it also still has a checker on
        # the bar or in the mover's home board.
        v = 1.0
        if sum(opp) == 15:
            v = 3.0 if sum(opp[18:25]) > 0 else 2.0
    else:
        v = -gnubg.evaluate((me, opp), CUBE, ec)[5]
    cache[k] = v
    return v


# The fixed decisions. SOURCE=selfplay: gnubg 0-ply self-play. SOURCE=match:
# games of the first bot against gnubg 0-ply (the bot moving on one side,
# gnubg 0-ply's best play on the other, who starts alternating game by
# game), the decisions the bot's turns: the positions a match against
# gnubg gives it, harder than gnubg's own.
rng = random.Random(SEED)
decisions = []
games = 0
while len(decisions) < DECISIONS:
    pid = "4HPwATDgc/ABMA"
    bot_on_roll = SOURCE == "match" and games % 2 == 0
    games += 1
    for _ in range(400):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        fs = finals(pid, dice)
        if not fs:
            board = gnubg.positionfromid(pid)
            pid = gnubg.positionid((board[1], board[0]))
            bot_on_roll = SOURCE == "match" and not bot_on_roll
            continue
        if len(set(fs)) > 1 and (SOURCE == "selfplay" or bot_on_roll):
            decisions.append((pid, dice, fs))
        if bot_on_roll:
            best = apply(pid, ask(BOTS[0][0], pid, dice))
        else:
            best = max(fs, key=lambda f: equity(f, EC0, 0))
        opp, me = gnubg.positionfromid(best)
        if sum(me) == 0 or len(decisions) >= DECISIONS:
            break
        pid = gnubg.positionid((me, opp))
        bot_on_roll = SOURCE == "match" and not bot_on_roll

GNUBG0 = "gnubg-0ply"
results = {name: [] for name, _ in BOTS}
results[GNUBG0] = []
rows = []
for pid, dice, fs in decisions:
    picks = {}
    for name, _ in BOTS:
        f = apply(pid, ask(name, pid, dice))
        if f not in fs:
            raise SystemExit("%s's play is not legal: %s %s -> %s" % (name, pid, dice, f))
        picks[name] = f
    top = sorted(fs, key=lambda f: -equity(f, EC0, 0))[:FILTER]
    judged = {f: equity(f, ECN, PLIES) for f in set(top) | set(picks.values())}
    best = max(judged.values())
    # gnubg 0-ply's own pick (the play these games went on with), judged
    # the same way: the level the bots are measured against.
    picks[GNUBG0] = top[0]
    row = {"position": pid, "dice": list(dice), "plays": len(fs)}
    for name, f in picks.items():
        loss = best - judged[f]
        results[name].append(loss)
        row[name] = {"final": f, "loss": loss}
    rows.append(row)


def summary(losses, best=True):
    n = len(losses)
    mean = sum(losses) / n
    boots = sorted(sum(rng.choice(losses) for _ in losses) / n for _ in range(1000))
    out = {"decisions": n, "millipoints_per_move": 1000 * mean,
           "ci95": [1000 * boots[25], 1000 * boots[974]]}
    if best:
        out["best_play"] = sum(1 for x in losses if x <= 1e-9)
    return out


report = {"decisions": len(decisions), "source": SOURCE, "seed": SEED, "plies": PLIES, "filter": FILTER,
          "bots": {name: summary(results[name]) for name in results}}
names = [name for name, _ in BOTS] + [GNUBG0]
if len(names) > 1:
    # Paired: each bot's loss minus the first's, decision by decision.
    base = results[names[0]]
    for name in names[1:]:
        d = [a - b for a, b in zip(results[name], base)]
        report["bots"][name]["minus_" + names[0]] = summary(d, best=False)
if REPORT:
    with open(REPORT, "w") as f:
        json.dump(dict(report, rows=rows), f, indent=1)
print("TABULA-GNUBG-JUDGE " + json.dumps(report))
for p in procs.values():
    p.stdin.close()
    p.wait()
