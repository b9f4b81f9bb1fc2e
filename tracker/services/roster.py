"""The fleet roster with decoy notes: War at Sea units and submarine markers (RULES.md §Subs).

Which marker is the real submarine is the owner's secret note. The opponent view never reads it;
with a passphrase set it is stored encrypted, and every assignment carries a public seal.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

from tracker.db import SessionFactory, checkpoint, session_scope
from tracker.models import Campaign, Minefield, Side, SideSecret, SubMarker, WasUnit
from tracker.models.fields import read
from tracker.models.kinds import JournalKind, MarkerState, MinefieldStatus, ScenarioStatus, UnitType
from tracker.models.roster import MarkerPlace as MarkerPlace  # re-exported: the marker forms
from tracker.models.roster import MarkerRead as MarkerView
from tracker.models.roster import UnitCreate as UnitCreate  # re-exported: the unit form
from tracker.models.roster import UnitRead as UnitView
from tracker.models.roster import (
    UnitUpdate,
)
from tracker.rules import was
from tracker.services import acts, journal, markers, sealing, secrets, visibility
from tracker.services.common import beyond_ids, flush_unique, get_row, require_version
from tracker.services.errors import (
    InvalidInput,
    bad_character,
    check,
)
from tracker.services.fields import checked
from tracker.services.markers import Assignment as Assignment  # re-exported: the forms

ATTACK_LABELS = {
    "main": "Main guns", "secondary": "Secondary guns", "tertiary": "Tertiary guns",
    "anti_air": "Anti-air", "asw": "ASW", "torpedo": "Torpedo", "bomb": "Bomb",
}  # fmt: skip
ATTACK_ROWS = tuple(ATTACK_LABELS)


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


def _campaign_of_side(session: Session, side_id: int) -> tuple[Side, Campaign]:
    side = get_row(session, Side, side_id)
    return side, get_row(session, Campaign, side.campaign_id)


def fleet_points(session: Session, side_id: int) -> int:
    """A side's War at Sea fleet points, its extra decoys' cost included (docs/RULES.md §Subs)."""
    # Summed by the database, not over every unit loaded: a CSV import checks it for each row.
    totals = session.exec(
        select(col(WasUnit.extra_decoys), func.count(), func.sum(WasUnit.points))
        .where(WasUnit.side_id == side_id).group_by(col(WasUnit.extra_decoys))
    ).all()  # fmt: skip
    return sum(int(points or 0) + count * was.extra_decoy_cost(decoys)
               for decoys, count, points in totals)  # fmt: skip


def _check_budget(session: Session, side_id: int, campaign: Campaign, unit: WasUnit) -> None:
    if unit.extra_decoys and not campaign.extra_decoys_allowed:
        raise InvalidInput({"extra_decoys": "this campaign does not use the extra-decoy option"})
    total = fleet_points(session, side_id)
    if total > campaign.was_fleet_points:
        raise InvalidInput(
            {"points": f"the fleet would cost {total} points; the budget is "
             f"{campaign.was_fleet_points}"}
        )  # fmt: skip


def save_unit(
    factory: SessionFactory, *, side_id: int, fields: Mapping[str, Any], unit_id: int | None = None
) -> int:
    """Add a unit to a side's roster, or change one; the fleet budget is checked (decoys too).

    fields["version"]: on an edit, the version the player's form showed; a newer one refuses it.
    """
    checked_unit = _validate(fields)
    values = checked_unit.model_dump(exclude={"version"})
    with session_scope(factory) as session:
        side, campaign = _campaign_of_side(session, side_id)
        unit = get_row(session, WasUnit, unit_id) if unit_id else WasUnit(side_id=side_id, **values)
        if unit.side_id != side_id:
            raise InvalidInput({"name": "that unit belongs to another side"})
        if unit_id:
            require_version(unit, checked_unit.version, unit.name)
        for key, value in values.items():
            setattr(unit, key, value)
        session.add(unit)
        flush_unique(
            session, WasUnit, values["name"], taken=f"{side.name} already has a unit named",
            exclude_id=unit.id, side_id=side_id,
        )  # fmt: skip
        _check_budget(session, side_id, campaign, unit)
        journal.append(
            session, campaign_id=campaign.id or 0, kind=JournalKind.ROSTER, side_id=side_id,
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
            session, campaign_id=campaign.id or 0, kind=JournalKind.ROSTER, side_id=side.id,
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
            session, campaign_id=campaign.id or 0, kind=JournalKind.SECRET, side_id=side_id,
            summary=f"{side.name}: passphrase {'changed' if old_key else 'set'}; notes encrypted",
        )  # fmt: skip
    # The plain notes' old pages must not linger in the WAL beside the file.
    folded = checkpoint(factory)
    plain = sealing.reseal_backups(factory, side_id=side_id, passphrase=passphrase,
                                   old_passphrase=old_passphrase)  # fmt: skip
    return sealing.Sealed(plain_backups=plain, checkpointed=folded)


def assign_markers(
    factory: SessionFactory,
    *,
    unit_id: int,
    real: int,
    sectors: Sequence[str],
    turn: int | None = None,
    passphrase: str | None = None,
    rng: random.Random | None = None,
    version: int | None = None,
) -> Assignment:
    """Give a submarine its markers (2, plus its extra decoys), each in its own sector, with a
    random public code and a seal of its own; `real` is the real one, 1-based (RULES.md §Subs ¶1-3).

    `sectors` names each marker's sector in order: no two share a square, nor any with another
    of the side's markers. `version` is the unit's as the player's form showed it: the form's
    count of markers comes from the unit's extra decoys, so a unit changed since refuses it.
    """
    checked(MarkerPlace, {"turn": turn, "version": version})
    with session_scope(factory) as session:
        unit = get_row(session, WasUnit, unit_id)
        require_version(unit, version, unit.name)
        side, campaign = _campaign_of_side(session, unit.side_id)
        if unit.unit_type != UnitType.SUBMARINE:
            raise InvalidInput({"unit": f"{unit.name} is not a submarine"})
        if _destroyed(unit):
            raise InvalidInput({"unit": f"{unit.name} was destroyed: it is out of play (§5)"})
        live = session.exec(select(SubMarker).where(
            SubMarker.unit_id == unit_id,
            SubMarker.state != MarkerState.REMOVED)).first()  # fmt: skip
        if live is not None:
            raise InvalidInput({"unit": f"{unit.name} already has markers on the map"})
        count = was.MARKERS_PER_SUB + unit.extra_decoys
        if not 1 <= real <= count:
            raise InvalidInput({"real": f"choose which of the {count} markers is real: 1..{count}"})
        return markers.place(
            session, side=side, campaign_id=campaign.id or 0, unit=unit, real=real,
            sectors=markers.typed_sectors(sectors, count), turn=turn,
            key=side_key(session, side.id or 0, passphrase), rng=rng or random.SystemRandom(),
        )  # fmt: skip


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
                read(
                    MarkerView, marker,
                    unit_id=marker.unit_id
                    if owner or marker.state == MarkerState.REVEALED else None,
                    real=bool(note["real"]) if note else None,
                )
            )  # fmt: skip
        # Each unit's markers' states, gathered in one pass (each unit looking through every
        # marker made a large roster's read grow with units times markers).
        states: dict[int | None, set[str]] = {}
        for marker in markers:
            states.setdefault(marker.unit_id, set()).add(marker.state)
        encrypted = session.exec(select(SideSecret).where(SideSecret.side_id == side_id)).first()
        scenario = journal.current_scenario(session, campaign.id or 0)
        return Roster(
            side_id=side_id, side_name=side.name, campaign_id=campaign.id or 0, owner_view=owner,
            units=tuple(_unit_view(unit, owner, states.get(unit.id, set())) for unit in units),
            markers=tuple(views),
            points=fleet_points(session, side_id), budget=campaign.was_fleet_points,
            encrypted=encrypted is not None,
            turn=scenario.turn if scenario and scenario.status == ScenarioStatus.IN_PLAY else None,
            owner_idle_seconds=campaign.owner_idle_seconds,
        )  # fmt: skip


def _unit_view(unit: WasUnit, owner: bool, states: set[str]) -> UnitView:
    """A unit as the viewer may see it; `states` are its markers' states."""
    viewer = visibility.Viewer.OWNER if owner else visibility.Viewer.OPPONENT
    revealed = not visibility.concealed_unit(unit.unit_type, states, destroyed=_destroyed(unit))
    damage = visibility.shown("wasunit", "damage", unit.damage, viewer=viewer, own=owner,
                              revealed=revealed)  # fmt: skip
    return read(
        UnitView, unit, damage=damage,
        # Crippled: damaged down to one hull point left (a 1-point unit is never crippled).
        crippled=None if damage is None else damage > 0 and unit.hull_points - damage == 1,
        destroyed=_destroyed(unit),
        attacks=json.loads(unit.attacks or "{}"),
        abilities=tuple(a.strip() for a in unit.abilities.splitlines() if a.strip()),
    )  # fmt: skip


def move_marker(
    factory: SessionFactory, *, marker_id: int, sector: str, turn: int | None = None,
    version: int | None = None,
) -> list[str]:  # fmt: skip
    """Move a marker into a square no other marker of its side holds (RULES.md §Subs ¶3); a
    warning (not a refusal) when it moved already this turn. `version`, the one the player's
    form showed, refuses a form another change made stale."""
    sector = markers.checked_sector(sector, turn, blank=False, version=version).sector
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        if marker.state == MarkerState.REMOVED:
            raise InvalidInput({"sector": f"{marker.code} was removed"})
        require_version(marker, version, marker.code)
        side, campaign = _campaign_of_side(session, marker.side_id)
        markers.check_squares(session, side_id=marker.side_id, sectors=[sector],
                              fields=["sector"], moving={marker_id})  # fmt: skip
        warnings = []
        if turn is not None and marker.moved_turn == turn:
            warnings.append(f"{marker.code} already moved this turn (one sector a turn)")
        before = {"sector": marker.sector, "moved_turn": marker.moved_turn}
        marker.sector, marker.moved_turn = sector, turn
        journal.append(
            session, campaign_id=campaign.id or 0, kind=JournalKind.MARKER, side_id=side.id,
            summary=f"{side.name}: {marker.code} {before['sector'] or '?'} -> {sector}",
            changes=(journal.RowChange("submarker", marker_id, before,
                                       {"sector": sector, "moved_turn": turn}),),
        )  # fmt: skip
        return warnings


def _seal_holds(session: Session, marker: SubMarker, key: bytes | None) -> bool:
    note = secrets.open_note(marker.secret, key)
    if note.get("v") == 2:
        return secrets.seal_of(markers.sealed_as(marker.code, note), note["salt"]) == marker.seal
    # Markers placed before seals were per marker share one seal over their whole group.
    group = session.exec(select(SubMarker).where(
        SubMarker.side_id == marker.side_id, SubMarker.seal == marker.seal)).all()  # fmt: skip
    notes = {m.code: secrets.open_note(m.secret, key) for m in group}
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


def _destroyed(unit: WasUnit) -> bool:
    return acts.destroyed(unit)


def _now(session: Session, campaign: Campaign) -> tuple[int, int]:
    """(scenario id, turn) of the scenario in play: the hunt is counted turn by turn (§4)."""
    scenario = journal.current_scenario(session, campaign.id or 0)
    if scenario is None or scenario.status != ScenarioStatus.IN_PLAY:
        raise InvalidInput({"marker": "no scenario is in play: the hunt is played turn by turn, "
                            "start the scenario first"})  # fmt: skip
    return scenario.id or 0, scenario.turn


def _leave_play(session: Session, unit: WasUnit) -> list[str]:
    """A destroyed sub and every marker of it leave play (§5); the codes removed."""
    markers = session.exec(select(SubMarker).where(
        SubMarker.unit_id == unit.id, SubMarker.state != MarkerState.REMOVED)).all()  # fmt: skip
    for marker in markers:
        marker.state = MarkerState.REMOVED
    return sorted(marker.code for marker in markers)


def _damage_sub(session: Session, unit: WasUnit, damage: int) -> str:
    """Apply hull damage; a sub at its hull points is destroyed and leaves play (§5, §12)."""
    unit.damage = min(unit.hull_points, unit.damage + max(0, damage))
    if not _destroyed(unit):
        return f"{unit.damage} hull damage"
    gone = _leave_play(session, unit)
    return f"destroyed, its markers leave play ({', '.join(gone)})"


def attack_marker(
    factory: SessionFactory,
    *,
    marker_id: int,
    success: bool,
    damage: int = 0,
    passphrase: str | None = None,
) -> str:
    """An attack on a marker (RULES.md §Subs ¶4-8): a concealed one must have been found by a
    search this turn; a success reveals it, a decoy is removed, a destroyed sub leaves play with
    its markers."""
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        side, campaign = _campaign_of_side(session, marker.side_id)
        if marker.state == MarkerState.REMOVED:
            raise InvalidInput({"marker": f"{marker.code} is out of play already"})
        if marker.state == MarkerState.CONCEALED and not _found_now(
            marker, _now(session, campaign)
        ):
            raise InvalidInput(
                {
                    "marker": f"{marker.code} was not found by a search this turn: "
                    "a marker is attacked only after a successful search (§4)"
                }
            )
        if not success:
            message = f"{marker.code}: attack failed, the marker stays {marker.state}"
        else:
            note = secrets.open_note(marker.secret, side_key(session, side.id or 0, passphrase))
            unit = get_row(session, WasUnit, marker.unit_id)
            if note["real"]:
                marker.state = MarkerState.REVEALED
                message = (
                    f"{marker.code} is {unit.name}: revealed, {_damage_sub(session, unit, damage)}"
                )
            else:
                marker.state = MarkerState.REMOVED
                message = f"{marker.code} was a decoy: removed"
            # Revealed: anyone may now check this marker's note against its own seal.
            sealed = _seal_holds(session, marker, side_key(session, side.id or 0, passphrase))
            message += f"; seal {marker.seal} " + ("verified" if sealed else "BROKEN")
        journal.append(
            session, campaign_id=campaign.id or 0, kind=JournalKind.MARKER, side_id=side.id,
            summary=f"{side.name}: {message}",
        )  # fmt: skip
        return message


def _found_now(marker: SubMarker, now: tuple[int, int]) -> bool:
    return marker.search_found and (marker.search_scenario_id, marker.search_turn) == now


def reconceal(
    factory: SessionFactory,
    *,
    unit_id: int,
    cause: was.ConcealCause,
    real: int | None = None,
    sectors: Sequence[str] = (),
    passphrase: str | None = None,
    rng: random.Random | None = None,
) -> Assignment:
    """A revealed sub slips away (RULES.md §Subs ¶10-11): one marker replaces it when it moved
    into weather or no enemy was placed by it, two when it got away, the owner saying which is
    real and each one's sector (one marker: the sub's square unless given); one that did not
    move this turn stays revealed unless weather entered its square. Older decoys stay."""
    try:
        cause = was.ConcealCause(cause)
    except ValueError:
        raise InvalidInput({"cause": "choose why it slips away: "
                            f"{', '.join(was.ConcealCause)}"}) from None  # fmt: skip
    count = was.reconceal_markers(cause)
    with session_scope(factory) as session:
        unit = get_row(session, WasUnit, unit_id)
        side, campaign = _campaign_of_side(session, unit.side_id)
        shown = session.exec(select(SubMarker).where(
            SubMarker.unit_id == unit_id,
            SubMarker.state == MarkerState.REVEALED)).first()  # fmt: skip
        if shown is None:
            raise InvalidInput({"unit": f"{unit.name} is not revealed"})
        _, turn = _now(session, campaign)
        refusal = was.reconceal_refusal(cause, moved_this_turn=shown.moved_turn == turn)
        if refusal:
            raise InvalidInput({"cause": f"{unit.name}: {refusal}"})
        if count == 1 and real in (None, 1):
            real = 1  # one marker: the sub itself
        elif real is None or not 1 <= real <= count:
            raise InvalidInput({"real": f"choose which of the {count} new markers is real: "
                                f"1..{count}"})  # fmt: skip
        typed = markers.typed_sectors(sectors or [shown.sector] * (count == 1), count)
        shown.state = MarkerState.REMOVED
        session.flush()
        return markers.place(
            session, side=side, campaign_id=campaign.id or 0, unit=unit, real=real,
            sectors=typed, turn=turn, key=side_key(session, side.id or 0, passphrase),
            rng=rng or random.SystemRandom(),
        )  # fmt: skip


def markers_of(factory: SessionFactory, *, side_id: int) -> Sequence[tuple[int, str, str, str]]:
    """(id, code, sector, state) of a side's markers: all the opponent may know."""
    with session_scope(factory) as session:
        rows = session.exec(
            select(SubMarker).where(SubMarker.side_id == side_id).order_by(col(SubMarker.code))
        ).all()
        return [(m.id or 0, m.code, m.sector, m.state) for m in rows]


def sub_attacks(
    factory: SessionFactory,
    *,
    marker_id: int,
    same_sector: bool,
    torpedo_dice: Sequence[int] = (),
    night: bool = False,
    target_hit_earlier: bool = False,
    passphrase: str | None = None,
) -> str:
    """A submarine attacks (RULES.md §Subs ¶9): a concealed one is revealed by a target in its
    own sector (by any attack in the campaign's variant); torpedo dice hit on a 6, or a 5 at night
    against a target hit earlier this turn (¶9e). Only the real sub's marker can attack."""
    if any(not 1 <= roll <= 6 for roll in torpedo_dice):
        raise InvalidInput({"torpedo_dice": "each torpedo die shows 1..6"})
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        side, campaign = _campaign_of_side(session, marker.side_id)
        if marker.state == MarkerState.REMOVED:
            raise InvalidInput({"marker": f"{marker.code} is out of play"})
        note = secrets.open_note(marker.secret, side_key(session, side.id or 0, passphrase))
        if not note["real"]:
            raise InvalidInput({"marker": f"{marker.code} is a decoy: a decoy cannot attack"})
        unit = get_row(session, WasUnit, marker.unit_id)
        refusal = acts.torpedo_refusal(session, acts.actor(unit))
        if refusal:  # the one rule of every roster (RULES.md §Mines), asked before it shows
            raise InvalidInput({"marker": refusal})
        if marker.state == MarkerState.REVEALED:
            message = f"{unit.name} attacks, revealed"
        elif same_sector or campaign.any_attack_reveals:
            marker.state = MarkerState.REVEALED
            message = f"{marker.code} is {unit.name}: revealed by its attack"
        else:
            message = f"{marker.code} attacks from concealment and stays concealed"
        dice: dict[str, Any] | None = None
        if torpedo_dice:
            hits = was.torpedo_hits(list(torpedo_dice), night=night,
                                    target_hit_earlier=target_hit_earlier)  # fmt: skip
            needs = "5+ (night, target hit earlier this turn)" if night and target_hit_earlier \
                else "6"  # fmt: skip
            shown = " ".join(str(roll) for roll in torpedo_dice)
            message += f"; torpedoes d6 {shown}: {hits} {'hit' if hits == 1 else 'hits'} on {needs}"
            # The journal's dice are numbers by name (what an exchanged file is checked for).
            dice = {f"torpedo_{n}": roll for n, roll in enumerate(torpedo_dice, start=1)}
            dice["hits"] = hits
        journal.append(
            session, campaign_id=campaign.id or 0, kind=JournalKind.MARKER, side_id=side.id,
            summary=f"{side.name}: {message}", dice=dice,
        )  # fmt: skip
        return message


@dataclass(frozen=True)
class SearchParty:
    """The hunters in a square as the searching player counts them (RULES.md §Subs ¶4)."""

    searcher: str
    extra_asw_units: int = 0
    sub_hunters: int = 0
    enemy_units: int = 0
    night_or_weather: bool = False


def _hidden_target(unit: WasUnit, party: SearchParty) -> int:
    """The search target with the hunted sub's own abilities, which the hunter does not see:
    Elusive Quarry applies to every marker of the sub (§4)."""
    abilities = {line.strip().casefold() for line in unit.abilities.splitlines()}
    try:
        return was.search_target(
            party.searcher, extra_asw_units=party.extra_asw_units,
            sub_hunters=party.sub_hunters, enemy_units=party.enemy_units,
            night_or_weather=party.night_or_weather,
            elusive_quarry="elusive quarry" in abilities,
        )  # fmt: skip
    except ValueError as exc:
        raise InvalidInput({"searcher": str(exc)}) from exc


def search_target(factory: SessionFactory, *, marker_id: int, party: SearchParty) -> int:
    """The d6 target to find this marker: the final number only, never why (RULES.md §Subs ¶4)."""
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        return _hidden_target(get_row(session, WasUnit, marker.unit_id), party)


def record_search(factory: SessionFactory, *, marker_id: int, party: SearchParty, roll: int) -> str:
    """The hunt's one search for a square this turn, by its best unit (RULES.md §Subs ¶4),
    journaled with the final target only; a success lets the marker be attacked this turn."""
    if not 1 <= roll <= 6:
        raise InvalidInput({"roll": f"a d6 shows 1..6, got {roll}"})
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        side, campaign = _campaign_of_side(session, marker.side_id)
        if marker.state != MarkerState.CONCEALED:
            raise InvalidInput({"marker": f"{marker.code} is {marker.state}: only a concealed "
                                "marker is searched for"})  # fmt: skip
        now = _now(session, campaign)
        if markers.square_searched(session, marker, now):
            where = f"sector {marker.sector}" if marker.sector else marker.code
            raise InvalidInput(
                {
                    "marker": f"{where} was searched this turn already: one search "
                    "per square per turn, by the unit with the best chance (§4)"
                }
            )
        target = _hidden_target(get_row(session, WasUnit, marker.unit_id), party)
        found = was.search_succeeds(roll, target)
        marker.search_scenario_id, marker.search_turn = now
        marker.search_found = found
        message = (
            f"{marker.code} found (d6 {roll} vs {target}+): it may be attacked this turn"
            if found
            else f"{marker.code} not found (d6 {roll} vs {target}+): it cannot be attacked this "
            "turn; the air units that searched may attack other enemy units in the square"
        )
        journal.append(
            session, campaign_id=campaign.id or 0, kind=JournalKind.SEARCH, side_id=side.id,
            summary=message, dice={"d6": roll, "target": target},
            after=markers.searched_square(marker),
        )  # fmt: skip
        return message


def _mined(session: Session, campaign_id: int, sector: str, key: bytes | None) -> bool | None:
    """Whether an active minefield is recorded in the sector: True, False, or None when only
    another side's sealed minefields could be there (their places are not readable)."""
    fields = session.exec(select(Minefield).where(
        Minefield.campaign_id == campaign_id,
        Minefield.status == MinefieldStatus.ACTIVE)).all()  # fmt: skip
    unreadable = False
    for field in fields:
        if not field.secret:
            place = field.sector
        elif field.sealed.startswith(secrets.PLAIN) or key is not None:
            try:
                place = secrets.open_note(field.sealed, key).get("sector", "")
            except InvalidInput:
                unreadable = True
                continue
        else:
            unreadable = True
            continue
        if place.strip().casefold() == sector.casefold():
            return True
    return None if unreadable else False


def mine_roll(
    factory: SessionFactory,
    *,
    unit_id: int,
    roll: int,
    sector: str,
    secret_minefield: bool = False,
    passphrase: str | None = None,
) -> str:
    """A submarine entering a mined sector rolls a d6 (RULES.md §Subs ¶12): 1 hull damage on a 1,
    2 on a 2; the owner applies it without revealing the sub. The sector must hold a
    minefield on the ledger, or a secret one its owner vouches for; a destroyed sub leaves play."""
    damage = was.sub_mine_damage(roll) if 1 <= roll <= 6 else None
    if damage is None:
        raise InvalidInput({"roll": f"a d6 shows 1..6, got {roll}"})
    sector = markers.checked_sector(sector, None, blank=False).sector
    with session_scope(factory) as session:
        unit = get_row(session, WasUnit, unit_id)
        side, campaign = _campaign_of_side(session, unit.side_id)
        if unit.unit_type != UnitType.SUBMARINE:
            raise InvalidInput({"roll": f"{unit.name} is not a submarine"})
        if _destroyed(unit):
            raise InvalidInput({"unit": f"{unit.name} was destroyed: it is out of play (§5)"})
        key = side_key(session, side.id or 0, passphrase)  # the owner's act: the passphrase
        mined = _mined(session, campaign.id or 0, sector, key)
        if not mined and not (mined is None and secret_minefield):
            hint = (" or, when another side's secret minefield lies there, say so"
                    if mined is None else "")  # fmt: skip
            raise InvalidInput({"sector": f"no minefield is recorded in {sector}: record it on "
                                f"the minefield ledger first{hint}"})  # fmt: skip
        before = unit.damage
        message = f"{unit.name} passed the minefield in {sector} (d6 {roll})"
        if damage:
            hurt = _damage_sub(session, unit, damage)
            message = f"{unit.name} struck a mine in {sector} (d6 {roll}): {hurt}"
        journal.append(
            session, campaign_id=campaign.id or 0, kind=JournalKind.MINE, side_id=side.id,
            summary=f"{side.name}: a submarine rolled for a minefield"
            + (" and was destroyed" if _destroyed(unit) else ""),
            sealed=visibility.sealed_detail(key, summary=message, dice={"d6": roll},
                                            before={"damage": before},
                                            after={"damage": unit.damage}),
        )  # fmt: skip
        return message
