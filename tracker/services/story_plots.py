"""The campaign report's plots: what each one counts, and its drawing.

Structure and Flotation at each scenario's start and end, as the history plot (h) has them, with
the 1/3 line of each track (docs/RULES.md §SMR2: a ship at or below 1/3 of a track owes a
morale test). A side's plot sums the same ships all along, so a line moves only when a ship took
damage, was repaired, sank or first joined the side's battles: a ship sunk counts 0 from the end
of the scenario it sank in; a ship sitting a scenario out counts as it stood (its last end, plus
the repairs made since). Its 1/3 lines are a third of those ships' full Structure and Flotation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from xml.etree import ElementTree

if TYPE_CHECKING:
    from tracker.services.reports import AfterActionReport, ServiceRecord, ShipInAction

AXIS = "1s, 1e: start and end of scenario 1"
THIRD = "1/3: a third of full Structure or Flotation; at or below it, a morale test (SMR2 §2)."
SIDE_NOTE = (
    "Its ships from their first scenario on: a ship sunk counts 0, one sitting a scenario out "
    "counts as it stood (its last end plus repairs)."
)


@dataclass(frozen=True)
class Series:
    """Structure and Flotation over the scenarios, each scenario's start then its end ("2s",
    "2e"), and at each point the full Structure and Flotation its 1/3 lines are a third of."""

    name: str
    labels: tuple[str, ...]
    structure: tuple[int, ...]
    flotation: tuple[int, ...]
    structure_full: tuple[int, ...]
    flotation_full: tuple[int, ...]
    note: str = ""  # what the figures count, or what became of the ship

    @property
    def thirds(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The 1/3 lines: a third of the full Structure, then of the full Flotation."""
        return (tuple(full / 3 for full in self.structure_full),
                tuple(full / 3 for full in self.flotation_full))  # fmt: skip


Point = tuple[str, int, int, int, int]  # label, Structure, Flotation and their full values


def _series(name: str, points: Sequence[Point], note: str = "") -> Series:
    columns = tuple(zip(*points, strict=True)) if points else ((),) * 5
    labels, structure, flotation, s_full, f_full = columns
    return Series(name, tuple(labels), tuple(structure), tuple(flotation), tuple(s_full),
                  tuple(f_full), note)  # fmt: skip


def ship_series(records: Iterable[ServiceRecord]) -> tuple[Series, ...]:
    """Each ship's tracks at the start and end of each scenario it fought."""
    found = []
    for record in records:
        points: list[Point] = []
        note = ""
        for line in record.lines:
            points.append((f"{line.position}s", *line.start, *line.full))
            if line.end is not None:
                points.append((f"{line.position}e", *line.end, *line.full))
            if line.fate == "sunk":
                note = f"Sunk in scenario {line.position}: it counts 0 in its side's plot."
        found.append(_series(record.name, points, note))
    return tuple(found)


def side_series(
    reports: Sequence[AfterActionReport], sides: Mapping[int, str],
    repairs: Mapping[tuple[int, int | None], tuple[int, int]],
) -> tuple[Series, ...]:  # fmt: skip
    """Each side's sums over its ships at each scenario's start and end (see the module's
    docstring); `repairs` is Structure and Flotation repaired by (ship, the scenario after)."""
    found = []
    for side_id, name in sides.items():
        seen: dict[int, tuple[int, ShipInAction]] = {}  # ship -> (report index, its showing)
        points: list[Point] = []
        for index, report in enumerate(reports):
            here = {s.ship_id: s for s in report.ships if s.side_id == side_id}
            for phase in ("start", "end"):
                values = [
                    _value(here[ship_id], phase) if ship_id in here
                    else _carried(*seen[ship_id], reports[:index], repairs)
                    for ship_id in {**seen, **here}
                ]  # fmt: skip
                if values:
                    sums = [sum(value[i] for value in values) for i in range(4)]
                    points.append((f"{report.position}{phase[0]}", *sums))  # type: ignore[arg-type]
            seen.update({ship_id: (index, ship) for ship_id, ship in here.items()})
        if points:
            found.append(_series(name, points, SIDE_NOTE))
    return tuple(found)


def _value(ship: ShipInAction, phase: str) -> tuple[int, int, int, int]:
    structure, flotation = (0, 0) if phase == "end" and ship.sunk else getattr(ship, phase)
    return structure, flotation, ship.structure_max, ship.flotation_max


def _carried(
    index: int, ship: ShipInAction, before: Sequence[AfterActionReport],
    repairs: Mapping[tuple[int, int | None], tuple[int, int]],
) -> tuple[int, int, int, int]:  # fmt: skip
    """A ship sitting a scenario out: 0 once sunk, else its last end and the repairs since."""
    if ship.sunk:
        return 0, 0, ship.structure_max, ship.flotation_max
    done = [repairs.get((ship.ship_id, report.scenario_id), (0, 0)) for report in before[index:]]
    return (min(ship.structure_max, ship.end[0] + sum(d[0] for d in done)),
            min(ship.flotation_max, ship.end[1] + sum(d[1] for d in done)),
            ship.structure_max, ship.flotation_max)  # fmt: skip


# --- drawing ------------------------------------------------------------------------------------

# Each line of a plot: its name, colour, dashes and width; the plots and their key draw from it.
LINES = (
    ("Structure", "#000", "", 1.6),
    ("Flotation", "#777", "6, 3", 1.6),
    ("1/3 Structure", "#000", "2, 3", 1.3),
    ("1/3 Flotation", "#777", "2, 3", 1.3),
)
GRID = "#e6e6e6"  # solid and faint: never read as a track


def key_html() -> str:
    """The plots' key as inline SVG and text: a sample of each line, as drawn."""
    samples = "".join(
        f'<span class="sample"><svg width="22" height="6" viewBox="0 0 22 6" aria-hidden="true">'
        f'<line x1="0" y1="3" x2="22" y2="3" stroke="{colour}" stroke-width="{width}" '
        f'stroke-dasharray="{dashes or "none"}"/></svg> {name}</span>'
        for name, colour, dashes, width in LINES
    )
    return f'<span class="key">{samples}</span>'


def plot_svg(series: Series, *, width: int = 340, height: int = 170) -> str:
    """The plot as inline SVG, drawn by pygal, its lines as LINES says (the key names them), the
    grid solid and faint, the axis saying what its codes mean. Its script (tooltips, for a
    browser) is taken out: the page holds none."""
    import pygal
    from pygal.style import Style

    style = Style(background="white", plot_background="white", foreground="#000",
                  foreground_strong="#000", foreground_subtle=GRID,
                  colors=tuple(colour for _, colour, _, _ in LINES), guide_stroke_color=GRID,
                  major_guide_stroke_color=GRID, guide_stroke_dasharray="none",
                  major_guide_stroke_dasharray="none",
                  font_family="DejaVu Sans, Arial, sans-serif", title_font_size=10,
                  label_font_size=10, major_label_font_size=10)  # fmt: skip
    s_third, f_third = series.thirds
    top = max([*series.structure, *series.flotation, *s_third, *f_third, 1]) + 1
    chart = pygal.Line(js=[], disable_xml_declaration=True, width=width, height=height,
                       style=style, range=(0, top), show_legend=False, dots_size=2.5,
                       x_title=AXIS, margin=4, include_x_axis=True, max_scale=6,
                       show_x_guides=False)  # fmt: skip
    chart.x_labels = list(series.labels)
    values = (series.structure, series.flotation, s_third, f_third)
    for (name, _, dashes, stroke), points in zip(LINES, values, strict=True):
        chart.add(name, list(points), show_dots=not name.startswith("1/3"),
                  stroke_style={"width": stroke, "dasharray": dashes or "none"})  # fmt: skip
    tree = chart.render_tree()
    for parent in list(tree.iter()):
        for child in list(parent):
            if str(child.tag).rsplit("}", 1)[-1] == "script":
                parent.remove(child)
    svg = ElementTree.tostring(tree, encoding="unicode")
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S)
