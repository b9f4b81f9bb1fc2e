"""Command line: parse, resolve the database, migrate, then run the app or a sub-command.

Each sub-command beyond `demo` lives in a module of this package, listed in COMMANDS: its
`add_parser(sub)` adds the sub-parser and sets `handler=run` on it, where
`run(args, factory, target) -> int` does the work (target: the resolved file or URL) and
returns the exit status (2 for bad input, with a one-line message on stderr).
A sub-parser that also sets `before_migrate=True` runs on the file as it is, before any
migration, and gets None for the factory. One that sets `on_the_file=run(args, target)` has
that run first on a campaign file (not a URL): it reads the file with the standard library and
returns the exit status, or None to be run the usual way (`tracker export`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker import __version__, paths, redaction
from tracker.cli.common import command, fail, file_of
from tracker.redaction import shown

if TYPE_CHECKING:
    from tracker.db import SessionFactory

EXIT_CRASH = 1
UMPIRE_NEEDS_HEAD = (
    "the umpire's view cannot upgrade or create a campaign database: "
    "open it once without --umpire first"
)
ENCODE_SPECIAL = (
    "write @ as %40, : as %3A, / as %2F and % as %25 in a user name, a password or a parameter"
)
A_URL = f"a URL such as postgresql+psycopg://user:password@host/database ({ENCODE_SPECIAL})"
# Sub-command modules of this package (each with add_parser and run), by the order of --help.
COMMANDS: tuple[str, ...] = (
    "data", "sync", "csv_files", "library", "backups", "restore", "printing", "report", "serve",
)  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tracker",
        description="Keyboard-first campaign tracker for WW2 naval wargames.",
    )
    parser.add_argument(
        "--db",
        metavar="PATH",
        help=f"campaign file or SQLAlchemy URL (default: ${paths.DB_ENV_VAR}, "
        "else saves/campaign.db)",
    )
    parser.add_argument(
        "--umpire",
        action="store_true",
        help="open read-only for a public screen: nothing can be written, no secret is shown "
        "(every command shows what the opponent may see, and refuses an option that shows more)",
    )
    parser.add_argument("--version", action="version", version=f"tracker {__version__}")
    sub = parser.add_subparsers(dest="command")
    command(sub, "demo", "add the River Plate sample campaign to the file and open it")
    for name in COMMANDS:
        importlib.import_module(f"tracker.cli.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Every line a command prints, and every error it says, scrubbed of the database's secrets."""
    with redaction.scrubbed_output():
        return run_command(argv)


def run_command(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    target = paths.resolve_db(args.db)
    redaction.remember(target)
    if (problem := target_problem(target)) is not None:
        return fail(problem)
    if target == paths.default_db():
        # Only the default home is made for the player; a typed path must already have its folder.
        paths.default_saves_dir().mkdir(parents=True, exist_ok=True)
    from tracker.cli import extras

    for extra in (getattr(args, "needs_extra", None), extras.extra_for_url(target)):
        problem = extras.missing(extra) if extra is not None else None
        if problem is not None:
            return fail(problem)
    from tracker.cli.viewers import umpire_refusal

    if (refusal := umpire_refusal(args)) is not None:
        return fail(f"{refusal}; run it without --umpire")
    from tracker.campaign_file import remove_leftovers

    # What a restore or an import killed midway left (a copy of a backup, an old export's
    # upgrade) goes at the next start; the umpire's view never writes beside the file.
    remove_leftovers(None if args.umpire or paths.is_url(target) else Path(target).expanduser())
    on_the_file = getattr(args, "on_the_file", None)
    if on_the_file is not None and not paths.is_url(target):
        # A command that can read a campaign file at this schema as it is, without the
        # database libraries; None when it cannot, and the command runs as every other.
        done = on_the_file(args, target)
        if done is not None:
            return int(done)
    if getattr(args, "before_migrate", False):
        # A command on the file as it is (backups, restore): it must work on a file the app
        # cannot open, and must not upgrade one; it gets no session factory.
        return int(args.handler(args, None, target))

    handler = getattr(args, "handler", None)
    if handler is None and not paths.is_url(target):
        # The app on a campaign file: refused here when the file is bad, then opened behind
        # the first screen, which paints before the database libraries have loaded.
        return run_app(target, umpire=args.umpire, demo=args.command == "demo")

    from tracker.db import DatabaseProblem
    from tracker.errors import DatabaseUnavailable

    existing = file_of(target)
    # A command that reads a campaign, and any dry run, must not leave an empty file behind.
    needs_file = getattr(args, "needs_file", False) or getattr(args, "dry_run", False)
    if needs_file and existing is not None and not existing.exists():
        return fail(f"no campaign file at {target}: check --db (or $TRACKER_DB)")
    engines: list[Any] = []
    try:
        demo = handler is None and args.command == "demo"
        factory, campaign_id, upgraded = open_campaign(target, args.umpire, demo, engines)
        if upgraded is not None:
            print(f"tracker: {upgraded}")
        if handler is not None:
            status: int = handler(args, factory, target)
            finish(None, engines, target)
            return status
    except Exception as exc:
        dispose(engines)  # closes what the attempt opened, and any -wal or -shm it made
        if isinstance(exc, (DatabaseProblem, DatabaseUnavailable)):  # nothing was written
            return fail(str(exc))
        if (unreadable := unreadable_value(target)) is None:
            raise
        return fail(unreadable)

    from tracker.app import TrackerApp

    app = TrackerApp(factory, open_campaign_id=campaign_id, read_only=args.umpire, quiet_gc=True)
    app.run()
    return finish(app, engines, target)


def open_campaign(
    target: str, umpire: bool, demo: bool, engines: list[Any]
) -> tuple[SessionFactory, int | None, str | None]:
    """Connect (the engine goes in engines, for the caller to dispose), upgrade or check the
    schema, add the sample for demo: the sessions, the sample's id, what an upgrade did."""
    from tracker.db import session_factory

    engines.append(connect(target, read_only=umpire))
    upgraded = open_database(engines[-1], target, umpire=umpire)
    factory = session_factory(engines[-1])
    campaign_id = None
    if demo:
        from tracker.services.demo import create_sample_campaign

        campaign_id = create_sample_campaign(factory)
    return factory, campaign_id, upgraded


def dispose(engines: list[Any]) -> None:
    for engine in engines:
        engine.dispose()


def finish(app: Any, engines: list[Any], target: str) -> int:
    """After the app (None: a sub-command): what went wrong said, a clean close noted."""
    dispose(engines)
    if app is not None and app.failure is not None:
        return fail(app.failure)
    if app is not None and app.crash is not None:
        return crashed(app.crash, app.crash_path, target)
    path = file_of(target)
    if path is not None and path.is_file():
        from tracker.campaign_file import remember_left

        remember_left(path)  # so the next start can skip the checks that read the whole file
    return 0


def run_app(target: str, *, umpire: bool, demo: bool) -> int:
    """Check the campaign file with the standard library alone, start the app at once, and
    let it open the database in a thread."""
    from tracker.campaign_file import (
        DatabaseProblem,
        file_key,
        first_look,
        head_revision,
        inspect_file,
    )

    path = Path(target).expanduser()
    try:
        revision = inspect_file(path)
    except DatabaseProblem as exc:
        return fail(str(exc))
    if umpire and revision != head_revision():
        return fail(UMPIRE_NEEDS_HEAD)
    from tracker.screens.welcome import FirstLook

    # The campaign list, read with the standard library: shown at the first paint, while the
    # database libraries load behind it (a file to upgrade shows its list once upgraded).
    lines = first_look(path) if revision is not None else None
    look = FirstLook(file_key(path), lines) if lines is not None else None
    engines: list[Any] = []

    def opener() -> Any:
        from tracker.app import Opened

        factory, campaign_id, upgraded = open_campaign(target, umpire, demo, engines)
        return Opened(factory, campaign_id, upgraded and upgraded[0].upper() + upgraded[1:])

    from tracker.app import TrackerApp

    app = TrackerApp(None, opener=opener, first_look=look, read_only=umpire, quiet_gc=True)
    app.run()
    return finish(app, engines, target)


def crashed(error: BaseException, path: Path | None, target: str | None = None) -> int:
    """Say on stderr where the crash's log is; the exit status of a crash. Unless the campaign
    file at target holds a value tracker cannot read (another program wrote it while tracker
    ran, after the check at open): that is no crash, but the file refused as at open."""
    unreadable = unreadable_value(target) if target is not None else None
    if unreadable is not None:
        return fail(unreadable)
    from tracker import crash_log

    print(crash_log.say(error, path), file=sys.stderr)
    return EXIT_CRASH


def unreadable_value(target: str) -> str | None:
    """What the campaign file at target holds that tracker cannot read, or None (also for a
    database that is no file: its server keeps each column's type)."""
    path = file_of(target)
    if path is None or not path.is_file():
        return None
    from tracker.campaign_file import unreadable_value as problem_of

    problem = problem_of(path)
    return None if problem is None else str(problem)


def connect(target: str, *, read_only: bool) -> Any:
    """An engine for target, or DatabaseProblem for a URL of no database tracker can use."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    from tracker.db import DatabaseProblem, make_engine

    try:
        return make_engine(target, read_only=read_only)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise DatabaseProblem(not_usable(target)) from exc


def not_usable(target: str) -> str:
    return f"{shown(target)!r} is not a database tracker can use: give a file path, or {A_URL}"


def target_problem(target: str) -> str | None:
    """Why the database named cannot be what the player meant (None when it can): a libpq
    string, which would be a file's name; a URL that does not parse; one whose user or
    password has an @, which SQLAlchemy would end the password at, sending the driver the rest
    as the host, the port or the query. Said with the address shown (no secret)."""
    if paths.is_conninfo(target):
        return (
            f"{shown(target)!r} is a libpq connection string, which tracker does not take: give "
            f"a campaign file's path, or {A_URL}"
        )
    if not paths.is_url(target):
        return paths.name_problem(target)  # a file's name the system cannot take
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(target)
    except (ArgumentError, ValueError):  # ValueError: a port that is no number
        return not_usable(target)
    if url.get_backend_name() != "sqlite" and target.partition("://")[2].count("@") > 1:
        return f"{shown(target)!r} has more than one @ (one ends the user): {ENCODE_SPECIAL}"
    return None


def open_database(engine: Any, target: str, *, umpire: bool) -> str | None:
    """Migrate the database to this version's schema (the umpire's read-only view cannot: it
    needs one up to date): what the upgrade did, or None."""
    from sqlmodel import SQLModel

    import tracker.models  # noqa: F401  (every table on the metadata)
    from tracker.db import (
        DatabaseProblem,
        check_schema,
        checkpoint,
        head_revision,
        migrate,
        schema_revision,
        session_factory,
    )

    upgraded = None
    if not umpire:
        notes: list[str] = []
        upgraded = upgrade_said(migrate(engine, notes), notes)
        # A passphrase set while another program read the file may have left the plain notes'
        # pages in its log: this open folds them in (docs/RULES.md §Secrets).
        checkpoint(session_factory(engine), tries=1)
    elif schema_revision(target, engine) != head_revision():
        raise DatabaseProblem(UMPIRE_NEEDS_HEAD)
    check_schema(engine, SQLModel.metadata)
    return upgraded


def upgrade_said(backup: Path | None, notes: list[str]) -> str | None:
    """An upgrade in the player's words: the backup it made first, and what it changed beside
    the schema (`migrate`'s notes); None when nothing was upgraded."""
    said = [f"upgraded the campaign file; the old one is kept as {backup}"] if backup else []
    return "; ".join([*said, *notes]) or None


def run() -> None:
    """The console script: a crash outside the app is logged and said in one line, as inside."""
    try:
        status = main()
    except Exception as exc:
        from tracker import crash_log

        status = crashed(exc, crash_log.write(exc))
    sys.exit(status)
