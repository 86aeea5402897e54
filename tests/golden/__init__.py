"""Golden results of ``pairboot.compare`` (see ``tests/test_golden.py``)."""
