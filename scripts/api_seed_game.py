"""Plays one game for scripts/test-api's fuzzer to find: a guest (by his
session token) joins a room against the computer, readies, and resigns at
once; prints the room id once the game is in the durable store (its
`GET /api/games/{room}/1` answers 200).

    python3 scripts/api_seed_game.py BASE_URL TOKEN
"""
import json
import sys
import time
import urllib.request

from websockets.sync.client import connect


def http(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None


def main(base, token):
    status, room = http("POST", f"{base}/api/rooms?token={token}",
                        {"game": "backgammon", "bot": {"level": "easy"}})
    assert status == 201, (status, room)
    rid = room["roomId"]
    ws_url = base.replace("http://", "ws://") + f"/ws?token={token}"
    with connect(ws_url) as ws:
        ws.send(json.dumps({"type": "join", "room": rid, "seq": 1}))
        ws.send(json.dumps({"type": "ready", "seq": 2}))
        deadline = time.time() + 20
        resigned = False
        while time.time() < deadline:
            msg = json.loads(ws.recv(timeout=max(0.1, deadline - time.time())))
            if msg.get("type") == "game_over":
                break
            # Once the game is on (any event after both are ready), resign.
            if not resigned and msg.get("type") == "event" \
                    and msg.get("event", {}).get("type") in ("gameStarted", "turnStarted", "diceRolled"):
                ws.send(json.dumps({"type": "resign", "seq": 3}))
                resigned = True
        else:
            sys.exit(f"room {rid}: no game_over within 20 s")
    deadline = time.time() + 20
    while time.time() < deadline:
        if http("GET", f"{base}/api/games/{rid}/1")[0] == 200:
            print(rid)
            return
        time.sleep(0.1)
    sys.exit(f"room {rid}: its game is not in the store within 20 s")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
