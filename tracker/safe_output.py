"""Every file the tracker writes on a player's word (a printed sheet, an export) goes through here.

A path typed by a player can name the campaign file itself, through a link, a `..`, a trailing
dot or another case of the same name; written there, months of play become an HTML page. So the
path is resolved first and refused when it is the campaign file, one of SQLite's files beside it
(-wal, -shm, -journal), anything in the backups folder or any other SQLite database. A file that
exists is replaced only when the player said so (a dialog, or --force), never in the umpire's
read-only view, and always by renaming a finished, fsynced temporary file over it, so a failed
write leaves the old file as it was and no temporary file behind. A name the system cannot take
(too long, a NUL) is refused with the system's reason, never raised as a crash.

A new file gets the permissions the player's umask gives; a file holding a side's secrets (the
owner's export, print or report) is the player's alone (0600) whatever the umask; a file
replaced is never left readable by more people than it was.

A leaf module (standard library and tracker.paths only) so that the command line, the services
and the screens may all call it; it knows nothing of the database.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from tracker import paths

SIDECARS = {
    "-wal": "the write-ahead log",
    "-shm": "the shared-memory index",
    "-journal": "the rollback journal",
}
# The first bytes of SQLite's own files: a database, a write-ahead log, a rollback journal.
SQLITE_MAGIC = {
    b"SQLite format 3\x00": "an SQLite database (a campaign file or a backup)",
    b"\x37\x7f\x06\x82": "an SQLite write-ahead log",
    b"\x37\x7f\x06\x83": "an SQLite write-ahead log",
    b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7": "an SQLite rollback journal",
}
CHOOSE = "choose another file name"
PRIVATE = 0o600  # a file of a side's secrets: its owner reads and writes it, no one else
# The temporary file's name keeps this much of the target's, so that it is never longer than
# a name the folder takes (255 bytes on most file systems).
_TEMPORARY_STEM = 60
# Errors of a file system that cannot make hard links (FAT, some network shares).
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.ENOSYS, errno.EMLINK}


class OutputRefused(Exception):
    """A file the tracker will not write; the message says which and what to do."""


class ExistingFile(Exception):
    """The file exists: it is replaced only once the player confirms (a dialog, or --force)."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} already exists")
        self.path = path


def _key(name: str) -> str:
    # Windows and macOS treat "C.DB", "c.db." and "c.db " as c.db: so does this check.
    return name.rstrip(". ").casefold()


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _same_folder(a: Path, b: Path) -> bool:
    return [_key(part) for part in a.parts] == [_key(part) for part in b.parts] or _same_file(a, b)


def _inside(path: Path, folder: Path) -> bool:
    """Path is folder or under it (by name in any case, or by the folder's identity on disk)."""
    for parent in (path, *path.parents):
        if len(parent.parts) == len(folder.parts) and _same_folder(parent, folder):
            return True
    return False


def _identical(a: Path, b: Path) -> bool:
    """The same file on disk: the same name (in any case), or a hard link (st_dev and st_ino)."""
    same_name = _key(a.name) == _key(b.name) and _same_folder(a.parent, b.parent)
    return same_name or _same_file(a, b)


def _sqlite_kind(path: Path) -> str | None:
    """What SQLite file path holds, judged by its first bytes (None for anything else)."""
    if not path.is_file():
        return None  # a FIFO or a device is never opened: reading one can wait forever
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except OSError:
        return None
    return next((what for magic, what in SQLITE_MAGIC.items() if head.startswith(magic)), None)


def _protected(target: Path, campaign: Path | None) -> str | None:
    """Why target is never written, when it is a file the tracker keeps; else None."""
    never = "which is never overwritten"
    if campaign is not None:
        named = Path(os.path.abspath(campaign.expanduser()))
        for base in dict.fromkeys((named, Path(os.path.realpath(named)))):
            if _identical(target, base):
                return f"it is the campaign file, {never}"
            for suffix, what in SIDECARS.items():
                if _identical(target, base.with_name(base.name + suffix)):
                    return f"it is {what} ({suffix}) of the campaign file, {never}"
            backups = paths.backups_dir(base)
            if _inside(target, Path(os.path.realpath(backups))) or _inside(target, backups):
                return f"it is in the backups folder {backups}, where only tracker writes"
    found = _sqlite_kind(target)
    if found is not None:
        return f"it is {found}, {never}"
    name = target.name.rstrip(". ")
    for suffix, what in SIDECARS.items():
        stem = name[: -len(suffix)] if name.casefold().endswith(suffix) else ""
        if stem and _sqlite_kind(target.with_name(stem)) is not None:
            return f"it is {what} ({suffix}) of the SQLite database {stem}, {never}"
    return None


def check_target(
    path: str | os.PathLike[str],
    *,
    campaign: Path | None,
    replace: bool = False,
    new_only: bool = False,
) -> Path:
    """The real path a write to `path` would replace, or OutputRefused / ExistingFile.
    `campaign`: the open campaign file (None for a server's database); `replace`: the player
    confirmed replacing an existing file; `new_only` (the umpire's view): no existing file."""
    text = os.fspath(path).strip()
    if not text:
        raise OutputRefused("no file name given: type the name of the file to write")
    try:
        return _check(text, campaign=campaign, replace=replace, new_only=new_only)
    except (OSError, ValueError) as exc:  # a name too long, a NUL, a loop of links
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise OutputRefused(f"cannot write {text}: {why}; {CHOOSE}") from exc


def _check(text: str, *, campaign: Path | None, replace: bool, new_only: bool) -> Path:
    """check_target's checks of a name given (the system's errors are the caller's)."""
    # Links are followed before each "..", as the system does: "link/../x" is beside the
    # folder the link points to, not beside the link.
    typed = Path(text).expanduser()
    target = Path(os.path.realpath(typed))
    shown = text if os.path.abspath(typed) == str(target) else f"{text} (that is {target})"
    if target.is_dir():
        raise OutputRefused(f"cannot write {target}: it is a folder: give a file name")
    if os.path.basename(text) in ("", ".", ".."):
        # "c.db/" would be c.db to pathlib; a name that ends like a folder's is not a file's.
        raise OutputRefused(f"{text} ends like a folder's name: give a file name")
    what = _protected(target, campaign)
    if what is not None:
        raise OutputRefused(f"refused to write {shown}: {what}; {CHOOSE}")
    folder = target.parent
    if not folder.is_dir():
        why = "is not a folder" if folder.exists() else "does not exist"
        raise OutputRefused(f"cannot write {target}: {folder} {why}")
    if os.path.lexists(target):
        if new_only:
            raise _not_new(shown)
        if not target.is_file():
            raise OutputRefused(f"{shown} is not a regular file: {CHOOSE}")
        if not replace:
            raise ExistingFile(target)
    return target


def _not_new(shown: str) -> OutputRefused:
    return OutputRefused(
        f"{shown} already exists and the umpire's read-only view writes only new files: {CHOOSE}"
    )


def write_text(
    path: str | os.PathLike[str],
    text: str | bytes | Callable[[], str | bytes],
    *,
    campaign: Path | None,
    replace: bool = False,
    new_only: bool = False,
    private: bool = False,
) -> Path:
    """Write text (UTF-8, newlines as given) or bytes to path after check_target, whole or not at
    all (the module's docstring says how, and what `private` does); the path written. Text may be
    a function, called once the path is accepted: a refused path costs nothing."""
    target = check_target(path, campaign=campaign, replace=replace, new_only=new_only)
    made = text() if callable(text) else text
    data = made.encode("utf-8") if isinstance(made, str) else made
    folder = target.parent
    try:
        handle, temporary = _temporary(target)
    except OSError as exc:
        raise OutputRefused(f"cannot write {target}: {exc.strerror} (in {folder})") from exc
    try:
        with os.fdopen(handle, "wb") as out:
            os.fchmod(out.fileno(), _mode(out.fileno(), target, private))
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if replace and not new_only:
            os.replace(temporary, target)
        else:
            _rename_new(temporary, target)
        _sync_folder(folder)
    except FileExistsError as exc:  # made by another program since the check
        if new_only:
            raise _not_new(str(target)) from exc
        raise ExistingFile(target) from exc
    except OSError as exc:
        raise OutputRefused(f"cannot write {target}: {exc.strerror}; nothing was changed") from exc
    finally:
        Path(temporary).unlink(missing_ok=True)
    return target


def _temporary(target: Path) -> tuple[int, str]:
    """A new, empty temporary file beside target, open to write, and its name: made 0666 less
    the umask, as any program's new file (mkstemp's 0600 would keep a sheet from its players)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    stem = target.name[:_TEMPORARY_STEM]
    for _ in range(100):
        name = target.with_name(f".{stem}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(name, flags, 0o666), str(name)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target.parent))


def _mode(handle: int, target: Path, private: bool) -> int:
    """The permissions of the file written at target: the umask's (the temporary file's own),
    or PRIVATE for a side's secrets; never wider than the file it replaces."""
    mode = PRIVATE if private else stat.S_IMODE(os.fstat(handle).st_mode)
    try:
        old = os.stat(target)
    except OSError:
        return mode
    return mode & stat.S_IMODE(old.st_mode)


def _rename_new(temporary: str, target: Path) -> None:
    """Put temporary at target only if nothing is there: a hard link fails on an existing
    name where a rename would replace it."""
    try:
        os.link(temporary, target)
    except OSError as exc:
        if exc.errno not in _NO_LINKS:
            raise
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "File exists", str(target)) from exc
        os.replace(temporary, target)


def _sync_folder(folder: Path) -> None:
    """The rename itself survives a power cut once the folder is synced (where it can be)."""
    with suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
