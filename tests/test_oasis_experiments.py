"""OASiS Sec. V experiment functions (notebook 12): per-job tables, Fig. 5 ratios, summaries,
paper-vs-ours tables, parameter validation and determinism through the sweep cache."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched import experiments as ex
from dlsched.oasis import experiments as ox
from dlsched.oasis.model import TESTBED_MODELS, UTILITY_CLASSES

SMALL = {"n_jobs": 12, "T": 20, "H": 3, "K": 3}


@pytest.fixture(scope="module")
def oasis_jobs() -> pd.DataFrame:
    return ox.utility_run({"policy": "oasis", "seed": 1, **SMALL})


# ------------------------------------------------------------------------------ per-job tables


def test_utility_run_table_is_consistent(oasis_jobs):
    j = oasis_jobs
    assert tuple(j.columns) == ox.JOB_COLUMNS
    assert len(j) == SMALL["n_jobs"] and j["job_id"].is_unique
    assert set(j["utility_class"]) <= set(UTILITY_CLASSES)
    fin = j["status"] == "finished"
    assert fin.any()
    # utility only for finished jobs; OASiS finishes exactly the jobs it admits
    assert (j.loc[~fin, "utility"] == 0).all() and (j.loc[fin, "utility"] > 0).all()
    assert (j["admitted"] == fin).all()
    assert set(j.loc[~fin, "status"]) <= {"rejected"}
    cmt = j["completion_slot"] - j["arrival"] - j["target"]
    np.testing.assert_allclose(j.loc[fin, "completion_minus_target"], cmt[fin])
    assert j.loc[~fin, "completion_minus_target"].isna().all()
    assert (j["gamma1"].between(1, 100)).all()


@pytest.mark.parametrize("policy", ["fifo", "drf", "rrh"])
def test_utility_run_baselines(policy):
    j = ox.utility_run({"policy": policy, "seed": 0, **SMALL})
    assert len(j) == SMALL["n_jobs"]
    if policy in ("fifo", "drf"):  # admit everything
        assert j["admitted"].all()
    assert j["utility"].ge(0).all()


def test_utility_run_is_deterministic(oasis_jobs):
    again = ox.utility_run({"policy": "oasis", "seed": 1, **SMALL})
    pd.testing.assert_frame_equal(oasis_jobs, again)
    other = ox.utility_run({"policy": "oasis", "seed": 2, **SMALL})
    assert not oasis_jobs["gamma1"].equals(other["gamma1"])


def test_workload_dict_reaches_the_workload():
    j = ox.utility_run({"policy": "fifo", "seed": 0, **SMALL, "workload": {"mix": [0, 0, 1]}})
    assert set(j["utility_class"]) == {"time-critical"}


def test_estimate_run_at_true_values_is_oasis(oasis_jobs):
    e = ox.estimate_run({"u_scale": 1.0, "seed": 1, **SMALL})
    assert (e["estimate"] == "100%").all()
    pd.testing.assert_frame_equal(e.drop(columns="estimate"), oasis_jobs)
    e2 = ox.estimate_run({"u_scale": 0.2, "seed": 1, **SMALL})
    assert (e2["estimate"] == "20%").all()


def test_capped_run_with_a_cap_above_alpha_is_oasis(oasis_jobs):
    from dlsched import registry
    from dlsched.oasis.policy import price_parameters

    wl = registry.make_workload("oasis", seed=1, **SMALL)
    alpha = price_parameters(wl).alpha
    same = ox.capped_run({"max_log_ratio": alpha + 1.0, "seed": 1, **SMALL})
    pd.testing.assert_frame_equal(same, oasis_jobs)  # a cap that binds nowhere changes nothing
    tight = ox.capped_run({"max_log_ratio": 1.0, "seed": 1, **SMALL})
    assert tuple(tight.columns) == ox.JOB_COLUMNS
    # L = U/e: an empty server already costs more than any job of this workload can pay
    assert not tight["admitted"].any()


def test_alpha_cap_table_by_hand():
    t3 = pd.DataFrame({"policy": ["oasis", "rrh", "drf", "oasis", "rrh", "drf"],
                       "n_jobs": [10, 10, 10, 20, 20, 20], "seed": 0,
                       "total_utility": [1.0, 5.0, 3.0, 2.0, 4.0, 6.0]})
    tc = pd.DataFrame({"max_log_ratio": [10.0, 10.0, 10.0, 20.0], "n_jobs": [10, 10, 20, 20],
                       "seed": [0, 1, 0, 0], "total_utility": [7.0, 9.0, 8.0, 1.5]})
    out = ox.alpha_cap_table(t3, tc)
    assert list(out.columns) == ["oasis", "oasis ln(U/L)<=10", "oasis ln(U/L)<=20", "best baseline",
                                 "baseline utility"]
    assert out.loc[10, "oasis ln(U/L)<=10"] == 8.0 and math.isnan(out.loc[10, "oasis ln(U/L)<=20"])
    assert list(out["best baseline"]) == ["rrh", "drf"] and list(out["baseline utility"]) == [5.0, 6.0]
    with pytest.raises(ValueError, match="max_log_ratio"):
        ox.alpha_cap_table(t3, tc.drop(columns="max_log_ratio"))


def test_testbed_run():
    j = ox.testbed_run({"policy": "oasis", "seed": 0})
    assert len(j) == 12
    assert set(j["job_name"]) <= set(TESTBED_MODELS)
    j20 = ox.testbed_run({"policy": "fifo", "seed": 0, "T": 20, "n_jobs": 6})
    assert len(j20) == 6


@pytest.mark.parametrize(
    "fn, params, match",
    [
        (ox.utility_run, {"seed": 0}, "missing parameter.*policy"),
        (ox.utility_run, {"policy": "lifo"}, "policy must be one of"),
        (ox.utility_run, {"policy": "oasis", "n_job": 3}, r"unknown parameter.*n_job"),
        (ox.utility_run, {"policy": "oasis", "n_jobs": 0}, "n_jobs must be an integer >= 1, got 0"),
        (ox.utility_run, {"policy": "oasis", "seed": -1}, "seed must be an integer >= 0"),
        (ox.utility_run, {"policy": "oasis", "T": 5, "workload": {"T": 6}}, "both as a parameter"),
        (ox.utility_run, {"policy": "oasis", "workload": [1]}, "workload must be a dict"),
        (ox.utility_run, {"policy": "oasis", "workload": {"nope": 1}}, "unknown parameter"),
        (ox.utility_run, {"policy": "fifo", "policy_params": {"nope": 1}}, "unknown parameter"),
        (ox.estimate_run, {"u_scale": 0}, "u_scale must be a finite number > 0, got 0"),
        (ox.estimate_run, {"u_scale": 1.0, "policy": "oasis"}, "unknown parameter"),
        (ox.estimate_run, {"u_scale": 1.0, "policy_params": {"u_scale": 2.0}}, "not inside policy_params"),
        (ox.capped_run, {"max_log_ratio": -2}, "max_log_ratio must be a finite number > 0, got -2"),
        (ox.capped_run, {"seed": 0}, "missing parameter.*max_log_ratio"),
        (ox.capped_run, {"max_log_ratio": 9, "policy_params": {"max_log_ratio": 3}},
         "not inside policy_params"),
        (ox.testbed_run, {"policy": "oasis", "H": 3}, r"unknown parameter.*'H'"),
        (ox.ratio_run, {"servers": 3}, "missing parameter.*gamma1"),
        (ox.ratio_run, {"servers": 1, "gamma1": [1, 100]}, "servers must be an integer >= 2"),
        (ox.ratio_run, {"servers": 3, "gamma1": [100, 1]}, "low <= high"),
        (ox.ratio_run, {"servers": 3, "gamma1": [1, 100], "time_limit": -1}, "time_limit"),
        (ox.ratio_run, {"servers": 3, "gamma1": [1, 100], "workload": {"H": 2}}, "'H' must not be given"),
    ],
)
def test_bad_parameters(fn, params, match):
    with pytest.raises(ValueError, match=match):
        fn(params)


def test_params_must_be_a_mapping():
    with pytest.raises(TypeError, match="params must be a mapping"):
        ox.utility_run([("policy", "oasis")])


# ------------------------------------------------------------------------------ Fig. 5


def test_split_servers():
    assert [ox.split_servers(n) for n in (3, 6, 9, 12)] == [(2, 1), (3, 3), (5, 4), (6, 6)]
    with pytest.raises(ValueError, match="servers must be an integer >= 2, got 2.5"):
        ox.split_servers(2.5)


def test_ratio_run_bounds_and_sweep_cache(tmp_path):
    grid = ex.param_grid(
        {"n_jobs": 6, "T": 8, "time_limit": 30.0}, servers=[3, 4], gamma1=[[50, 100]], seed=[1]
    )
    r = ex.sweep(ox.ratio_run, grid, cache_dir=tmp_path, scheduler="serial")
    assert list(r.columns) == ["n_jobs", "T", "time_limit", "servers", "seed", *ox.RATIO_COLUMNS]
    assert (r["H"] + r["K"] == r["servers"]).all()
    assert (r["gamma1_range"] == "[50, 100]").all()
    # OPT >= OASiS always (OASiS's schedule is feasible for (1)-(13)); ratio >= 1 where defined
    assert (r["opt"] >= r["oasis_utility"] - 1e-9).all()
    assert (r["opt"] >= r["milp_objective"]).all()
    defined = r["ratio"].notna()
    assert (r.loc[defined, "ratio"] >= 1 - 1e-9).all()
    assert (r["ratio_upper"].fillna(1) >= r["ratio"].fillna(1) - 1e-9).all()
    assert (r["two_alpha"] >= 2).all()
    solved = r["milp_status"] == "optimal"
    assert (r.loc[solved & ~r["milp_below_oasis"], "mip_gap"] <= 1e-6).all()
    again = ex.sweep(ox.ratio_run, grid, cache_dir=tmp_path, scheduler="serial")
    pd.testing.assert_frame_equal(r, again)


def test_sweep_of_utility_run_served_from_cache(tmp_path):
    grid = ex.param_grid(dict(SMALL), policy=["fifo", "oasis"], seed=[0])
    a = ex.sweep(ox.utility_run, grid, cache_dir=tmp_path, scheduler="serial")
    assert len(ex.ResultCache(tmp_path).keys()) == 2
    b = ex.sweep(ox.utility_run, grid, cache_dir=tmp_path, scheduler="serial")
    pd.testing.assert_frame_equal(a, b)
    assert {"policy", "n_jobs", "seed"} <= set(a.columns)


# ------------------------------------------------------------------------------ summaries


def _jobs_table() -> pd.DataFrame:
    rows = [
        # policy, seed, status, admitted, utility, cmt, class
        ("oasis", 0, "finished", True, 10.0, 1.0, "time-sensitive"),
        ("oasis", 0, "finished", True, 5.0, -1.0, "time-sensitive"),
        ("oasis", 0, "rejected", False, 0.0, math.nan, "time-critical"),
        ("fifo", 0, "finished", True, 2.0, 4.0, "time-sensitive"),
        ("fifo", 0, "unfinished", True, 0.0, math.nan, "time-critical"),
        ("fifo", 0, "finished", True, 1.0, 8.0, "time-sensitive"),
    ]
    df = pd.DataFrame(
        rows,
        columns=[
            "policy",
            "seed",
            "status",
            "admitted",
            "utility",
            "completion_minus_target",
            "utility_class",
        ],
    )
    df["job_id"] = [0, 1, 2, 0, 1, 2]
    return df


def test_run_totals():
    t = ox.run_totals(_jobs_table(), ["policy", "seed"]).set_index("policy")
    assert t.loc["oasis", "total_utility"] == 15.0 and t.loc["fifo", "total_utility"] == 3.0
    assert t.loc["oasis", "admitted"] == 2 and t.loc["fifo", "admitted"] == 3
    assert t.loc["oasis", "finished"] == 2 and t.loc["fifo", "finished"] == 2
    assert (t["jobs"] == 3).all()
    with pytest.raises(ValueError, match=r"missing column\(s\) \['n_jobs'\]"):
        ox.run_totals(_jobs_table(), ["policy", "n_jobs"])


def test_timeliness():
    s = ox.timeliness(_jobs_table(), ["policy", "utility_class"]).set_index("policy")
    assert list(s["utility_class"]) == ["time-sensitive", "time-sensitive"]  # no finished critical job
    assert s.loc["oasis", "finished"] == 2 and s.loc["oasis", "median"] == 0.0
    assert s.loc["oasis", "mean_abs"] == 1.0 and s.loc["oasis", "iqr"] == 1.0
    assert s.loc["fifo", "median"] == 6.0 and s.loc["fifo", "std"] == 2.0


def test_ratio_summary_counts_infinite_and_undefined():
    r = pd.DataFrame(
        {
            "servers": [3, 3, 3, 3],
            "gamma1_range": ["[1, 100]"] * 4,
            "ratio": [1.0, 1.5, math.inf, math.nan],
            "milp_status": ["optimal", "optimal", "optimal", "time_limit"],
            "two_alpha": [40.0, 40.0, 40.0, 40.0],
        }
    )
    s = ox.ratio_summary(r).iloc[0]
    assert s["instances"] == 4 and s["used"] == 2 and s["oasis_zero"] == 1
    assert s["mean"] == 1.25 and s["median"] == 1.25 and s["max"] == 1.5
    assert s["optimal"] == 3 and s["within_two_alpha"] == 2


# ------------------------------------------------------------------------------ paper tables


def test_paper_tables():
    assert set(ox.PAPER) == {"fig3", "fig4", "fig5", "fig6", "fig8", "fig9"}
    t = ox.paper_table("fig5")
    assert list(t.columns) == ["quantity", "paper"]
    assert "1.1-1.5" in set(t["paper"])
    t.loc[0, "paper"] = "changed"  # a copy: the constant is untouched
    assert ox.paper_table("fig5").loc[0, "paper"] != "changed"
    with pytest.raises(ValueError, match="figure must be one of"):
        ox.paper_table("fig7")


def _totals(values: dict[str, list[float]], loads=(100, 400)) -> pd.DataFrame:
    rows = [
        {"policy": p, "n_jobs": n, "seed": 0, "total_utility": v}
        for p, vs in values.items()
        for n, v in zip(loads, vs, strict=True)
    ]
    return pd.DataFrame(rows)


def test_fig3_comparison_matches_only_when_oasis_leads_more_with_load():
    good = ox.fig3_comparison(_totals({"oasis": [110, 300], "fifo": [100, 150], "rrh": [90, 200]}))
    assert list(good.columns) == ["quantity", "paper", "ours", "match"]
    assert list(good["match"]) == ["-", "yes", "yes", "-"]
    assert "100: oasis, 400: oasis" in good["ours"].iloc[1]
    shrinking = ox.fig3_comparison(_totals({"oasis": [300, 160], "fifo": [100, 150]}))
    assert list(shrinking["match"])[1:3] == ["yes", "no"]
    losing = ox.fig3_comparison(_totals({"oasis": [100, 100], "rrh": [150, 300]}))
    assert losing["ours"].iloc[1] == "100: rrh, 400: rrh" and losing["match"].iloc[1] == "no"


def test_fig4_and_fig9_comparison():
    st = pd.DataFrame(
        {
            "policy": ["oasis", "fifo", "oasis", "fifo"],
            "utility_class": ["time-sensitive", "time-sensitive", "time-critical", "time-critical"],
            "median": [0.5, -3.0, 2.0, -1.0],
            "iqr": [1.0, 2.0, 1.0, 5.0],
            "finished": [3, 4, 5, 6],
        }
    )
    c = ox.fig4_comparison(st)
    assert list(c["match"]) == ["-", "yes", "no", "yes", "yes"]
    assert c["ours"].iloc[2].startswith("fifo")
    # a scheme with too few finished jobs is listed but cannot win
    few = ox.fig4_comparison(st.assign(finished=[3, 4, 5, 2]))
    assert few["ours"].iloc[2].startswith("oasis") and "(n=2<3)" in few["ours"].iloc[2]
    assert few["match"].iloc[2] == "yes"
    none = ox.fig4_comparison(st.assign(finished=[1, 1, 1, 1]))
    assert list(none["match"]) == ["-"] * 5
    c9 = ox.fig9_comparison(st[st["utility_class"] == "time-critical"])
    assert c9["match"].iloc[1] == "no" and c9["ours"].iloc[1] == "fifo (oasis 2, fifo 1)"
    empty = ox.fig9_comparison(st.iloc[:0])
    assert empty["ours"].iloc[1] == "no finished job"


def test_fig5_fig6_fig8_comparison():
    s = pd.DataFrame(
        {"servers": [3, 6], "mean": [1.2, 1.4], "instances": [2, 2], "optimal": [2, 2], "oasis_zero": [0, 0]}
    )
    assert ox.fig5_comparison(s)["match"].iloc[1] == "yes"
    assert ox.fig5_comparison(s.assign(mean=[1.0, 2.0]))["match"].iloc[1] == "partly"
    assert ox.fig5_comparison(s.assign(mean=[2.0, 3.0]))["match"].iloc[1] == "no"
    t6 = pd.DataFrame({"u_scale": [0.5, 1.0, 3.0, 0.5, 3.0], "n_jobs": [400, 400, 400, 100, 100],
                       "total_utility": [9.0, 8.0, 7.0, 0.0, 50.0]})  # fmt: skip
    assert ox.fig6_comparison(t6)["match"].iloc[1] == "yes"  # only the highest load counts
    with pytest.raises(ValueError, match="below and above 1"):
        ox.fig6_comparison(t6[t6["u_scale"] <= 1])
    t8 = pd.DataFrame({"policy": ["oasis", "rrh"], "total_utility": [1.0, 2.0], "finished": [1, 2]})
    c8 = ox.fig8_comparison(t8)
    assert c8["ours"].iloc[1].startswith("rrh") and c8["match"].iloc[1] == "no"


def test_estimate_label():
    assert [ox.estimate_label(u) for u in ox.U_SCALES] == ["20%", "50%", "100%", "300%", "500%", "1000%"]
    with pytest.raises(ValueError, match="u_scale must be a finite number > 0"):
        ox.estimate_label(-1.0)


def test_ratio_claim():
    r = pd.DataFrame(
        {
            "ratio": [1.0, 1.5, math.nan],
            "two_alpha": [10.0, 10.0, 10.0],
            "milp_status": ["optimal", "time_limit", "optimal"],
            "milp_below_oasis": [False, True, False],
        }
    )
    c = ox.ratio_claim(r)
    assert c.holds and c.details["failures"] == 0 and c.details["max_ratio"] == 1.5
    assert c.details["milp_optimal"] == 2 and c.details["milp_below_oasis"] == 1
    bad = ox.ratio_claim(r.assign(ratio=[1.0, math.inf, 11.0]))
    assert not bad.holds and bad.details["failures"] == 2


def test_scorecard_keeps_rows_with_a_verdict():
    s = pd.DataFrame({"servers": [3], "mean": [1.2], "instances": [1], "optimal": [1], "oasis_zero": [0]})
    t8 = pd.DataFrame({"policy": ["oasis"], "total_utility": [1.0], "finished": [1]})
    card = ox.scorecard({"Fig. 5": ox.fig5_comparison(s), "Fig. 8": ox.fig8_comparison(t8)})
    assert list(card.columns) == ["figure", "quantity", "paper", "match"]
    assert list(card["figure"]) == ["Fig. 5", "Fig. 8"] and list(card["match"]) == ["yes", "yes"]
    assert ox.scorecard({}).empty


def test_figures(oasis_jobs):
    from matplotlib.figure import Figure

    jobs = pd.concat([oasis_jobs.assign(policy="oasis"), oasis_jobs.assign(policy="fifo")])
    fig = ox.timeliness_figure(jobs, title="t")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    one = ox.timeliness_figure(jobs.assign(T=10), classes=None, hue="T")
    assert len(one.axes) == 1
    r = pd.DataFrame({"servers": [3, 3, 6], "gamma1_range": ["[1, 100]"] * 3, "ratio": [1.0, math.inf, 1.2]})
    assert isinstance(ox.ratio_figure(r, title="r"), Figure)
    with pytest.raises(ValueError, match="missing column"):
        ox.ratio_figure(r.drop(columns="servers"))
    import matplotlib.pyplot as plt

    plt.close("all")


def test_run_profile():
    from dlsched import registry
    from dlsched.core.simulator import simulate

    wl = registry.make_workload("oasis", seed=1, **SMALL)
    res = {p: simulate(wl, registry.make_policy(p, wl), seed=1) for p in ("oasis", "fifo")}
    prof = ox.run_profile(res)
    assert list(prof["policy"]) == ["oasis", "fifo"]
    assert prof["gpu_busy"].between(0, 1).all() and prof["cpu_busy"].between(0, 1).all()
    assert (prof["finished"] == [int((r.jobs["status"] == "finished").sum()) for r in res.values()]).all()
    with pytest.raises(TypeError, match="must be a SimulationResult"):
        ox.run_profile({"x": 1})
