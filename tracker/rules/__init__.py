"""Pure game rules: plain values in, plain values out; no third-party imports."""
