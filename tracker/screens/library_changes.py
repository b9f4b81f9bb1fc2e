"""Bring ships or units up to a later change of the library: the player ticks which.

A change to a class or a card is never applied by itself to what is in play
(services.building.library_changes); this lists what now differs, with the differences, and
applies the ticked ones in one journal entry, which ctrl+z undoes.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.participants import ParticipantsScreen
from tracker.services import building
from tracker.services.building import Drift

WORDS = {"ship": ("ships", "class"), "unit": ("units", "card")}


def drift_line(drift: Drift) -> str:
    """`Leander (Leander class (Britain)): Structure max 14 -> 20`."""
    return f"{drift.name} ({drift.source}): {'; '.join(drift.differences)}"


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
        choices = [(drift_line(drift), number, False) for number, drift in enumerate(drifts)]

        def chosen(ticked: list[int] | None) -> None:
            if not ticked:
                return
            keys = [(drifts[number].kind, drifts[number].row_id) for number in ticked]
            screen.call(
                Call(building.apply_library_changes, screen.factory, campaign_id=campaign_id,
                     chosen=keys),
                then=lambda count: applied(count),
            )  # fmt: skip

        screen.app.push_screen(
            ParticipantsScreen(f"The library changed: tick the {what} to bring up to their "
                               f"{source} (ctrl+z undoes it)", choices),
            chosen,
        )  # fmt: skip

    def applied(count: int) -> None:
        screen.notify(f"{count} {what if count != 1 else kind} brought up to the library.")
        screen.reload()

    screen.call(Call(building.library_changes, screen.factory, campaign_id=campaign_id),
                then=listed)  # fmt: skip
