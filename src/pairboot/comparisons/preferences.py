"""compare_preferences(): systems judged against each other, rated with honest intervals.

The battles (:class:`pairboot.io.preferences.Battles`, or columns) become units
(:mod:`pairboot.core.preferences`), a prompt each by default so that every battle of a
prompt is drawn together; one draw of the units (the engine's classic bootstrap) serves
every statistic: Bradley-Terry or Davidson ratings on the Elo scale
(:mod:`pairboot.stats.bradley_terry`), the ranks and the chance of being best, the win
rates, and the judge's position bias.  docs/preferences.md says what each means.
"""

from __future__ import annotations

import math

import numpy as np

from pairboot._version import __version__
from pairboot.core.family import simultaneous
from pairboot.core.preferences import (
    derived_seed,
    design_of,
    pair_counts,
    position_rates,
    refuse_disconnected,
    win_counts,
)
from pairboot.engine import DrawPlan, resample_sums
from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.preferences import Battles, battles_from_columns
from pairboot.options import OPTIONS
from pairboot.results.compare import ConfidenceInterval
from pairboot.results.preferences import (
    ELO_SCALE,
    PositionBias,
    PreferenceResult,
    SystemRating,
)
from pairboot.stats.aggregates import best_shares
from pairboot.stats.bradley_terry import finite_maximum, fit
from pairboot.stats.intervals import Bootstrap, bounds
from pairboot.stats.multiple import max_t, rank_intervals

__all__ = ["MODELS", "TIES", "ORDERS", "CLUSTERS", "RIDGE_IF_NEEDED", "compare_preferences"]

MODELS = ("bradley-terry", "davidson")
TIES = ("half", "separate")
ORDERS = ("both", "first", "second")
CLUSTERS = ("prompt", "battle")

RIDGE_IF_NEEDED = 1e-6
"""The penalty of a replicate with no finite maximum (a system that won, or lost,
every battle it drew): tiny, so such a system lands far out, and its interval with it."""

BLOCK = 256
"""Replicates fitted at once (the Newton steps are batched over them)."""


def _choice(value, name: str, choices) -> str:
    if value not in choices:
        raise InputError(f"`{name}` must be one of {', '.join(choices)}, got {value!r}",
                         param=name)
    return value


def as_battles(battles) -> Battles:
    """A :class:`Battles` as given, or one from a DataFrame or mapping with columns
    ``prompt``, ``a``, ``b``, ``verdict`` (and ``game``, ``weight`` when there)."""
    if isinstance(battles, Battles):
        return battles
    try:
        cols = {name: list(battles[name]) for name in ("prompt", "a", "b", "verdict")}
    except (KeyError, TypeError, IndexError):
        raise InputError("`battles` must be read battles (pairboot.io.preferences.read) "
                         "or a table with columns prompt, a, b, verdict (and game, "
                         "weight)", param="battles") from None
    extra = {}
    for name in ("game", "weight"):
        try:
            extra[name] = list(battles[name])
        except (KeyError, TypeError, IndexError):
            extra[name] = None
    out = battles_from_columns(cols["prompt"], cols["a"], cols["b"], cols["verdict"],
                               game=extra["game"], weight=extra["weight"])
    same = out.a == out.b
    if same.any():
        raise InputError(f"row {int(np.flatnonzero(same)[0])}: a system judged against "
                         "itself is not a battle", param="battles")
    return out


def compare_preferences(
    battles,
    *,
    model: str = "bradley-terry",
    ties: str = "half",
    baseline: str | None = None,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    orders: str = "both",
    cluster: str = "prompt",
    ridge: float | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed=None,
    backend: str = "auto",
    progress=None,
) -> PreferenceResult:
    """Ratings, ranks and win rates of systems from pairwise battles, with intervals
    from a bootstrap over prompts.

    Parameters
    ----------
    battles : Battles or table
        :func:`pairboot.io.preferences.read`'s, or columns ``prompt``, ``a`` (shown
        first), ``b``, ``verdict`` (A, B, tie, a graded label, or a's share in [0, 1])
        and optionally ``game`` (0 first judging, 1 swapped) and ``weight``.
    model : {"bradley-terry", "davidson"}
        Davidson's model gives ties their own probability (when ties are frequent).
    ties : {"half", "separate"}
        A tie is half a win (the win rate), or win and tie rates are reported apart.
        Bradley-Terry counts a tie as half a win either way.
    baseline : str, optional
        Win rates against this system (default: against every opponent).
    anchor, anchor_rating : str, float
        The system held at ``anchor_rating`` on the Elo scale (default: the mean
        rating is ``anchor_rating``).
    orders : {"both", "first", "second"}
        The games the ratings and win rates count: both orders (swapped games
        averaged, each a battle), the first judging only, or the swapped one only.
    cluster : {"prompt", "battle"}
        The unit of the bootstrap: a prompt (its battles drawn together) or a battle.
    ridge : float, optional
        A penalty ``ridge / 2 * sum theta^2`` on every fit.  Default: none; a replicate
        without a finite maximum is fitted with :data:`RIDGE_IF_NEEDED` and counted.
    confidence_level, n_resamples, seed, backend, progress
        As for :func:`pairboot.compare`; 1,000 resamples by default (each is a fit of
        every rating); ``progress`` is told the resamples fitted.

    Raises
    ------
    InputError
        The battles do not connect the systems (naming them); the observed data have no
        finite maximum and no ``ridge`` was given; an option is not one of its choices.
    """
    level = OPTIONS["confidence_level"].check(confidence_level)
    n_resamples = OPTIONS["n_resamples"].check(n_resamples)
    seed = OPTIONS["seed"].check(seed)
    backend = OPTIONS["backend"].check(backend)
    model = _choice(model, "model", MODELS)
    ties = _choice(ties, "ties", TIES)
    orders = _choice(orders, "orders", ORDERS)
    cluster = _choice(cluster, "cluster", CLUSTERS)
    if ridge is not None and not (isinstance(ridge, (int, float)) and not isinstance(
            ridge, bool) and math.isfinite(ridge) and ridge > 0):
        raise InputError(f"`ridge` must be None or a number > 0, got {ridge!r}",
                         param="ridge")
    if not (isinstance(anchor_rating, (int, float)) and math.isfinite(anchor_rating)):
        raise InputError(f"`anchor_rating` must be a finite number, got {anchor_rating!r}",
                         param="anchor_rating")
    b = as_battles(battles)
    names = tuple(sorted(b.systems))
    for param, value in (("baseline", baseline), ("anchor", anchor)):
        if value is not None and value not in names:
            raise InputError(f"`{param}` {shown(value)} is not among the systems "
                             f"({', '.join(names[:8])}{', ...' if len(names) > 8 else ''})",
                             param=param)
    use = np.ones(b.n_battles, dtype=bool) if orders == "both" else b.game == (
        0 if orders == "first" else 1)
    if not use.any():
        raise InputError(f"`orders` {orders!r}: no battle has that game (the games' order "
                         "is known only where the data say it)", param="orders")
    design = design_of(b.prompts, b.a, b.b, b.outcome, b.weight, b.game, cluster=cluster,
                       use=use, names=names)
    refuse_disconnected(design)
    _check_model(design, model, ties)
    p, m = len(design.pairs), design.m
    observed = design.x.sum(axis=0)[None]
    counts = pair_counts(observed, p)
    if ridge is None and not finite_maximum(design.pairs, counts, m)[0]:
        raise InputError(_no_maximum(design, counts), param="battles")
    theta, eta, _ = fit(design.pairs, counts, m, model=model, ridge=ridge or 0.0)
    if seed is None:
        seed = derived_seed(design, (model, cluster, orders, str(n_resamples)))
    plan = DrawPlan.from_columns(design.x, [0], [len(design.x)])
    sums = resample_sums(plan, n_resamples, seed, backend=backend)[0][:, 0]
    boot_theta, boot_eta, n_ridged = _fits(design, sums, model, ridge, theta, eta, progress)
    anchor_code = None if anchor is None else names.index(anchor)
    elo = _elo(theta, anchor_code, anchor_rating)[0]
    boot = _elo(boot_theta, anchor_code, anchor_rating)
    alpha = 1 - level
    rank_sets, p_best = _ranks(elo, boot, level)
    rates = _rates(design, observed, sums, names, baseline, ties, alpha)
    order = np.argsort(-elo, kind="stable")
    systems = tuple(SystemRating(
        name=names[i], rating=float(elo[i]), interval=_ci(boot[:, i], alpha),
        rank=1 + int((elo > elo[i]).sum()), rank_interval=rank_sets[i],
        p_best=float(p_best[i]), **rates[i]) for i in order.tolist())
    warnings = []
    if n_ridged:
        warnings.append(f"{n_ridged} of {n_resamples} resamples had no finite maximum (a "
                        "system won or lost every battle it drew); they were fitted with a "
                        f"ridge of {RIDGE_IF_NEEDED:g}, which puts such a system far out")
    unmet = [s.name for s in systems if s.name != baseline and math.isnan(s.win_rate)]
    if baseline is not None and unmet:
        warnings.append(f"{len(unmet)} system(s) never met the baseline {baseline}, so "
                        f"have no win rate against it: {', '.join(unmet[:6])}"
                        + (", ..." if len(unmet) > 6 else ""))
    tie_share = counts[0, :, 1].sum() / counts[0].sum()
    if model == "bradley-terry" and tie_share > 0.2:
        warnings.append(f"{100 * tie_share:.0f}% of the battles are ties: Davidson's model "
                        "(model='davidson') gives them their own probability")
    return PreferenceResult(
        systems=systems, model=model, ties=ties, orders=orders, cluster=cluster,
        baseline=baseline, anchor=anchor, anchor_rating=float(anchor_rating),
        tie_parameter=None if model != "davidson" else float(np.exp(eta[0])),
        tie_interval=None if model != "davidson" else _ci(np.exp(boot_eta), alpha),
        position_bias=_position(b, design, observed, sums, alpha, model, names,
                                anchor_code, anchor_rating, ridge),
        ridge=float(ridge) if ridge is not None else (RIDGE_IF_NEEDED if n_ridged else 0.0),
        n_ridged=n_ridged, n_prompts=design.n_prompts, n_battles=design.n_battles,
        confidence_level=level, n_resamples=n_resamples, seed=seed, version=__version__,
        names=names, bootstrap_distribution=boot, warnings=tuple(warnings))


def _check_model(design, model: str, ties: str) -> None:
    if (model == "davidson" or ties == "separate") and not design.discrete:
        what = "`model='davidson'`" if model == "davidson" else "`ties='separate'`"
        raise InputError(f"{what} needs verdicts that are a win, a tie or a loss; these "
                         "have fractional shares (a judge's probability)",
                         param="model" if model == "davidson" else "ties")
    if model == "davidson":
        totals = design.x[:, : 3 * len(design.pairs)].reshape(len(design.x), -1, 3).sum(
            axis=(0, 1))
        if totals[1] == 0 or totals[0] + totals[2] == 0:
            raise InputError("`model='davidson'` needs both ties and wins: these battles "
                             f"have {'no tie' if totals[1] == 0 else 'only ties'}",
                             param="model")


def _no_maximum(design, counts) -> str:
    wins, _, losses = win_counts(counts, design.pairs, design.m, None)
    never_lost = [design.names[i] for i in np.flatnonzero(losses[0] == 0)]
    never_won = [design.names[i] for i in np.flatnonzero(wins[0] == 0)]
    said = "; ".join(part for part in (
        never_lost and "never lost: " + ", ".join(map(shown, never_lost[:6])),
        never_won and "never won: " + ", ".join(map(shown, never_won[:6]))) if part)
    return ("the ratings have no finite maximum: "
            + (said or "a set of systems won every battle against the others")
            + "; give `ridge` (a small penalty) to rate them")


def _fits(design, sums, model: str, ridge, theta0, eta0, progress=None):
    """Every replicate's fit, :data:`BLOCK` at a time; those without a finite maximum
    (no ``ridge`` given) refitted with :data:`RIDGE_IF_NEEDED`.  Each starts from the
    observed fit ``theta0``, ``eta0`` (the same maximum, in fewer steps).  ``progress``
    is called with the replicates fitted so far."""
    start = np.concatenate([theta0[0], eta0[:1]]) if model == "davidson" else theta0[0]
    p, m = len(design.pairs), design.m
    theta = np.empty((len(sums), m))
    eta = np.empty(len(sums))
    n_ridged = 0
    for r0 in range(0, len(sums), BLOCK):
        counts = pair_counts(sums[r0: r0 + BLOCK], p)
        if ridge is None:  # (the Newton steps of a replicate without a maximum run to
            # the bound on the steps: those replicates are fitted with the ridge alone)
            finite = finite_maximum(design.pairs, counts, m)
            th = np.empty((len(counts), m))
            et = np.empty(len(counts))
            good, bad = np.flatnonzero(finite), np.flatnonzero(~finite)
            if good.size:
                th[good], et[good], _ = fit(design.pairs, counts[good], m, model=model,
                                            start=start)
            if bad.size:
                th[bad], et[bad], _ = fit(design.pairs, counts[bad], m, model=model,
                                          ridge=RIDGE_IF_NEEDED)
                n_ridged += bad.size
        else:
            th, et, _ = fit(design.pairs, counts, m, model=model, ridge=ridge, start=start)
        theta[r0: r0 + BLOCK], eta[r0: r0 + BLOCK] = th, et
        if progress is not None:
            progress(min(r0 + BLOCK, len(sums)))
    return theta, eta, n_ridged


def _elo(theta: np.ndarray, anchor: int | None, rating: float) -> np.ndarray:
    theta = np.atleast_2d(theta)
    base = theta.mean(axis=1, keepdims=True) if anchor is None else theta[:, anchor:anchor + 1]
    return rating + ELO_SCALE * (theta - base)


def _ci(values: np.ndarray, alpha: float) -> ConfidenceInterval:
    """The percentile interval of the replicates ``values`` (NaN ones left out)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return ConfidenceInterval(math.nan, math.nan)
    low, high = bounds("percentile", Bootstrap.from_replicates(math.nan, v), alpha)
    return ConfidenceInterval(float(low), float(high))


def _ranks(elo: np.ndarray, boot: np.ndarray, level: float):
    """Simultaneous rank sets and each system's share of replicates in which it is best
    (a tie shared): max-t over every pair's rating difference on the replicates, a pair
    decided where its simultaneous interval (``estimate +- c se``) excludes 0, then
    :func:`pairboot.stats.multiple.rank_intervals`' rule, as compare_tasks reads them."""
    m = len(elo)
    i, j = np.triu_indices(m, 1)
    d = elo[j] - elo[i]
    db = boot[:, j] - boot[:, i]
    boots = [Bootstrap.from_replicates(e, r[np.isfinite(r)]) for e, r in zip(d, db.T)]
    se = np.array([b.sd for b in boots])
    mt = max_t(d, se, db, 1.0 - level)
    better = np.zeros((m, m), dtype=bool)
    for k, b in enumerate(boots):
        low, high = simultaneous(d[k], se[k], mt.t[k], mt.critical_value, "two-sided",
                                 b.tolerance)
        better[j[k], i[k]] = low > 0
        better[i[k], j[k]] = high < 0
    return rank_intervals(list(range(m)), better), best_shares(boot, False)


def _rates(design, observed, sums, names, baseline, ties, alpha) -> list[dict]:
    p, m = len(design.pairs), design.m
    against = None if baseline is None else names.index(baseline)
    w0, t0, l0 = (x[0] for x in win_counts(pair_counts(observed, p), design.pairs, m,
                                           against))
    wb, tb, lb = win_counts(pair_counts(sums, p), design.pairs, m, against)
    half = 0.5 if ties == "half" else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        rate0 = (w0 + half * t0) / (w0 + t0 + l0)
        rateb = (wb + half * tb) / (wb + tb + lb)
        tie0, tieb = t0 / (w0 + t0 + l0), tb / (wb + tb + lb)
    out = []
    for k in range(m):
        sep = ties == "separate"
        if k == against:  # (the baseline against itself: no rate)
            nan = ConfidenceInterval(math.nan, math.nan)
            out.append({"win_rate": math.nan, "win_interval": nan,
                        "tie_rate": math.nan if sep else None,
                        "tie_interval": nan if sep else None, "wins": float(w0[k]),
                        "ties": float(t0[k]), "losses": float(l0[k])})
            continue
        out.append({"win_rate": float(rate0[k]), "win_interval": _ci(rateb[:, k], alpha),
                    "tie_rate": float(tie0[k]) if sep else None,
                    "tie_interval": _ci(tieb[:, k], alpha) if sep else None,
                    "wins": float(w0[k]), "ties": float(t0[k]), "losses": float(l0[k])})
    return out


def _position(b: Battles, design, observed, sums, alpha, model, names, anchor, rating,
              ridge) -> PositionBias | None:
    """The bias, when games carry their order: flips of swapped pairs, the first-shown
    share, and the ratings from each order alone (None where an order does not connect
    the systems, has no finite maximum, or lacks the ties or wins Davidson needs)."""
    p = len(design.pairs)
    first0, flips0, n0 = position_rates(observed, p)
    if n0[0] == 0 and not (b.game >= 0).any():
        return None
    first_b, flips_b, _ = position_rates(sums, p)
    by_order = []
    for g in (0, 1):
        use = b.game == g
        one = design_of(b.prompts, b.a, b.b, b.outcome, b.weight, b.game, cluster="prompt",
                        use=use, names=names, swaps=False) if use.any() else None
        if one is None or len(one.pairs) == 0:
            by_order.append(None)
            continue
        try:
            refuse_disconnected(one)
        except InputError:
            by_order.append(None)
            continue
        c = pair_counts(one.x.sum(axis=0)[None], len(one.pairs))
        no_davidson = model == "davidson" and (c[0, :, 1].sum() == 0
                                               or c[0, :, [0, 2]].sum() == 0)
        if no_davidson or (ridge is None and not finite_maximum(one.pairs, c, one.m)[0]):
            by_order.append(None)
            continue
        th = fit(one.pairs, c, one.m, model=model, ridge=ridge or 0.0)[0]
        by_order.append(dict(zip(names, _elo(th, anchor, rating)[0].tolist())))
    return PositionBias(
        n_swapped=float(n0[0]), flip_rate=float(flips0[0]),
        flip_interval=_ci(flips_b, alpha), first_rate=float(first0[0]),
        first_interval=_ci(first_b, alpha), ratings_first=by_order[0],
        ratings_second=by_order[1])
