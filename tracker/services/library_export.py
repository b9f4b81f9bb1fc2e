"""The library written to a file: JSON holds it all, CSV one kind (its cards, or its classes),
each as services.library.import_library reads it back (docs/GUIDE.md "The library")."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
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


def export_json(factory: SessionFactory) -> str:
    """The whole library as a JSON file import_library reads back."""
    return _json_text({kind: library.rows_of(factory, kind) for kind in library.KINDS})


def _json_text(entries: Mapping[str, list[dict[str, Any]]]) -> str:
    document: dict[str, Any] = {"format": library.FORMAT, "version": library.VERSION}
    for kind in library.KINDS:
        document[kind] = [_exported(library.KIND[kind], row) for row in entries[kind]]
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def _csv_cell(info: library.Kind, key: str, entry: Mapping[str, Any]) -> str | int | None:
    """A cell as its value: text (csv_cells neutralises it), a whole number, or None."""
    if key in library.ATTACK_COLUMNS:
        dice = entry["attacks"].get(key.removeprefix("attack_"))
        return "" if dice is None else roster.dice_text(dice)
    if key == "abilities":
        return abilities_text(entry["abilities"])
    return entry[key]


def export_csv(factory: SessionFactory, *, kind: str = "cards") -> str:
    """One kind of the library as a CSV file (UTF-8, commas) import_library reads back."""
    return _csv_text(library.KIND[kind], library.rows_of(factory, kind))


def _csv_text(info: library.Kind, rows: list[dict[str, Any]]) -> str:
    entries = (_exported(info, row) for row in rows)
    return csv_text(info.columns, ([_csv_cell(info, k, e) for k in info.columns] for e in entries))


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
    kinds = library.KINDS if suffix == ".json" else ("classes" if classes else "cards",)
    counted: dict[str, int] = {}

    def content() -> str:
        # Read only once the path is accepted: a refused name costs nothing.
        entries = {kind: library.rows_of(factory, kind) for kind in kinds}
        counted.update({kind: len(rows) for kind, rows in entries.items()})
        if suffix == ".json":
            return _json_text(entries)
        return _csv_text(library.KIND[kinds[0]], entries[kinds[0]])

    written = write_file(factory, path=path, content=content, replace=replace)
    return Exported(path=written, rows=counted)
