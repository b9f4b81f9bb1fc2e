"""The errors a player is shown instead of a crash: every layer may raise them, none is imported.

InvalidInput and NotFound are what services raise for input they refuse: the player typed
something the rules or the campaign refuse, and can fix it. DatabaseUnavailable and its kinds
are not the player's doing (the database stopped answering, is read-only, or another player got
there first), so they are no InvalidInput: each caller catches them on their own road. Nothing is
written when one is raised.

Their messages can quote a driver, and a driver can quote a database's address: each is
scrubbed of the database's secrets when it is made (tracker.redaction), wherever it is shown.
"""

from __future__ import annotations

from tracker.redaction import scrub


def quoted(value: object, limit: int = 40) -> str:
    """A value as a message shows what was typed: its repr, cut short past `limit` characters
    (a cell of a hostile file may hold a hundred thousand, a number as many digits)."""
    try:
        shown = repr(value)
    except ValueError:  # a whole number past Python's 4,300 digits
        return "a number of more than 4,300 digits"
    if len(shown) <= limit + 2:
        return shown
    size = len(value) if isinstance(value, str) else len(shown)
    return f"{shown[:limit]}... ({size:,} characters)"


class CannotOpen(Exception):
    """The database cannot be used at all; the message says what is wrong and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(scrub(message))


class InvalidInput(ValueError):
    """Some fields are wrong; `errors` maps each field to a message that says what to do."""

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = {field: scrub(message) for field, message in errors.items()}
        super().__init__("; ".join(f"{field}: {message}" for field, message in self.errors.items()))


class NotFound(LookupError):
    """The row asked for no longer exists (deleted elsewhere, or a stale screen)."""


class DatabaseUnavailable(Exception):
    """The change could not reach the database; it was rolled back as a whole.

    `errors` has the shape of InvalidInput's ({"database": message}), so a form that keeps the
    player's typing can show it in its error line.
    """

    def __init__(self, message: str) -> None:
        message = scrub(message)
        self.message = message
        self.errors = {"database": message}
        super().__init__(message)


class ConnectionLost(DatabaseUnavailable):
    """The database server cannot be reached (or dropped the connection mid-change)."""


class ReadOnlyDatabase(DatabaseUnavailable):
    """The database is open read-only (the umpire's view): nothing may be written."""


class ChangedElsewhere(DatabaseUnavailable):
    """Another player changed the same row since it was read: this change was not made."""
