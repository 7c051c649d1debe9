"""A_online's alternative readings (issue "Which reading restores the claim"): each reading
parameter changes what its docstring says it changes and nothing when set to its default.

Readings (spec ``shared/spec/aonline.md`` section 12 and the policy's readings):
``server_size`` (edge servers sized by a Philly job row or as one 8-GPU machine),
``cloud_workers`` (the cloud's size, not in the paper), ``F`` (price caps of (7)-(8)),
``data_ready`` (Alg. 3-4 line 3, ``<`` or ``<=``), ``price_reading`` ((7)-(8) corrected or as
printed), and ``ratio_run``'s ``policy_params`` (the same readings on Fig. 14's instances).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from dlsched import experiments as ex
from dlsched import readings as shape
from dlsched import registry, traces
from dlsched.aonline import experiments as ax
from dlsched.aonline import readings as ar
from dlsched.aonline.model import ps_slots, worker_slots

SMALL = {"n_edge": 8, "n_jobs": 12, "T": 64}


@pytest.fixture(scope="module", autouse=True)
def fast_trace():
    """Read the Philly trace once for the module (every workload reads it; the same data), so
    that the whole file runs in seconds."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(traces, "load_philly", functools.lru_cache(maxsize=4)(traces.load_philly))
        yield


def _workload(**kw):
    return registry.make_workload("aonline", seed=3, **SMALL, **kw)


def _same_jobs(a, b) -> None:
    """The two workloads hold the same jobs (arrivals, models, types, delays)."""
    assert len(a.jobs) == len(b.jobs)
    for x, y in zip(a.jobs, b.jobs, strict=True):
        assert x == y


# ------------------------------------------------------------------------ phase 1: the parameters


def test_server_size_default_is_job_rows():
    wl, wl_job = _workload(), _workload(server_size="job")
    np.testing.assert_array_equal(wl.cluster.capacity, wl_job.cluster.capacity)
    _same_jobs(wl, wl_job)
    assert wl.params["server_size"] == "job"


def test_server_size_machine_changes_only_the_edge_servers():
    wl, wm = _workload(), _workload(server_size="machine")
    W, Wm = worker_slots(wl.cluster), worker_slots(wm.cluster)
    P, Pm = ps_slots(wl.cluster), ps_slots(wm.cluster)
    # every edge server is one whole machine: max_server_gpus = 8 GPUs, 6 CPUs per GPU
    assert (Wm[:-1].sum(axis=1) == 8).all() and (Pm[:-1].sum(axis=1) == 48).all()
    assert (W[:-1].sum(axis=1) <= 8).all() and W[:-1].sum() < Wm[:-1].sum()
    # the cloud, U, V, the jobs and their delays are those of the default reading
    np.testing.assert_array_equal(W[-1], Wm[-1])
    np.testing.assert_array_equal(P[-1], Pm[-1])
    assert (wl.params["U"], wl.params["V"]) == (wm.params["U"], wm.params["V"])
    _same_jobs(wl, wm)
    assert wm.params["server_size"] == "machine"


def test_server_size_validated():
    with pytest.raises(ValueError, match="server_size"):
        _workload(server_size="rack")


def test_cloud_workers_changes_only_the_cloud():
    wl, wc = _workload(), _workload(cloud_workers=128)
    W, Wc = worker_slots(wl.cluster), worker_slots(wc.cluster)
    assert (W[-1] == 64).all() and (Wc[-1] == 128).all()
    np.testing.assert_array_equal(W[:-1], Wc[:-1])
    assert (ps_slots(wc.cluster)[-1] == 6 * 128).all()
    _same_jobs(wl, wc)
    np.testing.assert_array_equal(wl.cluster.capacity, _workload(cloud_workers=64).cluster.capacity)


def _run(**extra) -> pd.DataFrame:
    return ax.job_run({"policy": "aonline", "seed": 0, **SMALL, **extra})


@pytest.fixture(scope="module")
def default_run() -> pd.DataFrame:
    return _run()


@pytest.mark.parametrize(
    "extra",
    [
        {"F": 1.0},
        {"policy_params": {"data_ready": "strict"}},
        {"policy_params": {"price_reading": "corrected"}},
        {"workload": {"server_size": "job"}},
        {"workload": {"cloud_workers": 64}},
    ],
    ids=["F", "data_ready", "price_reading", "server_size", "cloud_workers"],
)
def test_job_run_readings_at_their_defaults_change_nothing(default_run, extra):
    pd.testing.assert_frame_equal(_run(**extra), default_run)


def test_small_F_lets_aonline_admit_onto_shared_resources(default_run):
    """F enters the prices (7)-(8) only: a small F makes sharing cheap, so the jobs are
    admitted earlier; the jobs themselves are unchanged."""
    small = _run(F=1e-8)
    np.testing.assert_array_equal(small["arrival"], default_run["arrival"])
    assert small["tct"].sum() < default_run["tct"].sum()
    assert small["rounds_waited"].mean() < default_run["rounds_waited"].mean()


def test_literal_price_reading_changes_the_prices(default_run):
    """(7)-(8) as printed (linear prices) give other schedule costs than the corrected
    exponential ones; the jobs are the same."""
    lit = _run(policy_params={"price_reading": "literal"})
    np.testing.assert_array_equal(lit["arrival"], default_run["arrival"])
    assert not np.allclose(lit["cost"], default_run["cost"])


def test_machine_servers_give_the_edge_more_worker_slots(default_run):
    m = _run(workload={"server_size": "machine"})
    np.testing.assert_array_equal(m["arrival"], default_run["arrival"])
    # the same allocation over a larger edge: the edge's worker share of capacity goes down
    assert m["util_worker"].iloc[0] < default_run["util_worker"].iloc[0]


# ----------------------------------------------------------------------------- ratio_run (Fig. 14)


def _ratio(**extra) -> pd.DataFrame:
    return ax.ratio_run({"seed": 5, **extra}).drop(columns="solve_seconds")


@pytest.fixture(scope="module")
def default_ratio() -> pd.DataFrame:
    return _ratio()


def test_ratio_run_policy_params_default_changes_nothing(default_ratio):
    pd.testing.assert_frame_equal(_ratio(policy_params={}), default_ratio)
    pd.testing.assert_frame_equal(_ratio(policy_params={"data_ready": "strict"}), default_ratio)


def test_ratio_run_inclusive_data_ready_changes_aonline_not_the_optimum(default_ratio):
    """Alg. 3-4 line 3 read with <=: a server whose data arrive exactly at tau_i is usable,
    so A_online starts some jobs a round earlier; the offline optimum (2i) does not change."""
    inc = _ratio(policy_params={"data_ready": "inclusive"})
    assert inc["aonline_tct"].iloc[0] < default_ratio["aonline_tct"].iloc[0]
    assert inc["opt_tct"].iloc[0] == default_ratio["opt_tct"].iloc[0]


def test_ratio_run_policy_params_validated():
    with pytest.raises(ValueError, match="F1"):
        ax.ratio_run({"policy_params": {"F1": 1e-8}})
    with pytest.raises(ValueError, match="policy_params"):
        ax.ratio_run({"policy_params": "inclusive"})


# ------------------------------------------------------------- phase 2: dlsched.aonline.readings


def test_quick_grid_covers_every_reading_once():
    grid = ar.readings_grid("quick")
    keys = [tuple(sorted(p.items(), key=lambda kv: kv[0])) for p in grid]
    assert len(keys) == len(set(keys))
    assert {p["reading"] for p in grid} == set(ar.READINGS)
    for p in grid:
        r = ar.READINGS[p["reading"]]
        assert set(p) == set(ar._PARAMS)
        if r.aonline_only:  # the baselines of an A_online-only reading are the default's
            assert p["policy"] in ("aonline", None)
        if p["experiment"] == "ratio":
            assert "fig14" in r.figures
    default = {p["policy"] for p in grid if p["reading"] == "default"}
    assert default == {*ax.POLICIES, None}
    assert ar.readings_grid("quick", readings=["machine"]) == [
        p for p in grid if p["reading"] in ("default", "machine")
    ]


def test_grid_validated():
    with pytest.raises(ValueError, match="mode"):
        ar.readings_grid("full")
    with pytest.raises(ValueError, match="unknown reading"):
        ar.readings_grid("quick", readings=["F=0"])


def _job_point(**kw):
    p = ar._point("default", "job", 0, 32, policy="aonline", n_jobs=4, n_edge=4)
    p.update(kw)
    return p


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"reading": "nope"}, "reading"),
        ({"experiment": "both"}, "experiment"),
        ({"policy": "srtf"}, "policy"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"seed": -1}, "seed"),
        ({"gradient_mb": -3.0}, "gradient_mb"),
        ({"upload_delay": "free"}, "upload_delay"),
        ({"colour": 1}, "colour"),
        ({"reading": "F=1e-8", "policy": "drf"}, "changes A_online only"),
    ],
)
def test_reading_run_names_the_bad_field(change, field):
    with pytest.raises(ValueError, match=field):
        ar.reading_run(_job_point(**change))


def test_reading_run_validates_ratio_points():
    p = ar._point("cloud x4", "ratio", 0, 16, n_jobs=2, n_edge=1)
    with pytest.raises(ValueError, match="Fig. 14"):
        ar.reading_run(p)
    with pytest.raises(ValueError, match="policy"):
        ar.reading_run({**p, "reading": "default", "policy": "aonline"})
    with pytest.raises(ValueError, match="missing parameter 'seed'"):
        ar.reading_run({k: v for k, v in p.items() if k != "seed"})
    with pytest.raises(TypeError):
        ar.reading_run([("reading", "default")])


def test_reading_run_default_is_the_figure_experiment():
    """Under the default reading a point is job_run's run, totalled as notebook 42 does."""
    p = _job_point(policy="preemptive", preemption_overhead=1.0, upload_delay="ignored")
    row = ar.reading_run(p)
    assert list(row.columns) == list(ar.RESULT_COLUMNS) and len(row) == 1
    jobs = ax.job_run({"policy": "preemptive", "seed": 0, "T": 32, "n_jobs": 4, "n_edge": 4,
                       "preemption_overhead": 1.0, "upload_delay": "ignored"})  # fmt: skip
    tot = ax.run_totals(jobs, by=["scheme"])
    assert row["scheme"].iloc[0] == "preemptive+overhead+nodelay"
    for c in ("tct", "wait", "util", "preemptions", "present_slots"):
        assert row[c].iloc[0] == tot[c].iloc[0]
    machine = ar.reading_run({**p, "reading": "machine"})
    assert machine["tct"].iloc[0] != row["tct"].iloc[0] or machine["util"].iloc[0] != row["util"].iloc[0]


@pytest.fixture(scope="module")
def quick_frame() -> pd.DataFrame:
    return ex.sweep(ar.reading_run, ar.readings_grid("quick"), scheduler="serial")


@pytest.fixture(scope="module")
def quick_card(quick_frame) -> pd.DataFrame:
    """The scorecard notebook 42 would build from the default runs of the quick grid."""
    from dlsched.aonline import findings

    a = ar.AXES["quick"]
    default = ar.READINGS["default"]
    t3 = ar._totals(quick_frame, default, ar._job_points(a, "fig3"))
    t11 = ar._totals(quick_frame, default, ar._job_points(a, "fig11"))
    return findings.scorecard({"Fig. 3": ax.fig3_comparison(t3), "Fig. 11": ax.fig11_comparison(t11)})


@pytest.fixture(scope="module")
def quick_table(quick_frame, quick_card) -> pd.DataFrame:
    return shape.readings_table(ar.readings_rows(quick_frame, quick_card))


def test_readings_rows_make_a_valid_table(quick_table, quick_card):
    table = quick_table
    assert set(table["reading"]) == {*ar.READINGS, "ceiling"}
    assert set(table.loc[table["fixed"] == "after", "reading"]) == {"cloud x4"}  # chosen after a probe
    # every claim of Figs. 3-4 and 7-14 has its default row, and each reading one row per claim
    per = table.groupby(["figure", "quantity"])["reading"].agg(list)
    assert all(r.count("default") == 1 for r in per)
    assert {f for f, _ in per.index} == {f"Fig. {n}" for n in (3, 4, 7, 8, 9, 10, 11, 12, 13, 14)}
    for name, r in ar.READINGS.items():
        assert set(table.loc[table["reading"] == name, "figure"]) == {f"Fig. {f[3:]}" for f in r.figures}
    ceiling = table[table["reading"] == "ceiling"]
    assert list(ceiling["quantity"]) == ["ratio close to 1"] and ceiling["holds"].all()
    # the join: the scorecard's quotes and claims
    joined = table.merge(quick_card, on=["figure", "quantity"], suffixes=("", "_card"))
    assert set(joined["figure"]) == {"Fig. 3", "Fig. 11"}
    assert (joined["paper"] == joined["paper_card"]).all()


def test_default_rows_follow_the_scorecard_rule(quick_table, quick_card):
    """The default rows hold exactly where the scorecard built from the same runs says yes."""
    d = quick_table[quick_table["reading"] == "default"].merge(quick_card, on=["figure", "quantity"])
    assert len(d) == len(quick_card)
    assert (d["holds"] == (d["match"] == "yes")).all()


def test_readings_rows_validated(quick_frame, quick_card):
    with pytest.raises(TypeError, match="frame"):
        ar.readings_rows(quick_frame.to_dict(), quick_card)
    with pytest.raises(ValueError, match="lacks columns"):
        ar.readings_rows(quick_frame.drop(columns="tct"), quick_card)
    with pytest.raises(ValueError, match="scorecard lacks"):
        ar.readings_rows(quick_frame, quick_card.drop(columns="paper"))
    with pytest.raises(ValueError, match="'default'"):
        ar.readings_rows(quick_frame[quick_frame["reading"] != "default"], quick_card)


def test_aonline_only_ratio_points_match_ratio_run():
    """An A_online-only reading's Fig. 14 point runs A_online alone; its columns are those of
    ratio_run on the same instance, and the optimum is left to the default's point."""
    p = ar._point("data_ready<=", "ratio", 5, 32, n_jobs=6, n_edge=3)
    row = ar.reading_run(p)
    full = ax.ratio_run({"seed": 5, "n_jobs": 6, "n_edge": 3, "T": 32,
                         "policy_params": {"data_ready": "inclusive"}})  # fmt: skip
    for c in ("aonline_tct", "aonline_wait", "aonline_run"):
        assert row[c].iloc[0] == full[c].iloc[0]
    assert np.isnan(row["opt_tct"].iloc[0])


def _notebook_runs(mode: str) -> tuple[list[pd.DataFrame], pd.DataFrame]:
    """Notebook 42's own job_run and ratio_run sweeps of ``mode``, built as the notebook does."""
    a = ar.AXES[mode]
    pg, T = ex.param_grid, a["T"]
    sw = functools.partial(ex.sweep, ax.job_run, scheduler="serial")
    runs3 = sw(pg({"n_edge": a["S0"], "T": T}, n_jobs=list(a["J_axis"]), policy=ax.FIGURE_POLICIES["fig3"],
                  seed=list(a["seeds"])))  # fmt: skip
    runs4 = sw(pg({"n_jobs": a["J0"], "T": T}, n_edge=list(a["S_axis"]), policy=ax.FIGURE_POLICIES["fig4"],
                  seed=list(a["seeds"])))  # fmt: skip
    pre = {"policy": "preemptive", "T": T}
    variants = [{"preemption_overhead": [0.0], "upload_delay": ["paid", "ignored"]},
                {"preemption_overhead": [a["overhead"]], "upload_delay": ["ignored"]}]  # fmt: skip
    seeds = list(a["seeds"])
    g7 = [pg({"n_edge": a["S0"], "T": T}, n_jobs=list(a["J_pre"]), policy=["aonline"], seed=list(a["seeds"]))]
    g7 += [pg({**pre, "n_edge": a["S0"]}, n_jobs=list(a["J_pre"]), **v, seed=seeds) for v in variants]
    g8 = [pg({"n_jobs": a["J0"], "T": T}, n_edge=list(a["S_pre"]), policy=["aonline"], seed=list(a["seeds"]))]
    g8 += [pg({**pre, "n_jobs": a["J0"]}, n_edge=list(a["S_pre"]), **v, seed=seeds) for v in variants]
    runs11 = sw(pg({"n_edge": a["S0"], "n_jobs": a["J0"], "T": T}, gradient_mb=list(a["k_values"]),
                   policy=ax.FIGURE_POLICIES["fig11"], seed=list(a["seeds"])))  # fmt: skip
    jobs = [runs3, runs4, pd.concat([sw(g) for g in g7], ignore_index=True),
            pd.concat([sw(g) for g in g8], ignore_index=True), runs11]  # fmt: skip
    rb = {"T": a["ratio_T"]}
    ratio = pd.concat([
        ex.sweep(ax.ratio_run, pg({**rb, "n_edge": a["ratio_edge"]}, n_jobs=list(a["rJ_axis"]),
                                  seed=list(a["ratio_seeds"])), scheduler="serial"),
        ex.sweep(ax.ratio_run, pg({**rb, "n_jobs": a["ratio_jobs"]}, n_edge=list(a["rS_axis"]),
                                  seed=list(a["ratio_seeds"])), scheduler="serial"),
    ], ignore_index=True)  # fmt: skip
    return jobs, ratio


def test_default_rows_equal_the_default_reading_runs(quick_frame, quick_card):
    """The notebook's own runs give exactly the rows reading_run computes for the default reading,
    and with the other readings' sweep the same readings table."""
    jobs, ratio = _notebook_runs("quick")
    own = ar.default_rows(jobs, ratio, "quick")
    ran = quick_frame[quick_frame["reading"] == "default"].reset_index(drop=True)
    assert len(own) == len(ran) > 0
    cols = list(ar.RESULT_COLUMNS)
    pd.testing.assert_frame_equal(own[cols], ran[cols], check_exact=True)
    rest = ex.sweep(ar.reading_run, ar.readings_grid("quick", default_runs=False), scheduler="serial")
    assert not (rest["reading"] == "default").any() and len(rest) + len(own) == len(quick_frame)
    both = pd.concat([own, rest], ignore_index=True)
    table = shape.readings_table(ar.readings_rows(both, quick_card))
    pd.testing.assert_frame_equal(table, shape.readings_table(ar.readings_rows(quick_frame, quick_card)),
                                  check_exact=True)


def test_default_rows_validated():
    jobs, ratio = _notebook_runs("quick")
    with pytest.raises(TypeError, match="sequence of DataFrames"):
        ar.default_rows(jobs[0], ratio, "quick")
    with pytest.raises(ValueError, match="lacks parameter column"):
        ar.default_rows([jobs[0].drop(columns="policy")], ratio, "quick")
    with pytest.raises(ValueError, match="no job_run of"):
        ar.default_rows(jobs[:1], ratio, "quick")
    with pytest.raises(ValueError, match="no ratio_run of"):
        ar.default_rows(jobs, ratio.iloc[:1], "quick")
