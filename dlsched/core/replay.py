"""Replay a fixed schedule through the simulator.

:class:`ReplayPolicy` turns a precomputed schedule -- a tidy allocation table with columns
``job, slot, server, role, count``, the format of
:attr:`dlsched.core.simulator.SimulationResult.allocations` and of the offline solvers'
solutions -- into a :class:`~dlsched.core.policy.Policy`. It is used to simulate offline
solutions (e.g. :func:`dlsched.oasis.offline.solve_offline`) and to re-check them through the same
engine, the same independent checker and the same completion/utility accounting as every online
policy.

Behaviour:

* a job listed in ``admitted`` is admitted when it arrives; every other arriving job is rejected;
* at slot ``t`` the policy returns the placements the schedule lists for slot ``t``, skipping jobs
  that already finished (they left the view); rows for a job that has not arrived yet are passed
  on unchanged so that the simulator reports the violation instead of hiding it;
* ``wakeup`` is the next slot at which the schedule changes, so the allocation is exact slot by
  slot while the engine still jumps over unchanged stretches.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import numpy as np
import pandas as pd

from dlsched.core.cluster import Cluster
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Decision, Placement

SCHEDULE_COLUMNS: tuple[str, ...] = ("job", "slot", "server", "role", "count")
"""Columns of a tidy schedule table."""


def _as_int_column(df: pd.DataFrame, col: str) -> np.ndarray:
    values = df[col].to_numpy()
    try:
        as_float = values.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"schedule column {col!r} must be numeric, got values like {values[:3]!r}") from None
    if not np.all(np.isfinite(as_float)) or not np.all(as_float == np.round(as_float)):
        bad = values[~(np.isfinite(as_float) & (as_float == np.round(as_float)))][0]
        raise ValueError(f"schedule column {col!r} must hold integers, got {bad!r}")
    out = as_float.astype(np.int64)
    if np.any(out < 0):
        raise ValueError(f"schedule column {col!r} must be >= 0, got {int(out[out < 0][0])}")
    return out


def schedule_placements(schedule: pd.DataFrame) -> dict[int, dict[int, Placement]]:
    """Group a tidy schedule into ``{slot: {job: Placement}}``.

    Duplicate rows for the same (job, slot, server, role) add up; rows with ``count == 0`` are
    dropped.

    Parameters
    ----------
    schedule : pandas.DataFrame
        Columns ``job, slot, server, role, count``.

    Returns
    -------
    dict[int, dict[int, Placement]]

    Raises
    ------
    TypeError
        If ``schedule`` is not a DataFrame.
    ValueError
        If a column is missing, a role is not ``worker``/``ps``, or a number is not a non-negative
        integer.
    """
    if not isinstance(schedule, pd.DataFrame):
        raise TypeError(f"schedule must be a pandas DataFrame, got {type(schedule).__name__}")
    missing = [c for c in SCHEDULE_COLUMNS if c not in schedule.columns]
    if missing:
        raise ValueError(f"schedule is missing columns {missing}; expected {list(SCHEDULE_COLUMNS)}")
    if schedule.empty:
        return {}
    roles = schedule["role"].astype(str).to_numpy()
    bad = sorted(set(roles) - {"worker", "ps"})
    if bad:
        raise ValueError(f"schedule column 'role' must be 'worker' or 'ps', got {bad[0]!r}")
    df = pd.DataFrame(
        {
            "job": _as_int_column(schedule, "job"),
            "slot": _as_int_column(schedule, "slot"),
            "server": _as_int_column(schedule, "server"),
            "role": roles,
            "count": _as_int_column(schedule, "count"),
        }
    )
    df = df[df["count"] > 0]
    df = df.groupby(["slot", "job", "role", "server"], sort=True, as_index=False)["count"].sum()
    out: dict[int, dict[int, Placement]] = {}
    for (t, j), g in df.groupby(["slot", "job"], sort=True):
        w = g[g["role"] == "worker"]
        p = g[g["role"] == "ps"]
        out.setdefault(int(t), {})[int(j)] = Placement.of(
            dict(zip(w["server"].tolist(), w["count"].tolist(), strict=True)),
            dict(zip(p["server"].tolist(), p["count"].tolist(), strict=True)),
        )
    return out


class ReplayPolicy(BasePolicy):
    """Replay a fixed schedule (see module docstring).

    Used to simulate offline solutions and to re-check them through the same engine as the
    online policies: the simulator validates every slot with the independent checker and computes
    completions and utilities with its own conventions.

    Parameters
    ----------
    schedule : pandas.DataFrame
        Tidy table ``job, slot, server, role, count``.
    admitted : Iterable[int], optional
        Jobs to admit on arrival. Default: every job with an allocation in ``schedule``.

    Raises
    ------
    ValueError
        If the schedule is malformed, or allocates to a job outside ``admitted``.
    """

    name: ClassVar[str] = "replay"

    def __init__(self, schedule: pd.DataFrame, admitted: Iterable[int] | None = None) -> None:
        self._plan = schedule_placements(schedule)
        scheduled = sorted({j for per_slot in self._plan.values() for j in per_slot})
        if admitted is None:
            adm = set(scheduled)
        else:
            if isinstance(admitted, (str, bytes)) or not isinstance(admitted, Iterable):
                raise ValueError(f"admitted must be an iterable of job ids, got {admitted!r}")
            adm = set()
            for j in admitted:
                if isinstance(j, bool) or not isinstance(j, (int, np.integer)):
                    raise ValueError(f"admitted must hold integer job ids, got {j!r}")
                adm.add(int(j))
            stray = sorted(set(scheduled) - adm)
            if stray:
                raise ValueError(f"schedule allocates to jobs {stray} that are not in admitted")
        self.admitted: tuple[int, ...] = tuple(sorted(adm))
        self._admitted = frozenset(adm)
        slots = sorted(self._plan)
        # slots at which the set of placements differs from the previous slot
        changes = []
        prev: dict[int, Placement] = {}
        for t in slots:
            if t - 1 not in self._plan:
                prev = {}
            cur = self._plan[t]
            if cur != prev:
                changes.append(t)
            if t + 1 not in self._plan:
                changes.append(t + 1)  # the schedule empties after t
            prev = cur
        self._changes = np.array(sorted(set(changes)), dtype=np.int64)
        self._last = {}
        for t in slots:
            for j in self._plan[t]:
                self._last[j] = t
        self._seen: set[int] = set()

    def reset(self, cluster: Cluster, rng: np.random.Generator) -> None:
        """Store the cluster and forget which jobs were seen."""
        super().reset(cluster, rng)
        self._seen = set()

    def decide(self, t: int, view: ClusterView) -> Decision:
        """Admit/reject pending jobs and return the schedule's placements of slot ``t``.

        Parameters
        ----------
        t : int
            Current slot.
        view : ClusterView

        Returns
        -------
        Decision
        """
        self._seen.update(view.jobs)
        pending = [v.job_id for v in view.pending()]
        admit = [j for j in pending if j in self._admitted]
        reject = [j for j in pending if j not in self._admitted]
        allocs = {}
        for j, p in self._plan.get(t, {}).items():
            if j in view.jobs or j not in self._seen:
                allocs[j] = p  # unseen (not yet arrived) jobs are left for the checker to flag
        info = {j: {"planned_completion": float(self._last[j])} for j in admit if j in self._last}
        k = int(np.searchsorted(self._changes, t, side="right"))
        wakeup = int(self._changes[k]) if k < len(self._changes) else None
        return Decision(allocs, admit=admit, reject=reject, wakeup=wakeup, info=info)


__all__ = ["SCHEDULE_COLUMNS", "ReplayPolicy", "schedule_placements"]
