"""Tests of the offline MILP of PD-ORS's DMLRS (dlsched.pdors.offline) against brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dlsched import registry
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import JobSpec, OasisModel, PdorsModel, Sigmoid, Workload
from dlsched.core.replay import ReplayPolicy
from dlsched.core.schedule import ScheduleViolation, check_timeline
from dlsched.core.simulator import simulate
from dlsched.pdors import offline
from dlsched.pdors.offline import (
    OfflineSolution,
    OfflineSolverError,
    brute_force_optimum,
    check_offline_solution,
    solve_offline,
)
from dlsched.pdors.policy import sample_time

F_DECAY = Sigmoid(10.0, 1.0, 1.0)


def colocation_case(T: int) -> Workload:
    """Two machines with 2 GPUs and 2 CPUs each; one job, F = 4, gamma = 1, 20 samples.

    Co-located (2 workers + 2 PS on one machine): 1 / (0.1 + 0) = 10 samples per worker-slot,
    20 per slot: done in slot 0. External (4 workers + 4 PS on both machines): 1 / (0.1 + 1.2/4)
    = 2.5 samples per worker-slot, 10 per slot: done in slot 1.
    """
    model = PdorsModel(epochs=1, samples=20, batch=4, tau=0.1, sync_internal=0.0, sync_external=1.2)
    assert 1 / sample_time(model, True) == pytest.approx(10.0)
    assert 1 / sample_time(model, False) == pytest.approx(2.5)
    job = JobSpec(0, 0, model, {"gpu": 1}, {"cpu": 1}, utility=F_DECAY)
    return Workload(Cluster.homogeneous(2, {"gpu": 2, "cpu": 2}), (job,), horizon=T)


@pytest.mark.parametrize(
    ("T", "colocation", "completion"), [(1, True, 0), (1, False, None), (2, True, 0), (2, False, 1)]
)
def test_colocation_decides_whether_the_job_finishes_in_time(T, colocation, completion):
    wl = colocation_case(T)
    sol = solve_offline(wl, colocation=colocation)
    want = 0.0 if completion is None else F_DECAY(completion)
    assert sol.status == "optimal"
    assert sol.objective == pytest.approx(want, abs=1e-9)
    assert sol.objective == pytest.approx(brute_force_optimum(wl, colocation=colocation), abs=1e-9)
    assert sol.completion == ({} if completion is None else {0: completion})
    assert sol.admitted == (() if completion is None else (0,))
    if colocation and completion is not None:  # everything on one machine in slot 0
        assert sol.allocations["server"].nunique() == 1


def test_ratio_gamma_sets_the_ps_count():
    # gamma = 2: 3 workers need ceil(3/2) = 2 PS; the machine has 3 GPUs and 2 CPUs, so only the
    # 2-PS placement fits; 3 workers at 1 / (0.5 + 2*0/3) = 2 samples each: 6 samples per slot.
    model = PdorsModel(epochs=1, samples=6, batch=3, tau=0.5, sync_internal=0.0, sync_external=0.0, ratio=2)
    job = JobSpec(0, 1, model, {"gpu": 1}, {"cpu": 1}, utility=F_DECAY)
    wl = Workload(Cluster.homogeneous(1, {"gpu": 3, "cpu": 2}), (job,), horizon=3)
    sol = solve_offline(wl)
    assert sol.completion == {0: 1}
    assert sol.objective == pytest.approx(F_DECAY(0))
    a = sol.allocations
    assert a[a.role == "worker"]["count"].sum() == 3
    assert a[a.role == "ps"]["count"].sum() == 2
    assert (a["slot"] >= 1).all()  # (7): nothing before arrival


def tiny_workload(seed: int) -> Workload:
    """1-2 jobs on 1-2 identical machines, T in {2, 3}, F <= 4, gamma in {1, 2, 3}; job sizes of
    0.5-6 slots of one external worker, so both co-location and capacity matter."""
    rng = np.random.default_rng(seed)
    H, T, n = int(rng.integers(1, 3)), int(rng.integers(2, 4)), int(rng.integers(1, 3))
    cluster = Cluster.homogeneous(H, {"gpu": int(rng.integers(2, 6)), "cpu": int(rng.integers(3, 7))})
    jobs = []
    for j in range(n):
        F, gamma = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        tau, s_int = float(rng.uniform(0.2, 0.5)), float(rng.uniform(0.0, 0.3))
        s_ext = s_int + float(rng.uniform(0.0, 3.0))
        per_worker = 1 / (tau + gamma * s_ext / F)
        samples = max(1, round(float(rng.uniform(0.5, 6.0)) * per_worker))
        model = PdorsModel(epochs=1, samples=samples, batch=F, tau=tau, sync_internal=s_int,
                           sync_external=s_ext, ratio=gamma)
        utility = Sigmoid(float(rng.uniform(1, 50)), float(rng.uniform(0, 2)), float(rng.uniform(0, 3)))
        demand = {"gpu": int(rng.integers(1, 3)), "cpu": int(rng.integers(0, 2))}
        jobs.append(JobSpec(j, int(rng.integers(0, T)), model, demand, {"cpu": int(rng.integers(1, 3))},
                            utility=utility))
    return Workload(cluster, tuple(jobs), horizon=T)


SEEDS = range(40)


@pytest.fixture(scope="module")
def tiny_results():
    out = {}
    for seed in SEEDS:
        wl = tiny_workload(seed)
        out[seed] = (wl, {co: (solve_offline(wl, colocation=co), brute_force_optimum(wl, colocation=co))
                          for co in (True, False)})
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_milp_equals_brute_force_on_tiny_instances(tiny_results, seed):
    wl, res = tiny_results[seed]
    for co, (sol, brute) in res.items():
        assert sol.status == "optimal", co
        assert sol.objective == pytest.approx(brute, rel=1e-6, abs=1e-9), co
        assert sol.bound >= sol.objective - 1e-9
        assert sol.milp_objective <= sol.objective + 1e-6
    assert res[False][0].objective <= res[True][0].objective + 1e-9


def test_tiny_instances_cover_colocation_and_contention(tiny_results):
    """The random set is not trivial: co-location helps in many, some admit two jobs, some none."""
    pairs = [(r[True][0].objective, r[False][0].objective) for _, r in tiny_results.values()]
    assert sum(co > ext + 1e-6 for co, ext in pairs) >= 10
    assert sum(co > 0 and ext == 0 for co, ext in pairs) >= 5  # finishes only with internal bandwidth
    assert any(len(r[True][0].admitted) == 2 for _, r in tiny_results.values())
    assert any(r[True][0].objective == 0 for _, r in tiny_results.values())


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5, 8])
def test_allocations_pass_the_checker_and_replay(tiny_results, seed):
    wl, res = tiny_results[seed]
    sol = res[True][0]
    check_timeline(wl.cluster, wl.specs, sol.allocations)
    check_offline_solution(wl, sol)
    assert list(sol.allocations.columns) == ["job", "slot", "server", "role", "count"]
    assert (sol.allocations["count"] > 0).all()
    replay = simulate(wl, ReplayPolicy(sol.allocations, admitted=sol.admitted), horizon=sol.horizon)
    assert replay.jobs["utility"].sum() >= sol.objective - 1e-6  # the model's rate is never slower


@pytest.mark.parametrize("seed", range(6))
def test_offline_optimum_bounds_online_pdors(seed):
    wl = registry.make_workload("pdors", seed=seed, n_jobs=4, n_machines=3, T=6)
    online = simulate(wl, registry.make_policy("pdors", wl), seed=seed).jobs["utility"].sum()
    sol = solve_offline(wl, time_limit=30.0)
    assert sol.status == "optimal"
    assert sol.objective >= online - 1e-6
    assert solve_offline(wl, colocation=False).objective <= sol.objective + 1e-6
    replay = simulate(wl, ReplayPolicy(sol.allocations, admitted=sol.admitted), horizon=sol.horizon)
    assert replay.jobs["utility"].sum() >= sol.objective - 1e-6


def test_time_limit_returns_a_checked_point():
    wl = registry.make_workload("pdors", seed=2, n_jobs=10, n_machines=6, T=10)
    sol = solve_offline(wl, time_limit=0.05)
    assert sol.status == "time_limit"
    assert sol.bound >= sol.objective
    check_offline_solution(wl, sol)


def test_horizon_argument_overrides_the_workload():
    wl = colocation_case(1)
    assert solve_offline(wl, colocation=False).objective == 0.0
    sol = solve_offline(wl, colocation=False, horizon=2)
    assert sol.horizon == 2
    assert sol.objective == pytest.approx(F_DECAY(1))


# ------------------------------------------------------------------------------ bad input / bad points


def oasis_job_workload() -> Workload:
    model = OasisModel(epochs=1, chunks=2, minibatches=2, tau=1.0, comm=0.0)
    job = JobSpec(0, 0, model, {"gpu": 1}, {"cpu": 1})
    return Workload(Cluster.homogeneous(1, {"gpu": 2, "cpu": 2}), (job,), horizon=2)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"time_limit": 0}, "time_limit"),
        ({"time_limit": -1.0}, "time_limit"),
        ({"time_limit": math.nan}, "time_limit"),
        ({"time_limit": "60"}, "time_limit"),
        ({"time_limit": True}, "time_limit"),
        ({"mip_rel_gap": -1e-3}, "mip_rel_gap"),
        ({"colocation": 1}, "colocation"),
        ({"presolve": "no"}, "presolve"),
        ({"horizon": 0}, "horizon"),
        ({"horizon": 2.5}, "horizon"),
    ],
)
def test_solve_offline_rejects_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve_offline(colocation_case(2), **kwargs)


def test_bad_workloads_raise():
    with pytest.raises(ValueError, match=r"job 0: model must be a PdorsModel.*OasisModel"):
        solve_offline(oasis_job_workload())
    with pytest.raises(ValueError, match="PdorsModel"):
        brute_force_optimum(oasis_job_workload())
    no_horizon = Workload(colocation_case(1).cluster, colocation_case(1).jobs)
    with pytest.raises(ValueError, match="horizon"):
        solve_offline(no_horizon)
    with pytest.raises(ValueError, match="horizon"):
        brute_force_optimum(no_horizon)
    with pytest.raises(TypeError, match="Workload"):
        solve_offline("not a workload")


def test_brute_force_refuses_large_enumerations():
    with pytest.raises(ValueError, match="max_cases"):
        brute_force_optimum(colocation_case(2), max_cases=0)
    with pytest.raises(ValueError, match="max_cases=5"):
        brute_force_optimum(colocation_case(2), max_cases=5)
    wl = registry.make_workload("pdors", seed=0, n_jobs=4, n_machines=3, T=6)
    with pytest.raises(ValueError, match="max_cases"):
        brute_force_optimum(wl)


def test_a_solver_point_that_fails_the_check_raises(monkeypatch):
    real = offline.milp

    def tripled(*args, **kwargs):  # "optimal", but three times the tasks: over capacity / over F
        res = real(*args, **kwargs)
        res.x = np.asarray(res.x) * 3
        return res

    monkeypatch.setattr(offline, "milp", tripled)
    with pytest.raises(OfflineSolverError, match="fails the independent check"):
        solve_offline(colocation_case(2))


def test_check_rejects_tampered_solutions():
    wl = colocation_case(2)
    sol = solve_offline(wl, colocation=False)  # completes in slot 1
    check_offline_solution(wl, sol)
    a = sol.allocations
    cases = {
        "(6)": OfflineSolution(**{**_fields(sol), "completion": {0: 0}}),
        "(3)": OfflineSolution(**{**_fields(sol), "allocations": a[a.slot == 1], "completion": {0: 1}}),
        "objective": OfflineSolution(**{**_fields(sol), "objective": sol.objective + 1.0}),
        "admission": OfflineSolution(**{**_fields(sol), "admitted": (), "completion": {}}),
    }
    for constraint, bad in cases.items():
        with pytest.raises(ScheduleViolation) as err:
            check_offline_solution(wl, bad)
        assert err.value.constraint == constraint


def _fields(sol: OfflineSolution) -> dict:
    return {f: getattr(sol, f) for f in OfflineSolution.__dataclass_fields__}
