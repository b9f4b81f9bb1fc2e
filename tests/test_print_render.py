"""The printable record sheet in a real browser: Debian's chromium, headless, renders it (the
screenshot is not blank) and prints it to PDF on the expected number of A4 and Letter pages.

`make system-deps` (a step of `make test`) installs chromium and poppler-utils' pdfinfo. Every
chromium is started at once with its own fresh profile, so the module costs about one start.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from campaign_files import real_campaign_file

from tracker.cli.common import one_named
from tracker.db import SessionFactory, make_engine, session_factory
from tracker.publish import sheet_pages
from tracker.services import damage, fleet, mines, printing, sheet
from tracker.services.damage import CriticalRequest, HitRequest
from tracker.services.fleet import ShipFields

CHROMIUM = Path("/usr/bin/chromium")
TIMEOUT_S = 120
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--no-pdf-header-footer",
)  # fmt: skip
# (squadron, paper) -> pages: the sample's Force G fits one page of either size; the twelve
# ships of Home Fleet fill two (five below the heading, seven on the next) and their notes box
# goes over to a third.
PAGES = {
    ("Force G", "a4"): 1,
    ("Force G", "letter"): 1,
    ("Home Fleet", "a4"): 3,
    ("Home Fleet", "letter"): 3,
}
PAGE_SIZES = {"a4": "(A4)", "letter": "(letter)"}

pytestmark = pytest.mark.skipif(
    not CHROMIUM.is_file() or shutil.which("pdfinfo") is None,
    reason="needs /usr/bin/chromium and pdfinfo: run `make system-deps`",
)


@dataclass(frozen=True)
class Rendered:
    screenshot: Path
    pdfs: dict[tuple[str, str], Path]


def _home_fleet(factory: SessionFactory, side_id: int) -> None:
    """Twelve destroyers, some with a hit, a critical and fuel: a long sheet to paginate."""
    squadron = fleet.create_squadron(factory, side_id=side_id, name="Home Fleet")
    for number in range(12):
        fields = ShipFields(
            name=f"Destroyer {number + 1}", class_name="Tribal", type_abbrev="DD",
            nation="Great Britain", speed_kn=36, armour_class="E", structure_max=6 + number,
            flotation_max=5 + number, points_base=200,
        )  # fmt: skip
        ship = fleet.create_ship(factory, squadron_id=squadron, fields=fields)
        if number % 4 == 0:
            mines.save_counter(factory, ship_id=ship, counter_size="small", speed_rating=4,
                               fuel_full=2, fuel_empty=1)  # fmt: skip
        if number % 3 == 0:
            boiler = (CriticalRequest(effect="Boiler room"),)
            hit = HitRequest(ship_id=ship, structure=4, criticals=boiler)
            damage.record_hit(factory, request=hit)


def _chromium(profile: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    root = tmp_path_factory.mktemp("render")
    engine = make_engine(str(real_campaign_file(root / "campaign.db")))
    factory = session_factory(engine)
    force_g = one_named(printing.named(factory, depth=3), "Force G", "squadron")
    exeter = printing.load_printed_sheet(factory, squadron_id=force_g).ships[0].ship
    damage.record_hit(factory, request=HitRequest(ship_id=exeter.id, structure=8, fire_delta=1,
                      criticals=(CriticalRequest(effect="A turret out"),)))  # fmt: skip
    _home_fleet(factory, sheet.load_record_sheet(factory, squadron_id=force_g).side_id)
    pages: dict[tuple[str, str], Path] = {}
    for squadron, paper in PAGES:
        path = root / f"{squadron.replace(' ', '-')}-{paper}.html"
        squadron_id = one_named(printing.named(factory, depth=3), squadron, "squadron")
        sheet_pages.write_sheet(factory, squadron_id=squadron_id, path=path, paper=paper)
        pages[(squadron, paper)] = path
    engine.dispose()

    screenshot = root / "sheet.png"
    jobs = [_chromium(root / "profile-screenshot", "--window-size=800,1000",
                      f"--screenshot={screenshot}", pages[("Force G", "a4")].as_uri())]  # fmt: skip
    pdfs = {key: page.with_suffix(".pdf") for key, page in pages.items()}
    for key, page in pages.items():
        profile = root / f"profile-{page.stem}"
        jobs.append(_chromium(profile, f"--print-to-pdf={pdfs[key]}", page.as_uri()))
    finish(jobs)
    return Rendered(screenshot, pdfs)


def finish(jobs: list[subprocess.Popen[bytes]]) -> None:
    """Wait for every chromium to exit cleanly; kill those still running after a failure."""
    try:
        for job in jobs:
            output, _ = job.communicate(timeout=TIMEOUT_S)
            assert job.returncode == 0, output.decode(errors="replace")[-2000:]
    finally:
        for job in jobs:
            if job.poll() is None:
                job.kill()
                job.communicate()


# --- a PNG decoder small enough to read (no image library in our dependencies) --------------


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB or RGBA bytes) of an 8-bit, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks = 8, []
    header = b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and interlace == 0 and colour in (2, 6), (depth, colour, interlace)
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(kind, line, previous, channels)
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def _unfilter(kind: int, line: bytearray, previous: bytearray, channels: int) -> None:
    """Undo one scanline's PNG filter in place (None, Sub, Up, Average, Paeth)."""
    if kind == 0:
        return
    for i in range(len(line)):
        left = line[i - channels] if i >= channels else 0
        up = previous[i]
        if kind == 1:
            predicted = left
        elif kind == 2:
            predicted = up
        elif kind == 3:
            predicted = (left + up) // 2
        else:
            corner = previous[i - channels] if i >= channels else 0
            estimate = left + up - corner
            distances = (abs(estimate - left), abs(estimate - up), abs(estimate - corner))
            predicted = (left, up, corner)[distances.index(min(distances))]
        line[i] = (line[i] + predicted) & 0xFF


def ink(rows: list[bytes], channels: int) -> tuple[float, float]:
    """(share of pixels that are not white, share that are dark) of some rows of pixels."""
    inked = dark = total = 0
    for row in rows:
        for x in range(0, len(row), channels):
            red, green, blue = row[x], row[x + 1], row[x + 2]
            total += 1
            if red < 250 or green < 250 or blue < 250:
                inked += 1
                if red + green + blue < 200:
                    dark += 1
    return inked / total, dark / total


# --- the tests ----------------------------------------------------------------------------------


def test_the_screenshot_is_not_blank(rendered: Rendered) -> None:
    assert_not_blank(rendered.screenshot, most=0.5)


def assert_not_blank(screenshot: Path, *, most: float) -> None:
    """An 800x1000 screenshot of a printed page: a white margin, then ink, much of it black."""
    width, height, rows = png_pixels(screenshot.read_bytes())
    channels = len(rows[0]) // width
    assert (width, height) == (800, 1000)
    # The margin above the heading is white: a decoding mistake would show there first.
    assert ink([row[: 40 * channels] for row in rows[:20]], channels) == (0.0, 0.0)
    # Text, borders and boxes: a few percent of the window (up to `most`), much of it black.
    inked, dark = ink(rows, channels)
    assert 0.02 < inked < most, inked
    assert dark > 0.01, dark


@pytest.mark.parametrize(("squadron", "paper"), list(PAGES))
def test_the_pdf_has_the_expected_pages(rendered: Rendered, squadron: str, paper: str) -> None:
    info = subprocess.run(
        ["pdfinfo", str(rendered.pdfs[(squadron, paper)])],
        capture_output=True, text=True, check=True, timeout=30,
    ).stdout  # fmt: skip
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    assert int(fields["Pages"]) == PAGES[(squadron, paper)], info
    assert fields["Page size"].strip().endswith(PAGE_SIZES[paper]), info


def test_no_ship_is_split_across_pages(rendered: Rendered) -> None:
    """Each ship's block, from its name to its notes, lies on one page (break-inside: avoid)."""
    pdf = rendered.pdfs[("Home Fleet", "a4")]
    pages = [
        subprocess.run(
            ["pdftotext", "-layout", "-f", str(page), "-l", str(page), str(pdf), "-"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout
        for page in range(1, PAGES[("Home Fleet", "a4")] + 1)
    ]  # fmt: skip
    for number in range(1, 13):
        holding = [i for i, text in enumerate(pages) if f"Destroyer {number} " in text]
        assert len(holding) == 1, (number, holding)
    for text in pages:
        ships = sum(f"Destroyer {number} " in text for number in range(1, 13))
        assert text.count("Criticals in force") == ships
        assert text.count("Flotation") == ships + ("Flotation)" in text)  # the legend's
