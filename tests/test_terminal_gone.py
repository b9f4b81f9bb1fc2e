"""A terminal closed under the app ends it, even when the app gets no SIGHUP.

The kernel sends SIGHUP to the terminal's session leader. When the app is a child of another
program (`make run`, a shell script that waits), that program gets it and the app does not:
Textual's input thread then read nothing from the closed terminal, forever, at full CPU, and
the campaign file stayed open. The app looks whether it still has a terminal and quits.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

from campaign_files import real_campaign_file, sidecars


def _read_until(master: int, wanted: bytes, within: float) -> bytes:
    """What the app wrote to its terminal, up to the first `wanted`."""
    seen = b""
    end = time.monotonic() + within
    while wanted not in seen and time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            seen += os.read(master, 65536)
    return seen


def test_the_app_ends_once_its_terminal_is_closed(tmp_path: Path) -> None:
    path = real_campaign_file(tmp_path / "campaign.db")
    master, slave = os.openpty()
    os.set_blocking(master, False)
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    # Not a session of its own, so the terminal is not its controlling one: closing it sends
    # the app no SIGHUP, as under make.
    app = subprocess.Popen(
        [sys.executable, "-m", "tracker", "--db", str(path)],
        stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    try:
        try:
            shown = _read_until(master, b"Campaigns", within=60)
        finally:
            os.close(master)  # the terminal window is closed
        assert b"Campaigns" in shown, shown[-2000:]
        try:
            status = app.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError("the app kept running once its terminal was closed") from None
        assert status == 0
        assert sidecars(path) == [], "the campaign file is closed as q closes it"
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
