"""compare(..., runs="samples", estimand="suite"): its numbers and derived seeds
recorded (from commit c1c9087, when the population bootstrap still ran behind it), and
its notes: what the data say, never the population bootstrap's (its resamples, its
Monte Carlo error), which the suite interval does not read."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pairboot


def tables(seed, n=40, trials=6, shift=0.1):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    a = (rng.random((n, trials)) < p[:, None]).astype(float)
    b = (rng.random((n, trials)) < np.clip(p + shift, 0, 1)[:, None]).astype(float)
    return a, b


def _suite(a, b, **keywords):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare(a, b, runs="samples", estimand="suite", **keywords)


OPTIONS = {
    0: {},
    1: {"metric": "pass^2"},
    2: {"n_resamples": 100},
    3: {"metric": "pass^3", "strata": ["x"] * 20 + ["y"] * 20,
        "strata_weights": {"x": 0.7, "y": 0.3}},
    4: {"groups": [i // 4 for i in range(40)], "metric": "pass@2"},
    5: {"alternative": "greater", "confidence_level": 0.9},
}

# (data seed, derived seed, estimate, interval, se, p, minimum detectable, first and
# last normal draw, draws, A's score and interval, B's se, strata, n_items, n_groups,
# n_strata, metric), as recorded
RECORDED = [
    (0, 1107856190, 0.17500000000000007, (0.0964994255337571, 0.2535005744662431),
     0.04005204946899306, 1.2463717021683097e-05, 0.1122092297474603, 0.2270461868561145,
     0.1513447369868101, 10000, 0.41666666666666663,
     (0.35892067398543004, 0.4744126593479032), 0.027131367660166186, (), 40, None, None,
     'mean'),
    (1, 3892022027, 0.10333333333333336, (0.0015430189761815732, 0.20512364769048513),
     0.05193478816960966, 0.04662678321963975, 0.14549973484180667, 0.023095670986615913,
     0.05944404548369268, 10000, 0.30000000000000004,
     (0.23116832696941458, 0.3688316730305855), 0.03826080094416337, (), 40, None, None,
     'pass^2'),
    (2, 1069096352, 0.09583333333333334, (0.016571830826272255, 0.17509483584039442),
     0.04044028519516977, 0.017800155422770424, 0.11329690521906033, 0.10558367996345837,
     0.046978012745999685, 100, 0.5125, (0.4565131828865317, 0.5684868171134683),
     0.02862594006219612, (), 40, None, None, 'mean'),
    (3, 1609852162, 0.14700000000000002, (0.05222758362722073, 0.2417724163727793),
     0.04835416217865841, 0.0023652378527178274, 0.13546830599396653, 0.14547868565819302,
     0.04896356273046623, 10000, 0.173, (0.10458700861193684, 0.24141299138806313),
     0.03346266576350425,
     (('x', 0.7, 20, 0.14999999999999994, (0.026428972601749617, 0.27357102739825023),
       0.017352389190761444),
      ('y', 0.3, 20, 0.13999999999999996, (0.010917361218633403, 0.2690826387813665),
       0.033525669970534994)), 40, None, 2, 'pass^3'),
    (4, 1994239386, 0.14833333333333334, (0.053320554042169885, 0.2433461126244968),
     0.04847679857416369, 0.0022142345275476083, 0.1358118823068168, 0.1039665292105218,
     0.18222614076444305, 10000, 0.6083333333333334,
     (0.5410697857517344, 0.6755968809149324), 0.03423773097362388, (), 40, 10, None,
     'pass@2'),
    (5, 3845287341, 0.09166666666666666, (0.03742104478056335, float("inf")),
     0.04232808366400099, 0.01517000815396412, 0.08986983587417735, 0.11547305073440593,
     0.08494543751821652, 10000, 0.5375, (0.486121174425996, 0.588878825574004),
     0.028565227501671023, (), 40, None, None, 'mean'),
]


@pytest.mark.parametrize("recorded", RECORDED, ids=[str(r[0]) for r in RECORDED])
def test_the_suite_result_and_its_derived_seed_are_as_recorded(recorded):
    a, b = tables(recorded[0])
    r = _suite(a, b, **OPTIONS[recorded[0]])
    draws = r.bootstrap_distribution
    got = (recorded[0], r.seed, r.estimate, tuple(r.confidence_interval), r.standard_error,
           r.p_value, r.minimum_detectable, float(draws[0]), float(draws[-1]), len(draws),
           r.score_a.estimate, tuple(r.score_a.confidence_interval), r.score_b.standard_error,
           tuple((s.name, s.weight, s.n_items, s.estimate, tuple(s.confidence_interval),
                  s.p_value) for s in r.strata),
           r.n_items, r.n_groups, r.n_strata, r.metric)
    assert got == recorded  # (bit for bit: == on every float)


# --- the notes ---------------------------------------------------------------------

BOOTSTRAP_WORDS = ("resample", "bootstrap", "Monte Carlo", "percentile", "method=",
                   "test=", "n_resamples")
"""Words of the population bootstrap's notes (its draws, its interval, the options that
mend it, which estimand='suite' refuses): none belongs in a suite result's."""


def test_few_resamples_leave_no_note_on_the_resamples_or_their_monte_carlo_error():
    a, b = tables(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = pairboot.compare(a, b, runs="samples", estimand="suite", n_resamples=100,
                               seed=1)
    assert res.warnings == () and caught == []
    assert tuple(res.monte_carlo_error) == (0.0, 0.0)
    many = _suite(a, b, n_resamples=10_000, seed=1)  # (the interval needs no resamples)
    assert tuple(many.confidence_interval) == tuple(res.confidence_interval)


@pytest.mark.parametrize("keywords", [
    {"metric": "pass^3", "strata": ["x"] * 20 + ["y"] * 20},  # (small strata)
    {"groups": [i // 4 for i in range(40)], "metric": "pass@2"},  # (10 groups)
    {"n_resamples": 50, "confidence_level": 0.99},
])
def test_a_suite_result_says_nothing_of_the_population_bootstrap(keywords):
    a, b = tables(3)
    res = _suite(a, b, **keywords)
    assert not [w for w in res.warnings if any(word in w for word in BOOTSTRAP_WORDS)]


def test_a_stratum_of_one_item_is_not_said_to_add_nothing():
    """The bootstrap cannot resample a stratum of one item; the suite interval holds its
    trials' variance like any other item's."""
    a, b = tables(6)
    res = _suite(a, b, strata=["x"] * 39 + ["y"], seed=1)
    assert res.strata[1].n_items == 1 and res.strata[1].standard_error > 0
    assert not [w for w in res.warnings if "single item" in w]


def test_items_all_0_or_1_and_skewed_give_no_bootstrap_notes():
    """Every item's trials agree (its mean is 0 or 1), B right where A is on all but a
    few: the population bootstrap's 0/1 notes (its point interval, `method='score'`,
    `test='mcnemar'`) and skew note (`method='studentized'`) would fire; the suite
    interval refuses those options and is not read off the items' spread."""
    a = np.zeros((60, 4))
    a[:30] = 1.0
    b = a.copy()
    b[30:33] = 1.0
    population = [w for w in _population(a, b).warnings
                  if "items" in w and ("0/1" in w or "differ on only" in w)]
    assert population  # (the population bootstrap's note, kept there)
    (note,) = _suite(a, b).warnings  # (what the suite's data say: no trial varies)
    assert note.startswith("no item's trials vary") and "width 0" in note


def _population(a, b, **keywords):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare(a, b, runs="samples", **keywords)


def test_the_notes_on_the_data_stay():
    """Too few items for a verdict, very unequal groups, scores on two scales: these
    depend on the data alone, and stay, pointing at the caller."""
    rng = np.random.default_rng(4)
    a = rng.random((5, 3))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = pairboot.compare(a, 100 * a, runs="samples", estimand="suite", seed=1)
    assert [w.category for w in record] == [pairboot.SmallSampleWarning,
                                            pairboot.SmallSampleWarning,
                                            pairboot.PairbootWarning]
    assert "only 5 items" in res.warnings[0] and "very different scales" in res.warnings[2]
    assert res.warnings[1].startswith("only 5 of 5 items' trials vary")
    assert not res.enough_units and {w.filename for w in record} == {__file__}
    a, b = tables(5)
    groups = [0] * 25 + list(range(1, 16))
    res = _suite(a, b, groups=groups)
    assert any("group sizes are very unequal" in w for w in res.warnings)
    assert res.warnings == _population(a, b, groups=groups).warnings[-len(res.warnings):]


def test_no_population_bootstrap_runs_and_the_engine_says_so(monkeypatch):
    a, b = tables(1)
    import pairboot.core.pipeline as pipeline

    def refuse(*args, **keywords):
        raise AssertionError("the population bootstrap ran")

    monkeypatch.setattr(pipeline, "resample_sums", refuse)
    res = _suite(a, b, metric="pass^2", seed=3)
    family = pairboot.compare_many({"A": a, "B": b}, runs="samples", metric="pass^2",
                                   estimand="suite", seed=3)
    assert res.engine == family.engine == "suite (normal intervals on the trials' variance)"
    assert family.comparisons[0].confidence_interval == res.confidence_interval


def test_trials_that_never_vary_or_vary_on_few_items_are_said():
    """The suite's standard error is estimated from the items' trials: none varying
    gives an interval of width 0, said; fewer than 30 items varying, a rough one."""
    a = np.ones((40, 3))
    b = a.copy()
    b[:2] = 0.0
    res = _suite(a, b)
    assert res.confidence_interval.low == res.confidence_interval.high == res.estimate
    assert any(w.startswith("no item's trials vary") for w in res.warnings)
    b[2:6, 0] = 0.0  # (4 items whose trials differ)
    res = _suite(a, b)
    assert res.confidence_interval.high > res.confidence_interval.low
    assert any(w.startswith("only 4 of 40 items' trials vary") for w in res.warnings)
    rng = np.random.default_rng(2)
    a, b = (rng.random((40, 3)) < 0.5).astype(float), (rng.random((40, 3)) < 0.6).astype(float)
    assert not any("trials vary" in w for w in _suite(a, b).warnings)
