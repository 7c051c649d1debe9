"""Hand-checked behaviour of the FIFO and DRF baselines (dlsched.baselines).

Every expected value below is computed by hand in the test's docstring or comments: start and
completion slots of small instances, round-robin placements, the progressive-filling result of
the classic DRF example (Ghodsi et al., NSDI'11, Sec. 4: 9 CPUs / 18 GB, tasks <1 CPU, 4 GB> and
<3 CPU, 1 GB> -> 3 and 2 tasks).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dlsched import registry
from dlsched.baselines.drf import DRF
from dlsched.baselines.fifo import FIFO, fixed_workers
from dlsched.core.cluster import Cluster, Server
from dlsched.core.jobs import (
    AOnlineModel,
    JobSpec,
    LinearModel,
    OasisModel,
    OptimusModel,
    PdorsModel,
    Workload,
)
from dlsched.core.schedule import Placement, check_timeline
from dlsched.core.simulator import simulate

# --------------------------------------------------------------------------------------- helpers


def gpu_cluster(*gpus: int) -> Cluster:
    """Unified servers with the given GPU counts."""
    return Cluster(tuple(Server(f"g{i}", "unified", {"gpu": g}) for i, g in enumerate(gpus)))


def linear(job_id: int, arrival: int, work: float, lo: int = 1, hi: int | None = None, **kw) -> JobSpec:
    """A trace-style job: ``lo..hi`` workers of one GPU each, ``work`` worker-slots."""
    return JobSpec(job_id, arrival, LinearModel(work=work, min_gang=lo, max_gang=hi), {"gpu": 1}, **kw)


def rigid(job_id: int, arrival: int, gang: int, slots: float) -> JobSpec:
    """A rigid gang of ``gang`` GPUs that runs ``slots`` slots."""
    return linear(job_id, arrival, gang * slots, gang, gang)


def run(cluster: Cluster, jobs, policy, **kw):
    result = simulate(Workload(cluster, tuple(jobs)), policy, **kw)
    check_timeline(cluster, result.workload.specs, result.allocations)
    return result


def col(result, column: str) -> dict[int, float]:
    """``{job_id: value}`` of one column of the job table."""
    return dict(zip(result.jobs["job_id"], result.jobs[column], strict=True))


def placement_at(result, job: int, slot: int) -> Placement:
    """Placement of ``job`` in ``slot``, rebuilt from the allocation table."""
    a = result.allocations
    a = a[(a["job"] == job) & (a["slot"] == slot)]
    w = {int(s): int(c) for s, r, c in zip(a["server"], a["role"], a["count"], strict=True) if r == "worker"}
    p = {int(s): int(c) for s, r, c in zip(a["server"], a["role"], a["count"], strict=True) if r == "ps"}
    return Placement.of(w, p)


def placements(result, job: int) -> set[Placement]:
    """The distinct placements ``job`` had over its run."""
    slots = sorted(set(result.allocations.loc[result.allocations["job"] == job, "slot"]))
    return {placement_at(result, job, t) for t in slots}


# ------------------------------------------------------------------------------------------ FIFO


def test_registry_builds_the_baselines() -> None:
    assert isinstance(registry.make_policy("fifo", n_workers=2, backfill=True), FIFO)
    assert isinstance(registry.make_policy("drf", max_workers=3), DRF)


def test_fifo_runs_jobs_in_arrival_order_ties_by_id() -> None:
    """Each job is a 2-GPU gang on a 2-GPU server running 2 slots, so jobs run one after the
    other in (arrival, job_id) order: job 2 (arrives 0) in slots 0-1, job 0 (arrives 1, lower id)
    in 2-3, job 1 (arrives 1) in 4-5."""
    jobs = [rigid(2, 0, 2, 2.0), rigid(0, 1, 2, 2.0), rigid(1, 1, 2, 2.0)]
    for backfill in (False, True):
        r = run(gpu_cluster(2), jobs, FIFO(backfill=backfill))
        assert col(r, "start_slot") == {2: 0, 0: 2, 1: 4}
        assert col(r, "completion_time") == pytest.approx({2: 2.0, 0: 4.0, 1: 6.0})
        assert col(r, "completion_slot") == {2: 1, 0: 3, 1: 5}
        assert set(r.jobs["status"]) == {"finished"}
        assert r.jobs["admitted"].all()


def test_strict_fifo_blocks_behind_the_head_backfill_does_not() -> None:
    """One 4-GPU server. Job 0 (3 GPUs, slots 0-2) runs first. Job 1 (4 GPUs, 1 slot) arrives at 1
    and cannot start before job 0 ends (slot 3). Job 2 (1 GPU, 1 slot) also arrives at 1 and fits
    in the free GPU: strict FIFO keeps it behind job 1 (start 4), backfill starts it at 1."""
    jobs = [rigid(0, 0, 3, 3.0), rigid(1, 1, 4, 1.0), rigid(2, 1, 1, 1.0)]
    strict = run(gpu_cluster(4), jobs, FIFO())
    assert col(strict, "start_slot") == {0: 0, 1: 3, 2: 4}
    assert col(strict, "completion_time") == pytest.approx({0: 3.0, 1: 4.0, 2: 5.0})
    back = run(gpu_cluster(4), jobs, FIFO(backfill=True))
    assert col(back, "start_slot") == {0: 0, 1: 3, 2: 1}
    assert col(back, "completion_time") == pytest.approx({0: 3.0, 1: 4.0, 2: 2.0})


def _oasis_jobs() -> tuple[Cluster, list[JobSpec]]:
    """Two worker servers (4 GPUs), one PS server (8 CPUs); b/B = 1/2 so ps_for(w) = ceil(w/2)."""
    cluster = Cluster.two_pools(2, 1, {"gpu": 4}, {"cpu": 8})
    big = OasisModel(epochs=1, chunks=4, minibatches=10, tau=1.0, comm=0.0, worker_bw=1.0, ps_bw=2.0)
    one = OasisModel(epochs=1, chunks=1, minibatches=10, tau=1.0, comm=0.0, worker_bw=1.0, ps_bw=2.0)
    jobs = [JobSpec(0, 0, big, {"gpu": 1}, {"cpu": 1}, requested_workers=3),
            JobSpec(1, 0, one, {"gpu": 1}, {"cpu": 1})]
    return cluster, jobs


def test_fifo_counts_default_to_requested_then_minimum_and_ps_for() -> None:
    """Job 0 asked for 3 workers -> 3 workers and ps_for(3) = ceil(3/2) = 2 PS; job 1 asked for
    nothing -> the model's minimum, 1 worker, ceil(1/2) = 1 PS."""
    cluster, jobs = _oasis_jobs()
    r = run(cluster, jobs, FIFO())
    p0, p1 = placement_at(r, 0, 0), placement_at(r, 1, 0)
    assert (p0.n_workers, p0.n_ps) == (3, 2)
    assert (p1.n_workers, p1.n_ps) == (1, 1)
    # E*N*M = 1*4*10 = 40 mini-batches at 1 per worker-slot: 40/3 slots with 3 workers
    assert col(r, "completion_time")[0] == pytest.approx(40 / 3)
    assert col(r, "completion_time")[1] == pytest.approx(10.0)


def test_fifo_fixed_count_is_clipped_to_the_model_bounds() -> None:
    """n_workers=2: job 0 gets 2 workers and ps_for(2) = 1 PS; job 1 (N_i = 1 chunk) at most 1."""
    cluster, jobs = _oasis_jobs()
    r = run(cluster, jobs, FIFO(n_workers=2))
    p0, p1 = placement_at(r, 0, 0), placement_at(r, 1, 0)
    assert (p0.n_workers, p0.n_ps) == (2, 1)
    assert (p1.n_workers, p1.n_ps) == (1, 1)
    assert fixed_workers(jobs[1], 2) == 1
    assert fixed_workers(jobs[0], None) == 3
    # a rigid gang is never given fewer than its gang size
    assert fixed_workers(rigid(5, 0, 3, 1.0), 1) == 3


def test_fifo_explicit_n_ps_overrides_ps_for() -> None:
    """Optimus needs ps_for(w) = w PS by default; n_ps=1 gives exactly one."""
    cluster = Cluster.homogeneous(2, {"cpu": 8})
    model = OptimusModel(mode="sync", total_steps=100.0, batch=32.0, t_forward=0.0, t_back=0.1,
                         model_size=0.0, ps_bw=10.0, worker_bw=10.0)
    job = JobSpec(0, 0, model, {"cpu": 1}, {"cpu": 1}, requested_workers=2)
    default = run(cluster, [job], FIFO())
    assert placement_at(default, 0, 0).n_ps == 2
    one = run(cluster, [job], FIFO(n_ps=1))
    p = placement_at(one, 0, 0)
    assert (p.n_workers, p.n_ps) == (2, 1)


def test_fifo_round_robin_placement_across_servers() -> None:
    """Three 4-GPU servers, three jobs of 2 workers: tasks go one at a time to the next server,
    wrapping around: job 0 on s0, s1; job 1 on s2, s0; job 2 on s1, s2."""
    jobs = [linear(j, 0, 100.0) for j in range(3)]
    r = run(gpu_cluster(4, 4, 4), jobs, FIFO(n_workers=2))
    assert placement_at(r, 0, 0) == Placement.of({0: 1, 1: 1})
    assert placement_at(r, 1, 0) == Placement.of({2: 1, 0: 1})
    assert placement_at(r, 2, 0) == Placement.of({1: 1, 2: 1})


def test_fifo_round_robin_keeps_separate_worker_and_ps_pointers() -> None:
    """OASiS pools: workers cycle over the 2 worker servers, PS over the 2 PS servers (indices 2,
    3). With 1 worker and 1 PS per job: job 0 -> w0 / p0, job 1 -> w1 / p1, job 2 -> w0 / p0."""
    cluster = Cluster.two_pools(2, 2, {"gpu": 4}, {"cpu": 4})
    model = OasisModel(epochs=1, chunks=1, minibatches=5, tau=1.0, comm=0.0)
    jobs = [JobSpec(j, 0, model, {"gpu": 1}, {"cpu": 1}) for j in range(3)]
    r = run(cluster, jobs, FIFO())
    assert placement_at(r, 0, 0) == Placement.of({0: 1}, {2: 1})
    assert placement_at(r, 1, 0) == Placement.of({1: 1}, {3: 1})
    assert placement_at(r, 2, 0) == Placement.of({0: 1}, {2: 1})


def test_fifo_is_non_preemptive() -> None:
    """Job 0 (1 worker) keeps its single placement while job 1 arrives and ends, even though
    more workers would then fit: FIFO never changes a running job."""
    jobs = [linear(0, 0, 6.0), linear(1, 2, 1.0)]
    r = run(gpu_cluster(2, 2), jobs, FIFO())
    assert placements(r, 0) == {Placement.of({0: 1})}
    assert col(r, "start_slot")[0] == 0
    assert col(r, "completion_time")[0] == pytest.approx(6.0)
    assert col(r, "migrations") == {0: 0, 1: 0}
    slots = sorted(set(r.allocations.loc[r.allocations["job"] == 0, "slot"]))
    assert slots == list(range(6))


def test_fifo_lowers_a_count_that_can_never_fit() -> None:
    """PD-ORS job asking for 10 workers (batch 16, ratio 1) on 2 servers of 2 GPUs: at most 4 GPU
    workers fit, so FIFO runs it with 4 workers and ps_for(4) = 4 PS instead of blocking forever."""
    cluster = Cluster.homogeneous(2, {"gpu": 2, "cpu": 8})
    model = PdorsModel(epochs=1, samples=40, batch=16, tau=1.0, sync_internal=0.0, sync_external=0.0)
    jobs = [JobSpec(0, 0, model, {"gpu": 1}, {"cpu": 1}, requested_workers=10),
            JobSpec(1, 0, model, {"gpu": 1}, {"cpu": 1}, requested_workers=1)]
    r = run(cluster, jobs, FIFO())
    p = placement_at(r, 0, 0)
    assert (p.n_workers, p.n_ps) == (4, 4)
    # 4 workers at 1 sample per slot each: 40 samples in 10 slots; then job 1 (1 worker) 40 slots
    assert col(r, "completion_time") == pytest.approx({0: 10.0, 1: 50.0})
    assert set(r.jobs["status"]) == {"finished"}


def _pointer_trap() -> tuple[Cluster, list[JobSpec]]:
    """Job 1 (2 workers of 1 CPU, 1 PS of 1 CPU + 1 mem; PD-ORS ratio 2) fits on the empty
    cluster only as workers on s0, s1 and the PS on s2 (the only server with memory): exactly the
    round robin from server 0. Job 0 (1 CPU, 1 slot) first moves the worker pointer to s1."""
    servers = (Server("s0", "unified", {"cpu": 1, "mem": 0}), Server("s1", "unified", {"cpu": 1, "mem": 0}),
               Server("s2", "unified", {"cpu": 1, "mem": 1}))
    cluster = Cluster(servers)
    model = PdorsModel(epochs=1, samples=4, batch=2, tau=1.0, sync_internal=0.0, sync_external=0.0, ratio=2.0)
    jobs = [JobSpec(0, 0, LinearModel(work=1.0), {"cpu": 1}),
            JobSpec(1, 0, model, {"cpu": 1}, {"cpu": 1, "mem": 1}, requested_workers=2)]
    return cluster, jobs


def test_fifo_never_deadlocks_on_an_empty_cluster() -> None:
    """Once job 0 is done the cluster is empty and job 1's 2 workers + 1 PS fit (s0, s1 / s2), so
    it must run: 4 samples at 2 per slot from slot 1 -> completion time 3."""
    cluster, jobs = _pointer_trap()
    r = simulate(Workload(cluster, tuple(jobs)), FIFO())
    assert not r.stalled
    assert set(r.jobs["status"]) == {"finished"}
    assert col(r, "completion_time")[1] == pytest.approx(3.0)


def test_fifo_pointer_trap_instance_is_feasible() -> None:
    """The instance above is feasible: a hand-written placement of job 1 passes the checker."""
    from dlsched.core.schedule import check_allocations

    cluster, jobs = _pointer_trap()
    specs = {s.job_id: s for s in jobs}
    check_allocations(cluster, specs, 1, {1: Placement.of({0: 1, 1: 1}, {2: 1})})


# ------------------------------------------------------------------------------------------- DRF


def test_drf_classic_example_equalizes_dominant_shares() -> None:
    """DRF paper: 9 CPUs and 18 GB; A's tasks <1 CPU, 4 GB> (dominant: memory, 2/9 each), B's
    <3 CPU, 1 GB> (dominant: CPU, 1/3 each). Progressive filling stops with A = 3 tasks
    (3 CPU, 12 GB) and B = 2 tasks (6 CPU, 2 GB): all 9 CPUs used, both dominant shares 2/3."""
    cluster = Cluster.homogeneous(1, {"cpu": 9, "mem": 18})
    a = JobSpec(0, 0, LinearModel(work=1000.0), {"cpu": 1, "mem": 4})
    b = JobSpec(1, 0, LinearModel(work=1000.0), {"cpu": 3, "mem": 1})
    r = run(cluster, [a, b], DRF(), horizon=1)
    pa, pb = placement_at(r, 0, 0), placement_at(r, 1, 0)
    assert (pa.n_workers, pb.n_workers) == (3, 2)
    share_a = max(3 * 1 / 9, 3 * 4 / 18)
    share_b = max(2 * 3 / 9, 2 * 1 / 18)
    assert share_a == pytest.approx(2 / 3) and share_b == pytest.approx(2 / 3)
    usage = r.usage().set_index("slot").loc[0]
    assert (usage["cpu"], usage["mem"]) == (9.0, 14.0)


def test_drf_recomputes_on_arrival_and_completion() -> None:
    """One 4-GPU server, elastic jobs. Slots 0-1: job 0 alone gets 4 workers (8 work). Job 1
    arrives at 2: 2 + 2 workers; job 1 (work 4) ends at 4. Then job 0 gets 4 again: its remaining
    20 - 8 - 4 = 8 take slots 4-5 -> completion 6."""
    jobs = [linear(0, 0, 20.0), linear(1, 2, 4.0)]
    r = run(gpu_cluster(4), jobs, DRF())
    assert placement_at(r, 0, 0).n_workers == 4
    assert placement_at(r, 0, 1).n_workers == 4
    assert placement_at(r, 0, 2).n_workers == 2 and placement_at(r, 1, 2).n_workers == 2
    assert placement_at(r, 0, 3).n_workers == 2 and placement_at(r, 1, 3).n_workers == 2
    assert placement_at(r, 0, 4).n_workers == 4
    assert col(r, "completion_time") == pytest.approx({0: 6.0, 1: 4.0})
    assert r.decisions == 3  # t = 0 (arrival), 2 (arrival), 4 (completion)


def test_drf_max_workers_cap() -> None:
    """The policy's cap and the model's max_workers both bound the count (whichever is lower)."""
    jobs = [linear(0, 0, 100.0), linear(1, 0, 100.0, 1, 1)]
    r = run(gpu_cluster(8), jobs, DRF(max_workers=2), horizon=1)
    assert placement_at(r, 0, 0).n_workers == 2
    assert placement_at(r, 1, 0).n_workers == 1
    r = run(gpu_cluster(8), jobs, DRF(), horizon=1)
    assert placement_at(r, 0, 0).n_workers == 7  # everything the 1-worker job leaves
    assert placement_at(r, 1, 0).n_workers == 1


def test_drf_rigid_gangs_are_all_or_nothing() -> None:
    """One 4-GPU server, two 3-GPU gangs and one elastic job. Job 0's gang gets 3 GPUs; job 1's
    gang cannot get 3 of the 1 left and gets nothing (never a partial gang); the elastic job 2
    gets the last GPU. Job 1 starts when job 0 ends (slot 2)."""
    jobs = [rigid(0, 0, 3, 2.0), rigid(1, 0, 3, 2.0), linear(2, 0, 100.0)]
    r = run(gpu_cluster(4), jobs, DRF())
    assert placement_at(r, 0, 0).n_workers == 3
    assert placement_at(r, 1, 0).is_empty
    assert placement_at(r, 2, 0).n_workers == 1
    assert col(r, "start_slot")[1] == 2
    for j in (0, 1):
        assert {p.n_workers for p in placements(r, j)} == {3}


def test_drf_non_elastic_running_job_keeps_its_placement() -> None:
    """A_online jobs are not elastic. Job 0 (8 chunks) arrives alone and takes all 8 worker slots
    of the edge server and the cloud. When job 1 arrives DRF would halve it, but a running
    A_online job keeps its allocation, so job 1 waits for job 0 to finish."""
    cluster = Cluster.edge_cloud([{"ws": 4, "ps": 2}], {"ws": 4, "ps": 2}, edge_delay=0.0, cloud_delay=0.0)
    model = AOnlineModel(epochs=1, chunks=8, minibatches=4, compute=1.0, update=0.0, comm=0.0)
    jobs = [JobSpec(0, 0, model, {"ws": 1}, {"ps": 1}), JobSpec(1, 1, model, {"ws": 1}, {"ps": 1})]
    r = run(cluster, jobs, DRF())
    (p0,) = placements(r, 0)
    assert (p0.n_workers, p0.n_ps) == (8, 1)
    # 8 workers, not co-located: 1 mini-batch per worker-slot, 32 mini-batches -> 4 slots
    assert col(r, "completion_time")[0] == pytest.approx(4.0)
    assert col(r, "start_slot")[1] == 4
    assert col(r, "migrations") == {0: 0, 1: 0}


def test_drf_job_with_unchanged_counts_keeps_its_servers() -> None:
    """Three 2-GPU servers. Job 0 (at most 2 workers) is placed round robin on s0, s1. Job 1
    (at most 2) arrives at 1: recomputation gives job 0 the same 2 workers, re-placed on s0, s1
    (its previous servers are tried first), and job 1 goes on s2 and s0."""
    jobs = [linear(0, 0, 10.0, 1, 2), linear(1, 1, 10.0, 1, 2)]
    r = run(gpu_cluster(2, 2, 2), jobs, DRF())
    assert placement_at(r, 0, 0) == Placement.of({0: 1, 1: 1})
    assert placement_at(r, 1, 1) == Placement.of({2: 1, 0: 1})
    assert placements(r, 0) == {Placement.of({0: 1, 1: 1})}
    assert col(r, "migrations")[0] == 0


def test_drf_unchanged_count_never_moves_when_room_is_left() -> None:
    """Servers s0 (2 GPUs) and s1 (1 GPU). At 0: job X (1 GPU, ends at 0.5) -> s0, job A (at most
    2) -> s1 and s0. At 1 job B (1 GPU) arrives: A keeps 2 workers and B needs 1 of the 3 GPUs,
    so A's placement {s0: 1, s1: 1} and B on s0 fit together; A must not move (docstring: "a
    job whose counts do not change does not move")."""
    jobs = [linear(0, 0, 0.5, 1, 1), linear(1, 0, 10.0, 1, 2), linear(2, 1, 10.0, 1, 1)]
    r = run(gpu_cluster(2, 1), jobs, DRF())
    assert placement_at(r, 1, 0) == Placement.of({0: 1, 1: 1})
    assert placement_at(r, 1, 1).n_workers == 2
    assert placement_at(r, 1, 1) == Placement.of({0: 1, 1: 1})


def test_drf_cap_below_gang_size_does_not_starve_the_gang() -> None:
    r = simulate(Workload(gpu_cluster(2), (rigid(0, 0, 2, 1.0),)), DRF(max_workers=1))
    assert not r.stalled
    assert col(r, "status") == {0: "finished"}


def test_drf_waits_for_the_data_to_reach_a_server() -> None:
    """A_online job whose data reaches the edge at slot 3 and the cloud at 6: DRF starts it at 3
    on the edge server alone, without any other event."""
    cluster = Cluster.edge_cloud([{"ws": 2, "ps": 1}], {"ws": 8, "ps": 1}, edge_delay=0.0, cloud_delay=0.0)
    model = AOnlineModel(epochs=1, chunks=2, minibatches=40, compute=1.0, update=0.0, comm=1.0)
    job = JobSpec(0, 0, model, {"ws": 1}, {"ps": 1}, transfer_delay=(3.0, 6.0))
    r = run(cluster, [job], DRF())
    assert col(r, "start_slot") == {0: 3}
    assert placements(r, 0) == {Placement.of({0: 2}, {0: 1})}
    # co-located on the edge: 1 mini-batch per worker-slot, 80 mini-batches / 2 workers = 40 slots
    assert col(r, "completion_time")[0] == pytest.approx(43.0)


def test_baselines_reject_bad_parameters() -> None:
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_workers"):
            FIFO(n_workers=bad)
        with pytest.raises(ValueError, match="max_workers"):
            DRF(max_workers=bad)
    with pytest.raises(ValueError, match="n_ps"):
        FIFO(n_ps=-1)
    with pytest.raises(ValueError, match="backfill"):
        FIFO(backfill="yes")


def test_fifo_and_drf_finish_every_synthetic_job() -> None:
    """Smoke test over the registry's synthetic workloads of every model."""
    for model in ("oasis", "pdors", "aonline", "optimus", "specon", "linear"):
        wl = registry.make_workload("synthetic", seed=7, model=model, n_jobs=8)
        for policy in (FIFO(), FIFO(backfill=True), DRF()):
            r = simulate(wl, policy)
            assert set(r.jobs["status"]) == {"finished"}, (model, policy.name)
            assert not r.stalled
            assert np.all(np.isfinite(r.jobs["completion_time"]))
            assert not math.isnan(r.jobs["jct"].mean())
