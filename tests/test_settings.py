"""The player's settings file: defaults, a round trip, bad files, atomic writes, and never the
real config folder during tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tracker import settings
from tracker.settings import LastCampaign, Settings


def test_the_tests_never_see_the_real_config_folder(config_dir: Path) -> None:
    assert settings.settings_path() == config_dir / "settings.json"
    assert os.environ["XDG_CONFIG_HOME"] == str(config_dir.parent)


def test_platformdirs_picks_the_folder_when_no_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(settings.DIR_ENV_VAR)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = settings.settings_path()
    assert path.name == "settings.json" and path.parent.name == "tracker"
    if sys.platform.startswith("linux"):
        assert path == tmp_path / "xdg" / "tracker" / "settings.json"


def test_defaults_when_there_is_no_file(config_dir: Path) -> None:
    loaded = settings.read()
    assert loaded.settings == Settings(
        theme="dark", model_scale="1/2400", last_campaign=None, keep_backups=20
    )
    assert loaded.warnings == ()
    assert not config_dir.exists()  # reading creates nothing


def test_round_trip(config_dir: Path) -> None:
    saved = settings.update(
        theme="light",
        model_scale="1/6000",
        last_campaign=LastCampaign(database="/games/norway.db", campaign_id=3),
        keep_backups=5,
    )
    assert settings.read() == settings.Loaded(saved)
    data = json.loads((config_dir / "settings.json").read_text(encoding="utf-8"))
    assert data == {
        "theme": "light",
        "model_scale": "1/6000",
        "last_campaign": {"database": "/games/norway.db", "campaign_id": 3},
        "keep_backups": 5,
    }
    # One change keeps the others.
    settings.update(theme="dark")
    assert settings.load() == Settings("dark", "1/6000", saved.last_campaign, 5)


def test_keys_of_a_newer_tracker_survive_a_save(config_dir: Path) -> None:
    config_dir.mkdir(parents=True)
    (config_dir / "settings.json").write_text('{"theme": "light", "font": "large"}')
    settings.update(keep_backups=7)
    data = json.loads((config_dir / "settings.json").read_text())
    assert data["font"] == "large" and data["theme"] == "light" and data["keep_backups"] == 7


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'{"theme": "light",', "not valid JSON"),
        (b"", "not valid JSON"),
        (b"\xff\xfe\x00junk", "cannot read"),
        (b"[1, 2, 3]", "not a JSON object"),
        (b"null", "not a JSON object"),
    ],
)
def test_a_corrupt_file_gives_the_defaults_and_a_warning(
    config_dir: Path, content: bytes, words: str
) -> None:
    config_dir.mkdir(parents=True)
    (config_dir / "settings.json").write_bytes(content)
    loaded = settings.read()
    assert loaded.settings == Settings()
    [warning] = loaded.warnings
    assert words in warning and "defaults" in warning


def test_an_unreadable_file_gives_the_defaults_and_a_warning(config_dir: Path) -> None:
    (config_dir / "settings.json").mkdir(parents=True)  # a folder where the file should be
    loaded = settings.read()
    assert loaded.settings == Settings() and "cannot read" in loaded.warnings[0]


def test_each_bad_value_falls_back_alone(config_dir: Path) -> None:
    config_dir.mkdir(parents=True)
    bad = {
        "theme": 7,
        "model_scale": "1/1",
        "keep_backups": 0,
        "last_campaign": {"database": "x.db", "campaign_id": "3"},
    }
    for key, value in bad.items():
        good = {"theme": "light", "model_scale": "1/1200", "keep_backups": 4, key: value}
        (config_dir / "settings.json").write_text(json.dumps(good))
        loaded = settings.read()
        [warning] = loaded.warnings
        assert key in warning
        assert getattr(loaded.settings, key) == getattr(Settings(), key)
        kept = {k for k in ("theme", "model_scale", "keep_backups") if k != key}
        assert all(getattr(loaded.settings, k) == good[k] for k in kept)


@pytest.mark.parametrize("keep", [True, -1, 0, 1.5, "20", 10_001])
def test_keep_backups_must_be_a_whole_number_of_one_or_more(config_dir: Path, keep: object) -> None:
    config_dir.mkdir(parents=True)
    (config_dir / "settings.json").write_text(json.dumps({"keep_backups": keep}))
    loaded = settings.read()
    assert loaded.settings.keep_backups == 20 and loaded.warnings


def test_update_refuses_a_value_the_next_run_would_reject(config_dir: Path) -> None:
    with pytest.raises(ValueError, match="keep_backups"):
        settings.update(keep_backups=0)
    with pytest.raises(ValueError, match="model_scale"):
        settings.update(model_scale="1/1")
    assert not (config_dir / "settings.json").exists()


def test_a_write_is_atomic_a_failed_one_leaves_the_old_file(
    config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.update(theme="light")
    path = config_dir / "settings.json"
    before = path.read_bytes()

    def crash(src: str, dst: str) -> None:
        # The new content is complete in the temporary file beside the target, not in it.
        assert Path(src).parent == config_dir and Path(dst) == path
        assert json.loads(Path(src).read_text())["theme"] == "dark"
        assert path.read_bytes() == before
        raise OSError("disk full")

    monkeypatch.setattr(settings.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        settings.update(theme="dark")
    assert path.read_bytes() == before
    assert [p.name for p in config_dir.iterdir()] == ["settings.json"]  # no temporary left


def test_a_save_creates_the_folder(config_dir: Path) -> None:
    assert not config_dir.exists()
    assert settings.save(Settings(theme="light")) == config_dir / "settings.json"
    assert settings.load().theme == "light"


def test_remember_turns_a_write_failure_into_a_warning(config_dir: Path) -> None:
    config_dir.parent.mkdir(parents=True)
    config_dir.write_text("a file where the folder should be")
    warning = settings.remember(theme="light")
    assert warning is not None and "Could not save your settings" in warning
    assert config_dir.read_text().startswith("a file")
