"""Printable record sheets: what the HTML page and the Markdown carry, escaping, paper sizes,
finding a squadron by name and writing the file whole or not at all."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from service_helpers import Refused, World

from tracker import paths
from tracker.cli.common import one_named
from tracker.db import SessionFactory, session_scope
from tracker.models import Ship
from tracker.publish import sheet_pages
from tracker.safe_output import ExistingFile
from tracker.services import campaigns, command, damage, fleet, mines, printing
from tracker.services.damage import CriticalRequest, HitRequest
from tracker.services.errors import InvalidInput

NASTY = '<script>alert("x")</script> & [b]Bold[/b] *star* |pipe|'


def _hit(factory: SessionFactory, ship_id: int, **values: Any) -> None:
    damage.record_hit(factory, request=HitRequest(ship_id=ship_id, **values))


def _lose_fuel(factory: SessionFactory, ship_id: int, lost: int) -> None:
    # Fuel is lost only through a mine check; its result on the row is what the sheet reads.
    with session_scope(factory) as session:
        ship = session.get(Ship, ship_id)
        assert ship is not None
        ship.fuel_full -= lost
        ship.fuel_lost += lost
        session.add(ship)


@pytest.fixture
def alpha(world: World, factory: SessionFactory, add_ship: Callable[..., int]) -> dict[str, int]:
    """Alpha with a commander, a crew and three ships: one damaged below 1/3 with criticals
    (one repaired), one with a Second World War at Sea counter and fuel, one sunk."""
    command.set_commander(factory, squadron_id=world.alpha_id, name="Cdre Harwood", training=4,
                          acquisition="random", roll=5)  # fmt: skip
    command.set_crew(factory, squadron_id=world.alpha_id, training=4, acquisition="random", roll=5)
    ships = {
        "exeter": add_ship(world.alpha_id, "Exeter", type_abbrev="CA", class_name="York",
                           nation="Great Britain", speed_kn=32, armour_class="C",
                           structure_max=12, flotation_max=9, points_base=480),
        "ajax": add_ship(world.alpha_id, "Ajax", class_name="Leander", speed_kn=31),
        "hood": add_ship(world.alpha_id, "Hood", type_abbrev="BC"),
    }  # fmt: skip
    _hit(factory, ships["exeter"], structure=8, fire_delta=2,
         criticals=(CriticalRequest(effect="B turret out"),
                    CriticalRequest(kind="underwater", effect="Flooding forward"),
                    CriticalRequest(effect="Radar wrecked")))  # fmt: skip
    _hit(factory, ships["exeter"], fixes=(3,))  # Radar wrecked: repaired
    mines.save_counter(factory, ship_id=ships["ajax"], counter_size="long", speed_rating=4,
                       hull_boxes=3, fuel_full=4, fuel_empty=1)  # fmt: skip
    _lose_fuel(factory, ships["ajax"], 1)
    _hit(factory, ships["hood"], flotation=8)
    damage.confirm_condition(factory, ship_id=ships["hood"], outcome="Sunk")
    return ships


def _html(factory: SessionFactory, squadron_id: int, paper: str = "a4") -> str:
    return sheet_pages.squadron_page(factory, squadron_id=squadron_id, paper=paper)


def _text(page: str) -> str:
    """The page's visible text, roughly: tags and the style block dropped, entities decoded."""
    body = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def _between(page: str, start: str, end: str | None = None) -> str:
    """The part of page from the first `start` up to the first `end` after it (or to the end)."""
    begin = page.index(start)
    return page[begin:] if end is None else page[begin : page.index(end, begin)]


# --- the HTML page ------------------------------------------------------------------------------


def test_html_heading_commander_crew_and_every_ship(
    world: World, factory: SessionFactory, alpha: dict[str, int]
) -> None:
    page = _html(factory, world.alpha_id)
    text = _text(page)
    assert page.startswith("<!DOCTYPE html>")
    for expected in (
        "Test campaign", "Side: Blue", "Squadron Alpha", "First clash",
        "Cdre Harwood", "Skilled (rolled 5 at IV)", "Modifier", "+1 (base +1)", "50 cm (base 50)",
        "7 ships", "Veteran (rolled 5 at IV)", "+10% on each ship",
        "Exeter", "Ajax", "Hood", "York class", "Great Britain", "32 kn", "Armour",
        "480 → 528 (crew +10%)",
    ):  # fmt: skip
        assert expected in text, expected
    for track in ("Structure", "Flotation", "Fire"):
        assert page.count(f'<span class="label">{track}</span>') == 3, track


def test_html_tracks_show_the_third_mark_and_the_smoke_flags(
    world: World, factory: SessionFactory, alpha: dict[str, int]
) -> None:
    page = _html(factory, world.alpha_id)
    exeter = _between(page, "<h3>Exeter</h3>", "<h3>Ajax</h3>")
    assert 'aria-label="Structure 4 of 12, 1/3 at 4"' in exeter
    assert 'aria-label="Flotation 9 of 9, 1/3 at 3"' in exeter
    assert "S⅓ black smoke: morale test" in exeter
    assert "F⅓" not in exeter
    # 12 boxes: 4 left, 8 crossed out, and one thick line at the 1/3 mark.
    svg = _between(exeter, 'aria-label="Structure', "</svg>")
    assert svg.count("<rect") == 12 and svg.count('fill="#bbb"') == 8
    assert svg.count('stroke-width="2.5"') == 1
    assert 'aria-label="2 fire markers"' in exeter
    hood = _between(page, "<h3>Hood</h3>")
    assert '<span class="flag">SUNK</span>' in hood
    assert 'class="ship sunk"' in page


def test_html_lists_criticals_in_force_only(
    world: World, factory: SessionFactory, alpha: dict[str, int]
) -> None:
    text = _text(_html(factory, world.alpha_id))
    exeter = _between(text, "Exeter", "Ajax")
    assert "structural: B turret out" in exeter
    assert "underwater: Flooding forward" in exeter
    assert "Radar wrecked" not in text
    ajax = _between(text, "Ajax", "Hood")
    assert "Criticals in force  none" in ajax


def test_html_shows_the_counter_and_the_fuel_track_only_for_ships_with_one(
    world: World, factory: SessionFactory, alpha: dict[str, int]
) -> None:
    page = _html(factory, world.alpha_id)
    ajax = _between(page, "<h3>Ajax</h3>", "<h3>Hood</h3>")
    assert "long counter · speed 4 · hull 0 of 3 boxes hit" in ajax
    assert "3 full, 1 empty, 1 lost" in ajax
    assert "a friendly-port repair restores them" in ajax
    fuel = _between(ajax, 'aria-label="fuel:', "</svg>")
    # Full black, empty white, lost grey and crossed out.
    assert fuel.count('fill="#000"') == 3 and fuel.count('fill="#fff"') == 1
    assert fuel.count('fill="#bbb"') == 1 and fuel.count("<path") == 1
    assert page.count("Second World War at Sea") == 1


def test_html_is_self_contained_and_print_friendly(
    world: World, factory: SessionFactory, alpha: dict[str, int]
) -> None:
    page = _html(factory, world.alpha_id)
    lowered = page.lower()
    for forbidden in ("<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "href="):
        assert forbidden not in lowered, forbidden
    # The only address is the SVG namespace, which is never fetched.
    assert set(re.findall(r"https?://[^\"' ]+", page)) == {"http://www.w3.org/2000/svg"}
    assert "page-break-inside: avoid" in page and "break-inside: avoid" in page
    colours = set(re.findall(r"#[0-9a-fA-F]{3,6}\b", page))
    assert all(len(set(c[1:].lower())) == 1 for c in colours), colours  # greys only


def test_paper_sets_the_page_size(
    world: World, factory: SessionFactory, alpha: dict[str, int], refused: Refused
) -> None:
    a4 = _html(factory, world.alpha_id)
    letter = _html(factory, world.alpha_id, paper="letter")
    assert "@page { size: A4; margin: 12mm; }" in a4 and "Letter" not in a4
    assert "@page { size: Letter; margin: 12mm; }" in letter and "size: A4" not in letter
    error = refused(lambda: _html(factory, world.alpha_id, paper="a3"), "paper")
    assert "a4 or letter" in str(error)


def test_player_text_prints_as_typed(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    squadron = fleet.create_squadron(
        factory, side_id=world.blue_id, name="<b>Force</b> & Co", notes="</style><h1>x</h1>"
    )
    add_ship(squadron, NASTY, class_name="<i>York</i>", notes="line one\n<u>two</u>")
    campaign = campaigns.get_overview(factory, campaign_id=world.campaign_id).campaign
    campaigns.update_campaign(
        factory, campaign_id=world.campaign_id, name="[red]Plate[/red] <&>", notes="",
        model_scale=campaign.model_scale, crew_roll_adds_commander=False,
    )  # fmt: skip
    page = _html(factory, squadron)
    for typed in ("<script>", "<b>Force</b>", "<i>York</i>", "</style><h1>", "<u>two</u>"):
        assert typed not in page, typed
    assert html.escape(NASTY) in page
    assert "&lt;b&gt;Force&lt;/b&gt; &amp; Co" in page
    assert "[red]Plate[/red] &lt;&amp;&gt;" in page
    assert "&lt;/style&gt;&lt;h1&gt;x&lt;/h1&gt;" in page
    text = _text(page)
    assert NASTY in text and "<b>Force</b> & Co" in text and "line one\n<u>two</u>" in text


def test_an_empty_squadron_still_prints(world: World, factory: SessionFactory) -> None:
    text = _text(_html(factory, world.bravo_id))
    assert "No ships in this squadron." in text
    assert "No commander yet." in text and "No crew rating yet." in text


# --- Markdown -----------------------------------------------------------------------------------


def test_markdown_has_tables_and_every_ship(
    world: World, factory: SessionFactory, alpha: dict[str, int]
) -> None:
    text = sheet_pages.squadron_page(factory, squadron_id=world.alpha_id, fmt="markdown")
    lines = text.splitlines()
    assert lines[0] == "# Alpha: Squadron Record Sheet"
    assert "| Name | Rating | Modifier | Radius | Commands | Cost |" in lines
    assert (
        "| Cdre Harwood | Skilled (rolled 5 at IV) | +1 (base +1) | 50 cm (base 50) | 7 ships "
        "| 2500 |" in lines
    )
    header = lines.index(
        "| Ship | Type | Class | Nation | Speed | Armour | Points | Structure | Flotation | Fire "
        "| Status |"
    )
    assert lines[header + 1] == "|" + " --- |" * 11
    rows = lines[header + 2 : header + 5]
    assert [row.split(" | ")[0] for row in rows] == ["| Exeter", "| Ajax", "| Hood"]
    assert all(row.count("|") == 12 for row in rows)
    assert "| 4/12 | 9/9 | 2 | S⅓ black smoke: morale test |" in rows[0]
    for name in ("Exeter", "Ajax", "Hood"):
        assert f"### {name}" in lines
    assert "- Structure: 4/12 ■■■■¦□□□□□□□□ (⅓ at 4)" in lines
    assert "  1. structural: B turret out (turn 1)" in lines
    assert "  2. underwater: Flooding forward (turn 1)" in lines
    assert "Radar wrecked" not in text
    assert "- Fuel: ■■■□✕ 3 full, 1 empty, 1 lost" in lines
    assert text.count("Second World War at Sea") == 1
    assert "**SUNK**" in lines


def test_markdown_escapes_player_text(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    squadron = fleet.create_squadron(factory, side_id=world.blue_id, name="<b>Force</b> & Co")
    add_ship(squadron, NASTY, notes="one\ntwo")
    text = sheet_pages.squadron_page(factory, squadron_id=squadron, fmt="markdown")
    escaped = r'\<script\>alert("x")\</script\> \& \[b\]Bold\[/b\] \*star\* \|pipe\|'
    assert f"### {escaped}" in text
    assert f"| {escaped} |" in text
    assert r"# \<b\>Force\</b\> \& Co: Squadron Record Sheet" in text
    assert "- Notes: one<br>two" in text
    # Every table row keeps its column count: a typed | never opens a cell.
    table = [line for line in text.splitlines() if line.startswith("| ")]
    ships_row = next(line for line in table if "script" in line)
    assert len(re.findall(r"(?<!\\)\|", ships_row)) == 12


# --- finding a squadron by name -----------------------------------------------------------------


def find_squadron(factory: SessionFactory, name: str) -> int:
    return one_named(printing.named(factory, depth=3), name, "squadron")


def test_find_squadron_by_name_any_case_or_side_slash_name(
    world: World, factory: SessionFactory
) -> None:
    assert find_squadron(factory, "alpha") == world.alpha_id
    assert find_squadron(factory, "  RAIDER ") == world.raider_id
    assert find_squadron(factory, "blue / bravo") == world.bravo_id
    assert find_squadron(factory, "Test campaign/Blue/Alpha") == world.alpha_id


def test_find_squadron_refuses_an_ambiguous_name_listing_the_candidates(
    world: World, factory: SessionFactory
) -> None:
    red_alpha = fleet.create_squadron(factory, side_id=world.red_id, name="ALPHA")
    with pytest.raises(InvalidInput) as caught:
        find_squadron(factory, "Alpha")
    message = caught.value.errors["squadron"]
    assert "2 squadrons: Blue/Alpha, Red/ALPHA" in message and "give one as listed" in message
    assert find_squadron(factory, "red/alpha") == red_alpha


def test_find_squadron_refuses_an_unknown_name_listing_the_squadrons(
    world: World, factory: SessionFactory
) -> None:
    with pytest.raises(InvalidInput) as caught:
        find_squadron(factory, "Force Z")
    assert caught.value.errors == {
        "squadron": 'no squadron named "Force Z"; the file has Blue/Alpha, Blue/Bravo, Red/Raider'
    }
    with pytest.raises(InvalidInput):
        find_squadron(factory, " / ")


def test_find_squadron_names_the_campaign_when_two_share_side_and_squadron(
    world: World, factory: SessionFactory
) -> None:
    other = campaigns.create_campaign(factory, name="Norway")
    blue = campaigns.create_side(factory, campaign_id=other.id, name="Blue")
    norway_alpha = fleet.create_squadron(factory, side_id=blue.id, name="Alpha")
    with pytest.raises(InvalidInput) as caught:
        find_squadron(factory, "blue/alpha")
    assert "Test campaign/Blue/Alpha, Norway/Blue/Alpha" in str(caught.value)
    assert find_squadron(factory, "norway/blue/alpha") == norway_alpha


# --- writing the file ---------------------------------------------------------------------------


def test_write_sheet_writes_html_or_markdown_and_returns_the_path(
    world: World, factory: SessionFactory, alpha: dict[str, int], tmp_path: Path
) -> None:
    page = sheet_pages.write_sheet(
        factory, squadron_id=world.alpha_id, path=tmp_path / "alpha.html", paper="letter"
    )
    assert page == tmp_path / "alpha.html"
    assert "size: Letter" in page.read_text(encoding="utf-8")
    assert page.stat().st_mode & 0o777 == 0o600  # the owner's sheet: the player's alone
    notes = sheet_pages.write_sheet(
        factory, squadron_id=world.alpha_id, path=str(tmp_path / "alpha.md"), fmt="markdown"
    )
    assert notes.read_text(encoding="utf-8").startswith("# Alpha: Squadron Record Sheet")
    # A second print replaces the first whole once confirmed, and leaves no temporary file.
    with pytest.raises(ExistingFile):
        sheet_pages.write_sheet(factory, squadron_id=world.alpha_id, path=tmp_path / "alpha.html")
    assert "size: Letter" in page.read_text(encoding="utf-8")
    sheet_pages.write_sheet(
        factory, squadron_id=world.alpha_id, path=tmp_path / "alpha.html", replace=True
    )
    assert "size: A4" in page.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("alpha")) == [
        "alpha.html", "alpha.md",
    ]  # fmt: skip
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


@pytest.mark.parametrize(
    ("where", "values", "key", "words"),
    [
        ("missing/sheet.html", {}, "path", "does not exist"),
        (".", {}, "path", "is a folder"),
        ("file.txt/sheet.html", {}, "path", "file.txt is not a folder"),
        ("sheet.html", {"fmt": "pdf"}, "fmt", "html or markdown"),
        ("sheet.html", {"paper": "a5"}, "paper", "a4 or letter"),
        ("  ", {}, "path", "blank"),
    ],
)
def test_write_sheet_refuses_and_writes_nothing(
    world: World,
    factory: SessionFactory,
    tmp_path: Path,
    refused: Refused,
    where: str,
    values: dict[str, str],
    key: str,
    words: str,
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "file.txt").write_text("keep")
    path = where if not where.strip() else str(folder / where)
    error = refused(
        lambda: sheet_pages.write_sheet(factory, squadron_id=world.alpha_id, path=path, **values),
        key,
    )
    assert words in error.errors[key]
    assert sorted(p.name for p in folder.iterdir()) == ["file.txt"]


def test_default_path_is_beside_the_campaign_file(
    world: World, factory: SessionFactory, db_path: Path, backend: str
) -> None:
    # A database on a server has no folder of its own: sheets go to saves/.
    folder = db_path.parent if backend == "sqlite" else paths.default_saves_dir()
    assert printing.default_sheet_path(factory, squadron_id=world.alpha_id) == (
        folder / "Alpha.html"
    )
    odd = fleet.create_squadron(factory, side_id=world.red_id, name="../Force <H>/K")
    assert printing.default_sheet_path(factory, squadron_id=odd, fmt="markdown") == (
        folder / "Force-H-K.md"
    )


def test_a_very_long_track_still_draws_every_box(
    world: World, factory: SessionFactory, add_ship: Callable[..., int]
) -> None:
    add_ship(world.bravo_id, "Yamato", structure_max=300, flotation_max=120)
    page = _html(factory, world.bravo_id)
    svg = _between(page, 'aria-label="Structure 300 of 300', "</svg>")
    widths = [float(w) for w in re.findall(r'<rect x="[^"]+" y="3" width="([^"]+)"', svg)]
    assert len(widths) == 300 and all(0 < width < 1 for width in widths)
    assert 'width="240" height="18"' in svg
