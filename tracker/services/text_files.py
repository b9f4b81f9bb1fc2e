"""A file a player imports: opened and read here for every import (a name the system cannot
take, a folder, a FIFO or a file over the import's limit refused with a sentence, never read),
and which encoding its text is in.

Spreadsheets write UTF-8 with or without a byte-order mark, UTF-16 with one ("Unicode text"),
or Windows' cp1252. A file that is not UTF-8 is read as cp1252, but only when nothing in it is
UTF-8: a UTF-8 file with one name pasted in from a cp1252 one (a stray "é" beside UTF-8 "ü")
read whole as cp1252 would garble every other accent ("BÃ©arn") without a word. Such a file is
read as UTF-8, and the bytes that are not are named by the cell that holds them.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from tracker.services.errors import InvalidInput

# A valid UTF-8 sequence of two to four bytes: a letter no ASCII file holds. Text that cp1252
# wrote holds one only by chance ("Ã©", an accented capital before a symbol).
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
# A byte the encoding does not hold, kept in the text as the lone surrogate Python's
# "surrogateescape" reads it as (no decoded text holds one).
_ESCAPED = re.compile("[\udc80-\udcff]")
_BAD = re.compile("[\udc80-\udcff\ufffd]")
CP1252 = "cp1252 (Windows; the file is not UTF-8)"


class Unreadable(InvalidInput):
    """A file that cannot be read at all, and why (as the system says it, or what it is)."""

    def __init__(self, path: str | os.PathLike[str], why: str) -> None:
        super().__init__({"file": f"cannot read {os.fspath(path)}: {why}"})
        self.path, self.why = os.fspath(path), why


def open_file(
    path: str | os.PathLike[str], *, limit: int, too_large: Callable[[int], str] | None = None
) -> BinaryIO:
    """The file the player named, open to read. Refused (Unreadable): a name the system cannot
    take, a file not there or not readable, a folder, a FIFO or a device (never read); refused
    (InvalidInput): a file over `limit` bytes, said by `too_large(size)` (else in MB)."""
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise Unreadable(path, why) from exc
    try:
        found = os.fstat(handle)
        if stat.S_ISDIR(found.st_mode):
            raise Unreadable(path, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(found.st_mode):
            raise Unreadable(path, "it is not a regular file (a FIFO or a device): give a file")
        refuse_over(found.st_size, limit, too_large)
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(handle, True)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def read_file(
    path: str | os.PathLike[str], *, limit: int, too_large: Callable[[int], str] | None = None
) -> bytes:
    """The bytes of the file the player named (open_file says what it refuses); a file that
    grew past `limit` while it was read is refused too."""
    with open_file(path, limit=limit, too_large=too_large) as file:
        try:
            raw = file.read(limit + 1)
        except OSError as exc:
            raise Unreadable(path, exc.strerror or str(exc)) from exc
    refuse_over(len(raw), limit, too_large)
    return raw


def refuse_over(size: int, limit: int, too_large: Callable[[int], str] | None = None) -> None:
    """Refuse a file of `size` bytes over `limit`, said by `too_large(size)` (else in MB)."""
    if size > limit:
        said = too_large(size) if too_large else f"is larger than {limit // 2**20} MB"
        raise InvalidInput({"file": said})


@dataclass(frozen=True)
class Decoded:
    """A file's text, the encoding it was read in (as a report says it), and whether some of
    its bytes were not of that encoding (each cell holding one is named)."""

    text: str
    encoding: str
    lossy: bool = False

    def unreadable(self, cell: str) -> str | None:
        if not self.lossy:
            return None
        if self.encoding == "UTF-8":
            stray = sorted({match.group() for match in _ESCAPED.finditer(cell)})
            if not stray:
                return None
            # The byte as cp1252 reads it is the letter the player typed elsewhere.
            letters = ", ".join(_as_cp1252(char) for char in stray)
            return (f"holds {letters} written in Windows' cp1252 while the rest of the file "
                    "is UTF-8: retype the cell, or save the whole file as CSV UTF-8")  # fmt: skip
        if "\ufffd" in cell or _ESCAPED.search(cell):
            return (f"holds bytes that are not {self.encoding.split(' ')[0]}: retype this "
                    "cell, or save the file as CSV UTF-8")  # fmt: skip
        return None

    def refuse_unreadable(self) -> None:
        """Refuse a file whose bytes are not all of its encoding, naming each's line and column."""
        if not self.lossy:
            return
        places = []
        for number, line in enumerate(self.text.splitlines(), start=1):
            columns = [str(m.start() + 1) for m in _BAD.finditer(line)]
            if columns:
                places.append(f"line {number}, column{'s' * (len(columns) > 1)} "
                              + ", ".join(columns))  # fmt: skip
        shown = "; ".join(places[:10]) + (f"; and {len(places) - 10} lines more"
                                          if len(places) > 10 else "")  # fmt: skip
        raise InvalidInput({"file": f"holds bytes that are not {self.encoding.split(' ')[0]} "
                            f"({shown}): save the file as UTF-8"})  # fmt: skip


def _as_cp1252(char: str) -> str:
    byte = bytes([ord(char) - 0xDC00])
    letter = byte.decode("cp1252", errors="replace")
    return f"byte 0x{byte[0]:02X}" if letter == "\ufffd" else repr(letter)


def decode(raw: bytes) -> Decoded:
    """The text: UTF-8 (BOM or not), UTF-16 with a BOM, else cp1252 if no sequence is UTF-8."""
    if raw.startswith(codecs.BOM_UTF8):
        body, encoding, name = raw[len(codecs.BOM_UTF8) :], "utf-8", "UTF-8"
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        body, encoding, name = raw, "utf-16", "UTF-16"
    else:
        try:
            raw.decode("utf-8")
            body, encoding, name = raw, "utf-8", "UTF-8"
        except UnicodeDecodeError:
            mixed = _UTF8_SEQUENCE.search(raw) is not None
            body, encoding, name = raw, "utf-8" if mixed else "cp1252", "UTF-8" if mixed else CP1252
    try:
        text, lossy = body.decode(encoding), False
    except UnicodeDecodeError:
        # UTF-16's broken pairs are not bytes a surrogate can stand for.
        errors = "replace" if encoding == "utf-16" else "surrogateescape"
        text, lossy = body.decode(encoding, errors=errors), True
    if "\x00" in text:
        raise InvalidInput({"file": "holds NUL bytes: it looks like UTF-16 without a byte-order "
                            "mark; save it as CSV UTF-8 (or Unicode text)"})  # fmt: skip
    return Decoded(text, name, lossy)
