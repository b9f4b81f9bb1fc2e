"""The next turn from wherever the player is at the table: the record sheet or damage entry.

The same step as the scenario screen's n: drifting minefields not yet drifted are asked about
first (they drift at the end of the turn), then the scenario's turn goes up by one, journaled.
"""

from __future__ import annotations

from collections.abc import Callable

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.confirm import confirm
from tracker.services import mines, scenarios
from tracker.services.scenarios import TurnView


def show_turn(
    screen: TrackerScreen, campaign_id: int, then: Callable[[TurnView | None], object]
) -> None:
    """The campaign's current scenario and its turn, read through the path, to `then`."""
    screen.call(Call(scenarios.current_turn, screen.factory, campaign_id=campaign_id), then=then)


def begin_next_turn(screen: TrackerScreen, campaign_id: int, after: Callable[[], None]) -> None:
    """Begin the next turn of the scenario in play, asking first about undrifted minefields;
    `after` runs once the turn has changed. Each read and the change go through the path."""
    show_turn(screen, campaign_id, lambda now: _next_turn(screen, campaign_id, now, after))


def _next_turn(
    screen: TrackerScreen, campaign_id: int, now: TurnView | None, after: Callable[[], None]
) -> None:
    if now is None or now.status != "in_play":
        where = "No scenario" if now is None else f"{now.title} is not"
        screen.notify(f"{where} in play: begin a scenario on the campaign screen first.",
                      severity="warning")  # fmt: skip
        return

    def advanced(turn: int) -> None:
        screen.notify(f"{now.title}: turn {turn} begins.")
        after()

    def advance() -> None:
        screen.call(Call(scenarios.advance_turn, screen.factory, scenario_id=now.id),
                    then=advanced)  # fmt: skip

    def ask(waiting: int) -> None:
        if waiting:
            plural = "s have" if waiting != 1 else " has"
            question = (
                f"Turn {now.turn} ends, but {waiting} drifting minefield{plural} not drifted "
                "yet (g on the minefield ledger). Begin the next turn anyway?"
            )
            confirm(screen, question, advance, yes="Yes, next turn (y)")
        else:
            advance()

    screen.call(Call(mines.not_drifted, screen.factory, campaign_id=campaign_id), then=ask)
