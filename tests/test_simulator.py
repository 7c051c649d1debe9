"""Tests of the discrete-time engine (dlsched.core.simulator) with policies written here.

Determinism for the same seed (built-in and random policies), the protocol-only contract (a policy
unknown to the registry runs; the engine's source never names a policy), every kind of invalid
decision raising :class:`ScheduleViolation` with the right ``constraint``, exactness of the
event-driven fast-forward against slot-by-slot stepping, horizons, data-transfer delays, the
SpeCon migration pause computed by hand, and the ``stalled`` flag.
"""

from __future__ import annotations

import ast
import inspect
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from dlsched import registry
from dlsched.baselines.drf import DRF
from dlsched.baselines.fifo import FIFO
from dlsched.core import simulator as simulator_module
from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import (
    AOnlineModel,
    JobSpec,
    LinearModel,
    OptimusModel,
    PdorsModel,
    SpeconModel,
    Workload,
)
from dlsched.core.policy import BasePolicy, ClusterView, Policy
from dlsched.core.schedule import Decision, Placement, ScheduleViolation, check_timeline
from dlsched.core.simulator import simulate

MODELS = ("oasis", "pdors", "aonline", "optimus", "specon", "linear")

# ---------------------------------------------------------------------------------- test policies


class RandomOneWorker:
    """Admits every job and gives each waiting job one worker on a random server with room.

    Implements the :class:`Policy` protocol directly (no base class); all randomness comes from the
    generator handed to :meth:`reset`.
    """

    name: ClassVar[str] = "test-random-one-worker"

    def reset(self, cluster: Cluster, rng: np.random.Generator) -> None:
        self.cluster = cluster
        self.rng = rng

    def decide(self, t: int, view: ClusterView) -> Decision:
        allocs = view.current_allocations()
        free = view.free
        hard = view.cluster.hard
        for v in view.jobs.values():
            if v.running:
                continue
            wd = view.cluster.vector(v.spec.worker_demand)
            room = [s for s in range(view.cluster.n_servers) if np.all(free[s, hard] >= wd[hard])]
            if room:
                s = int(self.rng.choice(room))
                free[s] -= wd
                allocs[v.job_id] = Placement.of({s: 1})
        return Decision(allocs, admit=[v.job_id for v in view.pending()])


class FIFOEverySlot(FIFO):
    """FIFO that asks to be woken at every slot, so the engine cannot fast-forward."""

    name: ClassVar[str] = "test-fifo-every-slot"

    def decide(self, t: int, view: ClusterView) -> Decision:
        d = super().decide(t, view)
        return Decision(d.allocations, admit=d.admit, reject=d.reject, wakeup=t + 1, info=d.info)


class Scripted(BasePolicy):
    """Returns pre-written decisions: ``script[t]`` is a callable ``view -> Decision``.

    Slots without an entry keep the current allocations.
    """

    name: ClassVar[str] = "test-scripted"

    def __init__(self, script):
        self._script = dict(script)

    def decide(self, t: int, view: ClusterView) -> Decision:
        if t in self._script:
            return self._script[t](view)
        return Decision(view.current_allocations())


class NeverAllocates(BasePolicy):
    """Admits everything (if ``admit``) and never allocates anything."""

    name: ClassVar[str] = "test-never"

    def __init__(self, admit: bool = True):
        self.admit = admit

    def decide(self, t: int, view: ClusterView) -> Decision:
        return Decision({}, admit=[v.job_id for v in view.pending()] if self.admit else [])


# --------------------------------------------------------------------------------------- helpers


def gpu_cluster(*gpus: int) -> Cluster:
    return Cluster(tuple(Server(f"g{i}", "unified", {"gpu": g}) for i, g in enumerate(gpus)))


def linear(job_id: int, arrival: int, work: float, lo: int = 1, hi: int | None = None) -> JobSpec:
    return JobSpec(job_id, arrival, LinearModel(work=work, min_gang=lo, max_gang=hi), {"gpu": 1})


def col(result, column: str) -> dict[int, object]:
    return dict(zip(result.jobs["job_id"], result.jobs[column], strict=True))


def synthetic(model: str, seed: int = 3, **kw) -> Workload:
    return registry.make_workload("synthetic", seed=seed, model=model, **kw)


# ----------------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("policy", ["fifo", "drf"])
def test_same_seed_same_tables(model: str, policy: str) -> None:
    """Same seed: identical instance and identical jobs, runs and allocations tables."""
    wl1, wl2 = synthetic(model, seed=11, n_jobs=8), synthetic(model, seed=11, n_jobs=8)
    assert_frame_equal(wl1.jobs_frame(), wl2.jobs_frame())
    r1 = simulate(wl1, registry.make_policy(policy), seed=5)
    r2 = simulate(wl2, registry.make_policy(policy), seed=5)
    assert_frame_equal(r1.jobs, r2.jobs)
    assert_frame_equal(r1.runs, r2.runs)
    assert_frame_equal(r1.allocations, r2.allocations)
    assert (r1.end_slot, r1.decisions, r1.stalled) == (r2.end_slot, r2.decisions, r2.stalled)
    # a different workload seed gives a different instance
    assert not synthetic(model, seed=12, n_jobs=8).jobs_frame().equals(wl1.jobs_frame())


def _random_workload() -> Workload:
    return Workload(gpu_cluster(2, 2, 2, 2, 2), tuple(linear(j, j % 4, 1.0 + j % 3) for j in range(16)))


def test_results_of_identical_runs_compare_equal() -> None:
    wl = synthetic("linear", seed=1, n_jobs=4)
    assert simulate(wl, FIFO()) == simulate(wl, FIFO())


def test_random_policy_is_reproducible_from_the_seed() -> None:
    assert isinstance(RandomOneWorker(), Policy)
    wl = _random_workload()
    a = simulate(wl, RandomOneWorker(), seed=0)
    b = simulate(wl, RandomOneWorker(), seed=0)
    assert_frame_equal(a.jobs, b.jobs)
    assert_frame_equal(a.allocations, b.allocations)
    check_timeline(wl.cluster, wl.specs, a.allocations)
    # a Generator or a SeedSequence built from the same seed give the same stream
    c = simulate(wl, RandomOneWorker(), seed=np.random.SeedSequence(0))
    assert_frame_equal(a.allocations, c.allocations)
    others = [simulate(wl, RandomOneWorker(), seed=s).allocations for s in (1, 2, 3)]
    assert any(not o.equals(a.allocations) for o in others), "the seed does not reach the policy"


def test_seed_must_be_valid() -> None:
    wl = _random_workload()
    for bad in (-1, 1.5, "0", True):
        with pytest.raises(ValueError, match="seed"):
            simulate(wl, RandomOneWorker(), seed=bad)


# ------------------------------------------------------------------------------ protocol contract


def test_policy_outside_the_registry_runs() -> None:
    """Any object with reset/decide works; nothing is looked up by name."""
    assert RandomOneWorker.name not in registry.POLICIES
    wl = _random_workload()
    r = simulate(wl, RandomOneWorker(), seed=0)
    assert r.policy == "test-random-one-worker"
    assert set(r.jobs["status"]) == {"finished"}
    assert (r.jobs["migrations"] == 0).all()


def test_simulator_source_never_names_a_policy() -> None:
    """The engine imports no policy module and never mentions one by name."""
    src = inspect.getsource(simulator_module)
    imported = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert not {m for m in imported if m.startswith(("dlsched.baselines", "dlsched.registry"))}
    assert imported & {"dlsched.core.policy", "dlsched.core.schedule"}
    for word in ("fifo", "drf", "baselines"):
        assert word not in src.lower(), f"simulator mentions {word!r}"


def test_non_policy_is_rejected() -> None:
    with pytest.raises(TypeError, match="Policy"):
        simulate(_random_workload(), object())
    with pytest.raises(TypeError, match="Workload"):
        simulate("not a workload", FIFO())


# ----------------------------------------------------------------------------------- violations


def _one_job_workload() -> Workload:
    """Two 4-GPU servers, job 0 arriving at 0 and job 1 arriving at 2 (elastic, long)."""
    return Workload(gpu_cluster(4, 4), (linear(0, 0, 100.0), linear(1, 2, 100.0)))


def _violation(policy, workload=None) -> ScheduleViolation:
    with pytest.raises(ScheduleViolation) as err:
        simulate(workload or _one_job_workload(), policy)
    return err.value


def test_capacity_violation() -> None:
    pol = Scripted({0: lambda v: Decision({0: Placement.of({0: 5})}, admit=[0])})
    e = _violation(pol)
    assert e.constraint == "capacity"
    assert (e.slot, e.server, e.resource, e.amount, e.limit) == (0, 0, "gpu", 5.0, 4.0)


def test_allocation_before_admission() -> None:
    e = _violation(Scripted({0: lambda v: Decision({0: Placement.of({0: 1})})}))
    assert (e.constraint, e.job, e.slot) == ("admission", 0, 0)


def test_allocation_for_a_job_that_has_not_arrived() -> None:
    e = _violation(Scripted({0: lambda v: Decision({0: Placement.of({0: 1}), 1: Placement.of({1: 1})},
                                                     admit=[0])}))
    assert (e.constraint, e.job) == ("admission", 1)


def test_admitting_twice() -> None:
    script = {0: lambda v: Decision({0: Placement.of({0: 1})}, admit=[0]),
              2: lambda v: Decision(v.current_allocations(), admit=[0, 1])}
    e = _violation(Scripted(script))
    assert (e.constraint, e.job, e.slot) == ("admission", 0, 2)


def test_rejecting_an_admitted_job() -> None:
    script = {0: lambda v: Decision({0: Placement.of({0: 1})}, admit=[0]),
              2: lambda v: Decision({}, admit=[1], reject=[0])}
    e = _violation(Scripted(script))
    assert (e.constraint, e.job) == ("admission", 0)


def test_admit_and_reject_the_same_job() -> None:
    with pytest.raises(ValueError, match="admits and rejects"):
        Decision({}, admit=[0], reject=[0])


def test_moving_a_running_aonline_job() -> None:
    """A_online's allocation is fixed while the job runs, (2c)-(2d)."""
    cluster = Cluster.edge_cloud([{"ws": 2, "ps": 1}], {"ws": 2, "ps": 1}, edge_delay=0.0, cloud_delay=0.0)
    model = AOnlineModel(epochs=1, chunks=2, minibatches=50, compute=1.0, update=0.0, comm=0.0)
    wl = Workload(cluster, (JobSpec(0, 0, model, {"ws": 1}, {"ps": 1}),))
    edge, cloud = Placement.of({0: 1}, {0: 1}), Placement.of({1: 1}, {1: 1})
    keep = Scripted({0: lambda v: Decision({0: edge}, admit=[0], wakeup=1),
                     1: lambda v: Decision({0: edge})})
    assert col(simulate(wl, keep), "status") == {0: "finished"}
    move = Scripted({0: lambda v: Decision({0: edge}, admit=[0], wakeup=1),
                     1: lambda v: Decision({0: cloud})})
    e = _violation(move, wl)
    assert (e.constraint, e.job, e.slot) == ("fixed_allocation", 0, 1)
    grow = Scripted({0: lambda v: Decision({0: edge}, admit=[0], wakeup=1),
                     1: lambda v: Decision({0: Placement.of({0: 2}, {0: 1})})})
    assert _violation(grow, wl).constraint == "fixed_allocation"


@pytest.mark.parametrize("offset", [0, -1])
def test_wakeup_not_after_now(offset: int) -> None:
    one = Placement.of({0: 1})
    e = _violation(Scripted({0: lambda v: Decision({0: one}, admit=[0], wakeup=v.t + offset)}))
    assert e.constraint == "wakeup"


@pytest.mark.parametrize("bad", [None, {}, "decision", (Decision(),)])
def test_decide_must_return_a_decision(bad) -> None:
    with pytest.raises(TypeError, match="Decision"):
        simulate(_one_job_workload(), Scripted({0: lambda v: bad}))


def test_role_and_transfer_delay_violations() -> None:
    """A worker on a PS-only server (OASiS pools) and a server used before the data arrives."""
    from dlsched.core.jobs import OasisModel

    cluster = Cluster.two_pools(1, 1, {"gpu": 2}, {"cpu": 2})
    m = OasisModel(epochs=1, chunks=2, minibatches=2, tau=1.0, comm=0.0)
    wl = Workload(cluster, (JobSpec(0, 0, m, {"gpu": 1}, {"cpu": 1}),))
    e = _violation(Scripted({0: lambda v: Decision({0: Placement.of({1: 1}, {1: 1})}, admit=[0])}), wl)
    assert (e.constraint, e.server) == ("role", 1)
    cl = Cluster.edge_cloud([{"ws": 2, "ps": 1}], {"ws": 2, "ps": 1}, edge_delay=3.0, cloud_delay=0.0)
    am = AOnlineModel(epochs=1, chunks=2, minibatches=2, compute=1.0, update=0.0, comm=0.0)
    wl = Workload(cl, (JobSpec(0, 1, am, {"ws": 1}, {"ps": 1}),))
    e = _violation(Scripted({1: lambda v: Decision({0: Placement.of({0: 1}, {0: 1})}, admit=[0])}), wl)
    assert (e.constraint, e.server, e.slot, e.limit) == ("transfer_delay", 0, 1, 4.0)


def test_model_constraint_violation() -> None:
    """A PD-ORS job with workers but no PS breaks the model's own constraints."""
    cluster = Cluster.homogeneous(1, {"cpu": 8})
    m = PdorsModel(epochs=1, samples=10, batch=4, tau=1.0, sync_internal=0.0, sync_external=0.0)
    wl = Workload(cluster, (JobSpec(0, 0, m, {"cpu": 1}, {"cpu": 1}),))
    e = _violation(Scripted({0: lambda v: Decision({0: Placement.of({0: 2})}, admit=[0])}), wl)
    assert e.constraint == "ps_required"
    e = _violation(Scripted({0: lambda v: Decision({0: Placement.of({0: 5}, {0: 5})}, admit=[0])}), wl)
    assert e.constraint == "max_workers"


# -------------------------------------------------------------------------- event-driven exactness


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("backfill", [False, True])
def test_fast_forward_equals_slot_by_slot(model: str, backfill: bool) -> None:
    """FIFO woken every slot gives the same schedule as FIFO fast-forwarding between events."""
    wl = synthetic(model, seed=21, n_jobs=8)
    fast = simulate(wl, FIFO(backfill=backfill))
    slow = simulate(wl, FIFOEverySlot(backfill=backfill))
    assert slow.decisions >= fast.decisions
    assert_frame_equal(fast.jobs, slow.jobs, check_exact=False, rtol=0, atol=1e-9)
    assert_frame_equal(fast.allocations, slow.allocations)
    assert fast.end_slot == slow.end_slot


def test_fast_forward_jumps_over_long_stretches() -> None:
    """One 2-worker job of 95 worker-slots: fast-forward decides once, stepping 48 times; both
    end at x = 47.5 (completion slot 47)."""
    job = JobSpec(0, 0, LinearModel(work=95.0), {"gpu": 1}, requested_workers=2)
    wl = Workload(gpu_cluster(2), (job,))
    fast, slow = simulate(wl, FIFO()), simulate(wl, FIFOEverySlot())
    assert (fast.decisions, slow.decisions) == (1, 48)
    assert len(fast.runs) == 1 and fast.runs["slots"].iloc[0] == 48
    assert col(fast, "completion_time")[0] == pytest.approx(47.5, abs=1e-9)
    assert col(slow, "completion_time")[0] == pytest.approx(47.5, abs=1e-9)
    assert col(fast, "completion_slot") == col(slow, "completion_slot") == {0: 47}
    assert_frame_equal(fast.allocations, slow.allocations)


# ------------------------------------------------------------------------------------------ horizon


@pytest.mark.parametrize("model", MODELS)
def test_horizon_stops_the_run(model: str) -> None:
    wl = synthetic(model, seed=4, n_jobs=10)
    full = simulate(wl, FIFO())
    # H = the completion slot of the last job that ran more than one slot: it is cut short
    f = full.jobs[full.jobs["start_slot"] < full.jobs["completion_slot"]]
    H = int(f["completion_slot"].max())
    r = simulate(wl, FIFO(), horizon=H)
    assert r.allocations.empty or r.allocations["slot"].max() < H
    assert r.end_slot == H or r.allocations.empty
    jobs = r.jobs.set_index("job_id")
    assert (jobs.loc[jobs["status"] == "finished", "completion_slot"] < H).all()
    late = jobs[jobs["arrival"] >= H]
    assert (late["status"] == "not_arrived").all()
    left = jobs[(jobs["arrival"] < H) & (jobs["status"] != "finished")]
    assert len(left) > 0
    assert (left["status"] == "unfinished").all()
    assert (left["utility"] == 0).all()
    assert (left["work_done"] < left["total_work"]).all()
    # jobs that finished before H are unaffected by the horizon
    f = full.jobs.set_index("job_id")
    done = jobs.index[jobs["status"] == "finished"]
    np.testing.assert_allclose(jobs.loc[done, "completion_time"], f.loc[done, "completion_time"])
    # the workload's own horizon is the default
    wl_h = Workload(wl.cluster, wl.jobs, horizon=H)
    assert_frame_equal(simulate(wl_h, FIFO()).jobs, r.jobs)


def test_horizon_must_be_positive() -> None:
    with pytest.raises(ValueError, match="horizon"):
        simulate(_one_job_workload(), FIFO(), horizon=0)


def test_end_slot_never_passes_the_horizon() -> None:
    wl = Workload(gpu_cluster(4), (linear(0, 0, 2.0), linear(1, 10, 2.0)))
    r = simulate(wl, FIFO(), horizon=5)
    assert r.end_slot == 5
    assert r.usage()["slot"].max() < 5


# -------------------------------------------------------------------------------- transfer delays


def test_aonline_jobs_never_use_a_server_before_the_data_arrives() -> None:
    for seed in range(4):
        wl = synthetic("aonline", seed=seed, n_jobs=10)
        for policy in (FIFO(), FIFO(backfill=True), DRF()):
            r = simulate(wl, policy)
            a = r.allocations
            specs = wl.specs
            ready = np.array([specs[j].arrival + specs[j].delays(wl.cluster)[s]
                              for j, s in zip(a["job"], a["server"], strict=True)])
            assert (a["slot"].to_numpy() >= ready - 1e-9).all()
            assert set(r.jobs["status"]) == {"finished"}


@pytest.mark.parametrize("arrival, delay, start", [(0, 5.0, 5), (0, 4.5, 5), (2, 3.0, 5), (1, 0.0, 1)])
def test_fifo_wakes_up_when_the_data_arrives(arrival: int, delay: float, start: int) -> None:
    """The job's only usable server (the edge; the cloud is 100 slots away) becomes reachable at
    ``ceil(arrival + delay)``; no other event happens, yet FIFO starts the job right then."""
    cluster = Cluster.edge_cloud([{"ws": 2, "ps": 1}], {"ws": 2, "ps": 1}, edge_delay=0.0, cloud_delay=0.0)
    model = AOnlineModel(epochs=1, chunks=2, minibatches=3, compute=1.0, update=0.0, comm=1.0)
    job = JobSpec(0, arrival, model, {"ws": 1}, {"ps": 1}, requested_workers=2, transfer_delay=(delay, 100.0))
    r = simulate(Workload(cluster, (job,)), FIFO())
    assert col(r, "start_slot") == {0: start}
    assert set(r.allocations["server"]) == {0}
    # co-located on the edge: 2 workers x 1 mini-batch per slot, 6 mini-batches -> 3 slots
    assert col(r, "completion_time")[0] == pytest.approx(start + 3.0)
    assert r.decisions == (1 if start == arrival else 2)


# ------------------------------------------------------------------------------ SpeCon migration


def _specon(pause: float):
    cluster = Cluster.homogeneous(2, {"cpu": 4, "mem": 8}, compressible=("cpu",), slot_seconds=10.0)
    model = SpeconModel(work=100.0, migration_pause=pause)
    return Workload(cluster, (JobSpec(0, 0, model, {"cpu": 1, "mem": 1}),))


@pytest.mark.parametrize("pause, expected", [(5.0, 10.5), (25.0, 12.5), (0.0, 10.0)])
def test_specon_migration_pause(pause: float, expected: float) -> None:
    """1 core, alone on a 4-core node, 10 s slots: 10 core-seconds per slot, 100 -> 10 slots.
    Moving the container at slot 3 (30 done) loses ``pause`` seconds: 3 + pause/10 + 7 slots."""
    wl = _specon(pause)
    on0, on1 = Placement.of({0: 1}), Placement.of({1: 1})
    stay = Scripted({0: lambda v: Decision({0: on0}, admit=[0], wakeup=3), 3: lambda v: Decision({0: on0})})
    move = Scripted({0: lambda v: Decision({0: on0}, admit=[0], wakeup=3), 3: lambda v: Decision({0: on1})})
    base = simulate(wl, stay)
    moved = simulate(wl, move)
    assert col(base, "completion_time")[0] == pytest.approx(10.0)
    assert col(moved, "completion_time")[0] == pytest.approx(expected)
    assert col(moved, "jct_seconds")[0] - col(base, "jct_seconds")[0] == pytest.approx(pause)
    assert col(base, "migrations")[0] == 0 and col(moved, "migrations")[0] == 1
    assert col(moved, "work_done")[0] == pytest.approx(100.0)
    # the container holds node 1 until its completion slot
    a = moved.allocations
    assert a.loc[a["server"] == 1, "slot"].tolist() == list(range(3, int(np.ceil(expected))))


def test_specon_cpu_contention_slows_progress() -> None:
    """Two 4-core containers on one 4-core node get half their demand each: 20 core-seconds per
    10 s slot, so 100 core-seconds take 5 slots (alone: 2.5)."""
    cluster = Cluster.homogeneous(1, {"cpu": 4, "mem": 8}, compressible=("cpu",), slot_seconds=10.0)
    jobs = tuple(JobSpec(j, 0, SpeconModel(work=100.0), {"cpu": 4, "mem": 1}) for j in range(2))
    both = Placement.of({0: 1})
    pol = Scripted({0: lambda v: Decision({0: both, 1: both}, admit=[0, 1])})
    r = simulate(Workload(cluster, jobs), pol)
    assert col(r, "completion_time") == pytest.approx({0: 5.0, 1: 5.0})
    r = simulate(Workload(cluster, jobs[:1]), Scripted({0: lambda v: Decision({0: both}, admit=[0])}))
    assert col(r, "completion_time") == pytest.approx({0: 2.5})


# -------------------------------------------------------------------------------- slot conventions


def test_completion_slot_and_utility_conventions() -> None:
    """Work 5 with 2 workers ends at x = 2.5: completion slot ceil(x) - 1 = 2, JCT 2.5 slots, and
    the resources are held through slot 2 (freed at the boundary)."""
    cluster = gpu_cluster(2)
    job = JobSpec(0, 0, LinearModel(work=5.0), {"gpu": 1}, requested_workers=2)
    r = simulate(Workload(cluster, (job,)), FIFO())
    row = r.jobs.iloc[0]
    assert (row["completion_time"], row["completion_slot"], row["jct"]) == (2.5, 2, 2.5)
    assert row["jct_seconds"] == 2.5 * 3600
    assert sorted(set(r.allocations["slot"])) == [0, 1, 2]
    assert r.end_slot == 3


# --------------------------------------------------------------------------------------- stalled


def test_policy_that_never_allocates_stalls() -> None:
    wl = _one_job_workload()
    r = simulate(wl, NeverAllocates())
    assert r.stalled
    assert r.runs.empty and r.allocations.empty
    assert set(r.jobs["status"]) == {"unfinished"}
    assert (r.jobs["utility"] == 0).all() and (r.jobs["work_done"] == 0).all()
    assert r.decisions == 2  # at both arrivals
    r = simulate(wl, NeverAllocates(admit=False))
    assert r.stalled and set(r.jobs["status"]) == {"pending"}
    # with a horizon the run is bounded and not stalled
    r = simulate(wl, NeverAllocates(), horizon=7)
    assert not r.stalled and r.end_slot == 7


def test_rejected_jobs_get_no_utility() -> None:
    pol = Scripted({0: lambda v: Decision({}, reject=[0]), 2: lambda v: Decision({1: Placement.of({0: 4})},
                                                                                  admit=[1])})
    r = simulate(_one_job_workload(), pol)
    assert col(r, "status") == {0: "rejected", 1: "finished"}
    assert col(r, "utility")[0] == 0.0
    assert col(r, "admitted") == {0: False, 1: True}
    assert not r.stalled


# ------------------------------------------------------------------------------ validation gaps


def test_workload_rejects_a_job_whose_workers_and_ps_never_fit_together() -> None:
    # one worker (2 CPUs) and its PS (1 CPU) each fit the server's 2 CPUs, but not together
    cluster = Cluster.homogeneous(1, {"cpu": 2})
    m = PdorsModel(epochs=1, samples=1, batch=1, tau=0.1, sync_internal=0.0, sync_external=0.0)
    with pytest.raises(ValueError, match="never run"):
        Workload(cluster, (JobSpec(0, 0, m, {"cpu": 2}, {"cpu": 1}),))


def test_optimus_model_rejects_a_zero_step_time() -> None:
    with pytest.raises(ValueError):
        OptimusModel(mode="sync", total_steps=10.0, batch=1.0, t_forward=0.0, t_back=0.0, model_size=0.0,
                     ps_bw=1.0, worker_bw=1.0)


def test_progress_bar_does_not_change_the_result(capsys) -> None:
    wl = synthetic("linear", seed=2, n_jobs=6)
    assert_frame_equal(simulate(wl, FIFO(), progress=True).jobs, simulate(wl, FIFO()).jobs)


def test_result_tables_have_the_documented_columns() -> None:
    r = simulate(synthetic("pdors", seed=1, n_jobs=4), DRF())
    assert list(r.runs.columns) == ["job", "slot", "slots", "server", "role", "count"]
    assert list(r.allocations.columns) == ["job", "slot", "server", "role", "count"]
    for c in ("job_id", "arrival", "status", "start_slot", "completion_slot", "completion_time", "jct",
              "utility", "work_done", "total_work", "migrations"):
        assert c in r.jobs.columns
    assert isinstance(r.usage(), pd.DataFrame)
