"""The fleet roster with decoy notes: a side's War at Sea units, their cards as typed, and the
fleet's points (RULES.md §Subs).

Which marker is the real submarine is the owner's secret note (services.markers places them);
the opponent view never reads it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, Side, SideSecret, SubMarker, WasUnit
from tracker.models.fields import read
from tracker.models.kinds import JournalKind, UnitType
from tracker.models.roster import MarkerRead as MarkerView
from tracker.models.roster import UnitCreate as UnitCreate  # re-exported: the unit form
from tracker.models.roster import UnitRead as UnitView
from tracker.models.roster import UnitUpdate
from tracker.rules import was
from tracker.services import acts, journal, secrets, visibility
from tracker.services.common import (
    Act,
    Rows,
    act,
    bulk_kept,
    flush_named,
    get_row,
    insert_named,
    name_refused,
    require_version,
    rows_in_one_act,
    rows_where,
    scope_names,
    side_and_campaign,
)
from tracker.services.errors import InvalidInput, RowsRefused, check
from tracker.services.fields import checked
from tracker.services.markers import state_shown
from tracker.services.sealing import side_key

ATTACK_LABELS = {
    "main": "Main guns", "secondary": "Secondary guns", "tertiary": "Tertiary guns",
    "anti_air": "Anti-air", "asw": "ASW", "torpedo": "Torpedo", "bomb": "Bomb",
}  # fmt: skip
ATTACK_ROWS = tuple(ATTACK_LABELS)
UNITS = Rows(WasUnit, JournalKind.ROSTER, taken="{side} already has a unit named")


# What the player typed for a unit card, field by field, not yet checked: UnitCreate checks
# it, and `attacks` ({row: four dice counts}) is checked here.
UnitFields = dict[str, Any]


@dataclass(frozen=True)
class Roster:
    """A side's roster: its units, its markers, and the points against the fleet budget."""

    side_id: int
    side_name: str
    campaign_id: int
    owner_view: bool
    units: tuple[UnitView, ...]
    markers: tuple[MarkerView, ...]
    points: int
    budget: int
    encrypted: bool
    turn: int | None  # the turn of the scenario in play, if one is: moves are counted by it
    owner_idle_seconds: int = 60  # the campaign's option: the owner view hides after it
    side_nation: str = ""  # the card picker opens on the cards of this nation


def parse_dice(text: str) -> list[int | None] | None:
    """`3 2 1 -` back into four dice counts; blank is no attack; ValueError saying what to type."""
    words = text.replace(",", " ").split()
    if not words or all(w == "-" for w in words):
        return None
    if len(words) != 4:
        raise ValueError("give four values for ranges 0 to 3, e.g. 3 2 1 -")
    try:
        return [None if w == "-" else int(w) for w in words]
    except ValueError:
        raise ValueError("dice counts are whole numbers or -") from None


def dice_text(dice: list[int | None]) -> str:
    """An attack row's dice as the card prints them, as parse_dice reads them: `3 2 1 -`."""
    return " ".join("-" if d is None else str(d) for d in dice)


def dice_said(dice: list[int | None] | None) -> str:
    """An attack row's dice in a change's words: "none" for no attack."""
    return dice_text(dice) if dice else "none"


def unit_fields_from(values: dict[str, Any]) -> UnitFields:
    """The form's values (a CSV row's) as the service's input; a malformed attack row names
    its field (`attack_main`)."""
    attacks: dict[str, list[int | None]] = {}
    for row in ATTACK_ROWS:
        try:
            dice = parse_dice(values.pop(f"attack_{row}", ""))
        except ValueError as exc:
            raise InvalidInput({f"attack_{row}": str(exc)}) from exc
        if dice is not None:
            attacks[row] = dice
    abilities = "\n".join(a.strip() for a in values.pop("abilities", "").split(";") if a.strip())
    return UnitFields(**values, attacks=attacks, abilities=abilities)


def attacks_json(raw: dict[str, list[int | None]] | None, errors: dict[str, str]) -> str:
    """A card's attack rows as stored (JSON), each wrong row said in `errors` by its field
    (`attack_main`), as the form and the CSV columns name it."""
    rows = raw or {}
    for key, dice in rows.items():
        if key not in ATTACK_ROWS:
            errors["attacks"] = f"{key!r} is not an attack row: use {', '.join(ATTACK_ROWS)}"
        elif len(dice) != 4 or any(d is not None and not 0 <= d <= 20 for d in dice):
            errors[f"attack_{key}"] = "four dice counts 0..20 (or - for none), ranges 0 to 3"
    return json.dumps(rows, sort_keys=True)


def _validate(fields: Mapping[str, Any]) -> UnitUpdate:
    """The card as typed, checked against its one declaration (models.roster.WasUnitBase), with
    the rules that tie its fields together: damage within the hull, decoys for submarines."""
    errors: dict[str, str] = {}
    typed = {key: value for key, value in fields.items() if key != "attacks"}
    try:
        unit = checked(UnitUpdate, typed)
    except InvalidInput as exc:
        errors, unit = dict(exc.errors), None
    attacks = attacks_json(fields.get("attacks"), errors)
    if unit is not None:
        if "damage" not in errors and unit.damage > unit.hull_points:
            errors["damage"] = f"must be 0..{unit.hull_points}, got {unit.damage}"
        if unit.extra_decoys and unit.unit_type != UnitType.SUBMARINE:
            errors["extra_decoys"] = "only a submarine has decoy markers"
    check(errors)
    assert unit is not None
    return unit.model_copy(update={"attacks": attacks})


def fleet_points(session: Session, side_id: int) -> int:
    """A side's War at Sea fleet points, its extra decoys' cost included (docs/RULES.md §Subs)."""
    # Summed by the database, not over every unit loaded: a CSV import checks it for each row.
    totals = session.exec(
        select(col(WasUnit.extra_decoys), func.count(), func.sum(WasUnit.points))
        .where(WasUnit.side_id == side_id).group_by(col(WasUnit.extra_decoys))
    ).all()  # fmt: skip
    return sum(int(points or 0) + count * was.extra_decoy_cost(decoys)
               for decoys, count, points in totals)  # fmt: skip


def _budget_refusal(campaign: Campaign, decoys: int, total: int) -> dict[str, str] | None:
    """What is wrong with a unit of `decoys` extra decoys that brings its side to `total`."""
    if decoys and not campaign.extra_decoys_allowed:
        return {"extra_decoys": "this campaign does not use the extra-decoy option"}
    if total > campaign.was_fleet_points:
        return {"points": f"the fleet would cost {total} points; the budget is "
                f"{campaign.was_fleet_points}"}  # fmt: skip
    return None


def save_unit(
    factory: SessionFactory, *, side_id: int, fields: Mapping[str, Any], unit_id: int | None = None
) -> int:
    """Add a unit to a side's roster (add_units, of one) or change one, within the fleet budget."""
    if not unit_id:
        return add_units(factory, side_id=side_id, rows=[fields])[0]
    checked_unit = _validate(fields)
    values = checked_unit.model_dump(exclude={"version"})
    with act(factory, Side, side_id) as a:
        session = a.session
        campaign = get_row(session, Campaign, a.campaign_id)
        unit = get_row(session, WasUnit, unit_id)
        if unit.side_id != side_id:
            raise InvalidInput({"name": "that unit belongs to another side"})
        require_version(unit, checked_unit.version, unit.name)
        was = unit.model_dump(include=set(values))
        for key, value in values.items():
            setattr(unit, key, value)
        flush_named(session, UNITS, unit)
        edit = journal.row_change("wasunit", unit_id, was, unit.model_dump(include=set(values)))
        # The side's points with the unit edited (flushed) within the budget. A bulk import
        # keeps the side's total (bulk_kept); an edit reads it again and keeps that.
        total = fleet_points(session, side_id)
        if refusal := _budget_refusal(campaign, unit.extra_decoys, total):
            raise InvalidInput(refusal)
        if (kept := bulk_kept(session)) is not None:
            kept[("fleet points", side_id)] = total
        changes = (edit,) if edit.after else ()  # as undo takes it back
        a.log_side(JournalKind.ROSTER, f"edited {_said(values)}", changes=changes)
        return unit_id


def _said(values: Mapping[str, Any]) -> str:
    return f"{values['name']} ({values['unit_type']}, {values['points']} pts)"


def add_units(
    factory: SessionFactory, *, side_id: int, rows: Sequence[Mapping[str, Any]]
) -> list[int]:
    """Add units to a side's roster in one act: a form's one unit, a CSV file's many. Each row is
    checked as a form's is (its card, its name, the extra-decoy option, the budget with the rows
    before it), and any refused refuses all (RowsRefused says each); their ids."""
    return rows_in_one_act(
        factory, Side, side_id, rows,
        lambda fields: _validate(fields).model_dump(exclude={"version"}), _add_units,
    )  # fmt: skip


def _add_units(
    a: Act[Side], values: dict[int, dict[str, Any]], refused: dict[int, dict[str, str]]
) -> list[int]:
    side, session = a.row, a.session
    side_id, taken = side.id or 0, UNITS.taken.format(side=side.name)
    campaign = get_row(session, Campaign, a.campaign_id)
    names, added = scope_names(session, WasUnit, side_id=side_id), set()
    kept, key = bulk_kept(session), ("fleet points", side_id)
    total = kept[key] if kept is not None and key in kept else fleet_points(session, side_id)
    for number, row in values.items():
        cost = row["points"] + was.extra_decoy_cost(row["extra_decoys"])
        if (folded := row["name"].casefold()) in names or folded in added:
            refused[number] = name_refused(taken, row["name"])
        elif refusal := _budget_refusal(campaign, row["extra_decoys"], total + cost):
            refused[number] = refusal  # a unit refused leaves the side's total as it was
        else:
            added.add(folded)
            total += cost
    if refused:
        raise RowsRefused(dict(sorted(refused.items())))
    states = [{"side_id": side_id, **row} for row in values.values()]
    ids = insert_named(session, WasUnit, states, taken=taken)
    names |= added
    if kept is not None:
        kept[key] = total
    scenario = journal.current_scenario(session, a.campaign_id)
    journal.insert_entries(session, [
        journal.Entry(campaign_id=a.campaign_id, kind=JournalKind.ROSTER, side_id=side_id,
                      summary=f"{side.name}: added {_said(row)}", scenario=scenario)
        for row in values.values()
    ])  # fmt: skip
    return ids


def delete_unit(factory: SessionFactory, *, unit_id: int) -> None:
    with act(factory, WasUnit, unit_id) as a:
        a.log_side(JournalKind.ROSTER, f"removed {a.row.name}")
        a.session.delete(a.row)


def roster(
    factory: SessionFactory, *, side_id: int, owner: bool = False, passphrase: str | None = None
) -> Roster:
    """A side's roster; the opponent view (owner=False) never opens a secret note."""
    with session_scope(factory) as session:
        side, campaign = side_and_campaign(session, side_id)
        key = side_key(session, side_id, passphrase) if owner else None
        units = rows_where(session, WasUnit, WasUnit.side_id == side_id)
        markers = rows_where(session, SubMarker, SubMarker.side_id == side_id, order=SubMarker.code)
        # Each unit's markers' states, gathered in the same pass (each unit looking through every
        # marker made a large roster's read grow with units times markers).
        views = []
        states: dict[int | None, set[str]] = {}
        viewer = visibility.Viewer.OWNER if owner else visibility.Viewer.OPPONENT
        scenario = journal.scenario_in_play(session, campaign.id or 0)
        now = (scenario.id or 0, scenario.turn) if scenario else (0, 0)  # no turn: none found
        for marker in markers:
            states.setdefault(marker.unit_id, set()).add(marker.state)
            note = secrets.open_note(marker.secret, key) if owner else None
            unit_id, real = visibility.marker_as_seen(
                marker.state, marker.unit_id, bool(note["real"]) if note else None,
                viewer=viewer, own=owner,
            )  # fmt: skip
            views.append(read(MarkerView, marker, unit_id=unit_id, real=real,
                              state=state_shown(marker, now)))  # fmt: skip
        encrypted = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
        return Roster(
            side_id=side_id, side_name=side.name, campaign_id=campaign.id or 0, owner_view=owner,
            units=tuple(_unit_view(unit, owner, states.get(unit.id, set())) for unit in units),
            markers=tuple(views),
            points=fleet_points(session, side_id), budget=campaign.was_fleet_points,
            encrypted=encrypted is not None,
            turn=scenario.turn if scenario else None,
            owner_idle_seconds=campaign.owner_idle_seconds, side_nation=side.nation,
        )  # fmt: skip


def _unit_view(unit: WasUnit, owner: bool, states: set[str]) -> UnitView:
    """A unit as the viewer may see it; `states` are its markers' states."""
    viewer = visibility.Viewer.OWNER if owner else visibility.Viewer.OPPONENT
    revealed = not visibility.concealed_unit(unit.unit_type, states, destroyed=acts.destroyed(unit))
    damage = visibility.shown("wasunit", "damage", unit.damage, viewer=viewer, own=owner,
                              revealed=revealed)  # fmt: skip
    return read(
        UnitView, unit, damage=damage,
        # Crippled: damaged down to one hull point left (a 1-point unit is never crippled).
        crippled=None if damage is None else damage > 0 and unit.hull_points - damage == 1,
        destroyed=acts.destroyed(unit),
        attacks=json.loads(unit.attacks or "{}"),
        abilities=tuple(a.strip() for a in unit.abilities.splitlines() if a.strip()),
    )  # fmt: skip
