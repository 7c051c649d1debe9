"""The A_online baselines (Sec. VI): FIFO (earliest-start server), DRF, BatchSche, Preemptive.

Hand-built edge-cloud instances in the A_online encoding (worker type ``w0``, PS type ``ps0``, one
slot each). Unless said otherwise ``compute = 1`` slot per mini-batch and ``update = comm = 0``,
so a worker trains one mini-batch per slot whether co-located or not; the expected start and
completion slots are worked out in each docstring. Every run is re-checked with the independent
checker (:func:`dlsched.core.schedule.check_timeline`, which also checks the fixed allocation of
non-elastic, non-preemptible jobs, A_online (2c)-(2d)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dlsched import registry
from dlsched.aonline.baselines import BatchSche, Preemptive, time_points, wanted_workers
from dlsched.aonline.offline import total_completion_time
from dlsched.baselines.drf import DRF
from dlsched.baselines.fifo import FIFO
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, LinearModel, Workload
from dlsched.core.placement import single_server_widths
from dlsched.core.policy import BasePolicy
from dlsched.core.schedule import Decision, Placement, ScheduleViolation, check_timeline
from dlsched.core.simulator import simulate

# --------------------------------------------------------------------------------------- helpers


def edge_cloud(edges, cloud, edge_delay=0.0, cloud_delay=0.0) -> Cluster:
    """Edge servers ``[(workers, ps), ...]`` plus a cloud ``(workers, ps)``."""
    return Cluster.edge_cloud(
        [{"w0": w, "ps0": p} for w, p in edges],
        {"w0": cloud[0], "ps0": cloud[1]},
        edge_delay=edge_delay,
        cloud_delay=cloud_delay,
    )


def job(j, arrival, chunks, minibatches, *, comm=0.0, preemptible=False, delays=None, **kw) -> JobSpec:
    """An A_online job of ``chunks * minibatches`` mini-batches (one epoch)."""
    model = AOnlineModel(
        epochs=1,
        chunks=chunks,
        minibatches=minibatches,
        compute=1.0,
        update=0.0,
        comm=comm,
        allow_preemption=preemptible,
        **kw,
    )
    return JobSpec(j, arrival, model, {"w0": 1}, {"ps0": 1}, transfer_delay=delays)


def run(cluster, jobs, policy, **kw):
    wl = Workload(cluster, tuple(jobs))
    result = simulate(wl, policy, **kw)
    check_timeline(cluster, wl.specs, result.allocations)
    return result


def col(result, column: str) -> dict[int, float]:
    return dict(zip(result.jobs["job_id"], result.jobs[column], strict=True))


def placements(result, j: int) -> list[Placement]:
    """The placement of job ``j`` in each slot it ran, in slot order."""
    a = result.allocations[result.allocations["job"] == j]
    out = []
    for _, g in a.groupby("slot", sort=True):
        w = {
            int(s): int(c)
            for s, r, c in zip(g["server"], g["role"], g["count"], strict=True)
            if r == "worker"
        }
        p = {int(s): int(c) for s, r, c in zip(g["server"], g["role"], g["count"], strict=True) if r == "ps"}
        out.append(Placement.of(w, p))
    return out


def assert_fixed(result) -> None:
    """Every job ran in one unbroken stretch with one placement ((2c)-(2d))."""
    a = result.allocations
    for j in result.jobs["job_id"]:
        slots = sorted(set(a.loc[a["job"] == j, "slot"]))
        assert slots == list(range(slots[0], slots[-1] + 1)), f"job {j} was paused"
        assert len(set(placements(result, j))) == 1, f"job {j} changed its allocation"


@pytest.fixture(scope="module")
def small_workloads():
    """A 30-job, 10-edge-server ``aonline`` workload, non-preemptible and preemptible."""
    kw = dict(n_edge=10, n_jobs=30, server_source="synthetic", T=256)
    return (
        registry.make_workload("aonline", seed=3, **kw),
        registry.make_workload("aonline", seed=3, preemptible=True, **kw),
    )


# --------------------------------------------------------------------------------------- registry


def test_registry_names_and_fifo_placement_choice() -> None:
    assert isinstance(registry.make_policy("batchsche"), BatchSche)
    assert isinstance(registry.make_policy("preemptive", preemption_overhead=2.0), Preemptive)
    wl = Workload(edge_cloud([(1, 1)], (2, 1)), (job(0, 0, 1, 1),), params={"T": 32})
    assert registry.make_policy("fifo", wl).placement == "earliest"  # A_online's FIFO
    assert registry.make_policy("fifo", wl, placement="round_robin").placement == "round_robin"
    assert FIFO().placement == "round_robin"  # the constructor's default is unchanged
    other = registry.make_workload("synthetic", seed=0, model="linear", n_jobs=3)
    assert registry.make_policy("fifo", other).placement == "round_robin"
    assert registry.make_policy("batchsche", wl).horizon == 32  # T of the price bases (7)-(8)


# ------------------------------------------------------------------------------------------ FIFO


def test_fifo_dispatches_each_job_to_the_earliest_start_server() -> None:
    """Edge e0 (1 worker slot, delay 0), e1 (2 slots, delay 1), cloud (4 slots, delay 2).

    Job 0 (D=2, 4 mini-batches, a=0): at slot 0 only e0 has its data: 1 worker, slots 0-3.
    Job 1 (D=2, 2 mini-batches, a=0): e0 busy, nothing else reachable; at slot 1 e1 is: 2
    workers, slot 1. Job 2 (D=4, 4 mini-batches, a=1): its data reaches e1 at 2 (cloud at 3):
    2 workers on e1, slots 2-3. Total (2) = 3 + 1 + 2 = 6; every job whole on one server.
    """
    c = edge_cloud([(1, 1), (2, 1)], (4, 2), edge_delay=[0.0, 1.0], cloud_delay=2.0)
    r = run(c, [job(0, 0, 2, 2), job(1, 0, 2, 1), job(2, 1, 4, 1)], FIFO(placement="earliest"))
    assert col(r, "start_slot") == {0: 0, 1: 1, 2: 2}
    assert col(r, "completion_slot") == {0: 3, 1: 1, 2: 3}
    assert placements(r, 0)[0] == Placement.of({0: 1}, {0: 1})
    assert placements(r, 1)[0] == Placement.of({1: 2}, {1: 1})
    assert placements(r, 2)[0] == Placement.of({1: 2}, {1: 1})
    assert total_completion_time(r) == 6.0
    assert_fixed(r)


def test_fifo_earliest_prefers_the_faster_server_among_those_free_now() -> None:
    """Both servers reachable and free at 0: the cloud holds all 4 workers (1 slot) and wins
    over the edge's 2 (2 slots); the job is co-located with its PS."""
    r = run(edge_cloud([(2, 1)], (4, 1)), [job(0, 0, 4, 1)], FIFO(placement="earliest"))
    assert placements(r, 0) == [Placement.of({1: 4}, {1: 1})]
    assert col(r, "completion_slot") == {0: 0}


def test_fifo_earliest_strict_queue_and_backfill() -> None:
    """One edge server of 2 slots. Job 0 takes both for 2 slots; job 1 (D=2) waits; job 2 (D=1)
    is behind it: strict FIFO starts it at 2 with job 1, backfill cannot do better here since
    nothing is free before 2. Starts follow arrival order."""
    jobs = [job(0, 0, 2, 2), job(1, 0, 2, 2), job(2, 0, 1, 1)]
    c = Cluster.edge_cloud([{"w0": 2, "ps0": 2}], {"w0": 0, "ps0": 0}, edge_delay=0.0, cloud_delay=0.0)
    strict = run(c, jobs, FIFO(placement="earliest"))
    assert col(strict, "start_slot") == {0: 0, 1: 2, 2: 4}
    back = run(c, jobs, FIFO(placement="earliest", backfill=True))
    assert col(back, "start_slot") == {0: 0, 1: 2, 2: 4}


def test_fifo_earliest_falls_back_to_round_robin_when_no_server_holds_the_job() -> None:
    """A linear gang of 3 on servers of 2 GPUs: no single server holds it, so round robin."""
    c = Cluster.homogeneous(2, {"gpu": 2})
    spec = JobSpec(0, 0, LinearModel(work=3.0, min_gang=3, max_gang=3), {"gpu": 1})
    fifo = FIFO(placement="earliest")
    r = simulate(Workload(c, (spec,)), fifo)
    assert fifo.single_server_counts(spec) == []
    assert col(r, "completion_slot") == {0: 0}


# ------------------------------------------------------------------------------------------- DRF


def test_drf_respects_transfer_delay_and_keeps_a_fixed_allocation() -> None:
    """Edge (2 slots, delay 2) and cloud (2 slots, delay 4); one job (D=4, 8 mini-batches) at 0.
    DRF waits for the data: at slot 2 it fills the edge (2 workers + PS); the allocation is then
    fixed ((2c)-(2d)) even when the cloud becomes reachable at 4: slots 2-5."""
    c = edge_cloud([(2, 1)], (2, 1), edge_delay=2.0, cloud_delay=4.0)
    r = run(c, [job(0, 0, 4, 2)], DRF())
    assert col(r, "start_slot") == {0: 2}
    assert placements(r, 0)[0] == Placement.of({0: 2}, {0: 1})
    assert col(r, "completion_slot") == {0: 5}
    assert_fixed(r)


# ------------------------------------------------------------------------------------- BatchSche


def test_time_points_are_powers_of_two() -> None:
    assert list(time_points(20)) == [1, 2, 4, 8, 16]


def test_batchsche_batches_at_geometric_points_and_rolls_jobs_over() -> None:
    """Edge (2 slots, PS 1, delay 0), cloud unreachable before slot 5. comm = 1: planned rate
    p_j(xi=0) = 1/2 per worker. Jobs 0 and 1 (D=2, 2 mini-batches, a=0), job 2 (D=1, 1, a=3).

    tau=1, window [1, 2): D_u=2 needs ceil(2/(0.5*2)) = 2 slots > 1 -> nothing. tau=2, window
    [2, 4): for job 0 one worker needs 4 slots, two need 2: both on the edge with the PS (cost 0,
    payoff 1), planned slots 2-3; co-located, it really runs at rate 2 and completes in slot 2.
    Job 1 finds the edge full (booked until 4) and rolls over to tau=4, window [4, 8): one worker
    (4 planned slots, the first zero-cost configuration) runs at the co-located rate 1: slots
    4-5. Job 2 arrives at 3, is first considered at tau=4, finds the edge's PS slot taken
    (price theta_2 - 1 = 64 > 1, and no room) and starts at tau=8.
    """
    c = edge_cloud([(2, 1)], (4, 1), cloud_delay=5.0)
    pol = BatchSche(horizon=16)
    r = run(c, [job(0, 0, 2, 1, comm=1.0), job(1, 0, 2, 1, comm=1.0), job(2, 3, 1, 1)], pol)
    assert col(r, "admitted_at") == {0: 2, 1: 4, 2: 8}
    assert col(r, "start_slot") == {0: 2, 1: 4, 2: 8}
    assert col(r, "completion_slot") == {0: 2, 1: 5, 2: 8}
    assert col(r, "planned_completion") == {0: 3.0, 1: 7.0, 2: 8.0}
    assert col(r, "payoff") == {0: 1.0, 1: 1.0, 2: 1.0}
    assert placements(r, 0) == [Placement.of({0: 2}, {0: 1})]
    assert [(x["tau"], x["considered"], x["admitted"]) for x in pol.rounds] == [
        (1, [0, 1], []),
        (2, [0, 1], [0]),
        (4, [1, 2], [1]),
        (8, [2], [2]),
    ]
    assert_fixed(r)


def test_batchsche_prices_postpone_a_job_that_would_share_a_used_server() -> None:
    """Edge of 4 worker and 2 PS slots; jobs A and B (D=2, 2 mini-batches, comm=1) at 0. At
    tau=2 A takes 2 worker slots for [2, 4) at cost 0. For B the edge's worker price is
    lambda(2 of 4) = theta_1^(1/2) - 1 with theta_1 = 2 T S U F_1 + 1 = 65 (T=16, S=2, U=1):
    about 7 per worker-slot, far above the weight 1, so B is postponed to tau=4 although it fits.
    With F_1 = F_2 = 0.001 the prices are about 0.03 and B runs next to A from slot 2."""
    c = edge_cloud([(4, 2)], (4, 1), cloud_delay=9.0)
    jobs = [job(0, 0, 2, 1, comm=1.0), job(1, 0, 2, 1, comm=1.0)]
    assert col(run(c, jobs, BatchSche(horizon=16)), "start_slot") == {0: 2, 1: 4}
    cheap = run(c, jobs, BatchSche(F1=0.001, F2=0.001, horizon=16))
    assert col(cheap, "start_slot") == {0: 2, 1: 2}
    assert 0 < col(cheap, "payoff")[1] < 1


def test_batchsche_only_uses_servers_the_data_has_reached() -> None:
    """Edge (1 slot, delay 0), cloud (4 slots, delay 3 or 2); job D=2, 4 mini-batches, a=0.
    tau=1 (window of 1 slot) is too short. tau=2, window [2, 4): 1 worker would need 4 slots, 2
    workers need 2 slots but the edge has one slot: only with the cloud's data there (delay 2)
    can BatchSche place them, greedily on the cheapest servers (all free: index order) edge and
    cloud, PS on the edge, slots 2-3. With delay 3 it waits for tau=4, window [4, 8), where the
    first zero-cost configuration is 1 worker (Alg. 2 keeps the first best): the edge, slots 4-7."""
    near = run(edge_cloud([(1, 1)], (4, 1), cloud_delay=2.0), [job(0, 0, 2, 2)], BatchSche(horizon=16))
    assert placements(near, 0) == [Placement.of({0: 1, 1: 1}, {0: 1})] * 2
    assert col(near, "start_slot") == {0: 2}
    far = run(edge_cloud([(1, 1)], (4, 1), cloud_delay=3.0), [job(0, 0, 2, 2)], BatchSche(horizon=16))
    assert placements(far, 0) == [Placement.of({0: 1}, {0: 1})] * 4
    assert col(far, "start_slot") == {0: 4}


# ------------------------------------------------------------------------------------ Preemptive


def long_and_short(preemptible=True):
    """One server, one worker slot: long job L (10 mini-batches, a=0), short S (1, a=1)."""
    c = Cluster.edge_cloud([{"w0": 1, "ps0": 1}], {"w0": 0, "ps0": 0}, edge_delay=0.0, cloud_delay=0.0)
    return c, [job(0, 0, 1, 10, preemptible=preemptible), job(1, 1, 1, 1, preemptible=preemptible)]


@pytest.mark.parametrize(("overhead", "done", "jct"), [(0.0, 10, 11.0), (1.0, 11, 12.0), (2.5, 13, 13.5)])
def test_preemptive_short_arrival_preempts_the_long_job(overhead, done, jct) -> None:
    """L runs in slot 0; S arrives at 1 with less remaining time and takes the only slot (L is
    preempted); L resumes at 2 and, after losing ``overhead`` slots to the restore, needs 9 more:
    it ends at 2 + overhead + 9 (slot ``ceil(.) - 1``). S runs in slot 1."""
    c, jobs = long_and_short()
    r = run(c, jobs, Preemptive(preemption_overhead=overhead))
    assert col(r, "completion_slot") == {0: done, 1: 1}
    assert col(r, "jct")[0] == pytest.approx(jct)
    assert col(r, "preemptions") == {0: 1.0, 1: 0.0}
    slots = sorted(set(r.allocations.loc[r.allocations["job"] == 0, "slot"]))
    assert slots[:2] == [0, 2]  # paused in slot 1
    assert total_completion_time(r) == done + 0


def test_preemptive_waits_for_a_faster_server_its_data_has_not_reached() -> None:
    """Edge (1 slot, delay 0) or cloud (4 slots, delay 2) for a job of 8 mini-batches, D=4: the
    edge would finish at 0 + 8, the cloud at 2 + 2, so the job waits for the cloud."""
    c = edge_cloud([(1, 1)], (4, 1), cloud_delay=2.0)
    r = run(c, [job(0, 0, 4, 2, preemptible=True)], Preemptive())
    assert col(r, "start_slot") == {0: 2}
    assert placements(r, 0) == [Placement.of({1: 4}, {1: 1})] * 2


def test_preemptive_refuses_non_preemptible_jobs_unless_told() -> None:
    c, jobs = long_and_short(preemptible=False)
    with pytest.raises(ValueError, match=r"job 0's model is not preemptible.*preemptible=True"):
        run(c, jobs, Preemptive())
    r = run(c, jobs, Preemptive(strict=False))  # serves them, never pauses them
    assert col(r, "completion_slot") == {0: 9, 1: 10}
    assert col(r, "preemptions") == {0: 0.0, 1: 0.0}
    assert_fixed(r)


def test_engine_refuses_to_pause_a_non_preemptible_job() -> None:
    """The fixed allocation is the engine's rule, not FIFO's: a policy that stops an A_online job
    mid-run gets ``fixed_allocation``, whatever its name."""

    class Stopper(BasePolicy):
        name = "stopper"

        def decide(self, t, view):
            p = Placement.of({0: 1}, {0: 1})
            return Decision({0: p} if t == 0 else {}, admit=[v.job_id for v in view.pending()], wakeup=t + 1)

    c, jobs = long_and_short(preemptible=False)
    with pytest.raises(ScheduleViolation) as e:
        simulate(Workload(c, (jobs[0],)), Stopper())
    assert (e.value.constraint, e.value.job, e.value.slot) == ("fixed_allocation", 0, 1)


def test_decision_pause_is_validated() -> None:
    with pytest.raises(ValueError, match=r"decision.pause\[0\] must be a finite number >= 0.*-1"):
        Decision({}, pause={0: -1.0})
    with pytest.raises(ValueError, match="nan"):
        Decision({}, pause={0: math.nan})
    assert dict(Decision({}, pause={0: 0.0}).pause) == {}  # zeros dropped

    class Pauser(BasePolicy):
        name = "pauser"

        def decide(self, t, view):
            p = Placement.of({0: 1}, {0: 1})
            return Decision({0: p}, admit=[v.job_id for v in view.pending()], wakeup=t + 1, pause={0: 1.0})

    c, jobs = long_and_short()
    with pytest.raises(ScheduleViolation) as e:  # slot 1: the placement does not change
        simulate(Workload(c, (jobs[0],)), Pauser())
    assert (e.value.constraint, e.value.job, e.value.slot) == ("pause", 0, 1)


def test_preemptive_refuses_a_job_no_single_server_holds() -> None:
    c = Cluster.homogeneous(2, {"gpu": 2})
    spec = JobSpec(0, 0, LinearModel(work=3.0, min_gang=3, max_gang=3), {"gpu": 1})
    with pytest.raises(ValueError, match="preemptive: job 0 fits on no single server"):
        simulate(Workload(c, (spec,)), Preemptive())


def test_single_server_widths() -> None:
    c = edge_cloud([(1, 1), (3, 0)], (8, 1))
    spec = job(0, 0, 5, 1)
    assert wanted_workers(spec) == 5  # D_j, no requested count
    assert single_server_widths(spec, c, 5) == [(0, 1, 1), (2, 5, 1)]  # edge 1 has no PS slot


# ------------------------------------------------------------------------ all baselines, workload


def test_every_baseline_on_an_aonline_workload(small_workloads) -> None:
    """Each baseline finishes every job of a small ``aonline`` workload; the checker passes;
    FIFO, DRF and BatchSche keep every allocation fixed; FIFO puts each job on one server;
    Preemptive only runs on the preemptible copy."""
    fixed, preemptible = small_workloads
    totals = {}
    for name in ("fifo", "drf", "batchsche", "preemptive"):
        wl = preemptible if name == "preemptive" else fixed
        r = simulate(wl, registry.make_policy(name, wl))
        check_timeline(wl.cluster, wl.specs, r.allocations)
        assert set(r.jobs["status"]) == {"finished"}, name
        assert not r.stalled
        a = r.allocations
        for j, spec in wl.specs.items():
            first = a.loc[a["job"] == j, "slot"].min()
            for s in set(a.loc[(a["job"] == j) & (a["slot"] == first), "server"]):
                assert first >= spec.arrival + spec.delays(wl.cluster)[s]  # (2i)
        if name != "preemptive":
            assert_fixed(r)
        if name == "fifo":
            assert all(len(placements(r, j)[0].servers) == 1 for j in wl.specs)
        totals[name] = total_completion_time(r)
    assert all(np.isfinite(v) and v > 0 for v in totals.values())


def test_runs_are_deterministic(small_workloads) -> None:
    fixed, preemptible = small_workloads
    for name, wl, kw in (
        ("batchsche", fixed, {}),
        ("fifo", fixed, {}),
        ("preemptive", preemptible, {"preemption_overhead": 1.5}),
    ):
        a = simulate(wl, registry.make_policy(name, wl, **kw), seed=1)
        b = simulate(wl, registry.make_policy(name, wl, **kw), seed=2)
        assert a.jobs.equals(b.jobs) and a.runs.equals(b.runs), name


# ------------------------------------------------------------------------------ bad parameters


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: BatchSche(F1=0), r"batchsche.F1 must be a finite number > 0, got 0"),
        (lambda: BatchSche(F2=math.inf), r"batchsche.F2 .* got inf"),
        (lambda: BatchSche(F1="1"), r"batchsche.F1 .* got '1'"),
        (lambda: BatchSche(horizon=0), r"batchsche.horizon must be an integer >= 1 or None, got 0"),
        (lambda: Preemptive(preemption_overhead=-1), r"preemptive.preemption_overhead .*>= 0, got -1"),
        (lambda: Preemptive(preemption_overhead=math.nan), r"preemptive.preemption_overhead .* got nan"),
        (lambda: Preemptive(strict="yes"), r"preemptive.strict must be a bool, got 'yes'"),
        (lambda: FIFO(placement="nearest"), r"fifo.placement must be one of .* got 'nearest'"),
    ],
)
def test_bad_parameters_name_field_and_value(make, match) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def test_batchsche_refuses_other_job_models() -> None:
    c = Cluster.edge_cloud([{"w0": 2, "ps0": 1}], {"w0": 2, "ps0": 1}, edge_delay=0.0, cloud_delay=0.0)
    spec = JobSpec(0, 0, LinearModel(work=2.0), {"w0": 1})
    with pytest.raises(ValueError, match=r"batchsche: job 0: model must be an AOnlineModel, got 'linear'"):
        simulate(Workload(c, (spec,)), BatchSche())
