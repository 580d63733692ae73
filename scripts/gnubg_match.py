# Plays Tabula's backgammon bot against GNU Backgammon and reports the
# result and gnubg's judgement of our play. Run by `scripts/gnubg-match`
# (which builds `tabula` and sets the environment), inside gnubg's embedded
# Python: gnubg -t -q -r -p scripts/gnubg_match.py
#
# Environment: TABULA_BIN (the `tabula` binary), GAMES, LEVEL
# (easy|medium|hard, or gnubg-N: gnubg itself at N plies in our seat, to
# calibrate the bar: how much a deeper gnubg wins against PLIES), PLIES
# (gnubg's chequer-play plies), SEED, PAIRED (1: the games in pairs on the
# same dice with the seats swapped, as the arena plays them), SCORING
# (gammons: one money session, gammons and backgammons counted, both sides
# playing for them; single: every game a 1-point match, where gnubg plays
# only to win, as our bot does with `-o scoring=single`), REPORT (a JSON
# file to write). gnubg is player 0, we are player 1 (paired: player 0 in
# the second game of each pair); gnubg's match record names the sides "X"
# (player 0) and "O" (player 1).
import json
import math
import os
import random
import subprocess

import gnubg

GAMES = int(os.environ.get("GAMES", "10"))
LEVEL = os.environ.get("LEVEL", "hard")
PLIES = int(os.environ.get("PLIES", "0"))
SEED = int(os.environ.get("SEED", "1"))
REPORT = os.environ.get("REPORT")
SCORING = os.environ.get("SCORING", "gammons")
PAIRED = os.environ.get("PAIRED", "0") == "1"
if SCORING not in ("gammons", "single"):
    raise SystemExit("SCORING must be gammons or single, not %r" % SCORING)
# gnubg-N: the seat is gnubg's own at N plies, and no Tabula process runs.
CHALLENGER_PLIES = int(LEVEL[len("gnubg-"):]) if LEVEL.startswith("gnubg-") else None

if CHALLENGER_PLIES is None:
    bot = subprocess.Popen(
        [os.environ["TABULA_BIN"], "bot", "--game", "backgammon", "--level", LEVEL,
         "--seed", str(SEED), "--stdin", "-o", "scoring=" + SCORING],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
else:
    bot = None


def ask(pid, dice):
    bot.stdin.write("%s %d,%d\n" % (pid, dice[0], dice[1]))
    bot.stdin.flush()
    answer = bot.stdout.readline().strip()
    if answer.startswith("error:"):
        raise SystemExit("tabula bot: %s (position %s, dice %s)" % (answer, pid, dice))
    return answer


for c in [
    "set seed %d" % SEED,
    "set cube use off",
    "set jacoby off",
    "set automatic roll off",
    "set automatic game off",
]:
    gnubg.command(c)

# The seat (gnubg's player number) of the challenger: our bot, or gnubg-N.
OURS = 1


def seat(ours):
    """Seats the challenger as player `ours` and gnubg at PLIES in the other."""
    global OURS
    OURS = ours
    them = 1 - ours
    for c in [
        "set player %d gnubg" % them,
        "set player %d chequerplay evaluation plies %d" % (them, PLIES),
    ]:
        gnubg.command(c)
    if CHALLENGER_PLIES is None:
        gnubg.command("set player %d human" % ours)
    else:
        gnubg.command("set player %d gnubg" % ours)
        gnubg.command("set player %d chequerplay evaluation plies %d" % (ours, CHALLENGER_PLIES))


seat(1)


def play_game(g):
    """Plays the game gnubg has started to its end."""
    for _ in range(2000):
        pi = gnubg.posinfo()
        if pi["gamestate"] != 1:
            break
        if pi["resigned"]:
            # gnubg resigns only a game it cannot save, for the points it
            # would lose anyway: take them.
            gnubg.command("accept")
            continue
        if pi["turn"] != OURS or bot is None:
            gnubg.command("play")
            continue
        if tuple(pi["dice"]) == (0, 0):
            gnubg.command("roll")
            continue
        pid = gnubg.positionid(gnubg.board())
        play = ask(pid, pi["dice"])
        gnubg.command("move " + play if play else "move")
        # Taken: the turn passed (or the game ended). Refused: still our
        # turn with the same dice. (Comparing positions is no test: after
        # gnubg's reply the position can be exactly the one we moved from.)
        now = gnubg.posinfo()
        if now["gamestate"] == 1 and now["turn"] == OURS and tuple(now["dice"]) == tuple(pi["dice"]):
            raise SystemExit("gnubg did not take our play %r (position %s, dice %s)" % (play, pid, pi["dice"]))
    else:
        raise SystemExit("game %d did not end" % g)


def sides():
    """(gnubg's side, ours) in the match record of the game just played:
    player 0 is "X", player 1 "O"."""
    return ("O", "X") if OURS == 0 else ("X", "O")


# Each game's result (whether we won, the points) and gnubg's judgement
# of every move, at the plies gnubg played, summed over the games.
gnubg.command("set analysis chequerplay evaluation plies %d" % PLIES)
results = []
totals = {who: {"error-skill": 0.0, "unforced-moves": 0} for who in ("gnubg", "us")}


def judged(record, stats):
    """Adds a record's games and its analysis to the results and totals."""
    them, us = sides()
    for gm in record["games"]:
        info = gm["info"]
        # A 1-point match is won by one point, whatever gnubg records of
        # a gammon in it.
        points = 1 if SCORING == "single" else info.get("points-won", 0)
        results.append((info.get("winner") == us, points))
    for who, side in (("gnubg", them), ("us", us)):
        for k in totals[who]:
            totals[who][k] += stats.get(side, {}).get("moves", {}).get(k, 0)
    return us


if PAIRED:
    # Game 2k and 2k+1 roll the same dice (gnubg's are its seed's), the
    # challenger in seat 1 and then in seat 0. Each game is its own
    # session or 1-point match, analysed alone, so each record's sides
    # are the seats of its one game.
    stats = {}
    for g in range(GAMES):
        k, second = divmod(g, 2)
        seat(0 if second else 1)
        gnubg.command("set seed %d" % (SEED * 100003 + k))
        gnubg.command("new session" if SCORING == "gammons" else "new match 1")
        play_game(g)
        if bot is not None:
            gnubg.command("analyse session" if SCORING == "gammons" else "analyse match")
        US = judged(gnubg.match(), gnubg.match(statistics=1)["stats"])
elif SCORING == "gammons":
    gnubg.command("new session")
    for g in range(GAMES):
        if g > 0:
            gnubg.command("new game")
        play_game(g)
    if bot is not None:
        gnubg.command("analyse session")
    stats = gnubg.match(statistics=1)["stats"]
    US = judged(gnubg.match(), stats)
else:
    stats = {}  # per match only: the totals hold the sums
    for g in range(GAMES):
        gnubg.command("new match 1")
        play_game(g)
        if bot is not None:
            gnubg.command("analyse match")
        US = judged(gnubg.match(), gnubg.match(statistics=1)["stats"])
n = len(results)
wins = sum(1 for won, _ in results if won)
points_ours = sum(p for won, p in results if won)
points_gnubg = sum(p for won, p in results if not won)

# 95 % bootstrap interval of our win rate: over the games, or, paired,
# over the pairs (the two games of a pair share their dice).
rng = random.Random(SEED)
outcomes = [1 if won else 0 for won, _ in results]
units = [sum(outcomes[i:i + 2]) for i in range(0, n, 2)] if PAIRED else outcomes
boots = sorted(sum(rng.choice(units) for _ in units) / n for _ in range(2000)) if n else [0.0]
ci = [boots[int(0.025 * (len(boots) - 1))], boots[int(0.975 * (len(boots) - 1))]]


def error_rate(who):
    """gnubg's error rate per move, in thousandths of a point (mEMG); none
    when gnubg played both seats (nothing was analysed)."""
    if bot is None:
        return None
    unforced = totals[who]["unforced-moves"]
    return 1000.0 * totals[who]["error-skill"] / unforced if unforced else None


report = {
    "games": n,
    "level": LEVEL,
    "gnubg_plies": PLIES,
    "seed": SEED,
    "scoring": SCORING,
    "paired": PAIRED,
    "tabula_wins": wins,
    "gnubg_wins": n - wins,
    "tabula_points": points_ours,
    "gnubg_points": points_gnubg,
    "tabula_win_rate": wins / n if n else 0.0,
    "tabula_win_rate_ci95": ci,
    "tabula_error_rate_per_move": error_rate("us"),
    "gnubg_error_rate_per_move": error_rate("gnubg"),
    # Our side in gnubg's records ("X" is player 0); paired, both in turn.
    "tabula_side": None if PAIRED else US,
    "stats": stats,
    # Each game in order: [whether the challenger won it, the points it
    # was worth] (paired: games 2k and 2k+1 share their dice), to pool runs.
    "outcomes": [[won, p] for won, p in results],
}
text = json.dumps(report, indent=1, default=str)
if REPORT:
    with open(REPORT, "w") as f:
        f.write(text)
print("TABULA-GNUBG-REPORT " + json.dumps({k: v for k, v in report.items() if k not in ("stats", "outcomes")}))
if bot is not None:
    bot.stdin.close()
    bot.wait()
