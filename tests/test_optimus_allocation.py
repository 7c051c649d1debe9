"""Optimus marginal-gain allocation (Sec. 4.1) and the Tetris baseline."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dlsched.core.jobs import OptimusModel
from dlsched.optimus.allocation import (
    AllocJob,
    allocate,
    brute_force_allocation,
    check_allocation,
    check_allocation_gap,
    speed_function,
    total_time,
)
from dlsched.optimus.baselines import tetris_allocate


def table_speed(table):
    """f(p, w) read from a 2-D table indexed [p][w] (clamped at the edges)."""
    t = np.asarray(table, dtype=float)

    def f(p, w):
        return float(t[min(p, t.shape[0] - 1), min(w, t.shape[1] - 1)])

    return f


def linear_speed(p, w):
    return float(min(p, w))


def harmonic(p, w):
    """Both roles help, symmetric: f(p+1, w) == f(p, w+1) when p == w."""
    return 1.0 / (1.0 / p + 1.0 / w)


def random_speed(rng):
    th = rng.uniform(0, 1, 5) * (rng.random(5) < 0.8)
    th[0] += 0.1
    if rng.random() < 0.5:
        return speed_function("sync", th, float(rng.integers(1, 64)))
    return speed_function("async", th[:4])


def random_jobs(rng, n, n_res, bumpy=0.3):
    jobs = []
    for j in range(n):
        if rng.random() < bumpy:
            f = table_speed(rng.uniform(0.1, 10, (30, 30)))
        else:
            f = random_speed(rng)
        wd = rng.integers(0, 4, n_res).astype(float)
        wd[rng.integers(n_res)] += 1
        pd_ = rng.integers(0, 4, n_res).astype(float)
        pd_[rng.integers(n_res)] += 1
        mp = None if rng.random() < 0.7 else int(rng.integers(1, 6))
        mw = None if rng.random() < 0.7 else int(rng.integers(1, 6))
        q = 0.0 if rng.random() < 0.1 else float(rng.uniform(1, 100))
        jobs.append(AllocJob(10 * j + 3, q, f, wd, pd_, mp, mw))
    return jobs


# ------------------------------------------------------------------------------------ basics


def test_every_job_starts_with_one_ps_and_one_worker():
    jobs = [AllocJob(j, 10.0, linear_speed, [1.0], [1.0]) for j in range(3)]
    assert allocate(jobs, [6.0]) == {0: (1, 1), 1: (1, 1), 2: (1, 1)}


def test_job_that_cannot_get_one_ps_and_one_worker_is_skipped():
    jobs = [
        AllocJob(0, 10.0, linear_speed, [2.0], [2.0]),
        AllocJob(1, 10.0, linear_speed, [1.0], [1.0]),
        AllocJob(2, 10.0, linear_speed, [1.0], [1.0]),
    ]
    # order of the sequence decides: job 0 takes 4, job 1 takes 2, job 2 does not fit
    assert allocate(jobs, [6.0]) == {0: (1, 1), 1: (1, 1)}


def test_stops_when_gains_become_non_positive():
    # speed grows with workers up to w = 3, then drops; PS never help
    table = np.zeros((10, 10))
    table[1:, 1:] = [1.0, 2.0, 3.0, 2.5, 2.0, 1.8, 1.6, 1.4, 1.2]
    jobs = [AllocJob(0, 60.0, table_speed(table), [1.0], [1.0])]
    trace: list = []
    assert allocate(jobs, [100.0], trace=trace) == {0: (1, 3)}
    assert [r for _, r, _ in trace] == ["worker", "worker"]
    assert trace[0][2] == pytest.approx((60 / 1 - 60 / 2) / (1 / 100))


def test_literal_rule_stops_at_first_task_that_does_not_fit_and_skip_goes_on():
    # job 0 has by far the larger gains but its tasks need 3 units; job 1's need 1
    big = AllocJob(0, 1000.0, harmonic, [3.0], [3.0])
    small = AllocJob(1, 1.0, harmonic, [1.0], [1.0])
    cap = [10.0]  # after 1+1 each: 8 used, 2 left
    assert allocate([big, small], cap, stop_rule="literal") == {0: (1, 1), 1: (1, 1)}
    skip = allocate([big, small], cap, stop_rule="skip")
    assert skip[0] == (1, 1)
    assert sum(skip[1]) == 4  # job 1 gets the 2 units left


def test_ties_go_to_ps_and_to_the_smaller_job_id():
    f = table_speed(np.array([[0, 0, 0], [0, 1, 2], [0, 2, 2]], dtype=float))  # f(2,1) == f(1,2)
    jobs = [AllocJob(7, 10.0, f, [1.0], [1.0]), AllocJob(4, 10.0, f, [1.0], [1.0])]
    trace: list = []
    out = allocate(jobs, [5.0], trace=trace)  # room for exactly one more task
    assert trace == [(4, "ps", pytest.approx((10 / 1 - 10 / 2) / (1 / 5)))]
    assert out == {7: (1, 1), 4: (2, 1)}


def test_priority_factor_scales_the_gain():
    a = AllocJob(0, 10.0, harmonic, [1.0], [1.0])
    b = AllocJob(1, 10.0, harmonic, [1.0], [1.0])
    trace: list = []
    allocate([a, b], [5.0], priority={0: 0.95}, trace=trace)
    assert trace[0][0] == 1  # job 0 would win the tie on id, but its gain is damped
    with pytest.raises(ValueError, match="priority"):
        allocate([a, b], [5.0], priority={0: 0.0})


def test_share_gain_is_unit_free_and_amount_is_not():
    # job 0 is memory-bound, job 1 cpu-bound; change the memory unit GB -> MB
    f = speed_function("sync", (1.0, 0.1, 0.2, 0.0, 0.0), 16.0)
    jobs_gb = [
        AllocJob(0, 100.0, f, [1.0, 8.0], [1.0, 8.0]),
        AllocJob(1, 100.0, f, [4.0, 1.0], [4.0, 1.0]),
    ]
    jobs_mb = [
        AllocJob(j.job_id, j.remaining, f, j.worker_demand * [1, 1000], j.ps_demand * [1, 1000])
        for j in jobs_gb
    ]
    cap_gb, cap_mb = np.array([40.0, 80.0]), np.array([40.0, 80000.0])
    assert allocate(jobs_gb, cap_gb, gain_unit="share") == allocate(jobs_mb, cap_mb, gain_unit="share")
    assert allocate(jobs_gb, cap_gb, gain_unit="amount") != allocate(jobs_mb, cap_mb, gain_unit="amount")


def test_infinite_time_at_one_worker_gives_infinite_gain():
    table = np.zeros((6, 6))
    table[1:, 2:] = 1.0  # no progress with one worker
    jobs = [AllocJob(0, 5.0, table_speed(table), [1.0], [1.0]), AllocJob(1, 5.0, linear_speed, [1.0], [1.0])]
    trace: list = []
    out = allocate(jobs, [5.0], trace=trace)
    assert trace == [(0, "worker", math.inf)]
    assert out == {0: (1, 2), 1: (1, 1)}


def test_zero_remaining_work_gets_only_the_initial_tasks():
    jobs = [AllocJob(0, 0.0, linear_speed, [1.0], [1.0])]
    assert allocate(jobs, [100.0]) == {0: (1, 1)}


def test_caps_are_respected():
    jobs = [AllocJob(0, 100.0, harmonic, [1.0], [1.0], max_ps=2, max_workers=3)]
    assert allocate(jobs, [100.0]) == {0: (2, 3)}
    assert allocate([AllocJob(0, 100.0, harmonic, [1.0], [1.0])], [100.0]) == {0: (50, 50)}


def test_speed_function_matches_optimus_model():
    for mode in ("sync", "async"):
        m = OptimusModel(
            mode=mode,
            total_steps=10,
            batch=256.0,
            t_forward=0.01,
            t_back=0.1,
            model_size=1e8,
            ps_bw=1e9,
            worker_bw=1e9,
            t_update=0.02,
            delta=0.003,
            delta_ps=0.004,
            placement_aware=False,
        )
        upd = 2 * m.model_size / m.ps_bw + m.t_update
        if mode == "sync":
            f = speed_function("sync", (m.t_forward, m.t_back, upd, m.delta, m.delta_ps), m.batch)
        else:
            f = speed_function("async", (m.batch * m.t_forward + m.t_back, upd, m.delta, m.delta_ps))
        for p in range(1, 6):
            for w in range(1, 6):
                assert f(p, w) == pytest.approx(m.speed(p, w), rel=1e-12)


# ------------------------------------------------------------------------------ properties


@pytest.mark.parametrize("seed", range(6))
def test_random_instances_satisfy_the_checks(seed):
    rng = np.random.default_rng(seed)
    n_res = int(rng.integers(1, 4))
    jobs = random_jobs(rng, int(rng.integers(1, 15)), n_res)
    cap = rng.integers(2, 60, n_res).astype(float)
    for stop_rule in ("literal", "skip"):
        for gain_unit in ("share", "amount"):
            claim = check_allocation(jobs, cap, stop_rule=stop_rule, gain_unit=gain_unit)
            assert claim.holds, claim.summary()


def test_bands_and_heap_give_identical_results():
    rng = np.random.default_rng(42)
    for _ in range(150):
        n_res = int(rng.integers(1, 4))
        jobs = random_jobs(rng, int(rng.integers(1, 12)), n_res)
        cap = rng.integers(2, 60, n_res).astype(float)
        prio = {jobs[0].job_id: 0.95} if rng.random() < 0.5 else None
        for gain_unit in ("share", "amount"):
            t_heap: list = []
            t_bands: list = []
            a = allocate(jobs, cap, priority=prio, gain_unit=gain_unit, method="heap", trace=t_heap)
            b = allocate(jobs, cap, priority=prio, gain_unit=gain_unit, method="bands", trace=t_bands)
            assert a == b
            assert t_heap == t_bands


def test_heuristic_versus_brute_force_on_tiny_instances():
    rng = np.random.default_rng(3)
    gaps = []
    for _ in range(12):
        jobs = random_jobs(rng, int(rng.integers(1, 4)), 1, bumpy=0.0)
        cap = [float(rng.integers(4, 12))]
        claim = check_allocation_gap(jobs, cap, max_tasks=4)
        assert claim.holds, claim.summary()
        gaps.append(claim.details["gap"])
    assert min(gaps) >= -1e-9
    assert min(gaps) == pytest.approx(0.0, abs=1e-9)  # the greedy is often optimal


def test_brute_force_finds_the_optimum_of_a_hand_instance():
    # two identical jobs with f = min(p, w), 6 slots: (2,1)+(1,1) or similar cannot beat (1,1)+(1,1)+...
    jobs = [AllocJob(0, 12.0, linear_speed, [1.0], [1.0]), AllocJob(1, 6.0, linear_speed, [1.0], [1.0])]
    alloc, obj = brute_force_allocation(jobs, [6.0], max_tasks=4)
    assert alloc == {0: (2, 2), 1: (1, 1)}
    assert obj == pytest.approx(12 / 2 + 6 / 1)
    assert total_time(jobs, alloc) == pytest.approx(obj)


# ------------------------------------------------------------------------------ validation


def test_bad_input_is_rejected_with_clear_messages():
    ok = AllocJob(0, 1.0, linear_speed, [1.0], [1.0])
    with pytest.raises(ValueError, match="capacity"):
        allocate([ok], [-1.0])
    with pytest.raises(ValueError, match="duplicate job_id 0"):
        allocate([ok, ok], [5.0])
    with pytest.raises(ValueError, match="stop_rule"):
        allocate([ok], [5.0], stop_rule="never")
    with pytest.raises(ValueError, match="gain_unit"):
        allocate([ok], [5.0], gain_unit="bytes")
    with pytest.raises(ValueError, match="method='bands' needs"):
        allocate([ok], [5.0], stop_rule="skip", method="bands")
    with pytest.raises(ValueError, match="entries"):
        allocate([ok], [5.0, 5.0])
    with pytest.raises(TypeError, match="AllocJob"):
        allocate([object()], [5.0])
    with pytest.raises(ValueError, match="remaining"):
        AllocJob(1, -1.0, linear_speed, [1.0], [1.0])
    with pytest.raises(ValueError, match="worker_demand must ask"):
        AllocJob(1, 1.0, linear_speed, [0.0], [1.0])
    with pytest.raises(TypeError, match="callable"):
        AllocJob(1, 1.0, 3.0, [1.0], [1.0])
    with pytest.raises(ValueError, match="max_ps"):
        AllocJob(1, 1.0, linear_speed, [1.0], [1.0], max_ps=0)
    nan_job = AllocJob(2, 1.0, lambda p, w: math.nan, [1.0], [1.0])
    with pytest.raises(ValueError, match="returned NaN"):
        allocate([nan_job], [5.0])
    with pytest.raises(ValueError, match="theta needs 5"):
        speed_function("sync", (1.0, 2.0), 8.0)
    with pytest.raises(ValueError, match="M"):
        speed_function("sync", (1.0, 2.0, 0.0, 0.0, 0.0))


# ----------------------------------------------------------------------------------- Tetris


def saturating(k_max):
    """Speed f(k, k) grows until k_max bundles, then stays flat."""
    return lambda p, w: float(min(p, w, k_max))


def test_tetris_prefers_the_job_with_less_remaining_work():
    jobs = [
        AllocJob(1, 100.0, saturating(3), [1, 1], [1, 1]),
        AllocJob(2, 10.0, saturating(3), [1, 1], [1, 1]),
    ]
    r = tetris_allocate(jobs, np.array([[8.0, 8.0], [8.0, 8.0]]))
    assert [j for j, _, _ in r.trace[:3]] == [2, 2, 2]
    assert r.bundles == {1: 3, 2: 3}  # both stop where the speed stops improving
    assert r.placements[2].workers == ((0, 3),)
    for pl in r.placements.values():
        assert pl.workers == pl.ps  # 1:1, PS next to its worker


def test_tetris_alignment_packs_cpu_heavy_work_on_a_cpu_rich_server():
    # server 0 has free CPU, server 1 free memory; srtf_weight=0: pure packing
    cpu_job = AllocJob(1, 10.0, saturating(1), [3.0, 0.5], [1.0, 0.5])
    mem_job = AllocJob(2, 10.0, saturating(1), [0.5, 3.0], [0.5, 1.0])
    free = np.array([[8.0, 2.0], [2.0, 8.0]])
    r = tetris_allocate([cpu_job, mem_job], free, np.array([[8.0, 8.0], [8.0, 8.0]]), srtf_weight=0.0)
    assert r.placements[1].workers == ((0, 1),)
    assert r.placements[2].workers == ((1, 1),)


def test_tetris_respects_capacity_caps_and_input():
    rng = np.random.default_rng(5)
    jobs = random_jobs(rng, 8, 2, bumpy=0.5)
    free = rng.integers(3, 12, (4, 2)).astype(float)
    r = tetris_allocate(jobs, free, max_bundles=3)
    assert np.all(r.free >= -1e-9)
    used = free - r.free
    demand = {j.job_id: j.worker_demand + j.ps_demand for j in jobs}
    recomputed = np.zeros_like(free)
    for j, pl in r.placements.items():
        assert pl.n_workers == pl.n_ps == r.bundles[j] <= 3
        for s, c in pl.workers:
            recomputed[s] += c * demand[j]
    assert np.allclose(recomputed, used)
    with pytest.raises(ValueError, match="srtf_weight"):
        tetris_allocate(jobs, free, srtf_weight=-1)
    with pytest.raises(ValueError, match="max_bundles"):
        tetris_allocate(jobs, free, max_bundles=0)
