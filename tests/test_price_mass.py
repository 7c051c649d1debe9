"""The incremental price term of the primal-dual duals (issue 23): :class:`dlsched.core.pricing.PriceMass`
keeps ``np.sum(price * cap[None])`` cell by cell, without a product table, and must give numpy's own
sum bit for bit (it rebuilds numpy's pairwise summation tree). OASiS's dual (19) uses it through
:class:`dlsched.oasis.policy._PriceMass` (also for its compact tables: ``tests/test_oasis_memory.py``),
PD-ORS's dual (10) directly (``tests/test_pdors_dual_mass.py``). If a numpy upgrade changes how
``np.sum`` splits an array, this test fails before any schedule does."""

from __future__ import annotations

import numpy as np
import pytest

from dlsched.core.pricing import PriceMass
from dlsched.oasis.policy import _Cells, _PriceMass


@pytest.mark.parametrize(
    "shape", [(3, 4, 2), (40, 7, 3), (1200, 352, 1), (2500, 60, 3), (97, 1031, 5), (1, 1, 1)]
)
@pytest.mark.parametrize("seed", [0, 1])
def test_price_mass_is_numpys_sum_through_updates(shape, seed, monkeypatch):
    rng = np.random.default_rng(seed)
    if shape[0] * shape[1] * shape[2] > 100_000:
        monkeypatch.setattr(PriceMass, "LEAF", 1 << 12)  # a deep upper tree on a mid-size table
    # magnitudes over 18 decades: a sum grouped other than numpy's tree differs in its last bits
    price = 10.0 ** rng.uniform(-6.0, 12.0, size=shape) * rng.uniform(1.0, 2.0, size=shape)
    cap = rng.integers(0, 9, size=shape[1:]).astype(float) * rng.uniform(0.5, 2.0, size=shape[1:])
    mass = PriceMass(price, cap)
    assert not mass.fresh
    assert mass.total() == np.sum(price * cap[None])
    for _ in range(6):
        ts = rng.integers(0, shape[0], size=int(rng.integers(1, 4)))
        for t in ts:
            price[t] *= np.exp(rng.uniform(0.0, 0.5, size=shape[1:]))
        mass.update(ts)
        want = np.sum(price * cap[None])
        assert mass.total() == want and np.signbit(mass.total()) == np.signbit(want)


def test_other_layouts_are_summed_afresh():
    price = np.asfortranarray(np.random.default_rng(3).uniform(size=(30, 4, 2)))
    cap = np.ones((4, 2))
    mass = PriceMass(price, cap)
    price[2] += 1.0
    mass.update(np.array([2]))
    assert mass.fresh and mass.total() == np.sum(price * cap[None])
    tables = ((price.astype(np.float32), cap), (np.zeros((0, 4, 2)), cap), (np.zeros((5, 0, 2)), cap[:0]),
              (np.ones((4, 2)), cap))  # another dtype, no slot, no server, not (T, servers, R)
    for other, c in tables:
        mass = PriceMass(other, c)
        assert mass.fresh and mass.total() == np.sum(other * c[None])


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_a_zero_table_keeps_numpys_sign(zero):
    """Prices that underflow to 0 (L far below the smallest double, the whole Philly trace): the
    root of +0.0 is numpy's sum without summing afresh; a root of -0.0 is summed afresh."""
    price = np.full((50, 9, 3), zero)
    cap = np.ones((9, 3))
    mass = PriceMass(price, cap)
    want = np.sum(price * cap[None])
    assert mass.total() == want and np.signbit(mass.total()) == np.signbit(want)
    price[4, 2] = 1e-300
    mass.update(np.array([4]), np.array([2]))
    assert mass.total() == np.sum(price * cap[None]) == 1e-300 * 3


@pytest.mark.parametrize("leaf", [1 << 7, 1 << 10, 1 << 18])
def test_price_mass_through_cell_updates(leaf, monkeypatch):
    """Commits change (slot, server) cells: only the leaves over them are summed again."""
    monkeypatch.setattr(PriceMass, "LEAF", leaf)
    rng = np.random.default_rng(leaf)
    shape = (300, 41, 7)
    price = 10.0 ** rng.uniform(-6.0, 12.0, size=shape)
    cap = rng.integers(0, 9, size=shape[1:]).astype(float)
    mass = PriceMass(price, cap)
    for _ in range(10):
        ts, hs = np.unique(np.stack([rng.integers(0, shape[0], 6), rng.integers(0, shape[1], 6)]), axis=1)
        price[ts, hs] *= np.exp(rng.uniform(0.0, 3.0, size=(len(ts), shape[2])))
        mass.update(ts, hs)
        assert mass.total() == np.sum(price * cap[None])


class _Rows(PriceMass):
    """A compact table through the hooks: a list of per-slot flat rows (a layout numpy cannot
    sum in one call), with a row of zero-usage prices tiled by :meth:`PriceMass.tiled`."""

    def accepts(self, price) -> bool:
        return isinstance(price, _RowTable)

    def prepare(self) -> None:
        self.first_tiled = self.tiled(self.price.rows[0])

    def flat_prices(self, lo: int, hi: int) -> np.ndarray:
        flat = np.concatenate(self.price.rows)[lo:hi]
        off = lo % self.slot
        # rows equal to slot 0's read from the tiled copy (same values, another path)
        same = np.concatenate([np.full(self.slot, r is self.price.rows[0]) for r in self.price.rows])[lo:hi]
        flat[same] = self.first_tiled[off : off + hi - lo][same]
        return flat

    def dense(self) -> np.ndarray:
        return np.stack(self.price.rows).reshape(self.price.shape)


class _RowTable:
    def __init__(self, rows: list[np.ndarray], shape: tuple[int, int, int]) -> None:
        self.rows, self.shape = rows, shape


@pytest.mark.parametrize("leaf", [1 << 7, 1 << 12])
def test_compact_tables_through_the_hooks(leaf, monkeypatch):
    """A subclass supplies the flat prices of a compact layout; the sum keeps numpy's bits."""
    monkeypatch.setattr(PriceMass, "LEAF", leaf)
    rng = np.random.default_rng(leaf + 1)
    T, n, R = 120, 13, 5
    cap = rng.integers(0, 9, size=(n, R)).astype(float)
    first = 10.0 ** rng.uniform(-6.0, 12.0, size=n * R)
    rows = [first] * T
    table = _RowTable(rows, (T, n, R))
    mass = _Rows(table, cap)
    assert not mass.fresh and mass.total() == np.sum(mass.dense() * cap[None])
    for _ in range(8):
        ts, hs = np.unique(np.stack([rng.integers(0, T, 4), rng.integers(0, n, 4)]), axis=1)
        for t, h in zip(ts.tolist(), hs.tolist(), strict=True):
            row = rows[t].copy()
            row[h * R : (h + 1) * R] *= np.exp(rng.uniform(0.0, 3.0, size=R))
            rows[t] = row
        mass.update(ts, hs)
        assert mass.total() == np.sum(mass.dense() * cap[None])


@pytest.mark.parametrize("leaf", [1 << 7, 1 << 12])
def test_oasis_masses_are_the_core_masses(leaf, monkeypatch):
    """OASiS's mass of a full table is the core class's; of a compact table, the sum of its full
    copy, bit for bit through commits."""
    monkeypatch.setattr(PriceMass, "LEAF", leaf)
    rng = np.random.default_rng(leaf + 2)
    T, n, R = 60, 9, 6
    cap = np.where(rng.uniform(size=(n, R)) < 0.4, rng.uniform(1, 9, size=(n, R)), 0.0)
    cap[:, 0] = 3.0
    base = 10.0 ** rng.uniform(-6, 6, size=(n, R))
    cells = _Cells(T, cap, base)
    full = cells.block("price")
    compact, plain, core = _PriceMass(cells, cap), _PriceMass(full, cap), PriceMass(full, cap)
    assert not (compact.fresh or plain.fresh or core.fresh)
    for _ in range(8):
        ts, hs = np.unique(np.stack([rng.integers(0, T, 5), rng.integers(0, n, 5)]), axis=1)
        u = cells.rows_at("used", ts, hs)
        p = np.where(cap[hs] > 0, 10.0 ** rng.uniform(-6, 12, size=(len(ts), R)), base[hs])
        assert cells.put(ts, hs, u, p)
        full[ts, hs] = p
        for mass in (compact, plain, core):
            mass.update(ts, hs)
        want = np.sum(full * cap[None])
        assert compact.total() == plain.total() == core.total() == want
