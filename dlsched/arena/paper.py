"""Stored paper-scale computations of the real-trace notebooks (00 and 60) that are not arena points.

Every function here is an experiment for :func:`dlsched.experiments.sweep` (``fn(params) ->
pandas.DataFrame``, deterministic given ``params``), so that a notebook's paper-mode run reads its
result from the results store (``data/results``) instead of recomputing it.

* :func:`checked_run` -- notebook ``00_overview``, section "The model in one paragraph": one
  simulation of the FIFO / DRF overview sweep re-checked slot by slot by the independent
  feasibility checker (:func:`dlsched.core.schedule.check_timeline`: capacities, pools, arrivals,
  gang sizes, fixed allocations). At the paper size (1,000 Philly jobs on 100 GPUs) the re-check
  of about half a million allocation rows takes several seconds per run.

Notebook 60's arena points are :func:`dlsched.arena.experiments.arena_point` itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

__all__ = ["CHECKED_COLUMNS", "checked_run"]

CHECKED_COLUMNS: tuple[str, ...] = (
    "jobs", "finished", "allocation_rows", "decisions", "slot_seconds", "violation",
)  # fmt: skip
"""Columns of :func:`checked_run`, in order."""


def checked_run(params: Mapping) -> pd.DataFrame:
    """Experiment: simulate one point and re-check its whole schedule with the independent checker.

    Serves notebook ``00_overview`` ("The model in one paragraph": the schedule of one run,
    re-checked slot by slot). It checks no paper's equation; it checks the simulator's contract
    that every recorded allocation is feasible (:func:`dlsched.core.schedule.check_timeline`).

    Parameters
    ----------
    params : Mapping
        A point of :func:`dlsched.experiments.simulation_jobs` (``workload``, ``policy``,
        ``seed``, ``workload.<name>`` / ``policy.<name>`` keys).

    Returns
    -------
    pandas.DataFrame
        One row, columns :data:`CHECKED_COLUMNS`: the run's job count, finished jobs, rows of its
        allocation table, policy decisions, slot length in seconds, and ``violation``: empty when
        the checker accepts the whole timeline, else the checker's message.
    """
    from dlsched.core.schedule import ScheduleViolation, check_timeline
    from dlsched.experiments import simulate_point

    result = simulate_point(params)
    try:
        check_timeline(result.workload.cluster, result.workload.specs, result.allocations)
        violation = ""
    except ScheduleViolation as e:
        violation = str(e)
    jobs = result.jobs
    row = {
        "jobs": int(len(jobs)),
        "finished": int((jobs["status"] == "finished").sum()),
        "allocation_rows": int(len(result.allocations)),
        "decisions": int(result.decisions),
        "slot_seconds": float(result.workload.cluster.slot_seconds),
        "violation": violation,
    }
    return pd.DataFrame([row], columns=list(CHECKED_COLUMNS))
