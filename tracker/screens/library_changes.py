"""Bring ships or units up to a later change of the library: the player ticks which.

A change to a class or a card is never applied by itself to what is in play
(services.building.library_changes); this lists what now differs, with the differences, and
applies the ticked ones in one journal entry, which ctrl+z undoes.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.widgets import SelectionList, Static

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.participants import ParticipantsScreen
from tracker.services import building
from tracker.services.building import Drift

WORDS = {"ship": ("ships", "class"), "unit": ("units", "card")}


def drift_line(drift: Drift) -> str:
    """`Orion: Structure max 19 -> 25; Points (before crew %) 551 -> 600`, on one line."""
    return f"{drift.name}: {'; '.join(drift.differences)}"


class LibraryChangesScreen(ParticipantsScreen):
    """The ships or units to tick, the highlighted one's every difference shown below them."""

    def __init__(self, title: str, drifts: Sequence[Drift]) -> None:
        super().__init__(title, [(drift_line(d), number, False) for number, d in
                                 enumerate(drifts)])  # fmt: skip
        self.drifts = list(drifts)

    def on_mount(self) -> None:
        self.query_one("#participants-dialog").mount(Static("", id="changes-detail",
                                                            markup=False))  # fmt: skip
        self._detail(0)

    @on(SelectionList.SelectionHighlighted)
    def _highlighted(self, event: SelectionList.SelectionHighlighted[int]) -> None:
        self._detail(event.selection_index)

    def _detail(self, index: int) -> None:
        if 0 <= index < len(self.drifts):
            drift = self.drifts[index]
            detail = "\n".join([f"{drift.name}, of the {drift.source}:", *drift.differences])
            self.query_one("#changes-detail", Static).update(detail)


def offer_library_changes(screen: TrackerScreen, campaign_id: int, kind: str) -> None:
    """List the campaign's `kind` ("ship" or "unit") that differ from the library now; apply
    the ticked ones, then reload the screen."""
    what, source = WORDS[kind]

    def listed(drifts: Sequence[Drift]) -> None:
        drifts = [drift for drift in drifts if drift.kind == kind]
        if not drifts:
            screen.notify(f"Every one of the campaign's {what} has its {source}'s values in "
                          "the library.")  # fmt: skip
            return

        def chosen(ticked: list[int] | None) -> None:
            if not ticked:
                return
            keys = [(drifts[number].kind, drifts[number].row_id) for number in ticked]
            apply = building.apply_library_changes
            screen.call(
                Call(apply, screen.factory, campaign_id=campaign_id, chosen=keys), then=applied
            )

        screen.app.push_screen(
            LibraryChangesScreen(f"Library changes: tick the {what} to bring up to their "
                                 f"{source}", drifts),
            chosen,
        )  # fmt: skip

    def applied(count: int) -> None:
        screen.tell(f"{count} {what if count != 1 else kind} brought up to the library (ctrl+z "
                    "undoes it).")  # fmt: skip

    screen.call(Call(building.library_changes, screen.factory, campaign_id=campaign_id),
                then=listed)  # fmt: skip
