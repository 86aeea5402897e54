"""Several runs per system: the two-way analysis, its design variance, two systems and
families."""
