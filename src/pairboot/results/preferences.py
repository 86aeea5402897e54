"""Ratings of systems judged against each other (:class:`PreferenceResult`), each system's
line (:class:`SystemRating`) and the judge's position bias (:class:`PositionBias`).

Data only, as every result: the words are written by :mod:`pairboot.report.preferences`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from pairboot.rendering import rendered
from pairboot.results.compare import ConfidenceInterval, json_safe

ELO_SCALE = 400 / math.log(10)
"""Logits to Elo points: a difference of 400 is odds of 10 to 1."""


@dataclass(frozen=True, slots=True)
class SystemRating:
    """One system's rating, rank and win rate.

    Attributes
    ----------
    name : str
    rating : float
        Elo-scale rating: ``anchor_rating + ELO_SCALE * (theta - theta_anchor)``.
    interval : ConfidenceInterval
        The rating's percentile interval from the bootstrap.
    rank : int
        1 + the number of systems with a higher rating.
    rank_interval : (int, int)
        Simultaneous rank set (all ranks together at the level): 1 + the systems
        surely better, M - the systems surely worse, "surely" from max-t over every
        pair's rating difference on the same replicates.
    p_best : float
        The share of replicates in which this system has the highest rating.
    win_rate : float
        Wins (ties as half with ``ties="half"``; not counted with ``"separate"``) over
        battles, against the baseline (or every opponent), weights counted; NaN for
        the baseline itself (its interval too).
    win_interval : ConfidenceInterval
    tie_rate : float or None
        Ties over battles, with ``ties="separate"``.
    tie_interval : ConfidenceInterval or None
    wins, ties, losses : float
        Weighted counts of the battles behind the win rate.
    """

    name: str
    rating: float
    interval: ConfidenceInterval
    rank: int
    rank_interval: tuple[int, int]
    p_best: float
    win_rate: float
    win_interval: ConfidenceInterval
    tie_rate: float | None
    tie_interval: ConfidenceInterval | None
    wins: float
    ties: float
    losses: float

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["interval"] = self.interval._asdict()
        out["win_interval"] = self.win_interval._asdict()
        out["tie_interval"] = None if self.tie_interval is None else self.tie_interval._asdict()
        out["rank_interval"] = list(self.rank_interval)
        return out


@dataclass(frozen=True, slots=True)
class PositionBias:
    """How the verdict depends on the order the answers were shown in.

    Attributes
    ----------
    n_swapped : float
        Pairs of games on one prompt and pair of systems, the second with the answers
        swapped (weights not counted).
    flip_rate : float
        Among them, the share whose winner (win, tie or loss, read off the verdict's
        side) differs between the two orders.
    flip_interval : ConfidenceInterval
    first_rate : float
        The first-shown answer's share of the wins (ties half, weights counted) over the
        battles in either order: 0.5 without a bias, when each pair is judged both ways.
    first_interval : ConfidenceInterval
    ratings_first, ratings_second : dict or None
        Every system's rating from the first games only and from the swapped games only.
    """

    n_swapped: float
    flip_rate: float
    flip_interval: ConfidenceInterval
    first_rate: float
    first_interval: ConfidenceInterval
    ratings_first: dict | None
    ratings_second: dict | None

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["flip_interval"] = self.flip_interval._asdict()
        out["first_interval"] = self.first_interval._asdict()
        return out


@dataclass(frozen=True, slots=True, repr=False)
class PreferenceResult:
    """The answer of :func:`pairboot.compare_preferences`: ratings, ranks and win rates
    of systems from battles, with intervals from one bootstrap over prompts.

    Attributes
    ----------
    systems : tuple of SystemRating
        Best first.
    model : str
        ``"bradley-terry"`` or ``"davidson"``.
    ties : str
        ``"half"`` (a tie is half a win) or ``"separate"`` (win and tie rates apart).
    orders : str
        ``"both"``, ``"first"`` or ``"second"``: the games the ratings use.
    cluster : str
        ``"prompt"``: every battle of a prompt resampled together; ``"battle"``: each
        battle alone (the design of evalica and the Arena notebooks).
    baseline : str or None
        The win rates are against it (None: against every opponent).
    anchor, anchor_rating : str or None, float
        The system held at ``anchor_rating`` (None: the mean rating is).
    tie_parameter : float or None
        Davidson's ``nu``; ``tie_interval`` its interval.
    position_bias : PositionBias or None
        When games carry their order.
    ridge : float
        The penalty of the fits that needed one (0: none did); ``n_ridged`` replicates.
    n_prompts, n_battles, confidence_level, n_resamples, seed, version, warnings
    bootstrap_distribution : ndarray
        (n_resamples, M) Elo ratings, the columns in the order of ``names``.
    names : tuple of str
        The systems as the columns of ``bootstrap_distribution``.
    """

    systems: tuple[SystemRating, ...]
    model: str
    ties: str
    orders: str
    cluster: str
    baseline: str | None
    anchor: str | None
    anchor_rating: float
    tie_parameter: float | None
    tie_interval: ConfidenceInterval | None
    position_bias: PositionBias | None
    ridge: float
    n_ridged: int
    n_prompts: int
    n_battles: int
    confidence_level: float
    n_resamples: int
    seed: int
    version: str
    names: tuple[str, ...]
    bootstrap_distribution: np.ndarray
    warnings: tuple[str, ...] = ()

    def rating(self, name: str) -> SystemRating:
        """The line of system ``name``."""
        for s in self.systems:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "bootstrap_distribution"}
        out["systems"] = [s.to_dict() for s in self.systems]
        out["tie_interval"] = None if self.tie_interval is None else self.tie_interval._asdict()
        out["position_bias"] = (None if self.position_bias is None
                                else self.position_bias.to_dict())
        return json_safe(out)

    def to_frame(self):
        """One row per system, best first, as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_frame() needs pandas: pip install pandas") from None
        return pd.DataFrame([{
            "system": s.name, "rating": s.rating, "low": s.interval.low,
            "high": s.interval.high, "rank": s.rank, "rank_low": s.rank_interval[0],
            "rank_high": s.rank_interval[1], "p_best": s.p_best, "win_rate": s.win_rate,
            "win_low": s.win_interval.low, "win_high": s.win_interval.high,
            **({"tie_rate": s.tie_rate, "tie_low": s.tie_interval.low,
                "tie_high": s.tie_interval.high} if s.tie_interval is not None else {}),
            "wins": s.wins, "ties": s.ties, "losses": s.losses} for s in self.systems])

    def summary(self) -> str:
        """The text report (``print(result)`` shows it)."""
        return rendered(self, "text")

    def __str__(self) -> str:
        return rendered(self, "text")

    def __repr__(self) -> str:
        best = self.systems[0]
        return (f"PreferenceResult(model={self.model!r}, systems={len(self.systems)}, "
                f"best={best.name!r} {best.rating:.1f} [{best.interval.low:.1f}, "
                f"{best.interval.high:.1f}], n_prompts={self.n_prompts})")

    def to_html(self) -> str:
        """The report as one self-contained HTML page (as ``--format html``)."""
        return rendered(self, "html")

    def _repr_html_(self) -> str:
        return rendered(self, "html-fragment")
