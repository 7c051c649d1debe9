"""The fast paths of the Optimus scheduler against plain reference code (bit-identical results).

* :class:`dlsched.optimus.placement._Servers` (per-run feasibility test, prefix kept across
  retries) against the server-by-server loop it replaced (:func:`_reference_place`);
* :func:`dlsched.optimus.policy.shrink_and_place` (one :class:`_OneJobPlacer`) against
  :func:`shrink` calling :func:`place` per attempt;
* :class:`dlsched.optimus.fitting._SpeedSamples` (incremental validation) against
  :func:`fit_speed` on the whole sample list.
"""

from __future__ import annotations

import bisect

import numpy as np
import pytest

from dlsched.core import numerics
from dlsched.core.schedule import Placement
from dlsched.optimus import placement as pl
from dlsched.optimus.fitting import _SpeedSamples, fit_speed
from dlsched.optimus.placement import PlaceJob, place
from dlsched.optimus.policy import shrink, shrink_and_place

_EPS = pl._EPS


def _reference_place(jobs, free, sort_by=0, hard=None, extras="either"):
    """The placement loop as it was: every k, every layout, every server checked in Python."""
    fr_arr, sort_by, elig, hr = pl._check_cluster(free, sort_by, None, hard, extras)
    n_srv, n_res = fr_arr.shape
    offsets_of = {"aligned": (False,), "staggered": (True,), "either": (False, True), "all": (False, True)}[
        extras
    ]
    ids = [j.job_id for j in jobs]
    ps = [j.ps for j in jobs]
    ws = [j.workers for j in jobs]
    pdm = np.stack([j.ps_demand for j in jobs])
    wdm = np.stack([j.worker_demand for j in jobs])
    total0 = fr_arr[elig].sum(axis=0)
    counts = np.column_stack([np.asarray(ps, dtype=float), np.asarray(ws, dtype=float)])
    dem = counts[:, :1] * pdm + counts[:, 1:] * wdm
    pos = total0 > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(pos, dem / np.where(pos, total0, 1.0), np.where(dem > 0, np.inf, 0.0))
    perm = numerics.order(share.max(axis=1), np.asarray(ids)).tolist()
    pd_rows, wd_rows, dem_rows = pdm.tolist(), wdm.tolist(), dem.tolist()
    fr = fr_arr.tolist()
    total = [float(total0[r]) for r in range(n_res)]
    elig_arr = np.array(elig, dtype=int)
    keys = fr_arr[elig_arr, sort_by]
    srt = np.lexsort((elig_arr, -keys))
    order = list(zip((-keys[srt]).tolist(), elig_arr[srt].tolist(), strict=True))
    placements, unplaced = {}, []
    for n_job in perm:
        job_id, p, w = ids[n_job], ps[n_job], ws[n_job]
        pdl, wdl, need_total = pd_rows[n_job], wd_rows[n_job], dem_rows[n_job]
        if any(need_total[r] > total[r] + _EPS for r in hr):
            unplaced.append(job_id)
            continue
        kmax = min(max(p, w) if extras == "aligned" else p + w, len(order))
        run = [0.0] * n_res
        chosen = None
        pref: list = []
        at = 0
        for k in range(1, kmax + 1):
            while len(pref) < k:
                at = pl._extend_prefix(order, pref, at)
            f_new = fr[pref[k - 1][1]]
            short = False
            for r in hr:
                run[r] += f_new[r]
                if run[r] < need_total[r] - _EPS:
                    short = True
            if short:
                continue
            qp, rp = divmod(p, k)
            qw, rw = divmod(w, k)
            for stag in offsets_of:
                off = rp if stag else 0
                if not stag and k > p and k > w:
                    continue
                if stag and (rp == 0 or rw == 0) and len(offsets_of) == 2 and k <= max(p, w):
                    break
                ok = all(
                    (qp + (i < rp)) * pdl[r] + (qw + ((i - off) % k < rw)) * wdl[r]
                    <= fr[pref[i][1]][r] + _EPS
                    for i in range(k)
                    for r in hr
                )
                if ok:
                    chosen = (
                        k,
                        [qp + (1 if i < rp else 0) for i in range(k)],
                        [qw + (1 if (i - off) % k < rw else 0) for i in range(k)],
                    )
                    break
            if chosen is None and extras == "all" and (rp or rw):
                got = pl._any_even_split([fr[e[1]] for e in pref[:k]], qp, rp, qw, rw, pdl, wdl, hr)
                if got is not None:
                    chosen = (k, *got)
            if chosen is not None:
                break
        if chosen is None:
            unplaced.append(job_id)
            continue
        k, ps_k, w_k = chosen
        used = pref[:k]
        for e in used:
            del order[bisect.bisect_left(order, e)]
        ps_at, w_at = {}, {}
        for i, (_, s) in enumerate(used):
            for r in range(n_res):
                d = ps_k[i] * pdl[r] + w_k[i] * wdl[r]
                fr[s][r] -= d
                total[r] -= d
            if ps_k[i]:
                ps_at[s] = ps_k[i]
            if w_k[i]:
                w_at[s] = w_k[i]
            bisect.insort(order, (-fr[s][sort_by], s))
        placements[job_id] = Placement.of(w_at, ps_at)
    return placements, tuple(unplaced), np.array(fr, dtype=float).reshape(n_srv, n_res)


def _instance(rng):
    n_srv = int(rng.integers(1, 25))
    n_res = int(rng.integers(1, 4))
    kind = int(rng.integers(0, 4))
    if kind == 3:  # rounding left some free amounts slightly below 0
        free = rng.choice([-1e-12, 0.0, 1.0, 2.0, 3.0 - 1e-13], (n_srv, n_res))
    elif kind == 0:
        free = rng.integers(0, 6, (n_srv, n_res)).astype(float)
    elif kind == 1:  # near-ties within the numerics tolerance
        free = rng.choice([0.0, 1.0, 1.0 + 1e-10, 2.0, 2.0 - 1e-12, 3.5], (n_srv, n_res))
    else:
        free = rng.random((n_srv, n_res)) * 5
    jobs = []
    for j in range(int(rng.integers(1, 6))):
        p, w = int(rng.integers(0, 8)), int(rng.integers(0, 12))
        jobs.append(
            PlaceJob(
                j,
                p,
                w if p + w else 1,
                rng.choice([0.0, 0.5, 1.0, 1.5, 2.0], n_res),
                rng.choice([0.0, 0.5, 1.0, 2.0], n_res),
            )
        )
    return free, jobs, rng.random(n_res) < 0.8


@pytest.mark.parametrize("extras", pl.EXTRAS)
def test_place_matches_reference(extras) -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        free, jobs, hard = _instance(rng)
        res = place(jobs, free, hard=hard, extras=extras)
        ref = _reference_place(jobs, free, hard=hard, extras=extras)
        assert dict(res.placements) == ref[0]
        assert res.unplaced == ref[1]
        assert np.array_equal(res.free, ref[2])


class _Job:
    def __init__(self, job: PlaceJob) -> None:
        self.job_id = job.job_id
        self.ps_demand = job.ps_demand
        self.worker_demand = job.worker_demand

    @staticmethod
    def speed(p: int, w: int) -> float:
        return w / (1.0 + w / p + 0.1 * w)


@pytest.mark.parametrize("extras", pl.EXTRAS)
def test_shrink_and_place_matches_place_per_attempt(extras) -> None:
    rng = np.random.default_rng(11)
    placed = 0
    for _ in range(300):
        free, jobs, hard = _instance(rng)
        job = _Job(jobs[0])
        counts = (max(jobs[0].ps, 1), max(jobs[0].workers, 1))
        f_ref, f_new = free.copy(), free.copy()

        def attempt(p, w, _j=job, _f=f_ref, _h=hard):
            res = place(
                [PlaceJob(_j.job_id, p, w, _j.ps_demand, _j.worker_demand)], _f, hard=_h, extras=extras
            )
            if not res.placements:
                return None
            _f[:] = res.free
            return res.placements[_j.job_id]

        want = shrink(job, counts, attempt)
        got = shrink_and_place(job, counts, f_new, sort_by=0, hard=hard, extras=extras)
        assert got == want
        assert np.array_equal(f_new, f_ref)
        placed += got is not None
    assert placed > 50


def test_speed_samples_match_fit_speed() -> None:
    rng = np.random.default_rng(3)
    for mode, M in (("async", None), ("sync", 256.0)):
        samples = [
            (int(p), int(w), float(rng.uniform(0.5, 5))) for p, w in ((1, 1), (1, 2), (2, 2), (2, 4), (3, 1))
        ]
        fitter = _SpeedSamples()
        for _ in range(30):
            fit = fit_speed(samples, mode, M)
            assert fitter.fit(samples, mode, M) == (fit.mode, fit.theta, fit.M)
            samples.append((int(rng.integers(1, 6)), int(rng.integers(1, 9)), float(rng.uniform(0.5, 5))))


def test_speed_samples_errors_are_fit_speeds() -> None:
    few = [(1, 1, 1.0), (1, 2, 1.5), (2, 2, 2.0), (1, 1, 1.1)]
    with pytest.raises(ValueError, match="distinct"):
        _SpeedSamples().fit(few, "async")
    bad = [*few, (2, 3, 2.0), (0, 1, 1.0)]
    fitter = _SpeedSamples()
    with pytest.raises(ValueError, match="sample 5"):
        fitter.fit(bad, "async")
    with pytest.raises(ValueError, match="sample 5"):
        fitter.fit(bad, "async")  # still through fit_speed


def test_policy_speed_samples_rows_are_speed_features() -> None:
    """The policy's samples build a few new NNLS rows without numpy: the same floats as
    ``speed_features`` and the targets, the same fits as ``fit_speed``, the same errors."""
    from dlsched.optimus.fitting import speed_features
    from dlsched.optimus.policy import _PolicySpeedSamples

    rng = np.random.default_rng(4)
    for mode, M in (("async", None), ("sync", 256), ("sync", 100.5)):
        fitter = _PolicySpeedSamples()
        fitter.p = rng.integers(1, 9, size=12).astype(float).tolist()
        fitter.w = rng.integers(1, 17, size=12).astype(float).tolist()
        fitter.f = rng.uniform(0.1, 7.0, size=12).tolist()
        for start in (0, 4, 11):  # 12, 8 (numpy) and 1 new rows
            X, y = fitter._rows(start, mode, M)
            p, w, f = (np.array(c[start:]) for c in (fitter.p, fitter.w, fitter.f))
            assert np.array_equal(X, speed_features(p, w, mode, M))
            assert np.array_equal(y, w / f if mode == "async" else 1.0 / f)
        pairs = ((1, 1), (1, 2), (2, 2), (2, 4), (3, 1))
        samples = [(p, w, float(rng.uniform(0.5, 5))) for p, w in pairs]
        fitter = _PolicySpeedSamples()
        for _ in range(20):
            fit = fit_speed(samples, mode, M)
            assert fitter.fit(samples, mode, M) == (fit.mode, fit.theta, fit.M)
            samples.append((int(rng.integers(1, 6)), int(rng.integers(1, 9)), float(rng.uniform(0.5, 5))))
    with pytest.raises(ValueError, match="M"):
        _PolicySpeedSamples().fit([(1, 1, 1.0), (1, 2, 1.5), (2, 2, 2.0), (2, 4, 3.0), (3, 1, 1.0)], "sync")
