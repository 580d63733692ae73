# Plays Tabula's backgammon bot against GNU Backgammon and reports the
# result and gnubg's judgement of our play. Run by `scripts/gnubg-match`
# (which builds `tabula` and sets the environment), inside gnubg's embedded
# Python: gnubg -t -q -r -p scripts/gnubg_match.py
#
# Environment: TABULA_BIN (the `tabula` binary), GAMES, LEVEL
# (easy|medium|hard), PLIES (gnubg's chequer-play plies), SEED, REPORT (a
# JSON file to write). gnubg is player 0, we are player 1; gnubg's match
# record names the sides "X" and "O", and says which name is which.
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
TABULA = os.environ["TABULA_BIN"]

bot = subprocess.Popen(
    [TABULA, "bot", "--game", "backgammon", "--level", LEVEL, "--seed", str(SEED), "--stdin"],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    text=True,
    bufsize=1,
)


def ask(pid, dice):
    bot.stdin.write("%s %d,%d\n" % (pid, dice[0], dice[1]))
    bot.stdin.flush()
    answer = bot.stdout.readline().strip()
    if answer.startswith("error:"):
        raise SystemExit("tabula bot: %s (position %s, dice %s)" % (answer, pid, dice))
    return answer


for c in [
    "set seed %d" % SEED,
    "set player 0 gnubg",
    "set player 0 chequerplay evaluation plies %d" % PLIES,
    "set player 1 human",
    "set cube use off",
    "set jacoby off",
    "set automatic roll off",
    "set automatic game off",
    "new session",
]:
    gnubg.command(c)

ours = 0
for g in range(GAMES):
    if g > 0:
        gnubg.command("new game")
    for _ in range(2000):
        pi = gnubg.posinfo()
        if pi["gamestate"] != 1:
            break
        if pi["resigned"]:
            # gnubg resigns only a game it cannot save, for the points it
            # would lose anyway: take them.
            gnubg.command("accept")
            continue
        if pi["turn"] == 0:
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
        if now["gamestate"] == 1 and now["turn"] == 1 and tuple(now["dice"]) == tuple(pi["dice"]):
            raise SystemExit("gnubg did not take our play %r (position %s, dice %s)" % (play, pid, pi["dice"]))
    else:
        raise SystemExit("game %d did not end" % g)

record = gnubg.match()
THEM = "X" if record["match-info"]["X"]["name"] == "gnubg" else "O"
US = "O" if THEM == "X" else "X"
results = [gm["info"] for gm in record["games"]]
wins = sum(1 for r in results if r.get("winner") == US)
points_ours = sum(r.get("points-won", 0) for r in results if r.get("winner") == US)
points_gnubg = sum(r.get("points-won", 0) for r in results if r.get("winner") == THEM)
n = len(results)

# 95 % bootstrap interval of our win rate.
rng = random.Random(SEED)
outcomes = [1 if r.get("winner") == US else 0 for r in results]
boots = sorted(sum(rng.choice(outcomes) for _ in outcomes) / n for _ in range(2000)) if n else [0.0]
ci = [boots[int(0.025 * (len(boots) - 1))], boots[int(0.975 * (len(boots) - 1))]]

# gnubg's judgement of every move of the session.
gnubg.command("set analysis chequerplay evaluation plies %d" % PLIES)
gnubg.command("analyse session")
stats = gnubg.match(statistics=1)["stats"]


def error_rate(name):
    """gnubg's error rate per move, in thousandths of a point (mEMG)."""
    moves = stats.get(name, {}).get("moves", {})
    unforced = moves.get("unforced-moves", 0)
    return 1000.0 * moves.get("error-skill", 0.0) / unforced if unforced else None


report = {
    "games": n,
    "level": LEVEL,
    "gnubg_plies": PLIES,
    "seed": SEED,
    "tabula_wins": wins,
    "gnubg_wins": n - wins,
    "tabula_points": points_ours,
    "gnubg_points": points_gnubg,
    "tabula_win_rate": wins / n if n else 0.0,
    "tabula_win_rate_ci95": ci,
    "tabula_error_rate_per_move": error_rate(US),
    "gnubg_error_rate_per_move": error_rate(THEM),
    "tabula_side": US,
    "stats": stats,
}
text = json.dumps(report, indent=1, default=str)
if REPORT:
    with open(REPORT, "w") as f:
        f.write(text)
print("TABULA-GNUBG-REPORT " + json.dumps({k: v for k, v in report.items() if k != "stats"}))
bot.stdin.close()
bot.wait()
