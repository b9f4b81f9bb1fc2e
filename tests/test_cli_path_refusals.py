"""Every path a player names on the command line that names no usable file (a name too long
for the system, a folder, a FIFO, a loop of links, ...) is refused with exit status 2 and one
line saying why: never a crash, never a wait on a FIFO, nothing written. Generated paths, at
every command that reads or writes a file the player names, and at --db."""

from __future__ import annotations

import contextlib

import hostile_paths as hp
import pytest
from campaign_files import Outcome, run_main
from depth import examples
from hostile_paths import sample_file_fixture, world_fixture  # noqa: F401 (fixtures)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_safe_output import WRITING_COMMANDS
from unusable_paths import SYSTEM_REFUSES, unusable_paths

PATH = "{path}"
# Every command that reads or writes a file the player names, PATH where the name goes.
COMMANDS: dict[str, list[str]] = {
    **{name: [*words, PATH] for name, words in WRITING_COMMANDS.items()},
    "import": ["import", PATH],
    "import-csv": ["import-csv", "ships", PATH, "--into", "Force G"],
    "library import": ["library", "import", PATH],
}
# Commands run on a campaign file named by --db.
ON_THE_FILE = {
    "the app": [], "backups": ["backups"], "restore": ["restore", "x.db", "--yes"],
    "export": ["export", "River Plate", "--to", "x.json"], "import": ["import", "x.json"],
    "print": ["print", "Force G", "--html", "x.html"],
    "library export": ["library", "export", "x.csv"],
}  # fmt: skip

SETTINGS = settings(
    max_examples=examples(12), deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


def refused_in_one_line(done: Outcome) -> None:
    assert done.status == 2 and done.out == "", done
    assert done.err.startswith("tracker") and done.err.count("\n") == 1, done.err


@pytest.mark.parametrize("command", sorted(COMMANDS))
@SETTINGS
@given(data=st.data(), force=st.booleans())
def test_a_path_naming_no_usable_file_is_refused_in_one_line(
    world: hp.World, capsys: pytest.CaptureFixture[str], command: str, data: st.DataObject,
    force: bool,
) -> None:  # fmt: skip
    kind, path = data.draw(unusable_paths(world.folder / "sub"))
    before = world.fingerprint()
    argv = [path if word == PATH else word for word in COMMANDS[command]]
    forced = ["--force"] * (force and command in WRITING_COMMANDS)
    done = run_main(capsys, ["--db", str(world.campaign), *argv, *forced])
    refused_in_one_line(done)
    assert world.fingerprint() == before, kind


@pytest.mark.parametrize("command", sorted(ON_THE_FILE))
@SETTINGS
@given(data=st.data())
def test_a_campaign_file_name_the_system_cannot_take_is_refused_in_one_line(
    world: hp.World, capsys: pytest.CaptureFixture[str], command: str, data: st.DataObject
) -> None:
    kind, path = data.draw(unusable_paths(world.folder / "sub", SYSTEM_REFUSES))
    with contextlib.chdir(world.folder):
        done = run_main(capsys, ["--db", path, *ON_THE_FILE[command]])
    refused_in_one_line(done)
    assert "as the campaign file: File name too long" in done.err, kind
