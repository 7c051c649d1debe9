r"""The offline optimum of DMLRS (PD-ORS Sec. 2) as a time-indexed MILP, solved by HiGHS.

PD-ORS's online algorithm is judged against the offline problem DMLRS,
:math:`\max\sum_i x_iu_i(\tilde t_i - a_i)` s.t. (3)-(7) (``shared/spec/pdors.md`` sections 2
and 7, property 8). This module writes DMLRS as one mixed-integer linear program over the slots
``0 .. T-1`` (0-based, like the simulator: a job completing in slot ``t`` has duration
``t - a_i`` and utility ``spec.utility(t - a_i)``) and solves it with
:func:`scipy.optimize.milp` (HiGHS). :func:`brute_force_optimum` enumerates every schedule of a
tiny instance to verify it.

Rates ((3) as printed, with the planned ratio :math:`\gamma_i`; :func:`dlsched.pdors.policy.sample_time`):
one worker trains :math:`r^{int}_i = 1/(\tau_i + \gamma_i\,2g_i/(b^{(i)}F_i))` samples per slot
when every worker and PS of the job sits on one machine (Fact 1), else
:math:`r^{ext}_i = 1/(\tau_i + \gamma_i\,2g_i/(b^{(e)}F_i))`.

Variables (only for :math:`t \ge a_i` and machines open to the job, which is (7)). Each slot a job
runs in one of two *modes*: co-located on one machine ``h`` (:math:`z_{iht} = 1`, internal rate)
or anywhere at the external rate (:math:`e_{it} = 1`); the paper's counts are
:math:`w_{ih}[t] = w^{int}_{iht} + w^{ext}_{iht}` and :math:`s_{ih}[t] = s^{int}_{iht} + s^{ext}_{iht}`.

======================================  ==========  ====================================================
variable                                domain      meaning
======================================  ==========  ====================================================
:math:`x_i`                             binary      job admitted (DMLRS's :math:`x_i`)
:math:`c_{it}`                          binary      job ``i`` completes in slot ``t``
:math:`y_{it}`                          continuous  share of :math:`V_i = E_iK_i` trained in slot ``t``
:math:`z_{iht}`                         binary      co-located on machine ``h`` in slot ``t`` (Fact 1)
:math:`e_{it}`                          binary      external mode in slot ``t``
:math:`w^{int}_{iht}, s^{int}_{iht}`    integer     workers / PS of the co-located mode on ``h``
:math:`w^{ext}_{iht}, s^{ext}_{iht}`    integer     workers / PS of the external mode on ``h``
======================================  ==========  ====================================================

Constraints. :math:`W_{ih}` / :math:`S_{ih}`: workers / PS (at most :math:`F_i` /
:math:`S_i = \lceil F_i/\gamma_i\rceil`) that fit on the empty machine ``h``;
:math:`W^{co}_{ih}`: the most workers (:math:`\le F_i`) that fit on ``h`` together with their
:math:`\lceil w/\gamma_i\rceil` PS. The last column is the paper's equation.

=========================================================================================  ===========
row                                                                                        paper
=========================================================================================  ===========
:math:`\max \sum_{i,t} u_i(t - a_i)\,c_{it}`                                               DMLRS
:math:`\sum_t c_{it} = x_i`                                                                (6)
:math:`V_iy_{it} \le r^{int}_i\sum_h w^{int}_{iht} + r^{ext}_i\sum_h w^{ext}_{iht}`        (3), Fact 1
:math:`\sum_{t' \le t} y_{it'} \ge \sum_{t' \le t} c_{it'}` for every ``t``                (3), (6)
:math:`e_{it} + \sum_h z_{iht} \le \sum_{t' \ge t} c_{it'}`                                (6), Fact 1
:math:`w^{ext}_{iht} \le W_{ih}e_{it}`, :math:`s^{ext}_{iht} \le S_{ih}e_{it}`             (5)
:math:`\sum_h w^{ext}_{iht} \le F_ie_{it}`, :math:`\sum_h s^{ext}_{iht} \le S_ie_{it}`     (4)
:math:`\gamma_i\sum_h s^{ext}_{iht} \ge \sum_h w^{ext}_{iht}`                              ratio (26')
:math:`w^{int}_{iht} \le W^{co}_{ih}z_{iht}`                                               (4), Fact 1
:math:`s^{int}_{iht} \le \lceil W^{co}_{ih}/\gamma_i\rceil z_{iht}`                        Fact 1
:math:`\gamma_i s^{int}_{iht} \ge w^{int}_{iht}`                                           ratio (26')
:math:`\sum_i \alpha_i^r w_{ih}[t] + \beta_i^r s_{ih}[t] \le C_h^r`                        (5)
=========================================================================================  ===========

``colocation=False`` drops :math:`z, w^{int}, s^{int}` (everything at :math:`b^{(e)}`, the
``pdors_nocoloc`` ablation).

Readings and why they are exact:

* (6) makes the completion the *last* slot with workers. The MILP only forbids tasks after the
  slot ``t`` with :math:`c_{it} = 1`; since :math:`u_i` is non-increasing, an optimum exists in
  which that slot is the last one with workers. The reported completions and objective are
  recomputed from the allocations with (6) (never read from ``c``) and are at least the MILP's.
  Completing by ``t`` needs the work by ``t``; summing the completions up to ``t`` on the right
  of the cumulative row (rather than :math:`c_{it}` alone) is the same for binary ``c`` and a
  tighter relaxation.
* :math:`y_{it}` is a share of :math:`V_i` (rows scaled by :math:`1/V_i`, so that the rates of
  the paper's ranges, :math:`10^5`-:math:`10^7` samples per slot, do not spoil HiGHS's tolerances).
* Modes: every DMLRS schedule maps to a point (a slot with all tasks on one machine to the
  co-located mode, any other slot to the external mode), and every point is a schedule whose
  co-located slots really are co-located (``Placement.colocated``), so they earn
  :math:`r^{int}_i`; an external-mode slot that happens to sit on one machine is credited too
  little, never too much. This disjunctive form replaces the big-M reading
  (:math:`v_{iht} \le w_{iht}`, :math:`v_{iht} \le F_iz_{iht}`, :math:`z_{iht}=1` empties the
  other machines): both have the same optimum (both checked against :func:`brute_force_optimum`),
  but the big-M relaxation lets a fractional :math:`z` earn the internal rate on workers spread
  over machines: on ``pdors`` seed 0 (4 jobs, 3 machines, ``T = 6``) HiGHS needed 20 s with
  :math:`F_i` as big-M, 2.5 s with the tightest big-Ms, 0.1 s with the modes.
* The worker:PS ratio is the coupling (26') :math:`\sum s \ge \sum w/\gamma_i` that
  :meth:`PdorsModel.placement_violations` checks. PS beyond :math:`\lceil w/\gamma_i\rceil`
  never raise (3) with :math:`\gamma_i`, so the caps :math:`S_i`, :math:`S_{ih}` and
  :math:`\lceil W^{co}_{ih}/\gamma_i\rceil` lose no optimum.
* Bounds that cut no optimum: :math:`c_{it}` is fixed to 0 before the earliest slot by which the
  best single-slot rate (:math:`W^{co}` workers internal or :math:`\min(F_i, \sum_h W_{ih})`
  external) could train :math:`V_i`; a job that cannot finish by :math:`T - 1` gets no variables.

Every point is re-checked before it is returned (:func:`check_offline_solution`): integer
variables are rounded (and must have been within 1e-6 of an integer), PS rows of slots without
workers are dropped (they cannot help and the model calls them a violation), the table goes
through :func:`dlsched.core.schedule.check_timeline` (capacities (5), roles, (7), (4), the ratio),
and each admitted job's samples up to its completion slot are recomputed with both the planned
rate above and the model's own :meth:`PdorsModel.rate` (which uses the actual ``w/s``, so it is
never slower). HiGHS presolve is off by default: the OASiS wing saw it report "optimal" values
below feasible schedules on small instances. Here, with and without presolve, the MILP matched
:func:`brute_force_optimum` on 286 random tiny instances (both ``colocation`` values), and presolve
made the larger instances no faster.

=======================  ============================================================
paper                    code
=======================  ============================================================
:math:`x_i`              ``OfflineSolution.admitted``
:math:`\tilde t_i`       ``OfflineSolution.completion`` (last slot with workers)
:math:`w_{ih}[t]`        rows ``role == "worker"`` of ``OfflineSolution.allocations``
:math:`s_{ih}[t]`        rows ``role == "ps"`` of ``OfflineSolution.allocations``
=======================  ============================================================
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from dlsched.core.jobs import JobSpec, PdorsModel, RateContext, Workload
from dlsched.core.replay import SCHEDULE_COLUMNS, schedule_placements
from dlsched.core.schedule import ScheduleViolation, check_timeline, server_usage
from dlsched.pdors.policy import sample_time

_INT_TOL = 1e-6  # HiGHS's integrality tolerance
_WORK_TOL = 1e-9  # relative shortfall of samples still counted as done (the simulator's 1e-9)


class OfflineSolverError(RuntimeError):
    """HiGHS returned no usable point, or a point that fails the independent re-check."""


@dataclass(frozen=True)
class OfflineSolution:
    """The offline optimum (or the best point found) of DMLRS on one workload."""

    objective: float
    """Total utility :math:`\\sum_i u_i(\\tilde t_i - a_i)` over admitted jobs, from the allocations."""
    status: str
    """``"optimal"`` (within ``mip_rel_gap``) or ``"time_limit"``."""
    mip_gap: float
    """``(bound - objective) / objective`` (0 if both are 0, ``inf`` if only the objective is)."""
    bound: float
    """Upper bound on the optimum: HiGHS's dual bound, capped by the sum over jobs of their best
    possible utility, and never below ``objective``."""
    admitted: tuple[int, ...]
    """Admitted job ids, sorted."""
    completion: dict[int, int]
    """Completion slot (last slot with workers, (6)) of every admitted job."""
    allocations: pd.DataFrame = field(compare=False, repr=False)
    """Tidy table ``job, slot, server, role, count`` (as ``SimulationResult.allocations``)."""
    seconds: float = field(default=0.0, compare=False)
    """Wall time of the HiGHS call."""
    horizon: int = 0
    """``T``: slots ``0 .. T-1`` were available."""
    colocation: bool = True
    """Whether internal bandwidth (Fact 1) was modelled."""
    milp_objective: float = 0.0
    """The MILP's own objective (utility credited through ``c``); at most ``objective``."""
    size: tuple[int, int] = (0, 0)
    """``(variables, rows)`` of the MILP."""


# ---------------------------------------------------------------------------------- input


def _check_workload(workload: Workload, horizon: int | None, who: str) -> int:
    if not isinstance(workload, Workload):
        raise TypeError(f"{who}: workload must be a Workload, got {type(workload).__name__}")
    T = workload.horizon if horizon is None else horizon
    if T is None:
        raise ValueError(f"{who}: horizon is None and workload.horizon is None; pass horizon=T")
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"{who}: horizon must be an integer >= 1, got {T!r}")
    other = next((s for s in workload.jobs if not isinstance(s.model, PdorsModel)), None)
    if other is not None:
        kind = f"{type(other.model).__name__} (kind {other.model.kind!r})"
        raise ValueError(f"{who}: job {other.job_id}: model must be a PdorsModel (DMLRS), got {kind}")
    return int(T)


def _number(value, name: str, *, positive: bool) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not ok or not math.isfinite(float(value)) or float(value) < 0 or (positive and float(value) == 0):
        raise ValueError(f"{name} must be a finite number {'>' if positive else '>='} 0, got {value!r}")
    return float(value)


def _flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {value!r}")
    return bool(value)


# ----------------------------------------------------------------------------- job constants


@dataclass(frozen=True)
class _Job:
    """Constants of one job on one cluster: rates, caps, demands, first usable slot per machine."""

    spec: JobSpec
    V: float  # E_i K_i samples
    F: int  # (4)
    gamma: float
    S: int  # ceil(F / gamma): most useful PS
    r_int: float  # planned samples per worker-slot, co-located
    r_ext: float
    alpha: np.ndarray  # (R,)
    beta: np.ndarray  # (R,)
    w_cap: np.ndarray  # (H,) most workers machine h can take
    s_cap: np.ndarray  # (H,) most PS machine h can take
    co_cap: np.ndarray  # (H,) most workers machine h can take together with their ceil(w / gamma) PS
    opens: np.ndarray  # (H,) first slot the job may use machine h: arrival + ceil(delay)


def _fits(cap: np.ndarray, demand: np.ndarray, hard: np.ndarray, most: int) -> np.ndarray:
    """How many tasks of ``demand`` fit on each empty machine, at most ``most``."""
    used = hard & (demand > 0)
    if not used.any():
        return np.full(cap.shape[0], most, dtype=np.int64)
    count = np.floor(cap[:, used] / demand[used] + 1e-9).min(axis=1)
    return np.minimum(count, most).astype(np.int64)


def _colocated_fits(cap: np.ndarray, hard: np.ndarray, alpha, beta, gamma: float, w_cap, s_cap):
    """Per machine, the most workers ``w <= w_cap`` that fit with ``ceil(w / gamma)`` PS (0: none)."""
    out = np.zeros(cap.shape[0], dtype=np.int64)
    for h in np.flatnonzero((w_cap > 0) & (s_cap > 0)):
        w = np.arange(1, int(w_cap[h]) + 1)
        use = w[:, None] * alpha + np.ceil(w / gamma - 1e-12)[:, None] * beta
        ok = np.all((use <= cap[h] + 1e-9) | ~hard, axis=1)
        out[h] = int(w[ok].max(initial=0))
    return out


def _job_constants(workload: Workload) -> list[_Job]:
    cl = workload.cluster
    hosts_w = np.zeros(cl.n_servers, bool)
    hosts_w[cl.servers_for("worker")] = True
    hosts_s = np.zeros(cl.n_servers, bool)
    hosts_s[cl.servers_for("ps")] = True
    out = []
    for spec in workload.jobs:
        m: PdorsModel = spec.model
        alpha = cl.vector(spec.worker_demand)
        beta = cl.vector(spec.ps_demand)
        S = math.ceil(m.batch / m.ratio - 1e-12)
        w_cap = np.where(hosts_w, _fits(cl.capacity, alpha, cl.hard, m.batch), 0)
        s_cap = np.where(hosts_s, _fits(cl.capacity, beta, cl.hard, S), 0)
        out.append(_Job(
            spec=spec, V=m.total_work, F=m.batch, gamma=m.ratio, S=S,
            r_int=1.0 / sample_time(m, True), r_ext=1.0 / sample_time(m, False),
            alpha=alpha, beta=beta, w_cap=w_cap, s_cap=s_cap,
            co_cap=_colocated_fits(cl.capacity, cl.hard, alpha, beta, m.ratio, w_cap, s_cap),
            opens=spec.arrival + np.ceil(spec.delays(cl) - 1e-9).astype(np.int64),
        ))
    return out


def _earliest_completion(job: _Job, colocation: bool) -> float:
    """Earliest slot by which the job can have trained :math:`V_i` (ignores PS needs: a bound)."""
    rate = min(job.F, int(job.w_cap.sum())) * job.r_ext
    if colocation:
        rate = max(rate, int(job.co_cap.max(initial=0)) * job.r_int)
    if rate <= 0 or not (job.s_cap > 0).any():
        return math.inf
    start = int(job.opens.min())
    return start + max(0, math.ceil(job.V / rate * (1 - _WORK_TOL)) - 1)


# ------------------------------------------------------------------------------- the MILP


@dataclass(frozen=True, eq=False)
class _Milp:
    """Variable layout and arrays of the MILP. Pair ``p`` is (job ``pair_job[p]``, slot
    ``pair_slot[p]``); machine-indexed blocks are laid out pair-major (``p * H + h``)."""

    H: int
    pair_job: np.ndarray
    pair_slot: np.ndarray
    at: dict[str, int]  # offset of each variable block
    cost: np.ndarray
    integer: np.ndarray
    upper: np.ndarray
    A: sp.csr_array
    lo: np.ndarray
    hi: np.ndarray

    def block(self, x: np.ndarray, name: str) -> np.ndarray:
        """The values of one variable block: (P,) per pair or (P, H) per pair and machine."""
        P = len(self.pair_job)
        if name not in self.at:
            return np.zeros((P, self.H))
        per_machine = name in ("w_int", "s_int", "w_ext", "s_ext", "z")
        part = x[self.at[name]: self.at[name] + P * (self.H if per_machine else 1)]
        return part.reshape(P, self.H) if per_machine else part

    def tasks(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Workers and PS per (pair, machine): :math:`w = w^{int} + w^{ext}`, same for ``s``."""
        workers = self.block(x, "w_int") + self.block(x, "w_ext")
        return workers, self.block(x, "s_int") + self.block(x, "s_ext")


class _RowStack:
    """Collects constraint blocks as sparse matrices; :meth:`matrix` stacks them."""

    def __init__(self, n_cols: int) -> None:
        self.n_cols = n_cols
        self.parts: list[sp.coo_array] = []
        self.bounds: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, n_rows: int, entries, lo, hi) -> None:
        """``entries``: ``(row, col, value)`` triples of arrays (a value may be a scalar);
        ``lo <= A x <= hi`` row by row."""
        r = np.concatenate([np.ravel(e[0]) for e in entries])
        c = np.concatenate([np.ravel(e[1]) for e in entries])
        v = np.concatenate([np.broadcast_to(np.asarray(e[2], float), np.shape(np.ravel(e[0])))
                            for e in entries])
        coords = (r.astype(np.int64), c.astype(np.int64))
        self.parts.append(sp.coo_array((v, coords), shape=(n_rows, self.n_cols)))
        self.bounds.append((np.broadcast_to(np.asarray(lo, float), (n_rows,)),
                            np.broadcast_to(np.asarray(hi, float), (n_rows,))))

    def matrix(self) -> tuple[sp.csr_array, np.ndarray, np.ndarray]:
        A = sp.vstack(self.parts, format="csr") if self.parts else sp.csr_array((0, self.n_cols))
        lo = np.concatenate([b[0] for b in self.bounds]) if self.bounds else np.zeros(0)
        hi = np.concatenate([b[1] for b in self.bounds]) if self.bounds else np.zeros(0)
        return A, lo, hi


def _formulate(workload: Workload, jobs: list[_Job], T: int, colocation: bool) -> _Milp:
    cl = workload.cluster
    H, n_jobs = cl.n_servers, len(jobs)
    first = np.array([_earliest_completion(j, colocation) for j in jobs], dtype=float)
    slots_of = [np.arange(int(j.opens.min()), T) if first[k] <= T - 1 else np.zeros(0, np.int64)
                for k, j in enumerate(jobs)]
    pair_job = np.concatenate([np.zeros(0), *(np.full(len(s), k) for k, s in enumerate(slots_of))])
    pair_job = pair_job.astype(np.int64)
    pair_slot = np.concatenate([np.zeros(0), *slots_of]).astype(np.int64)
    P = len(pair_job)
    sizes = {"x": n_jobs, "c": P, "y": P, "e": P, "w_ext": P * H, "s_ext": P * H}
    if colocation:
        sizes.update(z=P * H, w_int=P * H, s_int=P * H)
    at = dict(zip(sizes, np.cumsum([0, *sizes.values()])[:-1].tolist(), strict=True))
    n = sum(sizes.values())
    pairs = np.arange(P)
    ph = np.arange(P * H)  # (pair, machine) entries, pair-major
    mine = ph // H  # the pair of each entry

    def per_pair(attr: str) -> np.ndarray:
        return np.array([getattr(j, attr) for j in jobs] or [0.0], dtype=float)[pair_job]

    def per_entry(attr: str) -> np.ndarray:  # (P, H) flattened, 0 on machines not open yet (7)
        if not P:
            return np.zeros(0)
        table = np.stack([getattr(j, attr) for j in jobs])[pair_job]
        return np.where(np.stack([j.opens for j in jobs])[pair_job] <= pair_slot[:, None], table, 0.0).ravel()

    F, S, V, gamma = per_pair("F"), per_pair("S"), per_pair("V"), per_pair("gamma")
    w_ub, s_ub, co_ub = per_entry("w_cap"), per_entry("s_cap"), per_entry("co_cap")
    co_ps = np.ceil(co_ub / gamma[mine] - 1e-12)  # PS that co_cap co-located workers need

    upper = np.ones(n)
    integer = np.ones(n, dtype=np.uint8)
    upper[at["c"] + pairs] = pair_slot >= first[pair_job]
    upper[at["y"] + pairs] = np.inf
    integer[at["y"] + pairs] = 0
    upper[at["w_ext"] + ph] = w_ub
    upper[at["s_ext"] + ph] = s_ub
    if colocation:
        upper[at["z"] + ph] = co_ub > 0
        upper[at["w_int"] + ph] = co_ub
        upper[at["s_int"] + ph] = co_ps

    rows = _RowStack(n)
    # (6) sum_t c_it = x_i
    each = np.arange(n_jobs)
    rows.add(n_jobs, [(pair_job, at["c"] + pairs, 1.0), (each, at["x"] + each, -1.0)], 0.0, 0.0)
    # (3) per slot, over V_i: y_it <= (r_int sum_h w_int + r_ext sum_h w_ext) / V_i
    rate = [(pairs, at["y"] + pairs, 1.0), (mine, at["w_ext"] + ph, -(per_pair("r_ext") / V)[mine])]
    if colocation:
        rate.append((mine, at["w_int"] + ph, -(per_pair("r_int") / V)[mine]))
    rows.add(P, rate, -np.inf, 0.0)
    # pairs (later, earlier) of one job: (3) sum_{t' <= t} y_it' >= sum_{t' <= t} c_it' (completing
    # by t needs the work by t), and (6) one mode per slot, none after completion:
    # e_it + sum_h z_iht <= sum_{t' >= t} c_it'
    lists = [np.tril_indices(int(np.sum(pair_job == k))) for k in each]
    base = np.searchsorted(pair_job, each)
    later = np.concatenate([np.zeros(0, np.int64), *(b + ix[0] for b, ix in zip(base, lists, strict=True))])
    earlier = np.concatenate([np.zeros(0, np.int64), *(b + ix[1] for b, ix in zip(base, lists, strict=True))])
    rows.add(P, [(later, at["y"] + earlier, 1.0), (later, at["c"] + earlier, -1.0)], 0.0, np.inf)
    mode = [(pairs, at["e"] + pairs, 1.0), (earlier, at["c"] + later, -1.0)]
    if colocation:
        mode.append((mine, at["z"] + ph, 1.0))
    rows.add(P, mode, -np.inf, 0.0)
    # external mode: tasks only with e_it, (4) sum_h w_ext <= F_i e_it, ratio (26') over all machines
    for var, ub in (("w_ext", w_ub), ("s_ext", s_ub)):
        rows.add(P * H, [(ph, at[var] + ph, 1.0), (ph, at["e"] + mine, -ub)], -np.inf, 0.0)
    for var, most in (("w_ext", F), ("s_ext", S)):
        rows.add(P, [(mine, at[var] + ph, 1.0), (pairs, at["e"] + pairs, -most)], -np.inf, 0.0)
    rows.add(P, [(mine, at["s_ext"] + ph, gamma[mine]), (mine, at["w_ext"] + ph, -1.0)], 0.0, np.inf)
    if colocation:  # Fact 1: co-located tasks only on the machine h with z_iht = 1, ratio (26') there
        for var, ub in (("w_int", co_ub), ("s_int", co_ps)):
            rows.add(P * H, [(ph, at[var] + ph, 1.0), (ph, at["z"] + ph, -ub)], -np.inf, 0.0)
        rows.add(P * H, [(ph, at["s_int"] + ph, gamma[mine]), (ph, at["w_int"] + ph, -1.0)], 0.0, np.inf)
    _capacity_rows(rows, cl, jobs, at, pair_job, pair_slot, upper)

    A, lo, hi = rows.matrix()
    cost = np.zeros(n)
    for k, j in enumerate(jobs):
        sel = pairs[pair_job == k]
        cost[at["c"] + sel] = -np.asarray(j.spec.utility(pair_slot[sel] - j.spec.arrival), dtype=float)
    return _Milp(H, pair_job, pair_slot, at, cost, integer, upper, A, lo, hi)


def _capacity_rows(rows: _RowStack, cl, jobs, at, pair_job, pair_slot, upper) -> None:
    """(5): one row per (slot, machine, hard resource) that some allocation could overfill."""
    H, R = cl.n_servers, len(cl.resources)
    if not len(pair_job):
        return
    keys, cols, vals = [], [], []
    for var, dem in (("w_ext", "alpha"), ("s_ext", "beta"), ("w_int", "alpha"), ("s_int", "beta")):
        if var not in at:
            continue
        d = np.stack([getattr(j, dem) for j in jobs])[pair_job] * cl.hard  # (P, R)
        p, h, r = np.nonzero(np.broadcast_to(d[:, None, :] > 0, (len(pair_job), H, R)))
        keys.append((pair_slot[p] * H + h) * R + r)
        cols.append(at[var] + p * H + h)
        vals.append(d[p, r])
    key, col, val = np.concatenate(keys), np.concatenate(cols), np.concatenate(vals)
    uniq, row = np.unique(key, return_inverse=True)
    limit = cl.capacity[(uniq // R) % H, uniq % R]
    most = np.bincount(row, weights=val * upper[col], minlength=len(uniq))
    binds = most > limit + 1e-9
    renum = np.cumsum(binds) - 1
    keep = binds[row]
    rows.add(int(binds.sum()), [(renum[row[keep]], col[keep], val[keep])], -np.inf, limit[binds])


# ------------------------------------------------------------------------------ the check


def _table(records: list[tuple[int, int, int, str, int]]) -> pd.DataFrame:
    df = pd.DataFrame.from_records(records, columns=list(SCHEDULE_COLUMNS))
    df = df.astype({"job": "int64", "slot": "int64", "server": "int64", "role": object, "count": "int64"})
    return df.sort_values(["slot", "job", "role", "server"], kind="stable").reset_index(drop=True)


def check_offline_solution(workload: Workload, solution: OfflineSolution) -> None:
    """Re-check an offline solution against DMLRS without using the MILP.

    Checks: the allocation table passes :func:`dlsched.core.schedule.check_timeline` (capacities
    (5), roles, nothing before arrival (7), (4), the worker:PS ratio); only admitted jobs run and
    nothing runs from slot ``solution.horizon`` on; each admitted job's completion is its last slot
    with workers (6); by then it has trained :math:`E_iK_i` samples (3), counted both with the
    planned rate (:func:`dlsched.pdors.policy.sample_time`, ratio :math:`\\gamma_i`) and with
    :meth:`PdorsModel.rate` (``Placement.colocated`` decides the bandwidth); the objective is
    :math:`\\sum u_i(\\tilde t_i - a_i)`.

    Parameters
    ----------
    workload : Workload
        The solved instance.
    solution : OfflineSolution

    Raises
    ------
    ScheduleViolation
        Naming the first violated constraint.
    """
    cl, specs = workload.cluster, workload.specs
    table = solution.allocations
    check_timeline(cl, specs, table)
    plan = schedule_placements(table)
    late = [t for t in plan if t >= solution.horizon]
    if late:
        raise ScheduleViolation("horizon", f"tasks in slot {late[0]} >= T={solution.horizon}", slot=late[0])
    stray = sorted({j for per_slot in plan.values() for j in per_slot} - set(solution.admitted))
    if stray:
        raise ScheduleViolation("admission", f"job {stray[0]} runs but is not admitted", job=stray[0])
    if set(solution.completion) != set(solution.admitted):
        raise ScheduleViolation("admission", f"completion slots for jobs {sorted(solution.completion)}, "
                                f"admitted {list(solution.admitted)}")
    total = 0.0
    for j in solution.admitted:
        spec = specs[j]
        m: PdorsModel = spec.model
        ran = [t for t in sorted(plan) if j in plan[t] and plan[t][j].n_workers > 0]
        if not ran or solution.completion.get(j) != ran[-1]:
            raise ScheduleViolation(
                "(6)", f"job {j}: completion {solution.completion.get(j)} is not its last slot with workers "
                f"({ran[-1] if ran else None})", job=j)
        planned = simulated = 0.0
        for t in ran:
            p = plan[t][j]
            ctx = RateContext(cl, server_usage(cl, specs, plan[t]))
            planned += p.n_workers / sample_time(m, p.colocated)
            simulated += m.rate(spec, p, ctx)
        need = m.total_work * (1 - _WORK_TOL)
        if min(planned, simulated) < need:
            raise ScheduleViolation(
                "(3)", f"job {j}: {planned:.6g} samples (planned rate) / {simulated:.6g} (model rate) "
                f"by slot {ran[-1]} < E*K = {m.total_work:.6g}", job=j, amount=min(planned, simulated),
                limit=m.total_work)
        total += float(spec.utility(ran[-1] - spec.arrival))
    if abs(total - solution.objective) > 1e-6 * max(1.0, abs(total)):
        raise ScheduleViolation("objective",
                                f"objective {solution.objective!r} != sum of utilities {total!r}")


def _solution_from_point(workload: Workload, prob: _Milp, x: np.ndarray) -> tuple:
    """Round the integer variables and turn the point into (admitted, completion, table)."""
    ints = prob.integer.astype(bool)
    off = np.abs(x[ints] - np.rint(x[ints]))
    if off.size and off.max() > _INT_TOL:
        k = int(np.flatnonzero(ints)[np.argmax(off)])
        raise OfflineSolverError(f"HiGHS returned a non-integer value {x[k]!r} for integer variable {k}")
    x = np.where(ints, np.rint(x), x)
    ids = [s.job_id for s in workload.jobs]
    admitted = {ids[k] for k in np.flatnonzero(x[: len(ids)] > 0.5)}
    w, s = (a.astype(np.int64) for a in prob.tasks(x))
    busy = w.sum(axis=1) > 0
    records = []
    for role, counts in (("worker", w), ("ps", s)):
        for p, h in zip(*np.nonzero((counts > 0) & busy[:, None]), strict=True):
            records.append((ids[prob.pair_job[p]], int(prob.pair_slot[p]), int(h), role, int(counts[p, h])))
    table = _table(records)
    runs = table[table["role"] == "worker"].groupby("job")["slot"].max()
    if set(runs.index) - admitted:
        raise OfflineSolverError(f"HiGHS's point gives workers to jobs {sorted(set(runs.index) - admitted)} "
                                 "it did not admit")
    missing = admitted - set(runs.index)
    if missing:
        raise OfflineSolverError(f"HiGHS's point admits jobs {sorted(missing)} without any worker")
    completion = {int(j): int(t) for j, t in runs.items()}
    return tuple(sorted(int(j) for j in admitted)), completion, table


# ------------------------------------------------------------------------------ solve


def solve_offline(
    workload: Workload,
    *,
    horizon: int | None = None,
    time_limit: float = 60.0,
    colocation: bool = True,
    mip_rel_gap: float = 1e-6,
    presolve: bool = False,
) -> OfflineSolution:
    """Solve DMLRS (PD-ORS Sec. 2) offline: the MILP of the module docstring, with HiGHS.

    Parameters
    ----------
    workload : Workload
        Jobs with a :class:`~dlsched.core.jobs.PdorsModel` on any cluster (PD-ORS: one pool,
        ``Cluster.homogeneous`` or :func:`dlsched.pdors.model.pdors_workload`).
    horizon : int, optional
        ``T`` (slots ``0 .. T-1``); defaults to ``workload.horizon``. One of the two is required.
    time_limit : float, default 60
        HiGHS time limit in seconds (> 0).
    colocation : bool, default True
        Model internal bandwidth for co-located jobs (Fact 1); False puts everything at the
        external bandwidth (the ``pdors_nocoloc`` ablation).
    mip_rel_gap : float, default 1e-6
        Relative gap at which HiGHS stops (>= 0).
    presolve : bool, default False
        HiGHS presolve (off: see the module docstring).

    Returns
    -------
    OfflineSolution
        Re-checked with :func:`check_offline_solution`. ``status`` is ``"optimal"`` or
        ``"time_limit"`` (then the best point found; nothing admitted if HiGHS found none).

    Raises
    ------
    TypeError
        If ``workload`` is not a Workload.
    ValueError
        For a job without a PdorsModel (naming the job), a missing or invalid horizon, or an
        invalid ``time_limit`` / ``mip_rel_gap`` / ``colocation`` / ``presolve``.
    OfflineSolverError
        If HiGHS fails, or its point does not pass the independent re-check.
    """
    T = _check_workload(workload, horizon, "solve_offline")
    limit = _number(time_limit, "time_limit", positive=True)
    gap = _number(mip_rel_gap, "mip_rel_gap", positive=False)
    colocation = _flag(colocation, "colocation")
    presolve = _flag(presolve, "presolve")
    jobs = _job_constants(workload)
    prob = _formulate(workload, jobs, T, colocation)
    n = prob.cost.size
    best_c = np.zeros(len(jobs))  # sum_i max_t u_i(t - a_i) over the allowed completion slots
    allowed = prob.block(prob.upper, "c") > 0
    np.minimum.at(best_c, prob.pair_job[allowed], prob.block(prob.cost, "c")[allowed])
    trivial = -float(best_c.sum())
    t0 = time.perf_counter()
    if prob.A.shape[0] == 0 or not np.any(prob.cost):  # nothing can finish: admit nothing
        x, status, dual, fun = np.zeros(n), "optimal", 0.0, 0.0
    else:
        res = milp(prob.cost, integrality=prob.integer, bounds=Bounds(0.0, prob.upper),
                   constraints=LinearConstraint(prob.A, prob.lo, prob.hi),
                   options={"time_limit": limit, "mip_rel_gap": gap, "presolve": presolve, "disp": False})
        if res.status == 0:
            status = "optimal"
        elif res.status == 1:
            status = "time_limit"
        else:
            raise OfflineSolverError(f"HiGHS failed on DMLRS (status {res.status}): {res.message}")
        x = np.zeros(n) if res.x is None else np.asarray(res.x, dtype=float)
        fun = 0.0 if res.x is None else float(res.fun)
        dual = getattr(res, "mip_dual_bound", None)
    seconds = time.perf_counter() - t0
    admitted, completion, table = _solution_from_point(workload, prob, x)
    specs = workload.specs
    objective = float(sum(specs[j].utility(t - specs[j].arrival) for j, t in completion.items()))
    if objective < -fun - 1e-6 * max(1.0, abs(fun)):
        raise OfflineSolverError(f"objective from the allocations {objective:g} < the MILP's {-fun:g}")
    bound = trivial if dual is None or not np.isfinite(dual) else min(trivial, -float(dual))
    bound = max(bound, objective)
    diff = max(0.0, bound - objective)
    mip_gap = diff / objective if objective > 0 else (0.0 if diff <= 1e-9 else math.inf)
    sol = OfflineSolution(objective=objective, status=status, mip_gap=mip_gap, bound=bound + 0.0,
                          admitted=admitted, completion=completion, allocations=table, seconds=seconds,
                          horizon=T, colocation=colocation, milp_objective=-fun + 0.0,
                          size=(n, int(prob.A.shape[0])))
    try:
        check_offline_solution(workload, sol)
    except ScheduleViolation as err:
        raise OfflineSolverError(f"HiGHS's {status} point fails the independent check: {err}") from err
    return sol


# ---------------------------------------------------------------------------- brute force


def _slot_options(job: _Job, cl, usable: np.ndarray, colocation: bool, max_cases: int) -> list[tuple]:
    r"""Every non-dominated placement of one job in one slot on the ``usable`` machines.

    Each is ``(usage (H*R,), workers, samples)``; ``samples`` with the planned rate. Up to
    ``F_i`` workers and ``F_i`` PS per machine are tried (more PS than workers never help, as
    :math:`\gamma_i \ge 1`); placements with PS but no worker are dominated by idling; a
    placement is dropped when another one uses no more of any resource on any machine and trains
    at least as many samples (swapping it in keeps every schedule feasible, and both have workers,
    so (6) is unchanged).
    """
    H = cl.n_servers
    s_fit = _fits(cl.capacity, job.beta, cl.hard, job.F)
    w_rng = [range(int(job.w_cap[h]) + 1 if usable[h] else 1) for h in range(H)]
    s_rng = [range(int(s_fit[h]) + 1 if usable[h] and job.s_cap[h] > 0 else 1) for h in range(H)]
    tries = math.prod(len(r) for r in w_rng) * math.prod(len(r) for r in s_rng)
    if tries > max_cases:
        raise ValueError(f"brute_force_optimum: job {job.spec.job_id} has {tries} placements per slot "
                         f"to try, more than max_cases={max_cases}; use a smaller instance")
    usage, workers, samples = [], [], []
    s_all = [np.array(s) for s in itertools.product(*s_rng)]
    for w in itertools.product(*w_rng):
        w = np.array(w)
        n_w = int(w.sum())
        if not 1 <= n_w <= job.F:
            continue
        for s in s_all:
            if job.gamma * s.sum() < n_w - 1e-9:
                continue
            use = w[:, None] * job.alpha[None, :] + s[:, None] * job.beta[None, :]
            if np.any((use > cl.capacity + 1e-9) & cl.hard[None, :]):
                continue
            one = np.count_nonzero((w > 0) | (s > 0)) == 1
            usage.append((use * cl.hard[None, :]).ravel())
            workers.append(n_w)
            samples.append(n_w * (job.r_int if colocation and one else job.r_ext))
    if not usage:
        return []
    U, g = np.array(usage), np.array(samples)
    le = np.all(U[:, None, :] <= U[None, :, :] + 1e-12, axis=2) & (g[:, None] >= g[None, :] - 1e-12)
    same = le & le.T
    beaten = (le & ~same).any(axis=0) | np.triu(same, 1).any(axis=0)  # keep the first of equals
    return [(U[i], workers[i], float(g[i])) for i in np.flatnonzero(~beaten)]


def brute_force_optimum(
    workload: Workload, *, horizon: int | None = None, max_cases: int = 200_000, colocation: bool = True
) -> float:
    """The optimum of DMLRS by exhaustive enumeration, for tiny instances (tests of the MILP).

    Every slot, every job either idles or takes one placement (workers and PS per machine,
    (4), (5) per job, the ratio (26')); the slot's joint choices that respect (5) are applied to
    every reachable state. A job's state is its samples trained and its last slot with workers,
    which is all the future and the utility depend on, so equal states are merged (this is the
    only shortcut, and it is exact). The value of a final state is the sum of
    :math:`u_i(\\text{last} - a_i)` over jobs with :math:`E_iK_i` samples trained (3), (6). Rates are
    the planned ones (ratio :math:`\\gamma_i`; internal iff the placement uses one machine).

    Parameters
    ----------
    workload : Workload
        PD-ORS jobs (1-2 jobs, 1-2 machines, small :math:`F_i`, ``T <= 3`` is the intended size).
    horizon : int, optional
        ``T``; defaults to ``workload.horizon``.
    max_cases : int, default 200000
        Most (state, joint choice) pairs to evaluate.
    colocation : bool, default True
        False: every placement at the external rate (as ``solve_offline(colocation=False)``).

    Returns
    -------
    float
        The optimal total utility.

    Raises
    ------
    ValueError
        For a non-PD-ORS job, a missing horizon, an invalid ``max_cases``, or when the enumeration
        would evaluate more than ``max_cases`` cases.
    """
    T = _check_workload(workload, horizon, "brute_force_optimum")
    if isinstance(max_cases, bool) or not isinstance(max_cases, (int, np.integer)) or max_cases < 1:
        raise ValueError(f"max_cases must be an integer >= 1, got {max_cases!r}")
    colocation = _flag(colocation, "colocation")
    cl = workload.cluster
    jobs = _job_constants(workload)
    cache: dict[tuple, list] = {}
    limit = np.where(cl.hard[None, :], cl.capacity, np.inf).ravel() + 1e-9
    zero = np.zeros(limit.size)
    # per job: (samples so far, last slot with workers); samples saturate at V (done)
    states = {tuple((0.0, -1) for _ in jobs)}
    cases = 0
    for t in range(T):
        menus = []
        for k, job in enumerate(jobs):
            usable = job.opens <= t
            key = (k, usable.tobytes())
            if key not in cache:
                cache[key] = _slot_options(job, cl, usable, colocation, max_cases) if usable.any() else []
            menus.append([None, *cache[key]])
        joint = [combo for combo in itertools.product(*menus)
                 if np.all(sum((o[0] for o in combo if o is not None), zero) <= limit)]
        cases += len(states) * len(joint)
        if cases > max_cases:
            raise ValueError(f"brute_force_optimum: more than max_cases={max_cases} cases by slot {t} "
                             f"({len(states)} states x {len(joint)} joint choices); use a smaller instance")
        nxt = set()
        for st in states:
            for combo in joint:
                nxt.add(tuple(
                    (min(jobs[k].V, done + o[2]), t) if o is not None else (done, last)
                    for k, ((done, last), o) in enumerate(zip(st, combo, strict=True))
                ))
        states = nxt
    best = 0.0
    for st in states:
        finished = [(jobs[k].spec, last) for k, (done, last) in enumerate(st)
                    if last >= 0 and done >= jobs[k].V * (1 - _WORK_TOL)]
        best = max(best, sum(float(spec.utility(last - spec.arrival)) for spec, last in finished))
    return best


__all__ = [
    "OfflineSolution",
    "OfflineSolverError",
    "brute_force_optimum",
    "check_offline_solution",
    "solve_offline",
]
