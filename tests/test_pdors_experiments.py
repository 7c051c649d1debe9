"""PD-ORS Figs. 6-10 experiments (notebook 32): the per-job table, determinism (also through the
sweep cache), parameter validation, aggregation and the paper-vs-ours tables."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

from dlsched import experiments as ex
from dlsched.pdors import experiments as px

matplotlib.use("Agg")

TINY = {"n_jobs": 6, "n_machines": 4, "T": 10}


@pytest.fixture(scope="module")
def pdors_jobs() -> pd.DataFrame:
    return px.job_run({"policy": "pdors", "seed": 3, **TINY})


# ------------------------------------------------------------------------------ the experiment


def test_job_run_table_is_consistent(pdors_jobs):
    j = pdors_jobs
    assert tuple(j.columns) == px.JOB_COLUMNS
    assert len(j) == TINY["n_jobs"] and j["job_id"].is_unique
    fin = j["status"] == "finished"
    assert fin.any()
    # PD-ORS finishes exactly what it admits (its plans are feasible); others get nothing
    assert (j["admitted"] == fin).all()
    assert (j.loc[~fin, "utility"] == 0).all() and (j.loc[fin, "utility"] > 0).all()
    np.testing.assert_allclose(j.loc[fin, "training_time"], (j["completion_time"] - j["start_slot"])[fin])
    np.testing.assert_allclose(j.loc[fin, "jct"], (j["completion_time"] - j["arrival"])[fin])
    assert j.loc[~fin, "training_time"].isna().all()
    assert (j["training_time"][fin] <= j["jct"][fin] + 1e-9).all()
    assert (j["internal_slots"] <= j["run_slots"]).all()
    assert (j.loc[fin, "run_slots"] >= 1).all() and (j.loc[fin, "machines"] >= 1).all()
    assert (j.loc[~fin, "run_slots"] == 0).all() and j.loc[~fin, "machines"].isna().all()
    assert j["payoff"].notna().all() and (j.loc[fin, "payoff"] > 0).all()
    assert j["priority"].between(1, 100).all()
    # a job PD-ORS finishes could finish by T
    assert j.loc[fin, "finishable"].all()


@pytest.mark.parametrize("policy", ["fifo", "drf", "oasis_split", "pdors_nocoloc"])
def test_job_run_other_schemes(policy):
    j = px.job_run({"policy": policy, "seed": 0, **TINY})
    assert tuple(j.columns) == px.JOB_COLUMNS and len(j) == TINY["n_jobs"]
    assert j["utility"].ge(0).all()
    if policy in ("fifo", "drf"):
        assert j["admitted"].all()
    if policy == "pdors_nocoloc":
        assert j["payoff"].notna().all()
    else:
        assert j["payoff"].isna().all()
    if policy == "oasis_split":  # workers and PS never share a machine
        assert (j["internal_slots"] == 0).all()


def test_job_run_is_deterministic(pdors_jobs):
    again = px.job_run({"policy": "pdors", "seed": 3, **TINY})
    pd.testing.assert_frame_equal(pdors_jobs, again)
    other = px.job_run({"policy": "pdors", "seed": 4, **TINY})
    assert not pdors_jobs["priority"].equals(other["priority"])


def test_job_run_through_the_sweep_cache(tmp_path):
    grid = ex.param_grid(TINY, policy=["fifo", "pdors"], seed=[0])
    first = ex.sweep(px.job_run, grid, cache_dir=tmp_path, scheduler="serial")
    second = ex.sweep(px.job_run, grid, cache_dir=tmp_path, scheduler="serial")
    pd.testing.assert_frame_equal(first, second)
    assert {"policy", "seed", "n_jobs", "n_machines", "T"} <= set(first.columns)
    totals = px.run_totals(first)
    assert list(totals["policy"]) == ["fifo", "pdors"] and (totals["jobs"] == TINY["n_jobs"]).all()


def test_workload_and_policy_params_reach_their_targets():
    narrow = px.job_run({"policy": "fifo", **TINY, "workload": {"theta1": [5.0, 5.0]}})
    assert np.allclose(narrow["priority"], 5.0)
    coarse = px.job_run({"policy": "pdors", **TINY, "policy_params": {"levels": 10}})
    assert len(coarse) == TINY["n_jobs"]


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"seed": 0}, "policy"),
        ({"policy": "oasis"}, "policy"),
        ({"policy": "pdors", "H": 3}, "H"),
        ({"policy": "pdors", "seed": -1}, "seed"),
        ({"policy": "pdors", "seed": 1.0}, "seed"),
        ({"policy": "pdors", "n_jobs": 0}, "n_jobs"),
        ({"policy": "pdors", "n_machines": True}, "n_machines"),
        ({"policy": "pdors", "T": "20"}, "T"),
        ({"policy": "pdors", "workload": [1]}, "workload"),
        ({"policy": "pdors", "workload": {"n_jobs": 5}}, "n_jobs"),
        ({"policy": "pdors", "policy_params": "levels=5"}, "policy_params"),
    ],
)
def test_job_run_rejects_bad_params(params, key):
    with pytest.raises(ValueError, match=key):
        px.job_run(params)


def test_job_run_rejects_a_non_mapping_and_bad_inner_params():
    with pytest.raises(TypeError, match="mapping"):
        px.job_run([("policy", "pdors")])
    with pytest.raises(ValueError, match="levelz"):
        px.job_run({"policy": "pdors", **TINY, "policy_params": {"levelz": 3}})
    with pytest.raises(ValueError, match="reading"):
        px.job_run({"policy": "fifo", **TINY, "workload": {"reading": "minutes"}})


# ------------------------------------------------------------------------------ measurements


def test_placement_profile_counts_internal_slots():
    runs = pd.DataFrame(
        [
            # job 0: slots 0-1 packed on machine 2, slot 2 spread over machines 2 and 3
            (0, 0, 2, 2, "worker", 3), (0, 0, 2, 2, "ps", 1),
            (0, 2, 1, 2, "worker", 2), (0, 2, 1, 3, "ps", 1),
            # job 1: workers only on one machine (no PS there): not internal
            (1, 0, 4, 1, "worker", 1), (1, 0, 4, 0, "ps", 1),
        ],
        columns=["job", "slot", "slots", "server", "role", "count"],
    )  # fmt: skip
    prof = px._placement_profile(runs)
    assert prof.loc[0, "run_slots"] == 3 and prof.loc[0, "internal_slots"] == 2
    assert prof.loc[0, "machines"] == pytest.approx((2 * 1 + 1 * 2) / 3)
    assert prof.loc[1, "run_slots"] == 4 and prof.loc[1, "internal_slots"] == 0
    assert px._placement_profile(runs.iloc[:0]).empty


def _jobs_frame() -> pd.DataFrame:
    rows = [
        # policy, seed, job, finishable, admitted, status, utility, run, internal, training, jct
        ("pdors", 0, 0, True, True, "finished", 10.0, 4.0, 4.0, 4.0, 5.0),
        ("pdors", 0, 1, True, True, "finished", 6.0, 2.0, 0.0, 2.0, 2.0),
        ("pdors", 0, 2, False, False, "rejected", 0.0, 0.0, 0.0, math.nan, math.nan),
        ("fifo", 0, 0, True, True, "finished", 3.0, 6.0, 0.0, 6.0, 7.0),
        ("fifo", 0, 1, True, True, "unfinished", 0.0, 5.0, 0.0, math.nan, math.nan),
        ("fifo", 0, 2, False, True, "unfinished", 0.0, 0.0, 0.0, math.nan, math.nan),
    ]
    cols = [
        "policy",
        "seed",
        "job_id",
        "finishable",
        "admitted",
        "status",
        "utility",
        "run_slots",
        "internal_slots",
        "training_time",
        "jct",
    ]
    return pd.DataFrame(rows, columns=cols).assign(n_jobs=3)


def test_run_totals():
    t = px.run_totals(_jobs_frame()).set_index("policy")
    assert list(t.index) == ["fifo", "pdors"]
    assert t.loc["pdors", "jobs"] == 3 and t.loc["pdors", "admitted"] == 2
    assert t.loc["pdors", "finished"] == 2 and t.loc["pdors", "finishable"] == 2
    assert t.loc["pdors", "total_utility"] == 16.0
    assert t.loc["pdors", "internal_share"] == pytest.approx(4 / 6)
    assert t.loc["fifo", "internal_share"] == 0.0
    with pytest.raises(ValueError, match="utility"):
        px.run_totals(_jobs_frame().drop(columns="utility"))
    with pytest.raises(TypeError):
        px.run_totals([1, 2])


def test_training_times():
    t = px.training_times(_jobs_frame(), ["policy", "seed"]).set_index("policy")
    assert t.loc["pdors", "finished"] == 2 and t.loc["pdors", "median_training_time"] == 3.0
    assert t.loc["pdors", "median_jct"] == 3.5
    assert t.loc["pdors", "internal_share"] == pytest.approx(4 / 6)
    assert t.loc["fifo", "finished"] == 1 and t.loc["fifo", "median_training_time"] == 6.0
    assert t.loc["fifo", "internal_share"] == 0.0  # only the finished job's slots count


def _totals(x: str, values: dict[str, list[float]], xs=(10, 20), **extra) -> pd.DataFrame:
    rows = []
    for p, us in values.items():
        for xv, u in zip(xs, us, strict=True):
            for seed in (0, 1):
                rows.append(
                    {
                        "policy": p,
                        x: xv,
                        "seed": seed,
                        "total_utility": u + (seed - 0.5),
                        "admitted": 5,
                        "internal_share": 0.5 if p == "pdors" else 0.0,
                        **extra,
                    }
                )
    return pd.DataFrame(rows)


def test_mean_utility_and_colocation_effects():
    t = _totals("n_jobs", {"pdors": [30, 60], "oasis_split": [10, 20], "pdors_nocoloc": [15, 18]})
    m = px.mean_utility(t, "n_jobs")
    assert list(m.columns) == ["oasis_split", "pdors_nocoloc", "pdors"]
    assert m.loc[20, "pdors"] == 60
    eff = px.colocation_effects(t, "n_jobs")
    assert eff.loc[10, "pdors/oasis"] == 3 and eff.loc[20, "sharing"] == -2
    assert eff.loc[20, "internal_bus"] == 42 and eff.loc[10, "pdors internal share"] == 0.5
    assert eff.loc[10, "admitted pdors"] == 5
    with pytest.raises(ValueError, match="pdors_nocoloc"):
        px.colocation_effects(t[t["policy"] != "pdors_nocoloc"], "n_jobs")


# ------------------------------------------------------------------------------ paper vs ours


@pytest.mark.parametrize("figure", sorted(px.PAPER))
def test_paper_tables(figure):
    t = px.paper_table(figure)
    assert list(t.columns) == ["quantity", "paper"] and t["quantity"].iloc[0] == "setting"


def test_paper_table_rejects_unknown_figure():
    with pytest.raises(ValueError, match="fig11"):
        px.paper_table("fig11")


def test_fig6_comparison():
    t = _totals("n_machines", {"pdors": [30, 60], "dorm": [40, 20], "fifo": [1, 2]})
    c = px.fig6_comparison(t, setting="tiny")
    assert list(c.columns) == ["quantity", "paper", "ours", "match"]
    assert list(c["match"]) == ["-", "partly", "partly"]
    assert c["ours"].iloc[0] == "tiny" and "10: dorm" in c["ours"].iloc[1]
    best = px.fig6_comparison(_totals("n_machines", {"pdors": [30, 60], "drf": [1, 2]}))
    assert list(best["match"]) == ["-", "yes", "yes"]
    with pytest.raises(ValueError, match="PD-ORS"):
        px.fig6_comparison(_totals("n_machines", {"drf": [1, 2]}))


@pytest.mark.parametrize(("top", "verdict"), [(1000.0, "yes"), (1500.0, "partly"), (3000.0, "no")])
def test_fig7_scale_row(top, verdict):
    t = _totals("n_jobs", {"pdors": [300, top], "drf": [100, 200]}, xs=(10, 50), n_machines=100)
    c = px.fig7_comparison(t).set_index("quantity")
    assert c.loc["scale of total utility at 50 jobs", "match"] == verdict
    assert c.loc["PD-ORS total utility grows with jobs", "match"] == "yes"


def test_fig7_away_from_the_paper_size():
    t = _totals("n_jobs", {"pdors": [300, 200], "drf": [100, 250]}, xs=(10, 20), n_machines=20)
    c = px.fig7_comparison(t).set_index("quantity")
    assert c.loc["scale of total utility at 50 jobs", "match"] == "-"
    assert "not at the paper's size" in c.loc["scale of total utility at 50 jobs", "ours"]
    assert c.loc["PD-ORS total utility grows with jobs", "match"] == "no"
    assert c.loc["best scheme at every job count", "match"] == "partly"


def test_fig8_and_fig9_comparisons():
    vals = {"pdors": [30, 60], "oasis_split": [10, 70], "pdors_nocoloc": [15, 18]}
    c8 = px.fig8_comparison(_totals("n_jobs", vals))
    assert list(c8["match"]) == ["-", "partly", "-"]
    assert "internal bus" in c8["ours"].iloc[2]
    vals["oasis_split"] = [10, 20]
    c9 = px.fig9_comparison(_totals("n_machines", vals), setting="s")
    assert list(c9["match"]) == ["-", "yes", "-"] and "PD-ORS/OASiS 10: 3" in c9["ours"].iloc[1]


def test_fig10_comparison():
    per_run = pd.DataFrame(
        {
            "policy": ["pdors", "pdors", "dorm", "dorm", "pdors_nocoloc", "fifo"],
            "seed": [0, 1, 0, 1, 0, 0],
            "finished": [10, 12, 20, 22, 8, 1],
            "median_training_time": [4.0, 6.0, 7.0, 9.0, 1.0, 0.5],
        }
    )
    c = px.fig10_comparison(per_run, setting="s")
    # the ablation and a scheme with 1 finished job are not ranked
    assert c["match"].iloc[1] == "yes" and c["ours"].iloc[1].startswith("pdors (")
    assert "dorm 8" in c["ours"].iloc[1] and "dorm 21" in c["ours"].iloc[2]
    slow = per_run.assign(median_training_time=[9.0, 9.0, 7.0, 9.0, 1.0, 0.5])
    assert px.fig10_comparison(slow)["match"].iloc[1] == "no"
    assert px.fig10_comparison(per_run, min_finished=100)["match"].iloc[1] == "-"
    with pytest.raises(ValueError, match="min_finished"):
        px.fig10_comparison(per_run, min_finished=0)
    with pytest.raises(ValueError, match="median_training_time"):
        px.fig10_comparison(per_run.drop(columns="median_training_time"))


def test_scorecard_keeps_rows_with_a_verdict():
    t = _totals("n_machines", {"pdors": [30, 60], "drf": [1, 2]})
    card = px.scorecard({"Fig. 6": px.fig6_comparison(t)})
    assert list(card.columns) == ["figure", "quantity", "paper", "match"]
    assert len(card) == 2 and set(card["match"]) == {"yes"} and set(card["figure"]) == {"Fig. 6"}
    assert px.scorecard({}).empty


def test_figures_are_drawn():
    from matplotlib.figure import Figure

    t = _totals("n_jobs", {"pdors": [30, 60], "oasis_split": [10, 20]})
    assert isinstance(px.utility_figure(t, "n_jobs", title="t"), Figure)
    per_run = px.training_times(_jobs_frame(), ["policy", "seed"])
    assert isinstance(px.training_time_figure(per_run, title="t"), Figure)
    with pytest.raises(ValueError, match="total_utility"):
        px.utility_figure(t.drop(columns="total_utility"), "n_jobs")


def test_missed_jobs():
    j = _jobs_frame().assign(n_jobs=3)
    m = px.missed_jobs(j, "n_jobs", scheme="fifo", other="pdors")
    # pdors finishes jobs 0 and 1; fifo finishes job 0 only: one missed (not rejected), none gained
    assert m.loc[3, "missed"] == 1 and m.loc[3, "rejected"] == 0
    assert m.loc[3, "other_utility"] == 6.0 and m.loc[3, "gained"] == 0
    r = px.missed_jobs(j, "n_jobs", scheme="pdors", other="fifo")
    assert r.loc[3, "missed"] == 0 and r.loc[3, "gained"] == 1
    with pytest.raises(ValueError, match="drf"):
        px.missed_jobs(j, "n_jobs", other="drf")
