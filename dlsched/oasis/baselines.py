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
adjustment overhead constraints". Dorm's MILP has a variable per (job, server); solved that way
with HiGHS it does not finish in seconds on the paper's 50 + 50 servers, and cutting it by a
wall-clock limit makes results depend on the machine's speed. We therefore solve it over
*server groups* and place the group counts on the servers afterwards.

Server groups (:func:`server_groups`, ``group_by``). With the default ``"fit"``, servers of one
pool share a group when every active job can host one task (worker or PS) on either both or
neither of them (reachable and fitting on the empty server). On the paper's cluster this yields
about one group per worker instance type plus one PS group: every server has its own bandwidth
(U[20, 50] Gbps), so grouping identical servers (``"capacity"``) would not reduce anything;
``"server"`` gives the exact per-server MILP.

The MILP (HiGHS through :func:`scipy.optimize.milp`), over the active (admitted, unfinished)
jobs :math:`j` and the groups :math:`g` that can host the role, with integer task counts
:math:`Y_{jg}` (workers) and :math:`Z_{jg}` (PS), :math:`Y_j = \sum_g Y_{jg}`,
:math:`Z_j = \sum_g Z_{jg}`:

.. math::

    \max \sum_j \big(u(w_j) + \beta_j u(s_j)\big) Y_j - \pi \sum_{j\ \text{running}} a_j,
    \qquad u(d) = \sum_{r\ \text{hard},\,C^r>0} d^r / C^r

(utilisation: allocated share of the cluster's total capacity :math:`C^r`, summed over all hard
resources -- our choice of Dorm's "resource utilization"; a worker is credited with the fluid
PS share :math:`\beta_j` it needs. Crediting :math:`Z_j` itself, which is pinned to
:math:`\lceil\beta_j Y_j\rceil` below, gives the same optimum up to less than one PS per job, but
its LP relaxation sets every :math:`Z_j` to :math:`\beta_j Y_j + 1` and is several percent too
optimistic, which made the solves several times slower) subject to

* group capacity: :math:`\sum_j d^r_j Y_{jg}` (plus the PS demand of :math:`Z_{jg}`) at most the
  group's total capacity :math:`\sum_{h\in g} C^r_h`, every hard resource (OASiS (4)-(5));
  and :math:`Y_{jg} \le \sum_{h\in g}\lfloor C_h/d_j\rfloor` (whole tasks of the job alone);
* residual space (our addition, so that group counts can be placed on servers): with
  :math:`F_h` the space the current placements leave on server :math:`h`, a running job that may
  be adjusted grows only into free space, :math:`Y_{jg} \le \sum_{h\in g}\lfloor (F_h +
  \text{own}_{jh})/d_j\rfloor` (same for :math:`Z_{jg}`); a job that is not running fits into
  the free space plus what adjusted jobs release,
  :math:`Y_{jg} \le \sum_{h\in g}\lfloor F_h/d_j\rfloor + \sum_i \phi_{ijg}(n^0_{ig} - n_{ig})`
  (relaxed by a big M when :math:`x_j = 0`), where job :math:`i` had :math:`n^0_{ig}` tasks in
  :math:`g`, has :math:`n_{ig}` now, and :math:`\phi_{ijg}` is the number of :math:`j`'s tasks
  that fit in :math:`g` when all of :math:`i` leaves, per task of :math:`i`;
* :math:`m_j x_j \le Y_j \le N_j x_j`, :math:`x_j \in \{0,1\}` (OASiS (3); the model's
  ``min_workers``/``max_workers``, optionally capped by ``max_workers``);
* PS: :math:`\beta_j Y_j \le Z_j \le \beta_j Y_j + 1 - 10^{-6}` with :math:`\beta_j = b_j/B_j`
  for OASiS jobs, i.e. :math:`Z_j = \lceil Y_j b_j/B_j\rceil`: OASiS (6) holds and (7) follows
  from :math:`b_j \le B_j`; the PS count is the one the model needs (``model.ps_for``), so the
  solver cannot inflate utilisation with useless PS (our choice);
* fairness (our reading of Dorm's fairness constraint): every job of the *guaranteed* set gets
  at least its minimum (1 worker and its PS), and at least ``fairness_factor`` times the worker
  count that would give it an equal dominant share :math:`1/n` of the cluster. The guaranteed set
  is everybody if the minimum allocations of all active jobs can be placed together, else the
  earliest arrivals whose minimum allocations fit (round-robin probe on the empty cluster);
* adjustment overhead: a job that ran before and whose group counts change has
  :math:`a_j = 1` (:math:`-n^0_{jg} a_j \le Y_{jg} - n^0_{jg} \le (\bar Y_{jg} - n^0_{jg}) a_j`,
  same for :math:`Z`), and :math:`\sum_j a_j \le` ``max_adjust``. The small penalty :math:`\pi`
  (``adjust_penalty`` times the smallest utilisation one task of an active job adds) makes the
  solver leave jobs where they are when utilisation ties.

Disaggregation (deterministic): (1) a running job whose group counts are unchanged keeps its
exact placement (so only jobs with :math:`a_j = 1` move); then on the remaining space, (2) the
minimum allocation of guaranteed jobs, in arrival order, their previous servers first; (3) moved
jobs take their previous servers again, up to their new counts (sticky); (4) all other tasks,
largest first (dominant share of the group's largest server), each job's tasks of a group on the
group's servers from the smallest (first fit decreasing). Group capacity is not per-server
capacity, so some tasks may not fit; the allocation is then trimmed: each moved job keeps the
largest worker count whose PS count it has, surplus tasks leave its highest-numbered servers, and
a job left below its minimum is dropped (:attr:`Dorm.stats` counts trimmed decisions and dropped
tasks). The result is re-checked with the independent checker
(:func:`dlsched.core.schedule.check_allocations`), the guarantee and the adjustment limit. When
the MILP has no solution (infeasible, or no incumbent within a limit), HiGHS's answer breaks the
model's own rows, or the allocation fails a check, Dorm falls back to keeping the current
allocation of every running job and placing the jobs that are not running in arrival order,
round-robin, each with its requested worker count lowered until it fits (down to the minimum); a
job that does not fit even then waits. The fallback never changes a running job, so it respects
the adjustment limit too.

Determinism: by default there is no wall-clock limit (``time_limit=None``); each solve stops at
``mip_rel_gap`` or at ``node_limit`` branch-and-bound nodes, both machine-independent, so the same
inputs give the same decisions on any machine (with the same HiGHS build). ``time_limit`` remains
available and makes results depend on the machine's speed.

Symbols (paper -> code): :math:`w_j` ``workers``, :math:`p_j` ``ps``, :math:`R_j`
``remaining_slots``, :math:`s_j` ``share``, :math:`G_j` ``gain``, :math:`C_j` ``cost``,
:math:`\sigma_j` ``score``, :math:`\alpha` ``alpha``, :math:`\rho` ``discount``; Dorm's
:math:`Y_{jg}, Z_{jg}` are the columns ``_JobVars.workers[g]`` / ``_JobVars.ps[g]``, :math:`x_j`
``on``, :math:`a_j` ``adjust``, :math:`n^0_{jg}` ``prev_workers`` / ``prev_ps``, :math:`F_h`
``free0``, :math:`\phi_{ijg}` ``phi``; the placed counts are ``Placement.workers`` /
``Placement.ps``.
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
from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, RateContext
from dlsched.core.placement import RoundRobin, next_reachable_slot, reachable
from dlsched.core.policy import BasePolicy, ClusterView, JobView
from dlsched.core.schedule import Decision, Placement, ScheduleViolation, check_allocations, server_usage

_TOL = 1e-9
"""Absolute slack of integer roundings and capacity fits (``floor``/``ceil`` of task counts and
slot numbers, free capacity >= 0) on integer-valued quantities; not a tie tolerance. Ties of
computed floats use :func:`dlsched.oasis.policy._tol` (``REL_TOL`` relative, see the policy
module's section "Floating point and ties")."""
_PIN = 1e-6  # slack of the PS pin Z <= beta Y + 1 - _PIN
_EPS_RR = 1e-9  # absolute tolerance of RoundRobin.fits


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
    return numerics.dot(used.sum(axis=0), _util_weights(cluster))


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

    @staticmethod
    def _ranked(pool: Sequence[RRHEstimate], scores: Mapping[int, tuple[float, float]]) -> list[RRHEstimate]:
        """Run/pause ranking: score sigma_j descending; scores within _tol (REL_TOL of the larger)
        tie and go by arrival, then job id."""
        if not pool:
            return []
        sig = np.array([-scores[e.job_id][0] for e in pool], dtype=float)
        keys = (np.array([e.arrival for e in pool]), np.array([e.job_id for e in pool]))
        return [pool[int(i)] for i in numerics.order(sig, *keys)]

    def _below_drop(self, gain: float) -> bool:
        """``G_j < drop_threshold`` by more than the tolerance _tol (within it the job stays)."""
        return gain < self.drop_threshold - numerics.tolerance(max(abs(gain), abs(self.drop_threshold)))

    # ------------------------------------------------------------------------------ decide
    def decide(self, t: int, view: ClusterView) -> Decision:
        cluster = view.cluster
        pool = [self.estimate(t, v) for v in view.admitted()]
        pool = [e for e in pool if not self._below_drop(e.gain)]
        admit, reject, info = [], [], {}
        for v in view.pending():  # admission, in arrival order
            e = self.estimate(t, v)
            others = sum(o.share for o in pool)
            cost = delay_cost(fluid_delay(e.remaining_slots, e.share, others), pool)
            info[e.job_id] = {"rrh_reward": e.gain, "rrh_delay_cost": cost}
            # admission "G_i - C_i > threshold" with the tolerance
            # numerics.tolerance(max(|G|, |C|, |threshold|)):
            # a margin within it is a tie and rejects (as an exact tie does)
            margin = e.gain - cost - self.threshold
            if margin > numerics.tolerance(max(abs(e.gain), abs(cost), abs(self.threshold))):
                admit.append(e.job_id)
                if not self._below_drop(e.gain):
                    pool.append(e)
            else:
                reject.append(e.job_id)
        scores = self.scores(pool)
        order = self._ranked(pool, scores)
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

GROUPINGS: tuple[str, ...] = ("fit", "capacity", "server")
"""Values of ``Dorm(group_by=...)``: how servers are aggregated into server groups."""


def server_groups(
    cluster: Cluster, specs: Sequence[JobSpec], t: int, by: str = "fit"
) -> list[tuple[int, ...]]:
    """Server groups: the servers Dorm's MILP treats as one aggregate.

    ``by="fit"``: two servers share a group when they belong to the same pool and, for every
    job of ``specs`` and each of its roles, either both or neither can host one task of the job
    at slot ``t`` (reachable and the task fits on the empty server). ``by="capacity"``: same pool,
    same reachability for every job and identical capacity vectors. ``by="server"``: every server
    is its own group (the per-server MILP).

    Parameters
    ----------
    cluster : Cluster
    specs : Sequence[JobSpec]
        The jobs whose reachability and task sizes split groups.
    t : int
        Current slot.
    by : {"fit", "capacity", "server"}, default "fit"

    Returns
    -------
    list[tuple[int, ...]]
        Groups of server indices (ascending), sorted by their first server.

    Raises
    ------
    ValueError
        If ``by`` is not one of :data:`GROUPINGS`.
    """
    if by not in GROUPINGS:
        raise ValueError(f"server_groups: by must be one of {GROUPINGS}, got {by!r}")
    n = cluster.n_servers
    cols = [np.zeros(n, dtype=bool)]
    hosts: dict[bytes, np.ndarray] = {}  # per demand vector (jobs share a few): fits on an empty server
    for spec in specs:
        mask = reachable(spec, cluster, t)
        cols.append(mask)
        if by == "fit":
            for demand in (spec.worker_demand, spec.ps_demand):
                vec = cluster.vector(demand)
                fit = hosts.get(key := vec.tobytes())
                if fit is None:
                    fit = hosts[key] = _fits(cluster.capacity, vec, cluster.hard, 1) > 0
                cols.append(mask & fit)
    sig = np.column_stack(cols)
    out: dict[tuple, list[int]] = {}
    for s in range(n):
        key: tuple = (cluster.servers[s].pool, sig[s].tobytes())
        if by == "capacity":
            key += (cluster.capacity[s].tobytes(),)
        elif by == "server":
            key += (s,)
        out.setdefault(key, []).append(s)
    return sorted(tuple(g) for g in out.values())


def _big_m(worst: float, rhs: float) -> float:
    """Big-M of a residual row, ``worst - rhs`` (largest left side with ``x_j = 0`` minus the
    right side), or 0 when it is not positive by more than numerics.tolerance(max(|worst|, |rhs|)): a big-M
    within the tolerance is rounding noise and is left out of the model."""
    big = worst - rhs
    return big if big > numerics.tolerance(max(abs(worst), abs(rhs))) else 0.0


def _fits(free: np.ndarray, demand: np.ndarray, hard: np.ndarray, cap: int) -> np.ndarray:
    """Whole tasks of ``demand`` that fit in each ``free[..., :]`` vector (hard resources), at
    most ``cap``; the result has ``free``'s shape without the last axis."""
    need = hard & (demand > 0)
    if not need.any():
        return np.full(free.shape[:-1], max(cap, 0), dtype=int)
    k = np.floor((free[..., need] / demand[need]).min(axis=-1) + _TOL)
    # np.clip(k, 0, cap) without its wrapper (a hot path of Dorm's model): the same values
    return np.minimum(np.maximum(k, 0.0), float(max(cap, 0))).astype(int)


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
        Decisions that used the fallback (no MILP solution, or a solution failing a check).
    trimmed : int
        Decisions whose MILP group counts did not all fit on the group's servers, so that the
        allocation was trimmed (module docstring, disaggregation).
    dropped_tasks : int
        Workers and PS of MILP solutions that were not placed (unplaced or trimmed), in total.
    limit_hits : int
        Solves stopped by ``node_limit`` or ``time_limit`` (their incumbent may still be used).
    """

    decisions: int = 0
    milp: int = 0
    fallback: int = 0
    trimmed: int = 0
    dropped_tasks: int = 0
    limit_hits: int = 0


@dataclass
class _JobVars:
    """Columns and previous group counts of one active job in Dorm's aggregated MILP."""

    view: JobView
    fixed: bool
    cap: int
    beta: float
    wd: np.ndarray
    pd: np.ndarray
    workers: dict[int, int]  # group -> column of Y_jg
    ps: dict[int, int]  # group -> column of Z_jg
    prev_workers: dict[int, int]  # group -> workers in the previous slot
    prev_ps: dict[int, int]
    on: int = -1  # column of x_j
    adjust: int | None = None  # column of a_j

    def usage(self, cluster: Cluster) -> np.ndarray:
        """Resources the job's previous placement uses, shape (n_servers, n_resources)."""
        used = np.zeros_like(cluster.capacity)
        for s, c in self.view.placement.workers:
            used[s] += c * self.wd
        for s, c in self.view.placement.ps:
            used[s] += c * self.pd
        return used


@dataclass
class _Model:
    """Dorm's MILP in matrix form (minimisation)."""

    c: np.ndarray
    A: sp.csr_array
    row_lo: np.ndarray
    row_hi: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    integrality: np.ndarray
    jobs: list[_JobVars]


def _group_counts(pairs: Sequence[tuple[int, int]], group_of: np.ndarray) -> dict[int, int]:
    out: dict[int, int] = {}
    for s, c in pairs:
        g = int(group_of[s])
        out[g] = out.get(g, 0) + int(c)
    return out


class Dorm(BasePolicy):
    """Dorm (SmartComp'17) as described by OASiS Sec. V-A: utilisation-maximising MILP with
    fairness and adjustment-overhead constraints, recomputed on every arrival and completion.

    See the module docstring for the MILP, its server groups and the disaggregation onto
    servers. Counters are in :attr:`stats`.

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
    time_limit : float, optional
        Wall-clock seconds per MILP solve; HiGHS's incumbent is used when the limit is hit.
        Default None: no wall-clock limit. **Setting it makes results depend on the machine's
        speed** (a solve cut by the clock returns whatever incumbent HiGHS had by then).
    mip_rel_gap : float, default 1e-3
        HiGHS relative optimality gap (our choice; HiGHS's default is 1e-4).
    adjust_penalty : float, default 0.1
        Objective penalty per adjusted job, as a fraction of the smallest utilisation one task of
        an active job adds (our choice; a tie-breaker that keeps jobs in place).
    node_limit : int or None, default 10000
        Branch-and-bound nodes per solve: a machine-independent safety net (the incumbent is used
        when it is hit); None: no limit.
    group_by : {"fit", "capacity", "server"}, default "fit"
        Server aggregation (:func:`server_groups`): "fit" merges the servers of a pool that can
        host a task of the same jobs, "capacity" only identical servers, "server" none (the
        per-server MILP, exact but slow on large clusters).

    Raises
    ------
    ValueError
        On a bad parameter (the message names it and its value).

    Notes
    -----
    With the default ``time_limit=None`` Dorm is deterministic: identical inputs give identical
    decisions on any machine (HiGHS's branch and bound is deterministic; ``node_limit`` counts
    nodes, not seconds).
    """

    name: ClassVar[str] = "dorm"

    def __init__(
        self,
        max_adjust: int | None = 3,
        fairness_factor: float = 0.0,
        max_workers: int | None = None,
        time_limit: float | None = None,
        mip_rel_gap: float = 1e-3,
        adjust_penalty: float = 0.1,
        node_limit: int | None = 10000,
        group_by: str = "fit",
    ):
        if max_adjust is not None and (
            isinstance(max_adjust, bool) or not isinstance(max_adjust, int) or max_adjust < 0
        ):
            raise ValueError(f"dorm.max_adjust must be an integer >= 0 or None, got {max_adjust!r}")
        self.max_adjust = max_adjust
        self.fairness_factor = _finite(fairness_factor, "dorm.fairness_factor", lo=0.0, hi=1.0)
        self.max_workers = check_count(max_workers, "dorm.max_workers")
        if time_limit is not None:
            time_limit = _finite(time_limit, "dorm.time_limit", lo=0.0)
            if time_limit <= 0:
                raise ValueError(f"dorm.time_limit must be > 0 or None, got {time_limit!r}")
        self.time_limit = time_limit
        self.mip_rel_gap = _finite(mip_rel_gap, "dorm.mip_rel_gap", lo=0.0)
        self.adjust_penalty = _finite(adjust_penalty, "dorm.adjust_penalty", lo=0.0)
        self.node_limit = check_count(node_limit, "dorm.node_limit")
        if group_by not in GROUPINGS:
            raise ValueError(f"dorm.group_by must be one of {GROUPINGS}, got {group_by!r}")
        self.group_by = group_by

    def reset(self, cluster: Cluster, rng: np.random.Generator) -> None:
        super().reset(cluster, rng)
        self._placer = RoundRobin(cluster)
        self._share = _ShareMeter(cluster)
        self._weights = _util_weights(cluster)
        self._stats = DormStats()
        self._fit_memo: dict[tuple[int, bytes, int], np.ndarray] = {}
        self._demand_memo: dict[int, tuple] = {}  # job id -> (spec, cluster, wd, pd, uw, up), see _build

    @property
    def stats(self) -> DormStats:
        """Counters of the current run (decisions, MILP solutions used, fallbacks, re-solves...)."""
        return self._stats

    # ----------------------------------------------------------------------- helpers
    def _cap(self, spec: JobSpec) -> int:
        model = spec.model
        caps = [c for c in (self.max_workers, model.max_workers) if c is not None]
        if not caps:
            caps.append(max(fixed_workers(spec, None), model.min_workers))
        return max(min(caps), model.min_workers)

    def _fits_empty(self, cluster: Cluster, demand: np.ndarray, cap: int) -> np.ndarray:
        """``_fits(cluster.capacity, demand, cluster.hard, cap)``: whole tasks per empty server,
        memoised for the run (one cluster per run, see :meth:`reset`; jobs share a few demand
        vectors)."""
        key = (id(cluster), demand.tobytes(), cap)
        fit = self._fit_memo.get(key)
        if fit is None:
            fit = self._fit_memo[key] = _fits(cluster.capacity, demand, cluster.hard, cap)
        return fit

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
        cluster = view.cluster
        roles = {r: cluster.servers_for(r) for r in ("worker", "ps")}
        for v in view.jobs.values():
            if v.running:
                continue
            spec = v.spec
            model = spec.model
            # counts above what fits on the reachable servers of a role cannot be placed; skipping
            # those attempts (which would fail without side effects) changes no decision
            mask = reachable(spec, cluster, t)
            room = {
                r: int(_fits(free[srv[mask[srv]]] + _EPS_RR, cluster.vector(d), cluster.hard, 10**9).sum())
                for r, srv, d in (
                    ("worker", roles["worker"], spec.worker_demand),
                    ("ps", roles["ps"], spec.ps_demand),
                )
            }
            w = min(fixed_workers(spec, None), self._cap(spec), room["worker"])
            while w >= model.min_workers and model.ps_for(w) > room["ps"]:
                w -= 1
            while w >= model.min_workers:
                p = self._placer.place_job(spec, w, model.ps_for(w), free, t)
                if p is not None:
                    allocs[v.job_id] = p
                    break
                w -= 1
        return allocs

    def solve(self, t: int, view: ClusterView) -> dict[int, Placement] | None:
        """Solve the aggregated MILP, disaggregate it onto servers and re-check the result.

        Parameters
        ----------
        t : int
        view : ClusterView

        Returns
        -------
        dict[int, Placement] or None
            The allocation, or None when HiGHS found no solution (infeasible, or no incumbent
            within the limits), the solution breaks the MILP's own constraints, or the final
            allocation fails a check.
        """
        cluster = view.cluster
        jobs = list(view.jobs.values())
        if not jobs:
            return {}
        guaranteed = set(self.guaranteed(t, view))
        groups = server_groups(cluster, [v.spec for v in jobs], t, self.group_by)
        group_of = np.full(cluster.n_servers, -1, dtype=int)
        for gi, g in enumerate(groups):
            group_of[list(g)] = gi
        model = self._build(t, view, jobs, groups, group_of, guaranteed)
        x = self._milp(model)
        if x is None:
            return None
        allocs, unplaced = self._disaggregate(view, model, groups, group_of, x, guaranteed)
        if unplaced:
            self._stats.trimmed += 1
            allocs = self._trim(model, allocs)
        wanted = sum(int(x[k]) for jv in model.jobs for k in (*jv.workers.values(), *jv.ps.values()))
        got = sum(p.n_workers + p.n_ps for p in allocs.values())
        self._stats.dropped_tasks += max(0, wanted - got)
        return allocs if self._usable(t, view, allocs, guaranteed) else None

    # ------------------------------------------------------------------------------- model
    def _build(
        self,
        t: int,
        view: ClusterView,
        jobs: Sequence[JobView],
        groups: Sequence[tuple[int, ...]],
        group_of: np.ndarray,
        guaranteed: set[int],
    ) -> _Model:
        """Dorm's MILP over (job, server group) counts (see the module docstring)."""
        cluster = view.cluster
        hard = cluster.hard
        n_res = len(cluster.resources)
        wset = set(cluster.servers_for("worker").tolist())
        pset = set(cluster.servers_for("ps").tolist())
        wgroups = [gi for gi, g in enumerate(groups) if g[0] in wset]
        pgroups = [gi for gi, g in enumerate(groups) if g[0] in pset]
        caps = [cluster.capacity[list(g)] for g in groups]
        group_idx = [np.asarray(g, dtype=np.int64) for g in groups]
        # the servers of all groups in one array (group by group) and each group's start in it,
        # for per-group sums in one np.add.reduceat; each group's first server
        members = np.concatenate(group_idx)
        starts = np.cumsum([0] + [len(g) for g in groups[:-1]])
        first = [g[0] for g in groups]
        n_jobs = len(jobs)
        lb: list[float] = []
        ub: list[float] = []
        obj: list[float] = []
        integ: list[int] = []
        rows: list[tuple[dict[int, float], float, float]] = []

        def var(lo, hi, c):
            lb.append(lo)
            ub.append(hi)
            obj.append(c)
            integ.append(1)
            return len(obj) - 1

        cap_rows: dict[tuple[int, int], dict[int, float]] = {}
        min_task_util = math.inf
        out: list[_JobVars] = []
        for v in jobs:
            spec = v.spec
            model = spec.model
            # demand vectors and utilisation per task, computed once per job and run (read only)
            known = self._demand_memo.get(v.job_id)
            if known is None or known[0] is not spec or known[1] is not cluster:
                wd = cluster.vector(spec.worker_demand)
                pd_ = cluster.vector(spec.ps_demand)
                known = self._demand_memo[v.job_id] = (
                    spec, cluster, wd, pd_, numerics.dot(wd, self._weights), numerics.dot(pd_, self._weights)
                )
            _, _, wd, pd_, uw, up = known
            min_task_util = min(min_task_util, *(u for u in (uw, up) if u > 0), math.inf)
            mask = reachable(spec, cluster, t)
            cap = self._cap(spec)
            beta = self._beta(spec, cap)
            zcap = int(math.ceil(beta * cap - 1e-12)) if model.needs_ps else 0
            fixed = v.running and not model.elastic
            jv = _JobVars(
                v, fixed, cap, beta, wd, pd_, {}, {},
                _group_counts(v.placement.workers, group_of), _group_counts(v.placement.ps, group_of),
            )  # fmt: skip
            # objective: a worker adds its own utilisation plus the fluid PS share beta it needs
            # (the PS count itself is pinned to ceil(beta Y) and has no objective coefficient)
            for gis, demand, cnt_cap, prev, store, u in (
                (wgroups, wd, cap, jv.prev_workers, jv.workers, uw + beta * up),
                (pgroups if model.needs_ps else [], pd_, zcap, jv.prev_ps, jv.ps, 0.0),
            ):
                # tasks fitting on each empty server: per server, so the group sums below are
                # those of _fits(caps[gi], ...) (row by row, integers)
                if gis:
                    fit_empty = self._fits_empty(cluster, demand, cnt_cap)
                    group_fit = np.add.reduceat(fit_empty[members], starts).tolist()  # integer sums
                    reach = mask[first].tolist()
                    need = [(r, float(demand[r])) for r in range(n_res) if hard[r] and demand[r] > 0]
                for gi in gis:
                    if not reach[gi]:
                        continue
                    hi = min(cnt_cap, group_fit[gi])
                    lo = 0
                    if fixed:
                        lo = hi = prev.get(gi, 0)
                    if hi <= 0 and prev.get(gi, 0) == 0:
                        continue
                    k = var(lo, hi, -u)
                    store[gi] = k
                    for r, d in need:
                        cap_rows.setdefault((gi, r), {})[k] = d
            y, z = jv.workers, jv.ps
            sure = v.job_id in guaranteed or fixed
            on = var(1 if sure else 0, 1, 0.0)
            jv.on = on
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
            out.append(jv)
        if not math.isfinite(min_task_util):
            min_task_util = 1.0
        adjust_vars = []
        for jv in out:
            if not jv.view.running or jv.fixed:
                continue
            if self.max_adjust is None and self.adjust_penalty == 0:
                continue
            a = var(0, 1, self.adjust_penalty * min_task_util)
            adjust_vars.append(a)
            jv.adjust = a
            for store, prev in ((jv.workers, jv.prev_workers), (jv.ps, jv.prev_ps)):
                for gi in sorted(set(store) | set(prev)):
                    p0 = float(prev.get(gi, 0))
                    if gi not in store:  # previous group no longer usable: the job must change
                        rows.append(({a: 1.0}, 1.0, 1.0))
                        continue
                    k = store[gi]
                    up, down = max(ub[k] - p0, 0.0), p0  # Y - p0 <= up * a, p0 - Y <= down * a
                    if up > 0:
                        rows.append(({k: 1.0, a: -up}, -math.inf, p0))
                    if down > 0:
                        rows.append(({k: -1.0, a: -down}, -math.inf, -p0))
        if self.max_adjust is not None and adjust_vars:
            rows.append(({a: 1.0 for a in adjust_vars}, -math.inf, float(self.max_adjust)))
        for (gi, r), coef in sorted(cap_rows.items()):
            rows.append((coef, -math.inf, float(caps[gi][:, r].sum())))
        rows.extend(self._residual_rows(view, out, groups, ub))
        data, ri, ci = [], [], []
        for i, (coef, _, _) in enumerate(rows):
            vals = list(coef.values())
            if 0 in vals:  # some val == 0: keep the entries with val != 0, in order
                for k, val in coef.items():
                    if val != 0:
                        ri.append(i)
                        ci.append(k)
                        data.append(val)
            else:
                ri.extend([i] * len(vals))
                ci.extend(coef)
                data.extend(vals)
        lo_ = [row[1] for row in rows]
        hi_ = [row[2] for row in rows]
        A = sp.csr_array((data, (ri, ci)), shape=(len(rows), len(obj)))
        return _Model(
            np.array(obj, float), A, np.array(lo_, float), np.array(hi_, float),
            np.array(lb, float), np.array(ub, float), np.array(integ), out,
        )  # fmt: skip

    @staticmethod
    def _residual_rows(
        view: ClusterView, jobs: Sequence[_JobVars], groups: Sequence[tuple[int, ...]], ub: Sequence[float]
    ) -> list[tuple[dict[int, float], float, float]]:
        """Residual-space rows of the module docstring: a running job grows only into the space
        the running jobs leave; a job that is not running fits in that space plus what the
        adjusted jobs release."""
        cluster = view.cluster
        hard = cluster.hard
        movable = [jv for jv in jobs if jv.adjust is not None]
        usage: dict[int, np.ndarray] = {}  # jv.usage(cluster) of each job, computed once

        def usage_of(jv: _JobVars) -> np.ndarray:
            u = usage.get(id(jv))
            if u is None:
                u = usage[id(jv)] = jv.usage(cluster)
            return u

        free0 = cluster.capacity - view.used
        for jv in jobs:  # running elastic jobs without an adjustment variable move freely
            if jv.view.running and not jv.fixed and jv.adjust is None:
                free0 = free0 + usage_of(jv)
        use = np.stack([usage_of(jv) for jv in movable]) if movable else None
        # group sums of per-server task counts in one reduceat (integer sums: the same values as
        # summing each group's servers)
        members = np.concatenate([np.asarray(g, dtype=np.intp) for g in groups])
        starts = np.cumsum([0] + [len(g) for g in groups[:-1]])
        per_demand: dict[tuple[bytes, int], tuple[list, dict | None]] = {}  # jobs not running
        tasks = []  # per movable job and group: (previous tasks of both roles, their columns)
        for jv in movable:
            per: dict[int, tuple[int, list[int]]] = {}
            for store, prev in ((jv.workers, jv.prev_workers), (jv.ps, jv.prev_ps)):
                for gi, n in prev.items():
                    old, cols = per.get(gi, (0, []))
                    per[gi] = (old + n, cols + ([store[gi]] if gi in store else []))
            tasks.append(per)
        rows: list[tuple[dict[int, float], float, float]] = []
        for jv in jobs:
            if jv.fixed or (jv.view.running and jv.adjust is None):
                continue
            running = jv.view.running
            base = free0 + usage_of(jv) if running else free0
            zcap = int(math.ceil(jv.beta * jv.cap - 1e-12))
            for store, demand, cnt in ((jv.workers, jv.wd, jv.cap), (jv.ps, jv.pd, zcap)):
                if not store:
                    continue
                # a job that is not running sees base = free0: its room depends on (demand, cnt) only
                key = None if running else (demand.tobytes(), cnt)
                known = per_demand.get(key) if key is not None else None
                if known is not None:
                    rooms, extras = known
                else:
                    fit0 = _fits(base, demand, hard, cnt)
                    rooms = np.add.reduceat(fit0[members], starts).tolist()
                    # per group, the movable jobs m (ascending) whose release adds tasks, and how many
                    extras = None
                    if not running and use is not None:
                        gain = _fits(base[None] + use, demand, hard, cnt) - fit0[None]
                        gains = np.add.reduceat(gain[:, members], starts, axis=1).T  # (group, movable)
                        gg, mm = np.nonzero(gains > 0)
                        extras = {}
                        for gi, m, e in zip(gg.tolist(), mm.tolist(), gains[gg, mm].tolist(), strict=True):
                            extras.setdefault(gi, []).append((m, e))
                    if key is not None:
                        per_demand[key] = (rooms, extras)
                for gi, k in sorted(store.items()):
                    room = float(rooms[gi])
                    coef: dict[int, float] = {k: 1.0}
                    rhs = room
                    worst = 0.0  # largest left-hand side when the job is off (Y_jg = 0)
                    if extras is not None:
                        for m, e in extras.get(gi, ()):
                            n_prev, cols = tasks[m].get(gi, (0, []))
                            if n_prev <= 0:
                                continue
                            phi = float(e) / n_prev  # tasks of j per released task of i
                            for c in cols:
                                coef[c] = coef.get(c, 0.0) + phi
                                worst += phi * ub[c]
                            rhs += phi * n_prev
                    if room >= ub[k] and len(coef) == 1:
                        continue
                    big = _big_m(worst, rhs)
                    if big > 0:  # the row only binds when the job runs (x_j = 1)
                        coef[jv.on] = big
                        rhs += big
                    rows.append((coef, -math.inf, rhs))
        return rows

    def _milp(self, model: _Model) -> np.ndarray | None:
        """Solve with HiGHS; return the rounded solution, or None if there is none or it breaks
        the model's own bounds or rows (a solver or test double that misbehaves)."""
        constraints = [LinearConstraint(model.A, model.row_lo, model.row_hi)] if model.A.shape[0] else []
        options: dict[str, object] = {"mip_rel_gap": self.mip_rel_gap}
        if self.time_limit is not None:
            options["time_limit"] = self.time_limit
        if self.node_limit is not None:
            options["node_limit"] = self.node_limit
        res = milp(
            model.c,
            constraints=constraints,
            integrality=model.integrality,
            bounds=Bounds(model.lb, model.ub),
            options=options,
        )
        if res.x is None or res.status in (2, 3):  # no solution, infeasible, unbounded
            return None
        if res.status != 0:  # time limit (status 1) or node limit (HiGHS "solution limit", 4)
            self._stats.limit_hits += 1
        x = np.rint(np.asarray(res.x, dtype=float))
        tol = 1e-6
        if np.any(x < model.lb - tol) or np.any(x > model.ub + tol):
            return None
        if model.A.shape[0]:
            act = model.A @ x
            slack = tol * (1.0 + np.abs(act))
            if np.any(act < model.row_lo - slack) or np.any(act > model.row_hi + slack):
                return None
        return x

    # ---------------------------------------------------------------------- disaggregation
    def _disaggregate(
        self,
        view: ClusterView,
        model: _Model,
        groups: Sequence[tuple[int, ...]],
        group_of: np.ndarray,
        x: np.ndarray,
        guaranteed: set[int],
    ) -> tuple[dict[int, Placement], int]:
        """Turn (job, group) counts into per-server placements (module docstring, steps 1-4).

        Returns the allocations and the number of tasks that did not fit.
        """
        cluster = view.cluster
        hard = cluster.hard
        free = cluster.capacity.copy()
        vals = x.astype(int)
        allocs: dict[int, Placement] = {}
        # step 1: jobs whose group counts are unchanged keep their exact placement
        work = []
        for jv in model.jobs:
            want = {
                "worker": {g: int(vals[k]) for g, k in jv.workers.items() if vals[k] > 0},
                "ps": {g: int(vals[k]) for g, k in jv.ps.items() if vals[k] > 0},
            }
            v = jv.view
            if v.running and (jv.fixed or (want["worker"] == jv.prev_workers and want["ps"] == jv.prev_ps)):
                allocs[v.job_id] = v.placement
                for s, c in v.placement.workers:
                    free[s] -= c * jv.wd
                for s, c in v.placement.ps:
                    free[s] -= c * jv.pd
            elif want["worker"] or want["ps"]:
                work.append((jv, want))
        placed: list[dict[str, dict[int, int]]] = [{"worker": {}, "ps": {}} for _ in work]
        left = {
            (i, role, g): n
            for i, (_, want) in enumerate(work)
            for role in want
            for g, n in want[role].items()
        }

        def demand(i: int, role: str) -> np.ndarray:
            return work[i][0].wd if role == "worker" else work[i][0].pd

        def fit_one(s: int, need: list[tuple[int, float]], n: int) -> int:
            """``_fits(free[s : s + 1], d, hard, n)[0]`` with Python floats (the same IEEE
            divisions, minimum, sum and floor; no numpy call for one server)."""
            if not need:
                return n
            row = free[s].tolist()
            k = math.floor(min(row[r] / dr for r, dr in need) + _TOL)
            return min(max(k, 0), n)

        def put(i: int, role: str, servers: Sequence[int], limit: int) -> None:
            d = demand(i, role)
            need = [(r, float(d[r])) for r in np.flatnonzero(hard & (d > 0)).tolist()]
            for s in servers:
                key = (i, role, int(group_of[s]))
                n = min(limit, left.get(key, 0))
                if n <= 0:
                    continue
                n = min(n, fit_one(s, need, n))
                if n <= 0:
                    continue
                free[s] -= n * d
                placed[i][role][s] = placed[i][role].get(s, 0) + n
                left[key] -= n
                limit -= n
                if limit <= 0:
                    return

        # server order inside a group: smallest first (normalised capacity; sizes within _tol
        # tie), then index
        order = []
        for g in groups:
            caps = cluster.capacity[list(g)][:, hard]
            top = np.where(caps.max(axis=0) > 0, caps.max(axis=0), 1.0)
            size = (caps / top).sum(axis=1)
            order.append([g[k] for k in numerics.order(size, np.asarray(g))])
        prev = [
            {"worker": [s for s, _ in jv.view.placement.workers], "ps": [s for s, _ in jv.view.placement.ps]}
            for jv, _ in work
        ]
        # step 2: the minimum allocation of guaranteed jobs, in arrival order (previous servers first)
        for i, (jv, want) in enumerate(work):
            if jv.view.job_id not in guaranteed:
                continue
            m = jv.view.spec.model.min_workers
            mins = {
                "worker": m,
                "ps": int(math.ceil(jv.beta * m - 1e-12)) if jv.view.spec.model.needs_ps else 0,
            }
            for role, need in mins.items():
                for servers in [prev[i][role]] + [order[g] for g in sorted(want[role])]:
                    rest = need - sum(placed[i][role].values())
                    if rest <= 0:
                        break
                    put(i, role, servers, rest)
        # step 3: moved jobs take their previous servers again (sticky)
        for i, (jv, _) in enumerate(work):
            for role, pairs in (("worker", jv.view.placement.workers), ("ps", jv.view.placement.ps)):
                for s, c in pairs:
                    put(i, role, [s], c - placed[i][role].get(s, 0))

        # step 4: the rest, largest tasks first (first fit decreasing)
        def size_of(key):
            i, role, g = key
            d = demand(i, role)[hard]
            top = cluster.capacity[list(groups[g])][:, hard].max(axis=0)
            ok = top > 0
            return float(np.max(d[ok] / top[ok])) if ok.any() else 0.0

        # largest first; sizes within _tol tie and go by (job position, role, group)
        rest = [k for k, n in left.items() if n > 0]
        rank = numerics.tie_classes(np.array([-size_of(k) for k in rest], dtype=float)) if rest else []
        rest = [k for _, k in sorted(zip(rank, rest, strict=True))]
        for i, role, g in rest:
            put(i, role, order[g], left[(i, role, g)])
        for i, (jv, _) in enumerate(work):
            if placed[i]["worker"] or placed[i]["ps"]:
                allocs[jv.view.job_id] = Placement.of(placed[i]["worker"], placed[i]["ps"])
        return allocs, sum(left.values())

    def _trim(self, model: _Model, allocs: Mapping[int, Placement]) -> dict[int, Placement]:
        """Make a partly placed allocation consistent: each moved job keeps the largest worker
        count whose PS count :math:`\\lceil\\beta Y\\rceil` it has, surplus tasks are removed from
        its highest-numbered servers, and a job left below its minimum is dropped."""
        out = dict(allocs)
        for jv in model.jobs:
            v = jv.view
            p = out.get(v.job_id)
            if p is None or (v.running and p == v.placement):
                continue
            spec_model = v.spec.model
            y = min(p.n_workers, jv.cap)
            z = 0
            if spec_model.needs_ps:
                while y > 0 and math.ceil(jv.beta * y - 1e-12) > p.n_ps:
                    y -= 1
                z = math.ceil(jv.beta * y - 1e-12) if y > 0 else 0
            if y < spec_model.min_workers:
                del out[v.job_id]
                continue

            def keep(pairs, n):
                kept: dict[int, int] = {}
                for s, c in sorted(pairs):
                    take = min(c, n)
                    if take > 0:
                        kept[s] = take
                    n -= take
                return kept

            out[v.job_id] = Placement.of(keep(p.workers, y), keep(p.ps, z))
        return out

    def _usable(
        self, t: int, view: ClusterView, allocs: Mapping[int, Placement], guaranteed: set[int]
    ) -> bool:
        """Re-check an allocation: the independent checker, the guarantee, fixed non-elastic jobs
        and the adjustment limit."""
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
