"""The result of checking a planned size by simulation
(:func:`pairboot.planning.simulation.simulate_power`).  Data only, as
:mod:`pairboot.results.compare`: its prose is the report layer's."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class SimulatedPower:
    """The share of simulated evaluations of the planned size whose test rejects the null.

    Attributes
    ----------
    power : float
        The share of the ``n_simulations`` simulated evaluations whose verdict rejects
        the null hypothesis (the interval excludes 0 on the tested side, or the margin's
        boundary).
    monte_carlo_error : float
        Its Monte Carlo standard error, ``sqrt(power (1 - power) / n_simulations)``: 0
        when all or none of the simulations reject, and rough when few do or few do not
        (read ``monte_carlo_interval`` there).
    monte_carlo_interval : (float, float)
        Wilson's 95% interval for the power from the simulations (never a point, at any
        number of them).
    n_simulations : int
    n_items : int
        Items per simulated evaluation (with groups: their mean over the simulations,
        rounded; group sizes vary).
    n_groups : int or None
        Groups per simulated evaluation (None without groups).
    delta : float
        The true difference B - A of the simulated evaluations, on the metric's scale.
    seconds : float
        Wall time of the simulation.
    method_words : str
        What was simulated and how the interval was computed, in a few words.
    n_runs : (int, int) or None
        A's and B's runs in each simulated evaluation (None without ``runs="seeds"``).
    seed : int
        The seed of the simulation (drawn when none was given): the same seed gives the
        same ``power``.
    """

    power: float
    monte_carlo_error: float
    n_simulations: int
    n_items: int
    n_groups: int | None
    delta: float
    seconds: float
    method_words: str
    n_runs: tuple[int, int] | None = None
    seed: int | None = None
    monte_carlo_interval: tuple[float, float] | None = None

    @property
    def rough(self) -> bool:
        """Whether the standard error is too rough to quote: fewer than 10 simulations
        rejected, or fewer than 10 did not (the normal approximation's rule)."""
        rejected = round(self.power * self.n_simulations)
        return min(rejected, self.n_simulations - rejected) < 10

    def to_dict(self) -> dict:
        """The fields as a dict (the runs and the interval as lists)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("n_runs", "monte_carlo_interval"):
            if out[name] is not None:
                out[name] = list(out[name])
        return out
