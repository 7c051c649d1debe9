"""Issue 19 (decision side) and issue 21 item 2 for the A_online wing: every discrete choice that
compares computed floats treats values within ``numerics.REL_TOL`` as equal and breaks the tie by
the documented key (``dlsched/aonline/policy.py``, "Floating point and ties"), while values
separated by more than the tolerance still decide strictly.

Near ties are built from usages ``0.1 + 0.2`` vs ``0.3`` (equal in exact arithmetic, a few ulps
apart in float64 and in the prices (7)-(8) computed from them); "just above" uses ``0.3 + 1e-6``.
Each test first checks that its floats really differ, so it would catch the old strict rule.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dlsched.aonline.baselines import BatchSche, Preemptive
from dlsched.aonline.policy import AOnlineJob, AOnlinePrices, WindowState, cost_c, cost_d, maxsche
from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, Workload
from dlsched.core.pricing import ShiftedExponentialPrice
from dlsched.core.schedule import Placement
from dlsched.core.simulator import simulate

NEAR = 0.1 + 0.2  # 0.30000000000000004: equal to 0.3 in exact arithmetic
EXACT = 0.3
ABOVE = 0.3 + 1e-6  # separated by far more than REL_TOL
NEAR6, EXACT6, ABOVE6 = 0.1 + 0.2 + 0.3, 0.6, 0.6 + 1e-6  # 0.3 / 3 rounds to the same price as NEAR / 3


def prices(S: int) -> AOnlinePrices:
    return AOnlinePrices.of(4, S, 1, 1)


def job(S: int, *, work: float = 1.0, max_workers: int = 1, ready_w=None, ready_p=None, weight: float = 1.0):
    """Worker type = resource 0, PS type = resource 1, speed 1 (so d_j = ceil(work / D_u))."""
    rw = np.ones(S, bool) if ready_w is None else np.asarray(ready_w, bool)
    rp = np.ones(S, bool) if ready_p is None else np.asarray(ready_p, bool)
    return AOnlineJob(0, work, 1.0, 1.0, max_workers, 0, 1, 1.0, 1.0, rw, rp, weight)


def state(cap, used) -> WindowState:
    """``used``: (S, 2) constant over a 1-slot window, or (S, 2, L)."""
    used = np.asarray(used, dtype=float)
    if used.ndim == 2:
        used = used[:, :, None]
    return WindowState.from_dense(np.asarray(cap, dtype=float), used)


def test_near_inputs_really_differ_in_price():
    p = prices(3)
    assert NEAR != EXACT and p.worker(NEAR, 2.0) > p.worker(EXACT, 2.0)
    assert numerics.is_close(p.worker(NEAR, 2.0), p.worker(EXACT, 2.0))


def test_numerics_order_sorts_inf_last():
    # +inf (W_{s u_j} = 0 in Alg. 4 line 3) after every finite key, ties among infinities by index
    assert numerics.order([np.inf, 24.0, 0.0, np.inf, 24.0 * (1 + 1e-15)]).tolist() == [2, 1, 4, 0, 3]


# ------------------------------------------------------------------------- Alg. 3 line 3 (COST_C)


@pytest.mark.parametrize("u0, want", [(NEAR, 0), (ABOVE, 1)])
def test_cost_c_first_server_ties_to_the_smaller_index(u0, want):
    # servers 0 and 1 identical but for the worker usage; server 0's price is larger in floats
    st = state([[2.0, 1.0], [2.0, 1.0]], [[u0, 0.0], [EXACT, 0.0]])
    got = cost_c(job(2), 1, st, prices(2))
    assert got.placement == Placement.of({want: 1}, {want: 1})


# ------------------------------------------------------------------------- Alg. 4 line 3 (COST_D)


@pytest.mark.parametrize("u0, want", [(NEAR, 0), (ABOVE, 1)])
def test_cost_d_worker_order_ties_to_the_smaller_index(u0, want):
    # servers 0, 1 take workers (no PS slot); server 2 hosts the PS only (W = 0)
    st = state([[2.0, 0.0], [2.0, 0.0], [0.0, 1.0]], [[u0, 0.0], [EXACT, 0.0], [0.0, 0.0]])
    got = cost_d(job(3), 1, st, prices(3))
    assert got.placement == Placement.of({want: 1}, {2: 1})


# ------------------------------------------------------------------------ Alg. 4 line 22 (move)


@pytest.mark.parametrize("move_rule", ["consistent", "literal"])
@pytest.mark.parametrize("u2, moved", [(NEAR, True), (ABOVE, False)])
def test_cost_d_move_test_moves_on_equal_prices(u2, moved, move_rule):
    # order s0 (price 0), s1, s2; 2 workers fill s0:1, s1:1 (z = s1); the PS goes to s2 (room 1),
    # whose worker price equals s1's in exact arithmetic: Delta = 0 -> the worker moves s1 -> s2
    cap = [[1.0, 0.0], [2.0, 0.0], [2.0, 1.0]]
    st = state(cap, [[0.0, 0.0], [EXACT, 0.0], [u2, 0.0]])
    p = prices(3)
    assert p.worker(u2, 2.0) > p.worker(EXACT, 2.0)
    got = cost_d(job(3, max_workers=2, work=2.0), 2, st, p, move_rule=move_rule)
    want = {0: 1, 2: 1} if moved else {0: 1, 1: 1}
    assert got.placement == Placement.of(want, {2: 1})


# ------------------------------------------------------------------ Alg. 4 line 37 (cheapest of L)


@pytest.mark.parametrize("p1, want", [(NEAR, 1), (ABOVE, 2)])
def test_cost_d_cheapest_candidate_ties_to_the_first_recorded(p1, want):
    # worker on s0; PS candidates s1, s2 (no worker slots) with PS usage p1 vs 0.3 of P = 2
    st = state([[1.0, 0.0], [0.0, 2.0], [0.0, 2.0]], [[0.0, 0.0], [0.0, p1], [0.0, EXACT]])
    got = cost_d(job(3), 1, st, prices(3))
    assert got.placement == Placement.of({0: 1}, {want: 1})


# ------------------------------------------------- issue 21 item 2: W_{s u_j} = 0 sorts as +inf


@pytest.mark.parametrize("ps_used2, want", [(0.0, 2), (0.5, 0)])
def test_cost_d_no_worker_slot_server_sorts_last(ps_used2, want):
    # s0: no worker slot of type u_j (W = 0), free PS; s1: free worker slot, no PS; s2: worker
    # slots full, free PS. One worker goes to s1; s0 and s2 are the PS candidates of lines 18-33
    # with equal cost (mu = 0). Price +inf puts s0 after s2, so s2 is recorded first and wins.
    # (Priced as a full server, theta - 1, s0 came before s2 by index; priced 0 it would sort
    # before s1 and win as a line-13 candidate.) A strictly cheaper PS on s0 still wins.
    cap = [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    st = state(cap, [[0.0, 0.0], [0.0, 0.0], [1.0, ps_used2]])
    for order in ("first_slot", "total"):
        got = cost_d(job(3), 1, st, prices(3), order=order)
        assert got.placement == Placement.of({1: 1}, {want: 1})
    res = maxsche([job(3)], st, prices(3))
    assert res.admitted[0].placement == Placement.of({1: 1}, {want: 1})


# ------------------------------------------------------------------------- Alg. 2 lines 7-9


@pytest.mark.parametrize("prune", [True, False])
@pytest.mark.parametrize("p0, kind", [(NEAR, "C"), (ABOVE, "D")])
def test_maxsche_cost_d_must_be_cheaper_by_more_than_the_tolerance(p0, kind, prune):
    # COST_C: worker and PS on s0 (PS usage p0); COST_D: worker on s0, PS on s2 (PS usage 0.3)
    st = state([[1.0, 2.0], [0.0, 0.0], [0.0, 2.0]], [[0.0, p0], [0.0, 0.0], [0.0, EXACT]])
    p = prices(3)
    c, d = cost_c(job(3), 1, st, p), cost_d(job(3), 1, st, p)
    assert d.cost < c.cost  # strictly cheaper in floats either way
    res = maxsche([job(3)], st, p, prune=prune)
    assert res.admitted[0].kind == kind


# ------------------------------------------------------------------- Alg. 2 lines 11-12, ties


def _two_slot_state(u_slot0: float, u_slot1: float) -> WindowState:
    """One server, W = 3, P = 1, worker usage per slot of a 2-slot window."""
    used = np.zeros((1, 2, 2))
    used[0, 0] = [u_slot0, u_slot1]
    return WindowState.from_dense(np.array([[3.0, 1.0]]), used)


@pytest.mark.parametrize("u1, n_first", [(NEAR6, 1), (ABOVE6, 2)])
def test_line_11_equal_payoffs_keep_the_first_d_u(u1, n_first):
    # D_u = 1 runs 2 slots: cost lam(s0) + lam(s1); D_u = 2 runs 1 slot: cost 2 lam(s0). Equal in
    # exact arithmetic when the usages are; with u1 = 0.1 + 0.2 + 0.3 D_u = 2 is cheaper by ulps only.
    st = _two_slot_state(EXACT6, u1)
    jb = job(1, work=2.0, max_workers=2, weight=3.0)
    one, two = cost_c(jb, 1, st, prices(1)), cost_c(jb, 2, st, prices(1))
    assert two.cost < one.cost
    res = maxsche([jb], st, prices(1))
    assert res.admitted[0].n_workers == n_first


@pytest.mark.parametrize("u0, n_fast", [(NEAR6, 2), (ABOVE6, 1)])
def test_ties_fastest_takes_the_earlier_completion_among_equal_payoffs(u0, n_fast):
    # now D_u = 2 (1 slot) is the pricier one by ulps: still an equal payoff -> the faster wins
    st = _two_slot_state(u0, EXACT6)
    jb = job(1, work=2.0, max_workers=2, weight=3.0)
    one, two = cost_c(jb, 1, st, prices(1)), cost_c(jb, 2, st, prices(1))
    assert two.cost > one.cost
    res = maxsche([jb], st, prices(1), ties="fastest")
    assert res.admitted[0].n_workers == n_fast
    assert res.eta[0] == pytest.approx(3.0 - one.cost, rel=1e-9)


# ------------------------------------------------------------------- Alg. 2 line 15 (admission)


@pytest.mark.parametrize("bump, admitted", [(1e-14, False), (1e-6, True)])
def test_payoff_equal_to_zero_up_to_rounding_is_not_admitted(bump, admitted):
    st = state([[2.0, 1.0]], [[EXACT, 0.0]])
    cost = cost_c(job(1), 1, st, prices(1)).cost
    assert cost > 0
    jb = job(1, weight=cost * (1.0 + bump))  # payoff w - cost > 0 in floats either way
    assert jb.weight - cost > 0
    res = maxsche([jb], st, prices(1))
    assert (0 in res.admitted) is admitted
    assert (res.eta[0] > 0) is admitted
    assert res.best[0] is not None  # the best schedule is reported either way


# ---------------------------------------------------------------------------------- BatchSche


def edge_cloud(edges) -> Cluster:
    return Cluster.edge_cloud([{"w0": w, "ps0": p} for w, p in edges], {"w0": 1, "ps0": 1},
                              edge_delay=0.0, cloud_delay=100.0)  # fmt: skip


def a_job(j=0, *, chunks=1, weight=1.0, arrival=0) -> JobSpec:
    model = AOnlineModel(epochs=1, chunks=chunks, minibatches=1, compute=1.0, update=0.0, comm=0.0,
                         weight=weight)  # fmt: skip
    return JobSpec(j, arrival, model, {"w0": 1}, {"ps0": 1})


def cheapest(cluster: Cluster, spec: JobSpec, use: np.ndarray, tau: int = 2):
    """``BatchSche._cheapest`` on usage ``use`` of shape (segments, servers, [w0, ps0])."""
    pol = BatchSche(horizon=8)
    pol.reset(cluster, np.random.default_rng(0))
    end = 2 * tau
    bounds = np.arange(tau, end + 1) if use.shape[0] == end - tau else np.array([tau, end])
    t1, t2 = pol.theta(8)
    lam, mu = ShiftedExponentialPrice(t1), ShiftedExponentialPrice(t2)
    cols = np.array([cluster.resource_index("w0"), cluster.resource_index("ps0")])
    wd, pd_ = cluster.vector(spec.worker_demand)[cols], cluster.vector(spec.ps_demand)[cols]
    return pol._cheapest(spec, tau, end, bounds, use, cols, wd, pd_, lam, mu)


@pytest.mark.parametrize("u0, want", [(NEAR, 0), (ABOVE, 1)])
def test_batchsche_worker_server_ties_to_the_lower_index(u0, want):
    cl = edge_cloud([(2, 1), (2, 1)])
    use = np.zeros((1, 3, 2))
    use[0, 0, 0], use[0, 1, 0] = u0, EXACT
    _, _, placement = cheapest(cl, a_job(), use)
    assert dict(placement.workers) == {want: 1}


@pytest.mark.parametrize("p0, want", [(NEAR, 0), (ABOVE, 1)])
def test_batchsche_ps_server_ties_to_the_lower_index(p0, want):
    cl = edge_cloud([(2, 2), (2, 2)])
    use = np.zeros((1, 3, 2))
    use[0, 0, 1], use[0, 1, 1] = p0, EXACT
    _, _, placement = cheapest(cl, a_job(), use)
    assert dict(placement.ps) == {want: 1}


@pytest.mark.parametrize("u1, n_first", [(NEAR, 1), (ABOVE, 2)])
def test_batchsche_equal_cost_configurations_keep_the_fewest_workers(u1, n_first):
    # one edge server (W = 3); 1 worker for 2 slots vs 2 workers for 1 slot, as in Alg. 2 line 11
    cl = edge_cloud([(3, 1)])
    use = np.zeros((2, 2, 2))
    use[:, 0, 0] = [EXACT, u1]
    _, d, placement = cheapest(cl, a_job(chunks=2), use)
    assert placement.n_workers == n_first and d == 3 - n_first


@pytest.mark.parametrize("weight, first_start", [(NEAR, 2), (0.3 * (1 + 1e-6), 1)])
def test_batchsche_payoff_zero_up_to_rounding_postpones(weight, first_start):
    cl = edge_cloud([(2, 1)])
    pol = BatchSche.from_workload(Workload(cl, (a_job(weight=weight),)))
    orig = pol._cheapest

    def patched(spec, tau, *args):
        got = orig(spec, tau, *args)
        return (EXACT, got[1], got[2]) if tau == 1 else got  # cost 0.3 in round 1, 0 later

    pol._cheapest = patched
    res = simulate(Workload(cl, (a_job(weight=weight),)), pol)
    assert pol.rounds[0]["admitted"] == ([0] if first_start == 1 else [])
    assert int(res.jobs["start_slot"].iloc[0]) == first_start


# --------------------------------------------------------------------------------- Preemptive


def _stub_job(j, arrival):
    return SimpleNamespace(job_id=j, work_done=0.0, spec=SimpleNamespace(arrival=arrival))


@pytest.mark.parametrize("rem1, first", [(NEAR, 0), (EXACT - 1e-6, 1)])
def test_preemptive_rank_ties_go_to_the_earlier_arrival(rem1, first):
    pol = Preemptive()
    rem = {0: EXACT, 1: rem1}
    pol.remaining_time = lambda v, ctx: rem[v.job_id]
    jobs = [_stub_job(1, 1), _stub_job(0, 0)]  # job 1 arrives later; listed first
    ranked = pol._ranked(jobs, None)
    assert [v.job_id for v in ranked][0] == first


@pytest.mark.parametrize("finish1, want", [(1.0 / (1.0 / NEAR), 1), (ABOVE, 0)])
def test_preemptive_server_ties_avoid_lower_ranked_jobs(finish1, want):
    # finish on s0 = 0.3, on s1 = finish1; s0 hosts a lower-ranked running job (avoid)
    cl = edge_cloud([(1, 1), (1, 1)])
    pol = Preemptive()
    pol.reset(cl, np.random.default_rng(0))
    rates = {0: 1.0 / EXACT, 1: 1.0 / finish1}
    model = SimpleNamespace(rate=lambda spec, p, ctx: rates[next(iter(p.servers))])
    spec = SimpleNamespace(job_id=0, arrival=0, delays=lambda c: np.zeros(c.n_servers), model=model,
                           worker_demand={"w0": 1}, ps_demand={"ps0": 1})  # fmt: skip
    pol._widths[0] = [(0, 1, 1), (1, 1, 1)]
    v = SimpleNamespace(spec=spec, remaining_work=1.0)
    finishes = [1.0 / rates[0], 1.0 / rates[1]]
    assert finishes[0] < finishes[1]
    got = pol._best_server(v, cl.capacity.copy(), 0, None, {0})
    assert next(iter(got.servers)) == want
