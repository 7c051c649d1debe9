"""Optimus Sec. 6 experiment functions (notebook 22): per-job and per-slot tables, summaries on
hand-made frames, parameter validation, determinism through the sweep cache."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched import experiments as ex
from dlsched.optimus import experiments as oe

SMALL = {"n_jobs": 8, "data_scale": 0.5}


@pytest.fixture(scope="module")
def optimus_jobs() -> pd.DataFrame:
    return oe.job_run({"scheme": "optimus", "seed": 3, **SMALL})


# ------------------------------------------------------------------------------ experiments


def test_job_run_table_is_consistent(optimus_jobs):
    j = optimus_jobs
    assert tuple(j.columns) == oe.JOB_COLUMNS
    assert len(j) == SMALL["n_jobs"] and list(j["job_id"]) == list(range(SMALL["n_jobs"]))
    assert (j["status"] == "finished").all()
    np.testing.assert_allclose(j["jct_h"], j["completion_h"] - j["arrival_h"], atol=1e-9)
    assert set(j["job_mode"]) <= {"sync", "async"}
    assert (j["running_slots"] >= 1).all() and (j["mean_workers"] >= 1).all() and (j["mean_ps"] >= 1).all()
    assert (j["max_tasks"] >= j["mean_workers"] + j["mean_ps"] - 1e-9).all()
    # a job with tasks in k slots was in the system for more than k - 1 of them (10 minutes each)
    assert (j["jct_h"] > (j["running_slots"] - 1) / 6 - 1e-9).all()


@pytest.mark.parametrize("scheme", ["drf", "tetris", "drf_allocation"])
def test_every_job_finishes(scheme):
    j = oe.job_run({"scheme": scheme, "seed": 0, **SMALL})
    assert (j["status"] == "finished").all() and j["jct_h"].gt(0).all()


def test_job_run_is_deterministic(optimus_jobs):
    again = oe.job_run({"scheme": "optimus", "seed": 3, **SMALL})
    pd.testing.assert_frame_equal(optimus_jobs, again)
    other = oe.job_run({"scheme": "optimus", "seed": 4, **SMALL})
    assert not optimus_jobs["arrival_h"].equals(other["arrival_h"])


def test_timeline_matches_job_table(optimus_jobs):
    tl = oe.timeline_run({"scheme": "optimus", "seed": 3, **SMALL})
    assert tuple(tl.columns) == oe.TIMELINE_COLUMNS
    assert tl["slot"].is_monotonic_increasing and tl["slot"].is_unique
    assert tl["cpu_share"].between(0, 1).all()
    assert (tl["running_tasks"] == tl["running_workers"] + tl["running_ps"]).all()
    # the cores the timeline shows per slot add up to the core-hours the jobs held
    np.testing.assert_allclose(tl["cpu_used"].sum() / 6, optimus_jobs["cpu_core_hours"].sum())
    assert tl["running_workers"].sum() == pytest.approx((optimus_jobs["mean_workers"]
                                                         * optimus_jobs["running_slots"]).sum())


def test_sweep_of_job_run_is_cached_and_identical(tmp_path):
    grid = ex.param_grid(SMALL, scheme=["drf"], seed=[0, 1])
    a = ex.sweep(oe.job_run, grid, cache_dir=tmp_path, scheduler="serial")
    b = ex.sweep(oe.job_run, grid, cache_dir=tmp_path, scheduler="serial")
    pd.testing.assert_frame_equal(a, b)
    assert len(list(tmp_path.glob("*.parquet"))) == 2
    assert list(a.columns[:4]) == ["n_jobs", "data_scale", "scheme", "seed"]


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"scheme": "optimus", "bogus": 1}, "unknown parameter.*bogus"),
        ({"seed": 0}, "missing parameter 'scheme'"),
        ({"scheme": "fifo"}, "scheme must be one of"),
        ({"scheme": "optimus", "mode": "mixed"}, "mode must be one of"),
        ({"scheme": "optimus", "arrivals": "bursty"}, "arrivals must be one of"),
        ({"scheme": "optimus", "seed": -1}, "seed must be an integer >= 0"),
        ({"scheme": "optimus", "n_jobs": 0}, "n_jobs must be an integer >= 1"),
        ({"scheme": "optimus", "speed_error": 1.5}, "speed_error must be a number"),
        ({"scheme": "drf", "convergence_error": 0.1}, "uses no estimates"),
        ({"scheme": "optimus", "horizon": 0}, "horizon must be an integer >= 1"),
    ],
)
def test_bad_parameters_raise(params, match):
    with pytest.raises(ValueError, match=match):
        oe.job_run(params)


def test_params_must_be_a_mapping():
    with pytest.raises(TypeError, match="mapping"):
        oe.timeline_run([("scheme", "optimus")])


# ------------------------------------------------------------------------------ summaries


def _hand_jobs() -> pd.DataFrame:
    # two schemes x two seeds, two jobs each; one unfinished job in ("b", 1)
    rows = [
        ("a", 0, "finished", 0.0, 1.0), ("a", 0, "finished", 1.0, 3.0),
        ("a", 1, "finished", 0.5, 1.5), ("a", 1, "finished", 0.5, 2.5),
        ("b", 0, "finished", 0.0, 2.0), ("b", 0, "finished", 1.0, 5.0),
        ("b", 1, "finished", 0.5, 4.5), ("b", 1, "unfinished", 0.5, math.nan),
    ]  # fmt: skip
    df = pd.DataFrame(rows, columns=["scheme", "seed", "status", "arrival_h", "completion_h"])
    df["jct_h"] = df["completion_h"] - df["arrival_h"]
    return df


def test_run_totals_on_hand_made_frame():
    t = oe.run_totals(_hand_jobs(), ["scheme", "seed"])
    assert list(t.columns) == ["scheme", "seed", *oe.TOTALS_COLUMNS]
    a0 = t[(t.scheme == "a") & (t.seed == 0)].iloc[0]
    assert (a0.jobs, a0.finished, a0.unfinished) == (2, 2, 0)
    assert a0.mean_jct_h == pytest.approx(1.5) and a0.makespan_h == pytest.approx(3.0)
    b1 = t[(t.scheme == "b") & (t.seed == 1)].iloc[0]
    assert b1.unfinished == 1 and b1.mean_jct_h == pytest.approx(4.0) and b1.makespan_h == pytest.approx(4.0)
    assert oe.finished_claim(t, "hand").holds is False
    assert oe.finished_claim(t[t.scheme == "a"], "hand").holds is True


def test_versus_computes_speedups_and_reductions():
    t = oe.run_totals(_hand_jobs(), ["scheme", "seed"])
    v = oe.versus(t, "b").set_index("scheme")
    # scheme a: JCT 1.5 and 1.5 -> 1.5; b: 3.0 and 4.0 -> 3.5. Makespans a: 3, 2 -> 2.5; b: 5, 4 -> 4.5
    assert v.loc["a", "jct_speedup"] == pytest.approx(3.5 / 1.5)
    assert v.loc["a", "jct_reduction"] == pytest.approx(1 - 1.5 / 3.5)
    assert v.loc["a", "makespan_speedup"] == pytest.approx(4.5 / 2.5)
    assert v.loc["b", "jct_speedup"] == pytest.approx(1.0) and v.loc["b", "makespan_reduction"] == 0
    with pytest.raises(ValueError, match="baseline 'c'"):
        oe.versus(t, "c")
    with pytest.raises(ValueError, match="missing column"):
        oe.versus(t.drop(columns="makespan_h"), "b")


def test_scheme_stats_mean_and_std():
    t = oe.run_totals(_hand_jobs(), ["scheme", "seed"])
    s = oe.scheme_stats(t)
    assert s.loc["b", "jct_mean_h"] == pytest.approx(3.5)
    assert s.loc["b", "jct_std_h"] == pytest.approx(np.std([3.0, 4.0], ddof=1))
    assert s.loc["b", "unfinished"] == 1 and s.loc["a", "runs"] == 2


def test_error_gaps_pairs_runs_by_seed():
    t = pd.DataFrame(
        {
            "convergence_error": [0.0, 0.0, 0.2, 0.2],
            "speed_error": [0.0, 0.0, 0.1, 0.1],
            "seed": [0, 1, 0, 1],
            "mean_jct_h": [1.0, 2.0, 1.2, 2.2],
            "makespan_h": [4.0, 5.0, 4.0, 6.0],
        }
    )
    g = oe.error_gaps(t).set_index(["convergence_error", "speed_error"])
    assert g.loc[(0.2, 0.1), "jct_ratio"] == pytest.approx((1.2 + 1.1) / 2)
    assert g.loc[(0.2, 0.1), "makespan_ratio"] == pytest.approx((1.0 + 1.2) / 2)
    assert g.loc[(0.0, 0.0), "jct_ratio"] == 1.0
    with pytest.raises(ValueError, match="no error-free run"):
        oe.error_gaps(t.iloc[[0, 2, 3]])


def test_speedup_table_is_sublinear():
    s = oe.speedup_table((1, 2, 8), job_types=["resnet50", "kaggle"])
    assert len(s) == 2 * 2 * 3
    assert (s.loc[s.n == 1, "speedup"] == 1).all()
    assert (s["efficiency"] <= 1 + 1e-12).all() and (s["efficiency"] > 0).all()
    with pytest.raises(ValueError, match="unknown job type"):
        oe.speedup_table(job_types=["alexnet"])


def test_task_profile_and_paper_tables(optimus_jobs):
    p = oe.task_profile(optimus_jobs.assign(scheme="optimus"))
    assert p.loc["optimus", "mean_workers"] == pytest.approx(optimus_jobs["mean_workers"].mean())
    t3 = oe.table3_comparison(seeds=2).set_index("quantity")
    assert t3.loc["PAA: total requests", "ours"] == "157"
    assert t3.loc["MXNet default: total requests", "paper"] == "247"
    with pytest.raises(ValueError, match="row 0"):
        oe.paper_vs_ours([("x", 1)])


def test_complete_runs_and_beats_claim():
    t = oe.run_totals(_hand_jobs(), ["scheme", "seed"])
    c = oe.complete_runs(t)
    assert set(c["seed"]) == {0} and len(c) == 2  # seed 1 has an unfinished job under "b"
    claim = oe.beats_claim(t, "a", "b", "hand")
    assert claim.holds and claim.details["jct_speedup"] == pytest.approx(3.5 / 1.5)
    assert not oe.beats_claim(t, "b", "a", "hand").holds
    with pytest.raises(ValueError, match="scheme 'z'"):
        oe.beats_claim(t, "z", "a", "hand")


def test_timeline_stats_means():
    tl = pd.DataFrame({"scheme": ["x", "x", "y"], "running_jobs": [1, 3, 2], "running_tasks": [4, 6, 2],
                       "running_workers": [2, 4, 1], "running_ps": [2, 2, 1], "cpu_share": [0.5, 1.0, 0.25]})
    s = oe.timeline_stats(tl)
    assert s.loc["x", "running_jobs"] == 2 and s.loc["x", "cpu_share"] == 0.75
    assert s.loc["x", "hours"] == pytest.approx(2 / 6)
