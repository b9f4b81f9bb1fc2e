"""The library written to a file: JSON holds it all, CSV one kind (its cards, or its classes),
each as services.library.import_library reads it back (docs/GUIDE.md "The library")."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from tracker import safe_output
from tracker.db import SessionFactory
from tracker.services import library, roster
from tracker.services.backups import campaign_file
from tracker.services.csv_cells import csv_text
from tracker.services.errors import InvalidInput
from tracker.services.printing import write_file


def abilities_text(abilities: Iterable[Mapping[str, str]]) -> str:
    """Abilities as a CSV cell holds them (parse_abilities reads it back)."""
    return "\n\n".join(
        f"{a['name']}: {a['text']}" if a.get("text") else a["name"] for a in abilities
    )


def _exported(info: library.Kind, row: Mapping[str, Any]) -> dict[str, Any]:
    out = {key: row[key] for key in library.plain_columns(info.create)}
    if info.name == "cards":
        out["attacks"] = json.loads(row["attacks"] or "{}")
        out["abilities"] = json.loads(row["abilities"] or "[]")
    return out


def _csv_cell(info: library.Kind, key: str, entry: Mapping[str, Any]) -> str | int | None:
    """A cell as its value: text (csv_cells neutralises it), a whole number, or None."""
    if key in library.ATTACK_COLUMNS:
        dice = entry["attacks"].get(key.removeprefix("attack_"))
        return "" if dice is None else roster.dice_text(dice)
    if key == "abilities":
        return abilities_text(entry["abilities"])
    return entry[key]


def export_text(factory: SessionFactory, *, kind: str | None, counted: dict | None = None) -> str:
    """The library as a file import_library reads back: one kind as CSV (UTF-8, commas), or
    (kind None) JSON all of it; `counted` is told how many entries of each kind it holds."""
    kinds = library.KINDS if kind is None else (kind,)
    entries = {each: library.rows_of(factory, each) for each in kinds}
    if counted is not None:
        counted.update({each: len(rows) for each, rows in entries.items()})
    if kind is None:
        document: dict[str, Any] = {"format": library.FORMAT, "version": library.VERSION}
        for each in kinds:
            document[each] = [_exported(library.KIND[each], row) for row in entries[each]]
        return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    info = library.KIND[kind]
    rows = (_exported(info, row) for row in entries[kind])
    return csv_text(
        info.columns, ([_csv_cell(info, key, row) for key in info.columns] for row in rows)
    )


EXPORT_SUFFIXES = {".csv": "cards or classes, one kind", ".json": "the whole library"}


@dataclass(frozen=True)
class Exported:
    path: Path
    rows: Mapping[str, int]  # {"cards": 301} or {"cards": 301, "classes": 60}

    def summary(self) -> str:
        counts = " and ".join(f"{count} {kind}" for kind, count in self.rows.items())
        return f"{counts} written to {self.path}"


def write_export(
    factory: SessionFactory, *, path: str, classes: bool = False, replace: bool = False
) -> Exported:
    """Write the library to a file as `tracker library export` does (docs/GUIDE.md "The library"):
    JSON all of it, CSV its cards (or its classes); through safe_output, over an existing file
    only when `replace` says the player confirmed."""
    campaign = campaign_file(factory)
    try:  # the campaign file is refused as such, whatever its name ends with
        safe_output.check_target(path, campaign=campaign, replace=True)
    except safe_output.OutputRefused as exc:
        raise InvalidInput({"path": str(exc)}) from exc
    suffix = Path(path.strip()).suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise InvalidInput({"path": "end the file name with .csv (the cards, or the classes) "
                            "or .json (the whole library)"})  # fmt: skip
    counted: dict[str, int] = {}
    # Read only once the path is accepted: a refused name costs nothing.
    kind = None if suffix == ".json" else "classes" if classes else "cards"
    content = partial(export_text, factory, kind=kind, counted=counted)
    written = write_file(factory, path=path, content=content, replace=replace)
    return Exported(path=written, rows=counted)
