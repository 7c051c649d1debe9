"""Tests of the seed-sampling checks added at the end of ``dlsched.oasis.checks`` (notebook
``11_oasis_proofs``): instances, loaded prices, fast path vs literal DP_COST, frontier vs exact,
Lemma 1 with discrete steps, dual feasibility (20), the Theorem 4 sample and the timing fits."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, Sigmoid, Workload
from dlsched.core.simulator import simulate
from dlsched.oasis import checks
from dlsched.oasis.offline import solve_offline
from dlsched.oasis.policy import OASiS, price_parameters

SMALL = {"n_jobs": 8, "n_servers": 3, "horizon": 4, "arrival_span": 3}


# ----------------------------------------------------------------------------- instances


def test_instance_families_and_bad_input():
    syn = checks.instance(1, **SMALL)
    assert syn.horizon == 4 and len(syn.jobs) == 8
    assert syn.jobs == checks.instance(1, **SMALL).jobs  # deterministic
    osc = checks.instance(0, family="oasis", n_jobs=5, T=6, H=2, K=1)
    assert osc.horizon == 6 and len(osc.cluster.servers_for("worker")) == 2
    with pytest.raises(ValueError, match="family"):
        checks.instance(0, family="philly")
    with pytest.raises(ValueError, match="horizon"):
        checks.instance(0, n_jobs=3)
    with pytest.raises(ValueError, match="seed"):
        checks.instance(-1, **SMALL)
    with pytest.raises(ValueError, match="seeds"):
        checks.theorem1_sample([], **SMALL)


def test_loaded_policy_holds_exactly_the_other_jobs():
    wl = checks.instance(2, n_jobs=8, n_servers=4, horizon=6, arrival_span=3)
    probe = wl.jobs[0]
    pol = checks.loaded_policy(wl, probe)
    assert probe.job_id not in pol.plans and set(pol.plans) <= {s.job_id for s in wl.jobs[1:]}
    # usage g equals the sum of the committed plans' worker demands
    g = np.zeros_like(pol.g)
    wpos = {int(s): i for i, s in enumerate(pol._wsrv)}
    for j, plan in pol.plans.items():
        w = wl.cluster.vector(wl.specs[j].worker_demand)
        for t, p in plan.items():
            for s, n in p.workers:
                g[t, wpos[s]] += n * w
    np.testing.assert_allclose(pol.g, g)
    lone = checks.instance(0, n_jobs=1, n_servers=2, horizon=4, arrival_span=1)
    empty = checks.loaded_policy(lone, lone.jobs[0])  # nothing else to load: zero usage, prices L
    assert not empty.g.any() and checks.fast_path_matches_literal(empty, lone.jobs[0]).holds
    stranger = replace(probe, job_id=99)
    with pytest.raises(ValueError, match="not in the workload"):
        checks.loaded_policy(wl, stranger)


# ----------------------------------------------------------------------------- Algorithm 2


@pytest.mark.parametrize("seed", range(4))
def test_fast_path_literal_and_frontier_hold(seed):
    wl = checks.instance(seed, n_jobs=10, n_servers=4, horizon=8, arrival_span=3)
    for probe in wl.jobs[:4]:
        pol = checks.loaded_policy(wl, probe)
        lit = checks.fast_path_matches_literal(pol, probe)
        assert lit.require().details["completion_slots"] == 8 - probe.arrival
        assert checks.frontier_matches_exact(pol, probe).require()


def test_fast_path_and_frontier_checks_can_fail(monkeypatch):
    wl = checks.instance(1, n_jobs=8, n_servers=3, horizon=5, arrival_span=2)
    probe = wl.jobs[0]
    pol = checks.loaded_policy(wl, probe)
    honest = checks._search

    def skewed(p, spec, method, prune):
        best = honest(p, spec, method, prune)
        if method == "frontier" and best.costs_by_completion is not None:
            return replace(best, costs_by_completion=best.costs_by_completion * 1.01)
        return best

    monkeypatch.setattr(checks, "_search", skewed)
    assert checks.fast_path_matches_literal(pol, probe).holds  # exact path untouched
    bad = checks.frontier_matches_exact(pol, probe)
    assert not bad.holds and "costs" in bad.details["failed"]

    def wrong_exact(p, spec, method, prune):
        best = honest(p, spec, method, prune)
        return replace(best, costs_by_completion=best.costs_by_completion + 1.0)

    monkeypatch.setattr(checks, "_search", wrong_exact)
    lit = checks.fast_path_matches_literal(pol, probe)
    assert not lit.holds and lit.details["cost_mismatches"]


def test_theorem1_sample_and_sample_claims():
    df = checks.theorem1_sample([0, 1], **SMALL)
    assert len(df) == 2 * 8 * 5
    assert set(df["check"]) == {"cost_t", "dp_cost", "alg2", "literal", "frontier"}
    assert df["holds"].all()
    claims = checks.sample_claims(df)
    assert len(claims) == 5 and all(c.holds for c in claims.values())
    assert all(c.details["checked"] == 16 for c in claims.values())
    # brute force really enumerated something
    assert df.loc[df["check"] == "dp_cost", "compositions"].sum() > 100
    # a single failing row makes the folded claim fail and is reported
    tampered = df.copy()
    tampered.loc[3, "holds"] = False
    folded = checks.sample_claims(tampered)[tampered.loc[3, "claim"]]
    assert not folded.holds and folded.details["failures"] == 1
    assert folded.details["first_failure"] == tampered.loc[3, "summary"]
    with pytest.raises(ValueError, match="which"):
        checks.theorem1_sample([0], which=("nope",), **SMALL)
    with pytest.raises(ValueError, match="missing columns"):
        checks.sample_claims(df.drop(columns="summary"))


def test_price_and_appendix_a_samples():
    ps = checks.price_sample([0, 1], family="oasis", n_jobs=8, T=8, H=2, K=2)
    assert len(ps) == 2 * 3 and ps["holds"].all()
    wl = checks.instance(1, family="oasis", n_jobs=8, T=8, H=2, K=2)
    assert ps.loc[ps["seed"] == 1, "alpha"].iloc[0] == pytest.approx(price_parameters(wl).alpha)
    aa = checks.appendix_a_sample([0, 1, 2], n_jobs=6, n_servers=3, horizon=5)
    assert aa["holds"].all()
    zero = aa[aa["claim"].str.contains("zero usage")]
    assert (zero["min_payoff_over_utility"] > 0).all() and (zero["min_payoff_over_utility"] <= 1).all()


# ----------------------------------------------------------------------------- Lemma 1


def test_lemma1_frame_hand_computed():
    """One job on an empty 1+1 cluster: one worker (1 of 2 GPUs) and one PS (1 of 2 CPUs) in slot 0,
    so x = 1/2 on both; dual increment = mu + (P(1/2) - L1) * 2 + (Q(1/2) - L2) * 2."""
    cluster = Cluster.two_pools(1, 1, {"gpu": 2}, {"cpu": 2})
    m = OasisModel(epochs=1, chunks=2, minibatches=5, tau=0.1, comm=0.0)
    spec = JobSpec(0, 0, m, {"gpu": 1}, {"cpu": 1}, utility=Sigmoid(10.0, 1.0, 2.0))
    wl = Workload(cluster, (spec,), horizon=3)
    pol = OASiS.from_workload(wl)
    simulate(wl, pol, seed=0)
    df = checks.lemma1_frame(pol, wl)
    assert len(df) == 1
    row = df.iloc[0]
    p = pol._params
    gpu, cpu = cluster.resources.index("gpu"), cluster.resources.index("cpu")
    a1 = float(p.log_u1[gpu] - p.log_l1)
    a2 = float(p.log_u2[cpu] - p.log_l2)
    mu = float(spec.utility(0)) - p.l1 - p.l2
    dual = mu + 2 * (p.l1 * math.exp(a1 / 2) - p.l1) + 2 * (p.l2 * math.exp(a2 / 2) - p.l2)
    assert row["primal"] == pytest.approx(float(spec.utility(0)))
    assert row["dual"] == pytest.approx(dual, rel=1e-9)
    assert row["max_share"] == pytest.approx(0.5)
    assert row["kappa"] == pytest.approx(max(1.0, math.expm1(a1 / 2) / 0.5, math.expm1(a2 / 2) / 0.5))
    assert row["premise_ratio"] == pytest.approx(row["dual"] / (row["alpha"] * row["primal"]))
    assert bool(row["within_kappa"])


@pytest.mark.parametrize(
    ("family", "sizes"),
    [
        ("synthetic", {"n_jobs": 12, "n_servers": 4, "horizon": 8}),
        ("oasis", {"n_jobs": 20, "T": 20, "H": 3, "K": 3}),
    ],
)
def test_discrete_lemma1_and_count_consistency(family, sizes):
    seeds = range(4)
    runs = checks.run_sample(seeds, family=family, **sizes)
    inc = checks.increments_sample(seeds, family=family, **sizes)
    claims = checks.sample_claims(runs)
    for name, c in claims.items():
        if not name.startswith("OASiS Lemma 1:"):  # the premise itself may fail (w not << c)
            assert c.holds, c.summary()
    assert inc["within_kappa"].all()
    assert (inc.loc[~inc["premise_holds"], "kappa"] > inc.loc[~inc["premise_holds"], "alpha"]).all()
    assert checks.lemma1_consistency(runs, inc).require()
    fewer = inc[inc["seed"] != 0]
    if (runs.loc[runs["seed"] == 0, "n_admitted"] > 0).any():
        assert not checks.lemma1_consistency(runs, fewer).holds
    with pytest.raises(ValueError, match="missing columns"):
        checks.lemma1_consistency(runs, inc.drop(columns="premise_holds"))


# ----------------------------------------------------------------------------- duality, Theorem 4


def test_dual_feasibility_own_schedules_hold_and_a_known_violation():
    # OASiS's own schedules satisfy (20): mu_i = f - cost at arrival prices >= f - cost at final prices
    wl = checks.instance(27, n_jobs=6, n_servers=4, horizon=6, arrival_span=3)
    pol = OASiS.from_workload(wl)
    res = simulate(wl, pol, seed=27)
    own = checks.dual_feasibility(pol, wl, res.allocations)
    assert own.require().details["schedules"] == int(res.jobs["admitted"].sum())
    # the optimum runs job 2 with 2 workers (all 4 GPUs of server 0) in slot 0, where OASiS left the
    # price at P(2 of 4 GPUs) << U: (20) fails for job 2 although its payoff is 48.7 (coarse workers)
    opt = solve_offline(wl)
    bad = checks.dual_feasibility(pol, wl, opt.allocations)
    assert not bad.holds and bad.details["violations"] == [2] and bad.details["max_excess"] > 1.0
    with pytest.raises(ValueError, match="missing columns"):
        checks.dual_feasibility(pol, wl, res.allocations.drop(columns="role"))


def test_ratio_sample_columns_and_relations():
    df = checks.ratio_sample([0, 1, 2], n_jobs=4, n_servers=4, horizon=5, arrival_span=2, time_limit=20)
    assert len(df) == 3 and (df["family"] == "synthetic").all()
    live = df[~df["vacuous"]]
    np.testing.assert_allclose(live["ratio"], live["opt"] / live["alg"])
    assert (df["two_alpha"] == 2 * df["alpha"]).all()
    assert (df["holds"] == (df["ratio"] <= df["two_alpha"])).all()
    assert (df["ratio_upper"] >= df["ratio_best"] - 1e-12).all()  # sum f_i(0) >= OPT >= ALG
    assert (df["beta"] >= df["alpha"]).all() and (df["kappa"] >= df["beta"] * (1 - 1e-9)).all()
    assert (df["alg_planned"] <= df["alg"] + 1e-9).all()  # finishing by the plan: realized >= planned
    again = checks.ratio_point(
        {"seed": 1, "n_jobs": 4, "n_servers": 4, "horizon": 5, "arrival_span": 2, "time_limit": 20}
    )
    pd.testing.assert_frame_equal(again, df.iloc[[1]].reset_index(drop=True))
    claims = checks.ratio_claims(df)
    assert claims["theorem4"].holds and claims["chain"].holds and claims["witness"].holds
    with pytest.raises(ValueError, match="seed"):
        checks.ratio_point({"n_jobs": 4})


def test_ratio_sample_vacuous_instance():
    """Sec. V-A jobs on 2+1 servers with T = 10: in seed 2 no job can finish, OPT = ALG = 0."""
    df = checks.ratio_sample([2], family="oasis", n_jobs=10, T=10, H=2, K=1, time_limit=20)
    row = df.iloc[0]
    assert row["vacuous"] and math.isnan(row["ratio"]) and row["holds"]
    assert row["opt"] == 0.0 and row["alg"] == 0.0


def _frame(**over):
    base = {
        "seed": [0, 1],
        "ratio": [1.0, 5.0],
        "ratio_upper": [1.0, 5.0],
        "two_alpha": [4.0, 4.0],
        "alpha": [2.0, 2.0],
        "beta": [2.0, 9.0],
        "vacuous": [False, False],
        "dual_ge_opt": [True, True],
        "dual0_le_half_opt": [True, True],
        "opt_below_alg": [False, False],
        "holds": [True, False],
        "opt_schedules_dual_feasible": [True, True],
        "dual_excess": [0.0, 0.0],
    }
    base.update(over)
    return pd.DataFrame(base)


def test_ratio_claims_logic():
    c = checks.ratio_claims(_frame())
    assert not c["theorem4"].holds and c["theorem4"].details["violating_seeds"] == [1]
    assert c["explained"].holds and c["chain"].holds  # 5 <= 2 * beta = 18
    c = checks.ratio_claims(_frame(beta=[2.0, 2.0]))  # violation with every link intact: impossible
    assert not c["explained"].holds and not c["chain"].holds
    c = checks.ratio_claims(_frame(dual_ge_opt=[True, False]))  # D_I < OPT without a (20) witness
    assert not c["witness"].holds and not c["dual_ge_opt"].holds
    with pytest.raises(ValueError, match="missing columns"):
        checks.ratio_claims(_frame().drop(columns="beta"))


# ----------------------------------------------------------------------------- Theorem 3


def test_decision_times_by_method_and_slopes():
    df = checks.decision_times_by_method(
        np.random.default_rng(0), horizons=(4, 6), workloads=(10, 20), n_servers=2, repeats=1
    )
    assert len(df) == 2 * 2 * len(checks.DECISION_METHODS)
    assert set(df["method"]) == set(checks.DECISION_METHODS) and (df["seconds"] > 0).all()
    with pytest.raises(ValueError, match="methods"):
        checks.decision_times_by_method(np.random.default_rng(0), methods=("quadratic",))
    with pytest.raises(ValueError, match="horizons"):
        checks.decision_times_by_method(np.random.default_rng(0), horizons=(0,))
    # exact power law: seconds = 3e-6 T^1 NE^2 -> slopes 1 and 2
    pts = [(T, ne) for T in (10, 20, 40) for ne in (50, 100)]
    grid = pd.DataFrame([{"T": T, "NE": ne, "seconds": 3e-6 * T * ne**2} for T, ne in pts])
    slopes = checks.loglog_slopes(grid, by=None)
    assert slopes.loc[0, "slope_T"] == pytest.approx(1.0) and slopes.loc[0, "slope_NE"] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="points"):
        checks.loglog_slopes(grid.head(2), by=None)
    with pytest.raises(ValueError, match="> 0"):
        checks.loglog_slopes(grid.assign(seconds=0.0), by=None)


def test_combine_samples():
    a = pd.DataFrame({"x": [1], "y": [2]})
    out = checks.combine_samples(a, a[["y", "x"]])
    assert list(out.columns) == ["x", "y"] and len(out) == 2 and out["x"].tolist() == [1, 1]
    mixed = checks.combine_samples(a, pd.DataFrame({"x": [3], "z": [4]}))
    assert list(mixed.columns) == ["x", "y", "z"] and mixed["y"].isna().tolist() == [False, True]
    with pytest.raises(ValueError, match="at least one"):
        checks.combine_samples()
    with pytest.raises(TypeError, match="DataFrame"):
        checks.combine_samples(a, [1, 2])
