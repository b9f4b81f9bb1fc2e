"""Generated junk into the damage shorthand (tracker.rules.shorthand, hypothesis).

Any text either parses or raises the parser's own ShorthandError, placed on the line; and what
parses says the same once written out again in the shorthand's own words (the module has no
writer of its own: `render` below is the canonical line, one word per item).
"""

from __future__ import annotations

from depth import examples
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from tracker.rules.shorthand import MAX_POINTS, DamageLine, ShorthandError, parse_line

# Any code point, control characters and halves of surrogate pairs too.
_ANY = st.characters(codec=None) | st.characters(categories=("Cs", "Cc", "Zs", "Nd"))
_WORDS = [
    "s", "f", "rs", "rf", "fm+", "fm-", "crit", "ucrit", "fix", "?", '"', "'", "\\", "S", "FM+",
    "Crit", "exeter", "Graf Spee", " ", "\t", "\n", "\x00", "\u00a0", "[bold]", "0",
]  # fmt: skip
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.integers(0, 2000).map(str),
    st.integers(0, 6000).map(lambda n: "9" * n),  # past int()'s 4300 digits
    st.text(st.sampled_from("0123456789\u0663\uff10\U0001d7d9"), min_size=1, max_size=12),
    st.text(_ANY, max_size=6),
)
LINES = st.one_of(
    st.text(_ANY, max_size=60),
    st.lists(_PIECES, max_size=12).map(" ".join),
    st.lists(_PIECES, max_size=12).map("".join),
    st.builds(str.__mul__, st.sampled_from(["s1 ", '"', "x", "crit ", " "]), st.integers(0, 5000)),
)


@settings(max_examples=examples(1000), deadline=None, derandomize=True, database=None)
@given(text=LINES)
@example(text="s" + "9" * 5000)
@example(text="exeter crit " + "1" * 4301)
@example(text="fix " + "0" * 5000 + "1")
def test_any_text_parses_or_raises_only_a_placed_shorthand_error(text: str) -> None:
    try:
        parsed = parse_line(text)
    except ShorthandError as error:
        assert 0 <= error.start <= error.end <= len(text)
        assert error.message
        return
    assert isinstance(parsed, DamageLine)
    for total in (parsed.structure, parsed.flotation, parsed.repair_structure,
                  parsed.repair_flotation):  # fmt: skip
        assert total >= 0
    assert all(0 <= number <= MAX_POINTS for number in parsed.fixes)
    assert all(c.roll is None or 1 <= c.roll <= 100 for c in parsed.criticals)


def _quoted(text: str) -> str:
    """The text as one quoted word; assume it holds at most one kind of quote."""
    quote = '"' if '"' not in text else "'"
    assume(quote not in text)
    return f"{quote}{text}{quote}"


def _counts(word: str, total: int) -> list[str]:
    """A total as words of at most MAX_POINTS each (s1500 is s999 s501)."""
    words = []
    while total > 0:
        words.append(f"{word}{min(total, MAX_POINTS)}")
        total -= MAX_POINTS
    return words


def render(line: DamageLine) -> str:
    """The line in the shorthand's own words: the ship quoted, then one word per item."""
    words = [_quoted(line.ship)] if line.ship else []
    for word, total in (("s", line.structure), ("f", line.flotation),
                        ("rs", line.repair_structure), ("rf", line.repair_flotation)):  # fmt: skip
        words += _counts(word, total)
    words += _counts("fm+" if line.fire_delta > 0 else "fm-", abs(line.fire_delta))
    for critical in line.criticals:
        what = "?" if critical.auto else str(critical.roll) if critical.roll else critical.text
        prefix = "crit" if critical.kind == "structural" else "ucrit"
        words += [prefix, what if critical.auto or critical.roll else _quoted(what)]
    words += [f"fix {number}" for number in line.fixes]
    return " ".join(words)


@settings(max_examples=examples(500), deadline=None, derandomize=True, database=None)
@given(text=LINES)
@example(text='"" "" s1500 fm+3 fm-5 crit "?" ucrit 12 crit \'a "b"\' fix 0')
def test_what_parses_says_the_same_written_out_again(text: str) -> None:
    try:
        parsed = parse_line(text)
    except ShorthandError:
        assume(False)
        return
    again = render(parsed)
    assert parse_line(again) == parsed, again
