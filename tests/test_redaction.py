"""The one redaction of a database's secrets (tracker/redaction.py), on generated passwords in
every form an address carries one, and at each place a line leaves the tracker: the command
line's streams, the errors a player is shown, the app's notifications, the crash log."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator

import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from passwords import (
    DATABASE,
    HOST,
    PASSWORDS,
    leaks,
    libpq_form,
    typed_password,
    url_forms,
)

from tracker import crash_log, redaction
from tracker.db import DatabaseProblem, SessionFactory
from tracker.errors import ConnectionLost, InvalidInput

FUZZ = settings(
    max_examples=examples(200),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
FORMS = url_forms()
FORMS_PERCENT = "user:password@, percent-encoded"


@pytest.fixture(autouse=True)
def forget() -> Iterator[None]:
    """Each test starts with no database remembered, and leaves none."""
    redaction.remember("")
    yield
    redaction.remember("")


@st.composite
def addresses(draw: st.DrawFn) -> tuple[str, str, str]:
    """(form's name, password, address)."""
    form = draw(st.sampled_from([*FORMS, "libpq key=value"]), label="form")
    password = draw(typed_password(form), label="password")
    write = FORMS.get(form, libpq_form)
    return form, password, write(password)


def baseline(form: str) -> str:
    return FORMS.get(form, libpq_form)("")


def driver_messages(address: str, password: str) -> list[str]:
    """What a driver or a library may write about the address: it whole, the password as the
    driver got it, and the tail of a password that an unencoded @ sent as the host."""
    tail = password.split("@", 1)[-1]
    return [
        f"cannot open {address} (connection refused)",
        f'password authentication failed for "{password}"',
        f"failed to resolve host '{tail}@{HOST}': Name or service not known",
        f"invalid connection option {address!r}",
    ]


@FUZZ
@given(drawn=addresses())
def test_a_shown_address_has_no_secret_and_still_names_the_database(
    drawn: tuple[str, str, str],
) -> None:
    form, password, address = drawn
    shown = redaction.shown(address)
    assert leaks(shown, password, redaction.shown(baseline(form))) == [], shown
    for part in (HOST, DATABASE):
        if part not in password:
            assert part in shown, shown


@FUZZ
@given(drawn=addresses())
def test_every_line_is_scrubbed_of_the_remembered_database_secrets(
    drawn: tuple[str, str, str],
) -> None:
    form, password, address = drawn
    redaction.remember(address)
    lines = redaction.scrub("\n".join(driver_messages(address, password)))
    assert leaks(lines, password, "\n".join(driver_messages(baseline(form), ""))) == [], lines


@FUZZ
@given(drawn=addresses())
def test_an_address_in_any_line_is_scrubbed_unremembered(drawn: tuple[str, str, str]) -> None:
    """A line that quotes a URL or a libpq string is scrubbed even of a database the process
    was not given (a second one, named in a message)."""
    form, password, address = drawn
    if form.startswith("user:password@") and " " in address:
        return  # a space ends the address in running text: only remember() knows the rest
    line = "tracker: cannot open {}: check the password".format
    said = redaction.scrub(line(address))
    assert leaks(said, password, redaction.scrub(line(baseline(form)))) == [], said


def test_a_path_is_shown_as_it_is() -> None:
    for path in ("/tmp/campaign.db", "saves/norway 1940.db", "sqlite:///tmp/campaign.db",
                 "C:\\campaigns\\keys.db"):  # fmt: skip
        assert redaction.shown(path) == path


def test_the_usual_address_shows_as_sqlalchemy_shows_it() -> None:
    """A password-free rest: the settings remember a database by this text."""
    url = "postgresql+psycopg://club:s3cret@db.example:5432/norway"
    assert redaction.shown(url) == "postgresql+psycopg://club:***@db.example:5432/norway"


@FUZZ
@given(password=PASSWORDS, split=st.integers(1, 30))
def test_the_command_lines_streams_are_scrubbed_even_across_writes(
    password: str, split: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever a command prints, logs or warns, however the text is cut into writes."""
    address = FORMS["user:password@, percent-encoded"](password)
    template = "imported 'Norway' into {0}\nsaid {1} twice: {1}\nstderr too: {1}\n".format
    text = template(address, password)
    capsys.readouterr()
    with redaction.scrubbed_output():
        redaction.remember(address)
        for start in range(0, len(text), split):
            sys.stdout.write(text[start : start + split])
        print(f"stderr too: {password}", file=sys.stderr)
    out, err = capsys.readouterr()
    assert leaks(out + err, password, template(baseline(FORMS_PERCENT), "")) == [], out + err
    assert out.startswith(f"imported 'Norway' into postgresql+psycopg://club:***@{HOST}")


@FUZZ
@given(drawn=addresses())
def test_the_errors_a_player_is_shown_are_scrubbed(drawn: tuple[str, str, str]) -> None:
    form, password, address = drawn
    redaction.remember(address)
    said = driver_messages(address, password)
    texts = [
        str(DatabaseProblem(said[0])),
        ConnectionLost(said[1]).message,
        "; ".join(ConnectionLost(said[2]).errors.values()),
        "; ".join(InvalidInput({"file": said[3]}).errors.values()),
    ]
    assert leaks("\n".join(texts), password, "\n".join(driver_messages(baseline(form), ""))) == []


def test_the_crash_log_is_scrubbed(config_dir: object, capsys: pytest.CaptureFixture[str]) -> None:
    password = "Tr0ub4dor&3@horse"
    address = FORMS["user:password@, as typed"](password)
    redaction.remember(address)
    try:
        raise RuntimeError(f"the driver said: {address} / {password}")
    except RuntimeError as error:
        path = crash_log.write(error)
        said = crash_log.say(error, path)
        fallback = crash_log.say(error, None)
    assert path is not None
    text = path.read_text()
    assert "RuntimeError" in text and "the driver said" in text
    for line in (text, said, fallback):
        assert leaks(line, password, "") == [], line


async def test_the_apps_notifications_are_scrubbed(factory: SessionFactory) -> None:
    from tracker.app import TrackerApp

    password = "correct horse battery"
    address = FORMS["?password=, encoded"](password)
    redaction.remember(address)
    app = TrackerApp(factory)
    async with app.run_test(size=(120, 40)) as pilot:
        app.notify(f"cannot reach {address} ({password})", title=f"about {password}")
        await pilot.pause()
        shown = [f"{toast.title} {toast.message}" for toast in app._notifications]
    assert shown and all(leaks(text, password, "") == [] for text in shown), shown


def test_no_stream_is_left_scrubbed() -> None:
    before = sys.stdout, sys.stderr
    with redaction.scrubbed_output():
        assert sys.stdout is not before[0]
    assert (sys.stdout, sys.stderr) == before
    assert isinstance(io.StringIO(), io.TextIOBase)
