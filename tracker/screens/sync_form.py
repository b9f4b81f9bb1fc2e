"""Copies played apart, from the campaign screen (y): pack the entries the other copy lacks
to a file, or merge the other copy's packet (docs/FILES.md "Copies that play apart")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracker.screens.base import TrackerScreen
from tracker.screens.calls import Call
from tracker.screens.form import FieldSpec, writing
from tracker.services import sync_decide, sync_merge, sync_pack
from tracker.services.visibility import Viewer

NOTE = (
    "Pack writes the journal entries the other copy lacks; merge reads the other copy's "
    "packet. A value both copies changed apart is held for you: tracker sync held lists them."
)


def open_sync(screen: TrackerScreen, campaign_id: int) -> None:
    """Ask pack or merge, and the file (the campaign's folder by default); the umpire's view
    packs what the umpire sees, to a new file only, and merges nothing."""
    screen.call(
        Call(sync_pack.packet_path, screen.factory, campaign_id=campaign_id),
        then=lambda path: _form(screen, campaign_id, str(path)),
    )


def _form(screen: TrackerScreen, campaign_id: int, default: str) -> None:
    acts = [("Pack: write what the other copy lacks", "pack")]
    if not screen.read_only:
        acts.append(("Merge: read the other copy's packet", "merge"))

    def submit(values: dict[str, Any]) -> Call[Any]:
        path = str(values.get("path") or "").strip()
        if values["act"] == "merge":
            return Call(sync_merge.merge_file, screen.factory, path=path)
        return writing("this packet", lambda replace: Call(
            sync_pack.write_packet, screen.factory, campaign_id=campaign_id, path=path,
            replace=replace, new_only=screen.read_only,
            viewer=Viewer.UMPIRE if screen.read_only else Viewer.OWNER,
        ))  # fmt: skip

    def done(result: object) -> None:
        if isinstance(result, Path):
            screen.notify(f"Packet written to {result}", markup=False)
        elif isinstance(result, sync_merge.Merged):
            screen.tell(_said(result), markup=False)

    fields = [
        FieldSpec("act", "Act", kind="select", value="pack", options=acts),
        FieldSpec("path", "File", value=default),
    ]
    screen.open_form("Copies played apart", fields, submit, note=NOTE, read_only_ok=True, done=done)


def _said(merged: sync_merge.Merged) -> list[str]:
    """What a merge did, a line each: its count, each entry held, each note."""
    lines = [f"Merged: {merged.added} new entries, {merged.known} already here, "
             f"{len(merged.held)} held"]  # fmt: skip
    lines += [f"Held {line}" for line in merged.held]
    return lines + merged.notes


def decide(screen: TrackerScreen, entry_id: int) -> None:
    """Decide a merged entry held (k on the journal): this copy's values kept, or the other
    copy's taken; the next packet carries the decision."""

    def form(lines: list[str]) -> None:
        fields = [FieldSpec("keep", "Keep", kind="select", value="ours", options=[
            ("This copy's values", "ours"), ("The other copy's values", "theirs")])]  # fmt: skip

        def done(said: object) -> None:
            if isinstance(said, str):
                screen.tell(said, markup=False)

        submit = screen.calling(sync_decide.decide, entry_id=entry_id)
        screen.open_form("Decide a conflict", fields, submit, note="\n".join(lines), done=done)

    screen.call(Call(sync_decide.conflicts, screen.factory, entry_id=entry_id), then=form)
