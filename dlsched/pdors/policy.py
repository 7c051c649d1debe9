r"""PD-ORS Algorithms 1-4 with the price function (12)-(14).

Algorithm 1 (steps 1-4): on the arrival of job ``i`` find the schedule maximising the right-hand
side of (11) and its payoff :math:`\lambda_i` with Algorithm 2 (step 2); admit iff
:math:`\lambda_i > 0` (step 3), fix the schedule and raise the prices
:math:`p_h^r[t] = Q_h^r(\rho_h^r[t])` of every (machine, resource, slot) it uses; otherwise
reject (step 4).

Algorithm 2 (steps 1-3): for every completion slot :math:`\tilde t_i = a_i..T` compute
:math:`\Theta(\tilde t_i, V_i)` (21) with Algorithm 3 and keep the schedule of the largest
:math:`u_i(\tilde t_i - a_i) - \Theta` (strict ``>`` beyond the tie tolerance: ties keep the
earliest slot, see "Floating point and ties" below).

Algorithm 3 (steps 1-5): the DP (21) over the samples trained per slot. **Quantised** (spec
section 5 [N]; the paper enumerates single samples, :math:`V_i = E_iK_i` is :math:`10^6`-
:math:`10^8`): the workload is cut into units of ``q`` samples, ``q = ceil(V_i / levels)`` by
default (``unit="levels"``), or one BSP iteration ``q = F_i`` (``unit="iteration"``), or a given
number of samples (``unit=<int>``). The DP is evaluated bottom-up over slots (one table row per
slot, Algorithm 3's recursion unrolled), sharing :math:`\theta(t, v)` across completion slots.

Algorithm 4 (steps 1-12), :math:`\theta(t, v)` for ``v`` units in slot ``t``:

* internal (steps 2-7, Fact 1: every worker and PS on one machine, bandwidth :math:`b^{(i)}`):
  :math:`D = \lceil vq(\tau_i + 2g_i\gamma_i/(b^{(i)}F_i))\rceil` workers, ``s = ceil(D/gamma)``
  PS and ``w = gamma * s`` workers (integer rounding is ours, spec [N]; ``workers="demand"``:
  ``w = D``); machines sorted by
  :math:`\sum_r p_h^r[t](\alpha_i^r\gamma_i + \beta_i^r)` (ties within 1e-9 relative: by index); the first one
  where (4) ``w <= F`` and (24) hold;
* external (steps 8-11, bandwidth :math:`b^{(e)}`): the LP relaxation of (23)-(26) plus the
  coupling (26') :math:`\sum_h s_h \ge \sum_h w_h/\gamma_i` [R], solved with HiGHS
  (scipy's, given exactly what :func:`scipy.optimize.linprog` gives it: :func:`_solve_highs`);
  the fractional optimum scaled by :math:`G_\delta` (31R or 32R,
  **reconstructed, not the published formulas**) and rounded by (27)-(28); step 11 read as the
  spec recommends: ``trials`` (S) samples, the cheapest feasible one kept, up to ``10 S`` samples
  when none is feasible, else no external schedule;
* step 12: the cheaper of the two (ties within 1e-9 relative: internal).

Exactness of the speed-ups (none changes the result):

* machines with identical prices and residual capacities form one LP variable pair whose capacity
  is the group's total; this LP has the same optimum as the per-machine LP (``k`` identical
  polytopes sum to ``k`` times one), and its solution is split evenly over the group's machines,
  which is an optimal per-machine solution;
* the LPs of all units ``v`` of one slot are solved as one block-diagonal LP (the blocks are
  independent, so each block's part is that level's optimum);
* slots whose prices and usage are identical (e.g. every untouched future slot) share their
  :math:`\theta(t,\cdot)`, computed once per decision;
* the LP goes to scipy's HiGHS directly (:func:`_solve_highs`: same model, same options, same
  status rules as ``linprog(method="highs")``, without linprog's Python-side overhead, a fresh
  solver per solve); the model of a block matrix, which depends on the job and the number of
  machine groups only, is converted for HiGHS once and handed over again with each solve's
  costs and row bounds (:class:`_LPBlock`, :class:`_LPModels`: every field as a new model's),
  and the rounding of step 11 skips the evaluation of levels no sample can make feasible while
  drawing the same random numbers, judging the samples from their entries rounded up
  (:meth:`SlotSolver.rounded`);
* step 12's tolerant comparisons (and the ``skip_dominated`` ones) are made only where the result
  is not already known: an infinite internal cost is greater than any finite cost
  (:meth:`PDORS.slot_theta`);
* the machine groups are found by hashing the rows instead of ``np.unique``'s sort (the same
  groups, rows and numbering), and each DP step (21) forms its candidates in one table
  (:func:`_dp_step`: the same sums, exact minimum and tie window as the loop over ``v``, over the
  units a finite previous row reaches);
* the search's cache of :math:`\theta(t,\cdot)` is keyed by slot-state ids (:class:`_SlotStates`,
  interned by the slot's usage bytes when step 3 commits: equal ids exactly where the bytes the
  cache compared before are equal, so the same hits and misses) instead of hashing every slot's
  usage table at every DP step;
* Algorithm 4's internal case tests (24) over the resources the job demands: a resource it does
  not demand needs :math:`0 \cdot w + 0 \cdot s = 0` units for every ``v``, a test made once per
  machine (:meth:`SlotSolver.internal`);
* step 1's prices :math:`Q(0)` are computed for one slot and repeated over the horizon, and a
  commit (step 3) adds the usage of each role and prices its cells in one vectorised operation
  each (elementwise: the same IEEE operations per cell);
* the placements of a slot's levels are built when read (:class:`_LevelPlacements`): a search
  reads only those of the levels its DP backtrack picks.

Readings of the spec's [R]/[N] notes, all documented in :func:`price_parameters`: ``U`` uses
:math:`u_i(d_i^{min} - 1)` (slots are 0-based, a job completing in its arrival slot has duration
0); ``L`` uses :math:`u_i(T - 1 - a_i)`; :math:`1/\mu` takes its largest admissible value
:math:`\min(1, \cdot)`; resources no job demands get ``U = L``; initial prices ``L``.

Floating point and ties (issue 19)
----------------------------------
Every discrete choice below that compares computed floats treats two values within
``tol(a, b) = numerics.REL_TOL * max(|a|, |b|)`` (1e-9 relative,
:func:`dlsched.core.numerics.tolerance`) as equal and breaks the tie by the key in the last
column; values further apart are compared as before. **No** absolute floor (``numerics.ABS_TOL``
is 0): PD-ORS's costs are multiples of the prices, whose
floor ``L`` (14) is about 1e-9 at small scale and far smaller at ``T = 80``, so a 1e-12 floor would
tie costs that differ by 1e-3 relative.

===================================  ======================================================  ================
decision (spec line)                 rule (``tol`` = ``numerics.tolerance``)                  tie goes to
===================================  ======================================================  ================
Alg. 1 steps 3-4: admit job i        :math:`\lambda_i > tol(u_i, \Theta)`                    reject (step 4)
Alg. 2 step 2: completion slot       :math:`\lambda' > \lambda + tol(u, \Theta, \lambda)`    earlier slot
Alg. 3 step 4, (21): DP argmin       exact min over ``v``, then the first ``v`` with         smaller ``v``
                                     ``cand <= min + tol(min)``
Alg. 3 pruning (ours, speed only)    drop partial costs above                                result unchanged
                                     :math:`u_k - \lambda + 8S\,\mathrm{REL\_TOL}\,u_k`
Alg. 4 step 2: machine order         ascending key, runs within ``tol`` merged               smaller index
Alg. 4 step 11: cheapest sample      ``cost <= min + tol(min)``                              earlier draw
Alg. 4 step 12: internal/external    external only if ``c_int > c_ext + tol``                internal
``skip_dominated`` (ours, speed)     skip the LP / rounding only where step 12               result unchanged
                                     must pick internal under the rule above
===================================  ======================================================  ================

The explicit ``_EPS = 1e-9`` (absolute) stays where it guards integer-valued quantities: capacity
fits (24) of integer counts times demands, ``ceil``/``floor`` of worker counts, units and
durations (:func:`internal_counts`, :func:`quantum`, ``v_max``), the integrality threshold of
the rounding (27)-(28) and the LP's non-zero entries; (26) in step 11 keeps its ``1e-7`` slack
(HiGHS's feasibility tolerance).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from scipy.optimize._highspy import _core as _highs

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, PdorsModel, Workload
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.pricing import ExponentialPrice, PriceMass, log_bounds
from dlsched.core.schedule import Decision, Placement

_EPS = 1e-9  # absolute slack of fits / ceil / floor on integer-valued quantities (see the docstring)
INF = math.inf
G_DELTA_VARIANTS: tuple[str, ...] = ("31R", "32R")
"""Valid ``g_delta`` values: the reconstructed scaling factors (31R) and (32R) of the spec."""
UNITS: tuple[str, ...] = ("levels", "iteration")
"""Valid string values of ``unit`` (an int gives the samples per unit directly)."""
WORKER_READINGS: tuple[str, ...] = ("ratio", "demand")
"""Valid ``workers`` values: integer readings of step 3's worker count (:func:`internal_counts`)."""


# ------------------------------------------------------------------------- HiGHS, called directly


def _highs_options():
    """The HiGHS options :func:`scipy.optimize.linprog` (``method="highs"``, no solver options)
    passes: presolve on, dual simplex strategy, no output; every other option at its default."""
    opts = _highs.HighsOptions()
    opts.presolve = "on"
    opts.highs_debug_level = _highs.HighsDebugLevel.kHighsDebugLevelNone
    opts.log_to_console = False
    opts.output_flag = False
    opts.simplex_strategy = _highs.simplex_constants.SimplexStrategy.kSimplexStrategyDual
    return opts


_HIGHS_OPTIONS = _highs_options()
_CHECK_TOL = math.sqrt(1e-9) * 10  # linprog's _check_result tolerance (its default tol 1e-9)
_SCIPY_STATUS = {  # linprog's status of a HiGHS model status without a solution (others: 4)
    _highs.HighsModelStatus.kModelError: 2, _highs.HighsModelStatus.kInfeasible: 2,
    _highs.HighsModelStatus.kUnbounded: 3, _highs.HighsModelStatus.kTimeLimit: 1,
    _highs.HighsModelStatus.kIterationLimit: 1,
}


@dataclass(frozen=True)
class _LPResult:
    """The fields of :func:`scipy.optimize.linprog`'s result that :meth:`SlotSolver.lp` reads."""

    status: int
    x: np.ndarray | None = None
    fun: float | None = None


def _solve_highs(c: np.ndarray, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                 b_ub: np.ndarray) -> _LPResult:
    r""":math:`\min c^Tx` s.t. :math:`Ax \le b_{ub}`, :math:`x \ge 0` (``A`` in CSC: ``indptr``,
    ``indices`` ascending within each column, ``data``) with scipy's HiGHS, exactly as
    ``linprog(c, A_ub=A, b_ub=b_ub, bounds=(0, None), method="highs")`` runs it: the same model
    (row bounds :math:`(-\infty, b]`, column bounds :math:`[0, \infty)`, infinities as
    ``kHighsInf``), the same options (:func:`_highs_options`) and a fresh solver per call, so the
    answer is bit-identical. Only the status mapping and the feasibility check of linprog's result
    (``_check_result``: status 4 if the optimum violates a bound or row by more than
    ``sqrt(1e-9) * 10``) are kept; linprog's input cleaning, sparse conversions, option checks
    and the marginals it computes in Python (most of a small LP's time) are skipped.
    Status: 0 optimal, 2 infeasible, 3 unbounded, 1 limit reached, 4 other.
    """
    lp = _highs_lp(len(c), len(b_ub), indptr.tolist(), indices.tolist(), data.tolist())
    return _solve_highs_lp(lp, c, b_ub)


def _highs_lp(n: int, m: int, start: list, index: list, value: list) -> _highs.HighsLp:
    """The model of :func:`_solve_highs` with ``n`` columns, ``m`` rows and the CSC matrix given
    as lists of Python numbers (the values of ``indptr.tolist()``, ``indices.tolist()``,
    ``data.tolist()``), all but the costs and the row upper bounds, which
    :func:`_solve_highs_lp` sets per solve. HiGHS copies the model it is passed, so one such
    object serves every solve with this matrix (:class:`_LPModels` keeps them for
    :meth:`SlotSolver.lp`: the binding copies list fields element by element, and the matrix is
    most of a model's conversion)."""
    lp = _highs.HighsLp()
    lp.num_col_ = lp.a_matrix_.num_col_ = n
    lp.num_row_ = lp.a_matrix_.num_row_ = m
    lp.a_matrix_.format_ = _highs.MatrixFormat.kColwise
    # the same values as linprog's arrays; lists convert faster where the binding copies
    # element by element (every field but the cost)
    lp.col_lower_ = [0.0] * n
    lp.col_upper_ = [_highs.kHighsInf] * n
    lp.row_lower_ = [-_highs.kHighsInf] * m
    lp.a_matrix_.start_ = start
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    return lp


def _solve_highs_lp(lp: _highs.HighsLp, c: np.ndarray, b_ub: np.ndarray) -> _LPResult:
    """:func:`_solve_highs` of the model ``lp`` (:func:`_highs_lp`) with costs ``c`` and row upper
    bounds ``b_ub``, set here (overwriting a previous solve's): the same model, a fresh solver."""
    lp.col_cost_ = c  # the binding reads a float64 array directly
    # the binding copies this field element by element from any sequence: a memoryview yields
    # the same Python floats as tolist() without building the list
    lp.row_upper_ = memoryview(np.ascontiguousarray(b_ub, dtype=np.float64))
    highs = _highs._Highs()
    if highs.passOptions(_HIGHS_OPTIONS) == _highs.HighsStatus.kError:
        return _LPResult(4)
    if highs.passModel(lp) == _highs.HighsStatus.kError:
        return _LPResult(2)  # linprog: kModelError -> 2
    run_error = highs.run() == _highs.HighsStatus.kError
    model = highs.getModelStatus()
    if run_error or model != _highs.HighsModelStatus.kOptimal:  # no solution: linprog's status
        return _LPResult(_SCIPY_STATUS.get(model, 4))
    sol = highs.getSolution()
    col, row = sol.col_value, sol.row_value  # lists of floats
    x = np.fromiter(col, np.float64, len(col))  # = np.array(col), a little faster
    fun = highs.getInfo().objective_function_value
    slack = b_ub - np.fromiter(row, np.float64, len(row))
    # linprog's _check_result: optimal but a bound or row violated (or nan) -> 4; a nan fails
    # the ">=" tests, so they also cover linprog's separate nan checks of x and the slack
    if np.isnan(fun) or not (x >= -_CHECK_TOL).all() or not (slack >= -_CHECK_TOL).all():
        return _LPResult(4, x, fun)
    return _LPResult(0, x, fun)


# ------------------------------------------------------------------------------ price function


@dataclass(frozen=True, eq=False)
class PdorsPrices:
    r"""Parameters of the price function (12): :math:`\ln U^r` per resource, :math:`\ln L` and the
    scaling factor :math:`\mu` of (14), kept as logarithms (``L`` underflows like OASiS's)."""

    log_u: np.ndarray
    log_l: float
    mu: float = 1.0

    def __post_init__(self) -> None:
        mu = float(self.mu)
        if not math.isfinite(mu) or mu <= 0:
            raise ValueError(f"PdorsPrices.mu must be finite and > 0, got {self.mu!r}")
        object.__setattr__(self, "mu", mu)
        low, up = log_bounds(self.log_l, self.log_u, "PdorsPrices (log_l, log_u)")
        object.__setattr__(self, "log_l", low)
        object.__setattr__(self, "log_u", up)

    @property
    def price(self) -> ExponentialPrice:
        """:math:`Q_h^r` of (12)."""
        return ExponentialPrice(self.log_l, self.log_u)

    @property
    def upper(self) -> np.ndarray:
        """:math:`U^r` (13)."""
        return numerics.exp(self.log_u)

    @property
    def lower(self) -> float:
        """:math:`L` (14), 0.0 if it underflows."""
        return math.exp(self.log_l)

    @property
    def alpha(self) -> float:
        r""":math:`\alpha = \max_r(1, \ln(U^r/L))` (the OASiS-style ratio, spec section 6 [R])."""
        return float(max(1.0, np.max(self.log_u - self.log_l)))


def _job_model(spec: JobSpec) -> PdorsModel:
    if not isinstance(spec.model, PdorsModel):
        raise ValueError(f"job {spec.job_id}: PD-ORS needs a PdorsModel, got {spec.model.kind!r}")
    return spec.model


def sample_time(model: PdorsModel, internal: bool) -> float:
    r"""Per-sample time of one worker in (3) with ratio :math:`\gamma_i`:
    :math:`\tau_i + 2g_i\gamma_i/(bF_i)` slots, :math:`b = b^{(i)}` if ``internal``."""
    sync = model.sync_internal if internal else model.sync_external
    return model.tau + model.ratio * sync / model.batch


def min_duration(model: PdorsModel) -> int:
    r"""Shortest duration in slots, the argument of (13):
    :math:`\lceil E_iK_i/F_i\,(\tau_i + 2g_i\gamma_i/(b^{(i)}F_i))\rceil` (at least 1)."""
    return max(1, math.ceil(model.total_work / model.batch * sample_time(model, True) - _EPS))


def external_worker_slots(model: PdorsModel) -> int:
    r""":math:`\lceil E_iK_i(\tau_i + 2g_i\gamma_i/(b^{(e)}F_i))\rceil`, worker-slots of the job on
    external bandwidth (the denominator of (14))."""
    return max(1, math.ceil(model.total_work * sample_time(model, False) - _EPS))


def price_parameters(workload: Workload, *, horizon: int | None = None,
                     mu: float | None = None) -> PdorsPrices:
    r"""The price parameters (13)-(14) of a workload (PD-ORS's "estimated from past experience").

    * (13) :math:`U^r = \max_i u_i(d_i^{min} - 1)/(\alpha_i^r + \beta_i^r)` over jobs demanding
      ``r`` (:func:`min_duration`; the spec's [N] reading of the earliest completion with 0-based
      slots); ``U = L`` for a resource no job demands. **Floored at L** (ours, issue 21):
      :math:`U^r = \max(U^r, L)`. (13) and (14) do not guarantee :math:`U^r \ge L`: when every
      job demanding ``r`` has a small utility at its earliest finish -- e.g. a job whose earliest
      finish :math:`a_i + d_i^{min} - 1` is after ``T``, so that :math:`u_i(d_i^{min}-1)` is below
      its :math:`u_i(T-1-a_i)` of (14) -- (13) can fall below (14). With :math:`U < L` the price
      (12) :math:`Q(\rho) = L(U/L)^{\rho/C}` would *decrease* as usage rises (the more a
      machine is used, the cheaper it gets), which defeats the price function; the floor makes
      that resource's price constant at ``L`` instead (:class:`PdorsPrices` also rejects
      ``ln U < ln L``).
    * (14) :math:`L = \min_i \frac{1}{2\mu} u_i(T - 1 - a_i) / (W_i^e \sum_r(\alpha_i^r + \beta_i^r))`
      with :math:`W_i^e` = :func:`external_worker_slots` ([T]: the closing parenthesis restored).
    * :math:`1/\mu = \min(1, \min_i W_i^e\sum_r(\alpha_i^r+\beta_i^r) / (T\sum_h\sum_r C_h^r))`, the
      largest value the [R] condition allows (then :math:`D_0 \le \frac12 OPT`); ``mu`` overrides it.

    Raises
    ------
    ValueError
        Without a horizon or jobs, for a non-PD-ORS job, a ``mu <= 0``, or a job whose utility at
        the horizon is exactly 0 (``L`` would be 0).
    """
    T = workload.horizon if horizon is None else horizon
    if T is None:
        raise ValueError("price_parameters needs a horizon T (workload.horizon or horizon=)")
    if not workload.jobs:
        raise ValueError("price_parameters needs at least one job")
    if mu is not None and (isinstance(mu, bool) or not isinstance(mu, (int, float))
                           or not math.isfinite(mu) or mu <= 0):
        raise ValueError(f"pdors.mu must be None or a finite number > 0, got {mu!r}")
    cluster = workload.cluster
    demand = np.array([cluster.vector(s.worker_demand) + cluster.vector(s.ps_demand) for s in workload.jobs])
    models = [_job_model(s) for s in workload.jobs]
    log_best = np.array([float(s.utility.log(min_duration(m) - 1)) for s, m in zip(workload.jobs, models,
                                                                                      strict=True)])
    log_worst = np.array([float(s.utility.log(max(0, T - 1 - s.arrival))) for s in workload.jobs])
    if not np.all(np.isfinite(log_worst)):
        j = workload.jobs[int(np.argmin(np.isfinite(log_worst)))].job_id
        raise ValueError(f"job {j}: utility at the horizon is 0, so L (14) would be 0")
    denom = np.array([external_worker_slots(m) for m in models], dtype=float) * demand.sum(axis=1)
    inv_mu = min(1.0, float(np.min(denom)) / (T * float(cluster.capacity.sum())))
    mu = 1.0 / inv_mu if mu is None else float(mu)
    log_l = float(np.min(log_worst - numerics.log(denom))) - math.log(2.0 * mu)
    with np.errstate(divide="ignore"):
        per = np.where(demand > 0, log_best[:, None] - numerics.log(np.where(demand > 0, demand, 1.0)), -INF)
    log_u = per.max(axis=0)
    log_u = np.where(np.isfinite(log_u), np.maximum(log_u, log_l), log_l)
    return PdorsPrices(log_u, log_l, mu)


# --------------------------------------------------------------------------- Algorithm 4 pieces


def g_delta(demand_w, delta: float, ratio: float = 1.0, variant: str = "31R"):
    r"""The rounding scale :math:`G_\delta` **as reconstructed by the spec** (not the paper's (31)/(32)).

    (31R) :math:`G = 1 + \ell + \sqrt{\ell^2 + 2\ell}`, :math:`\ell = \ln(1/\delta)/D_w`: with it,
    independent rounding (27) misses (26) :math:`\sum_h w_h \ge D_w` w.p. at most :math:`\delta`
    (Chernoff). (32R): the same with :math:`\ell = \gamma_i\ln(2/\delta)/D_w`, guarding (26) and
    the PS covering by a union bound. ``demand_w`` is :math:`D_w` (> 0; arrays broadcast).
    """
    if variant not in G_DELTA_VARIANTS:
        raise ValueError(f"pdors.g_delta must be one of {G_DELTA_VARIANTS}, got {variant!r}")
    d = np.asarray(demand_w, dtype=float)
    ell = (math.log(1.0 / delta) if variant == "31R" else ratio * math.log(2.0 / delta)) / d
    return 1.0 + ell + np.sqrt(ell * ell + 2.0 * ell)


def _rounding_parts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer part and rounding probability of each entry for (27)-(28): a value within _EPS of
    an integer is that integer ("keep it", probability 0)."""
    base = np.floor(values + _EPS)
    frac = np.clip(values - base, 0.0, 1.0)
    frac[frac < _EPS] = 0.0
    return base, frac


def round_solution(values: np.ndarray, rng: np.random.Generator, trials: int) -> np.ndarray:
    r"""Randomized rounding (27)-(28): ``trials`` independent roundings of ``values`` (last axis),
    each entry up with probability its fractional part, so :math:`E[\text{result}] = \text{values}`."""
    base, frac = _rounding_parts(values)
    draws = rng.random((trials,) + values.shape)
    return (base + (draws < frac)).astype(np.int64)


def _skip_uniforms(rng: np.random.Generator, count: int) -> None:
    """Advance ``rng`` exactly as ``rng.random(count)`` (float64 uniforms) would, drawing nothing
    where the bit generator can jump: PCG64 spends one 64-bit step per float64 uniform, so it
    advances by ``count`` (keeping the buffered 32-bit half, which ``random`` leaves alone and
    ``advance`` drops, so the whole state is the same); any other generator draws and discards."""
    bg = getattr(rng, "bit_generator", None)
    if count <= 0:
        return
    if type(bg) is np.random.PCG64:
        before = bg.state
        bg.advance(count)
        after = bg.state
        after["has_uint32"], after["uinteger"] = before["has_uint32"], before["uinteger"]
        bg.state = after
    else:
        rng.random(count)


_UNBUILT = object()


class _LevelPlacements(Sequence):
    """The placements of :meth:`PDORS.slot_theta`'s levels ``v = 0..len - 1``, each built when first
    read (a search reads those of the slots and levels its DP backtrack picks, a small part of the
    levels evaluated): level 0 the empty placement; a level whose step 12 picked internal
    (``branch``) all ``w`` workers and ``s`` PS of :func:`internal_counts` on its machine
    ``srv[h_int[v]]``; one that picked external the chosen rounded sample (row ``ext_row[v]`` of
    ``ext_w`` and ``ext_s`` over the machines ``ext_srv``); None where neither is feasible. The
    same :class:`Placement` values as built eagerly; compares equal to the list of them."""

    def __init__(self, srv, h_int, w_int, s_int, branch: list, ext_row: dict, ext_srv, ext_w, ext_s
                 ) -> None:
        self._srv, self._h_int, self._w_int, self._s_int = srv, h_int, w_int, s_int
        self._branch, self._ext_row, self._ext_srv, self._ext_w, self._ext_s = (
            branch, ext_row, ext_srv, ext_w, ext_s)
        self._built = [_UNBUILT] * len(branch)
        self._built[0] = Placement()

    def _make(self, lv: int) -> Placement | None:
        b = self._branch[lv]
        if b == "internal":
            h = int(self._srv[self._h_int[lv]])
            return Placement.of({h: int(self._w_int[lv])}, {h: int(self._s_int[lv])})
        if b == "external":
            i, srv = self._ext_row[lv], self._ext_srv
            return Placement.of(
                [(h, x) for h, x in zip(srv, self._ext_w[i].tolist(), strict=True) if x],
                [(h, x) for h, x in zip(srv, self._ext_s[i].tolist(), strict=True) if x],
            )
        return None

    def __len__(self) -> int:
        return len(self._built)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        p = self._built[i]  # IndexError / TypeError as a list's
        if p is _UNBUILT:
            lv = range(len(self._built))[i]
            p = self._built[lv] = self._make(lv)
        return p

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, _LevelPlacements)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a mutable sequence's, as a list's

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass
class SlotTheta:
    r""":math:`\theta(t, v)` of one slot for ``v = 0..len(cost) - 1`` units, with the placement of
    each (None where infeasible), the branch (``"internal"``/``"external"``), the LP optimum of the
    external case and the cost of each branch (inf: infeasible; NaN: not evaluated because the
    internal branch already wins, see :meth:`PDORS.slot_theta`)."""

    cost: np.ndarray
    placements: list
    branch: list
    internal: np.ndarray
    external: np.ndarray
    lp: np.ndarray
    lp_solves: int = 0
    lp_seconds: float = 0.0


@dataclass
class PdorsJob:
    r"""Per-job constants of one search (:meth:`PDORS.job`): the spec and model, DP unit ``q``
    (samples), number of units, demand vectors :math:`\alpha_i^r, \beta_i^r`, and ``v_max``, the
    most units one slot can hold under (4) with the internal (faster) bandwidth."""

    spec: JobSpec
    model: PdorsModel
    q: float  # samples per unit
    units: int  # units to train
    wd: np.ndarray  # alpha^r
    pd: np.ndarray  # beta^r
    v_max: int  # most units a slot can hold under (4) with the internal (faster) bandwidth
    workers: str = "ratio"  # integer reading of step 3 (internal_counts)
    # SlotSolver.lp's constraint matrices per number of machine groups (_LPBlock), shared by the
    # slots of one search, and their HiGHS models (PDORS.job passes the policy's, shared by its jobs)
    lp_blocks: dict = field(default_factory=dict, repr=False, compare=False)
    lp_models: _LPModels = field(default_factory=lambda: _LPModels(), repr=False, compare=False)


def quantum(model: PdorsModel, unit: str | int = "levels", levels: int = 100) -> tuple[float, int]:
    """``(q, n)``: samples per unit and units to train (``n = ceil(V/q)``; the last unit may
    exceed the workload by less than ``q`` samples)."""
    V = model.total_work
    if unit == "levels":
        q = math.ceil(V / levels)
    elif unit == "iteration":
        q = model.batch
    else:
        q = int(unit)
    return float(q), int(math.ceil(V / q - _EPS))


def internal_counts(v: np.ndarray, job: PdorsJob) -> tuple[np.ndarray, np.ndarray]:
    """Step 3 for ``v`` units: ``D = ceil(v q t_int)`` workers needed and ``s = ceil(D/gamma)`` PS;
    the worker count is an integer reading (spec section 5 [N], the paper's step 3 has the real
    ``s = D/gamma``), chosen by ``job.workers``:

    * ``"ratio"`` (the spec's executable reading, default): ``w = gamma * s`` workers, exactly the
      ratio gamma (up to ``gamma - 1`` workers more than ``D``); for a non-integer gamma ``w = D``;
    * ``"demand"`` (ours): ``w = D`` workers, the fewest that train ``v`` units in the slot;
      ``s >= w/gamma`` still holds.
    """
    m = job.model
    D = np.ceil(np.asarray(v) * job.q * sample_time(m, True) - _EPS).astype(np.int64)
    g = m.ratio
    s = np.ceil(D / g - _EPS).astype(np.int64)
    if job.workers == "ratio" and float(g).is_integer():
        return (s * int(g)).astype(np.int64), s
    return D, s


def external_demand(v: np.ndarray, job: PdorsJob) -> np.ndarray:
    """RHS of (26) for ``v`` units: ``v q (tau + 2 g gamma / (b_e F))`` workers (real)."""
    return np.asarray(v, dtype=float) * job.q * sample_time(job.model, False)


class _LPBlock:
    r"""The constraint matrix of :meth:`SlotSolver.lp` for one job and ``G`` machine groups, which
    depends on nothing else (the prices, capacities and demands are costs and right-hand sides).

    One block, ``x = [w_1..w_G, s_1..s_G]``: rows (24) per (resource, group), then (25), (26),
    (26'). :meth:`model` gives the HiGHS model of ``m`` such blocks on the diagonal (the levels
    of one solve) from ``models`` (:class:`_LPModels`)."""

    def __init__(self, job: PdorsJob, G: int, models: _LPModels) -> None:
        pos = np.flatnonzero((job.wd > 0) | (job.pd > 0))
        g = np.arange(G)
        pr = np.repeat(np.arange(len(pos)), G) * G + np.tile(g, len(pos))
        nr = len(pos) * G
        rows = np.concatenate([pr, pr, np.full(G, nr), np.full(G, nr + 1), np.full(G, nr + 2),
                               np.full(G, nr + 2)])
        cols = np.concatenate([np.tile(g, len(pos)), np.tile(g + G, len(pos)), g, g, g, g + G])
        vals = np.concatenate([np.repeat(job.wd[pos], G), np.repeat(job.pd[pos], G), np.ones(G),
                               -np.ones(G), np.full(G, 1.0 / job.model.ratio), -np.ones(G)])
        keep = vals != 0
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
        # the block in CSC (HiGHS's column-wise format, rows ascending in each column, as scipy's
        # CSR -> CSC conversion inside linprog orders them); m blocks on the diagonal repeat it
        # with rows and columns shifted
        order = np.lexsort((rows, cols))
        self.G, self.pos, self.nr, self.n_rows = G, pos, nr, nr + 3
        self.rows = rows[order]
        self.count = np.bincount(cols, minlength=2 * G)
        self.value = vals[order].tolist()
        self.pattern = (self.n_rows, self.count.tobytes(), self.rows.tobytes())  # all but values
        self._models = models

    def model(self, m: int) -> _highs.HighsLp:
        """The model of ``m`` blocks (costs and row upper bounds set per solve)."""
        return self._models.get(self, m)

    def build(self, m: int) -> _highs.HighsLp:
        """A new model of ``m`` blocks (:func:`_highs_lp`)."""
        index = np.add.outer(np.arange(m) * self.n_rows, self.rows).ravel().tolist()
        start = np.concatenate([[0], np.cumsum(np.tile(self.count, m))]).tolist()
        return _highs_lp(2 * self.G * m, self.n_rows * m, start, index, self.value * m)


class _LPModels:
    """The HiGHS models of :class:`_LPBlock`, the ``size`` last used (a model is most of an LP's
    conversion to HiGHS, see :func:`_highs_lp`), by sparsity pattern and ``m``: blocks of jobs with
    the same pattern share a model, whose matrix values are set anew when another job's differ.
    Every field of a model handed out is what a new one would hold (costs and row bounds are
    set per solve). One per :class:`PDORS` (shared by its jobs) or per :class:`PdorsJob`."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._lru: OrderedDict[tuple, list] = OrderedDict()  # key -> [model, its values list]

    def __getstate__(self) -> dict:  # HiGHS models do not pickle: a copy starts empty
        return {"size": self.size}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["size"])

    def get(self, blk: _LPBlock, m: int) -> _highs.HighsLp:
        key = (m,) + blk.pattern
        entry = self._lru.get(key)
        if entry is None:
            entry = self._lru[key] = [blk.build(m), blk.value]
            if len(self._lru) > self.size:
                self._lru.popitem(last=False)
        else:
            self._lru.move_to_end(key)
            # the same pattern with another job's coefficients (the same list: the same values)
            if entry[1] is not blk.value and entry[1] != blk.value:
                entry[0].a_matrix_.value_ = blk.value * m
                entry[1] = blk.value
        return entry[0]


class SlotSolver:
    """Algorithm 4 for all units ``v`` of one slot, for one job and one slot state.

    Parameters
    ----------
    job : PdorsJob
    price, free : numpy.ndarray
        Prices :math:`p_h^r[t]` and residual capacities :math:`\\hat C_h^r[t]`, shape (H, R).
    """

    def __init__(self, job: PdorsJob, price: np.ndarray, free: np.ndarray) -> None:
        self.job = job
        self.free = free
        self.pw = numerics.dot(price, job.wd)  # p_h^w[t] of (23)
        self.ps = numerics.dot(price, job.pd)  # p_h^s[t]

    # ---------------------------------------------------------------- internal (steps 2-7)
    def internal(self, v_top: int) -> tuple[np.ndarray, np.ndarray]:
        """Cost and machine (-1: none) of the internal case for ``v = 0..v_top``."""
        job = self.job
        v = np.arange(v_top + 1)
        w, s = internal_counts(v, job)
        # (24) per machine: integer counts times demands against integer-valued free capacity;
        # _EPS only absorbs the rounding of free = C - rho. A resource the job does not demand
        # (alpha^r = beta^r = 0) needs 0 * w + 0 * s = 0 whatever v, so its test is 0 <= free + _EPS
        # for every v: evaluated once per machine, and the (v, machine, resource) table is built over
        # the demanded resources only (the same booleans as over all of them). The need
        # alpha^r w + beta^r s does not depend on the machine: formed per (v, r), compared per machine
        use = ((job.wd != 0) | (job.pd != 0)).nonzero()[0]
        need = job.wd[None, use] * w[:, None] + job.pd[None, use] * s[:, None]  # (v, demanded r)
        room = self.free[:, use] + _EPS  # (machine, demanded r)
        fits = (w <= job.model.batch)[:, None]  # (4)
        for j in range(len(use)):  # (24), one demanded resource at a time (np.all's booleans)
            fits = fits & (need[:, j, None] <= room[None, :, j])
        if len(use) < len(job.wd):
            rest = np.ones(len(job.wd), dtype=bool)
            rest[use] = False
            fits = fits & np.all(0.0 <= self.free[:, rest] + _EPS, axis=1)[None, :]
        fits = np.broadcast_to(fits, (len(w), len(self.free)))
        key = job.model.ratio * self.pw + self.ps  # step 2 sort key
        # Alg. 4 step 2: non-decreasing key with ties (REL_TOL relative) -> smaller machine index
        order = numerics.order(key)
        ordered = fits[:, order]
        first = np.where(ordered.any(axis=1), np.argmax(ordered, axis=1), -1)
        h = np.where(first >= 0, order[np.maximum(first, 0)], -1)
        cost = np.where(h >= 0, w * self.pw[np.maximum(h, 0)] + s * self.ps[np.maximum(h, 0)], INF)
        cost[0], h[0] = 0.0, -1
        return cost, h

    # ---------------------------------------------------------------- external (steps 8-11)
    def _groups(self):
        """Machines with identical ``(p^w, p^s, free)`` rows: the rows of the groups (in order of
        their first machine) and each machine's group."""
        rows = np.concatenate((self.pw[:, None], self.ps[:, None], self.free), axis=1)  # column_stack
        if not np.isnan(rows).any():
            # np.unique(rows, axis=0)'s groups without its sort: rows equal entry by entry (+ 0.0
            # makes -0.0 and 0.0 one key, as ==), numbered by first machine; each group's row
            # is its first machine's, as np.unique's stable sort keeps it
            keys = np.ascontiguousarray(rows + 0.0)
            keys = keys.view(np.dtype((np.void, keys.shape[1] * keys.itemsize))).ravel().tolist()
            ids = {k: i for i, k in enumerate(dict.fromkeys(keys))}  # keys in first-seen order
            group_of = np.array([ids[k] for k in keys], dtype=np.intp)
            new = group_of[1:] > np.maximum.accumulate(group_of)[:-1]  # a group's first machine
            first = np.concatenate(([True], new)).nonzero()[0]
            return rows[first], group_of
        uniq, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        inv = inv.ravel()
        order = np.argsort(first, kind="stable")  # groups in order of their first machine
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return uniq[order], rank[inv]

    def lp(self, demands: np.ndarray, shrink: np.ndarray | None = None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float]:
        r"""LP relaxation of (23)-(26) + (26') for each RHS ``D_w`` in ``demands``.

        ``shrink`` (one factor >= 1 per level, optional) divides the packing right-hand sides
        (24) and (25) of that level: the ``headroom`` reading of :class:`PDORS` (ours), under
        which the solution scaled by :math:`G_\delta` fits the true capacities in expectation.

        Returns per-level optimal costs (inf where infeasible), per-machine fractional ``w̄``
        and ``s̄`` of shape (len(demands), H), the number of HiGHS solves and their seconds.
        """
        job = self.job
        n = len(demands)
        H = len(self.pw)
        wbar = np.zeros((n, H))
        sbar = np.zeros((n, H))
        cost = np.full(n, INF)
        if n == 0:
            return cost, wbar, sbar, 0, 0.0
        grp, group_of = self._groups()
        G = len(grp)
        k = np.bincount(group_of, minlength=G).astype(float)
        pw, ps, free = grp[:, 0], grp[:, 1], grp[:, 2:]
        # the constraint matrix depends on the job and G only: kept per job (PdorsJob.lp_blocks)
        blocks = getattr(job, "lp_blocks", None)
        blk = blocks.get(G) if blocks is not None else None
        if blk is None:
            models = getattr(job, "lp_models", None)
            blk = _LPBlock(job, G, models if models is not None else _LPModels())
            if blocks is not None:
                blocks[G] = blk
        nr, n_rows = blk.nr, blk.n_rows
        cap = (k[:, None] * free)[:, blk.pos].T.ravel()  # resource-major, like the rows
        c1 = np.concatenate([pw, ps])
        shrink = np.ones(n) if shrink is None else np.asarray(shrink, dtype=float)
        solves, seconds = 0, 0.0

        def solve(levels: np.ndarray, c_block: np.ndarray, cover: bool = True) -> _LPResult:
            nonlocal solves, seconds
            m = len(levels)
            f = shrink[levels]
            b = np.zeros((m, n_rows))  # per level: (24) cap / f, (25) F / f, (26) -D_w (or 0), (26') 0
            b[:, :nr] = cap[None, :] / f[:, None]
            b[:, nr] = job.model.batch / f
            if cover:
                b[:, nr + 1] = -demands[levels]
            b = b.ravel()
            start = time.perf_counter()
            res = _solve_highs_lp(blk.model(m), np.tile(c_block, m), b)
            seconds += time.perf_counter() - start
            solves += 1
            return res

        idx = np.arange(n)
        res = solve(idx, c1)
        if res.status == 2:  # some level infeasible: find the largest feasible sum w first
            # (26) dropped: the largest sum w the packing constraints allow, whatever level 0 asks
            mx = solve(np.array([0]), np.concatenate([-np.ones(G), np.zeros(G)]), cover=False)
            top = (-mx.fun if mx.status == 0 else 0.0) * shrink[0]  # the polytope scales by 1/shrink
            # levels within 1e-9 (relative + absolute) of the largest sum w are kept: HiGHS decides
            idx = idx[demands <= top / shrink * (1 + 1e-9) + 1e-9]
            res = solve(idx, c1) if len(idx) else None
        if res is None or res.status != 0:
            return cost, wbar, sbar, solves, seconds
        x = res.x.reshape(len(idx), 2 * G)
        cost[idx] = numerics.dot(x, c1)
        per = 1.0 / k[group_of]  # split each group's amount evenly over its machines
        wbar[idx] = x[:, :G][:, group_of] * per
        sbar[idx] = x[:, G:][:, group_of] * per
        return cost, wbar, sbar, solves, seconds

    def feasible(self, w: np.ndarray, s: np.ndarray, demand, idx: np.ndarray) -> np.ndarray:
        """Step 11 feasibility of integer samples ``w``, ``s`` (shape (..., len(idx))) on the machines
        ``idx``: (24) capacities, (25) ``sum w <= F``, (26) ``sum w >= D_w`` (``demand`` broadcasts
        against the leading axes), (26') ``sum s >= sum w / gamma`` and ``sum w >= 1``."""
        job = self.job
        W, S = w.sum(axis=-1), s.sum(axis=-1)
        # (26) with HiGHS's feasibility tolerance 1e-7 (integer W against a real demand); (26')
        # and (24) with _EPS on integer-valued sides
        ok = (W <= job.model.batch) & (W >= np.asarray(demand) - 1e-7) & (W >= 1)
        ok &= S * job.model.ratio >= W - _EPS
        free = self.free[idx]
        wf, sf = np.asarray(w, dtype=np.float64), np.asarray(s, dtype=np.float64)  # converted once
        for r in np.flatnonzero((job.wd > 0) | (job.pd > 0)):  # (24), one resource at a time
            ok &= np.all(wf * job.wd[r] + sf * job.pd[r] <= free[:, r] + _EPS, axis=-1)
        return ok

    def rounded(self, wbar: np.ndarray, sbar: np.ndarray, demands: np.ndarray, scale: np.ndarray,
                rng: np.random.Generator, trials: int, rounds: int = 10):
        r"""Steps 9-11 for several levels at once: scale the LP solutions (rows) by ``scale``
        (:math:`G_\delta` per level), draw ``trials`` roundings (27)-(28) per level, and keep the
        cheapest feasible one; a level with no feasible sample draws ``trials`` more, at most
        ``rounds`` times (the spec's hard cap of 10 S).

        Returns the cost per level (inf: no feasible sample), the chosen integer ``w`` and ``s``
        (levels x len(nz)) and ``nz``, the machines with a positive fractional value.

        Each round draws, in this order, the uniforms of ``w`` and of ``s`` for the levels still
        without a sample (shape ``(trials, levels left, nz)`` each, as :func:`round_solution`).
        Speed-ups, all exact (same samples, same choice, same final generator state):

        * a level whose rounded-down values already break (24) or (25) (rounding only goes up,
          and the checks are monotone) or whose rounded-up values cannot reach (26) has no
          feasible sample in any round: it is not evaluated, only its uniforms are drawn, and
          rounds where every level left is such a level are skipped over
          (:func:`_skip_uniforms`);
        * after a round where no level found a sample, the remaining rounds are drawn and judged
          at once, as if none will; if one does in round ``r``, the generator is rewound to the
          end of round ``r`` and the remaining levels go on from there;
        * the samples are judged as :meth:`feasible` judges them, from which entries round up:
          a sample's sums are the rounded-down sums plus its count of entries rounded up (the
          same integers), and (24) on a machine is looked up among the four outcomes of its
          ``w`` and ``s`` entry (down/up each), evaluated once per level with :meth:`feasible`'s
          arithmetic. Only the round that counts is formed as integers (for step 11's costs).
        """
        job = self.job
        n = len(wbar)
        nz = ((wbar > _EPS) | (sbar > _EPS)).any(axis=0).nonzero()[0]
        base, frac = _rounding_parts(np.stack((wbar[:, nz] * scale[:, None], sbar[:, nz] * scale[:, None])))
        (w_base, s_base), (w_frac, s_frac) = base, frac  # of w and of s, entry by entry
        # levels no sample can make feasible (see feasible(): every sample has w >= w_base,
        # s >= s_base and sum w <= sum ceil)
        free = self.free[nz]
        hopeless = w_base.sum(axis=1) > job.model.batch
        w_top = (w_base + (w_frac > 0)).sum(axis=1)
        hopeless |= (w_top < demands - 1e-7) | (w_top < 1)
        for r in ((job.wd > 0) | (job.pd > 0)).nonzero()[0]:
            hopeless |= (w_base * job.wd[r] + s_base * job.pd[r] > free[:, r] + _EPS).any(axis=1)
        # (24) per machine for the four outcomes of its (w, s) entry: bit dw + 2 ds of `broken` is
        # set where (w_base + dw, s_base + ds) breaks it, feasible()'s test on the same values
        # (not needed when no level can succeed)
        broken = np.zeros(w_base.shape, dtype=np.uint8)
        if not hopeless.all():
            dw = np.array([0.0, 1.0, 0.0, 1.0])[:, None, None]  # outcome 0..3: (dw, ds)
            ds = np.array([0.0, 0.0, 1.0, 1.0])[:, None, None]
            fits = np.ones((4,) + w_base.shape, dtype=bool)
            for r in ((job.wd > 0) | (job.pd > 0)).nonzero()[0]:
                fits &= (w_base + dw) * job.wd[r] + (s_base + ds) * job.pd[r] <= free[:, r] + _EPS
            for bit in range(4):
                broken |= (~fits[bit]).view(np.uint8) << bit
        # the rounded-down sums, exact integers
        w_sum, s_sum = w_base.sum(axis=1).astype(np.int64), s_base.sum(axis=1).astype(np.int64)
        cost = np.full(n, INF)
        w_out = np.zeros((n, len(nz)), dtype=np.int64)
        s_out = np.zeros((n, len(nz)), dtype=np.int64)
        todo = np.arange(n)
        pw, ps = self.pw[nz], self.ps[nz]
        can_rewind = hasattr(rng, "bit_generator")
        left, found_last = rounds, True
        while left > 0 and len(todo):
            one = (trials, len(todo), len(nz))  # one round's w (or s) uniforms
            live = ~hopeless[todo]
            if not live.any():  # no level left can succeed: the remaining rounds only draw
                _skip_uniforms(rng, left * 2 * math.prod(one))
                break
            # rounds judged at once: one after a round that found a sample (more may follow
            # soon), else every remaining round (most levels never find one)
            batch = 1 if found_last or not can_rewind else left
            state = rng.bit_generator.state if batch > 1 else None
            draws = rng.random((batch, 2) + one)  # per round: w's, then s's
            # entries rounded up, (batch, trials, live levels, nz): round_solution's comparison
            up_w = draws[:, 0] < w_frac[todo]
            up_s = draws[:, 1] < s_frac[todo]
            if not live.all():
                up_w, up_s = up_w[:, :, live], up_s[:, :, live]
            lv = todo[live]
            ok = self._feasible_ups(up_w, up_s, w_sum[lv], s_sum[lv], demands[lv], broken[lv])
            ok = ok.swapaxes(1, 2)  # (batch, live levels, trials), as feasible() on the samples
            found = ok.any(axis=2)  # (batch, live levels)
            hit = found.any(axis=1).nonzero()[0]
            r = int(hit[0]) if len(hit) else batch - 1  # the round whose outcome counts
            found_last = bool(len(hit))
            if len(hit) and r < batch - 1:  # rewind the generator to the end of round r
                rng.bit_generator.state = state
                _skip_uniforms(rng, (r + 1) * 2 * math.prod(one))
            left -= r + 1
            ok, found = ok[r], found[r]
            if not found.any():
                continue  # no level found a sample: nothing to pick (c below would be all inf)
            # round r's samples, (live levels, trials, nz), the layout of a swapped round_solution
            w = (w_base[lv] + up_w[r]).astype(np.int64).swapaxes(0, 1)
            s = (s_base[lv] + up_s[r]).astype(np.int64).swapaxes(0, 1)
            c = np.where(ok, numerics.dot(w, pw) + numerics.dot(s, ps), INF)
            # step 11 (spec [N]: the cheapest feasible sample): costs within REL_TOL of the
            # row's minimum tie, the earliest sample (draw order) wins
            low = c.min(axis=1)
            pick = np.argmax(ok & (c <= (low + numerics.tolerance(low))[:, None]), axis=1)
            rows = lv[found]
            cost[rows] = c[found, pick[found]]
            w_out[rows] = w[found, pick[found]]
            s_out[rows] = s[found, pick[found]]
            todo = np.setdiff1d(todo, rows, assume_unique=True)
        return cost, w_out, s_out, nz

    def _feasible_ups(self, up_w: np.ndarray, up_s: np.ndarray, w_sum: np.ndarray, s_sum: np.ndarray,
                      demand: np.ndarray, broken: np.ndarray) -> np.ndarray:
        """:meth:`feasible` of the samples ``w_base + up_w``, ``s_base + up_s`` (booleans, shape
        (..., levels, nz)) from the levels' rounded-down sums ``w_sum``, ``s_sum`` and ``broken``
        (levels x nz: bit ``dw + 2 ds`` set where that outcome breaks (24), see :meth:`rounded`).
        The same tests on the same values, so the same booleans; shape (..., levels)."""
        job = self.job
        W = w_sum + np.count_nonzero(up_w, axis=-1)
        S = s_sum + np.count_nonzero(up_s, axis=-1)
        # (26) with HiGHS's feasibility tolerance 1e-7, (25), sum w >= 1 and (26') as in feasible()
        ok = (W <= job.model.batch) & (W >= demand - 1e-7) & (W >= 1)
        ok &= S * job.model.ratio >= W - _EPS
        cols = broken.any(axis=0).nonzero()[0]  # machines where some outcome breaks (24)
        if len(cols):
            outcome = up_w[..., cols].view(np.uint8) | (up_s[..., cols].view(np.uint8) << 1)
            ok &= ~((broken[:, cols] >> outcome) & 1).any(axis=-1)
        return ok


_DP_TABLE_MAX = 1 << 21  # entries of the (v, x) candidate table of _dp_step built at once


def _dp_step(prev: np.ndarray, cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""One slot of the DP (21): :math:`\Theta(t, x) = \min_v \theta(t, v) + \Theta(t-1, x-v)`
    for ``x = 0..n`` from ``prev`` (:math:`\Theta(t-1, \cdot)`, length ``n + 1``) and ``cost``
    (:math:`\theta(t, v)`, ``v = 0..len(cost) - 1 <= n``). Returns the new row and the chosen
    ``v`` per ``x`` (0 where the row is inf). Ties: first the exact minimum over all finite
    ``v``, then the smallest ``v`` whose candidate lies within ``numerics.tolerance`` of it.

    The candidates ``prev[x - v] + cost[v]`` are formed in one (v, x) table when it is small (the
    same additions, an exact minimum and the first ``v`` in the tie window, as the loop over
    ``v`` below computes them; only over the ``x`` that a finite ``prev`` entry can reach), else
    ``v`` by ``v``."""
    n = len(prev) - 1
    vs = np.isfinite(cost).nonzero()[0]  # ascending v
    if len(vs) * (n + 1) <= _DP_TABLE_MAX:
        new = np.full(n + 1, INF)
        ch = np.zeros(n + 1, dtype=np.int64)
        reach = (prev != INF).nonzero()[0]  # a finite candidate needs x - v among these
        if len(vs) == 0 or len(reach) == 0:
            return new, ch
        # only the columns x = lo..hi can have one (the others stay inf, v = 0, as in the loop)
        lo, hi = int(reach[0]), min(n, int(reach[-1]) + int(vs[-1]))
        back = np.arange(lo, hi + 1)[None, :] - vs[:, None]  # x - v
        cand = np.where(back >= 0, prev[np.maximum(back, 0)] + cost[vs][:, None], INF)
        low = cand.min(axis=0)
        lim = low + numerics.tolerance(low)
        take = np.isfinite(cand) & (cand <= lim)
        has = take.any(axis=0)
        first = np.argmax(take, axis=0)
        x = has.nonzero()[0]
        new[lo + x] = cand[first[x], x]
        ch[lo + x] = vs[first[x]]
        return new, ch
    low = np.full(n + 1, INF)
    for v, c in enumerate(cost):
        if math.isfinite(c):
            np.minimum(low[v:], prev[: n + 1 - v] + c, out=low[v:])
    lim = low + numerics.tolerance(low)
    new = np.full(n + 1, INF)
    ch = np.zeros(n + 1, dtype=np.int64)
    for v, c in enumerate(cost):  # ascending v
        if not math.isfinite(c):
            continue
        cand = prev[: n + 1 - v] + c
        take = np.isinf(new[v:]) & np.isfinite(cand) & (cand <= lim[v:])
        new[v:][take] = cand[take]
        ch[v:][take] = v
    return new, ch


class _SlotStates:
    r"""Ids of the slots' usage states for :meth:`PDORS.search`'s cache of :math:`\theta(t, \cdot)`:
    ``ids[t] == ids[u]`` exactly when ``rho[t].tobytes() == rho[u].tobytes()`` (the key the cache
    compared before), so the search meets the same hits and misses without hashing a slot's whole
    usage table at every step. Ids are interned by those bytes when :meth:`PDORS._commit` changes
    a slot (:meth:`changed`); a state no slot holds any more is forgotten (its id is not reused)."""

    def __init__(self, rho: np.ndarray, uniform: bool = False) -> None:
        """``uniform``: the caller knows every slot's bytes equal slot 0's (e.g. all zero)."""
        self._rho = rho
        T = rho.shape[0]
        self.ids: list[int] = [0] * T  # every slot: the usage of slot 0 (all slots equal, e.g. zero)
        self._id_of: dict[bytes, int] = {rho[0].tobytes(): 0} if T else {}
        self._key: dict[int, bytes] = {0: rho[0].tobytes()} if T else {}
        self._count: dict[int, int] = {0: T} if T else {}
        self._next = 1
        bits = None if uniform else np.ascontiguousarray(rho).view(np.uint64)  # bytes as integers
        if T and bits is not None and not (bits == bits[:1]).all():  # slots differ: each its own id
            for t in range(T):
                self.changed(t)

    def changed(self, t: int) -> None:
        """Slot ``t``'s usage was written: give it the id of its new bytes."""
        key = self._rho[t].tobytes()
        new = self._id_of.get(key)
        if new is None:
            new, self._next = self._next, self._next + 1
            self._id_of[key], self._key[new], self._count[new] = new, key, 0
        old = self.ids[t]
        if new == old:
            return
        self.ids[t] = new
        self._count[new] += 1
        self._count[old] -= 1
        if not self._count[old]:
            del self._id_of[self._key.pop(old)], self._count[old]


@dataclass(frozen=True)
class PdorsSchedule:
    """Output of Algorithm 2: payoff :math:`\\lambda_i`, completion slot, cost, units per slot,
    placements and branches per slot, the cost of every completion slot, LP statistics.

    ``costs_by_completion[k]`` is :math:`\\Theta(a_i + k, V_i)` for ``k = 0..T - a_i - 1``: +inf
    where no schedule finishes by slot :math:`a_i + k`, NaN for slots a pruned search did not
    evaluate. It is **None** (not an array) when :meth:`PDORS.search` gives up before any
    :math:`\\theta` is computed: the job arrives at or after ``T``, or no slot can train a unit
    (``v_max = 0``), or even ``v_max`` units in every slot up to ``T`` do not cover the
    workload -- every completion slot is then infeasible (``completion`` is None, ``cost`` inf,
    payoff 0). Callers treat None as "all +inf" (:func:`dlsched.pdors.checks.dp_optimal` relies on
    the None to tell this early exit from a DP whose costs are all +inf, as it finds no
    :math:`\\theta` to brute-force against; :func:`dlsched.pdors.explain.completion_frame`
    refuses it).
    """

    payoff: float
    completion: int | None
    cost: float
    units: dict[int, int] = field(default_factory=dict)
    placements: dict[int, Placement] = field(default_factory=dict)
    branches: dict[int, str] = field(default_factory=dict)
    costs_by_completion: np.ndarray | None = None
    lp_solves: int = 0
    lp_seconds: float = 0.0
    unit_samples: float = math.nan
    n_units: int = 0


# ------------------------------------------------------------------------------- the policy


class PDORS(BasePolicy):
    r"""Algorithm 1 of PD-ORS: online admission with irrevocable schedules, prices (12).

    Parameters
    ----------
    prices : PdorsPrices, optional
        ``U``, ``L``, ``mu`` of (12)-(14); :meth:`from_workload` computes the workload's true ones.
    levels : int, default 100
        Quantisation: the workload is cut into ``levels`` units (``unit="levels"``; our choice,
        the paper's DP enumerates single samples). Notebook ``31_pdors_proofs`` shows how the
        result converges as the unit shrinks.
    unit : "levels", "iteration" or int, default "levels"
        Samples per DP unit: ``ceil(V_i/levels)``, one BSP iteration ``F_i``, or this many.
    delta : float in (0, 1], default 0.1
        Rounding confidence :math:`\delta` of :math:`G_\delta` (not in the paper's text).
    trials : int, default 10
        :math:`S`, rounding samples per external case (step 11).
    g_delta : {"31R", "32R"}, default "31R"
        Which reconstructed scaling factor to use (:func:`g_delta`).
    colocation : bool, default True
        Use the internal branch (steps 2-7). ``False`` is our ablation "PD-ORS without
        co-location": every slot is planned with the external bandwidth (step 12 has only the
        external candidate), registered as ``pdors_nocoloc``.
    mu : float, optional
        Override :math:`\mu` of (14) (default: the largest admissible :math:`1/\mu`).
    max_units : int, default 20000
        Refuse a job whose quantised workload has more units than this (a too fine ``unit``).
    workers : {"ratio", "demand"}, default "ratio"
        Integer reading of step 3's worker count in the internal branch (:func:`internal_counts`):
        the spec's ``w = gamma * ceil(D/gamma)`` or our ``w = D``.
    headroom : bool, default False
        Our reading, not the paper's: solve step 8's LP with the packing constraints (24)-(25)
        divided by :math:`G_\delta`, so that the scaled solution of step 9 fits the capacities
        in expectation. With the literal ``False`` the LP fills the cheapest machines to
        capacity, the scaled values overflow them, and step 11 often finds no feasible sample
        (notebook ``32_pdors_figures`` measures both).

    Notes
    -----
    Per-job results recorded in the job table: ``payoff`` (:math:`\lambda_i`),
    ``planned_completion``, ``internal_slots`` (slots planned on one machine). Decision times and
    LP statistics are kept in :attr:`decision_seconds` and :attr:`lp_stats` (not in the tables).
    All randomness (the rounding) comes from the generator given to :meth:`reset`.
    """

    name: ClassVar[str] = "pdors"

    def __init__(
        self,
        prices: PdorsPrices | None = None,
        levels: int = 100,
        unit: str | int = "levels",
        delta: float = 0.1,
        trials: int = 10,
        g_delta: str = "31R",
        colocation: bool = True,
        mu: float | None = None,
        max_units: int = 20000,
        workers: str = "ratio",
        headroom: bool = False,
    ):
        if prices is not None and not isinstance(prices, PdorsPrices):
            raise TypeError(f"pdors.prices must be PdorsPrices, got {type(prices).__name__}")
        self.prices = prices
        self.levels = _positive_int(levels, "pdors.levels")
        if isinstance(unit, str):
            if unit not in UNITS:
                raise ValueError(f"pdors.unit must be one of {UNITS} or an integer >= 1, got {unit!r}")
        else:
            _positive_int(unit, "pdors.unit")
        self.unit = unit
        bad = isinstance(delta, bool) or not isinstance(delta, (int, float)) or not math.isfinite(delta)
        if bad or not 0 < delta <= 1:
            raise ValueError(f"pdors.delta must be in (0, 1], got {delta!r}")
        self.delta = float(delta)
        self.trials = _positive_int(trials, "pdors.trials")
        if g_delta not in G_DELTA_VARIANTS:
            raise ValueError(f"pdors.g_delta must be one of {G_DELTA_VARIANTS}, got {g_delta!r}")
        self.g_delta = g_delta
        if not isinstance(colocation, bool):
            raise ValueError(f"pdors.colocation must be a bool, got {colocation!r}")
        self.colocation = colocation
        if mu is not None and (isinstance(mu, bool) or not isinstance(mu, (int, float))
                               or not math.isfinite(mu) or mu <= 0):
            raise ValueError(f"pdors.mu must be None or a finite number > 0, got {mu!r}")
        self.mu = mu
        self.max_units = _positive_int(max_units, "pdors.max_units")
        if workers not in WORKER_READINGS:
            raise ValueError(f"pdors.workers must be one of {WORKER_READINGS}, got {workers!r}")
        self.workers = workers
        if not isinstance(headroom, bool):
            raise ValueError(f"pdors.headroom must be a bool, got {headroom!r}")
        self.headroom = headroom

    @classmethod
    def from_workload(cls, workload: Workload, **params) -> PDORS:
        """PD-ORS with the workload's true price parameters (13)-(14)."""
        return cls(price_parameters(workload, mu=params.get("mu")), **params)

    # ------------------------------------------------------------------ state
    def reset(self, cluster: Cluster, rng) -> None:
        super().reset(cluster, rng)
        if self.prices is None:
            raise ValueError("PD-ORS needs price parameters: PDORS.from_workload(workload)")
        both = np.intersect1d(cluster.servers_for("worker"), cluster.servers_for("ps"))
        if len(both) == 0:
            raise ValueError(
                "PD-ORS needs machines that host workers and PS (one pool, e.g. Cluster.homogeneous)"
            )
        if len(self.prices.log_u) != len(cluster.resources):
            raise ValueError(
                f"pdors.prices has {len(self.prices.log_u)} resources, the cluster {len(cluster.resources)}"
            )
        self._srv = both
        self._cap = cluster.capacity[both]
        self._T: int | None = None
        self.plans: dict[int, dict[int, Placement]] = {}
        self.payoffs: dict[int, float] = {}
        self.decision_seconds: dict[int, float] = {}
        self.lp_stats: dict[int, tuple[int, float]] = {}
        self.history: list[dict[str, float]] = []
        self._lp_models = _LPModels()  # HiGHS models shared by the searches (SlotSolver.lp)

    def _init_horizon(self, T: int) -> None:
        self._T = T
        H, R = len(self._srv), len(self.cluster.resources)
        self._rho = np.zeros((T, H, R))  # rho_h^r[t]
        self._states = _SlotStates(self._rho, uniform=True)  # every slot in the state "no usage"
        # p_h^r[t] = Q(0) = L (step 1). Q is elementwise and every slot has the same usage (0) and
        # capacities, so one slot's prices are computed and repeated over the horizon: the same
        # floats as Q of the whole (T, H, R) table
        self.p = np.repeat(self.prices.price(np.zeros((1, H, R)), self._cap[None]), T, axis=0)

    @property
    def rho(self) -> np.ndarray:
        r"""The usage :math:`\rho_h^r[t]` (T, machines, R), written by :meth:`_commit`.

        :meth:`search` shares :math:`\theta(t, \cdot)` among the slots whose usage is identical, told
        apart by :class:`_SlotStates` ids that :meth:`_commit` keeps up to date. The table handed out
        here may be written by its reader (tests and checks do), so from then on (until the next
        horizon) the searches compare the slots' usage bytes themselves, as the ids would. The
        policy's own code reads the table as ``_rho``."""
        try:
            used = self._rho
        except AttributeError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute 'rho'") from None
        self._states = None
        return used

    @rho.setter
    def rho(self, used: np.ndarray) -> None:
        self._rho, self._states = used, None

    @property
    def p(self) -> np.ndarray:
        r"""The prices :math:`p_h^r[t]` (T, machines, R), written by :meth:`_commit`.

        The price term of the dual (10) is kept up to date by a
        :class:`~dlsched.core.pricing.PriceMass` that :meth:`_commit` updates. The table handed out
        here may be written by its reader (tests and checks corrupt prices on purpose), so the
        mass is then rebuilt from the table at the next :meth:`dual_objective`; assigning a new
        table rebuilds it too. The policy's own code reads the table as ``_p``."""
        try:
            price = self._p
        except AttributeError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute 'p'") from None
        self._mass = None
        return price

    @p.setter
    def p(self, price: np.ndarray) -> None:
        self._p, self._mass = price, None

    def _price_mass(self) -> PriceMass:
        """The mass of :attr:`p` and the capacities, built anew if :attr:`p` was handed out or
        replaced since the last one."""
        if self._mass is None:
            self._mass = PriceMass(self._p, self._cap)
        return self._mass

    def prepare(self, cluster: Cluster, T: int, rng=None) -> PDORS:
        """Reset and size the price tables for horizon ``T`` outside a simulation; returns self."""
        self.reset(cluster, rng if rng is not None else np.random.default_rng(0))
        self._init_horizon(int(T))
        return self

    def job(self, spec: JobSpec) -> PdorsJob:
        """Per-job constants (quantum, demands); raises on a too fine quantisation."""
        m = _job_model(spec)
        q, n = quantum(m, self.unit, self.levels)
        if n > self.max_units:
            raise ValueError(
                f"job {spec.job_id}: {n} DP units of {q:g} samples exceed pdors.max_units={self.max_units} "
                f"(unit={self.unit!r}); use a coarser unit"
            )
        c = self.cluster
        v_max = int(math.floor(m.batch / (q * sample_time(m, True)) + _EPS))  # _EPS: integral quotients
        return PdorsJob(spec, m, q, n, c.vector(spec.worker_demand), c.vector(spec.ps_demand), v_max,
                        self.workers, lp_models=self._lp_models)

    def slot_theta(self, job: PdorsJob, t: int, skip_dominated: bool = True) -> SlotTheta:
        r""":math:`\theta(t, v)` for ``v = 0..v_max`` (Algorithm 4) against the current state.

        With ``skip_dominated`` (the default, used by :meth:`search`) the external case is not
        evaluated for levels where it cannot win step 12: where the internal cost is at most a
        lower bound of the LP (capacities relaxed), the LP is not solved, and where it is at most
        the LP optimum, nothing is rounded (a feasible rounded sample is an LP point, so it costs
        at least LP*). ``theta`` is the same; those levels' ``external`` (and skipped ``lp``)
        entries are NaN. ``False`` evaluates both branches everywhere (checks).
        """
        solver = SlotSolver(job, self._p[t], self._cap - self._rho[t])
        top = min(job.v_max, job.units)
        v = np.arange(top + 1)
        if self.colocation:
            c_int, h_int = solver.internal(top)
        else:
            c_int, h_int = np.full(top + 1, INF), np.full(top + 1, -1)
            c_int[0] = 0.0
        dw = external_demand(v, job)
        ext_ok = (v > 0) & (dw <= job.model.batch + _EPS)  # (25) reachable; _EPS: rounding of dw
        c_ext = np.full(top + 1, INF)
        c_lp = np.full(top + 1, INF)
        if skip_dominated:
            # every feasible rounded sample is an LP point, so external >= LP* >= this bound; where
            # the internal cost is already no larger, step 12 picks internal whatever the LP says
            bound = dw * float(solver.pw.min()) + dw / job.model.ratio * float(solver.ps.min())
            # c_int <= bound + tol(bound) and c_ext >= bound imply step 12's tolerant rule picks
            # internal, so the skip never changes theta or the branch. An infinite c_int is greater
            # than any finite bound (its tolerance is 0): compared only where it is not so
            cmp = ext_ok & ~((c_int == INF) & np.isfinite(bound))
            skipped = np.zeros(top + 1, dtype=bool)
            if cmp.any():
                skipped[cmp] = ~numerics.greater(c_int[cmp], bound[cmp])
            ext_ok &= ~skipped
            c_ext[skipped] = c_lp[skipped] = np.nan
        lvl = ext_ok.nonzero()[0]
        g_lvl = g_delta(np.where(dw[lvl] > 0, dw[lvl], 1.0), self.delta, job.model.ratio, self.g_delta)
        lp_cost, wbar, sbar, solves, secs = solver.lp(dw[lvl], g_lvl if self.headroom else None)
        c_lp[lvl] = lp_cost
        ext_row: dict[int, int] = {}  # level -> its row of the rounded samples
        ext_srv = ext_w = ext_s = None
        ok_lp = np.isfinite(lp_cost)
        if skip_dominated and not self.headroom:  # with headroom the LP bounds nothing: round all
            # round only where external can still win step 12 (c_ext >= LP*): c_int > LP* + tol
            # (an infinite c_int is greater than every finite LP*: compared where it is finite)
            cmp = ok_lp & (c_int[lvl] != INF)
            if cmp.any():
                ok_lp[cmp] = numerics.greater(c_int[lvl[cmp]], lp_cost[cmp])
            c_ext[lvl[np.isfinite(lp_cost) & ~ok_lp]] = np.nan
        if ok_lp.any():
            scale = g_lvl[ok_lp]
            r_cost, r_w, r_s, nz = solver.rounded(wbar[ok_lp], sbar[ok_lp], dw[lvl[ok_lp]], scale,
                                                  self.rng, self.trials)
            got = np.isfinite(r_cost).nonzero()[0]  # levels with a feasible sample
            rows = lvl[ok_lp][got]
            c_ext[rows] = r_cost[got]
            ext_row = dict(zip(rows.tolist(), got.tolist(), strict=True))
            ext_srv, ext_w, ext_s = self._srv[nz].tolist(), r_w, r_s  # Python ints, as int() of each
        # Alg. 4 step 12: the cheaper branch; external only if c_int > c_ext + REL_TOL * max(both),
        # so ties (and a NaN, i.e. skipped, external) -> internal. theta is the chosen branch's cost.
        use_int = np.isfinite(c_int)
        use_int[0] = True  # v = 0: c_int = 0 and c_ext = inf, internal (theta 0) either way
        cmp = use_int[1:].nonzero()[0] + 1  # the tolerant comparison only where c_int is finite
        if len(cmp):
            use_int[cmp] = ~numerics.greater(c_int[cmp], c_ext[cmp])
        cost = np.where(use_int, c_int, np.fmin(c_int, c_ext))
        branch = [None] * (top + 1)
        branch[0] = "none"
        w_int, s_int = internal_counts(v, job) if len(cmp) else (None, None)  # only read for internal
        ext_fin = np.isfinite(c_ext).tolist()  # a finite c_ext: a rounded sample (ext_row)
        internal = use_int.tolist()
        for lv in range(1, top + 1):
            if internal[lv]:  # step 12, ties: internal
                branch[lv] = "internal"
            elif ext_fin[lv]:
                branch[lv] = "external"
        placements = _LevelPlacements(self._srv, h_int, w_int, s_int, branch, ext_row, ext_srv, ext_w, ext_s)
        return SlotTheta(cost, placements, branch, c_int, c_ext, c_lp, solves, secs)

    def search(self, spec: JobSpec, prune: bool = True) -> PdorsSchedule:
        """Algorithm 2 for ``spec`` against the current prices, committing nothing.

        ``prune=True`` stops enumerating completion slots once :math:`u_i(\\tilde t_i - a_i)` is no
        more than the best payoff found, and drops partial schedules that already cost more than
        the utility minus the best payoff (costs are >= 0 and ``u`` non-increasing, so the
        schedule found is the same); ``prune=False`` evaluates every completion slot (checks).
        The rounding draws from the policy's generator, so a search advances it.
        ``costs_by_completion`` is None when the job cannot finish by ``T`` whatever the prices
        (arrival at or after ``T``, ``v_max = 0``, or ``v_max (T - a_i) < n``): see
        :class:`PdorsSchedule`.
        """
        a = spec.arrival
        job = self.job(spec)
        n = job.units
        S = self._T - a
        q, nu = job.q, job.units
        # the job cannot finish by T at any price: no theta is computed, costs_by_completion is None
        empty = PdorsSchedule(0.0, None, INF, unit_samples=q, n_units=nu)
        if S <= 0 or job.v_max == 0 or job.v_max * S < n:
            return empty
        util = np.asarray(spec.utility(np.arange(S)), dtype=float)
        # theta(t, .) of the slot states met so far, by state: the _SlotStates id of the slot's usage
        # (equal ids <=> equal usage bytes), or the bytes themselves once rho was handed out
        cache: dict[int | bytes, SlotTheta] = {}
        states, rho = self._states, self._rho
        state_of = states.ids if states is not None else None
        thetas: list[SlotTheta] = []
        choices: list[np.ndarray] = []
        totals = np.full(S, INF)
        best_mu, best_k = 0.0, None
        prev = np.full(n + 1, INF)
        prev[0] = 0.0  # Theta(a - 1, 0) = 0, Theta(a - 1, v > 0) = inf
        solves, secs = 0, 0.0
        for k in range(S):
            if prune and util[k] <= best_mu:
                totals[k:] = np.nan
                break
            t = a + k
            key = state_of[t] if state_of is not None else rho[t].tobytes()
            th = cache.get(key)
            if th is None:
                th = cache[key] = self.slot_theta(job, t)
                solves, secs = solves + th.lp_solves, secs + th.lp_seconds
            thetas.append(th)
            # Alg. 3 step 4 / (21): Theta(t, x) = min_v theta(t, v) + Theta(t - 1, x - v). Costs
            # within REL_TOL of the minimum tie and the smallest v (the first enumerated) wins:
            # first the exact minimum over all v, then the first v inside its tie window.
            new, ch = _dp_step(prev, th.cost)
            choices.append(ch)
            totals[k] = new[n]
            payoff = util[k] - new[n]
            # Alg. 2 step 2: lambda' > lambda by more than REL_TOL * max(|u|, |Theta|, |lambda|);
            # ties keep the earlier completion slot (with lambda = 0 this is Alg. 1's admission rule)
            if numerics.greater(payoff, best_mu, util[k], new[n]):
                best_mu, best_k = float(payoff), k
            if prune:
                # ours, speed only: a partial cost above u_k - lambda cannot beat lambda (u does not
                # increase, costs are >= 0); the margin 8 S REL_TOL u_k keeps every state that could
                # sit in a DP tie window of the winning path, so pruning never changes the result
                slack = 8.0 * S * numerics.REL_TOL * abs(float(util[k]))
                new[new > util[k] - best_mu + slack] = INF
            prev = new
        if best_k is None:
            return PdorsSchedule(0.0, None, INF, costs_by_completion=totals, lp_solves=solves,
                                 lp_seconds=secs, unit_samples=q, n_units=nu)
        units, rest = {}, n
        for k in range(best_k, -1, -1):
            v = int(choices[k][rest])
            if v:
                units[a + k] = v
            rest -= v
        assert rest == 0, "DP backtrack did not cover the workload"
        placements = {t: thetas[t - a].placements[v] for t, v in units.items()}
        branches = {t: thetas[t - a].branch[v] for t, v in units.items()}
        return PdorsSchedule(best_mu, a + best_k, float(totals[best_k]), units, placements, branches,
                             totals, solves, secs, q, nu)

    def dual_objective(self) -> float:
        r"""(10): :math:`\sum_i\lambda_i + \sum_{t,h,r} p_h^r[t] C_h^r`.

        The price term is that of a :class:`~dlsched.core.pricing.PriceMass` updated by
        :meth:`_commit`: the same float as ``np.sum(self.p * self._cap[None])``, bit for bit,
        without summing the whole horizon's table twice per admission."""
        return float(sum(self.payoffs.values()) + self._price_mass().total())

    def decide(self, t: int, view: ClusterView) -> Decision:
        if self._T is None:
            if view.horizon is None:
                raise ValueError("PD-ORS needs a horizon T (Workload.horizon or simulate(horizon=))")
            self._init_horizon(view.horizon)
        admit, reject, info = [], [], {}
        for v in view.pending():  # step 2: upon arrival
            spec = v.spec
            start = time.perf_counter()
            dual_before = self.dual_objective()
            best = self.search(spec)
            # Alg. 1 step 3: lambda_i > 0 by more than REL_TOL * max(|u_i|, |Theta|), else step 4
            # (search already applies the same rule, Alg. 2 step 2 with lambda = 0; u = lambda + Theta)
            found = best.completion is not None
            if found and numerics.greater(best.payoff, 0.0, best.payoff + best.cost, best.cost):  # step 3
                admit.append(spec.job_id)
                self._commit(spec, best)
                self.payoffs[spec.job_id] = best.payoff
                self.history.append({
                    "job": spec.job_id,
                    "primal": float(spec.utility(best.completion - spec.arrival)),
                    "dual": self.dual_objective() - dual_before,
                })
            else:
                reject.append(spec.job_id)  # step 4
            self.decision_seconds[spec.job_id] = time.perf_counter() - start
            self.lp_stats[spec.job_id] = (best.lp_solves, best.lp_seconds)
            info[spec.job_id] = {
                "payoff": best.payoff,
                "planned_completion": best.completion if best.completion is not None else math.nan,
                "internal_slots": sum(b == "internal" for b in best.branches.values()),
            }
        live = {j: plan for j, plan in self.plans.items() if j in view.jobs or j in admit}
        allocs = {j: plan[t] for j, plan in live.items() if t in plan}
        future = [s for plan in live.values() for s in plan if s > t]
        return Decision(allocs, admit=admit, reject=reject, wakeup=min(future) if future else None, info=info)

    def _commit(self, spec: JobSpec, best: PdorsSchedule) -> None:
        """Step 3: fix the schedule, update :math:`\\rho_h^r[t]` and :math:`p_h^r[t] = Q_h^r(\\rho)`."""
        self.plans[spec.job_id] = dict(best.placements)
        pos = {int(s): i for i, s in enumerate(self._srv)}
        wd, pdem = self.cluster.vector(spec.worker_demand), self.cluster.vector(spec.ps_demand)
        price, mass = self.prices.price, self._price_mass()
        rho, states = self._rho, self._states
        # rho[t, h] += c * alpha for the workers, then += c * beta for the PS, as cell by cell: a
        # placement names a machine once per role, so each role's cells are distinct and one
        # fancy-indexed += per role makes the same additions in the same order per cell
        items = best.placements.items()
        workers = [(t, pos[s], c) for t, p in items for s, c in p.workers]
        servers = [(t, pos[s], c) for t, p in items for s, c in p.ps]
        cells = []
        for tasks, dem in ((workers, wd), (servers, pdem)):
            if tasks:
                t, h, c = np.array(tasks, dtype=np.int64).T
                rho[t, h] += c[:, None] * dem
                cells.append(t * len(self._srv) + h)
        if cells:
            # the (slot, machine) cells whose usage changed, each once (the order of the cells and
            # slots below changes no value: each cell's price is its own, the price mass recomputes
            # the sums over the cells named, and slot-state ids are only compared for equality)
            ti, hi = np.divmod(np.unique(np.concatenate(cells)), len(self._srv))
            if states is not None:
                for t in np.unique(ti).tolist():
                    states.changed(t)
            # p = Q(rho) of the touched cells at their final usage, in one call (Q is elementwise:
            # the same floats as cell by cell)
            self._p[ti, hi] = price(rho[ti, hi], self._cap[hi])
            mass.update(ti, hi)


class PDORSNoColocation(PDORS):
    """Ablation "PD-ORS without co-location" (ours): :class:`PDORS` with ``colocation=False``."""

    name: ClassVar[str] = "pdors_nocoloc"

    def __init__(self, prices: PdorsPrices | None = None, levels: int = 100, unit: str | int = "levels",
                 delta: float = 0.1, trials: int = 10, g_delta: str = "31R", colocation: bool = False,
                 mu: float | None = None, max_units: int = 20000, workers: str = "ratio",
                 headroom: bool = False):
        super().__init__(prices, levels, unit, delta, trials, g_delta, colocation, mu, max_units, workers,
                         headroom)


def _positive_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be an integer >= 1, got {value!r}")
    return int(value)
