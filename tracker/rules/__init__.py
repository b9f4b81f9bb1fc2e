"""Pure game rules: plain values in and out, no third-party imports; every function checks its
arguments (checks.py: a ValueError names the argument and its range; a bool is no int)."""
