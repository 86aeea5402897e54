"""The noise floor of a comparison (:class:`NoiseFloor`): what two runs of the same build,
compared as A and B (an A/A comparison), say re-running alone moves a difference by.

Data only, as every result: its words are written by :mod:`pairboot.report.noise`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from pairboot.rendering import rendered
from pairboot.results.compare import ConfidenceInterval, json_safe


@dataclass(frozen=True, slots=True, repr=False)
class NoiseFloor:
    """Two runs of the same build compared with each other (:func:`pairboot.noise_floor`).

    The A/A difference's interval, moved to 0 (``floor``), is how far re-running the
    same build alone moves a difference at this size: a B - A inside it is no more than
    re-running produces.  ``minimum_detectable`` is the smallest true difference a
    test at this size detects with 80% power when re-running is its only noise (B as
    noisy as A, every item moved alike).

    Attributes
    ----------
    estimate : float
        The A/A difference, ``metric(rerun) - metric(base)``, as measured (not scaled).
    confidence_interval : ConfidenceInterval
        Its two-sided interval at ``confidence_level`` (``method``), as measured: the
        A/A test.  It excludes 0 (:attr:`rejects`) at about ``1 - confidence_level`` of
        the time when the two runs are of the same build, independent.
    p_value : float
        The A/A test's two-sided p-value.
    standard_error : float
        The A/A difference's standard error at :attr:`n_units` units (scaled).
    floor : ConfidenceInterval
        The interval for 0: ``confidence_interval - estimate``, times :attr:`scale`.
    minimum_detectable : float or None
        ``(z_{1-alpha/2} + z_{0.8}) * standard_error`` (one-sided, ``alternative``:
        ``z_{1-alpha}``), as compare()'s :attr:`~pairboot.CompareResult.minimum_detectable`.
    n_units : int
        The size the floor is stated at, in ``unit``.
    unit : str
        ``"items"``, or ``"groups"`` with groups (whole groups resampled).
    measured_units : int
        The A/A's own units; when they differ from ``n_units`` the floor, standard error
        and minimum detectable difference are scaled by ``scale = sqrt(measured_units /
        n_units)`` (the noise of a mean over units shrinks as one over their root).
    n_trials : int or None
        With ``runs="samples"``: the trials of an item (the tables' columns); the floor
        holds for that many only.
    confidence_level, method, alternative, metric, runs, estimand, n_resamples, seed, version
        The A/A comparison's (``alternative``: the side the minimum detectable
        difference is of; the A/A interval is two-sided).
    warnings : tuple of str
        The A/A comparison's warnings.
    """

    estimate: float
    confidence_interval: ConfidenceInterval
    p_value: float
    standard_error: float
    floor: ConfidenceInterval
    minimum_detectable: float | None
    n_units: int
    unit: str
    measured_units: int
    n_trials: int | None
    confidence_level: float
    method: str
    alternative: str
    metric: str
    runs: str | None
    estimand: str
    n_resamples: int
    seed: int
    version: str
    warnings: tuple[str, ...] = ()

    @property
    def scale(self) -> float:
        """``sqrt(measured_units / n_units)``: 1 at the A/A's own size."""
        return math.sqrt(self.measured_units / self.n_units)

    @property
    def half_width(self) -> float:
        """Half the floor's width: re-running moves a difference by about +- this."""
        return (self.floor.high - self.floor.low) / 2.0

    @property
    def rejects(self) -> bool:
        """Whether the A/A interval excludes 0: the two runs differ by more than
        re-running explains at the level (not the same build, or not independent)."""
        low, high = self.confidence_interval
        return bool(low > 0 or high < 0)

    def within(self, difference: float) -> bool:
        """Whether ``difference`` (a B - A at :attr:`n_units`) lies inside the floor."""
        return bool(self.floor.low <= difference <= self.floor.high)

    def to_dict(self) -> dict:
        """A JSON-ready dict of the fields, with ``scale``, ``half_width`` and
        ``rejects``."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value._asdict() if isinstance(value, ConfidenceInterval) else value
        out.update(scale=self.scale, half_width=self.half_width, rejects=self.rejects)
        return json_safe(out)

    def __str__(self) -> str:
        return rendered(self, "text")

    def __repr__(self) -> str:
        return (f"NoiseFloor(floor=ConfidenceInterval(low={self.floor.low:.6g}, "
                f"high={self.floor.high:.6g}), half_width={self.half_width:.6g}, "
                f"minimum_detectable={self.minimum_detectable!r}, estimate="
                f"{self.estimate:.6g}, p_value={self.p_value:.4g}, n_units={self.n_units}, "
                f"measured_units={self.measured_units})")
