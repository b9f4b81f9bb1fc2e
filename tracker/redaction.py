"""What the tracker may print of a database's address: every secret in it masked, one way.

A database is named by a path or a URL, and a URL can carry secrets: its user's password
(`user:password@`, percent-encoded or not) and query parameters that hold one (`?password=`,
`sslpassword=`, `passfile=`, `sslkey=`: any parameter named for a password, key, secret or
credential), and so can a libpq `key=value` string. `shown` is how a database is named in a
message; `scrub` is what every line the tracker prints, shows or logs goes through: the command
line's output streams (`scrubbed_output`: every command's lines, the serve banner, the server's
log), the errors a player is shown (tracker.errors), the app's notifications and the crash log.

A driver's message can hold a password where no pattern finds it (the host a URL with an
unencoded `@` sent the driver is the password's tail): `remember` keeps the secrets of the
database this process was given, and `scrub` masks them, with each piece of MIN_PIECE
characters or more that a URL parser could cut them into, wherever they appear.

Standard library only, and cheap to import: the command line imports it before the first paint.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO
from urllib.parse import quote, quote_plus, unquote, unquote_plus

MASK = "***"
# A piece of a secret this long is masked wherever it appears; a shorter one only where a
# pattern finds it (in the address itself), as masking every "ab" would garble every line.
MIN_PIECE = 4
# The name of a parameter whose value is a secret: password, passfile, sslpassword, sslkey,
# oauth_client_secret, and any other named so.
_SECRET_NAME = r"[\w.-]*(?:pass|secret|key|cred)[\w.-]*"
# A value: quoted (libpq), and up to a space or the query's next parameter (in a URL, quotes
# are a value's own characters).
_VALUE = r"(?:'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?)?[^\s&#]*"
# name=value in a URL's query or a libpq string, and 'name': value in a mapping's text.
_KEY_VALUE = re.compile(rf"(?i)(?<![\w.-])({_SECRET_NAME})(\s*=\s*)({_VALUE})")
_QUOTED_KEY = re.compile(rf"(?i)(['\"])({_SECRET_NAME})\1(\s*:\s*)({_VALUE})")
# A URL's user and password in running text: the password runs to the token's last `@`.
_USERINFO = re.compile(r"(?i)(?<![\w+.-])([a-z][a-z0-9+.-]*://[^\s:/?#@]*):\S*@")
# Where URL parsers and drivers cut a secret: user and host, host and port, path, query,
# percent-escapes, libpq's quoting.
_CUTS = re.compile(r"[@:/?#&=%+\s'\"\\]")

_known: set[str] = set()


def _userinfo_passwords(rest: str) -> list[str]:
    """The passwords the readers of a URL find in it (rest: what follows `scheme://`).

    SQLAlchemy ends the password at the first `@`; a person may have meant the last one. Both
    are secrets: a URL with an unencoded `@` in its password sends the driver the rest of it as
    part of the host, the port or the query.
    """
    user, colon, after = rest.partition(":")
    if not colon or "/" in user or "@" in user or "@" not in after:
        return []
    return [after[: after.find("@")], after[: after.rfind("@")]]


def _forms(raw: str) -> set[str]:
    """A secret as it is written, as it is read (percent-decoded) and as it is written again
    (SQLAlchemy's and urllib's encodings), with the pieces a parser could cut each into."""
    read = {raw, unquote(raw), unquote_plus(raw)}
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        read.add(re.sub(r"\\(.)", r"\1", raw[1:-1]))
    forms = set(read)
    for text in read:
        forms |= {quote(text, safe=""), quote(text, safe=" +"), quote_plus(text)}
    return {piece for form in forms for piece in _pieces(form) if piece and piece != MASK}


def _pieces(form: str) -> set[str]:
    """Every stretch of form from its start, or just after a place a parser could cut it
    (_CUTS), to its end, or just before one: the tail a misread `@` sends on as the host's
    name, a port's part, a parameter's value."""
    cuts = [found.start() for found in _CUTS.finditer(form)]
    starts = [0, *(cut + 1 for cut in cuts)]
    ends = [*cuts, len(form)]
    return {form[start:end] for start in starts for end in ends if end > start}


def secrets_of(target: str) -> set[str]:
    """Every secret a database's path or URL carries, in every form it can be printed in."""
    found: set[str] = set()
    _scheme, sep, rest = target.partition("://")
    if sep:
        for password in _userinfo_passwords(rest):
            found |= _forms(password)
    for match in _KEY_VALUE.finditer(target):
        found |= _forms(match.group(3))
    return found


def remember(target: str) -> None:
    """Mask the secrets of this database (the one the process was given) in every line from
    now on, wherever they appear; those of a database given before are forgotten."""
    _known.clear()
    _known.update(secret for secret in secrets_of(target) if len(secret) >= MIN_PIECE)


def scrub(text: str) -> str:
    """text with every secret masked: the remembered ones, and any a URL's password or a
    secret parameter holds."""
    for secret in sorted(_known, key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _USERINFO.sub(rf"\1:{MASK}@", text)
    text = _KEY_VALUE.sub(rf"\1\2{MASK}", text)
    return _QUOTED_KEY.sub(rf"\1\2\1\3{MASK}", text)


def shown(target: str) -> str:
    """A database's path or URL as a message may show it: `user:***@host`, `password=***`."""
    secrets = sorted(secrets_of(target), key=len, reverse=True)
    scheme, sep, rest = target.partition("://")
    passwords = _userinfo_passwords(rest) if sep else []
    if passwords:
        user = rest.partition(":")[0]
        # The longest reading: the password as a person wrote it, to its last `@`.
        password = max(passwords, key=len)
        target = f"{scheme}://{user}:{MASK}@{rest[len(user) + 1 + len(password) + 1 :]}"
    text = scrub(target)
    for secret in secrets:
        if len(secret) >= MIN_PIECE:
            text = text.replace(secret, MASK)
    return text


class _Scrubbed:
    """A text stream that writes whole lines through scrub (a secret split between two
    writes is still found); the rest goes out at flush."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        done, newline, self._pending = self._pending.rpartition("\n")
        if newline:
            self._stream.write(scrub(done + newline))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(scrub(self._pending))
            self._pending = ""
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def scrubbed_output() -> Iterator[None]:
    """sys.stdout and sys.stderr through scrub while the block runs (every line a command
    prints, and whatever it logs or warns on them)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Scrubbed(saved[0]), _Scrubbed(saved[1])
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = saved
