"""Build the wheel, install it in a fresh venv outside the checkout, and start the app there.

Run by `make wheel-check` (part of `make test`): an installed tracker must find its styles, and
print a sheet from the templates it carries (tracker/publish/templates).
The runtime lock's wheels are fetched once per lock into build/wheelhouse: pip's look-ups in the
package index cost about 20 s of CPU a run, and the install itself then reads only that folder.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
LOCK = CHECKOUT / "requirements.lock"
WHEELHOUSE = CHECKOUT / "build" / "wheelhouse"

PROBE = textwrap.dedent(
    """
    import asyncio, sys, tempfile
    from pathlib import Path
    import tracker, tracker.paths
    from tracker.app import TrackerApp
    from tracker.db import make_engine, migrate, session_factory
    from tracker.publish import sheet_pages
    from tracker.services import campaigns, fleet
    from tracker.services.fleet import ShipFields

    assert "site-packages" in tracker.__file__, tracker.__file__
    styles = tracker.paths.styles_dir()
    assert (styles / "app.tcss").is_file(), f"no styles at {styles}"

    async def main() -> None:
        engine = make_engine(str(Path(tempfile.mkdtemp()) / "campaign.db"))
        migrate(engine)
        app = TrackerApp(session_factory(engine))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert type(app.screen).__name__ == "WelcomeScreen", app.screen
            banner = app.screen.query_one("#welcome-banner")
            # welcome.tcss gives the banner a padding of 2 cells: proof the stylesheet loaded.
            assert banner.styles.padding.left == 2, banner.styles.padding
        factory = session_factory(engine)
        campaign = campaigns.create_campaign(factory, name="Plate")
        side = campaigns.create_side(factory, campaign_id=campaign.id, name="Blue").id
        squadron = fleet.create_squadron(factory, side_id=side, name="Force G")
        fleet.create_ship(factory, squadron_id=squadron, fields=ShipFields(
            name="<b>Exeter</b>", structure_max=12, flotation_max=9))
        page = sheet_pages.squadron_page(factory, squadron_id=squadron)
        assert "<h3>&lt;b&gt;Exeter&lt;/b&gt;</h3>" in page and "@page { size: A4" in page, page
        notes = sheet_pages.squadron_page(factory, squadron_id=squadron, fmt="markdown")
        assert r"### \\<b\\>Exeter\\</b\\>" in notes, notes
        engine.dispose()

    asyncio.run(main())
    print("installed wheel starts with its styles from", styles, "and prints a sheet")
    """
)


# The app alone: the browser's and the club server's packages are extras (pyproject.toml).
NO_EXTRAS = textwrap.dedent(
    """
    import importlib.util
    found = [name for name in ("aiohttp", "textual_serve", "psycopg")
             if importlib.util.find_spec(name) is not None]
    assert not found, f"installed without being asked for: {found}"
    """
)


def run(*args: str | Path, cwd: Path) -> None:
    subprocess.run([str(arg) for arg in args], cwd=cwd, check=True)


def wheelhouse() -> Path:
    """build/wheelhouse holding a wheel of every package the runtime lock pins, fetched again
    only when the lock changes."""
    stamp = WHEELHOUSE / "requirements.lock.sha256"
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text() != digest:
        shutil.rmtree(WHEELHOUSE, ignore_errors=True)
        run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", WHEELHOUSE,
            "-r", LOCK, cwd=CHECKOUT)  # fmt: skip
        stamp.write_text(digest)
    return WHEELHOUSE


def main() -> int:
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", work / "dist",
            CHECKOUT, cwd=work)  # fmt: skip
        wheel = next((work / "dist").glob("naval_campaign_tracker-*.whl"))
        # A venv without pip of its own (ensurepip costs 8 s of CPU); this venv's pip installs
        # into it. The resolver still reads the wheel's own requirements, within the lock's pins,
        # so a dependency the wheel does not declare is missing there as for a player.
        run(sys.executable, "-m", "venv", "--without-pip", work / "venv", cwd=work)
        python = work / "venv" / "bin" / "python"
        run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet",
            "--disable-pip-version-check", "--no-compile", "--no-index",
            "--find-links", wheelhouse(), "-c", LOCK, wheel, cwd=work)  # fmt: skip
        run(python, "-c", PROBE, cwd=work)
        run(python, "-c", NO_EXTRAS, cwd=work)
        run(work / "venv" / "bin" / "tracker", "--version", cwd=work)
        serve = subprocess.run(
            [work / "venv" / "bin" / "tracker", "--db", work / "campaign.db", "serve"],
            cwd=work, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        # Without the extra, serve says how to add it, and starts nothing.
        assert serve.returncode == 2, (serve.returncode, serve.stdout, serve.stderr)
        assert "naval-campaign-tracker[serve]" in serve.stderr, serve.stderr
        assert not (work / "campaign.db").exists(), "serve without its extra made a file"
        print("without the serve extra:", serve.stderr.strip())
        club = subprocess.run(
            [work / "venv" / "bin" / "tracker", "--db",
             "postgresql+psycopg://keeper:s3cret-word@127.0.0.1:9/club", "export", "1",
             "--to", work / "out.json"],
            cwd=work, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert club.returncode == 2, (club.returncode, club.stdout, club.stderr)
        assert "naval-campaign-tracker[club]" in club.stderr, club.stderr
        assert "s3cret" not in club.stdout + club.stderr, club.stderr
    return 0


if __name__ == "__main__":
    sys.exit(main())
