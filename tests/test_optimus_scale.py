"""Issue 23 (Optimus at trace scale): the ``fit`` option of :class:`dlsched.optimus.policy.Optimus`
and the batched shrink screen of :func:`dlsched.optimus.policy.shrink_and_place`.

* ``fit="full"`` (default) is today's refit; ``fit="incremental"`` solves the same NNLS problem on
  a QR factor of the rows updated by Givens rotations (:class:`~dlsched.optimus.fitting._SpeedSamples`):
  coefficients equal to the full fit up to rounding, whatever the number of samples;
* a bad ``fit`` raises ``ValueError`` naming ``optimus.fit`` and the value;
* ``shrink_and_place`` (screened in batches by ``_OneJobPlacer.may_fit``) returns what
  :func:`~dlsched.optimus.policy.shrink` with one attempt per count returns, on crowded clusters.
"""

from __future__ import annotations

import numpy as np
import pytest

from dlsched.core.simulator import simulate
from dlsched.optimus.allocation import AllocJob, speed_function
from dlsched.optimus.fitting import _givens_add, _SpeedSamples, fit_speed
from dlsched.optimus.placement import _OneJobPlacer
from dlsched.optimus.policy import FITS, Optimus, shrink, shrink_and_place
from dlsched.registry import make_workload


def _run(**params):
    wl = make_workload("optimus", seed=0, n_jobs=6)
    return simulate(wl, Optimus(**params), seed=0, horizon=200)


def test_fit_default_is_full_and_unchanged() -> None:
    assert FITS == ("full", "incremental")
    assert Optimus().fit == "full"
    a, b = _run(), _run(fit="full")
    assert a.jobs.equals(b.jobs)
    assert a.intervals.equals(b.intervals)


@pytest.mark.parametrize("bad", ["Full", "exact", "", None, 1, True])
def test_fit_bad_value_names_the_field(bad) -> None:
    with pytest.raises(ValueError, match=r"optimus\.fit") as exc:
        Optimus(fit=bad)
    assert repr(bad) in str(exc.value)


def _samples(rng, n: int, mode: str) -> list[tuple[int, int, float]]:
    out = []
    for _ in range(n):
        p, w = int(rng.integers(1, 30)), int(rng.integers(1, 60))
        den = 0.3 * 64 / w + 0.2 + 0.5 * w / p + 0.01 * w + 0.02 * p
        f = (1.0 if mode == "sync" else w) / den * (1.0 + 0.05 * rng.standard_normal())
        out.append((p, w, float(f)))
    return out


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_incremental_fit_solves_the_full_problem(mode) -> None:
    """The property of the option: after every new sample, the incremental coefficients are those
    of the full NNLS fit on all samples, up to rounding (the same least-squares problem)."""
    rng = np.random.default_rng(3)
    M = 64.0 if mode == "sync" else None
    pre = [(1, 1), (1, 2), (2, 2), (2, 4), (4, 4)]
    samples = [(p, w, s) for (p, w), (_, _, s) in zip(pre, _samples(rng, 5, mode), strict=True)]
    inc = _SpeedSamples(incremental=True)
    extra = _samples(rng, 400, mode)
    for t in range(len(extra) + 1):
        got = inc.fit(samples, mode, M)
        if t % 50 == 0 or t == len(extra):
            ref = fit_speed(samples, mode, M)
            assert got[0] == mode and got[2] == ref.M
            np.testing.assert_allclose(got[1], ref.theta, rtol=1e-9, atol=1e-9)
        if t < len(extra):
            samples.append(extra[t])
    assert len(inc._T) == (5 if mode == "async" else 6)  # the factor stays (c + 1) x (c + 1)


def test_givens_factor_keeps_the_normal_equations() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((50, 4))
    T: list = []
    for row in X.tolist():
        _givens_add(T, list(row))
    R = np.array(T)
    np.testing.assert_allclose(R.T @ R, X.T @ X, rtol=1e-12)
    assert np.allclose(np.tril(R, -1), 0.0)


def test_incremental_fit_runs_the_policy() -> None:
    res = _run(fit="incremental")
    assert len(res.jobs) == 6
    assert (res.jobs["status"] == "finished").any()


def _crowded(rng, n_srv: int) -> np.ndarray:
    cap = np.array([8.0, 32.0, 64.0])
    used = rng.integers(0, 9, size=(n_srv, 1)) * np.array([1.0, 3.0, 6.0])
    return np.maximum(cap - used, 0.0)


@pytest.mark.parametrize("extras", ["either", "aligned", "staggered", "all"])
def test_screened_shrink_is_shrink_with_every_attempt(extras) -> None:
    rng = np.random.default_rng(7)
    hard = np.array([True, True, True])
    for trial in range(40):
        free0 = _crowded(rng, int(rng.integers(1, 30)))
        f = speed_function("async", (1.0, 2.0, 0.05, 0.1))
        job = AllocJob(trial, 100.0, f, np.array([1.0, 0.0, 0.0]), np.array([0.0, 2.0, 4.0]))
        counts = (int(rng.integers(1, 80)), int(rng.integers(1, 120)))
        free_a, free_b = free0.copy(), free0.copy()
        got = shrink_and_place(job, counts, free_a, sort_by=1, hard=hard, extras=extras)
        placer = _OneJobPlacer(free_b, 1, hard, extras)

        def every(p, w, _pl=placer, _j=job):
            return _pl.attempt(_j.job_id, p, w, _j.ps_demand, _j.worker_demand)

        want = shrink(job, counts, every)
        assert (got is None) == (want is None)
        if got is not None:
            assert got == want
        np.testing.assert_array_equal(free_a, free_b)


def _cluster_and_job(rng, trial: int, roomy: bool) -> tuple[np.ndarray, AllocJob]:
    """Up to 39 crowded servers (with some room added when ``roomy``) and a job with random
    PS and worker demands."""
    free0 = _crowded(rng, int(rng.integers(1, 40)))
    if roomy:
        free0 = free0 + rng.integers(0, 3, size=free0.shape) * np.array([1.0, 4.0, 8.0])
    f = speed_function("async", (1.0, 2.0, 0.05, 0.1))
    pd_ = np.array([float(rng.integers(0, 2)), float(rng.integers(0, 3)), 1.0])
    wd = np.array([1.0, float(rng.integers(0, 4)), float(rng.integers(1, 6))])
    return free0, AllocJob(trial, 100.0, f, pd_, wd)


@pytest.mark.parametrize("extras", ["either", "aligned", "staggered"])
def test_shrink_screen_is_exact(extras) -> None:
    """``may_fit`` screens every layout ``find`` tries: for each count it is True exactly when an
    attempt (on the same free resources) places the job, on crowded and on roomy clusters."""
    rng = np.random.default_rng(11)
    hard = np.array([True, True, True])
    seen = [0, 0]
    for trial in range(60):
        free0, job = _cluster_and_job(rng, trial, roomy=trial % 3 == 0)
        ps = rng.integers(1, 40, size=50).tolist()
        ws = rng.integers(1, 60, size=50).tolist()
        placer = _OneJobPlacer(free0.copy(), 1, hard, extras)
        placer.attempt(job.job_id, 10**6, 10**6, job.ps_demand, job.worker_demand)  # fails: sets demands
        screen = placer.may_fit(ps, ws)
        for i, (p, w) in enumerate(zip(ps, ws, strict=True)):
            fresh = _OneJobPlacer(free0.copy(), 1, hard, extras)
            got = fresh.attempt(job.job_id, p, w, job.ps_demand, job.worker_demand)
            assert bool(screen[i]) == (got is not None), (trial, p, w)
            seen[got is not None] += 1
    assert min(seen) > 100  # both outcomes are exercised


@pytest.mark.parametrize("extras", ["either", "aligned", "all"])
def test_first_possible_skips_only_counts_that_cannot_fit(extras) -> None:
    """``first_possible`` on a shrink path: no count before the index it returns is placed by an
    attempt (nor passes ``may_fit``), and the count at the index passes the screen's monotone
    part, so the bisection found the first such count."""
    rng = np.random.default_rng(5)
    hard = np.array([True, True, True])
    skipped = 0
    for trial in range(50):
        free0, job = _cluster_and_job(rng, trial, roomy=trial % 4 == 0)
        p, w = int(rng.integers(1, 60)), int(rng.integers(1, 90))
        path = [(p, w)]
        while path[-1] != (1, 1):
            q, v = path[-1]
            path.append((q - 1, v) if v == 1 or (q > 1 and rng.random() < 0.4) else (q, v - 1))
        placer = _OneJobPlacer(free0.copy(), 1, hard, extras)
        placer.attempt(job.job_id, 10**6, 10**6, job.ps_demand, job.worker_demand)
        ps, ws = [c[0] for c in path], [c[1] for c in path]
        i0 = placer.first_possible(ps, ws)
        screen = placer.may_fit(ps, ws)
        assert not screen[:i0].any(), trial
        for q, v in path[:i0]:
            fresh = _OneJobPlacer(free0.copy(), 1, hard, extras)
            assert fresh.attempt(job.job_id, q, v, job.ps_demand, job.worker_demand) is None, (trial, q, v)
        # the same test (the same largest kmax: the path's first count) on two counts: the count
        # at i0 passes it, the one before fails it
        if i0 < len(path):
            assert placer.first_possible([ps[0], ps[i0]], [ws[0], ws[i0]]) == (1 if i0 else 0)
        if i0 > 0:
            assert placer.first_possible([ps[0], ps[i0 - 1]], [ws[0], ws[i0 - 1]]) == 2
        skipped += i0
    assert skipped > 200  # the bisection does skip counts
