"""PD-ORS's speed-ups (dlsched.pdors.policy) against the straightforward computations they replace:
the HiGHS models reused per matrix pattern, the rounding judged from the entries rounded up, and
step 12's tolerant comparisons made only where their result is not already known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, PdorsModel, Sigmoid
from dlsched.core.schedule import Placement
from dlsched.pdors import checks
from dlsched.pdors import policy as P


def _same(a, b) -> bool:
    """Equal bit for bit (NaN included), dtype too."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.array_equal(a.view(np.int64), b.view(np.int64))
    return np.array_equal(a, b)


# ------------------------------------------------------------------------- the LP


def _reference_lp(solver: P.SlotSolver, demands: np.ndarray):
    """SlotSolver.lp as first written: the block matrix rebuilt and a new HiGHS model built from
    CSC arrays (:func:`_solve_highs`) for every solve."""
    job = solver.job
    n, H = len(demands), len(solver.pw)
    wbar, sbar, cost = np.zeros((n, H)), np.zeros((n, H)), np.full(n, math.inf)
    grp, group_of = solver._groups()
    G = len(grp)
    k = np.bincount(group_of, minlength=G).astype(float)
    pw, ps, free = grp[:, 0], grp[:, 1], grp[:, 2:]
    pos = np.flatnonzero((job.wd > 0) | (job.pd > 0))
    g = np.arange(G)
    pr = np.repeat(np.arange(len(pos)), G) * G + np.tile(g, len(pos))
    nr = len(pos) * G
    rows = np.concatenate([pr, pr, np.full(G, nr), np.full(G, nr + 1), np.full(G, nr + 2),
                           np.full(G, nr + 2)])
    cols = np.concatenate([np.tile(g, len(pos)), np.tile(g + G, len(pos)), g, g, g, g + G])
    vals = np.concatenate([np.repeat(job.wd[pos], G), np.repeat(job.pd[pos], G), np.ones(G), -np.ones(G),
                           np.full(G, 1.0 / job.model.ratio), -np.ones(G)])
    keep = vals != 0
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    n_rows = nr + 3
    order = np.lexsort((rows, cols))
    blk_rows, blk_vals, blk_count = rows[order], vals[order], np.bincount(cols, minlength=2 * G)
    cap = (k[:, None] * free)[:, pos].T.ravel()
    c1 = np.concatenate([pw, ps])
    solves = 0

    def solve(levels, c_block, cover=True):
        nonlocal solves
        m = len(levels)
        b = np.zeros((m, n_rows))
        b[:, :nr] = cap[None, :]
        b[:, nr] = job.model.batch
        if cover:
            b[:, nr + 1] = -demands[levels]
        indptr = np.concatenate([[0], np.cumsum(np.tile(blk_count, m))])
        indices = np.add.outer(np.arange(m) * n_rows, blk_rows).ravel()
        solves += 1
        return P._solve_highs(np.tile(c_block, m), indptr, indices, np.tile(blk_vals, m), b.ravel())

    idx = np.arange(n)
    res = solve(idx, c1)
    if res.status == 2:
        mx = solve(np.array([0]), np.concatenate([-np.ones(G), np.zeros(G)]), cover=False)
        top = -mx.fun if mx.status == 0 else 0.0
        idx = idx[demands <= top * (1 + 1e-9) + 1e-9]
        res = solve(idx, c1) if len(idx) else None
    if res is None or res.status != 0:
        return cost, wbar, sbar, solves
    x = res.x.reshape(len(idx), 2 * G)
    cost[idx] = numerics.dot(x, c1)
    per = 1.0 / k[group_of]
    wbar[idx] = x[:, :G][:, group_of] * per
    sbar[idx] = x[:, G:][:, group_of] * per
    return cost, wbar, sbar, solves


@pytest.mark.parametrize("seed", range(30))
def test_lp_with_shared_models_matches_fresh_models(seed):
    """Solvers of several jobs share one model cache (tiny, so entries are evicted and reused with
    other jobs' coefficients); every solve, repeated or not, gives the fresh model's answer."""
    models = P._LPModels(size=2)
    cases = []
    for i in range(4):
        solver, demands = checks.slot_instance(seed * 7 + i, n_machines=1 + (seed + i) % 4)
        solver.job.lp_models = models
        cases.append((solver, np.concatenate([demands, demands[::-1] * 1.5])))
    for solver, demands in cases + cases[::-1]:
        got = solver.lp(demands)
        want = _reference_lp(solver, demands)
        for a, b in zip(got[:3], want[:3], strict=True):
            assert _same(a, b)
        assert got[3] == want[3]


def test_solve_highs_lp_reuses_a_model_without_changing_it():
    """A model solved with other costs and bounds in between gives the same answer again, and a
    solve leaves every field of the model as set."""
    rng = np.random.default_rng(3)
    n, m = 6, 4
    A = rng.random((m, n)) * (rng.random((m, n)) < 0.6)
    indptr = np.concatenate([[0], np.cumsum((A != 0).sum(axis=0))])
    indices = np.concatenate([np.flatnonzero(A[:, j]) for j in range(n)])
    data = A.T[A.T != 0]
    lp = P._highs_lp(n, m, indptr.tolist(), indices.tolist(), data.tolist())
    for _ in range(3):
        for c, b in [(rng.random(n) - 0.7, rng.random(m) * 3), (-np.ones(n), np.full(m, 2.0))]:
            got = P._solve_highs_lp(lp, c, b)
            want = P._solve_highs(c, indptr, indices, data, b)
            assert got.status == want.status and got.fun == want.fun
            assert (got.x is None) == (want.x is None) and (got.x is None or _same(got.x, want.x))
            assert lp.a_matrix_.index_ == indices.tolist() and lp.a_matrix_.value_ == data.tolist()
            assert lp.row_upper_ == b.tolist() and list(lp.col_cost_) == c.tolist()


# --------------------------------------------------------------------- the rounding


@pytest.mark.parametrize("seed", range(60))
def test_feasible_ups_matches_feasible(seed):
    """Samples judged from their entries rounded up (sums and the (24) outcome table) are judged
    as feasible() judges the integer samples, tight capacities included."""
    rng = np.random.default_rng(seed)
    L, nz, trials, R = int(rng.integers(1, 6)), int(rng.integers(1, 8)), int(rng.integers(1, 5)), 3
    wd = rng.choice([0.0, 0.5, 1.0, 2.0], R)
    pd = rng.choice([0.0, 1.0, 3.0], R)
    wd[0] = 1.0
    solver = object.__new__(P.SlotSolver)
    solver.job = type("J", (), {"wd": wd, "pd": pd, "model": type("M", (), {
        "batch": int(rng.integers(1, 30)), "ratio": float(rng.choice([1.0, 2.0, 1.5]))})})()
    idx = np.arange(nz)
    solver.free = rng.integers(0, 10, (nz, R)).astype(float)
    w_base = rng.integers(0, 4, (L, nz)).astype(float)
    s_base = rng.integers(0, 3, (L, nz)).astype(float)
    demand = rng.uniform(0.0, 12.0, L)
    up_w = rng.random((2, trials, L, nz)) < 0.5
    up_s = rng.random((2, trials, L, nz)) < 0.5
    broken = np.zeros((L, nz), dtype=np.uint8)
    for bit, (dw, ds) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
        w, s = (w_base + dw).astype(np.int64), (s_base + ds).astype(np.int64)
        for j in range(nz):  # one machine alone: only its (24) can fail
            ok = np.ones(L, dtype=bool)
            for r in np.flatnonzero((wd > 0) | (pd > 0)):
                ok &= w[:, j] * wd[r] + s[:, j] * pd[r] <= solver.free[j, r] + P._EPS
            broken[:, j] |= (~ok).astype(np.uint8) << bit
    got = solver._feasible_ups(up_w, up_s, w_base.sum(axis=1).astype(np.int64),
                               s_base.sum(axis=1).astype(np.int64), demand, broken)
    w = np.swapaxes((w_base + up_w).astype(np.int64), 2, 1)  # (2, L, trials, nz)
    s = np.swapaxes((s_base + up_s).astype(np.int64), 2, 1)
    want = solver.feasible(w, s, demand[:, None], idx)
    assert np.array_equal(np.swapaxes(got, 1, 2), want)


# ----------------------------------------------------------------- step 12 (slot_theta)


def _reference_slot_theta(pol: P.PDORS, job: P.PdorsJob, t: int) -> P.SlotTheta:
    """PDORS.slot_theta as first written: numerics.greater on every level."""
    solver = P.SlotSolver(job, pol.p[t], pol._cap - pol.rho[t])
    top = min(job.v_max, job.units)
    v = np.arange(top + 1)
    if pol.colocation:
        c_int, h_int = solver.internal(top)
    else:
        c_int, h_int = np.full(top + 1, math.inf), np.full(top + 1, -1)
        c_int[0] = 0.0
    dw = P.external_demand(v, job)
    ext_ok = (v > 0) & (dw <= job.model.batch + P._EPS)
    c_ext, c_lp = np.full(top + 1, math.inf), np.full(top + 1, math.inf)
    bound = dw * float(solver.pw.min()) + dw / job.model.ratio * float(solver.ps.min())
    skipped = ext_ok & ~numerics.greater(c_int, bound)
    ext_ok &= ~skipped
    c_ext[skipped] = c_lp[skipped] = np.nan
    lvl = np.flatnonzero(ext_ok)
    g_lvl = P.g_delta(np.where(dw[lvl] > 0, dw[lvl], 1.0), pol.delta, job.model.ratio, pol.g_delta)
    lp_cost, wbar, sbar, solves, secs = solver.lp(dw[lvl], g_lvl if pol.headroom else None)
    c_lp[lvl] = lp_cost
    ext_place = {}
    ok_lp = np.isfinite(lp_cost)
    if not pol.headroom:
        ok_lp &= numerics.greater(c_int[lvl], lp_cost)
        c_ext[lvl[np.isfinite(lp_cost) & ~ok_lp]] = np.nan
    if ok_lp.any():
        r_cost, r_w, r_s, nz = solver.rounded(wbar[ok_lp], sbar[ok_lp], dw[lvl[ok_lp]], g_lvl[ok_lp],
                                              pol.rng, pol.trials)
        for i, lv in enumerate(lvl[ok_lp]):
            if math.isfinite(r_cost[i]):
                c_ext[lv] = r_cost[i]
                ext_place[lv] = Placement.of(
                    {int(pol._srv[h]): int(x) for h, x in zip(nz, r_w[i], strict=True) if x},
                    {int(pol._srv[h]): int(x) for h, x in zip(nz, r_s[i], strict=True) if x})
    use_int = np.isfinite(c_int) & ~numerics.greater(c_int, c_ext)
    cost = np.where(use_int, c_int, np.fmin(c_int, c_ext))
    placements, branch = [None] * (top + 1), [None] * (top + 1)
    placements[0], branch[0] = Placement(), "none"
    w_int, s_int = P.internal_counts(v, job)
    for lv in range(1, top + 1):
        if use_int[lv]:
            h = int(pol._srv[h_int[lv]])
            placements[lv] = Placement.of({h: int(w_int[lv])}, {h: int(s_int[lv])})
            branch[lv] = "internal"
        elif math.isfinite(c_ext[lv]):
            placements[lv], branch[lv] = ext_place[lv], "external"
    return P.SlotTheta(cost, placements, branch, c_int, c_ext, c_lp, solves, secs)


def _policy(seed: int, colocation: bool) -> tuple[P.PDORS, P.PdorsJob]:
    rng = np.random.default_rng(seed)
    H = int(rng.integers(1, 6))
    F, gamma = int(rng.integers(2, 30)), int(rng.integers(1, 4))
    cluster = Cluster.homogeneous(H, {"gpu": float(rng.integers(2, 12)), "cpu": float(rng.integers(6, 40))})
    model = PdorsModel(epochs=1, samples=int(rng.integers(50, 400)), batch=F, tau=0.01, sync_internal=0.0,
                       sync_external=float(rng.choice([0.0, 0.05, 0.2])), ratio=float(gamma))
    spec = JobSpec(0, 0, model, {"gpu": 1, "cpu": int(rng.integers(1, 3))}, {"cpu": int(rng.integers(1, 3))},
                   utility=Sigmoid(10.0, 0.5, 2.0))
    prices = P.PdorsPrices(rng.uniform(0.0, 3.0, 2), float(rng.uniform(-3.0, 0.0)))
    pol = P.PDORS(prices, levels=int(rng.integers(3, 15)), colocation=colocation)
    pol.prepare(cluster, 2, np.random.default_rng(seed + 1))
    full = pol._cap
    pol.rho[0] = np.floor(rng.uniform(0.0, 0.6, full.shape) * full)
    pol.p[0] = prices.price(pol.rho[0], full)
    return pol, pol.job(spec)


@pytest.mark.parametrize("colocation", [True, False])
@pytest.mark.parametrize("seed", range(25))
def test_slot_theta_matches_reference(seed, colocation):
    new, job = _policy(seed, colocation)
    ref, job_ref = _policy(seed, colocation)
    got = new.slot_theta(job, 0)
    want = _reference_slot_theta(ref, job_ref, 0)
    for name in ("cost", "internal", "external", "lp"):
        assert _same(getattr(got, name), getattr(want, name)), name
    assert got.placements == want.placements and got.branch == want.branch
    assert got.lp_solves == want.lp_solves
    assert new.rng.bit_generator.state == ref.rng.bit_generator.state


# ------------------------------------------------------------------------ the DP (21)


def test_dp_step_window_matches_loop(monkeypatch):
    """The (v, x) table over the columns a finite ``prev`` entry reaches gives the loop's row and
    choices bit for bit, for rows that are inf outside a window (pruned DP rows) or everywhere."""
    rng = np.random.default_rng(1)
    for _ in range(400):
        n = int(rng.integers(0, 40))
        prev = np.full(n + 1, math.inf)
        lo = int(rng.integers(0, n + 1))
        hi = int(rng.integers(lo, n + 1))
        if rng.random() < 0.9:
            prev[lo:hi + 1] = rng.choice([0.0, 1.0, 1.0 + 1e-12, 2.5, math.inf], hi + 1 - lo)
        cost = rng.choice([0.0, 0.5, 1.0, 1.0 + 5e-10, math.inf], int(rng.integers(0, n + 1)) + 1)
        table = P._dp_step(prev, cost)
        monkeypatch.setattr(P, "_DP_TABLE_MAX", -1)
        loop = P._dp_step(prev, cost)
        monkeypatch.undo()
        assert _same(table[0], loop[0]) and _same(table[1], loop[1])
