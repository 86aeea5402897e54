"""``python -m pairboot``: the command line."""

from pairboot.cli import run

if __name__ == "__main__":
    run()
