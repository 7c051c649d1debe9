"""Optimus wing, issue 19 (decision side): exact ties that rounding makes unequal follow the
documented tie rule; differences above the tolerance still decide strictly.

Each tie case is built from values equal in exact arithmetic but unequal in floats (``0.1 + 0.2``
vs ``0.3``, ``2/3`` computed two ways, a value times ``1 + 1e-15``); the matching strict case
moves one value by ``1e-7`` relative (100 times ``REL_TOL``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dlsched.optimus.allocation import AllocJob, _dominant_divisors, allocate, speed_function
from dlsched.optimus.baselines import tetris_allocate
from dlsched.optimus.fitting import LossFit, convergence_epoch, remaining_epochs
from dlsched.optimus.paa import paa
from dlsched.optimus.placement import PlaceJob, place
from dlsched.optimus.policy import best_fit, drf_bundles, shrink

METHODS = [("heap", "literal"), ("bands", "literal"), ("heap", "skip")]


def table_speed(values: dict[tuple[int, int], float], default: float = 1.0):
    """A speed function given by a table (``default`` elsewhere)."""
    return lambda p, w: values.get((p, w), default)


# ------------------------------------------------------------------ allocation: role (Eq. (9))


@pytest.mark.parametrize("method,stop_rule", METHODS)
def test_issue21_role_tie_goes_to_ps(method, stop_rule):
    # issue 21 item 4: at (3, 2) both marginal gains are exactly 2/3, the floats differ in the last
    # bit in the worker's favour; the worker (CPU 4.5 > 4) does not fit and the literal rule stops
    f = speed_function("async", [1, 1, 0, 0])
    t = lambda p, w: 1.0 / f(p, w)  # noqa: E731
    g_ps, g_w = (t(3, 2) - t(4, 2)) / 0.5 * 4, (t(3, 2) - t(3, 3)) / 1.0 * 4  # share divisors 1/8, 1/4
    assert g_ps < g_w and math.isclose(g_ps, g_w, rel_tol=1e-15)  # the float trap is there
    jobs = [AllocJob(0, 1.0, f, np.array([1.0, 1.0]), np.array([0.5, 0.0]))]
    assert allocate(jobs, np.array([4.0, 4.0]), method=method, stop_rule=stop_rule) == {0: (4, 2)}


@pytest.mark.parametrize("method,stop_rule", METHODS)
@pytest.mark.parametrize("rel,expect", [(1e-15, (2, 1)), (1e-7, (1, 2))])
def test_role_tie_and_strict(method, stop_rule, rel, expect):
    # t(1,1) = 1, t(2,1) = 1/2, t(1,2) = 1/(2 (1 + rel)): within the tolerance the PS wins
    f = table_speed({(1, 1): 1.0, (2, 1): 2.0, (1, 2): 2.0 * (1.0 + rel)})
    jobs = [AllocJob(0, 1.0, f, np.array([1.0]), np.array([1.0]), max_ps=2, max_workers=2)]
    assert allocate(jobs, np.array([3.0]), method=method, stop_rule=stop_rule) == {0: expect}


# ------------------------------------------------------------------ allocation: between jobs


@pytest.mark.parametrize("method,stop_rule", METHODS)
@pytest.mark.parametrize("q1,winner", [(1.0 + 1e-15, 0), (1.0 + 1e-7, 1)])
def test_job_tie_goes_to_smaller_id(method, stop_rule, q1, winner):
    # two jobs with the same speed; job 1's remaining work is 1e-15 larger, so its float gain is
    # larger (0.5000000000000004 vs 0.5): a tie (-> job 0) unless the difference exceeds the
    # tolerance (-> job 1)
    f = speed_function("async", [1.0, 1.0, 0.0, 0.0])
    jobs = [
        AllocJob(0, 1.0, f, np.array([1.0]), np.array([1.0])),
        AllocJob(1, q1, f, np.array([1.0]), np.array([1.0])),
    ]
    trace: list = []
    out = allocate(jobs, np.array([5.0]), method=method, stop_rule=stop_rule, trace=trace)
    assert [j for j, _, _ in trace] == [winner]
    assert out[winner] == (2, 1) and out[1 - winner] == (1, 1)


def test_job_near_ties_heap_equals_bands():
    # many near-equal gains across jobs: the banded fast path reproduces the heap loop's tie rule
    rng = np.random.default_rng(5)
    for _ in range(150):
        th = rng.uniform(0.1, 3.0, 4)
        th[0] += 0.1
        f = speed_function("async", th)
        n = int(rng.integers(2, 6))
        jobs = [
            AllocJob(
                int(rng.integers(0, 100)) * 10 + j,
                float(rng.choice([1.0, 1.0 + 1e-15, 1.0 + 4e-16, 1.0 - 1e-16])),
                f,
                np.array([1.0, 1.0]),
                np.array([1.0, 0.5]),
                max_ps=int(rng.integers(2, 8)),
            )
            for j in range(n)
        ]
        cap = np.array([float(rng.integers(4, 40)), float(rng.integers(4, 40))])
        t_heap: list = []
        t_bands: list = []
        a = allocate(jobs, cap, method="heap", trace=t_heap)
        b = allocate(jobs, cap, method="bands", trace=t_bands)
        assert a == b and t_heap == t_bands


@pytest.mark.parametrize("d1,expect", [(0.1, 1.0), (0.1001, 0.1001)])
def test_dominant_resource_tie_goes_to_smaller_index(d1, expect):
    # shares 1/3 and 0.1/0.3 (equal exactly; the float of the second is 1 ulp larger)
    div = _dominant_divisors(np.array([[1.0, d1]]), np.array([3.0, 0.3]), "amount")
    assert div[0] == expect


# ------------------------------------------------------------------ placement (Sec. 4.2)


@pytest.mark.parametrize("w0,first", [(0.2, 0), (0.2001, 1)])
def test_place_job_order_tie_by_id(w0, first):
    # dominant shares 0.1 + 0.2 (job 0) and 0.15 + 0.15 = 0.3 (job 1): a tie -> job 0 first
    jobs = [
        PlaceJob(0, 1, 1, np.array([0.1]), np.array([w0])),
        PlaceJob(1, 1, 1, np.array([0.15]), np.array([0.15])),
    ]
    res = place(jobs, np.array([[1.0]]))
    assert res.order[0] == first


@pytest.mark.parametrize("free1,server", [(0.1 + 0.2, 0), (0.3 * (1 + 1e-7), 1)])
def test_place_server_order_tie_by_index(free1, server):
    # free 0.3 (server 0) and 0.1 + 0.2 (server 1): equal -> the lower index hosts the job
    res = place([PlaceJob(7, 1, 1, np.array([0.01]), np.array([0.01]))], np.array([[0.3], [free1]]))
    assert dict(res.placements[7].workers) == {server: 1}


# ------------------------------------------------------------------ policy helpers


@pytest.mark.parametrize("need1,expect", [(0.3, {0: (6, 6), 1: (1, 1)}), (0.2999, {0: (3, 3), 1: (2, 2)})])
def test_drf_bundles_tie_goes_to_earlier_job(need1, expect):
    # after 3 bundles job 0 holds 3 * 0.1 / 0.9, job 1 holds 0.3 / 0.9 (equal; the float of job 0
    # is larger): a tie -> job 0 grows first and job 1's next bundle no longer fits
    inv = 1.0 / 0.9
    assert 3 * 0.1 * inv > 0.3 * inv  # the float trap is there
    f = speed_function("async", [1.0, 1.0, 0.0, 0.0])
    jobs = [
        AllocJob(0, 1.0, f, np.array([0.05]), np.array([0.05])),
        AllocJob(1, 1.0, f, np.array([need1 / 2]), np.array([need1 / 2])),
    ]
    assert drf_bundles(jobs, np.array([0.9])) == expect


@pytest.mark.parametrize("f12,expect", [(0.1 + 0.2, (2, 1)), (0.3 * (1 + 1e-7), (1, 2))])
def test_shrink_tie_gives_back_the_worker(f12, expect):
    f = table_speed({(2, 1): 0.3, (1, 2): f12})
    job = AllocJob(0, 1.0, f, np.array([1.0]), np.array([1.0]))
    assert shrink(job, (2, 2), lambda p, w: (p, w) if p + w <= 3 else None) == expect


@pytest.mark.parametrize("free0,server", [(0.1 + 0.2, 0), (0.3 * (1 + 1e-7), 1)])
def test_best_fit_tie_goes_to_lower_index(free0, server):
    free = np.array([[free0], [0.3]])
    assert best_fit(free, np.array([0.01]), 1, np.array([True]), 0) == {server: 1}


# ------------------------------------------------------------------ Tetris baseline


@pytest.mark.parametrize("f22,bundles", [(0.1 + 0.2, 1), (0.3 * (1 + 1e-7), 2)])
def test_tetris_speed_must_improve_beyond_tolerance(f22, bundles):
    f = table_speed({(1, 1): 0.3, (2, 2): f22}, default=0.0)
    job = AllocJob(0, 1.0, f, np.array([0.1]), np.array([0.1]))
    res = tetris_allocate([job], np.array([[10.0]]))
    assert res.bundles == {0: bundles}


@pytest.mark.parametrize("pd1,winner", [(0.2, 0), (0.2001, 1)])
def test_tetris_score_tie_goes_to_smaller_id(pd1, winner):
    # bundles 0.15 + 0.15 = 0.3 (job 0) and 0.1 + 0.2 (job 1): equal alignment -> job 0
    f = speed_function("async", [1.0, 1.0, 0.0, 0.0])
    jobs = [
        AllocJob(0, 1.0, f, np.array([0.15]), np.array([0.15]), max_ps=1),
        AllocJob(1, 1.0, f, np.array([0.1]), np.array([pd1]), max_ps=1),
    ]
    res = tetris_allocate(jobs, np.array([[0.5]]), srtf_weight=0.0)
    assert res.bundles == {winner: 1}


# ------------------------------------------------------------------ PAA


@pytest.mark.parametrize("b0,ps", [(0.5, 0), (0.4999, 2)])
def test_paa_least_assigned_tie_goes_to_lower_index(b0, ps):
    # avg = 1.5 / 3 (1 ulp above 0.5 in floats): PS 0 holds a partition of avg, PS 2 the 0.5 block;
    # the very small block 0.1 then ties on requests and (exactly) on assigned size -> PS 0
    out = paa([b0, 0.6, 0.1, 0.3], 3, eps=0.3).block_ps()
    assert out[2] == (ps,)


# ------------------------------------------------------------------ convergence (spec 2 [N])


def test_convergence_epoch_equality_at_integer():
    # b0 = 0.1, b1 = 0: the per-epoch decrease at epoch 5 is b0 / (x (x + b0)) with x = 0.5; with
    # delta equal to it (computed in floats) the bound is hit with equality -> e* = 6 (the float
    # t comes out 4.999999999999998, and a plain ceil would give 5)
    fit = LossFit(0.1, 0.0, 0.0, math.nan, 3)
    assert convergence_epoch(fit, 0.1 / (0.5 * 0.6)) == 6
    assert convergence_epoch(fit, (1.0 / 3.0) * (1 + 1e-7)) == 5  # strictly below at epoch 5


@pytest.mark.parametrize("cur,left", [(0.3 / 0.1, 3), (3.0 - 1e-7, 4)])
def test_remaining_epochs_integer_difference(cur, left):
    # e_now = 0.3 / 0.1 is 3 up to rounding (2.9999999999999996): 6 - 3 = 3 epochs left
    fit = LossFit(0.1, 0.0, 0.0, math.nan, 3)
    assert convergence_epoch(fit, 1.0 / 3.0) == 6
    assert remaining_epochs(fit, cur, 1.0 / 3.0) == left
