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


def test_the_models_build_their_validators_at_first_use_not_at_import() -> None:
    # Every model derives from models.base.Model (defer_build): building all of them took the
    # opening thread about 190 ms. Checked in a fresh process, where nothing has used one yet.
    code = (
        "import sqlmodel\n"
        "import tracker.models\n"
        "from tracker.models.base import Model\n"
        "found = set()\n"
        "def walk(cls):\n"
        "    for sub in cls.__subclasses__():\n"
        "        if sub.__module__.startswith('tracker.'):\n"
        "            found.add(sub)\n"
        "        walk(sub)\n"
        "walk(sqlmodel.SQLModel)\n"
        "print(len(found))\n"
        "print(sorted(c.__name__ for c in found if not issubclass(c, Model)))\n"
        "print(sorted(c.__name__ for c in found if c.__pydantic_complete__))\n"
        "from tracker.models import Ship\n"
        "ship = Ship.model_validate({'name': 'Exeter', 'class_name': 'York', 'squadron_id': 1,\n"
        "    'side_id': 1, 'original_squadron_id': 1, 'structure_max': 12, 'structure_now': 12,\n"
        "    'flotation_max': 9, 'flotation_now': 9})\n"
        "print(ship.name, Ship.__pydantic_complete__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    count, outside, built, used = done.stdout.splitlines()
    assert int(count) >= 30, done.stdout
    assert outside == "[]", f"models not on models.base.Model: {outside}"
    assert built == "[]", f"validators built at import: {built}"
    assert used == "Exeter True", done.stdout
