"""The prediction-powered comparison (:func:`pairboot.compare_ppi`): B - A of the gold
metric from a judge's scores on every item and gold labels on a random subset.

Three estimates on the same data: the judge's B - A on every item (biased by its
errors), the gold labels' B - A on the labelled items, and the prediction-powered one
(PPI++, :mod:`pairboot.stats.ppi`), whose weight ``lam`` is tuned on the per-item
differences ``gold_b - gold_a`` against ``judge_b - judge_a``; each system's corrected
score has its own ``lam``, and the judge's bias (gold - judge) its own interval.

The closed form (``method="clt"``) is PPI++'s normal interval.  The bootstrap
(PPBoot, Zrnic 2024) draws the units through the engine: the labelled and the
unlabelled items are two draw strata, each drawn with replacement to its own size, the
same draws for A and B and for every estimate (the gold subset was a random sample of
fixed size, so a resample keeps ``n`` labelled and ``N`` unlabelled items, as the
closed form's two independent means assume).  With groups the units are groups: two
strata when every group is labelled whole or not at all, else one stratum of groups
carrying both their labelled and unlabelled items (the labelled count then varies from
resample to resample, as it did when the items were drawn).  ``lam`` is held at its
value on the data in every resample, as PPI++'s interval holds it.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import warnings as _warnings

import numpy as np

from pairboot._version import __version__
from pairboot.core.units import population_weights
from pairboot.engine import DrawPlan, resample_sums
from pairboot.errors import DegenerateDataWarning, InputError, SmallSampleWarning
from pairboot.inputs.gold import MIN_GOLD, GoldScores, check_gold
from pairboot.inputs.labels import group_strata, item_labels, plain, shown
from pairboot.options import Arguments, Data
from pairboot.results.compare import ConfidenceInterval, SystemScore
from pairboot.results.ppi import PPIEstimate, PPIResult
from pairboot.stats.hypotheses import interval_alpha, read_test
from pairboot.stats.intervals import Bootstrap, bounds, monte_carlo_error, p_value
from pairboot.stats.ppi import (
    mean_standard_error,
    normal_bounds,
    normal_p_value,
    ppi_estimate,
    ppi_standard_error,
    stratified_power_weight,
)

__all__ = ["PPI_METHODS", "check_lam", "check_ppi_method", "compare_ppi_items"]

PPI_METHODS = ("percentile", "basic", "normal", "clt")
"""The intervals of a prediction-powered comparison: the bootstrap's, or the closed form."""

FEW_GOLD = 30
"""Below this many labelled items (groups, with groups) the normal and bootstrap
intervals of a mean cover less than their level: a warning says so."""

# the units' statistics: labelled and unlabelled counts, then sums of scores
_NL, _NU, _GA, _JAL, _GB, _JBL, _JAU, _JBU = range(8)


def compare_ppi_items(judge_a, judge_b, gold_a, gold_b, args: Arguments, data: Data,
                      method: str, *, lam: float | None = None, clip: bool = True,
                      stacklevel: int = 2) -> PPIResult:
    """compare_ppi()'s answer on checked options (``method`` one of
    :data:`PPI_METHODS`; ``lam`` a fixed weight, else tuned, within [0, 1] with
    ``clip``); its notes are warned ``stacklevel`` frames up."""
    scores = check_gold(judge_a, judge_b, gold_a, gold_b, data.groups, data.strata)
    n = len(scores.labelled)
    codes, n_groups = None, None
    if data.groups is not None:
        codes, names = item_labels(data.groups, "groups", n)
        n_groups = len(names)
    strata, weights, n_strata = _strata(scores, data, codes, n_groups)
    notes: list = []
    lab = scores.labelled
    j, g = scores.judge, scores.gold
    columns = {"a": (j[:, 0], g[:, 0]), "b": (j[:, 1], g[:, 1]),
               "d": (j[:, 1] - j[:, 0], g[:, 1] - g[:, 0])}
    lams = {}
    for key, (jj, gg) in columns.items():
        parts = [(gg[rows][lab[rows]], jj[rows][lab[rows]], jj[rows][~lab[rows]])
                 for rows, _, _ in strata]
        lams[key] = stratified_power_weight(parts, weights, clip) if lam is None else lam

    # the three estimates and the bias, each for A, B and B - A, by the closed form:
    # every stratum's, then their weighted sum (variances: weights squared)
    closed: dict = {}
    for (rows, local, n_local), w in zip(strata, weights):
        part = _closed_forms({key: (jj[rows], gg[rows]) for key, (jj, gg) in columns.items()},
                             lab[rows], local, n_local, lams)
        for key, (est, se) in part.items():
            e0, v0 = closed.get(key, (0.0, 0.0))
            closed[key] = (e0 + w * est, v0 + (w * se) ** 2)
    closed = {key: (float(est), math.sqrt(var)) for key, (est, var) in closed.items()}
    gold_se, ppi_se = closed["gold", "d"][1], closed["ppi", "d"][1]
    n_gold = int(lab.sum())
    effective = (n_gold * (gold_se / ppi_se) ** 2 if ppi_se > 0
                 else (math.inf if gold_se > 0 else float(n_gold)))

    # the bootstrap, on the same draws for every estimate
    boots: dict = {}
    seed = args.seed
    if method != "clt":
        plan, home = _plan(scores, strata)
        seed = seed if seed is not None else _derived_seed(plan, args)
        sums, _ = resample_sums(plan, args.n_resamples, seed, backend=args.backend,
                                progress=args.progress)
        reps: dict = {}
        for h, w in enumerate(weights):
            for key, theta in _estimates(sums[:, home == h].sum(axis=1), lams).items():
                reps[key] = reps.get(key, 0.0) + w * theta
        dropped = 0
        for key, theta in reps.items():
            ok = np.isfinite(theta)
            dropped = max(dropped, int((~ok).sum()))
            boots[key] = Bootstrap.from_replicates(closed[key][0], theta[ok])
        if dropped:
            notes.append((DegenerateDataWarning, (
                f"{dropped} of {args.n_resamples} resamples drew no labelled (or no "
                "unlabelled) item: left out of the intervals; label whole groups, or more "
                "of them")))

    alpha = 1.0 - args.confidence_level

    def row_interval(key) -> tuple[ConfidenceInterval, float]:
        est, se = closed[key]
        if method == "clt":
            return ConfidenceInterval(*normal_bounds(est, se, alpha)), se
        boot = boots[key]
        return ConfidenceInterval(*bounds(method, boot, alpha)), boot.sd

    def score(kind, key) -> SystemScore:
        interval, se = row_interval((kind, key))
        return SystemScore(closed[kind, key][0], interval, se)

    def estimate_row(kind, name, n_read) -> PPIEstimate:
        interval, se = row_interval((kind, "d"))
        return PPIEstimate(name, closed[kind, "d"][0], interval, se, score(kind, "a"),
                           score(kind, "b"), n_read)

    bias_est, bias_se = closed["bias", "d"]  # (does the judge's error differ by system?)
    bias_p = (normal_p_value(bias_est, bias_se) if method == "clt"
              else p_value(method, boots["bias", "d"]))
    est, se = closed["ppi", "d"]
    if method == "clt":
        (low, high), p, parts = read_test(
            args.hypothesis, args.margin, args.alternative, alpha,
            lambda at, sides: normal_bounds(est, se, at, sides),
            lambda sides, null: normal_p_value(est, se, sides, null), args.lower_is_better)
        mc = (0.0, 0.0)
        boot_dist = np.empty(0)
    else:
        boot = boots["ppi", "d"]
        (low, high), p, parts = read_test(
            args.hypothesis, args.margin, args.alternative, alpha,
            lambda at, sides: bounds(method, boot, at, sides),
            lambda sides, null: p_value(method, boot, sides, null), args.lower_is_better,
            tol=boot.tolerance)
        mc = monte_carlo_error(method, boot, interval_alpha(args.hypothesis, alpha),
                               args.alternative)
        se = boot.sd
        boot_dist = reps["ppi", "d"]
    units = n_gold if n_groups is None else len(np.unique(codes[lab]))
    if units < FEW_GOLD:
        notes.append((SmallSampleWarning, (
            f"only {units} labelled {'items' if n_groups is None else 'groups'}: the "
            "interval may cover less than its level (its variance is estimated from them); "
            f"label {FEW_GOLD} or more")))
    if lams["d"] == 0.0 and lam is None:
        notes.append((DegenerateDataWarning, (
            "the judge's differences do not track the gold ones on the labelled items "
            "(lam = 0): the prediction-powered B - A is the gold labels' alone")))
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel + 1)
    return PPIResult(
        estimate=est, confidence_interval=ConfidenceInterval(low, high),
        confidence_level=args.confidence_level, method=method, standard_error=se,
        p_value=p, lam=lams["d"], lam_a=lams["a"], lam_b=lams["b"],
        effective_gold=float(effective), score_a=score("ppi", "a"),
        score_b=score("ppi", "b"),
        judge_only=estimate_row("judge", "judge", n),
        gold_only=estimate_row("gold", "gold", n_gold),
        prediction_powered=estimate_row("ppi", "prediction-powered", n),
        bias_a=score("bias", "a"), bias_b=score("bias", "b"), bias=score("bias", "d"),
        bias_p_value=bias_p,
        n_items=n, n_gold=n_gold, n_groups=n_groups, n_strata=n_strata,
        bootstrap_distribution=boot_dist,
        n_resamples=args.n_resamples if method != "clt" else 0,
        seed=None if method == "clt" else int(seed),
        alternative=args.alternative, hypothesis=args.hypothesis, margin=args.margin,
        lower_is_better=args.lower_is_better, p_values=parts,
        monte_carlo_error=ConfidenceInterval(*mc), version=__version__,
        tuning="fixed" if lam is not None else "clipped" if clip else "free",
        warnings=tuple(text for _, text in notes))


def _closed_forms(columns: dict, lab: np.ndarray, codes: np.ndarray | None, n_groups: int,
                  lams: dict) -> dict:
    """One stratum's estimates and standard errors ``{(kind, key): (estimate, se)}``:
    ``columns`` its judge's and gold scores by key (A, B, B - A), ``codes`` its items'
    groups (0 .. ``n_groups`` - 1, None without)."""
    unl = ~lab
    cl = None if codes is None else (codes[lab], codes[unl])
    out = {}
    for key, (jj, gg) in columns.items():
        out["ppi", key] = (ppi_estimate(gg[lab], jj[lab], jj[unl], lams[key]),
                           ppi_standard_error(gg[lab], jj[lab], jj[unl], lams[key], cl,
                                              n_groups))
        out["gold", key] = (float(gg[lab].mean()), mean_standard_error(
            gg[lab], None if cl is None else cl[0], n_groups))
        out["judge", key] = (float(jj.mean()), mean_standard_error(jj, codes, n_groups))
        out["bias", key] = (float((gg[lab] - jj[lab]).mean()), mean_standard_error(
            gg[lab] - jj[lab], None if cl is None else cl[0], n_groups))
    return out


def _strata(scores: GoldScores, data: Data, codes: np.ndarray | None,
            n_groups: int | None):
    """``([(rows, local group codes or None, local group count)], weights, n_strata)``:
    one entry without strata; each stratum needs 2 labelled and 2 unlabelled items."""
    n = len(scores.labelled)
    if data.strata is None:
        if data.strata_weights is not None:
            population_weights(data.strata_weights, None, np.ones(1))  # (refused)
        return [(np.arange(n), codes, n_groups or 0)], np.ones(1), None
    scodes, snames = item_labels(data.strata, "strata", n)
    if codes is not None:
        group_strata(codes, np.arange(n_groups), scodes, snames)
    counts = np.bincount(scodes, minlength=len(snames)).astype(float)
    weights = population_weights(data.strata_weights, snames, counts / n)
    out = []
    for h, name in enumerate(snames):
        rows = np.flatnonzero(scodes == h)
        n_lab = int(scores.labelled[rows].sum())
        if min(n_lab, len(rows) - n_lab) < MIN_GOLD:
            raise InputError(f"`strata`: stratum {shown(plain(name))} has {n_lab} labelled of "
                             f"{len(rows)} items: each stratum needs {MIN_GOLD} labelled "
                             f"and {MIN_GOLD} unlabelled", param="strata")
        local, n_local = None, 0
        if codes is not None:
            _, local = np.unique(codes[rows], return_inverse=True)
            local = local.reshape(-1)
            n_local = int(local.max()) + 1
        out.append((rows, local, n_local))
    return out, weights, len(snames)


def _plan(scores: GoldScores, strata) -> tuple[DrawPlan, np.ndarray]:
    """The units and their draw strata (the module's docstring), stratum by stratum:
    items, or groups; and the stratum of every draw stratum."""
    lab = scores.labelled
    j, g = scores.judge, np.where(lab[:, None], scores.gold, 0.0)
    x = np.zeros((len(lab), 8))
    x[:, _NL], x[:, _NU] = lab, ~lab
    x[:, _GA], x[:, _GB] = g[:, 0], g[:, 1]
    x[:, _JAL], x[:, _JBL] = np.where(lab, j[:, 0], 0.0), np.where(lab, j[:, 1], 0.0)
    x[:, _JAU], x[:, _JBU] = np.where(lab, 0.0, j[:, 0]), np.where(lab, 0.0, j[:, 1])
    blocks, home = [], []
    for h, (rows, local, n_local) in enumerate(strata):
        xs = x[rows]
        if local is not None:
            xs = np.stack([np.bincount(local, weights=xs[:, k], minlength=n_local)
                           for k in range(8)], axis=1)
        labelled = xs[:, _NL] > 0
        if (labelled & (xs[:, _NU] > 0)).any():  # (a group with items of both kinds)
            blocks.append(xs)
            home.append(h)
            continue
        blocks += [xs[labelled], xs[~labelled]]
        home += [h, h]
    sizes = [len(b) for b in blocks]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return (DrawPlan.from_columns(np.concatenate(blocks), starts, sizes),
            np.asarray(home))


def _estimates(t: np.ndarray, lams: dict) -> dict:
    """Every estimate of every resample from its summed statistics ``t`` (R, 8), at
    the weights ``lams`` of the data."""
    with np.errstate(divide="ignore", invalid="ignore"):
        nl, nu = t[:, _NL], t[:, _NU]
        mg = {"a": t[:, _GA] / nl, "b": t[:, _GB] / nl}
        ml = {"a": t[:, _JAL] / nl, "b": t[:, _JBL] / nl}
        mu = {"a": t[:, _JAU] / nu, "b": t[:, _JBU] / nu}
        judge = {"a": (t[:, _JAL] + t[:, _JAU]) / (nl + nu),
                 "b": (t[:, _JBL] + t[:, _JBU]) / (nl + nu)}
    for m in (mg, ml, mu, judge):
        m["d"] = m["b"] - m["a"]
    out = {}
    for key in ("a", "b", "d"):
        out["ppi", key] = mg[key] + lams[key] * (mu[key] - ml[key])
        out["gold", key] = mg[key]
        out["judge", key] = judge[key]
        out["bias", key] = mg[key] - ml[key]
    return out


def _derived_seed(plan: DrawPlan, args: Arguments) -> int:
    """The seed given none: a hash of the units, their strata and the resamples, so the
    same inputs give the same answer (as :func:`pairboot.core.design.derived_seed`)."""
    h = hashlib.blake2b(digest_size=8, person=b"pairboot-ppi")
    for arr, dtype in ((plan.x, "<f8"), (plan.constant, "<f8"), (plan.starts, "<i8"),
                       (plan.sizes, "<i8")):
        arr = np.ascontiguousarray(arr, dtype=dtype)
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())
    h.update(str(args.n_resamples).encode())
    return int.from_bytes(h.digest(), "little") % 2**32


def check_lam(lam, clip) -> tuple[float | None, bool]:
    """``lam``: None (tuned) or a finite number; ``clip``: True or False."""
    if lam is not None and (isinstance(lam, bool) or not isinstance(lam, numbers.Real)
                            or not math.isfinite(lam)):
        raise InputError(f"`lam` must be None (tuned from the data) or a finite number, "
                         f"got {lam!r}", param="lam")
    if not isinstance(clip, (bool, np.bool_)):
        raise InputError(f"`clip` must be True or False, got {clip!r}", param="clip")
    return (None if lam is None else float(lam)), bool(clip)


def check_ppi_method(method) -> str:
    """``method`` one of :data:`PPI_METHODS` (bca and the studentized bootstrap need
    the jackknife and per-resample standard errors this comparison does not keep)."""
    if method not in PPI_METHODS:
        raise InputError(f"`method` of a prediction-powered comparison is one of "
                         f"{', '.join(PPI_METHODS)}, got {method!r}", param="method")
    return method
