"""OASiS's incremental dual objective (issue 23): :class:`dlsched.oasis.policy._PriceMass` keeps
``np.sum(price * cap[None])`` cell by cell, without a product table, and must give numpy's own
sum bit for bit (it rebuilds numpy's pairwise summation tree; compact tables:
``tests/test_oasis_memory.py``). If a numpy upgrade changes how ``np.sum`` splits an array,
this test fails before any schedule does."""

from __future__ import annotations

import numpy as np
import pytest

from dlsched.oasis.policy import _PriceMass


@pytest.mark.parametrize(
    "shape", [(3, 4, 2), (40, 7, 3), (1200, 352, 1), (2500, 60, 3), (97, 1031, 5), (1, 1, 1)]
)
@pytest.mark.parametrize("seed", [0, 1])
def test_price_mass_is_numpys_sum_through_updates(shape, seed, monkeypatch):
    rng = np.random.default_rng(seed)
    if shape[0] * shape[1] * shape[2] > 100_000:
        monkeypatch.setattr(_PriceMass, "LEAF", 1 << 12)  # a deep upper tree on a mid-size table
    # magnitudes over 18 decades: a sum grouped other than numpy's tree differs in its last bits
    price = 10.0 ** rng.uniform(-6.0, 12.0, size=shape) * rng.uniform(1.0, 2.0, size=shape)
    cap = rng.integers(0, 9, size=shape[1:]).astype(float) * rng.uniform(0.5, 2.0, size=shape[1:])
    mass = _PriceMass(price, cap)
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
    mass = _PriceMass(price, cap)
    price[2] += 1.0
    mass.update(np.array([2]))
    assert mass.fresh and mass.total() == np.sum(price * cap[None])


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_a_zero_table_keeps_numpys_sign(zero):
    """Prices that underflow to 0 (L far below the smallest double, the whole Philly trace): the
    root of +0.0 is numpy's sum without summing afresh; a root of -0.0 is summed afresh."""
    price = np.full((50, 9, 3), zero)
    cap = np.ones((9, 3))
    mass = _PriceMass(price, cap)
    want = np.sum(price * cap[None])
    assert mass.total() == want and np.signbit(mass.total()) == np.signbit(want)
    price[4, 2] = 1e-300
    mass.update(np.array([4]), np.array([2]))
    assert mass.total() == np.sum(price * cap[None]) == 1e-300 * 3


@pytest.mark.parametrize("leaf", [1 << 7, 1 << 10, 1 << 18])
def test_price_mass_through_cell_updates(leaf, monkeypatch):
    """Commits change (slot, server) cells: only the leaves over them are summed again."""
    monkeypatch.setattr(_PriceMass, "LEAF", leaf)
    rng = np.random.default_rng(leaf)
    shape = (300, 41, 7)
    price = 10.0 ** rng.uniform(-6.0, 12.0, size=shape)
    cap = rng.integers(0, 9, size=shape[1:]).astype(float)
    mass = _PriceMass(price, cap)
    for _ in range(10):
        ts, hs = np.unique(np.stack([rng.integers(0, shape[0], 6), rng.integers(0, shape[1], 6)]), axis=1)
        price[ts, hs] *= np.exp(rng.uniform(0.0, 3.0, size=(len(ts), shape[2])))
        mass.update(ts, hs)
        assert mass.total() == np.sum(price * cap[None])
