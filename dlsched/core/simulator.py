"""The discrete-time engine: arrivals -> view -> policy -> validate -> advance -> record.

Time is divided into slots ``0, 1, 2, ...`` of ``cluster.slot_seconds`` seconds. At a decision
point ``t`` the simulator hands the policy a read-only :class:`~dlsched.core.policy.ClusterView`,
validates the returned :class:`~dlsched.core.schedule.Decision` with the independent checker
(:func:`~dlsched.core.schedule.check_allocations`) and keeps the allocation until the next
decision point: the next arrival, the slot after the next completion, the policy's ``wakeup``
slot, or the horizon, whichever comes first. While the allocation is unchanged the progress rates
are constant, so the engine jumps over the whole stretch at once (event-driven speed, slot-exact
semantics).

Conventions (OASiS Sec. III): a job arriving in slot ``a`` may run in slot ``a``; a job whose
work is done at time ``x`` (continuous, in slots) completes in slot ``ceil(x) - 1``, its duration
for the utility is ``completion_slot - a``, and its resources are freed at the next slot
boundary. JCT is ``x - a`` slots (times ``slot_seconds`` for seconds).

Job-model constraints across slots (raised as ``fixed_allocation``): a running job whose model
is not ``elastic`` keeps its placement unchanged; a started job whose model is not
``preemptible`` keeps a non-empty placement until it completes (A_online (2c)-(2d)).

The simulator never looks at which policy it runs; everything policy-specific travels through
:class:`Decision` (admissions, allocations, wakeup, per-job info, the pause a placement
change costs under the policy's own mechanism).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress
from operator import is_not
from types import MappingProxyType

import numpy as np
import pandas as pd

from dlsched.core.jobs import RateContext, Workload
from dlsched.core.policy import ClusterView, JobView, Policy
from dlsched.core.schedule import (
    EMPTY,
    Allocations,
    Decision,
    ScheduleViolation,
    UsageCache,
    check_capacity,
    check_placements,
)

_TOL = 1e-9


def policy_rng(seed) -> np.random.Generator:
    """The policy's random stream for a run.

    ``seed`` may be an int >= 0 or a SeedSequence (the stream is the first child of
    ``SeedSequence(seed)``, so the same seed always gives the same stream), or a Generator, which is
    used as is.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        ss = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        ss = np.random.SeedSequence(int(seed))
    else:
        raise ValueError(f"seed must be an int >= 0, a SeedSequence or a Generator, got {seed!r}")
    return np.random.default_rng(ss.spawn(1)[0])


@dataclass
class _State:
    status: str = "future"  # future | pending | admitted | rejected | finished
    work_done: float = 0.0
    start: int | None = None
    admitted_at: int | None = None
    placement: object = EMPTY
    pause_left: float = 0.0  # slots of progress still lost to a placement switch
    completion_time: float = math.nan
    migrations: int = 0
    info: dict = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Outcome of :func:`simulate`.

    Attributes
    ----------
    workload : Workload
    policy : str
        Registry name of the policy.
    policy_params : Mapping[str, object]
    jobs : pandas.DataFrame
        One row per job (columns in the README glossary).
    runs : pandas.DataFrame
        Run-length allocation records ``job, slot, slots, server, role, count``: ``count`` tasks of
        ``role`` on ``server`` during slots ``slot .. slot + slots - 1``. A job's records start
        together whenever its placement starts or changes, and last while it is unchanged (all
        of a job's records in force at a slot share ``slot`` and ``slots``).
    end_slot : int
        First slot not simulated.
    decisions : int
        Number of times the policy was asked.
    stalled : bool
        True if the run stopped with unfinished jobs that nothing could advance (no running job,
        no future arrival, no wakeup, no horizon).
    wall_seconds : float
        Wall time of the run (not part of equality).
    """

    workload: Workload
    policy: str
    policy_params: MappingProxyType
    jobs: pd.DataFrame
    runs: pd.DataFrame
    end_slot: int
    decisions: int
    stalled: bool
    wall_seconds: float = field(default=0.0, compare=False)

    def __eq__(self, other: object) -> bool:
        """Same workload, policy, parameters and identical tables (``wall_seconds`` ignored)."""
        if not isinstance(other, SimulationResult):
            return NotImplemented
        return (
            self.policy == other.policy
            and dict(self.policy_params) == dict(other.policy_params)
            and (self.end_slot, self.decisions, self.stalled)
            == (other.end_slot, other.decisions, other.stalled)
            and self.workload == other.workload
            and self.jobs.equals(other.jobs)
            and self.runs.equals(other.runs)
        )

    __hash__ = None  # type: ignore[assignment]

    @cached_property
    def allocations(self) -> pd.DataFrame:
        """Tidy per-slot allocation table ``job, slot, server, role, count``."""
        r = self.runs
        if r.empty:
            return pd.DataFrame(
                {c: pd.Series(dtype="int64") for c in ("job", "slot", "server", "count")}
            ).assign(role=pd.Series(dtype=object))[["job", "slot", "server", "role", "count"]]
        reps = r["slots"].to_numpy()
        idx = np.repeat(np.arange(len(r)), reps)
        offset = np.arange(len(idx)) - np.repeat(np.cumsum(reps) - reps, reps)
        out = pd.DataFrame(
            {
                "job": r["job"].to_numpy()[idx],
                "slot": r["slot"].to_numpy()[idx] + offset,
                "server": r["server"].to_numpy()[idx],
                "role": r["role"].to_numpy()[idx],
                "count": r["count"].to_numpy()[idx],
            }
        )
        return out.sort_values(["slot", "job", "role", "server"], kind="stable").reset_index(drop=True)

    @cached_property
    def intervals(self) -> pd.DataFrame:
        """The allocations as intervals: ``job, server, role, count, first_slot, last_slot``.

        One row per job, server and role for each stretch of slots in which the job's placement
        stayed the same (a new row whenever it changes), so its size grows with the number of
        placement changes, not with the number of slots. ``count`` tasks of ``role`` (``worker``
        or ``ps``) run on ``server`` in every slot ``first_slot .. last_slot`` (both included);
        expanding each row to those slots gives :attr:`allocations`. Rows are sorted by
        ``first_slot, job, role, server``.
        """
        r = self.runs
        cols = ["job", "server", "role", "count", "first_slot", "last_slot"]
        if r.empty:
            return pd.DataFrame(
                {c: pd.Series(dtype=object if c == "role" else "int64") for c in cols}
            )
        out = pd.DataFrame(
            {
                "job": r["job"].to_numpy(dtype=np.int64),
                "server": r["server"].to_numpy(dtype=np.int64),
                "role": r["role"].astype(str).to_numpy(dtype=object),
                "count": r["count"].to_numpy(dtype=np.int64),
                "first_slot": r["slot"].to_numpy(dtype=np.int64),
                "last_slot": (r["slot"] + r["slots"] - 1).to_numpy(dtype=np.int64),
            }
        )
        return out.sort_values(["first_slot", "job", "role", "server"], kind="stable").reset_index(drop=True)

    def usage(self) -> pd.DataFrame:
        """Resources allocated per slot (columns: ``slot`` and one per resource)."""
        from dlsched.core.metrics import usage_timeline

        return usage_timeline(self)


def simulate(
    workload: Workload,
    policy: Policy,
    *,
    seed=0,
    horizon: int | None = None,
    check: bool = True,
    progress: bool = False,
) -> SimulationResult:
    """Run ``policy`` on ``workload``.

    Parameters
    ----------
    workload : Workload
    policy : Policy
        Any object implementing the policy protocol (see :mod:`dlsched.core.policy`).
    seed : int, SeedSequence or numpy.random.Generator
        Source of the policy's random stream (passed to ``policy.reset``).
    horizon : int, optional
        Stop before this slot (defaults to ``workload.horizon``; None runs until every job is
        finished or rejected).
    check : bool, default True
        Validate every decision with the independent checker (keep it on; it is cheap).
    progress : bool
        Show a tqdm bar over finished jobs, with the simulated slot, on stderr (after 2 s).

    Returns
    -------
    SimulationResult

    Raises
    ------
    ScheduleViolation
        If the policy returns an infeasible or inconsistent decision.
    """
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a Workload, got {type(workload).__name__}")
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must implement the Policy protocol, got {type(policy).__name__}")
    rng = policy_rng(seed)
    wall0 = time.perf_counter()
    cluster = workload.cluster
    soft = ~cluster.hard  # compressible (time-shared) resources
    specs = workload.specs
    order = workload.jobs
    H = workload.horizon if horizon is None else int(horizon)
    if H is not None and H < 1:
        raise ValueError(f"horizon must be >= 1, got {horizon!r}")
    state = {j: _State() for j in specs}
    policy.reset(cluster, rng)
    bar = _progress(progress, len(order))
    # Incremental bookkeeping, so that a step costs O(active jobs), not O(all jobs): the active
    # jobs in workload order, each job's position in it, its demand vectors (converted once),
    # the last JobView built for it and the usage of the current allocations.
    live: dict[int, None] = {}
    pos = {s.job_id: i for i, s in enumerate(order)}
    usage = UsageCache(cluster, specs)
    views: dict = {}
    used = usage.update({})
    # job -> (placement, rate, reusable): a rate is reused while the job keeps its placement
    # object and, on clusters with compressible resources, while the load rows of the
    # placement's servers are unchanged bit for bit (JobModel.load_scope "placement")
    rate_of: dict = {}
    hard_only = not soft.any()
    prev_load: np.ndarray | None = None  # the previous step's load (compressible resources)

    runs = _Runs()
    total_of: dict[int, float] = {}  # job -> model.total_work, read once
    allocs = Allocations()  # the running jobs' placements (the view's ``placements``)
    idx = 0
    n = len(order)
    t = order[0].arrival if n else 0
    wakeup: int | None = None
    first = True
    arrived: list[int] = []
    completed: list[int] = []
    opening: list[int] = []  # jobs whose placement starts or changes at the next step
    admitted: set[int] = set()  # admitted, unfinished jobs
    decisions = 0
    stalled = False
    slot_s = cluster.slot_seconds

    while True:
        if H is not None and t >= H:
            break
        while idx < n and order[idx].arrival <= t:
            j = order[idx].job_id
            total_of[j] = specs[j].model.total_work
            state[j].status = "pending"
            live[j] = None
            arrived.append(j)
            idx += 1
        active = list(live)
        if not active:
            if idx >= n:
                break
            for j in allocs:
                runs.close(j, t)
            opening = []
            t = order[idx].arrival
            allocs = Allocations()
            continue
        if first or arrived or completed or (wakeup is not None and t >= wakeup):
            first = False
            view = _view(t, cluster, specs, state, active, used, arrived, completed, H, views, allocs)
            try:
                decision = policy.decide(t, view)
            finally:
                _settle(view)
            decisions += 1
            if bar is not None:
                bar.set_postfix_str(f"slot {t}", refresh=False)
            if not isinstance(decision, Decision):
                raise TypeError(
                    f"{type(policy).__name__}.decide must return a Decision, got {type(decision).__name__}"
                )
            allocs, used, opening, closing = _apply(
                t, decision, state, specs, cluster, check, bar, allocs, pos, usage, admitted
            )
            for j in closing:
                runs.close(j, t)
            for j in decision.reject:
                live.pop(j, None)
                views.pop(j, None)
            wakeup = decision.wakeup
            if wakeup is not None and wakeup <= t:
                raise ScheduleViolation(
                    "wakeup", f"wakeup slot {wakeup} is not after the current slot", slot=t
                )
            arrived, completed = [], []
        # --- rates under the current allocation
        load = used
        limits: list[float] = []
        if not hard_only:
            # A job pausing after a placement switch (save + restore) uses no time-shared
            # resource: its compressible demand leaves the load, and the step ends when the
            # pause does, so the others' shares change exactly then (SpeCon spec 7.7).
            paused = {j: p for j, p in allocs.items() if state[j].pause_left > _TOL}
            if paused:
                load = load - usage.usage(paused) * soft
                limits.extend(math.ceil(state[j].pause_left - _TOL) for j in paused)
            # servers whose load row differs bit for bit from the previous step's (None: all)
            if prev_load is None:
                dirty = None
            else:
                diff = load.view(np.uint64) != prev_load.view(np.uint64)
                dirty = set(np.flatnonzero(diff.any(axis=1)).tolist())
            prev_load = np.array(load, copy=True)
        else:
            dirty = frozenset()
        ctx = RateContext(cluster, load)
        # (job, state, rate, finish): ``finish`` is the time (slots from t) at which the job's
        # work is done at this rate, None when the rate is 0; computed once for both loops
        steps: list[tuple] = []
        ceil = math.ceil
        for j, p in allocs.items():
            st = state[j]
            hit = rate_of.get(j)
            if (
                hit is not None
                and hit[0] is p
                and hit[2]
                and dirty is not None
                and (not dirty or dirty.isdisjoint(p.servers))
            ):
                r = hit[1]
            else:
                model = specs[j].model
                r = model.rate(specs[j], p, ctx)
                if not (r >= 0 and math.isfinite(r)):
                    raise ValueError(f"job {j}: model rate must be finite and >= 0, got {r!r}")
                rate_of[j] = (p, r, hard_only or getattr(model, "load_scope", "placement") == "placement")
            if r > 0:
                finish = st.pause_left + (total_of[j] - st.work_done) / r
                limits.append(ceil(finish - _TOL))
                steps.append((j, st, r, finish))
            else:
                steps.append((j, st, r, None))
        if idx < n:
            limits.append(order[idx].arrival - t)
        if wakeup is not None:
            limits.append(wakeup - t)
        if H is not None:
            limits.append(H - t)
        if not limits:
            stalled = True
            break
        k = max(1, int(min(limits)))
        # --- advance k slots
        if opening:
            runs.begin(opening, t, allocs)
            opening = []
        k_tol = k + _TOL
        k_f = k - 0.0
        for j, st, r, finish in steps:
            if finish is None:  # rate 0
                st.pause_left = max(0.0, st.pause_left - k)
                continue
            if finish <= k_tol:
                st.work_done = total_of[j]
                st.completion_time = t + finish
                st.status = "finished"
                completed.append(j)
                if bar is not None:
                    bar.update(1)
                st.pause_left = max(0.0, st.pause_left - k)
            elif st.pause_left == 0.0:
                # the expressions below with pause_left 0.0: max(0.0, k - 0.0) is k - 0.0 (k >= 1)
                # and max(0.0, 0.0 - k) is 0.0, the value it has
                st.work_done += r * k_f
            else:
                st.work_done += r * max(0.0, k - st.pause_left)
                st.pause_left = max(0.0, st.pause_left - k)
        t += k
        for j in completed:
            dict.pop(allocs, j, None)  # read-only to the policies, not to the engine
            admitted.discard(j)
            live.pop(j, None)
            usage.forget(j)
            rate_of.pop(j, None)
            views.pop(j, None)
            runs.close(j, t)
            state[j].placement = EMPTY
        if completed:
            used = usage.apply_changes(allocs, (), completed)
    if bar is not None:
        bar.close()
    if H is not None:
        t = min(t, H)
    jobs = _jobs_table(order, state, slot_s)
    runs_df = runs.table(t)
    return SimulationResult(
        workload=workload,
        policy=getattr(policy, "name", type(policy).__name__),
        policy_params=MappingProxyType(dict(getattr(policy, "params", {}))),
        jobs=jobs,
        runs=runs_df,
        end_slot=t,
        decisions=decisions,
        stalled=stalled,
        wall_seconds=time.perf_counter() - wall0,
    )


class _Runs:
    """Run-length allocation records, one per job, server and role, kept open while a job's
    placement stays the same from one step to the next.

    A record is opened (:meth:`begin`) at the first step a new placement is in force and closed
    (:meth:`close`) when the placement changes or ends; its ``slots`` are written then, so the
    steps in between cost nothing per job.
    """

    def __init__(self) -> None:
        self.cols: tuple[list, ...] = ([], [], [], [], [], [])  # job, slot, slots, server, role, count
        self.open: dict[int, tuple[int, list[int]]] = {}  # job -> (first slot, rows)

    def begin(self, jobs, t: int, allocs) -> None:
        """Jobs ``jobs`` (in this order) start holding ``allocs[j]`` at slot ``t``."""
        job, slot, slots, server, role, count = self.cols
        for j in jobs:
            p = allocs[j]
            rows = []
            for what, pairs in (("worker", p.workers), ("ps", p.ps)):
                for s, c in pairs:
                    rows.append(len(job))
                    job.append(j)
                    slot.append(t)
                    slots.append(0)  # written by close()
                    server.append(s)
                    role.append(what)
                    count.append(c)
            self.open[j] = (t, rows)

    def close(self, j: int, t: int) -> None:
        """Job ``j``'s open record, if any, ends before slot ``t``."""
        hit = self.open.pop(j, None)
        if hit is not None:
            start, rows = hit
            slots = self.cols[2]
            for i in rows:
                slots[i] = t - start

    def table(self, t: int) -> pd.DataFrame:
        """The records, the open ones closed at slot ``t``."""
        for j in list(self.open):
            self.close(j, t)
        names = ["job", "slot", "slots", "server", "role", "count"]
        if not self.cols[0]:
            return pd.DataFrame([], columns=names)
        return pd.DataFrame(
            {
                n: np.array(c, dtype=object if n == "role" else np.int64)
                for n, c in zip(names, self.cols, strict=True)
            }
        )


def _progress(enabled: bool, total: int):
    if not enabled:
        return None
    from tqdm import tqdm

    # on stderr, shown only once a run has lasted 2 s; the postfix is the simulated slot
    return tqdm(total=total, desc="jobs done", unit="job", delay=2.0, file=sys.stderr)


def _settle(view: ClusterView) -> None:
    """After ``decide``: a view the policy kept (a log, a test) gets its job table built in full
    now, so it stays the snapshot it was; any other is expired (nobody can read it anyway)."""
    jobs = view.jobs
    # References: the caller's ``view`` and this frame's, and getrefcount's argument; for the
    # table, the view's field, ``jobs`` and the argument. More means someone kept it.
    if sys.getrefcount(view) > 3 or sys.getrefcount(jobs) > 3:
        jobs._freeze()
    else:
        jobs._expire()


class _Jobs(Mapping):
    """The view's job table, ``job id -> JobView`` in workload order, built on first access.

    A policy that reads a few jobs (the head of a queue, a completion) costs only those; a
    :class:`JobView` is rebuilt only when its job's state changed since the last one built. The
    table reads the live simulation state, so it is exact while the policy decides; when
    ``decide`` returns, the simulator builds the rest of a table the policy kept (so a stored
    view is a true snapshot) and expires the others (reading one raises RuntimeError).
    """

    __slots__ = ("_t", "_ids", "_set", "_state", "_specs", "_cache", "_built", "_live")

    def __init__(self, t, ids, state, specs, cache) -> None:
        self._t, self._ids, self._state, self._specs, self._cache = t, ids, state, specs, cache
        self._set = None
        self._built: dict[int, JobView] = {}
        self._live = True

    def _expire(self) -> None:
        self._live = False

    def _freeze(self) -> None:
        for j in self._ids:
            self[j]
        self._state = None  # every entry is built: the live state is never read again

    def _alive(self) -> None:
        if not self._live:
            raise RuntimeError(
                f"the job table of the ClusterView of slot {self._t} was read after decide() returned; "
                "a view is valid only during the decide() call it is passed to (copy what you need)"
            )

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self):
        if self._state is not None:
            self._alive()
        return iter(self._ids)

    def __reversed__(self):
        if self._state is not None:
            self._alive()
        return reversed(self._ids)

    def __contains__(self, j) -> bool:
        if self._set is None:
            self._set = set(self._ids)
        return j in self._set

    def __getitem__(self, j) -> JobView:
        v = self._built.get(j)
        if v is not None:
            return v
        self._alive()
        if j not in self or self._state is None:
            raise KeyError(j)
        st = self._state[j]
        key = (st.status, st.work_done, st.start, st.placement)
        hit = self._cache.get(j)
        if hit is not None and hit[0] == key:
            v = hit[1]
        else:
            spec = self._specs[j]
            model = spec.model
            # JobView(...) field by field, without the frozen dataclass's per-field setattr
            # (this is the simulator's hottest allocation); the result is an ordinary JobView.
            v = object.__new__(JobView)
            v.__dict__.update(
                spec=spec,
                status=st.status,
                work_done=st.work_done,
                remaining_work=(model.total_work - st.work_done) if model.work_known else None,
                start=st.start,
                placement=st.placement,
                observations=model.observations(st.work_done),
            )
            self._cache[j] = (key, v)
        self._built[j] = v
        return v

    def __repr__(self) -> str:
        return f"<job table of slot {self._t}: {len(self._ids)} jobs>"


def _view(t, cluster, specs, state, active, used, arrived, completed, H, views, allocs) -> ClusterView:
    """The policy's view (its job table is :class:`_Jobs`). ``allocs`` (the running jobs'
    placements) is never changed after this: each decision makes a new dict."""
    used = used.copy()
    used.setflags(write=False)
    return ClusterView(
        t=t,
        cluster=cluster,
        jobs=_Jobs(t, active, state, specs, views),
        used=used,
        arrived=tuple(arrived),
        completed=tuple(completed),
        horizon=H,
        placements=allocs,
    )


def _apply(t, d: Decision, state, specs, cluster, check: bool, bar, prev, pos, usage, admitted):
    """Apply decision ``d`` (after the checks); return the new allocations, their usage, the
    jobs whose placement starts or changes now (in the allocations' order) and the jobs whose
    placement in force ends now (changed, or no longer running).

    ``prev`` are the allocations in force, ``pos`` each job's index in workload order (the order
    in which violations are reported), ``usage`` the simulation's
    :class:`~dlsched.core.schedule.UsageCache`, ``admitted`` the set of admitted, unfinished
    jobs (updated here with the admissions).
    """
    for j in sorted(d.admit | d.reject):
        if j not in state or state[j].status != "pending":
            st = state[j].status if j in state else "unknown"
            raise ScheduleViolation(
                "admission", f"job {j} is {st}, only pending jobs can be admitted or rejected", slot=t, job=j
            )
    for j in sorted(d.admit):
        state[j].status = "admitted"
        state[j].admitted_at = t
    for j in sorted(d.reject):
        state[j].status = "rejected"
        if bar is not None:
            bar.update(1)
    admitted.update(d.admit)
    delta = d.delta
    if delta is not None and delta[0] is prev:
        # made by Decision.update on these allocations: only the changed jobs can be new (their
        # order is the changes' order), the others keep their placement object and stay admitted
        base, jobs = delta
        new = Allocations(d.allocations)
        moved = [j for j in jobs if j in new and prev.get(j) is not new[j]]
        stopped = [j for j in jobs if j not in new and j in prev]
        wrong = not admitted.issuperset(moved)
    else:
        new = Allocations(d.allocations)
        # A running job's placement is its entry in ``prev`` (others have none): only entries
        # that are not that object can be new.
        moved = list(compress(new, map(is_not, new.values(), map(prev.get, new))))  # at C speed
        stopped = prev.keys() - new.keys()
        wrong = not (new.keys() <= admitted)
    if wrong:
        for j in sorted(d.allocations):
            st = state.get(j)
            if st is None or st.status != "admitted":
                status = "unknown" if st is None else st.status
                raise ScheduleViolation(
                    "admission",
                    f"allocation for job {j}, which is {status} (only admitted, unfinished jobs may run)",
                    slot=t,
                    job=j,
                )
    for j, info in d.info.items():
        if j in state:
            state[j].info.update(info)
    changed = []  # jobs whose placement is new now
    for j in moved:
        p = new[j]
        st = state[j]
        q = st.placement
        if p is q:
            continue
        if p == q:
            st.placement = p  # the same placement: keep the new object, so that `is` matches next time
            continue
        changed.append(j)
    if check:
        check_placements(cluster, specs, t, new, changed)
    used = usage.apply_changes(new, moved, stopped)
    if check:
        # with whole-number demands only the rows of servers that received tasks changed upwards
        # (a check of every row passed before); otherwise the usage was summed afresh
        grown = [s for j in moved for s in new[j].servers] if usage.integral else None
        check_capacity(cluster, t, new, used, grown)
    for j in sorted(d.pause):
        p = new.get(j, EMPTY)
        if p.is_empty or p == state[j].placement:
            raise ScheduleViolation(
                "pause",
                f"pause of {d.pause[j]:g} slots for job {j}, whose placement does not start or change now",
                slot=t,
                job=j,
                amount=d.pause[j],
            )
    # Only a job whose placement changed, or that ran before and gets nothing now, can change (the
    # others keep their placement, or had none and get none).
    gone = [j for j in stopped if state[j].status == "admitted"]
    for j in sorted(changed + gone, key=pos.__getitem__):
        st = state[j]
        p = new.get(j, EMPTY)
        prev = st.placement
        if p is prev or p == prev:  # a job that ran before and had an empty placement
            st.placement = p
            continue
        model = specs[j].model
        if not model.elastic and not prev.is_empty and not p.is_empty and p != prev:
            raise ScheduleViolation(
                "fixed_allocation",
                f"job {j} is not elastic: its running allocation cannot change",
                slot=t,
                job=j,
            )
        if not model.preemptible and not prev.is_empty and p.is_empty:
            raise ScheduleViolation(
                "fixed_allocation",
                f"job {j} is not preemptible: it keeps its allocation until it completes",
                slot=t,
                job=j,
            )
        if p != prev and not p.is_empty:
            pause = model.switch_pause(prev, p) / cluster.slot_seconds + d.pause.get(j, 0.0)
            if pause > 0:
                st.pause_left = pause
            if not prev.is_empty and p.servers != prev.servers:
                st.migrations += 1
        if st.start is None and p.n_workers > 0:
            st.start = t
        st.placement = p
    return new, used, changed, changed + gone


def _jobs_table(order, state, slot_s: float) -> pd.DataFrame:
    rows = []
    info_keys: list[str] = []
    for spec in order:
        st = state[spec.job_id]
        for k in st.info:
            if k not in info_keys:
                info_keys.append(k)
    for spec in order:
        st = state[spec.job_id]
        finished = st.status == "finished"
        ct = st.completion_time if finished else math.nan
        cslot = (math.ceil(ct - _TOL) - 1) if finished else math.nan
        duration = cslot - spec.arrival if finished else math.nan
        status = {"future": "not_arrived", "pending": "pending", "admitted": "unfinished"}.get(
            st.status, st.status
        )
        row = {
            "job_id": spec.job_id,
            "name": spec.name,
            "model": spec.model.kind,
            "arrival": spec.arrival,
            "status": status,
            "admitted": st.admitted_at is not None,
            "admitted_at": st.admitted_at if st.admitted_at is not None else math.nan,
            "start_slot": st.start if st.start is not None else math.nan,
            "completion_slot": cslot,
            "completion_time": ct,
            "jct": ct - spec.arrival if finished else math.nan,
            "jct_seconds": (ct - spec.arrival) * slot_s if finished else math.nan,
            "utility": float(spec.utility(duration)) if finished else 0.0,
            "target": spec.target,
            "completion_minus_target": duration - spec.target if finished else math.nan,
            "total_work": spec.model.total_work,
            "work_done": st.work_done,
            "migrations": st.migrations,
        }
        for k in info_keys:
            row[k] = st.info.get(k, math.nan)
        rows.append(row)
    df = pd.DataFrame(rows)
    if not rows:
        df = pd.DataFrame(columns=["job_id", "arrival", "status", "utility"])
    return df
