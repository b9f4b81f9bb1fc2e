"""`make bench BENCH_ARGS=--profile`: each figure that misses is profiled into the run's folder,
whichever figures were asked for (`--only 1` has no worker to make the folder first)."""

from __future__ import annotations

import cProfile
from pathlib import Path
from typing import Any

import pytest

from bench import run


def test_the_start_is_profiled_into_a_folder_no_other_figure_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def startup_profile(large: Any, env: dict[str, str], folder: Path) -> tuple[Path, Path]:
        # As the real one: the profile and the import tree written straight into the folder.
        profile = folder / "startup.prof"
        profiler = cProfile.Profile()
        profiler.runcall(sorted, range(10))
        profiler.dump_stats(profile)
        imports = folder / "startup-imports.txt"
        imports.write_text("import time:       500 |      50000 | tracker.app\n")
        return profile, imports

    monkeypatch.setattr(run, "startup_profile", startup_profile)
    missed = run.Figure(1, "Start to first screen painted", "bare", 0.2, "tracker", 0.4, "s")
    folder = tmp_path / "profiles"

    said = run.profiles({1: missed}, None, None, {}, folder, 1)  # type: ignore[arg-type]

    assert "## Figure 1: Start to first screen painted (2.00x)" in said
    assert "tracker.app" in said
    assert (folder / "startup.prof").is_file()
