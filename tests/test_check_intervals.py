"""Issue 23: the checker reads the interval-encoded allocations (``dlsched run``'s file) as it
reads the per-slot table: :func:`check_intervals` accepts what :func:`check_timeline` accepts on
the expanded table and names the same constraint when a schedule is broken."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dlsched import registry
from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, LinearModel, Workload
from dlsched.core.schedule import ScheduleViolation, check_intervals, check_timeline
from dlsched.core.simulator import simulate


def _expand(iv: pd.DataFrame) -> pd.DataFrame:
    reps = (iv["last_slot"] - iv["first_slot"] + 1).to_numpy()
    idx = np.repeat(np.arange(len(iv)), reps)
    offset = np.arange(len(idx)) - np.repeat(np.cumsum(reps) - reps, reps)
    return pd.DataFrame(
        {
            "job": iv["job"].to_numpy()[idx],
            "slot": iv["first_slot"].to_numpy()[idx] + offset,
            "server": iv["server"].to_numpy()[idx],
            "role": iv["role"].to_numpy()[idx],
            "count": iv["count"].to_numpy()[idx],
        }
    )


def _violation(check, *args) -> tuple | None:
    try:
        check(*args)
    except ScheduleViolation as e:
        return (e.constraint, e.job, e.slot)
    return None


@pytest.mark.parametrize(
    "workload, policy, params",
    [
        ("oasis", "drf", {"n_jobs": 30, "T": 40}),
        ("oasis", "oasis", {"n_jobs": 30, "T": 40}),
        ("aonline", "preemptive", {"n_jobs": 30, "n_edge": 20}),
        ("specon", "specon", {}),
        ("philly", "fifo", {"n_jobs": 200}),
    ],
)
def test_simulated_schedules_pass_and_expand_to_the_slot_table(workload, policy, params):
    params = {**registry.workload_defaults(policy, workload), **params}
    wl = registry.make_workload(workload, seed=1, **params)
    res = simulate(wl, registry.make_policy(policy, wl), seed=1)
    assert check_intervals(wl.cluster, wl.specs, res.intervals) > 0
    got = _expand(res.intervals).sort_values(["slot", "job", "role", "server"]).reset_index(drop=True)
    assert got.equals(res.allocations[got.columns.tolist()])


def _small():
    cluster = Cluster(tuple(Server(f"s{i}", "unified", {"gpu": 4.0}) for i in range(2)))
    rigid = LinearModel(work=6.0, min_gang=2, max_gang=2)
    jobs = [JobSpec(j, 0, rigid, worker_demand={"gpu": 1.0}) for j in range(4)]
    return Workload(cluster, jobs)


def _rows(*rows) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=["job", "server", "role", "count", "first_slot", "last_slot"])


@pytest.mark.parametrize(
    "table, constraint",
    [
        (_rows((0, 0, "worker", 2, 0, 5), (1, 0, "worker", 2, 0, 5)), None),
        (_rows((0, 0, "worker", 2, 0, 5), (1, 0, "worker", 2, 3, 8), (2, 0, "worker", 2, 5, 9)), "capacity"),
        (_rows((0, 0, "worker", 2, 0, 2), (0, 1, "worker", 2, 3, 5)), "fixed_allocation"),  # not elastic
        (_rows((0, 0, "worker", 2, 0, 2), (0, 0, "worker", 2, 2, 5)), "overlap"),
        (_rows((0, 0, "worker", 3, 0, 2)), "max_workers"),
        (_rows((7, 0, "worker", 2, 0, 2)), "unknown_job"),
    ],
)
def test_broken_schedules_name_the_constraint_check_timeline_names(table, constraint):
    wl = _small()
    got = _violation(check_intervals, wl.cluster, wl.specs, table)
    assert (got[0] if got else None) == constraint
    if constraint not in (None, "overlap"):  # (the slot table cannot hold an overlap)
        want = _violation(check_timeline, wl.cluster, wl.specs, _expand(table))
        assert got == want


def test_bad_tables_are_refused_with_the_column_named():
    wl = _small()
    with pytest.raises(ValueError, match="lacks columns.*last_slot"):
        check_intervals(wl.cluster, wl.specs, _rows().drop(columns="last_slot"))
    with pytest.raises(ValueError, match="role must be 'worker' or 'ps', got 'gpu'"):
        check_intervals(wl.cluster, wl.specs, _rows((0, 0, "gpu", 2, 0, 1)))
    with pytest.raises(ValueError, match="ends .slot 1. before it starts .3."):
        check_intervals(wl.cluster, wl.specs, _rows((0, 0, "worker", 2, 3, 1)))
