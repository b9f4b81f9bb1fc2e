"""Each screen's styles in one place: styles/<the screen's module>.tcss, every rule of it
starting with a screen of that module, and every file in styles/ loaded without a list kept by
hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tracker
from tracker import app, paths

SCREENS = Path(tracker.__file__).parent / "screens"
RULE = re.compile(r"([^{}]+)\{[^{}]*\}")
COMMENT = re.compile(r"/\*.*?\*/", re.S)


def _classes(module: str) -> set[str]:
    """The classes a screens module defines."""
    return set(re.findall(r"^class (\w+)\(", (SCREENS / f"{module}.py").read_text(), re.M))


def _leading_types(tcss: Path) -> list[str]:
    """The type each selector of each rule starts with."""
    text = COMMENT.sub("", tcss.read_text())
    return [
        selector.strip().split()[0].split(".")[0].split(":")[0]
        for rule in RULE.findall(text)
        for selector in rule.split(",")
    ]


def test_each_screens_styles_are_in_its_own_file() -> None:
    found = []
    for tcss in sorted(paths.styles_dir().glob("*.tcss")):
        if tcss.name == "app.tcss":
            continue
        if not (SCREENS / f"{tcss.stem}.py").is_file():
            found.append(f"{tcss.name}: no tracker/screens/{tcss.stem}.py to style")
            continue
        own = _classes(tcss.stem)
        types = _leading_types(tcss)
        assert types, f"{tcss.name} has no rule"
        found += [f"{tcss.name}: a rule for {name}, which is not a screen of {tcss.stem}.py"
                  for name in types if name not in own]  # fmt: skip
    assert not found, "\n".join(found)


def test_the_app_loads_every_style_file_the_globals_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = {path.name for path in paths.styles_dir().glob("*.tcss")}
    assert {path.name for path in app.TrackerApp.STYLE_FILES} == shipped
    # Before the first paint, the globals and the first screen's own file only.
    assert [Path(path).name for path in app.TrackerApp.CSS_PATH] == [
        "app.tcss", app.FIRST_SCREEN_STYLES]  # fmt: skip
    for name in ("zeta_screen.tcss", "app.tcss", "alpha_screen.tcss", "notes.txt"):
        (tmp_path / name).write_text("")
    monkeypatch.setattr(paths, "styles_dir", lambda: tmp_path)
    assert [Path(path).name for path in app.style_files()] == [
        "app.tcss",
        "alpha_screen.tcss",
        "zeta_screen.tcss",
    ]
