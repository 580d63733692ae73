# Driven by tests/gnubg_peer.rs inside GNU Backgammon's embedded Python:
#     gnubg -t -q -r -p gnubg_peer.py
# Reads (position, roll) pairs from $TABULA_PEER_IN, one per line:
#     <PositionID> <die1> <die2> <50 ints: the board tuples (not on roll, on roll)>
# and writes one JSON object per line to $TABULA_PEER_OUT:
#     {"pid": gnubg.positionid(the tuples), "decoded": the ID read back by
#      `set board` equals the tuples, "moves": [[gnubg move string,
#      Position ID of the result with the mover still on roll], ...]}
# A roll with no legal play (hint raises) gives "moves": [].
import json
import os

import gnubg

gnubg.command('set player 0 human')
gnubg.command('set player 1 human')
gnubg.command('new game')
gnubg.command('set evaluation chequerplay evaluation plies 0')


def apply(opp, me, tuples):
    opp = list(opp)
    me = list(me)
    for (f, t) in tuples:
        me[f - 1] -= 1          # 25 = bar -> index 24
        if t > 0:
            o = 24 - t          # my point t is the opponent's point 25 - t
            if opp[o] == 1:
                opp[o] = 0
                opp[24] += 1
            me[t - 1] += 1
    return gnubg.positionid((opp, me))


src = os.environ['TABULA_PEER_IN']
dst = os.environ['TABULA_PEER_OUT']
with open(src) as fin, open(dst, 'w') as fout:
    for line in fin:
        parts = line.split()
        if not parts:
            continue
        pid, d1, d2 = parts[0], int(parts[1]), int(parts[2])
        nums = [int(x) for x in parts[3:53]]
        opp, me = nums[:25], nums[25:]
        out = {'pid': gnubg.positionid((opp, me))}
        gnubg.command('set board ' + pid)
        b = gnubg.board()
        out['decoded'] = list(b[0]) == opp and list(b[1]) == me
        gnubg.command('set dice %d %d' % (d1, d2))
        moves = []
        try:
            hint = gnubg.hint(100000)['hint']
        except Exception:
            hint = []
        for h in hint:
            m = h['move']
            moves.append([m, apply(opp, me, gnubg.parsemove(m))])
        out['moves'] = moves
        fout.write(json.dumps(out) + '\n')
