r"""Optimus resource allocation by marginal gain (Sec. 4.1, Eqs. (5)-(9); spec section 4).

Every scheduling interval Optimus decides how many parameter servers (PS) ``p_j`` and workers
``w_j`` each active job gets, to reduce :math:`\sum_j t_j` with :math:`t_j = Q_j / f_j(p_j, w_j)`
(Eqs. (5)-(6)) under the cluster-wide capacity (7). The heuristic:

1. give every job 1 PS and 1 worker (in the order the jobs are given, e.g. arrival order); a job
   for which even that does not fit in the capacity left gets nothing this interval (it is absent
   from the result);
2. repeatedly pick, from a max-heap, the job with the largest priority-weighted marginal gain
   (9) and give it one PS or one worker, whichever of the two terms of (9) is larger (ties go to
   the PS, ties between jobs to the smaller job id; gains within the tolerance of
   :mod:`dlsched.core.numerics`, ``REL_TOL`` of the larger magnitude + ``ABS_TOL``, are ties), then
   recompute that job's gain;
3. stop when the largest gain is non-positive, or (``stop_rule="literal"``, the paper's "until
   some resource in the cluster is used up") when the chosen task does not fit. With
   ``stop_rule="skip"`` a job whose chosen task does not fit is dropped from the heap and the others
   continue (the dropped job does not fall back to its other role: that would give a task of
   smaller gain while the rule is "largest gain first").

Marginal gain (9) per job and role: the reduction of the estimated remaining time,
:math:`Q_j/f(p,w) - Q_j/f(p+1,w)` for a PS and :math:`Q_j/f(p,w) - Q_j/f(p,w+1)` for a worker,
divided by the task's *dominant resource*. The dominant resource of a PS (worker) is
:math:`D = \arg\max_r N_j^r / C_r` (:math:`\arg\max_r O_j^r/C_r`), the DRF definition quoted by the
paper. Two normalisations (spec [T]/[N]):

* ``gain_unit="share"`` (default): divide by the dominant *share* :math:`N_j^D/C_D`. Unit-free:
  changing the unit of one resource (cores vs millicores, GB vs MB) does not change any decision.
  When all tasks have the same dominant resource it orders jobs exactly like ``"amount"``.
* ``gain_unit="amount"``: divide by the raw amount :math:`N_j^D` (the paper's words "amount of
  dominant resource"; the public re-implementation divides by the number of CPUs).

The priority factor :math:`\pi_j` (default 1; the paper suggests 0.95 for jobs in their initial
phase) multiplies the gain.

Speed. ``f`` is any callable ``f(p, w) -> steps per unit time``. In the policy it comes from the
fitted speed model; build it with :func:`speed_function` (a plain closure of Eq. (3)/(4), about
0.2 microseconds per call) rather than passing a numpy-based ``predict`` (tens of microseconds
per scalar call; the allocator calls ``f`` about twice per task). A speed <= 0 means an infinite
remaining time; a step from infinite to finite time has infinite gain, a step between two
infinite times has gain 0. ``f`` returning NaN raises :class:`ValueError`. A task that needs a
resource of cluster capacity 0 is never added.

Cost. ``method="heap"`` is the loop above: one heap operation and two calls of ``f`` per task
given, plus :math:`O(R)` capacity bookkeeping in plain Python floats. ``method="bands"`` (the
default for the literal stop rule) computes the identical result without a heap (see
:func:`_allocate_bands`), about 1.5 times faster. Neither does per-task work proportional to the
number of jobs: the Fig. 12 instance (4,000 jobs, about 100,000 tasks) takes about 0.2 s.

:func:`check_allocation` and :func:`check_allocation_gap` turn the spec's checkable properties
(spec section 8, item 3) into :class:`~dlsched.core.claims.Claim` objects.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dlsched.core import numerics
from dlsched.core.claims import Claim
from dlsched.core.cluster import _finite_nonneg

STOP_RULES = ("literal", "skip")
"""Valid values of ``stop_rule``."""

GAIN_UNITS = ("share", "amount")
"""Valid values of ``gain_unit``."""

METHODS = ("auto", "heap", "bands")
"""Valid values of ``method``."""

_EPS = 1e-9  # capacity slack of the fit test (7): absorbs rounding of sums of integer-valued demands

_REL = numerics.REL_TOL
_ABS = numerics.ABS_TOL

_BAND = 2.0  # ratio between consecutive band thresholds of _allocate_bands

_SMALL_BAND = 64  # bands of at most this many tasks are ordered in plain Python (_band_grants)

SpeedFn = Callable[[int, int], float]
"""``f(p, w)``: training speed (steps per unit time) with ``p`` PS and ``w`` workers."""


def _vector(x, what: str, n: int | None = None) -> np.ndarray:
    try:
        v = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a vector of numbers, got {x!r}") from None
    if v.size == 0:
        raise ValueError(f"{what} must not be empty")
    if n is not None and v.size != n:
        raise ValueError(f"{what} has {v.size} entries, expected {n} (one per resource)")
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError(f"{what} must be finite and >= 0, got {v.tolist()}")
    return v


def _cap(x, what: str) -> int | None:
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
        raise ValueError(f"{what} must be an integer >= 1 or None, got {x!r}")
    return int(x)


def speed_function(mode: str, theta: Sequence[float], M: float | None = None) -> SpeedFn:
    r"""Eq. (3) (async) or Eq. (4) (sync) as a plain-Python closure ``f(p, w)``.

    The allocator calls ``f`` about twice per task it hands out (some 200,000 times for the
    Fig. 12 instance), so ``f`` should be cheap: build it with this function from fitted
    coefficients (e.g. ``speed_function(fit.mode, fit.theta, fit.M)`` for a ``SpeedFit``)
    rather than passing a numpy-based ``predict`` (tens of microseconds per scalar call).

    Parameters
    ----------
    mode : {"async", "sync"}
    theta : Sequence[float]
        :math:`\theta_0..\theta_3` (async) or :math:`\theta_0..\theta_4` (sync), >= 0.
    M : float, optional
        Global batch size (sync only, > 0).

    Returns
    -------
    Callable[[int, int], float]
        async :math:`w/(\theta_0+\theta_1 w/p+\theta_2 w+\theta_3 p)`, sync
        :math:`1/(\theta_0 M/w+\theta_1+\theta_2 w/p+\theta_3 w+\theta_4 p)`; ``inf`` where the
        denominator is 0.

    Raises
    ------
    ValueError
        Unknown mode, wrong number of coefficients, negative or non-finite values, missing ``M``.
    """
    if mode not in ("async", "sync"):
        raise ValueError(f"mode must be 'async' or 'sync', got {mode!r}")
    need = 4 if mode == "async" else 5
    if (
        type(theta) is tuple
        and len(theta) == need
        and all(isinstance(x, float) and 0.0 <= x < math.inf for x in theta)
    ):  # a fit's coefficients (floats >= 0): what _vector would return, without numpy
        coef = [float(x) for x in theta]
    else:
        th = _vector(theta, "theta")
        if th.size != need:
            raise ValueError(f"theta needs {need} coefficients in {mode} mode, got {th.size}")
        coef = th.tolist()
    inf = math.inf
    if mode == "async":
        a, b, c, d = coef

        def f_async(p: int, w: int) -> float:
            den = a + b * w / p + c * w + d * p
            return w / den if den > 0 else inf

        return f_async
    try:
        m = float(M)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"M (global batch size) must be a number > 0 in sync mode, got {M!r}") from None
    if not (math.isfinite(m) and m > 0):
        raise ValueError(f"M must be finite and > 0, got {M!r}")
    a, b, c, d, e = coef
    am = a * m

    def f_sync(p: int, w: int) -> float:
        den = am / w + b + c * w / p + d * w + e * p
        return 1.0 / den if den > 0 else inf

    return f_sync


def _estimates(job_id: int, remaining, speed) -> float:
    """A job's ``remaining`` as a float, checked (finite, >= 0) with ``speed`` (callable)."""
    q = _finite_nonneg(remaining, f"job {job_id}: remaining")
    if not callable(speed):
        raise TypeError(f"job {job_id}: speed must be a callable f(p, w), got {type(speed).__name__}")
    return q


@dataclass(frozen=True)
class AllocJob:
    """One active job as the allocator sees it.

    Parameters
    ----------
    job_id : int
        Unique id; ties in the heap are broken by it (smaller first).
    remaining : float
        Estimated remaining work :math:`Q_j` (steps or epochs, in the unit of ``speed``), >= 0.
    speed : Callable[[int, int], float]
        :math:`f_j(p, w)`, estimated training speed with ``p`` PS and ``w`` workers.
    worker_demand, ps_demand : array_like
        Resources of one worker (:math:`O_j`) / one PS (:math:`N_j`), one entry per resource,
        each with at least one positive entry.
    max_ps, max_workers : int, optional
        Caps on the job's PS / worker count (implementation choice; default unbounded).
    """

    job_id: int
    remaining: float
    speed: SpeedFn
    worker_demand: np.ndarray
    ps_demand: np.ndarray
    max_ps: int | None = None
    max_workers: int | None = None
    _lists: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.job_id, bool) or not isinstance(self.job_id, (int, np.integer)):
            raise ValueError(f"AllocJob.job_id must be an integer, got {self.job_id!r}")
        object.__setattr__(self, "job_id", int(self.job_id))
        j = self.job_id
        object.__setattr__(self, "remaining", _estimates(j, self.remaining, self.speed))
        wd = _vector(self.worker_demand, f"job {j}: worker_demand")
        pd_ = _vector(self.ps_demand, f"job {j}: ps_demand", wd.size)
        for name, v in (("worker_demand", wd), ("ps_demand", pd_)):
            if not np.any(v > 0):
                raise ValueError(f"job {j}: {name} must ask for some resource, got {v.tolist()}")
            v.setflags(write=False)
        object.__setattr__(self, "worker_demand", wd)
        object.__setattr__(self, "ps_demand", pd_)
        object.__setattr__(self, "max_ps", _cap(self.max_ps, f"job {j}: max_ps"))
        object.__setattr__(self, "max_workers", _cap(self.max_workers, f"job {j}: max_workers"))
        object.__setattr__(self, "_lists", (tuple(wd.tolist()), tuple(pd_.tolist())))

    def with_estimates(self, remaining: float, speed: SpeedFn) -> AllocJob:
        """This job with another ``remaining`` and ``speed``, checked as the constructor checks
        them; the demands and caps (validated when this one was built) are shared, not
        re-validated: the same object as ``AllocJob(job_id, remaining, speed, worker_demand,
        ps_demand, max_ps, max_workers)``, without a second check of the demand vectors every
        interval (a twentieth of Optimus's time on the whole Philly trace)."""
        q = _estimates(self.job_id, remaining, speed)
        new = object.__new__(AllocJob)
        new.__dict__.update(self.__dict__)
        new.__dict__["remaining"] = q
        new.__dict__["speed"] = speed
        return new

    def time(self, p: int, w: int) -> float:
        """Estimated remaining time :math:`Q_j / f_j(p, w)` (``inf`` if the speed is <= 0)."""
        return _time(self.remaining, self.speed(p, w), self.job_id, p, w)


def _time(q: float, f: float, job_id: int, p: int, w: int) -> float:
    f = float(f)
    if f != f:
        raise ValueError(f"job {job_id}: speed({p}, {w}) returned NaN")
    if q == 0.0:
        return 0.0
    if f <= 0.0:
        return math.inf
    return q / f


def _tol(x: float) -> float:
    """``numerics.tolerance(x, x)`` for one Python float (``ABS_TOL`` for an infinite ``x``)."""
    a = abs(x)
    return _REL * a + _ABS if a < math.inf else _ABS


def _ps_close(g_ps: float, g_w: float) -> bool:
    """For ``g_ps < g_w``: whether the two gains are equal within the tolerance (Eq. (9) argmax,
    ties -> PS), i.e. ``numerics.is_close(g_ps, g_w)``; an infinite gain ties only with itself."""
    if g_w == math.inf or g_ps == -math.inf:
        return False
    return g_w - g_ps <= _REL * max(abs(g_ps), abs(g_w)) + _ABS


def _gain(t_now: float, t_new: float) -> float:
    if t_now == math.inf:
        return 0.0 if t_new == math.inf else math.inf
    return t_now - t_new


def _check_capacity(capacity, resources) -> tuple[np.ndarray, tuple[str, ...]]:
    cap = _vector(capacity, "capacity")
    if resources is None:
        names = tuple(f"r{i}" for i in range(cap.size))
    else:
        names = tuple(str(r) for r in resources)
        if len(names) != cap.size:
            raise ValueError(f"resources has {len(names)} names for {cap.size} capacity entries")
    return cap, names


def _dominant_divisors(demand: np.ndarray, cap: np.ndarray, gain_unit: str) -> np.ndarray:
    """Amount (or share) of each task's dominant resource, for demand rows of shape (n, R).

    ``+inf`` for a task that needs a resource of capacity 0 (it can never be added).
    """
    demand = np.atleast_2d(demand)
    pos = cap > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(pos, demand / np.where(pos, cap, 1.0), np.where(demand > 0, np.inf, 0.0))
    # D = argmax_r share_r with numerics tolerance; ties -> smallest resource index (matters for
    # gain_unit="amount", where tied shares can have different amounts)
    best = share.max(axis=1)
    d = np.argmax(share >= (best - numerics.tolerance(best, best))[:, None], axis=1)
    rows = np.arange(demand.shape[0])
    dom = share[rows, d]
    out = dom if gain_unit == "share" else demand[rows, d]
    return np.where(np.isfinite(dom), out, np.inf)


def _dominant_divisor(demand: np.ndarray, cap: np.ndarray, gain_unit: str) -> float:
    """:func:`_dominant_divisors` for one task."""
    return float(_dominant_divisors(demand, cap, gain_unit)[0])


def allocate(
    jobs: Sequence[AllocJob],
    capacity: np.ndarray,
    resources: Sequence[str] | None = None,
    *,
    priority: Mapping[int, float] | None = None,
    stop_rule: str = "literal",
    gain_unit: str = "share",
    trace: list | None = None,
    method: str = "auto",
) -> dict[int, tuple[int, int]]:
    """Marginal-gain allocation of PS and workers (Optimus Sec. 4.1).

    Parameters
    ----------
    jobs : Sequence[AllocJob]
        Active jobs, in the order in which they receive their initial 1 PS + 1 worker (e.g.
        arrival order). Job ids must be unique.
    capacity : array_like
        Cluster-wide capacity :math:`C_r` per resource (Eq. (7)).
    resources : Sequence[str], optional
        Resource names (informational; their number must match ``capacity``).
    priority : Mapping[int, float], optional
        Priority factor :math:`\\pi_j > 0` per job id (default 1) multiplying the gain.
    stop_rule : {"literal", "skip"}
        What to do when the chosen task does not fit: stop (the paper) or drop that job and go on.
    gain_unit : {"share", "amount"}
        Divide the gain by the dominant share (unit-free) or by the raw dominant amount.
    trace : list, optional
        If given, one tuple ``(job_id, role, gain)`` is appended per task added after the initial
        ones (``role`` is ``"ps"`` or ``"worker"``, ``gain`` the priority-weighted gain).
    method : {"auto", "heap", "bands"}
        ``"heap"``: the heap loop of the paper. ``"bands"`` (literal stop rule only): the same
        result computed band by band (see :func:`_allocate_bands`), about 1.5 times faster.
        ``"auto"``: bands for the literal rule, heap for ``"skip"``.

    Returns
    -------
    dict[int, tuple[int, int]]
        ``job_id -> (ps, workers)`` for every job that received resources (both >= 1).

    Raises
    ------
    ValueError
        Bad capacity, duplicate job ids, demands of the wrong length, bad priority factor, unknown
        ``stop_rule``/``gain_unit``, or a speed function returning NaN.
    TypeError
        A job that is not an :class:`AllocJob`.
    """
    if stop_rule not in STOP_RULES:
        raise ValueError(f"stop_rule must be one of {STOP_RULES}, got {stop_rule!r}")
    if gain_unit not in GAIN_UNITS:
        raise ValueError(f"gain_unit must be one of {GAIN_UNITS}, got {gain_unit!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if method == "bands" and stop_rule != "literal":
        raise ValueError(f"method='bands' needs stop_rule='literal', got {stop_rule!r}")
    cap, _ = _check_capacity(capacity, resources)
    n_res = cap.size
    seen: set[int] = set()
    for job in jobs:
        if not isinstance(job, AllocJob):
            raise TypeError(f"jobs must hold AllocJob objects, got {type(job).__name__}")
        if job.job_id in seen:
            raise ValueError(f"jobs: duplicate job_id {job.job_id}")
        seen.add(job.job_id)
        if job.worker_demand.size != n_res:
            raise ValueError(
                f"job {job.job_id}: demands have {job.worker_demand.size} entries, capacity has {n_res}"
            )
    prio = {}
    for j, v in (priority or {}).items():
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"priority[{j!r}] must be a number > 0, got {v!r}") from None
        if not math.isfinite(x) or x <= 0:
            raise ValueError(f"priority[{j!r}] must be finite and > 0, got {v!r}")
        prio[int(j)] = x

    cap_eps = [c + _EPS for c in cap.tolist()]
    used = [0.0] * n_res
    rr = range(n_res)
    inf = math.inf
    out: dict[int, tuple[int, int]] = {}
    # flat per-job state, indexed by position i among the jobs that got 1 PS + 1 worker
    ids: list[int] = []
    speed: list = []
    rem: list[float] = []
    P: list[int] = []
    W: list[int] = []
    t_now: list[float] = []
    t_ps: list[float] = []
    t_w: list[float] = []
    k_ps: list[float] = []  # priority / dominant divisor (0 when the role can never be added)
    k_w: list[float] = []
    cap_p: list[float] = []  # caps (inf when unbounded)
    cap_w: list[float] = []
    WD: list = []
    PD: list = []

    if jobs:
        div_ps_all = _dominant_divisors(np.stack([job.ps_demand for job in jobs]), cap, gain_unit).tolist()
        div_w_all = _dominant_divisors(np.stack([job.worker_demand for job in jobs]), cap, gain_unit).tolist()

    # step 1: one PS and one worker per job, in the given order
    for n_job, job in enumerate(jobs):
        wd, pd_ = job._lists
        if any(used[r] + wd[r] + pd_[r] > cap_eps[r] for r in rr):
            continue  # even 1 PS + 1 worker does not fit: nothing this interval
        for r in rr:
            used[r] += wd[r] + pd_[r]
        j = job.job_id
        q, f = job.remaining, job.speed
        mp = inf if job.max_ps is None else job.max_ps
        mw = inf if job.max_workers is None else job.max_workers
        pi = prio.get(j, 1.0)
        div_ps = div_ps_all[n_job]
        div_w = div_w_all[n_job]
        ids.append(j)
        speed.append(f)
        rem.append(q)
        P.append(1)
        W.append(1)
        t_now.append(_time(q, f(1, 1), j, 1, 1))
        t_ps.append(_time(q, f(2, 1), j, 2, 1) if mp > 1 else inf)
        t_w.append(_time(q, f(1, 2), j, 1, 2) if mw > 1 else inf)
        k_ps.append(pi / div_ps if div_ps < inf else 0.0)
        k_w.append(pi / div_w if div_w < inf else 0.0)
        cap_p.append(mp)
        cap_w.append(mw)
        WD.append(wd)
        PD.append(pd_)
        out[j] = (1, 1)

    def key(i: int) -> tuple[float, int] | None:
        """(gain, role) of job i's best next task (role 0 = PS, 1 = worker), None if none."""
        tn = t_now[i]
        g_ps = g_w = -inf
        if P[i] < cap_p[i] and k_ps[i] > 0:
            g_ps = _gain(tn, t_ps[i]) * k_ps[i]
        if W[i] < cap_w[i] and k_w[i] > 0:
            g_w = _gain(tn, t_w[i]) * k_w[i]
        if g_ps == -inf and g_w == -inf:
            return None
        # Eq. (9) / step 2 role: max of the two gains with numerics tolerance; ties -> PS
        return (g_ps, 0) if g_ps >= g_w or _ps_close(g_ps, g_w) else (g_w, 1)

    if method == "bands" or (method == "auto" and stop_rule == "literal"):
        state = (ids, speed, rem, P, W, t_now, t_ps, t_w, k_ps, k_w, cap_p, cap_w, WD, PD)
        _allocate_bands(state, used, cap_eps, trace, out)
        return out

    # steps 2-3: heap of (-gain, job_id, i, role); the top is replaced in place after a grant
    heap = []
    for i in range(len(ids)):
        e = key(i)
        if e is not None:
            heap.append((-e[0], ids[i], i, e[1]))
    heapq.heapify(heap)
    literal = stop_rule == "literal"
    while heap:
        # Step 5: pop the largest gain g*. Gains within the numerics tolerance of g*
        # (g >= g* - REL_TOL |g*| - ABS_TOL) tie with it; ties -> smaller job id. Only entries whose
        # parents qualify can qualify, so the near-tie path is entered only if a child of the root does.
        thr = -heap[0][0]
        thr -= _tol(thr)
        n_h = len(heap)
        if (n_h > 1 and -heap[1][0] >= thr) or (n_h > 2 and -heap[2][0] >= thr):
            near = []
            while heap and -heap[0][0] >= thr:
                near.append(heapq.heappop(heap))
            entry = min(near, key=lambda e: e[1])
            for e in near:
                if e is not entry:
                    heapq.heappush(heap, e)
            at_top = False  # the chosen entry is out of the heap
        else:
            entry = heap[0]
            at_top = True
        neg_g, j, i, role = entry
        if not neg_g < 0:
            break  # step 6: the chosen gain is non-positive (exact: see "Floating point and ties")
        d = PD[i] if role == 0 else WD[i]
        fits = True
        for r in rr:
            if used[r] + d[r] > cap_eps[r]:
                fits = False
                break
        if not fits:
            if literal:
                break  # "some resource in the cluster is used up"
            if at_top:
                heapq.heappop(heap)  # skip: this job gets no more tasks
            continue
        for r in rr:
            used[r] += d[r]
        q, f = rem[i], speed[i]
        if role == 0:
            p = P[i] = P[i] + 1
            w = W[i]
            t_now[i] = tn = t_ps[i]
        else:
            p = P[i]
            w = W[i] = W[i] + 1
            t_now[i] = tn = t_w[i]
        # inline _time / _gain for speed (same semantics)
        if p < cap_p[i] and k_ps[i] > 0:
            fx = float(f(p + 1, w))
            if fx != fx:
                raise ValueError(f"job {j}: speed({p + 1}, {w}) returned NaN")
            tp = 0.0 if q == 0.0 else (q / fx if fx > 0.0 else inf)
            g_ps = ((0.0 if tp == inf else inf) if tn == inf else tn - tp) * k_ps[i]
        else:
            tp = inf
            g_ps = -inf
        if w < cap_w[i] and k_w[i] > 0:
            fx = float(f(p, w + 1))
            if fx != fx:
                raise ValueError(f"job {j}: speed({p}, {w + 1}) returned NaN")
            tw = 0.0 if q == 0.0 else (q / fx if fx > 0.0 else inf)
            g_w = ((0.0 if tw == inf else inf) if tn == inf else tn - tw) * k_w[i]
        else:
            tw = inf
            g_w = -inf
        t_ps[i] = tp
        t_w[i] = tw
        out[j] = (p, w)
        if trace is not None:
            trace.append((j, "ps" if role == 0 else "worker", -neg_g))
        if g_ps == -inf and g_w == -inf:
            new = None
        elif g_ps >= g_w or _ps_close(g_ps, g_w):  # Eq. (9) role, tolerance; ties -> PS
            new = (-g_ps, j, i, 0)
        else:
            new = (-g_w, j, i, 1)
        if at_top:
            if new is None:
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, new)
        elif new is not None:
            heapq.heappush(heap, new)
    return out


def _allocate_bands(state, used: list[float], cap_eps: list[float], trace, out) -> None:
    r"""Steps 2-3 with the literal stop rule, without a heap (same result as the heap loop).

    Each job's sequence of tasks (and their gains :math:`g_{j1}, g_{j2}, \dots`) depends only on
    the job itself. The heap pops job ``j``'s ``k``-th task in the order of the key
    :math:`(-m_{jk}, j, k)` with the running minimum :math:`m_{jk} = \min_{i \le k} g_{ji}`: when a
    job's next gain is larger than its previous one it is popped right away, because all other
    heads are at most the previous gain. The heap loop thus grants the tasks in ascending key order
    and stops at the first task with :math:`m \le 0` or that does not fit.

    Here the keys are generated band by band, :math:`\tau_b < m \le \tau_{b-1}` with
    :math:`\tau` halving; each band is sorted with numpy and scanned with a cumulative sum of the
    demands (same summation order as the heap loop). A job's sequence is cut after the number of
    tasks that can possibly fit (one more task is generated and marked as not fitting), so every
    sequence is finite. Ties within the numerics tolerance follow the heap loop's rule: a band is
    extended until every key left for later bands is below ``lo - tolerance(lo)`` (``lo`` its
    smallest key), and runs of near-equal keys are reordered by :func:`_tie_order`. The last band
    may evaluate ``f`` at a few ``(p, w)`` beyond the result
    (a speed function returning NaN there raises, where the heap loop would not have looked).
    Mutates ``used``, ``trace`` and ``out``.
    """
    ids, speed, rem, P, W, t_now, t_ps, t_w, k_ps, k_w, cap_p, cap_w, WD, PD = state
    n = len(ids)
    if n == 0:
        return
    inf = math.inf
    n_res = len(used)
    PDm = np.array(PD, dtype=float).reshape(n, n_res)
    WDm = np.array(WD, dtype=float).reshape(n, n_res)
    slack = np.array(cap_eps) - np.array(used)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(PDm > 0, slack / np.where(PDm > 0, PDm, 1.0), np.inf).min(axis=1)
        b = np.where(WDm > 0, slack / np.where(WDm > 0, WDm, 1.0), np.inf).min(axis=1)
    # a job can never be granted more than floor(a) PS and floor(b) workers (+1: rounding margin)
    bound = (np.floor(np.maximum(a, 0.0)) + np.floor(np.maximum(b, 0.0)) + 1).tolist()
    run_m = [inf] * n  # running minimum of the gains granted so far
    count = [0] * n  # tasks generated so far per job
    pend = [0.0] * n  # key m of each job's next task (-inf when the sequence has ended)

    def head(i: int) -> tuple[float, float, int]:
        """(m, g, role) of job i's next task from its current state; g = -inf if none."""
        tn = t_now[i]
        g_ps = g_w = -inf
        if P[i] < cap_p[i] and k_ps[i] > 0:
            tp = t_ps[i]
            g_ps = ((0.0 if tp == inf else inf) if tn == inf else tn - tp) * k_ps[i]
        if W[i] < cap_w[i] and k_w[i] > 0:
            tw = t_w[i]
            g_w = ((0.0 if tw == inf else inf) if tn == inf else tn - tw) * k_w[i]
        g, role = (g_ps, 0) if g_ps >= g_w or _ps_close(g_ps, g_w) else (g_w, 1)  # ties -> PS
        return (g if g < run_m[i] else run_m[i]), g, role

    for i in range(n):
        m, g, _ = head(i)
        pend[i] = m if g > -inf else -inf
    used_l = list(used)
    rel, abs_tol = _REL, _ABS
    tau = inf
    while True:
        # plain lists: a few jobs at trace scale, where numpy's per-call overhead dominates
        if max(pend) == -inf:
            break  # every sequence has ended
        fin = [x for x in pend if 0 < x < inf]
        if fin:
            tau = min(tau / _BAND, max(fin) / _BAND)
        elif inf in pend:
            tau = 1e300  # only infinite gains are pending: take those first
        else:
            tau = -inf  # only tasks that end the loop are left
        active = [i for i, x in enumerate(pend) if x > tau]
        em_m: list[float] = []  # key m of each generated task
        em_code: list[int] = []  # 2 * job index + role
        em_g: list[float] = []  # gain (only kept for the trace)
        em_stop: list[int] = []  # positions of tasks that end the loop
        put_m, put_code, put_g = em_m.append, em_code.append, em_g.append
        keep_g = trace is not None
        todo = active
        while todo:
            for i in todo:
                q, f = rem[i], speed[i]
                j = ids[i]
                kp, kw, mp, mw = k_ps[i], k_w[i], cap_p[i], cap_w[i]
                p, w, tn, tp, tw = P[i], W[i], t_now[i], t_ps[i], t_w[i]
                m_run, cnt, lim = run_m[i], count[i], bound[i]
                i2 = 2 * i
                nxt = -inf
                while True:
                    g_ps = g_w = -inf
                    if p < mp and kp > 0:
                        g_ps = ((0.0 if tp == inf else inf) if tn == inf else tn - tp) * kp
                    if w < mw and kw > 0:
                        g_w = ((0.0 if tw == inf else inf) if tn == inf else tn - tw) * kw
                    if g_ps == -inf and g_w == -inf:
                        break  # no role can grow: the sequence ends without a stop
                    # Eq. (9) role, tolerance; ties -> PS (_ps_close inlined: the hottest loop)
                    if g_ps >= g_w or (
                        g_w != inf and g_ps != -inf and g_w - g_ps <= rel * max(abs(g_ps), abs(g_w)) + abs_tol
                    ):
                        g, role = g_ps, 0
                    else:
                        g, role = g_w, 1
                    mm = g if g < m_run else m_run
                    if mm <= tau:
                        nxt = mm  # belongs to a later band
                        break
                    m_run = mm
                    cnt += 1
                    put_m(mm)
                    put_code(i2 + role)
                    if keep_g:
                        put_g(g)
                    if mm <= 0 or cnt > lim:
                        em_stop.append(len(em_m) - 1)
                        break  # the heap loop would stop at this task
                    if role == 0:
                        p += 1
                        tn = tp
                    else:
                        w += 1
                        tn = tw
                    if p < mp and kp > 0:
                        fx = float(f(p + 1, w))
                        if fx != fx:
                            raise ValueError(f"job {j}: speed({p + 1}, {w}) returned NaN")
                        tp = 0.0 if q == 0.0 else (q / fx if fx > 0.0 else inf)
                    else:
                        tp = inf
                    if w < mw and kw > 0:
                        fx = float(f(p, w + 1))
                        if fx != fx:
                            raise ValueError(f"job {j}: speed({p}, {w + 1}) returned NaN")
                        tw = 0.0 if q == 0.0 else (q / fx if fx > 0.0 else inf)
                    else:
                        tw = inf
                P[i], W[i], t_now[i], t_ps[i], t_w[i] = p, w, tn, tp, tw
                run_m[i], count[i] = m_run, cnt
                pend[i] = nxt
            # Close the band under the between-job tie rule: every task left for later bands must
            # lie below lo - tolerance(lo) (lo = smallest key generated), so that no task outside
            # the band ties with one inside; otherwise lower tau to there and generate more.
            lo = min(em_m) if em_m else -inf
            thr = lo - _tol(lo)
            todo = [i for i, x in enumerate(pend) if x >= thr] if thr > -inf else []
            if todo:
                tau = math.nextafter(thr, -inf)
        if not em_m:
            continue
        taken, hit, used_l = _band_grants(em_m, em_code, em_stop, ids, PD, WD, PDm, WDm, used_l, cap_eps)
        for t in taken:
            c = em_code[t]
            j = ids[c >> 1]
            pp, ww = out[j]
            out[j] = (pp + 1, ww) if c & 1 == 0 else (pp, ww + 1)
        if trace is not None:
            roles = ("ps", "worker")
            trace.extend((ids[em_code[t] >> 1], roles[em_code[t] & 1], em_g[t]) for t in taken)
        if hit:
            break
    used[:] = used_l


def _band_grants(em_m, em_code, em_stop, ids, PD, WD, PDm, WDm, used, cap_eps):
    """The tasks of one band of :func:`_allocate_bands` that the heap loop grants, in its order.

    The band's tasks (key ``em_m[t]``, job index ``em_code[t] >> 1``, role ``em_code[t] & 1``)
    are sorted by key descending, then job id, then generation order (the heap's pop order; runs
    of keys equal within the tolerance are reordered by :func:`_tie_order`), and granted while
    they are not a stop task (``em_stop``) and the running sum of the demands, from ``used``, fits
    ``cap_eps`` (added task by task, in the heap loop's summation order).

    Returns ``(taken, hit, used)``: the positions granted in order, whether a stop or a task that
    does not fit ended the band, and the capacity used after the granted tasks. Bands of at most
    ``_SMALL_BAND`` tasks (the common case at trace scale) are sorted and scanned in plain Python,
    larger ones with numpy (stable ``lexsort``, ``cumsum``); both give the same positions and the
    same floats.
    """
    size = len(em_m)
    if size <= _SMALL_BAND:
        order = sorted(range(size), key=lambda t: (-em_m[t], ids[em_code[t] >> 1]))
        v_l = [em_m[t] for t in order]
        # numerics.is_close of adjacent distinct keys (an infinity is close only to itself)
        near_l = [
            a != b and abs(a - b) <= _REL * (m if (m := max(abs(a), abs(b))) < math.inf else 0.0) + _ABS
            for a, b in zip(v_l[:-1], v_l[1:], strict=True)
        ]
        if any(near_l):
            ids_s = np.array([ids[em_code[t] >> 1] for t in order])
            order = [order[t] for t in _tie_order(np.array(v_l), ids_s, np.array(near_l)).tolist()]
        stop = set(em_stop)
        taken = []
        for t in order:
            if t in stop:
                return taken, True, used
            c = em_code[t]
            d = WD[c >> 1] if c & 1 else PD[c >> 1]
            nxt = [u + x for u, x in zip(used, d, strict=True)]
            if any(u > cap for u, cap in zip(nxt, cap_eps, strict=True)):
                return taken, True, used
            used = nxt
            taken.append(t)
        return taken, False, used
    m_a = np.array(em_m)
    code = np.array(em_code)
    i_a = code >> 1
    ids_a = np.asarray(ids)
    # lexsort is stable, so a job's tasks (generated in order) keep their order k
    order = np.lexsort((ids_a[i_a], -m_a))
    v_s = m_a[order]
    near = (v_s[:-1] != v_s[1:]) & numerics.is_close(v_s[:-1], v_s[1:])
    if near.any():  # keys equal within the tolerance: the heap loop's tie rule (smaller id)
        order = order[_tie_order(v_s, ids_a[i_a[order]], near)]
    i_s = i_a[order]
    dem = np.where(((code[order] & 1) == 0)[:, None], PDm[i_s], WDm[i_s])
    cum = np.cumsum(np.vstack([np.array(used, dtype=float)[None, :], dem]), axis=0)[1:]
    stop_a = np.zeros(size, bool)
    stop_a[em_stop] = True
    bad = stop_a[order] | np.any(cum > np.array(cap_eps, dtype=float)[None, :], axis=1)
    hit = bool(bad.any())
    take = int(np.argmax(bad)) if hit else size
    return order[:take].tolist(), hit, (cum[take - 1].tolist() if take else used)


def _tie_order(v: np.ndarray, ids: np.ndarray, near: np.ndarray) -> np.ndarray:
    """Pop order of the heap loop for tasks sorted by key ``v`` descending (exact ties by id).

    Step 5 with the tie rule: the largest remaining key ``a`` is the anchor; among the keys
    ``>= a - tolerance(a)`` the task of the smallest job id (then the earlier task) is popped. Only
    runs of adjacent keys that are close (``near``) or equal are reordered; a key outside such a
    run is below the tolerance of every key in it. Returns a permutation of ``range(v.size)``.
    """
    n = v.size
    perm = np.arange(n)
    vl = v.tolist()
    il = ids.tolist()
    nearl = near.tolist()
    link = (near | (v[:-1] == v[1:])).tolist()
    t = 0
    while t < n - 1:
        if not link[t]:
            t += 1
            continue
        s = t
        while t < n - 1 and link[t]:
            t += 1
        if any(nearl[s:t]):  # positions s..t form one run
            rest = list(range(s, t + 1))
            out = []
            while rest:
                a = vl[rest[0]]
                thr = a - _tol(a)
                best = min((q for q in rest if vl[q] >= thr), key=lambda q: (il[q], q))
                rest.remove(best)
                out.append(best)
            perm[s : t + 1] = out
    return perm


def total_time(jobs: Sequence[AllocJob], allocation: Mapping[int, tuple[int, int]]) -> float:
    r"""Objective (5), :math:`\sum_j Q_j / f_j(p_j, w_j)`; a job without allocation counts ``inf``
    unless its remaining work is 0.

    Parameters
    ----------
    jobs : Sequence[AllocJob]
    allocation : Mapping[int, tuple[int, int]]
        ``job_id -> (ps, workers)``.

    Returns
    -------
    float
    """
    total = 0.0
    for job in jobs:
        if job.job_id in allocation:
            p, w = allocation[job.job_id]
            total += job.time(p, w)
        elif job.remaining > 0:
            return math.inf
    return total


def brute_force_allocation(
    jobs: Sequence[AllocJob], capacity: np.ndarray, *, max_tasks: int = 6
) -> tuple[dict[int, tuple[int, int]], float]:
    """Exact optimum of (5)-(8) on a tiny instance by enumeration.

    Parameters
    ----------
    jobs : Sequence[AllocJob]
        At most 3 jobs.
    capacity : array_like
        Cluster-wide capacity per resource.
    max_tasks : int, default 6
        Largest PS and worker count tried per job (also capped by the jobs' ``max_ps`` /
        ``max_workers``).

    Returns
    -------
    allocation : dict[int, tuple[int, int]]
        An optimal ``job_id -> (ps, workers)`` (every job gets at least 1 + 1, except that a job
        with no remaining work may get nothing; ties: the first in lexicographic order of the
        enumeration).
    objective : float
        Its :math:`\\sum_j t_j` (``inf`` if no feasible allocation gives every job 1 + 1).

    Raises
    ------
    ValueError
        More than 3 jobs or ``max_tasks`` < 1.
    """
    if len(jobs) > 3:
        raise ValueError(f"brute_force_allocation is for at most 3 jobs, got {len(jobs)}")
    if isinstance(max_tasks, bool) or not isinstance(max_tasks, (int, np.integer)) or max_tasks < 1:
        raise ValueError(f"max_tasks must be an integer >= 1, got {max_tasks!r}")
    cap, _ = _check_capacity(capacity, None)
    options = []
    for job in jobs:
        mp = min(max_tasks, job.max_ps or max_tasks)
        mw = min(max_tasks, job.max_workers or max_tasks)
        # a job without remaining work may also be left out (t = 0 either way, as in total_time)
        opts = [(0, 0, np.zeros_like(cap), 0.0)] if job.remaining == 0 else []
        for p in range(1, mp + 1):
            for w in range(1, mw + 1):
                use = p * job.ps_demand + w * job.worker_demand
                if np.all(use <= cap + _EPS):
                    opts.append((p, w, use, job.time(p, w)))
        options.append(opts)
    best: tuple[float, tuple] | None = None
    for combo in itertools.product(*options):
        use = sum((c[2] for c in combo), np.zeros_like(cap))
        if np.any(use > cap + _EPS):
            continue
        obj = sum(c[3] for c in combo)
        if best is None or obj < best[0] - 1e-12:
            best = (obj, combo)
    if best is None:
        return {}, math.inf
    alloc = {job.job_id: (c[0], c[1]) for job, c in zip(jobs, best[1], strict=True) if c[0] + c[1] > 0}
    return alloc, float(best[0])


def check_allocation(
    jobs: Sequence[AllocJob],
    capacity: np.ndarray,
    *,
    priority: Mapping[int, float] | None = None,
    stop_rule: str = "literal",
    gain_unit: str = "share",
) -> Claim:
    """Spec section 8 item 3: run :func:`allocate` and check its basic guarantees.

    Checks that the capacities (7) hold, every job with an allocation has ``p, w >= 1``, every
    task added after the initial 1 + 1 had a positive priority-weighted gain, the gains of the
    added tasks match a recomputation from the speed functions, and the number of added tasks per
    job matches its final counts.

    Parameters
    ----------
    jobs, capacity, priority, stop_rule, gain_unit
        As for :func:`allocate`.

    Returns
    -------
    Claim
        ``details``: number of jobs allocated, tasks added, minimum gain, maximum capacity use
        (fraction) and the first problem found (if any).
    """
    trace: list = []
    alloc = allocate(jobs, capacity, priority=priority, stop_rule=stop_rule, gain_unit=gain_unit, trace=trace)
    cap = _vector(capacity, "capacity")
    by_id = {job.job_id: job for job in jobs}
    problems = []
    use = np.zeros_like(cap)
    for j, (p, w) in alloc.items():
        if p < 1 or w < 1:
            problems.append(f"job {j} has (p, w) = ({p}, {w})")
        use += p * by_id[j].ps_demand + w * by_id[j].worker_demand
    if np.any(use > cap + 1e-6):
        problems.append(f"capacity exceeded: use {use.tolist()} > {cap.tolist()}")
    counts = {j: [1, 1] for j in alloc}
    prio = {int(k): float(v) for k, v in (priority or {}).items()}
    for j, role, g in trace:
        job = by_id[j]
        p, w = counts[j]
        div = _dominant_divisor(job.ps_demand if role == "ps" else job.worker_demand, cap, gain_unit)
        t_new = job.time(p + 1, w) if role == "ps" else job.time(p, w + 1)
        expect = _gain(job.time(p, w), t_new) / div * prio.get(j, 1.0)
        if not g > 0:
            problems.append(f"job {j}: {role} added with gain {g}")
        if not math.isclose(expect, g, rel_tol=1e-9, abs_tol=1e-12):
            problems.append(f"job {j}: recorded gain {g} != recomputed {expect}")
        counts[j][0 if role == "ps" else 1] += 1
    for j, (p, w) in alloc.items():
        if tuple(counts[j]) != (p, w):
            problems.append(f"job {j}: trace gives {tuple(counts[j])}, result {(p, w)}")
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(cap > 0, use / np.where(cap > 0, cap, 1.0), 0.0)
    return Claim(
        "Optimus Sec. 4.1: allocation respects (7)-(8) and adds only tasks of positive gain (9)",
        not problems,
        {
            "jobs": len(jobs),
            "allocated": len(alloc),
            "tasks_added": len(trace),
            "min_gain": min((g for _, _, g in trace), default=math.nan),
            "max_use_fraction": float(frac.max()) if frac.size else 0.0,
            "problem": problems[0] if problems else "",
        },
    )


def check_allocation_gap(
    jobs: Sequence[AllocJob], capacity: np.ndarray, *, max_tasks: int = 6, **allocate_kwargs
) -> Claim:
    """Compare the heuristic's objective (5) with the brute-force optimum on a tiny instance.

    The paper claims no approximation guarantee, so the claim is only that the brute force is a
    lower bound (it holds unless the enumeration is wrong); the gap is reported in ``details``.
    Counts above ``max_tasks`` are outside the enumeration, so the heuristic's allocation is
    capped at ``max_tasks`` PS and workers per job here.

    Parameters
    ----------
    jobs : Sequence[AllocJob]
        At most 3 jobs.
    capacity : array_like
    max_tasks : int, default 6
    **allocate_kwargs
        Passed to :func:`allocate` (``priority``, ``stop_rule``, ``gain_unit``).

    Returns
    -------
    Claim
        ``details``: heuristic and optimal objectives, relative gap and both allocations.
    """
    capped = [
        AllocJob(
            j.job_id,
            j.remaining,
            j.speed,
            j.worker_demand,
            j.ps_demand,
            min(max_tasks, j.max_ps or max_tasks),
            min(max_tasks, j.max_workers or max_tasks),
        )
        for j in jobs
    ]
    heur = allocate(capped, capacity, **allocate_kwargs)
    h_obj = total_time(capped, heur)
    opt, o_obj = brute_force_allocation(capped, capacity, max_tasks=max_tasks)
    gap = (h_obj - o_obj) / o_obj if o_obj > 0 and math.isfinite(o_obj) else 0.0
    return Claim(
        "Optimus Sec. 4.1: heuristic allocation vs brute-force optimum of (5)-(8) (gap reported)",
        bool(h_obj >= o_obj if math.isinf(o_obj) else h_obj >= o_obj - 1e-9 * max(1.0, abs(o_obj))),
        {
            "heuristic": h_obj,
            "optimum": o_obj,
            "gap": gap,
            "heuristic_alloc": dict(sorted(heur.items())),
            "optimal_alloc": dict(sorted(opt.items())),
        },
    )
