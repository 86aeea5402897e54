"""Golden results of ``pairboot.compare`` (see ``tests/reference/test_golden.py``)."""
