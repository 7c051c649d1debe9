"""Issue 19, PD-ORS wing: every discrete choice of Algorithms 1-4 that compares computed floats
treats values within ``numerics.REL_TOL`` (relative, no absolute floor) as equal and breaks the
tie by the documented key (``dlsched/pdors/policy.py`` docstring, "Floating point and ties").

Each decision gets a case whose candidates are equal in exact arithmetic but not in floats (built
as ``0.1 + 0.2`` vs ``0.3`` or as a sum in another order), showing the documented tie winner,
and a case just above the tolerance, showing the strictly better candidate still wins."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, PdorsModel, Sigmoid, Workload
from dlsched.core.schedule import Placement
from dlsched.pdors import policy as pp
from dlsched.pdors.policy import PDORS, PdorsJob, PdorsSchedule, SlotSolver, SlotTheta

A, B = 0.1 + 0.2, 0.3  # equal in exact (decimal) arithmetic, A is one ulp above B in floats
ABOVE = 1 - 10 * numerics.REL_TOL  # a factor that separates two values by 10x the tolerance
assert A > B and A != B


def _spec(jid: int = 0, arrival: int = 0, utility=None) -> JobSpec:
    model = PdorsModel(epochs=1, samples=200, batch=4, tau=0.01, sync_internal=0.0,
                       sync_external=0.01, ratio=1.0)
    return JobSpec(jid, arrival, model, {"gpu": 1, "cpu": 1}, {"cpu": 1},
                   utility=utility or Sigmoid(10.0, 0.5, 2.0))


def _policy(T: int, levels: int, spec: JobSpec | None = None) -> PDORS:
    cluster = Cluster.homogeneous(2, {"gpu": 4.0, "cpu": 16.0})
    wl = Workload(cluster, (spec or _spec(),), horizon=T)
    return PDORS.from_workload(wl, levels=levels).prepare(cluster, T)


def _fake_thetas(pol: PDORS, by_slot: dict[int, list[float]]) -> None:
    """Make ``pol.search`` see the given theta(t, .) per slot (distinct usage keys per slot)."""
    for t in by_slot:
        pol.rho[t, 0, 0] = 0.25 * (t + 1)  # distinct cache keys; the fake ignores the state

    def slot_theta(job, t, skip_dominated=True):
        cost = np.asarray(by_slot[t], dtype=float)
        n = len(cost)
        return SlotTheta(cost, [Placement()] * n, ["internal"] * n, cost.copy(),
                         np.full(n, np.nan), np.full(n, np.nan))

    pol.slot_theta = slot_theta


# ------------------------------------------------------------------ helpers (the rule itself)


def test_tolerance_is_relative_without_an_absolute_floor():
    assert numerics.greater(B, A) is False and numerics.greater(A, B) is False  # a tie both ways
    assert numerics.greater(B, B * ABOVE) is True
    # costs scale with L (~1e-9 .. 1e-30): a 1e-3 relative gap is never a tie
    assert numerics.greater(2e-30, 1e-30) is True and numerics.greater(1.001e-12, 1e-12) is True
    assert numerics.greater(np.inf, 1.0) is True and numerics.greater(np.inf, np.inf) is False
    assert numerics.greater(np.nan, 1.0) is False and numerics.greater(1.0, np.nan) is False


def test_tie_order_merges_runs_without_chaining():
    step = 0.6 * numerics.REL_TOL
    v = np.array([1.0 + 2 * step, 1.0 + step, 1.0, 0.5])
    # 1, 1+s are within the tolerance of the run's head 1.0; 1+2s is not (no chaining)
    assert numerics.order(v).tolist() == [3, 1, 2, 0]
    assert numerics.order(np.array([A, B])).tolist() == [0, 1]
    assert numerics.order(np.array([A, B * ABOVE])).tolist() == [1, 0]


# --------------------------------------------------------------------- Alg. 1 step 3: admit


def _decide_with(payoff: float, cost: float):
    pol = _policy(T=3, levels=1)
    spec = _spec()
    pol.search = lambda s, prune=True: PdorsSchedule(payoff, 0, cost)
    view = SimpleNamespace(horizon=3, jobs={}, pending=lambda: [SimpleNamespace(spec=spec)])
    return pol.decide(0, view)


def test_admission_tie_is_rejected():
    # lambda = u - Theta with u = 0.1 + 0.2 and Theta = 0.3: 0 in exact arithmetic, 5.6e-17 in floats
    d = _decide_with(A - B, B)
    assert A - B > 0 and d.reject == {0} and not d.admit


def test_admission_above_the_tolerance_is_admitted():
    d = _decide_with(B - B * ABOVE, B * ABOVE)
    assert d.admit == {0} and not d.reject


# ------------------------------------------------------------ Alg. 2 step 2: completion slot


def _completion_tie(gap_ulps: int):
    """theta(a) = c_a for completing at a, theta(a+1) = c_b for completing at a+1, with
    u(0) - c_a == u(1) - c_b in exact arithmetic but the later payoff larger in floats."""
    pol = _policy(T=2, levels=1)
    spec = _spec()
    u0, u1 = spec.utility(np.arange(2))
    c_a = 2.0 * (u0 - u1)
    c_b = c_a - (u0 - u1)
    while (u1 - c_b) - (u0 - c_a) <= 0:  # nudge by ulps until the float payoffs differ
        c_b = np.nextafter(c_b, -np.inf)
    for _ in range(gap_ulps):
        c_b = np.nextafter(c_b, -np.inf)
    return pol, spec, float(u0 - c_a), float(u1 - c_b), float(c_a), float(c_b)


@pytest.mark.parametrize("prune", [True, False])
def test_completion_slot_tie_keeps_the_earlier_slot(prune):
    pol, spec, p0, p1, c_a, c_b = _completion_tie(0)
    assert p1 > p0 and p1 - p0 < 1e-14 * abs(p0)  # the old strict '>' took the later slot
    _fake_thetas(pol, {0: [0.0, c_a], 1: [0.0, c_b]})
    best = pol.search(spec, prune=prune)
    assert best.completion == 0 and best.units == {0: 1} and best.payoff == p0


@pytest.mark.parametrize("prune", [True, False])
def test_completion_slot_above_the_tolerance_takes_the_better_slot(prune):
    pol, spec, p0, _, c_a, c_b = _completion_tie(0)
    c_b -= 20 * numerics.REL_TOL * max(abs(p0), c_a)
    _fake_thetas(pol, {0: [0.0, c_a], 1: [0.0, c_b]})
    best = pol.search(spec, prune=prune)
    assert best.completion == 1 and best.units == {1: 1}


# -------------------------------------------------------------- Alg. 3 step 4: DP argmin (21)


@pytest.mark.parametrize("prune", [True, False])
def test_dp_tie_takes_the_fewest_units_in_the_later_slot(prune):
    # Theta(a+1, 2): v = 1 gives 0.1 + 0.2, v = 2 gives 0.3 (one ulp cheaper): a tie -> v = 1
    pol = _policy(T=2, levels=2)
    spec = _spec(utility=Sigmoid(10.0, 0.01, 20.0))
    _fake_thetas(pol, {0: [0.0, 0.1, np.inf], 1: [0.0, 0.2, 0.3]})
    best = pol.search(spec, prune=prune)
    assert best.completion == 1 and best.units == {0: 1, 1: 1}
    assert best.cost == A  # Theta is the cost of the schedule returned


def test_dp_tie_window_is_taken_around_the_exact_minimum():
    # Theta(a+1, 3) by v: v = 1 -> 1 + 1.2 tol, v = 2 -> 1 + 0.6 tol, v = 3 -> 1 (the minimum).
    # The first v within the tolerance of the exact *minimum* wins (v = 2); a sequential scan
    # from v = 1 would reach v = 3 (better than v = 1's candidate by more than the tolerance).
    s = 0.6 * numerics.REL_TOL
    pol = _policy(T=2, levels=3)
    spec = _spec(utility=Sigmoid(10.0, 0.01, 20.0))
    _fake_thetas(pol, {0: [0.0, 0.5 + s, 0.5 + 2 * s, np.inf], 1: [0.0, 0.5, 0.5, 1.0]})
    best = pol.search(spec, prune=False)
    assert best.units == {0: 1, 1: 2}


@pytest.mark.parametrize("prune", [True, False])
def test_dp_above_the_tolerance_takes_the_cheaper_split(prune):
    pol = _policy(T=2, levels=2)
    spec = _spec(utility=Sigmoid(10.0, 0.01, 20.0))
    _fake_thetas(pol, {0: [0.0, 0.1, np.inf], 1: [0.0, 0.2, B * ABOVE]})
    best = pol.search(spec, prune=prune)
    assert best.completion == 1 and best.units == {1: 2}


# ----------------------------------------------------------- Alg. 4 step 2: machine order


def _job(wd, pd, batch: int = 4) -> PdorsJob:
    m = PdorsModel(epochs=1, samples=100, batch=batch, tau=0.01, sync_internal=0.0,
                   sync_external=0.0, ratio=1.0)
    return PdorsJob(None, m, 100.0, 1, np.asarray(wd, float), np.asarray(pd, float), 1)


def test_internal_machine_tie_goes_to_the_smaller_index():
    job = _job([1.0, 0.0], [0.0, 1.0])
    free = np.full((2, 2), 100.0)
    # step 2 key = gamma * p^w + p^s: machine 0 -> 0.1 + 0.2, machine 1 -> 0.3 + 0 (one ulp less)
    cost, h = SlotSolver(job, np.array([[0.1, 0.2], [0.3, 0.0]]), free).internal(1)
    assert h[1] == 0 and cost[1] == A
    cost, h = SlotSolver(job, np.array([[0.1, 0.2], [B * ABOVE, 0.0]]), free).internal(1)
    assert h[1] == 1


# ------------------------------------------------------- Alg. 4 step 11: cheapest sample


def _round(m1_price: float, seed: int):
    # one worker on machine 0 or 1 (w-bar = 0.5 each, sum w <= F = 1), its PS (no demand) on 0
    job = _job([1.0, 1.0], [0.0, 0.0], batch=1)
    price = np.array([[0.1, 0.2], [m1_price, 0.0]])  # p^w: 0.1 + 0.2 vs 0.3
    solver = SlotSolver(job, price, np.full((2, 2), 100.0))
    wbar, sbar = np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]])
    got = solver.rounded(wbar, sbar, np.array([1.0]), np.array([1.0]), np.random.default_rng(seed), 8)
    # the same draws again: the feasible samples in draw order
    rng = np.random.default_rng(seed)
    w = pp.round_solution(wbar, rng, 8)[:, 0]
    ok = w.sum(axis=1) == 1
    return got, w[ok]


def test_cheapest_sample_tie_goes_to_the_earliest_draw():
    for seed in range(20):
        (cost, w, s, nz), feasible = _round(0.3, seed)
        if len(feasible) and feasible[0].tolist() == [1, 0] and [0, 1] in feasible.tolist():
            break  # the first feasible draw is on machine 0 (one ulp dearer), a later one on 1
    else:
        pytest.fail("no seed draws machine 0 first and machine 1 later")
    assert nz.tolist() == [0, 1] and w[0].tolist() == [1, 0] and s[0].tolist() == [1, 0]
    assert cost[0] == A  # the ulp-dearer sample: 0.1 + 0.2 against 0.3


def test_cheapest_sample_above_the_tolerance_wins():
    for seed in range(20):
        (cost, w, _, _), feasible = _round(0.3 * ABOVE, seed)
        if len(feasible) and feasible[0].tolist() == [1, 0] and [0, 1] in feasible.tolist():
            break
    else:
        pytest.fail("no seed draws machine 0 first and machine 1 later")
    assert w[0].tolist() == [0, 1]


# ------------------------------------------------ Alg. 4 step 12: internal vs external


class _StubSolver:
    """SlotSolver with fixed branch costs for v = 1: internal ``c_int`` on machine 0, LP optimum
    ``lp`` and a rounded external sample of cost ``c_ext`` (one worker + one PS on machine 1)."""

    c_int = c_ext = lp_cost = 0.0

    def __init__(self, job, price, free):
        self.pw = np.array([0.05, 0.05])
        self.ps = np.array([0.05, 0.05])

    def internal(self, top):
        cost = np.full(top + 1, np.inf)
        cost[0], cost[1] = 0.0, self.c_int
        h = np.full(top + 1, -1)
        h[1] = 0
        return cost, h

    def lp(self, demands, shrink=None):
        n = len(demands)
        return np.full(n, self.lp_cost), np.tile([0.0, 1.0], (n, 1)), np.tile([0.0, 1.0], (n, 1)), 1, 0.0

    def rounded(self, wbar, sbar, demands, scale, rng, trials):
        n = len(wbar)
        return np.full(n, self.c_ext), np.ones((n, 1), np.int64), np.ones((n, 1), np.int64), np.array([1])


def _step12(monkeypatch, c_int, c_ext, lp, skip):
    stub = type("Stub", (_StubSolver,), {"c_int": c_int, "c_ext": c_ext, "lp_cost": lp})
    monkeypatch.setattr(pp, "SlotSolver", stub)
    pol = _policy(T=3, levels=1)
    job = pol.job(_spec())
    return pol.slot_theta(job, 0, skip_dominated=skip)


@pytest.mark.parametrize("skip", [True, False])
def test_step12_tie_goes_to_internal(monkeypatch, skip):
    th = _step12(monkeypatch, A, B, B, skip)
    assert th.branch[1] == "internal" and th.cost[1] == A
    assert th.placements[1].servers == {0}
    if skip:  # the LP bound already shows that external cannot win: nothing is rounded
        assert np.isnan(th.external[1])
    else:
        assert th.external[1] == B


@pytest.mark.parametrize("skip", [True, False])
def test_step12_above_the_tolerance_takes_external(monkeypatch, skip):
    th = _step12(monkeypatch, A, B * ABOVE, B * ABOVE, skip)
    assert th.branch[1] == "external" and th.cost[1] == B * ABOVE
    assert th.placements[1].servers == {1}


def test_skip_by_the_capacity_free_bound_uses_the_same_tie_rule(monkeypatch):
    # skip_dominated's first test: c_int <= dw min p^w + dw/gamma min p^s (a lower bound of every
    # external sample) up to the tolerance -> the LP is not even solved, internal wins step 12
    pol = _policy(T=3, levels=1)
    job = pol.job(_spec())
    dw = float(pp.external_demand(np.array([1]), job)[0])
    bound = dw * 0.05 + dw / job.model.ratio * 0.05
    c_int = float(np.nextafter(bound, np.inf))  # one ulp above the bound: a tie
    stub = type("Stub", (_StubSolver,), {"c_int": c_int, "c_ext": bound, "lp_cost": bound})
    monkeypatch.setattr(pp, "SlotSolver", stub)
    fast = pol.slot_theta(job, 0, skip_dominated=True)
    full = pol.slot_theta(job, 0, skip_dominated=False)
    assert np.isnan(fast.lp[1]) and np.isnan(fast.external[1])
    assert fast.branch[1] == full.branch[1] == "internal" and fast.cost[1] == full.cost[1] == c_int
    stub.c_int = bound / ABOVE  # 10 tolerances above the bound: the LP is solved, external wins
    fast = pol.slot_theta(job, 0, skip_dominated=True)
    assert fast.lp[1] == bound and fast.branch[1] == "external"
