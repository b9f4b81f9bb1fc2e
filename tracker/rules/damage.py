"""Damage arithmetic and its consequences (SMR2 §2.2 smoke markers).

The SMR2 damage and critical tables are not in our sources: the player types their results, and
these functions only do the arithmetic and name what follows from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracker.rules.dice import roll_text
from tracker.rules.smr import at_or_below_third


@dataclass(frozen=True)
class TrackChange:
    """A track before and after a hit or repair; overflow is damage beyond zero, not applied."""

    name: str
    before: int
    after: int
    maximum: int
    overflow: int = 0


def apply_loss(now: int, lost: int) -> tuple[int, int]:
    """Points after losing `lost`: never below zero; returns (new, overflow beyond zero)."""
    if now < 0 or lost < 0:
        raise ValueError(f"now and lost must be 0 or more, got now={now}, lost={lost}")
    return max(0, now - lost), max(0, lost - now)


def apply_repair(now: int, maximum: int, repaired: int) -> int:
    """Points after a repair; a repair above the maximum raises ValueError saying how much fits."""
    if repaired < 0:
        raise ValueError(f"repaired must be 0 or more, got {repaired}")
    if now + repaired > maximum:
        raise ValueError(
            f"at most {maximum - now} can be repaired ({now}/{maximum}), got {repaired}"
        )
    return now + repaired


def smoke(track: str) -> str:
    """The marker at or below 1/3 (SMR2 §2.2): black for Structure, white for Flotation."""
    return "black smoke" if track == "Structure" else "white smoke"


# The note a track at zero leaves until the player says what happened (its outcome replaces it).
AT_ZERO = "at zero: confirm what happened"


def consequences(ship: str, change: TrackChange) -> list[str]:
    """What a change to one track calls for, in words the table reads out."""
    notes: list[str] = []
    was_third = at_or_below_third(change.before, change.maximum)
    is_third = at_or_below_third(change.after, change.maximum)
    if change.after == 0 and change.before > 0:
        notes.append(f"{ship}: {change.name} {AT_ZERO}")
    elif is_third and not was_third:
        notes.append(f"{ship} at or below 1/3 {change.name} ({smoke(change.name)}): morale test")
    elif was_third and not is_third:
        notes.append(f"{ship} back above 1/3 {change.name}: {smoke(change.name)} removed")
    if change.overflow:
        notes.append(f"{ship}: {change.overflow} {change.name} beyond zero not applied")
    return notes


# The first words of an outcome at zero that take the ship out of play (RULES.md §SMR2 "A ship
# lost"): the campaign's list is the players' own, and "Sunk by a torpedo" sinks as "Sunk" does.
SINKING_WORDS = ("sunk", "scuttled")


def outcome_sinks(outcome: str) -> bool:
    """Whether the outcome the player gave at zero sinks the ship: its first word is one of
    SINKING_WORDS, in any case ("Sunk", "scuttled by her crew"); any other outcome leaves her
    afloat in the condition named ("Dead in the water")."""
    words = outcome.lower().split(maxsplit=1)
    return bool(words) and words[0].strip(".,:;!") in SINKING_WORDS


def critical_text(kind: str, effect: str, roll: int | None, turn: int | None) -> str:
    """A critical in words, as the sheet and the story print it:
    `structural: Engine room hit (roll 5, turn 1)`."""
    when = [roll_text(roll)] if roll is not None else []
    if turn is not None:
        when.append(f"turn {turn}")
    return f"{kind}: {effect}" + (f" ({', '.join(when)})" if when else "")
