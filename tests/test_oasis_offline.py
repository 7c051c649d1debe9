"""Tests of the offline MILP of OASiS (problem (1)-(13)) and of the schedule replay policy."""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from dlsched.baselines.fifo import FIFO
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import ConstantUtility, JobSpec, LinearModel, OasisModel, Sigmoid, Workload
from dlsched.core.replay import ReplayPolicy
from dlsched.core.schedule import ScheduleViolation
from dlsched.core.simulator import simulate
from dlsched.oasis.offline import (
    OfflineSolution,
    check_offline_solution,
    required_worker_slots,
    simulate_offline,
    solve_offline,
)
from dlsched.workloads import synthetic


def two_server_cluster(worker_gpu: float, ps_cpu: float) -> Cluster:
    """One worker server (GPUs) and one PS server (CPUs)."""
    return Cluster.two_pools(1, 1, {"gpu": worker_gpu}, {"cpu": ps_cpu})


def oasis_job(job_id, arrival, model, utility, wgpu=1, pcpu=1) -> JobSpec:
    return JobSpec(job_id, arrival, model, {"gpu": wgpu}, {"cpu": pcpu}, utility=utility)


# ----------------------------------------------------------------------------- hand-solved


# One job, arriving in slot 1: E=1, N=4, M=3, tau=0.5, e/b=0.25 -> tau + 2e/b = 1 slot per
# mini-batch, so (2) needs E*N*M*1 = 12 worker-slots, and (3) allows at most N = 4 workers.
# Each worker takes 1 GPU; each PS 2 CPUs; b = 1, B = 2, so (6) needs z >= y / 2.
# (a) 3 GPUs, 2 CPUs: one PS per slot -> y <= 2 by (6) -> 12 / 2 = 6 slots: 1..6, completion 6.
# (b) 3 GPUs, 4 CPUs: two PS -> y <= min(3 GPUs, 4) = 3 -> 4 slots: 1..4, completion 4.
# (c) 8 GPUs, 8 CPUs: y <= N = 4 (with 2 PS) -> 3 slots: 1..3, completion 3.
# f is strictly decreasing (gamma2 = 1), so the optimum completes as early as capacity allows.
@pytest.mark.parametrize(("worker_gpu", "ps_cpu", "completion"), [(3, 2, 6), (3, 4, 4), (8, 8, 3)])
def test_single_job_completes_at_the_earliest_slot_capacity_allows(worker_gpu, ps_cpu, completion):
    model = OasisModel(epochs=1, chunks=4, minibatches=3, tau=0.5, comm=0.25, worker_bw=1.0, ps_bw=2.0)
    assert required_worker_slots(model) == 12
    f = Sigmoid(10.0, 1.0, 3.0)
    wl = Workload(two_server_cluster(worker_gpu, ps_cpu), (oasis_job(0, 1, model, f, 1, 2),), horizon=9)
    sol = solve_offline(wl)
    assert sol.status == "optimal"
    assert sol.admitted == (0,)
    assert sol.completion == {0: completion}
    assert sol.objective == pytest.approx(f(completion - 1), abs=1e-9)
    assert sol.bound == pytest.approx(sol.objective, abs=1e-6)
    w = sol.allocations[sol.allocations["role"] == "worker"]
    assert w["count"].sum() >= 12
    assert w["slot"].min() >= 1  # nothing before arrival, (9)


def _competing(T: int, g_low: float, g_high: float) -> Workload:
    # Both jobs: E=1, N=2, M=2, tau=1, comm=0 -> 4 worker-slots, at most 2 workers per slot.
    # The worker server has 2 GPUs (2 workers per slot in total), so finishing both jobs needs 8
    # worker-slots = 4 slots, while one job alone can finish in 2 slots.
    model = OasisModel(epochs=1, chunks=2, minibatches=2, tau=1.0, comm=0.0)
    jobs = (
        oasis_job(0, 0, model, Sigmoid(g_low, 5.0, 1.5)),
        oasis_job(1, 0, model, Sigmoid(g_high, 5.0, 1.5)),
    )
    return Workload(two_server_cluster(2, 4), jobs, horizon=T)


def test_tight_deadline_admits_only_the_higher_utility_job():
    # T = 2: only 4 worker-slots exist, enough for exactly one job -> the 60-job (job 1).
    wl = _competing(2, 20.0, 60.0)
    sol = solve_offline(wl)
    assert sol.status == "optimal"
    assert sol.admitted == (1,)
    assert sol.completion == {1: 1}
    assert sol.objective == pytest.approx(60.0 / (1 + math.exp(5.0 * (1 - 1.5))), rel=1e-9)


def test_tight_deadline_orders_the_jobs_by_utility():
    # T = 4: both fit, but only one can finish by its target (slot 1); the other finishes in slot 3.
    wl = _competing(4, 20.0, 60.0)
    sol = solve_offline(wl)
    assert sol.admitted == (0, 1)
    assert sol.completion == {0: 3, 1: 1}
    f_hi, f_lo = Sigmoid(60.0, 5.0, 1.5), Sigmoid(20.0, 5.0, 1.5)
    assert sol.objective == pytest.approx(f_hi(1) + f_lo(3), rel=1e-9)


# ------------------------------------------------------------------------------ brute force


def _brute_force(wl: Workload, T: int) -> float:
    """Best total utility by enumerating every integer (y, z) per job and slot on one worker and
    one PS server (an independent reading of (1)-(13))."""
    specs = list(wl.jobs)
    cap_w = wl.cluster.capacity[0]
    cap_p = wl.cluster.capacity[1]
    res = wl.cluster.resources
    wd = [np.array([s.worker_demand.get(r, 0.0) for r in res]) for s in specs]
    pd_ = [np.array([s.ps_demand.get(r, 0.0) for r in res]) for s in specs]

    def per_job_options(spec):
        m = spec.model
        opts = [(0, 0)]
        for y in range(1, m.chunks + 1):
            for z in range(1, y + 1):  # (7)
                if y * m.worker_bw <= z * m.ps_bw + 1e-12:  # (6)
                    opts.append((y, z))
        return opts

    opts = [per_job_options(s) for s in specs]
    slot_choices = []  # per slot: feasible joint tuples of worker counts
    for t in range(T):
        feasible = set()
        for combo in itertools.product(*opts):
            if any(c != (0, 0) and t < s.arrival for c, s in zip(combo, specs, strict=True)):
                continue  # (9)-(10)
            use_w = sum(c[0] * d for c, d in zip(combo, wd, strict=True))
            use_p = sum(c[1] * d for c, d in zip(combo, pd_, strict=True))
            if np.all(use_w <= cap_w + 1e-9) and np.all(use_p <= cap_p + 1e-9):  # (4)-(5)
                feasible.add(tuple(c[0] for c in combo))
        slot_choices.append(sorted(feasible))
    need = [s.model.total_work * s.model.minibatch_time for s in specs]
    best = 0.0
    for plan in itertools.product(*slot_choices):
        y = np.array(plan)  # (T, jobs)
        value = 0.0
        for i, s in enumerate(specs):
            if y[:, i].sum() >= need[i] - 1e-9:
                last = int(np.flatnonzero(y[:, i])[-1])  # (8)
                value += float(s.utility(last - s.arrival))
        best = max(best, value)
    return best


@pytest.mark.parametrize("seed", range(8))
def test_matches_brute_force_on_tiny_instances(seed):
    rng = np.random.default_rng(seed)
    T = 3
    jobs = []
    for j, a in enumerate((0, int(rng.integers(0, 2)))):
        b = float(rng.uniform(0.5, 1.0))
        model = OasisModel(  # 1-9 worker-slots on a 3-GPU server over 3 slots: they compete
            epochs=1,
            chunks=int(rng.integers(1, 4)),
            minibatches=int(rng.integers(1, 3)),
            tau=float(rng.choice([1.0, 1.5])),
            comm=0.0,
            worker_bw=b,
            ps_bw=float(rng.uniform(b, 2.0)),
        )
        util = Sigmoid(float(rng.uniform(1, 100)), float(rng.uniform(0, 3)), float(rng.uniform(0, 2)))
        jobs.append(oasis_job(j, a, model, util, int(rng.integers(1, 3)), int(rng.integers(1, 3))))
    wl = Workload(two_server_cluster(3, 3), tuple(jobs), horizon=T)
    sol = solve_offline(wl)
    assert sol.status == "optimal"
    assert sol.objective == pytest.approx(_brute_force(wl, T), abs=1e-6)


# -------------------------------------------------------------------------------- re-check


@pytest.fixture(scope="module")
def solved() -> tuple[Workload, OfflineSolution]:
    wl = synthetic(np.random.default_rng(3), model="oasis", n_jobs=6, n_servers=4, horizon=8)
    sol = solve_offline(wl)
    assert sol.status == "optimal" and len(sol.admitted) >= 2
    return wl, sol


def test_solution_passes_the_independent_recheck(solved):
    wl, sol = solved
    check_offline_solution(wl, sol)  # must not raise
    assert sol.mip_gap == pytest.approx(0.0, abs=1e-9)
    assert sol.objective >= sol.milp_objective - 1e-6
    assert set(sol.completion) == set(sol.admitted)


def _corrupt(wl: Workload, sol: OfflineSolution, how: str) -> OfflineSolution:
    a = sol.allocations.copy()
    j = sol.admitted[0]
    last = sol.completion[j]
    if how == "too_many_workers":  # (3): more than N_i workers
        row = a[(a["job"] == j) & (a["role"] == "worker")].index[0]
        a.loc[row, "count"] += 1000
        return dataclasses.replace(sol, allocations=a)
    if how == "drop_last_slot":  # fewer worker-slots than (2) needs (or a wrong completion, (8))
        a = a[~((a["job"] == j) & (a["slot"] == last))]
        return dataclasses.replace(sol, allocations=a)
    if how == "no_ps":  # workers without PS: (6)
        a = a[~((a["job"] == j) & (a["role"] == "ps"))]
        return dataclasses.replace(sol, allocations=a)
    if how == "before_arrival":  # (9)-(10)
        late = next(i for i in sol.admitted if wl.specs[i].arrival > 0)
        a.loc[a["job"] == late, "slot"] = wl.specs[late].arrival - 1
        return dataclasses.replace(sol, allocations=a)
    if how == "after_horizon":
        a.loc[a["job"] == j, "slot"] = sol.horizon
        return dataclasses.replace(sol, allocations=a)
    if how == "objective":
        return dataclasses.replace(sol, objective=sol.objective + 1.0)
    if how == "completion":
        return dataclasses.replace(sol, completion={**sol.completion, j: last + 1})
    if how == "not_admitted":
        return dataclasses.replace(sol, admitted=sol.admitted[1:])
    raise AssertionError(how)


@pytest.mark.parametrize(
    ("how", "constraint"),
    [
        ("too_many_workers", "max_workers"),
        ("drop_last_slot", "(2)"),
        ("no_ps", "ps_required"),
        ("before_arrival", "arrival"),
        ("after_horizon", "horizon"),
        ("objective", "objective"),
        ("completion", "(8)"),
        ("not_admitted", "admission"),
    ],
)
def test_recheck_catches_corrupted_solutions(solved, how, constraint):
    wl, sol = solved
    with pytest.raises(ScheduleViolation) as err:
        check_offline_solution(wl, _corrupt(wl, sol, how))
    assert err.value.constraint == constraint


def test_recheck_catches_a_capacity_violation():
    # T = 4, two jobs that share one 2-GPU worker server in turn (slots 0-1 and 2-3): moving the
    # second job onto the first job's slots needs 4 GPUs per slot.
    wl = _competing(4, 20.0, 60.0)
    sol = solve_offline(wl)
    a = sol.allocations.copy()
    a.loc[a["job"] == 0, "slot"] -= 2
    with pytest.raises(ScheduleViolation) as err:
        check_offline_solution(wl, dataclasses.replace(sol, allocations=a, completion={0: 1, 1: 1}))
    assert err.value.constraint == "capacity"
    with pytest.raises(ValueError, match="role"):
        check_offline_solution(wl, dataclasses.replace(sol, allocations=a.assign(role="boss")))


# ---------------------------------------------------------------------------------- replay


@pytest.mark.parametrize("seed", range(4))
def test_replay_through_the_simulator_gives_the_same_completions_and_utility(seed):
    wl = synthetic(np.random.default_rng(seed), model="oasis", n_jobs=6, n_servers=4, horizon=8)
    sol = solve_offline(wl)
    res = simulate_offline(wl, sol)
    assert res.policy == "replay"
    jobs = res.jobs.set_index("job_id")
    assert sorted(jobs.index[jobs["admitted"]]) == list(sol.admitted)
    # Equal, not just >=: a replayed job could finish before its planned slot only if the plan gave
    # it the work earlier, and then completing earlier would give a strictly higher utility
    # whenever f drops -- impossible at a proven optimum. Where f is flat (drop < 1e-6, within the
    # solver's absolute gap) the slot may move but the utility cannot.
    assert float(jobs["utility"].sum()) == pytest.approx(sol.objective, abs=1e-6)
    for j in sol.admitted:
        spec = wl.specs[j]
        c = sol.completion[j]
        got = int(jobs.at[j, "completion_slot"])
        assert got <= c
        if c > spec.arrival and spec.utility(c - 1 - spec.arrival) - spec.utility(c - spec.arrival) > 1e-6:
            assert got == c
    # the replay reproduces the solution's allocation table exactly (no job finished early)
    cols = ["job", "slot", "server", "role", "count"]
    left = res.allocations[cols].sort_values(cols).reset_index(drop=True)
    right = sol.allocations[cols].sort_values(cols).reset_index(drop=True)
    if all(int(jobs.at[j, "completion_slot"]) == sol.completion[j] for j in sol.admitted):
        pd.testing.assert_frame_equal(left, right, check_dtype=False)


def test_replay_policy_reproduces_a_fifo_run():
    wl = synthetic(np.random.default_rng(1), model="oasis", n_jobs=8, n_servers=4)
    first = simulate(wl, FIFO(), seed=0)
    again = simulate(wl, ReplayPolicy(first.allocations), seed=0)
    a = first.jobs.set_index("job_id")
    b = again.jobs.set_index("job_id")
    pd.testing.assert_series_equal(a["completion_slot"], b["completion_slot"])
    pd.testing.assert_series_equal(a["utility"], b["utility"])
    pd.testing.assert_frame_equal(first.allocations, again.allocations, check_dtype=False)


def test_replay_policy_rejects_jobs_outside_admitted_and_flags_early_allocations():
    wl = _competing(4, 20.0, 60.0)
    sol = solve_offline(wl)
    only_one = sol.allocations[sol.allocations["job"] == 1]
    res = simulate(wl, ReplayPolicy(only_one), seed=0, horizon=4)
    statuses = dict(zip(res.jobs["job_id"], res.jobs["status"], strict=True))
    assert statuses == {0: "rejected", 1: "finished"}
    with pytest.raises(ValueError, match="not in admitted"):
        ReplayPolicy(sol.allocations, admitted=[1])
    # an allocation for job 1 before its arrival must reach the simulator's checker
    late = Workload(
        wl.cluster,
        (dataclasses.replace(wl.specs[0], arrival=0), dataclasses.replace(wl.specs[1], arrival=2)),
        horizon=4,
    )
    early = pd.DataFrame(
        {"job": [1, 1], "slot": [0, 0], "server": [0, 1], "role": ["worker", "ps"], "count": [1, 1]}
    )
    with pytest.raises(ScheduleViolation):
        simulate(late, ReplayPolicy(early), seed=0, horizon=4)
    with pytest.raises(ValueError, match="role"):
        ReplayPolicy(early.assign(role="boss"))
    with pytest.raises(ValueError, match="missing columns"):
        ReplayPolicy(early.drop(columns="count"))


# ------------------------------------------------------------------------------ time limit


def test_time_limit_is_respected_and_reported():
    # 30 jobs on 3 servers take HiGHS several seconds to prove optimal; 0.01 s stops it early.
    wl = synthetic(
        np.random.default_rng(0), model="oasis", n_jobs=30, n_servers=3, horizon=10, arrival_span=4
    )
    sol = solve_offline(wl, time_limit=0.01)
    assert sol.status in ("time_limit", "optimal")
    if sol.status == "time_limit":
        assert "time" in sol.message.lower()
    check_offline_solution(wl, sol)
    assert sol.objective <= sol.bound + 1e-6
    assert sol.mip_gap >= 0 or math.isnan(sol.mip_gap)


# ------------------------------------------------------------------------------ validation


class _LinearDecay:
    kind: ClassVar[str] = "linear_decay"

    def __call__(self, duration):
        return 10.0 - np.asarray(duration, dtype=float)


def test_validation_errors():
    model = OasisModel(epochs=1, chunks=2, minibatches=2, tau=1.0, comm=0.0)
    cluster = two_server_cluster(2, 4)
    ok = oasis_job(0, 0, model, ConstantUtility(1.0))
    with pytest.raises(ValueError, match="horizon"):
        solve_offline(Workload(cluster, (ok,)))
    with pytest.raises(ValueError, match="horizon"):
        solve_offline(Workload(cluster, (ok,)), horizon=0)
    with pytest.raises(ValueError, match=r"job 3: model must be an OasisModel"):
        lin = JobSpec(3, 0, LinearModel(work=2.0), {"gpu": 1})
        solve_offline(Workload(cluster, (ok, lin), horizon=4))
    with pytest.raises(ValueError, match=r"job 0: utility must be Sigmoid or ConstantUtility"):
        solve_offline(Workload(cluster, (oasis_job(0, 0, model, _LinearDecay()),), horizon=4))
    unified = Cluster.homogeneous(2, {"gpu": 2, "cpu": 4})
    with pytest.raises(ValueError, match="pool 'unified'"):
        solve_offline(Workload(unified, (ok,), horizon=4))
    with pytest.raises(ValueError, match="time_limit"):
        solve_offline(Workload(cluster, (ok,), horizon=4), time_limit=0)
    with pytest.raises(ValueError, match="mip_rel_gap"):
        solve_offline(Workload(cluster, (ok,), horizon=4), mip_rel_gap=-0.1)
    with pytest.raises(TypeError, match="Workload"):
        solve_offline("not a workload", horizon=4)  # type: ignore[arg-type]


def test_horizon_argument_overrides_and_late_jobs_are_rejected():
    model = OasisModel(epochs=1, chunks=2, minibatches=2, tau=1.0, comm=0.0)
    jobs = (oasis_job(0, 0, model, ConstantUtility(5.0)), oasis_job(1, 3, model, ConstantUtility(7.0)))
    wl = Workload(two_server_cluster(2, 4), jobs, horizon=10)
    # T = 4: job 1 arrives in slot 3 and cannot get 4 worker-slots (2 per slot) before T
    sol = solve_offline(wl, horizon=4)
    assert sol.horizon == 4
    assert sol.admitted == (0,)
    assert sol.objective == pytest.approx(5.0)
    full = solve_offline(wl)
    assert full.admitted == (0, 1) and full.objective == pytest.approx(12.0)


def test_solver_points_that_break_the_milp_are_refused(monkeypatch):
    # scipy's milp has reported "optimal" for bound-violating points: the wrapper must not trust it.
    import dlsched.oasis.offline as offline

    wl = _competing(4, 20.0, 60.0)
    real = offline.milp

    def bogus(c, **kw):
        res = real(c, **kw)
        res.x = res.x.copy()
        res.x[-1] += 5.0  # a PS count beyond its bound / (7)
        return res

    monkeypatch.setattr(offline, "milp", bogus)
    with pytest.raises(offline.OfflineSolverError, match="reported 'optimal'"):
        solve_offline(wl)


def test_empty_workload_is_trivially_optimal():
    wl = Workload(two_server_cluster(2, 4), (), horizon=3)
    sol = solve_offline(wl)
    assert (sol.status, sol.objective, sol.bound, sol.admitted) == ("optimal", 0.0, 0.0, ())
    assert sol.allocations.empty
