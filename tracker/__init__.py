"""Campaign tracker for WW2 naval wargames."""

__version__ = "0.1.0"
