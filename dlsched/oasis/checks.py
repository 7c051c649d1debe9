r"""OASiS's theorems and claims as check functions (spec ``oasis.md`` section 10).

Every function returns a :class:`~dlsched.core.claims.Claim` (or a table of measurements) and is
called both by the tests and by ``notebooks/11_oasis_proofs``:

==============================  ==================================================================
check                           claim
==============================  ==================================================================
:func:`price_endpoints`         (22): :math:`P(0)=L_1`, :math:`P(c)=U_1^r`, same for Q; increasing
:func:`lemma3_derivative`       Lemma 3: :math:`dP/dg = P\ln(U_1^r/L_1)/c` (finite differences)
:func:`zero_usage_admission`    App. A: at zero usage every job with a feasible schedule is admitted
:func:`exhaustion_rejection`    App. A: a full resource is priced :math:`U \ge f_i/w_i^r`
:func:`cost_t_optimal`          Theorem 1: COST_t optimal for (32) against brute force
:func:`dp_cost_optimal`         Theorem 1: DP_COST optimal against all workload compositions
:func:`alg2_argmax`             Theorem 1: Algorithm 2 returns the argmax of (27)
:func:`feasible_run`            Theorem 2: every decision feasible; admitted jobs meet their plans
:func:`weak_duality`            dual objective (19) >= primal objective (14) after a run
:func:`lemma1_increments`       Lemma 1 / 2: :math:`P_i - P_{i-1} \ge (D_i - D_{i-1})/\alpha`
:func:`competitive_ratio`       Theorem 4: OPT / ALG <= 2 alpha (OPT by MILP)
:func:`decision_times`          Theorem 3: decision time against T and :math:`N_iE_i`
==============================  ==================================================================
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pandas as pd

from dlsched.core.claims import Claim, claims_by_name
from dlsched.core.claims import check_seeds as _check_seeds
from dlsched.core.claims import sample_row as _row
from dlsched.core.jobs import JobSpec, OasisModel, Workload
from dlsched.core.schedule import check_timeline
from dlsched.core.simulator import SimulationResult, simulate
from dlsched.oasis.policy import (
    OASiS,
    PriceParameters,
    cost_table,
    min_duration,
    price_parameters,
    unit_caps,
    unit_prices,
)

_TOL = 1e-9


# ------------------------------------------------------------------------------- prices


def price_endpoints(params: PriceParameters, capacity: np.ndarray) -> Claim:
    """(22): ``P(0) = L1``, ``P(c) = U1^r``, ``Q(0) = L2``, ``Q(c) = U2^r``, strictly increasing."""
    cap = np.asarray(capacity, dtype=float)
    P, Q = params.worker_price, params.ps_price
    errs = {
        "P(0)-L1": float(np.max(np.abs(P(np.zeros_like(cap), cap) - params.l1))),
        "P(c)-U1": float(np.max(np.abs(P(cap, cap) - params.u1) / params.u1)),
        "Q(0)-L2": float(np.max(np.abs(Q(np.zeros_like(cap), cap) - params.l2))),
        "Q(c)-U2": float(np.max(np.abs(Q(cap, cap) - params.u2) / params.u2)),
    }
    grid = np.linspace(0, 1, 33).reshape(-1, *[1] * cap.ndim) * cap[None]
    pv = P(grid, cap)
    steps = np.diff(pv, axis=0)
    increasing = bool(np.all(steps >= -_TOL * pv[:-1]))
    moving = (cap > 0) & (np.asarray(params.u1) > params.l1)
    strict = bool(np.all(steps[:, moving] > 0))
    ok = all(v < 1e-9 for v in errs.values()) and increasing and strict
    return Claim(
        "OASiS (22): price endpoints L at zero usage, U at full usage, increasing",
        ok,
        {**errs, "increasing": increasing},
    )


def lemma3_derivative(
    params: PriceParameters, capacity: np.ndarray, *, n: int = 50, h: float = 1e-6
) -> Claim:
    r"""Lemma 3: :math:`dP/dg = P\,\ln(U_1^r/L_1)/c_h^r`, checked by central finite differences of
    :math:`\ln P` (equivalent for :math:`P > 0`, and exact where ``P`` itself underflows)."""
    cap = np.asarray(capacity, dtype=float)
    P = params.worker_price
    mask = cap > 0
    worst = 0.0
    for frac in np.linspace(0.05, 0.95, n):
        g = frac * cap
        step = h * np.maximum(cap, 1.0)
        numeric = (P.log_price(g + step, cap) - P.log_price(g - step, cap)) / (2 * step)
        exact = np.broadcast_to(P.log_ratio, cap.shape) / np.where(mask, cap, 1.0)
        rel = np.abs(numeric - exact)[mask] / np.maximum(np.abs(exact[mask]), 1e-300)
        worst = max(worst, float(np.max(rel)) if rel.size else 0.0)
    return Claim("OASiS Lemma 3: dP/dg = P ln(U/L) / c", worst < 1e-5, {"max_rel_error": worst})


# ------------------------------------------------------------------------------- Appendix A


def zero_usage_admission(workload: Workload) -> Claim:
    """App. A: with nothing allocated, every job that has a feasible schedule gets payoff > 0.

    Also reports the smallest ratio ``payoff / f_i(t_hat - a_i)`` against the bound
    ``1 - 1/(4 eta1) - 1/(4 eta2)`` that holds when a schedule uses exactly the minimum
    worker-time (the per-slot ceilings of COST_t can use a little more).
    """
    params = price_parameters(workload)
    bound = 1 - 1 / (4 * params.eta1) - 1 / (4 * params.eta2)
    pol = OASiS(params).prepare(workload.cluster, workload.horizon)
    feasible = admitted = 0
    worst_ratio = math.inf
    failures = []
    for spec in workload.jobs:
        best = pol.search(spec, prune=False)
        has = best.costs_by_completion is not None and np.isfinite(best.costs_by_completion).any()
        if not has:
            continue
        feasible += 1
        if best.payoff > 0:
            admitted += 1
            f = float(spec.utility(best.completion - spec.arrival))
            worst_ratio = min(worst_ratio, best.payoff / f)
        else:
            failures.append(spec.job_id)
    return Claim(
        "OASiS App. A: zero usage admits every job with a feasible schedule",
        not failures,
        {
            "jobs_with_feasible_schedule": feasible,
            "admitted": admitted,
            "min_payoff_over_utility": worst_ratio,
            "bound_if_exact_worker_time": bound,
            "not_admitted": failures[:10],
        },
    )


def exhaustion_rejection(workload: Workload) -> Claim:
    r"""App. A: a fully used resource is priced :math:`U_1^r \ge f_i(\cdot)/w_i^r`, so one worker
    there already costs at least the job's best utility (and likewise for PS)."""
    params = price_parameters(workload)
    c = workload.cluster
    worst = math.inf
    for spec in workload.jobs:
        best_f = _max_utility(spec)
        for vec, u in ((c.vector(spec.worker_demand), params.u1), (c.vector(spec.ps_demand), params.u2)):
            pos = vec > 0
            if pos.any():
                worst = min(worst, float(np.min(u[pos] * vec[pos])) - best_f)
    return Claim(
        "OASiS App. A: full usage prices out every job (U w >= f)", worst >= -1e-9, {"min_margin": worst}
    )


def _max_utility(spec: JobSpec) -> float:
    return float(spec.utility(min_duration(spec.model) - 1))


# ------------------------------------------------------------------------------- Theorem 1


def brute_force_cost_t(
    model: OasisModel, unit_w: np.ndarray, unit_p: np.ndarray, cap_w: np.ndarray, cap_p: np.ndarray, d: int
) -> float:
    """Optimum of the per-slot problem (32) by enumerating every integer (y, z) within the caps:
    ``sum y >= d M_i (tau_i + 2e_i/b_i)``, ``sum y <= N_i`` (3), ``sum y b <= sum z B`` (6),
    ``sum z <= sum y`` (7)."""
    need = d * model.minibatches * model.minibatch_time
    ys = np.array(list(itertools.product(*[range(int(c) + 1) for c in cap_w])), dtype=float).reshape(
        -1, len(cap_w)
    )
    zs = np.array(list(itertools.product(*[range(int(c) + 1) for c in cap_p])), dtype=float).reshape(
        -1, len(cap_p)
    )
    ysum, zsum = ys.sum(1), zs.sum(1)
    ycost, zcost = ys @ unit_w, zs @ unit_p
    best = math.inf
    for n in np.unique(ysum):
        if n < need - 1e-9 or n > model.chunks:
            continue
        cy = ycost[ysum == n].min()
        ok = (zsum * model.ps_bw >= n * model.worker_bw - 1e-9) & (zsum <= n)
        if ok.any():
            best = min(best, float(cy + zcost[ok].min()))
    return 0.0 if d == 0 else best


def _window(pol: OASiS, spec: JobSpec):
    c = pol.cluster
    a, T = spec.arrival, pol._T
    wd, pd_ = c.vector(spec.worker_demand), c.vector(spec.ps_demand)
    st = pol.state()
    wcap = unit_caps(st["capacity_w"], st["used_w"][a:T], wd)
    pcap = unit_caps(st["capacity_p"], st["used_p"][a:T], pd_)
    uw = unit_prices(st["price_w"][a:T], wd)
    up = unit_prices(st["price_p"][a:T], pd_)
    table = cost_table(spec.model, wd, pd_, st["price_w"][a:T], st["price_p"][a:T], wcap, pcap)
    return table, uw, up, wcap, pcap


def cost_t_optimal(pol: OASiS, spec: JobSpec) -> Claim:
    """Theorem 1 (COST_t part): the greedy cost of every slot and every ``d`` equals the brute-force
    optimum of (32) over all integer (y, z). Use small clusters (the enumeration is exponential)."""
    table, uw, up, wcap, pcap = _window(pol, spec)
    worst, checked = 0.0, 0
    for k in range(table.cost.shape[0]):
        for d in range(table.d_max + 1):
            bf = brute_force_cost_t(spec.model, uw[k], up[k], wcap[k], pcap[k], d)
            got = table.cost[k, d]
            checked += 1
            if math.isinf(bf) or math.isinf(got):
                if math.isinf(bf) != math.isinf(got):
                    worst = math.inf
                continue
            worst = max(worst, abs(bf - got) / max(1.0, abs(bf)))
    return Claim(
        "OASiS Theorem 1: COST_t optimal for (32)", worst < 1e-9, {"cases": checked, "max_rel_gap": worst}
    )


def _compositions(total: int, parts: int, cap: int):
    if parts == 1:
        if total <= cap:
            yield (total,)
        return
    for first in range(min(total, cap) + 1):
        for rest in _compositions(total - first, parts - 1, cap):
            yield (first, *rest)


def dp_cost_optimal(pol: OASiS, spec: JobSpec, *, max_cases: int = 200_000) -> Claim:
    """Theorem 1 (DP part): for every completion slot, DP_COST equals the minimum over all
    compositions of ``E_i N_i`` chunk-passes over the slots of brute-force per-slot optima."""
    table, uw, up, wcap, pcap = _window(pol, spec)
    D = spec.model.epochs * spec.model.chunks
    S = table.cost.shape[0]
    bf_t = np.array(
        [
            [
                brute_force_cost_t(spec.model, uw[k], up[k], wcap[k], pcap[k], d)
                for d in range(table.d_max + 1)
            ]
            for k in range(S)
        ]
    ).reshape(S, table.d_max + 1)
    best = pol.search(spec, prune=False)
    fast = best.costs_by_completion
    worst, cases = 0.0, 0
    for k in range(S):
        bf = math.inf
        for comp in _compositions(D, k + 1, table.d_max):
            cases += 1
            if cases > max_cases:
                raise ValueError(f"dp_cost_optimal: more than {max_cases} compositions; use a smaller job")
            bf = min(bf, sum(bf_t[i, d] for i, d in enumerate(comp)))
        got = math.inf if fast is None else fast[k]
        if math.isinf(bf) or math.isinf(got):
            worst = worst if math.isinf(bf) == math.isinf(got) else math.inf
        else:
            worst = max(worst, abs(bf - got) / max(1.0, abs(bf)))
    return Claim(
        "OASiS Theorem 1: DP_COST optimal over all workload compositions",
        worst < 1e-9,
        {"completion_slots": S, "compositions": cases, "max_rel_gap": worst},
    )


def alg2_argmax(pol: OASiS, spec: JobSpec) -> Claim:
    """Theorem 1: Algorithm 2's payoff is the maximum of (27) over completion slots (ties: earliest),
    computed independently from the brute-force costs, and never negative (0 = reject)."""
    table, uw, up, wcap, pcap = _window(pol, spec)
    best = pol.search(spec, prune=False)
    fast = best.costs_by_completion
    S = table.cost.shape[0]
    payoffs = [float(spec.utility(k)) - (math.inf if fast is None else fast[k]) for k in range(S)]
    mu = max([0.0, *payoffs])
    k_star = next((k for k, p in enumerate(payoffs) if p == mu and p > 0), None)
    expected_completion = None if k_star is None else spec.arrival + k_star
    ok = abs(mu - best.payoff) <= 1e-9 * max(1.0, mu) and expected_completion == best.completion
    return Claim(
        "OASiS Theorem 1: Algorithm 2 = argmax of (27)",
        ok,
        {
            "payoff": best.payoff,
            "argmax_payoff": mu,
            "completion": best.completion,
            "argmax_completion": expected_completion,
        },
    )


# ------------------------------------------------------------------------------- Theorem 2


def feasible_run(result: SimulationResult, policy: OASiS) -> Claim:
    """Theorem 2: the run is feasible for (1)-(13): the recorded schedule passes the independent
    checker slot by slot, and every admitted job finishes by its planned completion slot (so
    its work (2) was covered); rejected jobs never ran."""
    wl = result.workload
    check_timeline(wl.cluster, wl.specs, result.allocations)
    jobs = result.jobs
    adm = jobs[jobs["admitted"]]
    late = adm[~(adm["completion_slot"] <= adm["planned_completion"])]
    ran = set(result.allocations["job"].unique())
    rejected_ran = sorted(set(jobs.loc[jobs["status"] == "rejected", "job_id"]) & ran)
    ok = late.empty and not rejected_ran
    return Claim(
        "OASiS Theorem 2: feasible schedule, admitted jobs meet their plans",
        ok,
        {
            "admitted": int(len(adm)),
            "late": late["job_id"].tolist()[:10],
            "rejected_but_ran": rejected_ran[:10],
        },
    )


# ------------------------------------------------------------------------------- duality, Theorem 4


def weak_duality(policy: OASiS, result: SimulationResult) -> Claim:
    """After a run, the dual objective (19) with the final prices and payoffs is at least the primal
    objective (14): the total utility of the admitted jobs at their planned completions."""
    specs = result.workload.specs
    jobs = result.jobs.set_index("job_id")
    primal = float(
        sum(specs[j].utility(jobs.loc[j, "planned_completion"] - specs[j].arrival) for j in policy.payoffs)
    )
    dual = policy.dual_objective()
    return Claim(
        "OASiS weak duality: dual (19) >= primal (14)",
        dual >= primal - 1e-9,
        {"primal": primal, "dual": dual},
    )


def lemma1_increments(policy: OASiS) -> Claim:
    r"""Lemma 1's premise, per admitted job: :math:`P_i - P_{i-1} \ge (D_i - D_{i-1})/\alpha`.

    The proof derives it from the differential allocation-cost relationship, which assumes
    :math:`w_i^r \ll c_h^r`; with discrete workers it can fail by the factor
    :math:`(e^{\alpha\Delta g/c}-1)/(\alpha\Delta g/c)`. The claim reports how often it holds.
    """
    alpha = policy._params.alpha
    rows = policy.history
    bad = [r["job"] for r in rows if r["primal"] < r["dual"] / alpha - 1e-9]
    ratios = [r["dual"] / r["primal"] for r in rows if r["primal"] > 0]
    return Claim(
        "OASiS Lemma 1: primal increment >= dual increment / alpha",
        not bad,
        {
            "admissions": len(rows),
            "violations": len(bad),
            "alpha": alpha,
            "max_dual_over_primal": max(ratios) if ratios else math.nan,
        },
    )


def competitive_ratio(workload: Workload, *, time_limit: float = 60.0, seed: int = 0) -> Claim:
    r"""Theorem 4 on one instance: OPT / ALG <= 2 alpha, with OPT the MILP optimum of (1)-(13)
    (:func:`dlsched.oasis.offline.solve_offline`) and ALG OASiS's realized total utility, both with
    the instance's own ``U``, ``L`` and ``eta``. ``details`` has the ratio, 2 alpha, the MILP gap."""
    from dlsched.oasis.offline import solve_offline

    pol = OASiS.from_workload(workload)
    res = simulate(workload, pol, seed=seed)
    alg = float(res.jobs["utility"].sum())
    opt = solve_offline(workload, time_limit=time_limit)
    alpha = pol._params.alpha
    if opt.objective <= 1e-12 and alg <= 1e-12:
        ratio = 1.0  # vacuous: no job can finish, OPT = ALG = 0
    else:
        ratio = math.inf if alg <= 0 else opt.objective / alg
    return Claim(
        "OASiS Theorem 4: OPT/ALG <= 2 alpha",
        ratio <= 2 * alpha + 1e-9,
        {
            "opt": opt.objective,
            "alg": alg,
            "ratio": ratio,
            "two_alpha": 2 * alpha,
            "milp_status": opt.status,
            "milp_gap": opt.mip_gap,
        },
    )


# ------------------------------------------------------------------------------- Theorem 3


def decision_times(
    rng: np.random.Generator,
    *,
    horizons=(25, 50, 100, 200),
    workloads=(100, 400, 1600, 6400),
    n_servers: int = 40,
    repeats: int = 3,
) -> pd.DataFrame:
    r"""Measured time of Algorithm 2 for one job at zero usage against ``T`` and :math:`N_iE_i`
    (Theorem 3: :math:`O(TN_iE_i(H+K) + TN_i^2E_i^2)`). Returns a table ``T, NE, seconds``
    (median of ``repeats``)."""
    from dlsched.core.cluster import Cluster
    from dlsched.core.jobs import Sigmoid

    cluster = Cluster.two_pools(
        n_servers, n_servers, {"gpu": 8, "cpu": 64, "mem": 256}, {"cpu": 64, "mem": 256}
    )
    rows = []
    for T in horizons:
        for ne in workloads:
            n = 50
            e = max(1, ne // n)
            model = OasisModel(epochs=e, chunks=n, minibatches=10, tau=0.002, comm=0.001)
            spec = JobSpec(
                0,
                0,
                model,
                {"gpu": 1, "cpu": 4, "mem": 8},
                {"cpu": 4, "mem": 8},
                utility=Sigmoid(float(rng.uniform(50, 100)), 0.1, float(T) / 2),
            )
            wl = Workload(cluster, (spec,), horizon=T)
            pol = OASiS(price_parameters(wl)).prepare(cluster, T)
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                pol.search(spec)
                times.append(time.perf_counter() - t0)
            rows.append({"T": T, "NE": n * e, "seconds": float(np.median(times))})
    return pd.DataFrame(rows)


__all__ = [
    "alg2_argmax",
    "brute_force_cost_t",
    "competitive_ratio",
    "cost_t_optimal",
    "decision_times",
    "dp_cost_optimal",
    "exhaustion_rejection",
    "feasible_run",
    "lemma1_increments",
    "lemma3_derivative",
    "price_endpoints",
    "weak_duality",
    "zero_usage_admission",
]


# =============================================================================================
# Samples over seeds (notebook ``11_oasis_proofs``). Added after the checks above, which are
# unchanged: these functions run them on many random instances and return tidy tables.
# =============================================================================================

FAMILIES: tuple[str, ...] = ("synthetic", "oasis")
"""Instance families of :func:`instance`: ``"synthetic"`` (small, coarse jobs,
:func:`dlsched.workloads.synthetic` with ``model="oasis"``) and ``"oasis"`` (the jobs of Sec. V-A,
:func:`dlsched.oasis.model.oasis_workload`, here on tiny clusters)."""

_REL = 1e-9


def instance(seed: int, *, family: str = "synthetic", **sizes) -> Workload:
    """A random OASiS instance with a horizon.

    Parameters
    ----------
    seed : int
        Seed of the workload generator (``registry.make_workload(..., seed=seed)``).
    family : {"synthetic", "oasis"}
        ``"synthetic"``: :func:`dlsched.workloads.synthetic` with ``model="oasis"`` (sizes
        ``n_jobs``, ``n_servers``, ``horizon``, ``arrival_span``; jobs of 1-3 epochs x 2-6 chunks on
        4-GPU servers). ``"oasis"``: :func:`dlsched.oasis.model.oasis_workload` (sizes ``n_jobs``,
        ``T``, ``H``, ``K``, ...; the job ranges of Sec. V-A).
    **sizes
        Passed to the workload function.

    Returns
    -------
    Workload

    Raises
    ------
    ValueError
        If ``family`` is unknown, a size is invalid, or the workload has no horizon
        (``"synthetic"`` needs ``horizon=``).
    """
    from dlsched import registry

    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if family == "synthetic":
        wl = registry.make_workload("synthetic", seed=int(seed), model="oasis", **sizes)
    else:
        wl = registry.make_workload("oasis", seed=int(seed), **sizes)
    if wl.horizon is None:
        raise ValueError(f"instance: family {family!r} needs a horizon (pass horizon=...), got None")
    return wl


def loaded_policy(workload: Workload, probe: JobSpec, *, method: str = "auto") -> OASiS:
    """OASiS with the price parameters (23)-(26) of the whole workload after Algorithm 1 handled
    every job except ``probe``: a realistic price state in which to check Algorithm 2 for ``probe``.

    Parameters
    ----------
    workload : Workload
        Instance with a horizon.
    probe : JobSpec
        The job left out (one of ``workload.jobs``).
    method : {"auto", "exact", "frontier"}
        DP method of the returned policy.

    Returns
    -------
    OASiS
        Its prices and usage are those after the other jobs; ``search(probe)`` evaluates Alg. 2.

    Raises
    ------
    ValueError
        If ``probe`` is not a job of ``workload`` or the workload has no horizon.
    """
    if all(s.job_id != probe.job_id for s in workload.jobs):
        raise ValueError(f"probe job {probe.job_id} is not in the workload")
    if workload.horizon is None:
        raise ValueError("loaded_policy needs a workload with a horizon, got horizon=None")
    rest = tuple(s for s in workload.jobs if s.job_id != probe.job_id)
    others = Workload(workload.cluster, rest, horizon=workload.horizon)
    pol = OASiS(price_parameters(workload), method=method)
    if others.jobs:
        simulate(others, pol, seed=0)
    if getattr(pol, "_T", None) is None:  # no other job was ever handled: empty price tables
        pol.prepare(workload.cluster, workload.horizon)
    return pol


def _search(pol: OASiS, spec: JobSpec, method: str, prune: bool):
    from dlsched.oasis.policy import best_schedule

    st = pol.state()
    c = pol.cluster
    return best_schedule(
        spec, pol._T, st["capacity_w"], st["capacity_p"], st["used_w"], st["used_p"], st["price_w"],
        st["price_p"], pol._wsrv, pol._psrv, c.vector(spec.worker_demand), c.vector(spec.ps_demand),
        method, prune,
    )  # fmt: skip


def _same_cost(a: float, b: float) -> bool:
    return (math.isinf(a) and math.isinf(b)) or a == b


def fast_path_matches_literal(pol: OASiS, spec: JobSpec) -> Claim:
    """The vectorized exact DP equals the literal recursive DP_COST (Alg. 2 lines 10-44,
    :func:`dlsched.oasis.policy.dp_cost_literal`) for every completion slot: the same cost
    (bit for bit, or both infeasible) and the same schedule (chunk-passes per slot, tie-breaks
    included); and Algorithm 2's chosen schedule is the literal one of its completion slot.

    Parameters
    ----------
    pol : OASiS
        A prepared policy (e.g. from :func:`loaded_policy`); its prices are not changed.
    spec : JobSpec
        The job to schedule.

    Returns
    -------
    Claim
        ``details``: completion slots, how many are feasible, cost and schedule mismatches.
    """
    from dlsched.oasis.policy import _backtrack, _dp, _Tracker, dp_cost_literal

    st = pol.state()
    c = pol.cluster
    wd, pdem = c.vector(spec.worker_demand), c.vector(spec.ps_demand)
    a, T = spec.arrival, pol._T
    D = spec.model.epochs * spec.model.chunks
    S = max(0, T - a)
    best = _search(pol, spec, "exact", False)
    fast = best.costs_by_completion
    table = _window(pol, spec)[0] if S > 0 else None
    choices = los = None
    if table is not None and table.d_max > 0 and table.d_max * S >= D:
        util = np.asarray(spec.utility(np.arange(S)), dtype=float)
        choices, los = _dp(table.cost, D, table.d_max, _Tracker(util, False))
    cost_bad, sched_bad, feasible = [], [], 0
    for k in range(S):
        lit_cost, lit_sched = dp_cost_literal(
            spec, a + k, D, st["capacity_w"], st["capacity_p"], st["used_w"], st["used_p"],
            st["price_w"], st["price_p"], wd, pdem,
        )  # fmt: skip
        got = math.inf if fast is None else float(fast[k])
        if not _same_cost(lit_cost, got):
            cost_bad.append(a + k)
        if math.isfinite(lit_cost) and choices is not None and choices[k] is not None:
            feasible += 1
            mine = {a + kk: d for kk, d in _backtrack(choices, los, k, D).items()}
            if mine != lit_sched:
                sched_bad.append(a + k)
            if best.completion == a + k and best.chunks != lit_sched:
                sched_bad.append(a + k)
        elif math.isfinite(lit_cost):
            sched_bad.append(a + k)
    return Claim(
        "OASiS Alg. 2: fast path = literal recursive DP_COST (costs and schedules)",
        not cost_bad and not sched_bad,
        {
            "completion_slots": S,
            "feasible_slots": feasible,
            "cost_mismatches": cost_bad[:10],
            "schedule_mismatches": sorted(set(sched_bad))[:10],
        },
    )


def frontier_matches_exact(pol: OASiS, spec: JobSpec) -> Claim:
    """The frontier DP (``method="frontier"``) gives the exact DP's cost for every completion slot
    (relative 1e-12), the same payoff and completion slot, with and without pruning; pruning never
    changes the exact path's schedule; and the frontier's own schedule costs the optimum.

    Parameters
    ----------
    pol : OASiS
        A prepared policy; its prices are not changed.
    spec : JobSpec
        The job to schedule.

    Returns
    -------
    Claim
        ``details``: the largest relative cost gap and which comparisons failed.
    """
    exact, exact_p = _search(pol, spec, "exact", False), _search(pol, spec, "exact", True)
    front, front_p = _search(pol, spec, "frontier", False), _search(pol, spec, "frontier", True)
    bad = []
    gap = 0.0
    ce, cf = exact.costs_by_completion, front.costs_by_completion
    if (ce is None) != (cf is None):
        bad.append("costs_by_completion")
    elif ce is not None:
        fin_e, fin_f = np.isfinite(ce), np.isfinite(cf)
        if not np.array_equal(fin_e, fin_f):
            bad.append("feasible slots")
        both = fin_e & fin_f
        if both.any():
            gap = float(np.max(np.abs(ce[both] - cf[both]) / np.maximum(1.0, np.abs(ce[both]))))
            if gap > 1e-12:
                bad.append("costs")
    for label, other in (("exact pruned", exact_p), ("frontier", front), ("frontier pruned", front_p)):
        if abs(other.payoff - exact.payoff) > 1e-12 * max(1.0, abs(exact.payoff)):
            bad.append(f"{label} payoff")
        if other.completion != exact.completion:
            bad.append(f"{label} completion")
    if exact_p.chunks != exact.chunks:
        bad.append("exact pruned schedule")
    if front.completion is not None and exact.completion is not None:
        table = _window(pol, spec)[0]
        W = _workers_for(front.chunks, spec.model)
        realized = float(sum(table.by_workers[t - spec.arrival, w] for t, w in W.items()))
        if abs(realized - exact.cost) > 1e-9 * max(1.0, abs(exact.cost)):
            bad.append("frontier schedule cost")
        if sum(front.chunks.values()) != spec.model.epochs * spec.model.chunks:
            bad.append("frontier schedule workload")
    return Claim(
        "OASiS Alg. 2: frontier DP = exact DP (costs, payoff, completion; pruning exact)",
        not bad,
        {"max_rel_cost_gap": gap, "payoff": exact.payoff, "failed": bad[:10]},
    )


def _workers_for(chunks: dict[int, int], model: OasisModel) -> dict[int, int]:
    from dlsched.oasis.policy import workers_needed

    return {t: int(workers_needed(d, model)) for t, d in chunks.items()}


_T1_CHECKS = {
    "cost_t": cost_t_optimal,
    "dp_cost": dp_cost_optimal,
    "alg2": alg2_argmax,
    "literal": fast_path_matches_literal,
    "frontier": frontier_matches_exact,
}


def theorem1_sample(
    seeds, *, family: str = "synthetic", which=("cost_t", "dp_cost", "alg2", "literal", "frontier"), **sizes
) -> pd.DataFrame:
    """Theorem 1 and the fast-path equivalences on every job of every instance.

    For each seed, every job in turn is the probe: the prices are loaded with all other jobs
    (:func:`loaded_policy`) and the checks in ``which`` run for the probe: ``"cost_t"``
    (:func:`cost_t_optimal`), ``"dp_cost"`` (:func:`dp_cost_optimal`), ``"alg2"``
    (:func:`alg2_argmax`), ``"literal"`` (:func:`fast_path_matches_literal`), ``"frontier"``
    (:func:`frontier_matches_exact`). The brute-force checks are exponential: keep the cluster
    tiny (2-3 servers, T = 4).

    Parameters
    ----------
    seeds : iterable of int
    family : {"synthetic", "oasis"}
        Instance family (:func:`instance`).
    which : sequence of str
        Checks to run (keys above).
    **sizes
        Instance sizes (:func:`instance`).

    Returns
    -------
    pandas.DataFrame
        One row per (seed, probe job, check): ``seed, job, arrival, check, claim, holds, summary``
        and the numeric details of the claim (e.g. ``cases``, ``max_rel_gap``, ``payoff``).

    Raises
    ------
    ValueError
        For empty or invalid ``seeds``, an unknown check or family.
    """
    seeds = _check_seeds(seeds)
    unknown = [w for w in which if w not in _T1_CHECKS]
    if unknown or not which:
        raise ValueError(f"which must be a non-empty subset of {tuple(_T1_CHECKS)}, got {which!r}")
    rows = []
    for seed in seeds:
        wl = instance(seed, family=family, **sizes)
        for probe in wl.jobs:
            pol = loaded_policy(wl, probe)
            for key in which:
                claim = _T1_CHECKS[key](pol, probe)
                extra = {"family": family, "job": probe.job_id, "arrival": probe.arrival, "check": key}
                rows.append(_row(seed, claim, **extra))
    return pd.DataFrame(rows)


def sample_claims(frame: pd.DataFrame) -> dict[str, Claim]:
    """Fold a sample table (one row per instance and claim) into one :class:`Claim` per claim name.

    Parameters
    ----------
    frame : pandas.DataFrame
        With columns ``claim`` (name), ``holds`` and ``summary``, e.g. from :func:`theorem1_sample`.

    Returns
    -------
    dict of str to Claim
        In order of first appearance; each holds iff every row of that claim holds; ``details``:
        ``checked`` rows, ``failures`` and the ``first_failure`` summary (empty if none).

    Raises
    ------
    ValueError
        If a column is missing or the frame is empty.
    """
    missing = [c for c in ("claim", "holds", "summary") if c not in frame.columns]
    if missing:
        raise ValueError(f"frame is missing columns {missing}")
    if frame.empty:
        raise ValueError("frame is empty: no claim was checked")
    return claims_by_name(frame)


def _swap(params: PriceParameters) -> PriceParameters:
    """The PS price function Q as the worker price of a PriceParameters (to reuse P checks on Q)."""
    p = params
    return PriceParameters(p.log_u2, p.log_u1, p.log_l2, p.log_l1, p.eta2, p.eta1)


def _renamed(claim: Claim, suffix: str) -> Claim:
    return Claim(f"{claim.name} {suffix}", claim.holds, claim.details)


def price_sample(seeds, *, family: str = "synthetic", **sizes) -> pd.DataFrame:
    """(22) and Lemma 3 on the price parameters of each instance.

    Rows: :func:`price_endpoints` (``P`` and ``Q``, evaluated on the worker-server capacities,
    which are positive for every resource; a resource a server lacks is priced as full by design),
    and :func:`lemma3_derivative` for ``P`` (worker capacities) and for ``Q`` (PS capacities). Extra
    columns: ``alpha``, ``log10_u1_over_l1`` (largest over resources), ``log10_u2_over_l2``,
    ``eta1``, ``eta2``.

    Parameters
    ----------
    seeds : iterable of int
    family : {"synthetic", "oasis"}
    **sizes
        Instance sizes (:func:`instance`).

    Returns
    -------
    pandas.DataFrame
        One row per (seed, check); columns as in :func:`theorem1_sample`.
    """
    seeds = _check_seeds(seeds)
    rows = []
    for seed in seeds:
        wl = instance(seed, family=family, **sizes)
        params = price_parameters(wl)
        c = wl.cluster
        cap_w = c.capacity[c.servers_for("worker")]
        cap_p = c.capacity[c.servers_for("ps")]
        extra = {
            "alpha": params.alpha,
            "log10_u1_over_l1": float(np.max(params.log_u1 - params.log_l1) / math.log(10)),
            "log10_u2_over_l2": float(np.max(params.log_u2 - params.log_l2) / math.log(10)),
            "eta1": params.eta1,
            "eta2": params.eta2,
        }
        for claim in (
            price_endpoints(params, cap_w),
            _renamed(lemma3_derivative(params, cap_w), "(P, worker servers)"),
            _renamed(lemma3_derivative(_swap(params), cap_p), "(Q, PS servers)"),
        ):
            rows.append(_row(seed, claim, family=family, **extra))
    return pd.DataFrame(rows)


def appendix_a_sample(seeds, *, family: str = "synthetic", **sizes) -> pd.DataFrame:
    """Appendix A on each instance: :func:`zero_usage_admission` and :func:`exhaustion_rejection`.

    Parameters
    ----------
    seeds : iterable of int
    family : {"synthetic", "oasis"}
    **sizes
        Instance sizes (:func:`instance`).

    Returns
    -------
    pandas.DataFrame
        One row per (seed, check) with the claims' numbers (``min_payoff_over_utility``,
        ``bound_if_exact_worker_time``, ``jobs_with_feasible_schedule``, ``admitted``,
        ``min_margin``).
    """
    seeds = _check_seeds(seeds)
    rows = []
    for seed in seeds:
        wl = instance(seed, family=family, **sizes)
        rows.append(_row(seed, zero_usage_admission(wl), family=family))
        rows.append(_row(seed, exhaustion_rejection(wl), family=family))
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ Lemma 1 with discrete steps


def lemma1_frame(policy: OASiS, workload: Workload) -> pd.DataFrame:
    r"""Per admission of a finished OASiS run: the primal and dual increments and the discrete
    allocation-cost factor that bounds their ratio.

    With :math:`x = \Delta g/c` the share of a (slot, server, resource) that job ``i`` takes and
    :math:`\alpha_r = \ln(U^r/L)` of that resource, (22) gives
    :math:`\Delta p\,c = p\,\Delta g\,(e^{\alpha_r x}-1)/x`, and with
    :math:`\mu_i = f_i - \sum p\,\Delta g \ge 0`

    .. math:: D_i - D_{i-1} = f_i + \sum p\,\Delta g\,\big((e^{\alpha_r x}-1)/x - 1\big)
              \le \kappa_i\,(P_i - P_{i-1}),\qquad
              \kappa_i = \max\big(1, \max_{t,s,r} (e^{\alpha_r x}-1)/x\big).

    As :math:`x \to 0` (:math:`w \ll c`), :math:`(e^{\alpha_r x}-1)/x \to \alpha_r \le \alpha`: Lemma 3's
    differential relationship and Lemma 1's premise. For finite ``x`` the premise can fail by the
    factor :math:`(e^{\alpha x}-1)/(\alpha x)` (spec ``oasis.md`` section 10, item 9).

    Parameters
    ----------
    policy : OASiS
        The policy after :func:`dlsched.core.simulator.simulate` (its ``history`` and ``plans``).
    workload : Workload
        The simulated workload (for the jobs' demands).

    Returns
    -------
    pandas.DataFrame
        One row per admission in order: ``job, primal, dual, alpha, dual_over_primal,
        premise_ratio`` (:math:`(D_i-D_{i-1})/(\alpha(P_i-P_{i-1}))`), ``premise_holds``
        (:math:`P_i-P_{i-1} \ge (D_i-D_{i-1})/\alpha`), ``max_share`` (largest
        ``x``), ``kappa``, ``within_kappa`` (:math:`D_i-D_{i-1} \le \kappa_i(P_i-P_{i-1})`).

    Raises
    ------
    ValueError
        If the policy has not run (no ``history``) or a job of its history is not in the workload.
    """
    if not hasattr(policy, "history"):
        raise ValueError("lemma1_frame needs an OASiS policy that has run (simulate(workload, policy))")
    params = policy._params
    alpha = params.alpha
    specs = workload.specs
    cluster = policy.cluster
    a1 = np.asarray(params.log_u1 - params.log_l1, dtype=float)
    a2 = np.asarray(params.log_u2 - params.log_l2, dtype=float)
    rows = []
    for rec in policy.history:
        j = rec["job"]
        if j not in specs:
            raise ValueError(f"job {j} of the policy's history is not in the workload")
        spec = specs[j]
        wd, pdem = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
        kappa, share = 1.0, 0.0
        for placement in policy.plans[j].values():
            for pairs, dem, ar in ((placement.workers, wd, a1), (placement.ps, pdem, a2)):
                for s, n in pairs:
                    cap = cluster.capacity[s]
                    use = (dem > 0) & (cap > 0)
                    if not use.any():
                        continue
                    x = n * dem[use] / cap[use]
                    share = max(share, float(x.max()))
                    kappa = max(kappa, float(np.max(np.expm1(ar[use] * x) / x)))
        primal, dual = float(rec["primal"]), float(rec["dual"])
        rows.append(
            {
                "job": int(j),
                "primal": primal,
                "dual": dual,
                "alpha": alpha,
                "dual_over_primal": dual / primal if primal > 0 else math.inf,
                "premise_ratio": dual / (alpha * primal) if primal > 0 else math.inf,
                "premise_holds": bool(primal >= dual / alpha - 1e-9),
                "max_share": share,
                "kappa": kappa,
                "within_kappa": bool(dual <= kappa * primal * (1 + _REL) + 1e-9),
            }
        )
    cols = ["job", "primal", "dual", "alpha", "dual_over_primal", "premise_ratio", "premise_holds",
            "max_share", "kappa", "within_kappa"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def lemma1_discrete(policy: OASiS, workload: Workload) -> Claim:
    r"""Lemma 1-2 with discrete steps: every admission satisfies
    :math:`D_i - D_{i-1} \le \kappa_i (P_i - P_{i-1})` with :math:`\kappa_i` of
    :func:`lemma1_frame`; so Lemma 1's premise (:math:`\kappa_i` replaced by :math:`\alpha`) can
    only fail where :math:`\kappa_i > \alpha`, i.e. where a job takes a coarse share of a resource.

    Parameters
    ----------
    policy : OASiS
        The policy after a run.
    workload : Workload
        The simulated workload.

    Returns
    -------
    Claim
        ``details``: admissions, premise violations, violations with :math:`\kappa_i \le \alpha`
        (must be 0), largest ``(D_i - D_{i-1}) / (kappa_i (P_i - P_{i-1}))``.
    """
    df = lemma1_frame(policy, workload)
    unexplained = int((~df["premise_holds"] & (df["kappa"] <= df["alpha"] * (1 + _REL))).sum())
    worst = float((df["dual"] / (df["kappa"] * df["primal"])).max()) if len(df) else 0.0
    return Claim(
        "OASiS Lemma 1-2 (discrete): D_i - D_{i-1} <= kappa_i (P_i - P_{i-1})",
        bool(df["within_kappa"].all()) and unexplained == 0,
        {
            "admissions": int(len(df)),
            "premise_violations": int((~df["premise_holds"]).sum()),
            "violations_with_kappa_le_alpha": unexplained,
            "max_dual_over_kappa_primal": worst,
        },
    )


def run_sample(seeds, *, family: str = "synthetic", **sizes) -> pd.DataFrame:
    """Whole OASiS runs (Algorithm 1) on each instance: Theorem 2 (:func:`feasible_run`), weak
    duality (:func:`weak_duality`), Lemma 1's premise (:func:`lemma1_increments`, reported, may
    fail) and its discrete form (:func:`lemma1_discrete`).

    Parameters
    ----------
    seeds : iterable of int
    family : {"synthetic", "oasis"}
    **sizes
        Instance sizes (:func:`instance`).

    Returns
    -------
    pandas.DataFrame
        One row per (seed, check) with ``n_jobs``, ``n_admitted``, ``utility`` (total realized) and
        the claims' numbers.
    """
    seeds = _check_seeds(seeds)
    rows = []
    for seed in seeds:
        wl = instance(seed, family=family, **sizes)
        pol = OASiS.from_workload(wl)
        res = simulate(wl, pol, seed=seed)
        extra = {
            "n_jobs": len(wl.jobs),
            "n_admitted": int(res.jobs["admitted"].sum()),
            "utility": float(res.jobs["utility"].sum()),
        }
        for claim in (feasible_run(res, pol), weak_duality(pol, res), lemma1_increments(pol),
                      lemma1_discrete(pol, wl)):  # fmt: skip
            rows.append(_row(seed, claim, family=family, **extra))
    return pd.DataFrame(rows)


def increments_sample(seeds, *, family: str = "synthetic", **sizes) -> pd.DataFrame:
    """:func:`lemma1_frame` of an OASiS run on each instance, stacked with a ``seed`` column.

    Parameters
    ----------
    seeds : iterable of int
    family : {"synthetic", "oasis"}
    **sizes
        Instance sizes (:func:`instance`).

    Returns
    -------
    pandas.DataFrame
        Columns ``seed``, ``family`` and those of :func:`lemma1_frame`.
    """
    seeds = _check_seeds(seeds)
    frames = []
    for seed in seeds:
        wl = instance(seed, family=family, **sizes)
        pol = OASiS.from_workload(wl)
        simulate(wl, pol, seed=seed)
        frames.append(lemma1_frame(pol, wl).assign(seed=seed, family=family))
    out = pd.concat(frames, ignore_index=True)
    return out[["seed", "family", *[c for c in out.columns if c not in ("seed", "family")]]]


def dual_feasibility(policy: OASiS, workload: Workload, allocations: pd.DataFrame) -> Claim:
    r"""Dual constraint (20) for given schedules at the policy's final prices: for every job with
    a schedule ``l`` in ``allocations``, :math:`\mu_i \ge f_i(t_l - a_i) - \sum p\,w\,y -
    \sum q\,s\,z`, with :math:`\mu_i` OASiS's payoff (0 if rejected).

    Theorem 2 (App. C) claims OASiS's :math:`(p, q, \mu)` is feasible for the dual (19)-(20); then
    weak duality gives :math:`D_I \ge OPT`. If the optimum's own schedules satisfy (20), the
    dual objective is at least OPT (the optimum uses at most the capacity, so its cost at any prices is at
    most :math:`\sum p c + \sum q c`); so :math:`D_I < OPT` always shows up here as a violation.

    Parameters
    ----------
    policy : OASiS
        The policy after a run (final prices, payoffs).
    workload : Workload
        The simulated workload.
    allocations : pandas.DataFrame
        Schedules to test, ``job, slot, server, role, count`` (e.g.
        :attr:`dlsched.oasis.offline.OfflineSolution.allocations`); a job's completion is its last
        slot with workers.

    Returns
    -------
    Claim
        ``details``: schedules checked, violating jobs, largest excess of the right side of (20)
        over :math:`\mu_i`.

    Raises
    ------
    ValueError
        If a column is missing, a job is unknown, or a server is not in the role's pool.
    """
    missing = [c for c in ("job", "slot", "server", "role", "count") if c not in allocations.columns]
    if missing:
        raise ValueError(f"allocations is missing columns {missing}")
    specs = workload.specs
    cluster = policy.cluster
    wpos = {int(s): i for i, s in enumerate(policy._wsrv)}
    ppos = {int(s): i for i, s in enumerate(policy._psrv)}
    bad, worst, checked = [], -math.inf, 0
    alloc = allocations[allocations["count"] > 0]
    for j, part in alloc.groupby("job", sort=True):
        j = int(j)
        if j not in specs:
            raise ValueError(f"allocations: job {j} is not in the workload")
        spec = specs[j]
        wd, pdem = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
        workers = part[part["role"] == "worker"]
        if workers.empty:
            continue
        checked += 1
        f = float(spec.utility(int(workers["slot"].max()) - spec.arrival))
        cost = 0.0
        for t, srv, role, n in part[["slot", "server", "role", "count"]].itertuples(index=False):
            pos, prices, dem = (wpos, policy.p, wd) if role == "worker" else (ppos, policy.q, pdem)
            if int(srv) not in pos:
                raise ValueError(f"allocations: server {srv} is not a {role} server")
            cost += float(np.sum(prices[int(t), pos[int(srv)]] * dem)) * int(n)
        excess = f - cost - policy.payoffs.get(j, 0.0)
        worst = max(worst, excess)
        if excess > 1e-9 * max(1.0, f):
            bad.append(j)
    return Claim(
        "OASiS Theorem 2 (dual part): (20) holds at the final prices for the given schedules",
        not bad,
        {"schedules": checked, "violations": bad[:10], "max_excess": worst if checked else 0.0},
    )


def lemma1_consistency(runs: pd.DataFrame, increments: pd.DataFrame) -> Claim:
    """The Lemma 1 counts of :func:`run_sample` agree with :func:`increments_sample` on the same
    seeds: per (family, seed), :func:`lemma1_increments` counted one admission per admitted job and
    as many premise violations as there are rows with ``premise_holds`` False.

    Parameters
    ----------
    runs : pandas.DataFrame
        From :func:`run_sample` (rows of :func:`lemma1_increments` carry ``admissions`` and
        ``violations``).
    increments : pandas.DataFrame
        From :func:`increments_sample` with the same seeds, family and sizes.

    Returns
    -------
    Claim
        ``details``: instances compared, admissions, premise violations, mismatching seeds.

    Raises
    ------
    ValueError
        If a column is missing or ``runs`` has no Lemma 1 rows.
    """
    need_runs = ("claim", "seed", "family", "admissions", "violations", "n_admitted")
    need_inc = ("seed", "family", "premise_holds")
    for name, df, cols in (("runs", runs, need_runs), ("increments", increments, need_inc)):
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise ValueError(f"{name} is missing columns {missing}")
    lem = runs[runs["claim"].str.startswith("OASiS Lemma 1:")]
    if lem.empty:
        raise ValueError("runs has no lemma1_increments rows")
    counts = increments.groupby(["family", "seed"])["premise_holds"].agg(rows="size", ok="sum")
    bad = []
    table = lem[["family", "seed", "admissions", "violations", "n_admitted"]]
    for fam, seed, adm, vio, n_adm in table.itertuples(index=False):
        rows, ok = counts.loc[(fam, seed)] if (fam, seed) in counts.index else (0, 0)
        if not (int(adm) == int(n_adm) == int(rows) and int(vio) == int(rows) - int(ok)):
            bad.append((fam, int(seed)))
    return Claim(
        "OASiS Lemma 1 counts consistent (one increment per admission, violations recounted)",
        not bad,
        {
            "instances": int(len(lem)),
            "admissions": int(lem["admissions"].sum()),
            "premise_violations": int(lem["violations"].sum()),
            "mismatches": bad[:10],
        },
    )


def combine_samples(*frames: pd.DataFrame) -> pd.DataFrame:
    """Stack sample tables (e.g. of two families or two sizes) into one, with a fresh index.

    Columns are the union in order of first appearance; a column a frame lacks (e.g. a detail
    that only some checks report) is missing (NaN) in its rows.

    Parameters
    ----------
    *frames : pandas.DataFrame
        Tables from the sample functions.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ValueError
        If no frame is given.
    TypeError
        If an argument is not a DataFrame.
    """
    if not frames:
        raise ValueError("combine_samples needs at least one frame")
    for f in frames:
        if not isinstance(f, pd.DataFrame):
            raise TypeError(f"combine_samples takes DataFrames, got {type(f).__name__}")
    cols = list(dict.fromkeys(c for f in frames for c in f.columns))
    return pd.concat([f.reindex(columns=cols) for f in frames], ignore_index=True)


# ------------------------------------------------------------------------------ Theorem 4 sample

_VACUOUS = 1e-6
_SOLVER_REL = 1e-5


def ratio_point(params: dict) -> pd.DataFrame:
    r"""Theorem 4 on one instance, as one row (an experiment function for
    :func:`dlsched.experiments.sweep`).

    Runs :func:`competitive_ratio` (OASiS vs the MILP optimum of (1)-(13)) and, on a second,
    identical OASiS run and MILP solve (both deterministic; checked), the duality bookkeeping of
    Appendix E and :func:`dual_feasibility` of the optimum's schedules.

    Parameters
    ----------
    params : dict
        ``seed`` (int), optional ``family`` (default ``"synthetic"``), ``time_limit`` (MILP
        seconds, default 60) and the instance sizes of :func:`instance`.

    Returns
    -------
    pandas.DataFrame
        One row: ``seed, n_jobs, opt`` (MILP), ``opt_bound`` (its dual bound), ``milp_status``,
        ``milp_gap``, ``alg`` (OASiS's realized utility), ``alg_planned`` (:math:`P_I`),
        ``ratio`` (OPT/ALG; NaN when both are below 1e-6: ``vacuous``), ``alpha``, ``two_alpha``,
        ``holds`` (ratio <= 2 alpha or vacuous), ``dual`` (:math:`D_I`), ``dual0``
        (:math:`D_0`), ``beta`` (:math:`\max(\alpha, \max_i (D_i-D_{i-1})/(P_i-P_{i-1}))`),
        ``kappa`` (:math:`\max(\alpha, \max_i\kappa_i)`, :func:`lemma1_frame`),
        ``premise_violations`` (Lemma 1), ``dual_ge_opt`` (:math:`D_I \ge OPT`),
        ``dual0_le_half_opt`` (:math:`D_0 \le OPT/2`), ``opt_below_alg`` (the MILP value is below
        OASiS's utility by more than 1e-5 relative; OASiS's schedule is feasible for (1)-(13), so
        this is a solver failure), ``opt_best`` (max(OPT, ALG): the best known lower bound of the
        optimum), ``ratio_best`` (opt_best/ALG), ``upper`` (:math:`\sum_i f_i(0)`, a solver-free
        upper bound of OPT), ``ratio_upper`` (upper/ALG, an upper bound of OPT/ALG), ``n_admitted_alg``,
        ``n_admitted_opt``, ``opt_schedules_dual_feasible`` (:func:`dual_feasibility` of the
        optimum's schedules) and ``dual_excess`` (its largest excess).

    Raises
    ------
    ValueError
        If ``params`` lacks ``seed`` or has invalid values.
    """
    if not isinstance(params, dict) or "seed" not in params:
        raise ValueError(f"ratio_point needs a dict with a 'seed', got {params!r}")
    sizes = dict(params)
    seed = sizes.pop("seed")
    family = sizes.pop("family", "synthetic")
    time_limit = sizes.pop("time_limit", 60.0)
    wl = instance(seed, family=family, **sizes)
    claim = competitive_ratio(wl, time_limit=time_limit, seed=seed)
    d = claim.details
    pol = OASiS.from_workload(wl)
    res = simulate(wl, pol, seed=seed)
    alg = float(res.jobs["utility"].sum())
    if abs(alg - d["alg"]) > 1e-9 * max(1.0, abs(alg)):
        raise RuntimeError(f"seed {seed}: two OASiS runs disagree ({alg} vs {d['alg']}); not deterministic")
    inc = lemma1_frame(pol, wl)
    from dlsched.oasis.offline import solve_offline

    opt_sol = solve_offline(wl, time_limit=time_limit)
    if abs(opt_sol.objective - float(d["opt"])) > 1e-9 * max(1.0, abs(opt_sol.objective)):
        raise RuntimeError(f"seed {seed}: two MILP solves disagree ({opt_sol.objective} vs {d['opt']})")
    dual_ok = dual_feasibility(pol, wl, opt_sol.allocations)
    R = len(wl.cluster.resources)
    dual0 = float(
        np.sum(pol._params.worker_price(np.zeros((1, len(pol._wsrv), R)), pol._cw[None]) * pol._cw[None])
        + np.sum(pol._params.ps_price(np.zeros((1, len(pol._psrv), R)), pol._cp[None]) * pol._cp[None])
    ) * pol._T
    opt, alpha = float(d["opt"]), float(pol._params.alpha)
    vacuous = opt <= _VACUOUS and alg <= _VACUOUS
    ratio = math.nan if vacuous else (opt / alg if alg > 0 else math.inf)
    dual = pol.dual_objective()
    upper = float(sum(spec.utility(0) for spec in wl.jobs))
    beta = max(alpha, float(inc["dual_over_primal"].max())) if len(inc) else alpha
    kappa = max(alpha, float(inc["kappa"].max())) if len(inc) else alpha
    row = {
        "seed": int(seed),
        "family": family,
        "n_jobs": len(wl.jobs),
        "opt": opt,
        "milp_status": str(d["milp_status"]),
        "milp_gap": float(d["milp_gap"]),
        "alg": alg,
        "alg_planned": float(inc["primal"].sum()),
        "ratio": ratio,
        "alpha": alpha,
        "two_alpha": 2 * alpha,
        "holds": bool(vacuous or ratio <= 2 * alpha * (1 + _REL)),
        "vacuous": bool(vacuous),
        "dual": dual,
        "dual0": dual0,
        "beta": beta,
        "kappa": kappa,
        "premise_violations": int((~inc["premise_holds"]).sum()),
        "dual_ge_opt": bool(dual >= opt * (1 - _REL) - 1e-9),
        "dual0_le_half_opt": bool(dual0 <= opt / 2 * (1 + _REL) + 1e-12),
        "opt_below_alg": bool(opt < alg * (1 - _SOLVER_REL) - _VACUOUS),
        "opt_best": max(opt, alg),
        "ratio_best": math.nan if vacuous else (max(opt, alg) / alg if alg > 0 else math.inf),
        "upper": upper,
        "ratio_upper": math.nan if vacuous else (upper / alg if alg > 0 else math.inf),
        "n_admitted_alg": int(res.jobs["admitted"].sum()),
        "n_admitted_opt": len(opt_sol.admitted),
        "opt_schedules_dual_feasible": bool(dual_ok.holds),
        "dual_excess": float(dual_ok.details["max_excess"]),
    }
    return pd.DataFrame([row])


def ratio_sample(seeds, *, family: str = "synthetic", time_limit: float = 60.0, **sizes) -> pd.DataFrame:
    """Theorem 4 over many instances: :func:`ratio_point` for each seed, stacked.

    Parameters
    ----------
    seeds : iterable of int
    family : {"synthetic", "oasis"}
        Instance family (:func:`instance`).
    time_limit : float, default 60
        MILP time limit per instance (seconds); a ``milp_status`` of ``"time_limit"`` makes
        ``opt`` a lower bound of the optimum.
    **sizes
        Instance sizes, e.g. ``n_jobs=6, n_servers=4, horizon=6`` (synthetic) or
        ``n_jobs=10, T=10, H=2, K=1`` (oasis).

    Returns
    -------
    pandas.DataFrame
        One row per seed, columns of :func:`ratio_point`.
    """
    seeds = _check_seeds(seeds)
    frames = [ratio_point({"seed": s, "family": family, "time_limit": time_limit, **sizes}) for s in seeds]
    return pd.concat(frames, ignore_index=True)


def ratio_claims(frame: pd.DataFrame) -> dict[str, Claim]:
    r"""Theorem 4 and the links of its proof (App. E) over a :func:`ratio_sample` table.

    * Theorem 4: OPT/ALG <= 2 alpha on every non-vacuous instance.
    * The same with the solver-free bound :math:`\sum_i f_i(0) \ge OPT` in place of the MILP
      value (holds only where utilities are tight enough; it makes the verdict independent of
      the MILP).
    * Lemma 1 with the observed constant: OPT/ALG <= 2 beta on every instance where the other two
      links hold, :math:`D_I \ge OPT` and :math:`D_0 \le OPT/2` (the proof's chain, with
      :math:`\beta` in place of :math:`\alpha`).
    * Violations explained: every instance with OPT/ALG > 2 alpha has a broken link of the proof:
      a Lemma 1 premise violation (:math:`\beta > \alpha`), :math:`D_I < OPT` or
      :math:`D_0 > OPT/2` (implied by the chain; checks the bookkeeping).
    * The links themselves (:math:`D_I \ge OPT`, the optimum's schedules satisfying (20),
      :math:`D_0 \le OPT/2`), that every :math:`D_I < OPT` has a (20) violation as witness, and
      the solver sanity check OPT >= ALG (OASiS's schedule is feasible for (1)-(13)).

    Parameters
    ----------
    frame : pandas.DataFrame
        From :func:`ratio_sample`.

    Returns
    -------
    dict of str to Claim
        Keys ``"theorem4"``, ``"solver_free"``, ``"explained"``, ``"chain"``, ``"dual_ge_opt"``,
        ``"dual_feasible"``, ``"witness"``, ``"dual0"``, ``"solver"``.

    Raises
    ------
    ValueError
        If the frame lacks a column of :func:`ratio_point` or is empty.
    """
    need = ["ratio", "ratio_upper", "two_alpha", "alpha", "beta", "vacuous", "dual_ge_opt",
            "dual0_le_half_opt", "opt_below_alg", "holds", "seed", "opt_schedules_dual_feasible",
            "dual_excess"]  # fmt: skip
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValueError(f"frame is missing columns {missing}")
    if frame.empty:
        raise ValueError("frame is empty")
    live = frame[~frame["vacuous"].astype(bool)]
    over = live[~live["holds"].astype(bool)]
    unexplained = over[
        ~(over["beta"] > over["alpha"] * (1 + _REL))
        & over["dual_ge_opt"].astype(bool)
        & over["dual0_le_half_opt"].astype(bool)
    ]
    witness_bad = live[~live["dual_ge_opt"].astype(bool) & live["opt_schedules_dual_feasible"].astype(bool)]
    links = live[live["dual_ge_opt"].astype(bool) & live["dual0_le_half_opt"].astype(bool)]
    chain_bad = links[~(links["ratio"] <= 2 * links["beta"] * (1 + _REL))]
    fin = live["ratio"][np.isfinite(live["ratio"])]
    below = ~live["dual_ge_opt"].astype(bool)
    d0_bad = ~live["dual0_le_half_opt"].astype(bool)
    solver_bad = frame["opt_below_alg"].astype(bool)
    loose = live[~(live["ratio_upper"] <= live["two_alpha"] * (1 + _REL))]
    return {
        "theorem4": Claim(
            "OASiS Theorem 4: OPT/ALG <= 2 alpha",
            over.empty,
            {
                "instances": int(len(frame)),
                "vacuous": int(len(frame) - len(live)),
                "violations": int(len(over)),
                "max_ratio": float(fin.max()) if len(fin) else math.nan,
                "min_two_alpha": float(frame["two_alpha"].min()),
                "violating_seeds": over["seed"].tolist()[:10],
            },
        ),
        "solver_free": Claim(
            "OASiS Theorem 4 without the solver: sum_i f_i(0) / ALG <= 2 alpha",
            loose.empty,
            {
                "instances": int(len(live)),
                "max_ratio_upper": float(live["ratio_upper"].max()) if len(live) else math.nan,
                "failures": loose["seed"].tolist()[:10],
            },
        ),
        "explained": Claim(
            "OASiS Theorem 4 violations come with a broken proof link "
            "(beta > alpha, D_I < OPT or D_0 > OPT/2)",
            unexplained.empty,
            {
                "violations": int(len(over)),
                "with_beta_gt_alpha": int((over["beta"] > over["alpha"] * (1 + _REL)).sum()),
                "unexplained": unexplained["seed"].tolist()[:10],
            },
        ),
        "dual_feasible": Claim(
            "OASiS Theorem 2 (dual part): the optimum's schedules satisfy (20) at the final prices",
            bool(live["opt_schedules_dual_feasible"].all()),
            {
                "instances": int(len(live)),
                "violations": int((~live["opt_schedules_dual_feasible"].astype(bool)).sum()),
                "max_excess": float(live["dual_excess"].max()) if len(live) else math.nan,
                "seeds": live.loc[~live["opt_schedules_dual_feasible"].astype(bool), "seed"].tolist()[:10],
            },
        ),
        "witness": Claim(
            "Every D_I < OPT comes with a (20) violation on the optimum's schedules",
            witness_bad.empty,
            {"d_below_opt": int(below.sum()), "unexplained": witness_bad["seed"].tolist()[:10]},
        ),
        "chain": Claim(
            "OASiS App. E chain with the observed constant: OPT/ALG <= 2 beta where D_I >= OPT, D_0 <= OPT/2",
            chain_bad.empty,
            {"instances_with_both_links": int(len(links)), "failures": chain_bad["seed"].tolist()[:10]},
        ),
        "dual_ge_opt": Claim(
            "OASiS weak duality against the optimum: D_I >= OPT",
            bool(live["dual_ge_opt"].all()),
            {"instances": int(len(live)), "failures": live.loc[below, "seed"].tolist()[:10]},
        ),
        "dual0": Claim(
            "OASiS (33)-(35): D_0 <= OPT/2",
            bool(live["dual0_le_half_opt"].all()),
            {"instances": int(len(live)), "failures": live.loc[d0_bad, "seed"].tolist()[:10]},
        ),
        "solver": Claim(
            "MILP optimum >= OASiS utility (solver sanity)",
            not bool(solver_bad.any()),
            {
                "instances": int(len(frame)),
                "opt_below_alg": int(solver_bad.sum()),
                "seeds": frame.loc[solver_bad, "seed"].tolist()[:10],
            },
        ),
    }


def ratio_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per family of a :func:`ratio_sample` table: the distribution of OPT/ALG and the proof links.

    Parameters
    ----------
    frame : pandas.DataFrame
        From :func:`ratio_sample` (or several stacked with :func:`combine_samples`).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``family``: ``instances``, ``vacuous``, ``ratio_median``, ``ratio_p90``,
        ``ratio_max`` (of ``ratio_best`` over non-vacuous instances), ``equal_to_1`` (share with
        OPT = ALG within 1e-6), ``in_1_1_to_1_5`` (share in the paper's Fig. 5 range),
        ``two_alpha_min``, ``two_alpha_max``, ``above_two_alpha`` (Theorem 4 violations),
        ``lemma1_broken`` (instances with a Lemma 1 premise violation), ``d_below_opt``,
        ``eq20_violated`` (the optimum's schedules violate (20)), ``milp_below_alg``.

    Raises
    ------
    ValueError
        If a column is missing.
    """
    need = ["family", "vacuous", "ratio_best", "two_alpha", "holds", "premise_violations", "dual_ge_opt",
            "opt_schedules_dual_feasible", "opt_below_alg"]  # fmt: skip
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValueError(f"frame is missing columns {missing}")
    rows = {}
    for fam, part in frame.groupby("family", sort=False):
        live = part[~part["vacuous"].astype(bool)]
        r = live["ratio_best"]
        rows[fam] = {
            "instances": int(len(part)),
            "vacuous": int(len(part) - len(live)),
            "ratio_median": float(r.median()) if len(r) else math.nan,
            "ratio_p90": float(r.quantile(0.9)) if len(r) else math.nan,
            "ratio_max": float(r.max()) if len(r) else math.nan,
            "equal_to_1": float((r <= 1 + 1e-6).mean()) if len(r) else math.nan,
            "in_1_1_to_1_5": float(((r >= 1.1) & (r <= 1.5)).mean()) if len(r) else math.nan,
            "two_alpha_min": float(part["two_alpha"].min()),
            "two_alpha_max": float(part["two_alpha"].max()),
            "above_two_alpha": int((~live["holds"].astype(bool)).sum()),
            "lemma1_broken": int((live["premise_violations"] > 0).sum()),
            "d_below_opt": int((~live["dual_ge_opt"].astype(bool)).sum()),
            "eq20_violated": int((~live["opt_schedules_dual_feasible"].astype(bool)).sum()),
            "milp_below_alg": int(part["opt_below_alg"].astype(bool).sum()),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "family"
    return out


# ------------------------------------------------------------------------------ Theorem 3 sample

DECISION_METHODS: tuple[str, ...] = ("fast", "exact", "frontier", "literal")
"""Methods of :func:`decision_times_by_method`: ``"fast"`` = what the simulator runs
(``OASiS.search``: auto method, exact pruning); ``"exact"`` = the bottom-up chunk DP of App. B
without pruning; ``"frontier"`` = the frontier DP without pruning; ``"literal"`` = the paper's
recursive DP_COST (:func:`dlsched.oasis.policy.dp_cost_literal`, memoized, pure Python,
:math:`O(T N_i^2E_i^2)`)."""


def decision_times_by_method(
    rng: np.random.Generator,
    *,
    horizons=(10, 20, 40),
    workloads=(50, 100, 200),
    methods=DECISION_METHODS,
    n_servers: int = 40,
    repeats: int = 3,
) -> pd.DataFrame:
    r"""Time of Algorithm 2 for one job at zero usage, per evaluation method, against ``T`` and
    :math:`N_iE_i` (Theorem 3). The job is the one of :func:`decision_times` (50 chunks, or
    :math:`N_iE_i` chunks if fewer; 10 mini-batches of 0.004 slots), so a chunk-pass takes far
    less than a slot and up to 1,250 chunk-passes fit in one slot.

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws each job's priority :math:`\gamma_1`.
    horizons, workloads : sequences of int
        ``T`` and the target :math:`N_iE_i` values.
    methods : sequence of str
        Subset of :data:`DECISION_METHODS`.
    n_servers : int
        Worker servers and PS servers (each).
    repeats : int
        Timings per point (the median is kept).

    Returns
    -------
    pandas.DataFrame
        ``method, T, NE, seconds`` (machine-dependent).

    Raises
    ------
    ValueError
        For an unknown method or non-positive sizes.
    """
    from dlsched.core.cluster import Cluster
    from dlsched.core.jobs import Sigmoid
    from dlsched.oasis.policy import dp_cost_literal

    bad = [m for m in methods if m not in DECISION_METHODS]
    if bad or not methods:
        raise ValueError(f"methods must be a non-empty subset of {DECISION_METHODS}, got {methods!r}")
    for name, vals in (("horizons", horizons), ("workloads", workloads)):
        bad_v = [v for v in vals if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1]
        if not vals or bad_v:
            raise ValueError(f"{name} must be a non-empty sequence of integers >= 1, got {vals!r}")
    for name, v in (("n_servers", n_servers), ("repeats", repeats)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    cluster = Cluster.two_pools(
        n_servers, n_servers, {"gpu": 8, "cpu": 64, "mem": 256}, {"cpu": 64, "mem": 256}
    )
    rows = []
    for T in horizons:
        for ne in workloads:
            n = min(50, int(ne))
            e = max(1, int(ne) // n)
            model = OasisModel(epochs=e, chunks=n, minibatches=10, tau=0.002, comm=0.001)
            spec = JobSpec(0, 0, model, {"gpu": 1, "cpu": 4, "mem": 8}, {"cpu": 4, "mem": 8},
                           utility=Sigmoid(float(rng.uniform(50, 100)), 0.1, float(T) / 2))  # fmt: skip
            wl = Workload(cluster, (spec,), horizon=int(T))
            for method in methods:
                pol = OASiS(price_parameters(wl), method="auto").prepare(cluster, int(T))
                st = pol.state()
                wd, pdem = cluster.vector(spec.worker_demand), cluster.vector(spec.ps_demand)
                times = []
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    if method == "fast":
                        pol.search(spec)
                    elif method == "literal":
                        dp_cost_literal(spec, int(T) - 1, n * e, st["capacity_w"], st["capacity_p"],
                                        st["used_w"], st["used_p"], st["price_w"], st["price_p"], wd,
                                        pdem)  # fmt: skip
                    else:
                        _search(pol, spec, method, False)
                    times.append(time.perf_counter() - t0)
                rows.append({"method": method, "T": int(T), "NE": n * e, "seconds": float(np.median(times))})
    return pd.DataFrame(rows)


def loglog_slopes(times: pd.DataFrame, *, by: str | None = "method") -> pd.DataFrame:
    r"""Least-squares exponents of ``seconds ~ C T^a (N_iE_i)^b`` (a fit of
    :math:`\ln s = \ln C + a\ln T + b\ln(N_iE_i)`), per group of ``by``.

    Parameters
    ----------
    times : pandas.DataFrame
        Columns ``T``, ``NE``, ``seconds`` (from :func:`decision_times` or
        :func:`decision_times_by_method`).
    by : str or None, default "method"
        Group column (None or absent: one fit over all rows).

    Returns
    -------
    pandas.DataFrame
        ``group, slope_T, slope_NE, points``.

    Raises
    ------
    ValueError
        If a column is missing, a time is not positive, or a group has fewer than 3 points.
    """
    missing = [c for c in ("T", "NE", "seconds") if c not in times.columns]
    if missing:
        raise ValueError(f"times is missing columns {missing}")
    if (times["seconds"] <= 0).any():
        raise ValueError("times.seconds must be > 0 for a log-log fit")
    groups = times.groupby(by, sort=False) if by is not None and by in times.columns else [("all", times)]
    rows = []
    for key, part in groups:
        if len(part) < 3:
            raise ValueError(f"group {key!r} has {len(part)} points; a fit of 2 exponents needs >= 3")
        X = np.column_stack([np.ones(len(part)), np.log(part["T"]), np.log(part["NE"])])
        coef, *_ = np.linalg.lstsq(X, np.log(part["seconds"].to_numpy(float)), rcond=None)
        rows.append(
            {"group": key, "slope_T": float(coef[1]), "slope_NE": float(coef[2]), "points": len(part)}
        )
    return pd.DataFrame(rows)


__all__ += [
    "DECISION_METHODS",
    "FAMILIES",
    "appendix_a_sample",
    "combine_samples",
    "decision_times_by_method",
    "dual_feasibility",
    "fast_path_matches_literal",
    "frontier_matches_exact",
    "increments_sample",
    "instance",
    "lemma1_consistency",
    "lemma1_discrete",
    "lemma1_frame",
    "loaded_policy",
    "loglog_slopes",
    "price_sample",
    "ratio_claims",
    "ratio_point",
    "ratio_sample",
    "ratio_summary",
    "run_sample",
    "sample_claims",
    "theorem1_sample",
]
