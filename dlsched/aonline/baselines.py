r"""The BatchSche and Preemptive baselines of A_online (Sec. VI; spec section 12).

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021, Sec. VI compares A_online with four baselines. FIFO and DRF are the shared
:class:`dlsched.baselines.fifo.FIFO` (``placement="earliest"``: the whole job on the server that
can start it earliest, chosen automatically on an edge-cloud workload by
:meth:`~dlsched.baselines.fifo.FIFO.from_workload`) and :class:`dlsched.baselines.drf.DRF`
(progressive filling on the worker and PS slot counts; a started A_online job keeps its
allocation). This module holds the other two.

**BatchSche** (:class:`BatchSche`) -- what the sources say and our reading:

* A_online Sec. VI [Q]: "The algorithm proposed for the elastic resource requirements of ML jobs,
  mainly applies batch processing to minimize the total cost of resources", citing Zhang, Zhou,
  Wu, Jiao, Li, "Online scheduling of heterogeneous distributed machine learning jobs", ACM
  MobiHoc 2020. Spec [B]: A_online's own framework -- geometric time points, a "maximum job
  scheduling" batch problem, compact-exponential ILP, exponential prices -- follows that paper.
  Its public abstract: an online framework that "groups unprocessed ML training jobs into a batch
  iteratively" and a batch algorithm that "configures each ML job" (execution window, number and
  type of workers and PSs) "to maximize the total weight of scheduled jobs in the current
  iteration"; demand elasticity means a job "can be completed using various time lengths with
  different resource configurations". We have no copy of that paper beyond this.
* Our reading: the same geometric batching as A_online (rounds at :math:`\tau_i = 2^{i-1}`, jobs
  with :math:`a_j < \tau_i` not yet scheduled, window :math:`[\tau_i, 2\tau_i)` in simulator
  slots, unscheduled jobs roll over), prices (7)-(8) over the window, and per job, in arrival
  order, the **cheapest configuration** ("minimize the total cost of resources"): for every
  worker count :math:`D_u = 1..D_j` the duration
  :math:`d = \lceil E_jD_jM_j / (p_j^{\xi=0} D_u)\rceil` (the cloud-cluster model of the
  MobiHoc paper has no co-location speed-up, so it plans with :math:`\xi_j = 0` of (1)); workers
  go greedily to the servers with the lowest window cost per worker
  :math:`\sum_t \lambda_{su_j}(t)` (ties: lower index), the PS to the cheapest server with a free
  PS slot; the configuration of least cost (ties: the fewest workers, the first found by the
  loop over :math:`D_u`, as Alg. 2 line 11 keeps the first best) is
  admitted iff its payoff :math:`w_j - \text{cost} > 0`, as (5a)-(6). Only servers the job's data
  has reached by :math:`\tau_i` are used ((2i), the simulator's rule
  :math:`a_j + \Delta_{js} \le \tau_i`), and the allocation is fixed from :math:`\tau_i` to
  completion ((2c)-(2d)). What it lacks compared with A_online: no co-located candidate (COST_C),
  no moving of workers onto the PS server (COST_D lines 12-33), and the planned duration ignores
  the faster co-located rate (a placement that happens to be co-located finishes early).

**Preemptive** (:class:`Preemptive`) -- Tiresias (Gu et al., NSDI'19) as A_online describes it [Q]:
"jobs with a shorter completion time preempt other jobs on the server, so that they can be
completed first ... It ignores the time overhead of preemption". Our reading, shortest remaining
time first with fixed gangs (Tiresias jobs keep their GPU demand):

* every job has a gang per server (:func:`~dlsched.core.placement.single_server_widths`): its
  ``requested_workers`` (else :math:`D_j`) capped by what the empty server holds with the PS,
  all on that one server (the paper: "jobs tend to be deployed on the same server");
* at every arrival and completion the jobs are ranked by remaining work over the rate of their
  full width co-located (attained service, Tiresias' LAS, if the model hides the work; ties:
  arrival, id) and served in that order on a fresh copy of the cluster: a running job keeps its
  placement if it still fits, otherwise it is preempted (stopped; it may resume from the next
  slot, possibly elsewhere); a waiting job takes the gang that would complete earliest -- on a
  server where it fits now, or on a server its data has not reached yet (2i), in which case it
  waits (ties: a server without lower-ranked running jobs, then the lower index);
* ``preemption_overhead`` slots of progress are lost at every resume
  (:attr:`dlsched.core.schedule.Decision.pause`; 0 is Figs. 7-8, > 0 Figs. 9-10); the policy's
  decisions ignore it, as the paper says.

Jobs must be preemptible (``AOnlineModel.allow_preemption``, the ``aonline`` workload's
``preemptible=True``): the simulator refuses to pause any other job (A_online (2c)-(2d)), and
``Preemptive`` raises on them unless ``strict=False``.

**Floating point and ties (issue 19)**, as in :mod:`dlsched.aonline.policy`: values within
``numerics.REL_TOL`` (1e-9, + ``ABS_TOL``) are equal for a decision. BatchSche: worker servers
by window cost per worker (ties: lower index), PS server by window cost (ties: lower index),
least-cost configuration ``cost < best`` (ties: the first, fewest workers), admission
:math:`w_j - \text{cost} > 0` relative to :math:`\max(|w_j|, \text{cost})` (a payoff within it
of 0 is postponed). Preemptive: the SRTF / LAS rank (ties: arrival, job id) and the earliest
completing server (ties: no lower-ranked running job, then lower index).

=====================================  ===========================================================
paper                                  code
=====================================  ===========================================================
:math:`\tau_i = 2^{i-1}`               :func:`time_points`; :attr:`BatchSche.rounds`
:math:`\lambda, \mu` (7)-(8)           :class:`~dlsched.core.pricing.ShiftedExponentialPrice`
:math:`\theta_1 = 2TSUF_1 + 1`         :meth:`BatchSche.theta` (``F1``, ``F2``, ``horizon``)
:math:`p_j^{\xi=0}` (1), :math:`D_u`   ``AOnlineModel.speed(False)``, loop in ``BatchSche._cheapest``
:math:`\eta_j` (6), :math:`c_j` plan   job-table columns ``payoff``, ``planned_completion``
preemptions, overhead                  job-table column ``preemptions``; ``preemption_overhead``
=====================================  ===========================================================
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import ClassVar

import numpy as np

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, RateContext, Workload
from dlsched.core.placement import next_reachable_slot, reachable, single_server_widths
from dlsched.core.policy import BasePolicy, ClusterView, JobView
from dlsched.core.pricing import ShiftedExponentialPrice
from dlsched.core.schedule import Decision, Placement

_EPS = 1e-9  # capacity fits, ceil/floor of slot and worker counts, data-ready times: not a tie rule


def time_points(limit: int) -> Iterator[int]:
    r"""The time points :math:`\tau_i = 2^{i-1}`, :math:`i = 1, 2, \dots`, up to ``limit``."""
    tau = 1
    while tau <= limit:
        yield tau
        tau *= 2


def _positive(value, what: str, *, strict: bool = True) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not math.isfinite(float(value)) or (value <= 0 if strict else value < 0):
        raise ValueError(f"{what} must be a finite number {'>' if strict else '>='} 0, got {value!r}")
    return float(value)


def _hosts_both(cluster: Cluster) -> np.ndarray:
    """Servers that may host workers and PS (edge, cloud, unified pools)."""
    return np.intersect1d(cluster.servers_for("worker"), cluster.servers_for("ps"))


def wanted_workers(spec: JobSpec) -> int:
    """Worker count a job asks for: ``requested_workers``, else the model's ``max_workers``
    (A_online's :math:`D_j`), else its minimum; within the model's bounds."""
    model = spec.model
    want = max(spec.requested_workers or model.max_workers or model.min_workers, model.min_workers)
    return min(want, model.max_workers) if model.max_workers is not None else want


# ---------------------------------------------------------------------------------- BatchSche


class BatchSche(BasePolicy):
    r"""BatchSche (Zhang et al., MobiHoc'20) as read in the module docstring.

    Parameters
    ----------
    F1, F2 : float, default 1
        Unit price caps of (7)-(8) (> 0).
    horizon : int, optional
        :math:`T` of the price bases; default the workload's ``params["T"]`` (via
        :meth:`from_workload`), else the simulation horizon, else the end of the current window.
    """

    name: ClassVar[str] = "batchsche"

    def __init__(self, F1: float = 1.0, F2: float = 1.0, horizon: int | None = None):
        self.F1 = _positive(F1, "batchsche.F1")
        self.F2 = _positive(F2, "batchsche.F2")
        if horizon is not None and (
            isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1
        ):
            raise ValueError(f"batchsche.horizon must be an integer >= 1 or None, got {horizon!r}")
        self.horizon = None if horizon is None else int(horizon)

    @classmethod
    def from_workload(cls, workload: Workload, **params) -> BatchSche:
        """BatchSche with ``horizon`` = the workload's ``params["T"]`` (else its horizon) unless
        given."""
        if params.get("horizon") is None:
            T = workload.params.get("T", workload.horizon)
            params["horizon"] = None if T is None else int(T)
        return cls(**params)

    def reset(self, cluster, rng) -> None:
        super().reset(cluster, rng)
        self._next_tau = 1
        self._plan: dict[int, tuple[int, int, Placement]] = {}
        self.rounds: list[dict[str, object]] = []
        """One record per round: ``tau``, ``considered``, ``admitted`` (job ids)."""
        n_w = sum(bool(re.fullmatch(r"w\d+", r)) for r in cluster.resources)
        n_p = sum(bool(re.fullmatch(r"ps\d+", r)) for r in cluster.resources)
        self._types = (max(1, n_w), max(1, n_p))

    def theta(self, T: int) -> tuple[float, float]:
        r""":math:`(\theta_1, \theta_2) = (2TSUF_1 + 1, 2TSVF_2 + 1)`; :math:`U, V` are the
        numbers of the cluster's ``w<u>`` / ``ps<v>`` resources (at least 1)."""
        S = self.cluster.n_servers
        U, V = self._types
        return 2.0 * T * S * U * self.F1 + 1.0, 2.0 * T * S * V * self.F2 + 1.0

    def decide(self, t: int, view: ClusterView) -> Decision:
        admit: list[int] = []
        info: dict[int, dict[str, float]] = {}
        while self._next_tau < t:  # rounds passed while nothing was active: nothing to batch
            self._next_tau *= 2
        if t == self._next_tau:
            admit, info = self._round(t, view)
            self._next_tau *= 2
        allocs = {j: p for j, (start, end, p) in self._plan.items() if start <= t < end and j in view.jobs}
        return Decision(allocs, admit=admit, wakeup=self._next_tau, info=info)

    # ------------------------------------------------------------------------------ one round
    def _round(self, tau: int, view: ClusterView) -> tuple[list[int], dict[int, dict[str, float]]]:
        cluster = self.cluster
        end = 2 * tau  # window [tau, 2 tau): (tau_i, tau_{i+1}] of the paper
        T = self.horizon or view.horizon or end
        theta1, theta2 = self.theta(T)
        lam, mu = ShiftedExponentialPrice(theta1), ShiftedExponentialPrice(theta2)
        hard = cluster.hard
        base = np.array(view.used, dtype=float)  # jobs still running (none when rounds do not overlap)
        batch = [v for v in view.pending() if v.spec.arrival < tau]
        # this round's admissions: every one starts at tau, so usage only drops at their ends
        ends = np.zeros(len(batch), dtype=np.int64)
        booked = np.zeros((len(batch), *cluster.capacity.shape))
        m = 0
        admitted, info = [], {}
        # the segments of the current admissions and, per resource, its usage and prices per segment:
        # shared by the jobs until the next admission changes the usage (every value elementwise
        # as computed for the job's own columns)
        segs: tuple | None = None
        per_res: dict[tuple[str, int], np.ndarray] = {}
        for v in batch:
            spec = v.spec
            model = spec.model
            if not isinstance(model, AOnlineModel):
                raise ValueError(
                    f"batchsche: job {spec.job_id}: model must be an AOnlineModel, got {model.kind!r}"
                )
            wd, pd_ = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
            cols = np.flatnonzero(((wd > 0) | (pd_ > 0)) & hard)  # the job's types u_j, v_j
            if segs is None:
                order = np.argsort(ends[:m], kind="stable")
                e_sorted = ends[:m][order]
                bounds = np.concatenate([[tau], np.unique(e_sorted[e_sorted < end]), [end]])
                segs = (order, bounds, np.searchsorted(e_sorted, bounds[:-1], side="right"))
            order, bounds, at_seg = segs
            for r in cols.tolist():
                if ("use", r) not in per_res:
                    # usage in segment k = base + every admission ending after bounds[k] (suffix sums)
                    suffix = np.zeros((m + 1, cluster.n_servers))
                    if m:
                        suffix[:m] = np.cumsum(booked[:m][order][:, :, r][::-1], axis=0)[::-1]
                    use_r = per_res["use", r] = base[None, :, r] + suffix[at_seg]
                    cap_r = per_res["cap", r] = cluster.capacity[:, r]
                    # usage within capacity: every price is finite and >= 0, so a price that only
                    # meets a zero demand contributes +0.0 to _cheapest's sums, as 0.0 does
                    per_res["fits", r] = bool(np.all(((use_r <= cap_r) | (cap_r <= 0)) & (use_r >= 0)))
            if cols.size:
                use = np.stack([per_res["use", r] for r in cols.tolist()], axis=2)
                rs = cols.tolist()
                lam_u = [self._price(per_res, lam, "lam", r, a) for r, a in zip(rs, wd[cols], strict=True)]
                mu_u = [self._price(per_res, mu, "mu", r, a) for r, a in zip(rs, pd_[cols], strict=True)]
                prices = (np.stack(lam_u, axis=2), np.stack(mu_u, axis=2))  # lam(use, cap), mu(use, cap)
            else:  # no typed resource: nothing to share
                use, prices = np.zeros((len(bounds) - 1, cluster.n_servers, 0)), None
            best = self._cheapest(spec, tau, end, bounds, use, cols, wd[cols], pd_[cols], lam, mu, prices)
            if best is None:
                continue
            cost, d, placement = best
            payoff = float(model.weight) - cost
            # (5a)-(6): admit iff w_j - cost > 0 by more than numerics tolerance (REL_TOL of
            # max(|w_j|, cost)); a payoff within it of 0 is a tie -> postponed (as eta_j = 0)
            if not payoff > numerics.tolerance(model.weight, cost):
                continue
            admitted.append(spec.job_id)
            self._plan[spec.job_id] = (tau, tau + d, placement)
            for s, c in placement.workers:
                booked[m, s] += c * wd
            for s, c in placement.ps:
                booked[m, s] += c * pd_
            ends[m] = tau + d
            m += 1
            segs = None  # the usage changed
            per_res.clear()
            info[spec.job_id] = {"payoff": payoff, "planned_completion": float(tau + d - 1)}
        self.rounds.append({"tau": tau, "considered": [v.job_id for v in batch], "admitted": list(admitted)})
        return admitted, info

    @staticmethod
    def _price(per_res: dict, fn, which: str, r: int, demand: float) -> np.ndarray:
        """The prices ``fn`` of resource ``r``'s usage per segment (cached in ``per_res``), or
        zeros where they only multiply a zero ``demand`` and are finite and >= 0 (the same
        products, +0.0)."""
        got = per_res.get((which, r))
        if got is None:
            use_r = per_res["use", r]
            if demand == 0 and per_res["fits", r]:
                return np.zeros_like(use_r)
            got = per_res[which, r] = fn(use_r, per_res["cap", r])  # elementwise as fn(use, cap)
        return got

    def _cheapest(self, spec, tau, end, bounds, use, cols, wd, pd_, lam, mu, prices=None):
        """(cost, duration, placement) of the cheapest configuration, or None.

        ``use`` is the usage of the job's resources ``cols`` per window segment
        ``[bounds[k], bounds[k+1])``, shape (segments, servers, len(cols)); ``wd`` and ``pd_`` the
        worker / PS demand on those resources. ``prices``: ``(lam(use, cap), mu(use, cap))`` when
        already known."""
        cluster = self.cluster
        model = spec.model
        n_srv = cluster.n_servers
        cap = cluster.capacity[:, cols]
        ok = np.zeros(n_srv, bool)
        ok[_hosts_both(cluster)] = True
        ok &= reachable(spec, cluster, tau)
        free0 = cap - use[0]  # usage is highest at tau
        wmask, pmask = wd > 0, pd_ > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            room_w = np.floor(np.min(np.where(wmask, free0 / np.where(wmask, wd, 1), np.inf), axis=1) + _EPS)
        room_w = np.where(ok, np.maximum(room_w, 0), 0).astype(np.int64)
        lam_u, mu_u = (lam(use, cap), mu(use, cap)) if prices is None else prices
        w_price = (lam_u * wd).sum(axis=2)  # (segments, S): price of one worker per slot
        p_price = (mu_u * pd_).sum(axis=2)
        seg = np.diff(bounds)
        best = None
        # the worker counts to try, in order: n = 1, 2, ... while the window holds the duration,
        # up to the first n that no longer fits (more workers never fit either)
        room_total = room_w.sum()
        tried: list[tuple[int, int]] = []
        for n in range(1, model.max_workers + 1):
            d = max(1, math.ceil(model.total_work / (model.speed(False) * n) - _EPS))
            if tau + d > end:
                continue
            if room_total < n:
                break
            tried.append((n, d))
        if not tried:
            return None
        d_all = np.array([d for _, d in tried], dtype=np.int64)
        length_all = np.clip(tau + d_all[:, None] - bounds[None, :-1], 0, seg[None, :])  # slots used
        # (n, S) window cost of one worker / of the PS: per n, numerics.dot(length[:, None], price,
        # axis=0) (the same products, the same reduction of the segment axis), all n at once
        lf = length_all[:, :, None].astype(np.float64)
        cw_all = np.sum(np.multiply(lf, w_price[None]), axis=1)
        cp_all = np.sum(np.multiply(lf, p_price[None]), axis=1)
        for i, (n, d) in enumerate(tried):
            cw, cp = cw_all[i], cp_all[i]
            # cheapest window cost per worker first: costs within numerics tolerance (REL_TOL of the
            # first of each tie run) tie; ties -> the lower server index
            order = numerics.order(cw)
            order = order[room_w[order] > 0]
            cum = np.cumsum(room_w[order])
            k = int(np.searchsorted(cum, n))  # servers order[: k + 1] are filled
            y = np.zeros(n_srv, dtype=np.int64)
            y[order[:k]] = room_w[order[:k]]
            y[order[k]] = n - (cum[k - 1] if k else 0)
            rest = free0 - y[:, None] * wd
            ps_ok = ok & np.all(rest[:, pmask] >= pd_[pmask] - _EPS, axis=1)
            if not ps_ok.any():
                return best
            cand = np.flatnonzero(ps_ok)
            # cheapest PS server: costs within numerics tolerance (REL_TOL of the minimum) tie;
            # ties -> the lower server index
            ps_server = int(cand[numerics.argmin_1d(cp[cand])])
            cost = numerics.dot(cw, y) + float(cp[ps_server])
            # least-cost configuration: cost < best by more than numerics tolerance (REL_TOL of the
            # larger); ties -> the first found, the fewest workers (as Alg. 2 line 11)
            if best is None or numerics.less(cost, best[0]):
                workers = {int(s): int(y[s]) for s in np.flatnonzero(y)}
                best = (cost, d, Placement.of(workers, {ps_server: model.ps_for(n)}))
        return best


# --------------------------------------------------------------------------------- Preemptive


class Preemptive(BasePolicy):
    r"""Tiresias-like shortest-remaining-time-first with preemption (module docstring).

    Parameters
    ----------
    preemption_overhead : float, default 0
        Slots of progress a job loses each time it resumes after a preemption (checkpoint
        restore). 0 is the paper's Preemptive of Figs. 7-8 ("ignores the time overhead of
        preemption"); > 0 the variant of Figs. 9-10.
    strict : bool, default True
        Raise when a job is not preemptible (its model forbids pauses, A_online (2c)-(2d)): a
        Preemptive run on such jobs would silently be non-preemptive. ``False`` serves such jobs
        too but never preempts them.
    """

    name: ClassVar[str] = "preemptive"
    workload_defaults: ClassVar[Mapping[str, object]] = MappingProxyType({"preemptible": True})

    def __init__(self, preemption_overhead: float = 0.0, strict: bool = True):
        self.preemption_overhead = _positive(
            preemption_overhead, "preemptive.preemption_overhead", strict=False
        )
        if not isinstance(strict, bool):
            raise ValueError(f"preemptive.strict must be a bool, got {strict!r}")
        self.strict = strict

    @classmethod
    def from_workload(cls, workload, **params) -> Preemptive:
        """The policy, after checking up front that every job fits on some single server (the
        check :meth:`decide` makes when the job arrives), so that a workload it can never run
        is refused before the simulation starts."""
        pol = cls(**params)
        for spec in workload.jobs:
            if not single_server_widths(spec, workload.cluster, wanted_workers(spec)):
                raise ValueError(
                    f"preemptive: job {spec.job_id} fits on no single server (its "
                    f"{spec.model.min_workers} worker(s) and PS together), so it could never run"
                )
        return pol

    def reset(self, cluster, rng) -> None:
        super().reset(cluster, rng)
        self._preemptions: dict[int, int] = {}
        self._widths: dict[int, list[tuple[int, int, int]]] = {}
        self._warr: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._hosts = _hosts_both(cluster)
        self._rates: dict[int, float] = {}  # remaining_time's rate, when the model's rate is constant
        self._vecs: dict[int, tuple[np.ndarray, ...]] = {}  # _demand
        self._needs: dict[int, tuple[Placement, dict[int, np.ndarray]]] = {}  # _need

    def remaining_time(self, v: JobView, ctx: RateContext) -> float:
        """Remaining work over the rate of the job's wanted width on one server (NaN when the
        model hides its work)."""
        if v.remaining_work is None:
            return math.nan
        spec = v.spec
        r = self._rates.get(spec.job_id)
        if r is None:
            w = wanted_workers(spec)
            s = int(self._hosts[0]) if self._hosts.size else 0  # only co-location matters here
            ps = spec.model.ps_for(w)
            r = spec.model.rate(spec, Placement.of({s: w}, {s: ps} if ps else {}), ctx)
            if getattr(type(spec.model), "rate", None) is AOnlineModel.rate:  # reads only the frozen
                self._rates[spec.job_id] = r  # spec and placement: the same rate at every call
        return v.remaining_work / r if r > 0 else math.inf

    def _key(self, v: JobView, ctx: RateContext) -> tuple:
        rem = self.remaining_time(v, ctx)
        if math.isnan(rem):  # unknown work: least attained service first (Tiresias' LAS)
            return (1, v.work_done, v.spec.arrival, v.job_id)
        return (0, rem, v.spec.arrival, v.job_id)

    def _ranked(self, jobs: list[JobView], ctx: RateContext) -> list[JobView]:
        """Jobs by :meth:`_key`: known remaining time first (SRTF), then unknown work by attained
        service (LAS). The float (remaining time / attained service) compares with numerics
        tolerance (REL_TOL of the first of each tie run); ties -> arrival, then job id."""
        keys = [self._key(v, ctx) for v in jobs]
        ranked: list[JobView] = []
        for group in (0, 1):
            idx = [i for i, k in enumerate(keys) if k[0] == group]
            if idx:
                perm = numerics.order([keys[i][1] for i in idx], [keys[i][2] for i in idx],
                              [keys[i][3] for i in idx])  # fmt: skip
                ranked.extend(jobs[idx[p]] for p in perm)
        return ranked

    def widths(self, spec: JobSpec) -> list[tuple[int, int, int]]:
        """``[(server, workers, ps), ...]``: the job's gang on each server that can hold it --
        the most workers (up to :func:`wanted_workers`, at least the model's minimum) that fit with
        their PS on the empty server (Tiresias jobs keep a fixed demand)."""
        if spec.job_id not in self._widths:
            self._widths[spec.job_id] = single_server_widths(spec, self.cluster, wanted_workers(spec))
        return self._widths[spec.job_id]

    def _demand(self, spec: JobSpec) -> tuple[np.ndarray, ...]:
        """``cluster.vector`` of the job's worker / PS demand, those on the hard resources, and
        its data-ready times ``a_j + Delta_js``, cached per job (read-only)."""
        vec = self._vecs.get(spec.job_id)
        if vec is None:
            cluster = self.cluster
            wd, pd_ = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
            vec = self._vecs[spec.job_id] = (
                wd, pd_, wd[cluster.hard], pd_[cluster.hard], spec.arrival + spec.delays(cluster)
            )
        return vec

    def _best_server(self, v: JobView, free, t: int, ctx, avoid: set[int]) -> Placement | None:
        """The job's gang on the server where it would complete earliest: one it fits on now
        (``t + remaining / rate``) or one its data has not reached yet (``a_j + Delta_js +
        remaining / rate``, assumed free then). None when nothing fits now or waiting is better;
        ties: a server without lower-ranked running jobs (``avoid``), then the lower index."""
        spec = v.spec
        cluster = self.cluster
        hard = cluster.hard
        _, _, wd, pd_, ready = self._demand(spec)
        work = v.remaining_work
        best, best_key = None, None
        widths = self.widths(spec)
        if not widths:
            return None
        srv, wk, pss = self._width_arrays(spec)
        # the gang fits now (all servers at once; the same elementwise sums as server by server)
        lat = ready[srv] > t + _EPS
        fits = np.all(wk[:, None] * wd + pss[:, None] * pd_ <= free[srv][:, hard] + _EPS, axis=1)
        model = spec.model
        # AOnlineModel.rate of a one-server gang: w p_j(colocated) with a PS, else 0 (speed only)
        plain = getattr(type(model), "rate", None) is AOnlineModel.rate
        for i in np.flatnonzero(lat | fits).tolist():
            s, w, ps = widths[i]
            later = bool(lat[i])
            cand = None
            if plain:
                rate = w * model.speed(True) if ps > 0 else 0.0
            else:
                cand = Placement.of({s: w}, {s: ps} if ps else {})
                rate = model.rate(spec, cand, ctx)
            if rate <= 0:
                continue
            start = math.ceil(ready[s] - _EPS) if later else t
            finish = start + work / rate if work is not None else -rate  # unknown work: fastest
            key = (finish, s in avoid, s)
            # earliest completion: finish times within numerics tolerance (REL_TOL of the larger)
            # tie; ties -> a server without lower-ranked running jobs, then the lower index
            if best_key is None or numerics.less(finish, best_key[0]) or (
                numerics.is_close(finish, best_key[0]) and key[1:] < best_key[1:]
            ):
                if cand is None and not later:
                    cand = Placement.of({s: w}, {s: ps} if ps else {})
                best, best_key = (None if later else cand), key
        return best

    def _width_arrays(self, spec: JobSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`widths` as three int arrays (servers, workers, PS), cached per job."""
        arr = self._warr.get(spec.job_id)
        if arr is None:
            w = self.widths(spec)
            arr = self._warr[spec.job_id] = tuple(
                np.array([x[k] for x in w], dtype=np.int64) for k in range(3)
            )
        return arr

    def _need(self, spec: JobSpec, placement: Placement) -> dict[int, np.ndarray]:
        """The hard-resource demand of ``placement`` on each of its servers (summed as workers,
        then PS), cached per job while its placement stays the same (read-only)."""
        got = self._needs.get(spec.job_id)
        if got is None or got[0] != placement:
            wd, pd_ = self._demand(spec)[:2]
            need = {s: np.zeros_like(wd) for s in placement.servers}
            for s, c in placement.workers:
                need[s] += c * wd
            for s, c in placement.ps:
                need[s] += c * pd_
            hard = self.cluster.hard
            got = self._needs[spec.job_id] = (placement, {s: row[hard] for s, row in need.items()})
        return got[1]

    def decide(self, t: int, view: ClusterView) -> Decision:
        cluster = view.cluster
        admit = [v.job_id for v in view.pending()]
        ctx = RateContext(cluster, view.used)
        jobs = list(view.jobs.values())
        for v in jobs:
            if not self.widths(v.spec):
                raise ValueError(
                    f"preemptive: job {v.job_id} fits on no single server (its "
                    f"{v.spec.model.min_workers} worker(s) and PS together), so it could never run"
                )
            if self.strict and not v.spec.model.preemptible:
                raise ValueError(
                    f"preemptive: job {v.job_id}'s model is not preemptible "
                    f"({type(v.spec.model).__name__}.preemptible is False, e.g. "
                    "AOnlineModel.allow_preemption=False); build the workload with preemptible jobs "
                    "(aonline workload: preemptible=True) or pass strict=False"
                )
        order = self._ranked(jobs, ctx)  # SRTF rank, tolerant (see _ranked)
        free = cluster.capacity.copy()
        allocs: dict[int, Placement] = {}
        pause: dict[int, float] = {}
        preempted: list[int] = []

        hard = cluster.hard
        # servers where some hard resource has free + _EPS < 0 (overbooked), kept up to date by take:
        # a running job's fit test below reads only its own servers and these
        short = set(np.flatnonzero(~np.all(0 <= free[:, hard] + _EPS, axis=1)).tolist())

        def take(j: int, p: Placement, spec: JobSpec) -> None:
            allocs[j] = p
            wd, pd_ = self._demand(spec)[:2]
            for s, c in p.workers:
                free[s] -= c * wd
            for s, c in p.ps:
                free[s] -= c * pd_
            for s in p.servers:
                if np.all(0 <= free[s, hard] + _EPS):
                    short.discard(s)
                else:
                    short.add(s)

        for v in order:  # jobs that may not be paused keep their placement, whatever their rank
            if v.running and not v.spec.model.preemptible:
                take(v.job_id, v.placement, v.spec)
        running_at = {}  # server -> ranks of running preemptible jobs on it
        for rank, v in enumerate(order):
            if v.running and v.spec.model.preemptible:
                for s in v.placement.servers:
                    running_at.setdefault(s, []).append(rank)
        top_rank = {s: max(ranks) for s, ranks in running_at.items()}  # lowest-ranked running job
        wakeups = []
        for rank, v in enumerate(order):
            j, spec = v.job_id, v.spec
            if j in allocs:
                continue
            if v.running:
                # need[:, hard] <= free[:, hard] + _EPS on every server: need is 0 off the job's servers
                need = self._need(spec, v.placement)
                fits = short <= need.keys() and all(
                    np.all(row <= free[s, hard] + _EPS) for s, row in need.items()
                )
                if fits:
                    take(j, v.placement, spec)
                else:  # preempted; it may resume from the next slot on
                    preempted.append(j)
                    self._preemptions[j] = self._preemptions.get(j, 0) + 1
                continue
            lower = {s for s, r in top_rank.items() if r > rank}  # servers with lower-ranked running jobs
            p = self._best_server(v, free, t, ctx, lower)
            if p is None:
                nxt = next_reachable_slot(spec, cluster, t)
                if nxt is not None:
                    wakeups.append(nxt)
                continue
            take(j, p, spec)
            if v.start is not None and self.preemption_overhead > 0:  # a resume
                pause[j] = self.preemption_overhead
        if preempted:
            wakeups.append(t + 1)
        info = {v.job_id: {"preemptions": float(self._preemptions.get(v.job_id, 0))} for v in jobs}
        return Decision(allocs, admit=admit, wakeup=min(wakeups) if wakeups else None, info=info, pause=pause)
