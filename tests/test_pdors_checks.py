"""Tests of PD-ORS's section-7 checks (dlsched.pdors.checks): each holds on several small random
instances and fails on a deliberately broken input."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dlsched.core.claims import Claim
from dlsched.core.simulator import simulate
from dlsched.pdors import checks
from dlsched.pdors.policy import PDORS, PdorsPrices, SlotSolver, price_parameters

SYN = {"n_jobs": 6, "n_servers": 3, "horizon": 6, "arrival_span": 3}
PAPER = {"n_jobs": 6, "n_machines": 3, "T": 6}
FAMILY_SIZES = [("synthetic", SYN), ("pdors", PAPER)]
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def runs():
    """One PD-ORS run per (family, seed): (workload, policy, result)."""
    out = {}
    for family, sizes in FAMILY_SIZES:
        for seed in SEEDS:
            wl = checks.instance(seed, family=family, **sizes)
            pol = PDORS.from_workload(wl)
            out[family, seed] = (wl, pol, simulate(wl, pol, seed=seed))
    return out


# ----------------------------------------------------------------------------- instances


def test_instances_are_deterministic_and_validated():
    a = checks.instance(3, **SYN)
    assert a.jobs == checks.instance(3, **SYN).jobs and a.horizon == 6
    assert checks.instance(0, family="pdors", **PAPER).horizon == 6
    with pytest.raises(ValueError, match="family"):
        checks.instance(0, family="oasis")
    with pytest.raises(ValueError, match="seed"):
        checks.instance(-1, **SYN)
    with pytest.raises(ValueError, match="horizon"):
        checks.instance(0, n_jobs=3)
    with pytest.raises(ValueError, match="seeds"):
        checks.price_sample([], **SYN)


def test_loaded_policy_leaves_out_the_excluded_job():
    wl = checks.instance(1, **SYN)
    pol = checks.loaded_policy(wl, exclude=0)
    assert 0 not in pol.plans and pol.plans  # others were admitted
    assert checks.dual_bookkeeping(pol, wl).holds
    with pytest.raises(ValueError, match="exclude"):
        checks.loaded_policy(wl, exclude=99)


# ---------------------------------------------------------------------------- 1. prices


@pytest.mark.parametrize(("family", "sizes"), FAMILY_SIZES)
@pytest.mark.parametrize("seed", SEEDS)
def test_price_function_holds(family, sizes, seed):
    claim = checks.price_function(checks.instance(seed, family=family, **sizes))
    assert isinstance(claim, Claim) and claim.holds, claim.summary()
    assert claim.details["max_rel_err_dQ"] < 1e-6


def test_price_function_fails_on_wrong_prices():
    wl = checks.instance(0, **SYN)
    right = price_parameters(wl)
    assert not checks.price_function(wl, PdorsPrices(right.log_u + 0.5, right.log_l)).holds  # U off
    assert not checks.price_function(wl, price_parameters(wl, mu=right.mu / 2)).holds  # L off, D_0 too big


# ------------------------------------------------------------------- 2. internal branch


@pytest.mark.parametrize(("family", "sizes"), FAMILY_SIZES)
def test_internal_branch_matches_exhaustive_search_on_loaded_states(runs, family, sizes):
    for seed in SEEDS:
        wl, pol, _ = runs[family, seed]
        for spec in wl.jobs:
            claim = checks.internal_branch_optimal(pol, spec)
            assert claim.holds, claim.summary()
            assert claim.details["cases"] > 0


def test_internal_branch_check_fails_on_corrupted_prices():
    wl = checks.instance(1, **SYN)
    pol = checks.loaded_policy(wl)
    spec = wl.jobs[0]
    assert checks.internal_branch_optimal(pol, spec).holds
    pol.p[:, -1] *= 1e-3  # the solver now sees a cheap last machine that Q(rho) does not price so
    assert not checks.internal_branch_optimal(pol, spec).holds


# ------------------------------------------------------------------------------ 3. DP


def test_capped_compositions_enumerate_everything():
    got = list(checks._capped_compositions(5, [2, 3, 4]))
    want = [c for c in itertools.product(range(3), range(4), range(5)) if sum(c) == 5]
    assert sorted(got) == sorted(want)
    assert list(checks._capped_compositions(0, [])) == [()]
    assert list(checks._capped_compositions(3, [1, 1])) == []


@pytest.mark.parametrize(("family", "sizes"), FAMILY_SIZES)
def test_dp_equals_brute_force_and_restores_the_random_stream(family, sizes):
    positive = 0
    for seed in SEEDS:
        wl = checks.instance(seed, family=family, **sizes)
        pol = checks.loaded_policy(wl, seed=seed, levels=5)
        before = pol.rng.bit_generator.state
        for spec in wl.jobs:
            claim = checks.dp_optimal(pol, spec)
            assert claim.holds, claim.summary()
            positive += claim.details["payoff"] > 0
        assert pol.rng.bit_generator.state == before
    assert positive > 0  # not only rejections


def test_dp_check_fails_on_wrong_dp_costs():
    wl = checks.instance(0, **SYN)
    pol = checks.loaded_policy(wl, exclude=0, levels=5)
    spec = wl.specs[0]
    assert checks.dp_optimal(pol, spec).holds

    def inflated(s, prune=True):
        best = PDORS.search(pol, s, prune)
        return replace(best, costs_by_completion=best.costs_by_completion * 1.5 + 1.0)

    pol.search = inflated
    assert not checks.dp_optimal(pol, spec).holds


def test_dp_check_refuses_huge_enumerations():
    wl = checks.instance(0, **SYN)
    pol = checks.loaded_policy(wl, exclude=0, levels=40)
    with pytest.raises(ValueError, match="compositions"):
        checks.dp_optimal(pol, wl.specs[0], max_cases=10)


# ------------------------------------------------------------------ 4. external branch


def literal_integer_optimum(solver: SlotSolver, demand: float) -> float:
    """Every integer (w_h, s_h) on every machine, by itertools.product (tiny instances only)."""
    job = solver.job
    F = job.model.batch
    per = [[(w, s) for w in range(F + 1) for s in range(F + 1)
            if np.all(w * job.wd + s * job.pd <= solver.free[h] + 1e-9)] for h in range(len(solver.pw))]
    best = math.inf
    for combo in itertools.product(*per):
        W, S = sum(c[0] for c in combo), sum(c[1] for c in combo)
        if 1 <= W <= F and W >= demand - 1e-7 and S * job.model.ratio >= W - 1e-9:
            best = min(best, sum(w * solver.pw[h] + s * solver.ps[h] for h, (w, s) in enumerate(combo)))
    return best


def test_integer_optimum_equals_literal_enumeration():
    checked = 0
    for seed in range(40):
        solver, demands = checks.slot_instance(seed, n_machines=2)
        if solver.job.model.batch > 6:
            continue
        for d in demands:
            assert checks.external_integer_optimum(solver, d) == pytest.approx(
                literal_integer_optimum(solver, d), rel=1e-12)
            checked += 1
    assert checked >= 8


@pytest.mark.parametrize("machines", [2, 3])
def test_external_bounds_hold(machines):
    rng = np.random.default_rng(0)
    feasible = 0
    for seed in range(6):
        solver, demands = checks.slot_instance(seed, n_machines=machines)
        claim = checks.external_bounds(solver, demands, rng, samples=100)
        assert claim.holds, claim.summary()
        feasible += claim.details["feasible_scaled"] + claim.details["feasible_unscaled"]
    assert feasible > 0  # the last inequality was exercised


def test_external_bounds_fail_on_a_wrong_lp():
    class WrongLP(SlotSolver):
        def lp(self, demands):
            cost, w, s, n, secs = super().lp(demands)
            return cost * 3 + 1.0, w, s, n, secs

    solver, demands = checks.slot_instance(1)
    wrong = WrongLP(solver.job, np.zeros_like(solver.free), solver.free)
    wrong.pw, wrong.ps = solver.pw, solver.ps
    assert checks.external_bounds(solver, demands, np.random.default_rng(0), samples=20).holds
    assert not checks.external_bounds(wrong, demands, np.random.default_rng(0), samples=20).holds


# ---------------------------------------------------------------------------- 5. rounding


def test_rounding_is_unbiased():
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.uniform(0, 5, 30), [0.0, 2.0, 7.0]])
    claim = checks.rounding_unbiased(values, rng, draws=5000)
    assert claim.holds, claim.summary()
    assert claim.details["only_neighbours"] and claim.details["integral_kept"]


def test_rounding_check_fails_on_biased_rounders():
    values = np.array([0.3, 1.25, 2.8])
    rng = np.random.default_rng(0)

    def nearest(v, g, n):
        return np.broadcast_to(np.round(v), (n, *v.shape))

    def always_up(v, g, n):
        return np.broadcast_to(np.ceil(v) + 1, (n, *v.shape))

    assert not checks.rounding_unbiased(values, rng, draws=2000, rounder=nearest).holds
    assert not checks.rounding_unbiased(values, rng, draws=2000, rounder=always_up).holds
    with pytest.raises(ValueError, match=">= 0"):
        checks.rounding_unbiased([-1.0], rng)


# ---------------------------------------------------------------------------- 6. G_delta


@pytest.mark.parametrize("variant", ["31R", "32R"])
def test_g_delta_coverage_holds(variant):
    cases = [checks.slot_instance(s) for s in range(8)]
    claim = checks.g_delta_coverage(cases, np.random.default_rng(0), variant=variant, draws=2000)
    assert claim.holds, claim.summary()
    assert claim.details["levels"] > 10
    assert claim.details["mean_cost_over_lp"] == pytest.approx(claim.details["mean_G"], rel=0.02)


def test_g_delta_coverage_fails_without_scaling():
    cases = [checks.slot_instance(s) for s in range(8)]
    claim = checks.g_delta_coverage(cases, np.random.default_rng(0), scale=1.0, draws=2000)
    assert not claim.holds and claim.details["pooled_violation_rate"] > 0.1


def test_coverage_by_scale_is_tidy_and_falls_with_the_scale():
    cases = [checks.slot_instance(s) for s in range(6)]
    frame = checks.coverage_by_scale(cases, np.random.default_rng(0), draws=500)
    want = {"case", "fraction", "scale", "violation_rate", "feasible_rate", "cost_over_lp"}
    assert want <= set(frame.columns)
    by = frame.groupby("fraction")["violation_rate"].mean()
    assert by.loc[0.0] > by.loc[1.0] and by.loc[1.0] <= 0.1


# ---------------------------------------------------------------------- 7. whole runs


@pytest.mark.parametrize(("family", "sizes"), FAMILY_SIZES)
def test_feasible_run_holds(runs, family, sizes):
    for seed in SEEDS:
        _, pol, res = runs[family, seed]
        claim = checks.feasible_run(res, pol)
        assert claim.holds, claim.summary()


def test_feasible_run_fails_on_perturbed_schedules(runs):
    _, pol, res = runs["synthetic", 0]
    table = res.allocations
    job = int(table["job"].iloc[0])
    more = table.copy()
    more.loc[more.index[0], "count"] += 50  # capacity and plan broken
    assert not checks.feasible_run(res, pol, allocations=more).holds
    mine = table[table["job"] == job]
    fewer = table.drop(mine[mine["slot"] == mine["slot"].max()].index)  # last slot dropped: work (3) short
    assert not checks.feasible_run(res, pol, allocations=fewer).holds
    rejected = res.jobs.loc[~res.jobs["admitted"], "job_id"]
    if len(rejected):
        extra = pd.concat([table, table.iloc[:1].assign(job=int(rejected.iloc[0]))], ignore_index=True)
        assert not checks.feasible_run(res, pol, allocations=extra).holds


# -------------------------------------------------------------------- 10. duality


@pytest.mark.parametrize(("family", "sizes"), FAMILY_SIZES)
def test_weak_duality_and_bookkeeping_hold(runs, family, sizes):
    for seed in SEEDS:
        wl, pol, res = runs[family, seed]
        for claim in (checks.weak_duality(res, pol), checks.dual_bookkeeping(pol, wl)):
            assert claim.holds, claim.summary()
        assert isinstance(checks.lemma1_increments(pol), Claim)


def test_duality_checks_fail_on_broken_state():
    wl = checks.instance(0, **SYN)
    pol = PDORS.from_workload(wl)
    res = simulate(wl, pol, seed=0)
    assert res.jobs["admitted"].any()
    pol.rho[:] *= 1.5  # usage no longer the plans'
    assert not checks.dual_bookkeeping(pol, wl).holds
    pol.p[:] = 0.0
    pol.payoffs = {j: 0.0 for j in pol.payoffs}
    assert not checks.weak_duality(res, pol).holds


def test_lemma1_increments_compares_with_alpha():
    wl = checks.instance(0, **SYN)
    pol = PDORS.from_workload(wl).prepare(wl.cluster, 6)
    a = pol.prices.alpha
    pol.history = [{"job": 0, "primal": 2.0, "dual": 2.0 * a * 0.9}]
    assert checks.lemma1_increments(pol).holds
    pol.history.append({"job": 1, "primal": 1.0, "dual": 1.5 * a})
    claim = checks.lemma1_increments(pol)
    assert not claim.holds and claim.details["violations"] == 1


# --------------------------------------------------------------------- 8. OPT / PD-ORS


def test_ratio_sample_and_claim():
    frame = checks.ratio_sample([0, 1], family="pdors", time_limit=10.0, n_jobs=4, n_machines=2, T=5)
    assert len(frame) == 2 and (frame["two_alpha_rho"] >= 2 * frame["alpha"]).all()
    claim = checks.ratio_claim(frame)
    assert claim.holds, claim.summary()
    live = frame[~frame["vacuous"]]
    assert (live["ratio_best"] >= 1.0).all()
    broken = frame.assign(opt=frame["alg"] * 0.5 - 1, opt_bound=frame["alg"] * 0.5 - 1, vacuous=False)
    assert not checks.ratio_claim(broken).holds
    with pytest.raises(ValueError, match="missing"):
        checks.ratio_claim(frame.drop(columns=["opt"]))


# ------------------------------------------------------------------- 9. quantisation


def test_quantisation_sweep_and_claim():
    wls = [checks.instance(s, family="pdors", n_jobs=4, n_machines=2, T=5) for s in (0, 1)]
    frame = checks.quantisation_sweep(wls, levels=(10, 100))
    assert list(frame.columns[:3]) == ["instance", "levels", "total_utility"] and len(frame) == 4
    assert checks.quantisation_claim(frame, default=100, tolerance=0.0).holds  # default is the finest
    fake = pd.DataFrame({"instance": [0, 0], "levels": [100, 400], "total_utility": [90.0, 100.0]})
    claim = checks.quantisation_claim(fake, default=100, tolerance=0.05)
    assert not claim.holds and claim.details["relative_gap"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="levels=50"):
        checks.quantisation_claim(fake, default=50)


# ----------------------------------------------------------------------------- samples


def test_samples_fold_into_claims():
    frame = pd.concat([checks.price_sample(SEEDS, **SYN), checks.slot_sample([0, 1], draws=500, samples=50)])
    folded = checks.fold(frame)
    assert len(folded) == 4 and all(c.holds for c in folded.values())
    bad = frame.copy()
    bad.loc[bad.index[0], "holds"] = False
    assert not checks.fold(bad)[bad["claim"].iloc[0]].holds
    with pytest.raises(ValueError, match="fold"):
        checks.fold(pd.DataFrame())
