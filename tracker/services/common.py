"""Small helpers every service module shares."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, Unpack

from sqlalchemy import insert
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from tracker.db import SessionFactory as SessionFactory
from tracker.db import scratch_scope, session_scope
from tracker.models import Campaign, JournalEntry, Ship, Side
from tracker.models.kinds import JournalKind
from tracker.services import journal, rowlog
from tracker.services.errors import (
    MAX_INT,
    ChangedElsewhere,
    InvalidInput,
    NotFound,
    RowsRefused,
)

T = TypeVar("T")


def beyond_ids(*row_ids: int | None) -> bool:
    """Whether an id lies beyond any database integer: no row's (SQLite cannot be asked)."""
    return any(row_id is not None and not -MAX_INT <= row_id <= MAX_INT for row_id in row_ids)


def get_row(session: Session, model: type[T], row_id: int) -> T:
    """The row with that id, or NotFound naming what is missing."""
    row = None if beyond_ids(row_id) else session.get(model, row_id)
    if row is None:
        raise NotFound(f"{model.__name__.lower()} {row_id} no longer exists")
    return row


def _where(model: Any, where: tuple[Any, ...], order: Any) -> Any:
    by = order if isinstance(order, tuple) else (order,)
    return select(model).where(*where).order_by(*(by or (col(model.id),)))


def rows_where(session: Session, model: type[T], *where: Any, order: Any = ()) -> list[T]:
    """The model's rows that meet every condition of `where`, by `order` (a column or a tuple of
    them; by id when none is given)."""
    return list(session.exec(_where(model, where, order)).all())


def first_where(session: Session, model: type[T], *where: Any, order: Any = ()) -> T | None:
    found: T | None = session.exec(_where(model, where, order)).first()
    return found


def campaign_of(session: Session, row: Any) -> int:
    """The campaign a row belongs to: its own, its side's, or its ship's side's."""
    if isinstance(row, Campaign):
        return row.id or 0
    if hasattr(row, "campaign_id"):
        return int(row.campaign_id)
    if hasattr(row, "side_id"):
        return get_row(session, Side, row.side_id).campaign_id
    return campaign_of(session, get_row(session, Ship, row.ship_id))


@dataclass
class Act(Generic[T]):
    """One act of a player, in its one transaction: the row it acts on and the campaign whose
    journal says what it did."""

    session: Session
    row: T
    campaign_id: int

    def log(self, kind: JournalKind, summary: str, **said: Unpack[journal.Said]) -> JournalEntry:
        return journal.append(
            self.session, campaign_id=self.campaign_id, kind=kind, summary=summary, **said
        )

    def log_side(self, kind: JournalKind, text: str, **said: Unpack[journal.Said]) -> JournalEntry:
        """An entry of the row's side (itself, or its own), in its name (`Allies: marker moved`)."""
        row: Any = self.row
        side = row if isinstance(row, Side) else get_row(self.session, Side, row.side_id)
        said["side_id"] = side.id
        return self.log(kind, f"{side.name}: {text}", **said)

    def log_edit(
        self, was: dict[str, Any], kind: JournalKind, summary: str, **said: Unpack[journal.Said]
    ) -> bool:
        """Journal an edit of the row: the fields of `was` that now differ, before and after, as
        a row change undo reverses (beside any other `changes` the act made with it). A form
        saved unchanged writes nothing: whether anything changed."""
        row: Any = self.row
        table = str(row.__tablename__)
        change = journal.row_change(table, row.id, was, row.model_dump(include=set(was)))
        if not change.after:
            return False
        said["before"], said["after"] = change.before, change.after
        said["changes"] = (change, *said.get("changes", ()))
        self.log(kind, summary, **said)
        return True


@contextmanager
def act(
    factory: SessionFactory,
    model: type[T],
    row_id: int,
    *,
    version: int | None = None,
    check_only: bool = False,
) -> Iterator[Act[T]]:
    """Open the act's transaction on its row (NotFound if gone), at `version` (require_version);
    `check_only`: the act is done to see whether it is refused, then rolled back."""
    with (scratch_scope if check_only else session_scope)(factory) as session:
        row: Any = get_row(session, model, row_id)
        if version is not None:
            require_version(row, version, row.name if hasattr(row, "name") else row.title)
        yield Act(session, row, campaign_of(session, row))


@dataclass(frozen=True)
class Rows(Generic[T]):
    """How a player's form edits one kind of row: the journal kind and the entry's words, formatted
    with the row's fields as they were (or with `said_after`, as they are); a name `taken` in its
    side or campaign (name_refused's words, `{side}` the side's name)."""

    model: type[T]
    kind: JournalKind
    edited: str = ""
    taken: str = ""
    said_after: bool = False


def edit_row(
    a: Act[Any], rows: Rows[Any], values: Mapping[str, Any], **said: Unpack[journal.Said]
) -> bool:
    """Set the act's row's `values`, its name unique in its scope, and journal what changed
    (Act.log_edit: whether anything did)."""
    row, session = a.row, a.session
    before = row.model_dump(include=set(values))
    for key, value in values.items():
        setattr(row, key, value)
    if rows.taken:
        flush_named(session, rows, row)
    words = rows.edited.format_map(row.model_dump() if rows.said_after else before)
    return a.log_edit(before, rows.kind, words, **said)


def rows_in_one_act(
    factory: SessionFactory,
    model: type[T],
    row_id: int,
    rows: Sequence[Mapping[str, Any]],
    check: Callable[[Mapping[str, Any]], dict[str, Any]],
    add: Callable[[Act[T], dict[int, dict[str, Any]], dict[int, dict[str, str]]], list[int]],
) -> list[int]:
    """Many rows added in one act on a row: each checked (`check`), then `add` given the act, the
    checked rows and the refused ones by number, returning the ids; the act's row gone refuses
    the rows not refused yet, when some were (RowsRefused)."""
    if not rows:
        return []
    refused: dict[int, dict[str, str]] = {}
    values: dict[int, dict[str, Any]] = {}
    for number, fields in enumerate(rows):
        try:
            values[number] = check(fields)
        except InvalidInput as exc:
            refused[number] = exc.errors
    try:
        with act(factory, model, row_id) as a:
            return add(a, values, refused)
    except NotFound as exc:
        if not refused:
            raise
        said = {n: refused.get(n) or {"row": str(exc)} for n in range(len(rows))}
        raise RowsRefused(said) from exc


def side_and_campaign(session: Session, side_id: int) -> tuple[Side, Campaign]:
    side = get_row(session, Side, side_id)
    return side, get_row(session, Campaign, side.campaign_id)


# Where a bulk import keeps each scope's names, read once (see names_read_once).
KNOWN_NAMES = "tracker.known_names"


@contextmanager
def names_read_once(connection: Connection) -> Iterator[None]:
    """While many rows are added on one connection (a CSV import), each scope's names are read
    once and kept up to date. A row refused after its name was taken must call forget_names."""
    connection.info[KNOWN_NAMES] = {}
    try:
        yield
    finally:
        connection.info.pop(KNOWN_NAMES, None)


def forget_names(connection: Connection) -> None:
    """Read the names afresh at the next check (a savepoint that took one was rolled back)."""
    known = connection.info.get(KNOWN_NAMES)
    if known is not None:
        known.clear()


def bulk_kept(session: Session) -> dict[Any, Any] | None:
    """What a bulk import keeps for its whole run (names_read_once), by key; None outside one."""
    kept: dict[Any, Any] | None = session.connection().info.get(KNOWN_NAMES)
    return kept


def _known_names(session: Session, model: Any, **scope: int) -> set[str] | None:
    """The scope's names, casefolded, when a bulk import keeps them (names_read_once)."""
    known = bulk_kept(session)
    if known is None:
        return None
    key = (model.__tablename__, tuple(sorted(scope.items())))
    if key not in known:
        known[key] = _read_names(session, model, scope)
    names: set[str] = known[key]
    return names


def _named(session: Session, model: Any, scope: dict[str, int]) -> list[tuple[int, str]]:
    # Compared in Python: SQLite's lower() folds ASCII only, and Émile is ÉMILE too.
    query = select(model.id, model.name)
    for column, value in scope.items():
        query = query.where(getattr(model, column) == value)
    # No autoflush: the row being saved may already carry the clashing name.
    with session.no_autoflush:
        return list(session.exec(query).all())


def _read_names(session: Session, model: Any, scope: dict[str, int]) -> set[str]:
    return {name.casefold() for _, name in _named(session, model, scope)}


def scope_names(session: Session, model: Any, **scope: int) -> set[str]:
    """The scope's names, casefolded: the set a bulk import keeps, else read now."""
    known = _known_names(session, model, **scope)
    return known if known is not None else _read_names(session, model, scope)


def name_taken(
    session: Session, model: Any, name: str, *, exclude_id: int | None = None, **scope: int
) -> str | None:
    """The name of another row of `model` in the same scope that is this name in any case, or
    None: `Exeter` and `exeter` on one side would be two ships the finder cannot tell apart.
    """
    wanted = name.casefold()
    if exclude_id is None and (known := _known_names(session, model, **scope)) is not None:
        return name if wanted in known else None
    others = [name for row_id, name in _named(session, model, scope) if row_id != exclude_id]
    return next((other for other in others if other.casefold() == wanted), None)


def flush_named(session: Session, rows: Rows[Any], row: Any) -> None:
    """Flush a new or edited row of `rows`, refusing a name its side (a side: its campaign) has
    already; the message is built first, as a failed flush expires the session's objects."""
    with session.no_autoflush:  # the row may already carry the clashing name
        side = get_row(session, Side, row.side_id).name if "{side}" in rows.taken else ""
    key = "side_id" if hasattr(row, "side_id") else "campaign_id"
    row_id, name, scope = row.id, row.name, {key: getattr(row, key)}
    message = name_refused(rows.taken.format(side=side), name)
    if name_taken(session, rows.model, name, exclude_id=row_id, **scope):
        raise InvalidInput(message)
    try:
        session.flush()
    except IntegrityError as exc:
        raise InvalidInput(message) from exc
    if row_id is None and (known := _known_names(session, rows.model, **scope)) is not None:
        known.add(name.casefold())


def name_refused(taken: str, name: str) -> dict[str, str]:
    """A name its scope has already (`taken` says where: "this side already has a ship named")."""
    return {"name": f"{taken} {name!r}: choose another name"}


def insert_named(
    session: Session, model: Any, states: list[dict[str, Any]], *, taken: str
) -> list[int]:
    """Rows whose names their scope did not have when it was read, written by one INSERT
    RETURNING each row's name and id (unique in the scope; in no promised order): their ids, in
    the order of `states`. A name another program added since refuses them all (`taken` as
    name_refused says it)."""
    table = model.__table__
    try:
        inserted = session.connection().execute(
            insert(table).returning(table.c.name, table.c.id), states
        )
        made: dict[str, int] = {name: row_id for name, row_id in inserted}
    except IntegrityError as exc:
        raise InvalidInput({"name": f"{taken} one of these names: choose another"}) from exc
    ids = [made[state["name"]] for state in states]
    rowlog.added(session, table.name, ids, states)
    return ids


def require_version(row: Any, expected: int | None, name: str) -> None:
    """Refuse an edit made on a form that showed an older version of the row (models.versioned):
    another player's change must not be lost. `expected` None: unchecked."""
    if expected is not None and row.version != expected:
        raise ChangedElsewhere(
            f"{name} was changed by another player while your form was open: nothing was "
            "written; close the form to see their change, then edit again"
        )
