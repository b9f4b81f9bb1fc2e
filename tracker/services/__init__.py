"""The only code that writes: one function per user action, one transaction each."""
