"""One place decides what each viewer sees (docs/RULES.md §Secrets): the declared columns, the
roster's damage, the ledger's counters and minefields, the journal, the export for the opponent,
and a reveal undone sealed again. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from service_helpers import World, ctrl_z
from sqlmodel import SQLModel, col, select

from tracker.db import SessionFactory, session_scope
from tracker.models import JournalEntry, Minefield, Ship, SubMarker, WasUnit
from tracker.models.kinds import MarkerState
from tracker.services import (
    exchange,
    history,
    hunt,
    markers,
    mines,
    roster,
    scenarios,
    sealing,
    secrets,
    sheet,
    visibility,
)
from tracker.services.errors import InvalidInput
from tracker.services.roster import UnitFields
from tracker.services.visibility import Viewer

PASS = "Doenitz44"
NOTE = "wreck of the Laconia"
SECTOR = "Q7"


@pytest.mark.parametrize("model", [SubMarker, WasUnit, Minefield, Ship, JournalEntry])
def test_every_column_of_a_secret_capable_table_is_declared_public_or_secret(
    model: type[SQLModel],
) -> None:
    table = model.__table__  # type: ignore[attr-defined]
    public = visibility.PUBLIC[table.name]
    secret = set(visibility.SECRET[table.name]) - {"sealed"} if table.name == "journalentry" \
        else set(visibility.SECRET[table.name])  # fmt: skip
    columns = {column.name for column in table.columns}
    assert not public & secret, "a column is declared both public and secret"
    assert columns - public - secret == set(), "declare each new column public or secret"


def test_a_column_declared_nowhere_is_hidden_from_the_opponent_and_the_umpire() -> None:
    for viewer in (Viewer.OPPONENT, Viewer.UMPIRE):
        seen = visibility.row_as_seen("minefield", {"status": "active", "new_column": "x"},
                                      viewer=viewer, own=False, revealed=False)  # fmt: skip
        assert seen == {"status": "active", "new_column": visibility.HIDDEN}
    owner = visibility.row_as_seen("minefield", {"new_column": "x"}, viewer=Viewer.OWNER,
                                   own=True, revealed=False)  # fmt: skip
    assert owner == {"new_column": "x"}


_TABLES = sorted(visibility.SECRET)
_ROWS = st.sampled_from(_TABLES).flatmap(lambda table: st.tuples(
    st.just(table),
    st.lists(st.tuples(
        st.dictionaries(
            st.sampled_from(sorted(visibility.PUBLIC[table] | set(visibility.SECRET[table])
                                   | {"new_column"})),
            st.one_of(st.none(), st.integers(), st.text(max_size=5)),
        ),
        st.booleans(), st.booleans(),
    ), max_size=6),
))  # fmt: skip


@given(rows=_ROWS, viewer=st.sampled_from(list(Viewer)))
def test_rows_read_at_once_are_each_column_as_shown_gives_it(
    rows: tuple[str, list[tuple[dict[str, Any], bool, bool]]], viewer: Viewer
) -> None:
    """A screen's many rows through visibility at once: every cell as `shown` decides it."""
    table, given = rows
    assert visibility.rows_as_seen(table, given, viewer=viewer) == [
        {column: visibility.shown(table, column, value, viewer=viewer, own=own, revealed=revealed)
         for column, value in row.items()}
        for row, own, revealed in given
    ]  # fmt: skip


def _sub(factory: SessionFactory, world: World, name: str = "U-47") -> int:
    return roster.save_unit(factory, side_id=world.red_id, fields=UnitFields(
        name=name, unit_type="submarine", points=10, hull_points=3))  # fmt: skip


def test_a_concealed_subs_mine_damage_shows_to_its_owner_only_until_it_is_revealed(
    factory: SessionFactory, world: World
) -> None:
    unit = _sub(factory, world)
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    markers.assign_markers(factory, unit_id=unit, real=1, sectors=["C4", "C5"], passphrase=PASS)
    mines.sow_minefield(factory, side_id=world.blue_id, laid_by="surface", sector="C4",
                        complete=True)  # fmt: skip
    hunt.mine_roll(factory, unit_id=unit, roll=2, sector="C4", passphrase=PASS)  # 2 damage

    def card(**kwargs: Any) -> roster.UnitView:
        return roster.roster(factory, side_id=world.red_id, **kwargs).units[0]

    assert (card().damage, card().crippled) == (None, None)
    owner = card(owner=True, passphrase=PASS)
    assert (owner.damage, owner.crippled) == (2, True)
    entry = history.list_entries(factory, campaign_id=world.campaign_id, kind="mine")[0]
    assert entry.dice == visibility.HIDDEN and "d6" not in entry.summary
    with session_scope(factory) as session:
        detail = session.exec(select(JournalEntry).where(JournalEntry.kind == "mine")).one().detail
    assert '"d6"' not in detail and '"damage"' not in detail and "plain:" not in detail
    owned = roster.roster(factory, side_id=world.red_id, owner=True, passphrase=PASS).markers
    real = next(marker for marker in owned if marker.real)
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)  # the hunt counts its turns
    hunt.record_search(factory, marker_id=real.id, party=hunt.SearchParty("aircraft"), roll=6)
    hunt.attack_marker(factory, marker_id=real.id, success=True, damage=0, passphrase=PASS)
    assert (card().damage, card().crippled) == (2, True)  # revealed: its damage markers show


def _minelayer(factory: SessionFactory, world: World, add_ship: Callable[..., int]) -> int:
    ship = add_ship(world.raider_id, "U-116", type_abbrev="SS")
    mines.save_counter(factory, ship_id=ship, counter_size="small", speed_rating=1,
                       torpedo_factors=4, mines_loaded=2)  # fmt: skip
    return ship


def _secret_field(factory: SessionFactory, world: World, layer: int, complete: bool = False) -> int:
    return mines.sow_minefield(
        factory, side_id=world.red_id, laid_by="submarine", sector=SECTOR, layer_ship_id=layer,
        drifting=True, secret=True, notes=NOTE, passphrase=PASS, complete=complete,
    )  # fmt: skip


def test_the_opponent_sees_no_minelayer_sowing_no_drift_and_no_way_of_laying(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    layer = _minelayer(factory, world, add_ship)
    field_id = _secret_field(factory, world, layer)
    opponent = mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.blue_id)
    counter = next(view for view in opponent.counters if view.ship_id == layer)
    assert counter.mines_hidden and counter.sowing_id is None and counter.mines_loaded == 0
    owner = mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.red_id,
                         passphrase=PASS)  # fmt: skip
    mine = next(view for view in owner.counters if view.ship_id == layer)
    assert (mine.mines_hidden, mine.sowing_id, mine.mines_loaded) == (False, field_id, 2)
    # Complete, it drifts at the end of the turn (RULES.md §Subs ¶13).
    mines.complete_minefield(factory, minefield_id=field_id, turn=1)
    mines.drift(factory, minefield_id=field_id, to_sector="Q8", d6=5, turn=1, passphrase=PASS)
    opponent = mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.blue_id)
    (field,) = opponent.minefields
    assert (field.laid_by, field.layer, field.drifting, field.drop_roll, field.path) == (
        visibility.HIDDEN,
        "",
        False,
        None,
        (),
    )
    assert mines.drifting(factory, campaign_id=world.campaign_id) == 0
    owner = mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.red_id,
                         passphrase=PASS)  # fmt: skip
    assert (owner.minefields[0].laid_by, owner.minefields[0].drifting) == ("submarine", True)
    lines = history.list_entries(factory, campaign_id=world.campaign_id, kind="minefield")
    for line in lines:
        for word in ("U-116", "submarine", "drift", SECTOR, "Q8", NOTE):
            assert word not in line.summary
        assert line.dice in ("", visibility.HIDDEN)


def _export_for_opponent(factory: SessionFactory, world: World) -> dict[str, Any]:
    return exchange.export_campaign(factory, campaign_id=world.campaign_id,
                                    viewer=Viewer.OPPONENT)  # fmt: skip


def test_an_export_for_the_opponent_leaves_every_unrevealed_secret_out(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    layer = _minelayer(factory, world, add_ship)
    field_id = _secret_field(factory, world, layer)  # no passphrase yet: sealed plain
    unit = _sub(factory, world)
    markers.assign_markers(factory, unit_id=unit, real=2, sectors=["C4", "C5"])
    mines.sow_minefield(factory, side_id=world.blue_id, laid_by="surface", sector="C4",
                        complete=True)  # fmt: skip
    hunt.mine_roll(factory, unit_id=unit, roll=1, sector="C4")
    document = _export_for_opponent(factory, world)
    tables = document["tables"]
    (field,) = [row for row in tables["minefield"] if row["secret"]]
    assert (field["layer_ship_id"], field["drifting"], field["laid_by"], field["sealed"]) == (
        None,
        False,
        visibility.HIDDEN,
        "",
    )
    assert [m["unit_id"] for m in tables["submarker"]] == [None, None]
    assert {m["secret"] for m in tables["submarker"]} == {""}
    assert [u["damage"] for u in tables["wasunit"]] == [None]
    assert next(s for s in tables["ship"] if s["name"] == "U-116")["mines_loaded"] is None
    counter = next(e for e in tables["journalentry"] if e["kind"] == "counter")
    (change,) = json.loads(counter["detail"])["changes"]
    assert change["after"]["mines_loaded"] is None and change["after"]["torpedo_factors"] == 4
    text = exchange.dumps(document)
    assert NOTE not in text and SECTOR not in text and "plain:" not in text and '"d6"' not in text
    with pytest.raises(InvalidInput, match="opponent's view of a campaign"):
        exchange.read_document(text.encode())
    mines.reveal(factory, minefield_id=field_id)
    tables = _export_for_opponent(factory, world)["tables"]
    (field,) = [row for row in tables["minefield"] if row["laid_by"] == "submarine"]
    layer_id = next(s["id"] for s in tables["ship"] if s["name"] == "U-116")
    assert (field["layer_ship_id"], field["drifting"], field["notes"]) == (layer_id, True, NOTE)


def test_a_reveal_undone_seals_the_minefield_again_under_the_passphrase(
    factory: SessionFactory, world: World, add_ship: Callable[..., int],
    stored_bytes: Callable[[], bytes],
) -> None:  # fmt: skip
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    field_id = _secret_field(factory, world, _minelayer(factory, world, add_ship))
    mines.reveal(factory, minefield_id=field_id, passphrase=PASS)
    ctrl_z(factory, world.campaign_id)
    with session_scope(factory) as session:
        field = session.get(Minefield, field_id)
        assert field is not None and field.secret and field.sealed.startswith("fernet:")
        details = [e.detail for e in session.exec(select(JournalEntry).where(
            JournalEntry.side_id == world.red_id, col(JournalEntry.kind) == "undo"))]  # fmt: skip
    assert details and all("plain:" not in detail for detail in details)
    assert b"plain:" not in stored_bytes()
    owner = mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.red_id,
                         passphrase=PASS)  # fmt: skip
    assert owner.minefields[0].notes == NOTE


def test_a_passphrase_changed_after_a_reveal_reseals_the_journal_so_an_undo_still_opens(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    field_id = _secret_field(factory, world, _minelayer(factory, world, add_ship))
    mines.reveal(factory, minefield_id=field_id)  # its before kept the plain seal
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    with session_scope(factory) as session:
        details = [e.detail for e in session.exec(select(JournalEntry).where(
            JournalEntry.side_id == world.red_id))]  # fmt: skip
    assert all("plain:" not in detail for detail in details)
    ctrl_z(factory, world.campaign_id)
    with pytest.raises(InvalidInput, match="passphrase"):
        mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.red_id)
    owner = mines.ledger(factory, campaign_id=world.campaign_id, owner_side_id=world.red_id,
                         passphrase=PASS)  # fmt: skip
    assert (owner.minefields[0].notes, owner.minefields[0].sector) == (NOTE, SECTOR)


def test_a_secret_changes_journal_entry_keeps_its_before_and_after_sealed_like_the_row(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    field_id = _secret_field(factory, world, _minelayer(factory, world, add_ship), complete=True)
    mines.drift(factory, minefield_id=field_id, to_sector="Q8", d6=4, turn=1, passphrase=PASS)
    with session_scope(factory) as session:
        entries = session.exec(select(JournalEntry).where(
                JournalEntry.kind == "minefield").order_by(col(JournalEntry.id))).all()  # fmt: skip
        details = [json.loads(entry.detail) for entry in entries]
    assert len(details) == 2
    for detail in details:
        assert detail["sealed"].startswith("fernet:") and detail["dice"] is None
    key = roster_key(factory, world.red_id)
    opened = [secrets.open_note(detail["sealed"], key) for detail in details]
    assert opened[1]["dice"] == {"d6": 4} and "Q8" in opened[1]["summary"]


def roster_key(factory: SessionFactory, side_id: int) -> bytes | None:
    with session_scope(factory) as session:
        return sealing.side_key(session, side_id, PASS)


@pytest.mark.parametrize("viewer", list(Viewer))
def test_a_squadrons_counters_read_at_once_are_each_ships_counter_as_the_viewer_sees_it(
    factory: SessionFactory, world: World, add_ship: Callable[..., int], viewer: Viewer
) -> None:
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    layer = _minelayer(factory, world, add_ship)
    _secret_field(factory, world, layer)
    plain = add_ship(world.raider_id, "Emden")
    blue = add_ship(world.alpha_id, "Ajax")
    ids = [layer, plain, blue]
    assert mines.ship_counters(factory, ship_ids=ids, viewer=viewer) == {
        ship_id: mines.counter(factory, ship_id=ship_id, viewer=viewer) for ship_id in ids
    }
    assert mines.ship_counters(factory, ship_ids=[], viewer=viewer) == {}


def test_a_record_sheet_reads_its_ships_counters_with_it_as_the_opponent_sees_them(
    factory: SessionFactory, world: World, add_ship: Callable[..., int]
) -> None:
    """The sheet is in front of both players: a minelayer's mines and secret sowing stay hidden
    on it, read in the sheet's own read."""
    sealing.set_passphrase(factory, side_id=world.red_id, passphrase=PASS)
    layer = _minelayer(factory, world, add_ship)
    _secret_field(factory, world, layer)
    add_ship(world.raider_id, "Emden")
    record = sheet.load_record_sheet(factory, squadron_id=world.raider_id)
    ids = [ship.id for ship in record.ships]
    assert layer in ids and len(ids) >= 2
    assert record.counters == mines.ship_counters(factory, ship_ids=ids, viewer=Viewer.OPPONENT)
    assert record.counters[layer].mines_hidden and record.counters[layer].mines_loaded == 0
    assert record.counters != mines.ship_counters(factory, ship_ids=ids, viewer=Viewer.OWNER)


@pytest.mark.parametrize("state", list(MarkerState))
@pytest.mark.parametrize("viewer", list(Viewer))
@pytest.mark.parametrize("real", [True, False])
def test_subs_par5_par8_a_marker_shows_others_only_what_an_attack_showed(
    state: MarkerState, viewer: Viewer, real: bool
) -> None:
    """Its owner reads every marker; anyone else reads the sub a revealed marker is, that a
    decoy removed by an attack was a decoy (never whose), and nothing of any other marker."""
    for own in (True, False):
        unit_id, shown_real = visibility.marker_as_seen(state, 7, real, viewer=viewer, own=own)
        if viewer is Viewer.OWNER and own:
            assert (unit_id, shown_real) == (7, real)
        elif state == MarkerState.REVEALED:
            assert (unit_id, shown_real) == (7, True)
        elif state == MarkerState.DECOY:
            assert (unit_id, shown_real) == (None, False)
        else:
            assert (unit_id, shown_real) == (None, None)
