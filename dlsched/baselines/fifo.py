"""FIFO: every job admitted, run in arrival order with a fixed number of workers and PS.

The Hadoop/Spark default used as a baseline by OASiS (Sec. V-A), PD-ORS and A_online: jobs start
in arrival order (ties by job id); each gets a fixed number of workers (the policy's
``n_workers``, else the job's ``requested_workers``, else the model's minimum) and the PS its model
needs for them (``model.ps_for``); tasks are placed round-robin (:class:`RoundRobin`). A running
job keeps its placement until it finishes (no preemption). A fixed count that could never fit,
even on the empty cluster, is lowered to the largest count that does (documented choice: the
papers do not say; without it such a job would block a strict FIFO queue forever). With
``backfill=False`` (strict FIFO) a job that does not fit blocks the jobs behind it; with
``backfill=True`` later jobs that fit may start.
"""

from __future__ import annotations

from typing import ClassVar

from dlsched.core.jobs import JobSpec
from dlsched.core.placement import RoundRobin, next_reachable_slot
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Decision


def fixed_workers(spec: JobSpec, n_workers: int | None) -> int:
    """Worker count FIFO-like policies give ``spec``: ``n_workers`` (if set), else the job's
    requested count, else the model's minimum, clipped to the model's bounds."""
    model = spec.model
    w = n_workers if n_workers is not None else (spec.requested_workers or model.min_workers)
    w = max(w, model.min_workers)
    return min(w, model.max_workers) if model.max_workers is not None else w


def check_count(value, what: str, *, allow_none: bool = True) -> int | None:
    """Validate an optional positive integer parameter."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(
            f"{what} must be a positive integer{' or None' if allow_none else ''}, got {value!r}"
        )
    return value


class FIFO(BasePolicy):
    """First in, first out with fixed worker/PS counts and round-robin placement.

    Parameters
    ----------
    n_workers : int, optional
        Workers per job (default: the job's ``requested_workers`` or the model's minimum).
    n_ps : int, optional
        PS per job (default: what the model needs for the workers, ``model.ps_for``).
    backfill : bool, default False
        Let later jobs start when the head of the queue does not fit.
    """

    name: ClassVar[str] = "fifo"

    def __init__(self, n_workers: int | None = None, n_ps: int | None = None, backfill: bool = False):
        self.n_workers = check_count(n_workers, "fifo.n_workers")
        if n_ps is not None and (isinstance(n_ps, bool) or not isinstance(n_ps, int) or n_ps < 0):
            raise ValueError(f"fifo.n_ps must be an integer >= 0 or None, got {n_ps!r}")
        self.n_ps = n_ps
        if not isinstance(backfill, bool):
            raise ValueError(f"fifo.backfill must be a bool, got {backfill!r}")
        self.backfill = backfill

    def reset(self, cluster, rng) -> None:
        super().reset(cluster, rng)
        self._placer = RoundRobin(cluster)
        self._counts: dict[int, tuple[int, int]] = {}

    def _counts_for(self, spec) -> tuple[int, int]:
        """(workers, PS) for a job, lowered once to what fits on the empty cluster."""
        if spec.job_id not in self._counts:
            model = spec.model
            w = fixed_workers(spec, self.n_workers)
            while True:
                p = self.n_ps if self.n_ps is not None else model.ps_for(w)
                probe = RoundRobin(self.cluster)
                free = self.cluster.capacity.copy()
                if w <= model.min_workers or probe.place_job(spec, w, p, free, spec.arrival + 10**9):
                    break
                w -= 1
            self._counts[spec.job_id] = (w, p)
        return self._counts[spec.job_id]

    def decide(self, t: int, view: ClusterView) -> Decision:
        admit = [v.job_id for v in view.pending()]
        allocs = view.current_allocations()
        free = view.free
        wakeups = []
        for v in view.jobs.values():
            if v.running:
                continue
            spec = v.spec
            w, p = self._counts_for(spec)
            placement = self._placer.place_job(spec, w, p, free, t)
            if placement is None and not allocs:
                # the counts were checked from a fresh round-robin pointer on the empty cluster;
                # retry from there so a job that fits alone can never block the queue forever
                self._placer.reset_pointers()
                placement = self._placer.place_job(spec, w, p, free, t)
            if placement is not None:
                allocs[v.job_id] = placement
                continue
            nxt = next_reachable_slot(spec, view.cluster, t)
            if nxt is not None:
                wakeups.append(nxt)
            if not self.backfill:
                break
        return Decision(allocs, admit=admit, wakeup=min(wakeups) if wakeups else None)
