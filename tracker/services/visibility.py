"""Who sees what: every secret field declared once, and the one place that answers a viewer.

A secret belongs to one side. Its owner sees it after giving the side's passphrase; everyone
sees it once it is revealed; the opponent and the umpire see a neutral placeholder until then
(docs/RULES.md §Secrets). A column of a secret-capable table that is declared neither public
nor secret is hidden: a field added later stays secret until someone says otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from enum import StrEnum
from typing import Any

from tracker.models.kinds import MarkerState, UnitType
from tracker.services import secrets
from tracker.services.documents import every_change

HIDDEN = "?"


class Viewer(StrEnum):
    """Who is looking: the side's owner (passphrase given), its opponent, or the umpire."""

    OPPONENT = "opponent"
    OWNER = "owner"
    UMPIRE = "umpire"


# table -> column -> the placeholder the opponent and the umpire see in its place.
SECRET: dict[str, dict[str, Any]] = {
    # A marker: which unit it stands for, and the owner's sealed note (real or decoy, salt).
    "submarker": {"unit_id": None, "secret": ""},
    # A War at Sea submarine while concealed: its damage (mine damage included) and so whether
    # it is crippled or destroyed (RULES.md §Subs ¶5: a revealed sub shows its damage markers).
    "wasunit": {"damage": None},
    # A secret minefield: its place, who laid it and how, whether it drifts, its path, notes,
    # and the dice that decided them. Its status and turns are public (the ledger's row).
    "minefield": {
        "boundary_id": None,
        "sector": "",
        "notes": "",
        "path": "[]",
        "layer_name": "",
        "layer_ship_id": None,
        "layer_unit_id": None,
        "laid_by": HIDDEN,
        "drifting": False,
        "drop_roll": None,
        "sealed": "",
        # When it last drifted: a secret minefield's drifting is its owner's to know.
        "drift_scenario_id": None,
        "drift_turn": None,
    },
    # A minelayer's counter: the mines it loaded in place of torpedo factors (RULES.md §Mines).
    "ship": {"mines_loaded": None},
    # A journal entry of a secret change keeps its dice and before/after in a sealed part.
    "journalentry": {"sealed": ""},
}

# A row's identity (models.identity) is public: a random id that says nothing of the row, by
# which both players' copies of the campaign know it.
PUBLIC: dict[str, frozenset[str]] = {
    # The hunt's last search of a marker is the searching player's own act (RULES.md §Subs ¶4).
    "submarker": frozenset({"id", "side_id", "code", "sector", "state", "created_turn",
                            "moved_turn", "seal", "at", "version", "search_scenario_id",
                            "search_turn", "search_found", "uid"}),
    "wasunit": frozenset({"id", "side_id", "name", "unit_type", "nation", "points", "year",
                          "speed", "armor", "vital_armor", "hull_points", "attacks", "abilities",
                          "extra_decoys", "notes", "version", "class_name", "air_to_air",
                          "flagship", "plane_capacity", "uid"}),
    "minefield": frozenset({"id", "campaign_id", "side_id", "status", "scenario_id",
                            "turn_started", "turn_completed", "secret", "at", "version", "uid"}),
    "ship": frozenset({"id", "side_id", "squadron_id", "original_squadron_id", "name",
                       "class_name", "type_abbrev", "nation", "size_modifier", "speed_kn",
                       "armour_class", "structure_max", "structure_now", "flotation_max",
                       "flotation_now", "fire_markers", "points_base", "torpedoes", "sraa_dp",
                       "radar", "notes", "transferred_turn", "transferred_scenario_id", "sunk",
                       "condition", "counter_size", "speed_rating", "speed_lost",
                       "torpedo_factors", "gunnery_lost", "hull_boxes", "hull_damage",
                       "crippled", "fuel_full", "fuel_empty", "fuel_lost", "version",
                       "crew_id", "retired", "uid"}),
    "journalentry": frozenset({"id", "at", "campaign_id", "scenario_id", "turn", "side_id",
                               "ship_id", "kind", "summary", "detail", "undoable", "reverts_id",
                               "reverted_by_id", "uid"}),
}  # fmt: skip


# What makes a row of a secret table public, once it is revealed: its column, and the values
# that mean revealed. An undo that hides such a row again seals what the reveal wrote
# (services.sealing.seal_undone_reveal).
REVEALED_WHEN: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "submarker": ("state", lambda state: state == MarkerState.REVEALED),
    "minefield": ("secret", lambda secret: not secret),
}
# How the journal names a row whose reveal was undone, in place of what the reveal said.
SECRET_AGAIN = {"submarker": "marker", "minefield": "secret minefield"}


def reveals(table: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether a change of a row (before and after) reveals it: a secret made public."""
    column, shows = REVEALED_WHEN.get(table, ("", bool))
    if column not in before or column not in after:
        return False
    return not shows(before[column]) and shows(after[column])


def may_see(viewer: Viewer, *, own: bool, revealed: bool) -> bool:
    """Whether a viewer may read a secret: everyone once revealed, else its owner only."""
    return revealed or (viewer is Viewer.OWNER and own)


def placeholder(table: str, column: str) -> Any:
    """What a viewer who may not read a column sees in its place."""
    return SECRET.get(table, {}).get(column, HIDDEN)


def shown(table: str, column: str, value: Any, *, viewer: Viewer, own: bool, revealed: bool) -> Any:
    [seen] = rows_as_seen(table, [({column: value}, own, revealed)], viewer=viewer)
    return seen[column]


def row_as_seen(
    table: str, row: Mapping[str, Any], *, viewer: Viewer, own: bool, revealed: bool
) -> dict[str, Any]:
    [seen] = rows_as_seen(table, [(row, own, revealed)], viewer=viewer)
    return seen


def rows_as_seen(
    table: str, rows: Iterable[tuple[Mapping[str, Any], bool, bool]], *, viewer: Viewer
) -> list[dict[str, Any]]:
    """Rows of a table as a viewer sees them, each with whether it is the viewer's own and whether
    it is revealed: the one rule `shown` and `row_as_seen` read through."""
    public = PUBLIC.get(table, frozenset())
    secret = SECRET.get(table, {})
    return [
        dict(row) if may_see(viewer, own=own, revealed=revealed)
        else {column: value if column in public else secret.get(column, HIDDEN)
              for column, value in row.items()}
        for row, own, revealed in rows
    ]  # fmt: skip


def marker_as_seen(
    state: str, unit_id: int | None, real: bool | None, *, viewer: Viewer, own: bool
) -> tuple[int | None, bool | None]:
    """Which unit a marker stands for and whether it is the real sub, as a viewer sees them: its
    owner both; anyone else what an attack showed (RULES.md §Subs ¶5, ¶8): a revealed marker is
    its sub, a removed decoy a decoy (whose, never)."""
    revealed = REVEALED_WHEN["submarker"][1](state)
    if may_see(viewer, own=own, revealed=False):
        return unit_id, real
    unit = shown("submarker", "unit_id", unit_id, viewer=viewer, own=own, revealed=revealed)
    return unit, True if revealed else False if state == MarkerState.DECOY else None


def concealed_unit(
    unit_type: str, marker_states: AbstractSet[str], *, destroyed: bool = False
) -> bool:
    """A submarine is concealed unless one of its markers is revealed, or it was destroyed and
    left play with its markers, for all to see (RULES.md §Subs ¶5)."""
    return (
        unit_type == UnitType.SUBMARINE
        and MarkerState.REVEALED not in marker_states
        and not destroyed
    )


def sealed_detail(key: bytes | None, **private: Any) -> dict[str, Any]:
    """The private part of a secret change's journal entry (its dice, its before and after,
    its full wording), sealed like the row: under the side's passphrase when it has one."""
    return {"sealed": secrets.seal_note(private, key)}


def dice_shown(detail: Mapping[str, Any]) -> bool:
    """False for an entry whose dice are sealed: the dice column shows the placeholder."""
    return "sealed" not in detail


def _is_note(value: Any) -> bool:
    return isinstance(value, str) and value.startswith((secrets.PLAIN, secrets.SEALED))


def entry_as_seen(detail: str, *, viewer: Viewer, own: bool) -> str:
    """An entry's detail as a viewer may carry it away: for anyone but its owner, the sealed
    part and every sealed note its row changes kept are dropped."""
    if viewer is Viewer.OWNER and own:
        return detail
    data = json.loads(detail)
    if "sealed" in data:
        data["sealed"] = placeholder("journalentry", "sealed")
    for change in every_change(data):
        table = change.get("table", "")
        for side in ("before", "after"):
            state = change.get(side) or {}
            if table in SECRET:  # what was secret then may be still: left out, as the row is
                state = row_as_seen(table, state, viewer=viewer, own=False, revealed=False)
            change[side] = {column: placeholder(table, column) if _is_note(value) else value
                            for column, value in state.items()}  # fmt: skip
    return json.dumps(data, sort_keys=True)


def tables_as_seen(tables: dict[str, list[dict[str, Any]]], *, viewer: Viewer) -> None:
    """A campaign document's rows as a viewer who owns no side sees them, changed in place:
    every secret not yet revealed replaced by its placeholder (an export for the opponent)."""
    states: dict[Any, set[str]] = {}
    for marker in tables.get("submarker", []):
        states.setdefault(marker["unit_id"], set()).add(marker["state"])
    revealed: dict[str, Any] = {
        name: lambda row, column=column, shows=shows: shows(row[column])
        for name, (column, shows) in REVEALED_WHEN.items()
    }
    revealed |= {
        "wasunit": lambda row: (
            not concealed_unit(
                row["unit_type"],
                states.get(row["id"], set()),
                destroyed=row["damage"] >= row["hull_points"],
            )
        ),
        # A ship without torpedo factors has no mines to hide (its mines_loaded is 0).
        "ship": lambda row: not row["torpedo_factors"],
        "journalentry": lambda row: True,
    }
    for name, is_revealed in revealed.items():
        rows = tables.get(name, [])
        tables[name] = rows_as_seen(
            name, ((row, False, is_revealed(row)) for row in rows), viewer=viewer
        )
    for row in tables.get("journalentry", []):
        row["detail"] = entry_as_seen(row["detail"], viewer=viewer, own=False)
    # The passphrase check is of no use to another player, and only helps guess at it.
    tables["sidesecret"] = []


def sealed_again(data: dict[str, Any]) -> dict[str, Any]:
    """An entry's detail once the reveal it followed is undone: the values of secret columns in its
    changes left out (sealed ones stay), its dice and free before and after too."""
    for change in every_change(data):
        table = change.get("table", "")
        if table not in SECRET:
            continue
        public = PUBLIC.get(table, frozenset())
        for side in ("before", "after"):
            change[side] = {column: value if column in public or _is_note(value)
                            else placeholder(table, column)
                            for column, value in (change.get(side) or {}).items()}  # fmt: skip
    return data | {"before": None, "after": None, "dice": None}


def reseal_detail(detail: str, old_key: bytes | None, new_key: bytes) -> str:
    """An entry's detail, its every sealed part sealed again under a new key (a new passphrase)."""
    data = json.loads(detail)
    if data.get("sealed"):
        data["sealed"] = secrets.seal_note(secrets.open_note(data["sealed"], old_key), new_key)
    for change in every_change(data):
        for state in (change.get("before") or {}, change.get("after") or {}):
            for column in ("sealed", "secret"):
                value = state.get(column)
                if isinstance(value, str) and _is_note(value):
                    state[column] = secrets.seal_note(secrets.open_note(value, old_key), new_key)
    return json.dumps(data, sort_keys=True)
