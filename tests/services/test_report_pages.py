"""The campaign's story on paper: both reports rendered by headless Chromium (a screenshot that is
not blank, PDFs of the expected pages on A4 and Letter, no block split across pages), a side's
report scanned for the other side's generated secrets, and `tracker report` from the shell."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from depth import examples
from hypothesis import given, settings
from service_helpers import World, fresh_factory
from test_print_render import CHROMIUM, _chromium, assert_not_blank, finish
from test_reports import (
    PASSPHRASE,
    SIDES_SECRETS,
    TITLES,
    Pair,
    assert_secrets,
    play_campaign,
    secret_campaign,
)

from tracker.cli import main
from tracker.db import SessionFactory
from tracker.services import campaigns, fleet, report_pages, reports, roster, scenarios, story_plots
from tracker.services.fleet import ShipFields

PAGE_SIZES = {"a4": "(A4)", "letter": "(letter)"}

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.is_file() or subprocess.run(["which", "pdfinfo"], capture_output=True).returncode,
    reason="needs /usr/bin/chromium and pdfinfo: run `make system-deps`",
)


def build_world(factory: SessionFactory) -> World:
    """The service tests' world (Blue with Alpha and Bravo, Red with Raider), on a fresh file."""
    campaign = campaigns.create_campaign(factory, name="River Plate")
    scenario = campaigns.add_scenario(factory, campaign_id=campaign.id, title=TITLES[0],
                                      date="13 Dec 1939")  # fmt: skip
    blue = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue").id
    red = campaigns.create_side(factory, campaign_id=campaign.id, name="Red").id
    return World(
        campaign_id=campaign.id, scenario_id=scenario.id, blue_id=blue, red_id=red,
        alpha_id=fleet.create_squadron(factory, side_id=blue, name="Alpha"),
        bravo_id=fleet.create_squadron(factory, side_id=blue, name="Bravo"),
        raider_id=fleet.create_squadron(factory, side_id=red, name="Raider"),
    )  # fmt: skip


@dataclass(frozen=True)
class Rendered:
    screenshot: Path
    pdfs: dict[tuple[str, str], Path]  # (report, paper) -> PDF


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, migrated_template: Path) -> Rendered:
    root = tmp_path_factory.mktemp("story")
    pages: dict[tuple[str, str], Path] = {}
    with fresh_factory(tmp_path_factory, migrated_template, "story-file") as factory:
        world = build_world(factory)
        played = play_campaign(factory, world)
        for paper in ("a4", "letter"):
            for name, scenario_id in (("campaign", None), ("second", played.scenario_ids[1])):
                path = root / f"{name}-{paper}.html"
                report_pages.write_report(factory, campaign_id=world.campaign_id, path=path,
                                          scenario_id=scenario_id, paper=paper)  # fmt: skip
                pages[(name, paper)] = path
    screenshot = root / "story.png"
    shot = _chromium(root / "profile-shot", "--window-size=800,1000",
                     f"--screenshot={screenshot}", pages[("campaign", "a4")].as_uri())  # fmt: skip
    jobs = [shot]
    pdfs = {key: page.with_suffix(".pdf") for key, page in pages.items()}
    for key, page in pages.items():
        jobs.append(_chromium(root / f"profile-{page.stem}", f"--print-to-pdf={pdfs[key]}",
                              page.as_uri()))  # fmt: skip
    finish(jobs)
    return Rendered(screenshot, pdfs)


def _pdf_pages(pdf: Path) -> list[str]:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True,
                          timeout=30).stdout  # fmt: skip
    count = int(re.search(r"Pages:\s+(\d+)", info).group(1))  # type: ignore[union-attr]
    return [
        subprocess.run(["pdftotext", "-layout", "-f", str(n), "-l", str(n), str(pdf), "-"],
                       capture_output=True, text=True, check=True, timeout=30).stdout
        for n in range(1, count + 1)
    ]  # fmt: skip


@needs_chromium
def test_the_screenshot_is_not_blank(rendered: Rendered) -> None:
    assert_not_blank(rendered.screenshot, most=0.6)  # the plots' grids ink more than a sheet


@needs_chromium
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_pdfs_have_their_paper_and_pages(rendered: Rendered, paper: str) -> None:
    for name in ("campaign", "second"):
        info = subprocess.run(["pdfinfo", str(rendered.pdfs[(name, paper)])], capture_output=True,
                              text=True, check=True, timeout=30).stdout  # fmt: skip
        size = re.search(r"Page size:.*", info)
        assert size is not None and size.group(0).endswith(PAGE_SIZES[paper]), info
    # One scenario's report fits one page of either size.
    assert len(_pdf_pages(rendered.pdfs[("second", paper)])) == 1
    pages = _pdf_pages(rendered.pdfs[("campaign", paper)])
    # The campaign's summary, then each after-action report from the top of a page of its own,
    # each on one page: as many pages as the summary takes, plus three.
    starts = [i for i, text in enumerate(pages) if "After-action report:" in text]
    assert len(starts) == 3 and starts == list(range(len(pages) - 3, len(pages))), starts
    for index, title in zip(starts, TITLES, strict=True):
        first_line = pages[index].strip().splitlines()[0]
        assert first_line.startswith("After-action report:") and title in first_line
    summary = pages[: starts[0]]
    assert 1 <= len(summary) <= 2


@needs_chromium
def test_no_service_record_or_plot_is_split(rendered: Rendered) -> None:
    pages = _pdf_pages(rendered.pdfs[("campaign", "a4")])
    summary = [text for text in pages if "After-action report:" not in text]
    for ship, fought in (("Ajax", 3), ("Exeter", 2), ("Graf Spee", 3)):
        # A record: its heading (name, type, side) and one line per scenario, on one page.
        holding = [text for text in summary if re.search(rf"^\s*{ship} CA ·", text, re.M)]
        assert len(holding) == 1, ship
        block = holding[0].split(f"{ship} CA ·", 1)[1]
        assert len(re.findall(r"^\s*\d\. ", block, re.M)) >= fought
    # A plot: its title and its legend on the same page (two plots may stand side by side).
    names = {"Blue, all its ships", "Red, all its ships", "Ajax",
             "Exeter", "Graf Spee"}  # fmt: skip
    titles_seen = []
    for text in summary:
        titles = [
            name
            for line in text.splitlines()
            if line.strip() and set(parts := re.split(r"\s{2,}", line.strip())) <= names
            for name in parts
        ]
        assert len(re.findall(r"Structure\s+Flotation", text)) == len(titles), text
        titles_seen += titles
    assert sorted(titles_seen) == sorted(names)


# --- secrets ------------------------------------------------------------------------------------


@settings(max_examples=examples(5))
@given(sides=SIDES_SECRETS)
def test_a_sides_page_holds_none_of_the_other_sides_secrets(
    tmp_path_factory: pytest.TempPathFactory, migrated_template: Path, sides: Pair
) -> None:
    red, blue = sides
    with fresh_factory(tmp_path_factory, migrated_template, "page-secrets") as factory:
        campaign, scenario, blue_id, _ = secret_campaign(factory, red, blue)
        folder = tmp_path_factory.mktemp("pages")
        written = []
        for fmt in ("html", "markdown"):
            for scenario_id in (None, scenario):
                written.append(report_pages.write_report(
                    factory, campaign_id=campaign, scenario_id=scenario_id, side_id=blue_id,
                    passphrase=PASSPHRASE, fmt=fmt, path=folder / f"{fmt}-{scenario_id}.txt",
                ).read_text())  # fmt: skip
            written.append(report_pages.write_report(
                factory, campaign_id=campaign, fmt=fmt, path=folder / f"{fmt}-everyone.txt",
            ).read_text())  # fmt: skip
    # Blue's own pages (its secrets opened), then the pages for everyone.
    own, everyone = written[:2] + written[3:5], [written[2], written[5]]
    assert_secrets(red, owned=[], others=written)
    assert_secrets(blue, owned=own, others=everyone)


# --- the page's text and the command line -------------------------------------------------------


def test_player_text_prints_as_typed_and_the_page_holds_no_script(
    factory: SessionFactory, world: World, tmp_path: Path
) -> None:
    name = "<script>x</script>[b]&"
    fields = ShipFields(name=name, structure_max=3, flotation_max=3)
    ship = fleet.create_ship(factory, squadron_id=world.alpha_id, fields=fields)
    scenarios.set_participants(factory, scenario_id=world.scenario_id, ship_ids=[ship])
    scenarios.start_scenario(factory, scenario_id=world.scenario_id)
    scenarios.close_scenario(factory, scenario_id=world.scenario_id, outcome="<i>won</i>")
    page = report_pages.write_report(factory, campaign_id=world.campaign_id,
                                     path=tmp_path / "r.html").read_text()  # fmt: skip
    assert "<script" not in page.lower() and "&lt;script&gt;x&lt;/script&gt;[b]&amp;" in page
    assert "&lt;i&gt;won&lt;/i&gt;" in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")  # fmt: skip
    markdown = report_pages.write_report(factory, campaign_id=world.campaign_id, fmt="markdown",
                                         path=tmp_path / "r.md").read_text()  # fmt: skip
    assert r"\<script\>x\</script\>\[b\]\&" in markdown


@pytest.mark.sqlite_only("the command line opens the test's campaign file")
def test_the_command_writes_the_report_and_refuses_what_it_cannot_find(
    factory: SessionFactory, world: World, db_path: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    play_campaign(factory, world)
    db = ["--db", str(db_path)]
    out = tmp_path / "story.html"
    assert main([*db, "report", "test campaign", "--html", str(out), "--side", "blue"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert "For: Blue" in out.read_text()
    assert main([*db, "report", "Test campaign", "--html", str(out)]) == 2
    assert "add --force" in capsys.readouterr().err
    assert main([*db, "report", "Test campaign", "--scenario", "2", "--markdown",
                 str(tmp_path / "s.md")]) == 0  # fmt: skip
    assert (tmp_path / "s.md").read_text().startswith("# After-action report: 2. Second")
    for args, said in (
        (["Nowhere", "--html", "x.html"], "no campaign 'Nowhere'"),
        (["Test campaign", "--scenario", "9", "--html", "x.html"], "has no scenario 9"),
        (["Test campaign", "--side", "Green", "--html", "x.html"], "has no side 'Green'"),
        (["Test campaign", "--html", str(db_path)], "never overwritten"),
    ):
        assert main([*db, "report", *args]) == 2
        assert said in capsys.readouterr().err
    # A side under a passphrase: asked for at a terminal, said how where there is none.
    roster.set_passphrase(factory, side_id=world.red_id, passphrase=PASSPHRASE)
    assert main([*db, "report", "Test campaign", "--side", "Red", "--html",
                 str(tmp_path / "red.html")]) == 2  # fmt: skip
    assert "give its passphrase; run tracker report at a terminal" in capsys.readouterr().err
    assert not (tmp_path / "red.html").exists()
    campaigns.add_scenario(factory, campaign_id=world.campaign_id, title="Fourth")
    assert main([*db, "report", "Test campaign", "--scenario", "4", "--html",
                 str(tmp_path / "4.html")]) == 2  # fmt: skip
    assert "is planned: its after-action report is written once it is closed" in (
        capsys.readouterr().err)  # fmt: skip
    assert not (tmp_path / "4.html").exists()


def test_the_report_is_the_same_data_the_service_gives(
    factory: SessionFactory, world: World
) -> None:
    """The page says the service's figures: each ship's points and each side's losses."""
    play_campaign(factory, world)
    story = reports.campaign_report(factory, campaign_id=world.campaign_id)
    page = report_pages.campaign_html(story)
    for record in story.records:
        assert f"{record.points} points (crew {record.crew_percent:+d}%)" in page
    for tally in story.sides:
        assert f"<b>{tally.ships_lost} ship{'s' * (tally.ships_lost != 1)}</b>" in page, tally


# --- the plots say what they show ----------------------------------------------------------------


def _css(svg: str, selector: str) -> dict[str, str]:
    """What the SVG's own rules for `selector` (its chart id before it) declare, later rules
    over earlier ones, as a browser reads them."""
    rules = re.findall(r"#chart-[0-9a-f-]+ " + re.escape(selector) + r"(?:,[^{]*)?\{([^}]*)\}", svg)
    assert rules, selector
    return {key: value for rule in rules for key, value in
            (item.split(":", 1) for item in rule.split(";"))}  # fmt: skip


def test_the_plots_say_what_they_show(factory: SessionFactory, world: World) -> None:
    """Each plot says what its axis codes mean, draws the 1/3 line of each track (a third of the
    full tracks: at or below, a morale test, SMR2 §2), keeps its grid solid and faint where every
    line is coloured or dashed apart, and a side's plot says how its ships are counted."""
    play_campaign(factory, world)
    story = reports.campaign_report(factory, campaign_id=world.campaign_id)
    page = report_pages.campaign_html(story)
    plots = re.findall(r'<div class="plot">.*?</div>', page, flags=re.S)
    assert len(plots) == len(story.side_series) + len(story.ship_series) == 5
    for plot in plots:
        svg = plot[plot.index("<svg") : plot.index("</svg>")]
        assert f'class="title">{story_plots.AXIS}' in svg
        grid = _css(svg, ".axis .guide.line")
        lines = [(_css(svg, f".color-{n}")["stroke"], _css(svg, f".series.serie-{n}")
                  ["stroke-dasharray"]) for n in range(4)]  # fmt: skip
        assert grid["stroke-dasharray"] == "none" and _css(svg, ".axis .major.guide.line") == grid
        assert grid["stroke"] not in {colour for colour, _ in lines}
        assert len(set(lines)) == 4  # Structure, Flotation and their 1/3 lines, each its own
        assert all(f"</svg> {name}</span>" in plot for name, *_ in story_plots.LINES)
    for series in story.side_series:
        assert "a ship sunk counts 0" in series.note and report_pages._e(series.note) in page
    markdown = report_pages.campaign_markdown(story)
    records = {record.name: record for record in story.records}
    for series in story.ship_series:
        record = records[series.name]
        thirds = [story_plots.third_text(m) for m in (record.structure_max, record.flotation_max)]
        for track, third in zip(("Structure", "Flotation"), thirds, strict=True):
            assert f"| 1/3 {track} | {' | '.join([third] * len(series.labels))} |" in markdown
    assert story_plots.AXIS in markdown and story_plots.THIRD in markdown
