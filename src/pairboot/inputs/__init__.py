"""The inputs' checks, before any resampling: pairing two systems' scores, labels
(groups, strata) to codes, item keys, and the precision of scores read as text.  Reads
the metrics and the engine's keys; the readers (:mod:`pairboot.io`) and the pipeline
(:mod:`pairboot.core`) use it.
"""
