"""Every toast an app showed during a test, in the order shown (`every_toast(app)`).

Textual drops a toast from the app's own list once its time is up: on a loaded machine that
can happen before the test reads it, and a test reading `app._notifications` then found no
toast, or an older one last. tests/conftest.py keeps every toast added, for every test.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App
from textual.notifications import Notification, Notifications

_ADD = Notifications.add


def keep_every_toast(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on each app's collection of toasts keeps what it was given, for every_toast."""

    def add(self: Notifications, notification: Notification) -> Notifications:
        self.__dict__.setdefault("shown", []).append(notification)
        return _ADD(self, notification)

    monkeypatch.setattr(Notifications, "add", add)


def every_toast(app: App[Any]) -> list[Notification]:
    """Every toast the app showed, oldest first, whether or not its time is up."""
    return list(app._notifications.__dict__.get("shown", []))
