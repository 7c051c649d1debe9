"""Issue 23, the O(changes) decision: :meth:`Decision.update` and the simulator's path for it.

* ``Decision.update(base, changes)`` has the allocations of ``Decision(base with changes)``:
  placements set, ``EMPTY`` stopping a job, new jobs appended; a ``base`` that is not the
  simulator's own is checked like ``allocations``;
* the view's placements (:class:`~dlsched.core.schedule.Allocations`) are read-only;
* a policy answering with ``update`` gets exactly the result of the same policy answering with
  full decisions, and its changed jobs are still checked (capacity, admission, roles);
* an ``update`` on a mapping other than the view's placements takes the full path.
"""

from __future__ import annotations

import numpy as np
import pytest

from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, LinearModel, Workload
from dlsched.core.policy import BasePolicy
from dlsched.core.schedule import EMPTY, Allocations, Decision, Placement, ScheduleViolation, check_capacity
from dlsched.core.simulator import simulate


def _workload(n_jobs: int = 14, seed: int = 0, n_servers: int = 3) -> Workload:
    rng = np.random.default_rng(seed)
    cluster = Cluster(tuple(Server(f"s{i}", "unified", {"gpu": 4.0, "cpu": 16.0}) for i in range(n_servers)))
    jobs = []
    for j in range(n_jobs):
        model = LinearModel(work=float(rng.integers(2, 9)), min_gang=1, max_gang=2)
        demand = {"gpu": 1.0, "cpu": float(rng.integers(1, 5))}
        jobs.append(JobSpec(j, int(rng.integers(0, 12)), model, worker_demand=demand))
    return Workload(cluster, jobs)


class _Greedy(BasePolicy):
    """Admits every arrival; starts waiting jobs first-fit, one worker each; every third decision
    moves the oldest running job to the next server if it fits there (an elastic change), so
    that the changes cover starts and moves. ``delta`` answers with Decision.update."""

    name = "greedy_test"

    def __init__(self, delta: bool = False, base: str = "view") -> None:
        self.delta = delta
        self.base = base

    def reset(self, cluster, rng) -> None:
        super().reset(cluster, rng)
        self.n = 0

    def decide(self, t, view):
        self.n += 1
        free = view.free
        running = dict(view.placements)
        changes: dict[int, Placement] = {}
        for j, v in view.jobs.items():
            if not v.placement.is_empty:
                continue
            need = np.array([v.spec.worker_demand["gpu"], v.spec.worker_demand["cpu"]])
            for s in range(view.cluster.n_servers):
                if np.all(free[s] >= need - 1e-9):
                    free[s] -= need
                    changes[j] = Placement.of({s: 1})
                    break
        if self.n % 3 == 0 and running:
            j = min(running)
            ((s, c),) = running[j].workers
            v = view.jobs[j]
            need = c * np.array([v.spec.worker_demand["gpu"], v.spec.worker_demand["cpu"]])
            s2 = (s + 1) % view.cluster.n_servers
            if np.all(free[s2] >= need - 1e-9):
                changes[j] = Placement.of({s2: c})
        admit = [j for j in view.arrived]
        if not self.delta:
            allocs = {**running, **changes}
            return Decision(allocs, admit=admit)
        base = view.placements if self.base == "view" else dict(view.placements)
        return Decision.update(base, changes, admit=admit)


def test_update_has_the_allocations_of_the_full_decision():
    a, b, c = Placement.of({0: 1}), Placement.of({1: 2}), Placement.of({2: 1})
    base = Allocations({3: a, 1: b})
    d = Decision.update(base, {1: EMPTY, 7: c, 3: b}, admit=[7], wakeup=5)
    assert list(d.allocations.items()) == [(3, b), (7, c)]  # base order, new jobs appended
    assert d == Decision({3: b, 7: c}, admit=[7], wakeup=5)
    assert d.delta == (base, (1, 7, 3))
    assert Decision({3: b}).delta is None


def test_update_checks_a_base_that_is_not_the_simulators():
    with pytest.raises(TypeError, match=r"allocations\[2\] must be a Placement"):
        Decision.update({2: "not a placement"}, {})
    with pytest.raises(TypeError, match=r"allocations\[5\] must be a Placement"):
        Decision.update(Allocations(), {5: None})
    d = Decision.update({4: EMPTY, 2: Placement.of({0: 1})}, {})
    assert dict(d.allocations) == {2: Placement.of({0: 1})}  # empty placements dropped


def test_allocations_are_read_only():
    a = Allocations({1: Placement.of({0: 1})})
    for change in (lambda: a.__setitem__(2, EMPTY), lambda: a.pop(1), lambda: a.update({}), a.clear):
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert dict(a) == {1: Placement.of({0: 1})}


@pytest.mark.parametrize("seed", range(6))
def test_update_decisions_give_the_full_decisions_result(seed):
    wl = _workload(seed=seed)
    full = simulate(wl, _Greedy(delta=False), seed=0)
    fast = simulate(wl, _Greedy(delta=True), seed=0)
    copy = simulate(wl, _Greedy(delta=True, base="copy"), seed=0)  # full path in the engine
    assert full.jobs["status"].eq("finished").all() and full.jobs["migrations"].sum() > 0
    assert full.decisions == fast.decisions == copy.decisions
    assert full.jobs.equals(fast.jobs) and full.jobs.equals(copy.jobs)
    # the run records of an update start in the changes' order: the same records, sorted
    assert full.intervals.equals(fast.intervals) and full.intervals.equals(copy.intervals)


class _Overfill(BasePolicy):
    """Puts every arrival on server 0 through Decision.update (breaks capacity eventually)."""

    name = "overfill_test"

    def decide(self, t, view):
        changes = {j: Placement.of({0: 2}) for j in view.arrived}
        return Decision.update(view.placements, changes, admit=view.arrived)


class _Unadmitted(BasePolicy):
    name = "unadmitted_test"

    def decide(self, t, view):
        return Decision.update(view.placements, {j: Placement.of({0: 1}) for j in view.arrived})


def test_the_changed_jobs_of_an_update_are_checked():
    model = LinearModel(work=50.0, min_gang=1, max_gang=2)
    jobs = [JobSpec(j, j, model, worker_demand={"gpu": 1.0}) for j in range(3)]
    wl = Workload(Cluster((Server("s0", "unified", {"gpu": 4.0}),)), jobs)
    with pytest.raises(ScheduleViolation, match=r"\[capacity\]") as e:
        simulate(wl, _Overfill(), seed=0)
    assert e.value.slot == 2 and e.value.server == 0
    with pytest.raises(ScheduleViolation, match=r"\[admission\].*job 0, which is pending"):
        simulate(wl, _Unadmitted(), seed=0)


@pytest.mark.parametrize("seed", range(8))
def test_capacity_check_of_the_grown_rows_names_what_the_full_check_names(seed):
    rng = np.random.default_rng(seed)
    cl = Cluster(tuple(Server(f"s{i}", "unified", {"gpu": 4.0, "cpu": 16.0}) for i in range(6)))
    used = cl.capacity * rng.uniform(0.2, 1.0, size=cl.capacity.shape)
    over = sorted(rng.choice(6, size=int(rng.integers(1, 4)), replace=False).tolist())
    for s in over:
        used[s, int(rng.integers(2))] = cl.capacity[s, 0] * 5
    grown = over + rng.choice(6, size=2).tolist()  # every row over capacity, and others
    allocs = {s: Placement.of({s: 1}) for s in range(6)}
    with pytest.raises(ScheduleViolation) as full:
        check_capacity(cl, 3, allocs, used)
    with pytest.raises(ScheduleViolation) as part:
        check_capacity(cl, 3, allocs, used, grown)
    assert str(part.value) == str(full.value) and part.value.server == over[0]
    check_capacity(cl, 3, allocs, used, [s for s in range(6) if s not in over])  # the rest fit
