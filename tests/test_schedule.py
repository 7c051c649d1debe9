"""Tests of dlsched.core.schedule: Placement, Decision, and the independent feasibility checker."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import (
    AOnlineModel,
    JobSpec,
    LinearModel,
    OasisModel,
    PdorsModel,
    SpeconModel,
)
from dlsched.core.schedule import (
    EMPTY,
    Decision,
    Placement,
    ScheduleViolation,
    check_allocations,
    check_timeline,
    server_usage,
)

P = Placement.of


# ---------------------------------------------------------------------------------- Placement


def test_placement_normalises_merges_drops_zeros_and_sorts():
    p = P([(2, 1), (0, 0), (1, 2), (2, 3)], {3: 0, 1: 1})
    assert p.workers == ((1, 2), (2, 4))
    assert p.ps == ((1, 1),)
    assert (p.n_workers, p.n_ps) == (6, 1)
    assert p.servers == frozenset({1, 2})
    assert p.workers_on(2) == 4 and p.workers_on(0) == 0
    assert p.ps_on(1) == 1 and p.ps_on(2) == 0
    # mapping and pair-list forms are equal
    assert P({2: 4, 1: 2}, [(1, 1)]) == p
    assert P({0: 0}, {1: 0}) == EMPTY
    assert EMPTY.is_empty and not p.is_empty


def test_placement_colocated():
    assert P({0: 3}, {0: 1}).colocated
    assert not P({0: 3}, {1: 1}).colocated
    assert not P({0: 1, 1: 1}, {0: 1}).colocated
    assert not EMPTY.colocated


@pytest.mark.parametrize(
    ("workers", "pattern"),
    [
        ({-1: 1}, r"placement.workers: server index must be an integer >= 0, got -1"),
        ({0: 1.0}, r"placement.workers: count on server 0 must be an integer >= 0, got 1.0"),
        ({0: -2}, r"count on server 0 must be an integer >= 0, got -2"),
        ({0: True}, r"count on server 0 must be an integer >= 0, got True"),
        ([(0, 1, 2)], r"placement.workers: expected \(server, count\) pairs, got \(0, 1, 2\)"),
    ],
)
def test_placement_validation(workers, pattern):
    with pytest.raises(ValueError, match=pattern):
        P(workers)


# ----------------------------------------------------------------------------------- Decision


def test_decision_drops_empty_placements_and_normalises_ids():
    d = Decision(
        {0: P({0: 1}), 1: EMPTY}, admit=[0, 2], reject=(3,), wakeup=5, info={0: {"mu": 1.5}}
    )
    assert dict(d.allocations) == {0: P({0: 1})}
    assert d.admit == frozenset({0, 2}) and d.reject == frozenset({3})
    assert d.info[0]["mu"] == 1.5
    with pytest.raises(TypeError):
        d.allocations[5] = EMPTY  # read-only mapping


def test_decision_validation():
    with pytest.raises(ValueError, match=r"decision admits and rejects the same jobs \[1, 2\]"):
        Decision(admit=[1, 2, 3], reject=[2, 1])
    with pytest.raises(TypeError, match=r"decision.allocations\[0\] must be a Placement, got dict"):
        Decision({0: {"workers": {0: 1}}})
    with pytest.raises(
        ValueError, match=r"decision.wakeup must be an integer slot or None, got 1.5"
    ):
        Decision(wakeup=1.5)
    with pytest.raises(
        ValueError, match=r"decision.wakeup must be an integer slot or None, got True"
    ):
        Decision(wakeup=True)


@pytest.mark.parametrize("wakeup", [math.nan, math.inf, "soon"])
def test_decision_non_finite_wakeup(wakeup):
    with pytest.raises(ValueError, match=r"decision.wakeup"):
        Decision(wakeup=wakeup)


# ----------------------------------------------------------------------- check_allocations


def _violation(cluster, specs, t, allocs) -> ScheduleViolation:
    with pytest.raises(ScheduleViolation) as info:
        check_allocations(cluster, specs, t, allocs)
    return info.value


UNI = Cluster.homogeneous(2, {"gpu": 4, "cpu": 8})
LIN_SPECS = {
    0: JobSpec(0, 0, LinearModel(10.0), {"gpu": 1, "cpu": 2}),
    1: JobSpec(1, 0, LinearModel(10.0), {"gpu": 1, "cpu": 1}),
    2: JobSpec(2, 3, LinearModel(10.0), {"gpu": 1}),
}


def test_feasible_allocation_passes_and_usage_is_summed():
    allocs = {0: P({1: 2}), 1: P({1: 2, 0: 1})}
    check_allocations(UNI, LIN_SPECS, 0, allocs)
    used = server_usage(UNI, LIN_SPECS, allocs)
    # server 1: 2*(1,2) + 2*(1,1) = (4, 6); server 0: 1*(1,1)
    assert used.tolist() == [[1, 1], [4, 6]]


def test_capacity_violation_amounts():
    # server 1: job 0 has 3 workers of (1 gpu, 2 cpu), job 1 has 2 of (1 gpu, 1 cpu)
    # -> gpu 3 + 2 = 5 > 4; cpu 6 + 2 = 8 <= 8
    v = _violation(UNI, LIN_SPECS, 4, {0: P({1: 3}), 1: P({1: 2})})
    assert v.constraint == "capacity"
    assert (v.slot, v.server, v.resource) == (4, 1, "gpu")
    assert (v.amount, v.limit) == (5.0, 4.0)
    assert v.job is None
    assert "jobs there: [0, 1]" in str(v)
    # cpu over capacity only: job 0 has 2 workers (gpu 2, cpu 4) and a cpu-only job 3 has 2 workers
    # of 3 cpu on server 0 -> cpu 4 + 6 = 10 > 8 while gpu 2 <= 4
    specs = dict(LIN_SPECS) | {3: JobSpec(3, 0, LinearModel(1.0), {"cpu": 3})}
    v = _violation(UNI, specs, 0, {0: P({0: 2}), 3: P({0: 2})})
    assert (v.constraint, v.server, v.resource, v.amount, v.limit) == (
        "capacity",
        0,
        "cpu",
        10.0,
        8.0,
    )


def test_role_violations():
    c = Cluster.two_pools(1, 1, {"gpu": 4, "cpu": 8}, {"cpu": 8})
    m = OasisModel(1, 4, 1, 0.1, 0.1)
    specs = {5: JobSpec(5, 0, m, {"gpu": 1}, {"cpu": 1})}
    v = _violation(c, specs, 2, {5: P({1: 2}, {1: 1})})  # 2 workers on the PS server
    assert (v.constraint, v.slot, v.server, v.job, v.amount) == ("role", 2, 1, 5, 2)
    assert "'p0'" in str(v) and "'ps'" in str(v)
    v = _violation(c, specs, 2, {5: P({0: 1}, {0: 1})})  # a PS on the worker server
    assert (v.constraint, v.server, v.job, v.amount) == ("role", 0, 5, 1)
    check_allocations(c, specs, 2, {5: P({0: 1}, {1: 1})})


def test_unknown_job_and_server_index():
    v = _violation(UNI, LIN_SPECS, 1, {9: P({0: 1})})
    assert (v.constraint, v.job, v.slot) == ("unknown_job", 9, 1)
    v = _violation(UNI, LIN_SPECS, 1, {0: P({2: 1})})
    assert (v.constraint, v.server, v.job) == ("server", 2, 0)


def test_arrival_violation():
    v = _violation(UNI, LIN_SPECS, 2, {2: P({0: 1})})  # job 2 arrives at slot 3
    assert (v.constraint, v.slot, v.job) == ("arrival", 2, 2)
    check_allocations(UNI, LIN_SPECS, 3, {2: P({0: 1})})


def test_transfer_delay_violation_cluster_and_job_delays():
    c = Cluster.edge_cloud([{"w": 4}], {"w": 8}, edge_delay=1, cloud_delay=10)
    specs = {
        0: JobSpec(0, 2, LinearModel(5.0), {"w": 1}),
        1: JobSpec(1, 2, LinearModel(5.0), {"w": 1}, transfer_delay=(4, 0)),
    }
    # job 0 on the cloud at slot 5: data arrives at 2 + 10 = 12
    v = _violation(c, specs, 5, {0: P({1: 1})})
    assert (v.constraint, v.slot, v.server, v.job, v.amount, v.limit) == (
        "transfer_delay",
        5,
        1,
        0,
        5,
        12.0,
    )
    check_allocations(c, specs, 3, {0: P({0: 1})})  # edge ready at 2 + 1 = 3
    # job 1 overrides: edge at 2 + 4 = 6, cloud at 2 + 0 = 2
    v = _violation(c, specs, 5, {1: P({0: 1})})
    assert (v.constraint, v.server, v.job, v.limit) == ("transfer_delay", 0, 1, 6.0)
    check_allocations(c, specs, 2, {1: P({1: 1})})


def _model_case(model, workers, ps, wd=None, pd_=None):
    c = Cluster.homogeneous(2, {"gpu": 16, "cpu": 64})
    spec = JobSpec(
        3,
        0,
        model,
        wd or {"gpu": 1},
        pd_ if pd_ is not None else ({"cpu": 1} if model.needs_ps else {}),
    )
    return _violation(c, {3: spec}, 7, {3: P(workers, ps)})


@pytest.mark.parametrize(
    ("model", "workers", "ps", "constraint"),
    [
        (OasisModel(1, 3, 1, 0.1, 0.1), {0: 4}, {1: 4}, "max_workers"),  # (3)
        (
            OasisModel(1, 3, 1, 0.1, 0.1, worker_bw=2, ps_bw=3),
            {0: 2},
            {1: 1},
            "ps_bandwidth",
        ),  # (6)
        (OasisModel(1, 3, 1, 0.1, 0.1), {0: 1}, {1: 2}, "ps_count"),  # (7)
        (OasisModel(1, 3, 1, 0.1, 0.1), {0: 1}, {}, "ps_required"),
        (PdorsModel(1, 10, 4, 0.1, 0.1, 0.2), {0: 5}, {0: 5}, "max_workers"),  # (4) w <= F
        (PdorsModel(1, 10, 4, 0.1, 0.1, 0.2, ratio=2), {0: 3}, {0: 1}, "ps_ratio"),
        (AOnlineModel(1, 3, 1, 0.1, 0.1, 0.1), {0: 4}, {0: 1}, "max_workers"),  # (2a)
        (AOnlineModel(1, 3, 1, 0.1, 0.1, 0.1), {0: 2}, {0: 1, 1: 1}, "one_ps"),  # (2b)
        (LinearModel(5.0, min_gang=3), {0: 2}, {}, "min_workers"),
        (LinearModel(5.0, max_gang=2), {0: 3}, {}, "max_workers"),
        (LinearModel(5.0), {0: 1}, {1: 1}, "ps_not_used"),
        (SpeconModel(5.0), {0: 1, 1: 1}, {}, "max_workers"),
    ],
)
def test_model_constraints_raise_with_slot_and_job(model, workers, ps, constraint):
    v = _model_case(model, workers, ps)
    assert (v.constraint, v.slot, v.job) == (constraint, 7, 3)
    assert "job 3" in str(v)


def test_compressible_resources_are_not_capped():
    c = Cluster.homogeneous(2, {"cpu": 8, "mem": 32}, compressible=("cpu",))
    m = SpeconModel(100.0)
    specs = {j: JobSpec(j, 0, m, {"cpu": 6, "mem": 10}) for j in range(4)}
    # cpu 6 + 6 + 6 = 18 > 8 on server 0 is fine (time-shared); mem 30 <= 32
    check_allocations(c, specs, 0, {0: P({0: 1}), 1: P({0: 1}), 2: P({0: 1})})
    # a 4th container breaks memory: 40 > 32
    v = _violation(c, specs, 0, {j: P({0: 1}) for j in range(4)})
    assert (v.constraint, v.server, v.resource, v.amount, v.limit) == (
        "capacity",
        0,
        "mem",
        40.0,
        32.0,
    )


# ---------------------------------------------------------------------------- check_timeline


def test_check_timeline_passes_and_fails():
    rows = [
        # job, slot, server, role, count
        (0, 0, 0, "worker", 2),
        (0, 0, 1, "worker", 2),
        (1, 0, 0, "worker", 2),
        (0, 1, 0, "worker", 2),
        (1, 1, 0, "worker", 2),
        (2, 3, 1, "worker", 4),
    ]
    check_timeline(UNI, LIN_SPECS, rows)
    check_timeline(
        UNI, LIN_SPECS, pd.DataFrame(rows, columns=["job", "slot", "server", "role", "count"])
    )
    # slot 1: job 1 gets 3 workers on server 0 -> gpu 2 + 3 = 5 > 4
    bad = [r if r[:2] != (1, 1) else (1, 1, 0, "worker", 3) for r in rows]
    with pytest.raises(ScheduleViolation) as info:
        check_timeline(UNI, LIN_SPECS, bad)
    v = info.value
    assert (v.constraint, v.slot, v.server, v.resource, v.amount, v.limit) == (
        "capacity",
        1,
        0,
        "gpu",
        5.0,
        4.0,
    )
    # job 2 before its arrival (slot 3)
    with pytest.raises(ScheduleViolation) as info:
        check_timeline(UNI, LIN_SPECS, rows + [(2, 2, 1, "worker", 1)])
    assert (info.value.constraint, info.value.slot, info.value.job) == ("arrival", 2, 2)


def test_check_timeline_ps_rows_and_role():
    c = Cluster((Server("w", "worker", {"gpu": 2}), Server("p", "ps", {"cpu": 2})))
    m = OasisModel(1, 2, 1, 0.1, 0.1)
    specs = {0: JobSpec(0, 0, m, {"gpu": 1}, {"cpu": 1})}
    check_timeline(c, specs, [(0, 0, 0, "worker", 2), (0, 0, 1, "ps", 2)])
    with pytest.raises(ScheduleViolation) as info:
        check_timeline(c, specs, [(0, 0, 0, "worker", 2), (0, 0, 0, "ps", 2)])
    assert (info.value.constraint, info.value.server) == ("role", 0)


def test_check_timeline_duplicate_rows_are_not_dropped():
    # two rows for job 1 on server 0 in slot 0: 2 + 3 = 5 workers -> gpu 5 > 4 (whether the checker
    # sums the rows or rejects the duplicate, it must not accept the table)
    rows = [(1, 0, 0, "worker", 2), (1, 0, 0, "worker", 3)]
    with pytest.raises(ScheduleViolation):
        check_timeline(UNI, LIN_SPECS, rows)
