"""OASiS's compact price and usage tables (issue 23: the whole Philly trace within 2 GB).
:class:`dlsched.oasis.policy._Cells` stores a pool's tables only at the (server, resource) cells
with a capacity; every schedule, payoff and dual value must be the same, bit for bit, as with the
full (T, servers, R) tables."""

from __future__ import annotations

import numpy as np
import pytest

from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, Sigmoid, Workload
from dlsched.core.simulator import simulate
from dlsched.oasis import policy as P
from dlsched.oasis.policy import OASiS, _Cells, _PriceMass, price_parameters, unit_caps, unit_prices

FULL = 1 << 62  # COMPACT_MIN no table reaches: every pool in full tables


def _bits(x) -> bytes:
    return np.ascontiguousarray(np.asarray(x, dtype=np.float64)).tobytes()


def _run(wl: Workload, compact_min: int, monkeypatch):
    monkeypatch.setattr(P, "COMPACT_MIN", compact_min)
    pol = OASiS.from_workload(wl)
    res = simulate(wl, pol, seed=0)
    return pol, res


def _same_runs(wl: Workload, monkeypatch, *, expect_compact: bool = True):
    full, rf = _run(wl, FULL, monkeypatch)
    comp, rc = _run(wl, 0, monkeypatch)
    assert full._cells == [None, None]
    assert (comp._cells[0] is not None) == expect_compact
    assert rf.jobs.equals(rc.jobs) and rf.intervals.equals(rc.intervals)
    assert _bits(list(full.payoffs.values())) == _bits(list(comp.payoffs.values()))
    assert full.plans == comp.plans
    for a, b in zip(full.history, comp.history, strict=True):
        assert a["job"] == b["job"] and _bits([a["primal"], a["dual"]]) == _bits([b["primal"], b["dual"]])
    for name in ("g", "v", "p", "q"):  # the full copies of the compact tables: the same bits
        assert _bits(getattr(full, name)) == _bits(getattr(comp, name))
    assert full.dual_objective() == comp.dual_objective() == comp._dual_now()
    return comp


def _vc_workload(seed: int, n_jobs: int = 40, wide: bool = False) -> Workload:
    """Servers in three "virtual clusters", each with its own resources (as the Philly mapping);
    jobs demand one VC's gpu (workers) and cpu, mem (PS); ``wide``: some demand three resources."""
    rng = np.random.default_rng(seed)
    vcs = ("a", "b", "c")
    wcaps = [{f"gpu:{v}": 4.0, f"cpu:{v}": 16.0, f"mem:{v}": 64.0} for v in vcs for _ in range(2)]
    pcaps = [{f"cpu:{v}": 8.0, f"mem:{v}": 32.0} for v in vcs for _ in range(2)]
    cluster = Cluster.two_pools(6, 6, wcaps, pcaps)
    jobs = []
    for j in range(n_jobs):
        v = vcs[int(rng.integers(3))]
        m = OasisModel(epochs=int(rng.integers(1, 4)), chunks=int(rng.integers(1, 9)), minibatches=5,
                       tau=float(rng.uniform(0.05, 0.2)), comm=0.0)
        wd = {f"gpu:{v}": 1.0}
        if wide and j % 2:
            wd.update({f"cpu:{v}": 2.0, f"mem:{v}": 4.0})
        pd = {f"cpu:{v}": float(rng.integers(1, 3)), f"mem:{v}": float(rng.integers(1, 5))}
        util = Sigmoid(float(rng.uniform(5, 20)), float(rng.uniform(0.1, 1.0)), float(rng.uniform(2, 6)))
        jobs.append(JobSpec(j, int(rng.integers(0, 4)), m, wd, pd, utility=util))
    return Workload(cluster, tuple(jobs), horizon=12)


@pytest.mark.parametrize("seed", range(4))
def test_compact_tables_give_the_same_run(seed, monkeypatch):
    _same_runs(_vc_workload(seed), monkeypatch)


@pytest.mark.parametrize("seed", range(2))
def test_jobs_demanding_three_resources_rebuild_full_rows(seed, monkeypatch):
    comp = _same_runs(_vc_workload(seed, wide=True), monkeypatch)
    assert comp._cells[0] is not None  # never left the compact tables


def test_philly_jobs_give_the_same_run(monkeypatch):
    from dlsched.arena import mapping

    df = mapping.trace_jobs("philly")
    attrs = dict(df.attrs)
    df = df.iloc[:25].copy()
    df.attrs.update(attrs)
    _same_runs(mapping.map_jobs(df, "oasis", np.random.default_rng(0)), monkeypatch)


def test_dense_capacities_stay_full(monkeypatch):
    wl = _vc_workload(0)
    cluster = Cluster.two_pools(3, 3, {"gpu": 4.0, "cpu": 8.0}, {"gpu": 1.0, "cpu": 8.0})
    jobs = tuple(JobSpec(s.job_id, s.arrival, s.model, {"gpu": 1.0}, {"cpu": 1.0}, utility=s.utility)
                 for s in wl.jobs)
    _same_runs(Workload(cluster, jobs, horizon=12), monkeypatch, expect_compact=False)


def _cells(seed: int):
    rng = np.random.default_rng(seed)
    T, n, R = 9, 5, 6
    cap = np.where(rng.uniform(size=(n, R)) < 0.4, rng.uniform(1, 9, size=(n, R)), 0.0)
    cap[0, 0] = 3.0
    base = rng.uniform(1e-3, 10.0, size=(n, R))
    cells = _Cells(T, cap, base)
    used = np.zeros((T, n, R))
    price = np.repeat(base[None], T, axis=0)
    for _ in range(5):  # random live writes, mirrored in the full tables
        ts, hs = np.unique(np.stack([rng.integers(0, T, 4), rng.integers(0, n, 4)]), axis=1)
        u = cells.rows_at("used", ts, hs) + np.where(cap[hs] > 0, rng.uniform(0, 1, size=(len(ts), R)), 0.0)
        p = np.where(cap[hs] > 0, 10.0 ** rng.uniform(-8, 3, size=(len(ts), R)), base[hs])
        assert cells.put(ts, hs, u, p)
        used[ts, hs], price[ts, hs] = u, p
    return cells, cap, used, price, rng


@pytest.mark.parametrize("seed", range(3))
def test_cells_rebuild_the_full_tables(seed):
    cells, cap, used, price, rng = _cells(seed)
    assert _bits(cells.block("used")) == _bits(used) and _bits(cells.block("price")) == _bits(price)
    assert _bits(cells.block("price", slice(2, 5))) == _bits(price[2:5])
    for dem in ([1, 0, 0, 0, 0, 0], [2, 0, 0, 0.5, 0, 0], [1, 1, 1, 0, 0, 0], [0, 0, 0, 0, 3, 0]):
        dem = np.array(dem, dtype=float) * rng.uniform(0.5, 2.0, size=6)
        rows = slice(1, 7)
        caps, units = cells.units(cap, dem, rows)
        assert np.array_equal(caps, unit_caps(cap, used[rows], dem))
        assert _bits(units) == _bits(unit_prices(price[rows], dem))


def test_cells_refuse_a_write_off_the_live_cells():
    cells, cap, used, price, _ = _cells(0)
    dead = np.flatnonzero(cap[1] == 0)[0]
    u = cells.rows_at("used", np.array([0]), np.array([1]))
    u[0, dead] = 1.0
    assert not cells.put(np.array([0]), np.array([1]), u, price[[0], [1]])
    assert _bits(cells.block("used")) == _bits(used)  # nothing written


@pytest.mark.parametrize("leaf", [1 << 7, 1 << 8, 1 << 12])
def test_price_mass_of_cells_through_updates(leaf, monkeypatch):
    monkeypatch.setattr(_PriceMass, "LEAF", leaf)
    rng = np.random.default_rng(leaf)
    T, n, R = 40, 11, 7
    cap = np.where(rng.uniform(size=(n, R)) < 0.3, rng.uniform(1, 9, size=(n, R)), 0.0)
    cap[:, 0] = 2.0
    base = 10.0 ** rng.uniform(-6, 6, size=(n, R))
    cells = _Cells(T, cap, base)
    mass = _PriceMass(cells, cap)
    assert mass.total() == np.sum(cells.block("price") * cap[None])
    for _ in range(8):
        ts, hs = np.unique(np.stack([rng.integers(0, T, 5), rng.integers(0, n, 5)]), axis=1)
        u = cells.rows_at("used", ts, hs)
        p = np.where(cap[hs] > 0, 10.0 ** rng.uniform(-6, 12, size=(len(ts), R)), base[hs])
        assert cells.put(ts, hs, u, p)
        mass.update(ts, hs)
        assert mass.total() == np.sum(cells.block("price") * cap[None])


def test_compact_tables_read_only_and_preload_expands(monkeypatch):
    monkeypatch.setattr(P, "COMPACT_MIN", 0)
    wl = _vc_workload(1)
    pol = OASiS(price_parameters(wl)).prepare(wl.cluster, wl.horizon)
    assert pol._cells[0] is not None and pol._cells[1] is not None
    assert pol.p.shape == (wl.horizon, 6, len(wl.cluster.resources))
    with pytest.raises(ValueError):
        pol.p[0, 0, 0] = 1.0  # a copy: writing it would change nothing, so it cannot be written
    pol.preload(0.5)
    assert pol._cells == [None, None] and pol.p.flags.writeable
    monkeypatch.setattr(P, "COMPACT_MIN", FULL)
    ref = OASiS(price_parameters(wl)).prepare(wl.cluster, wl.horizon).preload(0.5)
    for name in ("g", "v", "p", "q"):
        assert _bits(getattr(pol, name)) == _bits(getattr(ref, name))
