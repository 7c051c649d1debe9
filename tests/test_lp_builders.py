"""The fast paths of PD-ORS's LP and rounding (dlsched.pdors.policy) against plain references."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

from dlsched.core import numerics
from dlsched.pdors import policy as P


def _solver(rng, H, R=3):
    wd = rng.choice([0.0, 0.5, 1.0, 2.0], R)
    pd = rng.choice([0.0, 1.0, 2.0], R)
    wd[0] = max(wd[0], 1.0)
    ratio = float(rng.choice([1.0, 2.0, 1.5]))
    job = types.SimpleNamespace(wd=wd, pd=pd, model=types.SimpleNamespace(batch=int(rng.integers(5, 200)),
                                                                          ratio=ratio))
    solver = object.__new__(P.SlotSolver)
    solver.job = job
    solver.free = rng.integers(0, 12, (H, R)).astype(float)
    price = rng.choice([0.5, 1.0, 2.0], (H, R))
    solver.pw, solver.ps = numerics.dot(price, wd), numerics.dot(price, pd)
    return solver


def _rounded_reference(solver, wbar, sbar, demands, scale, rng, trials, rounds=10):
    """Steps 9-11 drawn round by round with round_solution's layout and judged by feasible()."""
    n = len(wbar)
    nz = np.flatnonzero(((wbar > P._EPS) | (sbar > P._EPS)).any(axis=0))
    w_base, w_frac = P._rounding_parts(wbar[:, nz] * scale[:, None])
    s_base, s_frac = P._rounding_parts(sbar[:, nz] * scale[:, None])
    cost = np.full(n, math.inf)
    w_out = np.zeros((n, len(nz)), dtype=np.int64)
    s_out = np.zeros((n, len(nz)), dtype=np.int64)
    todo = np.arange(n)
    pw, ps = solver.pw[nz], solver.ps[nz]
    for _ in range(rounds):
        if not len(todo):
            break
        draws = rng.random((2, trials, len(todo), len(nz)))
        w = np.swapaxes((w_base[todo] + (draws[0] < w_frac[todo])).astype(np.int64), 0, 1)
        s = np.swapaxes((s_base[todo] + (draws[1] < s_frac[todo])).astype(np.int64), 0, 1)
        ok = solver.feasible(w, s, demands[todo][:, None], nz)
        c = np.where(ok, numerics.dot(w, pw) + numerics.dot(s, ps), math.inf)
        low = c.min(axis=1)
        pick = np.argmax(ok & (c <= (low + numerics.tolerance(low))[:, None]), axis=1)
        found = ok.any(axis=1)
        rows = todo[found]
        cost[rows] = c[found, pick[found]]
        w_out[rows] = w[found, pick[found]]
        s_out[rows] = s[found, pick[found]]
        todo = todo[~found]
    return cost, w_out, s_out, nz


@pytest.mark.parametrize("seed", range(40))
def test_rounded_matches_reference(seed):
    rng = np.random.default_rng(seed)
    H, n = int(rng.integers(1, 30)), int(rng.integers(1, 20))
    solver = _solver(rng, H)
    ratio = solver.job.model.ratio
    wbar = rng.random((n, H)) * rng.choice([0.3, 1.0, 3.0]) * (rng.random((n, H)) < 0.4)
    sbar = wbar / ratio * rng.choice([0.5, 1.0, 2.0])
    demands = wbar.sum(axis=1) * rng.choice([0.5, 0.9, 1.0])
    scale = 1.0 + rng.random(n)
    trials = int(rng.integers(1, 12))
    g1, g2 = np.random.default_rng(seed + 1000), np.random.default_rng(seed + 1000)
    got = solver.rounded(wbar, sbar, demands, scale, g1, trials)
    want = _rounded_reference(solver, wbar, sbar, demands, scale, g2, trials)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert np.array_equal(got[0].view(np.int64), want[0].view(np.int64))  # bit for bit
    # the generator ends where the reference's does, unless rounds were skipped at the end
    # (the reference stops drawing once every level has a sample, as rounded() does)
    if np.isfinite(got[0]).all():
        assert g1.bit_generator.state == g2.bit_generator.state


@pytest.mark.parametrize("seed", range(40))
def test_groups_match_np_unique(seed):
    rng = np.random.default_rng(seed)
    H = int(rng.integers(1, 60))
    solver = object.__new__(P.SlotSolver)
    solver.pw = rng.choice([0.0, -0.0, 1.0, 2.5], H)
    solver.ps = rng.choice([0.0, 1.0, 3.0], H)
    solver.free = rng.choice([0.0, -0.0, 1.0, 2.0], (H, 3))
    uniq, group_of = solver._groups()
    rows = np.column_stack([solver.pw, solver.ps, solver.free])
    ref, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    assert np.array_equal(uniq.view(np.int64), ref[order].view(np.int64))
    assert np.array_equal(group_of, rank[inv.ravel()])


def test_dp_step_table_matches_loop(monkeypatch):
    """_dp_step's (v, x) table gives the loop's row and choices bit for bit, ties included."""
    rng = np.random.default_rng(0)
    for _ in range(500):
        n = int(rng.integers(0, 40))
        prev = rng.choice([0.0, 1.0, 1.0 + 1e-12, 2.0, 3.5, math.inf], n + 1) * rng.choice([1.0, 1e-6, 1e3])
        cost = rng.choice([0.0, 0.5, 1.0, 1.0 + 5e-10, math.inf, 2.0], int(rng.integers(0, n + 1)) + 1)
        table = P._dp_step(prev, cost)
        monkeypatch.setattr(P, "_DP_TABLE_MAX", -1)
        loop = P._dp_step(prev, cost)
        monkeypatch.undo()
        assert np.array_equal(table[0].view(np.int64), loop[0].view(np.int64))
        assert np.array_equal(table[1], loop[1]) and table[1].dtype == loop[1].dtype
