"""FIFO: every job admitted, run in arrival order with a fixed number of workers and PS.

The Hadoop/Spark default used as a baseline by OASiS (Sec. V-A), PD-ORS and A_online: jobs start
in arrival order (ties by job id); each gets a fixed number of workers and the PS its model needs
for them (``model.ps_for``). A running job keeps its placement until it finishes (no
preemption). With ``backfill=False`` (strict FIFO) a job that does not fit blocks the jobs behind
it; with ``backfill=True`` later jobs that fit may start. Two placements:

``placement="round_robin"`` (OASiS Sec. V-A, PD-ORS; the default of ``FIFO()``)
    the fixed count is the policy's ``n_workers``, else the job's ``requested_workers``, else the
    model's minimum; tasks are placed round-robin (:class:`RoundRobin`). A fixed count that could
    never fit, even on the empty cluster, is lowered to the largest count that does (documented
    choice: the papers do not say; without it such a job would block a strict FIFO queue forever).

``placement="earliest"`` (A_online Sec. VI)
    "jobs are scheduled in the order of arrival, and are dispatched to the server that can
    schedule the job earliest": the whole job -- its workers and its PS -- goes to one server.
    The count wanted is ``n_workers``, else ``requested_workers``, else the model's
    ``max_workers`` (A_online's :math:`D_j`, one worker per data chunk, the most (2a) allows),
    else its minimum; on server ``s`` the job takes ``w_s``, the most of that count the empty
    server can hold together with the PS. Among the servers the job's data has reached
    (A_online (2i)) that have ``w_s`` workers and the PS free now, it goes to the one where it
    runs fastest (``model.rate``, i.e. the most workers), ties to the lower index. Because the
    queue is strict, the head job starts at the first slot at which some server can host it:
    the earliest-start server. A job that no single server can ever hold falls back to the
    round-robin placement above.

:meth:`FIFO.from_workload` (what :func:`dlsched.registry.make_policy` and ``dlsched run`` use)
picks ``placement="earliest"`` on an edge-cloud cluster (pools ``edge`` / ``cloud``, A_online's
layout) unless a placement is given; ``FIFO()`` itself always defaults to round robin.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from dlsched.core.jobs import JobSpec, RateContext, Workload
from dlsched.core.placement import RoundRobin, next_reachable_slot, reachable, single_server_widths
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Decision, Placement

PLACEMENTS = ("round_robin", "earliest")
"""Valid values of :class:`FIFO`'s ``placement``."""

_EPS = 1e-9


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
    """First in, first out with fixed worker/PS counts (see the module docstring).

    Parameters
    ----------
    n_workers : int, optional
        Workers per job (default: the job's ``requested_workers``, else the model's minimum for
        round robin or its ``max_workers`` for ``"earliest"``).
    n_ps : int, optional
        PS per job (default: what the model needs for the workers, ``model.ps_for``).
    backfill : bool, default False
        Let later jobs start when the head of the queue does not fit.
    placement : {"round_robin", "earliest"}, default "round_robin"
        Round-robin task placement, or the whole job on the server where it can start earliest
        (A_online's FIFO).
    """

    name: ClassVar[str] = "fifo"

    def __init__(
        self,
        n_workers: int | None = None,
        n_ps: int | None = None,
        backfill: bool = False,
        placement: str = "round_robin",
    ):
        self.n_workers = check_count(n_workers, "fifo.n_workers")
        if n_ps is not None and (isinstance(n_ps, bool) or not isinstance(n_ps, int) or n_ps < 0):
            raise ValueError(f"fifo.n_ps must be an integer >= 0 or None, got {n_ps!r}")
        self.n_ps = n_ps
        if not isinstance(backfill, bool):
            raise ValueError(f"fifo.backfill must be a bool, got {backfill!r}")
        self.backfill = backfill
        if placement not in PLACEMENTS:
            raise ValueError(f"fifo.placement must be one of {PLACEMENTS}, got {placement!r}")
        self.placement = placement

    @classmethod
    def from_workload(cls, workload: Workload, **params) -> FIFO:
        """FIFO for ``workload``: ``placement="earliest"`` on an edge-cloud cluster (A_online's
        FIFO) unless ``placement`` is given, the constructor's defaults otherwise."""
        if "placement" not in params and {"edge", "cloud"} & set(workload.cluster.pools):
            params["placement"] = "earliest"
        return cls(**params)

    def reset(self, cluster, rng) -> None:
        super().reset(cluster, rng)
        self._placer = RoundRobin(cluster)
        self._counts: dict[int, tuple[int, int]] = {}
        self._single: dict[int, list[tuple[int, int, int]]] = {}

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

    def single_server_counts(self, spec: JobSpec) -> list[tuple[int, int, int]]:
        """``[(server, workers, ps), ...]``: for every server that can ever hold the whole job,
        the most workers (up to the wanted count, at least the model's minimum) that fit on it
        with their PS when it is empty (``placement="earliest"``)."""
        if spec.job_id not in self._single:
            model = spec.model
            want = self.n_workers or spec.requested_workers or model.max_workers or model.min_workers
            want = max(want, model.min_workers)
            if model.max_workers is not None:
                want = min(want, model.max_workers)
            out = single_server_widths(spec, self.cluster, want)
            if self.n_ps is not None:  # an explicit PS count replaces ps_for where it still fits
                hard = self.cluster.hard
                wd = self.cluster.vector(spec.worker_demand)[hard]
                pd_ = self.cluster.vector(spec.ps_demand)[hard]
                cap = self.cluster.capacity[:, hard]
                out = [
                    (s, w, self.n_ps) for s, w, _ in out if np.all(w * wd + self.n_ps * pd_ <= cap[s] + _EPS)
                ]
            self._single[spec.job_id] = out
        return self._single[spec.job_id]

    def _earliest(self, spec, free: np.ndarray, t: int, ctx: RateContext) -> Placement | None:
        """The job on the one server where it can start now and runs fastest (None: nowhere)."""
        cluster = self.cluster
        hard = cluster.hard
        mask = reachable(spec, cluster, t)
        wd = cluster.vector(spec.worker_demand)
        pd_ = cluster.vector(spec.ps_demand)
        best, best_rate = None, -np.inf
        for s, w, p in self.single_server_counts(spec):
            if not mask[s] or not np.all(free[s, hard] >= w * wd[hard] + p * pd_[hard] - _EPS):
                continue
            cand = Placement.of({s: w}, {s: p} if p else {})
            r = spec.model.rate(spec, cand, ctx)
            if r > best_rate:  # ties keep the lower index
                best, best_rate = cand, r
        if best is not None:
            for s, c in best.workers:
                free[s] -= c * wd
            for s, c in best.ps:
                free[s] -= c * pd_
        return best

    def decide(self, t: int, view: ClusterView) -> Decision:
        admit = [v.job_id for v in view.pending()]
        allocs = view.current_allocations()
        free = view.free
        ctx = RateContext(view.cluster, view.used)
        wakeups = []
        for v in view.jobs.values():
            if v.running:
                continue
            spec = v.spec
            if self.placement == "earliest" and self.single_server_counts(spec):
                placement = self._earliest(spec, free, t, ctx)
            else:
                w, p = self._counts_for(spec)
                placement = self._placer.place_job(spec, w, p, free, t)
                if placement is None and not allocs:
                    # the counts were checked from a fresh round-robin pointer on the empty
                    # cluster; retry from there so a job that fits alone can never block the
                    # queue forever
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
