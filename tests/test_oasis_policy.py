"""OASiS Algorithms 1-2: fast path vs the literal DP_COST, the checks of Theorems 1-2, duality,
Appendix A, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dlsched import registry
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, Sigmoid, Workload
from dlsched.core.simulator import simulate
from dlsched.oasis import checks
from dlsched.oasis.policy import OASiS, dp_cost_literal, price_parameters


def _instance(seed: int, n_jobs: int = 8, n_servers: int = 3, T: int = 6) -> Workload:
    return registry.make_workload("synthetic", seed=seed, model="oasis", n_jobs=n_jobs,
                                  n_servers=n_servers, horizon=T, arrival_span=3)


def _loaded_policy(wl: Workload, probe: JobSpec) -> OASiS:
    """OASiS after admitting every job of ``wl`` except ``probe`` (a realistic price state)."""
    others = Workload(wl.cluster, tuple(s for s in wl.jobs if s.job_id != probe.job_id), horizon=wl.horizon)
    pol = OASiS(price_parameters(wl))
    simulate(others, pol, seed=0)
    return pol


@pytest.mark.parametrize("seed", range(12))
def test_fast_path_equals_literal_dp_cost(seed):
    wl = _instance(seed)
    probe = wl.jobs[0]                                    # earliest arrival: widest window
    pol = _loaded_policy(wl, probe)
    st = pol.state()
    c = wl.cluster
    wd, pd_ = c.vector(probe.worker_demand), c.vector(probe.ps_demand)
    best = pol.search(probe, prune=False)
    D = probe.model.epochs * probe.model.chunks
    for t_hat in range(probe.arrival, wl.horizon):
        cost, sched = dp_cost_literal(probe, t_hat, D, st["capacity_w"], st["capacity_p"], st["used_w"],
                                      st["used_p"], st["price_w"], st["price_p"], wd, pd_)
        costs = best.costs_by_completion
        fast = math.inf if costs is None else costs[t_hat - probe.arrival]
        assert cost == fast or (math.isinf(cost) and math.isinf(fast)), (t_hat, cost, fast)
        if best.completion == t_hat:
            assert sched == best.chunks                  # the same schedule, tie-breaks included


@pytest.mark.parametrize("seed", range(8))
def test_theorem1_against_brute_force(seed):
    wl = _instance(seed, n_servers=2, T=4)
    probe = wl.jobs[0]
    pol = _loaded_policy(wl, probe)
    assert checks.cost_t_optimal(pol, probe).require()
    assert checks.dp_cost_optimal(pol, probe).require()
    assert checks.alg2_argmax(pol, probe).require()


def test_checks_can_fail():
    """The brute-force checks are not vacuous: a search that reports wrong costs is caught."""
    from dataclasses import replace

    wl = _instance(1, n_servers=2, T=4)
    probe = wl.jobs[0]
    pol = _loaded_policy(wl, probe)
    honest = pol.search(probe, prune=False)
    assert honest.costs_by_completion is not None and np.isfinite(honest.costs_by_completion).any()
    lowered = honest.costs_by_completion * 0.9
    pol.search = lambda spec, prune=True: replace(honest, costs_by_completion=lowered)
    assert not checks.dp_cost_optimal(pol, probe).holds


@pytest.mark.parametrize("seed", range(10))
def test_run_is_feasible_and_dual_bounds_primal(seed):
    wl = _instance(seed, n_jobs=12, n_servers=4, T=8)
    pol = OASiS.from_workload(wl)
    res = simulate(wl, pol, seed=seed)
    assert checks.feasible_run(res, pol).require()
    assert checks.weak_duality(pol, res).require()
    # Lemma 1 may fail for coarse workers (w not << c); it must at least be computed for every admission
    claim = checks.lemma1_increments(pol)
    assert claim.details["admissions"] == int(res.jobs["admitted"].sum())
    # payoff recorded for every arrived job, and admission iff payoff > 0 (Alg. 1 line 4)
    assert ((res.jobs["payoff"] > 0) == res.jobs["admitted"]).all()


@pytest.mark.parametrize("seed", range(5))
def test_price_properties_and_appendix_a(seed):
    wl = _instance(seed)
    params = price_parameters(wl)
    cap_w = wl.cluster.capacity[wl.cluster.servers_for("worker")]
    assert checks.price_endpoints(params, cap_w).require()
    assert checks.lemma3_derivative(params, cap_w).require()
    assert checks.zero_usage_admission(wl).require()
    assert checks.exhaustion_rejection(wl).require()


def test_job_that_cannot_finish_is_rejected_not_an_error():
    cluster = Cluster.two_pools(1, 1, {"gpu": 1, "cpu": 4}, {"cpu": 4})
    slow = OasisModel(epochs=50, chunks=2, minibatches=10, tau=0.1, comm=0.0)   # 50*10*0.1 = 50 slots minimum
    ok = OasisModel(epochs=1, chunks=2, minibatches=2, tau=0.1, comm=0.0)
    jobs = (JobSpec(0, 0, slow, {"gpu": 1}, {"cpu": 1}, utility=Sigmoid(10, 0.5, 3)),
            JobSpec(1, 0, ok, {"gpu": 1}, {"cpu": 1}, utility=Sigmoid(10, 0.5, 3)))
    wl = Workload(cluster, jobs, horizon=5)
    res = simulate(wl, OASiS.from_workload(wl), seed=0)
    status = res.jobs.set_index("job_id")["status"]
    assert status[0] == "rejected" and status[1] == "finished"


def test_hand_computed_single_job():
    """One job, empty cluster: 2 chunks x 1 epoch, M=5, tau=0.1 -> 0.5 worker-slots per chunk-pass,
    so both chunk-passes fit in slot 0 with ceil(2*0.5)=1 worker and 1 PS; utility f(0)."""
    cluster = Cluster.two_pools(1, 1, {"gpu": 2}, {"cpu": 2})
    m = OasisModel(epochs=1, chunks=2, minibatches=5, tau=0.1, comm=0.0)
    spec = JobSpec(0, 0, m, {"gpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 1.0, 2.0))
    wl = Workload(cluster, (spec,), horizon=3)
    pol = OASiS.from_workload(wl)
    res = simulate(wl, pol, seed=0)
    row = res.jobs.iloc[0]
    assert row["planned_completion"] == 0 and row["completion_slot"] == 0
    alloc = res.allocations
    assert alloc[alloc.role == "worker"]["count"].sum() == 1 and alloc[alloc.role == "ps"]["count"].sum() == 1
    # payoff = f(0) - L1 * 1 worker-slot * gpu - L2 * 1 PS-slot * cpu
    params = pol._params
    assert row["payoff"] == pytest.approx(float(spec.utility(0)) - params.l1 - params.l2)


def test_determinism_and_cli(tmp_path):
    wl = _instance(3, n_jobs=10)
    a = simulate(wl, OASiS.from_workload(wl), seed=1).jobs
    b = simulate(wl, OASiS.from_workload(wl), seed=1).jobs
    assert a.equals(b)
    from dlsched.cli import main

    rc = main(["run", "--workload", "synthetic", "--policy", "oasis", "--param", "model=oasis",
               "--param", "horizon=8", "--seed", "2", "--out", str(tmp_path / "o")])
    assert rc == 0 and (tmp_path / "o" / "jobs.csv").exists()


def test_bad_input():
    wl = _instance(0)
    with pytest.raises(ValueError, match="price parameters"):
        simulate(wl, OASiS(), seed=0)
    with pytest.raises(ValueError, match="u_scale"):
        OASiS(price_parameters(wl), u_scale=-1.0)
    for bad in (0.0, -1.0, math.inf, True, "5"):
        with pytest.raises(ValueError, match="max_log_ratio"):
            OASiS(price_parameters(wl), max_log_ratio=bad)
    other = registry.make_workload("synthetic", seed=0, model="pdors", n_jobs=3, horizon=4)
    with pytest.raises(ValueError, match="OasisModel"):
        price_parameters(other)
    with pytest.raises(ValueError, match="horizon"):
        price_parameters(Workload(wl.cluster, wl.jobs))


@pytest.mark.parametrize("seed", range(10))
def test_frontier_and_pruning_agree_with_exact(seed):
    """The frontier DP gives the exact DP's costs for every completion slot; pruning never
    changes the chosen schedule (payoff, completion slot, chunk-passes per slot)."""
    wl = registry.make_workload("synthetic", seed=seed, model="oasis", n_jobs=12, n_servers=4,
                                horizon=10, arrival_span=3)
    others = Workload(wl.cluster, wl.jobs[1:], horizon=10)
    pol = OASiS(price_parameters(wl))
    simulate(others, pol, seed=0)
    for spec in wl.jobs:
        pol.method = "exact"
        full, pruned = pol.search(spec, prune=False), pol.search(spec)
        pol.method = "frontier"
        ffull, fpruned = pol.search(spec, prune=False), pol.search(spec)
        if full.costs_by_completion is not None:
            np.testing.assert_allclose(ffull.costs_by_completion, full.costs_by_completion, rtol=1e-12)
        for other in (pruned, ffull, fpruned):
            assert other.payoff == pytest.approx(full.payoff, rel=1e-12, abs=1e-12)
            assert other.completion == full.completion
        assert pruned.chunks == full.chunks                  # exact path: identical schedule


def test_paper_scale_horizon_with_underflowing_utilities():
    """T = 300: time-critical jobs' utility at T underflows to 0 in floating point; the log-domain
    prices keep L finite (ln L ~ -1e3) and OASiS runs."""
    wl = registry.make_workload("oasis", seed=0, n_jobs=40, T=300, H=10, K=10)
    params = price_parameters(wl)
    assert params.l1 == 0.0 and math.isfinite(params.log_l1)
    res = simulate(wl, OASiS(params), seed=0)
    assert res.jobs["admitted"].sum() > 0


def test_frontier_sparse_and_dense_representations_choose_the_same_schedule(monkeypatch):
    """The frontier DP switches from sorted points to a dense array when it grows; the switch must
    not change any decision (same tie-breaking), so a whole run is identical either way."""
    import dlsched.oasis.policy as policy_module

    wl = registry.make_workload("oasis", seed=1, n_jobs=40, T=40, H=8, K=8)
    runs = []
    for switch in (0, 10**12):
        monkeypatch.setattr(policy_module, "DENSE_SWITCH", switch)
        runs.append(simulate(wl, OASiS.from_workload(wl, method="frontier"), seed=0))
    assert runs[0] == runs[1]


def test_capped_prices_bound_the_log_ratio_and_keep_u():
    wl = _instance(0, n_jobs=8)
    true = price_parameters(wl)
    for cap in (0.5, 3.0, true.alpha / 2):
        c = true.capped(cap)
        # U is kept, floored at the new L where it was below it ((22) needs L <= U)
        assert np.array_equal(c.log_u1, np.maximum(true.log_u1, c.log_l1))
        assert np.array_equal(c.log_u2, np.maximum(true.log_u2, c.log_l2))
        assert c.alpha <= max(1.0, cap) + 1e-9
        assert c.log_l1 >= true.log_l1 and c.log_l2 >= true.log_l2
        worker_ratio = float(np.max(true.log_u1)) - true.log_l1
        assert float(np.max(c.log_u1)) - c.log_l1 == pytest.approx(min(cap, worker_ratio))
    assert true.capped(true.alpha + 1.0) == true  # a cap that binds nowhere
    with pytest.raises(ValueError, match="max_log_ratio"):
        true.capped(0.0)
    # the policy applies the cap after u_scale: its prices at zero usage are the raised L
    pol = OASiS(true, max_log_ratio=2.0).prepare(wl.cluster, wl.horizon)
    has = pol._cw[0] > 0
    assert np.allclose(np.log(pol.p[0, 0][has]), true.capped(2.0).log_l1)


def _greedy_cost_by_take(price, cap, counts, limit):
    """COST_t's greedy deployment read literally: every server's take for every count, summed
    server by server in price order (the reference for :func:`_greedy_cost`)."""
    order = np.argsort(price, axis=1, kind="stable")
    ps = np.take_along_axis(price, order, axis=1)
    cs = np.take_along_axis(cap, order, axis=1)
    cc = np.cumsum(cs, axis=1)
    counts = np.asarray(counts)
    take = np.clip(counts[None, :, None] - (cc - cs)[:, None, :], 0, cs[:, None, :])
    acc = np.cumsum(ps[:, None, :] * take, axis=-1)[..., -1]
    feasible = (cc[:, -1:] >= counts[None, :]) & (counts[None, :] <= limit)
    return np.where(feasible, acc, math.inf)


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    S=st.integers(1, 5),
    n=st.integers(1, 8),
    limit=st.integers(0, 30),
    counts=st.lists(st.integers(0, 30), min_size=1, max_size=10, unique=True).map(sorted),
)
def test_greedy_cost_is_bit_identical_to_the_server_by_server_sum(data, S, n, limit, counts):
    from dlsched.oasis.policy import _greedy_cost

    values = st.sampled_from([0.0, 1e-300, 0.1, 1 / 3, 7.7, 1e5, 2.5e-3])
    price = np.array(data.draw(st.lists(values, min_size=S * n, max_size=S * n))).reshape(S, n)
    cap = np.array(data.draw(st.lists(st.integers(0, 4), min_size=S * n, max_size=S * n))).reshape(S, n)
    got = _greedy_cost(price, cap, counts, limit)[0]
    assert np.array_equal(got, _greedy_cost_by_take(price, cap, counts, limit))
