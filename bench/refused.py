"""Figure 14: the peak memory of a hostile campaign file refused, against the file's size.

A hostile file is refused before its rows take memory (docs/FILES.md): the figure builds two
files of REFUSED_BYTES from the large campaign's export, as `tracker import` meets them, and
imports each in a fresh process, from the file as the command reads it:

- one field oversized: the export with one ship's notes grown to fill the file (a field the
  careful reader measures and refuses without reading it);
- rows refused at the end: the journal's rows copied until the file is that large, the last
  one naming a ship the file does not hold (every row is read before the reference is found).

The figure is the worse of the two: the peak resident memory the import adds (VmHWM, less the
resident size before the file was read) against the file's size; goal <= 1.5x.

    python -m bench.run --only 14 --runs 1     # this one alone
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.generate import Built

# The size of each hostile file, by preset: 200 MB, as the files found refused at 1 GB were.
REFUSED_BYTES = {"default": 200 * 2**20, "tiny": 2 * 2**20}
# A child that reads a hostile file as tracker import reads it, and says how much memory the
# reading added to it and why the file was refused.
REFUSED_MEMORY = """
import re, sys
from pathlib import Path
from tracker.services import exchange
from tracker.services.errors import InvalidInput

def status(key):
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{key}:\\s+(\\d+) kB", text, re.MULTILINE).group(1))

exchange.metadata_plan()  # the modules loaded first: their memory is no part of the file's
Path("/proc/self/clear_refs").write_text("5")
before = status("VmRSS")
try:
    with open(sys.argv[1], "rb") as file:
        exchange.read_document(file)
    said = "read (not refused)"
except InvalidInput as exc:
    said = "refused: " + "; ".join(exc.errors.values())[:200]
print(status("VmHWM") - before)
print(said)
"""


def _document(large: Built) -> dict[str, Any]:
    from tracker.db import make_engine, session_factory
    from tracker.services import exchange

    engine = make_engine(str(large.path))
    try:
        return exchange.export_campaign(session_factory(engine), campaign_id=large.campaign_id)
    finally:
        engine.dispose()


def hostile_files(large: Built, workdir: Path, size: int) -> dict[str, Path]:
    """The two hostile files of `size` bytes, written in workdir."""
    from tracker.services import exchange

    document = _document(large)
    text = exchange.dumps(document)
    grown = workdir / "refused-field.json"
    marker = '"notes":""'
    grown.write_text(text.replace(marker, '"notes":"' + "x" * (size - len(text)) + '"', 1))
    rows = document["tables"]["journalentry"]
    originals, next_id = list(rows), max(row["id"] for row in rows) + 1
    per_row = sum(len(json.dumps(row, separators=(",", ":"))) + 5 for row in originals)
    for _ in range(max(0, size - len(text)) // per_row + 1):
        rows.extend({**row, "id": next_id + n} for n, row in enumerate(originals))
        next_id += len(originals)
    document["tables"]["ship"][-1]["squadron_id"] = 10**9  # no such squadron: refused last
    copied = workdir / "refused-rows.json"
    copied.write_text(exchange.dumps(document))
    return {"one field oversized": grown, "rows refused at the end": copied}


def measure(large: Built, env: dict[str, str], workdir: Path, root: Path, preset: str) -> dict[
    str, tuple[float, float, str]
]:  # fmt: skip
    """For each hostile file: its size (KiB), the memory its refusal added (KiB), what was said."""
    found: dict[str, tuple[float, float, str]] = {}
    for kind, path in hostile_files(large, workdir, REFUSED_BYTES[preset]).items():
        done = subprocess.run(
            [sys.executable, "-c", REFUSED_MEMORY, str(path)], env=env, cwd=root,
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        added, said = done.stdout.splitlines()[-2:]
        if not said.startswith("refused: "):
            raise RuntimeError(f"the hostile file ({kind}) was not refused: {said}")
        found[kind] = (path.stat().st_size / 1024, float(added), said)
        path.unlink()
    return found
