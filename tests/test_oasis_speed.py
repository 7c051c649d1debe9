"""The fast paths of OASiS's Algorithm 2 (dlsched.oasis.policy) against plain references.

Each fast path must give bit-identical results: the sort order of lines 23/33 with the
tolerant tie rule (:func:`dlsched.core.numerics.order`), and the greedy COST_t table.
"""

from __future__ import annotations

import numpy as np
import pytest

from dlsched.core import numerics
from dlsched.oasis import policy as P


def _rows_with_near_ties(rng: np.random.Generator, S: int, n: int) -> np.ndarray:
    base = rng.choice([1e-90, 1e-3, 1.0, 7.5], size=(S, 1)) * rng.uniform(1, 2, size=(S, n))
    # exact ties, near ties (within and just beyond REL_TOL), chains of near ties, zeros
    k = rng.integers(0, n, size=(S, n))
    base = np.where(rng.random((S, n)) < 0.3, np.take_along_axis(base, k, axis=1), base)
    wiggle = rng.choice([0.0, 0.3e-9, 0.9e-9, 1.1e-9, 2e-9], size=(S, n))
    out = base * (1 + wiggle)
    out[rng.random((S, n)) < 0.05] = 0.0
    return out


@pytest.mark.parametrize("seed", range(8))
def test_price_order_is_numerics_order(seed):
    rng = np.random.default_rng(seed)
    price = _rows_with_near_ties(rng, 40, 12)
    assert np.array_equal(P._price_order(price), numerics.order(price))


def test_price_order_without_near_ties():
    rng = np.random.default_rng(1)
    price = np.round(rng.uniform(0, 5, size=(30, 9)), 1)  # exact ties only
    assert np.array_equal(P._price_order(price), numerics.order(price))


def _greedy_reference(price, cap, counts, limit):
    """The greedy cost with take_along_axis and np.where (the form before the fast path)."""
    order = numerics.order(price)
    ps = np.take_along_axis(price, order, axis=1)
    cs = np.take_along_axis(cap, order, axis=1)
    cc = np.cumsum(cs, axis=1)
    full = np.cumsum(ps * cs, axis=1)
    counts = np.asarray(counts, dtype=np.int64)
    S, n = cs.shape
    span = int(max(cc[:, -1].max(initial=0), counts.max(initial=0))) + 1
    rows = np.arange(S, dtype=np.int64)[:, None] * span
    j = np.searchsorted((cc + rows).ravel(), (counts[None, :] + rows).ravel()).reshape(S, -1)
    j = np.minimum(j - np.arange(S)[:, None] * n, n - 1)
    before_cc = np.where(j > 0, np.take_along_axis(cc, np.maximum(j - 1, 0), axis=1), 0)
    before = np.where(j > 0, np.take_along_axis(full, np.maximum(j - 1, 0), axis=1), 0.0)
    acc = before + np.take_along_axis(ps, j, axis=1) * (counts[None, :] - before_cc)
    feasible = (cc[:, -1:] >= counts[None, :]) & (counts[None, :] <= limit)
    return np.where(feasible, acc, np.inf), order, cs


@pytest.mark.parametrize("seed", range(6))
def test_greedy_cost_bit_identical(seed):
    rng = np.random.default_rng(seed)
    S, n = 25, 10
    price = _rows_with_near_ties(rng, S, n)
    cap = rng.integers(0, 4, size=(S, n)).astype(np.int64)
    counts = np.arange(0, 31)
    got = P._greedy_cost(price, cap, counts, 24)
    ref = _greedy_reference(price, cap, counts, 24)
    for a, b in zip(got, ref, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()
