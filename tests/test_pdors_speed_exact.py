"""PD-ORS's speed-ups of 2026-11-28 (dlsched.pdors.policy) against what they replace, bit for bit:
the slot-state ids of the search's theta cache (same hits and misses as keying by the usage
bytes), the internal case (24) over the demanded resources only, the one-slot price
initialisation, the vectorised commit and the placements built when read."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_pdors_speed import _same  # bit-for-bit equality of arrays (tests/ is on sys.path)

from dlsched.core.cluster import Cluster, Server
from dlsched.core.schedule import Placement
from dlsched.pdors import policy as P


def _cluster(cap: np.ndarray) -> Cluster:
    """One unified server per row of ``cap``, resources ``r0, r1, ...`` (zero capacities kept)."""
    names = [f"r{i}" for i in range(cap.shape[1])]
    return Cluster(tuple(Server(f"s{h}", "unified", dict(zip(names, map(float, row), strict=True)))
                         for h, row in enumerate(cap)))


# ----------------------------------------------------------------- slot-state ids of the cache


def test_slot_state_ids_tell_apart_exactly_the_usage_bytes():
    """After random writes (with repeated states, -0.0 against 0.0), ids[t] == ids[u] exactly when
    rho[t].tobytes() == rho[u].tobytes(), and states no slot holds are forgotten."""
    rng = np.random.default_rng(0)
    rho = np.zeros((12, 3, 2))
    states = P._SlotStates(rho)
    choices = [np.zeros((3, 2)), np.ones((3, 2)), -np.zeros((3, 2)), np.eye(3, 2), np.eye(3, 2) * 0.5]
    for _ in range(300):
        t = int(rng.integers(0, 12))
        rho[t] = choices[int(rng.integers(0, len(choices)))]
        states.changed(t)
        keys = [rho[t].tobytes() for t in range(12)]
        for a in range(12):
            for b in range(12):
                assert (states.ids[a] == states.ids[b]) == (keys[a] == keys[b])
        assert len(states._id_of) == len(set(keys)) == len(states._count)
        assert sum(states._count.values()) == 12


def test_slot_state_ids_of_a_table_with_distinct_slots():
    rho = np.zeros((4, 2, 1))
    rho[1, 0, 0] = rho[3, 0, 0] = 2.0
    rho[2, 1, 0] = -0.0
    states = P._SlotStates(rho)
    assert states.ids[1] == states.ids[3] and len({states.ids[0], states.ids[1], states.ids[2]}) == 3


def _small_run(n: int, touch_rho: bool):
    """PD-ORS on the first ``n`` Philly jobs (the arena's mapping); with ``touch_rho`` the usage
    table is handed out before every decision, so every search keys its cache by the usage bytes
    (the keying before the ids). Returns the result, the policy and its slot_theta calls per job."""
    from dlsched.arena import mapping
    from dlsched.core.simulator import simulate

    df = mapping.trace_jobs("philly")
    attrs = dict(df.attrs)
    df = df.iloc[:n].copy()
    df.attrs.update(attrs)
    wl = mapping.map_jobs(df, "pdors", np.random.default_rng(0))
    pol = mapping.make_policy("pdors", wl)
    calls: list[int] = []
    theta, decide, search = pol.slot_theta, pol.decide, pol.search

    def counted(job, t, *a, **k):
        calls[-1] += 1
        return theta(job, t, *a, **k)

    def searched(spec, *a, **k):
        calls.append(0)
        return search(spec, *a, **k)

    def decided(t, view):
        if touch_rho and getattr(pol, "_T", None) is not None:
            pol.rho  # noqa: B018  (hands the table out: the searches fall back to the bytes)
            assert pol._states is None
        return decide(t, view)

    pol.slot_theta, pol.search, pol.decide = counted, searched, decided
    res = simulate(wl, pol, seed=0)
    return res, pol, calls


def test_search_cache_hits_and_misses_equal_the_bytes_keying():
    fast_res, fast, fast_calls = _small_run(40, touch_rho=False)
    assert fast.__dict__["_states"] is not None  # the ids were used throughout
    slow_res, slow, slow_calls = _small_run(40, touch_rho=True)
    assert fast_calls == slow_calls and sum(fast_calls) > 0
    assert {j: s for j, (s, _) in fast.lp_stats.items()} == {j: s for j, (s, _) in slow.lp_stats.items()}
    assert fast.history == slow.history
    assert fast_res.intervals.equals(slow_res.intervals) and fast_res.jobs.equals(slow_res.jobs)
    assert _same(fast._p, slow._p) and _same(fast._rho, slow._rho)
    # the ids of the run agree with the usage bytes at its end
    keys = [fast._rho[t].tobytes() for t in range(fast._rho.shape[0])]
    ids = fast._states.ids
    by_key: dict[bytes, int] = {}
    for t, key in enumerate(keys):
        assert by_key.setdefault(key, ids[t]) == ids[t]
    assert len(set(by_key.values())) == len(by_key)


def test_rho_property_hands_out_the_table():
    pol = P.PDORS(P.PdorsPrices(np.zeros(2), -1.0)).prepare(
        Cluster.homogeneous(2, {"gpu": 4.0, "cpu": 8.0}), 3)
    assert pol._states is not None
    table = pol.rho
    assert table is pol._rho and pol._states is None
    new = np.ones_like(table)
    pol.rho = new
    assert pol._rho is new and pol._states is None
    with pytest.raises(AttributeError):
        P.PDORS().rho  # noqa: B018


# ------------------------------------------------------------------------ internal case (24)


def _reference_internal(solver: P.SlotSolver, v_top: int):
    """SlotSolver.internal as first written: the (v, machine, resource) table over all resources."""
    job = solver.job
    v = np.arange(v_top + 1)
    w, s = P.internal_counts(v, job)
    need = job.wd[None, None, :] * w[:, None, None] + job.pd[None, None, :] * s[:, None, None]
    fits = np.all(need <= solver.free[None, :, :] + P._EPS, axis=2)
    fits &= (w <= job.model.batch)[:, None]
    key = job.model.ratio * solver.pw + solver.ps
    order = P.numerics.order(key)
    first = np.where(fits[:, order].any(axis=1), np.argmax(fits[:, order], axis=1), -1)
    h = np.where(first >= 0, order[np.maximum(first, 0)], -1)
    cost = np.where(h >= 0, w * solver.pw[np.maximum(h, 0)] + s * solver.ps[np.maximum(h, 0)], math.inf)
    cost[0], h[0] = 0.0, -1
    return cost, h


@pytest.mark.parametrize("seed", range(40))
def test_internal_over_demanded_resources_matches_all_resources(seed):
    """Random demands with zero entries, free capacities with entries just below 0 on resources
    the job does not demand (where the per-machine test decides), ties in the sort key."""
    from dlsched.core.jobs import JobSpec, PdorsModel, Sigmoid

    rng = np.random.default_rng(seed)
    H, R = int(rng.integers(1, 7)), int(rng.integers(1, 6))
    names = [f"r{i}" for i in range(R)]
    cap = rng.integers(0, 12, (H, R)).astype(float)
    cluster = _cluster(cap)
    assert list(cluster.resources) == names
    wd = {r: float(rng.integers(0, 3)) for r in names if rng.random() < 0.6}
    pd = {r: float(rng.integers(0, 3)) for r in names if rng.random() < 0.4}
    wd[names[int(rng.integers(0, R))]] = float(rng.integers(1, 3))  # both roles ask for something
    pd[names[int(rng.integers(0, R))]] = float(rng.integers(1, 3))
    model = PdorsModel(epochs=1, samples=int(rng.integers(50, 400)), batch=int(rng.integers(2, 30)), tau=0.01,
                       sync_internal=0.0, sync_external=0.05, ratio=float(rng.integers(1, 4)))
    spec = JobSpec(0, 0, model, wd, pd, utility=Sigmoid(10.0, 0.5, 2.0))
    pol = P.PDORS(P.PdorsPrices(rng.uniform(0.0, 3.0, R), float(rng.uniform(-3.0, 0.0))), levels=12)
    pol.prepare(cluster, 1, np.random.default_rng(seed))
    job = pol.job(spec)
    free = np.floor(rng.uniform(-0.2, 1.0, cap.shape) * cap) - rng.choice([0.0, 5e-10, 2e-9], cap.shape)
    price = rng.choice([0.5, 1.0, 2.0], cap.shape)
    solver = P.SlotSolver(job, price, free)
    top = int(rng.integers(0, 15))
    got, want = solver.internal(top), _reference_internal(solver, top)
    assert _same(got[0], want[0]) and _same(got[1], want[1])


# --------------------------------------------------------------------- prices and the commit


def test_initial_prices_equal_q_of_the_whole_table():
    cluster = _cluster(np.array([[4.0, 0.0, 8.0], [2.0, 16.0, 0.0]]))
    prices = P.PdorsPrices(np.array([1.5, 0.3, 2.0]), -2.5)
    pol = P.PDORS(prices).prepare(cluster, 7)
    want = prices.price(np.zeros((7, 2, 3)), pol._cap[None])
    assert _same(pol._p, want) and pol._p.flags.c_contiguous and pol._p.flags.writeable


def test_commit_equals_cell_by_cell_updates():
    """rho and p after a run: the loop of the first commit (cell by cell, workers then PS, then
    Q of the cell), replayed over the plans in admission order, gives the same floats."""
    _, pol, _ = _small_run(30, touch_rho=False)
    rho = np.zeros_like(pol._rho)
    p = pol.prices.price(np.zeros_like(pol._rho), pol._cap[None])
    pos = {int(s): i for i, s in enumerate(pol._srv)}
    from dlsched.arena import mapping

    df = mapping.trace_jobs("philly")
    attrs = dict(df.attrs)
    df = df.iloc[:30].copy()
    df.attrs.update(attrs)
    wl = mapping.map_jobs(df, "pdors", np.random.default_rng(0))
    by_id = {s.job_id: s for s in wl.jobs}
    for j, plan in pol.plans.items():
        spec = by_id[j]
        wd, pdem = pol.cluster.vector(spec.worker_demand), pol.cluster.vector(spec.ps_demand)
        for t, pl in plan.items():
            touched = set()
            for s, c in pl.workers:
                rho[t, pos[s]] += c * wd
                touched.add(pos[s])
            for s, c in pl.ps:
                rho[t, pos[s]] += c * pdem
                touched.add(pos[s])
            for h in touched:
                p[t, h] = pol.prices.price(rho[t, h], pol._cap[h])
    assert pol.plans and _same(rho, pol._rho) and _same(p, pol._p)


# ------------------------------------------------------------------ placements built when read


def test_level_placements_behave_as_the_list():
    srv = np.array([3, 5, 7])
    h_int = np.array([-1, 1, -1, 0])
    w_int, s_int = np.array([0, 2, 4, 6]), np.array([0, 1, 2, 3])
    branch = ["none", "internal", "external", None]
    ext_w, ext_s = np.array([[0, 2, 1]]), np.array([[1, 0, 0]])
    lazy = P._LevelPlacements(srv, h_int, w_int, s_int, branch, {2: 0}, srv.tolist(), ext_w, ext_s)
    want = [Placement(), Placement.of({5: 2}, {5: 1}), Placement.of({5: 2, 7: 1}, {3: 1}), None]
    assert len(lazy) == 4 and lazy == want and want == lazy and list(lazy) == want
    assert lazy[-2] == want[-2] and lazy[1:3] == want[1:3] and repr(lazy) == repr(want)
    assert lazy[1] is lazy[1]  # built once
    assert lazy != want[:3] and lazy != tuple(want)
    with pytest.raises(IndexError):
        lazy[4]
