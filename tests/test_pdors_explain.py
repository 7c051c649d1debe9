"""Tests of the tables behind notebook 30_pdors_model (dlsched.pdors.explain), against hand-computed
values where there are some (Fact 1 rates, offered work, price function endpoints)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, PdorsModel, Sigmoid, Workload
from dlsched.core.schedule import Placement
from dlsched.core.simulator import simulate
from dlsched.pdors import explain
from dlsched.pdors.model import pdors_workload, sync_slots
from dlsched.pdors.policy import PDORS, PdorsPrices, price_parameters

SLOT = 3600.0
SIZES = {"n_jobs": 8, "n_machines": 4, "T": 8}


def example_spec(ratio: float = 2.0) -> JobSpec:
    """E=100, K=1e5, F=128, tau=0.05 ms, g=200 MB, b_e=10, b_i=126 Gbps, 1-hour slots."""
    model = PdorsModel(epochs=100, samples=100_000, batch=128, tau=0.05e-3 / SLOT,
                       sync_internal=float(sync_slots(200.0, 126.0, SLOT)),
                       sync_external=float(sync_slots(200.0, 10.0, SLOT)), ratio=ratio)
    return JobSpec(0, 0, model, {"gpu": 1, "cpu": 4}, {"cpu": 4}, utility=Sigmoid(50.0, 0.5, 5.0))


@pytest.fixture(scope="module")
def small():
    """A PD-ORS workload of the paper's ranges, its policy after a run, and the result."""
    wl = pdors_workload(np.random.default_rng(1), **SIZES)
    pol = PDORS.from_workload(wl)
    return wl, pol, simulate(wl, pol, seed=1)


# ----------------------------------------------------------------------------- Sec. 2, Fact 1


def test_fact1_cases_only_d_is_internal():
    cases = explain.fact1_placements(8, 4)
    assert list(cases) == ["(a) W={0,1}, P={2,3}", "(b) W=P={0,1}", "(c) W={0}, P={1}", "(d) W=P={0}"]
    assert [p.colocated for p in cases.values()] == [False, False, False, True]
    assert all(p.n_workers == 8 and p.n_ps == 4 for p in cases.values())
    with pytest.raises(ValueError, match="workers"):
        explain.fact1_placements(1, 4)
    with pytest.raises(ValueError, match="ps"):
        explain.fact1_placements(4, True)


def test_rate_table_matches_hand_computation():
    spec = example_spec()
    table = explain.rate_table(spec, explain.fact1_placements(8, 4), SLOT).set_index("case")
    # 2g/b(e) = 2 * 200 MB * 8 / 10 Gbps = 0.32 s; per sample (w/s) * 0.32 / F = 2 * 0.32 / 128 = 5 ms
    ext = 0.05 + 2 * 320.0 / 128
    internal = 0.05 + 2 * 320.0 * 10 / 126 / 128
    assert table["sample_ms"].iloc[:3].to_numpy() == pytest.approx([ext] * 3)
    assert table.loc["(d) W=P={0}", "sample_ms"] == pytest.approx(internal)
    assert table.loc["(d) W=P={0}", "samples_per_slot"] == pytest.approx(8 / (internal / 1e3) * SLOT)
    assert table.loc["(a) W={0,1}, P={2,3}", "slots_for_job"] == pytest.approx(1e7 / (8 / (ext / 1e3) * SLOT))
    assert list(table["bandwidth"]) == ["external"] * 3 + ["internal"]
    assert table["worker_machines"].to_list() == table["ps_machines"].to_list() == [2, 2, 1, 1]
    assert (table["violations"] == "").all()


def test_rate_table_flags_constraint_4_and_the_ratio():
    spec = example_spec()
    bad = {"F": Placement.of({0: 65, 1: 65}, {2: 65}), "ratio": Placement.of({0: 8}, {0: 3}),
           "none": Placement.of({0: 4})}
    table = explain.rate_table(spec, bad, SLOT).set_index("case")
    assert table.loc["F", "violations"] == "max_workers"
    assert table.loc["ratio", "violations"] == "ps_ratio"
    assert table.loc["none", "samples_per_slot"] == 0 and math.isinf(table.loc["none", "slots_for_job"])
    with pytest.raises(ValueError, match="slot_seconds"):
        explain.rate_table(spec, bad, 0.0)
    with pytest.raises(ValueError, match="PdorsModel"):
        explain.rate_table("job", bad, SLOT)


# ----------------------------------------------------------------------------- the workload


def test_choices_and_job_frame(small):
    wl, _, _ = small
    choices = explain.choices_table(wl).set_index("parameter")
    assert choices.loc["epochs", "source"] == "paper" and choices.loc["b_external_gbps", "source"] == "ours"
    assert choices.loc["tau", "value"].endswith("(seconds)")
    jobs = explain.job_frame(wl)
    assert len(jobs) == SIZES["n_jobs"] and (jobs["d_min"] >= 1).all()
    assert (jobs["sync_i_s"] <= jobs["sync_e_s"]).all()
    with pytest.raises(ValueError, match="params"):
        explain.choices_table(Workload(wl.cluster, wl.jobs, horizon=8))


def test_duration_summary_and_frame_agree():
    many = {r: pdors_workload(np.random.default_rng(0), n_jobs=60, n_machines=4, T=20, reading=r)
            for r in ("seconds", "slots")}
    summary = explain.duration_summary(many, horizons=[1, 20])
    frame = explain.duration_frame(many)
    for reading in many:
        d = frame.loc[frame["reading"] == reading, "d_min"].to_numpy()
        assert len(d) == 60
        assert summary.loc[reading, "p50"] == pytest.approx(np.percentile(d, 50))
        assert summary.loc[reading, "within_T20"] == pytest.approx(np.mean(d <= 20))
    # the same jobs, tau 3600 times larger: never shorter
    seconds, slots = (frame.loc[frame["reading"] == r, "d_min"].to_numpy() for r in ("seconds", "slots"))
    assert np.all(slots >= seconds)


def test_offered_work_by_hand():
    cluster = Cluster.homogeneous(2, {"gpu": 4, "cpu": 10})
    model = PdorsModel(epochs=1, samples=100, batch=10, tau=0.01, sync_internal=0.0, sync_external=0.1,
                       ratio=2.0)
    spec = JobSpec(0, 0, model, {"gpu": 1, "cpu": 2}, {"cpu": 4})
    wl = Workload(cluster, (spec,), horizon=5)
    out = explain.offered_work(wl)
    # W = 100 * 0.01 = 1 worker-slot, 0.5 PS-slots: gpu 1, cpu 2 + 2; capacity 5 slots * (8, 20)
    assert out.loc["gpu"].to_list() == pytest.approx([1.0, 40.0, 1 / 40])
    assert out.loc["cpu"].to_list() == pytest.approx([4.0, 100.0, 0.04])
    assert explain.offered_work(wl, n_jobs=3, horizon=10).loc["gpu", "ratio"] == pytest.approx(3 / 80)
    with pytest.raises(ValueError, match="horizon"):
        explain.offered_work(Workload(cluster, (spec,)))


def test_reading_comparison_runs_both_readings():
    runs = explain.reading_comparison([0], n_jobs=4, n_machines=3, T=6)
    assert list(runs["reading"]) == ["seconds", "slots"]
    assert (runs["finished"] <= runs["admitted"]).all()
    assert (runs["total_utility"] >= 0).all()
    again = explain.reading_comparison([0], n_jobs=4, n_machines=3, T=6)
    pd.testing.assert_frame_equal(runs.drop(columns="wall_seconds"), again.drop(columns="wall_seconds"))


# ----------------------------------------------------------------------------- prices


def test_price_summary_and_curve_endpoints(small):
    wl, _, _ = small
    prices = price_parameters(wl)
    res = wl.cluster.resources
    summary = explain.price_summary(prices, res)
    for r, row in summary.iterrows():
        k = res.index(r)
        assert row["U"] == pytest.approx(prices.upper[k])
        if not math.isnan(row["rho_at_1"]):  # Q(rho_at_1 * C) = 1
            assert math.exp(prices.log_l + row["rho_at_1"] * row["ln_U_over_L"]) == pytest.approx(1.0)
    curve = explain.q_curve(prices, res, points=11)
    for k, r in enumerate(res):
        part = curve[curve["resource"] == r]
        assert part["Q"].iloc[0] == pytest.approx(prices.lower, rel=1e-9)
        assert part["Q"].iloc[-1] == pytest.approx(prices.upper[k], rel=1e-9)
        assert np.all(np.diff(part["log10_Q"]) >= 0)
    with pytest.raises(ValueError, match="resources"):
        explain.price_summary(prices, res[:2])


def test_price_at_one_is_nan_when_never_reached():
    prices = PdorsPrices(np.array([-1.0, 2.0]), -3.0)
    out = explain.price_summary(prices, ["a", "b"])
    assert math.isnan(out.loc["a", "rho_at_1"]) and out.loc["b", "rho_at_1"] == pytest.approx(0.6)


# ----------------------------------------------------------------------------- Algorithms 2-4


def test_state_before_reproduces_the_run(small):
    wl, _, result = small
    probe = explain.pick_probe(result)
    row = result.jobs.set_index("job_id").loc[probe]
    assert row["admitted"]
    before = explain.state_before(wl, probe, seed=1)
    best = before.search(wl.specs[probe], prune=False)
    assert best.completion == row["planned_completion"]
    assert best.payoff == pytest.approx(row["payoff"], rel=1e-12)
    first = wl.jobs[0].job_id
    assert not explain.state_before(wl, first, seed=1).plans  # nothing decided before the first job
    with pytest.raises(ValueError, match="job_id"):
        explain.state_before(wl, 999)


def test_pick_probe_prefers_long_then_late(small):
    _, _, result = small
    jobs = result.jobs
    adm = jobs[jobs["admitted"]]
    span = adm["planned_completion"] - adm["arrival"]
    probe = explain.pick_probe(result)
    chosen = adm.set_index("job_id").loc[probe]
    assert chosen["planned_completion"] - chosen["arrival"] == span.max()
    assert chosen["arrival"] == adm.loc[span == span.max(), "arrival"].max()
    none = type("R", (), {"jobs": jobs.assign(admitted=False)})()
    with pytest.raises(ValueError, match="admitted"):
        explain.pick_probe(none)


def test_completion_and_schedule_tables(small):
    wl, _, result = small
    probe = explain.pick_probe(result)
    spec = wl.specs[probe]
    best = explain.state_before(wl, probe, seed=1).search(spec, prune=False)
    frame = explain.completion_frame(spec, best)
    assert frame["chosen"].sum() == 1
    k = int(np.flatnonzero(frame["chosen"])[0])
    assert frame["payoff"].iloc[k] == pytest.approx(best.payoff)
    finite = np.isfinite(frame["payoff"])
    assert frame.loc[finite, "payoff"].max() == pytest.approx(best.payoff)
    sched = explain.schedule_table(best)
    assert sched["units"].sum() == best.n_units
    assert sched["samples"].sum() >= spec.model.total_work
    assert set(sched["branch"]) <= {"internal", "external"}


def test_theta_table_is_the_cheaper_branch(small):
    wl, _, result = small
    probe = explain.pick_probe(result)
    before = explain.state_before(wl, probe, seed=1)
    spec = wl.specs[probe]
    job = before.job(spec)
    theta = before.slot_theta(job, spec.arrival, skip_dominated=False)
    table = explain.theta_table(theta, job, delta=before.delta, variant=before.g_delta)
    assert np.array_equal(table["theta"], np.fmin(table["internal"], table["external"]))
    ok = np.isfinite(table["lp"])
    assert np.allclose(table.loc[ok, "G_lp"], table.loc[ok, "G_delta"] * table.loc[ok, "lp"])
    assert (table["G_delta"].iloc[1:] > 1).all() and math.isnan(table["G_delta"].iloc[0])
    # a feasible rounded sample is an LP point: never cheaper than LP*
    both = np.isfinite(table["external"])
    assert (table.loc[both, "external"] >= table.loc[both, "lp"] * (1 - 1e-9)).all()


def test_external_detail_scales_the_lp(small):
    wl, _, _ = small
    pol = PDORS.from_workload(wl).prepare(wl.cluster, wl.horizon)
    spec = max(wl.jobs, key=lambda s: s.model.batch)
    detail = explain.external_detail(pol, spec, spec.arrival, 1)
    assert len(detail) > 0
    assert (detail["share_lp"] <= 1 + 1e-7).all()
    factor = detail["w_scaled"].sum() / detail["w_lp"].sum()
    assert detail["share_scaled"].to_numpy() == pytest.approx(factor * detail["share_lp"].to_numpy())
    assert (detail["share_floor"] <= detail["share_scaled"] + 1e-12).all()


# ----------------------------------------------------------------------------- bandwidth


def test_with_external_bandwidth_scales_sync():
    spec = example_spec()
    same = explain.with_external_bandwidth(spec, 10.0, b_reference_gbps=10.0, slot_seconds=SLOT)
    assert same.model.sync_external == pytest.approx(spec.model.sync_external)
    half = explain.with_external_bandwidth(spec, 20.0, b_reference_gbps=10.0, slot_seconds=SLOT)
    assert half.model.sync_external == pytest.approx(spec.model.sync_external / 2)
    assert half.model.sync_internal == spec.model.sync_internal and half.job_id == spec.job_id
    with pytest.raises(ValueError, match="internal bus"):
        explain.with_external_bandwidth(spec, 200.0, b_reference_gbps=10.0, slot_seconds=SLOT)
    with pytest.raises(ValueError, match="> 0"):
        explain.with_external_bandwidth(spec, 0.0, b_reference_gbps=10.0, slot_seconds=SLOT)


def test_bandwidth_sweep_and_summary(small):
    wl, _, _ = small
    pol = PDORS.from_workload(wl).prepare(wl.cluster, wl.horizon)
    spec = wl.jobs[0]
    sweep = explain.bandwidth_sweep(pol, spec, spec.arrival, [2.0, 10.0, 100.0], b_reference_gbps=10.0)
    per_b = sweep.groupby("b_external")
    assert per_b["v"].count().nunique() == 1  # the same levels at every bandwidth
    internal = sweep.pivot(index="v", columns="b_external", values="internal")
    assert np.array_equal(internal[2.0], internal[100.0])  # the internal branch ignores b(e)
    lp = sweep.pivot(index="v", columns="b_external", values="lp")
    both = np.isfinite(lp[2.0]) & np.isfinite(lp[100.0])
    assert (lp.loc[both, 100.0] <= lp.loc[both, 2.0] * (1 + 1e-9)).all()  # faster link, fewer workers
    summary = explain.branch_summary(sweep)
    levels = sweep.groupby("b_external")["v"].count()
    assert (summary[["internal", "external", "none"]].sum(axis=1) == levels).all()
    assert (summary["vmax_lp"].diff().dropna() >= 0).all()


# ----------------------------------------------------------------------------- a run


def test_run_summary_and_timeline(small):
    wl, _, result = small
    summary = explain.run_summary(result)
    assert summary["admitted"] + summary["rejected"] == summary["jobs"] == SIZES["n_jobs"]
    assert summary["total_utility"] == pytest.approx(result.jobs["utility"].sum())
    timeline = explain.colocation_timeline(result)
    running = result.allocations.groupby(["slot", "job"]).ngroups
    assert timeline["on_one_machine"].sum() + timeline["split"].sum() == running
    assert timeline["slot"].is_monotonic_increasing


def test_rejected_alone_lists_every_rejected_job(small):
    wl, _, result = small
    table = explain.rejected_alone(result, seed=1)
    rejected = result.jobs.loc[result.jobs["status"] == "rejected", "job_id"].to_list()
    assert table["job"].to_list() == rejected
    assert (table["payoff_alone"] >= 0).all()
    assert ((table["units_internal"] >= 0) & (table["units_external"] >= 0)).all()
