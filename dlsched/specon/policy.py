r"""SpeCon's Algorithms 1-3 and the Kubernetes default scheduler DS, as engine policies.

Y. Mao, Y. Fu, W. Zheng, L. Cheng, Q. Liu, D. Tao, "Speculative Container Scheduling for Deep
Learning Applications in a Kubernetes Cluster", arXiv:2010.11307 (IEEE Systems Journal 2021).
The reading implemented is ``shared/spec/specon.md`` section 4 (Algorithms 1-3 with the seed's
line numbers; the code comments ``A1 l. N`` / ``A2 l. N`` / ``A3 l. N`` cite them) and section 5
(DS). Every [R] reading of the spec is a constructor parameter of :class:`SpeCon`.

Both policies use only the engine's policy protocol: a container is a one-worker
:class:`~dlsched.core.schedule.Placement` on one node; a migration is a placement that moves to
another node, paying the job model's :meth:`~dlsched.core.jobs.JobModel.switch_pause` plus
``extra_pause`` (given to the engine as :attr:`Decision.pause`). The policy asks to be woken at
the next monitor tick or rebalance tick (``Decision.wakeup``), or with ``advance="events"`` only
at the next slot where something can change (:class:`SpeCon`, *Advancing time*).

=====================================  =====================================================
paper symbol                           code
=====================================  =====================================================
:math:`w_i \in W`                      server index ``s`` of the cluster
:math:`c_j`                            job ``j`` (one container)
:math:`PC, WC, CC`                     ``"PC"``, ``"WC"``, ``"CC"`` (:attr:`_Container.cat`)
:math:`\alpha`                         ``alpha``
:math:`t_m - t_{m-1}`                  ``interval`` (seconds)
:math:`E_{w_i,c_j}(t)`                 ``model.evaluation(work_done)`` (normalised: ``gain_norm``)
:math:`G_{w_i,c_j}(t)`                 :attr:`_Container.g_prev` after a tick
:math:`w_{pc}, w_{wc}, w_{cc}`         ``w_pc``, ``w_wc``, ``w_cc`` (2, 1.5, 1; l. 322)
:math:`S_{w_j}`                        :meth:`SpeCon.scores`
:math:`R(w_j, t)`                      :meth:`SpeCon.resource_consumption` (``resource``)
:math:`t_{c_j}`, :math:`d_{c_j}`       :attr:`_Container.t_mark`, ``t - t_mark``
:math:`bf`                             ``bf`` in :meth:`SpeCon._rebalance`
``migrated``, ``rebalanced``           :attr:`_Container.migrated`, :attr:`_Container.rebalanced`
=====================================  =====================================================

Notes [N] (ours, not the paper's): a worker whose memory cannot hold the container is not a
candidate of Alg. 2 / a target of Alg. 3 (memory is a capacity check only, spec 3.3). With
``alpha = 0`` no tick can change anything (Alg. 1 l. 6 needs :math:`G < 0`), so the policy asks
for no wake-ups and its run is arithmetically identical to DS; with ``migrate=False`` the ticks
still run (the category log is kept), so completion times match DS's up to float rounding of
the engine's progress sums.

The policy keeps a log in :attr:`SpeCon.events` and :attr:`SpeCon.transitions` (lists of dicts,
times in slots). ``events`` kinds: ``stay`` (Alg. 2 l. 8-10, with the scores), ``request``
(Alg. 2 chose another worker, with the scores) followed by ``M`` (the move), ``R`` (an Alg. 3
move, with ``branch``, ``bf`` and the target's count before it), ``stay_disabled`` /
``rebalance_disabled`` (a move not made because ``migrate=False``). ``transitions``: ``job``,
``from``, ``to`` categories.

Floating point and ties (issue 19)
----------------------------------
Every discrete choice below that compares computed floats treats two values within
:data:`~dlsched.core.numerics.REL_TOL` (1e-9) of the larger magnitude, plus
:data:`~dlsched.core.numerics.ABS_TOL` (0: no absolute floor), as equal ("tol" below;
:mod:`dlsched.core.numerics`), so that a last-bit difference cannot flip it on another
machine. Integer comparisons (counts, slots, :math:`d_{c_j}`, :math:`bf`, Alg. 1 l. 15, Alg. 3)
need none.

================================  =======================================  ===============================
decision                          rule (tol: the numerics tolerance)       tie / boundary
================================  =======================================  ===============================
Alg. 1 l. 6 / 17 (categorise)     :math:`G(t_m) < G(t_{m-1})` by > tol     equal: l. 17 (stays)
Alg. 1 l. 6, 17, 19 (spec A6)     :math:`G < \alpha`, :math:`G > \alpha`   equal: no branch (A6)
                                  by > tol
Alg. 2 l. 5-7, Min(S) (spec B5)   :math:`S_{w_j} \le \min S` + tol         all such are in :math:`T`;
                                                                           stay if :math:`w_i \in T`
Alg. 2 l. 18-21, R (spec B3)      lowest :math:`R(w_j, t)` by              lowest worker index
                                  :func:`~dlsched.core.numerics.argmin`
memory fit (3.3 [N]; DS, _fits)   used + need :math:`\le` cap + 1e-9       absolute slack (GB): equal fits
pause end (spec 7.7)              ``ceil(pause slots - 1e-9)``             as the engine's ``_TOL``
================================  =======================================  ===============================

:math:`R(w, t)` with ``resource="cpu"`` counts only containers that run: a container pausing
after a move (save + restore, spec 7.7 and 8.4) has CPU share 0 in the engine, so it adds 0 to
:math:`R` on its target (and on its source, which it has left) until its pause ends (issue 21).
It still counts for :math:`|w|`, the scores, ``resource="containers"`` and ``"memory"``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

import numpy as np

from dlsched.core import numerics
from dlsched.core.jobs import RateContext
from dlsched.core.policy import BasePolicy, ClusterView, JobView
from dlsched.core.schedule import Decision, Placement, UsageCache, demand_vectors

__all__ = [
    "K8sDefault",
    "SpeCon",
    "CASCADES",
    "GAIN_NORMS",
    "REBALANCE_TRIGGERS",
    "ADVANCES",
    "categorise",
    "gain",
    "speculative_target",
]

CASCADES = ("none", "cc_request", "full")
"""Valid ``cascade=`` values (spec A2)."""
GAIN_NORMS = ("first", "minmax", "previous")
"""Valid ``gain_norm=`` values (spec A3)."""
FIRST_ROUNDS = ("warmup", "inf")
"""Valid ``first_round=`` values (spec A4)."""
REQUEST_SCOPES = ("cluster", "worker")
"""Valid ``request_scope=`` values (spec A5)."""
MONITOR_CLOCKS = ("per_container", "global")
"""Valid ``monitor_clock=`` values (spec A7)."""
RESOURCES = ("cpu", "containers", "memory")
"""Valid ``resource=`` values (spec B3)."""
SCORE_MODES = ("count", "cpu_weighted")
"""Valid ``score_mode=`` values (spec B5)."""
REBALANCE_TRIGGERS = ("periodic", "on_completion", "all_converged", "never")
"""Valid ``rebalance_trigger=`` values (spec C1; ``never`` disables Algorithm 3)."""
MARK_TIMES = ("marked_migrated", "entered_cc")
"""Valid ``t_cj=`` values (spec C2)."""
MOVE_LIMITS = ("once_total", "once_per_algorithm")
"""Valid ``move_limit=`` values (spec C3)."""
REBALANCE_SOURCES = ("any", "above_bf")
"""Valid ``rebalance_source=`` values (spec C4)."""
BRANCH2 = ("prose", "literal_nested")
"""Valid ``branch2=`` values (spec C5)."""
ADVANCES = ("every_tick", "events")
"""Valid ``advance=`` values (how the policy asks the engine to advance time; ours, not the
paper's: :class:`SpeCon`, *Advancing time*)."""
LOOKAHEAD = 512
"""``advance="events"``: most virtual Alg. 1 ticks one prediction evaluates before it asks to be
woken anyway (a real tick then, and a new prediction), bounding the cost of one decision."""


def _number(value, what: str, *, lo: float | None = None, hi: float | None = None, strict_lo=False):
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not ok or not math.isfinite(float(value)):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    x = float(value)
    if lo is not None and (x <= lo if strict_lo else x < lo):
        raise ValueError(f"{what} must be {'>' if strict_lo else '>='} {lo:g}, got {value!r}")
    if hi is not None and x > hi:
        raise ValueError(f"{what} must be <= {hi:g}, got {value!r}")
    return x


def _choice(value, what: str, allowed) -> str:
    if value not in allowed:
        raise ValueError(f"{what} must be one of {tuple(allowed)}, got {value!r}")
    return str(value)


def _host(p: Placement) -> int:
    ((s, _),) = p.workers
    return int(s)


# ------------------------------------------------------------------- pure algorithm steps


def gain(e_now: float, e_prev: float, gain_norm: str = "first") -> float:
    r""":math:`G(t_m)` of Alg. 1 l. 5 (Eq. (1) with the absolute value) from two evaluation
    values already normalised as ``gain_norm`` says (spec A3); ``"previous"`` divides by
    :math:`|E(t_{m-1})|` here."""
    g = abs(e_now - e_prev)
    if gain_norm == "previous":
        return g / abs(e_prev) if e_prev else g
    return g


def categorise(
    cat: str, g: float, g_prev: float | None, alpha: float, cascade: str = "none"
) -> tuple[tuple[str, ...], bool]:
    r"""One tick of Algorithm 1 l. 6-22 for one unmarked container, as a pure function.

    Parameters
    ----------
    cat : {"PC", "WC", "CC"}
        The container's category before the tick.
    g, g_prev : float
        :math:`G(t_m)` and :math:`G(t_{m-1})`; ``g_prev=None`` is the first tick under
        ``first_round="warmup"`` (spec A4): nothing changes.
    alpha : float
        Categorisation threshold.
    cascade : {"none", "cc_request", "full"}
        Spec A2.

    Returns
    -------
    (path, reached_request) : tuple
        ``path``: the categories the container passes through, starting with ``cat`` (length 1
        when it stays). ``reached_request``: the tick reached A1 l. 15, where the container asks
        for a reallocation if :math:`|PC| + |WC| > 1` (the caller counts; spec A5).

    Comparisons use the numerics tolerance (module docstring, "Floating point and ties"):
    :math:`G(t_m) < G(t_{m-1})` and :math:`G < \alpha` hold only by more than ``REL_TOL`` of the
    larger magnitude (+ ``ABS_TOL``); a gain equal to :math:`G(t_{m-1})` within it takes l. 17
    (stays); a gain equal to :math:`\alpha` within it takes no branch (spec A6).
    """
    path = [cat]
    if g_prev is None:  # spec A4 "warmup": the first tick only records G(t_1)
        return tuple(path), False
    # A1 l. 6 / 17 / 19 with numerics tolerance (REL_TOL of the larger magnitude + ABS_TOL):
    # G(t_m) < G(t_{m-1}) and G < alpha only by more than it; G = alpha within it: no branch (A6)
    below = numerics.less(g, alpha)
    if below and numerics.less(g, g_prev):  # A1 l. 6
        steps = 3 if cascade == "full" else 1
        for _ in range(steps):
            now = path[-1]
            if now == "PC":  # A1 l. 7-9
                path.append("WC")
            elif now == "WC":  # A1 l. 10-12 ([T]: WC -> CC)
                path.append("CC")
                if cascade == "cc_request":
                    return tuple(path), True
            else:  # A1 l. 13-16: remains in CC, request if others still progress
                return tuple(path), True
            if cascade != "full":
                break
    elif below:  # A1 l. 17-18: G(t_m) >= G(t_{m-1}) (up to tol) and G < alpha: stays
        pass
    elif numerics.less(alpha, g):  # A1 l. 19-22: back to PC
        if cat != "PC":
            path.append("PC")
    # G == alpha: no branch (spec A6)
    return tuple(path), False


def speculative_target(scores, here: int, candidates, resource) -> tuple[int, tuple[int, ...]]:
    r"""Algorithm 2 l. 2-21 as a pure function: where the requesting container goes.

    Parameters
    ----------
    scores : sequence of float
        :math:`S_{w_j}` of every worker (A2 l. 2-3).
    here : int
        The requesting container's worker :math:`w_i`.
    candidates : iterable of int
        Workers that may receive it (``here`` is always one).
    resource : callable
        ``resource(w)`` = :math:`R(w, t)`, ranking several minimum-score workers (A2 l. 18,
        spec B3); remaining ties go to the lowest index.

    Both float comparisons use the numerics tolerance (``REL_TOL`` of the larger magnitude +
    ``ABS_TOL``): a score within it of the minimum is a minimum (A2 l. 6), and :math:`R` values
    within it of the lowest tie, the lowest worker index winning (A2 l. 18-21).

    Returns
    -------
    (target, T) : tuple
        ``target == here`` when the container stays (A2 l. 8-10); ``T`` the candidate set.
    """
    cand = sorted(set(candidates) | {here})
    smin = min(float(scores[s]) for s in cand)  # A2 l. 5
    # A2 l. 6-7: S_{w_j} = Min(S) with numerics tolerance (REL_TOL of |Min(S)| + ABS_TOL), as
    # numerics.argmin: cpu_weighted scores (B5) and non-dyadic weights are rounded sums
    bound = smin + numerics.tolerance(smin, smin)
    T = tuple(s for s in cand if float(scores[s]) <= bound)  # A2 l. 4-7
    if here in T:  # A2 l. 8-10: remains on w_i
        return here, T
    if len(T) == 1:  # A2 l. 13-16
        return T[0], T
    # A2 l. 17-21: lowest R(w_j, t) (B3) with numerics tolerance; ties -> lowest worker index
    # (T is in increasing index order, and numerics.argmin gives ties to the first)
    return T[numerics.argmin([float(resource(s)) for s in T])], T


# ------------------------------------------------------------------------------------- DS


class K8sDefault(BasePolicy):
    r"""DS, the Kubernetes default scheduler with the paper's fixed, even initial placement.

    SpeCon l. 322: "a fixed initial container placement, where workload are evenly distributed
    based on the number of containers, for both DS and SpeCon"; l. 400: containers 1-4 on
    Worker-1..4, then 5-8 rotate again. The :math:`k`-th launched container (launch order, ties by
    job id) goes to node :math:`(k-1) \bmod |W|` and stays there until it finishes: DS moves a
    pod only when its node fails (l. 400), never here. Each job is admitted at launch with one
    worker. [N] If the pinned node lacks memory for the container it waits (pending) until it
    fits, as a pod with a fixed node name would.

    Under the reading "a converged container needs less CPU" (workload ``converged_cpu`` < 1,
    issue 22; :mod:`dlsched.specon.model`, *Converged containers*) a container also books its
    extra CPU need on its node until it converges, and the policy wakes when the next one is
    predicted to (:meth:`converged_wakeup`); SpeCon inherits both. Without the reading nothing
    of this runs.
    """

    name: ClassVar[str] = "k8s_default"

    def __init__(self) -> None:
        pass

    def reset(self, cluster, rng) -> None:
        """Forget all state."""
        super().reset(cluster, rng)
        self._launched = 0
        self._node: dict[int, int] = {}
        self._placement: dict[int, Placement] = {}
        self._converged: set[int] = set()  # converged-CPU reading: containers past x_c
        self._phased = False  # some job uses the converged-CPU reading
        self._specs: dict = {}  # job -> JobSpec of the jobs in the current view
        self._demands: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # job -> demand vectors
        self._ids: tuple[int, ...] | None = None  # the previous view's jobs (_jobs_changed)
        self._waiting = False  # a job of the view was left pending by _place_new
        self._placed = UsageCache(cluster, self._specs)  # usage of self._placement (_placed_usage)

    # ----------------------------------------------------------------------- view and usage
    def _jobs_changed(self, view: ClusterView) -> bool:
        """The view holds other jobs than the previous decision's (an arrival or a completion).

        Most decisions (SpeCon's ticks) see the same jobs; then the specs, the pinned nodes and
        the placed containers are the same, and :meth:`_read_specs` and the per-job loops of
        :meth:`_place_new` are skipped. The test compares the job ids (C speed), not the events
        ``view.arrived`` / ``view.completed``, so that it holds for any view."""
        ids = tuple(view.jobs)
        if ids == self._ids:
            return False
        self._ids = ids
        return True

    def _read_specs(self, view: ClusterView) -> None:
        """``self._specs``: the spec of every job in the view. A job's spec never changes, so it
        is read from its :class:`JobView` once, when the job first appears (a decision then
        builds only the views it reads, not the whole job table)."""
        old, jobs = self._specs, view.jobs
        self._specs = {j: old[j] if j in old else jobs[j].spec for j in jobs}
        if len(self._demands) > len(self._specs):
            self._demands = {j: d for j, d in self._demands.items() if j in self._specs}

    def _vectors(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Job ``j``'s worker and PS demand vectors (:func:`demand_vectors`, computed once)."""
        d = self._demands.get(j)
        if d is None:
            wd, pd_ = demand_vectors(self.cluster, self._specs[j])
            wd.setflags(write=False)
            pd_.setflags(write=False)
            d = self._demands[j] = (wd, pd_)
        return d

    def _usage(self, allocations: Mapping[int, Placement]) -> np.ndarray:
        """:func:`~dlsched.core.schedule.server_usage` of ``allocations``, bit for bit: the same
        products added in the same order, from the cached demand vectors."""
        used = np.zeros_like(self.cluster.capacity)
        for j, p in allocations.items():
            wd, pd_ = self._vectors(j)
            for s, c in p.workers:
                used[s] += c * wd
            for s, c in p.ps:
                used[s] += c * pd_
        return used

    def _placed_usage(self) -> np.ndarray:
        """:meth:`_usage` of ``self._placement`` (a new array, bit for bit the same: a
        :class:`~dlsched.core.schedule.UsageCache` equals ``server_usage``, which adds the same
        products in the same order), re-summing only the nodes whose containers changed."""
        cache = self._placed
        cache.specs = self._specs
        return cache.update(self._placement).copy()

    def _usage_row(self, allocations: Mapping[int, Placement], s: int) -> np.ndarray:
        """Row ``s`` of :meth:`_usage` (server ``s``'s additions only, in the same order, so the
        row is bit for bit the same)."""
        row = np.zeros(self.cluster.capacity.shape[1], dtype=self.cluster.capacity.dtype)
        for j, p in allocations.items():
            if s not in p.servers:
                continue
            wd, pd_ = self._vectors(j)
            for w, c in p.workers:
                if w == s:
                    row += c * wd
            for w, c in p.ps:
                if w == s:
                    row += c * pd_
        return row

    def _pending(self, view: ClusterView) -> list[JobView]:
        """``view.pending()`` without building the placed containers' views: a placed container
        was admitted when it was placed (only pending jobs can be unplaced ones)."""
        jobs, placed = view.jobs, self._placement
        return [jobs[j] for j in jobs if j not in placed and jobs[j].status == "pending"]

    # ------------------------------------------- reading "a converged container needs less CPU"
    @staticmethod
    def _reads_converged(spec) -> bool:
        return getattr(spec.model, "converged_cpu", 1.0) < 1

    def _container(self, j: int, s: int) -> Placement:
        """Container ``j`` on node ``s``: one worker; under the converged-CPU reading
        (:mod:`dlsched.specon.model`, *Converged containers*) a container that still progresses
        also holds its extra CPU need, booked as a ``ps`` slot on the same node."""
        if self._reads_converged(self._specs[j]) and j not in self._converged:
            return Placement.of({s: 1}, {s: 1})
        return Placement.of({s: 1})

    def _pausing(self, t: int, j: int) -> bool:
        """Container ``j`` is in a migration pause at slot ``t`` (DS never moves one)."""
        return False

    def _update_converged(self, view: ClusterView) -> None:
        """Converged-CPU reading: containers whose work reached :math:`x_c`
        (``model.converged_step``) give up their extra CPU need, on the node they are on."""
        if not self._phased:
            return
        for j, p in list(self._placement.items()):
            spec = self._specs[j]
            if j in self._converged or not self._reads_converged(spec) or j not in view.jobs:
                continue
            x_c = spec.model.converged_step
            if view.jobs[j].work_done >= x_c * (1 - 1e-12) - 1e-9:
                self._converged.add(j)
                self._placement[j] = Placement.of({_host(p): 1})

    def converged_wakeup(self, t: int, view: ClusterView) -> int | None:
        """Converged-CPU reading: the first slot at which a progressing container is predicted
        to reach :math:`x_c` at today's rates (None without the reading or such containers).

        A prediction can only be early (a pausing container's rate is 0, a pause ending slows
        the others) or made again (every arrival, completion and move is a decision), so each
        container converges within one slot of :math:`x_c`."""
        if not self._phased:
            return None
        running = {j: p for j, p in self._placement.items() if not self._pausing(t, j)}
        ctx = RateContext(self.cluster, self._usage(running))
        best: int | None = None
        for j, p in self._placement.items():
            spec = self._specs[j]
            if j in self._converged or not self._reads_converged(spec) or j not in view.jobs:
                continue
            r = spec.model.rate(spec, p, ctx)
            if r <= 0:
                continue
            left = spec.model.converged_step - view.jobs[j].work_done
            k = max(1, math.ceil(left / r - 1e-9))
            best = t + k if best is None else min(best, t + k)
        return best

    def _place_new(self, t: int, view: ClusterView, changed: bool = True) -> tuple[set[int], list[int]]:
        """Pin newly launched jobs to their round-robin node and start those that fit.

        ``changed``: the view's jobs differ from the previous decision's (:meth:`_jobs_changed`).
        When they do not, no job is new, none has left, and the pending jobs are those the
        previous decision left pending (none unless ``self._waiting``), so only those are read.

        Returns the admitted job ids and the jobs started now (launch order)."""
        if not changed and not self._waiting:
            return set(), []
        n = self.cluster.n_servers
        if changed:
            for j in view.jobs:  # (arrival, job_id) order
                if j not in self._node:
                    self._node[j] = self._launched % n
                    self._launched += 1
                    self._phased = self._phased or self._reads_converged(self._specs[j])
            for j in list(self._placement):
                if j not in self._specs:  # self._specs: the jobs of the view
                    del self._placement[j]
                    self._placed.forget(j)
        pending = self._pending(view)
        used = self._placed_usage() if pending else None
        hard = self.cluster.hard
        admit: set[int] = set()
        started: list[int] = []
        for v in pending:
            s = self._node[v.job_id]
            need = self._vectors(v.job_id)[0]  # cluster.vector(worker_demand)
            # capacity fit of the pinned node: 1e-9 absolute slack (an exact fit fits)
            if np.all((used[s] + need)[hard] <= self.cluster.capacity[s][hard] + 1e-9):
                used[s] += need
                admit.add(v.job_id)
                started.append(v.job_id)
                self._placement[v.job_id] = self._container(v.job_id, s)
        self._waiting = len(started) < len(pending)
        return admit, started

    def decide(self, t: int, view: ClusterView) -> Decision:
        """Admit and pin new containers; keep every running container where it is."""
        changed = self._jobs_changed(view)
        if changed:
            self._read_specs(view)
        admit, _ = self._place_new(t, view, changed)
        self._update_converged(view)
        wake = self.converged_wakeup(t, view)
        return Decision(allocations=dict(self._placement), admit=admit, wakeup=wake)


# ------------------------------------------------------------------------------------ SpeCon


@dataclass
class _Container:
    """Per-container state of Algorithm 1 (monitor), 2 (mark) and 3 (rebalance flag)."""

    launch: int
    next_tick: int
    e_prev: float | None = None  # E(t_{m-1}) (normalised)
    g_prev: float | None = None  # G(t_{m-1})
    cat: str = "PC"  # A1 l. 2: every container starts in PC
    migrated: bool = False  # A1 l. 2
    rebalanced: bool = False  # A3 l. 16
    moved_by: str = ""  # "M" (Alg. 2), "R" (Alg. 3), "MR"
    t_mark: int | None = None  # t_{c_j}
    t_cc: int | None = None  # slot of entering CC (t_cj="entered_cc")
    pause_end: int = 0  # slot at which a migration pause ends
    # advance="events" only: (t0, w0, r) = work w0 at slot t0 and the rate (steps per slot) since
    # then, and the predicted slot of the next tick that can change something (None: none)
    anchor: tuple[int, float, float] | None = None
    due: int | None = None
    cond: int | None = None  # first tick reaching A1 l. 15 while no request can be sent


class SpeCon(K8sDefault):
    r"""SpeCon: Container Monitor (Alg. 1), Speculative Scheduling (Alg. 2), Rebalance (Alg. 3).

    Initial placement is DS's (:class:`K8sDefault`, l. 322). Then every container not yet marked
    ``migrated`` is categorised every ``interval`` seconds (Alg. 1); a converged (CC) container
    requests a reallocation when enough others still progress (Alg. 1 l. 15-16); the manager
    moves it to the worker with the lowest category-weighted score (Alg. 2) and rebalances idle
    or light workers (Alg. 3).

    Parameters
    ----------
    alpha : float
        Categorisation threshold :math:`\alpha` in [0, 1] (Alg. 1 l. 1; 0.01 in Fig. 5, l. 326).
        0 means no container is ever slow (no :math:`G < 0`): SpeCon then equals DS.
    interval : float
        Categorisation interval :math:`t_m - t_{m-1}` in seconds (> 0; 30 s, l. 326). Rounded to
        whole slots (at least one).
    w_pc, w_wc, w_cc : float
        Category weights of Alg. 2 l. 3 (> 0; 2, 1.5, 1, l. 322).
    cascade : {"none", "cc_request", "full"}
        Spec A2: transitions per qualifying tick (Alg. 1 l. 7-16 as one transition per tick;
        WC -> CC with the request on the same tick; the literal sibling ``if`` cascade).
    gain_norm : {"first", "minmax", "previous"}
        Spec A3: :math:`E/E_{first}`; :math:`(E - E_{min})/(E_{max}-E_{min})` over the job's
        whole curve (an oracle; models with a ``curve`` only); :math:`|\Delta E|/E(t_{m-1})`.
    first_round : {"warmup", "inf"}
        Spec A4: the first tick only records :math:`G(t_1)`; or :math:`G(t_0) = +\infty`.
    request_scope : {"cluster", "worker"}
        Spec A5: sets of Alg. 1 l. 15 (:math:`|PC| + |WC| > 1`) over the cluster or the worker.
    monitor_clock : {"per_container", "global"}
        Spec A7: ticks at :math:`a_j + m\Delta` or at :math:`m\Delta`.
    count_self : bool
        Spec B2: the requesting container counts in its host's :math:`CC` in Alg. 2 l. 3.
    resource : {"cpu", "containers", "memory"}
        Spec B3: :math:`R(w, t)` ranking several minimum-score workers (Alg. 2 l. 18); ties then
        go to the lowest worker index.
    score_mode : {"count", "cpu_weighted"}
        Spec B5: Alg. 2 l. 3 on counts, or :math:`\sum_c w_{cat(c)} u_c` with :math:`u_c` the CPU
        use of :math:`c` in % of its node.
    rebalance_trigger : {"periodic", "on_completion", "all_converged", "never"}
        Spec C1: when Alg. 3 runs (every ``rebalance_interval`` s on the manager clock; after
        a completion; when every active container is in CC; never).
    rebalance_interval : float
        Seconds between periodic rebalances (> 0; 20 s, spec C1).
    t_cj : {"marked_migrated", "entered_cc"}
        Spec C2: what :math:`t_{c_j}` of Alg. 3 l. 1 is, and so which containers are in :math:`D`.
    move_limit : {"once_total", "once_per_algorithm"}
        Spec C3: a container moves at most once overall (l. 182), or once per algorithm.
    rebalance_source : {"any", "above_bf"}
        Spec C4: branch 1 takes the global min-:math:`d` container, or only from workers with
        :math:`|w| > bf`.
    branch2 : {"prose", "literal_nested"}
        Spec C5: reading of Alg. 3 l. 19-31.
    migrate : bool
        False: Algorithms 1-3 run and log, but no container ever moves (SpeCon then equals DS).
    extra_pause : float
        Seconds added to the job model's own migration pause on each move (finite, >= 0; given to
        the engine as ``Decision.pause``).
    advance : {"every_tick", "events"}
        How time advances (ours, not the paper's; *Advancing time* below). ``"every_tick"``
        (default): the policy is woken at every monitor tick of an unmarked container and every
        rebalance tick. ``"events"``: only where something can change. Not exact (see below).

    Raises
    ------
    ValueError
        A bad parameter (naming the field and the value); at run time a move whose pause is not
        finite.

    Advancing time
    --------------
    With ``advance="every_tick"`` the engine stops at every tick of Alg. 1 (every ``interval``
    per unmarked container) and of Alg. 3 (every ``rebalance_interval``), and the ticks read the
    engine's work. On a trace most of them change nothing (99.6 % of the 371,474 decisions on
    the first 12 Philly jobs, whose span is 41 days of 0.1-s slots), so the cost of a run is
    its time span, not its number of jobs.

    ``advance="events"`` asks to be woken only at the next slot where something can change: an
    arrival or a completion (the engine stops there anyway), the end of a migration pause (the
    rates of the target's containers change, and the container enters :math:`D` of Alg. 3), a
    tick of Alg. 1 that changes a category or reaches A1 l. 15 with a request possible, and a
    rebalance tick (Alg. 3 under ``periodic``) only after the state Alg. 3 reads has changed
    (counts, :math:`D`, marks, pauses, categories, moves), and only when it can move something:
    at least :math:`|W|` containers (with fewer, :math:`bf = 0`, A3 l. 9-12 / 27), an idle
    worker or one with fewer than :math:`bf - 1` containers, and a container in :math:`D`
    (:meth:`_rebalance_can_move`). Alg. 3 on a state it already saw moves nothing again (its
    choice depends on the counts, on :math:`D` and on the order of :math:`d_{c_j}`, which is the
    order of :math:`t_{c_j}` at every :math:`t`), so skipping those ticks changes no decision.

    The ticks of Alg. 1 between two decisions are evaluated *virtually*: between decisions
    every container's rate is constant (the engine stops at every arrival, completion and pause
    end, and so does the policy), so the work of container :math:`j` at tick :math:`t_m` is
    :math:`w_0 + r\,(t_m - t_0)` with :math:`(t_0, w_0, r)` its work and rate (``model.rate``
    on its node's load without pausing containers; a SpeCon container's rate depends only on its
    own node) read at the last decision that changed its node. A prediction runs Alg. 1 l. 4-22
    forward on these values from the container's state (:func:`categorise`, the same function)
    until the first tick that changes something; the policy wakes there and runs that tick on
    the engine's work, as ``every_tick`` does. Ticks that change nothing only update
    :math:`E(t_{m-1})`, :math:`G(t_{m-1})`, which are caught up (by the same computation) before
    the container's next real tick or rate change. Under ``request_scope="cluster"`` a tick that
    reaches A1 l. 15 while :math:`|PC| + |WC| \le 1` after the last decision is *conditional*:
    the categories change only at decisions, so it is a no-op unless a decision falls on its
    slot (it then runs as a real tick, in (worker, job) order, seeing that slot's categories) or
    a decision before it leaves :math:`|PC| + |WC| > 1` (it then becomes a predicted tick);
    with ``request_scope="worker"`` every tick reaching l. 15 is a predicted one. Runs of ticks
    inside one step of the loss curve (:math:`E` constant, :math:`G = 0`, a fixed point of
    A1 l. 17) are skipped at once for containers whose model says so
    (:attr:`dlsched.specon.model.SpeconJob.stepwise_evaluation`); a
    prediction looks at most
    :data:`LOOKAHEAD` ticks ahead and otherwise wakes at the next one anyway.

    What differs from ``every_tick``: the engine's work sums are cut at other slots (its
    arithmetic depends on where it stops), and the virtual ticks read :math:`w_0 + r\,(t_m -
    t_0)` instead of the engine's running sum; the two agree to rounding, so a tick falls on
    the other side of a loss-curve step (or of a ``REL_TOL`` boundary of :func:`categorise`)
    only when the work is within rounding of a whole step. Every decision that depends on no
    such tie is the same; completion times differ by rounding, or more where a tie flipped a
    category (measured by ``benchmarks/bench_specon_runs.py --advance``; checked by
    ``tests/test_specon_advance.py``: the same moves and category changes on every reading of
    the spec tried, completion times within 1e-12 relative).
    Under ``alpha = 0`` both modes ask for no ticks (nothing can change).
    """

    name: ClassVar[str] = "specon"
    workload_defaults: ClassVar[Mapping[str, object]] = MappingProxyType({})

    def __init__(
        self,
        alpha: float = 0.01,
        interval: float = 30.0,
        w_pc: float = 2.0,
        w_wc: float = 1.5,
        w_cc: float = 1.0,
        cascade: str = "none",
        gain_norm: str = "first",
        first_round: str = "warmup",
        request_scope: str = "cluster",
        monitor_clock: str = "per_container",
        count_self: bool = True,
        resource: str = "cpu",
        score_mode: str = "count",
        rebalance_trigger: str = "periodic",
        rebalance_interval: float = 20.0,
        t_cj: str = "marked_migrated",
        move_limit: str = "once_total",
        rebalance_source: str = "any",
        branch2: str = "prose",
        migrate: bool = True,
        extra_pause: float = 0.0,
        advance: str = "every_tick",
    ) -> None:
        self.alpha = _number(alpha, "specon.alpha", lo=0.0, hi=1.0)
        self.interval = _number(interval, "specon.interval", lo=0.0, strict_lo=True)
        self.w_pc = _number(w_pc, "specon.w_pc", lo=0.0, strict_lo=True)
        self.w_wc = _number(w_wc, "specon.w_wc", lo=0.0, strict_lo=True)
        self.w_cc = _number(w_cc, "specon.w_cc", lo=0.0, strict_lo=True)
        self.cascade = _choice(cascade, "specon.cascade", CASCADES)
        self.gain_norm = _choice(gain_norm, "specon.gain_norm", GAIN_NORMS)
        self.first_round = _choice(first_round, "specon.first_round", FIRST_ROUNDS)
        self.request_scope = _choice(request_scope, "specon.request_scope", REQUEST_SCOPES)
        self.monitor_clock = _choice(monitor_clock, "specon.monitor_clock", MONITOR_CLOCKS)
        for f, v in (("count_self", count_self), ("migrate", migrate)):
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"specon.{f} must be a bool, got {v!r}")
        self.count_self = bool(count_self)
        self.migrate = bool(migrate)
        self.resource = _choice(resource, "specon.resource", RESOURCES)
        self.score_mode = _choice(score_mode, "specon.score_mode", SCORE_MODES)
        self.rebalance_trigger = _choice(rebalance_trigger, "specon.rebalance_trigger", REBALANCE_TRIGGERS)
        self.rebalance_interval = _number(
            rebalance_interval, "specon.rebalance_interval", lo=0.0, strict_lo=True
        )
        self.t_cj = _choice(t_cj, "specon.t_cj", MARK_TIMES)
        self.move_limit = _choice(move_limit, "specon.move_limit", MOVE_LIMITS)
        self.rebalance_source = _choice(rebalance_source, "specon.rebalance_source", REBALANCE_SOURCES)
        self.branch2 = _choice(branch2, "specon.branch2", BRANCH2)
        if isinstance(extra_pause, (int, float, np.number)) and not isinstance(extra_pause, bool):
            if math.isinf(float(extra_pause)):
                raise ValueError(
                    f"specon.extra_pause must be finite, got {extra_pause!r}: a moved container "
                    "would never resume, and SpeCon has no cost test that would stop it moving"
                )
        self.extra_pause = _number(extra_pause, "specon.extra_pause", lo=0.0)
        self.advance = _choice(advance, "specon.advance", ADVANCES)

    @property
    def weights(self) -> dict[str, float]:
        """Category weights of Alg. 2 l. 3."""
        return {"PC": self.w_pc, "WC": self.w_wc, "CC": self.w_cc}

    # ------------------------------------------------------------------------------- lifecycle
    def reset(self, cluster, rng) -> None:
        """Forget all state; convert the intervals to slots."""
        super().reset(cluster, rng)
        slot = cluster.slot_seconds
        self._dt = max(1, int(round(self.interval / slot)))
        self._dt_rebalance = max(1, int(round(self.rebalance_interval / slot)))
        self._state: dict[int, _Container] = {}
        # heap of (next_tick, job) of the unmarked containers; an entry whose job is gone, marked
        # or has another next_tick is stale and dropped when it surfaces (decide)
        self._ticks: list[tuple[int, int]] = []
        self._first: dict[int, float] = {}  # job -> E_first (the evaluation at zero work)
        self._r_table: list | None = None  # _speculate: [R of every node] once built
        self._span: dict[int, float] = {}
        self._next_rebalance = self._dt_rebalance
        self.events: list[dict] = []
        self.transitions: list[dict] = []
        # advance="events" (see the class docstring, *Advancing time*)
        self._dues: list[tuple[int, int]] = []  # heap (predicted tick, job); stale when c.due differs
        self._pause_ends: list[tuple[int, int]] = []  # heap (pause end, job) of moved containers
        self._node_jobs: dict[int, dict[int, None]] = {}  # node -> containers placed on it
        self._load = np.zeros_like(cluster.capacity, dtype=float)  # rows of the touched nodes
        self._touched: set[int] = set()  # nodes whose containers' rates change at this decision
        self._reb_dirty = True  # the state Alg. 3 reads changed since its last run
        # heap (tick, job) of conditional ticks: a container in CC reaches A1 l. 15 there, but
        # |PC| + |WC| <= 1 (request_scope="cluster") at the last decision; real ticks only if a
        # decision at that slot, or one before it that opens requests, comes (_decide_events)
        self._conds: list[tuple[int, int]] = []
        self._no_request = False  # |PC| + |WC| <= 1 over the cluster after the last decision
        self._last_blocked: int | None = None  # _scan: the first conditional tick it saw

    # --------------------------------------------------------------------- evaluation function
    @staticmethod
    def _evaluation(v: JobView, work: float) -> float:
        """:math:`E_{c_j}` after ``work`` units (l. 168; the value of the last finished step)."""
        m = v.spec.model
        if hasattr(m, "evaluation"):
            return float(m.evaluation(work))
        loss, wpe = getattr(m, "loss", None), getattr(m, "work_per_epoch", 0.0)
        if loss is None or not wpe:
            raise ValueError(
                f"specon: job {v.job_id} ({type(m).__name__}) has no evaluation function "
                "(a loss curve) for Algorithm 1 to read"
            )
        return float(loss(max(1, math.floor(work / wpe + 1e-9))))

    def _normalised(self, v: JobView, work: float) -> float:
        e = self._evaluation(v, work)
        if self.gain_norm == "first":  # spec A3 default: E / E_first
            first = self._first.get(v.job_id)
            if first is None:  # a job's E_first never changes: evaluated once
                first = self._first[v.job_id] = self._evaluation(v, 0.0)
            return e / first if first else e
        if self.gain_norm == "minmax":  # oracle: whole curve
            j = v.job_id
            if j not in self._span:
                m = v.spec.model
                if not hasattr(m, "loss_array"):
                    raise ValueError(f"specon.gain_norm='minmax' needs jobs with a curve; job {j} has none")
                seg = m.loss_array()[: int(m.total_work)]
                self._span[j] = (float(seg.min()), float(seg.max() - seg.min()) or 1.0)
            lo, span = self._span[j]
            return (e - lo) / span
        return e  # "previous": G divides by E(t_{m-1}) below

    def _gain(self, e_now: float, e_prev: float) -> float:
        """A1 l. 5 (Eq. (1) with the absolute value); :func:`gain`."""
        return gain(e_now, e_prev, self.gain_norm)

    # --------------------------------------------------------------------------------- helpers
    def _first_tick(self, launch: int) -> int:
        if self.monitor_clock == "per_container":  # spec A7: t_m = a_j + m * Delta
            return launch + self._dt
        return (launch // self._dt + 1) * self._dt

    def _counts(self) -> np.ndarray:
        """:math:`|w_i|`: active containers per node (incl. those pausing towards it)."""
        return np.array(self._count_list(), dtype=int)

    def _count_list(self) -> list[int]:
        """:meth:`_counts` as a list of Python ints (cheap to index in Python loops)."""
        n = [0] * self.cluster.n_servers
        for p in self._placement.values():
            ((s, _),) = p.workers  # _host(p)
            n[s] += 1
        return n

    def _cat_sets(self, s: int | None = None) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {"PC": [], "WC": [], "CC": []}
        for j, p in self._placement.items():
            if s is None or _host(p) == s:
                out[self._state[j].cat].append(j)
        return out

    def _context(self, view: ClusterView) -> RateContext:
        return RateContext(self.cluster, self._placed_usage())

    def scores(self, view: ClusterView, exclude: int | None = None) -> np.ndarray:
        """:math:`S_{w_j}` of every worker (Alg. 2 l. 2-3; ``exclude``: a job left out, B2)."""
        S = np.zeros(self.cluster.n_servers)
        ctx = self._context(view) if self.score_mode == "cpu_weighted" else None
        r = self.cluster.resource_index("cpu") if ctx is not None else 0
        for j, p in self._placement.items():
            if j == exclude:
                continue
            s = _host(p)
            w = self.weights[self._state[j].cat]
            if ctx is None:
                S[s] += w  # A2 l. 3: |PC| w_pc + |WC| w_wc + |CC| w_cc
            else:  # spec B5 option: CPU use in % of the node
                spec = self._specs[j]
                cores = spec.model.cores(spec, p, ctx) if hasattr(spec.model, "cores") else 0.0
                S[s] += w * 100.0 * cores / float(self.cluster.capacity[s, r])
        return S

    def _pausing(self, t: int, j: int) -> bool:
        """Container ``j`` is in a migration pause at slot ``t`` (save + restore, spec 7.7)."""
        c = self._state.get(j)
        return c is not None and t < c.pause_end

    def resource_consumption(self, view: ClusterView, s: int) -> float:
        r""":math:`R(w_s, t)` (spec B3): CPU used / usable, containers, or memory used / capacity.

        ``"cpu"`` counts only running containers: one pausing after a move (spec 7.7, 8.4) has
        share 0 (the engine takes its CPU demand out of the load), so it adds nothing on its
        target, nor on the source it has left. ``"containers"`` and ``"memory"`` count it on its
        target (it holds its memory there and counts for :math:`|w|`, spec 7.7).
        """
        holder = getattr(self, "_r_table", None)  # set by _speculate while the placement is fixed
        if holder is None:
            return self._resource_table(view)(s)
        if not holder:
            holder.append(self._resource_table(view))
        return holder[0](s)

    def _resource_table(self, view: ClusterView) -> Callable[[int], float]:
        """:meth:`resource_consumption` of every node from one pass over the containers (for
        Alg. 2 l. 18, which may rank many nodes): ``R(s)``. Row ``s`` of :meth:`_usage` is bit
        for bit :meth:`_usage_row` ``(alloc, s)`` (the same additions in the same order)."""
        if self.resource == "containers":
            counts = self._count_list()
            return lambda s: float(counts[s])
        alloc = self._placement
        if self.resource == "cpu":  # spec 7.7 / 8.4: a pausing container uses no CPU (issue 21)
            alloc = {j: p for j, p in alloc.items() if not self._pausing(view.t, j)}
        used = self._usage(alloc)  # server_usage(alloc)
        name = "cpu" if self.resource == "cpu" else "mem"
        r = self.cluster.resource_index(name)
        first: dict[int, object] = {}  # node -> model of its first container (placement order)
        if name == "cpu":
            for j, p in self._placement.items():
                first.setdefault(_host(p), self._specs[j].model)

        def R(s: int) -> float:
            cap = float(self.cluster.capacity[s, r])
            if name == "cpu":
                usable = cap
                m = first.get(s)
                if m is not None and hasattr(m, "cpu_usable"):
                    usable = m.cpu_usable * cap
                return min(float(used[s][r]), usable) / usable if usable > 0 else 0.0
            return float(used[s][r]) / cap if cap > 0 else 0.0

        return R

    def _fits(self, view: ClusterView, j: int, s: int, row: np.ndarray | None = None) -> bool:
        """Memory (non-compressible resources) of node ``s`` has room for container ``j``.

        ``row``: row ``s`` of the usage of all placed containers, when the caller has it (one
        row or matrix for many tests). If ``j`` holds nothing on ``s`` it is bit for bit the row
        without ``j`` (``j`` adds nothing to it); otherwise the row without ``j`` is summed."""
        if row is None or s in self._placement[j].servers:
            others = {k: p for k, p in self._placement.items() if k != j}
            row = self._usage_row(others, s)  # row s of server_usage(others)
        used = row
        need = self._vectors(j)[0]  # cluster.vector(worker_demand)
        hard = self.cluster.hard
        # memory fit (spec 3.3): 1e-9 absolute slack so that an exact fit of GB amounts fits
        return bool(np.all((used + need)[hard] <= self.cluster.capacity[s][hard] + 1e-9))

    def _move(self, t: int, view: ClusterView, j: int, target: int, kind: str, pauses: dict, **extra) -> None:
        """Save c_j, restore it on ``target`` (A2 l. 14-16 / 19-21, A3 l. 15 / 28)."""
        spec = self._specs[j]
        prev = self._placement[j]
        new = self._container(j, target)
        own = spec.model.switch_pause(prev, new)
        if not math.isfinite(own):
            raise ValueError(
                f"specon: job {j} has an infinite migration pause ({own!r} s): a moved container "
                "would never finish"
            )
        slots = own / self.cluster.slot_seconds + self.extra_pause / self.cluster.slot_seconds
        self._placement[j] = new
        if self.extra_pause > 0:
            pauses[j] = pauses.get(j, 0.0) + self.extra_pause / self.cluster.slot_seconds
        c = self._state[j]
        # spec 7.7: the pause ends when the engine's does (its pause_left > _TOL = 1e-9 test)
        c.pause_end = t + int(math.ceil(slots - 1e-9))
        c.moved_by += kind
        self.events.append({"slot": t, "job": j, "event": kind, "from": _host(prev), "to": target, **extra})
        if self.advance == "events":  # both nodes' rates change now; the target's at the pause end
            src = _host(prev)
            self._node_jobs[src].pop(j, None)
            self._node_jobs.setdefault(target, {})[j] = None
            self._touched.update((src, target))
            if c.pause_end > t:
                heapq.heappush(self._pause_ends, (c.pause_end, j))

    def _set_cat(self, t: int, j: int, new: str) -> None:
        c = self._state[j]
        if c.cat != new:
            self.transitions.append({"slot": t, "job": j, "from": c.cat, "to": new})
            if new == "CC":
                c.t_cc = t
            c.cat = new

    # ------------------------------------------------------------------------- Algorithm 1
    def _monitor(self, t: int, view: ClusterView, j: int) -> bool:
        """One tick of Algorithm 1 for container ``j``; True when it requests a reallocation."""
        c = self._state[j]
        v = view.jobs[j]
        e = self._normalised(v, v.work_done)  # A1 l. 4: E(t_m)
        g = self._gain(e, c.e_prev)  # A1 l. 5
        g_prev = c.g_prev
        c.e_prev = e
        c.g_prev = g
        path, reached = categorise(c.cat, g, g_prev, self.alpha, self.cascade)  # A1 l. 6-22
        for cat in path[1:]:
            self._set_cat(t, j, cat)
        return reached and self._may_request(j)  # A1 l. 15-16

    def _may_request(self, j: int) -> bool:
        """A1 l. 15: :math:`|PC| + |WC| > 1` over the cluster or the worker (spec A5)."""
        s = _host(self._placement[j]) if self.request_scope == "worker" else None
        sets = self._cat_sets(s)
        return len(sets["PC"]) + len(sets["WC"]) > 1

    # ------------------------------------------------------------------------- Algorithm 2
    def _speculate(self, t: int, view: ClusterView, j: int, pauses: dict) -> None:
        """Algorithm 2 for container ``j`` on its host (one request)."""
        here = _host(self._placement[j])
        S = self.scores(view, exclude=None if self.count_self else j)  # A2 l. 2-3
        used = self._placed_usage()  # row s: _fits's row of node s
        # _fits(view, j, s, used[s]) of every node s != here at once: j holds nothing on s, so
        # its row is used[s]; the same sums and comparisons, element by element
        hard = self.cluster.hard
        need = self._vectors(j)[0]
        fits = np.all((used + need)[:, hard] <= self.cluster.capacity[:, hard] + 1e-9, axis=1).tolist()
        cand = [s for s in range(self.cluster.n_servers) if s == here or fits[s]]
        self._r_table = []  # R of every node, built when Alg. 2 l. 18 first ranks by it
        try:
            target, _ = speculative_target(S, here, cand, lambda s: self.resource_consumption(view, s))
        finally:
            self._r_table = None
        c = self._state[j]
        c.migrated = True  # A2 l. 9 / 15 / 20
        c.t_mark = t
        info = {"slot": t, "job": j, "scores": tuple(float(x) for x in S), "from": here}
        if target == here:  # A2 l. 8-10: remains on w_i
            self.events.append({**info, "event": "stay", "to": here})
            return
        if not self.migrate:
            self.events.append({**info, "event": "stay_disabled", "to": target})
            return
        self.events.append({**info, "event": "request", "to": target})
        self._move(t, view, j, target, "M", pauses)
        self._set_cat(t, j, "CC")  # spec B4: joins CC_{w_j}, never recategorised

    # ------------------------------------------------------------------------- Algorithm 3
    def _in_d(self, t: int, j: int) -> bool:
        c = self._state[j]
        if c.rebalanced or t < c.pause_end:
            return False
        if self.move_limit == "once_total" and c.moved_by:
            return False
        if self.t_cj == "marked_migrated":
            return c.migrated
        return c.cat == "CC"

    def _d(self, t: int, j: int) -> int:
        c = self._state[j]
        t0 = c.t_mark if self.t_cj == "marked_migrated" else c.t_cc
        return t - (t0 if t0 is not None else t)

    def _rebalance(self, t: int, view: ClusterView, pauses: dict) -> None:
        """Algorithm 3 (spec C1-C6)."""
        n_w = self.cluster.n_servers
        if len(self._placement) < n_w:
            # bf = 0 (A3 l. 9: one container per placement): no worker has fewer than bf
            # (A3 l. 12) or bf - 1 (A3 l. 27) containers, so nothing moves and nothing is logged
            return
        counts = self._count_list()  # A3 l. 2-3: |w_i|, sum
        total = sum(counts)
        # A3 l. 4-6: D, built at the first pick (before any move; most ticks pick nothing)
        D: dict[int, int] = {}
        built = []
        T = [s for s in range(n_w) if counts[s] == 0]  # A3 l. 7-8
        bf = total // n_w  # A3 l. 9

        def pick(sources, target) -> int | None:  # A3 l. 13 / 25: min d_{c_j} in D
            if not built:
                built.append(True)
                D.update((j, self._d(t, j)) for j in sorted(self._placement) if self._in_d(t, j))
            # the min of (d, host, j) over the containers of ``sources`` that fit ``target`` is
            # the first that fits in increasing order (keys are distinct: one per job)
            keys = sorted((d, _host(self._placement[j]), j) for j, d in D.items())
            row = None
            for _, s, j in keys:
                if s not in sources:
                    continue
                if row is None:
                    row = self._usage_row(self._placement, target)  # _fits's row
                if self._fits(view, j, target, row):
                    return j
            return None

        def go(j: int, target: int, branch: int) -> None:  # A3 l. 14-16 / 28-29
            D.pop(j)
            src = _host(self._placement[j])
            if self.migrate:
                info = {"branch": branch, "bf": bf, "target_count": int(counts[target])}
                self._move(t, view, j, target, "R", pauses, **info)
                counts[src] -= 1
                counts[target] += 1
            else:
                ev = {"slot": t, "job": j, "event": "rebalance_disabled", "from": src, "to": target}
                self.events.append(ev)
            self._state[j].rebalanced = True
            self._state[j].migrated = True

        if T:  # A3 l. 10-18
            for w in T:
                if counts[w] < bf:  # A3 l. 12
                    if self.rebalance_source == "any":
                        src = {s for s in range(n_w) if s != w}
                    else:  # spec C4 option
                        src = {s for s in range(n_w) if counts[s] > bf}
                    j = pick(src, w)
                    if j is not None:
                        go(j, w, 1)
            return
        T = [s for s in range(n_w) if counts[s] < bf - 1]  # A3 l. 19-22
        others = [s for s in range(n_w) if s not in T]
        if self.branch2 == "prose":  # spec C5 default
            for w in T:  # A3 l. 26
                if counts[w] < bf - 1:  # A3 l. 27 ([T]: |w_j|)
                    j = pick(set(others), w)
                    if j is not None:
                        go(j, w, 2)
        else:  # literal nesting: each w_i not in T sends its own min-d container
            for s in others:  # A3 l. 23-25
                for w in T:  # A3 l. 26-29
                    if counts[w] < bf - 1:
                        j = pick({s}, w)
                        if j is not None:
                            go(j, w, 2)
                        break

    # ------------------------------------------------------------------------------ decide
    def _pop_due(self, t: int | None) -> list[int]:
        """The unmarked containers whose monitor tick is due at slot ``t`` (taken off the tick
        heap, in no order); ``t=None``: ``[min next_tick]`` of the unmarked containers (``[]``
        if none), left on the heap. Stale entries (:meth:`reset`) are dropped on the way."""
        heap, state = self._ticks, self._state
        due = []
        while heap:
            tick, j = heap[0]
            c = state.get(j)
            if c is None or c.migrated or c.next_tick != tick:  # stale
                heapq.heappop(heap)
            elif t is None:
                return [tick]
            elif tick <= t:
                heapq.heappop(heap)
                due.append(j)
            else:
                break
        return due

    def _start_container(self, t: int, v) -> _Container:
        """A1 l. 2: the container of job ``v`` started at ``t``: PC, migrated = False,
        :math:`E(t_0) = E_{first}`; recorded in the state and returned."""
        c = _Container(launch=t, next_tick=self._first_tick(t))
        c.e_prev = self._normalised(v, 0.0)
        if self.first_round == "inf":
            c.g_prev = math.inf
        self._state[v.job_id] = c
        return c

    def decide(self, t: int, view: ClusterView) -> Decision:
        """One decision point: launches, monitor ticks, requests, then rebalance (spec 7.1)."""
        if self.advance == "events":
            return self._decide_events(t, view)
        changed = self._jobs_changed(view)
        if changed:  # an arrival or a completion: forget the containers that left
            self._read_specs(view)
            for j in list(self._state):
                if j not in self._specs:  # self._specs: the jobs of the view
                    del self._state[j]
                    self._first.pop(j, None)
        admit, started = self._place_new(t, view, changed)
        self._update_converged(view)
        for j in started:
            c = self._start_container(t, view.jobs[j])
            heapq.heappush(self._ticks, (c.next_tick, j))
        pauses: dict[int, float] = {}
        # A1 l. 3: ticks of unmarked containers due now, in (worker, job) order
        due = sorted((_host(self._placement[j]), j) for j in self._pop_due(t))
        requests = []
        for s, j in due:
            c = self._state[j]
            while c.next_tick <= t:
                c.next_tick += self._dt
            heapq.heappush(self._ticks, (c.next_tick, j))
            if self._monitor(t, view, j):  # A1 l. 16: Request-Reallocation
                requests.append((s, j))
        for _, j in requests:  # Alg. 2, sequentially in (worker, job) order (spec B4)
            if not self._state[j].migrated:
                self._speculate(t, view, j, pauses)
        if self.rebalance_trigger == "periodic":  # spec C1: manager clock, t = k * interval
            if t > 0 and t % self._dt_rebalance == 0:
                self._rebalance(t, view, pauses)
            self._next_rebalance = (t // self._dt_rebalance + 1) * self._dt_rebalance
        elif self.rebalance_trigger == "on_completion" and view.completed:
            self._rebalance(t, view, pauses)
        elif self.rebalance_trigger == "all_converged" and self._state:
            if all(self._state[j].cat == "CC" for j in self._placement):
                self._rebalance(t, view, pauses)
        ticks = self._pop_due(None)  # the next tick of an unmarked container, if any
        if self.rebalance_trigger == "periodic" and self._placement:
            ticks.append(self._next_rebalance)
        wake = min(ticks) if ticks else None
        if self.alpha == 0:
            # No G < 0 exists, so Alg. 1 l. 6 never holds: no container leaves PC, none is
            # marked, D of Alg. 3 stays empty. Ticks would change nothing; skipping them keeps
            # the engine's arithmetic identical to DS's (spec 8.6: equal job tables).
            wake = None
        phase = self.converged_wakeup(t, view)
        if phase is not None:
            wake = phase if wake is None else min(wake, phase)
        return Decision(allocations=dict(self._placement), admit=admit, wakeup=wake, pause=pauses)

    # ------------------------------------------------------------- advance="events" (ours)
    def _scan(self, j: int, stop: int | None, inclusive: bool = False) -> int | None:
        r"""Virtual Alg. 1 ticks of unmarked container ``j`` from ``c.next_tick`` on its anchor
        (work :math:`w_0 + r\,(t_m - t_0)`; class docstring, *Advancing time*).

        ``stop`` given (catch-up): apply the ticks before ``stop`` (up to it if ``inclusive``),
        which change nothing but :math:`E(t_{m-1})`, :math:`G(t_{m-1})` (they were predicted
        so), and return None. ``stop=None`` (prediction): change nothing; return the first tick
        that would change a category or reach A1 l. 15, or the tick after :data:`LOOKAHEAD`
        ticks, or None when no tick before the job's end can change anything at this rate."""
        c = self._state[j]
        if c.anchor is None or self.alpha == 0:
            return None
        spec = self._specs[j]
        model = spec.model
        v = _Eval(spec, j)
        t0, w0, r = c.anchor
        total = model.total_work
        dt = self._dt
        jump = getattr(model, "stepwise_evaluation", False) and r > 0  # E depends on floor(w) only
        m = c.next_tick
        cat, e_prev, g_prev = c.cat, c.e_prev, c.g_prev
        found = None
        self._last_blocked = None
        n_iter = 0
        while True:
            if stop is not None:
                if m > stop or (m == stop and not inclusive):
                    break
            elif n_iter >= LOOKAHEAD:
                found = m  # no change seen so far: a real tick here, and a new prediction
                break
            n_iter += 1
            w = w0 + r * (m - t0)
            if w >= total - 1e-9:  # the job ends first (its completion is a decision)
                if stop is not None:
                    m = self._past(m, stop, inclusive)
                break
            e = self._normalised(v, w)  # A1 l. 4
            g = self._gain(e, e_prev)  # A1 l. 5
            path, reached = categorise(cat, g, g_prev, self.alpha, self.cascade)  # A1 l. 6-22
            if (
                reached
                and len(path) == 1
                and self.request_scope == "cluster"
                and (stop is not None or self._no_request)
            ):
                # A1 l. 15 reached in CC, but |PC| + |WC| <= 1 now: no request, nothing changes
                # unless a decision before this tick changes the categories (conditional tick)
                if stop is None and self._last_blocked is None:
                    self._last_blocked = m
            elif len(path) > 1 or reached:
                if stop is not None:  # pragma: no cover - a catch-up tick was predicted a no-op
                    raise AssertionError(f"specon: virtual tick {m} of job {j} changes {path}")
                found = m
                break
            e_prev, g_prev = e, g
            m += dt
            if g == 0.0 and (jump or r == 0):
                # E unchanged and G = 0: A1 l. 17 (stays) at every tick until E changes, which
                # needs the next step n + 1 of the curve (SpeconJob.evaluation)
                n = max(1, math.floor(w + 1e-9))
                if r == 0 or n >= model.work:  # E never changes again at this rate
                    if stop is not None:
                        m = self._past(m, stop, inclusive)
                    break
                # the first tick m - dt + i * dt reaching step n + 1 has i >= k (up to rounding):
                # the ticks before m - dt + (k - 1) * dt have this E and change nothing
                k = math.ceil((n + 1 - 1e-9 - w) / (r * dt))
                skip = k - 2
                if skip > 0:
                    m += skip * dt
                    if stop is not None and (m > stop or (m == stop and not inclusive)):
                        m = self._past(m - skip * dt, stop, inclusive)
        if stop is not None:
            c.next_tick, c.e_prev, c.g_prev = m, e_prev, g_prev
            return None
        return found

    def _past(self, m: int, stop: int, inclusive: bool) -> int:
        """The first tick ``m + k * dt`` (k >= 0) after ``stop`` (``inclusive``) or at/after it."""
        dt = self._dt
        if m > stop or (m == stop and not inclusive):
            return m
        k = (stop - m) // dt + 1 if inclusive else -((m - stop) // dt)
        return m + k * dt

    def _node_load(self, t: int, s: int) -> np.ndarray:
        """Row ``s`` of the engine's load: the demands of the containers on ``s`` that do not
        pause (a pausing one uses no CPU, spec 7.7)."""
        row = np.zeros(self.cluster.capacity.shape[1])
        for j in self._node_jobs.get(s, ()):
            if self._pausing(t, j):
                continue
            wd, pd_ = self._vectors(j)
            p = self._placement[j]
            for _, k in p.workers:
                row += k * wd
            for _, k in p.ps:
                row += k * pd_
        return row

    def _rebalance_can_move(self, t: int) -> bool:
        r"""A necessary condition for Alg. 3 to move (or log) a container on today's state: an
        idle worker with :math:`bf \ge 1` (A3 l. 7-12) or a worker with fewer than
        :math:`bf - 1` containers (A3 l. 19-27), and a container in :math:`D`. False: the next
        periodic run would change nothing, so no wake-up is needed for it until the state
        changes (a container pausing now enters :math:`D` at its pause end, a decision)."""
        counts = self._count_list()
        bf = sum(counts) // len(counts)  # A3 l. 9
        if bf < 1:
            return False
        if 0 not in counts and not any(k < bf - 1 for k in counts):
            return False
        return any(self._in_d(t, j) for j in self._placement)

    def _predict(self, j: int) -> None:
        c = self._state[j]
        c.due = self._scan(j, None)
        if c.due is not None:
            heapq.heappush(self._dues, (c.due, j))
        c.cond = self._last_blocked
        if c.cond is not None and (c.due is None or c.cond < c.due):
            heapq.heappush(self._conds, (c.cond, j))
        else:
            c.cond = None

    def _decide_events(self, t: int, view: ClusterView) -> Decision:
        """:meth:`decide` under ``advance="events"`` (class docstring, *Advancing time*): the same
        steps in the same order, on the containers whose tick can change something."""
        touched = self._touched
        touched.clear()
        changed = self._jobs_changed(view)
        n_tr, n_ev = len(self.transitions), len(self.events)
        if changed:  # an arrival or a completion
            self._read_specs(view)
            self._reb_dirty = True
            for j in view.completed:
                p = self._placement.get(j)
                if p is not None:
                    s = _host(p)
                    self._node_jobs[s].pop(j, None)
                    touched.add(s)
            for j in list(self._state):
                if j not in self._specs:
                    del self._state[j]
                    self._first.pop(j, None)
        while self._pause_ends and self._pause_ends[0][0] <= t:  # spec 7.7: pauses that end now
            _, j = heapq.heappop(self._pause_ends)
            p = self._placement.get(j)
            if p is not None:
                touched.add(_host(p))
                self._reb_dirty = True  # j enters D (Alg. 3) now
        admit, started = self._place_new(t, view, changed)
        if started:
            self._reb_dirty = True
        conv = set(self._converged) if self._phased else None
        self._update_converged(view)
        if conv is not None and len(conv) != len(self._converged):
            touched.update(_host(self._placement[j]) for j in self._converged - conv)
        for j in started:
            self._start_container(t, view.jobs[j])
            s = _host(self._placement[j])
            self._node_jobs.setdefault(s, {})[j] = None
            touched.add(s)
        pauses: dict[int, float] = {}
        # A1 l. 3: the ticks due now that can change something, in (worker, job) order
        due = []
        dues, state = self._dues, self._state
        while dues and dues[0][0] <= t:
            tick, j = heapq.heappop(dues)
            c = state.get(j)
            if c is not None and not c.migrated and c.due == tick:
                due.append((_host(self._placement[j]), j))
        redo: set[int] = set()
        conds = self._conds
        in_due = {j for _, j in due}
        while conds and conds[0][0] <= t:  # conditional ticks passed (no-ops) or at this slot
            tick, j = heapq.heappop(conds)
            c = state.get(j)
            if c is None or c.migrated or c.cond != tick:
                continue
            c.cond = None
            if j in in_due:
                continue
            self._scan(j, t)  # the ticks before t: no request could be sent at any of them
            if c.next_tick == t:  # a tick now: run it, in order (the categories may change now)
                due.append((_host(self._placement[j]), j))
                in_due.add(j)
            else:
                redo.add(j)
        due.sort()
        requests = []
        for s, j in due:
            c = state[j]
            self._scan(j, t)  # the no-op ticks before t
            c.due = None
            if c.next_tick != t:  # pragma: no cover - a due tick is a tick
                continue
            c.next_tick += self._dt
            if self._monitor(t, view, j):  # A1 l. 16: Request-Reallocation
                requests.append((s, j))
        for _, j in requests:  # Alg. 2, sequentially in (worker, job) order (spec B4)
            if not state[j].migrated:
                self._speculate(t, view, j, pauses)
        if len(self.transitions) != n_tr or len(self.events) != n_ev:
            self._reb_dirty = True  # categories, marks or moves changed
        n_w = self.cluster.n_servers
        next_rebalance = None
        if self.rebalance_trigger == "periodic":  # spec C1: manager clock, t = k * interval
            if t > 0 and t % self._dt_rebalance == 0 and self._reb_dirty:
                n_ev = len(self.events)
                self._rebalance(t, view, pauses)
                self._reb_dirty = len(self.events) != n_ev  # moved: the next tick may move more
            self._next_rebalance = (t // self._dt_rebalance + 1) * self._dt_rebalance
            if self._reb_dirty and len(self._placement) >= n_w:
                if self._rebalance_can_move(t):
                    next_rebalance = self._next_rebalance
                else:  # Alg. 3 on this state would move nothing (as if it had run)
                    self._reb_dirty = False
        elif self.rebalance_trigger == "on_completion" and view.completed:
            self._rebalance(t, view, pauses)
        elif self.rebalance_trigger == "all_converged" and state:
            if all(state[j].cat == "CC" for j in self._placement):
                self._rebalance(t, view, pauses)
        # new anchors on the nodes whose rates change now, then new predictions
        redo.update(j for _, j in due)
        if self.request_scope == "cluster":  # A1 l. 15 over the cluster, after this decision
            self._no_request = sum(state[j].cat != "CC" for j in self._placement) <= 1
        if touched:
            for s in touched:
                self._load[s] = self._node_load(t, s)
            ctx = RateContext(self.cluster, self._load)
            for s in touched:
                for j in self._node_jobs.get(s, ()):
                    c = state[j]
                    if c.migrated:
                        continue
                    self._scan(j, t, inclusive=True)  # the no-op ticks up to t, at the old rate
                    spec = self._specs[j]
                    r = spec.model.rate(spec, self._placement[j], ctx)
                    c.anchor = (t, float(view.jobs[j].work_done), float(r))
                    redo.add(j)
        for j in redo:
            c = state.get(j)
            if c is not None and not c.migrated:
                self._predict(j)
        if not self._no_request:  # requests can be sent again: conditional ticks become due
            while conds:
                tick, j = heapq.heappop(conds)
                c = state.get(j)
                if c is None or c.migrated or c.cond != tick:
                    continue
                c.cond = None
                if c.due is None or tick < c.due:
                    c.due = tick
                    heapq.heappush(dues, (tick, j))
        wakes = []
        while dues:  # the next predicted tick (stale entries dropped)
            tick, j = dues[0]
            c = state.get(j)
            if c is None or c.migrated or c.due != tick:
                heapq.heappop(dues)
                continue
            wakes.append(tick)
            break
        if self._pause_ends:
            wakes.append(self._pause_ends[0][0])
        if next_rebalance is not None:
            wakes.append(next_rebalance)
        wake = min(wakes) if wakes else None
        if self.alpha == 0:
            wake = None  # as every_tick: nothing can change (spec 8.6)
        phase = self.converged_wakeup(t, view)
        if phase is not None:
            wake = phase if wake is None else min(wake, phase)
        return Decision(allocations=dict(self._placement), admit=admit, wakeup=wake, pause=pauses)


@dataclass(frozen=True)
class _Eval:
    """What :meth:`SpeCon._normalised` reads of a job view (``spec``, ``job_id``), for the
    virtual ticks of ``advance="events"``."""

    spec: object
    job_id: int
