"""Allocation types and the independent feasibility checker.

A :class:`Placement` says how many workers and parameter servers (PS) one job has on each server
in one slot; a :class:`Decision` is what a policy returns for a slot: admissions, rejections, the
placement of every job that runs in the slot, and when it wants to be asked again.

:func:`check_allocations` is deliberately independent of every policy and of the simulator's
bookkeeping: it re-derives server usage from the placements alone and raises
:class:`ScheduleViolation` naming the violated constraint, the slot, the server, the job and the
amounts. The simulator calls it on every decision; tests and the offline solvers call it on
recorded schedules (:func:`check_timeline`).

Constraints checked (paper equations in brackets):

* ``role``: workers only on worker-capable servers, PS only on PS-capable servers (OASiS (4)-(5)
  use separate pools);
* ``capacity``: per server and non-compressible resource, the sum over jobs of
  ``workers * worker_demand + ps * ps_demand`` is at most the capacity (OASiS (4)-(5), PD-ORS (5),
  A_online (2g)-(2h), Optimus (7) per server);
* ``arrival`` / ``transfer_delay``: nothing before the job's arrival, and nothing on server ``s``
  before ``arrival + delay_s`` (OASiS (9)-(10), A_online (2i));
* model constraints from :meth:`JobModel.placement_violations` (e.g. OASiS (3), (6), (7);
  PD-ORS (4) and the worker:PS ratio; A_online (2a)-(2b));
* ``fixed_allocation`` (:func:`check_timeline` only, across slots): a job whose model is not
  ``elastic`` keeps its placement in consecutive slots; one that is not ``preemptible`` runs in
  one unbroken stretch of slots (A_online (2c)-(2d)).
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from dlsched.core.cluster import CAPACITY_EPS
from dlsched.core.tasks import EMPTY, Placement, _pairs  # noqa: F401 - re-exported (old import path)

if TYPE_CHECKING:  # pragma: no cover
    from dlsched.core.cluster import Cluster
    from dlsched.core.jobs import JobSpec

_EPS = CAPACITY_EPS
_IS_EMPTY = operator.attrgetter("is_empty")


class Allocations(dict):
    """The running jobs' placements as the simulator keeps them: a ``dict`` (read at C speed)
    that refuses changes. It holds only placements of decisions that passed their checks; it is
    what :attr:`ClusterView.placements <dlsched.core.policy.ClusterView.placements>` is, and
    what :meth:`Decision.update` builds on without checking it again. Only the simulator
    changes one (through ``dict``'s own methods)."""

    __slots__ = ()

    def _read_only(self, *args, **kwargs):
        raise TypeError("the running jobs' placements are read-only (build a Decision instead)")

    __setitem__ = __delitem__ = __ior__ = _read_only
    pop = popitem = clear = update = setdefault = _read_only


class _Update(dict):
    """The allocations :meth:`Decision.update` built: ``base`` with the jobs ``changed`` set."""

    __slots__ = ("base", "changed")


def _checked(allocations: Mapping[int, Placement]) -> dict[int, Placement]:
    """``allocations`` as a new dict with int keys, its empty placements left out; TypeError
    naming the entry that is not a Placement."""
    src = dict(allocations)
    if set(map(type, src)) <= {int} and set(map(type, src.values())) <= {Placement}:
        # the common case, checked at C speed: int keys (int(j) is j) and Placement values;
        # the copy is kept as it is unless some placement is empty
        if any(map(_IS_EMPTY, src.values())):
            return {j: p for j, p in src.items() if not p.is_empty}
        return src
    allocs = {}
    for j, p in src.items():
        if not isinstance(p, Placement):
            raise TypeError(f"decision.allocations[{j!r}] must be a Placement, got {type(p).__name__}")
        if not p.is_empty:
            allocs[int(j)] = p
    return allocs


@dataclass(frozen=True)
class Decision:
    """What a policy decides at a slot.

    Parameters
    ----------
    allocations : Mapping[int, Placement]
        Placement of every job that runs in this slot (and until the next decision). Jobs not
        listed get nothing.
    admit, reject : Iterable[int]
        Pending jobs admitted / rejected now. Rejection is final; a job must be admitted (now
        or before) to receive an allocation.
    wakeup : int or None
        The latest slot at which the policy wants to decide again. ``None`` means at the next
        arrival or completion. The allocation is kept unchanged until then.
    info : Mapping[int, Mapping[str, float]]
        Per-job annotations recorded in the result's job table (e.g. OASiS's payoff ``mu`` and
        planned completion).
    pause : Mapping[int, float]
        Slots of progress a job loses at the start of the placement it gets in this decision: a
        switching cost of the policy's own mechanism, e.g. restoring a checkpoint when a
        preempted job resumes (the Preemptive baseline's overhead, A_online Figs. 9-10). Only for
        jobs whose placement starts or changes now (the simulator raises ``pause`` otherwise);
        added to the job model's own :meth:`~dlsched.core.jobs.JobModel.switch_pause`. Finite
        and >= 0; zeros are dropped.

    A policy that changes the placements of a few jobs only can say just that with
    :meth:`update`, which costs O(changes) here and in the simulator instead of O(running jobs).
    """

    allocations: Mapping[int, Placement] = field(default_factory=dict)
    admit: frozenset[int] = frozenset()
    reject: frozenset[int] = frozenset()
    wakeup: int | None = None
    info: Mapping[int, Mapping[str, float]] = field(default_factory=dict)
    pause: Mapping[int, float] = field(default_factory=dict)

    @classmethod
    def update(
        cls,
        base: Mapping[int, Placement],
        changes: Mapping[int, Placement],
        *,
        admit: Iterable[int] = frozenset(),
        reject: Iterable[int] = frozenset(),
        wakeup: int | None = None,
        info: Mapping[int, Mapping[str, float]] | None = None,
        pause: Mapping[int, float] | None = None,
    ) -> Decision:
        """The decision whose allocations are ``base`` with ``changes`` applied: a job mapped to
        a non-empty placement gets it, a job mapped to an empty one (``EMPTY``) stops; every
        other job of ``base`` keeps its placement object.

        ``base`` is normally the view's :attr:`~dlsched.core.policy.ClusterView.placements`; then
        neither this call nor the simulator looks at the jobs that keep their placement (the
        simulator checks the changed ones, and the capacity of the servers that received tasks).
        Any other mapping is checked here as ``allocations`` is. The allocations are in
        ``base``'s order, a changed job keeping its position and a new one appended in
        ``changes``' order.
        """
        allocs = _Update(base if type(base) is Allocations else _checked(base))
        changed = []
        for j, p in changes.items():
            if not isinstance(p, Placement):
                raise TypeError(f"decision.allocations[{j!r}] must be a Placement, got {type(p).__name__}")
            j = int(j)
            if p.is_empty:
                allocs.pop(j, None)
            else:
                allocs[j] = p
            changed.append(j)
        allocs.base, allocs.changed = base, tuple(changed)
        return cls(
            allocations=allocs,
            admit=frozenset(admit),
            reject=frozenset(reject),
            wakeup=wakeup,
            info={} if info is None else info,
            pause={} if pause is None else pause,
        )

    @property
    def delta(self) -> tuple[Mapping[int, Placement], tuple[int, ...]] | None:
        """``(base, changed jobs)`` of a decision made by :meth:`update` (None otherwise): every
        job of ``allocations`` not in ``changed`` has its placement object in ``base``."""
        return self._delta

    def __post_init__(self) -> None:
        src = self.allocations
        if type(src) is _Update:  # made by update(): base trusted or checked there, changes checked
            allocs, delta = src, (src.base, src.changed)
        else:
            allocs, delta = _checked(src), None
        object.__setattr__(self, "allocations", MappingProxyType(allocs))
        object.__setattr__(self, "_delta", delta)
        object.__setattr__(self, "admit", frozenset(int(j) for j in self.admit))
        object.__setattr__(self, "reject", frozenset(int(j) for j in self.reject))
        both = self.admit & self.reject
        if both:
            raise ValueError(f"decision admits and rejects the same jobs {sorted(both)}")
        if self.wakeup is not None:
            w = self.wakeup
            ok = isinstance(w, (int, np.integer)) and not isinstance(w, bool)
            if isinstance(w, (float, np.floating)) and np.isfinite(w) and float(w).is_integer():
                ok, w = True, int(w)
            if not ok:
                raise ValueError(f"decision.wakeup must be an integer slot or None, got {self.wakeup!r}")
            object.__setattr__(self, "wakeup", int(w))
        object.__setattr__(
            self, "info", MappingProxyType({int(k): dict(v) for k, v in dict(self.info).items()})
        )
        pauses = {}
        for j, v in dict(self.pause).items():
            ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            if not ok or not np.isfinite(v) or v < 0:
                raise ValueError(f"decision.pause[{j!r}] must be a finite number >= 0 (slots), got {v!r}")
            if v > 0:
                pauses[int(j)] = float(v)
        object.__setattr__(self, "pause", MappingProxyType(pauses))


class ScheduleViolation(Exception):
    """A schedule breaks a constraint.

    Attributes
    ----------
    constraint : str
        Short name of the violated constraint (``capacity``, ``role``, ``arrival``, ...).
    slot, server, job : int or None
    resource : str or None
    amount, limit : float or None
        The offending amount and the limit it exceeds.
    """

    def __init__(
        self,
        constraint: str,
        message: str,
        *,
        slot=None,
        server=None,
        job=None,
        resource=None,
        amount=None,
        limit=None,
    ) -> None:
        self.constraint = constraint
        self.slot = slot
        self.server = server
        self.job = job
        self.resource = resource
        self.amount = amount
        self.limit = limit
        where = ", ".join(
            f"{k}={v}"
            for k, v in (
                ("slot", slot),
                ("server", server),
                ("job", job),
                ("resource", resource),
                ("amount", amount),
                ("limit", limit),
            )
            if v is not None
        )
        super().__init__(f"[{constraint}] {message}" + (f" ({where})" if where else ""))


def demand_vectors(cluster: Cluster, spec: JobSpec) -> tuple[np.ndarray, np.ndarray]:
    """A job's worker and PS demand as vectors over ``cluster.resources``."""
    j = spec.job_id
    return (cluster.vector(spec.worker_demand, f"job {j} worker_demand"),
            cluster.vector(spec.ps_demand, f"job {j} ps_demand"))  # fmt: skip


def server_usage(
    cluster: Cluster, specs: Mapping[int, JobSpec], allocations: Mapping[int, Placement]
) -> np.ndarray:
    """Resources used on every server by ``allocations``: array (n_servers, n_resources)."""
    used = np.zeros_like(cluster.capacity)
    for j, p in allocations.items():
        wd, pd_ = demand_vectors(cluster, specs[j])
        for s, c in p.workers:
            used[s] += c * wd
        for s, c in p.ps:
            used[s] += c * pd_
    return used


class UsageCache:
    """:func:`server_usage` for a caller that sums the usage of changing allocations many times
    (the simulator), equal to :func:`server_usage` bit for bit.

    Each job's demand vectors and the rows its current placement adds are computed once. While
    every demand seen is a whole number (GPUs, cores, GB of rigid trace jobs), sums of them are
    exact in floating point whatever their order, so :meth:`update` adds and subtracts only the
    jobs whose placement changed: O(changes) instead of O(running jobs). Once a fractional demand
    appears, a server's row is the sum of its jobs' rows in the allocations' order (the order of
    :func:`server_usage`'s unbuffered ``numpy.add.at``), so :meth:`update` re-sums, in that order,
    only the rows of the servers a changed job leaves or enters, as long as the jobs kept from
    the previous call keep their relative order in the allocations; otherwise it re-sums
    everything with one ``numpy.add.at``.
    """

    _EXACT = 2.0**40  # whole numbers below this add exactly (far below 2**53)

    def __init__(self, cluster: Cluster, specs: Mapping[int, JobSpec]) -> None:
        self.cluster = cluster
        self.specs = specs
        self._jobs: dict[int, list] = {}  # job -> [worker vector, PS vector, placement, servers, rows, pairs]
        self._demands: dict[tuple, tuple] = {}  # demand mappings' items -> (vectors, whole numbers)
        self.integral = True
        self.used = np.zeros_like(cluster.capacity)
        self._current: dict[int, Placement] = {}
        self._dead: set[int] = set()
        # fractional demands: server -> its jobs (None: to be rebuilt), the previous call's jobs
        # in the allocations' order
        self._on: dict[int, dict[int, None]] | None = None
        self._order: list[int] = []

    def rows(self, j: int, p: Placement) -> tuple[np.ndarray, np.ndarray]:
        """Servers and added rows of job ``j`` under placement ``p``."""
        return self._entry(j, p)[3:5]

    def _entry(self, j: int, p: Placement) -> list:
        """Job ``j``'s cache entry, its rows those of placement ``p``."""
        e = self._jobs.get(j)
        if e is None:
            spec = self.specs[j]
            try:  # jobs of one demand class share their vectors (read-only)
                key = (tuple(spec.worker_demand.items()), tuple(spec.ps_demand.items()))
                hit = self._demands.get(key)
            except TypeError:  # unhashable demand values: no sharing
                key, hit = None, None
            if hit is None:
                wd, pd_ = demand_vectors(self.cluster, spec)
                both = np.concatenate([wd, pd_])
                whole = bool(np.all(both == np.round(both)) and np.all(np.abs(both) < self._EXACT))
                wd.setflags(write=False)
                pd_.setflags(write=False)
                hit = (wd, pd_, whole)
                if key is not None:
                    self._demands[key] = hit
            wd, pd_, whole = hit
            self.integral = self.integral and whole
            e = self._jobs[j] = [wd, pd_, None, None, None, None]
        if e[2] is not p and e[2] != p:
            wd, pd_ = e[0], e[1]
            servers = [s for s, _ in p.workers] + [s for s, _ in p.ps]
            rows = [c * wd for _, c in p.workers] + [c * pd_ for _, c in p.ps]
            e[2], e[3] = p, np.asarray(servers, dtype=np.intp)
            e[4] = np.array(rows) if rows else np.zeros((0, len(self.cluster.resources)))
            e[5] = list(zip(servers, rows, strict=True))
        return e

    def usage(self, allocations: Mapping[int, Placement]) -> np.ndarray:
        """A new array, ``server_usage(cluster, specs, allocations)``."""
        used = np.zeros_like(self.cluster.capacity)
        if allocations:
            parts = [self.rows(j, p) for j, p in allocations.items()]
            np.add.at(used, np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts]))
        return used

    def update(self, allocations: Mapping[int, Placement]) -> np.ndarray:
        """``server_usage(cluster, specs, allocations)``, from the previous call's by the changes
        where that is exact. The array returned is the cache's own: read it, do not write it."""
        cur = self._current
        changed = [j for j, p in allocations.items() if cur.get(j) is not p]
        gone = [j for j in cur if j not in allocations]
        return self.apply_changes(allocations, changed, gone)

    def apply_changes(
        self, allocations: Mapping[int, Placement], changed: Iterable[int], gone: Iterable[int]
    ) -> np.ndarray:
        """:meth:`update` for a caller that knows what changed since the previous call:
        ``changed`` lists every job of ``allocations`` whose placement is not the object of the
        previous call (new jobs included), ``gone`` every job of the previous call no longer in
        ``allocations``. Same result as ``update(allocations)``, in O(changes)."""
        cur = self._current
        changed = [(j, allocations[j]) for j in changed]
        gone = list(gone)
        for j, p in changed:  # see the new jobs' demands before trusting integrality
            self.rows(j, p)
        if not self.integral:
            self._resum(allocations, changed, gone)
        else:
            # whole numbers: every partial sum is exact, so rows are added one by one in any order
            used = self.used
            entry = self._entry
            for j in gone:
                for s, row in entry(j, cur[j])[5]:
                    used[s] -= row
            for j, p in changed:
                if j in cur:
                    for s, row in entry(j, cur[j])[5]:
                        used[s] -= row
                for s, row in entry(j, p)[5]:
                    used[s] += row
        for j in gone:
            del cur[j]
        for j, p in changed:
            cur[j] = p
        for j in gone:
            if j in self._dead:
                self._dead.discard(j)
                self._jobs.pop(j, None)
        return self.used

    def _resum(self, allocations: Mapping[int, Placement], changed: list, gone: list) -> None:
        """The fractional case of :meth:`apply_changes` (before ``_current`` is updated)."""
        order = list(allocations)
        on, cur, entry = self._on, self._current, self._entry
        if on is not None and order != self._order:
            pos = {j: i for i, j in enumerate(self._order)}
            kept = [pos[j] for j in order if j in pos]
            if any(a > b for a, b in zip(kept, kept[1:], strict=False)):
                on = None  # the kept jobs were reordered: sums in the new order from scratch
        self._order = order
        if on is None:
            self.used = self.usage(allocations)
            on = self._on = {}
            for j, p in allocations.items():
                for s in entry(j, p)[3].tolist():
                    on.setdefault(s, {})[j] = None
            return
        if not changed and not gone:
            return
        touched: set[int] = set()
        for j in gone:
            for s in entry(j, cur[j])[3].tolist():
                on[s].pop(j, None)
                touched.add(s)
        for j, p in changed:
            if j in cur:
                for s in entry(j, cur[j])[3].tolist():
                    on[s].pop(j, None)
                    touched.add(s)
            for s in entry(j, p)[3].tolist():
                on.setdefault(s, {})[j] = None
                touched.add(s)
        used = self.used
        width = used.shape[1]
        npos: dict[int, int] | None = None  # each job's index in the allocations, when needed
        for s in sorted(touched):
            jobs = on[s]
            if len(jobs) > 1:
                if npos is None:
                    npos = {j: i for i, j in enumerate(order)}
                jobs = sorted(jobs, key=npos.__getitem__)
            acc = np.zeros(width)
            for j in jobs:
                for s2, row in entry(j, allocations[j])[5]:
                    if s2 == s:
                        acc += row
            used[s] = acc

    def forget(self, j: int) -> None:
        """Drop job ``j``'s cached rows (it will not run again)."""
        if j in self._current:
            self._dead.add(j)
        else:
            self._jobs.pop(j, None)


def check_allocations(
    cluster: Cluster, specs: Mapping[int, JobSpec], t: int, allocations: Mapping[int, Placement]
) -> None:
    """Check one slot's allocations against capacities, roles, arrivals and model constraints
    (:func:`check_placements` on every job, then :func:`check_capacity`).

    Raises
    ------
    ScheduleViolation
        On the first violated constraint, naming slot, server, job and amounts.
    """
    check_placements(cluster, specs, t, allocations)
    check_capacity(cluster, t, allocations, server_usage(cluster, specs, allocations))


def check_placements(
    cluster: Cluster,
    specs: Mapping[int, JobSpec],
    t: int,
    allocations: Mapping[int, Placement],
    jobs: Iterable[int] | None = None,
) -> None:
    """Check the placements of ``jobs`` (default: all of ``allocations``) one by one: servers,
    roles, arrival, transfer delays and the job model's own constraints.

    Each of these only gets easier as ``t`` grows (arrival and data-arrival slots are fixed, the
    rest does not depend on ``t``), so a placement that passed when it was made still passes while
    it is kept: the simulator checks the jobs whose placement changed, and the capacity of all
    (:func:`check_capacity`).

    Raises
    ------
    ScheduleViolation
        On the first violated constraint (jobs in id order).
    """
    n = cluster.n_servers
    worker_ok = np.zeros(n, bool)
    worker_ok[cluster.servers_for("worker")] = True
    ps_ok = np.zeros(n, bool)
    ps_ok[cluster.servers_for("ps")] = True
    for j in sorted(allocations if jobs is None else jobs):
        p = allocations[j]
        if j not in specs:
            raise ScheduleViolation("unknown_job", f"allocation for unknown job {j}", slot=t, job=j)
        spec = specs[j]
        for role, pairs, ok in (("worker", p.workers, worker_ok), ("ps", p.ps, ps_ok)):
            for s, c in pairs:
                if s >= n:
                    raise ScheduleViolation(
                        "server", f"{role} on server index {s} >= n_servers {n}", slot=t, server=s, job=j
                    )
                if not ok[s]:
                    raise ScheduleViolation(
                        "role",
                        f"{c} {role}(s) on server {cluster.servers[s].name!r} of pool "
                        f"{cluster.servers[s].pool!r}, which cannot host a {role}",
                        slot=t,
                        server=s,
                        job=j,
                        amount=c,
                    )
        if t < spec.arrival:
            raise ScheduleViolation(
                "arrival", f"job {j} allocated before its arrival slot {spec.arrival}", slot=t, job=j
            )
        delays = spec.delays(cluster)
        for s in p.servers:
            if t < spec.arrival + delays[s]:
                raise ScheduleViolation(
                    "transfer_delay",
                    f"job {j} uses server {s} before its data arrives "
                    f"(slot {spec.arrival} + delay {delays[s]:g})",
                    slot=t,
                    server=s,
                    job=j,
                    amount=t,
                    limit=spec.arrival + delays[s],
                )
        for constraint, message in spec.model.placement_violations(spec, p):
            raise ScheduleViolation(constraint, f"job {j}: {message}", slot=t, job=j)


def check_capacity(
    cluster: Cluster,
    t: int,
    allocations: Mapping[int, Placement],
    used: np.ndarray,
    servers: Iterable[int] | None = None,
) -> None:
    """Check that ``used`` (:func:`server_usage` of ``allocations``) fits every server's hard
    capacity (compressible resources may be oversubscribed).

    ``servers``: check only these rows (the simulator passes the servers whose usage grew since
    a check of every row passed; the others can only have lost usage). The first server over
    capacity in index order is the one a check of every row reports.

    Raises
    ------
    ScheduleViolation
        ``capacity``, naming the first server and resource over capacity and the jobs there.
    """
    rows = None if servers is None else np.array(sorted(set(servers)), dtype=np.intp)
    limit = cluster.capacity_limit  # capacity * (1 + _EPS) + _EPS on hard resources, else inf
    over = used > limit if rows is None else used[rows] > limit[rows]
    if over.any():
        s, r = map(int, np.argwhere(over)[0])
        s = s if rows is None else int(rows[s])
        on = sorted(j for j, p in allocations.items() if s in p.servers)
        raise ScheduleViolation(
            "capacity",
            f"{cluster.resources[r]!r} on server {cluster.servers[s].name!r} over capacity; jobs there: {on}",
            slot=t,
            server=s,
            resource=cluster.resources[r],
            amount=float(used[s, r]),
            limit=float(cluster.capacity[s, r]),
        )


def check_timeline(cluster: Cluster, specs: Mapping[int, JobSpec], runs) -> None:
    """Re-check a recorded schedule slot by slot, and across slots the job models' fixed
    allocation: a job whose model is not ``elastic`` has the same placement in consecutive slots,
    one that is not ``preemptible`` runs in consecutive slots only (A_online (2c)-(2d);
    ``fixed_allocation``).

    Parameters
    ----------
    runs : pandas.DataFrame or Iterable[tuple]
        Rows ``(job, slot, server, role, count)``: the tidy allocation table of a result, or the
        output of an offline solver.
    """
    import pandas as pd

    df = (
        runs
        if isinstance(runs, pd.DataFrame)
        else pd.DataFrame(list(runs), columns=["job", "slot", "server", "role", "count"])
    )
    last: dict[int, tuple[int, Placement]] = {}
    for t, g in df.groupby("slot", sort=True):
        per_job: dict[int, dict[str, dict[int, int]]] = {}
        for j, s, role, c in zip(g["job"], g["server"], g["role"], g["count"], strict=False):
            if role not in ("worker", "ps"):
                raise ValueError(f"timeline role must be 'worker' or 'ps', got {role!r} (job {j}, slot {t})")
            d = per_job.setdefault(int(j), {"worker": {}, "ps": {}})[role]
            d[int(s)] = d.get(int(s), 0) + int(c)  # duplicate rows add up
        allocs = {j: Placement.of(d["worker"], d["ps"]) for j, d in per_job.items()}
        check_allocations(cluster, specs, int(t), allocs)
        for j, p in allocs.items():
            _check_fixed(specs[j], int(t), p, last.get(j))
            last[j] = (int(t), p)


def _check_fixed(spec: JobSpec, t: int, p: Placement, last: tuple[int, Placement] | None) -> None:
    """Cross-slot model constraints: a non-elastic job keeps its placement while it runs, a
    non-preemptible one runs without a gap from start to completion (A_online (2c)-(2d))."""
    if last is None:
        return
    t0, p0 = last
    model = spec.model
    if t0 == t - 1 and not model.elastic and p != p0:
        raise ScheduleViolation(
            "fixed_allocation",
            f"job {spec.job_id} is not elastic: its placement changed from {p0} in slot {t0} to {p}",
            slot=t,
            job=spec.job_id,
        )
    if t0 < t - 1 and not model.preemptible:
        raise ScheduleViolation(
            "fixed_allocation",
            f"job {spec.job_id} is not preemptible: it ran in slot {t0}, then nothing until slot {t}",
            slot=t,
            job=spec.job_id,
            amount=t - t0 - 1,
            limit=0,
        )


INTERVAL_COLUMNS = ("job", "server", "role", "count", "first_slot", "last_slot")
"""Columns of an interval-encoded allocation table (:attr:`SimulationResult.intervals
<dlsched.core.simulator.SimulationResult.intervals>`, ``dlsched run``'s ``allocations.parquet``)."""


def check_intervals(cluster: Cluster, specs: Mapping[int, JobSpec], intervals) -> int:
    """:func:`check_timeline` for an interval-encoded schedule, without expanding it to slots.

    ``intervals`` has the columns :data:`INTERVAL_COLUMNS`: ``count`` tasks of ``role`` on
    ``server`` in every slot ``first_slot .. last_slot`` (both included). The rows of one job that
    share ``first_slot`` and ``last_slot`` are its placement during that stretch (duplicate rows
    add up).

    Each stretch's placement is checked at its first slot (:func:`check_placements`: what it
    checks only gets easier as the slot grows), across stretches the job models' fixed
    allocation (as :func:`check_timeline`), and the capacity at every slot where some stretch
    starts (usage only grows there) on the servers that receive tasks. The usage is kept by
    adding and subtracting the stretches' rows: exact for whole-number demands, within rounding
    far below the capacity test's 1e-9 otherwise. Cost: O(rows log rows), whatever the slots.

    Returns
    -------
    int
        The number of stretches checked.

    Raises
    ------
    ScheduleViolation
        As :func:`check_timeline` (``overlap``: two stretches of one job share a slot).
    ValueError
        A missing column, a role other than ``worker`` / ``ps``, ``last_slot < first_slot``.
    """
    import pandas as pd

    df = intervals if isinstance(intervals, pd.DataFrame) else pd.DataFrame(intervals)
    missing = [c for c in INTERVAL_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"interval table lacks columns {missing} (has {list(df.columns)})")
    bad = ~df["role"].isin(("worker", "ps"))
    if bad.any():
        r = df[bad].iloc[0]
        raise ValueError(f"interval role must be 'worker' or 'ps', got {r['role']!r} (job {r['job']})")
    bad = df["last_slot"] < df["first_slot"]
    if bad.any():
        r = df[bad].iloc[0]
        raise ValueError(
            f"interval of job {r['job']} ends (slot {r['last_slot']}) before it starts ({r['first_slot']})"
        )
    # one stretch per job, first and last slot: its placement
    stretches: list[tuple[int, int, int, Placement]] = []  # (first, job, last, placement)
    cols = [df[c].to_numpy() for c in ("job", "first_slot", "last_slot", "server", "role", "count")]
    order = np.lexsort((cols[2], cols[1], cols[0]))
    key = None
    per: dict[str, dict[int, int]] = {}
    for i in order.tolist():
        k = (int(cols[0][i]), int(cols[1][i]), int(cols[2][i]))
        if k != key:
            if key is not None:
                stretches.append((key[1], key[0], key[2], Placement.of(per["worker"], per["ps"])))
            key, per = k, {"worker": {}, "ps": {}}
        d = per[cols[4][i]]
        s = int(cols[3][i])
        d[s] = d.get(s, 0) + int(cols[5][i])
    if key is not None:
        stretches.append((key[1], key[0], key[2], Placement.of(per["worker"], per["ps"])))
    # per job, in slot order: placement constraints at the first slot, fixed allocation across
    last: dict[int, tuple[int, int, Placement]] = {}
    for first, j, end, p in sorted(stretches, key=lambda x: (x[1], x[0])):
        if j not in specs:
            raise ScheduleViolation("unknown_job", f"allocation for unknown job {j}", slot=first, job=j)
        check_placements(cluster, specs, first, {j: p})
        prev = last.get(j)
        if prev is not None:
            f0, e0, p0 = prev
            if first <= e0:
                raise ScheduleViolation(
                    "overlap", f"job {j} has two placements in slot {first}", slot=first, job=j
                )
            _check_fixed(specs[j], first, p, (e0, p0))
        last[j] = (first, end, p)
    # capacity at every slot where a stretch starts, from the stretches in force
    cache = UsageCache(cluster, specs)
    used = np.zeros_like(cluster.capacity)
    ends: list[tuple[int, int, int]] = []  # heap of (last slot, job, index)
    by_start = sorted(range(len(stretches)), key=lambda i: (stretches[i][0], stretches[i][1]))
    live: dict[int, Placement] = {}
    i = 0
    n = len(by_start)
    while i < n:
        t = stretches[by_start[i]][0]
        while ends and ends[0][0] < t:
            _, j, k = heapq.heappop(ends)
            for s, row in cache._entry(j, stretches[k][3])[5]:
                used[s] -= row
            del live[j]
        grown: list[int] = []
        while i < n and stretches[by_start[i]][0] == t:
            k = by_start[i]
            first, j, end, p = stretches[k]
            for s, row in cache._entry(j, p)[5]:
                used[s] += row
                grown.append(s)
            live[j] = p
            heapq.heappush(ends, (end, j, k))
            i += 1
        check_capacity(cluster, t, live, used, grown)
    return len(stretches)
