"""Every call in tracker/ that writes a file is in tracker/safe_output.py or on a short list of
the tracker's own files (settings, backups, restore), so a new command or dialog that writes a
player's file some other way fails here.

The scan reads the source (ast), not the running program: it knows the standard library's ways to
write a file (open or Path.open with a writing mode, os.open with a writing flag, os.fdopen,
write_text, write_bytes, rename, replace, link, symlink, shutil's copies and moves, tempfile,
sqlite3.connect on a path). What a library writes on its own (SQLite's -wal beside the campaign
file, an engine made from a URL) is not seen: that is the database layer's, on the campaign file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tracker"

# Functions that write the tracker's own files, never one a player names: each, and why.
OWN_FILES = {
    ("settings.py", "write_whole"): "the player's settings file, and the note of campaign "
    "files tracker closed cleanly, in the settings folder",
    ("db/backups.py", "_backup_into"): "a backup, under a name tracker makes in backups/",
    ("db/backups.py", "_copy_to_backups"): "a backup, under a name tracker makes in backups/",
    ("db/backups.py", "_copy_raw"): "a raw copy of a damaged file into backups/",
    ("db/backups.py", "_install"): "restore: the checked copy renamed over the campaign file",
    ("campaign_file.py", "scratch_folder"): "a scratch folder (a restore's copy, an old export's "
    "upgrade) named with the process's id",
    ("crash_log.py", "write"): "a crash's log, under a name tracker makes in crashes/",
}
HELPER = "safe_output.py"

WRITING_MODES = set("wax+")
WRITING_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"}
ALWAYS = {"write_text", "write_bytes", "symlink_to", "hardlink_to", "mkstemp", "mkdtemp",
          "NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile",
          "TemporaryDirectory"}  # fmt: skip
MODULE_CALLS = {
    "os": {"rename", "renames", "replace", "link", "symlink", "truncate", "mkfifo"},
    "shutil": {"copy", "copy2", "copyfile", "copytree", "move", "copyfileobj"},
    "sqlite3": {"connect"},  # a path, not a URI: makes the file when it is missing
}


def _mode(call: ast.Call, position: int) -> str | None:
    """The mode a call to open gives (None when it gives none or it is not a literal)."""
    given = call.args[position] if len(call.args) > position else None
    given = next((k.value for k in call.keywords if k.arg == "mode"), given)
    return given.value if isinstance(given, ast.Constant) and isinstance(given.value, str) else None


def writes_a_file(call: ast.Call) -> str | None:
    """What kind of file-writing call this is, or None."""
    func = call.func
    owner = (
        func.value.id
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
        else None
    )
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if owner == "safe_output":
        return None  # the one way a player's file is written
    if name in ALWAYS:
        return name
    if owner == "sqlite3" and any(k.arg == "uri" for k in call.keywords):
        return None  # tracker opens a file by URI only to read it (mode=ro, or rw and query_only)
    if owner in MODULE_CALLS and name in MODULE_CALLS[owner]:
        return f"{owner}.{name}"
    if name == "open" and owner == "os":
        flags = {n.attr for n in ast.walk(call) if isinstance(n, ast.Attribute)}
        return "os.open" if flags & WRITING_FLAGS else None
    if name == "fdopen":  # a handle of os.open's, to write unless its mode only reads
        mode = _mode(call, 1)
        return "fdopen" if mode is None or WRITING_MODES & set(mode) else None
    if name == "open":
        # open(path, mode) or path.open(mode)
        mode = _mode(call, 1 if isinstance(func, ast.Name) else 0)
        return f"open({mode!r})" if mode and WRITING_MODES & set(mode) else None
    if isinstance(func, ast.Attribute) and name in ("rename", "replace", "touch"):
        # Path.rename(target) and Path.replace(target) take one argument, by position;
        # str.replace takes two, datetime.replace keywords.
        one = len(call.args) == 1 and not call.keywords
        return f".{name}" if one or name == "touch" else None
    return None


def file_writers(source: str) -> set[tuple[str, str]]:
    """(function, kind) of every file-writing call in the module's source."""
    found: set[tuple[str, str]] = set()

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = function or child.name  # a nested function is its outer one
            if isinstance(child, ast.Call):
                kind = writes_a_file(child)
                if kind is not None:
                    found.add((inner or "<module>", kind))
            visit(child, inner)

    visit(ast.parse(source), "")
    return found


def test_every_file_the_tracker_writes_goes_through_safe_output() -> None:
    outside = []
    seen = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = str(path.relative_to(PACKAGE))
        if module == HELPER:
            continue
        for function, kind in sorted(file_writers(path.read_text(encoding="utf-8"))):
            seen.add((module, function))
            if (module, function) not in OWN_FILES:
                outside.append(f"{module}: {function} calls {kind}")
    assert outside == [], (
        "a file written on a player's word must go through tracker.safe_output.write_text; "
        "a file of the tracker's own belongs in OWN_FILES with its reason"
    )
    # The list names no function that no longer writes: it stays as short as it can be.
    assert set(OWN_FILES) <= seen


@pytest.mark.parametrize(
    "source",
    [
        "def f(p):\n    open(p, 'w').write('x')",
        "def f(p):\n    p.open(mode='ab')",
        "def f(p):\n    p.write_text('x')",
        "def f(p):\n    p.write_bytes(b'x')",
        "def f(a, b):\n    os.replace(a, b)",
        "def f(a, b):\n    a.rename(b)",
        "def f(a, b):\n    a.replace(b)",
        "def f(a, b):\n    shutil.copyfile(a, b)",
        "def f(p):\n    os.open(p, os.O_WRONLY | os.O_CREAT)",
        "def f(d):\n    tempfile.mkstemp(dir=d)",
        "def f(p):\n    sqlite3.connect(p)",
        "def f(h):\n    os.fdopen(h, 'w')",
        "class C:\n    def f(self, p):\n        with p.open('w') as out:\n            pass",
    ],
)
def test_the_scan_sees_each_way_to_write_a_file(source: str) -> None:
    assert [function for function, _ in file_writers(source)] == ["f"]


@pytest.mark.parametrize(
    "source",
    [
        "def f(p):\n    open(p).read()",
        "def f(p):\n    p.open('rb')",
        "def f(s):\n    s.replace('_', ' ')",
        "def f(d):\n    d.copy()",
        "def f(p):\n    sqlite3.connect(f'file:{p}?mode=ro', uri=True)",
        "def f(p):\n    os.open(p, os.O_RDONLY)",
        "def f(h):\n    os.fdopen(h, 'rb')",
        "def f(t):\n    t.replace(tzinfo=None)",
        "def f(p):\n    safe_output.write_text(p, 'x', campaign=None)",
    ],
)
def test_the_scan_leaves_reading_alone(source: str) -> None:
    assert file_writers(source) == set()
