"""The permissions of every file a command writes: a new file gets what the player's umask
gives, as any program's does; a file holding a side's secrets (the owner's export, print or
report) is the player's alone (0600) whatever the umask; a file replaced with --force is never
left readable by more people than it was."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import hostile_paths as hp
import pytest
from campaign_files import run_main
from depth import examples
from hostile_paths import sample_file_fixture, world_fixture  # noqa: F401 (fixtures)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_safe_output import WRITING_COMMANDS

from tracker import safe_output

# Each way a command writes a file, the words before the file's name, and whether the file
# holds a side's secrets (docs/RULES.md §Secrets).
WAYS: dict[str, tuple[list[str], bool]] = {
    "export": (["export", "River Plate", "--to"], True),
    "export --for opponent": (["export", "River Plate", "--for", "opponent", "--to"], False),
    "export --for umpire": (["export", "River Plate", "--for", "umpire", "--to"], False),
    "print --html": (["print", "Force G", "--html"], True),
    "print --markdown": (["print", "Force G", "--markdown"], True),
    "print --for opponent": (["print", "Force G", "--for", "opponent", "--html"], False),
    "report --html": (["report", "River Plate", "--html"], False),
    "report --markdown": (["report", "River Plate", "--markdown"], False),
    "report --side": (["report", "River Plate", "--side", "Royal Navy", "--html"], True),
    "library export": (["library", "export"], False),
    "sync pack": (["sync", "pack", "River Plate", "--to"], True),
    "sync pack --for opponent": (
        ["sync", "pack", "River Plate", "--for", "opponent", "--to"],
        False,
    ),
}
# (umask, the mode of the file already there, or None for a new file).
CASES = [
    (0o022, None), (0o077, None), (0o002, None), (0o027, None), (0o000, None),
    (0o022, 0o600), (0o022, 0o640), (0o002, 0o666), (0o077, 0o644), (0o000, 0o604),
]  # fmt: skip


@contextlib.contextmanager
def umask(value: int) -> Iterator[None]:
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def expected(mask: int, private: bool, before: int | None) -> int:
    made = 0o600 if private else 0o666 & ~mask
    return made if before is None else made & before


def test_every_writing_command_is_tried_here() -> None:
    """A new command that writes a file is added to WRITING_COMMANDS (test_safe_output):
    each of its ways is then tried below."""
    assert {" ".join(words) for words in WRITING_COMMANDS.values()} <= {
        " ".join(words) for words, _ in WAYS.values()
    }


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_command_writes_with_the_umask_and_a_secret_file_for_its_owner_alone(
    world: hp.World, capsys: pytest.CaptureFixture[str], way: str
) -> None:
    words, private = WAYS[way]
    for number, (mask, before) in enumerate(CASES):
        path = world.folder / "sub" / f"file-{number}.txt"
        force = []
        if before is not None:
            path.write_text(hp.NOTES, encoding="utf-8")
            path.chmod(before)
            force = ["--force"]
        with umask(mask):
            done = run_main(capsys, ["--db", str(world.campaign), *words, str(path), *force])
        assert done.status == 0, done.err
        assert path.read_text(encoding="utf-8") != hp.NOTES
        got, wanted = mode_of(path), expected(mask, private, before)
        assert got == wanted, f"umask {mask:03o}, before {before}: {got:03o}, not {wanted:03o}"


SETTINGS = settings(
    max_examples=examples(40), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip


@SETTINGS
@given(
    mask=st.integers(0, 0o777),
    private=st.booleans(),
    before=st.none() | st.integers(0o400, 0o777),
)
def test_the_helper_follows_the_umask_keeps_secrets_private_and_never_widens(
    tmp_path: Path, mask: int, private: bool, before: int | None
) -> None:
    path = tmp_path / "sheet.html"
    path.unlink(missing_ok=True)
    if before is not None:
        path.write_text("old", encoding="utf-8")
        path.chmod(before)
    with umask(mask):
        safe_output.write_text(path, "new", campaign=None, replace=before is not None,
                               private=private)  # fmt: skip
    assert path.read_text(encoding="utf-8") == "new"
    assert mode_of(path) == expected(mask, private, before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.html"]
