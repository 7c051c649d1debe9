r"""Tetris (Grandl et al., SIGCOMM'14) as the Optimus paper uses it as a baseline (Sec. 6.1).

Optimus: "Tetris, which preferentially allocates resources to jobs with low duration or small
resource consumption and packs jobs to servers to minimize resource fragmentation. Since Tetris
does not have its own mechanism to estimate the remaining time of a deep learning job, we use our
speed function and convergence estimation to provide Tetris with such information. We set the
ratio of the number of parameter servers to the number of workers to 1:1". The allocation unit is
therefore a *bundle* of one PS and one worker, placed together on one server.

:func:`tetris_allocate` (one scheduling interval, all servers free or partly used):

* servers are visited in index order (Tetris schedules a machine when it reports free
  resources); on each server, bundles are handed out one at a time until no candidate fits;
* a job is a candidate for its ``k+1``-th bundle if the bundle fits the server (hard resources),
  ``k+1`` is within its caps (``min(max_ps, max_workers)`` and ``max_bundles``), its remaining
  work is positive and its estimated speed improves, :math:`f(k+1, k+1) > f(k, k)` (with
  :math:`f(0, 0) = 0`; beyond that point Optimus's estimates say more tasks do not help);
* the candidate with the largest score :math:`a_{js} + \varepsilon\,p_j` wins (ties: smaller
  job id), where

  - the *alignment* :math:`a_{js} = \sum_r \frac{d_{jr}}{C_{sr}}\frac{F_{sr}}{C_{sr}}` is the dot
    product of the bundle's demand and the server's free resources, both normalised by the
    server's capacity (Tetris Sec. 3.2; resources of capacity 0 are left out);
  - the *shortest-remaining-work* preference is :math:`p_j = W_{\min} / W_j \in (0, 1]` with
    :math:`W_j = \frac{Q_j}{f_j(k+1, k+1)}\,(k+1)\,\sum_r \frac{d_{jr}}{C_r}`: the job's estimated
    remaining time with one more bundle times the share of the cluster it would hold ("low
    duration or small resource consumption"); :math:`W_{\min}` is the smallest over the
    candidates;
  - :math:`\varepsilon = \text{srtf\_weight}\cdot\bar a / \bar p` (means over the candidates),
    the Tetris recipe that puts both terms on the same scale; ``srtf_weight = 0`` is pure
    packing.

The function returns placements (colocated bundles) that a policy can hand to the simulator.

``colocate=False`` (a reading of issue 22: the paper fixes only "the ratio of the number of
parameter servers to the number of workers to 1:1", Sec. 6.1, not that a bundle's two tasks share a
server): on server :math:`s` a bundle's *worker* must fit; its PS goes on :math:`s` too if it
fits there after the worker, otherwise on the other server with the largest alignment for the PS
alone (same formula; ties: lower index) that fits it. The alignment of the candidate on
:math:`s` is that of the tasks it puts on :math:`s`. With the default ``colocate=True`` both
tasks go on :math:`s` (the historical schedules, unchanged).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dlsched.core import numerics
from dlsched.core.schedule import Placement
from dlsched.optimus.allocation import AllocJob

_EPS = 1e-9


@dataclass(frozen=True)
class TetrisResult:
    """Outcome of :func:`tetris_allocate`.

    Attributes
    ----------
    placements : dict[int, Placement]
        Placement of every job that received at least one bundle.
    bundles : dict[int, int]
        Number of bundles (= PS = workers) per job with at least one.
    free : numpy.ndarray
        Free resources per server afterwards.
    trace : tuple[tuple[int, int, float], ...]
        ``(job_id, server, score)`` per bundle, in the order handed out.
    """

    placements: dict[int, Placement]
    bundles: dict[int, int]
    free: np.ndarray
    trace: tuple[tuple[int, int, float], ...]


def _speed(job: AllocJob, k: int) -> float:
    if k == 0:
        return 0.0
    f = float(job.speed(k, k))
    if f != f:
        raise ValueError(f"job {job.job_id}: speed({k}, {k}) returned NaN")
    return f


def tetris_allocate(
    jobs: Sequence[AllocJob],
    free: np.ndarray,
    capacity: np.ndarray | None = None,
    *,
    srtf_weight: float = 1.0,
    max_bundles: int | None = None,
    servers: Sequence[int] | None = None,
    hard: Sequence[bool] | None = None,
    colocate: bool = True,
) -> TetrisResult:
    """Tetris packing of 1 PS + 1 worker bundles with a shortest-remaining-work preference.

    Parameters
    ----------
    jobs : Sequence[AllocJob]
        Jobs with Optimus's estimates: ``remaining`` (:math:`Q_j`), ``speed`` (:math:`f_j`),
        demands, optional caps. Ids unique.
    free : array_like
        Free resources per server, shape (n_servers, n_resources). Not modified.
    capacity : array_like, optional
        Capacity per server (same shape) for the normalisation; default ``free``.
    srtf_weight : float, default 1
        Weight of the remaining-work term relative to the alignment (>= 0).
    max_bundles : int, optional
        Cap on bundles per job.
    servers : Sequence[int], optional
        Servers that may host bundles (default all), visited in increasing index order.
    hard : Sequence[bool], optional
        Capped resources (default all).
    colocate : bool, default True
        A bundle's PS and worker on one server (default), or the PS possibly on another server
        (module docstring; issue 22's reading of Sec. 6.1).

    Returns
    -------
    TetrisResult

    Raises
    ------
    ValueError
        Bad shapes or values, duplicate ids, negative ``srtf_weight``, a non-bool ``colocate``,
        a speed returning NaN.
    """
    fr = np.array(free, dtype=float)
    if fr.ndim != 2 or fr.size == 0 or not np.all(np.isfinite(fr)):
        raise ValueError(f"free must be a finite array (n_servers, n_resources), got shape {np.shape(free)}")
    n_srv, n_res = fr.shape
    cap = fr.copy() if capacity is None else np.array(capacity, dtype=float)
    if cap.shape != fr.shape or not np.all(np.isfinite(cap)) or np.any(cap < 0):
        raise ValueError(f"capacity must be finite, >= 0 and of shape {fr.shape}, got {np.shape(capacity)}")
    try:
        srtf_weight = float(srtf_weight)
    except (TypeError, ValueError):
        raise ValueError(f"srtf_weight must be a number >= 0, got {srtf_weight!r}") from None
    if not (math.isfinite(srtf_weight) and srtf_weight >= 0):
        raise ValueError(f"srtf_weight must be finite and >= 0, got {srtf_weight!r}")
    if max_bundles is not None and (
        isinstance(max_bundles, bool) or not isinstance(max_bundles, (int, np.integer)) or max_bundles < 1
    ):
        raise ValueError(f"max_bundles must be an integer >= 1 or None, got {max_bundles!r}")
    if not isinstance(colocate, (bool, np.bool_)):
        raise ValueError(f"colocate must be a bool, got {colocate!r}")
    hard_mask = np.ones(n_res, bool) if hard is None else np.asarray(hard, dtype=bool).reshape(-1)
    if hard_mask.size != n_res:
        raise ValueError(f"hard has {hard_mask.size} entries for {n_res} resources")
    order = range(n_srv) if servers is None else sorted({int(s) for s in servers})
    if order and (min(order) < 0 or max(order) >= n_srv):
        raise ValueError(f"servers must be indices in [0, {n_srv}), got {list(servers or [])}")
    seen: set[int] = set()
    for job in jobs:
        if not isinstance(job, AllocJob):
            raise TypeError(f"jobs must hold AllocJob objects, got {type(job).__name__}")
        if job.job_id in seen:
            raise ValueError(f"jobs: duplicate job_id {job.job_id}")
        seen.add(job.job_id)
        if job.worker_demand.size != n_res:
            raise ValueError(
                f"job {job.job_id}: demands have {job.worker_demand.size} entries, free has {n_res}"
            )

    n = len(jobs)
    if n == 0:
        fr.setflags(write=False)
        return TetrisResult({}, {}, fr, ())
    ids = np.array([j.job_id for j in jobs])
    bundle = np.stack([j.worker_demand + j.ps_demand for j in jobs])  # (n, R)
    wdem = np.stack([j.worker_demand for j in jobs])
    pdem = np.stack([j.ps_demand for j in jobs])
    total = cap[list(order)].sum(axis=0) if len(order) else cap.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        size = np.where(total > 0, bundle / np.where(total > 0, total, 1.0), 0.0).sum(axis=1)
    limit = np.full(n, np.inf)
    for i, job in enumerate(jobs):
        caps = [c for c in (job.max_ps, job.max_workers, max_bundles) if c is not None]
        if caps:
            limit[i] = min(caps)
    k = np.zeros(n, dtype=int)
    f_now = np.zeros(n)
    f_next = np.array([_speed(job, 1) for job in jobs])
    remaining = np.array([job.remaining for job in jobs])
    where: list[dict[int, int]] = [{} for _ in range(n)]
    where_ps: list[dict[int, int]] = [{} for _ in range(n)]
    trace: list[tuple[int, int, float]] = []
    pos_all = cap > 0
    inv_all = np.where(pos_all, 1.0 / np.where(pos_all, cap, 1.0), 0.0)
    order_list = list(order)
    # whether a job may get another bundle: within its caps, work left, and its speed improves,
    # f(k+1, k+1) > f(k, k), by more than the numerics tolerance. Only the job that gets a bundle
    # changes, so only its entry is recomputed then (numerics.greater of its two floats: the same
    # test as on the arrays).
    grow = (k + 1 <= limit) & (remaining > 0) & numerics.greater(f_next, f_now)
    for s in order:
        c = cap[s]
        pos = c > 0
        inv = np.where(pos, 1.0 / np.where(pos, c, 1.0), 0.0)
        while True:
            fits = np.all((bundle[:, hard_mask] <= fr[s, hard_mask] + _EPS), axis=1)
            ps_at = np.full(n, s)
            if not colocate:  # the worker must fit on s; the PS on s, else on the best other server
                w_fits = np.all((wdem[:, hard_mask] <= fr[s, hard_mask] + _EPS), axis=1)
                for i in np.flatnonzero(w_fits & ~fits):
                    after = fr.copy()
                    after[s] -= wdem[i]
                    ok = [
                        t for t in order_list
                        if t != s and np.all(pdem[i, hard_mask] <= after[t, hard_mask] + _EPS)
                    ]  # fmt: skip
                    if ok:
                        al = numerics.dot(pdem[i] * inv_all[ok], after[ok] * inv_all[ok])
                        # largest alignment with numerics tolerance; ties -> lower server index
                        ps_at[i] = ok[numerics.argmax(al, keys=np.asarray(ok))]
                        fits[i] = True
            cand = np.flatnonzero(fits & grow)
            if cand.size == 0:
                break
            on_s = np.where((ps_at[cand] == s)[:, None], bundle[cand], wdem[cand])
            align = numerics.dot(on_s * inv, fr[s] * inv)
            with np.errstate(divide="ignore"):
                work = remaining[cand] / f_next[cand] * (k[cand] + 1) * size[cand]
            pref = np.where(work > 0, work.min() / np.where(work > 0, work, 1.0), 1.0)
            mean_p = float(pref.mean())
            scale = srtf_weight * float(align.mean()) / mean_p if mean_p > 0 else 0.0
            score = align + scale * pref
            # largest score with numerics tolerance (numerics.argmax); ties -> smaller job id
            i = int(cand[numerics.argmax(score, keys=ids[cand])])
            t = int(ps_at[i])
            if t == s:
                fr[s] -= bundle[i]
            else:
                fr[s] -= wdem[i]
                fr[t] -= pdem[i]
            k[i] += 1
            where[i][s] = where[i].get(s, 0) + 1
            where_ps[i][t] = where_ps[i].get(t, 0) + 1
            f_now[i] = f_next[i]
            f_next[i] = _speed(jobs[i], int(k[i]) + 1) if k[i] + 1 <= limit[i] else 0.0
            grow[i] = (
                k[i] + 1 <= limit[i]
                and remaining[i] > 0
                and numerics.greater(float(f_next[i]), float(f_now[i]))
            )
            trace.append((int(ids[i]), int(s), float(score.max())))
    placements = {int(ids[i]): Placement.of(where[i], where_ps[i]) for i in range(n) if k[i] > 0}
    bundles = {int(ids[i]): int(k[i]) for i in range(n) if k[i] > 0}
    fr.setflags(write=False)
    return TetrisResult(placements, bundles, fr, tuple(trace))
