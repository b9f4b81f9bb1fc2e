"""Pure game rules: plain values in, plain values out; no third-party imports. Every function
checks its arguments (checks.py): a ValueError names the argument and its allowed range, and a
bool is never taken for an int."""
