"""The next turn from wherever the player is at the table: the record sheet or damage entry.

The same step as the scenario screen's n: drifting minefields not yet drifted are asked about
first (they drift at the end of the turn), then the scenario's turn goes up by one, journaled.
"""

from __future__ import annotations

from collections.abc import Callable

from tracker.screens.base import TrackerScreen
from tracker.screens.confirm import ConfirmScreen
from tracker.services import mines, scenarios
from tracker.services.errors import InvalidInput
from tracker.services.scenarios import TurnView


def turn_of(screen: TrackerScreen, campaign_id: int) -> TurnView | None:
    """The campaign's current scenario and its turn, as the screens show it."""
    return scenarios.current_turn(screen.factory, campaign_id=campaign_id)


def begin_next_turn(screen: TrackerScreen, campaign_id: int, after: Callable[[], None]) -> None:
    """Begin the next turn of the scenario in play, asking first about undrifted minefields;
    `after` runs once the turn has changed."""
    now = turn_of(screen, campaign_id)
    if now is None or now.status != "in_play":
        where = "No scenario" if now is None else f"{now.title} is not"
        screen.notify(f"{where} in play: begin a scenario on the campaign screen first.",
                      severity="warning")  # fmt: skip
        return

    def advance(yes: bool | None = True) -> None:
        if not yes:
            return
        try:
            turn = scenarios.advance_turn(screen.factory, scenario_id=now.scenario_id)
        except InvalidInput as exc:
            screen.notify("\n".join(exc.errors.values()), severity="error")
            return
        screen.notify(f"{now.title}: turn {turn} begins.")
        after()

    waiting = mines.not_drifted(screen.factory, campaign_id=campaign_id)
    if waiting:
        plural = "s have" if waiting != 1 else " has"
        question = (f"Turn {now.turn} ends, but {waiting} drifting minefield{plural} not drifted"
                    " yet (g on the minefield ledger). Begin the next turn anyway?")  # fmt: skip
        screen.app.push_screen(ConfirmScreen(question, yes="Yes, next turn (y)"), advance)
    else:
        advance()
