"""The :class:`Placement` of one job in one slot: workers and parameter servers per server.

A module of its own, importing nothing of :mod:`dlsched`, so that :mod:`dlsched.core.jobs` (job
models read placements) and :mod:`dlsched.core.schedule` (decisions and the checker read job
specs) both import it one way, without importing each other. Import it from
:mod:`dlsched.core.schedule` as before (re-exported there); both paths give the same class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["EMPTY", "Placement"]


def _pairs(counts, what: str) -> tuple[tuple[int, int], ...]:
    items = counts.items() if isinstance(counts, Mapping) else counts
    out: dict[int, int] = {}
    for pair in items:
        try:
            s, c = pair
        except (TypeError, ValueError):
            raise ValueError(f"{what}: expected (server, count) pairs, got {pair!r}") from None
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"{what}: server index must be an integer >= 0, got {s!r}")
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 0:
            raise ValueError(f"{what}: count on server {s} must be an integer >= 0, got {c!r}")
        if c:
            out[int(s)] = out.get(int(s), 0) + int(c)
    return tuple(sorted(out.items()))


@dataclass(frozen=True)
class Placement:
    """Workers and PS of one job in one slot, as sorted ``(server, count)`` pairs.

    Build it with :meth:`of`, which accepts mappings or pair lists and drops zero counts.
    ``is_empty`` is True when the job has no task.
    """

    workers: tuple[tuple[int, int], ...] = ()
    ps: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "workers", _pairs(self.workers, "placement.workers"))
        object.__setattr__(self, "ps", _pairs(self.ps, "placement.ps"))
        # True when the job has no task (a plain attribute: read on every step of a simulation).
        object.__setattr__(self, "is_empty", not self.workers and not self.ps)

    @classmethod
    def of(cls, workers=(), ps=()) -> Placement:
        """Placement from ``{server: count}`` mappings or ``[(server, count), ...]`` lists."""
        return cls(workers, ps)

    # Computed once per placement (the fields are frozen); not part of equality.
    @cached_property
    def n_workers(self) -> int:
        """Total number of workers."""
        return sum(c for _, c in self.workers)

    @cached_property
    def n_ps(self) -> int:
        """Total number of parameter servers."""
        return sum(c for _, c in self.ps)

    @cached_property
    def servers(self) -> frozenset[int]:
        """Servers hosting any task of the job."""
        return frozenset(s for s, _ in self.workers) | frozenset(s for s, _ in self.ps)

    @property
    def colocated(self) -> bool:
        """True when every worker and PS of the job is on one single server (PD-ORS Fact 1,
        A_online's xi_j = 1)."""
        return len(self.servers) == 1

    def workers_on(self, server: int) -> int:
        """Workers on ``server``."""
        return dict(self.workers).get(server, 0)

    def ps_on(self, server: int) -> int:
        """PS on ``server``."""
        return dict(self.ps).get(server, 0)


EMPTY = Placement()
"""The empty placement."""
