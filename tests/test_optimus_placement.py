"""Optimus task placement (Sec. 4.2), Theorem 1 and Fig. 10."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dlsched.core.schedule import Placement
from dlsched.optimus.allocation import AllocJob, allocate, speed_function
from dlsched.optimus.placement import (
    FIG10_PLACEMENTS,
    PlaceJob,
    check_fig10,
    check_theorem1,
    even_split,
    place,
    place_allocation,
    theorem1_counterexample,
    transfer_time,
)

# ------------------------------------------------------------------------- Theorem 1, Fig. 10


@pytest.mark.parametrize("terms", ["tasks", "roles"])
def test_fig10_times_are_3_3_2(terms):
    claim = check_fig10(terms)
    assert claim.holds, claim.summary()
    assert (claim.details["a"], claim.details["b"], claim.details["c"]) == (3.0, 3.0, 2.0)


def test_fig10_placements_have_the_right_tasks():
    for pl in FIG10_PLACEMENTS.values():
        assert (pl.n_ps, pl.n_workers) == (2, 4)
        for s in pl.servers:
            assert pl.ps_on(s) + pl.workers_on(s) <= 3


CASES = [
    (n, p, w, cap, bw)
    for n in (2, 3, 4)
    for p in (1, 2, 3)
    for w in (1, 2, 4, 5)
    for cap in (2, 3, 5)
    for bw in ((1.0, 1.0), (1.0, 3.0), (3.0, 1.0))
]


def test_theorem1_holds_by_brute_force_under_the_appendix_model():
    checked = 0
    for n, p, w, cap, (B, b) in CASES:
        claim = check_theorem1(n, p, w, float(cap), B=B, b=b)
        if claim.details["n_feasible"] == 0:
            continue
        checked += 1
        assert claim.holds, claim.summary()
        # the layout place() falls back to is always feasible and optimal here
        assert claim.details["staggered"] == pytest.approx(claim.details["optimum"])
    assert checked > 150


def test_theorem1_with_resource_vectors():
    # 2 resources; PS heavy in memory, workers in CPU
    claim = check_theorem1(3, 2, 4, [4.0, 6.0], ps_demand=[1.0, 3.0], worker_demand=[2.0, 1.0], S=10.0)
    assert claim.holds, claim.summary()
    assert claim.details["k_fewest"] == 3


def test_theorem1_fails_when_terms_count_only_where_each_role_is():
    # 1 PS + 4 workers on 2 servers with 4 slots: (PS+3w | 1w) beats the even split
    claim = check_theorem1(2, 1, 4, 4.0, terms="roles")
    assert not claim.holds
    assert claim.details["optimum"] == 1.0
    assert claim.details["even_best"] == 2.0
    assert claim.details["optimal_workers"] in ((1, 3), (3, 1))
    assert check_theorem1(2, 1, 4, 4.0, terms="tasks").holds


def test_theorem1_no_placement_is_vacuous_and_input_is_checked():
    assert check_theorem1(2, 3, 3, 2.0).holds  # 6 tasks, 4 slots
    with pytest.raises(ValueError, match="n_servers"):
        check_theorem1(5, 1, 1, 2.0)
    with pytest.raises(ValueError, match="p and w"):
        check_theorem1(2, 13, 1, 2.0)


def test_transfer_time_formula():
    pl = Placement.of({0: 2, 1: 1}, {0: 1, 1: 1})  # w = 3, p = 2
    # server 0: PS term (S/p)(3-2)/B, worker term (S/p)(2-1)/b; server 1: (S/p)(3-1)/B, (S/p)(1)/b
    assert transfer_time(pl, 4.0, 1.0, 1.0) == pytest.approx(2.0 * 2 / 1)
    assert transfer_time(pl, 4.0, 4.0, 0.5) == pytest.approx(max(2 * 2 / 4, 2 * 1 / 0.5))
    colocated = Placement.of({0: 3}, {0: 2})
    assert transfer_time(colocated, 4.0, 1.0, 1.0) == 0.0
    only_workers = Placement.of({0: 1, 1: 3}, {0: 1})
    assert transfer_time(only_workers, 1.0, 1.0, 1.0, terms="tasks") == 3.0  # (4-1) on server 1
    assert transfer_time(only_workers, 1.0, 1.0, 1.0, terms="roles") == 3.0  # PS on 0 sends to 3
    with pytest.raises(ValueError, match="PS"):
        transfer_time(Placement.of({0: 1}, {}), 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="B"):
        transfer_time(pl, 1.0, 0.0, 1.0)


def test_even_split():
    assert even_split(7, 3) == [3, 2, 2]
    assert even_split(7, 3, extra_offset=2) == [2, 2, 3]
    assert even_split(2, 4) == [1, 1, 0, 0]
    assert sum(even_split(11, 4, 3)) == 11


# ----------------------------------------------------------------------------------- place()


def usage(placements, jobs, n_servers, n_res):
    by_id = {j.job_id: j for j in jobs}
    used = np.zeros((n_servers, n_res))
    for j, pl in placements.items():
        for s, c in pl.workers:
            used[s] += c * by_id[j].worker_demand
        for s, c in pl.ps:
            used[s] += c * by_id[j].ps_demand
    return used


def assert_even(pl: Placement, p: int, w: int):
    servers = sorted(pl.servers)
    k = len(servers)
    ps = sorted(pl.ps_on(s) for s in servers)
    ws = sorted(pl.workers_on(s) for s in servers)
    assert set(ps) <= {p // k, -(-p // k)}
    assert set(ws) <= {w // k, -(-w // k)}
    assert (pl.n_ps, pl.n_workers) == (p, w)


def test_fig10_job_is_placed_on_two_servers_like_c():
    free = np.full((3, 1), 3.0)
    r = place([PlaceJob(0, 2, 4, [1.0], [1.0])], free)
    pl = r.placements[0]
    assert pl == FIG10_PLACEMENTS["c"]
    assert transfer_time(pl, 2.0, 1.0, 1.0) == 2.0
    assert r.free[:, 0].tolist() == [0.0, 0.0, 3.0]


def test_fewest_servers_and_order_of_servers():
    free = np.array([[2.0], [10.0], [6.0]])
    r = place([PlaceJob(0, 1, 3, [1.0], [1.0])], free)
    assert r.placements[0] == Placement.of({1: 3}, {1: 1})  # the freest server alone
    r = place([PlaceJob(0, 2, 10, [1.0], [1.0])], free)
    assert r.placements[0] == Placement.of({1: 5, 2: 5}, {1: 1, 2: 1})
    # 14 tasks: k=2 needs 7 + 7 > 6; k=3 needs 5, 5, 4 > 2: not placed
    r = place([PlaceJob(0, 2, 12, [1.0], [1.0])], free)
    assert r.unplaced == (0,)
    assert r.placements == {}
    assert np.array_equal(r.free, free)


def test_small_jobs_first():
    free = np.array([[4.0]])
    big = PlaceJob(1, 1, 3, [1.0], [1.0])
    small = PlaceJob(9, 1, 1, [1.0], [1.0])
    r = place([big, small], free)
    assert r.order == (9, 1)
    assert set(r.placements) == {9}
    assert r.unplaced == (1,)


def test_extras_layouts():
    free = np.ones((2, 1))
    job = PlaceJob(0, 1, 1, [1.0], [1.0])
    assert place([job], free, extras="aligned").unplaced == (0,)
    for extras in ("staggered", "either"):
        r = place([job], free, extras=extras)
        assert r.placements[0] == Placement.of({1: 1}, {0: 1})
    free = np.array([[3.0], [2.0]])
    job = PlaceJob(0, 1, 3, [1.0], [1.0])
    assert place([job], free, extras="aligned").placements[0] == Placement.of({0: 2, 1: 1}, {0: 1})
    assert place([job], free, extras="staggered").placements[0] == Placement.of({0: 1, 1: 2}, {0: 1})
    with pytest.raises(ValueError, match="extras"):
        place([job], free, extras="random")


def test_sort_by_servers_and_hard():
    free = np.array([[8.0, 1.0], [2.0, 9.0]])
    job = PlaceJob(0, 1, 1, [1.0, 0.5], [1.0, 0.5])
    assert place([job], free, sort_by=0).placements[0].servers == {0}
    assert place([job], free, sort_by=1).placements[0].servers == {1}
    assert place([job], free, servers=[1]).placements[0].servers == {1}
    big = PlaceJob(0, 1, 1, [1.0, 5.0], [1.0, 5.0])
    assert place([big], free).unplaced == (0,)
    assert place([big], free, hard=[True, False]).placements[0].servers == {0}


@pytest.mark.parametrize("seed", range(5))
def test_random_placements_are_feasible_even_and_complete(seed):
    rng = np.random.default_rng(seed)
    n_srv, n_res = int(rng.integers(3, 30)), 2
    free = rng.integers(2, 16, (n_srv, n_res)).astype(float)
    jobs = [
        PlaceJob(
            j,
            int(rng.integers(1, 6)),
            int(rng.integers(1, 9)),
            rng.integers(1, 4, n_res),
            rng.integers(1, 4, n_res),
        )
        for j in range(int(rng.integers(1, 25)))
    ]
    for extras in ("aligned", "staggered", "either"):
        r = place(jobs, free, extras=extras)
        assert set(r.placements) | set(r.unplaced) == {j.job_id for j in jobs}
        assert not set(r.placements) & set(r.unplaced)
        used = usage(r.placements, jobs, n_srv, n_res)
        assert np.all(used <= free + 1e-9)
        assert np.allclose(free - used, r.free)
        for j in jobs:
            if j.job_id in r.placements:
                assert_even(r.placements[j.job_id], j.ps, j.workers)


def test_an_unplaced_job_has_no_even_split_even_on_an_emptier_cluster_state():
    # a job is left out only if no k works on the servers as they were when its turn came;
    # with a single job this is the same as: no even split on the first k servers for any k
    free = np.array([[3.0], [3.0], [1.0]])
    job = PlaceJob(0, 3, 4, [1.0], [1.0])  # 7 tasks in 7 slots, but no even split fits
    assert place([job], free).unplaced == (0,)
    for k in (1, 2, 3):
        for offset in range(k):
            ps, ws = even_split(3, k), even_split(4, k, offset)
            assert any(ps[i] + ws[i] > free[i, 0] for i in range(k))


def test_place_allocation_matches_place():
    rng = np.random.default_rng(11)
    f = speed_function("async", (1.0, 0.5, 0.01, 0.02))
    jobs = [
        AllocJob(j, float(rng.uniform(10, 100)), f, rng.integers(1, 4, 2), rng.integers(1, 3, 2))
        for j in range(30)
    ]
    free = np.tile([16.0, 32.0], (20, 1))
    alloc = allocate(jobs, free.sum(axis=0))
    a = place_allocation(jobs, alloc, free)
    by_id = {j.job_id: j for j in jobs}
    b = place(
        [PlaceJob(j, p, w, by_id[j].ps_demand, by_id[j].worker_demand) for j, (p, w) in alloc.items()], free
    )
    assert a.placements == b.placements
    assert a.unplaced == b.unplaced
    assert np.array_equal(a.free, b.free)
    with pytest.raises(ValueError, match="not among jobs"):
        place_allocation(jobs, {999: (1, 1)}, free)


def test_bad_input():
    job = PlaceJob(0, 1, 1, [1.0], [1.0])
    with pytest.raises(ValueError, match="free must have shape"):
        place([job], np.ones(3))
    with pytest.raises(ValueError, match="sort_by"):
        place([job], np.ones((2, 1)), sort_by=1)
    with pytest.raises(ValueError, match="duplicate"):
        place([job, job], np.ones((2, 1)))
    with pytest.raises(ValueError, match="entries"):
        place([job], np.ones((2, 2)))
    with pytest.raises(ValueError, match="servers"):
        place([job], np.ones((2, 1)), servers=[5])
    with pytest.raises(ValueError, match="both 0"):
        PlaceJob(0, 0, 0, [1.0], [1.0])


def test_compositions_cover_all_placements():
    # sanity of the brute force: number of feasible placements of 2 PS + 2 workers on 2
    # servers with unlimited room = 3 * 3
    claim = check_theorem1(2, 2, 2, 100.0)
    assert claim.details["n_feasible"] == len(list(itertools.product(range(3), range(3))))


# ------------------------------------------------- issue 21: unequal demands, extras="all"


def test_theorem1_fails_when_ps_and_worker_demands_differ():
    # 3 servers of capacity 3, PS 0.5, worker 1, 2 PS + 5 workers: the even split needs 3
    # servers and takes 2; (3 W | 2 PS + 2 W) takes 1.5
    claim = check_theorem1(3, 2, 5, 3.0, ps_demand=0.5, worker_demand=1.0)
    assert not claim.holds
    d = claim.details
    assert (d["k_fewest"], d["even_best"], d["optimum"]) == (3, 2.0, 1.5)
    assert sorted(zip(d["optimal_ps"], d["optimal_workers"], strict=True)) == [(0, 0), (0, 3), (2, 2)]
    assert sorted(d["even_ps"]) == [0, 1, 1] and sorted(d["even_workers"]) == [1, 2, 2]
    pl = Placement.of({0: 3, 1: 2}, {1: 2})
    assert transfer_time(pl, 1.0, 1.0, 1.0) == 1.5
    assert transfer_time(Placement.of({0: 2, 1: 2, 2: 1}, {0: 1, 1: 1}), 1.0, 1.0, 1.0) == 2.0
    # the helper reports the same instance; equal demands restore the theorem there
    ce = theorem1_counterexample()
    assert not ce.holds and ce.details["optimum"] == 1.5 and ce.details["even_best"] == 2.0
    assert (ce.details["ps_demand"], ce.details["worker_demand"]) == (0.5, 1.0)
    assert ce.details == {**claim.details, "ps_demand": 0.5, "worker_demand": 1.0}
    for dem in (0.5, 1.0):
        assert theorem1_counterexample(ps_demand=dem, worker_demand=dem).holds


def test_theorem1_unequal_demands_can_leave_no_even_split_at_all():
    # the PS fills one server; both workers must share the other: no even split on 1 or 2 servers
    claim = check_theorem1(2, 1, 2, 2.0, ps_demand=2.0, worker_demand=0.5)
    assert not claim.holds
    assert claim.details["n_feasible"] > 0 and claim.details["k_fewest"] == -1
    assert claim.details["even_ps"] == () and claim.details["even_workers"] == ()


def test_theorem1_holds_with_equal_demands_on_a_grid():
    checked = 0
    for n in (2, 3):
        for p, w in itertools.product((1, 2, 3), (1, 3, 5)):
            for cap in (2.0, 3.0, 5.0):
                for dem in (0.5, 1.5):
                    claim = check_theorem1(n, p, w, cap, ps_demand=dem, worker_demand=dem)
                    checked += claim.details["n_feasible"] > 0
                    assert claim.holds, claim.summary()
    assert checked > 50


def test_extras_all_places_the_job_the_two_layouts_miss():
    # free (cpu, mem) (1, 0) and (1, 1); a PS needs (1, 1), a worker (1, 0); 1 PS + 1 worker
    free = np.array([[1.0, 0.0], [1.0, 1.0]])
    job = PlaceJob(0, 1, 1, [1.0, 1.0], [1.0, 0.0])
    for extras in ("either", "aligned", "staggered"):
        r = place([job], free, extras=extras)
        assert r.unplaced == (0,) and r.placements == {}
    r = place([job], free, extras="all")
    assert r.unplaced == ()
    assert r.placements[0] == Placement.of({0: 1}, {1: 1})
    assert np.allclose(r.free, 0.0)
    jobs = [AllocJob(0, 10.0, speed_function("async", (1.0, 0.5, 0.01, 0.02)), [1.0, 0.0], [1.0, 1.0])]
    assert place_allocation(jobs, {0: (1, 1)}, free).unplaced == (0,)
    assert place_allocation(jobs, {0: (1, 1)}, free, extras="all").placements[0] == Placement.of(
        {0: 1}, {1: 1}
    )


def _brute_first_even_split(free: np.ndarray, job: PlaceJob) -> int | None:
    """Smallest k <= p + w such that some even split fits on the first k servers (free's rows,
    already in placement order), by enumeration."""
    p, w = job.ps, job.workers
    for k in range(1, min(p + w, len(free)) + 1):
        qp, rp = divmod(p, k)
        qw, rw = divmod(w, k)
        for xs in itertools.combinations(range(k), rp):
            for ys in itertools.combinations(range(k), rw):
                ok = all(
                    np.all((qp + (i in xs)) * job.ps_demand + (qw + (i in ys)) * job.worker_demand
                           <= free[i] + 1e-9)
                    for i in range(k)
                )  # fmt: skip
                if ok:
                    return k
    return None


@pytest.mark.parametrize("seed", range(40))
def test_extras_all_finds_an_even_split_whenever_one_exists(seed):
    rng = np.random.default_rng(seed)
    n_srv = int(rng.integers(1, 6))
    cpu = np.sort(rng.choice(np.arange(1.0, 20.0), n_srv, replace=False))[::-1]  # distinct: no ties
    free = np.column_stack([cpu, rng.integers(0, 8, n_srv).astype(float)])
    job = PlaceJob(
        0, int(rng.integers(1, 5)), int(rng.integers(1, 6)), rng.integers(0, 3, 2), rng.integers(0, 3, 2)
    )
    if not (job.ps_demand.any() and job.worker_demand.any()):
        job = PlaceJob(0, job.ps, job.workers, job.ps_demand + 1, job.worker_demand + 1)
    want = _brute_first_even_split(free, job)
    r = place([job], free, extras="all")
    if want is None:
        assert r.unplaced == (0,)
    else:
        pl = r.placements[0]
        assert max(pl.servers) + 1 <= want  # within the first `want` servers
        used = usage(r.placements, [job], n_srv, 2)
        assert np.all(used <= free + 1e-9)
        k = want
        for s in range(k):  # per server shares are floor or ceil of p/k, w/k on those k servers
            assert pl.ps_on(s) in (job.ps // k, -(-job.ps // k))
            assert pl.workers_on(s) in (job.workers // k, -(-job.workers // k))
    # "all" places whenever "either" does, on no more servers, and identically at the same k
    e = place([job], free, extras="either")
    if e.placements:
        assert r.placements
        ke = max(e.placements[0].servers) + 1
        if want == ke:
            assert r.placements[0] == e.placements[0]


@pytest.mark.parametrize("seed", range(5))
def test_extras_all_placements_are_feasible_even_and_complete(seed):
    rng = np.random.default_rng(seed)
    n_srv, n_res = int(rng.integers(3, 30)), 2
    free = rng.integers(2, 16, (n_srv, n_res)).astype(float)
    jobs = [
        PlaceJob(j, int(rng.integers(1, 6)), int(rng.integers(1, 9)), rng.integers(1, 4, n_res),
                 rng.integers(0, 4, n_res))
        for j in range(int(rng.integers(1, 25)))
    ]  # fmt: skip
    r = place(jobs, free, extras="all")
    assert set(r.placements) | set(r.unplaced) == {j.job_id for j in jobs}
    used = usage(r.placements, jobs, n_srv, n_res)
    assert np.all(used <= free + 1e-9)
    assert np.allclose(free - used, r.free)
    for j in jobs:
        if j.job_id in r.placements:
            assert (r.placements[j.job_id].n_ps, r.placements[j.job_id].n_workers) == (j.ps, j.workers)


def test_optimus_policy_extras_option():
    from dlsched.optimus.policy import Optimus, shrink_and_place

    assert Optimus().extras == "either"
    assert Optimus(extras="all").extras == "all"
    with pytest.raises(ValueError, match="optimus.extras must be one of"):
        Optimus(extras="two")
    free = np.array([[1.0, 0.0], [1.0, 1.0]])
    job = AllocJob(0, 10.0, speed_function("async", (1.0, 0.5, 0.01, 0.02)), [1.0, 0.0], [1.0, 1.0])
    f = free.copy()
    assert shrink_and_place(job, (1, 1), f, sort_by=0, hard=np.array([True, True])) is None
    assert np.array_equal(f, free)
    got = shrink_and_place(job, (1, 1), f, sort_by=0, hard=np.array([True, True]), extras="all")
    assert got == Placement.of({0: 1}, {1: 1}) and np.allclose(f, 0.0)
