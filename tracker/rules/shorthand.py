"""The damage shorthand: one line per hit, typed at the table (docs/GUIDE.md "The damage
shorthand").

    exeter s3 f1 fm+1 crit "B turret out"

Grammar (words separated by spaces; a quoted word may hold spaces):

    line      = [ship] item*
    ship      = the words before the first item, or one quoted word ("Admiral Graf Spee")
    item      = sN      Structure lost          fN      Flotation lost
              | rsN     Structure repaired      rfN     Flotation repaired
              | fm+N    fire markers added      fm-N    fire markers removed
              | crit TEXT | crit N | crit ?    a structural critical: its effect typed,
                                                 a die typed for the campaign's table,
                                                 or ? for the app to roll it
              | ucrit TEXT | ucrit N | ucrit ? the same, underwater
              | fix N   critical number N of the ship repaired

Pure: no project or third-party imports. The parser raises only ShorthandError.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import astuple, dataclass

MAX_POINTS = 999

_NUMBERED = {
    "s": "structure",
    "f": "flotation",
    "rs": "repair_structure",
    "rf": "repair_flotation",
}
_NUMBER_ITEM = re.compile(r"^(rs|rf|s|f)(\d+)$", re.IGNORECASE)
_FIRE_ITEM = re.compile(r"^fm([+-])(\d+)$", re.IGNORECASE)
_FIX_WORDS = {"fix"}
_DIGITS = re.compile(r"[0-9]+")
_CRIT_WORDS = {"crit": "structural", "ucrit": "underwater"}


class ShorthandError(ValueError):
    """A line that does not parse; `word` is the offending word and `start`..`end` its place."""

    def __init__(self, message: str, *, word: str = "", start: int = 0, end: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.word = word
        self.start = start
        self.end = end


@dataclass(frozen=True)
class CriticalInput:
    """One critical hit: the effect typed, or a die typed (roll) or to be rolled (auto)."""

    kind: str  # structural | underwater
    text: str = ""
    roll: int | None = None
    auto: bool = False


@dataclass(frozen=True)
class DamageLine:
    """What one line says; the ship is the raw words, resolved against the fleet by the caller."""

    ship: str = ""
    structure: int = 0
    flotation: int = 0
    repair_structure: int = 0
    repair_flotation: int = 0
    fire_delta: int = 0
    criticals: tuple[CriticalInput, ...] = ()
    fixes: tuple[int, ...] = ()

    @property
    def is_empty(self) -> bool:
        """True when the line names no change at all (every field after the ship is empty)."""
        return not any(astuple(self)[1:])


Word = tuple[str, int, int, bool]  # text, start, end, quoted


# A word as a shell splits it with no escapes: runs of anything but a space or a quote, and
# quoted runs of either quote, with no space between them (shlex's spaces: str.isspace() knows
# more); a backslash is a character.
_SPACES = " \t\r\n"
_WORD = re.compile(r"""(?:[^ \t\r\n'"]|'[^']*'|"[^"]*")+""")
_QUOTED = re.compile(r"""(["'])(.*?)\1""", re.DOTALL)


def _words(line: str) -> list[Word]:
    """Split like a shell (quotes group words), keeping each word's place in the line."""
    placed: list[Word] = []
    covered = 0
    for found in _WORD.finditer(line):
        if line[covered : found.start()].strip(_SPACES):
            break  # an opening quote with no closing one
        text = _QUOTED.sub(lambda quoted: quoted[2], found[0])
        placed.append((text, found.start(), found.end(), found[0][0] in "\"'"))
        covered = found.end()
    if line[covered:].strip(_SPACES):
        quote = max(line.rfind('"'), line.rfind("'"))
        raise ShorthandError(
            "a quote is not closed: add the closing quote", word=line[quote:], start=quote,
            end=len(line),
        )  # fmt: skip
    return placed


def _is_item(word: str) -> bool:
    lowered = word.lower()
    return bool(
        _NUMBER_ITEM.match(word) or _FIRE_ITEM.match(word) or lowered in _CRIT_WORDS
        or lowered in _FIX_WORDS
    )  # fmt: skip


_LONG = 10**9


def _digits(text: str) -> int:
    """The number the digits say; past nine digits only that it is too long to be a count or a
    roll (int() itself refuses more than 4300 digits, with a ValueError of its own)."""
    digits = text.lstrip("0") or "0"
    return int(digits) if len(digits) <= 9 else _LONG + 1


def _number(word: str, text: str, start: int, end: int, what: str) -> int:
    value = _digits(text)
    if value > MAX_POINTS:
        shown = value if value <= _LONG else f"{len(text)} digits"
        raise ShorthandError(
            f"{word!r}: {what} of {shown} is more than {MAX_POINTS}; check the number",
            word=word, start=start, end=end,
        )  # fmt: skip
    return value


def parse_line(line: str) -> DamageLine:
    """Parse one shorthand line; raise ShorthandError naming the offending word."""
    if not isinstance(line, str):
        raise ShorthandError("the line must be text")
    words = _words(line)
    index = 0
    ship_words: list[str] = []
    # A quoted word is never an item: "S1" is a ship named S1.
    while index < len(words) and (words[index][3] or not _is_item(words[index][0])):
        ship_words.append(words[index][0])
        index += 1
    totals = dict.fromkeys(_NUMBERED.values(), 0)
    fire = 0
    criticals: list[CriticalInput] = []
    fixes: list[int] = []
    given: dict[str, str] = {}  # each amount once: a word twice is refused, never summed

    def once(key: str, word: str, start: int, end: int, what: str) -> None:
        if key in given:
            raise ShorthandError(
                f"{word!r}: {what} given twice ({given[key]!r} before it): type it once, "
                "the whole amount", word=word, start=start, end=end,
            )  # fmt: skip
        given[key] = word

    while index < len(words):
        word, start, end, _ = words[index]
        lowered = word.lower()
        if match := _NUMBER_ITEM.match(word):
            key = _NUMBERED[match.group(1).lower()]
            once(key, word, start, end, key.replace("_", " "))
            totals[key] = _number(word, match.group(2), start, end, key.replace("_", " "))
        elif match := _FIRE_ITEM.match(word):
            once("fire", word, start, end, "fire markers")
            count = _number(word, match.group(2), start, end, "fire markers")
            fire = count if match.group(1) == "+" else -count
        elif lowered in _CRIT_WORDS:
            index += 1
            if index >= len(words):
                raise ShorthandError(
                    f"{word!r} needs the effect in quotes, a die roll, or ? to roll",
                    word=word, start=start, end=end,
                )  # fmt: skip
            criticals.append(_critical(_CRIT_WORDS[lowered], *words[index]))
        elif lowered in _FIX_WORDS:
            index += 1
            if index >= len(words) or not _DIGITS.fullmatch(words[index][0]):
                raise ShorthandError(
                    "'fix' needs the number of the critical to clear, e.g. fix 1",
                    word=word, start=start, end=end,
                )  # fmt: skip
            number, number_start, number_end, _ = words[index]
            fixes.append(_number(number, number, number_start, number_end, "critical"))
        else:
            raise ShorthandError(
                f"{word!r} is not a shorthand word: use sN, fN, rsN, rfN, fm+N, fm-N, "
                "crit, ucrit or fix (the line under the input lists them)",
                word=word, start=start, end=end,
            )  # fmt: skip
        index += 1
    return DamageLine(
        ship=" ".join(ship_words),
        fire_delta=fire,
        criticals=tuple(criticals),
        fixes=tuple(fixes),
        **totals,
    )


def _critical(kind: str, word: str, start: int, end: int, quoted: bool) -> CriticalInput:
    # Quoted, it is the effect's text even if it looks like a roll: crit "12".
    if word == "?" and not quoted:
        return CriticalInput(kind=kind, auto=True)
    if _DIGITS.fullmatch(word) and not quoted:
        roll = _digits(word)
        if not 1 <= roll <= 100:
            raise ShorthandError(
                f"{word!r}: a critical die roll must be 1..100", word=word, start=start, end=end
            )
        return CriticalInput(kind=kind, roll=roll)
    if not word.strip():
        raise ShorthandError("the critical's effect is empty", word=word, start=start, end=end)
    return CriticalInput(kind=kind, text=word.strip())


def match_kind(query: str, name: str) -> int | None:
    """How well a name matches the typed words, 0 best, None for no match (the ship finder).

    0 the whole name (any case), 1 the name begins with the words, 2 a word of the name begins
    with them, 3 the words stand anywhere in the name, 4 the words' letters come in order
    (``agspee`` finds Admiral Graf Spee). Runs of spaces count as one.
    """
    return _kind(" ".join(query.lower().split()), name)


def _kind(wanted: str, name: str) -> int | None:
    """match_kind with the words already lowered and their spaces made single."""
    lowered = " ".join(name.lower().split())
    if lowered == wanted:
        return 0
    if lowered.startswith(wanted):
        return 1
    if any(word.startswith(wanted) for word in lowered.split()):
        return 2
    if wanted in lowered:
        return 3
    if _in_order(wanted.replace(" ", ""), lowered):
        return 4
    return None


def rank_names(query: str, names: list[str]) -> list[int]:
    """Indices of the names that match the query, best first by match_kind, ties in order."""
    if not query.split():
        return list(range(len(names)))
    wanted = " ".join(query.lower().split())  # once, not once per name: a campaign has many
    scored = [
        (kind, index)
        for index, name in enumerate(names)
        if (kind := _kind(wanted, name)) is not None
    ]
    return [index for _, index in sorted(scored)]


def best_matches(query: str, names: list[str]) -> list[int]:
    """Indices of the names sharing the best kind of match (match_kind), in the given order.

    A typed name is recorded without asking only when this is one name (docs/GUIDE.md "The
    damage shorthand"): `ho` with Hotspur and Hostile (both begin with it) names neither, `hots`
    names Hotspur, and `hood` names Hood even beside Hoodoo (a whole name beats a beginning).
    """
    if not query.split():
        return []
    kinds = [match_kind(query, name) for name in names]
    found = [kind for kind in kinds if kind is not None]
    return [index for index, kind in enumerate(kinds) if found and kind == min(found)]


def nearest_names(query: str, names: Sequence[str]) -> list[str]:
    """The three names nearest a name that matches none (a typo: `sufflok` for Suffolk), nearest
    first, by how much of them the letters share (difflib's ratio, any case); none below 0.6."""
    folded = {name.casefold(): name for name in names}
    near = difflib.get_close_matches(query.strip().casefold(), folded, n=3, cutoff=0.6)
    return [folded[name] for name in near]


def _in_order(letters: str, text: str) -> bool:
    position = 0
    for letter in letters:
        position = text.find(letter, position) + 1
        if position == 0:
            return False
    return True


def items_of(line: str) -> str:
    """The line from its first item on (what the ship took), without the ship's name.

    `exeter s3 f1 fm+1` gives `s3 f1 fm+1`: what a repeated line applies to another ship.
    """
    for word, start, _, quoted in _words(line):
        if not quoted and _is_item(word):
            return line[start:].strip()
    return ""


def line_for(ship: str, items: str) -> str:
    """A line naming the ship in full, quoted only when its bare name would not read back as
    the name (a ship called `S1`, or one whose name holds a quote)."""
    for name in (ship, f'"{ship}"', f"'{ship}'"):
        line = f"{name} {items}".strip()
        try:
            if parse_line(line).ship == ship:
                return line
        except ShorthandError:
            continue
    return items
