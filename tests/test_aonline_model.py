"""Tests of the A_online model and workload (dlsched.aonline.model; spec sections 2 and 12):
paper ranges, determinism, Philly trace vs stand-in, Eq. (1) by hand, transfer delay (2i) and
fixed allocation (2c)-(2d) in the checker and the simulator, bad input, and the command line."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pytest

from dlsched import cli, registry, traces
from dlsched.aonline import model as am
from dlsched.aonline.model import (
    aonline_cluster,
    aonline_job,
    aonline_job_model,
    aonline_workload,
    check_workload,
    duration_slots,
    instance,
    job_types,
)
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, LinearModel, RateContext, Workload
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Decision, Placement, ScheduleViolation, check_allocations, check_timeline
from dlsched.core.simulator import simulate

SMALL = {"n_edge": 12, "n_jobs": 30, "server_source": "synthetic"}


def _trace_available() -> bool:
    try:
        traces.data_dir()
        return True
    except FileNotFoundError:
        return False


needs_trace = pytest.mark.skipif(
    not _trace_available(), reason="Philly trace not available (DLSCHED_DATA_DIR)"
)


class Scripted(BasePolicy):
    """Pre-written decisions: ``script[t](view) -> Decision``; other slots keep the allocation."""

    name: ClassVar[str] = "test-aonline-scripted"

    def __init__(self, script):
        self._script = dict(script)

    def decide(self, t: int, view: ClusterView) -> Decision:
        if t in self._script:
            return self._script[t](view)
        return Decision(view.current_allocations())


def _tiny(delays=(0.0, 0.0, 0.0), *, preemptible: bool = False, arrival: int = 0) -> Workload:
    """Two edge servers (4 type-0 worker slots and 1 type-0 PS slot each) and a cloud; one job
    with p_j = 1 split and 2 co-located (n_j = 0.5 h, 2k_j/B_j = 0.5 h), E D M = 1 * 2 * 3."""
    cl = aonline_cluster([[4], [4]], [[1], [1]], 4, 1, edge_delay=[0, 0], cloud_delay=0)
    m = aonline_job_model(
        epochs=1, chunks=2, minibatches=3, compute_hours=0.5, update_ms=0.0, gradient_mb=450.0,
        bandwidth_mbps=4.0, preemptible=preemptible,
    )  # fmt: skip
    return Workload(cl, (aonline_job(0, arrival, m, 0, 0, delays),), horizon=50)


# ------------------------------------------------------------------------------ ranges (spec 12)


def test_workload_follows_the_papers_ranges():
    wl = aonline_workload(np.random.default_rng(3), n_edge=30, n_jobs=80, server_source="synthetic", T=300)
    p, cl = wl.params, wl.cluster
    assert wl.name == "aonline" and wl.horizon is None and p["T"] == 300
    assert 8 <= p["U"] <= 10 and 8 <= p["V"] <= 10
    assert am.type_counts(cl) == (p["U"], p["V"])
    assert cl.pools == ("edge",) * 30 + ("cloud",)
    inst = instance(wl)
    gpus, cpus = inst.W[:-1].sum(1), inst.P[:-1].sum(1)
    assert set(gpus) <= {1, 2, 4, 8}
    np.testing.assert_array_equal(cpus, np.maximum(1, np.round(6.0 * gpus)))
    assert (inst.W[-1] == 64).all() and (inst.P[-1] == 384).all()
    assert inst.arrival.min() >= 1 and inst.arrival.max() <= math.floor(300 / 1.5)
    assert np.all(np.diff(inst.arrival) >= 0) and list(inst.job_ids) == list(range(80))
    edge, cloud = inst.delay[:, :-1], inst.delay[:, -1]
    assert edge.min() >= 1 and edge.max() <= 4 and cloud.min() >= 10 and cloud.max() <= 40
    assert np.all(inst.delay == np.round(inst.delay))  # whole slots
    assert (inst.u < p["U"]).all() and (inst.v < p["V"]).all()
    assert (inst.weight == 1.0).all()
    for s in wl.jobs:
        m = s.model
        assert isinstance(m, AOnlineModel) and not m.elastic and not m.preemptible
        assert 50 <= m.epochs <= 100 and 20 <= m.chunks <= 50 and 10 <= m.minibatches <= 50
        assert s.requested_workers == m.chunks == m.max_workers
        assert 0.001 <= m.compute <= 0.05  # n_j in hours = slots
        assert 10 / 3.6e6 <= m.update <= 100 / 3.6e6  # H_j ms -> hours
        # 2 k_j / B_j with k in [30, 575] MB and B = min(worker, PS) in [100, 5 * 1024] Mbps
        assert 2 * 8 * 30 / 5120 / 3600 * (1 - 1e-12) <= m.comm <= 2 * 8 * 575 / 100 / 3600 * (1 + 1e-12)
        assert m.total_work == m.epochs * m.chunks * m.minibatches


def test_type_draw_server_gives_one_type_per_edge_server():
    wl = aonline_workload(np.random.default_rng(1), type_draw="server", **SMALL)
    inst = instance(wl)
    assert ((inst.W[:-1] > 0).sum(1) == 1).all() and ((inst.P[:-1] > 0).sum(1) == 1).all()


def test_weights_total_and_preemptible_flag():
    wl = aonline_workload(
        np.random.default_rng(2), weights=(1, 5), total_weight=200.0, preemptible=True, **SMALL
    )
    w = instance(wl).weight
    assert w.sum() == pytest.approx(200.0) and w.min() > 0 and np.ptp(w) > 0
    assert all(s.model.preemptible for s in wl.jobs)


def test_registry_and_defaults():
    params = registry.workload_parameters("aonline")
    assert params["n_edge"] == 200 and params["T"] == 1024 and params["server_source"] == "auto"
    wl = registry.make_workload("aonline", seed=4, n_edge=3, n_jobs=5, server_source="synthetic")
    assert len(wl.jobs) == 5 and wl.cluster.n_servers == 4


# ------------------------------------------------------------------------------- determinism


def test_same_generator_seed_same_workload_other_seed_differs():
    a = aonline_workload(np.random.default_rng(11), **SMALL)
    b = aonline_workload(np.random.default_rng(11), **SMALL)
    c = aonline_workload(np.random.default_rng(12), **SMALL)
    assert a == b
    assert a.jobs_frame().equals(b.jobs_frame()) and a.cluster.to_frame().equals(b.cluster.to_frame())
    assert a != c


# ------------------------------------------------------------------------ trace vs stand-in


@needs_trace
def test_trace_is_used_and_recorded():
    wl = aonline_workload(np.random.default_rng(0), n_edge=40, n_jobs=5, server_source="philly")
    assert wl.params["server_source"] == "philly"
    assert wl.params["trace_file"].endswith("philly.csv")
    auto = aonline_workload(np.random.default_rng(0), n_edge=40, n_jobs=5)
    assert auto.params["server_source"] == "philly"
    assert auto.jobs == wl.jobs and auto.cluster == wl.cluster
    # the embedded stand-in marginal is the trace's
    vc = traces.load_philly()["num_gpus"].value_counts()
    assert dict(am.PHILLY_GPU_COUNTS) == {int(k): int(v) for k, v in vc.items()}


def test_stand_in_when_trace_absent(tmp_path):
    wl = aonline_workload(np.random.default_rng(0), n_edge=40, n_jobs=5, data_dir=str(tmp_path))
    assert wl.params["server_source"] == "synthetic" and wl.params["trace_file"] is None
    syn = aonline_workload(np.random.default_rng(0), n_edge=40, n_jobs=5, server_source="synthetic")
    assert syn.params["server_source"] == "synthetic"
    with pytest.raises(FileNotFoundError, match="philly"):
        aonline_workload(np.random.default_rng(0), n_edge=4, server_source="philly", data_dir=str(tmp_path))


@needs_trace
def test_stand_in_has_the_traces_marginal():
    n = 20_000
    real, used, _ = am.server_gpus(np.random.default_rng(0), n, source="philly")
    fake, used2, path = am.server_gpus(np.random.default_rng(1), n, source="synthetic")
    assert (used, used2, path) == ("philly", "synthetic", None)
    for g in (1, 2, 4, 8):
        assert abs(np.mean(real == g) - np.mean(fake == g)) < 0.01, g
    assert real.max() == fake.max() == 8  # capped at max_server_gpus


def test_malformed_trace_is_an_error_not_a_fallback(tmp_path):
    (tmp_path / "philly").mkdir()
    (tmp_path / "philly" / "philly.csv").write_text(
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
        "2017-10-09 07:02:55,66.0,,66.0,11cb48\n"
    )
    with pytest.raises(ValueError, match=r"num_gpus.*row 1|row 1.*num_gpus"):
        aonline_workload(np.random.default_rng(0), n_edge=3, data_dir=str(tmp_path), verify_trace=False)
    with pytest.raises(ValueError, match="sha256|checksum"):
        aonline_workload(np.random.default_rng(0), n_edge=3, data_dir=str(tmp_path))


# ------------------------------------------------------------------------ Eq. (1) by hand


def test_speed_formula_by_hand_both_cases():
    wl = _tiny()
    m = wl.jobs[0].model
    # n_j = 0.5 h; H_j = 0; 2 k_j / B_j = 2 * 450 MB * 8 Mb/MB / 4 Mbps = 1800 s = 0.5 h
    assert (m.compute, m.update, m.comm) == pytest.approx((0.5, 0.0, 0.5))
    assert m.speed(False) == pytest.approx(1.0)  # 1 / (n + H + 2k/B)
    assert m.speed(True) == pytest.approx(2.0)  # 1 / (n + H)
    ctx = RateContext(wl.cluster, np.zeros_like(wl.cluster.capacity))
    spec = wl.jobs[0]
    coloc, split = Placement.of({0: 2}, {0: 1}), Placement.of({0: 2}, {1: 1})
    assert coloc.colocated and not split.colocated
    assert m.rate(spec, coloc, ctx) == pytest.approx(4.0) and m.rate(spec, split, ctx) == pytest.approx(2.0)
    assert (
        duration_slots(m, 2, True) == 2
        and duration_slots(m, 2, False) == 3
        and duration_slots(m, 1, False) == 6
    )
    # H_j: 3600 ms = 0.001 h; B_j in Mbps, MB = 8 Mb
    m2 = aonline_job_model(
        epochs=1, chunks=1, minibatches=1, compute_hours=0.01, update_ms=3600.0, gradient_mb=100.0,
        bandwidth_mbps=800.0,
    )  # fmt: skip
    assert m2.update == pytest.approx(0.001) and m2.comm == pytest.approx(2.0 / 3600)
    assert m2.speed(False) == pytest.approx(1 / (0.01 + 0.001 + 2 / 3600))
    # through the engine: 6 mini-batches with 2 workers take 1.5 slots co-located, 3 split
    for placement, jct in ((coloc, 1.5), (split, 3.0)):
        res = simulate(wl, Scripted({0: lambda v, p=placement: Decision({0: p}, admit=[0])}))
        assert res.jobs.loc[0, "jct"] == pytest.approx(jct)
        check_timeline(wl.cluster, wl.specs, res.allocations)


def test_bandwidth_readings():
    """B_j = min(worker, PS) by default: its 2k/B is the larger of the two readings' (same draws)."""
    kw = dict(n_edge=2, n_jobs=40, server_source="synthetic", ps_bw_gbps=(0.05, 0.2))
    comm = {
        r: np.array(
            [s.model.comm for s in aonline_workload(np.random.default_rng(5), bandwidth=r, **kw).jobs]
        )
        for r in ("min", "worker", "ps")
    }
    np.testing.assert_allclose(comm["min"], np.maximum(comm["worker"], comm["ps"]), rtol=1e-12)
    assert np.any(comm["worker"] < comm["ps"]) and np.any(comm["worker"] > comm["ps"])


# -------------------------------------------------------------- transfer delay (2i) in the checker


def test_transfer_delay_is_a_violation_before_arrival_plus_delta():
    wl = _tiny(delays=(2.0, 5.0, 30.0), arrival=3)
    specs, cl = wl.specs, wl.cluster
    on0, on1 = Placement.of({0: 2}, {0: 1}), Placement.of({1: 2}, {1: 1})
    with pytest.raises(ScheduleViolation) as e:
        check_allocations(cl, specs, 4, {0: on0})
    assert (e.value.constraint, e.value.server, e.value.job, e.value.limit) == ("transfer_delay", 0, 0, 5.0)
    check_allocations(cl, specs, 5, {0: on0})  # a_j + Delta_j0 = 5
    with pytest.raises(ScheduleViolation, match="transfer_delay"):
        check_allocations(cl, specs, 7, {0: on1})  # a_j + Delta_j1 = 8
    with pytest.raises(ScheduleViolation) as e:
        check_timeline(cl, specs, [(0, 7, 1, "worker", 2), (0, 7, 1, "ps", 1)])
    assert (e.value.constraint, e.value.slot, e.value.server) == ("transfer_delay", 7, 1)
    early = Scripted({3: lambda v: Decision({0: on0}, admit=[0])})
    with pytest.raises(ScheduleViolation, match="transfer_delay"):
        simulate(wl, early)
    ok = simulate(
        wl, Scripted({3: lambda v: Decision({}, admit=[0], wakeup=5), 5: lambda v: Decision({0: on0})})
    )
    assert ok.jobs.loc[0, "start_slot"] == 5


# --------------------------------------------------------------- fixed allocation (2c)-(2d)


def test_fixed_allocation_in_the_checker():
    wl = _tiny()
    cl, specs = wl.cluster, wl.specs
    run = [(0, t, 0, "worker", 2) for t in range(3)] + [(0, t, 0, "ps", 1) for t in range(3)]
    check_timeline(cl, specs, run)
    moved = run + [(0, 3, 1, "worker", 2), (0, 3, 1, "ps", 1)]
    with pytest.raises(ScheduleViolation) as e:
        check_timeline(cl, specs, moved)
    assert (e.value.constraint, e.value.slot, e.value.job) == ("fixed_allocation", 3, 0)
    grown = [r if r[1] != 2 or r[3] != "worker" else (0, 2, 0, "worker", 1) for r in run]
    with pytest.raises(ScheduleViolation, match="fixed_allocation"):
        check_timeline(cl, specs, grown)
    paused = run + [(0, 5, 0, "worker", 2), (0, 5, 0, "ps", 1)]  # same placement after a gap
    with pytest.raises(ScheduleViolation) as e:
        check_timeline(cl, specs, paused)
    assert (e.value.constraint, e.value.slot, e.value.amount) == ("fixed_allocation", 5, 2)  # slots 3-4 idle
    pre = _tiny(preemptible=True)
    check_timeline(pre.cluster, pre.specs, paused + [(0, 6, 0, "worker", 2), (0, 6, 0, "ps", 1)])
    with pytest.raises(ScheduleViolation, match="fixed_allocation"):  # still no change while running
        check_timeline(pre.cluster, pre.specs, moved)
    # elastic models are untouched by the cross-slot check
    lin = {0: JobSpec(0, 0, LinearModel(9.0), {"w0": 1})}
    check_timeline(cl, lin, [(0, 0, 0, "worker", 1), (0, 1, 1, "worker", 3), (0, 4, 0, "worker", 2)])


def test_fixed_allocation_in_the_simulator():
    on0, on1 = Placement.of({0: 2}, {0: 1}), Placement.of({1: 2}, {1: 1})
    start = {0: lambda v: Decision({0: on0}, admit=[0], wakeup=1)}
    move = Scripted({**start, 1: lambda v: Decision({0: on1})})
    pause = Scripted({**start, 1: lambda v: Decision({}, wakeup=2), 2: lambda v: Decision({0: on0})})
    for policy in (move, pause):
        with pytest.raises(ScheduleViolation) as e:
            simulate(_tiny(), policy)
        assert (e.value.constraint, e.value.job, e.value.slot) == ("fixed_allocation", 0, 1)
    res = simulate(_tiny(preemptible=True), pause)  # Preemptive's jobs may pause
    assert res.jobs.loc[0, "status"] == "finished" and res.jobs.loc[0, "jct"] == pytest.approx(2.5)


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "needle"),
    [
        ({"n_edge": 0}, r"n_edge must be an integer >= 1, got 0"),
        ({"n_edge": 2.5}, r"n_edge must be an integer >= 1, got 2\.5"),
        ({"n_jobs": -1}, r"n_jobs must be an integer >= 1, got -1"),
        ({"T": 0}, r"T must be an integer >= 1, got 0"),
        ({"edge_delay": (-1, 4)}, r"edge_delay must satisfy 0 <= low <= high, got \(-1, 4\)"),
        ({"edge_delay": (float("nan"), 4)}, r"edge_delay must be finite, got \(nan, 4\)"),
        ({"cloud_delay": (10, float("nan"))}, r"cloud_delay must be finite"),
        ({"cloud_delay": (40, 10)}, r"cloud_delay must satisfy"),
        ({"edge_delay": (1.5, 4)}, r"edge_delay must be a pair of integers"),
        ({"epochs": (100, 50)}, r"epochs must satisfy 1 <= low <= high, got \(100, 50\)"),
        ({"chunks": (0, 5)}, r"chunks must satisfy 1 <= low"),
        ({"worker_types": (0, 3)}, r"worker_types must satisfy 1 <= low"),
        ({"compute_hours": (0.0, 0.05)}, r"compute_hours must satisfy 0 < low"),
        ({"worker_bw_mbps": "fast"}, r"worker_bw_mbps must be a pair \(low, high\), got 'fast'"),
        ({"gradient_mb": (30,)}, r"gradient_mb must be a pair"),
        ({"arrivals": (5, 2)}, r"arrivals must satisfy"),
        ({"cpus_per_gpu": 0}, r"cpus_per_gpu must be > 0, got 0"),
        ({"cpus_per_gpu": float("inf")}, r"cpus_per_gpu must be a finite number"),
        ({"weights": (0, 1)}, r"weights must satisfy 0 < low"),
        ({"total_weight": -1.0}, r"total_weight must be > 0, got -1\.0"),
        ({"bandwidth": "mean"}, r"bandwidth must be one of \('min', 'worker', 'ps'\), got 'mean'"),
        ({"type_draw": "job"}, r"type_draw must be one of"),
        ({"server_source": "google"}, r"server_source must be one of"),
        ({"cloud_workers": 0}, r"cloud_workers must be an integer >= 1, got 0"),
        ({"max_server_gpus": 0}, r"max_server_gpus must be an integer >= 1"),
        ({"preemptible": "yes"}, r"preemptible must be a bool"),
        ({"slot_seconds": -5.0}, r"slot_seconds must be > 0"),
        # D_j above every server's worker slots of its type (cloud 10 per type, edges <= 8)
        ({"cloud_workers": 10}, r"chunks=\(20, 50\): every D_j would exceed every server's worker slots"),
        (
            {"cloud_workers": 10, "chunks": (5, 30)},
            r"job \d+: D_j \(chunks\) = \d+ exceeds the type-\d+ worker",
        ),
    ],
)
def test_bad_parameters_name_the_field_and_value(params, needle):
    kw = {"n_edge": 3, "n_jobs": 20, "server_source": "synthetic", **params}
    with pytest.raises(ValueError, match=needle):
        aonline_workload(np.random.default_rng(0), **kw)


def test_bad_model_cluster_and_job_inputs():
    with pytest.raises(ValueError, match=r"len\(edge_capacity\) must be a positive integer, got 0"):
        Cluster.edge_cloud([], {"w0": 1})
    with pytest.raises(ValueError, match=r"edge_workers must be a 2-d array \(n_edge >= 1"):
        aonline_cluster(np.zeros((0, 2)), np.zeros((0, 1)), 4, 4)
    with pytest.raises(ValueError, match=r"edge_ps\[0, 0\] must be an integer >= 0, got -1"):
        aonline_cluster([[1]], [[-1]], 4, 4)
    with pytest.raises(ValueError, match=r"cloud_workers must be one number or 2 numbers"):
        aonline_cluster([[1, 1]], [[1]], [1, 2, 3], 4)
    with pytest.raises(ValueError, match=r"transfer_delay must be finite"):
        aonline_cluster([[1]], [[1]], 4, 4, cloud_delay=float("nan"))
    with pytest.raises(ValueError, match=r"transfer_delay must be finite and >= 0, got -1"):
        aonline_cluster([[1]], [[1]], 4, 4, edge_delay=-1)
    m = _tiny().jobs[0].model
    with pytest.raises(ValueError, match=r"job 0: transfer_delay\[1\] must be >= 0, got -2"):
        aonline_job(0, 0, m, 0, 0, (0, -2, 1))
    with pytest.raises(ValueError, match=r"job 0: transfer_delay\[0\] must be finite, got nan"):
        aonline_job(0, 0, m, 0, 0, (float("nan"), 0, 1))
    with pytest.raises(ValueError, match=r"job 0: worker_type must be an integer >= 0, got -1"):
        aonline_job(0, 0, m, -1, 0)
    with pytest.raises(ValueError, match=r"AOnlineModel.weight must be > 0, got 0"):
        AOnlineModel(1, 1, 1, 0.1, 0.0, 0.0, weight=0)
    with pytest.raises(ValueError, match=r"bandwidth_mbps must be > 0, got 0"):
        aonline_job_model(
            epochs=1, chunks=1, minibatches=1, compute_hours=0.1, update_ms=1, gradient_mb=1, bandwidth_mbps=0
        )
    with pytest.raises(ValueError, match=r"workers must be an integer >= 1, got 0"):
        duration_slots(m, 0, True)


def test_check_workload_rejects_non_aonline_instances():
    wl = _tiny()
    cl = wl.cluster
    m = wl.jobs[0].model
    big = AOnlineModel(1, 5, 1, 0.1, 0.0, 0.0)  # D_j = 5 > 4 slots of type 0 on every server
    with pytest.raises(ValueError, match=r"job 0: D_j \(chunks\) = 5 exceeds the type-0 worker slots"):
        check_workload(Workload(cl, (aonline_job(0, 0, big, 0, 0),)))
    with pytest.raises(ValueError, match=r"job 1: worker_demand must be one slot of one worker type"):
        check_workload(Workload(cl, (JobSpec(1, 0, m, {"w0": 1, "ps0": 1}, {"ps0": 1}),)))
    with pytest.raises(ValueError, match=r"job 2: model must be AOnlineModel"):
        check_workload(Workload(cl, (JobSpec(2, 0, LinearModel(3.0), {"w0": 1}),)))
    with pytest.raises(ValueError, match=r"exactly one cloud"):
        check_workload(Workload(Cluster.homogeneous(2, {"w0": 4, "ps0": 1}), (aonline_job(0, 0, m, 0, 0),)))
    assert job_types(aonline_job(3, 0, m, 7, 2)) == (7, 2)


# ------------------------------------------------------------------------------ command line


def test_cli_fifo_on_a_tiny_instance(tmp_path, capsys):
    argv = [
        "run", "--workload", "aonline", "--policy", "fifo", "--seed", "1", "--out", str(tmp_path / "out"),
        "--param", "n_edge=3", "--param", "n_jobs=4", "--param", "T=64", "--param", "epochs=[1, 2]",
        "--param", "chunks=[2, 4]", "--param", "minibatches=[2, 4]", "--param", "cloud_workers=8",
        "--param", "server_source='synthetic'", "--format", "csv", "--allocations", "slots",
    ]  # fmt: skip
    assert cli.main(argv) == 0, capsys.readouterr().err
    import pandas as pd

    jobs = pd.read_csv(tmp_path / "out" / "jobs.csv")
    assert (jobs["status"] == "finished").all() and len(jobs) == 4
    wl = registry.make_workload(
        "aonline", seed=1, n_edge=3, n_jobs=4, T=64, epochs=[1, 2], chunks=[2, 4], minibatches=[2, 4],
        cloud_workers=8, server_source="synthetic",
    )  # fmt: skip
    alloc = pd.read_csv(tmp_path / "out" / "allocations.csv")
    check_timeline(wl.cluster, wl.specs, alloc)  # delays, capacities, fixed allocation
    bad = argv[:-2] + ["--param", "n_edge=0"]
    bad[bad.index(str(tmp_path / "out"))] = str(tmp_path / "bad")
    assert cli.main(bad) == 2
    assert "n_edge must be an integer >= 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


def test_synthetic_aonline_workload_is_a_valid_instance():
    """The generic ``synthetic`` workload's A_online jobs use the same typed resources (U = V = 1)."""
    wl = registry.make_workload("synthetic", seed=0, model="aonline", n_jobs=6)
    check_workload(wl)
    assert am.type_counts(wl.cluster) == (1, 1) and {job_types(s) for s in wl.jobs} == {(0, 0)}


def test_preemptible_flag_changes_no_draw():
    """A_online and Preemptive compare on the same jobs: the flag consumes no randomness."""
    a = aonline_workload(np.random.default_rng(8), **SMALL)
    b = aonline_workload(np.random.default_rng(8), preemptible=True, **SMALL)
    assert a.cluster == b.cluster
    for x, y in zip(a.jobs, b.jobs, strict=True):
        assert x.model == AOnlineModel(**{**y.model.__dict__, "allow_preemption": False})
        assert (x.arrival, x.transfer_delay, x.worker_demand, x.ps_demand) == (
            y.arrival,
            y.transfer_delay,
            y.worker_demand,
            y.ps_demand,
        )
