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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from dlsched.core.tasks import EMPTY, Placement, _pairs  # noqa: F401 - re-exported (old import path)

if TYPE_CHECKING:  # pragma: no cover
    from dlsched.core.cluster import Cluster
    from dlsched.core.jobs import JobSpec

_EPS = 1e-9


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
    """

    allocations: Mapping[int, Placement] = field(default_factory=dict)
    admit: frozenset[int] = frozenset()
    reject: frozenset[int] = frozenset()
    wakeup: int | None = None
    info: Mapping[int, Mapping[str, float]] = field(default_factory=dict)
    pause: Mapping[int, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        src = dict(self.allocations)
        if set(map(type, src)) <= {int} and set(map(type, src.values())) <= {Placement}:
            # the common case, checked at C speed: int keys (int(j) is j) and Placement values
            allocs = {j: p for j, p in src.items() if not p.is_empty}
        else:
            allocs = {}
            for j, p in src.items():
                if not isinstance(p, Placement):
                    raise TypeError(
                        f"decision.allocations[{j!r}] must be a Placement, got {type(p).__name__}"
                    )
                if not p.is_empty:
                    allocs[int(j)] = p
        object.__setattr__(self, "allocations", MappingProxyType(allocs))
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
    appears, :meth:`update` re-sums everything with one ``numpy.add.at`` in the allocations' order
    (unbuffered, so the same products are added in the same order as :func:`server_usage`).
    """

    _EXACT = 2.0**40  # whole numbers below this add exactly (far below 2**53)

    def __init__(self, cluster: Cluster, specs: Mapping[int, JobSpec]) -> None:
        self.cluster = cluster
        self.specs = specs
        self._jobs: dict[int, list] = {}  # job -> [worker vector, PS vector, placement, servers, rows]
        self.integral = True
        self.used = np.zeros_like(cluster.capacity)
        self._current: dict[int, Placement] = {}
        self._dead: set[int] = set()

    def rows(self, j: int, p: Placement) -> tuple[np.ndarray, np.ndarray]:
        """Servers and added rows of job ``j`` under placement ``p``."""
        e = self._jobs.get(j)
        if e is None:
            wd, pd_ = demand_vectors(self.cluster, self.specs[j])
            if self.integral:
                both = np.concatenate([wd, pd_])
                self.integral = bool(np.all(both == np.round(both)) and np.all(np.abs(both) < self._EXACT))
            e = self._jobs[j] = [wd, pd_, None, None, None]
        if e[2] is not p and e[2] != p:
            wd, pd_ = e[0], e[1]
            servers = [s for s, _ in p.workers] + [s for s, _ in p.ps]
            rows = [c * wd for _, c in p.workers] + [c * pd_ for _, c in p.ps]
            e[2], e[3] = p, np.asarray(servers, dtype=np.intp)
            e[4] = np.array(rows) if rows else np.zeros((0, len(self.cluster.resources)))
        return e[3], e[4]

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
            self.used = self.usage(allocations)
        else:
            used = self.used
            for j in gone:
                servers, rows = self.rows(j, cur[j])
                np.subtract.at(used, servers, rows)
            for j, p in changed:
                if j in cur:
                    servers, rows = self.rows(j, cur[j])
                    np.subtract.at(used, servers, rows)
                servers, rows = self.rows(j, p)
                np.add.at(used, servers, rows)
        for j in gone:
            del cur[j]
        for j, p in changed:
            cur[j] = p
        for j in gone:
            if j in self._dead:
                self._dead.discard(j)
                self._jobs.pop(j, None)
        return self.used

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
    cluster: Cluster, t: int, allocations: Mapping[int, Placement], used: np.ndarray
) -> None:
    """Check that ``used`` (:func:`server_usage` of ``allocations``) fits every server's hard
    capacity (compressible resources may be oversubscribed).

    Raises
    ------
    ScheduleViolation
        ``capacity``, naming the first server and resource over capacity and the jobs there.
    """
    over = (used > cluster.capacity * (1 + _EPS) + _EPS) & cluster.hard[None, :]
    if over.any():
        s, r = map(int, np.argwhere(over)[0])
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
