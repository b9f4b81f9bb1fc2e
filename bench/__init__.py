"""The benchmark (`make bench`): seeded campaign files, then five ratios.

Not part of the wheel (pyproject packages only `tracker`), nor of `make test` beyond a smoke run.
"""
