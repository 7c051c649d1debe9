r"""Primal-dual price functions shared by OASiS, PD-ORS and A_online.

The three online algorithms price every (server, resource, slot) by how much of it is already
allocated. OASiS (22) and PD-ORS (12) use the exponential family

.. math:: P(g) = L\,(U/L)^{g/c},

which equals ``L`` at zero usage, ``U`` at full usage, and satisfies the differential
allocation-cost relationship :math:`dP/dg = P \ln(U/L) / c` (OASiS Lemma 3). A_online (7)-(8)
uses :math:`\lambda(f) = \theta^{f/W} - 1`, the same family shifted to start at 0
(:class:`ShiftedExponentialPrice`).

The classes are vectorized: ``U`` may be one value per resource and ``g``/``c`` arrays.

:class:`PriceMass` keeps the price term of the duals (OASiS (19), PD-ORS (10)),
:math:`\sum_{t,h,r}` price times capacity over the whole horizon, up to date as commits change
prices cell by cell, with the bits of numpy's own sum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dlsched.core import numerics


def log_bounds(log_lower, log_upper, what: str) -> tuple[float, np.ndarray]:
    r"""Validate price bounds given as logs: :math:`\ln L` finite, :math:`\ln U^r` finite and
    :math:`\ge \ln L` (to 1e-9). Returns ``(ln L, ln U)`` with ``ln U`` floored at ``ln L`` and
    read-only. ``what`` names the owner in error messages (e.g. ``"PdorsPrices"``)."""
    low = float(log_lower)
    if not math.isfinite(low):
        raise ValueError(f"{what}: ln L must be finite, got {log_lower!r}")
    up = np.asarray(log_upper, dtype=float)
    if not np.all(np.isfinite(up)) or np.any(up < low - 1e-9):
        raise ValueError(f"{what}: ln U must be finite and >= ln L={low:g}, got {up}")
    up = np.maximum(up, low)
    up.setflags(write=False)
    return low, up


@dataclass(frozen=True)
class ExponentialPrice:
    r""":math:`P(g) = L (U/L)^{g/c}` with ``L <= U`` (OASiS (22), PD-ORS (12)), held in logs.

    The parameters are stored as :math:`\ln L` and :math:`\ln U` because ``L`` can be far below the
    smallest float: OASiS's (25) divides the smallest end-of-horizon utility, and a time-critical
    sigmoid job's utility at ``T`` is about :math:`e^{-\gamma_2 (T - a - \gamma_3)}`, e.g.
    :math:`e^{-1400}`. Prices are evaluated as :math:`\exp(\ln L + (g/c)\ln(U/L))`, so a price that
    is truly below 1e-308 is 0.0 in floating point, and everything else is exact.

    Parameters
    ----------
    log_lower : float
        :math:`\ln L` (finite).
    log_upper : float or array
        :math:`\ln U` per resource (>= ``log_lower``).
    """

    log_lower: float
    log_upper: float | np.ndarray

    def __post_init__(self) -> None:
        lo = float(self.log_lower)
        up = np.asarray(self.log_upper, dtype=float)
        if not math.isfinite(lo):
            raise ValueError(f"price lower bound ln L must be finite, got {self.log_lower!r}")
        if not np.all(np.isfinite(up)) or np.any(up < lo - 1e-12):
            raise ValueError(
                f"price upper bound ln U must be finite and >= ln L={lo:g}, got {self.log_upper!r}"
            )
        object.__setattr__(self, "log_lower", lo)

    @classmethod
    def of(cls, lower: float, upper) -> ExponentialPrice:
        """From ``L > 0`` and ``U >= L`` given directly."""
        if not (isinstance(lower, (int, float, np.floating)) and lower > 0 and math.isfinite(lower)):
            raise ValueError(f"price lower bound L must be finite and > 0, got {lower!r}")
        up = np.asarray(upper, dtype=float)
        if np.any(up <= 0):
            raise ValueError(f"price upper bound U must be > 0, got {upper!r}")
        return cls(math.log(lower), numerics.log(up))

    @property
    def lower(self) -> float:
        """``L`` (0.0 if it underflows)."""
        return math.exp(self.log_lower)

    @property
    def upper(self) -> np.ndarray:
        """``U``."""
        return numerics.exp(np.asarray(self.log_upper, dtype=float))

    @property
    def log_ratio(self) -> np.ndarray:
        r""":math:`\ln(U/L)`, the slope constant of Lemma 3 (alpha of Theorem 4)."""
        return np.asarray(self.log_upper, dtype=float) - self.log_lower

    def log_price(self, used, capacity):
        r""":math:`\ln P(g)` (capacity 0 counts as full usage)."""
        used = np.asarray(used, dtype=float)
        cap = np.asarray(capacity, dtype=float)
        frac = np.divide(used, cap, out=np.ones(np.broadcast(used, cap).shape), where=cap > 0)
        return self.log_lower + frac * self.log_ratio

    def __call__(self, used, capacity):
        """Price at usage ``used`` of capacity ``capacity`` (arrays broadcast)."""
        return numerics.exp(self.log_price(used, capacity))

    def derivative(self, used, capacity):
        r""":math:`dP/dg = P \ln(U/L) / c` (Lemma 3)."""
        cap = np.asarray(capacity, dtype=float)
        return self(used, capacity) * self.log_ratio / cap


@dataclass(frozen=True)
class ShiftedExponentialPrice:
    r""":math:`\lambda(f) = \theta^{f/W} - 1` (A_online (7)-(8), exponent placement reconstructed)."""

    theta: float

    def __post_init__(self) -> None:
        if not math.isfinite(float(self.theta)) or self.theta <= 1:
            raise ValueError(f"theta must be finite and > 1, got {self.theta!r}")

    def __call__(self, used, capacity):
        """Price at usage ``used`` of capacity ``capacity``."""
        used = np.asarray(used, dtype=float)
        cap = np.asarray(capacity, dtype=float)
        frac = np.divide(used, cap, out=np.ones(np.broadcast(used, cap).shape), where=cap > 0)
        return numerics.power(float(self.theta), frac) - 1.0


class PriceMass:
    r""":math:`\sum_{t,h,r}` price times capacity of one price table, the price term of a
    primal-dual scheme's dual objective (OASiS (19), PD-ORS (10)), kept up to date cell by cell with
    the same bits as ``np.sum(price * cap[None])``, without a product table.

    numpy sums a C-contiguous float64 array pairwise over its flat values: a node of more than
    128 values is the sum of its two halves, split at ``n // 2`` rounded down to a multiple of 8,
    and ``np.sum`` of any node's values, in an array of their own, gives that node's value. This
    class keeps the values of the nodes of at most :attr:`LEAF` values (the leaves of the upper
    tree) and of every node above them. A leaf's value is ``np.sum`` of its products, computed
    afresh from the prices (the leaf's flat price values times the capacities tiled over the
    slots: the same IEEE products as ``price * cap[None]``); :meth:`update` recomputes the leaves
    over the cells that changed and their ancestors (:meth:`total` is then the root).

    Parameters
    ----------
    price : numpy.ndarray or compact table
        The price table (T, servers, R), read (never written) by the mass: a C-contiguous float64
        array, or a compact table handled by a subclass (below). Other arrays, whose temporary
        ``price * cap[None]`` numpy would lay out differently, and tables without a value per
        slot, are summed afresh by :meth:`total` (:attr:`fresh`).
    cap : numpy.ndarray
        The capacities (servers, R).

    Notes
    -----
    The owner of the table calls :meth:`update` after every write to it, with the cells written;
    a table replaced by another array needs a new mass.

    Compact tables (e.g. OASiS's tables of the live cells only) are supported by a subclass that
    overrides three hooks: :meth:`accepts` (which tables it sums incrementally; it must give them a
    ``shape`` (T, servers, R)), :meth:`flat_prices` (the flat price values of a range of the full
    table, as ``price.reshape(-1)[lo:hi]`` would be) and :meth:`dense` (the full table, a
    C-contiguous float64 array, for the sums afresh). :meth:`tiled` repeats a per-slot row over
    any leaf's range, for a subclass that precomputes one (set it up in :meth:`prepare`).
    """

    LEAF = 1 << 12
    """Values per leaf at most: a leaf is summed afresh by ``np.sum`` when a cell in it changes."""

    def __init__(self, price, cap: np.ndarray) -> None:
        self.price, self.cap = price, cap
        self.fresh = not self.accepts(price) or int(np.prod(price.shape[1:])) == 0
        if self.fresh:
            return
        T, n, R = price.shape
        self.width, self.slot = R, n * R  # flat values per (slot, server) and per slot
        self._reps = -(-(self.slot + self.LEAF) // self.slot)  # a leaf starting anywhere in a slot fits
        self.cap_tiled = self.tiled(np.ascontiguousarray(cap).reshape(-1))
        self.prepare()
        self.bounds: list[tuple[int, int]] = []  # the leaves' flat ranges, left to right
        inner: list[tuple[int, int]] = []  # inner nodes' children, children before parents
        self._split(0, T * self.slot, inner)
        # node values: the leaves (in bounds' order), then the inner nodes (the root last)
        self.n_leaves = n_leaves = len(self.bounds)

        def at(node: int) -> int:
            return node if node >= 0 else n_leaves - node - 1

        self.program = [(at(left), at(right)) for left, right in inner]
        self.parent = [-1] * (n_leaves + len(inner))
        for j, (left, right) in enumerate(self.program):
            self.parent[left] = self.parent[right] = n_leaves + j
        self.lo = np.array([lo for lo, _ in self.bounds], dtype=np.int64)
        self.values = [self._leaf(i) for i in range(n_leaves)] + [0.0] * len(inner)
        for j, (left, right) in enumerate(self.program):  # children come first
            self.values[n_leaves + j] = self.values[left] + self.values[right]

    # ------------------------------------------------------------ hooks of compact tables
    def accepts(self, price) -> bool:
        """Whether ``price`` is summed incrementally: here a C-contiguous float64 (T, servers, R)
        array with values."""
        return (
            isinstance(price, np.ndarray) and price.dtype == np.float64 and price.flags.c_contiguous
            and price.ndim == 3 and price.size > 0
        )

    def prepare(self) -> None:
        """Called once the layout (:attr:`slot`, :attr:`width`) is known, before the first leaf is
        summed; nothing to do for a plain array."""

    def flat_prices(self, lo: int, hi: int) -> np.ndarray:
        """The flat price values ``lo..hi-1`` of the (T, servers, R) table (a view for an array)."""
        return self.price.reshape(-1)[lo:hi]

    def dense(self) -> np.ndarray:
        """The whole price table (T, servers, R), as summed afresh."""
        return self.price

    def tiled(self, row: np.ndarray) -> np.ndarray:
        """A slot's flat values ``row`` (servers * R) repeated so that ``out[lo % slot:][:hi - lo]``
        covers any leaf ``lo..hi-1``."""
        return np.tile(row, self._reps)

    # ------------------------------------------------------------------------ the tree
    def _split(self, lo: int, n: int, inner: list) -> int:
        """The pairwise tree over ``flat[lo:lo + n]`` down to leaves of <= LEAF values (appended to
        ``bounds``; inner nodes to ``inner``); returns the node: a leaf's index in ``bounds``, or
        ``-1 - j`` for the ``j``-th inner node."""
        if n <= self.LEAF:
            self.bounds.append((lo, lo + n))
            return len(self.bounds) - 1
        n2 = n // 2
        n2 -= n2 % 8
        left = self._split(lo, n2, inner)
        right = self._split(lo + n2, n - n2, inner)
        inner.append((left, right))
        return -len(inner)

    def _leaf(self, i: int) -> float:
        """``np.sum`` of leaf ``i``'s products, computed afresh."""
        lo, hi = self.bounds[i]
        off = lo % self.slot
        prod = self.flat_prices(lo, hi) * self.cap_tiled[off : off + hi - lo]  # as price * cap[None]
        return float(np.sum(prod))

    def update(self, ts, hs=None) -> None:
        """The prices of slots ``ts`` changed (with ``hs``: of the (slot, server) pairs ``(ts, hs)``
        only): recompute the leaves over them and the nodes above."""
        if self.fresh:
            return
        ts = np.asarray(ts, dtype=np.int64)
        if hs is None:
            start = np.unique(ts) * self.slot
            end = start + self.slot
        else:
            start = (ts * (self.slot // self.width) + np.asarray(hs, dtype=np.int64)) * self.width
            end = start + self.width
        first = np.searchsorted(self.lo, start, side="right") - 1
        last = np.searchsorted(self.lo, end - 1, side="right") - 1
        dirty: set[int] = set()
        for f, g in set(zip(first.tolist(), last.tolist(), strict=True)):
            dirty.update(range(f, g + 1))
        values, parent, above = self.values, self.parent, set()
        for i in dirty:
            values[i] = self._leaf(i)
            p = parent[i]
            while p >= 0 and p not in above:
                above.add(p)
                p = parent[p]
        for p in sorted(above):  # children before parents
            left, right = self.program[p - self.n_leaves]
            values[p] = values[left] + values[right]

    def afresh(self):
        """``np.sum(price * cap[None])`` computed from the whole table."""
        return np.sum(self.dense() * self.cap[None])

    def total(self):
        """``np.sum(price * cap[None])``, the same float."""
        if self.fresh:
            return self.afresh()
        out = self.values[-1]
        # numpy starts the reduction from its identity, which only shows on a root of -0.0 (the
        # identity + 0.0 is +0.0 for either zero): that case alone is summed afresh
        return out if out != 0.0 or not math.copysign(1.0, out) < 0 else self.afresh()
