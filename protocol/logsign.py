"""Signed game logs: exactly which bytes the host signs, and how anyone checks them.

A finished log ends with a signature record (docs/protocol.md, "The signature"):

    {"kind": "signature", "key": <32-byte Ed25519 public key>, "signature": <64 bytes>}

The signature is Ed25519 (RFC 8032) over `SIGNATURE_CONTEXT || SHA-256(every byte of the file
before the signature record's frame)`: the header, every event and the end record exactly as
they lie in the file, each with its 4-byte length. Nothing is re-encoded, so a checker in any
language hashes the file's first bytes and needs no msgpack encoder of its own.

The end record also carries `marks` (protocol/gamelog.py): after every 8th event, the first
16 bytes of SHA-256 of the file from its start through that event. Signed with the rest, they
let a checker whose signature fails say where the bytes first differ.

The host signs with its identity key (server/identity.py), the same key its ssh door shows;
`fingerprint` spells a key the way ssh does ("SHA256:" + unpadded base64 of the SHA-256 of
the key's ssh encoding).
"""

from __future__ import annotations

import base64
import hashlib
import struct

from .plain import Plain

SIGNATURE_CONTEXT = b"kismet-log-v1"  # 13 ASCII bytes: these bytes are a game log's, nothing else's
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64


def signed_message(log_digest: bytes) -> bytes:
    """What the host signs, given SHA-256 of the log's bytes before the signature record."""
    return SIGNATURE_CONTEXT + log_digest


def fingerprint(public_key: bytes) -> str:
    """The key as ssh shows it: SHA256:<base64 of sha256(string "ssh-ed25519", string key)>."""

    def string(data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + data

    blob = string(b"ssh-ed25519") + string(public_key)
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def signature_record(public_key: bytes, signature: bytes) -> Plain:
    return {"kind": "signature", "key": public_key, "signature": signature}


def check_signature(record: Plain, log_digest: bytes) -> str | None:
    """None if `record` is a good signature of the log whose bytes hash to `log_digest`,
    else what is wrong, in words."""
    key, signature = record.get("key"), record.get("signature")
    if not isinstance(key, bytes) or len(key) != PUBLIC_KEY_BYTES:
        return f"its key is not {PUBLIC_KEY_BYTES} bytes"
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_BYTES:
        return f"its signature is not {SIGNATURE_BYTES} bytes"
    # Imported here: a host or client that never checks a log never loads cryptography.
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, signed_message(log_digest))
    except InvalidSignature:
        return "the log's bytes are not the ones the key signed"
    except ValueError:
        return "its key is not an Ed25519 key"
    return None
