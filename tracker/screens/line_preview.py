"""What damage entry's line would do: its ship found, its hit previewed, nothing written.

The preview reads the database through the screen's path, off the keys: each edit of the line
counts one; a preview that comes back for an older count is dropped, and the line is previewed
again as it is now. One preview is on its way at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text

from tracker.rules.shorthand import (
    CriticalInput,
    DamageLine,
    ShorthandError,
    best_matches,
    parse_line,
)
from tracker.screens import calls
from tracker.screens.calls import Call
from tracker.services import damage
from tracker.services.damage import CriticalRequest, DamageResult, HitRequest, ShipPick
from tracker.services.errors import (
    DatabaseUnavailable,
    InvalidInput,
    bad_name_character,
    character_problem,
)
from tracker.widgets.hit_preview import HitPreview, preview_text
from tracker.widgets.ship_list import ShipList
from tracker.widgets.shorthand_line import ShorthandLine, error_text
from tracker.widgets.tones import ERROR, NOTICE, toned

if TYPE_CHECKING:
    from tracker.screens.damage_entry import DamageEntryScreen

T = TypeVar("T")


class LinePreview:
    """The line read as a hit on one ship (`pending`), shown in the preview, or why not."""

    def __init__(self, screen: DamageEntryScreen) -> None:
        self.screen = screen
        self.begin()

    def begin(self) -> None:
        """What one opening of damage entry starts from."""
        self.picks: list[ShipPick] = []
        self.picks_for: str | None = None  # the ship words self.picks were found for
        self.pending: tuple[HitRequest, DamageLine] | None = None
        # Ships the typed name matches equally well (docs: docs/GUIDE.md "The damage shorthand"):
        # Enter asks which of them rather than record on the first.
        self.ambiguous: list[ShipPick] = []
        self.chosen: tuple[str, int] | None = None  # (name, ship id) picked from the finder
        self.edits = 0
        self.previewing = False
        self.enter_for: str | None = None  # the line Enter was pressed on while previewing it
        self.table_dice: dict[str, int | None] = {}  # each critical table's die (None: no table)
        self.named: int | None = None  # the ship the typed name picks, for the form (ctrl+f)

    def edited(self) -> None:
        """The line changed: its preview, one on its way at a time."""
        self.edits += 1
        self.pending = None
        self.ambiguous = []
        if not self.previewing:  # else the preview on its way asks again once it is back
            self.show_line()

    def refresh(self) -> None:
        """The line previewed again, its ships found again: they may have changed too."""
        self.picks_for = None
        self.edited()

    def show_picks(self, words: str, picks: list[ShipPick]) -> None:
        self.picks, self.picks_for = picks, words
        self.screen.query_one(ShipList).show(picks)

    def ask_which(self) -> None:
        """An ambiguous name: the finder lists only the ships it matches alike, to pick one."""
        self.screen.query_one(ShipList).ask(self.ambiguous)
        self.picks_for = None  # the list no longer shows every match
        self.screen.query_one(HitPreview).show(Text(
            "Which ship? up and down, then enter records on it; escape goes back to the line.",
            style="bold yellow"))  # fmt: skip

    def request(self, line: DamageLine, ship: ShipPick, *, rolled: bool) -> HitRequest:
        """The hit the line asks for on the ship; `rolled`, with its `crit ?` rolled now."""
        criticals = [
            self._critical(critical) for critical in line.criticals if rolled or not critical.auto
        ]
        amounts = {key: getattr(line, key) for key in damage.HitAmounts.model_fields}
        return HitRequest(ship.id, **amounts, criticals=tuple(criticals), fixes=line.fixes)

    def _critical(self, critical: CriticalInput) -> CriticalRequest:
        if critical.auto:
            die = self.table_dice.get(critical.kind)
            if die is None:
                raise InvalidInput({"criticals": _no_table(critical.kind)})
            roll = self.screen.dice.roll(die, f"{critical.kind} critical")
            return CriticalRequest(kind=critical.kind, roll=roll)
        return CriticalRequest(kind=critical.kind, effect=critical.text, roll=critical.roll)

    def _find(self, words: str) -> Call[list[ShipPick]]:
        # An empty line offers the ship damage entry is on first, however far down it is.
        first = None if words.strip() else self.screen.default_ship_id
        return Call(damage.find_ships, self.screen.factory, campaign_id=self.screen.campaign_id,
                    query=words, first=first)  # fmt: skip

    def _resolve_ship(self, words: str) -> ShipPick | None:
        """The ship the words name, among the picks found for them (self.picks)."""
        if self.chosen is not None and self.chosen[0] == words:
            chosen = next((p for p in self.picks if p.id == self.chosen[1]), None)
            if chosen is not None:
                return chosen
        if words.strip():
            return self.picks[0] if self.picks else None
        if self.screen.default_ship_id is not None:
            return next((p for p in self.picks if p.id == self.screen.default_ship_id), None)
        return None

    def _ask(self, call: Call[T], then: Callable[[T], None]) -> None:
        """A read of the preview's, through the path: its answer is shown only if the line has
        not changed since; else the line is previewed again as it is now."""
        asked = self.edits
        self.previewing = True

        def back(show: Callable[[Any], None], outcome: Any) -> None:
            self.previewing = False
            if asked != self.edits:
                self.show_line()
                return
            show(outcome)
            self._previewed()

        def refused(error: Exception) -> None:
            calls.tell_unavailable(self.screen.app, error)
            back(self.show_error, error)

        expected = (DatabaseUnavailable,)
        self.screen.call(call, then=partial(back, then), refused=refused, expected=expected)

    def show_error(self, error: Exception) -> None:
        """A read that failed, said where the preview shows."""
        self.screen.query_one(HitPreview).show(toned(calls.message(error), ERROR), error=True)

    def _previewed(self) -> None:
        """The line's preview is all shown: an Enter pressed while it was on its way records
        it now, if the line is still the one Enter was pressed on."""
        if self.previewing or self.enter_for is None:
            return
        line, self.enter_for = self.enter_for, None
        if line == self.screen.query_one(ShorthandLine).value:
            self.screen.record()

    def show_line(self) -> None:
        line_text = self.screen.query_one(ShorthandLine).value
        preview = self.screen.query_one(HitPreview)
        self.named = None
        try:
            line = parse_line(line_text)
        except ShorthandError as error:
            preview.show(error_text(line_text, error), error=True)
            return
        char = bad_name_character(line.ship)
        if char is not None:  # no ship's name holds one: say so, not "no ship matches"
            start = line_text.find(char)
            preview.show(error_text(line_text, ShorthandError(
                f"the ship's name holds {character_problem(char)}: retype it without it",
                word=char, start=start, end=start + 1)), error=True)  # fmt: skip
            return
        if line.ship == self.picks_for:
            # Typing the damage after the name: the same ships, without searching them all again.
            self.screen.query_one(ShipList).highlighted = None
            self._named(line_text, line)
            return

        def found(picks: list[ShipPick]) -> None:
            self.show_picks(line.ship, picks)
            self._named(line_text, line)

        self._ask(self._find(line.ship), found)

    def _named(self, line_text: str, line: DamageLine) -> None:
        ship = self._resolve_ship(line.ship)
        if ship is None and line.ship:
            self._cut(line_text, line, len(line.ship.split()) - 1)
            return
        self._preview_ship(line, ship)

    def _cut(self, line_text: str, line: DamageLine, cut: int) -> None:
        """ "exeter s-3": the name matched up to a word that is no shorthand: point at it (the
        words are tried from the longest start of the name down, one read each)."""
        words = line.ship.split()
        if cut < 1:
            self._preview_ship(line, None)
            return
        start_words = " ".join(words[:cut])

        def found(picks: list[ShipPick]) -> None:
            if not picks:
                self._cut(line_text, line, cut - 1)
                return
            bad = words[cut]
            start = line_text.find(bad, line_text.find(words[cut - 1]) + 1)
            self.screen.query_one(HitPreview).show(error_text(line_text, ShorthandError(
                f"{bad!r} is not a shorthand word: use sN, fN, rsN, rfN, fm+N, fm-N, "
                "crit, ucrit or fix (the line under the input lists them)",
                word=bad, start=start, end=start + len(bad))), error=True)  # fmt: skip
            self.show_picks(start_words, picks)

        self._ask(self._find(start_words), found)

    def _preview_ship(self, line: DamageLine, ship: ShipPick | None) -> None:
        preview = self.screen.query_one(HitPreview)
        preview.set_class(False, "-error")
        if ship is None and not line.ship:
            preview.update(toned("Type the ship's name (a few letters do), then the damage.",
                                 NOTICE))  # fmt: skip
            return
        if ship is None:  # a typo: the nearest names offered, none taken for it

            def near(names: list[str]) -> None:
                offer = f": did you mean {' or '.join(names)}?" if names else ": check the name."
                preview.update(toned(f"No ship matches {line.ship!r}{offer}", NOTICE))

            self._ask(Call(damage.nearest_ships, self.screen.factory,
                           campaign_id=self.screen.campaign_id, query=line.ship), near)  # fmt: skip
            return
        tied = best_matches(line.ship, [pick.name for pick in self.picks])
        ship = self.picks[tied[0]] if len(tied) == 1 else ship
        self.named = ship.id
        if len(tied) > 1 and ship.name != (self.chosen or ("", 0))[0]:
            self.ambiguous = [self.picks[index] for index in tied]
            names = ", ".join(pick.name for pick in self.ambiguous)
            preview.update(toned(f"{line.ship!r} matches {names} alike: Enter asks which ship, "
                                 "or type more of the name.", NOTICE))  # fmt: skip
            return
        if line.is_empty:
            preview.update(Text(f"{ship.name}: now type what it took, e.g. s3 f1", style="dim"))
            return
        missing = [c.kind for c in line.criticals if c.auto and self.table_dice.get(c.kind) is None]
        if missing:
            preview.show(toned(_no_table(missing[0]), ERROR), error=True)
            return
        request = self.request(line, ship, rolled=False)
        if request != HitRequest(ship_id=ship.id):  # more than `crit ?`, rolled at Enter
            self._ask(Call(damage.preview_hit, self.screen.factory, request=request),
                      partial(self._show_preview, line, ship, request))  # fmt: skip
        else:
            self._show_preview(line, ship, request, None)

    def _show_preview(
        self, line: DamageLine, ship: ShipPick, request: HitRequest, result: DamageResult | None
    ) -> None:
        auto = sum(1 for critical in line.criticals if critical.auto)
        body = (
            Text(f"{ship.name}: {auto} critical(s) rolled when you press Enter")
            if result is None
            else preview_text(result, auto)
        )
        others = [p.name for p in self.picks if p.id != ship.id][:3] if line.ship else []
        if others and ship.name.lower() != line.ship.lower():
            body.append(f"\n(also matches {', '.join(others)}: type more of the name, or pick "
                        "from the list with down and enter)", style=NOTICE)  # fmt: skip
        self.screen.query_one(HitPreview).update(body)
        self.pending = (request, line)


def _no_table(kind: str) -> str:
    return (
        f"no {kind} critical table to roll on: type the effect in quotes, or enter the table "
        "(ctrl+t)"
    )
