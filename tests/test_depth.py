"""Every property test's examples go through tests/depth.py, so TEST_DEPTH scales them all: a
number written straight into `max_examples` would ignore it (too many in `make test`, too few
in a deep run)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
WRITTEN = re.compile(r"max_examples\s*=\s*(?!examples\(|max\(1, examples\(|MAX_EXAMPLES\b)")


def test_every_property_test_draws_its_examples_through_the_depth() -> None:
    straight = [
        f"{path.relative_to(TESTS)}:{number}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if WRITTEN.search(line) and path.name != "test_depth.py"
    ]
    assert not straight, "use max_examples=examples(N) (tests/depth.py):\n" + "\n".join(straight)
