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

Cost (issue 11): the queue is kept from one decision to the next instead of being rebuilt from the
view, and a job whose tasks cannot fit in the free capacity is not tried (the attempt would fail
and change nothing), so a decision costs O(running jobs + arrivals + completions + jobs started),
plus, with backfill, O(demand classes): a class whose jobs no longer fit is passed over whole
(jobs put on one server, ``placement="earliest"``, are still tried one by one).

Floating point and ties (issue 19): the only choice FIFO makes between computed floats is the
fastest server of ``placement="earliest"``: rates within ``numerics.REL_TOL`` (1e-9) of the
largest, plus ``numerics.ABS_TOL``, tie, and the lowest server index wins
(:func:`dlsched.core.numerics.argmax`). Queue order is (arrival slot, job id), integers; capacity
fits use the absolute slack ``_EPS`` = 1e-9 on whole-number demands; round-robin placement is
:mod:`dlsched.core.placement`'s.
The helpers for this (:class:`Mirror`, :class:`Waiting`, :class:`TaskBound`) are shared with
:mod:`dlsched.baselines.drf`. The schedules are exactly those of the former code (kept in
``tests/test_baselines_speed.py`` as the reference).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
from collections.abc import Hashable
from itertools import compress
from operator import is_not
from typing import ClassVar

import numpy as np

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, RateContext, Workload
from dlsched.core.placement import RoundRobin, reachable, single_server_widths
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Allocations, Decision, Placement

PLACEMENTS = ("round_robin", "earliest")
"""Valid values of :class:`FIFO`'s ``placement``."""

_EPS = 1e-9
"""Absolute slack of capacity fits and reachability times (whole-number demands and slots)."""


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


# ------------------------------------------------------------------ incremental bookkeeping
#
# FIFO and DRF admit every job and are asked again at every arrival and completion. Rebuilding the
# queue from the view and trying every queued job at every decision made a decision cost one
# placement attempt per queued job (issue 11: DRF made 594k placement calls for 917 decisions on
# a 1,000-job Gavel-like trace). The helpers below keep the queue from one decision to the next
# (:class:`Mirror`, :class:`Waiting`) and bound how many tasks of a demand class can still fit
# (:class:`TaskBound`), so that a decision costs O(running jobs + arrivals + completions + demand
# classes + placement attempts that may succeed), however long the queue. They only skip work
# whose outcome is known: a placement that cannot succeed and would leave no trace (``free`` and
# the round-robin pointers unchanged); the schedules are exactly those of the former code
# (``tests/test_baselines_speed.py`` keeps it as the reference).


class JobData:
    """Constants of one job on one cluster, computed once: demand vectors, their hard parts (the
    job's *demand class*) and the slots at which its servers become reachable.

    :meth:`mask` and :meth:`next_slot` give exactly :func:`~dlsched.core.placement.reachable` and
    :func:`~dlsched.core.placement.next_reachable_slot` (same expressions, evaluated once).
    """

    __slots__ = ("spec", "wd", "pd", "wkey", "pkey", "ready", "full_at", "times", "elastic")

    def __init__(
        self, spec: JobSpec, cluster: Cluster, classes: dict | None = None, uniform: bool = False
    ) -> None:
        """``classes``: a cache shared by the jobs of one cluster, through which the jobs of one
        demand class share their (read-only) vectors and keys; ``uniform``: every server of the
        cluster has the same transfer delay (then ``times`` has one entry)."""
        self.spec = spec
        try:
            key = (tuple(spec.worker_demand.items()), tuple(spec.ps_demand.items()))
            hit = None if classes is None else classes.get(key)
        except TypeError:  # unhashable demand values: no sharing
            key, hit = None, None
        if hit is None:
            wd, pd_ = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
            wd.setflags(write=False)
            pd_.setflags(write=False)
            hard = cluster.hard
            hit = (wd, pd_, tuple(wd[hard].tolist()), tuple(pd_[hard].tolist()))
            if classes is not None and key is not None:
                classes[key] = hit
        self.wd, self.pd, self.wkey, self.pkey = hit
        delays = spec.delays(cluster)
        self.ready = spec.arrival + delays - _EPS
        self.full_at = float(self.ready.max())
        if uniform and delays is cluster.transfer_delay:
            self.times = [math.ceil(self.full_at)]  # one value: np.unique(np.ceil(ready)) as an int
        else:
            self.times = [int(x) for x in np.unique(np.ceil(self.ready))]
        self.elastic = spec.model.elastic

    def mask(self, t: int, everywhere: np.ndarray) -> np.ndarray:
        """Servers the job may use at slot ``t`` (``everywhere``, shared and read-only, once all are)."""
        return everywhere if t >= self.full_at else t >= self.ready

    def next_slot(self, t: int) -> int | None:
        """First slot after ``t`` at which one more server becomes reachable, if any."""
        for x in self.times:
            if x > t:
                return x
        return None


def _usage(used: np.ndarray, d: JobData, p: Placement, sign: float) -> None:
    for s, c in p.workers:
        used[s] += sign * c * d.wd
    for s, c in p.ps:
        used[s] += sign * c * d.pd


class Mirror:
    """The active jobs of a simulation as an admit-everything policy last saw them.

    Holds each active job's rank in the view's order, the placements the policy gave at its last
    decision (the running jobs of the next view) and their usage. :meth:`follow` checks in
    O(running + arrivals + completions) that a view continues the previous one -- later slot, the
    policy's previous decision applied (admissions, placements, usage), the arrivals new, later
    in (arrival, id) order than every known job and last in the view's table, the completions
    known running jobs, the right number of jobs, the table starting with the earliest one -- and
    applies the arrivals and completions; anything else (a first view, a policy wrapped by one
    that edits its decisions, hand-made views) makes the caller :meth:`rebuild` from the view.
    The job table's order in between is trusted to be the simulator's (arrival, id) order, as
    :class:`~dlsched.core.policy.ClusterView` documents; a table read afresh out of that order
    is never followed.
    """

    def __init__(self, cluster: Cluster) -> None:
        self._set_cluster(cluster)
        self.t: int | None = None

    def _set_cluster(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.everywhere = np.ones(cluster.n_servers, dtype=bool)
        self.everywhere.setflags(write=False)
        self.data: dict[int, JobData] = {}
        self.classes: dict = {}  # JobData's demand classes
        delay = np.asarray(cluster.transfer_delay)
        self.uniform = bool(delay.size > 0 and np.all(delay == delay[0]))
        self.t = None

    def job(self, spec: JobSpec) -> JobData:
        """The cached constants of ``spec``."""
        d = self.data.get(spec.job_id)
        if d is None or d.spec is not spec:
            d = self.data[spec.job_id] = JobData(spec, self.cluster, self.classes, self.uniform)
        return d

    def rebuild(self, t: int, view: ClusterView) -> list[int]:
        """Read everything from the view; return its pending jobs (in view order)."""
        if view.cluster is not self.cluster:
            self._set_cluster(view.cluster)
        self.rank: dict[int, int] = {}
        self.running: dict[int, Placement] = {}
        pending = []
        key = None
        self.ordered = True
        for n, (j, v) in enumerate(view.jobs.items()):
            self.rank[j] = n
            k = (v.spec.arrival, j)
            if key is not None and k <= key:
                self.ordered = False  # not the simulator's order: never follow such views
            key = k
            if not v.placement.is_empty:
                self.running[j] = v.placement
            if v.status == "pending":
                pending.append(j)
            self.job(v.spec)
        self.n = len(self.rank)
        self.last_key = key
        self.used = np.array(view.used, dtype=float)
        self.admitted: tuple[int, ...] = ()
        return pending

    def follow(self, t: int, view: ClusterView) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """``(arrived, completed)`` after applying them, if ``view`` continues the previous one;
        None (and nothing changed) otherwise."""
        if self.t is None or t <= self.t or view.cluster is not self.cluster:
            return None
        jobs = view.jobs
        arrived, completed = view.arrived, view.completed
        if len(jobs) != len(self.rank) + len(arrived) - len(completed):
            return None
        running = self.running
        done = set(completed)
        if len(done) != len(completed) or any(j not in running or j in jobs for j in completed):
            return None
        if arrived and list(itertools.islice(reversed(jobs), len(arrived)))[::-1] != list(arrived):
            return None  # the arrivals are not the last jobs of the table
        first = next((j for j in self.rank if j not in done), arrived[0] if arrived else None)
        if first is not None and next(iter(jobs)) != first:
            return None  # the table does not start with the earliest active job
        key = self.last_key
        for j in arrived:
            v = jobs.get(j)
            if v is None or j in self.rank or v.status != "pending" or not v.placement.is_empty:
                return None
            k = (v.spec.arrival, j)
            if key is not None and k <= key:
                return None
            key = k
        for j in self.admitted:
            v = jobs.get(j)
            if v is not None and v.status != "admitted":
                return None
        shown = view.placements
        if done:
            kept = dict(running)
            for j in done:
                del kept[j]
        else:
            kept = running
        # fast path: the view's placements are the running jobs' (dict equality: identity or ==)
        if shown is None or shown != kept:
            for j, p in kept.items():
                q = view.placement_of(j)
                if q is None or (q is not p and q != p):
                    return None
        used = self.used
        if done:
            used = used.copy()
            for j in completed:
                _usage(used, self.data[j], running[j], -1.0)
        if used.size and float(np.max(np.abs(view.used - used))) > 1e-6:
            return None  # some job runs that the policy did not place
        self.used = used
        for j in completed:
            del running[j]
            del self.rank[j]
            del self.data[j]
        for j in arrived:
            self.rank[j] = self.n
            self.n += 1
            self.job(jobs[j].spec)
        self.last_key = key
        return arrived, completed

    def commit_started(self, t: int, placed: dict[int, Placement], admitted) -> None:
        """:meth:`commit` of a decision that keeps every running job and starts the jobs of
        ``placed`` (appended to the running jobs, in this order): O(started jobs)."""
        for j, q in placed.items():
            _usage(self.used, self.data[j], q, 1.0)
        self.running.update(placed)
        self.admitted = tuple(admitted)
        self.t = t if self.ordered else None

    def commit(self, t: int, allocs: dict[int, Placement], admitted) -> None:
        """Record the decision just taken at slot ``t``."""
        used = self.used
        running = self.running
        # only entries that are not the same object can differ (the loops of the rule, on them;
        # found at C speed)
        for j in list(compress(running, map(is_not, running.values(), map(allocs.get, running)))):
            p = running[j]
            q = allocs.get(j)
            if q is None or (q is not p and q != p):
                _usage(used, self.data[j], p, -1.0)
        for j in list(compress(allocs, map(is_not, allocs.values(), map(running.get, allocs)))):
            q = allocs[j]
            p = running.get(j)
            if p is None or (q is not p and q != p):
                _usage(used, self.data[j], q, 1.0)
        self.running = dict(allocs)
        self.admitted = tuple(admitted)
        self.t = t if self.ordered else None


class Waiting:
    """Jobs waiting in rank order, split into sub-queues by a key (demand class and count).

    The whole sub-queue of a key that cannot fit any more is skipped at once by a :class:`Scan`.
    """

    def __init__(self) -> None:
        self.queues: dict[Hashable, list[int]] = {}
        self.job_at: dict[int, int] = {}
        self.where: dict[int, tuple[Hashable, int]] = {}

    def __contains__(self, j: int) -> bool:
        return j in self.where

    def __len__(self) -> int:
        return len(self.where)

    def add(self, j: int, rank: int, key: Hashable) -> None:
        q = self.queues.get(key)
        if q is None:
            q = self.queues[key] = []
        if not q or rank > q[-1]:
            q.append(rank)
        else:
            bisect.insort(q, rank)
        self.job_at[rank] = j
        self.where[j] = (key, rank)

    def remove(self, j: int) -> None:
        key, rank = self.where.pop(j)
        q = self.queues[key]
        del q[bisect.bisect_left(q, rank)]
        if not q:
            del self.queues[key]
        del self.job_at[rank]

    def scan(self) -> Scan:
        """A pass over the waiting jobs in rank order (the sub-queues must not change during it)."""
        return Scan(self)


class Scan:
    """One pass over :class:`Waiting` in rank order: a merge of the sub-queues' heads."""

    __slots__ = ("_lists", "_heap", "_job_at")

    def __init__(self, waiting: Waiting) -> None:
        self._lists = list(waiting.queues.items())
        self._heap = [(q[0], i, 0) for i, (_, q) in enumerate(self._lists)]
        heapq.heapify(self._heap)
        self._job_at = waiting.job_at

    def __bool__(self) -> bool:
        return bool(self._heap)

    def rank(self) -> int:
        """Rank of the next job."""
        return self._heap[0][0]

    def key(self) -> Hashable:
        """Key of the next job's sub-queue."""
        return self._lists[self._heap[0][1]][0]

    def pop(self) -> int:
        """The next job (moves on)."""
        rank, i, pos = self._heap[0]
        q = self._lists[i][1]
        if pos + 1 < len(q):
            heapq.heapreplace(self._heap, (q[pos + 1], i, pos + 1))
        else:
            heapq.heappop(self._heap)
        return self._job_at[rank]

    def discard(self) -> None:
        """Skip the rest of the next job's sub-queue."""
        heapq.heappop(self._heap)


def task_bound(room: np.ndarray, demand: np.ndarray, nonneg: bool = False) -> float:
    """An upper bound on how many tasks of ``demand`` fit in ``room`` (servers x hard resources),
    as placed one at a time by :class:`~dlsched.core.placement.RoundRobin` or ``LoadBalance``
    (a task fits where ``room >= demand - 1e-9``): per server ``floor((room + 1e-9) / demand)``
    over the demanded resources, plus a relative margin of 1e-6 for rounding.

    ``nonneg``: the caller knows that ``room >= -1e-9`` everywhere (then no server is left out
    for an overdrawn resource the job does not use, and that test is skipped: same result)."""
    pos = demand > 0
    if pos.all():
        q = (room + _EPS) / demand
        ok = None
    elif not pos.any():
        return np.inf if np.all(room >= -_EPS, axis=1).any() else 0.0
    elif nonneg:  # every server passes the test below: the sum over all of them
        q = (room[:, pos] + _EPS) / demand[pos]
        ok = None
    else:
        ok = np.all(room[:, ~pos] >= -_EPS, axis=1)  # resources it does not use must not be overdrawn
        q = (room[:, pos] + _EPS) / demand[pos]
    k = np.floor(q * (1.0 + 1e-6) + 1e-6).min(axis=1)
    np.maximum(k, 0.0, out=k)
    return float(k.sum() if ok is None else k[ok].sum())


class TaskBound:
    """:func:`task_bound` per role and demand class on the current ``free``, cached until
    :meth:`clear` (call it whenever ``free`` changes)."""

    def __init__(self, cluster: Cluster) -> None:
        hard = cluster.hard
        self._cols = None if hard.all() else np.flatnonzero(hard)
        self._rows = {}
        for role in ("worker", "ps"):
            servers = cluster.servers_for(role)
            self._rows[role] = None if servers.size == cluster.n_servers else servers
        self._cache: dict[tuple[str, tuple[float, ...]], float] = {}
        self._demand: dict[tuple[float, ...], np.ndarray] = {}
        self._nonneg: dict[str, bool] = {}  # role -> room >= -1e-9 everywhere (until clear())

    def clear(self) -> None:
        self._cache.clear()
        self._nonneg.clear()

    def tasks(self, free: np.ndarray, role: str, key: tuple[float, ...]) -> float:
        """Upper bound on the tasks of demand ``key`` (hard resources) that fit on ``role`` servers."""
        k = self._cache.get((role, key))
        if k is None:
            room = free
            rows = self._rows[role]
            if rows is not None:
                room = room[rows]
            if self._cols is not None:
                room = room[:, self._cols]
            demand = self._demand.get(key)
            if demand is None:
                demand = self._demand[key] = np.asarray(key, dtype=float)
            nonneg = self._nonneg.get(role)
            if nonneg is None:
                nonneg = self._nonneg[role] = bool(np.all(room >= -_EPS))
            k = self._cache[(role, key)] = task_bound(room, demand, nonneg)
        return k


def next_wakeup(heap: list[tuple[int, int]], t: int, member) -> int | None:
    """Smallest slot after ``t`` in ``heap`` (entries ``(slot, job)``) among the jobs ``member``
    accepts; entries of earlier slots and of other jobs are dropped (callers only use this with
    slots that increase and memberships that are lost for good)."""
    while heap and (heap[0][0] <= t or not member(heap[0][1])):
        heapq.heappop(heap)
    return heap[0][0] if heap else None


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
        self._mirror = Mirror(cluster)
        self._bound = TaskBound(cluster)

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
        cands: list[Placement] = []
        rates: list[float] = []
        for s, w, p in self.single_server_counts(spec):
            # fit with _EPS = 1e-9 absolute slack (whole-number demands: an exact fit fits)
            if not mask[s] or not np.all(free[s, hard] >= w * wd[hard] + p * pd_[hard] - _EPS):
                continue
            cands.append(Placement.of({s: w}, {s: p} if p else {}))
            rates.append(float(spec.model.rate(spec, cands[-1], ctx)))
        # A_online Sec. VI "dispatched to the server that can schedule the job earliest": the
        # fastest server, with numerics tolerance (rates within REL_TOL of the largest + ABS_TOL
        # tie); ties -> lower server index (single_server_counts lists servers in index order)
        best = cands[numerics.argmax(rates)] if cands else None
        if best is not None:
            for s, c in best.workers:
                free[s] -= c * wd
            for s, c in best.ps:
                free[s] -= c * pd_
        return best

    def _key(self, spec: JobSpec) -> Hashable:
        """Sub-queue of a waiting job: None for the single-server placement (always tried), else
        its demand class and fixed counts."""
        if self.placement == "earliest" and self.single_server_counts(spec):
            return None
        d = self._mirror.data[spec.job_id]
        return (d.wkey, d.pkey, *self._counts_for(spec))

    def _enqueue(self, j: int, t: int) -> None:
        m = self._mirror
        d = m.data[j]
        self._waiting.add(j, m.rank[j], self._key(d.spec))
        if self.backfill:
            for x in d.times:
                if x > t:
                    heapq.heappush(self._wake, (x, j))

    def _may_fit(self, free: np.ndarray, key) -> bool:
        """False when the job's tasks certainly do not fit (``key`` from :meth:`_key`, not None)."""
        wkey, pkey, w, p = key
        b = self._bound
        return w <= b.tasks(free, "worker", wkey) and (p <= 0 or p <= b.tasks(free, "ps", pkey))

    def decide(self, t: int, view: ClusterView) -> Decision:
        """Start waiting jobs in arrival order (see the module docstring).

        The queue is kept from one decision to the next (:class:`Mirror`, :class:`Waiting`). A
        job whose workers or PS cannot fit in the free capacity (:class:`TaskBound`) is not tried:
        its placement would fail and change nothing. Strict FIFO stops at the first job that does
        not start; with backfill, the sub-queue of a demand class and counts that can no longer
        fit is skipped as a whole, and the wakeup (the earliest slot at which one more server
        becomes reachable for a job left waiting) comes from a heap. Decisions are those of a
        scan of every queued job in arrival order.
        """
        m = self._mirror
        followed = m.follow(t, view)
        if followed is None:
            admit = m.rebuild(t, view)
            self._waiting = Waiting()
            self._wake: list[tuple[int, int]] = []
            for j in m.rank:
                if j not in m.running:
                    self._enqueue(j, t)
        else:
            admit = list(followed[0])
            for j in admit:
                self._enqueue(j, t)
        rank = m.rank
        running = m.running
        # Strict FIFO continuing its previous decision: the running jobs are in arrival order
        # (the view's placements are the previous decision, which was) and every job started
        # now comes later in it, so the decision is the view's placements with the started jobs
        # appended (Decision.update: O(started jobs)). Otherwise, the running jobs in arrival
        # order, then the started ones.
        delta = followed is not None and not self.backfill and isinstance(view.placements, Allocations)
        if delta:
            allocs = running  # read only below (is any job placed?) until the commit
        else:
            order = sorted(running, key=rank.__getitem__)
            allocs = dict(zip(order, map(running.__getitem__, order), strict=True))
        placed: dict[int, Placement] = {}
        free = view.free
        ctx = RateContext(view.cluster, view.used)
        bound = self._bound
        bound.clear()
        wakeup = None
        scan = self._waiting.scan()
        while scan:
            key = scan.key()
            busy = bool(allocs or placed)
            if self.backfill and busy and key is not None and not self._may_fit(free, key):
                scan.discard()  # nothing more of this class and counts fits: all wait
                continue
            j = scan.pop()
            spec = m.data[j].spec
            if key is None:
                placement = self._earliest(spec, free, t, ctx)
            elif busy and not self._may_fit(free, key):
                placement = None  # would fail, leaving free and the pointers as they are
            else:
                w, p = key[2], key[3]
                placement = self._placer.place_job(spec, w, p, free, t)
                if placement is None and not busy:
                    # the counts were checked from a fresh round-robin pointer on the empty
                    # cluster; retry from there so a job that fits alone can never block the
                    # queue forever
                    self._placer.reset_pointers()
                    placement = self._placer.place_job(spec, w, p, free, t)
            if placement is not None:
                placed[j] = placement
                bound.clear()
                continue
            if not self.backfill:
                wakeup = m.data[j].next_slot(t)
                break
        if self.backfill:
            waiting = self._waiting
            wakeup = next_wakeup(self._wake, t, lambda j: j in waiting and j not in placed)
        for j in placed:
            self._waiting.remove(j)
        if delta and (not placed or not running or rank[next(iter(placed))] > rank[next(reversed(running))]):
            m.commit_started(t, placed, admit)
            return Decision.update(view.placements, placed, admit=admit, wakeup=wakeup)
        if delta:  # (not reached by strict FIFO: its starts come after every running job)
            order = sorted(running, key=rank.__getitem__)
            allocs = dict(zip(order, map(running.__getitem__, order), strict=True))
        allocs.update(placed)
        m.commit(t, allocs, admit)
        return Decision(allocs, admit=admit, wakeup=wakeup)
