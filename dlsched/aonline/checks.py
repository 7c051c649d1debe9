r"""A_online's numerically checkable properties as check functions (spec ``aonline.md`` section 11).

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021. The paper states no theorem (spec section 10): what can be checked is what
the algorithms must satisfy by construction (prices (7)-(8), the admission rule (6), COST_C,
feasibility (2a)-(2l), the geometric rounds of Alg. 1) and the empirical performance ratio of
Fig. 14. Every function returns a :class:`~dlsched.core.claims.Claim` (or a tidy table) and is
called by ``tests/test_aonline_checks.py`` and ``notebooks/41_aonline_proofs``.

=====================================  ==========================================================
check                                  spec section 11 property (and what else it measures)
=====================================  ==========================================================
:func:`price_function`                 1. :math:`\lambda(0)=\mu(0)=0`,
                                       :math:`\lambda(W_{su})=\theta_1-1=2TSUF_1`,
                                       :math:`\mu(P_{sv})=2TSVF_2` with :math:`\theta` recomputed
                                       from :math:`T,S,U,V,F`; strictly increasing, convex,
                                       :math:`\lambda'=(\lambda+1)\ln\theta_1/W` (spec section 5)
:func:`weak_duality`                   why the literal reading of (7)-(8) fails: with A_maxsche's
                                       final prices and :math:`\eta_j` of (6), the dual (5) must be
                                       feasible ((5a) by (6), (5b) :math:`\lambda,\mu\ge0`) and its
                                       objective at least the LP optimum of (4)
                                       (:func:`batch_optimum`); the literal reading fails (5b) in
                                       every batch and weak duality in some
:func:`empty_admission`                2. empty system: admitted iff some schedule fits the window
                                       (brute force), with :math:`\eta_j=w_j`
:func:`full_slot_rejected`             3. a schedule touching a full (server, type, slot) costs
                                       :math:`\ge\theta-1`, so :math:`\eta\le0` when
                                       :math:`2TSUF_1\ge w_j`; A_maxsche never uses such a slot
:func:`cost_c_exhaustive`              4. COST_C = exhaustive single-server search (the exact
                                       variant ``order="total"``: cheapest; the printed first-slot
                                       sort: its own argmin, gap to the cheapest reported)
:func:`feasible_run`                   5. every output passes the checker: (2a)-(2l), capacities,
                                       fixed allocation over :math:`[h_j,c_j]`,
                                       :math:`h_j\ge a_j+\Delta_{js}`, :math:`c_j\le\tau_{i+1}`
:func:`geometric_rounds`               6. a job is first considered at the smallest
                                       :math:`\tau_i>a_j`; :math:`J_i` as Alg. 1 lines 3-5, 11
:func:`ratio_point`,                   7. A_online / offline optimum of (2) :math:`\ge 1`
:func:`ratio_claim`                    (:mod:`dlsched.aonline.offline`: time-indexed MILP, or any
                                       ``optimum`` function, e.g. :func:`brute_optimum`); reported
                                       with :func:`framework_bound`, the part of the ratio the
                                       geometric rounds alone impose
=====================================  ==========================================================

Instances: :func:`instance` (whole workloads: ``"tiny"``, our hand-sized edge-cloud generator,
and ``"aonline"``, the paper's generator :func:`dlsched.aonline.model.aonline_workload` with small
ranges) and :func:`window_instance` (one round's window: a few :class:`AOnlineJob` on a few
servers, optionally loaded and with full slots). :func:`schedules` enumerates every fixed
allocation of a job in a window (the brute force behind properties 2-4 and the dual); it does
not call the policy's cost code. The ``*_sample`` functions run checks over seeds and return one
row per instance and claim; :func:`fold` turns the rows of each claim into one :class:`Claim`.
:func:`round_windows` extracts the batches :math:`J_i` of a real run, so that properties 4 and the
dual check also run on the windows A_maxsche actually saw (:func:`round_cost_c_sample`,
:func:`round_dual_sample`).

This module imports :mod:`dlsched.core` and the A_online wing (and, inside :func:`instance`, the
registry for the paper's workload); never another wing.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dlsched.aonline.policy import (
    AOnline,
    AOnlineJob,
    AOnlinePrices,
    MaxscheResult,
    WindowState,
    cost_c,
    maxsche,
)
from dlsched.core import claims
from dlsched.core.claims import Claim, combine
from dlsched.core.claims import claim_row as _as_row
from dlsched.core.claims import seed_list as _seed_list
from dlsched.core.jobs import AOnlineModel, JobSpec, RateContext, Workload
from dlsched.core.schedule import Placement, ScheduleViolation, check_timeline
from dlsched.core.simulator import SimulationResult, simulate

__all__ = [
    "FAMILIES",
    "Schedule",
    "WindowCase",
    "admission_sample",
    "batch_optimum",
    "brute_optimum",
    "combine",
    "cost_c_exhaustive",
    "dual_sample",
    "empty_admission",
    "feasible_run",
    "fold",
    "framework_bound",
    "full_slot_rejected",
    "geometric_rounds",
    "instance",
    "milp_optimum",
    "price_curves",
    "price_function",
    "price_sample",
    "ratio_claim",
    "ratio_point",
    "ratio_run",
    "ratio_sample",
    "round_cost_c_sample",
    "round_dual_sample",
    "round_windows",
    "run_sample",
    "schedules",
    "window_instance",
    "window_sample",
    "weak_duality",
    "workload_prices",
]

FAMILIES: tuple[str, ...] = ("tiny", "aonline")
"""Instance families of :func:`instance`."""

_REL = 1e-9  # relative tolerance of float comparisons
_EPS = 1e-9

TINY_SIZES: Mapping[str, object] = {"n_edge": 2, "n_jobs": 4, "U": 1, "V": 1, "arrival_span": 8,
                                    "max_chunks": 3, "T": 32}  # fmt: skip
"""Defaults of the ``"tiny"`` family (see :func:`instance`)."""

AONLINE_SIZES: Mapping[str, object] = {
    "n_edge": 3, "n_jobs": 4, "T": 32, "server_source": "synthetic", "worker_types": (1, 2),
    "ps_types": (1, 2), "epochs": (1, 2), "chunks": (1, 3), "minibatches": (10, 50), "cloud_workers": 3,
    "cloud_delay": (6, 12),
}  # fmt: skip
"""Defaults of the ``"aonline"`` family: the paper's generator with ranges small enough for the
offline MILP (the paper's own :math:`D_j \\in [20, 50]` needs 20-50 workers per job)."""


# =============================================================================== instances


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    return int(seed)


def _tiny(
    seed: int,
    *,
    n_edge: int = 2,
    n_jobs: int = 4,
    U: int = 1,
    V: int = 1,
    arrival_span: int = 8,
    max_chunks: int = 3,
    T: int = 32,
) -> Workload:
    """The ``"tiny"`` family (see :func:`instance`)."""
    from dlsched.aonline.model import aonline_cluster, aonline_job

    for name, value in (("n_edge", n_edge), ("n_jobs", n_jobs), ("U", U), ("V", V),
                        ("arrival_span", arrival_span), ("max_chunks", max_chunks), ("T", T)):  # fmt: skip
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"instance: {name} must be an integer >= 1, got {value!r}")
    rng = np.random.default_rng(seed)
    ri = rng.integers
    W = ri(0, 4, (n_edge, U))
    P = ri(0, 3, (n_edge, V))
    cluster = aonline_cluster(W, P, max_chunks, 2, edge_delay=1.0, cloud_delay=3.0)
    arrivals = np.sort(ri(0, arrival_span, n_jobs))
    jobs = []
    for j in range(n_jobs):
        model = AOnlineModel(epochs=1, chunks=int(ri(1, max_chunks + 1)), minibatches=int(ri(1, 5)),
                             compute=float(rng.uniform(0.5, 1.5)), update=float(rng.uniform(0.0, 0.1)),
                             comm=float(rng.uniform(0.1, 0.5)))  # fmt: skip
        delays = np.concatenate([ri(1, 3, n_edge), ri(3, 7, 1)]).astype(float)
        jobs.append(aonline_job(j, int(arrivals[j]), model, int(ri(0, U)), int(ri(0, V)), delays,
                                name="aonline-tiny"))  # fmt: skip
    return Workload(cluster, tuple(jobs), name="aonline-tiny", params={"T": int(T), "U": int(U), "V": int(V)})


def instance(seed: int, *, family: str = "tiny", **sizes) -> Workload:
    """A small random A_online instance (edge servers + one cloud, typed slots ``w<u>`` / ``ps<v>``).

    Parameters
    ----------
    seed : int
        Seed of the generator (>= 0).
    family : {"tiny", "aonline"}
        ``"tiny"``: ours, for brute force and the MILP: ``n_edge`` edge servers with 0-3 worker
        and 0-2 PS slots per type, a cloud with ``max_chunks`` workers and 2 PS per type, jobs of
        1 epoch, :math:`D_j \\le` ``max_chunks``, 1-4 mini-batches of 0.5-1.5 slots each
        (durations of 1-12 slots), arrivals uniform in ``0 .. arrival_span - 1``, delays 1-2
        slots to an edge server and 3-6 to the cloud; ``params["T"] = T`` (the :math:`T` of
        :math:`\\theta`). ``"aonline"``: :func:`dlsched.aonline.model.aonline_workload` (the
        paper's Sec. VI generator, registered ``"aonline"``) with :data:`AONLINE_SIZES` unless
        overridden.
    **sizes
        Keyword arguments of the family (``"tiny"``: ``n_edge, n_jobs, U, V, arrival_span,
        max_chunks, T``; ``"aonline"``: any of ``aonline_workload``'s, validated by the registry).

    Returns
    -------
    Workload
        Deterministic in ``seed``; no horizon (A_online runs until every job finished).

    Raises
    ------
    ValueError
        For an unknown family, a negative seed or a bad size (naming it and its value).
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    seed = _check_seed(seed)
    if family == "tiny":
        return _tiny(seed, **{**TINY_SIZES, **sizes})
    from dlsched import registry

    return registry.make_workload("aonline", seed=seed, **{**AONLINE_SIZES, **sizes})


@dataclass(frozen=True, eq=False)
class WindowCase:
    """One round's window: jobs of :math:`J_i` (in order), the usage state and the prices, plus
    the :math:`T, S, U, V, F_1, F_2` the prices were built from (:math:`U = V = 1`)."""

    jobs: tuple[AOnlineJob, ...]
    state: WindowState
    prices: AOnlinePrices
    T: int
    S: int
    F1: float
    F2: float

    @property
    def capacity(self) -> np.ndarray:
        """(S, 2) capacities: column 0 the worker type, column 1 the PS type."""
        return self.state.capacity

    @property
    def length(self) -> int:
        """Window length :math:`\\tau_{i+1} - \\tau_i`."""
        return self.state.length


def window_instance(
    seed: int,
    *,
    n_servers: int = 3,
    length: int = 8,
    n_jobs: int = 3,
    max_workers: int = 3,
    load: float = 0.0,
    full: int = 0,
    F: float = 1.0,
    T: int = 16,
    reading: str = "corrected",
) -> WindowCase:
    r"""A random window of A_maxsche: jobs and servers small enough for exhaustive search.

    Servers have 0-3 worker slots (resource 0, the one worker type) and 0-2 PS slots (resource 1).
    Each job: :math:`E_jD_jM_j` of 1-12 mini-batches, co-located speed 1-3 per worker and slot,
    distributed speed 1-2.5 times slower, :math:`D_j` up to ``max_workers``, data ready on each
    server with probability 0.8. Usage: each (server, type, slot) a random share up to ``load``
    of its capacity, then ``full`` random (server, type, slot) with capacity >= 1 set to full.
    Prices (7)-(8) with :math:`\theta = 2\,T\,S\,1\,F + 1` (``reading``).

    Returns
    -------
    WindowCase
    """
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed)
    S, L = int(n_servers), int(length)
    cap = np.column_stack([rng.integers(0, 4, S), rng.integers(0, 3, S)]).astype(float)
    used = np.floor(rng.random((S, 2, L)) * (cap[:, :, None] + 1) * float(load))
    used = np.minimum(used, cap[:, :, None])
    slots = np.argwhere(np.broadcast_to(cap[:, :, None] >= 1, used.shape))
    if full and len(slots):
        for s, r, t in slots[rng.choice(len(slots), size=min(int(full), len(slots)), replace=False)]:
            used[s, r, t] = cap[s, r]
    jobs = []
    for k in range(int(n_jobs)):
        speed_c = float(rng.uniform(1.0, 3.0))
        jobs.append(AOnlineJob(k, float(rng.integers(1, 13)), speed_c, speed_c / float(rng.uniform(1.0, 2.5)),
                               int(rng.integers(1, int(max_workers) + 1)), 0, 1, 1.0, 1.0,
                               rng.random(S) < 0.8, rng.random(S) < 0.8))  # fmt: skip
    prices = AOnlinePrices.of(int(T), S, 1, 1, float(F), float(F), reading)
    return WindowCase(tuple(jobs), WindowState.from_dense(cap, used), prices, int(T), S, float(F), float(F))


# ===================================================================== exhaustive schedules


@dataclass(frozen=True)
class Schedule:
    """One fixed allocation of a job in a window: ``workers`` (server, count), the PS server,
    :math:`D_u` = ``n``, the duration :math:`d_j` (window slots ``0 .. d - 1``) and
    :math:`\\xi_j` = ``colocated``."""

    workers: tuple[tuple[int, int], ...]
    ps: int
    n: int
    duration: int
    colocated: bool

    @property
    def placement(self) -> Placement:
        """The placement (:math:`y`, :math:`z`)."""
        return Placement.of(dict(self.workers), {self.ps: 1})


def _duration(work: float, speed: float, n: int) -> int:
    r""":math:`d_j=\lceil E_jD_jM_j/(p_jD_u)\rceil` (at least 1), recomputed here."""
    return max(1, math.ceil(work / (speed * n) - _EPS))


def schedules(job: AOnlineJob, state: WindowState, *, respect_usage: bool = True) -> list[Schedule]:
    r"""Every schedule :math:`l \in [L_j]` of ``job`` that starts at :math:`\tau_i` (window slot 0)
    and completes inside the window, by exhaustive enumeration.

    Worker counts ``0 .. min(D_j, W_s)`` on every server the job's data reach (``ready_w``), total
    :math:`D_u \in [1, D_j]` (2a); one PS on a server with ``ready_p`` and a PS slot (2b);
    :math:`\xi_j = 1` iff every worker is on the PS's server (2f), which sets :math:`p_j` (1) and
    :math:`d_j`; kept iff :math:`d_j \le \tau_{i+1}-\tau_i` ([R] window check). With
    ``respect_usage`` the schedule must also fit the state's free capacity in each of its slots
    ((9a)-(9b)); without it only the capacities :math:`W_{su}, P_{sv}` (a schedule of ILP (4)).
    Durations, readiness and room are computed here, not by the policy.
    """
    cap, L = state.capacity, state.length
    wr, pr, wa, pa = job.worker_res, job.ps_res, job.worker_amount, job.ps_amount
    dense = state.dense() if respect_usage else np.zeros(cap.shape + (L,))
    wserv = [int(s) for s in np.flatnonzero(job.ready_w)]
    top = [min(job.max_workers, int(math.floor(cap[s, wr] / wa + _EPS))) for s in wserv]
    out = []
    for ps in np.flatnonzero(job.ready_p & (cap[:, pr] >= pa - _EPS)):
        ps = int(ps)
        for counts in itertools.product(*[range(k + 1) for k in top]):
            n = sum(counts)
            if not 1 <= n <= job.max_workers:
                continue
            coloc = all(c == 0 or s == ps for s, c in zip(wserv, counts, strict=True))
            d = _duration(job.work, job.speed_c if coloc else job.speed_d, n)
            if d > L:
                continue
            if respect_usage:
                ok = np.all(dense[ps, pr, :d] + pa <= cap[ps, pr] + _EPS)
                for s, c in zip(wserv, counts, strict=True):
                    ok = ok and (c == 0 or np.all(dense[s, wr, :d] + c * wa <= cap[s, wr] + _EPS))
                if not ok:
                    continue
            workers = tuple((s, c) for s, c in zip(wserv, counts, strict=True) if c)
            out.append(Schedule(workers, ps, n, d, coloc))
    return out


def _unit_prices(job: AOnlineJob, state: WindowState, prices: AOnlinePrices) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`\lambda_{su_j}(t)` and :math:`\mu_{sv_j}(t)` per (server, window slot), from the usage
    by (7)-(8)."""
    dense = state.dense()
    cap = state.capacity
    lam = prices.worker(dense[:, job.worker_res, :], cap[:, job.worker_res][:, None])
    mu = prices.ps(dense[:, job.ps_res, :], cap[:, job.ps_res][:, None])
    return np.asarray(lam, dtype=float), np.asarray(mu, dtype=float)


def _schedule_cost(job: AOnlineJob, sch: Schedule, lam: np.ndarray, mu: np.ndarray) -> float:
    r"""Cost (9): :math:`\sum_s\sum_{t<d}\lambda_{su_j}(t)y_s + \sum_{t<d}\mu_{sv_j}(t)`."""
    d = sch.duration
    cost = sum(c * job.worker_amount * float(lam[s, :d].sum()) for s, c in sch.workers)
    return float(cost + job.ps_amount * float(mu[sch.ps, :d].sum()))


# =============================================================================== 1. prices


def price_function(
    T: int,
    S: int,
    U: int,
    V: int,
    F1: float = 1.0,
    F2: float = 1.0,
    *,
    reading: str = "corrected",
    prices: AOnlinePrices | None = None,
    worker_capacity: Sequence[float] = (1, 2, 4, 8, 64),
    ps_capacity: Sequence[float] = (1, 6, 24, 384),
    grid: int = 41,
) -> Claim:
    r"""Property 1: the price functions (7)-(8) (spec section 5, [R] exponent).

    :math:`\theta_1 = 2TSUF_1 + 1` and :math:`\theta_2 = 2TSVF_2 + 1` are recomputed here. For every
    capacity :math:`W` in ``worker_capacity`` (and :math:`P` in ``ps_capacity``): :math:`\lambda(0)=0`
    (absolute), :math:`\lambda(W)=2TSUF_1` (relative), strictly increasing and strictly convex on
    ``grid`` usages, :math:`\lambda'(f)=(\lambda(f)+1)\ln\theta_1/W` by central finite differences,
    and every price :math:`\ge 0` (dual constraint (5b)); the same for :math:`\mu`.

    Parameters
    ----------
    T, S, U, V : int
        Slots, servers (edge + cloud), worker and PS types.
    F1, F2 : float
        Unit price caps of (7)-(8).
    reading : {"corrected", "literal"}
        Reading of (7)-(8) used when ``prices`` is None (the literal one must fail).
    prices : AOnlinePrices, optional
        The price functions to check (default ``AOnlinePrices.of(T, S, U, V, F1, F2, reading)``).
    worker_capacity, ps_capacity : sequence of float
        Capacities :math:`W_{su}`, :math:`P_{sv}` (> 0) at which to check.
    grid : int
        Usage points per capacity.

    Returns
    -------
    Claim
        ``details``: the two bases, the errors at the endpoints, monotonicity, convexity, the
        largest relative slope error and the smallest price.
    """
    if prices is None:
        prices = AOnlinePrices.of(T, S, U, V, F1, F2, reading)
    theta1 = 2.0 * T * S * U * F1 + 1.0
    theta2 = 2.0 * T * S * V * F2 + 1.0
    err0, err_top, slope_err = 0.0, 0.0, 0.0
    increasing = convex = True
    min_price = math.inf
    for fn, base, caps in ((prices.worker, theta1, worker_capacity), (prices.ps, theta2, ps_capacity)):
        for C in caps:
            C = float(C)
            if C <= 0:
                raise ValueError(f"price_function: capacities must be > 0, got {C!r}")
            f = np.linspace(0.0, C, int(grid))
            val = np.asarray(fn(f, C), dtype=float)
            err0 = max(err0, abs(float(val[0])))
            err_top = max(err_top, abs(float(val[-1]) - (base - 1.0)) / (base - 1.0))
            step = np.diff(val)
            increasing = increasing and bool(np.all(step > 0))
            convex = convex and bool(np.all(np.diff(step) > 1e-12 * np.abs(step[1:])))
            min_price = min(min_price, float(val.min()))
            h = 1e-6 * C
            mid = f[1:-1]
            numeric = (np.asarray(fn(mid + h, C)) - np.asarray(fn(mid - h, C))) / (2 * h)
            exact = (val[1:-1] + 1.0) * math.log(base) / C
            slope_err = max(slope_err, float(np.max(np.abs(numeric - exact) / np.abs(exact))))
    ok = err0 <= 1e-12 and err_top <= 1e-9 and increasing and convex and slope_err <= 1e-5 and min_price >= 0
    return Claim(
        "A_online (7)-(8): lambda(0)=mu(0)=0, lambda(W)=2TSUF_1, mu(P)=2TSVF_2, increasing, convex, >= 0",
        ok,
        {"theta1": theta1, "theta2": theta2, "reading": getattr(prices, "reading", "?"),
         "max_abs_price_at_0": err0, "max_rel_err_at_capacity": err_top, "increasing": increasing,
         "convex": convex, "max_rel_err_slope": slope_err, "min_price": min_price},
    )  # fmt: skip


def workload_prices(workload: Workload, **params) -> tuple[AOnlinePrices, dict]:
    r"""The prices A_online uses on ``workload`` (``AOnline.from_workload(workload, **params)``) and
    the :math:`T, S, U, V, F_1, F_2` they should come from (``S`` = servers, edge + cloud)."""
    pol = AOnline.from_workload(workload, **params)
    if pol.T is None:
        raise ValueError("workload_prices: the workload has no T (params['T'] or horizon); pass T=...")
    pol.reset(workload.cluster, np.random.default_rng(0))
    p = pol.prices_for(1)
    T = pol.T
    return p, {"T": int(T), "S": workload.cluster.n_servers, "U": int(pol.U), "V": int(pol.V),
               "F1": pol.F1, "F2": pol.F2}  # fmt: skip


def price_curves(T: int, S: int, U: int, F: float = 1.0, *, points: int = 201) -> pd.DataFrame:
    r""":math:`\lambda(f)` of (7) against :math:`f/W` for both readings, for plotting: columns
    ``share`` (:math:`f/W`), ``reading`` and ``price`` (:math:`\theta_1 = 2TSUF+1`)."""
    p = {r: AOnlinePrices.of(T, S, U, U, F, F, r) for r in ("corrected", "literal")}
    share = np.linspace(0.0, 1.0, int(points))
    return pd.concat(
        [pd.DataFrame({"share": share, "reading": r, "price": pr.worker(share, 1.0)}) for r, pr in p.items()],
        ignore_index=True,
    )


# ====================================================== dual feasibility of (7)-(8) readings


def batch_optimum(jobs: Sequence[AOnlineJob], capacity, length: int, *, relax: bool = False) -> float:
    r"""Optimum of the batch ILP (4) (weights :math:`w_j`), or of its LP relaxation (``relax``).

    Columns: every schedule of :func:`schedules` (``respect_usage=False``) of every job; rows
    (4a)-(4b) per (server, resource, window slot) and (4c) per job. Solved with HiGHS
    (:func:`scipy.optimize.milp`); the point is re-checked against the rows and bounds (and
    integrality unless ``relax``) before its objective is returned.

    Raises
    ------
    RuntimeError
        If HiGHS does not report an optimum or its point fails the re-check.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    cap = np.asarray(capacity, dtype=float)
    L = int(length)
    empty = WindowState.empty(cap, L)
    S, R = cap.shape
    cols, rows, vals, weight, owner = [], [], [], [], []
    k = 0
    for j, job in enumerate(jobs):
        for sch in schedules(job, empty, respect_usage=False):
            use = [(s, job.worker_res, c * job.worker_amount) for s, c in sch.workers]
            use.append((sch.ps, job.ps_res, job.ps_amount))
            for s, r, a in use:
                for t in range(sch.duration):
                    rows.append((s * R + r) * L + t)
                    cols.append(k)
                    vals.append(a)
            weight.append(job.weight)
            owner.append(j)
            k += 1
    if k == 0:
        return 0.0
    import scipy.sparse as sp

    A_cap = sp.csr_array((vals, (rows, cols)), shape=(S * R * L, k))
    A_one = sp.csr_array((np.ones(k), (owner, np.arange(k))), shape=(len(jobs), k))
    hi = np.concatenate([np.repeat(cap.ravel(), L), np.ones(len(jobs))])
    A = sp.vstack([A_cap, A_one], format="csr")
    res = milp(-np.asarray(weight), integrality=np.zeros(k) if relax else np.ones(k), bounds=Bounds(0, 1),
               constraints=[LinearConstraint(A, -np.inf, hi)])  # fmt: skip
    if res.status != 0 or res.x is None:
        raise RuntimeError(f"batch_optimum: HiGHS status {res.status}: {res.message}")
    x = np.asarray(res.x, dtype=float) if relax else np.rint(res.x)
    if np.any(x < -1e-7) or np.any(x > 1 + 1e-7) or np.any(A @ x > hi + 1e-7):
        raise RuntimeError("batch_optimum: the solver's point violates (4a)-(4c) or 0 <= chi <= 1")
    return float(np.asarray(weight) @ x)


def weak_duality(
    jobs: Sequence[AOnlineJob],
    capacity,
    length: int,
    prices: AOnlinePrices,
    *,
    scheduler: Callable[..., MaxscheResult] = maxsche,
) -> Claim:
    r"""The prices (7)-(8) as dual variables: A_maxsche's final :math:`(\lambda, \mu, \eta)` must be
    a feasible solution of the dual (5), whose objective then bounds the batch problem (4) from
    above (weak duality). The literal reading of (7)-(8) breaks this.

    A_maxsche (``scheduler``) runs on the jobs in an empty window (prices are reset every round,
    Alg. 2 line 1). With the final usage :math:`f, g`: :math:`\lambda_{su}(t)=\lambda(f_{su}(t))`,
    :math:`\mu_{sv}(t)=\mu(g_{sv}(t))` for the types the jobs use, and :math:`\eta_j` of (6),
    :math:`\max\{0, \max_l (w_j - \text{cost}_l)\}` over **every** schedule :math:`l` of
    :func:`schedules` (``respect_usage=False``, the :math:`[L_j]` of (4)), priced by (9). Then
    (5a) holds by construction, and the dual is feasible iff (5b) every price is :math:`\ge 0`;
    the dual objective
    :math:`D = \sum_j\eta_j + \sum_{s,u,t}\lambda_{su}(t)W_{su} + \sum_{s,v,t}\mu_{sv}(t)P_{sv}` must
    then be at least :math:`LP^*` (:func:`batch_optimum`, relaxed) :math:`\ge IP^* \ge`
    A_maxsche's own scheduled weight. Holds iff (5b) holds and :math:`D \ge LP^*`.

    The literal reading :math:`\theta f/W - 1` prices an empty slot at :math:`-1`: (5b) fails, and
    the :math:`\sum\lambda W` term of an almost empty window is about :math:`-\sum_{s,u}W_{su}`
    times the window length, so :math:`D` falls far below :math:`LP^*`: the prices no longer
    certify anything (and the "cost" of a schedule is negative, so :math:`\eta_j > w_j`).

    Returns
    -------
    Claim
        ``details``: ``admitted`` (A_maxsche's scheduled weight), ``ip_opt``, ``lp_opt``, ``dual``,
        ``dual_minus_lp``, ``dual_over_ip`` (:math:`D/IP^*`, an empirical bound on A_maxsche's
        approximation of (3) when the dual is feasible), ``min_price``, ``max_eta``.
    """
    cap = np.asarray(capacity, dtype=float)
    L = int(length)
    res = scheduler(list(jobs), WindowState.empty(cap, L), prices)
    final = res.state
    admitted = float(sum(jb.weight for jb in jobs if jb.job_id in res.admitted))
    dense = final.dense()
    wres = sorted({jb.worker_res for jb in jobs})
    pres = sorted({jb.ps_res for jb in jobs})
    lam = {r: np.asarray(prices.worker(dense[:, r, :], cap[:, r][:, None]), dtype=float) for r in wres}
    mu = {r: np.asarray(prices.ps(dense[:, r, :], cap[:, r][:, None]), dtype=float) for r in pres}
    etas = []
    for jb in jobs:
        lj, mj = lam[jb.worker_res], mu[jb.ps_res]
        every_l = schedules(jb, final, respect_usage=False)
        best = max((jb.weight - _schedule_cost(jb, s, lj, mj) for s in every_l), default=-math.inf)
        etas.append(max(0.0, best))
    resource_term = sum(float((lam[r] * cap[:, r][:, None]).sum()) for r in wres)
    resource_term += sum(float((mu[r] * cap[:, r][:, None]).sum()) for r in pres)
    dual = float(sum(etas)) + resource_term
    lp = batch_optimum(jobs, cap, L, relax=True)
    ip = batch_optimum(jobs, cap, L)
    every = np.concatenate([v.ravel() for v in (*lam.values(), *mu.values())])
    min_price = float(every.min()) if every.size else 0.0
    over = [res.eta[jb.job_id] - jb.weight for jb in jobs if jb.job_id in res.admitted]
    eta_adm = max(over, default=math.nan)
    tol = 1e-7 * max(1.0, abs(lp))
    ok = min_price >= 0 and dual >= lp - tol and not eta_adm > _REL
    return Claim(
        "A_online dual (5) with A_maxsche's prices (7)-(8) and eta of (6): feasible (5b), D >= LP* of (4)",
        ok,
        {"reading": getattr(prices, "reading", "?"), "jobs": len(jobs), "admitted": admitted, "ip_opt": ip,
         "lp_opt": lp, "dual": dual, "dual_minus_lp": dual - lp,
         "dual_over_ip": dual / ip if ip > 0 else math.nan, "weak_duality": dual >= lp - tol,
         "min_price": min_price, "negative_share": float(np.mean(every < 0)) if every.size else 0.0,
         "max_eta_over_weight": eta_adm, "max_final_eta": max(etas, default=0.0),
         "primal_le_ip": admitted <= ip + tol and ip <= lp + tol},
    )  # fmt: skip


# ======================================================================= 2. empty system


def empty_admission(
    job: AOnlineJob,
    capacity,
    length: int,
    prices: AOnlinePrices,
    *,
    scheduler: Callable[..., MaxscheResult] = maxsche,
) -> Claim:
    r"""Property 2: in an empty window the job is admitted iff some schedule fits, with
    :math:`\eta_j = w_j - 0 = w_j` (spec section 5 (iii): :math:`\lambda(0)=\mu(0)=0`).

    Feasibility by :func:`schedules` (exhaustive: any :math:`D_u`, any split, any PS server,
    :math:`c_j \le \tau_{i+1}`, data ready); admission by ``scheduler`` (A_maxsche) on the job alone.

    Returns
    -------
    Claim
        ``details``: ``schedules`` (how many fit), ``feasible``, ``admitted``, ``eta``, ``weight``.
    """
    state = WindowState.empty(np.asarray(capacity, dtype=float), int(length))
    n_sched = len(schedules(job, state))
    res = scheduler([job], state, prices)
    admitted = job.job_id in res.admitted
    eta = float(res.eta.get(job.job_id, 0.0))
    feasible = n_sched > 0
    right_eta = abs(eta - job.weight) <= _REL * max(1.0, job.weight) if admitted else eta == 0.0
    return Claim(
        "A_online property 2: an empty window admits every job with a feasible schedule (eta_j = w_j)",
        admitted == feasible and right_eta,
        {"schedules": n_sched, "feasible": feasible, "admitted": admitted, "eta": eta, "weight": job.weight},
    )


# =================================================================== 3. full slots rejected


def full_slot_rejected(
    job: AOnlineJob,
    state: WindowState,
    prices: AOnlinePrices,
    *,
    scheduler: Callable[..., MaxscheResult] = maxsche,
) -> Claim:
    r"""Property 3: a schedule that needs a fully used (server, type, slot) is rejected when
    :math:`2TSUF_1 \ge w_j` (and :math:`2TSVF_2 \ge w_j` for a full PS slot).

    Among all schedules that fit the capacities (:func:`schedules` with ``respect_usage=False``),
    those that put a worker on a (server, :math:`u_j`, slot) with :math:`f = W` or the PS on one
    with :math:`g = P` ("touching") must cost (9) at least :math:`\lambda(W)=\theta_1-1` (resp.
    :math:`\mu(P)=\theta_2-1`), since every other term is :math:`\ge 0`; so their payoff
    :math:`w_j - \text{cost} \le 0` whenever that bound is :math:`\ge w_j` (``condition``).
    Independently of prices, A_maxsche (``scheduler``, on the job alone) must not choose a
    touching schedule ((9a)-(9b) leave no room there).

    Returns
    -------
    Claim
        ``details``: ``touching`` schedules, ``condition`` (every applicable :math:`\theta-1 \ge w_j`),
        ``min_cost_touching``, ``max_payoff_touching``, ``bound_violations`` (touching schedules
        cheaper than their bound), ``payoff_violations`` (positive payoff under the condition),
        ``admitted``, ``admitted_touching``.
    """
    cap, dense = state.capacity, state.dense()
    wr, pr = job.worker_res, job.ps_res
    full_w = (dense[:, wr, :] >= cap[:, wr][:, None] - _EPS) & (cap[:, wr][:, None] > 0)
    full_p = (dense[:, pr, :] >= cap[:, pr][:, None] - _EPS) & (cap[:, pr][:, None] > 0)
    lam, mu = _unit_prices(job, state, prices)
    top_w = float(prices.worker(1.0, 1.0))  # lambda(W) = theta_1 - 1 (per the price function itself)
    top_p = float(prices.ps(1.0, 1.0))
    bound_w, bound_p = prices.theta1 - 1.0, prices.theta2 - 1.0

    def touches(sch: Schedule) -> tuple[bool, bool]:
        d = sch.duration
        tw = any(bool(full_w[s, :d].any()) for s, _ in sch.workers)
        return tw, bool(full_p[sch.ps, :d].any())

    touching = cond_all = 0
    cond = True
    bound_bad = payoff_bad = 0
    min_cost, max_payoff = math.inf, -math.inf
    for sch in schedules(job, state, respect_usage=False):
        tw, tp = touches(sch)
        if not (tw or tp):
            continue
        touching += 1
        cost = _schedule_cost(job, sch, lam, mu)
        bound = max(bound_w if tw else 0.0, bound_p if tp else 0.0)
        min_cost, max_payoff = min(min_cost, cost), max(max_payoff, job.weight - cost)
        if cost < bound * (1 - _REL) - _EPS:
            bound_bad += 1
        applies = bound >= job.weight
        cond = cond and applies
        cond_all += applies
        if applies and job.weight - cost > _EPS:
            payoff_bad += 1
    res = scheduler([job], state, prices)
    chosen = res.admitted.get(job.job_id)
    chosen_touch = False
    if chosen is not None:
        pl = chosen.placement
        ((ps_server, _),) = pl.ps
        sch = Schedule(tuple(pl.workers), int(ps_server), pl.n_workers, int(chosen.duration), pl.colocated)
        chosen_touch = any(touches(sch))
    ok = bound_bad == 0 and payoff_bad == 0 and not chosen_touch
    return Claim(
        "A_online property 3: a schedule touching a full (server, type, slot) costs >= theta-1 = 2TSUF, "
        "rejected when 2TSUF >= w_j; A_maxsche never uses one",
        ok,
        {"full_slots": int(full_w.sum() + full_p.sum()), "touching": touching,
         "condition": bool(cond) if touching else None, "condition_holds_for": cond_all,
         "two_TSUF1": bound_w, "lambda_at_W": top_w, "two_TSVF2": bound_p, "mu_at_P": top_p,
         "min_cost_touching": min_cost, "max_payoff_touching": max_payoff,
         "bound_violations": bound_bad, "payoff_violations": payoff_bad,
         "admitted": chosen is not None, "admitted_touching": chosen_touch},
    )  # fmt: skip


# ============================================================ 4. COST_C = exhaustive search


def cost_c_exhaustive(
    job: AOnlineJob,
    state: WindowState,
    prices: AOnlinePrices,
    *,
    order: str = "total",
    cost_fn: Callable[..., object] = cost_c,
) -> Claim:
    r"""Property 4: COST_C (Alg. 3) against exhaustive search over single servers, every :math:`D_u`.

    For each :math:`D_u = 1..D_j`, every server :math:`s` on which :math:`D_u` workers and the PS
    fit over :math:`(\tau_i, c_j]` (:func:`schedules`, co-located) is priced by (9) from the usage.
    ``order="total"`` (the exact variant): COST_C's cost must equal the minimum. ``order=
    "first_slot"`` (Alg. 3 line 3 as printed): COST_C must return the server that minimises
    :math:`\lambda_{su_j}(\tau_i)D_u+\mu_{sv_j}(\tau_i)` (ties: lowest index) and its cost; how
    often and by how much that exceeds the minimum is reported (``suboptimal``, ``max_excess``).
    Both infinite (None) when no server qualifies.

    Returns
    -------
    Claim
        ``details``: ``cases`` (values of :math:`D_u`), ``feasible_cases``, ``mismatches``,
        ``suboptimal``, ``max_excess`` (cost above the cheapest single server).
    """
    lam, mu = _unit_prices(job, state, prices)
    by_n: dict[int, list[Schedule]] = {}
    for sch in schedules(job, state):
        if sch.colocated:
            by_n.setdefault(sch.n, []).append(sch)
    cases = feasible = 0
    bad: list[int] = []
    sub, gap = 0, 0.0  # cases where COST_C is not the cheapest, largest excess cost
    for n in range(1, job.max_workers + 1):
        cases += 1
        got = cost_fn(job, n, state, prices, order=order)
        cands = sorted(by_n.get(n, []), key=lambda s: s.ps)
        if not cands:
            if got is not None:
                bad.append(n)
            continue
        feasible += 1
        costs = np.array([_schedule_cost(job, s, lam, mu) for s in cands])
        best = float(costs.min())
        if order == "total":
            want_cost = best
            near = costs <= best + _REL * max(1.0, best)
            want_servers = {c.ps for c, v in zip(cands, near, strict=True) if v}
        else:
            key = np.array([n * job.worker_amount * lam[c.ps, 0] + job.ps_amount * mu[c.ps, 0]
                            for c in cands])  # fmt: skip
            k = int(np.argmin(key))
            want_cost, want_servers = float(costs[k]), {cands[k].ps}
        if got is None:
            bad.append(n)
            continue
        servers = got.placement.servers
        same = (
            len(servers) == 1
            and next(iter(servers)) in want_servers
            and got.placement.n_workers == n
            and abs(got.cost - want_cost) <= _REL * max(1.0, abs(want_cost))
        )
        if not same:
            bad.append(n)
        if got.cost > best + _REL * max(1.0, best):
            sub += 1
            gap = max(gap, got.cost - best)
    return Claim(
        f"A_online property 4: COST_C ({order}) = exhaustive single-server search",
        not bad,
        {"order": order, "cases": cases, "feasible_cases": feasible, "mismatches": len(bad),
         "first_mismatches": bad[:3], "suboptimal": sub, "max_excess": gap},
    )  # fmt: skip


# =========================================================================== 5. whole runs


def _time_point(i: int) -> int:
    r""":math:`\tau_0 = 1`, :math:`\tau_i = 2^{i-1}`, recomputed here."""
    return 1 if i == 0 else 2 ** (i - 1)


def _first_time_point_after(a: float) -> int:
    r"""The smallest :math:`\tau_i > a` over ``i >= 1``, by plain search."""
    i = 1
    while _time_point(i) <= a:
        i += 1
    return _time_point(i)


def feasible_run(
    result: SimulationResult,
    *,
    allocations: pd.DataFrame | None = None,
    jobs: pd.DataFrame | None = None,
) -> Claim:
    r"""Property 5: an A_online run's schedule is feasible for (2a)-(2l) and respects its window.

    ``allocations`` (default ``result.allocations``) is re-checked with
    :func:`dlsched.core.schedule.check_timeline` (capacities (2g)-(2h), (2a), (2b), (2i), and the
    fixed allocation of non-elastic, non-preemptible jobs). Then per job, from the tables alone:
    it finished; its slots are exactly ``start_slot .. completion_slot`` ((2j)-(2k)); one placement
    throughout ((2c)-(2d)); :math:`D_u \le D_j` (2a), one PS (2b); :math:`h_j \ge a_j+\Delta_{js}` on
    every server used (2i); the rate of the placement times its slots reaches :math:`E_jD_jM_j` (2e);
    ``colocated`` is :math:`\xi_j` of the placement (2f); its round's :math:`\tau` (job table) is a
    time point :math:`2^{i-1} > a_j`, :math:`h_j = \tau_i` and :math:`c_j \le \tau_{i+1}` (the
    continuous completion time by :math:`2\tau_i`, the last slot :math:`\le 2\tau_i - 1`).
    Reported: ``strict_ready`` (jobs with :math:`a_j+\Delta_{js} < \tau_i` on every used server,
    Alg. 3-4 line 3 as printed; all of them under ``data_ready="strict"``).

    Returns
    -------
    Claim
        ``details``: jobs, finished, strict_ready, distributed (:math:`\xi_j=0`) and the first problems.
    """
    wl = result.workload
    table = result.allocations if allocations is None else allocations
    jt = result.jobs if jobs is None else jobs
    problems: list[str] = []
    try:
        check_timeline(wl.cluster, wl.specs, table)
    except ScheduleViolation as exc:
        problems.append(f"checker: {exc}")
    ctx = RateContext(wl.cluster, np.zeros_like(wl.cluster.capacity))
    per_job = {int(j): part for j, part in table.groupby("job", sort=True)}
    finished = strict = distributed = 0
    for row in jt.itertuples(index=False):
        j = int(row.job_id)
        spec: JobSpec = wl.specs[j]
        a = spec.arrival
        mine = per_job.get(j)
        if row.status != "finished" or mine is None or mine.empty:
            problems.append(f"job {j}: status {row.status!r}, never completed")
            continue
        finished += 1
        h, c = int(row.start_slot), int(row.completion_slot)
        slots = sorted(int(t) for t in mine["slot"].unique())
        if slots != list(range(h, c + 1)):
            problems.append(f"job {j}: slots {slots[:4]}... are not exactly h_j..c_j = {h}..{c} ((2j)-(2k))")
        places = set()
        for _, g in mine.groupby("slot", sort=True):
            roles = {r: dict(zip(gg["server"].astype(int), gg["count"].astype(int), strict=True))
                     for r, gg in g.groupby("role")}  # fmt: skip
            places.add(Placement.of(roles.get("worker", {}), roles.get("ps", {})))
        if len(places) != 1:
            problems.append(f"job {j}: {len(places)} different placements over [h_j, c_j] ((2c)-(2d))")
            continue
        (pl,) = places
        m = spec.model
        if not 1 <= pl.n_workers <= m.max_workers:
            problems.append(f"job {j}: {pl.n_workers} workers, D_j = {m.max_workers} (2a)")
        if pl.n_ps != 1:
            problems.append(f"job {j}: {pl.n_ps} PS (2b)")
        delays = spec.delays(wl.cluster)
        tau = float(row.tau)
        late = [s for s in pl.servers if h < a + delays[s] - _EPS]
        if late:
            s0 = late[0]
            problems.append(f"job {j} (2i): starts at {h} on server {s0}, a_j + Delta_js = {a + delays[s0]}")
        strict += all(a + delays[s] < tau for s in pl.servers)
        distributed += not pl.colocated
        done = m.rate(spec, pl, ctx) * len(slots)
        if done < m.total_work * (1 - 1e-9):
            problems.append(f"job {j}: {done:.6g} < {m.total_work:g} mini-batches (2e)")
        if bool(row.colocated) != pl.colocated:
            problems.append(f"job {j}: colocated={row.colocated} but placement xi_j = {pl.colocated} (2f)")
        t = int(tau) if math.isfinite(tau) and tau == int(tau) else -1
        if t < 1 or t & (t - 1) or t <= a:
            problems.append(f"job {j}: round time point tau = {tau} is not a power of two > a_j = {a}")
            continue
        if h != t:
            problems.append(f"job {j}: starts at {h}, not at its round's tau_i = {t} (Alg. 1 line 9)")
        if c > 2 * t - 1 or float(row.completion_time) > 2 * t + 1e-9:
            problems.append(
                f"job {j}: completes at slot {c} (time {row.completion_time:.6g}) after tau_(i+1) = {2 * t}"
            )
    return Claim(
        "A_online property 5: runs pass the checker, (2a)-(2l), fixed allocation over [h_j, c_j], "
        "h_j >= a_j + Delta_js, c_j <= tau_(i+1)",
        not problems,
        {"jobs": int(len(jt)), "finished": finished, "strict_ready": strict, "distributed": distributed,
         "problems": problems[:3]},
    )  # fmt: skip


def geometric_rounds(result: SimulationResult, policy: AOnline, *, jobs: pd.DataFrame | None = None) -> Claim:
    r"""Property 6: the geometric rounds of Alg. 1.

    Each job's ``first_considered`` (job table) is the smallest :math:`\tau_i > a_j` (:math:`\tau_0=1`,
    :math:`\tau_i=2^{i-1}`, recomputed here by plain search). Each round record has
    :math:`\tau = 2^{i-1}` and window end :math:`\tau_{i+1}`; its :math:`J_i` (``considered``) is
    exactly the jobs with :math:`a_j < \tau_i` not admitted in an earlier round, in arrival order
    (lines 3-5, 11); its admitted jobs are among them, and no job of an earlier round still runs
    (``carried``, rounds do not overlap). Every job is admitted exactly once, at a round
    :math:`\tau \ge` its first consideration.

    Returns
    -------
    Claim
        ``details``: jobs, rounds, the largest wait in rounds before admission, the first problems.
    """
    wl = result.workload
    jt = result.jobs if jobs is None else jobs
    problems: list[str] = []
    rows = {int(r.job_id): r for r in jt.itertuples(index=False)}
    order = sorted(wl.jobs, key=lambda s: (s.arrival, s.job_id))
    for spec in order:
        want = _first_time_point_after(spec.arrival)
        got = getattr(rows[spec.job_id], "first_considered", math.nan)
        if got != want:
            problems.append(
                f"job {spec.job_id} (a_j = {spec.arrival}): first considered at {got}, expected {want}"
            )
    admitted_in: dict[int, int] = {}
    for rec in policy.rounds:
        if rec.tau != _time_point(rec.round) or rec.window_end != _time_point(rec.round + 1):
            problems.append(f"round {rec.round}: tau {rec.tau}, end {rec.window_end} are not 2^(i-1), 2^i")
        expect = [s.job_id for s in order if s.arrival < rec.tau and s.job_id not in admitted_in]
        if list(rec.considered) != expect:
            problems.append(f"round {rec.round}: J_i = {list(rec.considered)[:6]}, expected {expect[:6]}")
        if not set(rec.admitted) <= set(rec.considered):
            problems.append(f"round {rec.round}: admitted jobs outside J_i")
        if rec.carried:
            problems.append(f"round {rec.round}: jobs {rec.carried} of an earlier round still run")
        for j in rec.admitted:
            if j in admitted_in:
                problems.append(f"job {j} admitted twice")
            admitted_in[j] = rec.tau
    waits = []
    for spec in order:
        j = spec.job_id
        if j not in admitted_in:
            problems.append(f"job {j} never admitted")
            continue
        first = _first_time_point_after(spec.arrival)
        if admitted_in[j] < first:
            problems.append(f"job {j} admitted at tau {admitted_in[j]} before its first round {first}")
        waits.append(int(round(math.log2(admitted_in[j]))) - int(round(math.log2(first))))
    return Claim(
        "A_online property 6: a job is first considered at the smallest tau_i > a_j; J_i as Alg. 1",
        not problems,
        {"jobs": len(order), "rounds": len(policy.rounds), "max_rounds_waited": max(waits, default=0),
         "problems": problems[:3]},
    )  # fmt: skip


# ======================================================================= 7. ratio to OPT


def _objective(result: SimulationResult) -> float:
    r"""Objective (2) of a run: :math:`\sum_j w_j(c_j - a_j)`, :math:`c_j` the last slot with workers."""
    jt = result.jobs
    if (jt["status"] != "finished").any():
        return math.inf
    specs = result.workload.specs
    return float(sum(float(specs[int(j)].model.weight) * (int(c) - specs[int(j)].arrival)
                     for j, c in zip(jt["job_id"], jt["completion_slot"], strict=True)))  # fmt: skip


def milp_optimum(workload: Workload, *, time_limit: float = 20.0) -> dict:
    r"""Offline optimum of (2)-(2l) by the time-indexed MILP :func:`dlsched.aonline.offline.solve_offline`
    (re-checked there). Returns ``objective``, ``bound`` (HiGHS's lower bound), ``status``,
    ``seconds``, ``horizon``."""
    from dlsched.aonline.offline import solve_offline

    sol = solve_offline(workload, time_limit=float(time_limit))
    return {"objective": float(sol.objective), "bound": float(sol.bound), "status": sol.status,
            "seconds": float(sol.solve_seconds), "horizon": int(sol.horizon)}  # fmt: skip


def brute_optimum(workload: Workload, *, horizon: int | None = None) -> dict:
    r"""Offline optimum of (2)-(2l) by exhaustive search (:func:`dlsched.aonline.offline.brute_force`,
    an enumeration independent of the MILP), for 2-3 job instances. ``horizon`` defaults to
    :func:`~dlsched.aonline.offline.exact_horizon` (cuts off no optimal schedule)."""
    from dlsched.aonline.offline import brute_force, exact_horizon

    T = exact_horizon(workload) if horizon is None else int(horizon)
    start = time.perf_counter()
    obj, _ = brute_force(workload, T)
    status = "optimal" if math.isfinite(obj) else "infeasible"
    return {"objective": float(obj), "bound": float(obj), "status": status,
            "seconds": time.perf_counter() - start, "horizon": T}  # fmt: skip


def framework_bound(workload: Workload) -> float:
    r"""A lower bound on A_online's objective (2) that the geometric rounds alone impose.

    A job can start only at a time point :math:`\tau_i` with :math:`a_j+\Delta_{js}<\tau_i` for the
    servers it uses (Alg. 3-4 line 3, ``data_ready="strict"``) and must finish inside
    :math:`(\tau_i, \tau_{i+1}]`, whose length is :math:`\tau_i` (:math:`i \ge 1`). With its
    shortest possible duration :math:`d^{min}_j=\lceil E_jD_jM_j/(p_j^{\xi=1}D_j)\rceil` (all
    :math:`D_j` workers at the co-located speed) and the smallest delay :math:`\min_s\Delta_{js}`,
    its first usable time point is the smallest :math:`\tau > a_j + \min_s\Delta_{js}` with
    :math:`\tau \ge d^{min}_j`, and :math:`c_j - a_j \ge \tau + d^{min}_j - 1 - a_j`. The sum over
    jobs (weighted) ignores every capacity; its ratio to OPT is the part of the performance ratio
    that no price or placement rule can remove.
    """
    total = 0.0
    for spec in workload.jobs:
        m = spec.model
        d = _duration(m.total_work, m.speed(True), m.max_workers)
        ready = spec.arrival + float(np.min(spec.delays(workload.cluster)))
        i = 1
        while not (_time_point(i) > ready + _EPS and _time_point(i) >= d):
            i += 1
        total += float(m.weight) * (_time_point(i) + d - 1 - spec.arrival)
    return total


def ratio_point(
    workload: Workload,
    *,
    optimum: Callable[[Workload], Mapping] | None = None,
    time_limit: float = 20.0,
    **policy_params,
) -> dict:
    r"""Property 7 on one instance: A_online's objective (2) over the offline optimum.

    A_online (``AOnline.from_workload(workload, **policy_params)``) runs through the simulator;
    :math:`ALG = \sum_j w_j(c_j - a_j)`. ``optimum(workload)`` (default :func:`milp_optimum` with
    ``time_limit``) returns a mapping with ``objective`` (:math:`OPT`), ``bound`` (a lower bound on
    it) and ``status``. A_online's schedule is feasible for (2)-(2l) (checked by
    :func:`feasible_run`), so :math:`ALG \ge OPT \ge` bound must hold. Also reported:
    :func:`framework_bound` (a lower bound on ALG from the geometric rounds alone), which must
    not exceed ALG either.

    Returns
    -------
    dict
        ``jobs, alg, opt, bound, status, ratio`` (:math:`ALG/OPT`), ``ratio_bound``
        (:math:`ALG/`bound), ``framework`` (:func:`framework_bound`), ``framework_ratio``
        (framework / OPT), ``feasible``, ``holds``, ``opt_seconds``, ``horizon``.
    """
    pol = AOnline.from_workload(workload, **policy_params)
    res = simulate(workload, pol)
    alg = _objective(res)
    feas = feasible_run(res)
    opt = dict((optimum or (lambda wl: milp_optimum(wl, time_limit=time_limit)))(workload))
    o, b = float(opt["objective"]), float(opt["bound"])
    fw = framework_bound(workload)
    tol = 1e-9 * max(1.0, abs(alg))
    holds = (bool(feas.holds) and alg >= b - tol and (opt["status"] != "optimal" or alg >= o - tol)
             and alg >= fw - tol)  # fmt: skip
    return {"jobs": len(workload.jobs), "alg": alg, "opt": o, "bound": b, "status": str(opt["status"]),
            "ratio": alg / o if o > 0 else math.nan, "ratio_bound": alg / b if b > 0 else math.nan,
            "framework": fw, "framework_ratio": fw / o if o > 0 else math.nan,
            "feasible": bool(feas.holds), "holds": holds, "opt_seconds": float(opt.get("seconds", math.nan)),
            "horizon": int(opt.get("horizon", 0))}  # fmt: skip


def ratio_run(params) -> pd.DataFrame:
    """Experiment function for :func:`dlsched.experiments.sweep`: :func:`ratio_point` on one
    instance, one row per price cap.

    Parameters
    ----------
    params : Mapping
        ``family`` (default ``"tiny"``), ``seed`` (0), ``sizes`` (dict for :func:`instance`),
        ``time_limit`` (20, seconds for the MILP), ``F`` (a number or a list of numbers: A_online
        with :math:`F_1 = F_2 = F`; default 1.0). The offline optimum is solved once.

    Returns
    -------
    pandas.DataFrame
        One row per ``F`` with the keys of :func:`ratio_point` and ``F``.
    """
    family, seed = params.get("family", "tiny"), int(params.get("seed", 0))
    wl = instance(seed, family=family, **dict(params.get("sizes", {})))
    opt = milp_optimum(wl, time_limit=float(params.get("time_limit", 20.0)))
    caps = params.get("F", 1.0)
    caps = [caps] if isinstance(caps, (int, float)) else list(caps)
    rows = [{"F": float(F), **ratio_point(wl, optimum=lambda _: opt, F1=float(F), F2=float(F))} for F in caps]
    return pd.DataFrame(rows)


def ratio_sample(
    seeds,
    *,
    family: str = "tiny",
    time_limit: float = 20.0,
    optimum: Callable[[Workload], Mapping] | None = None,
    **sizes,
) -> pd.DataFrame:
    """:func:`ratio_point` for each seed's :func:`instance` (one row each, with ``family, seed``)."""
    rows = []
    for seed in _seed_list(seeds):
        wl = instance(seed, family=family, **sizes)
        rows.append({"family": family, "seed": int(seed),
                     **ratio_point(wl, time_limit=time_limit, optimum=optimum)})  # fmt: skip
    return pd.DataFrame(rows)


def ratio_claim(frame: pd.DataFrame) -> Claim:
    r"""Property 7 over a :func:`ratio_sample` / :func:`ratio_run` table: every run feasible and
    :math:`ALG \ge OPT` (:math:`\ge` the bound when the MILP stopped early). Reported: how many
    optima were proved, the median and largest ratio."""
    need = {"alg", "opt", "bound", "status", "ratio", "feasible", "holds"}
    if frame.empty or not need <= set(frame.columns):
        raise ValueError(f"ratio_claim needs a non-empty table with columns {sorted(need)}")
    r = frame["ratio"].to_numpy(float)
    fin = r[np.isfinite(r)]
    bad = frame[~frame["holds"].astype(bool)]
    return Claim(
        "A_online property 7: performance ratio A_online / offline optimum of (2) >= 1",
        bad.empty,
        {"instances": int(len(frame)), "optimal": int((frame["status"] == "optimal").sum()),
         "min_ratio": float(fin.min()) if len(fin) else math.nan,
         "median_ratio": float(np.median(fin)) if len(fin) else math.nan,
         "max_ratio": float(fin.max()) if len(fin) else math.nan,
         "failing": bad.get("seed", pd.Series(bad.index)).tolist()[:10]},
    )  # fmt: skip


# ============================================================================ samples


_SUMMED = ("cases", "feasible_cases", "suboptimal", "schedules", "touching", "finished", "distributed")


def fold(frame: pd.DataFrame, *, add: Sequence[str] = _SUMMED) -> dict[str, Claim]:
    """:func:`dlsched.core.claims.fold` with this module's counted columns: one :class:`Claim`
    per claim name of a sample table, holding iff every row holds."""
    return claims.fold(frame, add=add)


def price_sample(
    seeds, *, family: str = "aonline", readings: Sequence[str] = ("corrected",), **sizes
) -> pd.DataFrame:
    """:func:`price_function` with the prices A_online uses on each seed's instance, at the
    instance's own capacities (one row per seed and reading)."""
    rows = []
    for seed in _seed_list(seeds):
        wl = instance(seed, family=family, **sizes)
        cap, names = wl.cluster.capacity, wl.cluster.resources
        wcap = sorted({float(x) for k, r in enumerate(names) if r[0] == "w" for x in cap[:, k] if x > 0})
        pcap = sorted({float(x) for k, r in enumerate(names) if r[:2] == "ps" for x in cap[:, k] if x > 0})
        for reading in readings:
            prices, p = workload_prices(wl, price_reading=reading)
            claim = price_function(**p, prices=prices, worker_capacity=wcap, ps_capacity=pcap)
            rows.append(_as_row(claim, family=family, seed=int(seed), reading=reading))
    return pd.DataFrame(rows)


def admission_sample(seeds, *, n_servers: int = 3, length: int = 8, max_workers: int = 3) -> pd.DataFrame:
    """:func:`empty_admission` for the first job of each seed's :func:`window_instance`."""
    rows = []
    for seed in _seed_list(seeds):
        case = window_instance(seed, n_servers=n_servers, length=length, n_jobs=1, max_workers=max_workers)
        claim = empty_admission(case.jobs[0], case.capacity, case.length, case.prices)
        rows.append(_as_row(claim, seed=int(seed)))
    return pd.DataFrame(rows)


def window_sample(
    seeds,
    *,
    n_servers: int = 4,
    length: int = 8,
    max_workers: int = 3,
    load: float = 0.4,
    full: int = 3,
    F: float = 1.0,
) -> pd.DataFrame:
    """Properties 2-4 on each seed's :func:`window_instance` (loaded, with ``full`` full slots):
    :func:`empty_admission`, :func:`full_slot_rejected` and :func:`cost_c_exhaustive` (both
    orders) for every job; one row per (seed, job, claim)."""
    rows = []
    for seed in _seed_list(seeds):
        case = window_instance(seed, n_servers=n_servers, length=length, max_workers=max_workers, load=load,
                               full=full, F=F)  # fmt: skip
        for job in case.jobs:
            keys = {"seed": int(seed), "job": job.job_id}
            rows.append(_as_row(empty_admission(job, case.capacity, case.length, case.prices), **keys))
            rows.append(_as_row(full_slot_rejected(job, case.state, case.prices), **keys))
            for order in ("total", "first_slot"):
                rows.append(_as_row(cost_c_exhaustive(job, case.state, case.prices, order=order), **keys))
    return pd.DataFrame(rows)


def dual_sample(
    seeds,
    *,
    readings: Sequence[str] = ("corrected", "literal"),
    n_servers: int = 3,
    length: int = 8,
    n_jobs: int = 3,
    max_workers: int = 3,
    F: float = 1.0,
) -> pd.DataFrame:
    """:func:`weak_duality` on each seed's :func:`window_instance` for each reading of (7)-(8)."""
    rows = []
    for seed in _seed_list(seeds):
        for reading in readings:
            case = window_instance(seed, n_servers=n_servers, length=length, n_jobs=n_jobs,
                                   max_workers=max_workers, F=F, reading=reading)  # fmt: skip
            claim = weak_duality(case.jobs, case.capacity, case.length, case.prices)
            rows.append(_as_row(claim, seed=int(seed), reading=reading))
    return pd.DataFrame(rows)


def round_windows(workload: Workload, **policy_params) -> list[tuple[int, tuple[AOnlineJob, ...], int]]:
    r"""The batches of a real A_online run: ``(tau_i, J_i, window length)`` of every round with at
    least one job, after A_online (``AOnline.from_workload(workload, **policy_params)``) ran on
    ``workload``; :math:`J_i` as :class:`AOnlineJob` of that round (readiness at :math:`\tau_i`)."""
    from dlsched.aonline.policy import aonline_job

    pol = AOnline.from_workload(workload, **policy_params)
    simulate(workload, pol)
    specs = workload.specs
    out = []
    for rec in pol.rounds:
        if rec.considered:
            jobs = tuple(aonline_job(specs[j], workload.cluster, rec.tau, data_ready=pol.data_ready,
                                     use_weights=pol.use_weights) for j in rec.considered)  # fmt: skip
            out.append((rec.tau, jobs, rec.window_end - rec.tau))
    return out


def round_dual_sample(
    seeds,
    *,
    family: str = "tiny",
    readings: Sequence[str] = ("corrected", "literal"),
    F: float = 1.0,
    **sizes,
) -> pd.DataFrame:
    """:func:`weak_duality` on every round of a real A_online run (:func:`round_windows`) of each
    seed's :func:`instance`, for each reading of (7)-(8) (prices of the workload's :math:`T, S, U, V`
    and :math:`F_1 = F_2 = F`); one row per (seed, round, reading)."""
    rows = []
    for seed in _seed_list(seeds):
        wl = instance(seed, family=family, **sizes)
        for reading in readings:
            prices, _ = workload_prices(wl, price_reading=reading, F1=F, F2=F)
            for tau, jobs, length in round_windows(wl):
                claim = weak_duality(jobs, wl.cluster.capacity, length, prices)
                rows.append(_as_row(claim, family=family, seed=int(seed), tau=int(tau), reading=reading))
    return pd.DataFrame(rows)


def round_cost_c_sample(seeds, *, family: str = "tiny", **sizes) -> pd.DataFrame:
    """:func:`cost_c_exhaustive` (both orders) inside the rounds of real A_online runs: every job of
    every round (:func:`round_windows`) is probed against the window state A_maxsche had when it
    reached that job (the admissions before it in the round committed); one row per (seed, round,
    job, order)."""
    rows = []
    for seed in _seed_list(seeds):
        wl = instance(seed, family=family, **sizes)
        prices, _ = workload_prices(wl)
        for tau, jobs, length in round_windows(wl):
            state = WindowState.empty(wl.cluster.capacity, length)
            for job in jobs:
                keys = {"family": family, "seed": int(seed), "tau": int(tau), "job": job.job_id}
                for order in ("total", "first_slot"):
                    rows.append(_as_row(cost_c_exhaustive(job, state, prices, order=order), **keys))
                state = maxsche([job], state, prices).state  # Alg. 2 lines 16-18 for this job
    return pd.DataFrame(rows)


def run_sample(seeds, *, family: str = "tiny", **sizes) -> pd.DataFrame:
    """Properties 5 and 6 on whole runs of A_online: one row per seed and claim."""
    rows = []
    for seed in _seed_list(seeds):
        wl = instance(seed, family=family, **sizes)
        pol = AOnline.from_workload(wl)
        res = simulate(wl, pol, seed=int(seed))
        for claim in (feasible_run(res), geometric_rounds(res, pol)):
            rows.append(_as_row(claim, family=family, seed=int(seed)))
    return pd.DataFrame(rows)
