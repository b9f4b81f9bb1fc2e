"""What a player is told after setting a passphrase: where a plain copy of the notes may remain."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from tracker.rules.words import plural
from tracker.screens import calls
from tracker.screens.calls import Call
from tracker.screens.confirm import confirm
from tracker.services import sealing

if TYPE_CHECKING:
    from tracker.services.common import SessionFactory

SET = "Passphrase set: the notes are encrypted in the file and in its backups."
OTHER_PROGRAM = (
    "Another program is reading the campaign file: a plain copy of the notes may remain in it "
    "until that program closes. The next time tracker opens the file it finishes the job."
)


def tell_sealed(screen: Screen[object], factory: SessionFactory, result: sealing.Sealed) -> None:
    """Notify what setting the passphrase did; offer to delete backups still holding plain notes."""
    if result.checkpointed and not result.plain_backups:
        screen.notify(SET)
        return
    if not result.checkpointed:
        screen.notify(OTHER_PROGRAM, severity="warning", timeout=20)
    if not result.plain_backups:
        return
    names = ", ".join(path.name for path in result.plain_backups)
    screen.notify(f"These backups could not be rewritten and still hold plain notes: {names}",
                  severity="warning", timeout=20)  # fmt: skip

    def delete() -> None:
        calls.run(
            screen,
            Call(sealing.delete_backups, factory, paths=result.plain_backups),
            then=deleted,
            refused=lambda exc: screen.notify(f"Could not delete them: {exc}", severity="error"),
            expected=(OSError,),
        )

    def deleted(gone: int) -> None:
        screen.notify(f"Deleted {plural(gone, 'backup')} holding plain notes.")

    count = len(result.plain_backups)
    confirm(screen, f"Delete the {plural(count, 'backup')} that still hold the "
            f"plain notes ({names})?", delete)  # fmt: skip
