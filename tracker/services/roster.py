"""The fleet roster with decoy notes: War at Sea units and submarine markers (seed 004, DOMAIN 3).

Which marker is the real submarine is the owner's secret note. The opponent view never reads it;
with a passphrase set it is stored encrypted, and every assignment carries a public seal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, checkpoint, session_scope
from tracker.models import Campaign, Side, SideSecret, SubMarker, WasUnit
from tracker.models.roster import UNIT_TYPES  # re-exported: screens offer it as a pick list
from tracker.rules import was
from tracker.services import journal, sealing, secrets, visibility
from tracker.services.common import beyond_ids, flush_unique, get_row
from tracker.services.errors import (
    MAX_INT,
    InvalidInput,
    bad_character,
    check,
    require_plain,
    require_range,
    require_text,
)

ATTACK_LABELS = {
    "main": "Main guns", "secondary": "Secondary guns", "tertiary": "Tertiary guns",
    "anti_air": "Anti-air", "asw": "ASW", "torpedo": "Torpedo", "bomb": "Bomb",
}  # fmt: skip
ATTACK_ROWS = tuple(ATTACK_LABELS)


@dataclass(frozen=True)
class UnitFields:
    """A War at Sea unit card as the player types it."""

    name: str
    unit_type: str
    nation: str = ""
    points: int = 0
    year: int | None = None
    speed: str = ""
    armor: int = 1
    vital_armor: int = 1
    hull_points: int = 1
    damage: int = 0
    attacks: dict[str, list[int | None]] | None = None
    abilities: str = ""
    extra_decoys: int = 0
    notes: str = ""


@dataclass(frozen=True)
class MarkerView:
    """A marker as a screen shows it; `real` is None in the opponent view."""

    id: int
    code: str
    unit_id: int | None  # None in the opponent view: the marker is generic
    sector: str
    state: str
    real: bool | None
    seal: str


@dataclass(frozen=True)
class UnitView:
    id: int
    name: str
    unit_type: str
    nation: str
    points: int
    year: int | None
    speed: str
    armor: int
    vital_armor: int
    hull_points: int
    damage: int | None  # None: a concealed submarine's damage, in the opponent view
    crippled: bool | None
    attacks: dict[str, list[int | None]]
    abilities: tuple[str, ...]
    extra_decoys: int
    notes: str


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


@dataclass(frozen=True)
class Assignment:
    """Markers just assigned: their codes, which one is real, and the public seal."""

    codes: tuple[str, ...]
    real_code: str
    seal: str


def parse_dice(text: str) -> list[int | None] | None:
    """`3 2 1 -` back into four dice counts; blank is no attack; ValueError when malformed."""
    words = text.replace(",", " ").split()
    if not words or all(w == "-" for w in words):
        return None
    if len(words) != 4:
        raise ValueError("give four values for ranges 0 to 3, e.g. 3 2 1 -")
    return [None if w == "-" else int(w) for w in words]


def unit_fields_from(values: dict[str, Any]) -> UnitFields:
    """The form's values as the service's input; a malformed attack row names its field."""
    attacks: dict[str, list[int | None]] = {}
    for row in ATTACK_LABELS:
        text = values.pop(f"attack_{row}")
        try:
            dice = parse_dice(text)
        except ValueError as exc:
            raise InvalidInput({f"attack_{row}": str(exc) if "four" in str(exc) else
                                "dice counts are whole numbers or -"}) from exc  # fmt: skip
        if dice is not None:
            attacks[row] = dice
    abilities = "\n".join(a.strip() for a in values.pop("abilities").split(";") if a.strip())
    return UnitFields(**values, attacks=attacks, abilities=abilities)


def _attacks(raw: dict[str, list[int | None]] | None, errors: dict[str, str]) -> str:
    rows = raw or {}
    for key, dice in rows.items():
        if key not in ATTACK_ROWS:
            errors["attacks"] = f"{key!r} is not an attack row: use {', '.join(ATTACK_ROWS)}"
        elif len(dice) != 4 or any(d is not None and not 0 <= d <= 20 for d in dice):
            errors["attacks"] = f"{key}: four dice counts 0..20 (or - for none), ranges 0 to 3"
    return json.dumps(rows, sort_keys=True)


def _validate(fields: UnitFields) -> dict[str, Any]:
    errors: dict[str, str] = {}
    values: dict[str, Any] = {"name": require_text(errors, "name", fields.name, 60)}
    if fields.unit_type not in UNIT_TYPES:
        errors["unit_type"] = f"must be one of {', '.join(UNIT_TYPES)}"
    for key, low, high in (
        ("points", 0, 999),
        ("armor", 0, 30),
        ("vital_armor", 0, 30),
        ("hull_points", 1, 20),
        ("extra_decoys", 0, was.MAX_EXTRA_DECOYS),
    ):
        require_range(errors, key, getattr(fields, key), low, high)  # fmt: skip
        values[key] = getattr(fields, key)
    require_range(errors, "damage", fields.damage, 0, fields.hull_points)
    if fields.year is not None:
        require_range(errors, "year", fields.year, 1900, 1950)
    if fields.extra_decoys and fields.unit_type != "submarine":
        errors["extra_decoys"] = "only a submarine has decoy markers"
    for key, limit in (("nation", 40), ("speed", 4), ("abilities", 2000), ("notes", 2000)):
        text = getattr(fields, key).strip()
        if len(text) > limit:
            errors[key] = f"must be at most {limit} characters"
        require_plain(errors, key, text)
        values[key] = text
    values.update(unit_type=fields.unit_type, year=fields.year, damage=fields.damage,
                  attacks=_attacks(fields.attacks, errors))  # fmt: skip
    check(errors)
    return values


def _campaign_of_side(session: Session, side_id: int) -> tuple[Side, Campaign]:
    side = get_row(session, Side, side_id)
    return side, get_row(session, Campaign, side.campaign_id)


def _points(session: Session, side_id: int) -> int:
    units = session.exec(select(WasUnit).where(WasUnit.side_id == side_id)).all()
    return sum(u.points + was.extra_decoy_cost(u.extra_decoys) for u in units)


def _check_budget(session: Session, side_id: int, campaign: Campaign, unit: WasUnit) -> None:
    if unit.extra_decoys and not campaign.extra_decoys_allowed:
        raise InvalidInput({"extra_decoys": "this campaign does not use the extra-decoy option"})
    total = _points(session, side_id)
    if total > campaign.was_fleet_points:
        raise InvalidInput(
            {"points": f"the fleet would cost {total} points; the budget is "
             f"{campaign.was_fleet_points}"}
        )  # fmt: skip


def save_unit(
    factory: SessionFactory, *, side_id: int, fields: UnitFields, unit_id: int | None = None
) -> int:
    """Add a unit to a side's roster, or change one; the fleet budget is checked (decoys too)."""
    values = _validate(fields)
    with session_scope(factory) as session:
        side, campaign = _campaign_of_side(session, side_id)
        unit = get_row(session, WasUnit, unit_id) if unit_id else WasUnit(side_id=side_id, **values)
        if unit.side_id != side_id:
            raise InvalidInput({"name": "that unit belongs to another side"})
        for key, value in values.items():
            setattr(unit, key, value)
        session.add(unit)
        flush_unique(
            session, WasUnit, values["name"], taken=f"{side.name} already has a unit named",
            exclude_id=unit.id, side_id=side_id,
        )  # fmt: skip
        _check_budget(session, side_id, campaign, unit)
        journal.append(
            session, campaign_id=campaign.id or 0, kind="roster", side_id=side_id,
            summary=f"{side.name}: {'edited' if unit_id else 'added'} {values['name']} "
            f"({values['unit_type']}, {values['points']} pts)",
        )  # fmt: skip
        assert unit.id is not None
        return unit.id


def delete_unit(factory: SessionFactory, *, unit_id: int) -> None:
    """Remove a unit and its markers from the roster."""
    with session_scope(factory) as session:
        unit = get_row(session, WasUnit, unit_id)
        side, campaign = _campaign_of_side(session, unit.side_id)
        journal.append(
            session, campaign_id=campaign.id or 0, kind="roster", side_id=side.id,
            summary=f"{side.name}: removed {unit.name}",
        )  # fmt: skip
        session.delete(unit)


def side_key(session: Session, side_id: int, passphrase: str | None) -> bytes | None:
    """The side's key when it has a passphrase (which must be given and right), else None."""
    if beyond_ids(side_id):
        return None  # no such side
    secret = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
    if secret is None:
        return None
    if not passphrase:
        raise InvalidInput({"passphrase": "this side's notes are locked: give its passphrase"})
    return secrets.check_passphrase(passphrase, secret.salt, secret.verifier)


def set_passphrase(
    factory: SessionFactory, *, side_id: int, passphrase: str, old_passphrase: str | None = None
) -> sealing.Sealed:
    """Set or change a side's passphrase; every secret of the side is sealed again under it, in
    the campaign file and in its backups (docs/RULES.md §Secrets)."""
    with session_scope(factory) as session:
        side, campaign = _campaign_of_side(session, side_id)
        old_key = side_key(session, side_id, old_passphrase)
        salt = secrets.new_salt()
        verifier = secrets.make_verifier(passphrase, salt)
        sealing.reseal_side(session, side_id, old_key, secrets.derive_key(passphrase, salt))
        row = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
        row = row or SideSecret(side_id=side_id, salt=salt, verifier=verifier)
        row.salt, row.verifier = salt, verifier
        session.add(row)
        journal.append(
            session, campaign_id=campaign.id or 0, kind="secret", side_id=side_id,
            summary=f"{side.name}: passphrase {'changed' if old_key else 'set'}; notes encrypted",
        )  # fmt: skip
    # The plain notes' old pages must not linger in the WAL beside the file.
    folded = checkpoint(factory)
    plain = sealing.reseal_backups(factory, side_id=side_id, passphrase=passphrase,
                                   old_passphrase=old_passphrase)  # fmt: skip
    return sealing.Sealed(plain_backups=plain, checkpointed=folded)


def _next_codes(session: Session, side_id: int, count: int) -> list[str]:
    used = session.exec(select(func.count()).select_from(SubMarker).where(
        SubMarker.side_id == side_id)).one()  # fmt: skip
    return [f"M-{used + index + 1:02d}" for index in range(count)]


def assign_markers(
    factory: SessionFactory,
    *,
    unit_id: int,
    real: int,
    sector: str = "",
    turn: int | None = None,
    passphrase: str | None = None,
) -> Assignment:
    """Give a submarine its markers (2, plus its extra decoys); `real` is the real one, 1-based."""
    sector = _checked_sector(sector, turn, blank=True)
    with session_scope(factory) as session:
        unit = get_row(session, WasUnit, unit_id)
        side, campaign = _campaign_of_side(session, unit.side_id)
        if unit.unit_type != "submarine":
            raise InvalidInput({"unit": f"{unit.name} is not a submarine"})
        live = session.exec(select(SubMarker).where(
            SubMarker.unit_id == unit_id, SubMarker.state != "removed")).first()  # fmt: skip
        if live is not None:
            raise InvalidInput({"unit": f"{unit.name} already has markers on the map"})
        count = was.MARKERS_PER_SUB + unit.extra_decoys
        if not 1 <= real <= count:
            raise InvalidInput({"real": f"choose which of the {count} markers is real: 1..{count}"})
        return _place(session, side, campaign, unit, real, count, sector, turn, passphrase)


def _place(
    session: Session, side: Side, campaign: Campaign, unit: WasUnit, real: int, count: int,
    sector: str, turn: int | None, passphrase: str | None,
) -> Assignment:  # fmt: skip
    key = side_key(session, side.id or 0, passphrase)
    codes = _next_codes(session, side.id or 0, count)
    salt = secrets.new_salt()
    assignment = {code: index == real for index, code in enumerate(codes, start=1)}
    seal = secrets.seal_of(assignment, salt)
    for code, is_real in assignment.items():
        note = {"unit": unit.id, "real": is_real, "salt": salt}
        marker = SubMarker(
            side_id=side.id or 0, unit_id=unit.id or 0, code=code, sector=sector,
            created_turn=turn, secret=secrets.seal_note(note, key), seal=seal,
        )  # fmt: skip
        session.add(marker)
    session.flush()
    journal.append(
        session, campaign_id=campaign.id or 0, kind="marker", side_id=side.id,
        summary=f"{side.name}: markers {', '.join(codes)} placed in {sector or '?'} "
        f"(seal {seal})",
    )  # fmt: skip
    return Assignment(codes=tuple(codes), real_code=codes[real - 1], seal=seal)


def roster(
    factory: SessionFactory, *, side_id: int, owner: bool = False, passphrase: str | None = None
) -> Roster:
    """A side's roster; the opponent view (owner=False) never opens a secret note."""
    with session_scope(factory) as session:
        side, campaign = _campaign_of_side(session, side_id)
        key = side_key(session, side_id, passphrase) if owner else None
        units = session.exec(
            select(WasUnit).where(WasUnit.side_id == side_id).order_by(col(WasUnit.id))
        ).all()
        markers = session.exec(
            select(SubMarker).where(SubMarker.side_id == side_id).order_by(col(SubMarker.code))
        ).all()
        views = []
        for marker in markers:
            note = secrets.open_note(marker.secret, key) if owner else None
            views.append(
                MarkerView(
                    id=marker.id or 0, code=marker.code,
                    unit_id=marker.unit_id if owner or marker.state == "revealed" else None,
                    sector=marker.sector, state=marker.state,
                    real=bool(note["real"]) if note else None, seal=marker.seal,
                )
            )  # fmt: skip
        encrypted = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
        scenario = journal.current_scenario(session, campaign.id or 0)
        return Roster(
            side_id=side_id, side_name=side.name, campaign_id=campaign.id or 0, owner_view=owner,
            units=tuple(_unit_view(unit, owner, markers) for unit in units),
            markers=tuple(views),
            points=_points(session, side_id), budget=campaign.was_fleet_points,
            encrypted=encrypted is not None,
            turn=scenario.turn if scenario and scenario.status == "in_play" else None,
        )  # fmt: skip


def _unit_view(unit: WasUnit, owner: bool, markers: Sequence[SubMarker]) -> UnitView:
    states = {marker.state for marker in markers if marker.unit_id == unit.id}
    viewer = visibility.Viewer.OWNER if owner else visibility.Viewer.OPPONENT
    revealed = not visibility.concealed_unit(unit.unit_type, states)
    damage = visibility.shown("wasunit", "damage", unit.damage, viewer=viewer, own=owner,
                              revealed=revealed)  # fmt: skip
    return UnitView(
        id=unit.id or 0, name=unit.name, unit_type=unit.unit_type, nation=unit.nation,
        points=unit.points, year=unit.year, speed=unit.speed, armor=unit.armor,
        vital_armor=unit.vital_armor, hull_points=unit.hull_points, damage=damage,
        # Crippled: damaged down to one hull point left (a 1-point unit is never crippled).
        crippled=None if damage is None else damage > 0 and unit.hull_points - damage == 1,
        attacks=json.loads(unit.attacks or "{}"),
        abilities=tuple(a.strip() for a in unit.abilities.splitlines() if a.strip()),
        extra_decoys=unit.extra_decoys, notes=unit.notes,
    )  # fmt: skip


def _checked_sector(sector: str, turn: int | None, *, blank: bool) -> str:
    """The sector as stored (stripped), and the turn, or InvalidInput."""
    sector = sector.strip()
    errors: dict[str, str] = {}
    if (not sector and not blank) or len(sector) > 12:
        errors["sector"] = "name the sector (at most 12 characters)"
    require_plain(errors, "sector", sector)
    _check_turn(errors, turn)
    check(errors)
    return sector


def _check_turn(errors: dict[str, str], turn: int | None) -> None:
    if turn is not None:
        require_range(errors, "turn", turn, 1, MAX_INT)


def move_marker(
    factory: SessionFactory, *, marker_id: int, sector: str, turn: int | None = None
) -> list[str]:
    """Move a marker; warnings (not refusals) when it moved already this turn or shares a sector."""
    sector = _checked_sector(sector, turn, blank=False)
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        if marker.state == "removed":
            raise InvalidInput({"sector": f"{marker.code} was removed"})
        side, campaign = _campaign_of_side(session, marker.side_id)
        warnings = []
        if turn is not None and marker.moved_turn == turn:
            warnings.append(f"{marker.code} already moved this turn (one sector a turn)")
        others = session.exec(select(SubMarker).where(
            SubMarker.side_id == marker.side_id, SubMarker.sector == sector,
            SubMarker.state != "removed", SubMarker.id != marker_id)).all()  # fmt: skip
        if others:
            warnings.append(f"{sector} already holds {others[0].code}: one sub marker per sector")
        before = {"sector": marker.sector, "moved_turn": marker.moved_turn}
        marker.sector, marker.moved_turn = sector, turn
        journal.append(
            session, campaign_id=campaign.id or 0, kind="marker", side_id=side.id,
            summary=f"{side.name}: {marker.code} {before['sector'] or '?'} -> {sector}",
            changes=(journal.RowChange("submarker", marker_id, before,
                                       {"sector": sector, "moved_turn": turn}),),
        )  # fmt: skip
        return warnings


def _seal_holds(session: Session, marker: SubMarker, key: bytes | None) -> bool:
    markers = session.exec(select(SubMarker).where(
        SubMarker.side_id == marker.side_id, SubMarker.seal == marker.seal)).all()  # fmt: skip
    notes = {m.code: secrets.open_note(m.secret, key) for m in markers}
    salts = {note["salt"] for note in notes.values()}
    if len(salts) != 1:
        return False
    assignment = {code: bool(note["real"]) for code, note in notes.items()}
    return secrets.seal_of(assignment, salts.pop()) == marker.seal


def verify_seal(
    factory: SessionFactory, *, seal: str, side_id: int, passphrase: str | None = None
) -> bool:
    """True when the notes of the markers under this seal still match it (nothing edited)."""
    if bad_character(seal) is not None:
        raise InvalidInput({"seal": f"no markers carry the seal {seal!r}"})
    with session_scope(factory) as session:
        get_row(session, Side, side_id)
        key = side_key(session, side_id, passphrase)
        marker = session.exec(select(SubMarker).where(
            SubMarker.side_id == side_id, SubMarker.seal == seal)).first()  # fmt: skip
        if marker is None:
            raise InvalidInput({"seal": f"no markers carry the seal {seal}"})
        return _seal_holds(session, marker, key)


def attack_marker(
    factory: SessionFactory,
    *,
    marker_id: int,
    success: bool,
    damage: int = 0,
    passphrase: str | None = None,
) -> str:
    """An attack on a concealed marker (seed §5-8): a success reveals it; a decoy is removed."""
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        side, campaign = _campaign_of_side(session, marker.side_id)
        if marker.state == "removed":
            raise InvalidInput({"marker": f"{marker.code} is a decoy already removed"})
        if not success:
            message = f"{marker.code}: attack failed, the marker stays concealed"
        else:
            note = secrets.open_note(marker.secret, side_key(session, side.id or 0, passphrase))
            unit = get_row(session, WasUnit, marker.unit_id)
            if note["real"]:
                unit.damage = min(unit.hull_points, unit.damage + max(0, damage))
                marker.state = "revealed"
                message = f"{marker.code} is {unit.name}: revealed, {unit.damage} hull damage"
            else:
                marker.state = "removed"
                message = f"{marker.code} was a decoy: removed"
            # Revealed: anyone may now check the notes against the seal shown at assignment.
            sealed = _seal_holds(session, marker, side_key(session, side.id or 0, passphrase))
            message += f"; seal {marker.seal} " + ("verified" if sealed else "BROKEN")
        journal.append(
            session, campaign_id=campaign.id or 0, kind="marker", side_id=side.id,
            summary=f"{side.name}: {message}",
        )  # fmt: skip
        return message


def reconceal(
    factory: SessionFactory,
    *,
    unit_id: int,
    real: int,
    turn: int | None = None,
    passphrase: str | None = None,
) -> Assignment:
    """A revealed sub that slips away (fog, smoke, storm, or no enemy placed by it, seed §10-11)
    becomes two fresh markers in its sector; older decoys elsewhere stay on the map (C6)."""
    errors: dict[str, str] = {}
    _check_turn(errors, turn)
    check(errors)
    with session_scope(factory) as session:
        unit = get_row(session, WasUnit, unit_id)
        side, campaign = _campaign_of_side(session, unit.side_id)
        shown = session.exec(select(SubMarker).where(
            SubMarker.unit_id == unit_id, SubMarker.state == "revealed")).first()  # fmt: skip
        if shown is None:
            raise InvalidInput({"unit": f"{unit.name} is not revealed"})
        if not 1 <= real <= was.MARKERS_PER_SUB:
            raise InvalidInput({"real": f"choose which of the {was.MARKERS_PER_SUB} is real"})
        shown.state = "removed"
        session.flush()
        return _place(session, side, campaign, unit, real, was.MARKERS_PER_SUB, shown.sector, turn,
                      passphrase)  # fmt: skip


def markers_of(factory: SessionFactory, *, side_id: int) -> Sequence[tuple[int, str, str, str]]:
    """(id, code, sector, state) of a side's markers: all the opponent may know."""
    with session_scope(factory) as session:
        rows = session.exec(
            select(SubMarker).where(SubMarker.side_id == side_id).order_by(col(SubMarker.code))
        ).all()
        return [(m.id or 0, m.code, m.sector, m.state) for m in rows]


def sub_attacks(
    factory: SessionFactory, *, marker_id: int, same_sector: bool, passphrase: str | None = None
) -> str:
    """A concealed sub attacks (seed §9): a target in its own sector reveals it; so does any
    attack when the campaign plays that variant. Only the real sub's marker can attack."""
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        side, campaign = _campaign_of_side(session, marker.side_id)
        if marker.state != "concealed":
            raise InvalidInput({"marker": f"{marker.code} is {marker.state}, not concealed"})
        note = secrets.open_note(marker.secret, side_key(session, side.id or 0, passphrase))
        if not note["real"]:
            raise InvalidInput({"marker": f"{marker.code} is a decoy: a decoy cannot attack"})
        if same_sector or campaign.any_attack_reveals:
            marker.state = "revealed"
            unit = get_row(session, WasUnit, marker.unit_id)
            message = f"{marker.code} is {unit.name}: revealed by its attack"
        else:
            message = f"{marker.code} attacks from concealment and stays concealed"
        journal.append(
            session, campaign_id=campaign.id or 0, kind="marker", side_id=side.id,
            summary=f"{side.name}: {message}",
        )  # fmt: skip
        return message


def record_search(factory: SessionFactory, *, marker_id: int, target: int, roll: int) -> str:
    """The hunt's roll against a marker, journaled; a success means it may be attacked (§4)."""
    if not 1 <= roll <= 6:
        raise InvalidInput({"roll": f"a d6 shows 1..6, got {roll}"})
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        side, campaign = _campaign_of_side(session, marker.side_id)
        found = was.search_succeeds(roll, max(2, target))
        message = (
            f"{marker.code} found (d6 {roll} vs {target}+): it may be attacked"
            if found
            else f"{marker.code} not found (d6 {roll} vs {target}+)"
        )
        journal.append(
            session, campaign_id=campaign.id or 0, kind="search", side_id=side.id,
            summary=message, dice={"d6": roll, "target": target},
        )  # fmt: skip
        return message


def mine_roll(
    factory: SessionFactory, *, unit_id: int, roll: int, passphrase: str | None = None
) -> str:
    """A submarine entering a mined sector rolls a d6 (seed §12): 1 hull damage on a 1, 2 on a
    2; the owner applies it without revealing the sub (DOMAIN C8)."""
    damage = was.sub_mine_damage(roll) if 1 <= roll <= 6 else None
    if damage is None:
        raise InvalidInput({"roll": f"a d6 shows 1..6, got {roll}"})
    with session_scope(factory) as session:
        unit = get_row(session, WasUnit, unit_id)
        side, campaign = _campaign_of_side(session, unit.side_id)
        if unit.unit_type != "submarine":
            raise InvalidInput({"roll": f"{unit.name} is not a submarine"})
        key = side_key(session, side.id or 0, passphrase)  # the owner's act: asked for
        before = unit.damage
        unit.damage = min(unit.hull_points, unit.damage + damage)
        message = (
            f"{unit.name} struck a mine (d6 {roll}): {damage} hull damage"
            if damage
            else f"{unit.name} passed the minefield (d6 {roll})"
        )
        journal.append(
            session, campaign_id=campaign.id or 0, kind="mine", side_id=side.id,
            summary=f"{side.name}: a submarine rolled for a minefield",
            sealed=visibility.sealed_detail(key, summary=message, dice={"d6": roll},
                                            before={"damage": before},
                                            after={"damage": unit.damage}),
        )  # fmt: skip
        return message
