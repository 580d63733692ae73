"""Checks the socket's golden transcripts against docs/socket.schema.json
(scripts/test-api runs it): every message a connection gets is a
ServerMsg; a frame a client sends is a ClientFrame exactly when the node
takes it, i.e. when its answer is not an `error` of `bad_json`,
`unknown_type` or `bad_message` (the transcripts send a few such on
purpose: the schema must refuse them too).

    python3 scripts/check_socket_schema.py docs/socket.schema.json GOLDEN.txt...
"""
import json
import sys

from jsonschema import Draft202012Validator

REFUSED = {"bad_json", "unknown_type", "bad_message"}


def main(schema_path, transcripts):
    schema = json.load(open(schema_path))
    Draft202012Validator.check_schema(schema)
    one = {k: v for k, v in schema.items() if k != "oneOf"}
    client = Draft202012Validator({**one, "$ref": "#/$defs/ClientFrame"})
    server = Draft202012Validator({**one, "$ref": "#/$defs/ServerMsg"})
    checked, bad = 0, []
    for path in transcripts:
        lines = [l.rstrip("\n") for l in open(path)]
        for n, line in enumerate(lines):
            if line[:1] not in "<>" or not line:
                continue
            conn, text = line.split(" ", 2)[1:]
            where = f"{path}:{n + 1}"
            if line[0] == "<":
                errors = list(server.iter_errors(json.loads(text)))
                if errors:
                    bad.append(f"{where}: not a ServerMsg: {errors[0].message[:300]}")
                checked += 1
                continue
            # The node's answer to this frame: its connection's next line.
            answer = next(
                (json.loads(l.split(" ", 2)[2]) for l in lines[n + 1:] if l.startswith(f"< {conn} ")),
                {},
            )
            refused = answer.get("type") == "error" and answer.get("code") in REFUSED
            try:
                frame = json.loads(text)
            except json.JSONDecodeError:
                if not refused:
                    bad.append(f"{where}: not JSON, and the node took it")
                continue
            valid = client.is_valid(frame)
            if valid and refused:
                bad.append(f"{where}: the node refused {text}, the schema takes it")
            elif not valid and not refused:
                errors = list(client.iter_errors(frame))
                bad.append(f"{where}: the node took {text}, the schema does not: {errors[0].message[:200]}")
            checked += 1
    for b in bad:
        print(b, file=sys.stderr)
    print(f"{checked} messages of {len(transcripts)} transcripts checked, {len(bad)} do not match")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
