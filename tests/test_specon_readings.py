"""SpeCon's alternative readings (issue 22): each changes what it says, and nothing at its default.

The reading added for the issue is "a converged container needs less CPU" (workload
``converged_cpu`` / ``converged_at``, :mod:`dlsched.specon.model`); the others (``cascade``,
``alpha``, ``types``, ``progress``) are older parameters with their own tests. The table of
readings is :mod:`dlsched.specon.readings` (quick grid only here).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, RateContext
from dlsched.core.schedule import Placement, server_usage
from dlsched.core.simulator import simulate
from dlsched.readings import readings_table
from dlsched.specon import experiments as sx
from dlsched.specon import readings as sr
from dlsched.specon.model import TYPE_CURVES, SpeconJob, specon_workload
from dlsched.specon.policy import K8sDefault

VAE = TYPE_CURVES["VAE-T"]
FIXED_SOLO = 215.0  # no calibration: fast and independent of the reading


def _pair(workload=None, policy=None, experiment="fig5"):
    params = {
        "experiment": experiment,
        "calibrate": FIXED_SOLO,
        "workload": workload or {},
        "policy": {"alpha": 0.01, "interval": 30.0, **(policy or {})},
    }
    return sx.pair_run(params)


# --------------------------------------------------------------- converged_cpu at its default


def test_converged_cpu_default_is_the_spec_reading():
    a = specon_workload(np.random.default_rng(0))
    b = specon_workload(np.random.default_rng(0), converged_cpu=1.0, converged_at=0.5)
    for x, y in zip(a.jobs, b.jobs, strict=True):
        assert dict(x.worker_demand) == dict(y.worker_demand)
        assert dict(x.ps_demand) == {} == dict(y.ps_demand)
        assert x.model.converged_cpu == 1.0


def test_converged_cpu_default_leaves_runs_identical():
    pd.testing.assert_frame_equal(_pair(), _pair({"converged_cpu": 1.0}))


# --------------------------------------------------------------- what the reading changes


def test_converged_step_is_the_share_of_the_loss_reduction():
    m = SpeconJob(work=3000.0, curve=VAE, eval_window=30)
    e = np.array([m.evaluation(n) for n in range(1, 3001)])
    drop = e[0] - e.min()
    for share in (0.5, 0.9, 1.0):
        mm = SpeconJob(work=3000.0, curve=VAE, eval_window=30, converged_at=share)
        x_c = int(mm.converged_step)
        assert e[0] - e[x_c - 1] >= share * drop * (1 - 1e-9)
        assert x_c == 1 or e[0] - e[x_c - 2] < share * drop
    steps = [
        SpeconJob(work=3000.0, curve=VAE, eval_window=30, converged_at=q).converged_step
        for q in (0.5, 0.9, 1.0)
    ]
    assert steps == sorted(steps)


def test_a_converged_container_needs_less_cpu():
    """One progressing and one converged container on a node, f = 0.5: the node's load is
    1.5 C_use, so both run at 2/3 of their solo speed (equal split: 1/2)."""
    node = Cluster(
        (Server("w", "unified", {"cpu": 16.0, "mem": 64.0}),),
        ("cpu", "mem"),
        compressible=("cpu",),
        slot_seconds=0.1,
    )
    usable = 0.8 * 16.0
    model = SpeconJob(work=100.0, curve=VAE, solo_seconds=10.0, cpu_usable=0.8, converged_cpu=0.5)
    spec = JobSpec(0, 0, model, {"cpu": 0.5 * usable, "mem": 2.0}, {"cpu": 0.5 * usable})
    other = JobSpec(1, 0, model, {"cpu": 0.5 * usable, "mem": 2.0}, {"cpu": 0.5 * usable})
    progressing, converged = Placement.of({0: 1}, {0: 1}), Placement.of({0: 1})
    alloc = {0: progressing, 1: converged}
    ctx = RateContext(node, server_usage(node, {0: spec, 1: other}, alloc))
    solo = 100.0 / 10.0 * 0.1  # steps per slot alone
    assert model.cores(spec, progressing, ctx) == pytest.approx(usable * 2 / 3)
    assert model.cores(other, converged, ctx) == pytest.approx(usable / 3)
    assert model.rate(spec, progressing, ctx) == pytest.approx(solo * 2 / 3)
    assert model.rate(other, converged, ctx) == pytest.approx(solo * 2 / 3)
    bad = Placement.of({0: 1}, {0: 2})
    assert [c for c, _ in model.placement_violations(spec, bad)] == ["converged_cpu"]


def test_ds_releases_the_extra_cpu_within_one_slot_of_convergence():
    wl = specon_workload(np.random.default_rng(0), n_jobs=1, solo_seconds=100.0, converged_cpu=0.5)
    model = wl.jobs[0].model
    r = simulate(wl, K8sDefault())
    ps = r.runs[r.runs["role"] == "ps"]
    end = int((ps["slot"] + ps["slots"]).max())
    per_slot = model.work / model.solo_seconds * wl.cluster.slot_seconds  # alone: full speed
    assert end == math.ceil(model.converged_step / per_slot - 1e-9)
    # alone on its node the container is never slowed: DS's time is the solo time
    assert r.jobs["jct_seconds"].iloc[0] == pytest.approx(model.solo_seconds, abs=0.11)


def test_converged_cpu_speeds_shared_nodes_up():
    base = sx.gains(_pair().assign(seed=0))
    less = sx.gains(_pair({"converged_cpu": 0.5}).assign(seed=0))
    assert less["ds_mean"].iloc[0] < base["ds_mean"].iloc[0] - 1.0


def test_specon_moves_under_the_converged_cpu_reading_are_valid():
    """SpeCon's moves keep a progressing container's booking with it (the engine checks every
    placement; ``placement_violations`` rejects a booking on another node)."""
    jobs = _pair({"converged_cpu": 0.5}, {"cascade": "full"})
    g = sx.gains(jobs.assign(seed=0))
    assert g["moves_m"].iloc[0] + g["moves_r"].iloc[0] > 0


@pytest.mark.parametrize("bad", [0.0, 1.5, -0.1, math.nan, True])
def test_converged_cpu_validated(bad):
    with pytest.raises(ValueError, match="converged_cpu"):
        specon_workload(np.random.default_rng(0), converged_cpu=bad)
    with pytest.raises(ValueError, match="converged_at"):
        specon_workload(np.random.default_rng(0), converged_cpu=0.5, converged_at=bad)


# --------------------------------------------------------------- the readings table (quick grid)


@pytest.fixture(scope="module")
def quick_frame():
    frames = [sr.reading_run(p).assign(**p) for p in sr.readings_grid("quick")]
    return pd.concat(frames, ignore_index=True)


FIG5_CLAIMS = ("SpeCon average completion time", "jobs faster under SpeCon", "Job-17", "makespan")


def _card(figure="Fig. 5", match="no"):
    """Fig. 5's judged claims as the notebook's scorecard holds them."""
    rows = [(figure, q, p, "", match) for q, p in sx.PAPER["fig5"] if q in FIG5_CLAIMS]
    return pd.DataFrame(rows, columns=["figure", "quantity", "paper", "ours", "match"])


def test_fcfs_idle_nodes_by_hand():
    wl = specon_workload(np.random.default_rng(0), n_jobs=5, interval=1.0, solo_seconds=10.0)
    # 4 nodes: jobs 1-4 start at launch (0..3 s), job 5 (launch 4 s) waits for node 1 (free at 10 s)
    assert sr.fcfs_idle_nodes(wl) == pytest.approx([10.0, 10.0, 10.0, 10.0, 16.0])


def test_quick_grid_rows(quick_frame):
    rows = sr.readings_rows(quick_frame, _card())
    table = readings_table(rows)
    assert set(table["reading"]) == {"default", "cascade full", "converged CPU + cascade full", "ceiling"}
    assert set(table["quantity"]) == set(FIG5_CLAIMS)
    assert (table["fixed"] == "before").all()
    # the default reading is the scorecard's: SpeCon moves nothing on Fig. 5
    default = table[(table["reading"] == "default") & (table["quantity"] == "SpeCon average completion time")]
    assert not default["holds"].iloc[0]
    # the ceiling: FCFS on idle nodes, 245 s (-10.9 % against DS) < the paper's -14.7 %
    ceiling = table[table["reading"] == "ceiling"]
    assert len(ceiling) == 1 and not ceiling["holds"].iloc[0]
    assert "245 s: -10.9 %" in ceiling["ours"].iloc[0]
    assert ceiling["verdict"].iloc[0] == "beyond the model's ceiling"


def test_rows_use_the_scorecards_rule(quick_frame):
    """``holds`` is the notebook's comparison saying ``yes`` for that reading's runs."""
    rows = sr.readings_rows(quick_frame, _card())
    runs = quick_frame[quick_frame["reading"] == "cascade full"].drop(columns=["experiment", "reading"])
    cmp = sx.fig5_comparison(sx.gains(runs, by="seed"), runs).set_index("quantity")
    for r in rows:
        if r["reading"] == "cascade full":
            assert r["holds"] == (cmp.at[r["quantity"], "match"] == "yes")
            assert r["ours"] == cmp.at[r["quantity"], "ours"]


def test_rows_only_for_failed_claims(quick_frame):
    assert sr.readings_rows(quick_frame, _card(match="yes")) == []
    assert sr.readings_rows(quick_frame, _card(figure="Fig. 7")) == []


def test_paper_grid_points_are_valid():
    grid = sr.readings_grid("paper")
    for p in grid:
        sr._validate(p)
    keys = {(p["experiment"], p["reading"], p["seed"], p.get("alpha"), p.get("interval")) for p in grid}
    assert len(keys) == len(grid)

    def seeds(exp, name):
        return {p["seed"] for p in grid if p["experiment"] == exp and p["reading"] == name}

    assert seeds("fig6", "default") == set(sr.PAPER_SEEDS) == seeds("table3", "ceiling")
    assert seeds("fig6", "cascade full") == set(sr.PAPER_SEEDS)  # in FULL_SWEEP
    assert seeds("fig6", "converged CPU + alpha 0.05") == {0}  # not
    t3 = [p for p in grid if p["experiment"] == "table3" and p["reading"] == "default"]
    assert {(p["alpha"], p["interval"]) for p in t3} == set(sr.TABLE3_SETTINGS)
    for exp, name in sr.FULL_SWEEP:
        assert seeds(exp, name) == set(sr.PAPER_SEEDS)
    with pytest.raises(ValueError, match="mode"):
        sr.readings_grid("full")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"experiment": "fig5", "reading": "default", "typo": 1}, "typo"),
        ({"experiment": "fig9", "reading": "default"}, "experiment"),
        ({"experiment": "fig5", "reading": "nonsense"}, "reading"),
        ({"experiment": "fig6", "reading": "VAE curve P"}, "does not apply"),
        ({"experiment": "fig7", "reading": "ceiling"}, "ceiling"),
        ({"experiment": "fig5", "reading": "default", "seed": -1}, "seed"),
        ({"experiment": "table3", "reading": "default", "seed": 0}, "alpha"),
        ({"experiment": "fig5", "reading": "default", "alpha": 0.05}, "alpha"),
    ],
)
def test_reading_run_validates(params, field):
    with pytest.raises(ValueError, match=field):
        sr.reading_run(params)
