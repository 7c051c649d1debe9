r"""RRH and Dorm: the two utility/utilisation-aware baselines of OASiS Sec. V-A.

OASiS compares itself with FIFO, DRF (both in :mod:`dlsched.baselines`) and two schedulers from
the literature that it describes in one sentence each (spec section 11.2). Everything the
sentences leave open is a constructor argument of the classes below; every default is *our
choice* and says so.

RRH -- Risk-Reward Heuristic
============================

D. E. Irwin, L. E. Grit, J. S. Chase, "Balancing Risk and Reward in a Market-based Task
Service", HPDC 2004. OASiS: "a job is admitted if its utility minus a delay cost incurred by its
admission is larger than a threshold; upon job arrival or completion, unfinished jobs either
continue running (always with same worker/parameter server numbers once running) or pause, decided
by job's future utility gain minus cost". Workers and PS are placed round-robin and the worker
count is fixed to a number in [1, 30] (the job's ``requested_workers``).

Fixed counts. Job :math:`j` always runs with :math:`w_j` workers (``requested_workers``, or the
``n_workers`` parameter, lowered once to the largest count that fits the empty cluster, as FIFO
does) and :math:`p_j` = ``model.ps_for(w_j)`` PS. Its progress rate :math:`r_j` at that count
gives the remaining run time :math:`R_j = \text{remaining work} / r_j` slots, and its dominant
share :math:`s_j` is the largest share of any hard resource of the worker pool (PS pool) that its
:math:`w_j` workers (:math:`p_j` PS) take. At slot :math:`t`, with the simulator's convention
(work done at time :math:`x` completes in slot :math:`\lceil x\rceil - 1`):

* future utility gain (HPDC'04: the task's *yield* if run now)
  :math:`G_j = f_j(d_j)`, :math:`d_j = \lceil t + R_j\rceil - 1 - a_j`;
* present value (HPDC'04's *PV*, discounting gains that need long to realise)
  :math:`PV_j = G_j / (1 + \rho R_j)`, ``discount`` :math:`\rho` per slot;
* delay imposed on the others (a processor-sharing fluid model of the cluster, our choice): if
  the other candidates have total share :math:`S_o`, each of them progresses at
  :math:`\min(1, 1/S_o)` of its rate without :math:`j` and at
  :math:`\min(1, (1-s_j)^+/S_o)` while :math:`j` runs, so during :math:`j`'s :math:`R_j` slots
  each is pushed back by
  :math:`\delta_j = R_j\,[\min(1, 1/S_o) - \min(1, (1-s_j)^+/S_o)]` slots (0 when everything
  fits at once);
* delay cost (HPDC'04's *opportunity cost* :math:`\sum_k \text{decay}_k \cdot RPT_j`, with the
  sigmoid's actual loss instead of a linear decay)
  :math:`C_j = \sum_{k \ne j} f_k(d_k) - f_k(d_k + \delta_j)`;
* risk-reward score, per unit of resource-time (HPDC'04's *FirstReward*
  :math:`(\alpha PV - (1-\alpha)\,\text{cost}) / RPT`, divided by :math:`s_j R_j` instead of
  :math:`RPT_j` because our jobs hold several resources)
  :math:`\sigma_j = (\alpha PV_j - (1-\alpha) C_j) / (s_j R_j)`.

Admission (on arrival of :math:`i`; candidates = admitted, unfinished, not dropped jobs): admit iff
:math:`G_i - C_i >` ``threshold`` (``reward - cost``; ``threshold`` 0 by default), where
:math:`C_i` is the delay cost the admission of :math:`i` imposes on the already admitted jobs.
Otherwise the job is rejected for good. Jobs arriving in one slot are decided in arrival order;
each admitted one joins the candidates of the next.

Run/pause (on every arrival and completion): candidates are ranked by :math:`\sigma_j`
(descending; ties by arrival, then job id) and run greedily in that order when their fixed counts
fit (round-robin placement; a running job first tries the servers it is on); the others pause,
keeping their progress, and may resume later with the same counts. A candidate whose future gain
:math:`G_j` is below ``drop_threshold`` is paused indefinitely (the sigmoid never reaches 0, so
the default 0 never drops a job). Pausing therefore happens exactly when higher-ranked jobs need
the capacity -- the job's gain minus cost per unit resource is lower than theirs.

Dorm
====

P. Sun, Y. Wen, N. B. D. Ta, S. Yan, "Towards Distributed Machine Learning in Shared Clusters: A
Dynamically-Partitioned Approach" (Dorm), SmartComp 2017. OASiS: "jobs are admitted; upon job
arrival or completion, numbers and placement of workers/parameter servers of unfinished jobs are
recomputed by an MILP resource utilization maximization problem, subject to fairness and
adjustment overhead constraints". Our MILP (solved by HiGHS through :func:`scipy.optimize.milp`),
over the active (admitted, unfinished) jobs :math:`j`, worker-capable servers :math:`h` and
PS-capable servers :math:`k`:

.. math::

    \max \sum_j \Big(\sum_h u(w_j) y_{jh} + \sum_k u(s_j) z_{jk}\Big)
         - \pi \sum_{j\ \text{running}} a_j,
    \qquad u(d) = \sum_{r\ \text{hard},\,C^r>0} d^r / C^r

(utilisation: allocated share of the cluster's total capacity :math:`C^r`, summed over all hard
resources -- our choice of Dorm's "resource utilization") subject to

* capacity of every server and hard resource (OASiS (4)-(5));
* :math:`m_j x_j \le Y_j = \sum_h y_{jh} \le N_j x_j`, :math:`x_j \in \{0,1\}` (OASiS (3); the
  model's ``min_workers``/``max_workers``, optionally capped by ``max_workers``);
* PS: :math:`\beta_j Y_j \le Z_j = \sum_k z_{jk} \le \beta_j Y_j + 1 - 10^{-6}` with
  :math:`\beta_j = b_j/B_j` for OASiS jobs, i.e. :math:`Z_j = \lceil Y_j b_j/B_j\rceil`: OASiS
  (6) holds and (7) follows from :math:`b_j \le B_j`; the PS count is the one the model needs
  (``model.ps_for``), so the solver cannot inflate utilisation with useless PS (our choice);
* fairness (our reading of Dorm's fairness constraint): every job of the *guaranteed* set gets
  at least its minimum (1 worker and its PS), and at least ``fairness_factor`` times the worker
  count that would give it an equal dominant share :math:`1/n` of the cluster. The guaranteed set
  is everybody if the minimum allocations of all active jobs can be placed together, else the
  earliest arrivals whose minimum allocations fit (round-robin probe on the empty cluster);
* adjustment overhead: a job that ran before and whose per-server counts change has
  :math:`a_j = 1` (:math:`|y_{jh} - y^0_{jh}| \le M a_j`, same for :math:`z`), and
  :math:`\sum_j a_j \le` ``max_adjust``. The small penalty :math:`\pi` (``adjust_penalty`` times
  the smallest utilisation one task of an active job adds) makes the solver leave jobs where they
  are when utilisation ties.

Every solve has a ``time_limit`` (HiGHS returns its incumbent when the limit is hit). The
solution is rounded and re-checked with the independent checker
(:func:`dlsched.core.schedule.check_allocations`), the guarantee and the adjustment limit. When
the MILP has no solution (infeasible, no incumbent in time) or the rounded solution fails a
check, Dorm falls back to keeping the current allocation of every running job and placing the
jobs that are not running in arrival order, round-robin, each with its requested worker count
lowered until it fits (down to the minimum); a job that does not fit even then waits. The
fallback never changes a running job, so it respects the adjustment limit too.

Symbols (paper -> code): :math:`w_j` ``workers``, :math:`p_j` ``ps``, :math:`R_j`
``remaining_slots``, :math:`s_j` ``share``, :math:`G_j` ``gain``, :math:`C_j` ``cost``,
:math:`\sigma_j` ``score``, :math:`\alpha` ``alpha``, :math:`\rho` ``discount``; Dorm's
:math:`y_{jh}, z_{jk}` are ``Placement.workers`` / ``Placement.ps``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from dlsched.baselines.fifo import check_count, fixed_workers
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, RateContext
from dlsched.core.placement import RoundRobin, next_reachable_slot, reachable
from dlsched.core.policy import BasePolicy, ClusterView, JobView
from dlsched.core.schedule import Decision, Placement, ScheduleViolation, check_allocations, server_usage

_TOL = 1e-9
_PIN = 1e-6  # slack of the PS pin Z <= beta Y + 1 - _PIN


def _finite(value, what: str, *, lo: float | None = None, hi: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{what} must be finite, got {value!r}")
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        rng = f"[{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}]"
        raise ValueError(f"{what} must be in {rng}, got {value!r}")
    return x


# ------------------------------------------------------------------------------ shared measures


def utilization(cluster: Cluster, used: np.ndarray) -> float:
    """Dorm's objective: allocated share of the cluster, summed over hard resources.

    Parameters
    ----------
    cluster : Cluster
    used : numpy.ndarray
        Resources in use, shape ``(n_servers, n_resources)`` (e.g. from
        :func:`dlsched.core.schedule.server_usage`).

    Returns
    -------
    float
        :math:`\\sum_{r\\ \\text{hard},\\,C^r>0} \\sum_s used_s^r / C^r` with :math:`C^r` the
        cluster's total capacity of resource :math:`r`.

    Raises
    ------
    ValueError
        If ``used`` does not have the cluster's shape.
    """
    used = np.asarray(used, dtype=float)
    if used.shape != cluster.capacity.shape:
        raise ValueError(f"used must have shape {cluster.capacity.shape}, got {used.shape}")
    return float(used.sum(axis=0) @ _util_weights(cluster))


def _util_weights(cluster: Cluster) -> np.ndarray:
    total = cluster.total_capacity()
    ok = cluster.hard & (total > 0)
    return np.where(ok, 1.0 / np.where(total > 0, total, 1.0), 0.0)


class _ShareMeter:
    """Dominant share of ``w`` workers and ``p`` PS of a job (worker and PS pools apart, unless
    they are the same servers)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        ws, ps = cluster.servers_for("worker"), cluster.servers_for("ps")
        self.same = set(ws.tolist()) == set(ps.tolist())
        hard = cluster.hard

        def inv(total):
            ok = hard & (total > 0)
            return np.where(ok, 1.0 / np.where(total > 0, total, 1.0), 0.0)

        self.inv_w = inv(cluster.total_capacity("worker") if ws.size else np.zeros(len(hard)))
        self.inv_p = inv(cluster.total_capacity("ps") if ps.size else np.zeros(len(hard)))

    def __call__(self, spec: JobSpec, w: float, p: float) -> float:
        wd = self.cluster.vector(spec.worker_demand)
        pd_ = self.cluster.vector(spec.ps_demand)
        if self.same:
            return float(np.max((w * wd + p * pd_) * self.inv_w))
        return float(max(np.max(w * wd * self.inv_w), np.max(p * pd_ * self.inv_p)))


def _fixed_counts(cluster: Cluster, spec: JobSpec, n_workers: int | None) -> tuple[int, int]:
    """(workers, PS) of a fixed-count job, lowered to the largest count that fits the empty
    cluster (FIFO's rule)."""
    model = spec.model
    w = fixed_workers(spec, n_workers)
    while True:
        p = model.ps_for(w)
        probe = RoundRobin(cluster)
        if w <= model.min_workers or probe.place_job(
            spec, w, p, cluster.capacity.copy(), spec.arrival + 10**9
        ):
            return w, p
        w -= 1


def _nominal_rate(cluster: Cluster, spec: JobSpec, w: int, p: int) -> float:
    """Progress per slot of ``w`` workers and ``p`` PS on an idle cluster (placement-independent
    in OASiS's model; other models are evaluated on the first servers of each pool)."""
    ws, ps = cluster.servers_for("worker"), cluster.servers_for("ps")
    placement = Placement.of({int(ws[0]): w} if w else {}, {int(ps[0]): p} if p and ps.size else {})
    ctx = RateContext(cluster, np.zeros_like(cluster.capacity))
    return float(spec.model.rate(spec, placement, ctx))


# ------------------------------------------------------------------------------------------ RRH


@dataclass(frozen=True)
class RRHEstimate:
    """RRH's view of one job at one decision slot (see the module docstring for the formulas).

    Attributes
    ----------
    job_id, arrival : int
    workers, ps : int
        Fixed counts :math:`w_j`, :math:`p_j`.
    remaining_slots : float
        :math:`R_j`.
    share : float
        Dominant share :math:`s_j`.
    duration : float
        :math:`d_j`, the utility's argument if the job runs from now on without a pause.
    gain : float
        :math:`G_j = f_j(d_j)`.
    spec : JobSpec
        The job.
    """

    job_id: int
    arrival: int
    workers: int
    ps: int
    remaining_slots: float
    share: float
    duration: float
    gain: float
    spec: JobSpec


def fluid_delay(remaining_slots: float, share: float, others_share: float) -> float:
    r"""Slots by which running a job for ``remaining_slots`` delays each other job.

    Processor-sharing fluid model of the cluster: the others (total dominant share
    :math:`S_o`) progress at :math:`\min(1, 1/S_o)` of their rate without the job and at
    :math:`\min(1, (1-s)^+/S_o)` while it holds share :math:`s`.

    Parameters
    ----------
    remaining_slots : float
        :math:`R_j >= 0`.
    share : float
        :math:`s_j >= 0`.
    others_share : float
        :math:`S_o >= 0`.

    Returns
    -------
    float
        :math:`\delta_j = R_j [\min(1, 1/S_o) - \min(1, (1-s_j)^+/S_o)]` (0 if :math:`S_o = 0`).
    """
    if others_share <= _TOL:
        return 0.0
    without = min(1.0, 1.0 / others_share)
    with_ = min(1.0, max(0.0, 1.0 - share) / others_share)
    return float(remaining_slots * max(0.0, without - with_))


def delay_cost(delay: float, others: Sequence[RRHEstimate]) -> float:
    r"""Utility the ``others`` lose when each is delayed by ``delay`` slots:
    :math:`\sum_k f_k(d_k) - f_k(d_k + \delta)`.

    Parameters
    ----------
    delay : float
    others : Sequence[RRHEstimate]

    Returns
    -------
    float
    """
    if delay <= 0:
        return 0.0
    return float(sum(e.gain - float(e.spec.utility(e.duration + delay)) for e in others))


class RRH(BasePolicy):
    """Risk-Reward Heuristic (Irwin et al., HPDC'04) as described by OASiS Sec. V-A.

    See the module docstring for the formulas. Per-job values recorded in the result's job table:
    ``rrh_reward`` (:math:`G_i` at arrival) and ``rrh_delay_cost`` (:math:`C_i` at arrival).

    Parameters
    ----------
    n_workers : int, optional
        Fixed worker count of every job (default: the job's ``requested_workers``, which OASiS
        draws in [1, 30]; lowered to what fits the empty cluster -- our choice, as in FIFO).
    threshold : float, default 0
        Admit iff reward minus delay cost exceeds it (our choice: the paper gives no value).
    alpha : float, default 0.5
        Weight of present value vs. opportunity cost in the score, in [0, 1] (HPDC'04's
        :math:`\\alpha`; the default is our choice).
    discount : float, default 0.01
        Discount rate per slot of the present value (HPDC'04's discount rate; the default is our
        choice).
    drop_threshold : float, default 0
        A job whose future utility gain is below this is paused indefinitely (our choice; 0 never
        drops a job because the sigmoid is positive).
    """

    name: ClassVar[str] = "rrh"

    def __init__(
        self,
        n_workers: int | None = None,
        threshold: float = 0.0,
        alpha: float = 0.5,
        discount: float = 0.01,
        drop_threshold: float = 0.0,
    ):
        self.n_workers = check_count(n_workers, "rrh.n_workers")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or math.isnan(threshold):
            raise ValueError(f"rrh.threshold must be a number, got {threshold!r}")
        self.threshold = float(threshold)
        self.alpha = _finite(alpha, "rrh.alpha", lo=0.0, hi=1.0)
        self.discount = _finite(discount, "rrh.discount", lo=0.0)
        self.drop_threshold = _finite(drop_threshold, "rrh.drop_threshold")

    def reset(self, cluster: Cluster, rng: np.random.Generator) -> None:
        super().reset(cluster, rng)
        self._placer = RoundRobin(cluster)
        self._share = _ShareMeter(cluster)
        self._counts: dict[int, tuple[int, int]] = {}

    # -------------------------------------------------------------------------- estimates
    def counts(self, spec: JobSpec) -> tuple[int, int]:
        """Fixed worker and PS counts of a job (computed once per job).

        Parameters
        ----------
        spec : JobSpec

        Returns
        -------
        tuple[int, int]
            ``(w_j, p_j)``: the requested (or ``n_workers``) count lowered to what fits the empty
            cluster, and ``model.ps_for(w_j)``.
        """
        if spec.job_id not in self._counts:
            self._counts[spec.job_id] = _fixed_counts(self.cluster, spec, self.n_workers)
        return self._counts[spec.job_id]

    def estimate(self, t: int, v: JobView) -> RRHEstimate:
        """RRH's estimate of job ``v`` at slot ``t``.

        Parameters
        ----------
        t : int
            Current slot.
        v : JobView
            The job as the simulator shows it (a running job keeps its current counts).

        Returns
        -------
        RRHEstimate

        Raises
        ------
        ValueError
            If the job's remaining work is hidden from the scheduler (``model.work_known``
            False): RRH needs it.
        """
        spec = v.spec
        if v.remaining_work is None:
            raise ValueError(
                f"RRH needs each job's remaining work, but job {spec.job_id}'s model "
                f"({spec.model.kind}) hides it from the scheduler (model.work_known is False)"
            )
        if v.running:
            w, p = v.placement.n_workers, v.placement.n_ps
        else:
            w, p = self.counts(spec)
        rate = _nominal_rate(self.cluster, spec, w, p)
        if not rate > 0:
            raise ValueError(f"RRH: job {spec.job_id} makes no progress with {w} workers and {p} PS")
        R = max(0.0, float(v.remaining_work)) / rate
        duration = float(math.ceil(t + R - _TOL) - 1 - spec.arrival)
        return RRHEstimate(
            job_id=spec.job_id,
            arrival=spec.arrival,
            workers=w,
            ps=p,
            remaining_slots=R,
            share=max(self._share(spec, w, p), 1e-12),
            duration=duration,
            gain=float(spec.utility(duration)),
            spec=spec,
        )

    def scores(self, estimates: Sequence[RRHEstimate]) -> dict[int, tuple[float, float]]:
        """Risk-reward score of every candidate against the others.

        Parameters
        ----------
        estimates : Sequence[RRHEstimate]
            The candidates (admitted, unfinished, not dropped).

        Returns
        -------
        dict[int, tuple[float, float]]
            ``{job: (score sigma_j, delay cost C_j)}``.
        """
        n = len(estimates)
        if n == 0:
            return {}
        share = np.array([e.share for e in estimates])
        total = float(share.sum())
        delays = np.array([fluid_delay(e.remaining_slots, e.share, total - e.share) for e in estimates])
        loss = np.zeros((n, n))  # loss[k, j]: utility k loses while j runs
        if np.any(delays > 0):
            for k, e in enumerate(estimates):
                loss[k] = e.gain - np.asarray(e.spec.utility(e.duration + delays), dtype=float)
            np.fill_diagonal(loss, 0.0)
        cost = loss.sum(axis=0)
        out = {}
        for j, e in enumerate(estimates):
            pv = e.gain / (1.0 + self.discount * e.remaining_slots)
            score = (self.alpha * pv - (1.0 - self.alpha) * cost[j]) / (
                e.share * max(e.remaining_slots, _TOL)
            )
            out[e.job_id] = (float(score), float(cost[j]))
        return out

    # ------------------------------------------------------------------------------ decide
    def decide(self, t: int, view: ClusterView) -> Decision:
        cluster = view.cluster
        pool = [self.estimate(t, v) for v in view.admitted()]
        pool = [e for e in pool if e.gain >= self.drop_threshold]
        admit, reject, info = [], [], {}
        for v in view.pending():  # admission, in arrival order
            e = self.estimate(t, v)
            others = sum(o.share for o in pool)
            cost = delay_cost(fluid_delay(e.remaining_slots, e.share, others), pool)
            info[e.job_id] = {"rrh_reward": e.gain, "rrh_delay_cost": cost}
            if e.gain - cost > self.threshold:
                admit.append(e.job_id)
                if e.gain >= self.drop_threshold:
                    pool.append(e)
            else:
                reject.append(e.job_id)
        scores = self.scores(pool)
        order = sorted(pool, key=lambda e: (-scores[e.job_id][0], e.arrival, e.job_id))
        views = view.jobs
        wakeups: list[int] = []
        # pass 1: choose the jobs to run, in score order, with a throwaway placer
        probe = RoundRobin(cluster)
        free = cluster.capacity.copy()
        chosen: dict[int, Placement] = {}
        for e in order:
            v = views[e.job_id]
            prefer = v.placement if v.running else None
            p = probe.place_job(e.spec, e.workers, e.ps, free, t, prefer=prefer)
            if p is not None:
                chosen[e.job_id] = p
            else:
                nxt = next_reachable_slot(e.spec, cluster, t)
                if nxt is not None:
                    wakeups.append(nxt)
        # pass 2: running jobs stay exactly where they are, the others go round-robin
        allocs = self._place(t, view, [e for e in order if e.job_id in chosen])
        if allocs is None:
            allocs = chosen
        return Decision(
            allocs, admit=admit, reject=reject, wakeup=min(wakeups) if wakeups else None, info=info
        )

    def _place(self, t: int, view: ClusterView, run: Sequence[RRHEstimate]) -> dict[int, Placement] | None:
        cluster = view.cluster
        free = cluster.capacity.copy()
        allocs: dict[int, Placement] = {}
        keep = {e.job_id: view.jobs[e.job_id].placement for e in run if view.jobs[e.job_id].running}
        if keep:
            free -= server_usage(cluster, {j: view.jobs[j].spec for j in keep}, keep)
            if np.any((free < -_TOL) & cluster.hard[None, :]):
                return None
            allocs.update(keep)
        for e in run:
            if e.job_id in keep:
                continue
            p = self._placer.place_job(e.spec, e.workers, e.ps, free, t)
            if p is None:
                return None
            allocs[e.job_id] = p
        return allocs


# ----------------------------------------------------------------------------------------- Dorm


@dataclass
class DormStats:
    """Counters of a Dorm run.

    Attributes
    ----------
    decisions : int
        Decisions taken.
    milp : int
        Decisions that used the MILP solution.
    fallback : int
        Decisions that used the fallback (no MILP solution or a rounded solution failing a check).
    time_limit : int
        Solves stopped by the time limit (their incumbent may still have been used).
    """

    decisions: int = 0
    milp: int = 0
    fallback: int = 0
    time_limit: int = 0


class Dorm(BasePolicy):
    """Dorm (SmartComp'17) as described by OASiS Sec. V-A: utilisation-maximising MILP with
    fairness and adjustment-overhead constraints, recomputed on every arrival and completion.

    See the module docstring for the MILP. Counters are in :attr:`stats`.

    Parameters
    ----------
    max_adjust : int or None, default 3
        At most this many previously running jobs may change their placement per decision (our
        choice of Dorm's adjustment-overhead threshold; None: no limit).
    fairness_factor : float, default 0
        Guaranteed jobs get at least this fraction of the workers that would give them an equal
        dominant share 1/n (our choice; 0 keeps only the minimum guarantee of one worker + PS).
    max_workers : int, optional
        Cap on workers per job on top of the model's :math:`N_i` (our choice: none).
    time_limit : float, default 1
        Seconds per MILP solve; the incumbent is used when the limit is hit (our choice).
    mip_rel_gap : float, default 1e-4
        HiGHS relative optimality gap (HiGHS's default).
    adjust_penalty : float, default 0.1
        Objective penalty per adjusted job, as a fraction of the smallest utilisation one task of
        an active job adds (our choice; a tie-breaker that keeps jobs in place).
    node_limit : int, optional
        Branch-and-bound nodes per solve (a machine-independent budget; default: none).

    Notes
    -----
    Dorm is deterministic as long as every solve ends before ``time_limit``; a solve cut by the
    limit returns whatever incumbent HiGHS had, which may depend on the machine's speed. For
    reproducible sweeps on large instances set ``node_limit`` and a generous ``time_limit``.
    """

    name: ClassVar[str] = "dorm"

    def __init__(
        self,
        max_adjust: int | None = 3,
        fairness_factor: float = 0.0,
        max_workers: int | None = None,
        time_limit: float = 1.0,
        mip_rel_gap: float = 1e-4,
        adjust_penalty: float = 0.1,
        node_limit: int | None = None,
    ):
        if max_adjust is not None and (
            isinstance(max_adjust, bool) or not isinstance(max_adjust, int) or max_adjust < 0
        ):
            raise ValueError(f"dorm.max_adjust must be an integer >= 0 or None, got {max_adjust!r}")
        self.max_adjust = max_adjust
        self.fairness_factor = _finite(fairness_factor, "dorm.fairness_factor", lo=0.0, hi=1.0)
        self.max_workers = check_count(max_workers, "dorm.max_workers")
        self.time_limit = _finite(time_limit, "dorm.time_limit", lo=0.0)
        if self.time_limit <= 0:
            raise ValueError(f"dorm.time_limit must be > 0, got {time_limit!r}")
        self.mip_rel_gap = _finite(mip_rel_gap, "dorm.mip_rel_gap", lo=0.0)
        self.adjust_penalty = _finite(adjust_penalty, "dorm.adjust_penalty", lo=0.0)
        self.node_limit = check_count(node_limit, "dorm.node_limit")

    def reset(self, cluster: Cluster, rng: np.random.Generator) -> None:
        super().reset(cluster, rng)
        self._placer = RoundRobin(cluster)
        self._share = _ShareMeter(cluster)
        self._weights = _util_weights(cluster)
        self._stats = DormStats()

    @property
    def stats(self) -> DormStats:
        """Counters of the current run (decisions, MILP solutions used, fallbacks, time limits)."""
        return self._stats

    # ----------------------------------------------------------------------- helpers
    def _cap(self, spec: JobSpec) -> int:
        model = spec.model
        caps = [c for c in (self.max_workers, model.max_workers) if c is not None]
        if not caps:
            caps.append(max(fixed_workers(spec, None), model.min_workers))
        return max(min(caps), model.min_workers)

    @staticmethod
    def _beta(spec: JobSpec, cap: int) -> float:
        model = spec.model
        if not model.needs_ps:
            return 0.0
        if isinstance(model, OasisModel):
            return model.worker_bw / model.ps_bw
        return model.ps_for(cap) / cap

    def guaranteed(self, t: int, view: ClusterView) -> list[int]:
        """Jobs guaranteed their minimum allocation (Dorm's fairness constraint, our reading).

        All active jobs if their minimum allocations can be placed together, else the earliest
        arrivals whose minimums fit (round-robin probe on the empty cluster; running jobs that are
        not elastic count with their placement).

        Parameters
        ----------
        t : int
        view : ClusterView

        Returns
        -------
        list[int]
            Job ids, in arrival order (non-elastic running jobs first).
        """
        cluster = view.cluster
        free = cluster.capacity.copy()
        probe = RoundRobin(cluster)
        out = []
        rest = []
        for v in view.jobs.values():
            if v.running and not v.spec.model.elastic:
                free -= server_usage(cluster, {v.job_id: v.spec}, {v.job_id: v.placement})
                out.append(v.job_id)
            else:
                rest.append(v)
        for v in rest:
            model = v.spec.model
            m = model.min_workers
            if probe.place_job(v.spec, m, model.ps_for(m), free, t) is not None:
                out.append(v.job_id)
        return out

    # ------------------------------------------------------------------------------ decide
    def decide(self, t: int, view: ClusterView) -> Decision:
        self._stats.decisions += 1
        admit = [v.job_id for v in view.pending()]
        wakeups = [
            s for v in view.jobs.values() if (s := next_reachable_slot(v.spec, view.cluster, t)) is not None
        ]
        wakeup = min(wakeups) if wakeups else None
        allocs = self.solve(t, view)
        if allocs is None:
            self._stats.fallback += 1
            allocs = self.fallback(t, view)
        else:
            self._stats.milp += 1
        return Decision(allocs, admit=admit, wakeup=wakeup)

    def fallback(self, t: int, view: ClusterView) -> dict[int, Placement]:
        """The fallback allocation (used when the MILP gives no usable solution).

        Keeps every running job's allocation and places the others in arrival order,
        round-robin, each with its requested worker count lowered until it fits (down to the
        model's minimum); a job that does not fit waits.

        Parameters
        ----------
        t : int
        view : ClusterView

        Returns
        -------
        dict[int, Placement]
        """
        allocs = view.current_allocations()
        free = view.free
        for v in view.jobs.values():
            if v.running:
                continue
            spec = v.spec
            model = spec.model
            w = min(fixed_workers(spec, None), self._cap(spec))
            while w >= model.min_workers:
                p = self._placer.place_job(spec, w, model.ps_for(w), free, t)
                if p is not None:
                    allocs[v.job_id] = p
                    break
                w -= 1
        return allocs

    def solve(self, t: int, view: ClusterView) -> dict[int, Placement] | None:
        """Solve the MILP of the module docstring and re-check its rounded solution.

        Parameters
        ----------
        t : int
        view : ClusterView

        Returns
        -------
        dict[int, Placement] or None
            The allocation, or None when HiGHS found no solution (infeasible, or no incumbent
            within ``time_limit``) or the rounded solution fails a check.
        """
        cluster = view.cluster
        jobs = list(view.jobs.values())
        n_res = len(cluster.resources)
        wsrv = cluster.servers_for("worker")
        psrv = cluster.servers_for("ps")
        guaranteed = set(self.guaranteed(t, view))
        n_jobs = len(jobs)
        cols: list[tuple[str, int, int]] = []  # (kind, job index, server)
        lb: list[float] = []
        ub: list[float] = []
        obj: list[float] = []
        integ: list[int] = []
        rows: list[tuple[dict[int, float], float, float]] = []

        def var(kind, j, s, lo, hi, c, integer=1):
            cols.append((kind, j, s))
            lb.append(lo)
            ub.append(hi)
            obj.append(c)
            integ.append(integer)
            return len(cols) - 1

        cap_rows: dict[tuple[int, int], dict[int, float]] = {}
        min_task_util = math.inf
        per_job = []
        for ji, v in enumerate(jobs):
            spec = v.spec
            model = spec.model
            wd = cluster.vector(spec.worker_demand)
            pd_ = cluster.vector(spec.ps_demand)
            uw, up = float(wd @ self._weights), float(pd_ @ self._weights)
            min_task_util = min(min_task_util, *(u for u in (uw, up) if u > 0), math.inf)
            mask = reachable(spec, cluster, t)
            cap = self._cap(spec)
            beta = self._beta(spec, cap)
            zcap = int(math.ceil(beta * cap - 1e-12)) if model.needs_ps else 0
            fixed = v.running and not model.elastic
            prev_w, prev_p = dict(v.placement.workers), dict(v.placement.ps)
            y, z = {}, {}
            for role, servers, demand, cnt_cap, prev, store, u in (
                ("y", wsrv, wd, cap, prev_w, y, uw),
                ("z", psrv if model.needs_ps else np.zeros(0, int), pd_, zcap, prev_p, z, up),
            ):
                for s in servers.tolist():
                    if not mask[s]:
                        continue
                    need = demand[cluster.hard] > 0
                    fit = (
                        int(
                            np.floor(
                                np.min(cluster.capacity[s, cluster.hard][need] / demand[cluster.hard][need])
                                + _TOL
                            )
                        )
                        if need.any()
                        else cnt_cap
                    )
                    hi = min(cnt_cap, fit)
                    if fixed:
                        lo = hi = prev.get(s, 0)
                    else:
                        lo = 0
                    if hi <= 0 and prev.get(s, 0) == 0:
                        continue
                    k = var(role, ji, s, lo, hi, -u)
                    store[s] = k
                    for r in range(n_res):
                        if cluster.hard[r] and demand[r] > 0:
                            cap_rows.setdefault((s, r), {})[k] = float(demand[r])
            sure = v.job_id in guaranteed or fixed
            on = var("x", ji, -1, 1 if sure else 0, 1, 0.0)
            lower = model.min_workers
            if v.job_id in guaranteed and self.fairness_factor > 0:
                sigma = self._share(spec, 1, beta)
                if sigma > 0:
                    equal = min(cap, math.floor((1.0 / n_jobs) / sigma + _TOL))
                    lower = max(lower, math.ceil(self.fairness_factor * equal - _TOL))
            # lower * x <= Y <= cap * x
            rows.append(({**{k: 1.0 for k in y.values()}, on: -float(lower)}, 0.0, math.inf))
            rows.append(({**{k: 1.0 for k in y.values()}, on: -float(cap)}, -math.inf, 0.0))
            if model.needs_ps:
                # beta Y <= Z <= beta Y + 1 - pin, i.e. Z = ceil(beta Y): OASiS (6)
                coef = {k: 1.0 for k in z.values()}
                for k in y.values():
                    coef[k] = coef.get(k, 0.0) - beta
                rows.append((coef, 0.0, 1.0 - _PIN))
                if isinstance(model, OasisModel):  # (7) Z <= Y (implied by the pin as b <= B)
                    rows.append(
                        ({**{k: 1.0 for k in z.values()}, **{k: -1.0 for k in y.values()}}, -math.inf, 0.0)
                    )
            per_job.append((v, y, z, fixed, prev_w, prev_p))
        if not math.isfinite(min_task_util):
            min_task_util = 1.0
        adjust_vars = []
        for ji, (v, y, z, fixed, prev_w, prev_p) in enumerate(per_job):
            if not v.running or fixed:
                continue
            if self.max_adjust is None and self.adjust_penalty == 0:
                continue
            a = var("a", ji, -1, 0, 1, self.adjust_penalty * min_task_util)
            adjust_vars.append(a)
            for store, prev in ((y, prev_w), (z, prev_p)):
                for s in sorted(set(store) | set(prev)):
                    p0 = float(prev.get(s, 0))
                    if s not in store:  # previous server no longer usable: the job must change
                        rows.append(({a: 1.0}, 1.0, 1.0))
                        continue
                    k = store[s]
                    big = max(ub[k], p0, 1.0)
                    rows.append(({k: 1.0, a: -big}, -math.inf, p0))
                    rows.append(({k: -1.0, a: -big}, -math.inf, -p0))
        if self.max_adjust is not None and adjust_vars:
            rows.append(({a: 1.0 for a in adjust_vars}, -math.inf, float(self.max_adjust)))
        for (s, r), coef in sorted(cap_rows.items()):
            rows.append((coef, -math.inf, float(cluster.capacity[s, r])))
        x = self._milp(np.array(obj), rows, np.array(lb, float), np.array(ub, float), np.array(integ))
        if x is None:
            return None
        vals = np.rint(x).astype(int)
        allocs: dict[int, Placement] = {}
        for _, (v, y, z, _fixed, _pw, _pp) in enumerate(per_job):
            w = {s: int(vals[k]) for s, k in y.items() if vals[k] > 0}
            p = {s: int(vals[k]) for s, k in z.items() if vals[k] > 0}
            if w or p:
                allocs[v.job_id] = Placement.of(w, p)
        return allocs if self._usable(t, view, allocs, guaranteed) else None

    def _milp(self, c, rows, lb, ub, integrality) -> np.ndarray | None:
        n = len(c)
        data, ri, ci, lo, hi = [], [], [], [], []
        for i, (coef, low, high) in enumerate(rows):
            for k, val in coef.items():
                if val != 0:
                    ri.append(i)
                    ci.append(k)
                    data.append(val)
            lo.append(low)
            hi.append(high)
        A = sp.csr_array((data, (ri, ci)), shape=(len(rows), n))
        constraints = [LinearConstraint(A, np.array(lo), np.array(hi))] if rows else []
        options: dict[str, object] = {"time_limit": self.time_limit, "mip_rel_gap": self.mip_rel_gap}
        if self.node_limit is not None:
            options["node_limit"] = self.node_limit
        res = milp(
            c, constraints=constraints, integrality=integrality, bounds=Bounds(lb, ub), options=options
        )
        if res.status == 1:
            self._stats.time_limit += 1
        if res.x is None or res.status not in (0, 1):
            return None
        return np.asarray(res.x, dtype=float)

    def _usable(
        self, t: int, view: ClusterView, allocs: Mapping[int, Placement], guaranteed: set[int]
    ) -> bool:
        """Re-check a rounded MILP solution: the independent checker, the guarantee, fixed
        non-elastic jobs and the adjustment limit."""
        specs = {j: v.spec for j, v in view.jobs.items()}
        try:
            check_allocations(view.cluster, specs, t, allocs)
        except ScheduleViolation:
            return False
        changed = 0
        for j, v in view.jobs.items():
            p = allocs.get(j, Placement())
            if j in guaranteed and p.n_workers < v.spec.model.min_workers:
                return False
            if v.running and p != v.placement:
                if not v.spec.model.elastic:
                    return False
                changed += 1
        return self.max_adjust is None or changed <= self.max_adjust
