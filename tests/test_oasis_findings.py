"""dlsched.oasis.findings: the sentences the OASiS notebooks print, on small hand-made tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched.oasis import findings


def _totals(means: dict[int, dict[str, float]], seeds=(0, 1)) -> pd.DataFrame:
    """run_totals-like rows whose mean over ``seeds`` is ``means[n][policy]`` (+-1 per seed)."""
    rows = []
    for n, per in means.items():
        for p, v in per.items():
            for k, s in enumerate(seeds):
                d = (1.0 if k % 2 else -1.0) if len(seeds) > 1 else 0.0
                rows.append({"policy": p, "n_jobs": n, "seed": s, "total_utility": v + d, "finished": 3,
                             "admitted": 4})  # fmt: skip
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- notebook 10


def test_tau_reading_counts_and_medians():
    readings = pd.DataFrame(
        {"cannot_finish": [0.1, 0.9], "never_schedulable": [0.0, 0.0], "either": [0.1, 0.95],
         "d_min_median": [4.0, 250.0]},
        index=pd.Index(["seconds", "literal"], name="reading"),
    )  # fmt: skip
    jobs = pd.DataFrame({"d_min": [1, 5, 15, 16]})
    text = findings.tau_reading(readings, jobs, T=100, target=15)
    lines = text.splitlines()
    assert lines[0] == (
        "seconds reading: median d_min 4 slots; 10% of the jobs cannot finish by T = 100 even alone, "
        "10% cannot finish or can never be scheduled"
    )
    assert "median d_min 250 slots; 90%" in lines[1] and "95% cannot finish" in lines[1]
    assert lines[2].endswith("75% of the jobs have d_min <= 15 slots")


def test_price_wall_reading_ranges_skip_nan():
    prices = pd.DataFrame({"util_P_at_ref": [0.983, 0.99, np.nan], "util_Q_at_ref": [np.nan, 0.986, 0.986]})
    assert findings.price_wall_reading(prices) == (
        "a price reaches 1 at a utilisation g/c of worker servers (P): 98.3%-99.0%; "
        "PS servers (Q): 98.6% of the capacity"
    )


def test_readings_reject_missing_columns():
    with pytest.raises(ValueError, match="util_Q_at_ref"):
        findings.price_wall_reading(pd.DataFrame({"util_P_at_ref": [0.5]}))
    with pytest.raises(TypeError):
        findings.fig3_reading([1, 2])


# ----------------------------------------------------------------------------- notebook 11


def test_lemma1_reading_splits_fine_and_coarse():
    inc = pd.DataFrame(
        {"family": ["a", "a", "a", "a", "b"], "premise_holds": [True, True, False, True, True],
         "premise_ratio": [0.1, 0.5, 30.0, 0.9, 0.2], "max_share": [0.1, 0.2, 0.9, 0.6, 0.3]}
    )  # fmt: skip
    lines = findings.lemma1_reading(inc, coarse=0.5).splitlines()
    assert lines[0] == (
        "a: premise holds on 75% of 4 admissions (100% of 2 with share < 0.5; 50% of 2 with share >= 0.5); "
        "largest premise ratio 30"
    )
    assert "none with share >= 0.5" in lines[1]


def _ratios() -> pd.DataFrame:
    base = {"family": "syn", "vacuous": False, "alpha": 10.0, "two_alpha": 20.0, "kappa": 10.0, "holds": True,
            "opt_schedules_dual_feasible": True, "dual_ge_opt": True, "opt_below_alg": False,
            "milp_status": "optimal"}  # fmt: skip
    rows = [
        {**base, "seed": 0, "ratio": 1.0, "ratio_best": 1.0},
        {**base, "seed": 1, "ratio": 1.2, "ratio_best": 1.2, "opt_schedules_dual_feasible": False},
        {**base, "seed": 2, "ratio": math.nan, "ratio_best": math.nan, "vacuous": True},
        {**base, "seed": 3, "ratio": 1.0, "ratio_best": 1.0, "opt_below_alg": True},
        {**base, "family": "big", "seed": 0, "ratio": 5e6, "ratio_best": 5e6, "holds": False, "kappa": 1e11},
        {**base, "family": "big", "seed": 1, "ratio": 1.0, "ratio_best": 1.0, "dual_ge_opt": False},
    ]
    return pd.DataFrame(rows)


def test_theorem4_reading_per_family():
    lines = findings.theorem4_reading(_ratios()).splitlines()
    assert lines[0] == (
        "syn: 2 alpha 20 over 4 instances (1 vacuous); OPT/ALG on the 3 others: = 1 on 67%, "
        "below the paper's 1.1 on 67%, in 1.1-1.5 on 33%; median 1, 90th percentile 1.16, largest finite 1.2"
    )
    assert lines[1] == "syn: OPT/ALG <= 2 alpha (Theorem 4) on every instance"
    assert lines[2] == (
        "syn: the optimum's schedules violate (20) on 1 and D_I < OPT on 0 of the 3 non-vacuous instances; "
        "MILP value below OASiS's utility on 1 (status: optimal 1; seeds 3)"
    )
    assert "largest finite 5e+06" in lines[3]
    assert lines[4] == (
        "big: Theorem 4 fails on 1 of 2 instances (seeds 0); worst: seed 0, OPT/ALG 5e+06 against "
        "2 alpha = 20, discrete factor kappa/alpha 1e+10"
    )
    assert "D_I < OPT on 1 of the 2" in lines[5]


def test_decision_reading_local_exponent():
    times = pd.DataFrame(
        {"T": [10, 10, 20, 20], "NE": [100, 200, 100, 200], "seconds": [1e-3, 2e-3, 2e-3, 4e-3]}
    )
    by = pd.DataFrame(
        {"method": ["fast"] * 4 + ["literal"] * 4, "T": [10, 10, 20, 20] * 2, "NE": [100, 200] * 4,
         "seconds": [1e-3, 1e-3, 1e-3, 1e-3, 0.1, 0.4, 0.2, 0.8]}
    )  # fmt: skip
    lines = findings.decision_reading(times, by).splitlines()
    assert lines[0] == "fast path, many servers: 0.004 s per decision at T = 20, N_iE_i = 200"
    assert lines[1] == "fast: local exponent in N_iE_i at T = 20: 0.00; 0.001 s per decision at N_iE_i = 200"
    assert lines[2] == "literal: local exponent in N_iE_i at T = 20: 2.00; 0.8 s per decision at N_iE_i = 200"


# ----------------------------------------------------------------------------- notebook 12


def test_fig3_reading_best_share_and_ahead():
    totals = _totals({100: {"oasis": 90, "fifo": 10, "rrh": 100, "dorm": 80},
                      400: {"oasis": 40, "fifo": 20, "rrh": 100, "dorm": 50}})  # fmt: skip
    lines = findings.fig3_reading(totals).splitlines()
    assert (
        lines[0]
        == "best scheme per load (mean total utility, 2 seed(s)): 100 jobs: rrh 100; 400 jobs: rrh 100"
    )
    assert lines[1] == "OASiS / best other scheme: 0.9 (100 jobs), 0.4 (400 jobs)"
    assert lines[2] == "OASiS is ahead of fifo at every load"


def test_fig3_reading_ties_go_to_paper_order_and_needs_oasis():
    totals = _totals({100: {"rrh": 50, "oasis": 50}})
    assert "100 jobs: oasis 50" in findings.fig3_reading(totals)
    with pytest.raises(ValueError, match="oasis"):
        findings.fig3_reading(_totals({100: {"rrh": 50}}))


def test_profile_reading_and_price_wall():
    profile = pd.DataFrame(
        {"policy": ["oasis", "rrh"], "finished": [10, 20], "utility_per_finished": [14.2, 33.0],
         "mean_jct": [59.0, 16.0], "gpu_busy": [0.98, 0.74], "cpu_busy": [0.5, 0.4],
         "alpha": [1000.0, 1000.0]}
    )  # fmt: skip
    lines = findings.profile_reading(profile, below=1e-3).splitlines()
    assert lines[0] == (
        "oasis: GPUs 98% allocated on average, 10 jobs finished, mean JCT 59 slots, "
        "utility 14.2 per finished job"
    )
    assert lines[2] == "alpha = 1000: a price stays below 0.001 U up to a utilisation of 99.3%"


def test_cap_reading():
    table = pd.DataFrame(
        {"oasis": [100.0, 50.0], "oasis ln(U/L)<=5": [0.0, 0.0], "oasis ln(U/L)<=10": [150.0, 200.0],
         "oasis ln(U/L)<=20": [160.0, 120.0], "best baseline": ["dorm", "rrh"],
         "baseline utility": [140.0, 210.0]},
        index=pd.Index([100, 400], name="n_jobs"),
    )  # fmt: skip
    capped = pd.DataFrame({"max_log_ratio": [5.0, 5.0, 10.0, 20.0], "admitted": [0, 0, 3, 4]})
    lines = findings.cap_reading(table, capped).splitlines()
    assert lines[0] == (
        "100 jobs: best cap ln(U/L)<=20 earns 160, 1.14 x the best baseline (dorm 140) "
        "and 1.6 x OASiS with (23)-(26)"
    )
    assert lines[1].startswith(
        "400 jobs: best cap ln(U/L)<=10 earns 200, 0.952 x the best baseline (rrh 210)"
    )
    assert lines[2] == "caps beating the best baseline at every load: none"
    assert lines[3] == "caps at which OASiS admitted no job at any load: ln(U/L)<=5"


def test_fig4_reading_ranks_only_schemes_with_enough_jobs():
    stats = pd.DataFrame(
        {"policy": ["oasis", "drf", "rrh", "fifo"], "utility_class": ["time-sensitive"] * 4,
         "finished": [10, 10, 10, 1], "median": [5.5, 0.5, -2.0, 0.0], "iqr": [30.0, 8.0, 3.0, 0.0]}
    )  # fmt: skip
    lines = findings.fig4_reading(stats, min_finished=3).splitlines()
    assert lines[0] == (
        "time-sensitive: OASiS median +5.5 slots, IQR 30 (10 finished); "
        "medians within 1 slot of the target: drf; smallest IQR: rrh (3)"
    )
    assert lines[1] == "time-critical: no scheme finished 3 or more jobs"


def test_fig5_reading():
    ratios = pd.DataFrame(
        {"servers": [3, 3, 3, 3], "seed": [0, 1, 0, 1], "gamma1_range": ["[75, 100]"] * 2 + ["[1, 100]"] * 2,
         "ratio": [1.0, 1.2, 37.0, math.nan], "two_alpha": [50.0, 50.0, 69.0, 60.0],
         "milp_below_oasis": [False, True, False, False], "milp_status": ["optimal"] * 4}
    )  # fmt: skip
    summary = pd.DataFrame(
        {"servers": [3, 3], "gamma1_range": ["[75, 100]", "[1, 100]"], "instances": [2, 2], "used": [2, 1],
         "oasis_zero": [0, 0], "mean": [1.1, 37.0], "median": [1.1, 37.0]}
    )  # fmt: skip
    lines = findings.fig5_reading(ratios, summary).splitlines()
    assert lines[0] == "bars: means 1.1-37, medians 1.1-37 over 2 bars"
    assert lines[1] == "the mean grows from the first to the last gamma1 range at 1 of 1 server counts"
    assert lines[2] == (
        "largest ratio 37: 3 servers, gamma1 [1, 100], seed 0; 2 alpha there 69, so Theorem 4 holds there"
    )
    assert lines[3] == "instances left out (OPT = OASiS = 0): 1 of 4; OASiS 0 with OPT > 0: 0"
    assert lines[4] == "MILP incumbent below OASiS's utility: 1 of 4 instances (status: optimal 1; seeds 1)"


def test_fig6_reading():
    rows = [{"u_scale": u, "n_jobs": n, "seed": 0, "total_utility": v}
            for n, vals in ((100, (100.0, 102.0, 101.0)), (400, (99.0, 100.0, 101.0)))
            for u, v in zip((0.2, 1.0, 10.0), vals, strict=True)]  # fmt: skip
    lines = findings.fig6_reading(pd.DataFrame(rows), alpha=1000.0).splitlines()
    assert (
        lines[0]
        == "largest difference between estimates (max - min over mean): 2.0% (100 jobs), 2.0% (400 jobs)"
    )
    assert lines[1] == "best estimate per load: 100 jobs: 100%, 400 jobs: 1000%"
    assert lines[2] == "at 400 jobs: under-estimates 99 vs over-estimates 101 (-2.0%)"
    assert lines[3] == "alpha = ln(U/L) = 1000; a factor 10 on U moves it by ln 10 = 2.3, 0.23% of it"


def test_testbed_reading_agrees_with_the_means():
    rows = []
    for T, vals in (
        (10, {"oasis": (50, 70), "rrh": (80, 50), "fifo": (0, 10)}),
        (20, {"oasis": (10, 10), "rrh": (90, 90)}),
    ):
        for p, per_seed in vals.items():
            rows += [{"T": T, "policy": p, "seed": s, "total_utility": float(v), "finished": 1 + s}
                     for s, v in enumerate(per_seed)]  # fmt: skip
    stats = pd.DataFrame({"policy": ["oasis", "rrh"], "finished": [3, 2], "median": [-2.0, 1.0]})
    lines = findings.testbed_reading(pd.DataFrame(rows), stats, T=10).splitlines()
    assert lines[0] == "T = 10: rrh 65, oasis 60, fifo 5 (mean over 2 seeds); OASiS above rrh on 1 of 2 seeds"
    assert lines[1] == "T = 20: rrh 90, oasis 10 (mean over 2 seeds); OASiS above rrh on 0 of 2 seeds"
    assert lines[2] == "T = 10, finished jobs per run: oasis 1.5, fifo 1.5, rrh 1.5"
    assert lines[3] == "T = 10: OASiS's finished jobs end -2 slots from their target (median of 3)"


def test_scorecard_keeps_judged_rows_with_ours_and_summary_counts():
    t3 = pd.DataFrame({"quantity": ["setting", "best"], "paper": ["x", "oasis"], "ours": ["s", "rrh"],
                       "match": ["-", "no"]})  # fmt: skip
    t8 = pd.DataFrame({"quantity": ["best"], "paper": ["oasis"], "ours": ["oasis"], "match": ["yes"]})
    card = findings.scorecard({"Fig. 3": t3, "Fig. 8": t8})
    assert list(card.columns) == ["figure", "quantity", "paper", "ours", "match"]
    assert card.values.tolist() == [
        ["Fig. 3", "best", "oasis", "rrh", "no"],
        ["Fig. 8", "best", "oasis", "oasis", "yes"],
    ]
    assert findings.summary_reading(card) == "2 judged claims: 1 yes, 0 partly, 1 no\nFig. 3: no\nFig. 8: yes"
    empty = findings.scorecard({})
    assert list(empty.columns) == ["figure", "quantity", "paper", "ours", "match"] and empty.empty
    with pytest.raises(ValueError, match="ours"):
        findings.scorecard({"Fig. 3": t3.drop(columns="ours")})


def test_fig8_reading_and_scorecard_agree():
    """The testbed reading names as leader the scheme the Fig. 8 verdict is computed from."""
    from dlsched.oasis import experiments as ox

    rows = [{"T": 10, "policy": p, "seed": s, "total_utility": v + s, "finished": 1, "admitted": 1}
            for p, v in (("oasis", 60.0), ("rrh", 65.0), ("dorm", 5.0)) for s in (0, 1)]  # fmt: skip
    totals = pd.DataFrame(rows)
    cmp8 = ox.fig8_comparison(totals, setting="t")
    assert cmp8["match"].iloc[-1] == "no"
    lead = findings.testbed_reading(totals, pd.DataFrame(columns=["policy", "finished", "median"]), T=10)
    assert lead.startswith("T = 10: rrh 65.5, oasis 60.5")
