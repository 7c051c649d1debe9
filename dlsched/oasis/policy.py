r"""OASiS Algorithms 1 and 2 with the price functions (22)-(26).

Algorithm 1 (PDF lines 1-15): on the arrival of job ``i`` compute its best schedule ``l*`` and
payoff :math:`\mu_i` with Algorithm 2 (line 3); admit iff :math:`\mu_i > 0` (line 4), fix the
whole schedule irrevocably (line 6) and raise the prices of every (server, resource, slot) it uses
(lines 7-10); otherwise reject (line 13).

Algorithm 2 (PDF lines 1-44): for every completion slot :math:`\hat t_i` from :math:`a_i` to
:math:`T` (line 2), DP_COST (lines 10-20) splits the workload :math:`D_i = E_iN_i` chunk-passes
over the slots :math:`a_i..\hat t_i`, and COST_t (lines 21-44) deploys the workers of one slot on
the cheapest worker servers (lines 23-29) and the PS on the cheapest PS servers (lines 33-38);
the payoff is :math:`f_i(\hat t_i - a_i) - \text{cost}` (line 4); the best :math:`\hat t_i` wins
with ties kept at the earlier slot (line 5, strict ``>``).

Fast path (this module). COST_t(t, d) depends on ``d`` only through the worker count
``W(d) = ceil(d M_i (tau_i + 2 e_i/b_i))`` (line 24): deploying ``W`` workers greedily on servers
sorted by unit price costs the sum of the ``W`` cheapest "worker units", which is a prefix sum, and
likewise for ``Z = ceil(W b_i / B_i)`` PS (lines 35-37). So all COST_t(t, .) of all slots come from
a few vectorized array operations. DP_COST is evaluated bottom-up (App. B:
``cost(t, d) = min_{d'} cost_t(t, d') + cost(t - 1, d - d')``) as a min-plus convolution in which
``d'`` only ranges over ``0..d_max`` (at most :math:`N_i` workers per slot, (3)), and only the states
``d`` from which the full workload can still be reached by slot ``T`` are kept. Ties are broken as
in the paper's loops (smallest ``d`` in the later slot, earliest :math:`\hat t_i`), with the
tolerance below, and costs are summed in the same order as the literal transcription
:func:`dp_cost_literal`, which tests and benchmarks compare against.

Floating point and ties (issue 19)
----------------------------------
Every decision below compares computed floats with the tolerance
``numerics.tolerance(s) = numerics.REL_TOL * |s|`` (1e-9 relative to the larger operand ``s``;
:mod:`dlsched.core.numerics`). There is **no** absolute floor (``numerics.ABS_TOL = 0``): prices start
at ``L`` (about ``e^-204`` on the paper's workload), so costs and payoffs far below 1e-12 are real and
differ by many orders of magnitude. Values within the tolerance are equal; the tie key is the
paper's loop order. Values farther apart decide as before. In an empty cluster many schedules
cost exactly the same (multiples of ``L``) while their float sums differ in the last bit; the rule
makes such ties go to the tie key instead of to the rounding.

===============================================  ======================  ========================
decision (spec line, code)                       tolerance scale ``s``   tie -> key
===============================================  ======================  ========================
Alg. 1 l. 4 / Alg. 2 l. 5: mu_i > 0 (admit)      max(|f|, cost)          reject
Alg. 2 l. 5: mu_il > mu_i (``_Tracker``)         max(|f|, cost), both    earlier completion slot
Alg. 2 l. 23/33: servers by unit price           larger unit price       smaller server position
Alg. 2 l. 15: DP argmin over d (exact, literal)  the minimum             smallest d in later slot
l. 15, frontier: least cost per coverage         the least cost          fewest workers W
l. 15, frontier: dominated point / plateau       the larger cost         larger coverage
pruning (``_Tracker.stop``/``limit``)            exact bounds            never changes the result
ceil/floor of counts (l. 24/26/35-37/39)         ``_EPS`` 1e-9 absolute  integer slack, no tie
RRH admission G - C > threshold                  max(|G|, |C|, |thr|)    reject
RRH pause G < drop_threshold                     max(|G|, |thr|)         keep the job
RRH ranking by sigma_j, descending               larger score            arrival, then job id
Dorm residual row: big-M if big > 0              max(worst, rhs)         no big-M
Dorm placement: servers by size (ascending)      larger size             server index
Dorm placement: tasks by size (descending)       larger size             (job, role, group)
===============================================  ======================  ========================

In the exact DP and the sparse frontier the winner of a tie keeps its own cost (a schedule's cost
is the sum of its slots' costs); the dense frontier keeps the least cost per coverage and applies
the rule when it backtracks.

Readings of the spec's [T]/[N] notes (all documented in :func:`price_parameters`): ``U`` uses
:math:`f_i(d_i^{min} - 1)`; ``L`` uses :math:`f_i(T - 1 - a_i)` (0-based slots: the last slot is
``T - 1``); resources no job demands get ``U = L``; :math:`1/\eta` takes its largest admissible value.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, Workload
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.pricing import ExponentialPrice, PriceMass, log_bounds
from dlsched.core.schedule import Decision, Placement

_EPS = 1e-9
"""Absolute slack of the integer roundings (lines 24/26/35-37: ``ceil``/``floor`` of worker, PS and
chunk counts, whose exact values are integers or ratios of small integers), so that a count that is
an integer up to rounding is not rounded one up or down. Not a tie tolerance (see
:func:`dlsched.core.numerics.tolerance`)."""
INF = math.inf
EXACT_BUDGET = 2_000_000
DENSE_SWITCH = 60_000
"""The frontier DP switches to a dense array once a step combines more candidates than this."""
"""``method="auto"`` uses the exact chunk DP when S * (D + 1) * (d_max + 1) is at most this."""


# ------------------------------------------------------------------ tolerant decisions (issue 19)


def _first_within(cands) -> int | None:
    """Position of the first finite candidate within :func:`dlsched.core.numerics.tolerance` of
    the smallest (the :func:`dlsched.core.numerics.argmin` rule over the finite candidates); None
    if none is finite."""
    c = np.asarray(cands, dtype=np.float64)
    ok = np.isfinite(c)
    if not ok.any():
        return None
    m = float(c[ok].min())
    return int(np.flatnonzero(ok & (c <= m + numerics.tolerance(m)))[0])


def _tol(a: np.ndarray) -> np.ndarray:
    """:func:`dlsched.core.numerics.tolerance` of one float64 array, by the same expression
    (``REL_TOL * |a| + ABS_TOL``, a non-finite magnitude counting 0) without the generic
    argument handling, which dominates on the small arrays of the DP steps."""
    s = np.abs(a)
    return numerics.REL_TOL * np.where(s < INF, s, 0.0) + numerics.ABS_TOL


# ------------------------------------------------------------------------------ price parameters


@dataclass(frozen=True, eq=False)
class PriceParameters:
    r"""Parameters of the price functions (22), kept as logarithms: :math:`\ln U_1^r, \ln U_2^r` per
    resource, :math:`\ln L_1, \ln L_2`, and the scaling factors :math:`\eta_1, \eta_2`.

    Logs, because (25)-(26) take the smallest end-of-horizon utility, which for a time-critical
    sigmoid job (:math:`\gamma_2 \approx 5`) is about :math:`e^{-5(T - a - \gamma_3)}` and underflows
    to 0 for T = 300 (see :class:`dlsched.core.pricing.ExponentialPrice`).
    """

    log_u1: np.ndarray
    log_u2: np.ndarray
    log_l1: float
    log_l2: float
    eta1: float = 1.0
    eta2: float = 1.0

    def __post_init__(self) -> None:
        for name in ("eta1", "eta2"):
            v = float(getattr(self, name))
            if not math.isfinite(v) or v <= 0:
                raise ValueError(f"PriceParameters.{name} must be finite and > 0, got {v!r}")
            object.__setattr__(self, name, v)
        for k in ("1", "2"):
            low, up = log_bounds(getattr(self, "log_l" + k), getattr(self, "log_u" + k),
                                 f"PriceParameters (log_l{k}, log_u{k})")
            object.__setattr__(self, "log_l" + k, low)
            object.__setattr__(self, "log_u" + k, up)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PriceParameters):
            return NotImplemented
        return (
            np.array_equal(self.log_u1, other.log_u1)
            and np.array_equal(self.log_u2, other.log_u2)
            and (self.log_l1, self.log_l2, self.eta1, self.eta2)
            == (other.log_l1, other.log_l2, other.eta1, other.eta2)
        )

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def of(cls, u1, u2, l1: float, l2: float, eta1: float = 1.0, eta2: float = 1.0) -> PriceParameters:
        """From plain (positive) values of ``U`` and ``L``."""
        for name, v in (("l1", l1), ("l2", l2)):
            if not (math.isfinite(v) and v > 0):
                raise ValueError(f"PriceParameters.{name} must be finite and > 0, got {v!r}")
        return cls(numerics.log(np.asarray(u1, float)), numerics.log(np.asarray(u2, float)), math.log(l1),
                   math.log(l2), eta1, eta2)

    @property
    def u1(self) -> np.ndarray:
        """:math:`U_1^r`."""
        return numerics.exp(self.log_u1)

    @property
    def u2(self) -> np.ndarray:
        """:math:`U_2^r`."""
        return numerics.exp(self.log_u2)

    @property
    def l1(self) -> float:
        """:math:`L_1` (0.0 if it underflows)."""
        return math.exp(self.log_l1)

    @property
    def l2(self) -> float:
        """:math:`L_2` (0.0 if it underflows)."""
        return math.exp(self.log_l2)

    @property
    def worker_price(self) -> ExponentialPrice:
        """:math:`P_h^r` of (22)."""
        return ExponentialPrice(self.log_l1, self.log_u1)

    @property
    def ps_price(self) -> ExponentialPrice:
        """:math:`Q_k^r` of (22)."""
        return ExponentialPrice(self.log_l2, self.log_u2)

    @property
    def alpha(self) -> float:
        r""":math:`\alpha = \max_r(1, \ln(U_1^r/L_1), \ln(U_2^r/L_2))` of Theorem 4."""
        return float(max(1.0, np.max(self.log_u1 - self.log_l1), np.max(self.log_u2 - self.log_l2)))

    def scaled(self, u_scale: float = 1.0, l_scale: float = 1.0) -> PriceParameters:
        r"""Estimates with ``U`` multiplied by ``u_scale`` and ``L`` by ``l_scale`` (Fig. 6).

        The paper (Sec. V-A, Fig. 6; spec 11.3 "[N] how the ratio is perturbed (scale U or L) is
        not stated") gives estimates of :math:`U_1^r/L_1`, :math:`U_2^r/L_2` at 20 %-1000 % of
        the true values without saying which of the two it changed. ``u_scale`` (our default
        reading) multiplies ``U`` at fixed ``L``, so ``U/L`` scales by ``u_scale``;
        ``l_scale`` multiplies ``L`` at fixed ``U``, so ``U/L`` scales by ``1/l_scale``.
        ``U`` is floored at the (new) ``L`` ((22) needs :math:`L \le U`). ``l_scale = 1``
        leaves ``L`` bit-identical.

        Raises
        ------
        ValueError
            If ``u_scale`` or ``l_scale`` is not a finite number > 0.
        """
        if not math.isfinite(u_scale) or u_scale <= 0:
            raise ValueError(f"u_scale must be finite and > 0, got {u_scale!r}")
        bad = isinstance(l_scale, bool) or not isinstance(l_scale, (int, float))
        if bad or not math.isfinite(l_scale) or l_scale <= 0:
            raise ValueError(f"l_scale must be a finite number > 0, got {l_scale!r}")
        k = math.log(u_scale)
        out = replace(self, log_u1=np.maximum(self.log_u1 + k, self.log_l1),
                      log_u2=np.maximum(self.log_u2 + k, self.log_l2))
        if l_scale == 1.0:  # the default: L untouched, bit for bit
            return out
        kl = math.log(l_scale)
        l1, l2 = out.log_l1 + kl, out.log_l2 + kl
        return replace(out, log_l1=l1, log_l2=l2, log_u1=np.maximum(out.log_u1, l1),
                       log_u2=np.maximum(out.log_u2, l2))

    def capped(self, max_log_ratio: float) -> PriceParameters:
        r"""Estimates with :math:`\ln(U/L)` at most ``max_log_ratio``: ``L`` raised to
        :math:`\max_r U^r e^{-\text{max\_log\_ratio}}` where it is below; ``U`` is kept, floored at
        the new ``L`` where it was below it ((22) needs :math:`L \le U`).

        **Not in the paper**: an exploration of why OASiS trails the baselines in our Fig. 3
        (notebook ``12_oasis_figures``). (25)-(26) put ``L`` at the smallest end-of-horizon
        utility, which a time-critical job makes astronomically small, so :math:`\alpha` is in
        the hundreds and prices stay negligible until a server is nearly full. Capping the ratio
        makes prices rise earlier. Theorem 4's guarantee assumes the true ``L``.
        """
        bad = not isinstance(max_log_ratio, (int, float)) or not math.isfinite(max_log_ratio)
        if bad or max_log_ratio <= 0:
            raise ValueError(f"max_log_ratio must be a finite number > 0, got {max_log_ratio!r}")
        l1 = max(self.log_l1, float(np.max(self.log_u1)) - max_log_ratio)
        l2 = max(self.log_l2, float(np.max(self.log_u2)) - max_log_ratio)
        return replace(self, log_l1=l1, log_l2=l2, log_u1=np.maximum(self.log_u1, l1),
                       log_u2=np.maximum(self.log_u2, l2))


def _check_oasis_job(spec: JobSpec) -> OasisModel:
    if not isinstance(spec.model, OasisModel):
        raise ValueError(f"job {spec.job_id}: OASiS needs an OasisModel, got {spec.model.kind!r}")
    return spec.model


def min_duration(model: OasisModel) -> int:
    r""":math:`d_i^{min} = \lceil E_iM_i(\tau_i + 2e_i/b_i)\rceil`: slots needed with :math:`N_i`
    workers all the time (the interpretation of (23))."""
    return max(1, math.ceil(model.epochs * model.minibatches * model.minibatch_time - _EPS))


L_UTILITY: tuple[str, ...] = ("horizon", "target")
"""Values of ``l_utility`` of :func:`price_parameters` (default first)."""
L_JOBS: tuple[str, ...] = ("all", "time_sensitive")
"""Values of ``l_jobs`` of :func:`price_parameters` (default first)."""
L_STATISTIC: tuple[str, ...] = ("min", "median")
"""Values of ``l_statistic`` of :func:`price_parameters` (default first)."""


def _l_choice(value, name: str, valid: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in valid:
        raise ValueError(f"{name} must be one of {valid}, got {value!r}")
    return value


_SENSITIVE_MAX = 1.0
r"""Largest :math:`\gamma_2` of a time-sensitive job (Sec. V-A: :math:`\gamma_2 \in [0.01, 1]`;
the rule of :func:`dlsched.oasis.model.utility_classes`, which imports this module, so it is not
imported here; a test checks that the two agree)."""


def _time_sensitive(spec: JobSpec) -> bool:
    r"""Whether ``spec``'s utility is of the *time-sensitive* class of Sec. V-A: a sigmoid with
    :math:`0 < \gamma_2 \le 1` (:func:`dlsched.oasis.model.utility_classes`). A utility without
    a decay :math:`\gamma_2` (e.g. a constant) is not."""
    g2 = getattr(spec.utility, "gamma2", None)
    return g2 is not None and 0.0 < float(g2) <= _SENSITIVE_MAX


def _l_duration(spec: JobSpec, T: int, l_utility: str) -> float:
    """The duration at which (25)-(26) evaluate ``f_i``: the end of the horizon ``T - 1 - a_i``
    (``"horizon"``), or the job's target ``gamma3`` clipped to ``[0, T - 1 - a_i]``
    (``"target"``; the horizon when the utility has no target)."""
    end = max(0, T - 1 - spec.arrival)
    if l_utility == "horizon":
        return end
    target = float(getattr(spec.utility, "target", math.nan))
    if not math.isfinite(target):
        return end
    return min(max(target, 0.0), float(end))


def price_parameters(
    workload: Workload,
    *,
    horizon: int | None = None,
    l_utility: str = "horizon",
    l_jobs: str = "all",
    l_statistic: str = "min",
) -> PriceParameters:
    r"""The "true" price parameters (23)-(26) of a workload.

    * (23)/(24): :math:`U_1^r = \max_i f_i(d_i^{min} - 1)/w_i^r` over jobs with :math:`w_i^r > 0`
      ([T] reading of the spec: utility at the earliest completion); a resource no job demands
      gets ``U = L`` (its price never matters).
    * (25)/(26): :math:`L_1 = \frac{1}{4\eta_1}\min_i f_i(T - 1 - a_i) /
      (\lceil E_iN_iM_i(\tau_i + 2e_i/b_i)\rceil \sum_r w_i^r)` with 0-based slots.
    * :math:`1/\eta_1 = \min(1, \min_i \lceil\cdot\rceil \sum_r w_i^r / (T \sum_h\sum_r c_h^r))`, the
      largest value allowed by the condition after (26) and Appendix A; same for ``eta2``.

    Three alternative definitions of ``L`` (issue 22, "Which reading restores the claim"),
    each a documented reinterpretation of (25)-(26) (spec section 5: "L_1 (L_2) = min
    unit-time-unit-resource utility; f_i(T-a_i) = smallest utility (ends at T)"). Under the
    defaults, ``L`` is the paper's worst case: the smallest end-of-horizon utility, which a
    time-critical sigmoid (:math:`\gamma_2 \in [4, 6]`) makes about :math:`e^{-5(T - a_i -
    \gamma_3)}`. The defaults reproduce (25)-(26) bit for bit; ``U`` and :math:`\eta` never
    change (:math:`\eta` keeps its condition "for all i", over every job).

    Parameters
    ----------
    workload : Workload
        OASiS jobs (:class:`~dlsched.core.jobs.OasisModel`) on a two-pool cluster.
    horizon : int, optional
        ``T``; default ``workload.horizon``.
    l_utility : {"horizon", "target"}, default "horizon"
        Where (25)-(26) evaluate the utility. ``"horizon"``: :math:`f_i(T - 1 - a_i)`, the job
        ending at the end of the horizon ((25)-(26) as printed, "[T] read f_i(T - a_i)").
        ``"target"``: :math:`f_i(\gamma_3)`, the utility at the job's *target completion*
        (Sec. V-A: ":math:`\gamma_3` = target completion time"; for the sigmoid this is
        :math:`\gamma_1/2`), clipped to ``[0, T - 1 - a_i]``. A utility without a target
        (:attr:`JobSpec.target` NaN, e.g. a constant) keeps the horizon.
    l_jobs : {"all", "time_sensitive"}, default "all"
        Over which jobs the minimum of (25)-(26) runs. ``"all"``: :math:`i \in [I]` as printed.
        ``"time_sensitive"``: only the jobs of Sec. V-A's *time-sensitive* class
        (:math:`\gamma_2 \in [0.01, 1]`, :func:`dlsched.oasis.model.utility_classes`), leaving out
        the time-critical jobs (whose end-of-horizon utility vanishes) and the time-insensitive
        ones. The workload model has no other notion of time sensitivity. If the workload has no
        time-sensitive job, all jobs are used.
    l_statistic : {"min", "median"}, default "min"
        ``"min"``: the minimum over the jobs as printed. ``"median"``: the median of the per-job
        values :math:`f_i(\cdot)/(\lceil\cdot\rceil \sum_r w_i^r)` instead, computed on
        their logarithms (for an even count, the geometric mean of the two middle values), so
        that ``L`` is a typical rather than the worst job's unit utility.

    Returns
    -------
    PriceParameters

    Raises
    ------
    ValueError
        No horizon, no job, a cluster without both pools, a non-OASiS job, a selected job whose
        utility at the evaluated duration is 0, or a bad ``l_utility``, ``l_jobs`` or
        ``l_statistic`` (the message names it and the value).
    """
    l_utility = _l_choice(l_utility, "price_parameters: l_utility", L_UTILITY)
    l_jobs = _l_choice(l_jobs, "price_parameters: l_jobs", L_JOBS)
    l_statistic = _l_choice(l_statistic, "price_parameters: l_statistic", L_STATISTIC)
    T = workload.horizon if horizon is None else horizon
    if T is None:
        raise ValueError("price_parameters needs a horizon T (workload.horizon or horizon=)")
    cluster = workload.cluster
    wsrv, psrv = cluster.servers_for("worker"), cluster.servers_for("ps")
    if len(wsrv) == 0 or len(psrv) == 0:
        raise ValueError("OASiS needs a cluster with worker servers and PS servers (Cluster.two_pools)")
    R = len(cluster.resources)
    log_u1 = np.full(R, -INF)
    log_u2 = np.full(R, -INF)
    inv_eta1 = inv_eta2 = 1.0
    cap_w = float(cluster.capacity[wsrv].sum())
    cap_p = float(cluster.capacity[psrv].sum())
    if not workload.jobs:
        raise ValueError("price_parameters needs at least one job")
    chosen = [True] * len(workload.jobs)
    if l_jobs == "time_sensitive":
        for spec in workload.jobs:
            _check_oasis_job(spec)
        sens = [_time_sensitive(spec) for spec in workload.jobs]
        if any(sens):
            chosen = sens
    ratios1: list[float] = []
    ratios2: list[float] = []
    for spec, use in zip(workload.jobs, chosen, strict=True):
        m = _check_oasis_job(spec)
        w = cluster.vector(spec.worker_demand)
        s = cluster.vector(spec.ps_demand)
        log_best = float(spec.utility.log(min_duration(m) - 1))
        work = math.ceil(m.epochs * m.chunks * m.minibatches * m.minibatch_time - _EPS)
        with np.errstate(divide="ignore"):
            log_u1 = np.maximum(log_u1, np.where(w > 0, log_best - numerics.log(np.where(w > 0, w, 1)), -INF))
            log_u2 = np.maximum(log_u2, np.where(s > 0, log_best - numerics.log(np.where(s > 0, s, 1)), -INF))
        inv_eta1 = min(inv_eta1, work * w.sum() / (T * cap_w))
        inv_eta2 = min(inv_eta2, work * s.sum() / (T * cap_p))
        if not use:
            continue
        log_worst = float(spec.utility.log(_l_duration(spec, T, l_utility)))
        if not math.isfinite(log_worst):
            where = "at the horizon" if l_utility == "horizon" else "at its target completion"
            raise ValueError(f"job {spec.job_id}: utility {where} is 0, so L (25)-(26) would be 0")
        ratios1.append(log_worst - math.log(work * w.sum()))
        ratios2.append(log_worst - math.log(work * s.sum()))
    if l_statistic == "min":
        log_ratio1, log_ratio2 = min(ratios1), min(ratios2)
    else:
        log_ratio1, log_ratio2 = float(np.median(ratios1)), float(np.median(ratios2))
    eta1, eta2 = 1.0 / inv_eta1, 1.0 / inv_eta2
    log_l1 = log_ratio1 - math.log(4 * eta1)
    log_l2 = log_ratio2 - math.log(4 * eta2)
    log_u1 = np.where(np.isfinite(log_u1), np.maximum(log_u1, log_l1), log_l1)
    log_u2 = np.where(np.isfinite(log_u2), np.maximum(log_u2, log_l2), log_l2)
    return PriceParameters(log_u1, log_u2, log_l1, log_l2, eta1, eta2)


# ------------------------------------------------------------------------------- Algorithm 2


def workers_needed(d: int | np.ndarray, model: OasisModel):
    """Line 24: ``ceil(d * M_i * (tau_i + 2 e_i / b_i))`` workers for ``d`` chunk-passes in a slot."""
    q = model.minibatches * model.minibatch_time
    return np.ceil(np.asarray(d) * q - _EPS).astype(np.int64)


def ps_needed(workers: int | np.ndarray, model: OasisModel):
    """Lines 35-37: ``ceil(W b_i / B_i)`` PS for ``W`` workers (never more than ``W``, as b <= B)."""
    return np.ceil(np.asarray(workers) * (model.worker_bw / model.ps_bw) - _EPS).astype(np.int64)


def unit_prices(prices: np.ndarray, demand: np.ndarray) -> np.ndarray:
    r"""Lines 23/33 sort key: :math:`\sum_r p_h^r(t) w_i^r` for every (slot, server)."""
    return np.sum(prices * demand, axis=-1)


def unit_caps(capacity: np.ndarray, used: np.ndarray, demand: np.ndarray) -> np.ndarray:
    r"""Lines 26/35: :math:`\min_r \lfloor (c^r - g^r)/w^r \rfloor` over resources with
    :math:`w^r > 0`, for every (slot, server)."""
    pos = demand > 0
    return _unit_caps_at(capacity[None, :, pos], used[:, :, pos], demand[pos])


def _unit_caps_at(capacity: np.ndarray, used: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """:func:`unit_caps` from the demanded resources' columns only (the same float operations)."""
    room = (capacity - used) / demand
    return np.maximum(0, np.floor(np.min(room, axis=-1) + _EPS)).astype(np.int64)


def _price_order(price: np.ndarray) -> np.ndarray:
    """:func:`dlsched.core.numerics.order` of each row of ``price`` (Alg. 2 lines 23/33 sort key),
    computed with one stable sort plus a pass over the near ties only.

    For non-negative finite values in sorted order, the tie classes of
    :func:`~dlsched.core.numerics.tie_classes` (a value joins the class of the run's *first* value
    when within the tolerance of it) are decided by the gaps: a zero gap always joins, a gap
    beyond the tolerance of its two values always starts a class (the head is no larger than the
    previous value, so it is even farther), and only a gap within the tolerance ("near tie")
    needs the comparison with the head. That pass goes column by column over the rows that have
    a near tie, all such rows at once, with the float operations of the scalar comparison. Other
    inputs go to ``numerics.order`` itself.
    """
    idx = np.argsort(price, axis=-1, kind="stable")
    sv = np.take_along_axis(price, idx, axis=-1)
    if sv.shape[-1] < 2 or not (np.isfinite(sv).all() and (sv[:, 0] >= 0).all()):
        return numerics.order(price)
    gap = np.diff(sv, axis=-1)
    # every pair's tolerance REL_TOL * max + ABS_TOL is at most the row's bound (its largest value,
    # the last, times REL_TOL; float products are monotone): gaps all 0 or above it are no near tie
    bound = numerics.REL_TOL * sv[:, -1:] + numerics.ABS_TOL
    if not ((gap > 0) & (gap <= bound)).any():  # exact ties only: the stable sort is the order
        return idx
    tol = numerics.tolerance(sv[:, 1:], sv[:, :-1])
    near = (gap > 0) & (gap <= tol)
    if not near.any():  # exact ties only: the stable sort is the order (ties by position)
        return idx
    starts = gap > tol  # starts[:, j]: value j + 1 heads a new class
    # The near ties, decided against the head of their class: one pass over the columns, all rows
    # with a near tie at once (each row's heads are those of a row-by-row scan). The comparison is
    # numerics.is_close(x, head) written out elementwise: the values are finite and >= 0, so the
    # tolerance is REL_TOL * max(|x|, |head|) + ABS_TOL, the same float operations as the scalar
    # numerics.tolerance(x, head).
    rows = np.flatnonzero(near.any(axis=1))
    sr, nr, st = sv[rows], near[rows], starts[rows]
    cols = nr.any(axis=0).tolist()
    last = len(cols) - cols[::-1].index(True)  # columns after the last near tie need no head
    head = sr[:, 0]
    for j in range(last):
        x = sr[:, j + 1]
        if cols[j]:
            same = (x == head) | (
                np.abs(x - head) <= numerics.REL_TOL * np.maximum(np.abs(x), np.abs(head)) + numerics.ABS_TOL
            )
            st[:, j] |= nr[:, j] & ~same
        head = np.where(st[:, j], x, head)
    starts[rows] = st
    ranks = np.zeros(sv.shape, dtype=np.int64)
    ranks[:, 1:] = np.cumsum(starts, axis=-1)
    ranks_at = np.empty_like(ranks)
    np.put_along_axis(ranks_at, idx, ranks, axis=-1)
    pos = np.broadcast_to(np.arange(sv.shape[-1]), sv.shape)
    return np.lexsort([pos, ranks_at], axis=-1)


def _greedy_cost(price: np.ndarray, cap: np.ndarray, counts: np.ndarray, limit: int):
    """Cost of deploying ``counts`` units greedily on servers sorted by ``price`` (stable), for
    every slot: arrays (S, len(counts)); +inf where more than min(limit, total cap) are needed.

    Summation order: server by server in sorted order, ``price * units`` -- the same as the
    literal loops of COST_t, so both give bit-identical costs. ``count`` units fill the servers
    before ``j`` (the first whose cumulative cap reaches ``count``) and part of server ``j``; the
    cost is the sequential prefix sum over the full servers plus ``price_j * rest`` (the literal
    loop then adds only zeros), found for all (slot, count) pairs with one ``searchsorted``.
    """
    # Alg. 2 lines 23/33: sort servers by unit price sum_r p_h^r(t) w_i^r, non-decreasing; prices
    # within the tolerance _tol (REL_TOL of the larger) tie -> smaller server position in the pool
    order = _price_order(price)
    S, n = price.shape
    r = np.arange(S)[:, None]
    ps = price[r, order]  # plain gathers (as take_along_axis)
    cs = cap[r, order]
    cc = np.cumsum(cs, axis=1)
    full = np.cumsum(ps * cs, axis=1)  # sequential, like the literal loop
    counts = np.asarray(counts, dtype=np.int64)
    # first server j with cc[j] >= count, per slot: one searchsorted over rows offset apart
    span = int(max(cc[:, -1].max(initial=0), counts.max(initial=0))) + 1
    rows = np.arange(S, dtype=np.int64)[:, None] * span
    j = np.searchsorted((cc + rows).ravel(), (counts[None, :] + rows).ravel()).reshape(S, -1)
    j = np.minimum(j - r * n, n - 1)
    # the server before j (none for j = 0): prefix arrays with a leading 0 column, read at j
    cc0 = np.zeros((S, n + 1), dtype=cc.dtype)
    cc0[:, 1:] = cc
    full0 = np.zeros((S, n + 1))
    full0[:, 1:] = full
    before_cc = cc0[r, j]
    before = full0[r, j]
    acc = before + ps[r, j] * (counts[None, :] - before_cc)
    feasible = (cc[:, -1:] >= counts[None, :]) & (counts[None, :] <= limit)
    return np.where(feasible, acc, INF), order, cs


@dataclass
class _Slots:
    """Per-slot data of one job's search (slots a..T-1)."""

    d_max: int
    by_workers: np.ndarray  # (S, N + 1): cost of W workers and their PS, W = 0..N (inf: infeasible)
    chunks_of: np.ndarray  # (N + 1,): most chunk-passes W workers cover in a slot
    w_order: np.ndarray  # (S, H) sorted worker-server order
    w_caps: np.ndarray  # (S, H) caps in that order
    p_order: np.ndarray
    p_caps: np.ndarray
    model: OasisModel

    @property
    def cost(self) -> np.ndarray:
        """COST_t(t, d) for d = 0..d_max: (S, d_max + 1)."""
        W = workers_needed(np.arange(self.d_max + 1), self.model)
        out = self.by_workers[:, W]
        out[:, 0] = 0.0  # note 3: COST_t(t, 0) = 0 with y = z = 0
        return out


def chunks_covered(workers: np.ndarray, model: OasisModel) -> np.ndarray:
    """Largest ``d`` with ``workers_needed(d) <= W``, for each worker count ``W`` (line 24 inverted)."""
    W = np.asarray(workers, dtype=np.int64)
    q = model.minibatches * model.minibatch_time
    d = np.floor((W + _EPS) / q).astype(np.int64)
    for _ in range(3):  # float guard: exact agreement with workers_needed
        up = workers_needed(d + 1, model) <= W
        d = d + up
        down = (d > 0) & (workers_needed(d, model) > W)
        d = d - down
    return d


@dataclass(frozen=True, eq=False)
class _Counts:
    """The slot-independent part of COST_t for one job: ``d_max``, the worker counts
    ``W = 0..N_i``, their PS counts ``Z`` (lines 35-37) and distinct values ``zs``, and the
    chunk-passes ``W`` workers cover (:func:`chunks_covered`)."""

    d_max: int
    W: np.ndarray
    Z: np.ndarray
    zs: np.ndarray
    chunks_of: np.ndarray

    @classmethod
    def of(cls, model: OasisModel) -> _Counts:
        N = model.chunks
        q = model.minibatches * model.minibatch_time
        d_max = int(math.floor(N / q + _EPS)) if q > 0 else 0
        while d_max > 0 and workers_needed(d_max, model) > N:
            d_max -= 1
        W = np.arange(N + 1)
        Z = ps_needed(W, model)
        return cls(d_max, W, Z, np.unique(Z), chunks_covered(W, model))


def cost_table(
    model: OasisModel,
    wdem: np.ndarray,
    pdem: np.ndarray,
    wprice: np.ndarray,
    pprice: np.ndarray,
    wcap: np.ndarray,
    pcap: np.ndarray,
    counts: _Counts | None = None,
) -> _Slots:
    """COST_t for every slot of the window (lines 21-44), per worker count ``W = 0..N_i``.

    ``wprice``/``pprice`` are the price arrays (S, H, R)/(S, K, R) of the window and ``wcap``/
    ``pcap`` the per-(slot, server) unit caps (30)/(31). ``COST_t(t, d)`` is the entry of
    ``W = ceil(d M_i (tau_i + 2 e_i/b_i))`` (:attr:`_Slots.cost`). ``counts`` is
    ``_Counts.of(model)``, passed by callers that price a window block by block (:class:`_Window`).
    """
    return _cost_table_of(model, unit_prices(wprice, wdem), unit_prices(pprice, pdem), wcap, pcap, counts)


def _cost_table_of(model: OasisModel, uw: np.ndarray, up: np.ndarray, wcap: np.ndarray, pcap: np.ndarray,
                   counts: _Counts | None = None) -> _Slots:
    """:func:`cost_table` from the unit prices (lines 23/33) of the worker and PS servers."""
    n = _Counts.of(model) if counts is None else counts
    N = model.chunks
    wc, w_order, w_caps = _greedy_cost(uw, wcap, n.W, N)
    pc, p_order, p_caps = _greedy_cost(up, pcap, n.zs, int(ps_needed(N, model)))
    by_workers = wc + pc[:, np.searchsorted(n.zs, n.Z)]
    by_workers[:, 0] = 0.0
    return _Slots(n.d_max, by_workers, n.chunks_of, w_order, w_caps, p_order, p_caps, model)


COMPACT_MIN = 1 << 22
""":class:`OASiS` keeps a pool's usage and price tables compact (:class:`_Cells`) when a table holds
at least this many values (``T * servers * R``) and at most half of the pool's (server, resource)
cells have a capacity; other tables are plain (T, servers, R) arrays."""


class _Cells:
    r"""One pool's usage :math:`g_h^r(t)` (or :math:`v_k^r(t)`) and prices :math:`p_h^r(t)` (or
    :math:`q_k^r(t)`, (22)) over the whole horizon, stored only at the (server, resource) cells
    with a capacity > 0, the *live* cells: tables (T, live cells) instead of (T, servers, R).

    Elsewhere the tables keep their values at zero usage in every slot: the unit caps (30)/(31) of
    a server lacking a resource the job demands are 0, so no unit is placed there, usage stays 0.0
    and the price (22), which depends on the cell's own usage and capacity only, stays the price
    at zero usage. :meth:`put` checks this on every commit, bit for bit, and refuses a write that
    would change such a cell (the policy then keeps that pool in full tables, :meth:`OASiS._expand`).
    On the whole Philly trace a server has capacity on 3 of the 45 resources (its virtual
    cluster's gpu, cpu and memory): the four tables take about 100 MB instead of 1.7 GB.

    :meth:`block` rebuilds full rows (S, servers, R); :meth:`units` computes a job's unit caps
    (30)/(31) and unit prices (lines 23/33) over some slots from the demanded resources' columns
    only, with the same floats as from the full rows.
    """

    def __init__(self, T: int, cap: np.ndarray, price_row: np.ndarray) -> None:
        """``cap``: the pool's capacities (servers, R); ``price_row``: its prices (22) at zero usage
        (servers, R), every slot's initial prices."""
        n, R = cap.shape
        self.shape = (T, n, R)
        self.live = np.flatnonzero(cap.reshape(-1) > 0)  # a slot's live cells, flat (server * R + r)
        self.col = np.full(n * R, -1, dtype=np.int64)  # flat cell -> its column in the tables, -1: not live
        self.col[self.live] = np.arange(len(self.live))
        base = np.array(price_row, dtype=np.float64).reshape(-1)
        self.base = {"used": np.zeros(n * R), "price": base}  # every slot's values at zero usage
        self.tables = {"used": np.zeros((T, len(self.live))),
                       "price": np.repeat(base[self.live][None], T, axis=0)}
        # the fast path of units() needs every price finite and without a sign bit (see there)
        self.finite = bool(np.isfinite(base).all() and not np.signbit(base).any())

    def block(self, key: str, rows=slice(None)) -> np.ndarray:
        """Full rows (S, servers, R) of table ``key`` ("used" or "price") over the slots ``rows`` (a
        slice), a fresh array."""
        tab = self.tables[key][rows]
        out = np.empty((tab.shape[0], self.base[key].size))
        out[:] = self.base[key]
        out[:, self.live] = tab
        return out.reshape((tab.shape[0],) + self.shape[1:])

    def _cells_of(self, hs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat cells (m, R) of the servers ``hs`` and their columns (-1: not live)."""
        R = self.shape[2]
        flat = np.asarray(hs, dtype=np.int64)[:, None] * R + np.arange(R)
        return flat, self.col[flat]

    def rows_at(self, key: str, ts: np.ndarray, hs: np.ndarray) -> np.ndarray:
        """Full rows (m, R) of table ``key`` at the (slot, server) pairs ``(ts, hs)``, a fresh array."""
        flat, col = self._cells_of(hs)
        out = self.base[key][flat]
        live = col >= 0
        out[live] = self.tables[key][np.broadcast_to(np.asarray(ts)[:, None], col.shape)[live], col[live]]
        return out

    def put(self, ts: np.ndarray, hs: np.ndarray, used: np.ndarray, price: np.ndarray) -> bool:
        """Write full rows (m, R) of usage and prices at the distinct (slot, server) pairs
        ``(ts, hs)``; False (and nothing written) if a cell that is not live would change."""
        flat, col = self._cells_of(hs)
        live = col >= 0
        for key, rows in (("used", used), ("price", price)):
            if not np.array_equal(rows[~live].view(np.int64), self.base[key][flat[~live]].view(np.int64)):
                return False
        tt, cc = np.broadcast_to(np.asarray(ts)[:, None], col.shape)[live], col[live]
        self.tables["used"][tt, cc] = used[live]
        new = price[live]
        self.tables["price"][tt, cc] = new
        if not (np.isfinite(new).all() and not np.signbit(new).any()):
            self.finite = False
        return True

    def units(self, capacity: np.ndarray, demand: np.ndarray, rows: slice) -> tuple[np.ndarray, np.ndarray]:
        """:func:`unit_caps` and :func:`unit_prices` of a job with ``demand`` over the slots ``rows``,
        as from :meth:`block`'s full rows.

        The caps read only the demanded columns (as :func:`unit_caps` does). The unit price
        ``np.sum(price * demand, axis=-1)`` is a sum over all R resources; with prices and demands
        finite and without sign bits, a resource not demanded adds a product ``+0.0``, and a sum
        of +0.0 and at most two non-zero terms ``x``, ``y`` is ``x + y`` rounded once, in whatever
        order numpy adds: every other addition has an exact zero operand. So for a job demanding
        at most two resources of the pool (one gpu per worker, cpu and memory per PS on the
        trace) the sum of the demanded products is the same float; otherwise the full rows are
        rebuilt.
        """
        pos = demand > 0
        k = int(pos.sum())
        plain = np.isfinite(demand).all() and not np.signbit(demand).any()
        if not (self.finite and plain and k <= 2):
            used, price = self.block("used", rows), self.block("price", rows)
            return unit_caps(capacity, used, demand), unit_prices(price, demand)
        n, R = self.shape[1:]
        flat = np.arange(n, dtype=np.int64)[:, None] * R + np.flatnonzero(pos)[None]  # (servers, k)
        col = self.col[flat]
        live = col >= 0
        at = np.where(live, col, 0)

        def values(key: str) -> np.ndarray:  # (S, servers, k): the demanded columns of block(key, rows)
            return np.where(live, self.tables[key][rows][:, at], self.base[key][flat])

        caps = _unit_caps_at(capacity[None, :, pos], values("used"), demand[pos])
        prod = values("price") * demand[pos]
        if k == 2:
            return caps, prod[..., 0] + prod[..., 1]
        if k == 1:
            return caps, prod[..., 0].copy()
        return caps, np.zeros(prod.shape[:2])


class _CellsView:
    """Table ``key`` ("used" or "price") of a :class:`_Cells` as :func:`best_schedule` reads a
    (T, servers, R) table: ``shape``, and rows by a slice (rebuilt in full by :meth:`_Cells.block`).
    Read-only."""

    def __init__(self, cells: _Cells, key: str) -> None:
        self.cells, self.key = cells, key
        self.shape = cells.shape

    def __getitem__(self, rows):
        if isinstance(rows, slice):
            return self.cells.block(self.key, rows)
        return self.cells.block(self.key)[rows]


def _pool_rows(capacity, used, price, demand: np.ndarray, rows: slice) -> tuple[np.ndarray, np.ndarray]:
    """Unit caps (30)/(31) and unit prices (lines 23/33) of one pool over the slots ``rows``: from
    (T, servers, R) tables, or from a compact :class:`_Cells` (``used`` and ``price`` its views)."""
    if isinstance(used, _CellsView) and isinstance(price, _CellsView) and used.cells is price.cells:
        return used.cells.units(capacity, demand, rows)
    return unit_caps(capacity, used[rows], demand), unit_prices(price[rows], demand)


_FIRST_BLOCK = 16
"""Slots of a job's window priced before its DP starts (:class:`_Window`); later blocks double."""


class _Window:
    """COST_t (lines 21-44) over one job's window, slots ``a_i..T-1``, computed in blocks of slots as
    the DP reaches them (:meth:`row`), instead of for the whole window up front.

    Algorithm 2 enumerates completion slots from :math:`a_i` on and stops (:meth:`_Tracker.stop`)
    once :math:`f_i` falls to the best payoff; on trace workloads that is usually within a few
    dozen slots of a window of ~1,500. Every row of :func:`cost_table` depends on its own slot only
    (unit prices (lines 23/33), caps (30)/(31), the greedy order and its prefix sums are computed
    row by row), so a row computed in a block has the same bits as in the whole-window table.
    Blocks double (16, 32, 64, ... slots): at most about twice the rows the DP reads are computed.
    ``S`` stays the whole window: the DPs' reachability bounds and the tracker use it unchanged.
    """

    def __init__(self, model: OasisModel, a: int, S: int, workers: tuple, ps: tuple) -> None:
        """``workers``/``ps``: (capacity, used, price, demand) of the pool, as :func:`best_schedule`
        takes them (used and price over the whole horizon)."""
        self.model, self.a = model, a
        self._pools = (workers, ps)
        self.S = S
        self.n = 0  # rows 0..n-1 computed
        self.counts = _Counts.of(model)
        self.d_max = self.counts.d_max
        self.chunks_of = self.counts.chunks_of
        self._W: np.ndarray | None = None  # workers of d = 0..d_max (line 24), once rows of d are read
        self.slots: _Slots | None = None
        self._grow(min(S, _FIRST_BLOCK))

    def _grow(self, n: int) -> None:
        """Compute rows ``self.n..n-1`` (those of :func:`cost_table`, from the unit caps and prices
        of :func:`_pool_rows`) and append them."""
        rows = slice(self.a + self.n, self.a + n)
        (wcap, uw), (pcap, up) = (_pool_rows(*pool, rows) for pool in self._pools)
        block = _cost_table_of(self.model, uw, up, wcap, pcap, self.counts)
        if self.slots is None:
            self.slots = block
        else:
            old = self.slots
            cat = {k: np.concatenate([getattr(old, k), getattr(block, k)])
                   for k in ("by_workers", "w_order", "w_caps", "p_order", "p_caps")}
            self.slots = replace(old, **cat)
        self.n = n

    def row(self, k: int, cost: bool) -> np.ndarray:
        """Slot ``k`` of the window: COST_t(t, d) for d = 0..d_max (``cost``, as :attr:`_Slots.cost`)
        or the cost by worker count (:attr:`_Slots.by_workers`)."""
        if k >= self.n:
            self._grow(min(self.S, max(k + 1, 2 * self.n)))
        h = self.slots.by_workers[k]
        if not cost:
            return h
        if self._W is None:
            self._W = workers_needed(np.arange(self.d_max + 1), self.model)
        out = h[self._W]
        out[0] = 0.0  # note 3: COST_t(t, 0) = 0 with y = z = 0
        return out


class _Rows:
    """Read-only row view of a :class:`_Window` for :func:`_dp` / :func:`_frontier`, which also take
    a plain (S, .) array: ``shape[0]`` is the window's length and ``rows[k]`` is slot ``k``."""

    def __init__(self, window: _Window, cost: bool) -> None:
        self._window = window
        self._cost = cost
        width = window.d_max + 1 if cost else window.slots.by_workers.shape[1]
        self.shape = (window.S, width)

    def __getitem__(self, k: int) -> np.ndarray:
        return self._window.row(int(k), self._cost)


@dataclass(frozen=True)
class BestSchedule:
    """Output of Algorithm 2: payoff, completion slot, chunk-passes and placements per slot."""

    payoff: float
    completion: int | None
    cost: float
    chunks: dict[int, int] = field(default_factory=dict)
    placements: dict[int, Placement] = field(default_factory=dict)
    costs_by_completion: np.ndarray | None = None


def best_schedule(
    spec: JobSpec,
    T: int,
    capacity_w: np.ndarray,
    capacity_p: np.ndarray,
    used_w: np.ndarray,
    used_p: np.ndarray,
    price_w: np.ndarray,
    price_p: np.ndarray,
    worker_servers: np.ndarray,
    ps_servers: np.ndarray,
    demand_w: np.ndarray,
    demand_p: np.ndarray,
    method: str = "auto",
    prune: bool = True,
) -> BestSchedule:
    r"""Algorithm 2: the schedule maximizing (27) for job ``spec`` and its payoff :math:`\mu_i`.

    Parameters
    ----------
    spec : JobSpec
        The job (an :class:`OasisModel` job).
    T : int
        Horizon (slots ``0..T-1``).
    capacity_w, capacity_p : numpy.ndarray
        Capacities of worker servers (H, R) and PS servers (K, R).
    used_w, used_p : numpy.ndarray
        Allocated amounts :math:`g_h^r(t)`, :math:`v_k^r(t)`: (T, H, R) and (T, K, R).
    price_w, price_p : numpy.ndarray
        Current prices :math:`p_h^r(t)`, :math:`q_k^r(t)`, same shapes. :meth:`OASiS.search`
        passes a compact pool's two tables as views of its :class:`_Cells` instead.
    worker_servers, ps_servers : numpy.ndarray
        Cluster indices of the H worker and K PS servers (for the returned placements).
    demand_w, demand_p : numpy.ndarray
        :math:`w_i^r`, :math:`s_i^r`.
    method : {"auto", "exact", "frontier"}
        How DP_COST is evaluated. ``"exact"``: the bottom-up DP over chunk-passes, ``d'`` from 0
        to ``d_max`` per slot; it reproduces the literal recursion's schedule, tie-breaks included,
        and costs O(S D d_max). ``"frontier"``: the same minimum cost through the Pareto frontier of
        (chunk-passes covered, cost) over worker counts ``W = 0..N_i`` per slot, O(S F N_i) for a
        frontier of F points; used when chunks are short against a slot (``d_max`` in the
        thousands); among equal-cost schedules it may pick another one than the literal
        recursion. ``"auto"`` picks exact when S D d_max <= 2e6.
    prune : bool, default True
        Skip work that cannot change the answer: stop enumerating completion slots once
        :math:`f_i(\hat t_i - a_i)` is no more than the best payoff found (``f`` is non-increasing and
        costs are >= 0), and drop partial schedules whose cost already reaches
        :math:`f_i(t - a_i)` minus the best payoff (costs only grow). The returned schedule is the
        same; ``costs_by_completion`` then holds NaN for slots not evaluated (checks use
        ``prune=False``).

    Returns
    -------
    BestSchedule
        ``payoff`` 0 and ``completion`` None when no schedule has positive payoff.
    """
    model = _check_oasis_job(spec)
    a = spec.arrival
    D = model.epochs * model.chunks
    S = T - a
    if S <= 0:
        return BestSchedule(0.0, None, INF)
    pools = (capacity_w, used_w, price_w, demand_w), (capacity_p, used_p, price_p, demand_p)
    window = _Window(model, a, S, *pools)
    dmax = window.d_max
    if dmax == 0 or dmax * S < D:
        return BestSchedule(0.0, None, INF)
    if method not in ("auto", "exact", "frontier"):
        raise ValueError(f"method must be 'auto', 'exact' or 'frontier', got {method!r}")
    exact = method == "exact" or (method == "auto" and S * (D + 1) * (dmax + 1) <= EXACT_BUDGET)
    track = _Tracker(np.asarray(spec.utility(np.arange(S)), dtype=float), prune)
    if exact:
        choices, lo_list = _dp(_Rows(window, cost=True), D, dmax, track)
    else:
        back = _frontier(_Rows(window, cost=False), window.chunks_of, D, track)
    totals, best_mu, best_k = track.totals, track.best_mu, track.best_k
    if best_k is None:
        return BestSchedule(0.0, None, INF, costs_by_completion=totals)
    if exact:
        chunks = _backtrack(choices, lo_list, best_k, D)
    else:
        chunks = _frontier_chunks(back, best_k, window.chunks_of, D)
    slots = window.slots  # every slot of the schedule is <= best_k, so already computed
    placements = {}
    for k, d in chunks.items():
        W = int(workers_needed(d, model))
        Z = int(ps_needed(W, model))
        y = _fill(slots.w_order[k], slots.w_caps[k], W, worker_servers)
        z = _fill(slots.p_order[k], slots.p_caps[k], Z, ps_servers)
        placements[a + k] = Placement.of(y, z)
    return BestSchedule(
        best_mu, a + best_k, float(totals[best_k]), {a + k: d for k, d in chunks.items()}, placements, totals
    )


class _Tracker:
    """Algorithm 2 lines 2-8 run alongside the DP: payoff per completion slot, the best one
    (strict ``>``, so ties keep the earliest slot), and the exact pruning bounds."""

    def __init__(self, util: np.ndarray, prune: bool) -> None:
        self.util = util
        self.prune = prune
        self.totals = np.full(len(util), INF)
        self.best_mu = 0.0
        self.best_scale = 0.0  # max(|f|, cost) of the best payoff, for the tolerance of line 5
        self.best_k: int | None = None

    def stop(self, k: int) -> bool:
        """True when no completion at slot >= k can beat the best payoff (those slots' totals
        become NaN: not evaluated). Exact: a payoff of slot >= k is at most ``util[k]`` (f is
        non-increasing, costs >= 0), and :meth:`record` needs more than ``best_mu``."""
        if self.prune and self.util[k] <= self.best_mu:
            self.totals[k:] = np.nan
            return True
        return False

    def limit(self, k: int) -> float:
        """Partial schedules costing at least this cannot lead to a better payoff."""
        return self.util[k] - self.best_mu if self.prune else INF

    def record(self, k: int, total: float) -> None:
        self.totals[k] = total
        if not math.isfinite(total):
            return
        u = float(self.util[k])
        payoff = u - total
        scale = max(abs(u), abs(total))
        # Alg. 2 line 5 "mu_il > mu_i" (mu_i starts at 0, so this is also Alg. 1 line 4's
        # admission "mu_i > 0"): better by more than numerics.tolerance(max(|f|, cost) of both payoffs); a
        # payoff within it is a tie and the earlier completion slot (or rejection) stays
        if payoff > self.best_mu + numerics.tolerance(max(scale, self.best_scale)):
            self.best_mu, self.best_k, self.best_scale = float(payoff), k, scale


def _dp(cost: np.ndarray, D: int, dmax: int, track: _Tracker):
    """Bottom-up DP_COST over the window (App. B), keeping only reachable, useful states.

    Keeps per slot ``k`` the states ``d`` in ``lo[k]..hi[k]`` and the argmin ``d'`` of each; the
    cost of covering ``D`` by slot ``k`` goes to the tracker.
    """
    S = cost.shape[0]
    choices, los = [], []
    prev, plo = None, 0
    for k in range(S):
        if track.stop(k):
            break
        lo = max(0, D - (S - 1 - k) * dmax)  # must still reach D by the last slot
        hi = min(D, (k + 1) * dmax)
        if lo > hi:
            choices.append(None)
            los.append(lo)
            prev = None
            continue
        c = cost[k]
        n = hi - lo + 1
        new = np.full(n, INF)
        ch = np.zeros(n, dtype=np.int32)
        if prev is None:  # base case: cost(a, d) = cost_t(a, d)
            top = min(hi, dmax)
            if top >= lo:
                new[: top - lo + 1] = c[lo : top + 1]
                ch[: top - lo + 1] = np.arange(lo, top + 1)
        else:
            phi = plo + len(prev) - 1
            spans = []  # (d', its cost, first state, last state) of the finite options
            for dp in range(0, dmax + 1):
                cd = c[dp]
                if not math.isfinite(cd):
                    continue
                d0 = max(lo, plo + dp)  # states d with d - dp in [plo, phi] and d in [lo, hi]
                d1 = min(hi, phi + dp)
                if d0 <= d1:
                    spans.append((dp, cd, d0, d1))
            # line 15 "min_cost > cost_t + cost" with the tolerance _tol: pass 1 takes the minimum
            # over d', pass 2 keeps the smallest d' within REL_TOL of it (exact ties: the paper's
            # strict '>' over ascending d keeps the first) and its own cost
            least = np.full(n, INF)
            for dp, cd, d0, d1 in spans:
                tgt = least[d0 - lo : d1 - lo + 1]
                np.minimum(tgt, prev[d0 - dp - plo : d1 - dp - plo + 1] + cd, out=tgt)
            thr = least + _tol(least)
            todo = np.isfinite(least)
            for dp, cd, d0, d1 in spans:
                if not todo.any():
                    break
                cand = prev[d0 - dp - plo : d1 - dp - plo + 1] + cd
                sl = slice(d0 - lo, d1 - lo + 1)
                hit = todo[sl] & (cand <= thr[sl])
                if hit.any():
                    new[sl][hit] = cand[hit]
                    ch[sl][hit] = dp
                    todo[sl][hit] = False
        if hi == D:
            track.record(k, float(new[-1]))
        new[new >= track.limit(k)] = INF
        choices.append(ch)
        los.append(lo)
        prev, plo = new, lo
    return choices, los


def _frontier(by_workers: np.ndarray, chunks_of: np.ndarray, D: int, track: _Tracker):
    """DP_COST through Pareto frontiers of (chunk-passes covered, cost), slot by slot.

    ``F_k(x)`` = least cost of covering at least ``x`` chunk-passes in slots ``0..k``; it equals
    the exact-composition minimum of App. B because COST_t is non-decreasing in ``d`` (a cover
    of more than ``D`` can be trimmed to exactly ``D`` at no extra cost). A slot's options are the
    worker counts ``W`` with a finite cost, each covering ``chunks_of[W]`` (capped at ``D``);
    only the cheapest ``W`` per coverage is kept, and points that cannot reach ``D`` in the slots
    left or cannot lead to a better payoff are dropped.

    While the frontier is small it is kept as sorted points (sparse); once a step would combine
    more than :data:`DENSE_SWITCH` candidates, ``F`` becomes a dense array over ``x = 0..D`` and
    each option is one vectorized shifted minimum. Costs of covering ``D`` go to the tracker;
    returns per-slot back-pointers for :func:`_frontier_chunks`.
    """
    S = by_workers.shape[0]
    x = np.zeros(1, dtype=np.int64)
    c = np.zeros(1)
    dense: np.ndarray | None = None
    back: list[tuple] = []
    cover = np.minimum(chunks_of, D)
    cmax = int(cover[-1])
    # A slot's options are the first W of each coverage among its finite W. Usually the finite W
    # are a prefix 0..n-1 (costs grow with W and infeasibility is monotone) and coverage is
    # non-decreasing in W: then the options are a prefix of one list computed once per job, the
    # same as the per-slot np.unique below (so the test is made slot by slot: either way gives
    # the same options).
    monotone = bool(np.all(cover[1:] >= cover[:-1]))
    if monotone:
        w_first = np.flatnonzero(np.r_[True, cover[1:] != cover[:-1]])
        k_first = cover[w_first]
    # A frontier of one point (x0, c0) whose options covering something all cost at least the
    # limit (the slot's least such cost bounds them from below; float addition is monotone) only
    # keeps itself through W = 0 (cost exactly 0, coverage 0): the step is done without array
    # work. Common when the cluster is full and the job is about to be rejected. Tested slot by
    # slot, as the rows are read (best_schedule computes them lazily, :class:`_Window`): where it
    # holds, the step gives what the array path below gives (the same back-pointer and record).
    covers = cover > 0
    zero = np.zeros(1, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    for k in range(S):
        if track.stop(k) or (dense is None and len(x) == 0):
            break
        h = by_workers[k]
        idle = bool(cover[0] == 0 and h[0] == 0.0 and np.all(h >= 0.0))
        if idle and dense is None and len(x) == 1 and np.min(h[covers], initial=INF) + c[0] >= track.limit(k):
            if c[0] < track.limit(k) and x[0] >= D - (S - 1 - k) * cmax:
                back.append(("sparse", zero, zero, x))
                track.record(k, float(c[0]) if x[0] == D else INF)
            else:
                x, c = empty, np.zeros(0)
                back.append(("sparse", empty, empty, x))
                track.record(k, INF)
            continue
        finite = np.isfinite(h)
        n_finite = int(finite.sum())
        prefix = monotone and bool(finite[:n_finite].all()) and not finite[n_finite:].any()
        if prefix:
            n_opts = int(np.searchsorted(w_first, n_finite))
            Wopt = w_first[:n_opts]
            kk, hopt = k_first[:n_opts], h[Wopt]
        else:
            Wok = np.flatnonzero(np.isfinite(h))
            kk, first = np.unique(cover[Wok], return_index=True)  # smallest W per coverage
            Wopt, hopt = Wok[first], h[Wok[first]]
        if dense is None and len(x) * len(Wopt) > DENSE_SWITCH:
            idx = np.searchsorted(x, np.arange(D + 1), side="left")
            dense = np.where(idx < len(x), c[np.minimum(idx, len(x) - 1)], INF)
        if dense is not None:
            new = np.full(D + 1, INF)
            # Only coverages lo..hi can matter: below lo, D is out of reach in the slots left
            # (the next slot reads F(x - kw) only for x >= lo + cmax); above hi, nothing covers
            # that much by slot k (F = INF). Below lo, F takes F(lo), which keeps it monotone.
            lo = max(0, D - (S - 1 - k) * cmax)
            hi = min(D, (k + 1) * cmax)
            # F is INF from coverage n_f on (pruned states), so option kw only reaches x < n_f + kw;
            # the INF sums it would give above are skipped (they never lower the minimum)
            fin_rev = np.isfinite(dense[::-1])
            n_f = D + 1 - int(fin_rev.argmax()) if fin_rev.any() else 0
            if lo <= hi and n_f > 0:
                window = new[lo : hi + 1]
                cand = np.empty(hi - lo + 1)
                for kw, hw in zip(kk.tolist(), hopt.tolist(), strict=True):
                    n = min(hi, n_f - 1 + kw) - lo + 1  # coverages lo..lo+n-1 can be finite
                    if n <= 0:
                        continue
                    cut = min(n, max(0, kw - lo))  # coverages x < kw: this slot alone
                    cand[:cut] = dense[0] + hw
                    np.add(dense[lo + cut - kw : lo + n - kw], hw, out=cand[cut:n])
                    np.minimum(window[:n], cand[:n], out=window[:n])
            if lo <= hi:
                new[:lo] = new[lo]
            record = float(new[D])
            new[new >= track.limit(k)] = INF
            # back-pointers are recovered for the few visited states only (_frontier_chunks)
            back.append(("dense", dense, Wopt, kk, hopt, new,
                         None if back and back[-1][0] == "dense" else x))
            dense = new
            track.record(k, record)
            continue
        m = len(x)
        # candidates laid out option-major (W ascending, then point index), so that "first in
        # layout order" is the tie-break: fewest workers in this slot (as the exact DP); a
        # candidate's flat position i is option i // m, point i % m
        X = np.minimum(D, kk[:, None] + x[None, :]).ravel()
        C = (hopt[:, None] + c[None, :]).ravel()
        pos = np.flatnonzero((C < track.limit(k)) & (X >= D - (S - 1 - k) * cmax))
        X, C = X[pos], C[pos]
        # per coverage X the least cost, first in layout order: a scatter-min, then the first hit
        # within the tolerance _tol of it (line 15's argmin; the hit keeps its own cost)
        least = np.full(D + 1, INF)
        np.minimum.at(least, X, C)
        if len(X) > D + 1:  # the threshold per coverage, then gathered: the same floats per X
            hit = np.flatnonzero(C <= (least + _tol(least))[X])
        else:
            lx = least[X]
            hit = np.flatnonzero(C <= lx + _tol(lx))
        # X ascending, first occurrence of each (as np.unique(X[hit], return_index=True)): per
        # coverage the smallest hit position (a scatter-min), read out in coverage order
        first = np.full(D + 1, len(X))
        np.minimum.at(first, X[hit], hit)
        sel = first[first < len(X)]
        X, C, flat = X[sel], C[sel], pos[sel]
        keep = np.ones(len(C), dtype=bool)
        if len(C) > 1:
            suffix = np.minimum.accumulate(C[::-1])[::-1]
            # a point survives only if cheaper by more than _tol than every point covering more
            # (within it: a tie, the larger coverage serves, as for exactly equal costs)
            keep[:-1] = C[:-1] < suffix[1:] - _tol(suffix[1:])
        x, c, flat = X[keep], C[keep], flat[keep]
        back.append(("sparse", flat % m, Wopt[flat // m], x))
        track.record(k, float(c[-1]) if len(x) and x[-1] == D else INF)
    return back


def _frontier_chunks(back, k_end: int, chunks_of: np.ndarray, D: int) -> dict[int, int]:
    """Worker counts from the frontier's back-pointers, turned into chunk-passes per slot summing
    to exactly ``D`` (the surplus trimmed from the earliest slots, which never raises the cost)."""
    cover = np.minimum(chunks_of, D)
    W = {}
    pos = D if back[k_end][0] == "dense" else len(back[k_end][1]) - 1  # coverage or point index
    for k in range(k_end, -1, -1):
        entry = back[k]
        if entry[0] == "dense":
            _, prev, Wopt, kk, hopt, new, x_prev = entry
            # canonical state, as the sparse frontier: a state on a plateau of equal cost (within
            # _tol of its own) follows the plateau's last (largest-coverage) state
            pos = int(np.searchsorted(new, new[pos] + numerics.tolerance(new[pos]), side="right")) - 1
            # the option: the forward step's sums, the first (smallest W) within _tol of the minimum
            w = int(Wopt[_first_within(prev[np.maximum(pos - kk, 0)] + hopt)])
            W[k] = w
            pos = max(0, pos - int(cover[w]))  # coverage still needed before slot k
            if x_prev is not None:  # previous slot is sparse: first point covering >= pos
                pos = int(np.searchsorted(x_prev, pos, side="left"))
        else:
            _, P, Wi, _ = entry
            W[k] = int(Wi[pos])
            pos = int(P[pos])
    d = {k: int(chunks_of[w]) for k, w in sorted(W.items())}
    surplus = sum(d.values()) - D
    for k in sorted(d):
        cut = min(surplus, d[k])
        d[k] -= cut
        surplus -= cut
    return {k: v for k, v in d.items() if v > 0}


def _backtrack(choices, los, k_end: int, D: int) -> dict[int, int]:
    out = {}
    d = D
    for k in range(k_end, -1, -1):
        dp = int(choices[k][d - los[k]])
        if k == 0:
            dp = d
        if dp:
            out[k] = dp
        d -= dp
    return dict(sorted(out.items()))


def _fill(order: np.ndarray, caps: np.ndarray, n: int, servers: np.ndarray) -> dict[int, int]:
    """Lines 25-29 / 34-38: fill servers in sorted order up to their caps."""
    out = {}
    for j, c in zip(order, caps, strict=False):
        if n <= 0:
            break
        take = int(min(c, n))
        if take:
            out[int(servers[j])] = take
            n -= take
    return out


# ------------------------------------------------------------------------ literal transcription


def dp_cost_literal(
    spec: JobSpec,
    T_i: int,
    D_i: int,
    capacity_w,
    capacity_p,
    used_w,
    used_p,
    price_w,
    price_p,
    demand_w,
    demand_p,
):
    """The paper's recursive DP_COST (Alg. 2 lines 10-20) with COST_t (lines 21-44), transcribed
    literally with Python loops and the memoization the text describes. Reference for tests and
    benchmarks only: returns ``(cost, {slot: chunk-passes})`` for deadline slot ``T_i``.
    """
    model = _check_oasis_job(spec)
    a = spec.arrival
    wdem = np.asarray(demand_w, dtype=float)
    pdem = np.asarray(demand_p, dtype=float)
    memo_t: dict[tuple[int, int], float] = {}
    memo: dict[tuple[int, int], tuple[float, dict]] = {}

    def cost_t(t: int, d: int) -> float:
        if (t, d) in memo_t:
            return memo_t[(t, d)]
        H, K = capacity_w.shape[0], capacity_p.shape[0]
        y = [0] * H
        z = [0] * K
        key_w = unit_prices(price_w[t], wdem)  # line 23 (ties within _tol -> smaller h, as _greedy_cost)
        order = [int(h) for h in numerics.order(key_w)]
        Dw = int(workers_needed(d, model))  # line 24
        for j, h in enumerate(order):  # lines 25-29
            room = min(
                math.floor((capacity_w[h, r] - used_w[t, h, r]) / wdem[r] + _EPS)
                for r in range(len(wdem))
                if wdem[r] > 0
            )
            y[h] = max(0, min(room, model.chunks - sum(y[hh] for hh in order[:j]), Dw))
            Dw -= y[h]
        if Dw > 0:  # lines 30-32
            memo_t[(t, d)] = INF
            return INF
        key_p = unit_prices(price_p[t], pdem)  # line 33 (ties within _tol -> smaller k)
        orderp = [int(k) for k in numerics.order(key_p)]
        Y = sum(y)
        for j, k in enumerate(orderp):  # lines 34-38
            room = min(
                math.floor((capacity_p[k, r] - used_p[t, k, r]) / pdem[r] + _EPS)
                for r in range(len(pdem))
                if pdem[r] > 0
            )
            placed = sum(z[kk] for kk in orderp[:j])
            z[k] = max(0, min(room, int(ps_needed(Y, model)) - placed, Y - placed))
        if sum(z) < (model.worker_bw / model.ps_bw) * Y - _EPS:  # lines 39-41 (_EPS: integer slack)
            memo_t[(t, d)] = INF
            return INF
        c = 0.0  # line 42, in sorted order
        for h in order:
            c = c + key_w[h] * y[h]
        cz = 0.0
        for k in orderp:
            cz = cz + key_p[k] * z[k]
        memo_t[(t, d)] = 0.0 if d == 0 else c + cz
        return memo_t[(t, d)]

    def dp(Ti: int, Di: int):
        if Ti < a:  # base case (note 1)
            return (0.0, {}) if Di == 0 else (INF, {})
        if (Ti, Di) in memo:
            return memo[(Ti, Di)]
        cands = []
        for d in range(Di + 1):  # lines 12-18
            ct = cost_t(Ti, d)
            c, l_prev = dp(Ti - 1, Di - d)
            cands.append((ct + c, l_prev))
        # line 15 "min_cost > cost_t + cost" with the tolerance _tol: the smallest d whose cost is
        # within REL_TOL of the minimum wins (exact ties: the paper's strict '>' keeps the first d)
        d = _first_within([cc for cc, _ in cands])
        min_cost, best = INF, {}
        if d is not None:
            min_cost, best = cands[d][0], dict(cands[d][1])
            if d:
                best[Ti] = d
        memo[(Ti, Di)] = (min_cost, best)
        return memo[(Ti, Di)]

    return dp(T_i, D_i)


class _PriceMass(PriceMass):
    r""":class:`~dlsched.core.pricing.PriceMass` (a price sum of the dual (19)) of one pool's price
    table: a C-contiguous float64 (T, servers, R) array, or a compact :class:`_Cells`, whose flat
    price values are its prices at zero usage with the live cells' written over them (the values
    of :meth:`_Cells.block`'s full table: the sum has the bits of
    ``np.sum(cells.block("price") * cap[None])``). Other tables are summed afresh."""

    def accepts(self, price) -> bool:
        return isinstance(price, _Cells) or super().accepts(price)

    def prepare(self) -> None:
        if isinstance(self.price, _Cells):  # the prices at zero usage, tiled over the slots
            self.base_tiled = self.tiled(self.price.base["price"])

    def flat_prices(self, lo: int, hi: int) -> np.ndarray:
        cells = self.price
        if not isinstance(cells, _Cells):
            return super().flat_prices(lo, hi)
        slot = self.slot
        off = lo % slot
        prices = self.base_tiled[off : off + hi - lo].copy()
        live, tab = cells.live, cells.tables["price"]
        for t in range(lo // slot, (hi - 1) // slot + 1):  # the live cells of the range's slots
            first, end = max(lo, t * slot) - t * slot, min(hi, (t + 1) * slot) - t * slot
            j0, j1 = np.searchsorted(live, (first, end))
            prices[t * slot - lo + live[j0:j1]] = tab[t, j0:j1]
        return prices

    def dense(self) -> np.ndarray:
        return self.price.block("price") if isinstance(self.price, _Cells) else super().dense()


# ------------------------------------------------------------------------------- Algorithm 1


class OASiS(BasePolicy):
    """Algorithm 1: online admission with irrevocable schedules and exponential prices.

    Parameters
    ----------
    prices : PriceParameters
        ``U``, ``L`` (estimates "based on past experience"; :func:`price_parameters` computes the
        true values of a workload, :meth:`from_workload` builds the policy from them).
    u_scale : float, default 1
        Multiply the ``U`` estimates (Fig. 6's mis-estimation study).
    max_log_ratio : float or None, default None
        **Not in the paper.** If given, cap :math:`\\ln(U/L)` at this value by raising ``L``
        (:meth:`PriceParameters.capped`, applied after ``u_scale``); None keeps (23)-(26).
    l_scale : float, default 1
        Multiply the ``L`` estimates (:meth:`PriceParameters.scaled`): Fig. 6's mis-estimation
        of :math:`U/L` read as a change of ``L`` instead of ``U`` (spec 11.3: "how the ratio is
        perturbed (scale U or L) is not stated"); ``U/L`` scales by ``1/l_scale``. Applied with
        ``u_scale``, before ``max_log_ratio``.
    l_utility, l_jobs, l_statistic : str, defaults "horizon", "all", "min"
        Which definition of ``L`` (25)-(26) :meth:`from_workload` computes (see
        :func:`price_parameters`, which documents each value and the line it reinterprets); the
        defaults are (25)-(26) as printed. With ``prices`` given directly they are only
        recorded: the prices are as given.
    record_prices : bool, default False
        Keep a snapshot of the price tables after each admission (notebook figures).
    method : {"auto", "exact", "frontier"}, default "auto"
        How DP_COST is evaluated (see :func:`best_schedule`).

    Notes
    -----
    Per-job results recorded in the job table: ``payoff`` (:math:`\\mu_i`), ``planned_completion``
    (:math:`\\hat t_i` of the chosen schedule). Decision times are kept in
    :attr:`decision_seconds` (not in the tables, which must be deterministic).

    The usage and price tables :attr:`g`, :attr:`v`, :attr:`p`, :attr:`q` (T, servers, R) of a
    pool whose servers each have few of the cluster's resources (the Philly trace's virtual
    clusters) are kept compact, at the cells with a capacity only (:class:`_Cells`,
    :data:`COMPACT_MIN`); reading such a table then gives a read-only full copy, and assigning one
    keeps that pool in full tables from then on. The schedules are the same bit for bit.
    """

    name: ClassVar[str] = "oasis"

    def __init__(
        self,
        prices: PriceParameters | None = None,
        u_scale: float = 1.0,
        record_prices: bool = False,
        method: str = "auto",
        max_log_ratio: float | None = None,
        l_scale: float = 1.0,
        l_utility: str = "horizon",
        l_jobs: str = "all",
        l_statistic: str = "min",
    ):
        if prices is not None and not isinstance(prices, PriceParameters):
            raise TypeError(f"oasis.prices must be PriceParameters, got {type(prices).__name__}")
        if not isinstance(u_scale, (int, float)) or not math.isfinite(u_scale) or u_scale <= 0:
            raise ValueError(f"oasis.u_scale must be a finite number > 0, got {u_scale!r}")
        self.prices = prices
        self.u_scale = float(u_scale)
        if max_log_ratio is not None and (
            isinstance(max_log_ratio, bool) or not isinstance(max_log_ratio, (int, float))
            or not math.isfinite(max_log_ratio) or max_log_ratio <= 0
        ):
            raise ValueError(
                f"oasis.max_log_ratio must be None or a finite number > 0, got {max_log_ratio!r}"
            )
        self.max_log_ratio = None if max_log_ratio is None else float(max_log_ratio)
        if not isinstance(record_prices, bool):
            raise ValueError(f"oasis.record_prices must be a bool, got {record_prices!r}")
        self.record_prices = record_prices
        if method not in ("auto", "exact", "frontier"):
            raise ValueError(f"oasis.method must be 'auto', 'exact' or 'frontier', got {method!r}")
        self.method = method
        bad = isinstance(l_scale, bool) or not isinstance(l_scale, (int, float))
        if bad or not math.isfinite(l_scale) or l_scale <= 0:
            raise ValueError(f"oasis.l_scale must be a finite number > 0, got {l_scale!r}")
        self.l_scale = float(l_scale)
        self.l_utility = _l_choice(l_utility, "oasis.l_utility", L_UTILITY)
        self.l_jobs = _l_choice(l_jobs, "oasis.l_jobs", L_JOBS)
        self.l_statistic = _l_choice(l_statistic, "oasis.l_statistic", L_STATISTIC)

    @classmethod
    def from_workload(cls, workload: Workload, **params) -> OASiS:
        """OASiS with the workload's true price parameters (23)-(26) (the paper's setting).

        ``params`` are the constructor's; ``l_utility``, ``l_jobs`` and ``l_statistic`` select
        the definition of ``L`` (:func:`price_parameters`; the defaults are (25)-(26)).

        Raises
        ------
        ValueError
            As :func:`price_parameters` and the constructor (a bad value names the parameter).
        """
        self = cls(None, **params)
        self.prices = price_parameters(
            workload, l_utility=self.l_utility, l_jobs=self.l_jobs, l_statistic=self.l_statistic
        )
        return self

    def reset(self, cluster: Cluster, rng) -> None:
        super().reset(cluster, rng)
        if self.prices is None:
            raise ValueError(
                "OASiS needs price parameters: OASiS(price_parameters(workload)) or "
                "OASiS.from_workload(workload)"
            )
        self._wsrv = cluster.servers_for("worker")
        self._psrv = cluster.servers_for("ps")
        if len(self._wsrv) == 0 or len(self._psrv) == 0:
            raise ValueError("OASiS needs a cluster with worker and PS servers (Cluster.two_pools)")
        self._params = self.prices.scaled(self.u_scale, self.l_scale)
        if self.max_log_ratio is not None:
            self._params = self._params.capped(self.max_log_ratio)
        self._cw = cluster.capacity[self._wsrv]
        self._cp = cluster.capacity[self._psrv]
        self._T: int | None = None
        self.plans: dict[int, dict[int, Placement]] = {}
        self.payoffs: dict[int, float] = {}
        self.decision_seconds: dict[int, float] = {}
        self.history: list[dict[str, float]] = []
        self.price_snapshots: list[np.ndarray] = []
        self._masses: dict[str, _PriceMass] = {}  # price sums of (19) for _dual_now
        self._tables: dict[str, np.ndarray] = {}  # g, v, p, q of the pools kept in full
        self._cells: list[_Cells | None] = [None, None]  # workers, PS: the pool's compact tables
        self._views: dict[str, np.ndarray] = {}  # read-only full copies of compact tables, until a commit

    # g (v): usage g_h^r(t) of the worker (PS) servers and p (q) their prices (22), (T, servers, R)
    _NAMES: ClassVar[dict[str, tuple[int, str]]] = {"g": (0, "used"), "p": (0, "price"), "v": (1, "used"),
                                                    "q": (1, "price")}

    def _table(self, name: str) -> np.ndarray:
        """Table ``name`` in full: the array itself, or, for a compact pool (:class:`_Cells`), a
        read-only copy rebuilt once per commit (checks and notebooks; the simulation never asks)."""
        pool, key = self._NAMES[name]
        cells = self.__dict__.get("_cells", (None, None))[pool]
        if cells is None:
            try:
                return self.__dict__["_tables"][name]
            except KeyError:
                raise AttributeError(name) from None
        view = self._views.get(name)
        if view is None:
            view = self._views[name] = cells.block(key)
            view.flags.writeable = False
        return view

    def _set_table(self, name: str, value: np.ndarray) -> None:
        self._expand(self._NAMES[name][0])
        self._tables[name] = value

    g = property(lambda self: self._table("g"), lambda self, value: self._set_table("g", value),
                 doc=":math:`g_h^r(t)`, (T, H, R).")
    v = property(lambda self: self._table("v"), lambda self, value: self._set_table("v", value),
                 doc=":math:`v_k^r(t)`, (T, K, R).")
    p = property(lambda self: self._table("p"), lambda self, value: self._set_table("p", value),
                 doc=":math:`p_h^r(t)` (22), (T, H, R).")
    q = property(lambda self: self._table("q"), lambda self, value: self._set_table("q", value),
                 doc=":math:`q_k^r(t)` (22), (T, K, R).")

    def _expand(self, pool: int) -> None:
        """Keep pool ``pool`` (0 workers, 1 PS) in full tables from now on."""
        cells = self._cells[pool]
        if cells is None:
            return
        used, price = ("g", "p") if pool == 0 else ("v", "q")
        self._tables[used], self._tables[price] = cells.block("used"), cells.block("price")
        self._cells[pool] = None
        self._views.pop(used, None)
        self._views.pop(price, None)

    def _pool_tables(self, pool: int) -> tuple:
        """(usage, prices) of pool ``pool`` as :func:`best_schedule` reads them."""
        cells = self._cells[pool]
        if cells is not None:
            return _CellsView(cells, "used"), _CellsView(cells, "price")
        return (self._tables["g"], self._tables["p"]) if pool == 0 else (self._tables["v"], self._tables["q"])

    def _price_source(self, pool: int):
        """What :class:`_PriceMass` sums for pool ``pool``: its price array or its :class:`_Cells`."""
        cells = self._cells[pool]
        if cells is not None:
            return cells
        return self._tables["p" if pool == 0 else "q"]

    def _init_horizon(self, T: int) -> None:
        R = len(self.cluster.resources)
        self._T = T
        self._tables, self._cells, self._views = {}, [None, None], {}
        pools = (("g", "p", self._cw, self._params.worker_price), ("v", "q", self._cp, self._params.ps_price))
        for pool, (used, price, cap, price_of) in enumerate(pools):
            # (22) at zero usage: every slot has the prices of the first, computed once and copied
            # (the price of a cell depends on its own usage and capacity only, element by element)
            first = price_of(np.zeros((1, len(cap), R)), cap[None])
            live = int(np.count_nonzero(cap > 0))
            if T * cap.size >= COMPACT_MIN and 0 < 2 * live <= cap.size:
                self._cells[pool] = _Cells(T, cap, first[0])
            else:
                self._tables[used] = np.zeros((T, len(cap), R))
                self._tables[price] = np.repeat(first, T, axis=0)

    def prepare(self, cluster: Cluster, T: int, rng=None) -> OASiS:
        """Reset and size the price tables for horizon ``T`` outside a simulation (checks,
        notebooks); returns self."""
        self.reset(cluster, rng if rng is not None else np.random.default_rng(0))
        self._init_horizon(int(T))
        return self

    def preload(self, fraction: float) -> OASiS:
        """Fill every server to ``fraction`` of its capacity in every slot, as if earlier jobs held
        it, and re-price with (22) (the explore section of notebook 10); needs :meth:`prepare`
        first; returns self."""
        if self._T is None:
            raise ValueError("OASiS.preload: call prepare(cluster, T) first")
        ok = not isinstance(fraction, bool) and isinstance(fraction, (int, float))
        if not ok or not 0.0 <= fraction <= 1.0:
            raise ValueError(f"OASiS.preload: fraction must be in [0, 1], got {fraction!r}")
        self.g = np.broadcast_to(fraction * self._cw[None], (self._T,) + self._cw.shape).copy()
        self.v = np.broadcast_to(fraction * self._cp[None], (self._T,) + self._cp.shape).copy()
        self.p = self._params.worker_price(self.g, self._cw[None])
        self.q = self._params.ps_price(self.v, self._cp[None])
        return self

    def search(self, spec: JobSpec, prune: bool = True) -> BestSchedule:
        """Algorithm 2 for ``spec`` against the current prices, without committing anything
        (``prune=False`` evaluates every completion slot, for checks)."""
        c = self.cluster
        (g, p), (v, q) = self._pool_tables(0), self._pool_tables(1)
        return best_schedule(
            spec,
            self._T,
            self._cw,
            self._cp,
            g,
            v,
            p,
            q,
            self._wsrv,
            self._psrv,
            c.vector(spec.worker_demand),
            c.vector(spec.ps_demand),
            self.method,
            prune,
        )

    def state(self) -> dict[str, np.ndarray]:
        """Arrays of the current state: capacities, usage and prices (for checks)."""
        return {
            "capacity_w": self._cw,
            "capacity_p": self._cp,
            "used_w": self.g,
            "used_p": self.v,
            "price_w": self.p,
            "price_p": self.q,
        }

    def mean_log_price(self) -> np.ndarray:
        r"""Per slot, the mean over worker servers and resources of :math:`\ln p_h^r(t)`, computed
        from the allocations (exact even where the price itself underflows).

        With ``record_prices=True`` a snapshot is kept after every admission
        (:attr:`price_snapshots`), for drawing how prices rise as jobs arrive.
        """
        return np.mean(self._params.worker_price.log_price(self.g, self._cw[None]), axis=(1, 2))

    def dual_objective(self) -> float:
        r"""(19): :math:`\sum_i\mu_i + \sum_{t,h,r} p_h^r(t) c_h^r + \sum_{t,k,r} q_k^r(t) c_k^r`."""
        return float(
            sum(self.payoffs.values()) + np.sum(self.p * self._cw[None]) + np.sum(self.q * self._cp[None])
        )

    def _dual_now(self) -> float:
        """:meth:`dual_objective` during :meth:`decide`, bit for bit, with the two price sums kept
        by :class:`_PriceMass` (updated by :meth:`_commit`) instead of summed afresh twice per
        admission. Assumes, as the simulation does, that ``p``/``q`` change only in :meth:`_commit`
        (or are replaced, as by :meth:`prepare`/:meth:`preload`)."""
        masses = []
        for key, pool, cap in (("p", 0, self._cw), ("q", 1, self._cp)):
            price = self._price_source(pool)
            mass = self._masses.get(key)
            if mass is None or mass.price is not price:
                mass = self._masses[key] = _PriceMass(price, cap)
            masses.append(mass.total())
        return float(sum(self.payoffs.values()) + masses[0] + masses[1])

    def decide(self, t: int, view: ClusterView) -> Decision:
        if self._T is None:
            if view.horizon is None:
                raise ValueError("OASiS needs a horizon T (Workload.horizon or simulate(horizon=))")
            self._init_horizon(view.horizon)
        admit, reject, info = [], [], {}
        cluster = view.cluster
        for v in view.pending():  # line 2: upon arrival
            spec = v.spec
            start = time.perf_counter()
            wd, pdem = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
            best = self.search(spec)  # line 3 (reads the state, changes nothing)
            # line 4: mu_i > 0 with the tolerance, decided in _Tracker.record (payoff is 0 unless
            # it beat 0 by more than numerics.tolerance(max(|f|, cost)))
            if best.payoff > 0:
                admit.append(spec.job_id)  # line 5
                dual_before = self._dual_now()  # the state before the commit, as before search
                self._commit(spec.job_id, best, wd, pdem)  # lines 6-10
                self.payoffs[spec.job_id] = best.payoff
                utility = float(spec.utility(best.completion - spec.arrival))
                if self.record_prices:
                    self.price_snapshots.append(self.mean_log_price())
                self.history.append(
                    {"job": spec.job_id, "primal": utility, "dual": self._dual_now() - dual_before}
                )
            else:
                reject.append(spec.job_id)  # line 13
            self.decision_seconds[spec.job_id] = time.perf_counter() - start
            info[spec.job_id] = {
                "payoff": best.payoff,
                "planned_completion": best.completion if best.completion is not None else math.nan,
            }
        allocs = {j: plan[t] for j, plan in self.plans.items() if t in plan and j in view.jobs}
        allocs.update({j: self.plans[j][t] for j in admit if t in self.plans[j]})
        future = [s for j, plan in self.plans.items() if j in view.jobs or j in admit for s in plan if s > t]
        return Decision(allocs, admit=admit, reject=reject, wakeup=min(future) if future else None, info=info)

    def _commit(self, j: int, best: BestSchedule, wd: np.ndarray, pdem: np.ndarray) -> None:
        self.plans[j] = dict(best.placements)
        wpos = {int(s): i for i, s in enumerate(self._wsrv)}
        ppos = {int(s): i for i, s in enumerate(self._psrv)}
        tables = (
            (0, self._cw, wpos, wd, self._params.worker_price, "workers"),  # lines 7-8
            (1, self._cp, ppos, pdem, self._params.ps_price, "ps"),  # lines 9-10
        )
        for pool, cap, pos, dem, price_of, role in tables:
            # all (slot, server) cells of the schedule at once: each appears once, and every
            # operation is elementwise, so the floats are those of the cell-by-cell update
            cells = [(t, pos[s], c) for t, p in best.placements.items() for s, c in getattr(p, role)]
            if not cells:
                continue
            ts, hs, cs = (np.array(col) for col in zip(*cells, strict=True))
            compact = self._cells[pool]
            if compact is None:
                used, price = self._pool_tables(pool)
                used[ts, hs] += cs[:, None] * dem
                price[ts, hs] = price_of(used[ts, hs], cap[hs])
            else:  # the same operations on the same full rows, then stored back
                used = compact.rows_at("used", ts, hs)
                used += cs[:, None] * dem
                price = price_of(used, cap[hs])
                names = ("g", "p") if pool == 0 else ("v", "q")
                for name in names:
                    self._views.pop(name, None)
                if not compact.put(ts, hs, used, price):  # a cell that is not live changes
                    self._expand(pool)
                    self._tables[names[0]][ts, hs] = used
                    self._tables[names[1]][ts, hs] = price
            mass = self._masses.get("p" if role == "workers" else "q")
            if mass is not None and mass.price is self._price_source(pool):
                mass.update(ts, hs)
