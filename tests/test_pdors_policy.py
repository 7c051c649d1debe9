"""Tests of PD-ORS Algorithms 1-4 (dlsched.pdors.policy): the price parameters (13)-(14) against a
hand computation, G_delta, rounding, quantisation, step 3's worker counts, constructor
validation, the external LP (infeasible levels, headroom), determinism and feasibility of whole
runs, the ``skip_dominated`` shortcut, rejection of hopeless jobs and the no-co-location
ablation."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from dlsched import registry
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, PdorsModel, Sigmoid, Workload
from dlsched.core.simulator import simulate
from dlsched.pdors import checks
from dlsched.pdors.policy import (
    PDORS,
    PdorsJob,
    PDORSNoColocation,
    PdorsPrices,
    SlotSolver,
    external_worker_slots,
    g_delta,
    internal_counts,
    min_duration,
    price_parameters,
    quantum,
    round_solution,
)

# ------------------------------------------------------------------------------ instances


def _hand_workload(horizon: int = 4) -> Workload:
    """Two jobs on two machines; a resource ("fpga") that no job demands."""
    cluster = Cluster.homogeneous(2, {"gpu": 4.0, "cpu": 8.0, "fpga": 2.0})
    a = JobSpec(0, 0, PdorsModel(epochs=1, samples=100, batch=4, tau=0.01, sync_internal=0.0,
                                 sync_external=0.04, ratio=2.0),
                {"gpu": 1, "cpu": 2}, {"cpu": 1}, utility=Sigmoid(10.0, 0.5, 2.0))
    b = JobSpec(1, 1, PdorsModel(epochs=2, samples=50, batch=2, tau=0.02, sync_internal=0.01,
                                 sync_external=0.05, ratio=1.0),
                {"gpu": 2, "cpu": 1}, {"cpu": 2}, utility=Sigmoid(5.0, 1.0, 1.0))
    return Workload(cluster, (a, b), horizon=horizon)


def _spread_workload(seed: int, n_jobs: int = 4, T: int = 6) -> Workload:
    """Jobs that train fast only when spread over several 4-GPU machines: the external branch
    wins some slots, the internal branch others (Algorithm 4 step 12 is exercised both ways)."""
    rng = np.random.default_rng(seed)
    cluster = Cluster.homogeneous(4, {"gpu": 4.0, "cpu": 8.0})
    jobs = []
    for j in range(n_jobs):
        gamma = float(rng.integers(1, 4))
        m = PdorsModel(epochs=1, samples=int(rng.integers(800, 2400)), batch=16, tau=0.01,
                       sync_internal=0.001, sync_external=float(rng.uniform(0.01, 0.05)), ratio=gamma)
        jobs.append(JobSpec(j, int(rng.integers(0, 3)), m, {"gpu": 1, "cpu": 1}, {"cpu": 1},
                            utility=Sigmoid(float(rng.uniform(5, 20)), 2.0, 1.5)))
    return Workload(cluster, tuple(jobs), horizon=T)


def _recording(pol: PDORS) -> list:
    """Wrap ``pol.search`` to record every schedule Algorithm 2 returns."""
    seen = []
    orig = pol.search

    def search(spec, prune=True):
        best = orig(spec, prune)
        seen.append((spec, best))
        return best

    pol.search = search
    return seen


# ------------------------------------------------------------------- (13)-(14) by hand


def _u(g1, g2, g3):
    return lambda d: g1 / (1.0 + math.exp(g2 * (d - g3)))


def test_price_parameters_equal_a_hand_computation():
    wl = _hand_workload()
    uA, uB = _u(10.0, 0.5, 2.0), _u(5.0, 1.0, 1.0)
    # d_min: A ceil(100/4 (0.01 + 2*0/4)) = ceil(0.25) = 1; B ceil(100/2 (0.02 + 0.01/2)) = 2
    # (13) reads u(d_min - 1): A u(0), B u(1) = 2.5
    best_a, best_b = uA(0), uB(1)
    assert best_b == pytest.approx(2.5)
    # W^e: A ceil(100 (0.01 + 2*0.04/4)) = 3, B ceil(100 (0.02 + 0.05/2)) = 5
    # sum_r (alpha + beta): A 1 + 3 = 4, B 2 + 3 = 5; sum_h sum_r C = 2 * 14 = 28, T = 4
    inv_mu = min(1.0, min(3 * 4, 5 * 5) / (4 * 28))
    mu = 1.0 / inv_mu
    assert mu == pytest.approx(112 / 12)
    # (14): u(T - 1 - a): A u(3), B u(2)
    L = min(uA(3) / (2 * mu * 3 * 4), uB(2) / (2 * mu * 5 * 5))
    U_gpu = max(best_a / 1, best_b / 2)  # alpha + beta per resource: A gpu 1, B gpu 2
    U_cpu = max(best_a / 3, best_b / 3)  # A cpu 2 + 1, B cpu 1 + 2
    U_fpga = L  # no job demands it
    got = price_parameters(wl)
    assert wl.cluster.resources == ("gpu", "cpu", "fpga")
    assert got.mu == pytest.approx(mu, rel=1e-12)
    assert got.lower == pytest.approx(L, rel=1e-12)
    assert got.log_l == pytest.approx(math.log(L), rel=1e-12)
    assert got.upper == pytest.approx([U_gpu, U_cpu, U_fpga], rel=1e-12)
    assert got.alpha == pytest.approx(max(1.0, math.log(U_gpu / L)), rel=1e-12)

    # an explicit mu replaces the [R] value; U is unchanged
    given = price_parameters(wl, mu=3.0)
    assert given.mu == 3.0
    assert given.lower == pytest.approx(L * mu / 3.0, rel=1e-12)
    assert given.upper[:2] == pytest.approx([U_gpu, U_cpu], rel=1e-12)
    assert given.upper[2] == pytest.approx(given.lower, rel=1e-12)

    # horizon override: T = 2 makes 1/mu = min(1, 12 / 56) and L uses u(T - 1 - a), floored at 0
    h2 = price_parameters(wl, horizon=2)
    mu2 = 56 / 12
    assert h2.mu == pytest.approx(mu2, rel=1e-12)
    assert h2.lower == pytest.approx(min(uA(1) / (2 * mu2 * 12), uB(0) / (2 * mu2 * 25)), rel=1e-12)


def test_price_parameters_mu_is_capped_at_one():
    """1/mu = min(1, .): with a tiny cluster the bound exceeds 1 and mu = 1."""
    big = _hand_workload()
    small = Workload(Cluster.homogeneous(1, {"gpu": 2.0, "cpu": 3.0}), big.jobs, horizon=2)
    got = price_parameters(small)
    assert got.mu == 1.0  # 12 / (2 * 5) > 1
    uA, uB = _u(10.0, 0.5, 2.0), _u(5.0, 1.0, 1.0)
    assert got.lower == pytest.approx(min(uA(1) / (2 * 12), uB(0) / (2 * 25)), rel=1e-12)


def test_price_parameters_on_the_paper_workload_by_hand():
    wl = checks.instance(4, family="pdors", n_jobs=3, n_machines=2, T=6)
    T = wl.horizon
    cap_sum = float(wl.cluster.capacity.sum())
    res = wl.cluster.resources
    rows = []
    for s in wl.jobs:
        m = s.model
        d_min = max(1, math.ceil(m.epochs * m.samples / m.batch
                                 * (m.tau + m.ratio * m.sync_internal / m.batch) - 1e-9))
        W = max(1, math.ceil(m.epochs * m.samples * (m.tau + m.ratio * m.sync_external / m.batch) - 1e-9))
        dem = {r: s.worker_demand.get(r, 0.0) + s.ps_demand.get(r, 0.0) for r in res}
        rows.append((s, d_min, W, dem))
    inv_mu = min(1.0, min(W * sum(dem.values()) for _, _, W, dem in rows) / (T * cap_sum))
    log_l = min(s.utility.log(T - 1 - s.arrival) - math.log(2.0 / inv_mu * W * sum(dem.values()))
                for s, _, W, dem in rows)
    got = price_parameters(wl)
    assert got.mu == pytest.approx(1.0 / inv_mu, rel=1e-12)
    assert got.log_l == pytest.approx(log_l, rel=1e-12)
    for k, r in enumerate(res):
        want = max(s.utility.log(d - 1) - math.log(dem[r]) for s, d, _, dem in rows if dem[r] > 0)
        assert got.log_u[k] == pytest.approx(max(want, log_l), rel=1e-12), r


def test_duration_ceilings_tolerate_float_noise():
    """d_min of (13) and W^e of (14) are ceilings of products that are integers on paper."""
    m = PdorsModel(epochs=1, samples=20, batch=2, tau=0.1, sync_internal=0.2, sync_external=0.2, ratio=2.0)
    per_sample = 0.1 + 2 * 0.2 / 2  # 0.30000000000000004 in floating point
    assert 20 / 2 * per_sample > 3.0 and 20 * per_sample > 6.0
    assert min_duration(m) == 3  # ceil(10 * 0.3)
    assert external_worker_slots(m) == 6  # ceil(20 * 0.3)
    # and the at-least-one floor
    tiny = PdorsModel(epochs=1, samples=1, batch=1, tau=1e-6, sync_internal=0.0, sync_external=0.0)
    assert min_duration(tiny) == 1 and external_worker_slots(tiny) == 1


def test_price_parameters_errors():
    wl = _hand_workload()
    with pytest.raises(ValueError, match="needs a horizon"):
        price_parameters(Workload(wl.cluster, wl.jobs))
    for bad in (0, -1.0, float("nan"), True):
        want = f"pdors.mu must be None or a finite number > 0, got {bad!r}"
        with pytest.raises(ValueError, match=re.escape(want)):
            price_parameters(wl, mu=bad)
    other = registry.make_workload("synthetic", seed=0, model="oasis", n_jobs=2, horizon=5)
    with pytest.raises(ValueError, match="PD-ORS needs a PdorsModel"):
        price_parameters(other)


# ---------------------------------------------------------------------------- PdorsPrices


def test_pdors_prices_properties():
    p = PdorsPrices(np.array([1.0, 2.0]), -1.0, mu=2.0)
    assert p.upper == pytest.approx(np.exp([1.0, 2.0]))
    assert p.lower == pytest.approx(math.exp(-1.0))
    assert p.alpha == pytest.approx(3.0)
    cap = np.array([[4.0, 8.0]])
    assert p.price(np.zeros((1, 2)), cap) == pytest.approx(np.full((1, 2), math.exp(-1.0)))  # Q(0) = L
    assert p.price(cap, cap) == pytest.approx(np.exp([[1.0, 2.0]]))  # Q(C) = U
    assert PdorsPrices(np.array([0.0]), 0.0).alpha == 1.0  # floored at 1
    tiny = PdorsPrices(np.array([-700.0]), -800.0)  # L underflows: kept as a log, lower is 0.0
    assert tiny.lower == 0.0 and tiny.log_l == -800.0 and tiny.alpha == pytest.approx(100.0)


@pytest.mark.parametrize("mu", [0, 0.0, -1.0, float("nan"), float("inf")])
def test_pdors_prices_rejects_bad_mu(mu):
    with pytest.raises(ValueError, match=re.escape(f"PdorsPrices.mu must be finite and > 0, got {mu!r}")):
        PdorsPrices(np.array([1.0]), 0.0, mu=mu)


def test_pdors_prices_rejects_bad_bounds():
    with pytest.raises(ValueError, match="ln L must be finite, got nan"):
        PdorsPrices(np.array([1.0]), float("nan"))
    with pytest.raises(ValueError, match=r"ln U must be finite and >= ln L=0"):
        PdorsPrices(np.array([1.0, -0.5]), 0.0)
    with pytest.raises(ValueError, match=r"ln U must be finite"):
        PdorsPrices(np.array([np.inf]), 0.0)


# -------------------------------------------------------------------------------- G_delta


def test_g_delta_formula_values():
    ell = math.log(1 / 0.1) / 5.0
    assert float(g_delta(5.0, 0.1)) == pytest.approx(1 + ell + math.sqrt(ell * ell + 2 * ell), rel=1e-12)
    assert float(g_delta(5.0, 0.1)) == pytest.approx(2.524993397677629, rel=1e-12)
    ell32 = 3.0 * math.log(2 / 0.1) / 6.0
    got32 = float(g_delta(6.0, 0.1, ratio=3.0, variant="32R"))
    assert got32 == pytest.approx(1 + ell32 + math.sqrt(ell32 * ell32 + 2 * ell32), rel=1e-12)
    assert got32 == pytest.approx(4.786825559147176, rel=1e-12)
    # 31R ignores the ratio
    assert float(g_delta(5.0, 0.1, ratio=7.0, variant="31R")) == float(g_delta(5.0, 0.1))


@pytest.mark.parametrize(("variant", "ratio"), [("31R", 1.0), ("32R", 1.0), ("32R", 4.0)])
def test_g_delta_solves_the_chernoff_equation(variant, ratio):
    d = np.array([0.3, 1.0, 2.5, 10.0, 100.0])
    delta = 0.05
    G = g_delta(d, delta, ratio, variant)
    assert G.shape == d.shape and np.all(G > 1)
    assert np.all(np.diff(G) < 0)  # more demand, less scaling needed
    # (G - 1)^2 / (2G) * D_w / c = ln(k / delta): the bound exp(-(G-1)^2 D / 2G) equals the target
    k, c = (1.0, 1.0) if variant == "31R" else (2.0, ratio)
    assert (G - 1) ** 2 / (2 * G) * d / c == pytest.approx(np.full(5, math.log(k / delta)), rel=1e-10)
    assert np.all(g_delta(d, delta / 10, ratio, variant) > G)  # more confidence, more scaling


def test_g_delta_edge_values_and_errors():
    assert np.all(g_delta(np.array([1.0, 7.0]), 1.0, variant="31R") == 1.0)  # ln(1/1) = 0
    assert float(g_delta(1.0, 1.0, variant="32R")) > 1.0  # ln(2/1) > 0
    with pytest.raises(ValueError, match=re.escape("pdors.g_delta must be one of ('31R', '32R'), got '33R'")):
        g_delta(1.0, 0.1, variant="33R")
    with pytest.raises(ValueError, match="got '31r'"):
        g_delta(1.0, 0.1, variant="31r")


# ------------------------------------------------------------------------------- rounding


def test_round_solution_is_integral_and_between_floor_and_ceil():
    rng = np.random.default_rng(0)
    values = np.array([[0.0, 0.3, 1.0, 2.7, 5.5], [3.0 - 1e-12, 0.999, 4.2, 7.0, 0.05]])
    out = round_solution(values, rng, trials=4000)
    assert out.shape == (4000, 2, 5)
    assert np.issubdtype(out.dtype, np.integer)
    lo, hi = np.floor(values + 1e-9), np.ceil(values - 1e-9)
    assert np.all(out >= lo) and np.all(out <= hi)
    assert np.all(out[:, 0, [0, 2]] == [0, 1]) and np.all(out[:, 1, [0, 3]] == [3, 7])  # integers kept
    assert out.mean(axis=0) == pytest.approx(np.where(hi == lo, lo, values), abs=0.03)  # unbiased
    # both neighbours occur for fractional entries
    frac = (values - np.floor(values) > 0.04) & (values - np.floor(values) < 0.96)
    assert np.all((out == lo).any(axis=0)[frac]) and np.all((out == hi).any(axis=0)[frac])


def test_round_solution_depends_only_on_the_generator():
    values = np.array([0.5, 1.5, 2.25])
    a = round_solution(values, np.random.default_rng(3), 50)
    b = round_solution(values, np.random.default_rng(3), 50)
    c = round_solution(values, np.random.default_rng(4), 50)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


# -------------------------------------------------------------------------------- quantum


def _model(**kw) -> PdorsModel:
    base = {"epochs": 10, "samples": 100, "batch": 7, "tau": 0.01, "sync_internal": 0.0,
            "sync_external": 0.05, "ratio": 1.0}
    return PdorsModel(**{**base, **kw})


@pytest.mark.parametrize(
    ("unit", "levels", "q", "n"),
    [("levels", 100, 10.0, 100), ("levels", 3, 334.0, 3), ("levels", 1, 1000.0, 1),
     ("levels", 7, 143.0, 7), ("iteration", 100, 7.0, 143), (250, 100, 250.0, 4), (300, 100, 300.0, 4),
     (1, 100, 1.0, 1000), (5000, 100, 5000.0, 1)],
)
def test_quantum(unit, levels, q, n):
    m = _model()  # V = 1000 samples, F = 7
    got_q, got_n = quantum(m, unit, levels)
    assert (got_q, got_n) == (q, n)
    assert got_q * got_n >= m.total_work and got_q * (got_n - 1) < m.total_work


# ----------------------------------------------------------------------- internal_counts


def _pjob(model: PdorsModel, q: float, workers: str) -> PdorsJob:
    spec = JobSpec(0, 0, model, {"gpu": 1}, {"cpu": 1})
    return PdorsJob(spec, model, q, 100, np.array([1.0, 0.0]), np.array([0.0, 1.0]), 50, workers)


def test_internal_counts_ratio_and_demand_readings():
    m = _model(epochs=1, samples=1000, batch=50, sync_internal=0.02, ratio=3.0)
    t_int = 0.01 + 3.0 * 0.02 / 50  # per-sample time on the internal bus
    v = np.arange(0, 41)
    D = np.array([math.ceil(x * 100.0 * t_int - 1e-9) for x in v])  # q = 100 samples per unit
    assert D[0] == 0 and D[-1] == 45 and len(set(D)) > 30 and len(set(D % 3)) == 3
    w, s = internal_counts(v, _pjob(m, 100.0, "ratio"))
    assert np.array_equal(s, -(-D // 3))  # s = ceil(D / gamma)
    assert np.array_equal(w, 3 * s)  # w = gamma ceil(D / gamma)
    assert np.all(w >= D) and np.all(w - D < 3)
    wd, sd = internal_counts(v, _pjob(m, 100.0, "demand"))
    assert np.array_equal(wd, D) and np.array_equal(sd, s)  # w = D, s = ceil(D / gamma)
    assert np.all(sd * 3 >= wd)  # s >= w / gamma
    assert np.any(w != wd)  # the readings differ
    # a hand case: q t_int = 1 worker per unit, v = 4 units: D = 4, s = 2, w = 6 or 4
    m1 = _model(epochs=1, samples=1000, batch=50, tau=0.5, sync_internal=0.0, ratio=3.0)
    assert [x.tolist() for x in internal_counts(np.array([4]), _pjob(m1, 2.0, "ratio"))] == [[6], [2]]
    assert [x.tolist() for x in internal_counts(np.array([4]), _pjob(m1, 2.0, "demand"))] == [[4], [2]]


def test_internal_counts_non_integer_ratio_uses_demand():
    m = _model(epochs=1, samples=1000, batch=50, tau=0.5, sync_internal=0.0, ratio=2.5)
    w, s = internal_counts(np.array([0, 1, 3, 4]), _pjob(m, 2.0, "ratio"))
    assert w.tolist() == [0, 1, 3, 4] and s.tolist() == [0, 1, 2, 2]
    assert np.all(s * 2.5 >= w)


# ------------------------------------------------------------------------- constructor


BAD_PDORS = [
    ({"levels": 0}, "pdors.levels", "0"),
    ({"levels": -3}, "pdors.levels", "-3"),
    ({"levels": 2.5}, "pdors.levels", "2.5"),
    ({"levels": True}, "pdors.levels", "True"),
    ({"unit": 0}, "pdors.unit", "0"),
    ({"unit": -5}, "pdors.unit", "-5"),
    ({"unit": 1.5}, "pdors.unit", "1.5"),
    ({"unit": "epoch"}, "pdors.unit", "'epoch'"),
    ({"unit": True}, "pdors.unit", "True"),
    ({"delta": 0}, "pdors.delta", "0"),
    ({"delta": 0.0}, "pdors.delta", "0.0"),
    ({"delta": 1.5}, "pdors.delta", "1.5"),
    ({"delta": -0.1}, "pdors.delta", "-0.1"),
    ({"delta": float("nan")}, "pdors.delta", "nan"),
    ({"delta": float("inf")}, "pdors.delta", "inf"),
    ({"delta": True}, "pdors.delta", "True"),
    ({"delta": "0.1"}, "pdors.delta", "'0.1'"),
    ({"trials": 0}, "pdors.trials", "0"),
    ({"trials": 1.0}, "pdors.trials", "1.0"),
    ({"g_delta": "33R"}, "pdors.g_delta", "'33R'"),
    ({"colocation": "yes"}, "pdors.colocation", "'yes'"),
    ({"colocation": 1}, "pdors.colocation", "1"),
    ({"headroom": 0}, "pdors.headroom", "0"),
    ({"headroom": "True"}, "pdors.headroom", "'True'"),
    ({"workers": "both"}, "pdors.workers", "'both'"),
    ({"mu": 0}, "pdors.mu", "0"),
    ({"mu": -2.0}, "pdors.mu", "-2.0"),
    ({"mu": float("nan")}, "pdors.mu", "nan"),
    ({"mu": True}, "pdors.mu", "True"),
    ({"max_units": 0}, "pdors.max_units", "0"),
    ({"max_units": 10.0}, "pdors.max_units", "10.0"),
]


@pytest.mark.parametrize(("params", "field", "value"), BAD_PDORS, ids=[str(p) for p, _, _ in BAD_PDORS])
@pytest.mark.parametrize("cls", [PDORS, PDORSNoColocation])
def test_constructor_errors_name_field_and_value(cls, params, field, value):
    with pytest.raises(ValueError) as err:
        cls(**params)
    msg = str(err.value)
    assert msg.startswith(field + " "), msg
    assert msg.endswith(f"got {value}"), msg


def test_constructor_accepts_the_boundaries():
    for params in ({"delta": 1}, {"delta": 1.0}, {"delta": 1e-12}, {"unit": 1}, {"unit": np.int64(7)},
                   {"levels": 1}, {"trials": 1}, {"max_units": 1}, {"mu": 1e-300}, {"g_delta": "32R"},
                   {"workers": "demand"}, {"headroom": True}, {"colocation": False}, {"unit": "iteration"}):
        pol = PDORS(**params)
        for k, v in params.items():
            assert getattr(pol, k) == v
    with pytest.raises(TypeError, match="pdors.prices must be PdorsPrices, got dict"):
        PDORS(prices={"L": 1})
    assert PDORSNoColocation().colocation is False and PDORSNoColocation.name == "pdors_nocoloc"


def test_policy_without_prices_or_with_too_fine_units_refuses():
    wl = _hand_workload()
    with pytest.raises(ValueError, match="needs price parameters"):
        PDORS().prepare(wl.cluster, 4)
    pol = PDORS.from_workload(wl, unit=1, max_units=50).prepare(wl.cluster, 4)
    with pytest.raises(ValueError, match=r"100 DP units of 1 samples exceed pdors.max_units=50"):
        pol.job(wl.jobs[0])


# ---------------------------------------------------------------------------- the LP


def _solver(gpu: float = 2.0, batch: int = 20, ratio: float = 2.0, machines: int = 2,
            cpu: float = 8.0) -> SlotSolver:
    cluster = Cluster.homogeneous(machines, {"gpu": gpu, "cpu": cpu})
    model = PdorsModel(epochs=1, samples=100, batch=batch, tau=0.01, sync_internal=0.0, sync_external=0.05,
                       ratio=ratio)
    spec = JobSpec(0, 0, model, {"gpu": 1, "cpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 0.5, 2.0))
    prices = PdorsPrices(np.array([1.0, 1.5]), -1.0)
    pol = PDORS(prices, levels=10).prepare(cluster, 1)
    cap = cluster.capacity
    used = np.zeros_like(cap)
    used[0, 1] = 2.0  # machine 0 is dearer and has less CPU left
    return SlotSolver(pol.job(spec), prices.price(used, cap), cap - used)


def _assert_lp_point(solver: SlotSolver, d: float, cost: float, w: np.ndarray, s: np.ndarray,
                     shrink: float = 1.0):
    job = solver.job
    assert w.sum() >= d - 1e-7  # (26)
    assert s.sum() * job.model.ratio >= w.sum() - 1e-7  # (26')
    assert shrink * w.sum() <= job.model.batch + 1e-7  # (25)
    use = shrink * (w[:, None] * job.wd + s[:, None] * job.pd)
    assert np.all(use <= solver.free + 1e-7)  # (24)
    assert np.all(w >= -1e-12) and np.all(s >= -1e-12)
    assert cost == pytest.approx(w @ solver.pw + s @ solver.ps, rel=1e-9)


def test_lp_infeasible_level_gives_inf_not_a_crash():
    solver = _solver()  # 4 GPUs in all: at most 4 workers
    cost, w, s, solves, _ = solver.lp(np.array([10.0]))
    assert cost.tolist() == [math.inf] and not w.any() and not s.any() and solves >= 1
    # beyond F (25) with plenty of capacity
    roomy = _solver(gpu=100.0, batch=5)
    cost, _, _, _, _ = roomy.lp(np.array([4.0, 6.0]))
    assert math.isfinite(cost[0]) and cost[1] == math.inf
    assert roomy.lp(np.array([], dtype=float))[0].shape == (0,)


def test_lp_mixed_feasible_and_infeasible_levels():
    solver = _solver()
    d = np.array([1.0, 2.5, 3.0, 4.0, 4.5, 10.0])
    cost, w, s, _, _ = solver.lp(d)
    assert np.isfinite(cost[:4]).all() and np.isinf(cost[4:]).all()
    assert not w[4:].any() and not s[4:].any()
    for i in range(4):
        _assert_lp_point(solver, d[i], cost[i], w[i], s[i])
        alone = solver.lp(d[i:i + 1])[0][0]  # the block LP gives each level its own optimum
        assert cost[i] == pytest.approx(alone, rel=1e-9)
    assert np.all(np.diff(cost[:4]) > 0)  # more demand costs more
    # the LP prefers the cheaper machine 1 (machine 0's CPU is partly used, so dearer)
    assert solver.pw[1] < solver.pw[0] and w[0, 1] >= w[0, 0]


def test_lp_infeasible_first_level_does_not_hide_feasible_ones():
    solver = _solver()
    cost, w, s, _, _ = solver.lp(np.array([10.0, 1.0]))
    assert cost[0] == math.inf
    assert cost[1] == pytest.approx(solver.lp(np.array([1.0]))[0][0])


@pytest.mark.parametrize("seed", range(6))
def test_headroom_lp_keeps_the_scaled_solution_within_capacity(seed):
    solver, demands = checks.slot_instance(seed, n_machines=3)
    ratio = solver.job.model.ratio
    G = g_delta(demands, 0.1, ratio, "31R")
    plain, wp, sp_, _, _ = solver.lp(demands)
    head, wh, sh, _, _ = solver.lp(demands, G)
    for i, d in enumerate(demands):
        if math.isfinite(head[i]):
            # the solution scaled by G_delta fits (24)-(25) while still covering (26) unscaled
            _assert_lp_point(solver, d, head[i], wh[i], sh[i], shrink=float(G[i]))
            assert head[i] >= plain[i] * (1 - 1e-9)  # a smaller polytope costs no less
    assert np.isfinite(head).any()


def test_headroom_matters_the_plain_lp_overflows_when_scaled():
    """Without headroom some scaled LP solution breaks (24) or (25): the headroom test can fail."""
    overflow = 0
    for seed in range(6):
        solver, demands = checks.slot_instance(seed, n_machines=3)
        G = g_delta(demands, 0.1, solver.job.model.ratio, "31R")
        plain, wp, sp_, _, _ = solver.lp(demands)
        for i in np.flatnonzero(np.isfinite(plain)):
            use = G[i] * (wp[i][:, None] * solver.job.wd + sp_[i][:, None] * solver.job.pd)
            too_many = G[i] * wp[i].sum() > solver.job.model.batch + 1e-7
            overflow += bool(np.any(use > solver.free + 1e-7) or too_many)
    assert overflow > 0


def test_headroom_infeasible_levels_are_inf():
    solver = _solver(gpu=10.0, cpu=100.0)  # at most 20 workers: 20 GPUs, F = 20
    d = np.array([3.0, 6.0, 12.0])
    G = g_delta(d, 0.1, 2.0)
    cost, w, s, _, _ = solver.lp(d, G)
    assert np.isfinite(solver.lp(d)[0]).all()  # all fit without headroom
    fits = d * G <= 20.0 + 1e-9
    assert fits[0] and not fits[-1]
    assert np.isfinite(cost[fits]).all() and np.isinf(cost[~fits]).all()
    for i in np.flatnonzero(fits):
        _assert_lp_point(solver, d[i], cost[i], w[i], s[i], shrink=float(G[i]))


# ------------------------------------------------------------------- whole runs: determinism


CONFIGS = [
    (PDORS, {}),
    (PDORS, {"headroom": True}),
    (PDORS, {"workers": "demand"}),
    (PDORS, {"headroom": True, "workers": "demand"}),
    (PDORSNoColocation, {}),
    (PDORSNoColocation, {"headroom": True}),
]


def _instances():
    return [("spread", 2, _spread_workload(2)), ("spread", 3, _spread_workload(3)),
            ("pdors", 1, checks.instance(1, family="pdors", n_jobs=5, n_machines=3, T=6))]


@pytest.mark.parametrize(("cls", "params"), CONFIGS, ids=[f"{c.name}-{p}" for c, p in CONFIGS])
def test_same_seed_same_run_and_every_run_is_feasible(cls, params):
    admitted = 0
    for family, seed, wl in _instances():
        runs = []
        for _ in range(2):
            pol = cls.from_workload(wl, levels=20, **params)
            res = simulate(wl, pol, seed=seed, check=True)  # the simulator's independent checker
            claim = checks.feasible_run(res, pol)
            assert claim.holds, (family, seed, claim.summary())
            runs.append(res)
        pd.testing.assert_frame_equal(runs[0].jobs, runs[1].jobs)
        pd.testing.assert_frame_equal(runs[0].allocations, runs[1].allocations)
        admitted += int(runs[0].jobs["admitted"].sum())
    assert admitted > 0


def test_the_policy_seed_drives_the_rounding():
    """Determinism is not vacuous: the rounding draws come from simulate's seed."""
    wl = _spread_workload(2)
    tables = [simulate(wl, PDORSNoColocation.from_workload(wl, levels=20), seed=s).allocations
              for s in range(4)]
    assert any(not tables[0].equals(t) for t in tables[1:])


# ------------------------------------------------------------------------ skip_dominated


@pytest.mark.parametrize("headroom", [False, True])
def test_skip_dominated_gives_the_same_theta(headroom):
    skipped = internal_wins = external_wins = 0
    for seed in (2, 3):
        wl = _spread_workload(seed)
        for spec in wl.jobs:
            pol = checks.loaded_policy(wl, exclude=spec.job_id, seed=seed, levels=20, headroom=headroom)
            job = pol.job(spec)
            for t in range(spec.arrival, wl.horizon):
                state = pol.rng.bit_generator.state
                fast = pol.slot_theta(job, t, skip_dominated=True)
                pol.rng.bit_generator.state = state  # a fresh copy of the stream for the full run
                full = pol.slot_theta(job, t, skip_dominated=False)
                assert not np.isnan(full.external).any() and not np.isnan(full.lp).any()
                assert np.array_equal(fast.internal, full.internal)
                solved = ~np.isnan(fast.lp)
                assert fast.lp[solved] == pytest.approx(full.lp[solved], rel=1e-9)
                # every skipped level is dominated under the full evaluation
                for lv in np.flatnonzero(np.isnan(fast.external)):
                    skipped += 1
                    assert full.lp[lv] >= fast.internal[lv] * (1 - 1e-9)
                    assert full.external[lv] >= fast.internal[lv] * (1 - 1e-9)
                    assert fast.branch[lv] == full.branch[lv] == "internal"
                # where internal wins with skipping, it wins without, at the same cost
                for lv, b in enumerate(fast.branch):
                    if b == "internal":
                        internal_wins += 1
                        assert full.branch[lv] == "internal"
                        assert fast.cost[lv] == full.cost[lv] == fast.internal[lv]
                    elif b == "external":
                        external_wins += 1
                        assert fast.cost[lv] < fast.internal[lv]
                        if not headroom:  # a rounded sample is a point of the (unshrunk) LP
                            assert fast.cost[lv] >= fast.lp[lv] * (1 - 1e-9)
                assert np.all(fast.cost <= fast.internal)  # step 12 takes the cheaper branch
    assert skipped > 0 and internal_wins > 0 and external_wins > 0


# ------------------------------------------------------------------------------ rejection


def test_a_job_that_cannot_finish_by_T_is_rejected_with_payoff_0():
    cluster = Cluster.homogeneous(2, {"gpu": 4.0, "cpu": 16.0})
    ok = JobSpec(0, 0, PdorsModel(epochs=1, samples=200, batch=4, tau=0.01, sync_internal=0.0,
                                  sync_external=0.01, ratio=1.0),
                 {"gpu": 1, "cpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 0.5, 2.0))
    # 10^6 samples, at most 4 workers at 0.01 slots/sample: 2500 slots, T = 5
    hopeless = JobSpec(1, 0, PdorsModel(epochs=100, samples=10_000, batch=4, tau=0.01, sync_internal=0.0,
                                        sync_external=0.01, ratio=1.0),
                       {"gpu": 1, "cpu": 1}, {"cpu": 1}, utility=Sigmoid(1000.0, 0.01, 100.0))
    late = JobSpec(2, 4, ok.model, {"gpu": 1, "cpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 0.5, 0.0))
    wl = Workload(cluster, (ok, hopeless, late), horizon=5)
    pol = PDORS.from_workload(wl, levels=20)
    res = simulate(wl, pol, seed=0)
    jobs = res.jobs.set_index("job_id")
    assert bool(jobs.loc[0, "admitted"]) and jobs.loc[0, "payoff"] > 0
    assert not bool(jobs.loc[1, "admitted"]) and jobs.loc[1, "status"] == "rejected"
    assert jobs.loc[1, "payoff"] == 0.0 and math.isnan(jobs.loc[1, "planned_completion"])
    assert jobs.loc[1, "utility"] == 0.0
    assert 1 not in set(res.allocations["job"]) and 1 not in pol.plans and 1 not in pol.payoffs
    best = pol.search(hopeless)
    assert best.payoff == 0.0 and best.completion is None and not best.placements
    assert checks.feasible_run(res, pol).holds


# ------------------------------------------------------------------------ no co-location


@pytest.mark.parametrize("seed", [2, 3])
def test_nocoloc_never_uses_the_internal_branch(seed):
    wl = _spread_workload(seed)
    pol = PDORSNoColocation.from_workload(wl, levels=20)
    seen = _recording(pol)
    res = simulate(wl, pol, seed=seed)
    assert res.jobs["admitted"].any()
    assert (res.jobs["internal_slots"] == 0).all()
    branches = [b for _, best in seen for b in best.branches.values()]
    assert branches and set(branches) == {"external"}
    assert checks.feasible_run(res, pol).holds
    # slot_theta offers no internal candidate at all
    for spec in wl.jobs:
        th = pol.slot_theta(pol.job(spec), wl.horizon - 1)
        assert np.all(np.isinf(th.internal[1:])) and "internal" not in th.branch

    # the same workload under PD-ORS does use it, and labels only single-machine placements
    co = PDORS.from_workload(wl, levels=20)
    seen_co = _recording(co)
    res_co = simulate(wl, co, seed=seed)
    assert res_co.jobs["internal_slots"].sum() > 0
    for spec, best in seen_co:
        for t, b in best.branches.items():
            p = best.placements[t]
            if b == "internal":
                assert p.colocated and len(p.servers) == 1
                assert p.n_workers == spec.model.ratio * p.n_ps  # w = gamma * s
        n_int = sum(b == "internal" for b in best.branches.values())
        assert res_co.jobs.set_index("job_id").loc[spec.job_id, "internal_slots"] == n_int


# ------------------------------------------------------------------ issue 21: U floor, None costs


def _late_workload() -> tuple[Workload, JobSpec]:
    """One job whose earliest finish (2500 slots) is far after T = 5, with a utility that is tiny
    by then: (13) alone would put U below L (14)."""
    cluster = Cluster.homogeneous(2, {"gpu": 4.0, "cpu": 16.0})
    late = JobSpec(0, 0, PdorsModel(epochs=100, samples=10_000, batch=4, tau=0.01, sync_internal=0.0,
                                    sync_external=0.01, ratio=1.0),
                   {"gpu": 1, "cpu": 1}, {"cpu": 1}, utility=Sigmoid(1000.0, 0.01, 100.0))  # fmt: skip
    return Workload(cluster, (late,), horizon=5), late


def test_u_below_l_is_floored_at_l():
    wl, late = _late_workload()
    d_min = min_duration(late.model)
    assert d_min == 2500 and late.arrival + d_min - 1 > wl.horizon
    got = price_parameters(wl)
    # the unfloored (13): u(d_min - 1) / (alpha + beta) per resource (gpu 1, cpu 1 + 1)
    raw = [late.utility.log(d_min - 1) - math.log(1.0), late.utility.log(d_min - 1) - math.log(2.0)]
    assert all(r < got.log_l for r in raw)
    assert got.log_u == pytest.approx([got.log_l, got.log_l], rel=1e-12)
    # the price (12) is then constant L whatever the usage (not decreasing in it)
    cap = wl.cluster.capacity[:1]
    for rho in (np.zeros_like(cap), cap / 2, cap):
        assert got.price(rho, cap) == pytest.approx(np.full_like(cap, got.lower), rel=1e-12)


def test_search_of_a_job_that_cannot_finish_by_T_has_no_costs_by_completion():
    wl, late = _late_workload()
    pol = PDORS.from_workload(wl, levels=20).prepare(wl.cluster, wl.horizon)
    job = pol.job(late)
    assert job.v_max * (wl.horizon - late.arrival) < job.units  # Algorithm 2 exits before any theta
    best = pol.search(late)
    assert best.completion is None and best.payoff == 0.0 and best.cost == math.inf
    assert best.costs_by_completion is None  # documented in PdorsSchedule
    assert checks.dp_optimal(pol, late).holds
    # a job that can finish gets an array of length T - a_i (inf where infeasible)
    ok = JobSpec(1, 1, PdorsModel(epochs=1, samples=200, batch=4, tau=0.01, sync_internal=0.0,
                                  sync_external=0.01, ratio=1.0),
                 {"gpu": 1, "cpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 0.5, 2.0))  # fmt: skip
    full = pol.search(ok, prune=False)
    assert full.costs_by_completion is not None and len(full.costs_by_completion) == wl.horizon - ok.arrival
