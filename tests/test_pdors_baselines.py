"""PD-ORS's OASiS baseline (``oasis_split``): machine split, job translation, end-to-end runs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dlsched import registry
from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, OasisModel, PdorsModel, RateContext, Sigmoid, Workload
from dlsched.core.schedule import Placement
from dlsched.core.simulator import simulate
from dlsched.pdors.baselines import OasisSplit, n_worker_machines, split_cluster, to_oasis_job

CAP = {"gpu": 4, "cpu": 16, "mem": 64}


def _pdors_job(model: PdorsModel, job_id: int = 0, arrival: int = 0, **kw) -> JobSpec:
    kw.setdefault("worker_demand", {"gpu": 1, "cpu": 2})
    kw.setdefault("ps_demand", {"cpu": 2})
    return JobSpec(job_id, arrival, model, utility=Sigmoid(50.0, 0.5, 5.0), requested_workers=1, **kw)


def _workload(seed: int, **kw) -> Workload:
    params = dict(model="pdors", n_jobs=8, n_servers=6, horizon=30)
    params.update(kw)
    return registry.make_workload("synthetic", seed=seed, **params)


# --------------------------------------------------------------------------------- translation


@settings(max_examples=150, deadline=None)
@given(
    epochs=st.integers(1, 5),
    samples=st.integers(1, 5000),
    batch=st.integers(1, 64),
    tau=st.floats(1e-5, 0.1),
    sync_i=st.floats(0.0, 0.05),
    extra=st.floats(0.0, 0.5),
    ratio=st.one_of(st.integers(1, 10).map(float), st.floats(1.0, 10.0)),
    data=st.data(),
)
def test_translated_plan_is_met_by_the_pdors_rate(epochs, samples, batch, tau, sync_i, extra, ratio, data):
    pm = PdorsModel(epochs, samples, batch, tau, sync_i, sync_i + extra, ratio)
    spec = _pdors_job(pm)
    om = to_oasis_job(spec).model
    assert isinstance(om, OasisModel)
    # work: mini-batch = sample, rounded up by < F samples per epoch
    assert pm.total_work <= om.total_work < pm.total_work + epochs * batch
    assert om.max_workers == pm.max_workers == batch
    # planned per-worker time = the PD-ORS sample time at ratio gamma over external bandwidth
    assert om.minibatch_time == pytest.approx(tau + ratio * pm.sync_external / batch, rel=1e-12)
    y = data.draw(st.integers(1, batch), label="workers")
    z = om.ps_for(y)                                       # OASiS's ceil(y b / B) PS (lines 35-37)
    assert z == math.ceil(y / ratio - 1e-12) and 1 <= z <= y
    cluster = split_cluster(Cluster.homogeneous(4, CAP))
    p = Placement.of({0: y - y // 2, 1: y // 2}, {2: z - z // 2, 3: z // 2})   # workers and PS apart
    ctx = RateContext(cluster, np.zeros_like(cluster.capacity))
    assert not list(pm.placement_violations(spec, p)) and not list(om.placement_violations(spec, p))
    planned = om.rate(spec, p, ctx)
    assert planned == pytest.approx(y / om.minibatch_time, rel=1e-12)
    real = pm.rate(spec, p, ctx)
    assert real >= planned * (1 - 1e-12)
    if y == ratio * z:                                     # the ratio is met exactly: same rate
        assert real == pytest.approx(planned, rel=1e-12)


@pytest.mark.parametrize(
    "samples, batch, ratio, y, z",
    [(1000, 10, 1.0, 7, 7), (999, 10, 2.0, 6, 3), (17, 4, 3.0, 4, 2), (5, 8, 10.0, 8, 1)],
)
def test_translation_hand_cases(samples, batch, ratio, y, z):
    pm = PdorsModel(2, samples, batch, tau=0.01, sync_internal=0.001, sync_external=0.04, ratio=ratio)
    spec = _pdors_job(pm, transfer_delay=None, name="x")
    out = to_oasis_job(spec)
    om = out.model
    assert (om.epochs, om.chunks, om.minibatches) == (2, batch, math.ceil(samples / batch))
    assert (om.tau, om.worker_bw, om.ps_bw) == (0.01, 1.0, ratio)
    assert om.comm == pytest.approx(ratio * 0.04 / (2 * batch))
    assert om.ps_for(y) == z
    for f in ("job_id", "arrival", "worker_demand", "ps_demand", "utility", "requested_workers", "name"):
        assert getattr(out, f) == getattr(spec, f)
    p = Placement.of({0: y}, {1: z})
    ctx = RateContext(Cluster.homogeneous(2, CAP), np.zeros((2, 3)))
    assert pm.rate(spec, p, ctx) >= om.rate(spec, p, ctx) * (1 - 1e-12)


def test_translation_needs_a_pdors_job():
    spec = JobSpec(0, 0, OasisModel(1, 2, 3, 0.1, 0.0), {"gpu": 1}, {"cpu": 1})
    with pytest.raises(ValueError, match="PdorsModel"):
        to_oasis_job(spec)


# ----------------------------------------------------------------------------------------- split


@pytest.mark.parametrize("H", range(2, 10))
def test_half_split_keeps_servers_and_indices(H):
    caps = [{"gpu": i % 3, "cpu": 8 + i, "mem": 32} for i in range(H)]
    real = Cluster(tuple(Server(f"m{i}", "unified", c, transfer_delay=i / 2) for i, c in enumerate(caps)),
                   resources=("gpu", "cpu", "mem", "disk"), compressible=("mem",), slot_seconds=60.0)
    sc = split_cluster(real)
    h = math.ceil(H / 2)
    assert n_worker_machines(H) == h
    assert sc.pools == ("worker",) * h + ("ps",) * (H - h)
    assert list(sc.servers_for("worker")) == list(range(h))
    assert list(sc.servers_for("ps")) == list(range(h, H))
    assert [s.name for s in sc.servers] == [s.name for s in real.servers]
    np.testing.assert_array_equal(sc.capacity, real.capacity)
    np.testing.assert_array_equal(sc.transfer_delay, real.transfer_delay)
    assert (sc.resources, sc.compressible, sc.slot_seconds) == (real.resources, real.compressible, 60.0)


@pytest.mark.parametrize(
    "H, share, h", [(4, 0.25, 1), (4, 0.75, 3), (10, 0.3, 3), (10, 0.01, 1), (10, 0.99, 9), (2, 0.9, 1),
                    (5, 0.5, 3), (7, 0.5, 4)]
)
def test_fractional_split(H, share, h):
    sc = split_cluster(Cluster.homogeneous(H, CAP), share)
    assert n_worker_machines(H, share) == h
    assert list(sc.servers_for("worker")) == list(range(h))
    assert list(sc.servers_for("ps")) == list(range(h, H))


@pytest.mark.parametrize("bad", ["third", "HALF", 0, 0.0, 1, 1.0, 1.5, -0.2, math.nan, math.inf, True, None])
def test_bad_split_is_rejected(bad):
    with pytest.raises(ValueError, match=r"oasis_split\.split") as e:
        OasisSplit(split=bad)
    assert repr(bad) in str(e.value)
    with pytest.raises(ValueError, match=r"oasis_split\.split"):
        split_cluster(Cluster.homogeneous(4, CAP), bad)


def test_bad_parameters_and_one_machine():
    for field, value in (("u_scale", 0), ("u_scale", math.inf), ("max_log_ratio", -1.0),
                         ("method", "fast")):
        with pytest.raises(ValueError, match=rf"oasis_split\.{field}"):
            OasisSplit(**{field: value})
    with pytest.raises(ValueError, match="at least 2 machines"):
        split_cluster(Cluster.homogeneous(1, CAP))
    wl = _workload(0)
    with pytest.raises(ValueError, match="from_workload"):
        simulate(wl, OasisSplit(), seed=0)              # no price parameters without the workload
    oasis_wl = registry.make_workload("synthetic", seed=0, model="oasis", n_jobs=3, horizon=5)
    with pytest.raises(ValueError, match="PdorsModel"):
        OasisSplit.from_workload(oasis_wl)
    other = _workload(0, n_servers=5)
    with pytest.raises(ValueError, match="differs"):
        simulate(other, registry.make_policy("oasis_split", wl), seed=0)


# ------------------------------------------------------------------------------------ end to end


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("split", ["half", 0.34])
def test_end_to_end_runs_and_meets_the_plan(seed, split):
    wl = _workload(seed)
    pol = registry.make_policy("oasis_split", wl, split=split)
    assert isinstance(pol, OasisSplit) and type(pol.inner).__name__ == "OASiS"
    res = simulate(wl, pol, seed=seed)                  # checker on: no ScheduleViolation
    assert res.policy == "oasis_split" and res.policy_params["split"] == split
    jobs = res.jobs.set_index("job_id")
    h = n_worker_machines(wl.cluster.n_servers, split)
    alloc = res.allocations
    assert (alloc[alloc.role == "worker"].server < h).all() and (alloc[alloc.role == "ps"].server >= h).all()
    for (_j, _t), g in alloc.groupby(["job", "slot"]):
        assert not set(g[g.role == "worker"].server) & set(g[g.role == "ps"].server)
    assert set(alloc.job) <= set(jobs.index[jobs.admitted])
    # Alg. 1 line 4: admitted iff payoff > 0; the real rate meets the plan, so admitted jobs end in time
    assert ((jobs.payoff > 0) == jobs.admitted).all()
    adm = jobs[jobs.admitted]
    assert (adm.status == "finished").all()
    assert (adm.completion_slot <= adm.planned_completion).all()
    assert (adm.work_done == adm.total_work).all()
    # and the PD-ORS work is E*K samples, not OASiS's rounded-up E*N*M
    work = [wl.specs[j].model.epochs * wl.specs[j].model.samples for j in jobs.index]
    assert (jobs.total_work == work).all()


def test_determinism():
    wl = _workload(7, n_jobs=10)
    a = simulate(wl, registry.make_policy("oasis_split", wl), seed=3)
    b = simulate(wl, registry.make_policy("oasis_split", wl), seed=3)
    assert a.jobs.equals(b.jobs) and a.runs.equals(b.runs)


def test_jobs_that_cannot_run_split_are_rejected():
    """A GPU worker fits only on the GPU machine, which the split makes a PS machine: it runs under
    PD-ORS's pool (worker and PS co-located) but OASiS can never place it."""
    cluster = Cluster((Server("cpu0", "unified", {"gpu": 0, "cpu": 16}),
                       Server("gpu0", "unified", {"gpu": 4, "cpu": 16})))
    pm = PdorsModel(1, 40, 4, tau=0.01, sync_internal=0.0, sync_external=0.01)
    gpu_job = _pdors_job(pm, 0, worker_demand={"gpu": 1, "cpu": 1}, ps_demand={"cpu": 1})
    cpu_job = _pdors_job(pm, 1, worker_demand={"cpu": 1}, ps_demand={"cpu": 1})
    wl = Workload(cluster, (gpu_job, cpu_job), horizon=10)
    pol = registry.make_policy("oasis_split", wl)
    assert [s.job_id for s in pol.workload.jobs] == [1]
    jobs = simulate(wl, pol, seed=0).jobs.set_index("job_id")
    assert jobs.loc[0, "status"] == "rejected" and jobs.loc[0, "payoff"] == -math.inf
    assert jobs.loc[1, "status"] == "finished"
    only_gpu = Workload(cluster, (gpu_job,), horizon=10)
    pol = registry.make_policy("oasis_split", only_gpu)
    assert pol.inner is None
    assert simulate(only_gpu, pol, seed=0).jobs.loc[0, "status"] == "rejected"
