"""The arena's workload, experiment, metrics and claims (``dlsched.arena.experiments``), and its
bad input through the command line (exit 2, nothing written)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from dlsched import cli, registry
from dlsched.arena import experiments as ax
from dlsched.arena import mapping
from dlsched.core.simulator import simulate
from dlsched.experiments import sweep

WINDOW = {"trace": "philly", "week": 7, "cluster": "11cb48"}


def _point(**kw) -> dict:
    return {**WINDOW, "model": "rigid", "policy": "fifo", "seed": 0, "max_jobs": 40, "node_scale": 0.25, **kw}


def test_trace_workload_is_registered_and_keeps_the_window_jobs():
    wl = registry.make_workload("trace", seed=0, model="rigid", max_jobs=30, **WINDOW)
    df = mapping.trace_jobs("philly", week=7, cluster="11cb48").iloc[:30]
    assert [s.job_id for s in wl.jobs] == df["job_id"].tolist()
    assert wl.params["model"] == "rigid" and wl.params["mapped_by"] == mapping.MAPPED_BY


def test_node_scale_shrinks_the_cluster_but_keeps_the_widest_job():
    def build(scale):
        rng = np.random.default_rng(0)
        return ax.trace_workload(rng, model="rigid", max_jobs=200, node_scale=scale, **WINDOW)

    full, small = build(1.0), build(0.25)
    assert small.cluster.n_servers == math.ceil(full.cluster.n_servers * 0.25)
    widest = max(s.requested_workers for s in small.jobs)
    assert small.cluster.total_capacity()[0] >= widest
    tiny = build(0.001)
    assert tiny.cluster.n_servers == math.ceil(widest / 8)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"trace": "google"}, "trace must be one of"),
        ({"model": "nope"}, "model must be one of"),
        ({"max_jobs": 0}, "max_jobs must be a positive int"),
        ({"node_scale": -1.0}, "node_scale must be a number"),
        ({"node_scale": float("nan")}, "node_scale must be a number"),
        ({"week": 99}, "week 99 is outside the trace"),
    ],
)
def test_trace_workload_bad_input_names_the_field(kw, match):
    with pytest.raises(ValueError, match=match):
        ax.trace_workload(np.random.default_rng(0), **{**WINDOW, "model": "rigid", **kw})


def test_arena_point_is_deterministic_and_metrics_add_up():
    a, b = ax.arena_point(_point()), ax.arena_point(_point())
    assert_frame_equal(a, b)
    r = a.iloc[0]
    assert r["jobs"] == 40 and r["finished"] + r["rejected"] + r["unfinished"] == 40
    assert 0 < r["utilisation"] <= 1 and r["p95_jct_h"] > 0 and r["note"] == ""
    assert math.isnan(r["total_utility"])  # rigid jobs have no utility
    u = ax.arena_point(_point(model="oasis", policy="oasis")).iloc[0]
    assert u["total_utility"] > 0


def test_rigid_fifo_utilisation_is_the_trace_gpu_time_over_the_capacity():
    """FIFO runs every rigid job on its trace GPUs from its start slot to its completion slot
    (its trace duration, rounded up to whole slots): the allocated GPU-time, from the trace rows
    and the job table, over the capacity-time."""
    wl = ax.trace_workload(np.random.default_rng(0), model="rigid", max_jobs=60, node_scale=0.25, **WINDOW)
    res = simulate(wl, registry.make_policy("fifo", wl), seed=0)
    df = mapping.trace_jobs("philly", week=7, cluster="11cb48").iloc[:60]
    jobs = res.jobs.set_index("job_id").loc[df["job_id"]]
    # each job holds its trace GPUs from its start slot through its completion slot
    held = (jobs["completion_slot"] + 1 - jobs["start_slot"]).to_numpy()
    gpu_slots = float((df["num_gpus"].to_numpy() * held).sum())
    assert gpu_slots >= float((df["num_gpus"] * df["duration"]).sum()) / wl.cluster.slot_seconds
    span = res.end_slot - min(s.arrival for s in wl.jobs)
    gpus = sum(1 for r in wl.cluster.resources if r.startswith("gpu"))  # one pool
    capacity = float(wl.cluster.total_capacity()[: gpus].sum())
    assert ax.utilisation(res) == pytest.approx(gpu_slots / (capacity * span), rel=1e-9)


def test_a_different_seed_changes_drawn_models_only():
    rigid = [ax.arena_point(_point(seed=s)) for s in (0, 1)]
    assert_frame_equal(rigid[0], rigid[1])  # rigid jobs draw nothing
    oasis = [ax.arena_point(_point(model="oasis", policy="fifo", seed=s)) for s in (0, 1)]
    assert oasis[0]["total_utility"].iloc[0] != oasis[1]["total_utility"].iloc[0]


def test_arena_point_rejects_unknown_parameters_and_incompatible_pairs():
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['colour'\]"):
        ax.arena_point(_point(colour="red"))
    with pytest.raises(ValueError, match="policy 'optimus' cannot run 'rigid' jobs"):
        ax.arena_point(_point(policy="optimus"))


def test_a_policy_refusing_the_jobs_gives_a_noted_row():
    # Preemptive puts a whole job on one server: a 16-GPU job of this VC fits on no 8-GPU node
    wide = mapping.trace_jobs("philly", week=7, cluster="11cb48")
    n = int(np.flatnonzero(wide["num_gpus"].to_numpy() > 8)[0]) + 1
    row = ax.arena_point(_point(policy="preemptive", max_jobs=n)).iloc[0]
    assert row["note"].startswith("cannot run:") and "fits on no single server" in row["note"]
    assert math.isnan(row["mean_jct_h"]) and row["jobs"] == n


def test_grid_and_compatibility_table():
    grid = ax.arena_grid(**WINDOW, models=["rigid", "optimus"], policies=["fifo", "optimus"], seeds=[0, 1])
    pairs = {(p["model"], p["policy"]) for p in grid}
    assert pairs == {("rigid", "fifo"), ("optimus", "fifo"), ("optimus", "optimus")}
    assert len(grid) == 6
    table = ax.compatibility_table(["fifo", "optimus"], ["rigid"])
    bad = table[~table["runs"]].iloc[0]
    assert bad["policy"] == "optimus" and "OptimusModel" in bad["reason"]
    with pytest.raises(ValueError, match=r"unknown policy\(s\) \['fifoo'\]"):
        ax.arena_grid(**WINDOW, policies=["fifoo"])
    with pytest.raises(ValueError, match=r"unknown model\(s\)"):
        ax.arena_grid(**WINDOW, models=["gpu"])
    with pytest.raises(ValueError, match="seeds must be"):
        ax.arena_grid(**WINDOW, seeds=[-1])


def test_run_arena_serial_equals_cached(tmp_path):
    grid = ax.arena_grid(**WINDOW, models=["rigid", "oasis"], policies=["fifo", "drf"], seeds=[0],
                         max_jobs=30, node_scale=0.25)  # fmt: skip
    first = ax.run_arena(grid, cache_dir=tmp_path)
    again = ax.run_arena(grid, cache_dir=tmp_path)
    assert_frame_equal(first, again)
    plain = sweep(ax.arena_point, grid, scheduler="serial")
    assert_frame_equal(first, plain)
    summary = ax.summarise(first)
    assert len(summary) == 4 and (summary["seeds"] == 1).all()


def _summary(rows):
    cols = ["trace", "model", "policy", *ax.METRICS]
    return pd.DataFrame([{**dict.fromkeys(ax.METRICS, 0.0), **r} for r in rows], columns=cols)


def test_claims_verdicts():
    s = _summary([
        {"trace": "philly", "model": "oasis", "policy": "oasis", "total_utility": 110.0},
        {"trace": "philly", "model": "oasis", "policy": "fifo", "total_utility": 100.0},
        {"trace": "philly", "model": "oasis", "policy": "drf", "total_utility": 105.0},
        {"trace": "philly", "model": "optimus", "policy": "optimus", "mean_jct_h": 2.0},
        {"trace": "philly", "model": "optimus", "policy": "drf", "mean_jct_h": 1.5},
        {"trace": "philly", "model": "specon", "policy": "specon", "mean_jct_h": 1.0},
        {"trace": "philly", "model": "specon", "policy": "k8s_default", "mean_jct_h": 1.001},
    ])  # fmt: skip
    c = ax.claims(s).set_index("paper")
    assert c.loc["OASiS", "survives"] == "yes" and c.loc["OASiS", "best_baseline"] == "drf"
    assert c.loc["OASiS", "gain_pct"] == pytest.approx(100 * 5 / 105)
    assert c.loc["Optimus", "survives"] == "no" and c.loc["Optimus", "gain_pct"] == pytest.approx(-100 / 3)
    assert c.loc["SpeCon", "survives"] == "tie"


# ------------------------------------------------------------------------- command line, bad input


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (["model=rigid", "week=70"], "week 70 is outside the trace"),
        (["model=rigid", "max_jobs=0"], "max_jobs must be a positive int"),
        (["model=rigid", "week=7", "cluster=11cb48", "max_jobs=5"], "policy 'optimus' cannot run 'rigid'"),
    ],
)
def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, params, message):
    out = tmp_path / "out"
    policy = "optimus" if "cannot run" in message else "fifo"
    argv = ["run", "--workload", "trace", "--policy", policy, "--out", str(out)]
    for p in params:
        argv += ["--param", p]
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_cli_bad_trace_file_names_file_row_and_column(tmp_path, capsys):
    data = tmp_path / "data"
    head = "timestamp,duration,num_gpus,gpu_time,cluster\n"
    _write(data / "philly" / "philly.csv", head + "2017-10-02 10:00:00,60.0,1,60.0,vc1\n"
           "2017-10-02 11:00:00,60.0,-2,60.0,vc1\n")  # fmt: skip
    out = tmp_path / "out"
    argv = ["run", "--workload", "trace", "--policy", "fifo", "--out", str(out), "--param", "model=rigid",
            "--param", f"data_dir={data}"]  # fmt: skip
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "philly.csv" in err and ("num_gpus" in err or "sha256" in err or "manifest" in err)
    assert not out.exists()


# ------------------------------------------------------------------ the simulation horizon


def test_simulation_horizon_rules():
    wl = ax.trace_workload(np.random.default_rng(0), model="rigid", max_jobs=30, **WINDOW)
    last = max(s.arrival for s in wl.jobs)
    assert ax.simulation_horizon(None, wl) is None and ax.simulation_horizon("none", wl) is None
    assert ax.simulation_horizon("twice-last-arrival", wl) == 2 * (last + 1)
    assert ax.simulation_horizon(7, wl) == 7
    for bad in (0, -3, True, "twice", 2.5):
        with pytest.raises(ValueError, match="sim_horizon must be"):
            ax.simulation_horizon(bad, wl)


def test_a_horizon_stops_the_run_and_counts_the_rest_unfinished():
    full = ax.arena_point(_point()).iloc[0]
    assert full["unfinished"] == 0
    # an absent horizon and None are the same point
    assert_frame_equal(ax.arena_point(_point(sim_horizon=None)), ax.arena_point(_point()))
    wl = ax.trace_workload(np.random.default_rng(0), model="rigid", max_jobs=40, node_scale=0.25, **WINDOW)
    h = max(s.arrival for s in wl.jobs) + 1  # the last job arrives in the last slot simulated
    cut = ax.arena_point(_point(sim_horizon=h)).iloc[0]
    assert cut["jobs"] == 40 and cut["finished"] + cut["rejected"] + cut["unfinished"] == 40
    assert 0 < cut["unfinished"] and cut["finished"] < full["finished"]
    assert cut["decisions"] <= full["decisions"]


def test_grid_adds_the_horizon_only_when_given():
    plain = ax.arena_grid(**WINDOW, models=["rigid"], policies=["fifo"])
    assert "sim_horizon" not in plain[0]
    cut = ax.arena_grid(**WINDOW, models=["rigid"], policies=["fifo"], sim_horizon="twice-last-arrival")
    assert cut[0]["sim_horizon"] == "twice-last-arrival"
    assert {k: v for k, v in cut[0].items() if k != "sim_horizon"} == plain[0]
    for bad in ("twice", 0, True):
        with pytest.raises(ValueError, match="sim_horizon must be"):
            ax.arena_grid(**WINDOW, sim_horizon=bad)
