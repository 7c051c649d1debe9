"""Tests of dlsched.core.jobs: the six job models against hand-computed values of the papers'
formulas, their constraints, utilities, loss curves, JobSpec/Workload and input validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dlsched.core.cluster import Cluster
from dlsched.core.jobs import (
    MODELS,
    AOnlineModel,
    ConstantUtility,
    JobSpec,
    LinearModel,
    LossCurve,
    OasisModel,
    OptimusModel,
    PdorsModel,
    RateContext,
    Sigmoid,
    SpeconModel,
    Workload,
)
from dlsched.core.schedule import EMPTY, Placement, server_usage

P = Placement.of


def ctx_for(cluster: Cluster, load=None) -> RateContext:
    """Rate context with the given load (default: an empty cluster)."""
    return RateContext(
        cluster, np.zeros_like(cluster.capacity) if load is None else np.asarray(load, float)
    )


def violations(model, placement, spec=None) -> set[str]:
    return {c for c, _ in model.placement_violations(spec, placement)}


UNIFIED = Cluster.homogeneous(3, {"gpu": 4, "cpu": 16})


# ------------------------------------------------------------------------------------- OASiS


def test_oasis_rate_three_workers():
    m = OasisModel(epochs=2, chunks=3, minibatches=4, tau=0.1, comm=0.05)
    # minibatch time tau + 2 e/b = 0.1 + 2*0.05 = 0.2 slots;
    # 3 workers -> 3/0.2 = 15 mini-batches/slot
    assert m.minibatch_time == pytest.approx(0.2)
    assert m.rate(None, P({0: 3}, {1: 1}), ctx_for(UNIFIED)) == pytest.approx(15.0)


def test_oasis_rate_two_workers_spread_is_placement_independent():
    m = OasisModel(epochs=1, chunks=4, minibatches=1, tau=0.25, comm=0.125)
    # 0.25 + 2*0.125 = 0.5 slots per mini-batch; 2 workers -> 2/0.5 = 4, wherever they are
    assert m.rate(None, P({0: 2}, {0: 1}), ctx_for(UNIFIED)) == pytest.approx(4.0)
    assert m.rate(None, P({0: 1, 2: 1}, {1: 1}), ctx_for(UNIFIED)) == pytest.approx(4.0)
    assert m.rate(None, EMPTY, ctx_for(UNIFIED)) == 0.0


def test_oasis_work_bounds_and_ps_count():
    m = OasisModel(epochs=2, chunks=3, minibatches=4, tau=0.1, comm=0.05, worker_bw=1.0, ps_bw=2.5)
    assert m.total_work == 24.0  # E N M = 2*3*4 mini-batches
    assert m.max_workers == 3  # (3): at most N_i workers
    assert m.min_workers == 1
    assert m.elastic is True
    assert m.needs_ps is True
    assert m.work_unit == "mini-batches"
    # (6): z >= y b / B -> ceil(3*1/2.5) = ceil(1.2) = 2; exactly 2 for y = 5 (no rounding up)
    assert m.ps_for(3) == 2
    assert m.ps_for(5) == 2
    assert m.ps_for(1) == 1
    assert m.ps_for(0) == 0


def test_oasis_constraints():
    m = OasisModel(epochs=1, chunks=3, minibatches=1, tau=0.1, comm=0.0, worker_bw=2.0, ps_bw=3.0)
    # feasible: 3 workers x b=2 = 6 <= 2 PS x B=3 = 6, and 2 PS <= 3 workers
    assert violations(m, P({0: 3}, {1: 2})) == set()
    # (3) alone: 4 workers > N=3, while (6) 4*2 = 8 <= 3*3 = 9 and (7) 3 <= 4 hold
    assert violations(m, P({0: 4}, {1: 3})) == {"max_workers"}
    # (6): 2 workers x 2 = 4 > 1 PS x 3 = 3
    assert violations(m, P({0: 2}, {1: 1})) == {"ps_bandwidth"}
    # (7): 3 PS > 2 workers (bandwidth fine: 4 <= 9)
    assert violations(m, P({0: 2}, {1: 3})) == {"ps_count"}
    # workers without PS: PS required, and (6) fails (2 > 0)
    assert violations(m, P({0: 1})) == {"ps_required", "ps_bandwidth"}
    assert violations(m, EMPTY) == set()


# ------------------------------------------------------------------------------------ PD-ORS


PD = dict(epochs=2, samples=100, batch=8, tau=0.01, sync_internal=0.08, sync_external=0.8)


def test_pdors_colocated_vs_split_fact1():
    m = PdorsModel(**PD)
    # co-located (Fact 1, internal bandwidth): per-sample 0.01 + (2/2)*0.08/8 = 0.02 -> 2/0.02 = 100
    assert m.rate(None, P({0: 2}, {0: 2}), ctx_for(UNIFIED)) == pytest.approx(100.0)
    # PS on another server (external): 0.01 + (2/2)*0.8/8 = 0.11 -> 2/0.11 = 18.18...
    assert m.rate(None, P({0: 2}, {1: 2}), ctx_for(UNIFIED)) == pytest.approx(2 / 0.11)
    # workers split over two servers, PS with one of them: still external
    assert m.rate(None, P({0: 1, 1: 1}, {0: 2}), ctx_for(UNIFIED)) == pytest.approx(2 / 0.11)
    assert m.sample_time(2, 2, True) == pytest.approx(0.02)
    assert m.sample_time(2, 2, False) == pytest.approx(0.11)


def test_pdors_ratio_two_workers_per_ps():
    m = PdorsModel(**PD, ratio=2.0)
    # 4 workers, 2 PS, co-located: 0.01 + (4/2)*0.08/8 = 0.03 -> 4/0.03 = 133.33
    assert m.rate(None, P({1: 4}, {1: 2}), ctx_for(UNIFIED)) == pytest.approx(4 / 0.03)
    # ps_for = ceil(w / ratio): 3 -> 2, 4 -> 2, 5 -> 3
    assert [m.ps_for(w) for w in (3, 4, 5)] == [2, 2, 3]
    assert m.rate(None, P({1: 4}), ctx_for(UNIFIED)) == 0.0  # no PS: no progress


def test_pdors_work_bounds_and_constraints():
    m = PdorsModel(**PD, ratio=2.0)
    assert m.total_work == 200.0  # E K = 2*100 samples
    assert m.max_workers == 8  # (4): at most F_i workers
    assert m.ps_for(1) == 1
    assert m.elastic is True
    assert violations(m, P({0: 8}, {0: 4})) == set()
    assert violations(m, P({0: 9}, {0: 5})) == {"max_workers"}
    # 3 workers > ratio 2 x 1 PS
    assert violations(m, P({0: 3}, {1: 1})) == {"ps_ratio"}
    assert violations(m, P({0: 1})) == {"ps_required", "ps_ratio"}


# ---------------------------------------------------------------------------------- A_online


AO = dict(epochs=2, chunks=4, minibatches=5, compute=0.15, update=0.05, comm=0.05)


def test_aonline_eq1_colocated_and_not():
    m = AOnlineModel(**AO)
    # xi = 1: p = 1/(n + H) = 1/0.2 = 5 per worker; 2 workers -> 10
    assert m.speed(True) == pytest.approx(5.0)
    assert m.rate(None, P({0: 2}, {0: 1}), ctx_for(UNIFIED)) == pytest.approx(10.0)
    # xi = 0: p = 1/(n + H + 2k/B) = 1/0.25 = 4 per worker; 2 workers -> 8
    assert m.speed(False) == pytest.approx(4.0)
    assert m.rate(None, P({0: 2}, {1: 1}), ctx_for(UNIFIED)) == pytest.approx(8.0)
    assert m.rate(None, P({0: 1, 1: 2}, {1: 1}), ctx_for(UNIFIED)) == pytest.approx(12.0)
    assert m.rate(None, P({0: 2}), ctx_for(UNIFIED)) == 0.0


def test_aonline_work_bounds_and_constraints():
    m = AOnlineModel(**AO)
    assert m.total_work == 40.0  # (2e): E D M = 2*4*5
    assert m.max_workers == 4  # (2a): D_j
    assert m.elastic is False  # (2c)-(2d)
    assert [m.ps_for(w) for w in (0, 1, 4)] == [0, 1, 1]  # (2b): one PS
    assert violations(m, P({0: 4}, {0: 1})) == set()
    assert violations(m, P({0: 2}, {0: 1, 1: 1})) == {"one_ps"}
    assert violations(m, P({0: 2}, {0: 2})) == {"one_ps"}
    assert violations(m, P({0: 5}, {1: 1})) == {"max_workers"}
    assert violations(m, P({0: 1})) == {"ps_required", "one_ps"}


# ----------------------------------------------------------------------------------- Optimus


OPT = dict(
    total_steps=1000,
    batch=64,
    t_forward=0.01,
    t_back=0.2,
    model_size=0.5,
    ps_bw=2.0,
    worker_bw=4.0,
    t_update=0.06,
    delta=0.01,
    delta_ps=0.02,
)


def test_optimus_sync_step_time_eq2():
    m = OptimusModel("sync", **OPT, placement_aware=False)
    # p = 2, w = 4, sync: m = M/w = 16 -> 16*0.01 = 0.16; T_back = 0.2;
    # transfer 2 (S/p) w / B = 2*0.25*4/2 = 1.0; update T_upd w/p = 0.06*2 = 0.12;
    # delta w = 0.04; delta' p = 0.04 -> T = 1.56 s
    assert m.step_time(2, 4) == pytest.approx(1.56)
    assert m.speed(2, 4) == pytest.approx(1 / 1.56)  # sync: 1/T steps/s
    c = Cluster.homogeneous(3, {"cpu": 16}, slot_seconds=3.12)
    assert m.rate(None, P({0: 4}, {1: 2}), ctx_for(c)) == pytest.approx(2.0)  # 3.12 s / 1.56 s


def test_optimus_async_step_time_eq2():
    m = OptimusModel("async", **OPT, placement_aware=False)
    # async: m = M = 64 -> 0.64; T = 0.64 + 0.2 + 1.0 + 0.12 + 0.04 + 0.04 = 2.04 s
    assert m.step_time(2, 4) == pytest.approx(2.04)
    assert m.speed(2, 4) == pytest.approx(4 / 2.04)  # async: w/T
    c = Cluster.homogeneous(3, {"cpu": 16}, slot_seconds=10.2)
    assert m.rate(None, P({0: 4}, {1: 2}), ctx_for(c)) == pytest.approx(20.0)  # 10.2*4/2.04
    assert m.speed(0, 4) == 0.0 and m.speed(2, 0) == 0.0


def test_optimus_placement_aware_transfer_term():
    m = OptimusModel("sync", **OPT, placement_aware=True)
    even = P({0: 2, 1: 2}, {0: 1, 1: 1})
    # appendix: share S/p = 0.25; per server (w - w_k)/B = 2/2, (p - p_k)/b = 1/4
    # -> 2 * max(0.25*1, 0.25*0.25) = 0.5; T = 0.16 + 0.2 + 0.5 + 0.12 + 0.04 + 0.04 = 1.06
    assert m.step_time(2, 4, even) == pytest.approx(1.06)
    # all tasks on one server: no cross-server traffic -> T = 0.56
    assert m.step_time(2, 4, P({0: 4}, {0: 2})) == pytest.approx(0.56)
    # without a placement the aware model falls back to Eq. (2): 1.56
    assert m.step_time(2, 4) == pytest.approx(1.56)
    c = Cluster.homogeneous(3, {"cpu": 16}, slot_seconds=1.06)
    assert m.rate(None, even, ctx_for(c)) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("placement", "units"),
    [
        # (a): {ps1, w1} | {ps2, w2} | {w3, w4}: ps1 and ps2 each talk to 3 remote workers
        (P({0: 1, 1: 1, 2: 2}, {0: 1, 1: 1}), 3.0),
        # (b): {ps1, ps2, w1} | {w2, w3, w4}: every PS talks to 3 remote workers
        (P({0: 1, 1: 3}, {0: 2}), 3.0),
        # (c): {ps1, w1, w2} | {ps2, w3, w4}: even split on the fewest servers (Theorem 1)
        (P({0: 2, 1: 2}, {0: 1, 1: 1}), 2.0),
    ],
)
def test_optimus_fig10_placements(placement, units):
    # Fig. 10: 2 PS + 4 workers, all bandwidths 1, 1 unit per PS-worker pair: S/p = 1 -> S = 2.
    # Only the transfer term and a fixed backward time of 1 are non-zero (a model whose step time
    # can vanish is rejected); step_time = 1 + 2 (push + pull) x appendix max.
    m = OptimusModel(
        "sync",
        total_steps=1,
        batch=4,
        t_forward=0,
        t_back=1.0,
        model_size=2.0,
        ps_bw=1.0,
        worker_bw=1.0,
    )
    assert m.step_time(2, 4, placement) == pytest.approx(1.0 + 2 * units)


def test_optimus_work_and_interface():
    m = OptimusModel("sync", **OPT)
    assert m.total_work == 1000.0
    assert m.work_known is False
    assert m.max_workers is None
    assert m.min_workers == 1
    assert m.elastic is True
    assert [m.ps_for(w) for w in (1, 3)] == [1, 3]
    assert violations(m, P({0: 3}, {0: 1})) == set()
    assert violations(m, P({0: 3})) == {"ps_required"}


def test_optimus_observations_follow_the_loss_curve():
    m = OptimusModel("sync", **OPT, loss=LossCurve(1.0, 1.0, 0.5), work_per_epoch=100.0)
    # 250 steps = 2 complete epochs: l(1) = 1/2 + 0.5 = 1.0, l(2) = 1/3 + 0.5
    np.testing.assert_allclose(m.observations(250.0), [1.0, 1 / 3 + 0.5])
    assert m.observations(99.0).size == 0
    assert OptimusModel("sync", **OPT).observations(500.0).size == 0
    assert m.params()["loss_beta2"] == 0.5


# ------------------------------------------------------------------------------------ SpeCon


SPECON_CLUSTER = Cluster.homogeneous(
    2, {"cpu": 8, "mem": 32}, compressible=("cpu",), slot_seconds=10.0
)


def test_specon_proportional_cpu_sharing_on_an_oversubscribed_node():
    m = SpeconModel(work=1000.0)
    specs = {j: JobSpec(j, 0, m, {"cpu": c, "mem": 1}) for j, c in ((0, 4), (1, 6), (2, 6))}
    allocs = {0: P({0: 1}), 1: P({0: 1}), 2: P({1: 1})}
    load = server_usage(SPECON_CLUSTER, specs, allocs)
    np.testing.assert_array_equal(load[:, 0], [10, 6])
    ctx = RateContext(SPECON_CLUSTER, load)
    # node 0 asks 4 + 6 = 10 cores of 8 -> share 0.8: job 0 gets 4*0.8*10 s = 32 core-seconds/slot
    assert m.rate(specs[0], allocs[0], ctx) == pytest.approx(32.0)
    assert m.rate(specs[1], allocs[1], ctx) == pytest.approx(48.0)  # 6*0.8*10
    # node 1 is not oversubscribed (6 <= 8): full share, 6*10 = 60
    assert m.rate(specs[2], allocs[2], ctx) == pytest.approx(60.0)
    # load 16 on node 0 -> share 8/16 = 0.5 -> 4*0.5*10 = 20
    assert m.rate(specs[0], allocs[0], ctx_for(SPECON_CLUSTER, [[16, 0], [0, 0]])) == pytest.approx(
        20.0
    )
    assert m.rate(specs[0], EMPTY, ctx) == 0.0


def test_specon_migration_pause_and_interface():
    m = SpeconModel(work=500.0, migration_pause=7.5)
    assert m.switch_pause(P({0: 1}), P({1: 1})) == 7.5  # moved to another node
    assert m.switch_pause(P({0: 1}), P({0: 1})) == 0.0  # same node
    assert m.switch_pause(EMPTY, P({1: 1})) == 0.0  # first start
    assert m.switch_pause(P({1: 1}), EMPTY) == 0.0  # stop
    assert m.total_work == 500.0
    assert m.work_known is False
    assert m.max_workers == 1
    assert m.needs_ps is False
    assert m.ps_for(1) == 0
    assert violations(m, P({0: 1})) == set()
    assert violations(m, P({0: 2})) == {"max_workers"}
    assert violations(m, P({0: 1}, {1: 1})) == {"ps_not_used"}
    # other models never pause
    assert LinearModel(1.0).switch_pause(P({0: 1}), P({1: 1})) == 0.0


# ------------------------------------------------------------------------------------ Linear


def test_linear_rigid_gang():
    m = LinearModel(work=6.0, min_gang=2, max_gang=2)
    # w workers do w worker-slots per slot: 2 workers -> 2
    assert m.rate(None, P({0: 1, 1: 1}), ctx_for(UNIFIED)) == 2.0
    assert m.total_work == 6.0
    assert (m.min_workers, m.max_workers, m.elastic) == (2, 2, False)
    assert m.ps_for(2) == 0
    assert violations(m, P({0: 2})) == set()
    assert violations(m, P({0: 1})) == {"min_workers"}
    assert violations(m, P({0: 3})) == {"max_workers"}
    assert violations(m, P({0: 2}, {0: 1})) == {"ps_not_used"}


def test_linear_elastic():
    m = LinearModel(work=3.0)
    assert m.rate(None, P({0: 3, 2: 4}), ctx_for(UNIFIED)) == 7.0
    assert (m.min_workers, m.max_workers, m.elastic) == (1, None, True)
    m2 = LinearModel(work=3.0, min_gang=1, max_gang=4)
    assert (m2.max_workers, m2.elastic) == (4, True)
    assert m2.observations(3.0).size == 0


def test_models_registry_kinds():
    assert set(MODELS) == {"oasis", "pdors", "aonline", "optimus", "specon", "linear"}
    assert MODELS["oasis"] is OasisModel and MODELS["linear"] is LinearModel


# --------------------------------------------------------------------------------- utilities


def test_sigmoid_values():
    u = Sigmoid(gamma1=10.0, gamma2=0.7, gamma3=3.0)
    assert u(3) == pytest.approx(5.0)  # d = gamma3 -> gamma1/2
    assert isinstance(u(3), float)
    assert u(0) == pytest.approx(10 / (1 + math.exp(-2.1)))
    assert u.target == 3.0
    # gamma2 = 0: time-insensitive, always gamma1/2
    flat = Sigmoid(8.0, 0.0, 5.0)
    assert flat(0) == 4.0 and flat(1000) == 4.0
    # vectorized: d = 2 -> 5; d = 2 + ln 3 -> 10/(1+3) = 2.5
    v = Sigmoid(10.0, 1.0, 2.0)(np.array([2.0, 2.0 + math.log(3.0)]))
    assert isinstance(v, np.ndarray)
    np.testing.assert_allclose(v, [5.0, 2.5])
    # non-increasing, no overflow warnings for a long duration
    assert Sigmoid(1.0, 50.0, 0.0)(1e6) == 0.0


def test_constant_utility():
    u = ConstantUtility(3.0)
    assert u(0) == 3.0 and u(1e9) == 3.0
    np.testing.assert_array_equal(u(np.arange(4)), [3, 3, 3, 3])
    assert math.isnan(u.target)
    assert ConstantUtility()(5) == 1.0


def test_loss_curve_values():
    c = LossCurve(0.5, 1.0, 0.1)
    # l(k) = 1/(0.5 k + 1) + 0.1: l(0) = 1.1, l(2) = 0.6
    assert c(0) == pytest.approx(1.1)
    assert c(2) == pytest.approx(0.6)
    np.testing.assert_allclose(c(np.array([0, 2, 6])), [1.1, 0.6, 0.35])


# ---------------------------------------------------------------------------- JobSpec/Workload


def test_jobspec_normalises_and_reports():
    m = OasisModel(epochs=1, chunks=2, minibatches=3, tau=0.1, comm=0.05)
    s = JobSpec(
        7,
        2.0,
        m,
        {"gpu": 1, "cpu": 2},
        {"cpu": 1},
        utility=Sigmoid(5, 1, 4),
        requested_workers=2,
        name="resnet",
    )
    assert s.arrival == 2 and isinstance(s.arrival, int)
    assert dict(s.worker_demand) == {"gpu": 1.0, "cpu": 2.0}
    assert s.target == 4.0
    row = s.to_row()
    assert row["job_id"] == 7 and row["model"] == "oasis" and row["total_work"] == 6.0
    assert row["worker_gpu"] == 1.0 and row["ps_cpu"] == 1.0
    assert row["utility_gamma1"] == 5.0 and row["model_chunks"] == 2
    assert math.isnan(JobSpec(0, 0, LinearModel(1), {"gpu": 1}).target)


def test_jobspec_delays():
    c = Cluster.edge_cloud([{"w": 1}], {"w": 4}, edge_delay=1, cloud_delay=3)
    s = JobSpec(0, 0, LinearModel(1), {"w": 1})
    np.testing.assert_array_equal(s.delays(c), [1, 3])
    s2 = JobSpec(1, 0, LinearModel(1), {"w": 1}, transfer_delay=(0, 5))
    np.testing.assert_array_equal(s2.delays(c), [0, 5])


def test_workload_sorts_jobs_and_builds_frame():
    c = Cluster.homogeneous(1, {"gpu": 4})
    jobs = (
        JobSpec(2, 1, LinearModel(1), {"gpu": 1}),
        JobSpec(1, 1, LinearModel(1), {"gpu": 1}),
        JobSpec(5, 0, LinearModel(1), {"gpu": 1}),
    )
    wl = Workload(c, jobs, horizon=10)
    assert [s.job_id for s in wl.jobs] == [5, 1, 2]  # by (arrival, job_id)
    assert set(wl.specs) == {1, 2, 5}
    df = wl.jobs_frame()
    assert df["job_id"].tolist() == [5, 1, 2]
    assert {"worker_gpu", "arrival", "model", "total_work"} <= set(df.columns)


# -------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda: OasisModel(0, 1, 1, 0.1, 0.1), r"OasisModel.epochs must be >= 1, got 0"),
        (lambda: OasisModel(1, 1.5, 1, 0.1, 0.1), r"OasisModel.chunks must be an integer, got 1.5"),
        (lambda: OasisModel(1, 1, 1, math.nan, 0.1), r"OasisModel.tau must be finite, got nan"),
        (lambda: OasisModel(1, 1, 1, 0.1, -0.1), r"OasisModel.comm must be >= 0, got -0.1"),
        (
            lambda: OasisModel(1, 1, 1, 0.1, 0.1, worker_bw=2, ps_bw=1),
            r"OasisModel.worker_bw=2 exceeds ps_bw=1",
        ),
        (lambda: OasisModel(1, 1, 1, 0.0, 0.0), r"OasisModel: tau \+ comm must be > 0"),
        (
            lambda: PdorsModel(1, 1, 1, 0.1, 0.5, 0.2),
            r"PdorsModel.sync_internal=0.5 exceeds sync_external=0.2",
        ),
        (lambda: PdorsModel(1, 1, 0, 0.1, 0.1, 0.2), r"PdorsModel.batch must be >= 1, got 0"),
        (
            lambda: PdorsModel(1, 1, 1, 0.1, 0.1, 0.2, ratio=0),
            r"PdorsModel.ratio must be > 0, got 0",
        ),
        (lambda: AOnlineModel(1, 1, 1, 0, 0.1, 0.1), r"AOnlineModel.compute must be > 0, got 0"),
        (
            lambda: AOnlineModel(1, 1, 1, 0.1, math.inf, 0.1),
            r"AOnlineModel.update must be finite, got inf",
        ),
        (
            lambda: OptimusModel("semi", 1, 1, 0, 0, 1, 1, 1),
            r"OptimusModel.mode must be 'sync' or 'async', got 'semi'",
        ),
        (
            lambda: OptimusModel("sync", 0, 1, 0, 0, 1, 1, 1),
            r"OptimusModel.total_steps must be > 0, got 0",
        ),
        (
            lambda: OptimusModel("sync", 1, 1, 0, 0, 1, -1, 1),
            r"OptimusModel.ps_bw must be > 0, got -1",
        ),
        (lambda: SpeconModel(-1), r"SpeconModel.work must be > 0, got -1"),
        (
            lambda: SpeconModel(1, migration_pause=math.nan),
            r"SpeconModel.migration_pause must be finite, got nan",
        ),
        (lambda: LinearModel(0), r"LinearModel.work must be > 0, got 0"),
        (lambda: LinearModel(1, min_gang=0), r"LinearModel.min_gang must be >= 1, got 0"),
        (lambda: LinearModel(1, min_gang=2, max_gang=1), r"LinearModel.max_gang=1 < min_gang=2"),
        (lambda: Sigmoid(0, 1, 1), r"Sigmoid.gamma1 must be > 0, got 0"),
        (lambda: Sigmoid(1, -1, 1), r"Sigmoid.gamma2 must be >= 0, got -1"),
        (lambda: Sigmoid(1, 1, math.nan), r"Sigmoid.gamma3 must be finite, got nan"),
        (lambda: Sigmoid(True, 1, 1), r"Sigmoid.gamma1 must be a number, got True"),
        (lambda: ConstantUtility(-1), r"ConstantUtility.value must be >= 0, got -1"),
        (lambda: LossCurve(-1, 1), r"LossCurve.beta0 must be >= 0, got -1"),
        (lambda: LossCurve(0, 0), r"LossCurve: beta0 and beta1 cannot both be 0"),
    ],
)
def test_model_validation_names_field_and_value(make, pattern):
    with pytest.raises(ValueError, match=pattern):
        make()


def test_model_loss_must_be_a_loss_curve():
    with pytest.raises(TypeError, match=r"OptimusModel.loss must be a LossCurve or None, got int"):
        OptimusModel("sync", 1, 1, 0, 0, 1, 1, 1, loss=3)
    with pytest.raises(TypeError, match=r"SpeconModel.loss must be a LossCurve or None, got str"):
        SpeconModel(1, loss="curve")


LIN = LinearModel(2.0)
OAS = OasisModel(1, 2, 1, 0.1, 0.1)


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (
            lambda: JobSpec(0, 0, LIN, 3),
            r"job 0: worker_demand must be a mapping resource -> amount, got 3",
        ),
        (
            lambda: JobSpec(0, 0, LIN, {"gpu": 1}, ps_demand=[1]),
            r"job 0: ps_demand must be a mapping .* got \[1\]",
        ),
        (
            lambda: JobSpec(0, 0, LIN, {"gpu": 0, "cpu": 0}),
            r"job 0: worker_demand must ask for some resource, got \{'gpu': 0.0, 'cpu': 0.0\}",
        ),
        (
            lambda: JobSpec(0, 0, LIN, {"gpu": -1}),
            r"job 0: worker_demand\['gpu'\] must be >= 0, got -1",
        ),
        (
            lambda: JobSpec(0, 0, LIN, {"gpu": math.nan}),
            r"job 0: worker_demand\['gpu'\] must be finite, got nan",
        ),
        (
            lambda: JobSpec(0, 0, OAS, {"gpu": 1}),
            r"job 0: ps_demand must ask for some resource for a oasis job",
        ),
        (lambda: JobSpec(-1, 0, LIN, {"gpu": 1}), r"job_id must be >= 0, got -1"),
        (lambda: JobSpec(3, -2, LIN, {"gpu": 1}), r"job 3: arrival must be >= 0, got -2"),
        (lambda: JobSpec(3, 1.5, LIN, {"gpu": 1}), r"job 3: arrival must be an integer, got 1.5"),
        (
            lambda: JobSpec(0, 0, OAS, {"gpu": 1}, {"cpu": 1}, requested_workers=3),
            r"job 0: requested_workers=3 exceeds the model's max_workers=2",
        ),
        (
            lambda: JobSpec(0, 0, LIN, {"gpu": 1}, requested_workers=0),
            r"job 0: requested_workers must be >= 1, got 0",
        ),
        (
            lambda: JobSpec(0, 0, LIN, {"gpu": 1}, transfer_delay=(1, -1)),
            r"job 0: transfer_delay\[1\] must be >= 0, got -1",
        ),
    ],
)
def test_jobspec_validation_names_field_and_value(make, pattern):
    with pytest.raises(ValueError, match=pattern):
        make()


def test_jobspec_type_errors():
    with pytest.raises(TypeError, match=r"job 0: model must be a JobModel, got str"):
        JobSpec(0, 0, "linear", {"gpu": 1})
    with pytest.raises(TypeError, match=r"job 0: utility must be a Utility, got int"):
        JobSpec(0, 0, LIN, {"gpu": 1}, utility=3)


def test_jobspec_all_zero_ps_demand_names_the_value():
    with pytest.raises(ValueError, match=r"ps_demand.*\{'cpu': 0.0\}"):
        JobSpec(0, 0, OAS, {"gpu": 1}, {"cpu": 0})


C2 = Cluster.homogeneous(2, {"gpu": 2})


@pytest.mark.parametrize(
    ("jobs", "kwargs", "pattern"),
    [
        (
            (JobSpec(0, 0, LIN, {"gpu": 1}), JobSpec(0, 1, LIN, {"gpu": 1})),
            {},
            r"workload.jobs: duplicate job_id \[0\]",
        ),
        (
            (JobSpec(0, 0, LIN, {"tpu": 1}),),
            {},
            r"job 0: worker_demand names resource 'tpu' that the cluster does not have",
        ),
        (
            (JobSpec(0, 0, OAS, {"gpu": 1}, {"ram": 1}),),
            {},
            r"job 0: ps_demand names resource 'ram'",
        ),
        # a gang of 5 one-GPU workers on 2 x 2 GPUs can never run
        (
            (JobSpec(4, 0, LinearModel(1, min_gang=5), {"gpu": 1}),),
            {},
            r"job 4 can never run: 5 worker\(s\) of demand \{'gpu': 1.0\}",
        ),
        (
            (JobSpec(4, 0, LIN, {"gpu": 3}),),
            {},
            r"job 4 can never run: 1 worker\(s\) of demand \{'gpu': 3.0\}",
        ),
        (
            (JobSpec(0, 0, OAS, {"gpu": 1}, {"gpu": 3}),),
            {},
            r"job 0 can never run: 1 worker\(s\) of demand .* and 1 PS of demand \{'gpu': 3.0\} do not fit",
        ),
        (
            (JobSpec(0, 0, LIN, {"gpu": 1}, transfer_delay=(1, 2, 3)),),
            {},
            r"job 0: transfer_delay has 3 entries for 2 servers",
        ),
        ((), {"horizon": 0}, r"workload.horizon must be >= 1, got 0"),
    ],
)
def test_workload_validation(jobs, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        Workload(C2, jobs, **kwargs)


def test_workload_gang_fits_across_servers_and_on_compressible_resources():
    # a gang of 4 one-GPU workers fits on 2 x 2 GPUs (split over servers)
    Workload(C2, (JobSpec(0, 0, LinearModel(1, min_gang=4), {"gpu": 1}),))
    # a SpeCon container asking 16 time-shared cores on an 8-core node is allowed
    Workload(SPECON_CLUSTER, (JobSpec(0, 0, SpeconModel(10), {"cpu": 16, "mem": 1}),))
    with pytest.raises(TypeError, match=r"workload.cluster must be a Cluster, got str"):
        Workload("cluster", ())
