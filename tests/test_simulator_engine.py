"""The engine's incremental bookkeeping (issue 11: whole-trace speed) gives the plain answers.

* :class:`~dlsched.core.schedule.UsageCache` equals :func:`server_usage` bit for bit, whether it
  updates by the changes (whole-number demands) or re-sums (fractional ones);
* the lazily built job table of a view holds the same :class:`JobView` objects as an eager one,
  and a view a policy keeps is a snapshot of its slot;
* a job's run records last while its placement is unchanged.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import pytest

from dlsched import registry
from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import JobSpec, LinearModel, Workload
from dlsched.core.policy import BasePolicy, JobView
from dlsched.core.schedule import Decision, Placement, UsageCache, server_usage
from dlsched.core.simulator import simulate


def _cluster(n: int = 4) -> Cluster:
    cap = {"gpu": 8.0, "cpu": 32.0, "mem": 64.0}
    return Cluster(tuple(Server(f"s{i}", "unified", cap) for i in range(n)))


def _specs(rng: np.random.Generator, n: int, fractional: bool) -> dict[int, JobSpec]:
    out = {}
    for j in range(n):
        cpu = float(rng.uniform(0.1, 3.0)) if fractional else float(rng.integers(1, 4))
        out[j] = JobSpec(j, 0, LinearModel(work=10.0, min_gang=1, max_gang=4),
                         worker_demand={"gpu": 1.0, "cpu": cpu, "mem": 2.0})  # fmt: skip
    return out


@pytest.mark.parametrize("fractional", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_usage_cache_equals_server_usage_bit_for_bit(fractional: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    cl = _cluster()
    specs = _specs(rng, 12, fractional)
    cache = UsageCache(cl, specs)
    allocs: dict[int, Placement] = {}
    for _ in range(60):
        j = int(rng.integers(12))
        if j in allocs and rng.random() < 0.4:
            del allocs[j]
        else:
            allocs[j] = Placement.of({int(rng.integers(4)): int(rng.integers(1, 3))})
        order = list(allocs)
        rng.shuffle(order)
        allocs = {k: allocs[k] for k in order}  # a policy may list its jobs in any order
        got = cache.update(allocs)
        want = server_usage(cl, specs, allocs)
        if fractional:
            np.testing.assert_array_equal(got, want)  # re-summed in the same order
        else:
            np.testing.assert_array_equal(got, want)  # exact: whole numbers
        np.testing.assert_array_equal(cache.usage(allocs), want)
    assert cache.integral is (not fractional)


@pytest.mark.parametrize("seed", range(6))
def test_usage_cache_re_sums_only_touched_servers_bit_for_bit(seed: int) -> None:
    """Fractional demands with the kept jobs in their order (new jobs anywhere, some reorders):
    the per-server re-sum equals ``server_usage`` bit for bit, PS rows and shared servers included."""
    rng = np.random.default_rng(100 + seed)
    cl = _cluster(5)
    specs = {
        j: dataclasses.replace(s, ps_demand={"cpu": float(rng.uniform(0.1, 2.0)), "mem": 0.3})
        for j, s in _specs(rng, 16, True).items()
    }
    cache = UsageCache(cl, specs)
    allocs: dict[int, Placement] = {}
    for step in range(120):
        for _ in range(int(rng.integers(1, 4))):
            j = int(rng.integers(16))
            if j in allocs and rng.random() < 0.3:
                del allocs[j]
                continue
            hosts = rng.choice(5, int(rng.integers(1, 3)), replace=False)
            p = Placement.of(
                {int(s): int(rng.integers(1, 3)) for s in hosts},
                {int(rng.integers(5)): 1} if rng.random() < 0.5 else {},
            )
            if j in allocs or rng.random() < 0.5:
                allocs[j] = p  # in place (a kept job keeps its position), or appended
            else:  # a new job inserted at a random position
                items = list(allocs.items())
                items.insert(int(rng.integers(len(items) + 1)), (j, p))
                allocs = dict(items)
        if step % 17 == 16:  # now and then the policy lists its jobs in another order
            order = list(allocs)
            rng.shuffle(order)
            allocs = {k: allocs[k] for k in order}
        got = cache.update(dict(allocs))
        np.testing.assert_array_equal(got, server_usage(cl, specs, allocs))
    assert not cache.integral


def _fields(v: JobView) -> tuple:
    return tuple(getattr(v, f.name) for f in dataclasses.fields(v))


class _Keeper(BasePolicy):
    """FIFO-like: start every pending job on server 0 if it fits; keep every view it is given."""

    name = "keeper"

    def __init__(self) -> None:
        self.kept: list = []
        self.eager: list = []

    def decide(self, t, view):
        self.kept.append(view)
        self.eager.append({j: _fields(v) for j, v in view.jobs.items()})
        allocs = view.current_allocations()
        free = view.free[0, 0]
        for j in view.jobs:
            if j not in allocs and free >= 1:
                allocs[j] = Placement.of({0: 1})
                free -= 1
        return Decision(allocations=allocs, admit=[v.job_id for v in view.pending()])


def _workload() -> Workload:
    cl = Cluster((Server("s0", "unified", {"gpu": 2.0}),))
    specs = tuple(JobSpec(j, j // 2, LinearModel(work=3.0 + j, min_gang=1, max_gang=1),
                          worker_demand={"gpu": 1.0}) for j in range(6))  # fmt: skip
    return Workload(cl, specs)


def test_a_kept_view_is_a_snapshot_of_its_slot() -> None:
    pol = _Keeper()
    simulate(_workload(), pol)
    assert len(pol.kept) > 3
    for view, eager in zip(pol.kept, pol.eager, strict=True):
        later = {j: _fields(v) for j, v in view.jobs.items()}
        assert later.keys() == eager.keys()
        for j in later:
            a, b = later[j], eager[j]
            assert a[:6] == b[:6] and np.array_equal(a[6], b[6])  # observations compared as arrays


def test_job_views_are_ordinary_job_views() -> None:
    seen = []

    class Probe(_Keeper):
        def decide(self, t, view):
            for v in view.jobs.values():
                rebuilt = JobView(v.spec, v.status, v.work_done, v.remaining_work, v.start, v.placement,
                                  v.observations)  # fmt: skip
                assert isinstance(v, JobView) and v == rebuilt
                seen.append(v.job_id)
                with pytest.raises(dataclasses.FrozenInstanceError):
                    v.status = "x"
            return super().decide(t, view)

    simulate(_workload(), Probe())
    assert seen


def test_run_records_last_while_the_placement_is_unchanged() -> None:
    wl = registry.make_workload("philly_like", seed=0, n_jobs=60)
    res = simulate(wl, registry.make_policy("fifo", wl), seed=0)
    # FIFO never changes a running job's placement: one record per job and task server.
    per_job = res.runs.groupby("job")["slot"].nunique()
    assert (per_job == 1).all()
    done = res.jobs[res.jobs["status"] == "finished"].set_index("job_id")
    for j, g in res.runs.groupby("job"):
        end = int((g["slot"] + g["slots"]).max())
        assert end == int(done.loc[j, "completion_slot"]) + 1
    # the records cover the same task-slots as the per-slot allocation table
    assert int((res.runs["count"] * res.runs["slots"]).sum()) == int(res.allocations["count"].sum())


def test_placement_of_agrees_with_the_job_table():
    seen = []

    class Probe(_Keeper):
        def decide(self, t, view):
            for j, v in view.jobs.items():
                want = v.placement if v.running else None
                assert view.placement_of(j) == want
                seen.append(j)
            assert view.placement_of(10**6) is None
            running = {j: p for j, p in view.placements.items() if not p.is_empty}
            assert dict(view.current_allocations()) == running
            return super().decide(t, view)

    simulate(_workload(), Probe())
    assert seen


@dataclasses.dataclass(frozen=True)
class _ClusterLoad(LinearModel):
    """Rate 1 / (total CPU load of the whole cluster): reads other servers' load."""

    load_scope: ClassVar[str] = "cluster"

    def rate(self, spec, placement, ctx) -> float:
        return 0.0 if placement.n_workers == 0 else 1.0 / float(ctx.load[:, 0].sum())


@dataclasses.dataclass(frozen=True)
class _PlacementLoad(_ClusterLoad):
    load_scope: ClassVar[str] = "placement"  # a false claim: the engine keeps a stale rate


class _OnOwnServer(BasePolicy):
    """Job j on server j, each placement object kept while the job runs."""

    name = "own_server"

    def decide(self, t, view):
        allocs = view.current_allocations()
        for j in view.jobs:
            if j not in allocs:
                allocs[j] = Placement.of({j: 1})
        return Decision(allocations=allocs, admit=[v.job_id for v in view.pending()])


@pytest.mark.parametrize("model, completion", [(_ClusterLoad, 18.0), (_PlacementLoad, 10.0)])
def test_rates_are_reused_only_as_load_scope_allows(model, completion) -> None:
    """Job 0 (work 10) runs alone at rate 1 for slots 0-1, then beside job 1 (on the other
    server) at 1/2: it finishes at 2 + 8 / (1/2) = 18 when its model reads the whole cluster's
    load (load_scope "cluster"); a model that claims "placement" keeps its rate 1 and ends at 10."""
    cl = Cluster((Server("s0", "unified", {"cpu": 4.0}), Server("s1", "unified", {"cpu": 4.0})),
                 compressible=("cpu",))  # fmt: skip
    specs = (JobSpec(0, 0, model(work=10.0), worker_demand={"cpu": 1.0}),
             JobSpec(1, 2, model(work=100.0), worker_demand={"cpu": 1.0}))  # fmt: skip
    res = simulate(Workload(cl, specs), _OnOwnServer())
    done = res.jobs.set_index("job_id")
    assert done.loc[0, "jct"] == pytest.approx(completion, abs=1e-9)
