"""Closed forms and corrections, pure functions of numbers: intervals and their Monte
Carlo error, p-values, Student's t, proportions (Tango, Wilson, McNemar), the
hypotheses and their boundaries, multiple comparisons (max-t, Holm, Bonferroni) and the
false discovery rate.  Imports nothing of the package but its errors and options: every
layer above may read it.
"""
