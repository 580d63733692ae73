#!/usr/bin/env python3
"""Reproduces the constructed fixtures in tests/vectors.rs (python3 + the
`cryptography` package). Prints the HMAC fixture, the Ed25519 public key of
seed [7]*32 and the third-party fixture signed with it."""
import base64
import hashlib
import hmac
import json
from urllib.parse import quote

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

TOKEN = "123456789:TEST-tabula-bot-token"
BOT_ID = 123456789
user = json.dumps(
    {"id": 5000131393, "first_name": "Алиса", "last_name": "O'Neil & Co",
     "username": "alice_tabula", "language_code": "ru", "is_premium": True,
     "allows_write_to_pm": True, "photo_url": "https://t.me/i/userpic/320/alice.svg"},
    ensure_ascii=False, separators=(",", ":"))
fields = [("query_id", "AAHdF6IQAAAAAN0XohDhrOrc"), ("user", user),
          ("auth_date", "1700000000"), ("start_param", "room-42"),
          ("chat_type", "sender"), ("chat_instance", "-8473522709835892796")]


def encode(pairs):
    return "&".join(f"{k}={quote(v, safe='')}" for k, v in pairs)


def check_string(pairs):
    return "\n".join(f"{k}={v}" for k, v in sorted(pairs))


secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
digest = hmac.new(secret, check_string(fields).encode(), hashlib.sha256).hexdigest()
print(encode(fields + [("hash", digest)]))

key = Ed25519PrivateKey.from_private_bytes(bytes([7] * 32))
print(key.public_key().public_bytes(serialization.Encoding.Raw,
                                    serialization.PublicFormat.Raw).hex())
message = f"{BOT_ID}:WebAppData\n" + check_string(fields)
signature = base64.urlsafe_b64encode(key.sign(message.encode())).decode().rstrip("=")
print(encode(fields + [("signature", signature)]))
