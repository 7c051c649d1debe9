"""The fast paths of A_maxsche (``dlsched/aonline/policy.py``) give the same results as the plain
per-``D_u`` evaluation: COST_C of every worker count at once (``_Quote.costs_c``), the COST_D
lower bounds at once (``_Quote.lower_bounds_d``), COST_D's per-job server order and per-duration
views (``_Quote.prefetch_d``/``dview``), the prices shared by the jobs of a round, and the
rewritten COST_D (checked against the straightforward Alg. 4 below, the code before the speed-up).
Equality is exact (``==`` on floats and placements), on random windows with near ties, full
servers, servers without worker slots and every reading (order, move rule, ties, prune, prices).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dlsched.aonline import policy as P
from dlsched.core import numerics
from dlsched.core.schedule import Placement

READINGS = list(itertools.product(P.ORDERS, P.MOVE_RULES, P.TIES, (True, False), P.PRICE_READINGS))


def random_case(seed: int, S: int = 9, n_jobs: int = 6):
    """A window with a few segments of random usage on resources w0, w1 (workers), p0, p1 (PS),
    some servers without a worker slot, and jobs of random types, sizes and data readiness."""
    rng = np.random.default_rng(seed)
    cap = rng.integers(0, 5, size=(S, 4)).astype(float)
    cap[-1] = [12, 12, 4, 4]  # a cloud
    cap[rng.random(S) < 0.2, :2] = 0  # no worker slot (Alg. 4 line 3: price +inf)
    length = int(rng.integers(4, 24))
    n_seg = int(rng.integers(1, 4))
    cuts = sorted(rng.choice(np.arange(1, length), size=min(n_seg - 1, length - 1), replace=False).tolist())
    bounds = np.array([0, *cuts, length])
    used = np.minimum(rng.integers(0, 4, size=(S, 4, len(bounds) - 1)).astype(float), cap[:, :, None])
    used = np.sort(used, axis=2)[:, :, ::-1].copy()  # non-increasing over the window
    used[rng.random(used.shape) < 0.15] = 0.1 + 0.2  # near ties with 0.3
    used[rng.random(used.shape) < 0.15] = 0.3
    state = P.WindowState(cap, length, bounds, used)
    jobs = []
    for j in range(n_jobs):
        rw = rng.random(S) < 0.8
        rp = rng.random(S) < 0.7
        jobs.append(
            P.AOnlineJob(
                j, float(rng.integers(1, 40)), 1.0, float(rng.choice([0.5, 0.8, 1.0])),
                int(rng.integers(1, 9)), int(rng.integers(0, 2)), int(rng.integers(2, 4)), 1.0, 1.0, rw, rp,
                float(rng.choice([1.0, 1.0, 3.0, 0.2])),
            )
        )  # fmt: skip
    return state, jobs


def _reference_cost_d(q, n, order, move_rule):
    """Alg. 4 as the code read before the speed-up (one evaluation, no per-job caches)."""
    job = q.job
    d = job.duration(n, False)
    if d > q.length:
        return None
    p = q.at(d)
    elig = np.flatnonzero(job.ready_w | job.ready_p)
    if elig.size == 0:
        return None
    key = q.first_lam[elig] if order == "first_slot" else p.lam[elig]
    key = np.where(q.no_w[elig], P.INF, key)
    srv = elig[numerics.order(key)]
    room = p.room[srv]
    y = np.clip(n - (np.cumsum(room) - room), 0, room)
    if y.sum() < n:
        return None
    dw, dp = job.worker_amount, job.ps_amount
    lw = dw * p.lam[srv]
    mp = dp * p.mu[srv]
    psok = p.ps_ok[srv]
    cost_u = numerics.dot(y, lw)
    z = int(np.flatnonzero(y)[-1])
    costs, ps_pos, ys = [], [], []
    pre = np.flatnonzero(psok[:z])
    if pre.size:
        costs.append(cost_u + mp[pre])
        ps_pos.append(pre)
        ys.append(None)
    i1 = z + np.flatnonzero(psok[z:])
    if i1.size:
        seq = np.arange(z, -1, -1)
        room1 = room[i1] - y[i1]
        if move_rule == "consistent":
            delta = lw[i1][:, None] - lw[seq][None, :]
            scale = np.maximum(np.abs(lw[i1])[:, None], np.abs(lw[seq])[None, :])
        else:
            fl, fm = dw * q.first_lam[srv], dp * q.first_mu[srv]
            delta = fl[i1][:, None] - fl[seq][None, :] - fm[i1][:, None]
            scale = np.maximum(np.maximum(np.abs(fl[i1]), np.abs(fm[i1]))[:, None], np.abs(fl[seq])[None, :])
        same = i1[:, None] == seq[None, :]
        delta = np.where(same, 0.0, delta)
        movable = np.where(same, 0, y[seq][None, :])
        ok_move = same | (delta <= numerics.tolerance(scale, 0.0))
        go = np.logical_and.accumulate(ok_move, axis=1)
        movable = np.where(go, movable, 0)
        moved = np.clip(room1[:, None] - (np.cumsum(movable, axis=1) - movable), 0, movable)
        c = cost_u + mp[i1] + (delta * moved).sum(axis=1)
        keep = y[i1] + moved.sum(axis=1) < n
        if keep.any():
            costs.append(c[keep])
            ps_pos.append(i1[keep])
            ys.append((seq, moved[keep]))
    if not costs:
        return None
    allc = np.concatenate(costs)
    k = numerics.argmin(allc)
    g = int(np.searchsorted(np.cumsum([len(c) for c in costs]), k, side="right"))
    k -= sum(len(c) for c in costs[:g])
    c_arr, pos, ymove = costs[g], ps_pos[g], ys[g]
    yf = y.copy()
    if ymove is not None:
        seq, moved = ymove
        yf[seq] -= moved[k]
        yf[pos[k]] += moved[k].sum()
    workers = {int(srv[i]): int(yf[i]) for i in np.flatnonzero(yf)}
    return P.Candidate(float(c_arr[k]), n, d, Placement.of(workers, {int(srv[pos[k]]): 1}), "D")


def _reference_maxsche(jobs, state, prices, *, order, move_rule, prune, ties):
    """Alg. 2 as the code read before the speed-up: one COST_C / COST_D evaluation per D_u."""
    state = state.copy()
    admitted, etas, bests = {}, {}, {}
    exact_bounds = prune and move_rule == "consistent"
    stop_at_one = exact_bounds and prices.nonnegative and ties == "first"
    evals = 0
    for job in jobs:
        q = P._Quote(job, state, prices)
        eta_j, best = 0.0, None
        top, top_eta = None, -P.INF
        n_min = max(1, math.ceil(job.work / (job.speed_c * state.length) - P._EPS))
        for n in range(n_min, job.max_workers + 1):
            c = P.cost_c(job, n, state, prices, order=order)
            evals += 1
            if exact_bounds and c is not None and c.cost <= q.lower_bound_d(n):
                dd = None
            else:
                dd = _reference_cost_d(q, n, order, move_rule)
                evals += 1
            cand = c
            if dd is not None and (c is None or numerics.less(dd.cost, c.cost)):
                cand = dd
            if cand is None:
                continue
            eta = job.weight - cand.cost
            scale = max(abs(job.weight), abs(cand.cost))
            if top is None or eta - top_eta > numerics.tolerance(scale, top.cost):
                top, top_eta = cand, eta
            ref = 0.0 if best is None else best.cost
            tol = numerics.tolerance(scale, ref)
            if eta - eta_j > tol:
                eta_j, best = eta, cand
            elif ties == "fastest" and best is not None and eta_j - eta <= tol:
                if cand.duration < best.duration:
                    best = cand
            if stop_at_one and eta_j >= job.weight:
                break
        bests[job.job_id] = best if best is not None else top
        etas[job.job_id] = eta_j
        if best is not None:
            admitted[job.job_id] = best
            P._commit(state, job, best)
    return admitted, etas, bests, state, evals


@pytest.mark.parametrize("seed", range(12))
def test_cost_d_matches_the_plain_algorithm(seed):
    state, jobs = random_case(seed)
    for reading in P.PRICE_READINGS:
        prices = P.AOnlinePrices.of(8, state.n_servers, 2, 2, reading=reading)
        for job, order, rule in itertools.product(jobs, P.ORDERS, P.MOVE_RULES):
            for n in range(1, job.max_workers + 1):
                want = _reference_cost_d(P._Quote(job, state, prices), n, order, rule)
                got = P.cost_d(job, n, state, prices, order=order, move_rule=rule)
                assert got == want, (job.job_id, n, order, rule, reading)


@pytest.mark.parametrize("seed", range(12))
def test_vectorised_costs_c_and_bounds_match_one_by_one(seed):
    state, jobs = random_case(seed)
    prices = P.AOnlinePrices.of(8, state.n_servers, 2, 2)
    for job, order in itertools.product(jobs, P.ORDERS):
        ns = range(1, job.max_workers + 1)
        q = P._Quote(job, state, prices)
        got = [None if c is None else c.candidate() for c in q.costs_c(ns, order)]
        assert got == [P.cost_c(job, n, state, prices, order=order) for n in ns]
        lbs = P._Quote(job, state, prices).lower_bounds_d(ns)
        assert lbs == [P._Quote(job, state, prices).lower_bound_d(n) for n in ns]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("order,move_rule,ties,prune,reading", READINGS)
def test_maxsche_matches_the_plain_loop(seed, order, move_rule, ties, prune, reading):
    state, jobs = random_case(seed, n_jobs=8)
    prices = P.AOnlinePrices.of(8, state.n_servers, 2, 2, reading=reading)
    kw = {"order": order, "move_rule": move_rule, "ties": ties, "prune": prune}
    res = P.maxsche(jobs, state, prices, **kw)
    admitted, etas, bests, st, evals = _reference_maxsche(jobs, state, prices, **kw)
    assert list(res.admitted) == list(admitted) and res.admitted == admitted
    assert res.eta == etas and res.best == bests and res.evaluations == evals
    assert np.array_equal(res.state.bounds, st.bounds) and np.array_equal(res.state.used, st.used)
