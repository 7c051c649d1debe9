"""Tables of dlsched.oasis.explain: values on hand-made jobs, schedules and price parameters, and
consistency with the policy, the simulator and the independent checker on small instances."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dlsched import registry
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, Sigmoid
from dlsched.core.schedule import Placement, ScheduleViolation, check_allocations
from dlsched.core.simulator import simulate
from dlsched.oasis import explain
from dlsched.oasis.model import min_durations, unschedulable_fraction
from dlsched.oasis.policy import INF, BestSchedule, OASiS, PriceParameters, price_parameters

# ----------------------------------------------------------------------------- hand-made instance


def _cluster() -> Cluster:
    return Cluster.two_pools(
        2, 1, {"gpu": 4, "cpu": 64, "mem": 488, "storage": 1000, "bandwidth": 25},
        {"cpu": 36, "mem": 60, "storage": 1000, "bandwidth": 25},
    )  # fmt: skip


def _job(arrival: int = 2) -> JobSpec:
    model = OasisModel(epochs=100, chunks=20, minibatches=21, tau=1.0 / 3600,
                       comm=241 * 8 / 2000 / 3600, worker_bw=2.0, ps_bw=10.0)  # fmt: skip
    return JobSpec(
        0,
        arrival,
        model,
        {"gpu": 1, "cpu": 8, "mem": 16, "storage": 5, "bandwidth": 2.0},
        {"cpu": 4, "mem": 16, "storage": 5, "bandwidth": 10.0},
        utility=Sigmoid(50.0, 0.5, 5.0),
    )


def _small(seed: int = 0, n_jobs: int = 16, T: int = 16):
    return registry.make_workload("oasis", seed=seed, n_jobs=n_jobs, T=T, H=4, K=4)


# ----------------------------------------------------------------------------- Sec. III tables


def test_timing_table_values():
    job, cluster = _job(), _cluster()
    m = job.model
    tab = explain.timing_table(job, cluster, [1, 5, 20, 21])
    assert list(tab.columns) == ["workers", "ps", "rate", "slots_to_finish", "violations"]
    assert tab["ps"].tolist() == [1, 1, 4, 5]  # ceil(y * 2 / 10)
    np.testing.assert_allclose(tab["rate"], tab["workers"] / m.minibatch_time)
    np.testing.assert_allclose(tab["slots_to_finish"] * tab["rate"], m.total_work)
    assert tab["violations"].tolist() == ["", "", "", "max_workers"]  # (3): N_i = 20


@pytest.mark.parametrize("bad", [[0], [2.5], [True]])
def test_timing_table_rejects_bad_counts(bad):
    with pytest.raises(ValueError, match="workers"):
        explain.timing_table(_job(), _cluster(), bad)


def test_fits_per_server_binding_resources():
    tab = explain.fits_per_server(_cluster(), _job())
    assert tab["role"].tolist() == ["worker", "worker", "ps"]
    assert tab["fits"].tolist() == [4, 4, 2]  # 4 GPUs / 1; min(36/4, 60/16, 25/10) = 2
    assert tab["binding"].tolist() == ["gpu", "gpu", "bandwidth"]


@pytest.mark.parametrize(
    ("workers", "ps", "slot", "expected"),
    [
        ({0: 4, 1: 4}, {2: 2}, 2, []),
        ({0: 5}, {2: 1}, 2, ["worker_capacity"]),
        ({0: 4, 1: 4}, {2: 1}, 2, ["ps_bandwidth"]),
        ({0: 1}, {2: 2}, 2, ["ps_count"]),
        ({0: 4, 1: 4}, {2: 2}, 1, ["arrival"]),
        ({0: 4}, {0: 1}, 2, ["role"]),
        ({0: 2}, {2: 3}, 2, ["ps_count", "ps_capacity"]),
    ],
)
def test_constraint_report_names_each_violation(workers, ps, slot, expected):
    cluster, job = _cluster(), _job()
    rep = explain.constraint_report(cluster, job, Placement.of(workers, ps), slot)
    assert rep["constraint"].tolist() == expected
    assert rep["equation"].tolist() == [explain.CONSTRAINT_EQUATIONS[c] for c in expected]


@settings(max_examples=60, deadline=None)
@given(
    w0=st.integers(0, 6), w1=st.integers(0, 6), z=st.integers(0, 4),
    wrong_pool=st.booleans(), slot=st.integers(0, 4),
)  # fmt: skip
def test_constraint_report_agrees_with_checker(w0, w1, z, wrong_pool, slot):
    """An empty report <=> the simulator's independent checker accepts the placement."""
    cluster, job = _cluster(), _job()
    placement = Placement.of({0: w0, 1: w1}, {0 if wrong_pool else 2: z})
    rep = explain.constraint_report(cluster, job, placement, slot)
    try:
        check_allocations(cluster, {0: job}, slot, {0: placement})
        accepted = True
    except ScheduleViolation:
        accepted = False
    assert accepted == rep.empty, rep


def test_constraint_report_bad_input():
    with pytest.raises(TypeError, match="placement"):
        explain.constraint_report(_cluster(), _job(), {0: 1}, 2)
    with pytest.raises(ValueError, match="slot"):
        explain.constraint_report(_cluster(), _job(), Placement.of({0: 1}, {2: 1}), -1)
    with pytest.raises(ValueError, match="n_servers"):
        explain.constraint_report(_cluster(), _job(), Placement.of({7: 1}, {2: 1}), 2)


# ----------------------------------------------------------------------------- Sec. V-A tables


def test_jobs_table_matches_workload():
    wl = _small()
    tab = explain.jobs_table(wl)
    assert len(tab) == len(wl.jobs)
    assert tab["job"].tolist() == [s.job_id for s in wl.jobs]
    assert tab["d_min"].tolist() == min_durations(wl).tolist()
    np.testing.assert_allclose(tab["minibatch_s"], tab["tau_s"] + 2 * tab["e_over_b_s"])
    assert set(tab["utility_class"]) <= {"time-insensitive", "time-sensitive", "time-critical"}
    assert (tab.loc[tab["utility_class"] == "time-insensitive", "gamma2"] == 0).all()


def test_utility_curves_values_and_per_class():
    wl = _small()
    cur = explain.utility_curves(wl, horizon=10)
    assert len(cur) == 11 * len(wl.jobs)
    for s in wl.jobs[:3]:
        got = cur.loc[cur["job"] == s.job_id, "utility"].to_numpy()
        np.testing.assert_allclose(got, s.utility(np.arange(11)))
    assert (cur.groupby("job")["utility"].diff().dropna() <= 1e-12).all()  # non-increasing
    one = explain.utility_curves(wl, horizon=5, per_class=1)
    assert one.groupby("utility_class")["job"].nunique().max() == 1
    with pytest.raises(ValueError, match="per_class"):
        explain.utility_curves(wl, per_class=0)


def test_reading_table_matches_unschedulable_fraction():
    params = {"n_jobs": 30, "T": 30, "H": 4, "K": 4}
    tab = explain.reading_table(3, **params)
    assert tab.index.tolist() == ["seconds", "literal"]
    wl = registry.make_workload("oasis", seed=3, reading="literal", **params)
    uf = unschedulable_fraction(wl)
    assert tab.loc["literal", "cannot_finish"] == uf["cannot_finish"]
    assert tab.loc["literal", "d_min_median"] == float(np.median(min_durations(wl)))
    assert tab.loc["literal", "d_min_median"] > tab.loc["seconds", "d_min_median"]
    with pytest.raises(ValueError, match="readings="):
        explain.reading_table(0, reading="literal")


# ----------------------------------------------------------------------------- prices


def _params() -> PriceParameters:
    # ln L1 = -10, ln U1 = (2, -10): the second resource is not demanded by workers
    return PriceParameters(np.array([2.0, -10.0]), np.array([0.0, 5.0]), -10.0, -20.0, 3.0, 4.0)


def test_price_table_hand_values():
    tab = explain.price_table(_params(), ["a", "b"])
    assert tab.loc["a", "ln_U1_over_L1"] == pytest.approx(12.0)
    assert tab.loc["a", "util_P_at_ref"] == pytest.approx(10.0 / 12.0)  # ln P = 0 at g/c = 10/12
    assert math.isnan(tab.loc["b", "ln_U1"]) and math.isnan(tab.loc["b", "util_P_at_ref"])
    assert tab.loc["b", "util_Q_at_ref"] == pytest.approx(20.0 / 25.0)
    half = explain.price_table(_params(), ["a", "b"], reference_price=math.exp(-4.0))
    assert half.loc["a", "util_P_at_ref"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="resources"):
        explain.price_table(_params(), ["a"])
    with pytest.raises(ValueError, match="reference_price"):
        explain.price_table(_params(), ["a", "b"], reference_price=0.0)


def test_price_curves_endpoints_and_linearity():
    cur = explain.price_curves(_params(), ["a", "b"], n_points=5)
    assert sorted(map(tuple, cur[["pool", "resource"]].drop_duplicates().to_numpy())) == [
        ("PS (Q)", "a"), ("PS (Q)", "b"), ("worker (P)", "a")]  # fmt: skip
    wa = cur[(cur["pool"] == "worker (P)") & (cur["resource"] == "a")]
    np.testing.assert_allclose(wa["utilisation"], np.linspace(0, 1, 5))
    np.testing.assert_allclose(wa["log_price"], -10.0 + 12.0 * np.linspace(0, 1, 5))
    P = _params().worker_price
    np.testing.assert_allclose(np.exp(wa["log_price"]), P(np.linspace(0, 1, 5)[:, None], 1.0)[:, 0])
    with pytest.raises(ValueError, match="n_points"):
        explain.price_curves(_params(), ["a", "b"], n_points=1)


# ----------------------------------------------------------------------------- best schedule


def _best() -> BestSchedule:
    placements = {3: Placement.of({0: 2, 1: 1}, {2: 1}), 5: Placement.of({1: 3}, {2: 1})}
    return BestSchedule(
        payoff=4.0,
        completion=5,
        cost=1.0,
        chunks={3: 3, 5: 3},
        placements=placements,
        costs_by_completion=np.array([INF, 3.0, 1.0, 0.5]),
    )


def test_schedule_frame_and_grid():
    cluster = _cluster()
    fr = explain.schedule_frame(_best(), cluster)
    assert list(fr.columns) == ["slot", "server", "name", "role", "count"]
    assert fr["count"].sum() == 2 + 1 + 1 + 3 + 1
    assert fr.loc[fr["role"] == "ps", "name"].unique().tolist() == ["p0"]
    grid = explain.schedule_grid(_best(), cluster, "worker")
    assert grid.index.tolist() == ["w0", "w1"] and grid.columns.tolist() == [3, 4, 5]
    assert grid.to_numpy().tolist() == [[2, 0, 0], [1, 0, 3]]
    ps = explain.schedule_grid(_best(), cluster, "ps", slots=[2, 3])
    assert ps.to_numpy().tolist() == [[0, 1]]
    with pytest.raises(ValueError, match="role"):
        explain.schedule_grid(_best(), cluster, "gpu")
    far = BestSchedule(1.0, 0, 0.0, {0: 1}, {0: Placement.of({9: 1}, {2: 1})})
    with pytest.raises(ValueError, match="n_servers"):
        explain.schedule_frame(far, cluster)


def test_payoff_curve_hand_values():
    spec = _job(arrival=2)
    cur = explain.payoff_curve(spec, _best())
    assert cur["completion"].tolist() == [2, 3, 4, 5]
    np.testing.assert_allclose(cur["utility"], spec.utility(np.arange(4)))
    assert cur["feasible"].tolist() == [False, True, True, True]
    assert math.isnan(cur.loc[0, "cost"]) and math.isnan(cur.loc[0, "payoff"])
    np.testing.assert_allclose(cur["payoff"][1:], cur["utility"][1:] - [3.0, 1.0, 0.5])
    assert cur["chosen"].tolist() == [False, False, False, True]
    with pytest.raises(ValueError, match="prune=False"):
        explain.payoff_curve(spec, BestSchedule(0.0, None, INF))


def test_state_at_arrival_repeats_algorithm_1():
    """Algorithm 2 from the rebuilt state gives every job the payoff and plan of the full run."""
    wl = _small(seed=1)
    pol = OASiS.from_workload(wl)
    res = simulate(wl, pol, seed=0)
    jobs = res.jobs.set_index("job_id")
    for s in wl.jobs:
        before = explain.oasis_state_at_arrival(wl, s.job_id)
        best = before.search(s)
        assert best.payoff == pytest.approx(jobs.loc[s.job_id, "payoff"], rel=1e-12, abs=1e-300)
        if jobs.loc[s.job_id, "admitted"]:
            assert best.completion == jobs.loc[s.job_id, "planned_completion"]
            assert dict(best.placements) == pol.plans[s.job_id]
    first = explain.oasis_state_at_arrival(wl, wl.jobs[0].job_id)
    assert not first.g.any() and not first.v.any()
    with pytest.raises(ValueError, match="job_id"):
        explain.oasis_state_at_arrival(wl, 10_000)


def test_admission_table_and_probe():
    wl = _small(seed=2, n_jobs=20)
    pol = OASiS.from_workload(wl)
    res = simulate(wl, pol, seed=0)
    tab = explain.admission_table(res)
    assert len(tab) == int(res.jobs["admitted"].sum()) > 0
    np.testing.assert_allclose(tab["cost"], tab["utility_planned"] - tab["payoff"])
    assert (tab["cost"] >= -1e-9).all() and (tab["payoff"] > 0).all()
    for j, n in zip(tab["job"], tab["slots"], strict=True):
        assert n == sum(1 for p in pol.plans[j].values() if p.n_workers)
    probe = explain.choose_probe(tab, min_slots=1)
    assert tab.set_index("job").loc[probe, "cost"] == tab["cost"].max()
    with pytest.raises(ValueError, match="min_slots"):
        explain.choose_probe(tab, min_slots=10_000)
    fifo = simulate(wl, registry.make_policy("fifo", n_workers=1), seed=0)
    with pytest.raises(ValueError, match="OASiS"):
        explain.admission_table(fifo)


def test_room_grid_empty_and_after_commit():
    wl = _small(seed=4)
    spec = wl.jobs[0]
    empty = OASiS.from_workload(wl).prepare(wl.cluster, wl.horizon)
    room = explain.room_grid(empty, spec, "worker", [0, 1])
    fits = explain.fits_per_server(wl.cluster, spec)
    expect = fits.loc[fits["role"] == "worker", "fits"].to_numpy()
    assert (room[0].to_numpy() == expect).all() and (room[1].to_numpy() == expect).all()
    loaded = explain.oasis_state_at_arrival(wl, wl.jobs[-1].job_id)
    after = explain.room_grid(loaded, spec, "worker", range(wl.horizon))
    assert (after.to_numpy() <= expect[:, None]).all()
    assert (after.to_numpy() >= 0).all()
    with pytest.raises(ValueError, match="slot"):
        explain.room_grid(empty, spec, "ps", [wl.horizon])


def test_price_history_shape_and_monotone():
    wl = _small(seed=5, n_jobs=20)
    pol = OASiS.from_workload(wl, record_prices=True)
    res = simulate(wl, pol, seed=0)
    hist = explain.price_history(pol)
    n_adm = int(res.jobs["admitted"].sum())
    assert len(hist) == n_adm * wl.horizon
    grid = hist.pivot(index="admission", columns="slot", values="mean_log_price")
    assert (grid.diff().iloc[1:] >= -1e-9).all().all()  # prices never fall (Algorithm 1)
    assert (grid.to_numpy() >= pol.prices.log_l1 - 1e-9).all()
    assert set(hist["job"]) == set(res.jobs.loc[res.jobs["admitted"], "job_id"])
    with pytest.raises(ValueError, match="record_prices"):
        explain.price_history(OASiS(price_parameters(wl)))
    assert isinstance(hist, pd.DataFrame)
