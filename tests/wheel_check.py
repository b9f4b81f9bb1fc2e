"""Build the wheel, install it in a fresh venv outside the checkout, and start the app there.

Run by `make wheel-check` (part of `make test`): an installed tracker must find its styles.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent

PROBE = textwrap.dedent(
    """
    import asyncio, sys, tempfile
    from pathlib import Path
    import tracker, tracker.paths
    from tracker.app import TrackerApp
    from tracker.db import make_engine, migrate, session_factory

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
        engine.dispose()

    asyncio.run(main())
    print("installed wheel starts with its styles from", styles)
    """
)


def run(*args: str | Path, cwd: Path) -> None:
    subprocess.run([str(arg) for arg in args], cwd=cwd, check=True)


def main() -> int:
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", work / "dist",
            CHECKOUT, cwd=work)  # fmt: skip
        wheel = next((work / "dist").glob("tracker-*.whl"))
        run(sys.executable, "-m", "venv", work / "venv", cwd=work)
        python = work / "venv" / "bin" / "python"
        run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "-c", CHECKOUT / "requirements.lock", wheel, cwd=work)  # fmt: skip
        run(python, "-c", PROBE, cwd=work)
        run(work / "venv" / "bin" / "tracker", "--version", cwd=work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
