"""The one policy protocol and the read-only view a policy decides from.

Every scheduler, from FIFO to OASiS, implements :class:`Policy`::

    class Policy(Protocol):
        name: ClassVar[str]
        def reset(self, cluster: Cluster, rng: np.random.Generator) -> None: ...
        def decide(self, t: int, view: ClusterView) -> Decision: ...

The simulator builds a :class:`ClusterView` at each decision point: only jobs that have arrived
and are neither finished nor rejected, their progress, their current placement and their
observations (e.g. loss values), and the server usage of the current placements. A policy cannot
see future arrivals. Plan-ahead policies (OASiS, PD-ORS, A_online) keep their committed plans in
the policy object and return the current slot's part, asking to be woken each slot where the plan
changes (``Decision.wakeup``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec
from dlsched.core.schedule import Decision, Placement


@dataclass(frozen=True)
class JobView:
    """What a policy may know about one arrived, unfinished, not rejected job.

    Attributes
    ----------
    spec : JobSpec
    status : str
        ``"pending"`` (not yet admitted) or ``"admitted"``.
    work_done : float
        Progress so far, in the model's work unit.
    remaining_work : float or None
        ``total_work - work_done`` when the model's work is known to the scheduler
        (``model.work_known``), else None.
    start : int or None
        First slot in which the job had workers.
    placement : Placement
        Placement in the previous slot (empty if not running).
    observations : numpy.ndarray
        Observed loss per completed epoch (empty for models without a loss curve).
    """

    spec: JobSpec
    status: str
    work_done: float
    remaining_work: float | None
    start: int | None
    placement: Placement
    observations: np.ndarray

    @property
    def job_id(self) -> int:
        """The job's id."""
        return self.spec.job_id

    @property
    def running(self) -> bool:
        """True when the job had an allocation in the previous slot."""
        return not self.placement.is_empty


@dataclass(frozen=True)
class ClusterView:
    """Read-only snapshot handed to :meth:`Policy.decide`.

    The simulator builds the job table's entries lazily while the policy decides (a decision
    that reads a few jobs does not pay for the whole queue); a view the policy keeps is completed
    when ``decide`` returns, so it stays a snapshot of its slot.

    Attributes
    ----------
    t : int
        Current slot.
    cluster : Cluster
    jobs : Mapping[int, JobView]
        Arrived, unfinished, not rejected jobs, in (arrival, job_id) order.
    used : numpy.ndarray
        Resources used by the current placements, shape (n_servers, n_resources), read-only.
    arrived, completed : tuple[int, ...]
        Jobs that arrived / completed since the previous decision.
    horizon : int or None
        Last slot + 1 of the simulation, if bounded (OASiS's T).
    placements : Mapping[int, Placement] or None
        The running jobs' placements (what :meth:`current_allocations` returns, in no particular
        order), when the simulator provides them (a read-only
        :class:`~dlsched.core.schedule.Allocations`); read through :meth:`placement_of`, or pass
        it to :meth:`Decision.update <dlsched.core.schedule.Decision.update>` to change a few.
    """

    t: int
    cluster: Cluster
    jobs: Mapping[int, JobView]
    used: np.ndarray
    arrived: tuple[int, ...]
    completed: tuple[int, ...]
    horizon: int | None
    placements: Mapping[int, Placement] | None = None

    def placement_of(self, job: int) -> Placement | None:
        """The placement of running job ``job``, None if it is not running (or not in the view).

        O(1) when the simulator gave :attr:`placements`, without building the job's
        :class:`JobView`; else read from :attr:`jobs`.
        """
        if self.placements is not None:
            q = self.placements.get(job)
            return q if q is not None and not q.is_empty else None
        v = self.jobs.get(job)
        return v.placement if v is not None and v.running else None

    @property
    def free(self) -> np.ndarray:
        """Capacity minus :attr:`used` (a fresh writable array)."""
        return self.cluster.capacity - self.used

    def pending(self) -> list[JobView]:
        """Jobs not yet admitted, in arrival order."""
        return [v for v in self.jobs.values() if v.status == "pending"]

    def admitted(self) -> list[JobView]:
        """Admitted jobs, in arrival order."""
        return [v for v in self.jobs.values() if v.status == "admitted"]

    def current_allocations(self) -> dict[int, Placement]:
        """The placements of running jobs (what keeping everything unchanged would return)."""
        return {j: v.placement for j, v in self.jobs.items() if v.running}


@runtime_checkable
class Policy(Protocol):
    """The scheduler interface (see module docstring)."""

    name: ClassVar[str]

    def reset(self, cluster: Cluster, rng: np.random.Generator) -> None:
        """Forget all state; called once before a simulation."""

    def decide(self, t: int, view: ClusterView) -> Decision:
        """Decide admissions and the allocation of slot ``t``."""


class BasePolicy:
    """Convenience base: stores the cluster and the random generator, exposes ``params``.

    ``workload_defaults`` names workload parameters a policy needs to be meaningful (e.g. the
    Preemptive baseline needs jobs that may be paused: ``{"preemptible": True}``);
    :func:`dlsched.registry.workload_defaults` applies them where the workload takes them and the
    user left them unset. The simulator never reads them.
    """

    name: ClassVar[str] = "base"
    workload_defaults: ClassVar[Mapping[str, object]] = MappingProxyType({})

    def reset(self, cluster: Cluster, rng: np.random.Generator) -> None:
        """Store the cluster and random stream."""
        self.cluster = cluster
        self.rng = rng

    @property
    def params(self) -> dict[str, object]:
        """Constructor parameters and their values (attributes named like ``__init__``'s
        parameters; state kept by the policy is not included)."""
        import inspect

        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        return {k: getattr(self, k) for k in names if hasattr(self, k)}

    def decide(self, t: int, view: ClusterView) -> Decision:  # pragma: no cover - abstract
        raise NotImplementedError
