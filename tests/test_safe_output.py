"""Output never replaces what it must not: generated paths at every command that writes a file.

Each path is made to reach a file the tracker must never overwrite (the campaign file, its -wal,
-shm and -journal, a backup, anything in backups/) the ways a careless or hostile player could
type it: through symbolic links (to the file, to its folder, in chains, absolute or relative),
hard links, `./x/../` and `../` forms, another case of the name, trailing dots. Every one must be
refused with a message that says what to do, and the campaign file and the backup must stay
byte for byte as they were. Examples are derandomized, so CI sees the same paths every run.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import shutil
import sqlite3
import stat
import threading
from pathlib import Path

import hostile_paths as hp
import pytest
from campaign_files import file_sha, run_main
from depth import examples
from hostile_paths import sample_file_fixture, world_fixture  # noqa: F401 (fixtures)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker import safe_output
from tracker.cli import build_parser

SETTINGS = settings(
    max_examples=examples(20),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# --- the helper itself ---------------------------------------------------------------------------


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@SETTINGS
@given(data=st.data(), replace=st.booleans(), new_only=st.booleans())
def test_the_helper_refuses_every_path_to_a_protected_file(
    world: hp.World, data: st.DataObject, replace: bool, new_only: bool
) -> None:
    before = world.fingerprint()
    with contextlib.chdir(world.folder):
        kind, form, path = data.draw(hp.hostile_paths(world))
        hp.reaches(world, form, path, kind)
        with pytest.raises(safe_output.OutputRefused) as refused:
            safe_output.write_text(path, "<html>sheet</html>", campaign=Path("c.db"),
                                   replace=replace, new_only=new_only)  # fmt: skip
    hp.says_what_to_do(str(refused.value), form)
    assert world.fingerprint() == before


def test_a_link_to_a_harmless_file_writes_through_it(world: hp.World) -> None:
    """The checks are not a blanket refusal: a link to an ordinary file is followed, and the
    file it points at is what gets replaced (after confirmation)."""
    sheet = world.folder / "sub" / "sheet.html"
    sheet.write_text("old", encoding="utf-8")
    link = world.links / "sheet.html"
    link.symlink_to(sheet)
    with pytest.raises(safe_output.ExistingFile) as exists:
        safe_output.write_text(link, "new", campaign=world.campaign)
    assert exists.value.path == sheet and sheet.read_text(encoding="utf-8") == "old"
    assert safe_output.write_text(link, "new", campaign=world.campaign, replace=True) == sheet
    assert sheet.read_text(encoding="utf-8") == "new" and link.is_symlink()


def test_any_sqlite_database_and_its_sidecars_are_refused(world: hp.World) -> None:
    """Another campaign file (or a backup carried elsewhere) is known by its first bytes."""
    other = world.folder / "sub" / "other.tracker"
    shutil.copyfile(world.campaign, other)
    (world.folder / "sub" / "other.tracker-wal").write_bytes(b"")
    for path in (other, world.folder / "sub" / "other.tracker-wal",
                 world.folder / "sub" / "other.tracker-shm"):  # fmt: skip
        with pytest.raises(safe_output.OutputRefused, match="SQLite"):
            safe_output.write_text(path, "x", campaign=world.campaign, replace=True)
    assert file_sha(other) == file_sha(world.campaign)


def test_an_existing_file_is_replaced_only_when_confirmed_and_never_for_the_umpire(
    world: hp.World,
) -> None:
    sheet = world.folder / "sheet.html"
    sheet.write_text("old", encoding="utf-8")
    with pytest.raises(safe_output.ExistingFile):
        safe_output.write_text(sheet, "new", campaign=world.campaign)
    for replace in (False, True):
        with pytest.raises(safe_output.OutputRefused, match="umpire's read-only view writes only "
                           "new files: choose another file name"):  # fmt: skip
            safe_output.write_text(sheet, "new", campaign=world.campaign, replace=replace,
                                   new_only=True)  # fmt: skip
    assert sheet.read_text(encoding="utf-8") == "old"
    fresh = world.folder / "fresh.html"
    assert safe_output.write_text(fresh, "new", campaign=world.campaign, new_only=True) == fresh
    safe_output.write_text(sheet, "new", campaign=world.campaign, replace=True)
    assert sheet.read_text(encoding="utf-8") == "new"
    assert oct(sheet.stat().st_mode & 0o777) == oct(0o666 & ~current_umask())


def test_a_file_made_between_the_check_and_the_write_is_not_replaced(
    world: hp.World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last step of an unconfirmed write is a hard link, which fails on an existing name
    where a rename would replace it."""
    sheet = world.folder / "sheet.html"
    monkeypatch.setattr(safe_output, "check_target", lambda path, **_: Path(path))
    sheet.write_text("made by another program", encoding="utf-8")
    with pytest.raises(safe_output.ExistingFile):
        safe_output.write_text(sheet, "new", campaign=world.campaign)
    assert sheet.read_text(encoding="utf-8") == "made by another program"
    assert sorted(p.name for p in world.folder.iterdir()) == ["backups", "c.db", "links",
                                                              "sheet.html", "sub"]  # fmt: skip


@pytest.mark.parametrize("step", ["fsync", "replace", "link", "fchmod"])
@pytest.mark.parametrize("exists", [False, True])
def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(
    world: hp.World, monkeypatch: pytest.MonkeyPatch, step: str, exists: bool
) -> None:
    sheet = world.folder / "sub" / "sheet.html"
    if exists:
        sheet.write_text("old", encoding="utf-8")

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_output.os, step, full)
    try:
        safe_output.write_text(sheet, "new", campaign=world.campaign, replace=exists)
    except safe_output.OutputRefused as exc:
        assert "No space left on device; nothing was changed" in str(exc)
    else:
        # A step this kind of write does not take (a rename for a new file, a link to replace).
        assert (step, exists) in {("replace", False), ("link", True)}
        assert sheet.read_text(encoding="utf-8") == "new"
        return
    assert [p.name for p in sheet.parent.iterdir()] == (["sheet.html"] if exists else [])
    if exists:
        assert sheet.read_text(encoding="utf-8") == "old"


# --- every command that writes a file ----------------------------------------------------------

# Every command line that writes a file the player names, with where the name goes.
WRITING_COMMANDS = {
    "print --html": ["print", "Force G", "--html"],
    "print --markdown": ["print", "Force G", "--markdown"],
    "export": ["export", "River Plate", "--to"],
    "report --html": ["report", "River Plate", "--html"],
    "report --markdown": ["report", "River Plate", "--markdown"],
    "library export": ["library", "export"],
    "sync pack": ["sync", "pack", "River Plate", "--to"],
}


def _with_force(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> set[str]:
    """Each command (and sub-command, "library export") that takes --force."""
    forced = any("--force" in action.option_strings for action in parser._actions)
    found = {" ".join(words)} if forced else set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                found |= _with_force(command, (*words, name))
    return found


def test_the_writing_commands_are_every_command_with_force() -> None:
    """A new command that writes a file takes --force; this list, tried below, must name it."""
    named = {" ".join(argv[:2]) if argv[0] in ("library", "sync") else argv[0]
             for argv in WRITING_COMMANDS.values()}  # fmt: skip
    assert _with_force(build_parser()) == named


@pytest.mark.parametrize("command", sorted(WRITING_COMMANDS))
@SETTINGS
@given(data=st.data(), force=st.booleans(), umpire=st.booleans())
def test_no_command_writes_over_a_protected_file(
    world: hp.World,
    capsys: pytest.CaptureFixture[str],
    command: str,
    data: st.DataObject,
    force: bool,
    umpire: bool,
) -> None:
    before = world.fingerprint()
    with contextlib.chdir(world.folder):
        kind, form, path = data.draw(hp.hostile_paths(world))
        hp.reaches(world, form, path, kind)
        argv = ["--db", "c.db", *(["--umpire"] * umpire), *WRITING_COMMANDS[command], path]
        done = run_main(capsys, argv + ["--force"] * force)
    assert done.status == 2 and done.out == ""
    assert done.err.startswith("tracker") and done.err.count("\n") == 1
    hp.says_what_to_do(done.err, form)
    assert world.fingerprint() == before


@pytest.mark.parametrize("command", sorted(WRITING_COMMANDS))
def test_a_command_replaces_an_existing_file_only_with_force(
    world: hp.World, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    sheet = world.players_file("kept.txt")
    argv = ["--db", str(world.campaign), *WRITING_COMMANDS[command], str(sheet)]
    done = run_main(capsys, argv)
    assert done.status == 2 and done.out == ""
    assert done.err.endswith(f"{sheet} already exists: add --force to replace it, or choose "
                             "another file name\n")  # fmt: skip
    assert done.err.count("\n") == 1
    assert sheet.read_text(encoding="utf-8") == hp.NOTES
    done = run_main(capsys, [*argv, "--force"])
    assert done.status == 0 and done.out == f"tracker: wrote {sheet}\n"
    written = sheet.read_text(encoding="utf-8")  # the sheet, the campaign, or the library's columns
    assert any(word in written for word in ("River Plate", "Exeter", "name,nation"))
    assert sorted(p.name for p in sheet.parent.iterdir()) == ["kept.txt"]


@pytest.mark.parametrize("command", sorted(WRITING_COMMANDS))
def test_the_umpire_writes_only_new_files(
    world: hp.World, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    sheet = world.players_file("kept.txt")
    for force in ([], ["--force"]):
        argv = ["--db", str(world.campaign), "--umpire", *WRITING_COMMANDS[command]]
        done = run_main(capsys, [*argv, str(sheet), *force])
        assert done.status == 2 and done.err.count("\n") == 1
        assert "the umpire's read-only view writes only new files" in done.err
    assert sheet.read_text(encoding="utf-8") == hp.NOTES
    fresh = world.folder / "sub" / "fresh.txt"
    assert run_main(capsys, [*argv, str(fresh)]).status == 0 and fresh.stat().st_size > 0


def test_a_command_whose_write_fails_leaves_the_old_file_and_no_temporary_file(
    world: hp.World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sheet = world.folder / "sub" / "sheet.html"
    sheet.write_text("old", encoding="utf-8")

    def full(_: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_output.os, "fsync", full)
    for argv in WRITING_COMMANDS.values():
        done = run_main(capsys, ["--db", str(world.campaign), *argv, str(sheet), "--force"])
        assert done.status == 2
        assert done.err.endswith("No space left on device; nothing was changed\n")
        assert [p.name for p in sheet.parent.iterdir()] == ["sheet.html"]
        assert sheet.read_text(encoding="utf-8") == "old"


def test_a_campaign_left_open_by_the_app_keeps_its_wal(world: hp.World) -> None:
    """While a player has the campaign open its -wal holds recent hits: it is refused by name
    and by its first bytes."""
    connection = sqlite3.connect(world.campaign)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE IF NOT EXISTS probe (x)")
        connection.execute("INSERT INTO probe VALUES (1)")
        connection.commit()
        wal = world.folder / "c.db-wal"
        assert wal.stat().st_size > 0
        with pytest.raises(safe_output.OutputRefused, match="write-ahead log"):
            safe_output.write_text(wal, "x", campaign=world.campaign, replace=True)
        copied = world.folder / "sub" / "elsewhere-wal"
        shutil.copyfile(wal, copied)
        with pytest.raises(safe_output.OutputRefused, match="SQLite write-ahead log"):
            safe_output.write_text(copied, "x", campaign=world.campaign, replace=True)
    finally:
        connection.close()


@pytest.mark.parametrize("command", sorted(WRITING_COMMANDS))
def test_a_campaign_named_by_url_is_known_as_the_same_file(
    world: hp.World, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """--db sqlite:///c.db names the same file as c.db: a print to it is refused too."""
    before = world.fingerprint()
    with contextlib.chdir(world.folder):
        done = run_main(capsys, ["--db", "sqlite:///c.db", *WRITING_COMMANDS[command], "c.db"])
    assert done.status == 2 and "it is the campaign file" in done.err
    assert world.fingerprint() == before


@SETTINGS
@given(
    name=st.text(
        alphabet=st.characters(
            codec="utf-8", exclude_characters="/\x00", exclude_categories=["Cs"]
        ),
        min_size=1,
        max_size=40,
    ).filter(lambda n: n.strip() not in ("", ".", "..") and len(n.encode()) < 200)
)
def test_an_ordinary_new_name_is_written_once_and_then_asked_about(
    world: hp.World, name: str
) -> None:
    """The refusals are no blanket: any other name in a folder of the player's is written
    (as the name given, less surrounding spaces), and a second time only once confirmed."""
    folder = world.folder / "sub"
    for old in folder.iterdir():
        old.unlink()
    written = safe_output.write_text(folder / name, "sheet", campaign=world.campaign)
    assert written == Path(str(folder / name).strip())
    assert written.read_text(encoding="utf-8") == "sheet"
    with pytest.raises(safe_output.ExistingFile):
        safe_output.write_text(folder / name, "again", campaign=world.campaign)
    assert [p.name for p in folder.iterdir()] == [written.name]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("replace", [False, True])
def test_a_named_pipe_is_refused_without_being_opened(world: hp.World, replace: bool) -> None:
    """Opening a FIFO to read its first bytes would wait for a writer forever."""
    pipe = world.folder / "sub" / "pipe.html"
    os.mkfifo(pipe)
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            safe_output.write_text(pipe, "x", campaign=world.campaign, replace=replace)
        except (safe_output.OutputRefused, safe_output.ExistingFile) as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=60)  # not a speed limit: without the check the call never returns
    stuck = worker.is_alive()
    if stuck:
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))  # lets the stuck reader go
        worker.join()
    assert not stuck, "the write waited on the pipe"
    assert "is not a regular file: choose another file name" in str(outcome[0])
    assert stat.S_ISFIFO(pipe.lstat().st_mode)


def test_a_campaign_opened_through_a_link_keeps_both_names_and_both_backup_folders(
    world: hp.World,
) -> None:
    """--db link/c.db where link/c.db points at the real file: SQLite keeps -wal beside the
    real file, tracker keeps backups beside the name; every one of them is refused."""
    named = world.links / "c.db"
    named.symlink_to(world.campaign)
    for path in (world.campaign, world.folder / "c.db-wal", world.backup,
                 world.links / "c.db-wal", world.links / "backups" / "sheet.html"):  # fmt: skip
        with pytest.raises(safe_output.OutputRefused, match="refused to write"):
            safe_output.write_text(path, "x", campaign=named, replace=True)
