"""A_online Figs. 3-14 experiments (notebook 42): the per-job table and its measurements checked
against independent computations, determinism (also through the sweep cache), parameter
validation, aggregation, and the paper-vs-ours verdicts on constructed tables."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

from dlsched import experiments as ex
from dlsched import registry
from dlsched.aonline import experiments as ax
from dlsched.aonline.model import ps_slots, worker_slots
from dlsched.core.simulator import simulate

matplotlib.use("Agg")

TINY = {"n_edge": 4, "n_jobs": 6, "T": 32}


@pytest.fixture(scope="module")
def aonline_jobs() -> pd.DataFrame:
    return ax.job_run({"policy": "aonline", "seed": 1, **TINY})


# ------------------------------------------------------------------------------ the experiment


def test_job_run_table_is_consistent(aonline_jobs):
    j = aonline_jobs
    assert tuple(j.columns) == ax.JOB_COLUMNS
    assert len(j) == TINY["n_jobs"] and j["job_id"].is_unique
    assert (j["status"] == "finished").all()  # horizon None: every job finishes
    np.testing.assert_array_equal(j["tct"], j["completion_slot"] - j["arrival"])
    np.testing.assert_array_equal(j["wait"], j["start_slot"] - j["arrival"])
    assert (j["wait"] >= 0).all() and (j["tct"] >= j["wait"]).all()
    assert (j["scheme"] == "aonline").all()
    # A_online: a job starts at its tau_i, is admitted at cost >= 0 and ends inside its window
    assert (j["cost"] >= 0).all() and (j["cost"] < j["weight"]).all()
    assert (j["rounds_waited"] >= 0).all() and (j["rounds_waited"] == j["rounds_waited"].round()).all()
    assert (j["window_fill"] > 0).all() and (j["window_fill"] <= 1 + 1e-9).all()
    assert ((j["workers"] >= 1) & (j["workers"] <= j["max_workers"])).all()
    assert j["cloud_share"].between(0, 1).all() and j["colocated"].isin([0.0, 1.0]).all()
    assert j["preemptions"].isna().all()
    run_level = ["util", "util_worker", "util_ps", "present_slots", "end_slot", "server_source"]
    assert (j[run_level].nunique() == 1).all()
    assert 0 < j["util"].iloc[0] <= 1 and j["util"].iloc[0] == pytest.approx(
        (j["util_worker"].iloc[0] + j["util_ps"].iloc[0]) / 2
    )


def test_utilisation_matches_an_independent_count():
    """Recompute util_worker / util_ps from the run's per-slot allocation table and capacities."""
    params = {"policy": "drf", "seed": 2, **TINY}
    j = ax.job_run(params)
    wl = registry.make_workload("aonline", seed=2, **TINY)
    res = simulate(wl, registry.make_policy("drf", wl), seed=2)
    alloc = res.allocations
    present = set()
    for a, c in zip(res.jobs["arrival"], res.jobs["completion_slot"], strict=True):
        present |= set(range(int(a), int(c) + 1))
    busy = alloc.groupby("role")["count"].sum()
    W, P = worker_slots(wl.cluster).sum(), ps_slots(wl.cluster).sum()
    assert j["present_slots"].iloc[0] == len(present)
    assert j["util_worker"].iloc[0] == pytest.approx(busy["worker"] / (W * len(present)))
    assert j["util_ps"].iloc[0] == pytest.approx(busy["ps"] / (P * len(present)))
    # per job: slots with workers and mean workers from the same table
    w = alloc[alloc["role"] == "worker"]
    per = w.groupby("job").agg(slots=("slot", "nunique"), ws=("count", "sum"))
    jj = j.set_index("job_id")
    np.testing.assert_allclose(jj.loc[per.index, "run_slots"], per["slots"])
    np.testing.assert_allclose(jj.loc[per.index, "workers"], per["ws"] / per["slots"])


def test_job_run_is_deterministic(aonline_jobs):
    again = ax.job_run({"policy": "aonline", "seed": 1, **TINY})
    pd.testing.assert_frame_equal(aonline_jobs, again)
    other = ax.job_run({"policy": "aonline", "seed": 5, **TINY})
    assert not aonline_jobs["arrival"].equals(other["arrival"])


def test_preemptive_variants_name_their_scheme_and_ignore_delays():
    paid = ax.job_run({"policy": "preemptive", "seed": 0, **TINY})
    free = ax.job_run({"policy": "preemptive", "seed": 0, "upload_delay": "ignored", **TINY})
    ovh = ax.job_run({"policy": "preemptive", "seed": 0, "preemption_overhead": 2.0, **TINY})
    assert set(paid["scheme"]) == {"preemptive"} and set(free["scheme"]) == {"preemptive+nodelay"}
    assert set(ovh["scheme"]) == {"preemptive+overhead"}
    assert paid["preemptions"].notna().all() and paid["cost"].isna().all()
    # same jobs; with no upload delay the first job starts on arrival (an empty cluster)
    np.testing.assert_array_equal(paid["arrival"], free["arrival"])
    assert free["wait"].iloc[0] == 0 and paid["wait"].iloc[0] >= 1
    assert ax.label("preemptive+overhead+nodelay") == "Preemptive + overhead, no upload delay"
    assert ax.scheme_name("preemptive", 0.0, "paid") == "preemptive"


def test_fastest_tie_break_finishes_jobs_no_later_in_their_window(aonline_jobs):
    fast = ax.job_run({"policy": "aonline", "seed": 1, "ties": "fastest", **TINY})
    assert set(fast["scheme"]) == {"aonline+fastest"}
    assert ax.label("aonline+fastest") == "A_online, fastest tie-break (ours)"
    # the first job admitted in the first round faces the same empty window in both runs
    both = aonline_jobs.merge(fast, on="job_id", suffixes=("", "_f")).sort_values(["start_slot", "job_id"])
    first = both.head(1)
    assert (first["start_slot"] == first["start_slot_f"]).all()
    assert (first[["cost", "cost_f"]] == 0).all(axis=None)
    assert len(first) and (first["run_slots_f"] <= first["run_slots"]).all()


def test_weights_and_parameter_size_shortcuts():
    j = ax.job_run({"policy": "aonline", "seed": 0, "weight_max": 5.0, "gradient_mb": 100.0, **TINY})
    assert j["weight"].sum() == pytest.approx(TINY["n_jobs"]) and j["weight"].nunique() > 1
    wl = registry.make_workload("aonline", seed=0, gradient_mb=(100.0, 100.0), **TINY)
    wl2 = registry.make_workload("aonline", seed=0, gradient_mb=(30.0, 30.0), **TINY)
    assert wl.jobs[0].model.comm > wl2.jobs[0].model.comm  # k_j enters 2 k_j / B_j


def test_job_run_through_the_sweep_cache(tmp_path):
    grid = ex.param_grid(TINY, policy=["fifo", "aonline"], seed=[0])
    first = ex.sweep(ax.job_run, grid, cache_dir=tmp_path, scheduler="serial")
    second = ex.sweep(ax.job_run, grid, cache_dir=tmp_path, scheduler="serial")
    pd.testing.assert_frame_equal(first, second)
    totals = ax.run_totals(first)
    assert list(totals["scheme"]) == ["aonline", "fifo"] and (totals["jobs"] == TINY["n_jobs"]).all()
    assert (totals["unfinished"] == 0).all()
    np.testing.assert_allclose(totals["tct"], totals["wait"] + totals["run"])


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"policy": "aonline", "n_job": 5}, "n_job"),
        ({"seed": 0}, "policy"),
        ({"policy": "tetris"}, "policy"),
        ({"policy": "fifo", "F": 1.0}, "F"),
        ({"policy": "aonline", "F": 0.0}, "F"),
        ({"policy": "aonline", "preemption_overhead": 1.0}, "preemption_overhead"),
        ({"policy": "preemptive", "preemption_overhead": -1.0}, "preemption_overhead"),
        ({"policy": "aonline", "n_edge": 0}, "n_edge"),
        ({"policy": "aonline", "T": 2.5}, "T"),
        ({"policy": "aonline", "seed": -1}, "seed"),
        ({"policy": "aonline", "upload_delay": "none"}, "upload_delay"),
        ({"policy": "aonline", "weight_max": 0.5}, "weight_max"),
        ({"policy": "aonline", "gradient_mb": math.nan}, "gradient_mb"),
        ({"policy": "aonline", "workload": {"T": 10}}, "T"),
        ({"policy": "aonline", "workload": [("a", 1)]}, "workload"),
        ({"policy": "fifo", "ties": "fastest"}, "ties"),
        ({"policy": "aonline", "ties": "last"}, "ties"),
    ],
)
def test_job_run_rejects_bad_parameters(params, key):
    with pytest.raises(ValueError, match=key):
        ax.job_run(params)


def test_experiments_reject_non_mappings():
    with pytest.raises(TypeError, match="mapping"):
        ax.job_run([("policy", "aonline")])
    with pytest.raises(TypeError, match="mapping"):
        ax.ratio_run([("seed", 0)])
    with pytest.raises(ValueError, match="time_limit"):
        ax.ratio_run({"time_limit": 0})
    with pytest.raises(ValueError, match="n_jobs"):
        ax.ratio_run({"workload": {"n_jobs": 3}})


def test_ratio_run_is_at_least_one_and_splits_its_totals():
    row = ax.ratio_run({"seed": 0, "n_edge": 2, "n_jobs": 3})
    assert tuple(row.columns) == ax.RATIO_COLUMNS and len(row) == 1
    r = row.iloc[0]
    assert r["status"] == "optimal" and r["mip_gap"] == 0
    assert r["ratio"] >= 1 - 1e-9 and r["ratio"] == pytest.approx(r["aonline_tct"] / r["opt_tct"])
    assert r["aonline_wait"] + r["aonline_run"] == pytest.approx(r["aonline_tct"])
    assert r["opt_wait"] + r["opt_run"] == pytest.approx(r["opt_tct"])
    assert r["ratio_fastest"] >= 1 - 1e-9
    assert r["ratio_fastest"] == pytest.approx(r["fastest_tct"] / r["opt_tct"])
    again = ax.ratio_run({"seed": 0, "n_edge": 2, "n_jobs": 3})
    pd.testing.assert_frame_equal(row.drop(columns="solve_seconds"), again.drop(columns="solve_seconds"))


# ------------------------------------------------------------------------------ measurements


@pytest.mark.parametrize(
    ("starts", "ends", "length"),
    [([], [], 0), ([0], [0], 1), ([0, 5], [2, 6], 5), ([0, 3], [2, 4], 5), ([0, 1], [10, 3], 11),
     ([4, 0], [5, 1], 4), ([2], [1], 0)],
)  # fmt: skip
def test_present_slots_are_the_union_of_job_intervals(starts, ends, length):
    assert ax._intervals_length(np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)) == length


def test_price_scale_follows_equation_7():
    t = ax.price_scale([1.0, 1e-6], T=10, S=3, U=2, capacity=4)
    theta = 2 * 10 * 3 * 2 * np.array([1.0, 1e-6]) + 1
    np.testing.assert_allclose(t["theta1"], theta)
    np.testing.assert_allclose(t["one_used"], theta**0.25 - 1)
    np.testing.assert_allclose(t["half_used"], theta**0.5 - 1)
    np.testing.assert_allclose(t["full"], theta - 1)
    with pytest.raises(ValueError, match="capacity"):
        ax.price_scale([1.0], T=10, S=3, U=2, capacity=0)
    with pytest.raises(ValueError, match="F"):
        ax.price_scale([0.0], T=10, S=3, U=2, capacity=4)


def _rows(scheme, **cols):
    n = len(next(iter(cols.values())))
    base = {
        "job_id": range(n), "status": ["finished"] * n, "weight": [1.0] * n, "wait": [0.0] * n,
        "run_slots": [1.0] * n, "workers": [4.0] * n, "max_workers": [4] * n, "cloud_share": [0.0] * n,
        "cost": [math.nan] * n, "preemptions": [math.nan] * n, "rounds_waited": [math.nan] * n,
        "window_fill": [math.nan] * n, "util": [0.1] * n, "util_worker": [0.1] * n, "util_ps": [0.1] * n,
        "util_worker_edge": [0.1] * n, "util_worker_cloud": [0.1] * n, "end_slot": [100.0] * n,
        "present_slots": [90.0] * n,
    }  # fmt: skip
    base.update(cols)
    return pd.DataFrame(base).assign(scheme=scheme)


def test_run_totals_on_a_constructed_table():
    a = _rows("aonline", tct=[10.0, 30.0], weight=[0.5, 1.5], wait=[4.0, 10.0], cost=[0.0, 0.3],
              workers=[1.0, 4.0], max_workers=[8, 8])  # fmt: skip
    b = _rows("preemptive", tct=[5.0, 5.0], status=["finished", "unfinished"], preemptions=[1.0, 2.0])
    t = ax.run_totals(pd.concat([a, b], ignore_index=True)).set_index("scheme")
    assert t.loc["aonline", "tct"] == 40 and t.loc["aonline", "weighted_tct"] == 0.5 * 10 + 1.5 * 30
    assert t.loc["aonline", "wait"] == 14 and t.loc["aonline", "run"] == 26
    assert t.loc["aonline", "zero_cost"] == 0.5 and math.isnan(t.loc["preemptive", "zero_cost"])
    assert t.loc["aonline", "narrow_share"] == pytest.approx(10 / 40)  # 1 of 8 workers < 1/4
    assert t.loc["preemptive", "preemptions"] == 3 and math.isnan(t.loc["aonline", "preemptions"])
    assert t.loc["preemptive", "unfinished"] == 1 and t.loc["aonline", "unfinished"] == 0
    with pytest.raises(ValueError, match="missing column"):
        ax.run_totals(a.drop(columns="tct"))
    with pytest.raises(TypeError):
        ax.run_totals([1, 2])


# ------------------------------------------------------------------------------ verdicts


@pytest.mark.parametrize(
    ("values", "direction", "verdict"),
    [([1, 2, 3], "up", "yes"), ([1, 3, 2], "up", "partly"), ([3, 2, 1], "up", "no"), ([1, 1, 1], "up", "no"),
     ([3, 2, 1], "down", "yes"), ([1, 1.001, 1.002], "up", "no"), ([5], "up", "-")],
)  # fmt: skip
def test_trend(values, direction, verdict):
    assert ax.trend(values, direction) == verdict


def test_trend_rejects_a_bad_direction():
    with pytest.raises(ValueError, match="direction"):
        ax.trend([1, 2], "sideways")


def _totals(x, schemes: dict[str, list[float]], y="tct", seeds=2) -> pd.DataFrame:
    xs = list(range(1, 1 + len(next(iter(schemes.values())))))
    rows = [
        {"scheme": s, x: v, "seed": k, y: val, "unfinished": 0}
        for s, vals in schemes.items()
        for v, val in zip(xs, vals, strict=True)
        for k in range(seeds)
    ]
    return pd.DataFrame(rows)


def test_fig3_and_fig4_verdicts():
    good = _totals(
        "n_jobs", {"aonline": [1, 2, 3], "drf": [2, 3, 4], "fifo": [5, 6, 7], "batchsche": [3, 4, 5]}
    )
    c = ax.fig3_comparison(good, setting="constructed")
    assert list(c["match"]) == ["-", "yes", "yes"]
    assert list(c.columns) == ["quantity", "paper", "ours", "match"]
    bad = _totals("n_edge", {"aonline": [3, 3, 3], "drf": [2, 4, 1]})
    c = ax.fig4_comparison(bad)
    assert list(c["match"]) == ["-", "no", "partly"]
    with pytest.raises(ValueError, match="aonline"):
        ax.fig3_comparison(_totals("n_jobs", {"drf": [1, 2]}))


def test_fig5_judges_both_sentences():
    up = _totals("F", {"aonline": [1, 2, 3]}, y="weighted_tct").assign(zero_cost=1.0)
    c = ax.fig5_comparison(up)
    assert list(c["match"]) == ["-", "yes", "no"]
    flat = _totals("F", {"aonline": [5, 5, 5]}, y="weighted_tct").assign(zero_cost=1.0)
    assert list(ax.fig5_comparison(flat)["match"]) == ["-", "no", "no"]
    assert list(ax.fig6_comparison(_totals("n_edge", {"aonline": [3, 2, 1]}, y="weighted_tct"))["match"]) == [
        "-", "yes"]  # fmt: skip


def test_fig7_to_fig10_one_row_per_preemptive_variant():
    t = _totals("n_jobs", {"aonline": [10, 20], "preemptive": [5, 25], "preemptive+nodelay": [5, 15]})
    c7 = ax.fig7_comparison(t)
    assert list(c7["match"]) == ["-", "partly", "yes"] and len(c7) == 3
    c9 = ax.fig9_comparison(t)
    assert list(c9["match"]) == ["-", "partly", "no"]
    assert list(ax.fig10_comparison(t.rename(columns={"n_jobs": "n_edge"}))["match"]) == ["-", "partly", "no"]
    with pytest.raises(ValueError, match="preemptive"):
        ax.fig8_comparison(_totals("n_edge", {"aonline": [1, 2]}))


def test_fig11_and_utilisation_verdicts():
    t = _totals("gradient_mb", {"aonline": [10, 20, 40], "preemptive": [9, 10, 11]})
    assert list(ax.fig11_comparison(t)["match"]) == ["-", "yes", "yes"]
    u = _totals("n_jobs", {"aonline": [0.3, 0.2, 0.1], "preemptive": [0.5, math.nan, 0.05]}, y="util")
    u = u.dropna()  # Preemptive run at two of the three J only
    c = ax.fig12_comparison(u)
    assert list(c["match"]) == ["-", "yes", "partly"]
    c = ax.fig13_comparison(_totals("n_edge", {"aonline": [0.1, 0.2]}, y="util"))
    assert list(c["match"]) == ["-", "no", "-"]


def test_fig14_and_scorecard():
    by_j = pd.DataFrame({"ratio": [1.05, 1.1], "instances": [2, 2], "ratio_min": [1.0, 1.0],
                         "ratio_max": [1.1, 1.2]}, index=pd.Index([2, 4], name="n_jobs"))  # fmt: skip
    by_s = pd.DataFrame({"ratio": [2.0, 1.9], "instances": [2, 2], "ratio_min": [1.5, 1.5],
                         "ratio_max": [2.5, 2.5]}, index=pd.Index([1, 2], name="n_edge"))  # fmt: skip
    c = ax.fig14_comparison(by_j, by_s)
    assert list(c["match"]) == ["-", "no", "yes", "no"]  # mean 1.51 > 1.5
    c2 = ax.fig14_comparison(by_j, by_j.rename_axis("n_edge"))
    assert c2["match"].iloc[1] == "yes"
    card = ax.scorecard({"Fig. 14": c})
    assert list(card.columns) == ["figure", "quantity", "paper", "match"] and len(card) == 3
    assert ax.scorecard({}).empty
    with pytest.raises(ValueError, match="match"):
        ax.scorecard({"x": c.drop(columns="match")})


def test_ratio_summary_and_paper_table():
    rows = pd.DataFrame({"n_jobs": [2, 2, 4], "ratio": [1.0, 2.0, 3.0], "status": ["optimal"] * 3,
                         "aonline_wait": [1.0, 1.0, 1.0], "opt_wait": [0.0] * 3, "aonline_run": [1.0] * 3,
                         "opt_run": [1.0] * 3})  # fmt: skip
    s = ax.ratio_summary(rows, "n_jobs")
    assert list(s["ratio"]) == [1.5, 3.0] and list(s["instances"]) == [2, 1] and list(s["optimal"]) == [2, 1]
    assert set(ax.PAPER) == {f"fig{k}" for k in range(3, 15)}
    assert ax.paper_table("fig14")["quantity"].iloc[0] == "setting"
    with pytest.raises(ValueError, match="fig99"):
        ax.paper_table("fig99")


def test_figures_are_drawn():
    t = _totals("n_jobs", {"aonline": [1, 2], "preemptive+nodelay": [2, 1]})
    fig = ax.line_figure(t, "n_jobs", logy=True, title="t")
    legend = [x.get_text() for x in fig.axes[0].get_legend().get_texts()]
    assert legend == ["A_online", "Preemptive, no upload delay"]
    rows = pd.DataFrame(
        {"sweep": ["J", "J", "S"], "n_jobs": [2, 4, 4], "n_edge": [2, 2, 1], "ratio": [1.0, 1.2, 1.1]}
    )
    fig2 = ax.ratio_figure(rows, title="r")
    assert len(fig2.axes) == 2
    import matplotlib.pyplot as plt

    plt.close("all")
