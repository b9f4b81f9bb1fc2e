"""Types and small helpers shared by the service tests and their fixtures (imported as a plain
module)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest
from sqlalchemy import Engine, event
from sqlmodel import SQLModel, col, func, select

from tracker.db import SessionFactory, make_engine, migrate, session_factory, session_scope
from tracker.models import Battery, Critical, JournalEntry, Ship, Side, SubMarker
from tracker.services import campaigns, command, history, markers, rule_tables, scenarios, sealing
from tracker.services.errors import ChangedElsewhere, InvalidInput

Snapshot = dict[str, list[tuple[Any, ...]]]
RowT = TypeVar("RowT", bound=SQLModel)
ShipPartT = TypeVar("ShipPartT", Battery, Critical)


@dataclass(frozen=True)
class World:
    """One campaign with a scenario, two sides and three squadrons (two on Blue, one on Red)."""

    campaign_id: int
    scenario_id: int
    blue_id: int
    red_id: int
    alpha_id: int  # Blue
    bravo_id: int  # Blue
    raider_id: int  # Red


@dataclass
class NewEntries:
    """The journal entries a block appended; `only` insists there was exactly one."""

    entries: list[JournalEntry] = field(default_factory=list)

    @property
    def only(self) -> JournalEntry:
        assert len(self.entries) == 1, [e.summary for e in self.entries]
        return self.entries[0]

    @property
    def detail(self) -> dict[str, Any]:
        return json.loads(self.only.detail)


# `with journaled(campaign_id) as new: ...` (the fixture in conftest.py).
Journaled = Callable[[int], AbstractContextManager[NewEntries]]
# `refused(call, *keys)` (the fixture in conftest.py).
Refused = Callable[..., InvalidInput | ChangedElsewhere]


def ctrl_z(factory: SessionFactory, campaign_id: int) -> history.HistoryResult:
    """history.undo_last as the player's ctrl+z: asked first to pass over newer changes it
    cannot reverse (a passphrase set, a merge, an addition), ctrl+z again."""
    try:
        return history.undo_last(factory, campaign_id=campaign_id)
    except history.UndoSkipAsked as asked:
        return history.undo_last(factory, campaign_id=campaign_id, past_to=asked.next_id)


def attempt(call: Callable[[], object]) -> Exception | None:
    """Run call and return what it raised (None if nothing).

    Refusal tests use it so a wrong exception costs no deep traceback through SQLAlchemy's
    sources (pytest renders those slowly) and the test can still check the database after.
    """
    try:
        call()
    except Exception as exc:
        return exc
    return None


def refusals(add_one: Callable[[Any], object], rows: Iterable[Any]) -> dict[int, dict[str, str]]:
    """Each row added alone (`add_one`, in turn): what each refused one was refused for, by its
    number."""
    found: dict[int, dict[str, str]] = {}
    for number, row in enumerate(rows):
        outcome = attempt(lambda row=row: add_one(row))
        if outcome is not None:
            assert isinstance(outcome, InvalidInput), outcome
            found[number] = outcome.errors
    return found


def appended(factory: SessionFactory, call: Callable[[], T]) -> tuple[T | Exception, list[Any]]:
    """What the call returned (or raised), and the journal entries it appended, in order."""
    with session_scope(factory) as session:
        first = session.exec(select(func.max(col(JournalEntry.id)))).one() or 0
    try:
        result: T | Exception = call()
    except Exception as exc:
        result = exc
    with session_scope(factory) as session:
        new = session.exec(
            select(JournalEntry).where(col(JournalEntry.id) > first).order_by(col(JournalEntry.id))
        ).all()
    return result, list(new)


def rows_by(factory: SessionFactory, model: type[RowT], column: str) -> dict[Any, list[RowT]]:
    """Every row of `model` in order of id, by its value of `column` (the row they belong to)."""
    found: dict[Any, list[RowT]] = {}
    with session_scope(factory) as session:
        for row in session.exec(select(model).order_by(model.id)).all():  # type: ignore[attr-defined]
            found.setdefault(getattr(row, column), []).append(row)
    return found


def get_row(factory: SessionFactory, model: type[RowT], row_id: int) -> RowT:
    """The row of model with this id, which must exist."""
    with session_scope(factory) as session:
        row = session.get(model, row_id)
        assert row is not None, f"no {model.__name__} #{row_id}"
        return row


def count_rows(factory: SessionFactory, model: type[SQLModel]) -> int:
    with session_scope(factory) as session:
        return session.exec(select(func.count()).select_from(model)).one()


def rows_of_ship(factory: SessionFactory, model: type[ShipPartT], ship_id: int) -> list[ShipPartT]:
    """A ship's batteries or criticals, in the order they were added."""
    with session_scope(factory) as session:
        return list(
            session.exec(
                select(model).where(col(model.ship_id) == ship_id).order_by(col(model.id))
            ).all()
        )


def appoint(factory: SessionFactory, squadron_id: int, **values: Any) -> None:
    """command.set_commander for one squadron; the commander has no name unless values give one."""
    command.set_commander(factory, squadron_id=squadron_id, **{"name": "", **values})


def edit_campaign(
    factory: SessionFactory, campaign_id: int, name: str, **options: Any
) -> campaigns.CampaignSummary:
    """campaigns.update_campaign, with the options a test does not name at their defaults (no
    notes, 1/2400, the crew roll without the commander's modifier)."""
    defaults = {"notes": "", "model_scale": "1/2400", "crew_roll_adds_commander": False}
    return campaigns.update_campaign(
        factory, campaign_id=campaign_id, name=name, **{**defaults, **options}
    )


def save_table(
    factory: SessionFactory,
    campaign_id: int,
    rows: Iterable[tuple[int, int, str, str, int]],
    kind: str = "structural",
) -> list[int]:
    """Type rows (low, high, effect, stat, amount) into a campaign's critical table; their ids."""
    return [
        rule_tables.save_table_row(
            factory,
            campaign_id=campaign_id,
            kind=kind,
            low=low,
            high=high,
            effect=effect,
            stat=stat,
            amount=amount,
        )
        for low, high, effect, stat, amount in rows
    ]


@contextmanager
def fresh_factory(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, name: str
) -> Iterator[SessionFactory]:
    """A copy of the migrated template in a new folder, for one hypothesis example (function-scoped
    fixtures are not reset between examples)."""
    path = tmp_path_factory.mktemp(name) / "campaign.db"
    shutil.copyfile(migrated_template, path)
    engine = make_engine(str(path))
    try:
        assert migrate(engine) is None
        yield session_factory(engine)
    finally:
        engine.dispose()


# Every row deleted, children first, and every id sequence of the tracker's schema restarted.
# DELETE, not TRUNCATE: a test's tables hold a few rows, and TRUNCATE makes new files for all
# of them (about 150 ms of the server's time a test, against 15 ms).
EMPTY_PG = "; ".join(
    [f'DELETE FROM public."{table.name}"' for table in reversed(SQLModel.metadata.sorted_tables)]
    + ["SELECT setval(c.oid, 1, false) FROM pg_class c WHERE c.relkind = 'S' "
       "AND c.relnamespace = 'public'::regnamespace"]
)  # fmt: skip


def empty_pg(engine: Engine) -> None:
    """Every table emptied and every id sequence restarted: each test starts as on a new file."""
    with engine.begin() as conn:
        conn.exec_driver_sql(EMPTY_PG)


T = TypeVar("T")

# (database, name) -> what `build` returned, and the SQL that puts its rows back.
_PG_COPIES: dict[tuple[str, str], tuple[Any, str]] = {}


def pg_copy(engine: Engine, name: str, build: Callable[[SessionFactory], T]) -> T:
    """The database emptied, then holding what `build` wrote into it, as the SQLite tests get a
    copy of a file built once: built through the services the first time in a process, its
    rows and sequences kept in a schema of their own (`copy_<name>`), and put back in one
    transaction every later time. `build` returns ids only (the same on every copy)."""
    key = (engine.url.render_as_string(hide_password=False), name)
    if key in _PG_COPIES:
        value, restore = _PG_COPIES[key]
        with engine.begin() as conn:
            conn.exec_driver_sql(restore)
        return cast(T, value)
    empty_pg(engine)
    value = build(session_factory(engine))
    schema = f'"copy_{name}"'
    statements = [EMPTY_PG]
    with engine.begin() as conn:
        conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
        for table in SQLModel.metadata.sorted_tables:
            if conn.exec_driver_sql(f'SELECT 1 FROM public."{table.name}" LIMIT 1').first():
                conn.exec_driver_sql(
                    f'CREATE TABLE {schema}."{table.name}" AS SELECT * FROM public."{table.name}"'
                )
                statements.append(
                    f'INSERT INTO public."{table.name}" SELECT * FROM {schema}."{table.name}"'
                )
        sequences = conn.exec_driver_sql(
            "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' "
            "AND last_value IS NOT NULL"
        ).all()
    statements += [f"SELECT setval('public.\"{seq}\"', {last})" for seq, last in sequences]
    _PG_COPIES[key] = (value, "; ".join(statements))
    return value


def pg_copied(engine: Engine, name: str) -> Any:
    """What `build` returned for the copy `name` that pg_copy last put in this database."""
    return _PG_COPIES[(engine.url.render_as_string(hide_password=False), name)][0]


def ship_states(factory: SessionFactory) -> tuple[dict[int, dict[str, Any]], dict[int, str]]:
    """Every ship's fields (id and version aside) and every critical's status, as stored."""
    with session_scope(factory) as session:
        rows = session.exec(select(Ship)).all()
        ships = {s.id or 0: s.model_dump(exclude={"id", "version"}) for s in rows}
        crits = {c.id or 0: c.status for c in session.exec(select(Critical)).all()}
    return ships, crits


def replayed_states(factory: SessionFactory) -> tuple[dict[int, dict[str, Any]], dict[int, str]]:
    """Each ship as created, then every journal entry's row changes applied in order: what the
    journal says the ships and criticals are now (ship_states says what they are)."""
    ships: dict[int, dict[str, Any]] = {}
    crits: dict[int, str] = {}
    with session_scope(factory) as session:
        entries = session.exec(select(JournalEntry).order_by(col(JournalEntry.id))).all()
    for entry in entries:
        detail = json.loads(entry.detail)
        if entry.kind == "ship" and entry.ship_id not in ships:
            ships[entry.ship_id or 0] = dict(detail["after"])  # create_ship: the full row
        for change in detail.get("changes") or []:
            if change["table"] == "ship":
                ships[change["id"]].update(change["after"])
            elif change["table"] == "critical":
                crits[change["id"]] = change["after"]["status"]
    return ships, crits


def begin_with_all(factory: SessionFactory, world: World) -> None:
    """Begin the world's scenario with every ship of the campaign taking part."""
    ships = [ship for ship in _all_ships(factory, world.campaign_id) if not ship.sunk]
    scenarios.set_participants(
        factory, scenario_id=world.scenario_id, ship_ids=[ship.id or 0 for ship in ships]
    )
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)


def _all_ships(factory: SessionFactory, campaign_id: int) -> list[Ship]:
    with session_scope(factory) as session:
        side_ids = session.exec(select(Side.id).where(Side.campaign_id == campaign_id)).all()
        ships = session.exec(
            select(Ship).where(col(Ship.side_id).in_(side_ids)).order_by(col(Ship.id))
        ).all()
        for ship in ships:
            session.expunge(ship)
        return list(ships)


@contextmanager
def statements(engine: Engine) -> Iterator[list[str]]:
    """The SQL statements run on the engine inside the block, in order."""
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", note)


def seal_verified(
    factory: SessionFactory, seal: str, side_id: int, passphrase: str | None = None
) -> bool:
    """Whether the notes of the side's marker under this seal still match it (markers.seal_holds,
    which a revealed marker is checked by)."""
    with session_scope(factory) as session:
        marker = session.exec(
            select(SubMarker).where(SubMarker.side_id == side_id, SubMarker.seal == seal)
        ).one()
        return markers.seal_holds(session, marker, sealing.side_key(session, side_id, passphrase))
