"""Run a command beside a throw-away PostgreSQL cluster: `python tests/pg_cluster.py CMD...`.

The cluster lives in a temporary folder (initdb, then pg_ctl on a free loopback port) and is
stopped and removed when the command ends, however it ends. The command sees its URL in
TRACKER_TEST_PG (a database `tracker_test`, user `postgres`, password `tracker-test`), and the
cluster's folder in TRACKER_TEST_PG_DIR so a test can stop and start the server itself.
With TRACKER_TEST_PG_CLUSTERS=N it starts N clusters, named in TRACKER_TEST_PG_0.. and
TRACKER_TEST_PG_DIR_0..; each pytest-xdist worker takes its own (tests/conftest.py).
As root (CI here), the server runs as the `postgres` user that Debian's package creates, since
PostgreSQL refuses to run as root. Without PostgreSQL installed, the command runs without it
and the PostgreSQL tests say why they were skipped.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

PASSWORD = "tracker-test"
DATABASE = "tracker_test"


def find_bin(name: str) -> str | None:
    """initdb and pg_ctl: on PATH, else in Debian's versioned folder."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    return str(candidates[0]) if candidates else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def url_of(port: int) -> str:
    """The URL of the database `start` makes on that port."""
    return f"postgresql+psycopg://postgres:{PASSWORD}@127.0.0.1:{port}/{DATABASE}"


def start(folder: Path, port: int, *, durable: bool = False) -> None:
    """initdb into folder/data and start the server on 127.0.0.1:port; raise if it fails.
    The tests' server skips fsync (a cluster thrown away after the run); a `durable` one
    syncs each commit to the disk, as a player's server does (the benchmark's)."""
    initdb, pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
    assert initdb and pg_ctl
    data = folder / "data"
    password_file = folder / "password"
    password_file.write_text(PASSWORD)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(password_file, "postgres", "postgres")
    quiet = {"stdout": subprocess.DEVNULL}
    subprocess.run(
        as_server_user([initdb, "-D", str(data), "-U", "postgres", "-A", "scram-sha-256",
                        f"--pwfile={password_file}", "-E", "UTF8", "--no-sync"]),
        check=True, **quiet,
    )  # fmt: skip
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
    options += "" if durable else " -c fsync=off"
    (folder / "options").write_text(options)
    start_server(folder)
    env = {**os.environ, "PGPASSWORD": PASSWORD}
    subprocess.run(
        ["psql", "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", "postgres",
         "-c", f"CREATE DATABASE {DATABASE}"],
        check=True, env=env, **quiet,
    )  # fmt: skip


def start_server(folder: Path) -> None:
    """Start the cluster's server (again) with the options it was made with; wait for it."""
    pg_ctl = find_bin("pg_ctl")
    assert pg_ctl
    options = (folder / "options").read_text()
    subprocess.run(
        as_server_user([pg_ctl, "-D", str(folder / "data"), "-o", options, "-l",
                        str(folder / "log"), "-w", "start"]),
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip


def stop(folder: Path) -> None:
    pg_ctl = find_bin("pg_ctl")
    if pg_ctl and (folder / "data" / "postmaster.pid").exists():
        subprocess.run(
            as_server_user([pg_ctl, "-D", str(folder / "data"), "-m", "immediate", "-w", "stop"]),
            stdout=subprocess.DEVNULL, check=False,
        )  # fmt: skip


@contextmanager
def cluster(*, durable: bool = False) -> Iterator[tuple[Path, str]]:
    """A cluster started in a new temporary folder (see `start`): the folder and its database's
    URL; stopped and removed when the block ends, however it ends."""
    folder = Path(tempfile.mkdtemp(prefix="tracker-pg-"))
    try:
        os.chmod(folder, 0o755)
        port = free_port()
        start(folder, port, durable=durable)
        yield folder, url_of(port)
    finally:
        stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def new_database(url: str) -> Iterator[str]:
    """A new, empty database of its own on the cluster `url` names (TRACKER_TEST_PG), dropped
    when the block ends: its URL, password included."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    cluster = make_url(url)
    name = f"t_{os.getpid()}_{os.urandom(3).hex()}"
    admin = create_engine(
        cluster.set(database="postgres"), isolation_level="AUTOCOMMIT", pool_pre_ping=True
    )
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield cluster.set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def main(command: list[str]) -> int:
    if not command:
        print(__doc__, file=sys.stderr)
        return 2
    if not (find_bin("initdb") and find_bin("pg_ctl")):
        print("pg_cluster: PostgreSQL is not installed; running without it", file=sys.stderr)
        return subprocess.call(command)
    # One cluster per pytest-xdist worker: a test that stops its server (connection loss)
    # must not pull the database from under a test running in the other worker.
    count = max(1, int(os.environ.get("TRACKER_TEST_PG_CLUSTERS", "1")))
    # A SIGTERM (a CI time-out, a killed run) still stops and removes the clusters.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    child: subprocess.Popen[bytes] | None = None
    env = dict(os.environ)
    with ExitStack() as clusters:
        try:
            for number in range(count):
                folder, url = clusters.enter_context(cluster())
                env[f"TRACKER_TEST_PG_{number}"] = url
                env[f"TRACKER_TEST_PG_DIR_{number}"] = str(folder)
            env["TRACKER_TEST_PG"] = env["TRACKER_TEST_PG_0"]
            env["TRACKER_TEST_PG_DIR"] = env["TRACKER_TEST_PG_DIR_0"]
            child = subprocess.Popen(command, env=env)
            return child.wait()
        finally:
            if child is not None and child.poll() is None:
                child.terminate()
                child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
