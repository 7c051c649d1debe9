r"""The offline problem (1)-(13) of OASiS as a mixed-integer linear program (HiGHS via scipy).

The paper solves (1)-(13) exactly to compute the performance ratio of Fig. 5 (10 jobs, T = 10;
"2 days"). This module writes it as one MILP and solves it with :func:`scipy.optimize.milp`.

Formulation (slots are 0-based, ``0 .. T-1``; :math:`a_i` is ``JobSpec.arrival``):

* :math:`x_i \in \{0,1\}` -- job ``i`` admitted (11);
* :math:`u_{i,t} \in \{0,1\}` for :math:`t \in [a_i, T-1]` -- job ``i`` completes in slot ``t``,
  with :math:`\sum_t u_{i,t} = x_i`;
* integers :math:`y_{i,h,t} \ge 0` on worker servers and :math:`z_{i,k,t} \ge 0` on PS servers,
  only for :math:`t \ge a_i` (+ the server's transfer delay, 0 in OASiS): (9)-(10), (12)-(13).

.. math::

    \max \sum_i \sum_{t} f_i(t - a_i)\, u_{i,t}                                     && (1)\\
    \sum_{t,h} y_{i,h,t} \ge \lceil E_iN_iM_i(\tau_i + 2e_i/b_i) \rceil\, x_i          && (2)\\
    \sum_h y_{i,h,t} \le N_i \sum_{t' \ge t} u_{i,t'}                                 && (3)\\
    \sum_i w_i^r y_{i,h,t} \le c_h^r,\quad \sum_i s_i^r z_{i,k,t} \le c_k^r           && (4),(5)\\
    b_i \sum_h y_{i,h,t} \le B_i \sum_k z_{i,k,t},\quad \sum_k z_{i,k,t} \le \sum_h y_{i,h,t} && (6),(7)

(2) counts worker-slots (:attr:`OasisModel.minibatch_time` is :math:`\tau_i + 2e_i/b_i`); since
the left side is an integer the right side is rounded up (with a 1e-9 tolerance, as the
simulator's completion test). (3) also says "no worker after the completion slot". The duration
convention is the simulator's (:mod:`dlsched.core.simulator`): completing in slot ``t`` gives
:math:`f_i(t - a_i)`.

Why the completion variables match (8): (3) forces the last slot with workers to be at most the
slot ``t`` with :math:`u_{i,t} = 1`; because :math:`f_i` is non-increasing, moving the completion
to the last slot with workers never lowers the objective, so an optimal solution exists in which
the completion slot *is* the last slot with workers, which is (8). The reported objective and
completion slots are recomputed from the allocations with (8) (never read from ``u``), and this
value is at least the MILP's own objective.

Every solution is re-checked independently before it is returned
(:func:`check_offline_solution`): integer variables are rounded, the rounded point is checked
against the MILP rows (scipy's ``milp`` has reported "optimal" for bound-violating points), then
the allocation table goes through :func:`dlsched.core.schedule.check_timeline` and direct checks
of (2), (3), (6), (7), (8) and of the objective. :func:`simulate_offline` replays the solution
through the simulator with :class:`dlsched.core.replay.ReplayPolicy`.

=====================  ==========================================================
paper                  code
=====================  ==========================================================
:math:`x_i`            ``OfflineSolution.admitted``
:math:`\hat t_i`       ``OfflineSolution.completion``
:math:`y_{ih}(t)`      rows ``role == "worker"`` of ``OfflineSolution.allocations``
:math:`z_{ik}(t)`      rows ``role == "ps"`` of ``OfflineSolution.allocations``
=====================  ==========================================================
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, OptimizeResult, milp

from dlsched.core.jobs import ConstantUtility, OasisModel, Sigmoid, Workload
from dlsched.core.replay import ReplayPolicy
from dlsched.core.schedule import ScheduleViolation, check_timeline
from dlsched.core.simulator import SimulationResult, simulate
from dlsched.core.solvers import check_solver_options, milp_status, rechecked

_EPS = 1e-9
_ROW_TOL = 1e-6
_OBJ_TOL = 1e-6

class OfflineSolverError(RuntimeError):
    """The MILP solver returned a point that fails the independent re-check (e.g. a rounded
    "optimal" point that violates a constraint), or its replay disagrees with it."""


@dataclass(frozen=True)
class OfflineSolution:
    """A solution of the offline problem (1)-(13).

    Attributes
    ----------
    objective : float
        Total utility :math:`\\sum_i f_i(\\hat t_i - a_i)` of the admitted jobs, recomputed from the
        allocations with (8).
    bound : float
        Upper bound on the optimum: HiGHS's dual bound, capped by the trivial bound
        :math:`\\sum_i f_i(0)` (which is used alone when HiGHS reports none).
    mip_gap : float
        ``(bound - objective) / objective`` (0 when both are 0, ``inf`` when the objective is 0
        and the bound is not).
    status : str
        ``"optimal"``, ``"time_limit"``, ``"iteration_limit"``, ``"infeasible"``,
        ``"unbounded"`` or ``"error"``.
    solve_seconds : float
        Wall time of :func:`scipy.optimize.milp`.
    admitted : tuple[int, ...]
        Admitted job ids (:math:`x_i = 1`), sorted.
    completion : dict[int, int]
        Completion slot of every admitted job (last slot with workers).
    allocations : pandas.DataFrame
        Tidy table ``job, slot, server, role, count`` (the format of
        :attr:`dlsched.core.simulator.SimulationResult.allocations`).
    message : str
        The solver's message.
    horizon : int
        ``T``: slots ``0 .. T-1`` were available.
    milp_objective : float
        The objective of the MILP's point (utility credited through ``u``); ``<= objective``.
    n_variables, n_constraints : int
        Size of the MILP.
    """

    objective: float
    bound: float
    mip_gap: float
    status: str
    solve_seconds: float
    admitted: tuple[int, ...]
    completion: dict[int, int]
    allocations: pd.DataFrame = field(compare=False, repr=False)
    message: str = ""
    horizon: int = 0
    milp_objective: float = 0.0
    n_variables: int = 0
    n_constraints: int = 0


# --------------------------------------------------------------------------------- validation


def _horizon(workload: Workload, horizon: int | None) -> int:
    T = workload.horizon if horizon is None else horizon
    if T is None:
        raise ValueError(
            "horizon is required: pass horizon= or use a Workload with a horizon (got None for both)"
        )
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"horizon must be an integer >= 1, got {T!r}")
    return int(T)


def _validate(workload: Workload, horizon: int | None) -> int:
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a Workload, got {type(workload).__name__}")
    T = _horizon(workload, horizon)
    cluster = workload.cluster
    for s in cluster.servers:
        if s.pool not in ("worker", "ps"):
            raise ValueError(
                f"cluster: server {s.name!r} is in pool {s.pool!r}; the offline problem (1)-(13) "
                "needs separate 'worker' and 'ps' pools (Cluster.two_pools)"
            )
    pools = set(cluster.pools)
    for need in ("worker", "ps"):
        if need not in pools:
            raise ValueError(f"cluster has no server in pool {need!r}; pools present: {sorted(pools)}")
    for spec in workload.jobs:
        if not isinstance(spec.model, OasisModel):
            raise ValueError(
                f"job {spec.job_id}: model must be an OasisModel, got {type(spec.model).__name__} "
                f"(kind {spec.model.kind!r})"
            )
        if not isinstance(spec.utility, (Sigmoid, ConstantUtility)):
            raise ValueError(
                f"job {spec.job_id}: utility must be Sigmoid or ConstantUtility, "
                f"got {type(spec.utility).__name__}"
            )
    return T


def required_worker_slots(model: OasisModel) -> int:
    r"""Right side of (2): :math:`\lceil E_iN_iM_i(\tau_i + 2e_i/b_i) \rceil` worker-slots.

    Parameters
    ----------
    model : OasisModel

    Returns
    -------
    int
        Worker-slots needed (the ceiling uses a 1e-9 tolerance, like the simulator).
    """
    return max(1, math.ceil(model.total_work * model.minibatch_time - _EPS))


# ------------------------------------------------------------------------------- MILP building


@dataclass(frozen=True)
class _Problem:
    """The MILP arrays and the maps back to jobs, servers and slots."""

    T: int
    job_ids: np.ndarray  # (I,)
    arrival: np.ndarray  # (I,)
    c: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    A: sp.csr_array
    row_lo: np.ndarray
    row_hi: np.ndarray
    row_block: np.ndarray  # block name index per row
    blocks: tuple[str, ...]
    u_off: int
    u_job: np.ndarray
    u_slot: np.ndarray
    y_off: int
    y_job: np.ndarray
    y_server: np.ndarray
    y_slot: np.ndarray
    z_off: int
    z_job: np.ndarray
    z_server: np.ndarray
    z_slot: np.ndarray


def _per_server_limit(cap: np.ndarray, demand: np.ndarray, hard: np.ndarray) -> np.ndarray:
    """floor(min_r cap[s, r] / demand[i, r]) over hard resources with positive demand: (I, S)."""
    d = np.where(hard[None, :], demand, 0.0)  # (I, R)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(d[:, None, :] > 0, cap[None, :, :] / d[:, None, :], np.inf)  # (I, S, R)
    lim = np.floor(ratio.min(axis=2) + _EPS)
    return lim


def _build(workload: Workload, T: int) -> _Problem:
    cluster = workload.cluster
    jobs = workload.jobs
    n_jobs, S, R = len(jobs), cluster.n_servers, len(cluster.resources)
    job_ids = np.array([s.job_id for s in jobs], dtype=np.int64)
    arrival = np.array([s.arrival for s in jobs], dtype=np.int64)
    models = [s.model for s in jobs]
    N = np.array([m.chunks for m in models], dtype=float)
    need = np.array([required_worker_slots(m) for m in models], dtype=float)
    bw = np.array([m.worker_bw for m in models])
    psbw = np.array([m.ps_bw for m in models])
    Wd = np.array([cluster.vector(s.worker_demand) for s in jobs]).reshape(n_jobs, R)
    Pd = np.array([cluster.vector(s.ps_demand) for s in jobs]).reshape(n_jobs, R)
    delay = np.array([s.delays(cluster) for s in jobs], dtype=float).reshape(n_jobs, S)
    first = arrival[:, None] + np.ceil(delay - _EPS).astype(np.int64)  # first usable slot (n_jobs, S)
    pools = np.array(cluster.pools)
    is_w, is_p = pools == "worker", pools == "ps"
    cap = cluster.capacity
    hard = cluster.hard
    slots = np.arange(T)

    ylim = np.minimum(_per_server_limit(cap, Wd, hard), N[:, None])  # (n_jobs, S)
    zlim = np.minimum(_per_server_limit(cap, Pd, hard), N[:, None])
    ok_y = is_w[None, :, None] & (ylim[:, :, None] >= 1) & (slots[None, None, :] >= first[:, :, None])
    ok_z = is_p[None, :, None] & (zlim[:, :, None] >= 1) & (slots[None, None, :] >= first[:, :, None])
    y_job, y_server, y_slot = np.nonzero(ok_y)
    z_job, z_server, z_slot = np.nonzero(ok_z)
    u_job, u_slot = np.nonzero(slots[None, :] >= arrival[:, None])  # ordered by job, then slot

    ny, nz, nu = len(y_job), len(z_job), len(u_job)
    u_off, y_off = n_jobs, n_jobs + nu
    z_off = y_off + ny
    n = z_off + nz
    # pair (i, t) with t >= a_i has the same index as u_{i,t}
    pair_first = np.zeros(n_jobs, dtype=np.int64)
    if n_jobs:
        counts = np.bincount(u_job, minlength=n_jobs)
        pair_first[1:] = np.cumsum(counts)[:-1]
    n_pairs = nu

    def pair(job, slot):
        return pair_first[job] + slot - arrival[job]

    rows, cols, vals, lo, hi, block = [], [], [], [], [], []
    row0 = 0

    def add_block(name, r, cidx, v, lo_b, hi_b, nrows):
        nonlocal row0
        rows.append(np.asarray(r, dtype=np.int64) + row0)
        cols.append(np.asarray(cidx, dtype=np.int64))
        vals.append(np.asarray(v, dtype=float))
        lo.append(np.broadcast_to(np.asarray(lo_b, dtype=float), (nrows,)))
        hi.append(np.broadcast_to(np.asarray(hi_b, dtype=float), (nrows,)))
        block.append(np.full(nrows, len(blocks)))
        blocks.append(name)
        row0 += nrows

    blocks: list[str] = []
    jj = np.arange(n_jobs)
    yv = y_off + np.arange(ny)
    zv = z_off + np.arange(nz)
    uv = u_off + np.arange(nu)
    # sum_t u_{i,t} - x_i = 0
    add_block(
        "completion_link",
        np.concatenate([u_job, jj]),
        np.concatenate([uv, jj]),
        np.concatenate([np.ones(nu), -np.ones(n_jobs)]),
        0.0,
        0.0,
        n_jobs,
    )
    # (2): sum y - need_i x_i >= 0
    add_block(
        "(2) work",
        np.concatenate([y_job, jj]),
        np.concatenate([yv, jj]),
        np.concatenate([np.ones(ny), -need]),
        0.0,
        np.inf,
        n_jobs,
    )
    # (3): sum_h y_{i,h,t} - N_i sum_{t' >= t} u_{i,t'} <= 0, rows = pairs
    cnt = u_slot - arrival[u_job] + 1  # u_{i,t'} appears in rows t = a_i .. t'
    rep = np.repeat(np.arange(nu), cnt)
    within = np.arange(rep.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    add_block(
        "(3) max workers / completion",
        np.concatenate([pair(y_job, y_slot), pair_first[u_job[rep]] + within]),
        np.concatenate([yv, uv[rep]]),
        np.concatenate([np.ones(ny), -N[u_job[rep]]]),
        -np.inf,
        0.0,
        n_pairs,
    )
    # (6): b_i sum_h y - B_i sum_k z <= 0
    add_block(
        "(6) PS bandwidth",
        np.concatenate([pair(y_job, y_slot), pair(z_job, z_slot)]),
        np.concatenate([yv, zv]),
        np.concatenate([bw[y_job], -psbw[z_job]]),
        -np.inf,
        0.0,
        n_pairs,
    )
    # (7): sum_k z - sum_h y <= 0
    add_block(
        "(7) PS count",
        np.concatenate([pair(z_job, z_slot), pair(y_job, y_slot)]),
        np.concatenate([zv, yv]),
        np.concatenate([np.ones(nz), -np.ones(ny)]),
        -np.inf,
        0.0,
        n_pairs,
    )
    # variable bounds
    lb = np.zeros(n)
    ub = np.concatenate([np.ones(n_jobs), np.ones(nu), ylim[y_job, y_server], zlim[z_job, z_server]])
    # (4)/(5): per (server, hard resource, slot): sum_i w_i^r y + s_i^r z <= c
    hard_r = np.flatnonzero(hard)
    keys, kcols, kvals = [], [], []
    for var_off, job, server, slot, dem in (
        (y_off, y_job, y_server, y_slot, Wd),
        (z_off, z_job, z_server, z_slot, Pd),
    ):
        d = dem[job][:, hard_r]  # (nvars, R_hard)
        v_idx, r_pos = np.nonzero(d > 0)
        r = hard_r[r_pos]
        keys.append((server[v_idx] * R + r) * T + slot[v_idx])
        kcols.append(var_off + v_idx)
        kvals.append(d[v_idx, r_pos])
    keys_a = np.concatenate(keys) if keys else np.zeros(0, np.int64)
    kcols_a = np.concatenate(kcols) if kcols else np.zeros(0, np.int64)
    kvals_a = np.concatenate(kvals) if kvals else np.zeros(0)
    uniq, inv = np.unique(keys_a, return_inverse=True)
    cap_of = cap[uniq // (R * T), (uniq // T) % R]
    # drop rows that cannot bind even with every variable at its upper bound
    most = np.bincount(inv, weights=kvals_a * ub[kcols_a], minlength=len(uniq))
    keep = most > cap_of * (1 + _EPS) + _EPS
    new_row = np.full(len(uniq), -1, dtype=np.int64)
    new_row[keep] = np.arange(int(keep.sum()))
    sel = keep[inv]
    add_block(
        "(4)/(5) capacity",
        new_row[inv[sel]],
        kcols_a[sel],
        kvals_a[sel],
        -np.inf,
        cap_of[keep],
        int(keep.sum()),
    )

    A = sp.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(row0, n))
    A.sum_duplicates()
    # objective: maximise sum f_i(t - a_i) u_{i,t}  ->  minimise the negative
    c = np.zeros(n)
    for i, spec in enumerate(jobs):
        m = u_job == i
        if m.any():
            c[u_off + np.flatnonzero(m)] = -np.asarray(spec.utility(u_slot[m] - arrival[i]), dtype=float)
    return _Problem(
        T=T,
        job_ids=job_ids,
        arrival=arrival,
        c=c,
        lb=lb,
        ub=ub,
        A=A,
        row_lo=np.concatenate(lo),
        row_hi=np.concatenate(hi),
        row_block=np.concatenate(block),
        blocks=tuple(blocks),
        u_off=u_off,
        u_job=u_job,
        u_slot=u_slot,
        y_off=y_off,
        y_job=y_job,
        y_server=y_server,
        y_slot=y_slot,
        z_off=z_off,
        z_job=z_job,
        z_server=z_server,
        z_slot=z_slot,
    )


def _check_rounded(prob: _Problem, x: np.ndarray, status: str) -> None:
    """Raise OfflineSolverError if the rounded point breaks a bound or a row of the MILP."""
    tol_b = _ROW_TOL
    if np.any(x < prob.lb - tol_b) or np.any(x > prob.ub + tol_b):
        k = int(np.flatnonzero((x < prob.lb - tol_b) | (x > prob.ub + tol_b))[0])
        raise OfflineSolverError(
            f"scipy.optimize.milp reported {status!r}, but the rounded point violates the bounds of "
            f"variable {k}: value {x[k]:g} not in [{prob.lb[k]:g}, {prob.ub[k]:g}]"
        )
    ax = prob.A @ x
    scale = np.maximum(1.0, np.abs(np.where(np.isfinite(prob.row_hi), prob.row_hi, 0.0)))
    over = np.maximum(ax - prob.row_hi, prob.row_lo - ax) / scale
    if over.size and over.max() > _ROW_TOL:
        k = int(np.argmax(over))
        raise OfflineSolverError(
            f"scipy.optimize.milp reported {status!r}, but the rounded point violates constraint "
            f"{prob.blocks[prob.row_block[k]]!r} (row {k}): {ax[k]:g} not in "
            f"[{prob.row_lo[k]:g}, {prob.row_hi[k]:g}]"
        )


def _allocations(prob: _Problem, x: np.ndarray) -> pd.DataFrame:
    yc = np.rint(x[prob.y_off : prob.z_off]).astype(np.int64)
    zc = np.rint(x[prob.z_off :]).astype(np.int64)
    my, mz = yc > 0, zc > 0
    df = pd.DataFrame(
        {
            "job": np.concatenate([prob.job_ids[prob.y_job[my]], prob.job_ids[prob.z_job[mz]]]),
            "slot": np.concatenate([prob.y_slot[my], prob.z_slot[mz]]).astype(np.int64),
            "server": np.concatenate([prob.y_server[my], prob.z_server[mz]]).astype(np.int64),
            "role": np.array(["worker"] * int(my.sum()) + ["ps"] * int(mz.sum()), dtype=object),
            "count": np.concatenate([yc[my], zc[mz]]),
        }
    )
    return df.sort_values(["slot", "job", "role", "server"], kind="stable").reset_index(drop=True)


def _empty_allocations() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "job": pd.Series(dtype="int64"),
            "slot": pd.Series(dtype="int64"),
            "server": pd.Series(dtype="int64"),
            "role": pd.Series(dtype=object),
            "count": pd.Series(dtype="int64"),
        }
    )


def _first_u(prob: _Problem) -> np.ndarray:
    """Positions (within the u block) of u_{i, a_i}: f_i(0) is job i's largest utility."""
    return np.flatnonzero(prob.u_slot == prob.arrival[prob.u_job])


def _gap(objective: float, bound: float) -> float:
    if not math.isfinite(bound):
        return math.nan
    diff = max(0.0, bound - objective)
    if objective > 0:
        return diff / objective
    return 0.0 if diff <= _OBJ_TOL else math.inf


# ---------------------------------------------------------------------------------- solve


def solve_offline(
    workload: Workload,
    *,
    horizon: int | None = None,
    time_limit: float = 60.0,
    mip_rel_gap: float = 0.0,
    presolve: bool = False,
) -> OfflineSolution:
    """Solve the offline problem (1)-(13) with HiGHS (:func:`scipy.optimize.milp`).

    Parameters
    ----------
    workload : Workload
        OASiS jobs (:class:`OasisModel`, :class:`Sigmoid` or :class:`ConstantUtility` utility) on
        a cluster with ``worker`` and ``ps`` pools (:meth:`Cluster.two_pools`).
    horizon : int, optional
        ``T`` (slots ``0 .. T-1``); defaults to ``workload.horizon``. One of the two is required.
    time_limit : float, default 60
        HiGHS time limit in seconds.
    mip_rel_gap : float, default 0
        Relative gap at which HiGHS stops (0: prove optimality).
    presolve : bool, default False
        HiGHS presolve. Off by default: on 17 of 300 small random instances (notebook 11) HiGHS
        with presolve reported "optimal" values up to 8.6 % below a feasible schedule OASiS itself
        found (e.g. synthetic seed 28: 251.47 vs 263.11); without presolve it finds the true optimum.

    Returns
    -------
    OfflineSolution
        Re-checked by :func:`check_offline_solution` before it is returned. When the time limit
        hits before HiGHS finds any point, the returned solution admits nothing (always feasible).

    Raises
    ------
    TypeError
        If ``workload`` is not a Workload.
    ValueError
        If the horizon is missing or invalid, a job is not an OASiS job (the message names the job
        and the field), the cluster lacks worker/PS pools, or a solver option is invalid.
    OfflineSolverError
        If the solver's (rounded) point violates the MILP or the independent re-check.
    """
    T = _validate(workload, horizon)
    check_solver_options(time_limit, mip_rel_gap)
    prob = _build(workload, T)
    n = prob.c.size
    t0 = time.perf_counter()
    if n == 0:  # no job: nothing to decide (milp refuses an empty problem)
        res = OptimizeResult(status=0, message="no jobs: empty problem", x=np.zeros(0), mip_dual_bound=0.0)
    else:
        res = milp(
            prob.c,
            integrality=np.ones(n, dtype=np.int8),
            bounds=Bounds(prob.lb, prob.ub),
            constraints=[LinearConstraint(prob.A, prob.row_lo, prob.row_hi)] if prob.A.shape[0] else [],
            options={"time_limit": float(time_limit), "mip_rel_gap": float(mip_rel_gap), "disp": False,
                     "presolve": bool(presolve)},
        )
    secs = time.perf_counter() - t0
    message = str(res.message)
    status = milp_status(res)
    dual = getattr(res, "mip_dual_bound", None)
    trivial = float(-prob.c[prob.u_off : prob.y_off].reshape(-1)[_first_u(prob)].sum())
    bound = -float(dual) if dual is not None and np.isfinite(dual) else trivial
    bound = (min(bound, trivial) if status != "infeasible" else bound) + 0.0  # no -0.0
    if res.x is None:
        x = np.zeros(n)  # nothing admitted: always feasible
    else:
        x = np.rint(np.asarray(res.x, dtype=float))
        _check_rounded(prob, x, status)
    alloc = _allocations(prob, x) if res.x is not None else _empty_allocations()
    admitted = tuple(sorted(int(j) for j in prob.job_ids[x[: len(prob.job_ids)] > 0.5]))
    completion = {
        int(j): int(s) for j, s in alloc[alloc["role"] == "worker"].groupby("job")["slot"].max().items()
    }
    specs = workload.specs
    objective = float(
        sum(specs[j].utility(completion[j] - specs[j].arrival) for j in admitted if j in completion)
    )
    milp_obj = float(-(prob.c @ x))
    if objective < milp_obj - _OBJ_TOL * max(1.0, abs(milp_obj)):
        raise OfflineSolverError(
            f"utility recomputed from the allocations ({objective:g}) is below the MILP objective "
            f"({milp_obj:g}); constraint (3) should make this impossible"
        )
    if math.isfinite(bound) and objective > bound + _OBJ_TOL * max(1.0, abs(bound)):
        raise OfflineSolverError(
            f"utility recomputed from the allocations ({objective:g}) exceeds the solver's dual "
            f"bound ({bound:g}); the solver's bound is inconsistent"
        )
    sol = OfflineSolution(
        objective=objective,
        bound=bound,
        mip_gap=_gap(objective, bound),
        status=status,
        solve_seconds=secs,
        admitted=admitted,
        completion=completion,
        allocations=alloc,
        message=message,
        horizon=T,
        milp_objective=milp_obj,
        n_variables=n,
        n_constraints=int(prob.A.shape[0]),
    )
    return rechecked(check_offline_solution, workload, sol, status, OfflineSolverError)


# ------------------------------------------------------------------------------ re-checking


def check_offline_solution(workload: Workload, solution: OfflineSolution) -> None:
    """Re-check a solution of (1)-(13) independently of the MILP.

    Checks, from the allocation table alone: every slot with
    :func:`dlsched.core.schedule.check_timeline` (capacities (4)-(5), pools, arrivals (9)-(10),
    at most :math:`N_i` workers, (6), (7)); slots inside ``0 .. T-1``; only admitted jobs run;
    (2) enough worker-slots for every admitted job; (8) the completion slot is the last slot with
    workers (so (3) holds: no worker after it); (6) and (7) per job and slot, directly; and the
    objective equals :math:`\\sum f_i(\\hat t_i - a_i)` over the admitted jobs.

    Parameters
    ----------
    workload : Workload
        The instance that was solved.
    solution : OfflineSolution

    Raises
    ------
    ScheduleViolation
        Naming the violated constraint, job, slot and amounts.
    ValueError
        If the allocation table is malformed.
    """
    T = _validate(workload, solution.horizon)
    specs = workload.specs
    df = solution.allocations
    missing = [c for c in ("job", "slot", "server", "role", "count") if c not in df.columns]
    if missing:
        raise ValueError(f"solution.allocations is missing columns {missing}")
    unknown = sorted(set(int(j) for j in df["job"]) - set(specs))
    if unknown:
        raise ScheduleViolation(
            "unknown_job", f"allocations for jobs {unknown} not in the workload", job=unknown[0]
        )
    bad_role = sorted(set(df["role"].astype(str)) - {"worker", "ps"})
    if bad_role:
        raise ValueError(f"solution.allocations: role must be 'worker' or 'ps', got {bad_role[0]!r}")
    if (df["count"] < 0).any():
        k = df.index[df["count"] < 0][0]
        raise ScheduleViolation(
            "count",
            "negative task count",
            job=int(df.at[k, "job"]),
            slot=int(df.at[k, "slot"]),
            amount=int(df.at[k, "count"]),
        )
    df = df[df["count"] > 0]
    outside = df[(df["slot"] < 0) | (df["slot"] >= T)]
    if len(outside):
        r = outside.iloc[0]
        raise ScheduleViolation(
            "horizon",
            f"allocation outside slots 0..{T - 1}",
            job=int(r["job"]),
            slot=int(r["slot"]),
            limit=T - 1,
        )
    admitted = set(solution.admitted)
    stray = sorted(set(int(j) for j in df["job"]) - admitted)
    if stray:
        raise ScheduleViolation(
            "admission", f"jobs {stray} have allocations but are not admitted", job=stray[0]
        )
    check_timeline(workload.cluster, specs, df)
    per = df.groupby(["job", "slot", "role"])["count"].sum().unstack("role", fill_value=0)
    for role in ("worker", "ps"):
        if role not in per.columns:
            per[role] = 0
    for (j, t), row in per.iterrows():
        m = specs[int(j)].model
        y, z = int(row["worker"]), int(row["ps"])
        if y > m.chunks:
            raise ScheduleViolation(
                "(3)", f"{y} workers > N_i = {m.chunks}", job=int(j), slot=int(t), amount=y, limit=m.chunks
            )
        if y * m.worker_bw > z * m.ps_bw * (1 + 1e-12):
            raise ScheduleViolation(
                "(6)", f"{y} workers x b={m.worker_bw:g} > {z} PS x B={m.ps_bw:g}", job=int(j), slot=int(t)
            )
        if z > y:
            raise ScheduleViolation(
                "(7)", f"{z} PS > {y} workers", job=int(j), slot=int(t), amount=z, limit=y
            )
    workers = df[df["role"] == "worker"]
    total = workers.groupby("job")["count"].sum()
    last = workers.groupby("job")["slot"].max()
    if set(solution.completion) != admitted:
        raise ScheduleViolation(
            "(8)",
            f"completion slots given for {sorted(solution.completion)}, admitted jobs are {sorted(admitted)}",
        )
    value = 0.0
    for j in sorted(admitted):
        if j not in specs:
            raise ScheduleViolation("unknown_job", f"admitted job {j} is not in the workload", job=j)
        spec = specs[j]
        m = spec.model
        have = int(total.get(j, 0))
        need = m.total_work * m.minibatch_time
        if have < need - _EPS * max(1.0, need):
            raise ScheduleViolation(
                "(2)", f"{have} worker-slots < E*N*M*(tau + 2e/b) = {need:g}", job=j, amount=have, limit=need
            )
        t_last = int(last[j])
        if solution.completion[j] != t_last:
            raise ScheduleViolation(
                "(8)",
                f"completion slot {solution.completion[j]} is not the last slot with workers ({t_last})",
                job=j,
                slot=solution.completion[j],
            )
        value += float(spec.utility(t_last - spec.arrival))
    if abs(value - solution.objective) > _OBJ_TOL * max(1.0, abs(value)):
        raise ScheduleViolation(
            "objective",
            f"reported objective {solution.objective:g} != sum of f_i(completion - a_i) = {value:g}",
            amount=solution.objective,
            limit=value,
        )


# --------------------------------------------------------------------------------- replay


def simulate_offline(workload: Workload, solution: OfflineSolution, *, seed: int = 0) -> SimulationResult:
    """Replay an offline solution through :func:`dlsched.core.simulator.simulate`.

    The simulator validates every slot with the independent checker and computes completions and
    utilities itself. A job can finish *earlier* than its planned completion only if the plan gives
    it more worker-slots than (2) requires before its last slot; its utility is then at least the
    planned one (``f`` is non-increasing), so the replay's total utility is at least
    ``solution.objective``. For a solution proven optimal the two are equal up to the solver's
    tolerance, because an earlier completion with strictly higher utility would contradict
    optimality.

    Parameters
    ----------
    workload : Workload
        The solved instance.
    solution : OfflineSolution
    seed : int, default 0
        Seed of the (unused) policy random stream.

    Returns
    -------
    SimulationResult
        Policy name ``"replay"``; run up to ``solution.horizon``.

    Raises
    ------
    OfflineSolverError
        If the replay's total utility is below ``solution.objective`` (minus 1e-6 relative).
    ScheduleViolation
        If the simulator's checker rejects a slot of the solution.
    """
    if not isinstance(solution, OfflineSolution):
        raise TypeError(f"solution must be an OfflineSolution, got {type(solution).__name__}")
    policy = ReplayPolicy(solution.allocations, admitted=solution.admitted)
    res = simulate(workload, policy, seed=seed, horizon=solution.horizon)
    got = float(res.jobs["utility"].sum())
    if got < solution.objective - _OBJ_TOL * max(1.0, abs(solution.objective)):
        raise OfflineSolverError(
            f"replayed total utility {got:g} is below the offline objective {solution.objective:g}"
        )
    return res


__all__ = [
    "OfflineSolution",
    "OfflineSolverError",
    "check_offline_solution",
    "required_worker_slots",
    "simulate_offline",
    "solve_offline",
]
