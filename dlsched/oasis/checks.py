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

from dlsched.core.claims import Claim
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


def lemma3_derivative(params: PriceParameters, capacity: np.ndarray, *, n: int = 50, h: float = 1e-6) -> Claim:
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
