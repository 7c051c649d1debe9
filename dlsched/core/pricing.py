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


@dataclass(frozen=True)
class ExponentialPrice:
    """:math:`P(g) = L (U/L)^{g/c}` with ``0 < L <= U`` (OASiS (22), PD-ORS (12)).

    Parameters
    ----------
    lower : float
        ``L``: the price at zero usage.
    upper : float or array
        ``U``: the price at full usage (one value per resource, broadcast against ``g``).
    """

    lower: float
    upper: float | np.ndarray

    def __post_init__(self) -> None:
        lo = float(self.lower)
        up = np.asarray(self.upper, dtype=float)
        if not math.isfinite(lo) or lo <= 0:
            raise ValueError(f"price lower bound L must be finite and > 0, got {self.lower!r}")
        if not np.all(np.isfinite(up)) or np.any(up < lo):
            raise ValueError(f"price upper bound U must be finite and >= L={lo:g}, got {self.upper!r}")
        object.__setattr__(self, "lower", lo)

    @property
    def log_ratio(self) -> np.ndarray:
        """:math:`\\ln(U/L)`, the slope constant of Lemma 3 (alpha of Theorem 4)."""
        return np.log(np.asarray(self.upper, dtype=float) / self.lower)

    def __call__(self, used, capacity):
        """Price at usage ``used`` of capacity ``capacity`` (arrays broadcast; capacity 0 gives U)."""
        used = np.asarray(used, dtype=float)
        cap = np.asarray(capacity, dtype=float)
        frac = np.divide(used, cap, out=np.ones(np.broadcast(used, cap).shape), where=cap > 0)
        return self.lower * np.exp(frac * self.log_ratio)

    def derivative(self, used, capacity):
        """:math:`dP/dg = P \\ln(U/L) / c` (Lemma 3)."""
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
        return np.power(float(self.theta), frac) - 1.0
