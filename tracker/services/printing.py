"""Printable record sheets: a squadron's current state as a self-contained HTML page or Markdown.

The HTML is for paper beside the table when the battery dies: inline CSS and SVG only (no script,
no font or image from anywhere), black and grey, one ship never split across two pages, and
blank boxes and lines for pencil. Every piece of player-typed text goes through `html.escape`
(or `_md` for Markdown), so a ship called `<b>Exeter</b> & [x]` prints as typed.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlmodel import col, select

from tracker import paths, safe_output
from tracker.db import SessionFactory, session_scope, sqlite_path
from tracker.models import Campaign, Side, Squadron
from tracker.models.fields import printed_label
from tracker.models.kinds import Acquisition, CriticalStatus, ScenarioStatus
from tracker.rules import smr
from tracker.rules.damage import critical_text
from tracker.services import damage, mines, sheet, visibility
from tracker.services.common import get_row
from tracker.services.damage import CriticalView
from tracker.services.errors import InvalidInput, check
from tracker.services.mines import CounterView
from tracker.services.views import CrewView, RecordSheet, ShipView
from tracker.services.visibility import Viewer

# paper key -> the CSS @page size and the printable width (the page less two 12 mm margins).
PAPERS = {"a4": ("A4", "186mm"), "letter": ("Letter", "191mm")}
FORMATS = {"html": ".html", "markdown": ".md"}
MAX_LISTED = 12  # squadrons named in a refusal before "and N more"
# The glyphs the app's fuel track uses, so paper and screen read alike.
FULL, EMPTY, LOST = "■", "□", "✕"


@dataclass(frozen=True)
class PrintedShip:
    """A ship as printed: its sheet row, its criticals in force and its counter (if it has one)."""

    ship: ShipView
    criticals: tuple[CriticalView, ...]
    counter: CounterView | None


@dataclass(frozen=True)
class PrintedSheet:
    record: RecordSheet
    ships: tuple[PrintedShip, ...]
    printed_on: str


def _has_counter(counter: CounterView) -> bool:
    # A squadron played with Stations Manned and Ready! alone has no counter values at all.
    values = (counter.speed_rating, counter.torpedo_factors, counter.hull_boxes, counter.fuel.total)
    return bool(counter.counter_size) or any(values)


def load_printed_sheet(
    factory: SessionFactory, *, squadron_id: int, viewer: Viewer = Viewer.OWNER
) -> PrintedSheet:
    """The record sheet of a squadron with each ship's active criticals and counter, to print
    for its own side or (`viewer`) for the opponent or the umpire (docs/RULES.md §Secrets)."""
    record = sheet.load_record_sheet(factory, squadron_id=squadron_id)
    ships = []
    for ship in record.ships:
        criticals = damage.list_criticals(factory, ship_id=ship.id)
        counter = mines.counter(factory, ship_id=ship.id, viewer=viewer)
        ships.append(
            PrintedShip(
                ship=ship,
                criticals=tuple(c for c in criticals if c.status == CriticalStatus.ACTIVE),
                counter=counter if _has_counter(counter) else None,
            )
        )
    return PrintedSheet(record=record, ships=tuple(ships), printed_on=date.today().isoformat())


# --- finding a squadron by name (the command line) ----------------------------------------------


def _key(name: str) -> str:
    """Case and the spaces around a `/` do not matter: `royal navy / force g`."""
    return "/".join(part.strip() for part in name.casefold().split("/"))


def find_squadron(factory: SessionFactory, name: str) -> int:
    """The id of the squadron named `name` (any case), or `Side/Squadron`, or
    `Campaign/Side/Squadron`; an unknown or ambiguous name is refused with the candidates."""
    wanted = _key(name)
    if not wanted.strip("/"):
        raise InvalidInput({"squadron": 'give a squadron\'s name, e.g. "Force G" or '
                            '"Royal Navy/Force G"'})  # fmt: skip
    with session_scope(factory) as session:
        rows = session.exec(
            select(Squadron.id, Squadron.name, Side.name, Campaign.name)
            .join(Side, col(Squadron.side_id) == col(Side.id))
            .join(Campaign, col(Side.campaign_id) == col(Campaign.id))
            .order_by(col(Campaign.id), col(Side.id), col(Squadron.id))
        ).all()
    names = [
        (squadron_id or 0, (squadron, f"{side}/{squadron}", f"{campaign}/{side}/{squadron}"))
        for squadron_id, squadron, side, campaign in rows
    ]
    matches = [
        (squadron_id, labels)
        for squadron_id, labels in names
        if wanted in {_key(label) for label in labels}
    ]
    if len(matches) == 1:
        return matches[0][0]
    # Side/Squadron is enough to tell them apart unless two campaigns share both names.
    short = [labels[1] for _, labels in names]
    shown = [labels[1] if short.count(labels[1]) == 1 else labels[2] for _, labels in names]
    label_of = dict(zip([squadron_id for squadron_id, _ in names], shown, strict=True))
    if matches:
        listed = ", ".join(label_of[squadron_id] for squadron_id, _ in matches)
        raise InvalidInput({"squadron": f'"{name}" names {len(matches)} squadrons: {listed}; '
                            "give Side/Squadron"})  # fmt: skip
    if not names:
        raise InvalidInput({"squadron": f'no squadron named "{name}": the file has no squadrons'})
    listed = ", ".join(shown[:MAX_LISTED])
    if len(shown) > MAX_LISTED:
        listed += f" and {len(shown) - MAX_LISTED} more"
    raise InvalidInput({"squadron": f'no squadron named "{name}"; the file has {listed}'})


# --- shared wording -----------------------------------------------------------------------------


def _heading_parts(record: RecordSheet) -> tuple[str, str]:
    """(kind, scenario): "Squadron" or "Air group", and where the campaign stands."""
    kind = "Air group" if record.air else "Squadron"
    if not record.scenario:
        return kind, "no scenario yet"
    if record.scenario_status == ScenarioStatus.IN_PLAY:
        return kind, f"{record.scenario}, turn {record.turn}"
    return kind, f"{record.scenario} ({record.scenario_status.replace('_', ' ')})"


def _commander_rows(record: RecordSheet) -> list[tuple[str, str]]:
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


def crew_how(crew: CrewView) -> str:
    """How the crew's quality was got: "rolled 5 at IV" (" → 6" if modified) or "bought at IV"."""
    level = smr.training_numeral(crew.training)
    if crew.acquisition != Acquisition.RANDOM:
        return f"bought at {level}"
    how = f"rolled {crew.roll} at {level}"
    if crew.roll_modified is not None and crew.roll_modified != crew.roll:
        how += f" → {crew.roll_modified}"
    return how


def _crew_rows(record: RecordSheet) -> list[tuple[str, str]]:
    crew = record.crew
    if crew is None:
        return []
    return [
        ("Quality", f"{crew.quality} ({crew_how(crew)})"),
        ("Modifier", f"{crew.modifier_now:+d} (base {crew.modifier_base:+d})"),
        ("Points", f"{crew.cost_percent:+d}% on each ship"),
        ("Commander rule", "on" if record.crew_roll_adds_commander else "off"),
    ]


def _squadron_rows(record: RecordSheet) -> list[tuple[str, str]]:
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


def _ship_flags(ship: ShipView) -> list[str]:
    """SUNK, the condition at zero, the smoke markers that call for morale tests, OoC."""
    if ship.sunk:
        return ["SUNK"]
    flags = [ship.condition] if ship.condition else []
    flags += [f"{mark} {sheet.MORALE_WORDS[mark]}: morale test" for mark in ship.morale]
    if ship.out_of_command:
        flags.append("Out of Command this turn")
    return flags


def _label(key: str) -> str:
    """A ship's field as the printed sheet names it: the ship's declaration says (ShipBase)."""
    return printed_label(ShipView, key)


# The ship's fields the Markdown sheet's table of ships shows, in its columns' order.
TABLED = ("type_abbrev", "class_name", "nation", "speed_kn", "armour_class", "points_base",
          "structure_max", "flotation_max", "fire_markers")  # fmt: skip


def _ship_data(ship: ShipView) -> list[tuple[str, str]]:
    points = f"{ship.points_base} → {ship.points_total} (crew {ship.crew_percent:+d}%)"
    rows = [
        (_label("size_modifier"), f"{ship.size_modifier:+d}"),
        (_label("speed_kn"), f"{ship.speed_kn} kn"),
        (_label("armour_class"), ship.armour_class or "-"),
        (_label("points_base"), points),
        ("Base", f"{ship.base_width_cm:g} cm"),
    ]
    extras = [(_label(key), getattr(ship, key)) for key in ("torpedoes", "sraa_dp", "radar")]
    return rows + [(label, value) for label, value in extras if value]


def _batteries(ship: ShipView) -> str:
    return "; ".join(
        f"{b.guns} x {b.calibre} {b.mount}".strip()
        + (f" (IP {b.ip}, bands {b.range_bands})" if b.ip or b.range_bands else "")
        + (f" {b.notes}" if b.notes else "")
        for b in ship.batteries
    )


def _third(maximum: int) -> int:
    """The highest value still "at 1/3" (RULES.md §SMR2: current * 3 <= maximum)."""
    return maximum // 3


def _critical_text(critical: CriticalView) -> str:
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


# --- HTML ---------------------------------------------------------------------------------------


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


# The paper, the ink and the font of every printed page (the record sheet, the reports).
PAGE_CSS = """
@page { size: %(size)s; margin: 12mm; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; color: #000; background: #fff;
  font: 8.5pt/1.3 "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; }
@media screen { body { width: %(width)s; margin: 8mm auto; } }
"""
CSS = (
    PAGE_CSS
    + """header { display: flex; align-items: baseline; gap: 4mm; flex-wrap: wrap;
  border-bottom: 2px solid #000; padding-bottom: 1mm; margin-bottom: 2mm; }
h1 { font-size: 15pt; margin: 0; }
header .form { font-size: 7.5pt; text-transform: uppercase; letter-spacing: .08em; }
.meta { margin: 0; flex-basis: 100%%; }
.blocks { display: flex; gap: 3mm; margin-bottom: 2.5mm; }
.block { flex: 1; border: 1px solid #000; padding: 1mm 2mm 1.5mm; break-inside: avoid; }
h2 { font-size: 7.5pt; text-transform: uppercase; letter-spacing: .06em; margin: 0 0 .8mm;
  border-bottom: 1px solid #000; }
table { border-collapse: collapse; }
th { text-align: left; font-weight: normal; color: #444; padding: 0 2mm 0 0;
  vertical-align: top; white-space: nowrap; }
td { padding: 0 3mm 0 0; vertical-align: top; }
.write { border-bottom: 1px solid #999; height: 5mm; }
.ship { border: 1.5px solid #000; padding: 1mm 2.5mm 1.5mm; margin-bottom: 2.5mm;
  break-inside: avoid; page-break-inside: avoid; }
.ship.sunk { border-style: dashed; }
.ship-head { display: flex; align-items: baseline; gap: 3mm; border-bottom: 1px solid #000;
  padding-bottom: .3mm; margin-bottom: .8mm; }
h3 { font-size: 11pt; margin: 0; }
.flags { margin-left: auto; text-align: right; }
.flag { display: inline-block; font-weight: bold; border: 1.5px solid #000; padding: 0 1.5mm;
  margin-left: 1.5mm; }
.data th { padding-right: 1.2mm; }
.data td { padding-right: 3.5mm; }
.batteries { margin: .5mm 0 0; }
.cols { display: flex; gap: 4mm; margin-top: .5mm; }
.cols > div { flex: 2; min-width: 0; }
.cols > div:first-child { flex: 3; }
.track { display: flex; align-items: center; gap: 2mm; min-height: 5.5mm; }
.track .label { width: 17mm; flex: none; }
.track .value { white-space: nowrap; }
.track .value b { font-size: 9.5pt; }
.label { font-weight: bold; }
ol { margin: 0; padding-left: 5mm; }
.counter { display: flex; align-items: center; flex-wrap: wrap; gap: 1mm 2.5mm;
  border-top: 1px dotted #000; margin-top: 1mm; padding-top: .8mm; }
.notes-text { white-space: pre-wrap; margin: 0; }
.squadron-notes { border: 1px solid #000; padding: 1mm 2.5mm 1.5mm; break-inside: avoid; }
.legend { font-size: 7pt; color: #333; margin: 1.5mm 0 0; }
svg { display: block; overflow: visible; flex: none; }
"""
)


def _html_rows(rows: Sequence[tuple[str, str]]) -> str:
    return "".join(f"<tr><th>{_e(label)}</th><td>{_e(value)}</td></tr>" for label, value in rows)


def _html_block(title: str, rows: Sequence[tuple[str, str]], empty: str) -> str:
    body = f"<table>{_html_rows(rows)}</table>" if rows else (
        f"<p>{_e(empty)}</p>" + '<div class="write"></div>' * 3)  # fmt: skip
    return f'<div class="block"><h2>{_e(title)}</h2>{body}</div>'


# Box states: fill, and whether the box is crossed out (lost or hit).
BOX_STYLE = {"ok": ("#fff", False), "lost": ("#bbb", True), "full": ("#000", False),
             "empty": ("#fff", False), "gone": ("#bbb", True)}  # fmt: skip


def _boxes_svg(states: Sequence[str], *, label: str, mark_after: int | None = None) -> str:
    """A row of boxes, one per point or factor, with an optional thick line after a box.

    Tracks of more than 20 boxes shrink them, so any track fits beside its label and value.
    """
    pitch = min(12.0, 240.0 / max(len(states), 1))
    size = pitch - min(2.0, pitch / 4)
    top = 3
    shapes = []
    for index, state in enumerate(states):
        fill, crossed = BOX_STYLE[state]
        x = index * pitch
        shapes.append(f'<rect x="{x:g}" y="{top}" width="{size:g}" height="12" fill="{fill}" '
                      'stroke="#000" stroke-width="1"/>')  # fmt: skip
        if crossed:
            shapes.append(f'<path d="M{x:g} {top}l{size:g} 12m0 -12l{-size:g} 12" '
                          'stroke="#000" stroke-width="1"/>')  # fmt: skip
    if mark_after is not None:
        # Between box `mark_after` and the next: the boxes left of it are "at 1/3".
        x = mark_after * pitch - 1
        shapes.append(f'<path d="M{x:g} 0v18" stroke="#000" stroke-width="2.5"/>')
    width = max(len(states) * pitch, 1)
    height = 18
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{_e(label)}" '
            f'width="{width:g}" height="{height}" viewBox="0 0 {width:g} {height}">'
            f'{"".join(shapes)}</svg>')  # fmt: skip


def _track_html(name: str, now: int, maximum: int) -> str:
    """Structure or Flotation: a box per point and the 1/3 mark (the ship's heading carries the
    smoke flag when it is at or below it)."""
    third = _third(maximum)
    states = ["ok"] * now + ["lost"] * max(maximum - now, 0)
    svg = _boxes_svg(states, label=f"{name} {now} of {maximum}, 1/3 at {third}", mark_after=third)
    value = f'<span class="value"><b>{now}</b> / {maximum} · ⅓ at {third}</span>'
    return f'<div class="track"><span class="label">{name}</span>{svg}{value}</div>'


def _fire_svg(markers: int) -> str:
    """Fire markers as black discs, with blank circles after them for pencil."""
    count = max(markers + 3, 5)
    circles = "".join(
        f'<circle cx="{6 + 13 * i}" cy="7" r="5" fill="{"#000" if i < markers else "#fff"}" '
        'stroke="#000"/>'
        for i in range(count)
    )
    width = 13 * count
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{markers} fire markers" '
        f'width="{width}" height="14" viewBox="0 0 {width} 14">{circles}</svg>'
    )


def _counter_html(counter: CounterView) -> str:
    """One line: the counter in words, its hull boxes and its fuel track."""
    items = ['<span class="label">Second World War at Sea</span>',
             " · ".join(_e(part) for part in _counter_parts(counter))]  # fmt: skip
    if counter.hull_boxes:
        hit = min(counter.hull_damage, counter.hull_boxes)
        states = ["gone"] * hit + ["ok"] * (counter.hull_boxes - hit)
        label = f"hull {hit} of {counter.hull_boxes} boxes hit"
        items += ['<span class="label">Hull</span>', _boxes_svg(states, label=label)]
    fuel = counter.fuel
    items.append('<span class="label">Fuel</span>')
    if fuel.total:
        states = ["full"] * fuel.full + ["empty"] * fuel.empty + ["gone"] * fuel.lost
        lost = " (lost to mines: a friendly-port repair restores them)" if fuel.lost else ""
        items += [_boxes_svg(states, label=f"fuel: {_fuel_words(counter)}"),
                  f"<span>{_e(_fuel_words(counter))}{lost}</span>"]  # fmt: skip
    else:
        items.append("<span>none</span>")
    return f'<div class="counter">{"".join(items)}</div>'


def _ship_html(printed: PrintedShip) -> str:
    ship = printed.ship
    flags = "".join(f'<span class="flag">{_e(flag)}</span>' for flag in _ship_flags(ship))
    identity = " · ".join(
        _e(part) for part in (ship.type_abbrev, f"{ship.class_name} class" if ship.class_name
                              else "", ship.nation) if part
    )  # fmt: skip
    data = "".join(f"<th>{_e(label)}</th><td>{_e(value)}</td>" for label, value in _ship_data(ship))
    batteries = _batteries(ship)
    criticals = (
        "<ol>" + "".join(f"<li>{_e(_critical_text(c))}</li>" for c in printed.criticals) + "</ol>"
        if printed.criticals else " none"
    )  # fmt: skip
    notes = f'<p class="notes-text">{_e(ship.notes)}</p>' if ship.notes else ""
    fire = ship.fire_markers
    return "".join((
        f'<section class="ship{" sunk" if ship.sunk else ""}">',
        f'<div class="ship-head"><h3>{_e(ship.name)}</h3><span>{identity}</span>',
        f'<span class="flags">{flags}</span></div>',
        f'<table class="data"><tr>{data}</tr></table>',
        f'<p class="batteries"><span class="label">Batteries</span> {_e(batteries)}</p>'
        if batteries else "",
        '<div class="cols"><div>',
        _track_html(_label("structure_max"), ship.structure_now, ship.structure_max),
        _track_html(_label("flotation_max"), ship.flotation_now, ship.flotation_max),
        f'<div class="track"><span class="label">Fire</span>{_fire_svg(fire)}'
        f'<span class="value"><b>{fire}</b> marker{"s" * (fire != 1)}</span></div>',
        '</div><div><span class="label">Criticals in force</span>',
        f'{criticals}<div class="write"></div>',
        f'<span class="label">Notes</span>{notes}<div class="write"></div></div></div>',
        _counter_html(printed.counter) if printed.counter else "",
        "</section>",
    ))  # fmt: skip


LEGEND = (
    "One box per point; grey crossed boxes are points lost, blank ones are left to cross off in "
    "pencil. The thick line marks 1/3: at or below it the ship takes a morale test (S⅓ black "
    "smoke for Structure, F⅓ white smoke for Flotation). Fuel: black full, white empty, grey "
    "crossed lost to mines."
)


def squadron_html(
    factory: SessionFactory, *, squadron_id: int, paper: str = "a4", viewer: Viewer = Viewer.OWNER
) -> str:
    """The squadron's current state as one self-contained HTML page laid out for A4 or Letter."""
    if paper not in PAPERS:
        raise InvalidInput({"paper": f"must be a4 or letter, got {paper!r}"})
    printed = load_printed_sheet(factory, squadron_id=squadron_id, viewer=viewer)
    record = printed.record
    size, width = PAPERS[paper]
    kind, scenario = _heading_parts(record)
    title = f"{record.squadron_name} · {record.side_name} · Squadron Record Sheet"
    ships = "".join(_ship_html(ship) for ship in printed.ships) or (
        '<p>No ships in this squadron.</p>')  # fmt: skip
    notes = f'<p class="notes-text">{_e(record.notes)}</p>' if record.notes else ""
    return "".join((
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS % {'size': size, 'width': width}}</style>",
        "</head><body>",
        f"<header><h1>{_e(kind)} {_e(record.squadron_name)}</h1>",
        '<span class="form">Squadron Record Sheet · Stations Manned and Ready! Part 2</span>',
        f'<p class="meta">Campaign: {_e(record.campaign_name)} · Side: {_e(record.side_name)} · '
        f"Scenario: {_e(scenario)} · Printed {_e(printed.printed_on)}</p></header>",
        '<div class="blocks">',
        _html_block("Commander", _commander_rows(record), "No commander yet."),
        _html_block("Crew", _crew_rows(record), "No crew rating yet."),
        _html_block(kind, _squadron_rows(record), ""),
        "</div>",
        ships,
        f'<div class="squadron-notes"><h2>{_e(kind)} notes</h2>{notes}',
        '<div class="write"></div>' * 2,
        "</div>",
        f'<p class="legend">{_e(LEGEND)}</p>',
        "</body></html>\n",
    ))  # fmt: skip


# --- Markdown -----------------------------------------------------------------------------------

# Inline Markdown that would change what a name shows: escaped with a backslash. Line-start
# markers (#, -, 1.) never begin a line here: every typed text follows a label or a table pipe.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~])")


def _md(text: object) -> str:
    escaped = _MD_SPECIAL.sub(r"\\\1", str(text))
    return "<br>".join(line.strip() for line in escaped.splitlines()) if escaped else ""


def _md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows]
    return [*lines, ""]


def _md_bar(now: int, maximum: int) -> str:
    """■ per point left, □ per point lost, ¦ at the 1/3 mark; long tracks show the numbers only."""
    if maximum > 40:
        return ""
    boxes = FULL * min(now, maximum) + EMPTY * max(maximum - now, 0)
    third = _third(maximum)
    return f" {boxes[:third]}¦{boxes[third:]}"


def _md_ship(printed: PrintedShip) -> list[str]:
    ship = printed.ship
    lines = [f"### {_md(ship.name)}", ""]
    flags = _ship_flags(ship)
    if flags:
        lines.append(f"**{_md(' · '.join(flags))}**")
        lines.append("")
    data = [(_label(key), getattr(ship, key)) for key in ("type_abbrev", "class_name", "nation")]
    facts = [(label, value) for label, value in data if value] + _ship_data(ship)
    lines.append(" · ".join(f"{label} {_md(value)}" for label, value in facts))
    lines.append("")
    if _batteries(ship):
        lines.append(f"- Batteries: {_md(_batteries(ship))}")
    for name, now, maximum in (
        (_label("structure_max"), ship.structure_now, ship.structure_max),
        (_label("flotation_max"), ship.flotation_now, ship.flotation_max),
    ):
        lines.append(f"- {name}: {now}/{maximum}{_md_bar(now, maximum)} (⅓ at {_third(maximum)})")
    lines.append(f"- Fire markers: {ship.fire_markers}")
    if printed.criticals:
        lines.append("- Criticals in force:")
        lines += [f"  {n}. {_md(_critical_text(c))}" for n, c in enumerate(printed.criticals, 1)]
    else:
        lines.append("- Criticals in force: none")
    counter = printed.counter
    if counter is not None:
        lines.append(f"- Second World War at Sea: {_md(' · '.join(_counter_parts(counter)))}")
        fuel = counter.fuel
        track = FULL * fuel.full + EMPTY * fuel.empty + LOST * fuel.lost
        lines.append(f"- Fuel: {track} {_fuel_words(counter)}" if fuel.total else "- Fuel: none")
    lines.append(f"- Notes: {_md(ship.notes)}".rstrip())
    return [*lines, ""]


def squadron_markdown(
    factory: SessionFactory, *, squadron_id: int, viewer: Viewer = Viewer.OWNER
) -> str:
    """The squadron's current state as Markdown with tables, for the players' own notes."""
    printed = load_printed_sheet(factory, squadron_id=squadron_id, viewer=viewer)
    record = printed.record
    kind, scenario = _heading_parts(record)
    lines = [
        f"# {_md(record.squadron_name)}: {kind} Record Sheet",
        "",
        f"Campaign: {_md(record.campaign_name)} · Side: {_md(record.side_name)} · "
        f"Scenario: {_md(scenario)} · Printed {printed.printed_on}",
        "",
    ]
    for title, rows, empty in (
        ("Commander", _commander_rows(record), "No commander yet."),
        ("Crew", _crew_rows(record), "No crew rating yet."),
        (kind, _squadron_rows(record), ""),
    ):
        lines += [f"## {title}", ""]
        if rows:
            lines += _md_table([label for label, _ in rows], [[value for _, value in rows]])
        else:
            lines += [empty, ""]
    lines += ["## Ships", ""]
    if printed.ships:
        lines += _md_table(
            ["Ship", *map(_label, TABLED), "Status"],
            ([p.ship.name, p.ship.type_abbrev, p.ship.class_name, p.ship.nation,
              f"{p.ship.speed_kn} kn", p.ship.armour_class, str(p.ship.points_total),
              f"{p.ship.structure_now}/{p.ship.structure_max}",
              f"{p.ship.flotation_now}/{p.ship.flotation_max}", str(p.ship.fire_markers),
              ", ".join(_ship_flags(p.ship))] for p in printed.ships),
        )  # fmt: skip
        for ship in printed.ships:
            lines += _md_ship(ship)
    else:
        lines += ["No ships in this squadron.", ""]
    lines += [f"## {kind} notes", ""]
    if record.notes:
        lines += [_md(record.notes), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


# --- writing a file -----------------------------------------------------------------------------


def _file_name(name: str, squadron_id: int) -> str:
    slug = re.sub(r"[^\w.-]+", "-", name).strip("-.")
    return slug or f"squadron-{squadron_id}"


def default_sheet_path(factory: SessionFactory, *, squadron_id: int, fmt: str = "html") -> Path:
    """saves/<squadron>.html (or .md) beside the campaign file; the default saves/ folder when
    the campaign lives in a database that is not a file."""
    with session_scope(factory) as session:
        squadron = get_row(session, Squadron, squadron_id)
    name = _file_name(squadron.name, squadron_id) + FORMATS.get(fmt, ".html")
    return campaign_folder(factory) / name


def campaign_file(factory: SessionFactory) -> Path | None:
    """The campaign file behind the factory (None when the campaign is not in a file)."""
    with session_scope(factory) as session:
        url = session.get_bind().engine.url.render_as_string(hide_password=True)
    db_file = sqlite_path(url)
    return Path(os.path.abspath(db_file)) if db_file else None


def campaign_folder(factory: SessionFactory) -> Path:
    """The folder of the campaign file (saves/ when the campaign is not in a file)."""
    db_file = campaign_file(factory)
    return db_file.parent if db_file else paths.default_saves_dir()


def check_output(fmt: str, paper: str, path: str | Path) -> None:
    """Refuse a format, paper or file name no printed page can have, before anything is read."""
    errors: dict[str, str] = {}
    if fmt not in FORMATS:
        errors["fmt"] = f"must be html or markdown, got {fmt!r}"
    if paper not in PAPERS:
        errors["paper"] = f"must be a4 or letter, got {paper!r}"
    if not str(path).strip():
        errors["path"] = "must not be blank"
    check(errors)


def write_sheet(
    factory: SessionFactory,
    *,
    squadron_id: int,
    path: str | Path,
    fmt: str = "html",
    paper: str = "a4",
    replace: bool = False,
    new_only: bool = False,
    viewer: Viewer = Viewer.OWNER,
) -> Path:
    """Write the squadron's printable sheet to a file, whole or not at all; returns its path.

    The file goes through safe_output: never over the campaign file or a backup, over another
    existing file only when `replace` says the player confirmed (ExistingFile otherwise), never
    over one when `new_only` (the umpire's view); the owner's (a minelayer's mines) 0600.
    """
    check_output(fmt, paper, path)

    def content() -> str:
        if fmt == "html":
            return squadron_html(factory, squadron_id=squadron_id, paper=paper, viewer=viewer)
        return squadron_markdown(factory, squadron_id=squadron_id, viewer=viewer)

    try:
        return safe_output.write_text(path, content, campaign=campaign_file(factory),
                                      replace=replace, new_only=new_only,
                                      private=Viewer(viewer) is Viewer.OWNER)  # fmt: skip
    except safe_output.OutputRefused as exc:
        raise InvalidInput({"path": str(exc)}) from exc
