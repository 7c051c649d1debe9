r"""PD-ORS's numerically checkable properties as check functions (spec ``pdors.md`` section 7).

M. Yu, J. Liu, C. Wu, B. Ji, E. S. Bentley, "Toward Efficient Online Scheduling for Distributed
Machine Learning Systems", IEEE TNSE (arXiv:2108.02917). The paper's analysis (the approximation
ratio of Algorithm 4, the competitive ratio of PD-ORS, :math:`G_\delta` of (31)/(32)) is not in our
copy; the spec reconstructs it and marks it [R]. The checks below test what the algorithms must
satisfy whatever the published constants are, and *report* (never assert) the reconstructed
bounds. Every function returns a :class:`~dlsched.core.claims.Claim` or a tidy table and is
called by ``tests/test_pdors_checks.py`` and ``notebooks/31_pdors_proofs``.

==================================  ================================================================
check                               spec section 7 property
==================================  ================================================================
:func:`price_function`              1. :math:`Q(0)=L`, :math:`Q(C)=U^r` of (12)-(14) recomputed from
                                    the workload, increasing, :math:`dQ/d\rho = Q\ln(U^r/L)/C`,
                                    :math:`D_0 \le \frac12\min_i u_i` (the [R] :math:`\mu` condition)
:func:`internal_branch_optimal`     2. Alg. 4 steps 2-7 = cheapest single machine by exhaustion
:func:`dp_optimal`                  3. Alg. 3 (quantised DP (21)) = brute force over compositions;
                                    Alg. 2 = argmax of the payoff; pruning changes nothing
:func:`external_bounds`             4. :math:`LP^* \le` integer optimum of (23)-(26)+(26')
                                    :math:`\le` cost of every feasible rounded sample
:func:`rounding_unbiased`           5. (27)-(28): Monte Carlo mean = input
:func:`g_delta_coverage`            6. with (31R): :math:`\Pr[(26)\ violated] \le \delta`;
                                    mean rounded cost :math:`= G_\delta LP^*`
:func:`coverage_by_scale`           6. the same between plain rounding and :math:`G_\delta`
:func:`feasible_run`                7. a whole run satisfies (3)-(7), the ratio and (5); admitted
                                    jobs finish by their plans with at least the planned utility
:func:`ratio_point`,                8. offline OPT (MILP) / PD-ORS on small instances: OPT >= ALG
:func:`ratio_claim`                 asserted, the ratio reported next to :math:`2\alpha\rho` (spec
                                    section 6 [R], our derivation, not the paper's)
:func:`quantisation_sweep`          our DP quantisation (``levels``): utility as the unit shrinks
:func:`weak_duality`,               primal-dual bookkeeping: dual (10) >= primal (8); usage, prices
:func:`dual_bookkeeping`,           and dual increments consistent with the committed plans; the
:func:`lemma1_increments`           Lemma-1 analogue (primal increment >= dual increment / alpha)
                                    reported
==================================  ================================================================

Instances: :func:`instance` (two families, ``"synthetic"`` = :func:`dlsched.workloads.synthetic`
with ``model="pdors"`` and ``"pdors"`` = the paper's job ranges, :func:`dlsched.pdors.model.pdors_workload`),
:func:`loaded_policy` (prices after Algorithm 1 handled the jobs) and :func:`slot_instance`
(random single-slot external problems on 2-3 machines). The ``*_sample`` functions run a check
over seeds and return one row per instance; :func:`fold` turns the rows of each claim into one
:class:`Claim`.

This module never imports the OASiS wing; shared machinery comes from :mod:`dlsched.core`.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from dlsched.core import claims
from dlsched.core.claims import Claim, combine
from dlsched.core.claims import claim_row as _as_row
from dlsched.core.claims import seed_list as _seed_list
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, PdorsModel, Sigmoid, Workload
from dlsched.core.schedule import Placement, ScheduleViolation, check_timeline
from dlsched.core.simulator import SimulationResult, simulate
from dlsched.pdors.policy import (
    PDORS,
    PdorsPrices,
    SlotSolver,
    g_delta,
    round_solution,
)

__all__ = [
    "FAMILIES",
    "combine",
    "coverage_by_scale",
    "dp_optimal",
    "dual_bookkeeping",
    "external_bounds",
    "external_integer_optimum",
    "feasible_run",
    "fold",
    "g_delta_coverage",
    "instance",
    "internal_branch_optimal",
    "lemma1_increments",
    "loaded_policy",
    "price_function",
    "price_sample",
    "probe_sample",
    "quantisation_claim",
    "quantisation_relative",
    "quantisation_run",
    "quantisation_sweep",
    "ratio_claim",
    "ratio_point",
    "ratio_ranks",
    "ratio_run",
    "ratio_sample",
    "ratio_summary",
    "rounding_unbiased",
    "run_sample",
    "slot_instance",
    "slot_sample",
    "weak_duality",
]

FAMILIES: tuple[str, ...] = ("synthetic", "pdors")
"""Instance families of :func:`instance`."""

_REL = 1e-9  # relative tolerance of float comparisons
_FEAS = 1e-7  # slack of the covering constraint, as the policy's step-11 test


# =============================================================================== instances


def instance(seed: int, *, family: str = "synthetic", **sizes) -> Workload:
    """A random PD-ORS instance (``registry.make_workload(family, seed=seed, **sizes)``) with a horizon.

    Parameters
    ----------
    seed : int
        Seed of the workload generator (>= 0).
    family : {"synthetic", "pdors"}
        ``"synthetic"``: :func:`dlsched.workloads.synthetic` with ``model="pdors"`` (sizes
        ``n_jobs``, ``n_servers``, ``horizon``, ``arrival_span``): jobs of a few slots on 4-GPU
        machines, ratio 1. ``"pdors"``: :func:`dlsched.pdors.model.pdors_workload` (sizes
        ``n_jobs``, ``n_machines``, ``T``, ...): the paper's job ranges on EC2 GPU machines.
    **sizes
        Keyword arguments of the family's workload function (the registry validates them).

    Returns
    -------
    Workload
        Deterministic in ``seed``; ``horizon`` is set.

    Raises
    ------
    ValueError
        For an unknown family, a negative seed, or a workload without a horizon.
    """
    from dlsched import registry

    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    extra = {"model": "pdors"} if family == "synthetic" else {}
    wl = registry.make_workload(family, seed=int(seed), **extra, **sizes)
    if wl.horizon is None:
        raise ValueError(f"instance: family {family!r} needs a horizon (e.g. horizon=6), got None")
    return wl


def loaded_policy(workload: Workload, *, exclude: int | None = None, seed: int = 0, **params) -> PDORS:
    """PD-ORS with the workload's price parameters after Algorithm 1 handled its jobs.

    The returned policy holds the usage, prices, plans and payoffs of a run over every job except
    ``exclude``: a realistic loaded state in which to probe Algorithms 2-4.

    Parameters
    ----------
    workload : Workload
        Instance with a horizon.
    exclude : int, optional
        Job id to leave out of the run.
    seed : int
        Seed of the run (the rounding's random stream).
    **params
        Policy parameters (``levels``, ``delta``, ...; see :class:`~dlsched.pdors.policy.PDORS`).

    Returns
    -------
    PDORS

    Raises
    ------
    ValueError
        Without a horizon, or if ``exclude`` is not a job of the workload.
    """
    if workload.horizon is None:
        raise ValueError("loaded_policy needs a workload with a horizon, got horizon=None")
    if exclude is not None and exclude not in workload.specs:
        raise ValueError(f"exclude={exclude!r} is not a job id of the workload")
    pol = PDORS.from_workload(workload, **params)
    kept = tuple(s for s in workload.jobs if s.job_id != exclude)
    if kept:
        simulate(Workload(workload.cluster, kept, horizon=workload.horizon), pol, seed=seed)
    else:
        pol.prepare(workload.cluster, workload.horizon, np.random.default_rng(seed))
    return pol


def _machines(pol: PDORS) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the machines that host both roles and their capacities (rows of ``rho``)."""
    c = pol.cluster
    srv = np.intersect1d(c.servers_for("worker"), c.servers_for("ps"))
    return srv, c.capacity[srv]


def slot_instance(seed: int, *, n_machines: int = 3) -> tuple[SlotSolver, np.ndarray]:
    r"""A random external problem (23)-(26)+(26') of one slot on a few machines.

    One job (:math:`F_i` in 2..40, :math:`\gamma_i` in 1..3, a worker needs 1 GPU and 1-2 CPUs, a
    PS 1-2 CPUs) on ``n_machines`` machines with :math:`\lceil F_i/H\rceil` to 8 more GPUs and three
    times as many CPUs plus up to 16, up to 40% of each already used; prices :math:`Q(\rho)` of
    (12) with random ``L <= U``. The demands are four values of
    :math:`D_w` (the RHS of (26)) between 0.3 and :math:`F_i`.

    Returns
    -------
    (SlotSolver, numpy.ndarray)
        The solver of Algorithm 4 for this slot state and the demands.
    """
    if isinstance(n_machines, bool) or not isinstance(n_machines, (int, np.integer)) or n_machines < 1:
        raise ValueError(f"n_machines must be an integer >= 1, got {n_machines!r}")
    rng = np.random.default_rng(seed)
    F, gamma = int(rng.integers(2, 41)), int(rng.integers(1, 4))
    share = math.ceil(F / n_machines)  # about F workers fit on the empty machines together
    cap = {"gpu": float(share + rng.integers(0, 9)), "cpu": float(3 * share + rng.integers(0, 17))}
    cluster = Cluster.homogeneous(int(n_machines), cap)
    model = PdorsModel(epochs=1, samples=100, batch=F, tau=0.01, sync_internal=0.0, sync_external=0.05,
                       ratio=float(gamma))  # fmt: skip
    spec = JobSpec(0, 0, model, {"gpu": 1, "cpu": int(rng.integers(1, 3))}, {"cpu": int(rng.integers(1, 3))},
                   utility=Sigmoid(10.0, 0.5, 2.0))  # fmt: skip
    prices = PdorsPrices(rng.uniform(0.0, 3.0, 2), float(rng.uniform(-3.0, 0.0)))
    pol = PDORS(prices, levels=10).prepare(cluster, 1, rng)
    full = cluster.capacity
    used = np.floor(rng.uniform(0.0, 0.4, full.shape) * full)
    solver = SlotSolver(pol.job(spec), prices.price(used, full), full - used)
    return solver, np.sort(rng.uniform(0.3, F, 4))


# =============================================================================== 1. prices


def _expected_bounds(workload: Workload) -> tuple[np.ndarray, float, float]:
    r"""``(ln U^r, ln L, mu)`` recomputed from (13)-(14) and the [R] condition on :math:`\mu`,
    job by job (independent of :func:`~dlsched.pdors.policy.price_parameters`)."""
    c = workload.cluster
    T = int(workload.horizon)
    R = len(c.resources)
    best = np.full(R, -math.inf)
    ratios, worst = [], []
    for spec in workload.jobs:
        m = spec.model
        per_int = m.tau + m.ratio * m.sync_internal / m.batch  # per-sample time, b^(i)
        per_ext = m.tau + m.ratio * m.sync_external / m.batch  # per-sample time, b^(e)
        d_min = max(1, math.ceil(m.epochs * m.samples / m.batch * per_int - 1e-9))
        w_ext = max(1, math.ceil(m.epochs * m.samples * per_ext - 1e-9))
        demand = c.vector(spec.worker_demand) + c.vector(spec.ps_demand)
        top = float(spec.utility.log(d_min - 1))
        for r in range(R):
            if demand[r] > 0:
                best[r] = max(best[r], top - math.log(demand[r]))
        share = w_ext * float(demand.sum())
        ratios.append(share / (T * float(c.capacity.sum())))
        worst.append(float(spec.utility.log(max(0, T - 1 - spec.arrival))) - math.log(share))
    mu = 1.0 / min(1.0, min(ratios))
    log_l = min(worst) - math.log(2 * mu)
    return np.where(np.isfinite(best), np.maximum(best, log_l), log_l), log_l, mu


def price_function(workload: Workload, prices: PdorsPrices | None = None, *, grid: int = 41) -> Claim:
    r"""Property 1: the price function (12) with parameters (13)-(14).

    ``L``, ``U^r`` and :math:`\mu` are recomputed job by job from the workload (the readings of
    :func:`~dlsched.pdors.policy.price_parameters`: :math:`u_i(d_i^{min}-1)` in (13),
    :math:`u_i(T-1-a_i)` in (14), the largest admissible :math:`1/\mu`). On every machine and
    resource: :math:`Q(0)=L`, :math:`Q(C)=U^r` (relative, in logs: ``L`` may be tiny), ``Q``
    increasing on a grid of usages (strictly where :math:`U^r > L`), and
    :math:`dQ/d\rho = Q\ln(U^r/L)/C` by central finite differences of ``Q`` itself. Also the [R]
    condition's consequence :math:`D_0 = T\sum_{h,r}LC_h^r \le \frac12\min_i u_i(T-1-a_i)`.

    Parameters
    ----------
    workload : Workload
        PD-ORS jobs and a horizon.
    prices : PdorsPrices, optional
        The parameters to check (default: ``price_parameters(workload)``, what the policy uses).
    grid : int
        Usage points per resource for monotonicity and the derivative.

    Returns
    -------
    Claim
    """
    from dlsched.pdors.policy import price_parameters

    if workload.horizon is None:
        raise ValueError("price_function needs a workload with a horizon, got horizon=None")
    prices = price_parameters(workload) if prices is None else prices
    Q = prices.price
    log_u, log_l, mu = _expected_bounds(workload)
    cap = workload.cluster.capacity
    span = np.where(cap > 0, cap, 1.0)
    ok_cap = cap > 0  # a zero capacity counts as full usage (price U) in ExponentialPrice
    err_low = float(np.max(np.abs(Q.log_price(np.zeros_like(cap), cap) - log_l)[ok_cap]))
    err_up = float(np.max(np.abs(Q.log_price(cap, cap) - log_u[None, :])))
    frac = np.linspace(0.0, 1.0, grid)[:, None, None]
    values = Q(frac * cap[None], cap[None])
    steps = np.diff(values, axis=0)
    rising = np.broadcast_to(np.asarray(Q.log_ratio) > 1e-12, cap.shape) & (cap > 0)
    monotone = bool(np.all(steps >= -1e-12 * values[1:])) and bool(np.all(steps[:, rising] > 0))
    h = 1e-6 * span
    mid = frac[1:-1] * cap[None]
    numeric = (Q(mid + h, cap[None]) - Q(mid - h, cap[None])) / (2 * h)
    exact = Q(mid, cap[None]) * np.asarray(Q.log_ratio) / span
    deriv = float(np.max(np.abs(numeric - exact)[:, ok_cap] / np.maximum(np.abs(exact[:, ok_cap]), 1e-300)))
    d0 = workload.horizon * math.exp(Q.log_lower) * float(cap.sum())  # D_0 with the prices checked
    half_min = 0.5 * min(float(s.utility(max(0, workload.horizon - 1 - s.arrival))) for s in workload.jobs)
    tol = 1e-9 * max(1.0, abs(log_l))
    ok = err_low <= tol and err_up <= tol and monotone and deriv <= 1e-6 and d0 <= half_min * (1 + _REL)
    return Claim(
        "PD-ORS (12)-(14): Q(0)=L, Q(C)=U, increasing, dQ/drho = Q ln(U/L)/C, D_0 <= min u/2",
        ok,
        {"ln_L": log_l, "max_ln_U_over_L": float(np.max(log_u) - log_l), "mu": mu,
         "err_ln_Q0": err_low, "err_ln_QC": err_up, "increasing": monotone,
         "max_rel_err_dQ": deriv, "D0": d0, "half_min_utility": half_min},
    )  # fmt: skip


# ====================================================================== 2. internal branch


def internal_branch_optimal(pol: PDORS, spec: JobSpec) -> Claim:
    r"""Property 2: Algorithm 4's internal branch (steps 2-7) is the cheapest single machine.

    For every slot :math:`t \in [a_i, T)` and every number of units ``v = 0..V_i/q``, an exhaustive
    search over the machines: :math:`D=\lceil vq(\tau_i+2g_i\gamma_i/(b^{(i)}F_i))\rceil` workers
    needed, :math:`s=\lceil D/\gamma_i\rceil` PS and :math:`w=\gamma_is` workers (``w = D`` for a
    non-integer :math:`\gamma_i`); a machine qualifies if (4) ``w <= F`` and (24)
    :math:`\alpha^rw+\beta^rs \le \hat C_h^r[t]`; its cost is :math:`\sum_r p_h^r[t](\alpha^rw+\beta^rs)`
    with the prices recomputed from the usage by (12) (not read from ``pol.p``). The solver's
    cost must equal the minimum (both infinite if no machine qualifies) and its machine must
    qualify and cost that minimum.

    Parameters
    ----------
    pol : PDORS
        A prepared or loaded policy (:func:`loaded_policy`); not modified.
    spec : JobSpec
        The job to probe.

    Returns
    -------
    Claim
        ``details``: cases (slot, v) checked, how many have a feasible machine, mismatches.
    """
    job = pol.job(spec)
    m = job.model
    _, cap = _machines(pol)
    Q = pol.prices.price
    per_sample = m.tau + m.ratio * m.sync_internal / m.batch
    integral = float(m.ratio).is_integer()
    cases = feasible = 0
    bad: list[tuple[int, int]] = []
    for t in range(spec.arrival, pol.rho.shape[0]):
        used = pol.rho[t]
        price, free = Q(used, cap), cap - used
        got, machine = SlotSolver(job, pol.p[t], free).internal(job.units)
        for v in range(job.units + 1):
            cases += 1
            need_w = math.ceil(v * job.q * per_sample - 1e-9)
            n_ps = math.ceil(need_w / m.ratio - 1e-9)
            n_w = int(m.ratio) * n_ps if integral else need_w
            demand = n_w * job.wd + n_ps * job.pd
            fits = np.all(demand[None, :] <= free + 1e-9, axis=1) & (n_w <= m.batch)
            cost = price @ demand
            want = 0.0 if v == 0 else (float(cost[fits].min()) if fits.any() else math.inf)
            feasible += math.isfinite(want)
            have = float(got[v])
            if math.isinf(want) or math.isinf(have):
                if math.isinf(want) != math.isinf(have):
                    bad.append((t, v))
                continue
            same = abs(have - want) <= _REL * max(1.0, want)
            h = int(machine[v])
            if v > 0 and (h < 0 or not fits[h] or abs(cost[h] - want) > _REL * max(1.0, want)):
                same = False
            if not same:
                bad.append((t, v))
    return Claim(
        "PD-ORS Alg. 4 steps 2-7: internal branch = cheapest machine by exhaustive search",
        not bad,
        {"cases": cases, "feasible_cases": feasible, "mismatches": len(bad), "first_mismatches": bad[:5]},
    )


# ============================================================================ 3. DP, Alg. 2


@contextlib.contextmanager
def _watch_thetas(pol: PDORS):
    """Record every :math:`\\theta(t,\\cdot)` the policy computes:
    ``(t, usage bytes, SlotTheta, PdorsJob, prices, usage)`` of the slot when it was computed."""
    seen: list[tuple] = []
    compute = type(pol).slot_theta

    def recorded(job, t, *args, **kwargs):
        used, price = pol.rho[t].copy(), pol.p[t].copy()
        theta = compute(pol, job, t, *args, **kwargs)
        seen.append((t, used.tobytes(), theta, job, price, used))
        return theta

    pol.slot_theta = recorded
    try:
        yield seen
    finally:
        del pol.slot_theta


def _capped_compositions(total: int, caps: Sequence[int]):
    """Every tuple ``x`` with ``sum(x) == total`` and ``0 <= x[k] <= caps[k]``."""
    if not caps:
        if total == 0:
            yield ()
        return
    room = sum(caps[1:])
    for first in range(max(0, total - room), min(total, caps[0]) + 1):
        for tail in _capped_compositions(total - first, caps[1:]):
            yield (first, *tail)


def dp_optimal(pol: PDORS, spec: JobSpec, *, max_cases: int = 300_000) -> Claim:
    r"""Property 3: the quantised DP (21) of Algorithm 3 and the argmax of Algorithm 2.

    Runs ``search(spec, prune=False)`` while recording the :math:`\theta(t,\cdot)` it uses (the
    rounding draws randomness, so the brute force must see the *same* per-slot costs; slots that
    share a usage state share one :math:`\theta`, as in the policy). Then, for every completion slot
    :math:`a_i+k`, the minimum over **all** compositions of the ``n`` units over the slots
    :math:`a_i..a_i+k` (at most ``len(theta.cost) - 1`` units per slot) of
    :math:`\sum_t\theta(t,v_t)` must equal ``costs_by_completion[k]``; Algorithm 2's payoff and
    completion must be the (earliest) argmax of :math:`u_i(k)-\Theta` (0: reject); the returned
    schedule must cover the ``n`` units and cost :math:`\Theta`; and ``search(prune=True)`` from the
    same random state must return the same payoff, completion and schedule. The policy's random
    state is restored afterwards. Keep ``levels`` small (the enumeration is exponential).

    Parameters
    ----------
    pol : PDORS
        A prepared or loaded policy.
    spec : JobSpec
        The job to probe.
    max_cases : int
        Refuse to enumerate more compositions than this.

    Returns
    -------
    Claim
        ``details``: units, completion slots (finite ones), compositions enumerated, the payoff
        and the first problems found.

    Raises
    ------
    ValueError
        If the enumeration would exceed ``max_cases``.
    """
    bitgen = pol.rng.bit_generator
    start = bitgen.state
    with _watch_thetas(pol) as seen:
        full = pol.search(spec, prune=False)
    bitgen.state = start
    pruned = pol.search(spec, prune=True)
    bitgen.state = start
    job = pol.job(spec)
    n, a = job.units, spec.arrival
    S = max(0, pol.rho.shape[0] - a)
    problems: list[str] = []
    by_slot = {rec[0]: rec[2] for rec in seen}
    by_state = {rec[1]: rec[2] for rec in reversed(seen)}
    counted = 0
    if full.costs_by_completion is None:
        # the search declared the job impossible before any theta: the caps must say so too
        if not (S <= 0 or job.v_max == 0 or job.v_max * S < n):
            problems.append("no costs although the units fit the slots")
        brute = np.full(S, math.inf)
    else:
        thetas = [by_slot.get(a + k, by_state.get(pol.rho[a + k].tobytes())) for k in range(S)]
        brute = np.full(S, math.inf)
        for k in range(S):
            caps = [len(th.cost) - 1 for th in thetas[: k + 1]]
            best = math.inf
            for comp in _capped_compositions(n, caps):
                counted += 1
                if counted > max_cases:
                    raise ValueError(f"dp_optimal: more than {max_cases} compositions; use fewer levels")
                best = min(best, sum(float(thetas[i].cost[v]) for i, v in enumerate(comp)))
            brute[k] = best
            got = float(full.costs_by_completion[k])
            if math.isinf(best) != math.isinf(got) or (
                math.isfinite(best) and abs(best - got) > _REL * max(1.0, abs(best))
            ):
                problems.append(f"cost of completion {a + k}: DP {got!r} != brute force {best!r}")
        if full.completion is not None:
            units = full.units
            if sum(units.values()) != n or any(t > full.completion or t < a for t in units):
                problems.append("schedule does not cover the units within [a, completion]")
            spent = sum(float(thetas[t - a].cost[v]) for t, v in units.items())
            if abs(spent - full.cost) > _REL * max(1.0, abs(full.cost)):
                problems.append(f"schedule costs {spent!r}, search says {full.cost!r}")
    payoffs = np.asarray(spec.utility(np.arange(S)), dtype=float) - brute if S > 0 else np.zeros(0)
    top = max(0.0, float(payoffs.max())) if S > 0 else 0.0
    if top > 0:
        want = a + int(np.flatnonzero(payoffs >= top - _REL * max(1.0, top))[0])
    else:
        want = None
    if abs(full.payoff - top) > _REL * max(1.0, top) or full.completion != want:
        problems.append(f"Alg. 2: payoff {full.payoff!r} at {full.completion}, argmax {top!r} at {want}")
    if (pruned.payoff, pruned.completion, pruned.units) != (full.payoff, full.completion, full.units):
        problems.append("pruning changed the result")
    return Claim(
        "PD-ORS Alg. 2-3: quantised DP (21) = brute force over compositions, payoff = argmax",
        not problems,
        {"units": n, "completion_slots": S, "finite_completions": int(np.isfinite(brute).sum()),
         "compositions": counted, "payoff": float(full.payoff),
         "problems": problems[:3]},
    )  # fmt: skip


# ======================================================================= 4. external branch


def _costs(solver: SlotSolver) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`p_h^w, p_h^s` of (23), recomputed from the solver's job and prices."""
    return solver.pw, solver.ps


def _is_feasible(solver: SlotSolver, w: np.ndarray, s: np.ndarray, demand: float) -> np.ndarray:
    """Our own test of (24), (25), (26), (26') and ``sum w >= 1`` for integer samples (..., H)."""
    job = solver.job
    W, S = w.sum(axis=-1), s.sum(axis=-1)
    ok = (W >= 1) & (W <= job.model.batch) & (W >= demand - _FEAS) & (S * job.model.ratio >= W - 1e-9)
    used = w[..., None] * job.wd + s[..., None] * job.pd  # (..., H, R)
    return ok & np.all(used <= solver.free + 1e-9, axis=(-2, -1))


def external_integer_optimum(solver: SlotSolver, demand: float) -> float:
    r"""Integer optimum of (23)-(26) + (26') for one RHS ``demand`` (:math:`D_w`), exactly.

    Every integer pair :math:`(w_h, s_h)` that fits machine ``h`` under (24) is enumerated, and the
    machines are combined by dynamic programming over the totals :math:`(\sum w, \sum s)`
    (:math:`\sum w \le F_i`, :math:`\sum s \le \lceil F_i/\gamma_i\rceil`: with prices >= 0 a PS beyond
    that is never needed for (26')). The result is the minimum of the table over the totals that
    satisfy (25), (26), (26') and :math:`\sum w \ge 1`; ``inf`` if none.
    """
    job = solver.job
    F = int(job.model.batch)
    S_max = math.ceil(F / job.model.ratio - 1e-12)
    pw, ps = _costs(solver)
    table = np.full((F + 1, S_max + 1), math.inf)
    table[0, 0] = 0.0
    ws, ss = np.meshgrid(np.arange(F + 1), np.arange(S_max + 1), indexing="ij")
    for h in range(len(pw)):
        use = ws[..., None] * job.wd + ss[..., None] * job.pd
        fits = np.all(use <= solver.free[h] + 1e-9, axis=-1)
        nxt = table.copy()
        for w, s in zip(ws[fits], ss[fits], strict=True):
            if w == 0 and s == 0:
                continue
            cand = table[: F + 1 - w, : S_max + 1 - s] + (w * pw[h] + s * ps[h])
            np.minimum(nxt[w:, s:], cand, out=nxt[w:, s:])
        table = nxt
    W, S = np.arange(F + 1)[:, None], np.arange(S_max + 1)[None, :]
    ok = (W >= 1) & (W >= demand - _FEAS) & (S * job.model.ratio >= W - 1e-9)
    return float(table[ok].min()) if ok.any() else math.inf


def external_bounds(
    solver: SlotSolver,
    demands,
    rng: np.random.Generator,
    *,
    samples: int = 200,
    delta: float = 0.1,
    variant: str = "31R",
) -> Claim:
    r"""Property 4: :math:`LP^* \le IP^* \le` the cost of every feasible rounded sample.

    For each RHS :math:`D_w` in ``demands``: :math:`LP^*` from the solver's LP relaxation (HiGHS),
    :math:`IP^*` from :func:`external_integer_optimum`, and ``samples`` roundings (27)-(28) of the
    LP solution scaled by :math:`G_\delta` (steps 9-10) plus ``samples`` unscaled ones (scaling up
    often breaks the packing constraints (24)-(25), so the unscaled samples exercise the bound
    more often). Every sample that is feasible by our own test must cost at least :math:`IP^*`,
    and the policy's step-11 test
    (:meth:`SlotSolver.feasible`) must agree with ours on every sample.

    Parameters
    ----------
    solver : SlotSolver
        One slot's problem (e.g. :func:`slot_instance`).
    demands : array_like
        Values of :math:`D_w`.
    rng : numpy.random.Generator
        Source of the roundings.
    samples : int
        Roundings per demand.
    delta, variant
        :math:`\delta` and ``"31R"``/``"32R"`` of :func:`~dlsched.pdors.policy.g_delta`.

    Returns
    -------
    Claim
        ``details``: demands, how many had an LP / integer solution, samples and feasible samples
        (scaled / unscaled),
        the largest :math:`LP^*/IP^*` and the smallest (cheapest feasible sample)/:math:`IP^*`.
    """
    d = np.asarray(demands, dtype=float)
    lp, wbar, sbar, _, _ = solver.lp(d)
    pw, ps = _costs(solver)
    idx = np.arange(len(pw))
    bad: list[str] = []
    n_lp = n_ip = 0
    n_ok = [0, 0]  # feasible samples scaled by G_delta / unscaled
    lp_over_ip, best_over_ip = 0.0, math.inf
    mismatch = 0
    for i, dw in enumerate(d):
        ip = external_integer_optimum(solver, dw)
        n_lp += math.isfinite(lp[i])
        n_ip += math.isfinite(ip)
        if math.isfinite(ip) and not lp[i] <= ip * (1 + 1e-7) + 1e-9:
            bad.append(f"LP* {lp[i]!r} > IP* {ip!r} at D_w={dw:.4g}")
        if math.isfinite(ip) and ip > 0:
            lp_over_ip = max(lp_over_ip, float(lp[i] / ip))
        if not math.isfinite(lp[i]):
            if math.isfinite(ip):
                bad.append(f"LP infeasible but IP* = {ip!r} at D_w={dw:.4g}")
            continue
        g = float(g_delta(dw, delta, solver.job.model.ratio, variant))
        for k, scale in enumerate((g, 1.0)):
            w = round_solution(wbar[i] * scale, rng, samples)
            s = round_solution(sbar[i] * scale, rng, samples)
            ours = _is_feasible(solver, w, s, dw)
            mismatch += int(np.sum(ours != solver.feasible(w, s, dw, idx)))
            n_ok[k] += int(ours.sum())
            if ours.any():
                cheapest = float((w[ours] @ pw + s[ours] @ ps).min())
                if cheapest < ip * (1 - 1e-9) - 1e-12:
                    bad.append(f"feasible sample costs {cheapest!r} < IP* {ip!r}")
                if ip > 0:
                    best_over_ip = min(best_over_ip, cheapest / ip)
    if mismatch:
        bad.append(f"{mismatch} samples judged differently by SlotSolver.feasible")
    return Claim(
        "PD-ORS Alg. 4 steps 8-11: LP* <= integer optimum of (23)-(26') <= every feasible rounded sample",
        not bad,
        {"demands": len(d), "lp_feasible": n_lp, "ip_feasible": n_ip, "samples": 2 * samples * n_lp,
         "feasible_scaled": n_ok[0], "feasible_unscaled": n_ok[1], "max_lp_over_ip": lp_over_ip,
         "min_sample_over_ip": best_over_ip,
         "problems": bad[:3]},
    )  # fmt: skip


# =========================================================================== 5. rounding


def rounding_unbiased(
    values,
    rng: np.random.Generator,
    *,
    draws: int = 20_000,
    rounder: Callable[[np.ndarray, np.random.Generator, int], np.ndarray] = round_solution,
    z_max: float = 5.0,
) -> Claim:
    r"""Property 5: the randomized rounding (27)-(28) is unbiased and only rounds to neighbours.

    ``draws`` roundings of ``values`` by ``rounder`` (default
    :func:`~dlsched.pdors.policy.round_solution`): every result must be :math:`\lfloor x\rfloor` or
    :math:`\lceil x\rceil`, integral entries must stay put, and the mean of each entry must be within
    ``z_max`` standard errors :math:`\sqrt{f(1-f)/\text{draws}}` of ``x`` (``f`` = fractional part).

    Returns
    -------
    Claim
        ``details``: entries, draws, the largest ``|z|`` and the largest absolute bias.
    """
    x = np.asarray(values, dtype=float)
    if np.any(x < 0) or not np.all(np.isfinite(x)):
        raise ValueError("rounding_unbiased: values must be finite and >= 0")
    out = np.asarray(rounder(x, rng, int(draws)), dtype=float)
    if out.shape != (int(draws), *x.shape):
        raise ValueError(f"rounder returned shape {out.shape}, expected {(int(draws), *x.shape)}")
    neighbours = bool(np.all(np.abs(out - x) < 1 + 1e-9))
    frac = x - np.floor(x)
    frac[np.minimum(frac, 1 - frac) < 1e-9] = 0.0
    mean = out.mean(axis=0)
    err = np.abs(mean - x)
    sd = np.sqrt(frac * (1 - frac) / draws)
    z = np.divide(err, sd, out=np.zeros_like(err), where=sd > 0)
    fixed = bool(np.all(err[sd == 0] < 1e-9))
    worst = float(z.max()) if z.size else 0.0
    return Claim(
        "PD-ORS (27)-(28): randomized rounding is unbiased (E[w] = w')",
        neighbours and fixed and worst <= z_max,
        {"entries": int(x.size), "draws": int(draws), "max_abs_z": worst,
         "max_abs_bias": float(err.max()) if err.size else 0.0, "only_neighbours": neighbours,
         "integral_kept": fixed},
    )  # fmt: skip


# ============================================================================ 6. G_delta


def g_delta_coverage(
    cases: Iterable[tuple[SlotSolver, np.ndarray]],
    rng: np.random.Generator,
    *,
    delta: float = 0.1,
    variant: str = "31R",
    draws: int = 4000,
    scale: float | None = None,
    z_max: float = 4.0,
) -> Claim:
    r"""Property 6: with the scale :math:`G_\delta` of (31R), the covering constraint (26) survives
    the rounding with probability at least :math:`1-\delta`, and the mean cost is :math:`G_\delta LP^*`.

    For every case and every demand with a feasible LP: ``draws`` roundings of
    :math:`G_\delta\bar w, G_\delta\bar s`; the share of samples with :math:`\sum_hw_h < D_w` must
    not exceed :math:`\delta` by more than ``z_max`` binomial standard errors, and the mean cost
    must be within ``z_max`` standard errors of :math:`G_\delta LP^*` (linearity plus
    unbiasedness). Also reported: the violation rate of the PS covering :math:`\sum_hs_h\ge D_w/\gamma_i`
    (what (32R) guards), the share of scaled samples that satisfy every constraint (24)-(26')
    (scaling up costs packing feasibility) and the mean cost over :math:`LP^*` (the expected
    approximation factor).

    Parameters
    ----------
    cases : iterable of (SlotSolver, demands)
        E.g. :func:`slot_instance` for several seeds.
    rng : numpy.random.Generator
    delta : float
        :math:`\delta` (also the bound on the violation rate).
    variant : {"31R", "32R"}
    draws : int
        Roundings per demand.
    scale : float, optional
        Use this scale instead of :math:`G_\delta` (e.g. 1.0: plain rounding, which must fail).
    z_max : float
        Monte Carlo tolerance in standard errors.

    Returns
    -------
    Claim
    """
    rates, ps_rates, ratios, zs, scales, kept = [], [], [], [], [], []
    over = 0
    for solver, demands in cases:
        d = np.asarray(demands, dtype=float)
        lp, wbar, sbar, _, _ = solver.lp(d)
        gamma = solver.job.model.ratio
        pw, ps = _costs(solver)
        for i in np.flatnonzero(np.isfinite(lp) & (d > 0)):
            g = float(g_delta(d[i], delta, gamma, variant)) if scale is None else float(scale)
            w = round_solution(wbar[i] * g, rng, draws)
            s = round_solution(sbar[i] * g, rng, draws)
            miss = float(np.mean(w.sum(axis=1) < d[i] - _FEAS))
            rates.append(miss)
            kept.append(float(np.mean(_is_feasible(solver, w, s, d[i]))))
            ps_rates.append(float(np.mean(s.sum(axis=1) * gamma < d[i] - _FEAS)))
            cost = w @ pw + s @ ps
            target = g * lp[i]
            se = float(cost.std(ddof=1)) / math.sqrt(draws) if draws > 1 else 0.0
            off = abs(float(cost.mean()) - target)
            zs.append(off / se if se > 0 else (0.0 if off <= 1e-9 * max(1.0, target) else math.inf))
            if lp[i] > 0:
                ratios.append(float(cost.mean()) / lp[i])
            scales.append(g)
            over += miss > delta + z_max * math.sqrt(delta * (1 - delta) / draws)
    pooled = float(np.mean(rates)) if rates else math.nan
    worst_z = max(zs) if zs else 0.0
    ok = over == 0 and worst_z <= z_max  # vacuous (no LP-feasible level) counts as holding
    return Claim(
        f"PD-ORS G_delta ({variant}, reconstructed): Pr[(26) violated] <= delta, E[cost] = G_delta LP*",
        ok,
        {"delta": float(delta), "levels": len(rates), "draws": int(draws),
         "max_violation_rate": max(rates) if rates else math.nan, "pooled_violation_rate": pooled,
         "levels_over_delta": int(over),
         "pooled_ps_violation_rate": float(np.mean(ps_rates)) if ps_rates else math.nan,
         "mean_G": float(np.mean(scales)) if scales else math.nan,
         "pooled_feasible_rate": float(np.mean(kept)) if kept else math.nan,
         "mean_cost_over_lp": float(np.mean(ratios)) if ratios else math.nan, "max_abs_z_cost": worst_z},
    )  # fmt: skip


def coverage_by_scale(
    cases: Iterable[tuple[SlotSolver, np.ndarray]],
    rng: np.random.Generator,
    *,
    fractions: Sequence[float] = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0),
    delta: float = 0.1,
    variant: str = "31R",
    draws: int = 2000,
) -> pd.DataFrame:
    r"""How the violation rate of (26) and the feasibility of the rounded samples move between
    plain rounding (scale 1) and :math:`G_\delta`: scale :math:`1 + f(G_\delta - 1)` for each
    fraction ``f``.

    Returns
    -------
    pandas.DataFrame
        One row per (case, level, fraction): ``case, demand, G, fraction, scale, violation_rate``
        (:math:`\sum_h w_h < D_w`), ``feasible_rate`` (every constraint (24)-(26') holds),
        ``cost_over_lp`` (mean cost / :math:`LP^*`).
    """
    rows = []
    for c, (solver, demands) in enumerate(cases):
        d = np.asarray(demands, dtype=float)
        lp, wbar, sbar, _, _ = solver.lp(d)
        pw, ps = _costs(solver)
        for i in np.flatnonzero(np.isfinite(lp) & (d > 0) & (lp > 0)):
            g = float(g_delta(d[i], delta, solver.job.model.ratio, variant))
            for f in fractions:
                scale = 1.0 + float(f) * (g - 1.0)
                w = round_solution(wbar[i] * scale, rng, draws)
                s = round_solution(sbar[i] * scale, rng, draws)
                rows.append({"case": c, "demand": float(d[i]), "G": g, "fraction": float(f), "scale": scale,
                             "violation_rate": float(np.mean(w.sum(axis=1) < d[i] - _FEAS)),
                             "feasible_rate": float(np.mean(_is_feasible(solver, w, s, d[i]))),
                             "cost_over_lp": float(np.mean(w @ pw + s @ ps)) / float(lp[i])})  # fmt: skip
    return pd.DataFrame(rows)


# =========================================================================== 7. whole runs


def feasible_run(
    result: SimulationResult, policy: PDORS, *, allocations: pd.DataFrame | None = None
) -> Claim:
    r"""Property 7: a PD-ORS run is feasible and keeps its plans.

    The allocation table (``result.allocations`` unless ``allocations`` is given) is re-checked
    slot by slot with :func:`dlsched.core.schedule.check_timeline` (capacities (5), roles,
    arrivals (7), (4) ``w <= F_i``, the worker:PS ratio); for every admitted job the samples are
    recomputed from the table with the job model's rate and must reach :math:`E_iK_i` (3), its last
    slot with workers (6) must be no later than the planned completion, its utility at least
    :math:`u_i(\text{planned}-a_i)`, and each slot's placement must be the committed plan's;
    rejected jobs must never run.

    Returns
    -------
    Claim
        ``details``: jobs, admitted, the first problems found.
    """
    wl = result.workload
    table = result.allocations if allocations is None else allocations
    problems: list[str] = []
    try:
        check_timeline(wl.cluster, wl.specs, table)
    except ScheduleViolation as exc:
        problems.append(f"checker: {exc}")
    per_job = {int(j): part for j, part in table.groupby("job", sort=True)}
    admitted = 0
    for row in result.jobs.itertuples(index=False):
        j = int(row.job_id)
        spec = wl.specs[j]
        mine = per_job.get(j)
        if not row.admitted:
            if mine is not None and len(mine):
                problems.append(f"job {j} rejected but allocated")
            continue
        admitted += 1
        planned = int(row.planned_completion)
        plan = policy.plans.get(j, {})
        done, last = 0.0, None
        slots = mine.groupby("slot", sort=True) if mine is not None else []
        for t, part in slots:
            roles = {r: dict(zip(g["server"].astype(int), g["count"].astype(int), strict=True))
                     for r, g in part.groupby("role")}  # fmt: skip
            place = Placement.of(roles.get("worker", {}), roles.get("ps", {}))
            done += spec.model.rate(spec, place, None)
            if place.n_workers:
                last = int(t)
            if plan.get(int(t)) != place:
                problems.append(f"job {j} slot {int(t)}: placement differs from the committed plan")
        if done < spec.model.total_work * (1 - 1e-9):
            problems.append(f"job {j}: {done:.6g} of {spec.model.total_work:.6g} samples (3)")
        if last is None or last > planned:
            problems.append(f"job {j}: last slot with workers {last} after planned completion {planned}")
        if not row.completion_slot <= planned:
            problems.append(f"job {j}: completed at {row.completion_slot} after plan {planned}")
        floor_u = float(spec.utility(planned - spec.arrival))
        if not row.utility >= floor_u - 1e-9 * max(1.0, abs(floor_u)):
            problems.append(f"job {j}: utility {row.utility!r} < u(planned) {floor_u!r}")
    return Claim(
        "PD-ORS run feasible for (3)-(7) and (5); admitted jobs meet their plans",
        not problems,
        {"jobs": int(len(result.jobs)), "admitted": admitted, "problems": problems[:3]},
    )


# ============================================================== 10. primal-dual bookkeeping


def weak_duality(result: SimulationResult, policy: PDORS) -> Claim:
    r"""Weak duality after a run: the dual objective (10),
    :math:`\sum_i\lambda_i + \sum_{t,h,r}p_h^r[t]C_h^r` with the final prices and payoffs, is at
    least the primal objective (8), :math:`\sum_i u_i(\tilde t_i - a_i)` over the admitted jobs at
    their planned completions. The realized utility of the simulator (at least the planned one,
    :func:`feasible_run`) is reported next to it."""
    jobs = result.jobs[result.jobs["admitted"].astype(bool)]
    specs = result.workload.specs
    primal = float(sum(specs[int(j)].utility(int(c) - specs[int(j)].arrival)
                       for j, c in zip(jobs["job_id"], jobs["planned_completion"], strict=True)))  # fmt: skip
    dual = float(policy.dual_objective())
    return Claim(
        "PD-ORS weak duality: dual (10) >= primal (8)",
        dual >= primal * (1 - _REL) - 1e-12,
        {"primal": primal, "realized": float(jobs["utility"].sum()), "dual": dual,
         "dual_over_primal": dual / primal if primal > 0 else math.inf},
    )  # fmt: skip


def dual_bookkeeping(policy: PDORS, workload: Workload) -> Claim:
    r"""Algorithm 1 step 3 bookkeeping after a run: the usage :math:`\rho_h^r[t]` equals the sum of
    the committed plans' demands, never exceeds :math:`C_h^r` (5), the prices equal
    :math:`Q(\rho)` (12), and the dual objective equals :math:`D_0` plus the recorded dual
    increments (``policy.history``), whose primal increments are :math:`u_i(\tilde t_i - a_i)`.

    Parameters
    ----------
    policy : PDORS
        The policy after a run (or :func:`loaded_policy`).
    workload : Workload
        The workload it ran on (for the jobs' demands).

    Returns
    -------
    Claim
    """
    srv, cap = _machines(policy)
    row_of = {int(s): i for i, s in enumerate(srv)}
    c = workload.cluster
    usage = np.zeros_like(policy.rho)
    for j, plan in policy.plans.items():
        spec = workload.specs[j]
        wd, pdem = c.vector(spec.worker_demand), c.vector(spec.ps_demand)
        for t, place in plan.items():
            for s, k in place.workers:
                usage[t, row_of[s]] += k * wd
            for s, k in place.ps:
                usage[t, row_of[s]] += k * pdem
    problems = []
    if not np.allclose(usage, policy.rho, rtol=1e-12, atol=1e-9):
        problems.append("rho differs from the committed plans")
    if np.any(usage > cap[None] + 1e-9):
        problems.append("capacity (5) exceeded")
    expect = policy.prices.price(policy.rho, cap[None])
    if not np.allclose(policy.p, expect, rtol=1e-12, atol=0.0):
        problems.append("prices differ from Q(rho)")
    d0 = float(np.sum(policy.prices.price(np.zeros_like(cap), cap) * cap)) * policy.rho.shape[0]
    steps = sum(h["dual"] for h in policy.history)
    final = float(policy.dual_objective())
    if abs(d0 + steps - final) > 1e-9 * max(1.0, final):
        problems.append(f"D_0 + increments = {d0 + steps!r} != dual {final!r}")
    for h in policy.history:
        j = int(h["job"])
        plan = policy.plans.get(j, {})
        last = max((t for t, p in plan.items() if p.n_workers), default=None)
        spec = workload.specs[j]
        if last is None or abs(float(spec.utility(last - spec.arrival)) - h["primal"]) > 1e-9:
            problems.append(f"job {j}: primal increment is not u(completion - arrival)")
    return Claim(
        "PD-ORS Alg. 1 step 3: usage, prices (12) and dual increments consistent with the plans",
        not problems,
        {"admissions": len(policy.history), "D0": d0, "dual": final, "problems": problems[:3]},
    )


def lemma1_increments(policy: PDORS) -> Claim:
    r"""The Lemma-1 analogue of the spec's [R] derivation (section 6): each admission's primal
    increment :math:`u_i` is at least its dual increment over :math:`\alpha`. Not a published
    claim: report it (OASiS's Lemma 1 assumes :math:`w \ll C`, which whole workers break)."""
    alpha = float(policy.prices.alpha)
    ratio = [h["dual"] / h["primal"] if h["primal"] > 0 else math.inf for h in policy.history]
    bad = [int(h["job"]) for h, r in zip(policy.history, ratio, strict=True) if r > alpha * (1 + _REL)]
    return Claim(
        "PD-ORS Lemma-1 analogue [R]: primal increment >= dual increment / alpha",
        not bad,
        {"admissions": len(ratio), "violations": len(bad), "alpha": alpha,
         "max_dual_over_primal": max(ratio) if ratio else 0.0},
    )  # fmt: skip


# ========================================================================= 8. OPT / PD-ORS


def _external_factor(seen, cap: np.ndarray) -> tuple[float, int]:
    r"""Empirical approximation factor of Algorithm 4 over the recorded :math:`\theta`.

    For each recorded slot and level ``v > 0`` with a finite :math:`\theta(t,v)`: the reference is
    the smaller of the internal branch's cost (exact for its ``w = gamma s`` rule, property 2)
    and a lower bound of the external integer optimum, the LP relaxation with the right-hand
    side of (26) rounded up to :math:`\lceil D_w\rceil` (valid because :math:`\sum_h w_h` is an
    integer; the plain :math:`LP^*` would charge the integrality gap of tiny levels to the
    rounding). Returns the largest :math:`\theta/\text{reference}` (at least 1) and the number of
    levels whose LP was feasible but the rounding found no feasible sample.
    """
    from dlsched.pdors.policy import external_demand

    worst, lost = 1.0, 0
    for _, _, th, job, price, used in seen:
        lp = np.where(np.isnan(th.lp), np.inf, th.lp)
        lost += int(np.sum(np.isfinite(lp) & ~np.isfinite(th.cost)))
        v = np.flatnonzero(np.isfinite(th.cost) & (np.arange(len(th.cost)) > 0))
        if len(v) == 0:
            continue
        need = np.ceil(external_demand(v, job) - _FEAS)
        bound = np.full(len(v), np.inf)
        fits = need <= job.model.batch
        if fits.any():
            bound[fits] = SlotSolver(job, price, cap - used).lp(need[fits])[0]
        ref = np.fmin(th.internal[v], bound)
        ok = np.isfinite(ref) & (ref > 0)
        if ok.any():
            worst = max(worst, float(np.max(th.cost[v][ok] / ref[ok])))
    return worst, lost


def ratio_point(workload: Workload, *, seed: int = 0, time_limit: float = 60.0, **params) -> dict:
    r"""OPT / PD-ORS on one instance, with the reconstructed bound :math:`2\alpha\rho`.

    PD-ORS runs with the workload's price parameters while every :math:`\theta(t,\cdot)` is
    recorded; :math:`\rho` is the largest ratio of :math:`\theta(t,v)` to a lower bound of the
    per-slot optimum seen (an empirical upper estimate of Algorithm 4's approximation factor, see
    :func:`_external_factor`); :math:`\alpha` = :attr:`PdorsPrices.alpha`. OPT is the offline MILP
    (:func:`dlsched.pdors.offline.solve_offline`); its bound is an upper bound on the optimum even
    when the time limit stops it. The bound :math:`2\alpha\rho` is **our derivation (spec section 6
    [R]), not the paper's**.

    ALG is PD-ORS's primal objective (8), :math:`\sum_i u_i(\tilde t_i - a_i)` over the admitted
    jobs at their *planned* completions: those schedules are feasible for DMLRS with the planned
    ratio :math:`\gamma_i` (what the MILP models), so OPT >= ALG must hold. The simulator's realized
    utility (``alg_realized``) can be higher, because a rounded external slot with more PS than
    :math:`\sum w/\gamma_i` trains faster than planned (the model's rate uses the actual ``w/s``),
    and can then even exceed the MILP's OPT (``realized_above_opt``).

    Returns
    -------
    dict
        ``opt, opt_bound, milp_status, alg, alg_realized, realized_above_opt, ratio`` (OPT/ALG, inf
        if ALG = 0 < OPT, 1 if both are 0),
        ``ratio_best`` (max(OPT, ALG)/ALG), ``vacuous``, ``opt_ge_alg`` (bound >= ALG, and OPT >= ALG
        when optimal), ``alpha, rho, two_alpha_rho, above_bound, lost_levels, admitted, feasible``
        (:func:`feasible_run`), ``milp_seconds``.
    """
    from dlsched.pdors.offline import solve_offline

    pol = PDORS.from_workload(workload, **params)
    with _watch_thetas(pol) as seen:
        res = simulate(workload, pol, seed=seed)
    rho, lost = _external_factor(seen, _machines(pol)[1])
    adm = res.jobs[res.jobs["admitted"].astype(bool)]
    specs = workload.specs
    alg = float(sum(specs[int(j)].utility(int(c) - specs[int(j)].arrival)
                    for j, c in zip(adm["job_id"], adm["planned_completion"], strict=True)))  # fmt: skip
    realized = float(adm["utility"].sum())
    sol = solve_offline(workload, time_limit=time_limit)
    opt = float(sol.objective)
    tiny = 1e-12
    vacuous = opt <= tiny and alg <= tiny
    ratio = 1.0 if vacuous else (math.inf if alg <= tiny else opt / alg)
    best = 1.0 if vacuous else (math.inf if alg <= tiny else max(opt, alg) / alg)
    floor = alg * (1 - 1e-6) - 1e-9
    sane = sol.bound >= floor and (sol.status != "optimal" or opt >= floor)
    alpha = float(pol.prices.alpha)
    return {
        "opt": opt, "opt_bound": float(sol.bound), "milp_status": sol.status, "alg": alg,
        "alg_realized": realized, "realized_above_opt": bool(realized > opt * (1 + 1e-6) + 1e-9),
        "ratio": ratio,
        "ratio_best": best, "vacuous": vacuous, "opt_ge_alg": bool(sane), "alpha": alpha, "rho": rho,
        "two_alpha_rho": 2 * alpha * rho, "above_bound": bool(best > 2 * alpha * rho),
        "lost_levels": lost, "admitted": int(res.jobs["admitted"].sum()),
        "feasible": bool(feasible_run(res, pol).holds), "milp_seconds": float(sol.seconds),
    }  # fmt: skip


def ratio_sample(seeds, *, family: str = "synthetic", time_limit: float = 60.0, levels: int = 100,
                 **sizes) -> pd.DataFrame:
    """:func:`ratio_point` on :func:`instance` ``(seed, family, **sizes)`` for every seed: one row
    per instance with ``family`` and ``seed``."""
    frames = []
    for seed in _seed_list(seeds):
        point = {"family": family, "seed": seed, "sizes": sizes, "time_limit": time_limit, "levels": levels}
        frames.append(ratio_run(point).assign(family=family, seed=seed))
    return pd.concat(frames, ignore_index=True)


def ratio_claim(frame: pd.DataFrame) -> Claim:
    r"""The assertable part of property 8 over a :func:`ratio_sample` table: on every instance the
    offline optimum is at least PD-ORS's utility (PD-ORS's schedule is feasible for DMLRS) and the
    run is feasible. OPT >= ALG is recomputed from the columns ``opt``, ``opt_bound``,
    ``milp_status`` and ``alg`` (the MILP's upper bound must be at least ALG, and its value too when
    it is optimal). The ratios and the reconstructed bound :math:`2\alpha\rho` are reported."""
    need = {"opt", "opt_bound", "milp_status", "alg", "feasible", "vacuous", "ratio_best", "two_alpha_rho",
            "above_bound", "seed"}  # fmt: skip
    missing = sorted(need - set(frame.columns))
    if missing:
        raise ValueError(f"frame is missing columns {missing}")
    if frame.empty:
        raise ValueError("frame is empty")
    live = frame[~frame["vacuous"].astype(bool)]
    finite = live["ratio_best"][np.isfinite(live["ratio_best"])]
    alg = frame["alg"] * (1 - 1e-6) - 1e-9
    sane = (frame["opt_bound"] >= alg) & ((frame["milp_status"] != "optimal") | (frame["opt"] >= alg))
    broken = frame[~(sane & frame["feasible"].astype(bool))]
    return Claim(
        "PD-ORS property 8: OPT >= PD-ORS (feasible runs); OPT/PD-ORS reported against 2 alpha rho [R]",
        broken.empty,
        {"instances": int(len(frame)), "vacuous": int(len(frame) - len(live)),
         "alg_zero_opt_positive": int(np.isinf(live["ratio_best"]).sum()),
         "median_ratio": float(finite.median()) if len(finite) else math.nan,
         "max_finite_ratio": float(finite.max()) if len(finite) else math.nan,
         "min_two_alpha_rho": float(frame["two_alpha_rho"].min()),
         "above_2_alpha_rho": int(live["above_bound"].astype(bool).sum()),
         "realized_above_opt": int(frame.get("realized_above_opt", pd.Series(dtype=bool)).astype(bool).sum()),
         "failing_seeds": broken["seed"].tolist()[:10]},
    )  # fmt: skip


def ratio_run(params) -> pd.DataFrame:
    """Experiment function for :func:`dlsched.experiments.sweep`: :func:`ratio_point` on one
    instance.

    Parameters
    ----------
    params : Mapping
        ``family`` (default ``"synthetic"``), ``seed`` (default 0), ``sizes`` (dict for
        :func:`instance`), ``time_limit`` (default 60), ``levels`` (default 100), ``workers``
        (default ``"ratio"``) and ``headroom`` (default False), PD-ORS's integer readings
        (:class:`~dlsched.pdors.policy.PDORS`).

    Returns
    -------
    pandas.DataFrame
        One row with the keys of :func:`ratio_point` (:func:`~dlsched.experiments.sweep` adds the
        scalar parameters ``family``, ``seed``, ... as columns).
    """
    family, seed = params.get("family", "synthetic"), int(params.get("seed", 0))
    wl = instance(seed, family=family, **dict(params.get("sizes", {})))
    limit, levels = float(params.get("time_limit", 60.0)), int(params.get("levels", 100))
    readings = {"workers": params.get("workers", "ratio"), "headroom": params.get("headroom", False)}
    return pd.DataFrame([ratio_point(wl, time_limit=limit, levels=levels, **readings)])


def ratio_summary(frame: pd.DataFrame) -> pd.DataFrame:
    r"""Per family of a :func:`ratio_sample` / :func:`ratio_run` table: ``instances``,
    ``milp_optimal``, ``ratio_median``, ``ratio_max_finite`` (of ``ratio_best``),
    ``alg_zero_opt_positive`` (infinite ratios), ``rho_max``, ``two_alpha_rho_min``,
    ``above_bound`` (instances above :math:`2\alpha\rho`), ``realized_above_opt``."""
    rows = {}
    for fam, part in frame.groupby("family", sort=False):
        r = part["ratio_best"].to_numpy(float)
        fin = r[np.isfinite(r)]
        rows[fam] = {
            "instances": int(len(part)),
            "milp_optimal": int((part["milp_status"] == "optimal").sum()),
            "ratio_median": float(np.median(r)) if len(r) else math.nan,
            "ratio_max_finite": float(fin.max()) if len(fin) else math.nan,
            "alg_zero_opt_positive": int(np.isinf(r).sum()),
            "rho_max": float(part["rho"].max()),
            "two_alpha_rho_min": float(part["two_alpha_rho"].min()),
            "above_bound": int(part["above_bound"].astype(bool).sum()),
            "realized_above_opt": int(part["realized_above_opt"].astype(bool).sum()),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "family"
    return out


def ratio_ranks(frame: pd.DataFrame) -> pd.DataFrame:
    """A :func:`ratio_sample` table sorted by ``ratio_best`` within each family, with ``rank``
    (0, 1, ... per family), ``infinite`` (PD-ORS earned 0 while OPT > 0) and ``shown`` (the
    ratio, infinite ones drawn at twice the largest finite ratio or bound), for plotting."""
    out = frame.sort_values(["family", "ratio_best", "seed"], kind="stable").reset_index(drop=True)
    out["rank"] = out.groupby("family", sort=False).cumcount()
    out["infinite"] = np.isinf(out["ratio_best"].to_numpy(float))
    finite = out.loc[~out["infinite"], "ratio_best"]
    top = 2.0 * max(float(out["two_alpha_rho"].max()), float(finite.max()) if len(finite) else 1.0)
    out["shown"] = out["ratio_best"].where(~out["infinite"], top)
    return out


# ========================================================================= 9. quantisation


def quantisation_sweep(workloads: Sequence[Workload], levels: Sequence[int] = (10, 25, 50, 100, 200, 400), *,
                       seed: int = 0) -> pd.DataFrame:
    """PD-ORS on each workload for each quantisation ``levels`` (DP units per job, our choice, the
    paper enumerates single samples).

    Returns
    -------
    pandas.DataFrame
        One row per (instance, levels): ``instance, levels, total_utility, total_payoff, admitted,
        dual, seconds`` (``seconds`` is wall time, machine-dependent).
    """
    rows = []
    for i, wl in enumerate(workloads):
        for lv in levels:
            pol = PDORS.from_workload(wl, levels=int(lv))
            start = time.perf_counter()
            res = simulate(wl, pol, seed=seed)
            took = time.perf_counter() - start
            adm = res.jobs["admitted"].astype(bool)
            rows.append({"instance": i, "levels": int(lv),
                         "total_utility": float(res.jobs.loc[adm, "utility"].sum()),
                         "total_payoff": float(sum(pol.payoffs.values())), "admitted": int(adm.sum()),
                         "dual": float(pol.dual_objective()), "seconds": took})  # fmt: skip
    return pd.DataFrame(rows)


def quantisation_run(params) -> pd.DataFrame:
    """Experiment function for :func:`dlsched.experiments.sweep`: :func:`quantisation_sweep` on
    one instance for one ``levels``.

    Parameters
    ----------
    params : Mapping
        ``family``, ``seed``, ``sizes`` (as :func:`ratio_run`) and ``levels`` (int).

    Returns
    -------
    pandas.DataFrame
        One row with the columns of :func:`quantisation_sweep` except ``instance`` and ``levels``
        (:func:`~dlsched.experiments.sweep` adds ``family``, ``seed``, ``levels`` as columns).
    """
    family, seed = params.get("family", "synthetic"), int(params.get("seed", 0))
    wl = instance(seed, family=family, **dict(params.get("sizes", {})))
    out = quantisation_sweep([wl], levels=(int(params["levels"]),), seed=seed)
    return out.drop(columns=["instance", "levels"])


def quantisation_claim(frame: pd.DataFrame, *, default: int = 100, tolerance: float = 0.05) -> Claim:
    """The total utility (summed over instances) with ``levels=default`` is within ``tolerance``
    (relative) of the finest ``levels`` of a :func:`quantisation_sweep` table."""
    totals = frame.groupby("levels")["total_utility"].sum()
    if default not in totals.index:
        raise ValueError(f"levels={default} is not in the sweep (levels {list(totals.index)})")
    finest = int(totals.index.max())
    ref = float(totals.loc[finest])
    gap = abs(float(totals.loc[default]) - ref) / ref if ref > 0 else 0.0
    return Claim(
        f"PD-ORS quantisation: levels={default} within {tolerance:.0%} of levels={finest}",
        gap <= tolerance,
        {"default_utility": float(totals.loc[default]), "finest_utility": ref, "relative_gap": gap},
    )


def quantisation_relative(frame: pd.DataFrame) -> pd.DataFrame:
    """Totals of a :func:`quantisation_run` sweep per ``family`` and ``levels`` (summed over
    instances), and ``relative_utility`` / ``relative_payoff``: the totals over those of the
    finest ``levels`` of the family."""
    keys = ["family", "levels"] if "family" in frame.columns else ["levels"]
    totals = frame.groupby(keys)[["total_utility", "total_payoff", "admitted"]].sum().reset_index()
    groups = totals.groupby(keys[:-1]) if len(keys) > 1 else None
    for col in ("total_utility", "total_payoff"):
        finest = groups[col].transform("last") if groups is not None else totals[col].iloc[-1]
        totals[col.replace("total", "relative")] = totals[col] / finest
    return totals


# ============================================================================ samples


_SUMMED = ("cases", "compositions", "levels", "samples", "feasible_scaled", "feasible_unscaled")


def fold(frame: pd.DataFrame, *, add: Sequence[str] = _SUMMED) -> dict[str, Claim]:
    """:func:`dlsched.core.claims.fold` with this module's counted columns: one :class:`Claim`
    per claim name of a sample table, holding iff every row holds."""
    return claims.fold(frame, add=add)


def price_sample(seeds, *, family: str = "synthetic", **sizes) -> pd.DataFrame:
    """:func:`price_function` on each seed's instance (one row each)."""
    rows = []
    for seed in _seed_list(seeds):
        claim = price_function(instance(seed, family=family, **sizes))
        rows.append(_as_row(claim, family=family, seed=seed))
    return pd.DataFrame(rows)


def probe_sample(seeds, *, family: str = "synthetic", levels: int = 100, dp_levels: int = 6,
                 probes: int | None = None, **sizes) -> pd.DataFrame:
    """Properties 2 and 3 on loaded states: for each seed, Algorithm 1 runs over the instance
    (``levels`` for property 2, ``dp_levels`` for property 3, whose brute force is exponential),
    then every job (the first ``probes`` ones if given) is probed against the final state."""
    rows = []
    for seed in _seed_list(seeds):
        wl = instance(seed, family=family, **sizes)
        fine = loaded_policy(wl, seed=seed, levels=levels)
        coarse = loaded_policy(wl, seed=seed, levels=dp_levels)
        for spec in wl.jobs[:probes]:
            keys = {"family": family, "seed": seed, "job": spec.job_id}
            rows.append(_as_row(internal_branch_optimal(fine, spec), **keys))
            rows.append(_as_row(dp_optimal(coarse, spec), **keys))
    return pd.DataFrame(rows)


def slot_sample(seeds, *, n_machines: int = 3, samples: int = 200, draws: int = 4000, delta: float = 0.1,
                variant: str = "31R", rng_seed: int = 0) -> pd.DataFrame:
    """Properties 4-6 on :func:`slot_instance` for every seed: one row per seed and property
    (property 6 pools nothing: each seed's instance is one row)."""
    rng = np.random.default_rng(rng_seed)
    rows = []
    for seed in _seed_list(seeds):
        solver, demands = slot_instance(seed, n_machines=n_machines)
        bounds = external_bounds(solver, demands, rng, samples=samples, delta=delta, variant=variant)
        rows.append(_as_row(bounds, seed=seed))
        lp, wbar, sbar, _, _ = solver.lp(demands)
        ok = np.isfinite(lp)
        values = np.concatenate([wbar[ok].ravel(), sbar[ok].ravel()]) if ok.any() else np.array([0.5])
        scale = float(g_delta(float(np.max(demands)), delta, solver.job.model.ratio, variant))
        rows.append(_as_row(rounding_unbiased(values * scale, rng, draws=draws), seed=seed))
        cover = g_delta_coverage([(solver, demands)], rng, delta=delta, variant=variant, draws=draws)
        rows.append(_as_row(cover, seed=seed))
    return pd.DataFrame(rows)


def run_sample(seeds, *, family: str = "synthetic", levels: int = 100, **sizes) -> pd.DataFrame:
    """Property 7 and the primal-dual bookkeeping on whole runs: one row per seed and claim."""
    rows = []
    for seed in _seed_list(seeds):
        wl = instance(seed, family=family, **sizes)
        pol = PDORS.from_workload(wl, levels=levels)
        res = simulate(wl, pol, seed=seed)
        for claim in (feasible_run(res, pol), weak_duality(res, pol), dual_bookkeeping(pol, wl),
                      lemma1_increments(pol)):  # fmt: skip
            rows.append(_as_row(claim, family=family, seed=seed))
    return pd.DataFrame(rows)
