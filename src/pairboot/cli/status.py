"""The command line's exit statuses (a signal's are :mod:`~pairboot.cli.signals`')."""

EXIT_OK = 0
EXIT_FAILED = 1
"""``--fail-if`` was given and the verdict fails it."""
EXIT_USAGE = 2
"""Bad input or usage, or memory run out: one line ``error: ...``."""
EXIT_INTERNAL = 3
"""An internal error (a bug): one line too."""
