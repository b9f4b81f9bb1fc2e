"""Linked scenarios: what a ship carries from one scenario to the next, and the repairs between.

SMR2 12.2 (repairs in linked scenarios) is not in our sources: a campaign may set its own
allowance of Structure and Flotation repaired between two scenarios (RULES.md §SMR2).
"""

from __future__ import annotations

import re
import unicodedata


def restored(stat: str, amount: int, value: int) -> int:
    """The value of `stat` once a critical that changed it by `amount` is cleared: a speed_kn -4
    gives the 4 knots back. Only the speed: Structure and Flotation are repaired as such (within
    the campaign's allowance), and fire markers come off with the turn."""
    return max(0, value - amount) if stat == "speed_kn" else value


def repair_room(missing: int, done: int, limit: int | None) -> int:
    """How much of a track a repair may still give: what the ship is missing, within what the
    campaign's allowance (`limit` a period, None for none) leaves after `done`."""
    return max(0, missing if limit is None else min(missing, limit - done))


def over_allowance(track: str, amount: int, done: int, limit: int | None) -> str:
    """Why repairing `amount` of a track would pass the campaign's allowance, or ""."""
    if limit is None or not amount or done + amount <= limit:
        return ""
    return (
        f"the campaign allows {limit} {track.capitalize()} between scenarios; "
        f"{done} already repaired, so at most {max(0, limit - done)}"
    )


def backup_reason(campaign: str, position: int) -> str:
    """What a closed scenario's backup is named for, in the player's words: the campaign's name
    and the scenario's number as the campaign screen shows them (`norway-1940-closed-scenario-3`).
    Letters are folded to plain ASCII (accents and fullwidth forms to their base), so the name is
    the same on every file system."""
    folded = unicodedata.normalize("NFKD", campaign).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:40].strip("-")
    return f"{slug}-closed-scenario-{position}" if slug else f"closed-scenario-{position}"
