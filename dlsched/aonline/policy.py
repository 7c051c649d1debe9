r"""A_online (Alg. 1), A_maxsche (Alg. 2), COST_C (Alg. 3) and COST_D (Alg. 4) with prices (7)-(8).

J. She, N. Wang, R. Zhou, C. Tian, "Online Scheduling of Machine Learning Jobs in Edge-Cloud
Networks", NaNA 2021 (``papers/003_*.txt``; the implementable math is ``spec/aonline.md``).

**Alg. 1 (A_online).** Time points :math:`\tau_0 = 1`, :math:`\tau_i = 2^{i-1}` (:func:`time_point`).
At :math:`\tau_i` the jobs that arrived before :math:`\tau_i` (:math:`a_j < \tau_i`) and are not yet
scheduled form :math:`J_i` (lines 3-5, 11); A_maxsche schedules as many of them as it can inside the
window :math:`(\tau_i, \tau_{i+1}]` (line 7); a scheduled job runs with a FIXED allocation from
:math:`\tau_i` until it completes, at the latest at :math:`\tau_{i+1}` (lines 8-10, (2c)-(2d));
the others roll over to :math:`J_{i+1}` (line 11). A_online never rejects a job.

**Alg. 2 (A_maxsche)**, spec section 7's executable reading: for each job of :math:`J_i` in arrival
order, for :math:`D_u = 1..D_j` take the cheaper of COST_C and COST_D (lines 5-9, ties: COST_C),
:math:`\eta_{jl} = 1 - \text{cost}` (line 10), keep the first best (line 11, strict ``>``); admit
iff :math:`\eta_j > 0` (line 15) and raise :math:`f, g` and the prices (7)-(8) of the slots used
(lines 16-18). Prices start at :math:`\lambda(0), \mu(0)` in every round (line 1).

**Time.** The simulator's slot ``k`` is the paper's slot ``k + 1``, i.e. the time span
:math:`(k, k+1]`. The window :math:`(\tau_i, \tau_{i+1}]` is therefore simulator slots
``tau_i .. tau_{i+1} - 1``; the round is decided at slot ``tau_i`` (``Decision.wakeup``) and a job
of duration :math:`d_j` occupies slots ``tau_i .. tau_i + d_j - 1`` and completes (continuous time)
by :math:`c_j = \tau_i + d_j \le \tau_{i+1}`.

Symbols (paper -> code)

=================================  ===========================================================
:math:`\tau_i`                     :func:`time_point` ``(i)``
:math:`J_i`, :math:`J_i^s`         :attr:`RoundRecord.considered`, :attr:`RoundRecord.admitted`
:math:`E_jD_jM_j`                  :attr:`AOnlineJob.work`
:math:`p_j` (1), :math:`\xi_j`     :attr:`AOnlineJob.speed_c` (:math:`\xi_j = 1`), ``speed_d`` (0)
:math:`D_j`, :math:`D_u`           :attr:`AOnlineJob.max_workers`, ``n_workers``
:math:`u_j`, :math:`v_j`           :attr:`AOnlineJob.worker_res`, ``ps_res`` (cluster resources)
:math:`\Delta^\uparrow_{js}`       ``spec.delays(cluster)``, turned into :attr:`AOnlineJob.ready_w`
:math:`W_{su}`, :math:`P_{sv}`     ``cluster.capacity[s, u]``, ``cluster.capacity[s, v]``
:math:`f_{su}(t)`, :math:`g_{sv}`  :attr:`WindowState.used` (per window segment)
:math:`\lambda`, :math:`\mu`       :meth:`AOnlinePrices.worker`, :meth:`AOnlinePrices.ps`
:math:`\theta_1, \theta_2`         :func:`theta`, :attr:`AOnlinePrices.theta1`, ``theta2``
:math:`F_1, F_2`                   ``AOnline(F1=..., F2=...)``
:math:`d_j`, :math:`c_j`           :attr:`Candidate.duration`, ``tau_i + duration``
:math:`\eta_j`                     :attr:`MaxscheResult.eta`
=================================  ===========================================================

**Types.** A worker (PS) type is a cluster resource: each job names exactly one resource with a
positive amount in ``worker_demand`` (its :math:`u_j`) and one other in ``ps_demand`` (its
:math:`v_j`). :math:`W_{su}` is the capacity of that resource on ``s``, counted in resource units
(one worker uses ``worker_demand[u_j]`` units, normally 1, so units are the paper's "slots").

Readings (spec tags; each alternative is a parameter of :class:`AOnline` and of the helpers):

* (7)-(8) [R]: ``price_reading="corrected"`` :math:`\lambda = \theta_1^{f/W} - 1` (default) or
  ``"literal"`` :math:`\lambda = \theta_1 f/W - 1` as printed (negative at 0, breaks (5b)).
* :math:`\theta_1 = 2TSUF_1 + 1`, :math:`\theta_2 = 2TSVF_2 + 1` ([Q] with the [R] exponent):
  ``F1 = F2 = 1`` by default (our choice, not in the paper: the unit price cap equals the job
  weight 1), ``theta1``/``theta2`` override the bases; ``T`` (else the workload's ``T`` or
  horizon, else the end of the current window), ``S`` = servers (edge + cloud), ``U``/``V``
  (else the workload's, else the distinct worker/PS resources of the jobs).
* Line 10 [N]: :math:`\eta_{jl} = w_j - \text{cost}` with the job weight (``use_weights``; the
  paper's weights are all 1, so this is the printed rule on unweighted workloads).
* Alg. 2 [R/N]: lines 7-9 read as ``min(cost, cost_d)`` (ties: COST_C); :math:`\eta_j = 0` per
  job; line 17 uses :math:`l^*`; the redundant :math:`c_j` loop (line 3) is dropped and the
  acceptance (lines 15-19) runs once per job; [R] window check :math:`c_j \le \tau_{i+1}` and
  :math:`d_j = \lceil E_jD_jM_j/(p_jD_u)\rceil` (not parameters: without them (3b) fails and
  the per-round price reset of line 1 would be wrong).
* Alg. 3-4 line 3 [Q]: data ready iff :math:`a_j + \Delta_{js} < \tau_i`
  (``data_ready="strict"``); ``"inclusive"`` (:math:`\le`) is the simulator's own rule (2i).
* Alg. 3 line 3 [N]: ``order="first_slot"`` sorts by the first window slot's prices (paper);
  ``"total"`` by the whole-window cost (the exact variant). The same key sorts Alg. 4 line 3.
* Alg. 4 lines 22-24 [R]: ``move_rule="consistent"`` (default) moves a worker iff
  :math:`\sum_t(\lambda_{s_{i_1}}(t)-\lambda_{s_{i_2}}(t)) \le 0`; ``"literal"`` uses the printed
  first-slot test and delta :math:`\lambda_{s_{i_1}}(\tau_i)-\lambda_{s_{i_2}}(\tau_i)-\mu_{s_{i_1}}(\tau_i)`.
* Alg. 4 [T]/[N] fixes, named at the lines: loop index renamed, time ranges
  :math:`(\tau_i, c_j]` throughout, line 5's redundant terms dropped, line 15's :math:`\sum_s`
  dropped, line 28 records :math:`\{y', z'\}` with the PS on :math:`s_{i_1}`, candidates also
  recorded when the inner loop ends without ``break``, and a candidate that ends fully
  co-located is left to COST_C (its speed is :math:`\xi_j = 1`).

* Alg. 4 line 3 [N] (the spec is silent): a server with :math:`W_{su_j} = 0` (no worker slot of
  the job's type; :math:`\lambda = \theta_1^{0/0} - 1` is undefined) is priced :math:`+\infty`:
  it sorts after every server with worker capacity (ties among such servers: server index), so
  it can host the PS only as a "later" server :math:`s_{i_1}` of lines 18-33 and is recorded after
  the equal-cost PS servers that precede it. Not a parameter: the other reading, price 0, would
  put a server that cannot take a worker among the cheapest worker servers, i.e. among the
  servers "before :math:`s_z`" that lines 13-17 describe as co-locating the PS with workers,
  and (9a) makes its worker price the price of an unavailable unit. (Before issue 21 it was
  priced as a full server, :math:`\theta_1 - 1`, interleaved by index with the full servers.)

**Within a round every job starts at** :math:`\tau_i`, so usage and prices are non-increasing over
the window; :class:`WindowState` stores them per segment of constant usage (one per distinct
planned completion), which keeps a round at 200 servers and windows of thousands of slots cheap.
Nothing here is random: ties are broken by server index and job order, so runs are deterministic.

**Floating point and ties (issue 19).** Prices and window costs are computed with
:func:`dlsched.core.numerics.power` and :func:`~dlsched.core.numerics.dot`; every discrete choice
between computed floats treats values within ``numerics.REL_TOL`` (1e-9) of the larger magnitude
(+ ``ABS_TOL`` 1e-12) as equal and breaks the tie by the key below, so a last-bit difference
between machines cannot change a schedule:

====================================  ===============================  =========================
decision (spec line)                  tolerance: REL_TOL times         tie goes to
====================================  ===============================  =========================
Alg. 2 l. 7-9 ``cost_d < cost``       the larger of the two costs      COST_C
Alg. 2 l. 11, 15 eta_jl > eta_j       max(abs(w_j), cost, cost of l*)  the earlier, smaller D_u;
(eta_j = 0 at first: admission)                                        eta ~ 0: not admitted
Alg. 2 ``ties="fastest"``, equal eta  as l. 11, 15                     the earlier completion
Alg. 3 l. 3, first server s_1         the minimum key                  smaller server index
Alg. 4 l. 3, order by lambda          the first key of each tie run    smaller server index
Alg. 4 l. 22, move iff Delta <= 0     largest price term of Delta      move (as Delta = 0)
Alg. 4 l. 37, cheapest of L           the minimum cost                 the first recorded
====================================  ===============================  =========================

``_EPS = 1e-9`` is not a tie rule: it guards ``ceil``/``floor`` of integer-valued quantities
(:math:`d_j`, worker room) and capacity fits against rounding. The pruning of :func:`maxsche`
(``c.cost <= lower bound of COST_D``, stop at :math:`\eta_j = w_j`) stays exact: it only skips
evaluations the tolerant rules above could not choose.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dlsched.core import numerics
from dlsched.core.cluster import Cluster
from dlsched.core.jobs import AOnlineModel, JobSpec, Workload
from dlsched.core.policy import BasePolicy, ClusterView
from dlsched.core.schedule import Decision, Placement

_EPS = 1e-9  # capacity fits / ceil of d_j on integer-valued quantities (slots, worker counts), not a tie rule
INF = math.inf
PRICE_READINGS: tuple[str, ...] = ("corrected", "literal")
"""Valid ``price_reading`` values: (7)-(8) as reconstructed (exponent) or as printed (linear)."""
ORDERS: tuple[str, ...] = ("first_slot", "total")
"""Valid ``order`` values: the server sort key of Alg. 3 line 3 and Alg. 4 line 3."""
MOVE_RULES: tuple[str, ...] = ("consistent", "literal")
"""Valid ``move_rule`` values: the worker-move test of Alg. 4 lines 22-24."""
TIES: tuple[str, ...] = ("first", "fastest")
r"""Valid ``ties`` values: Alg. 2 line 11's strict ``>`` (the first, i.e. smallest, best
:math:`D_u` stays) or ours, among equal :math:`\eta` the candidate that completes first."""
DATA_READY: tuple[str, ...] = ("strict", "inclusive")
"""Valid ``data_ready`` values: :math:`a_j + \\Delta_{js} < \\tau_i` (paper) or ``<=``."""


def _choice(value, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"{what} must be one of {allowed}, got {value!r}")
    return value


def _pos_int(value, what: str, *, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be an integer >= 1{' or None' if allow_none else ''}, got {value!r}")
    return int(value)


def _pos_float(value, what: str, *, above: float = 0.0, allow_none: bool = False):
    if value is None and allow_none:
        return None
    bad = isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating))
    if bad or not math.isfinite(float(value)) or float(value) <= above:
        raise ValueError(f"{what} must be a finite number > {above:g}, got {value!r}")
    return float(value)


# ------------------------------------------------------------------------------- time points


#: The last slot A_online plans for: a round whose window ends later (``tau_{i+1} > 2^62``) raises
#: a ValueError rather than overflow the 64-bit slot counts of :class:`WindowState`.
LAST_SLOT = 2**62


def time_point(i: int) -> int:
    r""":math:`\tau_i` of Alg. 1 line 1: :math:`\tau_0 = 1`, :math:`\tau_i = 2^{i-1}` (:math:`i \ge 1`)."""
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or i < 0:
        raise ValueError(f"time point index i must be an integer >= 0, got {i!r}")
    return 1 if i == 0 else 2 ** (int(i) - 1)


def round_at(t: int) -> int | None:
    r"""The round ``i >= 1`` with :math:`\tau_i = t`, or None when ``t`` is not a time point."""
    t = int(t)
    if t < 1 or t & (t - 1):
        return None
    return t.bit_length()


def first_round(arrival: int) -> int:
    r"""The round in which a job arriving at ``arrival`` is first considered: the smallest
    ``i >= 1`` with :math:`\tau_i > a_j` (spec section 11, property 6)."""
    a = int(arrival)
    if a < 0:
        raise ValueError(f"arrival must be >= 0, got {arrival!r}")
    return max(1, a.bit_length() + 1)


# ------------------------------------------------------------------------------------ prices


def theta(T: int, S: int, n_types: int, F: float) -> float:
    r"""Base of (7)-(8): :math:`\theta = 2\,T\,S\,U\,F + 1` (``n_types`` is ``U`` or ``V``).

    Raises
    ------
    ValueError
        Naming the field when ``T``, ``S`` or ``n_types`` is not an integer >= 1 or ``F <= 0``.
    """
    T = _pos_int(T, "theta: T")
    S = _pos_int(S, "theta: S")
    n = _pos_int(n_types, "theta: n_types")
    F = _pos_float(F, "theta: F")
    return 2.0 * T * S * n * F + 1.0


def price(used, capacity, base: float, reading: str = "corrected"):
    r"""Unit price (7)/(8) of a (server, type, slot) with ``used`` of ``capacity`` allocated.

    ``"corrected"`` [R]: :math:`\theta^{f/W} - 1` (0 when empty, :math:`\theta - 1` when full,
    strictly increasing and convex); ``"literal"``: :math:`\theta f/W - 1` as printed (-1 when
    empty). A capacity of 0 counts as full. Arrays broadcast.
    """
    _choice(reading, PRICE_READINGS, "price reading")
    used = np.asarray(used, dtype=float)
    cap = np.asarray(capacity, dtype=float)
    frac = np.divide(used, cap, out=np.ones(np.broadcast(used, cap).shape), where=cap > 0)
    if reading == "corrected":
        return numerics.power(float(base), frac) - 1.0
    return float(base) * frac - 1.0


@dataclass(frozen=True)
class AOnlinePrices:
    r"""Price functions :math:`\lambda` (7) for worker types and :math:`\mu` (8) for PS types.

    Parameters
    ----------
    theta1, theta2 : float
        :math:`\theta_1`, :math:`\theta_2` (> 1).
    reading : {"corrected", "literal"}
        See :func:`price`.
    """

    theta1: float
    theta2: float
    reading: str = "corrected"

    def __post_init__(self) -> None:
        object.__setattr__(self, "theta1", _pos_float(self.theta1, "AOnlinePrices.theta1", above=1.0))
        object.__setattr__(self, "theta2", _pos_float(self.theta2, "AOnlinePrices.theta2", above=1.0))
        _choice(self.reading, PRICE_READINGS, "AOnlinePrices.reading")

    @classmethod
    def of(
        cls, T: int, S: int, U: int, V: int, F1: float = 1.0, F2: float = 1.0, reading: str = "corrected"
    ) -> AOnlinePrices:
        r""":math:`\theta_1 = 2TSUF_1 + 1`, :math:`\theta_2 = 2TSVF_2 + 1` (7)-(8)."""
        return cls(theta(T, S, U, F1), theta(T, S, V, F2), reading)

    def worker(self, used, capacity):
        r""":math:`\lambda_{su}(f_{su}(t))` (7)."""
        return price(used, capacity, self.theta1, self.reading)

    def ps(self, used, capacity):
        r""":math:`\mu_{sv}(g_{sv}(t))` (8)."""
        return price(used, capacity, self.theta2, self.reading)

    @property
    def nonnegative(self) -> bool:
        """True for the corrected reading (every price >= 0, so a job's cost is >= 0)."""
        return self.reading == "corrected"


# ------------------------------------------------------------------------------ window state


@dataclass(eq=False)
class WindowState:
    r"""Usage :math:`f_{su}(t), g_{sv}(t)` of one round's window, piecewise constant over slots.

    Slot offsets ``0 .. length - 1`` stand for the window's slots :math:`\tau_i+1..\tau_{i+1}`
    (simulator slots ``tau_i .. tau_{i+1} - 1``). Segment ``m`` covers offsets
    ``bounds[m] .. bounds[m+1] - 1`` and has usage ``used[:, :, m]``.

    Parameters
    ----------
    capacity : numpy.ndarray
        (S, R) capacities :math:`W_{su}`, :math:`P_{sv}` (cluster resources).
    length : int
        Window length :math:`\tau_{i+1} - \tau_i` in slots.
    bounds : numpy.ndarray
        (M + 1,) increasing offsets, ``bounds[0] = 0``, ``bounds[-1] = length``.
    used : numpy.ndarray
        (S, R, M) usage per segment.
    """

    capacity: np.ndarray
    length: int
    bounds: np.ndarray
    used: np.ndarray

    def __post_init__(self) -> None:
        cap = np.asarray(self.capacity, dtype=float)
        if cap.ndim != 2 or not np.all(np.isfinite(cap)) or np.any(cap < 0):
            raise ValueError(f"WindowState.capacity must be a finite (S, R) array >= 0, got {cap.shape}")
        self.capacity = cap
        self.length = _pos_int(self.length, "WindowState.length")
        b = np.asarray(self.bounds, dtype=np.int64)
        if b.ndim != 1 or len(b) < 2 or b[0] != 0 or b[-1] != self.length or np.any(np.diff(b) <= 0):
            raise ValueError(f"WindowState.bounds must increase from 0 to length={self.length}, got {b}")
        self.bounds = b
        used = np.asarray(self.used, dtype=float)
        if used.shape != cap.shape + (len(b) - 1,):
            raise ValueError(f"WindowState.used must be {cap.shape + (len(b) - 1,)}, got {used.shape}")
        self.used = used

    @classmethod
    def empty(cls, capacity, length: int) -> WindowState:
        """A window of ``length`` slots with nothing allocated (Alg. 2 line 1)."""
        cap = np.asarray(capacity, dtype=float)
        return cls(cap, length, np.array([0, int(length)]), np.zeros(cap.shape + (1,)))

    @classmethod
    def from_dense(cls, capacity, used) -> WindowState:
        """From a dense (S, R, length) usage array (consecutive equal slots are merged)."""
        used = np.asarray(used, dtype=float)
        if used.ndim != 3 or used.shape[2] < 1:
            raise ValueError(f"WindowState.from_dense: used must be (S, R, length >= 1), got {used.shape}")
        change = np.any(used[:, :, 1:] != used[:, :, :-1], axis=(0, 1))
        starts = np.concatenate([[0], 1 + np.flatnonzero(change)])
        bounds = np.concatenate([starts, [used.shape[2]]])
        return cls(capacity, used.shape[2], bounds, used[:, :, starts].copy())

    @property
    def n_servers(self) -> int:
        """S."""
        return self.capacity.shape[0]

    def dense(self) -> np.ndarray:
        """Usage per slot, (S, R, length)."""
        return np.repeat(self.used, np.diff(self.bounds), axis=2)

    def copy(self) -> WindowState:
        """An independent copy."""
        return WindowState(self.capacity.copy(), self.length, self.bounds.copy(), self.used.copy())

    def _split(self, k: int) -> int:
        """Make ``k`` a segment bound; return its index in :attr:`bounds`."""
        i = int(np.searchsorted(self.bounds, k))
        if i < len(self.bounds) and self.bounds[i] == k:
            return i
        self.bounds = np.insert(self.bounds, i, k)
        self.used = np.insert(self.used, i - 1, self.used[:, :, i - 1], axis=2)
        return i

    def add(self, server: int, resource: int, amount: float, start: int, end: int) -> None:
        """Add ``amount`` of ``resource`` on ``server`` over window offsets ``start .. end - 1``
        (Alg. 2 line 18: :math:`f \\leftarrow f + y`, :math:`g \\leftarrow g + z`)."""
        if not 0 <= start < end <= self.length:
            raise ValueError(f"WindowState.add: need 0 <= start < end <= {self.length}, got {start}, {end}")
        a, b = self._split(int(start)), self._split(int(end))
        self.used[server, resource, a:b] += amount


# ----------------------------------------------------------------------------------- the job


@dataclass(frozen=True, eq=False)
class AOnlineJob:
    r"""The constants of one job in one round (what Alg. 2-4 read).

    Attributes
    ----------
    job_id : int
    work : float
        :math:`E_jD_jM_j` mini-batches (2e).
    speed_c, speed_d : float
        :math:`p_j` of (1) with :math:`\xi_j = 1` (co-located) and :math:`\xi_j = 0`.
    max_workers : int
        :math:`D_j` (2a).
    worker_res, ps_res : int
        Cluster resource index of the job's worker type :math:`u_j` and PS type :math:`v_j`.
    worker_amount, ps_amount : float
        Units of that resource one worker / the PS occupies (1 in the paper).
    ready_w, ready_p : numpy.ndarray
        (S,) bool: the job's data reach ``s`` in time (Alg. 3-4 line 3) and ``s`` may host a
        worker / a PS.
    weight : float
        :math:`w_j`, the "1" of (5a) and line 10 (:math:`\eta_{jl} = w_j - \text{cost}`).
    """

    job_id: int
    work: float
    speed_c: float
    speed_d: float
    max_workers: int
    worker_res: int
    ps_res: int
    worker_amount: float
    ps_amount: float
    ready_w: np.ndarray
    ready_p: np.ndarray
    weight: float = 1.0

    def duration(self, n_workers: int, colocated: bool) -> int:
        r""":math:`d_j = \lceil E_jD_jM_j / (p_j D_u)\rceil` slots (Alg. 3-4 line 2, [R] integer)."""
        speed = self.speed_c if colocated else self.speed_d
        return max(1, math.ceil(self.work / (speed * n_workers) - _EPS))


def _single_resource(demand: Mapping[str, float], cluster: Cluster, what: str) -> tuple[int, float]:
    pos = {r: float(v) for r, v in demand.items() if float(v) > 0}
    if len(pos) != 1:
        raise ValueError(
            f"{what} must name exactly one resource (its type) with a positive amount, got {dict(demand)}"
        )
    ((r, v),) = pos.items()
    return cluster.resource_index(r), v


def job_types(spec: JobSpec, cluster: Cluster) -> tuple[int, int, float, float]:
    """``(worker_res, ps_res, worker_amount, ps_amount)`` of a job: its worker type :math:`u_j`
    and PS type :math:`v_j` as cluster resource indices.

    Raises
    ------
    ValueError
        If ``worker_demand`` or ``ps_demand`` does not name exactly one resource, or both name
        the same one.
    """
    j = spec.job_id
    u, dw = _single_resource(spec.worker_demand, cluster, f"job {j}: worker_demand")
    v, dp = _single_resource(spec.ps_demand, cluster, f"job {j}: ps_demand")
    if u == v:
        raise ValueError(
            f"job {j}: worker_demand and ps_demand name the same resource {cluster.resources[u]!r}; "
            "A_online needs a worker type and a separate PS type"
        )
    return u, v, dw, dp


def aonline_job(
    spec: JobSpec, cluster: Cluster, tau: int, *, data_ready: str = "strict", use_weights: bool = True
) -> AOnlineJob:
    r"""The job's constants for the round decided at :math:`\tau_i` = ``tau``.

    ``data_ready="strict"``: server ``s`` is usable iff :math:`a_j + \Delta_{js} < \tau_i`
    (Alg. 3 line 3, Alg. 4 line 3 as printed); ``"inclusive"``: iff :math:`\le`, the
    simulator's (2i) for a job starting at slot :math:`\tau_i`. ``use_weights``: the job's
    ``model.weight`` as :math:`w_j` (1 when the model has none); False: 1 as printed.
    """
    _choice(data_ready, DATA_READY, "data_ready")
    if not isinstance(spec.model, AOnlineModel):
        raise ValueError(f"job {spec.job_id}: A_online needs an AOnlineModel, got {spec.model.kind!r}")
    m = spec.model
    u, v, dw, dp = job_types(spec, cluster)
    ready_at = spec.arrival + spec.delays(cluster)
    ready = ready_at < tau if data_ready == "strict" else ready_at <= tau + _EPS
    can_w = np.zeros(cluster.n_servers, bool)
    can_w[cluster.servers_for("worker")] = True
    can_p = np.zeros(cluster.n_servers, bool)
    can_p[cluster.servers_for("ps")] = True
    rw, rp = ready & can_w, ready & can_p
    rw.setflags(write=False)
    rp.setflags(write=False)
    w = float(getattr(m, "weight", 1.0)) if use_weights else 1.0
    return AOnlineJob(
        spec.job_id, m.total_work, m.speed(True), m.speed(False), int(m.max_workers), u, v, dw, dp, rw, rp, w
    )


# ------------------------------------------------------------------------- cost evaluation


@dataclass(frozen=True)
class Candidate:
    """A schedule :math:`l` of one job: cost (9), workers :math:`D_u`, duration :math:`d_j`,
    placement (fixed over the first ``duration`` window slots) and the subroutine (``"C"``:
    COST_C, co-located; ``"D"``: COST_D, distributed)."""

    cost: float
    n_workers: int
    duration: int
    placement: Placement
    kind: str

    @property
    def colocated(self) -> bool:
        r""":math:`\xi_j`."""
        return self.kind == "C"


@dataclass(frozen=True)
class _Profile:
    """Per-server quantities over the first ``d`` window slots for one job."""

    lam: np.ndarray  # sum_t lambda_{s u_j}(t), per unit of the worker resource
    mu: np.ndarray  # sum_t mu_{s v_j}(t), per unit of the PS resource
    room: np.ndarray  # min_t workers that still fit (int), 0 where no worker may go
    ps_ok: np.ndarray  # min_t PS room >= one PS, and a PS may go there


def _side(state: WindowState, price_fn, r: int) -> tuple[np.ndarray, ...]:
    """The job-independent arrays of cluster resource ``r`` in ``state``: prices per segment
    (S, M), their prefix sums over the window (S, M + 1), the prefix minimum of the free capacity
    over the segments, the first-slot prices and the servers with no capacity of ``r``."""
    cap, used = state.capacity[:, r], state.used[:, r, :]
    seg_price = price_fn(used, cap[:, None])  # (S, M)
    seg = np.diff(state.bounds).astype(float)
    zero = np.zeros((state.n_servers, 1))
    cum = np.concatenate([zero, np.cumsum(seg_price * seg, axis=1)], axis=1)
    free = np.minimum.accumulate(cap[:, None] - used, axis=1)  # prefix min over segments
    return seg_price, cum, free, seg_price[:, 0], cap <= 0


@dataclass(eq=False)
class _Cand:
    """A candidate of :func:`maxsche` before its :class:`Candidate` (and placement) is built:
    ``workers`` and ``ps`` are ``{server: count}``."""

    cost: float
    n_workers: int
    duration: int
    kind: str
    workers: dict
    ps: dict

    def candidate(self) -> Candidate:
        placement = Placement.of(self.workers, self.ps)
        return Candidate(self.cost, self.n_workers, self.duration, placement, self.kind)


class _DView:
    """COST_D's per-duration quantities of one job, in the line-3 server order ``srv``: the
    workers that fit on each server in every slot (``room``), ``cum = cumsum(room)``,
    ``excl = cum - room``, ``total = room.sum()``, the whole-window cost of one worker (``lw``)
    and of the PS (``mp``) there, whether it may host the PS (``psok``) and those positions
    (``psidx``)."""

    __slots__ = ("srv", "room", "cum", "excl", "total", "lw", "mp", "psok", "psidx", "_tol")

    def __init__(self, srv, room, cum, excl, total, lw, mp, psok, psidx) -> None:
        self.srv, self.room, self.cum, self.excl, self.total = srv, room, cum, excl, total
        self.lw, self.mp, self.psok, self.psidx = lw, mp, psok, psidx
        self._tol: np.ndarray | None | bool = False

    def tol_lw(self) -> np.ndarray | None:
        """``REL_TOL * |lw| + ABS_TOL`` (the tolerance of each worker cost), None unless every
        ``lw`` is finite."""
        if self._tol is False:
            a = np.abs(self.lw)
            self._tol = numerics.REL_TOL * a + numerics.ABS_TOL if np.isfinite(a).all() else None
        return self._tol


class _Quote:
    """Prices and room of one job against one window state, evaluated per duration ``d``.

    ``shared`` (:func:`maxsche`): a cache of the job-independent arrays of each resource
    (:func:`_side`) for this state, emptied by the caller whenever the state changes, so the jobs
    of one round that see the same state and types price it once."""

    def __init__(
        self, job: AOnlineJob, state: WindowState, prices: AOnlinePrices, shared: dict | None = None
    ) -> None:
        self.job, self.length = job, state.length
        self.bounds = state.bounds
        if shared is None:
            shared = {}
        kw, kp = ("w", job.worker_res), ("p", job.ps_res)
        w = shared.get(kw)
        if w is None:
            w = shared[kw] = _side(state, prices.worker, job.worker_res)
        p = shared.get(kp)
        if p is None:
            p = shared[kp] = _side(state, prices.ps, job.ps_res)
        self.lam_seg, self.cum_lam, self.free_w, self.first_lam, no_w = w
        self.mu_seg, self.cum_mu, self.free_p, self.first_mu, _ = p
        # lambda_{s u_j}(tau_i), mu_{s v_j}(tau_i): first window slot (first_lam, first_mu above)
        self.no_w = no_w  # W_{s u_j} = 0: lambda = theta^(0/0) - 1 is undefined (Alg. 4 line 3)
        self._cache: dict[int, _Profile] = {}
        self._dviews: dict[int, _DView | None] = {}
        self._srv_first: np.ndarray | None = None
        self._first_done = False
        self._pre: tuple | None = None  # prefetch_d

    def at(self, d: int) -> _Profile:
        """Sums and minima over window offsets ``0 .. d - 1`` (1 <= d <= length)."""
        p = self._cache.get(d)
        if p is None:
            job, b = self.job, self.bounds
            m = int(np.searchsorted(b, d, side="left")) - 1
            lam = self.cum_lam[:, m] + self.lam_seg[:, m] * (d - b[m])
            mu = self.cum_mu[:, m] + self.mu_seg[:, m] * (d - b[m])
            room = np.floor(np.maximum(self.free_w[:, m], 0.0) / job.worker_amount + _EPS).astype(np.int64)
            room[~job.ready_w] = 0
            ps_ok = job.ready_p & (self.free_p[:, m] >= job.ps_amount - _EPS)
            p = self._cache[d] = _Profile(lam, mu, room, ps_ok)
        return p

    def _rows(self, ds: list[int]) -> tuple[np.ndarray, ...]:
        """:meth:`at` of every ``d`` in ``ds`` at once, stacked (K, S): ``lam, mu, room, ps_ok``
        (the same elementwise arithmetic as :meth:`at`)."""
        job, b = self.job, self.bounds
        dv = np.array(ds, dtype=np.int64)
        m = np.searchsorted(b, dv, side="left") - 1
        off = dv - b[m]
        lam = np.ascontiguousarray((self.cum_lam[:, m] + self.lam_seg[:, m] * off).T)
        mu = np.ascontiguousarray((self.cum_mu[:, m] + self.mu_seg[:, m] * off).T)
        room = np.floor(np.maximum(self.free_w[:, m], 0.0) / job.worker_amount + _EPS).astype(np.int64)
        room = np.ascontiguousarray(room.T)
        room[:, ~job.ready_w] = 0
        ps_ok = np.ascontiguousarray(job.ready_p & (self.free_p[:, m] >= job.ps_amount - _EPS).T)
        return lam, mu, room, ps_ok

    def lower_bound_d(self, n: int) -> float:
        """A lower bound of COST_D's cost (9) with ``n`` workers (inf if infeasible)."""
        d = self.job.duration(n, False)
        if d > self.length:
            return INF
        p = self.at(d)
        if not p.ps_ok.any() or p.room.sum() < n:
            return INF
        job = self.job
        return float(n * job.worker_amount * p.lam[job.ready_w].min() + job.ps_amount * p.mu[p.ps_ok].min())

    def _d_stack(self, ns: Sequence[int]) -> tuple | None:
        """COST_D's durations of the worker counts ``ns`` that fit the window, as
        ``(rows, lam, mu, room, ps_ok)`` (rows: ``(i, n, d)``; arrays (K, S) from :meth:`_rows`)."""
        job = self.job
        rows = [(i, n, job.duration(n, False)) for i, n in enumerate(ns)]
        rows = [r for r in rows if r[2] <= self.length]  # [R] window check
        if not rows:
            return None
        return (rows, *self._rows([d for _, _, d in rows]))

    def lower_bounds_d(self, ns: Sequence[int], stack: tuple | None = None) -> list[float]:
        """:meth:`lower_bound_d` of every ``n`` in ``ns`` (the same values up to the sign of a
        zero bound; they are only compared). ``stack``: :meth:`_d_stack` of ``ns``."""
        job = self.job
        out = [INF] * len(ns)
        if stack is None:
            stack = self._d_stack(ns)
        if stack is None:
            return out
        rows, lam, mu, room, ps_ok = stack
        nv = np.array([n for _, n, _ in rows], dtype=np.int64)
        feasible = ps_ok.any(axis=1) & (room.sum(axis=1) >= nv)
        lmin = np.where(job.ready_w, lam, INF).min(axis=1)  # lam[ready_w].min() per row
        mmin = np.where(ps_ok, mu, INF).min(axis=1)  # mu[ps_ok].min()
        val = nv * job.worker_amount * lmin + job.ps_amount * mmin
        for k, (i, _, _) in enumerate(rows):
            if feasible[k]:
                out[i] = float(val[k])
        return out

    def prefetch_d(self, stack: tuple | None, order: str) -> None:
        """Prepare the :meth:`dview` of every duration of ``stack`` (:meth:`_d_stack`) at once,
        for the first-slot order (the same server order for every duration); :meth:`dview`
        builds a view from its row when first asked, with the values it computes one by one."""
        if stack is None or order != "first_slot":
            return
        srv = self._first_order()
        if srv is None:
            return
        rows, lam, mu, room, ps_ok = stack
        job = self.job
        room2 = room[:, srv]
        cum2 = np.cumsum(room2, axis=1)
        self._pre = (
            {d: k for k, (_, _, d) in enumerate(rows)}, srv, room2, cum2, cum2 - room2,
            job.worker_amount * lam[:, srv], job.ps_amount * mu[:, srv], ps_ok[:, srv],
        )  # fmt: skip

    def costs_c(self, ns: Sequence[int], order: str) -> list[_Cand | None]:
        """:func:`_cost_c` of every ``n`` in ``ns``, computed for all of them at once (the same
        elementwise arithmetic, the same tolerant first server; :func:`_cost_c` when a key is nan)."""
        job = self.job
        out: list[_Cand | None] = [None] * len(ns)
        rows = [(i, n, job.duration(n, True)) for i, n in enumerate(ns)]
        rows = [r for r in rows if r[2] <= self.length]  # [R] window check
        if not rows:
            return out
        lam, mu, room, ps_ok = self._rows([d for _, _, d in rows])
        nv = np.array([n for _, n, _ in rows], dtype=np.int64)
        nw = nv * job.worker_amount  # n * w_amount (Python's int * float, per n)
        ok = (room >= nv[:, None]) & ps_ok  # line 3
        if order == "first_slot":
            key = nw[:, None] * self.first_lam + job.ps_amount * self.first_mu
        else:
            key = nw[:, None] * lam + job.ps_amount * mu
        if np.isnan(key).any():
            for i, n, _ in rows:
                out[i] = _cost_c(self, n, order)
            return out
        # numerics.argmin of key[ok] per row: min m, ties within tolerance(m, m), smallest index
        v = np.where(ok, key, INF)
        m = v.min(axis=1)
        a = np.abs(m)
        lim = m + (numerics.REL_TOL * np.where(np.isfinite(a), a, 0.0) + numerics.ABS_TOL)
        first = (ok & ((v == m[:, None]) | (v <= lim[:, None]))).argmax(axis=1)
        r = np.arange(len(rows))
        cost = nw * lam[r, first] + job.ps_amount * mu[r, first]  # line 8
        any_ok = ok.any(axis=1)
        for k, (i, n, d) in enumerate(rows):
            if any_ok[k]:
                s = int(first[k])
                out[i] = _Cand(float(cost[k]), n, d, "C", {s: n}, {s: 1})
        return out

    def _order(self, lam: np.ndarray | None) -> np.ndarray | None:
        """Alg. 4 line 3: the data-ready servers in non-decreasing order of ``lam`` (None: the
        first-slot prices), or None when no server is data ready."""
        job = self.job
        elig = np.flatnonzero(job.ready_w | job.ready_p)  # line 3: a_j + Delta_js < tau_i
        if elig.size == 0:
            return None
        key = self.first_lam[elig] if lam is None else lam[elig]  # line 3 (t read as the order)
        # line 3, [N] W_{s u_j} = 0 (no worker slot of type u_j; lambda = theta^(0/0) - 1): price +inf,
        # so such a server sorts after every server that has worker capacity (ties among them: server
        # index) and can host the PS only as a "later" server s_{i1} of lines 18-33, never as a server
        # "before s_z" (lines 13-17, which the paper describes as co-locating the PS with workers)
        key = np.where(self.no_w[elig], INF, key)
        # line 3 non-decreasing order: keys within numerics tolerance (REL_TOL of the larger) tie;
        # ties -> smaller server index
        return elig[numerics.order(key)]  # s_1 .. s_S

    def _first_order(self) -> np.ndarray | None:
        """:meth:`_order` by the first-slot prices (the same for every duration), cached."""
        if not self._first_done:
            self._srv_first, self._first_done = self._order(None), True
        return self._srv_first

    def dview(self, d: int, order: str) -> _DView | None:
        """COST_D's line-3 order and the per-server quantities at duration ``d`` (None: no
        server is data ready)."""
        v = self._dviews.get(d, False)
        if v is not False:
            return v
        pre = self._pre
        if pre is not None and order == "first_slot" and d in pre[0]:
            k = pre[0][d]
            _, srv, room, cum, excl, lw, mp, psok = pre
            psk = psok[k]
            v = self._dviews[d] = _DView(
                srv, room[k], cum[k], excl[k], int(cum[k, -1]), lw[k], mp[k], psk, np.flatnonzero(psk)
            )
            return v
        job = self.job
        p = self.at(d)
        srv = self._first_order() if order == "first_slot" else self._order(p.lam)
        if srv is None:
            self._dviews[d] = None
            return None
        room = p.room[srv]
        cum = np.cumsum(room)
        psok = p.ps_ok[srv]
        v = self._dviews[d] = _DView(
            srv, room, cum, cum - room, int(cum[-1]), job.worker_amount * p.lam[srv],
            job.ps_amount * p.mu[srv], psok, np.flatnonzero(psok),
        )  # fmt: skip
        return v

    def first_prices(self, srv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """First-slot cost of one worker / of the PS on ``srv`` (the "literal" move rule)."""
        return self.job.worker_amount * self.first_lam[srv], self.job.ps_amount * self.first_mu[srv]


def _cost_c(q: _Quote, n: int, order: str) -> _Cand | None:
    job = q.job
    d = job.duration(n, True)  # Alg. 3 line 2 with xi_j = 1
    if d > q.length:  # [R] window check c_j = tau_i + d_j <= tau_{i+1}
        return None
    p = q.at(d)
    # line 3: S' = data ready ([T] ranges (tau_i, c_j]) with D_u workers and one PS free in every slot
    ok = (p.room >= n) & p.ps_ok
    if not ok.any():
        return None  # lines 4-5
    if order == "first_slot":  # line 3 as printed: lambda(tau_i) D_u + mu(tau_i)
        key = n * job.worker_amount * q.first_lam + job.ps_amount * q.first_mu
    else:  # [N] exact variant: the whole-window cost
        key = n * job.worker_amount * p.lam + job.ps_amount * p.mu
    idx = np.flatnonzero(ok)
    # line 3 "non-decreasing order", first element s_1: keys within numerics tolerance
    # (REL_TOL of the larger key) tie; ties -> smaller server index
    s = int(idx[numerics.argmin(key[idx])])
    cost = float(n * job.worker_amount * p.lam[s] + job.ps_amount * p.mu[s])  # line 8
    return _Cand(cost, n, d, "C", {s: n}, {s: 1})  # line 7


def _cost_d(q: _Quote, n: int, order: str, move_rule: str) -> _Cand | None:
    job = q.job
    d = job.duration(n, False)  # Alg. 4 line 2 with xi_j = 0
    if d > q.length:  # [R] window check
        return None
    v = q.dview(d, order)  # line 3: the data-ready servers s_1 .. s_S in non-decreasing price order
    if v is None:
        return None
    if v.total < n:  # lines 8-10 (lines 4-7 place min(n, sum of room) workers)
        return None
    room = v.room
    # lines 4-7 ([T] loop index i renamed, ranges (tau_i, c_j], line 5's redundant D_u - sum dropped):
    # y = clip(n - (cumsum(room) - room), 0, room), on integers
    y = np.minimum(np.maximum(n - v.excl, 0), room)
    lw, mp = v.lw, v.mp  # whole-window cost of one worker / of the PS on s
    cost_u = numerics.dot(y, lw)  # line 11
    # line 12: position of s_z, the last server given workers (the first where cumsum(room) >= n)
    z = int(np.searchsorted(v.cum, n))
    k_ps = int(np.searchsorted(v.psidx, z))
    costs: list[np.ndarray] = []
    ps_pos: list[np.ndarray] = []
    ys: list[np.ndarray | None] = []
    # lines 13-17: PS on a server before s_z ([N] line 15: sum_t mu_{s_i}(t), no sum over s)
    pre = v.psidx[:k_ps]
    if pre.size:
        costs.append(cost_u + mp[pre])
        ps_pos.append(pre)
        ys.append(None)  # workers unchanged
    # lines 18-33: PS on s_{i1}, i1 >= z, pulling workers from s_z, s_{z-1}, ... onto it
    i1 = v.psidx[k_ps:]
    if i1.size:
        # i2 = s_z down to s_1 (line 21): the columns below are seq = z, z-1, .., 0
        ys_seq = y[z::-1]
        room1 = room[i1] - y[i1]  # line 19: D_u(s_i1)
        same0 = bool(i1[0] == z)  # i2 == i1 (moves nothing) only at i1 = z, the first column
        if move_rule == "consistent":  # [R] Delta cost = sum_t (lambda_i1(t) - lambda_i2(t)) per worker
            l1, l2 = lw[i1], lw[z::-1]
            delta = l1[:, None] - l2[None, :]
            tlw = v.tol_lw()
            if tlw is not None:
                # numerics.tolerance(max(|l1|, |l2|), 0.0) elementwise: rounding is monotone, so
                # REL_TOL * max(a, b) + ABS_TOL = max(REL_TOL * a + ABS_TOL, REL_TOL * b + ABS_TOL)
                tol = np.maximum(tlw[i1][:, None], tlw[z::-1][None, :])
            else:  # an infinite or nan price: numerics.tolerance's own rule
                tol = numerics.tolerance(np.maximum(np.abs(l1)[:, None], np.abs(l2)[None, :]), 0.0)
        else:  # line 22/24 as printed: first-slot prices, minus the PS price per moved worker
            fl, fm = q.first_prices(v.srv)
            seq = np.arange(z, -1, -1)
            delta = fl[i1][:, None] - fl[seq][None, :] - fm[i1][:, None]
            scale = np.maximum(np.maximum(np.abs(fl[i1]), np.abs(fm[i1]))[:, None], np.abs(fl[seq])[None, :])
            tol = numerics.tolerance(scale, 0.0)
        if same0:
            delta[0, 0] = 0.0
        # line 22 "Delta <= 0" with numerics tolerance: move unless Delta > REL_TOL * (largest price
        # term of Delta) + ABS_TOL (prices equal up to rounding move, as in exact arithmetic)
        ok_move = delta <= tol
        if same0:
            ok_move[0, 0] = True
        go = np.logical_and.accumulate(ok_move, axis=1)  # line 22 until the first break (30)
        movable = np.where(go, ys_seq[None, :], 0)
        if same0:
            movable[0, 0] = 0
        # line 23: Delta W = min(y', D_u(s_i1)), D_u(s_i1) shrinking as workers arrive (integers)
        moved = np.minimum(np.maximum(room1[:, None] - (np.cumsum(movable, axis=1) - movable), 0), movable)
        c = cost_u + mp[i1] + (delta * moved).sum(axis=1)  # line 20 + line 24
        # [N] a placement that ends with every worker and the PS on s_i1 is COST_C's (xi_j = 1)
        keep = y[i1] + moved.sum(axis=1) < n
        if keep.all():
            costs.append(c)
            ps_pos.append(i1)
            ys.append(moved)
        elif keep.any():
            costs.append(c[keep])
            ps_pos.append(i1[keep])
            ys.append(moved[keep])
    if not costs:
        return None  # lines 34-36
    allc = costs[0] if len(costs) == 1 else np.concatenate(costs)
    # line 37 "sort L by cost, take L_1": costs within numerics tolerance (REL_TOL of the larger)
    # tie; ties -> the first recorded (lines 13-17 in sorted order, then lines 18-33 by i1)
    k = numerics.argmin_1d(allc)
    g = 0
    while k >= len(costs[g]):  # which group
        k -= len(costs[g])
        g += 1
    c_arr, pos, moved = costs[g], ps_pos[g], ys[g]
    yf = y.copy()
    if moved is not None:
        yf[z::-1] -= moved[k]
        yf[pos[k]] += moved[k].sum()
    srv = v.srv
    workers = {int(srv[i]): int(yf[i]) for i in np.flatnonzero(yf)}
    return _Cand(float(c_arr[k]), n, d, "D", workers, {int(srv[pos[k]]): 1})


def _check_job(job) -> None:
    if not isinstance(job, AOnlineJob):
        raise TypeError(f"job must be an AOnlineJob (see aonline_job), got {type(job).__name__}")


def _check_n(job: AOnlineJob, n_workers) -> int:
    n = _pos_int(n_workers, "n_workers")
    if n > job.max_workers:
        raise ValueError(f"n_workers={n} exceeds D_j={job.max_workers} of job {job.job_id} (2a)")
    return n


def cost_c(
    job: AOnlineJob, n_workers: int, state: WindowState, prices: AOnlinePrices, *, order: str = "first_slot"
) -> Candidate | None:
    r"""COST_C (Alg. 3): all ``n_workers`` workers and the PS on one server (:math:`\xi_j = 1`).

    Among the servers the job's data reach in time with ``n_workers`` workers and one PS free in
    every slot of :math:`(\tau_i, c_j]` (line 3), take the first by ``order`` (``"first_slot"``:
    :math:`\lambda(\tau_i)D_u + \mu(\tau_i)` as printed; ``"total"``: the cost itself) and return
    its cost :math:`\sum_{t}(\lambda_{s_1u_j}(t)D_u + \mu_{s_1v_j}(t))` (line 8). None stands for
    the paper's :math:`\infty` (lines 4-5, or :math:`c_j > \tau_{i+1}`).
    """
    _check_job(job)
    _choice(order, ORDERS, "order")
    c = _cost_c(_Quote(job, state, prices), _check_n(job, n_workers), order)
    return None if c is None else c.candidate()


def cost_d(
    job: AOnlineJob,
    n_workers: int,
    state: WindowState,
    prices: AOnlinePrices,
    *,
    order: str = "first_slot",
    move_rule: str = "consistent",
) -> Candidate | None:
    r"""COST_D (Alg. 4): workers spread over the cheapest servers, one PS (:math:`\xi_j = 0`).

    Lines 3-7 fill servers sorted by worker price greedily; lines 13-17 try the PS on a server
    before the last used one :math:`s_z`; lines 18-33 try the PS on :math:`s_{i_1}`, ``i1 >= z``,
    pulling workers from :math:`s_z, s_{z-1}, \dots` onto it while that is not more expensive
    (``move_rule``); the cheapest candidate wins (line 37, ties: first recorded). None stands for
    :math:`\infty`. Fully co-located outcomes are left to COST_C ([N]).

    A server with no worker slot of the job's type (:math:`W_{su_j} = 0`, worker price 0/0) sorts
    as price :math:`+\infty` at line 3: after every server with worker capacity, so among PS
    servers of equal cost it is recorded last (module docstring, [N]). Prices, costs and the
    move test compare with ``numerics.REL_TOL`` (module docstring, "Floating point and ties").
    """
    _check_job(job)
    _choice(order, ORDERS, "order")
    _choice(move_rule, MOVE_RULES, "move_rule")
    c = _cost_d(_Quote(job, state, prices), _check_n(job, n_workers), order, move_rule)
    return None if c is None else c.candidate()


def placement_cost(
    job: AOnlineJob, placement: Placement, duration: int, state: WindowState, prices: AOnlinePrices
) -> float:
    r"""Cost (9) of running ``placement`` over the first ``duration`` window slots:
    :math:`\sum_s\sum_t \lambda_{su_j}(t) y_s + \sum_s\sum_t \mu_{sv_j}(t) z_s` (resource units)."""
    _check_job(job)
    d = _pos_int(duration, "duration")
    if d > state.length:
        raise ValueError(f"duration={d} exceeds the window length {state.length}")
    p = _Quote(job, state, prices).at(d)
    cost = sum(c * job.worker_amount * p.lam[s] for s, c in placement.workers)
    return float(cost + sum(c * job.ps_amount * p.mu[s] for s, c in placement.ps))


def placement_fits(job: AOnlineJob, placement: Placement, duration: int, state: WindowState) -> bool:
    """(9a)-(9b), (2a)-(2b) and data readiness of ``placement`` over the first ``duration`` slots."""
    _check_job(job)
    d = _pos_int(duration, "duration")
    if d > state.length or placement.n_ps != 1 or not 1 <= placement.n_workers <= job.max_workers:
        return False
    used = state.dense()[:, :, :d]
    for s, c in placement.workers:
        if not job.ready_w[s]:
            return False
        if np.any(used[s, job.worker_res] + c * job.worker_amount > state.capacity[s, job.worker_res] + _EPS):
            return False
    for s, c in placement.ps:
        if not job.ready_p[s]:
            return False
        if np.any(used[s, job.ps_res] + c * job.ps_amount > state.capacity[s, job.ps_res] + _EPS):
            return False
    return True


# ------------------------------------------------------------------------------ A_maxsche


@dataclass(frozen=True, eq=False)
class MaxscheResult:
    """Output of :func:`maxsche`.

    Attributes
    ----------
    admitted : dict[int, Candidate]
        :math:`J_i^s` with the chosen schedule :math:`l^*` of each, in admission order.
    eta : dict[int, float]
        :math:`\\eta_j` of every job considered (0 when no schedule had a positive payoff).
    best : dict[int, Candidate | None]
        The best candidate of every job (also of those not admitted; None: no feasible one).
    state : WindowState
        Usage after the admissions (the input state is not modified).
    evaluations : int
        Number of COST_C + COST_D evaluations.
    """

    admitted: dict[int, Candidate]
    eta: dict[int, float]
    best: dict[int, Candidate | None]
    state: WindowState
    evaluations: int = 0


def maxsche(
    jobs: Sequence[AOnlineJob],
    state: WindowState,
    prices: AOnlinePrices,
    *,
    order: str = "first_slot",
    move_rule: str = "consistent",
    prune: bool = True,
    ties: str = "first",
) -> MaxscheResult:
    r"""A_maxsche (Alg. 2) on an explicit window state; ``jobs`` in the order to consider them.

    ``ties``: ``"first"`` is line 11 as printed (strict ``>``: among equal payoffs the smallest
    :math:`D_u` stays, so on free capacity, where every cost is 0, a job gets the fewest workers
    that finish by :math:`\tau_{i+1}`); ``"fastest"`` (ours) keeps, among equal payoffs, the
    candidate with the earliest completion :math:`c_j` (the objective (2) is completion time).
    Payoffs and costs within ``numerics.REL_TOL`` (of :math:`\max(|w_j|, \text{cost})`) are equal:
    a payoff within it of 0 is not admitted, a cost_d within it of COST_C's leaves COST_C, an
    :math:`\eta` within it of :math:`\eta_j` is a tie (module docstring, "Floating point and ties").

    ``prune`` skips evaluations that cannot change the result (same output, checked in tests):
    with non-negative prices (corrected reading) and the consistent move rule a job's cost is
    :math:`\ge 0`, so the :math:`D_u` loop stops once :math:`\eta_j = w_j` (cost 0); COST_D is skipped when a
    lower bound of its cost is already :math:`\ge` COST_C's (line 7 needs ``cost_d < cost``).

    Speed without changing a value: COST_C of every :math:`D_u` of a job and COST_D's lower
    bounds are computed at once (the same elementwise arithmetic and tie rules as one by one),
    COST_D's line-3 order is sorted once per job, the jobs that see the same window state share
    its prices (7)-(8), and a :class:`Candidate` is built only for the chosen schedules
    (``tests/test_aonline_speed.py`` checks the results against the one-by-one evaluation).
    """
    _choice(order, ORDERS, "order")
    _choice(move_rule, MOVE_RULES, "move_rule")
    _choice(ties, TIES, "ties")
    state = state.copy()
    admitted: dict[int, Candidate] = {}
    etas: dict[int, float] = {}
    bests: dict[int, Candidate | None] = {}
    exact_bounds = prune and move_rule == "consistent"
    stop_at_one = exact_bounds and prices.nonnegative and ties == "first"
    evals = 0
    shared: dict = {}  # per-resource prices of the current state (_Quote), emptied at each commit
    rel, abs_ = numerics.REL_TOL, numerics.ABS_TOL
    for job in jobs:  # line 2 ([N] arrival order)
        _check_job(job)
        q = _Quote(job, state, prices, shared)
        eta_j, best = 0.0, None  # [N] eta_j = 0 per job
        top, top_eta = None, -INF  # best candidate even when eta <= 0 (reported, not admitted)
        # line 4 ([R] the redundant c_j loop of line 3 dropped); D_u below n_min cannot finish by
        # tau_{i+1} even co-located (the faster speed), so both subroutines would return infinity
        n_min = max(1, math.ceil(job.work / (job.speed_c * state.length) - _EPS))
        ns = range(n_min, job.max_workers + 1)
        cs = q.costs_c(ns, order)  # line 5 for every D_u at once (_cost_c's values)
        dstack = q._d_stack(ns)
        lbs = q.lower_bounds_d(ns, dstack) if exact_bounds else None
        q.prefetch_d(dstack, order)  # line 3 of COST_D for every D_u at once
        w = job.weight
        plain = type(w) is float  # tolerances of Python floats below: numerics.tolerance's formula
        for i, n in enumerate(ns):
            c = cs[i]  # line 5
            evals += 1
            if exact_bounds and c is not None and c.cost <= lbs[i]:
                dd = None  # COST_D cannot be strictly cheaper (line 7)
            else:
                dd = _cost_d(q, n, order, move_rule)  # line 6
                evals += 1
            cand = c
            # lines 7-9 read as min(cost, cost_d): cost_d < cost by more than numerics tolerance
            # (REL_TOL of the larger cost); ties -> COST_C
            if dd is not None:
                if c is None:
                    cand = dd
                else:
                    a, b = dd.cost, c.cost  # numerics.less(a, b) on Python floats
                    m = max(abs(b), abs(a))
                    if b > a and not abs(b - a) <= rel * (m if math.isfinite(m) else 0.0) + abs_:
                        cand = dd
            if cand is None:
                continue
            eta = w - cand.cost  # line 10 ([N] the "1" is the job weight w_j, 1 in the paper)
            scale = max(abs(w), abs(cand.cost))  # the magnitudes eta is computed from
            # reported only (not admitted)
            if top is None:
                top, top_eta = cand, eta
            else:
                if plain:
                    m = max(abs(scale), abs(top.cost))
                    tol = rel * (m if math.isfinite(m) else 0.0) + abs_
                else:
                    tol = numerics.tolerance(scale, top.cost)
                if eta - top_eta > tol:
                    top, top_eta = cand, eta
            # lines 11-12 and 15: eta_jl > eta_j (eta_j = 0 at first, so the first admissible payoff
            # must be > 0) by more than numerics tolerance, REL_TOL of max(|w_j|, |cost|, |cost of
            # l*|); ties -> the earlier candidate (smaller D_u) stays
            ref = 0.0 if best is None else best.cost
            if plain:
                m = max(abs(scale), abs(ref))
                tol = rel * (m if math.isfinite(m) else 0.0) + abs_
            else:
                tol = numerics.tolerance(scale, ref)
            if eta - eta_j > tol:
                eta_j, best = eta, cand
            elif ties == "fastest" and best is not None and eta_j - eta <= tol:
                if cand.duration < best.duration:  # [N] ours: an equal payoff (within tol of eta_j)
                    best = cand  # that completes earlier
            if stop_at_one and eta_j >= w:
                break
        chosen = best.candidate() if best is not None else None
        bests[job.job_id] = chosen if best is not None else (top.candidate() if top is not None else None)
        etas[job.job_id] = eta_j
        if chosen is not None:  # lines 15-19 (eta_j > 0), once per job after every D_u ([R])
            admitted[job.job_id] = chosen
            _commit(state, job, chosen)
            shared.clear()
    return MaxscheResult(admitted, etas, bests, state, evals)


def _commit(state: WindowState, job: AOnlineJob, cand: Candidate) -> None:
    """Alg. 2 lines 17-18 (with :math:`l^*`): add the schedule to :math:`f` and :math:`g`; prices
    follow from the usage when next read."""
    for s, c in cand.placement.workers:
        state.add(s, job.worker_res, c * job.worker_amount, 0, cand.duration)
    for s, c in cand.placement.ps:
        state.add(s, job.ps_res, c * job.ps_amount, 0, cand.duration)


# --------------------------------------------------------------------------------- the policy


@dataclass(frozen=True)
class Plan:
    """A scheduled job: fixed ``placement`` from slot ``start`` (:math:`\\tau_i`) to its planned
    completion ``end`` (:math:`c_j = \\tau_i + d_j \\le \\tau_{i+1}`), decided in ``round``."""

    placement: Placement
    start: int
    end: int
    round: int
    eta: float


@dataclass(frozen=True)
class RoundRecord:
    """One call of A_maxsche: round ``i``, :math:`\\tau_i`, :math:`\\tau_{i+1}`, the jobs
    considered (:math:`J_i`) and admitted (:math:`J_i^s`), the bases used, the wall time, the
    number of COST_C/COST_D evaluations and the jobs of earlier rounds still running (``carried``,
    empty unless a completion slipped past :math:`\\tau_{i+1}` by floating-point slack)."""

    round: int
    tau: int
    window_end: int
    considered: tuple[int, ...]
    admitted: tuple[int, ...]
    theta1: float
    theta2: float
    seconds: float
    evaluations: int = 0
    carried: tuple[int, ...] = ()


class AOnline(BasePolicy):
    r"""A_online (Alg. 1) with A_maxsche (Alg. 2), COST_C (Alg. 3), COST_D (Alg. 4), prices (7)-(8).

    Parameters
    ----------
    F1, F2 : float, default 1.0
        :math:`F_1`, :math:`F_2`, upper bounds of the unit worker / PS price (> 0). The paper
        estimates them "from historical experiments" and gives no value; 1 (the job weight) is ours.
    theta1, theta2 : float, optional
        Override the bases :math:`\theta_1 = 2TSUF_1+1`, :math:`\theta_2 = 2TSVF_2+1` (> 1).
    price_reading : {"corrected", "literal"}, default "corrected"
        (7)-(8) as :math:`\theta^{f/W}-1` (spec [R]) or as printed, :math:`\theta f/W - 1`.
    T : int, optional
        :math:`T` (number of slots) in :math:`\theta`. Default (our reading): the workload's
        ``params["T"]`` or horizon (:meth:`from_workload`), else the simulation's horizon, else
        :math:`\tau_{i+1}` of the current round (the slots known so far).
    U, V : int, optional
        Numbers of worker / PS types in :math:`\theta`. Default: the workload's ``params["U"]``,
        ``params["V"]`` or the distinct worker / PS resources of its jobs (:meth:`from_workload`),
        else those of the jobs seen so far.
    order : {"first_slot", "total"}, default "first_slot"
        Server sort key of Alg. 3 line 3 and Alg. 4 line 3 (paper: first-slot prices).
    move_rule : {"consistent", "literal"}, default "consistent"
        Worker-move test of Alg. 4 lines 22-24 (spec [R] vs printed).
    data_ready : {"strict", "inclusive"}, default "strict"
        :math:`a_j + \Delta_{js} < \tau_i` (paper) or :math:`\le` (the simulator's (2i)).
    use_weights : bool, default True
        :math:`\eta_{jl} = w_j - \text{cost}` with the job model's ``weight`` (1 unless the
        workload sets weights, Figs. 5-6); False uses 1 for every job as printed (line 10).
    ties : {"first", "fastest"}, default "first"
        Alg. 2 line 11 among equal payoffs: the printed strict ``>`` keeps the smallest
        :math:`D_u`; ``"fastest"`` (ours) keeps the candidate that completes first (:func:`maxsche`).

    Notes
    -----
    Per-job results in the job table: ``first_considered`` (:math:`\tau_i` of the first round
    that saw the job), and at admission ``round``, ``tau``, ``eta``, ``planned_completion``
    (:math:`c_j`, continuous time), ``workers`` (:math:`D_u`) and ``colocated`` (:math:`\xi_j`).
    :attr:`rounds` holds one :class:`RoundRecord` per A_maxsche call, :attr:`plans` the plans.
    """

    name: ClassVar[str] = "aonline"

    def __init__(
        self,
        F1: float = 1.0,
        F2: float = 1.0,
        theta1: float | None = None,
        theta2: float | None = None,
        price_reading: str = "corrected",
        T: int | None = None,
        U: int | None = None,
        V: int | None = None,
        order: str = "first_slot",
        move_rule: str = "consistent",
        data_ready: str = "strict",
        use_weights: bool = True,
        ties: str = "first",
    ):
        self.F1 = _pos_float(F1, "aonline.F1")
        self.F2 = _pos_float(F2, "aonline.F2")
        self.theta1 = _pos_float(theta1, "aonline.theta1", above=1.0, allow_none=True)
        self.theta2 = _pos_float(theta2, "aonline.theta2", above=1.0, allow_none=True)
        self.price_reading = _choice(price_reading, PRICE_READINGS, "aonline.price_reading")
        self.T = _pos_int(T, "aonline.T", allow_none=True)
        self.U = _pos_int(U, "aonline.U", allow_none=True)
        self.V = _pos_int(V, "aonline.V", allow_none=True)
        self.order = _choice(order, ORDERS, "aonline.order")
        self.move_rule = _choice(move_rule, MOVE_RULES, "aonline.move_rule")
        self.data_ready = _choice(data_ready, DATA_READY, "aonline.data_ready")
        if not isinstance(use_weights, (bool, np.bool_)):
            raise ValueError(f"aonline.use_weights must be a bool, got {use_weights!r}")
        self.use_weights = bool(use_weights)
        self.ties = _choice(ties, TIES, "aonline.ties")

    @classmethod
    def from_workload(cls, workload: Workload, **params) -> AOnline:
        r"""A_online with the workload's :math:`T`, :math:`U`, :math:`V` (unless given in ``params``):
        ``workload.params["T"]`` (else its horizon), ``params["U"]``/``["V"]`` (else the numbers of
        distinct worker / PS resources its jobs name)."""
        cluster = workload.cluster
        types = [job_types(s, cluster) for s in workload.jobs]
        wp = workload.params
        if params.get("T") is None:
            params["T"] = wp.get("T", workload.horizon)
        if params.get("U") is None:
            params["U"] = wp.get("U", len({t[0] for t in types}) or None)
        if params.get("V") is None:
            params["V"] = wp.get("V", len({t[1] for t in types}) or None)
        return cls(**params)

    # ------------------------------------------------------------------ state
    def reset(self, cluster: Cluster, rng) -> None:
        super().reset(cluster, rng)
        self.plans: dict[int, Plan] = {}
        self.rounds: list[RoundRecord] = []
        self._done: set[int] = set()
        self._seen: set[int] = set()
        self._worker_types: set[int] = set()
        self._ps_types: set[int] = set()

    def prices_for(self, tau: int, horizon: int | None = None) -> AOnlinePrices:
        r"""The price functions (7)-(8) of the round decided at ``tau`` (``horizon``: the
        simulation's, used for :math:`T` when the policy has none)."""
        i = round_at(tau)
        if i is None:
            raise ValueError(f"tau must be a time point 2^(i-1), got {tau!r}")
        T = self.T or horizon or time_point(i + 1)
        S = self.cluster.n_servers  # edge servers + the cloud
        U = self.U or max(1, len(self._worker_types))
        V = self.V or max(1, len(self._ps_types))
        t1 = self.theta1 if self.theta1 is not None else theta(T, S, U, self.F1)
        t2 = self.theta2 if self.theta2 is not None else theta(T, S, V, self.F2)
        return AOnlinePrices(t1, t2, self.price_reading)

    def decide(self, t: int, view: ClusterView) -> Decision:
        admit: list[int] = []
        info: dict[int, dict[str, float]] = {}
        i = round_at(t)
        if i is not None and i not in self._done:  # Alg. 1 line 6: t = tau_i
            self._done.add(i)
            admit = self._round(i, t, view, info)
        for j in [j for j in self.plans if j not in view.jobs]:  # finished
            del self.plans[j]
        allocs = {j: p.placement for j, p in self.plans.items() if p.start <= t}
        waiting = any(v.status == "pending" and v.job_id not in admit for v in view.jobs.values())
        wakeup = next_time_point(t) if waiting else None
        return Decision(allocs, admit=admit, wakeup=wakeup, info=info)

    def _round(self, i: int, tau: int, view: ClusterView, info: dict) -> list[int]:
        start = time.perf_counter()
        end = time_point(i + 1)
        if end > LAST_SLOT:
            waiting = sum(1 for v in view.jobs.values() if v.status == "pending")
            raise ValueError(
                f"aonline: round i={i} (tau_i = 2^{i - 1}) would plan past slot 2^62 with {waiting} "
                "job(s) still waiting: a job a round does not admit (payoff not positive, data not "
                "ready) waits for the next round, twice as late, so this workload does not finish "
                "within 64-bit slots; run fewer jobs, a larger cluster or a horizon"
            )
        # every job of round i - 1 completes by tau_i by construction ([N]: rounds do not overlap,
        # so line 1's price reset is sound); a job still running (floating-point slack only) keeps
        # its fixed allocation and, conservatively, its resources for the whole new window
        carried = [j for j, v in view.jobs.items() if v.status == "admitted"]
        # Alg. 1 lines 3-5 and 11: J_i = arrived before tau_i, not yet scheduled, arrival order
        batch = [v.spec for v in view.pending() if v.spec.arrival < tau]
        jobs = [
            aonline_job(s, self.cluster, tau, data_ready=self.data_ready, use_weights=self.use_weights)
            for s in batch
        ]
        for jb in jobs:
            self._worker_types.add(jb.worker_res)
            self._ps_types.add(jb.ps_res)
            if jb.job_id not in self._seen:
                self._seen.add(jb.job_id)
                info.setdefault(jb.job_id, {})["first_considered"] = float(tau)
        prices = self.prices_for(tau, view.horizon)
        state = WindowState.empty(self.cluster.capacity, end - tau)
        for j in carried:
            spec, pl = view.jobs[j].spec, view.jobs[j].placement
            wd, pd_ = self.cluster.vector(spec.worker_demand), self.cluster.vector(spec.ps_demand)
            for role, demand in ((pl.workers, wd), (pl.ps, pd_)):
                for s, c in role:
                    for r in np.flatnonzero(demand):
                        state.add(s, int(r), c * demand[r], 0, end - tau)
        res = maxsche(
            jobs,
            state,
            prices,
            order=self.order,
            move_rule=self.move_rule,  # line 7
            ties=self.ties,
        )
        for j, cand in res.admitted.items():  # lines 8-10: run from tau_i with the fixed allocation
            self.plans[j] = Plan(cand.placement, tau, tau + cand.duration, i, res.eta[j])
            info.setdefault(j, {}).update(
                {
                    "round": float(i),
                    "tau": float(tau),
                    "eta": res.eta[j],
                    "planned_completion": float(tau + cand.duration),
                    "workers": float(cand.n_workers),
                    "colocated": float(cand.colocated),
                }
            )
        self.rounds.append(
            RoundRecord(
                i,
                tau,
                end,
                tuple(jb.job_id for jb in jobs),
                tuple(res.admitted),
                prices.theta1,
                prices.theta2,
                time.perf_counter() - start,
                res.evaluations,
                tuple(carried),
            )
        )
        return list(res.admitted)


def next_time_point(t: int) -> int:
    r"""The smallest :math:`\tau_i > t` (``i >= 1``)."""
    return time_point(first_round(t))


__all__ = [
    "LAST_SLOT",
    "AOnline",
    "AOnlineJob",
    "AOnlinePrices",
    "Candidate",
    "MaxscheResult",
    "Plan",
    "RoundRecord",
    "WindowState",
    "aonline_job",
    "cost_c",
    "cost_d",
    "first_round",
    "job_types",
    "maxsche",
    "next_time_point",
    "placement_cost",
    "placement_fits",
    "price",
    "round_at",
    "theta",
    "time_point",
]
