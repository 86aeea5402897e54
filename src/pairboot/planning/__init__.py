"""Planning an evaluation before it is run (issue 26): :func:`power` answers how many
items, groups or seeds it takes to detect a difference, the power at a size, and the
smallest difference a size detects -- from what the user knows, or from a pilot.

- :mod:`~pairboot.planning.api` -- :func:`power`, the entry point, and
  :func:`detectable_difference` (a comparison's own smallest detectable difference);
- :mod:`~pairboot.planning.model` -- the tests and variance models, and the three
  answers read off them (:func:`size_for`, :func:`mde_for`, :func:`runs_for`);
- :mod:`~pairboot.planning.noncentral` -- the noncentral t's tails (the paired t's power);
- :mod:`~pairboot.planning.known` -- the models from parameters (sd, accuracies, groups,
  seeds); :mod:`~pairboot.planning.pilot` -- from a pilot's design;
- :mod:`~pairboot.planning.family` -- a family's sizes under Bonferroni and max-t;
- :mod:`~pairboot.planning.labels` -- :func:`gold_labels`, the gold labels a
  prediction-powered comparison needs (:func:`pairboot.compare_ppi`);
- :mod:`~pairboot.planning.simulation` -- :func:`simulate_power`, a planned size checked
  by running the real interval on simulated evaluations (:mod:`.simulated_data` draws
  them from a pilot);
- :mod:`~pairboot.planning.sequential` -- :func:`items_to_decision`, the items a
  confidence sequence (:func:`pairboot.sequential`) takes to decide, by simulation.
"""

from pairboot.planning.api import detectable_difference, power
from pairboot.planning.sequential import ItemsToDecision, items_to_decision
from pairboot.planning.simulation import simulate_power

__all__ = ["ItemsToDecision", "detectable_difference", "items_to_decision", "power",
           "simulate_power"]
