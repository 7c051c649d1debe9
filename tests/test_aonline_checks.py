"""Tests of A_online's section-11 checks (dlsched.aonline.checks): each holds on several small
random instances and fails on a deliberately broken input (wrong prices, a corrupted schedule,
a broken subroutine, a wrong optimum)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dlsched.aonline import checks
from dlsched.aonline.policy import (
    AOnline,
    AOnlinePrices,
    RoundRecord,
    WindowState,
    cost_c,
    maxsche,
    placement_fits,
)
from dlsched.core.claims import Claim
from dlsched.core.simulator import simulate

SEEDS = (0, 1, 2, 3)


class ShiftedPrices(AOnlinePrices):
    """Broken prices: :math:`\\theta^{f/W} - 1 + \\text{shift}` (``shift=1``: an empty slot costs 1)."""

    shift = 1.0

    def worker(self, used, capacity):
        return super().worker(used, capacity) + self.shift

    def ps(self, used, capacity):
        return super().ps(used, capacity) + self.shift


class NegativePrices(ShiftedPrices):
    shift = -0.5


class HalfPrices(AOnlinePrices):
    """Broken prices: half of (7)-(8), so a full slot costs only :math:`(\\theta - 1)/2`."""

    def worker(self, used, capacity):
        return 0.5 * super().worker(used, capacity)

    def ps(self, used, capacity):
        return 0.5 * super().ps(used, capacity)


def _broken(cls, p: AOnlinePrices) -> AOnlinePrices:
    return cls(p.theta1, p.theta2, p.reading)


@pytest.fixture(scope="module")
def runs():
    """One A_online run per (family, seed): (workload, policy, result)."""
    out = {}
    for family in checks.FAMILIES:
        for seed in SEEDS[:3]:
            wl = checks.instance(seed, family=family)
            pol = AOnline.from_workload(wl)
            out[family, seed] = (wl, pol, simulate(wl, pol, seed=seed))
    return out


# ----------------------------------------------------------------------------- instances


def test_instances_are_deterministic_and_validated():
    for family in checks.FAMILIES:
        a = checks.instance(3, family=family)
        assert a.jobs == checks.instance(3, family=family).jobs
        assert a.params["T"] == 32 and len(a.jobs) == 4
    assert len(checks.instance(0, n_jobs=2).jobs) == 2
    with pytest.raises(ValueError, match="family"):
        checks.instance(0, family="pdors")
    with pytest.raises(ValueError, match="seed"):
        checks.instance(-1)
    with pytest.raises(ValueError, match="n_edge"):
        checks.instance(0, n_edge=0)
    with pytest.raises(ValueError, match="seeds"):
        checks.run_sample([])
    w = checks.window_instance(5, load=0.5, full=2)
    assert w.capacity.shape == (3, 2) and w.length == 8 and len(w.jobs) == 3
    assert np.all(w.state.dense() <= w.capacity[:, :, None])


def test_schedule_enumeration_matches_the_policy_feasibility_test():
    """Every schedule the brute force lists passes the policy's own (9a)-(9b) test, its duration is
    the job's, and the ones that ignore usage are a superset."""
    n = 0
    for seed in range(12):
        case = checks.window_instance(seed, n_servers=4, load=0.4, full=2)
        for job in case.jobs:
            fit = checks.schedules(job, case.state)
            loose = checks.schedules(job, case.state, respect_usage=False)
            assert set(fit) == {s for s in loose if placement_fits(job, s.placement, s.duration, case.state)}
            for s in fit:
                assert placement_fits(job, s.placement, s.duration, case.state)
                assert s.duration == job.duration(s.n, s.colocated)
                assert s.colocated == s.placement.colocated
            n += len(fit)
    assert n > 100


# ------------------------------------------------------------------------------- prices


@pytest.mark.parametrize("T,S,U,V,F1,F2", [(16, 3, 1, 1, 1.0, 1.0), (1024, 201, 9, 8, 1.0, 1.0),
                                           (10, 5, 3, 2, 0.7, 1.3), (64, 4, 2, 2, 1e-4, 1e-4)])
def test_price_function_holds_and_literal_or_wrong_base_fails(T, S, U, V, F1, F2):
    ok = checks.price_function(T, S, U, V, F1, F2)
    assert ok.holds, ok.summary()
    assert ok.details["theta1"] == 2 * T * S * U * F1 + 1
    lit = checks.price_function(T, S, U, V, F1, F2, reading="literal")
    assert not lit.holds and lit.details["min_price"] == -1.0 and lit.details["max_abs_price_at_0"] == 1.0
    wrong = AOnlinePrices(2 * T * S * U * F1 + 2, 2 * T * S * V * F2 + 1)  # theta_1 off by one
    bad = checks.price_function(T, S, U, V, F1, F2, prices=wrong)
    assert not bad.holds and bad.details["max_rel_err_at_capacity"] > 1e-9
    shifted_prices = _broken(ShiftedPrices, AOnlinePrices.of(T, S, U, V, F1, F2))
    shifted = checks.price_function(T, S, U, V, F1, F2, prices=shifted_prices)
    assert not shifted.holds
    with pytest.raises(ValueError, match="capacities"):
        checks.price_function(T, S, U, V, worker_capacity=(0,))


def test_price_sample_uses_the_workloads_own_parameters():
    for family in checks.FAMILIES:
        frame = checks.price_sample(SEEDS[:2], family=family, readings=("corrected", "literal"))
        assert frame.loc[frame["reading"] == "corrected", "holds"].all()
        assert not frame.loc[frame["reading"] == "literal", "holds"].any()
    wl = checks.instance(0, family="aonline")
    prices, p = checks.workload_prices(wl, F1=0.5)
    assert p["T"] == 32 and p["S"] == wl.cluster.n_servers and p["F1"] == 0.5
    assert prices.theta1 == 2 * 32 * p["S"] * p["U"] * 0.5 + 1
    with pytest.raises(ValueError, match="no T"):
        checks.workload_prices(replace(wl, params={}))
    curves = checks.price_curves(16, 3, 1)
    assert set(curves["reading"]) == {"corrected", "literal"}
    assert curves.groupby("reading")["price"].min().to_dict() == {"corrected": 0.0, "literal": -1.0}


# ---------------------------------------------------------------- dual feasibility (5b)


def test_batch_optimum_lp_relaxation_bounds_the_integer_optimum():
    for seed in range(6):
        case = checks.window_instance(seed)
        ip = checks.batch_optimum(case.jobs, case.capacity, case.length)
        lp = checks.batch_optimum(case.jobs, case.capacity, case.length, relax=True)
        assert 0 <= ip <= lp + 1e-9 <= len(case.jobs) + 1e-9
        assert ip == int(ip)
        # a single job: 1 if some schedule fits the empty window, else 0
        one = checks.batch_optimum(case.jobs[:1], case.capacity, case.length)
        empty = WindowState.empty(case.capacity, case.length)
        assert one == float(bool(checks.schedules(case.jobs[0], empty)))


def test_weak_duality_holds_for_corrected_prices_and_fails_for_literal():
    frame = checks.dual_sample(range(8))
    corr = frame[frame["reading"] == "corrected"]
    lit = frame[frame["reading"] == "literal"]
    assert corr["holds"].all() and (corr["min_price"] >= 0).all()
    assert (corr["dual"] >= corr["lp_opt"] - 1e-7).all() and corr["primal_le_ip"].all()
    assert (corr["max_eta_over_weight"].fillna(0) <= 1e-9).all()
    # literal (7)-(8): (5b) fails in every window, payoffs exceed the weight, weak duality fails somewhere
    assert not lit["holds"].any() and (lit["min_price"] == -1.0).all()
    assert (lit["max_eta_over_weight"].dropna() > 0).all()
    assert (~lit["weak_duality"].astype(bool)).any()
    # broken prices: a negative offset breaks (5b) even though the corrected shape is kept
    case = checks.window_instance(2)
    bad = checks.weak_duality(case.jobs, case.capacity, case.length, _broken(NegativePrices, case.prices))
    assert not bad.holds and bad.details["min_price"] < 0


def test_weak_duality_on_the_rounds_of_real_runs():
    frame = checks.round_dual_sample(SEEDS[:2], family="tiny")
    assert len(frame) >= 8
    assert frame.loc[frame["reading"] == "corrected", "holds"].all()
    lit = frame[frame["reading"] == "literal"]
    assert not lit["holds"].any() and (~lit["weak_duality"].astype(bool)).any()
    wins = checks.round_windows(checks.instance(1))
    assert [w[0] for w in wins] == sorted(w[0] for w in wins) and all(w[2] == w[0] for w in wins)


# ------------------------------------------------------------------- property 2: empty window


def test_empty_admission_holds_and_shifted_prices_or_a_lazy_scheduler_fail():
    frame = checks.admission_sample(range(40))
    assert frame["holds"].all()
    assert 5 < frame["feasible"].sum() < 40  # both outcomes occurred
    case = next(c for c in (checks.window_instance(s, n_jobs=1) for s in range(40))
                if checks.schedules(c.jobs[0], WindowState.empty(c.capacity, c.length)))
    job = case.jobs[0]
    ok = checks.empty_admission(job, case.capacity, case.length, case.prices)
    assert ok.holds and ok.details["eta"] == 1.0
    shifted = checks.empty_admission(job, case.capacity, case.length, _broken(ShiftedPrices, case.prices))
    assert not shifted.holds and not shifted.details["admitted"]  # lambda(0) = 1: never admitted
    literal = replace(case.prices, reading="literal")
    assert not checks.empty_admission(job, case.capacity, case.length, literal).holds  # eta > w_j

    def lazy(jobs, state, prices):
        return maxsche([], state, prices)

    assert not checks.empty_admission(job, case.capacity, case.length, case.prices, scheduler=lazy).holds


# ---------------------------------------------------------------- property 3: full slots


def test_full_slots_are_rejected_and_half_prices_or_usage_blind_scheduler_fail():
    touching = 0
    for seed in range(10):
        case = checks.window_instance(seed, n_servers=4, load=0.4, full=4)
        for job in case.jobs:
            c = checks.full_slot_rejected(job, case.state, case.prices)
            assert c.holds, c.summary()
            touching += c.details["touching"]
            if c.details["touching"]:
                assert c.details["condition"] and c.details["max_payoff_touching"] <= 0
                assert c.details["min_cost_touching"] >= c.details["two_TSUF1"] * (1 - 1e-9)
    assert touching > 50
    # 2TSUF_1 < w_j: prices alone no longer reject, but (9a)-(9b) still keep A_maxsche off full slots
    small = [checks.full_slot_rejected(j, c.state, c.prices)
             for c in (checks.window_instance(s, n_servers=4, load=0.4, full=4, F=0.25 / (2 * 16 * 4))
                       for s in range(10)) for j in c.jobs]
    assert all(c.holds for c in small)
    assert any(c.details.get("condition") is False and c.details["max_payoff_touching"] > 0 for c in small)
    # broken: half prices make a touching schedule cheaper than theta - 1
    case = next(c for c in (checks.window_instance(s, n_servers=4, load=0.4, full=4) for s in range(10))
                if checks.full_slot_rejected(c.jobs[0], c.state, c.prices).details["touching"])
    half = checks.full_slot_rejected(case.jobs[0], case.state, _broken(HalfPrices, case.prices))
    assert not half.holds and half.details["bound_violations"] > 0

    # broken: a scheduler blind to the usage places jobs on full slots
    def blind(jobs, state, prices):
        return maxsche(jobs, WindowState.empty(state.capacity, state.length), prices)

    verdicts = [checks.full_slot_rejected(j, c.state, c.prices, scheduler=blind)
                for c in (checks.window_instance(s, n_servers=4, load=0.4, full=6) for s in range(10))
                for j in c.jobs]
    assert any(v.details["admitted_touching"] and not v.holds for v in verdicts)


# ------------------------------------------------------------------- property 4: COST_C


def test_cost_c_equals_exhaustive_search_and_a_wrong_cost_c_fails():
    frame = checks.window_sample(range(12))
    claims = checks.fold(frame)
    for claim in claims.values():
        assert claim.holds, claim.summary()
    cc = frame[frame["claim"].str.contains("COST_C")]
    assert cc["feasible_cases"].sum() > 40
    first = cc[cc["claim"].str.contains("first_slot")]
    assert first["suboptimal"].sum() > 0  # the printed first-slot sort is not always cheapest
    # broken: the first-slot rule judged as the exact variant; a cost_c that overcharges
    bad_total = bad_cost = 0
    for seed in range(12):
        case = checks.window_instance(seed, n_servers=4, load=0.4, full=3)
        for job in case.jobs:
            def first_slot(j, n, st, p, order):
                return cost_c(j, n, st, p, order="first_slot")

            def overcharge(j, n, st, p, order):
                c = cost_c(j, n, st, p, order=order)
                return None if c is None else replace(c, cost=c.cost * 1.5 + 1e-3)

            bad_total += not checks.cost_c_exhaustive(job, case.state, case.prices, cost_fn=first_slot).holds
            got = checks.cost_c_exhaustive(job, case.state, case.prices, cost_fn=overcharge)
            bad_cost += not got.holds
            assert got.holds == (got.details["feasible_cases"] == 0)
    assert bad_total > 0 and bad_cost > 0
    # inside the rounds of real runs, against the state A_maxsche had when it reached each job
    rounds = checks.round_cost_c_sample([0, 1], family="tiny", n_edge=4, max_chunks=4, n_jobs=6)
    assert rounds["holds"].all() and rounds["feasible_cases"].sum() > 20


# --------------------------------------------------------------- properties 5-6: whole runs


def test_feasible_run_and_geometric_rounds_hold(runs):
    for (family, seed), (_, pol, res) in runs.items():
        ok = checks.feasible_run(res)
        assert ok.holds, (family, seed, ok.summary())
        assert ok.details["finished"] == len(res.jobs) and ok.details["strict_ready"] == len(res.jobs)
        rounds = checks.geometric_rounds(res, pol)
        assert rounds.holds, (family, seed, rounds.summary())
    frame = checks.run_sample(SEEDS, family="tiny")
    assert frame["holds"].all() and len(frame) == 2 * len(SEEDS)


def _job_rows(res, j):
    return res.allocations["job"] == j


def test_feasible_run_fails_on_corrupted_schedules(runs):
    wl, _, res = runs["tiny", 0]
    alloc = res.allocations
    long_job = int(res.jobs.loc[(res.jobs["completion_slot"] - res.jobs["start_slot"]).idxmax(), "job_id"])
    mine = alloc.index[_job_rows(res, long_job) & (alloc["role"] == "worker")]
    assert len(alloc.loc[mine, "slot"].unique()) >= 2
    # (2c)-(2d): one more worker in the last slot only
    last = alloc.loc[mine, "slot"].max()
    grown = alloc.copy()
    rows = mine[alloc.loc[mine, "slot"] == last]
    grown.loc[rows, "count"] += 1
    bad = checks.feasible_run(res, allocations=grown)
    assert not bad.holds
    # (2e) and (2j)-(2k): the last slot of the job is dropped
    cut = alloc.drop(alloc.index[_job_rows(res, long_job) & (alloc["slot"] == last)])
    assert not checks.feasible_run(res, allocations=cut).holds
    # (2i): the whole job moved to start right at its arrival (before a_j + Delta_js)
    j0 = int(res.jobs.iloc[0]["job_id"])
    shift = int(res.jobs.iloc[0]["start_slot"]) - wl.specs[j0].arrival
    early = alloc.copy()
    early.loc[_job_rows(res, j0), "slot"] -= shift
    jobs = res.jobs.copy()
    jobs.loc[jobs["job_id"] == j0, ["start_slot", "completion_slot"]] -= shift
    assert not checks.feasible_run(res, allocations=early, jobs=jobs).holds
    # completion after tau_(i+1): the job table claims an earlier round
    late = res.jobs.copy()
    late.loc[late["job_id"] == long_job, "tau"] = late.loc[late["job_id"] == long_job, "tau"] / 2
    assert not checks.feasible_run(res, jobs=late).holds


def test_geometric_rounds_fail_on_corrupted_records(runs):
    wl, pol, res = runs["tiny", 1]
    jobs = res.jobs.copy()
    jobs["first_considered"] = jobs["first_considered"] * 2
    assert not checks.geometric_rounds(res, pol, jobs=jobs).holds
    broken = AOnline.from_workload(wl)
    broken.rounds = list(pol.rounds)
    k = next(i for i, r in enumerate(pol.rounds) if r.considered)
    r = broken.rounds[k]
    broken.rounds[k] = RoundRecord(r.round, r.tau, r.window_end, r.considered[1:], r.admitted[1:] if
                                   r.admitted and r.admitted[0] == r.considered[0] else r.admitted,
                                   r.theta1, r.theta2, r.seconds)  # fmt: skip
    assert not checks.geometric_rounds(res, broken).holds
    broken.rounds = [replace(r, tau=r.tau + 1) if i == k else r for i, r in enumerate(pol.rounds)]
    assert not checks.geometric_rounds(res, broken).holds


# ------------------------------------------------------------------ property 7: the ratio


def test_milp_optimum_equals_brute_force_on_two_job_instances():
    for seed in range(4):
        wl = checks.instance(seed, n_jobs=2)
        milp = checks.milp_optimum(wl)
        brute = checks.brute_optimum(wl, horizon=milp["horizon"])
        assert milp["status"] == "optimal" and milp["objective"] == pytest.approx(brute["objective"])
        a = checks.ratio_point(wl)
        b = checks.ratio_point(wl, optimum=checks.brute_optimum)
        assert a["holds"] and b["holds"] and a["ratio"] == pytest.approx(b["ratio"]) and a["ratio"] >= 1
        assert a["framework"] <= a["alg"]


def test_ratio_is_at_least_one_and_a_wrong_optimum_fails():
    frame = checks.ratio_sample(SEEDS, family="tiny", n_jobs=3)
    claim = checks.ratio_claim(frame)
    assert claim.holds, claim.summary()
    assert claim.details["optimal"] == len(SEEDS) and claim.details["min_ratio"] >= 1
    wl = checks.instance(0, n_jobs=3)
    opt = checks.milp_optimum(wl)
    inflated = {**opt, "objective": 10 * opt["objective"] + 10, "bound": 10 * opt["objective"] + 10}
    bad = checks.ratio_point(wl, optimum=lambda _: inflated)
    assert not bad["holds"] and bad["ratio"] < 1
    assert not checks.ratio_claim(pd.DataFrame([bad])).holds
    with pytest.raises(ValueError, match="columns"):
        checks.ratio_claim(pd.DataFrame())
    rows = checks.ratio_run({"family": "aonline", "seed": 1, "sizes": {"n_jobs": 3}, "F": [1.0, 1e-4]})
    assert list(rows["F"]) == [1.0, 1e-4] and rows["holds"].all() and rows["opt"].nunique() == 1


# ---------------------------------------------------------------------------- folding


def test_fold_and_combine():
    a = checks.admission_sample([0, 1])
    b = checks.run_sample([0])
    table = checks.combine(a, b)
    claims = checks.fold(table)
    assert len(claims) == 3 and all(isinstance(c, Claim) for c in claims.values())
    broken = table.copy()
    broken.loc[0, "holds"] = False
    folded = checks.fold(broken)[table.loc[0, "claim"]]
    assert not folded.holds and folded.details["failures"] == 1
    with pytest.raises(ValueError):
        checks.fold(pd.DataFrame())
    with pytest.raises(ValueError):
        checks.combine()
    assert math.isfinite(checks.framework_bound(checks.instance(0)))
