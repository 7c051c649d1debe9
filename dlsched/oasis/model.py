r"""OASiS workloads: the simulation setting of Sec. V-A and the testbed setting of Sec. V-B.

Y. Bao, Y. Peng, C. Wu, Z. Li, "Online Job Scheduling in Distributed Machine Learning Clusters",
IEEE INFOCOM 2018 (arXiv:1801.00936), Sec. V; ``shared/spec/oasis.md`` sections 2, 11.1 and 11.4.
The job model itself is :class:`dlsched.core.jobs.OasisModel` (Sec. III-B): a worker needs
:math:`\tau_i + 2e_i/b_i` slots per mini-batch, a job :math:`E_iN_iM_i` mini-batches with at most
:math:`N_i` workers at a time.

Public pieces:

* :data:`GOOGLE_HOURLY_PROFILE` and :func:`google_arrivals` -- the diurnal arrival pattern of the
  Google 2011 cluster trace that Sec. V-A says arrivals follow.
* :func:`oasis_workload` -- Sec. V-A (Figs. 3-6), registered as ``"oasis"``.
* :func:`testbed_workload` -- Sec. V-B (Figs. 8-9), registered as ``"oasis_testbed"``.
* :func:`min_durations`, :func:`unschedulable_fraction` -- how many jobs the chosen reading of
  :math:`\tau_i` leaves without any feasible schedule.

Sampling (Sec. V-A gives ranges only, [N] in the spec): counts (GPUs, vCPUs, :math:`E,N,M`, the fixed
worker count) are uniform integers over the closed range; memory and storage demands are uniform
whole GB; bandwidths, :math:`\tau_i`, :math:`e_i`, :math:`\gamma_1,\gamma_2,\gamma_3` are uniform
reals. Every job draws its utility class independently with probabilities ``mix``
(time-insensitive :math:`\gamma_2=0`, time-sensitive :math:`\gamma_2\sim U[0.01,1]`,
time-critical :math:`\gamma_2\sim U[4,6]`). Units: MB = :math:`10^6` bytes, Gbps = :math:`10^9`
bit/s, so :math:`e_i/b_i` in seconds is ``e_MB * 8 / (b_Gbps * 1000)``.

The reading of :math:`\tau_i` (spec 11.1 [N] notes)
---------------------------------------------------
The paper gives :math:`\tau_i\in[0.001, 0.1]` "time slots" and never states the slot length of the
simulation. Two readings are available through ``reading=``:

* ``"seconds"`` (default): :math:`\tau_i` is in seconds; with ``slot_seconds`` = 3600 (the paper:
  "one time slot can be 1 hour or longer") ``tau = tau_s / 3600`` and
  ``comm = (e_i/b_i in s) / 3600`` slots.
* ``"literal"``: :math:`\tau_i` in slots as printed; ``comm`` is still converted from seconds.

Measured on the 2,000 jobs of ``oasis_workload(np.random.default_rng(0), n_jobs=2000, reading=...)``
(other parameters at their defaults; both readings draw the same jobs).
:math:`d^{min}_i=\lceil E_iM_i(\tau_i+2e_i/b_i)\rceil` is the shortest completion (:math:`N_i`
workers in every slot); "never schedulable" is :math:`\lceil M_i(\tau_i+2e_i/b_i)\rceil > N_i`:
Algorithm 2 cannot deploy even one chunk-pass in a slot (spec 11.1 [N]); "late at T=100" also
counts the arrival, :math:`a_i+d^{min}_i>100` (:func:`unschedulable_fraction`):

========  ====================================  =======  =======  =======  ===========  =======
reading   :math:`d^{min}` (slots): p5 / p25 /    > 100    > 300    <= 15    never        late at
          median / p75 / p95 / max               slots    slots    slots    schedulable  T=100
========  ====================================  =======  =======  =======  ===========  =======
seconds   1 / 2 / 4 / 8 / 30 / 229              0.55 %   0.00 %   89.2 %   0.00 %       7.25 %
literal   28 / 112 / 248 / 489 / 1030 / 1728    77.80 %  44.65 %  2.1 %    0.15 %       89.05 %
========  ====================================  =======  =======  =======  ===========  =======

(:math:`e_i/b_i` alone is 0.05-39 s, median 0.98 s; it dominates :math:`\tau_i` under
``"seconds"``.) On ``oasis_workload(default_rng(0))`` (100 jobs, T = 100) OASiS admits 63 jobs
(total utility 1,266) under ``"seconds"`` and 7 jobs (total utility 0.11) under ``"literal"``.

Why ``"seconds"`` is the default: under the literal reading the median job needs 248 slots even
with all :math:`N_i` workers, 78 % of the jobs cannot finish within :math:`T=100` and 45 % not
within :math:`T=300`, so most jobs are rejected for lack of time alone, and neither the utilities
of Fig. 3 (about 20 per job on a :math:`\gamma_1` scale of 1-100) nor the completion-minus-target
spreads of Fig. 4 (targets :math:`\gamma_3\in[1,15]` slots) could arise. Under ``"seconds"``
89 % of the jobs can finish within 15 slots (median 4), matching the :math:`\gamma_3` range; a
chunk takes far less than a slot, as Sec. IV-C assumes; the paper's own example (about 1 s per
ResNet-152 mini-batch) lies in the range; and no job is unschedulable by Algorithm 2. The
literal reading stays available (``reading="literal"``) for comparison.

Cluster (Sec. V-A, spec 11.1 [T/N]): the text gives C4 capacities to the worker servers and P2/G3
(GPU) capacities to the PS servers, but only workers demand GPUs, so the roles are swapped here:
each of the ``H`` worker servers is a P2 or G3 instance chosen uniformly at random from
``worker_types``; each of the ``K`` PS servers is a c4.8xlarge (the only C4 size with enough memory
for a 32 GB PS). Capacities are those of the public EC2 instance tables (:data:`EC2_INSTANCES`;
GiB used as GB); these instances are EBS-only, so local storage is our assumption
(``storage_gb`` = 1000 GB per server). Server bandwidth is uniform in [20, 50] Gbps as in the paper.

Arrivals: over the slots ``0..T-1`` (``arrival_span``), following :func:`google_arrivals` with
slot 0 at local midnight and ``3600 / slot_seconds`` slots per hour.

Caveat for the price parameters (25)-(26): a time-critical job (:math:`\gamma_2\ge 4`) has
:math:`f_i(T-a_i)=\gamma_1/(1+e^{\gamma_2(T-a_i-\gamma_3)})`, about :math:`10^{-219}` at
:math:`T-a_i=100` and exactly 0.0 in double precision once :math:`\gamma_2(T-a_i-\gamma_3)>709`
(e.g. :math:`T=300`), so :math:`L_1, L_2` computed literally are 0 or astronomically small.

Testbed (Sec. V-B, :func:`testbed_workload`): every assumption is listed in that function's
docstring and in :data:`TESTBED_MODELS`; in short, 9 hosts with 10 Gbps each, containers as in the
paper, jobs of 200 images with 20 or 30 images per chunk, ``tau`` calibrated so that every job
takes 40 min to 2 h at full parallelism (:math:`N_i` workers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from dlsched.core.cluster import Cluster
from dlsched.core.instances import EC2_INSTANCES
from dlsched.core.jobs import JobSpec, OasisModel, Sigmoid, Workload

# ------------------------------------------------------------------------------- Google profile

GOOGLE_HOURLY_PROFILE: tuple[float, ...] = (
    1.2935, 1.0235, 0.9819, 0.9587, 1.1536, 0.8624, 0.8086, 0.8735,
    0.9426, 0.9406, 1.0268, 1.0274, 0.9846, 0.9589, 0.9240, 1.0566,
    1.1705, 1.1601, 1.0754, 1.0581, 1.0156, 0.9816, 0.8845, 0.8371,
)  # fmt: skip
"""Relative job-submission rate per local hour of day (entry 0 = 00:00-01:00 US Eastern) of the
Google 2011 cluster trace (C. Reiss, J. Wilkes, J. L. Hellerstein, "Google cluster-usage traces:
format + schema", Google Inc., 2011; clusterdata-2011-2, all 29 days), mean 1, rounded to 4
decimals. Derived with :func:`dlsched.traces.google_hour_of_day_profile` from
``google2011/google2011_hourly_submits_all29days.csv`` (mean submissions per fully observed hour,
by local hour; see that function for the time-zone alignment)."""

ARRIVAL_PATTERNS: tuple[str, ...] = ("google", "uniform")
"""Valid ``arrivals=`` values: the Google diurnal pattern, or uniform over the arrival slots."""

READINGS: tuple[str, ...] = ("seconds", "literal")
"""Valid ``reading=`` values (see the module docstring)."""

UTILITY_CLASSES: tuple[str, ...] = ("time-insensitive", "time-sensitive", "time-critical")
"""Utility classes of Sec. V-A, in the order of ``mix``."""

# ----------------------------------------------------------------------------- Sec. V-A ranges

WORKER_TYPES: tuple[str, ...] = (
    "p2.xlarge", "p2.8xlarge", "p2.16xlarge", "g3.4xlarge", "g3.8xlarge", "g3.16xlarge",
)  # fmt: skip
"""Default instance types of the worker servers (one drawn uniformly per server)."""

RESOURCES: tuple[str, ...] = ("gpu", "cpu", "mem", "storage", "bandwidth")
"""Resource types of both workloads (GPUs, vCPUs or cores, GB, GB, Gbps)."""

SERVER_BANDWIDTH_GBPS = (20.0, 50.0)
WORKER_GPU = (0, 4)
WORKER_CPU = (1, 10)
WORKER_MEM_GB = (2, 32)
WORKER_STORAGE_GB = (5, 10)
WORKER_BANDWIDTH_GBPS = (0.1, 5.0)
PS_CPU = (1, 10)
PS_MEM_GB = (2, 32)
PS_STORAGE_GB = (5, 10)
PS_BANDWIDTH_GBPS = (5.0, 20.0)
EPOCHS = (50, 200)
CHUNKS = (5, 100)
MINIBATCHES = (10, 100)
TAU = (0.001, 0.1)
GRADIENT_MB = (30.0, 575.0)
GAMMA2_SENSITIVE = (0.01, 1.0)
GAMMA2_CRITICAL = (4.0, 6.0)

# ---------------------------------------------------------------------------- Sec. V-B testbed

TESTBED_MODELS: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        "AlexNet": (60.0, 233.0),
        "Inception-BN": (75.0, 45.0),
        "ResNet-50": (90.0, 98.0),
        "ResNet-101": (110.0, 170.0),
        "VGG-11": (120.0, 507.0),
        "ResNet-152": (130.0, 230.0),
    }
)
r"""Testbed models: ``name -> (tau seconds per 10-image mini-batch, parameter size MB)``.

Parameter sizes are the fp32 sizes of the standard ImageNet models (61.1 M, 11.3 M, 25.6 M,
44.5 M, 132.9 M, 60.2 M parameters). The ``tau`` values are OUR ASSUMPTION, calibrated, not
measured: the paper's jobs (at most 30 epochs x 200 images) run 40 min to 2 h, which needs
:math:`E_iM_i(\tau_i+2e_i/b_i)` of 2,400-7,200 s with only :math:`E_iM_i\le 90` sequential
mini-batches per worker, i.e. 27-900 s per mini-batch. Physical GPU compute times (a few tenths
of a second per 10 images) would give jobs of a few seconds to 13 min; the paper's durations must
include overheads the model has no term for (CPU-only containers -- the testbed has 4 GPUs for 12
jobs --, MXNet start-up, HDFS chunk fetches), so they are folded into ``tau``, ordered by the
models' compute cost.
Pass ``models=`` to :func:`testbed_workload` to use other values."""


# ----------------------------------------------------------------------------------- validation


def _int_param(value, what: str, lo: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _real(value, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return x


def _pos_param(value, what: str) -> float:
    x = _real(value, what)
    if x <= 0:
        raise ValueError(f"{what} must be a finite number > 0, got {value!r}")
    return x


def _pair(value, what: str, *, lo: float = 0.0, strict: bool = False) -> tuple[float, float]:
    """A range ``(low, high)`` with ``lo <= low <= high`` (``lo < low`` when ``strict``)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"{what} must be a pair (low, high), got {value!r}")
    a, b = (_real(v, what) for v in value)
    if (a <= lo if strict else a < lo) or b < a:
        cmp = ">" if strict else ">="
        raise ValueError(
            f"{what} must satisfy {lo:g} {'<' if strict else '<='} low <= high "
            f"(low {cmp} {lo:g}), got {value!r}"
        )
    return a, b


def _int_pair(value, what: str, lo: int = 1) -> tuple[int, int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"{what} must be a pair of integers (low, high), got {value!r}")
    a, b = value
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) for v in (a, b)):
        raise ValueError(f"{what} must be a pair of integers (low, high), got {value!r}")
    if a < lo or b < a:
        raise ValueError(f"{what} must satisfy {lo} <= low <= high, got {value!r}")
    return int(a), int(b)


def _mix(value, what: str = "mix") -> np.ndarray:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 3:
        raise ValueError(
            f"{what} must be three probabilities (insensitive, sensitive, critical), got {value!r}"
        )
    p = np.array([_real(v, what) for v in value])
    if (p < 0).any() or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"{what} must be non-negative and sum to 1, got {value!r}")
    return p


def _choice(value, what: str, valid: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in valid:
        raise ValueError(f"{what} must be one of {tuple(valid)}, got {value!r}")
    return value


def _profile(profile) -> np.ndarray:
    try:
        p = np.asarray(profile, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"profile must be 24 non-negative numbers, got {profile!r}") from None
    if p.shape != (24,) or not np.isfinite(p).all() or (p < 0).any() or p.sum() <= 0:
        raise ValueError(f"profile must be 24 finite non-negative numbers, not all 0, got {profile!r}")
    return p / p.mean()


# ------------------------------------------------------------------------------------- arrivals


def slot_intensity(
    T: int,
    *,
    profile: Sequence[float] = GOOGLE_HOURLY_PROFILE,
    slots_per_hour: float = 1.0,
    start_hour: float = 0.0,
) -> np.ndarray:
    """Relative arrival intensity of each slot ``0..T-1`` (mean 1 over whole days).

    Slot ``t`` covers the local hours ``[start_hour + t/slots_per_hour, start_hour +
    (t+1)/slots_per_hour)`` (hour ``x`` is hour of day ``floor(x) mod 24``); its intensity is the
    mean of the piecewise-constant ``profile`` over that interval, so slots shorter or longer
    than an hour are both handled exactly.

    Parameters
    ----------
    T : int
        Number of slots.
    profile : sequence of 24 float
        Relative rate per hour of day (normalized here to mean 1).
    slots_per_hour : float
        Slots per hour (1 for 1-hour slots, 3 for 20-minute slots, 1/24 for day-long slots).
    start_hour : float
        Local time (hours, may be fractional) at which slot 0 starts.

    Returns
    -------
    numpy.ndarray
        Shape (T,), float64.

    Raises
    ------
    ValueError
        On ``T < 1``, a bad profile, ``slots_per_hour <= 0`` or a non-finite ``start_hour``.
    """
    T = _int_param(T, "T")
    p = _profile(profile)
    sph = _pos_param(slots_per_hour, "slots_per_hour")
    h0 = _real(start_hour, "start_hour")
    cum = np.concatenate([[0.0], np.cumsum(p)])

    def integral(x: np.ndarray) -> np.ndarray:  # integral of the profile over [0, x] hours
        days, rest = np.divmod(x, 24.0)
        k = np.minimum(np.floor(rest).astype(np.int64), 23)
        return days * cum[24] + cum[k] + (rest - k) * p[k]

    edges = h0 + np.arange(T + 1) / sph
    return np.diff(integral(edges)) * sph


def google_arrivals(
    rng: np.random.Generator,
    n_jobs: int | None,
    T: int,
    *,
    rate: float | None = None,
    profile: Sequence[float] = GOOGLE_HOURLY_PROFILE,
    slots_per_hour: float = 1.0,
    start_hour: float = 0.0,
) -> np.ndarray:
    """Arrival slots following the Google 2011 diurnal submission pattern (Sec. V-A).

    An inhomogeneous Poisson process whose intensity in slot ``t`` is ``rate *
    slot_intensity(t)`` (see :func:`slot_intensity` for the slot -> hour-of-day mapping; by default
    slot ``t`` is local hour ``t mod 24``). Given ``n_jobs``, the process is conditioned on
    ``n_jobs`` arrivals: each job's slot is drawn independently with probability proportional to
    the slot's intensity. Given ``rate`` instead, each slot receives a Poisson number of jobs.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_jobs : int or None
        Number of arrivals (>= 1); None when ``rate`` is given.
    T : int
        Arrival slots are ``0..T-1``.
    rate : float, optional
        Mean arrivals per slot averaged over a day (> 0); the alternative to ``n_jobs``.
    profile : sequence of 24 float
        Relative rate per local hour of day; default :data:`GOOGLE_HOURLY_PROFILE`.
    slots_per_hour : float
        Slots per hour (3 for the testbed's 20-minute slots).
    start_hour : float
        Local hour of day at which slot 0 starts.

    Returns
    -------
    numpy.ndarray
        Sorted int64 arrival slots in ``[0, T-1]`` (length ``n_jobs``, or Poisson with ``rate``).

    Raises
    ------
    ValueError
        If both or neither of ``n_jobs`` and ``rate`` are given, or on a bad value of any parameter.
    """
    T = _int_param(T, "T")
    w = slot_intensity(T, profile=profile, slots_per_hour=slots_per_hour, start_hour=start_hour)
    if (n_jobs is None) == (rate is None):
        raise ValueError(f"give exactly one of n_jobs and rate, got n_jobs={n_jobs!r}, rate={rate!r}")
    if rate is not None:
        r = _pos_param(rate, "rate")
        counts = rng.poisson(r * w)
        return np.repeat(np.arange(T, dtype=np.int64), counts)
    n = _int_param(n_jobs, "n_jobs")
    if w.sum() <= 0:
        raise ValueError("profile is zero over all T slots: no arrival is possible")
    slots = rng.choice(T, size=n, p=w / w.sum())
    return np.sort(slots).astype(np.int64)


def _arrivals(rng, pattern: str, n: int, span: int, slot_seconds: float) -> np.ndarray:
    if pattern == "google":
        return google_arrivals(rng, n, span, slots_per_hour=3600.0 / slot_seconds)
    return np.sort(rng.integers(0, span, n)).astype(np.int64)


# ---------------------------------------------------------------------------------------- utility


def utility_classes(gamma2) -> np.ndarray:
    r"""Utility class of each :math:`\gamma_2` (Sec. V-A): 0 -> time-insensitive, <= 1 ->
    time-sensitive, otherwise time-critical.

    Parameters
    ----------
    gamma2 : array-like of float
        For example ``workload.jobs_frame()["utility_gamma2"]``.

    Returns
    -------
    numpy.ndarray
        Strings from :data:`UTILITY_CLASSES`, same shape as ``gamma2``.
    """
    g = np.asarray(gamma2, dtype=float)
    idx = np.where(g <= 0, 0, np.where(g <= GAMMA2_SENSITIVE[1], 1, 2))
    return np.asarray(UTILITY_CLASSES, dtype=object)[idx]


def _utilities(rng, n: int, mix: np.ndarray, gamma1, gamma3) -> tuple[np.ndarray, list[Sigmoid]]:
    cls = rng.choice(3, size=n, p=mix)
    g1 = rng.uniform(gamma1[0], gamma1[1], n)
    g3 = rng.uniform(gamma3[0], gamma3[1], n)
    sens = rng.uniform(*GAMMA2_SENSITIVE, n)
    crit = rng.uniform(*GAMMA2_CRITICAL, n)
    g2 = np.where(cls == 0, 0.0, np.where(cls == 1, sens, crit))
    return cls, [Sigmoid(float(a), float(b), float(c)) for a, b, c in zip(g1, g2, g3, strict=True)]


def _comm_seconds(e_mb, b_gbps):
    """One-way transfer time :math:`e_i/b_i` in seconds for ``e`` MB over ``b`` Gbps."""
    return np.asarray(e_mb, dtype=float) * 8.0 / (np.asarray(b_gbps, dtype=float) * 1000.0)


# ------------------------------------------------------------------------------ Sec. V-A workload


def oasis_workload(
    rng: np.random.Generator,
    *,
    n_jobs: int = 100,
    T: int = 100,
    H: int = 50,
    K: int = 50,
    mix: Sequence[float] = (0.10, 0.55, 0.35),
    gamma1: Sequence[float] = (1.0, 100.0),
    gamma3: Sequence[float] = (1.0, 15.0),
    arrivals: str = "google",
    arrival_span: int | None = None,
    reading: str = "seconds",
    slot_seconds: float = 3600.0,
    worker_types: Sequence[str] = WORKER_TYPES,
    ps_type: str = "c4.8xlarge",
    storage_gb: float = 1000.0,
    fixed_workers: Sequence[int] = (1, 30),
) -> Workload:
    r"""The simulation workload of OASiS Sec. V-A (Figs. 3-6).

    Cluster: ``H`` worker servers (random P2/G3 types) and ``K`` c4.8xlarge PS servers, resources
    :data:`RESOURCES`, server bandwidth :math:`U[20, 50]` Gbps (see the module docstring for the
    role swap). Jobs (ranges of Sec. V-A): worker 0-4 GPUs, 1-10 vCPUs, 2-32 GB, 5-10 GB storage,
    :math:`b_i\in[0.1,5]` Gbps; PS 1-10 vCPUs, 2-32 GB, 5-10 GB storage, :math:`B_i\in[5,20]` Gbps
    (so :math:`b_i\le B_i`); :math:`E_i\in[50,200]`, :math:`N_i\in[5,100]`,
    :math:`M_i\in[10,100]`, :math:`\tau_i\in[0.001,0.1]`, :math:`e_i\in[30,575]` MB; sigmoid
    utility with :math:`\gamma_1` in ``gamma1``, :math:`\gamma_3` in ``gamma3`` (slots) and
    :math:`\gamma_2` by class drawn with ``mix``. ``requested_workers`` (the fixed worker count of
    FIFO and RRH, Sec. V-A) is uniform in ``fixed_workers`` = [1, 30], capped at :math:`N_i`. A
    worker demand that fits on no worker server (possible for small ``H``) is redrawn. Job ids
    follow arrival order; ``JobSpec.name`` is the utility class.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness (cluster first, then arrivals, then jobs).
    n_jobs : int
        Number of jobs (Figs. 3 and 6: 100-400).
    T : int
        Horizon in slots (Sec. V-A: 100-300); also the workload's ``horizon``.
    H, K : int
        Worker servers and PS servers (50 and 50 in the paper).
    mix : sequence of 3 float
        Probabilities of time-insensitive, time-sensitive, time-critical jobs (sum 1).
    gamma1 : (float, float)
        Range of the priority :math:`\gamma_1` (> 0); Fig. 5 varies it.
    gamma3 : (float, float)
        Range of the target completion time :math:`\gamma_3` in slots.
    arrivals : {"google", "uniform"}
        Google diurnal pattern (:func:`google_arrivals`, slot 0 = midnight) or uniform slots.
    arrival_span : int, optional
        Jobs arrive in slots ``0..arrival_span-1`` (default ``T``).
    reading : {"seconds", "literal"}
        Unit of :math:`\tau_i` (module docstring).
    slot_seconds : float
        Slot length in seconds (the cluster's ``slot_seconds``).
    worker_types : sequence of str
        Instance types (keys of :data:`EC2_INSTANCES`) drawn for the worker servers.
    ps_type : str
        Instance type of the PS servers.
    storage_gb : float
        Storage capacity of every server (our assumption; the instances are EBS-only).
    fixed_workers : (int, int)
        Range of the fixed worker count ``requested_workers``.

    Returns
    -------
    Workload
        Named ``"oasis"``, ``horizon=T``, ``params`` holding the arguments.

    Raises
    ------
    ValueError
        On a bad parameter (the message names it and its value).
    """
    n_jobs = _int_param(n_jobs, "oasis_workload: n_jobs")
    T = _int_param(T, "oasis_workload: T")
    H = _int_param(H, "oasis_workload: H")
    K = _int_param(K, "oasis_workload: K")
    p_mix = _mix(mix, "oasis_workload: mix")
    g1 = _pair(gamma1, "oasis_workload: gamma1", strict=True)
    g3 = _pair(gamma3, "oasis_workload: gamma3")
    arrivals = _choice(arrivals, "oasis_workload: arrivals", ARRIVAL_PATTERNS)
    span = T if arrival_span is None else _int_param(arrival_span, "oasis_workload: arrival_span")
    if span > T:
        raise ValueError(f"oasis_workload: arrival_span must be <= T={T}, got {arrival_span!r}")
    reading = _choice(reading, "oasis_workload: reading", READINGS)
    slot_seconds = _pos_param(slot_seconds, "oasis_workload: slot_seconds")
    if isinstance(worker_types, str) or not isinstance(worker_types, Sequence) or not worker_types:
        raise ValueError(f"oasis_workload: worker_types must be a non-empty list, got {worker_types!r}")
    for name in worker_types:
        _choice(name, "oasis_workload: worker_types entry", tuple(EC2_INSTANCES))
    ps_type = _choice(ps_type, "oasis_workload: ps_type", tuple(EC2_INSTANCES))
    storage_gb = _pos_param(storage_gb, "oasis_workload: storage_gb")
    ps_cap = EC2_INSTANCES[ps_type]
    if ps_cap["cpu"] < PS_CPU[1] or ps_cap["mem"] < PS_MEM_GB[1] or storage_gb < PS_STORAGE_GB[1]:
        raise ValueError(
            f"oasis_workload: ps_type={ps_type!r} with storage_gb={storage_gb:g} cannot host a PS of "
            f"{PS_CPU[1]} vCPUs, {PS_MEM_GB[1]} GB memory and {PS_STORAGE_GB[1]} GB storage"
        )
    fw = _int_pair(fixed_workers, "oasis_workload: fixed_workers")

    # cluster
    types = [str(t) for t in rng.choice(np.asarray(worker_types, dtype=object), size=H)]
    wbw = rng.uniform(*SERVER_BANDWIDTH_GBPS, H)
    pbw = rng.uniform(*SERVER_BANDWIDTH_GBPS, K)
    wcaps = [
        {**EC2_INSTANCES[t], "storage": storage_gb, "bandwidth": float(b)}
        for t, b in zip(types, wbw, strict=True)
    ]
    pcaps = [{**EC2_INSTANCES[ps_type], "storage": storage_gb, "bandwidth": float(b)} for b in pbw]
    cluster = Cluster.two_pools(H, K, wcaps, pcaps, slot_seconds=slot_seconds)
    cols = [cluster.resource_index(r) for r in ("gpu", "cpu", "mem", "storage")]
    wcap = cluster.capacity[np.ix_(cluster.servers_for("worker"), cols)]

    # arrivals and jobs
    arrive = _arrivals(rng, arrivals, n_jobs, span, slot_seconds)
    ri, u = rng.integers, rng.uniform
    E = ri(EPOCHS[0], EPOCHS[1] + 1, n_jobs)
    N = ri(CHUNKS[0], CHUNKS[1] + 1, n_jobs)
    M = ri(MINIBATCHES[0], MINIBATCHES[1] + 1, n_jobs)
    tau_raw = u(*TAU, n_jobs)
    e_mb = u(*GRADIENT_MB, n_jobs)
    b = u(*WORKER_BANDWIDTH_GBPS, n_jobs)
    B = u(*PS_BANDWIDTH_GBPS, n_jobs)
    fixed = ri(fw[0], fw[1] + 1, n_jobs)
    cls, utils = _utilities(rng, n_jobs, p_mix, g1, g3)

    def worker_draw(size: int) -> np.ndarray:
        return np.column_stack(
            [
                ri(WORKER_GPU[0], WORKER_GPU[1] + 1, size),
                ri(WORKER_CPU[0], WORKER_CPU[1] + 1, size),
                ri(WORKER_MEM_GB[0], WORKER_MEM_GB[1] + 1, size),
                ri(WORKER_STORAGE_GB[0], WORKER_STORAGE_GB[1] + 1, size),
            ]
        ).astype(float)

    wdem = worker_draw(n_jobs)
    for _ in range(1000):  # redraw worker demands that fit no worker server (small H only)
        bad = ~np.any(np.all(wdem[:, None, :] <= wcap[None, :, :] + 1e-9, axis=2), axis=1)
        if not bad.any():
            break
        wdem[bad] = worker_draw(int(bad.sum()))
    else:
        raise ValueError(
            f"oasis_workload: worker demands keep exceeding every worker server "
            f"(worker_types={list(worker_types)!r}, H={H})"
        )
    pdem = np.column_stack(
        [
            ri(PS_CPU[0], PS_CPU[1] + 1, n_jobs),
            ri(PS_MEM_GB[0], PS_MEM_GB[1] + 1, n_jobs),
            ri(PS_STORAGE_GB[0], PS_STORAGE_GB[1] + 1, n_jobs),
        ]
    ).astype(float)

    comm_slots = _comm_seconds(e_mb, b) / slot_seconds
    tau_slots = tau_raw / slot_seconds if reading == "seconds" else tau_raw
    jobs = []
    for j in range(n_jobs):
        model = OasisModel(
            epochs=int(E[j]),
            chunks=int(N[j]),
            minibatches=int(M[j]),
            tau=float(tau_slots[j]),
            comm=float(comm_slots[j]),
            worker_bw=float(b[j]),
            ps_bw=float(B[j]),
        )
        jobs.append(
            JobSpec(
                j,
                int(arrive[j]),
                model,
                {
                    "gpu": wdem[j, 0],
                    "cpu": wdem[j, 1],
                    "mem": wdem[j, 2],
                    "storage": wdem[j, 3],
                    "bandwidth": float(b[j]),
                },
                {"cpu": pdem[j, 0], "mem": pdem[j, 1], "storage": pdem[j, 2], "bandwidth": float(B[j])},
                utility=utils[j],
                requested_workers=int(min(fixed[j], N[j])),
                name=UTILITY_CLASSES[int(cls[j])],
            )
        )
    params = {
        "n_jobs": n_jobs, "T": T, "H": H, "K": K, "mix": tuple(float(x) for x in p_mix),
        "gamma1": g1, "gamma3": g3, "arrivals": arrivals, "arrival_span": span, "reading": reading,
        "slot_seconds": slot_seconds, "worker_types": tuple(worker_types), "ps_type": ps_type,
        "storage_gb": storage_gb, "fixed_workers": fw,
    }  # fmt: skip
    return Workload(cluster, tuple(jobs), name="oasis", horizon=T, params=params)


# ------------------------------------------------------------------------------ Sec. V-B testbed


def testbed_workload(
    rng: np.random.Generator,
    *,
    n_jobs: int = 12,
    T: int = 10,
    arrival_slots: int = 9,
    slot_seconds: float = 1200.0,
    mix: Sequence[float] = (0.10, 0.55, 0.35),
    gamma1: Sequence[float] = (1.0, 100.0),
    gamma3: Sequence[float] = (1.0, 15.0),
    arrivals: str = "google",
    nic_gbps: float = 10.0,
    models: Mapping[str, Sequence[float]] | None = None,
    chunk_sizes: Sequence[int] = (20, 30),
    epochs: Sequence[int] = (4, 30),
    duration_minutes: Sequence[float] = (40.0, 120.0),
    fixed_workers: Sequence[int] = (1, 30),
) -> Workload:
    r"""The testbed setting of OASiS Sec. V-B (Figs. 8-9), for simulation.

    Servers (paper): 2 PS hosts (8 cores, 32 GB, 1.5 TB) and 7 worker hosts (32 cores, 80 GB,
    600 GB), of which the first 4 (``w0..w3``) carry one GPU each. The hosts have dual-port 1GbE
    and dual-port 10GbE NICs; we give each host ``nic_gbps`` = 10 Gbps (one 10GbE port for the
    training traffic; our choice). Containers (paper): 0-1 GPU, 1-5 cores, 2-10 GB, 1-3 Gbps:
    a worker draws GPU in {0, 1}, cores in 1..5, memory 2..10 GB, :math:`b_i\sim U[1,3]`; a PS
    draws cores 1..5, memory 2..10 GB and :math:`B_i\sim U[b_i, 3]` (so :math:`b_i\le B_i`, needed
    by (6)-(7)). The paper gives no container storage: containers demand none (storage is listed
    with capacity only).

    Jobs: model uniform over ``models`` (default :data:`TESTBED_MODELS`), 200 images split in
    chunks of ``c`` images, ``c`` uniform over ``chunk_sizes`` = {20, 30}:
    :math:`N_i=\lceil 200/c\rceil` (7 chunks for ``c`` = 30, i.e. 210 images per epoch: the last
    chunk is padded), :math:`M_i=c/10` mini-batches of 10 images; :math:`\tau_i` and :math:`e_i`
    (parameter size) from the model table (seconds, MB); :math:`E_i` uniform over the integers
    of ``epochs`` = [4, 30] for which the job's duration at full parallelism,
    :math:`E_iM_i(\tau_i+2e_i/b_i)` seconds, lies in ``duration_minutes`` = [40, 120] minutes
    (the paper: "each runs 40 min-2 h"). Arrivals in the first ``arrival_slots`` = 9 of
    ``T`` = 10 slots of 20 minutes (Google pattern with 3 slots per hour, or uniform). Utilities
    and ``requested_workers`` as in :func:`oasis_workload`. ``JobSpec.name`` is the model.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_jobs : int
        Number of jobs (12 in the paper).
    T : int
        Horizon in slots (10).
    arrival_slots : int
        Jobs arrive in slots ``0..arrival_slots-1`` (9); at most ``T``.
    slot_seconds : float
        Slot length (1200 s = 20 min).
    mix, gamma1, gamma3, arrivals, fixed_workers
        As in :func:`oasis_workload`.
    nic_gbps : float
        Bandwidth capacity of every host.
    models : mapping, optional
        ``name -> (tau seconds per mini-batch, parameter MB)``; default :data:`TESTBED_MODELS`.
    chunk_sizes : sequence of int
        Images per chunk, each a multiple of 10.
    epochs : (int, int)
        Range of :math:`E_i`.
    duration_minutes : (float, float)
        Window of the full-parallelism duration used to select :math:`E_i`.

    Returns
    -------
    Workload
        Named ``"oasis_testbed"``, ``horizon=T``.

    Raises
    ------
    ValueError
        On a bad parameter, or if some model and chunk size admit no epoch count in ``epochs``
        with a duration inside ``duration_minutes``.
    """
    n_jobs = _int_param(n_jobs, "testbed_workload: n_jobs")
    T = _int_param(T, "testbed_workload: T")
    span = _int_param(arrival_slots, "testbed_workload: arrival_slots")
    if span > T:
        raise ValueError(f"testbed_workload: arrival_slots must be <= T={T}, got {arrival_slots!r}")
    slot_seconds = _pos_param(slot_seconds, "testbed_workload: slot_seconds")
    p_mix = _mix(mix, "testbed_workload: mix")
    g1 = _pair(gamma1, "testbed_workload: gamma1", strict=True)
    g3 = _pair(gamma3, "testbed_workload: gamma3")
    arrivals = _choice(arrivals, "testbed_workload: arrivals", ARRIVAL_PATTERNS)
    nic = _pos_param(nic_gbps, "testbed_workload: nic_gbps")
    table = dict(TESTBED_MODELS if models is None else models)
    if not table:
        raise ValueError(f"testbed_workload: models must not be empty, got {models!r}")
    for name, val in table.items():
        what = f"testbed_workload: models[{name!r}]"
        if isinstance(val, (str, bytes)) or not isinstance(val, Sequence) or len(val) != 2:
            raise ValueError(f"{what} must be (tau seconds, parameter MB), got {val!r}")
        table[name] = (_pos_param(val[0], what), _pos_param(val[1], what))
    if isinstance(chunk_sizes, (str, bytes)) or not isinstance(chunk_sizes, Sequence) or not chunk_sizes:
        raise ValueError(f"testbed_workload: chunk_sizes must be a non-empty list, got {chunk_sizes!r}")
    for c in chunk_sizes:
        if _int_param(c, "testbed_workload: chunk_sizes entry", lo=10) % 10:
            raise ValueError(f"testbed_workload: chunk_sizes entries must be multiples of 10, got {c!r}")
    ep = _int_pair(epochs, "testbed_workload: epochs")
    dmin, dmax = _pair(duration_minutes, "testbed_workload: duration_minutes", strict=True)
    fw = _int_pair(fixed_workers, "testbed_workload: fixed_workers")
    # Check every (model, chunk size) can reach the window at the extreme bandwidths b = 1 and 3.
    for name, (tau_s, e_mb) in table.items():
        for c in chunk_sizes:
            m = c // 10
            for bw in (1.0, 3.0):
                q = tau_s + 2 * float(_comm_seconds(e_mb, bw))
                if not any(60 * dmin <= e * m * q <= 60 * dmax for e in range(ep[0], ep[1] + 1)):
                    raise ValueError(
                        f"testbed_workload: model {name!r} with {c} images per chunk (b={bw:g} Gbps) "
                        f"has no epoch count in {ep} giving a duration in {(dmin, dmax)} minutes "
                        f"({q:.3g} s per mini-batch)"
                    )

    workers = [
        {"gpu": 1.0 if h < 4 else 0.0, "cpu": 32, "mem": 80, "storage": 600, "bandwidth": nic}
        for h in range(7)
    ]
    ps_hosts = [{"gpu": 0.0, "cpu": 8, "mem": 32, "storage": 1500, "bandwidth": nic} for _ in range(2)]
    cluster = Cluster.two_pools(7, 2, workers, ps_hosts, slot_seconds=slot_seconds)

    arrive = _arrivals(rng, arrivals, n_jobs, span, slot_seconds)
    names = list(table)
    cls, utils = _utilities(rng, n_jobs, p_mix, g1, g3)
    jobs = []
    for j in range(n_jobs):
        name = names[int(rng.integers(len(names)))]
        tau_s, e_mb = (float(x) for x in table[name])
        c = int(chunk_sizes[int(rng.integers(len(chunk_sizes)))])
        n_chunks, m = math.ceil(200 / c), c // 10
        b = float(rng.uniform(1.0, 3.0))
        B = float(rng.uniform(b, 3.0))
        q = tau_s + 2 * float(_comm_seconds(e_mb, b))
        ok = [e for e in range(ep[0], ep[1] + 1) if 60 * dmin <= e * m * q <= 60 * dmax]
        if not ok:
            raise ValueError(
                f"testbed_workload: model {name!r} with {c} images per chunk (b={b:.3g} Gbps) has no "
                f"epoch count in {ep} giving a duration in {(dmin, dmax)} minutes"
            )
        e_count = int(ok[int(rng.integers(len(ok)))])
        model = OasisModel(
            epochs=e_count,
            chunks=n_chunks,
            minibatches=m,
            tau=tau_s / slot_seconds,
            comm=float(_comm_seconds(e_mb, b)) / slot_seconds,
            worker_bw=b,
            ps_bw=B,
        )
        wd = {
            "gpu": float(rng.integers(0, 2)),
            "cpu": float(rng.integers(1, 6)),
            "mem": float(rng.integers(2, 11)),
            "bandwidth": b,
        }
        pd_ = {"cpu": float(rng.integers(1, 6)), "mem": float(rng.integers(2, 11)), "bandwidth": B}
        jobs.append(
            JobSpec(
                j,
                int(arrive[j]),
                model,
                wd,
                pd_,
                utility=utils[j],
                requested_workers=int(min(int(rng.integers(fw[0], fw[1] + 1)), n_chunks)),
                name=name,
            )
        )
    params = {
        "n_jobs": n_jobs, "T": T, "arrival_slots": span, "slot_seconds": slot_seconds,
        "mix": tuple(float(x) for x in p_mix), "gamma1": g1, "gamma3": g3, "arrivals": arrivals,
        "nic_gbps": nic, "models": {k: tuple(float(x) for x in v) for k, v in table.items()},
        "chunk_sizes": tuple(int(c) for c in chunk_sizes), "epochs": ep,
        "duration_minutes": (dmin, dmax), "fixed_workers": fw,
    }  # fmt: skip
    return Workload(cluster, tuple(jobs), name="oasis_testbed", horizon=T, params=params)


# ------------------------------------------------------------------------------ schedulability


def _oasis_models(workload: Workload) -> list[OasisModel]:
    if not isinstance(workload, Workload):
        raise TypeError(f"workload must be a Workload, got {type(workload).__name__}")
    out = []
    for s in workload.jobs:
        if not isinstance(s.model, OasisModel):
            raise ValueError(f"job {s.job_id}: expected an OasisModel, got {s.model.kind!r}")
        out.append(s.model)
    return out


def min_durations(workload: Workload) -> np.ndarray:
    r"""Shortest possible duration of every job, :math:`\lceil E_iM_i(\tau_i+2e_i/b_i)\rceil` slots
    (with :math:`N_i` workers in every slot; :func:`dlsched.oasis.policy.min_duration`).

    Parameters
    ----------
    workload : Workload
        A workload of :class:`~dlsched.core.jobs.OasisModel` jobs.

    Returns
    -------
    numpy.ndarray
        int64 array in the order of ``workload.jobs``.

    Raises
    ------
    TypeError, ValueError
        If ``workload`` is not a Workload or holds a job of another model.
    """
    from dlsched.oasis.policy import min_duration

    return np.array([min_duration(m) for m in _oasis_models(workload)], dtype=np.int64)


def unschedulable_fraction(workload: Workload, *, horizon: int | None = None) -> dict[str, float]:
    r"""Share of jobs that OASiS cannot schedule whatever the load.

    * ``cannot_finish``: :math:`a_i + d_i^{min} > T` -- even with :math:`N_i` workers from its
      arrival slot on the job would end after the last slot ``T - 1`` (0-based slots);
    * ``never_schedulable``: :math:`\lceil M_i(\tau_i+2e_i/b_i)\rceil > N_i` -- one chunk-pass in a
      slot needs more than :math:`N_i` workers, so COST_t is infinite for every ``d >= 1`` and
      Algorithm 2 rejects the job (spec 11.1 [N]);
    * ``either``: the union.

    Parameters
    ----------
    workload : Workload
        A workload of OasisModel jobs.
    horizon : int, optional
        ``T``; default ``workload.horizon``.

    Returns
    -------
    dict
        ``{"n_jobs": float, "cannot_finish": float, "never_schedulable": float, "either": float}``
        (fractions in [0, 1]).

    Raises
    ------
    TypeError, ValueError
        If ``workload`` is not a Workload of OasisModel jobs, it is empty, or no horizon is known.
    """
    from dlsched.oasis.policy import workers_needed

    models = _oasis_models(workload)
    T = workload.horizon if horizon is None else _int_param(horizon, "horizon")
    if T is None:
        raise ValueError("unschedulable_fraction needs a horizon: workload.horizon is None, pass horizon=")
    if not models:
        raise ValueError("unschedulable_fraction: the workload has no jobs")
    arrival = np.array([s.arrival for s in workload.jobs])
    late = arrival + min_durations(workload) > T
    never = np.array([int(workers_needed(1, m)) > m.chunks for m in models])
    return {
        "n_jobs": float(len(models)),
        "cannot_finish": float(late.mean()),
        "never_schedulable": float(never.mean()),
        "either": float((late | never).mean()),
    }


__all__ = [
    "ARRIVAL_PATTERNS",
    "EC2_INSTANCES",
    "GOOGLE_HOURLY_PROFILE",
    "READINGS",
    "RESOURCES",
    "TESTBED_MODELS",
    "UTILITY_CLASSES",
    "WORKER_TYPES",
    "google_arrivals",
    "min_durations",
    "oasis_workload",
    "slot_intensity",
    "testbed_workload",
    "unschedulable_fraction",
    "utility_classes",
]
