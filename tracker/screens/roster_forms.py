"""Fields of the roster's forms: the unit card, the decoy note, a marker's move, the hunt's
attacks, a submarine's mine roll (the ledger's too) and the side's passphrase."""

from __future__ import annotations

from dataclasses import replace

from tracker.rules import was
from tracker.screens.fields import specs_from
from tracker.screens.form import FieldSpec
from tracker.services.markers import MarkerPlace
from tracker.services.roster import ATTACK_LABELS, UnitCreate, UnitView, dice_text

CONCEAL_CAUSES = [
    ("It moved into storm, smoke or fog (§10a): one marker", was.ConcealCause.MOVED_INTO_WEATHER),
    ("No enemy was placed in its square (§10b): one marker", was.ConcealCause.NO_ENEMY_PLACED),
    ("It got away (§10c): two markers", was.ConcealCause.GOT_AWAY),
    ("A squall or fog marker entered its square (§11): one marker",
     was.ConcealCause.WEATHER_ENTERED),
]  # fmt: skip
ABILITIES = ("Sub Hunter", "Elusive Quarry", "Pinpointer", "ASW Pinpointer", "Infiltrator",
             "Wolfpack", "Submerged Shot")  # fmt: skip


def unit_fields(unit: UnitView | None) -> list[FieldSpec]:
    """The unit card form: every field the card's model declares, in its order, the attack
    rows where it holds them, each as the card prints it (`3 2 1 -`)."""
    attacks = unit.attacks if unit else {}
    shown = unit and {**vars(unit), "damage": unit.damage or 0,
                      "abilities": "; ".join(unit.abilities)}  # fmt: skip
    keys = list(UnitCreate.model_fields)
    at = keys.index("attacks")
    specs = specs_from(UnitCreate, shown, keys=keys[:at] + keys[at + 1 :],
                       unit_type={} if unit else {"value": "destroyer"},
                       abilities={"suggestions": ABILITIES})  # fmt: skip
    return [
        *specs[:at],
        *(FieldSpec(f"attack_{row}", f"{label}, dice r0-r3",
                    value=dice_text(attacks[row]) if row in attacks else "")
          for row, label in ATTACK_LABELS.items()),
        *specs[at:],
    ]  # fmt: skip


def move_fields() -> list[FieldSpec]:
    return specs_from(MarkerPlace, keys=("sector",))


def entered_fields() -> list[FieldSpec]:
    return [replace(spec, label=f"{spec.label} it entered") for spec in move_fields()]


def mine_roll_fields() -> list[FieldSpec]:
    """A submarine entering a mined sector (RULES.md §Subs ¶12): the sector, the d6, and
    whether another side's secret minefield lies there."""
    return [
        *entered_fields(),
        FieldSpec("roll", "d6 (1: 1 hull damage, 2: 2)", kind="int", value="", low=1, high=6),
        FieldSpec("secret_minefield", "Another side's secret minefield lies there (its owner "
                  "says so)", kind="bool", value=False),
    ]  # fmt: skip


def marker_fields(count: int) -> list[FieldSpec]:
    (sector,) = move_fields()
    return [
        FieldSpec("real", f"Which marker is real (1..{count})", kind="int", value="",
                  low=1, high=count),
        *(replace(sector, key=f"sector_{n}", label=f"{sector.label} of marker {n}")
          for n in range(1, count + 1)),
    ]  # fmt: skip


def reconceal_fields(square: str) -> list[FieldSpec]:
    """Why a revealed sub slips away, and its one or two new markers (RULES.md §Subs ¶10-11):
    the decoy note's fields, the first marker in the sub's square unless moved."""
    real, first, second = marker_fields(2)
    return [
        FieldSpec("cause", "Why it slips away", kind="select", value=was.ConcealCause.GOT_AWAY,
                  options=CONCEAL_CAUSES),
        replace(real, label="Which new marker is real, when two (1..2)", optional=True),
        replace(first, value=square), replace(second, label=f"{second.label}, when two"),
    ]  # fmt: skip


def attack_fields() -> list[FieldSpec]:
    return [
        FieldSpec("success", "The attack succeeded (enough hits)", kind="bool", value=True),
        FieldSpec("damage", "Hull damage if it is the real sub", kind="int", value=0, low=0,
                  high=20),
    ]  # fmt: skip


def sub_attack_fields() -> list[FieldSpec]:
    return [
        FieldSpec("same_sector", "Its target is in its own sector", kind="bool", value=True),
        FieldSpec("torpedo_dice", "Torpedo dice rolled (blank: none)", value="", optional=True),
        FieldSpec("night", "Night", kind="bool", value=False),
        FieldSpec("target_hit_earlier", "The target was hit earlier this turn", kind="bool",
                  value=False),
    ]  # fmt: skip


def passphrase_fields(encrypted: bool) -> list[FieldSpec]:
    old = [FieldSpec("old_passphrase", "Current passphrase", password=True)] if encrypted else []
    return [
        *old,
        FieldSpec("passphrase", "New passphrase (6 or more)", password=True),
        FieldSpec("again", "The new passphrase again", password=True),
    ]
