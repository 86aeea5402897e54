"""``python -m pairboot``: the command line."""

from pairboot.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
