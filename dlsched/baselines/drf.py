"""DRF: dominant-resource max-min fairness, recomputed on every arrival and completion.

The YARN/Mesos default used as a baseline by OASiS (Sec. V-A), Optimus (Sec. 6.1), PD-ORS and
A_online (Ghodsi et al., NSDI'11). Every job is admitted. On each arrival and completion the
worker (and PS) counts of all admitted jobs are recomputed by progressive filling: the job with
the smallest dominant share (its largest share of any resource of the cluster; ties by arrival,
then job id) receives one more worker and the PS its model needs for it, placed round-robin,
until no job can grow (its model's ``max_workers`` or the policy's cap reached, or nothing fits).
A job whose first step is a gang (``model.min_workers`` > 1) receives the whole gang at once.

Jobs whose model is not elastic (A_online (2c)-(2d), rigid trace jobs) keep their allocation while
they run; elastic jobs are re-placed, preferring the servers they were on, and the round-robin
tasks of other jobs keep off those servers while there is room elsewhere, so a job whose counts do
not change does not move.

Cost (issue 11): a decision does not try the queue. Waiting jobs are kept from one decision to the
next, in sub-queues by demand class and gang size; a sub-queue whose gang no longer fits in the
free capacity is passed over whole, since each of its jobs would fail to be placed and leave no
trace; only jobs placed in the decision enter the heap of dominant shares. With nothing more to
fit, a decision costs O(running jobs + arrivals + completions + demand classes), whatever the
queue length; the schedules are exactly those of the former code, which re-placed every queued
job at every decision (kept in ``tests/test_baselines_speed.py`` as the reference).

Floating point and ties (issue 19): the one choice between computed floats is the job with the
smallest dominant share (Ghodsi et al.'s progressive filling). Shares within
``numerics.REL_TOL`` (1e-9) of the smallest, plus ``numerics.ABS_TOL`` (1e-12), tie -- e.g. 3 x
0.1 and 0.3 of a resource -- and the tie goes to the earlier job (arrival, then job id), as for
exactly equal shares (:class:`_ShareQueue`, the rule of :func:`dlsched.core.numerics.argmin`); a
job not yet holding anything has share exactly 0. Capacity fits use the absolute slack
``_EPS`` = 1e-9 of :mod:`dlsched.baselines.fifo` (whole-number demands); placement is
:mod:`dlsched.core.placement`'s.
"""

from __future__ import annotations

import heapq
from typing import ClassVar

import numpy as np

from dlsched.baselines.fifo import (
    JobData,
    Mirror,
    TaskBound,
    Waiting,
    check_count,
    next_wakeup,
)
from dlsched.core import numerics
from dlsched.core.placement import LoadBalance, RoundRobin
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Allocations, Decision, Placement

PLACERS = {"round_robin": RoundRobin, "load_balance": LoadBalance}
"""Valid values of :class:`DRF`'s ``placement``."""


class DRF(BasePolicy):
    """Dominant Resource Fairness by progressive filling, round-robin placement.

    Parameters
    ----------
    max_workers : int, optional
        Cap on workers per job (default: the model's ``max_workers``, else the job's
        ``requested_workers``, else unbounded).
    placement : {"round_robin", "load_balance"}, default "round_robin"
        How tasks are put on servers: round robin (OASiS Sec. V-A, PD-ORS, A_online) or on the
        least-loaded server (:class:`~dlsched.core.placement.LoadBalance`, the Kubernetes default
        that Optimus Sec. 6.1 uses for its DRF baseline).
    """

    name: ClassVar[str] = "drf"

    def __init__(self, max_workers: int | None = None, placement: str = "round_robin"):
        self.max_workers = check_count(max_workers, "drf.max_workers")
        if placement not in PLACERS:
            raise ValueError(f"drf.placement must be one of {sorted(PLACERS)}, got {placement!r}")
        self.placement = placement

    def reset(self, cluster, rng) -> None:
        super().reset(cluster, rng)
        self._placer = PLACERS[self.placement](cluster)
        total = cluster.total_capacity()
        self._inv_total = np.where(total > 0, 1.0 / np.where(total > 0, total, 1.0), 0.0)
        self._mirror = Mirror(cluster)
        self._bound = TaskBound(cluster)
        self._cap_whole = _whole(cluster.capacity)

    def _cap(self, spec) -> int | None:
        caps = [c for c in (self.max_workers, spec.model.max_workers) if c is not None]
        if not caps and spec.requested_workers is not None and not spec.model.elastic:
            caps.append(spec.requested_workers)
        return max(min(caps), spec.model.min_workers) if caps else None  # a gang is never capped away

    # ---------------------------------------------------------------- queue kept across decisions
    def _wait(self, j: int) -> None:
        d = self._mirror.data[j]
        self._waiting.add(j, self._mirror.rank[j], (d.wkey, d.spec.model.min_workers))

    def _rebuild(self, t: int, view: ClusterView) -> list[int]:
        m = self._mirror
        admit = m.rebuild(t, view)
        self._waiting = Waiting()
        self._fixed: dict[int, Placement] = {}  # running jobs that are not elastic, kept as they are
        self._elastic: dict[int, Placement] = {}  # running elastic jobs, re-placed at each decision
        self._wake: list[tuple[int, int]] = []
        for j in m.rank:
            d = m.data[j]
            p = m.running.get(j)
            if p is not None and not d.elastic:
                self._fixed[j] = p
                continue
            if p is not None:
                self._elastic[j] = p
            else:
                self._wait(j)
            self._wake.extend((x, j) for x in d.times if x > t)
        heapq.heapify(self._wake)
        self._free_fixed = None
        return admit

    def _follow(self, t: int, view: ClusterView) -> tuple[list[int], bool]:
        """Bring the queue up to date with ``view``; return the jobs to admit, and whether the
        view continued the previous decision (False: everything was read afresh)."""
        m = self._mirror
        followed = m.follow(t, view)
        if followed is None:
            return self._rebuild(t, view), False
        arrived, completed = followed
        for j in completed:
            p = self._fixed.pop(j, None)
            if p is not None:
                self._fixed_change(self._fixed_data.pop(j), p, 1.0, self._whole_of.pop(j))
            self._elastic.pop(j, None)
        for j in arrived:
            self._wait(j)
            for x in m.data[j].times:
                if x > t:
                    heapq.heappush(self._wake, (x, j))
        return list(arrived), True

    def decide(self, t: int, view: ClusterView) -> Decision:
        """Progressive filling (see the module docstring), in time independent of the queue length
        when nothing more fits.

        The result is that of the former code, which put every admitted job in one heap keyed by
        (dominant share, arrival order) at share 0 and tried each: jobs that never grow are
        left out of the work instead of being tried. Running jobs that are not elastic keep
        their placement (free capacity recomputed only when they change); running elastic jobs
        are re-placed as before; waiting jobs are kept from one decision to the next in
        sub-queues by demand class and gang size (:class:`~dlsched.baselines.fifo.Waiting`), and
        a sub-queue whose gang no longer fits in the free capacity
        (:class:`~dlsched.baselines.fifo.TaskBound`) is skipped whole: its jobs' placements would
        fail and change nothing (no pointer moves, no capacity held). Only jobs placed in this
        decision enter the heap of dominant shares. The wakeup comes from a heap of the slots at
        which waiting or elastic jobs reach one more server.
        """
        cluster = view.cluster
        m = self._mirror
        admit, followed = self._follow(t, view)
        rank = m.rank
        data = m.data
        # Following its previous decision with no elastic job running, DRF keeps every running
        # job's placement and only adds the jobs it starts: Decision.update on the view's
        # placements (O(started jobs)); the order of the allocations is then the view's with the
        # started jobs appended, which changes no result (see _commit).
        delta = followed and not self._elastic and isinstance(view.placements, Allocations)
        fixed = sorted(self._fixed, key=rank.__getitem__) if not delta or self._free_fixed is None else []
        if self._free_fixed is None:
            free = cluster.capacity.copy()
            whole = self._cap_whole
            mass = int(free.max(initial=0)) if whole else 0
            for j in fixed:
                d = data[j]
                p = self._fixed[j]
                for s, c in p.workers:
                    free[s] -= c * d.wd
                for s, c in p.ps:
                    free[s] -= c * d.pd
                if whole:
                    whole = _whole_job(d)
                    mass += _mass(d, p) if whole else 0
            self._free_fixed = free
            self._fixed_data = {j: data[j] for j in fixed}
            self._whole_of = {j: _whole_job(data[j]) for j in fixed}
            self._fixed_mass = mass if whole and mass < _EXACT_MASS else None
        free = self._free_fixed.copy()
        allocs: dict[int, Placement] = {} if delta else {j: self._fixed[j] for j in fixed}
        waiting, elastic = self._waiting, self._elastic
        wakeup = next_wakeup(self._wake, t, lambda j: j in waiting or j in elastic)
        everywhere = m.everywhere

        # running elastic jobs that may use a server: they hold their previous servers
        reserved = np.zeros_like(free)
        movers = []
        for j in sorted(elastic, key=rank.__getitem__):
            d = data[j]
            mask = d.mask(t, everywhere)
            if not mask.any():
                continue
            p = elastic[j]
            st = _Grow(d, rank[j], mask, self._cap(d.spec), dict(p.workers), dict(p.ps))
            st.held = _held(st)
            reserved += st.held
            movers.append(st)
        bound = self._bound
        bound.clear()
        inv_total = self._inv_total
        grown: list[_Grow] = []
        heap = _ShareQueue()
        scan = waiting.scan()
        mi = 0
        while True:
            # the former heap's next entry: share 0 (waiting or elastic job, by arrival) or grown;
            # DRF's smallest dominant share with numerics tolerance, ties -> earlier job (rank)
            r_wait = scan.rank() if scan else None
            r_move = movers[mi].rank if mi < len(movers) else None
            r_zero = heap.zero_rank() if (r_wait is not None or r_move is not None) else None
            if (
                r_wait is not None
                and (r_move is None or r_wait < r_move)
                and (r_zero is None or r_wait < r_zero)
            ):
                wkey, gang = scan.key()
                if gang > bound.tasks(free, "worker", wkey):
                    scan.discard()  # no gang of this class fits any more: the whole sub-queue waits
                    continue
                j = scan.pop()
                d = data[j]
                mask = d.mask(t, everywhere)
                if not mask.any():
                    continue
                st = _Grow(d, rank[j], mask, self._cap(d.spec), None, None)
            elif r_move is not None and (r_zero is None or r_move < r_zero):
                st = movers[mi]
                mi += 1
            elif heap:  # with share-0 candidates outside the queue, only its class of 0 got here
                st = heap.pop(0.0 if r_zero is not None else None)
            else:
                break
            first = st.w == 0
            step = st.d.spec.model.min_workers if first else 1
            if self._grow(st, step, free, reserved):
                if first:
                    grown.append(st)
                use = st.w * st.d.wd + st.p * st.d.pd
                share = float(np.max(use * inv_total))
                heap.push(share, st.rank, st)
        for st in sorted(grown, key=lambda st: st.rank):
            allocs[st.d.spec.job_id] = Placement.of(st.workers, st.ps)
        self._commit(t, allocs, admit, grown, delta)
        if delta:  # allocs: the started jobs only
            return Decision.update(view.placements, allocs, admit=admit, wakeup=wakeup)
        return Decision(allocs, admit=admit, wakeup=wakeup)

    def _grow(self, st: _Grow, step: int, free: np.ndarray, reserved: np.ndarray) -> bool:
        """One step of progressive filling for ``st`` (the former loop's body); False: drop it."""
        own = st.held if st.prev_w is not None else None  # _held(st), kept since it last changed
        capped = st.cap is not None and st.w + step > st.cap
        if capped or step > self._bound.tasks(free, "worker", st.d.wkey):
            # capped, or its workers certainly do not fit (placing them would fail, changing nothing)
            if own is not None:
                reserved -= own
            return False
        d = st.d
        model = d.spec.model
        dp = model.ps_for(st.w + step) - model.ps_for(st.w)
        mask = st.mask
        placer = self._placer
        w_new = p_new = None
        left_w, left_p = _left(st.prev_w, st.workers), _left(st.prev_p, st.ps)  # place() only reads them
        # first respect the others' servers, then not
        for keep in (reserved - own if own is not None else reserved, None):
            snapshot = free.copy()
            w_new = placer.place(free, d.wd, step, "worker", mask, left_w, keep)
            p_new = None
            if w_new is not None:
                p_new = placer.place(free, d.pd, dp, "ps", mask, left_p, keep)
            if w_new is not None and p_new is not None:
                break
            free[:] = snapshot
        if w_new is None or p_new is None:
            if own is not None:
                reserved -= own
            return False
        self._bound.clear()
        for s, c in w_new.items():
            st.workers[s] = st.workers.get(s, 0) + c
        for s, c in p_new.items():
            st.ps[s] = st.ps.get(s, 0) + c
        if own is not None:
            st.held = _held(st)
            reserved -= own - st.held
        st.w += step
        st.p += dp
        return True

    def _fixed_change(self, d: JobData, p: Placement, sign: float, whole: bool) -> None:
        """A fixed job ``p`` starts (``sign`` -1) or ends (+1): update the free capacity the fixed
        jobs leave, or mark it for recomputation.

        The recomputation subtracts the fixed jobs' tasks from the capacity in rank order. While
        the capacity and every fixed job's demands are whole numbers >= 0 (no -0.0) and their
        total stays far below 2**53, every partial sum is an exactly represented whole number,
        so adding or subtracting one job's tasks gives the recomputed array bit for bit (and
        exact zeros are +0.0 either way); otherwise the array is recomputed.
        """
        free = self._free_fixed
        if free is None:
            return
        mass = self._fixed_mass
        if mass is not None and whole:
            mass += _mass(d, p) if sign < 0 else -_mass(d, p)
            if mass < _EXACT_MASS:
                self._fixed_mass = mass
                for s, c in p.workers:
                    free[s] += sign * (c * d.wd)
                for s, c in p.ps:
                    free[s] += sign * (c * d.pd)
                return
        self._free_fixed = None

    def _commit(
        self, t: int, allocs: dict[int, Placement], admit: list[int], grown: list[_Grow], delta: bool = False
    ) -> None:
        """Carry the decision over to the next one: started jobs leave the queue, elastic jobs
        left without tasks join it. ``delta``: ``allocs`` holds only the jobs started now, every
        running job keeping its placement (no elastic job ran).

        The order of a decision's allocations reaches DRF again only as the order of
        ``view.completed``, which changes no result: the fixed jobs' free capacity is updated by
        whole numbers (exact in any order) or recomputed in arrival order, and the mirror's usage
        only checks the view's to a tolerance.
        """
        waiting, elastic = self._waiting, self._elastic
        before = list(elastic)
        for st in grown:
            j = st.d.spec.job_id
            if j in waiting:
                waiting.remove(j)
                if not st.d.elastic:
                    self._fixed[j] = allocs[j]
                    self._fixed_data[j] = st.d
                    whole = self._whole_of[j] = _whole_job(st.d)
                    self._fixed_change(st.d, allocs[j], -1.0, whole)
                    continue
            elastic[j] = allocs[j]
        if delta:
            self._mirror.commit_started(t, allocs, admit)
            return
        for j in before:
            if j not in allocs:
                del elastic[j]
                self._wait(j)
        self._mirror.commit(t, allocs, admit)


_EXACT_MASS = 2**50
"""Bound on capacity plus fixed tasks' demands below which whole-number sums are exact."""


def _whole(a: np.ndarray) -> bool:
    """All entries whole numbers in [0, 2**40), none -0.0."""
    return bool(np.all(a == np.round(a)) and np.all(a < 2.0**40) and not np.signbit(a).any())


_WHOLE_JOB: dict[bytes, bool] = {}  # demand vectors' bytes -> _whole of both (a few classes)


def _whole_job(d: JobData) -> bool:
    """``_whole(d.wd) and _whole(d.pd)``, remembered per demand vectors (by their bytes)."""
    key = d.wd.tobytes() + d.pd.tobytes()
    hit = _WHOLE_JOB.get(key)
    if hit is None:
        if len(_WHOLE_JOB) > 4096:
            _WHOLE_JOB.clear()
        hit = _WHOLE_JOB[key] = _whole(d.wd) and _whole(d.pd)
    return hit


def _mass(d: JobData, p: Placement) -> int:
    """Bound on one job's contribution to any entry of the fixed jobs' usage."""
    return p.n_workers * int(d.wd.max(initial=0)) + p.n_ps * int(d.pd.max(initial=0))


class _ShareQueue:
    """Progressive filling's priority queue: the job with the smallest dominant share first, where
    shares within the numerics tolerance of the smallest (``REL_TOL`` of it + ``ABS_TOL``) tie and
    the smallest rank (arrival order) among them wins -- :func:`dlsched.core.numerics.argmin`'s
    rule, in O(log n) per operation.

    Entries are grouped by their exact share: a heap of distinct share values and, per value, a
    heap of ``(rank, item)``. Exactly equal shares (the common case: jobs of one demand class with
    the same counts) cost nothing extra; only the few distinct values within the tolerance of the
    smallest are compared by their best rank. Ranks are unique (one entry per job).
    """

    __slots__ = ("_values", "_in_values", "_groups")

    def __init__(self) -> None:
        self._values: list[float] = []  # heap of distinct shares (may hold emptied ones)
        self._in_values: set[float] = set()
        self._groups: dict[float, list[tuple[int, _Grow]]] = {}

    def __bool__(self) -> bool:
        return bool(self._groups)

    def push(self, share: float, rank: int, item: _Grow) -> None:
        group = self._groups.get(share)
        if group is None:
            group = self._groups[share] = []
            if share not in self._in_values:
                self._in_values.add(share)
                heapq.heappush(self._values, share)
        heapq.heappush(group, (rank, item))

    def _clean(self) -> list[float]:
        """The value heap, its emptied values at the top dropped (its root is then the minimum)."""
        values = self._values
        while values and values[0] not in self._groups:
            self._in_values.discard(heapq.heappop(values))
        return values

    def _best(self, lo: float) -> tuple[int, float] | None:
        """``(rank, share)`` of the smallest rank among shares ``<= lo + tolerance(lo, lo)``."""
        values = self._clean()
        if not values:
            return None
        bound = lo + (numerics.REL_TOL * abs(lo) + numerics.ABS_TOL)  # numerics.tolerance(lo, lo)
        best = None
        stack = [0]
        while stack:  # the heap's entries <= bound form a subtree at its root
            i = stack.pop()
            v = values[i]
            if v > bound:
                continue
            group = self._groups.get(v)
            if group and (best is None or group[0][0] < best[0]):
                best = (group[0][0], v)
            stack.extend(k for k in (2 * i + 1, 2 * i + 2) if k < len(values))
        return best

    def zero_rank(self) -> int | None:
        """Smallest rank among shares tied with 0 (``numerics.ABS_TOL``, i.e. exactly 0), None if none."""
        best = self._best(0.0)
        return None if best is None else best[0]

    def pop(self, lo: float | None = None) -> _Grow:
        """Remove and return the first job: smallest rank among the shares within the tolerance
        of ``lo`` (default: of the smallest share; 0 when share-0 jobs outside take part)."""
        values = self._clean()
        best = self._best(values[0] if lo is None and values else (lo or 0.0))
        if best is None:
            raise IndexError("pop from an empty _ShareQueue")
        v = best[1]
        group = self._groups[v]
        item = heapq.heappop(group)[1]
        if not group:
            del self._groups[v]  # its value leaves the value heap lazily
        return item


class _Grow:
    """One admitted job's growth in one decision (the former per-job state dict)."""

    __slots__ = ("d", "rank", "mask", "cap", "w", "p", "workers", "ps", "prev_w", "prev_p", "held")

    def __init__(self, d: JobData, rank: int, mask, cap, prev_w, prev_p) -> None:
        self.d = d
        self.rank = rank
        self.mask = mask
        self.cap = cap
        self.w = 0
        self.p = 0
        self.workers: dict[int, int] = {}
        self.ps: dict[int, int] = {}
        self.prev_w = prev_w  # previous placement (None for a job that was not running)
        self.prev_p = prev_p
        self.held: np.ndarray | None = None  # _held(self) while prev_w is set, kept up to date


def _held(st: _Grow) -> np.ndarray:
    """Resources of a job's previous placement it has not re-used yet this round."""
    out = np.zeros((st.mask.size, st.d.wd.size))
    for s, c in _left(st.prev_w, st.workers).items():
        out[s] += c * st.d.wd
    for s, c in _left(st.prev_p, st.ps).items():
        out[s] += c * st.d.pd
    return out


def _left(previous: dict[int, int] | None, placed: dict[int, int]) -> dict[int, int]:
    """Previous per-server counts not yet re-used in this round (placement stickiness)."""
    if not previous:
        return {}
    return {s: c - placed.get(s, 0) for s, c in previous.items() if c - placed.get(s, 0) > 0}
