"""A ship's campaign history: Structure and Flotation over the scenarios it fought, as a plot,
with the 1/3 line of each track (docs/RULES.md §SMR2: at or below it, a morale test)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from tracker.rules.smr import third_text
from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.services import continuity
from tracker.services.continuity import HistoryPoint
from tracker.widgets.plain import PlainTable


def series(points: list[HistoryPoint]) -> tuple[list[str], list[int], list[int]]:
    """Labels and values in time order: each scenario's start, then its end."""
    labels: list[str] = []
    structure: list[int] = []
    flotation: list[int] = []
    for point in points:
        for phase, value in (("start", point.start), ("end", point.end)):
            if value is not None:
                labels.append(f"{point.position}{phase[0]}")
                structure.append(value[0])
                flotation.append(value[1])
    return labels, structure, flotation


# Each track's colour, its 1/3 line dotted in the same, named in the legend line under the plot
# (plotext's own legend is drawn inside the plot, over the points it names).
COLOURS = {"Structure": "red", "Flotation": "blue"}
MOST_TICKS = 6


def whole_ticks(top: int) -> list[int]:
    """The y axis's ticks from 0 to `top`: whole numbers (Structure and Flotation are counts of
    boxes), at most MOST_TICKS + 1 of them, evenly spaced."""
    step = max(1, -(-top // MOST_TICKS))
    return list(range(0, top + 1, step))


def legend(maxima: tuple[int, int]) -> Text:
    text = Text()
    for track, full in zip(COLOURS, maxima, strict=True):
        text.append("■ ", style=COLOURS[track])
        text.append(f"{track}   ")
        text.append("· ", style=COLOURS[track])
        text.append(f"1/3 {track} ({third_text(full)})   ")
    return text


class ShipHistoryScreen(TrackerScreen):
    BINDINGS = [Binding("escape", "back", "Back", tooltip="Back")]

    def __init__(self, ship_id: int, name: str, maxima: tuple[int, int]) -> None:
        super().__init__()
        self.ship_id = ship_id
        self.name_shown = name
        self.maxima = maxima  # full Structure and Flotation: the 1/3 lines are a third of them

    def body(self) -> ComposeResult:
        yield PlotextPlot(id="history-plot")
        yield Static(legend(self.maxima), id="history-legend", markup=False)
        yield PlainTable(id="history-table", cursor_type="none")

    def on_mount(self) -> None:
        self.title = f"{self.name_shown}: campaign history"
        self.query_one(DataTable).add_columns("Scenario", "Start S/F", "End S/F")

    def reload(self) -> None:
        self.load(Call(continuity.ship_history, self.factory, ship_id=self.ship_id), self._show)

    def _show(self, points: list[HistoryPoint]) -> None:
        labels, structure, flotation = series(points)
        plot = self.query_one(PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        if labels:
            xs = [float(x) for x in range(1, len(labels) + 1)]
            for track, values in (("Structure", structure), ("Flotation", flotation)):
                plt.plot(xs, values, marker="hd", color=COLOURS[track])
            for track, full in zip(COLOURS, self.maxima, strict=True):
                plt.plot(xs, [full / 3] * len(xs), marker=".", color=COLOURS[track])
            plt.xticks(xs, labels)
            top = max([*structure, *flotation, *self.maxima, 1]) + 1
            plt.ylim(0, top)
            ticks = whole_ticks(top)
            plt.yticks([float(tick) for tick in ticks], [str(tick) for tick in ticks])
        plt.title("Structure and Flotation (Ns = start of scenario N, Ne = its end; "
                  "at or below 1/3 a morale test)")  # fmt: skip
        plot.refresh()
        table = self.query_one(DataTable)
        table.clear()
        for point in points:
            start = f"{point.start[0]}/{point.start[1]}" if point.start else "-"
            end = f"{point.end[0]}/{point.end[1]}" if point.end else "-"
            table.add_row(f"{point.position}. {point.scenario}", start, end)
        if not points:
            table.add_row("No scenario played yet", "", "")
