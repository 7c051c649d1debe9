"""dlsched.core.numerics: dispatch-invariant elementwise math and tolerant decisions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dlsched.core import numerics as N

finite = st.floats(-700, 700, allow_nan=False)


@given(finite)
def test_exp_within_one_ulp_of_libm(x):
    assert abs(N.exp(x) - math.exp(x)) <= math.ulp(math.exp(x))


@given(st.floats(1e-300, 1e300))
def test_log_within_one_ulp_of_libm(x):
    assert abs(N.log(x) - math.log(x)) <= max(math.ulp(math.log(x)), 5e-324)


@given(st.floats(1e-3, 1e3), st.floats(-50, 50))
def test_power_close_to_libm(b, e):
    ref = math.pow(b, e)
    assert abs(N.power(b, e) - ref) <= 2 * math.ulp(ref)


def test_expm1_log1p_accurate_near_zero():
    x = np.array([1e-20, 1e-10, -1e-12, 0.5])
    np.testing.assert_allclose(N.expm1(x), [math.expm1(v) for v in x], rtol=1e-15)
    np.testing.assert_allclose(N.log1p(x), [math.log1p(v) for v in x], rtol=1e-15)


def test_shapes_and_types_follow_numpy():
    assert isinstance(N.exp(1.0), np.float64) and N.exp(1.0).ndim == 0
    a = N.exp(np.zeros((2, 3)))
    assert a.shape == (2, 3) and a.dtype == np.float64
    assert N.log(0.0) == -math.inf
    assert math.isnan(N.log(-1.0))
    assert N.exp(-800.0) == 0.0 and N.exp(800.0) == math.inf


def test_power_special_cases_and_bad_base():
    np.testing.assert_array_equal(N.power(0.0, np.array([0.0, 1.0, 2.5])), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(N.power(np.array([0.0, 3.0]), 0.0), [1.0, 1.0])
    assert N.power(2.0, 10.0) == 1024.0
    with pytest.raises(ValueError, match="base must be >= 0"):
        N.power(-2.0, 0.5)


def test_dot_is_the_pairwise_sum_of_products_not_blas():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 1000)), rng.normal(size=1000)
    np.testing.assert_array_equal(N.dot(a, b), np.sum(a * b, axis=-1))
    np.testing.assert_allclose(N.dot(a, b), a @ b, rtol=1e-12)
    assert N.dot(a[0], b) == np.sum(a[0] * b)


def test_tolerant_comparisons():
    assert 0.1 + 0.2 != 0.3 and N.is_close(0.1 + 0.2, 0.3)
    assert not N.greater(0.1 + 0.2, 0.3) and not N.less(0.3, 0.1 + 0.2)
    assert N.greater(1.0 + 1e-6, 1.0) and N.less(1.0, 1.0 + 1e-6)
    assert N.is_close(math.inf, math.inf) and not N.is_close(math.nan, math.nan)
    assert N.positive(1e-300) and not N.positive(0.0)  # no absolute floor
    assert not N.positive((0.1 + 0.2) - 0.3, scale=0.3)
    assert not N.positive(1e-3, scale=1e7) and N.positive(1e-1, scale=1e7)
    np.testing.assert_array_equal(N.greater(np.array([1.0, 2.0 + 1e-12, 3.0]), 2.0), [False, False, True])


def test_argmin_argmax_ties_go_to_smallest_index_or_key():
    v = np.array([2 / 3, 1 - 1 / 3, 0.7])  # equal in exact arithmetic, unequal in floats
    assert v[0] != v[1]
    assert N.argmin(v) == 0 and N.argmin(v[::-1]) == 1
    assert N.argmin(v, keys=[5, 1, 0]) == 1
    assert N.argmax([0.3, 0.1 + 0.2, 0.2]) == 0
    assert N.argmin([np.nan, 3.0, 1.0]) == 2
    assert N.argmin([5.0, 1.0 + 1e-6, 1.0]) == 2  # above the tolerance: the strict minimum
    with pytest.raises(ValueError):
        N.argmin([np.nan])


def test_order_ties_by_key_then_index_and_classes_do_not_chain():
    v = [0.3, 0.1 + 0.2, 0.1, 0.3 * (1 + 3e-16)]
    np.testing.assert_array_equal(N.order(v), [2, 0, 1, 3])
    np.testing.assert_array_equal(N.order(v, [0, 0, 0, -1]), [2, 3, 0, 1])
    step = 0.6e-9
    chain = [1.0, 1.0 + step, 1.0 + 2 * step, 1.0 + 3 * step]  # neighbours close, ends not
    cls = N.tie_classes(chain)
    assert cls[0] == cls[1] and cls[0] != cls[3]
    np.testing.assert_array_equal(N.tie_classes([0.0, 24.0, np.inf, np.inf]), [0, 1, 2, 2])
    np.testing.assert_array_equal(N.tie_classes([1e-89, 1e-89 * (1 + 1e-15), 3e-89]), [0, 0, 1])
    np.testing.assert_array_equal(N.tie_classes([3.0, 1.0, 1.0, 2.0]), [2, 0, 0, 1])  # exact fast path


def test_row_wise_classes_and_order_equal_the_one_dimensional_rule():
    rng = np.random.default_rng(0)
    pool = np.array([0.3, 0.1 + 0.2, 1.0, 1.0 + 1e-15, 1.0 + 1e-6, 2.0, np.inf, -np.inf])
    v = rng.choice(pool, size=(40, 9))
    key = rng.integers(0, 3, size=9)
    rows_cls, rows_ord = N.tie_classes(v), N.order(v, key)
    for i, row in enumerate(v):
        np.testing.assert_array_equal(rows_cls[i], N.tie_classes(row))
        np.testing.assert_array_equal(rows_ord[i], N.order(row, key))
        slow = sorted(range(row.size), key=lambda j: (N.tie_classes(row)[j], key[j], j))
        np.testing.assert_array_equal(rows_ord[i], slow)


def test_scalar_fast_paths_agree_with_the_array_paths():
    for a, b in [(0.3, 0.1 + 0.2), (1.0, 1.0 + 1e-6), (0.0, 0.0), (math.inf, math.inf), (1e-89, 2e-89)]:
        assert N.is_close(a, b) == bool(N.is_close(np.float64(a), np.array(b)))
        assert N.greater(a, b) == bool(N.greater(np.array(a), b))
        assert N.less(a, b) == bool(N.less(np.array(a), b))
        assert N.tolerance(a, b) == float(N.tolerance(np.array(a), np.array(b)))


def test_argmin_1d_equals_argmin_on_ties_infinities_and_nan():
    """The hot-loop fast path (A_online's PS choice and Alg. 4 line 37) picks what argmin picks."""
    rng = np.random.default_rng(5)
    for _ in range(2000):
        n = int(rng.integers(1, 9))
        v = rng.choice([0.0, 1.0, 1.0 + 5e-10, 1.0 + 2e-9, -3.0, np.inf, -np.inf, np.nan], size=n)
        v = v * rng.choice([1.0, 1e12, 1e-12])
        if np.isnan(v).all():
            continue
        assert N.argmin_1d(v) == N.argmin(v), v
