"""Secret notes of a side: encrypted with a key derived from its passphrase, and sealed.

The key comes from the passphrase by scrypt (a memory-hard derivation); notes are Fernet tokens
(AES with an HMAC), so reading the SQLite file reveals nothing without the passphrase. A seal is a
salted SHA-256 of an assignment, shown when it is made, so anyone can later check it was not
changed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets as random_bytes
from typing import Any

from tracker.services.errors import InvalidInput

CHECK_TEXT = b"tracker side passphrase check"
PLAIN, SEALED = "plain:", "fernet:"
MIN_PASSPHRASE = 6


def new_salt() -> str:
    return random_bytes.token_hex(16)


def derive_key(passphrase: str, salt: str) -> bytes:
    """The Fernet key for a passphrase and salt (scrypt, n=2**14, r=8, p=1)."""
    # cryptography loads on a side's first secret, not with the app (7 MiB it rarely needs).
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    kdf = Scrypt(salt=bytes.fromhex(salt), length=32, n=2**14, r=8, p=1)
    # surrogatepass: any text typed or pasted is a passphrase, even half a character.
    return base64.urlsafe_b64encode(kdf.derive(passphrase.encode("utf-8", "surrogatepass")))


def make_verifier(passphrase: str, salt: str) -> str:
    """A token that only the right passphrase decrypts: how a passphrase is checked."""
    if len(passphrase) < MIN_PASSPHRASE:
        raise InvalidInput(
            {"passphrase": f"use at least {MIN_PASSPHRASE} characters, got {len(passphrase)}"}
        )
    from cryptography.fernet import Fernet

    return Fernet(derive_key(passphrase, salt)).encrypt(CHECK_TEXT).decode()


def check_passphrase(passphrase: str, salt: str, verifier: str) -> bytes:
    """The key, if the passphrase is right; InvalidInput (nothing revealed) if not."""
    from cryptography.fernet import Fernet, InvalidToken

    key = derive_key(passphrase, salt)
    try:
        if Fernet(key).decrypt(verifier.encode()) == CHECK_TEXT:
            return key
    except InvalidToken:
        pass
    raise InvalidInput({"passphrase": "wrong passphrase: the notes stay hidden"})


def seal_note(note: dict[str, Any], key: bytes | None) -> str:
    """A note as stored: encrypted when the side has a key, else plain JSON."""
    text = json.dumps(note, sort_keys=True)
    if key is None:
        return PLAIN + text
    from cryptography.fernet import Fernet

    return SEALED + Fernet(key).encrypt(text.encode()).decode()


def open_note(stored: str, key: bytes | None) -> dict[str, Any]:
    """A stored note read back; an encrypted one needs the side's key."""
    if stored.startswith(PLAIN):
        note: dict[str, Any] = json.loads(stored[len(PLAIN) :])
        return note
    if key is None:
        raise InvalidInput({"passphrase": "these notes are encrypted: give the side's passphrase"})
    from cryptography.fernet import Fernet, InvalidToken

    try:
        opened: dict[str, Any] = json.loads(Fernet(key).decrypt(stored[len(SEALED) :].encode()))
    except InvalidToken as exc:
        raise InvalidInput({"passphrase": "wrong passphrase: the notes stay hidden"}) from exc
    return opened


def seal_of(assignment: dict[str, bool], salt: str) -> str:
    """The public seal of which marker is real: a salted SHA-256, short enough to read out."""
    canonical = ";".join(f"{code}={'real' if real else 'decoy'}" for code, real in
                         sorted(assignment.items()))  # fmt: skip
    digest = hashlib.sha256(f"{salt}|{canonical}".encode()).hexdigest()
    return digest[:16]
