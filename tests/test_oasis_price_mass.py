"""OASiS's incremental dual objective (issue 23): :class:`dlsched.oasis.policy._PriceMass` keeps
``np.sum(price * cap[None])`` slot by slot and must give numpy's own sum bit for bit (it rebuilds
numpy's pairwise summation tree). If a numpy upgrade changes how ``np.sum`` splits an array,
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
