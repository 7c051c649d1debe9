"""Tests of the PD-ORS workload (dlsched.pdors.model): the paper's parameter ranges, determinism,
arrivals, the ``reading`` of tau, EC2 machines, validation, and the ``dlsched run`` command line
on the ``pdors`` workload."""

from __future__ import annotations

import io
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from dlsched import cli, registry
from dlsched.core.instances import EC2_INSTANCES
from dlsched.core.jobs import PdorsModel, Sigmoid
from dlsched.core.simulator import simulate
from dlsched.pdors import model as pm
from dlsched.pdors import policy as pp
from dlsched.pdors.model import min_durations, pdors_workload, sample_time, sync_slots

SMALL = {"n_jobs": 4, "n_machines": 2, "T": 6}


def _wl(seed: int = 0, **params):
    return pdors_workload(np.random.default_rng(seed), **params)


@pytest.fixture(scope="module")
def big():
    """Many jobs of the default ranges, so that every integer value of a range shows up."""
    return _wl(11, n_jobs=600, n_machines=40, T=20)


def _within(values, lo_hi) -> bool:
    lo, hi = lo_hi
    values = np.asarray(values, dtype=float)
    return bool(np.all(values >= lo) and np.all(values <= hi))


def _is_int(values) -> bool:
    values = np.asarray(values, dtype=float)
    return bool(np.all(values == np.round(values)))


# ------------------------------------------------------------------------------- ranges


def test_job_parameters_lie_in_the_papers_ranges(big):
    jobs = big.jobs
    models = [s.model for s in jobs]
    assert all(isinstance(m, PdorsModel) for m in models)
    E = [m.epochs for m in models]
    K = [m.samples for m in models]
    F = [m.batch for m in models]
    gam = [m.ratio for m in models]
    assert _within(E, pm.EPOCHS) and _is_int(E)
    assert _within(K, pm.SAMPLES) and _is_int(K)
    assert _within(F, pm.BATCH) and _is_int(F)
    # gamma: integer, >= 1, in the printed range (w = gamma * s in Algorithm 4)
    assert _within(gam, pm.RATIO) and _is_int(gam) and min(gam) >= 1
    # tau is printed in seconds per sample; the default reading converts it to slots
    tau_s = np.array([m.tau for m in models]) * big.cluster.slot_seconds
    assert _within(tau_s, pm.TAU)
    # sync = 2 g / b: recover g (MB) from both bandwidths
    for m in models:
        g_int = m.sync_internal * pm.B_INTERNAL_GBPS * 1000.0 * 3600.0 / 16.0
        g_ext = m.sync_external * pm.B_EXTERNAL_GBPS * 1000.0 * 3600.0 / 16.0
        assert g_int == pytest.approx(g_ext, rel=1e-12)
        assert pm.GRADIENT_MB[0] <= g_int <= pm.GRADIENT_MB[1]
        assert m.sync_internal < m.sync_external  # b_internal > b_external
    for s in jobs:
        g_mb = s.model.sync_internal * pm.B_INTERNAL_GBPS * 1000.0 * 3600.0 / 16.0
        assert s.name == f"g{g_mb:.0f}MB"
    # demands
    wd = pd.DataFrame([dict(s.worker_demand) for s in jobs])
    psd = pd.DataFrame([dict(s.ps_demand) for s in jobs])
    assert set(wd.columns) == {"gpu", "cpu", "mem", "storage"}
    assert set(psd.columns) == {"cpu", "mem", "storage"}  # a PS needs no GPU
    for col, rng in [("gpu", pm.WORKER_GPU), ("cpu", pm.WORKER_CPU), ("mem", pm.MEM_GB),
                     ("storage", pm.STORAGE_GB)]:
        assert _within(wd[col], rng) and _is_int(wd[col]), col
    for col, rng in [("cpu", pm.PS_CPU), ("mem", pm.MEM_GB), ("storage", pm.STORAGE_GB)]:
        assert _within(psd[col], rng) and _is_int(psd[col]), col
    # utilities: Sigmoid(theta1, theta2, theta3)
    assert all(isinstance(s.utility, Sigmoid) for s in jobs)
    assert _within([s.utility.gamma1 for s in jobs], pm.THETA1)
    assert _within([s.utility.gamma2 for s in jobs], pm.THETA2)
    assert _within([s.utility.gamma3 for s in jobs], pm.THETA3)
    # FIFO's fixed count: in FIXED_WORKERS, capped at F
    req = np.array([s.requested_workers for s in jobs])
    assert np.all(req >= pm.FIXED_WORKERS[0]) and np.all(req <= pm.FIXED_WORKERS[1])
    assert np.all(req <= np.array(F))
    assert np.any(req == np.array(F))  # the cap binds for small batches


def test_integer_ranges_are_covered_end_to_end(big):
    """Uniform integer draws over the whole printed range, endpoints included."""
    models = [s.model for s in big.jobs]
    assert {int(m.ratio) for m in models} == set(range(pm.RATIO[0], pm.RATIO[1] + 1))
    gpus = {int(s.worker_demand["gpu"]) for s in big.jobs}
    assert gpus == set(range(pm.WORKER_GPU[0], pm.WORKER_GPU[1] + 1))
    assert {int(s.worker_demand["storage"]) for s in big.jobs} == set(range(5, 11))
    assert {int(s.ps_demand["cpu"]) for s in big.jobs} == set(range(pm.PS_CPU[0], pm.PS_CPU[1] + 1))
    # continuous draws spread over their range (not a constant)
    t2 = np.array([s.utility.gamma2 for s in big.jobs])
    assert t2.min() < 0.1 and t2.max() > 0.9


def test_custom_ranges_are_respected():
    wl = _wl(3, n_jobs=60, n_machines=2, T=8, ratio=(2, 3), batch=(5, 6), epochs=(7, 7),
             theta3=(-2.0, -1.0), fixed_workers=(1, 2))
    assert {s.model.ratio for s in wl.jobs} <= {2.0, 3.0}
    assert {s.model.batch for s in wl.jobs} <= {5, 6}
    assert {s.model.epochs for s in wl.jobs} == {7}
    assert all(-2.0 <= s.utility.gamma3 <= -1.0 for s in wl.jobs)
    assert {s.requested_workers for s in wl.jobs} <= {1, 2}
    # a non-integer ratio range is drawn over its integers only
    wl2 = _wl(3, n_jobs=40, n_machines=2, T=8, ratio=(1.5, 3.5))
    assert {s.model.ratio for s in wl2.jobs} <= {2.0, 3.0}


def test_workload_metadata():
    wl = _wl(0, **SMALL)
    assert wl.name == "pdors" and wl.horizon == 6
    assert [s.job_id for s in wl.jobs] == list(range(4))
    assert wl.params["arrival_span"] == 3 and wl.params["reading"] == "seconds"
    assert wl.params["ratio"] == (1.0, 10.0) and wl.params["batch"] == (1.0, 200.0)


# ------------------------------------------------------------------------- determinism


def test_same_seed_same_workload_different_seed_different():
    a = registry.make_workload("pdors", seed=5, **SMALL)
    b = registry.make_workload("pdors", seed=5, **SMALL)
    c = registry.make_workload("pdors", seed=6, **SMALL)
    assert a.jobs == b.jobs
    pd.testing.assert_frame_equal(a.cluster.to_frame(), b.cluster.to_frame())
    pd.testing.assert_frame_equal(a.jobs_frame(), b.jobs_frame())
    assert a.jobs != c.jobs
    assert not a.jobs_frame().equals(c.jobs_frame())
    # the registry's seed is numpy.random.default_rng(seed)
    d = _wl(5, **SMALL)
    assert d.jobs == a.jobs
    pd.testing.assert_frame_equal(d.cluster.to_frame(), a.cluster.to_frame())


def test_generator_is_the_only_source_of_randomness():
    rng = np.random.default_rng(9)
    state = rng.bit_generator.state
    a = pdors_workload(rng, **SMALL)
    assert rng.bit_generator.state != state  # the given generator was used ...
    rng.bit_generator.state = state
    b = pdors_workload(rng, **SMALL)
    assert a.jobs == b.jobs  # ... and nothing else


# ----------------------------------------------------------------------------- arrivals


@pytest.mark.parametrize(("T", "span"), [(6, None), (10, 4), (7, 7), (5, 1)])
def test_arrivals_within_arrival_span(T, span):
    wl = _wl(2, n_jobs=50, n_machines=2, T=T, arrival_span=span)
    limit = math.ceil(T / 2) if span is None else span
    arr = np.array([s.arrival for s in wl.jobs])
    assert np.all(arr >= 0) and np.all(arr < limit)
    assert np.all(np.diff(arr) >= 0)  # job ids follow arrival order
    assert wl.params["arrival_span"] == limit
    if limit > 1:
        assert arr.max() == limit - 1 and arr.min() == 0  # 50 draws cover a few slots


def test_arrival_span_beyond_horizon_is_rejected():
    with pytest.raises(ValueError, match=r"arrival_span must be <= T=4, got 5"):
        _wl(0, n_jobs=2, n_machines=1, T=4, arrival_span=5)


# ------------------------------------------------------------------------------ reading


def test_reading_slots_vs_seconds():
    sec = _wl(4, n_jobs=30, n_machines=3, T=10, reading="seconds")
    slo = _wl(4, n_jobs=30, n_machines=3, T=10, reading="slots")
    assert slo.params["reading"] == "slots"
    S = sec.cluster.slot_seconds
    for a, b in zip(sec.jobs, slo.jobs, strict=True):
        # the same draws; only tau's unit differs: slots = seconds-per-sample as printed
        assert b.model.tau == pytest.approx(a.model.tau * S, rel=1e-12)
        assert pm.TAU[0] <= b.model.tau <= pm.TAU[1]
        assert (a.model.epochs, a.model.samples, a.model.batch, a.model.ratio) == (
            b.model.epochs, b.model.samples, b.model.batch, b.model.ratio)
        assert a.model.sync_internal == b.model.sync_internal
        assert a.model.sync_external == b.model.sync_external
        assert a.arrival == b.arrival and a.utility == b.utility
        assert a.worker_demand == b.worker_demand and a.ps_demand == b.ps_demand
    pd.testing.assert_frame_equal(sec.cluster.to_frame(), slo.cluster.to_frame())
    d_sec, d_slo = min_durations(sec), min_durations(slo)
    assert np.all(d_slo >= d_sec)
    assert np.all(d_slo > d_sec)  # tau in slots makes every job far longer
    assert np.median(d_slo) > 20  # most cannot finish within T = 20 (notebook 30's finding)


# ------------------------------------------------------------------------------ machines


def test_machines_come_from_ec2_instances():
    wl = _wl(1, n_jobs=2, n_machines=30, T=4, storage_gb=777.0)
    c = wl.cluster
    assert c.resources == pm.RESOURCES
    assert c.slot_seconds == 3600.0
    seen = set()
    for h, srv in enumerate(c.servers):
        prefix, kind = srv.name.split("-", 1)
        assert prefix == f"m{h}"
        assert kind in pm.MACHINE_TYPES
        seen.add(kind)
        assert srv.pool == "unified"
        want = [EC2_INSTANCES[kind]["gpu"], EC2_INSTANCES[kind]["cpu"], EC2_INSTANCES[kind]["mem"], 777.0]
        assert c.capacity[h].tolist() == want
    assert len(seen) >= 3  # drawn, not a single type
    one = _wl(1, n_jobs=2, n_machines=5, T=4, machine_types=["g3.8xlarge"])
    assert {s.name.split("-", 1)[1] for s in one.cluster.servers} == {"g3.8xlarge"}
    assert one.cluster.capacity[:, 0].tolist() == [EC2_INSTANCES["g3.8xlarge"]["gpu"]] * 5


def test_default_machines_fit_every_worker_and_ps():
    """The docstring's claim: every worker and every PS of the paper's table fits on every machine."""
    for kind in pm.MACHINE_TYPES:
        cap = EC2_INSTANCES[kind]
        assert cap["gpu"] >= pm.WORKER_GPU[1] and cap["cpu"] >= max(pm.WORKER_CPU[1], pm.PS_CPU[1])
        assert cap["mem"] >= pm.MEM_GB[1]


# ------------------------------------------------------------------- helper formulas


def test_sync_slots_by_hand():
    # 500 MB pushed and pulled = 8000 Mbit over 10 Gbps = 0.8 s
    assert sync_slots(500.0, 10.0, 1.0) == pytest.approx(0.8)
    assert sync_slots(500.0, 10.0, 3600.0) == pytest.approx(0.8 / 3600.0)
    got = sync_slots(np.array([30.0, 575.0]), 126.0, 2.0)
    assert got == pytest.approx(np.array([2 * 30 * 8 / 126e3, 2 * 575 * 8 / 126e3]) / 2.0)


def test_sample_time_and_min_durations_by_hand():
    m = PdorsModel(epochs=3, samples=1000, batch=10, tau=0.001, sync_internal=0.02, sync_external=0.05,
                   ratio=4.0)
    assert sample_time(m, True) == pytest.approx(0.001 + 4 * 0.02 / 10)
    assert sample_time(m, False) == pytest.approx(0.001 + 4 * 0.05 / 10)
    assert sample_time(m, True) == pytest.approx(pp.sample_time(m, True))
    wl = _wl(0, **SMALL)
    want = []
    for s in wl.jobs:
        mm = s.model
        per_sample = mm.tau + mm.ratio * mm.sync_internal / mm.batch
        want.append(max(1, math.ceil(mm.epochs * mm.samples / mm.batch * per_sample - 1e-9)))
        assert pp.min_duration(mm) == want[-1]
    got = min_durations(wl)
    assert got.dtype == np.int64 and got.tolist() == want


def test_min_durations_needs_pdors_jobs():
    wl = registry.make_workload("synthetic", seed=0, model="oasis", n_jobs=2)
    with pytest.raises(ValueError, match="min_durations needs PdorsModel"):
        min_durations(wl)


# ---------------------------------------------------------------------------- validation


BAD = [
    ({"ratio": (0.5, 10)}, "ratio", "(0.5, 10)"),
    ({"ratio": (0, 0)}, "ratio", "(0, 0)"),
    ({"ratio": (5, 2)}, "ratio", "(5, 2)"),
    ({"batch": (0, 200)}, "batch", "(0, 200)"),
    ({"batch": (-3, 2)}, "batch", "(-3, 2)"),
    ({"b_internal_gbps": 5.0}, "b_internal_gbps", "5"),
    ({"b_external_gbps": 200.0}, "b_external_gbps", "200"),
    ({"b_internal_gbps": -1.0}, "b_internal_gbps", "-1.0"),
    ({"b_external_gbps": 0}, "b_external_gbps", "0"),
    ({"storage_gb": -5.0}, "storage_gb", "-5.0"),
    ({"storage_gb": 0}, "storage_gb", "0"),
    ({"storage_gb": float("nan")}, "storage_gb", "nan"),
    ({"slot_seconds": -1.0}, "slot_seconds", "-1.0"),
    ({"n_jobs": 0}, "n_jobs", "0"),
    ({"n_jobs": -2}, "n_jobs", "-2"),
    ({"n_jobs": 2.5}, "n_jobs", "2.5"),
    ({"n_jobs": True}, "n_jobs", "True"),
    ({"n_machines": 0}, "n_machines", "0"),
    ({"T": 0}, "T", "0"),
    ({"arrival_span": 0}, "arrival_span", "0"),
    ({"machine_types": ["p9.huge"]}, "machine_types", "'p9.huge'"),
    ({"machine_types": ["p2.8xlarge", "x1"]}, "machine_types", "'x1'"),
    ({"machine_types": []}, "machine_types", "[]"),
    ({"machine_types": "p2.8xlarge"}, "machine_types", "'p2.8xlarge'"),
    ({"reading": "minutes"}, "reading", "'minutes'"),
    ({"reading": "Slots"}, "reading", "'Slots'"),
    ({"tau": (0.0, 1e-4)}, "tau", "(0.0, 0.0001)"),
    ({"epochs": (0, 10)}, "epochs", "(0, 10)"),
    ({"samples": (10,)}, "samples", "(10,)"),
    ({"theta1": (0.0, 1.0)}, "theta1", "(0.0, 1.0)"),
    ({"theta2": (-0.1, 1.0)}, "theta2", "(-0.1, 1.0)"),
    ({"fixed_workers": (0, 5)}, "fixed_workers", "(0, 5)"),
]


@pytest.mark.parametrize(("params", "field", "value"), BAD, ids=[f"{p}" for p, _, _ in BAD])
def test_bad_input_names_the_field_and_value(params, field, value):
    kwargs = {"n_jobs": 2, "n_machines": 2, "T": 4, **params}
    with pytest.raises(ValueError) as err:
        _wl(0, **kwargs)
    msg = str(err.value)
    assert msg.startswith("pdors_workload: ")
    assert re.search(rf"\b{re.escape(field)}\b", msg), msg
    assert value in msg, msg


def test_registry_validates_through_the_workload():
    with pytest.raises(ValueError, match=r"ratio must satisfy 1 <= low <= high, got \(0\.5, 3\)"):
        registry.make_workload("pdors", seed=0, n_jobs=2, ratio=(0.5, 3))
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['gamma'\]"):
        registry.make_workload("pdors", seed=0, gamma=(1, 2))


def test_equal_bandwidths_are_allowed():
    wl = _wl(0, n_jobs=3, n_machines=2, T=4, b_internal_gbps=10.0, b_external_gbps=10.0)
    assert all(s.model.sync_internal == s.model.sync_external for s in wl.jobs)


# ------------------------------------------------------------------------------ the CLI


def _argv(out, *params, policy="pdors", seed=1):
    argv = ["run", "--workload", "pdors", "--policy", policy, "--seed", str(seed), "--out", str(out)]
    for p in params:
        argv += ["--param", p]
    return argv


CLI_SMALL = ("n_jobs=3", "n_machines=2", "T=4")


@pytest.mark.parametrize(
    ("param", "needle"),
    [
        ("ratio=(0.5, 10)", "ratio must satisfy 1 <= low <= high, got (0.5, 10)"),
        ("batch=(0, 200)", "batch must satisfy 1 <= low <= high, got (0, 200)"),
        ("b_internal_gbps=1.0", "b_internal_gbps=1 must be >= b_external_gbps=10"),
        ("storage_gb=-5", "storage_gb must be a finite number > 0, got -5"),
        ("n_jobs=0", "n_jobs must be an integer >= 1, got 0"),
        ("machine_types=['p9.huge']", "got 'p9.huge'"),
        ("reading=minutes", "reading must be one of ('seconds', 'slots'), got 'minutes'"),
        ("policy.delta=0", "pdors.delta must be in (0, 1], got 0"),
        ("levels=0", "pdors.levels must be an integer >= 1, got 0"),
    ],
)
def test_cli_bad_parameter_exit_code_2_and_nothing_written(tmp_path, capsys, param, needle):
    target = tmp_path / "deep" / "out"
    params = [p for p in CLI_SMALL if p.split("=")[0] != param.split("=")[0]] + [param]
    assert cli.main(_argv(target, *params)) == 2
    cap = capsys.readouterr()
    err = cap.err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("dlsched: error: ")
    assert needle in err, err
    assert cap.out == ""
    assert list(tmp_path.iterdir()) == []  # neither the output folder nor its parent


def test_cli_bad_parameter_leaves_an_existing_output_untouched(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(_argv(out, *CLI_SMALL)) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert cli.main(_argv(out, *CLI_SMALL, "ratio=(0, 3)")) == 2
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folder left


@pytest.mark.parametrize("policy", ["pdors", "fifo", "drf", "dorm", "oasis_split"])
def test_cli_small_run_writes_the_five_files(tmp_path, capsys, policy):
    out = tmp_path / "out"
    assert cli.main(_argv(out, *CLI_SMALL, policy=policy, seed=2)) == 0, capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == sorted(cli.OUTPUT_FILES)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
    stdout = capsys.readouterr().out
    assert re.match(r"\d/3 jobs finished, total utility ", stdout) and stdout.count("\n") == 1

    summary = json.loads((out / "summary.json").read_text())
    assert summary["workload"] == "pdors" and summary["policy"] == policy
    assert summary["workload_params"] == {"n_jobs": 3, "n_machines": 2, "T": 4}
    assert summary["jobs"] == 3 and summary["seed"] == 2
    servers = pd.read_csv(out / "instance_servers.csv")
    assert len(servers) == 2
    assert {"capacity_gpu", "capacity_cpu", "capacity_mem", "capacity_storage"} <= set(servers.columns)
    assert all(n.split("-", 1)[1] in EC2_INSTANCES for n in servers["name"])
    inst = pd.read_csv(out / "instance_jobs.csv")
    assert len(inst) == 3 and set(inst["model"]) == {"pdors"}
    assert inst["model_ratio"].between(*pm.RATIO).all()
    jobs = pd.read_csv(out / "jobs.csv")
    assert jobs["job_id"].tolist() == [0, 1, 2]
    alloc = pd.read_parquet(out / "allocations.parquet")  # intervals (the default)
    assert list(alloc.columns) == ["job", "server", "role", "count", "first_slot", "last_slot"]
    assert (alloc["last_slot"] < 4).all() and (alloc["count"] > 0).all()
    assert (alloc["first_slot"] <= alloc["last_slot"]).all()

    # the same tables as the Python API
    wl = registry.make_workload("pdors", seed=2, n_jobs=3, n_machines=2, T=4)
    res = simulate(wl, registry.make_policy(policy, wl), seed=2)
    want = pd.read_csv(io.StringIO(res.jobs.to_csv(index=False)))  # as the CLI's file reads back
    pd.testing.assert_frame_equal(jobs, want)
