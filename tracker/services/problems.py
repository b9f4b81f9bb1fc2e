"""The problems of a file a player imports, as every reader reports them (CSV files, the
library's CSV and JSON, campaign files): by column and message, the same message on many rows
said once with its places (`rows 2-5, 9 (5 rows)`, `ship rows 3-5 (3 rows)`).

A hostile file may hold a million bad rows: a report keeps at most `most` different problems,
and of each one's places the spans as they come (a row next to the one before lengthens its
span) up to SHOWN spans, then only their count. A reader that must not read a hostile file to
its end also caps the places counted (`places`) and stops once `full()`. A last line says when
a problem or a place was left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import groupby

from tracker.services.errors import InvalidInput

MAX_PROBLEMS = 200  # different problems an import lists before it stops looking
SHOWN = 10  # spans of places a problem lists; past them, only their count
MORE = "... and more: fix these first"
# A numbered place: a CSV file's `row 4`, a list's `ship[3]` (said `ship row 3`).
_NUMBERED = re.compile(r"row (\d+)|(\w+)\[(\d+)\]")


class _Places:
    """Where one problem is: spans of numbered places (table, first, last) or a place as it
    was said (table, -1, -1), in the order they came; how many places in all."""

    __slots__ = ("count", "cut", "previous", "spans")

    def __init__(self, table: str, number: int) -> None:
        self.spans = [(table, number, number)]
        self.count = 1
        self.cut = False  # a place not listed: only counted
        self.previous = (table, number)  # the last place added: the same again is said once

    def add(self, table: str, number: int) -> None:
        last_table, first, last = self.spans[-1]
        self.count += 1
        self.previous = (table, number)
        if self.cut:
            return
        if number >= 0 and (table, number) == (last_table, last + 1) and last >= 0:
            self.spans[-1] = (table, first, number)
        elif len(self.spans) < SHOWN:
            self.spans.append((table, number, number))
        else:
            self.cut = True

    def said(self) -> str:
        """`row 4`, `rows 2-5, 9 (5 rows)`, `ship rows 3-5, side row 2 (4 rows)`, `header`: a
        table's numbered places in a row said together, a place said as it came alone."""
        parts = []
        for (table, counted), run in groupby(self.spans, key=lambda span: (span[0], span[1] >= 0)):
            spans = list(run)
            if not counted:
                parts += [table] * len(spans)
                continue
            rows = sum(last - first + 1 for _, first, last in spans)
            listed = ", ".join(
                str(first) if first == last else f"{first}-{last}" for _, first, last in spans
            )
            parts.append(f"{table} {'rows' if rows > 1 else 'row'} {listed}".lstrip())
        said = ", ".join(part for part in [*parts, *["..."] * self.cut] if part)
        if self.count > 1:
            numbered = all(first >= 0 for _, first, _ in self.spans)
            said += f" ({self.count} {'rows' if numbered else 'entries'})"
        return said


def _place(where: str) -> tuple[str, int]:
    """A place as (table, number): `row 4` is ("", 4), `ship[3]` ("ship", 3), any other
    place (`header`, `Britain, unit 3`) itself with no number (-1)."""
    found = _NUMBERED.fullmatch(where)
    if found is None:
        return where, -1
    if found.group(1) is not None:
        return "", int(found.group(1))
    return found.group(2), int(found.group(3))


@dataclass
class Problems:
    """An import's problems: at most `most` different ones (a column and a message), each with
    its places; with `places`, at most that many places counted in all."""

    most: int = MAX_PROBLEMS
    places: int | None = None
    found: dict[tuple[str, str], _Places] = field(default_factory=dict)
    more: bool = False
    adds: int = 0  # problems added, kept or not: a reader sees whether a row added one
    counted: int = 0

    def add(self, where: str, column: str, message: str) -> None:
        self.adds += 1
        table, number = _place(where)
        places = self.found.get((column, message))
        if places is not None and places.previous == (table, number):
            return
        if (places is None and len(self.found) >= self.most) or self._all_counted():
            self.more = True
            return
        self.counted += 1
        if places is None:
            self.found[(column, message)] = _Places(table, number)
        else:
            places.add(table, number)

    def full(self) -> bool:
        """Whether the report holds all it can: a reader may stop reading."""
        return len(self.found) >= self.most or self._all_counted()

    def _all_counted(self) -> bool:
        return self.places is not None and self.counted >= self.places

    def lines(self) -> tuple[str, ...]:
        said = []
        for (column, message), places in self.found.items():
            where = ", ".join(part for part in (places.said(), column) if part)
            said.append(f"{where}: {message}" if where else message)
        return (*said, *[MORE] * self.more)

    def check(self) -> None:
        """Refuse the file (one message, "file") if anything is wrong with it."""
        if self.found:
            raise InvalidInput({"file": "; ".join(self.lines())})
