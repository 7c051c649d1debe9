"""OASiS wing, issue 19: decisions on computed floats use a relative tolerance (REL_TOL = 1e-9, no
absolute floor) and a documented tie key (policy module docstring, "Floating point and ties").

Every decision gets a case that is a tie in exact arithmetic but not in floats (``0.1 + 0.2`` vs
``0.3``, or a value times ``1 + 1e-15``), showing the documented winner, and a case just above the
tolerance (``1e-8`` relative), showing the strict choice still wins. ``_tol`` patched to 0 gives
the exact comparisons of before, so the tie cases also show that the rule changed the outcome.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import ConstantUtility, JobSpec, OasisModel, Sigmoid, Workload
from dlsched.core.simulator import simulate
from dlsched.oasis import policy
from dlsched.oasis.baselines import RRH, _big_m
from dlsched.oasis.policy import (
    OASiS,
    _backtrack,
    _dp,
    _first_within,
    _frontier,
    _frontier_chunks,
    _greedy_cost,
    _Tracker,
    dp_cost_literal,
    price_parameters,
)

A = 0.1 + 0.2  # 0.30000000000000004: equal to 0.3 in exact arithmetic, one ulp above in floats
B = 0.3
ABOVE = 1e-8  # a relative gap just above REL_TOL


@pytest.fixture
def exact(monkeypatch):
    """The exact comparisons of before issue 19 (tolerance 0)."""

    def use_exact():
        monkeypatch.setattr(numerics, "REL_TOL", 0.0)

    return use_exact


# ------------------------------------------------------------------------------- the tolerance


def test_tolerance_is_relative_without_absolute_floor():
    assert numerics.tolerance(1.0) == numerics.REL_TOL
    assert numerics.tolerance(-2.0) == 2 * numerics.REL_TOL
    assert numerics.tolerance(math.inf) == 0.0
    # prices start at L ~ e^-204: tiny values are real and stay apart (no absolute floor)
    tiny = np.array([1e-80, 1e-81, 1e-80 * (1 + 1e-15)])
    assert list(numerics.tie_classes(tiny)) == [1, 0, 1]


def test_tie_classes_do_not_chain():
    # no chaining: 1, 1 + 0.6 tol, 1 + 1.2 tol -> the third starts a new class
    t = numerics.REL_TOL
    assert list(numerics.tie_classes([1.0, 1.0 + 0.6 * t, 1.0 + 1.2 * t])) == [0, 0, 1]


def test_first_within():
    assert _first_within([A, B]) == 0  # tie -> first
    assert _first_within([B * (1 + ABOVE), B]) == 1  # strict
    assert _first_within([math.inf, A, B]) == 1
    assert _first_within([math.inf, math.inf]) is None


# ------------------------------------------------------------- Alg. 1 line 4 / Alg. 2 line 5


def test_admission_payoff_within_tolerance_of_zero_rejects(exact):
    tr = _Tracker(np.array([A]), prune=False)  # f = 0.1 + 0.2, cost = 0.3: payoff 5.6e-17
    tr.record(0, B)
    assert tr.best_k is None and tr.best_mu == 0.0  # tie with mu_i = 0 -> reject
    tr = _Tracker(np.array([B * (1 + ABOVE)]), prune=False)
    tr.record(0, B)
    assert tr.best_k == 0 and tr.best_mu > 0  # just above the tolerance: admit
    tr = _Tracker(np.array([1e-80]), prune=False)  # tiny utilities are not zero
    tr.record(0, 1e-90)
    assert tr.best_k == 0
    exact()
    tr = _Tracker(np.array([A]), prune=False)
    tr.record(0, B)
    assert tr.best_k == 0  # the exact rule admitted on the rounding


def test_completion_slot_tie_keeps_earlier_slot(exact):
    tr = _Tracker(np.array([0.5, 0.5]), prune=False)
    tr.record(0, A)  # payoff 0.2 - 1 ulp (exact subtraction)
    tr.record(1, B)  # payoff 0.2: better by rounding only
    assert tr.best_k == 0
    tr = _Tracker(np.array([1.0, 1.0]), prune=False)
    tr.record(0, B)
    tr.record(1, B * (1 - ABOVE))
    assert tr.best_k == 1
    exact()
    tr = _Tracker(np.array([0.5, 0.5]), prune=False)
    tr.record(0, A)
    tr.record(1, B)
    assert tr.best_k == 1


def test_admission_through_the_policy():
    """One job on an empty cluster whose best payoff is exactly 0 up to rounding is rejected."""
    cluster = Cluster.two_pools(1, 1, {"gpu": 2}, {"cpu": 2})
    m = OasisModel(epochs=1, chunks=2, minibatches=5, tau=0.1, comm=0.0)
    spec = JobSpec(0, 0, m, {"gpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 1.0, 2.0))
    wl = Workload(cluster, (spec,), horizon=3)
    pol = OASiS.from_workload(wl).prepare(cluster, 3)
    best = pol.search(spec, prune=False)
    cost = float(best.costs_by_completion[0])
    assert best.completion == 0 and cost > 0

    # utility equal to the slot-0 cost up to one ulp, or just above the tolerance
    for value, admitted in ((cost * (1 + 1e-15), False), (cost * (1 + ABOVE), True)):
        probe = JobSpec(0, 0, m, {"gpu": 1}, {"cpu": 1}, utility=ConstantUtility(value))
        assert (pol.search(probe).payoff > 0) is admitted


# ------------------------------------------------------------------- Alg. 2 lines 23 and 33


def test_server_sort_ties_go_to_the_smaller_server(exact):
    counts = np.array([1])
    cap = np.array([[1, 1]])
    cost, order, _ = _greedy_cost(np.array([[A, B]]), cap, counts, 5)
    assert order[0, 0] == 0 and cost[0, 0] == A  # tie -> server 0
    cost, order, _ = _greedy_cost(np.array([[B * (1 + ABOVE), B]]), cap, counts, 5)
    assert order[0, 0] == 1 and cost[0, 0] == B  # strict: the cheaper server
    exact()
    _, order, _ = policy._greedy_cost(np.array([[A, B]]), cap, counts, 5)
    assert order[0, 0] == 1


def test_literal_cost_t_uses_the_same_server_order():
    """dp_cost_literal (lines 23/33) and the fast path agree on a near-tie of two servers' prices."""
    cluster = Cluster.two_pools(2, 2, {"gpu": 1}, {"cpu": 1})
    m = OasisModel(epochs=1, chunks=1, minibatches=5, tau=0.1, comm=0.0)
    spec = JobSpec(0, 0, m, {"gpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 1.0, 2.0))
    wl = Workload(cluster, (spec,), horizon=2)
    pol = OASiS.from_workload(wl).prepare(cluster, 2)
    for pw in ([A, B], [B * (1 + ABOVE), B]):
        pol.p[..., 0] = pw  # worker prices (one resource): server 0 vs server 1
        st = pol.state()
        c = pol.cluster
        cost, _ = dp_cost_literal(spec, 0, 1, st["capacity_w"], st["capacity_p"], st["used_w"], st["used_p"],
                                  st["price_w"], st["price_p"], c.vector(spec.worker_demand),
                                  c.vector(spec.ps_demand))
        best = pol.search(spec, prune=False)
        assert cost == best.costs_by_completion[0]
        worker = best.placements[0].workers[0][0]
        assert worker == (pol._wsrv[0] if pw[0] == A else pol._wsrv[1])


# ------------------------------------------------------------------------ Alg. 2 line 15 (DP)


def _dp_case(last: float):
    # 2 slots, D = 2 chunk-passes, d' in 0..2; covering state 2 by slot 1:
    # d' = 0: 0 + (0.1 + 0.2); d' = 1: 0.2 + 0.1; d' = 2: cost_t(1, 2) + 0 = last
    cost = np.array([[0.0, 0.1, A], [0.0, 0.2, last]])
    track = _Tracker(np.array([10.0, 10.0]), prune=False)
    choices, los = _dp(cost, 2, 2, track)
    return _backtrack(choices, los, 1, 2), track.totals[1]


def test_dp_argmin_tie_goes_to_the_smallest_d_in_the_later_slot(exact):
    sched, total = _dp_case(B)
    assert sched == {0: 2} and total == A  # tie: d' = 0 wins and keeps its own cost
    sched, total = _dp_case(B * (1 - ABOVE))
    assert sched == {1: 2} and total == B * (1 - ABOVE)
    exact()
    sched, total = _dp_case(B)
    assert sched == {1: 2} and total == B


def test_literal_dp_tie_rule_matches_fast_path_on_an_empty_cluster(exact):
    """Empty cluster: every price is L, so compositions of the workload cost the same up to
    rounding; the literal recursion and the fast path pick the same tie winner (the smallest d in
    the later slot, i.e. work as early as possible), costs bit for bit."""
    from dlsched import registry
    from dlsched.oasis import checks

    wl = registry.make_workload("synthetic", seed=31, model="oasis", n_jobs=4, n_servers=2, horizon=5,
                                arrival_span=1)
    probe = wl.jobs[3]
    pol = OASiS(price_parameters(wl)).prepare(wl.cluster, wl.horizon)
    assert checks.fast_path_matches_literal(pol, probe).require()
    best = pol.search(probe, prune=False)
    assert best.completion == 1 and best.chunks == {0: 10, 1: 2}
    exact()
    other = pol.search(probe, prune=False)
    assert other.completion == 1 and other.chunks == {0: 7, 1: 5}  # won by one ulp before
    assert other.cost <= best.cost <= other.cost * (1 + 1e-9)  # within the (unpatched) REL_TOL


# ------------------------------------------------------------------- line 15, frontier method


def _frontier_case(by_workers, chunks_of, D, monkeypatch=None, dense=False):
    if dense:
        monkeypatch.setattr(policy, "DENSE_SWITCH", 0)
    S = by_workers.shape[0]
    track = _Tracker(np.full(S, 10.0), prune=False)
    back = _frontier(np.asarray(by_workers, float), np.asarray(chunks_of), D, track)
    return back, _frontier_chunks(back, S - 1, np.asarray(chunks_of), D)


@pytest.mark.parametrize("dense", [False, True])
def test_frontier_option_tie_goes_to_fewest_workers(monkeypatch, exact, dense):
    ch = [0, 1, 2]
    _, sched = _frontier_case(np.array([[0.0, 0.1, A], [0.0, 0.2, B]]), ch, 2, monkeypatch, dense)
    assert sched == {0: 2}  # W = 0 in slot 1 is first among the ties
    strict = np.array([[0.0, 0.1, A], [0.0, 0.2, B * (1 - ABOVE)]])
    _, sched = _frontier_case(strict, ch, 2, monkeypatch, dense)
    assert sched == {1: 2}
    exact()
    _, sched = _frontier_case(np.array([[0.0, 0.1, A], [0.0, 0.2, B]]), ch, 2, monkeypatch, dense)
    assert sched == {1: 2}


def test_frontier_dominated_point_within_tolerance_is_dropped(exact):
    # slot 0: W = 1 covers 1 at 0.3, W = 2 covers 2 at 0.1 + 0.2: a tie, the larger coverage serves
    back, _ = _frontier_case(np.array([[0.0, B, A], [0.0, 1.0, 5.0]]), [0, 1, 2], 2)
    assert list(back[0][3]) == [0, 2]
    back, _ = _frontier_case(np.array([[0.0, B, B * (1 + ABOVE)], [0.0, 1.0, 5.0]]), [0, 1, 2], 2)
    assert list(back[0][3]) == [0, 1, 2]
    exact()
    back, _ = _frontier_case(np.array([[0.0, B, A], [0.0, 1.0, 5.0]]), [0, 1, 2], 2)
    assert list(back[0][3]) == [0, 1, 2]


def test_frontier_dense_plateau_within_tolerance_moves_to_larger_coverage(monkeypatch, exact):
    # D = 3 over 3 slots; slot 2 takes W = 2, leaving coverage 1 by slot 1, where F(1) = 0.3
    # (slot 0, W = 1) and F(2) = 0.1 + 0.2 (slot 1, W = 2) tie: the plateau's last state is followed
    ch = [0, 1, 2, 3]

    def case(f2):
        bw = np.array([[0.0, B, 5.0, 5.0], [0.0, 5.0, f2, 5.0], [0.0, 10.0, 0.1, 10.0]])
        return _frontier_case(bw, ch, 3, monkeypatch, dense=True)[1]

    assert case(A) == {1: 1, 2: 2}
    assert case(B * (1 + ABOVE)) == {0: 1, 2: 2}
    exact()
    assert case(A) == {0: 1, 2: 2}


# ----------------------------------------------------------------------------------------- RRH


def _one_job_rrh(**params):
    cluster = Cluster.two_pools(1, 1, {"gpu": 2, "cpu": 4}, {"cpu": 4})
    m = OasisModel(epochs=1, chunks=2, minibatches=5, tau=0.1, comm=0.0)
    spec = JobSpec(0, 0, m, {"gpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 1.0, 2.0), requested_workers=1)
    wl = Workload(cluster, (spec,), horizon=6)
    return simulate(wl, RRH(**params), seed=0).jobs.set_index("job_id").loc[0]


def test_rrh_admission_threshold_tie_rejects():
    gain = float(_one_job_rrh()["rrh_reward"])  # alone: delay cost 0, admit iff G > threshold
    assert gain > 0
    assert not _one_job_rrh(threshold=gain * (1 - 1e-15))["admitted"]  # tie -> reject
    assert _one_job_rrh(threshold=gain * (1 - ABOVE))["admitted"]


def test_rrh_drop_threshold_tie_keeps_the_job():
    gain = float(_one_job_rrh()["rrh_reward"])
    kept = _one_job_rrh(drop_threshold=gain * (1 + 1e-15))
    assert kept["admitted"] and kept["status"] == "finished"  # tie -> not below: runs
    dropped = _one_job_rrh(drop_threshold=gain * (1 + ABOVE))
    assert dropped["admitted"] and dropped["status"] != "finished"


def test_rrh_ranking_ties_go_by_arrival_then_job_id():
    pool = [SimpleNamespace(job_id=j, arrival=a) for j, a in ((7, 2), (3, 1), (5, 1))]
    tied = {7: (A, 0.0), 3: (B, 0.0), 5: (B, 0.0)}  # 7 is higher by one ulp only
    assert [e.job_id for e in RRH._ranked(pool, tied)] == [3, 5, 7]
    strict = {7: (B * (1 + ABOVE), 0.0), 3: (B, 0.0), 5: (B, 0.0)}
    assert [e.job_id for e in RRH._ranked(pool, strict)] == [7, 3, 5]
    assert RRH._ranked([], {}) == []


# ---------------------------------------------------------------------------------------- Dorm


def test_dorm_big_m_within_tolerance_is_left_out():
    assert _big_m(A, B) == 0.0  # worst = rhs up to rounding: no big-M
    assert _big_m(B * (1 + ABOVE), B) == pytest.approx(B * ABOVE)
    assert _big_m(B, A) == 0.0
    assert _big_m(1e-80, 1e-81) == pytest.approx(9e-81)  # relative: tiny values are not noise


def test_dorm_orders_use_the_same_tie_rule():
    """Disaggregation sorts servers by normalised size (ascending, ties -> index) and tasks by size
    (descending, ties -> key) with the wing's tie rule."""
    sizes = np.array([A, B, 0.2])
    assert list(numerics.order(sizes, np.array([4, 9, 12]))) == [2, 0, 1]
    assert list(numerics.order(np.array([A * (1 + ABOVE), B, 0.2]), np.array([4, 9, 12]))) == [2, 1, 0]


def test_full_runs_still_feasible_with_tie_rules():
    """End to end on a small paper-like instance: OASiS, RRH and Dorm run; OASiS admits iff the
    recorded payoff is positive."""
    from dlsched import registry

    params = {**registry.workload_defaults("oasis", "oasis"), "n_jobs": 12, "T": 20, "H": 4, "K": 4}
    wl = registry.make_workload("oasis", seed=1, **params)
    res = simulate(wl, OASiS(price_parameters(wl)), seed=1)
    assert ((res.jobs["payoff"] > 0) == res.jobs["admitted"]).all()
    for name in ("rrh", "dorm"):
        simulate(wl, registry.make_policy(name, wl), seed=1)
