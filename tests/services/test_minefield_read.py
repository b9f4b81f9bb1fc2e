"""A minefield's ledger line is its family's read model (models.mines.MinefieldRead), and a secret
one's line in the opponent's view holds none of its secrets in any field (docs/RULES.md §Secrets),
whatever the minefield holds. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from itertools import count

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import World

from tracker.db import SessionFactory
from tracker.models.mines import MinefieldBase, MinefieldRead
from tracker.services import mines, roster, sealing, visibility

PASS = "Doenitz44"
# Every secret text starts with letters no public value of the line holds (side names, status,
# "secret", "?"), so finding it anywhere in the line means it leaked.
MARK = "qx"
# A place of its own for each example (the examples share the campaign and its map).
PLACES = count()
TEXT = st.text(st.sampled_from("abcdefghijk 0123456789-'"), max_size=8).map(str.strip)


@st.composite
def secret_minefields(draw: st.DrawFn) -> dict[str, object]:
    """What a player may say of a secret minefield: its place (a boundary or a sector), how it
    was laid and by whom, whether it drifts and drifted, its notes, sealed or not."""
    return {
        "sector": MARK + draw(st.text(st.sampled_from("ABCDEFGHJK0123456789"), max_size=10)),
        "on_boundary": draw(st.booleans()),
        # A submarine's minefield is a surface one's with a minelayer named from the roster.
        "laid_by": (laid_by := draw(st.sampled_from(["surface", "aircraft"]))),
        "layer_name": draw(st.one_of(st.just(""), TEXT.map(lambda text: MARK + text))),
        "notes": draw(st.one_of(st.just(""), TEXT.map(lambda text: MARK + text))),
        "drifting": (drifting := draw(st.booleans())),
        "complete": (complete := draw(st.booleans()) or laid_by == "aircraft"),
        # A secured minefield stays put, and one still being sown drifts once complete.
        "drifted": drifting and complete and draw(st.booleans()),
    }


def _sow(factory: SessionFactory, world: World, said: dict[str, object], areas: int) -> int:
    """The minefield sown by Red as said, on a boundary of its own when it lies on one."""
    passphrase = said["passphrase"]
    assert passphrase is None or isinstance(passphrase, str)
    place: dict[str, object] = {"sector": said["sector"]}
    if said["on_boundary"]:
        boundary = mines.add_boundary(factory, campaign_id=world.campaign_id,
                                      area_a=f"{said['sector']}a{areas}",
                                      area_b=f"{said['sector']}b{areas}")  # fmt: skip
        place = {"boundary_id": boundary}
    common = {"side_id": world.red_id, "drifting": said["drifting"], "secret": True,
              "passphrase": passphrase, **place}  # fmt: skip
    if said["laid_by"] == "aircraft":
        mines.aerial_drop(factory, aircraft=f"{MARK} Heinkel {areas}", naval_attack=2,
                          land_attack=1, circled=True, rolls=[5], **common)  # fmt: skip
        field_id = max(view.id for view in _ledger(factory, world, owner=True, said=said))
    else:
        field_id = mines.sow_minefield(factory, laid_by=said["laid_by"],
                                       layer_name=said["layer_name"], notes=said["notes"],
                                       complete=said["complete"], **common)  # fmt: skip
    if said["drifted"]:
        mines.drift(factory, minefield_id=field_id, to_sector=f"{MARK}D{areas}", d6=4, turn=1,
                    passphrase=passphrase)  # fmt: skip
    return field_id


def _ledger(
    factory: SessionFactory, world: World, *, owner: bool, said: dict[str, object]
) -> tuple[MinefieldRead, ...]:
    passphrase = said["passphrase"] if owner else None
    assert passphrase is None or isinstance(passphrase, str)
    return mines.ledger(factory, campaign_id=world.campaign_id,
                        owner_side_id=world.red_id if owner else world.blue_id,
                        passphrase=passphrase).minefields  # fmt: skip


SETTINGS = settings(
    max_examples=examples(30), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


@pytest.mark.parametrize("passphrase", [None, PASS], ids=["plain", "passphrase"])
@SETTINGS
@given(said=secret_minefields())
def test_the_opponents_line_of_a_secret_minefield_holds_no_secret_in_any_field(
    factory: SessionFactory, world: World, passphrase: str | None, said: dict[str, object]
) -> None:
    said = {**said, "passphrase": passphrase}
    encrypted = roster.roster(factory, side_id=world.red_id).encrypted
    if passphrase is not None and not encrypted:  # once: the examples share the campaign
        sealing.set_passphrase(factory, side_id=world.red_id, passphrase=passphrase)
    field_id = _sow(factory, world, said, next(PLACES))
    owners = {view.id: view for view in _ledger(factory, world, owner=True, said=said)}
    assert not owners[field_id].hidden and owners[field_id].where != "secret"

    for view in _ledger(factory, world, owner=False, said=said):
        assert isinstance(view, MinefieldRead)
        shown = view.model_dump()
        assert MARK not in json.dumps(shown, default=str), f"a secret leaked: {shown}"
        for key, placeholder in visibility.SECRET["minefield"].items():
            if key in shown and key != "path":
                assert shown[key] == placeholder, f"{key} is the opponent's to see"
        assert (view.hidden, view.where, view.path, view.count_here) == (True, "secret", (), 0)
        # What the ledger's row says of it in the open: whose it is, its status and turns.
        assert (view.side_id, view.secret, view.version) == (
            world.red_id,
            True,
            owners[view.id].version,
        )


def test_a_ledger_line_shows_what_its_family_declares(
    factory: SessionFactory, world: World
) -> None:
    field_id = mines.sow_minefield(factory, side_id=world.blue_id, laid_by="surface",
                                   sector="K7", layer_name="Abdiel", notes="off the estuary",
                                   drifting=True, complete=True)  # fmt: skip
    mines.drift(factory, minefield_id=field_id, to_sector="K8", d6=2, turn=1)
    (view,) = mines.ledger(factory, campaign_id=world.campaign_id).minefields
    assert set(MinefieldBase.model_fields) <= set(type(view).model_fields)
    assert (view.sector, view.layer_name, view.layer, view.notes, view.laid_by) == (
        "K8",
        "Abdiel",
        "Abdiel",
        "off the estuary",
        "surface",
    )
    assert (view.drifting, view.hidden, view.where, view.count_here) == (
        True,
        False,
        "sector K8",
        1,
    )
    assert view.path == ("turn 1: sector K7 → sector K8 (roll 2)",)
