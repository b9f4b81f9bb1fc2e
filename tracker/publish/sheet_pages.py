"""The printed record sheet: a squadron's current state as one self-contained HTML page laid out
for A4 or Letter (templates/sheet.html.j2), or as Markdown (sheet.md.j2), from the read model of
services.printing; here are the words both formats share.

The HTML is for paper beside the table when the battery dies: inline CSS and SVG only (no script,
no font or image from anywhere), black and grey, one ship never split across two pages, and
blank boxes and lines for pencil.
"""

from __future__ import annotations

from pathlib import Path

from tracker.models.fields import printed_label
from tracker.models.kinds import Acquisition, ScenarioStatus
from tracker.publish.pages import check_output, page
from tracker.rules import smr
from tracker.rules.damage import critical_text
from tracker.services import printing, sheet, visibility
from tracker.services.common import SessionFactory
from tracker.services.damage import CriticalView
from tracker.services.mines import CounterView
from tracker.services.printing import PrintedSheet
from tracker.services.views import RecordSheet, ShipView
from tracker.services.visibility import Viewer

# The glyphs the app's fuel track uses, so paper and screen read alike.
FULL, EMPTY, LOST = "■", "□", "✕"
# The ship's fields the Markdown sheet's table of ships shows, in its columns' order.
TABLED = ("type_abbrev", "class_name", "nation", "speed_kn", "armour_class", "points_base",
          "structure_max", "flotation_max", "fire_markers")  # fmt: skip

Rows = list[tuple[str, str]]


def heading(record: RecordSheet) -> tuple[str, str]:
    """(kind, scenario): "Squadron" or "Air group", and where the campaign stands, worded alike
    on paper and on the record sheet's screen."""
    kind = "Air group" if record.air else "Squadron"
    if not record.scenario:
        return kind, "no scenario yet"
    if record.scenario_status == ScenarioStatus.IN_PLAY:
        return kind, f"{record.scenario}, turn {record.turn}"
    return kind, f"{record.scenario} ({record.scenario_status.replace('_', ' ')})"


def _commander_rows(record: RecordSheet) -> Rows:
    commander = record.commander
    if commander is None:
        return []
    level = smr.training_numeral(commander.training)
    rolled = commander.acquisition == Acquisition.RANDOM
    how = f"rolled {commander.roll} at {level}" if rolled else f"bought at {level}"  # fmt: skip
    unit = "stands" if commander.air else "ships"
    return [
        ("Name", commander.name or "(unnamed)"),
        ("Rating", f"{commander.rating} ({how})"),
        ("Modifier", f"{commander.modifier_now:+d} (base {commander.modifier_base:+d})"),
        ("Radius", f"{commander.radius_now_cm} cm (base {commander.radius_base_cm})"),
        ("Commands", f"{commander.command_limit} {unit}"),
        ("Cost", str(commander.cost)),
    ]


def _crew_rows(record: RecordSheet) -> Rows:
    crew = record.crew
    if crew is None:
        return []
    return [
        ("Quality", f"{crew.quality} ({sheet.crew_how(crew)})"),
        ("Modifier", f"{crew.modifier_now:+d} (base {crew.modifier_base:+d})"),
        ("Points", f"{crew.cost_percent:+d}% on each ship"),
        ("Commander rule", "on" if record.crew_roll_adds_commander else "off"),
    ]


def _squadron_rows(record: RecordSheet) -> Rows:
    rows = [
        ("Points", str(record.points_total)),
        ("Afloat", f"{record.original_afloat} of {record.original_count} original"),
        ("Half strength", "YES: morale tests" if record.half_strength else "no"),
        ("Scale", record.model_scale),
    ]
    afloat = sum(1 for ship in record.ships if not ship.sunk)
    if record.commander and afloat > record.commander.command_limit:
        # SMR2 §3.3: only that many may take In Command actions in a turn.
        rows.append(("In command", f"{record.commander.command_limit} of {afloat} ships"))
    return rows


def _flags(ship: ShipView) -> list[str]:
    """SUNK, the condition at zero, the smoke markers that call for morale tests, OoC."""
    if ship.sunk:
        return ["SUNK"]
    flags = [ship.condition] if ship.condition else []
    flags += [f"{mark} {sheet.MORALE_WORDS[mark]}: morale test" for mark in ship.morale]
    if ship.out_of_command:
        flags.append("Out of Command this turn")
    return flags


def label(key: str) -> str:
    """A ship's field as the printed sheet names it: the ship's declaration says (ShipBase)."""
    return printed_label(ShipView, key)


def ship_data(ship: ShipView) -> Rows:
    points = f"{ship.points_base} → {ship.points_total} (crew {ship.crew_percent:+d}%)"
    rows = [
        (label("size_modifier"), f"{ship.size_modifier:+d}"),
        (label("speed_kn"), f"{ship.speed_kn} kn"),
        (label("armour_class"), ship.armour_class or "-"),
        (label("points_base"), points),
        ("Base", f"{ship.base_width_cm:g} cm"),
    ]
    extras = [(label(key), getattr(ship, key)) for key in ("torpedoes", "sraa_dp", "radar")]
    return rows + [(name, value) for name, value in extras if value]


def _batteries(ship: ShipView) -> str:
    return "; ".join(
        f"{b.guns} x {b.calibre} {b.mount}".strip()
        + (f" (IP {b.ip}, bands {b.range_bands})" if b.ip or b.range_bands else "")
        + (f" {b.notes}" if b.notes else "")
        for b in ship.batteries
    )


def _critical(critical: CriticalView) -> str:
    return critical_text(critical.kind, critical.effect, critical.roll, critical.turn)


def _counter_parts(counter: CounterView) -> list[str]:
    """The counter in words: size, speed, hull, gunnery, crippled, torpedoes and mines."""
    parts = [f"{counter.counter_size} counter" if counter.counter_size else "no counter size"]
    speed = f"speed {counter.speed_rating - counter.speed_lost}"
    if counter.speed_lost:
        speed += f" (rated {counter.speed_rating}, {counter.speed_lost} lost)"
    parts.append(speed)
    if counter.hull_boxes or counter.hull_damage:
        parts.append(f"hull {counter.hull_damage} of {counter.hull_boxes} boxes hit")
    if counter.gunnery_lost:
        parts.append(f"gunnery -{counter.gunnery_lost}")
    if counter.crippled:
        parts.append("CRIPPLED")
    if counter.mines_hidden:
        parts.append(f"torpedo factors {visibility.HIDDEN} of {counter.torpedo_factors}")
    elif counter.torpedo_factors or counter.mines_loaded:
        parts.append(f"torpedo factors {counter.torpedoes_left}")
    if counter.mines_loaded:
        parts.append(f"mines aboard {counter.mines_aboard} of {counter.mines_loaded}")
    return parts


def _fuel_words(counter: CounterView) -> str:
    fuel = counter.fuel
    return f"{fuel.full} full, {fuel.empty} empty, {fuel.lost} lost"


def render(printed: PrintedSheet, *, fmt: str = "html", paper: str = "a4") -> str:
    record = printed.record
    kind, scenario = heading(record)
    blocks = [("Commander", _commander_rows(record), "No commander yet."),
              ("Crew", _crew_rows(record), "No crew rating yet."),
              (kind, _squadron_rows(record), "")]  # fmt: skip
    return page(
        "sheet", fmt=fmt, paper=paper, sheet=printed, record=record, kind=kind,
        scenario=scenario, blocks=blocks, flags=_flags, label=label, data=ship_data,
        batteries=_batteries, critical=_critical, counter_parts=_counter_parts,
        fuel_words=_fuel_words, tabled=[label(key) for key in TABLED], glyphs=(FULL, EMPTY, LOST),
    )  # fmt: skip


def squadron_page(
    factory: SessionFactory, *, squadron_id: int, fmt: str = "html", paper: str = "a4",
    viewer: Viewer = Viewer.OWNER,
) -> str:  # fmt: skip
    """The squadron's sheet as it stands, for its own side or (`viewer`) for the opponent or
    the umpire (docs/RULES.md §Secrets)."""
    check_output(fmt, paper)
    printed = printing.load_printed_sheet(factory, squadron_id=squadron_id, viewer=viewer)
    return render(printed, fmt=fmt, paper=paper)


def write_sheet(
    factory: SessionFactory, *, squadron_id: int, path: str | Path, fmt: str = "html",
    paper: str = "a4", replace: bool = False, new_only: bool = False,
    viewer: Viewer = Viewer.OWNER,
) -> Path:  # fmt: skip
    """Write the squadron's printable sheet to a file, whole or not at all (services.printing
    .write_file says where it may go); returns its path."""
    check_output(fmt, paper, path)
    return printing.write_file(
        factory, path=path, replace=replace, new_only=new_only,
        private=Viewer(viewer) is Viewer.OWNER,  # a minelayer's mines: the player's alone
        content=lambda: squadron_page(factory, squadron_id=squadron_id, fmt=fmt, paper=paper,
                                      viewer=viewer),
    )  # fmt: skip
