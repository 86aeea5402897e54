"""Every result type, data only: two systems (:mod:`.compare`), a family
(:mod:`.family`), the items behind a number (:mod:`.items`), a plan (:mod:`.power`) and
its simulation (:mod:`.simulation`).  Their text is the report layer's, reached through
the one hook :func:`pairboot.rendering.rendered`.
"""
