"""The next turn, from the scenario, the record sheet or damage entry: drifting minefields not
yet drifted are asked about first (they drift at the end of the turn, so each drift is stamped
with the turn it happens in), then the scenario's turn goes up by one, journaled.
"""

from __future__ import annotations

from collections.abc import Callable

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.confirm import confirm
from tracker.services import mines, scenarios
from tracker.services.scenarios import TurnView
from tracker.services.views import ScenarioView


def show_turn(
    screen: TrackerScreen, campaign_id: int, then: Callable[[TurnView | None], object]
) -> None:
    screen.call(Call(scenarios.current_turn, screen.factory, campaign_id=campaign_id), then=then)


def begin_next_turn(screen: TrackerScreen, campaign_id: int, after: Callable[[], None]) -> None:
    """Begin the next turn of the scenario in play; `after` runs once the turn has changed."""

    def in_play(now: TurnView | None) -> None:
        if now is None or now.status != "in_play":
            where = "No scenario" if now is None else f"{now.title} is not"
            screen.notify(f"{where} in play: begin a scenario on the campaign screen first.",
                          severity="warning")  # fmt: skip
        else:
            next_turn_of(screen, campaign_id, now, after)

    show_turn(screen, campaign_id, in_play)


def next_turn_of(
    screen: TrackerScreen, campaign_id: int, now: ScenarioView, after: Callable[[], None]
) -> None:
    """The scenario's next turn, asking first about drifting minefields not drifted yet."""

    def advanced(turn: int) -> None:
        screen.notify(f"{now.title}: turn {turn} begins.")
        after()

    def advance() -> None:
        screen.call(Call(scenarios.advance_turn, screen.factory, scenario_id=now.id),
                    then=advanced)  # fmt: skip

    def ask(left: int) -> None:
        if not left:
            advance()
            return
        drifting = f"{left} drifting minefield{'s have' if left != 1 else ' has'} not drifted yet"
        then = "(g on the minefield ledger). Begin the next turn anyway?"
        confirm(
            screen, f"End of turn {now.turn}: {drifting} {then}", advance, yes="Yes, next turn (y)"
        )

    screen.call(Call(mines.not_drifted, screen.factory, campaign_id=campaign_id), then=ask)
