"""The hunt for a side's submarines, and what befalls them: searches, attacks on their markers,
their own attacks, and the minefields they enter (RULES.md §Subs ¶4-9, ¶12).

A search is journaled with its final target only: the hunted sub's own abilities, which raise
it, are never said.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from tracker.db import SessionFactory, session_scope
from tracker.models import Campaign, Minefield, SubMarker, WasUnit
from tracker.models.kinds import MARKERS_OUT_OF_PLAY, JournalKind, MarkerState, MinefieldStatus
from tracker.rules import was
from tracker.rules.dice import roll_text
from tracker.services import acts, markers, secrets, visibility
from tracker.services.common import act, get_row, rows_where
from tracker.services.errors import InvalidInput
from tracker.services.mines import places
from tracker.services.sealing import side_key


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
    """The d6 target to find this marker (RULES.md §Subs ¶4)."""
    with session_scope(factory) as session:
        marker = get_row(session, SubMarker, marker_id)
        return _hidden_target(get_row(session, WasUnit, marker.unit_id), party)


def record_search(factory: SessionFactory, *, marker_id: int, party: SearchParty, roll: int) -> str:
    """The hunt's one search for a square this turn, by its best unit (RULES.md §Subs ¶4)."""
    if not 1 <= roll <= 6:
        raise InvalidInput({"roll": f"a d6 shows 1..6, got {roll}"})
    with act(factory, SubMarker, marker_id) as a:
        marker, session = a.row, a.session
        if marker.state != MarkerState.CONCEALED:
            raise InvalidInput({"marker": f"{marker.code} is {marker.state}: only a concealed "
                                "marker is searched for"})  # fmt: skip
        now = markers.hunt_turn(session, a.campaign_id)
        if markers.square_searched(session, marker, now):
            where = f"sector {marker.sector}" if marker.sector else marker.code
            why = "one search per square per turn, by the unit with the best chance (§4)"
            raise InvalidInput({"marker": f"{where} was searched this turn already: {why}"})
        target = _hidden_target(get_row(session, WasUnit, marker.unit_id), party)
        found = was.search_succeeds(roll, target)
        marker.search_scenario_id, marker.search_turn = now
        marker.search_found = found
        rolled = f"({roll_text(roll)} vs {target}+)"
        message = (
            f"{marker.code} found {rolled}: it may be attacked this turn"
            if found
            else f"{marker.code} not found {rolled}: it cannot be attacked this turn; the air "
            "units that searched may attack other enemy units in the square"
        )
        a.log(
            JournalKind.SEARCH,
            message,
            side_id=marker.side_id,
            dice={"d6": roll, "target": target},
            after=markers.searched_square(marker),
        )
        return message


def _damage_sub(session: Session, unit: WasUnit, damage: int) -> str:
    """Apply hull damage; a sub destroyed leaves play with every marker of it (§5, §12)."""
    unit.damage = min(unit.hull_points, unit.damage + max(0, damage))
    if not acts.destroyed(unit):
        return f"{unit.damage} hull damage"
    gone = markers.live(session, SubMarker.unit_id == unit.id)
    for marker in gone:
        marker.state = MarkerState.REMOVED
    return f"destroyed, its markers leave play ({', '.join(sorted(m.code for m in gone))})"


def attack_marker(
    factory: SessionFactory,
    *,
    marker_id: int,
    success: bool,
    damage: int = 0,
    passphrase: str | None = None,
) -> str:
    """An attack on a marker (RULES.md §Subs ¶4-8), a concealed one only once a search found it
    this turn: a success reveals a sub (destroyed, it leaves play) and removes a decoy."""
    with act(factory, SubMarker, marker_id) as a:
        marker, session = a.row, a.session
        if marker.state in MARKERS_OUT_OF_PLAY:
            raise InvalidInput({"marker": f"{marker.code} is out of play already"})
        now = markers.hunt_turn(session, a.campaign_id)
        if marker.state == MarkerState.CONCEALED and not markers.found_now(marker, now):
            why = "a marker is attacked only after a successful search (§4)"
            raise InvalidInput(
                {"marker": f"{marker.code} was not found by a search this turn: {why}"}
            )
        if not success:
            message = f"{marker.code}: attack failed, the marker stays {marker.state}"
        else:
            key = side_key(session, marker.side_id, passphrase)
            note = secrets.open_note(marker.secret, key)
            unit = get_row(session, WasUnit, marker.unit_id)
            if note["real"]:
                marker.state = MarkerState.REVEALED
                message = (
                    f"{marker.code} is {unit.name}: revealed, {_damage_sub(session, unit, damage)}"
                )
            else:
                marker.state = MarkerState.DECOY
                message = f"{marker.code} was a decoy: removed"
            # Revealed: anyone may now check this marker's note against its own seal.
            sealed = markers.seal_holds(session, marker, key)
            message += f"; seal {marker.seal} " + ("verified" if sealed else "BROKEN")
        a.log_side(JournalKind.MARKER, message)
        return message


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
    with act(factory, SubMarker, marker_id) as a:
        marker, session = a.row, a.session
        if marker.state in MARKERS_OUT_OF_PLAY:
            raise InvalidInput({"marker": f"{marker.code} is out of play"})
        note = secrets.open_note(marker.secret, side_key(session, marker.side_id, passphrase))
        if not note["real"]:
            raise InvalidInput({"marker": f"{marker.code} is a decoy: a decoy cannot attack"})
        unit = get_row(session, WasUnit, marker.unit_id)
        refusal = acts.torpedo_refusal(session, acts.actor(unit))
        if refusal:  # the one rule of every roster (RULES.md §Mines), asked before it shows
            raise InvalidInput({"marker": refusal})
        if marker.state == MarkerState.REVEALED:
            message = f"{unit.name} attacks, revealed"
        elif same_sector or get_row(session, Campaign, a.campaign_id).any_attack_reveals:
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
            message += (
                f"; torpedo rolls {shown}: {hits} {'hit' if hits == 1 else 'hits'} on {needs}"
            )
            # The journal's dice are numbers by name (what an exchanged file is checked for).
            dice = {f"torpedo_{n}": roll for n, roll in enumerate(torpedo_dice, start=1)}
            dice["hits"] = hits
        a.log_side(JournalKind.MARKER, message, dice=dice)
        return message


def _mined(session: Session, campaign_id: int, sector: str, key: bytes | None) -> bool | None:
    """Whether an active minefield is recorded in the sector: True, False, or None when only
    another side's sealed minefields could be there (their places are not readable)."""
    active = Minefield.campaign_id == campaign_id, Minefield.status == MinefieldStatus.ACTIVE
    unreadable = False
    for field in rows_where(session, Minefield, *active):
        try:
            place = places.opened(session, field, key)
        except InvalidInput:  # another side's, sealed under its passphrase
            unreadable = True
            continue
        if was.square(place.get("sector") or "") == was.square(sector):
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
    with act(factory, WasUnit, unit_id) as a:
        unit, session = a.row, a.session
        acts.require_submarine(unit)
        key = side_key(session, unit.side_id, passphrase)  # the owner's act: the passphrase
        mined = _mined(session, a.campaign_id, sector, key)
        if not mined and not (mined is None and secret_minefield):
            hint = (" or, when another side's secret minefield lies there, say so"
                    if mined is None else "")  # fmt: skip
            raise InvalidInput({"sector": f"no minefield is recorded in {sector}: record it on "
                                f"the minefield ledger first{hint}"})  # fmt: skip
        before = unit.damage
        message = f"{unit.name} passed the minefield in {sector} ({roll_text(roll)})"
        if damage:
            hurt = _damage_sub(session, unit, damage)
            message = f"{unit.name} struck a mine in {sector} ({roll_text(roll)}): {hurt}"
        a.log_side(
            JournalKind.MINE,
            "a submarine rolled for a minefield"
            + (" and was destroyed" if acts.destroyed(unit) else ""),
            sealed=visibility.sealed_detail(
                key,
                summary=message,
                dice={"d6": roll},
                before={"damage": before},
                after={"damage": unit.damage},
            ),
        )
        return message
