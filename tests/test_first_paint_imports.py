"""The first screen paints before the database libraries load: what the command line imports
to start the app leaves SQLAlchemy, SQLModel, pydantic and Alembic to the thread that opens the
file behind the first screen (tracker/cli, run_app)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("sqlalchemy", "sqlmodel", "pydantic", "alembic", "tracker.models", "tracker.db")


def test_the_app_and_its_first_screen_import_no_database_library() -> None:
    # What run_app imports before app.run(): the command line, the file check, the app (and
    # with it the welcome screen it pushes first).
    code = (
        "import sys\n"
        "import tracker.cli, tracker.campaign_file, tracker.app, tracker.screens.welcome\n"
        f"print(','.join(name for name in {HEAVY!r} if name in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "", f"loaded before the first paint: {done.stdout.strip()}"
