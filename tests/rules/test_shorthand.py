"""The damage shorthand parser and the ship finder's ranking (tracker.rules.shorthand)."""

from __future__ import annotations

import re

import pytest
from depth import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tracker.rules.shorthand import (
    MAX_POINTS,
    CriticalInput,
    DamageLine,
    ShorthandError,
    best_matches,
    items_of,
    line_for,
    match_kind,
    nearest_names,
    parse_line,
    rank_names,
)


def _crit(text: str = "", *, roll: int | None = None, auto: bool = False) -> CriticalInput:
    return CriticalInput(kind="structural", text=text, roll=roll, auto=auto)


def _ucrit(text: str = "", *, roll: int | None = None, auto: bool = False) -> CriticalInput:
    return CriticalInput(kind="underwater", text=text, roll=roll, auto=auto)


# --- valid lines --------------------------------------------------------------------------------

VALID = [
    (
        'exeter s3 f1 fm+1 crit "B turret out"',
        DamageLine(
            ship="exeter",
            structure=3,
            flotation=1,
            fire_delta=1,
            criticals=(_crit("B turret out"),),
        ),
    ),
    ('"Admiral Graf Spee" s2', DamageLine(ship="Admiral Graf Spee", structure=2)),
    ("'Prinz Eugen' f4", DamageLine(ship="Prinz Eugen", flotation=4)),
    # Unquoted words before the first item are the ship too, joined by one space.
    ("  Admiral   Graf Spee   s2  ", DamageLine(ship="Admiral Graf Spee", structure=2)),
    ("Admiral\tGraf Spee\ts2", DamageLine(ship="Admiral Graf Spee", structure=2)),
    # Items in any case; the ship's words are kept as typed (the caller resolves them).
    (
        "EXETER S3 F1 FM+2 CRIT ? UCRIT 42 FIX 1 RS1 RF2",
        DamageLine(
            ship="EXETER",
            structure=3,
            flotation=1,
            fire_delta=2,
            repair_structure=1,
            repair_flotation=2,
            criticals=(_crit(auto=True), _ucrit(roll=42)),
            fixes=(1,),
        ),
    ),
    (
        "ajax Fm-1 Crit ? uCrit ?",
        DamageLine(ship="ajax", fire_delta=-1, criticals=(_crit(auto=True), _ucrit(auto=True))),
    ),
    ("ajax rs2 rf1", DamageLine(ship="ajax", repair_structure=2, repair_flotation=1)),
    ("ajax fm-3", DamageLine(ship="ajax", fire_delta=-3)),
    ("ajax ucrit 57", DamageLine(ship="ajax", criticals=(_ucrit(roll=57),))),
    ("ajax crit 1 crit 100", DamageLine(ship="ajax", criticals=(_crit(roll=1), _crit(roll=100)))),
    ("ajax crit 007", DamageLine(ship="ajax", criticals=(_crit(roll=7),))),
    ("ajax crit ?", DamageLine(ship="ajax", criticals=(_crit(auto=True),))),
    # An unquoted single word is an effect too; a quoted one is stripped of its padding.
    ("ajax crit rudder", DamageLine(ship="ajax", criticals=(_crit("rudder"),))),
    ('ajax ucrit "  Flooding aft  "', DamageLine(ship="ajax", criticals=(_ucrit("Flooding aft"),))),
    # Criticals keep their order (SMR2 §2.6: they are applied one at a time, in sequence).
    (
        'exeter crit "B turret out" ucrit 12 crit "Rudder jammed"',
        DamageLine(
            ship="exeter",
            criticals=(_crit("B turret out"), _ucrit(roll=12), _crit("Rudder jammed")),
        ),
    ),
    ("ajax fix 2 fix 1", DamageLine(ship="ajax", fixes=(2, 1))),
    ("ajax fix 0", DamageLine(ship="ajax", fixes=(0,))),
    # No ship: only items.
    ("s3 f1", DamageLine(structure=3, flotation=1)),
    ("fix 3", DamageLine(fixes=(3,))),
    # Ship names with digits.
    ("U-47 f2", DamageLine(ship="U-47", flotation=2)),
    ("Z 23 s1", DamageLine(ship="Z 23", structure=1)),
    ('"U 47" s1 f1', DamageLine(ship="U 47", structure=1, flotation=1)),
    ("I-58 fm+1", DamageLine(ship="I-58", fire_delta=1)),
    # Bounds of a number item.
    (f"ajax s{MAX_POINTS} f0", DamageLine(ship="ajax", structure=MAX_POINTS)),
    ("ajax s0003", DamageLine(ship="ajax", structure=3)),
    # An apostrophe inside double quotes is part of the name.
    ('"O\'Higgins" s2', DamageLine(ship="O'Higgins", structure=2)),
    ("exeter", DamageLine(ship="exeter")),
    # Words that are not items, before the first item, belong to the ship's name.
    ("exeter s-3 x3 s1", DamageLine(ship="exeter s-3 x3", structure=1)),
    ("", DamageLine()),
    ("   ", DamageLine()),
]


@pytest.mark.parametrize(("line", "expected"), VALID, ids=[line or "<empty>" for line, _ in VALID])
def test_valid_line_parses_to_exactly(line: str, expected: DamageLine) -> None:
    assert parse_line(line) == expected


@pytest.mark.parametrize(
    ("line", "empty"),
    [
        ("", True),
        ("exeter", True),
        ("exeter fm+0", True),
        ("exeter s0", True),
        ("exeter s1", False),
        ("exeter f1", False),
        ("exeter rs1", False),
        ("exeter rf1", False),
        ("exeter fm-1", False),
        ("exeter crit x", False),
        ("exeter fix 1", False),
    ],
)
def test_is_empty_only_when_the_line_names_no_change(line: str, empty: bool) -> None:
    assert parse_line(line).is_empty is empty


# --- invalid lines ------------------------------------------------------------------------------

INVALID = [
    # line, offending word, start, end, a fragment of the message
    ("exeter s3 boom", "boom", 10, 14, "not a shorthand word"),
    ("s3 exeter", "exeter", 3, 9, "not a shorthand word"),
    # Before the first item every word is the ship's; after it, each must be an item.
    ("exeter s1 s-3", "s-3", 10, 13, "not a shorthand word"),
    ("exeter s1 fm3", "fm3", 10, 13, "not a shorthand word"),
    ("exeter f1 x3", "x3", 10, 12, "not a shorthand word"),
    ("exeter s3 crit", "crit", 10, 14, "needs the effect"),
    ("exeter ucrit", "ucrit", 7, 12, "needs the effect"),
    ('exeter crit "B turret', '"B turret', 12, 21, "quote is not closed"),
    ("O'Higgins s2", "'Higgins s2", 1, 12, "quote is not closed"),
    ("exeter s1000", "s1000", 7, 12, "more than 999"),
    ("exeter f1000", "f1000", 7, 12, "more than 999"),
    ("exeter rs1000", "rs1000", 7, 13, "more than 999"),
    ("exeter fm+1000", "fm+1000", 7, 14, "more than 999"),
    ("exeter fix 1000", "1000", 11, 15, "more than 999"),
    # Each amount once: a second is refused, never added to the first (a recalled line typed
    # after a line that was not cleared says so, not a hit of twice the damage).
    ("jersey s1 s2", "s2", 10, 12, "structure given twice ('s1' before it)"),
    ("jersey f1 F3", "F3", 10, 12, "flotation given twice"),
    ("jersey fm+1 fm-1", "fm-1", 12, 16, "fire markers given twice"),
    ("jersey rs1 rf1 rs2", "rs2", 15, 18, "repair structure given twice"),
    ("exeter fix", "fix", 7, 10, "needs the number"),
    ("exeter fix one", "fix", 7, 10, "needs the number"),
    ("exeter fix -1", "fix", 7, 10, "needs the number"),
    ("exeter crit 0", "0", 12, 13, "1..100"),
    ("exeter crit 101", "101", 12, 15, "1..100"),
    ("exeter ucrit 000", "000", 13, 16, "1..100"),
    ('exeter crit ""', "", 12, 14, "effect is empty"),
    ('exeter crit "   "', "   ", 12, 17, "effect is empty"),
]


@pytest.mark.parametrize(
    ("line", "word", "start", "end", "says"), INVALID, ids=[case[0] for case in INVALID]
)
def test_invalid_line_names_the_offending_word_and_its_place(
    line: str, word: str, start: int, end: int, says: str
) -> None:
    with pytest.raises(ShorthandError) as caught:
        parse_line(line)
    error = caught.value
    assert (error.word, error.start, error.end) == (word, start, end)
    assert says in error.message
    assert str(error) == error.message


def test_an_unknown_word_error_places_the_word_in_the_line() -> None:
    line = "exeter s3 boom f1"
    with pytest.raises(ShorthandError) as caught:
        parse_line(line)
    assert line[caught.value.start : caught.value.end] == "boom"
    assert "'boom'" in caught.value.message


def test_a_non_text_line_is_refused_with_a_shorthand_error() -> None:
    with pytest.raises(ShorthandError):
        parse_line(3)  # type: ignore[arg-type]


# --- edge cases: odd digits, backslashes, quoted words -------------------------------------------


def test_superscript_digits_are_no_number() -> None:
    with pytest.raises(ShorthandError):
        parse_line("exeter fix ²")
    # After crit a word that is no die roll is the effect's text.
    assert parse_line("exeter ucrit ³").criticals == (CriticalInput(kind="underwater", text="³"),)


def test_a_quoted_number_after_crit_is_the_effect_not_a_roll() -> None:
    assert parse_line('exeter crit "12"').criticals == (
        CriticalInput(kind="structural", text="12"),
    )


def test_a_trailing_backslash_is_placed_inside_the_line() -> None:
    line = "exeter s3 \\"
    with pytest.raises(ShorthandError) as caught:
        parse_line(line)
    assert 0 <= caught.value.start <= caught.value.end <= len(line)
    assert "quote" not in caught.value.message


def test_offsets_after_a_backslash_escape_point_at_the_word() -> None:
    line = "a\\ b s1 zz"
    with pytest.raises(ShorthandError) as caught:
        parse_line(line)
    assert (caught.value.word, caught.value.start, caught.value.end) == ("zz", 8, 10)


def test_a_quoted_ship_name_is_never_an_item() -> None:
    assert parse_line('"S1" f2') == DamageLine(ship="S1", flotation=2)


# --- properties ---------------------------------------------------------------------------------


_PIECES = st.sampled_from(
    [
        "s3",
        "F1",
        "rs2",
        "rf1",
        "fm+1",
        "FM-2",
        "crit",
        "ucrit",
        "fix",
        "?",
        "1",
        "0",
        "101",
        "1000",
        '"',
        "'",
        "exeter",
        "U-47",
        '"a b"',
        "  ",
        "\t",
        "s",
        "fm+",
        "x",
    ]
)
_LINES = st.one_of(
    st.text(max_size=40),
    st.lists(_PIECES, max_size=8).map(" ".join),
    st.lists(_PIECES, max_size=8).map("".join),
)


@settings(max_examples=examples(400), deadline=None)
@given(text=_LINES)
@example(text='exeter crit "B turret')
@example(text="exeter crit")
def test_any_text_parses_or_raises_a_placed_shorthand_error(text: str) -> None:
    try:
        parsed = parse_line(text)
    except ShorthandError as error:
        assert 0 <= error.start <= error.end <= len(text)
        assert error.message
        if not re.search(r"[\"'\\]", text):
            # Without quotes or escapes the word is exactly the text at its place.
            assert text[error.start : error.end] == error.word
        return
    assert isinstance(parsed, DamageLine)
    assert (
        min(parsed.structure, parsed.flotation, parsed.repair_structure, parsed.repair_flotation)
        >= 0
    )


_ITEM_LIKE = re.compile(r"((rs|rf|s|f)\d+|fm[+-]\d+|crit|ucrit|fix)", re.IGNORECASE)
_SHIP_WORD = st.from_regex(r"[A-Za-z][A-Za-z0-9-]{0,7}", fullmatch=True).filter(
    lambda word: not _ITEM_LIKE.fullmatch(word)
)
_EFFECT = st.text(
    alphabet=st.characters(codec="ascii", categories=("L", "N", "Zs"), exclude_characters="\\"),
    min_size=1,
    max_size=20,
).filter(lambda text: text.strip() and not text.isdigit())  # all digits: a die roll
_N = st.integers(0, MAX_POINTS)
_ITEMS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["s", "f", "rs", "rf", "fm+", "fm-"]), _N),
        st.tuples(st.sampled_from(["crit", "ucrit"]), st.integers(1, 100)),
        st.tuples(st.sampled_from(["crit", "ucrit"]), _EFFECT),
        st.tuples(st.sampled_from(["crit", "ucrit"]), st.just("?")),
        st.tuples(st.just("fix"), _N),
    ),
    max_size=10,
)


@settings(max_examples=examples(200), deadline=None)
@given(
    ship=st.lists(_SHIP_WORD, max_size=3),
    items=_ITEMS,
    upper=st.lists(st.booleans(), min_size=12, max_size=12),
    gap=st.sampled_from([" ", "  ", "\t", " \t "]),
)
def test_generated_item_sequences_parse_to_their_amounts_each_given_once(
    ship: list[str], items: list[tuple[str, int | str]], upper: list[bool], gap: str
) -> None:
    totals = {"s": 0, "f": 0, "rs": 0, "rf": 0}
    fire = 0
    criticals: list[CriticalInput] = []
    fixes: list[int] = []
    words = list(ship)
    given: set[str] = set()  # an amount given twice is refused at its second word
    twice: str | None = None
    for position, (item, value) in enumerate(items):
        shout = upper[position % len(upper)]
        name = item.upper() if shout else item
        amount = "fm" if item.startswith("fm") else item if item in totals else None
        if amount is not None and twice is None and amount in given:
            twice = f"{name}{value}"
        given.add(amount or "")
        if item in totals:
            assert isinstance(value, int)
            totals[item] = value
            words.append(f"{name}{value}")
        elif item.startswith("fm"):
            assert isinstance(value, int)
            fire = value if item == "fm+" else -value
            words.append(f"{name}{value}")
        elif item == "fix":
            assert isinstance(value, int)
            fixes.append(value)
            words.extend([name, str(value)])
        else:
            kind = "structural" if item == "crit" else "underwater"
            if value == "?":
                criticals.append(CriticalInput(kind=kind, auto=True))
                words.extend([name, "?"])
            elif isinstance(value, int):
                criticals.append(CriticalInput(kind=kind, roll=value))
                words.extend([name, str(value)])
            else:
                criticals.append(CriticalInput(kind=kind, text=value.strip()))
                words.extend([name, f'"{value}"'])
    line = gap.join(words)
    if twice is not None:
        with pytest.raises(ShorthandError, match="given twice") as caught:
            parse_line(line)
        assert caught.value.word == twice and line[caught.value.start : caught.value.end] == twice
        return
    assert parse_line(line) == DamageLine(
        ship=" ".join(ship),
        structure=totals["s"],
        flotation=totals["f"],
        repair_structure=totals["rs"],
        repair_flotation=totals["rf"],
        fire_delta=fire,
        criticals=tuple(criticals),
        fixes=tuple(fixes),
    )


# --- rank_names ---------------------------------------------------------------------------------


def test_rank_names_orders_exact_prefix_word_prefix_substring_then_letters() -> None:
    names = [
        "Eagle X",  # the letters e..x in order only
        "Dextrous",  # substring
        "HMS Exmoor",  # a later word starts with it
        "Exeter",  # the name starts with it
        "EX",  # exact, any case
        "Ajax",  # no e before the x: not a match
    ]
    assert rank_names("ex", names) == [4, 3, 2, 1, 0]


def test_rank_names_ties_keep_the_given_order() -> None:
    assert rank_names("ex", ["Exmouth", "Exeter", "Express"]) == [0, 1, 2]
    assert rank_names("ex", ["Express", "Exeter", "Exmouth"]) == [0, 1, 2]


def test_rank_names_leaves_out_names_that_do_not_match() -> None:
    assert rank_names("zz", ["Exeter", "Ajax"]) == []
    assert rank_names("xe", ["Exeter", "Ajax", "Axe"]) == [0, 2]


@pytest.mark.parametrize("query", ["", "   ", "\t"])
def test_rank_names_with_an_empty_query_keeps_every_name_in_order(query: str) -> None:
    assert rank_names(query, ["Exeter", "Ajax", "Achilles"]) == [0, 1, 2]
    assert rank_names(query, []) == []


def test_rank_names_ignores_case_and_extra_spaces() -> None:
    names = ["Graf Zeppelin", "Admiral Graf Spee", "Admiral Hipper"]
    assert rank_names("  ADMIRAL   graf ", names) == [1]
    assert rank_names("graf", names) == [0, 1]
    assert rank_names("agspee", names) == [1]
    assert rank_names("admiral graf spee", ["admiral  GRAF spee"]) == [0]


@settings(max_examples=examples(200), deadline=None)
@given(
    query=st.text(alphabet="abeg x", max_size=4),
    names=st.lists(st.text(alphabet="abeg xA", max_size=8), max_size=6),
)
def test_rank_names_returns_each_matching_name_once(query: str, names: list[str]) -> None:
    ranked = rank_names(query, names)
    assert len(ranked) == len(set(ranked))
    assert set(ranked) <= set(range(len(names)))
    wanted = " ".join(query.lower().split())
    for index, name in enumerate(names):
        lowered = " ".join(name.lower().split())
        if wanted in lowered:
            assert index in ranked
        if index in ranked and wanted:
            # Every listed name holds the query's letters in order.
            rest = iter(lowered)
            assert all(letter in rest for letter in wanted.replace(" ", ""))
    if wanted and wanted in [" ".join(n.lower().split()) for n in names]:
        first = names[ranked[0]]
        assert " ".join(first.lower().split()) == wanted


# --- best_matches: a typed name is recorded without asking when it is one name alone -----------


@pytest.mark.parametrize(
    ("query", "names", "tied"),
    [
        ("ho", ["Hotspur", "Hostile", "Havock"], [0, 1]),  # two names begin with it: ask
        ("hots", ["Hotspur", "Hostile", "Havock"], [0]),  # only Hotspur begins with it
        ("hav", ["Hotspur", "Hostile", "Havock"], [2]),
        ("hood", ["Hoodoo", "Hood"], [1]),  # the whole name beats a beginning
        ("HOOD", ["hood", "Hood"], [0, 1]),  # two ships of one name: ask
        ("spee", ["Admiral Graf Spee", "Admiral Hipper"], [0]),
        ("zz", ["Exeter", "Ajax"], []),  # no match at all
        ("", ["Exeter"], []),  # no name typed: the screen's last ship, not this rule
    ],
)
def test_best_matches_names_one_ship_only_when_none_matches_as_well(
    query: str, names: list[str], tied: list[int]
) -> None:
    assert best_matches(query, names) == tied


@settings(max_examples=examples(300), deadline=None, derandomize=True, database=None)
@given(
    query=st.text(alphabet="hos tx", max_size=4),
    names=st.lists(st.text(alphabet="hos txH", min_size=1, max_size=8), max_size=6),
)
def test_best_matches_are_the_first_ranked_alone_in_their_kind(
    query: str, names: list[str]
) -> None:
    tied = best_matches(query, names)
    ranked = rank_names(query, names) if query.split() else []
    assert bool(tied) == bool(ranked)  # nothing matches, or some name matches best
    if tied:
        # The ranked names of the best kind, in the given order; every other one matches worse.
        kind = match_kind(query, names[ranked[0]])
        assert tied == ranked[: len(tied)] and tied == sorted(tied)
        assert all(match_kind(query, names[i]) == kind for i in tied)
        assert all(match_kind(query, names[i]) != kind for i in ranked[len(tied) :])


# --- items_of and line_for: a line repeated on another ship --------------------------------------


@pytest.mark.parametrize(
    ("line", "items"),
    [
        ("exeter s3 f1 fm+1", "s3 f1 fm+1"),
        ('"Admiral Graf Spee" s2 crit "B turret out"', 's2 crit "B turret out"'),
        ('"S1" f2', "f2"),  # a quoted name is a name, even one that looks like an item
        ("s3 f1", "s3 f1"),  # no name: the screen's last ship
        ("exeter", ""),
    ],
)
def test_items_of_leaves_the_ships_name_out(line: str, items: str) -> None:
    assert items_of(line) == items


@settings(max_examples=examples(300), deadline=None, derandomize=True, database=None)
@given(
    ship=st.text(alphabet=st.sampled_from("aAsSf1 '\"-+"), min_size=1, max_size=10).filter(
        lambda name: name.strip() == name and "  " not in name
    ),
    structure=st.integers(0, 999),
    fire=st.integers(-99, 99),
)
def test_a_line_for_a_ship_reads_back_as_that_ship_and_those_items(
    ship: str, structure: int, fire: int
) -> None:
    items = f"s{structure} fm{fire:+d}"
    line = line_for(ship, items)
    if line == items:  # a name no quoting can carry (both quotes and item-like words)
        assert "'" in ship and '"' in ship
        return
    parsed = parse_line(line)
    assert parsed.ship == ship
    assert (parsed.structure, parsed.fire_delta) == (structure, fire)
    assert items_of(line) == items


@pytest.mark.parametrize(
    ("typed", "names", "offered"),
    [
        ("sufflok", ["Norfolk", "Suffolk", "Exeter"], ["Suffolk"]),
        ("hoood", ["Hoodoo", "Hood", "Ajax"], ["Hood", "Hoodoo"]),
        ("EXTEER", ["Ajax", "Exeter", "Achilles"], ["Exeter"]),
        ("zzzz", ["Ajax", "Exeter"], []),
    ],
)
def test_a_name_that_matches_none_is_offered_the_nearest_names(
    typed: str, names: list[str], offered: list[str]
) -> None:
    assert rank_names(typed, names) == []  # a typo: no ship matches it as typed
    assert nearest_names(typed, names) == offered
