"""Round-robin task placement, shared by the baselines (FIFO, DRF, RRH, ...).

OASiS Sec. V-A: "In FIFO, DRF and RRH, workers and PSs are placed on available servers in a
round-robin fashion." :class:`RoundRobin` keeps one pointer per role and places tasks one at a
time on the next server (in index order, wrapping around) that has room for one more task,
optionally trying a job's previous servers first so that a job whose count does not change stays
where it is (fewer migrations).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec
from dlsched.core.schedule import Placement

_EPS = 1e-9


def reachable(spec: JobSpec, cluster: Cluster, t: int) -> np.ndarray:
    """Boolean mask of servers the job may use at slot ``t`` (data-transfer delays, A_online (2i))."""
    return t >= spec.arrival + spec.delays(cluster) - _EPS


def next_reachable_slot(spec: JobSpec, cluster: Cluster, t: int) -> int | None:
    """First slot after ``t`` at which one more server becomes reachable for the job, if any."""
    times = np.ceil(spec.arrival + spec.delays(cluster) - _EPS)
    later = times[times > t]
    return int(later.min()) if later.size else None


def single_server_widths(spec: JobSpec, cluster: Cluster, want: int) -> list[tuple[int, int, int]]:
    """``[(server, workers, ps), ...]`` for every server that can hold the whole job alone: the
    most workers, from ``want`` down to ``model.min_workers``, that fit on the empty server
    together with the PS they need (``model.ps_for``); hard resources only. Used by the
    single-server placements of FIFO (``placement="earliest"``) and A_online's Preemptive."""
    model = spec.model
    hard = cluster.hard
    wd = cluster.vector(spec.worker_demand)[hard]
    pd_ = cluster.vector(spec.ps_demand)[hard]
    hosts = np.intersect1d(cluster.servers_for("worker"), cluster.servers_for("ps"))
    cap = cluster.capacity[np.ix_(hosts, np.flatnonzero(hard))]
    width = np.zeros(hosts.size, dtype=np.int64)
    done = np.zeros(hosts.size, dtype=bool)
    for w in range(want, model.min_workers - 1, -1):  # vectorised over the servers
        fit = ~done & np.all(w * wd + model.ps_for(w) * pd_ <= cap + _EPS, axis=1)
        width[fit] = w
        done |= fit
        if done.all():
            break
    return [(int(hosts[i]), int(width[i]), model.ps_for(int(width[i]))) for i in np.flatnonzero(done)]


class RoundRobin:
    """Round-robin placer over one cluster.

    Parameters
    ----------
    cluster : Cluster
    """

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._servers = {r: cluster.servers_for(r) for r in ("worker", "ps")}
        self._pointer = {"worker": 0, "ps": 0}
        self._hard = cluster.hard
        self._all_hard = bool(np.all(cluster.hard))  # then x[..., hard] is x: index rows only
        self._vectors: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # demand class -> vectors

    def _demand_vectors(self, spec: JobSpec) -> tuple[np.ndarray, np.ndarray]:
        """``cluster.vector`` of the job's worker and PS demands, shared (read-only) by the jobs
        of one demand class."""
        try:
            key = (tuple(spec.worker_demand.items()), tuple(spec.ps_demand.items()))
            hit = self._vectors.get(key)
        except TypeError:  # unhashable demand values: no sharing
            key, hit = None, None
        if hit is None:
            hit = (self.cluster.vector(spec.worker_demand), self.cluster.vector(spec.ps_demand))
            for v in hit:
                v.setflags(write=False)
            if key is not None:
                self._vectors[key] = hit
        return hit

    def reset_pointers(self) -> None:
        """Start round robin again from the first server of each role."""
        self._pointer = {"worker": 0, "ps": 0}

    def fits(
        self, free: np.ndarray, server: int, demand: np.ndarray, reserve: np.ndarray | None = None
    ) -> bool:
        """Whether one task of ``demand`` fits in ``free[server]`` (hard resources only), leaving
        ``reserve[server]`` untouched if given."""
        h = self._hard
        room = free[server, h] if reserve is None else free[server, h] - reserve[server, h]
        return bool(np.all(room >= demand[h] - _EPS))

    def _preferred(self, free, demand, count, role, mask, prefer):
        """Common start of :meth:`place`: the eligible servers, a snapshot of ``free`` and the
        tasks put on the ``prefer`` servers. None when ``count <= 0`` or no server is eligible."""
        if count <= 0:
            return None
        servers = self._servers[role]
        if mask is not None:
            servers = servers[mask[servers]]
        if servers.size == 0:
            return None
        snapshot = free.copy()
        out: dict[int, int] = {}
        left = count
        if not prefer:
            return servers, snapshot, out, left
        allowed = set(servers.tolist())
        for s, quota in sorted(prefer.items()):
            if s not in allowed:
                continue
            while quota > 0 and left > 0 and self.fits(free, s, demand):
                free[s] -= demand
                out[s] = out.get(s, 0) + 1
                quota -= 1
                left -= 1
        return servers, snapshot, out, left

    def place(
        self,
        free: np.ndarray,
        demand: np.ndarray,
        count: int,
        role: str,
        mask: np.ndarray | None = None,
        prefer: Mapping[int, int] | None = None,
        reserve: np.ndarray | None = None,
    ) -> dict[int, int] | None:
        """Place ``count`` tasks; update ``free`` in place and return ``{server: count}``.

        Tries ``prefer`` (server -> up to how many tasks) first, then round robin over the
        servers that may host ``role`` (and are in ``mask``), keeping ``reserve`` (capacity held
        for other jobs' previous placements) free during the round-robin part. Returns None,
        leaving ``free`` and the pointer unchanged, if not all tasks fit.
        """
        start_state = self._preferred(free, demand, count, role, mask, prefer)
        if start_state is None:
            return {} if count <= 0 else None
        servers, snapshot, out, left = start_state
        n = servers.size
        start = int(np.searchsorted(servers, self._pointer[role])) % n
        pointer = self._pointer[role]
        # One fit test per server up front, then only the server that took a task is re-tested:
        # the same choices as trying servers[start], servers[start + 1], ... with fits().
        h = self._hard
        if self._all_hard:  # the same copies as the general branch, without np.ix_
            dh = demand
            room = free[servers]
            if reserve is not None:
                room = room - reserve[servers]
        else:
            dh = demand[h]
            room = free[np.ix_(servers, h)]
            if reserve is not None:
                room = room - reserve[np.ix_(servers, h)]
        need = dh - _EPS
        ok = np.all(room >= need, axis=1)
        while left > 0:
            fitting = np.flatnonzero(ok)
            if fitting.size == 0:
                free[:] = snapshot
                return None
            k = int(np.searchsorted(fitting, start))
            j = int(fitting[k]) if k < fitting.size else int(fitting[0])
            s = int(servers[j])
            free[s] -= demand
            room[j] -= dh
            ok[j] = bool(np.all(room[j] >= need))
            out[s] = out.get(s, 0) + 1
            left -= 1
            pointer = s + 1
            start = (j + 1) % n
        self._pointer[role] = pointer
        return out

    def place_job(
        self, spec: JobSpec, workers: int, ps: int, free: np.ndarray, t: int, prefer: Placement | None = None
    ) -> Placement | None:
        """Place ``workers`` workers and ``ps`` PS of a job, or return None (``free`` unchanged)."""
        mask = reachable(spec, self.cluster, t)
        wd, pd_ = self._demand_vectors(spec)
        snapshot = free.copy()
        pointers = dict(self._pointer)
        w = self.place(free, wd, workers, "worker", mask, dict(prefer.workers) if prefer else None)
        if w is None:
            return None
        p = self.place(free, pd_, ps, "ps", mask, dict(prefer.ps) if prefer else None)
        if p is None:
            free[:] = snapshot
            self._pointer = pointers
            return None
        return Placement.of(w, p)


class LoadBalance(RoundRobin):
    """Load-balancing placer: each task goes to the server with the most free resources.

    The default behaviour of the Kubernetes scheduler that the Optimus paper's DRF baseline uses
    ("placed in a load balancing way, according to the default behavior of Kubernetes", Sec.
    6.1): Kubernetes' *least-requested* priority scores a node by the mean over CPU and memory
    of its free fraction. Here the score is the mean over the cluster's hard resources of
    ``free / capacity`` (resources of capacity 0 left out); the task goes to the best-scoring
    server it fits on, ties to the lower index. ``prefer`` (a job's previous servers) is honoured
    first, as in :class:`RoundRobin`.
    """

    def place(
        self,
        free: np.ndarray,
        demand: np.ndarray,
        count: int,
        role: str,
        mask: np.ndarray | None = None,
        prefer: Mapping[int, int] | None = None,
        reserve: np.ndarray | None = None,
    ) -> dict[int, int] | None:
        """Place ``count`` tasks on the least-loaded servers; same contract as :meth:`RoundRobin.place`."""
        start_state = self._preferred(free, demand, count, role, mask, prefer)
        if start_state is None:
            return {} if count <= 0 else None
        servers, snapshot, out, left = start_state
        cap = self.cluster.capacity[np.ix_(servers, self._hard)]
        inv = np.where(cap > 0, 1.0 / np.where(cap > 0, cap, 1.0), 0.0)
        n_res = np.maximum((cap > 0).sum(axis=1), 1)
        while left > 0:
            room = free[np.ix_(servers, self._hard)]
            if reserve is not None:
                room = room - reserve[np.ix_(servers, self._hard)]
            ok = np.all(room >= demand[self._hard] - _EPS, axis=1)
            if not ok.any():
                free[:] = snapshot
                return None
            score = np.where(ok, (free[np.ix_(servers, self._hard)] * inv).sum(axis=1) / n_res, -np.inf)
            # the most free share; shares equal up to rounding (numerics.REL_TOL) tie -> lower index
            s = int(servers[numerics.argmax(score)])
            free[s] -= demand
            out[s] = out.get(s, 0) + 1
            left -= 1
        return out
