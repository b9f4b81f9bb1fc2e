"""`python -m tracker`."""

from tracker.cli import run

run()
