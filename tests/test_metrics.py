"""Tests of dlsched.core.metrics (and the result tables of the simulator) on a hand-traced run.

The instance: one server with 4 GPUs; four rigid LinearModel gangs of one-GPU workers run by
strict FIFO (slot length 3600 s):

job  arrival  gang  work  slots run        finishes at x  completion slot  JCT
---  -------  ----  ----  ---------------  -------------  ---------------  ---
0    0        2     5     0, 1, 2          2.5            ceil(2.5)-1 = 2  2.5
1    0        2     8     0, 1, 2, 3       4.0            3                4.0
2    1        2     3     3, 4             3 + 1.5 = 4.5  4                3.5
3    2        4     8     5, 6             5 + 2 = 7.0    6                5.0

Job 0 finishes inside slot 2, so its GPUs are free from slot 3 (resources are freed at the next
slot boundary). Job 3 needs all 4 GPUs: job 2 still holds 2 in slot 4, so job 3 starts in slot 5
and blocks nothing (it is last).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dlsched.baselines.fifo import FIFO
from dlsched.core import metrics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import ConstantUtility, JobSpec, LinearModel, Sigmoid, Workload
from dlsched.core.schedule import check_timeline
from dlsched.core.simulator import simulate


def _gang(work: float, g: int) -> LinearModel:
    return LinearModel(work=work, min_gang=g, max_gang=g)


@pytest.fixture(scope="module")
def result():
    cluster = Cluster.homogeneous(1, {"gpu": 4})
    jobs = (
        JobSpec(
            0, 0, _gang(5, 2), {"gpu": 1}, utility=Sigmoid(10.0, 1.0, 2.0), requested_workers=2
        ),
        JobSpec(1, 0, _gang(8, 2), {"gpu": 1}, utility=Sigmoid(4.0, 0.5, 1.0), requested_workers=2),
        JobSpec(2, 1, _gang(3, 2), {"gpu": 1}, utility=ConstantUtility(1.0), requested_workers=2),
        JobSpec(
            3, 2, _gang(8, 4), {"gpu": 1}, utility=Sigmoid(2.0, 0.0, 100.0), requested_workers=4
        ),
    )
    return simulate(Workload(cluster, jobs, name="tiny"), FIFO(), seed=0)


EXPECTED = pd.DataFrame(
    {
        "job_id": [0, 1, 2, 3],
        "arrival": [0, 0, 1, 2],
        "start_slot": [0, 0, 3, 5],
        "completion_time": [2.5, 4.0, 4.5, 7.0],
        "completion_slot": [2, 3, 4, 6],
        "jct": [2.5, 4.0, 3.5, 5.0],
    }
)


def test_job_table_completion_and_jct(result):
    j = result.jobs.set_index("job_id")
    e = EXPECTED.set_index("job_id")
    assert (j["status"] == "finished").all()
    assert j["admitted"].all()
    np.testing.assert_array_equal(j["admitted_at"], [0, 0, 1, 2])  # FIFO admits on arrival
    for col in ("start_slot", "completion_time", "completion_slot", "jct"):
        np.testing.assert_allclose(j[col].to_numpy(float), e[col].to_numpy(float), err_msg=col)
    # completion_slot = ceil(x) - 1
    np.testing.assert_array_equal(j["completion_slot"], np.ceil(e["completion_time"]) - 1)
    np.testing.assert_allclose(j["jct_seconds"], e["jct"] * 3600.0)
    np.testing.assert_allclose(j["work_done"], [5, 8, 3, 8])
    assert (j["migrations"] == 0).all()
    assert result.end_slot == 7
    assert result.stalled is False


def test_utilities_use_completion_slot_minus_arrival(result):
    u = result.jobs.set_index("job_id")["utility"]
    # job 0: duration 2 - 0 = 2 = gamma3 -> 10/2 = 5
    assert u[0] == pytest.approx(5.0)
    # job 1: duration 3 - 0 = 3 -> 4/(1 + e^{0.5*(3-1)}) = 4/(1+e)
    assert u[1] == pytest.approx(4.0 / (1.0 + math.e))
    # job 2: constant 1; job 3: gamma2 = 0 -> gamma1/2 = 1
    assert u[2] == pytest.approx(1.0)
    assert u[3] == pytest.approx(1.0)
    assert metrics.total_utility(result) == pytest.approx(7.0 + 4.0 / (1.0 + math.e))
    assert metrics.total_utility(result.jobs) == metrics.total_utility(result)


def test_completion_minus_target(result):
    cmt = metrics.completion_minus_target(result)
    # job 0: 2 - 2 = 0; job 1: 3 - 1 = 2; job 2 has no target (dropped); job 3: (6 - 2) - 100 = -96
    assert cmt.to_dict() == {0: 0.0, 1: 2.0, 3: -96.0}


def test_jct_makespan_summary(result):
    assert metrics.jct(result).to_dict() == {0: 2.5, 1: 4.0, 2: 3.5, 3: 5.0}
    assert metrics.jct(result, seconds=True)[2] == pytest.approx(3.5 * 3600)
    assert metrics.mean_jct(result) == pytest.approx((2.5 + 4.0 + 3.5 + 5.0) / 4)  # 3.75
    # first arrival 0, last completion 7.0
    assert metrics.makespan(result) == pytest.approx(7.0)
    assert metrics.makespan(result, seconds=True) == pytest.approx(7.0 * 3600)
    assert list(metrics.finished(result)["job_id"]) == [0, 1, 2, 3]
    s = metrics.summary(result)
    assert s == {
        "jobs": 4,
        "finished": 4,
        "rejected": 0,
        "total_utility": pytest.approx(7.0 + 4.0 / (1.0 + math.e)),
        "mean_jct": pytest.approx(3.75),
        "makespan": pytest.approx(7.0),
    }


def test_usage_timeline_and_utilization(result):
    u = metrics.usage_timeline(result)
    assert list(u.columns) == ["slot", "gpu"]
    assert u["slot"].tolist() == [0, 1, 2, 3, 4, 5, 6]
    # slots 0-2: jobs 0 + 1 (2 + 2); slot 3: jobs 1 + 2; slot 4: job 2 only; slots 5-6: job 3
    assert u["gpu"].tolist() == [4, 4, 4, 4, 2, 4, 4]
    util = metrics.utilization(result)
    np.testing.assert_allclose(util["gpu"], [1, 1, 1, 1, 0.5, 1, 1])
    pd.testing.assert_frame_equal(result.usage(), u)


def test_allocations_expand_runs_slot_by_slot(result):
    a = result.allocations
    assert list(a.columns) == ["job", "slot", "server", "role", "count"]
    got = sorted(map(tuple, a[["job", "slot", "count"]].to_numpy().tolist()))
    expected = sorted(
        [(0, t, 2) for t in (0, 1, 2)]
        + [(1, t, 2) for t in (0, 1, 2, 3)]
        + [(2, t, 2) for t in (3, 4)]
        + [(3, t, 4) for t in (5, 6)]
    )
    assert got == expected
    assert (a["server"] == 0).all() and (a["role"] == "worker").all()
    # the run of job 3 covers two slots in one record
    r3 = result.runs[result.runs["job"] == 3]
    assert r3[["slot", "slots", "count"]].to_numpy().tolist() == [[5, 2, 4]]
    # every run expands to exactly `slots` rows
    assert len(a) == int(result.runs["slots"].sum())
    # sorted by slot, then job
    assert a[["slot", "job"]].apply(tuple, axis=1).is_monotonic_increasing
    # the recorded schedule passes the independent checker
    check_timeline(result.workload.cluster, result.workload.specs, a)


def test_metrics_with_no_finished_job():
    cluster = Cluster.homogeneous(1, {"gpu": 4})
    wl = Workload(cluster, (JobSpec(0, 0, _gang(10, 2), {"gpu": 1}),))
    r = simulate(wl, FIFO(), horizon=2)
    assert r.jobs["status"].tolist() == ["unfinished"]
    assert metrics.total_utility(r) == 0.0
    assert math.isnan(metrics.mean_jct(r)) and math.isnan(metrics.makespan(r))
    assert metrics.jct(r).empty
    assert metrics.usage_timeline(r)["gpu"].tolist() == [2, 2]
    assert metrics.summary(r)["finished"] == 0
