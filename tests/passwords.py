"""Database addresses that carry a password, in every form the tracker accepts one, and the test
of whether a text gives any of it away (tests/test_redaction.py, tests/test_cli_passwords.py).

A password leaks when a text holds it, or a fragment of it (as typed, or percent-encoded as a
URL carries it) with FRAGMENT characters or more beyond the URL's separators, that the same text
does not hold anyway when the password is another (the baseline): "club" in a password is no
leak in "user club", nor "000@" in "000@db.example" (three characters, and the host's @).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote, quote_plus

from hypothesis import strategies as st

FRAGMENT = 4
# What separates the parts of a URL or a libpq string: no secret in itself.
SEPARATORS = frozenset("@:/?#&=%+ '\"\\")
HOST = "db.example"
DATABASE = "norway"
# Parameters of libpq that carry a secret, given in a URL's query.
SECRET_PARAMETERS = ("password", "sslpassword", "passfile", "sslkey")
# What a password may hold: any printable character, a space, letters beyond ASCII.
PASSWORDS = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E) | st.sampled_from(" éß€"),
    min_size=8,
    max_size=24,
)
# A query value as typed can hold no separator of the query (nor a space, nor %, nor +).
TYPED_IN_QUERY = PASSWORDS.filter(lambda text: not set(text) & set("&#%+ "))


def libpq_quoted(password: str) -> str:
    return "'" + password.replace("\\", "\\\\").replace("'", "\\'") + "'"


def url_forms(
    host: str = HOST, port: int = 5432, database: str = DATABASE, user: str = "club"
) -> dict[str, Callable[[str], str]]:
    """Each way a password is written into an address, by name: password -> address."""
    base = f"postgresql+psycopg://{user}"
    where = f"{host}:{port}/{database}"
    forms: dict[str, Callable[[str], str]] = {
        "user:password@, percent-encoded": lambda pw: f"{base}:{quote(pw, safe='')}@{where}",
        "user:password@, as SQLAlchemy writes it": (
            lambda pw: f"{base}:{quote(pw, safe=' +')}@{where}"
        ),
        "user:password@, as typed": lambda pw: f"{base}:{pw}@{where}",
    }
    for name in SECRET_PARAMETERS:
        forms[f"?{name}=, encoded"] = lambda pw, name=name: (
            f"{base}@{where}?{name}={quote_plus(pw)}"
        )
    forms["?password=, as typed"] = lambda pw: f"{base}@{where}?password={pw}"
    forms["?password= after another parameter"] = lambda pw: (
        f"{base}@{where}?connect_timeout=3&password={quote(pw, safe='')}"
    )
    return forms


def libpq_form(password: str) -> str:
    """A libpq key=value string (which the tracker takes for a file's name)."""
    return f"host={HOST} dbname={DATABASE} user=club password={libpq_quoted(password)}"


def typed_password(form: str) -> st.SearchStrategy[str]:
    """The passwords a form can carry as written."""
    return TYPED_IN_QUERY if form == "?password=, as typed" else PASSWORDS


def fragments(password: str) -> set[str]:
    """Every piece of the password a reader could act on: FRAGMENT characters or more of it,
    beyond separators, as typed or as a URL carries it."""
    found = set()
    for form in {password, quote(password, safe=""), quote_plus(password),
                 quote(password, safe=" +")}:  # fmt: skip
        for start in range(len(form)):
            for end in range(start + FRAGMENT, len(form) + 1):
                piece = form[start:end]
                if sum(character not in SEPARATORS for character in piece) >= FRAGMENT:
                    found.add(piece)
    return found


def leaks(text: str, password: str, baseline: str) -> list[str]:
    """The fragments of password that text gives away (longest first)."""
    found = [piece for piece in fragments(password) if piece in text and piece not in baseline]
    return sorted(found, key=len, reverse=True)
