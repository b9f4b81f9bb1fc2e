"""Backups of a campaign file: rotation, the copy at scenario close, `tracker backups` and
`tracker restore`, and copies that stay consistent while another connection writes."""

from __future__ import annotations

import hashlib
import io
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from unittest.mock import Mock

import pytest
from campaign_files import migrate_with_head, real_campaign_file, run_sql, sidecars
from sqlmodel import update

from tracker import settings
from tracker.cli import main
from tracker.db import (
    Backup,
    backup_file,
    head_revision,
    inspect_file,
    list_backups,
    make_engine,
    prune_backups,
    session_factory,
)
from tracker.db import backups as backups_module
from tracker.models import Campaign, Ship
from tracker.services import backups, campaigns, damage, demo, scenarios

REPO = Path(__file__).resolve().parents[1]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _campaign_names(path: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return sorted(row[0] for row in conn.execute("SELECT name FROM campaign"))
    finally:
        conn.close()


def _integrity(path: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


@pytest.fixture
def campaign_file(tmp_path: Path) -> Path:
    """A migrated file holding the River Plate sample, with no -wal beside it."""
    return real_campaign_file(tmp_path / "campaign.db")


def _add_campaign(path: Path, name: str) -> None:
    engine = make_engine(str(path))
    try:
        campaigns.create_campaign(session_factory(engine), name=name)
    finally:
        engine.dispose()


# Rotation


def test_rotation_keeps_the_newest_n_and_never_touches_files_not_ours(campaign_file: Path) -> None:
    folder = campaign_file.parent / "backups"
    folder.mkdir()
    strangers = [
        folder / "notes.txt",
        folder / "campaign-my-own-copy.db",
        folder / "campaign.db",
        folder / "other-20261130T120000123456Z-closed-scenario-1.db",  # another campaign file's
        folder / "campaign-20261130T120000123456Z-closed-scenario-1.sqlite",
    ]
    for stranger in strangers:
        stranger.write_bytes(b"mine")
    made = [backup_file(campaign_file, f"test-{n}", keep=5) for n in range(8)]
    kept = [backup.path for backup in list_backups(campaign_file)]
    assert kept == made[::-1][:5]  # newest first, the five newest
    assert all(not path.exists() for path in made[:3])
    assert all(stranger.read_bytes() == b"mine" for stranger in strangers)


def test_the_keep_backups_setting_is_the_default_n(campaign_file: Path) -> None:
    settings.update(keep_backups=2)
    for n in range(4):
        backup_file(campaign_file, f"test-{n}")
    assert [b.reason for b in list_backups(campaign_file)] == ["test-3", "test-2"]


def test_pruning_never_deletes_a_protected_backup_nor_keeps_fewer_than_one(
    campaign_file: Path,
) -> None:
    made = [backup_file(campaign_file, f"test-{n}", keep=10) for n in range(3)]
    assert prune_backups(campaign_file, keep=1, protect=[made[0]]) == [made[1]]
    assert {b.path for b in list_backups(campaign_file)} == {made[0], made[2]}
    with pytest.raises(ValueError, match="at least 1"):
        prune_backups(campaign_file, keep=0)


def test_a_reason_is_made_safe_for_a_file_name(campaign_file: Path) -> None:
    backup = backup_file(campaign_file, "before-1.2/../x y", keep=10)
    assert backup.parent == campaign_file.parent / "backups"
    assert [b.reason for b in list_backups(campaign_file)] == ["before-1-2----x-y"]


# The copy at scenario close


def test_closing_a_scenario_backs_up_the_file_with_the_close_in_it(
    campaign_file: Path,
) -> None:
    engine = make_engine(str(campaign_file))
    factory = session_factory(engine)
    try:
        campaign_id = campaigns.list_campaigns(factory)[0].id
        first = campaigns.get_overview(factory, campaign_id=campaign_id).scenarios[0].id
        ships = [p.id for p in damage.find_ships(factory, campaign_id=campaign_id, query="")]
        scenarios.set_participants(factory, scenario_id=first, ship_ids=ships)
        scenarios.start_scenario(factory, scenario_id=first)
        assert list_backups(campaign_file) == []
        scenarios.close_scenario(factory, scenario_id=first, outcome="Spee escapes")
        # The app still holds its connections: the copy is taken from the live WAL file.
        [backup] = list_backups(campaign_file)
    finally:
        engine.dispose()
    assert backup.reason == "river-plate-december-1939-sample-closed-scenario-1"
    conn = sqlite3.connect(f"file:{backup.path}?mode=ro", uri=True)
    try:
        status = conn.execute("SELECT status, outcome FROM scenario WHERE id = ?", (first,))
        assert status.fetchone() == ("closed", "Spee escapes")
    finally:
        conn.close()


def test_no_file_backup_for_a_database_that_is_not_a_file(tmp_path: Path) -> None:
    engine = make_engine("sqlite://")  # in memory: nothing to copy, and no error
    try:
        assert backups.back_up(session_factory(engine), reason="test") == backups.TakenBackup(
            None, None
        )
    finally:
        engine.dispose()


# Consistency while another connection writes


def test_a_backup_taken_during_an_open_write_transaction_is_consistent(
    campaign_file: Path,
) -> None:
    engine = make_engine(str(campaign_file))  # the app's pragmas: WAL, synchronous FULL
    factory = session_factory(engine)
    try:
        campaigns.create_campaign(factory, name="Committed")
        # A write transaction left open, half way through a many-row change.
        session = factory()
        session.add(Campaign(name="Uncommitted"))
        session.exec(update(Ship).values(structure_now=0))
        session.flush()
        assert campaign_file.with_name("campaign.db-wal").exists()
        during = backup_file(campaign_file, "during-write", keep=10)
        session.commit()
        session.close()
        after = backup_file(campaign_file, "after-write", keep=10)
    finally:
        engine.dispose()
    assert _integrity(during) == ["ok"]
    assert _campaign_names(during) == sorted([demo.SAMPLE_NAME, "Committed"])
    conn2 = sqlite3.connect(f"file:{during}?mode=ro", uri=True)
    try:
        assert conn2.execute("SELECT count(*) FROM ship WHERE structure_now = 0").fetchone()[0] == 0
    finally:
        conn2.close()
    assert _campaign_names(after) == sorted([demo.SAMPLE_NAME, "Committed", "Uncommitted"])
    assert inspect_file(during) == head_revision()


# tracker backups


def test_backups_lists_newest_first_with_reason_size_and_schema(
    campaign_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    older = backup_file(campaign_file, "before-0004", keep=10)
    newer = backup_file(campaign_file, "closed-scenario-1", keep=10)
    (older.parent / "unrelated.txt").write_text("not a backup")
    assert main(["--db", str(campaign_file), "backups"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert str(campaign_file) in lines[0] and "newest 20 are kept" in lines[0]
    assert lines[1].split()[:3] == ["NAME", "TAKEN", "(LOCAL"]
    assert lines[2].startswith(newer.name) and lines[3].startswith(older.name)
    assert lines[2].split()[-3:-1] == ["KiB", "closed-scenario-1"]
    assert lines[2].split()[-1] == head_revision()
    assert "unrelated" not in out


def test_backups_lists_a_damaged_backup_as_damaged_and_works_on_a_damaged_file(
    campaign_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = backup_file(campaign_file, "test", keep=10)
    backup.write_bytes(backup.read_bytes()[:5000])
    campaign_file.write_bytes(b"junk" * 100)
    assert main(["--db", str(campaign_file), "backups"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split()[-1] == "damaged"


def test_backups_of_a_database_url_that_is_not_a_file_say_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--db", "postgresql://player@localhost/campaigns", "backups"]) == 2
    assert "SQLite campaign files only" in capsys.readouterr().err


def test_no_backups_yet(campaign_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(campaign_file), "backups"]) == 0
    assert capsys.readouterr().out.startswith(f"No backups of {campaign_file}")


# tracker restore


def _restore(campaign_file: Path, backup: Path) -> int:
    """`tracker --db CAMPAIGN_FILE restore BACKUP --yes`: its exit status."""
    return main(["--db", str(campaign_file), "restore", backup.name, "--yes"])


def _before_restore(campaign_file: Path) -> Backup:
    """The one backup a restore took of the file it replaced."""
    [before] = [b for b in list_backups(campaign_file) if b.reason == "before-restore"]
    return before


def test_restore_with_yes_puts_the_backup_back_and_keeps_the_replaced_file(
    campaign_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = backup_file(campaign_file, "test", keep=10)
    _add_campaign(campaign_file, "Norway 1940")
    assert _restore(campaign_file, backup) == 0
    assert _campaign_names(campaign_file) == [demo.SAMPLE_NAME]
    assert _integrity(campaign_file) == ["ok"]
    before = _before_restore(campaign_file)
    assert _campaign_names(before.path) == sorted([demo.SAMPLE_NAME, "Norway 1940"])
    assert backup.exists()
    out = capsys.readouterr().out
    assert f"restored {backup.name}" in out and before.path.name in out


def test_restore_takes_a_path_and_keep_n(
    campaign_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = [backup_file(campaign_file, f"test-{n}", keep=10) for n in range(3)]
    args = ["--db", str(campaign_file), "restore", str(made[0]), "--yes", "--keep", "2"]
    assert main(args) == 0
    # The newest two: the before-restore copy and test-2; the one restored is kept too.
    reasons = [b.reason for b in list_backups(campaign_file)]
    assert reasons == ["before-restore", "test-2", "test-0"]


def test_restore_while_the_app_holds_the_file_open_is_seen_by_the_app(
    campaign_file: Path,
) -> None:
    backup = backup_file(campaign_file, "test", keep=10)
    engine = make_engine(str(campaign_file))
    factory = session_factory(engine)
    try:
        campaigns.create_campaign(factory, name="Norway 1940")
        assert campaign_file.with_name("campaign.db-wal").exists()  # the app's WAL is live
        assert _restore(campaign_file, backup) == 0
        # The running app's connections read the restored file, not its old WAL pages.
        assert [c.name for c in campaigns.list_campaigns(factory)] == [demo.SAMPLE_NAME]
        campaigns.create_campaign(factory, name="After the restore")
    finally:
        engine.dispose()
    assert sidecars(campaign_file) == []  # the last connection folded the WAL into the file
    assert _integrity(campaign_file) == ["ok"]
    assert _campaign_names(campaign_file) == sorted([demo.SAMPLE_NAME, "After the restore"])


def test_restore_over_a_damaged_file_keeps_a_raw_copy_of_it(campaign_file: Path) -> None:
    backup = backup_file(campaign_file, "test", keep=10)
    data = campaign_file.read_bytes()
    campaign_file.write_bytes(data[: len(data) // 2])
    damaged = campaign_file.read_bytes()
    assert _restore(campaign_file, backup) == 0
    assert inspect_file(campaign_file) == head_revision()
    before = _before_restore(campaign_file)
    assert before.path.read_bytes() == damaged


@pytest.mark.parametrize("damaged", [False, True], ids=["sqlite-copy", "raw-copy"])
def test_a_backup_taken_in_the_same_microsecond_as_another_never_replaces_it(
    campaign_file: Path, monkeypatch: pytest.MonkeyPatch, damaged: bool
) -> None:
    backup = backup_file(campaign_file, "test", keep=10)
    moment = datetime(1939, 12, 13, 6, 14, tzinfo=UTC)
    monkeypatch.setattr(backups_module, "datetime", Mock(wraps=datetime, now=lambda tz: moment))
    kept: dict[Path, bytes] = {}
    for turn in range(2):  # the file replaced by each restore, copied at the same moment
        if damaged:
            campaign_file.write_bytes(campaign_file.read_bytes()[:4096] + bytes([turn]) * 4096)
        replaced = campaign_file.read_bytes()
        assert _restore(campaign_file, backup) == 0
        [new] = [b.path for b in list_backups(campaign_file)
                 if b.reason == "before-restore" and b.path not in kept]  # fmt: skip
        kept[new] = replaced
    assert len(kept) == 2
    assert all(path.read_bytes() == replaced or not damaged for path, replaced in kept.items())


def test_restore_of_an_older_schema_leaves_the_upgrade_to_the_next_start(
    campaign_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = backup_file(campaign_file, "test", keep=10)
    run_sql(backup, "UPDATE alembic_version SET version_num = '0004'")
    assert _restore(campaign_file, backup) == 0
    assert inspect_file(campaign_file) == "0004"
    assert "upgraded (after a backup)" in capsys.readouterr().out


def test_restore_refuses_without_confirmation_when_not_a_terminal(campaign_file: Path) -> None:
    """A real process with no terminal on stdin: exit 2, one line, nothing changed."""
    backup = backup_file(campaign_file, "test", keep=10)
    _add_campaign(campaign_file, "Norway 1940")
    sha = _sha(campaign_file)
    env = {k: v for k, v in os.environ.items() if k != "TRACKER_DB"}
    done = subprocess.run(
        [sys.executable, "-m", "tracker", "--db", str(campaign_file), "restore", backup.name],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "--yes" in done.stderr
    assert _sha(campaign_file) == sha
    assert [b.reason for b in list_backups(campaign_file)] == ["test"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "status", "names"), [("n\n", 1, 2), ("", 1, 2), ("y\n", 0, 1)])
def test_restore_asks_on_a_terminal(
    campaign_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: str,
    status: int,
    names: int,
) -> None:
    backup = backup_file(campaign_file, "test", keep=10)
    _add_campaign(campaign_file, "Norway 1940")
    monkeypatch.setattr(sys, "stdin", _Terminal(answer))
    assert main(["--db", str(campaign_file), "restore", backup.name]) == status
    assert "[y/N]" in capsys.readouterr().out
    assert len(_campaign_names(campaign_file)) == names


def _truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _index_out_of_step(path: Path) -> None:
    """A campaign's name changed in its table row but not in the name index: the b-trees are
    sound (quick_check passes), only a full integrity check sees the mismatch."""
    conn = sqlite3.connect(path)
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'campaign'").fetchone()
    finally:
        conn.close()
    data = bytearray(path.read_bytes())
    start = (root[0] - 1) * page_size
    at = data.index(demo.SAMPLE_NAME.encode(), start, start + page_size)
    data[at] = ord("Q")
    path.write_bytes(bytes(data))
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"hello" * 1000)


def _foreign(path: Path) -> None:
    path.unlink()
    run_sql(path, "CREATE TABLE recipes (name TEXT)")


def _newer(path: Path) -> None:
    run_sql(path, "UPDATE alembic_version SET version_num = '9999_future'")


def _empty_database(path: Path) -> None:
    path.unlink()
    sqlite3.connect(path).close()


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (_truncated, "damaged"),
        (_index_out_of_step, "damaged"),
        (_not_sqlite, "not SQLite"),
        (_foreign, "not a tracker campaign file"),
        (_newer, "newer tracker"),
        (_empty_database, "not"),
    ],
)
def test_a_bad_backup_is_refused_and_the_campaign_file_is_untouched(
    campaign_file: Path, capsys: pytest.CaptureFixture[str], spoil: object, words: str
) -> None:
    backup = backup_file(campaign_file, "test", keep=10)
    spoil(backup)  # type: ignore[operator]
    _add_campaign(campaign_file, "Norway 1940")
    run_sql(campaign_file, "PRAGMA wal_checkpoint(TRUNCATE)")
    sha = _sha(campaign_file)
    assert _restore(campaign_file, backup) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "nothing was restored" in err, err
    assert _sha(campaign_file) == sha
    assert [b.reason for b in list_backups(campaign_file)] == ["test"]  # no before-restore
    assert [p.name for p in (campaign_file.parent / "backups").iterdir()] == [backup.name]


def test_restore_of_an_unknown_name_says_where_it_looked(
    campaign_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", str(campaign_file), "restore", "nope.db", "--yes"]) == 2
    assert "tracker backups" in capsys.readouterr().err


def test_migration_backups_are_pruned_too(
    campaign_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """migrate() backs up a file before an upgrade, keeping the newest N of the setting."""
    settings.update(keep_backups=1)
    backup_file(campaign_file, "test")
    backup = migrate_with_head(campaign_file, monkeypatch, "0099_next")
    assert backup is not None
    assert [b.path for b in list_backups(campaign_file)] == [backup]
