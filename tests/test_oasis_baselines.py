"""RRH and Dorm (OASiS Sec. V-A baselines): feasibility, fixed counts, admission threshold,
pausing, Dorm's guarantee, utilisation, adjustment limit, server groups, disaggregation,
fallback and determinism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import OptimizeResult

from dlsched.baselines.fifo import FIFO
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import ConstantUtility, JobSpec, OasisModel, Sigmoid, Workload
from dlsched.core.placement import RoundRobin
from dlsched.core.schedule import check_timeline, server_usage
from dlsched.core.simulator import simulate
from dlsched.oasis import baselines
from dlsched.oasis.baselines import RRH, Dorm, fluid_delay, server_groups, utilization
from dlsched.registry import make_workload
from dlsched.workloads import synthetic


def _instance(seed: int, n_jobs: int = 10, n_servers: int = 4, span: int = 6) -> Workload:
    return synthetic(
        np.random.default_rng(seed), model="oasis", n_jobs=n_jobs, n_servers=n_servers, arrival_span=span
    )


def _placements(result) -> dict[tuple[int, int], tuple]:
    """(job, slot) -> sorted ((role, server, count), ...)."""
    out: dict[tuple[int, int], list] = {}
    for j, t, s, role, c in result.allocations[["job", "slot", "server", "role", "count"]].itertuples(
        index=False
    ):
        out.setdefault((int(j), int(t)), []).append((role, int(s), int(c)))
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _counts(result) -> pd.DataFrame:
    """Workers and PS per (job, slot) from the allocation table."""
    a = result.allocations
    return a.pivot_table(index=["job", "slot"], columns="role", values="count", aggfunc="sum", fill_value=0)


# -------------------------------------------------------------------------- both policies


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "make",
    [RRH, lambda: RRH(alpha=1.0, threshold=5.0), Dorm, lambda: Dorm(fairness_factor=1.0, max_adjust=None)],
    ids=["rrh", "rrh-pv-only", "dorm", "dorm-fair"],
)
def test_feasible_and_complete_on_random_instances(seed, make):
    wl = _instance(seed)
    pol = make()
    res = simulate(wl, pol, seed=seed, check=True)
    check_timeline(wl.cluster, wl.specs, res.allocations)
    assert not res.stalled
    assert set(res.jobs["status"]) <= {"finished", "rejected"}
    if isinstance(pol, Dorm):
        assert (res.jobs["status"] == "finished").all()  # Dorm admits everyone
        assert pol.stats.milp + pol.stats.fallback == pol.stats.decisions == res.decisions


@pytest.mark.parametrize("make", [RRH, Dorm], ids=["rrh", "dorm"])
def test_deterministic(make):
    wl = _instance(11, n_jobs=14)
    a = simulate(wl, make(), seed=3)
    b = simulate(_instance(11, n_jobs=14), make(), seed=3)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.allocations, b.allocations)


@pytest.mark.parametrize(
    ("make", "kwargs"),
    [
        (RRH, {"alpha": 1.5}),
        (RRH, {"discount": -0.1}),
        (RRH, {"threshold": float("nan")}),
        (RRH, {"n_workers": 0}),
        (Dorm, {"max_adjust": -1}),
        (Dorm, {"time_limit": 0}),
        (Dorm, {"fairness_factor": 2.0}),
        (Dorm, {"mip_rel_gap": "small"}),
        (Dorm, {"time_limit": -1.0}),
        (Dorm, {"group_by": "rack"}),
    ],
)
def test_bad_parameters_name_the_field(make, kwargs):
    (field,) = kwargs
    with pytest.raises(ValueError, match=field):
        make(**kwargs)


# ------------------------------------------------------------------------------------ RRH


def _cluster() -> Cluster:
    return Cluster.two_pools(1, 1, {"gpu": 4, "cpu": 16, "mem": 64}, {"cpu": 16, "mem": 64})


def _job(j: int, arrival: int, epochs: int, utility) -> JobSpec:
    """4 workers (the whole worker server) at 40 mini-batches per slot: ``epochs`` slots of work."""
    model = OasisModel(
        epochs=epochs, chunks=4, minibatches=10, tau=0.09, comm=0.005, worker_bw=1.0, ps_bw=4.0
    )
    return JobSpec(
        j,
        arrival,
        model,
        {"gpu": 1, "cpu": 4, "mem": 16},
        {"cpu": 4, "mem": 16},
        utility=utility,
        requested_workers=4,
    )


@pytest.mark.parametrize("seed", range(4))
def test_rrh_running_jobs_never_change_counts(seed):
    wl = _instance(seed, n_jobs=16, n_servers=4)
    res = simulate(wl, RRH(), seed=0)
    counts = _counts(res)
    per_job = counts.groupby(level="job").nunique()
    assert (per_job <= 1).all().all(), per_job
    fixed = {s.job_id: s.requested_workers for s in wl.jobs}
    for j, w in counts["worker"].groupby(level="job").first().items():
        assert w <= fixed[j]  # lowered only when the request can never fit


def test_rrh_admission_threshold():
    # A: time-critical, worth 100, holds the whole cluster for 10 slots. B: worth 0.5 and as big:
    # admitting it delays A by ~10 slots past its target, a delay cost of ~100.
    a = _job(0, 0, 10, Sigmoid(100.0, 5.0, 12.0))
    b = _job(1, 1, 10, Sigmoid(1.0, 0.0, 5.0))
    wl = Workload(_cluster(), (a, b))
    res = simulate(wl, RRH(), seed=0).jobs.set_index("job_id")
    assert res.loc[1, "status"] == "rejected"
    assert res.loc[1, "rrh_reward"] == pytest.approx(0.5)
    assert res.loc[1, "rrh_delay_cost"] > 90
    assert res.loc[0, "utility"] > 99
    lenient = simulate(wl, RRH(threshold=-1e9), seed=0).jobs.set_index("job_id")
    assert lenient.loc[1, "status"] == "finished"
    assert lenient.loc[0, "utility"] > 99  # A still goes first: it ranks higher


def test_rrh_pauses_low_value_job_for_time_critical_one():
    low = _job(0, 0, 20, ConstantUtility(1.0))  # 20 slots, worth 1 whenever it ends
    high = _job(1, 2, 3, Sigmoid(100.0, 5.0, 4.0))  # 3 slots, target 4 slots
    wl = Workload(_cluster(), (low, high))
    res = simulate(wl, RRH(), seed=0)
    check_timeline(wl.cluster, wl.specs, res.allocations)
    jobs = res.jobs.set_index("job_id")
    slots = res.allocations.groupby("job")["slot"].apply(lambda s: sorted(set(s)))
    assert slots[1] == [2, 3, 4]  # high runs at once
    assert not set(slots[0]) & {2, 3, 4}  # low is paused meanwhile ...
    assert slots[0] == list(range(0, 2)) + list(range(5, 23))  # ... and resumes with its progress
    assert (_counts(res).groupby(level="job").nunique() <= 1).all().all()
    assert jobs.loc[1, "utility"] > 99
    fifo = simulate(wl, FIFO(), seed=0).jobs
    assert res.jobs["utility"].sum() > fifo["utility"].sum() + 90  # pausing pays off


def test_fluid_delay():
    assert fluid_delay(10.0, 0.3, 0.5) == 0.0  # everything fits at once
    assert fluid_delay(10.0, 1.0, 1.0) == pytest.approx(10.0)  # blocks the others completely
    assert fluid_delay(10.0, 0.5, 2.0) == pytest.approx(10.0 * (0.5 - 0.25))
    assert fluid_delay(10.0, 0.5, 0.0) == 0.0


# ----------------------------------------------------------------------------------- Dorm


class _Log:
    """Mixin recording every (slot, view, decision) of a policy."""

    def reset(self, cluster, rng):
        super().reset(cluster, rng)
        self.log = []

    def decide(self, t, view):
        d = super().decide(t, view)
        self.log.append((t, view, d))
        return d


class _Dorm(_Log, Dorm):
    pass


class _FIFO(_Log, FIFO):
    pass


def _min_allocations_fit(view) -> bool:
    free = view.cluster.capacity.copy()
    probe = RoundRobin(view.cluster)
    for v in view.jobs.values():
        m = v.spec.model
        if probe.place_job(v.spec, m.min_workers, m.ps_for(m.min_workers), free, view.t) is None:
            return False
    return True


@pytest.mark.parametrize("seed", range(4))
def test_dorm_every_job_gets_a_worker_when_capacity_allows(seed):
    wl = _instance(seed, n_jobs=8, n_servers=6)
    pol = _Dorm()
    simulate(wl, pol, seed=0)
    checked = 0
    for _t, view, d in pol.log:
        if _min_allocations_fit(view):
            checked += 1
            for j in view.jobs:
                assert j in d.allocations and d.allocations[j].n_workers >= 1, (j, _t)
    assert checked > 0
    assert pol.stats.milp == pol.stats.decisions


def _use(wl: Workload, decision) -> float:
    return utilization(wl.cluster, server_usage(wl.cluster, wl.specs, decision.allocations))


def test_dorm_first_decision_uses_at_least_fifos_capacity():
    guaranteed_by_theory = 0
    for seed in range(8):
        wl = _instance(seed, n_jobs=4, n_servers=6, span=1)  # everybody arrives in slot 0
        fifo, dorm = _FIFO(), _Dorm(mip_rel_gap=0.0)
        simulate(wl, fifo, seed=0)
        simulate(wl, dorm, seed=0)
        t0, view, first_fifo = fifo.log[0]
        _, _, first_dorm = dorm.log[0]

        assert _use(wl, first_dorm) >= _use(wl, first_fifo) - 1e-9, seed
        # When FIFO gives every guaranteed job its minimum, FIFO's allocation is a feasible point
        # of Dorm's MILP, so (with mip_rel_gap=0) Dorm's optimum cannot be lower.
        guaranteed_by_theory += all(j in first_fifo.allocations for j in dorm.guaranteed(t0, view))
    assert guaranteed_by_theory >= 3


def _adjustments(result) -> list[int]:
    """Per slot: jobs that ran in the previous slot, are not finished, and changed placement."""
    place = _placements(result)
    done = result.jobs.set_index("job_id")["completion_slot"]
    out = []
    for t in range(1, result.end_slot):
        before = {j for (j, s) in place if s == t - 1 and done[j] != t - 1}
        out.append(sum(place.get((j, t)) != place[(j, t - 1)] for j in before))
    return out


def test_dorm_adjustment_limit():
    seen_more = False
    for seed in range(4):
        wl = _instance(seed, n_jobs=12, n_servers=4, span=8)
        limited = _Dorm(max_adjust=1)
        res = simulate(wl, limited, seed=0)
        assert max(_adjustments(res)) <= 1
        assert limited.stats.milp > 0
        free = simulate(wl, Dorm(max_adjust=None), seed=0)
        seen_more |= max(_adjustments(free)) > 1
    assert seen_more  # the limit does bind somewhere


def _failed_milp(*args, **kwargs):
    return OptimizeResult(x=None, status=2, success=False, message="infeasible (test)")


def test_dorm_fallback_when_milp_fails(monkeypatch):
    monkeypatch.setattr(baselines, "milp", _failed_milp)
    wl = _instance(5, n_jobs=12, n_servers=4)
    pol = Dorm()
    res = simulate(wl, pol, seed=0, check=True)
    check_timeline(wl.cluster, wl.specs, res.allocations)
    assert pol.stats.fallback == pol.stats.decisions == res.decisions
    assert (res.jobs["status"] == "finished").all()
    # the fallback never touches a running job: each job keeps one placement from start to end
    place = _placements(res)
    for j in res.jobs["job_id"]:
        mine = {p for (k, _), p in place.items() if k == j}
        assert len(mine) == 1


def test_dorm_rejects_an_infeasible_solver_answer(monkeypatch):
    real = baselines.milp
    answers = []  # per solve: does the fake answer satisfy the model's rows?

    def greedy_upper_bounds(c, *, constraints, integrality, bounds, options):
        res = real(c, constraints=constraints, integrality=integrality, bounds=bounds, options=options)
        x = np.asarray(bounds.ub, float)
        (con,) = constraints
        act = con.A @ x
        answers.append(bool(np.all(act >= con.lb - 1e-6) and np.all(act <= con.ub + 1e-6)))
        return OptimizeResult(x=x, status=0, success=True, message="claims optimal", fun=res.fun)

    monkeypatch.setattr(baselines, "milp", greedy_upper_bounds)
    wl = _instance(2, n_jobs=10, n_servers=4, span=2)
    pol = Dorm()
    simulate(wl, pol, seed=0, check=True)  # the checker would raise on an infeasible decision
    assert len(answers) == pol.stats.decisions  # one solve per decision
    assert answers.count(False) >= 2
    # every answer that breaks the model's rows ends in the fallback
    assert pol.stats.fallback >= answers.count(False)
    assert pol.stats.milp <= answers.count(True)


def test_dorm_node_limit_is_reproducible():
    wl = _instance(9, n_jobs=14, n_servers=6, span=3)
    runs = [simulate(wl, Dorm(node_limit=1, time_limit=60.0), seed=0) for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0].allocations, runs[1].allocations)
    check_timeline(wl.cluster, wl.specs, runs[0].allocations)


def test_dorm_time_limit_incumbent_or_fallback():
    wl = _instance(7, n_jobs=14, n_servers=6, span=3)
    pol = Dorm(time_limit=1e-6)
    res = simulate(wl, pol, seed=0, check=True)
    check_timeline(wl.cluster, wl.specs, res.allocations)
    assert pol.stats.milp + pol.stats.fallback == pol.stats.decisions
    assert (res.jobs["status"] == "finished").all()


def test_dorm_default_has_no_wall_clock_limit_and_is_reproducible(monkeypatch):
    real = baselines.milp
    options_seen = []

    def spy(c, *, constraints, integrality, bounds, options):
        options_seen.append(dict(options))
        return real(c, constraints=constraints, integrality=integrality, bounds=bounds, options=options)

    monkeypatch.setattr(baselines, "milp", spy)
    assert Dorm().time_limit is None
    runs = []
    for _ in range(2):
        wl = make_workload("oasis", seed=3, n_jobs=20, H=8, K=8, T=30)  # heterogeneous servers
        pol = Dorm()
        runs.append(simulate(wl, pol, seed=0, check=True))
        assert pol.stats.milp > 0
    assert options_seen and all("time_limit" not in o for o in options_seen)
    assert all(o["node_limit"] == Dorm().node_limit for o in options_seen)
    pd.testing.assert_frame_equal(runs[0].jobs, runs[1].jobs)
    pd.testing.assert_frame_equal(runs[0].allocations, runs[1].allocations)
    options_seen.clear()
    simulate(wl, Dorm(time_limit=30.0), seed=0)  # an explicit limit is passed on to HiGHS
    assert options_seen and all(o["time_limit"] == 30.0 for o in options_seen)


def test_server_groups():
    caps = [{"gpu": 4, "cpu": 16}, {"gpu": 4, "cpu": 16}, {"gpu": 4, "cpu": 20}, {"gpu": 1, "cpu": 16}]
    cluster = Cluster.two_pools(4, 2, caps, {"cpu": 16})
    model = OasisModel(epochs=1, chunks=4, minibatches=1, tau=0.1, comm=0.0)
    big = JobSpec(0, 0, model, {"gpu": 2, "cpu": 2}, {"cpu": 2})  # no room on the 1-GPU server
    small = JobSpec(1, 0, model, {"gpu": 1, "cpu": 2}, {"cpu": 2})
    assert server_groups(cluster, [big, small], 0) == [(0, 1, 2), (3,), (4, 5)]
    assert server_groups(cluster, [small], 0) == [(0, 1, 2, 3), (4, 5)]  # same pool, same fit
    assert server_groups(cluster, [small], 0, by="capacity") == [(0, 1), (2,), (3,), (4, 5)]
    assert server_groups(cluster, [small], 0, by="server") == [(s,) for s in range(6)]
    late = JobSpec(2, 0, model, {"gpu": 1, "cpu": 2}, {"cpu": 2}, transfer_delay=(0, 0, 3, 0, 0, 0))
    assert server_groups(cluster, [late], 1) == [(0, 1, 3), (2,), (4, 5)]  # server 2 not reachable
    assert server_groups(cluster, [late], 3) == [(0, 1, 2, 3), (4, 5)]
    with pytest.raises(ValueError, match="by"):
        server_groups(cluster, [small], 0, by="rack")


def test_dorm_trims_group_counts_that_do_not_pack():
    # Two 4-GPU worker servers. The group has 8 GPUs, so the MILP's best group counts are
    # A = 2 workers (3 GPUs each) and B = 1 worker (2 GPUs); but on the servers only one A
    # worker fits next to B's. Disaggregation places the guaranteed minimums first and trims A.
    cluster = Cluster.two_pools(2, 1, {"gpu": 4, "cpu": 64, "mem": 256}, {"cpu": 64, "mem": 256})
    model = OasisModel(epochs=50, chunks=2, minibatches=10, tau=0.1, comm=0.0, worker_bw=1.0, ps_bw=4.0)
    a = JobSpec(0, 0, model, {"gpu": 3, "cpu": 1, "mem": 1}, {"cpu": 1, "mem": 1}, requested_workers=2)
    b = JobSpec(1, 0, model, {"gpu": 2, "cpu": 1, "mem": 1}, {"cpu": 1, "mem": 1}, requested_workers=2)
    wl = Workload(cluster, (a, b))
    grouped, exact = _Dorm(), _Dorm(group_by="server", mip_rel_gap=0.0)
    simulate(wl, grouped, seed=0, check=True)
    simulate(wl, exact, seed=0, check=True)
    first = grouped.log[0][2].allocations
    assert grouped.stats.trimmed >= 1 and grouped.stats.dropped_tasks >= 1
    assert first[0].n_workers == 1 and first[1].n_workers == 1  # both guaranteed jobs run
    assert first[0].n_ps == 1 and first[1].n_ps == 1  # OASiS (6): ceil(1 x 1/4) = 1
    # the per-server MILP is exact, so it packs at least as much (here B's second worker)
    assert _use(wl, exact.log[0][2]) >= _use(wl, grouped.log[0][2]) - 1e-12
    assert exact.log[0][2].allocations[1].n_workers == 2
