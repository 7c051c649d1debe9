r"""Machine-invariant floating point: the same bits on every x86-64 CPU, and tolerant decisions.

Why this module exists
----------------------
numpy dispatches its elementwise transcendental loops (``exp``, ``log``, ``power``, ``expm1``,
``log1p``, ``log2``, ...) at run time to the widest SIMD the CPU has. On numpy 2.4 the AVX-512
(``X86_V4``) loops of ``np.exp``/``np.log``/``np.power`` round differently in the last bit from
the AVX2 (``X86_V3``) and baseline loops, and OpenBLAS picks a kernel per CPU (``SkylakeX``,
``Haswell``, ...) and splits a dot product over its threads, so ``a @ b`` also changes in the last
bit with the CPU and ``OPENBLAS_NUM_THREADS``. The online schedulers turn such a last-bit
difference into a different admission, sort order or argmin, so a schedule computed on an
AVX-512 machine differed from the same seed's schedule on an AVX2 machine (issue 19; measured
with ``benchmarks/bench_float_paths.py`` and ``tests/test_machine_invariance.py``).

Two rules, applied in every wing:

1. **Values a decision reads are computed by operations whose result does not depend on SIMD
   width or thread count.** The functions below evaluate ``exp``/``log``/``power``/``expm1``/
   ``log1p`` in x87 long double (numpy's long-double loops call the C library's ``expl``/``logl``;
   numpy has no SIMD loops for long double) and round once to float64, so the result is the same
   on every x86-64 CPU and dispatch level (and within 1 ulp of the exact value). Dot products use
   :func:`dot` (numpy's fixed-order pairwise sum of the elementwise products), never BLAS. Plain
   ``+ - * /``, ``np.sum``, ``np.cumsum``, ``np.sqrt``, ``np.maximum`` and ``math.*`` on Python
   floats are already invariant (IEEE 754 basic operations; numpy's reductions use a fixed
   pairwise order whatever the SIMD width; glibc's ``exp``/``log`` pick the same FMA variant on
   every AVX2 or AVX-512 CPU). Keep the vectorised numpy fast paths where the value is only
   displayed, never compared.

2. **A discrete choice that compares computed floats uses a tolerance and breaks ties by a
   deterministic key.** Two values within ``REL_TOL`` of each other (relative to the larger
   magnitude, plus ``ABS_TOL``) are *equal* for a decision; among equal candidates the smallest
   index (or the wing's documented key, e.g. job id or "PS before worker") wins. Use
   :func:`is_close`, :func:`greater`, :func:`positive`, :func:`argmin`, :func:`argmax` and
   :func:`order`. The tolerance sits many orders of magnitude above rounding noise (about 1e-16
   relative per operation) and many below any difference a paper's rule means to act on.

Each wing names where it applies the rules next to the spec lines (search for ``REL_TOL`` and
"tolerance" in ``dlsched/<wing>/``).

All functions accept scalars or array-likes and return what the numpy function would: an array
for an array, a ``numpy.float64`` for a scalar.
"""

from __future__ import annotations

import math

import numpy as np

REL_TOL: float = 1e-9
"""Relative tolerance of every decision comparison (two values within it are a tie)."""

ABS_TOL: float = 0.0
"""Absolute floor of the tolerance: none. Prices of OASiS and PD-ORS live far below 1 (``L`` of
OASiS (25) is about 1e-89 on the paper's workload), where any fixed floor would tie values that
differ by orders of magnitude. A value that should be 0 up to rounding is tested with
:func:`positive` against the magnitude of the operands it was computed from."""

_LD = np.longdouble


def _out(res, scalar: bool):
    with np.errstate(over="ignore"):  # a long double beyond float64's range rounds to inf
        res = np.asarray(res, dtype=np.float64)
    return res[()] if scalar else res


def _ld(x) -> tuple[np.ndarray, bool]:
    scalar = np.ndim(x) == 0
    return np.asarray(x, dtype=np.float64).astype(_LD), scalar


def exp(x):
    """``e**x``, the same bits on every x86-64 CPU (long double, rounded once)."""
    a, scalar = _ld(x)
    return _out(np.exp(a), scalar)


def log(x):
    """Natural log, the same bits on every x86-64 CPU (``log(0) = -inf``, negative -> nan)."""
    a, scalar = _ld(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out(np.log(a), scalar)


def expm1(x):
    """``e**x - 1`` (accurate near 0), the same bits on every x86-64 CPU."""
    a, scalar = _ld(x)
    return _out(np.expm1(a), scalar)


def log1p(x):
    """``log(1 + x)`` (accurate near 0), the same bits on every x86-64 CPU."""
    a, scalar = _ld(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out(np.log1p(a), scalar)


def power(base, exponent):
    """``base**exponent`` for ``base >= 0``, the same bits on every x86-64 CPU.

    Evaluated as ``exp(exponent * log(base))`` in long double (about 1e-19 relative error before
    the one rounding to float64); ``power(0, e)`` is 0 for ``e > 0`` and 1 for ``e == 0``, and
    ``power(b, 0)`` is 1 for every ``b``, as for ``np.power``.

    Raises
    ------
    ValueError
        If ``base`` has a negative entry (``base`` named with its smallest value).
    """
    b, sb = _ld(base)
    e, se = _ld(exponent)
    if np.any(b < 0):
        raise ValueError(f"power: base must be >= 0, got min(base)={float(np.min(b))!r}")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        res = np.exp(e * np.log(b))
    res = np.where(e == 0, _LD(1), np.where((b == 0) & (e > 0), _LD(0), res))
    return _out(res, sb and se)


def dot(a, b, axis: int = -1):
    """``sum(a * b)`` over ``axis`` in numpy's fixed pairwise order (never BLAS).

    BLAS (``@``, ``np.dot``) picks its kernel and its split over threads by CPU and
    ``OPENBLAS_NUM_THREADS``; this does not. For 2-d ``a`` and 1-d ``b`` it is the matrix-vector
    product ``a @ b``.
    """
    prod = np.multiply(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    return np.sum(prod, axis=axis)


def _scalar(x) -> bool:
    return isinstance(x, (float, int)) and not isinstance(x, bool)


def tolerance(*values):
    """The tie tolerance of a comparison among ``values`` (typically ``a, b``, plus the operands
    they were computed from): ``REL_TOL * max |v| + ABS_TOL``, elementwise for arrays; a
    non-finite magnitude counts 0, so an infinity ties only with itself."""
    if all(_scalar(v) for v in values):  # plain floats: no numpy round trip (monitor loops)
        m = max(abs(v) for v in values)
        return REL_TOL * (m if math.isfinite(m) else 0.0) + ABS_TOL
    with np.errstate(invalid="ignore"):
        scale = np.abs(np.asarray(values[0], dtype=np.float64))
        for v in values[1:]:
            scale = np.maximum(scale, np.abs(np.asarray(v, dtype=np.float64)))
        tol = REL_TOL * np.where(np.isfinite(scale), scale, 0.0) + ABS_TOL
    return float(tol) if np.ndim(tol) == 0 else tol


def is_close(a, b, *scale):
    """``|a - b| <= tolerance(a, b, *scale)``; equal infinities are close, nan is never close."""
    if _scalar(a) and _scalar(b) and all(_scalar(v) for v in scale):
        return a == b or abs(a - b) <= tolerance(a, b, *scale)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        res = (a == b) | (np.abs(a - b) <= tolerance(a, b, *scale))
    return bool(res) if res.ndim == 0 else res


def greater(a, b, *scale):
    """``a > b`` by more than the tolerance of ``a``, ``b`` (and ``scale``): a strict decision
    that a rounding cannot flip; nan -> False."""
    if _scalar(a) and _scalar(b) and all(_scalar(v) for v in scale):
        return a > b and not is_close(a, b, *scale)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        res = (a > b) & ~is_close(a, b, *scale)
    return bool(res) if np.ndim(res) == 0 else res


def less(a, b, *scale):
    """``a < b`` by more than the tolerance (see :func:`greater`)."""
    return greater(b, a, *scale)


def positive(x, scale=0.0):
    """``x > 0`` by more than the tolerance of ``scale`` (e.g. ``payoff = u - c`` with
    ``scale = max(|u|, |c|)``): ``x > REL_TOL * |scale| + ABS_TOL``. Without a scale this is
    plain ``x > 0``."""
    if _scalar(x) and _scalar(scale):
        return x > tolerance(scale, 0.0)
    x = np.asarray(x, dtype=np.float64)
    res = x > tolerance(scale, 0.0)
    return bool(res) if res.ndim == 0 else res


def argmin(values, keys=None) -> int:
    """Index of the smallest value; values within the tolerance of the minimum tie, and the tie
    goes to the smallest ``keys`` entry (default: the smallest index). nan never wins; all nan
    (or empty) raises ``ValueError``."""
    v = np.asarray(values, dtype=np.float64).ravel()
    ok = ~np.isnan(v)
    if not ok.any():
        raise ValueError(f"argmin: no comparable value among {v.size}")
    m = float(v[ok].min())
    cand = np.flatnonzero(ok & ((v == m) | (v <= m + tolerance(m, m))))
    if keys is None or cand.size == 1:
        return int(cand[0])
    k = np.asarray(keys).ravel()[cand]
    return int(cand[np.lexsort((cand, k))[0]])


def argmin_1d(v: np.ndarray) -> int:
    """:func:`argmin` of a 1-d float64 array without keys, for hot loops: the same tolerance
    (REL_TOL of the minimum) and the same tie to the smallest index, without the general
    conversions and checks (an array holding nan goes through :func:`argmin`)."""
    if np.isnan(v).any():
        return argmin(v)
    m = float(v.min())
    a = abs(m)
    lim = m + (REL_TOL * (a if math.isfinite(a) else 0.0) + ABS_TOL)
    return int(np.argmax((v == m) | (v <= lim)))


def argmax(values, keys=None) -> int:
    """Index of the largest value, ties as in :func:`argmin` (smallest key / index wins)."""
    v = np.asarray(values, dtype=np.float64)
    return argmin(-v, keys)


def tie_classes(values) -> np.ndarray:
    """Tie classes along the last axis: the rank of each value after merging the values that lie
    within the tolerance of the *first* value of their run in sorted order (so the classes do not
    chain). Equal ranks are ties; an infinity ties only with an equal infinity; nan sorts last
    and ties with nothing. Arrays of any shape are ranked row by row (one vectorised step per
    column)."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 0:
        return np.zeros((), dtype=np.int64)
    if v.ndim == 1:
        return _tie_classes_1d(v, np.argsort(v, kind="stable"))
    idx = np.argsort(v, axis=-1, kind="stable")
    sv = np.take_along_axis(v, idx, axis=-1)
    ranks_sorted = np.zeros(sv.shape, dtype=np.int64)
    n = sv.shape[-1]
    if n > 1:
        with np.errstate(invalid="ignore"):
            gap = np.diff(sv, axis=-1)
            near_any = (gap > 0) & (gap <= tolerance(sv[..., 1:], sv[..., :-1]))
        if not near_any.any():  # ties are exact equalities: ranks of the distinct values
            new = sv[..., 1:] != sv[..., :-1]  # equal infinities stay one class
            ranks_sorted[..., 1:] = np.cumsum(new, axis=-1)
        else:
            head = sv[..., 0]
            rank = np.zeros(head.shape, dtype=np.int64)
            for j in range(1, n):
                x = sv[..., j]
                with np.errstate(invalid="ignore"):
                    same = (x == head) | (np.abs(x - head) <= tolerance(x, head))
                rank = rank + ~same
                head = np.where(same, head, x)
                ranks_sorted[..., j] = rank
    ranks = np.empty_like(ranks_sorted)
    np.put_along_axis(ranks, idx, ranks_sorted, axis=-1)
    return ranks


def _near_ties(sv: np.ndarray) -> np.ndarray:
    """Gaps of the sorted 1-d ``sv`` that are positive but within the tolerance of their two
    values: the only places where :func:`tie_classes` needs its head-by-head pass."""
    with np.errstate(invalid="ignore"):  # inf - inf: nan, never a near tie
        gap = np.diff(sv)
    lo, hi = float(sv[0]), float(sv[-1])
    if math.isfinite(lo) and math.isfinite(hi):  # sorted, so nan or infinity would sit at an end
        m = max(abs(lo), abs(hi))  # the largest magnitude
        pos = gap[gap > 0]
        # every pair's tolerance is at most REL_TOL * m + ABS_TOL: gaps all above it are not near
        if pos.size == 0 or float(pos.min()) > REL_TOL * m + ABS_TOL:
            return np.zeros(gap.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        return (gap > 0) & (gap <= tolerance(sv[1:], sv[:-1]))


def _tie_classes_1d(v: np.ndarray, idx: np.ndarray, near: np.ndarray | None = None) -> np.ndarray:
    """:func:`tie_classes` of a 1-d ``v`` whose stable argsort is ``idx`` (plain indexing instead of
    the ``*_along_axis`` calls; the same arithmetic and the same ranks)."""
    sv = v[idx]
    n = sv.size
    ranks_sorted = np.zeros(n, dtype=np.int64)
    if n > 1:
        if near is None:
            near = _near_ties(sv)
        if not near.any():
            ranks_sorted[1:] = np.cumsum(sv[1:] != sv[:-1])
        else:
            head, rank = sv[0], 0
            for j in range(1, n):
                x = sv[j]
                with np.errstate(invalid="ignore"):
                    same = (x == head) | (np.abs(x - head) <= tolerance(x, head))
                rank += not same
                if not same:
                    head = x
                ranks_sorted[j] = rank
    ranks = np.empty_like(ranks_sorted)
    ranks[idx] = ranks_sorted
    return ranks


def order(values, *keys) -> np.ndarray:
    """Ascending order along the last axis of ``values`` with ties (within the tolerance, see
    :func:`tie_classes`) broken by ``keys`` (first key first, each broadcast against
    ``values``), then by position. Returns the permutation (row by row for arrays of more than
    one dimension)."""
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 0:
        v = v.reshape(1)
    if v.ndim == 1 and not keys:
        # fast path, same permutation: with no near tie the tie classes are the distinct values
        # (ranked in sorted order, every nan its own class), so the stable argsort -- equal values
        # by position -- is already the order by (class, position)
        idx = np.argsort(v, kind="stable")
        near = _near_ties(v[idx]) if v.size > 1 else np.zeros(0, dtype=bool)
        if not near.any():
            return idx
        ranks = _tie_classes_1d(v, idx, near)
        return np.lexsort((np.arange(v.size), ranks))
    pos = np.broadcast_to(np.arange(v.shape[-1]), v.shape)
    cols = [pos] + [np.broadcast_to(np.asarray(k), v.shape) for k in reversed(keys)] + [tie_classes(v)]
    return np.lexsort(cols, axis=-1)
