r"""The offline problem (2)-(2l) of A_online as an exact time-indexed MILP (HiGHS via scipy).

The paper computes its performance ratio (Fig. 14) against the offline optimum of the MINLP
(2)-(2l) (spec section 2; "NP-hard even offline"). This module solves small instances exactly
with :func:`scipy.optimize.milp` and re-checks every solution independently.

**Why a column (configuration) formulation.** (2)-(2l) is non-linear in three places: the speed
:math:`p_j` depends on the co-location flag :math:`\xi_j` of (1)/(2f), so (2e) multiplies
:math:`y` by a function of the placement; :math:`h_j, c_j` are argmin/argmax of (2j)-(2k); and
(2c)-(2d) fix the allocation over a variable interval :math:`[h_j, c_j]`. All three disappear once
a job's whole schedule is one object. By (2c)-(2d) a job's schedule *is* one fixed allocation --
a worker count per server :math:`y_j = (y_{js})_s` and one PS server :math:`s^{ps}_j` ((2a),
(2b)) -- held from a start slot :math:`h_j` to its completion :math:`c_j`. For such a
configuration :math:`k` the speed is constant, so the duration is
:math:`d_k = \lceil E_jD_jM_j / \text{rate}_k \rceil` with
:math:`\text{rate}_k = p_j(\xi_k)\sum_s y_{js}` ((1), (2e), (2f); ``model.rate`` of the placement),
and (2i) becomes :math:`h \ge e_k = \max_{s \text{ used}} \lceil a_j + \Delta_{js} \rceil`. One
binary column :math:`x_{jkh}` per job, configuration and start :math:`h \in [e_k, T - d_k]`:

.. math::

    \min \sum_{j,k,h} w_j\,(h + d_k - 1 - a_j)\, x_{jkh}                            && (2)\\
    \sum_{k,h} x_{jkh} = 1 \quad \forall j                                          && \text{one schedule}\\
    \sum_{j,k,h:\ h \le t < h + d_k} \big(y_{jks}\,\omega_{jr} + [s = s^{ps}_{jk}]\,\pi_{jr}\big)\,
        x_{jkh} \le C_{sr} \quad \forall s, r, t                                    && (2g)\text{-}(2h)

(:math:`\omega_j, \pi_j` a worker's / the PS's demand; in the A_online encoding one slot of the
job's type :math:`u_j` / :math:`v_j`, so the rows are exactly (2g) and (2h)). The completion is
the last slot with workers, :math:`c_j = h + d_k - 1` ((2k), 0-based slots, the simulator's
``completion_slot``), and the objective is (2) :math:`\sum_j w_j (c_j - a_j)` (weights
``AOnlineModel.weight``, 1 by default = (2) as printed).

**Exactness.** Every feasible schedule of (2)-(2l) is one column per job: its allocation is fixed
((2c)-(2d)), so it is some configuration from some start; running past the slot where (2e) is met
only delays :math:`c_j` and uses more capacity, so it is dominated by stopping at
:math:`h + d_k - 1`. The enumeration is complete over :math:`0 \le y_{js} \le \min(D_j, \lfloor
C_{s}/\omega_j\rfloor)`, :math:`1 \le \sum_s y_{js} \le D_j` and every PS server. Only weakly
dominated configurations are dropped: :math:`k` is removed if another :math:`k'` with the same PS
server has :math:`y_{k'} \le y_k` componentwise (so it uses a subset of the servers -- an earlier
or equal :math:`e_{k'}` -- and no more capacity anywhere) and :math:`d_{k'} \le d_k`; replacing
:math:`k` by :math:`k'` in any solution keeps it feasible and does not raise (2). Compared with a
direct linearisation (integer :math:`y_{js}(t)`, big-M links for (2c)-(2d) and for the
:math:`\xi`-dependent rate, indicator variables for (2j)-(2k)), this time-indexed formulation has
no big-M, and its LP relaxation is the strong one of time-indexed scheduling models; it is small
only for small instances (columns grow with :math:`T` and with :math:`\prod_s (y^{max}_s + 1)`),
which is all Fig. 14 needs.

**Horizon.** Slots are ``0 .. T-1``. With ``horizon=None`` the horizon is chosen so that it cuts
off no optimal schedule (:func:`exact_horizon`): a greedy list schedule has objective
:math:`G`; every optimal schedule has :math:`w_j(c_j - a_j) \le G - \sum_{i \ne j} w_i \ell_i`
where :math:`\ell_i` is job :math:`i`'s smallest possible :math:`c_i - a_i`, which bounds every
:math:`c_j`. The paper's own :math:`T` can be passed instead.

Every solution is re-checked before it is returned (:func:`check_offline_solution`): rows and
bounds of the rounded MILP point (scipy's ``milp`` has reported "optimal" for points that violate
them), then the schedule alone, slot by slot, with
:func:`dlsched.core.schedule.check_timeline` ((2a), (2b), (2g)-(2i), fixed allocation) and direct
checks of (2c)-(2e), (2j)-(2k) and of the objective. :func:`simulate_offline` replays it through
the simulator (:class:`~dlsched.core.replay.ReplayPolicy`), and :func:`brute_force` solves tiny
instances by exhaustive search (a different enumeration, durations by stepping slot by slot,
capacities on a dense array) to verify the linearisation in the tests.

=====================================  ===========================================================
paper                                  code
=====================================  ===========================================================
:math:`h_j`, :math:`c_j` (2j)-(2k)     :attr:`JobSchedule.start`, :attr:`JobSchedule.completion`
:math:`y_{jsu_j}(t)`                   :attr:`JobSchedule.workers` (fixed over the run)
:math:`z_{jsv_j}(t)`                   :attr:`JobSchedule.ps_server` (one PS, (2b))
:math:`\xi_j`, :math:`p_j` (1)         :attr:`JobSchedule.placement` ``.colocated``, ``rate``
:math:`\sum_j w_j (c_j - a_j)` (2)     :attr:`OfflineSolution.objective`
:math:`T`                              :attr:`OfflineSolution.horizon`
=====================================  ===========================================================
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, OptimizeResult, milp

from dlsched.core.jobs import AOnlineModel, JobSpec, RateContext, Workload
from dlsched.core.replay import ReplayPolicy
from dlsched.core.schedule import Placement, ScheduleViolation, check_timeline
from dlsched.core.simulator import SimulationResult, simulate
from dlsched.core.solvers import check_solver_options, milp_status, rechecked

_EPS = 1e-9
_ROW_TOL = 1e-6
_OBJ_TOL = 1e-6
class OfflineSolverError(RuntimeError):
    """The MILP solver returned a point that fails the independent re-check."""


@dataclass(frozen=True)
class JobSchedule:
    """One job's fixed allocation in an offline schedule ((2c)-(2d)).

    Attributes
    ----------
    job_id : int
    start : int
        :math:`h_j`, first slot with workers (2j).
    completion : int
        :math:`c_j`, last slot with workers (2k).
    workers : tuple[tuple[int, int], ...]
        ``(server, count)`` of :math:`y_{js}`, the same in every slot ``start .. completion``.
    ps_server : int
        Server of the job's one PS (2b).
    rate : float
        Progress per slot of the placement (mini-batches; Eq. (1) with its :math:`\\xi_j`).
    """

    job_id: int
    start: int
    completion: int
    workers: tuple[tuple[int, int], ...]
    ps_server: int
    rate: float

    @property
    def placement(self) -> Placement:
        """The job's placement in each of its slots."""
        return Placement.of(self.workers, {self.ps_server: 1})

    @property
    def duration(self) -> int:
        """Slots from start to completion, inclusive."""
        return self.completion - self.start + 1


@dataclass(frozen=True)
class OfflineSolution:
    """A solution of the offline problem (2)-(2l).

    Attributes
    ----------
    objective : float
        :math:`\\sum_j w_j (c_j - a_j)` recomputed from the schedules (``inf`` without one).
    bound : float
        Lower bound on the optimum (HiGHS's dual bound; equal to ``objective`` when optimal).
    mip_gap : float
        ``(objective - bound) / objective`` (0 when both are 0).
    status : str
        ``"optimal"``, ``"time_limit"``, ``"iteration_limit"``, ``"infeasible"`` or ``"error"``.
    solve_seconds : float
        Wall time of :func:`scipy.optimize.milp`.
    schedules : Mapping[int, JobSchedule]
        Per job (empty without a feasible point).
    allocations : pandas.DataFrame
        Tidy table ``job, slot, server, role, count`` (the simulator's format).
    horizon : int
        :math:`T`: slots ``0 .. T-1`` were available.
    weights : Mapping[int, float]
        :math:`w_j` used in the objective.
    milp_objective : float
        The MILP's own objective at its (rounded) point.
    n_columns, n_constraints : int
        Size of the MILP.
    message : str
        The solver's message.
    """

    objective: float
    bound: float
    mip_gap: float
    status: str
    solve_seconds: float
    schedules: Mapping[int, JobSchedule]
    allocations: pd.DataFrame = field(compare=False, repr=False)
    horizon: int = 0
    weights: Mapping[int, float] = field(default_factory=dict)
    milp_objective: float = math.nan
    n_columns: int = 0
    n_constraints: int = 0
    message: str = ""

    @property
    def completion(self) -> dict[int, int]:
        """:math:`c_j` per job."""
        return {j: s.completion for j, s in self.schedules.items()}


# ---------------------------------------------------------------------------------- validation


def _validate(workload: Workload) -> None:
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a Workload, got {type(workload).__name__}")
    if not workload.jobs:
        raise ValueError("workload has no jobs")
    for spec in workload.jobs:
        if not isinstance(spec.model, AOnlineModel):
            raise ValueError(
                f"job {spec.job_id}: model must be an AOnlineModel for the offline problem (2)-(2l), "
                f"got {type(spec.model).__name__} (kind {spec.model.kind!r})"
            )


def _weights(workload: Workload, weights) -> dict[int, float]:
    out = {s.job_id: float(s.model.weight) for s in workload.jobs}
    if weights is None:
        return out
    if not isinstance(weights, Mapping):
        raise ValueError(f"weights must be a mapping job id -> weight, got {weights!r}")
    for j, w in weights.items():
        if j not in out:
            raise ValueError(f"weights names job {j!r}, which is not in the workload")
        ok = isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, bool)
        if not ok or not math.isfinite(float(w)) or w <= 0:
            raise ValueError(f"weights[{j}] must be a finite number > 0, got {w!r}")
        out[j] = float(w)
    return out


def _check_horizon(T) -> int:
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"horizon must be an integer >= 1, got {T!r}")
    return int(T)


# ---------------------------------------------------------------------------- configurations


@dataclass(frozen=True)
class Configuration:
    """A fixed allocation of one job: workers per server, PS server, rate, duration and the
    earliest start that (2i) allows."""

    workers: tuple[tuple[int, int], ...]
    ps_server: int
    rate: float
    duration: int
    earliest: int

    @property
    def placement(self) -> Placement:
        """The placement of the configuration."""
        return Placement.of(self.workers, {self.ps_server: 1})


def _first_slots(spec: JobSpec, cluster) -> np.ndarray:
    """First slot the job may use each server, (2i): ``ceil(a_j + Delta_js)``."""
    return np.ceil(spec.arrival + spec.delays(cluster) - _EPS).astype(np.int64)


def configurations(spec: JobSpec, cluster) -> list[Configuration]:
    """Every non-dominated fixed allocation of ``spec`` on ``cluster`` (module docstring).

    Parameters
    ----------
    spec : JobSpec
        An A_online job.
    cluster : Cluster

    Returns
    -------
    list[Configuration]
        Sorted by (duration, PS server, workers).
    """
    model = spec.model
    hard = cluster.hard
    cap = cluster.capacity
    wd = cluster.vector(spec.worker_demand)
    pd_ = cluster.vector(spec.ps_demand)
    wsrv = cluster.servers_for("worker")
    psrv = cluster.servers_for("ps")
    with np.errstate(divide="ignore", invalid="ignore"):
        per = np.where((wd > 0) & hard, cap / np.where(wd > 0, wd, 1.0), np.inf).min(axis=1)
    ylim = {int(s): int(min(model.chunks, np.floor(per[s] + _EPS))) for s in wsrv}
    ws = [s for s in map(int, wsrv) if ylim[s] >= 1]
    first = _first_slots(spec, cluster)
    ctx = RateContext(cluster, np.zeros_like(cap))
    out: list[Configuration] = []
    for sp_ in map(int, psrv):
        rows, durs, confs = [], [], []
        for counts in itertools.product(*(range(ylim[s] + 1) for s in ws)):
            n = sum(counts)
            if n < max(1, model.min_workers) or n > model.chunks:
                continue
            workers = tuple((s, c) for s, c in zip(ws, counts, strict=True) if c)
            y = np.zeros(cluster.n_servers)
            for s, c in workers:
                y[s] = c
            if np.any((y[sp_] * wd + pd_)[hard] > cap[sp_, hard] + _EPS):
                continue
            p = Placement.of(workers, {sp_: 1})
            if any(True for _ in model.placement_violations(spec, p)):
                continue
            rate = model.rate(spec, p, ctx)
            if rate <= 0:
                continue
            d = max(1, math.ceil(model.total_work / rate - _EPS))
            e = int(max(first[s] for s in p.servers))
            rows.append(y)
            durs.append(d)
            confs.append(Configuration(workers, sp_, float(rate), d, e))
        if not confs:
            continue
        Y = np.array(rows)
        D = np.array(durs)
        for i, c in enumerate(confs):
            le = np.all(Y <= Y[i], axis=1) & np.any(Y < Y[i], axis=1) & (D <= D[i])
            if not le.any():
                out.append(c)
    out.sort(key=lambda c: (c.duration, c.ps_server, c.workers))
    return out


# ----------------------------------------------------------------------------------- horizon


def _list_schedule(workload: Workload, confs: dict[int, list[Configuration]]) -> dict[int, tuple]:
    """Greedy feasible schedule: jobs in arrival order, each at the (configuration, start) that
    completes earliest given the jobs before it. Returns ``{job: (configuration, start)}``."""
    cluster = workload.cluster
    # a serial schedule (one job at a time) always fits: it bounds the profile length
    t_end = 0
    for spec in workload.jobs:
        c = min(confs[spec.job_id], key=lambda c: (max(c.earliest, t_end) + c.duration, c.duration))
        t_end = max(c.earliest, t_end) + c.duration
    L = t_end + 1
    used = np.zeros((cluster.n_servers, len(cluster.resources), L))
    cap = cluster.capacity[:, :, None]
    hard = cluster.hard
    out = {}
    for spec in workload.jobs:
        wd, pd_ = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
        best = None
        for c in confs[spec.job_id]:
            u = _usage(cluster, c, wd, pd_)
            srv = sorted(c.placement.servers)
            for h in range(c.earliest, L - c.duration + 1):
                if best is not None and h + c.duration >= best[0]:
                    break
                window = used[srv][:, :, h : h + c.duration] + u[srv][:, :, None]
                if np.all(window[:, hard] <= cap[srv][:, hard] + _EPS):
                    best = (h + c.duration, c, h)
                    break
        _, c, h = best
        used[:, :, h : h + c.duration] += _usage(cluster, c, wd, pd_)[:, :, None]
        out[spec.job_id] = (c, h)
    return out


def _usage(cluster, c: Configuration, wd: np.ndarray, pd_: np.ndarray) -> np.ndarray:
    u = np.zeros_like(cluster.capacity)
    for s, n in c.workers:
        u[s] += n * wd
    u[c.ps_server] += pd_
    return u


def exact_horizon(workload: Workload, weights: Mapping[int, float] | None = None) -> int:
    """A horizon :math:`T` that cuts off no optimal schedule of (2)-(2l) (module docstring).

    Parameters
    ----------
    workload : Workload
        A_online jobs.
    weights : Mapping[int, float], optional
        :math:`w_j` (default ``AOnlineModel.weight``).

    Returns
    -------
    int
        ``1 + max_j`` of the largest completion slot an optimal schedule can have.
    """
    _validate(workload)
    w = _weights(workload, weights)
    confs = {s.job_id: configurations(s, workload.cluster) for s in workload.jobs}
    return _exact_horizon(workload, w, confs)


def _exact_horizon(workload, w, confs) -> int:
    greedy = _list_schedule(workload, confs)
    specs = workload.specs
    G = sum(w[j] * (h + c.duration - 1 - specs[j].arrival) for j, (c, h) in greedy.items())
    least = {j: min(c.earliest + c.duration - 1 for c in confs[j]) - specs[j].arrival for j in specs}
    lb = sum(w[j] * least[j] for j in specs)
    last = max(specs[j].arrival + (G - lb + w[j] * least[j]) / w[j] for j in specs)
    return int(math.floor(last + _EPS)) + 1


# -------------------------------------------------------------------------------------- MILP


def _columns(workload: Workload, T: int, confs, w):
    """Column arrays: job index, configuration, start, cost."""
    job_idx, conf_of, start, cost = [], [], [], []
    for i, spec in enumerate(workload.jobs):
        for c in confs[spec.job_id]:
            hs = np.arange(c.earliest, T - c.duration + 1)
            if hs.size == 0:
                continue
            job_idx.append(np.full(hs.size, i))
            conf_of.extend([c] * hs.size)
            start.append(hs)
            cost.append(w[spec.job_id] * (hs + c.duration - 1 - spec.arrival))
    if not job_idx:
        return np.zeros(0, np.int64), [], np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(job_idx), conf_of, np.concatenate(start), np.concatenate(cost).astype(float)


def _capacity_rows(workload: Workload, T: int, job_idx, conf_of, start):
    """Sparse (2g)-(2h) rows over (server, hard resource, slot); non-binding rows dropped."""
    cluster = workload.cluster
    R = len(cluster.resources)
    hard_r = np.flatnonzero(cluster.hard)
    jobs = workload.jobs
    demand = {}
    keys, cols, vals = [], [], []
    for col, (i, c, h) in enumerate(zip(job_idx, conf_of, start, strict=True)):
        spec = jobs[i]
        if (spec.job_id, c) not in demand:
            u = _usage(cluster, c, cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand))
            s_idx, r_idx = np.nonzero(u[:, hard_r] > 0)
            demand[(spec.job_id, c)] = (s_idx, hard_r[r_idx], u[s_idx, hard_r[r_idx]])
        s_idx, r_idx, amt = demand[(spec.job_id, c)]
        slots = np.arange(h, h + c.duration)
        keys.append(((s_idx[:, None] * R + r_idx[:, None]) * T + slots[None, :]).ravel())
        cols.append(np.full(s_idx.size * slots.size, col))
        vals.append(np.repeat(amt, slots.size))
    if not keys:
        return sp.csr_array((0, len(job_idx))), np.zeros(0)
    keys_a, cols_a, vals_a = np.concatenate(keys), np.concatenate(cols), np.concatenate(vals)
    uniq, inv = np.unique(keys_a, return_inverse=True)
    cap = cluster.capacity[uniq // (R * T), (uniq // T) % R]
    most = np.bincount(inv, weights=vals_a, minlength=len(uniq))
    keep = most > cap * (1 + _EPS) + _EPS
    new_row = np.full(len(uniq), -1, dtype=np.int64)
    new_row[keep] = np.arange(int(keep.sum()))
    sel = keep[inv]
    A = sp.csr_array((vals_a[sel], (new_row[inv[sel]], cols_a[sel])), shape=(int(keep.sum()), len(job_idx)))
    A.sum_duplicates()
    return A, cap[keep]


def solve_offline(
    workload: Workload,
    *,
    horizon: int | None = None,
    weights: Mapping[int, float] | None = None,
    time_limit: float = 60.0,
    mip_rel_gap: float = 0.0,
    presolve: bool = True,
    max_columns: int = 2_000_000,
) -> OfflineSolution:
    """Solve (2)-(2l) exactly with HiGHS (:func:`scipy.optimize.milp`); see the module docstring.

    Parameters
    ----------
    workload : Workload
        A_online jobs (:class:`~dlsched.core.jobs.AOnlineModel`) on any cluster.
    horizon : int, optional
        :math:`T` (slots ``0 .. T-1``). Default :func:`exact_horizon`: no optimal schedule is cut
        off.
    weights : Mapping[int, float], optional
        :math:`w_j` per job id (default ``AOnlineModel.weight``).
    time_limit : float, default 60
        HiGHS time limit, seconds (> 0).
    mip_rel_gap : float, default 0
        Relative gap at which HiGHS stops (0: prove optimality).
    presolve : bool, default True
        HiGHS presolve (the tests compare both settings with brute force).
    max_columns : int or None, default 2_000_000
        Refuse larger MILPs (``ValueError`` naming the size) instead of exhausting memory.

    Returns
    -------
    OfflineSolution
        Re-checked by :func:`check_offline_solution` when it has a schedule.

    Raises
    ------
    TypeError
        If ``workload`` is not a Workload.
    ValueError
        On a job that is not an A_online job, a bad horizon, weight or solver option, or a MILP
        above ``max_columns`` (each message names the field and the value).
    OfflineSolverError
        If the solver's rounded point violates the MILP or the independent re-check.
    """
    _validate(workload)
    w = _weights(workload, weights)
    check_solver_options(time_limit, mip_rel_gap)
    if not isinstance(presolve, bool):
        raise ValueError(f"presolve must be a bool, got {presolve!r}")
    if max_columns is not None and (
        isinstance(max_columns, bool) or not isinstance(max_columns, (int, np.integer)) or max_columns < 1
    ):
        raise ValueError(f"max_columns must be an integer >= 1 or None, got {max_columns!r}")
    cluster = workload.cluster
    confs = {s.job_id: configurations(s, cluster) for s in workload.jobs}
    for s in workload.jobs:
        if not confs[s.job_id]:
            raise ValueError(f"job {s.job_id}: no fixed allocation fits on any server of the cluster")
    T = _exact_horizon(workload, w, confs) if horizon is None else _check_horizon(horizon)
    n_est = sum(max(0, T - c.duration - c.earliest + 1) for cs in confs.values() for c in cs)
    if max_columns is not None and n_est > max_columns:
        raise ValueError(
            f"the MILP would have {n_est} columns > max_columns={max_columns} (horizon T={T}); "
            "use a smaller instance or horizon"
        )
    job_idx, conf_of, start, cost = _columns(workload, T, confs, w)
    n = len(conf_of)
    J = len(workload.jobs)
    A_cap, cap_hi = _capacity_rows(workload, T, job_idx, conf_of, start)
    A_one = sp.csr_array((np.ones(n), (job_idx, np.arange(n))), shape=(J, n))
    A = sp.vstack([A_one, A_cap], format="csr")
    lo = np.concatenate([np.ones(J), np.full(A_cap.shape[0], -np.inf)])
    hi = np.concatenate([np.ones(J), cap_hi])
    t0 = time.perf_counter()
    if np.any(np.bincount(job_idx, minlength=J) == 0):  # some job has no start inside [0, T)
        res = OptimizeResult(status=2, message="a job has no schedule inside the horizon", x=None)
    else:
        res = milp(
            cost,
            integrality=np.ones(n, dtype=np.int8),
            bounds=Bounds(np.zeros(n), np.ones(n)),
            constraints=[LinearConstraint(A, lo, hi)],
            options={
                "time_limit": float(time_limit),
                "mip_rel_gap": float(mip_rel_gap),
                "disp": False,
                "presolve": presolve,
            },
        )
    secs = time.perf_counter() - t0
    message = str(res.message)
    status = milp_status(res)
    schedules: dict[int, JobSchedule] = {}
    milp_obj = math.nan
    if res.x is not None:
        x = np.rint(np.asarray(res.x, dtype=float))
        _check_rounded(A, lo, hi, x, status)
        milp_obj = float(cost @ x)
        for col in np.flatnonzero(x > 0.5):
            spec = workload.jobs[job_idx[col]]
            c, h = conf_of[col], int(start[col])
            schedules[spec.job_id] = JobSchedule(
                spec.job_id, h, h + c.duration - 1, c.workers, c.ps_server, c.rate
            )
    specs = workload.specs
    if schedules:
        objective = float(sum(w[j] * (s.completion - specs[j].arrival) for j, s in schedules.items()))
    else:
        objective = math.inf
    dual = getattr(res, "mip_dual_bound", None)
    bound = (
        float(dual) if dual is not None and np.isfinite(dual) else (objective if status == "optimal" else 0.0)
    )
    bound = min(bound, objective)
    sol = OfflineSolution(
        objective=objective,
        bound=bound,
        mip_gap=_gap(objective, bound),
        status=status,
        solve_seconds=secs,
        schedules=MappingProxyType(dict(sorted(schedules.items()))),
        allocations=_allocations(schedules),
        horizon=T,
        weights=MappingProxyType(w),
        milp_objective=milp_obj,
        n_columns=n,
        n_constraints=int(A.shape[0]),
        message=message,
    )
    if schedules:
        if abs(objective - milp_obj) > _OBJ_TOL * max(1.0, abs(milp_obj)):
            raise OfflineSolverError(
                f"objective recomputed from the schedules ({objective:g}) differs from the MILP's "
                f"({milp_obj:g})"
            )
        rechecked(check_offline_solution, workload, sol, status, OfflineSolverError)
    return sol


def _gap(objective: float, bound: float) -> float:
    if not (math.isfinite(objective) and math.isfinite(bound)):
        return math.inf
    diff = max(0.0, objective - bound)
    if objective > 0:
        return diff / objective
    return 0.0 if diff <= _OBJ_TOL else math.inf


def _check_rounded(A, lo, hi, x, status) -> None:
    if np.any(x < -_ROW_TOL) or np.any(x > 1 + _ROW_TOL):
        k = int(np.flatnonzero((x < -_ROW_TOL) | (x > 1 + _ROW_TOL))[0])
        raise OfflineSolverError(
            f"scipy.optimize.milp reported {status!r}, but column {k} is {x[k]:g}, outside [0, 1]"
        )
    ax = A @ x
    over = np.maximum(ax - hi, lo - ax)
    if over.size and over.max() > _ROW_TOL:
        k = int(np.argmax(over))
        what = "one schedule per job" if k < np.sum(lo == hi) else "capacity (2g)-(2h)"
        raise OfflineSolverError(
            f"scipy.optimize.milp reported {status!r}, but the rounded point violates {what} "
            f"(row {k}): {ax[k]:g} not in [{lo[k]:g}, {hi[k]:g}]"
        )


def _allocations(schedules: Mapping[int, JobSchedule]) -> pd.DataFrame:
    rows = []
    for j, s in schedules.items():
        for t in range(s.start, s.completion + 1):
            for srv, c in s.workers:
                rows.append((j, t, srv, "worker", c))
            rows.append((j, t, s.ps_server, "ps", 1))
    df = pd.DataFrame(rows, columns=["job", "slot", "server", "role", "count"])
    df = df.astype({"job": "int64", "slot": "int64", "server": "int64", "count": "int64"})
    df["role"] = df["role"].astype(object)
    return df.sort_values(["slot", "job", "role", "server"], kind="stable").reset_index(drop=True)


# ------------------------------------------------------------------------------ re-checking


def check_offline_solution(workload: Workload, solution: OfflineSolution) -> None:
    """Re-check a solution of (2)-(2l) from its schedules and allocation table alone.

    Checks: every job scheduled inside ``0 .. T-1``; the allocation table equals the schedules;
    :func:`dlsched.core.schedule.check_timeline` on it ((2a), (2b), (2g)-(2h), (2i), and the fixed
    allocation of non-elastic, non-preemptible jobs); per job one unchanged placement over
    ``start .. completion`` without gaps ((2c)-(2d)); enough work, :math:`\\sum_t` ``rate`` of the
    placement :math:`\\ge E_jD_jM_j` (2e); start and completion the first and last slots with
    workers (2j)-(2k); and the objective :math:`\\sum_j w_j(c_j - a_j)`.

    Parameters
    ----------
    workload : Workload
    solution : OfflineSolution

    Raises
    ------
    ScheduleViolation
        Naming the violated constraint, job, slot and amounts.
    """
    specs = workload.specs
    T = solution.horizon
    missing = sorted(set(specs) - set(solution.schedules))
    if missing:
        raise ScheduleViolation("schedule", f"jobs {missing} have no schedule", job=missing[0])
    df = solution.allocations
    if not _allocations(solution.schedules).equals(df.reset_index(drop=True)):
        raise ScheduleViolation("schedule", "the allocation table does not match the schedules")
    if len(df) and (df["slot"].min() < 0 or df["slot"].max() >= T):
        bad = df[(df["slot"] < 0) | (df["slot"] >= T)].iloc[0]
        raise ScheduleViolation(
            "horizon", f"allocation outside slots 0..{T - 1}", job=int(bad["job"]), slot=int(bad["slot"])
        )
    check_timeline(workload.cluster, specs, df)
    ctx = RateContext(workload.cluster, np.zeros_like(workload.cluster.capacity))
    total = 0.0
    for j, spec in specs.items():
        s = solution.schedules[j]
        mine = df[df["job"] == j]
        slots = sorted(set(mine.loc[mine["role"] == "worker", "slot"].astype(int)))
        if slots != list(range(s.start, s.completion + 1)):
            raise ScheduleViolation(
                "(2c)-(2d)/(2j)-(2k)",
                f"job {j} has workers in slots {slots[:3]}..., not exactly {s.start}..{s.completion}",
                job=j,
            )
        placements = {
            Placement.of(
                {int(r.server): int(r.count) for r in g.itertuples() if r.role == "worker"},
                {int(r.server): int(r.count) for r in g.itertuples() if r.role == "ps"},
            )
            for _, g in mine.groupby("slot")
        }
        if placements != {s.placement}:
            raise ScheduleViolation("(2c)-(2d)", f"job {j}'s placement changes during its run", job=j)
        rate = spec.model.rate(spec, s.placement, ctx)
        done = rate * s.duration
        if done < spec.model.total_work * (1 - 1e-9) - _EPS:
            raise ScheduleViolation(
                "(2e)",
                f"job {j} trains {done:g} of its {spec.model.total_work:g} mini-batches",
                job=j,
                amount=done,
                limit=spec.model.total_work,
            )
        total += solution.weights.get(j, 1.0) * (s.completion - spec.arrival)
    if abs(total - solution.objective) > _OBJ_TOL * max(1.0, abs(total)):
        raise ScheduleViolation(
            "objective", f"objective {solution.objective:g} differs from the recomputed (2) {total:g}"
        )


def simulate_offline(workload: Workload, solution: OfflineSolution) -> SimulationResult:
    """Replay ``solution`` through the simulator (:class:`~dlsched.core.replay.ReplayPolicy`):
    the same engine, checker and completion accounting as every online policy."""
    return simulate(workload, ReplayPolicy(solution.allocations))


def total_completion_time(result: SimulationResult | pd.DataFrame, weights=None) -> float:
    """Objective (2) of a simulation: :math:`\\sum_j w_j (c_j - a_j)` with :math:`c_j` the
    ``completion_slot`` (the last slot with workers, (2k)).

    Parameters
    ----------
    result : SimulationResult or pandas.DataFrame
        A run (or its job table).
    weights : Mapping[int, float], optional
        Default: the jobs' ``AOnlineModel.weight`` (1 for other models).

    Raises
    ------
    ValueError
        If some job did not finish (the objective is then undefined).
    """
    jobs = result.jobs if isinstance(result, SimulationResult) else result
    unfinished = jobs.loc[jobs["status"] != "finished", "job_id"].tolist()
    if unfinished:
        raise ValueError(f"jobs {unfinished[:5]} did not finish: total completion time is undefined")
    if weights is None and isinstance(result, SimulationResult):
        specs = result.workload.specs
        weights = {j: float(getattr(specs[j].model, "weight", 1.0)) for j in specs}
    weights = weights or {}
    c = jobs["completion_slot"].to_numpy(float) - jobs["arrival"].to_numpy(float)
    w = np.array([weights.get(int(j), 1.0) for j in jobs["job_id"]])
    return float(np.sum(w * c))


# ------------------------------------------------------------------------------- brute force


def brute_force(
    workload: Workload, horizon: int, *, weights: Mapping[int, float] | None = None
) -> tuple[float, dict[int, tuple[Placement, int, int]]]:
    """Exhaustive optimum of (2)-(2l) on a tiny instance, independent of the MILP.

    Enumerates every fixed allocation of every job directly from (2a)-(2b) (worker counts
    ``0..D_j`` per worker server, every PS server, no dominance pruning), its duration by adding
    the placement's rate slot by slot until (2e) holds, its starts by testing (2i) slot by slot,
    then searches all combinations depth-first with capacities (2g)-(2h) on a dense
    (server, resource, slot) array and a bound on the remaining jobs.

    Parameters
    ----------
    workload : Workload
        A few A_online jobs on a few servers.
    horizon : int
        :math:`T`.
    weights : Mapping[int, float], optional

    Returns
    -------
    (float, dict)
        The optimum of (2) (``inf`` if infeasible) and ``{job: (placement, start, completion)}``.
    """
    _validate(workload)
    T = _check_horizon(horizon)
    w = _weights(workload, weights)
    cluster = workload.cluster
    cap = cluster.capacity
    hard = cluster.hard
    ctx = RateContext(cluster, np.zeros_like(cap))
    wsrv = [int(s) for s in cluster.servers_for("worker")]
    psrv = [int(s) for s in cluster.servers_for("ps")]
    options = []
    for spec in workload.jobs:
        m = spec.model
        wd, pd_ = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
        delays = spec.delays(cluster)
        opts = []
        for counts in itertools.product(range(m.chunks + 1), repeat=len(wsrv)):
            if not 1 <= sum(counts) <= m.chunks:
                continue
            for ps in psrv:
                p = Placement.of(dict(zip(wsrv, counts, strict=True)), {ps: 1})
                use = np.zeros_like(cap)
                for s, c in p.workers:
                    use[s] += c * wd
                use[ps] += pd_
                if np.any(use[:, hard] > cap[:, hard] + _EPS):
                    continue
                rate = m.rate(spec, p, ctx)
                done, d = 0.0, 0
                while done < m.total_work - 1e-9 * m.total_work and d <= T:
                    done += rate
                    d += 1
                for h in range(T - d + 1):
                    if all(h >= spec.arrival + delays[s] - _EPS for s in p.servers):
                        cost = w[spec.job_id] * (h + d - 1 - spec.arrival)
                        opts.append((cost, h, d, p, use))
        opts.sort(key=lambda o: o[0])
        options.append((spec.job_id, opts))
    least = [o[0][0] if o else math.inf for _, o in options]
    rest = np.concatenate([np.cumsum(least[::-1])[::-1][1:], [0.0]])
    used = np.zeros((cluster.n_servers, len(cluster.resources), T))
    best = [math.inf, {}]
    chosen: dict[int, tuple[Placement, int, int]] = {}

    def dfs(k: int, acc: float) -> None:
        if k == len(options):
            if acc < best[0] - 1e-12:
                best[0], best[1] = acc, dict(chosen)
            return
        j, opts = options[k]
        for cost, h, d, p, use in opts:
            if acc + cost + rest[k] >= best[0] - 1e-12:
                break
            window = used[:, :, h : h + d] + use[:, :, None]
            if np.any(window[:, hard] > cap[:, hard, None] + _EPS):
                continue
            used[:, :, h : h + d] += use[:, :, None]
            chosen[j] = (p, h, h + d - 1)
            dfs(k + 1, acc + cost)
            used[:, :, h : h + d] -= use[:, :, None]
            del chosen[j]

    dfs(0, 0.0)
    return float(best[0]), best[1]


__all__ = [
    "Configuration",
    "JobSchedule",
    "OfflineSolution",
    "OfflineSolverError",
    "brute_force",
    "check_offline_solution",
    "configurations",
    "exact_horizon",
    "simulate_offline",
    "solve_offline",
    "total_completion_time",
]
