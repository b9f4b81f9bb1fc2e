"""Paths a player may type that name no file the tracker can read or write: a name or a
folder's name longer than the system takes, a whole path longer than it takes, a name under a
file, a folder, a FIFO, a loop of links. For the refusal tests of the command line and of the
dialogs (imported as a plain module, as hostile_paths is)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import strategies as st

# The system's limits: 255 bytes a name, 4096 a path (Linux); past them it answers
# ENAMETOOLONG, which a name the system cannot take must be refused with.
NAME_MAX = 255
PATH_MAX = 4096
SYSTEM_REFUSES = ("long name", "long folder", "long path")
KINDS = (*SYSTEM_REFUSES, "under a file", "a folder", "a fifo", "a link loop")


@st.composite
def unusable_paths(
    draw: st.DrawFn, folder: Path, kinds: tuple[str, ...] = KINDS
) -> tuple[str, str]:
    """(kind, path) in `folder` (made there as the kind needs), with the file's suffix drawn:
    a path no file can be read from or written to."""
    kind = draw(st.sampled_from(kinds))
    suffix = draw(st.sampled_from([".json", ".csv", ".html", ".md", ".db", ""]))
    letters = st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789-_ é")
    if kind == "long name":
        size = draw(st.integers(NAME_MAX + 1, 3 * NAME_MAX))
        name = "".join(draw(st.lists(letters, min_size=size, max_size=size))).strip() or "x"
        return kind, str(folder / (name.ljust(NAME_MAX + 1, "x") + suffix))
    if kind == "long folder":
        return kind, str(folder / ("d" * draw(st.integers(NAME_MAX + 1, 1000))) / f"f{suffix}")
    if kind == "long path":
        size = draw(st.integers(1, 200))
        parts = ["p" * size] * (PATH_MAX // (size + 1) + 2)
        return kind, str(folder.joinpath(*parts, f"f{suffix}"))
    if kind == "under a file":
        plain = folder / "plain.txt"
        plain.write_text("a file, not a folder", encoding="utf-8")
        return kind, str(plain / f"f{suffix}")
    if kind == "a folder":
        made = folder / f"folder{suffix}"
        made.mkdir(exist_ok=True)
        return kind, str(made)
    if kind == "a fifo":
        pipe = folder / f"pipe{suffix}"
        if not pipe.exists():
            os.mkfifo(pipe)
        return kind, str(pipe)
    loop = folder / f"loop{suffix}"
    if not loop.is_symlink():
        other = folder / f"loop-back{suffix}"
        loop.symlink_to(other)
        other.symlink_to(loop)
    return kind, str(loop)
