"""Cells and lines coloured by meaning take their colour from the theme in use, so a light
theme shows its own readable colours rather than the dark theme's yellow and green."""

from __future__ import annotations

import random
from pathlib import Path

from campaign_files import migrated_engine, open_sheet, sample_engine
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.widgets import DataTable, Static

from tracker.app import TrackerApp
from tracker.db import session_factory
from tracker.widgets import tones
from tracker.widgets.track_bar import FULL


def _colours(table: DataTable[object], glyph: str) -> set[str]:
    """The colours the table draws a glyph in, over its rows on screen."""
    found = set()
    for y in range(table.size.height):
        for segment in table.render_line(y):
            if glyph in segment.text and segment.style and segment.style.color:
                found.add(segment.style.color.get_truecolor().hex.upper())
    return found


def _theme_colour(app: TrackerApp, variable: str) -> str:
    """A theme variable's colour as the terminal draws it (an ANSI theme's green as #008000)."""
    return Color.parse(app.theme_variables[variable]).rich_color.get_truecolor().hex.upper()


async def test_the_record_sheet_tracks_follow_the_theme(tmp_path: Path) -> None:
    engine, campaign_id = sample_engine(tmp_path / "campaign.db")
    factory = session_factory(engine)
    app = TrackerApp(factory, rng=random.Random(3), open_campaign_id=campaign_id)
    async with app.run_test(size=(120, 40)) as pilot:
        sheet = await open_sheet(pilot)
        table = sheet.query_one("#ship-table", DataTable)
        seen = set()
        # The settings' dark and light, and a theme of ANSI colours (every theme's variables are
        # checked below, without drawing: a theme change redraws the whole app).
        for theme in ("textual-dark", "textual-light", "ansi-dark"):
            app.theme = theme
            await pilot.pause()
            expected = _theme_colour(app, "text-success")
            # An undamaged ship's track is drawn full, in the theme's colour for "in order".
            assert _colours(table, FULL) == {expected}, theme
            seen.add(expected)
        assert len(seen) > 1, "the themes tried all gave one colour: the test would prove nothing"


async def test_a_static_line_follows_the_theme_too(tmp_path: Path) -> None:
    """A Static reads a Text through Textual's own content: the meaning still resolves."""
    engine = migrated_engine(tmp_path / "campaign.db")
    app = TrackerApp(session_factory(engine))
    async with app.run_test(size=(80, 24)) as pilot:
        line = Static(tones.toned("Continuity check FAILED", tones.ALERT), id="probe")
        await app.screen.mount(line)
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            await pilot.pause()
            line.update(tones.toned("Continuity check FAILED", tones.ALERT))
            await pilot.pause()
            colours = {
                segment.style.color.get_truecolor().hex.upper()
                for segment in line.render_line(0)
                if "FAILED" in segment.text and segment.style and segment.style.color
            }
            assert colours == {_theme_colour(app, "text-error")}, theme


def test_every_theme_the_palette_offers_gives_each_meaning_a_colour() -> None:
    for name, theme in TrackerApp(None).available_themes.items():
        variables = theme.to_color_system().generate()
        styles = tones.tone_styles(variables)
        for tone, (variable, _) in tones.TONES.items():
            colour = styles[tone].color
            assert colour is not None, (name, tone)
            assert colour == Color.parse(variables[variable]).rich_color, (name, tone)


def test_each_meaning_takes_its_themes_variable_and_keeps_its_attributes() -> None:
    variables = {"text-error": "#112233", "text-warning": "#445566", "text-success": "#778899"}
    styles = tones.tone_styles(variables)
    assert set(styles) == set(tones.TONES)
    for name, (variable, attributes) in tones.TONES.items():
        assert styles[name].color is not None
        assert styles[name].color.get_truecolor().hex.upper() == variables[variable].upper()
        for attribute in attributes.split():
            assert getattr(styles[name], attribute) is True, (name, attribute)


def test_toned_text_is_plain_and_coloured_on_its_characters() -> None:
    text = tones.toned("[bold]Crash[/]", tones.ALERT)
    assert text.plain == "[bold]Crash[/]"
    assert text.style == "" or text.style == Style.null()
    assert [(span.start, span.end, span.style) for span in text.spans] == [
        (0, len("[bold]Crash[/]"), tones.ALERT)
    ]
    assert isinstance(tones.toned("x", ""), Text) and not tones.toned("x", "").spans
