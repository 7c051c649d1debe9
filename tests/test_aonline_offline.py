"""The offline problem (2)-(2l) of A_online as a time-indexed MILP (dlsched.aonline.offline).

The linearisation is verified against an exhaustive search (:func:`brute_force`: a different
enumeration, durations stepped slot by slot, capacities on a dense array) on random tiny
instances (1-2 edge servers plus the cloud, 2-3 jobs, small T), with and without HiGHS presolve;
every solution passes the independent re-check and replays through the simulator; the optimum
is at most every fixed-allocation baseline's total completion time on the same instance.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dlsched import registry
from dlsched.aonline.baselines import Preemptive
from dlsched.aonline.offline import (
    OfflineSolution,
    brute_force,
    check_offline_solution,
    configurations,
    exact_horizon,
    simulate_offline,
    solve_offline,
    total_completion_time,
)
from dlsched.baselines.fifo import FIFO
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, LinearModel, Workload
from dlsched.core.schedule import Placement, ScheduleViolation
from dlsched.core.simulator import simulate


def job(j, arrival, chunks, minibatches, *, compute=1.0, comm=0.0, weight=1.0, delays=None, **kw) -> JobSpec:
    model = AOnlineModel(
        epochs=1,
        chunks=chunks,
        minibatches=minibatches,
        compute=compute,
        update=0.0,
        comm=comm,
        weight=weight,
        **kw,
    )
    return JobSpec(j, arrival, model, {"w0": 1}, {"ps0": 1}, transfer_delay=delays)


def one_server(workers=1, ps=1) -> Cluster:
    """One edge server; the cloud has nothing."""
    return Cluster.edge_cloud(
        [{"w0": workers, "ps0": ps}], {"w0": 0, "ps0": 0}, edge_delay=0.0, cloud_delay=0.0
    )


def tiny(seed: int) -> Workload:
    """1-2 edge servers (1-2 worker slots, 0-1 PS slot, delay 0-1) and a cloud (2-3 / 1-2, delay
    1-3); 2-3 jobs with D_j in 1-3, 1-3 mini-batches per chunk, co-location speed-ups (comm up to
    one mini-batch time), weights 1 or 2, arrivals 0-2, sometimes their own delay vector."""
    rng = np.random.default_rng(seed)
    edges = [
        {"w0": int(rng.integers(1, 3)), "ps0": int(rng.integers(0, 2))} for _ in range(rng.integers(1, 3))
    ]
    cluster = Cluster.edge_cloud(
        edges,
        {"w0": int(rng.integers(2, 4)), "ps0": int(rng.integers(1, 3))},
        edge_delay=[float(rng.integers(0, 2)) for _ in edges],
        cloud_delay=float(rng.integers(1, 4)),
    )
    jobs = []
    for j in range(int(rng.integers(2, 4))):
        delays = None
        if rng.random() < 0.3:
            delays = tuple(float(x) for x in rng.integers(0, 3, cluster.n_servers))
        jobs.append(
            job(
                j,
                int(rng.integers(0, 3)),
                int(rng.integers(1, 4)),
                int(rng.integers(1, 4)),
                compute=float(rng.uniform(0.4, 1.0)),
                comm=float(rng.uniform(0.0, 1.0)),
                weight=float(rng.choice([1.0, 1.0, 2.0])),
                delays=delays,
            )
        )
    return Workload(cluster, tuple(jobs))


def crowded(seed: int) -> Workload:
    """Four jobs competing for one edge server and a cloud of 2 worker slots and 1 PS slot each
    (capacity binds: at most two jobs run at once)."""
    rng = np.random.default_rng(1000 + seed)
    c = Cluster.edge_cloud(
        [{"w0": 2, "ps0": 1}], {"w0": 2, "ps0": 1}, edge_delay=0.0, cloud_delay=float(rng.integers(0, 3))
    )
    jobs = [
        job(
            j,
            int(rng.integers(0, 3)),
            int(rng.integers(1, 3)),
            int(rng.integers(1, 4)),
            compute=float(rng.uniform(0.5, 1.0)),
            comm=float(rng.uniform(0.0, 1.0)),
        )
        for j in range(4)
    ]
    return Workload(c, tuple(jobs))


INSTANCES = [("tiny", s) for s in range(30)] + [("crowded", s) for s in range(10)]
MAKE = {"tiny": tiny, "crowded": crowded}


# ------------------------------------------------------------------------------- linearisation


@pytest.mark.parametrize(("family", "seed"), INSTANCES)
def test_milp_equals_brute_force_on_tiny_instances(family, seed) -> None:
    wl = MAKE[family](seed)
    sol = solve_offline(wl)
    assert sol.status == "optimal"
    bf, best = brute_force(wl, sol.horizon)
    assert sol.objective == pytest.approx(bf)
    assert sol.bound == pytest.approx(sol.objective) and sol.mip_gap == pytest.approx(0.0)
    no_presolve = solve_offline(wl, horizon=sol.horizon, presolve=False)
    assert no_presolve.objective == pytest.approx(bf)
    check_offline_solution(wl, sol)
    # the horizon of exact_horizon cuts off no optimum: three more slots change nothing
    assert brute_force(wl, sol.horizon + 3)[0] == pytest.approx(bf)
    # replaying the schedule through the simulator gives the same completions and objective
    replay = simulate_offline(wl, sol)
    assert dict(zip(replay.jobs["job_id"], replay.jobs["completion_slot"], strict=True)) == sol.completion
    assert total_completion_time(replay) == pytest.approx(sol.objective)


@pytest.mark.parametrize(("family", "seed"), INSTANCES[:10] + INSTANCES[-5:])
def test_milp_is_at_most_every_fixed_allocation_baseline(family, seed) -> None:
    """FIFO (earliest server and round robin), DRF and BatchSche keep allocations fixed, so their
    schedules are feasible for (2)-(2l): none beats the optimum."""
    wl = MAKE[family](seed)
    opt = solve_offline(wl).objective
    policies = [registry.make_policy(n, wl) for n in ("fifo", "drf", "batchsche")] + [FIFO()]
    for pol in policies:
        r = simulate(wl, pol)
        assert total_completion_time(r) >= opt - 1e-9, (pol.name, pol.params)


def test_preemption_can_beat_the_non_preemptive_optimum() -> None:
    """Why Preemptive is not compared with the MILP: one worker slot, L (10 mini-batches, a=0)
    and S (1, a=1). Without preemption the best is S in slot 1 and L in 2-11 (or L first): 11 + 0
    = 11 (brute force agrees). Preemptive runs L in 0, S in 1, L in 2-10: 10 + 0 = 10."""
    jobs = (job(0, 0, 1, 10), job(1, 1, 1, 1))
    wl = Workload(one_server(), jobs)
    sol = solve_offline(wl)
    assert sol.objective == 11.0 == brute_force(wl, sol.horizon)[0]
    assert sol.completion == {0: 11, 1: 1}
    pre = Workload(
        one_server(), (job(0, 0, 1, 10, allow_preemption=True), job(1, 1, 1, 1, allow_preemption=True))
    )
    assert total_completion_time(simulate(pre, Preemptive())) == 10.0


def test_weights_change_the_order() -> None:
    """One worker slot; A (2 mini-batches) and B (1) at 0. Unweighted: B first, 0 + 2 = 2.
    With w_A = 3: A first, 3*1 + 1*2 = 5 (B first would cost 3*2 + 0 = 6)."""
    wl = Workload(one_server(), (job(0, 0, 1, 2), job(1, 0, 1, 1)))
    plain = solve_offline(wl)
    assert (plain.objective, plain.completion) == (2.0, {0: 2, 1: 0})
    heavy = solve_offline(wl, weights={0: 3.0})
    assert (heavy.objective, heavy.completion) == (5.0, {0: 1, 1: 2})
    as_model = Workload(one_server(), (job(0, 0, 1, 2, weight=3.0), job(1, 0, 1, 1)))
    assert solve_offline(as_model).objective == 5.0 == brute_force(as_model, 6)[0]


def test_colocation_and_transfer_delay_in_the_optimum() -> None:
    """Edge (2 worker slots, delay 0), cloud (4, delay 1); one job, D=4, 8 mini-batches, compute 1
    and comm 1 (co-located p = 1, split p = 1/2). Edge alone: 2 workers at rate 2 from slot 0,
    c = 3; split 2 + 2 at rate 4 x 1/2 = 2 from slot 1 (the cloud's data), c = 4; cloud alone: 4
    workers at rate 4 from slot 1, c = 2, the optimum."""
    c = Cluster.edge_cloud([{"w0": 2, "ps0": 1}], {"w0": 4, "ps0": 1}, edge_delay=0.0, cloud_delay=1.0)
    wl = Workload(c, (job(0, 0, 4, 2, comm=1.0),))
    sol = solve_offline(wl)
    (s,) = sol.schedules.values()
    assert (s.start, s.completion, s.placement) == (1, 2, Placement.of({1: 4}, {1: 1}))
    assert s.placement.colocated and s.rate == pytest.approx(4.0)


def test_configurations_drop_only_dominated_allocations() -> None:
    """D=3, 3 mini-batches, p = 3/4 per worker (compute 4/3), one server of 3 slots: 1 worker
    takes ceil(4) = 4 slots, 2 and 3 workers both ceil(2) = ceil(1.33) = 2, so 3 workers (more
    capacity, no earlier completion) is dominated by 2 and dropped; the empty cloud hosts
    nothing."""
    spec = job(0, 0, 3, 1, compute=4 / 3)
    confs = configurations(spec, one_server(workers=3))
    assert [(k.workers, k.ps_server, k.duration, k.earliest) for k in confs] == [
        (((0, 2),), 0, 2, 0),
        (((0, 1),), 0, 4, 0),
    ]


# ---------------------------------------------------------------------------------- re-checking


def test_tampered_solutions_fail_the_independent_check() -> None:
    c = Cluster.edge_cloud([{"w0": 2, "ps0": 1}], {"w0": 2, "ps0": 1}, edge_delay=1.0, cloud_delay=2.0)
    wl = Workload(c, (job(0, 0, 2, 2), job(1, 0, 2, 2)))
    sol = solve_offline(wl)
    check_offline_solution(wl, sol)

    def with_schedule(j, **changes) -> OfflineSolution:
        scheds = dict(sol.schedules)
        scheds[j] = dataclasses.replace(scheds[j], **changes)
        from dlsched.aonline.offline import _allocations

        return dataclasses.replace(sol, schedules=scheds, allocations=_allocations(scheds))

    s0 = sol.schedules[0]
    early = with_schedule(0, start=s0.start - 1, completion=s0.completion - 1)
    with pytest.raises(ScheduleViolation) as e:  # (2i): before the data reached the server
        check_offline_solution(wl, early)
    assert e.value.constraint == "transfer_delay"
    with pytest.raises(ScheduleViolation, match=r"\(2e\)"):
        check_offline_solution(wl, with_schedule(0, completion=s0.start))
    other = sol.schedules[1]
    clash = with_schedule(0, start=other.start, completion=other.completion, workers=other.workers,
                          ps_server=other.ps_server)  # fmt: skip
    with pytest.raises(ScheduleViolation) as e:  # (2g)-(2h)
        check_offline_solution(wl, clash)
    assert e.value.constraint == "capacity"
    with pytest.raises(ScheduleViolation, match="objective"):
        check_offline_solution(wl, dataclasses.replace(sol, objective=sol.objective - 1))
    with pytest.raises(ScheduleViolation, match="no schedule"):
        check_offline_solution(wl, dataclasses.replace(sol, schedules={0: s0}))


def test_too_short_a_horizon_is_infeasible() -> None:
    wl = Workload(one_server(), (job(0, 0, 1, 3),))
    sol = solve_offline(wl, horizon=2)
    assert (sol.status, sol.objective, dict(sol.schedules)) == ("infeasible", math.inf, {})
    assert solve_offline(wl, horizon=3).completion == {0: 2}
    assert exact_horizon(wl) == 3


# ------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"horizon": 0}, r"horizon must be an integer >= 1, got 0"),
        ({"horizon": 2.5}, r"horizon must be an integer >= 1, got 2.5"),
        ({"time_limit": 0}, r"time_limit must be > 0, got 0"),
        ({"mip_rel_gap": -0.1}, r"mip_rel_gap must be >= 0, got -0.1"),
        ({"weights": {0: -1.0}}, r"weights\[0\] must be a finite number > 0, got -1.0"),
        ({"weights": {7: 1.0}}, r"weights names job 7"),
        ({"presolve": "no"}, r"presolve must be a bool, got 'no'"),
        ({"max_columns": 3, "horizon": 50}, r"would have \d+ columns > max_columns=3"),
        ({"max_columns": 0}, r"max_columns must be an integer >= 1 or None, got 0"),
    ],
)
def test_bad_arguments_name_field_and_value(kwargs, match) -> None:
    wl = Workload(one_server(), (job(0, 0, 1, 3),))
    with pytest.raises(ValueError, match=match):
        solve_offline(wl, **kwargs)


def test_non_aonline_jobs_and_unfinished_runs_are_refused() -> None:
    c = Cluster.edge_cloud([{"w0": 2}], {"w0": 2}, edge_delay=0.0, cloud_delay=0.0)
    wl = Workload(c, (JobSpec(0, 0, LinearModel(work=2.0), {"w0": 1}),))
    with pytest.raises(ValueError, match=r"job 0: model must be an AOnlineModel .* got LinearModel"):
        solve_offline(wl)
    with pytest.raises(TypeError, match="Workload"):
        solve_offline("nope")
    small = Workload(one_server(), (job(0, 0, 1, 5),))
    r = simulate(small, FIFO(), horizon=2)
    with pytest.raises(ValueError, match=r"jobs \[0\] did not finish"):
        total_completion_time(r)
