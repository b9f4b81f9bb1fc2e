"""How deep the suite searches: each property test draws the examples it declares times
TRACKER_TEST_DEPTH, at least one (`examples(n)`), the crash test kills that share of its
child processes, and the serve test closes that share of its tabs abruptly (at least four).

`make test` runs at depth 0.5, so that the whole suite fits its minutes on two cores; every
test still runs, each on fewer generated inputs. `make test TEST_DEPTH=1` draws every example
declared (run before a release, and after changing a service, a rule or a parser); larger
depths search further by hand. Examples are derandomized: the same depth draws the same inputs
on every run and machine.
"""

from __future__ import annotations

import os

DEPTH = float(os.environ.get("TRACKER_TEST_DEPTH", "1"))


def examples(declared: int) -> int:
    """The examples a property test draws at this depth: at least one."""
    return max(1, round(declared * DEPTH))
