"""A ship's campaign history: Structure and Flotation over the scenarios it fought, as a plot,
with the 1/3 line of each track (docs/RULES.md §SMR2: at or below it, a morale test)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable
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


class ShipHistoryScreen(TrackerScreen):
    """The plot above, the numbers below."""

    BINDINGS = [Binding("escape", "back", "Back", tooltip="Back")]

    def __init__(self, ship_id: int, name: str, maxima: tuple[int, int]) -> None:
        super().__init__()
        self.ship_id = ship_id
        self.name_shown = name
        self.maxima = maxima  # full Structure and Flotation: the 1/3 lines are a third of them

    def body(self) -> ComposeResult:
        yield PlotextPlot(id="history-plot")
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
            plt.plot(xs, structure, label="Structure", marker="hd")
            plt.plot(xs, flotation, label="Flotation", marker="hd")
            for track, full in zip(("Structure", "Flotation"), self.maxima, strict=True):
                plt.plot(xs, [full / 3] * len(xs), label=f"1/3 {track} ({third_text(full)})",
                         marker=".")  # fmt: skip
            plt.xticks(xs, labels)
            plt.ylim(0, max([*structure, *flotation, *self.maxima, 1]) + 1)
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
