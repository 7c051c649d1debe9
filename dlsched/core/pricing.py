r"""Primal-dual price functions shared by OASiS, PD-ORS and A_online.

The three online algorithms price every (server, resource, slot) by how much of it is already
allocated. OASiS (22) and PD-ORS (12) use the exponential family

.. math:: P(g) = L\,(U/L)^{g/c},

which equals ``L`` at zero usage, ``U`` at full usage, and satisfies the differential
allocation-cost relationship :math:`dP/dg = P \ln(U/L) / c` (OASiS Lemma 3). A_online (7)-(8)
uses :math:`\lambda(f) = \theta^{f/W} - 1`, the same family shifted to start at 0
(:class:`ShiftedExponentialPrice`).

The classes are vectorized: ``U`` may be one value per resource and ``g``/``c`` arrays.
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
