"""dlsched.optimus.findings: the readings and scorecard rows of notebooks 20-22, on small
hand-made frames whose answers are worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched.optimus import findings as fd
from dlsched.optimus.experiments import PAPER
from dlsched.optimus.paa import paa

# ------------------------------------------------------------------------------ verdicts


@pytest.mark.parametrize(
    ("paper", "ours", "noise", "want"),
    [
        (0.15, 0.14, 0.0, "yes"),  # within 25 %
        (0.15, 0.18, 0.0, "yes"),
        (0.15, 0.10, 0.0, "partly"),  # same sign, a third smaller
        (0.62, 0.12, 0.0, "partly"),
        (0.15, 0.40, 0.0, "partly"),  # larger than the paper's
        (0.15, 0.0, 0.0, "no"),
        (0.15, -0.01, 0.0, "no"),
        (0.15, 0.01, 0.02, "no"),  # within the noise
        (0.15, math.nan, 0.0, "no"),
    ],
)
def test_gain_verdict(paper, ours, noise, want):
    assert fd.gain_verdict(paper, ours, noise=noise) == want


def test_gain_verdict_rejects_a_non_positive_paper_gain():
    with pytest.raises(ValueError, match="positive"):
        fd.gain_verdict(0.0, 0.1)


@pytest.mark.parametrize(
    ("paper", "ours", "want"),
    [
        (0.1, 0.103, "yes"),
        (247, 247, "yes"),
        (3.6, 2.0, "partly"),
        (3.6, 1.73, "no"),
        (43, 12, "no"),
        (0.0, 0.0, "yes"),
        (1.0, math.nan, "no"),
    ],
)
def test_value_verdict(paper, ours, want):
    assert fd.value_verdict(paper, ours) == want


# ------------------------------------------------------------------------------ notebook 22


def _totals(jct: dict[str, list[float]], makespan: dict[str, list[float]]) -> pd.DataFrame:
    rows = [
        {"scheme": s, "seed": k, "mean_jct_h": j, "makespan_h": makespan[s][k]}
        for s, js in jct.items()
        for k, j in enumerate(js)
    ]
    return pd.DataFrame(rows)


@pytest.fixture
def totals() -> pd.DataFrame:
    # optimus 1.0 / 1.2 h JCT (mean 1.1), drf 1.1 / 1.5 (mean 1.3), tetris 2.0 / 2.0
    # makespans: optimus 4.8 / 7.0 (mean 5.9), drf 6.0 / 7.0 (6.5), tetris 8.0 / 10.0 (9.0)
    return _totals(
        {"optimus": [1.0, 1.2], "drf": [1.1, 1.5], "tetris": [2.0, 2.0]},
        {"optimus": [4.8, 7.0], "drf": [6.0, 7.0], "tetris": [8.0, 10.0]},
    )


def test_fig11_table_and_reading_agree(totals):
    t = fd.fig11_table(totals, PAPER["fig11"])
    assert list(t.columns) == list(fd.CARD_COLUMNS)
    assert set(t["figure"]) == {"Figs. 11/13"}
    rows = t.set_index("quantity")
    # JCT speed-up 1.3 / 1.1 = 1.18x (gain 0.18 vs the paper's 1.39): partly
    assert rows.loc["mean JCT speed-up of Optimus over DRF", "ours"] == "1.18x"
    assert rows.loc["mean JCT speed-up of Optimus over DRF", "match"] == "partly"
    assert rows.loc["makespan speed-up of Optimus over DRF", "ours"] == "1.10x"
    # the makespans are settings; mean and seed range as the issue asked (5.9, 4.8-7.0)
    assert rows.loc["makespan of optimus (h; mean, seed range)", "ours"] == "5.9 (4.8-7.0)"
    assert rows.loc["makespan of optimus (h; mean, seed range)", "match"] == "-"
    assert rows.loc["Optimus has the lowest mean JCT and makespan", "match"] == "yes"
    assert rows.loc["Tetris's makespan below DRF's", "match"] == "no"
    text = fd.fig11_reading(totals)
    assert "1.18x in mean JCT" in text and "1.10x in makespan" in text
    assert "optimus 5.9 h (4.8-7.0); drf 6.5 h (6.0-7.0); tetris 9.0 h (8.0-10.0)" in text
    assert "Worst scheme by mean JCT: tetris" in text


def test_fig11_ranking_partly_when_only_jct_is_best(totals):
    t = totals.copy()
    t.loc[(t.scheme == "drf"), "makespan_h"] = [4.0, 4.0]
    rows = fd.fig11_table(t, PAPER["fig11"]).set_index("quantity")
    assert rows.loc["Optimus has the lowest mean JCT and makespan", "match"] == "partly"
    assert rows.loc["makespan speed-up of Optimus over DRF", "match"] == "no"


@pytest.fixture
def tstats() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "running_jobs": [7.0, 6.0, 2.0],
            "running_tasks": [50.0, 40.0, 38.0],
            "cpu_share": [0.95, 0.9, 0.75],
        },
        index=pd.Index(["drf", "optimus", "tetris"], name="scheme"),
    )


@pytest.fixture
def profile() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "mean_workers": [4.0, 4.2, 10.0],
            "ps_per_worker": [1.0, 0.6, 1.0],
            "max_tasks": [9.0, 8.0, 28.0],
            "cpu_core_hours": [100.0, 75.0, 120.0],
            "idle_h": [0.0, 0.0, 1.0],
        },
        index=pd.Index(["drf", "optimus", "tetris"], name="scheme"),
    )


def test_fig14_table_and_readings(tstats, profile):
    t = fd.fig14_table(tstats).set_index("quantity")
    row = t.loc["Optimus runs fewer tasks than DRF (mean running tasks)"]
    assert (row["ours"], row["match"]) == ("yes (40.0 vs 50.0)", "yes")
    assert t.loc["normalised CPU utilisation (used / allocated)", "match"] == "-"
    text = fd.fig14_reading(tstats, profile)
    assert "optimus 40.0" in text and "optimus 0.60" in text and "drf 95 %" in text
    tet = fd.tetris_reading(tstats, profile)
    assert "tetris 2.0" in tet and "10.0 bundles per running job" in tet and "1.00 h per job" in tet


def test_fig14_no_when_optimus_runs_more_tasks(tstats):
    t = tstats.copy()
    t.loc["optimus", "running_tasks"] = 60.0
    assert fd.fig14_table(t)["match"].iloc[0] == "no"


def _gaps(ratios: dict[tuple[float, float], tuple[float, float]], runs: int = 4) -> pd.DataFrame:
    rows = [
        {
            "convergence_error": c,
            "speed_error": s,
            "runs": runs,
            "jct_ratio": r,
            "jct_ratio_std": sd,
            "makespan_ratio": 1.0,
        }
        for (c, s), (r, sd) in ratios.items()
    ]
    return pd.DataFrame(rows)


def test_fig15_no_effect_within_noise():
    g = _gaps(
        {
            (0.0, 0.0): (1.0, 0.0),
            (0.3, 0.0): (1.004, 0.01),
            (0.0, 0.3): (1.006, 0.01),
            (0.2, 0.1): (1.005, 0.02),
        }
    )
    t = fd.fig15_table(g, PAPER["fig15"]).set_index("match")
    # the gap 0.5 % is below two standard errors (2 * 0.02 / 2 = 2 %): no; speed vs convergence
    # differ by 0.2 %, below 2 * hypot(0.005, 0.005): no
    assert list(fd.fig15_table(g, PAPER["fig15"])["match"]) == ["no", "no"]
    assert "noise 2.0 %" in t.loc["no", "ours"].iloc[0]
    text = fd.fig15_reading(g)
    assert "1.000-1.006" in text and "+0.6 %" in text and "speed 30%" in text


def test_fig15_reproduced():
    g = _gaps(
        {(0.0, 0.0): (1.0, 0.0), (0.3, 0.0): (1.05, 0.01), (0.0, 0.3): (1.20, 0.01), (0.2, 0.1): (1.16, 0.02)}
    )
    assert list(fd.fig15_table(g, PAPER["fig15"])["match"]) == ["yes", "yes"]


def _versus(key: str, values: dict[str, dict[str, tuple[float, float]]]) -> pd.DataFrame:
    """values[group][scheme] = (mean JCT, makespan); speed-ups against drf."""
    rows = []
    for grp, schemes in values.items():
        bj, bm = schemes["drf"]
        for s, (j, m) in schemes.items():
            rows.append(
                {
                    key: grp,
                    "scheme": s,
                    "mean_jct_h": j,
                    "makespan_h": m,
                    "jct_speedup": bj / j,
                    "makespan_speedup": bm / m,
                }
            )
    return pd.DataFrame(rows)


def test_fig16_table():
    v = _versus(
        "mode",
        {
            "sync": {"drf": (2.0, 8.0), "optimus": (1.6, 7.0), "tetris": (2.5, 11.0)},
            "async": {"drf": (1.0, 5.0), "optimus": (0.9, 4.5), "tetris": (0.8, 8.0)},
        },
    )
    t = fd.fig16_table(v)
    assert list(t["match"]) == ["yes", "yes", "partly", "yes"]  # Tetris beats Optimus in async
    assert t["ours"].iloc[0] == "1.25x"
    text = fd.fig16_reading(v)
    assert "all sync: Optimus over DRF 1.25x in JCT" in text
    assert "for 3 of 3 schemes" in text


def test_fig17_table_and_reading():
    v = _versus(
        "arrivals",
        {
            "poisson": {"drf": (2.0, 5.0), "optimus": (1.8, 4.5), "tetris": (3.0, 9.0)},
            "google": {"drf": (0.8, 9.0), "optimus": (0.6, 8.5), "tetris": (1.0, 10.0)},
        },
    )
    t = fd.fig17_table(v)
    assert list(t["match"]) == ["yes", "yes", "partly"]  # google: larger JCT gain, smaller makespan gain
    jobs = pd.DataFrame(
        {"arrivals": ["poisson"] * 2 + ["google"] * 2, "seed": 0, "arrival_h": [0.0, 2.0, 0.0, 7.0]}
    )
    text = fd.fig17_reading(v, jobs)
    assert "poisson 2.0" in text and "google 7.0" in text and "poisson: 1.11x in JCT" in text


def test_fig18_and_fig19():
    v18 = pd.DataFrame(
        {
            "mean_jct_h": [1.0, 1.12, 1.1],
            "jct_reduction": [0.12, 0.0, 0.02],
            "makespan_reduction": [0.31, 0.0, 0.0],
        },
        index=pd.Index(["optimus", "drf_allocation", "drf"], name="scheme"),
    )
    t18 = fd.fig18_table(v18, PAPER["fig18"])
    assert list(t18["match"]) == ["partly", "yes"]
    assert "12 %" in fd.fig18_reading(v18) and "1.12 h vs 1.10 h" in fd.fig18_reading(v18)
    v19 = pd.DataFrame(
        {
            "scheme": ["optimus", "load_balance_placement", "best_fit_placement"],
            "jct_speedup": [1.0, 0.86, 0.95],
            "makespan_speedup": [1.0, 0.96, 1.02],
        }
    )
    t19 = fd.fig19_table(v19, PAPER["fig19"])
    assert list(t19["match"]) == ["yes", "partly", "partly", "no"]
    assert list(t19["ours"]) == ["14 %", "5.0 %", "4.0 %", "-2.0 %"]
    assert "allocation (Fig. 18) cuts mean JCT by 12 %" in fd.fig19_reading(v19, v18)
    none = fd.fig19_table(None, PAPER["fig19"])
    assert set(none["match"]) == {"-"} and fd.scorecard([none]).empty


def test_table3_table_parses_the_string_table():
    t3 = pd.DataFrame(
        {
            "quantity": ["PAA: total requests", "MXNet default: request difference"],
            "paper": ["157", "43"],
            "ours": ["157", "12"],
        }
    )
    assert list(fd.table3_table(t3)["match"]) == ["yes", "no"]


def test_gap_reading(profile):
    speedups = pd.DataFrame(
        [
            {"job_type": t, "job_mode": m, "n": n, "efficiency": e}
            for t, m, effs in (("a", "sync", (1.0, 0.8, 0.5, 0.3)), ("b", "async", (1.0, 0.95, 0.9, 0.85)))
            for n, e in zip((1, 4, 8, 16), effs, strict=True)
        ]
    )
    text = fd.gap_reading(profile, speedups)
    # DRF 4.0 bundles per job: efficiency read at n = 4 (both bounds)
    assert "4.0 bundles" in text and "at 4-4 bundles: sync 0.80; async 0.95" in text
    assert (
        "25 % fewer CPU core-hours" in text
        and "median 0.85" in text
        and "Sync efficiency at 8 bundles: 0.50" in text
    )


def test_scorecard_keeps_judged_rows_and_rejects_bad_verdicts(totals):
    t = fd.fig11_table(totals, PAPER["fig11"])
    card = fd.scorecard({"a": t})
    assert list(card.columns) == list(fd.CARD_COLUMNS)
    assert len(card) == 4 and set(card["match"]) <= {"yes", "partly", "no"}
    assert fd.summary_reading(card) == "4 claims judged: 1 yes, 2 partly, 1 no."
    with pytest.raises(ValueError, match="match"):
        fd.scorecard([t.assign(match="maybe")])
    with pytest.raises(ValueError):
        fd.scorecard([t.drop(columns="ours")])
    assert fd.scorecard([]).empty


# ------------------------------------------------------------------------------ notebooks 20, 21


def test_threshold_reading():
    # curve "a": normalised decreases 0.5, 0.0, 0.0, ... -> converged at epoch 2 for any delta
    epochs = pd.DataFrame({"config": "a", "epoch": range(1, 11), "loss": [2.0, 1.0] + [1.0] * 8})
    text = fd.threshold_reading(epochs, (0.01,), confirm=3)
    assert text == "delta = 0.01: 1 of 1 curves converge, after 2 epochs."


def test_fig6_reading_groups_the_curves():
    e = pd.DataFrame(
        {
            "config": ["a", "a", "b", "b", "c", "c"],
            "observed": [40, 40, 10, 10, 20, 20],
            "progress": [0.05, 1.0, 0.1, 1.0, 0.05, 1.0],
            "error": [0.5, 0.0, 2.18, 0.0, -0.2, 0.0],
            "e_star": [40, 20, 30, 16, 21, 21],
            "raw_error": [0.0, -0.5, 2.0, 0.6, 0.05, 0.05],
        }
    )
    text = fd.fig6_reading(e, early=0.1, tol=0.1)
    assert "+218 % (b)" in text
    assert "too early (raw error below -10 %) for a: e* = 20 against e_obs = 40" in text
    assert "too late for b: raw error +60 % to +60 %" in text
    assert "(largest |raw error| 5.0 %): c" in text


def test_fig7_reading():
    betas = pd.DataFrame(
        {"config": ["x", "y"], "beta0": [0.084, 1.0], "beta1": [1.0, 0.0], "beta2": [0.07, 0.0]}
    )
    online = pd.DataFrame({"fraction": [1.0, 0.1, 0.5], "beta2": [0.07, 0.05, 0.09]})
    text = fd.fig7_reading(betas, online, "x")
    assert "0.40 of the paper's" in text and "0.08-1.00" in text
    assert "first 10% of the epochs, the plateau beta2 is 0.050; on more epochs 0.070-0.090" in text


def test_fig9_reading():
    peaks = pd.DataFrame(
        {
            "mode": ["sync", "sync", "async"],
            "slice": ["vs_w", "vs_w", "vs_w"],
            "fixed": [8, 2, 2],
            "best": [9, 5, 20],
            "last": [20, 20, 20],
            "gain_second_half": [-0.2, -0.4, 0.5],
        }
    )
    text = fd.fig9_reading(peaks)
    assert text.index("p = 2: peak at w = 5, -40 %") < text.index("p = 8: peak at w = 9, -20 %")
    assert "largest w on 1 of 1 slices" in text and "at least 50 %" in text


def test_fit_reading():
    errors = pd.DataFrame(
        {
            "model": ["loss Eq. (1)"] * 3 + ["speed Eq. (3) async"] * 2,
            "noise": [0.0, 0.05, 0.05, 0.05, 0.05],
            "error_over_noise": [np.nan, 0.3, 0.5, 0.6, 0.6],
            "grid_error": [np.nan, np.nan, np.nan, 0.02, 0.04],
        }
    )
    text = fd.fit_reading(errors, noise=0.05)
    assert "0.40-0.60 sigma" in text and "at 5% noise: speed Eq. (3) async 3.0 %" in text


def test_allocation_gap_reading():
    gaps = pd.DataFrame(
        {
            "stop_rule": ["literal", "literal", "skip", "skip"],
            "gap": [0.0, 0.1, 0.0, 0.02],
            "optimal": [True, False, True, False],
        }
    )
    text = fd.allocation_gap_reading(gaps)
    assert "literal: 2 instances, optimal on 50 %, mean gap 5.0 %, largest 10 %." in text
    assert text.endswith("Worse on average: literal.")


def test_paa_reading_counts_the_very_small_blocks():
    sizes = [100.0, 60.0, 40.0, 0.5, 0.25, 0.25]  # avg over 2 PS: 100.5; very small below 1.005
    a = paa(sizes, 2, 0.01)
    text = fd.paa_reading(sizes, a, eps=0.01)
    assert "3 very small blocks" in text and "2 PS" in text
    assert sum(1 for _ in a.parts) == 6


def test_table3_reading():
    t3 = pd.DataFrame(
        {
            "ours PAA": [0.1, 1.0, 157.0],
            "MXNet random mean": [1.8, 11.7, 247.0],
            "MXNet key hash": [1.14, 2.0, 247.0],
        },
        index=["size difference (M params)", "request difference", "total requests"],
    )
    mx = pd.DataFrame({"size_difference": [1e6, 4e6, 2e6], "request_difference": [10, 44, 20]})
    text = fd.table3_reading(t3, mx)
    assert "over 3 seeds" in text and "at most 44" in text
    assert ">= 3.6M on 1 seeds" in text and ">= 43 on 1" in text and "key hash: size difference 1.14M" in text
