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
"""

from __future__ import annotations

import heapq
from typing import ClassVar

import numpy as np

from dlsched.baselines.fifo import check_count
from dlsched.core.placement import LoadBalance, RoundRobin, next_reachable_slot, reachable
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Decision, Placement

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

    def _cap(self, spec) -> int | None:
        caps = [c for c in (self.max_workers, spec.model.max_workers) if c is not None]
        if not caps and spec.requested_workers is not None and not spec.model.elastic:
            caps.append(spec.requested_workers)
        return max(min(caps), spec.model.min_workers) if caps else None  # a gang is never capped away

    def decide(self, t: int, view: ClusterView) -> Decision:
        cluster = view.cluster
        admit = [v.job_id for v in view.pending()]
        allocs: dict[int, Placement] = {}
        free = cluster.capacity.copy()
        usage: dict[int, np.ndarray] = {}
        grow = []
        wakeups = []
        for v in view.jobs.values():
            spec = v.spec
            wd = cluster.vector(spec.worker_demand)
            pd_ = cluster.vector(spec.ps_demand)
            if v.running and not spec.model.elastic:
                p = v.placement
                allocs[v.job_id] = p
                for s, c in p.workers:
                    free[s] -= c * wd
                for s, c in p.ps:
                    free[s] -= c * pd_
                usage[v.job_id] = p.n_workers * wd + p.n_ps * pd_
                continue
            nxt = next_reachable_slot(spec, cluster, t)
            if nxt is not None:
                wakeups.append(nxt)
            if not reachable(spec, cluster, t).any():
                continue
            grow.append(v)
        state = {}
        heap = []
        for order, v in enumerate(grow):
            state[v.job_id] = {
                "w": 0,
                "p": 0,
                "workers": {},
                "ps": {},
                "v": v,
                "prev_w": dict(v.placement.workers),
                "prev_p": dict(v.placement.ps),
            }
            heapq.heappush(heap, (0.0, order, v.job_id))
        # capacity held for the previous placements of elastic jobs, so that another job's
        # round-robin task does not take a server a job would stay on (fewer migrations)
        reserved = np.zeros_like(free)
        for st in state.values():
            reserved += _held(cluster, st)
        while heap:
            _, order, j = heapq.heappop(heap)
            st = state[j]
            spec = st["v"].spec
            model = spec.model
            cap = self._cap(spec)
            step = model.min_workers if st["w"] == 0 else 1
            own = _held(cluster, st)
            if cap is not None and st["w"] + step > cap:
                reserved -= own
                continue
            dp = model.ps_for(st["w"] + step) - model.ps_for(st["w"])
            wd = cluster.vector(spec.worker_demand)
            pd_ = cluster.vector(spec.ps_demand)
            mask = reachable(spec, cluster, t)
            w_new = p_new = None
            for keep in (reserved - own, None):  # first respect the others' servers, then not
                snapshot = free.copy()
                w_new = self._placer.place(free, wd, step, "worker", mask,
                                           _left(st["prev_w"], st["workers"]), keep)
                p_new = None
                if w_new is not None:
                    p_new = self._placer.place(free, pd_, dp, "ps", mask, _left(st["prev_p"], st["ps"]), keep)
                if w_new is not None and p_new is not None:
                    break
                free[:] = snapshot
            if w_new is None or p_new is None:
                reserved -= own
                continue
            for s, c in w_new.items():
                st["workers"][s] = st["workers"].get(s, 0) + c
            for s, c in p_new.items():
                st["ps"][s] = st["ps"].get(s, 0) + c
            reserved -= own - _held(cluster, st)
            st["w"] += step
            st["p"] += dp
            use = st["w"] * wd + st["p"] * pd_
            share = float(np.max(use * self._inv_total))
            heapq.heappush(heap, (share, order, j))
        for j, st in state.items():
            if st["w"] > 0:
                allocs[j] = Placement.of(st["workers"], st["ps"])
        return Decision(allocs, admit=admit, wakeup=min(wakeups) if wakeups else None)


def _held(cluster, st) -> np.ndarray:
    """Resources of a job's previous placement it has not re-used yet this round."""
    spec = st["v"].spec
    out = np.zeros_like(cluster.capacity)
    wd, pd_ = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
    for s, c in _left(st["prev_w"], st["workers"]).items():
        out[s] += c * wd
    for s, c in _left(st["prev_p"], st["ps"]).items():
        out[s] += c * pd_
    return out


def _left(previous: dict[int, int], placed: dict[int, int]) -> dict[int, int]:
    """Previous per-server counts not yet re-used in this round (placement stickiness)."""
    return {s: c - placed.get(s, 0) for s, c in previous.items() if c - placed.get(s, 0) > 0}
