"""Paths a careless or hostile player could type to reach a file the tracker must never
overwrite, for the safe-output tests of the command line and of the screens (imported as a plain
module, as campaign_files is)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from campaign_files import file_sha, real_campaign_file
from hypothesis import strategies as st

NOTES = "the player's own notes"
BACKUP_NAME = "c-20260101T000000000000Z-close.db"
# What each kind of protected file is, relative to the campaign's folder.
PROTECTED = {
    "campaign": "c.db",
    "wal": "c.db-wal",
    "shm": "c.db-shm",
    "journal": "c.db-journal",
    "backup": f"backups/{BACKUP_NAME}",
    "new file in backups": "backups/sheet.html",
}
# The files that exist, so a hard link to them can be made.
EXISTING = ("campaign", "backup")


@dataclass(frozen=True)
class World:
    """A campaign folder: c.db holding the sample campaign, a backup of it, a folder sub/ for
    relative paths and a folder links/ emptied between examples."""

    folder: Path

    @property
    def campaign(self) -> Path:
        return self.folder / "c.db"

    @property
    def backup(self) -> Path:
        return self.folder / "backups" / BACKUP_NAME

    @property
    def links(self) -> Path:
        return self.folder / "links"

    def fingerprint(self) -> tuple[str, str, list[str]]:
        """The two files' SHA-256 and every name in the folder outside links/; the campaign's
        -wal and -shm only when they are not SQLite's own (the umpire's view leaves empty ones)."""
        names = sorted(
            str(p.relative_to(self.folder))
            for p in self.folder.rglob("*")
            if self.links not in (p, *p.parents) and not self._sqlites_own(p)
        )
        return file_sha(self.campaign), file_sha(self.backup), names

    def _sqlites_own(self, path: Path) -> bool:
        if path.parent != self.folder or path.name not in ("c.db-wal", "c.db-shm"):
            return False
        head = path.read_bytes()[:4]
        # Empty, a write-ahead log's magic number, or the index's first bytes (a version: 3008).
        return head in (b"", b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83") or (
            path.name.endswith("-shm") and head[:4] in (b"\x18\xe2\x2d\x00", b"\x00\x2d\xe2\x18")
        )

    def players_file(self, name: str) -> Path:
        """A file of the player's own in sub/, holding NOTES: it must survive unconfirmed."""
        path = self.folder / "sub" / name
        path.write_text(NOTES, encoding="utf-8")
        return path

    def reset_links(self) -> None:
        shutil.rmtree(self.links)  # removes the links, never what they point at
        self.links.mkdir()


# Fixtures by name= (world, sample_file): a test module imports world_fixture and
# sample_file_fixture, and its tests ask for `world`.
@pytest.fixture(scope="module", name="sample_file")
def sample_file_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The River Plate sample campaign, made once per test module."""
    return real_campaign_file(tmp_path_factory.mktemp("sample") / "campaign.db")


@pytest.fixture(name="world")
def world_fixture(tmp_path: Path, sample_file: Path) -> World:
    """The world in tmp_path/w, its campaign and backup copies of the sample."""
    made = World(tmp_path / "w")
    (made.folder / "backups").mkdir(parents=True)
    (made.folder / "sub").mkdir()
    made.links.mkdir()
    shutil.copyfile(sample_file, made.campaign)
    shutil.copyfile(sample_file, made.backup)
    return made


@st.composite
def hostile_paths(
    draw: st.DrawFn, world: World, *, keep_links: bool = False
) -> tuple[str, str, str]:
    """(kind, form, path): a path that reaches a protected file, made in the world's links/
    where the form needs a link. The current folder is the world's folder."""
    if not keep_links:
        world.reset_links()  # what an earlier example made
    kind = draw(st.sampled_from(sorted(PROTECTED)))
    relative = PROTECTED[kind]
    target = world.folder / relative
    forms = ["absolute", "dotdot", "from-sub", "case", "dots", "slash", "symlink", "chain",
             "folder-link", "link-dotdot"]  # fmt: skip
    if kind in EXISTING:
        forms.append("hardlink")
    form = draw(st.sampled_from(forms))
    link_name = draw(st.text(alphabet="abcdefghij-_.0123456789", min_size=1, max_size=8))
    link = world.links / f"l{len(list(world.links.iterdir()))}{link_name}"
    if form == "absolute":
        path = str(target)
    elif form == "dotdot":
        path = f"./sub/../{relative}"
    elif form == "from-sub":
        path = f"sub/../sub/../{relative}"
    elif form == "case":
        # Another case of the file's own name, as Windows and macOS would take it.
        head, _, name = relative.rpartition("/")
        flips = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
        name = "".join(c.swapcase() if flip else c for c, flip in zip(name, flips, strict=True))
        path = f"{head}/{name}" if head else name
    elif form == "dots":
        path = relative + draw(st.sampled_from([".", "..", " .", ". "]))
    elif form == "slash":
        path = relative + draw(st.sampled_from(["/", "//", "/."]))
    elif form == "symlink":
        absolute = draw(st.booleans())
        link.symlink_to(target if absolute else Path("..") / relative)
        path = str(link.relative_to(world.folder)) if draw(st.booleans()) else str(link)
    elif form == "chain":
        hops = draw(st.integers(min_value=2, max_value=4))
        previous = target
        for hop in range(hops):
            here = world.links / f"{link.name}-{hop}"
            here.symlink_to(previous)
            previous = here
        path = str(previous)
    elif form == "folder-link":
        folder, _, name = relative.rpartition("/")
        link.symlink_to(world.folder / folder if folder else world.folder)
        path = f"{link}/{name}"
    elif form == "link-dotdot":
        # A link to a folder three levels down: "link/../../../../x" climbs from where the
        # link points (back to the world's folder), not from where it sits, as the system does.
        deep = world.links / f"{link.name}-x" / "y" / "z"
        deep.mkdir(parents=True)
        link.symlink_to(deep)
        path = f"{link}/../../../../{relative}"
    else:  # hardlink
        os.link(target, link)
        path = str(link)
    return kind, form, path


def reaches(world: World, form: str, path: str, kind: str) -> None:
    """The generated path really does reach the protected file (so a refusal is earned)."""
    target = world.folder / PROTECTED[kind]
    if form in ("case", "dots", "slash"):
        return  # the same file only where names ignore case and trailing dots
    real = Path(os.path.realpath(path))
    if form == "hardlink":
        assert os.path.samefile(real, target)
    else:
        assert real == target, (path, real)


def says_what_to_do(message: str, form: str) -> None:
    if form == "slash":
        assert "ends like a folder's name: give a file name" in message
    else:
        assert "refused to write" in message and "choose another file name" in message
